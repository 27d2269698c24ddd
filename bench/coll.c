/*
 * coll - collective latency over all PEs (osu_oshm_barrier, _broadcast,
 * _collect, _fcollect, _alltoall, _reduce): -x picks among
 *   barrier bcast collect fcollect alltoall reduce        (default: all)
 * Size = bytes each PE contributes (reduce: bytes of the long/int vector);
 * 4 B uses the 32-bit forms, larger sizes the 64-bit ones.
 * Method (OSU): every iteration is a barrier_all, then the timed call; each
 * PE averages its own calls; the row gives the average, min and max of
 * those per-PE averages.  barrier: back-to-back shmem_barrier_all.
 * API: the active-set forms with pSync/pWrk (every implementation has
 * them), or -T team for the OpenSHMEM 1.5 team forms on SHMEM_TEAM_WORLD.
 * The last result of each point is checked once after timing.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

enum { BARRIER, BCAST, COLLECT, FCOLLECT, ALLTOALL, REDUCE, NCOLL };
static const char *const names[NCOLL] = {"barrier", "bcast", "collect", "fcollect", "alltoall", "reduce"};

#define SYNC_SIZE 64            /* >= every *_SYNC_SIZE of the implementation, checked below */
static long psync[2][SYNC_SIZE];
static bool team_api;

typedef struct bufs {
    char *src, *dst;
    long *pwrk[2];
    size_t pwrk_elems;
} bufs_t;

/* One call of collective c; `k` alternates the pSync/pWrk pair. */
static void call(int c, bufs_t *u, size_t size, int npes, int k)
{
    bool w32 = size % 8 != 0;
    size_t n = w32 ? size / 4 : size / 8;
#if BENCH_HAVE_SHMEM_1_5
    if (team_api) {
        switch (c) {
        case BCAST:    shmem_broadcastmem(SHMEM_TEAM_WORLD, u->dst, u->src, size, 0); return;
        case COLLECT:  shmem_collectmem(SHMEM_TEAM_WORLD, u->dst, u->src, size); return;
        case FCOLLECT: shmem_fcollectmem(SHMEM_TEAM_WORLD, u->dst, u->src, size); return;
        case ALLTOALL: shmem_alltoallmem(SHMEM_TEAM_WORLD, u->dst, u->src, size); return;
        case REDUCE:
            if (w32) shmem_int_sum_reduce(SHMEM_TEAM_WORLD, (int *)u->dst, (int *)u->src, n);
            else     shmem_long_sum_reduce(SHMEM_TEAM_WORLD, (long *)u->dst, (long *)u->src, n);
            return;
        default: shmem_barrier_all(); return;
        }
    }
#endif
    long *ps = psync[k & 1];
    switch (c) {
    case BCAST:
        if (w32) shmem_broadcast32(u->dst, u->src, n, 0, 0, 0, npes, ps);
        else     shmem_broadcast64(u->dst, u->src, n, 0, 0, 0, npes, ps);
        break;
    case COLLECT:
        if (w32) shmem_collect32(u->dst, u->src, n, 0, 0, npes, ps);
        else     shmem_collect64(u->dst, u->src, n, 0, 0, npes, ps);
        break;
    case FCOLLECT:
        if (w32) shmem_fcollect32(u->dst, u->src, n, 0, 0, npes, ps);
        else     shmem_fcollect64(u->dst, u->src, n, 0, 0, npes, ps);
        break;
    case ALLTOALL:
        if (w32) shmem_alltoall32(u->dst, u->src, n, 0, 0, npes, ps);
        else     shmem_alltoall64(u->dst, u->src, n, 0, 0, npes, ps);
        break;
    case REDUCE:
        if (w32) shmem_int_sum_to_all((int *)u->dst, (int *)u->src, (int)n, 0, 0, npes, (int *)u->pwrk[k & 1], ps);
        else     shmem_long_sum_to_all((long *)u->dst, (long *)u->src, (int)n, 0, 0, npes, u->pwrk[k & 1], ps);
        break;
    default:
        shmem_barrier_all();
        break;
    }
}

/* Fills the source so that every destination byte has a known value. */
static void prepare(int c, bufs_t *u, size_t size, int me, int npes)
{
    if (c == ALLTOALL) {
        for (int j = 0; j < npes; j++)
            bench_fill(u->src + (size_t)j * size, size, (unsigned)(me * 131 + j));
    } else if (c == REDUCE) {
        for (size_t i = 0; i < size / 4; i++)
            if (size % 8) ((int *)u->src)[i] = me + (int)i;
            else if (i < size / 8) ((long *)u->src)[i] = me + (long)i;
    } else {
        bench_fill(u->src, size, (unsigned)(me * 7 + size));
    }
}

