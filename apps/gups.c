/*
 * gups -- HPCC RandomAccess: random XOR updates of a table spread over
 * every PE, in giga-updates per second.
 *
 * By the HPCC rules: a table of T = 2^n 64-bit words (the whole job's),
 * word i starting as i; 4T updates from the standard stream a(k+1) =
 * a(k) * x over GF(2) (shift left, XOR 0x7 when the top bit was set), each
 * `table[a & (T-1)] ^= a`; PE p runs its block of the stream, starting from
 * the stream's element at that position (computed by repeated squaring, as
 * the rules' starts() does); non-power-of-two PE counts get HPCC's layout
 * (the first T mod P PEs hold one word more).  Verification replays the
 * whole stream on the owner of each word, so that every word should be back
 * at its start value, and counts the words that are not.
 *
 * Variants: `xor` (default) updates with shmem_uint64_atomic_xor: exact,
 * the check allows no error.  `getput` is HPCC's unlocked update, a get
 * then a put of the XORed value: concurrent updates of one word may be
 * lost, and the rules allow up to 1% of the table in error.
 */
#include "app.h"

#include <stdlib.h>

#define POLY 0x7ULL
#define PERIOD 1317624576693539401LL

static inline uint64_t next_random(uint64_t a)
{
    return (a << 1) ^ (((int64_t)a < 0) ? POLY : 0);
}

/* Element n of the stream (element 0 is 1): x^n over GF(2) mod the
 * polynomial, by squaring and multiplying on the bits of n. */
static uint64_t stream_at(int64_t n)
{
    uint64_t sq[64], t = 1;
    int bit;
    while (n < 0)
        n += PERIOD;
    while (n > PERIOD)
        n -= PERIOD;
    if (n == 0)
        return 1;
    /* sq[j]: x^(2j) -- squaring a polynomial maps bit j to bit 2j */
    for (int j = 0; j < 64; j++) {
        sq[j] = t;
        t = next_random(next_random(t));
    }
    for (bit = 62; bit >= 0 && !((n >> bit) & 1); bit--)
        ;
    uint64_t r = 2;          /* x^1: the leading bit of n */
    while (bit > 0) {
        uint64_t s = 0;      /* r := r^2 */
        for (int j = 0; j < 64; j++)
            if ((r >> j) & 1)
                s ^= sq[j];
        r = s;
        bit--;
        if ((n >> bit) & 1)
            r = next_random(r);
    }
    return r;
}

typedef struct {
    uint64_t size;           /* T */
    long min_local;          /* T / P */
    long extra;              /* T mod P: these first PEs hold min_local + 1 */
    uint64_t top;            /* (min_local + 1) * extra: first index on a smaller PE */
} layout_t;

static inline void locate(const layout_t *l, uint64_t i, int *pe_p, uint64_t *off_p)
{
    if (i < l->top) {
        *pe_p = (int)(i / (uint64_t)(l->min_local + 1));
        *off_p = i % (uint64_t)(l->min_local + 1);
    } else {
        *pe_p = (int)(l->extra + (long)((i - l->top) / (uint64_t)l->min_local));
        *off_p = (i - l->top) % (uint64_t)l->min_local;
    }
}

int main(int argc, char **argv)
{
    app_t a = {
        .name = "gups",
        .title = "HPCC RandomAccess: random XOR updates of a distributed table",
        .rate_unit = "GUP/s",
        .size_help = "log2 of the table's words (all PEs together)",
        .iter_help = "updates per table word (HPCC: 4)",
        .variants = "xor,getput",
    };
    app_init(&a, argc, argv);
    int me = a.me, npes = a.npes;
    int log_size = (int)app_pick(&a, 12, 23, 25);
    long per_word = app_pick_iters(&a, 4, 4, 4);
    int exact = a.variant[0] == 'x';
    if (log_size < 1 || log_size > 40)
        app_die(&a, "-S %d: the table's log2 size must be 1..40", log_size);

    layout_t l;
    l.size = 1ULL << log_size;
    l.min_local = (long)(l.size / (uint64_t)npes);
    l.extra = (long)(l.size % (uint64_t)npes);
    l.top = (uint64_t)(l.min_local + 1) * (uint64_t)l.extra;
    if (l.min_local == 0)
        app_die(&a, "a table of 2^%d words cannot be spread over %d PEs; raise -S", log_size, npes);
    long my_words = l.min_local + (me < l.extra ? 1 : 0);
    uint64_t my_first = (uint64_t)me * (uint64_t)l.min_local + (uint64_t)(me < l.extra ? me : l.extra);
    /* every PE allocates the larger block: symmetric allocations are equal */
    uint64_t *table = app_malloc(&a, (size_t)(l.min_local + 1) * sizeof(uint64_t), "the table");

    long updates = (long)(per_word * (long)l.size);
    long my_lo = app_block_lo(updates, npes, me), my_n = app_block_len(updates, npes, me);
    app_say(&a, "class %s, %d PEs, variant %s: table 2^%d words (%.1f MiB), %ld updates",
            app_class_name(&a), npes, a.variant, log_size, (double)l.size * 8 / 1048576.0, updates);

    for (long i = 0; i < my_words; i++)
        table[i] = my_first + (uint64_t)i;

    app_time_begin(&a);
    uint64_t ran = stream_at(my_lo);
    if (exact) {
        for (long k = 0; k < my_n; k++) {
            int pe;
            uint64_t off;
            ran = next_random(ran);
            locate(&l, ran & (l.size - 1), &pe, &off);
            shmem_uint64_atomic_xor(&table[off], ran, pe);
        }
    } else {
        for (long k = 0; k < my_n; k++) {
            int pe;
            uint64_t off;
            ran = next_random(ran);
            locate(&l, ran & (l.size - 1), &pe, &off);
            uint64_t v = shmem_uint64_g(&table[off], pe);
            shmem_uint64_p(&table[off], v ^ ran, pe);
        }
    }
    app_time_end(&a);     /* barrier_all: every update has landed */

    /* Verification: the owner of each word replays every update of the
     * stream that falls on it; XOR undoes XOR. */
    ran = 1;
    for (long k = 0; k < updates; k++) {
        int pe;
        uint64_t off;
        ran = next_random(ran);
        locate(&l, ran & (l.size - 1), &pe, &off);
        if (pe == me)
            table[off] ^= ran;
    }
    long errors = 0;
    for (long i = 0; i < my_words; i++)
        errors += table[i] != my_first + (uint64_t)i;
    errors = app_sum_long(errors);
    long allowed = exact ? 0 : (long)(l.size / 100);
    shmem_free(table);

    double gups = (double)updates / a.elapsed / 1e9;
    return app_finish(&a, errors <= allowed, gups,
                      "%ld of %llu words wrong after replaying the stream (%s: %ld allowed)", errors,
                      (unsigned long long)l.size,
                      exact ? "atomic XOR, exact" : "unlocked get+put, HPCC's 1%", allowed);
}
