/*
 * lock.c -- distributed locks (spec 9.13, lock.h): an MCS queue lock in one
 * symmetric long.
 *
 * The long holds two 32-bit words on every PE:
 *   tail (offset 0)  used on PE 0 only: 0 = free, else 1 + the PE that
 *                    joined the queue last;
 *   link (offset 4)  used on every PE for its own place in the queue:
 *                    bits 0..29 = 1 + the PE queued behind it (0 = none
 *                    yet), bit 30 = the lock was handed to this PE.
 * set_lock swaps itself into PE 0's tail (one AMO: the order of these
 * swaps is the first-come-first-served order), tells its predecessor who
 * follows (an OR into the predecessor's link) and waits on its own link,
 * locally, through the wait primitive.  clear_lock quiets the default
 * context, then either swings the tail back to 0 (nobody queued) or hands
 * the lock to its successor.  test_lock takes the lock only when the tail
 * is 0 and never queues.  All remote updates are AMOs on the default
 * context; a word is only ever written by AMOs or by its owner before it
 * joins the queue, when no one else can write it.
 */
#include "core/lock.h"
#include "core/amo_inline.h"
#include "core/rma_inline.h"
#include "core/wait_inline.h"

_Static_assert(sizeof(long) == 2 * sizeof(uint32_t), "the lock word holds two 32-bit words");

#define LOCK_HOME 0                /* the PE whose tail word is the queue */
#define LINK_GRANTED (1u << 30)
#define LINK_NEXT (LINK_GRANTED - 1)

static uint32_t lock_amo(shr_amo_op_t op, uint32_t *word, uint32_t value, uint32_t cond, int pe)
{
    return (uint32_t)shr_amo(NULL, shr_ctx_default, op, word, value, cond, sizeof(uint32_t), pe);
}

/* Waits until one of `mask`'s bits is set in my own link word. */
static uint32_t link_wait(uint32_t *link, uint32_t mask, const char *what)
{
    shr_waiter_t waiter = SHR_WAITER_ON(what, link, sizeof(*link));
    uint32_t seen;

    while (((seen = __atomic_load_n(link, __ATOMIC_ACQUIRE)) & mask) == 0) {
        shr_waiter_pause(&waiter);
    }
    return seen;
}

void shr_lock_set(long *lock)
{
    uint32_t *tail = (uint32_t *)lock, *link = tail + 1;
    uint32_t me = (uint32_t)shr_g.my_pe + 1;

    /* nobody writes my link until the swap below makes me known */
    __atomic_store_n(link, 0, __ATOMIC_RELAXED);
    uint32_t prev = lock_amo(SHR_AMO_SWAP, tail, me, 0, LOCK_HOME);
    if (prev != 0) {
        lock_amo(SHR_AMO_OR, link, me, 0, (int)prev - 1);
        link_wait(link, LINK_GRANTED, "shmem_set_lock");
    }
}

int shr_lock_test(long *lock)
{
    uint32_t *tail = (uint32_t *)lock, *link = tail + 1;
    uint32_t me = (uint32_t)shr_g.my_pe + 1;

    if (SHR_UNLIKELY(shr_g.needs_progress)) {
        shr_progress();
    }
    __atomic_store_n(link, 0, __ATOMIC_RELAXED);
    return lock_amo(SHR_AMO_CSWAP, tail, me, 0, LOCK_HOME) == 0 ? 0 : 1;
}

void shr_lock_clear(long *lock)
{
    uint32_t *tail = (uint32_t *)lock, *link = tail + 1;
    uint32_t me = (uint32_t)shr_g.my_pe + 1;

    /* the critical section's accesses complete before the lock moves on */
    shr_quiet(shr_ctx_default);
    uint32_t next = __atomic_load_n(link, __ATOMIC_ACQUIRE) & LINK_NEXT;
    if (next == 0) {
        if (lock_amo(SHR_AMO_CSWAP, tail, 0, me, LOCK_HOME) == me) {
            return; /* nobody was queued */
        }
        /* someone swapped in behind me and is about to say so */
        next = link_wait(link, LINK_NEXT, "shmem_clear_lock") & LINK_NEXT;
    }
    lock_amo(SHR_AMO_OR, link, LINK_GRANTED, 0, (int)next - 1);
}
