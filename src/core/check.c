/* check.c -- the argument checks (see check.h). */
#include "core/check.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/env.h"
#include "core/handles.h"
#include "core/state.h"
#include "util/log.h"

_Noreturn void shr_check_fail(const char *fn, const char *fmt, ...)
{
    char line[768];
    int n = snprintf(line, sizeof(line), "%s: ", fn);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    shr_error("%s", line);
    shr_fatal(SHR_CHECK_STATUS, line);
}

/* Handles are pointers: a garbage one is refused before it is read. */
static void check_team_known(const char *fn, shr_team_t *team)
{
    if (!shr_handle_known(SHR_HANDLE_TEAM, team)) {
        shr_check_fail(fn, "team %p is not a team handle (never returned by a split or a "
                           "predefined team); pass a team from shmem_team_split_* or "
                           "SHMEM_TEAM_WORLD", (void *)team);
    }
}

static void check_ctx_known(const char *fn, shr_ctx_t *ctx)
{
    if (!shr_handle_known(SHR_HANDLE_CTX, ctx)) {
        shr_check_fail(fn, "ctx %p is not a context handle (never returned by "
                           "shmem_ctx_create); pass a context from shmem_ctx_create or "
                           "SHMEM_CTX_DEFAULT", (void *)ctx);
    }
}

/* SHMEM_CTX_PRIVATE: only the creating thread may use the context (a
 * transport may run it without locks).  Waiting for a request handle
 * with a part on it is not a use (shmemx_req_*: no context checked). */
static void check_ctx_thread(const char *fn, shr_ctx_t *ctx)
{
    if ((ctx->options & SHMEM_CTX_PRIVATE) == 0) {
        return;
    }
    pid_t self = (pid_t)syscall(SYS_gettid);
    if (self != ctx->creator) {
        shr_check_fail(fn, "ctx %p is SHMEM_CTX_PRIVATE to thread %d but thread %d uses it; "
                           "only the thread that created it may use it (create one per "
                           "thread, or drop SHMEM_CTX_PRIVATE)",
                       (void *)ctx, (int)ctx->creator, (int)self);
    }
}

void shr_check_init(const char *fn)
{
    if (!shr_g.initialized) {
        /* not joined yet: the launcher's rank still names the PE */
        const char *rank = shr_env_get_raw("SHIMMER_BOOT_RANK");
        if (rank == NULL) {
            rank = shr_env_get_raw("PMIX_RANK");
        }
        if (rank != NULL && !shr_g.finalized) {
            char host[64] = "";
            gethostname(host, sizeof(host) - 1);
            shr_log_set_identity(atoi(rank), host);
        }
        shr_check_fail(fn, "called %s; call shmem_init() first",
                       shr_g.finalized ? "after shmem_finalize" : "before shmem_init");
    }
}

static const char *team_name(const shr_team_t *team)
{
    if (team == shr_team_world) {
        return "SHMEM_TEAM_WORLD";
    }
    return team == shr_team_shared ? "SHMEM_TEAM_SHARED" : "the context's team";
}

/* The one line for a PE outside the team it counts in (NULL: the world's,
 * whose size shr_g holds from init on). */
static SHR_COLD _Noreturn void fail_pe_range(const char *fn, const shr_team_t *team, int pe)
{
    bool world = team == NULL || team == shr_team_world;

    shr_check_fail(fn, "pe is %d, valid range 0..%d of %s; pass a PE number below %s", pe,
                   (world ? shr_g.n_pes : team->n_pes) - 1,
                   world ? "SHMEM_TEAM_WORLD" : team_name(team),
                   world ? "shmem_n_pes()" : "that team's shmem_team_n_pes()");
}

void shr_check_ctx_pe(const char *fn, shr_ctx_t *ctx, int pe)
{
    shr_check_init(fn);
    if (ctx == SHMEM_CTX_INVALID) {
        shr_check_fail(fn, "ctx is SHMEM_CTX_INVALID; pass a context from shmem_ctx_create "
                           "or SHMEM_CTX_DEFAULT");
    }
    check_ctx_known(fn, ctx);
    if (!shr_ctx_is_live(ctx)) {
        shr_check_fail(fn, "ctx %p is not a live context (destroyed or never created)",
                       (void *)ctx);
    }
    check_ctx_thread(fn, ctx);
    if (pe < 0 || pe >= ctx->team->n_pes) {
        fail_pe_range(fn, ctx->team, pe);
    }
}

void shr_check_ctx_pe_fail(const char *fn, shr_ctx_t *ctx, int pe)
{
    /* ends the job (ctx->n_pes is its team's size); the line after it
     * only tells the compiler so */
    shr_check_ctx_pe(fn, ctx, pe);
    fail_pe_range(fn, ctx->team, pe);
}

void shr_check_symmetric(const char *fn, const char *what, const void *addr, size_t len)
{
    uint64_t off;
    int s;

    if (len == 0 || shr_addr_is_user_symmetric(addr, len)) {
        return;
    }
    if ((s = shr_user_seg(addr, 1, &off)) >= 0) {
        shr_check_fail(fn, "%s %p is not symmetric (its %zu bytes run past the end of the %s, "
                           "which lies %zu bytes from it); keep transfers inside one symmetric object",
                       what, addr, len, s == SHR_SEG_HEAP ? "symmetric heap" : "program's globals",
                       shr_g.seg[s].user_size - (size_t)off);
    }
    shr_check_fail(fn, "%s %p is not a symmetric address (neither in the symmetric heap nor "
                       "a global or static variable of the program); allocate it with "
                       "shmem_malloc or make it a global variable", what, addr);
}