static bool verify(int c, bufs_t *u, size_t size, int me, int npes)
{
    bool ok = true;
    switch (c) {
    case BCAST:
        return me == 0 || bench_check(u->dst, size, (unsigned)(0 * 7 + size));
    case COLLECT:
    case FCOLLECT:
        for (int j = 0; j < npes; j++)
            ok = ok && bench_check(u->dst + (size_t)j * size, size, (unsigned)(j * 7 + size));
        return ok;
    case ALLTOALL:
        for (int j = 0; j < npes; j++)
            ok = ok && bench_check(u->dst + (size_t)j * size, size, (unsigned)(j * 131 + me));
        return ok;
    case REDUCE: {
        long base = (long)npes * (npes - 1) / 2;
        if (size % 8) {
            for (size_t i = 0; i < size / 4; i++)
                ok = ok && ((int *)u->dst)[i] == (int)(base + (long)npes * (long)i);
        } else {
            for (size_t i = 0; i < size / 8; i++)
                ok = ok && ((long *)u->dst)[i] == base + (long)npes * (long)i;
        }
        return ok;
    }
    default:
        return true;
    }
}

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "coll",
        .title = "collectives: barrier_all, broadcast, collect, fcollect, alltoall, sum-reduce",
        .columns = "coll: api: npes: size:B latency_us:us min_us:us max_us:us iterations: valid:",
        .min_size = 4, .max_size = (size_t)1 << 20,
        .iters = 500, .min_iters = 10, .budget = (size_t)64 << 20,
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);
    team_api = !strcmp(b.opt.type, "team");
#if !BENCH_HAVE_SHMEM_1_5
    if (team_api)
        return bench_unsupported(&b, "team collectives need OpenSHMEM 1.5 (this is an older version)");
#endif
    if (SHMEM_BCAST_SYNC_SIZE > SYNC_SIZE || SHMEM_REDUCE_SYNC_SIZE > SYNC_SIZE ||
        SHMEM_COLLECT_SYNC_SIZE > SYNC_SIZE || SHMEM_ALLTOALL_SYNC_SIZE > SYNC_SIZE)
        bench_die(&b, "pSync arrays of this implementation exceed %d longs", SYNC_SIZE);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < SYNC_SIZE; i++)
            psync[k][i] = SHMEM_SYNC_VALUE;

    int me = b.me, npes = b.npes;
    size_t max = b.opt.max_size < 4 ? 4 : b.opt.max_size;
    bufs_t u;
    u.src = bench_sym_alloc(&b, max * (size_t)npes);
    u.dst = bench_sym_alloc(&b, max * (size_t)npes);
    u.pwrk_elems = max / 8 / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? max / 8 / 2 + 1
                                                                  : SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    /* pWrk as long; the int forms need no more bytes than that (n/2+1 ints <= longs). */
    for (int k = 0; k < 2; k++)
        u.pwrk[k] = bench_sym_alloc(&b, (u.pwrk_elems + max / 4 / 2 + 1) * sizeof(long));
    double *per_pe = me == 0 ? malloc((size_t)npes * sizeof(double)) : NULL;
    shmem_barrier_all();

    for (int c = 0; c < NCOLL; c++) {
        if (!bench_has_op(&b, names[c]))
            continue;
        for (size_t size = c == BARRIER ? 0 : b.opt.min_size; ; size = bench_next_size(&b, size)) {
            if (c != BARRIER && (size == 0 || size < 4))
                break;
            if (!bench_point(&b, "coll=%s api=%s npes=%d size=%zu", names[c], team_api ? "team" : "active_set", npes, size))
                goto next;
            long iters = bench_iters(&b, size * (size_t)npes), warm = bench_warmup(&b, iters);
            double sum = 0;
            if (c != BARRIER)
                prepare(c, &u, size, me, npes);
            shmem_barrier_all();
            if (c == BARRIER) {
                for (long i = 0; i < warm; i++)
                    shmem_barrier_all();
                double t0 = bench_now_us();
                for (long i = 0; i < iters; i++)
                    shmem_barrier_all();
                sum = bench_now_us() - t0;
            } else {
                for (long i = 0; i < warm + iters; i++) {
                    shmem_barrier_all();
                    double t0 = bench_now_us();
                    call(c, &u, size, npes, (int)i);
                    if (i >= warm)
                        sum += bench_now_us() - t0;
                }
            }
            shmem_barrier_all();
            bool ok = bench_all_ok(&b, verify(c, &u, size, me, npes));
            bench_gather(&b, sum / (double)iters, per_pe);
            if (me == 0) {
                double avg = 0, lo = per_pe[0], hi = per_pe[0];
                for (int pe = 0; pe < npes; pe++) {
                    avg += per_pe[pe] / npes;
                    lo = per_pe[pe] < lo ? per_pe[pe] : lo;
                    hi = per_pe[pe] > hi ? per_pe[pe] : hi;
                }
                bench_row_begin(&b);
                bench_col_str(&b, "coll", names[c]);
                bench_col_str(&b, "api", team_api ? "team" : "active_set");
                bench_col_int(&b, "npes", npes);
                bench_col_int(&b, "size", (long long)size);
                bench_col_num(&b, "latency_us", avg);
                bench_col_num(&b, "min_us", lo);
                bench_col_num(&b, "max_us", hi);
                bench_col_int(&b, "iterations", iters);
                bench_col_bool(&b, "valid", ok);
                bench_row_end(&b);
            }
        next:
            if (c == BARRIER || size == 0)
                break;
        }
    }
    free(per_pe);
    return bench_fini(&b, NULL);
}
