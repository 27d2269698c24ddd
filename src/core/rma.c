/*
 * rma.c -- the out-of-line half of RMA and AMO: zero-length transfers,
 * invalid addresses (diagnosed here even with checks off, since this path
 * costs the fast path nothing), and remote peers.
 */
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/amo_inline.h"
#include "core/check.h"
#include "core/env.h"
#include "core/remote.h"
#include "core/remote_inline.h"
#include "core/rma_inline.h"
#include "core/share.h"

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

/* The longest copy shr_copy_window gives the vector loop (0: none), the
 * shortest it gives one rep movsb (SIZE_MAX: none), and the range around
 * the L2 size it gives rep movsb in pieces (empty: none). */
static size_t copy_wide_max;
static size_t copy_movsb_min = SIZE_MAX;
static size_t copy_pieces_min = SIZE_MAX, copy_pieces_max;

#if defined(__x86_64__)
/* rep movsb over len (>= 64) bytes, the destination first brought to
 * a 64-byte boundary by one unaligned move.  glibc 2.36 uses rep movsb
 * below the L2 size (1 MiB here) and a loop of vector moves from there,
 * which on AMD EPYC (Zen 5) is slower (build/bench/memcpy_bw -x put -m
 * 1M,2M,4M,16M -T memcpy|pieces|movsb, best of 3 launches, load average
 * 11-24, GB/s glibc's one call/64 KiB pieces/one rep movsb: 1 MiB
 * 60/72/71, 2 MiB 58/66/67, 4 MiB 63/67/68, 16 MiB 7/11/13, the last
 * from memory, shared with the load); one rep movsb beats the pieces too:
 * interleaved launches, flood medians, get 2 MiB 61.1 -> 63.6 GB/s, 4 MiB
 * 61.0 -> 62.6, put 2 MiB 60.2 -> 60.8, 4 MiB 59.8 -> 60.9 (the command:
 * bench/notes/vs-mpi.md, "Floods of 128 KiB-4 MiB"); limits/memcpy_bw
 * measures the same copy.
 *
 * In pieces of `piece` bytes (the last one shorter) for a copy of about
 * the L2's size (copy_pieces_min..max: 15/16 to 9/8 of a 1 MiB L2): there
 * one rep movsb is slower than 128 KiB pieces, and beyond it faster.  AMD
 * EPYC (Zen 5, 1 MiB L2), a loop outside the repo timing both in turn, 15
 * trials each, median GB/s one/pieces: 896 KiB 71.2/71.3, 960 KiB
 * 68.3/69.1, 1 MiB 66.7/69.5, 1088 KiB 64.5/66.7, 1152 KiB 61.7/64.1,
 * 1280 KiB 63.2/61.7, 2 MiB 61.0/58.6; in the library: bench/notes/vs-mpi.md,
 * "Floods of 32 KiB-4 MiB".  piece >= len: one rep movsb. */
__attribute__((target("avx512f"))) static void shr_copy_movsb(char *d, const char *s, size_t len,
                                                             size_t piece)
{
    size_t skip = -(uintptr_t)d & 63;

    _mm512_storeu_si512(d, _mm512_loadu_si512(s));
    d += skip;
    s += skip;
    len -= skip;
    while (len != 0) {
        size_t n = len < piece ? len : piece;

        len -= n;
        __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
    }
}
#endif

#if defined(__x86_64__)
_Static_assert(SHR_COPY_SKEW_MIN_LEN >= 128, "shr_copy_wide's shortest copy");

