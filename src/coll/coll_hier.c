/*
 * coll_hier.c -- hierarchical collectives for member sets that span nodes:
 * the node structure (plans and their caches), the node-phase set-up, the
 * leaders' view, and the barrier and broadcast.  coll_hier_reduce.c has the
 * reductions and scans, coll_hier_collect.c collect, fcollect and
 * alltoall(s); coll_hier_int.h the signals they share.
 *
 *   barrier  members add to their leader's arrival counter and wait for its
 *            release; leaders run a dissemination barrier among themselves
 *            (ceil(log2 nodes) rounds), then release their members.
 *   bcast    the root leads its node.  Leaders: eager (one slot write, up
 *            to SHIMMER_COLL_EAGER_SIZE), else a binomial tree of puts, or
 *            a chain (few leaders, large data); large data travels in
 *            pipelined chunks of SHR_HIER_PIPE.  Node phase, chunk by chunk
 *            as chunks reach the leader: the leader writes its members'
 *            dests (small totals), or the members copy from the leader's
 *            buffer in parallel and tell it when done (large).
 *
 * Leaders: each node's lowest member (rooted calls: the root for its node).
 * A node is a group of PEs that share memory (shr_g.node_of), so any member
 * set works: strided teams, explicit lists, cyclic placement, nodes with one
 * member, uneven nodes.  Network messages per call scale with nodes.
 * Active sets run the same algorithms on pSync (coll_hier_int.h).
 */
#include <pthread.h>
#include <stdlib.h>

#include "coll/coll_hier_int.h"
#include "core/check.h"
#include "util/log.h"

/* ---- plans ---- */

static int node_key(int pe)
{
    return shr_g.node_of != NULL ? shr_g.node_of[pe] : pe;
}

/* Builds the plan of `team` (a team or an active-set view); NULL when out of
 * memory (the callers then run flat algorithms, which need none). */
static shr_hier_plan_t *plan_build(const shr_team_t *team)
{
    int n = team->n_pes;
    size_t cap = 16;

    while (cap < 2 * (size_t)n) {
        cap <<= 1;
    }
    shr_hier_plan_t *p = calloc(1, sizeof(*p) + (4 * (size_t)n + 1) * sizeof(int));
    int *keys = malloc(cap * 2 * sizeof(int)); /* open hash: key, node index */
    int *fill = malloc(((size_t)n + 1) * sizeof(int));
    if (p == NULL || keys == NULL || fill == NULL) {
        free(p);
        free(keys);
        free(fill);
        return NULL;
    }
    p->n = n;
    p->node = (int *)(p + 1);
    p->members = p->node + n;
    p->leader_pe = p->members + n;
    p->first = p->leader_pe + n;
    for (size_t i = 0; i < cap; i++) {
        keys[2 * i] = -1;
    }
    for (int m = 0; m < n; m++) {
        int key = node_key(shr_team_world_pe(team, m));
        size_t i = (size_t)key * 2654435761u & (cap - 1);
        while (keys[2 * i] != -1 && keys[2 * i] != key) {
            i = (i + 1) & (cap - 1);
        }
        if (keys[2 * i] == -1) {
            keys[2 * i] = key;
            keys[2 * i + 1] = p->n_nodes;
            p->leader_pe[p->n_nodes] = shr_team_world_pe(team, m);
            fill[p->n_nodes++] = 0;
        }
        p->node[m] = keys[2 * i + 1];
        fill[p->node[m]]++;
    }
    /* first[] from the counts; members by node, member order within */
    p->first[0] = 0;
    p->contiguous = true;
    for (int k = 0; k < p->n_nodes; k++) {
        p->first[k + 1] = p->first[k] + fill[k];
        p->local_max = fill[k] > p->local_max ? fill[k] : p->local_max;
        fill[k] = p->first[k];
    }
    for (int m = 0; m < n; m++) {
        int k = p->node[m];
        if (fill[k] > p->first[k] && p->members[fill[k] - 1] != m - 1) {
            p->contiguous = false;
        }
        p->members[fill[k]++] = m;
    }
    p->my_node = team->my_pe >= 0 && team->my_pe < n ? p->node[team->my_pe] : 0;
    free(keys);
    free(fill);
    shr_debug(SHR_LOG_COLL, "hierarchy of %d members (world PE %d first): %d node(s), up to %d "
              "members per node, nodes %s", n, shr_team_world_pe(team, 0), p->n_nodes,
              p->local_max, p->contiguous ? "in runs of consecutive members" : "interleaved");
    return p;
}

