/*
 * ucx_agg.c -- coalescing: the small operations of request handles (and
 * of the default path: SHR_REMOTE_CAP_COALESCE_ALL) leave as one active
 * message per (worker, PE) instead of one send each (core/remote.h's
 * coalesce_*, docs/requests.md "Coalescing").
 *
 * Over TCP every put is a send system call (~10 us here) and the target
 * applies it in its progress anyway; a buffer of records costs one send
 * and one reply for all of them.  The transport reports the capability
 * only without RDMA devices (ucx_init.c): RDMA puts need no target and
 * stay direct.
 *
 *   initiator: a record per operation is appended to peer->agg (made on
 *     first use from the worker's free list); each completion object the
 *     buffer holds operations of counts it once.  The buffer leaves when
 *     the next record does not fit, at a handle's flush of the PE, at
 *     fence, quiet and finalize, and before any other operation of the
 *     worker to the PE (shr_ucx_peer), followed by a fence: nothing
 *     overtakes it.  With the offload a full buffer of a handle's instead
 *     joins the peer's queue (peer->full) for the progress thread; every
 *     send of the peer's buffer posts the queue first, oldest first.
 *   target: the handler (on the default worker, which peers connect to)
 *     applies the records in order -- data with shr_copy_once, atomics
 *     with the CPU atomics of the node's own path, gets read into the
 *     reply -- then replies with the buffer's address and the gets' data.
 *   initiator: the reply puts each get's data in place, drops each
 *     completion object's count, takes the
 *     buffer out of the worker's in-flight list (quiet waits for its
 *     oldest) and frees it once its send has completed too.
 *
 * The progress rule (default path): a worker that locks and holds records
 * is counted in shr_ucx.agg_workers; every wait round of this PE sends
 * such buffers (shr_ucx_agg_poll: all but other threads' private
 * contexts', which their owners fill and complete), and the progress
 * thread sends those it finds filling at two looks in a row
 * (ucx_progress.c).
 *
 * Locking: as every operation: the worker's lock (when it must lock)
 * around appending and sending, except core's appends through the
 * windows below (a context's own thread, no lock; never with the
 * offload); UCX's worker is serialized, so a send holds the lock across
 * its system call, and the progress thread takes it once per full
 * buffer.  The handlers run in the worker's progress, under the same
 * lock.  Quiet waits for the buffers sent up to its own (by number,
 * shr_ucx_agg_wait), so other threads sending more on a shared context
 * cannot put it off.
 */
#include "transport/ucx/ucx_inline.h"

#include <sched.h>
#include <stdlib.h>

#include "core/rma_inline.h"
#include "util/log.h"

/* The records are core/remote_inline.h's (core appends puts itself
 * through the windows below).  A get's data comes back in the reply,
 * padded to 8, in the order of its records. */
typedef shr_remote_rec_t shr_ucx_rec_t;

#define SHR_UCX_PAD8(_n) SHR_REMOTE_PAD8(_n)

/* ---- windows: the room of the buffers lent to core ----
 * While pe's window is open, core's appends move its cursor, not a->len:
 * whoever reads or grows the buffer folds the window back first
 * (agg_fold), and the table's appends lend it again (agg_lend). */

/* pe's window back into its buffer a (peer->agg).  Lock held, and nobody
 * appending through it: this is its thread, or shr_ucx_agg_windows_take ran. */
static SHR_ALWAYS_INLINE void agg_fold(shr_ucx_worker_t *w, shr_ucx_agg_t *a, int pe)
{
    shr_remote_win_t *win;

    if (w->wins != NULL && (win = &w->wins->win[pe])->end != NULL) {
        a->len = (size_t)(win->cur - (unsigned char *)(a->msg + 1));
        *win = (shr_remote_win_t){0};
    }
}

/* Makes w's windows (w->lends); false if out of memory: then the table
 * keeps every append, slower, not wrong. */
static bool agg_windows_create(shr_ucx_worker_t *w)
{
    w->wins = calloc(1, sizeof(*w->wins) + (size_t)shr_g.n_pes * sizeof(shr_remote_win_t));
    if (w->wins == NULL) {
        return false;
    }
    w->wins->open = 1;
    w->wins->max_len = shr_ucx.coalesce_max;
    return true;
}

/* Lends ctx (w's context, which lends: w->lends) the room left in pe's
 * buffer a, for records counted in cmpl (which a counts).  Lock held.
 * Out of line: once a buffer, core appends the rest. */
