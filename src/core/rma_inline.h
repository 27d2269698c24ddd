/*
 * rma_inline.h -- THE fast path of put and get: a peer on this node is an
 * address translation plus a copy; anything else leaves through a cold
 * out-of-line function (remote transport, or a diagnosis of bad input).
 *
 * Contract for all: `pe` is a world PE number, addresses are symmetric
 * addresses of the caller (dest for puts, source for gets), sizes in bytes.
 * `fn` is the routine a program called, whose addresses, lengths and PE are
 * checked on the way (shr_user_ptr; errors name it), or NULL for the
 * library's own transfers (any PE is valid, the internal heap is theirs).
 * It is a constant wherever these are inlined, so the choice costs nothing.
 * Thread-safe: no state is written.
 */
#ifndef SHR_RMA_INLINE_H
#define SHR_RMA_INLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/state.h"
#include "core/team.h"

/* glibc's memcpy under a name the compiler does not treat as the builtin:
 * the interior's length is never known at compile time, and GCC's debug
 * and sanitizer builds, which keep the branches a constant length rules
 * out, would warn about the sizes those branches compute. */
extern void *shr_memcpy_call(void *dest, const void *src, size_t len) __asm__("memcpy");

/* Unaligned views for single moves of 1, 2, 4, 8 and 16 bytes.  memcpy with
 * a constant size becomes one move only when the compiler inlines it: a
 * debug or sanitizer build calls glibc's (through ASan's interceptor), which
 * covers 8 bytes with two overlapping 8-byte stores. */
typedef uint16_t shr_u16_once_t __attribute__((may_alias, aligned(1)));
typedef uint32_t shr_u32_once_t __attribute__((may_alias, aligned(1)));
typedef uint64_t shr_u64_once_t __attribute__((may_alias, aligned(1)));
typedef char shr_v16_once_t __attribute__((vector_size(16), may_alias, aligned(1)));

/* Moves `chunk` (1, 2, 4, 8 or 16) bytes with one load and one store. */
static SHR_ALWAYS_INLINE void shr_move_once(char *d, const char *s, size_t chunk)
{
    switch (chunk) {
    case 16: *(shr_v16_once_t *)d = *(const shr_v16_once_t *)s; break;
    case 8: *(shr_u64_once_t *)d = *(const shr_u64_once_t *)s; break;
    case 4: *(shr_u32_once_t *)d = *(const shr_u32_once_t *)s; break;
    case 2: *(shr_u16_once_t *)d = *(const shr_u16_once_t *)s; break;
    default: *d = *s; break;
    }
}

/* Copies len bytes with non-overlapping 16/8/4/2/1-byte moves: every byte
 * stored once (the short copies, and the tail of the skewed copy). */
static SHR_ALWAYS_INLINE void shr_copy_short(char *d, const char *s, size_t len)
{
    if (len == 8) {                 /* the commonest size: one move, no tests */
        shr_move_once(d, s, 8);
        return;
    }
    for (; len >= 16; len -= 16) {
        shr_move_once(d, s, 16);
        d += 16;
        s += 16;
    }
    /* 8, 4, 2, 1: unrolled, so each move is one store of that size */
#pragma GCC unroll 4
    for (size_t chunk = 8; chunk != 0; chunk >>= 1) {
        if (len & chunk) {
            shr_move_once(d, s, chunk);
            d += chunk;
            s += chunk;
        }
    }
}

/* The skew window.  glibc's memcpy (2.36) copies above 2 KiB up to the L2
 * size (1 MiB here) with `rep movsb`, which on AMD Zen stalls at every load
 * when the destination lies a few bytes ahead of the source modulo 4 KiB: each
 * load waits behind a store just issued to the same address modulo 4 KiB.
 * Measured on an AMD EPYC (Zen 4), 64 KiB, best of 3, GB/s memcpy against
 * shr_copy_skewed: (dest - src) mod 4 KiB 0: 57/58; 1-15: 2.5-3.5/33-49;
 * 16-31: 26-54/36-49; 32-63: 35-41/33-49 but at 4-16 KiB 87-106/48-59;
 * 64 and more: alike.  Up to 2 KiB (vector moves, which step around the
 * aliasing; 2 KiB, skew 4-30: 66-77/39-46) and from 1 MiB (1 MiB: 36-42/
 * 30-34) memcpy stays ahead at every skew; 3 KiB, skew 4-14: 2/41-45.
 * So the skewed copy takes 1-31 bytes of skew, above 2 KiB to 1 MiB. */
