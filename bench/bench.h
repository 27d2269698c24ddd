/*
 * bench.h - the one harness shared by every Shimmer benchmark.
 *
 * Drivers are plain OpenSHMEM C programs: they build with any `oshcc`
 * (Shimmer's, Open MPI's, ...) by compiling bench.c beside them.  The same
 * file serves two other flavours, so every figure of a run has one output
 * format: built with -DBENCH_NO_SHMEM and a plain `cc`, the machine-limit
 * probes (bench/limits/, one process); with -DBENCH_MPI and `mpicc`, the MPI
 * programs the suite compares with (bench/mpi/, one process per rank).
 *
 * The harness owns: option parsing, the size sweep, iteration and warm-up
 * counts, the timer, gathering per-PE values on PE 0, and the output (JSON
 * lines, or CSV) with a header recording machine, build and PE layout.
 * Output format: docs/bench.md ("Output").
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#ifdef BENCH_MPI
#define BENCH_NO_SHMEM 1
#include <mpi.h>
#endif
#ifndef BENCH_NO_SHMEM
#include <shmem.h>
/* 1.5 features (put_signal, teams) are absent from 1.4 peers. */
#if defined(SHMEM_MAJOR_VERSION) && \
    (SHMEM_MAJOR_VERSION > 1 || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION >= 5))
#define BENCH_HAVE_SHMEM_1_5 1
#else
#define BENCH_HAVE_SHMEM_1_5 0
#endif
#endif

#define BENCH_SCHEMA 1
#define BENCH_MAX_LIST 16

/* Iterations of the two sweep shapes, shared by every benchmark of a shape
 * and by the limit probes that bound them: a probe compared with a figure
 * runs the same iterations and warm-up (bench/README.md, "limits"). */
#define BENCH_SWEEP_LAT .iters = 5000, .min_iters = 20, .budget = (size_t)64 << 20
#define BENCH_SWEEP_BW  .iters = 10000, .min_iters = 32, .budget = (size_t)128 << 20

/* What a driver tells the harness about itself; defaults for its options. */
typedef struct bench_info {
    const char *name;          /* "put_lat": the benchmark's id in the report */
    const char *title;         /* one line, OSU-style */
    const char *columns;       /* "size:B latency_us:us ..." (name:unit, space separated) */
    size_t      min_size;      /* default sweep, bytes */
    size_t      max_size;
    long        iters;         /* iterations at small sizes */
    long        min_iters;     /* never fewer than this, whatever the budget */
    size_t      budget;        /* bytes moved per point; large sizes get budget/size iterations */
    const char *windows;       /* default -W list, or NULL */
    const char *ops;           /* default -x list, or NULL */
    int         min_pes;       /* refuse to run with fewer PEs */
    int         thread_level;  /* 0: shmem_init(); else shmem_init_thread(level) */
} bench_info_t;

typedef struct bench_opts {
    size_t      min_size, max_size;
    size_t      sizes[BENCH_MAX_LIST];  /* -m 8,4k,1M: an explicit list instead of a sweep */
    int         nsizes;
    long        iters;         /* -1: driver default */
    long        warmup;        /* -1: iters/10 (at least 2) */
    size_t      budget;
    long        windows[BENCH_MAX_LIST];
    int         nwindows;
    long        threads[BENCH_MAX_LIST];
    int         nthreads;
    char        ops[256];
    char        type[16];
    bool        global;        /* buffers in static arrays, not shmem_malloc */
    size_t      skew;          /* -a: the destination starts this far past 4 KiB alignment */
    bool        csv;
    bool        quick;         /* tiny sizes and iterations (tests) */
    long        skip_points;   /* resume after a crash: skip the first N points */
    char        label[64];     /* implementation label given by the runner */
    const char *out_path;
} bench_opts_t;

typedef struct bench {
    const bench_info_t *info;
    bench_opts_t opt;
    int      me, npes;
    int      thread_provided;
    FILE    *out;              /* PE 0 only; NULL elsewhere */
    long     point;            /* index of the current point */
    bool     row_open;
    bool     ended;            /* end record written */
    int      row_ncols;
    char     csv_names[512];   /* CSV: columns of the row being written */
    char     csv_last[512];    /* CSV: columns of the last header printed */
    char     csv_vals[2048];
    void    *gather;           /* OpenSHMEM: symmetric scratch for gathers (npes host lines) */
    char    *pool;             /* --global: static symmetric pool set by the driver */
    size_t   pool_size, pool_used;
} bench_t;

