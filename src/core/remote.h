/*
 * remote.h -- the remote transport: how core reaches the PEs that are not
 * load/store reachable (other nodes, or peers SHIMMER_REMOTE_PES makes
 * remote).
 *
 * A transport is a table of operations (shr_remote_ops_t), the way boot
 * chooses its implementation.  core/remote.c holds the one list of
 * transports and chooses at init: `ucx` when the job spans nodes or
 * SHIMMER_REMOTE_PES asks for it, otherwise `none` (every PE is mapped;
 * nothing is loaded).  Core calls the chosen table through `shr_remote`, and
 * only from its slow paths: the on-node fast path never looks at it.
 *
 * Addresses are the caller's symmetric addresses; `pe` is a world PE.
 * Thread-safety of the data operations follows the context
 * (SHMEM_CTX_PRIVATE / SERIALIZED, or shared under SHMEM_THREAD_MULTIPLE).
 */
#ifndef SHR_REMOTE_H
#define SHR_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/amo_inline.h"
#include "core/team.h"

/* What a transport reports at init; core decides from these, not from
 * which transport it is. */
/* Its atomics execute as CPU atomics on the target's memory: atomic with
 * the AMOs this node's PEs apply to the same words through their mappings. */
#define SHR_REMOTE_CAP_CPU_ATOMICS     (1u << 0)
/* Operations aimed at this PE need this PE to drive the transport: waits
 * poll it and a nap wakes on its traffic (shr_g.needs_progress). */
#define SHR_REMOTE_CAP_TARGET_PROGRESS (1u << 1)
/* Its puts themselves need the target (a send per put, as over TCP): the
 * small puts, non-fetching AMOs and put-with-signals of a request handle
 * may be coalesced into one message per (context, PE) -- the coalesce_*
 * operations below (docs/requests.md, "Coalescing"). */
#define SHR_REMOTE_CAP_COALESCE        (1u << 2)
/* ... and a program's own small puts, put-with-signals and non-fetching
 * AMOs outside handles may be coalesced too, counted in ctx->cmpl: the
 * transport sends such buffers itself when this PE waits, tests or stays
 * away (its progress thread), so nothing waits for a quiet that never
 * comes (docs/requests.md, "Coalescing"). */
#define SHR_REMOTE_CAP_COALESCE_ALL    (1u << 3)

/* Bumped whenever this table or a struct a transport reads (state.h,
 * team.h, env.h) changes shape: a plugin built for another layout is
 * refused at load. */
#define SHR_REMOTE_ABI 8

/* The symbol a transport plugin exports: a `const shr_remote_ops_t *`. */
#define SHR_REMOTE_PLUGIN_ENTRY "shr_remote_plugin_ops"

