/*
 * coll_hier_reduce.c -- hierarchical reductions and scans (coll_hier_int.h
 * has the node-phase signals, coll_hier.c the plans).
 *
 *   reduce  node phase: up to SHR_HIER_PUSH_MAX bytes the leader combines
 *           its members' sources, read in place through the mapping, into
 *           its dest and later writes the result into theirs; above, every
 *           member combines one slice of the node's sources into the
 *           leader's dest, and copies the result from it at the end (the
 *           node's members work in parallel).  Leaders, in place on their
 *           dests:
 *             eager  every leader's vector in a slot of every other (one
 *                    message time; up to 4 leaders, small vectors)
 *             rd     recursive doubling through slots: ceil(log2 L) rounds
 *                    (+1 to fold a non-power-of-two), small vectors
 *             tree   binomial reduce + broadcast, pulled (medium)
 *             ring   reduce-scatter + allgather around the ring of leaders,
 *                    pulled: each leader moves 2(L-1)/L of the vector
 *                    (large)
 *           Every element is combined exactly once along one order, so
 *           every PE gets the same bits.
 *   scan    nodes that are consecutive runs of members (block placement):
 *           the leader sums its node's sources; leaders exclusive-scan the
 *           node totals (engine: eager or pull); the leader writes each
 *           member's result (offset + the node's earlier sources).  Other
 *           layouts run the flat scans.
 */
#include <stdlib.h>

#include "coll/coll_hier_int.h"
#include "core/check.h"

typedef enum { LR_AUTO, LR_EAGER, LR_RD, LR_TREE, LR_RING } lr_algo_t;

/* ---- leaders: recursive doubling through slots ----
 * Slot 0: the fold of a non-power-of-two (leader P+k -> k, then back), slot
 * 1 + r: round r.  Partners combine (lower leader's, higher leader's), so
 * both get the same bits. */
static int rd_rounds(int L)
{
    int r = 0;
    while ((2 << r) <= L) {
        r++;
    }
    return r; /* log2 of the largest power of two <= L */
}

static size_t rd_slot(const shr_coll_t *sub, size_t bytes)
{
    return shr_coll_slot_size(sub, bytes, (size_t)rd_rounds(sub->team->n_pes) + 1);
}

static void leaders_rd(shr_coll_t *sub, const shr_coll_args_t *a, size_t sw)
{
    int L = sub->team->n_pes, k = sub->team->my_pe, rounds = rd_rounds(L), P = 1 << rounds;
    size_t bytes = a->count * shr_dtype_size(a->dt);
    shr_coll_op_fn_t op = shr_coll_op_fn(a->dt, a->op);
    char *v = a->dest;

    if (k >= P) {
        shr_coll_slot_send(sub, k - P, 0, sw, 1, v, bytes);
        shr_coll_slot_recv(sub, 0, sw, v, bytes);
        return;
    }
    if (k < L - P) {
        shr_coll_slot_wait(sub, 0, sw);
        op(v, v, shr_coll_slot_payload(sub, 0, sw, bytes), a->count);
        shr_coll_slot_clear(sub, 0, sw, bytes);
    }
    for (int r = 0; r < rounds; r++) {
        int partner = k ^ (1 << r);
        size_t slot = 1 + (size_t)r;
        shr_coll_slot_send(sub, partner, slot, sw, 1, v, bytes);
        shr_coll_slot_wait(sub, slot, sw);
        const void *theirs = shr_coll_slot_payload(sub, slot, sw, bytes);
        if (k < partner) {
            op(v, v, theirs, a->count);
        } else {
            op(v, theirs, v, a->count);
        }
        shr_coll_slot_clear(sub, slot, sw, bytes);
    }
    if (k < L - P) {
        shr_coll_slot_send(sub, k + P, 0, sw, 1, v, bytes);
    }
}

/* ---- leaders: ring reduce-scatter + allgather, pulled, in place ----
 * Slice i = elements [count*i/L, count*(i+1)/L).  Reduce-scatter step s:
 * leader k adds to its slice k-s-1 the partial of its predecessor, which
 * finished that slice in its step s-1; after L-1 steps leader k holds slice
 * k+1 complete.  Allgather step s: leader k copies slice k-s from its
 * predecessor.  STAGE counts the predecessor's "ready" signals (one before
 * its first step, one after each step that has a reader); DONE counts the
 * successor's reads of my dest: my slice k-s is overwritten in allgather
 * step s only after the successor read its partial (its reduce-scatter
 * step s), and I return after all 2(L-1) of its reads. */
