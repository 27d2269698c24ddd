/*
 * state.h -- process-wide state of one PE: identity, the symmetric segments
 * and how every other PE's copy of them is reached.
 *
 * The fields read by every RMA/AMO call come first and fit in one cache line.
 * Everything here is written during init/finalize only (serialised), so
 * readers need no locks.
 */
#ifndef SHR_STATE_H
#define SHR_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/heap.h"
#include "core/wait_mode.h"
#include "util/compiler.h"
#include "util/status.h"

/* A symmetric segment: same size and layout on every PE. */
typedef struct shr_seg {
    uintptr_t base;   /* where this PE's own copy starts */
    size_t size;      /* bytes */
    size_t user_size; /* the first bytes a program may name: the heap's user
                         part (the library's internal heap follows it) */
    char **peer_base; /* [n_pes] where each PE's copy is mapped here; NULL = not
                         load/store reachable (another node) */
} shr_seg_t;

typedef enum { SHR_SEG_HEAP, SHR_SEG_DATA, SHR_SEG_COUNT } shr_seg_id_t;

typedef struct shr_state {
    /* ---- hot: read on every call ---- */
    int check_gate;      /* take the gated path: argument checks (always before
                            init/after finalize) or the profile (SHR_CHECKS_ON) */
    int my_pe;
    int n_pes;
    int needs_progress;  /* waits must drive the remote transport (a remote peer
                            exists and the transport needs target progress) */
    unsigned wait_spin;  /* pauses before a waiter starts yielding */
    int has_remote;      /* some peer is reached through the remote transport:
                            quiet and fence involve it, collectives may be
                            hierarchical (core/remote.h) */
    uint64_t wait_sleep_after_ns; /* waits longer than this sleep (wait_inline.h) */
    shr_seg_t seg[SHR_SEG_COUNT];

    /* ---- cold ---- */
    int init_count;        /* shmem_init calls not yet matched by finalize */
    bool initialized;
    bool finalized;        /* the last finalize ran (reset by a new init) */
    bool checks;           /* value of check_gate while initialized */
    int thread_level;
    pid_t init_thread;     /* thread that called init (finalize must be that one) */
    char host[64];

    /* PEs reachable with loads and stores, in world order; my index in it */
    int n_local;
    int local_rank;
    int *local_pes;
    int *node_of;          /* [n_pes] each PE's lowest load/store peer: a node
                              number every PE agrees on (hierarchical collectives) */
    bool oversubscribed;   /* some node runs more PEs than it has cores */
    int spare_cpus;        /* CPUs of this PE's machine beyond one per PE there:
                              how many more of this PE's threads may spin at once */
    unsigned wait_spin_crowded; /* wait_spin when more of this PE's threads wait
                                   than 1 + spare_cpus (the transport's waits) */
    shr_wait_mode_t wait_mode; /* after the spin phase (SHIMMER_WAIT_MODE) */
    char wait_why[192];        /* why that mode (shimmer-info, SHMEM_INFO) */

    /* heap segment layout: [user heap | internal heap], mapped at a
     * SHR_HEAP_BASE_ALIGN boundary so that offset alignment is address
     * alignment (shmem_align) on every PE */
    size_t internal_size;
    uintptr_t internal_heap_base;
    uintptr_t user_heap_base;
    size_t user_heap_size;
    shr_heap_t user_heap;
    shr_heap_t internal_heap;
    void *check_scratch;   /* SHR_CHECK_SCRATCH symmetric bytes for debug-mode
                              cross-PE argument checks */
} shr_state_t;

/* Argument checks and debug-mode diagnostics run now: the gate is up (one
 * predictable branch when it is down), and not only for the profile
 * (SHIMMER_PROFILE raises the gate too, core/prof.h). */
#define SHR_CHECKS_ON() (SHR_UNLIKELY(shr_g.check_gate) && SHR_GATE_CHECKS())
/* On the gated path: whether it is there for the checks. */
#define SHR_GATE_CHECKS() (shr_g.checks || !shr_g.initialized)

#define SHR_CHECK_SCRATCH 256
#define SHR_HEAP_BASE_ALIGN ((size_t)1 << 30)

extern shr_state_t shr_g SHR_PLUGIN_IMPORT(g);

/* Where `addr` (a symmetric address of this PE) is mapped for `pe`, or NULL
 * when `pe` is not load/store reachable or `addr` is not symmetric.
 * Thread-safe; the fast path of every RMA, AMO and shmem_ptr. */
static SHR_ALWAYS_INLINE void *shr_ptr(const void *addr, int pe)
{
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        uintptr_t off = (uintptr_t)addr - shr_g.seg[s].base;
        if (SHR_LIKELY(off < shr_g.seg[s].size)) {
            char *base = shr_g.seg[s].peer_base[pe];
            return base != NULL ? base + off : NULL;
        }
    }
    return NULL;
}

