/* litmus.c -- the classic memory-ordering shapes through the API, each
 * checked over many fresh slots by PE pairs (0,1), (2,3), ...:
 *
 *   MP (message passing): the writer stores data, orders, then stores a
 *   flag; the reader waits for the flag, then reads the data.  Seeing the
 *   flag with old data is forbidden.  Variants: put + fence + p, put +
 *   quiet + p, put_nbi + fence + atomic_set, put_signal SET and ADD, and a
 *   reader polling with shmem_test.  What each catches on real Arm (x86's
 *   TSO never reorders stores, so there they pass even when broken): a
 *   fence or quiet without `dmb ish` (the flag store overtakes the data),
 *   a put_signal whose signal is not a release, and a wait or test whose
 *   load is not an acquire (the data loads run ahead of the flag load).
 *
 *   SB (store buffering): each PE of a pair stores to the other, quiets,
 *   then reads the word the other stored.  Both reading 0 is forbidden
 *   (each quiet completes its store before its read).  A quiet without a
 *   full fence allows it even on x86 (a store waits in the store buffer
 *   while a later load runs), so this one also catches a bug here:
 *   with shr_quiet's fence weakened to a compiler barrier it fails on
 *   x86-64 in most runs.
 *
 * A litmus test can only show a forbidden outcome, never prove there is
 * none: passing means no reordering was seen in these rounds.  The PEs of a
 * pair meet before every SB slot so their stores race (docs/memory-ordering.md
 * has the argument for each fence). */
#include <stdbool.h>

#include "harness.h"

#define SLOTS 4096 /* MP: fresh data and flag per slot, so no resets race */
#define WORDS 4
#define SB_SLOTS 2048

enum { MP_FENCE, MP_QUIET, MP_NBI_AMO, MP_SIGNAL_SET, MP_SIGNAL_ADD, MP_TEST, MP_SHAPES };
static const char *mp_name[MP_SHAPES] = {
    "put+fence+p", "put+quiet+p", "put_nbi+fence+atomic_set",
    "put_signal(set)", "put_signal(add)", "put+fence+p, reader polls shmem_test",
};

static long value(int shape, long slot, int word)
{
    return ((long)shape << 40) | (slot << 8) | (word + 1);
}

/* One MP shape from `me` (writer) to `peer` (reader), or the reverse. */
static void mp(int shape, int writer, int me, int peer, long *data, long *flag, uint64_t *sig)
{
    if (me == writer) {
        long src[WORDS];
        for (long s = 0; s < SLOTS; s++) {
            for (int w = 0; w < WORDS; w++) {
                src[w] = value(shape, s, w);
            }
            long *d = &data[s * WORDS];
            switch (shape) {
            case MP_FENCE:
            case MP_TEST:
                shmem_long_put(d, src, WORDS, peer);
                shmem_fence();
                shmem_long_p(&flag[s], 1, peer);
                break;
            case MP_QUIET:
                shmem_long_put(d, src, WORDS, peer);
                shmem_quiet();
                shmem_long_p(&flag[s], 1, peer);
                break;
            case MP_NBI_AMO:
                shmem_long_put_nbi(d, src, WORDS, peer);
                shmem_fence();
                shmem_long_atomic_set(&flag[s], 1, peer);
                break;
            case MP_SIGNAL_SET:
                shmem_long_put_signal(d, src, WORDS, &sig[s], 1, SHMEM_SIGNAL_SET, peer);
                break;
            case MP_SIGNAL_ADD:
                shmem_long_put_signal(d, src, WORDS, &sig[0], 1, SHMEM_SIGNAL_ADD, peer);
                break;
            }
        }
        return;
    }
    for (long s = 0; s < SLOTS; s++) {
        switch (shape) {
        case MP_SIGNAL_SET:
            shmem_signal_wait_until(&sig[s], SHMEM_CMP_EQ, 1);
            break;
        case MP_SIGNAL_ADD:
            shmem_signal_wait_until(&sig[0], SHMEM_CMP_GE, (uint64_t)s + 1);
            break;
        case MP_TEST:
            while (!shmem_long_test(&flag[s], SHMEM_CMP_EQ, 1)) {
            }
            break;
        default:
            shmem_long_wait_until(&flag[s], SHMEM_CMP_EQ, 1);
        }
        for (int w = 0; w < WORDS; w++) {
            long got = data[s * WORDS + w];
            CHECK(got == value(shape, s, w),
                  "MP %s slot %ld word %d: flag seen, data %#lx (want %#lx): "
                  "the flag overtook the data", mp_name[shape], s, w, got, value(shape, s, w));
        }
    }
}

/* SB: both PEs of the pair meet at each slot, store to the other, quiet,
 * and read what the other stored.  Returns how many slots saw both 0. */
static long sb(int me, int peer, long *mark, long *meet, long *seen_by_peer)
{
    static long seen[SB_SLOTS];
    for (long s = 0; s < SB_SLOTS; s++) {
        /* a two-PE barrier on a fresh word: both leave it at about once */
        shmem_long_atomic_set(&meet[s], 1, peer);
        shmem_long_wait_until(&meet[s], SHMEM_CMP_EQ, 1);
        shmem_long_p(&mark[s], 1, peer);
        shmem_quiet();
        seen[s] = *(volatile long *)&mark[s];
    }
    shmem_long_put(seen_by_peer, seen, SB_SLOTS, peer);
    shmem_barrier_all();
    long both_zero = 0;
    for (long s = 0; s < SB_SLOTS && me % 2 == 0; s++) {
        both_zero += seen[s] == 0 && seen_by_peer[s] == 0;
    }
    return both_zero;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int peer = me ^ 1;
    bool paired = peer < n;
    long *data = shmem_calloc(SLOTS * WORDS, sizeof(long));
    long *flag = shmem_calloc(SLOTS, sizeof(long));
    uint64_t *sig = shmem_calloc(SLOTS, sizeof(uint64_t));
    long *mark = shmem_calloc(SB_SLOTS, sizeof(long));
    long *meet = shmem_calloc(SB_SLOTS, sizeof(long));
    long *seen_by_peer = shmem_calloc(SB_SLOTS, sizeof(long));

    CHECK(data && flag && sig && mark && meet && seen_by_peer, "shmem_calloc failed");
    if (n < 2) {
        return test_pass("litmus MP and SB (needs 2 PEs; nothing to check)");
    }
    /* every MP shape in both directions of each pair */
    for (int shape = 0; shape < MP_SHAPES; shape++) {
        for (int dir = 0; dir < 2; dir++) {
            memset(data, 0, SLOTS * WORDS * sizeof(long));
            memset(flag, 0, SLOTS * sizeof(long));
            memset(sig, 0, SLOTS * sizeof(uint64_t));
            shmem_barrier_all();
            if (paired) {
                mp(shape, (me & ~1) + dir, me, peer, data, flag, sig);
            }
            shmem_barrier_all();
        }
    }
    long both_zero = paired ? sb(me, peer, mark, meet, seen_by_peer) : (shmem_barrier_all(), 0);
    CHECK(both_zero == 0, "SB put+quiet: in %ld of %d slots both PEs read 0 after their "
          "quiet: quiet let a later load pass an earlier store", both_zero, SB_SLOTS);
    shmem_free(data);
    shmem_free(flag);
    shmem_free(sig);
    shmem_free(mark);
    shmem_free(meet);
    shmem_free(seen_by_peer);
    return test_pass("litmus MP (6 shapes) and SB");
}