/* Team plans, by the team's slot (a PE's slot index belongs to one team at
 * a time): chunks of slots allocated on demand, never moved, so readers need
 * no lock.  A team's area is zero when the team is new (shr_coll_state_t
 * hier == 0): its plan is then (re)built. */
#define SLOT_CHUNK 256
#define SLOT_CHUNKS 4096 /* 1 M slots, SHIMMER_TEAMS_MAX's limit */

static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
static shr_hier_plan_t **team_plans[SLOT_CHUNKS];
static uint64_t world_gen; /* WORLD's plans built: active-set plans of older ones are stale */

static SHR_COLD shr_hier_plan_t *team_plan_build(shr_team_t *team, shr_coll_state_t *st)
{
    int slot = team->slot;
    shr_hier_plan_t *p = NULL;

    if (slot < 0 || slot >= SLOT_CHUNK * SLOT_CHUNKS) {
        return NULL;
    }
    pthread_mutex_lock(&plan_lock);
    shr_hier_plan_t **chunk = team_plans[slot / SLOT_CHUNK];
    if (chunk == NULL) {
        chunk = calloc(SLOT_CHUNK, sizeof(*chunk));
        __atomic_store_n(&team_plans[slot / SLOT_CHUNK], chunk, __ATOMIC_RELEASE);
    }
    if (chunk != NULL) {
        free(chunk[slot % SLOT_CHUNK]);
        p = plan_build(team);
        chunk[slot % SLOT_CHUNK] = p;
        if (team == shr_team_world) {
            world_gen++;
        }
    }
    pthread_mutex_unlock(&plan_lock);
    /* 1: spans nodes with several members on some node; 2: otherwise */
    __atomic_store_n(&st->hier, p != NULL && p->n_nodes > 1 && p->n_nodes < p->n ? 1 : 2,
                     __ATOMIC_RELEASE);
    return p;
}

static const shr_hier_plan_t *team_plan(shr_team_t *team)
{
    shr_coll_state_t *st = (shr_coll_state_t *)team->sync;

    if (__atomic_load_n(&st->hier, __ATOMIC_ACQUIRE) == 0) {
        return team_plan_build(team, st);
    }
    shr_hier_plan_t **chunk = __atomic_load_n(&team_plans[team->slot / SLOT_CHUNK],
                                              __ATOMIC_ACQUIRE);
    return chunk != NULL ? chunk[team->slot % SLOT_CHUNK] : NULL;
}

/* Active-set plans: a small cache keyed by the triplet, valid for the WORLD
 * plan generation (one per shmem_init).  Entries of this generation stay
 * until finalize; when the cache is full a call builds a plan of its own. */
#define ASET_CACHE 16
static shr_hier_plan_t *aset_plans[ASET_CACHE];

static const shr_hier_plan_t *aset_plan(const shr_coll_t *c, bool *owned_p)
{
    const shr_team_t *v = c->team;
    int log = __builtin_ctz((unsigned)v->stride);
    shr_hier_plan_t *p = NULL;
    int free_at = -1;

    (void)team_plan(shr_team_world); /* the generation of this init */
    *owned_p = false;
    pthread_mutex_lock(&plan_lock);
    for (int i = 0; i < ASET_CACHE; i++) {
        shr_hier_plan_t *e = aset_plans[i];
        if (e != NULL && e->gen != world_gen) {
            free(e);
            aset_plans[i] = e = NULL;
        }
        if (e == NULL) {
            free_at = free_at < 0 ? i : free_at;
        } else if (e->start == v->start && e->log == log && e->size == v->n_pes) {
            p = e;
            break;
        }
    }
    if (p == NULL) {
        p = plan_build(v);
        if (p != NULL) {
            p->start = v->start;
            p->log = log;
            p->size = v->n_pes;
            p->gen = world_gen;
            if (free_at >= 0) {
                aset_plans[free_at] = p;
            } else {
                *owned_p = true;
            }
        }
    }
    pthread_mutex_unlock(&plan_lock);
    return p;
}