static SHR_NOINLINE void agg_lend(shr_ucx_worker_t *w, shr_ctx_t *ctx, shr_ucx_agg_t *a, int pe,
                                  shr_cmpl_t *cmpl)
{
    if (w->wins == NULL && !agg_windows_create(w)) {
        return;
    }
    unsigned char *base = (unsigned char *)(a->msg + 1);
    w->wins->win[pe] = (shr_remote_win_t){
        .cur = base + a->len, .end = base + shr_ucx.agg_bytes, .cmpl = cmpl};
    ctx->remote_wins = w->wins;
}

/* Shuts the windows, makes every thread of the process pass a full
 * memory barrier (shr_ucx_barrier_all: an appending thread's store of
 * busy is visible after it, or its load of open sees them shut), then
 * waits for an append under way to end.  The appending thread pays two
 * plain stores; this pays a system call. */
void shr_ucx_agg_windows_take(shr_ucx_worker_t *w)
{
    shr_remote_wins_t *ws = w->wins;

    if (ws == NULL) {
        return;
    }
    __atomic_store_n(&ws->open, 0, __ATOMIC_RELAXED);
    shr_ucx_barrier_all("taking coalescing buffers back from the thread filling them");
    while (__atomic_load_n(&ws->busy, __ATOMIC_ACQUIRE) != 0) {
        sched_yield();
    }
}

/* (the buffers sent closed their windows each) */
void shr_ucx_agg_windows_give(shr_ucx_worker_t *w)
{
    if (w->wins != NULL) {
        __atomic_store_n(&w->wins->open, 1, __ATOMIC_RELEASE);
    }
}

bool shr_ucx_agg_windows_init(void)
{
#ifdef SHR_UCX_TSAN
    return false; /* TSan does not know membarrier: it would see races that are not */
#else
    return shr_ucx.barrier;
#endif
}

/* ---- buffers ---- */

static shr_ucx_agg_t *agg_take(shr_ucx_worker_t *w)
{
    shr_ucx_agg_t *a = w->agg_free;

    if (a != NULL) {
        w->agg_free = a->next;
    } else {
        a = malloc(sizeof(*a) + sizeof(uint64_t) + shr_ucx.agg_bytes);
        if (a == NULL) {
            shr_fatal(1, "out of memory for a buffer coalescing small remote operations"
                         "; lower SHIMMER_REQ_COALESCE_BUFFER, or set SHIMMER_REQ_COALESCE=0 to send every operation on its own");
        }
        a->w = w;
    }
    a->next = NULL;
    a->refs = 0;
    a->n_cmpl = 0;
    a->len = 0;
    a->get_len = 0;
    return a;
}

/* Drops one of an in-flight buffer's two references (lock held). */
static void agg_unref(shr_ucx_agg_t *a)
{
    if (--a->refs == 0) {
        a->next = a->w->agg_free;
        a->w->agg_free = a;
    }
}

/* Frees a chain of buffers linked by `next` (a PE's queue, the free list). */
static void agg_free_chain(shr_ucx_agg_t *a)
{
    while (a != NULL) {
        shr_ucx_agg_t *next = a->next;
        free(a);
        a = next;
    }
}

void shr_ucx_agg_destroy(shr_ucx_worker_t *w)
{
    for (int pe = 0; w->peers != NULL && pe < shr_g.n_pes; pe++) {
        shr_ucx_peer_t *peer = w->peers[pe];
        if (peer != NULL) {
            agg_free_chain(peer->full);
            peer->full = NULL;
            free(peer->agg);
            peer->agg = NULL;
        }
    }
    agg_free_chain(w->agg_free);
    w->agg_free = NULL;
    free(w->agg_pes);
    w->agg_pes = NULL;
    free(w->wins);
    w->wins = NULL;
    w->n_agg = 0;
    if (w->agg_counted) {
        w->agg_counted = false;
        __atomic_fetch_sub(&shr_ucx.agg_workers, 1, __ATOMIC_RELAXED);
    }
}

/* ---- sending ---- */

static void agg_sent(void *request, ucs_status_t status, void *user_data)
{
    shr_ucx_agg_t *a = user_data;

    ucp_request_free(request);
    if (SHR_UNLIKELY(status != UCS_OK) && !__atomic_load_n(&shr_ucx.finalizing, __ATOMIC_ACQUIRE)) {
        shr_ucx_fatal(status, "coalesced operations to", a->pe);
    }
    agg_unref(a);
}

/* Posts buffer `a` to pe; with `fence`, what w posts next is ordered
 * after it.  Lock held. */
