/*
 * bench.c - harness shared by every benchmark and machine-limit probe.
 * See bench.h for the contract and docs/bench.md for the output format.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOSTINFO_LEN 192

/* ---- small helpers ------------------------------------------------------ */

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

static void json_num(FILE *f, double v)
{
    if (v != v || v > 1e300 || v < -1e300)
        fputs("null", f);      /* JSON has no NaN/Inf */
    else
        fprintf(f, "%.6g", v);
}

/* Parses "4", "64k", "4M", "1G" (binary multiples, as OSU and the spec do). */
static bool parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return false;
    switch (tolower((unsigned char)*end)) {
    case 'k': v <<= 10; end++; break;
    case 'm': v <<= 20; end++; break;
    case 'g': v <<= 30; end++; break;
    default: break;
    }
    if (*end == 'i' || *end == 'I')
        end++;
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end)
        return false;
    *out = (size_t)v;
    return true;
}

static int parse_list(const char *s, long *out, int max)
{
    int n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && n < max;
         tok = strtok_r(NULL, ",", &save)) {
        size_t v;
        if (!parse_size(tok, &v))
            return -1;
        out[n++] = (long)v;
    }
    return n;
}

static void read_cpu_model(char *out, size_t len)
{
    snprintf(out, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *p = strchr(line, ':');
            if (p) {
                p++;
                while (*p == ' ')
                    p++;
                p[strcspn(p, "\n")] = 0;
                snprintf(out, len, "%s", p);
            }
            break;
        }
    }
    fclose(f);
}

static long read_meminfo_kib(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    long kib = -1;
    if (!f)
        return -1;
    if (fscanf(f, "MemTotal: %ld kB", &kib) != 1)
        kib = -1;
    fclose(f);
    return kib;
}

/* "0-1" style list of the CPUs this process may run on. */
static void affinity_string(char *out, size_t len)
{
    cpu_set_t set;
    out[0] = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(out, len, "?");
        return;
    }
    size_t used = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
            e++;
        used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%d", used ? "," : "", c);
        if (e > c)
            used += (size_t)snprintf(out + used, used < len ? len - used : 0, "-%d", e);
        c = e;
    }
}

/* ---- the flavour: who the processes are and how they meet ----------------
 * OpenSHMEM (the drivers), MPI (-DBENCH_MPI: bench/mpi/) or one plain
 * process (-DBENCH_NO_SHMEM: the limit probes).  Nothing else in this file
 * depends on the flavour. */

static void flavour_init(bench_t *b, int *argc, char ***argv)
{
#if defined(BENCH_MPI)
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &b->me);
    MPI_Comm_size(MPI_COMM_WORLD, &b->npes);
    b->thread_provided = -1;
#elif !defined(BENCH_NO_SHMEM)
    (void)argc, (void)argv;
    if (b->info->thread_level) {
        shmem_init_thread(b->info->thread_level, &b->thread_provided);
    } else {
        shmem_init();
        b->thread_provided = -1;
    }
    b->me = shmem_my_pe();
    b->npes = shmem_n_pes();
    /* scratch for gathers: a double or a host line from every PE */
    b->gather = shmem_malloc((size_t)b->npes * HOSTINFO_LEN);
    if (!b->gather)
        bench_die(b, "shmem_malloc of %zu bytes failed", (size_t)b->npes * HOSTINFO_LEN);
#else
    (void)argc, (void)argv;
    b->me = 0;
    b->npes = 1;
#endif
}

void bench_barrier(bench_t *b)
{
    (void)b;
#if defined(BENCH_MPI)
    MPI_Barrier(MPI_COMM_WORLD);
#elif !defined(BENCH_NO_SHMEM)
    shmem_barrier_all();
#endif
}

/* Collective: `len` (<= HOSTINFO_LEN) bytes from every PE into all[npes * len] on PE 0. */
static void flavour_gather(bench_t *b, const void *mine, size_t len, void *all)
{
#if defined(BENCH_MPI)
    (void)b;
    MPI_Gather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
#elif !defined(BENCH_NO_SHMEM)
    char *scratch = b->gather;
    shmem_barrier_all();
    shmem_putmem(scratch + (size_t)b->me * len, mine, len, 0);
    shmem_barrier_all();
    if (b->me == 0)
        memcpy(all, scratch, (size_t)b->npes * len);
    shmem_barrier_all();
#else
    (void)b;
    memcpy(all, mine, len);
#endif
}

