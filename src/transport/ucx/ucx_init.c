/*
 * ucx_init.c -- bringing the UCX transport up and down, and the per-context
 * workers.
 *
 *   publish (before the init exchange; core calls it only if some peer may
 *     be out of load/store reach -- the starter puts PEs on several nodes,
 *     or SHIMMER_REMOTE_PES names some): create the context and the
 *     default worker, register the segments, publish address and keys.  A
 *     job on one node never pays for UCX.
 *   init (after the peers are mapped): if this PE turned out to have no
 *     remote peer, tear it down again; otherwise start the progress
 *     thread.  No communication: endpoints come on first use.
 *   final_barrier, fini: complete, meet every PE (driving the workers
 *     while waiting, so that nobody's last operations starve), then close.
 *
 * UCX configuration: UCX_* variables reach UCX untouched.  These defaults
 * are Shimmer's when the user did not set them: ATOMIC_MODE=cpu (the
 * atomicity design, docs/ucx.md), TLS=^sm (no intra-node transports: this
 * node's PEs are mapped, not reached through UCX), before UCX 1.14
 * MAX_RNDV_RAILS=1 (one RMA lane, so that ucp_worker_fence orders; 1.14
 * does this itself; with more rails shmem_fence flushes instead),
 * TCP_TX_SEG_SIZE=64k (RMA over TCP in the largest pieces the receiver
 * takes: 3x the bandwidth of UCX's 8 KiB, docs/ucx.md), and on a node
 * without RDMA devices MODULES=^ib,rdmacm (start-up, see
 * shr_ucx_context_make).
 */
#include "core/remote.h"

#include <dirent.h>
#include <ifaddrs.h>
#include <linux/membarrier.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <ucs/config/global_opts.h>
#include <ucs/debug/debug.h>

#include "boot/boot.h"
#include "core/env.h"
#include "transport/ucx/ucx_inline.h"
#include "util/log.h"

/* Longest nap between progress rounds in the final barrier: the barrier's
 * end is seen at most this late. */
#define SHR_UCX_FINI_NAP_NS 50000

shr_ucx_t shr_ucx = {.list_lock = PTHREAD_MUTEX_INITIALIZER};

/* Shimmer's defaults for what the user left unset (see the top), and
 * what the user's own settings mean for us.  Main thread, before the
 * context is used. */
static void shr_ucx_config_check(void)
{
    const char *mode = shr_env_get_raw("UCX_ATOMIC_MODE");

    /* anything but cpu mode may use NIC atomics: core warns (caps) */
    shr_ucx.cpu_atomics = mode == NULL || strcmp(mode, "cpu") == 0;
    shr_ucx.strong_fence = false;
#if !SHR_UCX_API_AT_LEAST(1, 14)
    const char *rails = shr_env_get_raw("UCX_MAX_RNDV_RAILS");
    shr_ucx.strong_fence = rails != NULL && strtol(rails, NULL, 10) > 1;
#endif
    shr_ucx.wakeup = true; /* the context always asks for UCP_FEATURE_WAKEUP */
}

/* UCX's own handling of error signals (a UCX backtrace on the program's
 * SIGSEGV, SIGBUS, SIGILL, SIGFPE; libucs also ignores the program's own
 * sigaction() for them) and its debug signal (SIGHUP: "enter debug mode",
 * which swallows the signal a launcher sends to end the job) take the
 * program's place.  libucs installs them as it loads; unless the user asked
 * for them (UCX_ERROR_SIGNALS, UCX_HANDLE_ERRORS, UCX_DEBUG_SIGNO), this
 * puts back what was there before.  The table's attach: once, on init's
 * thread. */
static void shr_ucx_attach(void)
{
    shr_ucx_log_attach(); /* UCX's lines at a job's end (ucx_status.c) */
    if (shr_env_get_raw("UCX_ERROR_SIGNALS") == NULL &&
        shr_env_get_raw("UCX_HANDLE_ERRORS") == NULL && ucs_global_opts.handle_errors != 0) {
        for (unsigned i = 0; i < ucs_global_opts.error_signals.count; i++) {
            ucs_debug_disable_signal(ucs_global_opts.error_signals.signals[i]);
        }
    }
    if (shr_env_get_raw("UCX_DEBUG_SIGNO") == NULL && ucs_global_opts.debug_signo > 0) {
        ucs_debug_disable_signal((int)ucs_global_opts.debug_signo);
    }
}

