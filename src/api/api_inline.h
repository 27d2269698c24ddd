/*
 * api_inline.h -- what a generated shim calls: the runtime-gated argument
 * checks, then one call into core.  Below this layer code sees only
 * addresses, byte counts, world PE numbers, a dtype and an op.
 *
 * `fn` is the name of the routine the user called (a string literal from
 * the shim); it costs nothing unless a check fails.
 */
#ifndef SHR_API_INLINE_H
#define SHR_API_INLINE_H

#include <stdint.h>
#include <string.h>

#include "api/api.h"
#include "core/amo_inline.h"
#include "core/check.h"
#include "core/p2p_inline.h"
#include "core/prof.h"
#include "core/req_inline.h"
#include "core/rma_inline.h"
#include "util/log.h"

/* World PE of `pe` on ctx; free for SHMEM_CTX_DEFAULT (a constant), whose
 * PE range the data path checks (shr_user_ptr).  Another context's team PE
 * is range-checked here, always, before it indexes the team's map. */
static SHR_ALWAYS_INLINE int shr_api_world_pe(const char *fn, shr_ctx_t *ctx, int pe)
{
    if (ctx == SHMEM_CTX_DEFAULT) {
        return pe;
    }
    if (SHR_UNLIKELY((unsigned)pe >= (unsigned)ctx->n_pes)) {
        shr_check_ctx_pe_fail(fn, ctx, pe);
    }
    return shr_ctx_world_pe(ctx, pe);
}

/* Always on, not gated: an invalid comparison would silently wait for (or
 * test) a condition the program did not ask for; one compare on a path
 * that then reads memory in a loop anyway. */
_Static_assert(SHMEM_CMP_EQ == 0 && SHMEM_CMP_LE == 5, "SHR_API_CHECK_CMP's range");
#define SHR_API_CHECK_CMP(_fn, _cmp) do { \
        if (SHR_UNLIKELY((unsigned)(_cmp) > SHMEM_CMP_LE)) { \
            shr_check_cmp(_fn, _cmp); \
        } \
    } while (0)

/* Checks only (routines the profile does not time). */
#define SHR_API_CHECK(_call) do { \
        if (SHR_CHECKS_ON()) { \
            _call; \
        } \
    } while (0)

/* The gated path of a routine (shr_g.check_gate up): the checks when they
 * are on, then `_op` timed into profile family `_fam` (core/prof.def) with
 * `_bytes` when SHIMMER_PROFILE is on.  Cold code only. */
#define SHR_API_GATED(_fam, _bytes, _check, _op) do { \
        if (SHR_GATE_CHECKS()) { \
            _check; \
        } \
        uint64_t prof_t0_ = shr_prof_begin(); \
        _op; \
        shr_prof_end(_fam, prof_t0_, _bytes); \
    } while (0)

/* An out-of-line routine: the gated path when the gate is up, else `_op`
 * alone.  The inline data routines below instead leave through one call to
 * a cold shr_api_*_gated twin (api_gated.c), so that their fast path stays
 * what it was without the profile. */
#define SHR_API_TIMED(_fam, _bytes, _check, _op) do { \
        if (SHR_UNLIKELY(shr_g.check_gate)) { \
            SHR_API_GATED(_fam, _bytes, _check, _op); \
        } else { \
            _op; \
        } \
    } while (0)

/* Trace points of the data paths (categories rma and amo, level trace):
 * compiled out of release builds (SHR_LOG_MAX_LEVEL), where the fast path
 * carries no code for them; a debug build pays one compare of the level. */
#define SHR_API_TRACE(_cat, _fn, _fmt, ...) shr_trace(_cat, "%s: " _fmt, _fn, __VA_ARGS__)

/* The gated twins (api_gated.c): checks, trace, the operation, timed.
 * `g`: the local side is a return value (shmem_g), not checked.  A put's
 * three take six arguments, so that a shim jumps to them with no frame of
 * its own (a seventh goes on the stack): put and put_nbi name the local
 * argument "source" in messages, p "value". */
