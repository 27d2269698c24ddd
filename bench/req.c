/*
 * req - merged request handles (shmemx_req_t, docs/requests.md) beside
 * Shimmer's default completion, the experiments of issue 12 part 3:
 *   op=rate     8 B puts from PE 0 to PE 1 in windows of W, T threads with
 *               private contexts: default = ctx_putmem_nbi + ctx_quiet per
 *               window; merged = ctx_putmem_req into one handle per
 *               window + req_wait; paired: the -i puts of each mode are
 *               32 blocks, alternated with the other mode's (AB BA AB
 *               ...), so that a pair sees one machine state; a row's rate
 *               is the median of its blocks', and the merged row carries
 *               the median of the pairs' merged/default ratios, their
 *               quartiles and a 95 % interval of that median;
 *   op=bw_put, op=bw_get   the same for each size, 1 thread, window 64
 *               (get: getmem_nbi + quiet vs getmem_req + wait);
 *   op=overlap  a window of puts, a compute loop as long as the window's
 *               communication, then the completion: overlap % =
 *               100 * (1 - (t_total - t_compute) / t_comm);
 *               mode=merged+test also calls shmemx_req_test once after the
 *               issue (it posts the handle's flushes) before computing;
 *               t_total, t_compute (the loop alone) and t_comm are each the
 *               median over the windows (t_total less the 3 clock reads
 *               inside it, which the others lack); each row also says where a
 *               window's time went (issue_us, test_us, compute_us, wait_us:
 *               medians) and what t_comm was (comm_us), and this thread's
 *               CPU time in each phase (issue_cpu_us ... wait_cpu_us: a
 *               second pass of at most 1000 windows, the thread's CPU clock
 *               read at the same points);
 *   op=overlap_idle (only with -x) the same while PE 1, the target, sleeps
 *               instead of waiting in a barrier: its progress thread
 *               serves the windows, and its main thread takes no CPU;
 *   op=lat      one 8 B put completed by its handle vs putmem + quiet;
 *               beside them, to explain the two: mode=get, a blocking 8 B
 *               get (one round trip, what a flush costs) and mode=inject,
 *               a putmem without completion (what a put costs before its
 *               round trip); time_us is the median over groups of
 *               iterations (one iteration across hosts; as many as last
 *               ~1 us on one node), each group timed by itself, less the
 *               clock's own cost; the four modes take turns group by
 *               group in one point;
 *   op=bcast, op=fcollect, op=reduce   the collective on 1 MiB (sum of
 *               longs): mode=single is the standard call, mode=split has T
 *               threads of every PE share it through shmemx_req_split;
 *   op=issue    (only with -x) what issuing costs: windows of W 8 B puts
 *               from PE 0's main thread, each window's loop of puts timed
 *               alone and completed after its clock read (quiet, or the
 *               handle's wait); time_us is one put, issue_us one window,
 *               the clock's own cost taken off; default (putmem_nbi) and
 *               merged (putmem_req) in paired blocks as the rate.  -T
 *               names the context: private (the default: a
 *               SHMEM_CTX_PRIVATE context per mode, ctx_ routines), shared (the
 *               default context under SHMEM_THREAD_MULTIPLE) or single
 *               (the default context, shmem_init: SHMEM_THREAD_SINGLE;
 *               only op=issue runs).
 * Shimmer only (shmemx.h); not part of the comparison with other
 * implementations.
 */
#include "bench.h"

#include <pthread.h>
#include <shmemx.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOT 64
#define MAX_PAIRS 64 /* blocks of one paired rate point: 2 per pair */

typedef struct job {
    bench_t *b;
    pthread_barrier_t *start;
    pthread_barrier_t *step; /* rate: the threads start each block together */
    const char *op;
    bool merged;
    char *dst, *src;
    size_t size;
    long window, nwin, warm;
    int rank, nthreads;
    long *cdst, *csrc;
    size_t clen;
    int ok;
    double t0, t1; /* this thread's start (after the start barrier) and end, us */
    long pairs;                   /* rate: pairs of blocks, one of each mode */
    double blk[2 * MAX_PAIRS][2]; /* rate: block 2p+mode's start and end, us */
} job_t;

/* One window of puts (or gets) on ctx, completed the default or merged way. */
static void window_rma(shmem_ctx_t ctx, bool merged, bool get, char *dst, const char *src,
                       size_t size, long w)
{
    shmemx_req_t r = SHMEMX_REQ_NULL;

    for (long i = 0; i < w; i++) {
        char *d = dst + (size_t)i * (size > SLOT ? size : SLOT);
        if (get && merged)
            shmemx_ctx_getmem_req(ctx, (char *)src, d, size, 1, &r);
        else if (get)
            shmem_ctx_getmem_nbi(ctx, (char *)src, d, size, 1);
        else if (merged)
            shmemx_ctx_putmem_req(ctx, d, src, size, 1, &r);
        else
            shmem_ctx_putmem_nbi(ctx, d, src, size, 1);
    }
    if (merged)
        shmemx_req_wait(&r);
    else
        shmem_ctx_quiet(ctx);
}