static void agg_post(shr_ucx_worker_t *w, shr_ucx_agg_t *a, shr_ucx_peer_t *peer, int pe,
                     bool fence)
{
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK |
                        UCP_OP_ATTR_FIELD_USER_DATA,
        /* REPLY: the target answers on this worker's endpoint */
        .flags = UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER,
        .cb.send = agg_sent,
        .user_data = a,
    };
    void *req;

    a->pe = pe;
    a->refs = 2; /* the send and the reply */
    a->msg[0] = (uint64_t)(uintptr_t)a;
    a->seq = ++w->agg_seq;
    a->next = NULL;
    a->prev = w->agg_tail;
    if (w->agg_tail != NULL) {
        w->agg_tail->next = a;
    } else {
        w->agg_head = a;
        __atomic_store_n(&w->agg_oldest, a->seq, __ATOMIC_RELAXED);
    }
    w->agg_tail = a;
    req = ucp_am_send_nbx(peer->ep, SHR_UCX_AM_AGG, NULL, 0, a->msg, sizeof(uint64_t) + a->len,
                          &param);
    if (req == NULL) {
        a->refs--; /* sent; the reply needs this worker's progress, not run yet */
    } else if (UCS_PTR_IS_ERR(req)) {
        shr_ucx_fatal(UCS_PTR_STATUS(req), "coalesced operations to", pe);
    }
    if (fence) {
        (void)ucp_worker_fence(w->worker);
    }
}

/* Posts the oldest of pe's full buffers, fenced as when it filled: the
 * endpoint sees the posts it would have seen without the queue, in the
 * same order, only later (docs/requests.md "Offload").  Lock held. */
static void agg_post_full(shr_ucx_worker_t *w, shr_ucx_peer_t *peer, int pe)
{
    shr_ucx_agg_t *a = peer->full;

    peer->full = a->next;
    agg_post(w, a, peer, pe, true);
}

void shr_ucx_agg_send(shr_ucx_worker_t *w, shr_ucx_peer_t *peer, int pe, bool fence)
{
    shr_ucx_agg_t *a = peer->agg;

    agg_fold(w, a, pe); /* (queued buffers were folded when they filled) */
    while (peer->full != NULL) {
        agg_post_full(w, peer, pe);
    }
    peer->agg = NULL;
    agg_post(w, a, peer, pe, fence);
}

/* Full buffers one (worker, PE) may queue for the progress thread (512
 * KiB of copied records with the default 64 KiB buffers); the next one
 * leaves from the issuing thread with the queue: what a program copies
 * faster than the thread sends stays bounded.  16 lost overlap at 8 KiB
 * on 2 cores (docs/requests.md, "Offload"). */
#define SHR_UCX_AGG_FULL_MAX 8

/* pe's buffer is full.  With the offload the issuing thread only queues
 * it: the progress thread sends it with the rest once the program stops
 * filling (ucx_progress.c), so the send's system call leaves this thread
 * as the later buffers' do.  Else it leaves now, fenced.  Lock held. */
static void agg_full(shr_ucx_worker_t *w, shr_ucx_peer_t *peer, int pe, const shr_cmpl_t *cmpl)
{
    shr_ucx_agg_t *a = peer->agg;
    shr_ucx_agg_t **end = &peer->full;
    int n = 0;
    bool queue = shr_ucx_offloads(cmpl);

    /* the queue's end and length (at most 8 steps, once per full buffer) */
    for (; queue && *end != NULL; end = &(*end)->next) {
        n++;
    }
    if (!queue || n == SHR_UCX_AGG_FULL_MAX) {
        shr_ucx_agg_send(w, peer, pe, true);
        return;
    }
    a->next = NULL;
    *end = a;
    peer->agg = NULL;
}

uint64_t shr_ucx_agg_send_all(shr_ucx_worker_t *w)
{
    for (int i = 0; i < w->n_agg; i++) {
        shr_ucx_peer_t *peer = w->peers[w->agg_pes[i]];
        if (peer->agg != NULL) {
            shr_ucx_agg_send(w, peer, w->agg_pes[i], false);
        }
    }
    w->n_agg = 0;
    if (w->agg_counted) {
        __atomic_store_n(&w->agg_counted, false, __ATOMIC_RELAXED);
        __atomic_fetch_sub(&shr_ucx.agg_workers, 1, __ATOMIC_RELAXED);
    }
    return w->agg_seq;
}

