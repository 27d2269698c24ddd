/*
 * app.h -- what every kernel of apps/ shares: the command line (size
 * class and overrides), the timed region, the one verdict line, results as
 * JSON lines for bench/, the few collectives the kernels need in a form
 * every OpenSHMEM has, and the record exchange (put + atomics) that the
 * integer sort and the graph kernels are built on.
 *
 * Plain OpenSHMEM: with a 1.5 header the collectives are the team forms;
 * an older header (Open MPI's OSHMEM is 1.4) gets the active-set forms with
 * their pSync and pWrk arrays.  Nothing else in the kernels depends on the
 * version.
 */
#ifndef APP_H
#define APP_H

#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if SHMEM_MAJOR_VERSION > 1 || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION >= 5)
#define APP_SHMEM_TEAMS 1
#else
#define APP_SHMEM_TEAMS 0
#endif

#if defined(__GNUC__)
#define APP_PRINTF(_f, _a) __attribute__((format(printf, _f, _a)))
#define APP_NORETURN __attribute__((noreturn))
#else
#define APP_PRINTF(_f, _a)
#define APP_NORETURN
#endif

/* Problem-size classes: tiny for tests (well under a second), A and B for
 * benchmarks (A: 1-5 s on two cores). */
typedef enum { APP_TINY, APP_CLASS_A, APP_CLASS_B } app_class_t;

#define APP_MAX_METRICS 8

typedef struct {
    /* set by the kernel before app_init */
    const char *name;        /* program name: "gups" */
    const char *title;       /* one line: what it computes */
    const char *rate_unit;   /* unit of the rate: "GUP/s" */
    const char *size_help;   /* what -S sets: "log2 of the table's words" */
    const char *iter_help;   /* what -I sets: "time steps" */
    const char *variants;    /* "xor,getput" (first = default), or NULL */
    /* from the command line */
    app_class_t cls;
    long size;               /* -S: 0 = the class's default */
    long iters;              /* -I: 0 = the class's default */
    const char *variant;
    const char *out_path;    /* -o: JSON lines */
    const char *label;       /* -l: implementation label in the JSON header */
    int verbose;             /* -v */
    /* state */
    int me, npes;
    double t0, elapsed;      /* the timed region, seconds */
    int nmetrics;
    struct { const char *name, *unit; double value; } metric[APP_MAX_METRICS];
} app_t;

/* Starts OpenSHMEM and parses the command line (prints usage and exits on
 * a bad one). */
void app_init(app_t *a, int argc, char **argv);
/* The class's value unless -S / -I gave one. */
long app_pick(const app_t *a, long tiny, long class_a, long class_b);
long app_pick_iters(const app_t *a, long tiny, long class_a, long class_b);
const char *app_class_name(const app_t *a);

/* The timed region: every PE enters and leaves together (barrier_all), so
 * the time is the slowest PE's.  Several begin/end pairs add up.  A
 * profiling tool sees only these regions (shmem_pcontrol, with 1.5). */
void app_time_begin(app_t *a);
void app_time_end(app_t *a);
double app_now(void);

/* An extra figure for the JSON row and the summary line (a kernel's part). */
void app_metric(app_t *a, const char *name, const char *unit, double value);

/* PE 0 prints the figures and the one verdict line; with -o the JSON
 * record; then finalize.  Returns the exit status: 0 passed, 1 failed.
 * `detail` says what was compared with what. */
int app_finish(app_t *a, int passed, double rate, const char *detail, ...) APP_PRINTF(4, 5);

/* Only PE 0 prints (a line of facts about the run). */
void app_say(const app_t *a, const char *fmt, ...) APP_PRINTF(2, 3);
/* Ends the whole job with one line naming the kernel, the PE, the problem
 * and the fix. */
void app_die(const app_t *a, const char *fmt, ...) APP_PRINTF(2, 3) APP_NORETURN;

/* shmem_malloc (collective) that explains a failure: how much was asked
 * for and which variable to raise. */
void *app_malloc(const app_t *a, size_t bytes, const char *what);
void *app_calloc(const app_t *a, size_t bytes, const char *what);
/* Private memory, ending the job when there is none. */
void *app_alloc(const app_t *a, size_t bytes, const char *what);

/* ---- collectives over every PE --------------------------------------- */
double app_max_double(double v);
double app_sum_double(double v);
long app_sum_long(long v);
long app_max_long(long v);
/* Element-wise sums over every PE; dest and source symmetric, n elements. */
void app_sum_long_array(long *dest, const long *source, size_t n);
void app_sum_double_array(double *dest, const double *source, size_t n);
/* Every PE's `bytes` (a multiple of 8, may differ by PE) concatenated in PE
 * order into dest on every PE; both symmetric. */
void app_collect(void *dest, const void *source, size_t bytes);
/* Block j of source goes to PE j, lands as block me of dest; blocks of
 * `bytes` (a multiple of 8); both symmetric. */
void app_alltoall(void *dest, const void *source, size_t bytes);

/* ---- record exchange: put + atomics ------------------------------------
 * Each PE pushes fixed-size records to other PEs.  A destination's records
 * are buffered privately; a full buffer, or app_exch_round, sends them: one
 * fetch-add on the destination's counter reserves room in its receive
 * buffer, one put moves them.  app_exch_round ends a round for every PE
 * (barrier_all) and returns what this PE received.  Two receive buffers
 * alternate by round, so one barrier per round is enough: a PE writes into
 * buffer b again only two rounds later, after its owner has read it. */
typedef struct {
    const app_t *app;
    size_t rec;              /* record size, bytes */
    size_t recv_cap;         /* records a PE can receive per round */
    size_t send_cap;         /* records buffered per destination */
    char *recv[2];           /* symmetric */
    long *count;             /* symmetric [2]: records received this round */
    char *send;              /* private: npes x send_cap records */
    size_t *send_n;
    int parity;
    long rounds;
    long sent, puts;         /* records and puts this PE issued */
} app_exch_t;

void app_exch_create(app_exch_t *x, const app_t *a, size_t rec, size_t recv_cap, size_t send_cap);
void app_exch_destroy(app_exch_t *x);
/* Room for one record to `pe` (sends that destination's buffer when full). */
void *app_exch_slot(app_exch_t *x, int pe);
/* Sends everything buffered, waits for every PE; *recs_p: this round's
 * records (valid until the round after next). */
size_t app_exch_round(app_exch_t *x, const void **recs_p);

/* ---- random numbers: counter-based, the same on any PE count ----------- */
static inline uint64_t app_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) from 53 bits. */
static inline double app_unit(uint64_t bits)
{
    return (double)(bits >> 11) * (1.0 / 9007199254740992.0);
}

/* Block distribution of n items over npes: the first n % npes PEs hold one
 * more. */
static inline long app_block_lo(long n, int npes, int pe)
{
    long q = n / npes, r = n % npes;
    return pe * q + (pe < r ? pe : r);
}

static inline long app_block_len(long n, int npes, int pe)
{
    return n / npes + (pe < n % npes ? 1 : 0);
}

static inline int app_block_owner(long n, int npes, long i)
{
    long q = n / npes, r = n % npes;
    long big = r * (q + 1);
    return i < big ? (int)(i / (q + 1)) : (int)(r + (i - big) / q);
}

#endif
