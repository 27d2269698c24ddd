/*
 * boot_pmix.c -- joining a job started by a PMIx launcher (Open MPI's
 * mpirun, PRRTE's prterun, srun --mpi=pmix).
 *
 * What PMIx tells us, all before any collective: rank (our proc), size
 * (PMIX_JOB_SIZE), our node (PMIX_HOSTNAME, PMIX_NODEID) and the job's PEs
 * on it (PMIX_LOCAL_SIZE, PMIX_LOCAL_RANK).  Exchanges are PMIx's own
 * key-value store: a PE puts its values, one fence with PMIX_COLLECT_DATA
 * delivers everybody's to every node, and gets are then answered from the
 * local server's copy.  An allgather is one such fence.
 *
 * PMIx runs its own progress thread, so a non-blocking fence lets the
 * caller drive its network transport while it waits (barrier_progress).
 *
 * The PMIx client stays initialised from the first init to the end of the
 * process (re-initialisation is not dependable in every PMIx version), so
 * init after fini reuses it and abort can still reach the launcher.
 */
#include "boot/boot_int.h"
#include "boot/boot_proto.h"

#include <errno.h>
#include <pmix.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    bool connected;      /* PMIx_Init succeeded (stays so until exit) */
    pmix_proc_t me;
    int size;
    int local_rank;
    int local_size;
    char node[64];
    uint32_t seq;        /* allgathers done: their keys are numbered */
    bool slurm;          /* the server is srun's (slurmstepd's mpi/pmix plugin) */
} shr_boot_px;

static void shr_boot_pmix_error(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "shimmer: error: [pe %d] PMIx %s failed: %s\n",
            shr_boot_px.connected ? (int)shr_boot_px.me.rank : -1, what, PMIx_Error_string(rc));
}

static bool shr_boot_pmix_is_present(void)
{
    /* what every PMIx server gives its clients */
    return shr_boot_px.connected ||
           (getenv("PMIX_NAMESPACE") != NULL && getenv("PMIX_RANK") != NULL);
}

/* A job-level (rank wildcard) or own-proc integer of any unsigned width. */
static bool shr_boot_pmix_get_uint(bool job_level, const char *key, long *value_p)
{
    pmix_proc_t proc = shr_boot_px.me;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    long v;

    if (job_level) {
        proc.rank = PMIX_RANK_WILDCARD;
    }
    rc = PMIx_Get(&proc, key, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || val == NULL) {
        return false;
    }
    switch (val->type) {
    case PMIX_UINT32: v = (long)val->data.uint32; break;
    case PMIX_UINT16: v = (long)val->data.uint16; break;
    case PMIX_INT:    v = (long)val->data.integer; break;
    case PMIX_UINT64: v = (long)val->data.uint64; break;
    case PMIX_PROC_RANK: v = (long)val->data.rank; break;
    default: PMIX_VALUE_RELEASE(val); return false;
    }
    PMIX_VALUE_RELEASE(val);
    *value_p = v;
    return true;
}

static void shr_boot_pmix_at_exit(void)
{
    if (shr_boot_px.connected) {
        fflush(NULL);
        PMIx_Finalize(NULL, 0);
        shr_boot_px.connected = false;
    }
}

/* The PMIx server is gone (kill -9 of mpirun, a dead slurmstepd): nobody
 * can end this PE any more and its peers are going or gone, so it ends
 * itself instead of waiting forever.  Runs on PMIx's progress thread: only
 * a write and _exit. */
static void shr_boot_pmix_on_lost_server(size_t evhdlr_id, pmix_status_t status,
                                         const pmix_proc_t *source, pmix_info_t info[],
                                         size_t ninfo, pmix_info_t *results, size_t nresults,
                                         pmix_event_notification_cbfunc_fn_t cbfunc,
                                         void *cbdata)
{
    char line[256];

    (void)evhdlr_id, (void)status, (void)source, (void)info, (void)ninfo, (void)results;
    (void)nresults, (void)cbfunc, (void)cbdata;
    int n = snprintf(line, sizeof(line), "shimmer: error: [pe %u %s] lost the connection to "
                     "the PMIx server (the launcher is gone); ending this PE\n",
                     shr_boot_px.me.rank, shr_boot_px.node);
    ssize_t ignored = write(STDERR_FILENO, line, n > 0 && (size_t)n < sizeof(line)
                                                     ? (size_t)n : sizeof(line) - 1);
    (void)ignored;
    _exit(shr_boot_exit_code(1));
}

