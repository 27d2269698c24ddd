/*
 * ucx_progress.c -- who drives the workers.
 *
 * Over a transport without hardware RMA (TCP; and atomics everywhere, see
 * ucx_rma.c) nothing a peer sends to this PE lands until this PE's default
 * worker is progressed.  Two drivers share that job:
 *
 *   - application threads, in every wait and blocking call
 *     (the transport's progress op, shr_ucx_wait_step).  Each such call bumps
 *     shr_ucx.activity;
 *   - the progress thread (SHIMMER_PROGRESS_THREAD), for the stretches when
 *     no application thread is in the library.  It watches `activity`:
 *       idle mode:  while the counter moves, the application drives; the
 *                   thread sleeps SHIMMER_PROGRESS_INTERVAL microseconds
 *                   at a time (doubling up to 16 intervals while the
 *                   application stays in the library) and touches nothing
 *                   (no lock traffic, no wake-ups per message, the
 *                   worker's fd not even registered);
 *       event mode: once the counter stood still for a whole interval, the
 *                   thread drains the default worker, arms it and sleeps
 *                   in epoll on its event fd: woken by the first incoming
 *                   message, it serves it and re-arms.  When the counter
 *                   moves again it returns to idle mode.
 *     So a PE computing for seconds serves its peers within about one
 *     interval plus a wake-up, and a PE that is polling pays nothing.
 *
 * The thread and the application serialise on the default worker's mutex
 * (dflt->must_lock is set while the thread exists).
 */
#include "transport/ucx/ucx_inline.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "core/env.h"
#include "util/log.h"

typedef struct shr_ucx_pt {
    pthread_t thread;
    bool running;
    int idle_ep;            /* epoll set: the stop fd */
    int event_ep;           /* epoll set: the stop fd, and the worker's fd in event mode */
    int stopfd;
    int efd;                /* the default worker's event fd */
    int kickfd;             /* a first coalescing buffer began filling */
    bool sleeping_long;     /* ... and the thread wants to hear of it */
    bool watching;          /* sleeping in slices of the age (coalescing buffers) */
    bool offload_idle;      /* the offload: asleep, a handle's new buffer wakes it */
    bool offload_due;       /* ... and one did */
    int offload_idle_turns; /* turns in a row that found nothing to send */
    uint64_t offload_resume; /* kicks are off until then (ns; 0: they are on) */
    uint64_t offload_hot;   /* polls without sleeping until then (ns) */
    uint64_t offload_sent;  /* sends the offload made (logged at stop: tests check it) */
    bool stopping;          /* the stop fd was written */
} shr_ucx_pt_t;

/* The thread's state before start and after stop (no fd open). */
#define SHR_UCX_PT_IDLE {.idle_ep = -1, .event_ep = -1, .stopfd = -1, .efd = -1, .kickfd = -1}

static shr_ucx_pt_t shr_ucx_pt = SHR_UCX_PT_IDLE;

/* A coalescing buffer nobody sent is sent by the thread once it has waited
 * one to two of these (ucx_agg.c's age flush): a program that spins on
 * its own memory without calling the library still has its puts
 * delivered.  The thread watches in slices of this while buffers fill,
 * and for 4 ms after the last one.  Shorter slices take the PEs' CPU:
 * looks every 50 us made a ping-pong's half round trip across hosts
 * 5-10 us longer on 2 cores, and every 250 us made heat2d on 2x2 hosts
 * 3-14 % slower than uncoalesced (docs/requests.md, "Coalescing"); one
 * slice is the thread's own default interval. */
#define SHR_UCX_AGG_AGE_NS 1000000u
#define SHR_UCX_AGG_WATCH_NS 4000000u

static uint64_t shr_ucx_pt_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wakes the sleeping progress thread.  A failed eventfd write loses no
 * data: the buffers it was told about still leave at the program's next
 * wait, or at the thread's next look, only later. */
static void shr_ucx_pt_wake(void)
{
    uint64_t one = 1;

    if (write(shr_ucx_pt.kickfd, &one, sizeof(one)) != sizeof(one)) {
        shr_warn_once("progress thread: cannot wake it (eventfd write: %m); coalesced "
                      "operations may leave up to its interval late; set "
                      "SHIMMER_REQ_COALESCE=0 if this repeats");
    }
}