/* A rate window: w puts of 8 B to consecutive slots, completed. Each
 * mode's loop is its own, written as a program would (constant size and
 * slot, a pointer to the end): with the choice inside one shared loop, gcc
 * -O2 (bench/Makefile) kept the default put's loop tight but gave the
 * merged one a flag test and stack traffic per put, which made merged 9-12
 * % slower at windows >= 16 in the paired rate. */
static inline void rate_window(shmem_ctx_t ctx, bool merged, char *dst, const char *src, long w)
{
    char *end = dst + (size_t)w * SLOT;

    if (merged) {
        shmemx_req_t r = SHMEMX_REQ_NULL;
        for (char *d = dst; d != end; d += SLOT)
            shmemx_ctx_putmem_req(ctx, d, src, 8, 1, &r);
        shmemx_req_wait(&r);
    } else {
        for (char *d = dst; d != end; d += SLOT)
            shmem_ctx_putmem_nbi(ctx, d, src, 8, 1);
        shmem_ctx_quiet(ctx);
    }
}

/* A timed block of a rate point, one never-inlined function per mode,
 * whose instructions bench/req_insns.py counts with callgrind
 * (--toggle-collect), the warm-up and everything else left out. Aligned
 * to a cache line, so that each mode's loop sits at the same place in its
 * line in every build: where the placement differed, it alone moved one
 * mode's rate by 10-25 % on AMD Zen 5. */
static __attribute__((noinline, aligned(64))) void rate_block_default(shmem_ctx_t ctx, const job_t *j)
{
    for (long k = 0; k < j->nwin; k++)
        rate_window(ctx, false, j->dst, j->src, j->window);
}

static __attribute__((noinline, aligned(64))) void rate_block_merged(shmem_ctx_t ctx, const job_t *j)
{
    for (long k = 0; k < j->nwin; k++)
        rate_window(ctx, true, j->dst, j->src, j->window);
}

/* A clock's own cost: the median of 101 back-to-back reads' gaps, us. */
static double clock_cost_us(double (*now)(void))
{
    double gap[101];
    for (int i = 0; i < 101; i++) {
        double t0 = now();
        gap[i] = now() - t0;
    }
    for (int i = 1; i < 101; i++) /* insertion sort: 101 values */
        for (int k = i; k > 0 && gap[k - 1] > gap[k]; k--) {
            double t = gap[k];
            gap[k] = gap[k - 1];
            gap[k - 1] = t;
        }
    return gap[50];
}

/* One issue loop: the puts of a window, timed alone (us added to *us),
 * then their completion, untimed. */
#define ISSUE_WINDOW(_put, _done, _us)                                 \
    do {                                                               \
        double _t0 = bench_now_us();                                   \
        for (char *d = dst; d != end; d += SLOT)                       \
            _put;                                                      \
        *(_us) += bench_now_us() - _t0;                                \
        _done;                                                         \
    } while (0)

/* A timed block of an issue point: nwin windows of w puts to PE 1 on ctx
 * (SHMEM_CTX_DEFAULT: the routines without ctx_, as a program on the
 * default context calls them), merged or not; the issue loops' time, us.
 * One loop per routine, never a choice inside it (see rate_window). */
static inline __attribute__((always_inline)) double issue_block(shmem_ctx_t ctx, bool merged,
                                                                char *dst, const char *src, long w,
                                                                long nwin)
{
    char *end = dst + (size_t)w * SLOT;
    double us = 0;

    for (long k = 0; k < nwin; k++) {
        shmemx_req_t r = SHMEMX_REQ_NULL;
        if (ctx == SHMEM_CTX_DEFAULT && merged)
            ISSUE_WINDOW(shmemx_putmem_req(d, src, 8, 1, &r), shmemx_req_wait(&r), &us);
        else if (ctx == SHMEM_CTX_DEFAULT)
            ISSUE_WINDOW(shmem_putmem_nbi(d, src, 8, 1), shmem_quiet(), &us);
        else if (merged)
            ISSUE_WINDOW(shmemx_ctx_putmem_req(ctx, d, src, 8, 1, &r), shmemx_req_wait(&r), &us);
        else
            ISSUE_WINDOW(shmem_ctx_putmem_nbi(ctx, d, src, 8, 1), shmem_ctx_quiet(ctx), &us);
    }
    return us;
}

/* issue_block, one never-inlined function per mode, whose instructions
 * bench/req_insns.py --issue counts (as rate_block_default's). */
static __attribute__((noinline, aligned(64))) double issue_block_default(shmem_ctx_t ctx, char *dst,
                                                                         const char *src, long w,
                                                                         long nwin)
{
    return issue_block(ctx, false, dst, src, w, nwin);
}

static __attribute__((noinline, aligned(64))) double issue_block_merged(shmem_ctx_t ctx, char *dst,
                                                                        const char *src, long w,
                                                                        long nwin)
{
    return issue_block(ctx, true, dst, src, w, nwin);
}

/* -T single: the harness initialises before it parses the options, so
 * req looks for it first. */
static bool wants_thread_single(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if ((!strcmp(argv[i], "-T") || !strcmp(argv[i], "--type")) && i + 1 < argc)
            if (!strcmp(argv[++i], "single"))
                return true;
        if (!strcmp(argv[i], "-Tsingle") || !strcmp(argv[i], "--type=single"))
            return true;
    }
    return false;
}

