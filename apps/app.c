/*
 * app.c -- the shared part of the kernels in apps/ (see app.h).
 */
#define _GNU_SOURCE
#include "app.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

/* ---- command line ------------------------------------------------------- */

static void usage(const app_t *a, FILE *f)
{
    fprintf(f,
            "usage: %s [tiny|A|B] [options]\n"
            "  %s\n"
            "  tiny|A|B        problem-size class (default A); tiny is for tests\n"
            "  -S N            %s (overrides the class)\n"
            "  -I N            %s (overrides the class)\n",
            a->name, a->title, a->size_help, a->iter_help);
    if (a->variants)
        fprintf(f, "  -V NAME         variant: %s (default: the first)\n", a->variants);
    fprintf(f,
            "  -o FILE         results as JSON lines (bench/ schema 1)\n"
            "  -l LABEL        implementation label for the JSON header\n"
            "  -v              more output\n"
            "Prints the run's parameters, the timed region's time and rate, and one\n"
            "verdict line; exits 0 when the result checks, 1 when it does not.\n");
}

static int variant_ok(const char *list, const char *v)
{
    size_t n = strlen(v);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, v, n))
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

static long parse_long(const app_t *a, const char *opt, const char *s)
{
    char *end;
    long v = strtol(s, &end, 0);
    if (*s == '\0' || *end != '\0' || v <= 0) {
        if (a->me == 0)
            fprintf(stderr, "%s: %s wants a positive integer, not '%s'\n", a->name, opt, s);
        shmem_global_exit(2);
    }
    return v;
}

/* A profiling tool (or Shimmer's SHIMMER_PROFILE) sees the timed region
 * only: shmem_pcontrol, new in OpenSHMEM 1.5 with the teams, pauses it
 * outside. */
static void app_profile(int on)
{
#if APP_SHMEM_TEAMS
    shmem_pcontrol(on);
#else
    (void)on;
#endif
}

void app_init(app_t *a, int argc, char **argv)
{
    static char variant_buf[64];
    shmem_init();
    app_profile(0);
    a->me = shmem_my_pe();
    a->npes = shmem_n_pes();
    a->cls = APP_CLASS_A;
    a->label = "";
    if (a->variants) {
        const char *e = strchr(a->variants, ',');
        size_t len = e ? (size_t)(e - a->variants) : strlen(a->variants);
        snprintf(variant_buf, sizeof variant_buf, "%.*s", (int)len, a->variants);
        a->variant = variant_buf;
    }
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(s, "tiny"))
            a->cls = APP_TINY;
        else if (!strcmp(s, "A") || !strcmp(s, "a"))
            a->cls = APP_CLASS_A;
        else if (!strcmp(s, "B") || !strcmp(s, "b"))
            a->cls = APP_CLASS_B;
        else if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
            if (a->me == 0)
                usage(a, stdout);
            shmem_finalize();
            exit(0);
        } else if (!strcmp(s, "-v"))
            a->verbose = 1;
        else if (next && !strcmp(s, "-S"))
            a->size = parse_long(a, s, argv[++i]);
        else if (next && !strcmp(s, "-I"))
            a->iters = parse_long(a, s, argv[++i]);
        else if (next && !strcmp(s, "-o"))
            a->out_path = argv[++i];
        else if (next && !strcmp(s, "-l"))
            a->label = argv[++i];
        else if (next && !strcmp(s, "-V") && a->variants) {
            if (!variant_ok(a->variants, next)) {
                if (a->me == 0)
                    fprintf(stderr, "%s: unknown variant '%s'; choose one of %s\n", a->name, next,
                            a->variants);
                shmem_global_exit(2);
            }
            a->variant = argv[++i];
        } else {
            if (a->me == 0) {
                fprintf(stderr, "%s: unknown argument '%s'\n", a->name, s);
                usage(a, stderr);
            }
            shmem_global_exit(2);
        }
    }
}

long app_pick(const app_t *a, long tiny, long class_a, long class_b)
{
    if (a->size)
        return a->size;
    return a->cls == APP_TINY ? tiny : a->cls == APP_CLASS_A ? class_a : class_b;
}

long app_pick_iters(const app_t *a, long tiny, long class_a, long class_b)
{
    if (a->iters)
        return a->iters;
    return a->cls == APP_TINY ? tiny : a->cls == APP_CLASS_A ? class_a : class_b;
}