void shr_ucx_progress_thread_kick(void)
{
    if (__atomic_exchange_n(&shr_ucx_pt.sleeping_long, false, __ATOMIC_SEQ_CST)) {
        shr_ucx_pt_wake();
    }
}

/* ---- the offload (SHIMMER_PROGRESS_OFFLOAD, docs/requests.md "Offload") ----
 * A request handle's operation began a coalescing buffer (the kick: an
 * eventfd write, only when the thread sleeps): the thread waits until
 * the program has added no record for SHR_UCX_OFFLOAD_SETTLE_NS (it is
 * computing, or waiting), sends every buffer, and drives the workers
 * with its buffers in flight until their replies are in: the program's
 * wait then finds its handle complete.  For SHR_UCX_OFFLOAD_HOT_NS after
 * a send it stays *hot*: it polls (yielding the CPU each round) instead
 * of sleeping, so that the next window needs no kick (4.3 us of the
 * issuing thread's time on this machine) and no wake-up (4-5 us); then
 * it sleeps on the workers' event fds until the last reply.  It spins
 * otherwise only while the program fills (at most
 * SHR_UCX_OFFLOAD_SETTLE_MAX_NS at a time). */
#define SHR_UCX_OFFLOAD_SETTLE_NS 2000u
#define SHR_UCX_OFFLOAD_SETTLE_MAX_NS 200000u
#define SHR_UCX_OFFLOAD_HOT_NS 200000u
#define SHR_UCX_OFFLOAD_FDS 8
/* When the program's own waits sent the buffers SHR_UCX_OFFLOAD_IDLE_TURNS
 * turns in a row (it waits right after issuing: there is nothing to
 * overlap), kicks stay off for SHR_UCX_OFFLOAD_BACKOFF_NS and handles'
 * flushes and tests send as without the offload: a kick is a system
 * call in the issuing thread and a wake-up that takes a core.  Short: a
 * program that starts computing between issue and wait after such a
 * phase (the benchmark's calibration) waits that long for the offload
 * (10 ms hid all of a 10 ms overlap run). */
#define SHR_UCX_OFFLOAD_IDLE_TURNS 4
#define SHR_UCX_OFFLOAD_BACKOFF_NS 1000000u

