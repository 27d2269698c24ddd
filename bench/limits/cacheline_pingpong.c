/*
 * cacheline_pingpong - machine limit: two processes (fork) ping-pong through
 * a shared anonymous mapping; half of the round trip.
 *   mode=flag       each side writes a flag in its own cache line and spins
 *                   (with pause) on the other's: the bare line transfer;
 *   mode=data_flag  8 bytes of data in one line, then the flag in another,
 *                   as a put-then-flag ping-pong does;
 *   mode=pause      one process: a turn of the poll loop on a flag that
 *                   never changes (a load, a compare, a pause on x86 or a
 *                   yield on aarch64), back to back; latency_us is one
 *                   turn, best of the trials, with no second process.
 * Every row also gives its time in counter ticks (tsc_cycles: the TSC on
 * x86, CNTVCT_EL0 on aarch64; 0 elsewhere), read over the same loop.
 * A pause takes about as long as half the line's round trip on the Zen 5
 * VM (mode=pause beside mode=flag, bench/README.md), so a pause loop sees
 * the flag up to a pause late, and how late
 * depends on when it started polling: the same loop read 51-54 ns, and 27-33
 * ns with ~20 idle cycles added between seeing the flag and answering
 * (and Shimmer's ping-pong, whose path between the two differs, 45 ns
 * where the probe read 51).  So each trial runs the ping-pong once per
 * answer delay of NPHASES, which span a pause, and keeps the best: the
 * best phase is what a line transfer with a pause loop can do.
 * Each figure is the best of 16 timed trials, 50 ms apart: a limit is the
 * best case, and a VM's two vCPUs can sit near or far apart on the host
 * from one moment to the next (~50 or ~240 ns within seconds).  The
 * trials alternate between the two processes pinned to different CPUs and
 * left to the scheduler (-t 0: never pinned): pinned is best on an idle
 * machine, but on a busy one a pinned process cannot leave a CPU another
 * program holds, while the PEs it bounds are not pinned.  The pinned and
 * delay columns say which trial and phase were best.
 */
#include "bench.h"

#include <string.h>
#include <sys/mman.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#define TRIALS 16
#define TRIAL_GAP_NS 50000000L /* 50 ms between trials: see above */
#define LINE 128      /* two 64-byte lines: no adjacent-line prefetch sharing */
/* answer delays: 0, 4, ... 92 idle loop turns (~1 cycle each) between
 * seeing the flag and answering, a pause (~24 ns: mode=pause) in steps
 * of ~1 ns (see above) */
#define NPHASES 24
#define PHASE_STEP 4

typedef struct shared {
    _Alignas(LINE) volatile long flag[2][LINE / sizeof(long)];
    _Alignas(LINE) volatile long data[2][LINE / sizeof(long)];
    _Alignas(LINE) volatile long ready;
    double us[NPHASES];
    uint64_t ticks[NPHASES];
} shared_t;

typedef struct arg { long iters, warm; bool data; } arg_t;

/* The CPU's constant-rate counter (0 where there is none to read). */
static inline uint64_t ticks_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
#else
    return 0;
#endif
}

static inline void answer_delay(int turns)
{
    for (int q = 0; q < turns; q++)
        __asm__ volatile("");
}

static void side_run(int side, void *p, void *a)
{
    shared_t *s = p;
    arg_t *arg = a;
    int other = 1 - side;
    if (side == 1)
        s->ready = 1;
    while (!s->ready)
        bench_cpu_pause();
    long i = 0;
    for (int ph = 0; ph < NPHASES; ph++) {
        int turns = ph * PHASE_STEP;
        double t0 = 0;
        uint64_t c0 = 0;
        for (long k = 1; k <= arg->iters + arg->warm; k++) {
            i++;
            if (k == arg->warm + 1) {
                t0 = bench_now_us();
                c0 = ticks_now();
            }
            if (side == 0) {
                if (arg->data)
                    s->data[other][0] = i;
                __atomic_store_n(&s->flag[other][0], i, __ATOMIC_RELEASE);
                while (__atomic_load_n(&s->flag[side][0], __ATOMIC_ACQUIRE) != i)
                    bench_cpu_pause();
                answer_delay(turns);
            } else {
                while (__atomic_load_n(&s->flag[side][0], __ATOMIC_ACQUIRE) != i)
                    bench_cpu_pause();
                answer_delay(turns);
                if (arg->data)
                    s->data[other][0] = s->data[side][0];
                __atomic_store_n(&s->flag[other][0], i, __ATOMIC_RELEASE);
            }
        }
        if (side == 0) {
            s->ticks[ph] = ticks_now() - c0;
            s->us[ph] = bench_now_us() - t0;
        }
    }
}

