/*
 * boot_int.h -- private to src/boot: the operations every bootstrap
 * implementation provides.  boot.c holds the one table of implementations and
 * picks the first whose is_present() says yes.
 */
#ifndef SHR_BOOT_INT_H
#define SHR_BOOT_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "boot/boot.h"

typedef struct {
    const char *name;
    shr_boot_kind_t kind;
    /* True when this process was started by this kind of starter (or is
     * still connected to it from an earlier init).  Cheap, no side effects. */
    bool (*is_present)(void);
    /* Same contracts as the shr_boot_* functions of boot.h. */
    shr_status_t (*init)(int *rank_p, int *size_p, bool finalizes_at_exit);
    void (*fini)(void);
    shr_status_t (*allgather)(const void *mine, void *all, size_t len);
    shr_status_t (*barrier)(void);
    const char *(*job_id)(void);
    /* Optional (NULL: boot.c supplies the default).  barrier_progress: the
     * barrier, calling progress while it waits (default: barrier).  node:
     * the node-local layout (default: every PE on this node, no name).
     * put/get: a native key-value store whose puts travel with the next
     * allgather (default: boot.c carries them in the allgathers). */
    shr_status_t (*barrier_progress)(void (*progress)(void *arg), void *arg);
    void (*node)(shr_boot_node_t *node_p);
    shr_status_t (*put)(const char *key, const void *value, size_t len);
    shr_status_t (*get)(int rank, const char *key, void **value_p, size_t *len_p);
    /* Tells the starter the job ends with `status` (best effort, may be
     * called from any thread, even before init); returns, and boot.c then
     * ends the process.  `msg` may be NULL. */
    void (*abort)(int status, const char *msg, bool global_exit);
    /* Optional: another PE is gone (shr_boot_peer_lost).  Tells a starter
     * that would not end the job by itself to do so without overriding the
     * dead PE's status; returns, and boot.c then waits for the starter. */
    void (*peer_lost)(const char *msg);
    /* Optional (NULL: false): shr_boot_wants_peer_watch. */
    bool (*wants_peer_watch)(void);
} shr_boot_ops_t;

/* Another launcher (Slurm without PMIx, MPICH's hydra, ...) started several
 * copies of this program but none of the implementations above can join
 * them: each copy would run alone.  Fills `what` with the launcher and the
 * variables that say so and returns true.  boot_foreign.c. */
bool shr_boot_foreign_launch(char *what, size_t len);

extern const shr_boot_ops_t shr_boot_launcher_ops;
extern const shr_boot_ops_t shr_boot_single_ops;
#ifdef SHR_BOOT_HAVE_PMIX
extern const shr_boot_ops_t shr_boot_pmix_ops; /* boot_pmix.c */
#endif

#endif
