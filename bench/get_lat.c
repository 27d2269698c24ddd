/*
 * get_lat - blocking get latency, PE 0 reads from PE 1 (osu_oshm_get):
 * back-to-back shmem_getmem, time / iterations.  A blocking get is
 * complete on return, so this is the full round trip.
 * --global reads from a static array instead of the heap.
 */
#include "bench.h"

#include <string.h>

#define MAX_SIZE ((size_t)4 << 20)
static char global_pool[2 * MAX_SIZE + 2 * 4096];

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "get_lat",
        .title = "get latency: blocking getmem (OSU)",
        .columns = "size:B latency_us:us iterations: valid:",
        .min_size = 1, .max_size = MAX_SIZE,
        BENCH_SWEEP_LAT,
        .min_pes = 2,
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);
    bench_set_global_pool(&b, global_pool, sizeof global_pool);

    size_t max = b.opt.max_size;
    char *sbuf = bench_sym_alloc(&b, max);   /* read remotely */
    char *rbuf = bench_sym_alloc(&b, max);   /* local destination */

    BENCH_FOR_SIZES(&b, size) {
        if (!bench_point(&b, "size=%zu", size))
            continue;
        long iters = bench_iters(&b, size), warm = bench_warmup(&b, iters);
        double lat = 0;
        bool ok = true;

        bench_fill(sbuf, size, (unsigned)(size + b.me));
        memset(rbuf, 0, size);
        shmem_barrier_all();
        if (b.me == 0) {
            for (long i = 0; i < warm; i++)
                shmem_getmem(rbuf, sbuf, size, 1);
            double t0 = bench_now_us();
            for (long i = 0; i < iters; i++)
                shmem_getmem(rbuf, sbuf, size, 1);
            lat = (bench_now_us() - t0) / (double)iters;
            ok = bench_check(rbuf, size, (unsigned)(size + 1));
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
