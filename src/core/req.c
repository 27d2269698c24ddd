/*
 * req.c -- request handles (core/req.h, docs/requests.md): the pool of
 * parts, the out-of-line `_req` operations that reach the remote
 * transport, and merge / wait / test.
 */
#include "core/req.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/check.h"
#include "core/remote.h"
#include "core/remote_inline.h"
#include "core/req_inline.h"
#include "core/state.h"

/* ---- the pool ----
 * A thread keeps up to CACHE_MAX free parts of its own (no lock on the
 * path of a handle's life); more go to the global list.  In debug mode
 * freed parts wait in the global list (first in, first out) until
 * QUARANTINE others are free, so a stale copy of a completed handle still
 * points at a part marked free and is reported. */
#define CHUNK 64
#define CACHE_MAX 64
#define QUARANTINE 1024

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static shr_req_t *pool_head, *pool_tail;
static size_t pool_n;
static __thread shr_req_t *cache;
static __thread int cache_n;
static shr_req_t **chunks;   /* every chunk ever allocated (pooled, never freed) */
static size_t n_chunks;
static pthread_key_t exit_key; /* a thread that cached parts gives them back at exit */
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void cache_return(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&pool_lock);
    while (cache != NULL) {
        shr_req_t *p = cache;
        cache = p->next;
        p->next = NULL;
        if (pool_tail != NULL) {
            pool_tail->next = p;
        } else {
            pool_head = p;
        }
        pool_tail = p;
        pool_n++;
    }
    cache_n = 0;
    pthread_mutex_unlock(&pool_lock);
}

static void exit_key_create(void)
{
    (void)pthread_key_create(&exit_key, cache_return);
}

static void part_reset(shr_req_t *p)
{
    p->ctx = NULL;
    p->cmpl.pending = 0;
    p->cmpl.status = 0;
    p->cmpl.handle = true;
    p->npes = 0;
    p->split_n = 0;
    p->split_rank = 0;
    p->next = NULL;
    p->tail = p;
    p->magic = SHR_REQ_MAGIC;
}

static shr_req_t *part_alloc(void)
{
    shr_req_t *p = cache;

    if (SHR_LIKELY(p != NULL)) {
        cache = p->next;
        cache_n--;
        part_reset(p);
        return p;
    }
    pthread_mutex_lock(&pool_lock);
    if (pool_head != NULL && (!shr_g.checks || pool_n > QUARANTINE)) {
        p = pool_head;
        pool_head = p->next;
        if (pool_head == NULL) {
            pool_tail = NULL;
        }
        pool_n--;
    }
    pthread_mutex_unlock(&pool_lock);
    if (p == NULL) {
        shr_req_t *chunk = calloc(CHUNK, sizeof(*chunk));
        shr_req_t **more;
        if (chunk == NULL) {
            shr_fatal(1, "out of memory for request handles");
        }
        pthread_mutex_lock(&pool_lock);
        more = realloc(chunks, (n_chunks + 1) * sizeof(*chunks));
        if (more != NULL) {
            chunks = more;
            chunks[n_chunks++] = chunk;
        }
        pthread_mutex_unlock(&pool_lock);
        pthread_once(&exit_once, exit_key_create);
        (void)pthread_setspecific(exit_key, chunk); /* non-NULL: run cache_return at exit */
        for (int i = 0; i < CHUNK; i++) {
            chunk[i].pes = chunk[i].pe_inline;
            chunk[i].cap = (int)(sizeof(chunk[i].pe_inline) / sizeof(int));
            chunk[i].magic = SHR_REQ_FREE;
        }
        /* keep one, cache the rest for this thread */
        for (int i = 1; i < CHUNK; i++) {
            chunk[i].next = cache;
            cache = &chunk[i];
            cache_n++;
        }
        p = chunk;
    }
    part_reset(p);
    return p;
}

static void part_free(shr_req_t *p)
{
    p->magic = SHR_REQ_FREE;
    p->ctx = NULL;
    if (!shr_g.checks && cache_n < CACHE_MAX) {
        p->next = cache;
        cache = p;
        cache_n++;
        return;
    }
    p->next = NULL;
    pthread_mutex_lock(&pool_lock);
    if (pool_tail != NULL) {
        pool_tail->next = p;
    } else {
        pool_head = p;
    }
    pool_tail = p;
    pool_n++;
    pthread_mutex_unlock(&pool_lock);
}

