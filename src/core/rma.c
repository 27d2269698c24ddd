/*
 * rma.c -- the out-of-line half of RMA and AMO: zero-length transfers,
 * invalid addresses (diagnosed here even with checks off, since this path
 * costs the fast path nothing), and remote peers.
 */
#include "core/amo_inline.h"
#include "core/check.h"
#include "core/remote.h"
#include "core/rma_inline.h"

/* Four 16-byte moves a block; the loads of block k+1 are issued before the
 * stores of block k, so a load never follows a store just issued to the same
 * address modulo 4 KiB (which memcpy's `rep movsb` does on every load when
 * the destination is 1..63 bytes ahead: 10-50x slower).  The tail (< 64
 * bytes) is non-overlapping 16/8/4/2/1-byte moves: every byte once. */
void shr_copy_skewed(void *dest, const void *src, size_t len)
{
    char *d = (char *)dest;
    const char *s = (const char *)src;
    shr_v16_once_t a0, a1, a2, a3;

    if (len >= 64) {
        a0 = *(const shr_v16_once_t *)s;
        a1 = *(const shr_v16_once_t *)(s + 16);
        a2 = *(const shr_v16_once_t *)(s + 32);
        a3 = *(const shr_v16_once_t *)(s + 48);
        for (; len >= 128; len -= 64, d += 64, s += 64) {
            shr_v16_once_t b0 = *(const shr_v16_once_t *)(s + 64);
            shr_v16_once_t b1 = *(const shr_v16_once_t *)(s + 80);
            shr_v16_once_t b2 = *(const shr_v16_once_t *)(s + 96);
            shr_v16_once_t b3 = *(const shr_v16_once_t *)(s + 112);

            *(shr_v16_once_t *)d = a0;
            *(shr_v16_once_t *)(d + 16) = a1;
            *(shr_v16_once_t *)(d + 32) = a2;
            *(shr_v16_once_t *)(d + 48) = a3;
            a0 = b0;
            a1 = b1;
            a2 = b2;
            a3 = b3;
        }
        *(shr_v16_once_t *)d = a0;
        *(shr_v16_once_t *)(d + 16) = a1;
        *(shr_v16_once_t *)(d + 32) = a2;
        *(shr_v16_once_t *)(d + 48) = a3;
        len -= 64;
        d += 64;
        s += 64;
    }
    shr_copy_short(d, s, len);
}
SHR_PLUGIN_EXPORT(copy_skewed);

void shr_rma_require_symmetric(const char *fn, const char *what, const void *addr, size_t len)
{
    if (shr_seg_find(addr, len) < 0) {
        shr_check_fail(fn != NULL ? fn : "shmem", "%s %p is not a symmetric address (neither in "
                       "the symmetric heap nor a global or static variable of the program); "
                       "allocate it with shmem_malloc or make it a global variable%s", what, addr,
                       fn != NULL ? "" : " (SHMEM_DEBUG=1 names the routine)");
    }
}

/* The transport may coalesce a program's own small puts, gets,
 * put-with-signals and non-fetching AMOs (SHR_REMOTE_CAP_COALESCE_ALL:
 * TCP): offered first, counted in the context's object, so quiet completes
 * them (a blocking put is locally complete once copied).  The library's own transfers (fn
 * NULL: collectives, teams, locks) are posted directly. */
static inline bool shr_rma_coalesces(const char *fn)
{
    return fn != NULL && (shr_remote_caps & SHR_REMOTE_CAP_COALESCE_ALL) != 0;
}

/* A transfer a program asked for (`fn` set) is checked first: the fast
 * path sends it here for a PE or length it would not take, too. */
void shr_rma_put_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                      int pe, bool nbi)
{
    if (fn != NULL) {
        shr_check_user_transfer(fn, "dest", dest, len, "source", src, pe);
    }
    if (len == 0) {
        return;
    }
    shr_rma_require_symmetric(fn, "dest", dest, len);
    if (shr_rma_coalesces(fn) && shr_remote->coalesce_put(ctx, dest, src, len, pe, &ctx->cmpl)) {
        return;
    }
    shr_remote->put(ctx, dest, src, len, pe, nbi ? &ctx->cmpl : NULL);
}

void shr_rma_get_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                      int pe, bool nbi)
{
    if (fn != NULL) {
        shr_check_user_transfer(fn, "source", src, len, "dest", dest, pe);
    }
    if (len == 0) {
        return;
    }
    shr_rma_require_symmetric(fn, "source", src, len);
    if (shr_rma_coalesces(fn)) {
        /* a record whose data the buffer's reply brings; a blocking one
         * sends the buffer at once (one round trip, with the puts before) */
        shr_cmpl_t own = {0, 0};
        if (shr_remote->coalesce_get(ctx, dest, src, len, pe, nbi ? &ctx->cmpl : &own)) {
            if (!nbi) {
                int only = -1 - pe;
                shr_remote->flush(ctx, &only, 1, &own);
                shr_remote->wait(ctx, &own);
            }
            return;
        }
    }
    shr_remote->get(ctx, dest, src, len, pe, nbi ? &ctx->cmpl : NULL);
}