/* A paired rate point: pair p runs a block of each mode, default first
 * when p is even, so that neither mode is always first after the step
 * barrier; every thread runs the same block at the same time. */
static void *rate_thread(void *arg)
{
    job_t *j = arg;
    shmem_ctx_t ctx;

    j->ok = shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0;
    if (!j->ok)
        ctx = SHMEM_CTX_DEFAULT;
    for (long k = 0; k < j->warm; k++) {
        rate_window(ctx, false, j->dst, j->src, j->window);
        rate_window(ctx, true, j->dst, j->src, j->window);
    }
    pthread_barrier_wait(j->start);
    for (long p = 0; p < j->pairs; p++)
        for (int k = 0; k < 2; k++) {
            int m = k ^ (int)(p & 1);
            pthread_barrier_wait(j->step);
            double t0 = bench_now_us();
            if (m)
                rate_block_merged(ctx, j);
            else
                rate_block_default(ctx, j);
            j->blk[2 * p + m][0] = t0;
            j->blk[2 * p + m][1] = bench_now_us();
        }
    if (j->ok)
        shmem_ctx_destroy(ctx);
    return NULL;
}

static void *coll_thread(void *arg)
{
    job_t *j = arg;

    pthread_barrier_wait(j->start);
    j->t0 = bench_now_us();
    for (long k = 0; k < j->nwin; k++) {
        shmemx_req_t r = SHMEMX_REQ_NULL;
        shmemx_req_split(&r, j->nthreads, j->rank);
        if (!strcmp(j->op, "bcast"))
            shmemx_broadcastmem_req(SHMEM_TEAM_WORLD, j->cdst, j->csrc, j->clen, 0, &r);
        else if (!strcmp(j->op, "fcollect"))
            shmemx_fcollectmem_req(SHMEM_TEAM_WORLD, j->cdst, j->csrc, j->clen, &r);
        else
            shmemx_long_sum_reduce_req(SHMEM_TEAM_WORLD, j->cdst, j->csrc, j->clen / sizeof(long),
                                       &r);
        shmemx_req_wait(&r);
    }
    j->t1 = bench_now_us();
    return NULL;
}

/* An overlap row's window, phase by phase, medians over the windows (us):
 * the wall time of the issue, the test (merged+test), the computation and
 * the wait after it, and of the window's communication alone (t_comm, the
 * overlap's denominator); then this thread's CPU time in the same four
 * phases. 0 in the other rows. */
typedef struct phases {
    double issue, test, compute, wait, comm;
    double cpu[4]; /* issue, test, compute, wait */
} phases_t;

/* A paired rate point's merged/default ratio over its pairs: the median,
 * the quartiles (the spread of one pair) and a 95 % interval of the
 * median (the order statistics around it that cover it with 95 %
 * probability: what the median can resolve). */
typedef struct ratio {
    double median, q1, q3, lo, hi;
} ratio_t;

/* Sorts v[n] (n >= 1) and summarises it. */
static ratio_t ratio_of(double *v, long n)
{
    double median = bench_quantile(v, n, 0.5);
    double root = 1; /* sqrt(n) by Newton: the harness links no libm */
    for (int i = 0; i < 20; i++)
        root = (root + (double)n / root) / 2;
    /* 1-based ranks (n - 1.96 sqrt n) / 2 rounded down, 1 + (n + 1.96 sqrt n) / 2 up */
    double l = ((double)n - 1.96 * root) / 2, u = 1 + ((double)n + 1.96 * root) / 2;
    long lo = (long)l, hi = (long)u + ((double)(long)u < u);
    lo = lo < 1 ? 1 : lo;
    hi = hi > n ? n : hi;
    return (ratio_t){median, bench_quantile(v, n, 0.25), bench_quantile(v, n, 0.75), v[lo - 1],
                     v[hi - 1]};
}

static void emit_phases(bench_t *b, const char *op, const char *mode, size_t size, long threads,
                        long window, double rate, double mbps, double lat, double overlap,
                        const phases_t *ph, const ratio_t *ratio, bool ok)
{
    bench_row_begin(b);
    bench_col_str(b, "op", op);
    bench_col_str(b, "mode", mode);
    bench_col_int(b, "size", (long long)size);
    bench_col_int(b, "threads", threads);
    bench_col_int(b, "window", window);
    bench_col_num(b, "messages_per_s", rate);
    bench_col_num(b, "MBps", mbps);
    bench_col_num(b, "time_us", lat);
    bench_col_num(b, "overlap_pct", overlap);
    bench_col_num(b, "issue_us", ph != NULL ? ph->issue : 0);
    bench_col_num(b, "test_us", ph != NULL ? ph->test : 0);
    bench_col_num(b, "compute_us", ph != NULL ? ph->compute : 0);
    bench_col_num(b, "wait_us", ph != NULL ? ph->wait : 0);
    bench_col_num(b, "comm_us", ph != NULL ? ph->comm : 0);
    bench_col_num(b, "issue_cpu_us", ph != NULL ? ph->cpu[0] : 0);
    bench_col_num(b, "test_cpu_us", ph != NULL ? ph->cpu[1] : 0);
    bench_col_num(b, "compute_cpu_us", ph != NULL ? ph->cpu[2] : 0);
    bench_col_num(b, "wait_cpu_us", ph != NULL ? ph->cpu[3] : 0);
    bench_col_num(b, "ratio", ratio != NULL ? ratio->median : 0);
    bench_col_num(b, "ratio_q1", ratio != NULL ? ratio->q1 : 0);
    bench_col_num(b, "ratio_q3", ratio != NULL ? ratio->q3 : 0);
    bench_col_num(b, "ratio_lo", ratio != NULL ? ratio->lo : 0);
    bench_col_num(b, "ratio_hi", ratio != NULL ? ratio->hi : 0);
    bench_col_bool(b, "valid", ok);
    bench_row_end(b);
}

