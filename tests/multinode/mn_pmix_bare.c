/* mn_pmix_bare.c -- what joining a PMIx job costs with no OpenSHMEM at all:
 * PMIx_Init, one fence that collects data, PMIx_Finalize.  mn_bench.sh
 * --startup times it beside `true` and Shimmer's hello, so the start-up
 * figure shows how much of it is the launcher's client library. */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>

int main(void)
{
    pmix_proc_t me;
    pmix_info_t info;
    bool collect = true;

    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        fprintf(stderr, "mn_pmix_bare: PMIx_Init failed\n");
        return 1;
    }
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    if (PMIx_Commit() != PMIX_SUCCESS || PMIx_Fence(NULL, 0, &info, 1) != PMIX_SUCCESS) {
        fprintf(stderr, "mn_pmix_bare: fence failed\n");
        return 1;
    }
    PMIX_INFO_DESTRUCT(&info);
    return PMIx_Finalize(NULL, 0) == PMIX_SUCCESS ? 0 : 1;
}
