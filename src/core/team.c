/*
 * team.c -- teams: the predefined ones, splits, destroy, and the pool of
 * synchronisation slots they live in.
 *
 * Slots.  Team creation is collective over the parent only, so it cannot
 * allocate symmetric memory.  Instead init allocates, symmetrically, a pool
 * of SHIMMER_TEAMS_MAX slots from the internal heap; a team owns one slot
 * index, the same on all its members.  Slot memory is written only by the
 * team that owns the index on that PE, so disjoint teams (the rows of a 2D
 * split) can share an index.  Each slot is
 *     [coll sync area: shr_coll_sync_words() words][agreement area]
 * The agreement area serves the splits of the slot's team.
 *
 * Agreement.  A split runs an OR-reduction over the parent (the collective
 * engine's shr_coll_reduce, in place on the slot's agreement words, so it
 * takes whatever algorithm the parent's layout gets) of: an error bit, a
 * hash of the arguments and its complement (any mismatch between PEs shows
 * as a bit set in both), and the bitmap of slots this PE uses.  Every
 * parent PE then picks the same lowest free slot(s).  Splits of different
 * parents may run concurrently under SHMEM_THREAD_MULTIPLE (each on its own
 * parent's area); the creation token below keeps them from choosing slots
 * on one PE at the same time.
 *
 * Reuse.  Destroy ends with a barrier of the team; after it nobody writes
 * this PE's copy of the slot any more, so the PE zeroes it and frees the
 * index.  A later team can take the index only after an agreement this PE
 * joined after the zeroing, so a new team starts on a clean slot and its
 * members may use it as soon as their own split returns.
 */
#include "core/team.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll/coll.h"
#include "core/amo_inline.h"
#include "core/env.h"
#include "core/handles.h"
#include "core/rma_inline.h"
#include "core/state.h"
#include "core/wait_inline.h"
#include "util/log.h"

struct shmem_team_impl shmemx_internal_team_world SHR_EXPORT;
struct shmem_team_impl shmemx_internal_team_shared SHR_EXPORT;
struct shmem_ctx_impl shmemx_internal_ctx_default SHR_EXPORT;

#define SLOT_WORLD 0
#define SLOT_SHARED 1

/* The slot pool (set at init, read-only until finalize). */
static struct {
    uint64_t *base;       /* symmetric, in the internal heap */
    size_t slot_words;    /* sync_words + agreement words */
    size_t sync_words;
    int n_slots;
    int bitmap_words;     /* 64-bit words of a slot bitmap */
    int data_words;       /* words of one agreement */
} pool;

/* This PE's slot use and its user teams (under `lock`). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *slots_used;      /* [bitmap_words] */
static shr_team_t *live_teams;    /* user teams this PE is a member of */
static shr_team_t *free_teams;    /* recycled structs (stale handles stay readable) */

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

static bool slot_is_set(const uint64_t *bitmap, int slot)
{
    return (bitmap[slot / 64] >> (slot % 64)) & 1;
}

static void team_set_slot(shr_team_t *team, int slot)
{
    team->slot = slot;
    team->sync = pool.base + (size_t)slot * pool.slot_words;
    team->agree = team->sync + pool.sync_words;
}

/* ---- the agreement ------------------------------------------------------ */

/* ORs data[0..nwords) over all members of `team`; every member ends with
 * the same result.  Collective over `team`, one at a time per team (as any
 * collective on it). */
static void team_agree_or(shr_team_t *team, uint64_t *data, int nwords, const char *routine)
{
    if (team->n_pes == 1) {
        return;
    }
    memcpy(team->agree, data, (size_t)nwords * sizeof(uint64_t));
    shr_coll_reduce(routine, team, team->agree, team->agree, (size_t)nwords, SHR_DTYPE_UINT64,
                    SHR_OP_OR);
    memcpy(data, team->agree, (size_t)nwords * sizeof(uint64_t));
}

