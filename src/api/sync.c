/* sync.c -- barrier_all, team_sync and sync_all (spec 9.10.1, 9.10.3,
 * 9.10.4) and their request-handle forms (shmemx); the active-set
 * shmem_barrier and shmem_sync are in coll.c with the other active-set
 * forms. */
#include "api/api_inline.h"
#include "coll/coll.h"
#include "core/req.h"

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

/* ---- on request handles (shmemx.h, docs/requests.md) ----
 * The barrier completes the handle's operations, then the default
 * context's, then meets the team; the sync only meets it and leaves the
 * handle as it was.  A handle marked by shmemx_req_split makes the call
 * one thread's: the threads of this PE meet and the last runs the team's
 * sync (after the default context's quiet, for the barrier) for all. */
static void sync_req(const char *fn, shr_team_t *team, shmemx_req_t *req, bool barrier)
{
    int n, rank;

    shr_req_take_split(req, &n, &rank);
    if (barrier && *req != NULL) {
        shr_req_wait(fn, req);
    }
    if (!barrier) {
        shr_fence_stores(); /* as shmem_team_sync */
    }
    if (n != 1) {
        shr_coll_sync_mt(fn, team, barrier, n);
        return;
    }
    if (barrier) {
        shr_quiet_before_arrival(shr_ctx_default);
    }
    shr_coll_sync(fn, team);
}

/* checked, timed as a barrier */
static int sync_req_api(const char *fn, shr_team_t *team, shmemx_req_t *req, bool barrier)
{
    SHR_API_TIMED(SHR_PROF_BARRIER, 0,
                  (shr_check_team(fn, team), shr_check_local(fn, "req", req, 1)),
                  sync_req(fn, team, req, barrier));
    return 0;
}

int pshmemx_barrier_req(shmem_team_t team, shmemx_req_t *req)
{
    return sync_req_api("shmemx_barrier_req", team, req, true);
}
SHR_API_ALIAS(shmemx_barrier_req)

int pshmemx_team_sync_req(shmem_team_t team, shmemx_req_t *req)
{
    return sync_req_api("shmemx_team_sync_req", team, req, false);
}
SHR_API_ALIAS(shmemx_team_sync_req)
