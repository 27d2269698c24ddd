/* boot_single.c -- a program started without a launcher is a job of one PE. */
#include "boot/boot_int.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char shr_boot_single_job[64];

static bool shr_boot_single_is_present(void)
{
    return true;
}

static shr_status_t shr_boot_single_init(int *rank_p, int *size_p, bool finalizes_at_exit)
{
    struct timespec now;

    (void)finalizes_at_exit; /* nobody waits for a job of one */

    if (shr_boot_single_job[0] == '\0') {
        /* pid alone repeats across reboots and containers; add the clock. */
        clock_gettime(CLOCK_REALTIME, &now);
        snprintf(shr_boot_single_job, sizeof(shr_boot_single_job), "single-%ld-%lx",
                 (long)getpid(),
                 (unsigned long)now.tv_sec * 1000000000ul + (unsigned long)now.tv_nsec);
    }
    *rank_p = 0;
    *size_p = 1;
    return SHR_OK;
}

static void shr_boot_single_fini(void)
{
}

static shr_status_t shr_boot_single_allgather(const void *mine, void *all, size_t len)
{
    if (len > 0) {
        memmove(all, mine, len);
    }
    return SHR_OK;
}

static shr_status_t shr_boot_single_barrier(void)
{
    return SHR_OK;
}

static const char *shr_boot_single_job_id(void)
{
    return shr_boot_single_job;
}

static void shr_boot_single_abort(int status, const char *msg, bool global_exit)
{
    /* whoever detected the error has logged it already (the library's
     * rule); there is no launcher to tell */
    (void)status, (void)msg, (void)global_exit;
}

const shr_boot_ops_t shr_boot_single_ops = {
    .name = "single",
    .kind = SHR_BOOT_SINGLE,
    .is_present = shr_boot_single_is_present,
    .init = shr_boot_single_init,
    .fini = shr_boot_single_fini,
    .allgather = shr_boot_single_allgather,
    .barrier = shr_boot_single_barrier,
    .job_id = shr_boot_single_job_id,
    .abort = shr_boot_single_abort,
};
