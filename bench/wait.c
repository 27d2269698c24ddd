/*
 * wait - what a wait costs and how soon it wakes (issue 15 part 3).  PEs in
 * pairs (0,1), (2,3)...: the even PE waits in shmem_long_wait_until for a
 * flag the odd PE sets a known delay after a handshake:
 *   waiter: sends the round number to the setter's `go`, reads its clocks,
 *           waits for its flag, reads its clocks again;
 *   setter: waits for `go`, spins on the clock for the delay, stores the
 *           time and then (after a fence) the flag.
 * Per delay (-x 1us,10us,100us,1ms,10ms), one row:
 *   wake_us         setter's clock at the store -> the waiter's return
 *                   (same node: CLOCK_MONOTONIC is one clock), median and
 *                   90th percentile over the rounds, worst pair;
 *   cpu_ns_per_us   the waiter's CPU time (CLOCK_THREAD_CPUTIME_ID) per
 *                   microsecond it waited (1000 = a whole core), mean of pairs;
 *   cycles_per_us   the same in CPU cycles (perf_event_open, this thread),
 *                   where the kernel offers the counter (absent in most VMs);
 *   setter_late_us  how much longer than the delay the setter took to get
 *                   its store done, median and worst of the rounds (more PEs
 *                   than cores: a waiter that keeps its core starves it).
 * The wait mode is the launch's SHIMMER_WAIT_MODE (column `mode`); bench/run
 * --wait runs each mode, at 2 PEs and at 4 PEs on 2 cores.  A point ends
 * after its rounds or 2 s.  Shimmer-specific only by the variable it names.
 */
#include "bench.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STOP (-1L)
#define MAX_ROUNDS 2000

static long go, flag;         /* symmetric: the setter's and the waiter's word */
static double stamp;          /* the setter's clock at the store, in the waiter */

