/*
 * remote.h -- operations on PEs that are not load/store reachable.  The
 * core's slow paths call these; the remote transport (transport/ucx)
 * implements them.  Without one, every call reports the PE as unreachable.
 *
 * Addresses are the caller's symmetric addresses; `pe` is a world PE.
 * Thread-safety follows the context (SHMEM_CTX_PRIVATE/SERIALIZED).
 */
#ifndef SHR_REMOTE_H
#define SHR_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/amo_inline.h"
#include "core/team.h"

/* Right after boot joined the job (shr_g.n_pes set, nothing else yet):
 * when the job spans nodes, begins bringing the transport up in the
 * background, overlapping init's local work.  Best effort and silent;
 * shr_remote_publish takes the result. */
void shr_remote_prestart(void);

/* Before the init exchange (shr_boot_allgather of the PE cards), on every
 * PE: if some peer may be out of load/store reach (the starter places PEs on
 * several nodes, or SHIMMER_REMOTE_PES names some), brings the transport up
 * and publishes this PE's address and memory keys through boot, so that
 * they travel with that one exchange.  Otherwise does nothing.  Logs the
 * cause on error, naming `routine`. */
shr_status_t shr_remote_publish(const char *routine);

/* Collective over all PEs, after the shared-memory peers are mapped: brings
 * up the remote transport for the PEs whose shr_g.seg[].peer_base is NULL
 * (exchanging addresses and keys through boot).  Logs the cause on error,
 * naming `routine`. */
shr_status_t shr_remote_init(const char *routine);
/* The last finalize's barrier when some peer is remote (shr_g.needs_progress,
 * the same on every PE): completes every context's operations, then meets
 * every PE through boot while driving the transport (remote peers' last
 * operations need our progress).  No endpoint is made for it: a job that
 * never sent a byte across nodes never wires one up.  False, doing nothing,
 * when no peer is remote (the caller's shared-memory barrier is cheaper). */
bool shr_remote_final_barrier(void);
/* Collective; the last finalize, after the final barrier. */
void shr_remote_fini(void);

/* Per-context state (ctx->transport) of a user-created context: create
 * runs after ctx's team, PE mapping and options are set, destroy after its
 * implicit quiet.  The default context's state is made by shr_remote_init.
 * On failure create logs the cause (naming `routine`), leaves
 * ctx->transport NULL and returns an error: shmem_ctx_create then fails
 * cleanly.  Thread-safe: different threads may create and destroy
 * different contexts at the same time. */
shr_status_t shr_remote_ctx_create(shr_ctx_t *ctx, const char *routine);
void shr_remote_ctx_destroy(shr_ctx_t *ctx);

void shr_remote_put(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe, bool nbi);
void shr_remote_get(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe, bool nbi);
uint64_t shr_remote_amo(shr_ctx_t *ctx, shr_amo_op_t op, void *dest, uint64_t value,
                        uint64_t cond, size_t size, int pe);
void shr_remote_amo_nbi(shr_ctx_t *ctx, shr_amo_op_t op, void *fetch, void *dest,
                        uint64_t value, uint64_t cond, size_t size, int pe);
void shr_remote_fence(shr_ctx_t *ctx);
void shr_remote_quiet(shr_ctx_t *ctx, const int *pes, size_t npes);
void shr_remote_progress(void);
/* Sleeps for up to `ns` nanoseconds, waking early when an operation of a
 * remote peer arrives (the caller's next shr_remote_progress serves it): the
 * wait primitive's nap, so that a napping PE still answers at once.  True
 * when woken by (or returning for) such traffic.  Thread-safe. */
bool shr_remote_nap(uint64_t ns);

#endif