/* Strided transfers to a remote PE: every block in flight at once, counted
 * in one completion object, then waited for (blocking: the source is
 * reusable, or the data in dest, on return). */
void shr_rma_iput_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                       ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, size_t elem,
                       int pe)
{
    shr_cmpl_t blocks = {0, 0};
    size_t len = bsize * elem;

    if (fn != NULL) {
        shr_check_user_transfer(fn, "dest", dest, shr_rma_strided_span(dst, bsize, nblocks, elem),
                                "source", src, pe);
    }

    if (len == 0 || nblocks == 0) {
        return;
    }
    for (size_t i = 0; i < nblocks; i++) {
        char *d = (char *)dest + (ptrdiff_t)i * dst * (ptrdiff_t)elem;
        shr_rma_require_symmetric(fn, "dest", d, len);
        shr_remote->put(ctx, d, (const char *)src + (ptrdiff_t)i * sst * (ptrdiff_t)elem, len,
                        pe, &blocks);
    }
    shr_remote->wait(ctx, &blocks);
}

void shr_rma_iget_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                       ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, size_t elem,
                       int pe)
{
    shr_cmpl_t blocks = {0, 0};
    size_t len = bsize * elem;

    if (fn != NULL) {
        shr_check_user_transfer(fn, "source", src, shr_rma_strided_span(sst, bsize, nblocks, elem),
                                "dest", dest, pe);
    }

    if (len == 0 || nblocks == 0) {
        return;
    }
    for (size_t i = 0; i < nblocks; i++) {
        const char *s = (const char *)src + (ptrdiff_t)i * sst * (ptrdiff_t)elem;
        shr_rma_require_symmetric(fn, "source", s, len);
        shr_remote->get(ctx, (char *)dest + (ptrdiff_t)i * dst * (ptrdiff_t)elem, s, len, pe,
                        &blocks);
    }
    shr_remote->wait(ctx, &blocks);
}

/* A fetching AMO waits for its value; the others complete by quiet. */
uint64_t shr_amo_slow(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op, void *dest,
                      uint64_t value, uint64_t cond, size_t size, int pe)
{
    union {
        uint32_t u32;
        uint64_t u64;
    } old = {.u64 = 0};
    bool fetches = shr_amo_op_fetches(op);

    if (fn != NULL) {
        shr_check_user_transfer(fn, "dest", dest, size, NULL, NULL, pe);
        shr_check_aligned(fn, "dest", dest, size);
    }
    shr_rma_require_symmetric(fn, "dest", dest, size);
    if (!fetches && shr_rma_coalesces(fn) &&
        shr_remote->coalesce_amo(ctx, op, dest, value, size, pe, &ctx->cmpl)) {
        return 0;
    }
    shr_remote->amo(ctx, op, fetches ? &old : NULL, dest, value, cond, size, pe,
                    fetches ? NULL : &ctx->cmpl);
    return size == 4 ? old.u32 : old.u64;
}

void shr_amo_nbi_slow(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op, void *fetch, void *dest,
                      uint64_t value, uint64_t cond, size_t size, int pe)
{
    if (fn != NULL) {
        shr_check_user_transfer(fn, "dest", dest, size, "fetch", fetch, pe);
        shr_check_aligned(fn, "dest", dest, size);
    }
    shr_rma_require_symmetric(fn, "dest", dest, size);
    shr_remote->amo(ctx, op, fetch, dest, value, cond, size, pe, &ctx->cmpl);
}

void shr_put_signal_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, bool nbi)
{
    if (fn != NULL) {
        shr_check_user_transfer(fn, "dest", dest, len, "source", src, pe);
        shr_check_user_transfer(fn, "sig_addr", sig_addr, sizeof(uint64_t), NULL, NULL, pe);
        shr_check_aligned(fn, "sig_addr", sig_addr, sizeof(uint64_t));
    }
    if (len != 0) {
        shr_rma_require_symmetric(fn, "dest", dest, len);
    }
    shr_rma_require_symmetric(fn, "sig_addr", sig_addr, sizeof(uint64_t));
    if (shr_rma_coalesces(fn) && shr_remote->coalesce_put_signal(ctx, dest, src, len, sig_addr,
                                                                 signal, sig_op, pe, &ctx->cmpl)) {
        return;
    }
    shr_remote->put_signal(ctx, dest, src, len, sig_addr, signal, sig_op, pe,
                           nbi ? &ctx->cmpl : NULL);
}

void shr_fence(shr_ctx_t *ctx)
{
    shr_fence_stores();
    if (shr_g.has_remote) {
        shr_remote->fence(ctx);
    }
}

void shr_quiet(shr_ctx_t *ctx)
{
    shr_fence_full();
    if (shr_g.has_remote) {
        shr_remote->quiet(ctx, NULL, 0);
    }
}

void shr_quiet_before_arrival(shr_ctx_t *ctx)
{
    shr_fence_stores();
    if (shr_g.has_remote) {
        shr_remote->quiet(ctx, NULL, 0);
    }
}

void shr_quiet_pes(shr_ctx_t *ctx, const int *pes, size_t npes)
{
    shr_fence_full();
    if (shr_g.has_remote) {
        shr_remote->quiet(ctx, pes, npes);
    }
}
