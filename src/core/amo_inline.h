/*
 * amo_inline.h -- atomics and signals.  On this node an AMO is one CPU
 * atomic on the peer's mapping; values travel as uint64_t bit patterns of
 * the operand width (4 or 8 bytes), so float/double use the integer paths.
 *
 * Atomicity domain: every AMO on a location goes through the same kind of
 * operation (CPU atomics here; the remote transport's own path for remote
 * peers, see docs/architecture.md), whichever context issued it.
 * Thread-safe.
 */
#ifndef SHR_AMO_INLINE_H
#define SHR_AMO_INLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/rma_inline.h"
#include "core/state.h"
#include "core/team.h"

typedef enum {
    SHR_AMO_FETCH,
    SHR_AMO_SET,
    SHR_AMO_SWAP,
    SHR_AMO_CSWAP,
    SHR_AMO_ADD,
    SHR_AMO_FETCH_ADD,
    SHR_AMO_AND,
    SHR_AMO_FETCH_AND,
    SHR_AMO_OR,
    SHR_AMO_FETCH_OR,
    SHR_AMO_XOR,
    SHR_AMO_FETCH_XOR
} shr_amo_op_t;

/* Does `op` return the old value? */
static SHR_ALWAYS_INLINE bool shr_amo_op_fetches(shr_amo_op_t op)
{
    return op != SHR_AMO_SET && op != SHR_AMO_ADD && op != SHR_AMO_AND && op != SHR_AMO_OR &&
           op != SHR_AMO_XOR;
}

#define SHR_AMO_CASE_WIDTH(_type, _p, _op, _value, _cond) do { \
        _type *q_ = (_type *)(_p), v_ = (_type)(_value), c_ = (_type)(_cond); \
        switch (_op) { \
        case SHR_AMO_FETCH:     return __atomic_load_n(q_, __ATOMIC_ACQUIRE); \
        case SHR_AMO_SET:       __atomic_store_n(q_, v_, __ATOMIC_RELEASE); return 0; \
        case SHR_AMO_SWAP:      return __atomic_exchange_n(q_, v_, __ATOMIC_SEQ_CST); \
        case SHR_AMO_CSWAP: \
            __atomic_compare_exchange_n(q_, &c_, v_, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
            return c_; \
        case SHR_AMO_ADD:       __atomic_fetch_add(q_, v_, __ATOMIC_SEQ_CST); return 0; \
        case SHR_AMO_FETCH_ADD: return __atomic_fetch_add(q_, v_, __ATOMIC_SEQ_CST); \
        case SHR_AMO_AND:       __atomic_fetch_and(q_, v_, __ATOMIC_SEQ_CST); return 0; \
        case SHR_AMO_FETCH_AND: return __atomic_fetch_and(q_, v_, __ATOMIC_SEQ_CST); \
        case SHR_AMO_OR:        __atomic_fetch_or(q_, v_, __ATOMIC_SEQ_CST); return 0; \
        case SHR_AMO_FETCH_OR:  return __atomic_fetch_or(q_, v_, __ATOMIC_SEQ_CST); \
        case SHR_AMO_XOR:       __atomic_fetch_xor(q_, v_, __ATOMIC_SEQ_CST); return 0; \
        case SHR_AMO_FETCH_XOR: return __atomic_fetch_xor(q_, v_, __ATOMIC_SEQ_CST); \
        } \
        return 0; \
    } while (0)

/* The operation on memory this process can address. */
static SHR_ALWAYS_INLINE uint64_t shr_amo_at(void *p, shr_amo_op_t op, uint64_t value,
                                             uint64_t cond, size_t size)
{
    if (size == 4) {
        SHR_AMO_CASE_WIDTH(uint32_t, p, op, value, cond);
    }
    SHR_AMO_CASE_WIDTH(uint64_t, p, op, value, cond);
}

/* A program's AMO target must be aligned to its size (always checked: one
 * test beside a locked instruction; a misaligned one would not be atomic
 * across cache lines, and on Arm it faults).  The library's are. */
static SHR_ALWAYS_INLINE bool shr_amo_aligned(const char *fn, const void *dest, size_t size)
{
    return fn == NULL || ((uintptr_t)dest & (size - 1)) == 0;
}

