/*
 * coll_barrier.c -- barrier (team sync) algorithms.
 *
 *   dissem:  dissemination, ceil(log2 n) rounds; in round r a PE flags the
 *            PE 2^r ahead and waits for the one 2^r behind.  Fastest when
 *            every PE has a core (2 PEs: one flag each way).
 *   central: one counter on team PE 0; the last arriver releases everyone.
 *            Fewest hand-offs when PEs outnumber cores.
 * Flags hold the team's epoch and only grow, so back-to-back barriers need
 * no reset and a PE that runs ahead cannot confuse a slower one.
 */
#include "coll/coll.h"
#include "core/amo_inline.h"
#include "core/state.h"
#include "core/wait_inline.h"

size_t shr_coll_sync_words(int n_pes)
{
    return SHR_SYNC_FIXED_WORDS + (size_t)n_pes * SHR_SYNC_LINE;
}

static void flag_set(shr_team_t *team, int member, size_t word, uint64_t value)
{
    shr_amo(shr_ctx_default, SHR_AMO_SET, &team->sync[word], value, 0, sizeof(uint64_t),
            shr_team_world_pe(team, member));
}

static void barrier_dissem(shr_team_t *team, uint64_t epoch)
{
    int n = team->n_pes, me = team->my_pe;

    for (int r = 0, dist = 1; dist < n; r++, dist <<= 1) {
        size_t word = SHR_SYNC_DISSEM + (size_t)r * SHR_SYNC_LINE;
        flag_set(team, (me + dist) % n, word, epoch);
        shr_wait_u64_ge(&team->sync[word], epoch, "barrier");
    }
}

static void barrier_central(shr_team_t *team, uint64_t epoch)
{
    int n = team->n_pes;
    uint64_t arrived = shr_amo(shr_ctx_default, SHR_AMO_FETCH_ADD,
                               &team->sync[SHR_SYNC_BARRIER_COUNT], 1, 0, sizeof(uint64_t),
                               shr_team_world_pe(team, 0));

    if (arrived == epoch * (uint64_t)n - 1) {
        for (int member = 0; member < n; member++) {
            if (member != team->my_pe) {
                flag_set(team, member, SHR_SYNC_BARRIER_RELEASE, epoch);
            }
        }
        return;
    }
    shr_wait_u64_ge(&team->sync[SHR_SYNC_BARRIER_RELEASE], epoch, "barrier");
}

void shr_coll_barrier(shr_team_t *team)
{
    uint64_t epoch = ++team->barrier_epoch;

    if (team->n_pes == 1) {
        return;
    }
    /* the same choice on every PE: oversubscribed is a property of the job */
    if (shr_g.oversubscribed) {
        barrier_central(team, epoch);
    } else {
        barrier_dissem(team, epoch);
    }
}
