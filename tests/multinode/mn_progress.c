/* mn_progress.c -- progress without the target's help (spec 4.1): the last
 * PE computes for 2 s without calling the library while every other PE
 * puts to it, gets from it and adds to it.  Over a transport without
 * hardware RMA (TCP) and with software atomics, only the target's progress
 * thread can serve them.  Passes if every PE finished its operations (each
 * one completed, results checked) while the target was still computing.
 *
 *   argv[1]: "expect-stall" inverts the verdict: with
 *   SHIMMER_PROGRESS_THREAD=off the operations must wait for the target
 *   (shows the test can tell the difference). */
#include <stdbool.h>
#include <time.h>

#include "harness.h"

#define COMPUTE_S 2.0
#define ROUNDS 50
#define WORDS 64

static long box[WORDS];          /* target's: others put into their slot */
static long counter;             /* target's: others add to it */
static long source[WORDS];       /* target's: others get from it */
static double finished_at;       /* each PE: seconds after the start */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    bool expect_stall = argc > 1 && strcmp(argv[1], "expect-stall") == 0;
    int me, n, target;

    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    target = n - 1;
    if (n < 2) {
        return test_pass("mn_progress (needs 2 PEs: nothing to do)");
    }
    for (int i = 0; i < WORDS; i++) {
        source[i] = 1000 + i;
    }
    shmem_barrier_all();
    double start = now_s();

    if (me == target) {
        /* computes, never entering the library */
        volatile double x = 0;
        while (now_s() - start < COMPUTE_S) {
            for (int i = 0; i < 1000; i++) {
                x += i * 0.5;
            }
        }
        (void)x;
        finished_at = now_s() - start;
    } else {
        long got[WORDS];
        for (int r = 0; r < ROUNDS; r++) {
            long v = (long)me * 1000000 + r;
            shmem_long_p(&box[me % WORDS], v, target);
            shmem_quiet(); /* needs the target to complete the put */
            shmem_long_get(got, source, WORDS, target);
            for (int i = 0; i < WORDS; i++) {
                CHECK(got[i] == 1000 + i, "get word %d: %ld", i, got[i]);
            }
            shmem_long_atomic_add(&counter, 1, target);
            long old = shmem_long_atomic_fetch_add(&counter, 1, target);
            CHECK(old >= 1, "fetch_add saw %ld", old);
        }
        finished_at = now_s() - start;
    }
    shmem_barrier_all();
    if (me == target) {
        CHECK_EQ(counter, (long)(n - 1) * ROUNDS * 2);
    }
    if (me != target) {
        bool in_time = finished_at < COMPUTE_S * 0.75;
        if (!expect_stall) {
            CHECK(in_time, "PE %d needed %.3f s for %d rounds while PE %d computed for %.1f s: "
                  "the target did not serve it (no progress thread?)", me, finished_at, ROUNDS,
                  target, COMPUTE_S);
        } else {
            CHECK(!in_time, "PE %d finished in %.3f s although the target had no progress "
                  "thread", me, finished_at);
        }
        printf("mn_progress: PE %d: %d rounds of put+quiet, get, add, fetch_add on PE %d done "
               "after %.3f s (target computed %.1f s)\n", me, ROUNDS, target, finished_at,
               COMPUTE_S);
    }
    return test_pass(expect_stall ? "mn_progress (expect-stall)" : "mn_progress");
}