/* ---- struct recycling ---------------------------------------------------- */

static shr_team_t *team_alloc(void)
{
    pthread_mutex_lock(&lock);
    shr_team_t *team = free_teams;
    if (team != NULL) {
        free_teams = team->next;
    }
    pthread_mutex_unlock(&lock);
    if (team == NULL) {
        team = malloc(sizeof(*team));
        if (team != NULL && !shr_handle_register(SHR_HANDLE_TEAM, team)) {
            free(team);
            team = NULL;
        }
    }
    if (team != NULL) {
        memset(team, 0, sizeof(*team));
    }
    return team;
}

static void team_recycle(shr_team_t *team)
{
    free(team->world_pes);
    memset(team, 0, sizeof(*team));
    team->slot = -1;
    pthread_mutex_lock(&lock);
    team->next = free_teams;
    free_teams = team;
    pthread_mutex_unlock(&lock);
}

/* ---- building a team from a parent ---------------------------------------- */

/* One team to build: members are parent PEs start + i*stride, i < size. */
typedef struct team_spec {
    int start, stride, size;
    const shmem_team_config_t *config;
    long mask;
    shr_team_t *team; /* built for members; NULL otherwise */
} team_spec_t;

static int spec_index_of(const team_spec_t *spec, int parent_pe)
{
    int rel = parent_pe - spec->start;

    if (spec->stride == 0 || spec->size == 1) {
        return rel == 0 ? 0 : -1;
    }
    if (rel % spec->stride != 0) {
        return -1;
    }
    int i = rel / spec->stride;
    return i >= 0 && i < spec->size ? i : -1;
}

/* Allocates the team of `spec` if this PE is a member; false when out of
 * memory.  The slot is set later. */
static bool spec_build(shr_team_t *parent, team_spec_t *spec)
{
    int me = spec_index_of(spec, parent->my_pe);

    spec->team = NULL;
    if (me < 0) {
        return true;
    }
    shr_team_t *team = team_alloc();
    if (team == NULL) {
        return false;
    }
    team->my_pe = me;
    team->n_pes = spec->size;
    team->parent = parent;
    team->slot = -1;
    if (spec->mask & SHMEM_TEAM_NUM_CONTEXTS) {
        team->config.num_contexts = spec->config->num_contexts;
    }
    team->config_mask = spec->mask;
    if (parent->world_pes == NULL) {
        team->start = parent->start + spec->start * parent->stride;
        team->stride = spec->size == 1 ? 1 : spec->stride * parent->stride;
    } else {
        /* an explicit list, unless the members happen to be evenly spaced */
        int first = parent->world_pes[spec->start];
        int step = spec->size > 1 ? parent->world_pes[spec->start + spec->stride] - first : 1;
        bool even = step != 0;
        for (int i = 0; i < spec->size && even; i++) {
            even = parent->world_pes[spec->start + i * spec->stride] == first + i * step;
        }
        team->start = first;
        team->stride = step;
        if (!even) {
            team->world_pes = malloc((size_t)spec->size * sizeof(int));
            if (team->world_pes == NULL) {
                team_recycle(team);
                return false;
            }
            for (int i = 0; i < spec->size; i++) {
                team->world_pes[i] = parent->world_pes[spec->start + i * spec->stride];
            }
        }
    }
    spec->team = team;
    return true;
}

static bool spec_is_valid(const team_spec_t *spec, int parent_size)
{
    if (spec->size < 1 || spec->start < 0 || spec->start >= parent_size) {
        return false;
    }
    if (spec->stride == 0 && spec->size != 1) {
        return false;
    }
    long last = (long)spec->start + (long)(spec->size - 1) * spec->stride;
    return last >= 0 && last < parent_size;
}

static uint64_t mix(uint64_t hash, uint64_t value)
{
    hash ^= value + 0x9e3779b97f4a7c15ull + (hash << 6) + (hash >> 2);
    return hash * 0xbf58476d1ce4e5b9ull;
}

