/*
 * coll_bcast.c -- broadcast.
 *
 *   eager  the root writes the data into one slot of every other member
 *          (payload and flag in the same cache line); each copies it out.
 *          One line transfer; the root returns at once.
 *   pull   the root flags every member, each copies straight from the
 *          root's source into its dest (memcpy through the mapping), then
 *          tells the root it is done (the source is reusable on return).
 *   push   the root writes every member's dest, then flags it.
 *   tree   binomial tree of pushes: a member forwards from its dest to its
 *          children once its parent's data arrived (remote peers, big sets).
 * auto: eager up to SHIMMER_COLL_EAGER_SIZE bytes; with every member load/store
 * reachable, push while the root's copies total at most 64 KiB (it leaves
 * as soon as they are done), pull above (the members copy in parallel);
 * tree when some member is remote.
 *
 * The team form writes dest on the root too (a_root_dest), the active-set
 * form does not.  None of these gives every member proof that every other
 * arrived, so broadcast calls are not "full" (coll_team.c).
 */
#include "coll/coll_int.h"

static int root_rel(const shr_coll_t *c, int root)
{
    int n = c->team->n_pes, r = c->team->my_pe - root;
    return r < 0 ? r + n : r;
}

static void root_copy(const shr_coll_args_t *a)
{
    if (a->root_dest) {
        shr_coll_copy_local(a->dest, a->src, a->len);
    }
}

/* Up to this many bytes in all (len * (n - 1)) the root writes every dest
 * itself and leaves; above, the members copy in parallel. */
#define PUSH_MAX (64 * 1024)

static void bcast_auto(shr_coll_t *c, const shr_coll_args_t *a)
{
    size_t n1 = (size_t)c->team->n_pes - 1;

    if (SHR_UNLIKELY(shr_g.has_remote) && shr_coll_hier_wanted(c)) {
        shr_coll_bcast_hier(c, a); /* members on several nodes (coll_hier.c) */
        return;
    }
    if (a->len <= shr_coll_eager_max() && shr_coll_slot_size(c, a->len, 1) != 0) {
        shr_coll_bcast_eager(c, a);
    } else if (!c->all_local) {
        shr_coll_bcast_tree(c, a);
    } else if (a->len * n1 <= PUSH_MAX) {
        shr_coll_bcast_push(c, a);
    } else {
        shr_coll_bcast_pull(c, a);
    }
}

void shr_coll_bcast_eager(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes;
    size_t sw = shr_coll_slot_size(c, a->len, 1);

    if (sw == 0) {
        bcast_auto(c, a);
        return;
    }
    shr_coll_ran(c, shr_coll_bcast_eager);
    if (c->team->my_pe == a->root) {
        for (int k = 1; k < n; k++) {
            shr_coll_slot_send(c, (a->root + k) % n, 0, sw, 1, a->src, a->len);
        }
        root_copy(a);
        return;
    }
    shr_coll_slot_recv(c, 0, sw, a->dest, a->len);
}

/* pull: when the root has no dest of its own to fill (active-set form) it
 * would only wait, so it writes the last 1/n of every member's dest itself
 * while the members read the rest: the root and each member then copy about
 * as much (2 PEs: half each, in parallel). */
void shr_coll_bcast_pull(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes;
    size_t tail = a->root_dest ? 0 : a->len / (size_t)n / 64 * 64;
    size_t head = a->len - tail;

    shr_coll_ran(c, shr_coll_bcast_pull);
    if (c->team->my_pe == a->root) {
        for (int k = 1; k < n; k++) {
            shr_coll_add(c, (a->root + k) % n, SHR_CW_READY, 1);
        }
        root_copy(a);
        if (tail != 0) {
            for (int k = 1; k < n; k++) {
                int m = (a->root + k) % n;
                shr_coll_put(c, (char *)a->dest + head, (const char *)a->src + head, tail, m);
                shr_coll_add(c, m, SHR_CW_STAGE, 1);
            }
        }
        shr_coll_take(c, SHR_CW_DONE, (uint64_t)n - 1);
        return;
    }
    shr_coll_take(c, SHR_CW_READY, 1);
    shr_coll_get(c, a->dest, a->src, head, a->root);
    shr_coll_add(c, a->root, SHR_CW_DONE, 1);
    if (tail != 0) {
        shr_coll_take(c, SHR_CW_STAGE, 1);
    }
}