/* mode=pause: `iters` turns of the poll loop on a flag that stays 0 after
 * `warm` untimed ones; the time and ticks of the turns. */
static void pause_run(shared_t *s, long iters, long warm)
{
    for (long k = 0; k < warm; k++)
        if (__atomic_load_n(&s->flag[0][0], __ATOMIC_ACQUIRE) == 1)
            break;
        else
            bench_cpu_pause();
    double t0 = bench_now_us();
    uint64_t c0 = ticks_now();
    for (long k = 0; k < iters; k++)
        if (__atomic_load_n(&s->flag[0][0], __ATOMIC_ACQUIRE) == 1)
            break;
        else
            bench_cpu_pause();
    s->ticks[0] = ticks_now() - c0;
    s->us[0] = bench_now_us() - t0;
}

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "cacheline_pingpong",
        .title = "machine limit: two-process cache-line ping-pong, half round trip",
        .columns = "mode: latency_us:us tsc_cycles:cycles pinned: delay: iterations: valid:",
        .min_size = 8, .max_size = 8, BENCH_SWEEP_LAT,   /* put_lat's and signal_lat's */
        .ops = "flag,data_flag,pause",
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);
    bool pin = !(b.opt.nthreads == 1 && b.opt.threads[0] == 0);
    shared_t *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED)
        bench_die(&b, "mmap failed");
    const char *modes[3] = {"flag", "data_flag", "pause"};
    for (int m = 0; m < 3; m++) {
        if (!bench_has_op(&b, modes[m]) || !bench_point(&b, "mode=%s", modes[m]))
            continue;
        arg_t arg = {.iters = bench_iters(&b, 0), .data = m == 1};
        arg.warm = bench_warmup(&b, arg.iters);
        bool pinned = false, ok = true;
        double best = 0, ticks = 0;
        int delay = 0;
        for (int t = 0; t < TRIALS; t++) {
            bool this_pinned = false;
            memset((void *)s, 0, sizeof *s);
            if (m == 2) {        /* one process, its own core: no gap, no pinning */
                pause_run(s, arg.iters, arg.warm);
                if (t == 0 || s->us[0] < best) {
                    best = s->us[0];
                    ticks = (double)s->ticks[0];
                }
                continue;
            }
            if (t > 0)
                nanosleep(&(struct timespec){.tv_nsec = TRIAL_GAP_NS}, NULL);
            ok = ok && bench_fork_pair(s, side_run, &arg, pin && t % 2 == 0, &this_pinned);
            ok = ok && s->flag[0][0] == NPHASES * (arg.iters + arg.warm) &&
                 (m == 0 || s->data[0][0] == s->flag[0][0]);
            for (int ph = 0; ph < NPHASES; ph++)
                if ((t == 0 && ph == 0) || s->us[ph] < best) {
                    best = s->us[ph];
                    ticks = (double)s->ticks[ph];
                    pinned = this_pinned;
                    delay = ph * PHASE_STEP;
                }
        }
        double per = m == 2 ? (double)arg.iters : 2.0 * (double)arg.iters; /* a turn; half a round trip */
        bench_row_begin(&b);
        bench_col_str(&b, "mode", modes[m]);
        bench_col_num(&b, "latency_us", best / per);
        bench_col_num(&b, "tsc_cycles", ticks / per);
        bench_col_bool(&b, "pinned", pinned);
        bench_col_int(&b, "delay", delay);
        bench_col_int(&b, "iterations", arg.iters);
        bench_col_bool(&b, "valid", ok);
        bench_row_end(&b);
    }
    return bench_fini(&b, NULL);
}
