/* procstat.h -- what a leak looks like from outside: this process's
 * resident memory and open file descriptors (Linux /proc). */
#ifndef SHIMMER_TEST_PROCSTAT_H
#define SHIMMER_TEST_PROCSTAT_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* VmRSS in KiB, or -1. */
static inline long proc_rss_kib(void)
{
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");

    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            sscanf(line + 6, "%ld", &kib);
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    return kib;
}

/* Open descriptors, or -1. */
static inline int proc_fd_count(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    if (d == NULL) {
        return -1;
    }
    while (readdir(d) != NULL) {
        n++;
    }
    closedir(d);
    return n - 3; /* ".", ".." and the directory's own descriptor */
}

#endif