void shr_coll_bcast_push(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes;

    shr_coll_ran(c, shr_coll_bcast_push);
    if (c->team->my_pe == a->root) {
        for (int k = 1; k < n; k++) {
            int m = (a->root + k) % n;
            shr_coll_put(c, a->dest, a->src, a->len, m);
            shr_coll_add(c, m, SHR_CW_READY, 1);
        }
        root_copy(a);
        return;
    }
    shr_coll_take(c, SHR_CW_READY, 1);
}

void shr_coll_bcast_tree(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, r = root_rel(c, a->root);
    int mask = 1;

    shr_coll_ran(c, shr_coll_bcast_tree);
    /* receive from the parent: r without its lowest set bit */
    if (r != 0) {
        while (!(r & mask)) {
            mask <<= 1;
        }
        shr_coll_take(c, SHR_CW_READY, 1);
    } else {
        while (mask < n) {
            mask <<= 1;
        }
    }
    /* forward to the children r + m for every m below r's lowest bit */
    const void *from = r == 0 ? a->src : a->dest;
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (r + mask < n) {
            int child = (a->root + r + mask) % n;
            shr_coll_put(c, a->dest, from, a->len, child);
            shr_coll_add(c, child, SHR_CW_READY, 1);
        }
    }
    if (r == 0) {
        root_copy(a);
    }
}

static void bcast_run(shr_coll_t *c, void *dest, const void *src, size_t len, int root,
                      bool root_dest)
{
    shr_coll_args_t a = {.dest = dest, .src = src, .len = len, .root = root,
                         .root_dest = root_dest};

    if (c->team->n_pes == 1) {
        root_copy(&a);
        return;
    }
    shr_coll_run(SHR_COLL_ID_BROADCAST, bcast_auto, c, &a);
}

int shr_coll_broadcast(const char *fn, shr_team_t *team, void *dest, const void *src, size_t len,
                       int root)
{
    shr_coll_t c;

    if (SHR_CHECKS_ON()) {
        shr_coll_sig_t sig = {.what = {"nelems (in bytes)", "PE_root", "dest", "source"},
                              .value = {len, (uint64_t)root, shr_coll_sym_name(dest),
                                        shr_coll_sym_name(src)}};
        shr_coll_agree_team(fn, team, SHR_COLL_BROADCAST, &sig);
    }
    if (len == 0) {
        return 0;
    }
    shr_coll_team_begin(&c, fn, team, SHR_COLL_BROADCAST);
    bcast_run(&c, dest, src, len, root, true);
    shr_coll_team_end(&c);
    return 0;
}

void shr_coll_broadcast_aset(const char *fn, void *dest, const void *src, size_t len, int root,
                             int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    shr_team_t view;
    shr_coll_t c;

    if (SHR_CHECKS_ON()) {
        shr_coll_sig_t sig = {.what = {"nelems (in bytes)", "PE_root", "dest", "source"},
                              .value = {len, (uint64_t)root, shr_coll_sym_name(dest),
                                        shr_coll_sym_name(src)}};
        shr_coll_agree_aset(fn, PE_start, logPE_stride, PE_size, pSync, SHR_COLL_BROADCAST,
                            &sig);
    }
    if (len == 0 || PE_size == 1) {
        return;
    }
    shr_coll_aset_begin(&c, &view, fn, PE_start, logPE_stride, PE_size, pSync,
                        SHR_COLL_BROADCAST);
    bcast_run(&c, dest, src, len, root, false);
    shr_coll_aset_end(&c);
}
