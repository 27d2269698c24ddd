/*
 * check.h -- argument checks of the public routines.  Compiled into every
 * build and gated at run time by SHR_CHECKS_ON (core/state.h: SHMEM_DEBUG=1
 * or SHIMMER_CHECKS=1; always on before init and after finalize, so a call
 * there is reported instead of crashing).  A failed check logs one line
 * naming the routine, the argument, the bad value and the fix, then ends
 * the job (status 1).  All are cold and thread-safe.
 */
#ifndef SHR_CHECK_H
#define SHR_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/team.h"
#include "util/compiler.h"

#define SHR_CHECK_STATUS 1

/* The library is initialized. */
SHR_COLD void shr_check_init(const char *fn);
/* ctx is a live context; pe is a PE number of its team. */
SHR_COLD void shr_check_ctx_pe(const char *fn, shr_ctx_t *ctx, int pe);
/* shr_check_ctx_pe for a pe the caller found outside ctx's n_pes: ends
 * the job.  Declared so, a shim that tests the PE inline keeps nothing
 * live across the call (no registers saved: a put + quiet waits for every
 * store before its fence, pushes too). */
SHR_COLD _Noreturn void shr_check_ctx_pe_fail(const char *fn, shr_ctx_t *ctx, int pe);
/* [addr, addr+len) is symmetric memory the user may name (`what` = the
 * parameter's name); len 0 accepts anything. */
SHR_COLD void shr_check_symmetric(const char *fn, const char *what, const void *addr, size_t len);
/* A local buffer of len bytes: not NULL unless len is 0. */
SHR_COLD void shr_check_local(const char *fn, const char *what, const void *addr, size_t len);
/* The always-on checks' cold half: a program's transfer that shr_user_ptr
 * (or a NULL local buffer) sent off the fast path.  Ends the job naming
 * what is wrong -- the PE, an address outside the user's symmetric memory
 * or a length that runs past its end, a NULL buffer -- and returns when
 * nothing is (a remote peer, or length 0).  local_name may be NULL. */
SHR_COLD void shr_check_user_transfer(const char *fn, const char *remote_name, const void *remote,
                                      size_t len, const char *local_name, const void *local,
                                      int world_pe);
/* addr is aligned to `align` bytes. */
SHR_COLD void shr_check_aligned(const char *fn, const char *what, const void *addr, size_t align);
/* cmp is one of SHMEM_CMP_*. */
SHR_COLD void shr_check_cmp(const char *fn, int cmp);
/* team is a valid team handle (not SHMEM_TEAM_INVALID). */
SHR_COLD void shr_check_team(const char *fn, shr_team_t *team);

/* ctx is a live context (SHMEM_CTX_INVALID passes when `invalid_ok`: the
 * routines for which it is a defined no-op). */
SHR_COLD void shr_check_ctx(const char *fn, shr_ctx_t *ctx, bool invalid_ok);
/* team is SHMEM_TEAM_INVALID (a defined no-op or error return for the team
 * routines) or a live team: not destroyed, not garbage. */
SHR_COLD void shr_check_team_handle(const char *fn, shr_team_t *team);
/* The caller is the thread that initialized the library (finalize). */
SHR_COLD void shr_check_init_thread(const char *fn);

/* Reports a user error and ends the job.  `fn` is the routine. */
SHR_COLD _Noreturn void shr_check_fail(const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Composite checks used by the API layer. */
SHR_COLD void shr_check_rma(const char *fn, shr_ctx_t *ctx, const char *remote_name,
                            const void *remote, const char *local_name, const void *local,
                            size_t len, int pe);
SHR_COLD void shr_check_strided(const char *fn, shr_ctx_t *ctx, const char *remote_name,
                                const void *remote, ptrdiff_t rstride, const char *local_name,
                                const void *local, ptrdiff_t lstride, size_t bsize,
                                size_t nblocks, size_t elem, int pe);
SHR_COLD void shr_check_signal(const char *fn, shr_ctx_t *ctx, const uint64_t *sig_addr,
                               int sig_op, int pe);
/* Local wait variables: symmetric (a peer updates them), aligned.  cmp is
 * checked always (SHR_API_CHECK_CMP). */
SHR_COLD void shr_check_wait(const char *fn, const void *ivars, size_t nelems, size_t size);
SHR_COLD void shr_check_amo(const char *fn, shr_ctx_t *ctx, const void *dest, size_t size,
                            int pe);

#endif
