/* wait_mode.c -- which wait mode this machine gets (wait_mode.h). */
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "core/env.h"
#include "core/wait_mode.h"

#define UMWAIT_SYSFS "/sys/devices/system/cpu/umwait_control/"

#if defined(__x86_64__)
/* A number from a sysfs file; false when it cannot be read. */
static bool read_u32(const char *path, uint32_t *out)
{
    FILE *f = fopen(path, "r");
    unsigned long v;
    bool ok = f != NULL && fscanf(f, "%lu", &v) == 1;

    if (f != NULL) {
        fclose(f);
    }
    if (ok) {
        *out = (uint32_t)v;
    }
    return ok;
}
#endif

void shr_wait_probe(shr_wait_cpu_t *cpu)
{
    memset(cpu, 0, sizeof(*cpu));
#if defined(__aarch64__)
    cpu->aarch64 = true;
#elif defined(__x86_64__)
    unsigned a, b, c, d;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        cpu->waitpkg = (c >> 5) & 1;
    }
    if (__get_cpuid(0x80000001u, &a, &b, &c, &d)) {
        cpu->monitorx = (c >> 29) & 1;
    }
    uint32_t c02 = 0;
    cpu->umwait_control = read_u32(UMWAIT_SYSFS "max_time", &cpu->umwait_max);
    cpu->umwait_c02 = read_u32(UMWAIT_SYSFS "enable_c02", &c02) && c02 != 0;
#endif
}

/* The monitor this machine offers, or NAP with the reason there is none. */
static shr_wait_mode_t best_monitor(const shr_wait_cpu_t *cpu, char *why, size_t len)
{
    if (cpu->aarch64) {
        snprintf(why, len, "LDXR + WFE");
        return SHR_WAIT_MONITOR_WFE;
    }
    if (cpu->waitpkg && cpu->umwait_control) {
        snprintf(why, len, "UMONITOR + UMWAIT (C0.%d%s)", cpu->umwait_c02 ? 2 : 1,
                 cpu->umwait_max == 0 ? "" : ", the kernel caps each wait");
        return SHR_WAIT_MONITOR_UMWAIT;
    }
    if (cpu->monitorx) {
        snprintf(why, len, "MONITORX + MWAITX with a timer");
        return SHR_WAIT_MONITOR_MWAITX;
    }
    if (cpu->waitpkg) {
        snprintf(why, len, "this CPU has WAITPKG but the kernel does not manage UMWAIT "
                           "(no " UMWAIT_SYSFS ")");
    } else {
        snprintf(why, len, "this CPU has neither WAITPKG nor MONITORX");
    }
    return SHR_WAIT_NAP;
}

shr_wait_mode_t shr_wait_select(int requested, const shr_wait_cpu_t *cpu, char *why, size_t len,
                                bool *fell_back)
{
    char how[160];
    shr_wait_mode_t mode;

    *fell_back = false;
    switch (requested) {
    case SHR_WAIT_MODE_SPIN:
        snprintf(why, len, "SHIMMER_WAIT_MODE=spin: pause only, never yields");
        return SHR_WAIT_SPIN;
    case SHR_WAIT_MODE_YIELD:
        snprintf(why, len, "SHIMMER_WAIT_MODE=yield: pause, then yield, never naps");
        return SHR_WAIT_YIELD;
    case SHR_WAIT_MODE_NAP:
        snprintf(why, len, "SHIMMER_WAIT_MODE=nap: pause, then yield, then nap");
        return SHR_WAIT_NAP;
    case SHR_WAIT_MODE_MONITOR:
        mode = best_monitor(cpu, how, sizeof(how));
        *fell_back = !shr_wait_mode_monitors(mode);
        snprintf(why, len, "SHIMMER_WAIT_MODE=monitor: %s%s", how,
                 *fell_back ? ", so nap instead" : "");
        return mode;
    default:
        mode = best_monitor(cpu, how, sizeof(how));
        snprintf(why, len, "auto: %s", how);
        return mode;
    }
}

const char *shr_wait_mode_name(shr_wait_mode_t mode)
{
    switch (mode) {
    case SHR_WAIT_SPIN:  return "spin";
    case SHR_WAIT_YIELD: return "yield";
    case SHR_WAIT_NAP:   return "nap";
    default:             return "monitor";
    }
}
