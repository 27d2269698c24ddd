/*
 * coll_hier_collect.c -- hierarchical collect, fcollect and alltoall(s)
 * (coll_hier_int.h has the node-phase signals, coll_hier.c the plans).
 *
 *   fcollect  members write their block into their leader's dest (its final
 *             place) and arrive; the leaders allgather the node blocks
 *             straight into each other's dests:
 *               dissem  ceil(log2 L) rounds; in round r a leader sends
 *                       what it holds (its node and the 2^r - 1 nodes after
 *                       it) to the leader 2^r before it (small data)
 *               ring    L - 1 steps around the ring of leaders, forwarding
 *                       each node's data in SHR_HIER_PIPE chunks as they
 *                       arrive (large data, more than 2 leaders)
 *             then the leader writes every member's dest (small totals) or
 *             the members copy from its dest in parallel (large).  Network
 *             bytes per node: the other nodes' data once, not once per PE.
 *   collect   the same, after the sizes: members publish theirs, leaders
 *             exchange their nodes' sizes in slots, and the leader copies
 *             its members' blocks into place (sizes travel before data).
 *   alltoall  node aggregation for small blocks: the leader packs every
 *             block its node sends to another node into one slot write to
 *             that node's leader, which unpacks them into its members'
 *             dests; blocks within a node are copied through the mapping.
 *             One message per pair of nodes instead of one per pair of PEs.
 *             Larger blocks gain nothing from aggregation (each block still
 *             crosses the network once, plus two copies) and run the flat
 *             push.
 * A node's blocks are "runs" of consecutive members; with block placement a
 * node is one run, with cyclic placement every member is a run of its own.
 */
#include <stdlib.h>

#include "coll/coll_hier_int.h"
#include "core/check.h"

typedef enum { LG_AUTO, LG_DISSEM, LG_RING } lg_algo_t;

/* Byte offsets of every member's block in dest: off[m] .. off[m + 1]. */
typedef struct layout {
    const shr_hier_plan_t *p;
    const size_t *off;
} layout_t;

/* Puts byte ranges of dest to the same place at leader `to`, merging
 * ranges that follow each other into one put. */
typedef struct piece_sink {
    shr_coll_t *sub;
    char *dest;
    int to;
    size_t at, len; /* the range being merged */
} piece_sink_t;

static void sink_flush(piece_sink_t *s)
{
    if (s->len != 0) {
        shr_coll_put(s->sub, s->dest + s->at, s->dest + s->at, s->len, s->to);
    }
    s->len = 0;
}

static void sink_add(piece_sink_t *s, size_t at, size_t len)
{
    if (len == 0) {
        return;
    }
    if (s->len != 0 && s->at + s->len == at) {
        s->len += len;
    } else {
        sink_flush(s);
        s->at = at;
        s->len = len;
    }
}

/* Node k's byte runs, in member order. */
static void node_runs(const layout_t *lay, int k, piece_sink_t *s)
{
    const shr_hier_plan_t *p = lay->p;

    for (int i = p->first[k]; i < p->first[k + 1];) {
        int m = p->members[i], j = i + 1;
        while (j < p->first[k + 1] && p->members[j] == p->members[j - 1] + 1) {
            j++;
        }
        int last = p->members[j - 1];
        sink_add(s, lay->off[m], lay->off[last + 1] - lay->off[m]);
        i = j;
    }
}

/* Node k's runs cut into pieces of at most `cut` bytes: returns their
 * count; with `send`, also puts them to leader `to` one by one, each
 * followed by a STAGE signal, piece j only once my STAGE count has reached
 * base + j + 1 (it has arrived here; base UINT64_MAX: my own node). */