/* Posts the oldest full buffer of one of w's PEs; false if none is
 * queued.  Lock held. */
static bool agg_post_any_full(shr_ucx_worker_t *w)
{
    for (int i = 0; i < w->n_agg; i++) {
        shr_ucx_peer_t *peer = w->peers[w->agg_pes[i]];
        if (peer->full != NULL) {
            agg_post_full(w, peer, w->agg_pes[i]);
            return true;
        }
    }
    return false;
}

/* The progress thread sent w's buffers up to the last one: it may
 * collect their replies (pt_sent).  Lock held. */
static void agg_pt_sent(shr_ucx_worker_t *w)
{
    if (w->agg_seq != w->pt_sent) {
        w->pt_sent = w->agg_seq;
        shr_ucx.pt_sends++;
    }
}

bool shr_ucx_agg_flush_all(shr_ucx_flush_t which)
{
    bool left = false;

    if (pthread_mutex_trylock(&shr_ucx.list_lock) != 0) {
        return true; /* another thread walks the list: look again next time */
    }
    for (shr_ucx_worker_t *w = shr_ucx.dflt; w != NULL; w = w->next) {
        if (!__atomic_load_n(&w->agg_counted, __ATOMIC_RELAXED)) {
            continue;
        }
        if (which == SHR_UCX_FLUSH_MINE && shr_ucx_foreign(w)) {
            /* its owner is filling it: sending it from here split the
             * windows of 4 threads into messages of ~4 records */
            continue;
        }
        uint64_t birth = __atomic_load_n(&w->agg_birth, __ATOMIC_RELAXED);
        if (which == SHR_UCX_FLUSH_AGED && w->agg_seen != birth) {
            w->agg_seen = birth; /* filling since the last look: old at the next one */
            left = true;
            continue;
        }
        /* counted workers lock; one held by another thread is in use */
        if (pthread_mutex_trylock(&w->lock) != 0) {
            left = true;
            continue;
        }
        /* the progress thread: full buffers one per hold of the lock,
         * which a send holds across its system call (UCX's worker is
         * serialized): a thread that issues on w meanwhile waits for one
         * send, not for the queue */
        bool held = true;
        while (which != SHR_UCX_FLUSH_MINE && held && agg_post_any_full(w)) {
            agg_pt_sent(w);
            pthread_mutex_unlock(&w->lock);
            held = pthread_mutex_trylock(&w->lock) == 0;
        }
        if (!held) {
            left = true;
            continue;
        }
        if (w->agg_counted) {
            bool taken = which != SHR_UCX_FLUSH_MINE; /* not the windows' thread */
            if (taken) {
                shr_ucx_agg_windows_take(w);
            }
            (void)shr_ucx_agg_send_all(w);
            if (taken) {
                shr_ucx_agg_windows_give(w);
                agg_pt_sent(w);
            }
        }
        pthread_mutex_unlock(&w->lock);
    }
    pthread_mutex_unlock(&shr_ucx.list_lock);
    return left || __atomic_load_n(&shr_ucx.agg_workers, __ATOMIC_RELAXED) != 0;
}

void shr_ucx_agg_wait(shr_ucx_worker_t *w, uint64_t seq)
{
    unsigned spins = 0;

    if (__atomic_load_n(&w->agg_oldest, __ATOMIC_ACQUIRE) <= seq) {
        __atomic_fetch_add(&shr_ucx.waiters, 1, __ATOMIC_RELAXED);
        do {
            shr_ucx_wait_round(w, &spins);
        } while (__atomic_load_n(&w->agg_oldest, __ATOMIC_ACQUIRE) <= seq);
        __atomic_fetch_sub(&shr_ucx.waiters, 1, __ATOMIC_RELAXED);
    }
}

/* Has `a` room for `bytes` more of records (`get_bytes` of them replies)? */
static SHR_ALWAYS_INLINE bool agg_fits(const shr_ucx_agg_t *a, size_t bytes, size_t get_bytes)
{
    return a->len + bytes <= shr_ucx.agg_bytes && a->get_len + get_bytes <= shr_ucx.agg_bytes;
}

/* Do waits and the progress thread send w's buffers (the progress rule),
 * so that w is counted in shr_ucx.agg_workers while it holds records? */
static SHR_ALWAYS_INLINE bool agg_rule_applies(const shr_ucx_worker_t *w)
{
    return __atomic_load_n(&w->must_lock, __ATOMIC_RELAXED) &&
           (shr_ucx.coalesce_all || shr_ucx.offload);
}

