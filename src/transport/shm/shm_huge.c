/* shm_huge.c -- what the kernel's huge page pool holds (see shm_int.h). */
#include "transport/shm/shm_int.h"

#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>

#ifndef HUGETLBFS_MAGIC
#define HUGETLBFS_MAGIC 0x958458f6
#endif

size_t shr_shm_huge_default_size(void)
{
    FILE *f = fopen("/proc/meminfo", "re");
    char line[128];
    unsigned long kib = 0;

    if (f == NULL) {
        return 0;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "Hugepagesize: %lu kB", &kib) == 1) {
            break;
        }
    }
    fclose(f);
    return (size_t)kib << 10;
}

unsigned long shr_shm_huge_free(size_t page)
{
    char path[96];
    unsigned long n = 0;

    snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%zukB/free_hugepages",
             page >> 10);
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        return 0;
    }
    if (fscanf(f, "%lu", &n) != 1) {
        n = 0;
    }
    fclose(f);
    return n;
}

bool shr_shm_huge_is_hugetlbfs(const char *dir, size_t *page_p, bool *limited_p)
{
    struct statfs fs;

    if (statfs(dir, &fs) != 0 || (unsigned long)fs.f_type != HUGETLBFS_MAGIC) {
        return false;
    }
    *page_p = (size_t)fs.f_bsize;
    *limited_p = fs.f_blocks != 0;
    return true;
}
