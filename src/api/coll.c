/*
 * coll.c -- the collective entry points the generated shims call (spec
 * 9.10.5-9.10.10) and the active-set barrier and sync (9.10.2-9.10.3):
 * runtime-gated argument checks, then one call into src/coll.  Cross-PE checks (same sizes, root, buffers on every member)
 * need communication and run inside src/coll when checks are on.
 */
#include <pthread.h>
#include <string.h>

#include "api/api_inline.h"
#include "core/req.h"
#include "coll/coll.h"

/* ---- checks (cold, debug mode) ---- */

static SHR_COLD void check_root(const char *fn, int root, int n)
{
    if (root < 0 || root >= n) {
        shr_check_fail(fn, "PE_root is %d, valid range 0..%d of the %d participating PEs; "
                           "pass the root's number in the team or active set, not its world PE",
                       root, n - 1, n);
    }
}

/* Ranges [a, a+alen) and [b, b+blen) share a byte. */
static bool overlaps(const void *a, size_t alen, const void *b, size_t blen)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return alen != 0 && blen != 0 && x < y + blen && y < x + alen;
}

/* Reductions and scans: the same array or disjoint ones. */
static SHR_COLD void check_in_place(const char *fn, const void *dest, const void *src,
                                    size_t len)
{
    if (dest != src && overlaps(dest, len, src, len)) {
        shr_check_fail(fn, "dest %p and source %p overlap partially (%zu bytes each); pass the "
                           "same array (in place) or arrays that do not overlap",
                       dest, src, len);
    }
}

/* Alltoall(s): dest and source apart (spec 1.5 section 6.4: overlapping
 * arguments are undefined). */
static SHR_COLD void check_separate(const char *fn, const void *dest, size_t dlen,
                                    const void *src, size_t slen)
{
    if (overlaps(dest, dlen, src, slen)) {
        shr_check_fail(fn, "dest %p (%zu bytes) and source %p (%zu bytes) overlap; give "
                           "them separate arrays", dest, dlen, src, slen);
    }
}

static SHR_COLD void check_team_call(const char *fn, shr_team_t *team)
{
    shr_check_team(fn, team);
}

static SHR_COLD void check_work(const char *fn, const char *what, const void *work, size_t len,
                                const void *dest, size_t dlen, const void *src, size_t slen)
{
    shr_check_symmetric(fn, what, work, len);
    if (overlaps(work, len, dest, dlen) || overlaps(work, len, src, slen)) {
        shr_check_fail(fn, "%s %p overlaps dest or source; give it its own symmetric array",
                       what, work);
    }
}

/* The active set fits the job and holds this PE. */
static SHR_ALWAYS_INLINE bool aset_has_me(int start, int log, int size)
{
    unsigned rel = (unsigned)(shr_g.my_pe - start);
    return log >= 0 && log <= 30 && size >= 1 && start >= 0 &&
           (long)start + ((long)(size - 1) << log) < shr_g.n_pes &&
           (rel & ((1u << log) - 1)) == 0 && (rel >> log) < (unsigned)size;
}

/* Once per routine per process: a fixed table of the names warned about
 * (more routines than slots only repeat the warning). */