/* ---- the creation token -------------------------------------------------
 * Splits of different parents may run at once in different threads.  Each
 * PE has one creation token; a split takes it on every parent PE before it
 * looks at the slot bitmaps and keeps it until its slots are claimed, so no
 * two splits choose slots on one PE at the same time.  Taking it follows
 * wait-die: a split's priority is its parent's slot index (the same on all
 * parent PEs, and different for any two parents that share a PE); a split
 * waits for a token held by a lower-priority split, and gives up (the
 * whole split retries, decided by the agreement) when a higher-priority
 * one holds it.  Waits only point to lower priorities, so there is no
 * deadlock, and the highest-priority split always gets through. */
static int token_owner = -1; /* priority of the holder, -1 = free (under lock) */
static pthread_cond_t token_freed = PTHREAD_COND_INITIALIZER;

/* Takes this PE's token for a split of priority `priority`; false when a
 * higher-priority split holds it.  Waiting for a lower-priority holder
 * sleeps: the holder is another thread of this PE, busy in its agreement. */
static bool token_acquire(int priority)
{
    bool got;

    pthread_mutex_lock(&lock);
    while (token_owner >= 0 && token_owner > priority) {
        pthread_cond_wait(&token_freed, &lock);
    }
    got = token_owner < 0;
    if (got) {
        token_owner = priority;
    }
    pthread_mutex_unlock(&lock);
    return got;
}

static void token_release(void)
{
    pthread_mutex_lock(&lock);
    token_owner = -1;
    pthread_cond_broadcast(&token_freed);
    pthread_mutex_unlock(&lock);
}

/* After losing to a higher-priority split: back off before the retry (1 us,
 * doubling to 1 ms).  Never waits for the token itself: that would make a
 * lower-priority split wait for a higher one, which wait-die forbids (its
 * other members may hold tokens the higher split is waiting for). */
static void token_backoff(int retries)
{
    long ns = 1000L << (retries < 10 ? retries : 10);
    struct timespec ts = {0, ns};

    nanosleep(&ts, NULL);
}

/* Message words of the agreement. */
enum { W_ERROR, W_HASH, W_NHASH, W_BITMAP };
#define ERR_LOCAL   1ull /* a PE ran out of memory */
#define ERR_ARGS    2ull /* invalid arguments */
#define ERR_BUSY    4ull /* a PE's token is held by a higher-priority split */

/* The common part of both splits: `specs` hold the teams of this PE (at
 * most one per kind; all teams of one kind share a slot).  On success the
 * built teams own their slots and are live. */