static uint64_t node_pieces(const layout_t *lay, int k, size_t cut, shr_coll_t *sub, char *dest,
                            int to, uint64_t base, bool *pending_p)
{
    bool send = pending_p != NULL;
    const shr_hier_plan_t *p = lay->p;
    uint64_t j = 0;

    for (int i = p->first[k]; i < p->first[k + 1];) {
        int m = p->members[i], e = i + 1;
        while (e < p->first[k + 1] && p->members[e] == p->members[e - 1] + 1) {
            e++;
        }
        size_t at = lay->off[m], end = lay->off[p->members[e - 1] + 1];
        for (; at < end; at += cut, j++) {
            size_t len = end - at < cut ? end - at : cut;
            if (send) {
                if (base != UINT64_MAX) {
                    shr_coll_wait_ge(sub, &sub->sync[SHR_CW_STAGE], base + j + 1);
                }
                shr_hier_put_pipe(sub, dest + at, dest + at, len, to, pending_p);
                shr_coll_add(sub, to, SHR_CW_STAGE, 1);
            }
        }
        i = e;
    }
    return j;
}

static void leaders_ag_dissem(shr_coll_t *sub, const layout_t *lay, char *dest)
{
    int L = sub->team->n_pes, k = sub->team->my_pe;

    for (int r = 0, dist = 1; dist < L; r++, dist <<= 1) {
        int to = (k - dist + L) % L, cnt = dist < L - dist ? dist : L - dist;
        piece_sink_t s = {.sub = sub, .dest = dest, .to = to};
        for (int t = 0; t < cnt; t++) {
            node_runs(lay, (k + t) % L, &s);
        }
        sink_flush(&s);
        shr_coll_add(sub, to, SHR_CR_DISSEM + (size_t)r, 1);
        shr_coll_take(sub, SHR_CR_DISSEM + (size_t)r, 1);
    }
}

static void leaders_ag_ring(shr_coll_t *sub, const layout_t *lay, char *dest)
{
    int L = sub->team->n_pes, k = sub->team->my_pe, next = (k + 1) % L;
    uint64_t base = 0;
    bool pending = false;

    /* step s: forward node k-s, received in step s-1 from the predecessor */
    for (int s = 0; s < L - 1; s++) {
        int x = (k - s + L) % L;
        node_pieces(lay, x, SHR_HIER_PIPE, sub, dest, next, s == 0 ? UINT64_MAX : base,
                    &pending);
        if (s > 0) {
            base += node_pieces(lay, x, SHR_HIER_PIPE, NULL, NULL, 0, 0, NULL);
        }
    }
    /* the last node to arrive: k+1 */
    base += node_pieces(lay, next, SHR_HIER_PIPE, NULL, NULL, 0, 0, NULL);
    shr_coll_take(sub, SHR_CW_STAGE, base);
    if (pending) {
        int pe = shr_coll_wpe(sub, next);
        shr_quiet_pes(shr_ctx_default, &pe, 1); /* before anyone may change our dest */
    }
}

/* The leaders' allgather and the node's copies of the result (the leader's
 * dest holds its node's blocks; `total` bytes in all). */
static void gather_leader(shr_coll_t *c, const shr_hier_t *h, const layout_t *lay,
                          char *dest, size_t total, lg_algo_t forced)
{
    shr_team_t view;
    shr_coll_t sub;
    int pes[1];
    bool push = total * (size_t)(h->n_local - 1) <= SHR_HIER_PUSH_MAX;

    shr_hier_leaders(c, h, &view, pes, &sub);
    lg_algo_t algo = forced;
    if (algo == LG_AUTO) {
        algo = total >= 2 * SHR_HIER_PIPE && view.n_pes > 2 ? LG_RING : LG_DISSEM;
    }
    if (algo == LG_RING) {
        leaders_ag_ring(&sub, lay, dest);
    } else {
        leaders_ag_dissem(&sub, lay, dest);
    }
    for (int i = 0; i < h->n_local; i++) {
        int m = h->local[i];
        if (m == h->leader) {
            continue;
        }
        /* VAL: 0 = pushed, else the bytes to copy + 1 */
        if (push && total != 0) { /* dest may be NULL when nobody gives data */
            memcpy(shr_ptr(dest, shr_coll_wpe(c, m)), dest, total);
        }
        *shr_hier_word(c, h, m, h->val) = push ? 0 : total + 1;
        shr_hier_down(c, h, i, 1);
    }
    if (!push) {
        shr_hier_done_wait(c, h);
    }
}