typedef struct shr_remote_ops {
    const char *name;
    unsigned abi;             /* SHR_REMOTE_ABI of the plugin's build */
    const char *version;      /* SHIMMER_VERSION_STRING of the plugin's build */

    /* ---- life cycle (init and the last finalize; serialised) ---- */
    /* Once per process, on init's thread, before anything else of the
     * table: after a plugin was loaded, or at the first init of a program
     * that has the transport built in (its libraries came with the
     * program).  May be NULL. */
    void (*attach)(void);
    /* On init's helper thread, once boot has joined a job that spans
     * nodes, after the executable's data segment is shared: the slow part
     * of bringing the transport up, overlapping init's local work.  Logs
     * nothing; returns what publish takes over (malloc'ed or NULL).  May
     * be NULL. */
    void *(*prestart)(void);
    /* Before the init exchange, on every PE of a job some of whose peers
     * may be remote: brings the transport up and publishes this PE's
     * address and keys through boot.  `early` is prestart's result (or
     * NULL); publish owns it.  Logs the cause on error, naming `routine`. */
    shr_status_t (*publish)(const char *routine, void *early);
    /* Collective over all PEs, after the shared-memory peers are mapped
     * (shr_g.seg[].peer_base is NULL for every remote PE): readies the
     * transport for the remote PEs, or tears publish's work down when this
     * PE has none.  Sets *caps_p (SHR_REMOTE_CAP_*).  Logs on error. */
    shr_status_t (*init)(const char *routine, unsigned *caps_p);
    /* The last finalize's barrier when this PE has remote peers: completes
     * every context's operations, then meets every PE through boot while
     * driving the transport, calling watch() between rounds (the stall
     * watch, which may call peek).  False (doing nothing) when it has none. */
    bool (*final_barrier)(void (*watch)(void));
    /* Only from final_barrier's watch: reads `len` bytes at the symmetric
     * `src` of each of the `npes` world PEs of `pes` into dest[i * len]
     * and waits for them.  False, and no error, when one failed: a peer
     * that has passed the final barrier may be gone already. */
    bool (*peek)(const int *pes, size_t npes, const void *src, void *dest, size_t len);
    /* The last finalize, after the final barrier (also undoes a publish
     * whose init failed or never ran). */
    void (*fini)(void);

    /* ---- contexts (thread-safe: any thread, any time) ---- */
    /* Per-context state (ctx->transport) of a user context, after ctx's
     * team, PE mapping and options are set; on failure logs (naming
     * `routine`), leaves ctx->transport NULL.  destroy runs after the
     * context's quiet. */
    shr_status_t (*ctx_create)(shr_ctx_t *ctx, const char *routine);
    void (*ctx_destroy)(shr_ctx_t *ctx);

    /* ---- data: every operation takes a completion object ----
     * cmpl NULL: blocking -- a put returns once `src` may be reused (local
     * completion), a get or fetching AMO once the value is delivered.
     * Otherwise the operation is counted in *cmpl until it completes (a
     * put locally; its remote completion is quiet's), and a result lands
     * in the caller's buffer by then. */
    void (*put)(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                shr_cmpl_t *cmpl);
    void (*get)(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                shr_cmpl_t *cmpl);
    /* `op` on `size` (4 or 8) bytes at dest; the old value of a fetching
     * op lands in *fetch (`size` bytes; for CSWAP `cond` is the compare
     * value).  A non-fetching op passes fetch NULL. */
    void (*amo)(shr_ctx_t *ctx, shr_amo_op_t op, void *fetch, void *dest, uint64_t value,
                uint64_t cond, size_t size, int pe, shr_cmpl_t *cmpl);
    /* The 64-bit flag at `sig` of pe becomes `value` (SHMEM_SIGNAL_SET) or
     * grows by it (SHMEM_SIGNAL_ADD) after the `len` bytes from src (len may
     * be 0) and every earlier put of ctx to pe are delivered: the
     * transport owns data-then-flag order.  Data and flag are counted in
     * cmpl; with cmpl NULL the call returns at the data's local completion
     * and the flag is counted in the context's own (ctx->cmpl). */
    void (*put_signal)(shr_ctx_t *ctx, void *dest, const void *src, size_t len, uint64_t *sig,
                       uint64_t value, int sig_op, int pe, shr_cmpl_t *cmpl);
    /* Orders ctx's later operations after its earlier ones, per PE. */
    void (*fence)(shr_ctx_t *ctx);
    /* Completes every operation of ctx (remotely, for puts and AMOs), or
     * only those to the `npes` world PEs of `pes` when pes is not NULL. */
    void (*quiet)(shr_ctx_t *ctx, const int *pes, size_t npes);
    /* Waits until *cmpl counts nothing, driving ctx's transport state. */
    void (*wait)(shr_ctx_t *ctx, shr_cmpl_t *cmpl);
    /* Posts the remote completion of every earlier operation of ctx to the
     * `npes` world PEs of `pes`, counted in *cmpl (done once each of them
     * is); does not wait and leaves quiet's own bookkeeping alone.  What a
     * request handle's wait uses instead of quiet (core/req.c).  Sends
     * those PEs' coalescing buffers (their operations count in whatever
     * completion object they were given).  An entry -1 - pe names a PE
     * that got only coalesced operations of cmpl: its buffer is sent, its
     * endpoint not flushed. */
    void (*flush)(shr_ctx_t *ctx, const int *pes, size_t npes, shr_cmpl_t *cmpl);
    /* One round of progress on ctx's transport state (and the default
     * one); true when *cmpl counts nothing.  Ends the job, like wait, if an
     * operation counted in it failed. */
    bool (*test)(shr_ctx_t *ctx, shr_cmpl_t *cmpl);

    /* ---- coalescing (only with SHR_REMOTE_CAP_COALESCE; else NULL) ----
     * A request handle's operation (or, with SHR_REMOTE_CAP_COALESCE_ALL
     * and cmpl == &ctx->cmpl, a program's blocking or nbi one) appended to
     * ctx's buffer for pe instead of being posted: counted in *cmpl until
     * the buffer has left and pe applied it (remote completion: no flush
     * needed for it).  The buffer leaves when full, at flush of pe with
     * any cmpl, at fence and quiet of ctx, before any other operation of
     * ctx to pe (which it must not overtake) and, with
     * SHR_REMOTE_CAP_COALESCE_ALL, at any wait or test of this PE and
     * after a short age.  False, having done nothing, when this one cannot
     * be coalesced (too long): post it the usual way.  `src` is copied at
     * the call. */
    bool (*coalesce_put)(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                         shr_cmpl_t *cmpl);
    /* A non-fetching `op` (ADD, SET, AND, OR, XOR) on `size` bytes at dest. */
    bool (*coalesce_amo)(shr_ctx_t *ctx, shr_amo_op_t op, void *dest, uint64_t value,
                         size_t size, int pe, shr_cmpl_t *cmpl);
    /* put_signal's data then flag, in that order at pe. */
    bool (*coalesce_put_signal)(shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                                uint64_t *sig, uint64_t value, int sig_op, int pe,
                                shr_cmpl_t *cmpl);
    /* A get: pe's reply to the buffer carries the `len` bytes at src,
     * read after the buffer's earlier records were applied; they land in
     * dest (this process's memory, untouched until then) when it arrives,
     * which drops *cmpl.  Sending the buffer is the caller's business (a
     * blocking get flushes pe at once). */
    bool (*coalesce_get)(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                         shr_cmpl_t *cmpl);

    /* ---- progress (thread-safe) ---- */
    /* Serves what peers aimed at this PE; one non-blocking round. */
    void (*progress)(void);
    /* Sleeps up to `ns` ns, waking early when a peer's operation arrives
     * (the wait primitive's nap); true when woken by such traffic. */
    bool (*nap)(uint64_t ns);
} shr_remote_ops_t;