/* Room for `bytes` of records in pe's buffer, whose operations count in
 * cmpl.  A buffer without the room, or counting too many objects
 * already, leaves first.  Lock held. */
static unsigned char *agg_reserve(shr_ucx_worker_t *w, shr_ucx_peer_t *peer, int pe,
                                  size_t bytes, size_t get_bytes, shr_cmpl_t *cmpl)
{
    shr_ucx_agg_t *a = peer->agg;
    bool counted = false;

    if (a != NULL) {
        agg_fold(w, a, pe);
        for (int i = a->n_cmpl; i-- > 0;) {
            counted = counted || a->cmpl[i] == cmpl;
        }
        if (!agg_fits(a, bytes, get_bytes) || (!counted && a->n_cmpl == SHR_UCX_AGG_CMPLS)) {
            agg_full(w, peer, pe, cmpl);
            a = NULL;
            counted = false;
        }
    }
    if (a == NULL) {
        if (SHR_UNLIKELY(w->agg_pes == NULL)) {
            w->agg_pes = malloc((size_t)shr_g.n_pes * sizeof(int));
            if (w->agg_pes == NULL) {
                shr_fatal(1, "out of memory for the list of PEs with coalesced operations"
                             "; lower SHIMMER_REQ_COALESCE_BUFFER, or set SHIMMER_REQ_COALESCE=0 to send every operation on its own");
            }
        }
        a = agg_take(w);
        peer->agg = a;
        /* listed once per buffer: send_all empties the list */
        bool listed = false;
        for (int i = w->n_agg; i-- > 0 && !listed;) {
            listed = w->agg_pes[i] == pe;
        }
        if (!listed) {
            w->agg_pes[w->n_agg++] = pe;
        }
    }
    __atomic_store_n(&w->agg_recs, w->agg_recs + 1, __ATOMIC_RELAXED);
    if (SHR_UNLIKELY(!w->agg_counted) && agg_rule_applies(w)) {
        /* waits and the progress thread's age flush send it (the progress
         * rule): nobody has to quiet */
        __atomic_store_n(&w->agg_counted, true, __ATOMIC_RELAXED);
        __atomic_store_n(&w->agg_birth, w->agg_birth + 1, __ATOMIC_RELAXED);
        if (__atomic_fetch_add(&shr_ucx.agg_workers, 1, __ATOMIC_SEQ_CST) == 0) {
            shr_ucx_progress_thread_kick();
        }
    }
    if (!counted) {
        a->cmpl[a->n_cmpl++] = cmpl;
        __atomic_fetch_add(&cmpl->pending, 1, __ATOMIC_RELAXED);
    }
    unsigned char *p = (unsigned char *)(a->msg + 1) + a->len;
    a->len += bytes;
    a->get_len += get_bytes;
    return p;
}

/* The peer entry for coalescing: shr_ucx_peer without sending the
 * buffer. */
static shr_ucx_peer_t *agg_peer(shr_ucx_worker_t *w, int pe)
{
    shr_ucx_peer_t *peer = w->peers[pe];

    shr_ucx_touch();
    return SHR_LIKELY(peer != NULL) ? peer : shr_ucx_peer_connect(w, pe);
}

static unsigned char *rec_amo(unsigned char *p, const void *dest, shr_amo_op_t op,
                              uint64_t value, size_t size)
{
    shr_ucx_rec_t rec = {.len = (uint32_t)size, .kind = SHR_REMOTE_REC_AMO, .op = (uint8_t)op};

    rec.seg = (uint8_t)shr_remote_seg_of(dest, &rec.off);
    memcpy(p, &rec, sizeof(rec));
    memcpy(p + sizeof(rec), &value, sizeof(value));
    return p + sizeof(rec) + sizeof(value);
}

/* Locks ctx's worker (*w_p; *locked_p for shr_ucx_unlock) and reserves
 * `bytes` of pe's buffer (agg_reserve); the caller writes the records,
 * then unlocks *w_p. */
