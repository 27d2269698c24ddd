/*
 * put_bw - put flood bandwidth, PE 0 injecting into PE 1:
 *   bandwidth_MBps  windows of W shmem_putmem_nbi then shmem_quiet, repeated
 *                   (a flood then one completion, as GASNet-EX testlarge);
 *   blocking_MBps   back-to-back blocking shmem_putmem, one quiet at the end.
 * MB = 1e6 bytes, as OSU.  Every put of a point targets the same buffer.
 */
#include "bench.h"

#include <string.h>

#define MAX_SIZE ((size_t)4 << 20)
static char global_pool[2 * MAX_SIZE + 2 * 4096];

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "put_bw",
        .title = "put bandwidth: putmem_nbi flood + quiet, blocking putmem",
        .columns = "size:B bandwidth_MBps:MB/s blocking_MBps:MB/s window: iterations: valid:",
        .min_size = 1, .max_size = MAX_SIZE,
        BENCH_SWEEP_BW,
        .windows = "64", .min_pes = 2,
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);
    bench_set_global_pool(&b, global_pool, sizeof global_pool);

    size_t max = b.opt.max_size;
    char *sbuf = bench_sym_alloc(&b, max);
    char *rbuf = bench_sym_alloc(&b, max + b.opt.skew) + b.opt.skew;
    long w = b.opt.windows[0];

    BENCH_FOR_SIZES(&b, size) {
        if (!bench_point(&b, "size=%zu", size))
            continue;
        long iters = bench_iters(&b, size), warm = bench_warmup(&b, iters);
        long nwin = (iters + w - 1) / w;
        double bw = 0, bwb = 0;
        bool ok = true;

        bench_fill(sbuf, size, (unsigned)(size + b.me));
        memset(rbuf, 0, size);
        shmem_barrier_all();
        if (b.me == 0) {
            for (long i = 0; i < warm; i++)
                shmem_putmem_nbi(rbuf, sbuf, size, 1);
            shmem_quiet();
            double t0 = bench_now_us();
            for (long k = 0; k < nwin; k++) {
                for (long i = 0; i < w; i++)
                    shmem_putmem_nbi(rbuf, sbuf, size, 1);
                shmem_quiet();
            }
            bw = (double)size * (double)(nwin * w) / (bench_now_us() - t0);

            t0 = bench_now_us();
            for (long i = 0; i < iters; i++)
                shmem_putmem(rbuf, sbuf, size, 1);
            shmem_quiet();
            bwb = (double)size * (double)iters / (bench_now_us() - t0);
        }
        shmem_barrier_all();
        if (b.me == 1)
            ok = bench_check(rbuf, size, (unsigned)(size + 0));
        ok = bench_all_ok(&b, ok);

        bench_row_begin(&b);
        bench_col_int(&b, "size", (long long)size);
        bench_col_num(&b, "bandwidth_MBps", bw);
        bench_col_num(&b, "blocking_MBps", bwb);
        bench_col_int(&b, "window", w);
        bench_col_int(&b, "iterations", nwin * w);
        bench_col_bool(&b, "valid", ok);
        bench_row_end(&b);
    }
    return bench_fini(&b, NULL);
}