static void flavour_fini(bench_t *b)
{
    (void)b;
#if defined(BENCH_MPI)
    MPI_Finalize();
#elif !defined(BENCH_NO_SHMEM)
    shmem_free(b->gather);
    shmem_finalize();
#endif
}

static void flavour_abort(void)
{
#if defined(BENCH_MPI)
    MPI_Abort(MPI_COMM_WORLD, 1);
#elif !defined(BENCH_NO_SHMEM)
    shmem_global_exit(1);
#endif
}

/* 4 KiB-aligned memory of n bytes: symmetric for OpenSHMEM, private otherwise. */
static void *flavour_alloc(bench_t *b, size_t n)
{
#if !defined(BENCH_NO_SHMEM)
    void *p = shmem_align(4096, n);
    if (!p)
        bench_die(b, "shmem_align(4096, %zu) failed; raise SHMEM_SYMMETRIC_SIZE", n);
#else
    void *p = NULL;
    if (posix_memalign(&p, 4096, n))
        bench_die(b, "posix_memalign(%zu) failed", n);
#endif
    return p;
}

/* The header's "impl" fields after the label: what the library says it is. */
static void flavour_impl_json(bench_t *b, FILE *f)
{
#if defined(BENCH_MPI)
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0, major = 0, minor = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n,")] = 0;            /* "Open MPI v4.1.4" */
    MPI_Get_version(&major, &minor);
    fputs(",\"api\":\"MPI\",\"name\":", f);
    json_str(f, lib);
    fprintf(f, ",\"spec\":\"%d.%d\"", major, minor);
    (void)b;
#elif !defined(BENCH_NO_SHMEM)
    char name[SHMEM_MAX_NAME_LEN + 1] = "";
    int major = 0, minor = 0;
    shmem_info_get_name(name);
    shmem_info_get_version(&major, &minor);
    fputs(",\"api\":\"OpenSHMEM\",\"name\":", f);
    json_str(f, name);
    fprintf(f, ",\"spec\":\"%d.%d\",\"header_spec\":\"%d.%d\"", major, minor,
            SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    fprintf(f, ",\"thread_provided\":%d", b->thread_provided);
#else
    (void)b;
    fputs(",\"name\":\"none (machine limit)\"", f);
#endif
}

/* ---- options ------------------------------------------------------------ */

static void usage(const bench_info_t *info, FILE *f)
{
    fprintf(f,
        "usage: %s [options]   (%s)\n"
        "  -m, --sizes MIN:MAX   size sweep in bytes, k/M suffixes (default %zu:%zu),\n"
        "                        or an increasing list: 8,4k,1M\n"
        "  -i, --iters N         iterations at small sizes (default %ld)\n"
        "  -w, --warmup N        warm-up iterations (default iters/10, at least 2)\n"
        "  -b, --budget BYTES    bytes per point; large sizes run budget/size iterations\n"
        "  -W, --window LIST     window sizes, comma separated\n"
        "  -t, --threads LIST    thread counts, comma separated\n"
        "  -x, --ops LIST        operations / collectives to run, comma separated, or all\n"
        "  -T, --type NAME       element type or variant (amo: int or long; coll: team;\n"
        "                        req -x issue: private, shared or single; memcpy_bw:\n"
        "                        memcpy, word, vec64, pieces or movsb)\n"
        "  -g, --global          buffers in static (global) arrays instead of shmem_malloc\n"
        "  -a, --skew BYTES      the destination buffer starts BYTES (< 4096) past its\n"
        "                        source's 4 KiB alignment (put_bw, get_bw, memcpy_bw)\n"
        "  -o, --out FILE        write results to FILE (default stdout)\n"
        "  -f, --format FMT      json (JSON lines, default) or csv\n"
        "  -q, --quick           tiny sizes and iterations (smoke test)\n"
        "  -s, --skip-points N   skip the first N points (resume after a crash)\n"
        "  -l, --label NAME      implementation label recorded in the header\n",
        info->name, info->title, info->min_size, info->max_size, info->iters);
}

static void parse_opts(bench_t *b, int argc, char **argv)
{
    const bench_info_t *info = b->info;
    bench_opts_t *o = &b->opt;
    static const struct option longopts[] = {
        {"sizes", 1, 0, 'm'},   {"iters", 1, 0, 'i'},  {"warmup", 1, 0, 'w'},
        {"budget", 1, 0, 'b'},  {"window", 1, 0, 'W'}, {"threads", 1, 0, 't'},
        {"ops", 1, 0, 'x'},     {"type", 1, 0, 'T'},   {"global", 0, 0, 'g'},
        {"skew", 1, 0, 'a'},
        {"out", 1, 0, 'o'},     {"format", 1, 0, 'f'}, {"quick", 0, 0, 'q'},
        {"skip-points", 1, 0, 's'}, {"label", 1, 0, 'l'}, {"help", 0, 0, 'h'},
        {0, 0, 0, 0}};
    bool sizes_given = false, iters_given = false;

    memset(o, 0, sizeof *o);
    o->min_size = info->min_size;
    o->max_size = info->max_size;
    o->iters = info->iters;
    o->warmup = -1;
    o->budget = info->budget ? info->budget : ((size_t)256 << 20);
    snprintf(o->ops, sizeof o->ops, "%s", info->ops ? info->ops : "all");
    snprintf(o->type, sizeof o->type, "long");
    o->windows[0] = 64;
    o->nwindows = 1;
    if (info->windows)
        o->nwindows = parse_list(info->windows, o->windows, BENCH_MAX_LIST);
    o->threads[0] = 1;
    o->nthreads = 1;

    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "m:i:w:b:W:t:x:T:ga:o:f:qs:l:h", longopts, NULL)) != -1) {
        bool ok = true;
        char *colon;
        size_t v;
        switch (c) {
        case 'm':
            colon = strchr(optarg, ':');
            if (strchr(optarg, ',')) {
                long tmp[BENCH_MAX_LIST];
                int n = parse_list(optarg, tmp, BENCH_MAX_LIST);
                ok = n > 0;
                o->nsizes = n > 0 ? n : 0;
                for (int i = 0; i < o->nsizes; i++) {
                    o->sizes[i] = (size_t)tmp[i];
                    ok = ok && (i == 0 || o->sizes[i] > o->sizes[i - 1]);
                }
                if (ok) {
                    o->min_size = o->sizes[0];
                    o->max_size = o->sizes[o->nsizes - 1];
                }
            } else if (colon) {
                *colon = 0;
                ok = parse_size(optarg, &o->min_size) && parse_size(colon + 1, &o->max_size);
            } else {
                ok = parse_size(optarg, &o->min_size);
                o->max_size = o->min_size;
            }
            ok = ok && o->min_size <= o->max_size;
            sizes_given = true;
            break;
        case 'i': ok = parse_size(optarg, &v) && v > 0; o->iters = (long)v; iters_given = true; break;
        case 'w': ok = parse_size(optarg, &v); o->warmup = (long)v; break;
        case 'b': ok = parse_size(optarg, &o->budget) && o->budget > 0; break;
        case 'W': ok = (o->nwindows = parse_list(optarg, o->windows, BENCH_MAX_LIST)) > 0; break;
        case 't': ok = (o->nthreads = parse_list(optarg, o->threads, BENCH_MAX_LIST)) > 0; break;
        case 'x': snprintf(o->ops, sizeof o->ops, "%s", optarg); break;
        case 'T': snprintf(o->type, sizeof o->type, "%s", optarg); break;
        case 'g': o->global = true; break;
        case 'a': ok = parse_size(optarg, &o->skew) && o->skew < 4096; break;
        case 'o': o->out_path = optarg; break;
        case 'f':
            ok = !strcmp(optarg, "csv") || !strcmp(optarg, "json");
            o->csv = !strcmp(optarg, "csv");
            break;
        case 'q': o->quick = true; break;
        case 's': ok = parse_size(optarg, &v); o->skip_points = (long)v; break;
        case 'l': snprintf(o->label, sizeof o->label, "%s", optarg); break;
        case 'h': usage(info, stdout); exit(0);
        default: ok = false; break;
        }
        if (!ok) {
            if (b->me == 0) {
                fprintf(stderr, "%s: bad option -%c%s%s\n", info->name, c, optarg ? " " : "",
                        optarg ? optarg : "");
                usage(info, stderr);
            }
            exit(2);
        }
    }
    if (o->quick) {
        /* Smoke test: a handful of iterations over small sizes. */
        if (!sizes_given) {
            if (o->min_size > 64)
                o->min_size = 64;
            if (o->max_size > 4096)
                o->max_size = o->min_size > 4096 ? o->min_size : 4096;
        }
        if (!iters_given)
            o->iters = 20;
        if (o->warmup < 0)
            o->warmup = 2;
    }
    if (o->min_size == 0 && o->max_size > 0)
        o->min_size = 1;
}