SHR_COLD void shr_api_put_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                                size_t len, int pe);
SHR_COLD void shr_api_put_nbi_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                                    size_t len, int pe);
/* shmem_p of up to 8 bytes: the value's bytes in `bits` (shr_api_p) */
SHR_COLD void shr_api_p_gated(const char *fn, shr_ctx_t *ctx, void *dest, uint64_t bits,
                              size_t size, int pe);
SHR_COLD void shr_api_get_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                                size_t len, int pe, bool g, bool nbi);
/* shr_api_get_gated of a shmem_g of up to 8 bytes: the value in the first
 * `size` bytes (shr_rma_g_slow). */
SHR_COLD uint64_t shr_api_g_gated(const char *fn, shr_ctx_t *ctx, const void *src, size_t size,
                                  int pe);
SHR_COLD void shr_api_iput_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                                 ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                                 size_t elem, int pe);
SHR_COLD void shr_api_iget_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                                 ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                                 size_t elem, int pe);
SHR_COLD uint64_t shr_api_amo_gated(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op, void *dest,
                                    uint64_t value, uint64_t cond, size_t size, int pe);
SHR_COLD void shr_api_amo_nbi_gated(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op, void *fetch,
                                    void *dest, uint64_t value, uint64_t cond, size_t size,
                                    int pe);
SHR_COLD void shr_api_put_signal_gated(const char *fn, shr_ctx_t *ctx, void *dest,
                                       const void *src, size_t len, uint64_t *sig_addr,
                                       uint64_t signal, int sig_op, int pe, bool nbi);
SHR_COLD void shr_api_wait_until_gated(const char *fn, void *ivar, int cmp, const void *value,
                                       shr_dtype_t dt);
SHR_COLD int shr_api_test_gated(const char *fn, void *ivar, int cmp, const void *value,
                                shr_dtype_t dt);
/* the _req operations; istrided: iput_req (put) or iget_req */
SHR_COLD void shr_api_put_req_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                                    size_t len, int pe, shmemx_req_t *req);
SHR_COLD void shr_api_get_req_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                                    size_t len, int pe, shmemx_req_t *req);
SHR_COLD void shr_api_istrided_req_gated(const char *fn, shr_ctx_t *ctx, bool put, void *dest,
                                         const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                         size_t nelems, size_t elem, int pe, shmemx_req_t *req);
SHR_COLD void shr_api_amo_req_gated(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op, void *fetch,
                                    void *dest, uint64_t value, uint64_t cond, size_t size,
                                    int pe, shmemx_req_t *req);
SHR_COLD void shr_api_put_signal_req_gated(const char *fn, shr_ctx_t *ctx, void *dest,
                                           const void *src, size_t len, uint64_t *sig_addr,
                                           uint64_t signal, int sig_op, int pe,
                                           shmemx_req_t *req);
/* wait_until_{all,any,some}[_vector] (test false) and their test forms */
SHR_COLD size_t shr_api_set_gated(const char *fn, shr_wait_kind_t kind, void *ivars,
                                  size_t nelems, size_t *indices, const int *status, int cmp,
                                  const void *values, size_t vector_elem, shr_dtype_t dt,
                                  bool test);

/* ---- RMA ---- */
static SHR_ALWAYS_INLINE void shr_api_put(const char *fn, shr_ctx_t *ctx, void *dest,
                                          const void *src, size_t len, int pe)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_put_gated(fn, ctx, dest, src, len, pe);
        return;
    }
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu bytes to %p on PE %d", len, dest, pe);
    shr_rma_put(fn, ctx, dest, src, len, shr_api_world_pe(fn, ctx, pe), false);
}

