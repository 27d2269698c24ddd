/* wait.c -- the slow half of the wait primitive: the wait modes past the
 * spin phase (wait_inline.h says what each does), progress and (debug
 * mode) reports of waits that look like hangs. */
#include <sched.h>
#include <time.h>

#include "core/env.h"
#include "core/remote.h"
#include "core/share.h"
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
/* x86 monitor waits end after this many TSC cycles even if the line stays
 * quiet (~30-50 us), so the clock is looked at and a long wait moves on to
 * napping; AArch64's WFE has the kernel's event stream (every 100 us). */
#define SHR_WAIT_MONITOR_SLICE 100000u

static void report_hang(shr_waiter_t *waiter, uint64_t now)
{
    uint64_t timeout = (uint64_t)shr_config.hang_timeout * 1000000000ull;

    if (now - waiter->reported_ns > timeout && now - waiter->since_ns > timeout) {
        shr_warn("%s has waited for more than %ld s; a PE may be missing from it",
                 waiter->what, (long)((now - waiter->since_ns) / 1000000000ull));
        waiter->reported_ns = now;
    }
}

/* The clock, the start of the wait's slow part, the hang report. */
static uint64_t tick(shr_waiter_t *waiter)
{
    uint64_t now = now_ns();
    if (waiter->since_ns == 0) {
        waiter->since_ns = now;
    }
    if (SHR_UNLIKELY(shr_config.debug) && waiter->what != NULL) {
        report_hang(waiter, now);
    }
    return now;
}

/* ---- monitor: sleep in the CPU until the watched line is written ---- */

#if defined(__aarch64__)
/* LDXR arms the exclusive monitor on the word's granule: a store to it by
 * another core clears the monitor, which sends this core an event. */
static uint64_t monitor_arm(const void *addr, unsigned size)
{
    uint32_t w;
    uint64_t x;

    switch (size) {
    case 2:
        __asm__ __volatile__("ldxrh %w0, [%1]" : "=&r"(w) : "r"(addr) : "memory");
        return w;
    case 4:
        __asm__ __volatile__("ldxr %w0, [%1]" : "=&r"(w) : "r"(addr) : "memory");
        return w;
    default:
        __asm__ __volatile__("ldxr %0, [%1]" : "=&r"(x) : "r"(addr) : "memory");
        return x;
    }
}

static void monitor_sleep(void)
{
    __asm__ __volatile__("wfe" ::: "memory");
}
#define SHR_HAVE_MONITOR 1

#elif defined(__x86_64__)
/* Byte encodings, so that no assembler support or -m flag is needed:
 * UMONITOR rax = f3 0f ae f0, UMWAIT ecx = f2 0f ae f1 (edx:eax = TSC
 * deadline, ecx bit 0 = C0.1 only), MONITORX = 0f 01 fa (rax = address),
 * MWAITX = 0f 01 fb (eax = hints: 0xf0 = stay in C0; ecx bit 1 = timer in
 * ebx). */
static uint64_t monitor_arm(const void *addr, unsigned size)
{
    if (shr_g.wait_mode == SHR_WAIT_MONITOR_UMWAIT) {
        __asm__ __volatile__(".byte 0xf3, 0x0f, 0xae, 0xf0" ::"a"(addr) : "memory");
    } else {
        __asm__ __volatile__(".byte 0x0f, 0x01, 0xfa" ::"a"(addr), "c"(0), "d"(0) : "memory");
    }
    switch (size) {
    case 2:  return __atomic_load_n((const uint16_t *)addr, __ATOMIC_RELAXED);
    case 4:  return __atomic_load_n((const uint32_t *)addr, __ATOMIC_RELAXED);
    default: return __atomic_load_n((const uint64_t *)addr, __ATOMIC_RELAXED);
    }
}

