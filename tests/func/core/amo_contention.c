/* amo_contention.c -- every PE hammers one counter on PE 0 with each AMO
 * kind; totals must be exact (heap and global targets, 32- and 64-bit). */
#include "harness.h"

#define ITERS 20000

long g_counter;
int g_counter32;
unsigned long long g_bits;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *h_counter = shmem_calloc(1, sizeof(long));
    shmem_barrier_all();

    for (int i = 0; i < ITERS; i++) {
        shmem_long_atomic_inc(h_counter, 0);
        shmem_long_atomic_add(&g_counter, 2, 0);
        (void)shmem_int_atomic_fetch_add(&g_counter32, 3, 0);
        (void)shmem_long_atomic_fetch_inc(h_counter, 0);
    }
    /* compare-and-swap increment loop */
    for (int i = 0; i < ITERS / 4; i++) {
        long seen = shmem_long_atomic_fetch(&g_counter, 0), prev;
        while ((prev = shmem_long_atomic_compare_swap(&g_counter, seen, seen + 1, 0)) != seen) {
            seen = prev;
        }
    }
    /* fetch_or of distinct bits */
    if (me < 64) {
        shmem_ulonglong_atomic_fetch_or(&g_bits, 1ull << me, 0);
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ(*h_counter, 2L * ITERS * n);
        CHECK_EQ(g_counter, (2L * ITERS + ITERS / 4) * n);
        CHECK_EQ(g_counter32, 3 * ITERS * n);
        unsigned long long want = n >= 64 ? ~0ull : (1ull << n) - 1;
        CHECK(g_bits == want, "bits %llx want %llx", g_bits, want);
    }
    shmem_free(h_counter);
    return test_pass("AMO contention on one counter");
}
