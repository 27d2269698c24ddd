/*
 * wait_inline.h -- THE wait primitive: every loop that waits for memory to
 * change (wait_until, signal waits, barriers, collectives, locks) pauses
 * through shr_waiter_pause().
 *
 * Policy: poll with a CPU pause for shr_g.wait_spin rounds (fast hand-off when
 * every PE has a core), then yield the CPU on every round, and once the wait
 * has lasted shr_g.wait_sleep_after_ns, sleep for an eighth of the time
 * waited so far (at most 1 ms).  Sleeping waiters are not runnable, so PEs
 * that outnumber the cores leave the CPU to the PE that will write the flag
 * (yielding alone still shares it with every waiter), and a long wait costs
 * no power; the added latency is at most ~1/8 of the wait.  Waits also drive
 * the remote transport when some peer needs software progress.
 */
#ifndef SHR_WAIT_INLINE_H
#define SHR_WAIT_INLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/state.h"

typedef struct shr_waiter {
    unsigned spins;
    unsigned yields;            /* rounds past the spin phase (yields and naps) */
    bool sleeping;              /* waited long enough to nap between polls */
    bool napped;                /* has napped: stays set when traffic ends a nap */
    uint64_t since_ns;          /* when yielding started */
    uint64_t reported_ns;       /* last hang report (debug mode) */
    const char *what;           /* for hang reports in debug mode; may be NULL */
} shr_waiter_t;

#define SHR_WAITER_INIT(_what) {0, 0, false, false, 0, 0, (_what)}

/* Out of line: yield, progress, debug-mode hang report. */
SHR_COLD void shr_waiter_yield(shr_waiter_t *waiter);
void shr_progress(void);

static SHR_ALWAYS_INLINE void shr_waiter_pause(shr_waiter_t *waiter)
{
    if (SHR_UNLIKELY(shr_g.needs_progress)) {
        shr_progress();
    }
    if (SHR_LIKELY(waiter->spins < shr_g.wait_spin)) {
        waiter->spins++;
        shr_cpu_relax();
        return;
    }
    shr_waiter_yield(waiter);
}

/* Waits until the 64-bit word at `addr` (local memory) is >= `value`. */
static inline uint64_t shr_wait_u64_ge(const uint64_t *addr, uint64_t value, const char *what)
{
    shr_waiter_t waiter = SHR_WAITER_INIT(what);
    uint64_t seen;

    while ((seen = __atomic_load_n(addr, __ATOMIC_ACQUIRE)) < value) {
        shr_waiter_pause(&waiter);
    }
    return seen;
}

#endif