static void monitor_sleep(void)
{
    if (shr_g.wait_mode == SHR_WAIT_MONITOR_UMWAIT) {
        uint64_t deadline = __builtin_ia32_rdtsc() + SHR_WAIT_MONITOR_SLICE;
        __asm__ __volatile__(".byte 0xf2, 0x0f, 0xae, 0xf1"
                             ::"c"(0), "a"((uint32_t)deadline), "d"((uint32_t)(deadline >> 32))
                             : "memory", "cc");
    } else {
        __asm__ __volatile__(".byte 0x0f, 0x01, 0xfb"
                             ::"a"(0xf0), "b"(SHR_WAIT_MONITOR_SLICE), "c"(2) : "memory");
    }
}
#define SHR_HAVE_MONITOR 1
#endif

/* One round of the monitor mode; false when this wait naps instead. */
static bool monitor_round(shr_waiter_t *waiter)
{
#ifdef SHR_HAVE_MONITOR
    unsigned size = waiter->size;

    if (waiter->addr == NULL || waiter->sleeping || shr_g.needs_progress ||
        (size != 2 && size != 4 && size != 8) || ((uintptr_t)waiter->addr & (size - 1)) != 0) {
        return false;
    }
    /* a round lasts until an event: the clock costs little beside it */
    if (tick(waiter) - waiter->since_ns >= shr_g.wait_sleep_after_ns) {
        return false; /* a long wait: nap, and leave the core to others */
    }
    waiter->yields++;
    uint64_t now = monitor_arm(waiter->addr, size);
    if (!waiter->seen || now != waiter->last) {
        /* changed since the caller's test, or the first round: test again
         * before sleeping (a store before the arm sends no event) */
        waiter->seen = true;
        waiter->last = now;
        return true;
    }
    monitor_sleep();
    if (shr_g.oversubscribed) {
        sched_yield(); /* the CPU does not know the PE we wait for may need it */
    }
    return true;
#else
    (void)waiter;
    return false;
#endif
}

/* ---- nap: yield, then nap ---- */

static void nap_round(shr_waiter_t *waiter)
{
    /* a yield costs ~0.3 us and a clock read ~20 ns: while yielding, look
     * at the clock on every 16th round; once napping, on every round.
     * `yields` counts every round (callers pace their own checks by it). */
    unsigned round = waiter->yields++;
    if (!waiter->sleeping && (round & 15) != 0) {
        sched_yield();
        return;
    }
    uint64_t now = tick(waiter);
    uint64_t waited = now - waiter->since_ns;
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

/* ---- spin and yield: never nap ---- */

/* One round of a mode that never naps: a pause or a yield; in debug mode
 * the clock is still read now and then (every 4096th pause, every 16th
 * yield), for the hang report. */
static void plain_round(shr_waiter_t *waiter, bool spin)
{
    unsigned round = waiter->yields++;

    if (spin) {
        shr_cpu_relax();
    } else {
        sched_yield();
    }
    if (SHR_UNLIKELY(shr_config.debug) && (round & (spin ? 4095u : 15u)) == 0) {
        tick(waiter);
    }
}

void shr_waiter_stop(shr_waiter_t *waiter)
{
    bool sharing = shr_share_posted != NULL;

    if (sharing) {
        shr_share_poll(waiter); /* may start the spin phase again */
    }
    if (waiter->spins < shr_g.wait_spin) {
        unsigned left = shr_g.wait_spin - waiter->spins;

        waiter->spin_stop = waiter->spins + (sharing && left > SHR_WAIT_SPIN_STEP
                                                 ? SHR_WAIT_SPIN_STEP : left);
        waiter->spins++;
        shr_cpu_relax();
        return;
    }
    shr_waiter_yield(waiter);
}

void shr_waiter_yield(shr_waiter_t *waiter)
{
    switch (shr_g.wait_mode) {
    case SHR_WAIT_SPIN:
    case SHR_WAIT_YIELD:
        plain_round(waiter, shr_g.wait_mode == SHR_WAIT_SPIN);
        return;
    case SHR_WAIT_NAP:
        break;
    default:
        if (monitor_round(waiter)) {
            return;
        }
        break;
    }
    nap_round(waiter);
}
