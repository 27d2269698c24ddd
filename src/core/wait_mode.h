/*
 * wait_mode.h -- how a wait passes its time once the spin phase is over
 * (SHIMMER_WAIT_MODE).  Chosen once at init from what the
 * CPU and the kernel offer; shr_g.wait_mode holds the choice, shr_g.wait_why
 * the reason that shimmer-info prints.
 */
#ifndef SHR_WAIT_MODE_H
#define SHR_WAIT_MODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    SHR_WAIT_NAP,            /* pause, then yield, then nap (wait.c) */
    SHR_WAIT_SPIN,           /* pause forever: dedicated cores, benchmarks */
    SHR_WAIT_YIELD,          /* pause, then sched_yield forever, never nap */
    SHR_WAIT_MONITOR_WFE,    /* AArch64: LDXR on the word, then WFE */
    SHR_WAIT_MONITOR_UMWAIT, /* x86 WAITPKG: UMONITOR, then UMWAIT */
    SHR_WAIT_MONITOR_MWAITX, /* AMD: MONITORX, then MWAITX with a timer */
} shr_wait_mode_t;

/* What the machine offers a monitor wait; shr_wait_probe fills it in, the
 * unit test makes its own. */
typedef struct shr_wait_cpu {
    bool aarch64;          /* LDXR + WFE: every AArch64 core, at EL0 */
    bool waitpkg;          /* CPUID.(EAX=7,ECX=0):ECX[5] */
    bool umwait_control;   /* the kernel manages UMWAIT (sysfs umwait_control) */
    bool umwait_c02;       /* ... and lets it enter C0.2 (enable_c02) */
    uint32_t umwait_max;   /* ... for at most this many TSC cycles (0 = no cap) */
    bool monitorx;         /* CPUID.80000001H:ECX[29] (AMD) */
} shr_wait_cpu_t;

/* The CPU and kernel of this machine. */
void shr_wait_probe(shr_wait_cpu_t *cpu);

/* The mode for SHIMMER_WAIT_MODE's value `requested` (SHR_WAIT_MODE_AUTO...
 * of env.h) on `cpu`, and why, in `why` (a phrase such as "auto: this CPU
 * has neither WAITPKG nor MONITORX").  *fell_back is set when `monitor` was
 * asked for and the machine lacks it (the caller warns).  Pure. */
shr_wait_mode_t shr_wait_select(int requested, const shr_wait_cpu_t *cpu, char *why, size_t len,
                                bool *fell_back);

/* "spin", "yield", "nap" or "monitor". */
const char *shr_wait_mode_name(shr_wait_mode_t mode);

static inline bool shr_wait_mode_monitors(shr_wait_mode_t mode)
{
    return mode >= SHR_WAIT_MONITOR_WFE;
}

#endif
