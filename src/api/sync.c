/* sync.c -- barrier_all, team_sync and sync_all (spec 9.10.1, 9.10.3,
 * 9.10.4); the active-set shmem_barrier and shmem_sync are in coll.c with
 * the other active-set forms. */
#include "api/api_inline.h"
#include "coll/coll.h"

void pshmem_barrier_all(void)
{
    SHR_API_TIMED(SHR_PROF_BARRIER, 0, shr_check_init("shmem_barrier_all"),
                  (shr_quiet_before_arrival(shr_ctx_default),
                   shr_coll_sync("shmem_barrier_all", shr_team_world)));
}
SHR_API_ALIAS(shmem_barrier_all)

void pshmem_sync_all(void)
{
    /* sync does not complete RMA; the fence keeps this PE's own stores
     * ahead of the arrival flag, which the spec's examples rely on */
    SHR_API_TIMED(SHR_PROF_BARRIER, 0, shr_check_init("shmem_sync_all"),
                  (shr_fence_stores(), shr_coll_sync("shmem_sync_all", shr_team_world)));
}
SHR_API_ALIAS(shmem_sync_all)

int pshmem_team_sync(shmem_team_t team)
{
    SHR_API_TIMED(SHR_PROF_BARRIER, 0, shr_check_team("shmem_team_sync", team),
                  (shr_fence_stores(), shr_coll_sync("shmem_team_sync", team)));
    return 0;
}
SHR_API_ALIAS(shmem_team_sync)
