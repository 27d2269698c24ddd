/*
 * coll_int.h -- private to src/coll: one collective call (shr_coll_t), the
 * layout of synchronisation areas, the signalling primitives every
 * algorithm is written with, and the algorithm registry.
 *
 * One call = a member set (a team, or a stack "view" team for an active
 * set) plus the call's synchronisation words `sync`: a region of the team's
 * ring, or the user's pSync.  They are zero on entry and every algorithm
 * leaves them zero on return (pSync is "restored"), because every signal
 * sent to a PE during a call is consumed by that PE before it returns:
 *   counters  senders ADD, the owner waits until the count is reached and
 *             subtracts it atomically (early signals of a next call survive);
 *   slots     a sender writes a payload then a nonzero header (release); the
 *             owner waits for the header, copies the payload out and zeroes
 *             the slot with plain stores.
 * Algorithms move data with the core RMA paths, which are a memcpy through
 * the shared mapping for peers on this node and the remote transport
 * otherwise; they wait only on their own memory.
 */
#ifndef SHR_COLL_INT_H
#define SHR_COLL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "coll/coll.h"
#include "core/amo_inline.h"
#include "core/rma_inline.h"
#include "core/state.h"
#include "core/wait_inline.h"
#include "util/log.h"

/* ---- what a call is ---- */

typedef enum {
#define SHR_COLL_KIND(_kind, _name) SHR_COLL_##_kind,
#include "coll/coll_kinds.def"
#undef SHR_COLL_KIND
    SHR_COLL_KIND_COUNT
} shr_coll_kind_t;

typedef struct shr_coll {
    const char *fn;          /* routine the user called */
    shr_team_t *team;        /* members (an active set: a view on the stack) */
    uint64_t *sync;          /* this call's words (symmetric), see layout below */
    size_t slot_words;       /* words of the slot area (sync + SHR_CR_SLOTS) */
    uint64_t seq;            /* team: the call's number on the team; 0 for an active set */
    long *psync;             /* active set: the user's pSync (hang reports) */
    shr_coll_kind_t kind;
    bool all_local;          /* every member is load/store reachable */
    bool full;               /* set by the algorithm: every member saw every other arrive */
    bool nested;             /* a phase of a hierarchical call (coll_hier.c): stay flat */
} shr_coll_t;

/* Arguments of a data collective, type-erased (unused fields are 0). */
typedef struct shr_coll_args {
    void *dest;
    const void *src;
    size_t len;          /* bytes from each PE (broadcast, collect, reduce, scan) */
    int root;            /* broadcast: team PE number */
    bool root_dest;      /* broadcast: write dest on the root too (team form) */
    bool fixed;          /* fcollect */
    ptrdiff_t dst, sst;  /* alltoalls strides in elements (alltoall: 1) */
    size_t nelems, elem; /* alltoall(s): elements per PE and element size */
    size_t count;        /* reduce, scan: elements */
    shr_dtype_t dt;
    shr_op_t op;
    bool inclusive;      /* scan */
} shr_coll_args_t;

/* ---- layouts: each a struct of 64-bit words, its lines checked below ----
 * Code indexes the word arrays (c->sync, team->sync) with the SHR_CW_,
 * SHR_CR_, SHR_TA_ and SHR_DBG_ offsets, which are derived from these
 * structs, never counted by hand. */
