/*
 * coll.h -- collective algorithms over teams and active sets, type-erased.
 * Works on core teams and the core RMA/AMO/wait paths; never on transports.
 *
 * Entry points take addresses, byte counts, a dtype and an op; `fn` is the
 * routine the user called (hang reports, cross-PE argument checks).  Team
 * forms run on a team's synchronisation area (team->sync); the deprecated
 * active-set forms run on the user's pSync (PE_start, logPE_stride,
 * PE_size) and leave it as they found it.  Not thread-safe per team or per
 * pSync (spec: one collective at a time per team); different teams may run
 * collectives in different threads.  docs/collectives.md has the design.
 */
#ifndef SHR_COLL_H
#define SHR_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dtype.h"
#include "core/team.h"

/* Words per cache line of a synchronisation area (team.c rounds slots to it). */
#define SHR_SYNC_LINE 8

/* Words of one team's synchronisation area for a job of n_pes PEs.  The
 * area must be zero when the team is created (fresh heap, or zeroed by
 * team destroy after its final barrier).  Thread-safe. */
size_t shr_coll_sync_words(int n_pes);

/* ---- synchronisation ---- */

/* All members of `team` arrive before any leaves.  Does not complete RMA
 * (that is the caller's quiet).  `fn` names the routine in hang reports;
 * shr_coll_barrier is the library's own (init, finalize, malloc, ...). */
void shr_coll_sync(const char *fn, shr_team_t *team);
void shr_coll_barrier(shr_team_t *team);
/* The team's last barrier (team destroy): every wait is on this PE's own
 * memory, so the PE may zero its copy of the team's area as soon as it
 * returns, while slower members still wait. */
void shr_coll_barrier_last(shr_team_t *team);
/* The same on an active set, with pSync (SHMEM_BARRIER_SYNC_SIZE longs);
 * back-to-back calls on the same set may reuse pSync. */
void shr_coll_barrier_aset(const char *fn, int PE_start, int logPE_stride, int PE_size,
                           long *pSync);

/* ---- data collectives: team forms (0 on success) and active-set forms ----
 * Active-set forms ignore the team argument's role and take the triplet and
 * pSync; `team` forms follow the 1.5 semantics (broadcast writes dest on the
 * root too; the active-set broadcast does not). */
int shr_coll_broadcast(const char *fn, shr_team_t *team, void *dest, const void *src, size_t len,
                       int root);
void shr_coll_broadcast_aset(const char *fn, void *dest, const void *src, size_t len, int root,
                             int PE_start, int logPE_stride, int PE_size, long *pSync);

/* Multithreaded forms (coll_req.c): `nthreads` threads of every PE call
 * with the same arguments, each its own `rank`, and each moves its slice.
 * A thread returns when its slice is complete on this PE; the collective
 * is complete when every thread has returned.  Thread-safe in that sense
 * only: one such collective per team at a time. */
int shr_coll_broadcast_mt(const char *fn, shr_team_t *team, void *dest, const void *src,
                          size_t len, int root, int nthreads, int rank);
int shr_coll_fcollect_mt(const char *fn, shr_team_t *team, void *dest, const void *src,
                         size_t len, int nthreads, int rank);
int shr_coll_reduce_mt(const char *fn, shr_team_t *team, void *dest, const void *src,
                       size_t count, shr_dtype_t dt, shr_op_t op, int nthreads, int rank);
/* One thread's part of a multithreaded barrier (quiet: the default
 * context's quiet first, as shmem_barrier_all) or sync: the nthreads
 * threads meet, the last runs the team's sync for all.  0. */
int shr_coll_sync_mt(const char *fn, shr_team_t *team, bool quiet, int nthreads);

/* `fixed`: fcollect (same len everywhere) rather than collect. */
int shr_coll_collect(const char *fn, shr_team_t *team, void *dest, const void *src, size_t len,
                     bool fixed);
void shr_coll_collect_aset(const char *fn, void *dest, const void *src, size_t len, bool fixed,
                           int PE_start, int logPE_stride, int PE_size, long *pSync);

/* Strides dst/sst in elements (0 = contiguous alltoall), nelems per PE. */
int shr_coll_alltoall(const char *fn, shr_team_t *team, void *dest, const void *src,
                      ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem);
void shr_coll_alltoall_aset(const char *fn, void *dest, const void *src, ptrdiff_t dst,
                            ptrdiff_t sst, size_t nelems, size_t elem, int PE_start,
                            int logPE_stride, int PE_size, long *pSync);

/* dest and src are equal (in place) or disjoint. */
int shr_coll_reduce(const char *fn, shr_team_t *team, void *dest, const void *src, size_t count,
                    shr_dtype_t dt, shr_op_t op);
void shr_coll_reduce_aset(const char *fn, void *dest, const void *src, size_t count,
                          shr_dtype_t dt, shr_op_t op, int PE_start, int logPE_stride,
                          int PE_size, long *pSync);

/* Sum scan; exclusive gives zeros on team PE 0. */
int shr_coll_scan(const char *fn, shr_team_t *team, void *dest, const void *src, size_t count,
                  shr_dtype_t dt, bool inclusive);

/* True when reductions support (dt, op): the spec's type table. */
bool shr_coll_op_is_supported(shr_dtype_t dt, shr_op_t op);

/* Debug mode (SHR_CHECKS_ON): every entry point above also checks, across
 * the members, that they called the same collective with the same
 * arguments (sizes, root, type, operator, buffers); a member whose
 * arguments differ from member 0's gets one error line naming the routine,
 * both PEs, the argument and both values, and the job ends.  A wait that
 * lasts SHIMMER_HANG_TIMEOUT seconds is reported with the members that have
 * not arrived. */

#endif
