/*
 * coll_hier_int.h -- private to the hierarchical collectives (coll_hier*.c):
 * the node structure of a member set (the plan), the node-phase signals,
 * and the leaders' view.
 *
 * A hierarchical call runs a node phase through the shared mappings (loads,
 * stores, CPU atomics between the members of one node), a leaders' phase
 * among one PE per node (the engine's algorithms, or the ones in these files,
 * on a stack view team of the leaders, with the call's words), and a node
 * phase again.  Only leaders touch the call's words; the node phases use
 * words of their own:
 *   team        the team area's hierarchy lines (SHR_TA_HIER): two lines
 *               per PE, one written by its members when it leads (UP, DONE
 *               counters) and one written by its leader (DOWN flag: the
 *               call's number << 24 + chunks released; VAL).  A PE's own
 *               MYVAL is read by its leader.
 *   active set  the last line of pSync's slot area (the leaders' calls get
 *               one line less of slots); DOWN is then a counter the member
 *               consumes, and every word is zero again on return.
 * Counters are added by senders and subtracted by their owner, so an early
 * signal of a next call survives as a count.
 */
#ifndef SHR_COLL_HIER_INT_H
#define SHR_COLL_HIER_INT_H

#include "coll/coll_int.h"

/* The node structure of a member set; immutable once built, cached per team
 * (by its slot) and per active set (coll_hier.c). */
typedef struct shr_hier_plan {
    int n;            /* members */
    int n_nodes;
    int my_node;      /* index of my node */
    int local_max;    /* most members on one node */
    bool contiguous;  /* every node's members are consecutive member numbers */
    int *node;        /* [n] node index of each member */
    int *first;       /* [n_nodes + 1]: node k's members are members[first[k] .. first[k+1]) */
    int *members;     /* [n] members by node (nodes in order of their lowest
                         member), member order within a node */
    int *leader_pe;   /* [n_nodes] world PE of each node's lowest member */
    /* active sets: the cache key (coll_hier.c) */
    int start, log, size;
    uint64_t gen;
} shr_hier_plan_t;

/* One hierarchical call as this PE sees it. */
typedef struct shr_hier {
    const shr_hier_plan_t *p;
    const int *local;  /* my node's members, member order */
    int n_local;
    int leader;        /* member number of my node's leader in this call */
    int root;          /* rooted calls: the root (member number); else -1 */
    int my_local;      /* my index in local[] */
    bool is_leader;
    uint64_t *nw;      /* the node-phase words (symmetric, my copy) */
    size_t down, val;  /* word offsets of down and val in nw (team or active set) */
    int root_node;     /* rooted calls: the root's node; else -1 */
} shr_hier_t;

/* The node-phase words of one PE: what its members write when it leads,
 * with its own value for its leader; and what its leader writes to it. */
typedef struct shr_hier_member_words {
    uint64_t up;    /* leader: members arrived (counter) */
    uint64_t done;  /* leader: members done with the leader's data (counter) */
    uint64_t myval; /* a member's value for its leader (its own copy) */
} shr_hier_member_words_t;
typedef struct shr_hier_leader_words {
    uint64_t down;  /* released (team: flag; active set: a counter the member consumes) */
    uint64_t val;   /* a value for this member */
} shr_hier_leader_words_t;
/* team: the team area's hier lines, one line per writer */
typedef struct shr_hier_team_words {
    union {
        shr_hier_member_words_t w;
        shr_sync_line_t line;
    } mine;
    shr_hier_leader_words_t from_leader;
} shr_hier_team_words_t;
/* active set: the last line of pSync's slot area */
typedef struct shr_hier_aset_words {
    shr_hier_member_words_t mine;
    shr_hier_leader_words_t from_leader;
} shr_hier_aset_words_t;
#define SHR_HW_UP    SHR_WORD_OF(shr_hier_member_words_t, up)
#define SHR_HW_DONE  SHR_WORD_OF(shr_hier_member_words_t, done)
#define SHR_HW_MYVAL SHR_WORD_OF(shr_hier_member_words_t, myval)
_Static_assert(offsetof(shr_hier_team_words_t, mine.w) == 0 &&
               offsetof(shr_hier_aset_words_t, mine) == 0,
               "SHR_HW_* index both layouts from their start");
_Static_assert(sizeof(shr_hier_team_words_t) <= sizeof(((shr_coll_team_area_t *)0)->hier),
               "a team's node words fit its area's hier lines");
_Static_assert(sizeof(shr_hier_aset_words_t) <= SHR_SYNC_LINE_BYTES,
               "an active set's node words fit one line");
SHR_LAYOUT_STARTS_LINE(shr_hier_team_words_t, from_leader);

/* Sets up `h` for call `c`; `root` (a member, or -1) leads its node.  False
 * when the members do not span nodes (or the call is itself a phase of a
 * hierarchical call): run a flat algorithm. */
bool shr_hier_begin(shr_coll_t *c, int root, shr_hier_t *h);