static bool first_outside_call(const char *fn)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static const char *warned[64];
    bool first = true;

    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < sizeof(warned) / sizeof(warned[0]); i++) {
        if (warned[i] == NULL) {
            warned[i] = fn;
            break;
        }
        if (strcmp(warned[i], fn) == 0) {
            first = false;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return first;
}

/* False when the call is to do nothing (see aset_enter). */
static SHR_COLD bool check_aset_shape(const char *fn, int start, int log, int size)
{
    shr_check_init(fn);
    if (log < 0 || log > 30 || size < 1 || start < 0 ||
        (long)start + ((long)(size - 1) << log) >= shr_g.n_pes) {
        shr_check_fail(fn, "the active set (PE_start %d, logPE_stride %d, PE_size %d) does not "
                           "fit the %d PEs of the job; it needs PE_start >= 0, logPE_stride >= "
                           "0, PE_size >= 1 and PE_start + (PE_size - 1) * 2^logPE_stride < %d",
                       start, log, size, shr_g.n_pes, shr_g.n_pes);
    }
    if (shr_g.checks) {
        shr_check_fail(fn, "PE %d is not in the active set (PE_start %d, logPE_stride %d, "
                           "PE_size %d); only its members may call the collective",
                       shr_g.my_pe, start, log, size);
    }
    if (first_outside_call(fn)) {
        shr_warn("%s: PE %d is not in the active set (PE_start %d, logPE_stride %d, PE_size "
                 "%d): the call returns without effect, as with Open MPI's OSHMEM (once per "
                 "routine; SHMEM_DEBUG=1 makes it an error)", fn, shr_g.my_pe, start, log, size);
    }
    return false;
}

/* Checked on every call, checks on or not: a set that does not fit the job
 * would fault (an error always).  A PE outside the set: undefined in the
 * standard; Open MPI's OSHMEM and the code written for it return at once
 * without effect, so release mode does that with a warning and debug mode
 * reports it (docs/collectives.md).  A few integer operations against a
 * collective's hundreds of nanoseconds.  False: return without effect. */
static SHR_ALWAYS_INLINE bool aset_enter(const char *fn, int start, int log, int size)
{
    return SHR_LIKELY(aset_has_me(start, log, size)) || check_aset_shape(fn, start, log, size);
}

/* With checks on, after aset_enter: pSync and the buffers. */
static SHR_COLD void check_aset(const char *fn, long *pSync, const void *dest, size_t dlen,
                                const void *src, size_t slen)
{
    if (pSync == NULL) {
        shr_check_fail(fn, "pSync is NULL; pass a symmetric array of SHMEM_SYNC_SIZE longs "
                           "set to SHMEM_SYNC_VALUE");
    }
    shr_check_aligned(fn, "pSync", pSync, sizeof(long));
    check_work(fn, "pSync", pSync, SHMEM_SYNC_SIZE * sizeof(long), dest, dlen, src, slen);
}

/* ---- active-set barrier and sync (9.10.2, 9.10.3) ---- */

void pshmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    if (!aset_enter("shmem_barrier", PE_start, logPE_stride, PE_size)) {
        return;
    }
    SHR_API_TIMED(SHR_PROF_BARRIER, 0, check_aset("shmem_barrier", pSync, NULL, 0, NULL, 0),
                  (shr_quiet_before_arrival(shr_ctx_default),
                   shr_coll_barrier_aset("shmem_barrier", PE_start, logPE_stride, PE_size,
                                         pSync)));
}
SHR_API_ALIAS(shmem_barrier)

void pshmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    if (!aset_enter("shmem_sync", PE_start, logPE_stride, PE_size)) {
        return;
    }
    /* sync does not complete RMA; the fence keeps our own stores first */
    SHR_API_TIMED(SHR_PROF_BARRIER, 0, check_aset("shmem_sync", pSync, NULL, 0, NULL, 0),
                  (shr_fence_stores(),
                   shr_coll_barrier_aset("shmem_sync", PE_start, logPE_stride, PE_size, pSync)));
}
SHR_API_ALIAS(shmem_sync)

/* ---- alltoall(s) ---- */

static size_t strided_extent(size_t n, size_t nelems, ptrdiff_t stride, size_t elem)
{
    size_t count = n * nelems;
    return count == 0 ? 0 : ((count - 1) * (size_t)stride + 1) * elem;
}

static SHR_COLD void check_alltoall(const char *fn, int n, void *dest, const void *src,
                                    ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem)
{
    bool strided = strstr(fn, "alltoalls") != NULL;
    if (strided && (dst < 1 || sst < 1)) {
        shr_check_fail(fn, "dst is %td and sst is %td; both strides must be at least 1", dst,
                       sst);
    }
    if (!strided) {
        dst = sst = 1;
    }
    size_t dlen = strided_extent((size_t)n, nelems, dst, elem);
    size_t slen = strided_extent((size_t)n, nelems, sst, elem);
    shr_check_symmetric(fn, "dest", dest, dlen);
    shr_check_symmetric(fn, "source", src, slen);
    check_separate(fn, dest, dlen, src, slen);
}