const char *app_class_name(const app_t *a)
{
    if (a->size || a->iters)
        return "custom";
    return a->cls == APP_TINY ? "tiny" : a->cls == APP_CLASS_A ? "A" : "B";
}

/* ---- time ------------------------------------------------------------------ */

double app_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void app_time_begin(app_t *a)
{
    shmem_barrier_all();
    app_profile(1);
    a->t0 = app_now();
}

void app_time_end(app_t *a)
{
    shmem_barrier_all();
    a->elapsed += app_now() - a->t0;
    app_profile(0);
}

void app_metric(app_t *a, const char *name, const char *unit, double value)
{
    if (a->nmetrics < APP_MAX_METRICS) {
        a->metric[a->nmetrics].name = name;
        a->metric[a->nmetrics].unit = unit;
        a->metric[a->nmetrics].value = value;
        a->nmetrics++;
    }
}

/* ---- messages ---------------------------------------------------------------- */

void app_say(const app_t *a, const char *fmt, ...)
{
    va_list ap;
    if (a->me != 0)
        return;
    printf("%s: ", a->name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

void app_die(const app_t *a, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: PE %d: ", a->name, a->me);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    shmem_global_exit(2);
    exit(2);
}

void *app_malloc(const app_t *a, size_t bytes, const char *what)
{
    void *p = shmem_malloc(bytes ? bytes : 8);
    if (!p)
        app_die(a, "shmem_malloc(%zu bytes) for %s failed: the symmetric heap is too small; "
                   "set SHMEM_SYMMETRIC_SIZE to at least %zuM",
                bytes, what, 2 * (bytes >> 20) + 64);
    return p;
}

void *app_calloc(const app_t *a, size_t bytes, const char *what)
{
    void *p = app_malloc(a, bytes, what);
    memset(p, 0, bytes ? bytes : 8);
    shmem_barrier_all();    /* nobody writes into it before its owner has cleared it */
    return p;
}

void *app_alloc(const app_t *a, size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        app_die(a, "out of memory: %zu bytes for %s; choose a smaller class or -S", bytes, what);
    return p;
}

/* ---- results -------------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void write_json(const app_t *a, int passed, double rate, const char *detail)
{
    FILE *f = fopen(a->out_path, "w");
    char name[SHMEM_MAX_NAME_LEN + 1] = "";
    int major = 0, minor = 0;
    struct utsname u;
    if (!f) {
        fprintf(stderr, "%s: cannot write %s\n", a->name, a->out_path);
        return;
    }
    shmem_info_get_name(name);
    shmem_info_get_version(&major, &minor);
    uname(&u);
    fprintf(f, "{\"type\":\"header\",\"schema\":1,\"bench\":");
    json_str(f, a->name);
    fprintf(f, ",\"title\":");
    json_str(f, a->title);
    fprintf(f, ",\"columns\":[[\"kernel\",\"\"],[\"class\",\"\"],[\"variant\",\"\"],[\"npes\",\"\"],"
               "[\"time_s\",\"s\"],[\"rate\",");
    json_str(f, a->rate_unit);
    fputc(']', f);
    for (int i = 0; i < a->nmetrics; i++) {
        fprintf(f, ",[");
        json_str(f, a->metric[i].name);
        fputc(',', f);
        json_str(f, a->metric[i].unit);
        fputc(']', f);
    }
    fprintf(f, "],\"impl\":{\"label\":");
    json_str(f, a->label);
    fprintf(f, ",\"api\":\"OpenSHMEM\",\"name\":");
    json_str(f, name);
    fprintf(f, ",\"spec\":\"%d.%d\",\"header_spec\":\"%d.%d\"},\"machine\":{\"hostname\":", major,
            minor, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    json_str(f, u.nodename);
    fprintf(f, "},\"layout\":{\"npes\":%d},\"options\":{\"class\":", a->npes);
    json_str(f, app_class_name(a));
    fprintf(f, ",\"size\":%ld,\"iters\":%ld}}\n", a->size, a->iters);
    fprintf(f, "{\"type\":\"point\",\"index\":0,\"label\":\"npes=%d\"}\n", a->npes);
    fprintf(f, "{\"type\":\"row\",\"point\":0,\"kernel\":");
    json_str(f, a->name);
    fprintf(f, ",\"class\":");
    json_str(f, app_class_name(a));
    fprintf(f, ",\"variant\":");
    json_str(f, a->variant ? a->variant : "");
    fprintf(f, ",\"npes\":%d,\"time_s\":%.9g,\"rate\":%.9g", a->npes, a->elapsed, rate);
    for (int i = 0; i < a->nmetrics; i++) {
        fputc(',', f);
        json_str(f, a->metric[i].name);
        fprintf(f, ":%.9g", a->metric[i].value);
    }
    fprintf(f, ",\"valid\":%s}\n{\"type\":\"note\",\"point\":0,\"text\":", passed ? "true" : "false");
    json_str(f, detail);
    fprintf(f, "}\n{\"type\":\"end\",\"status\":\"ok\"}\n");
    fclose(f);
}

int app_finish(app_t *a, int passed, double rate, const char *detail, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, detail);
    vsnprintf(buf, sizeof buf, detail, ap);
    va_end(ap);
    if (a->me == 0) {
        printf("%s: time %.6f s, rate %.6g %s", a->name, a->elapsed, rate, a->rate_unit);
        for (int i = 0; i < a->nmetrics; i++)
            printf(", %s %.6g %s", a->metric[i].name, a->metric[i].value, a->metric[i].unit);
        printf("\n%s: verification %s: %s\n", a->name, passed ? "PASSED" : "FAILED", buf);
        fflush(stdout);
        if (a->out_path)
            write_json(a, passed, rate, buf);
    }
    shmem_finalize();
    return passed ? 0 : 1;
}

/* ---- collectives ------------------------------------------------------------
 * 1.5: the team forms on SHMEM_TEAM_WORLD.  1.4: the active-set forms over
 * every PE; each kind alternates between two pSync arrays, so a call may
 * follow the previous one at once (the call in between proves that every
 * PE has left the one before). */
#if !APP_SHMEM_TEAMS
static long psync_reduce[2][SHMEM_REDUCE_SYNC_SIZE];
static long psync_collect[2][SHMEM_COLLECT_SYNC_SIZE];
static long psync_alltoall[2][SHMEM_ALLTOALL_SYNC_SIZE];
static int psync_turn[3];
static int psync_ready;
static double wrk_double[2][SHMEM_REDUCE_MIN_WRKDATA_SIZE + 1];
static long wrk_long[2][SHMEM_REDUCE_MIN_WRKDATA_SIZE + 1];

static void psync_init(void)
{
    if (psync_ready)
        return;
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
            psync_reduce[k][i] = SHMEM_SYNC_VALUE;
        for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++)
            psync_collect[k][i] = SHMEM_SYNC_VALUE;
        for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++)
            psync_alltoall[k][i] = SHMEM_SYNC_VALUE;
    }
    psync_ready = 1;
    shmem_barrier_all();     /* every PE's arrays are ready before anyone uses them */
}