/* Records coalesced on every worker so far (a sum of clocks). */
static uint64_t shr_ucx_pt_records(void)
{
    uint64_t n = 0;

    pthread_mutex_lock(&shr_ucx.list_lock);
    for (shr_ucx_worker_t *w = shr_ucx.dflt; w != NULL; w = w->next) {
        n += __atomic_load_n(&w->agg_recs, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&shr_ucx.list_lock);
    return n;
}

/* Waits until no record was added for SHR_UCX_OFFLOAD_SETTLE_NS (or for
 * at most SHR_UCX_OFFLOAD_SETTLE_MAX_NS). */
static void shr_ucx_pt_settle(void)
{
    uint64_t start = shr_ucx_pt_now(), t = start, recs = shr_ucx_pt_records();

    for (;;) {
        uint64_t now = shr_ucx_pt_now();
        if (now - t < SHR_UCX_OFFLOAD_SETTLE_NS) {
            shr_cpu_relax();
            continue;
        }
        uint64_t r = shr_ucx_pt_records();
        if (r == recs || now - start > SHR_UCX_OFFLOAD_SETTLE_MAX_NS) {
            return;
        }
        recs = r;
        t = now;
    }
}

/* Drives every worker with buffers in flight until nothing more
 * arrives, arms it and lists its event fd in fds[] (from index 2).
 * The number of fds listed; -1 if something arrived meanwhile (drive
 * again). */
static int shr_ucx_pt_arm_all(struct pollfd *fds)
{
    int n = 2;
    bool again = false;

    pthread_mutex_lock(&shr_ucx.list_lock);
    for (shr_ucx_worker_t *w = shr_ucx.dflt; w != NULL; w = w->next) {
        if (__atomic_load_n(&w->agg_oldest, __ATOMIC_ACQUIRE) > w->pt_sent ||
            pthread_mutex_trylock(&w->lock) != 0) {
            continue; /* none of this thread's buffers in flight, or its thread drives it */
        }
        if (w->efd < 0) {
            (void)ucp_worker_get_efd(w->worker, &w->efd);
        }
        while (ucp_worker_progress(w->worker) != 0) {
        }
        if (w->agg_oldest <= w->pt_sent && w->efd >= 0 && n < SHR_UCX_OFFLOAD_FDS) {
            ucs_status_t st = ucp_worker_arm(w->worker);
            again = again || st == UCS_ERR_BUSY;
            if (st == UCS_OK) {
                fds[n++] = (struct pollfd){.fd = w->efd, .events = POLLIN};
            }
        }
        pthread_mutex_unlock(&w->lock);
    }
    pthread_mutex_unlock(&shr_ucx.list_lock);
    return again ? -1 : n;
}

/* Drives the workers with this thread's buffers in flight once each
 * (skipping those another thread holds); true while some are. */
static bool shr_ucx_pt_drive_sent(void)
{
    bool left = false;

    pthread_mutex_lock(&shr_ucx.list_lock);
    for (shr_ucx_worker_t *w = shr_ucx.dflt; w != NULL; w = w->next) {
        if (__atomic_load_n(&w->agg_oldest, __ATOMIC_ACQUIRE) > w->pt_sent) {
            continue;
        }
        left = true;
        if (pthread_mutex_trylock(&w->lock) == 0) {
            ucp_worker_progress(w->worker);
            pthread_mutex_unlock(&w->lock);
        }
    }
    pthread_mutex_unlock(&shr_ucx.list_lock);
    return left;
}

/* The offload's turn: settle, send, collect the replies, again while the
 * program fills more.  True when asked to stop. */
static bool shr_ucx_pt_offload(void)
{
    struct pollfd fds[SHR_UCX_OFFLOAD_FDS] = {
        {.fd = shr_ucx_pt.stopfd, .events = POLLIN},
        {.fd = shr_ucx_pt.kickfd, .events = POLLIN},
    };
    uint64_t kicks, seen = UINT64_MAX, sends = shr_ucx.pt_sends;

    for (;;) {
        uint64_t bufs = __atomic_load_n(&shr_ucx.offload_bufs, __ATOMIC_SEQ_CST);
        if (bufs != seen) {
            seen = bufs;
            /* a worker held by its thread: it was filling after all */
            for (int tries = 0; tries < 4; tries++) {
                shr_ucx_pt_settle();
                uint64_t before = shr_ucx.pt_sends;
                bool left = shr_ucx_agg_flush_all(SHR_UCX_FLUSH_ALL);
                if (shr_ucx.pt_sends != before) {
                    shr_ucx_pt.offload_sent += shr_ucx.pt_sends - before;
                    shr_ucx_pt.offload_hot = shr_ucx_pt_now() + SHR_UCX_OFFLOAD_HOT_NS;
                }
                if (!left) {
                    break;
                }
            }
        }
        if (shr_ucx_pt_now() < shr_ucx_pt.offload_hot) {
            /* hot: the program offloads window after window; no kick
             * (its system call) and no wake-up while it does */
            (void)shr_ucx_pt_drive_sent();
            if (__atomic_load_n(&shr_ucx_pt.stopping, __ATOMIC_RELAXED)) {
                return true;
            }
            sched_yield();
            continue;
        }
        int n = shr_ucx_pt_arm_all(fds);
        if (n < 0) {
            continue;
        }
        /* either the filler sees this flag or this thread its count */
        __atomic_store_n(&shr_ucx_pt.offload_idle, true, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&shr_ucx.offload_bufs, __ATOMIC_SEQ_CST) != seen) {
            __atomic_store_n(&shr_ucx_pt.offload_idle, false, __ATOMIC_RELAXED);
            continue; /* a handle began another buffer meanwhile */
        }
        if (n == 2) {
            /* nothing in flight that this thread may drive: the turn is
             * over; one that sent nothing counts towards the back-off */
            if (shr_ucx.pt_sends != sends) {
                shr_ucx_pt.offload_idle_turns = 0;
            } else if (++shr_ucx_pt.offload_idle_turns >= SHR_UCX_OFFLOAD_IDLE_TURNS) {
                shr_ucx_pt.offload_idle_turns = 0;
                __atomic_store_n(&shr_ucx_pt.offload_idle, false, __ATOMIC_SEQ_CST);
                __atomic_store_n(&shr_ucx.offload_live, false, __ATOMIC_RELAXED);
                shr_ucx_pt.offload_resume = shr_ucx_pt_now() + SHR_UCX_OFFLOAD_BACKOFF_NS;
            }
            return false;
        }
        struct timespec ts = {.tv_sec = 0, .tv_nsec = SHR_UCX_AGG_AGE_NS};
        if (ppoll(fds, (nfds_t)n, &ts, NULL) > 0) {
            if (fds[0].revents != 0) {
                return true;
            }
            if (fds[1].revents != 0) {
                (void)!read(shr_ucx_pt.kickfd, &kicks, sizeof(kicks));
            }
        }
    }
}