/* ---- header ------------------------------------------------------------- */

static void write_header(bench_t *b, const char *hostinfo)
{
    FILE *f = b->out;
    struct utsname u;
    char cpu[256];
    const bench_info_t *info = b->info;

    uname(&u);
    read_cpu_model(cpu, sizeof cpu);

    if (b->opt.csv) {
        fprintf(f, "# %s: %s\n# impl: %s\n# host: %s, %s %s, %s, %ld online cpus\n# npes: %d\n",
                info->name, info->title, b->opt.label, u.nodename, u.sysname, u.release, cpu,
                sysconf(_SC_NPROCESSORS_ONLN), b->npes);
        fflush(f);
        return;
    }
    fprintf(f, "{\"type\":\"header\",\"schema\":%d,\"bench\":", BENCH_SCHEMA);
    json_str(f, info->name);
    fputs(",\"title\":", f);
    json_str(f, info->title);

    /* columns: "name:unit ..." -> {"name":"unit",...} in order */
    fputs(",\"columns\":[", f);
    {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", info->columns);
        int n = 0;
        for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
            char *colon = strchr(tok, ':');
            if (colon)
                *colon++ = 0;
            fprintf(f, "%s[", n++ ? "," : "");
            json_str(f, tok);
            fputc(',', f);
            json_str(f, colon ? colon : "");
            fputc(']', f);
        }
    }
    fputc(']', f);

    fputs(",\"impl\":{\"label\":", f);
    json_str(f, b->opt.label);
    flavour_impl_json(b, f);
    fputc('}', f);

    fputs(",\"machine\":{\"hostname\":", f);
    json_str(f, u.nodename);
    fputs(",\"os\":", f);
    {
        char os[400];
        snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
        json_str(f, os);
    }
    fputs(",\"cpu\":", f);
    json_str(f, cpu);
    fprintf(f, ",\"online_cpus\":%ld,\"mem_kib\":%ld}", sysconf(_SC_NPROCESSORS_ONLN),
            read_meminfo_kib());

    fputs(",\"build\":{\"compiler\":", f);