/* ---- life cycle --------------------------------------------------------- */
/* Parses argv, starts OpenSHMEM, writes the header.  Exits on bad options. */
void bench_init(bench_t *b, const bench_info_t *info, int argc, char **argv);
/* Writes the end record ("ok" or the reason), then shmem_finalize. Returns exit code. */
int  bench_fini(bench_t *b, const char *status);
/* Marks the whole benchmark unsupported by this implementation (no rows). */
int  bench_unsupported(bench_t *b, const char *why);
/* Prints one error line naming the benchmark and ends the job. */
void bench_die(bench_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* ---- timing ------------------------------------------------------------- */
static inline double bench_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* This thread's CPU time, us: user and system, with the softirqs the
 * kernel ran in its context (without CONFIG_IRQ_TIME_ACCOUNTING). A system
 * call (no vDSO): microseconds in some VMs; time phases in a pass of
 * their own. */
static inline double bench_thread_cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* ---- sweep -------------------------------------------------------------- */
/* Iterations for one point moving `bytes` per iteration: min(iters, budget/bytes), >= min_iters. */
long bench_iters(const bench_t *b, size_t bytes);
/* The same for another sweep shape (`like`: its iters, min_iters, budget; -i and -b do not apply). */
long bench_iters_like(const bench_t *b, size_t bytes, const bench_info_t *like);
long bench_warmup(const bench_t *b, long iters);
/* Next size of the power-of-two sweep, or of the -m list (0 when past the end). */
size_t bench_next_size(const bench_t *b, size_t size);
#define BENCH_FOR_SIZES(_b, _s) \
    for (size_t _s = (_b)->opt.min_size; _s != 0; _s = bench_next_size((_b), _s))
/* Starts a point; false if it is skipped (--skip-points).  All PEs must call it. */
bool bench_point(bench_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True if `name` is in the -x list (or the list is "all"). */
bool bench_has_op(const bench_t *b, const char *name);

/* ---- memory ------------------------------------------------------------- */
/* Hands the harness a static (hence symmetric) array used when --global is given. */
void  bench_set_global_pool(bench_t *b, void *pool, size_t size);
/* Symmetric buffer: from the global pool with --global, else shmem_malloc
 * (MPI and probes: private memory); 4 KiB aligned. */
void *bench_sym_alloc(bench_t *b, size_t bytes);
void  bench_fill(void *buf, size_t n, unsigned seed);
bool  bench_check(const void *buf, size_t n, unsigned seed);

/* The q-quantile (0 <= q <= 1) of v[n], interpolated between neighbours
 * (0 when n is 0); sorts v in place, so v[0] and v[n - 1] are then its ends. */
double bench_quantile(double *v, long n, double q);

/* Several threads' timed intervals, each clocked by its thread (a PE's
 * threads share its CPU: a clock read by the main thread after the start
 * barrier may come after they finished): the span from the earliest start
 * to the latest end.  Start from a zeroed one. */
typedef struct bench_span {
    double first, last;
    long n;
} bench_span_t;
void   bench_span_add(bench_span_t *s, double start_us, double end_us);
double bench_span_us(const bench_span_t *s); /* 0 when none was added */

/* "Key:   N kB" of a /proc file ("/proc/self/status": VmHWM, VmRSS;
 * "/proc/self/smaps_rollup": Pss, Pss_Shmem, ...) in KiB; -1 if absent. */
long  bench_proc_kib(const char *path, const char *key);

/* ---- across PEs --------------------------------------------------------- */
/* Waits for every PE (shmem_barrier_all, MPI_Barrier; nothing in a probe). */
void bench_barrier(bench_t *b);
/* Collects one double from every PE into out[npes] on PE 0 (collective). */
void bench_gather(bench_t *b, double v, double *out);
/* Logical AND of `ok` over all PEs, valid on PE 0 (collective). */
bool bench_all_ok(bench_t *b, bool ok);

/* ---- rows (PE 0 writes; others' calls are no-ops) ------------------------ */
void bench_row_begin(bench_t *b);
void bench_col_int(bench_t *b, const char *name, long long v);
void bench_col_num(bench_t *b, const char *name, double v);
void bench_col_str(bench_t *b, const char *name, const char *v);
void bench_col_bool(bench_t *b, const char *name, bool v);
void bench_row_end(bench_t *b);
/* A note record (free text) attached to the current point. */
void bench_note(bench_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- machine-limit probes (no OpenSHMEM) --------------------------------- */
/* The pause of a spin-wait loop: yields the core's resources to its sibling. */
static inline void bench_cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* Two processes sharing an anonymous mapping: fork, run fn(side, shared, arg)
 * in both (side 0 = parent, 1 = child), wait.  With `pin` and at least two
 * allowed CPUs, side k runs on the k-th allowed CPU (*pinned_p says whether it
 * did); the parent's affinity is restored afterwards.  False if the child failed. */
bool bench_fork_pair(void *shared, void (*fn)(int side, void *shared, void *arg), void *arg,
                     bool pin, bool *pinned_p);

#endif