static void leaders_ring(shr_coll_t *sub, const shr_coll_args_t *a)
{
    int L = sub->team->n_pes, k = sub->team->my_pe;
    int prev = (k + L - 1) % L, next = (k + 1) % L;
    size_t es = shr_dtype_size(a->dt), count = a->count;
    shr_coll_op_fn_t op = shr_coll_op_fn(a->dt, a->op);
    size_t buf_bytes = (count / (size_t)L + 1) * es;
    char *v = a->dest;

    buf_bytes = buf_bytes < SHR_HIER_PIPE ? buf_bytes : SHR_HIER_PIPE / es * es;
    char *buf = malloc(buf_bytes);
    if (buf == NULL) {
        shr_check_fail(sub->fn, "out of memory for a %zu-byte reduction buffer", buf_bytes);
    }
    shr_coll_add(sub, next, SHR_CW_STAGE, 1); /* my partial is ready */
    for (int s = 0; s < L - 1; s++) {
        int i = ((k - s - 1) % L + L) % L;
        size_t lo = count * (size_t)i / (size_t)L, hi = count * (size_t)(i + 1) / (size_t)L;
        shr_coll_take(sub, SHR_CW_STAGE, 1);
        for (size_t e = lo; e < hi; e += buf_bytes / es) {
            size_t ne = hi - e < buf_bytes / es ? hi - e : buf_bytes / es;
            shr_coll_get(sub, buf, v + e * es, ne * es, prev);
            op(v + e * es, buf, v + e * es, ne);
        }
        shr_coll_add(sub, prev, SHR_CW_DONE, 1);
        if (s < L - 2) {
            shr_coll_add(sub, next, SHR_CW_STAGE, 1);
        }
    }
    shr_coll_add(sub, next, SHR_CW_STAGE, 1); /* my slice k+1 is complete */
    for (int s = 0; s < L - 1; s++) {
        int i = ((k - s) % L + L) % L;
        size_t lo = count * (size_t)i / (size_t)L, hi = count * (size_t)(i + 1) / (size_t)L;
        shr_coll_take(sub, SHR_CW_STAGE, 1);
        /* the successor has read slice i's partial (its step s) */
        shr_coll_wait_ge(sub, &sub->sync[SHR_CW_DONE], (uint64_t)s + 1);
        shr_coll_get(sub, v + lo * es, v + lo * es, (hi - lo) * es, prev);
        shr_coll_add(sub, prev, SHR_CW_DONE, 1);
        if (s < L - 2) {
            shr_coll_add(sub, next, SHR_CW_STAGE, 1);
        }
    }
    shr_coll_take(sub, SHR_CW_DONE, 2 * (uint64_t)(L - 1));
    free(buf);
}

static lr_algo_t lr_choose(const shr_coll_t *sub, size_t bytes, lr_algo_t forced)
{
    int L = sub->team->n_pes;
    bool eager_ok = bytes <= shr_coll_eager_max() &&
                    shr_coll_slot_size(sub, bytes, (size_t)L - 1) != 0;

    if (forced == LR_RD && rd_slot(sub, bytes) == 0) {
        forced = LR_AUTO; /* does not fit the slots */
    }
    if (forced != LR_AUTO) {
        return forced;
    }
    if (eager_ok && L <= 4) {
        return LR_EAGER;
    }
    if (bytes <= shr_coll_eager_max() && rd_slot(sub, bytes) != 0) {
        return LR_RD;
    }
    if (eager_ok) {
        return LR_EAGER;
    }
    return bytes < SHR_HIER_PUSH_MAX ? LR_TREE : LR_RING;
}

/* The leaders' allreduce by `algo` (lr_choose), in place on their dests. */
static void leaders_allreduce(shr_coll_t *sub, const shr_coll_args_t *a, lr_algo_t algo)
{
    shr_coll_args_t la = *a;

    la.src = a->dest;
    switch (algo) {
    case LR_EAGER:
        shr_coll_reduce_eager(sub, &la);
        break;
    case LR_RD:
        leaders_rd(sub, &la, rd_slot(sub, a->count * shr_dtype_size(a->dt)));
        break;
    case LR_RING:
        leaders_ring(sub, &la);
        break;
    default:
        shr_coll_reduce_tree(sub, &la);
        break;
    }
}

