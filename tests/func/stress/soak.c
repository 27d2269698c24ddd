/* soak.c -- a mixed workload for a fixed time: puts, gets, atomics,
 * put-with-signal and collectives, every result checked, then resident
 * memory compared with the start.  Nothing may corrupt, hang or leak.
 * argv[1] = seconds (default 20; a nightly-style run uses 300). */
#include <time.h>

#include "harness.h"
#include "procstat.h"

#define BLOCK 4096 /* bytes per put/get */
#define SLACK_KIB 1024

static unsigned char inbox[BLOCK], mirror[BLOCK];
static uint64_t sig;
static long counter, total_adds;
static long red_src, red_dst, bcast;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 20;
    unsigned char *out = malloc(BLOCK), *back = malloc(BLOCK);
    long rss0 = -1;

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    double start = now_s();
    long round = 0;
    CHECK(out != NULL && back != NULL, "malloc");

    for (;;) {
        /* PE 0's clock decides for everyone: all PEs run the same rounds */
        bcast = me == 0 && now_s() - start < seconds;
        shmem_broadcastmem(SHMEM_TEAM_WORLD, &bcast, &bcast, sizeof(bcast), 0);
        if (!bcast) {
            break;
        }
        unsigned seed = (unsigned)round;

        /* put with signal to the right; the right PE checks what arrived */
        for (size_t i = 0; i < BLOCK; i++) {
            out[i] = test_byte(me, i, seed);
        }
        shmem_putmem_signal(inbox, out, BLOCK, &sig, 1, SHMEM_SIGNAL_ADD, right);
        shmem_signal_wait_until(&sig, SHMEM_CMP_GE, (uint64_t)round + 1);
        for (size_t i = 0; i < BLOCK; i++) {
            CHECK(inbox[i] == test_byte(left, i, seed), "round %ld: byte %zu from PE %d", round,
                  i, left);
        }
        /* plain put to a mirror, then a get of the left PE's mirror */
        shmem_putmem(mirror, out, BLOCK, right);
        shmem_barrier_all();
        shmem_getmem(back, mirror, BLOCK, left);
        for (size_t i = 0; i < BLOCK; i++) {
            int writer = (left + n - 1) % n;
            CHECK(back[i] == test_byte(writer, i, seed), "round %ld: get byte %zu", round, i);
        }
        /* atomics: everyone adds to PE round%n's counter; fetch results are
         * checked by the total at the end */
        long add = (long)(round % 7) + 1;
        (void)shmem_long_atomic_fetch_add(&counter, add, (int)(round % n));
        total_adds += add;
        /* collective: the sum of (pe + round) over all PEs */
        red_src = me + round;
        CHECK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &red_dst, &red_src, 1), 0);
        CHECK_EQ(red_dst, (long)n * (n - 1) / 2 + (long)n * round);
        shmem_barrier_all(); /* nobody overwrites inbox/mirror before all checked */
        if (++round == 100) {
            rss0 = proc_rss_kib();
        }
    }
    /* every PE added total_adds spread over the PEs: the counters' sum is n x that */
    shmem_barrier_all();
    long sum = 0;
    for (int pe = 0; pe < n; pe++) {
        sum += shmem_long_atomic_fetch(&counter, pe);
    }
    CHECK_EQ(sum, (long)n * total_adds);
    if (rss0 >= 0) {
        long rss = proc_rss_kib();
        CHECK(rss - rss0 <= SLACK_KIB, "RSS grew by %ld KiB over %ld rounds", rss - rss0, round);
    }
    if (me == 0) {
        printf("soak: %ld rounds in %.1f s\n", round, now_s() - start);
    }
    free(out);
    free(back);
    return test_pass("soak");
}