/* Runs the offload's turn if a kick asked for one; true when asked to
 * stop meanwhile. */
static bool shr_ucx_pt_offload_if_due(void)
{
    return __atomic_exchange_n(&shr_ucx_pt.offload_due, false, __ATOMIC_RELAXED) &&
           shr_ucx_pt_offload();
}

/* Ends the offload's back-off once it is over: kicks come again. */
static void shr_ucx_pt_offload_resume(uint64_t now)
{
    if (shr_ucx_pt.offload_resume != 0 && now >= shr_ucx_pt.offload_resume) {
        shr_ucx_pt.offload_resume = 0;
        __atomic_store_n(&shr_ucx.offload_live, true, __ATOMIC_RELAXED);
        __atomic_store_n(&shr_ucx_pt.offload_idle, true, __ATOMIC_SEQ_CST);
    }
}

void shr_ucx_progress_thread_offload(void)
{
    __atomic_fetch_add(&shr_ucx.offload_bufs, 1, __ATOMIC_SEQ_CST);
    if (__atomic_exchange_n(&shr_ucx_pt.offload_idle, false, __ATOMIC_SEQ_CST)) {
        __atomic_store_n(&shr_ucx_pt.offload_due, true, __ATOMIC_RELAXED);
        shr_ucx_pt_wake();
    }
}

/* Idle mode's sleep of `ms` milliseconds; true when asked to stop.  In one
 * piece (a first coalescing buffer's kick ends it), or, while buffers
 * fill, in slices of the age, sending those that outlived one. */
static bool shr_ucx_pt_idle_sleep(int ms)
{
    uint64_t now = shr_ucx_pt_now(), end = now + (uint64_t)ms * 1000000u, seen = now;

    for (; now < end; now = shr_ucx_pt_now()) {
        uint64_t ns = end - now;
        shr_ucx_pt_offload_resume(now);
        if (!shr_ucx_pt.watching) {
            /* either the filler sees this flag or this thread its count */
            __atomic_store_n(&shr_ucx_pt.sleeping_long, true, __ATOMIC_SEQ_CST);
            if (__atomic_load_n(&shr_ucx.agg_workers, __ATOMIC_SEQ_CST) != 0) {
                __atomic_store_n(&shr_ucx_pt.sleeping_long, false, __ATOMIC_RELAXED);
                shr_ucx_pt.watching = true;
                seen = now;
            }
        }
        if (shr_ucx_pt.watching && ns > SHR_UCX_AGG_AGE_NS) {
            ns = SHR_UCX_AGG_AGE_NS;
        }
        if (shr_ucx_pt.offload_resume != 0 && ns > shr_ucx_pt.offload_resume - now) {
            ns = shr_ucx_pt.offload_resume - now; /* (resume above: it is ahead) */
        }
        struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u),
                              .tv_nsec = (long)(ns % 1000000000u)};
        struct pollfd pfd = {.fd = shr_ucx_pt.idle_ep, .events = POLLIN};
        struct epoll_event ev;
        if (ppoll(&pfd, 1, &ts, NULL) > 0 && epoll_wait(shr_ucx_pt.idle_ep, &ev, 1, 0) > 0) {
            if (ev.data.fd == shr_ucx_pt.stopfd) {
                return true;
            }
            uint64_t kicks;
            (void)!read(shr_ucx_pt.kickfd, &kicks, sizeof(kicks));
            shr_ucx_pt.watching = true;
            seen = shr_ucx_pt_now();
        }
        if (shr_ucx_pt_offload_if_due()) {
            return true;
        }
        if (shr_ucx_pt.watching) {
            now = shr_ucx_pt_now();
            if (shr_ucx_agg_flush_all(SHR_UCX_FLUSH_AGED)) {
                seen = now;
            } else if (now - seen > SHR_UCX_AGG_WATCH_NS) {
                shr_ucx_pt.watching = false;
            }
        }
    }
    return false;
}

