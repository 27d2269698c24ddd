/*
 * coll_hier.c -- hierarchical collectives, for teams that span nodes with
 * more than one member on some node: a node-local phase through the shared
 * mappings (loads, stores, CPU atomics), one leader per node over the remote
 * transport, and node-local again.  Network traffic is per node, not per PE.
 *
 *   barrier  members add to their leader's arrival counter and wait for
 *            its release; leaders run a dissemination barrier among
 *            themselves (ceil(log2 nodes) rounds), then release their
 *            members.  Epoch flags, like the flat barriers, on the same
 *            team lines (a team always uses one barrier algorithm).
 *   bcast    the root leads its node; leaders broadcast among themselves
 *            with the engine's algorithms (eager into a slot for small
 *            data, binomial tree of puts above; pipelined chain for large
 *            data over few leaders), each leader then pushes the data into
 *            its members' dest through the mapping and flags them.
 *   reduce   each leader combines its members' sources, read in place
 *            through the mapping, into its dest; leaders reduce among
 *            themselves in place (engine: eager for small vectors, else
 *            reduce-scatter + allgather or a tree); each leader pushes the
 *            result into its members' dest and flags them.
 *
 * Leaders: the lowest member of each node in team order (broadcast: the root
 * for the root's node).  The leaders' phase runs on a stack view team made of
 * the leaders, with the call's ring region as its words: only leaders touch
 * them.  Node-local phases use two words of each PE's hierarchy line
 * (SHR_TA_HIER): an arrival counter on the leader (members ADD, the leader
 * waits and subtracts: early arrivals of a next call survive) and a release
 * flag on each member (the call's number; only grows).
 *
 * Not hierarchical (flat algorithms over every member, correct on any
 * layout): active-set forms (pSync has no room for the node phases),
 * collect/fcollect, alltoall(s) and scan (their data is per member pair or
 * in member order, so node aggregation saves no transfer).
 */
#include <stdlib.h>

#include "coll/coll_int.h"
#include "core/check.h"

#define HIER_UP   (SHR_TA_HIER + 0)               /* leader: members arrived (counter) */
#define HIER_DOWN (SHR_TA_HIER + SHR_SYNC_LINE)   /* member: released for call N (flag) */

/* A team call's node structure. */
typedef struct hier {
    int n_nodes;
    int my_node;        /* index in leaders[] */
    int n_local;
    int my_local;       /* index in local[] (0 = the leader) */
    int *local;         /* members of my node, leader first, then team order */
    int *leaders;       /* each node's leader, in team order of the nodes' first members */
    int stack[2][64];
    bool heap;
} hier_t;

/* The node of world PE `pe` as a number shared by the node's PEs. */
static int node_key(int pe)
{
    return shr_g.node_of != NULL ? shr_g.node_of[pe] : pe;
}

static void hier_free(hier_t *h)
{
    if (h->heap) {
        free(h->local);
        free(h->leaders);
    }
}

/* Builds h for `team`; `root` (>= 0) leads its node.  False when the team
 * is not worth a hierarchy (one node, or one member per node). */
