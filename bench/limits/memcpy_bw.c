/*
 * memcpy_bw - machine limit: single-core memcpy bandwidth by size, one
 * process, the same source and destination buffers reused at every size
 * (as the put and get benchmarks reuse theirs).  bandwidth in MB/s (1e6),
 * latency_us = time of one copy.  Built with plain cc (-DBENCH_NO_SHMEM).
 */
#include "bench.h"

#include <string.h>

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "memcpy_bw",
        .title = "machine limit: single-core memcpy by size",
        .columns = "size:B bandwidth_MBps:MB/s latency_us:us iterations: valid:",
        .min_size = 1, .max_size = (size_t)4 << 20,
        .iters = 100000, .min_iters = 32, .budget = (size_t)128 << 20,
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);
    char *src = bench_sym_alloc(&b, b.opt.max_size);
    char *dst = bench_sym_alloc(&b, b.opt.max_size);

    BENCH_FOR_SIZES(&b, size) {
        if (!bench_point(&b, "size=%zu", size))
            continue;
        long iters = bench_iters(&b, size), warm = bench_warmup(&b, iters);
        bench_fill(src, size, (unsigned)size);
        memset(dst, 0, size);
        for (long i = 0; i < warm; i++) {
            memcpy(dst, src, size);
            __asm__ volatile("" ::: "memory");   /* keep every copy */
        }
        double t0 = bench_now_us();
        for (long i = 0; i < iters; i++) {
            memcpy(dst, src, size);
            __asm__ volatile("" ::: "memory");
        }
        double us = bench_now_us() - t0;
        bench_row_begin(&b);
        bench_col_int(&b, "size", (long long)size);
        bench_col_num(&b, "bandwidth_MBps", (double)size * (double)iters / us);
        bench_col_num(&b, "latency_us", us / (double)iters);
        bench_col_int(&b, "iterations", iters);
        bench_col_bool(&b, "valid", bench_check(dst, size, (unsigned)size));
        bench_row_end(&b);
    }
    return bench_fini(&b, NULL);
}