void shr_ucx_progress_all(void)
{
    shr_ucx_worker_t *d = shr_ucx.dflt;

    if (SHR_UNLIKELY(!shr_ucx.active)) {
        return;
    }
    __atomic_fetch_add(&shr_ucx.activity, 1, __ATOMIC_RELAXED);
    shr_ucx_agg_poll(); /* a waiting PE sends what it coalesced */
    shr_ucx_drive(d); /* (not if another thread holding it drives it already) */
    /* shared user contexts (and those that coalesced default-path
     * operations) with operations or coalescing buffers in flight: their
     * sends may need a push.  Private and serialized ones belong to one
     * thread at a time (not necessarily this one): their own calls drive
     * them.  The list may change under us only with its lock held. */
    if (__atomic_load_n(&d->next, __ATOMIC_ACQUIRE) != NULL &&
        pthread_mutex_trylock(&shr_ucx.list_lock) == 0) {
        for (shr_ucx_worker_t *w = d->next; w != NULL; w = w->next) {
            if (__atomic_load_n(&w->must_lock, __ATOMIC_RELAXED) &&
                (__atomic_load_n(&w->n_dirty, __ATOMIC_RELAXED) != 0 ||
                 __atomic_load_n(&w->agg_oldest, __ATOMIC_RELAXED) != UINT64_MAX) &&
                pthread_mutex_trylock(&w->lock) == 0) {
                ucp_worker_progress(w->worker);
                pthread_mutex_unlock(&w->lock);
            }
        }
        pthread_mutex_unlock(&shr_ucx.list_lock);
    }
}

/* The wait primitive's nap: drain the default worker, arm it and sleep on
 * its event fd, so that the first message from a peer ends the nap (the
 * waiter's next progress serves it) instead of waiting out the sleep. */
bool shr_ucx_nap(uint64_t ns)
{
    shr_ucx_worker_t *d = shr_ucx.dflt;
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
    int efd = -1;

    if (shr_ucx.active && shr_ucx.wakeup && pthread_mutex_trylock(&d->lock) == 0) {
        while (ucp_worker_progress(d->worker) != 0) {
        }
        ucs_status_t st = ucp_worker_arm(d->worker);
        if (st == UCS_OK) {
            (void)ucp_worker_get_efd(d->worker, &efd);
        }
        pthread_mutex_unlock(&d->lock);
        if (st == UCS_ERR_BUSY) {
            return true; /* something arrived meanwhile: poll again */
        }
    }
    if (efd < 0) {
        nanosleep(&ts, NULL); /* someone else drives the worker, or no fd */
        return false;
    }
    struct pollfd pfd = {.fd = efd, .events = POLLIN};
    return ppoll(&pfd, 1, &ts, NULL) > 0;
}

bool shr_ucx_progress_thread_wanted(void)
{
    switch (shr_config.progress_thread) {
    case SHR_PROGRESS_THREAD_ON:
        return true;
    case SHR_PROGRESS_THREAD_OFF:
        return false;
    default:
        /* auto: whenever a peer is reached through UCX.  The atomicity
         * design makes UCX execute remote atomics at the target in software
         * on every network (docs/ucx.md), and TCP needs the target for RMA
         * too; a job whose PEs all share memory never gets here. */
        return shr_ucx.n_remote > 0;
    }
}