/* True if the kernel lists an RDMA device (InfiniBand, RoCE, iWARP,
 * soft-RoCE): only then can UCX's ib and rdmacm modules find anything. */
static bool rdma_devices_present(void)
{
    DIR *dir = opendir("/sys/class/infiniband");
    struct dirent *entry;
    bool found = false;

    if (dir == NULL) {
        return false;
    }
    while (!found && (entry = readdir(dir)) != NULL) {
        found = entry->d_name[0] != '.';
    }
    closedir(dir);
    return found;
}

/* True if the comma-separated `list` has `name` as one of its items. */
static bool list_has(const char *list, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = list;; p++) {
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0')) {
            return true;
        }
        p = strchr(p, ',');
        if (p == NULL) {
            return false;
        }
    }
}

/* True if UCX will open its TCP transport: UCX_TLS leaves it in, and some
 * interface UCX_NET_DEVICES allows is up (loopback counts).  An option for
 * a transport UCX does not open makes every worker creation warn. */
static bool tcp_transport_in_use(void)
{
    const char *tls = shr_env_get_raw("UCX_TLS");
    const char *devs = shr_env_get_raw("UCX_NET_DEVICES");
    struct ifaddrs *ifs, *i;
    bool found = false;

    if (tls != NULL && strcmp(tls, "all") != 0 && (tls[0] == '^') == (strstr(tls, "tcp") != NULL)) {
        return false; /* "^...,tcp,..." or a list without tcp */
    }
    if (getifaddrs(&ifs) != 0) {
        return false;
    }
    for (i = ifs; i != NULL && !found; i = i->ifa_next) {
        found = (i->ifa_flags & IFF_UP) &&
                (devs == NULL || strcmp(devs, "all") == 0 || list_has(devs, i->ifa_name));
    }
    freeifaddrs(ifs);
    return found;
}

/* The context, without logging (the start-up helper thread calls it too).
 * local_remote: SHIMMER_REMOTE_PES sends this node's peers through UCX. */
static ucs_status_t shr_ucx_context_make(size_t n_eps, size_t ppn, bool local_remote,
                                         ucp_context_h *context_p)
{
    ucp_params_t params;
    ucp_config_t *config;
    ucs_status_t st = ucp_config_read(NULL, NULL, &config);

    if (st != UCS_OK) {
        return st;
    }
    if (shr_env_get_raw("UCX_ATOMIC_MODE") == NULL) {
        ucp_config_modify(config, "ATOMIC_MODE", "cpu");
    }
    /* Every PE UCX reaches is on another node (this node's are mapped),
     * unless SHIMMER_REMOTE_PES makes local peers remote: its shared-memory
     * transports would never carry a byte, yet their interfaces cost ~3 ms
     * of worker creation per process at start-up. */
    if (shr_env_get_raw("UCX_TLS") == NULL && !local_remote) {
        ucp_config_modify(config, "TLS", "^sm");
    }
    /* SHIMMER_REMOTE_PES on one host (a test mode): every peer is on this
     * machine, so the TCP transport listens on loopback only, not on the
     * host's network addresses where anyone could connect to it. */
    if (local_remote && ppn >= (size_t)shr_g.n_pes && shr_env_get_raw("UCX_NET_DEVICES") == NULL) {
        ucp_config_modify(config, "NET_DEVICES", "lo");
    }
    /* UCX's TCP transport moves a put or get that is not sent in one piece
     * as active messages of TX_SEG_SIZE (8 KiB), a system call and a
     * receive each; the receiver's segment is 64 KiB.  Sending that much
     * per call triples put and get bandwidth between hosts (docs/ucx.md).
     * A user who sizes either segment sizes both.  (The key is the
     * transport's own name for it; UCX applies it to the TCP interfaces.) */
    if (shr_env_get_raw("UCX_TCP_TX_SEG_SIZE") == NULL &&
        shr_env_get_raw("UCX_TCP_RX_SEG_SIZE") == NULL && tcp_transport_in_use()) {
        ucp_config_modify(config, "TX_SEG_SIZE", "64k");
    }
    /* Without RDMA devices, loading the ib and rdmacm modules (with
     * libibverbs, librdmacm, libnl) only to find nothing costs ~3 ms per
     * process.  The module list is a global UCS option, read when the
     * first context loads the transports.  (UCX_MEM_EVENTS is no context
     * option: libucs reads it from the environment when it loads, and
     * without an ib module nothing hooks memory events anyway.) */
    if (!rdma_devices_present() && shr_env_get_raw("UCX_MODULES") == NULL) {
        ucs_global_opts_set_value("MODULES", "^ib,rdmacm");
    }
#if !SHR_UCX_API_AT_LEAST(1, 14)
    /* 1.13 names the RMA bandwidth lanes' limit MAX_RNDV_RAILS (default 2) */
    if (shr_env_get_raw("UCX_MAX_RNDV_RAILS") == NULL) {
        ucp_config_modify(config, "MAX_RNDV_RAILS", "1");
    }
#endif
    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                        UCP_PARAM_FIELD_ESTIMATED_NUM_EPS | UCP_PARAM_FIELD_ESTIMATED_NUM_PPN |
                        UCP_PARAM_FIELD_NAME;
    /* wake-up events: the progress thread, and waits that nap (core/wait.c)
     * sleep on the worker's fd so that a peer's message ends the nap */
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 |
                      UCP_FEATURE_AM | UCP_FEATURE_WAKEUP; /* AM: coalescing, ucx_agg.c */
    params.mt_workers_shared = 1; /* contexts' workers run in different threads */
    params.estimated_num_eps = n_eps;
    params.estimated_num_ppn = ppn > 0 ? ppn : 1;
    params.name = "shimmer";
    st = ucp_init(&params, config, context_p);
    ucp_config_release(config);
    return st;
}