/* A member after arriving: the result, pushed by the leader or copied from
 * its dest. */
static void gather_member(shr_coll_t *c, const shr_hier_t *h, char *dest)
{
    shr_hier_down_wait(c, h, 1);
    shr_hier_down_end(c, h, 1);
    uint64_t v = h->nw[h->val];
    h->nw[h->val] = 0;
    if (v != 0) {
        memcpy(dest, shr_ptr(dest, shr_coll_wpe(c, h->leader)), v - 1);
        shr_hier_done(c, h);
    }
}

static void fcollect_hier_run(shr_coll_t *c, const shr_coll_args_t *a, lg_algo_t forced)
{
    shr_hier_t h;
    size_t off_stack[65], *off = off_stack;
    char *dest = a->dest;

    if (!shr_hier_begin(c, -1, &h)) {
        shr_coll_fcollect_push(c, a);
        return;
    }
    shr_coll_ran(c, forced == LG_RING ? shr_coll_fcollect_hier_ring : shr_coll_fcollect_hier);
    c->full = true;
    /* my block, in its final place in the leader's dest (already there when
     * I lead and my source is that block: in place) */
    shr_coll_copy_local((char *)shr_ptr(dest, shr_coll_wpe(c, h.leader)) +
                            (size_t)c->team->my_pe * a->len,
                        a->src, a->len);
    if (!h.is_leader) {
        shr_hier_up(c, &h);
        gather_member(c, &h, dest);
        return;
    }
    int n = c->team->n_pes;
    if (n + 1 > (int)SHR_ARRAY_SIZE(off_stack)) {
        off = malloc(((size_t)n + 1) * sizeof(size_t));
        if (off == NULL) {
            shr_check_fail(c->fn, "out of memory for %d offsets", n);
        }
    }
    for (int m = 0; m <= n; m++) {
        off[m] = (size_t)m * a->len;
    }
    layout_t lay = {h.p, off};
    shr_hier_up_wait(c, &h);
    gather_leader(c, &h, &lay, dest, off[n], forced);
    if (off != off_stack) {
        free(off);
    }
}

void shr_coll_fcollect_hier(shr_coll_t *c, const shr_coll_args_t *a)
{
    fcollect_hier_run(c, a, LG_AUTO);
}

void shr_coll_fcollect_hier_ring(shr_coll_t *c, const shr_coll_args_t *a)
{
    fcollect_hier_run(c, a, LG_RING);
}

/* collect: slot words for every leader's record of its members' sizes, or
 * 0 when they do not fit (every PE computes the same). */
static size_t sizes_slot(const shr_hier_t *h, const shr_coll_t *sub)
{
    return shr_coll_slot_size(sub, (size_t)h->p->local_max * sizeof(uint64_t),
                              (size_t)h->p->n_nodes - 1);
}