/* Copies len (>= 128) bytes with 64-byte moves: the first and last 64
 * unaligned, in between the destination's aligned blocks (a block stored
 * across two cache lines costs two stores), four a turn, each turn's four
 * loads before its four stores.  Issuing the next turn's loads before this
 * turn's stores (as shr_copy_skewed does) cost a copy + full fence 0.4-0.6
 * ns at 1-4 KiB and gained no 4 KiB flood at a skew of 0, 8, 24 or 40
 * bytes (bench/notes/vs-mpi.md, "Blocking latency, one node").  Bytes the
 * first or last move share with the blocks are stored twice; the last move
 * is the last store.  Measured on AMD EPYC (Zen 5) by memcpy_bw's 64-byte
 * loop (the same moves) against glibc 2.36's memcpy (rep movsb from 2113
 * bytes): build/bench/memcpy_bw -x put -m 2304,4k,16k,24k,32k -T
 * vec64|memcpy [--skew 8|264], best of 3 launches, ns per copy; in the
 * library, compare
 * SHIMMER_SHM_COPY=memcpy|avx512 bench/run --only get_lat.  (dest - src)
 * mod 4 KiB 0: 2304 B 8.8/17.0, 4 KiB 15.3/28.5, 16 KiB 60/99, 24 KiB 93/147,
 * but 32 KiB 304/195 (source and destination no longer fit in the 48 KiB
 * L1); skew 8: 4 KiB 25/38, skew 264: 24/30. */
__attribute__((target("avx512f"))) static void shr_copy_wide(char *d, const char *s, size_t len)
{
    __m512i first = _mm512_loadu_si512(s);
    __m512i last = _mm512_loadu_si512(s + len - 64);
    size_t skip = 64 - ((uintptr_t)d & 63);
    char *dd = d + skip;
    char *end = d + len - 64;            /* where the last move starts */
    const char *ss = s + skip;

    _mm512_storeu_si512(d, first);
    for (; dd + 256 <= end; dd += 256, ss += 256) {
        __m512i a = _mm512_loadu_si512(ss), b = _mm512_loadu_si512(ss + 64);
        __m512i c = _mm512_loadu_si512(ss + 128), e = _mm512_loadu_si512(ss + 192);

        _mm512_store_si512(dd, a);
        _mm512_store_si512(dd + 64, b);
        _mm512_store_si512(dd + 128, c);
        _mm512_store_si512(dd + 192, e);
    }
    for (; dd < end; dd += 64, ss += 64) {
        _mm512_store_si512(dd, _mm512_loadu_si512(ss));
    }
    shr_fence_stores(); /* the last move last: the compiler may reorder stores */
    _mm512_storeu_si512(end, last);
}
#endif

void shr_copy_alone(void *dest, const void *src, size_t len)
{
#if defined(__x86_64__)
    if (len <= copy_wide_max) {
        shr_copy_wide(dest, src, len);
        return;
    }
#endif
    if (shr_copy_has_skew(dest, src)) {
        /* rep movsb would crawl on every load */
        if (shr_copy_is_in_window(len)) {
            shr_copy_skewed(dest, src, len);
            return;
        }
    }
#if defined(__x86_64__)
    else if (len >= copy_pieces_min && len <= copy_pieces_max) {
        shr_copy_movsb(dest, src, len, (size_t)128 << 10);
        return;
    } else if (len >= copy_movsb_min) {
        shr_copy_movsb(dest, src, len, len);
        return;
    }
#endif
    shr_memcpy_call(dest, src, len);
}

void shr_copy_window(void *dest, const void *src, size_t len)
{
    if (len >= shr_share_min && shr_share_copy(dest, src, len)) {
        return;
    }
    shr_copy_alone(dest, src, len);
}
SHR_PLUGIN_EXPORT(copy_window);

/* shr_copy_once above 32 bytes, on any CPU: the head, the interior
 * through memcpy (or shr_copy_window), the tail. */
static SHR_NOINLINE void shr_copy_once_call(void *dest, const void *src, size_t len)
{
    char *d = (char *)dest;
    const char *s = (const char *)src;

    if (len > 64) { /* at 33-64 B the wait costs more than it saves */
        s = shr_copy_src_after(s, d);
    }
    shr_move_once(d, s, 8);
    if (SHR_UNLIKELY(shr_copy_is_long(len - 16))) {
        shr_copy_window(d + 8, s + 8, len - 16);
    } else {
        shr_memcpy_call(d + 8, s + 8, len - 16);
    }
#if defined(__x86_64__)
    shr_fence_stores(); /* shr_copy_window may be inlined: its stores stay before */
#endif
    shr_move_once(d + len - 8, s + len - 8, 8);
}

#if defined(__x86_64__)
typedef char shr_v32_once_t __attribute__((vector_size(32), may_alias, aligned(1)));
typedef char shr_v64_once_t __attribute__((vector_size(64), may_alias, aligned(1)));