/* The profile's family of an alltoall entry point (gated path only). */
static SHR_COLD shr_prof_family_t alltoall_family(const char *fn)
{
    return strstr(fn, "alltoalls") != NULL ? SHR_PROF_ALLTOALLS : SHR_PROF_ALLTOALL;
}

int shr_api_alltoall(const char *fn, shr_team_t *team, void *dest, const void *src,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem)
{
    int ret;

    SHR_API_TIMED(alltoall_family(fn), team != NULL ? nelems * elem * (size_t)team->n_pes : 0,
                  (check_team_call(fn, team),
                   check_alltoall(fn, team->n_pes, dest, src, dst, sst, nelems, elem)),
                  ret = shr_coll_alltoall(fn, team, dest, src, dst, sst, nelems, elem));
    return ret;
}

void shr_api_alltoall_aset(const char *fn, void *dest, const void *src, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, size_t elem, int PE_start,
                           int logPE_stride, int PE_size, long *pSync)
{
    if (!aset_enter(fn, PE_start, logPE_stride, PE_size)) {
        return;
    }
    SHR_API_TIMED(alltoall_family(fn), nelems * elem * (size_t)PE_size,
                  (check_aset(fn, pSync, dest, 0, src, 0),
                   check_alltoall(fn, PE_size, dest, src, dst, sst, nelems, elem)),
                  shr_coll_alltoall_aset(fn, dest, src, dst, sst, nelems, elem, PE_start,
                                         logPE_stride, PE_size, pSync));
}

/* ---- broadcast ---- */

static SHR_COLD void check_bcast(const char *fn, int n, void *dest, const void *src, size_t len,
                                 int root)
{
    check_root(fn, root, n);
    shr_check_symmetric(fn, "dest", dest, len);
    shr_check_symmetric(fn, "source", src, len);
    /* the same array: in place, as SOS and Open MPI allow (docs/collectives.md) */
    if (dest != src && overlaps(dest, len, src, len)) {
        shr_check_fail(fn, "dest %p and source %p overlap partially (%zu bytes each); pass "
                           "the same array (in place) or separate arrays", dest, src, len);
    }
}

int shr_api_broadcast(const char *fn, shr_team_t *team, void *dest, const void *src, size_t len,
                      int root)
{
    int ret;

    SHR_API_TIMED(SHR_PROF_BROADCAST, len,
                  (check_team_call(fn, team), check_bcast(fn, team->n_pes, dest, src, len, root)),
                  ret = shr_coll_broadcast(fn, team, dest, src, len, root));
    return ret;
}

void shr_api_broadcast_aset(const char *fn, void *dest, const void *src, size_t len, int root,
                            int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    if (!aset_enter(fn, PE_start, logPE_stride, PE_size)) {
        return;
    }
    SHR_API_TIMED(SHR_PROF_BROADCAST, len,
                  (check_aset(fn, pSync, dest, len, src, len),
                   check_bcast(fn, PE_size, dest, src, len, root)),
                  shr_coll_broadcast_aset(fn, dest, src, len, root, PE_start, logPE_stride,
                                          PE_size, pSync));
}

/* ---- collect / fcollect ---- */

/* collect, fcollect: source apart from dest, or in place: this PE's block
 * of dest (docs/collectives.md).  collect's offsets and total are known
 * only after an exchange: a source inside dest is checked with them, by
 * the cross-PE check (coll_collect.c). */
static SHR_COLD void check_collect(const char *fn, int n, int me, void *dest, const void *src,
                                   size_t len, bool fixed)
{
    size_t dlen = fixed ? (size_t)n * len : len, own = (size_t)me * len;

    shr_check_symmetric(fn, "dest", dest, dlen);
    shr_check_symmetric(fn, "source", src, len);
    if (fixed && src != (char *)dest + own && overlaps(dest, dlen, src, len)) {
        shr_check_fail(fn, "dest %p (%zu bytes) and source %p (%zu bytes) overlap but source "
                           "is not this PE's block; pass source = dest + %zu bytes (in place) "
                           "or separate arrays", dest, dlen, src, len, own);
    }
    if (!fixed && (uintptr_t)src < (uintptr_t)dest && overlaps(dest, len, src, len)) {
        shr_check_fail(fn, "source %p (%zu bytes) overlaps the start of dest %p; pass this "
                           "PE's block of dest (in place) or separate arrays", src, len, dest);
    }
}

