/* ordering.c -- fence, quiet and pe_quiet (spec 9.12). */
#include "api/api_inline.h"

/* fence/quiet on SHMEM_CTX_INVALID are defined no-ops */
static void check_ctx(const char *fn, shr_ctx_t *ctx)
{
    shr_check_ctx(fn, ctx, true);
}

void pshmem_ctx_fence(shmem_ctx_t ctx)
{
    SHR_API_TIMED(SHR_PROF_FENCE, 0, check_ctx("shmem_ctx_fence", ctx),
                  ctx != SHMEM_CTX_INVALID ? shr_fence(ctx) : (void)0);
}
SHR_API_ALIAS(shmem_ctx_fence)

void pshmem_fence(void)
{
    SHR_API_TIMED(SHR_PROF_FENCE, 0, shr_check_init("shmem_fence"), shr_fence(shr_ctx_default));
}
SHR_API_ALIAS(shmem_fence)

void pshmem_ctx_quiet(shmem_ctx_t ctx)
{
    SHR_API_TIMED(SHR_PROF_QUIET, 0, check_ctx("shmem_ctx_quiet", ctx),
                  ctx != SHMEM_CTX_INVALID ? shr_quiet(ctx) : (void)0);
}
SHR_API_ALIAS(shmem_ctx_quiet)

void pshmem_quiet(void)
{
    SHR_API_TIMED(SHR_PROF_QUIET, 0, shr_check_init("shmem_quiet"), shr_quiet(shr_ctx_default));
}
SHR_API_ALIAS(shmem_quiet)

static void pe_quiet(const char *fn, shr_ctx_t *ctx, const int *target_pes, size_t npes)
{
    int world[64];

    if (SHR_CHECKS_ON()) {
        check_ctx(fn, ctx);
        for (size_t i = 0; i < npes && ctx != SHMEM_CTX_INVALID; i++) {
            shr_check_ctx_pe(fn, ctx, target_pes[i]);
        }
    }
    if (npes == 0 || ctx == SHMEM_CTX_INVALID) {
        return;
    }
    /* completion per PE is only a cost question; translate what fits and
     * quiet everything otherwise */
    if (npes <= SHR_ARRAY_SIZE(world)) {
        for (size_t i = 0; i < npes; i++) {
            world[i] = shr_ctx_world_pe(ctx, target_pes[i]);
        }
        shr_quiet_pes(ctx, world, npes);
    } else {
        shr_quiet(ctx);
    }
}

void pshmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    SHR_API_TIMED(SHR_PROF_QUIET, 0, (void)0, pe_quiet("shmem_ctx_pe_quiet", ctx, target_pes, npes));
}
SHR_API_ALIAS(shmem_ctx_pe_quiet)

void pshmem_pe_quiet(const int *target_pes, size_t npes)
{
    SHR_API_TIMED(SHR_PROF_QUIET, 0, (void)0,
                  pe_quiet("shmem_pe_quiet", shr_ctx_default, target_pes, npes));
}
SHR_API_ALIAS(shmem_pe_quiet)
