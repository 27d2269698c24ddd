/* sync.c -- barrier_all, barrier, team_sync, sync and sync_all (spec
 * 9.10.1-9.10.4). */
#include "api/api_inline.h"
#include "coll/coll.h"

void pshmem_barrier_all(void)
{
    SHR_API_CHECK(shr_check_init("shmem_barrier_all"));
    shr_quiet(shr_ctx_default);
    shr_coll_sync("shmem_barrier_all", shr_team_world);
}
SHR_API_ALIAS(shmem_barrier_all)

void pshmem_sync_all(void)
{
    SHR_API_CHECK(shr_check_init("shmem_sync_all"));
    /* sync does not complete RMA; the fence keeps this PE's own stores
     * ahead of the arrival flag, which the spec's examples rely on */
    shr_fence_stores();
    shr_coll_sync("shmem_sync_all", shr_team_world);
}
SHR_API_ALIAS(shmem_sync_all)

int pshmem_team_sync(shmem_team_t team)
{
    SHR_API_CHECK(shr_check_team("shmem_team_sync", team));
    shr_fence_stores();
    shr_coll_sync("shmem_team_sync", team);
    return 0;
}
SHR_API_ALIAS(shmem_team_sync)

/* The active set and pSync of the deprecated forms (debug mode). */
static SHR_COLD void check_aset(const char *fn, int start, int log, int size, long *pSync)
{
    shr_check_init(fn);
    if (log < 0 || log > 30 || size < 1 || start < 0 ||
        (long)start + ((long)(size - 1) << log) >= shr_g.n_pes) {
        shr_check_fail(fn, "the active set (PE_start %d, logPE_stride %d, PE_size %d) does not "
                           "fit the %d PEs of the job; it needs PE_start >= 0, logPE_stride >= "
                           "0, PE_size >= 1 and PE_start + (PE_size - 1) * 2^logPE_stride < %d",
                       start, log, size, shr_g.n_pes, shr_g.n_pes);
    }
    int rel = shr_g.my_pe - start;
    if (rel < 0 || (rel & ((1 << log) - 1)) != 0 || (rel >> log) >= size) {
        shr_check_fail(fn, "PE %d is not in the active set (PE_start %d, logPE_stride %d, "
                           "PE_size %d); only its members may call the collective",
                       shr_g.my_pe, start, log, size);
    }
    if (pSync == NULL) {
        shr_check_fail(fn, "pSync is NULL; pass a symmetric array of SHMEM_BARRIER_SYNC_SIZE "
                           "longs set to SHMEM_SYNC_VALUE");
    }
    shr_check_aligned(fn, "pSync", pSync, sizeof(long));
    shr_check_symmetric(fn, "pSync", pSync, SHMEM_BARRIER_SYNC_SIZE * sizeof(long));
}

void pshmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    SHR_API_CHECK(check_aset("shmem_barrier", PE_start, logPE_stride, PE_size, pSync));
    shr_quiet(shr_ctx_default);
    shr_coll_barrier_aset("shmem_barrier", PE_start, logPE_stride, PE_size, pSync);
}
SHR_API_ALIAS(shmem_barrier)

void pshmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    SHR_API_CHECK(check_aset("shmem_sync", PE_start, logPE_stride, PE_size, pSync));
    shr_fence_stores();
    shr_coll_barrier_aset("shmem_sync", PE_start, logPE_stride, PE_size, pSync);
}
SHR_API_ALIAS(shmem_sync)
