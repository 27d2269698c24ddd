/* watch.c -- the node's PEs watched through pidfds (watch.h). */
#include "core/watch.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "boot/boot.h"
#include "util/log.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static struct {
    pthread_t thread;
    bool running;
    int count;
    struct pollfd *fds; /* [count] pidfds, then the stop eventfd */
    int *pes;
} shr_watch;

static void *shr_watch_main(void *arg)
{
    char line[160];

    (void)arg;
    for (;;) {
        int ready = poll(shr_watch.fds, (nfds_t)shr_watch.count + 1, -1);
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready < 0 || shr_watch.fds[shr_watch.count].revents != 0) {
            return NULL; /* stopped (or poll broke: watch no more) */
        }
        for (int i = 0; i < shr_watch.count; i++) {
            if (shr_watch.fds[i].revents != 0) {
                snprintf(line, sizeof(line), "PE %d on this node ended without reaching "
                         "shmem_finalize's barrier", shr_watch.pes[i]);
                shr_boot_peer_lost(line);
            }
        }
    }
}

static void shr_watch_free(void)
{
    for (int i = 0; shr_watch.fds != NULL && i <= shr_watch.count; i++) {
        if (shr_watch.fds[i].fd >= 0) {
            close(shr_watch.fds[i].fd);
        }
    }
    free(shr_watch.fds);
    free(shr_watch.pes);
    shr_watch.fds = NULL;
    shr_watch.pes = NULL;
    shr_watch.count = 0;
}

void shr_watch_start(const int *pes, const pid_t *pids, int count)
{
    sigset_t all, old;
    int n = 0;

    if (shr_watch.running || count <= 0) {
        return;
    }
    shr_watch.fds = calloc((size_t)count + 1, sizeof(*shr_watch.fds));
    shr_watch.pes = calloc((size_t)count, sizeof(int));
    if (shr_watch.fds == NULL || shr_watch.pes == NULL) {
        shr_watch_free();
        return;
    }
    for (int i = 0; i < count; i++) {
        int fd = (int)syscall(SYS_pidfd_open, pids[i], 0);
        if (fd < 0) {
            /* ESRCH: gone already; the exchange it just took part in
             * would be its last -- its launcher reports it */
            shr_debug(SHR_LOG_CORE, "not watching PE %d (pid %d): pidfd_open: %s", pes[i],
                      (int)pids[i], strerror(errno));
            continue;
        }
        shr_watch.fds[n].fd = fd;
        shr_watch.fds[n].events = POLLIN;
        shr_watch.pes[n++] = pes[i];
    }
    shr_watch.count = n;
    shr_watch.fds[n].fd = eventfd(0, EFD_CLOEXEC);
    shr_watch.fds[n].events = POLLIN;
    if (n == 0 || shr_watch.fds[n].fd < 0) {
        shr_watch_free();
        return;
    }
    /* the program's signals are not the watcher's to take */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    shr_watch.running = pthread_create(&shr_watch.thread, NULL, shr_watch_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!shr_watch.running) {
        shr_watch_free();
    }
}

void shr_watch_stop(void)
{
    uint64_t one = 1;

    if (!shr_watch.running) {
        return;
    }
    if (write(shr_watch.fds[shr_watch.count].fd, &one, sizeof(one)) == sizeof(one)) {
        pthread_join(shr_watch.thread, NULL);
    } else {
        pthread_cancel(shr_watch.thread);
        pthread_join(shr_watch.thread, NULL);
    }
    shr_watch.running = false;
    shr_watch_free();
}
