/* p2p_legacy.c -- the untyped long forms of wait (deprecated, still used). */
#include "api/api_inline.h"

void pshmem_wait_until(long *ivar, int cmp, long cmp_value)
{
    shr_api_wait_until("shmem_wait_until", ivar, cmp, &cmp_value, SHR_DTYPE_LONG);
}
SHR_API_ALIAS(shmem_wait_until)

void pshmem_wait(long *ivar, long cmp_value)
{
    shr_api_wait_until("shmem_wait", ivar, SHMEM_CMP_NE, &cmp_value, SHR_DTYPE_LONG);
}
SHR_API_ALIAS(shmem_wait)
