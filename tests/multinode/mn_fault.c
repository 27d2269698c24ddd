/* mn_fault.c -- the program mn_launch.sh starts in several ways.
 *   hello               init, report PE/host/node layout, barrier, finalize
 *   ring                every PE puts 1024 longs into the next PE's array,
 *                       barrier, checks what the previous PE put
 *   first VICTIM        VICTIM calls shmem_finalize at once, the others
 *                       0.3 s later: the final barrier must hold VICTIM
 *                       until they come (its endpoints stay open)
 *   kill VICTIM         VICTIM kills itself (SIGKILL) while the others wait in
 *                       a barrier; the launcher must end the job
 *   kill-busy VICTIM    the same while the others get from VICTIM in a loop
 *                       (the remote transport sees the peer vanish)
 *   segv VICTIM         as kill, with SIGSEGV
 *   return VICTIM S [wait]
 *                       VICTIM returns S from main without shmem_finalize
 *                       while the others wait in a barrier (with `wait`: in
 *                       a wait_until on a word nobody writes)
 *   exit VICTIM STATUS  VICTIM calls shmem_global_exit(STATUS), the others
 *                       wait in a barrier
 *   gexit VICTIM STATUS barrier|finalize|put
 *                       VICTIM calls shmem_global_exit(STATUS) right after
 *                       init, before any PE talked to it; the others enter a
 *                       barrier, shmem_finalize (openshmem-examples'
 *                       global_exit.c) or put to every PE in a loop: their
 *                       first connections to it (or to PEs the launcher
 *                       already ended) find it gone
 *   wait                every PE waits for a word nobody writes (the test
 *                       kills the launcher) */
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static long word;
static long ring[1024];

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "hello";
    int victim = argc > 2 ? atoi(argv[2]) : 0;
    char host[64] = "";

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    gethostname(host, sizeof(host) - 1);

    if (strcmp(mode, "hello") == 0) {
        printf("PE %d of %d on %s, %d PE(s) share its memory\n", me, n, host,
               shmem_team_n_pes(SHMEM_TEAM_SHARED));
        fflush(stdout);
        return test_pass("mn_fault hello");
    }
    if (strcmp(mode, "ring") == 0) {
        long mine[1024];
        int next = (me + 1) % n, prev = (me + n - 1) % n;
        for (int i = 0; i < 1024; i++) {
            mine[i] = (long)me * 100000 + i;
        }
        shmem_long_put(ring, mine, 1024, next);
        shmem_barrier_all();
        for (int i = 0; i < 1024; i++) {
            CHECK_EQ(ring[i], (long)prev * 100000 + i);
        }
        return test_pass("mn_fault ring");
    }
    if (strcmp(mode, "first") == 0) {
        shmem_long_p(&word, me, (me + 1) % n); /* an endpoint to another node */
        shmem_barrier_all();
        if (me != victim) {
            usleep(300000);
        }
        shmem_finalize();
        printf("PE %d finalized\n", me);
        return 0;
    }
    if (strcmp(mode, "gexit") == 0) {
        const char *what = argc > 4 ? argv[4] : "barrier";
        if (me == victim) {
            shmem_global_exit(argc > 3 ? atoi(argv[3]) : 3);
        }
        if (strcmp(what, "finalize") == 0) {
            shmem_finalize();
        } else if (strcmp(what, "put") == 0) {
            for (;;) {
                for (int pe = 0; pe < n; pe++) {
                    shmem_long_put(ring, ring, 1024, pe);
                }
                shmem_quiet();
            }
        } else {
            shmem_barrier_all();
        }
        sleep(60); /* never reached in a working library */
        return 1;
    }
    shmem_barrier_all();
    if (strcmp(mode, "wait") == 0) {
        printf("PE %d waits\n", me);
        fflush(stdout);
        shmem_long_wait_until(&word, SHMEM_CMP_EQ, 1);
        return 1;
    }
    if (strcmp(mode, "exit") == 0) {
        if (me == victim) {
            shmem_global_exit(argc > 3 ? atoi(argv[3]) : 3);
        }
        shmem_barrier_all();
        sleep(60); /* never reached in a working library */
        return 1;
    }
    if (strcmp(mode, "return") == 0) {
        if (me == victim) {
            struct timespec at;
            usleep(200000); /* let the others reach their barrier */
            clock_gettime(CLOCK_REALTIME, &at); /* the hosts share the clock */
            printf("PE %d returns %d from main without shmem_finalize at %ld.%09ld\n", me,
                   argc > 3 ? atoi(argv[3]) : 0, (long)at.tv_sec, at.tv_nsec);
            fflush(stdout);
            return argc > 3 ? atoi(argv[3]) : 0;
        }
        if (argc > 4 && strcmp(argv[4], "wait") == 0) {
            shmem_long_wait_until(&word, SHMEM_CMP_EQ, 1);
        } else {
            shmem_barrier_all();
        }
        sleep(60); /* never reached in a working library */
        return 1;
    }
    if (me == victim) {
        struct timespec at;
        usleep(200000); /* let the others reach their wait */
        clock_gettime(CLOCK_REALTIME, &at); /* the hosts share the clock */
        fprintf(stderr, "mn_fault: PE %d on %s kills itself at %ld.%09ld\n", me, host,
                (long)at.tv_sec, at.tv_nsec);
        fflush(NULL);
        raise(strcmp(mode, "segv") == 0 ? SIGSEGV : SIGKILL);
    }
    if (strcmp(mode, "kill-busy") == 0) {
        for (;;) {
            (void)shmem_long_g(&word, victim);
        }
    }
    shmem_barrier_all();
    sleep(60);
    return 1;
}