static SHR_ALWAYS_INLINE void shr_api_put_nbi(const char *fn, shr_ctx_t *ctx, void *dest,
                                              const void *src, size_t len, int pe)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_put_nbi_gated(fn, ctx, dest, src, len, pe);
        return;
    }
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu bytes to %p on PE %d", len, dest, pe);
    shr_rma_put(fn, ctx, dest, src, len, shr_api_world_pe(fn, ctx, pe), true);
}

/* `value` is the shim's parameter.  Up to 8 bytes (all but long double)
 * its bytes go on as a value (shr_rma_p), so that its address goes to no
 * call and the shim keeps it in a register: with the address, GCC gave
 * shmem_long_p a frame, a store and a load of the value. */
static SHR_ALWAYS_INLINE void shr_api_p(const char *fn, shr_ctx_t *ctx, void *dest,
                                        const void *value, size_t size, int pe)
{
    if (size > sizeof(uint64_t)) {
        shr_api_put(fn, ctx, dest, value, size, pe);
        return;
    }
    uint64_t bits = 0;

    /* bounded for -O0, which does not fold the test above (shr_rma_g_store) */
    memcpy(&bits, value, size < sizeof(bits) ? size : sizeof(bits));
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_p_gated(fn, ctx, dest, bits, size, pe);
        return;
    }
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu bytes to %p on PE %d", size, dest, pe);
    shr_rma_p(fn, ctx, dest, bits, size, shr_api_world_pe(fn, ctx, pe));
}

static SHR_ALWAYS_INLINE void shr_api_get(const char *fn, shr_ctx_t *ctx, void *dest,
                                          const void *src, size_t len, int pe)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_get_gated(fn, ctx, dest, src, len, pe, false, false);
        return;
    }
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu bytes from %p on PE %d", len, src, pe);
    shr_rma_get(fn, ctx, dest, src, len, shr_api_world_pe(fn, ctx, pe), false);
}

static SHR_ALWAYS_INLINE void shr_api_get_nbi(const char *fn, shr_ctx_t *ctx, void *dest,
                                              const void *src, size_t len, int pe)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_get_gated(fn, ctx, dest, src, len, pe, false, true);
        return;
    }
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu bytes from %p on PE %d", len, src, pe);
    shr_rma_get(fn, ctx, dest, src, len, shr_api_world_pe(fn, ctx, pe), true);
}

/* `value` is the shim's local variable; up to 8 bytes (all but long
 * double), its address goes to no call (shr_rma_g), so that it is returned
 * in a register. */
static SHR_ALWAYS_INLINE void shr_api_g(const char *fn, shr_ctx_t *ctx, void *value,
                                        const void *src, size_t size, int pe)
{
    bool wide = size > sizeof(uint64_t);

    if (SHR_UNLIKELY(shr_g.check_gate)) {
        if (wide) {
            shr_api_get_gated(fn, ctx, value, src, size, pe, true, false);
            return;
        }
        shr_rma_g_store(value, shr_api_g_gated(fn, ctx, src, size, pe), size);
        return;
    }
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu bytes from %p on PE %d", size, src, pe);
    if (wide) {
        shr_rma_get(fn, ctx, value, src, size, shr_api_world_pe(fn, ctx, pe), false);
        return;
    }
    shr_rma_g(fn, ctx, value, src, size, shr_api_world_pe(fn, ctx, pe));
}

static SHR_ALWAYS_INLINE void shr_api_iput(const char *fn, shr_ctx_t *ctx, void *dest,
                                           const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                           size_t bsize, size_t nblocks, size_t elem, int pe)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_iput_gated(fn, ctx, dest, src, dst, sst, bsize, nblocks, elem, pe);
        return;
    }
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu blocks of %zu x %zu bytes to %p on PE %d", nblocks, bsize,
                  elem, dest, pe);
    shr_rma_iput(fn, ctx, dest, src, dst, sst, bsize, nblocks, elem, shr_api_world_pe(fn, ctx, pe));
}

