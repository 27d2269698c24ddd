/* share.c -- shared copies (share.h; the protocol: docs/shared-copy.md). */
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "core/env.h"
#include "core/rma_inline.h"
#include "core/share.h"
#include "core/state.h"
#include "core/wait_inline.h"
#include "util/log.h"

/* A copy is cut into chunks of equal length, at most SHARE_CHUNK, that
 * end on the destination's cache lines (no line written by two cores).
 * 64 KiB: 32 and 16 KiB were slower (1 MiB put flood 195, 187, 145
 * GB/s), the caller's one compare-and-swap a chunk and the copy's start
 * costing more than the finer balance gains.  Equal: 160 KiB as 64 + 64 +
 * 32 left the helper the short chunk, and was slower shared than alone
 * where the cores are far.  Figures: docs/shared-copy.md, measured as its
 * "How it was measured" says. */
#define SHARE_CHUNK ((size_t)64 << 10)
#define SHARE_MAX_CHUNKS 0xffffu
/* A helper claims half of the free chunks at once, rounded up (the caller
 * is inside one more): one claim a helper rather than one a chunk, each
 * a cache line crossing between the cores (1 MiB put flood 179 -> 195
 * GB/s, docs/shared-copy.md).  At most this many (512 KiB, a few us), so that a helper is
 * back at its own wait soon: the wait tests its word between claims. */
#define SHARE_CLAIM_MAX 8u

/* claim: gen << 32 | front << 16 | back.  Chunks [front, back) are free;
 * the caller takes the front one, helpers the back one, each by a
 * compare-and-swap of the whole word, so that a helper holding an older
 * copy's word (gen) cannot take a chunk of the next. */
#define CLAIM(gen, front, back) ((uint64_t)(gen) << 32 | (uint64_t)(front) << 16 | (uint64_t)(back))
#define CLAIM_GEN(c) ((uint32_t)((c) >> 32))
#define CLAIM_FRONT(c) ((unsigned)((c) >> 16) & 0xffffu)
#define CLAIM_BACK(c) ((unsigned)(c) & 0xffffu)

/* Where a copy's end lies: segment, the PE whose copy of it, offset. */
typedef struct {
    uint64_t off;
    int32_t seg;
    int32_t pe;
} share_loc_t;

/* One per PE, in its internal heap; its peers reach it through their
 * mapping of that heap.  Each line written by different sides. */
typedef struct {
    uint64_t claim;                        /* the caller, then anyone */
    char pad0[SHR_CACHE_LINE - 8];
    uint64_t done SHR_ALIGNED_CL;          /* chunks helpers have copied */
    char pad1[SHR_CACHE_LINE - 8];
    /* the copy, written before `claim` publishes it */
    share_loc_t src SHR_ALIGNED_CL, dst;
    uint64_t len, chunk;
    /* the node's first PE's only: bumped at every publication, so that an
     * idle PE reads one word, not every peer's slot */
    uint64_t posted SHR_ALIGNED_CL;
    char pad3[SHR_CACHE_LINE - 8];
} share_slot_t;

size_t shr_share_min = SIZE_MAX;
static share_slot_t *my_slot;        /* NULL: this PE neither shares nor helps */
static uintptr_t slot_off;           /* its offset into the heap segment */
const uint64_t *shr_share_posted;
static uint32_t my_gen;
static int busy;                     /* a thread of this PE is sharing a copy */
/* for the debug line at finalize: copies this PE published, their chunks
 * its peers copied, chunks it copied for any PE */
static uint64_t n_published, n_got_help, n_gave_help, n_suspended;

/* A helper that took a chunk and lost its CPU (to another program, or in
 * a VM to the host) holds the caller up until it runs again, milliseconds,
 * and its chunk cannot be taken back (docs/shared-copy.md).  So a wait for
 * helpers' chunks that lasts SHARE_STALL_NS (a claim of 512 KiB takes a
 * few us at tens of GB/s; a time, not a count of pauses, whose length
 * differs tenfold between CPUs) suspends sharing on this PE, for 1 ms,
 * doubling with
 * each stall up to 1 s, back to 1 ms after SHARE_CALM_COPIES copies helped
 * without one: a stall now and then (a few ms) costs less than forgoing
 * sharing for long (100 ms after each stall left most launches of a 1 MiB
 * flood without it), and a helper that keeps stalling is left alone. */
