/*
 * coll_reduce.c -- reductions (every member gets the result; dest may be
 * source, in place).
 *
 *   eager  every member writes its source into a slot of every other, then
 *          combines all contributions in member order (so every member
 *          computes the same bits).  One line transfer for small vectors.
 *   rsag   reduce-scatter + allgather reading the sources where they are:
 *          after all arrive, member k combines slice k of every source
 *          into its own dest, all arrive, everyone copies the other slices
 *          from their owners' dests, all arrive (buffers reusable).  No
 *          staging copy; in place is safe because only member k reads or
 *          writes slice k until the second arrival.
 *   tree   binomial reduction to member 0 (each parent combines its
 *          children's partial results, read from their dest, or source for
 *          a leaf), then a binomial broadcast of the result pulled from the
 *          parent's dest: O(log n) steps, for large or remote sets.
 * auto: eager up to SHIMMER_COLL_EAGER_SIZE bytes, rsag when every member is
 * load/store reachable, tree otherwise.  All are "full".
 *
 * Remote members' data is fetched chunk by chunk into a local buffer; local
 * members' data is combined straight from their mapping.
 */
#include <stdlib.h>

#include "coll/coll_int.h"
#include "core/check.h"

#define CHUNK 4096 /* bytes combined at a time (L1-sized) */

static size_t elem_size(const shr_coll_args_t *a)
{
    return shr_dtype_size(a->dt);
}

/* member's copy of [sym, sym+len): a direct pointer, or fetched into buf */
static const void *peer_data(shr_coll_t *c, const void *sym, size_t len, int member, void *buf)
{
    if (member == c->team->my_pe) {
        return sym;
    }
    const void *mapped = shr_ptr(sym, shr_coll_wpe(c, member));
    if (mapped != NULL) {
        return mapped;
    }
    shr_coll_get(c, buf, sym, len, member);
    return buf;
}

static void reduce_auto(shr_coll_t *c, const shr_coll_args_t *a)
{
    size_t bytes = a->count * elem_size(a);

    if (SHR_UNLIKELY(shr_g.has_remote) && shr_coll_hier_wanted(c)) {
        shr_coll_reduce_hier(c, a); /* members on several nodes (coll_hier.c) */
        return;
    }
    if (bytes <= shr_coll_eager_max() &&
        shr_coll_slot_size(c, bytes, (size_t)c->team->n_pes - 1) != 0) {
        shr_coll_reduce_eager(c, a);
    } else if (c->all_local) {
        shr_coll_reduce_rsag(c, a);
    } else {
        shr_coll_reduce_tree(c, a);
    }
}

void shr_coll_reduce_eager(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, me = c->team->my_pe;
    size_t bytes = a->count * elem_size(a);
    size_t sw = shr_coll_slot_size(c, bytes, (size_t)n - 1);
    shr_coll_op_fn_t op = shr_coll_op_fn(a->dt, a->op);
    SHR_COLL_SCRATCH uint64_t acc[SHR_COLL_REGION_SLOT_LINES * SHR_SYNC_LINE];

    if (sw == 0 || bytes > sizeof(acc)) {
        reduce_auto(c, a);
        return;
    }
    shr_coll_ran(c, shr_coll_reduce_eager);
    for (int k = 1; k < n; k++) {
        int m = shr_coll_rel(c, k);
        shr_coll_slot_send(c, m, shr_coll_slot_of(me, m), sw, 1, a->src, bytes);
    }
    /* acc = c0 op c1 op ... in member order; slots are cleared once used */
    const void *prev = NULL;
    for (int m = 0; m < n; m++) {
        const void *y = a->src;
        if (m != me) {
            shr_coll_slot_wait_from(c, m, sw);
            y = shr_coll_slot_payload(c, shr_coll_slot_of(m, me), sw, bytes);
        }
        if (m == 0) {
            prev = y;
            continue;
        }
        op(acc, m == 1 ? prev : acc, y, a->count);
        if (m == 1 && me != 0) {
            shr_coll_slot_clear(c, shr_coll_slot_of(0, me), sw, bytes);
        }
        if (m != me) {
            shr_coll_slot_clear(c, shr_coll_slot_of(m, me), sw, bytes);
        }
    }
    memcpy(a->dest, acc, bytes);
    c->full = true;
}

