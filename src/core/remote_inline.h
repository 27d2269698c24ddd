/*
 * remote_inline.h -- THE format of a coalesced operation's record
 * (docs/requests.md, "Coalescing"), written by the transport and read by
 * the target's handler.
 *
 * A transport that coalesces (core/remote.h,
 * SHR_REMOTE_CAP_COALESCE) sends a PE a buffer of them; the target
 * applies them in order.  A record names its place at the target as a
 * segment and an offset (the target adds its own base), then its body:
 * a put's data (len bytes, padded to 8), an atomic's operand (8 bytes) or
 * a get's destination at the initiator (8 bytes).
 */
#ifndef SHR_REMOTE_INLINE_H
#define SHR_REMOTE_INLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/rma_inline.h"
#include "core/state.h"

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

#endif
