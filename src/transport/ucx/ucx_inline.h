/*
 * ucx_inline.h -- the UCX data path: from (context, symmetric address, PE)
 * to one non-blocking UCP call.  Cached endpoint and key: a table load, a
 * segment test, the post.  First contact with a PE leaves through the cold
 * shr_ucx_peer_connect.
 *
 * Locking: a worker whose context other threads may use, or that the
 * progress thread may drive, has must_lock set; every path below takes its
 * mutex around UCP calls.  Waits release nothing in between: a blocked
 * caller keeps driving the worker it waits on (and the default worker, for
 * the operations peers aim at this PE).
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

static SHR_ALWAYS_INLINE void shr_ucx_lock(shr_ucx_worker_t *w)
{
    if (w->must_lock) {
        pthread_mutex_lock(&w->lock);
    }
}

static SHR_ALWAYS_INLINE void shr_ucx_unlock(shr_ucx_worker_t *w)
{
    if (w->must_lock) {
        pthread_mutex_unlock(&w->lock);
    }
}

/* Called with w's lock held; every operation comes through here, so it
 * also tells the progress thread that the application is in the library. */
static SHR_ALWAYS_INLINE shr_ucx_peer_t *shr_ucx_peer(shr_ucx_worker_t *w, int pe)
{
    shr_ucx_peer_t *peer = w->peers[pe];

    __atomic_fetch_add(&shr_ucx.activity, 1, __ATOMIC_RELAXED);
    if (SHR_LIKELY(peer != NULL)) {
        return peer;
    }
    return shr_ucx_peer_connect(w, pe);
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

/* One step of every wait: w (held by the caller) and, if it is another
 * worker, the default one -- incoming operations must not wait for this
 * thread to leave.  Counts as application activity (ucx_progress.c). */
static SHR_ALWAYS_INLINE void shr_ucx_wait_step(shr_ucx_worker_t *w)
{
    __atomic_fetch_add(&shr_ucx.activity, 1, __ATOMIC_RELAXED);
    ucp_worker_progress(w->worker);
    if (w != shr_ucx.dflt) {
        shr_ucx_worker_t *d = shr_ucx.dflt;
        if (!d->must_lock || pthread_mutex_trylock(&d->lock) == 0) {
            ucp_worker_progress(d->worker);
            shr_ucx_unlock(d);
        }
    }
}

/* Waits for a request of w (lock held) and frees it; the operation's
 * status.  NULL is immediate success, an error pointer its status.  Like
 * every wait (core/wait_inline.h), it polls shr_g.wait_spin times and then
 * yields the CPU each round: a peer on an oversubscribed machine may need
 * it to answer. */
static SHR_ALWAYS_INLINE ucs_status_t shr_ucx_request_wait(shr_ucx_worker_t *w, void *req)
{
    unsigned spins = 0;
    ucs_status_t st;

    if (SHR_LIKELY(req == NULL)) {
        return UCS_OK;
    }
    if (UCS_PTR_IS_ERR(req)) {
        return UCS_PTR_STATUS(req);
    }
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        shr_ucx_wait_step(w);
        if (SHR_UNLIKELY(++spins > shr_g.wait_spin)) {
            sched_yield();
        }
    }
    ucp_request_free(req);
    return st;
}

/* Lets a non-blocking operation run on; its completion is the next flush's
 * business.  The status of a failed post. */
static SHR_ALWAYS_INLINE ucs_status_t shr_ucx_request_detach(void *req)
{
    if (SHR_LIKELY(req == NULL)) {
        return UCS_OK;
    }
    if (UCS_PTR_IS_ERR(req)) {
        return UCS_PTR_STATUS(req);
    }
    ucp_request_free(req); /* UCX releases it when the operation completes */
    return UCS_OK;
}

/* Records that `peer` has operations to complete at the next quiet. */
static SHR_ALWAYS_INLINE void shr_ucx_mark(shr_ucx_worker_t *w, shr_ucx_peer_t *peer, int pe)
{
    if (!peer->dirty) {
        peer->dirty = true;
        w->dirty[w->n_dirty++] = pe;
    }
}

static SHR_ALWAYS_INLINE ucs_status_t shr_ucx_put(shr_ucx_worker_t *w, void *dest,
                                                  const void *src, size_t len, int pe, bool nbi)
{
    ucp_request_param_t param = {.op_attr_mask = 0};
    shr_ucx_peer_t *peer = shr_ucx_peer(w, pe);
    ucp_rkey_h rkey;
    uint64_t raddr = shr_ucx_raddr(peer, dest, &rkey);
    void *req = ucp_put_nbx(peer->ep, src, len, raddr, rkey, &param);

    shr_ucx_mark(w, peer, pe); /* remote completion is quiet's */
    /* blocking put: returns once src may be reused (local completion) */
    return nbi ? shr_ucx_request_detach(req) : shr_ucx_request_wait(w, req);
}

static SHR_ALWAYS_INLINE ucs_status_t shr_ucx_get(shr_ucx_worker_t *w, void *dest,
                                                  const void *src, size_t len, int pe, bool nbi)
{
    ucp_request_param_t param = {.op_attr_mask = 0};
    shr_ucx_peer_t *peer = shr_ucx_peer(w, pe);
    ucp_rkey_h rkey;
    uint64_t raddr = shr_ucx_raddr(peer, src, &rkey);
    void *req = ucp_get_nbx(peer->ep, dest, len, raddr, rkey, &param);

    if (nbi) {
        shr_ucx_mark(w, peer, pe); /* dest is written by the next quiet at the latest */
        return shr_ucx_request_detach(req);
    }
    return shr_ucx_request_wait(w, req);
}

#endif
