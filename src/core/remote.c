/*
 * remote.c -- choosing the remote transport and driving its life cycle
 * (core/remote.h).
 *
 * The choice is made once per init: a job whose PEs all share this node
 * (and no SHIMMER_REMOTE_PES) keeps `none` and never loads anything; a job
 * that spans nodes gets the remote transport, started on a helper thread
 * as soon as boot has joined the job, so that its start-up overlaps init's
 * local work (configuration, segments).  The helper writes only memory it
 * allocated: init copies the executable's data segment meanwhile.
 */
#include "core/remote.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "boot/boot.h"
#include "core/env.h"
#include "core/state.h"
#include "util/log.h"

#ifdef SHR_REMOTE_UCX_BUILTIN
extern const shr_remote_ops_t shr_ucx_ops;
#endif

const shr_remote_ops_t *shr_remote = &shr_remote_none;
unsigned shr_remote_caps;

/* What the helper thread made; malloc'ed, read by publish after the join. */
typedef struct remote_early {
    pthread_t thread;
    const shr_remote_ops_t *ops; /* the loaded transport, NULL if it failed */
    char why[512];               /* ... and why */
    void *state;                 /* its prestart's result */
} remote_early_t;

static remote_early_t *early;

/* The remote transport of this build, ready to use; NULL (and the reason
 * in `why`) if it cannot be loaded.  A build without one returns `none`,
 * whose init names the PE that cannot be reached. */
static const shr_remote_ops_t *remote_load(char *why, size_t len)
{
    const shr_remote_ops_t *ops = &shr_remote_none;

    (void)why, (void)len;
#ifdef SHR_REMOTE_UCX_BUILTIN
    ops = &shr_ucx_ops;
#endif
    if (ops->attach != NULL) {
        ops->attach();
    }
    return ops;
}

/* Some PE is on another node, as the starter placed them. */
static bool job_spans_nodes(void)
{
    shr_boot_node_t node;

    shr_boot_node(&node);
    return shr_g.n_pes > 1 && node.local_size < shr_g.n_pes;
}

static void *early_main(void *arg)
{
    remote_early_t *e = arg;

    e->ops = remote_load(e->why, sizeof(e->why));
    if (e->ops != NULL && e->ops->prestart != NULL) {
        e->state = e->ops->prestart();
    }
    return NULL;
}

void shr_remote_prestart(void)
{
    /* SHIMMER_REMOTE_PES changes what the transport must reach (this node's
     * peers too): publish brings it up itself */
    if (early != NULL || !job_spans_nodes() || shr_env_get_raw("SHIMMER_REMOTE_PES") != NULL) {
        return;
    }
    early = calloc(1, sizeof(*early));
    if (early != NULL && pthread_create(&early->thread, NULL, early_main, early) != 0) {
        free(early);
        early = NULL; /* publish does the work itself */
    }
}

shr_status_t shr_remote_publish(const char *routine)
{
    const shr_remote_ops_t *ops;
    char why[512] = "";
    void *state = NULL;

    if (early != NULL) {
        pthread_join(early->thread, NULL);
        ops = early->ops;
        state = early->state;
        snprintf(why, sizeof(why), "%s", early->why);
        free(early);
        early = NULL;
    } else if (shr_g.n_pes > 1 && (job_spans_nodes() || shr_config.remote_pes[0] != '\0')) {
        ops = remote_load(why, sizeof(why));
    } else {
        return SHR_OK; /* every PE shares this node's memory */
    }
    if (ops == NULL) {
        shr_error("%s: %s", routine, why);
        return SHR_ERR_UNSUPPORTED;
    }
    shr_remote = ops;
    return ops->publish(routine, state);
}

shr_status_t shr_remote_init(const char *routine)
{
    unsigned caps = 0;
    shr_status_t status = shr_remote->init(routine, &caps);

    if (status != SHR_OK) {
        return status;
    }
    shr_remote_caps = caps;
    shr_g.needs_progress = shr_g.has_remote && (caps & SHR_REMOTE_CAP_TARGET_PROGRESS) != 0;
    if (shr_g.has_remote && !(caps & SHR_REMOTE_CAP_CPU_ATOMICS)) {
        shr_warn("%s: the %s transport does not apply atomic operations as CPU atomics at the "
                 "target, so those of other nodes are not atomic with this node's on the same "
                 "words; for UCX, leave UCX_ATOMIC_MODE unset", routine, shr_remote->name);
    }
    return SHR_OK;
}

bool shr_remote_final_barrier(void)
{
    return shr_remote->final_barrier();
}

void shr_remote_fini(void)
{
    shr_remote->fini();
    shr_remote = &shr_remote_none;
    shr_remote_caps = 0;
}
