/*
 * ucx.h -- private to src/transport/ucx: the state of the UCX transport and
 * the functions its files share.  The rest of the library sees only
 * core/remote.h; nothing outside this folder includes <ucp/api/ucp.h>.
 *
 * Shape (docs/ucx.md has the why):
 *   - one ucp context per process; the heap and the data segment registered
 *     once (ucx_rkey.c), their keys published with the worker address
 *     through boot before the init exchange;
 *   - one worker per context.  The default context's worker is also the one
 *     peers connect to: every incoming operation lands on it, so waits and
 *     the progress thread (ucx_progress.c) drive it;
 *   - endpoints and unpacked remote keys per (worker, PE), made on first use
 *     (ucx_ep.c): a job that talks to few PEs holds few endpoints.
 */
#ifndef SHR_UCX_H
#define SHR_UCX_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <ucp/api/ucp.h>

#include "core/remote.h"
#include "core/remote_inline.h"
#include "core/state.h"
#include "core/team.h"
#include "util/compiler.h"
#include "util/status.h"

/* Key under which a PE publishes its blob (ucx_rkey.c). */
#define SHR_UCX_KEY "shr.ucx.1"

/* UCX newer than the 1.13 baseline: calls and defaults that help. */
#define SHR_UCX_API_AT_LEAST(_major, _minor) (UCP_API_VERSION >= UCP_VERSION(_major, _minor))

/* Active message ids (ucx_agg.c): a coalescing buffer, and its reply. */
#define SHR_UCX_AM_AGG 1
#define SHR_UCX_AM_ACK 2
/* Bytes of SHIMMER_REQ_COALESCE_BUFFER that a coalescing buffer leaves to
 * its message's cookie (8) and UCX's headers (~21 in UCX 1.13 over TCP:
 * its AM header, the reply's endpoint and the TCP transport's header). */
#define SHR_UCX_AGG_HEADROOM 64
/* Completion objects one coalescing buffer may count in (more: it leaves). */
#define SHR_UCX_AGG_CMPLS 4

/* A coalescing buffer (ucx_agg.c): small operations of request handles
 * on one worker for one PE, sent as one active message.  Filling (the
 * peer's `agg`), in flight (until both its send completed and the PE's
 * reply arrived), or in the worker's free list. */
typedef struct shr_ucx_agg {
    struct shr_ucx_agg *next;        /* the free list, or the worker's in flight */
    struct shr_ucx_agg *prev;        /* ... (in flight) */
    struct shr_ucx_worker *w;
    uint64_t seq;                    /* in flight: the worker's count of sends */
    int refs;                        /* in flight: the send and the reply */
    int pe;                          /* where it goes */
    int n_cmpl;
    shr_cmpl_t *cmpl[SHR_UCX_AGG_CMPLS]; /* each counts this buffer once */
    size_t len;                      /* bytes of msg[] used after the cookie */
    size_t get_len;                  /* bytes the reply carries back (get records) */
    uint64_t msg[];                  /* the message: this buffer's address (the
                                        reply names it), then the records */
} shr_ucx_agg_t;

/* One PE as seen from one worker: its endpoint and unpacked keys. */
typedef struct shr_ucx_peer {
    ucp_ep_h ep;
    ucp_rkey_h rkey[SHR_SEG_COUNT];  /* NULL: the PE has no such segment */
    uint64_t base[SHR_SEG_COUNT];    /* where the PE's copy starts (its address) */
    bool dirty;                      /* operations since the last flush of ep */
    shr_ucx_agg_t *agg;              /* coalesced operations not sent yet, or NULL */
    shr_ucx_agg_t *full;             /* full buffers left to the progress thread (the
                                        offload), oldest first; none unless agg != NULL */
} shr_ucx_peer_t;

/* What a PE published, as read back from boot (ucx_rkey.c). */
typedef struct shr_ucx_remote {
    char host[64];
    ucp_address_t *address;
    void *rkey_buf[SHR_SEG_COUNT];
    uint64_t base[SHR_SEG_COUNT];
    uint64_t size[SHR_SEG_COUNT];
    void *blob;                      /* owns address and rkey_buf */
} shr_ucx_remote_t;

