/*
 * msg_rate - small-message rate, PE 0 injecting into PE 1 (osu_oshm_put_mr
 * reports the same unit, messages/s):
 *   op=put_nbi  windows of W shmem_putmem_nbi then shmem_quiet, for each W;
 *   op=put      back-to-back blocking shmem_putmem, one quiet at the end.
 * With -t LIST: T threads on PE 0 (shmem_init_thread(SHMEM_THREAD_MULTIPLE)),
 * each on its own private context, each with windows of W
 * shmem_ctx_putmem_nbi + shmem_ctx_quiet; rate = all messages / wall time.
 * Each message of a window goes to its own slot, as OSU's rate tests do.
 */
#include "bench.h"

#include <pthread.h>
#include <string.h>

typedef struct worker {
    pthread_barrier_t *start;
    char *dst, *src;
    size_t size, slot;
    long window, nwin, warm;
    int ok;
    double t_start, t_end;  /* its own timed span, microseconds */
} worker_t;

static void *worker_run(void *arg)
{
    worker_t *w = arg;
    shmem_ctx_t ctx;
    w->ok = shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0;
    if (!w->ok)
        ctx = SHMEM_CTX_DEFAULT;   /* still reach the barrier; the row is marked invalid */
    for (long i = 0; i < w->warm; i++)
        shmem_ctx_putmem_nbi(ctx, w->dst + (size_t)(i % w->window) * w->slot, w->src, w->size, 1);
    shmem_ctx_quiet(ctx);
    pthread_barrier_wait(w->start);
    w->t_start = bench_now_us();
    for (long k = 0; k < w->nwin; k++) {
        for (long i = 0; i < w->window; i++)
            shmem_ctx_putmem_nbi(ctx, w->dst + (size_t)i * w->slot, w->src, w->size, 1);
        shmem_ctx_quiet(ctx);
    }
    w->t_end = bench_now_us();
    if (w->ok)
        shmem_ctx_destroy(ctx);
    return NULL;
}

static void emit(bench_t *b, const char *op, size_t size, long threads, long window, long msgs,
                 double us, bool ok)
{
    bench_row_begin(b);
    bench_col_str(b, "op", op);
    bench_col_int(b, "size", (long long)size);
    bench_col_int(b, "threads", threads);
    bench_col_int(b, "window", window);
    bench_col_num(b, "messages_per_s", us > 0 ? (double)msgs / us * 1e6 : 0);
    bench_col_num(b, "MBps", us > 0 ? (double)msgs * (double)size / us : 0);
    bench_col_int(b, "iterations", msgs);
    bench_col_bool(b, "valid", ok);
    bench_row_end(b);
}

