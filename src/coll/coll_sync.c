/*
 * coll_sync.c -- the signalling primitives of coll_int.h that are not
 * inline: all-to-all arrival and payload slots.
 */
#include "coll/coll_int.h"

void shr_coll_sync_all(shr_coll_t *c, size_t w)
{
    int n = c->team->n_pes;
    int rounds = 0;

    if (n == 1) {
        return;
    }
    while ((1 << rounds) < n) {
        rounds++;
    }
    if (n <= SHR_COLL_FLAT_SYNC || rounds > SHR_CR_DISSEM_ROUNDS) {
        for (int k = 1; k < n; k++) {
            shr_coll_add(c, shr_coll_rel(c, k), w, 1);
        }
        shr_coll_take(c, w, (uint64_t)n - 1);
        return;
    }
    /* dissemination: one sender per round and receiver, so the counters of
     * several syncs of one call may share the round words */
    for (int r = 0; r < rounds; r++) {
        shr_coll_add(c, shr_coll_rel(c, 1 << r), SHR_CR_DISSEM + (size_t)r, 1);
        shr_coll_take(c, SHR_CR_DISSEM + (size_t)r, 1);
    }
}

uint64_t shr_coll_slot_wait(shr_coll_t *c, size_t i, size_t sw)
{
    return shr_coll_wait_ge(c, &SHR_COLL_SLOT(c, i, sw)[sw - 1], 1);
}

uint64_t shr_coll_slot_wait_from(shr_coll_t *c, int from, size_t sw)
{
    size_t i = shr_coll_slot_of(from, c->team->my_pe);

    return shr_coll_wait_from(c, &SHR_COLL_SLOT(c, i, sw)[sw - 1], 1, from);
}

uint64_t shr_coll_slot_recv(shr_coll_t *c, size_t i, size_t sw, void *out, size_t len)
{
    uint64_t header = shr_coll_slot_wait(c, i, sw);

    if (out != NULL && len != 0) {
        memcpy(out, shr_coll_slot_payload(c, i, sw, len), len);
    }
    shr_coll_slot_clear(c, i, sw, len);
    return header;
}
