/* wait_mode_test.c -- unit test of SHIMMER_WAIT_MODE's choice, on machines
 * made up of CPUID bits and sysfs values (wait_mode.h). */
#include <stdio.h>
#include <string.h>

#include "core/env.h"
#include "core/wait_mode.h"
#include "util/expect.h"

static char why[192];
static bool fell_back;

static shr_wait_mode_t pick(int requested, shr_wait_cpu_t cpu)
{
    return shr_wait_select(requested, &cpu, why, sizeof(why), &fell_back);
}

int main(void)
{
    const shr_wait_cpu_t none = {0};
    const shr_wait_cpu_t arm = {.aarch64 = true};
    const shr_wait_cpu_t intel = {.waitpkg = true, .umwait_control = true, .umwait_c02 = true,
                                  .umwait_max = 100000};
    const shr_wait_cpu_t intel_old_kernel = {.waitpkg = true};
    const shr_wait_cpu_t amd = {.monitorx = true};

    /* auto: the monitor where there is one, else nap, and why */
    EXPECT(pick(SHR_WAIT_MODE_AUTO, none) == SHR_WAIT_NAP && !fell_back);
    EXPECT(strcmp(why, "auto: this CPU has neither WAITPKG nor MONITORX") == 0);
    EXPECT(pick(SHR_WAIT_MODE_AUTO, arm) == SHR_WAIT_MONITOR_WFE);
    EXPECT(strstr(why, "LDXR + WFE") != NULL);
    EXPECT(pick(SHR_WAIT_MODE_AUTO, intel) == SHR_WAIT_MONITOR_UMWAIT);
    EXPECT(strstr(why, "C0.2") != NULL);
    shr_wait_cpu_t c01 = intel;
    c01.umwait_c02 = false;
    EXPECT(pick(SHR_WAIT_MODE_AUTO, c01) == SHR_WAIT_MONITOR_UMWAIT && strstr(why, "C0.1"));
    EXPECT(pick(SHR_WAIT_MODE_AUTO, amd) == SHR_WAIT_MONITOR_MWAITX);
    EXPECT(strstr(why, "MWAITX") != NULL);
    /* WAITPKG without the kernel's umwait_control: not allowed, says so */
    EXPECT(pick(SHR_WAIT_MODE_AUTO, intel_old_kernel) == SHR_WAIT_NAP);
    EXPECT(strstr(why, "umwait_control") != NULL);
    /* both: UMWAIT first */
    shr_wait_cpu_t both = intel;
    both.monitorx = true;
    EXPECT(pick(SHR_WAIT_MODE_AUTO, both) == SHR_WAIT_MONITOR_UMWAIT);

    /* monitor asked for: given where there is one, else nap and a warning */
    EXPECT(pick(SHR_WAIT_MODE_MONITOR, arm) == SHR_WAIT_MONITOR_WFE && !fell_back);
    EXPECT(pick(SHR_WAIT_MODE_MONITOR, amd) == SHR_WAIT_MONITOR_MWAITX && !fell_back);
    EXPECT(pick(SHR_WAIT_MODE_MONITOR, none) == SHR_WAIT_NAP && fell_back);
    EXPECT(strstr(why, "SHIMMER_WAIT_MODE=monitor") == why && strstr(why, "nap instead"));

    /* the plain modes whatever the CPU */
    EXPECT(pick(SHR_WAIT_MODE_SPIN, arm) == SHR_WAIT_SPIN && !fell_back);
    EXPECT(pick(SHR_WAIT_MODE_YIELD, intel) == SHR_WAIT_YIELD);
    EXPECT(pick(SHR_WAIT_MODE_NAP, amd) == SHR_WAIT_NAP);
    EXPECT(strstr(why, "SHIMMER_WAIT_MODE=nap") == why);

    EXPECT(strcmp(shr_wait_mode_name(SHR_WAIT_MONITOR_UMWAIT), "monitor") == 0);
    EXPECT(strcmp(shr_wait_mode_name(SHR_WAIT_YIELD), "yield") == 0);

    /* this machine's probe is self-consistent (whatever it finds) */
    shr_wait_cpu_t here;
    shr_wait_probe(&here);
    EXPECT(!(here.aarch64 && (here.waitpkg || here.monitorx)));
    EXPECT(here.umwait_control || (!here.umwait_c02 && here.umwait_max == 0));

    if (failures == 0) {
        printf("PASS wait_mode\n");
    }
    return failures != 0;
}
