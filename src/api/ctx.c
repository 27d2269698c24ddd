/* ctx.c -- context management routines (spec 9.5).  Creation failures
 * return nonzero with SHMEM_CTX_INVALID and leave the library usable. */

#include "api/api_inline.h"
#include "util/log.h"

static void check_out(const char *fn, const char *what, const void *ptr)
{
    if (ptr == NULL) {
        shr_check_fail(fn, "%s is NULL; pass the address of a handle to fill in", what);
    }
}

static int create(const char *fn, shr_team_t *team, long options, shmem_ctx_t *ctx)
{
    shr_ctx_t *created;

    if (shr_ctx_create(team, options, fn, &created) != SHR_OK) {
        *ctx = SHMEM_CTX_INVALID;
        return 1;
    }
    *ctx = created;
    return 0;
}

int pshmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    static const char fn[] = "shmem_ctx_create";

    int ret;

    SHR_API_CHECK((shr_check_init(fn), check_out(fn, "ctx", ctx)));
    SHR_API_TIMED(SHR_PROF_CTX, 0, (void)0, ret = create(fn, shr_team_world, options, ctx));
    return ret;
}
SHR_API_ALIAS(shmem_ctx_create)

int pshmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    static const char fn[] = "shmem_team_create_ctx";

    SHR_API_CHECK((shr_check_team_handle(fn, team), check_out(fn, "ctx", ctx)));
    if (team == SHMEM_TEAM_INVALID) {
        *ctx = SHMEM_CTX_INVALID;
        return 1;
    }
    int ret;
    SHR_API_TIMED(SHR_PROF_CTX, 0, (void)0, ret = create(fn, team, options, ctx));
    return ret;
}
SHR_API_ALIAS(shmem_team_create_ctx)

static void check_destroy(const char *fn, shr_ctx_t *ctx)
{
    shr_check_ctx(fn, ctx, true);
    if (ctx == SHMEM_CTX_DEFAULT) {
        shr_check_fail(fn, "ctx is SHMEM_CTX_DEFAULT, which cannot be destroyed");
    }
}

void pshmem_ctx_destroy(shmem_ctx_t ctx)
{
    static const char fn[] = "shmem_ctx_destroy";

    SHR_API_CHECK(check_destroy(fn, ctx));
    if (ctx == SHMEM_CTX_INVALID || ctx->predefined) {
        return;
    }
    SHR_API_TIMED(SHR_PROF_CTX, 0, (void)0, shr_ctx_destroy(ctx));
}
SHR_API_ALIAS(shmem_ctx_destroy)

int pshmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    static const char fn[] = "shmem_ctx_get_team";

    SHR_API_CHECK((shr_check_ctx(fn, ctx, true), check_out(fn, "team", team)));
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return 1;
    }
    *team = ctx->team;
    return 0;
}
SHR_API_ALIAS(shmem_ctx_get_team)
