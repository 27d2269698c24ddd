/*
 * team.h -- teams and contexts as the rest of the library sees them.
 *
 * The public handles shmem_team_t / shmem_ctx_t point straight at these
 * structs (shmem_defs.h declares the tags), so no lookup stands between a
 * handle and its state.
 */
#ifndef SHR_TEAM_H
#define SHR_TEAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <shmem_defs.h>

#include "util/status.h"

typedef struct shmem_team_impl shr_team_t;
typedef struct shmem_ctx_impl shr_ctx_t;

/* Most teams are strided slices of WORLD; others (SHARED on a cluster with
 * cyclic placement, and their splits) list their members explicitly. */
struct shmem_team_impl {
    int my_pe;              /* my number in the team */
    int n_pes;
    int start, stride;      /* member i is world PE start + i * stride ... */
    int *world_pes;         /* ... unless this lists them ([n_pes]) */
    int slot;               /* index of the team's synchronisation area */
    uint64_t *sync;         /* that area, in the internal symmetric heap */
    uint64_t barrier_epoch; /* barriers this team completed (same on all members) */
    shmem_team_config_t config;
    long config_mask;
    int n_contexts;         /* shareable contexts created from the team */
    shr_team_t *parent;
    bool predefined;        /* WORLD or SHARED: never destroyed by the user */
};

struct shmem_ctx_impl {
    shr_team_t *team;
    long options;
    int pe_start, pe_stride; /* team PE -> world PE, copied from the team ... */
    int *world_pes;          /* ... (or its member list) for the fast path */
    void *transport;         /* per-context transport state (UCX worker) */
    bool predefined;
};

/* World PE of team member `pe`.  Thread-safe. */
static inline int shr_team_world_pe(const shr_team_t *team, int pe)
{
    return team->world_pes != NULL ? team->world_pes[pe] : team->start + pe * team->stride;
}

static inline int shr_ctx_world_pe(const shr_ctx_t *ctx, int pe)
{
    return ctx->world_pes != NULL ? ctx->world_pes[pe] : ctx->pe_start + pe * ctx->pe_stride;
}

/* Team number of world PE `world_pe` in `team`, or -1 if not a member. */
int shr_team_pe_of_world(const shr_team_t *team, int world_pe);

#define shr_team_world (&shmemx_internal_team_world)
#define shr_team_shared (&shmemx_internal_team_shared)
#define shr_ctx_default (&shmemx_internal_ctx_default)

/* Creates WORLD and SHARED and the default context (collective, init). */
shr_status_t shr_team_init(const char *routine);
/* Destroys every team and context (collective, last finalize). */
void shr_team_fini(void);

#endif
