/*
 * wait_inline.h -- THE wait primitive: every loop that waits for memory to
 * change (wait_until, signal waits, barriers, collectives, locks) pauses
 * through shr_waiter_pause().
 *
 * Policy: poll with a CPU pause for shr_g.wait_spin rounds (fast hand-off when
 * every PE has a core); then the wait mode (SHIMMER_WAIT_MODE, chosen at
 * init: wait_mode.h) decides, out of line in wait.c:
 *   nap      yield the CPU on every round, and once the wait has lasted
 *            shr_g.wait_sleep_after_ns, sleep for an eighth of the time
 *            waited so far (at most 1 ms).  Sleeping waiters are not
 *            runnable, so PEs that outnumber the cores leave the CPU to the
 *            PE that will write the flag (yielding alone still shares it
 *            with every waiter), and a long wait costs no power; the added
 *            latency is at most ~1/8 of the wait.
 *   monitor  until then, sleep in the CPU until the watched word is written
 *            (LDXR + WFE, UMONITOR + UMWAIT, MONITORX + MWAITX), then nap as
 *            above; waits that watch no single word of local memory, or
 *            that must drive a remote transport, nap.
 *   spin     pause forever;  yield: yield forever, never nap.
 * Waits also drive the remote transport when some peer needs software
 * progress, and copy chunks of this node's shared copies (share.h).  A
 * wait satisfied at once never gets here: callers test first.
 */
#ifndef SHR_WAIT_INLINE_H
#define SHR_WAIT_INLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/state.h"

typedef struct shr_waiter {
    unsigned spins;
    unsigned spin_stop;         /* where the inline spin phase next leaves for
                                   shr_waiter_stop (SHR_WAIT_SPIN_STEP) */
    unsigned yields;            /* rounds past the spin phase (yields and naps) */
    bool sleeping;              /* waited long enough to nap between polls */
    bool napped;                /* has napped: stays set when traffic ends a nap */
    bool seen;                  /* monitor: `last` holds the word as last seen */
    uint32_t share_seen;        /* shared copies published when last looked (share.h) */
    unsigned char size;         /* bytes of the watched word: 2, 4 or 8 */
    const void *addr;           /* the one word of local memory this wait
                                   watches (monitor mode), or NULL */
    uint64_t last;
    uint64_t since_ns;          /* when yielding started */
    uint64_t reported_ns;       /* last hang report (debug mode) */
    const char *what;           /* for hang reports in debug mode; may be NULL */
} shr_waiter_t;

/* A wait on something other than one word (no monitor), and a wait on the
 * `_size`-byte word at `_addr` (local memory, naturally aligned). */
#define SHR_WAITER_ON(_what, _addr, _size)                                                \
    {.spin_stop = shr_g.wait_spin < SHR_WAIT_SPIN_STEP ? shr_g.wait_spin : SHR_WAIT_SPIN_STEP, \
     .size = (unsigned char)(_size), .addr = (_addr), .what = (_what)}
#define SHR_WAITER_INIT(_what) SHR_WAITER_ON(_what, NULL, 0)

/* The spin phase leaves its inline loop every this many polls for
 * shr_waiter_stop, which looks for this node's shared copies to help with
 * (core/share.h), or, where there are none to look for, sets the next stop
 * at the phase's end.  The inline loop is then the same few instructions
 * with sharing or without: a load and a compare more in it made the 8 B
 * put + flag ping-pong ~8 ns slower on Zen 5; a stop every 8th poll cost
 * the 128 KiB put flood a tenth of its gain (docs/shared-copy.md). */
#define SHR_WAIT_SPIN_STEP 4u

/* Out of line: the spin phase's stops, the wait mode, progress, debug-mode
 * hang report. */
void shr_waiter_stop(shr_waiter_t *waiter);
SHR_COLD void shr_waiter_yield(shr_waiter_t *waiter);
void shr_progress(void);

static SHR_ALWAYS_INLINE void shr_waiter_pause(shr_waiter_t *waiter)
{
    if (SHR_UNLIKELY(shr_g.needs_progress)) {
        shr_progress();
    }
    if (SHR_LIKELY(waiter->spins < waiter->spin_stop)) {
        waiter->spins++;
        shr_cpu_relax();
        return;
    }
    shr_waiter_stop(waiter);
}

/* Waits until the 64-bit word at `addr` (local memory) is >= `value`. */
static inline uint64_t shr_wait_u64_ge(const uint64_t *addr, uint64_t value, const char *what)
{
    uint64_t seen = __atomic_load_n(addr, __ATOMIC_ACQUIRE);

    if (SHR_LIKELY(seen >= value)) {
        return seen; /* satisfied at once: no waiter to set up */
    }
    shr_waiter_t waiter = SHR_WAITER_ON(what, addr, sizeof(*addr));
    do {
        shr_waiter_pause(&waiter);
    } while ((seen = __atomic_load_n(addr, __ATOMIC_ACQUIRE)) < value);
    return seen;
}

#endif