/* Drains the default worker and arms it (lock held by the caller).  True
 * when it is armed: nothing pending, the event fd will fire. */
static bool shr_ucx_pt_drain_arm(shr_ucx_worker_t *d)
{
    while (ucp_worker_progress(d->worker) != 0) {
    }
    ucs_status_t st = ucp_worker_arm(d->worker);
    if (st == UCS_ERR_BUSY) {
        return false;
    }
    if (st != UCS_OK) {
        shr_ucx_status(st, "progress thread: arming the UCX worker");
    }
    return true;
}

static void *shr_ucx_pt_main(void *arg)
{
    shr_ucx_worker_t *d = shr_ucx.dflt;
    long interval_us = shr_config.progress_interval > 0 ? shr_config.progress_interval : 1000;
    int interval_ms = (int)((interval_us + 999) / 1000), idle_ms = interval_ms;
    uint64_t seen = __atomic_load_n(&shr_ucx.activity, __ATOMIC_RELAXED);
    bool event_mode = false;
    struct epoll_event ev;

    (void)arg;
    for (;;) {
        if (!event_mode) {
            /* idle mode: the stop fd is the only event watched */
            if (shr_ucx_pt_idle_sleep(idle_ms)) {
                break;
            }
            uint64_t now = __atomic_load_n(&shr_ucx.activity, __ATOMIC_RELAXED);
            if (now != seen) {
                /* the application is driving: look again later and later
                 * (up to 16 intervals), so that a PE in the library long
                 * is not interrupted a thousand times a second */
                seen = now;
                idle_ms = idle_ms < 16 * interval_ms ? 2 * idle_ms : idle_ms;
                continue;
            }
            idle_ms = interval_ms;
            /* watch the worker's fd only now: a registered fd costs every
             * incoming packet a walk through the nested epoll sets */
            struct epoll_event add = {.events = EPOLLIN, .data.fd = shr_ucx_pt.efd};
            if (epoll_ctl(shr_ucx_pt.event_ep, EPOLL_CTL_ADD, shr_ucx_pt.efd, &add) != 0) {
                shr_warn_once("progress thread: epoll_ctl: %m; peers wait while this PE "
                              "computes");
                continue;
            }
            event_mode = true;
            shr_debug(SHR_LOG_UCX, "progress thread: application idle, serving peers");
        }
        pthread_mutex_lock(&d->lock);
        bool armed = shr_ucx_pt_drain_arm(d);
        pthread_mutex_unlock(&d->lock);
        if (!armed) {
            continue;
        }
        /* event mode: sleep until a peer's message (or stop) arrives; the
         * long timeout only re-checks whether the application came back */
        ev.data.fd = -1;
        shr_ucx_pt_offload_resume(shr_ucx_pt_now());
        __atomic_store_n(&shr_ucx_pt.sleeping_long, true, __ATOMIC_SEQ_CST);
        int timeout_ms = 100;
        /* the program has been away for an interval: what it coalesced is
         * old; a worker held by another thread is tried again soon */
        if (__atomic_load_n(&shr_ucx.agg_workers, __ATOMIC_SEQ_CST) != 0 &&
            shr_ucx_agg_flush_all(SHR_UCX_FLUSH_ALL)) {
            timeout_ms = 1;
        }
        if (shr_ucx_pt.offload_resume != 0) {
            timeout_ms = 1; /* the offload's back-off ends within 1 ms */
        }
        int n = epoll_wait(shr_ucx_pt.event_ep, &ev, 1, timeout_ms);
        if (n > 0 && ev.data.fd == shr_ucx_pt.stopfd) {
            break;
        }
        if (n > 0 && ev.data.fd == shr_ucx_pt.kickfd) {
            uint64_t kicks; /* the program issued: the activity check below sees it */
            (void)!read(shr_ucx_pt.kickfd, &kicks, sizeof(kicks));
            if (shr_ucx_pt_offload_if_due()) {
                break;
            }
        }
        uint64_t now = __atomic_load_n(&shr_ucx.activity, __ATOMIC_RELAXED);
        if (now != seen) {
            seen = now;
            event_mode = false; /* back in the library: it drives again */
            epoll_ctl(shr_ucx_pt.event_ep, EPOLL_CTL_DEL, shr_ucx_pt.efd, NULL);
        }
    }
    return NULL;
}

