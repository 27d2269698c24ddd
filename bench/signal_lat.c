/*
 * signal_lat - put-with-signal ping-pong between PEs 0 and 1:
 * shmem_putmem_signal(data, SHMEM_SIGNAL_SET) then shmem_signal_wait_until
 * on the answer; half of the round trip.  OpenSHMEM 1.5; on older
 * implementations the benchmark reports itself unsupported ("n/a").
 * --global puts data and signal in static arrays.
 */
#include "bench.h"

#include <string.h>

#define MAX_SIZE ((size_t)4 << 20)
static char global_pool[2 * MAX_SIZE + 4 * 4096];

static const bench_info_t info = {
    .name = "signal_lat",
    .title = "signal latency: putmem_signal + signal_wait_until ping-pong, half round trip",
    .columns = "size:B latency_us:us iterations: valid:",
    .min_size = 1, .max_size = MAX_SIZE,
    BENCH_SWEEP_LAT,
    .min_pes = 2,
};

#if BENCH_HAVE_SHMEM_1_5 || defined(SHMEM_SIGNAL_SET)
int main(int argc, char **argv)
{
    bench_t b;
    bench_init(&b, &info, argc, argv);
    bench_set_global_pool(&b, global_pool, sizeof global_pool);

    size_t max = b.opt.max_size;
    char *sbuf = bench_sym_alloc(&b, max);
    char *rbuf = bench_sym_alloc(&b, max);
    uint64_t *sig = bench_sym_alloc(&b, sizeof(uint64_t));
    int peer = 1 - b.me;
    bool active = b.me < 2;

    BENCH_FOR_SIZES(&b, size) {
        if (!bench_point(&b, "size=%zu", size))
            continue;
        long iters = bench_iters(&b, size), warm = bench_warmup(&b, iters);
        double t0 = 0, lat = 0;
        bench_fill(sbuf, size, (unsigned)(size * 3 + b.me));
        memset(rbuf, 0, size);
        *sig = 0;
        shmem_barrier_all();
        for (long i = 1; active && i <= iters + warm; i++) {
            if (i == warm + 1)
                t0 = bench_now_us();
            if (b.me == 0) {
                shmem_putmem_signal(rbuf, sbuf, size, sig, (uint64_t)i, SHMEM_SIGNAL_SET, peer);
                shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)i);
            } else {
                shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)i);
                shmem_putmem_signal(rbuf, sbuf, size, sig, (uint64_t)i, SHMEM_SIGNAL_SET, peer);
            }
        }
        if (active)
            lat = (bench_now_us() - t0) / (2.0 * (double)iters);
        shmem_barrier_all();
        bool ok = !active || bench_check(rbuf, size, (unsigned)(size * 3 + peer));
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
#else
int main(int argc, char **argv)
{
    bench_t b;
    bench_init(&b, &info, argc, argv);
    (void)global_pool;
    return bench_unsupported(&b, "shmem_putmem_signal needs OpenSHMEM 1.5 (this is an older version)");
}
#endif