/* ---- debug-mode diagnosis ---- */

/* `p` (a part a user handle leads to) is in use; reports the misuse
 * otherwise.  Only with checks on: a garbage pointer is read. */
static void check_part(const char *fn, const shr_req_t *p)
{
    if (p->magic == SHR_REQ_FREE) {
        shr_check_fail(fn, "req is a handle that was completed already (waited, or tested "
                       "to 1, which reset it to SHMEMX_REQ_NULL): a copy of it was used "
                       "again; use the handle variable itself, not a copy");
    }
    if (p->magic != SHR_REQ_MAGIC) {
        shr_check_fail(fn, "req is not a request handle (%p); start a handle with "
                       "SHMEMX_REQ_NULL", (const void *)p);
    }
}

/* The context of p is the one its operations were issued on. */
static bool part_ctx_is_live(const shr_req_t *p)
{
    return p->ctx->magic == SHR_CTX_MAGIC &&
           __atomic_load_n(&p->ctx->epoch, __ATOMIC_ACQUIRE) == p->ctx_epoch;
}

static void check_handle(const char *fn, const shr_req_t *req)
{
    for (const shr_req_t *p = req; p != NULL; p = p->next) {
        check_part(fn, p);
        if (p->ctx != NULL && !part_ctx_is_live(p)) {
            shr_check_fail(fn, "req holds operations of a context that was destroyed "
                           "since (shmem_ctx_destroy completed them); wait for a handle "
                           "before destroying the contexts of its operations");
        }
    }
}

#define CHECK_HANDLE(_fn, _req) do { \
        if (SHR_CHECKS_ON() && (_req) != NULL) { \
            check_handle(_fn, _req); \
        } \
    } while (0)

/* ---- parts ---- */

shr_req_t *shr_req_part(const char *fn, shr_ctx_t *ctx, shr_req_t **req_p)
{
    shr_req_t *head = *req_p, *p;

    CHECK_HANDLE(fn, head);
    if (head == NULL) {
        p = part_alloc();
        *req_p = p;
    } else {
        for (p = head; p != NULL; p = p->next) {
            if (p->ctx == ctx || p->ctx == NULL) {
                break;
            }
        }
        if (p == NULL) {
            p = part_alloc();
            head->tail->next = p;
            head->tail = p;
        }
    }
    if (p->ctx == NULL) {
        p->ctx = ctx;
        p->ctx_epoch = __atomic_load_n(&ctx->epoch, __ATOMIC_ACQUIRE);
    }
    return p;
}

void shr_req_note_pe(shr_req_t *part, int pe, bool coalesced)
{
    int entry = coalesced ? SHR_REQ_PE_COALESCED(pe) : pe;

    /* most handles talk to one PE: the last one noted is checked first */
    for (int i = part->npes; i-- > 0;) {
        if (part->pes[i] == pe) {
            return;
        }
        if (part->pes[i] == SHR_REQ_PE_COALESCED(pe)) {
            part->pes[i] = entry; /* a direct operation joins: now it needs the flush */
            return;
        }
    }
    if (part->npes == part->cap) {
        int cap = part->cap * 2;
        int *pes = malloc((size_t)cap * sizeof(int));
        if (pes == NULL) {
            shr_fatal(1, "out of memory for the PEs of a request handle");
        }
        memcpy(pes, part->pes, (size_t)part->npes * sizeof(int));
        if (part->pes != part->pe_inline) {
            free(part->pes);
        }
        part->pes = pes;
        part->cap = cap;
    }
    part->pes[part->npes++] = entry;
}

/* ---- the operations that reach the remote transport ---- */

/* shr_req_note_pe, inline when the PE is the one noted last (a window
 * to one PE: noted at its first operation). */
static SHR_ALWAYS_INLINE void req_note_pe(shr_req_t *part, int pe, bool coalesced)
{
    int entry = coalesced ? SHR_REQ_PE_COALESCED(pe) : pe;

    if (SHR_LIKELY(part->npes != 0 && part->pes[part->npes - 1] == entry)) {
        return;
    }
    shr_req_note_pe(part, pe, coalesced);
}