static SHR_ALWAYS_INLINE unsigned char *agg_begin(shr_ctx_t *ctx, int pe, size_t bytes,
                                                  size_t get_bytes, shr_cmpl_t *cmpl,
                                                  shr_ucx_worker_t **w_p,
                                                  shr_ucx_peer_t **peer_p, bool *locked_p)
{
    shr_ucx_worker_t *w = shr_ucx_ctx_worker(ctx);
    shr_ucx_peer_t *peer;
    shr_ucx_agg_t *a;

    if (SHR_UNLIKELY(!__atomic_load_n(&w->must_lock, __ATOMIC_RELAXED)) &&
        (cmpl == &ctx->cmpl || (shr_ucx.offload && cmpl->handle))) {
        /* a default-path operation (or any, with the offload) on a
         * context only its thread drives: the progress thread will send
         * the buffer, so from now on the worker locks (the thread holding
         * it first: whoever sees must_lock finds it taken) */
        pthread_mutex_lock(&w->lock);
        __atomic_store_n(&w->must_lock, true, __ATOMIC_RELEASE);
        *locked_p = true;
    } else {
        *locked_p = shr_ucx_lock(w);
        /* every record of a window after its first: the buffer exists,
         * has room and counts cmpl already (its last object: the
         * window's), and its worker is counted for the progress rule --
         * a bump of its length and of two clocks, nothing else */
        peer = w->peers[pe];
        a = SHR_LIKELY(peer != NULL) ? peer->agg : NULL;
        if (a != NULL) {
            agg_fold(w, a, pe);
        }
        if (a != NULL && SHR_LIKELY(a->cmpl[a->n_cmpl - 1] == cmpl) &&
            SHR_LIKELY(agg_fits(a, bytes, get_bytes)) &&
            SHR_LIKELY(w->agg_counted || !agg_rule_applies(w))) {
            unsigned char *p = (unsigned char *)(a->msg + 1) + a->len;
            shr_ucx_touch();
            __atomic_store_n(&w->agg_recs, w->agg_recs + 1, __ATOMIC_RELAXED);
            a->len += bytes;
            a->get_len += get_bytes;
            if (w->lends) {
                agg_lend(w, ctx, a, pe, cmpl);
            }
            *w_p = w;
            *peer_p = peer;
            return p;
        }
    }
    peer = agg_peer(w, pe);
    *w_p = w;
    *peer_p = peer;
    unsigned char *p = agg_reserve(w, peer, pe, bytes, get_bytes, cmpl);
    if (shr_ucx.offload && cmpl->handle && peer->agg->len == bytes) {
        shr_ucx_progress_thread_offload(); /* a handle's first record in this buffer */
    }
    if (w->lends) {
        agg_lend(w, ctx, peer->agg, pe, cmpl);
    }
    return p;
}

/* A put (src here, to dest at pe) or a get (src at pe, to dest here) as
 * a record. */
static SHR_ALWAYS_INLINE bool agg_transfer(shr_ctx_t *ctx, void *dest, const void *src,
                                           size_t len, int pe, shr_cmpl_t *cmpl, bool get)
{
    shr_ucx_worker_t *w;
    shr_ucx_peer_t *peer;
    bool locked;

    if (len > shr_ucx.coalesce_max) {
        return false;
    }
    unsigned char *p = agg_begin(ctx, pe, sizeof(shr_ucx_rec_t) +
                                 (get ? sizeof(uint64_t) : SHR_UCX_PAD8(len)),
                                 get ? SHR_UCX_PAD8(len) : 0, cmpl, &w, &peer, &locked);
    (void)peer;
    if (get) {
        shr_ucx_rec_t rec = {.len = (uint32_t)len, .kind = SHR_REMOTE_REC_GET};
        uint64_t where = (uint64_t)(uintptr_t)dest;
        rec.seg = (uint8_t)shr_remote_seg_of(src, &rec.off);
        memcpy(p, &rec, sizeof(rec));
        memcpy(p + sizeof(rec), &where, sizeof(where));
    } else {
        uint64_t off;
        int seg = shr_remote_seg_of(dest, &off);
        shr_remote_rec_put(p, seg, off, src, len);
    }
    shr_ucx_unlock(w, locked);
    return true;
}

bool shr_ucx_coalesce_put_op(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                             shr_cmpl_t *cmpl)
{
    return agg_transfer(ctx, dest, src, len, pe, cmpl, false);
}

bool shr_ucx_coalesce_get_op(shr_ctx_t *ctx, void *dest, const void *src, size_t len, int pe,
                             shr_cmpl_t *cmpl)
{
    return agg_transfer(ctx, dest, src, len, pe, cmpl, true);
}

bool shr_ucx_coalesce_amo_op(shr_ctx_t *ctx, shr_amo_op_t op, void *dest, uint64_t value,
                             size_t size, int pe, shr_cmpl_t *cmpl)
{
    shr_ucx_worker_t *w;
    shr_ucx_peer_t *peer;
    bool locked;

    if (shr_ucx.coalesce_max == 0) {
        return false;
    }
    unsigned char *p = agg_begin(ctx, pe, sizeof(shr_ucx_rec_t) + sizeof(uint64_t), 0, cmpl,
                                 &w, &peer, &locked);
    rec_amo(p, dest, op, value, size);
    shr_ucx_unlock(w, locked);
    return true;
}

