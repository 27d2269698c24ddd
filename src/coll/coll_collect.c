/*
 * coll_collect.c -- collect (per-PE sizes) and fcollect (one size).
 *
 * collect:
 *   flat    every member writes a slot of every other: its size, and its
 *           data when it fits the slot.  Each member then knows every
 *           offset; it copies small blocks out of its slots and pulls the
 *           others from their owners' sources (telling them when done).
 *   linear  offsets travel along a chain (member i learns the sum of the
 *           sizes before it from i-1), then every member pushes its block
 *           into every dest.  For sets too big for flat's and bruck's words.
 *   bruck   O(log n) peers: offsets and the total by a scan both ways
 *           (step k: my sum so far to the member 2^k after me and to the
 *           one 2^k before), then Bruck's allgather in place: step k, I
 *           push what I hold (the blocks of me .. me+2^k-1, contiguous in
 *           dest modulo the total) to the member 2^k before me.  A PE
 *           reaches about 2 log2 n peers instead of n - 1, so the pages it
 *           touches in its peers' segments (their dest and pSync) stop
 *           growing with the job (bench/README.md, footprint).
 * fcollect:
 *   eager   flat with the data in the slots.
 *   push    every member writes its block into every dest, then flags it.
 *   pull    all arrive; every member reads every block; all arrive again.
 *   bruck   collect's bruck without the scan (every offset is known).
 * auto: collect flat up to SHR_COLL_FLAT_SYNC members when the slots hold
 * one per member, else bruck (linear when its words do not fit);
 * fcollect bruck above SHR_COLL_FLAT_SYNC members (push when its words do
 * not fit), else eager up to SHIMMER_COLL_EAGER_SIZE, else push.
 * All of them are "full": every member hears from every other.
 */
#include <stdlib.h>

#include "coll/coll_int.h"
#include "core/check.h"

/* Slot words per sender for flat collect (the same on every member: it
 * may not depend on the local size), or 0.  Sized for the largest eager
 * payload (4 lines on a pSync), so a small one relies on shr_coll_slot_at
 * to share the header's line. */
static size_t flat_slot_words(const shr_coll_t *c)
{
    size_t n1 = (size_t)c->team->n_pes - 1;
    size_t per = c->slot_words / n1;
    size_t cap = 1 + (shr_coll_eager_max() + 7) / 8;

    if (per < 2) {
        return 0;
    }
    if (per > cap) {
        per = cap;
    }
    if (per >= SHR_SYNC_LINE) {
        return per / SHR_SYNC_LINE * SHR_SYNC_LINE;
    }
    return per >= 4 ? 4 : 2;
}

/* The flat exchange; `fixed` = fcollect (len known everywhere). */
static void flat_exchange(shr_coll_t *c, const shr_coll_args_t *a, size_t sw)
{
    int n = c->team->n_pes, me = c->team->my_pe;
    size_t cap = (sw - 1) * 8;
    size_t stack_lens[64], *lens = stack_lens;
    char *dest = a->dest;

    if (n > (int)SHR_ARRAY_SIZE(stack_lens)) {
        lens = malloc((size_t)n * sizeof(size_t));
        if (lens == NULL) {
            shr_check_fail(c->fn, "out of memory for %d sizes", n);
        }
    }
    bool eager = a->len <= cap;
    /* the header is the size + 1: receivers learn where the payload is.
     * A block too big for the slot is pulled; its slot says where my source
     * lies from dest (8 bytes <= cap), so a receiver sees whether it is my
     * block (in place), which its own source cannot tell when its block is
     * empty and last (its address is also the next array's) */
    uint64_t from = (uint64_t)((uintptr_t)a->src - (uintptr_t)a->dest);
    for (int k = 1; k < n; k++) {
        int m = shr_coll_rel(c, k);
        shr_coll_slot_send(c, m, shr_coll_slot_of(me, m), sw, a->len + 1,
                           eager ? a->src : (const void *)&from, eager ? a->len : sizeof(from));
    }
    /* every size, then every offset */
    for (int m = 0; m < n; m++) {
        lens[m] = m == me ? a->len : shr_coll_slot_wait_from(c, m, sw) - 1;
    }
    size_t off = 0;
    for (int m = 0; m < n; m++) {
        size_t len = lens[m];
        if (m == me) {
            shr_coll_copy_local(dest + off, a->src, len);
        } else if (len <= cap) {
            size_t i = shr_coll_slot_of(m, me);
            if (len != 0) { /* dest may be NULL when no member sends data */
                memcpy(dest + off, shr_coll_slot_payload(c, i, sw, len), len);
            }
            shr_coll_slot_clear(c, i, sw, len);
        } else {
            size_t i = shr_coll_slot_of(m, me);
            uint64_t at;
            memcpy(&at, shr_coll_slot_payload(c, i, sw, sizeof(at)), sizeof(at));
            shr_coll_get(c, dest + off, at == off ? dest + off : a->src, len, m);
            shr_coll_slot_clear(c, i, sw, sizeof(at));
            shr_coll_add(c, m, SHR_CW_DONE, 1);
        }
        off += len;
    }
    if (!eager) {
        shr_coll_take(c, SHR_CW_DONE, (uint64_t)n - 1);
    }
    if (lens != stack_lens) {
        free(lens);
    }
    c->full = true;
}

