/*
 * coll_alltoall.c -- alltoall and alltoalls (strided).
 *
 * Block j of a member's source (nelems elements, stride sst) goes to block
 * `me` of member j's dest (stride dst).  Strides are in elements, 1 for the
 * plain alltoall.
 *   eager  block j travels in a slot of member j (payload + flag in a line)
 *   push   every member writes its blocks into the other dests, then flags
 *   pull   all arrive; every member reads its block from every source; all
 *          arrive again (sources reusable)
 * auto: eager up to SHIMMER_COLL_EAGER_SIZE per block, push otherwise.
 * All are "full".
 */
#include "coll/coll_int.h"

static size_t block_bytes(const shr_coll_args_t *a)
{
    return a->nelems * a->elem;
}

static const char *src_block(const shr_coll_args_t *a, int j)
{
    return (const char *)a->src + (size_t)j * a->nelems * (size_t)a->sst * a->elem;
}

static char *dest_block(const shr_coll_args_t *a, int j)
{
    return (char *)a->dest + (size_t)j * a->nelems * (size_t)a->dst * a->elem;
}

static bool contiguous(const shr_coll_args_t *a)
{
    return a->dst == 1 && a->sst == 1;
}

/* Strided local copy of one block (dest stride ds, source stride ss). */
static void copy_block(char *dest, ptrdiff_t ds, const char *src, ptrdiff_t ss,
                       const shr_coll_args_t *a)
{
    if (ds == 1 && ss == 1) {
        shr_coll_copy_local(dest, src, block_bytes(a));
        return;
    }
    for (size_t e = 0; e < a->nelems; e++) {
        memmove(dest + (size_t)ds * e * a->elem, src + (size_t)ss * e * a->elem, a->elem);
    }
}

static void alltoall_auto(shr_coll_t *c, const shr_coll_args_t *a)
{
    size_t bytes = block_bytes(a);

    if (SHR_UNLIKELY(shr_g.has_remote) && shr_coll_hier_wanted(c)) {
        shr_coll_alltoall_hier(c, a); /* members on several nodes (coll_hier*.c) */
        return;
    }
    if (bytes <= shr_coll_eager_max() &&
        shr_coll_slot_size(c, bytes, (size_t)c->team->n_pes - 1) != 0) {
        shr_coll_alltoall_eager(c, a);
    } else {
        shr_coll_alltoall_push(c, a);
    }
}

void shr_coll_alltoall_eager(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, me = c->team->my_pe;
    size_t bytes = block_bytes(a);
    size_t sw = shr_coll_slot_size(c, bytes, (size_t)n - 1);
    SHR_COLL_SCRATCH uint64_t packed[SHR_COLL_REGION_SLOT_LINES * SHR_SYNC_LINE];

    if (sw == 0 || bytes > sizeof(packed)) {
        alltoall_auto(c, a);
        return;
    }
    shr_coll_ran(c, shr_coll_alltoall_eager);
    for (int k = 1; k < n; k++) {
        int m = shr_coll_rel(c, k);
        const void *payload = src_block(a, m);
        if (a->sst != 1) {
            copy_block((char *)packed, 1, payload, a->sst, a);
            payload = packed;
        }
        shr_coll_slot_send(c, m, shr_coll_slot_of(me, m), sw, 1, payload, bytes);
    }
    copy_block(dest_block(a, me), a->dst, src_block(a, me), a->sst, a);
    for (int k = 1; k < n; k++) {
        int m = shr_coll_rel(c, n - k); /* the one that sent to us first */
        size_t i = shr_coll_slot_of(m, me);
        shr_coll_slot_wait_from(c, m, sw);
        copy_block(dest_block(a, m), a->dst, shr_coll_slot_payload(c, i, sw, bytes), 1, a);
        shr_coll_slot_clear(c, i, sw, bytes);
    }
    c->full = true;
}

void shr_coll_alltoall_push(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, me = c->team->my_pe;

    shr_coll_ran(c, shr_coll_alltoall_push);
    for (int k = 1; k < n; k++) {
        int m = shr_coll_rel(c, k);
        if (contiguous(a)) {
            shr_coll_put(c, dest_block(a, me), src_block(a, m), block_bytes(a), m);
        } else {
            shr_rma_iput(NULL, shr_ctx_default, dest_block(a, me), src_block(a, m), a->dst, a->sst, 1,
                         a->nelems, a->elem, shr_coll_wpe(c, m));
        }
        shr_coll_add(c, m, SHR_CW_READY, 1);
    }
    copy_block(dest_block(a, me), a->dst, src_block(a, me), a->sst, a);
    shr_coll_take(c, SHR_CW_READY, (uint64_t)n - 1);
    c->full = true;
}