void shr_check_local(const char *fn, const char *what, const void *addr, size_t len)
{
    if (len != 0 && addr == NULL) {
        shr_check_fail(fn, "%s is NULL for a transfer of %zu bytes", what, len);
    }
}

void shr_check_user_transfer(const char *fn, const char *remote_name, const void *remote,
                             size_t len, const char *local_name, const void *local, int world_pe)
{
    if (world_pe < 0 || world_pe >= shr_g.n_pes) {
        fail_pe_range(fn, NULL, world_pe);
    }
    shr_check_symmetric(fn, remote_name, remote, len);
    if (local_name != NULL) {
        shr_check_local(fn, local_name, local, len);
    }
}

void shr_check_aligned(const char *fn, const char *what, const void *addr, size_t align)
{
    if ((uintptr_t)addr % align != 0) {
        shr_check_fail(fn, "%s %p is not aligned to %zu bytes as its type requires", what, addr,
                       align);
    }
}

void shr_check_cmp(const char *fn, int cmp)
{
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE) {
        shr_check_fail(fn, "cmp is %d; use one of SHMEM_CMP_EQ, _NE, _GT, _GE, _LT, _LE", cmp);
    }
}

void shr_check_team(const char *fn, shr_team_t *team)
{
    shr_check_init(fn);
    if (team == SHMEM_TEAM_INVALID) {
        shr_check_fail(fn, "team is SHMEM_TEAM_INVALID; a PE that is not a member of a team "
                           "must not call its collectives");
    }
    check_team_known(fn, team);
    if (!shr_team_is_live(team)) {
        shr_check_fail(fn, "team %p is not a live team (destroyed or never created)",
                       (void *)team);
    }
}

void shr_check_team_handle(const char *fn, shr_team_t *team)
{
    shr_check_init(fn);
    if (team != SHMEM_TEAM_INVALID) {
        check_team_known(fn, team);
    }
    if (team != SHMEM_TEAM_INVALID && !shr_team_is_live(team)) {
        shr_check_fail(fn, "team %p is not a live team (destroyed or never created); pass a "
                           "team from a split, a predefined team or SHMEM_TEAM_INVALID",
                       (void *)team);
    }
}

void shr_check_ctx(const char *fn, shr_ctx_t *ctx, bool invalid_ok)
{
    shr_check_init(fn);
    if (ctx == SHMEM_CTX_INVALID) {
        if (!invalid_ok) {
            shr_check_fail(fn, "ctx is SHMEM_CTX_INVALID; pass a context from "
                               "shmem_ctx_create or SHMEM_CTX_DEFAULT");
        }
        return;
    }
    check_ctx_known(fn, ctx);
    if (!shr_ctx_is_live(ctx)) {
        shr_check_fail(fn, "ctx %p is not a live context (destroyed or never created)",
                       (void *)ctx);
    }
    check_ctx_thread(fn, ctx);
}

void shr_check_init_thread(const char *fn)
{
    shr_check_init(fn);
    pid_t self = (pid_t)syscall(SYS_gettid);
    if (self != shr_g.init_thread) {
        shr_check_fail(fn, "called from thread %d but the library was initialized by thread "
                           "%d; call it from the thread that called shmem_init_thread",
                       (int)self, (int)shr_g.init_thread);
    }
}

void shr_check_rma(const char *fn, shr_ctx_t *ctx, const char *remote_name, const void *remote,
                   const char *local_name, const void *local, size_t len, int pe)
{
    shr_check_ctx_pe(fn, ctx, pe);
    shr_check_symmetric(fn, remote_name, remote, len);
    shr_check_local(fn, local_name, local, len);
}

void shr_check_strided(const char *fn, shr_ctx_t *ctx, const char *remote_name,
                       const void *remote, ptrdiff_t rstride, const char *local_name,
                       const void *local, ptrdiff_t lstride, size_t bsize, size_t nblocks,
                       size_t elem, int pe)
{
    shr_check_ctx_pe(fn, ctx, pe);
    if (nblocks == 0 || bsize == 0) {
        return;
    }
    if (rstride < 1 || lstride < 1) {
        shr_check_fail(fn, "strides must be at least 1 element (got %td and %td)", rstride,
                       lstride);
    }
    if (bsize > 1 && ((size_t)rstride < bsize || (size_t)lstride < bsize)) {
        shr_check_fail(fn, "strides (%td, %td) must be at least the block size %zu", rstride,
                       lstride, bsize);
    }
    size_t span = ((nblocks - 1) * (size_t)rstride + bsize) * elem;
    shr_check_symmetric(fn, remote_name, remote, span);
    shr_check_local(fn, local_name, local, span);
}

void shr_check_amo(const char *fn, shr_ctx_t *ctx, const void *dest, size_t size, int pe)
{
    shr_check_ctx_pe(fn, ctx, pe);
    shr_check_symmetric(fn, "dest", dest, size);
    shr_check_aligned(fn, "dest", dest, size);
}

void shr_check_signal(const char *fn, shr_ctx_t *ctx, const uint64_t *sig_addr, int sig_op,
                      int pe)
{
    shr_check_amo(fn, ctx, sig_addr, sizeof(uint64_t), pe);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) {
        shr_check_fail(fn, "sig_op is %d; use SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD", sig_op);
    }
}

void shr_check_wait(const char *fn, const void *ivars, size_t nelems, size_t size)
{
    shr_check_init(fn);
    shr_check_symmetric(fn, "ivar", ivars, nelems * size);
    shr_check_aligned(fn, "ivar", ivars, size);
}
