/* wait.c -- the slow half of the wait primitive: yielding, progress and
 * (debug mode) reports of waits that look like hangs. */
#include <sched.h>
#include <time.h>

#include "core/env.h"
#include "core/remote.h"
#include "core/stall.h"
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
    shr_remote->progress();
}

#define SHR_WAIT_SLEEP_MAX_NS 1000000ull /* 1 ms */

static void report_hang(shr_waiter_t *waiter, uint64_t now)
{
    uint64_t timeout = (uint64_t)shr_config.hang_timeout * 1000000000ull;

    if (now - waiter->reported_ns > timeout && now - waiter->since_ns > timeout) {
        shr_warn("%s has waited for more than %ld s; a PE may be missing from it",
                 waiter->what, (long)((now - waiter->since_ns) / 1000000000ull));
        waiter->reported_ns = now;
    }
}

void shr_waiter_yield(shr_waiter_t *waiter)
{
    /* a yield costs ~0.3 us and a clock read ~20 ns: while yielding, look
     * at the clock on every 16th round; once napping, on every round.
     * `yields` counts every round (callers pace their own checks by it). */
    unsigned round = waiter->yields++;
    if (!waiter->sleeping && (round & 15) != 0) {
        sched_yield();
        return;
    }
    uint64_t now = now_ns();
    if (waiter->since_ns == 0) {
        waiter->since_ns = now;
    }
    uint64_t waited = now - waiter->since_ns;
    if (SHR_UNLIKELY(shr_config.debug) && waiter->what != NULL) {
        report_hang(waiter, now);
    }
    if (waited < shr_g.wait_sleep_after_ns) {
        sched_yield();
        return;
    }
    /* one wait however often a peer's traffic (the final barrier's stall
     * watch reading this PE's words, too) ended its naps */
    shr_stall_note_nap(!waiter->napped);
    waiter->sleeping = true;
    waiter->napped = true;
    uint64_t nap = waited / 8 < SHR_WAIT_SLEEP_MAX_NS ? waited / 8 : SHR_WAIT_SLEEP_MAX_NS;
    if (shr_g.needs_progress) {
        /* woken early by a remote peer's operation; while peers keep
         * sending, poll again instead of napping (each nap costs a wake-up) */
        if (shr_remote->nap(nap)) {
            waiter->sleeping = false;
            waiter->since_ns = 0;
        }
        return;
    }
    struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)nap};
    nanosleep(&ts, NULL);
}