#define SHR_COPY_SKEW_PAGE 4096u
#define SHR_COPY_SKEW_MAX 31u                /* (dest - src) mod 4 KiB in 1..this */
#define SHR_COPY_SKEW_MIN_LEN 2049u          /* memcpy's rep movsb from here */
#define SHR_COPY_SKEW_END_LEN (1u << 20)     /* ... to here (glibc: the L2 size) */

/* Copies len (>= 16) bytes, each byte stored once, loading each 64-byte
 * block before storing the previous one, so that no load waits behind a
 * store to the same address modulo 4 KiB.  Thread-safe; core/rma.c. */
void shr_copy_skewed(void *dest, const void *src, size_t len);

/* A copy from 2 KiB (shr_copy_is_long), where glibc's memcpy uses rep
 * movsb, which is slow on AMD Zen.  On a CPU with 64-byte vector moves
 * (SHIMMER_SHM_COPY, shr_copy_select) a copy whose source and destination
 * fit in half the L1 data cache goes through a loop of them (twice as fast
 * on AMD Zen 5: the figures and their command above shr_copy_wide), and on
 * those CPUs a copy from 1 MiB on, unskewed, through one rep movsb, which
 * glibc gives up there (above shr_copy_movsb), or, where the L2 is 1 MiB,
 * from 960 KiB to 1152 KiB through rep movsb in 128 KiB pieces (the
 * same); else a skewed one below
 * 1 MiB through shr_copy_skewed, the rest through memcpy.  Interior bytes may be stored
 * twice, as memcpy's are.  Thread-safe; core/rma.c. */
void shr_copy_window(void *dest, const void *src, size_t len) SHR_PLUGIN_IMPORT(copy_window);
/* shr_copy_window's copy on this core alone, never shared, for the same
 * lengths (from 2 KiB: its 64-byte moves would store past a shorter
 * copy): each chunk of a shared copy (core/share.h) goes through it. */
void shr_copy_alone(void *dest, const void *src, size_t len);

/* Chooses the copies of shr_copy_window and shr_copy_once (through
 * shr_copy_once_long and shr_copy_inline_max) once, at init, for
 * SHIMMER_SHM_COPY (`mode`: SHR_SHM_COPY_*); until then shr_copy_window
 * takes neither the vector loop nor rep movsb, nor shr_copy_once a
 * vector copy.  Returns the longest copy the vector loop
 * takes (0: none, and no rep movsb).
 * Not thread-safe: call before any transfer. */
size_t shr_copy_select(int mode);

/* Is len in memcpy's rep movsb window? */
static SHR_ALWAYS_INLINE bool shr_copy_is_in_window(size_t len)
{
    return len - SHR_COPY_SKEW_MIN_LEN < SHR_COPY_SKEW_END_LEN - SHR_COPY_SKEW_MIN_LEN;
}

/* Does shr_copy_window take a copy of len bytes?  From 2 KiB to 2 GiB (a
 * bound that fits in a compare's immediate, so that the test is the same
 * instructions as shr_copy_is_in_window's; memcpy beyond). */
static SHR_ALWAYS_INLINE bool shr_copy_is_long(size_t len)
{
    return len - SHR_COPY_SKEW_MIN_LEN < (1u << 31) - SHR_COPY_SKEW_MIN_LEN;
}

/* Is dest 1..SHR_COPY_SKEW_MAX bytes ahead of src modulo 4 KiB (see above)? */
static SHR_ALWAYS_INLINE bool shr_copy_has_skew(const void *dest, const void *src)
{
    uintptr_t skew = ((uintptr_t)dest - (uintptr_t)src) & (SHR_COPY_SKEW_PAGE - 1);

    return skew - 1 < SHR_COPY_SKEW_MAX;
}

/* Would memcpy(dest, src, len) crawl on 4 KiB aliasing (see above)? */
static SHR_ALWAYS_INLINE bool shr_copy_is_skewed(const void *dest, const void *src, size_t len)
{
    return shr_copy_has_skew(dest, src) && shr_copy_is_in_window(len);
}