static void collect_hier_run(shr_coll_t *c, const shr_coll_args_t *a, lg_algo_t forced)
{
    shr_hier_t h;
    shr_team_t view;
    shr_coll_t sub;
    int pes[1];
    size_t off_stack[65], *off = off_stack;
    uint64_t rec[SHR_COLL_REGION_SLOT_LINES * SHR_SYNC_LINE];

    if (!shr_hier_begin(c, -1, &h)) {
        shr_coll_collect_flat(c, a);
        return;
    }
    shr_hier_leaders(c, &h, &view, pes, &sub);
    size_t sw = sizes_slot(&h, &sub);
    if (sw == 0 || (size_t)h.p->local_max > SHR_ARRAY_SIZE(rec)) {
        shr_coll_collect_flat(c, a); /* too many sizes for the leaders' slots */
        return;
    }
    shr_coll_ran(c, forced == LG_RING ? shr_coll_collect_hier_ring : shr_coll_collect_hier);
    c->full = true;
    if (!h.is_leader) {
        h.nw[SHR_HW_MYVAL] = a->len + 1;
        shr_hier_up(c, &h);
        gather_member(c, &h, a->dest);
        return;
    }
    const shr_hier_plan_t *p = h.p;
    int n = c->team->n_pes, L = p->n_nodes, k = p->my_node;
    if (n + 1 > (int)SHR_ARRAY_SIZE(off_stack)) {
        off = malloc(((size_t)n + 1) * sizeof(size_t));
        if (off == NULL) {
            shr_check_fail(c->fn, "out of memory for %d offsets", n);
        }
    }
    /* my node's sizes (the leader is the first member), to every leader */
    shr_hier_up_wait(c, &h);
    for (int i = 0; i < h.n_local; i++) {
        uint64_t *mv = shr_hier_word(c, &h, h.local[i], SHR_HW_MYVAL);
        rec[i] = i == 0 ? a->len : *mv - 1;
        off[h.local[i]] = rec[i];
        if (i != 0 && c->psync != NULL) {
            *mv = 0;
        }
    }
    for (int t = 1; t < L; t++) {
        int to = (k + t) % L;
        shr_coll_slot_send(&sub, to, shr_coll_slot_of(k, to), sw, 1, rec,
                           (size_t)h.n_local * sizeof(uint64_t));
    }
    for (int t = 1; t < L; t++) {
        int from = (k + L - t) % L;
        size_t slot = shr_coll_slot_of(from, k);
        int cnt = p->first[from + 1] - p->first[from];
        shr_coll_slot_wait(&sub, slot, sw);
        const uint64_t *theirs =
            shr_coll_slot_payload(&sub, slot, sw, (size_t)cnt * sizeof(uint64_t));
        for (int i = 0; i < cnt; i++) {
            off[p->members[p->first[from] + i]] = theirs[i];
        }
        shr_coll_slot_clear(&sub, slot, sw, (size_t)cnt * sizeof(uint64_t));
    }
    /* sizes -> offsets */
    size_t at = 0;
    for (int m = 0; m < n; m++) {
        size_t len = off[m];
        off[m] = at;
        at += len;
    }
    off[n] = at;
    /* my node's blocks into place (the leader is h.local[0]) */
    for (int i = 0; i < h.n_local; i++) {
        int m = h.local[i];
        const void *src = shr_coll_src_of(a, off[h.local[0]], off[m]);
        const void *from = i == 0 ? a->src : shr_ptr(src, shr_coll_wpe(c, m));
        shr_coll_copy_local((char *)a->dest + off[m], from, off[m + 1] - off[m]);
    }
    layout_t lay = {p, off};
    gather_leader(c, &h, &lay, a->dest, at, forced);
    if (off != off_stack) {
        free(off);
    }
}

void shr_coll_collect_hier(shr_coll_t *c, const shr_coll_args_t *a)
{
    collect_hier_run(c, a, LG_AUTO);
}

void shr_coll_collect_hier_ring(shr_coll_t *c, const shr_coll_args_t *a)
{
    collect_hier_run(c, a, LG_RING);
}

/* ---- alltoall(s) ---- */

/* Copies one block of `nelems` elements between strides (in elements). */
static void block_copy(char *dest, ptrdiff_t ds, const char *src, ptrdiff_t ss,
                       const shr_coll_args_t *a)
{
    if (ds == 1 && ss == 1) {
        memcpy(dest, src, a->nelems * a->elem);
        return;
    }
    for (size_t e = 0; e < a->nelems; e++) {
        memcpy(dest + (size_t)ds * e * a->elem, src + (size_t)ss * e * a->elem, a->elem);
    }
}

/* member i's source block for member j, and member j's dest block from i,
 * through the mapping */
