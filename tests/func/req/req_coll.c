/* req_coll.c -- collectives on request handles: broadcast, fcollect and
 * every reduction op (on int64, double and uchar, each op the standard
 * gives the type) split between 1, 2 and 4 threads per PE
 * (shmemx_req_split), in place and not (broadcast with source == dest,
 * fcollect with each source at its block of dest, reductions), on WORLD and on a team of the even
 * PEs; the barrier on a handle (each thread's puts of its private context
 * are complete at the right neighbour when it returns) and the sync, split
 * the same way; the unsplit forms (collect, alltoall too) from one thread.
 * argv[1] = elements. */
#include <pthread.h>

#include <shmemx.h>

#include "harness.h"

static size_t nelems = 1001; /* odd: slices of different sizes */
static long *src, *dst, *red, *ipl; /* ipl: in-place broadcast, then fcollect */
static int me, npes, nthreads;
static shmem_team_t team;
static int round_no;

/* ---- every reduction op, split: case k reduces red_src(k) into red_dst(k) */
enum { K_BIT, K_MM, K_SUM, K_PROD };

/* (type, typename, op, value kind) of each case */
#define RED_CASES(_X) \
    _X(int64_t, int64, and, K_BIT) _X(int64_t, int64, or, K_BIT) _X(int64_t, int64, xor, K_BIT) \
    _X(int64_t, int64, max, K_MM) _X(int64_t, int64, min, K_MM) _X(int64_t, int64, sum, K_SUM) \
    _X(int64_t, int64, prod, K_PROD) _X(double, double, max, K_MM) _X(double, double, min, K_MM) \
    _X(double, double, sum, K_SUM) _X(double, double, prod, K_PROD) \
    _X(unsigned char, uchar, and, K_BIT) _X(unsigned char, uchar, or, K_BIT) \
    _X(unsigned char, uchar, xor, K_BIT)
#define COUNT_CASE(_t, _tn, _op, _kind) +1
#define NCASES (0 RED_CASES(COUNT_CASE))

static long *bar_slot;  /* symmetric: [rank] written by the left neighbour's thread rank */
static long *sync_count; /* symmetric: [round] counts arrivals, on team member 0 */

static char *red_buf; /* symmetric: NCASES sources, then NCASES results, 8 bytes an element */

static void *red_src(int k)
{
    return red_buf + (size_t)k * nelems * 8;
}

static void *red_dst(int k)
{
    return red_buf + (size_t)(NCASES + k) * nelems * 8;
}

/* team member pe's element i of a case of kind `kind`: exact in every
 * type of the cases at up to 8 members */
static long red_val(int kind, int pe, size_t i)
{
    switch (kind) {
    case K_BIT:
        return (long)(((pe * 5 + i * 3) & 0x1f) | (1u << ((pe + i + round_no) % 6)));
    case K_MM:
        return (long)((pe * 13 + i * 7 + round_no) % 100) - 50;
    case K_SUM:
        return (long)((pe + i) % 5) - 2 + round_no;
    default:
        return (pe + i) % 4 == 1 ? -1 : (pe < 3 && (pe + i) % 3 == 0 ? 2 : 1);
    }
}

static long op_and(long a, long b) { return a & b; }
static long op_or(long a, long b) { return a | b; }
static long op_xor(long a, long b) { return a ^ b; }
static long op_max(long a, long b) { return b > a ? b : a; }
static long op_min(long a, long b) { return b < a ? b : a; }
static long op_sum(long a, long b) { return a + b; }
static long op_prod(long a, long b) { return a * b; }

#define FILL_CASE(_t, _tn, _op, _kind) \
    for (size_t i = 0; i < nelems; i++) { \
        ((_t *)red_src(k))[i] = (_t)red_val(_kind, tme, i); \
    } \
    k++;
#define CALL_CASE(_t, _tn, _op, _kind) \
    shmemx_req_split(&r, nthreads, rank); \
    CHECK(shmemx_##_tn##_##_op##_reduce_req(team, (_t *)red_dst(k), (const _t *)red_src(k), \
                                             nelems, &r) == 0, #_tn "_" #_op "_reduce_req"); \
    k++;
