/*
 * remote_inline.h -- THE format of a coalesced operation's record
 * (docs/requests.md, "Coalescing"), written by the transport and read by
 * the target's handler, and the windows through which core appends put
 * records itself ("Issuing cheaply").
 *
 * A transport that coalesces (core/remote.h,
 * SHR_REMOTE_CAP_COALESCE) sends a PE a buffer of them; the target
 * applies them in order.  A record names its place at the target as a
 * segment and an offset (the target adds its own base), then its body:
 * a put's data (len bytes, padded to 8), an atomic's operand (8 bytes) or
 * a get's destination at the initiator (8 bytes).
 *
 * Windows: the transport lends core, per (context, world PE), the room
 * left in the buffer it is filling for that PE, bound to the one
 * completion object the buffer counts.  Core appends a put's record there
 * with no table call and no lock; everything else (and a put that does
 * not fit) goes through the table, which takes the window back first.
 * Only the context's own thread writes through its windows: the
 * transport lends them only for contexts no two threads use at once
 * (not shared under SHMEM_THREAD_MULTIPLE), and any other thread that
 * sends such a buffer (a progress thread, another thread waiting for a
 * handle) first shuts `open` and waits
 * until `busy` drops, after a process-wide barrier (membarrier) that
 * makes the writer's plain stores of busy and its load of open ordered
 * (the transport's side: ucx_agg.c, shr_ucx_agg_windows_take).
 */
#ifndef SHR_REMOTE_INLINE_H
#define SHR_REMOTE_INLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/rma_inline.h"
#include "core/state.h"
#include "core/team.h"

typedef struct shr_remote_rec {
    uint64_t off;  /* at the target: offset in its segment `seg` */
    uint32_t len;  /* put, get: data bytes; atomic: operand size (4 or 8) */
    uint8_t kind;  /* SHR_REMOTE_REC_* */
    uint8_t op;    /* atomic: its shr_amo_op_t */
    uint8_t seg;   /* shr_seg_id_t */
    uint8_t pad;
} shr_remote_rec_t;

enum { SHR_REMOTE_REC_PUT = 1, SHR_REMOTE_REC_AMO = 2, SHR_REMOTE_REC_GET = 3 };

#define SHR_REMOTE_PAD8(_n) (((_n) + 7) & ~(size_t)7)

/* Bytes a record with `len` bytes of data takes in the buffer. */
static SHR_ALWAYS_INLINE size_t shr_remote_rec_put_bytes(size_t len)
{
    return sizeof(shr_remote_rec_t) + SHR_REMOTE_PAD8(len);
}

/* The segment of the symmetric address `addr` (in some segment: the
 * caller checked it), and its offset there in *off_p. */
static SHR_ALWAYS_INLINE int shr_remote_seg_of(const void *addr, uint64_t *off_p)
{
    int s = 0;

    for (; s < SHR_SEG_COUNT - 1; s++) {
        if ((uintptr_t)addr - shr_g.seg[s].base < shr_g.seg[s].size) {
            break;
        }
    }
    *off_p = (uint64_t)((uintptr_t)addr - shr_g.seg[s].base);
    return s;
}

/* Writes a put's record (to offset `off` of segment `seg` at the target,
 * of `len` bytes from src here) at p; returns where the next one goes. */
static SHR_ALWAYS_INLINE unsigned char *shr_remote_rec_put(unsigned char *p, int seg,
                                                           uint64_t off, const void *src,
                                                           size_t len)
{
    shr_remote_rec_t rec = {.off = off, .len = (uint32_t)len, .kind = SHR_REMOTE_REC_PUT,
                            .seg = (uint8_t)seg};

    memcpy(p, &rec, sizeof(rec));
    if (len == sizeof(uint64_t)) {
        shr_move_once((char *)p + sizeof(rec), src, sizeof(uint64_t)); /* one move, no call */
    } else {
        shr_memcpy_call(p + sizeof(rec), src, len);
    }
    return p + shr_remote_rec_put_bytes(len);
}

/* Room lent for one PE: records go at cur, up to end, and count in the
 * completion object cmpl (which the buffer counts already).  All zero:
 * none lent. */
typedef struct shr_remote_win {
    unsigned char *cur;
    unsigned char *end;
    shr_cmpl_t *cmpl;
} shr_remote_win_t;

/* A context's windows (ctx->remote_wins), made and changed by the
 * transport, with its lock or from the context's thread. */
struct shr_remote_wins {
    int busy;              /* the writer: between its test of open and its last store */
    int open;              /* 0 while another thread takes the buffers back */
    size_t max_len;        /* longest put the transport coalesces */
    shr_remote_win_t win[]; /* [n_pes], by world PE */
};
typedef struct shr_remote_wins shr_remote_wins_t;

/* The rest of shr_remote_win_put for a put of other than 8 bytes: writes
 * its record at p, then ends the append (ws->busy).  core/rma.c. */
void shr_remote_win_put_end(shr_remote_wins_t *ws, unsigned char *p, int seg, uint64_t off,
                            const void *src, size_t len);

/* Appends a put of `len` bytes from src to offset `off` of segment `seg`
 * at world PE pe, counted in cmpl, to ctx's window for pe; false, having
 * done nothing, when there is none or it has no room (the caller goes
 * through the table).  Only from ctx's thread (see above), and only when
 * ctx->remote_wins is not NULL (the callers test it first: a context
 * without windows goes straight to the table). */
static SHR_ALWAYS_INLINE bool shr_remote_win_put(shr_ctx_t *ctx, int seg, uint64_t off,
                                                 const void *src, size_t len, int pe,
                                                 shr_cmpl_t *cmpl)
{
    shr_remote_wins_t *ws = ctx->remote_wins;
    bool done = false;

    if (len > ws->max_len) {
        return false;
    }
    shr_remote_win_t *win = &ws->win[pe];
    __atomic_store_n(&ws->busy, 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the store before the load of open */
    if (SHR_LIKELY(__atomic_load_n(&ws->open, __ATOMIC_ACQUIRE) != 0) && win->cmpl == cmpl &&
        (uintptr_t)win->end - (uintptr_t)win->cur >= shr_remote_rec_put_bytes(len)) {
        unsigned char *p = win->cur;
        win->cur = p + shr_remote_rec_put_bytes(len);
        if (SHR_UNLIKELY(len != sizeof(uint64_t))) {
            shr_remote_win_put_end(ws, p, seg, off, src, len); /* a call: a tail call */
            return true;
        }
        (void)shr_remote_rec_put(p, seg, off, src, len);
        done = true;
    }
    __atomic_store_n(&ws->busy, 0, __ATOMIC_RELEASE); /* after the record and cur */
    return done;
}

#endif