int shr_api_collect(const char *fn, shr_team_t *team, void *dest, const void *src, size_t len,
                    bool fixed)
{
    int ret;

    SHR_API_TIMED(fixed ? SHR_PROF_FCOLLECT : SHR_PROF_COLLECT, len,
                  (check_team_call(fn, team),
                   check_collect(fn, team->n_pes, team->my_pe, dest, src, len, fixed)),
                  ret = shr_coll_collect(fn, team, dest, src, len, fixed));
    return ret;
}

void shr_api_collect_aset(const char *fn, void *dest, const void *src, size_t len, bool fixed,
                          int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    if (!aset_enter(fn, PE_start, logPE_stride, PE_size)) {
        return;
    }
    SHR_API_TIMED(fixed ? SHR_PROF_FCOLLECT : SHR_PROF_COLLECT, len,
                  (check_aset(fn, pSync, dest, len, src, len),
                   check_collect(fn, PE_size, (shr_g.my_pe - PE_start) >> logPE_stride, dest,
                                 src, len, fixed)),
                  shr_coll_collect_aset(fn, dest, src, len, fixed, PE_start, logPE_stride,
                                        PE_size, pSync));
}

/* ---- reductions and scans ---- */

static SHR_COLD void check_reduce(const char *fn, void *dest, const void *src, size_t len)
{
    shr_check_symmetric(fn, "dest", dest, len);
    shr_check_symmetric(fn, "source", src, len);
    check_in_place(fn, dest, src, len);
}

int shr_api_reduce(const char *fn, shr_team_t *team, void *dest, const void *src,
                   size_t nreduce, shr_dtype_t dt, shr_op_t op)
{
    int ret;

    SHR_API_TIMED(SHR_PROF_REDUCE, nreduce * shr_dtype_size(dt),
                  (check_team_call(fn, team),
                   check_reduce(fn, dest, src, nreduce * shr_dtype_size(dt))),
                  ret = shr_coll_reduce(fn, team, dest, src, nreduce, dt, op));
    return ret;
}

static SHR_COLD void check_reduce_aset(const char *fn, void *dest, const void *src, int nreduce,
                                       shr_dtype_t dt, void *pWrk)
{
    if (nreduce < 0) {
        shr_check_fail(fn, "nreduce is %d; it must be 0 or more", nreduce);
    }
    size_t es = shr_dtype_size(dt), len = (size_t)nreduce * es;
    size_t wrk = (size_t)nreduce / 2 + 1;
    if (wrk < SHMEM_REDUCE_MIN_WRKDATA_SIZE) {
        wrk = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    }
    check_reduce(fn, dest, src, len);
    check_work(fn, "pWrk", pWrk, wrk * es, dest, len, src, len);
}

void shr_api_reduce_aset(const char *fn, void *dest, const void *src, int nreduce,
                         shr_dtype_t dt, shr_op_t op, int PE_start, int logPE_stride,
                         int PE_size, void *pWrk, long *pSync)
{
    if (!aset_enter(fn, PE_start, logPE_stride, PE_size)) {
        return;
    }
    size_t len = (size_t)(nreduce > 0 ? nreduce : 0) * shr_dtype_size(dt);

    /* pWrk is not needed: partial results stay in the sources and dests */
    SHR_API_TIMED(SHR_PROF_REDUCE, len,
                  (check_aset(fn, pSync, dest, len, src, len),
                   check_reduce_aset(fn, dest, src, nreduce, dt, pWrk)),
                  shr_coll_reduce_aset(fn, dest, src, nreduce > 0 ? (size_t)nreduce : 0, dt, op,
                                       PE_start, logPE_stride, PE_size, pSync));
}

