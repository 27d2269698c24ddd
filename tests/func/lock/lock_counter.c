/* lock_counter.c -- distributed locks under contention: every PE adds to a
 * counter on PE 0 with a get / put pair (not atomic) inside the critical
 * section, ITERS times, through shmem_set_lock (queueing) and through
 * shmem_test_lock polling; the total must be exact.  Locks live in the
 * heap and in global memory; two locks are used in an interleaved way
 * (independent queues).  test_lock reports a held lock (1) and takes a
 * free one (0).  FCFS: PEs that queue one after another get the lock in
 * that order.  argv[1] = iterations. */
#include "harness.h"

long g_lock;          /* a lock in global memory */
static long g_count;  /* the protected counters, on PE 0 */
static long g_count2;

static void add_under(long *lock, long *count, int use_test)
{
    if (use_test) {
        while (shmem_test_lock(lock) != 0) {
            /* poll */
        }
    } else {
        shmem_set_lock(lock);
    }
    long v = shmem_long_g(count, 0);
    shmem_long_p(count, v + 1, 0);
    shmem_clear_lock(lock); /* quiets: the put lands before the next holder reads */
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 500;

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *h_lock = shmem_calloc(1, sizeof(long));
    CHECK(h_lock != NULL, "calloc");

    /* set_lock, heap lock */
    for (long i = 0; i < iters; i++) {
        add_under(h_lock, &g_count, 0);
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ(g_count, iters * n);
    }
    shmem_barrier_all();

    /* test_lock polling, global lock; mixed with set_lock on odd PEs */
    for (long i = 0; i < iters; i++) {
        add_under(&g_lock, &g_count2, me % 2 == 0);
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ(g_count2, iters * n);
    }
    shmem_barrier_all();

    /* two locks at once, taken in the same order by everyone */
    for (long i = 0; i < iters / 4; i++) {
        shmem_set_lock(h_lock);
        shmem_set_lock(&g_lock);
        long v = shmem_long_g(&g_count, 0);
        shmem_long_p(&g_count, v + 1, 0);
        shmem_clear_lock(&g_lock);
        shmem_clear_lock(h_lock);
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ(g_count, iters * n + (iters / 4) * n);
    }

    /* test_lock reports a held lock */
    if (me == 0) {
        shmem_set_lock(h_lock);
    }
    shmem_barrier_all();
    if (me != 0) {
        CHECK_EQ(shmem_test_lock(h_lock), 1);
    }
    shmem_barrier_all();
    if (me == 0) {
        shmem_clear_lock(h_lock);
    }
    shmem_barrier_all();
    if (me == n - 1) {
        CHECK_EQ(shmem_test_lock(h_lock), 0);
        shmem_clear_lock(h_lock);
    }
    shmem_barrier_all();

    /* FCFS (white box: Shimmer's lock keeps the queue's tail, 1 + the last
     * PE to queue, in the first 32 bits of PE 0's lock word).  PE 0 holds
     * the lock; PEs 1..n-1 queue one after another, each only once its
     * predecessor is in the queue; the lock must then pass in that order. */
    static long order[1024];
    static long pos;
    if (n <= 1024) {
        if (me == 0) {
            shmem_set_lock(&g_lock);
        }
        shmem_barrier_all();
        if (me > 0) {
            while (shmem_int_atomic_fetch((int *)&g_lock, 0) != me) {
                /* wait for PE me-1 to be queued */
            }
            shmem_set_lock(&g_lock);
            long at = shmem_long_atomic_fetch_add(&pos, 1, 0);
            shmem_long_p(&order[at], me, 0);
            shmem_clear_lock(&g_lock);
        } else {
            while (n > 1 && shmem_int_atomic_fetch((int *)&g_lock, 0) != n - 1 + 1) {
                /* until everyone queued */
            }
            shmem_clear_lock(&g_lock);
        }
        shmem_barrier_all();
        if (me == 0) {
            CHECK_EQ(pos, n - 1);
            for (int i = 0; i < n - 1; i++) {
                CHECK(order[i] == i + 1, "acquisition %d went to PE %ld, not PE %d (FCFS)", i,
                      order[i], i + 1);
            }
        }
    }
    shmem_free(h_lock);
    return test_pass("lock_counter");
}