static const char *a2a_src(const shr_coll_t *c, const shr_coll_args_t *a, int i, int j)
{
    return (const char *)shr_ptr(a->src, shr_coll_wpe(c, i)) +
           (size_t)j * a->nelems * (size_t)a->sst * a->elem;
}

static char *a2a_dest(const shr_coll_t *c, const shr_coll_args_t *a, int j, int i)
{
    return (char *)shr_ptr(a->dest, shr_coll_wpe(c, j)) +
           (size_t)i * a->nelems * (size_t)a->dst * a->elem;
}

void shr_coll_alltoall_hier(shr_coll_t *c, const shr_coll_args_t *a)
{
    size_t blk = a->nelems * a->elem;
    SHR_COLL_SCRATCH uint64_t packed[SHR_COLL_REGION_SLOT_LINES * SHR_SYNC_LINE];
    shr_hier_t h;
    shr_team_t view;
    shr_coll_t sub;
    int pes[1];

    if (!shr_hier_begin(c, -1, &h)) {
        shr_coll_alltoall_push(c, a);
        return;
    }
    const shr_hier_plan_t *p = h.p;
    size_t most = (size_t)p->local_max * (size_t)p->local_max * blk;
    shr_hier_leaders(c, &h, &view, pes, &sub);
    size_t sw = shr_coll_slot_size(&sub, most, (size_t)p->n_nodes - 1);
    if (sw == 0 || most > sizeof(packed) || blk > shr_coll_eager_max()) {
        /* aggregation pays only for small blocks: the flat choice */
        if (blk <= shr_coll_eager_max() && blk <= sizeof(packed) &&
            shr_coll_slot_size(c, blk, (size_t)c->team->n_pes - 1) != 0) {
            shr_coll_alltoall_eager(c, a);
        } else {
            shr_coll_alltoall_push(c, a);
        }
        return;
    }
    shr_coll_ran(c, shr_coll_alltoall_hier);
    c->full = true;
    if (!h.is_leader) {
        shr_hier_member_round(c, &h);
        return;
    }
    shr_hier_up_wait(c, &h);
    int L = p->n_nodes, k = p->my_node;
    const int *mine = h.local;
    for (int t = 1; t < L; t++) {
        int to = (k + t) % L;
        const int *theirs = p->members + p->first[to];
        int cnt = p->first[to + 1] - p->first[to];
        char *at = (char *)packed;
        for (int jj = 0; jj < cnt; jj++) {
            for (int ii = 0; ii < h.n_local; ii++, at += blk) {
                block_copy(at, 1, a2a_src(c, a, mine[ii], theirs[jj]), a->sst, a);
            }
        }
        shr_coll_slot_send(&sub, to, shr_coll_slot_of(k, to), sw, 1, packed,
                           (size_t)(at - (char *)packed));
    }
    for (int jj = 0; jj < h.n_local; jj++) {
        for (int ii = 0; ii < h.n_local; ii++) {
            block_copy(a2a_dest(c, a, mine[jj], mine[ii]), a->dst,
                       a2a_src(c, a, mine[ii], mine[jj]), a->sst, a);
        }
    }
    for (int t = 1; t < L; t++) {
        int from = (k + L - t) % L;
        const int *theirs = p->members + p->first[from];
        int cnt = p->first[from + 1] - p->first[from];
        size_t slot = shr_coll_slot_of(from, k);
        shr_coll_slot_wait(&sub, slot, sw);
        const char *at =
            shr_coll_slot_payload(&sub, slot, sw, (size_t)cnt * (size_t)h.n_local * blk);
        for (int jj = 0; jj < h.n_local; jj++) {
            for (int ii = 0; ii < cnt; ii++, at += blk) {
                block_copy(a2a_dest(c, a, mine[jj], theirs[ii]), a->dst, at, 1, a);
            }
        }
        shr_coll_slot_clear(&sub, slot, sw, (size_t)cnt * (size_t)h.n_local * blk);
    }
    shr_hier_down_all(c, &h, 1);
}
