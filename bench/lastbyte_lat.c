/*
 * lastbyte_lat - data ping-pong in which the data is its own flag: PE 0
 * puts a message whose first and last 8 bytes carry the iteration number;
 * PE 1 waits until the last 8 bytes say so (shmem_uint64_wait_until), then
 * answers the same way; half of the round trip.  No fence, no separate flag:
 * the "poll on the last byte" method, the floor of the data + flag
 * ping-pongs beside it (put_lat's pingpong_us: put, fence, put a flag;
 * signal_lat: put_signal).
 *
 * OpenSHMEM does not order the bytes of one put; codes that poll the last
 * byte rely on the transport writing it last (Shimmer's copy on one node
 * stores the last 8 bytes last; UCX over TCP writes a message in order).
 * The receiver checks the first 8 bytes once the last arrived: a message
 * whose head lagged its tail makes the point invalid instead of fast.
 */
#include "bench.h"

#include <string.h>

#define MAX_SIZE ((size_t)4 << 20)

static void stamp(char *buf, size_t size, uint64_t i)
{
    memcpy(buf, &i, sizeof i);
    memcpy(buf + size - sizeof i, &i, sizeof i);
}

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "lastbyte_lat",
        .title = "data ping-pong polling the message's last 8 bytes (no flag), half round trip",
        .columns = "size:B latency_us:us iterations: valid:",
        .min_size = 8, .max_size = MAX_SIZE,
        BENCH_SWEEP_LAT,                 /* put_lat's, as the other ping-pongs */
        .min_pes = 2,
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);
    if (b.opt.min_size < sizeof(uint64_t))
        bench_die(&b, "sizes start at 8 bytes (the message carries an 8-byte stamp); got -m %zu",
                  b.opt.min_size);

    size_t max = b.opt.max_size;
    char *sbuf = bench_sym_alloc(&b, max);
    char *rbuf = bench_sym_alloc(&b, max);
    int peer = 1 - b.me;
    bool active = b.me < 2;

    BENCH_FOR_SIZES(&b, size) {
        if (!bench_point(&b, "size=%zu", size))
            continue;
        long iters = bench_iters(&b, size), warm = bench_warmup(&b, iters);
        uint64_t *tail = (uint64_t *)(rbuf + size - sizeof(uint64_t));
        double t0 = 0, lat = 0;
        bool ok = true;

        bench_fill(sbuf, size, (unsigned)(size * 5 + b.me));
        memset(rbuf, 0, size);
        shmem_barrier_all();
        for (uint64_t i = 1; active && i <= (uint64_t)(iters + warm); i++) {
            if (i == (uint64_t)warm + 1)
                t0 = bench_now_us();
            if (b.me == 1) {
                shmem_uint64_wait_until(tail, SHMEM_CMP_EQ, i);
                ok = ok && memcmp(rbuf, &i, sizeof i) == 0;
            }
            stamp(sbuf, size, i);
            shmem_putmem(rbuf, sbuf, size, peer);
            if (b.me == 0) {
                shmem_uint64_wait_until(tail, SHMEM_CMP_EQ, i);
                ok = ok && memcmp(rbuf, &i, sizeof i) == 0;
            }
        }
        if (active)
            lat = (bench_now_us() - t0) / (2.0 * (double)iters);
        shmem_barrier_all();
        /* the last message whole: the peer's pattern around the two stamps */
        if (active) {
            stamp(sbuf, size, 0);
            stamp(rbuf, size, 0);
            bench_fill(sbuf, size, (unsigned)(size * 5 + peer));
            stamp(sbuf, size, 0);
            ok = ok && memcmp(rbuf, sbuf, size) == 0;
        }
        ok = bench_all_ok(&b, ok);

        bench_row_begin(&b);
        bench_col_int(&b, "size", (long long)size);
        bench_col_num(&b, "latency_us", lat);
        bench_col_int(&b, "iterations", iters);
        bench_col_bool(&b, "valid", ok);
        bench_row_end(&b);
    }
    return bench_fini(&b, NULL);
}
