/*
 * atomic_pingpong - machine limit: CPU atomics on one shared cache line.
 *   mode=handoff    two processes take turns: each waits for its parity,
 *                   then __atomic_fetch_add; time per hand-off (the line
 *                   moves to the other core every time);
 *   mode=contended  both processes fetch_add the same line at once; time
 *                   per call seen by one of them;
 *   mode=local      one process, its own line: the uncontended atomic.
 * Pinned to two CPUs when allowed (-t 0 disables), as cacheline_pingpong.
 * Each figure is the best of 3 timed trials: a limit is the best case.
 */
#include "bench.h"

#include <string.h>
#include <sys/mman.h>

typedef struct shared {
    _Alignas(128) long counter;
    _Alignas(128) volatile long ready;
    double us;
} shared_t;

typedef struct arg { long iters, warm; int mode; } arg_t;
enum { HANDOFF, CONTENDED, LOCAL };

static void side_run(int side, void *p, void *a)
{
    shared_t *s = p;
    arg_t *arg = a;
    __atomic_fetch_add(&s->ready, 1, __ATOMIC_SEQ_CST);
    while (s->ready < 2)
        bench_cpu_pause();
    long n = arg->iters + arg->warm;
    double t0 = 0;
    for (long i = 0; i < n; i++) {
        if (i == arg->warm)
            t0 = bench_now_us();
        if (arg->mode == HANDOFF)
            while ((__atomic_load_n(&s->counter, __ATOMIC_ACQUIRE) & 1) != side)
                bench_cpu_pause();
        __atomic_fetch_add(&s->counter, 1, __ATOMIC_SEQ_CST);
    }
    if (side == 0)
        s->us = bench_now_us() - t0;
}

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "atomic_pingpong",
        .title = "machine limit: CPU atomic hand-off, contended and local fetch_add",
        .columns = "mode: latency_us:us pinned: iterations: valid:",
        .min_size = 8, .max_size = 8, .iters = 50000, .min_iters = 20,
        .ops = "handoff,contended,local",
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);
    bool pin = !(b.opt.nthreads == 1 && b.opt.threads[0] == 0);
    shared_t *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED)
        bench_die(&b, "mmap failed");
    const char *modes[3] = {"handoff", "contended", "local"};
    for (int m = 0; m < 3; m++) {
        if (!bench_has_op(&b, modes[m]) || !bench_point(&b, "mode=%s", modes[m]))
            continue;
        arg_t arg = {.iters = bench_iters(&b, 0), .mode = m};
        arg.warm = bench_warmup(&b, arg.iters);
        bool ok = true, pinned = false;
        long per_op_div = m == HANDOFF ? 2 * arg.iters : arg.iters;   /* hand-off: both sides' calls in turn */
        double best = 0;
        for (int t = 0; t < 3; t++) {
            memset((void *)s, 0, sizeof *s);
            if (m == LOCAL) {
                s->ready = 1;
                side_run(0, s, &arg);
                ok = ok && s->counter == arg.iters + arg.warm;
            } else {
                ok = ok && bench_fork_pair(s, side_run, &arg, pin, &pinned) &&
                     s->counter == 2 * (arg.iters + arg.warm);
            }
            if (t == 0 || s->us < best)
                best = s->us;
        }
        bench_row_begin(&b);
        bench_col_str(&b, "mode", modes[m]);
        bench_col_num(&b, "latency_us", best / (double)per_op_div);
        bench_col_bool(&b, "pinned", pinned);
        bench_col_int(&b, "iterations", arg.iters);
        bench_col_bool(&b, "valid", ok);
        bench_row_end(&b);
    }
    return bench_fini(&b, NULL);
}
