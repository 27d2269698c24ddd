/*
 * ctx.c -- communication contexts created by the user.
 *
 * A context is a team binding (team-relative PE numbers, copied into the
 * struct for the fast path), options, and the remote transport's
 * per-context state (shr_remote_ctx_create/destroy).  On this node a
 * context needs nothing else: puts are stores, quiet is a fence.
 *
 * Registry.  Live contexts sit in one list under one mutex, so that team
 * destroy and finalize find the contexts of a team.  Structs are recycled
 * through a free list and never returned to malloc: a destroyed handle
 * still points at readable memory whose magic and NULL team say "dead",
 * which is how debug mode reports RMA on a destroyed context.
 * Everything here is thread-safe; the mutex is never held while calling
 * the transport or waiting.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/handles.h"
#include "core/remote.h"
#include "core/rma_inline.h"
#include "core/state.h"
#include "core/team.h"
#include "util/log.h"

#define CTX_OPTIONS (SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static shr_ctx_t *live;      /* live user contexts */
static shr_ctx_t *recycled;  /* destroyed ones, for reuse */

static void registry_add(shr_ctx_t *ctx)
{
    pthread_mutex_lock(&lock);
    ctx->prev = NULL;
    ctx->next = live;
    if (live != NULL) {
        live->prev = ctx;
    }
    live = ctx;
    ctx->magic = SHR_CTX_MAGIC;
    __atomic_fetch_add(&ctx->team->n_contexts, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&lock);
}

/* Unlinks ctx; false if it was not live (already destroyed by another
 * thread or by team destroy). */
static bool registry_remove(shr_ctx_t *ctx)
{
    bool was_live;

    pthread_mutex_lock(&lock);
    was_live = ctx->magic == SHR_CTX_MAGIC;
    if (was_live) {
        ctx->magic = 0;
        __atomic_fetch_add(&ctx->epoch, 1, __ATOMIC_RELEASE); /* its request handles go stale */
        if (ctx->prev != NULL) {
            ctx->prev->next = ctx->next;
        } else {
            live = ctx->next;
        }
        if (ctx->next != NULL) {
            ctx->next->prev = ctx->prev;
        }
        ctx->prev = ctx->next = NULL;
        __atomic_fetch_sub(&ctx->team->n_contexts, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&lock);
    return was_live;
}

static void ctx_recycle(shr_ctx_t *ctx)
{
    pthread_mutex_lock(&lock);
    ctx->team = NULL;
    ctx->world_pes = NULL;
    ctx->transport = NULL;
    ctx->remote_wins = NULL;
    ctx->next = recycled;
    recycled = ctx;
    pthread_mutex_unlock(&lock);
}

shr_status_t shr_ctx_create(shr_team_t *team, long options, const char *routine,
                            shr_ctx_t **ctx_p)
{
    shr_ctx_t *ctx;

    if ((options & ~CTX_OPTIONS) != 0) {
        shr_warn("%s: options 0x%lx include unknown bits 0x%lx; use SHMEM_CTX_SERIALIZED, "
                 "SHMEM_CTX_PRIVATE and SHMEM_CTX_NOSTORE", routine, (unsigned long)options,
                 (unsigned long)(options & ~CTX_OPTIONS));
        return SHR_ERR_INVALID;
    }
    pthread_mutex_lock(&lock);
    ctx = recycled;
    if (ctx != NULL) {
        recycled = ctx->next;
    }
    pthread_mutex_unlock(&lock);
    if (ctx == NULL) {
        ctx = calloc(1, sizeof(*ctx));
        if (ctx != NULL && !shr_handle_register(SHR_HANDLE_CTX, ctx)) {
            free(ctx);
            ctx = NULL;
        }
        if (ctx == NULL) {
            shr_warn("%s: out of memory for a context", routine);
            return SHR_ERR_NO_MEMORY;
        }
    }
    ctx->options = options;
    ctx->predefined = false;
    ctx->creator = (pid_t)syscall(SYS_gettid);
    ctx->session_options = 0;
    ctx->session_total_ops = SIZE_MAX;
    ctx->transport = NULL;
    ctx->remote_wins = NULL;
    ctx->cmpl = (shr_cmpl_t){0};
    shr_ctx_bind(ctx, team);

    shr_status_t status = shr_remote_ctx_create(ctx, routine);
    if (status != SHR_OK) {
        ctx_recycle(ctx);
        return status;
    }
    registry_add(ctx);
    *ctx_p = ctx;
    return SHR_OK;
}

void shr_ctx_destroy(shr_ctx_t *ctx)
{
    if (!shr_ctx_is_live(ctx)) {
        return; /* already destroyed (e.g. with its team) */
    }
    shr_quiet(ctx);
    if (!registry_remove(ctx)) {
        return;
    }
    shr_remote_ctx_destroy(ctx);
    ctx_recycle(ctx);
}

int shr_ctx_destroy_all(shr_team_t *team)
{
    int n_private = 0;

    for (;;) {
        shr_ctx_t *ctx;

        pthread_mutex_lock(&lock);
        for (ctx = live; ctx != NULL; ctx = ctx->next) {
            if (team == NULL || ctx->team == team) {
                break;
            }
        }
        pthread_mutex_unlock(&lock);
        if (ctx == NULL) {
            return n_private;
        }
        n_private += (ctx->options & SHMEM_CTX_PRIVATE) != 0;
        shr_ctx_destroy(ctx);
    }
}