/* shr_req_part, inline when the handle's first part is ctx's (a window
 * of one context's operations: every one after the first). */
static SHR_ALWAYS_INLINE shr_req_t *req_part(const char *fn, shr_ctx_t *ctx, shr_req_t **req_p)
{
    shr_req_t *head = *req_p;

    if (SHR_LIKELY(head != NULL && head->ctx == ctx) && !SHR_CHECKS_ON()) {
        return head;
    }
    return shr_req_part(fn, ctx, req_p);
}

/* The transport may coalesce small operations of handles (its puts need
 * the target anyway: TCP); a put, put-with-signal or non-fetching AMO is
 * then offered to it first, and its PE noted for the flush that sends the
 * buffer (and flushes the endpoint only for operations posted directly). */
static inline bool req_coalesce(void)
{
    return (shr_remote_caps & SHR_REMOTE_CAP_COALESCE) != 0;
}

/* A handle's put or get: shr_rma_remote_is_valid inline, the always-on
 * checks' cold half only when it fails (as rma.c's slow paths).  False
 * when there is nothing to move (len 0). */
static SHR_ALWAYS_INLINE bool req_transfer_is_due(const char *fn, const char *remote_name,
                                                  const void *remote, size_t len,
                                                  const char *local_name, const void *local,
                                                  int pe)
{
    if (SHR_LIKELY(shr_rma_remote_is_valid(remote, len, local, pe))) {
        return true;
    }
    shr_check_user_transfer(fn, remote_name, remote, len, local_name, local, pe);
    return len != 0;
}

/* shr_req_put_slow past the window. */
static SHR_COLD SHR_NOINLINE void req_put_remote(const char *fn, shr_ctx_t *ctx, void *dest,
                                                const void *src, size_t len, int pe,
                                                shr_req_t **req_p)
{
    shr_req_t *p;

    if (!req_transfer_is_due(fn, "dest", dest, len, "source", src, pe)) {
        return;
    }
    p = req_part(fn, ctx, req_p);
    bool coalesced = req_coalesce() && shr_remote->coalesce_put(ctx, dest, src, len, pe, &p->cmpl);
    if (!coalesced) {
        shr_remote->put(ctx, dest, src, len, pe, &p->cmpl);
    }
    req_note_pe(p, pe, coalesced);
}

/* A put that joins its handle's part for ctx (the first) after a record
 * to the same PE (noted last), passes the checks and fits the window the
 * transport lends is a record appended here, as rma.c's put_window does. */
static SHR_NOINLINE void req_put_window(const char *fn, shr_ctx_t *ctx, void *dest,
                                        const void *src, size_t len, int pe, shr_req_t **req_p)
{
    shr_req_t *head = *req_p;
    uint64_t off;
    int seg;

    if (head != NULL && head->ctx == ctx && !SHR_CHECKS_ON() && head->npes != 0 &&
        head->pes[head->npes - 1] == SHR_REQ_PE_COALESCED(pe) &&
        (seg = shr_rma_remote_seg(dest, len, src, pe, &off)) >= 0 &&
        shr_remote_win_put(ctx, seg, off, src, len, pe, &head->cmpl)) {
        return;
    }
    req_put_remote(fn, ctx, dest, src, len, pe, req_p);
}

/* Two tail calls, as rma.c's shr_rma_put_slow. */
void shr_req_put_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                      int pe, shr_req_t **req_p)
{
    if (ctx->remote_wins != NULL) {
        req_put_window(fn, ctx, dest, src, len, pe, req_p);
    } else {
        req_put_remote(fn, ctx, dest, src, len, pe, req_p);
    }
}

void shr_req_get_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                      int pe, shr_req_t **req_p)
{
    if (!req_transfer_is_due(fn, "source", src, len, "dest", dest, pe)) {
        return;
    }
    shr_req_t *p = req_part(fn, ctx, req_p);
    /* coalesced: the handle's wait sends the buffer, whose reply brings it */
    if (req_coalesce() && shr_remote->coalesce_get(ctx, dest, src, len, pe, &p->cmpl)) {
        req_note_pe(p, pe, true);
        return;
    }
    shr_remote->get(ctx, dest, src, len, pe, &p->cmpl);
}