/* ---- a call ---- */

bool shr_coll_hier_wanted(shr_coll_t *c)
{
    if (c->nested || !shr_g.has_remote) {
        return false;
    }
    if (c->psync == NULL) {
        shr_coll_state_t *st = (shr_coll_state_t *)c->team->sync;
        if (st->hier == 0) {
            (void)team_plan(c->team);
        }
        return st->hier == 1;
    }
    bool owned;
    const shr_hier_plan_t *p = aset_plan(c, &owned);
    bool yes = p != NULL && p->n_nodes > 1 && p->n_nodes < p->n && c->slot_words >= 16;
    if (owned) {
        free((void *)p);
    }
    return yes;
}

/* A plan built for one call (active-set cache full) is freed at the end of
 * the call: calls register it here, per thread. */
static __thread shr_hier_plan_t *call_owned;

bool shr_hier_begin(shr_coll_t *c, int root, shr_hier_t *h)
{
    const shr_hier_plan_t *p;
    bool owned = false;

    if (c->nested || !shr_g.has_remote) {
        return false; /* a phase of a hierarchical call, or every PE on one node */
    }
    if (c->psync == NULL) {
        p = team_plan(c->team);
    } else {
        if (c->slot_words < 16) {
            return false;
        }
        p = aset_plan(c, &owned);
    }
    free(call_owned); /* an earlier call's */
    call_owned = owned ? (shr_hier_plan_t *)p : NULL;
    if (p == NULL || p->n_nodes < 2) {
        return false;
    }
    memset(h, 0, sizeof(*h));
    h->p = p;
    h->local = p->members + p->first[p->my_node];
    h->n_local = p->first[p->my_node + 1] - p->first[p->my_node];
    h->root = root;
    h->root_node = root >= 0 ? p->node[root] : -1;
    h->leader = h->root_node == p->my_node ? root : h->local[0];
    h->is_leader = h->leader == c->team->my_pe;
    for (int i = 0; i < h->n_local; i++) {
        h->my_local = h->local[i] == c->team->my_pe ? i : h->my_local;
    }
    if (c->psync == NULL) {
        h->nw = &c->team->sync[SHR_TA_HIER];
        h->down = SHR_WORD_OF(shr_hier_team_words_t, from_leader.down);
        h->val = SHR_WORD_OF(shr_hier_team_words_t, from_leader.val);
    } else {
        h->nw = &c->sync[SHR_CR_SLOTS + c->slot_words - SHR_SYNC_LINE];
        h->down = SHR_WORD_OF(shr_hier_aset_words_t, from_leader.down);
        h->val = SHR_WORD_OF(shr_hier_aset_words_t, from_leader.val);
    }
    return true;
}

int shr_hier_leader_of(const shr_coll_t *c, const shr_hier_t *h, int k)
{
    (void)c;
    return k == h->root_node ? h->root : h->p->members[h->p->first[k]];
}

void shr_hier_leaders(const shr_coll_t *c, const shr_hier_t *h, shr_team_t *view, int *pes,
                      shr_coll_t *sub)
{
    const shr_hier_plan_t *p = h->p;

    memset(view, 0, sizeof(*view));
    view->n_pes = p->n_nodes;
    view->my_pe = p->my_node;
    view->start = c->team->start;   /* for messages about an active set */
    view->stride = c->team->stride;
    view->magic = SHR_TEAM_MAGIC;
    view->sync = c->team->sync;     /* hang reports read the parent's debug line */
    if (h->root_node >= 0) {
        memcpy(pes, p->leader_pe, (size_t)p->n_nodes * sizeof(int));
        pes[h->root_node] = shr_coll_wpe(c, h->root);
        view->world_pes = pes;
    } else {
        view->world_pes = p->leader_pe;
    }
    *sub = *c;
    sub->team = view;
    sub->all_local = false;
    sub->nested = true; /* one member per node: never hierarchical again */
    if (c->psync != NULL) {
        sub->slot_words -= SHR_SYNC_LINE; /* the last line holds the node words */
    }
}

/* ---- barrier ---- */

