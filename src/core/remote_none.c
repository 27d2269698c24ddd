/* remote_none.c -- the transport `none`: every PE is load/store reachable.
 * A job on one node uses it (nothing is loaded); a build without a remote
 * transport refuses at init a job that needs one, naming the PE. */
#include "core/remote.h"

#include <stdio.h>
#include <time.h>

#include "core/state.h"
#include "util/log.h"

static _Noreturn void none_unreachable(int pe)
{
    char line[256];
    snprintf(line, sizeof(line), "PE %d is on another node but this Shimmer was built without "
             "a remote transport; rebuild with UCX (libucx-dev) or run every PE on one node",
             pe);
    shr_error("%s", line);
    shr_fatal(1, line);
}

static shr_status_t none_publish(const char *routine, void *early)
{
    (void)routine, (void)early;
    return SHR_OK;
}

static shr_status_t none_init(const char *routine, unsigned *caps_p)
{
    *caps_p = SHR_REMOTE_CAP_CPU_ATOMICS;
    for (int pe = 0; pe < shr_g.n_pes; pe++) {
        if (shr_g.seg[SHR_SEG_HEAP].peer_base[pe] == NULL) {
            shr_error("%s: PE %d is not on this node (or SHIMMER_REMOTE_PES makes it remote) but "
                      "this Shimmer was built without a remote transport; rebuild with UCX "
                      "(libucx-dev) or run every PE on one node", routine, pe);
            return SHR_ERR_UNREACHABLE;
        }
    }
    return SHR_OK;
}

static bool none_final_barrier(void (*watch)(void))
{
    (void)watch;
    return false;
}

static bool none_peek(const int *pes, size_t npes, const void *src, void *dest, size_t len)
{
    (void)pes, (void)npes, (void)src, (void)dest, (void)len;
    return false; /* every PE is mapped: never called */
}

static void none_fini(void)
{
}

static shr_status_t none_ctx_create(shr_ctx_t *ctx, const char *routine)
{
    (void)routine;
    ctx->transport = NULL;
    return SHR_OK;
}

static void none_ctx_destroy(shr_ctx_t *ctx)
{
    (void)ctx;
}

static void none_put(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                     shr_cmpl_t *cmpl)
{
    (void)ctx, (void)dest, (void)src, (void)len, (void)cmpl;
    none_unreachable(pe);
}

static void none_get(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                     shr_cmpl_t *cmpl)
{
    (void)ctx, (void)dest, (void)src, (void)len, (void)cmpl;
    none_unreachable(pe);
}

static void none_amo(shr_ctx_t *ctx, shr_amo_op_t op, void *fetch, void *dest, uint64_t value,
                     uint64_t cond, size_t size, int pe, shr_cmpl_t *cmpl)
{
    (void)ctx, (void)op, (void)fetch, (void)dest, (void)value, (void)cond, (void)size;
    (void)cmpl;
    none_unreachable(pe);
}

static void none_put_signal(shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                            uint64_t *sig, uint64_t value, int sig_op, int pe, shr_cmpl_t *cmpl)
{
    (void)ctx, (void)dest, (void)src, (void)len, (void)sig, (void)value, (void)sig_op;
    (void)cmpl;
    none_unreachable(pe);
}

static void none_fence(shr_ctx_t *ctx)
{
    (void)ctx;
}

static void none_quiet(shr_ctx_t *ctx, const int *pes, size_t npes)
{
    (void)ctx, (void)pes, (void)npes;
}

static void none_wait(shr_ctx_t *ctx, shr_cmpl_t *cmpl)
{
    (void)ctx, (void)cmpl;
}

static void none_flush(shr_ctx_t *ctx, const int *pes, size_t npes, shr_cmpl_t *cmpl)
{
    (void)ctx, (void)pes, (void)npes, (void)cmpl;
}

static bool none_test(shr_ctx_t *ctx, shr_cmpl_t *cmpl)
{
    (void)ctx, (void)cmpl;
    return true;
}

static void none_progress(void)
{
}

static bool none_nap(uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
    nanosleep(&ts, NULL);
    return false;
}

const shr_remote_ops_t shr_remote_none = {
    .name = "none",
    .abi = SHR_REMOTE_ABI,
    .version = SHIMMER_VERSION_STRING,
    .publish = none_publish,
    .init = none_init,
    .final_barrier = none_final_barrier,
    .peek = none_peek,
    .fini = none_fini,
    .ctx_create = none_ctx_create,
    .ctx_destroy = none_ctx_destroy,
    .put = none_put,
    .get = none_get,
    .amo = none_amo,
    .put_signal = none_put_signal,
    .fence = none_fence,
    .quiet = none_quiet,
    .wait = none_wait,
    .flush = none_flush,
    .test = none_test,
    .progress = none_progress,
    .nap = none_nap,
};