void shr_req_strided_slow(const char *fn, shr_ctx_t *ctx, bool put, void *dest, const void *src,
                          ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                          size_t elem, int pe, shr_req_t **req_p)
{
    size_t len = bsize * elem;
    shr_req_t *p;

    if (put) {
        shr_check_user_transfer(fn, "dest", dest, shr_rma_strided_span(dst, bsize, nblocks, elem),
                                "source", src, pe);
    } else {
        shr_check_user_transfer(fn, "source", src, shr_rma_strided_span(sst, bsize, nblocks, elem),
                                "dest", dest, pe);
    }
    if (len == 0 || nblocks == 0) {
        return;
    }
    p = req_part(fn, ctx, req_p);
    for (size_t i = 0; i < nblocks; i++) {
        char *d = (char *)dest + (ptrdiff_t)i * dst * (ptrdiff_t)elem;
        const char *s = (const char *)src + (ptrdiff_t)i * sst * (ptrdiff_t)elem;
        if (put) {
            shr_rma_require_symmetric(fn, "dest", d, len);
            shr_remote->put(ctx, d, s, len, pe, &p->cmpl);
        } else {
            shr_rma_require_symmetric(fn, "source", s, len);
            shr_remote->get(ctx, d, s, len, pe, &p->cmpl);
        }
    }
    if (put) {
        req_note_pe(p, pe, false);
    }
}

void shr_req_amo_slow(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op, void *fetch, void *dest,
                      uint64_t value, uint64_t cond, size_t size, int pe, shr_req_t **req_p)
{
    shr_req_t *p;

    shr_check_user_transfer(fn, "dest", dest, size, NULL, NULL, pe);
    shr_check_aligned(fn, "dest", dest, size);
    p = req_part(fn, ctx, req_p);
    bool coalesced = fetch == NULL && req_coalesce() &&
                     shr_remote->coalesce_amo(ctx, op, dest, value, size, pe, &p->cmpl);
    if (!coalesced) {
        shr_remote->amo(ctx, op, fetch, dest, value, cond, size, pe, &p->cmpl);
    }
    if (fetch == NULL) {
        req_note_pe(p, pe, coalesced); /* a fetching one is complete once its value is here */
    }
}

void shr_req_put_signal_slow(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                             size_t len, uint64_t *sig_addr, uint64_t signal, int sig_op,
                             int pe, shr_req_t **req_p)
{
    shr_req_t *p;

    shr_check_user_transfer(fn, "dest", dest, len, "source", src, pe);
    shr_check_user_transfer(fn, "sig_addr", sig_addr, sizeof(uint64_t), NULL, NULL, pe);
    shr_check_aligned(fn, "sig_addr", sig_addr, sizeof(uint64_t));
    p = req_part(fn, ctx, req_p);
    bool coalesced = req_coalesce() && shr_remote->coalesce_put_signal(ctx, dest, src, len, sig_addr,
                                                                       signal, sig_op, pe, &p->cmpl);
    if (!coalesced) {
        shr_remote->put_signal(ctx, dest, src, len, sig_addr, signal, sig_op, pe, &p->cmpl);
    }
    req_note_pe(p, pe, coalesced);
}

/* ---- completion ---- */

/* Posts the flush of p's PEs (their puts and AMOs become remotely
 * complete), once.  A part of a destroyed context is complete already:
 * destroy quieted it. */
static void part_post(shr_req_t *p)
{
    if (p->ctx == NULL || !part_ctx_is_live(p)) {
        p->npes = 0;
        return;
    }
    if (p->npes != 0) {
        shr_remote->flush(p->ctx, p->pes, (size_t)p->npes, &p->cmpl);
        p->npes = 0;
    }
}

static void part_wait(shr_req_t *p)
{
    if (p->ctx != NULL && part_ctx_is_live(p)) {
        shr_remote->wait(p->ctx, &p->cmpl);
    }
}