static bool hier_plan(const shr_team_t *team, int root, hier_t *h)
{
    int n = team->n_pes, me = team->my_pe;
    int my_key = node_key(shr_team_world_pe(team, me));
    size_t cap = 16;

    while (cap < 2 * (size_t)n) {
        cap <<= 1;
    }
    int *keys = malloc(cap * 2 * sizeof(int)); /* open hash: key, node index */
    memset(h, 0, sizeof(*h));
    if (n <= 64) {
        h->local = h->stack[0];
        h->leaders = h->stack[1];
    } else {
        h->local = malloc((size_t)n * sizeof(int));
        h->leaders = malloc((size_t)n * sizeof(int));
        h->heap = true;
    }
    if (keys == NULL || h->local == NULL || h->leaders == NULL) {
        free(keys);
        hier_free(h);
        return false; /* no memory: the flat algorithms need none */
    }
    for (size_t i = 0; i < cap; i++) {
        keys[2 * i] = -1;
    }
    h->n_local = 1;
    h->local[0] = -1;
    for (int m = 0; m < n; m++) {
        int key = node_key(shr_team_world_pe(team, m));
        size_t i = (size_t)key * 2654435761u & (cap - 1);
        while (keys[2 * i] != -1 && keys[2 * i] != key) {
            i = (i + 1) & (cap - 1);
        }
        if (keys[2 * i] == -1) {
            keys[2 * i] = key;
            keys[2 * i + 1] = h->n_nodes;
            h->leaders[h->n_nodes++] = m;
        }
        int node = keys[2 * i + 1];
        if (root >= 0 && m == root) {
            h->leaders[node] = m; /* the root leads its node */
        }
        if (key == my_key) {
            h->my_node = node;
            if (h->local[0] == -1) {
                h->local[0] = m; /* provisional leader */
            } else {
                h->local[h->n_local++] = m;
            }
        }
    }
    free(keys);
    /* leader first in local[]: the root may have displaced the lowest member */
    int leader = h->leaders[h->my_node];
    for (int i = 1; i < h->n_local; i++) {
        if (h->local[i] == leader) {
            h->local[i] = h->local[0];
            h->local[0] = leader;
            break;
        }
    }
    for (int i = 0; i < h->n_local; i++) {
        if (h->local[i] == me) {
            h->my_local = i;
        }
    }
    if (h->n_nodes < 2 || h->n_nodes == n) {
        hier_free(h);
        return false;
    }
    return true;
}

bool shr_coll_hier_wanted(shr_coll_t *c)
{
    shr_coll_state_t *st;
    hier_t h;

    /* active sets, teams on one node (or all of them local), and the views
     * this file builds (one member per node) stay flat */
    if (c->psync != NULL || c->nested || !shr_g.needs_progress) {
        return false;
    }
    st = (shr_coll_state_t *)c->team->sync;
    if (st->hier == 0) {
        bool yes = hier_plan(c->team, -1, &h);
        if (yes) {
            hier_free(&h);
        }
        st->hier = yes ? 1 : 2;
    }
    return st->hier == 1;
}

/* The word `w` of member m's hierarchy lines, through the mapping (members
 * of one node share memory by construction). */
static uint64_t *hier_word(const shr_coll_t *c, int m, size_t w)
{
    return shr_ptr(&c->team->sync[w], shr_coll_wpe(c, m));
}

/* Members: arrive at the leader (after the source is ready). */
static void hier_arrive(const shr_coll_t *c, const hier_t *h)
{
    __atomic_fetch_add(hier_word(c, h->local[0], HIER_UP), 1, __ATOMIC_RELEASE);
}

/* Leader: wait for every member, consume their arrivals. */
static void hier_gather(shr_coll_t *c, const hier_t *h)
{
    uint64_t want = (uint64_t)h->n_local - 1;
    uint64_t *up = &c->team->sync[HIER_UP];

    shr_coll_wait_ge(c, up, want);
    __atomic_fetch_sub(up, want, __ATOMIC_RELAXED);
}

/* Leader: copy `len` bytes from `from` into every member's `dest` (a
 * symmetric address), then release them for call `seq`. */
static void hier_push(shr_coll_t *c, const hier_t *h, void *dest, const void *from, size_t len,
                      uint64_t seq)
{
    for (int i = 1; i < h->n_local; i++) {
        void *to = shr_ptr(dest, shr_coll_wpe(c, h->local[i]));
        if (len != 0 && to != from) {
            memcpy(to, from, len);
        }
        __atomic_store_n(hier_word(c, h->local[i], HIER_DOWN), seq, __ATOMIC_RELEASE);
    }
}