/* My block (a->src, a->len) into `at` of every member's dest, then one
 * READY from each: the push of collect (linear) and fcollect. */
static void push_block(shr_coll_t *c, const shr_coll_args_t *a, char *at)
{
    int n = c->team->n_pes;

    for (int k = 1; k < n; k++) {
        int m = shr_coll_rel(c, k);
        shr_coll_put(c, at, a->src, a->len, m);
        shr_coll_add(c, m, SHR_CW_READY, 1);
    }
    shr_coll_copy_local(at, a->src, a->len);
    shr_coll_take(c, SHR_CW_READY, (uint64_t)n - 1);
    c->full = true;
}

void shr_coll_collect_linear(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, me = c->team->my_pe;
    size_t off = 0;

    shr_coll_ran(c, shr_coll_collect_linear);
    if (me > 0) {
        uint64_t v = shr_coll_wait_ge(c, &c->sync[SHR_CW_CHAIN], 1);
        __atomic_fetch_sub(&c->sync[SHR_CW_CHAIN], v, __ATOMIC_RELAXED);
        off = v - 1;
    }
    if (me < n - 1) {
        shr_coll_add(c, me + 1, SHR_CW_CHAIN, off + a->len + 1);
    }
    push_block(c, a, (char *)a->dest + off);
}

void shr_coll_collect_flat(shr_coll_t *c, const shr_coll_args_t *a)
{
    size_t sw = flat_slot_words(c);

    if (sw == 0) {
        shr_coll_collect_linear(c, a);
        return;
    }
    shr_coll_ran(c, shr_coll_collect_flat);
    flat_exchange(c, a, sw);
}

/* bruck's words in the slot area, three per step k: the prefix sum from
 * the member 2^k before me, the suffix sum and the data count from the one
 * 2^k after me (each the value + 1).  The last step's "need" uses CHAIN. */
#define BRUCK_PRE(_k)  (SHR_CR_SLOTS + 3 * (size_t)(_k))
#define BRUCK_SUF(_k)  (BRUCK_PRE(_k) + 1)
#define BRUCK_DATA(_k) (BRUCK_PRE(_k) + 2)

/* Waits for the one signal on my word `w` (a value + 1), consumes it. */
static uint64_t bruck_take(shr_coll_t *c, size_t w)
{
    uint64_t v = shr_coll_wait_ge(c, &c->sync[w], 1);

    __atomic_fetch_sub(&c->sync[w], v, __ATOMIC_RELAXED);
    return v - 1;
}

/* `len` bytes of my dest from `off` on, modulo `total`, into the same
 * bytes of member's dest. */
static void bruck_put(shr_coll_t *c, char *dest, size_t off, size_t len, size_t total, int member)
{
    size_t first = len < total - off ? len : total - off;

    if (first != 0) {
        shr_coll_put(c, dest + off, dest + off, first, member);
    }
    if (len > first) {
        shr_coll_put(c, dest, dest, len - first, member);
    }
}

/* The largest power of two below n (n >= 2): bruck's last distance; its
 * log2 in *steps_p. */
static int bruck_last(int n, int *steps_p)
{
    int steps = 0, last = 1;

    while (last * 2 < n) {
        last *= 2;
        steps++;
    }
    *steps_p = steps;
    return last;
}