/* A get's copy: memcpy, or shr_copy_window from 2 KiB on (a constant
 * length below that keeps memcpy's inline moves). */
static SHR_ALWAYS_INLINE void shr_copy_get(void *dest, const void *src, size_t len)
{
    if (SHR_UNLIKELY(shr_copy_is_long(len))) {
        shr_copy_window(dest, src, len);
        return;
    }
    memcpy(dest, src, len);
}


/* `s`, as a value the CPU computes from `d` (user addresses are below 2^63),
 * so that a copy's loads issue only once its destination's address is
 * known.  In a flood of puts to a mapped peer the destination comes from
 * loads (the segment table, peer_base[pe]) while the source is at hand: the
 * next put's loads ran ahead of the last put's stores, whose addresses were
 * not yet known, and where they matched modulo 4 KiB (page-aligned buffers)
 * the CPU took them for a dependence and stalled them.  AMD EPYC (Zen 5),
 * 64 puts then quiet, ns per put: 128 B 7.1 -> 3.4, 256 B 12.4 -> 4.5,
 * 512 B 14.5 -> 6.2 (the copy alone, its destination in a register: 2.9,
 * 3.7, 5.5).  The price is the data-then-flag ping-pong (put_lat's
 * pingpong_us), half round trip 256 B 52.2 -> 57.1 ns, 512 B 53.6 -> 61.9
 * (8 B and 64 B alike), and any wait pays it: loads waiting on the head's
 * 8-byte load instead of the destination kept the flood and the cost, the
 * head alone waiting lost the flood, a prefetch of the source did not
 * help.  The segment table and peer_base are private to the process (no
 * line shared with what the peer writes).  A 72-128 B copy inline does
 * not wait: its flood keeps up without (shr_copy_once).  Commands:
 * bench/notes/vs-mpi.md, "Why medians moved up to 2x between launches". */
static SHR_ALWAYS_INLINE const char *shr_copy_src_after(const char *s, const char *d)
{
#if defined(__x86_64__)
    return s + ((uintptr_t)d >> 63);
#else
    (void)d;
    return s;
#endif
}

typedef void shr_copy_fn_t(void *dest, const void *src, size_t len);

/* shr_copy_once above 32 bytes (core/rma.c): the head's and the tail's 8
 * bytes around memcpy's interior, or the vector copy shr_copy_select chose
 * at init (before it, the former).  A pointer, so that a put jumps there
 * with nothing saved: a put + quiet waits for every store, pushes too.
 * Thread-safe once set. */
extern shr_copy_fn_t *shr_copy_once_long SHR_PLUGIN_IMPORT(copy_once_long);

/* The longest copy shr_copy_once makes inline (shr_copy_ends_asm): 512
 * where shr_copy_select chose shr_copy_once_vec, else 0.  One compare
 * then sends every other length to shr_copy_once_long. */
extern size_t shr_copy_inline_max SHR_PLUGIN_IMPORT(copy_inline_max);

#if defined(__x86_64__)
/* One move of `width` bytes from each end, `mov` into registers `reg`0-1. */
#define SHR_COPY_ENDS_ONE(mov, reg, width)                                                     \
    __asm__ volatile(mov " (%[s]), %%" reg "0\n\t" mov " -" width "(%[s],%[n]), %%" reg "1\n\t" \
                     mov " %%" reg "0, (%[d])\n\t" mov " %%" reg "1, -" width "(%[d],%[n])\n\t"  \
                     "vzeroupper"                                                              \
                     :                                                                         \
                     : [s] "r"(s), [d] "r"(d), [n] "r"(len)                                    \
                     : "xmm0", "xmm1", "memory")
/* Copies len bytes with `each` bytes of moves from each end: one 32-byte
 * move (40-64 B), or one, two or four 64-byte moves (72-128, 136-256,
 * 264-512 B); every load before any store, the last move last, so that
 * the first and the last 8 bytes are each stored once, in one store.  In
 * asm so that it inlines into the put shims, built without AVX-512: no
 * pointer load, no jump through shr_copy_once_long (interleaved
 * launches: put + quiet 256 B and 512 B 0.2 ns faster, bench/notes/vs-mpi.md,
 * "Blocking latency, one node").  GCC's AVX-512 vector types there
 * realigned the shim's stack (pushes, which a quiet's fence waits for),
 * and its intrinsics do not inline there.  zmm0-7 then vzeroupper, as
 * glibc's AVX-512 memcpy.  Only where shr_copy_inline_max says the CPU
 * has them. */
