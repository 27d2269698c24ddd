/* session.c -- communication sessions (spec 9.9, OpenSHMEM 1.6).
 *
 * Sessions are hints: the options and config are recorded on the context
 * (for a transport that batches) and change no completion or ordering
 * semantics.  On this node nothing is worth batching: a put is a store.
 * A context may be shared by threads, so the fields are updated
 * atomically. */
#include "api/api_inline.h"

void pshmem_ctx_session_start(shmem_ctx_t ctx, long options,
                              const shmem_ctx_session_config_t *config, long config_mask)
{
    static const char fn[] = "shmem_ctx_session_start";

    SHR_API_CHECK(shr_check_ctx(fn, ctx, true));
    if (ctx == SHMEM_CTX_INVALID) {
        return;
    }
    /* a second start adds options; masked config fields replace old ones */
    __atomic_fetch_or(&ctx->session_options, options | SHR_SESSION_OPEN, __ATOMIC_RELAXED);
    if (config != NULL && (config_mask & SHMEM_CTX_SESSION_TOTAL_OPS)) {
        __atomic_store_n(&ctx->session_total_ops, config->total_ops, __ATOMIC_RELAXED);
    }
}
SHR_API_ALIAS(shmem_ctx_session_start)

void pshmem_ctx_session_stop(shmem_ctx_t ctx)
{
    SHR_API_CHECK(shr_check_ctx("shmem_ctx_session_stop", ctx, true));
    if (ctx == SHMEM_CTX_INVALID) {
        return;
    }
    /* idempotent: a stopped session stays stopped */
    __atomic_store_n(&ctx->session_options, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&ctx->session_total_ops, SIZE_MAX, __ATOMIC_RELAXED);
}
SHR_API_ALIAS(shmem_ctx_session_stop)
