/*
 * team.h -- teams and contexts as the rest of the library sees them.
 *
 * The public handles shmem_team_t / shmem_ctx_t point straight at these
 * structs (shmem_defs.h declares the tags), so no lookup stands between a
 * handle and its state.  Team and context structs are recycled, never
 * returned to malloc, so a stale handle still points at readable memory
 * whose `magic` says it is dead; debug-mode checks look a handle up in
 * core/handles.h before reading it, so a garbage one cannot fault them.
 */
#ifndef SHR_TEAM_H
#define SHR_TEAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <shmem_defs.h>

#include "util/status.h"

typedef struct shmem_team_impl shr_team_t;
typedef struct shmem_ctx_impl shr_ctx_t;

/* A completion object: how many operations issued with it are still in
 * flight.  Only the remote transport counts (on this node an operation is
 * complete when its store is done).  `pending` changes atomically, in the
 * issuing thread and in whichever thread completes the operation;
 * `status` keeps the transport's code of the first failure, written before
 * `pending` drops; `handle`: a request handle's, which nobody waits for
 * right away (the transport may complete its operations from another
 * thread meanwhile: SHIMMER_PROGRESS_OFFLOAD). */
typedef struct shr_cmpl {
    uint64_t pending;
    int status;
    bool handle;
} shr_cmpl_t;

#define SHR_TEAM_MAGIC 0x7ea3c0deu /* a live team */
#define SHR_CTX_MAGIC  0xc7c0ffeeu /* a live context */
#define SHR_SESSION_OPEN (1L << 62)  /* in session_options: a session is open */

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
    int n_contexts;         /* live contexts created from the team */
    shr_team_t *parent;     /* informational; dangles once the parent is destroyed */
    bool predefined;        /* WORLD or SHARED: never destroyed by the user */

    /* ---- team.c's own ---- */
    uint32_t magic;         /* SHR_TEAM_MAGIC while live, 0 once destroyed */
    uint64_t *agree;        /* the slot's agreement area (after sync's words) */
    shr_team_t *next;       /* list of live user teams / of recycled structs */
    shr_team_t *prev;
};

struct shmem_ctx_impl {
    shr_team_t *team;        /* NULL once destroyed */
    long options;            /* SHMEM_CTX_* */
    int n_pes;               /* the team's size: the always-on PE range check */
    int pe_start, pe_stride; /* team PE -> world PE, copied from the team ... */
    int *world_pes;          /* ... (or its member list) for the fast path */
    void *transport;         /* per-context transport state (UCX worker) */
    struct shr_remote_wins *remote_wins; /* room the transport lends for puts, or NULL
                                (core/remote_inline.h) */
    shr_cmpl_t cmpl;         /* its non-blocking remote operations in flight */
    bool predefined;
    uint32_t epoch;          /* bumped at each destroy: request handles (core/req.c)
                                notice a context that was destroyed or recycled */

    /* ---- ctx.c's own ---- */
    uint32_t magic;          /* SHR_CTX_MAGIC while live, 0 once destroyed */
    pid_t creator;           /* thread that created it */
    long session_options;    /* SHR_SESSION_OPEN | SHMEM_CTX_SESSION_* hints; 0 = none */
    size_t session_total_ops;
    shr_ctx_t *next;         /* registry of live contexts / recycled structs */
    shr_ctx_t *prev;
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

/* Points ctx at team: the team's PE translation is copied into the context
 * for the fast path's range check and PE mapping. */
static inline void shr_ctx_bind(shr_ctx_t *ctx, shr_team_t *team)
{
    ctx->team = team;
    ctx->n_pes = team->n_pes;
    ctx->pe_start = team->start;
    ctx->pe_stride = team->stride;
    ctx->world_pes = team->world_pes;
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

/* ---- teams (core/team.c) ----
 * Splits are collective over `parent` and give the same status on every
 * parent PE; *team_p is NULL (SHMEM_TEAM_INVALID) on PEs that are not
 * members and on failure.  The first PE to see a failure logs why, naming
 * `routine`.  Not thread-safe per parent (spec: one collective at a time per
 * team); splits of different parents may run in different threads. */
shr_status_t shr_team_split_strided(shr_team_t *parent, int start, int stride, int size,
                                    const shmem_team_config_t *config, long config_mask,
                                    const char *routine, shr_team_t **team_p);
shr_status_t shr_team_split_2d(shr_team_t *parent, int xrange,
                               const shmem_team_config_t *xconfig, long xmask,
                               const shmem_team_config_t *yconfig, long ymask,
                               const char *routine, shr_team_t **xteam_p,
                               shr_team_t **yteam_p);
/* Collective over `team` (a live user team): destroys its contexts, frees
 * its slot. */
void shr_team_destroy(shr_team_t *team);
/* `team` is a live team (not NULL). */
static inline bool shr_team_is_live(const shr_team_t *team)
{
    return team->magic == SHR_TEAM_MAGIC && team->n_pes > 0;
}

/* ---- contexts (core/ctx.c) ----
 * Thread-safe: any thread may create and destroy contexts at any time. */
/* Creates a context on `team` (a live team) with SHMEM_CTX_* `options`.
 * On failure logs why (naming `routine`) and leaves *ctx_p alone. */
shr_status_t shr_ctx_create(shr_team_t *team, long options, const char *routine,
                            shr_ctx_t **ctx_p);
/* Quiets and destroys a live, user-created context. */
void shr_ctx_destroy(shr_ctx_t *ctx);
/* Destroys every context created from `team` (team destroy), or every
 * context when `team` is NULL (finalize).  Returns how many were PRIVATE. */
int shr_ctx_destroy_all(shr_team_t *team);
static inline bool shr_ctx_is_live(const shr_ctx_t *ctx)
{
    return ctx->magic == SHR_CTX_MAGIC && ctx->team != NULL;
}

#endif