void shr_coll_barrier_hier(shr_coll_t *c, const shr_coll_args_t *a)
{
    shr_hier_t h;
    shr_team_t view;
    shr_coll_t sub;
    int pes_stack[64];

    if (!shr_hier_begin(c, -1, &h)) {
        shr_coll_barrier_dissem(c, a);
        return;
    }
    shr_coll_ran(c, shr_coll_barrier_hier);
    if (c->psync == NULL) {
        /* team: epoch flags, like the flat barriers, on the barrier lines
         * (a team uses one barrier algorithm); arrivals count cumulatively */
        uint64_t epoch = c->seq;
        if (!h.is_leader) {
            __atomic_fetch_add((uint64_t *)shr_ptr(&c->sync[SHR_TA_BAR_COUNT],
                                                   shr_coll_wpe(c, h.leader)),
                               1, __ATOMIC_RELEASE);
            shr_coll_wait_ge(c, &c->sync[SHR_TA_BAR_RELEASE], epoch);
            return;
        }
        shr_coll_wait_ge(c, &c->sync[SHR_TA_BAR_COUNT], epoch * (uint64_t)(h.n_local - 1));
        shr_hier_leaders(c, &h, &view, pes_stack, &sub);
        shr_coll_barrier_dissem(&sub, a);
        for (int i = 1; i < h.n_local; i++) {
            __atomic_store_n((uint64_t *)shr_ptr(&c->sync[SHR_TA_BAR_RELEASE],
                                                 shr_coll_wpe(c, h.local[i])),
                             epoch, __ATOMIC_RELEASE);
        }
        return;
    }
    /* active set: counters */
    if (!h.is_leader) {
        shr_hier_member_round(c, &h);
        return;
    }
    shr_hier_up_wait(c, &h);
    shr_hier_leaders(c, &h, &view, pes_stack, &sub);
    shr_coll_barrier_dissem(&sub, a);
    shr_hier_down_all(c, &h, 1);
}

/* ---- broadcast ---- */

typedef enum { LB_AUTO, LB_TREE, LB_CHAIN } lb_algo_t;

/* The leaders' algorithm: eager when the data fits a slot, chain for large
 * data over few leaders (each leader sends the data once), else tree. */
static lb_algo_t lb_choose(const shr_coll_t *sub, size_t len, lb_algo_t forced)
{
    int L = sub->team->n_pes;

    if (forced != LB_AUTO) {
        return forced;
    }
    return len >= 2 * SHR_HIER_PIPE && L <= 8 ? LB_CHAIN : LB_TREE;
}

/* Node phase of one chunk [off, off+len) of the leader's `from`. */
static void bcast_node_chunk(shr_coll_t *c, const shr_hier_t *h, const shr_coll_args_t *a,
                             const char *from, size_t off, size_t len, bool push, uint64_t j)
{
    for (int i = 0; i < h->n_local; i++) {
        int m = h->local[i];
        if (m == h->leader) {
            continue;
        }
        if (push) {
            memcpy((char *)shr_ptr(a->dest, shr_coll_wpe(c, m)) + off, from + off, len);
        } else {
            shr_hier_down(c, h, i, j + 1);
        }
    }
}