static ucs_status_t shr_ucx_worker_make(ucp_context_h context, ucp_worker_h *worker_p)
{
    ucp_worker_params_t params = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                                  .thread_mode = UCS_THREAD_MODE_SERIALIZED};

    return ucp_worker_create(context, &params, worker_p);
}

/* ---- start-up overlap ------------------------------------------------------
 * Once boot has joined a job that spans nodes, core's helper thread makes
 * the context and the default worker here (~2 ms: UCX loads its transport
 * modules) while init reads its configuration and creates the segments;
 * publish takes them.  Not earlier: PMIx_Init sets environment variables,
 * and UCX reads the environment.  Nothing is logged or written outside the
 * malloc'ed result: if the helper failed, publish does the work again and
 * reports. */
typedef struct shr_ucx_early {
    ucp_context_h context;
    ucp_worker_h worker;
} shr_ucx_early_t;

/* Some PE is on another node (boot's view; SHIMMER_REMOTE_PES aside). */
static bool shr_ucx_job_spans_nodes(int *local_size_p)
{
    shr_boot_node_t node;

    shr_boot_node(&node);
    *local_size_p = node.local_size;
    return shr_g.n_pes > 1 && node.local_size < shr_g.n_pes;
}

static void *shr_ucx_prestart(void)
{
    shr_ucx_early_t *early = calloc(1, sizeof(*early));
    int local_size;

    if (early == NULL) {
        return NULL;
    }
    (void)shr_ucx_job_spans_nodes(&local_size);
    if (shr_ucx_context_make((size_t)shr_g.n_pes, (size_t)local_size, false, &early->context) !=
        UCS_OK) {
        free(early);
        return NULL;
    }
    if (shr_ucx_worker_make(early->context, &early->worker) != UCS_OK) {
        early->worker = NULL;
    }
    return early;
}

/* Moves the helper's context (if it made one) into shr_ucx.context and
 * returns its worker (or NULL); frees `early`. */
static ucp_worker_h shr_ucx_early_take(shr_ucx_early_t *early)
{
    ucp_worker_h worker = NULL;

    if (early != NULL) {
        shr_ucx.context = early->context;
        worker = early->worker;
        free(early);
    }
    return worker;
}

