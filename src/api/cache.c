/* cache.c -- cache-management routines removed from the spec in 1.5; old
 * programs still call them.  Shared memory is coherent: nothing to do. */
#include "api/api.h"

void pshmem_clear_cache_inv(void)
{
}
SHR_API_ALIAS(shmem_clear_cache_inv)

void pshmem_set_cache_inv(void)
{
}
SHR_API_ALIAS(shmem_set_cache_inv)

void pshmem_clear_cache_line_inv(void *dest)
{
    (void)dest;
}
SHR_API_ALIAS(shmem_clear_cache_line_inv)

void pshmem_set_cache_line_inv(void *dest)
{
    (void)dest;
}
SHR_API_ALIAS(shmem_set_cache_line_inv)

void pshmem_udcflush(void)
{
}
SHR_API_ALIAS(shmem_udcflush)

void pshmem_udcflush_line(void *dest)
{
    (void)dest;
}
SHR_API_ALIAS(shmem_udcflush_line)