/* z = the node members' copies of sym[off, off+len) combined in member
 * order (members local[from..]); z may be any member's memory. */
static void node_combine(const shr_coll_t *c, const shr_hier_t *h, shr_coll_op_fn_t op,
                         size_t es, char *z, const char *sym, size_t off, size_t len)
{
    const char *x = (const char *)shr_ptr(sym, shr_coll_wpe(c, h->local[0])) + off;

    for (int i = 1; i < h->n_local; i++) {
        const char *y = (const char *)shr_ptr(sym, shr_coll_wpe(c, h->local[i])) + off;
        op(z, x, y, len / es);
        x = z;
    }
    if (h->n_local == 1 && z != x) {
        memmove(z, x, len);
    }
}

static void reduce_hier_run(shr_coll_t *c, const shr_coll_args_t *a, lr_algo_t forced)
{
    size_t es = shr_dtype_size(a->dt), bytes = a->count * es;
    shr_coll_op_fn_t op = shr_coll_op_fn(a->dt, a->op);
    size_t step = SHR_HIER_CHUNK / es * es;
    shr_hier_t h;
    shr_team_t view;
    shr_coll_t sub;
    int pes[1];

    if (!shr_hier_begin(c, -1, &h)) {
        shr_coll_reduce_tree(c, a);
        return;
    }
    c->full = true;
    /* parallel node phases once the node's copies are worth sharing */
    bool parallel = bytes * (size_t)(h.n_local - 1) > SHR_HIER_PUSH_MAX;
    char *ldest = shr_ptr(a->dest, shr_coll_wpe(c, h.leader));

    if (parallel) {
        /* every member combines its slice of the node's sources into the
         * leader's dest, once all sources are ready */
        size_t lo = a->count * (size_t)h.my_local / (size_t)h.n_local;
        size_t hi = a->count * (size_t)(h.my_local + 1) / (size_t)h.n_local;
        if (h.is_leader) {
            shr_hier_up_wait(c, &h);
            shr_hier_down_all(c, &h, 1);
        } else {
            shr_hier_up(c, &h);
            shr_hier_down_wait(c, &h, 1);
        }
        for (size_t off = lo * es; off < hi * es; off += step) {
            size_t len = hi * es - off < step ? hi * es - off : step;
            node_combine(c, &h, op, es, ldest + off, a->src, off, len);
        }
        if (!h.is_leader) {
            shr_hier_up(c, &h);
            shr_hier_down_wait(c, &h, 2);
            shr_hier_down_end(c, &h, 2);
            memcpy(a->dest, ldest, bytes); /* the result, from the leader's dest */
            shr_hier_done(c, &h);
            return;
        }
        shr_hier_up_wait(c, &h);
    } else if (!h.is_leader) {
        shr_hier_member_round(c, &h);
        return;
    } else {
        shr_hier_up_wait(c, &h);
        for (size_t off = 0; off < bytes; off += step) {
            size_t len = bytes - off < step ? bytes - off : step;
            node_combine(c, &h, op, es, (char *)a->dest + off, a->src, off, len);
        }
    }
    /* leaders: in place on their dests */
    shr_hier_leaders(c, &h, &view, pes, &sub);
    lr_algo_t algo = lr_choose(&sub, bytes, forced);
    /* a forced leaders' algorithm that does not fit the call leaves it to hier */
    shr_coll_ran(c, algo != forced ? shr_coll_reduce_hier
                    : algo == LR_RD ? shr_coll_reduce_hier_rd : shr_coll_reduce_hier_ring);
    leaders_allreduce(&sub, a, algo);
    if (parallel) {
        shr_hier_down_all(c, &h, 2);
        shr_hier_done_wait(c, &h); /* they copy from our dest */
        return;
    }
    for (int i = 0; i < h.n_local; i++) {
        int m = h.local[i];
        if (m != h.leader) {
            memcpy(shr_ptr(a->dest, shr_coll_wpe(c, m)), a->dest, bytes);
            shr_hier_down(c, &h, i, 1);
        }
    }
}

void shr_coll_reduce_hier(shr_coll_t *c, const shr_coll_args_t *a)
{
    reduce_hier_run(c, a, LR_AUTO);
}