static int turn(int kind)
{
    psync_init();
    return psync_turn[kind] ^= 1;
}
#endif

/* One reduction over every PE: the team form, or the active-set form with
 * its pWrk (the small static one, or a symmetric one for long arrays). */
#if APP_SHMEM_TEAMS
#define REDUCE(_type, _op, _dest, _source, _n, _small) \
    shmem_##_type##_##_op##_reduce(SHMEM_TEAM_WORLD, _dest, _source, _n)
#else
#define REDUCE(_type, _op, _dest, _source, _n, _small) do { \
        int t_ = turn(0); \
        _type *w_ = reduce_wrk(_n, sizeof(_type), (_small)[t_]); \
        shmem_##_type##_##_op##_to_all(_dest, _source, (int)(_n), 0, 0, shmem_n_pes(), w_, \
                                       psync_reduce[t_]); \
        if (w_ != (_small)[t_]) \
            shmem_free(w_); \
    } while (0)

/* pWrk of an n-element reduction: max(n/2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE)
 * elements; symmetric, so allocated collectively for long arrays. */
static void *reduce_wrk(size_t n, size_t elem, void *small)
{
    size_t need = n / 2 + 1;
    if (need <= SHMEM_REDUCE_MIN_WRKDATA_SIZE + 1)
        return small;
    return shmem_malloc(need * elem);
}
#endif

static double red_double[2];
static long red_long[2];

double app_max_double(double v)
{
    red_double[0] = v;
    REDUCE(double, max, &red_double[1], &red_double[0], 1, wrk_double);
    return red_double[1];
}