#ifdef __VERSION__
    json_str(f, __VERSION__);
#else
    json_str(f, "unknown");
#endif
#ifdef __OPTIMIZE__
    fputs(",\"optimized\":true", f);
#else
    fputs(",\"optimized\":false", f);
#endif
    fprintf(f, ",\"shmem\":%s}", 
#ifdef BENCH_NO_SHMEM
            "false"
#else
            "true"
#endif
    );

    fprintf(f, ",\"layout\":{\"npes\":%d,\"pes\":[", b->npes);
    int nodes = 0;
    for (int pe = 0; pe < b->npes; pe++) {
        const char *hi = hostinfo + (size_t)pe * HOSTINFO_LEN;
        char host[HOSTINFO_LEN], cpus[HOSTINFO_LEN];
        const char *bar = strchr(hi, '|');
        size_t hl = bar ? (size_t)(bar - hi) : strlen(hi);
        snprintf(host, sizeof host, "%.*s", (int)hl, hi);
        snprintf(cpus, sizeof cpus, "%s", bar ? bar + 1 : "?");
        bool seen = false;
        for (int q = 0; q < pe && !seen; q++)
            seen = strncmp(hostinfo + (size_t)q * HOSTINFO_LEN, hi, hl + 1) == 0;
        nodes += !seen;
        fprintf(f, "%s{\"pe\":%d,\"host\":", pe ? "," : "", pe);
        json_str(f, host);
        fputs(",\"cpus\":", f);
        json_str(f, cpus);
        fputc('}', f);
    }
    fprintf(f, "],\"nodes\":%d}", nodes);

    const bench_opts_t *o = &b->opt;
    fprintf(f, ",\"options\":{\"min_size\":%zu,\"max_size\":%zu,\"iters\":%ld,\"warmup\":%ld,"
               "\"budget\":%zu,\"global\":%s,\"skew\":%zu,\"quick\":%s,\"skip_points\":%ld,\"ops\":",
            o->min_size, o->max_size, o->iters, o->warmup, o->budget, o->global ? "true" : "false",
            o->skew, o->quick ? "true" : "false", o->skip_points);
    json_str(f, o->ops);
    fputs(",\"type\":", f);
    json_str(f, o->type);
    fputs(",\"windows\":[", f);
    for (int i = 0; i < o->nwindows; i++)
        fprintf(f, "%s%ld", i ? "," : "", o->windows[i]);
    fputs("],\"threads\":[", f);
    for (int i = 0; i < o->nthreads; i++)
        fprintf(f, "%s%ld", i ? "," : "", o->threads[i]);
    fputs("]}", f);

    fputs(",\"timer\":\"clock_gettime(CLOCK_MONOTONIC)\"}\n", f);
    fflush(f);
}

