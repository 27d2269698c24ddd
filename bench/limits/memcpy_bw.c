/*
 * memcpy_bw - machine limit: the copy, in the access pattern of the put and
 * get benchmarks it bounds: the fastest of glibc's memcpy,
 * for 1, 2, 4, 8, 16 and 32 bytes one or two moves (as Shimmer's inline
 * copy up to 32 bytes is), on a CPU
 * with AVX-512 a loop of 64-byte moves (which copies 4 KiB on
 * AMD Zen 5 in half the time of glibc 2.36's rep movsb, and which an
 * implementation may use: Shimmer does, SHIMMER_SHM_COPY), and above 64
 * KiB memcpy in 64 KiB pieces (1 MiB there: 72 GB/s against memcpy's 60;
 * an implementation's copy may split, or start a few bytes in, and get
 * the same) and on x86 one rep movsb from a 64-byte aligned destination
 * (which glibc 2.36 gives up from 1 MiB on; Shimmer copies so there).
 * Two processes share the buffers (MAP_SHARED, as two PEs on a node share
 * their heaps); side 1, the "target", writes its buffer before each point,
 * the same two buffers every time within a trial:
 *   op=put  side 0's source into side 1's destination (put_bw, put_lat);
 *   op=get  side 1's source into side 0's destination (get_bw, get_lat).
 * A target PE waits in a barrier, where it may nap (leaving the copier the
 * whole machine) or copy part of the data itself (Shimmer's shared copies,
 * SHIMMER_COPY_SHARE): the best case, which a limit is, is the faster of
 * one core copying alone (every column below but cores_MBps) and
 * cores_MBps: both sides copying, side 0 the front part of every copy and
 * side 1 the back (split at the destination's 64-byte boundary nearest the
 * middle), free running: they meet only before and after the timed loop.
 * With one CPU allowed there is no second core: cores_MBps is then
 * bandwidth_MBps.
 * bandwidth_MBps: put_bw's iterations and warm-up, MB = 1e6 bytes, one core;
 * cores_MBps: the same, every side copying its part (above);
 * latency_us: the time of one copy, back to back, with put_lat's;
 * fenced_us: one copy then a full fence (the stores visible before any
 *   later load), back to back: what a put completed by quiet costs at
 *   least, on a machine whose stores may pass later loads (x86 included);
 * called_us: the same copy and fence, each behind a call as a program makes
 *   to a shared library (below): what a put completed by quiet costs at
 *   least in any library a program calls, putmem then quiet.
 * Each figure is the best of 6 timed trials, each on buffers of its own
 * (pages placed anew, as a new launch's are): a limit is the best case.  The
 * trials alternate between the two processes pinned to different CPUs and
 * left to the scheduler (-t 0: never pinned): on a busy machine a pinned
 * copier cannot leave a CPU another program holds, while the PEs it bounds
 * are not pinned (at load average 9, 128 KiB copies came out at 12-28 GB/s
 * pinned in every repetition while put_bw reached 39).  The bandwidth and
 * latency loops are the same back-to-back copy of the same buffers, so each
 * figure takes the faster per-copy time of the two.
 * -T KIND times one kind of copy instead of the fastest: memcpy (glibc's,
 * one call), word (one or two moves, sizes 1-32 that are powers of two),
 * vec64 (the 64-byte loop, from 64 B, AVX-512), pieces (memcpy in 64 KiB
 * pieces, above 64 KiB) or movsb (one rep movsb, above 64 KiB, x86); a
 * size the kind does not apply to gets a note instead of a row.  With
 * --skew BYTES the destination starts BYTES past the source's 4 KiB
 * alignment (as put_bw's).  Both compare copies, as bench/notes/vs-mpi.md and
 * src/core/rma.c do; neither is a limit.
 * The buffers are on huge pages when the kernel's pool has room (as a
 * Shimmer heap is, SHIMMER_HUGEPAGES=auto), else on normal pages.
 * Built with plain cc.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

enum { TRIALS = 6 };

typedef struct shared {
    _Alignas(128) volatile int ready;     /* side 1 wrote its buffer */
    _Alignas(128) int met;                /* arrivals at the sides' meetings (both_copies) */
    _Alignas(128) double start[2], end[2];   /* each side's timed loop, both copying */
    double bw_us, lat_us, fenced_us, called_us, cores_us;   /* this trial's loops */
    bool ok;
} shared_t;