static SHR_ALWAYS_INLINE void shr_api_iget(const char *fn, shr_ctx_t *ctx, void *dest,
                                           const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                           size_t bsize, size_t nblocks, size_t elem, int pe)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_iget_gated(fn, ctx, dest, src, dst, sst, bsize, nblocks, elem, pe);
        return;
    }
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu blocks of %zu x %zu bytes from %p on PE %d", nblocks,
                  bsize, elem, src, pe);
    shr_rma_iget(fn, ctx, dest, src, dst, sst, bsize, nblocks, elem, shr_api_world_pe(fn, ctx, pe));
}

/* ---- AMO: values as bit patterns of the operand width ---- */
static SHR_ALWAYS_INLINE uint64_t shr_bits_of(const void *value, size_t size)
{
    if (size == 4) {
        uint32_t bits;
        memcpy(&bits, value, 4);
        return bits;
    }
    uint64_t bits;
    memcpy(&bits, value, 8);
    return bits;
}

static SHR_ALWAYS_INLINE void shr_bits_to(void *value, uint64_t bits, size_t size)
{
    if (size == 4) {
        uint32_t narrow = (uint32_t)bits;
        memcpy(value, &narrow, 4);
    } else {
        memcpy(value, &bits, 8);
    }
}

#define SHR_BITS(_type, _value) shr_bits_of(&(_type){(_value)}, sizeof(_type))
#define SHR_RETURN_BITS(_type, _bits) \
    _type result_; shr_bits_to(&result_, (_bits), sizeof(_type)); return result_

static SHR_ALWAYS_INLINE uint64_t shr_api_amo(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op,
                                              void *dest, uint64_t value, uint64_t cond,
                                              size_t size, int pe)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        return shr_api_amo_gated(fn, ctx, op, dest, value, cond, size, pe);
    }
    SHR_API_TRACE(SHR_LOG_AMO, fn, "%zu bytes at %p on PE %d", size, dest, pe);
    return shr_amo(fn, ctx, op, dest, value, cond, size, shr_api_world_pe(fn, ctx, pe));
}

static SHR_ALWAYS_INLINE void shr_api_amo_nbi(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op,
                                              void *fetch, void *dest, uint64_t value,
                                              uint64_t cond, size_t size, int pe)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_amo_nbi_gated(fn, ctx, op, fetch, dest, value, cond, size, pe);
        return;
    }
    SHR_API_TRACE(SHR_LOG_AMO, fn, "%zu bytes at %p on PE %d", size, dest, pe);
    shr_amo_nbi(fn, ctx, op, fetch, dest, value, cond, size, shr_api_world_pe(fn, ctx, pe));
}

/* ---- request handles (shmemx.h): the gate as above, then core/req_inline.h ----
 * Profiled in the families of their blocking forms (put, get, amo, signal). */
static SHR_ALWAYS_INLINE void shr_api_put_req(const char *fn, shr_ctx_t *ctx, void *dest,
                                              const void *src, size_t len, int pe,
                                              shmemx_req_t *req)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_put_req_gated(fn, ctx, dest, src, len, pe, req);
        return;
    }
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu bytes to %p on PE %d", len, dest, pe);
    shr_req_put(fn, ctx, dest, src, len, shr_api_world_pe(fn, ctx, pe), req);
}

static SHR_ALWAYS_INLINE void shr_api_get_req(const char *fn, shr_ctx_t *ctx, void *dest,
                                              const void *src, size_t len, int pe,
                                              shmemx_req_t *req)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_get_req_gated(fn, ctx, dest, src, len, pe, req);
        return;
    }
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu bytes from %p on PE %d", len, src, pe);
    shr_req_get(fn, ctx, dest, src, len, shr_api_world_pe(fn, ctx, pe), req);
}