/* The transport in use: `none` until init chooses, and after finalize. */
extern const shr_remote_ops_t *shr_remote;
/* What it reported at init (SHR_REMOTE_CAP_*). */
extern unsigned shr_remote_caps;

/* ---- the life cycle, as init.c calls it (core/remote.c) ---- */

/* Once boot joined the job and the data segment is shared (never before
 * its copy: see init.c:attach_data): when the job spans nodes, loads the
 * transport and begins bringing it up on a helper thread, overlapping
 * init's local work.  Silent; shr_remote_publish takes the result (and
 * reports a failure). */
void shr_remote_prestart(void);
/* Init's unwinding when publish never ran: waits for the helper and drops
 * what it made.  Nothing when there is no helper. */
void shr_remote_prestart_cancel(void);
/* Before the init exchange, on every PE: if some peer may be out of
 * load/store reach (the starter places PEs on several nodes, or
 * SHIMMER_REMOTE_PES names some), chooses and loads the transport (a
 * missing plugin is one line naming the file and the package), brings it
 * up and publishes this PE's address and keys.  Otherwise does nothing. */
shr_status_t shr_remote_publish(const char *routine);
/* Collective, after the shared-memory peers are mapped: readies the
 * transport for the PEs whose shr_g.seg[].peer_base is NULL and sets
 * shr_g.has_remote, shr_g.needs_progress and shr_remote_caps. */
shr_status_t shr_remote_init(const char *routine);
/* The last finalize's barrier, calling watch() while it waits; false when
 * no peer is remote (the caller's own barrier is cheaper). */
bool shr_remote_final_barrier(void (*watch)(void));
/* The stall watch's read of remote PEs' words (see peek above). */
static inline bool shr_remote_peek(const int *pes, size_t npes, const void *src, void *dest,
                                   size_t len)
{
    return shr_remote->peek(pes, npes, src, dest, len);
}
/* The last finalize (and init's unwinding): back to `none`. */
void shr_remote_fini(void);

/* Per-context state of a user context (see ctx_create above). */
static inline shr_status_t shr_remote_ctx_create(shr_ctx_t *ctx, const char *routine)
{
    return shr_remote->ctx_create(ctx, routine);
}
static inline void shr_remote_ctx_destroy(shr_ctx_t *ctx)
{
    shr_remote->ctx_destroy(ctx);
}

/* The built-in transport `none`: every PE must be load/store reachable
 * (core/remote_none.c). */
extern const shr_remote_ops_t shr_remote_none;

/* For shimmer-info: one line on the remote transport of this build -- built
 * in, or its plugin's path and whether it loads (loading it if present). */
void shr_remote_describe(FILE *out);

#endif
