/* remote_none.c -- the remote operations of a build without a remote
 * transport: every PE must be load/store reachable. */
#include "core/remote.h"

#include <stdio.h>
#include <time.h>

#include "core/state.h"
#include "util/log.h"

static _Noreturn void unreachable(int pe)
{
    char line[256];
    snprintf(line, sizeof(line), "PE %d is on another node but this Shimmer was built without "
             "a remote transport; rebuild with UCX (libucx-dev) or run every PE on one node",
             pe);
    shr_error("%s", line);
    shr_fatal(1, line);
}

void shr_remote_prestart(void)
{
}

shr_status_t shr_remote_publish(const char *routine)
{
    (void)routine;
    return SHR_OK;
}

shr_status_t shr_remote_init(const char *routine)
{
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

bool shr_remote_final_barrier(void)
{
    return false;
}

void shr_remote_fini(void)
{
}

shr_status_t shr_remote_ctx_create(shr_ctx_t *ctx, const char *routine)
{
    (void)ctx, (void)routine;
    return SHR_OK;
}

void shr_remote_ctx_destroy(shr_ctx_t *ctx)
{
    (void)ctx;
}

void shr_remote_put(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe, bool nbi)
{
    (void)ctx, (void)dest, (void)src, (void)len, (void)nbi;
    unreachable(pe);
}

void shr_remote_get(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe, bool nbi)
{
    (void)ctx, (void)dest, (void)src, (void)len, (void)nbi;
    unreachable(pe);
}

uint64_t shr_remote_amo(shr_ctx_t *ctx, shr_amo_op_t op, void *dest, uint64_t value,
                        uint64_t cond, size_t size, int pe)
{
    (void)ctx, (void)op, (void)dest, (void)value, (void)cond, (void)size;
    unreachable(pe);
}

void shr_remote_amo_nbi(shr_ctx_t *ctx, shr_amo_op_t op, void *fetch, void *dest,
                        uint64_t value, uint64_t cond, size_t size, int pe)
{
    (void)ctx, (void)op, (void)fetch, (void)dest, (void)value, (void)cond, (void)size;
    unreachable(pe);
}

void shr_remote_fence(shr_ctx_t *ctx)
{
    (void)ctx;
}

void shr_remote_quiet(shr_ctx_t *ctx, const int *pes, size_t npes)
{
    (void)ctx, (void)pes, (void)npes;
}

void shr_remote_progress(void)
{
}

bool shr_remote_nap(uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
    nanosleep(&ts, NULL);
    return false;
}