static shr_status_t shr_boot_pmix_init(int *rank_p, int *size_p, bool finalizes_at_exit)
{
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    long size, lrank, lsize;

    /* Left to the PMIx launcher: mpirun reports a rank that exits after
     * PMIx_Init without PMIx_Finalize; srun does not (docs/errors.md). */
    (void)finalizes_at_exit;

    if (!shr_boot_px.connected) {
        rc = PMIx_Init(&shr_boot_px.me, NULL, 0);
        if (rc != PMIX_SUCCESS) {
            fprintf(stderr,
                    "shimmer: error: this process was started by a PMIx launcher "
                    "(PMIX_NAMESPACE=%s, PMIX_RANK=%s) but cannot reach its PMIx server: %s; "
                    "the launcher may have exited, or the library's PMIx (%s) does not "
                    "match the launcher's\n",
                    getenv("PMIX_NAMESPACE"), getenv("PMIX_RANK"), PMIx_Error_string(rc),
                    PMIx_Get_version());
            return SHR_ERR_PEER_LOST;
        }
        shr_boot_px.connected = true;
        pmix_status_t lost = PMIX_ERR_LOST_CONNECTION;
        PMIx_Register_event_handler(&lost, 1, NULL, 0, shr_boot_pmix_on_lost_server, NULL, NULL);
        /* A server that sees a client leave without PMIx_Finalize reports it
         * as failed.  Registered before the library's own exit hook, so it
         * runs after it. */
        atexit(shr_boot_pmix_at_exit);
    }
    if (!shr_boot_pmix_get_uint(true, PMIX_JOB_SIZE, &size) || size < 1) {
        fprintf(stderr, "shimmer: error: [pe %u] the PMIx server does not say how many PEs "
                "the job has (%s)\n", shr_boot_px.me.rank, PMIX_JOB_SIZE);
        return SHR_ERR_INVALID;
    }
    /* Node layout: our own proc's values, falling back to the job level. */
    if (!shr_boot_pmix_get_uint(false, PMIX_LOCAL_RANK, &lrank)) {
        lrank = 0;
    }
    if (!shr_boot_pmix_get_uint(false, PMIX_LOCAL_SIZE, &lsize) &&
        !shr_boot_pmix_get_uint(true, PMIX_LOCAL_SIZE, &lsize)) {
        lsize = size; /* unknown: assume one node, the remote transport is
                         then prepared only if SHIMMER_REMOTE_PES says so */
    }
    shr_boot_px.node[0] = '\0';
    if (PMIx_Get(&shr_boot_px.me, PMIX_HOSTNAME, NULL, 0, &val) == PMIX_SUCCESS && val != NULL) {
        if (val->type == PMIX_STRING && val->data.string != NULL) {
            snprintf(shr_boot_px.node, sizeof(shr_boot_px.node), "%s", val->data.string);
        }
        PMIX_VALUE_RELEASE(val);
    }
    /* Slurm's plugin names its namespaces slurm.pmix.<job>.<step> */
    shr_boot_px.slurm = strncmp(shr_boot_px.me.nspace, "slurm.pmix.", 11) == 0;
    shr_boot_px.size = (int)size;
    shr_boot_px.local_rank = (int)lrank;
    shr_boot_px.local_size = (int)lsize;
    shr_boot_px.seq = 0;
    *rank_p = (int)shr_boot_px.me.rank;
    *size_p = (int)size;
    return SHR_OK;
}

static void shr_boot_pmix_fini(void)
{
    /* stays connected (see the top of this file) */
}

static shr_status_t shr_boot_pmix_put(const char *key, const void *value, size_t len)
{
    pmix_value_t val;
    pmix_status_t rc;

    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)value;
    val.data.bo.size = len;
    rc = PMIx_Put(PMIX_GLOBAL, key, &val); /* copies the value */
    if (rc != PMIX_SUCCESS) {
        shr_boot_pmix_error("put", rc);
        return SHR_ERR_IO;
    }
    return SHR_OK;
}