static shr_status_t team_split(shr_team_t *parent, team_spec_t *specs, int n_specs,
                               uint64_t args_hash, bool args_ok, const char *routine)
{
    int nwords = W_BITMAP + pool.bitmap_words;
    uint64_t data[nwords > 0 ? nwords : 1];
    uint64_t local_err = args_ok ? 0 : ERR_ARGS;
    int chosen[2] = {-1, -1};
    shr_status_t status = SHR_ERR_NO_RESOURCE;
    bool have_token = false;
    int retries = 0;

    for (int k = 0; k < n_specs; k++) {
        specs[k].team = NULL;
    }
    for (int k = 0; k < n_specs && args_ok; k++) {
        if (!spec_build(parent, &specs[k])) {
            local_err |= ERR_LOCAL;
        }
    }
    for (;;) {
        have_token = token_acquire(parent->slot);

        memset(data, 0, sizeof(data));
        data[W_ERROR] = local_err | (have_token ? 0 : ERR_BUSY);
        data[W_HASH] = args_hash;
        data[W_NHASH] = ~args_hash;
        pthread_mutex_lock(&lock);
        memcpy(&data[W_BITMAP], slots_used, (size_t)pool.bitmap_words * sizeof(uint64_t));
        pthread_mutex_unlock(&lock);

        team_agree_or(parent, data, nwords, routine);

        if ((data[W_HASH] & data[W_NHASH]) == 0 && data[W_ERROR] == ERR_BUSY) {
            /* only contention: let the other split finish, then retry */
            shr_debug(SHR_LOG_CORE, "%s: another thread's split holds a creation token; "
                      "retrying", routine);
            if (have_token) {
                token_release();
                have_token = false;
            }
            token_backoff(retries++);
            continue;
        }
        if (data[W_HASH] & data[W_NHASH]) {
            if (parent->my_pe == 0) {
                shr_warn("%s: the PEs of the parent team passed different arguments; no team "
                         "created", routine);
            }
            status = SHR_ERR_MISMATCH;
            break;
        }
        if (data[W_ERROR] & ERR_LOCAL) {
            if (parent->my_pe == 0) {
                shr_warn("%s: a PE of the parent team ran out of memory; no team created",
                         routine);
            }
            status = SHR_ERR_NO_MEMORY;
            break;
        }
        if (data[W_ERROR] & ERR_ARGS) {
            status = SHR_ERR_INVALID; /* the caller reports it */
            break;
        }
        /* every parent PE holds its token: pick the lowest free slot(s),
         * the same on every parent PE, and claim them */
        int found = 0;
        for (int slot = 0; slot < pool.n_slots && found < n_specs; slot++) {
            if (!slot_is_set(&data[W_BITMAP], slot)) {
                chosen[found++] = slot;
            }
        }
        if (found < n_specs) {
            if (parent->my_pe == 0) {
                shr_warn("%s: team limit reached: no team slot is free on every PE of the "
                         "parent team (SHIMMER_TEAMS_MAX=%d slots per PE, SHMEM_TEAM_WORLD "
                         "and SHMEM_TEAM_SHARED included); destroy teams that are no longer "
                         "needed or raise SHIMMER_TEAMS_MAX", routine, pool.n_slots);
            } else {
                shr_debug(SHR_LOG_CORE, "%s: no free team slot", routine);
            }
            status = SHR_ERR_NO_RESOURCE;
            break;
        }
        pthread_mutex_lock(&lock);
        for (int k = 0; k < n_specs; k++) {
            if (specs[k].team != NULL) {
                slots_used[chosen[k] / 64] |= 1ull << (chosen[k] % 64);
            }
        }
        pthread_mutex_unlock(&lock);
        status = SHR_OK;
        break;
    }
    if (have_token) {
        token_release();
    }

    for (int k = 0; k < n_specs; k++) {
        shr_team_t *team = specs[k].team;
        if (team == NULL) {
            continue;
        }
        if (status != SHR_OK) {
            team_recycle(team);
            specs[k].team = NULL;
            continue;
        }
        team_set_slot(team, chosen[k]);
        team->magic = SHR_TEAM_MAGIC;
        pthread_mutex_lock(&lock);
        team->prev = NULL;
        team->next = live_teams;
        if (live_teams != NULL) {
            live_teams->prev = team;
        }
        live_teams = team;
        pthread_mutex_unlock(&lock);
    }
    return status;
}

shr_status_t shr_team_split_strided(shr_team_t *parent, int start, int stride, int size,
                                    const shmem_team_config_t *config, long config_mask,
                                    const char *routine, shr_team_t **team_p)
{
    team_spec_t spec = {start, stride, size, config, config == NULL ? 0 : config_mask, NULL};
    bool ok = spec_is_valid(&spec, parent->n_pes);
    uint64_t hash = mix(mix(mix(1, (uint64_t)(unsigned)start), (uint64_t)(unsigned)stride),
                        (uint64_t)(unsigned)size);

    *team_p = NULL;
    shr_status_t status = team_split(parent, &spec, 1, hash, ok, routine);
    if (!ok && parent->my_pe == 0) {
        shr_warn("%s: start %d, stride %d, size %d do not describe PEs of a parent team of %d "
                 "PEs (need size >= 1, 0 <= start + i*stride < %d for every i < size, and "
                 "size 1 when stride is 0); no team created", routine, start, stride, size,
                 parent->n_pes, parent->n_pes);
    }
    if (status == SHR_OK) {
        *team_p = spec.team;
    }
    return ok ? status : SHR_ERR_INVALID;
}