static void emit(bench_t *b, const char *op, const char *mode, size_t size, long threads,
                 long window, double rate, double mbps, double lat, double overlap, bool ok)
{
    emit_phases(b, op, mode, size, threads, window, rate, mbps, lat, overlap, NULL, NULL, ok);
}

/* T threads on PE 0 run `fn` (or, for collectives, on every PE); PE 0's
 * wall time from the first thread's start to the last one's end, as the
 * threads clock them (the main thread may lose its CPU to them right after
 * the start barrier: with more threads than cores its own clock read
 * there made 1 ms of work look like nothing). With proto->pairs, the same
 * for each block: block_us[i], the first start to the last end of block i. */
static double run_threads(bench_t *b, job_t *proto, long nthr, void *(*fn)(void *), bool all_pes,
                          bool *ok, double *block_us)
{
    static job_t jobs[16]; /* 16 x 2 KiB of block times: not on the stack */
    pthread_barrier_t start, step;
    pthread_t tid[16];
    double us = 0;

    *ok = true;
    if (!all_pes && b->me != 0)
        return 0;
    if (nthr > 16)
        bench_die(b, "at most 16 threads");
    pthread_barrier_init(&start, NULL, (unsigned)nthr + 1);
    pthread_barrier_init(&step, NULL, (unsigned)nthr);
    for (long t = 0; t < nthr; t++) {
        jobs[t] = *proto;
        jobs[t].start = &start;
        jobs[t].step = &step;
        jobs[t].rank = (int)t;
        jobs[t].nthreads = (int)nthr;
        jobs[t].ok = 1;
        if (!all_pes)
            jobs[t].dst = proto->dst + (size_t)t * (size_t)proto->window * SLOT;
        pthread_create(&tid[t], NULL, fn, &jobs[t]);
    }
    pthread_barrier_wait(&start);
    bench_span_t all = {0};
    for (long t = 0; t < nthr; t++) {
        pthread_join(tid[t], NULL);
        *ok = *ok && jobs[t].ok;
        bench_span_add(&all, jobs[t].t0, jobs[t].t1);
    }
    us = bench_span_us(&all);
    for (long i = 0; i < 2 * proto->pairs; i++) {
        bench_span_t blk = {0};
        for (long t = 0; t < nthr; t++)
            bench_span_add(&blk, jobs[t].blk[i][0], jobs[t].blk[i][1]);
        block_us[i] = bench_span_us(&blk);
    }
    pthread_barrier_destroy(&step);
    pthread_barrier_destroy(&start);
    return us;
}

/* Set by PE 0 on PE 1 when an overlap_idle point is measured. */
static long idle_done;

/* Sleeps until *flag is set (by another PE), calling nothing of the
 * library: this PE's progress thread serves its peers meanwhile. Resets
 * it. */
static void sleep_until_set(long *flag)
{
    struct timespec ts = {0, 1000000};

    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0)
        nanosleep(&ts, NULL);
    *flag = 0;
}