bool shr_ucx_coalesce_put_signal_op(shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                                    uint64_t *sig, uint64_t value, int sig_op, int pe,
                                    shr_cmpl_t *cmpl)
{
    size_t data = len != 0 ? sizeof(shr_ucx_rec_t) + SHR_UCX_PAD8(len) : 0;
    shr_ucx_worker_t *w;
    shr_ucx_peer_t *peer;
    bool locked;

    if (shr_ucx.coalesce_max == 0 || len > shr_ucx.coalesce_max) {
        return false;
    }
    /* one reservation: data and flag travel in the same buffer, in order */
    unsigned char *p = agg_begin(ctx, pe, data + sizeof(shr_ucx_rec_t) + sizeof(uint64_t), 0,
                                 cmpl, &w, &peer, &locked);
    if (len != 0) {
        uint64_t off;
        int seg = shr_remote_seg_of(dest, &off);
        p = shr_remote_rec_put(p, seg, off, src, len);
    }
    rec_amo(p, sig,
            sig_op == SHMEM_SIGNAL_ADD ? SHR_AMO_ADD : SHR_AMO_SET, value, sizeof(uint64_t));
    shr_ucx_unlock(w, locked);
    return true;
}

/* ---- the handlers ---- */

static void ack_sent(void *request, ucs_status_t status, void *user_data)
{
    (void)status; /* a lost reply is the initiator's failure to report */
    free(user_data);
    ucp_request_free(request);
}

/* Bytes a record's body takes in the message (after the record). */
static size_t rec_body(const shr_ucx_rec_t *rec)
{
    return rec->kind == SHR_REMOTE_REC_PUT ? SHR_UCX_PAD8(rec->len) : sizeof(uint64_t);
}

/* Target: applies a buffer's records in order, then replies: the
 * buffer's cookie, then the data of its gets, each read in its turn. */
static ucs_status_t agg_recv(void *arg, const void *header, size_t header_length, void *data,
                             size_t length, const ucp_am_recv_param_t *param)
{
    const unsigned char *p = data, *end = p + length;
    size_t reply = sizeof(uint64_t), off = sizeof(uint64_t);
    unsigned char *ack;

    (void)arg;
    (void)header;
    (void)header_length;
    if (SHR_UNLIKELY(length < sizeof(uint64_t) || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ||
                     !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP))) {
        shr_warn_once("ignored a malformed message of coalesced operations (%zu bytes)", length);
        return UCS_OK;
    }
    for (const unsigned char *q = p + sizeof(uint64_t); q + sizeof(shr_ucx_rec_t) <= end;) {
        shr_ucx_rec_t rec;
        memcpy(&rec, q, sizeof(rec));
        reply += rec.kind == SHR_REMOTE_REC_GET ? SHR_UCX_PAD8(rec.len) : 0;
        q += sizeof(rec) + rec_body(&rec);
    }
    ack = malloc(reply);
    if (ack == NULL) {
        shr_fatal(1, "out of memory replying to a peer's coalesced operations; free memory on "
                         "this node, or set SHIMMER_REQ_COALESCE=0 on every PE");
    }
    for (p += sizeof(uint64_t); p + sizeof(shr_ucx_rec_t) <= end;) {
        shr_ucx_rec_t rec;
        memcpy(&rec, p, sizeof(rec));
        p += sizeof(rec);
        size_t n = rec.kind != SHR_REMOTE_REC_AMO ? rec.len : rec.len == 4 ? 4 : 8;
        if (SHR_UNLIKELY(rec.seg >= SHR_SEG_COUNT || rec.off > shr_g.seg[rec.seg].size ||
                         n > shr_g.seg[rec.seg].size - rec.off || p + rec_body(&rec) > end)) {
            shr_warn_once("ignored a coalesced operation outside this PE's segments");
            break;
        }
        void *at = (void *)(shr_g.seg[rec.seg].base + (uintptr_t)rec.off);
        if (rec.kind == SHR_REMOTE_REC_PUT) {
            shr_copy_once(at, p, n);
        } else if (rec.kind == SHR_REMOTE_REC_GET) {
            memcpy(ack + off, at, n);
            off += SHR_UCX_PAD8(n);
        } else {
            uint64_t value;
            memcpy(&value, p, sizeof(value));
            (void)shr_amo_at(at, (shr_amo_op_t)rec.op, value, 0, n);
        }
        p += rec_body(&rec);
    }
    memcpy(ack, data, sizeof(uint64_t));
    ucp_request_param_t rp = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK |
                        UCP_OP_ATTR_FIELD_USER_DATA,
        .flags = UCP_AM_SEND_FLAG_EAGER,
        .cb.send = ack_sent,
        .user_data = ack,
    };
    void *req = ucp_am_send_nbx(param->reply_ep, SHR_UCX_AM_ACK, NULL, 0, ack, reply, &rp);
    if (req == NULL || UCS_PTR_IS_ERR(req)) {
        free(ack); /* an error: the initiator is gone or will report it */
    }
    return UCS_OK;
}