/* ---- life cycle --------------------------------------------------------- */

void bench_init(bench_t *b, const bench_info_t *info, int argc, char **argv)
{
    memset(b, 0, sizeof *b);
    b->info = info;
    flavour_init(b, &argc, &argv);
    parse_opts(b, argc, argv);

    /* Who runs where: "host|cpus" of every PE, gathered on PE 0. */
    char mine[HOSTINFO_LEN], host[128] = "?", cpus[HOSTINFO_LEN];
    gethostname(host, sizeof host - 1);
    affinity_string(cpus, sizeof cpus);
    snprintf(mine, sizeof mine, "%.100s|%.80s", host, cpus);
    char *hostinfo = b->me == 0 ? malloc((size_t)b->npes * HOSTINFO_LEN) : NULL;
    if (b->me == 0 && !hostinfo)
        bench_die(b, "malloc of %zu bytes failed", (size_t)b->npes * HOSTINFO_LEN);
    flavour_gather(b, mine, HOSTINFO_LEN, hostinfo);

    if (b->npes < info->min_pes) {
        if (b->me == 0)
            fprintf(stderr, "%s: needs at least %d PEs, got %d\n", info->name, info->min_pes, b->npes);
        exit(2);
    }

    if (b->me == 0) {
        if (b->opt.out_path) {
            b->out = fopen(b->opt.out_path, "w");
            if (!b->out)
                bench_die(b, "cannot open %s: %s", b->opt.out_path, strerror(errno));
        } else {
            b->out = stdout;
        }
        write_header(b, hostinfo);
    }
    free(hostinfo);
    bench_barrier(b);
}

static void write_end(bench_t *b, const char *status, const char *why)
{
    if (!b->out || b->ended)
        return;
    b->ended = true;
    if (b->opt.csv) {
        fprintf(b->out, "# end: %s%s%s\n", status, why ? ": " : "", why ? why : "");
    } else {
        fputs("{\"type\":\"end\",\"status\":", b->out);
        json_str(b->out, status);
        if (why) {
            fputs(",\"reason\":", b->out);
            json_str(b->out, why);
        }
        fputs("}\n", b->out);
    }
    fflush(b->out);
}

int bench_fini(bench_t *b, const char *status)
{
    /* The end record is written before finalize: a crash inside finalize
     * (a known fault of some peers) must not cost the figures. */
    bench_barrier(b);
    write_end(b, status ? status : "ok", NULL);
    if (b->out && b->out != stdout)
        fclose(b->out);
    b->out = NULL;
    flavour_fini(b);
    return 0;
}

int bench_unsupported(bench_t *b, const char *why)
{
    write_end(b, "unsupported", why);
    return bench_fini(b, NULL);
}

void bench_die(bench_t *b, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: PE %d: %s\n", b->info ? b->info->name : "bench", b->me, msg);
    write_end(b, "error", msg);
    flavour_abort();
    exit(1);
}

/* ---- sweep -------------------------------------------------------------- */

static long sweep_iters(const bench_t *b, size_t bytes, long iters, long min_iters, size_t budget)
{
    long it = iters;
    if (bytes > 0 && budget / bytes < (size_t)it)
        it = (long)(budget / bytes);
    long lo = min_iters > 0 ? min_iters : 10;
    if (b->opt.quick && lo > 5)
        lo = 5;
    if (it < lo)
        it = lo;
    return it;
}

long bench_iters(const bench_t *b, size_t bytes)
{
    return sweep_iters(b, bytes, b->opt.iters, b->info->min_iters, b->opt.budget);
}

long bench_iters_like(const bench_t *b, size_t bytes, const bench_info_t *like)
{
    long iters = b->opt.quick ? b->opt.iters : like->iters;
    return sweep_iters(b, bytes, iters, like->min_iters, like->budget);
}

