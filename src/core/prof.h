/*
 * prof.h -- the built-in profile (SHIMMER_PROFILE, docs/profile.md): calls,
 * time and bytes per routine family (prof.def), printed by PE 0 at finalize
 * as min / mean / max over the PEs.
 *
 * Costs nothing when off: profiling raises the argument-check gate
 * (shr_g.check_gate), so a profiled call leaves the fast path through the
 * branch every routine already has and is timed on the gated path
 * (src/api: SHR_API_TIMED).  Recording is thread-safe (relaxed atomic adds).
 */
#ifndef SHR_PROF_H
#define SHR_PROF_H

#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

typedef enum {
#define SHR_PROF(_name, _text, _routines) SHR_PROF_##_name,
#include "core/prof.def"
#undef SHR_PROF
    SHR_PROF_COUNT
} shr_prof_family_t;

/* Values of SHIMMER_PROFILE (env.def's list, in order). */
enum { SHR_PROFILE_OFF, SHR_PROFILE_ON, SHR_PROFILE_PE };

/* A monotonic clock in nanoseconds. */
uint64_t shr_prof_now(void);

/* Start of a timed call: a time stamp when recording (TSC ticks or
 * nanoseconds, prof.c), else 0. */
SHR_COLD uint64_t shr_prof_begin(void);

/* End of a timed call started at `t0` (nothing when t0 is 0): one call of
 * `family` moving `bytes`. */
SHR_COLD void shr_prof_end(shr_prof_family_t family, uint64_t t0, size_t bytes);

/* Init (the first of a series, configuration loaded): zero the counters and
 * start recording when SHIMMER_PROFILE asks; `t0` is when init began, the
 * init row's start.  Returns whether profiling is on. */
int shr_prof_init(uint64_t t0);

/* shmem_pcontrol: level 0 pauses recording, any other level resumes it. */
void shr_prof_pcontrol(int level);

/* The last finalize, before boot goes: records the finalize row (started at
 * `t0`), gathers every PE's counters (collective) and PE 0 prints them.
 * Nothing when profiling is off. */
void shr_prof_report(uint64_t t0);

#endif