/* Do bruck's words fit the call's slot area? */
static bool bruck_fits(const shr_coll_t *c, int steps)
{
    return 3 * (size_t)(steps + 1) <= c->slot_words;
}

void shr_coll_collect_bruck(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, me = c->team->my_pe, steps;
    int last = bruck_last(n, &steps);
    char *dest = a->dest;

    if (!bruck_fits(c, steps)) {
        shr_coll_collect_linear(c, a);
        return;
    }
    shr_coll_ran(c, shr_coll_collect_bruck);

    /* sizes: left = my block and the 2^k - 1 before it, right = my block
     * and the 2^k - 1 after it (within the members), each step doubling */
    size_t left = a->len, right = a->len;
    int k = 0;
    for (int d = 1; d < n; d *= 2, k++) {
        if (me + d < n) {
            shr_coll_add(c, me + d, BRUCK_PRE(k), left + 1);
        }
        if (me - d >= 0) {
            shr_coll_add(c, me - d, BRUCK_SUF(k), right + 1);
            left += bruck_take(c, BRUCK_PRE(k));
        }
        if (me + d < n) {
            right += bruck_take(c, BRUCK_SUF(k));
        }
    }
    size_t off = left - a->len, total = left + right - a->len;

    /* Step k pushes the 2^k blocks I hold; the last one, when n is not a
     * power of two, only the n - 2^k its receiver lacks: the receiver
     * (2^k before its sender) sends its offset, which ends that range. */
    if (2 * last > n) {
        int m = me + last;
        shr_coll_add(c, m >= n ? m - n : m, SHR_CW_CHAIN, off + 1);
    }
    shr_coll_copy_local(dest + off, a->src, a->len);
    size_t held = a->len;
    k = 0;
    for (int d = 1; d < n; d *= 2, k++) {
        int to = me - d < 0 ? me - d + n : me - d;
        size_t send = held;
        if (2 * d > n) {
            size_t to_off = bruck_take(c, SHR_CW_CHAIN);
            send = to < me ? total - off + to_off : to_off - off;
        }
        bruck_put(c, dest, off, send, total, to);
        shr_coll_add(c, to, BRUCK_DATA(k), send + 1);
        held += bruck_take(c, BRUCK_DATA(k));
    }
    c->full = true;
}

static void collect_auto(shr_coll_t *c, const shr_coll_args_t *a)
{
    if (SHR_UNLIKELY(shr_g.has_remote) && shr_coll_hier_wanted(c)) {
        shr_coll_collect_hier(c, a); /* members on several nodes (coll_hier*.c) */
        return;
    }
    if (c->team->n_pes <= SHR_COLL_FLAT_SYNC && flat_slot_words(c) != 0) {
        shr_coll_collect_flat(c, a);
    } else {
        shr_coll_collect_bruck(c, a);
    }
}

/* ---- fcollect ---- */

static void fcollect_auto(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n1 = c->team->n_pes - 1;

    if (SHR_UNLIKELY(shr_g.has_remote) && shr_coll_hier_wanted(c)) {
        shr_coll_fcollect_hier(c, a); /* members on several nodes (coll_hier*.c) */
        return;
    }
    if (c->team->n_pes > SHR_COLL_FLAT_SYNC) {
        shr_coll_fcollect_bruck(c, a); /* O(log n) peers, as collect */
    } else if (a->len <= shr_coll_eager_max() && shr_coll_slot_size(c, a->len, (size_t)n1) != 0) {
        shr_coll_fcollect_eager(c, a);
    } else {
        shr_coll_fcollect_push(c, a);
    }
}

void shr_coll_fcollect_eager(shr_coll_t *c, const shr_coll_args_t *a)
{
    size_t sw = shr_coll_slot_size(c, a->len, (size_t)c->team->n_pes - 1);

    if (sw == 0) {
        fcollect_auto(c, a);
        return;
    }
    shr_coll_ran(c, shr_coll_fcollect_eager);
    flat_exchange(c, a, sw);
}

void shr_coll_fcollect_push(shr_coll_t *c, const shr_coll_args_t *a)
{
    shr_coll_ran(c, shr_coll_fcollect_push);
    push_block(c, a, (char *)a->dest + (size_t)c->team->my_pe * a->len);
}

/* collect's bruck with every size known: no scan; the last step sends
 * the n - 2^k blocks its receiver lacks. */