static SHR_ALWAYS_INLINE void shr_copy_ends_asm(void *d, const void *s, size_t len, unsigned each)
{
    if (each == 32) {
        SHR_COPY_ENDS_ONE("vmovdqu", "ymm", "32");
    } else if (each == 4 * 64) {
        __asm__ volatile("vmovdqu64 (%[s]), %%zmm0\n\t"
                         "vmovdqu64 64(%[s]), %%zmm1\n\t"
                         "vmovdqu64 128(%[s]), %%zmm2\n\t"
                         "vmovdqu64 192(%[s]), %%zmm3\n\t"
                         "vmovdqu64 -256(%[s],%[n]), %%zmm4\n\t"
                         "vmovdqu64 -192(%[s],%[n]), %%zmm5\n\t"
                         "vmovdqu64 -128(%[s],%[n]), %%zmm6\n\t"
                         "vmovdqu64 -64(%[s],%[n]), %%zmm7\n\t"
                         "vmovdqu64 %%zmm0, (%[d])\n\t"
                         "vmovdqu64 %%zmm1, 64(%[d])\n\t"
                         "vmovdqu64 %%zmm2, 128(%[d])\n\t"
                         "vmovdqu64 %%zmm3, 192(%[d])\n\t"
                         "vmovdqu64 %%zmm4, -256(%[d],%[n])\n\t"
                         "vmovdqu64 %%zmm5, -192(%[d],%[n])\n\t"
                         "vmovdqu64 %%zmm6, -128(%[d],%[n])\n\t"
                         "vmovdqu64 %%zmm7, -64(%[d],%[n])\n\t"
                         "vzeroupper"
                         :
                         : [s] "r"(s), [d] "r"(d), [n] "r"(len)
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
                           "memory");
    } else if (each == 2 * 64) {
        __asm__ volatile("vmovdqu64 (%[s]), %%zmm0\n\t"
                         "vmovdqu64 64(%[s]), %%zmm1\n\t"
                         "vmovdqu64 -128(%[s],%[n]), %%zmm2\n\t"
                         "vmovdqu64 -64(%[s],%[n]), %%zmm3\n\t"
                         "vmovdqu64 %%zmm0, (%[d])\n\t"
                         "vmovdqu64 %%zmm1, 64(%[d])\n\t"
                         "vmovdqu64 %%zmm2, -128(%[d],%[n])\n\t"
                         "vmovdqu64 %%zmm3, -64(%[d],%[n])\n\t"
                         "vzeroupper"
                         :
                         : [s] "r"(s), [d] "r"(d), [n] "r"(len)
                         : "xmm0", "xmm1", "xmm2", "xmm3", "memory");
    } else {
        SHR_COPY_ENDS_ONE("vmovdqu64", "zmm", "64");
    }
}
#endif

/* Copies into memory another PE may be watching, storing every byte once.
 * glibc's memcpy covers a short or ragged range with overlapping head and
 * tail blocks (8 bytes are two 8-byte stores to the same place): a PE that
 * saw the first store, consumed the value and reset the word would see the
 * old value come back with the second.  That broke the put + wait_until
 * ping-pong (openshmem-examples' sping lost messages).  The first and last
 * 8 bytes, the words programs poll, get one store each, the last one last;
 * above 32 bytes inline (shr_copy_ends_asm) or through shr_copy_once_long.
 * 72-128 B is tested right after 40-64 B and its loads do not wait for the
 * destination: 128 B put + quiet 0.2 ns faster, the floods within 1.6 %
 * (bench/notes/vs-mpi.md, "Blocking latency, one node"). */