/* pe's copy of the byte `off` into segment s's user part, for len bytes
 * that start there (off < user_size): NULL when they run past the user
 * part or pe's copy is not mapped.  A program's get runs it per segment,
 * unrolled (core/rma_inline.h, shr_rma_get). */
static SHR_ALWAYS_INLINE char *shr_seg_user_at(int s, uintptr_t off, size_t len, int pe)
{
    if (SHR_UNLIKELY(len > shr_g.seg[s].user_size - off)) {
        return NULL;
    }
    char *base = shr_g.seg[s].peer_base[pe];
    return base != NULL ? base + off : NULL;
}

/* Does segment s's user part hold the len bytes `off` bytes into the
 * segment (off: an address less the segment's base)?  One add with its
 * carry and one compare; a len of 0 passes from off 0 to user_size. */
static SHR_ALWAYS_INLINE bool shr_seg_user_holds(int s, uintptr_t off, size_t len)
{
    uintptr_t end;

    return !__builtin_add_overflow(off, len, &end) && end <= shr_g.seg[s].user_size;
}

_Static_assert(SHR_SEG_COUNT == 2, "shr_user_ptr tests the heap, then the data segment");

/* shr_ptr for an address a program named: NULL also when `pe` is no PE of
 * the job or [addr, addr+len) does not lie inside the user's part of one
 * segment, so that the cold path can say which (these checks are always on:
 * a compare more than shr_ptr, docs/errors.md).  len may be 0.  The two
 * segments' tests pick the table of peers; its load is shared. */
static SHR_ALWAYS_INLINE void *shr_user_ptr(const void *addr, size_t len, int pe)
{
    if (SHR_UNLIKELY((unsigned)pe >= (unsigned)shr_g.n_pes)) {
        return NULL;
    }
    uintptr_t off = (uintptr_t)addr - shr_g.seg[SHR_SEG_HEAP].base;
    char **peers = shr_g.seg[SHR_SEG_HEAP].peer_base;

    if (SHR_UNLIKELY(!shr_seg_user_holds(SHR_SEG_HEAP, off, len))) {
        off = (uintptr_t)addr - shr_g.seg[SHR_SEG_DATA].base;
        peers = shr_g.seg[SHR_SEG_DATA].peer_base;
        if (!shr_seg_user_holds(SHR_SEG_DATA, off, len)) {
            return NULL;
        }
    }
    char *base = peers[(unsigned)pe];
    return base != NULL ? base + off : NULL;
}

/* Address of an internal-heap offset (from shr_heap_alloc(&shr_g.internal_heap)). */
static inline void *shr_internal_addr(size_t offset)
{
    return (void *)(shr_g.internal_heap_base + offset);
}

/* A record of `size` bytes on its own cache line of the internal heap, at
 * the same offset on every PE that allocates the same records in the same
 * order (init); NULL after an error line that names `routine` and `what`
 * the record is for.  core/init.c. */
void *shr_internal_record(const char *routine, size_t size, const char *what);

/* Which segment holds [addr, addr+len), or -1.  For checks and transports. */
static inline int shr_seg_find(const void *addr, size_t len)
{
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        uintptr_t off = (uintptr_t)addr - shr_g.seg[s].base;
        if (off < shr_g.seg[s].size && len <= shr_g.seg[s].size - off) {
            return s;
        }
    }
    return -1;
}

/* The segment of [addr, addr+len) when it lies in memory the user may
 * name: the user heap or the data segment (not the library's internal
 * heap), with addr's offset there in *off_p; else -1.  Inline: the remote
 * transfers' checks run it on every operation (shr_rma_remote_seg). */
static inline int shr_user_seg(const void *addr, size_t len, uint64_t *off_p)
{
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        uintptr_t off = (uintptr_t)addr - shr_g.seg[s].base;
        if (off < shr_g.seg[s].user_size && len <= shr_g.seg[s].user_size - off) {
            *off_p = off;
            return s;
        }
    }
    return -1;
}

/* True when [addr, addr+len) lies in memory the user may name (shr_user_seg). */
static inline bool shr_addr_is_user_symmetric(const void *addr, size_t len)
{
    uint64_t off;

    return shr_user_seg(addr, len, &off) >= 0;
}

/* Init/finalize of the whole library (core/init.c).  shr_init returns the
 * provided thread level in *provided_p on success. */
shr_status_t shr_init(int requested, int *provided_p, const char *routine);
void shr_finalize(const char *routine);

/* Ends the job because of a user error or an unrecoverable failure: logs
 * nothing itself (the caller logged the reason), flushes stdio, tells the
 * launcher, exits with `status`.  Thread-safe. */
_Noreturn void shr_fatal(int status, const char *reason) SHR_PLUGIN_IMPORT(fatal);

/* shmem_global_exit: flushes stdio and ends every PE of the job with
 * `status`.  Thread-safe. */
_Noreturn void shr_global_exit(int status);

#endif