void shr_coll_fcollect_bruck(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, me = c->team->my_pe, steps;
    size_t len = a->len, total = (size_t)n * len, off = (size_t)me * len;
    char *dest = a->dest;

    (void)bruck_last(n, &steps);
    if (!bruck_fits(c, steps)) {
        shr_coll_fcollect_push(c, a);
        return;
    }
    shr_coll_ran(c, shr_coll_fcollect_bruck);
    shr_coll_copy_local(dest + off, a->src, len);
    int k = 0;
    for (int d = 1; d < n; d *= 2, k++) {
        int to = me - d < 0 ? me - d + n : me - d;
        int blocks = 2 * d > n ? n - d : d;
        bruck_put(c, dest, off, (size_t)blocks * len, total, to);
        shr_coll_add(c, to, BRUCK_DATA(k), 1);
        (void)bruck_take(c, BRUCK_DATA(k));
    }
    c->full = true;
}

void shr_coll_fcollect_pull(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes;
    size_t my_off = (size_t)c->team->my_pe * a->len;
    char *dest = a->dest;

    shr_coll_ran(c, shr_coll_fcollect_pull);
    shr_coll_sync_all(c, SHR_CW_READY);
    for (int k = 1; k < n; k++) {
        int m = shr_coll_rel(c, k);
        size_t off = (size_t)m * a->len;
        shr_coll_get(c, dest + off, shr_coll_src_of(a, my_off, off), a->len, m);
    }
    shr_coll_copy_local(dest + my_off, a->src, a->len);
    shr_coll_sync_all(c, SHR_CW_DONE);
    c->full = true;
}

/* ---- entry points ---- */

static void collect_run(shr_coll_t *c, void *dest, const void *src, size_t len, bool fixed)
{
    shr_coll_args_t a = {.dest = dest, .src = src, .len = len, .fixed = fixed};

    if (c->team->n_pes == 1) {
        shr_coll_copy_local(dest, src, len);
        return;
    }
    if (fixed) {
        shr_coll_run(SHR_COLL_ID_FCOLLECT, fcollect_auto, c, &a);
    } else {
        shr_coll_run(SHR_COLL_ID_COLLECT, collect_auto, c, &a);
    }
}

static void collect_sig(shr_coll_sig_t *sig, void *dest, const void *src, size_t len, bool fixed)
{
    memset(sig, 0, sizeof(*sig));
    sig->what[0] = "dest";
    sig->value[0] = shr_coll_sym_name(dest);
    sig->value[1] = shr_coll_sym_name(src); /* compared by the blocks check */
    sig->blocks = true;
    sig->dest = dest;
    sig->src = src;
    sig->len = len;
    if (fixed) {
        sig->what[2] = "nelems (in bytes)";
        sig->value[2] = len;
    }
}

int shr_coll_collect(const char *fn, shr_team_t *team, void *dest, const void *src, size_t len,
                     bool fixed)
{
    shr_coll_t c;
    shr_coll_kind_t kind = fixed ? SHR_COLL_FCOLLECT : SHR_COLL_COLLECT;

    if (SHR_CHECKS_ON()) {
        shr_coll_sig_t sig;
        collect_sig(&sig, dest, src, len, fixed);
        shr_coll_agree_team(fn, team, kind, &sig);
    }
    if (fixed && len == 0) {
        return 0;
    }
    shr_coll_team_begin(&c, fn, team, kind);
    collect_run(&c, dest, src, len, fixed);
    shr_coll_team_end(&c);
    return 0;
}

void shr_coll_collect_aset(const char *fn, void *dest, const void *src, size_t len, bool fixed,
                           int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    shr_team_t view;
    shr_coll_t c;
    shr_coll_kind_t kind = fixed ? SHR_COLL_FCOLLECT : SHR_COLL_COLLECT;

    if (SHR_CHECKS_ON()) {
        shr_coll_sig_t sig;
        collect_sig(&sig, dest, src, len, fixed);
        shr_coll_agree_aset(fn, PE_start, logPE_stride, PE_size, pSync, kind, &sig);
    }
    if (fixed && len == 0) {
        return;
    }
    shr_coll_aset_begin(&c, &view, fn, PE_start, logPE_stride, PE_size, pSync, kind);
    collect_run(&c, dest, src, len, fixed);
    shr_coll_aset_end(&c);
}