static shr_status_t shr_boot_pmix_get(int rank, const char *key, void **value_p, size_t *len_p)
{
    pmix_proc_t proc = shr_boot_px.me;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    void *copy;

    proc.rank = (pmix_rank_t)rank;
    rc = PMIx_Get(&proc, key, NULL, 0, &val);
    if (rc == PMIX_ERR_NOT_FOUND) {
        return SHR_ERR_UNREACHABLE;
    }
    if (rc != PMIX_SUCCESS || val == NULL) {
        shr_boot_pmix_error("get", rc);
        return SHR_ERR_IO;
    }
    if (val->type != PMIX_BYTE_OBJECT) {
        PMIX_VALUE_RELEASE(val);
        return SHR_ERR_UNREACHABLE;
    }
    copy = malloc(val->data.bo.size > 0 ? val->data.bo.size : 1);
    if (copy == NULL) {
        PMIX_VALUE_RELEASE(val);
        return SHR_ERR_NO_MEMORY;
    }
    memcpy(copy, val->data.bo.bytes, val->data.bo.size);
    *len_p = val->data.bo.size;
    *value_p = copy;
    PMIX_VALUE_RELEASE(val);
    return SHR_OK;
}

/* Whether a fence must ask for the data.  Slurm's mpi/pmix plugin (22.05,
 * unless its mpi.conf sets PMIxFenceBarrier) completes a fence that
 * collects nothing as soon as the PEs of the node have entered it: a
 * barrier of the node, not of the job -- a node whose PEs all finalize
 * first would close its endpoints while the others still use them
 * (docs/multinode.md, "Under Slurm").  A fence that collects meets every
 * node; what it carries is what the PEs published, a few hundred bytes. */
static bool shr_boot_pmix_must_collect(bool collect)
{
    return collect || shr_boot_px.slurm;
}

static shr_status_t shr_boot_pmix_fence(bool collect)
{
    pmix_info_t info;
    bool flag = true;
    pmix_status_t rc;

    collect = shr_boot_pmix_must_collect(collect);
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        shr_boot_pmix_error("commit", rc);
        return SHR_ERR_IO;
    }
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        shr_boot_pmix_error("fence", rc);
        return SHR_ERR_PEER_LOST;
    }
    return SHR_OK;
}

static shr_status_t shr_boot_pmix_allgather(const void *mine, void *all, size_t len)
{
    char key[32];
    shr_status_t status;

    snprintf(key, sizeof(key), "shr.ag.%u", shr_boot_px.seq++);
    status = shr_boot_pmix_put(key, mine, len);
    if (status == SHR_OK) {
        status = shr_boot_pmix_fence(true);
    }
    for (int r = 0; status == SHR_OK && r < shr_boot_px.size; r++) {
        void *blob;
        size_t got;

        status = shr_boot_pmix_get(r, key, &blob, &got);
        if (status != SHR_OK) {
            break;
        }
        if (got != len) {
            fprintf(stderr, "shimmer: error: [pe %u] PE %d contributed %zu bytes to bootstrap "
                    "exchange %s, this PE %zu: the PEs run different programs or versions\n",
                    shr_boot_px.me.rank, r, got, key, len);
            free(blob);
            return SHR_ERR_MISMATCH;
        }
        memcpy((char *)all + (size_t)r * len, blob, len);
        free(blob);
    }
    return status;
}

static shr_status_t shr_boot_pmix_barrier(void)
{
    return shr_boot_pmix_fence(false);
}

static void shr_boot_pmix_fence_done(pmix_status_t status, void *cbdata)
{
    __atomic_store_n((int *)cbdata, status == PMIX_SUCCESS ? 1 : -1, __ATOMIC_RELEASE);
}

static shr_status_t shr_boot_pmix_barrier_progress(void (*progress)(void *arg), void *arg)
{
    bool collect = shr_boot_pmix_must_collect(false), flag = true;
    pmix_info_t info;
    int done = 0;

    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    /* info lives until the fence completed: this function waits for it */
    pmix_status_t rc = PMIx_Fence_nb(NULL, 0, collect ? &info : NULL, collect ? 1 : 0,
                                     shr_boot_pmix_fence_done, &done);
    if (rc != PMIX_SUCCESS) {
        PMIX_INFO_DESTRUCT(&info);
        shr_boot_pmix_error("fence", rc);
        return SHR_ERR_PEER_LOST;
    }
    while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) == 0) {
        progress(arg);
        sched_yield();
    }
    PMIX_INFO_DESTRUCT(&info);
    return done > 0 ? SHR_OK : SHR_ERR_PEER_LOST;
}

