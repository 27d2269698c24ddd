/*
 * get_bw - get flood bandwidth, PE 0 reading from PE 1:
 *   bandwidth_MBps  windows of W shmem_getmem_nbi then shmem_quiet, repeated
 *                   (a flood then one completion, as GASNet-EX testlarge);
 *   blocking_MBps   back-to-back blocking shmem_getmem.
 * MB = 1e6 bytes, as OSU.  Every get of a point reads the same buffer.
 */
#include "bench.h"

#include <string.h>

#define MAX_SIZE ((size_t)4 << 20)
static char global_pool[2 * MAX_SIZE + 2 * 4096];

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "get_bw",
        .title = "get bandwidth: getmem_nbi flood + quiet, blocking getmem",
        .columns = "size:B bandwidth_MBps:MB/s blocking_MBps:MB/s window: iterations: valid:",
        .min_size = 1, .max_size = MAX_SIZE,
        BENCH_SWEEP_BW,
        .windows = "64", .min_pes = 2,
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);
    bench_set_global_pool(&b, global_pool, sizeof global_pool);

    size_t max = b.opt.max_size;
    char *sbuf = bench_sym_alloc(&b, max);   /* read remotely */
    char *rbuf = bench_sym_alloc(&b, max + b.opt.skew) + b.opt.skew;   /* local destination */
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
                shmem_getmem_nbi(rbuf, sbuf, size, 1);
            shmem_quiet();
            double t0 = bench_now_us();
            for (long k = 0; k < nwin; k++) {
                for (long i = 0; i < w; i++)
                    shmem_getmem_nbi(rbuf, sbuf, size, 1);
                shmem_quiet();
            }
            bw = (double)size * (double)(nwin * w) / (bench_now_us() - t0);
            ok = bench_check(rbuf, size, (unsigned)(size + 1));
            memset(rbuf, 0, size);

            t0 = bench_now_us();
            for (long i = 0; i < iters; i++)
                shmem_getmem(rbuf, sbuf, size, 1);
            bwb = (double)size * (double)iters / (bench_now_us() - t0);
            ok = ok && bench_check(rbuf, size, (unsigned)(size + 1));
        }
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
