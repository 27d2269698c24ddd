/*
 * prof.c -- the built-in profile (prof.h, docs/profile.md): per-family
 * counters of this PE, and PE 0's table at finalize.
 *
 * Timed calls read the CPU's time-stamp counter where it is invariant (x86:
 * CPUID says it ticks at one rate in every power state): one instruction,
 * whatever clock source the kernel chose.  clock_gettime is a vDSO read
 * only while the kernel trusts its clock source; in a VM whose TSC it has
 * marked unstable it becomes a system call, 0.5-0.75 us here, twice a put.
 * Ticks are turned into nanoseconds at the report by the ratio of ticks to
 * CLOCK_MONOTONIC over the whole run.  Elsewhere calls use CLOCK_MONOTONIC.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define PROF_TSC 1
#else
#define PROF_TSC 0
#endif

#include "boot/boot.h"
#include "core/env.h"
#include "core/prof.h"
#include "core/state.h"
#include "util/log.h"

typedef struct {
    uint64_t calls, ns, bytes;
} prof_row_t;

/* What each PE sends PE 0 at finalize. */
typedef struct {
    prof_row_t row[SHR_PROF_COUNT];
    uint64_t wall_ns;     /* from the start of init to the end of finalize */
    uint64_t recorded_ns; /* of that, while recording (shmem_pcontrol) */
} prof_pe_t;

static const char *const family_name[SHR_PROF_COUNT] = {
#define SHR_PROF(_name, _text, _routines) _text,
#include "core/prof.def"
#undef SHR_PROF
};

static prof_pe_t mine;
static uint64_t mine_ticks[SHR_PROF_COUNT]; /* timed calls' time, in ticks() */
static uint64_t init_ns;
static int level;     /* SHIMMER_PROFILE for this init..finalize */
static int recording; /* level != off and not paused by shmem_pcontrol(0) */
static bool use_tsc;  /* ticks() reads the invariant TSC */
static uint64_t cal_ns, cal_ticks; /* both clocks at init: the calibration's start */
static uint64_t recording_since; /* CLOCK_MONOTONIC when recording last resumed */

uint64_t shr_prof_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool tsc_is_invariant(void)
{
#if PROF_TSC
    unsigned a, b, c, d;
    return __get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8)) != 0;
#else
    return false;
#endif
}

/* The clock of timed calls: TSC ticks, or nanoseconds without an invariant TSC. */
static inline uint64_t ticks(void)
{
#if PROF_TSC
    if (use_tsc) {
        return __rdtsc();
    }
#endif
    return shr_prof_now();
}

uint64_t shr_prof_begin(void)
{
    return __atomic_load_n(&recording, __ATOMIC_RELAXED) ? ticks() : 0;
}