static SHR_ALWAYS_INLINE void shr_api_iput_req(const char *fn, shr_ctx_t *ctx, void *dest,
                                               const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                               size_t nelems, size_t elem, int pe,
                                               shmemx_req_t *req)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_istrided_req_gated(fn, ctx, true, dest, src, dst, sst, nelems, elem, pe, req);
        return;
    }
    shr_req_iput(fn, ctx, dest, src, dst, sst, 1, nelems, elem, shr_api_world_pe(fn, ctx, pe), req);
}

static SHR_ALWAYS_INLINE void shr_api_iget_req(const char *fn, shr_ctx_t *ctx, void *dest,
                                               const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                               size_t nelems, size_t elem, int pe,
                                               shmemx_req_t *req)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_istrided_req_gated(fn, ctx, false, dest, src, dst, sst, nelems, elem, pe, req);
        return;
    }
    shr_req_iget(fn, ctx, dest, src, dst, sst, 1, nelems, elem, shr_api_world_pe(fn, ctx, pe), req);
}

/* fetch is NULL for the non-fetching operations */
static SHR_ALWAYS_INLINE void shr_api_amo_req(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op,
                                              void *fetch, void *dest, uint64_t value,
                                              uint64_t cond, size_t size, int pe,
                                              shmemx_req_t *req)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_amo_req_gated(fn, ctx, op, fetch, dest, value, cond, size, pe, req);
        return;
    }
    SHR_API_TRACE(SHR_LOG_AMO, fn, "%zu bytes at %p on PE %d", size, dest, pe);
    shr_req_amo(fn, ctx, op, fetch, dest, value, cond, size, shr_api_world_pe(fn, ctx, pe), req);
}

static SHR_ALWAYS_INLINE void shr_api_put_signal_req(const char *fn, shr_ctx_t *ctx, void *dest,
                                                     const void *src, size_t len,
                                                     uint64_t *sig_addr, uint64_t signal,
                                                     int sig_op, int pe, shmemx_req_t *req)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_put_signal_req_gated(fn, ctx, dest, src, len, sig_addr, signal, sig_op, pe, req);
        return;
    }
    shr_req_put_signal(fn, ctx, dest, src, len, sig_addr, signal, sig_op,
                       shr_api_world_pe(fn, ctx, pe), req);
}

/* ---- signals ---- */

static SHR_ALWAYS_INLINE void shr_api_put_signal(const char *fn, shr_ctx_t *ctx, void *dest,
                                                 const void *src, size_t len,
                                                 uint64_t *sig_addr, uint64_t signal,
                                                 int sig_op, int pe, bool nbi)
{
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_put_signal_gated(fn, ctx, dest, src, len, sig_addr, signal, sig_op, pe, nbi);
        return;
    }
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu bytes to %p and a signal to %p on PE %d", len, dest,
                  (void *)sig_addr, pe);
    shr_put_signal(fn, ctx, dest, src, len, sig_addr, signal, sig_op, shr_api_world_pe(fn, ctx, pe),
                   nbi);
}

/* ---- point-to-point synchronisation ---- */

static SHR_ALWAYS_INLINE void shr_api_wait_until(const char *fn, void *ivar, int cmp,
                                                 const void *value, shr_dtype_t dt)
{
    SHR_API_CHECK_CMP(fn, cmp);
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        shr_api_wait_until_gated(fn, ivar, cmp, value, dt);
        return;
    }
    shr_p2p_wait_until(ivar, cmp, value, dt);
}

static SHR_ALWAYS_INLINE int shr_api_test(const char *fn, void *ivar, int cmp,
                                          const void *value, shr_dtype_t dt)
{
    SHR_API_CHECK_CMP(fn, cmp);
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        return shr_api_test_gated(fn, ivar, cmp, value, dt);
    }
    if (SHR_UNLIKELY(shr_g.needs_progress)) {
        shr_progress();
    }
    return shr_p2p_test(ivar, cmp, value, dt);
}

