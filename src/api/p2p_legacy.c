/* p2p_legacy.c -- the untyped long forms of wait and swap (deprecated, still used). */
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

/* The pre-1.3 untyped swap on a long (shmem.h shows it to pre-C11 C only). */
long pshmem_swap(long *target, long value, int pe)
{
    SHR_RETURN_BITS(long, shr_api_amo("shmem_swap", SHMEM_CTX_DEFAULT, SHR_AMO_SWAP, target,
                                      SHR_BITS(long, value), 0, sizeof(long), pe));
}
SHR_API_ALIAS(shmem_swap)