typedef struct shr_ucx_worker {
    ucp_worker_h worker;
    shr_ucx_peer_t **peers;          /* [n_pes]; NULL until first use */
    bool must_lock;                  /* shared with other threads (or the progress thread);
                                        read unlocked: shr_ucx_worker_share sets it */
    bool owned;                      /* a private context's (SHMEM_CTX_PRIVATE under
                                        SHMEM_THREAD_MULTIPLE): only `owner` issues on it */
    pthread_t owner;                 /* ... the thread that created it */
    int bare;                        /* its one thread is in it without the lock
                                        (shr_ucx_lock while !must_lock) */
    pthread_mutex_t lock;
    int *dirty;                      /* [n_pes]: PEs with operations since their last flush */
    int n_dirty;                     /* ... how many (0: quiet has nothing to do) */
    uint64_t sink;                   /* reply of atomic sets (swaps whose result nobody reads) */
    int *agg_pes;                    /* [n_pes], made at the first coalesced operation: */
    int n_agg;                       /* ... PEs whose peer->agg may hold operations */
    shr_ucx_agg_t *agg_free;         /* buffers to reuse */
    shr_ucx_agg_t *agg_head, *agg_tail; /* buffers sent and not yet applied, oldest first */
    uint64_t agg_seq;                /* buffers sent so far */
    uint64_t agg_oldest;             /* seq of agg_head; UINT64_MAX if none (read unlocked) */
    bool agg_counted;                /* counted in shr_ucx.agg_workers (locked, n_agg != 0) */
    uint64_t agg_birth;              /* times agg_counted was set: the age flush's clock */
    uint64_t agg_seen;               /* ... agg_birth at the progress thread's last look */
    uint64_t agg_recs;               /* records coalesced so far (the offload's clock) */
    bool lends;                      /* lends core its buffers' room: shr_ucx.lend, and
                                        its context is not shared between threads */
    shr_remote_wins_t *wins;         /* ... the windows, made at the first, or NULL */
    int efd;                         /* its event fd, as the progress thread knows it (-1) */
    uint64_t pt_sent;                /* the last buffer the progress thread sent (its own) */
    struct shr_ucx_worker *next;     /* all workers, for progress and finalize */
} shr_ucx_worker_t;

typedef struct shr_ucx {
    ucp_context_h context;
    ucp_mem_h mem[SHR_SEG_COUNT];    /* NULL: segment absent (size 0) */
    shr_ucx_worker_t *dflt;          /* default context; peers connect here */
    pthread_mutex_t list_lock;       /* workers list, the pool and remote[] */
    shr_ucx_worker_t *pool;          /* workers of destroyed contexts, for the next ones */
    shr_ucx_remote_t **remote;       /* [n_pes], fetched on first use */
    bool published;                  /* context up, blob published */
    bool active;                     /* init found remote peers */
    bool wakeup;                     /* context has UCP_FEATURE_WAKEUP */
    bool strong_fence;               /* fence must flush (multi-rail UCX < 1.14) */
    bool cpu_atomics;                /* UCX_ATOMIC_MODE=cpu (Shimmer's default) */
    int finalizing;                  /* peer failures are expected now */
    int ending;                      /* a peer is gone: the job ends, UCX's lines are noise */
    uint64_t activity;               /* progress calls by application threads */
    int waiters;                     /* application threads in a wait of this transport */
    size_t coalesce_max;             /* longest put coalesced; 0: none is */
    size_t agg_bytes;                /* room for records in a coalescing buffer */
    bool coalesce_all;               /* the default path coalesces too (SHIMMER_RMA_COALESCE) */
    bool offload;                    /* the progress thread sends buffers (SHIMMER_PROGRESS_OFFLOAD) */
    bool offload_live;               /* ... and the thread sends them now (not backing off) */
    bool lend;                       /* buffers' room is lent to core (ucx_agg.c: windows) */
    bool barrier;                    /* shr_ucx_barrier_all works (membarrier registered) */
    uint64_t offload_bufs;           /* ... buffers request handles began (its clock) */
    uint64_t pt_sends;               /* ... times the progress thread sent some (its own) */
    int agg_workers;                 /* locked workers that may hold records: waits and the
                                        progress thread send them (read unlocked) */
    int n_remote;                    /* PEs reached through UCX */
    int n_remote_nodes;              /* ... on another node */
} shr_ucx_t;

extern shr_ucx_t shr_ucx;