/* `vector_elem` is 0 when `values` is one value, the element size when it is
 * one value per variable. */
static inline size_t shr_api_wait_set(const char *fn, shr_wait_kind_t kind, void *ivars,
                                      size_t nelems, size_t *indices, const int *status,
                                      int cmp, const void *values, size_t vector_elem,
                                      shr_dtype_t dt)
{
    SHR_API_CHECK_CMP(fn, cmp);
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        return shr_api_set_gated(fn, kind, ivars, nelems, indices, status, cmp, values,
                                 vector_elem, dt, false);
    }
    return shr_p2p_wait_set(kind, ivars, nelems, indices, status, cmp, values,
                            vector_elem != 0, dt);
}

static inline size_t shr_api_test_set(const char *fn, shr_wait_kind_t kind, void *ivars,
                                      size_t nelems, size_t *indices, const int *status,
                                      int cmp, const void *values, size_t vector_elem,
                                      shr_dtype_t dt)
{
    SHR_API_CHECK_CMP(fn, cmp);
    if (SHR_UNLIKELY(shr_g.check_gate)) {
        return shr_api_set_gated(fn, kind, ivars, nelems, indices, status, cmp, values,
                                 vector_elem, dt, true);
    }
    return shr_p2p_test_set(kind, ivars, nelems, indices, status, cmp, values,
                            vector_elem != 0, dt);
}

/* ---- collectives: out of line in src/api/coll.c (checks, then src/coll) ----
 * Team forms return 0 on success.  `_aset` forms are the deprecated
 * active-set ones (PE_start, logPE_stride, PE_size, pSync).  `len` is in
 * bytes; alltoall(s) take an element count and the element size. */
int shr_api_alltoall(const char *fn, shr_team_t *team, void *dest, const void *src,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem);
void shr_api_alltoall_aset(const char *fn, void *dest, const void *src, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, size_t elem, int PE_start,
                           int logPE_stride, int PE_size, long *pSync);
int shr_api_broadcast(const char *fn, shr_team_t *team, void *dest, const void *src, size_t len,
                      int root);
void shr_api_broadcast_aset(const char *fn, void *dest, const void *src, size_t len, int root,
                            int PE_start, int logPE_stride, int PE_size, long *pSync);
int shr_api_collect(const char *fn, shr_team_t *team, void *dest, const void *src, size_t len,
                    bool fixed);
void shr_api_collect_aset(const char *fn, void *dest, const void *src, size_t len, bool fixed,
                          int PE_start, int logPE_stride, int PE_size, long *pSync);
/* On request handles: a split handle makes the call one thread's slice
 * (broadcast, fcollect, reductions); the handle is left as it was. */
int shr_api_broadcast_req(const char *fn, shr_team_t *team, void *dest, const void *src,
                          size_t len, int root, shmemx_req_t *req);
int shr_api_collect_req(const char *fn, shr_team_t *team, void *dest, const void *src,
                        size_t len, bool fixed, shmemx_req_t *req);
int shr_api_alltoall_req(const char *fn, shr_team_t *team, void *dest, const void *src,
                         size_t nelems, size_t elem, shmemx_req_t *req);
int shr_api_reduce_req(const char *fn, shr_team_t *team, void *dest, const void *src,
                       size_t nreduce, shr_dtype_t dt, shr_op_t op, shmemx_req_t *req);
int shr_api_reduce(const char *fn, shr_team_t *team, void *dest, const void *src,
                   size_t nreduce, shr_dtype_t dt, shr_op_t op);
void shr_api_reduce_aset(const char *fn, void *dest, const void *src, int nreduce,
                         shr_dtype_t dt, shr_op_t op, int PE_start, int logPE_stride,
                         int PE_size, void *pWrk, long *pSync);
int shr_api_scan(const char *fn, shr_team_t *team, void *dest, const void *src, size_t nelems,
                 shr_dtype_t dt, bool inclusive);

#endif
