/*
 * team.c -- the predefined teams and the default context.
 *
 * Each team owns one slot of a pool of synchronisation areas allocated once,
 * symmetrically, from the internal heap at init: team creation is collective
 * over the parent team only, so it cannot allocate symmetric memory itself.
 */
#include "core/team.h"

#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "core/state.h"
#include "util/log.h"

struct shmem_team_impl shmemx_internal_team_world SHR_EXPORT;
struct shmem_team_impl shmemx_internal_team_shared SHR_EXPORT;
struct shmem_ctx_impl shmemx_internal_ctx_default SHR_EXPORT;

/* The pool of team synchronisation areas (symmetric). */
#define SHR_TEAM_SLOTS_MAX 64
static uint64_t *sync_pool;
static size_t sync_words;

int shr_team_pe_of_world(const shr_team_t *team, int world_pe)
{
    if (team->world_pes == NULL) {
        int rel = world_pe - team->start;
        if (team->stride == 0) {
            return rel == 0 ? 0 : -1;
        }
        if (rel % team->stride != 0) {
            return -1;
        }
        int pe = rel / team->stride;
        return pe >= 0 && pe < team->n_pes ? pe : -1;
    }
    for (int pe = 0; pe < team->n_pes; pe++) {
        if (team->world_pes[pe] == world_pe) {
            return pe;
        }
    }
    return -1;
}

static void team_set_slot(shr_team_t *team, int slot)
{
    team->slot = slot;
    team->sync = sync_pool + (size_t)slot * sync_words;
}

static void ctx_bind(shr_ctx_t *ctx, shr_team_t *team)
{
    ctx->team = team;
    ctx->pe_start = team->start;
    ctx->pe_stride = team->stride;
    ctx->world_pes = team->world_pes;
}

shr_status_t shr_team_init(const char *routine)
{
    shr_team_t *world = shr_team_world, *shared = shr_team_shared;
    size_t offset;

    sync_words = shr_coll_sync_words(shr_g.n_pes);
    if (shr_heap_alloc(&shr_g.internal_heap, SHR_TEAM_SLOTS_MAX * sync_words * sizeof(uint64_t),
                       4096, &offset) != SHR_OK) {
        shr_error("%s: the internal heap cannot hold the team state of %d PEs; raise "
                  "SHIMMER_INTERNAL_HEAP_SIZE", routine, shr_g.n_pes);
        return SHR_ERR_NO_MEMORY;
    }
    sync_pool = shr_internal_addr(offset);

    memset(world, 0, sizeof(*world));
    world->my_pe = shr_g.my_pe;
    world->n_pes = shr_g.n_pes;
    world->start = 0;
    world->stride = 1;
    world->predefined = true;
    team_set_slot(world, 0);

    memset(shared, 0, sizeof(*shared));
    shared->my_pe = shr_g.local_rank;
    shared->n_pes = shr_g.n_local;
    shared->predefined = true;
    shared->parent = NULL;
    /* node-local PEs are usually consecutive: keep the arithmetic form then */
    bool strided = true;
    for (int i = 0; i < shr_g.n_local; i++) {
        strided &= shr_g.local_pes[i] == shr_g.local_pes[0] + i;
    }
    shared->start = shr_g.local_pes[0];
    shared->stride = 1;
    if (!strided) {
        shared->world_pes = malloc((size_t)shr_g.n_local * sizeof(int));
        if (shared->world_pes == NULL) {
            return SHR_ERR_NO_MEMORY;
        }
        memcpy(shared->world_pes, shr_g.local_pes, (size_t)shr_g.n_local * sizeof(int));
    }
    team_set_slot(shared, 1);

    memset(shr_ctx_default, 0, sizeof(*shr_ctx_default));
    ctx_bind(shr_ctx_default, world);
    shr_ctx_default->predefined = true;
    return SHR_OK;
}

void shr_team_fini(void)
{
    free(shr_team_shared->world_pes);
    memset(shr_team_shared, 0, sizeof(*shr_team_shared));
    memset(shr_team_world, 0, sizeof(*shr_team_world));
    memset(shr_ctx_default, 0, sizeof(*shr_ctx_default));
    sync_pool = NULL;
}