static SHR_ALWAYS_INLINE void shr_copy_once(void *dest, const void *src, size_t len)
{
    if (SHR_UNLIKELY(len > 32)) {
#if defined(__x86_64__)
        if (len <= shr_copy_inline_max) {
            const char *s = shr_copy_src_after((const char *)src, (const char *)dest);

            if (len <= 64) {
                if (len >= 40) { /* the loads need not wait here */
                    shr_copy_ends_asm(dest, src, len, 32);
                    return;
                }
            } else if (len <= 128) { /* second, not waiting: see above */
                if (len >= 72) {
                    shr_copy_ends_asm(dest, src, len, 64);
                    return;
                }
            } else if (len - 264 <= 512 - 264) {
                shr_copy_ends_asm(dest, s, len, 4 * 64);
                return;
            } else if (len - 136 <= 256 - 136) {
                shr_copy_ends_asm(dest, s, len, 2 * 64);
                return;
            }
        }
#endif
        shr_copy_once_long(dest, src, len);
        return;
    }
    shr_copy_short((char *)dest, (const char *)src, len);
}

/* Out of line: remote peer, zero length, or invalid input (which ends the
 * job with a message when `fn` is set).  A put's slow path is two, blocking
 * and nbi, each of six arguments: a put's shim jumps there with no frame
 * of its own. */
SHR_COLD void shr_rma_put_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                               size_t len, int pe);
SHR_COLD void shr_rma_put_nbi_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                                   size_t len, int pe);
/* shr_rma_put_slow of the first `len` (<= 8) bytes of `bits` (shr_rma_p) */
SHR_COLD void shr_rma_p_slow(const char *fn, shr_ctx_t *ctx, void *dest, uint64_t bits, size_t len,
                             int pe);
SHR_COLD void shr_rma_get_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                               size_t len, int pe, bool nbi);
/* shr_rma_get_slow into a variable of up to 8 bytes (shmem_g): returns the
 * value in the first `len` bytes, so that no caller's address escapes. */
SHR_COLD uint64_t shr_rma_g_slow(const char *fn, shr_ctx_t *ctx, const void *src, size_t len,
                                 int pe);
/* Stores the first `len` bytes of a value returned that way into the
 * caller's variable.  len <= 8 whenever a g runs; the bound is for builds
 * that do not fold the caller's constants (at -O0 GCC follows a plain
 * get's length into the g branch it never takes and warns of a long read). */
static SHR_ALWAYS_INLINE void shr_rma_g_store(void *value, uint64_t bits, size_t len)
{
    memcpy(value, &bits, len < sizeof(bits) ? len : sizeof(bits));
}
SHR_COLD void shr_rma_iput_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                                ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                                size_t elem, int pe);
SHR_COLD void shr_rma_iget_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                                ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                                size_t elem, int pe);

/* A remote transfer's symmetric end (`what` names it): in some segment,
 * the library's own included, or the job ends (fn NULL: a library-internal
 * transfer). */
SHR_COLD void shr_rma_require_symmetric(const char *fn, const char *what, const void *addr,
                                        size_t len);

/* A program's transfer to or from a PE shr_user_ptr did not map (a
 * remote one) that passes every always-on check: pe is a PE of the job,
 * [remote, remote+len) lies in the user's part of one segment, len is not
 * 0 and `local` is not NULL.  Returns that segment, and remote's offset
 * there in *off_p; -1 if a check fails.  The slow paths test this inline
 * and call the checks' cold half only when it fails (a remote put spent
 * ~110 instructions there).  No state is written. */
static SHR_ALWAYS_INLINE int shr_rma_remote_seg(const void *remote, size_t len,
                                                const void *local, int pe, uint64_t *off_p)
{
    if ((unsigned)pe >= (unsigned)shr_g.n_pes || len == 0 || local == NULL) {
        return -1;
    }
    return shr_user_seg(remote, len, off_p);
}

/* Does a program's remote transfer pass every always-on check
 * (shr_rma_remote_seg)? */
static SHR_ALWAYS_INLINE bool shr_rma_remote_is_valid(const void *remote, size_t len,
                                                      const void *local, int pe)
{
    uint64_t off;

    return shr_rma_remote_seg(remote, len, local, pe, &off) >= 0;
}

/* Where [addr, addr+len) of `pe` is mapped here, or NULL (see the contract). */
static SHR_ALWAYS_INLINE void *shr_rma_map(const char *fn, const void *addr, size_t len, int pe)
{
    return fn != NULL ? shr_user_ptr(addr, len, pe) : shr_ptr(addr, pe);
}