/* The call's node-phase word `w` of member `m` (on my node), mapped. */
static inline uint64_t *shr_hier_word(const shr_coll_t *c, const shr_hier_t *h, int m, size_t w)
{
    return (uint64_t *)shr_ptr(h->nw + w, shr_coll_wpe(c, m));
}

/* member -> leader: arrived (after its prior stores). */
static inline void shr_hier_up(const shr_coll_t *c, const shr_hier_t *h)
{
    __atomic_fetch_add(shr_hier_word(c, h, h->leader, SHR_HW_UP), 1, __ATOMIC_RELEASE);
}

/* leader: waits for one count from every other member on my word `w`
 * (SHR_HW_UP or SHR_HW_DONE) and consumes them. */
static inline void shr_hier_take_all(shr_coll_t *c, const shr_hier_t *h, size_t w)
{
    uint64_t want = (uint64_t)h->n_local - 1;

    if (want != 0) {
        shr_coll_wait_ge(c, &h->nw[w], want);
        __atomic_fetch_sub(&h->nw[w], want, __ATOMIC_RELAXED);
    }
}

/* leader: every member arrived; consumes their arrivals. */
static inline void shr_hier_up_wait(shr_coll_t *c, const shr_hier_t *h)
{
    shr_hier_take_all(c, h, SHR_HW_UP);
}

/* member -> leader: done reading the leader's data. */
static inline void shr_hier_done(const shr_coll_t *c, const shr_hier_t *h)
{
    __atomic_fetch_add(shr_hier_word(c, h, h->leader, SHR_HW_DONE), 1, __ATOMIC_RELEASE);
}

/* leader: every member is done with the leader's data. */
static inline void shr_hier_done_wait(shr_coll_t *c, const shr_hier_t *h)
{
    shr_hier_take_all(c, h, SHR_HW_DONE);
}

/* leader -> local member i: release number k (1, 2, ... in order: a chunk,
 * or a stage of the call), after the leader's prior stores. */
static inline void shr_hier_down(const shr_coll_t *c, const shr_hier_t *h, int i, uint64_t k)
{
    uint64_t *w = shr_hier_word(c, h, h->local[i], h->down);

    if (c->psync == NULL) {
        __atomic_store_n(w, (c->seq << 24) + k, __ATOMIC_RELEASE);
    } else {
        __atomic_fetch_add(w, 1, __ATOMIC_RELEASE);
    }
}

/* member: wait for release k; shr_hier_down_end consumes all K of the call. */
static inline void shr_hier_down_wait(shr_coll_t *c, const shr_hier_t *h, uint64_t k)
{
    shr_coll_wait_ge(c, &h->nw[h->down], c->psync == NULL ? (c->seq << 24) + k : k);
}

static inline void shr_hier_down_end(const shr_coll_t *c, const shr_hier_t *h, uint64_t k)
{
    if (c->psync != NULL) {
        __atomic_fetch_sub(&h->nw[h->down], k, __ATOMIC_RELAXED);
    }
}

/* member: its whole part of a call the leader releases once: arrive, wait
 * for the release, consume it. */
static inline void shr_hier_member_round(shr_coll_t *c, const shr_hier_t *h)
{
    shr_hier_up(c, h);
    shr_hier_down_wait(c, h, 1);
    shr_hier_down_end(c, h, 1);
}

/* leader -> every member: release k. */
static inline void shr_hier_down_all(const shr_coll_t *c, const shr_hier_t *h, uint64_t k)
{
    for (int i = 0; i < h->n_local; i++) {
        if (h->local[i] != h->leader) {
            shr_hier_down(c, h, i, k);
        }
    }
}

/* The leaders as a team of their own, running on the call's words: `pes`
 * holds at least n_nodes ints (the leaders' world PEs are written there
 * when the call is rooted). */
void shr_hier_leaders(const shr_coll_t *c, const shr_hier_t *h, shr_team_t *view, int *pes,
                      shr_coll_t *sub);

/* World PE / member number of node k's leader in this call. */
int shr_hier_leader_of(const shr_coll_t *c, const shr_hier_t *h, int k);

/* Pipelined put of a chunk to leader `member`: non-blocking for large
 * chunks, so that the next chunk (and its signal, ordered by the fence of
 * shr_coll_add) leaves before this one completes; *pending_p then says a
 * shr_quiet_pes of the receivers is due before the source may change. */
static inline void shr_hier_put_pipe(shr_coll_t *sub, void *dest, const void *src, size_t len,
                                     int member, bool *pending_p)
{
    bool nbi = len >= ((size_t)32 << 10);

    shr_rma_put(NULL, shr_ctx_default, dest, src, len, shr_coll_wpe(sub, member), nbi);
    *pending_p |= nbi;
}

/* Bytes combined or copied at a time. */
#define SHR_HIER_CHUNK 4096

/* Pipelining unit of large transfers among leaders (broadcast, ring). */
#define SHR_HIER_PIPE ((size_t)128 << 10)

/* Members' copies of the node's data: above this total the members copy in
 * parallel (each its own), below the leader writes them all and leaves. */
#define SHR_HIER_PUSH_MAX ((size_t)64 << 10)

#endif
