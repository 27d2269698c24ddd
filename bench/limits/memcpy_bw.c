/*
 * memcpy_bw - machine limit: single-core memcpy, in the access pattern of
 * the put and get benchmarks it bounds.  Two processes share the buffers
 * (MAP_SHARED, as two PEs on a node share their heaps); side 1, the
 * "target", writes its buffer before each point and then leaves the CPUs to
 * side 0, which copies, the same two buffers every time (a target PE waits
 * in a barrier; one that naps there, as Shimmer's does, leaves the copier
 * the whole machine: the best case, which a limit is):
 *   op=put  side 0's source into side 1's destination (put_bw, put_lat);
 *   op=get  side 1's source into side 0's destination (get_bw, get_lat).
 * bandwidth_MBps: put_bw's iterations and warm-up, MB = 1e6 bytes;
 * latency_us: the time of one copy, back to back, with put_lat's;
 * fenced_us: one copy then a full fence (the stores visible before any
 *   later load), back to back: what a put completed by quiet costs at
 *   least, on a machine whose stores may pass later loads (x86 included).
 * Each figure is the best of 3 timed trials: a limit is the best case.
 * The buffers are on huge pages when the kernel's pool has room (as a
 * Shimmer heap is, SHIMMER_HUGEPAGES=auto), else on normal pages.
 * Pinned to two CPUs when allowed (-t 0 disables).  Built with plain cc.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { TRIALS = 3 };

typedef struct shared {
    _Alignas(128) volatile int ready;     /* side 1 wrote its buffer */
    double bw_us, lat_us, fenced_us;      /* best trial of each loop */
    bool ok;
} shared_t;

typedef struct arg {
    bool put;
    size_t size;
    long bw_iters, lat_iters, bw_warm, lat_warm;
    char *mine, *theirs;                  /* side 0's and side 1's buffer */
    unsigned seed;
} arg_t;

/* One copy; with `fence`, completed: a full fence after it. */
static inline void copy_once(char *dst, const char *src, size_t size, bool fence)
{
    memcpy(dst, src, size);
    if (fence)
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __asm__ volatile("" ::: "memory");   /* keep every copy */
}

/* `iters` copies back to back after `warm` untimed ones; microseconds. */
static double copies(char *dst, const char *src, size_t size, long iters, long warm, bool fence)
{
    for (long i = 0; i < warm; i++)
        copy_once(dst, src, size, fence);
    double t0 = bench_now_us();
    for (long i = 0; i < iters; i++)
        copy_once(dst, src, size, fence);
    return bench_now_us() - t0;
}

static void side_run(int side, void *p, void *a)
{
    shared_t *s = p;
    arg_t *arg = a;
    if (side == 1) {
        /* the target touches its buffer, as a PE initialises its own heap */
        if (arg->put)
            memset(arg->theirs, 0, arg->size);
        else
            bench_fill(arg->theirs, arg->size, arg->seed);
        __atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
        return;                           /* its pages stay: the mapping is shared */
    }
    if (arg->put)
        bench_fill(arg->mine, arg->size, arg->seed);
    else
        memset(arg->mine, 0, arg->size);
    while (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE))
        bench_cpu_pause();
    char *dst = arg->put ? arg->theirs : arg->mine;
    const char *src = arg->put ? arg->mine : arg->theirs;
    s->bw_us = s->lat_us = s->fenced_us = 0;
    for (int t = 0; t < TRIALS; t++) {
        double bw = copies(dst, src, arg->size, arg->bw_iters, t == 0 ? arg->bw_warm : 0, false);
        double lat = copies(dst, src, arg->size, arg->lat_iters, t == 0 ? arg->lat_warm : 0, false);
        double fenced = copies(dst, src, arg->size, arg->lat_iters, t == 0 ? arg->lat_warm : 0, true);
        if (t == 0 || bw < s->bw_us)
            s->bw_us = bw;
        if (t == 0 || lat < s->lat_us)
            s->lat_us = lat;
        if (t == 0 || fenced < s->fenced_us)
            s->fenced_us = fenced;
    }
    s->ok = bench_check(dst, arg->size, arg->seed);
}

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "memcpy_bw",
        .title = "machine limit: single-core memcpy between two processes' shared buffers, by size",
        .columns = "op: size:B bandwidth_MBps:MB/s latency_us:us fenced_us:us pinned: huge_pages: iterations: valid:",
        .min_size = 1, .max_size = (size_t)4 << 20,
        BENCH_SWEEP_BW,                  /* put_bw's and get_bw's */
        .ops = "put,get",
    };
    static const bench_info_t lat_sweep = {BENCH_SWEEP_LAT};   /* put_lat's and get_lat's */
    bench_t b;
    bench_init(&b, &info, argc, argv);
    bool pin = !(b.opt.nthreads == 1 && b.opt.threads[0] == 0);
    size_t max = (b.opt.max_size + 4095) & ~(size_t)4095;
    shared_t *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    size_t huge = (size_t)2 << 20;
    char *bufs = mmap(NULL, (2 * max + huge - 1) & ~(huge - 1), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    bool on_huge = bufs != MAP_FAILED;
    if (!on_huge)
        bufs = mmap(NULL, 2 * max, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED || bufs == MAP_FAILED)
        bench_die(&b, "mmap of %zu bytes failed", 2 * max);

    for (int put = 1; put >= 0; put--) {
        if (!bench_has_op(&b, put ? "put" : "get"))
            continue;
        BENCH_FOR_SIZES(&b, size) {
            if (!bench_point(&b, "op=%s size=%zu", put ? "put" : "get", size))
                continue;
            arg_t arg = {.put = put, .size = size, .mine = bufs, .theirs = bufs + max,
                         .seed = (unsigned)size};
            arg.bw_iters = bench_iters(&b, size);
            arg.bw_warm = bench_warmup(&b, arg.bw_iters);
            arg.lat_iters = bench_iters_like(&b, size, &lat_sweep);
            arg.lat_warm = bench_warmup(&b, arg.lat_iters);
            memset((void *)s, 0, sizeof *s);
            bool pinned = false;
            bool ok = bench_fork_pair(s, side_run, &arg, pin, &pinned) && s->ok;
            bench_row_begin(&b);
            bench_col_str(&b, "op", put ? "put" : "get");
            bench_col_int(&b, "size", (long long)size);
            bench_col_num(&b, "bandwidth_MBps", (double)size * (double)arg.bw_iters / s->bw_us);
            bench_col_num(&b, "latency_us", s->lat_us / (double)arg.lat_iters);
            bench_col_num(&b, "fenced_us", s->fenced_us / (double)arg.lat_iters);
            bench_col_bool(&b, "pinned", pinned);
            bench_col_bool(&b, "huge_pages", on_huge);
            bench_col_int(&b, "iterations", arg.bw_iters);
            bench_col_bool(&b, "valid", ok);
            bench_row_end(&b);
        }
    }
    return bench_fini(&b, NULL);
}
