/*
 * req - merged request handles (shmemx_req_t, docs/requests.md) beside
 * Shimmer's default completion, the experiments of issue 12 part 3:
 *   op=rate     8 B puts from PE 0 to PE 1 in windows of W, T threads with
 *               private contexts: default = ctx_putmem_nbi + ctx_quiet per
 *               window; merged = ctx_putmem_req into one handle per
 *               window + req_wait;
 *   op=bw_put, op=bw_get   the same for each size, 1 thread, window 64
 *               (get: getmem_nbi + quiet vs getmem_req + wait);
 *   op=overlap  a window of puts, a compute loop as long as the window's
 *               communication, then the completion: overlap % =
 *               100 * (1 - (t_total - t_compute) / t_comm);
 *               mode=merged+test also calls shmemx_req_test once after the
 *               issue (it posts the handle's flushes) before computing;
 *               each row also says where a window's time went (issue_us,
 *               test_us, wait_us);
 *   op=overlap_idle (only with -x) the same while PE 1, the target, sleeps
 *               instead of waiting in a barrier: its progress thread
 *               serves the windows, and its main thread takes no CPU;
 *   op=lat      one 8 B put completed by its handle vs putmem + quiet;
 *               beside them, to explain the two: mode=get, a blocking 8 B
 *               get (one round trip, what a flush costs) and mode=inject,
 *               a putmem without completion (what a put costs before its
 *               round trip);
 *   op=bcast, op=fcollect, op=reduce   the collective on 1 MiB (sum of
 *               longs): mode=single is the standard call, mode=split has T
 *               threads of every PE share it through shmemx_req_split.
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

typedef struct job {
    bench_t *b;
    pthread_barrier_t *start;
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

static void *rate_thread(void *arg)
{
    job_t *j = arg;
    shmem_ctx_t ctx;

    j->ok = shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0;
    if (!j->ok)
        ctx = SHMEM_CTX_DEFAULT;
    for (long k = 0; k < j->warm; k++)
        window_rma(ctx, j->merged, false, j->dst, j->src, j->size, j->window);
    pthread_barrier_wait(j->start);
    j->t0 = bench_now_us();
    for (long k = 0; k < j->nwin; k++)
        window_rma(ctx, j->merged, false, j->dst, j->src, j->size, j->window);
    j->t1 = bench_now_us();
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

/* An overlap row's window, phase by phase (us per window): the issue,
 * the test (merged+test), the wait after the computation; 0 in the
 * other rows. */
typedef struct phases {
    double issue, test, wait;
} phases_t;

static void emit_phases(bench_t *b, const char *op, const char *mode, size_t size, long threads,
                        long window, double rate, double mbps, double lat, double overlap,
                        const phases_t *ph, bool ok)
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
    bench_col_num(b, "wait_us", ph != NULL ? ph->wait : 0);
    bench_col_bool(b, "valid", ok);
    bench_row_end(b);
}

static void emit(bench_t *b, const char *op, const char *mode, size_t size, long threads,
                 long window, double rate, double mbps, double lat, double overlap, bool ok)
{
    emit_phases(b, op, mode, size, threads, window, rate, mbps, lat, overlap, NULL, ok);
}

/* T threads on PE 0 run `fn` (or, for collectives, on every PE); PE 0's
 * wall time from the first thread's start to the last one's end, as the
 * threads clock them (the main thread may lose its CPU to them right after
 * the start barrier: with more threads than cores its own clock read
 * there made 1 ms of work look like nothing). */