/* The head, the interior through shr_copy_wide (len > 144), the tail. */
__attribute__((target("avx512f"), noinline)) static void shr_copy_once_wide(char *d, const char *s,
                                                                          size_t len)
{
    shr_move_once(d, s, 8);
    shr_copy_wide(d + 8, s + 8, len - 16);
    shr_fence_stores();
    shr_move_once(d + len - 8, s + len - 8, 8);
}

/* Copies len (a multiple of 64) bytes to a 64-byte aligned d, whole
 * lines: len / 64 mod 4 lines one a turn, then four a turn, each turn's
 * loads before its stores.  Each byte is stored once and the last line
 * last (the compiler barrier keeps it after the turn's other stores), so
 * the first and last 8 bytes are each stored once, the last ones last.
 * The loads do not wait for d (shr_copy_src_after): waiting cost the 2 KiB
 * flood 18 % (bench/notes/vs-mpi.md, "Blocking latency, one node"). */
__attribute__((target("avx512f"))) static SHR_ALWAYS_INLINE void shr_copy_lines(char *d,
                                                                             const char *s,
                                                                             size_t len)
{
    char *end = d + len;

    for (size_t ones = (len / 64) % 4; ones != 0; ones--, d += 64, s += 64) {
        _mm512_store_si512(d, _mm512_loadu_si512(s));
    }
    for (; d < end; d += 256, s += 256) {
        __m512i a = _mm512_loadu_si512(s), b = _mm512_loadu_si512(s + 64);
        __m512i c = _mm512_loadu_si512(s + 128), e = _mm512_loadu_si512(s + 192);

        _mm512_store_si512(d, a);
        _mm512_store_si512(d + 64, b);
        _mm512_store_si512(d + 128, c);
        shr_fence_stores();
        _mm512_store_si512(d + 192, e);
    }
}

/* shr_copy_once from 33 bytes to copy_wide_max on a CPU with 64-byte moves
 * (shr_copy_select), for the lengths shr_copy_once does not copy inline
 * (shr_copy_ends_asm: 40-64, 72-128, 136-256, 264-512 B), each shape
 * storing the first and the last 8 bytes once, the last ones last:
 *   a put of whole lines (destination and length multiples of 64, as heap
 *     buffers and most large puts are): shr_copy_lines, tested first, six
 *     instructions, since a put + quiet waits for each one before the
 *     copy's stores;
 *   520 B-2 KiB, where neither end's 8 bytes cross a cache line (an 8-byte
 *     aligned put): the first and last 64 bytes, the destination's lines
 *     between them whole, one a turn; from 2 KiB shr_copy_wide;
 *   else the head's and the tail's 8 bytes around two moves of 16, 32 or
 *     64 bytes, or shr_copy_wide above 144 B.
 * Over 512 B first: the rest are the few lengths between the inline
 * shapes.  No call, nothing pushed: a put + quiet waits for every store,
 * the stack's too, and for every instruction between the fence and the
 * copy (bench/notes/vs-mpi.md, "Blocking latency, one node").  Aligned: where
 * the linker left it 48 bytes into a line the 64 B put flood ran 10 %
 * slower. */
