/*
 * cpu_handoff - machine limit: two processes (fork) on ONE CPU take turns,
 * each yielding the CPU (sched_yield) until the shared counter says it is
 * its turn, then advancing it: the time per turn is one hand-off of the
 * CPU from one process to the other.  With more PEs than CPUs, PEs that
 * share a CPU must hand it over at every synchronisation (the apps'
 * reach, app_kernels.py).  Both processes are pinned to the same CPU (the
 * last one allowed); without pinning (-t 0) there is no hand-off to
 * measure and the row is not valid.  The time is the best batch of BATCH
 * turns (fewer in a short run) over 6 trials: a limit is the best case, and on a shared machine
 * a third process that takes the CPU at a yield must not count as a
 * hand-off between the two.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BATCH 100   /* turns of each side timed together */

typedef struct shared {
    _Alignas(128) volatile long turn;
    _Alignas(128) volatile long ready;
    double us;      /* the best batch's time per turn */
} shared_t;

typedef struct arg { long iters, warm, batch; int cpu; bool pinned; } arg_t;

static void side_run(int side, void *p, void *a)
{
    shared_t *s = p;
    arg_t *arg = a;
    if (arg->pinned) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(arg->cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            _exit(1);
    }
    __atomic_fetch_add(&s->ready, 1, __ATOMIC_SEQ_CST);
    while (s->ready < 2)
        sched_yield();
    long n = 2 * (arg->iters + arg->warm + 1);   /* + 1: the last batch's end */
    double t0 = 0, best = 0;
    for (long i = side; i < n; i += 2) {
        while (__atomic_load_n(&s->turn, __ATOMIC_ACQUIRE) != i)
            sched_yield();
        __atomic_store_n(&s->turn, i + 1, __ATOMIC_RELEASE);
        long done = i / 2 - arg->warm;   /* side 0's turns since the warm-up */
        if (side == 0 && done >= 0 && done % arg->batch == 0) {
            double now = bench_now_us();
            if (done > 0 && (best == 0 || now - t0 < best))
                best = now - t0;
            t0 = now;
        }
    }
    if (side == 0)
        s->us = best / (2.0 * (double)arg->batch);
}

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "cpu_handoff",
        .title = "machine limit: two processes on one CPU take turns by sched_yield",
        .columns = "mode: latency_us:us pinned: iterations: valid:",
        .min_size = 8, .max_size = 8, .iters = 20000, .min_iters = 20,
        .ops = "yield",
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);
    cpu_set_t allowed;
    bool pin = !(b.opt.nthreads == 1 && b.opt.threads[0] == 0) &&
               sched_getaffinity(0, sizeof allowed, &allowed) == 0;
    int cpu = -1;
    for (int c = 0; pin && c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed))
            cpu = c;
    shared_t *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED)
        bench_die(&b, "mmap failed");
    if (bench_has_op(&b, "yield") && bench_point(&b, "mode=yield")) {
        arg_t arg = {.iters = bench_iters(&b, 0), .cpu = cpu, .pinned = cpu >= 0};
        arg.warm = bench_warmup(&b, arg.iters);
        arg.batch = arg.iters < BATCH ? arg.iters : BATCH;
        bool ok = arg.pinned;
        double best = 0;
        for (int t = 0; t < 6; t++) {
            memset((void *)s, 0, sizeof *s);
            ok = ok && bench_fork_pair(s, side_run, &arg, false, NULL) &&
                 s->turn == 2 * (arg.iters + arg.warm + 1) && s->us > 0;
            if (t == 0 || (s->us > 0 && s->us < best))
                best = s->us;
        }
        if (arg.pinned)
            sched_setaffinity(0, sizeof allowed, &allowed);
        bench_row_begin(&b);
        bench_col_str(&b, "mode", "yield");
        bench_col_num(&b, "latency_us", best);
        bench_col_bool(&b, "pinned", arg.pinned);
        bench_col_int(&b, "iterations", arg.iters);
        bench_col_bool(&b, "valid", ok);
        bench_row_end(&b);
    }
    return bench_fini(&b, NULL);
}
