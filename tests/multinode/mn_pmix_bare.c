/* mn_pmix_bare.c -- what joining a PMIx job costs with no OpenSHMEM at all:
 * PMIx_Init, one fence that collects data, PMIx_Finalize.  mn_bench.sh
 * --startup times it beside `true` and Shimmer's hello, so the start-up
 * figure shows how much of it is the launcher's client library.
 *
 * Built with -DMN_WITH_UCX it is the floor of any OpenSHMEM on PMIx and
 * UCX across nodes: it also brings UCX up as Shimmer does (a context for
 * RMA and atomics without the shared-memory transports, one worker whose
 * address rides the fence), meets every PE once more before closing (the
 * barrier shmem_finalize implies) and tears UCX down. */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#ifdef MN_WITH_UCX
#include <dirent.h>
#include <stdlib.h>
#include <ucp/api/ucp.h>
#include <ucs/config/global_opts.h>
#endif

#ifdef MN_WITH_UCX
static ucp_context_h context;
static ucp_worker_h worker;

static bool rdma_devices_present(void)
{
    DIR *dir = opendir("/sys/class/infiniband");
    struct dirent *entry;
    bool found = false;

    while (dir != NULL && !found && (entry = readdir(dir)) != NULL) {
        found = entry->d_name[0] != '.';
    }
    if (dir != NULL) {
        closedir(dir);
    }
    return found;
}

/* Context and worker as Shimmer makes them; the worker address is put
 * under "addr" for the fence. */
static bool ucx_up(void)
{
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP,
        .mt_workers_shared = 1};
    ucp_worker_params_t wparams = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                                   .thread_mode = UCS_THREAD_MODE_SERIALIZED};
    ucp_config_t *config;
    ucp_address_t *address;
    size_t address_len;
    pmix_value_t value;

    if (!rdma_devices_present() && getenv("UCX_MODULES") == NULL) {
        ucs_global_opts_set_value("MODULES", "^ib,rdmacm");
    }
    if (ucp_config_read(NULL, NULL, &config) != UCS_OK) {
        return false;
    }
    if (getenv("UCX_TLS") == NULL) {
        ucp_config_modify(config, "TLS", "^sm");
    }
    ucs_status_t st = ucp_init(&params, config, &context);
    ucp_config_release(config);
    if (st != UCS_OK || ucp_worker_create(context, &wparams, &worker) != UCS_OK ||
        ucp_worker_get_address(worker, &address, &address_len) != UCS_OK) {
        return false;
    }
    PMIX_VALUE_CONSTRUCT(&value);
    value.type = PMIX_BYTE_OBJECT;
    value.data.bo.bytes = (char *)address;
    value.data.bo.size = address_len;
    bool ok = PMIx_Put(PMIX_GLOBAL, "addr", &value) == PMIX_SUCCESS;
    ucp_worker_release_address(worker, address);
    return ok;
}

static bool ucx_down(void)
{
    /* the final barrier: nobody closes before everybody is done */
    bool ok = PMIx_Fence(NULL, 0, NULL, 0) == PMIX_SUCCESS;
    ucp_worker_destroy(worker);
    ucp_cleanup(context);
    return ok;
}
#endif

int main(void)
{
    pmix_proc_t me;
    pmix_info_t info;
    bool collect = true;

    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        fprintf(stderr, "mn_pmix_bare: PMIx_Init failed\n");
        return 1;
    }
#ifdef MN_WITH_UCX
    if (!ucx_up()) {
        fprintf(stderr, "mn_pmix_bare: starting UCX failed\n");
        return 1;
    }
#endif
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    if (PMIx_Commit() != PMIX_SUCCESS || PMIx_Fence(NULL, 0, &info, 1) != PMIX_SUCCESS) {
        fprintf(stderr, "mn_pmix_bare: fence failed\n");
        return 1;
    }
    PMIX_INFO_DESTRUCT(&info);
#ifdef MN_WITH_UCX
    if (!ucx_down()) {
        fprintf(stderr, "mn_pmix_bare: the final fence failed\n");
        return 1;
    }
#endif
    return PMIx_Finalize(NULL, 0) == PMIX_SUCCESS ? 0 : 1;
}