#define SHARE_STALL_NS 200000ull           /* 200 us */
#define SHARE_STALL_CHECK 256u             /* polls between looks at the clock */
#define SHARE_SUSPEND_MIN_NS 1000000ull    /* 1 ms */
#define SHARE_SUSPEND_MAX_NS 1000000000ull /* 1 s */
#define SHARE_CALM_COPIES 64u
static int is_suspended;
static uint64_t resume_ns;
static uint64_t suspend_ns = SHARE_SUSPEND_MIN_NS; /* the next suspension's; under `busy` */
static unsigned calm;                              /* helped copies since the last stall */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void suspend(void)
{
    __atomic_store_n(&resume_ns, now_ns() + suspend_ns, __ATOMIC_RELAXED);
    __atomic_store_n(&is_suspended, 1, __ATOMIC_RELEASE);
    suspend_ns = suspend_ns * 2 < SHARE_SUSPEND_MAX_NS ? suspend_ns * 2 : SHARE_SUSPEND_MAX_NS;
    calm = 0;
    n_suspended++; /* under `busy` */
}

static bool suspended(void)
{
    if (SHR_LIKELY(!__atomic_load_n(&is_suspended, __ATOMIC_ACQUIRE))) {
        return false;
    }
    if (now_ns() < __atomic_load_n(&resume_ns, __ATOMIC_RELAXED)) {
        return true;
    }
    __atomic_store_n(&is_suspended, 0, __ATOMIC_RELAXED);
    return false;
}

static share_slot_t *slot_of(int pe)
{
    char *base = shr_g.seg[SHR_SEG_HEAP].peer_base[pe];

    return base != NULL ? (share_slot_t *)(base + slot_off) : NULL;
}

shr_status_t shr_share_init(const char *routine)
{
    my_slot = NULL;
    shr_share_posted = NULL;
    shr_share_min = shr_config.copy_share == 0 ? SIZE_MAX : shr_config.copy_share;
    /* allocated whatever this PE decides, so that every PE's slot has the
     * same offset */
    share_slot_t *slot = shr_internal_record(routine, sizeof(*slot), "the shared copies' slot");
    if (slot == NULL) {
        return SHR_ERR_NO_MEMORY;
    }
    memset(slot, 0, sizeof(*slot));
    slot_off = (uintptr_t)slot - shr_g.seg[SHR_SEG_HEAP].base;
    my_gen = 0;
    /* a helper that waits for the CPU its caller needs would stall it */
    if (shr_share_min == SIZE_MAX || shr_g.n_local < 2 || shr_g.oversubscribed) {
        shr_share_min = SIZE_MAX;
        return SHR_OK;
    }
    my_slot = slot;
    shr_share_posted = &slot_of(shr_g.local_pes[0])->posted;
    return SHR_OK;
}

void shr_share_fini(void)
{
    if (my_slot != NULL) {
        shr_debug(SHR_LOG_SHM, "shared copies: published %llu, peers copied %llu of their "
                  "chunks; this PE copied %llu chunks for others; sharing suspended %llu "
                  "times after a helper stalled",
                  (unsigned long long)n_published, (unsigned long long)n_got_help,
                  (unsigned long long)n_gave_help, (unsigned long long)n_suspended);
    }
    n_published = n_got_help = n_gave_help = n_suspended = 0;
    is_suspended = 0;
    suspend_ns = SHARE_SUSPEND_MIN_NS;
    calm = 0;
    shr_share_posted = NULL;
    shr_share_min = SIZE_MAX;
    my_slot = NULL;
}

/* Which of this node's PEs' segments holds [addr, addr+len), as mapped here. */
static bool locate(const void *addr, size_t len, share_loc_t *loc)
{
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        for (int i = 0; i < shr_g.n_local; i++) {
            int pe = shr_g.local_pes[i];
            const char *base = shr_g.seg[s].peer_base[pe];
            uintptr_t off = (uintptr_t)addr - (uintptr_t)base;

            if (base != NULL && off < shr_g.seg[s].size && len <= shr_g.seg[s].size - off) {
                *loc = (share_loc_t){.off = off, .seg = s, .pe = pe};
                return true;
            }
        }
    }
    return false;
}

