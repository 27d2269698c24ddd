/*
 * sos_shmemx -- code written for Sandia OpenSHMEM builds unchanged: SOS
 * spells these 1.6 routines shmemx_ (typed, sized, ctx and generic forms),
 * shmemx.h maps them to the standard ones.  Each PE works with its right
 * neighbour and checks the results exactly.
 */
#include <shmemx.h>

#include "harness.h"

static int isrc[8], idst[8];
static long lsrc[8], ldst[8];
static uint64_t sig_add, sig_set;
static int in_i, out_i;
static long in_l, out_l;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;

    for (int i = 0; i < 8; i++) {
        isrc[i] = me * 100 + i;
        lsrc[i] = me * 1000 + i;
    }
    shmem_barrier_all();

    /* blocks of 2 every 4 elements: typed with ctx, then sized */
    shmemx_ctx_int_ibput(SHMEM_CTX_DEFAULT, idst, isrc, 4, 4, 2, 2, right);
    shmemx_ibput64(ldst, lsrc, 4, 4, 2, 2, right);
    shmem_barrier_all();
    for (int i = 0; i < 8; i++) {
        int want = i % 4 < 2 ? left * 100 + i : 0;
        CHECK_EQ(idst[i], want);
        CHECK_EQ(ldst[i], i % 4 < 2 ? left * 1000L + i : 0);
    }

    /* get them back: typed, and generic on a context */
    int iback[8] = {0};
    long lback[8] = {0};
    shmemx_int_ibget(iback, idst, 1, 1, 8, 1, right);
    shmemx_ibget(SHMEM_CTX_DEFAULT, lback, ldst, 1, 1, 8, 1, right);
    for (int i = 0; i < 8; i++) {
        CHECK_EQ(iback[i], i % 4 < 2 ? me * 100 + i : 0);
        CHECK_EQ(lback[i], i % 4 < 2 ? me * 1000L + i : 0);
    }

    /* signals: plain and generic on a context */
    shmemx_signal_add(&sig_add, (uint64_t)me + 1, right);
    shmemx_signal_set(SHMEM_CTX_DEFAULT, &sig_set, 7, right);
    shmem_quiet();
    shmem_barrier_all();
    CHECK_EQ(shmem_signal_fetch(&sig_add), (uint64_t)left + 1);
    CHECK_EQ(shmem_signal_fetch(&sig_set), 7);

    /* scans: typed inclusive, generic exclusive */
    in_i = me + 1;
    in_l = me + 1;
    CHECK_EQ(shmemx_int_sum_inscan(SHMEM_TEAM_WORLD, &out_i, &in_i, 1), 0);
    CHECK_EQ(shmemx_sum_exscan(SHMEM_TEAM_WORLD, &out_l, &in_l, 1), 0);
    CHECK_EQ(out_i, (me + 1) * (me + 2) / 2);
    CHECK_EQ(out_l, (long)me * (me + 1) / 2);

    return test_pass("sos_shmemx");
}
