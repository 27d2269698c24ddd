/*
 * footprint - the memory prong, by the published method: a hello world that
 * calls shmem_barrier_all and shmem_collect, run with a 256 MiB symmetric
 * heap (the runner sets SHMEM_SYMMETRIC_SIZE and SMA_SYMMETRIC_SIZE, the
 * names Shimmer and Open MPI read), at growing PE counts.
 *
 * After the collect, while every PE is still alive, each PE reads its peak
 * resident set (VmHWM), its resident set (VmRSS) and its proportional set
 * (Pss of /proc/self/smaps_rollup: a page mapped by k processes counts 1/k
 * in each, so the PEs' shared heaps, libraries and the launcher's segments
 * are counted once over the job; Pss_Shmem is the part in shared memory).
 * One row per launch: mean and max over the PEs, and the job's total PSS.
 * The data check: every PE's collect result holds every PE's number.
 */
#include "bench.h"

#include <stdlib.h>

static long psync[SHMEM_COLLECT_SYNC_SIZE];
static long mine;

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "footprint",
        .title = "memory: hello + barrier_all + collect, per-PE peak RSS and PSS",
        .columns = "npes: peak_rss_mean_kib:KiB peak_rss_max_kib:KiB rss_max_kib:KiB "
                   "pss_mean_kib:KiB pss_max_kib:KiB pss_shmem_mean_kib:KiB pss_total_kib:KiB",
        .min_size = 0, .max_size = 0, .iters = 1,
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    long *all = shmem_malloc((size_t)b.npes * sizeof(long));
    if (!all)
        bench_die(&b, "shmem_malloc of %d longs failed", b.npes);
    mine = b.me;
    shmem_barrier_all();
    bench_point(&b, "npes=%d", b.npes);
    shmem_collect64(all, &mine, 1, 0, 0, b.npes, psync);
    bool ok = true;
    for (int pe = 0; pe < b.npes; pe++)
        ok = ok && all[pe] == pe;
    shmem_barrier_all();

    /* every PE measures while all are alive, then PE 0 gathers */
    double hwm = (double)bench_proc_kib("/proc/self/status", "VmHWM");
    double rss = (double)bench_proc_kib("/proc/self/status", "VmRSS");
    double pss = (double)bench_proc_kib("/proc/self/smaps_rollup", "Pss");
    double pss_shmem = (double)bench_proc_kib("/proc/self/smaps_rollup", "Pss_Shmem");
    shmem_barrier_all();
    double *v[4];
    for (int k = 0; k < 4; k++)
        v[k] = b.me == 0 ? calloc((size_t)b.npes, sizeof(double)) : NULL;
    bench_gather(&b, hwm, v[0]);
    bench_gather(&b, rss, v[1]);
    bench_gather(&b, pss, v[2]);
    bench_gather(&b, pss_shmem, v[3]);
    ok = bench_all_ok(&b, ok);
    if (b.me == 0) {
        double sum[4] = {0}, max[4] = {0};
        for (int k = 0; k < 4; k++)
            for (int pe = 0; pe < b.npes; pe++) {
                sum[k] += v[k][pe];
                max[k] = v[k][pe] > max[k] ? v[k][pe] : max[k];
            }
        bench_row_begin(&b);
        bench_col_int(&b, "npes", b.npes);
        bench_col_num(&b, "peak_rss_mean_kib", sum[0] / b.npes);
        bench_col_num(&b, "peak_rss_max_kib", max[0]);
        bench_col_num(&b, "rss_max_kib", max[1]);
        bench_col_num(&b, "pss_mean_kib", sum[2] / b.npes);
        bench_col_num(&b, "pss_max_kib", max[2]);
        bench_col_num(&b, "pss_shmem_mean_kib", sum[3] / b.npes);
        bench_col_num(&b, "pss_total_kib", sum[2]);
        bench_col_bool(&b, "valid", ok);
        bench_row_end(&b);
    }
    for (int k = 0; k < 4; k++)
        free(v[k]);
    shmem_free(all);
    return bench_fini(&b, NULL);
}
