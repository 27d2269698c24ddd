/*
 * watch.h -- ending the job at once when a PE of this node dies, under a
 * launcher that would take its time (boot says which: srun, whose
 * slurmstepd asks its controller to cancel the step, 1-5 s measured).
 * A thread per PE holds a pidfd of each other PE of this node and, when
 * one of those processes ends before this PE reached the final barrier,
 * ends the job through shr_boot_peer_lost: the launcher then reports the
 * dead PE's own status.  docs/multinode.md, "Under Slurm".
 */
#ifndef SHR_WATCH_H
#define SHR_WATCH_H

#include <sys/types.h>

/* Init, after the exchange: watch the processes `pids[i]` of PEs `pes[i]`
 * (i < count; this node's other PEs).  Best effort: without pidfds (a
 * kernel before 5.3) nothing is watched.  Not thread-safe (init). */
void shr_watch_start(const int *pes, const pid_t *pids, int count);

/* Finalize, before the final barrier (peers may leave from then on): ends
 * the thread.  Idempotent; not from a child of fork. */
void shr_watch_stop(void);

#endif