double app_sum_double(double v)
{
    red_double[0] = v;
    REDUCE(double, sum, &red_double[1], &red_double[0], 1, wrk_double);
    return red_double[1];
}

long app_sum_long(long v)
{
    red_long[0] = v;
    REDUCE(long, sum, &red_long[1], &red_long[0], 1, wrk_long);
    return red_long[1];
}

long app_max_long(long v)
{
    red_long[0] = v;
    REDUCE(long, max, &red_long[1], &red_long[0], 1, wrk_long);
    return red_long[1];
}

void app_sum_long_array(long *dest, const long *source, size_t n)
{
    REDUCE(long, sum, dest, source, n, wrk_long);
}

void app_sum_double_array(double *dest, const double *source, size_t n)
{
    REDUCE(double, sum, dest, source, n, wrk_double);
}

void app_collect(void *dest, const void *source, size_t bytes)
{
#if APP_SHMEM_TEAMS
    shmem_collectmem(SHMEM_TEAM_WORLD, dest, source, bytes);
#else
    int t = turn(1);
    shmem_collect64(dest, source, bytes / 8, 0, 0, shmem_n_pes(), psync_collect[t]);
#endif
}

void app_alltoall(void *dest, const void *source, size_t bytes)
{
#if APP_SHMEM_TEAMS
    shmem_alltoallmem(SHMEM_TEAM_WORLD, dest, source, bytes);
#else
    int t = turn(2);
    shmem_alltoall64(dest, source, bytes / 8, 0, 0, shmem_n_pes(), psync_alltoall[t]);
#endif
}

/* ---- record exchange --------------------------------------------------------- */

void app_exch_create(app_exch_t *x, const app_t *a, size_t rec, size_t recv_cap, size_t send_cap)
{
    memset(x, 0, sizeof *x);
    x->app = a;
    x->rec = rec;
    x->recv_cap = recv_cap ? recv_cap : 1;
    x->send_cap = send_cap ? send_cap : 1;
    for (int b = 0; b < 2; b++)
        x->recv[b] = app_malloc(a, x->recv_cap * rec, "the exchange's receive buffer");
    x->count = app_calloc(a, 2 * sizeof(long), "the exchange's counters");
    x->send = app_alloc(a, (size_t)a->npes * x->send_cap * rec, "the exchange's send buffers");
    x->send_n = app_alloc(a, (size_t)a->npes * sizeof(size_t), "the exchange's send counts");
    memset(x->send_n, 0, (size_t)a->npes * sizeof(size_t));
}

void app_exch_destroy(app_exch_t *x)
{
    shmem_barrier_all();     /* nobody still writes into the buffers */
    shmem_free(x->recv[0]);
    shmem_free(x->recv[1]);
    shmem_free(x->count);
    free(x->send);
    free(x->send_n);
}

static void exch_send(app_exch_t *x, int pe)
{
    size_t n = x->send_n[pe];
    if (!n)
        return;
    long at = shmem_long_atomic_fetch_add(&x->count[x->parity], (long)n, pe);
    if ((size_t)at + n > x->recv_cap)
        app_die(x->app, "exchange round %ld: PE %d receives more than the %zu records it has room "
                        "for (a bug in the kernel's bound)",
                x->rounds, pe, x->recv_cap);
    shmem_putmem(x->recv[x->parity] + (size_t)at * x->rec,
                 x->send + (size_t)pe * x->send_cap * x->rec, n * x->rec, pe);
    x->send_n[pe] = 0;
    x->sent += (long)n;
    x->puts++;
}

void *app_exch_slot(app_exch_t *x, int pe)
{
    if (x->send_n[pe] == x->send_cap)
        exch_send(x, pe);
    return x->send + ((size_t)pe * x->send_cap + x->send_n[pe]++) * x->rec;
}

size_t app_exch_round(app_exch_t *x, const void **recs_p)
{
    int npes = x->app->npes, me = x->app->me;
    /* start with the next PE, so that PEs do not all send to PE 0 first */
    for (int k = 1; k <= npes; k++)
        exch_send(x, (me + k) % npes);
    /* the buffer received two rounds ago has been read: free for the round
     * after this one, which nobody can start before the barrier below */
    x->count[x->parity ^ 1] = 0;
    shmem_barrier_all();
    size_t n = (size_t)x->count[x->parity];
    *recs_p = x->recv[x->parity];
    x->parity ^= 1;
    x->rounds++;
    return n;
}