static double compute(long n)
{
    volatile double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

/* One overlap window: w puts of `size` to PE 1 (merged: into one handle;
 * test: then one shmemx_req_test), a computation of n steps, the
 * completion; now() read at the bounds of the four phases, t[0..4]. */
static void overlap_window(bool merged, bool test, char *dst, const char *src, size_t size,
                           long w, long n, double (*now)(void), double t[5])
{
    shmemx_req_t r = SHMEMX_REQ_NULL;

    t[0] = now();
    for (long i = 0; i < w; i++) {
        char *d = dst + (size_t)i * (size > SLOT ? size : SLOT);
        if (merged)
            shmemx_putmem_req(d, src, size, 1, &r);
        else
            shmem_putmem_nbi(d, src, size, 1);
    }
    t[1] = now();
    if (test)
        (void)shmemx_req_test(&r);
    t[2] = now();
    compute(n);
    t[3] = now();
    if (merged)
        shmemx_req_wait(&r);
    else
        shmem_quiet();
    t[4] = now();
}

/* n iterations of latency mode m: put + quiet, a put into a handle and
 * its wait, a blocking get, or a put without completion (inject). */
static void lat_run(int m, char *dst, const char *src, long n)
{
    for (long i = 0; i < n; i++) {
        if (m == 1) {
            shmemx_req_t r = SHMEMX_REQ_NULL;
            shmemx_putmem_req(dst, src, 8, 1, &r);
            shmemx_req_wait(&r);
        } else if (m == 0) {
            shmem_putmem(dst, src, 8, 1);
            shmem_quiet();
        } else if (m == 2) {
            shmem_getmem(dst + SLOT, src, 8, 1);
        } else {
            shmem_putmem(dst + (size_t)(i & 63) * SLOT, src, 8, 1);
        }
    }
}

int main(int argc, char **argv)
{
    bench_info_t info = {
        .name = "req",
        .title = "merged request handles vs default completion: rate, bandwidth, overlap, "
                 "latency, multithreaded collectives",
        .columns = "op: mode: size:B threads: window: messages_per_s:1/s MBps:MB/s time_us:us "
                   "overlap_pct:% issue_us:us test_us:us compute_us:us wait_us:us comm_us:us "
                   "issue_cpu_us:us test_cpu_us:us compute_cpu_us:us wait_cpu_us:us ratio:x ratio_q1:x ratio_q3:x "
                   "ratio_lo:x ratio_hi:x valid:",
        .min_size = 8, .max_size = 65536,
        .iters = 200000, .min_iters = 64, .budget = (size_t)128 << 20,
        .windows = "1,8,64,512", .min_pes = 2,
        .ops = "rate,bw_put,bw_get,overlap,lat,bcast,fcollect,reduce",
        .thread_level = SHMEM_THREAD_MULTIPLE,
    };
    bool single = wants_thread_single(argc, argv);
    if (single)
        info.thread_level = SHMEM_THREAD_SINGLE; /* 0: the harness calls shmem_init */
    bench_t b;
    bench_init(&b, &info, argc, argv);
    const char *ctx_kind = strcmp(b.opt.type, "long") ? b.opt.type : "private"; /* -T */
    if (strcmp(ctx_kind, "private") && strcmp(ctx_kind, "shared") && strcmp(ctx_kind, "single"))
        bench_die(&b, "-T %s: req's -T names op=issue's context: private, shared or single",
                  ctx_kind);
    if (single && strcmp(b.opt.ops, "issue"))
        bench_die(&b, "-T single runs only op=issue (the others need SHMEM_THREAD_MULTIPLE); "
                      "give -x issue");
    if (!single && b.thread_provided != SHMEM_THREAD_MULTIPLE)
        return bench_unsupported(&b, "SHMEM_THREAD_MULTIPLE not provided");
    long tlist[3] = {1, 2, 4};
    long *threads = b.opt.nthreads ? b.opt.threads : tlist;
    int nthreads = b.opt.nthreads ? b.opt.nthreads : 3;
    size_t maxw = 1;
    for (int i = 0; i < b.opt.nwindows; i++)
        maxw = (size_t)b.opt.windows[i] > maxw ? (size_t)b.opt.windows[i] : maxw;
    size_t region = (maxw > 64 ? maxw : 64) * SLOT;
    size_t big = b.opt.max_size > SLOT ? b.opt.max_size * 64 : region;
    char *dst = bench_sym_alloc(&b, (region > big ? region : big) * 4);
    char *src = bench_sym_alloc(&b, b.opt.max_size > SLOT * maxw ? b.opt.max_size : SLOT * maxw);
    memset(src, 1, b.opt.max_size);
    const char *modes[2] = {"default", "merged"};

    /* ---- message rate: each point's blocks of the two modes paired ---- */
    if (bench_has_op(&b, "rate")) {
        /* -i puts of each mode per thread and point, in `pairs` blocks */
        long iters = bench_iters(&b, 8), pairs = b.opt.quick ? 4 : 32;
        for (int ti = 0; ti < nthreads; ti++)
            for (int wi = 0; wi < b.opt.nwindows; wi++) {
                long w = b.opt.windows[wi], nwin = (iters + w * pairs - 1) / (w * pairs);
                if (!bench_point(&b, "op=rate threads=%ld window=%ld", threads[ti], w))
                    continue;
                job_t j = {.b = &b, .dst = dst, .src = src, .window = w,
                           .nwin = nwin, .warm = bench_warmup(&b, nwin), .pairs = pairs};
                double us[2 * MAX_PAIRS], rate[2][MAX_PAIRS], ratio[MAX_PAIRS];
                bool ok;
                shmem_barrier_all();
                run_threads(&b, &j, threads[ti], rate_thread, false, &ok, us);
                shmem_barrier_all();
                if (b.me == 1)
                    ok = dst[0] == 1 && dst[(size_t)(w - 1) * SLOT] == 1;
                ok = bench_all_ok(&b, ok);
                if (b.me != 0)
                    continue;
                double msgs = (double)nwin * (double)w * (double)threads[ti];
                for (long p = 0; p < pairs; p++) {
                    for (int m = 0; m < 2; m++)
                        rate[m][p] = us[2 * p + m] > 0 ? msgs / us[2 * p + m] * 1e6 : 0;
                    ratio[p] = rate[0][p] > 0 ? rate[1][p] / rate[0][p] : 0;
                }
                ratio_t r = ratio_of(ratio, pairs);
                for (int m = 0; m < 2; m++) {
                    double med = ratio_of(rate[m], pairs).median;
                    emit_phases(&b, "rate", modes[m], 8, threads[ti], w, med, med * 8 / 1e6,
                                med > 0 ? 1e6 / med : 0, 0, NULL, m ? &r : NULL, ok);
                }
            }
    }

    /* ---- small-message bandwidth, both directions ---- */
    for (int g = 0; g < 2; g++) {
        const char *op = g ? "bw_get" : "bw_put";
        if (!bench_has_op(&b, op))
            continue;
        int turn = 0;
        BENCH_FOR_SIZES(&b, size) {
            long iters = bench_iters(&b, size), w = 64, nwin = (iters + w - 1) / w;
            /* default and merged take turns going first, point by point: on
             * a shared machine the second of a pair is not always the one
             * a neighbour's burst hits */
            for (int k = 0, first = turn++ & 1; k < 2; k++) {
                int m = k ^ first;
                if (!bench_point(&b, "op=%s mode=%s size=%zu", op, modes[m], size))
                    continue;
                double us = 0;
                shmem_barrier_all();
                if (b.me == 0) {
                    for (long k = 0; k < bench_warmup(&b, nwin); k++)
                        window_rma(SHMEM_CTX_DEFAULT, m, g, dst, src, size, w);
                    double t0 = bench_now_us();
                    for (long k = 0; k < nwin; k++)
                        window_rma(SHMEM_CTX_DEFAULT, m, g, dst, src, size, w);
                    us = bench_now_us() - t0;
                }
                shmem_barrier_all();
                double msgs = (double)nwin * (double)w;
                emit(&b, op, modes[m], size, 1, w, us > 0 ? msgs / us * 1e6 : 0,
                     us > 0 ? msgs * (double)size / us : 0, 0, 0, bench_all_ok(&b, true));
            }
        }
    }

    /* ---- overlap: window of 64 puts of each size, compute, complete;
     * overlap_idle: the same while PE 1 sleeps instead of waiting in the
     * barrier (its progress thread serves the windows) ---- */
    for (int idle = 0; idle < 2; idle++) {
        const char *op = idle ? "overlap_idle" : "overlap";
        if (!bench_has_op(&b, op))
            continue;
        const char *pt = getenv("SHIMMER_PROGRESS_THREAD");
        if (idle && pt && !strcmp(pt, "off"))
            bench_die(&b, "-x overlap_idle: PE 1 sleeps and only its progress thread serves the "
                          "windows, which SHIMMER_PROGRESS_THREAD=off turns off; unset it");
        BENCH_FOR_SIZES(&b, size) {
            long reps = bench_iters(&b, size) / 64 + 1, w = 64;
            for (int mm = 0; mm < 3; mm++) {
                int m = mm > 0; /* 2: merged, the flushes posted by a test before computing */
                const char *mode = mm == 2 ? "merged+test" : modes[m];
                if (!bench_point(&b, "op=%s mode=%s size=%zu", op, mode, size))
                    continue;
                double pct = 0, total = 0;
                phases_t ph = {0};
                shmem_barrier_all();
                if (b.me == 1 && idle)
                    sleep_until_set(&idle_done);
                if (b.me == 0) {
                    /* per window: t_comm, t_compute, the 4 phases and the
                     * total (wall), the 4 phases (CPU); each a median, so
                     * that one stall on a shared machine moves none */
                    double *v = malloc(sizeof(*v) * (size_t)reps * 11);
                    if (v == NULL)
                        bench_die(&b, "op=%s: no memory for %ld windows' phases; lower -i", op, reps);
                    double *comm = v, *alone = v + reps, *wall = v + 2 * reps, *cpu = v + 7 * reps;
                    for (long k = 0; k < reps; k++) {
                        double t0 = bench_now_us();
                        window_rma(SHMEM_CTX_DEFAULT, m, false, dst, src, size, w);
                        comm[k] = bench_now_us() - t0;
                    }
                    double t_comm = bench_quantile(comm, reps, 0.5);
                    /* a compute loop as long as the communication, from
                     * the fastest of 11 timings of 1000 steps (one timing,
                     * preempted, once set a 3 us loop against a 17 us
                     * t_comm) */
                    long n = 1000;
                    double per = 0, t0;
                    for (int i = 0; i < 11; i++) {
                        t0 = bench_now_us();
                        compute(n);
                        double x = (bench_now_us() - t0) / (double)n;
                        per = i == 0 || x < per ? x : per;
                    }
                    n = per > 0 ? (long)(t_comm / per) + 1 : 1000;
                    for (long k = 0; k < reps; k++) {
                        t0 = bench_now_us();
                        compute(n);
                        alone[k] = bench_now_us() - t0;
                    }
                    double t_compute = bench_quantile(alone, reps, 0.5), t[5];
                    for (long k = 0; k < reps; k++) {
                        overlap_window(m, mm == 2, dst, src, size, w, n, bench_now_us, t);
                        for (int p = 0; p < 4; p++)
                            wall[p * reps + k] = t[p + 1] - t[p];
                        wall[4 * reps + k] = t[4] - t[0];
                    }
                    /* the CPU clock is a system call (microseconds in this
                     * VM): its own pass, so that the timed windows above
                     * stay as they were; 1000 windows make a median */
                    long creps = reps < 1000 ? reps : 1000;
                    double cc = clock_cost_us(bench_thread_cpu_us);
                    for (long k = 0; k < creps; k++) {
                        overlap_window(m, mm == 2, dst, src, size, w, n, bench_thread_cpu_us, t);
                        for (int p = 0; p < 4; p++)
                            cpu[p * reps + k] = t[p + 1] - t[p] - cc;
                    }
                    double wc = clock_cost_us(bench_now_us), *wph[4] = {&ph.issue, &ph.test,
                                                                        &ph.compute, &ph.wait};
                    for (int p = 0; p < 4; p++) {
                        double x = bench_quantile(wall + p * reps, reps, 0.5) - wc,
                               c = bench_quantile(cpu + p * reps, creps, 0.5);
                        *wph[p] = x > 0 ? x : 0;
                        ph.cpu[p] = c > 0 ? c : 0;
                    }
                    /* less its 3 inner clock reads: t_compute and t_comm
                     * hold one read each, as t_total then does */
                    total = bench_quantile(wall + 4 * reps, reps, 0.5) - 3 * wc;
                    ph.comm = t_comm;
                    free(v);
                    pct = t_comm > 0 ? 100.0 * (1.0 - (total - t_compute) / t_comm) : 0;
                    pct = pct < 0 ? 0 : pct > 100 ? 100 : pct; /* noise beyond none / full */
                    if (idle)
                        shmem_long_atomic_set(&idle_done, 1, 1);
                }
                shmem_barrier_all();
                emit_phases(&b, op, mode, size, 1, w, 0, 0, total, pct, &ph, NULL,
                            bench_all_ok(&b, true));
            }
        }
    }

    /* ---- latency of one 8 B put and its completion: the median over
     * groups of iterations, each group timed by itself, less the clock's
     * own cost, so that a slow stretch of the shared machine moves no
     * figure (a mean over the iterations once read 27.6 us against 12.0
     * in a clean launch). A group is one iteration when it lasts a
     * microsecond (across hosts), else as many as last about one: this
     * VM's clock ticks in 10 ns, coarser than one on-node put. The modes
     * take turns group by group, so that a stretch too long for a median
     * slows all four alike, not one against the others ---- */
    if (bench_has_op(&b, "lat") && bench_point(&b, "op=lat")) {
        long iters = bench_iters(&b, 8) / 10 + 1;
        const char *lat_modes[4] = {"put+quiet", "merged", "get", "inject"};
        double us[4] = {0};
        shmem_barrier_all();
        if (b.me == 0) {
            long k[4], ng[4], n[4] = {0}, rounds = 0;
            double *grp[4];
            for (int m = 0; m < 4; m++) {
                lat_run(m, dst, src, bench_warmup(&b, iters));
                shmem_quiet();
                /* the group: the fastest of 11 timings of 16 iterations */
                double per = 0;
                for (int i = 0; i < 11; i++) {
                    double t0 = bench_now_us();
                    lat_run(m, dst, src, 16);
                    double x = (bench_now_us() - t0) / 16;
                    per = i == 0 || x < per ? x : per;
                }
                shmem_quiet();
                k[m] = per >= 1 ? 1 : per > 1.0 / 1024 ? (long)(1 / per) + 1 : 1024;
                k[m] = k[m] < iters ? k[m] : iters;
                ng[m] = iters / k[m];
                rounds = ng[m] > rounds ? ng[m] : rounds;
                grp[m] = malloc(sizeof(*grp[m]) * (size_t)ng[m]);
                if (grp[m] == NULL)
                    bench_die(&b, "op=lat: no memory for %ld groups' times; lower -i", ng[m]);
            }
            double wc = clock_cost_us(bench_now_us);
            for (long r = 0; r < rounds; r++)
                for (int j = 0; j < 4; j++) {
                    int m = (int)((r + j) & 3); /* no mode always after another */
                    if ((r + 1) * ng[m] / rounds == r * ng[m] / rounds)
                        continue; /* a mode's groups spread evenly over the rounds */
                    double t0 = bench_now_us();
                    lat_run(m, dst, src, k[m]);
                    grp[m][n[m]++] = (bench_now_us() - t0 - wc) / (double)k[m];
                    if (m == 3)
                        shmem_quiet(); /* inject: completed outside the timing */
                }
            for (int m = 0; m < 4; m++) {
                double x = bench_quantile(grp[m], n[m], 0.5);
                us[m] = x > 0 ? x : 0;
                free(grp[m]);
            }
        }
        shmem_barrier_all();
        bool ok = bench_all_ok(&b, true);
        for (int m = 0; m < 4; m++)
            emit(&b, "lat", lat_modes[m], 8, 1, 1, 0, 0, us[m], 0, ok);
    }

    /* ---- issue cost: each window's puts timed alone, paired blocks ---- */
    if (bench_has_op(&b, "issue")) {
        /* private: a context per mode, so that one mode's puts do not change
         * the other's path (a private context's worker locks from its first
         * coalesced default-path put on, docs/requests.md) */
        shmem_ctx_t ctx[2] = {SHMEM_CTX_DEFAULT, SHMEM_CTX_DEFAULT};
        for (int m = 0; m < 2 && !strcmp(ctx_kind, "private"); m++)
            if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx[m]) != 0)
                bench_die(&b, "op=issue: shmem_ctx_create(SHMEM_CTX_PRIVATE) failed; "
                              "try -T shared");
        long iters = bench_iters(&b, 8), pairs = b.opt.quick ? 4 : 32;
        for (int wi = 0; wi < b.opt.nwindows; wi++) {
            long w = b.opt.windows[wi], nwin = (iters + w * pairs - 1) / (w * pairs);
            if (!bench_point(&b, "op=issue ctx=%s window=%ld", ctx_kind, w))
                continue;
            double put_us[2][MAX_PAIRS], ratio[MAX_PAIRS];
            if (b.me == 1)
                memset(dst, 0, (size_t)w * SLOT);
            shmem_barrier_all();
            if (b.me == 0) {
                for (long k = 0, warm = bench_warmup(&b, nwin); k < warm; k++)
                    for (int m = 0; m < 2; m++)
                        (void)(m ? issue_block_merged : issue_block_default)(ctx[m], dst, src, w, 1);
                double clock = clock_cost_us(bench_now_us);
                for (long p = 0; p < pairs; p++)
                    for (int k = 0; k < 2; k++) {
                        int m = k ^ (int)(p & 1); /* AB BA: neither mode always first */
                        double us = (m ? issue_block_merged : issue_block_default)(
                                        ctx[m], dst, src, w, nwin) -
                                    clock * (double)nwin;
                        put_us[m][p] = us > 0 ? us / (double)(nwin * w) : 0;
                    }
                for (long p = 0; p < pairs; p++)
                    ratio[p] = put_us[1][p] > 0 ? put_us[0][p] / put_us[1][p] : 0;
            }
            shmem_barrier_all();
            bool ok = b.me != 1 || (dst[0] == 1 && dst[(size_t)(w - 1) * SLOT] == 1);
            ok = bench_all_ok(&b, ok);
            if (b.me != 0)
                continue;
            ratio_t r = ratio_of(ratio, pairs);
            for (int m = 0; m < 2; m++) {
                double per = ratio_of(put_us[m], pairs).median;
                phases_t ph = {.issue = per * (double)w};
                emit_phases(&b, "issue", modes[m], 8, 1, w, per > 0 ? 1e6 / per : 0,
                            per > 0 ? 8 / per : 0, per, 0, &ph, m ? &r : NULL, ok);
            }
        }
        for (int m = 0; m < 2; m++)
            if (ctx[m] != SHMEM_CTX_DEFAULT)
                shmem_ctx_destroy(ctx[m]);
    }

    /* ---- multithreaded collectives ---- */
    const char *colls[3] = {"bcast", "fcollect", "reduce"};
    size_t clen = b.opt.quick ? 4096 : (size_t)1 << 20;
    long *cdst = NULL, *csrc = NULL;
    for (int c = 0; c < 3; c++) {
        if (!bench_has_op(&b, colls[c]))
            continue;
        if (cdst == NULL) {
            cdst = shmem_malloc(clen * (size_t)b.npes);
            csrc = shmem_malloc(clen);
            if (cdst == NULL || csrc == NULL)
                bench_die(&b, "no symmetric memory for the collectives (raise SHMEM_SYMMETRIC_SIZE)");
            memset(csrc, 1, clen);
        }
        size_t len = !strcmp(colls[c], "fcollect") ? clen / (size_t)b.npes : clen;
        long reps = b.opt.quick ? 2 : 20;
        for (int ti = -1; ti < nthreads; ti++) {
            long nthr = ti < 0 ? 1 : threads[ti];
            const char *mode = ti < 0 ? "single" : "split";
            if (!bench_point(&b, "op=%s mode=%s threads=%ld", colls[c], mode, nthr))
                continue;
            double us = 0;
            bool ok = true;
            shmem_barrier_all();
            if (ti < 0) {
                double t0 = bench_now_us();
                for (long k = 0; k < reps; k++) {
                    if (c == 0)
                        shmem_broadcastmem(SHMEM_TEAM_WORLD, cdst, csrc, len, 0);
                    else if (c == 1)
                        shmem_fcollectmem(SHMEM_TEAM_WORLD, cdst, csrc, len);
                    else
                        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, cdst, csrc, len / sizeof(long));
                }
                us = bench_now_us() - t0;
            } else {
                job_t j = {.b = &b, .op = colls[c], .cdst = cdst, .csrc = csrc, .clen = len,
                           .nwin = reps};
                us = run_threads(&b, &j, nthr, coll_thread, true, &ok, NULL);
            }
            shmem_barrier_all();
            emit(&b, colls[c], mode, len, nthr, 0, 0, us > 0 ? (double)len * (double)reps / us : 0,
                 us / (double)reps, 0, bench_all_ok(&b, ok));
        }
    }
    return bench_fini(&b, NULL);
}