static SHR_ALWAYS_INLINE void shr_rma_put(const char *fn, shr_ctx_t *ctx, void *dest,
                                          const void *src, size_t len, int pe, bool nbi)
{
    void *target = shr_rma_map(fn, dest, len, pe);

    if (SHR_LIKELY(target != NULL && (fn == NULL || src != NULL))) {
        shr_copy_once(target, src, len);
        return;
    }
    if (nbi) {
        shr_rma_put_nbi_slow(fn, ctx, dest, src, len, pe);
    } else {
        shr_rma_put_slow(fn, ctx, dest, src, len, pe);
    }
}

/* A blocking put of the first `len` (<= 8) bytes of `bits` (shmem_p): as
 * shr_rma_put, but the bytes go to the slow path as a value, so that no
 * caller's address escapes (shr_rma_g's twin). */
static SHR_ALWAYS_INLINE void shr_rma_p(const char *fn, shr_ctx_t *ctx, void *dest, uint64_t bits,
                                        size_t len, int pe)
{
    void *target = shr_rma_map(fn, dest, len, pe);

    if (SHR_LIKELY(target != NULL)) {
        shr_copy_once(target, &bits, len);
        return;
    }
    shr_rma_p_slow(fn, ctx, dest, bits, len, pe);
}

/* A program's get from segment s once src lies in its user part, `off`
 * bytes in: the length's end, the peer's copy, the copy.  False: the
 * caller takes the slow path. */
static SHR_ALWAYS_INLINE bool shr_rma_get_in(int s, uintptr_t off, void *dest, size_t len, int pe)
{
    const char *origin = shr_seg_user_at(s, off, len, pe);

    if (SHR_LIKELY(origin != NULL && dest != NULL)) {
        shr_copy_get(dest, origin, len);
        return true;
    }
    return false;
}

_Static_assert(SHR_SEG_COUNT == 2, "shr_rma_get tests the heap, then the data segment");

/* The slow path of shr_rma_get_to: `g`, into a local variable of up to 8
 * bytes (shmem_g) whose address then stays private to the caller: a
 * variable whose address a call takes lives on the stack, so the fast path
 * paid a store and a load to return it. */
static SHR_ALWAYS_INLINE void shr_rma_get_slow_to(const char *fn, shr_ctx_t *ctx, void *dest,
                                                  const void *src, size_t len, int pe, bool nbi,
                                                  bool g)
{
    if (g) {
        shr_rma_g_store(dest, shr_rma_g_slow(fn, ctx, src, len, pe), len);
        return;
    }
    shr_rma_get_slow(fn, ctx, dest, src, len, pe, nbi);
}

/* A program's get (fn set) runs shr_user_ptr's tests with a whole path per
 * segment, so that a get on a global does not come back from the data
 * segment's test to a copy shared with the heap (bench/README.md, --global;
 * src/api/CMakeLists.txt keeps GCC from folding the two copies into one).
 * `g`: shr_rma_g. */
static SHR_ALWAYS_INLINE void shr_rma_get_to(const char *fn, shr_ctx_t *ctx, void *dest,
                                             const void *src, size_t len, int pe, bool nbi,
                                             bool g)
{
    if (fn != NULL) {
        if (SHR_LIKELY((unsigned)pe < (unsigned)shr_g.n_pes)) {
            uintptr_t off = (uintptr_t)src - shr_g.seg[SHR_SEG_HEAP].base;

            if (SHR_LIKELY(off < shr_g.seg[SHR_SEG_HEAP].user_size)) {
                if (SHR_LIKELY(shr_rma_get_in(SHR_SEG_HEAP, off, dest, len, pe))) {
                    return;
                }
            } else {
                off = (uintptr_t)src - shr_g.seg[SHR_SEG_DATA].base;
                if (SHR_LIKELY(off < shr_g.seg[SHR_SEG_DATA].user_size) &&
                    SHR_LIKELY(shr_rma_get_in(SHR_SEG_DATA, off, dest, len, pe))) {
                    return;
                }
            }
        }
        shr_rma_get_slow_to(fn, ctx, dest, src, len, pe, nbi, g);
        return;
    }

    const void *origin = shr_ptr(src, pe);   /* the library's own get */

    if (SHR_LIKELY(origin != NULL)) {
        shr_copy_get(dest, origin, len);
        return;
    }
    shr_rma_get_slow_to(fn, ctx, dest, src, len, pe, nbi, g);
}

