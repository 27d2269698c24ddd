/*
 * coll.h -- collective algorithms over teams, type-erased.  Works on core
 * teams and contexts and the core RMA/AMO paths; never on transports.
 */
#ifndef SHR_COLL_H
#define SHR_COLL_H

#include "core/team.h"

/* Layout of a team's synchronisation area (team->sync, symmetric, in the
 * internal heap), in 64-bit words; every field on its own cache line. */
#define SHR_SYNC_LINE            8   /* words per cache line */
#define SHR_SYNC_BARRIER_COUNT   (0 * SHR_SYNC_LINE) /* central: arrivals (on team PE 0) */
#define SHR_SYNC_BARRIER_RELEASE (1 * SHR_SYNC_LINE) /* central: epoch released */
#define SHR_SYNC_DISSEM          (2 * SHR_SYNC_LINE) /* dissemination: one line per round */
#define SHR_SYNC_DISSEM_ROUNDS   32
#define SHR_SYNC_COLL            ((2 + SHR_SYNC_DISSEM_ROUNDS) * SHR_SYNC_LINE) /* collectives */
#define SHR_SYNC_FIXED_WORDS     (SHR_SYNC_COLL + 64 * SHR_SYNC_LINE)

/* Words of one team's area for a job of n_pes PEs (fixed part + per-PE). */
size_t shr_coll_sync_words(int n_pes);

/* All members of `team` arrive before any leaves.  Does not complete RMA
 * (that is the caller's quiet).  Not thread-safe per team (spec: one
 * collective at a time per team). */
void shr_coll_barrier(shr_team_t *team);

#endif
