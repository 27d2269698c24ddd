/*
 * req.h -- request handles (shmemx_req_t, docs/requests.md): a handle
 * stands for a group of operations and one wait or test completes them all.
 *
 * A handle is a chain of parts, one per context it holds operations of
 * (merging handles of different contexts concatenates chains).  A part is
 * a completion object the transport counts that context's operations in,
 * plus the PEs whose puts and AMOs still need remote completion (a flush
 * at wait).  Operations on this node complete before they return and never
 * create a part: a handle of on-node work stays SHMEMX_REQ_NULL, so it
 * costs nothing.  Parts are pooled (per thread, then a global list) and
 * never returned to malloc.
 *
 * Thread-safety: a handle is used by one thread at a time (merge is the
 * hand-off); different handles may be used by different threads at once.
 */
#ifndef SHR_REQ_H
#define SHR_REQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/team.h"
#include "util/compiler.h"

#define SHR_REQ_MAGIC 0x7e9a11f3u /* a part in use */
#define SHR_REQ_FREE  0x7e9afeedu /* a part back in the pool */
/* A part's entry for a PE that got only coalesced operations (core/remote.h's flush). */
#define SHR_REQ_PE_COALESCED(_pe) (-1 - (_pe))

typedef struct shmemx_req shr_req_t;

struct shmemx_req {
    uint32_t magic;
    uint32_t ctx_epoch;  /* ctx->epoch when the part was made */
    shr_ctx_t *ctx;      /* NULL: a part with no operations yet (a split handle) */
    shr_cmpl_t cmpl;     /* the transport's operations in flight */
    int npes;            /* PEs of pes[] to flush at completion */
    int cap;             /* room in pes[] */
    int *pes;            /* world PEs with puts/AMOs not yet remotely complete
                            (SHR_REQ_PE_COALESCED(pe): coalesced ones only) */
    int pe_inline[4];    /* pes[] of a part with few PEs (no malloc) */
    int split_n;         /* collectives: this thread's slice (shmemx_req_split) */
    int split_rank;
    shr_req_t *next;     /* the next part of the handle, or the pool's next */
    shr_req_t *tail;     /* the handle's last part (valid in its first part) */
};

/* The part of *req_p for ctx, made (and the handle started) if there is
 * none.  Cold: only operations that reach the remote transport call it. */
SHR_COLD shr_req_t *shr_req_part(const char *fn, shr_ctx_t *ctx, shr_req_t **req_p);
/* Records that part holds a put or AMO to world PE `pe` (flushed at wait;
 * `coalesced`: the transport coalesced it, its buffer is sent but the
 * endpoint needs no flush for it). */
void shr_req_note_pe(shr_req_t *part, int pe, bool coalesced);

/* Appends *from's parts to *into's; *from becomes NULL.  `fn` names the
 * user's routine in debug-mode reports. */
void shr_req_merge(const char *fn, shr_req_t **into, shr_req_t **from);
/* Completes every operation of *req_p, returns its parts to the pool and
 * sets *req_p to NULL; a CPU fence like quiet's either way. */
void shr_req_wait(const char *fn, shr_req_t **req_p);
/* One round of progress; true (and *req_p NULL, after quiet's fence) if
 * everything of the handle is complete. */
bool shr_req_test(const char *fn, shr_req_t **req_p);
/* wait for each of n handles (their flushes posted first, then waited). */
void shr_req_wait_all(const char *fn, size_t n, shr_req_t **reqs);
/* Index of a handle that completed (reset to NULL); SIZE_MAX if all NULL. */
size_t shr_req_wait_any(const char *fn, size_t n, shr_req_t **reqs);
/* Marks *req_p (made if NULL) as thread `rank` of `nthreads` for its next
 * collective; the collective consumes the mark. */
void shr_req_split(const char *fn, shr_req_t **req_p, int nthreads, int rank);
/* The split mark of *req_p (NULL or not): *n_p threads, *rank_p this
 * one's rank; 1 and 0 when unmarked.  Clears it (a handle that held only
 * the mark becomes NULL again). */
void shr_req_take_split(shr_req_t **req_p, int *n_p, int *rank_p);

#endif