static void shr_boot_pmix_node(shr_boot_node_t *node_p)
{
    node_p->local_rank = shr_boot_px.local_rank;
    node_p->local_size = shr_boot_px.local_size;
    snprintf(node_p->name, sizeof(node_p->name), "%s", shr_boot_px.node);
}

static const char *shr_boot_pmix_job_id(void)
{
    return shr_boot_px.me.nspace;
}

static void shr_boot_pmix_abort(int status, const char *msg, bool global_exit)
{
    char text[1024];

    if (!shr_boot_px.connected) {
        return;
    }
    if (global_exit) {
        snprintf(text, sizeof(text), "PE %u called shmem_global_exit(%d)", shr_boot_px.me.rank,
                 status);
    } else {
        snprintf(text, sizeof(text), "PE %u on %s aborted (status %d): %s", shr_boot_px.me.rank,
                 shr_boot_px.node[0] != '\0' ? shr_boot_px.node : "?", status,
                 msg != NULL ? msg : "(no reason given)");
    }
    fflush(NULL);
    /* Returns once the server has the request; the launcher then ends every
     * process of the job (this one included) and exits with `status`. */
    PMIx_Abort(shr_boot_exit_code(status), text, NULL, 0);
}

#define SHR_BOOT_PMIX_SLURM_GRACE_US 500000

/* srun ends a step when a task leaves without PMIx_Finalize while others of
 * its node run (slurmstepd's PMIx error handler), but not when a node's last
 * task dies: the PEs elsewhere would wait for it forever (unless srun -K,
 * which then reports SIGTERM, 143, as the status).  An abort with status 0
 * makes srun end the step at once and keep the tasks' statuses: srun exits
 * with the highest, the dead PE's 137 or 139, and has already named its
 * task, node and signal ("srun: error: node2: task 3: Killed").  Measured
 * with Slurm 22.05 (tests/multinode/mn_slurm.sh).  mpirun needs nothing:
 * it ends the job itself with the dead PE's status. */
static void shr_boot_pmix_peer_lost(const char *msg)
{
    char text[512];

    if (!shr_boot_px.connected || !shr_boot_px.slurm) {
        return;
    }
    /* A moment first: a job that is ending normally (the report came on
     * the progress thread while this PE's main thread finalizes) ends
     * meanwhile, without an abort. */
    usleep(SHR_BOOT_PMIX_SLURM_GRACE_US);
    fprintf(stderr, "shimmer: error: [pe %u %s] %s; ending the job (srun reports that PE's "
            "status)\n", shr_boot_px.me.rank, shr_boot_px.node, msg);
    snprintf(text, sizeof(text), "PE %u on %s: %s", shr_boot_px.me.rank, shr_boot_px.node, msg);
    fflush(NULL);
    PMIx_Abort(0, text, NULL, 0);
}

/* A task that dies while others of its node run makes slurmstepd ask
 * slurmctld to cancel the step: 1.1-5 s on a busy machine (mn_slurm.sh),
 * against 0.15 s through PMIx_Abort from a PE that watches it. */
static bool shr_boot_pmix_wants_peer_watch(void)
{
    return shr_boot_px.slurm && shr_boot_px.local_size > 1;
}

const shr_boot_ops_t shr_boot_pmix_ops = {
    .name = "pmix",
    .kind = SHR_BOOT_PMIX,
    .is_present = shr_boot_pmix_is_present,
    .init = shr_boot_pmix_init,
    .fini = shr_boot_pmix_fini,
    .allgather = shr_boot_pmix_allgather,
    .barrier = shr_boot_pmix_barrier,
    .job_id = shr_boot_pmix_job_id,
    .abort = shr_boot_pmix_abort,
    .barrier_progress = shr_boot_pmix_barrier_progress,
    .node = shr_boot_pmix_node,
    .put = shr_boot_pmix_put,
    .get = shr_boot_pmix_get,
    .peer_lost = shr_boot_pmix_peer_lost,
    .wants_peer_watch = shr_boot_pmix_wants_peer_watch,
};