#define CHECK_CASE(_t, _tn, _op, _kind) \
    for (size_t i = 0; i < nelems; i++) { \
        long want = red_val(_kind, 0, i); \
        for (int p = 1; p < tn; p++) { \
            want = op_##_op(want, red_val(_kind, p, i)); \
        } \
        CHECK(((_t *)red_dst(k))[i] == (_t)want, "%d threads: %s element %zu", threads, \
              #_tn "_" #_op "_reduce_req", i); \
    } \
    k++;

static void *coll_thread(void *arg)
{
    int rank = (int)(intptr_t)arg;
    shmemx_req_t r = SHMEMX_REQ_NULL;
    int tn = shmem_team_n_pes(team);

    shmemx_req_split(&r, nthreads, rank);
    CHECK(shmemx_long_broadcast_req(team, dst, src, nelems, round_no % tn, &r) == 0,
          "broadcast_req");
    CHECK(r == SHMEMX_REQ_NULL, "the split mark is used up");
    shmemx_req_split(&r, nthreads, rank);
    CHECK(shmemx_long_fcollect_req(team, dst + nelems, src, nelems, &r) == 0, "fcollect_req");
    shmemx_req_split(&r, nthreads, rank);
    CHECK(shmemx_long_broadcast_req(team, ipl, ipl, nelems, round_no % tn, &r) == 0,
          "broadcast_req in place");
    long *mine = ipl + (1 + (size_t)shmem_team_my_pe(team)) * nelems;
    shmemx_req_split(&r, nthreads, rank);
    CHECK(shmemx_long_fcollect_req(team, ipl + nelems, mine, nelems, &r) == 0,
          "fcollect_req in place");
    shmemx_req_split(&r, nthreads, rank);
    CHECK(shmemx_long_sum_reduce_req(team, red, src, nelems, &r) == 0, "sum_reduce_req");
    shmemx_req_split(&r, nthreads, rank);
    CHECK(shmemx_sum_reduce_req(team, src, src, nelems, &r) == 0, "sum_reduce_req in place");
    int k = 0;
    RED_CASES(CALL_CASE)

    /* barrier: completes this thread's handle (a put of its own context) */
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        ctx = SHMEM_CTX_DEFAULT;
    }
    int tme = shmem_team_my_pe(team);
    int right = shmem_team_translate_pe(team, (tme + 1) % tn, SHMEM_TEAM_WORLD);
    int first = shmem_team_translate_pe(team, 0, SHMEM_TEAM_WORLD);
    long mark = round_no * 10 + rank + 1;
    shmemx_ctx_long_put_req(ctx, &bar_slot[rank], &mark, 1, right, &r);
    shmemx_req_split(&r, nthreads, rank);
    CHECK(shmemx_barrier_req(team, &r) == 0, "barrier_req");
    CHECK(r == SHMEMX_REQ_NULL, "barrier_req completes the handle");
    CHECK(bar_slot[rank] == mark, "%d threads: barrier_req: slot %d is %ld, want %ld", nthreads,
          rank, bar_slot[rank], mark);
    if (ctx != SHMEM_CTX_DEFAULT) {
        shmem_ctx_destroy(ctx);
    }
    /* sync: every thread of every member has counted itself before any leaves */
    (void)shmem_long_atomic_fetch_add(&sync_count[round_no], 1, first);
    shmemx_req_split(&r, nthreads, rank);
    CHECK(shmemx_team_sync_req(team, &r) == 0, "team_sync_req");
    CHECK(shmem_long_atomic_fetch(&sync_count[round_no], first) >= (long)tn * nthreads,
          "%d threads: team_sync_req let a thread leave early", nthreads);
    shmemx_req_wait(&r);
    return NULL;
}

static long val(int pe, size_t i)
{
    return (long)pe * 100000 + (long)i + round_no;
}