typedef struct arg {
    bool put;
    size_t size;
    long bw_iters, lat_iters, bw_warm, lat_warm;
    char *mine, *theirs;                  /* side 0's and side 1's buffer */
    unsigned seed;
    int only;                             /* -T: one kind of copy (COPY_*), or -1 */
    bool cores;                           /* a second CPU: both sides copy (cores_us) */
} arg_t;

#if defined(__x86_64__)
/* size (>= 64) bytes in 64-byte moves: the first and last unaligned, the
 * blocks between them at the destination's 64-byte boundaries, four a turn. */
__attribute__((target("avx512f"))) static void copy_vec64(char *dst, const char *src, size_t size)
{
    __m512i tail = _mm512_loadu_si512(src + size - 64);
    size_t i = 64 - ((uintptr_t)dst & 63);

    _mm512_storeu_si512(dst, _mm512_loadu_si512(src));
    for (; i + 256 <= size - 64; i += 256) {
        __m512i v0 = _mm512_loadu_si512(src + i), v1 = _mm512_loadu_si512(src + i + 64);
        __m512i v2 = _mm512_loadu_si512(src + i + 128), v3 = _mm512_loadu_si512(src + i + 192);
        _mm512_store_si512(dst + i, v0);
        _mm512_store_si512(dst + i + 64, v1);
        _mm512_store_si512(dst + i + 128, v2);
        _mm512_store_si512(dst + i + 192, v3);
    }
    for (; i < size - 64; i += 64)
        _mm512_store_si512(dst + i, _mm512_loadu_si512(src + i));
    _mm512_storeu_si512(dst + size - 64, tail);
}

static bool has_vec64(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

/* size (>= 64) bytes: one unaligned 64-byte move, then one rep movsb from
 * the destination's next 64-byte boundary. */
static void copy_movsb(char *dst, const char *src, size_t size)
{
    size_t skip = -(uintptr_t)dst & 63;

    memcpy(dst, src, 64);
    dst += skip;
    src += skip;
    size -= skip;
    __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(size) : : "memory");
}

static bool has_movsb(void)
{
    return true;
}
#else
static void copy_vec64(char *dst, const char *src, size_t size)
{
    memcpy(dst, src, size);
}

static bool has_vec64(void)
{
    return false;
}

static void copy_movsb(char *dst, const char *src, size_t size)
{
    memcpy(dst, src, size);
}

static bool has_movsb(void)
{
    return false;
}
#endif

enum { COPY_MEMCPY, COPY_WORD, COPY_VEC64, COPY_PIECES, COPY_MOVSB, COPY_KINDS };
enum { PIECE = 64 << 10 };
static const char *const copy_names[COPY_KINDS] = {"memcpy", "word", "vec64", "pieces", "movsb"};

/* Whether a copy of kind `how` applies to `size` bytes on this CPU. */
static bool copy_applies(int how, size_t size)
{
    switch (how) {
    case COPY_WORD: return size != 0 && size <= 32 && (size & (size - 1)) == 0;
    case COPY_VEC64: return size >= 64 && has_vec64();
    case COPY_MOVSB: return size > PIECE && has_movsb();
    case COPY_PIECES: return size > PIECE;
    default: return true;
    }
}

/* One copy of kind `how` (COPY_*); with `fence`, completed: a full fence
 * after it. */
static inline void copy_once(char *dst, const char *src, size_t size, int how, bool fence)
{
    if (how == COPY_WORD) {   /* one or two moves, as a put or get of <= 32 B may be */
        switch (size) {
        case 32: __builtin_memcpy(dst, src, 32); break;
        case 16: __builtin_memcpy(dst, src, 16); break;
        case 8: __builtin_memcpy(dst, src, 8); break;
        case 4: __builtin_memcpy(dst, src, 4); break;
        case 2: __builtin_memcpy(dst, src, 2); break;
        default: __builtin_memcpy(dst, src, 1); break;
        }
    } else if (how == COPY_VEC64) {
        copy_vec64(dst, src, size);
    } else if (how == COPY_MOVSB) {
        copy_movsb(dst, src, size);
    } else if (how == COPY_PIECES) {
        for (size_t off = 0; off < size; off += PIECE)
            memcpy(dst + off, src + off, size - off < PIECE ? size - off : PIECE);
    } else {
        memcpy(dst, src, size);
    }
    if (fence)
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __asm__ volatile("" ::: "memory");   /* keep every copy */
}