static double run_threads(bench_t *b, job_t *proto, long nthr, void *(*fn)(void *), bool all_pes,
                          bool *ok)
{
    pthread_barrier_t start;
    pthread_t tid[16];
    job_t jobs[16];
    double us = 0;

    *ok = true;
    if (!all_pes && b->me != 0)
        return 0;
    if (nthr > 16)
        bench_die(b, "at most 16 threads");
    pthread_barrier_init(&start, NULL, (unsigned)nthr + 1);
    for (long t = 0; t < nthr; t++) {
        jobs[t] = *proto;
        jobs[t].start = &start;
        jobs[t].rank = (int)t;
        jobs[t].nthreads = (int)nthr;
        jobs[t].ok = 1;
        if (!all_pes)
            jobs[t].dst = proto->dst + (size_t)t * (size_t)proto->window * SLOT;
        pthread_create(&tid[t], NULL, fn, &jobs[t]);
    }
    pthread_barrier_wait(&start);
    double t0 = 0, t1 = 0;
    for (long t = 0; t < nthr; t++) {
        pthread_join(tid[t], NULL);
        *ok = *ok && jobs[t].ok;
        t0 = t == 0 || jobs[t].t0 < t0 ? jobs[t].t0 : t0;
        t1 = jobs[t].t1 > t1 ? jobs[t].t1 : t1;
    }
    us = t1 - t0;
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

int main(int argc, char **argv)
{
    bench_info_t info = {
        .name = "req",
        .title = "merged request handles vs default completion: rate, bandwidth, overlap, "
                 "latency, multithreaded collectives",
        .columns = "op: mode: size:B threads: window: messages_per_s:1/s MBps:MB/s time_us:us "
                   "overlap_pct:% issue_us:us test_us:us wait_us:us valid:",
        .min_size = 8, .max_size = 65536,
        .iters = 200000, .min_iters = 64, .budget = (size_t)128 << 20,
        .windows = "1,8,64,512", .min_pes = 2,
        .ops = "rate,bw_put,bw_get,overlap,lat,bcast,fcollect,reduce",
        .thread_level = SHMEM_THREAD_MULTIPLE,
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);
    if (b.thread_provided != SHMEM_THREAD_MULTIPLE)
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

    /* ---- message rate ---- */
    if (bench_has_op(&b, "rate")) {
        long iters = bench_iters(&b, 8);
        for (int ti = 0; ti < nthreads; ti++)
            for (int wi = 0; wi < b.opt.nwindows; wi++)
                for (int k = 0; k < 2; k++) {
                    int m = k ^ ((ti + wi) & 1); /* turns, as for bandwidth */
                    long w = b.opt.windows[wi], nwin = (iters + w - 1) / w;
                    if (!bench_point(&b, "op=rate mode=%s threads=%ld window=%ld", modes[m],
                                     threads[ti], w))
                        continue;
                    job_t j = {.b = &b, .merged = m == 1, .dst = dst, .src = src, .size = 8,
                               .window = w, .nwin = nwin, .warm = bench_warmup(&b, nwin)};
                    bool ok;
                    shmem_barrier_all();
                    double us = run_threads(&b, &j, threads[ti], rate_thread, false, &ok);
                    shmem_barrier_all();
                    if (b.me == 1)
                        ok = dst[0] == 1 && dst[(size_t)(w - 1) * SLOT] == 1;
                    double msgs = (double)nwin * (double)w * (double)threads[ti];
                    emit(&b, "rate", modes[m], 8, threads[ti], w, us > 0 ? msgs / us * 1e6 : 0,
                         us > 0 ? msgs * 8 / us : 0, us > 0 ? us / msgs : 0, 0,
                         bench_all_ok(&b, ok));
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
                phases_t ph = {0, 0, 0};
                shmem_barrier_all();
                if (b.me == 1 && idle)
                    sleep_until_set(&idle_done);
                if (b.me == 0) {
                    double t0 = bench_now_us();
                    for (long k = 0; k < reps; k++)
                        window_rma(SHMEM_CTX_DEFAULT, m, false, dst, src, size, w);
                    double t_comm = (bench_now_us() - t0) / (double)reps;
                    /* a compute loop as long as the communication */
                    long n = 1000;
                    t0 = bench_now_us();
                    compute(n);
                    double per = (bench_now_us() - t0) / (double)n;
                    n = per > 0 ? (long)(t_comm / per) + 1 : 1000;
                    t0 = bench_now_us();
                    for (long k = 0; k < reps; k++)
                        compute(n);
                    double t_compute = (bench_now_us() - t0) / (double)reps;
                    t0 = bench_now_us();
                    for (long k = 0; k < reps; k++) {
                        shmemx_req_t r = SHMEMX_REQ_NULL;
                        double x0 = bench_now_us();
                        for (long i = 0; i < w; i++) {
                            char *d = dst + (size_t)i * (size > SLOT ? size : SLOT);
                            if (m)
                                shmemx_putmem_req(d, src, size, 1, &r);
                            else
                                shmem_putmem_nbi(d, src, size, 1);
                        }
                        double x1 = bench_now_us();
                        if (mm == 2)
                            (void)shmemx_req_test(&r);
                        double x2 = bench_now_us();
                        compute(n);
                        double x3 = bench_now_us();
                        if (m)
                            shmemx_req_wait(&r);
                        else
                            shmem_quiet();
                        ph.issue += x1 - x0;
                        ph.test += x2 - x1;
                        ph.wait += bench_now_us() - x3;
                    }
                    total = (bench_now_us() - t0) / (double)reps;
                    ph.issue /= (double)reps;
                    ph.test /= (double)reps;
                    ph.wait /= (double)reps;
                    pct = t_comm > 0 ? 100.0 * (1.0 - (total - t_compute) / t_comm) : 0;
                    pct = pct < 0 ? 0 : pct > 100 ? 100 : pct; /* noise beyond none / full */
                    if (idle)
                        shmem_long_atomic_set(&idle_done, 1, 1);
                }
                shmem_barrier_all();
                emit_phases(&b, op, mode, size, 1, w, 0, 0, total, pct, &ph,
                            bench_all_ok(&b, true));
            }
        }
    }

    /* ---- latency of one 8 B put and its completion ---- */
    if (bench_has_op(&b, "lat")) {
        long iters = bench_iters(&b, 8) / 10 + 1;
        const char *lat_modes[4] = {"put+quiet", "merged", "get", "inject"};
        for (int m = 0; m < 4; m++) {
            if (!bench_point(&b, "op=lat mode=%s", lat_modes[m]))
                continue;
            double us = 0;
            shmem_barrier_all();
            if (b.me == 0) {
                double t0 = 0;
                for (long i = -bench_warmup(&b, iters); i < iters; i++) {
                    if (i == 0)
                        t0 = bench_now_us();
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
                us = (bench_now_us() - t0) / (double)iters;
                shmem_quiet(); /* inject: completed outside the timing */
            }
            shmem_barrier_all();
            emit(&b, "lat", lat_modes[m], 8, 1, 1, 0, 0, us, 0, bench_all_ok(&b, true));
        }
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
                us = run_threads(&b, &j, nthr, coll_thread, true, &ok);
            }
            shmem_barrier_all();
            emit(&b, colls[c], mode, len, nthr, 0, 0, us > 0 ? (double)len * (double)reps / us : 0,
                 us / (double)reps, 0, bench_all_ok(&b, ok));
        }
    }
    return bench_fini(&b, NULL);
}