long bench_warmup(const bench_t *b, long iters)
{
    if (b->opt.warmup >= 0)
        return b->opt.warmup;
    long w = iters / 10;
    return w < 2 ? 2 : w;
}

size_t bench_next_size(const bench_t *b, size_t size)
{
    if (b->opt.nsizes > 0) {
        for (int i = 0; i < b->opt.nsizes; i++)
            if (b->opt.sizes[i] > size)
                return b->opt.sizes[i];
        return 0;
    }
    size_t next = size ? size * 2 : 1;
    return next > b->opt.max_size ? 0 : next;
}

bool bench_point(bench_t *b, const char *fmt, ...)
{
    long idx = b->point++;
    if (idx < b->opt.skip_points)
        return false;
    if (b->out && !b->opt.csv) {
        char label[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(label, sizeof label, fmt, ap);
        va_end(ap);
        fprintf(b->out, "{\"type\":\"point\",\"index\":%ld,\"label\":", idx);
        json_str(b->out, label);
        fputs("}\n", b->out);
        fflush(b->out);
    }
    return true;
}

bool bench_has_op(const bench_t *b, const char *name)
{
    const char *s = b->opt.ops;
    size_t n = strlen(name);
    if (!strcmp(s, "all"))
        return true;
    while (*s) {
        size_t len = strcspn(s, ",");
        if (len == n && !strncmp(s, name, n))
            return true;
        s += len;
        if (*s == ',')
            s++;
    }
    return false;
}

/* ---- memory ------------------------------------------------------------- */

void bench_set_global_pool(bench_t *b, void *pool, size_t size)
{
    b->pool = pool;
    b->pool_size = size;
    b->pool_used = 0;
}

void *bench_sym_alloc(bench_t *b, size_t bytes)
{
    size_t n = (bytes + 4095) & ~(size_t)4095;
    if (n == 0)
        n = 4096;
    if (b->opt.global) {
        if (!b->pool)
            bench_die(b, "--global is not supported by this benchmark");
        uintptr_t base = ((uintptr_t)b->pool + 4095) & ~(uintptr_t)4095;
        size_t off = (size_t)(base - (uintptr_t)b->pool) + b->pool_used;
        if (off + n > b->pool_size)
            bench_die(b, "--global: static pool of %zu bytes is too small for %zu more; use a smaller -m",
                      b->pool_size, n);
        b->pool_used += n;
        return b->pool + off;
    }
    return flavour_alloc(b, n);
}

static inline unsigned char pattern_byte(size_t k, unsigned seed)
{
    return (unsigned char)(((k * 131u) + seed * 7u + (k >> 8)) ^ 0x5a);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_quantile(double *v, long n, double q)
{
    if (n < 1)
        return 0;
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    double pos = q * (double)(n - 1);
    long i = (long)pos;
    return i + 1 < n ? v[i] + (pos - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

void bench_span_add(bench_span_t *s, double start_us, double end_us)
{
    if (s->n == 0 || start_us < s->first)
        s->first = start_us;
    if (s->n == 0 || end_us > s->last)
        s->last = end_us;
    s->n++;
}

double bench_span_us(const bench_span_t *s)
{
    return s->n ? s->last - s->first : 0;
}

long bench_proc_kib(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':') {
            v = strtol(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

void bench_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t k = 0; k < n; k++)
        p[k] = pattern_byte(k, seed);
}

bool bench_check(const void *buf, size_t n, unsigned seed)
{
    const unsigned char *p = buf;
    for (size_t k = 0; k < n; k++)
        if (p[k] != pattern_byte(k, seed))
            return false;
    return true;
}

/* ---- across PEs --------------------------------------------------------- */

void bench_gather(bench_t *b, double v, double *out)
{
    flavour_gather(b, &v, sizeof v, out);
}

bool bench_all_ok(bench_t *b, bool ok)
{
    double v[b->npes];
    bench_gather(b, ok ? 1.0 : 0.0, v);
    bool all = true;
    if (b->me == 0)
        for (int pe = 0; pe < b->npes; pe++)
            all = all && v[pe] == 1.0;
    return all;
}

/* ---- rows --------------------------------------------------------------- */

void bench_row_begin(bench_t *b)
{
    if (!b->out)
        return;
    b->row_open = true;
    b->row_ncols = 0;
    b->csv_names[0] = b->csv_vals[0] = 0;
    if (!b->opt.csv)
        fprintf(b->out, "{\"type\":\"row\",\"point\":%ld", b->point - 1);
}

/* "type" and "point" belong to the record itself. */
static void check_col_name(bench_t *b, const char *name)
{
    if (!strcmp(name, "type") || !strcmp(name, "point"))
        bench_die(b, "column name \"%s\" is reserved", name);
}

static void csv_add(bench_t *b, const char *name, const char *val)
{
    size_t nl = strlen(b->csv_names), vl = strlen(b->csv_vals);
    snprintf(b->csv_names + nl, sizeof b->csv_names - nl, "%s%s", b->row_ncols ? "," : "", name);
    snprintf(b->csv_vals + vl, sizeof b->csv_vals - vl, "%s%s", b->row_ncols ? "," : "", val);
    b->row_ncols++;
}

void bench_col_int(bench_t *b, const char *name, long long v)
{
    if (!b->out)
        return;
    check_col_name(b, name);
    if (b->opt.csv) {
        char s[32];
        snprintf(s, sizeof s, "%lld", v);
        csv_add(b, name, s);
        return;
    }
    fputc(',', b->out);
    json_str(b->out, name);
    fprintf(b->out, ":%lld", v);
}

void bench_col_num(bench_t *b, const char *name, double v)
{
    if (!b->out)
        return;
    check_col_name(b, name);
    if (b->opt.csv) {
        char s[40];
        snprintf(s, sizeof s, "%.6g", v);
        csv_add(b, name, s);
        return;
    }
    fputc(',', b->out);
    json_str(b->out, name);
    fputc(':', b->out);
    json_num(b->out, v);
}

void bench_col_str(bench_t *b, const char *name, const char *v)
{
    if (!b->out)
        return;
    check_col_name(b, name);
    if (b->opt.csv) {
        csv_add(b, name, v);
        return;
    }
    fputc(',', b->out);
    json_str(b->out, name);
    fputc(':', b->out);
    json_str(b->out, v);
}

void bench_col_bool(bench_t *b, const char *name, bool v)
{
    if (!b->out)
        return;
    check_col_name(b, name);
    if (b->opt.csv) {
        csv_add(b, name, v ? "true" : "false");
        return;
    }
    fputc(',', b->out);
    json_str(b->out, name);
    fputs(v ? ":true" : ":false", b->out);
}

void bench_row_end(bench_t *b)
{
    if (!b->out || !b->row_open)
        return;
    b->row_open = false;
    if (b->opt.csv) {
        if (strcmp(b->csv_names, b->csv_last)) {
            fprintf(b->out, "%s\n", b->csv_names);
            snprintf(b->csv_last, sizeof b->csv_last, "%s", b->csv_names);
        }
        fprintf(b->out, "%s\n", b->csv_vals);
    } else {
        fputs("}\n", b->out);
    }
    fflush(b->out);
}

void bench_note(bench_t *b, const char *fmt, ...)
{
    if (!b->out)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (b->opt.csv) {
        fprintf(b->out, "# note: %s\n", msg);
    } else {
        fprintf(b->out, "{\"type\":\"note\",\"point\":%ld,\"text\":", b->point - 1);
        json_str(b->out, msg);
        fputs("}\n", b->out);
    }
    fflush(b->out);
}

/* ---- machine-limit probes ------------------------------------------------ */

/* Pins the calling process to the side-th allowed CPU of `allowed`. */
static void pin_side(const cpu_set_t *allowed, int side)
{
    int seen = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, allowed) && seen++ == side) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            sched_setaffinity(0, sizeof one, &one);
            return;
        }
}

bool bench_fork_pair(void *shared, void (*fn)(int side, void *shared, void *arg), void *arg,
                     bool pin, bool *pinned_p)
{
    cpu_set_t allowed;
    bool can_pin = pin && sched_getaffinity(0, sizeof allowed, &allowed) == 0 &&
                   CPU_COUNT(&allowed) >= 2;
    if (pinned_p)
        *pinned_p = can_pin;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        if (can_pin)
            pin_side(&allowed, 1);
        fn(1, shared, arg);
        _exit(0);
    }
    if (can_pin)
        pin_side(&allowed, 0);
    fn(0, shared, arg);
    int st = 0;
    pid_t w = waitpid(pid, &st, 0);
    if (can_pin)
        sched_setaffinity(0, sizeof allowed, &allowed);   /* the next pair starts from the full set */
    return w == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}
