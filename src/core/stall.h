/*
 * stall.h -- noticing, at the end of a job, that it can no longer move: every
 * PE that has not reached the last finalize naps inside a library wait (a
 * wait_until, a barrier, a collective) and has for a while, so nothing any
 * PE does can wake it.  That is what a PE leaving main without
 * shmem_finalize while the others wait for it looks like; the PEs waiting in
 * the final barrier end the job with a message instead of hanging
 * (docs/errors.md, "Endings").
 *
 * Each PE owns a few words of the internal heap (same offset everywhere):
 * how many naps its waits took and how many waits reached napping (written
 * only in the wait primitive's nap path, which already costs a system call),
 * whether and how it is finishing, and its host's name.  Every 100 ms the
 * lowest PE of each node in the final barrier samples everybody's words
 * (the lowest PE in it job-wide reports): this node's through the mapping,
 * other nodes' through the remote transport's peek (a get from the
 * internal heap) -- only those last seen outside the final barrier, and
 * not before it has lasted one interval (a finalize whose PEs arrive
 * together sends nothing over the network).
 *
 * The reads are safe against teardown: a PE read that was outside the
 * final barrier at the last sample either still is (its endpoints open) or
 * entered it last and completed it; it may then close its endpoints under
 * the read, which fails, and peek reports that without error (the
 * transport is finishing): the sample is dropped.  A PE that left main is
 * never torn down under the watch: it waits in the same barrier, which
 * cannot complete while anybody waits elsewhere.  Not the boot KVS
 * instead: a napping PE would have to publish its words (a PMIx commit per
 * nap), visible to readers only after a fence.  Not one PE per node
 * gathering its node's words for the others: the reads across nodes stay,
 * and that PE would need a thread of its own while it waits.
 */
#ifndef SHR_STALL_H
#define SHR_STALL_H

#include <stdbool.h>

#include "util/status.h"

/* How a PE reaches the final barrier. */
typedef enum {
    SHR_STALL_RUNNING = 0,  /* not finishing */
    SHR_STALL_FINALIZE = 1, /* called shmem_finalize */
    SHR_STALL_AT_EXIT = 2   /* left main without it: finalized by the exit hook */
} shr_stall_end_t;

/* Init, after the internal heap exists: takes this PE's words (collective:
 * every PE allocates them in the same order). */
shr_status_t shr_stall_init(const char *routine);

/* The wait primitive's nap path: one more nap; `first` when this wait had
 * not napped before.  Thread-safe, lock-free. */
void shr_stall_note_nap(bool first);

/* This PE enters the final barrier, by `how`.  Serialised with finalize. */
void shr_stall_enter_final(shr_stall_end_t how);

/* Called again and again while this PE waits in the final barrier (cheap
 * between samples).  When every PE still outside it has napped in one and the
 * same wait for a while, the lowest PE in the barrier reports who waits and
 * who left, and ends the job with status 1 (never returns then). */
void shr_stall_watch(void);

#endif
