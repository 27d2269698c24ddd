/*
 * ucx_rma.c -- the data operations of the transport table (core/remote.h)
 * over UCX: put, get, atomics, put-with-signal, fence, quiet, wait.
 *
 * Atomics (docs/ucx.md, "Atomicity"): the context runs with UCX's CPU
 * atomic mode, so on a network without CPU-coherent atomics UCX executes
 * the operation at the target with the same locked CPU instructions as the
 * node's own path (amo_inline.h): one location stays atomic whichever PE
 * and path issue the operations.
 *
 * Completion: each operation is counted in the completion object core
 * passes (its callback drops the count); a blocking one counts in one of
 * its own and waits for it without holding the worker's lock.  Puts, AMOs
 * and non-blocking gets also mark their endpoint dirty: quiet posts a flush
 * of every dirty endpoint (remote completion) and waits until the
 * context's count is zero -- on a context shared between threads, until
 * its own flushes are done, since other threads may keep issuing.
 */
#include "core/remote.h"

#include <stdlib.h>

#include "transport/ucx/ucx_inline.h"

void shr_ucx_cmpl_cb(void *request, ucs_status_t status, void *user_data)
{
    shr_cmpl_t *c = user_data;
    int ok = UCS_OK;

    if (SHR_UNLIKELY(status != UCS_OK)) {
        __atomic_compare_exchange_n(&c->status, &ok, (int)status, false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
    }
    ucp_request_free(request);
    /* last: the waiter may return (and its stack go) at once */
    __atomic_fetch_sub(&c->pending, 1, __ATOMIC_RELEASE);
}

/* Waits for a blocking operation's own completion object; ends the job if
 * the operation failed. */
static void shr_ucx_wait_own(shr_ucx_worker_t *w, shr_cmpl_t *c, const char *op, int pe)
{
    ucs_status_t st = shr_ucx_cmpl_wait(w, c);

    if (SHR_UNLIKELY(st != UCS_OK)) {
        shr_ucx_fatal(st, op, pe);
    }
}

void shr_ucx_put_op(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                    shr_cmpl_t *cmpl)
{
    shr_ucx_worker_t *w = shr_ucx_ctx_worker(ctx);
    shr_cmpl_t own = {0};
    ucs_status_t st;

    bool locked = shr_ucx_lock(w);
    st = shr_ucx_put(w, dest, src, len, pe, cmpl != NULL ? cmpl : &own);
    shr_ucx_unlock(w, locked);
    if (SHR_UNLIKELY(st != UCS_OK)) {
        shr_ucx_fatal(st, "a put to", pe);
    }
    if (cmpl == NULL) {
        shr_ucx_wait_own(w, &own, "a put to", pe); /* local completion: src reusable */
    }
}

void shr_ucx_get_op(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                    shr_cmpl_t *cmpl)
{
    shr_ucx_worker_t *w = shr_ucx_ctx_worker(ctx);
    shr_cmpl_t own = {0};
    ucs_status_t st;

    bool locked = shr_ucx_lock(w);
    st = shr_ucx_get(w, dest, src, len, pe, cmpl != NULL ? cmpl : &own, cmpl != NULL);
    shr_ucx_unlock(w, locked);
    if (SHR_UNLIKELY(st != UCS_OK)) {
        shr_ucx_fatal(st, "a get from", pe);
    }
    if (cmpl == NULL) {
        shr_ucx_wait_own(w, &own, "a get from", pe);
    }
}

/* The UCP operation of each shr_amo_op_t.  UCP has no plain fetch
 * (fetch-or 0 reads atomically) and no plain set (a swap whose old value
 * goes to the worker's sink). */
static const ucp_atomic_op_t shr_ucx_amo_table[] = {
    [SHR_AMO_FETCH] = UCP_ATOMIC_OP_OR,
    [SHR_AMO_SET] = UCP_ATOMIC_OP_SWAP,
    [SHR_AMO_SWAP] = UCP_ATOMIC_OP_SWAP,
    [SHR_AMO_CSWAP] = UCP_ATOMIC_OP_CSWAP,
    [SHR_AMO_ADD] = UCP_ATOMIC_OP_ADD,
    [SHR_AMO_FETCH_ADD] = UCP_ATOMIC_OP_ADD,
    [SHR_AMO_AND] = UCP_ATOMIC_OP_AND,
    [SHR_AMO_FETCH_AND] = UCP_ATOMIC_OP_AND,
    [SHR_AMO_OR] = UCP_ATOMIC_OP_OR,
    [SHR_AMO_FETCH_OR] = UCP_ATOMIC_OP_OR,
    [SHR_AMO_XOR] = UCP_ATOMIC_OP_XOR,
    [SHR_AMO_FETCH_XOR] = UCP_ATOMIC_OP_XOR,
};

typedef union {
    uint32_t u32;
    uint64_t u64;
} shr_ucx_word_t;

static SHR_ALWAYS_INLINE void shr_ucx_word_set(shr_ucx_word_t *w, uint64_t v, size_t size)
{
    if (size == 4) {
        w->u32 = (uint32_t)v;
    } else {
        w->u64 = v;
    }
}

/* Posts `op` with `operand` (UCP's "buffer"): the value, 0 for a fetch,
 * the compare value for CSWAP.  `reply` receives the old value, NULL for a
 * non-fetching operation; for CSWAP it holds the new value on entry (UCP:
 * result = *remote; if (*buffer == *remote) *remote = *reply).  Counted in
 * c; `mark`: quiet completes it.  Lock held. */
static SHR_ALWAYS_INLINE ucs_status_t shr_ucx_amo_post(shr_ucx_worker_t *w, shr_amo_op_t op,
                                                       void *dest, uint64_t operand_value,
                                                       size_t size, int pe, void *reply,
                                                       shr_cmpl_t *c, bool mark)
{
    shr_ucx_peer_t *peer = shr_ucx_peer(w, pe);
    ucp_request_param_t param;
    shr_ucx_word_t operand;
    ucp_rkey_h rkey;
    uint64_t raddr = shr_ucx_raddr(peer, dest, &rkey);

    shr_ucx_word_set(&operand, operand_value, size);
    param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
    param.datatype = ucp_dt_make_contig(size);
    if (reply != NULL) {
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        param.reply_buffer = reply;
    }
    shr_ucx_param_cmpl(&param, c);
    if (mark) {
        shr_ucx_mark(w, peer, pe);
    }
    /* UCP copies the operand at the call */
    return shr_ucx_track(
        ucp_atomic_op_nbx(peer->ep, shr_ucx_amo_table[op], &operand, 1, raddr, rkey, &param), c);
}

static SHR_ALWAYS_INLINE uint64_t shr_ucx_amo_operand(shr_amo_op_t op, uint64_t value,
                                                      uint64_t cond)
{
    return op == SHR_AMO_FETCH ? 0 : op == SHR_AMO_CSWAP ? cond : value;
}

void shr_ucx_amo_op(shr_ctx_t *ctx, shr_amo_op_t op, void *fetch, void *dest, uint64_t value,
                    uint64_t cond, size_t size, int pe, shr_cmpl_t *cmpl)
{
    shr_ucx_worker_t *w = shr_ucx_ctx_worker(ctx);
    shr_cmpl_t own = {0};
    ucs_status_t st;

    /* CSWAP's reply buffer holds the new value on entry; an nbi fetch
     * buffer is undefined until quiet, so it may carry it meanwhile */
    if (op == SHR_AMO_CSWAP) {
        memcpy(fetch, size == 4 ? (void *)&(uint32_t){(uint32_t)value} : (void *)&value, size);
    }
    bool locked = shr_ucx_lock(w);
    st = shr_ucx_amo_post(w, op, dest, shr_ucx_amo_operand(op, value, cond), size, pe,
                          fetch != NULL ? fetch : op == SHR_AMO_SET ? &w->sink : NULL,
                          cmpl != NULL ? cmpl : &own, cmpl != NULL);
    shr_ucx_unlock(w, locked);
    if (SHR_UNLIKELY(st != UCS_OK)) {
        shr_ucx_fatal(st, "an atomic operation on", pe);
    }
    if (cmpl == NULL) {
        shr_ucx_wait_own(w, &own, "an atomic operation on", pe);
    }
}

void shr_ucx_put_signal_op(shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                           uint64_t *sig, uint64_t value, int sig_op, int pe, shr_cmpl_t *cmpl)
{
    if (len != 0) {
        shr_ucx_put_op(ctx, dest, src, len, pe, cmpl);
    }
    shr_ucx_fence_op(ctx); /* the flag must not overtake its data */
    shr_ucx_amo_op(ctx, sig_op == SHMEM_SIGNAL_ADD ? SHR_AMO_ADD : SHR_AMO_SET, NULL, sig, value,
                   0, sizeof(uint64_t), pe, cmpl != NULL ? cmpl : &ctx->cmpl);
}

/* Posts a flush of each dirty endpoint of w (of those among the `npes`
 * PEs of `pes`, if not NULL), counted in c; they complete once every
 * earlier operation on them has.  Lock held.  The first failure's status. */
static ucs_status_t shr_ucx_flush_post(shr_ucx_worker_t *w, const int *pes, size_t npes,
                                       shr_cmpl_t *c)
{
    size_t n = pes != NULL ? npes : (size_t)w->n_dirty;
    ucs_status_t first = UCS_OK;

    for (size_t i = 0; i < n; i++) {
        int pe = pes != NULL ? pes[i] : w->dirty[i];
        shr_ucx_peer_t *peer = w->peers[pe];
        ucp_request_param_t param = {.op_attr_mask = 0};

        if (peer == NULL || !peer->dirty) {
            continue;
        }
        peer->dirty = false;
        shr_ucx_param_cmpl(&param, c);
        ucs_status_t st = shr_ucx_track(ucp_ep_flush_nbx(peer->ep, &param), c);
        first = first == UCS_OK ? st : first;
    }
    /* keep the PEs still dirty (a partial quiet) */
    int kept = 0;
    for (int i = 0; i < w->n_dirty; i++) {
        if (w->peers[w->dirty[i]] != NULL && w->peers[w->dirty[i]]->dirty) {
            w->dirty[kept++] = w->dirty[i];
        }
    }
    __atomic_store_n(&w->n_dirty, kept, __ATOMIC_RELAXED);
    return first;
}

ucs_status_t shr_ucx_flush(shr_ucx_worker_t *w, const int *pes, size_t npes)
{
    shr_cmpl_t flushes = {0};
    ucs_status_t st, done;

    bool locked = shr_ucx_lock(w);
    uint64_t sent = shr_ucx_agg_send_all(w);
    st = shr_ucx_flush_post(w, pes, npes, &flushes);
    shr_ucx_unlock(w, locked);
    done = shr_ucx_cmpl_wait(w, &flushes);
    shr_ucx_agg_wait(w, sent); /* coalesced operations were applied */
    return st != UCS_OK ? st : done;
}

void shr_ucx_fence_op(shr_ctx_t *ctx)
{
    shr_ucx_worker_t *w;
    ucs_status_t st = UCS_OK;

    if (!shr_ucx.active) {
        return;
    }
    w = shr_ucx_ctx_worker(ctx);
    if (shr_ucx.strong_fence) {
        /* a multi-rail UCX before 1.14 orders only by completing */
        st = shr_ucx_flush(w, NULL, 0);
    } else {
        /* UCX orders what follows a fence after what precedes it, per
         * worker.  Coalescing buffers stay: their records are applied in
         * order, a later record to the same PE joins them, and any other
         * later operation to that PE sends them first, fenced
         * (shr_ucx_peer); fence orders nothing across PEs. */
        bool locked = shr_ucx_lock(w);
        if (w->n_dirty != 0) {
            st = ucp_worker_fence(w->worker);
        }
        shr_ucx_unlock(w, locked);
    }
    if (SHR_UNLIKELY(st != UCS_OK)) {
        shr_ucx_fail(st, "shmem_fence");
    }
}

/* On a shared context (other threads may issue on it meanwhile) quiet
 * waits for its own flushes, not for the context's count to reach zero,
 * which their new operations could put off forever.  Coalesced operations
 * are sent and waited for until applied (those sent so far). */
void shr_ucx_quiet_op(shr_ctx_t *ctx, const int *pes, size_t npes)
{
    shr_ucx_worker_t *w;
    shr_cmpl_t flushes = {0}, *c;
    ucs_status_t st, done;

    if (!shr_ucx.active) {
        return;
    }
    w = shr_ucx_ctx_worker(ctx);
    c = shr_ucx_ctx_is_shared(ctx) ? &flushes : &ctx->cmpl;
    bool locked = shr_ucx_lock(w);
    uint64_t sent = shr_ucx_agg_send_all(w);
    st = shr_ucx_flush_post(w, pes, npes, c);
    shr_ucx_unlock(w, locked);
    done = shr_ucx_cmpl_wait(w, c);
    shr_ucx_agg_wait(w, sent);
    if (SHR_UNLIKELY(st != UCS_OK || done != UCS_OK)) {
        shr_ucx_fail(st != UCS_OK ? st : done, "shmem_quiet");
    }
}

void shr_ucx_wait_op(shr_ctx_t *ctx, shr_cmpl_t *cmpl)
{
    ucs_status_t st;

    if (!shr_ucx.active) {
        return;
    }
    shr_ucx_worker_t *w = shr_ucx_ctx_worker(ctx);
    shr_ucx_adopt(w); /* a handle's part waited from another thread */
    st = shr_ucx_cmpl_wait(w, cmpl);
    if (SHR_UNLIKELY(st != UCS_OK)) {
        shr_ucx_fail(st, "completing operations on other nodes");
    }
}

/* A request handle's completion: each PE's coalescing buffer is sent (its
 * reply completes what it holds), and the endpoint of each PE the handle
 * posted operations to directly is flushed, counted in the handle's own
 * object -- on a shared context, or from another thread than a private
 * one's, dirty or not (another thread's quiet may have taken the mark
 * while its flush is still in flight); else only if dirty: its last
 * quiet completed everything before it returned.
 * A PE that got only coalesced operations (entry -1 - pe) needs no flush.
 * From a thread other than a private context's own, which may be
 * appending to those buffers meanwhile: under the lock made real
 * (shr_ucx_adopt), with the windows taken back before the first send. */
void shr_ucx_flush_op(shr_ctx_t *ctx, const int *pes, size_t npes, shr_cmpl_t *cmpl)
{
    shr_ucx_worker_t *w;
    ucs_status_t first = UCS_OK;

    if (!shr_ucx.active) {
        return;
    }
    w = shr_ucx_ctx_worker(ctx);
    shr_ucx_adopt(w);
    bool shared = shr_ucx_ctx_is_shared(ctx);
    bool foreign = shr_ucx_foreign(w);
    bool taken = false;
    bool locked = shr_ucx_lock(w);
    for (size_t i = 0; i < npes; i++) {
        int pe = pes[i] >= 0 ? pes[i] : -1 - pes[i];
        shr_ucx_peer_t *peer = w->peers[pe];
        ucp_request_param_t param = {.op_attr_mask = 0};

        if (peer == NULL) {
            continue; /* never reached through this worker: nothing to complete */
        }
        if (peer->agg != NULL && !shr_ucx_offloads(cmpl)) {
            /* (offload: the progress thread sends it while the program
             * computes; a wait's first round sends it if not) */
            if (foreign && !taken) {
                shr_ucx_agg_windows_take(w);
                taken = true;
            }
            shr_ucx_agg_send(w, peer, pe, false);
        }
        if (pes[i] < 0 || (!shared && !foreign && !peer->dirty)) {
            continue;
        }
        shr_ucx_param_cmpl(&param, cmpl);
        ucs_status_t st = shr_ucx_track(ucp_ep_flush_nbx(peer->ep, &param), cmpl);
        first = first == UCS_OK ? st : first;
    }
    if (taken) {
        shr_ucx_agg_windows_give(w);
    }
    shr_ucx_unlock(w, locked);
    if (SHR_UNLIKELY(first != UCS_OK)) {
        shr_ucx_fail(first, "completing a request handle");
    }
}

bool shr_ucx_test_op(shr_ctx_t *ctx, shr_cmpl_t *cmpl)
{
    shr_ucx_worker_t *w;

    if (!shr_ucx.active) {
        return true;
    }
    if (!shr_ucx_cmpl_done(cmpl)) {
        w = shr_ucx_ctx_worker(ctx);
        shr_ucx_adopt(w);
        __atomic_fetch_add(&shr_ucx.activity, 1, __ATOMIC_RELAXED);
        if (!shr_ucx_offloads(cmpl)) {
            shr_ucx_agg_poll(); /* (offload: the progress thread sends them) */
        }
        shr_ucx_drive(w);
        if (w != shr_ucx.dflt) {
            shr_ucx_drive(shr_ucx.dflt);
        }
        if (!shr_ucx_cmpl_done(cmpl)) {
            return false;
        }
    }
    if (SHR_UNLIKELY(__atomic_load_n(&cmpl->status, __ATOMIC_ACQUIRE) != UCS_OK)) {
        shr_ucx_fail((ucs_status_t)cmpl->status, "completing operations on other nodes");
    }
    return true;
}

/* The final barrier's stall watch reading other PEs' words: every get
 * posted on the default worker, then waited for together.  A failure ends
 * nothing: the watch runs only in the final barrier (shr_ucx.finalizing),
 * where a PE that has passed it may have closed its endpoints already, or
 * exited (a job ending by shmem_global_exit): a new connection to it fails
 * quietly too (shr_ucx_peer_try). */
bool shr_ucx_peek_op(const int *pes, size_t npes, const void *src, void *dest, size_t len)
{
    shr_ucx_worker_t *w = shr_ucx.dflt;
    shr_ucx_peer_t *peer;
    shr_cmpl_t own = {0};
    bool posted = true;
    char why[256];

    if (!shr_ucx.active) {
        return false;
    }
    bool locked = shr_ucx_lock(w);
    for (size_t i = 0; i < npes && posted; i++) {
        posted = w->peers[pes[i]] != NULL ||
                 shr_ucx_peer_try(w, pes[i], why, sizeof(why), &peer) == UCS_OK;
        posted = posted &&
                 shr_ucx_get(w, (char *)dest + i * len, src, len, pes[i], &own, false) == UCS_OK;
    }
    shr_ucx_unlock(w, locked);
    /* even after a failed post: those posted write into dest and own */
    return shr_ucx_cmpl_wait(w, &own) == UCS_OK && posted;
}
