/* fence_order.c -- data-then-flag: after a fence, a flag never arrives
 * before the data it announces (puts, nbi puts, p, AMOs and signals), on
 * heap and global targets; quiet completes everything. */
#include "harness.h"

#define ROUNDS 2000
#define WORDS 64

long g_data[WORDS];
long g_flag;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *h_data = shmem_calloc(WORDS, sizeof(long));
    long *h_flag = shmem_calloc(1, sizeof(long));
    long src[WORDS];

    if (n < 2) {
        return test_pass("fence ordering (needs 2 PEs; nothing to check)");
    }
    for (int target = 0; target < 2; target++) {
        long *data = target ? g_data : h_data, *flag = target ? &g_flag : h_flag;
        *flag = 0;
        shmem_barrier_all();
        if (me == 0) {
            for (long r = 1; r <= ROUNDS; r++) {
                for (int i = 0; i < WORDS; i++) {
                    src[i] = r * 1000 + i;
                }
                switch (r % 4) {
                case 0: shmem_long_put(data, src, WORDS, 1); break;
                case 1: shmem_long_put_nbi(data, src, WORDS, 1); break;
                case 2: for (int i = 0; i < WORDS; i++) shmem_long_p(&data[i], src[i], 1); break;
                case 3: for (int i = 0; i < WORDS; i++) shmem_long_atomic_set(&data[i], src[i], 1); break;
                }
                shmem_fence();
                shmem_long_atomic_set(flag, r, 1);
                /* wait for the ack so the next round cannot overwrite */
                shmem_long_wait_until(flag, SHMEM_CMP_EQ, -r);
            }
        } else if (me == 1) {
            for (long r = 1; r <= ROUNDS; r++) {
                shmem_long_wait_until(flag, SHMEM_CMP_EQ, r);
                for (int i = 0; i < WORDS; i++) {
                    CHECK(data[i] == r * 1000 + i, "round %ld word %d: %ld (flag before data)",
                          r, i, data[i]);
                }
                shmem_long_atomic_set(flag, -r, 0);
            }
        }
        shmem_barrier_all();
    }
    /* put-with-signal: the signal covers its own data, no fence needed */
    static uint64_t sig;
    for (long r = 1; r <= ROUNDS && me < 2; r++) {
        if (me == 0) {
            for (int i = 0; i < WORDS; i++) {
                src[i] = r * 7 + i;
            }
            shmem_long_put_signal(g_data, src, WORDS, &sig, (uint64_t)r, SHMEM_SIGNAL_SET, 1);
            shmem_long_wait_until(&g_flag, SHMEM_CMP_EQ, r);
        } else {
            shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)r);
            for (int i = 0; i < WORDS; i++) {
                CHECK(g_data[i] == r * 7 + i, "signal round %ld word %d", r, i);
            }
            shmem_long_atomic_set(&g_flag, r, 0);
        }
    }
    shmem_barrier_all();
    shmem_free(h_data);
    shmem_free(h_flag);
    return test_pass("fence and put-with-signal ordering");
}