void shr_coll_reduce_hier_rd(shr_coll_t *c, const shr_coll_args_t *a)
{
    reduce_hier_run(c, a, LR_RD);
}

void shr_coll_reduce_hier_ring(shr_coll_t *c, const shr_coll_args_t *a)
{
    reduce_hier_run(c, a, LR_RING);
}

/* ---- scan ---- */

/* The flat scan for layouts the hierarchy does not handle. */
static void scan_flat(shr_coll_t *c, const shr_coll_args_t *a)
{
    size_t bytes = a->count * shr_dtype_size(a->dt);

    if (bytes <= shr_coll_eager_max() &&
        shr_coll_slot_size(c, bytes, (size_t)c->team->n_pes - 1) != 0) {
        shr_coll_scan_eager(c, a);
    } else {
        shr_coll_scan_pull(c, a);
    }
}

void shr_coll_scan_hier(shr_coll_t *c, const shr_coll_args_t *a)
{
    size_t es = shr_dtype_size(a->dt), bytes = a->count * es;
    shr_coll_op_fn_t add = shr_coll_op_fn(a->dt, SHR_OP_SUM);
    size_t step = SHR_HIER_CHUNK / es * es;
    SHR_COLL_SCRATCH uint64_t acc[SHR_HIER_CHUNK / 8], nxt[SHR_HIER_CHUNK / 8];
    shr_hier_t h;
    shr_team_t view;
    shr_coll_t sub;
    int pes[1];

    if (!shr_hier_begin(c, -1, &h) || !h.p->contiguous) {
        scan_flat(c, a);
        return;
    }
    shr_coll_ran(c, shr_coll_scan_hier);
    if (!h.is_leader) {
        shr_hier_member_round(c, &h);
        return;
    }
    shr_hier_up_wait(c, &h);
    shr_hier_leaders(c, &h, &view, pes, &sub);
    bool eager = bytes <= shr_coll_eager_max() &&
                 shr_coll_slot_size(&sub, bytes, (size_t)view.n_pes - 1) != 0;
    c->full = !eager; /* every PE makes the same choice */
    /* my own source: kept aside when the leaders' scan needs my dest */
    const char *mine = a->src;
    char *keep = NULL, *total, *offset;
    if (eager) {
        total = malloc(2 * bytes);
        offset = total + bytes;
    } else {
        total = offset = a->dest; /* symmetric: the leaders' pull reads it */
        if (a->src == a->dest) {
            keep = malloc(bytes);
            if (keep != NULL) {
                memcpy(keep, a->src, bytes);
            }
            mine = keep;
        }
    }
    if (total == NULL || mine == NULL) {
        shr_check_fail(c->fn, "out of memory for a %zu-byte scan", bytes);
    }
    /* the node's total, members in order (the leader is the first) */
    for (size_t off = 0; off < bytes; off += step) {
        size_t len = bytes - off < step ? bytes - off : step;
        memcpy(acc, mine + off, len);
        for (int i = 1; i < h.n_local; i++) {
            add(acc, acc, (const char *)shr_ptr(a->src, shr_coll_wpe(c, h.local[i])) + off,
                len / es);
        }
        memcpy(total + off, acc, len);
    }
    /* the leaders' exclusive scan of the totals: my node's offset */
    shr_coll_args_t la = *a;
    la.src = total;
    la.dest = offset;
    la.inclusive = false;
    if (eager) {
        shr_coll_scan_eager(&sub, &la);
    } else {
        shr_coll_scan_pull(&sub, &la);
    }
    /* each member's result: the offset + the node's earlier sources; in
     * place a member's source is read before its dest is written */
    for (size_t off = 0; off < bytes; off += step) {
        size_t len = bytes - off < step ? bytes - off : step;
        memcpy(acc, offset + off, len);
        for (int i = 0; i < h.n_local; i++) {
            int pe = shr_coll_wpe(c, h.local[i]);
            const char *x = i == 0 ? mine + off : (const char *)shr_ptr(a->src, pe) + off;
            char *z = (char *)shr_ptr(a->dest, pe) + off;
            if (a->inclusive) {
                add(acc, acc, x, len / es);
                memcpy(z, acc, len);
            } else {
                add(nxt, acc, x, len / es);
                memcpy(z, acc, len);
                memcpy(acc, nxt, len);
            }
        }
    }
    if (eager) {
        free(total);
    }
    free(keep);
    shr_hier_down_all(c, &h, 1);
}
