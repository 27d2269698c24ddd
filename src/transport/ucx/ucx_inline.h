/*
 * ucx_inline.h -- the UCX data path: from (context, symmetric address, PE)
 * to one non-blocking UCP call.  Cached endpoint and key: a table load, a
 * segment test, the post.  First contact with a PE leaves through the cold
 * shr_ucx_peer_connect.
 *
 * Completion: every request UCX returns is counted in a completion object
 * (core/team.h's shr_cmpl_t) and its callback drops the count; a blocking
 * operation counts in one on its stack and waits for it.
 *
 * Locking: a worker whose context other threads may use, or that the
 * progress thread may drive, has must_lock set; its mutex is held around
 * posting and around each progress call, never across a wait: a thread
 * waiting for its operations leaves the worker to the others in between.
 * A worker one thread uses (a private context's) marks the sections it
 * runs without the mutex (w->bare), so that another thread's wait for a
 * handle with a part there may switch the lock on (shr_ucx_worker_share).
 */
#ifndef SHR_UCX_INLINE_H
#define SHR_UCX_INLINE_H

#include <sched.h>
#include <string.h>

#include "transport/ucx/ucx.h"

static SHR_ALWAYS_INLINE shr_ucx_worker_t *shr_ucx_ctx_worker(shr_ctx_t *ctx)
{
    /* the default context's transport field is NULL: core clears it */
    return ctx->transport != NULL ? (shr_ucx_worker_t *)ctx->transport : shr_ucx.dflt;
}

/* Enters a section on w without its mutex, unless must_lock is set by
 * now: false then (w untouched).  The store of bare comes before the load
 * of must_lock; shr_ucx_worker_share's membarrier orders them against its
 * store of must_lock and its load of bare (a plain store and load here). */
static SHR_ALWAYS_INLINE bool shr_ucx_bare_enter(shr_ucx_worker_t *w)
{
    __atomic_store_n(&w->bare, 1, SHR_UCX_BARE_ORDER);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (SHR_LIKELY(!__atomic_load_n(&w->must_lock, SHR_UCX_BARE_ORDER))) {
        return true;
    }
    __atomic_store_n(&w->bare, 0, __ATOMIC_RELAXED);
    return false;
}

static SHR_ALWAYS_INLINE void shr_ucx_bare_leave(shr_ucx_worker_t *w)
{
    __atomic_store_n(&w->bare, 0, __ATOMIC_RELEASE); /* after everything done on w */
}

/* Holds w for one operation: its mutex if it must lock, else an unlocked
 * section.  Returns whether it took the mutex, for shr_ucx_unlock. */
static SHR_ALWAYS_INLINE bool shr_ucx_lock(shr_ucx_worker_t *w)
{
    if (!__atomic_load_n(&w->must_lock, __ATOMIC_RELAXED) && shr_ucx_bare_enter(w)) {
        return false;
    }
    pthread_mutex_lock(&w->lock);
    return true;
}

static SHR_ALWAYS_INLINE void shr_ucx_unlock(shr_ucx_worker_t *w, bool locked)
{
    if (locked) {
        pthread_mutex_unlock(&w->lock);
    } else {
        shr_ucx_bare_leave(w);
    }
}

/* w is a private context's and this thread did not create it (a wait
 * for a handle with a part there, or a walk of every worker). */
static SHR_ALWAYS_INLINE bool shr_ucx_foreign(const shr_ucx_worker_t *w)
{
    return w->owned && !pthread_equal(w->owner, pthread_self());
}

/* A wait or test of a request handle's part on w's context: from a
 * thread other than its owner, the lock must be real first. */
static SHR_ALWAYS_INLINE void shr_ucx_adopt(shr_ucx_worker_t *w)
{
    if (SHR_UNLIKELY(w->owned) && !__atomic_load_n(&w->must_lock, __ATOMIC_RELAXED) &&
        shr_ucx_foreign(w)) {
        shr_ucx_worker_share(w);
    }
}

/* Called with w's lock held; every operation comes through here, so it
 * also tells the progress thread that the application is in the library. */