/* `iters` copies back to back after `warm` untimed ones; microseconds. */
static inline __attribute__((always_inline)) double copies(char *dst, const char *src, size_t size,
                                                           long iters, long warm, int how, bool fence)
{
    for (long i = 0; i < warm; i++)
        copy_once(dst, src, size, how, fence);
    double t0 = bench_now_us();
    for (long i = 0; i < iters; i++)
        copy_once(dst, src, size, how, fence);
    return bench_now_us() - t0;
}

/* The word kind's loop for each size it applies to, the size a constant
 * in each (gcc -O2 does not take the size's switch out of the loop). */
static inline __attribute__((always_inline)) double word_copies(char *dst, const char *src,
                                                                size_t size, long iters, long warm,
                                                                bool fence)
{
    switch (size) {
    case 32: return copies(dst, src, 32, iters, warm, COPY_WORD, fence);
    case 16: return copies(dst, src, 16, iters, warm, COPY_WORD, fence);
    case 8: return copies(dst, src, 8, iters, warm, COPY_WORD, fence);
    case 4: return copies(dst, src, 4, iters, warm, COPY_WORD, fence);
    case 2: return copies(dst, src, 2, iters, warm, COPY_WORD, fence);
    default: return copies(dst, src, 1, iters, warm, COPY_WORD, fence);
    }
}

/* One timed loop per kind of copy and fence, each a function of its own on
 * a 64-byte boundary, its kind and fence constants: the same instructions
 * and placement at any optimisation level and wherever the linker puts the
 * rest (an 8-byte copy read 8.5 against 11.3 GB/s 48 bytes past a
 * boundary, the same instructions; a loop testing its kind and fence every
 * turn, as gcc -O2 left it, read 5.2 against 5.0 ns fenced). */
typedef double copies_fn_t(char *dst, const char *src, size_t size, long iters, long warm);
#define COPIES_FN(name, ...)                                                                       \
    __attribute__((noinline, aligned(64))) static double name(char *dst, const char *src,        \
                                                              size_t size, long iters, long warm) \
    {                                                                                              \
        return __VA_ARGS__;                                                                        \
    }
COPIES_FN(copies_memcpy, copies(dst, src, size, iters, warm, COPY_MEMCPY, false))
COPIES_FN(copies_word, word_copies(dst, src, size, iters, warm, false))
COPIES_FN(copies_vec64, copies(dst, src, size, iters, warm, COPY_VEC64, false))
COPIES_FN(copies_pieces, copies(dst, src, size, iters, warm, COPY_PIECES, false))
COPIES_FN(copies_movsb, copies(dst, src, size, iters, warm, COPY_MOVSB, false))
COPIES_FN(fenced_memcpy, copies(dst, src, size, iters, warm, COPY_MEMCPY, true))
COPIES_FN(fenced_word, word_copies(dst, src, size, iters, warm, true))
COPIES_FN(fenced_vec64, copies(dst, src, size, iters, warm, COPY_VEC64, true))
COPIES_FN(fenced_pieces, copies(dst, src, size, iters, warm, COPY_PIECES, true))
COPIES_FN(fenced_movsb, copies(dst, src, size, iters, warm, COPY_MOVSB, true))
#undef COPIES_FN

static copies_fn_t *const copies_of[2][COPY_KINDS] = {
    {copies_memcpy, copies_word, copies_vec64, copies_pieces, copies_movsb},
    {fenced_memcpy, fenced_word, fenced_vec64, fenced_pieces, fenced_movsb},
};

/* called_us: a program reaches a shared library's routine by `call f@plt`,
 * whose stub jumps through the GOT (`jmp *GOT(%rip)`), and a put completed
 * by quiet is two such calls.  Here the copy and the fence are each reached
 * by a call to a stub that jumps through a pointer, which gcc compiles to
 * that shape (`call copy_stub`; `copy_stub: jmp *called_copy_ptr(%rip)`).
 * The pointers are external and set at run time, so no compiler can know
 * where they point (devirtualise); the copies and the fence are reached only
 * through them, so none is inlined.  The fence is a function of its own, as
 * quiet is: its `lock or (%rsp)` lands on the line the call just pushed. */
void (*called_copy_ptr)(char *dst, const char *src, size_t size);
void (*called_fence_ptr)(void);

__attribute__((noinline)) static void copy_stub(char *dst, const char *src, size_t size)
{
    called_copy_ptr(dst, src, size);
}

__attribute__((noinline)) static void fence_stub(void)
{
    called_fence_ptr();
}