shr_status_t shr_team_split_2d(shr_team_t *parent, int xrange,
                               const shmem_team_config_t *xconfig, long xmask,
                               const shmem_team_config_t *yconfig, long ymask,
                               const char *routine, shr_team_t **xteam_p,
                               shr_team_t **yteam_p)
{
    int n = parent->n_pes, p = parent->my_pe;
    bool ok = xrange > 0;
    int xr = xrange > n ? n : xrange;
    team_spec_t specs[2];

    *xteam_p = NULL;
    *yteam_p = NULL;
    if (ok) {
        int x = p % xr, y = p / xr;
        /* my row: parent PEs y*xr .. ; my column: x, x + xr, ... */
        specs[0] = (team_spec_t){y * xr, 1, n - y * xr < xr ? n - y * xr : xr, xconfig,
                                 xconfig == NULL ? 0 : xmask, NULL};
        specs[1] = (team_spec_t){x, xr, (n - x + xr - 1) / xr, yconfig,
                                 yconfig == NULL ? 0 : ymask, NULL};
    }
    shr_status_t status = team_split(parent, specs, 2, mix(2, (uint64_t)(unsigned)xrange), ok,
                                     routine);
    if (!ok && p == 0) {
        shr_warn("%s: xrange is %d; it must be positive; no teams created", routine, xrange);
    }
    if (status == SHR_OK) {
        *xteam_p = specs[0].team;
        *yteam_p = specs[1].team;
    }
    return ok ? status : SHR_ERR_INVALID;
}

void shr_team_destroy(shr_team_t *team)
{
    int private_left = shr_ctx_destroy_all(team);

    if (private_left > 0) {
        shr_warn("shmem_team_destroy: %d SHMEM_CTX_PRIVATE context(s) of the team were still "
                 "alive and are destroyed with it; destroy them before the team", private_left);
    }
    /* our writes to the members' slots are complete, then nobody writes
     * ours any more once everyone has arrived */
    shr_quiet(shr_ctx_default);
    shr_coll_barrier_last(team);
    memset(team->sync, 0, pool.slot_words * sizeof(uint64_t));

    pthread_mutex_lock(&lock);
    slots_used[team->slot / 64] &= ~(1ull << (team->slot % 64));
    if (team->prev != NULL) {
        team->prev->next = team->next;
    } else {
        live_teams = team->next;
    }
    if (team->next != NULL) {
        team->next->prev = team->prev;
    }
    pthread_mutex_unlock(&lock);
    team_recycle(team);
}

/* ---- init and finalize ------------------------------------------------ */