/* z = combine(member 0..n-1's copies of sym[off, off+len)) for a chunk */
static void combine_chunk(shr_coll_t *c, const shr_coll_args_t *a, shr_coll_op_fn_t op,
                          void *z, const char *sym, size_t len, const int *order, int count)
{
    SHR_COLL_SCRATCH uint64_t buf0[CHUNK / 8], buf1[CHUNK / 8];
    size_t elems = len / elem_size(a);
    const void *x = peer_data(c, sym, len, order[0], buf0);

    for (int i = 1; i < count; i++) {
        const void *y = peer_data(c, sym, len, order[i], buf1);
        op(z, x, y, elems);
        x = z;
    }
    if (count == 1 && z != x) {
        memcpy(z, x, len);
    }
}

void shr_coll_reduce_rsag(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, me = c->team->my_pe;
    size_t es = elem_size(a);
    shr_coll_op_fn_t op = shr_coll_op_fn(a->dt, a->op);
    int order_stack[64], *order = order_stack;
    SHR_COLL_SCRATCH uint64_t tmp[CHUNK / 8];
    size_t chunk_elems = CHUNK / es;

    shr_coll_ran(c, shr_coll_reduce_rsag);
    if (n > (int)SHR_ARRAY_SIZE(order_stack)) {
        order = malloc((size_t)n * sizeof(int));
        if (order == NULL) {
            shr_check_fail(c->fn, "out of memory for %d PEs", n);
        }
    }
    for (int m = 0; m < n; m++) {
        order[m] = m;
    }
    shr_coll_sync_all(c, SHR_CW_READY);
    size_t lo = a->count * (size_t)me / (size_t)n, hi = a->count * (size_t)(me + 1) / (size_t)n;
    for (size_t e = lo; e < hi; e += chunk_elems) {
        size_t ne = hi - e < chunk_elems ? hi - e : chunk_elems;
        const char *at = (const char *)a->src + e * es;
        combine_chunk(c, a, op, tmp, at, ne * es, order, n);
        memcpy((char *)a->dest + e * es, tmp, ne * es);
    }
    shr_coll_sync_all(c, SHR_CW_STAGE);
    for (int k = 1; k < n; k++) {
        int m = shr_coll_rel(c, k);
        size_t mlo = a->count * (size_t)m / (size_t)n, mhi = a->count * (size_t)(m + 1) / (size_t)n;
        char *at = (char *)a->dest + mlo * es;
        shr_coll_get(c, at, at, (mhi - mlo) * es, m);
    }
    shr_coll_sync_all(c, SHR_CW_DONE);
    if (order != order_stack) {
        free(order);
    }
    c->full = true;
}