static bool part_test(shr_req_t *p)
{
    return p->ctx == NULL || !part_ctx_is_live(p) || shr_remote->test(p->ctx, &p->cmpl);
}

static void handle_free(shr_req_t *req)
{
    while (req != NULL) {
        shr_req_t *next = req->next;
        part_free(req);
        req = next;
    }
}

void shr_req_merge(const char *fn, shr_req_t **into, shr_req_t **from)
{
    shr_req_t *a = *into, *b = *from;

    CHECK_HANDLE(fn, a);
    CHECK_HANDLE(fn, b);
    if (b == NULL) {
        return;
    }
    if (a == b) {
        shr_check_fail(fn, "into and from are the same handle; merge two different ones");
    }
    if (a == NULL) {
        *into = b;
    } else {
        /* a split mark travels with the handle it was set on */
        if (a->split_n == 0) {
            a->split_n = b->split_n;
            a->split_rank = b->split_rank;
        }
        b->split_n = 0;
        a->tail->next = b;
        a->tail = b->tail;
    }
    *from = NULL;
}

void shr_req_wait(const char *fn, shr_req_t **req_p)
{
    shr_req_t *req = *req_p;

    CHECK_HANDLE(fn, req);
    if (req != NULL) {
        for (shr_req_t *p = req; p != NULL; p = p->next) {
            part_post(p);
        }
        for (shr_req_t *p = req; p != NULL; p = p->next) {
            part_wait(p);
        }
        handle_free(req);
        *req_p = NULL;
    }
    shr_fence_full(); /* on this node, what quiet does */
}

bool shr_req_test(const char *fn, shr_req_t **req_p)
{
    shr_req_t *req = *req_p;
    bool done = true;

    CHECK_HANDLE(fn, req);
    for (shr_req_t *p = req; p != NULL; p = p->next) {
        part_post(p);
        done = part_test(p) && done;
    }
    if (!done) {
        return false;
    }
    handle_free(req);
    *req_p = NULL;
    shr_fence_full();
    return true;
}

void shr_req_wait_all(const char *fn, size_t n, shr_req_t **reqs)
{
    for (size_t i = 0; i < n; i++) {
        CHECK_HANDLE(fn, reqs[i]);
        for (shr_req_t *p = reqs[i]; p != NULL; p = p->next) {
            part_post(p);
        }
    }
    for (size_t i = 0; i < n; i++) {
        for (shr_req_t *p = reqs[i]; p != NULL; p = p->next) {
            part_wait(p);
        }
        handle_free(reqs[i]);
        reqs[i] = NULL;
    }
    shr_fence_full();
}

size_t shr_req_wait_any(const char *fn, size_t n, shr_req_t **reqs)
{
    unsigned spins = 0;

    for (;;) {
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            if (reqs[i] == NULL) {
                continue;
            }
            any = true;
            if (shr_req_test(fn, &reqs[i])) {
                return i;
            }
        }
        if (!any) {
            shr_fence_full();
            return SIZE_MAX;
        }
        if (++spins > shr_g.wait_spin) {
            sched_yield(); /* a peer on an oversubscribed node may need the CPU */
        }
    }
}

void shr_req_split(const char *fn, shr_req_t **req_p, int nthreads, int rank)
{
    shr_req_t *req = *req_p;

    CHECK_HANDLE(fn, req);
    if (nthreads < 1 || rank < 0 || rank >= nthreads) {
        shr_check_fail(fn, "rank is %d and nthreads %d; need 0 <= rank < nthreads", rank,
                       nthreads);
    }
    if (req == NULL) {
        req = part_alloc();
        *req_p = req;
    }
    req->split_n = nthreads;
    req->split_rank = rank;
}

void shr_req_take_split(shr_req_t **req_p, int *n_p, int *rank_p)
{
    shr_req_t *req = *req_p;

    *n_p = 1;
    *rank_p = 0;
    if (req == NULL || req->split_n == 0) {
        return;
    }
    *n_p = req->split_n;
    *rank_p = req->split_rank;
    req->split_n = 0;
    if (req->ctx == NULL && req->next == NULL) {
        part_free(req); /* held only the mark */
        *req_p = NULL;
    }
}
