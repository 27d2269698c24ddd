/*
 * hello - start-up and memory: a hello world that reports, per PE, the time
 * its shmem_init took and its peak resident set size (VmHWM) just before
 * shmem_finalize.  The wall time of the whole `oshrun -n N hello` is taken
 * by the runner (bench/runner.py) around the launch.
 */
#include "bench.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "hello",
        .title = "start-up and memory: hello world, per-PE init time and peak RSS",
        .columns = "pe: npes: init_ms:ms peak_rss_kib:KiB rss_kib:KiB",
        .min_size = 0, .max_size = 0, .iters = 1,
    };
    bench_t b;
    double t0 = bench_now_us();
    bench_init(&b, &info, argc, argv);
    double init_ms = (bench_now_us() - t0) / 1e3;
    if (b.opt.out_path)
        printf("hello from PE %d of %d\n", b.me, b.npes);

    double *hwm = b.me == 0 ? calloc((size_t)b.npes, sizeof(double)) : NULL;
    double *rss = b.me == 0 ? calloc((size_t)b.npes, sizeof(double)) : NULL;
    double *ini = b.me == 0 ? calloc((size_t)b.npes, sizeof(double)) : NULL;
    bench_point(&b, "npes=%d", b.npes);
    bench_gather(&b, init_ms, ini);
    bench_gather(&b, (double)bench_proc_kib("/proc/self/status", "VmRSS"), rss);
    bench_gather(&b, (double)bench_proc_kib("/proc/self/status", "VmHWM"), hwm);
    for (int pe = 0; b.me == 0 && pe < b.npes; pe++) {
        bench_row_begin(&b);
        bench_col_int(&b, "pe", pe);
        bench_col_int(&b, "npes", b.npes);
        bench_col_num(&b, "init_ms", ini[pe]);
        bench_col_int(&b, "peak_rss_kib", (long long)hwm[pe]);
        bench_col_int(&b, "rss_kib", (long long)rss[pe]);
        bench_row_end(&b);
    }
    free(hwm);
    free(rss);
    free(ini);
    return bench_fini(&b, NULL);
}