/* The copy as the body of a library's routine, one function per kind
 * (COPY_*): the vector loop and rep movsb are functions of their own. */
__attribute__((noinline)) static void called_memcpy(char *dst, const char *src, size_t size)
{
    memcpy(dst, src, size);
}

__attribute__((noinline)) static void called_word(char *dst, const char *src, size_t size)
{
    copy_once(dst, src, size, COPY_WORD, false);
}

__attribute__((noinline)) static void called_pieces(char *dst, const char *src, size_t size)
{
    copy_once(dst, src, size, COPY_PIECES, false);
}

static void (*const called_kinds[COPY_KINDS])(char *, const char *, size_t) = {
    called_memcpy, called_word, copy_vec64, called_pieces, copy_movsb};

__attribute__((noinline)) static void called_fence(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* As copies with a fence, each copy and each fence behind its call (a
 * function of its own, to be found in the disassembly; aligned as the
 * copies_* loops). */
__attribute__((noinline, aligned(64))) static double called_copies(char *dst, const char *src,
                                                                   size_t size, long iters,
                                                                   long warm, int how)
{
    called_copy_ptr = called_kinds[how];
    called_fence_ptr = called_fence;
    for (long i = 0; i < warm; i++) {
        copy_stub(dst, src, size);
        fence_stub();
    }
    double t0 = bench_now_us();
    for (long i = 0; i < iters; i++) {
        copy_stub(dst, src, size);
        fence_stub();
    }
    return bench_now_us() - t0;
}

/* Which loop times a kind of copy: back to back, each copy then a full
 * fence, or each copy and each fence behind its call (called_us). */
enum { LOOP_PLAIN, LOOP_FENCED, LOOP_CALLED };

/* `iters` copies of kind `how` (COPY_*) in loop `loop`; microseconds. */
static double time_kind(char *dst, const char *src, size_t size, long iters, long warm, int loop,
                        int how, unsigned seed, bool *ok)
{
    double t;

    memset(dst, 0, size); /* each loop's copy checked: one that wrote nothing fails */
    if (loop == LOOP_CALLED)
        t = called_copies(dst, src, size, iters, warm, how);
    else
        t = copies_of[loop == LOOP_FENCED][how](dst, src, size, iters, warm);
    *ok = *ok && bench_check(dst, size, seed);
    return t;
}

/* The fastest copy of the kinds this size and CPU allow (one or two moves
 * of 1, 2, 4, 8, 16 or 32 bytes, the vector loop from 64 bytes where the CPU has it,
 * pieces and one rep movsb above one piece), or of kind `only` (>= 0, -T),
 * in loop `loop`: `iters` copies; microseconds. */
static double best_copies(char *dst, const char *src, size_t size, long iters, long warm,
                          int loop, int only, unsigned seed, bool *ok)
{
    if (only >= 0)
        return time_kind(dst, src, size, iters, warm, loop, only, seed, ok);
    double t = time_kind(dst, src, size, iters, warm, loop, COPY_MEMCPY, seed, ok);
    for (int how = COPY_WORD; how < COPY_KINDS; how++) {
        if (!copy_applies(how, size))
            continue;
        double v = time_kind(dst, src, size, iters, warm, loop, how, seed, ok);
        if (v < t)
            t = v;
    }
    return t;
}

/* Whether a copy of kind `how` can copy a part of `size` bytes: as
 * copy_applies, but the loops of pieces and movsb (the fastest only above
 * PIECE) serve a smaller part too (movsb from 64 bytes). */
static bool part_copies(int how, size_t size)
{
    if (how == COPY_MOVSB)
        return size >= 64 && has_movsb();
    return how == COPY_PIECES || copy_applies(how, size);
}

/* Whether both sides copying time kind `how` with their parts cut at
 * `cut`: a kind the size allows (as best_copies) that can copy both parts;
 * with -T its kind where it can, else memcpy. */
static bool parts_kind(int how, const arg_t *arg, size_t cut)
{
    size_t size = arg->size;
    if (arg->only < 0)
        return copy_applies(how, size) && part_copies(how, cut) && part_copies(how, size - cut);
    bool fits = part_copies(arg->only, cut) && part_copies(arg->only, size - cut);
    return how == (fits ? arg->only : COPY_MEMCPY);
}

/* One side's arrival at the sides' `n`th meeting: back when both came. */
static void meet(shared_t *s, int n)
{
    __atomic_add_fetch(&s->met, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&s->met, __ATOMIC_ACQUIRE) < 2 * n)
        bench_cpu_pause();
}

