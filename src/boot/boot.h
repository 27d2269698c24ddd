/*
 * boot.h -- how PEs find each other (the library side of bootstrapping).
 *
 * One small interface, three implementations chosen at run time in boot.c:
 *   - launcher: started by our own `oshrun` (SHIMMER_BOOT_FD in the environment);
 *   - pmix:     started by a PMIx launcher (mpirun, srun --mpi=pmix, prterun);
 *   - single:   started by hand, one PE.
 *
 * The core layer uses only what is declared here; it never learns which
 * implementation runs except through shr_boot_kind().  Nothing here is on a
 * fast path: every call may block and none is thread-safe (the core calls them
 * from init, finalize, memory management and error paths, serialised).
 */
#ifndef SHR_BOOT_H
#define SHR_BOOT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/status.h"

typedef enum {
    SHR_BOOT_SINGLE,   /* no launcher: one PE */
    SHR_BOOT_LAUNCHER, /* our oshrun */
    SHR_BOOT_PMIX      /* a PMIx server */
} shr_boot_kind_t;

/* Connects to whatever started this process.  Sets *rank_p and *size_p only
 * on success.  Calling it again after shr_boot_fini() reconnects (the 1.6
 * re-initialisation rule).  `finalizes_at_exit`: the caller promises to call
 * shr_boot_fini from its exit handlers, so our launcher may treat a clean
 * exit without it as handlers skipped (_exit) rather than as a choice. */
shr_status_t shr_boot_init(int *rank_p, int *size_p, bool finalizes_at_exit);

/* Leaves the job cleanly: tells the launcher this PE finalized. */
void shr_boot_fini(void);

shr_boot_kind_t shr_boot_kind(void);
const char *shr_boot_kind_name(void);

/* Collective over all PEs: every PE contributes `len` bytes (the same len on
 * every PE) and receives all contributions, rank order, in all[size * len]. */
shr_status_t shr_boot_allgather(const void *mine, void *all, size_t len);

/* The same (len > 0), into a buffer it allocates: *all_p, size * len bytes,
 * which the caller frees.  Holds the PEs' contributions once, where
 * shr_boot_allgather may hold them twice (footprint: init's exchange). */
shr_status_t shr_boot_allgather_alloc(const void *mine, size_t len, void **all_p);

/* Collective over all PEs.  Slow (goes through the launcher); used only where
 * shared memory cannot be used yet (init) or no longer (finalize). */
shr_status_t shr_boot_barrier(void);

/* The same barrier, calling progress(arg) while it waits: for a caller whose
 * peers may need it to drive a network transport meanwhile (finalize).  Never
 * blocks in the starter without calling progress at least every millisecond. */
shr_status_t shr_boot_barrier_progress(void (*progress)(void *arg), void *arg)
    SHR_PLUGIN_IMPORT(boot_barrier_progress);

/* Where this PE runs, as the starter sees it.  local_size: PEs of this job on
 * this node, local_rank: my index among them (oshrun: every PE is on this
 * node).  name: the starter's name for the node, "" if it gives none. */
typedef struct shr_boot_node {
    int local_rank;
    int local_size;
    char name[64];
} shr_boot_node_t;

/* Valid after a successful shr_boot_init. */
void shr_boot_node(shr_boot_node_t *node_p) SHR_PLUGIN_IMPORT(boot_node);

/* Key-value exchange (the "modex").  A value put before a shr_boot_allgather
 * is readable by every PE after it returns: values travel with that one
 * exchange (PMIx: one fence).  Keys are short strings; a PE puts each key at
 * most once per exchange.  get returns a malloc'ed copy the caller frees;
 * SHR_ERR_UNREACHABLE when `rank` published no such key. */
shr_status_t shr_boot_put(const char *key, const void *value, size_t len)
    SHR_PLUGIN_IMPORT(boot_put);
shr_status_t shr_boot_get(int rank, const char *key, void **value_p, size_t *len_p)
    SHR_PLUGIN_IMPORT(boot_get);

/* Ends the whole job with `status`; `msg` (may be NULL) is what the launcher
 * prints as the reason.  Never returns.  Safe to call from any thread and
 * before shr_boot_init (then it just exits). */
_Noreturn void shr_boot_abort(int status, const char *msg);

/* The transport saw another PE's process vanish; `msg` says which and how
 * (one line, no prefix).  Ends this process so that the launcher reports the
 * dead PE's own status (its signal or exit code), not this PE's: the launcher
 * gets a moment to do so, and this PE prints nothing meanwhile; then `msg`
 * is its error line and the job ends with status 1.  Never returns.
 * Safe from any thread, even the transport's progress. */
_Noreturn void shr_boot_peer_lost(const char *msg) SHR_PLUGIN_IMPORT(boot_peer_lost);

/* True when the launcher would be slow to end the job after a PE of this
 * node dies while the others of the node run on (srun), so that the PEs
 * should watch each other (core/watch.h).  Valid after shr_boot_init. */
bool shr_boot_wants_peer_watch(void);

/* What shmem_global_exit(status) calls: like shr_boot_abort, but the launcher
 * reports it as a deliberate exit ("PE 1 called shmem_global_exit(3)"), not
 * as a failure.  Never returns.  Safe from any thread and before init. */
_Noreturn void shr_boot_global_exit(int status);

/* A string unique to this job (same on every PE), for naming per-job
 * resources.  Valid after a successful shr_boot_init until the process ends;
 * owned by boot.  Before init returns "". */
const char *shr_boot_job_id(void);

#endif
