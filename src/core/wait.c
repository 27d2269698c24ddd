/* wait.c -- the slow half of the wait primitive: yielding, progress and
 * (debug mode) reports of waits that look like hangs. */
#include <sched.h>
#include <time.h>

#include "core/env.h"
#include "core/remote.h"
#include "core/wait_inline.h"
#include "util/log.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void shr_progress(void)
{
    shr_remote_progress();
}

void shr_waiter_yield(shr_waiter_t *waiter)
{
    sched_yield();
    /* the clock is read every 1024 yields only: a yield costs ~0.3 us */
    if ((++waiter->yields & 1023) != 0 || !shr_config.debug || waiter->what == NULL) {
        return;
    }
    uint64_t now = now_ns();
    if (waiter->since_ns == 0) {
        waiter->since_ns = now;
    } else if (now - waiter->since_ns > (uint64_t)shr_config.hang_timeout * 1000000000ull) {
        shr_warn("%s has waited for more than %ld s; a PE may be missing from it",
                 waiter->what, shr_config.hang_timeout);
        waiter->since_ns = now;
    }
}
