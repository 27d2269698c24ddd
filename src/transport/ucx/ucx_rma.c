/*
 * ucx_rma.c -- the remote operations of core/remote.h over UCX: put, get,
 * atomics (signals are atomics), fence, quiet, progress.
 *
 * Atomics (docs/ucx.md, "Atomicity"): the context runs with UCX's CPU
 * atomic mode, so on a network without CPU-coherent atomics UCX executes
 * the operation at the target with the same locked CPU instructions as the
 * node's own path (amo_inline.h): one location stays atomic whichever PE
 * and path issue the operations.
 *
 * Completion: blocking puts return at local completion, blocking gets and
 * fetching atomics at completion; everything else marks its endpoint
 * dirty and is completed by the next quiet (a flush of the dirty endpoints).
 */
#include "core/remote.h"

#include <stdlib.h>

#include "transport/ucx/ucx_inline.h"

void shr_ucx_put_op(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                    shr_cmpl_t *cmpl)
{
    shr_ucx_worker_t *w = shr_ucx_ctx_worker(ctx);
    ucs_status_t st;

    shr_ucx_lock(w);
    st = shr_ucx_put(w, dest, src, len, pe, cmpl != NULL);
    shr_ucx_unlock(w);
    if (SHR_UNLIKELY(st != UCS_OK)) {
        shr_ucx_fatal(st, "a put to", pe);
    }
}

void shr_ucx_get_op(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                    shr_cmpl_t *cmpl)
{
    shr_ucx_worker_t *w = shr_ucx_ctx_worker(ctx);
    ucs_status_t st;

    shr_ucx_lock(w);
    st = shr_ucx_get(w, dest, src, len, pe, cmpl != NULL);
    shr_ucx_unlock(w);
    if (SHR_UNLIKELY(st != UCS_OK)) {
        shr_ucx_fatal(st, "a get from", pe);
    }
}

/* The UCP operation of each shr_amo_op_t, and whether its result is read.
 * UCP has no plain fetch (fetch-or 0 reads atomically) and no plain set (a
 * swap whose old value goes to the worker's sink). */
static const struct {
    ucp_atomic_op_t op;
    bool fetch;
} shr_ucx_amo_table[] = {
    [SHR_AMO_FETCH] = {UCP_ATOMIC_OP_OR, true},
    [SHR_AMO_SET] = {UCP_ATOMIC_OP_SWAP, false},
    [SHR_AMO_SWAP] = {UCP_ATOMIC_OP_SWAP, true},
    [SHR_AMO_CSWAP] = {UCP_ATOMIC_OP_CSWAP, true},
    [SHR_AMO_ADD] = {UCP_ATOMIC_OP_ADD, false},
    [SHR_AMO_FETCH_ADD] = {UCP_ATOMIC_OP_ADD, true},
    [SHR_AMO_AND] = {UCP_ATOMIC_OP_AND, false},
    [SHR_AMO_FETCH_AND] = {UCP_ATOMIC_OP_AND, true},
    [SHR_AMO_OR] = {UCP_ATOMIC_OP_OR, false},
    [SHR_AMO_FETCH_OR] = {UCP_ATOMIC_OP_OR, true},
    [SHR_AMO_XOR] = {UCP_ATOMIC_OP_XOR, false},
    [SHR_AMO_FETCH_XOR] = {UCP_ATOMIC_OP_XOR, true},
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
 * result = *remote; if (*buffer == *remote) *remote = *reply).  Lock held. */
static SHR_ALWAYS_INLINE void *shr_ucx_amo_post(shr_ucx_worker_t *w, shr_amo_op_t op,
                                                void *dest, uint64_t operand_value,
                                                size_t size, int pe, void *reply, bool mark)
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
    if (mark) {
        shr_ucx_mark(w, peer, pe);
    }
    /* UCP copies the operand at the call */
    return ucp_atomic_op_nbx(peer->ep, shr_ucx_amo_table[op].op, &operand, 1, raddr, rkey,
                             &param);
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
    ucs_status_t st;
    void *req;

    /* CSWAP's reply buffer holds the new value on entry; an nbi fetch
     * buffer is undefined until quiet, so it may carry it meanwhile */
    if (op == SHR_AMO_CSWAP) {
        memcpy(fetch, size == 4 ? (void *)&(uint32_t){(uint32_t)value} : (void *)&value, size);
    }
    shr_ucx_lock(w);
    req = shr_ucx_amo_post(w, op, dest, shr_ucx_amo_operand(op, value, cond), size, pe,
                           fetch != NULL ? fetch : op == SHR_AMO_SET ? &w->sink : NULL,
                           cmpl != NULL);
    st = cmpl != NULL ? shr_ucx_request_detach(req) : shr_ucx_request_wait(w, req);
    shr_ucx_unlock(w);
    if (SHR_UNLIKELY(st != UCS_OK)) {
        shr_ucx_fatal(st, "an atomic operation on", pe);
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
                   0, sizeof(uint64_t), pe, &ctx->cmpl);
}

