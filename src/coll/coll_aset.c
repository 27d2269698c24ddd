/*
 * coll_aset.c -- the active-set view: the deprecated (PE_start,
 * logPE_stride, PE_size, pSync) collectives run the team algorithms on a
 * strided view team built on the stack, with the user's pSync as the call's
 * words.
 *
 * pSync is used from its first 64-byte boundary on (the same boundary on
 * every PE: symmetric objects keep their alignment), so flags and payloads
 * share cache lines as they do in a team's area; SHMEM_SYNC_SIZE (64 longs)
 * leaves at least 7 lines: 2 of counters and 5 of slots.  Every algorithm
 * leaves the words zero, i.e. pSync restored to SHMEM_SYNC_VALUE (0).
 */
#include "coll/coll_int.h"

static SHR_COLD bool view_all_local(const shr_team_t *view, const void *psync)
{
    for (int m = 0; m < view->n_pes; m++) {
        if (shr_ptr(psync, shr_team_world_pe(view, m)) == NULL) {
            return false;
        }
    }
    return true;
}

/* pSync as a segment-independent symmetric name (hang reports compare it
 * across PEs). */
static uint64_t psync_name(const void *psync)
{
    int seg = shr_seg_find(psync, 1);
    uintptr_t off = seg < 0 ? (uintptr_t)psync : (uintptr_t)psync - shr_g.seg[seg].base;
    return ((uint64_t)(seg + 1) << 56) | (uint64_t)off;
}

void shr_coll_aset_begin(shr_coll_t *c, shr_team_t *view, const char *fn, int PE_start,
                         int logPE_stride, int PE_size, long *pSync, shr_coll_kind_t kind)
{
    uintptr_t first = ((uintptr_t)pSync + 63) & ~(uintptr_t)63;
    size_t words = SHMEM_SYNC_SIZE - (first - (uintptr_t)pSync) / sizeof(long);

    memset(view, 0, sizeof(*view));
    view->n_pes = PE_size;
    view->start = PE_start;
    view->stride = 1 << logPE_stride;
    view->my_pe = (shr_g.my_pe - PE_start) >> logPE_stride;
    view->magic = SHR_TEAM_MAGIC;

    c->fn = fn;
    c->team = view;
    c->sync = (uint64_t *)first;
    c->slot_words = (words - SHR_CR_SLOTS) / SHR_SYNC_LINE * SHR_SYNC_LINE;
    c->seq = 0;
    c->psync = pSync;
    c->kind = kind;
    c->all_local = SHR_LIKELY(!shr_g.has_remote) || view_all_local(view, pSync);
    c->full = false;
    c->nested = false;
    if (SHR_CHECKS_ON()) {
        uint64_t *dbg = &shr_team_world->sync[SHR_TA_DBG_CALL];
        dbg[SHR_DBG_ASET_PSYNC] = psync_name(pSync);
        __atomic_store_n(&dbg[SHR_DBG_ASET_KIND], (uint64_t)kind + 1, __ATOMIC_RELEASE);
    }
}

void shr_coll_aset_end(shr_coll_t *c)
{
    (void)c;
    if (SHR_CHECKS_ON()) {
        __atomic_store_n(&shr_team_world->sync[SHR_TA_DBG_CALL + SHR_DBG_ASET_KIND], 0,
                         __ATOMIC_RELEASE);
    }
}

uint64_t shr_coll_sym_name(const void *addr)
{
    return psync_name(addr);
}
