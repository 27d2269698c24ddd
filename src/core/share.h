/*
 * share.h -- shared copies: a large put or get on this node is split into
 * chunks that this node's PEs idle in a wait copy beside the caller, so a
 * copy the caller's core alone would make at its copy limit uses every core
 * that has nothing else to do (docs/shared-copy.md).
 *
 * The caller publishes the copy in its slot (internal heap, so every PE of
 * the node reads it through its mapping of the caller's heap), takes chunks
 * from the front, and waits only for the chunks a helper took; helpers take
 * chunks from the back from inside the wait primitive (wait_inline.h).  A
 * copy nobody helps is the caller's own, at the cost of publishing it.
 * Where neither end of the copy lies in a segment every helper maps (a
 * private buffer), or the node runs more PEs than it has cores, the caller
 * copies alone.
 */
#ifndef SHR_SHARE_H
#define SHR_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

struct shr_waiter;

/* After the internal heap and the peer mappings exist, before init's
 * barrier: allocates this PE's slot and decides whether this PE shares. */
shr_status_t shr_share_init(const char *routine);
/* Before the mappings go (finalize, after its last barrier). */
void shr_share_fini(void);

/* The shortest copy shared (SIZE_MAX: none). */
extern size_t shr_share_min;

/* Copies len bytes with the node's idle PEs, each chunk through
 * shr_copy_alone (core/rma.c); false (nothing copied) when this copy cannot
 * be shared.  Complete on return, every helper's stores visible to the
 * caller.  Thread-safe. */
bool shr_share_copy(void *dest, const void *src, size_t len);

/* The count of shared copies this node's PEs have published, in the node's
 * first PE's slot; NULL where this PE's waits do not help. */
extern const uint64_t *shr_share_posted;

/* From a wait (wait.c, at each stop of the spin phase and each round
 * after it): makes one claim on a copy of this node published since the
 * wait last looked and copies its chunks; restarts the waiter's spin phase
 * when it helped (a flood keeps its helpers close), and then looks again
 * at the next stop. */
void shr_share_poll(struct shr_waiter *waiter);

#endif
