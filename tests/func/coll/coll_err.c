/*
 * coll_err -- collectives misused in one way each (run by
 * test_coll_errors.py, which checks the message and the exit status).
 *   coll_err CASE      (run under oshrun -n 3, usually with SHMEM_DEBUG=1)
 */
#include <unistd.h>

#include "harness.h"

static long psync[SHMEM_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static long buf[64], out[64 * 4];

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    int me;

    shmem_init();
    me = shmem_my_pe();
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++) {
        psync[i] = SHMEM_SYNC_VALUE;
    }
    shmem_barrier_all();

    if (!strcmp(c, "fcollect_nelems")) {
        shmem_fcollectmem(SHMEM_TEAM_WORLD, out, buf, me == 1 ? 16 : 8);
    } else if (!strcmp(c, "bcast_root")) {
        shmem_broadcastmem(SHMEM_TEAM_WORLD, out, buf, 8, me == 2 ? 1 : 0);
    } else if (!strcmp(c, "reduce_nreduce")) {
        shmem_long_sum_to_all(out, buf, me == 2 ? 4 : 2, 0, 0, 3, pwrk, psync);
    } else if (!strcmp(c, "kind")) {
        if (me == 0) {
            shmem_broadcastmem(SHMEM_TEAM_WORLD, out, buf, 8, 0);
        } else {
            shmem_fcollectmem(SHMEM_TEAM_WORLD, out, buf, 8);
        }
    } else if (!strcmp(c, "invalid_team")) {
        shmem_broadcastmem(SHMEM_TEAM_INVALID, out, buf, 8, 0);
    } else if (!strcmp(c, "reduce_overlap")) {
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, buf + 1, buf, 4);
    } else if (!strcmp(c, "fcollect_overlap")) {
        shmem_fcollectmem(SHMEM_TEAM_WORLD, out, (char *)out + 8, 8);
    } else if (!strcmp(c, "fcollect_mixed")) {
        /* PE 0 in place (its block of dest), the others a separate source */
        shmem_fcollectmem(SHMEM_TEAM_WORLD, out, me == 0 ? (void *)out : (void *)buf, 8);
    } else if (!strcmp(c, "collect_overlap")) {
        shmem_collect64(out, out, 1, 0, 0, 3, psync);
    } else if (!strcmp(c, "bcast_overlap")) {
        shmem_broadcastmem(SHMEM_TEAM_WORLD, buf, (char *)buf + 4, 8, 0);
    } else if (!strcmp(c, "aset_member")) {
        if (me == 2) {
            shmem_barrier(0, 0, 2, psync);
        }
    } else if (!strcmp(c, "aset_outsider")) {
        /* code written for Open MPI's OSHMEM: every PE calls, the set is
         * {0, 1}; PE 2 must come back untouched, the members right */
        static long src[2], dst[2], sum[2];
        src[0] = me + 10;
        src[1] = me + 20;
        dst[0] = dst[1] = sum[0] = sum[1] = -1;
        shmem_barrier_all();
        for (int round = 0; round < 3; round++) {
            shmem_broadcast64(dst, src, 2, 0, 0, 0, 2, psync);
            shmem_barrier_all();
            shmem_long_sum_to_all(sum, src, 2, 0, 0, 2, pwrk, psync);
            shmem_barrier_all();
        }
        long want_dst = me == 1 ? 10 : -1, want_sum = me < 2 ? 21 : -1;
        CHECK_EQ(dst[0], want_dst);
        CHECK_EQ(sum[0], want_sum);
        CHECK_EQ(sum[1], me < 2 ? 41 : -1);
        printf("PE %d ok\n", me);
    } else if (!strcmp(c, "aset_too_big")) {
        /* the openshmem-examples' bcast3 on fewer than 4 PEs */
        static long src[2], dst[2];
        shmem_broadcast64(dst, src, 2, 0, 0, 0, 4, psync);
    } else if (!strcmp(c, "root_range")) {
        shmem_broadcastmem(SHMEM_TEAM_WORLD, out, buf, 8, 5);
    } else if (!strcmp(c, "alltoalls_stride")) {
        shmem_alltoallsmem(SHMEM_TEAM_WORLD, out, buf, 0, 1, 4);
    } else if (!strcmp(c, "psync_overlap")) {
        shmem_broadcast64(psync + 4, buf, 2, 0, 0, 0, 3, psync);
    } else if (!strcmp(c, "late_barrier")) {
        if (me == 2) {
            sleep(3);
        }
        shmem_barrier_all();
    } else if (!strcmp(c, "late_reduce")) {
        if (me == 2) {
            sleep(3);
        }
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, out, buf, 4);
    } else if (!strcmp(c, "late_aset")) {
        if (me == 2) {
            sleep(3);
        }
        shmem_broadcast64(out, buf, 2, 0, 0, 0, 3, psync);
    } else if (!strcmp(c, "algo_name")) {
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, out, buf, 4);
    } else {
        fprintf(stderr, "coll_err: unknown case '%s'\n", c);
        return 2;
    }
    shmem_finalize();
    return 0;
}