/* Initiator: a buffer was applied. */
static ucs_status_t ack_recv(void *arg, const void *header, size_t header_length, void *data,
                             size_t length, const ucp_am_recv_param_t *param)
{
    shr_ucx_worker_t *w = arg;
    shr_cmpl_t *cmpl[SHR_UCX_AGG_CMPLS];
    uint64_t cookie;
    int n;

    (void)header;
    (void)header_length;
    if (SHR_UNLIKELY(length < sizeof(cookie) || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV))) {
        shr_warn_once("ignored a malformed reply to coalesced operations");
        return UCS_OK;
    }
    memcpy(&cookie, data, sizeof(cookie));
    shr_ucx_agg_t *a = (shr_ucx_agg_t *)(uintptr_t)cookie;
    if (a->get_len != 0) {
        /* the gets' data, in the order of their records */
        const unsigned char *r = (const unsigned char *)data + sizeof(cookie);
        const unsigned char *p = (const unsigned char *)(a->msg + 1), *end = p + a->len;
        if (SHR_UNLIKELY(length != sizeof(cookie) + a->get_len)) {
            shr_error("coalesced gets from PE %d: its reply has %zu bytes, not %zu; run every"
                      " PE with the same Shimmer build, or set SHIMMER_REQ_COALESCE=0",
                      a->pe, length, sizeof(cookie) + a->get_len);
            shr_fatal(1, "a peer's reply to coalesced gets is malformed");
        }
        while (p < end) {
            shr_ucx_rec_t rec;
            memcpy(&rec, p, sizeof(rec));
            if (rec.kind == SHR_REMOTE_REC_GET) {
                uint64_t where;
                memcpy(&where, p + sizeof(rec), sizeof(where));
                memcpy((void *)(uintptr_t)where, r, rec.len);
                r += SHR_UCX_PAD8(rec.len);
            }
            p += sizeof(rec) + rec_body(&rec);
        }
    }
    n = a->n_cmpl;
    memcpy(cmpl, a->cmpl, (size_t)n * sizeof(*cmpl));
    /* out of the in-flight list: quiet's waits look at its oldest */
    if (a->prev != NULL) {
        a->prev->next = a->next;
    } else {
        w->agg_head = a->next;
    }
    if (a->next != NULL) {
        a->next->prev = a->prev;
    } else {
        w->agg_tail = a->prev;
    }
    __atomic_store_n(&w->agg_oldest, w->agg_head != NULL ? w->agg_head->seq : UINT64_MAX,
                     __ATOMIC_RELEASE);
    agg_unref(a);
    /* last: a waiter may return (and reuse its objects) at once */
    for (int i = 0; i < n; i++) {
        __atomic_fetch_sub(&cmpl[i]->pending, 1, __ATOMIC_RELEASE);
    }
    return UCS_OK;
}

shr_status_t shr_ucx_agg_handlers_set(shr_ucx_worker_t *w, const char *routine)
{
    ucp_am_handler_param_t param = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                      UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG,
        .id = SHR_UCX_AM_AGG,
        .flags = UCP_AM_FLAG_WHOLE_MSG,
        .cb = agg_recv,
        .arg = w,
    };
    shr_status_t status;

    status = shr_ucx_status(ucp_worker_set_am_recv_handler(w->worker, &param),
                            "%s: registering a UCX active-message handler", routine);
    if (status != SHR_OK) {
        return status;
    }
    param.id = SHR_UCX_AM_ACK;
    param.cb = ack_recv;
    return shr_ucx_status(ucp_worker_set_am_recv_handler(w->worker, &param),
                          "%s: registering a UCX active-message handler", routine);
}
