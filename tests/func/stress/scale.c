/* scale.c -- many PEs on few cores: start-up, a barrier loop and a small
 * all-to-all must finish and compute the right thing (tests/func/stress).
 * argv[1] = barriers (default 20), argv[2] = all-to-all rounds (default 3). */
#include "harness.h"

int main(int argc, char **argv)
{
    int barriers = argc > 1 ? atoi(argv[1]) : 20, rounds = argc > 2 ? atoi(argv[2]) : 3;

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int i = 0; i < barriers; i++) {
        shmem_barrier_all();
    }
    /* one long per pair: each PE sends (me, dest, round) to every PE */
    long *src = shmem_malloc((size_t)n * sizeof(long));
    long *dst = shmem_malloc((size_t)n * sizeof(long));
    CHECK(src != NULL && dst != NULL, "allocation of 2 x %d longs", n);
    for (int r = 0; r < rounds; r++) {
        for (int pe = 0; pe < n; pe++) {
            src[pe] = ((long)me << 32) | ((long)pe << 8) | r;
        }
        CHECK_EQ(shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, 1), 0);
        for (int pe = 0; pe < n; pe++) {
            CHECK_EQ(dst[pe], ((long)pe << 32) | ((long)me << 8) | r);
        }
        /* the spec: every dest must be ready before any PE calls again */
        shmem_sync_all();
    }
    shmem_free(dst);
    shmem_free(src);
    return test_pass("scale");
}