/* The leaders as a team of their own, with the call's words. */
static void hier_leaders_call(const shr_coll_t *c, const hier_t *h, shr_team_t *view,
                              shr_coll_t *sub)
{
    memset(view, 0, sizeof(*view));
    view->n_pes = h->n_nodes;
    view->my_pe = h->my_node;
    view->world_pes = malloc((size_t)h->n_nodes * sizeof(int));
    view->magic = SHR_TEAM_MAGIC;
    view->sync = c->team->sync; /* hang reports read the parent's debug line */
    for (int k = 0; k < h->n_nodes && view->world_pes != NULL; k++) {
        view->world_pes[k] = shr_coll_wpe(c, h->leaders[k]);
    }
    *sub = *c;
    sub->team = view;
    sub->all_local = false;
    sub->nested = true; /* one member per node: never hierarchical again */
}

/* ---- barrier ---- */

void shr_coll_barrier_hier(shr_coll_t *c, const shr_coll_args_t *a)
{
    uint64_t epoch = c->seq;
    hier_t h;

    if (c->psync != NULL || !hier_plan(c->team, -1, &h)) {
        shr_coll_barrier_dissem(c, a);
        return;
    }
    if (h.my_local != 0) {
        __atomic_fetch_add(hier_word(c, h.local[0], SHR_TA_BAR_COUNT), 1, __ATOMIC_RELEASE);
        shr_coll_wait_ge(c, &c->sync[SHR_TA_BAR_RELEASE], epoch);
        hier_free(&h);
        return;
    }
    /* leader: the epoch's arrivals (cumulative: epoch * members) */
    shr_coll_wait_ge(c, &c->sync[SHR_TA_BAR_COUNT], epoch * (uint64_t)(h.n_local - 1));
    for (int r = 0, dist = 1; dist < h.n_nodes; r++, dist <<= 1) {
        size_t word = SHR_TA_DISSEM + (size_t)r * SHR_SYNC_LINE;
        int to = h.leaders[(h.my_node + dist) % h.n_nodes];
        uint64_t *mapped = shr_ptr(&c->sync[word], shr_coll_wpe(c, to));
        if (mapped != NULL) {
            __atomic_store_n(mapped, epoch, __ATOMIC_RELEASE);
        } else {
            shr_fence(shr_ctx_default);
            shr_amo(shr_ctx_default, SHR_AMO_SET, &c->sync[word], epoch, 0, sizeof(uint64_t),
                    shr_coll_wpe(c, to));
        }
        shr_coll_wait_ge(c, &c->sync[word], epoch);
    }
    for (int i = 1; i < h.n_local; i++) {
        __atomic_store_n(hier_word(c, h.local[i], SHR_TA_BAR_RELEASE), epoch, __ATOMIC_RELEASE);
    }
    c->full = true;
    hier_free(&h);
}

/* ---- broadcast ---- */

/* Pipelined chain among leaders for large data: leader k forwards chunk j
 * to leader k+1 as soon as it has it.  Chunks are counted on the
 * receiver's SHR_CW_STAGE word (consumed at the end, words left zero). */
#define PIPE_CHUNK ((size_t)256 << 10)
#define PIPE_MIN   ((size_t)1 << 20)

static void bcast_pipeline(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, r = (c->team->my_pe - a->root + n) % n;
    size_t chunks = (a->len + PIPE_CHUNK - 1) / PIPE_CHUNK;
    int next = (c->team->my_pe + 1) % n;
    const void *from = r == 0 ? a->src : a->dest;

    for (size_t j = 0; j < chunks; j++) {
        size_t off = j * PIPE_CHUNK, len = a->len - off < PIPE_CHUNK ? a->len - off : PIPE_CHUNK;
        if (r != 0) {
            shr_coll_wait_ge(c, &c->sync[SHR_CW_STAGE], j + 1);
        }
        if (r != n - 1) {
            shr_coll_put(c, (char *)a->dest + off, (const char *)from + off, len, next);
            shr_coll_add(c, next, SHR_CW_STAGE, 1);
        }
    }
    if (r != 0) {
        __atomic_fetch_sub(&c->sync[SHR_CW_STAGE], chunks, __ATOMIC_RELAXED);
    } else if (a->root_dest) {
        shr_coll_copy_local(a->dest, a->src, a->len);
    }
}

