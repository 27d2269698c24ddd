/*
 * isx -- integer sort in the manner of ISx: each PE owns one bucket (a range
 * of key values); every PE sends each of its keys to the bucket's PE, which
 * then sorts what it received by counting.
 *
 * N keys in [0, N) (the whole job's; uniform, from a counter-based
 * generator, so the keys do not depend on the PE count), split evenly over
 * the PEs.  One iteration: count the keys per bucket, group them by
 * bucket, exchange, sort locally.  Exchange variants:
 *   atomic   (default, ISx's) one fetch-add on the receiver's counter
 *            reserves room, one put moves the keys
 *   alltoall counts by alltoall, each receiver turns them into offsets and
 *            answers by alltoall, then one put per receiver
 * A barrier ends the exchange; a reset of the counter and a barrier end the
 * iteration.  One untimed warm-up iteration, then the timed ones.
 *
 * Check (the serial answer is "all N keys in order"): every PE's keys lie
 * in its bucket and are in order, each PE received as many keys as were
 * generated for its bucket, and two sums over all keys (the keys, and a
 * hash of each) equal those of the generated keys.
 */
#include "app.h"

#include <stdlib.h>
#include <string.h>

#define SEED 0x15a5eedULL

typedef int32_t key_t;        /* as ISx: 4-byte keys */

static inline key_t key_at(long i, long max_key)
{
    return (key_t)(app_mix64(SEED + (uint64_t)i) % (uint64_t)max_key);
}

static inline long fingerprint(key_t key)
{
    return (long)(app_mix64((uint64_t)key) >> 40);       /* 24 bits: 2^31 of them fit a long */
}