static void run(int threads)
{
    pthread_t th[4];
    int tme = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);

    nthreads = threads;
    for (size_t i = 0; i < nelems; i++) {
        src[i] = val(tme, i);
    }
    memset(dst, 0, (1 + (size_t)tn) * nelems * sizeof(long));
    memset(ipl, 0, (1 + (size_t)tn) * nelems * sizeof(long));
    for (size_t i = 0; i < nelems; i++) {
        ipl[(1 + (size_t)tme) * nelems + i] = val(tme, i) + 7;
        if (tme == round_no % tn) {
            ipl[i] = val(tme, i) - 7;
        }
    }
    memset(red_dst(0), 0, NCASES * nelems * 8);
    int k = 0;
    RED_CASES(FILL_CASE)
    shmem_team_sync(team);
    for (int t = 0; t < threads; t++) {
        pthread_create(&th[t], NULL, coll_thread, (void *)(intptr_t)t);
    }
    for (int t = 0; t < threads; t++) {
        pthread_join(th[t], NULL);
    }
    int root = round_no % tn;
    for (size_t i = 0; i < nelems; i++) {
        long sum = 0;
        for (int p = 0; p < tn; p++) {
            sum += val(p, i);
            CHECK(dst[nelems + (size_t)p * nelems + i] == val(p, i),
                  "%d threads: fcollect block %d element %zu", threads, p, i);
            CHECK(ipl[nelems + (size_t)p * nelems + i] == val(p, i) + 7,
                  "%d threads: in-place fcollect block %d element %zu", threads, p, i);
        }
        CHECK(dst[i] == val(root, i), "%d threads: broadcast element %zu", threads, i);
        CHECK(ipl[i] == val(root, i) - 7, "%d threads: in-place broadcast element %zu", threads,
              i);
        CHECK(red[i] == sum, "%d threads: sum element %zu: %ld, want %ld", threads, i, red[i],
              sum);
        CHECK(src[i] == sum, "%d threads: in-place sum element %zu", threads, i);
    }
    k = 0;
    RED_CASES(CHECK_CASE)
    shmem_team_sync(team);
    round_no++;
}

int main(int argc, char **argv)
{

    if (argc > 1) {
        nelems = (size_t)atol(argv[1]);
    }
    if (!test_init_multiple()) {
        return TEST_SKIP;
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    src = shmem_malloc(nelems * sizeof(long));
    red = shmem_malloc(nelems * sizeof(long));
    dst = shmem_malloc((1 + (size_t)npes) * nelems * sizeof(long));
    ipl = shmem_malloc((1 + (size_t)npes) * nelems * sizeof(long));
    red_buf = shmem_malloc(2 * NCASES * nelems * 8);
    bar_slot = shmem_calloc(4, sizeof(long));
    sync_count = shmem_calloc(16, sizeof(long));
    shmem_team_t evens = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens);
    shmem_team_t teams[2] = {SHMEM_TEAM_WORLD, evens};
    for (int k = 0; k < 2; k++) {
        team = teams[k];
        if (team == SHMEM_TEAM_INVALID) {
            continue;
        }
        for (int threads = 1; threads <= 4; threads *= 2) {
            run(threads);
        }
    }
    /* unsplit: plain collectives that complete at once, the handle untouched */
    shmemx_req_t r = SHMEMX_REQ_NULL;
    static long one[4], all[4 * 64], a2a_src[64], a2a_dst[64];
    if (npes <= 64) {
        one[0] = me;
        for (int p = 0; p < npes; p++) {
            a2a_src[p] = me * 1000 + p;
        }
        shmem_barrier_all();
        CHECK(shmemx_long_collect_req(SHMEM_TEAM_WORLD, all, one, 1, &r) == 0, "collect_req");
        CHECK(shmemx_long_alltoall_req(SHMEM_TEAM_WORLD, a2a_dst, a2a_src, 1, &r) == 0,
              "alltoall_req");
        CHECK(r == SHMEMX_REQ_NULL, "unsplit collectives leave the handle NULL");
        shmemx_req_wait(&r);
        for (int p = 0; p < npes; p++) {
            CHECK(all[p] == p, "collect_req element %d", p);
            CHECK(a2a_dst[p] == p * 1000 + me, "alltoall_req element %d", p);
        }
    }
    if (evens != SHMEM_TEAM_INVALID) {
        shmem_team_destroy(evens);
    }
    shmem_free(sync_count);
    shmem_free(bar_slot);
    shmem_free(red_buf);
    shmem_free(ipl);
    shmem_free(dst);
    shmem_free(red);
    shmem_free(src);
    return test_pass("collectives on request handles, split between threads");
}
