/* lock.c -- the lock routines (spec 9.13): checks, then core's MCS queue
 * lock (core/lock.c). */
#include "api/api_inline.h"
#include "core/lock.h"

static void check_lock(const char *fn, long *lock)
{
    shr_check_init(fn);
    if (lock == NULL) {
        shr_check_fail(fn, "lock is NULL; pass a symmetric long initialised to 0");
    }
    shr_check_symmetric(fn, "lock", lock, sizeof(long));
    shr_check_aligned(fn, "lock", lock, sizeof(long));
}

void pshmem_set_lock(long *lock)
{
    SHR_API_TIMED(SHR_PROF_LOCK, 0, check_lock("shmem_set_lock", lock), shr_lock_set(lock));
}
SHR_API_ALIAS(shmem_set_lock)

int pshmem_test_lock(long *lock)
{
    int ret;

    SHR_API_TIMED(SHR_PROF_LOCK, 0, check_lock("shmem_test_lock", lock),
                  ret = shr_lock_test(lock));
    return ret;
}
SHR_API_ALIAS(shmem_test_lock)

void pshmem_clear_lock(long *lock)
{
    SHR_API_TIMED(SHR_PROF_LOCK, 0, check_lock("shmem_clear_lock", lock), shr_lock_clear(lock));
}
SHR_API_ALIAS(shmem_clear_lock)