shr_status_t shr_ucx_progress_thread_start(const char *routine)
{
    struct epoll_event ev = {.events = EPOLLIN};
    shr_status_t status;
    int err;

    status = shr_ucx_status(ucp_worker_get_efd(shr_ucx.dflt->worker, &shr_ucx_pt.efd),
                            "%s: the UCX worker's event fd (for the progress thread)", routine);
    if (status != SHR_OK) {
        return status;
    }
    shr_ucx_pt.idle_ep = epoll_create1(EPOLL_CLOEXEC);
    shr_ucx_pt.event_ep = epoll_create1(EPOLL_CLOEXEC);
    shr_ucx_pt.stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    shr_ucx_pt.kickfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (shr_ucx_pt.idle_ep < 0 || shr_ucx_pt.event_ep < 0 || shr_ucx_pt.stopfd < 0 ||
        shr_ucx_pt.kickfd < 0) {
        shr_error("%s: cannot create the progress thread's event fds: %m", routine);
        goto err;
    }
    ev.data.fd = shr_ucx_pt.stopfd;
    struct epoll_event kick = {.events = EPOLLIN, .data.fd = shr_ucx_pt.kickfd};
    if (epoll_ctl(shr_ucx_pt.idle_ep, EPOLL_CTL_ADD, shr_ucx_pt.stopfd, &ev) != 0 ||
        epoll_ctl(shr_ucx_pt.event_ep, EPOLL_CTL_ADD, shr_ucx_pt.stopfd, &ev) != 0 ||
        epoll_ctl(shr_ucx_pt.idle_ep, EPOLL_CTL_ADD, shr_ucx_pt.kickfd, &kick) != 0 ||
        epoll_ctl(shr_ucx_pt.event_ep, EPOLL_CTL_ADD, shr_ucx_pt.kickfd, &kick) != 0) {
        shr_error("%s: epoll_ctl: %m", routine);
        goto err;
    }
    shr_ucx.dflt->must_lock = true;
    shr_ucx_pt.offload_idle = true; /* kicked only with shr_ucx.offload */
    err = pthread_create(&shr_ucx_pt.thread, NULL, shr_ucx_pt_main, NULL);
    if (err != 0) {
        errno = err;
        shr_error("%s: cannot start the progress thread: %m; set SHIMMER_PROGRESS_THREAD=off "
                  "to run without (peers then wait while this PE computes)", routine);
        goto err;
    }
    shr_ucx_pt.running = true;
    shr_debug(SHR_LOG_UCX, "progress thread started");
    return SHR_OK;

err:
    shr_ucx_progress_thread_stop();
    return SHR_ERR_NO_RESOURCE;
}

void shr_ucx_progress_thread_stop(void)
{
    if (shr_ucx_pt.running) {
        uint64_t one = 1;
        __atomic_store_n(&shr_ucx_pt.stopping, true, __ATOMIC_RELAXED);
        if (write(shr_ucx_pt.stopfd, &one, sizeof(one)) != sizeof(one)) {
            shr_warn("progress thread: cannot signal it to stop: %m");
        }
        pthread_join(shr_ucx_pt.thread, NULL);
        shr_ucx_pt.running = false;
        if (shr_ucx.offload) {
            shr_debug(SHR_LOG_UCX, "progress thread: the offload sent buffers %" PRIu64 " times",
                      shr_ucx_pt.offload_sent);
        }
    }
    int *fds[] = {&shr_ucx_pt.idle_ep, &shr_ucx_pt.event_ep, &shr_ucx_pt.stopfd,
                  &shr_ucx_pt.kickfd};
    for (size_t i = 0; i < SHR_ARRAY_SIZE(fds); i++) {
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
    }
    shr_ucx_pt = (shr_ucx_pt_t)SHR_UCX_PT_IDLE; /* for the next init */
}