static ucs_status_t shr_ucx_flush_ep(shr_ucx_worker_t *w, int pe, void **req_p)
{
    ucp_request_param_t param = {.op_attr_mask = 0};
    shr_ucx_peer_t *peer = w->peers[pe];
    void *req;

    *req_p = NULL;
    if (peer == NULL || !peer->dirty) {
        return UCS_OK;
    }
    peer->dirty = false;
    req = ucp_ep_flush_nbx(peer->ep, &param);
    if (UCS_PTR_IS_ERR(req)) {
        return UCS_PTR_STATUS(req);
    }
    *req_p = req;
    return UCS_OK;
}

ucs_status_t shr_ucx_flush(shr_ucx_worker_t *w, const int *pes, size_t npes)
{
    void *stack_reqs[16], **reqs = stack_reqs;
    size_t n = pes != NULL ? npes : (size_t)w->n_dirty;
    ucs_status_t first = UCS_OK;

    if (w->n_dirty == 0) {
        return UCS_OK;
    }
    if (n > SHR_ARRAY_SIZE(stack_reqs)) {
        reqs = malloc(n * sizeof(*reqs));
        if (reqs == NULL) {
            return UCS_ERR_NO_MEMORY;
        }
    }
    /* all flushes in flight at once: one round trip, not one per PE */
    for (size_t i = 0; i < n; i++) {
        ucs_status_t st = shr_ucx_flush_ep(w, pes != NULL ? pes[i] : w->dirty[i], &reqs[i]);
        first = first == UCS_OK ? st : first;
    }
    for (size_t i = 0; i < n; i++) {
        ucs_status_t st = shr_ucx_request_wait(w, reqs[i]);
        first = first == UCS_OK ? st : first;
    }
    /* keep the PEs still dirty (a partial quiet) */
    int kept = 0;
    for (int i = 0; i < w->n_dirty; i++) {
        if (w->peers[w->dirty[i]] != NULL && w->peers[w->dirty[i]]->dirty) {
            w->dirty[kept++] = w->dirty[i];
        }
    }
    w->n_dirty = kept;
    if (reqs != stack_reqs) {
        free(reqs);
    }
    return first;
}

void shr_ucx_fence_op(shr_ctx_t *ctx)
{
    shr_ucx_worker_t *w;
    ucs_status_t st = UCS_OK;

    if (!shr_ucx.active) {
        return;
    }
    w = shr_ucx_ctx_worker(ctx);
    shr_ucx_lock(w);
    if (w->n_dirty != 0) {
        /* UCX orders what follows a fence after what precedes it, per
         * worker; a multi-rail UCX before 1.14 only by completing it */
        st = shr_ucx.strong_fence ? shr_ucx_flush(w, NULL, 0) : ucp_worker_fence(w->worker);
    }
    shr_ucx_unlock(w);
    if (SHR_UNLIKELY(st != UCS_OK)) {
        shr_ucx_status(st, "shmem_fence");
        shr_fatal(1, "shmem_fence failed in UCX");
    }
}

void shr_ucx_quiet_op(shr_ctx_t *ctx, const int *pes, size_t npes)
{
    shr_ucx_worker_t *w;
    ucs_status_t st;

    if (!shr_ucx.active) {
        return;
    }
    w = shr_ucx_ctx_worker(ctx);
    shr_ucx_lock(w);
    st = shr_ucx_flush(w, pes, npes);
    shr_ucx_unlock(w);
    if (SHR_UNLIKELY(st != UCS_OK)) {
        shr_ucx_status(st, "shmem_quiet");
        shr_fatal(1, "shmem_quiet failed in UCX");
    }
}

void shr_ucx_wait_op(shr_ctx_t *ctx, shr_cmpl_t *cmpl)
{
    (void)cmpl;
    shr_ucx_quiet_op(ctx, NULL, 0);
}