/* Where loc is mapped here, or NULL. */
static char *address_of(share_loc_t loc)
{
    if (loc.seg < 0 || loc.seg >= SHR_SEG_COUNT || (unsigned)loc.pe >= (unsigned)shr_g.n_pes) {
        return NULL;
    }
    char *base = shr_g.seg[loc.seg].peer_base[loc.pe];
    return base != NULL ? base + loc.off : NULL;
}

/* Where chunk i of a copy of len bytes to `dst_off` (its offset in its
 * segment: a line boundary there is one in every PE's mapping) starts;
 * len for the chunk after the last.  A last chunk shorter than
 * shr_copy_window's shortest copy joins the one before (empty chunks are
 * skipped): shr_copy_alone's 64-byte moves would store past a chunk of
 * fewer than 128 bytes, which from 64 MiB on (1025 chunks) a length just
 * past a multiple of 64 KiB leaves. */
static uint64_t chunk_start(uint64_t dst_off, uint64_t len, uint64_t chunk, unsigned i)
{
    if (i == 0) {
        return 0;
    }
    uint64_t at = ((dst_off + (uint64_t)i * chunk + 63) & ~(uint64_t)63) - dst_off;
    return at < len && len - at >= SHR_COPY_SKEW_MIN_LEN ? at : len;
}

static void copy_chunk(char *dst, const char *src, uint64_t dst_off, uint64_t len,
                       uint64_t chunk, unsigned i)
{
    uint64_t at = chunk_start(dst_off, len, chunk, i);
    uint64_t end = chunk_start(dst_off, len, chunk, i + 1);

    if (end > at) {
        shr_copy_alone(dst + at, src + at, end - at);
    }
}

static void publish_and_copy(share_slot_t *slot, void *dest, const void *src, size_t len,
                             share_loc_t from, share_loc_t to, uint64_t chunk, unsigned n);

bool shr_share_copy(void *dest, const void *src, size_t len)
{
    share_slot_t *slot = my_slot;
    share_loc_t from, to;
    uint64_t pieces = (len + SHARE_CHUNK - 1) / SHARE_CHUNK;

    if (pieces > SHARE_MAX_CHUNKS) {
        pieces = SHARE_MAX_CHUNKS;
    }
    uint64_t chunk = ((len + pieces - 1) / pieces + 63) & ~(uint64_t)63;
    unsigned n = (unsigned)((len + chunk - 1) / chunk);
    /* one chunk would be the caller's or a helper's alone: no gain */
    if (slot == NULL || n < 2 || suspended() || !locate(src, len, &from) ||
        !locate(dest, len, &to)) {
        return false;
    }
    if (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE) != 0) {
        return false; /* another thread of this PE shares a copy */
    }
    publish_and_copy(slot, dest, src, len, from, to, chunk, n);
    __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
    return true;
}

