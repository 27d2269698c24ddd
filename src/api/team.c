/* team.c -- team management routines (spec 9.4).  SHMEM_TEAM_INVALID gives
 * the spec's defined answers (-1, nonzero, no-op); debug mode also reports
 * destroyed or garbage handles. */
#include "api/api_inline.h"
#include "util/log.h"

static void check_out(const char *fn, const char *what, const void *ptr)
{
    if (ptr == NULL) {
        shr_check_fail(fn, "%s is NULL; pass the address of a shmem_team_t", what);
    }
}

int pshmem_team_my_pe(shmem_team_t team)
{
    SHR_API_CHECK(shr_check_team_handle("shmem_team_my_pe", team));
    return team == SHMEM_TEAM_INVALID ? -1 : team->my_pe;
}
SHR_API_ALIAS(shmem_team_my_pe)

int pshmem_team_n_pes(shmem_team_t team)
{
    SHR_API_CHECK(shr_check_team_handle("shmem_team_n_pes", team));
    return team == SHMEM_TEAM_INVALID ? -1 : team->n_pes;
}
SHR_API_ALIAS(shmem_team_n_pes)

int pshmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    SHR_API_CHECK(shr_check_team_handle("shmem_team_get_config", team));
    if (team == SHMEM_TEAM_INVALID) {
        return 1;
    }
    if (config_mask == 0) {
        return 0;
    }
    SHR_API_CHECK(config == NULL
                      ? shr_check_fail("shmem_team_get_config", "config is NULL but config_mask "
                                       "is 0x%lx; pass a shmem_team_config_t", config_mask)
                      : (void)0);
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS) {
        /* the current value: contexts can always be created, so what the
         * team was configured with or what it holds now, whichever is more */
        int live = __atomic_load_n(&team->n_contexts, __ATOMIC_RELAXED);
        config->num_contexts = team->config.num_contexts > live ? team->config.num_contexts
                                                                : live;
    }
    return 0;
}
SHR_API_ALIAS(shmem_team_get_config)

int pshmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    SHR_API_CHECK((shr_check_team_handle("shmem_team_translate_pe", src_team),
                   shr_check_team_handle("shmem_team_translate_pe", dest_team)));
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID || src_pe < 0 ||
        src_pe >= src_team->n_pes) {
        return -1;
    }
    return shr_team_pe_of_world(dest_team, shr_team_world_pe(src_team, src_pe));
}
SHR_API_ALIAS(shmem_team_translate_pe)

int pshmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                              const shmem_team_config_t *config, long config_mask,
                              shmem_team_t *new_team)
{
    static const char fn[] = "shmem_team_split_strided";
    shr_team_t *team;

    SHR_API_CHECK((shr_check_team_handle(fn, parent_team),
                   check_out(fn, "new_team", new_team)));
    if (parent_team == SHMEM_TEAM_INVALID) {
        *new_team = SHMEM_TEAM_INVALID;
        return 1;
    }
    shr_status_t status;
    SHR_API_TIMED(SHR_PROF_TEAM, 0, (void)0,
                  status = shr_team_split_strided(parent_team, start, stride, size, config,
                                                  config_mask, fn, &team));
    *new_team = status == SHR_OK ? team : SHMEM_TEAM_INVALID;
    return status == SHR_OK ? 0 : 1;
}
SHR_API_ALIAS(shmem_team_split_strided)

int pshmem_team_split_2d(shmem_team_t parent_team, int xrange,
                         const shmem_team_config_t *xaxis_config, long xaxis_mask,
                         shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                         long yaxis_mask, shmem_team_t *yaxis_team)
{
    static const char fn[] = "shmem_team_split_2d";
    shr_team_t *xteam, *yteam;

    SHR_API_CHECK((shr_check_team_handle(fn, parent_team),
                   check_out(fn, "xaxis_team", xaxis_team),
                   check_out(fn, "yaxis_team", yaxis_team)));
    if (parent_team == SHMEM_TEAM_INVALID) {
        *xaxis_team = SHMEM_TEAM_INVALID;
        *yaxis_team = SHMEM_TEAM_INVALID;
        return 1;
    }
    shr_status_t status;
    SHR_API_TIMED(SHR_PROF_TEAM, 0, (void)0,
                  status = shr_team_split_2d(parent_team, xrange, xaxis_config, xaxis_mask,
                                             yaxis_config, yaxis_mask, fn, &xteam, &yteam));
    *xaxis_team = status == SHR_OK ? xteam : SHMEM_TEAM_INVALID;
    *yaxis_team = status == SHR_OK ? yteam : SHMEM_TEAM_INVALID;
    return status == SHR_OK ? 0 : 1;
}
SHR_API_ALIAS(shmem_team_split_2d)

void pshmem_team_destroy(shmem_team_t team)
{
    static const char fn[] = "shmem_team_destroy";

    SHR_API_CHECK(shr_check_team_handle(fn, team));
    if (team == SHMEM_TEAM_INVALID) {
        return;
    }
    if (team->predefined) {
        /* undefined by the spec: refuse, loudly in debug mode */
        SHR_API_CHECK(shr_check_fail(fn, "team is %s, a predefined team; only teams made by "
                                     "a split can be destroyed",
                                     team == SHMEM_TEAM_WORLD ? "SHMEM_TEAM_WORLD"
                                                              : "SHMEM_TEAM_SHARED"));
        shr_warn_once("%s: a predefined team cannot be destroyed; ignored", fn);
        return;
    }
    SHR_API_TIMED(SHR_PROF_TEAM, 0, (void)0, shr_team_destroy(team));
}
SHR_API_ALIAS(shmem_team_destroy)
