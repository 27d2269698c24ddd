/* mn_init_fini.c -- Shimmer's start-up and shutdown alone: shmem_init and
 * shmem_finalize, printing nothing, like the PMIx clients and `true` that
 * mn_bench.sh --startup times beside it (a printed line costs the
 * launcher's output forwarding, not Shimmer). */
#include <shmem.h>

int main(void)
{
    shmem_init();
    shmem_finalize();
    return 0;
}