void shr_coll_bcast_hier(shr_coll_t *c, const shr_coll_args_t *a)
{
    hier_t h;

    if (c->psync != NULL || !hier_plan(c->team, a->root, &h)) {
        shr_coll_bcast_tree(c, a);
        return;
    }
    if (h.my_local != 0) {
        shr_coll_wait_ge(c, &c->team->sync[HIER_DOWN], c->seq);
        hier_free(&h);
        return;
    }
    /* leaders: the root's node first had it all along */
    shr_team_t view;
    shr_coll_t sub;
    hier_leaders_call(c, &h, &view, &sub);
    if (view.world_pes == NULL) {
        shr_check_fail(c->fn, "out of memory for the leaders of %d nodes", h.n_nodes);
    }
    bool root = c->team->my_pe == a->root;
    int lroot = 0;
    for (int k = 0; k < h.n_nodes; k++) {
        lroot = h.leaders[k] == a->root ? k : lroot;
    }
    /* the root's own dest: written below with its members' (team form) */
    shr_coll_args_t la = *a;
    la.root = lroot;
    la.root_dest = a->root_dest;
    if (a->len <= shr_coll_eager_max() && shr_coll_slot_size(&sub, a->len, 1) != 0) {
        shr_coll_bcast_eager(&sub, &la);
    } else if (a->len >= PIPE_MIN && h.n_nodes <= 8) {
        bcast_pipeline(&sub, &la);
    } else {
        shr_coll_bcast_tree(&sub, &la);
    }
    free(view.world_pes);
    hier_push(c, &h, a->dest, root ? a->src : a->dest, a->len, c->seq);
    hier_free(&h);
}

/* ---- reduce ---- */

#define CHUNK 4096

void shr_coll_reduce_hier(shr_coll_t *c, const shr_coll_args_t *a)
{
    size_t elem = shr_dtype_size(a->dt), bytes = a->count * elem;
    hier_t h;

    if (c->psync != NULL || !hier_plan(c->team, -1, &h)) {
        shr_coll_reduce_tree(c, a);
        return;
    }
    if (h.my_local != 0) {
        hier_arrive(c, &h);
        shr_coll_wait_ge(c, &c->team->sync[HIER_DOWN], c->seq);
        c->full = true;
        hier_free(&h);
        return;
    }
    /* leader: dest = own source op each member's, in node order, read in
     * place through the mapping */
    shr_coll_op_fn_t op = shr_coll_op_fn(a->dt, a->op);
    if (h.n_local > 1) {
        hier_gather(c, &h);
    }
    size_t step = CHUNK / elem * elem;
    for (size_t off = 0; off < bytes; off += step) {
        size_t len = bytes - off < step ? bytes - off : step;
        char *z = (char *)a->dest + off;
        const char *x = (const char *)a->src + off;
        for (int i = 1; i < h.n_local; i++) {
            const char *y = (const char *)shr_ptr(a->src, shr_coll_wpe(c, h.local[i])) + off;
            op(z, x, y, len / elem);
            x = z;
        }
        if (h.n_local == 1) {
            shr_coll_copy_local(z, x, len);
        }
    }
    /* leaders: in place on their dests */
    shr_team_t view;
    shr_coll_t sub;
    hier_leaders_call(c, &h, &view, &sub);
    if (view.world_pes == NULL) {
        shr_check_fail(c->fn, "out of memory for the leaders of %d nodes", h.n_nodes);
    }
    shr_coll_args_t la = *a;
    la.src = a->dest;
    if (bytes <= shr_coll_eager_max() &&
        shr_coll_slot_size(&sub, bytes, (size_t)h.n_nodes - 1) != 0) {
        shr_coll_reduce_eager(&sub, &la);
    } else {
        shr_coll_reduce_tree(&sub, &la);
    }
    free(view.world_pes);
    hier_push(c, &h, a->dest, a->dest, bytes, c->seq);
    c->full = true;
    hier_free(&h);
}