/* Out of line: remote peer or invalid input.  `fn` as in rma_inline.h. */
SHR_COLD uint64_t shr_amo_slow(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op, void *dest,
                               uint64_t value, uint64_t cond, size_t size, int pe);

/* Performs `op` on `size` bytes at symmetric `dest` of world PE `pe`;
 * returns the old value for fetching operations.  `fn`: the program's
 * routine (its PE and address are checked) or NULL (rma_inline.h). */
static SHR_ALWAYS_INLINE uint64_t shr_amo(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op,
                                          void *dest, uint64_t value, uint64_t cond, size_t size,
                                          int pe)
{
    void *target = shr_rma_map(fn, dest, size, pe);

    if (SHR_LIKELY(target != NULL && shr_amo_aligned(fn, dest, size))) {
        return shr_amo_at(target, op, value, cond, size);
    }
    return shr_amo_slow(fn, ctx, op, dest, value, cond, size, pe);
}

/* Nonblocking fetching AMO: the old value lands in *fetch (after quiet at
 * the latest; on this node at once). */
SHR_COLD void shr_amo_nbi_slow(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op, void *fetch,
                               void *dest, uint64_t value, uint64_t cond, size_t size, int pe);

static SHR_ALWAYS_INLINE void shr_amo_nbi(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op,
                                          void *fetch, void *dest, uint64_t value, uint64_t cond,
                                          size_t size, int pe)
{
    void *target = shr_rma_map(fn, dest, size, pe);

    if (SHR_LIKELY(target != NULL && shr_amo_aligned(fn, dest, size))) {
        uint64_t old = shr_amo_at(target, op, value, cond, size);
        if (size == 4) {
            *(uint32_t *)fetch = (uint32_t)old;
        } else {
            *(uint64_t *)fetch = old;
        }
        return;
    }
    shr_amo_nbi_slow(fn, ctx, op, fetch, dest, value, cond, size, pe);
}

/* Out of line: remote peer, or an invalid address. */
SHR_COLD void shr_put_signal_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                                  size_t len, uint64_t *sig_addr, uint64_t signal, int sig_op,
                                  int pe, bool nbi);

/* Puts `len` bytes (len may be 0), then sets (SHMEM_SIGNAL_SET) or adds to
 * (SHMEM_SIGNAL_ADD) the 64-bit flag at symmetric `sig_addr` of `pe`: the
 * flag changes after the data and after every earlier put of this thread
 * to `pe` -- every "data, then the flag that announces it" goes through
 * here.  On this node: the copy, then one atomic (x86 TSO and the release
 * order it; the atomics never reorder before the stores).  A remote peer:
 * the transport's put_signal, which owns the order.  `fn` and `nbi` as for
 * puts. */
static SHR_ALWAYS_INLINE void shr_put_signal(const char *fn, shr_ctx_t *ctx, void *dest,
                                             const void *src, size_t len, uint64_t *sig_addr,
                                             uint64_t signal, int sig_op, int pe, bool nbi)
{
    uint64_t *flag = shr_rma_map(fn, sig_addr, sizeof(uint64_t), pe);
    void *target = len != 0 ? shr_rma_map(fn, dest, len, pe) : NULL;

    if (SHR_LIKELY(flag != NULL && shr_amo_aligned(fn, sig_addr, sizeof(uint64_t)) &&
                   (len == 0 || (target != NULL && (fn == NULL || src != NULL))))) {
        if (len != 0) {
            shr_copy_once(target, src, len);
        }
        shr_amo_at(flag, sig_op == SHMEM_SIGNAL_ADD ? SHR_AMO_ADD : SHR_AMO_SET, signal, 0,
                   sizeof(uint64_t));
        return;
    }
    shr_put_signal_slow(fn, ctx, dest, src, len, sig_addr, signal, sig_op, pe, nbi);
}

/* Signal update alone (shmem_signal_add/set): an AMO, ordered after
 * earlier stores on this node only as any AMO is (the spec asks no more). */
static SHR_ALWAYS_INLINE void shr_signal(const char *fn, shr_ctx_t *ctx, uint64_t *sig_addr,
                                         uint64_t signal, int sig_op, int pe)
{
    shr_amo(fn, ctx, sig_op == SHMEM_SIGNAL_ADD ? SHR_AMO_ADD : SHR_AMO_SET, sig_addr, signal, 0,
            sizeof(uint64_t), pe);
}

#endif