static shr_status_t shr_ucx_context_create(const char *routine, int local_size)
{
    shr_ucx_config_check();
    if (shr_ucx.context != NULL) {
        return SHR_OK; /* the start-up helper made it */
    }
    return shr_ucx_status(shr_ucx_context_make((size_t)shr_g.n_pes, (size_t)local_size,
                                               shr_config.remote_pes[0] != '\0',
                                               &shr_ucx.context),
                          "%s: starting UCX (for the PEs on other nodes)", routine);
}

bool shr_ucx_barrier_init(void)
{
#ifdef SHR_UCX_TSAN
    return true; /* no membarrier: the callers pair sequentially consistent atomics */
#else
    if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0) {
        /* an old kernel, or a container's seccomp filter: slower, not wrong */
        shr_debug(SHR_LOG_UCX, "membarrier: %m: small remote puts take the worker's lock "
                               "(no coalescing windows), and so do private contexts");
        return false;
    }
    return true;
#endif
}

void shr_ucx_barrier_all(const char *who)
{
#ifndef SHR_UCX_TSAN
    if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) {
        shr_error("%s: membarrier: %m, after it was registered; set SHIMMER_RMA_COALESCE=0 "
                  "and use shared contexts instead of SHMEM_CTX_PRIVATE ones", who);
        shr_fatal(1, "membarrier failed");
    }
#else
    (void)who;
#endif
}

/* The owner enters its sections without the mutex while must_lock is
 * clear (shr_ucx_bare_enter): once it is set and the barrier passed,
 * every section the owner enters takes the mutex, and one it is in
 * already ends with bare's release.  Once per context: the lock stays. */
void shr_ucx_worker_share(shr_ucx_worker_t *w)
{
    pthread_mutex_lock(&w->lock);
    if (!__atomic_load_n(&w->must_lock, __ATOMIC_RELAXED)) {
        __atomic_store_n(&w->must_lock, true, __ATOMIC_SEQ_CST);
        shr_ucx_barrier_all("waiting for a request handle of another thread's private context");
        while (__atomic_load_n(&w->bare, __ATOMIC_SEQ_CST) != 0) {
            sched_yield();
        }
        shr_debug(SHR_LOG_UCX, "a private context's worker locks from now on: another thread "
                               "waits for its request handles");
    }
    pthread_mutex_unlock(&w->lock);
}

/* made: a ucp worker to adopt (the start-up helper's), or NULL */
static shr_status_t shr_ucx_worker_wrap(ucp_worker_h made, bool must_lock, const char *routine,
                                        shr_ucx_worker_t **worker_p)
{
    shr_ucx_worker_t *w = calloc(1, sizeof(*w));
    shr_status_t status;

    if (w == NULL) {
        return SHR_ERR_NO_MEMORY;
    }
    w->peers = calloc((size_t)shr_g.n_pes, sizeof(*w->peers));
    w->dirty = calloc((size_t)shr_g.n_pes, sizeof(*w->dirty));
    if (w->peers == NULL || w->dirty == NULL) {
        free(w->peers);
        free(w->dirty);
        free(w);
        return SHR_ERR_NO_MEMORY;
    }
    w->worker = made;
    status = made != NULL ? SHR_OK
                          : shr_ucx_status(shr_ucx_worker_make(shr_ucx.context, &w->worker),
                                           "%s: creating a UCX worker", routine);
    if (status != SHR_OK) {
        free(w->peers);
        free(w->dirty);
        free(w);
        return status;
    }
    pthread_mutex_init(&w->lock, NULL);
    w->must_lock = must_lock;
    w->agg_oldest = UINT64_MAX; /* nothing in flight */
    w->efd = -1;
    status = shr_ucx_agg_handlers_set(w, routine);
    if (status != SHR_OK) {
        shr_ucx_worker_destroy(w, true);
        return status;
    }
    *worker_p = w;
    return SHR_OK;
}

shr_status_t shr_ucx_worker_create(bool must_lock, const char *routine,
                                   shr_ucx_worker_t **worker_p)
{
    return shr_ucx_worker_wrap(NULL, must_lock, routine, worker_p);
}

void shr_ucx_worker_destroy(shr_ucx_worker_t *w, bool force)
{
    shr_ucx_agg_destroy(w);
    for (int pe = 0; pe < shr_g.n_pes; pe++) {
        shr_ucx_peer_close(w, pe, force);
    }
    ucp_worker_destroy(w->worker);
    pthread_mutex_destroy(&w->lock);
    free(w->peers);
    free(w->dirty);
    free(w);
}