/* A cycle counter of this thread, or -1 (no PMU in the VM, paranoid). */
static int cycles_open(void)
{
    struct perf_event_attr a;

    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof(a);
    a.config = PERF_COUNT_HW_CPU_CYCLES;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static double cycles_read(int fd)
{
    long long v = 0;
    return fd >= 0 && read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? (double)v : 0;
}

typedef struct result {
    double wake_med, wake_p90, cpu_per_us, cycles_per_us, late_med, late_max, rounds;
} result_t;

static void waiter(bench_t *b, int peer, double delay_us, long rounds, int cyc, result_t *r)
{
    static double wake[MAX_ROUNDS];
    double cpu = 0, cycles = 0, waited = 0, t_end = bench_now_us() + 2e6;
    long n = 0;

    (void)b;
    for (long k = 1; k <= rounds && bench_now_us() < t_end; k++, n++) {
        double c0 = bench_thread_cpu_us() * 1e3, y0 = cycles_read(cyc), t0 = bench_now_us();
        shmem_long_atomic_set(&go, k, peer);
        shmem_long_wait_until(&flag, SHMEM_CMP_GE, k);
        double t1 = bench_now_us();
        cpu += bench_thread_cpu_us() * 1e3 - c0;
        cycles += cycles_read(cyc) - y0;
        waited += t1 - t0;
        wake[n] = t1 - *(volatile double *)&stamp;
    }
    shmem_long_atomic_set(&go, STOP, peer);
    r->wake_med = bench_quantile(wake, n, 0.5);
    r->wake_p90 = bench_quantile(wake, n, 0.9);
    r->cpu_per_us = waited > 0 ? cpu / waited : 0;
    r->cycles_per_us = cyc >= 0 && waited > 0 ? cycles / waited : -1;
    r->rounds = (double)n;
    (void)delay_us;
}

static void setter(int peer, double delay_us, result_t *r)
{
    static double late[MAX_ROUNDS];
    long n = 0, seen = 0;

    for (;;) {
        shmem_long_wait_until(&go, SHMEM_CMP_NE, seen);
        long k = shmem_long_atomic_fetch(&go, shmem_my_pe());
        if (k == STOP) {
            break;
        }
        seen = k;
        double t0 = bench_now_us(), t;
        while ((t = bench_now_us()) - t0 < delay_us) {
            bench_cpu_pause();
        }
        shmem_double_p(&stamp, t, peer);
        shmem_fence();
        shmem_long_atomic_set(&flag, k, peer);
        if (n < MAX_ROUNDS) {
            late[n++] = t - t0 - delay_us;
        }
    }
    r->late_med = bench_quantile(late, n, 0.5);
    r->late_max = bench_quantile(late, n, 1.0);
}

int main(int argc, char **argv)
{
    bench_info_t info = {
        .name = "wait",
        .title = "shmem_wait_until: wake-up latency and the waiter's CPU per us waited, "
                 "flag set a known delay after a handshake",
        /* cycles_per_us:cycles after cpu_ns_per_us where the counter opens */
        .columns = "delay: mode: pes: wake_us:us wake_p90_us:us cpu_ns_per_us:ns "
                   "setter_late_us:us setter_late_max_us:us rounds:n",
        .min_size = 8, .max_size = 8,
        .iters = MAX_ROUNDS, .min_iters = 10,
        .ops = "1us,10us,100us,1ms,10ms", .min_pes = 2,
    };
    static const struct { const char *name; double us; } delays[] = {
        {"1us", 1}, {"10us", 10}, {"100us", 100}, {"1ms", 1000}, {"10ms", 10000}};
    bench_t b;
    int cyc = cycles_open();

    if (cyc >= 0) {
        info.columns = "delay: mode: pes: wake_us:us wake_p90_us:us cpu_ns_per_us:ns "
                       "cycles_per_us:cycles setter_late_us:us setter_late_max_us:us rounds:n";
    }
    bench_init(&b, &info, argc, argv);
    const char *mode = getenv("SHIMMER_WAIT_MODE");
    mode = mode != NULL && mode[0] != '\0' ? mode : "auto";
    int me = b.me, peer = me ^ 1;
    bool paired = peer < b.npes;
    double *all = malloc(sizeof(double) * (size_t)b.npes);
    if (me == 0) {
        bench_note(&b, "cycles: %s", cyc >= 0 ? "perf_event_open" : "no hardware counter here "
                                                "(CPU time only)");
    }

    for (size_t d = 0; d < sizeof(delays) / sizeof(delays[0]); d++) {
        if (!bench_has_op(&b, delays[d].name) || !bench_point(&b, "delay=%s", delays[d].name)) {
            continue;
        }
        /* ~0.2 s of waiting per point, 10..MAX_ROUNDS rounds */
        long rounds = b.opt.quick ? 3 : (long)(2e5 / delays[d].us);
        long cap = b.opt.iters > 0 && b.opt.iters < MAX_ROUNDS ? b.opt.iters : MAX_ROUNDS;
        rounds = rounds < 10 ? 10 : rounds > cap ? cap : rounds;
        rounds = b.opt.quick ? 3 : rounds;
        result_t r = {0};
        go = flag = 0;
        bench_barrier(&b);
        if (paired && (me & 1) == 0) {
            waiter(&b, peer, delays[d].us, rounds, cyc, &r);
        } else if (paired) {
            setter(peer, delays[d].us, &r);
        }
        bench_barrier(&b);
        /* the worst waiter's latency, the waiters' mean CPU, the worst setter */
        double v[7] = {r.wake_med, r.wake_p90, r.cpu_per_us, r.cycles_per_us, r.late_med,
                       r.late_max, r.rounds}, out[7] = {0};
        for (int i = 0; i < 7; i++) {
            bench_gather(&b, v[i], all);
            double acc = 0, worst = -1e300;
            int cnt = 0;
            for (int pe = 0; pe < b.npes; pe++) {
                bool waits = (pe & 1) == 0 && (pe ^ 1) < b.npes;
                bool sets = (pe & 1) == 1;
                if ((i < 4 || i == 6) ? !waits : !sets) {
                    continue;
                }
                acc += all[pe];
                worst = all[pe] > worst ? all[pe] : worst;
                cnt++;
            }
            out[i] = (i == 2 || i == 3 || i == 6) ? (cnt ? acc / cnt : 0) : worst;
        }
        bench_row_begin(&b);
        bench_col_str(&b, "delay", delays[d].name);
        bench_col_str(&b, "mode", mode);
        bench_col_int(&b, "pes", b.npes);
        bench_col_num(&b, "wake_us", out[0]);
        bench_col_num(&b, "wake_p90_us", out[1]);
        bench_col_num(&b, "cpu_ns_per_us", out[2]);
        if (cyc >= 0) {
            bench_col_num(&b, "cycles_per_us", out[3]);
        }
        bench_col_num(&b, "setter_late_us", out[4]);
        bench_col_num(&b, "setter_late_max_us", out[5]);
        bench_col_num(&b, "rounds", out[6]);
        bench_row_end(&b);
    }
    free(all);
    if (cyc >= 0) {
        close(cyc);
    }
    return bench_fini(&b, "ok");
}