static SHR_ALWAYS_INLINE shr_ucx_peer_t *shr_ucx_peer(shr_ucx_worker_t *w, int pe)
{
    shr_ucx_peer_t *peer = w->peers[pe];

    __atomic_fetch_add(&shr_ucx.activity, 1, __ATOMIC_RELAXED);
    if (SHR_LIKELY(peer != NULL)) {
        /* coalesced operations to pe leave first: nothing overtakes them */
        if (SHR_UNLIKELY(peer->agg != NULL)) {
            shr_ucx_agg_send(w, peer, pe, true);
        }
        return peer;
    }
    return shr_ucx_peer_connect(w, pe);
}

/* A context other threads may issue on while one quiets (the spec's
 * shared contexts). */
static SHR_ALWAYS_INLINE bool shr_ucx_ctx_is_shared(const shr_ctx_t *ctx)
{
    return shr_g.thread_level == SHMEM_THREAD_MULTIPLE && !(ctx->options & SHMEM_CTX_PRIVATE);
}

/* Remote address and key of the symmetric `addr` on `peer`. */
static SHR_ALWAYS_INLINE uint64_t shr_ucx_raddr(const shr_ucx_peer_t *peer, const void *addr,
                                                ucp_rkey_h *rkey_p)
{
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        uintptr_t off = (uintptr_t)addr - shr_g.seg[s].base;
        if (SHR_LIKELY(off < shr_g.seg[s].size)) {
            *rkey_p = peer->rkey[s];
            return peer->base[s] + off;
        }
    }
    *rkey_p = NULL; /* callers checked the address: not reached */
    return 0;
}

/* ---- completion objects ---- */

/* UCX's callback of every counted request (ucx_rma.c). */
void shr_ucx_cmpl_cb(void *request, ucs_status_t status, void *user_data);

/* Asks UCX to report the operation of `param` to completion object c. */
static SHR_ALWAYS_INLINE void shr_ucx_param_cmpl(ucp_request_param_t *param, shr_cmpl_t *c)
{
    param->op_attr_mask |= UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param->cb.send = shr_ucx_cmpl_cb;
    param->user_data = c;
}

/* Counts the request a post returned in c: NULL is done already, an error
 * pointer a failed post (its status returned).  Called with the worker's
 * lock held (or by its only thread), so the callback cannot run first. */
static SHR_ALWAYS_INLINE ucs_status_t shr_ucx_track(void *req, shr_cmpl_t *c)
{
    if (SHR_LIKELY(req == NULL)) {
        return UCS_OK;
    }
    if (UCS_PTR_IS_ERR(req)) {
        return UCS_PTR_STATUS(req);
    }
    __atomic_fetch_add(&c->pending, 1, __ATOMIC_RELAXED);
    return UCS_OK;
}

static SHR_ALWAYS_INLINE bool shr_ucx_cmpl_done(const shr_cmpl_t *c)
{
    return __atomic_load_n(&c->pending, __ATOMIC_ACQUIRE) == 0;
}

/* One progress call on w unless another thread is driving it already. */
static SHR_ALWAYS_INLINE void shr_ucx_drive(shr_ucx_worker_t *w)
{
    if (!__atomic_load_n(&w->must_lock, __ATOMIC_RELAXED) && shr_ucx_bare_enter(w)) {
        ucp_worker_progress(w->worker);
        shr_ucx_bare_leave(w);
    } else if (pthread_mutex_trylock(&w->lock) == 0) {
        ucp_worker_progress(w->worker);
        pthread_mutex_unlock(&w->lock);
    }
}

/* One round of every wait of this transport: sends what this PE
 * coalesced (shr_ucx_agg_poll), drives w and, if it is another worker,
 * the default one too -- incoming operations must not wait for this
 * thread to leave.  No lock is held between progress calls.
 * Like every wait (core/wait_inline.h) it polls shr_g.wait_spin times and
 * then yields the CPU each round: a peer on an oversubscribed machine may
 * need it to answer.  While more of this PE's threads wait than its own
 * CPU plus the machine's spare ones (shr_ucx.waiters > 1 +
 * shr_g.spare_cpus; waiters is counted by the waits that
 * call this), it polls only shr_g.wait_spin_crowded times: 4 threads
 * spinning on 2 cores kept the answering PE off them for whole time
 * slices.  Counts as application activity (ucx_progress.c).
 * shr_ucx_cmpl_wait returns the transport status of the first failure,
 * UCS_OK if none. */