/* Both sides copying (cores_MBps): for each kind parts_kind allows, each
 * side copies its part put_bw's iterations times, back to back after its
 * warm-up; the sides meet only before and after each loop.  Side 0 checks
 * the whole destination.  The fastest kind's microseconds, from the
 * earlier start to the later end. */
static double both_copies(shared_t *s, int side, char *dst, const char *src, const arg_t *arg,
                          bool *ok)
{
    size_t size = arg->size, cut = size / 2;
    size_t near = (size_t)((((uintptr_t)dst + cut + 32) & ~(uintptr_t)63) - (uintptr_t)dst);
    if (near > 0 && near < size)   /* no cache line written by both */
        cut = near;
    size_t off = side ? cut : 0, n = side ? size - cut : cut;
    double best = 0;
    int met = 0;

    for (int how = 0; how < COPY_KINDS; how++) {
        if (!parts_kind(how, arg, cut))
            continue;
        if (side == 0)
            memset(dst, 0, size);
        meet(s, ++met);
        copies_of[0][how](dst + off, src + off, n, arg->bw_warm, 0);
        meet(s, ++met);
        s->start[side] = bench_now_us();
        copies_of[0][how](dst + off, src + off, n, arg->bw_iters, 0);
        s->end[side] = bench_now_us();
        meet(s, ++met);
        double t = (s->end[0] > s->end[1] ? s->end[0] : s->end[1]) -
                   (s->start[0] < s->start[1] ? s->start[0] : s->start[1]);
        if (best == 0 || t < best)
            best = t;
        if (side == 0)
            *ok = *ok && bench_check(dst, size, arg->seed);
    }
    return best;
}

