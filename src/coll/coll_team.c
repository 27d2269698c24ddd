/*
 * coll_team.c -- a data collective on a team: which words it runs on.
 *
 * A team's area (team->sync, zero when the team is created) holds a ring of
 * SHR_COLL_RING regions.  Call number s runs on region s % RING.  A region
 * may be reused only when every member has left the call that used it last
 * (s - RING): the team's state line remembers `last_free`, the highest call
 * every member is known to have left.  It advances when a call gives every
 * member proof that all others arrived (a "full" call: reductions, collects,
 * alltoalls, barriers), and otherwise a barrier is run before the region is
 * reused -- at most once per RING non-full calls (broadcast and scan loops).
 * Every PE computes the same sequence, so they agree without talking.
 */
#include "coll/coll_int.h"

size_t shr_coll_sync_words(int n_pes)
{
    (void)n_pes;
    return SHR_TA_WORDS;
}

bool shr_coll_team_all_mapped(shr_team_t *team)
{
    shr_coll_state_t *st = (shr_coll_state_t *)team->sync;

    if (st->locality == 0) {
        bool local = true;
        for (int m = 0; m < team->n_pes && local; m++) {
            local = shr_ptr(team->sync, shr_team_world_pe(team, m)) != NULL;
        }
        st->locality = local ? 1 : 2;
    }
    return st->locality == 1;
}

void shr_coll_team_begin(shr_coll_t *c, const char *fn, shr_team_t *team, shr_coll_kind_t kind)
{
    shr_coll_state_t *st = (shr_coll_state_t *)team->sync;
    uint64_t s = st->seq + 1;

    if (s > SHR_COLL_RING && s - SHR_COLL_RING > st->last_free) {
        shr_coll_barrier_team(team);
    }
    st->seq = s;
    c->fn = fn;
    c->team = team;
    c->sync = team->sync + SHR_TA_RING + (s % SHR_COLL_RING) * SHR_COLL_REGION_WORDS;
    c->slot_words = SHR_COLL_REGION_WORDS - SHR_CR_SLOTS;
    c->seq = s;
    c->psync = NULL;
    c->kind = kind;
    c->all_local = shr_coll_team_local(team);
    c->full = false;
    c->nested = false;
    if (SHR_CHECKS_ON()) {
        team->sync[SHR_TA_DBG_CALL + SHR_DBG_KIND] = (uint64_t)kind + 1;
        __atomic_store_n(&team->sync[SHR_TA_DBG_CALL + SHR_DBG_SEQ], s, __ATOMIC_RELEASE);
    }
}

void shr_coll_team_end(shr_coll_t *c)
{
    shr_coll_state_t *st = (shr_coll_state_t *)c->team->sync;

    /* everyone arrived at call seq, so everyone left seq - 1 */
    if (c->full && c->seq - 1 > st->last_free) {
        st->last_free = c->seq - 1;
    }
    if (SHR_CHECKS_ON()) {
        c->team->sync[SHR_TA_DBG_CALL + SHR_DBG_KIND] = 0;
    }
}
