/*
 * req_inline.h -- the fast path of the `_req` operations: a peer on this
 * node is served exactly as by the blocking routine (address translation,
 * then the copy or the CPU atomic), so the handle is not touched; anything
 * else leaves through a cold function of core/req.c that counts the
 * operation in the handle's part for ctx.
 *
 * `pe` is a world PE; addresses as in rma_inline.h.  Thread-safe as far as
 * the handle is one thread's (core/req.h).
 */
#ifndef SHR_REQ_INLINE_H
#define SHR_REQ_INLINE_H

#include "core/amo_inline.h"
#include "core/req.h"
#include "core/rma_inline.h"

SHR_COLD void shr_req_put_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                               size_t len, int pe, shr_req_t **req_p);
SHR_COLD void shr_req_get_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                               size_t len, int pe, shr_req_t **req_p);
/* Strided (block i at element i*dst of dest, i*sst of src); `put` or get. */
SHR_COLD void shr_req_strided_slow(const char *fn, shr_ctx_t *ctx, bool put, void *dest,
                                   const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                                   size_t nblocks, size_t elem, int pe, shr_req_t **req_p);
SHR_COLD void shr_req_amo_slow(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op, void *fetch,
                               void *dest, uint64_t value, uint64_t cond, size_t size, int pe,
                               shr_req_t **req_p);
SHR_COLD void shr_req_put_signal_slow(const char *fn, shr_ctx_t *ctx, void *dest,
                                      const void *src, size_t len, uint64_t *sig_addr,
                                      uint64_t signal, int sig_op, int pe, shr_req_t **req_p);

static SHR_ALWAYS_INLINE void shr_req_put(const char *fn, shr_ctx_t *ctx, void *dest,
                                          const void *src, size_t len, int pe,
                                          shr_req_t **req_p)
{
    void *target = shr_rma_map(fn, dest, len, pe);

    if (SHR_LIKELY(target != NULL && src != NULL)) {
        shr_copy_once(target, src, len);
        return;
    }
    shr_req_put_slow(fn, ctx, dest, src, len, pe, req_p);
}

static SHR_ALWAYS_INLINE void shr_req_get(const char *fn, shr_ctx_t *ctx, void *dest,
                                          const void *src, size_t len, int pe,
                                          shr_req_t **req_p)
{
    const void *origin = shr_rma_map(fn, src, len, pe);

    if (SHR_LIKELY(origin != NULL && dest != NULL)) {
        shr_copy_get(dest, origin, len);
        return;
    }
    shr_req_get_slow(fn, ctx, dest, src, len, pe, req_p);
}

static SHR_ALWAYS_INLINE void shr_req_iput(const char *fn, shr_ctx_t *ctx, void *dest,
                                           const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                           size_t bsize, size_t nblocks, size_t elem, int pe,
                                           shr_req_t **req_p)
{
    char *target = shr_rma_map(fn, dest, shr_rma_strided_span(dst, bsize, nblocks, elem), pe);

    if (SHR_LIKELY(target != NULL && src != NULL)) {
        shr_rma_strided_copy(target, src, dst, sst, bsize, nblocks, elem);
        return;
    }
    shr_req_strided_slow(fn, ctx, true, dest, src, dst, sst, bsize, nblocks, elem, pe, req_p);
}

static SHR_ALWAYS_INLINE void shr_req_iget(const char *fn, shr_ctx_t *ctx, void *dest,
                                           const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                           size_t bsize, size_t nblocks, size_t elem, int pe,
                                           shr_req_t **req_p)
{
    const char *origin = shr_rma_map(fn, src, shr_rma_strided_span(sst, bsize, nblocks, elem), pe);

    if (SHR_LIKELY(origin != NULL && dest != NULL)) {
        shr_rma_strided_copy(dest, origin, dst, sst, bsize, nblocks, elem);
        return;
    }
    shr_req_strided_slow(fn, ctx, false, dest, src, dst, sst, bsize, nblocks, elem, pe, req_p);
}

/* `op` on `size` bytes at dest of pe; a fetching op's old value lands in
 * *fetch (NULL for the others) by the handle's completion. */
static SHR_ALWAYS_INLINE void shr_req_amo(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op,
                                          void *fetch, void *dest, uint64_t value, uint64_t cond,
                                          size_t size, int pe, shr_req_t **req_p)
{
    void *target = shr_rma_map(fn, dest, size, pe);

    if (SHR_LIKELY(target != NULL && shr_amo_aligned(fn, dest, size))) {
        uint64_t old = shr_amo_at(target, op, value, cond, size);
        if (fetch == NULL) {
            return;
        }
        if (size == 4) {
            *(uint32_t *)fetch = (uint32_t)old;
        } else {
            *(uint64_t *)fetch = old;
        }
        return;
    }
    shr_req_amo_slow(fn, ctx, op, fetch, dest, value, cond, size, pe, req_p);
}

static SHR_ALWAYS_INLINE void shr_req_put_signal(const char *fn, shr_ctx_t *ctx, void *dest,
                                                 const void *src, size_t len, uint64_t *sig_addr,
                                                 uint64_t signal, int sig_op, int pe,
                                                 shr_req_t **req_p)
{
    uint64_t *flag = shr_rma_map(fn, sig_addr, sizeof(uint64_t), pe);
    void *target = len != 0 ? shr_rma_map(fn, dest, len, pe) : NULL;

    if (SHR_LIKELY(flag != NULL && shr_amo_aligned(fn, sig_addr, sizeof(uint64_t)) &&
                   (len == 0 || (target != NULL && src != NULL)))) {
        shr_put_signal(fn, ctx, dest, src, len, sig_addr, signal, sig_op, pe, true);
        return;
    }
    shr_req_put_signal_slow(fn, ctx, dest, src, len, sig_addr, signal, sig_op, pe, req_p);
}

#endif