int shr_api_scan(const char *fn, shr_team_t *team, void *dest, const void *src, size_t nelems,
                 shr_dtype_t dt, bool inclusive)
{
    int ret;

    SHR_API_TIMED(SHR_PROF_SCAN, nelems * shr_dtype_size(dt),
                  (check_team_call(fn, team),
                   check_reduce(fn, dest, src, nelems * shr_dtype_size(dt))),
                  ret = shr_coll_scan(fn, team, dest, src, nelems, dt, inclusive));
    return ret;
}

/* ---- on request handles (shmemx.h, docs/requests.md) ----
 * A handle marked by shmemx_req_split makes the call one thread's slice of
 * a multithreaded collective (coll_req.c); otherwise the collective runs
 * as above.  Either way it is complete on this PE when the call returns
 * and the handle is left as it was.  The split path checks only this
 * thread's arguments: the cross-PE checks of debug mode meet one thread
 * per PE. */
int shr_api_broadcast_req(const char *fn, shr_team_t *team, void *dest, const void *src,
                          size_t len, int root, shmemx_req_t *req)
{
    int n, rank, ret;

    SHR_API_CHECK(shr_check_local(fn, "req", req, 1));
    shr_req_take_split(req, &n, &rank);
    if (n == 1) {
        return shr_api_broadcast(fn, team, dest, src, len, root);
    }
    SHR_API_TIMED(SHR_PROF_BROADCAST, len,
                  (check_team_call(fn, team), check_bcast(fn, team->n_pes, dest, src, len, root)),
                  ret = shr_coll_broadcast_mt(fn, team, dest, src, len, root, n, rank));
    return ret;
}

int shr_api_collect_req(const char *fn, shr_team_t *team, void *dest, const void *src,
                        size_t len, bool fixed, shmemx_req_t *req)
{
    int n, rank, ret;

    SHR_API_CHECK(shr_check_local(fn, "req", req, 1));
    shr_req_take_split(req, &n, &rank);
    if (n == 1) {
        return shr_api_collect(fn, team, dest, src, len, fixed);
    }
    if (!fixed) {
        shr_check_fail(fn, "collect cannot be split between threads (the sizes are known only "
                       "after the exchange); split fcollect, broadcast or a reduction, or call "
                       "collect with a handle that shmemx_req_split did not mark");
    }
    SHR_API_TIMED(SHR_PROF_FCOLLECT, len,
                  (check_team_call(fn, team),
                   check_collect(fn, team->n_pes, team->my_pe, dest, src, len, true)),
                  ret = shr_coll_fcollect_mt(fn, team, dest, src, len, n, rank));
    return ret;
}

int shr_api_alltoall_req(const char *fn, shr_team_t *team, void *dest, const void *src,
                         size_t nelems, size_t elem, shmemx_req_t *req)
{
    int n, rank;

    SHR_API_CHECK(shr_check_local(fn, "req", req, 1));
    shr_req_take_split(req, &n, &rank);
    if (n != 1) {
        shr_check_fail(fn, "alltoall cannot be split between threads; split fcollect, "
                       "broadcast or a reduction, or call alltoall with a handle that "
                       "shmemx_req_split did not mark");
    }
    return shr_api_alltoall(fn, team, dest, src, 0, 0, nelems, elem);
}

int shr_api_reduce_req(const char *fn, shr_team_t *team, void *dest, const void *src,
                       size_t nreduce, shr_dtype_t dt, shr_op_t op, shmemx_req_t *req)
{
    int n, rank, ret;

    SHR_API_CHECK(shr_check_local(fn, "req", req, 1));
    shr_req_take_split(req, &n, &rank);
    if (n == 1) {
        return shr_api_reduce(fn, team, dest, src, nreduce, dt, op);
    }
    SHR_API_TIMED(SHR_PROF_REDUCE, nreduce * shr_dtype_size(dt),
                  (check_team_call(fn, team),
                   check_reduce(fn, dest, src, nreduce * shr_dtype_size(dt))),
                  ret = shr_coll_reduce_mt(fn, team, dest, src, nreduce, dt, op, n, rank));
    return ret;
}