__attribute__((target("avx512f"), aligned(64))) static void
shr_copy_once_vec(void *dest, const void *src, size_t len)
{
    char *d = (char *)dest;
    const char *s = (const char *)src;

    if (SHR_LIKELY(((uintptr_t)d | len) % 64 == 0 && len <= copy_wide_max)) {
        shr_copy_lines(d, s, len);
        return;
    }
    uintptr_t first = (uintptr_t)d, last = (uintptr_t)d + len - 8;
    size_t n = len - 16;

    if (len > 64) {
        s = shr_copy_src_after(s, d);
    }
    if (len > 512) {
        if (SHR_UNLIKELY(len > copy_wide_max)) { /* half the L1 */
            shr_copy_once_call(d, s, len);
            return;
        }
        /* neither end's 8 bytes cross a cache line (each term is below
         * 71: the OR reaches 64 only if one of them does) */
        if ((((first & 63) + 7) | ((last & 63) + 7)) >= 64) {
            shr_copy_once_wide(d, s, len);
            return;
        }
        if (len >= SHR_COPY_SKEW_MIN_LEN) {
            shr_copy_wide(d, s, len);
            return;
        }
        shr_v64_once_t head = *(const shr_v64_once_t *)s;
        shr_v64_once_t tail = *(const shr_v64_once_t *)(s + len - 64);
        size_t skip = 64 - (first & 63);
        char *dd = d + skip, *end = d + len - 64;
        const char *ss = s + skip;

        *(shr_v64_once_t *)d = head;
        for (; dd < end; dd += 64, ss += 64) {
            _mm512_store_si512(dd, _mm512_loadu_si512(ss));
        }
        shr_fence_stores();
        *(shr_v64_once_t *)end = tail;
        return;
    }
    if (n > 128) {
        shr_copy_once_wide(d, s, len);
        return;
    }
    shr_move_once(d, s, 8);
    if (n <= 32) {
        shr_v16_once_t a = *(const shr_v16_once_t *)(s + 8);
        shr_v16_once_t b = *(const shr_v16_once_t *)(s + 8 + n - 16);

        *(shr_v16_once_t *)(d + 8) = a;
        *(shr_v16_once_t *)(d + 8 + n - 16) = b;
    } else if (n <= 64) {
        shr_v32_once_t a = *(const shr_v32_once_t *)(s + 8);
        shr_v32_once_t b = *(const shr_v32_once_t *)(s + 8 + n - 32);

        *(shr_v32_once_t *)(d + 8) = a;
        *(shr_v32_once_t *)(d + 8 + n - 32) = b;
    } else {
        shr_v64_once_t a = *(const shr_v64_once_t *)(s + 8);
        shr_v64_once_t b = *(const shr_v64_once_t *)(s + 8 + n - 64);

        *(shr_v64_once_t *)(d + 8) = a;
        *(shr_v64_once_t *)(d + 8 + n - 64) = b;
    }
    shr_fence_stores();
    shr_move_once(d + len - 8, s + len - 8, 8);
}
#endif

shr_copy_fn_t *shr_copy_once_long = shr_copy_once_call;
SHR_PLUGIN_EXPORT(copy_once_long);
size_t shr_copy_inline_max;
SHR_PLUGIN_EXPORT(copy_inline_max);

/* auto: AMD CPUs with AVX-512 (Zen 4 and later), the only ones measured,
 * where memcpy's rep movsb is the slow part; Intel's rep movsb is its fast
 * path, and some of its CPUs lower their clock for 64-byte moves. */
size_t shr_copy_select(int mode)
{
    copy_wide_max = 0;
    copy_movsb_min = SIZE_MAX;
    copy_pieces_min = SIZE_MAX;
    copy_pieces_max = 0;
    shr_copy_once_long = shr_copy_once_call;
    shr_copy_inline_max = 0;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (mode == SHR_SHM_COPY_MEMCPY || !__builtin_cpu_supports("avx512f") ||
        (mode == SHR_SHM_COPY_AUTO && !__builtin_cpu_is("amd"))) {
        return 0;
    }
    long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);

    copy_wide_max = (l1 > 0 ? (size_t)l1 : (size_t)32 << 10) / 2;
    copy_movsb_min = SHR_COPY_SKEW_END_LEN;
    if (l2 == (1 << 20)) { /* the one L2 size measured (Zen 5) */
        copy_pieces_min = (size_t)l2 - (size_t)l2 / 16;
        copy_pieces_max = (size_t)l2 + (size_t)l2 / 8;
    }
    shr_copy_once_long = shr_copy_once_vec;
    shr_copy_inline_max = 512;
#else
    (void)mode;
#endif
    return copy_wide_max;
}

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

/* A remote transfer's checks: a program's (`fn` set) that the inline
 * test passes needs nothing more; otherwise the always-on checks' cold
 * half (the fast path sends a PE or length it would not take here too),
 * then the symmetric end's segment.  False when there is nothing to move
 * (len 0). */
static SHR_ALWAYS_INLINE bool remote_transfer_is_due(const char *fn, const char *remote_name,
                                                     const void *remote, size_t len,
                                                     const char *local_name, const void *local,
                                                     int pe)
{
    if (fn != NULL && shr_rma_remote_is_valid(remote, len, local, pe)) {
        return true;
    }
    if (fn != NULL) {
        shr_check_user_transfer(fn, remote_name, remote, len, local_name, local, pe);
    }
    if (len == 0) {
        return false;
    }
    shr_rma_require_symmetric(fn, remote_name, remote, len);
    return true;
}