static shr_status_t pool_create(const char *routine)
{
    size_t offset;

    if (shr_config.teams_max < 2 || shr_config.teams_max > 1L << 20) {
        shr_error("%s: SHIMMER_TEAMS_MAX is %ld; it must be between 2 (SHMEM_TEAM_WORLD and "
                  "SHMEM_TEAM_SHARED) and %ld", routine, shr_config.teams_max, 1L << 20);
        return SHR_ERR_INVALID;
    }
    pool.n_slots = (int)shr_config.teams_max;
    pool.bitmap_words = (pool.n_slots + 63) / 64;
    pool.data_words = W_BITMAP + pool.bitmap_words;
    pool.sync_words = shr_coll_sync_words(shr_g.n_pes);
    pool.sync_words = (pool.sync_words + SHR_SYNC_LINE - 1) / SHR_SYNC_LINE * SHR_SYNC_LINE;
    /* the agreement words fill whole lines: nothing else shares them */
    pool.slot_words = pool.sync_words + ((size_t)pool.data_words + SHR_SYNC_LINE - 1) /
                                            SHR_SYNC_LINE * SHR_SYNC_LINE;

    size_t bytes = (size_t)pool.n_slots * pool.slot_words * sizeof(uint64_t);
    if (shr_heap_alloc(&shr_g.internal_heap, bytes, 4096, &offset) != SHR_OK) {
        shr_error("%s: the internal heap cannot hold %d team slots of %zu bytes for %d PEs "
                  "(SHIMMER_TEAMS_MAX=%d); raise SHIMMER_INTERNAL_HEAP_SIZE or lower "
                  "SHIMMER_TEAMS_MAX", routine, pool.n_slots,
                  pool.slot_words * sizeof(uint64_t), shr_g.n_pes, pool.n_slots);
        return SHR_ERR_NO_MEMORY;
    }
    pool.base = shr_internal_addr(offset);
    shr_debug(SHR_LOG_CORE, "team pool: %d slots of %zu bytes (SHIMMER_TEAMS_MAX)", pool.n_slots,
              pool.slot_words * sizeof(uint64_t));
    slots_used = calloc((size_t)pool.bitmap_words, sizeof(uint64_t));
    if (slots_used == NULL) {
        shr_heap_free(&shr_g.internal_heap, offset);
        return SHR_ERR_NO_MEMORY;
    }
    slots_used[0] = 1ull << SLOT_WORLD | 1ull << SLOT_SHARED;
    return SHR_OK;
}

shr_status_t shr_team_init(const char *routine)
{
    shr_team_t *world = shr_team_world, *shared = shr_team_shared;
    shr_status_t status = pool_create(routine);

    if (status != SHR_OK) {
        return status;
    }

    memset(world, 0, sizeof(*world));
    world->my_pe = shr_g.my_pe;
    world->n_pes = shr_g.n_pes;
    world->start = 0;
    world->stride = 1;
    world->predefined = true;
    world->magic = SHR_TEAM_MAGIC;
    team_set_slot(world, SLOT_WORLD);

    memset(shared, 0, sizeof(*shared));
    shared->my_pe = shr_g.local_rank;
    shared->n_pes = shr_g.n_local;
    shared->predefined = true;
    shared->parent = NULL;
    shared->magic = SHR_TEAM_MAGIC;
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
    team_set_slot(shared, SLOT_SHARED);

    memset(shr_ctx_default, 0, sizeof(*shr_ctx_default));
    shr_ctx_bind(shr_ctx_default, world);
    shr_ctx_default->predefined = true;
    shr_ctx_default->magic = SHR_CTX_MAGIC;
    if (!shr_handle_register(SHR_HANDLE_TEAM, world) ||
        !shr_handle_register(SHR_HANDLE_TEAM, shared) ||
        !shr_handle_register(SHR_HANDLE_CTX, shr_ctx_default)) {
        return SHR_ERR_NO_MEMORY;
    }
    return SHR_OK;
}

void shr_team_fini(void)
{
    shr_ctx_destroy_all(NULL);
    /* user teams die with the library (their slots with the heap) */
    pthread_mutex_lock(&lock);
    shr_team_t *team = live_teams;
    live_teams = NULL;
    pthread_mutex_unlock(&lock);
    while (team != NULL) {
        shr_team_t *next = team->next;
        team_recycle(team);
        team = next;
    }
    free(shr_team_shared->world_pes);
    memset(shr_team_shared, 0, sizeof(*shr_team_shared));
    memset(shr_team_world, 0, sizeof(*shr_team_world));
    memset(shr_ctx_default, 0, sizeof(*shr_ctx_default));
    pthread_mutex_lock(&lock);
    free(slots_used);
    slots_used = NULL;
    pthread_mutex_unlock(&lock);
    memset(&pool, 0, sizeof(pool));
}
