/*
 * p2p_inline.h -- comparisons of wait/test (spec 9.11) on local variables.
 * Types reach this layer as (size, signedness); both are constants in the
 * generated shims, so each shim compiles to a loop for its own type.
 */
#ifndef SHR_P2P_INLINE_H
#define SHR_P2P_INLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <shmem_defs.h>

#include "core/dtype.h"
#include "core/wait_inline.h"

/* Loads `size` bytes at `p` atomically (acquire), widened to 64 bits. */
static SHR_ALWAYS_INLINE uint64_t shr_p2p_load(const void *p, size_t size, bool is_signed)
{
    switch (size) {
    case 2: {
        uint16_t v = __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE);
        return is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v = __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
        return is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default:
        return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
    }
}

/* The same for a plain (non-shared) value such as cmp_value. */
static SHR_ALWAYS_INLINE uint64_t shr_p2p_value(const void *p, size_t size, bool is_signed)
{
    switch (size) {
    case 2: return is_signed ? (uint64_t)(int64_t)*(const int16_t *)p : *(const uint16_t *)p;
    case 4: return is_signed ? (uint64_t)(int64_t)*(const int32_t *)p : *(const uint32_t *)p;
    default: return *(const uint64_t *)p;
    }
}

static SHR_ALWAYS_INLINE bool shr_p2p_compare(int cmp, uint64_t a, uint64_t b, bool is_signed)
{
    if (is_signed) {
        int64_t x = (int64_t)a, y = (int64_t)b;
        switch (cmp) {
        case SHMEM_CMP_EQ: return x == y;
        case SHMEM_CMP_NE: return x != y;
        case SHMEM_CMP_GT: return x > y;
        case SHMEM_CMP_GE: return x >= y;
        case SHMEM_CMP_LT: return x < y;
        default:           return x <= y;
        }
    }
    switch (cmp) {
    case SHMEM_CMP_EQ: return a == b;
    case SHMEM_CMP_NE: return a != b;
    case SHMEM_CMP_GT: return a > b;
    case SHMEM_CMP_GE: return a >= b;
    case SHMEM_CMP_LT: return a < b;
    default:           return a <= b;
    }
}

/* Does ivar (cmp) value hold now? */
static SHR_ALWAYS_INLINE bool shr_p2p_test(const void *ivar, int cmp, const void *value,
                                           shr_dtype_t dt)
{
    size_t size = shr_dtype_size(dt);
    bool is_signed = shr_dtype_is_signed(dt);

    return shr_p2p_compare(cmp, shr_p2p_load(ivar, size, is_signed),
                           shr_p2p_value(value, size, is_signed), is_signed);
}

/* The polling half of shr_p2p_wait_until, for a constant `cmp`. */
static SHR_ALWAYS_INLINE uint64_t shr_p2p_spin(const void *ivar, int cmp, uint64_t want,
                                               size_t size, bool is_signed)
{
    shr_waiter_t waiter = SHR_WAITER_ON(NULL, ivar, size);
    uint64_t seen;

    do {
        shr_waiter_pause(&waiter);
    } while (!shr_p2p_compare(cmp, seen = shr_p2p_load(ivar, size, is_signed), want, is_signed));
    return seen;
}

/* Waits until ivar (cmp) value holds; returns the value that satisfied it
 * (widened to 64 bits), which may differ from what ivar holds by now. */
static SHR_ALWAYS_INLINE uint64_t shr_p2p_wait_until(const void *ivar, int cmp,
                                                     const void *value, shr_dtype_t dt)
{
    size_t size = shr_dtype_size(dt);
    bool is_signed = shr_dtype_is_signed(dt);
    uint64_t want = shr_p2p_value(value, size, is_signed);
    uint64_t seen = shr_p2p_load(ivar, size, is_signed);

    if (SHR_LIKELY(shr_p2p_compare(cmp, seen, want, is_signed))) {
        return seen; /* satisfied at once: no waiter to set up */
    }
    /* one loop per comparison, not a jump-table branch in every poll: the
     * word's change is seen sooner (8 B put + flag ping-pong 46 -> 38 ns,
     * shmem_signal_wait_until's 45 -> 38 ns on Zen 5: the commit says how) */
    switch (cmp) {
    case SHMEM_CMP_EQ: return shr_p2p_spin(ivar, SHMEM_CMP_EQ, want, size, is_signed);
    case SHMEM_CMP_NE: return shr_p2p_spin(ivar, SHMEM_CMP_NE, want, size, is_signed);
    case SHMEM_CMP_GT: return shr_p2p_spin(ivar, SHMEM_CMP_GT, want, size, is_signed);
    case SHMEM_CMP_GE: return shr_p2p_spin(ivar, SHMEM_CMP_GE, want, size, is_signed);
    case SHMEM_CMP_LT: return shr_p2p_spin(ivar, SHMEM_CMP_LT, want, size, is_signed);
    default:           return shr_p2p_spin(ivar, SHMEM_CMP_LE, want, size, is_signed);
    }
}

typedef enum { SHR_WAIT_ALL, SHR_WAIT_ANY, SHR_WAIT_SOME } shr_wait_kind_t;

/* The multi-variable forms (core/p2p.c).  `values` holds one value, or one
 * per variable when `vector` is true.  Return values as the spec defines for
 * the kind (ALL: 1/0 for test, ANY: index or SIZE_MAX, SOME: count). */
size_t shr_p2p_test_set(shr_wait_kind_t kind, const void *ivars, size_t nelems, size_t *indices,
                        const int *status, int cmp, const void *values, bool vector,
                        shr_dtype_t dt);
size_t shr_p2p_wait_set(shr_wait_kind_t kind, const void *ivars, size_t nelems, size_t *indices,
                        const int *status, int cmp, const void *values, bool vector,
                        shr_dtype_t dt);

#endif