static void bcast_hier_run(shr_coll_t *c, const shr_coll_args_t *a, lb_algo_t forced)
{
    shr_hier_t h;
    shr_team_t view;
    shr_coll_t sub;
    int pes_stack[64], *pes = pes_stack;

    if (!shr_hier_begin(c, a->root, &h)) {
        shr_coll_bcast_tree(c, a);
        return;
    }
    shr_coll_ran(c, forced == LB_TREE    ? shr_coll_bcast_hier_tree
                    : forced == LB_CHAIN ? shr_coll_bcast_hier_chain
                                         : shr_coll_bcast_hier);
    bool push = a->len * (size_t)(h.n_local - 1) <= SHR_HIER_PUSH_MAX;
    size_t unit = a->len >= 2 * SHR_HIER_PIPE ? SHR_HIER_PIPE : a->len;
    uint64_t chunks = (a->len + unit - 1) / unit;
    bool root = c->team->my_pe == a->root;

    if (!h.is_leader) {
        if (push) {
            shr_hier_down_wait(c, &h, 1);
            shr_hier_down_end(c, &h, 1);
            return;
        }
        /* copy from the leader's buffer as its chunks arrive */
        const char *from = shr_ptr(h.leader == a->root ? a->src : a->dest,
                                   shr_coll_wpe(c, h.leader));
        for (uint64_t j = 0; j < chunks; j++) {
            size_t off = j * unit, len = a->len - off < unit ? a->len - off : unit;
            shr_hier_down_wait(c, &h, j + 1);
            memcpy((char *)a->dest + off, from + off, len);
        }
        shr_hier_down_end(c, &h, chunks);
        shr_hier_done(c, &h);
        return;
    }
    if (h.p->n_nodes > (int)SHR_ARRAY_SIZE(pes_stack)) {
        pes = malloc((size_t)h.p->n_nodes * sizeof(int));
        if (pes == NULL) {
            shr_check_fail(c->fn, "out of memory for the leaders of %d nodes", h.p->n_nodes);
        }
    }
    shr_hier_leaders(c, &h, &view, pes, &sub);
    int L = view.n_pes, lroot = h.root_node, r = (view.my_pe - lroot + L) % L;
    const char *from = root ? a->src : a->dest;
    shr_coll_args_t la = *a;
    la.root = lroot;
    la.root_dest = false; /* the root's own dest: below */

    if (a->len <= shr_coll_eager_max() && shr_coll_slot_size(&sub, a->len, 1) != 0 &&
        forced == LB_AUTO) {
        shr_coll_bcast_eager(&sub, &la);
        bcast_node_chunk(c, &h, a, from, 0, a->len, push, 0);
    } else {
        lb_algo_t algo = lb_choose(&sub, a->len, forced);
        int kids[32], n_kids = 0;
        if (algo == LB_CHAIN) {
            if (r + 1 < L) {
                kids[n_kids++] = (lroot + r + 1) % L;
            }
        } else {
            /* binomial: children r + m for each m below r's lowest set bit
             * (the root: every power of two below L), farthest first */
            int low = 1;
            while (low < L && !(r & low)) {
                low <<= 1;
            }
            for (int m = low >> 1; m > 0; m >>= 1) {
                if (r + m < L) {
                    kids[n_kids++] = (lroot + r + m) % L;
                }
            }
        }
        bool pending = false;
        for (uint64_t j = 0; j < chunks; j++) {
            size_t off = j * unit, len = a->len - off < unit ? a->len - off : unit;
            if (r != 0) {
                shr_coll_wait_ge(&sub, &sub.sync[SHR_CW_STAGE], j + 1);
            }
            for (int k = 0; k < n_kids; k++) {
                shr_hier_put_pipe(&sub, (char *)a->dest + off, from + off, len, kids[k],
                                  &pending);
                shr_coll_add(&sub, kids[k], SHR_CW_STAGE, 1);
            }
            bcast_node_chunk(c, &h, a, from, off, len, push, j);
        }
        if (r != 0) {
            __atomic_fetch_sub(&sub.sync[SHR_CW_STAGE], chunks, __ATOMIC_RELAXED);
        }
        if (pending) {
            for (int k = 0; k < n_kids; k++) {
                kids[k] = shr_coll_wpe(&sub, kids[k]);
            }
            shr_quiet_pes(shr_ctx_default, kids, (size_t)n_kids); /* our source is reusable */
        }
    }
    if (pes != pes_stack) {
        free(pes);
    }
    if (push) {
        shr_hier_down_all(c, &h, 1);
    }
    if (root && a->root_dest) {
        shr_coll_copy_local(a->dest, a->src, a->len);
    }
    if (!push) {
        shr_hier_done_wait(c, &h); /* the members read our buffer until now */
    }
}

void shr_coll_bcast_hier(shr_coll_t *c, const shr_coll_args_t *a)
{
    bcast_hier_run(c, a, LB_AUTO);
}

void shr_coll_bcast_hier_tree(shr_coll_t *c, const shr_coll_args_t *a)
{
    bcast_hier_run(c, a, LB_TREE);
}

void shr_coll_bcast_hier_chain(shr_coll_t *c, const shr_coll_args_t *a)
{
    bcast_hier_run(c, a, LB_CHAIN);
}