/* The shared copy itself; the caller holds `busy`. */
static void publish_and_copy(share_slot_t *slot, void *dest, const void *src, size_t len,
                             share_loc_t from, share_loc_t to, uint64_t chunk, unsigned n)
{
    uint32_t gen = ++my_gen;

    __atomic_store_n(&slot->src.off, from.off, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->src.seg, from.seg, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->src.pe, from.pe, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->dst.off, to.off, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->dst.seg, to.seg, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->dst.pe, to.pe, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->len, (uint64_t)len, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->chunk, chunk, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->done, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->claim, CLAIM(gen, 0, n), __ATOMIC_RELEASE);
    __atomic_fetch_add((uint64_t *)shr_share_posted, 1, __ATOMIC_RELEASE);

    unsigned mine = 0;
    uint64_t c = CLAIM(gen, 0, n);
    while (CLAIM_FRONT(c) < CLAIM_BACK(c)) {
        if (!__atomic_compare_exchange_n(&slot->claim, &c, c + (1u << 16), false,
                                         __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
            continue; /* a helper took the back one: c is the new word */
        }
        copy_chunk(dest, src, to.off, len, chunk, CLAIM_FRONT(c));
        c += 1u << 16;
        mine++;
    }
    /* the chunks helpers took are being copied now: a short wait, unless a
     * helper lost its CPU */
    uint64_t helped = n - mine;
    uint64_t since = 0;
    bool stalled = false;
    for (unsigned spins = 1; __atomic_load_n(&slot->done, __ATOMIC_ACQUIRE) < helped; spins++) {
        if (stalled) {
            sched_yield();
        } else if (spins % SHARE_STALL_CHECK != 0) {
            shr_cpu_relax();
        } else if (since == 0) {
            since = now_ns();
        } else if (now_ns() - since > SHARE_STALL_NS) {
            stalled = true;
            suspend();
        }
    }
    if (helped != 0 && ++calm == SHARE_CALM_COPIES) {
        suspend_ns = SHARE_SUSPEND_MIN_NS;
    }
    n_published++; /* under `busy` */
    n_got_help += helped;
}

/* Copies one claim's worth of `pe`'s published copy, if any chunk is
 * free: half of the free chunks, rounded up (the caller is inside one
 * more), at most SHARE_CLAIM_MAX; true when it copied. */
static bool help(int pe)
{
    share_slot_t *slot = slot_of(pe);
    if (slot == NULL) {
        return false;
    }
    uint64_t c = __atomic_load_n(&slot->claim, __ATOMIC_ACQUIRE);
    if (CLAIM_FRONT(c) >= CLAIM_BACK(c)) {
        return false;
    }
    share_loc_t from = {__atomic_load_n(&slot->src.off, __ATOMIC_RELAXED),
                        __atomic_load_n(&slot->src.seg, __ATOMIC_RELAXED),
                        __atomic_load_n(&slot->src.pe, __ATOMIC_RELAXED)};
    share_loc_t to = {__atomic_load_n(&slot->dst.off, __ATOMIC_RELAXED),
                      __atomic_load_n(&slot->dst.seg, __ATOMIC_RELAXED),
                      __atomic_load_n(&slot->dst.pe, __ATOMIC_RELAXED)};
    uint64_t len = __atomic_load_n(&slot->len, __ATOMIC_RELAXED);
    uint64_t chunk = __atomic_load_n(&slot->chunk, __ATOMIC_RELAXED);
    /* the fields above are read before the claim that vouches for them: a
     * claim of this gen succeeds only while its copy is unfinished, and the
     * caller rewrites them only once it is finished */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    const char *src = address_of(from);
    char *dst = address_of(to);
    if (src == NULL || dst == NULL) {
        return false; /* a pair this PE does not map (SHIMMER_REMOTE_PES) */
    }
    uint32_t gen = CLAIM_GEN(c);
    unsigned take;
    do {
        if (CLAIM_GEN(c) != gen || CLAIM_FRONT(c) >= CLAIM_BACK(c)) {
            return false;
        }
        take = (CLAIM_BACK(c) - CLAIM_FRONT(c) + 1) / 2;
        take = take < SHARE_CLAIM_MAX ? take : SHARE_CLAIM_MAX;
    } while (!__atomic_compare_exchange_n(&slot->claim, &c, c - take, false, __ATOMIC_ACQUIRE,
                                          __ATOMIC_ACQUIRE));
    c -= take;
    for (unsigned i = 0; i < take; i++) {
        copy_chunk(dst, src, to.off, len, chunk, CLAIM_BACK(c) + i);
    }
    __atomic_fetch_add(&slot->done, take, __ATOMIC_RELEASE);
    __atomic_fetch_add(&n_gave_help, take, __ATOMIC_RELAXED);
    return true;
}

void shr_share_poll(shr_waiter_t *waiter)
{
    const uint64_t *posted = shr_share_posted;
    if (posted == NULL) {
        return;
    }
    uint32_t seen = (uint32_t)__atomic_load_n(posted, __ATOMIC_ACQUIRE);
    if (seen == waiter->share_seen) {
        return;
    }
    for (int i = 0; i < shr_g.n_local; i++) {
        if (help(shr_g.local_pes[i])) {
            /* one claim a stop, so that the wait tests its own word in
             * between; `share_seen` stays behind, so that the next stop
             * looks again.  Poll closely while the copies go on, as after
             * a remote peer's traffic (wait.c). */
            waiter->spins = 0;
            waiter->sleeping = false;
            waiter->since_ns = 0;
            return;
        }
    }
    waiter->share_seen = seen; /* nothing left to take */
}
