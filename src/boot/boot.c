/* boot.c -- chooses the bootstrap implementation at init and forwards to it. */
#include "boot/boot_int.h"

#include <stdio.h>
#include <unistd.h>

/* THE list of implementations, most specific first: the first one present
 * wins.  single is last because it always applies.  A PMIx implementation
 * joins by providing boot_pmix.c (CMake then defines SHR_BOOT_HAVE_PMIX). */
static const shr_boot_ops_t *const shr_boot_impls[] = {
    &shr_boot_launcher_ops,
#ifdef SHR_BOOT_HAVE_PMIX
    &shr_boot_pmix_ops,
#endif
    &shr_boot_single_ops,
};

/* Chosen by the last successful init and kept after fini, so that abort can
 * still reach the launcher and kind() still answers.  Read by abort from any
 * thread, hence the atomic accesses. */
static const shr_boot_ops_t *shr_boot_ops;
static bool shr_boot_is_active;

static const shr_boot_ops_t *shr_boot_ops_get(void)
{
    return __atomic_load_n(&shr_boot_ops, __ATOMIC_ACQUIRE);
}

shr_status_t shr_boot_init(int *rank_p, int *size_p)
{
    const size_t count = sizeof(shr_boot_impls) / sizeof(shr_boot_impls[0]);
    const shr_boot_ops_t *ops = shr_boot_impls[count - 1];
    shr_status_t status;
    int rank, size;

    if (shr_boot_is_active) {
        return SHR_ERR_INVALID;
    }
    for (size_t i = 0; i < count; i++) {
        if (shr_boot_impls[i]->is_present()) {
            ops = shr_boot_impls[i];
            break;
        }
    }
    /* No fallback on failure: a PE started by a launcher that silently ran
     * as a single PE would compute garbage. */
    status = ops->init(&rank, &size);
    if (status != SHR_OK) {
        return status;
    }
    __atomic_store_n(&shr_boot_ops, ops, __ATOMIC_RELEASE);
    shr_boot_is_active = true;
    *rank_p = rank;
    *size_p = size;
    return SHR_OK;
}

void shr_boot_fini(void)
{
    if (!shr_boot_is_active) {
        return;
    }
    shr_boot_ops_get()->fini();
    shr_boot_is_active = false;
}

shr_boot_kind_t shr_boot_kind(void)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();

    return ops != NULL ? ops->kind : SHR_BOOT_SINGLE;
}

const char *shr_boot_kind_name(void)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();

    return ops != NULL ? ops->name : shr_boot_single_ops.name;
}

shr_status_t shr_boot_allgather(const void *mine, void *all, size_t len)
{
    if (!shr_boot_is_active || (len > 0 && (mine == NULL || all == NULL))) {
        return SHR_ERR_INVALID;
    }
    return shr_boot_ops_get()->allgather(mine, all, len);
}

shr_status_t shr_boot_barrier(void)
{
    if (!shr_boot_is_active) {
        return SHR_ERR_INVALID;
    }
    return shr_boot_ops_get()->barrier();
}

const char *shr_boot_job_id(void)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();

    return ops != NULL ? ops->job_id() : "";
}

static _Noreturn void shr_boot_end(int status, const char *msg, bool global_exit)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();

    /* The spec wants C stdio flushed; _exit below would drop it. */
    fflush(NULL);
    if (ops == NULL) {
        ops = &shr_boot_single_ops; /* before init: nobody to tell */
    }
    ops->abort(status, msg, global_exit);
    _exit(status);
}

_Noreturn void shr_boot_abort(int status, const char *msg)
{
    shr_boot_end(status, msg, false);
}

_Noreturn void shr_boot_global_exit(int status)
{
    shr_boot_end(status, NULL, true);
}