int main(int argc, char **argv)
{
    bench_info_t info = {
        .name = "msg_rate",
        .title = "message rate: putmem_nbi windows, blocking putmem, threads with private contexts",
        .columns = "op: size:B threads: window: messages_per_s:1/s MBps:MB/s iterations: valid:",
        .min_size = 8, .max_size = 8,
        .iters = 500000, .min_iters = 64, .budget = (size_t)256 << 20,
        .windows = "1,8,64,512", .min_pes = 2,
    };
    bool threaded = false;
    for (int i = 1; i < argc; i++)
        threaded |= !strcmp(argv[i], "-t") || !strncmp(argv[i], "--threads", 9);
    if (threaded)
        info.thread_level = SHMEM_THREAD_MULTIPLE;

    bench_t b;
    bench_init(&b, &info, argc, argv);
    if (threaded && b.thread_provided != SHMEM_THREAD_MULTIPLE)
        return bench_unsupported(&b, "SHMEM_THREAD_MULTIPLE not provided");

    long maxw = 1, maxt = 1;
    for (int i = 0; i < b.opt.nwindows; i++)
        maxw = b.opt.windows[i] > maxw ? b.opt.windows[i] : maxw;
    for (int i = 0; threaded && i < b.opt.nthreads; i++)
        maxt = b.opt.threads[i] > maxt ? b.opt.threads[i] : maxt;
    size_t slot = (b.opt.max_size + 63) & ~(size_t)63;     /* one cache line per message at 8 B */
    size_t region = slot * (size_t)maxw;                    /* one region per thread */
    char *dst = bench_sym_alloc(&b, region * (size_t)maxt);
    char *src = bench_sym_alloc(&b, b.opt.max_size);
    memset(src, 1, b.opt.max_size);

    BENCH_FOR_SIZES(&b, size) {
        long iters = bench_iters(&b, size), warm = bench_warmup(&b, iters);
        int nt = threaded ? b.opt.nthreads : 1;
        for (int ti = 0; ti < nt; ti++) {
            long nthr = threaded ? b.opt.threads[ti] : 1;
            for (int wi = 0; wi < b.opt.nwindows; wi++) {
                long w = b.opt.windows[wi], nwin = (iters + w - 1) / w;
                if (!bench_point(&b, "op=%s size=%zu threads=%ld window=%ld",
                                 threaded ? "ctx_put_nbi" : "put_nbi", size, nthr, w))
                    continue;
                double us = 0;
                bool ok = true;
                shmem_barrier_all();
                if (b.me == 0 && !threaded) {
                    for (long i = 0; i < warm; i++)
                        shmem_putmem_nbi(dst + (size_t)(i % w) * slot, src, size, 1);
                    shmem_quiet();
                    double t0 = bench_now_us();
                    for (long k = 0; k < nwin; k++) {
                        for (long i = 0; i < w; i++)
                            shmem_putmem_nbi(dst + (size_t)i * slot, src, size, 1);
                        shmem_quiet();
                    }
                    us = bench_now_us() - t0;
                } else if (b.me == 0) {
                    pthread_barrier_t start;
                    pthread_t tid[BENCH_MAX_LIST * 4];
                    worker_t wk[BENCH_MAX_LIST * 4];
                    if (nthr > (long)(sizeof tid / sizeof tid[0]))
                        bench_die(&b, "at most %zu threads", sizeof tid / sizeof tid[0]);
                    pthread_barrier_init(&start, NULL, (unsigned)nthr + 1);
                    for (long t = 0; t < nthr; t++) {
                        wk[t] = (worker_t){.start = &start, .dst = dst + (size_t)t * region,
                                           .src = src, .size = size, .slot = slot, .window = w, .nwin = nwin,
                                           .warm = warm};
                        pthread_create(&tid[t], NULL, worker_run, &wk[t]);
                    }
                    pthread_barrier_wait(&start);
                    bench_span_t span = {0}; /* each worker times itself */
                    for (long t = 0; t < nthr; t++) {
                        pthread_join(tid[t], NULL);
                        ok = ok && wk[t].ok;
                        bench_span_add(&span, wk[t].t_start, wk[t].t_end);
                    }
                    us = bench_span_us(&span);
                    pthread_barrier_destroy(&start);
                    if (!ok)
                        bench_note(&b, "shmem_ctx_create(SHMEM_CTX_PRIVATE) failed; default context used");
                }
                shmem_barrier_all();
                if (b.me == 1)
                    for (long t = 0; t < nthr; t++)
                        for (long i = 0; i < w; i++)
                            ok = ok && dst[(size_t)t * region + (size_t)i * slot] == 1;
                ok = bench_all_ok(&b, ok);
                emit(&b, threaded ? "ctx_put_nbi" : "put_nbi", size, nthr, w, nwin * w * nthr, us, ok);
                if (b.me == 1)
                    memset(dst, 0, region * (size_t)maxt);
                shmem_barrier_all();
            }
        }
        if (threaded || !bench_has_op(&b, "put"))
            continue;
        /* OSU's method: blocking puts back to back, one quiet. */
        if (!bench_point(&b, "op=put size=%zu", size))
            continue;
        double us = 0;
        memset(dst, 0, region);
        shmem_barrier_all();
        if (b.me == 0) {
            for (long i = 0; i < warm; i++)
                shmem_putmem(dst + (size_t)(i % maxw) * slot, src, size, 1);
            shmem_quiet();
            double t0 = bench_now_us();
            for (long i = 0; i < iters; i++)
                shmem_putmem(dst + (size_t)(i % maxw) * slot, src, size, 1);
            shmem_quiet();
            us = bench_now_us() - t0;
        }
        shmem_barrier_all();
        bool ok = bench_all_ok(&b, b.me != 1 || dst[0] == 1);
        emit(&b, "put", size, 1, 0, iters, us, ok);
    }
    return bench_fini(&b, NULL);
}