static SHR_ALWAYS_INLINE void shr_ucx_wait_round(shr_ucx_worker_t *w, unsigned *spins)
{
    __atomic_fetch_add(&shr_ucx.activity, 1, __ATOMIC_RELAXED);
    shr_ucx_agg_poll();
    shr_ucx_drive(w);
    if (w != shr_ucx.dflt) {
        shr_ucx_drive(shr_ucx.dflt);
    }
    if (SHR_UNLIKELY(++*spins > shr_g.wait_spin_crowded) &&
        (*spins > shr_g.wait_spin ||
         __atomic_load_n(&shr_ucx.waiters, __ATOMIC_RELAXED) > 1 + shr_g.spare_cpus)) {
        sched_yield();
    }
}

/* Waits (shr_ucx_wait_round) until c counts nothing. */
static SHR_ALWAYS_INLINE ucs_status_t shr_ucx_cmpl_wait(shr_ucx_worker_t *w, shr_cmpl_t *c)
{
    unsigned spins = 0;

    if (!shr_ucx_cmpl_done(c)) {
        __atomic_fetch_add(&shr_ucx.waiters, 1, __ATOMIC_RELAXED);
        do {
            shr_ucx_wait_round(w, &spins);
        } while (!shr_ucx_cmpl_done(c));
        __atomic_fetch_sub(&shr_ucx.waiters, 1, __ATOMIC_RELAXED);
    }
    return (ucs_status_t)__atomic_load_n(&c->status, __ATOMIC_ACQUIRE);
}

/* Records that `peer` has operations to complete at the next quiet. */
static SHR_ALWAYS_INLINE void shr_ucx_mark(shr_ucx_worker_t *w, shr_ucx_peer_t *peer, int pe)
{
    if (!peer->dirty) {
        int n = w->n_dirty;
        peer->dirty = true;
        w->dirty[n] = pe;
        /* the progress thread peeks at the count without the lock */
        __atomic_store_n(&w->n_dirty, n + 1, __ATOMIC_RELAXED);
    }
}

/* Posts a put counted in c; marks the endpoint for quiet (remote
 * completion).  Lock held. */
static SHR_ALWAYS_INLINE ucs_status_t shr_ucx_put(shr_ucx_worker_t *w, void *dest,
                                                  const void *src, size_t len, int pe,
                                                  shr_cmpl_t *c)
{
    ucp_request_param_t param = {.op_attr_mask = 0};
    shr_ucx_peer_t *peer = shr_ucx_peer(w, pe);
    ucp_rkey_h rkey;
    uint64_t raddr = shr_ucx_raddr(peer, dest, &rkey);

    shr_ucx_param_cmpl(&param, c);
    shr_ucx_mark(w, peer, pe);
    return shr_ucx_track(ucp_put_nbx(peer->ep, src, len, raddr, rkey, &param), c);
}

/* Posts a get counted in c; `mark`: quiet completes it too (a
 * non-blocking get).  Lock held. */
static SHR_ALWAYS_INLINE ucs_status_t shr_ucx_get(shr_ucx_worker_t *w, void *dest,
                                                  const void *src, size_t len, int pe,
                                                  shr_cmpl_t *c, bool mark)
{
    ucp_request_param_t param = {.op_attr_mask = 0};
    shr_ucx_peer_t *peer = shr_ucx_peer(w, pe);
    ucp_rkey_h rkey;
    uint64_t raddr = shr_ucx_raddr(peer, src, &rkey);

    shr_ucx_param_cmpl(&param, c);
    if (mark) {
        shr_ucx_mark(w, peer, pe);
    }
    return shr_ucx_track(ucp_get_nbx(peer->ep, dest, len, raddr, rkey, &param), c);
}

#endif