void shr_coll_reduce_tree(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, me = c->team->my_pe;
    size_t es = elem_size(a), bytes = a->count * es;
    shr_coll_op_fn_t op = shr_coll_op_fn(a->dt, a->op);
    SHR_COLL_SCRATCH uint64_t tmp[CHUNK / 8];
    size_t chunk = CHUNK / es * es;
    int top = 1, rounds = 0;

    while (top < n) {
        top <<= 1;
        rounds++;
    }
    if (rounds > SHR_CR_DISSEM_ROUNDS) {
        shr_coll_reduce_rsag(c, a);
        return;
    }
    shr_coll_ran(c, shr_coll_reduce_tree);
    /* my lowest set bit bounds my children (member 0: all of them) */
    int low = me == 0 ? top : me & -me;
    /* up: dest = src op child(1) op child(2) op child(4) ... */
    int r = 0;
    for (int mask = 1; mask < low; mask <<= 1, r++) {
        int child = me + mask;
        if (child >= n) {
            break;
        }
        shr_coll_take(c, SHR_CR_DISSEM + (size_t)r, 1);
        bool child_internal = (child & -child) > 1 && child + 1 < n;
        const char *csym = child_internal ? a->dest : a->src;
        const char *mine = mask == 1 ? a->src : a->dest;
        for (size_t off = 0; off < bytes; off += chunk) {
            size_t len = bytes - off < chunk ? bytes - off : chunk;
            const void *y = peer_data(c, csym + off, len, child, tmp);
            op((char *)a->dest + off, mine + off, y, len / es);
        }
    }
    if (me != 0) {
        /* the partial (dest, or source for a leaf) is ready for the parent */
        int parent = me - low, round = 0;
        while ((1 << round) < low) {
            round++;
        }
        shr_coll_add(c, parent, SHR_CR_DISSEM + (size_t)round, 1);
        /* down: wait for the parent's result, copy it, free the parent */
        shr_coll_take(c, SHR_CW_READY, 1);
        shr_coll_get(c, a->dest, a->dest, bytes, parent);
        shr_coll_add(c, parent, SHR_CW_DONE, 1);
    }
    int children = 0;
    for (int mask = low >> 1; mask > 0; mask >>= 1) {
        if (me + mask < n) {
            shr_coll_add(c, me + mask, SHR_CW_READY, 1);
            children++;
        }
    }
    /* my dest is read by my children until they say so */
    shr_coll_take(c, SHR_CW_DONE, (uint64_t)children);
    c->full = true;
}

/* ---- entry points ---- */

static void reduce_sig(shr_coll_sig_t *sig, void *dest, const void *src, size_t count,
                       shr_dtype_t dt, shr_op_t op)
{
    memset(sig, 0, sizeof(*sig));
    sig->what[0] = "nreduce";
    sig->value[0] = count;
    sig->what[1] = "type and operator";
    sig->value[1] = (uint64_t)dt << 8 | (uint64_t)op;
    sig->what[2] = "dest";
    sig->value[2] = shr_coll_sym_name(dest);
    sig->what[3] = "source";
    sig->value[3] = shr_coll_sym_name(src);
}

static void reduce_run(shr_coll_t *c, void *dest, const void *src, size_t count,
                       shr_dtype_t dt, shr_op_t op)
{
    shr_coll_args_t a = {.dest = dest, .src = src, .count = count, .dt = dt, .op = op};

    if (c->team->n_pes == 1) {
        shr_coll_copy_local(dest, src, count * shr_dtype_size(dt));
        return;
    }
    shr_coll_run(SHR_COLL_ID_REDUCE, reduce_auto, c, &a);
}

int shr_coll_reduce(const char *fn, shr_team_t *team, void *dest, const void *src, size_t count,
                    shr_dtype_t dt, shr_op_t op)
{
    shr_coll_t c;

    if (SHR_CHECKS_ON()) {
        shr_coll_sig_t sig;
        reduce_sig(&sig, dest, src, count, dt, op);
        shr_coll_agree_team(fn, team, SHR_COLL_REDUCE, &sig);
    }
    if (count == 0) {
        return 0;
    }
    shr_coll_team_begin(&c, fn, team, SHR_COLL_REDUCE);
    reduce_run(&c, dest, src, count, dt, op);
    shr_coll_team_end(&c);
    return 0;
}

void shr_coll_reduce_aset(const char *fn, void *dest, const void *src, size_t count,
                          shr_dtype_t dt, shr_op_t op, int PE_start, int logPE_stride,
                          int PE_size, long *pSync)
{
    shr_team_t view;
    shr_coll_t c;

    if (SHR_CHECKS_ON()) {
        shr_coll_sig_t sig;
        reduce_sig(&sig, dest, src, count, dt, op);
        shr_coll_agree_aset(fn, PE_start, logPE_stride, PE_size, pSync, SHR_COLL_REDUCE, &sig);
    }
    if (count == 0) {
        return;
    }
    shr_coll_aset_begin(&c, &view, fn, PE_start, logPE_stride, PE_size, pSync, SHR_COLL_REDUCE);
    reduce_run(&c, dest, src, count, dt, op);
    shr_coll_aset_end(&c);
}