typedef uint64_t shr_sync_line_t[SHR_SYNC_LINE];
#define SHR_SYNC_LINE_BYTES (SHR_SYNC_LINE * sizeof(uint64_t))
/* Word offset of `_member` in layout `_type`. */
#define SHR_WORD_OF(_type, _member) (offsetof(_type, _member) / sizeof(uint64_t))
#define SHR_LAYOUT_STARTS_LINE(_type, _member) \
    _Static_assert(offsetof(_type, _member) % SHR_SYNC_LINE_BYTES == 0, \
                   #_type "." #_member " starts a line")

/* One call's words: a ring region of a team's area, or the user's pSync
 * (aligned to a line, with as many slot lines as it holds). */
typedef struct shr_coll_region {
    struct {                    /* counters (multi-sender, ADD / wait / SUB) */
        uint64_t ready;         /* sources ready / arrivals */
        uint64_t done;          /* readers done */
        uint64_t stage;         /* a middle stage (reduce: slices ready) */
        uint64_t chain;         /* chain value (collect offsets) */
        uint64_t agree1;        /* debug-mode argument agreement */
        uint64_t agree2;
        uint64_t bar_cnt;       /* active-set central barrier: arrivals (on member 0) */
        uint64_t bar_rel;       /* active-set central barrier: release */
    } counters;
    shr_sync_line_t dissem;     /* internal synchronisations: round r's counter */
    shr_sync_line_t slots[32];  /* the slot area (payload slots, see coll_slot_*) */
} shr_coll_region_t;
#define SHR_CW_READY   SHR_WORD_OF(shr_coll_region_t, counters.ready)
#define SHR_CW_DONE    SHR_WORD_OF(shr_coll_region_t, counters.done)
#define SHR_CW_STAGE   SHR_WORD_OF(shr_coll_region_t, counters.stage)
#define SHR_CW_CHAIN   SHR_WORD_OF(shr_coll_region_t, counters.chain)
#define SHR_CW_AGREE1  SHR_WORD_OF(shr_coll_region_t, counters.agree1)
#define SHR_CW_AGREE2  SHR_WORD_OF(shr_coll_region_t, counters.agree2)
#define SHR_CW_BAR_CNT SHR_WORD_OF(shr_coll_region_t, counters.bar_cnt)
#define SHR_CW_BAR_REL SHR_WORD_OF(shr_coll_region_t, counters.bar_rel)
#define SHR_CR_DISSEM  SHR_WORD_OF(shr_coll_region_t, dissem)
#define SHR_CR_DISSEM_ROUNDS SHR_SYNC_LINE           /* up to 256 PEs */
#define SHR_CR_SLOTS   SHR_WORD_OF(shr_coll_region_t, slots) /* first word of the slot area */
#define SHR_COLL_REGION_SLOT_LINES SHR_ARRAY_SIZE(((shr_coll_region_t *)0)->slots)
#define SHR_COLL_REGION_WORDS (sizeof(shr_coll_region_t) / sizeof(uint64_t))
_Static_assert(sizeof(((shr_coll_region_t *)0)->counters) <= SHR_SYNC_LINE_BYTES,
               "a call's counters fit their line");
SHR_LAYOUT_STARTS_LINE(shr_coll_region_t, dissem);
SHR_LAYOUT_STARTS_LINE(shr_coll_region_t, slots);

/* Line 0 of a team's area: this PE's own state, never written by peers. */
typedef struct shr_coll_state {
    uint64_t seq;        /* data collectives started on the team */
    uint64_t last_free;  /* every member has left every call numbered <= this */
    uint64_t locality;   /* 0 unknown, 1 all members local, 2 some remote */
    uint64_t hier;       /* 0 unknown, 1 hierarchical (coll_hier.c), 2 flat */
    uint64_t running;    /* WORLD's, PEs outnumbering CPUs: 0 while this PE
                            yields in a collective's wait, else 1 + the CPU
                            it left its last one on (peers read it) */
} shr_coll_state_t;

/* The debug line "the call this PE is in", read by peers on a hang: a
 * team's calls, and on WORLD's line also the active-set calls. */
typedef struct shr_coll_dbg_line {
    uint64_t kind;       /* kind + 1 while inside, 0 outside */
    uint64_t seq;        /* team: number of the last data collective entered */
    uint64_t epoch;      /* team: epoch of the last barrier entered */
    uint64_t aset_kind;  /* active set: kind + 1 while inside */
    uint64_t aset_psync; /* active set: pSync as (segment << 56 | offset) */
} shr_coll_dbg_line_t;
#define SHR_CS_RUNNING     SHR_WORD_OF(shr_coll_state_t, running)
#define SHR_DBG_KIND       SHR_WORD_OF(shr_coll_dbg_line_t, kind)
#define SHR_DBG_SEQ        SHR_WORD_OF(shr_coll_dbg_line_t, seq)
#define SHR_DBG_EPOCH      SHR_WORD_OF(shr_coll_dbg_line_t, epoch)
#define SHR_DBG_ASET_KIND  SHR_WORD_OF(shr_coll_dbg_line_t, aset_kind)
#define SHR_DBG_ASET_PSYNC SHR_WORD_OF(shr_coll_dbg_line_t, aset_psync)

/* A team's area (team->sync): the team's own synchronisation state and a
 * ring of regions, one per data collective, reused after forced barriers. */
#define SHR_COLL_RING 16 /* regions: calls between forced barriers */
typedef struct shr_coll_team_area {
    union {
        shr_coll_state_t state;
        shr_sync_line_t line;
    } own;
    shr_sync_line_t bar_count;    /* central barrier: arrivals (member 0) */
    shr_sync_line_t bar_release;  /* central barrier: release epoch */
    shr_sync_line_t dissem[32];   /* dissemination barrier: one line per round (epochs) */
    union {
        shr_coll_dbg_line_t call;
        shr_sync_line_t line;
    } dbg_call;                   /* debug: the call this PE is in */
    shr_sync_line_t dbg_args;     /* debug: this PE's arguments (agreement) */
    shr_coll_region_t ring[SHR_COLL_RING];
    shr_sync_line_t hier[2];      /* hierarchical calls' node words (coll_hier_int.h) */
    shr_sync_line_t line_bar;     /* the shared-line barrier (member 0's copy is used) */
} shr_coll_team_area_t;
#define SHR_TA_BAR_COUNT     SHR_WORD_OF(shr_coll_team_area_t, bar_count)
#define SHR_TA_BAR_RELEASE   SHR_WORD_OF(shr_coll_team_area_t, bar_release)
#define SHR_TA_DISSEM        SHR_WORD_OF(shr_coll_team_area_t, dissem)
#define SHR_TA_DISSEM_ROUNDS SHR_ARRAY_SIZE(((shr_coll_team_area_t *)0)->dissem)
#define SHR_TA_DBG_CALL      SHR_WORD_OF(shr_coll_team_area_t, dbg_call)
#define SHR_TA_DBG_ARGS      SHR_WORD_OF(shr_coll_team_area_t, dbg_args)
#define SHR_TA_RING          SHR_WORD_OF(shr_coll_team_area_t, ring)
#define SHR_TA_HIER          SHR_WORD_OF(shr_coll_team_area_t, hier)
#define SHR_TA_HIER_LINES    SHR_ARRAY_SIZE(((shr_coll_team_area_t *)0)->hier)
#define SHR_TA_LINE_BAR      SHR_WORD_OF(shr_coll_team_area_t, line_bar)
#define SHR_TA_WORDS         (sizeof(shr_coll_team_area_t) / sizeof(uint64_t))
_Static_assert(offsetof(shr_coll_team_area_t, own) == 0 &&
               sizeof(shr_coll_state_t) <= SHR_SYNC_LINE_BYTES,
               "a team's own state is its area's first line");
_Static_assert(sizeof(shr_coll_dbg_line_t) <= SHR_SYNC_LINE_BYTES, "the debug line is a line");
_Static_assert(sizeof(shr_coll_region_t) % SHR_SYNC_LINE_BYTES == 0, "regions are whole lines");
SHR_LAYOUT_STARTS_LINE(shr_coll_team_area_t, bar_count);
SHR_LAYOUT_STARTS_LINE(shr_coll_team_area_t, bar_release);
SHR_LAYOUT_STARTS_LINE(shr_coll_team_area_t, dissem);
SHR_LAYOUT_STARTS_LINE(shr_coll_team_area_t, dbg_call);
SHR_LAYOUT_STARTS_LINE(shr_coll_team_area_t, dbg_args);
SHR_LAYOUT_STARTS_LINE(shr_coll_team_area_t, ring);
SHR_LAYOUT_STARTS_LINE(shr_coll_team_area_t, hier);
SHR_LAYOUT_STARTS_LINE(shr_coll_team_area_t, line_bar);

/* ---- call set-up (coll_team.c, coll_aset.c) ---- */

/* Starts data collective `kind` on `team`: picks the ring region, first
 * synchronising the team if the region may still be in use. */
void shr_coll_team_begin(shr_coll_t *c, const char *fn, shr_team_t *team, shr_coll_kind_t kind);
void shr_coll_team_end(shr_coll_t *c);
/* Every member of `team` is load/store reachable: always when no PE needs
 * the remote transport, else looked up once per team (its state line). */
bool shr_coll_team_all_mapped(shr_team_t *team);
static inline bool shr_coll_team_local(shr_team_t *team)
{
    return SHR_LIKELY(!shr_g.has_remote) || shr_coll_team_all_mapped(team);
}
/* Builds the view team and the call on pSync.  The triplet was checked by
 * the API layer in debug mode. */
void shr_coll_aset_begin(shr_coll_t *c, shr_team_t *view, const char *fn, int PE_start,
                         int logPE_stride, int PE_size, long *pSync, shr_coll_kind_t kind);
void shr_coll_aset_end(shr_coll_t *c);
/* The kind's name for messages. */
const char *shr_coll_kind_name(shr_coll_kind_t kind);

/* ---- primitives ---- */

static inline int shr_coll_wpe(const shr_coll_t *c, int member)
{
    return shr_team_world_pe(c->team, member);
}

/* Member `k` places after me (mod n), and its inverse. */
static inline int shr_coll_rel(const shr_coll_t *c, int k)
{
    int n = c->team->n_pes, m = c->team->my_pe + k;
    return m >= n ? m - n : m;
}

/* Waits until *addr >= value (local memory), through the wait primitive;
 * `from` is the member whose signal completes it, or -1 (several, or not
 * known): when PEs outnumber CPUs, a wait for one member polls while that
 * member runs on another CPU, and yields otherwise.  In debug mode reports
 * the members that have not arrived every SHIMMER_HANG_TIMEOUT seconds. */
uint64_t shr_coll_wait_slow(shr_coll_t *c, const uint64_t *addr, uint64_t value, int from);

static SHR_ALWAYS_INLINE uint64_t shr_coll_wait_from(shr_coll_t *c, const uint64_t *addr,
                                                     uint64_t value, int from)
{
    uint64_t seen = __atomic_load_n(addr, __ATOMIC_ACQUIRE);
    return seen >= value ? seen : shr_coll_wait_slow(c, addr, value, from);
}

static SHR_ALWAYS_INLINE uint64_t shr_coll_wait_ge(shr_coll_t *c, const uint64_t *addr,
                                                   uint64_t value)
{
    return shr_coll_wait_from(c, addr, value, -1);
}

/* Adds `v` to word `w` of member's copy of the call's words.  Earlier puts
 * to that member are delivered first. */
static SHR_ALWAYS_INLINE void shr_coll_add(shr_coll_t *c, int member, size_t w, uint64_t v)
{
    shr_put_signal(NULL, shr_ctx_default, NULL, NULL, 0, &c->sync[w], v, SHMEM_SIGNAL_ADD,
                   shr_coll_wpe(c, member), false);
}

/* Waits for `count` signals on my word `w` and consumes them. */
static SHR_ALWAYS_INLINE void shr_coll_take(shr_coll_t *c, size_t w, uint64_t count)
{
    if (count == 0) {
        return;
    }
    shr_coll_wait_ge(c, &c->sync[w], count);
    __atomic_fetch_sub(&c->sync[w], count, __ATOMIC_RELAXED);
}

/* Signals every other member on word `w`, then takes the n-1 signals of the
 * others: an all-to-all arrival.  Flat below SHR_COLL_FLAT_SYNC members,
 * dissemination (line 1) above. */
void shr_coll_sync_all(shr_coll_t *c, size_t w);

/* Blocking copies between my memory and member's symmetric memory. */
static SHR_ALWAYS_INLINE void shr_coll_put(shr_coll_t *c, void *sym_dest, const void *src,
                                           size_t len, int member)
{
    shr_rma_put(NULL, shr_ctx_default, sym_dest, src, len, shr_coll_wpe(c, member), false);
}

static SHR_ALWAYS_INLINE void shr_coll_get(shr_coll_t *c, void *dest, const void *sym_src,
                                           size_t len, int member)
{
    shr_rma_get(NULL, shr_ctx_default, dest, sym_src, len, shr_coll_wpe(c, member), false);
}

/* memmove when source and destination may be the same memory. */
static inline void shr_coll_copy_local(void *dest, const void *src, size_t len)
{
    if (dest != src && len != 0) {
        memmove(dest, src, len);
    }
}

/* collect, fcollect: the source of the member whose block starts at byte
 * `off` of dest, given that mine starts at `my_off`.  In place (my source
 * is my block) every member's is its block (the debug check makes sure);
 * else every member passes the same source. */
static inline const void *shr_coll_src_of(const shr_coll_args_t *a, size_t my_off, size_t off)
{
    uintptr_t dest = (uintptr_t)a->dest; /* may be NULL when nothing moves */

    return (uintptr_t)a->src == dest + my_off ? (const void *)(dest + off) : a->src;
}

/* ---- slots: payload + header in the slot area ----
 * A slot is `sw` words, the header in its last.  A payload of `len` bytes
 * ends where the header starts (shr_coll_slot_at), its start rounded down
 * to 16 bytes (long double and complex are combined in place): up to 56
 * bytes share the header's line, so one line transfer carries both.  Slots
 * of up to a line never straddle one (sizes 2, 4, 8 words, aligned); larger
 * ones are whole lines.  Slot i of a receiver is at
 * sync + SHR_CR_SLOTS + i * sw; sender and receiver agree on `len` (a
 * receiver that does not know it reads it from the header, collect). */
#define SHR_COLL_SLOT(_c, _i, _sw) (&(_c)->sync[SHR_CR_SLOTS + (_i) * (_sw)])

/* Where a payload of `len` bytes starts in `slot` (sw words). */
static inline uint64_t *shr_coll_slot_at(uint64_t *slot, size_t sw, size_t len)
{
    return &slot[(sw - 1 - (len + 7) / 8) & ~(size_t)1];
}

/* Stack buffers that hold elements of any type. */
#define SHR_COLL_SCRATCH _Alignas(64)

/* Words of a slot for `len` payload bytes, or 0 if `nslots` such slots do
 * not fit this call's slot area. */
static inline size_t shr_coll_slot_size(const shr_coll_t *c, size_t len, size_t nslots)
{
    size_t sw = 1 + (len + 7) / 8;

    if (sw <= 2) {
        sw = 2;
    } else if (sw <= 4) {
        sw = 4;
    } else {
        sw = (sw + SHR_SYNC_LINE - 1) / SHR_SYNC_LINE * SHR_SYNC_LINE;
    }
    if (nslots * sw > c->slot_words) {
        return 0;
    }
    /* a line per sender when there is room: no false sharing */
    if (sw < SHR_SYNC_LINE && nslots * SHR_SYNC_LINE <= c->slot_words) {
        sw = SHR_SYNC_LINE;
    }
    return sw;
}

/* Writes `len` bytes and a nonzero `header` into slot `i` of `member`
 * (len <= (sw - 1) * 8). */
static inline void shr_coll_slot_send(shr_coll_t *c, int member, size_t i, size_t sw,
                                      uint64_t header, const void *payload, size_t len)
{
    uint64_t *slot = SHR_COLL_SLOT(c, i, sw);

    shr_put_signal(NULL, shr_ctx_default, shr_coll_slot_at(slot, sw, len), payload, len,
                   &slot[sw - 1], header, SHMEM_SIGNAL_SET, shr_coll_wpe(c, member), false);
}
/* Waits for my slot `i`; copies up to `len` payload bytes to `out` (may be
 * NULL), zeroes the slot and returns its header. */
uint64_t shr_coll_slot_recv(shr_coll_t *c, size_t i, size_t sw, void *out, size_t len);
/* My slot i's payload of `len` bytes, after shr_coll_slot_wait;
 * shr_coll_slot_clear (same len) ends it. */
uint64_t shr_coll_slot_wait(shr_coll_t *c, size_t i, size_t sw);
/* Waits for my compact slot from member `from` (shr_coll_slot_of), whose
 * header it returns. */
uint64_t shr_coll_slot_wait_from(shr_coll_t *c, int from, size_t sw);
static inline const void *shr_coll_slot_payload(const shr_coll_t *c, size_t i, size_t sw,
                                                size_t len)
{
    return shr_coll_slot_at(SHR_COLL_SLOT(c, i, sw), sw, len);
}
static inline void shr_coll_slot_clear(shr_coll_t *c, size_t i, size_t sw, size_t len)
{
    uint64_t *slot = SHR_COLL_SLOT(c, i, sw);

    /* plain stores: no other writer until the region or pSync is reused */
    for (uint64_t *w = shr_coll_slot_at(slot, sw, len); w < &slot[sw - 1]; w++) {
        *w = 0;
    }
    slot[sw - 1] = 0;
}

/* Compact slot index of sender `from` at receiver `to` (n-1 slots). */
static inline size_t shr_coll_slot_of(int from, int to)
{
    return (size_t)(from < to ? from : from - 1);
}

/* ---- reduction kernels (coll_reduce_ops.c) ---- */

/* z[i] = x[i] op y[i] for `count` elements; z may equal x or y. */
typedef void (*shr_coll_op_fn_t)(void *z, const void *x, const void *y, size_t count);
shr_coll_op_fn_t shr_coll_op_fn(shr_dtype_t dt, shr_op_t op);

/* ---- the algorithm registry (coll_algos.def, coll_select.c) ---- */

typedef enum {
#define SHR_COLL_NAME(_coll, _env) SHR_COLL_ID_##_coll,
#define SHR_COLL_ALGO(_coll, _name, _fn)
#include "coll/coll_algos.def"
#undef SHR_COLL_NAME
#undef SHR_COLL_ALGO
    SHR_COLL_ID_COUNT
} shr_coll_id_t;

typedef void (*shr_coll_algo_fn_t)(shr_coll_t *c, const shr_coll_args_t *a);

/* The algorithm the environment forces for `id`, or NULL for auto; an
 * unknown name ends the job (naming `fn`). */
shr_coll_algo_fn_t shr_coll_forced(shr_coll_id_t id, const char *fn);

/* Every algorithm function (defined in the collective's file). */
#define SHR_COLL_ALGO(_coll, _name, _fn) void _fn(shr_coll_t *c, const shr_coll_args_t *a);
#define SHR_COLL_NAME(_coll, _env)
#include "coll/coll_algos.def"
#undef SHR_COLL_ALGO
#undef SHR_COLL_NAME

/* Runs the forced algorithm of `id`, or `auto_fn`. */
static inline void shr_coll_run(shr_coll_id_t id, shr_coll_algo_fn_t auto_fn, shr_coll_t *c,
                                const shr_coll_args_t *a)
{
    shr_coll_algo_fn_t fn = shr_coll_forced(id, c->fn);
    (fn != NULL ? fn : auto_fn)(c, a);
}

/* Every algorithm of the registry calls shr_coll_ran(c, itself) where it
 * commits to running call `c` (after any hand-over to another algorithm):
 * at debug level, category coll, the first such call of each algorithm and
 * reason (forced, automatic, in place of a forced one, a leaders' phase)
 * is logged.  tests/func/coll/test_coll_forced.py forces every row of
 * coll_algos.def and fails unless this line shows that the row ran.  Off,
 * it costs one compare of shr_log_level. */
SHR_COLD void shr_coll_ran_log(const shr_coll_t *c, shr_coll_algo_fn_t self);

static SHR_ALWAYS_INLINE void shr_coll_ran(const shr_coll_t *c, shr_coll_algo_fn_t self)
{
    if (SHR_UNLIKELY(shr_log_is_enabled(SHR_LOG_DEBUG, SHR_LOG_COLL))) {
        shr_coll_ran_log(c, self);
    }
}

/* Tuning (coll_select.c, from env.def). */
size_t shr_coll_eager_max(void);
#define SHR_COLL_FLAT_SYNC 16 /* members up to which internal syncs are flat */

/* ---- debug-mode agreement (coll_debug.c) ----
 * Compares `value[i]` (named `what[i]`; NULL = unused) and the kind with
 * member 0's; ends the job on a difference.  With `blocks` (collect,
 * fcollect: `len` is this PE's bytes) it also checks where the sources are:
 * one array apart from dest, the same on every member, or on every member
 * its own block of dest (in place, shr_coll_src_of). */
typedef struct shr_coll_sig {
    const char *what[4];
    uint64_t value[4];
    bool blocks;
    const void *dest, *src;
    size_t len;
} shr_coll_sig_t;
_Static_assert(1 + SHR_ARRAY_SIZE(((shr_coll_sig_t *)0)->value) <= SHR_SYNC_LINE,
               "the kind and the values fit the debug-args line (SHR_TA_DBG_ARGS)");

void shr_coll_agree_team(const char *fn, shr_team_t *team, shr_coll_kind_t kind,
                         const shr_coll_sig_t *sig);
void shr_coll_agree_aset(const char *fn, int PE_start, int logPE_stride, int PE_size,
                         long *pSync, shr_coll_kind_t kind, const shr_coll_sig_t *sig);
/* A symmetric address as a name that is the same on every PE. */
uint64_t shr_coll_sym_name(const void *addr);

/* True when `c` (a team or active-set call) should run hierarchically: its
 * members span nodes and some node holds several (coll_hier.c; cached per
 * team and per active set). */
bool shr_coll_hier_wanted(shr_coll_t *c);

/* Team barrier (coll_barrier.c) usable inside a team call's set-up. */
void shr_coll_barrier_team(shr_team_t *team);

#endif