void shr_coll_alltoall_pull(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, me = c->team->my_pe;

    shr_coll_ran(c, shr_coll_alltoall_pull);
    shr_coll_sync_all(c, SHR_CW_READY);
    for (int k = 1; k < n; k++) {
        int m = shr_coll_rel(c, k);
        if (contiguous(a)) {
            shr_coll_get(c, dest_block(a, m), src_block(a, me), block_bytes(a), m);
        } else {
            shr_rma_iget(NULL, shr_ctx_default, dest_block(a, m), src_block(a, me), a->dst, a->sst, 1,
                         a->nelems, a->elem, shr_coll_wpe(c, m));
        }
    }
    copy_block(dest_block(a, me), a->dst, src_block(a, me), a->sst, a);
    shr_coll_sync_all(c, SHR_CW_DONE);
    c->full = true;
}

/* ---- entry points ---- */

static void alltoall_args(shr_coll_args_t *a, void *dest, const void *src, ptrdiff_t dst,
                          ptrdiff_t sst, size_t nelems, size_t elem)
{
    memset(a, 0, sizeof(*a));
    a->dest = dest;
    a->src = src;
    a->dst = dst == 0 ? 1 : dst; /* the plain alltoall passes 0, 0 */
    a->sst = sst == 0 ? 1 : sst;
    a->nelems = nelems;
    a->elem = elem;
}

static void alltoall_sig(shr_coll_sig_t *sig, const shr_coll_args_t *a)
{
    memset(sig, 0, sizeof(*sig));
    sig->what[0] = "nelems";
    sig->value[0] = a->nelems;
    sig->what[1] = "dst and sst";
    sig->value[1] = (uint64_t)a->dst << 32 | (uint64_t)(uint32_t)a->sst;
    sig->what[2] = "dest";
    sig->value[2] = shr_coll_sym_name(a->dest);
    sig->what[3] = "source";
    sig->value[3] = shr_coll_sym_name(a->src);
}

int shr_coll_alltoall(const char *fn, shr_team_t *team, void *dest, const void *src,
                      ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem)
{
    shr_coll_args_t a;
    shr_coll_t c;
    shr_coll_kind_t kind = dst == 0 && sst == 0 ? SHR_COLL_ALLTOALL : SHR_COLL_ALLTOALLS;

    alltoall_args(&a, dest, src, dst, sst, nelems, elem);
    if (SHR_CHECKS_ON()) {
        shr_coll_sig_t sig;
        alltoall_sig(&sig, &a);
        shr_coll_agree_team(fn, team, kind, &sig);
    }
    if (nelems == 0) {
        return 0;
    }
    if (team->n_pes == 1) {
        copy_block(dest, a.dst, src, a.sst, &a);
        return 0;
    }
    shr_coll_team_begin(&c, fn, team, kind);
    shr_coll_run(SHR_COLL_ID_ALLTOALL, alltoall_auto, &c, &a);
    shr_coll_team_end(&c);
    return 0;
}

void shr_coll_alltoall_aset(const char *fn, void *dest, const void *src, ptrdiff_t dst,
                            ptrdiff_t sst, size_t nelems, size_t elem, int PE_start,
                            int logPE_stride, int PE_size, long *pSync)
{
    shr_coll_args_t a;
    shr_team_t view;
    shr_coll_t c;
    shr_coll_kind_t kind = dst == 0 && sst == 0 ? SHR_COLL_ALLTOALL : SHR_COLL_ALLTOALLS;

    alltoall_args(&a, dest, src, dst, sst, nelems, elem);
    if (SHR_CHECKS_ON()) {
        shr_coll_sig_t sig;
        alltoall_sig(&sig, &a);
        shr_coll_agree_aset(fn, PE_start, logPE_stride, PE_size, pSync, kind, &sig);
    }
    if (nelems == 0) {
        return;
    }
    if (PE_size == 1) {
        copy_block(dest, a.dst, src, a.sst, &a);
        return;
    }
    shr_coll_aset_begin(&c, &view, fn, PE_start, logPE_stride, PE_size, pSync, kind);
    shr_coll_run(SHR_COLL_ID_ALLTOALL, alltoall_auto, &c, &a);
    shr_coll_aset_end(&c);
}