/* The application is in the library: moves shr_ucx.activity, the clock
 * the progress thread watches (ucx_progress.c).  A load and a store, not
 * a locked add (7 ns here, a fifth of a coalesced put): only whether the
 * clock moved matters, and two threads racing still move it. */
static SHR_ALWAYS_INLINE void shr_ucx_touch(void)
{
    __atomic_store_n(&shr_ucx.activity, __atomic_load_n(&shr_ucx.activity, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
}

/* ---- ucx_status.c: THE translation of UCX statuses ---- */
/* Maps `status` to a shr_status_t; if it is an error, first logs one line
 * "<what>: <UCX's text>" (printf-style `what`).  Thread-safe. */
shr_status_t shr_ucx_status(ucs_status_t status, const char *what_fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Ends the job after a failed operation on `pe`: one line naming the
 * operation, the PE, its host and UCX's reason (through shr_ucx_end).
 * Thread-safe. */
_Noreturn SHR_COLD void shr_ucx_fatal(ucs_status_t status, const char *op, int pe);
/* The same for `what` (a routine, or what the library was doing). */
_Noreturn SHR_COLD void shr_ucx_fail(ucs_status_t status, const char *what);
/* Ends the job with `line` (without "ending the job", added when printed):
 * at once, or, if `status` says a peer is gone (refused, reset, timed
 * out), after the launcher's grace (shr_boot_peer_lost): the job is
 * usually ending already, by shmem_global_exit or a PE's death, and the
 * launcher says why.  Once a peer is gone UCX's own lines are not printed
 * (shr_ucx.ending). */
_Noreturn SHR_COLD void shr_ucx_end(ucs_status_t status, const char *line);
/* Installs the filter of UCX's own log lines (once per process, from
 * attach): UCX prints an error itself before it returns it to us. */
void shr_ucx_log_attach(void);
/* Between begin and end, UCX's warnings and errors on the calling thread
 * are not printed; the first one's text goes to `buf` (`len` bytes, ""
 * if none) for the caller's own line.  Not nested. */
void shr_ucx_log_capture_begin(char *buf, size_t len);
/* Returns whether that first line was UCX's refused (or reset) connect:
 * the peer's process is gone. */
bool shr_ucx_log_capture_end(void);
/* What a line about a PE out of reach tells the user to do, "; if ...":
 * check the link to `host` (NULL: between the nodes). */
void shr_ucx_reach_fix(char *buf, size_t len, const char *host);

/* ---- ucx_init.c ---- */
/* TSan does not know membarrier: there the two sides of the switch to a
 * real lock (shr_ucx_worker_share) pair sequentially consistent atomics
 * instead, and no window is lent (ucx_agg.c). */
#if defined(__SANITIZE_THREAD__)
#define SHR_UCX_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SHR_UCX_TSAN 1
#endif
#endif
#ifdef SHR_UCX_TSAN
#define SHR_UCX_BARE_ORDER __ATOMIC_SEQ_CST
#else
#define SHR_UCX_BARE_ORDER __ATOMIC_RELAXED
#endif
/* Registers this process for membarrier (shr_ucx_barrier_all); false
 * where the kernel refuses.  Once, at init. */
bool shr_ucx_barrier_init(void);
/* Every running thread of the process passes a full memory barrier
 * before this returns: their plain stores before it are visible, or
 * their loads after it see this thread's stores.  `who` names the caller
 * in the error that ends the job if it fails.  Needs shr_ucx.barrier. */
void shr_ucx_barrier_all(const char *who);
/* A thread other than w's owner (w->owned) is about to post on or drive
 * w (a request handle's wait or test): makes w's lock real for good
 * (must_lock), then waits out a section the owner entered without it
 * (w->bare).  Any thread, no lock held. */
SHR_COLD void shr_ucx_worker_share(shr_ucx_worker_t *w);
/* Creates a worker (not yet in the list); must_lock as given.  Logs. */
shr_status_t shr_ucx_worker_create(bool must_lock, const char *routine,
                                   shr_ucx_worker_t **worker_p);
/* Flushes nothing: the caller quieted.  Closes endpoints, frees keys. */
void shr_ucx_worker_destroy(shr_ucx_worker_t *w, bool force);
void shr_ucx_workers_add(shr_ucx_worker_t *w);
void shr_ucx_workers_remove(shr_ucx_worker_t *w);

/* ---- ucx_rkey.c ---- */
/* Registers the segments, packs their keys and publishes them with the
 * default worker's address.  Logs. */
shr_status_t shr_ucx_rkey_publish(const char *routine);
void shr_ucx_rkey_unpublish(void);
/* What `pe` published; cached for the process.  Thread-safe. */
shr_ucx_remote_t *shr_ucx_remote_get(int pe);
void shr_ucx_remote_free_all(void);
/* Unpacks pe's keys for endpoint `peer->ep`.  Logs. */
shr_status_t shr_ucx_rkey_unpack(const shr_ucx_remote_t *remote, shr_ucx_peer_t *peer, int pe);
void shr_ucx_rkey_destroy(shr_ucx_peer_t *peer);

/* The transport's table (ucx_init.c) and its operations (core/remote.h
 * says what each does). */
extern const shr_remote_ops_t shr_ucx_ops;

/* ---- ucx_rma.c ---- */
void shr_ucx_put_op(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                    shr_cmpl_t *cmpl);
void shr_ucx_get_op(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                    shr_cmpl_t *cmpl);
void shr_ucx_amo_op(shr_ctx_t *ctx, shr_amo_op_t op, void *fetch, void *dest, uint64_t value,
                    uint64_t cond, size_t size, int pe, shr_cmpl_t *cmpl);
void shr_ucx_put_signal_op(shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                           uint64_t *sig, uint64_t value, int sig_op, int pe, shr_cmpl_t *cmpl);
void shr_ucx_fence_op(shr_ctx_t *ctx);
void shr_ucx_quiet_op(shr_ctx_t *ctx, const int *pes, size_t npes);
void shr_ucx_wait_op(shr_ctx_t *ctx, shr_cmpl_t *cmpl);
void shr_ucx_flush_op(shr_ctx_t *ctx, const int *pes, size_t npes, shr_cmpl_t *cmpl);
bool shr_ucx_test_op(shr_ctx_t *ctx, shr_cmpl_t *cmpl);
bool shr_ucx_peek_op(const int *pes, size_t npes, const void *src, void *dest, size_t len);
/* Completes every operation w started on the endpoints of `pes` (NULL: all
 * dirty ones): flushes exactly the endpoints this worker created and used,
 * never the ones peers created towards it (those may wait for a peer's
 * other worker), and waits for the flushes.  Takes w's lock only to post.
 * The first error's status. */
ucs_status_t shr_ucx_flush(shr_ucx_worker_t *w, const int *pes, size_t npes);

/* ---- ucx_agg.c: coalescing (core/remote.h's coalesce_*) ---- */
bool shr_ucx_coalesce_put_op(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                             shr_cmpl_t *cmpl);
bool shr_ucx_coalesce_amo_op(shr_ctx_t *ctx, shr_amo_op_t op, void *dest, uint64_t value,
                             size_t size, int pe, shr_cmpl_t *cmpl);
bool shr_ucx_coalesce_get_op(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                             shr_cmpl_t *cmpl);
bool shr_ucx_coalesce_put_signal_op(shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                                    uint64_t *sig, uint64_t value, int sig_op, int pe,
                                    shr_cmpl_t *cmpl);
/* Sends peer's coalescing buffer (pe's), after the full ones queued
 * before it; with `fence`, what w posts next is ordered after it.  Lock
 * held.  Ends the job if the send fails. */
SHR_COLD void shr_ucx_agg_send(shr_ucx_worker_t *w, shr_ucx_peer_t *peer, int pe, bool fence);
/* Sends every coalescing buffer of w (fence, quiet, finalize) and returns
 * the number of the last one sent so far: done once shr_ucx_agg_done
 * says so.  Lock held. */
uint64_t shr_ucx_agg_send_all(shr_ucx_worker_t *w);
/* Waits until every buffer w sent up to number `seq` was applied, driving
 * w (and the default worker) without holding the lock between rounds,
 * like shr_ucx_cmpl_wait.  Other threads may keep sending meanwhile. */
void shr_ucx_agg_wait(shr_ucx_worker_t *w, uint64_t seq);
/* Whether the buffers' room may be lent to core (core/remote_inline.h's
 * windows): a thread that takes windows back from their writer needs
 * shr_ucx_barrier_all.  Once, at init, after shr_ucx_barrier_init. */
bool shr_ucx_agg_windows_init(void);
/* Before a thread that does not append through w's windows (the progress
 * thread, another thread's wait) touches w's buffers: shuts the windows
 * and waits for an append under way.  w's lock held (a real one). */
void shr_ucx_agg_windows_take(shr_ucx_worker_t *w);
/* Opens them again after shr_ucx_agg_windows_take.  w's lock held. */
void shr_ucx_agg_windows_give(shr_ucx_worker_t *w);
/* Registers the two active-message handlers on w.  Logs. */
shr_status_t shr_ucx_agg_handlers_set(shr_ucx_worker_t *w, const char *routine);
/* Frees w's buffers (none may be in flight: the caller quieted). */
void shr_ucx_agg_destroy(shr_ucx_worker_t *w);
/* Which coalescing buffers shr_ucx_agg_flush_all sends. */
typedef enum {
    SHR_UCX_FLUSH_MINE,  /* a wait: those the calling thread may fill (not
                            other threads' private contexts: their owners
                            are filling them and will complete them) */
    SHR_UCX_FLUSH_ALL,   /* the progress thread, the program away: all */
    SHR_UCX_FLUSH_AGED,  /* ... its look while buffers fill: those it saw
                            waiting at its previous look already */
} shr_ucx_flush_t;
/* Sends the coalescing buffers of the workers that lock (the default
 * one, shared contexts, contexts that coalesced default-path operations)
 * that `which` names, skipping those another thread holds.  Any thread,
 * no lock held.  True while some buffer may still wait. */
bool shr_ucx_agg_flush_all(shr_ucx_flush_t which);
/* Where waits send what this PE coalesced: the progress rule (a buffer
 * never waits for a quiet that may never come). */
static SHR_ALWAYS_INLINE void shr_ucx_agg_poll(void)
{
    if (SHR_UNLIKELY(__atomic_load_n(&shr_ucx.agg_workers, __ATOMIC_RELAXED) != 0)) {
        (void)shr_ucx_agg_flush_all(SHR_UCX_FLUSH_MINE);
    }
}

/* With the offload, is the progress thread sending the coalescing
 * buffers of c's operations (a request handle's), so that handle
 * flushes and tests leave them to it?  Not while it backs off
 * (ucx_progress.c): then they send them as without it. */
static SHR_ALWAYS_INLINE bool shr_ucx_offloads(const shr_cmpl_t *c)
{
    return shr_ucx.offload && c->handle && __atomic_load_n(&shr_ucx.offload_live, __ATOMIC_RELAXED);
}

/* ---- ucx_ep.c ---- */
/* The peer entry of `pe` on `w`, connecting on first use.  Called with w's
 * lock held.  Ends the job if `pe` cannot be reached. */
SHR_COLD shr_ucx_peer_t *shr_ucx_peer_connect(shr_ucx_worker_t *w, int pe);
/* The same without ending the job: UCX's status (UCS_OK: *peer_p set) and
 * UCX's own line about a failure in `why` (`len` bytes; "" if none).  For
 * the final barrier's watch, where a peer may have left already. */
SHR_COLD ucs_status_t shr_ucx_peer_try(shr_ucx_worker_t *w, int pe, char *why, size_t len,
                                       shr_ucx_peer_t **peer_p);
void shr_ucx_peer_close(shr_ucx_worker_t *w, int pe, bool force);

/* ---- ucx_progress.c ---- */
/* Drives the default worker (incoming operations) and the other workers,
 * skipping any another thread holds.  Counts as application activity. */
void shr_ucx_progress_all(void);
/* The wait primitive's nap (core/remote.h's nap). */
bool shr_ucx_nap(uint64_t ns);
/* The progress thread. */
shr_status_t shr_ucx_progress_thread_start(const char *routine);
void shr_ucx_progress_thread_stop(void);
bool shr_ucx_progress_thread_wanted(void);
/* A first coalescing buffer began filling: wakes the progress thread if it
 * sleeps long, so that its age flush watches the buffer.  Any thread. */
void shr_ucx_progress_thread_kick(void);
/* A request handle's operation began a coalescing buffer: with the
 * offload (shr_ucx.offload), wakes the progress thread if it sleeps, to
 * send the buffer once the program stops filling it.  Any thread. */
void shr_ucx_progress_thread_offload(void);

#endif