void shr_remote_win_put_end(shr_remote_wins_t *ws, unsigned char *p, int seg, uint64_t off,
                            const void *src, size_t len)
{
    (void)shr_remote_rec_put(p, seg, off, src, len);
    __atomic_store_n(&ws->busy, 0, __ATOMIC_RELEASE);
}

/* shr_rma_put_slow past the window: the checks' cold half, then the
 * transport's table. */
static SHR_COLD SHR_NOINLINE void put_remote(const char *fn, shr_ctx_t *ctx, void *dest,
                                             const void *src, size_t len, int pe, bool nbi)
{
    if (!remote_transfer_is_due(fn, "dest", dest, len, "source", src, pe)) {
        return;
    }
    if (shr_rma_coalesces(fn) && shr_remote->coalesce_put(ctx, dest, src, len, pe, &ctx->cmpl)) {
        return;
    }
    shr_remote->put(ctx, dest, src, len, pe, nbi ? &ctx->cmpl : NULL);
}

/* A program's put that passes the checks and fits the window the
 * transport lends for pe is a record appended here: no table call, no
 * lock (the rest is a tail call). */
static SHR_NOINLINE void put_window(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                                    size_t len, int pe, bool nbi)
{
    uint64_t off;
    int seg;

    if (shr_rma_coalesces(fn) && (seg = shr_rma_remote_seg(dest, len, src, pe, &off)) >= 0 &&
        shr_remote_win_put(ctx, seg, off, src, len, pe, &ctx->cmpl)) {
        return;
    }
    put_remote(fn, ctx, dest, src, len, pe, nbi);
}

/* Two tail calls: a context without windows (one shared between threads)
 * pays a test for them. */
static SHR_ALWAYS_INLINE void put_slow(const char *fn, shr_ctx_t *ctx, void *dest,
                                       const void *src, size_t len, int pe, bool nbi)
{
    if (ctx->remote_wins != NULL) {
        put_window(fn, ctx, dest, src, len, pe, nbi);
    } else {
        put_remote(fn, ctx, dest, src, len, pe, nbi);
    }
}

void shr_rma_put_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                      int pe)
{
    put_slow(fn, ctx, dest, src, len, pe, false);
}

void shr_rma_put_nbi_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                          size_t len, int pe)
{
    put_slow(fn, ctx, dest, src, len, pe, true);
}

void shr_rma_p_slow(const char *fn, shr_ctx_t *ctx, void *dest, uint64_t bits, size_t len, int pe)
{
    put_slow(fn, ctx, dest, &bits, len, pe, false);
}

void shr_rma_get_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                      int pe, bool nbi)
{
    if (!remote_transfer_is_due(fn, "source", src, len, "dest", dest, pe)) {
        return;
    }
    if (shr_rma_coalesces(fn)) {
        /* a record whose data the buffer's reply brings; a blocking one
         * sends the buffer at once (one round trip, with the puts before) */
        shr_cmpl_t own = {0};
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

uint64_t shr_rma_g_slow(const char *fn, shr_ctx_t *ctx, const void *src, size_t len, int pe)
{
    uint64_t bits = 0;

    shr_rma_get_slow(fn, ctx, &bits, src, len, pe, false);
    return bits;
}

/* Strided transfers to a remote PE: every block in flight at once, counted
 * in one completion object, then waited for (blocking: the source is
 * reusable, or the data in dest, on return). */
void shr_rma_iput_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                       ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, size_t elem,
                       int pe)
{
    shr_cmpl_t blocks = {0};
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
    shr_cmpl_t blocks = {0};
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
    /* The test before the fence, where it runs while the stores drain: a
     * put + quiet loop waits for each instruction after the fence before
     * the next put's stores (bench/notes/vs-mpi.md,
     * "Blocking latency, one node"). */
    if (SHR_UNLIKELY(shr_g.has_remote)) {
        shr_fence_full();
        shr_remote->quiet(ctx, NULL, 0);
        return;
    }
    shr_fence_full();
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