static SHR_ALWAYS_INLINE void shr_rma_get(const char *fn, shr_ctx_t *ctx, void *dest,
                                          const void *src, size_t len, int pe, bool nbi)
{
    shr_rma_get_to(fn, ctx, dest, src, len, pe, nbi, false);
}

/* A blocking get into `value`, a local variable of up to 8 bytes whose
 * address goes nowhere else (shmem_g). */
static SHR_ALWAYS_INLINE void shr_rma_g(const char *fn, shr_ctx_t *ctx, void *value,
                                        const void *src, size_t size, int pe)
{
    shr_rma_get_to(fn, ctx, value, src, size, pe, false, true);
}

/* Copies nblocks blocks of bsize elements of `elem` bytes; block i starts at
 * element i*dst of dest and i*sst of src (strides in elements).  iput is
 * bsize 1.  The loop is shared by puts and gets on mapped memory. */
static SHR_ALWAYS_INLINE void shr_rma_strided_copy(char *dest, const char *src, ptrdiff_t dst,
                                                   ptrdiff_t sst, size_t bsize, size_t nblocks,
                                                   size_t elem)
{
    for (size_t i = 0; i < nblocks; i++) {
        shr_copy_once(dest + (ptrdiff_t)i * dst * (ptrdiff_t)elem,
                      src + (ptrdiff_t)i * sst * (ptrdiff_t)elem, bsize * elem);
    }
}

/* Bytes from the first byte a strided transfer touches on one side (stride
 * in elements) to its last.  A negative stride walks down from the first
 * block: only that block is counted (SHMEM_DEBUG checks the strides). */
static SHR_ALWAYS_INLINE size_t shr_rma_strided_span(ptrdiff_t stride, size_t bsize,
                                                     size_t nblocks, size_t elem)
{
    if (nblocks == 0 || bsize == 0) {
        return 0;
    }
    return ((stride < 0 ? 0 : (nblocks - 1) * (size_t)stride) + bsize) * elem;
}

static SHR_ALWAYS_INLINE void shr_rma_iput(const char *fn, shr_ctx_t *ctx, void *dest,
                                           const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                           size_t bsize, size_t nblocks, size_t elem, int pe)
{
    char *target = shr_rma_map(fn, dest, shr_rma_strided_span(dst, bsize, nblocks, elem), pe);

    if (SHR_LIKELY(target != NULL && (fn == NULL || src != NULL))) {
        shr_rma_strided_copy(target, src, dst, sst, bsize, nblocks, elem);
        return;
    }
    shr_rma_iput_slow(fn, ctx, dest, src, dst, sst, bsize, nblocks, elem, pe);
}

static SHR_ALWAYS_INLINE void shr_rma_iget(const char *fn, shr_ctx_t *ctx, void *dest,
                                           const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                           size_t bsize, size_t nblocks, size_t elem, int pe)
{
    const char *origin = shr_rma_map(fn, src, shr_rma_strided_span(sst, bsize, nblocks, elem), pe);

    if (SHR_LIKELY(origin != NULL && (fn == NULL || dest != NULL))) {
        shr_rma_strided_copy(dest, origin, dst, sst, bsize, nblocks, elem);
        return;
    }
    shr_rma_iget_slow(fn, ctx, dest, src, dst, sst, bsize, nblocks, elem, pe);
}

/* fence and quiet for `ctx`; `pes` (may be NULL = all) limits quiet to those
 * world PEs.  Shared memory needs only CPU fences; remote transports flush.
 * core/rma.c. */
void shr_fence(shr_ctx_t *ctx);
void shr_quiet_pes(shr_ctx_t *ctx, const int *pes, size_t npes);
void shr_quiet(shr_ctx_t *ctx);
/* quiet ahead of a barrier: every barrier algorithm announces arrival with
 * a release store or RMW on mapped memory (remote arrivals go through the
 * transport after this quiet), which already orders every earlier store of
 * this PE before it, so shared memory needs no full fence here (an mfence
 * is a third of a 2-PE barrier). */
void shr_quiet_before_arrival(shr_ctx_t *ctx);

#endif