static void side_run(int side, void *p, void *a)
{
    shared_t *s = p;
    arg_t *arg = a;
    char *dst = arg->put ? arg->theirs : arg->mine;
    const char *src = arg->put ? arg->mine : arg->theirs;
    bool ok = true;

    if (side == 1) {
        /* the target touches its buffer, as a PE initialises its own heap */
        if (arg->put)
            memset(arg->theirs, 0, arg->size);
        else
            bench_fill(arg->theirs, arg->size, arg->seed);
        __atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
        if (arg->cores)
            both_copies(s, 1, dst, src, arg, &ok);
        return;                           /* its pages stay: the mapping is shared */
    }
    if (arg->put)
        bench_fill(arg->mine, arg->size, arg->seed);
    else
        memset(arg->mine, 0, arg->size);
    while (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE))
        bench_cpu_pause();
    /* both first: then side 1 is gone, and side 0 copies alone */
    if (arg->cores)
        s->cores_us = both_copies(s, 0, dst, src, arg, &ok);

    s->bw_us = best_copies(dst, src, arg->size, arg->bw_iters, arg->bw_warm, LOOP_PLAIN, arg->only,
                           arg->seed, &ok);
    s->lat_us = best_copies(dst, src, arg->size, arg->lat_iters, arg->lat_warm, LOOP_PLAIN,
                            arg->only, arg->seed, &ok);
    s->fenced_us = best_copies(dst, src, arg->size, arg->lat_iters, arg->lat_warm, LOOP_FENCED,
                               arg->only, arg->seed, &ok);
    s->called_us = best_copies(dst, src, arg->size, arg->lat_iters, arg->lat_warm, LOOP_CALLED,
                               arg->only, arg->seed, &ok);
    s->ok = ok;
}

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "memcpy_bw",
        .title = "machine limit: copy (memcpy or 64-byte moves) between two processes' shared buffers, "
                 "by size: one core, and the bandwidth with both processes copying",
        .columns = "op: size:B bandwidth_MBps:MB/s cores_MBps:MB/s latency_us:us fenced_us:us "
                   "called_us:us pinned: huge_pages: iterations: valid:",
        .min_size = 1, .max_size = (size_t)4 << 20,
        BENCH_SWEEP_BW,                  /* put_bw's and get_bw's */
        .ops = "put,get",
    };
    static const bench_info_t lat_sweep = {BENCH_SWEEP_LAT};   /* put_lat's and get_lat's */
    bench_t b;
    bench_init(&b, &info, argc, argv);
    bool pin = !(b.opt.nthreads == 1 && b.opt.threads[0] == 0);
    cpu_set_t allowed;                   /* both sides copy where there is a second CPU */
    bool cores = sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) >= 2;
    int only = -1;                       /* -T: the harness's default type means none */
    for (int how = 0; how < COPY_KINDS && strcmp(b.opt.type, "long"); how++)
        if (!strcmp(b.opt.type, copy_names[how]))
            only = how;
    if (strcmp(b.opt.type, "long") && only < 0)
        bench_die(&b, "-T %s: not a kind of copy; give memcpy, word, vec64, pieces or movsb",
                  b.opt.type);
    /* room for the destination's skew: each side's buffer is max bytes past it */
    size_t max = (b.opt.max_size + b.opt.skew + 4095) & ~(size_t)4095;
    shared_t *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    /* each trial its own two buffers: where they fill the L2 the physical
     * placement of their pages moves a copy by up to 20 % (get 512 KiB,
     * one placement per launch: 102-126 GB/s), and each launch of a
     * benchmark draws its own placement */
    size_t huge = (size_t)2 << 20, set = (2 * max + huge - 1) & ~(huge - 1);
    char *bufs = mmap(NULL, TRIALS * set, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    bool on_huge = bufs != MAP_FAILED;
    if (!on_huge) {
        set = 2 * max;
        bufs = mmap(NULL, TRIALS * set, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    }
    if (s == MAP_FAILED || bufs == MAP_FAILED)
        bench_die(&b, "mmap of %zu bytes failed", TRIALS * set);

    for (int put = 1; put >= 0; put--) {
        if (!bench_has_op(&b, put ? "put" : "get"))
            continue;
        BENCH_FOR_SIZES(&b, size) {
            if (!bench_point(&b, "op=%s size=%zu", put ? "put" : "get", size))
                continue;
            if (only >= 0 && !copy_applies(only, size)) {
                bench_note(&b, "-T %s does not apply at %zu bytes on this CPU", copy_names[only],
                           size);
                continue;
            }
            arg_t arg = {.put = put, .size = size, .seed = (unsigned)size, .only = only,
                         .cores = cores};
            arg.bw_iters = bench_iters(&b, size);
            arg.bw_warm = bench_warmup(&b, arg.bw_iters);
            arg.lat_iters = bench_iters_like(&b, size, &lat_sweep);
            arg.lat_warm = bench_warmup(&b, arg.lat_iters);
            bool pinned = false, ok = true;
            double copy_us = 0, cores_us = 0, fenced_us = 0, called_us = 0;   /* best per copy */
            for (int t = 0; t < TRIALS; t++) {
                bool this_pinned = false;
                memset((void *)s, 0, sizeof *s);
                arg.mine = bufs + (size_t)t * set;
                arg.theirs = arg.mine + max;
                if (put)                 /* --skew: the destination, past 4 KiB alignment */
                    arg.theirs += b.opt.skew;
                else
                    arg.mine += b.opt.skew;
                ok = ok && bench_fork_pair(s, side_run, &arg, pin && t % 2 == 0, &this_pinned) && s->ok;
                double c = s->bw_us / (double)arg.bw_iters, l = s->lat_us / (double)arg.lat_iters;
                if (l < c)
                    c = l;
                double f = s->fenced_us / (double)arg.lat_iters;
                if (t == 0 || c < copy_us) {
                    copy_us = c;
                    pinned = this_pinned;
                }
                if (t == 0 || f < fenced_us)
                    fenced_us = f;
                double w = s->cores_us / (double)arg.bw_iters;   /* one CPU: unused */
                if (t == 0 || w < cores_us)
                    cores_us = w;
                double k = s->called_us / (double)arg.lat_iters;
                if (t == 0 || k < called_us)
                    called_us = k;
            }
            bench_row_begin(&b);
            bench_col_str(&b, "op", put ? "put" : "get");
            bench_col_int(&b, "size", (long long)size);
            bench_col_num(&b, "bandwidth_MBps", (double)size / copy_us);
            bench_col_num(&b, "cores_MBps", (double)size / (cores ? cores_us : copy_us));
            bench_col_num(&b, "latency_us", copy_us);
            bench_col_num(&b, "fenced_us", fenced_us);
            bench_col_num(&b, "called_us", called_us);
            bench_col_bool(&b, "pinned", pinned);
            bench_col_bool(&b, "huge_pages", on_huge);
            bench_col_int(&b, "iterations", arg.bw_iters);
            bench_col_bool(&b, "valid", ok);
            bench_row_end(&b);
        }
    }
    return bench_fini(&b, NULL);
}