void shr_ucx_workers_add(shr_ucx_worker_t *w)
{
    pthread_mutex_lock(&shr_ucx.list_lock);
    w->next = shr_ucx.dflt->next;
    __atomic_store_n(&shr_ucx.dflt->next, w, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&shr_ucx.list_lock);
}

void shr_ucx_workers_remove(shr_ucx_worker_t *w)
{
    pthread_mutex_lock(&shr_ucx.list_lock);
    for (shr_ucx_worker_t **p = &shr_ucx.dflt->next; *p != NULL; p = &(*p)->next) {
        if (*p == w) {
            __atomic_store_n(p, w->next, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&shr_ucx.list_lock);
}

/* Undoes publish (no endpoint exists yet, or all are closed). */
static void shr_ucx_teardown(void)
{
    if (shr_ucx.dflt != NULL) {
        shr_ucx_worker_destroy(shr_ucx.dflt, true);
        shr_ucx.dflt = NULL;
    }
    shr_ucx_rkey_unpublish();
    shr_ucx_remote_free_all();
    if (shr_ucx.context != NULL) {
        ucp_cleanup(shr_ucx.context);
        shr_ucx.context = NULL;
    }
    shr_ucx.published = false;
    shr_ucx.active = false;
    shr_ucx.n_remote = 0;
}

static shr_status_t shr_ucx_publish(const char *routine, void *early)
{
    shr_status_t status;
    int local_size;

    (void)shr_ucx_job_spans_nodes(&local_size);
    ucp_worker_h early_worker = shr_ucx_early_take(early);
    status = shr_ucx_context_create(routine, local_size);
    if (status != SHR_OK) {
        return status;
    }
    status = shr_ucx_worker_wrap(early_worker, true, routine, &shr_ucx.dflt);
    if (status == SHR_OK) {
        status = shr_ucx_rkey_publish(routine);
    }
    if (status != SHR_OK) {
        shr_ucx_teardown();
        return status;
    }
    shr_ucx.published = true;
    return SHR_OK;
}

static shr_status_t shr_ucx_init(const char *routine, unsigned *caps_p)
{
    shr_status_t status;
    int first = -1;

    *caps_p = 0;

    shr_ucx.n_remote = 0;
    for (int pe = 0; pe < shr_g.n_pes; pe++) {
        if (shr_g.seg[SHR_SEG_HEAP].peer_base[pe] == NULL) {
            shr_ucx.n_remote++;
            first = first < 0 ? pe : first;
        }
    }
    if (shr_ucx.n_remote == 0) {
        if (shr_ucx.published) {
            shr_ucx_teardown(); /* nobody will call: no peer finds this PE remote */
        }
        return SHR_OK;
    }
    if (!shr_ucx.published) {
        shr_error("%s: PE %d is not on this node, but the launcher said all %d PEs are; "
                  "start the job with a launcher that knows the nodes (mpirun, srun "
                  "--mpi=pmix) or keep every PE on one node", routine, first, shr_g.n_pes);
        return SHR_ERR_UNREACHABLE;
    }
    shr_ucx.remote = calloc((size_t)shr_g.n_pes, sizeof(*shr_ucx.remote));
    if (shr_ucx.remote == NULL) {
        shr_ucx_teardown();
        return SHR_ERR_NO_MEMORY;
    }
    shr_ucx.finalizing = 0;
    shr_ucx.ending = 0;
    shr_ucx.active = true;
    shr_ucx.barrier = shr_ucx_barrier_init();
    if (shr_ucx.wakeup && shr_ucx_progress_thread_wanted()) {
        status = shr_ucx_progress_thread_start(routine);
        if (status != SHR_OK) {
            shr_ucx_teardown();
            return status;
        }
    }
    shr_debug(SHR_LOG_UCX, "%d PE(s) reached through UCX; progress thread %s", shr_ucx.n_remote,
              shr_ucx.wakeup && shr_ucx_progress_thread_wanted() ? "on" : "off");
    /* CPU atomic mode runs every AMO in software at the target (docs/ucx.md) */
    *caps_p = SHR_REMOTE_CAP_TARGET_PROGRESS | (shr_ucx.cpu_atomics ? SHR_REMOTE_CAP_CPU_ATOMICS : 0);
    /* without RDMA devices every put is a send the target serves: a
     * request handle's small ones may as well share one (ucx_agg.c) */
    shr_ucx.coalesce_max = 0;
    shr_ucx.coalesce_all = false;
    shr_ucx.lend = false;
    if (!rdma_devices_present() && shr_config.req_coalesce > 0) {
        /* the message (cookie and records) and UCX's headers within the
         * configured bytes: a full 64 KiB buffer then leaves as one TCP
         * segment of 64 KiB (docs/ucx.md), not as two fragments the
         * target reassembles (docs/requests.md, "Coalescing") */
        size_t bytes = shr_config.req_coalesce_buffer > 256 ? shr_config.req_coalesce_buffer : 256;
        shr_ucx.agg_bytes = bytes - SHR_UCX_AGG_HEADROOM;
        shr_ucx.coalesce_max = shr_config.req_coalesce < shr_ucx.agg_bytes / 2
                                   ? shr_config.req_coalesce : shr_ucx.agg_bytes / 2;
        *caps_p |= SHR_REMOTE_CAP_COALESCE;
        /* the default path too, when something sends what nobody quiets:
         * waits do, and the progress thread once a buffer has aged */
        shr_ucx.coalesce_all = shr_config.rma_coalesce && shr_ucx.wakeup &&
                               shr_ucx_progress_thread_wanted();
        *caps_p |= shr_ucx.coalesce_all ? SHR_REMOTE_CAP_COALESCE_ALL : 0;
        shr_ucx.offload = shr_config.progress_offload && shr_ucx.wakeup &&
                          shr_ucx_progress_thread_wanted();
        shr_ucx.offload_live = shr_ucx.offload;
        /* not with the offload: its thread watches the count of records
         * (agg_recs), which core's appends do not move */
        shr_ucx.lend = !shr_ucx.offload && shr_ucx_agg_windows_init();
        /* the default context is shared between threads under THREAD_MULTIPLE */
        shr_ucx.dflt->lends = shr_ucx.lend && shr_g.thread_level != SHMEM_THREAD_MULTIPLE;
    }
    return SHR_OK;
}

/* What waiting PEs do in the final barrier: keep everyone's last
 * operations (and their flushes) moving, napping in between (woken by
 * traffic): the launcher's daemons complete the barrier, and on a busy
 * node a spinning waiter takes the CPU they need.  Between rounds, core's
 * watch (`arg`: a shr_ucx_watch_t, its function may be NULL). */
typedef struct {
    void (*fn)(void);
} shr_ucx_watch_t;

static void shr_ucx_fini_progress(void *arg)
{
    const shr_ucx_watch_t *watch = arg;

    shr_ucx_progress_all();
    if (watch->fn != NULL) {
        watch->fn();
    }
    (void)shr_ucx_nap(SHR_UCX_FINI_NAP_NS);
}

static bool shr_ucx_final_barrier(void (*watch_fn)(void))
{
    shr_ucx_watch_t watch = {watch_fn};

    if (!shr_ucx.active) {
        return false;
    }
    if (shr_ucx.finalizing) {
        return true; /* met already */
    }
    /* peers leave from here on: their connections closing is no failure */
    __atomic_store_n(&shr_ucx.finalizing, 1, __ATOMIC_RELEASE);
    for (shr_ucx_worker_t *w = shr_ucx.dflt; w != NULL; w = w->next) {
        (void)shr_ucx_flush(w, NULL, 0);
    }
    /* nobody releases memory or closes before everybody completed */
    if (shr_boot_barrier_progress(shr_ucx_fini_progress, &watch) != SHR_OK) {
        shr_warn("finalize: the final bootstrap barrier failed; closing anyway");
    }
    return true;
}

static void shr_ucx_fini(void)
{
    if (!shr_ucx.published) {
        return;
    }
    if (shr_ucx.active) {
        (void)shr_ucx_final_barrier(NULL); /* finalize met already: returns at once */
        shr_ucx_progress_thread_stop();
        /* contexts the program did not destroy, then the pool */
        for (int list = 0; list < 2; list++) {
            shr_ucx_worker_t *w = list == 0 ? shr_ucx.dflt->next : shr_ucx.pool;
            while (w != NULL) {
                shr_ucx_worker_t *next = w->next;
                shr_ucx_worker_destroy(w, true);
                w = next;
            }
        }
        shr_ucx.dflt->next = NULL;
        shr_ucx.pool = NULL;
    }
    shr_ucx_teardown();
}

/* Contexts come and go (a context per team split, per thread, per phase),
 * but a UCX worker costs milliseconds to create and its endpoints a
 * wire-up each: a destroyed context's worker, flushed and with its
 * endpoints, waits in a pool for the next context.  The pool holds at most
 * as many workers as contexts were ever alive at once. */
static shr_status_t shr_ucx_ctx_create(shr_ctx_t *ctx, const char *routine)
{
    bool shared = shr_ucx_ctx_is_shared(ctx);
    shr_ucx_worker_t *w;
    shr_status_t status;

    ctx->transport = NULL;
    if (!shr_ucx.active) {
        return SHR_OK; /* no remote peer: the context never reaches UCX */
    }
    pthread_mutex_lock(&shr_ucx.list_lock);
    w = shr_ucx.pool;
    if (w != NULL) {
        shr_ucx.pool = w->next;
    }
    pthread_mutex_unlock(&shr_ucx.list_lock);
    if (w == NULL) {
        status = shr_ucx_worker_create(shared, routine, &w);
        if (status != SHR_OK) {
            return status;
        }
    }
    w->owned = shr_g.thread_level == SHMEM_THREAD_MULTIPLE && (ctx->options & SHMEM_CTX_PRIVATE);
    /* a private context's lock turns on when another thread waits for
     * one of its handles (shr_ucx_worker_share), which needs the barrier */
    w->must_lock = shared || (w->owned && !shr_ucx.barrier);
    w->lends = shr_ucx.lend && !shared;
    w->owner = pthread_self();
    shr_ucx_workers_add(w);
    ctx->transport = w;
    return SHR_OK;
}

static void shr_ucx_ctx_destroy(shr_ctx_t *ctx)
{
    shr_ucx_worker_t *w = ctx->transport;

    if (w == NULL) {
        return;
    }
    ctx->transport = NULL;
    shr_ucx_workers_remove(w);
    (void)shr_ucx_flush(w, NULL, 0);
    pthread_mutex_lock(&shr_ucx.list_lock);
    w->next = shr_ucx.pool;
    shr_ucx.pool = w;
    pthread_mutex_unlock(&shr_ucx.list_lock);
}

const shr_remote_ops_t shr_ucx_ops = {
    .name = "ucx",
    .abi = SHR_REMOTE_ABI,
    .version = SHIMMER_VERSION_STRING,
    .attach = shr_ucx_attach,
    .prestart = shr_ucx_prestart,
    .publish = shr_ucx_publish,
    .init = shr_ucx_init,
    .final_barrier = shr_ucx_final_barrier,
    .peek = shr_ucx_peek_op,
    .fini = shr_ucx_fini,
    .ctx_create = shr_ucx_ctx_create,
    .ctx_destroy = shr_ucx_ctx_destroy,
    .put = shr_ucx_put_op,
    .get = shr_ucx_get_op,
    .amo = shr_ucx_amo_op,
    .put_signal = shr_ucx_put_signal_op,
    .fence = shr_ucx_fence_op,
    .quiet = shr_ucx_quiet_op,
    .wait = shr_ucx_wait_op,
    .flush = shr_ucx_flush_op,
    .test = shr_ucx_test_op,
    .coalesce_put = shr_ucx_coalesce_put_op,
    .coalesce_amo = shr_ucx_coalesce_amo_op,
    .coalesce_put_signal = shr_ucx_coalesce_put_signal_op,
    .coalesce_get = shr_ucx_coalesce_get_op,
    .progress = shr_ucx_progress_all,
    .nap = shr_ucx_nap,
};

#ifdef SHR_REMOTE_PLUGIN
/* What core/remote.c looks up in libshimmer-ucx.so (SHR_REMOTE_PLUGIN_ENTRY). */
SHR_EXPORT const shr_remote_ops_t *const shr_remote_plugin_ops = &shr_ucx_ops;
#endif