static void record(shr_prof_family_t family, uint64_t *time, uint64_t t, size_t bytes)
{
    prof_row_t *row = &mine.row[family];
    __atomic_fetch_add(&row->calls, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(time, t, __ATOMIC_RELAXED);
    __atomic_fetch_add(&row->bytes, (uint64_t)bytes, __ATOMIC_RELAXED);
}

void shr_prof_end(shr_prof_family_t family, uint64_t t0, size_t bytes)
{
    if (t0 != 0) {
        uint64_t t1 = ticks();
        /* a thread moved to a CPU whose counter lags: count the call, not the time */
        record(family, &mine_ticks[family], t1 > t0 ? t1 - t0 : 0, bytes);
    }
}

int shr_prof_init(uint64_t t0)
{
    memset(&mine, 0, sizeof(mine));
    memset(mine_ticks, 0, sizeof(mine_ticks));
    init_ns = t0;
    level = shr_config.profile;
    use_tsc = level != SHR_PROFILE_OFF && tsc_is_invariant();
    cal_ticks = ticks();
    cal_ns = shr_prof_now();
    recording = level != SHR_PROFILE_OFF;
    recording_since = cal_ns;
    if (recording) {
        record(SHR_PROF_INIT, &mine.row[SHR_PROF_INIT].ns, cal_ns - t0, 0);
    }
    return level != SHR_PROFILE_OFF;
}

/* The timed calls' ticks into the rows' nanoseconds, by the ratio of the
 * two clocks since init (`now`: CLOCK_MONOTONIC at the report). */
static void ticks_to_ns(uint64_t now)
{
    uint64_t elapsed = ticks() - cal_ticks;
    double ns_per_tick = !use_tsc ? 1.0 : elapsed > 0 ? (double)(now - cal_ns) / (double)elapsed : 0.0;
    for (int f = 0; f < SHR_PROF_COUNT; f++) {
        mine.row[f].ns += (uint64_t)((double)mine_ticks[f] * ns_per_tick + 0.5);
    }
}

void shr_prof_pcontrol(int pc_level)
{
    /* the spec's levels: 0 off, 1 on, 2 and up more detail; negative ones
     * belong to tools */
    if (level == SHR_PROFILE_OFF || pc_level < 0) {
        return;
    }
    /* the recorded time: what a program that profiles one region (pauses
     * after init, resumes at the region's start, pauses at its end)
     * compares the families with; pcontrol is called from one thread */
    int was = __atomic_exchange_n(&recording, pc_level > 0, __ATOMIC_RELAXED);
    if (!was && pc_level > 0) {
        recording_since = shr_prof_now();
    } else if (was && pc_level == 0) {
        mine.recorded_ns += shr_prof_now() - recording_since;
    }
}

typedef struct {
    double min, mean, max;
} stat_t;

/* min / mean / max over the PEs of one counter (`pick` selects it). */
static stat_t over_pes(const prof_pe_t *all, int n, uint64_t (*pick)(const prof_pe_t *, int),
                       int family)
{
    stat_t s = {0, 0, 0};
    for (int pe = 0; pe < n; pe++) {
        double v = (double)pick(&all[pe], family);
        s.min = pe == 0 || v < s.min ? v : s.min;
        s.max = pe == 0 || v > s.max ? v : s.max;
        s.mean += v / n;
    }
    return s;
}

static uint64_t pick_calls(const prof_pe_t *p, int f) { return p->row[f].calls; }
static uint64_t pick_ns(const prof_pe_t *p, int f) { return p->row[f].ns; }
static uint64_t pick_bytes(const prof_pe_t *p, int f) { return p->row[f].bytes; }
static uint64_t pick_wall(const prof_pe_t *p, int f) { (void)f; return p->wall_ns; }
static uint64_t pick_recorded(const prof_pe_t *p, int f) { (void)f; return p->recorded_ns; }

static void print_table(FILE *out, const prof_pe_t *all, int n, bool per_pe)
{
    stat_t wall = over_pes(all, n, pick_wall, 0);
    stat_t recorded = over_pes(all, n, pick_recorded, 0);

    fprintf(out, "shimmer profile: %d PEs, %.6f s from init to finalize, %.6f s recorded "
                 "(shmem_pcontrol; means over PEs); per PE, min / mean / max over the PEs\n", n,
            wall.mean / 1e9, recorded.mean / 1e9);
    fprintf(out, "%-10s %10s %12s %10s  %11s %11s %11s %6s  %14s %16s %14s\n", "family",
            "calls.min", "calls.mean", "calls.max", "time.min_s", "time.mean_s", "time.max_s",
            "%wall", "bytes.min", "bytes.mean", "bytes.max");
    for (int f = 0; f < SHR_PROF_COUNT; f++) {
        stat_t calls = over_pes(all, n, pick_calls, f);
        if (calls.max == 0) {
            continue;
        }
        stat_t ns = over_pes(all, n, pick_ns, f), bytes = over_pes(all, n, pick_bytes, f);
        fprintf(out, "%-10s %10.0f %12.1f %10.0f  %11.6f %11.6f %11.6f %5.1f%%  %14.0f %16.1f "
                     "%14.0f\n", family_name[f], calls.min, calls.mean, calls.max,
                ns.min / 1e9, ns.mean / 1e9, ns.max / 1e9,
                wall.mean > 0 ? 100.0 * ns.mean / wall.mean : 0.0, bytes.min, bytes.mean,
                bytes.max);
    }
    if (!per_pe) {
        return;
    }
    fprintf(out, "shimmer profile per PE:\n%-6s %-10s %10s %11s %14s\n", "pe", "family", "calls",
            "time_s", "bytes");
    for (int pe = 0; pe < n; pe++) {
        for (int f = 0; f < SHR_PROF_COUNT; f++) {
            const prof_row_t *row = &all[pe].row[f];
            if (row->calls != 0) {
                fprintf(out, "%-6d %-10s %10llu %11.6f %14llu\n", pe, family_name[f],
                        (unsigned long long)row->calls, row->ns / 1e9,
                        (unsigned long long)row->bytes);
            }
        }
    }
}

void shr_prof_report(uint64_t t0)
{
    if (level == SHR_PROFILE_OFF) {
        return;
    }
    uint64_t now = shr_prof_now();
    if (__atomic_exchange_n(&recording, 0, __ATOMIC_RELAXED)) {
        mine.recorded_ns += now - recording_since;
    }
    ticks_to_ns(now);
    record(SHR_PROF_FINALIZE, &mine.row[SHR_PROF_FINALIZE].ns, now - t0, 0);
    mine.wall_ns = now - init_ns;
    bool per_pe = level == SHR_PROFILE_PE;
    level = SHR_PROFILE_OFF;

    prof_pe_t *all = calloc((size_t)shr_g.n_pes, sizeof(*all));
    if (all == NULL || shr_boot_allgather(&mine, all, sizeof(mine)) != SHR_OK) {
        shr_warn("shmem_finalize: SHIMMER_PROFILE: cannot gather the PEs' counters; no profile");
        free(all);
        return;
    }
    if (shr_g.my_pe == 0) {
        const char *path = shr_config.profile_file;
        FILE *out = path[0] != '\0' ? fopen(path, "w") : stderr;
        if (out == NULL) {
            shr_warn("shmem_finalize: SHIMMER_PROFILE_FILE %s: %m; the profile goes to stderr",
                     path);
            out = stderr;
        }
        print_table(out, all, shr_g.n_pes, per_pe);
        if (out != stderr) {
            fclose(out);
        } else {
            fflush(out);
        }
    }
    free(all);
}