int main(int argc, char **argv)
{
    app_t a = {
        .name = "isx",
        .title = "ISx-style integer sort: one bucket per PE, keys exchanged by put + atomics",
        .rate_unit = "Mkey/s",
        .size_help = "log2 of the number of keys (all PEs together)",
        .iter_help = "timed iterations (after one warm-up)",
        .variants = "atomic,alltoall",
    };
    app_init(&a, argc, argv);
    int me = a.me, npes = a.npes;
    int log_n = (int)app_pick(&a, 16, 22, 24);
    long iters = app_pick_iters(&a, 3, 8, 8);
    int by_alltoall = a.variant[1] == 'l';
    if (log_n < 4 || log_n > 31)
        app_die(&a, "-S %d: the log2 key count must be 4..31", log_n);
    long n = 1L << log_n, max_key = n;
    long width = (max_key + npes - 1) / npes;        /* key values per bucket */
    long my_min = (long)me * width;
    long my_width = my_min >= max_key ? 0 : (max_key - my_min < width ? max_key - my_min : width);
    long n_local = app_block_len(n, npes, me), first = app_block_lo(n, npes, me);

    key_t *keys = app_alloc(&a, (size_t)n_local * sizeof(key_t), "the keys");
    key_t *grouped = app_alloc(&a, (size_t)n_local * sizeof(key_t), "the keys by bucket");
    long *count = app_alloc(&a, (size_t)npes * sizeof(long), "the bucket counts");
    long *start = app_alloc(&a, (size_t)npes * sizeof(long), "the bucket offsets");
    int32_t *hist = app_alloc(&a, (size_t)(my_width ? my_width : 1) * sizeof(int32_t), "the histogram");
    /* symmetric: per-bucket counts (setup, and the alltoall variant) */
    long *sym_counts = app_calloc(&a, (size_t)npes * sizeof(long), "the counts");
    long *sym_totals = app_calloc(&a, (size_t)npes * sizeof(long), "the totals");
    long *a2a_in = app_calloc(&a, (size_t)npes * sizeof(long), "the counts received");
    long *a2a_off = app_calloc(&a, (size_t)npes * sizeof(long), "the offsets sent");
    long *a2a_at = app_calloc(&a, (size_t)npes * sizeof(long), "the offsets received");
    long *recv_n = app_calloc(&a, sizeof(long), "the receive counter");

    /* untimed: generate, and learn how many keys each bucket will get */
    long gen_sum = 0, gen_fp = 0;
    for (long i = 0; i < n_local; i++) {
        keys[i] = key_at(first + i, max_key);
        sym_counts[keys[i] / width]++;
        gen_sum += keys[i];
        gen_fp += fingerprint(keys[i]);
    }
    app_sum_long_array(sym_totals, sym_counts, (size_t)npes);
    long expect = sym_totals[me];
    long cap = 0;
    for (int p = 0; p < npes; p++)
        cap = sym_totals[p] > cap ? sym_totals[p] : cap;
    key_t *recv = app_malloc(&a, (size_t)(cap ? cap : 1) * sizeof(key_t), "the received keys");
    key_t *sorted = app_alloc(&a, (size_t)(cap ? cap : 1) * sizeof(key_t), "the sorted keys");
    gen_sum = app_sum_long(gen_sum);
    gen_fp = app_sum_long(gen_fp);
    app_say(&a, "class %s, %d PEs, variant %s: 2^%d keys in [0, 2^%d), %ld timed iterations",
            app_class_name(&a), npes, a.variant, log_n, log_n, iters);

    long got = 0, out_of_range = 0;
    for (long it = -1; it < iters; it++) {
        if (it == 0)
            app_time_begin(&a);
        /* count and group by bucket */
        memset(count, 0, (size_t)npes * sizeof(long));
        for (long i = 0; i < n_local; i++)
            count[keys[i] / width]++;
        for (long p = 0, at = 0; p < npes; p++) {
            start[p] = at;
            at += count[p];
        }
        for (long i = 0; i < n_local; i++)
            grouped[start[keys[i] / width]++] = keys[i];
        for (int p = 0; p < npes; p++)
            start[p] -= count[p];
        /* exchange */
        if (by_alltoall) {
            memcpy(sym_counts, count, (size_t)npes * sizeof(long));
            app_alltoall(a2a_in, sym_counts, sizeof(long));
            for (long p = 0, at = 0; p < npes; p++) {
                a2a_off[p] = at;
                at += a2a_in[p];
            }
            app_alltoall(a2a_at, a2a_off, sizeof(long));
        }
        for (int k = 1; k <= npes; k++) {
            int pe = (me + k) % npes;
            if (!count[pe])
                continue;
            long at = by_alltoall ? a2a_at[pe]
                                  : shmem_long_atomic_fetch_add(recv_n, count[pe], pe);
            shmem_putmem(&recv[at], &grouped[start[pe]], (size_t)count[pe] * sizeof(key_t), pe);
        }
        shmem_barrier_all();
        got = by_alltoall ? 0 : *recv_n;
        if (by_alltoall)
            for (int p = 0; p < npes; p++)
                got += a2a_in[p];
        /* sort the bucket by counting */
        memset(hist, 0, (size_t)(my_width ? my_width : 1) * sizeof(int32_t));
        out_of_range = 0;
        for (long i = 0; i < got; i++) {
            long v = recv[i] - my_min;
            if (v < 0 || v >= my_width)
                out_of_range++;
            else
                hist[v]++;
        }
        for (long v = 0, at = 0; v < my_width; v++) {
            int32_t c = hist[v];
            hist[v] = (int32_t)at;
            at += c;
        }
        for (long i = 0; i < got; i++) {
            long v = recv[i] - my_min;
            if (v >= 0 && v < my_width)
                sorted[hist[v]++] = recv[i];
        }
        *recv_n = 0;
        shmem_barrier_all();     /* every counter is back at 0 before the next iteration */
    }
    app_time_end(&a);

    long bad_order = 0, sum = 0, fp = 0;
    for (long i = 0; i < got; i++) {
        if (i > 0 && sorted[i] < sorted[i - 1])
            bad_order++;
        sum += sorted[i];
        fp += fingerprint(sorted[i]);
    }
    long bad_count = got != expect;
    long misplaced = app_sum_long(bad_order + out_of_range);
    long miscounted = app_sum_long(bad_count);
    long total = app_sum_long(got);
    sum = app_sum_long(sum);
    fp = app_sum_long(fp);
    int ok = misplaced == 0 && miscounted == 0 && total == n && sum == gen_sum && fp == gen_fp;
    shmem_free(recv);
    shmem_free(recv_n);
    shmem_free(a2a_at);
    shmem_free(a2a_off);
    shmem_free(a2a_in);
    shmem_free(sym_totals);
    shmem_free(sym_counts);
    free(keys);
    free(grouped);
    free(count);
    free(start);
    free(hist);
    free(sorted);

    return app_finish(&a, ok, (double)n * (double)iters / a.elapsed / 1e6,
                      "%ld of %ld keys received, %ld out of their bucket or order, %ld buckets "
                      "miscounted; key sum %s, key hash sum %s the generated keys'",
                      total, n, misplaced, miscounted, sum == gen_sum ? "equals" : "DIFFERS from",
                      fp == gen_fp ? "equals" : "DIFFERS from");
}
