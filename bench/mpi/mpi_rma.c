/*
 * mpi_rma - MPI one-sided put and get, rank 0 to and from rank 1's window,
 * IMB-RMA's passive-target method (Unidir_put, Unidir_get): rank 0 opens
 * one MPI_Win_lock(MPI_LOCK_SHARED) epoch on rank 1 per point, and
 *   bandwidth_MBps  "aggregate" mode: windows of W MPI_Put / MPI_Get, then
 *                   one MPI_Win_flush, repeated -- the pattern of put_bw's
 *                   and get_bw's nbi flood + shmem_quiet;
 *   latency_us      "non-aggregate" mode: MPI_Put / MPI_Get, then
 *                   MPI_Win_flush, each -- a blocking operation, as put_lat's
 *                   put + quiet and get_lat's getmem.
 * The window comes from MPI_Win_allocate, so an MPI that can map its peers'
 * memory (one node) may; every operation of a point uses the same buffers.
 * The operations address the window at the displacement that makes rank
 * 1's address page-aligned, as the OpenSHMEM drivers' symmetric buffers are
 * (Open MPI's osc sm starts a window 264 bytes into a page: a destination
 * 8 bytes past a cache line, with every vector store split in two).
 * MB = 1e6 bytes.  Built with mpicc (-DBENCH_MPI), run with mpirun.
 */
#include "bench.h"

#include <string.h>

static double put_or_get(bool put, char *local, size_t size, MPI_Win win, MPI_Aint disp,
                         long nwin, long w)
{
    double t0 = bench_now_us();
    for (long k = 0; k < nwin; k++) {
        for (long i = 0; i < w; i++) {
            if (put)
                MPI_Put(local, (int)size, MPI_BYTE, 1, disp, (int)size, MPI_BYTE, win);
            else
                MPI_Get(local, (int)size, MPI_BYTE, 1, disp, (int)size, MPI_BYTE, win);
        }
        MPI_Win_flush(1, win);
    }
    return bench_now_us() - t0;
}

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "mpi_rma",
        .title = "MPI RMA put/get, passive target: aggregate (W ops + flush), non-aggregate (op + flush)",
        .columns = "op: size:B bandwidth_MBps:MB/s latency_us:us window: iterations: valid:",
        .min_size = 8, .max_size = (size_t)4 << 20,
        BENCH_SWEEP_BW,
        .windows = "64", .ops = "put,get", .min_pes = 2,
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);

    size_t max = b.opt.max_size;
    char *local = bench_sym_alloc(&b, max);
    char *base = NULL;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)max + 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    /* rank 1's page-aligned displacement (its mapping elsewhere keeps the
     * offset in the page: a shared segment is mapped at page boundaries) */
    long disp = (long)(-(uintptr_t)base & 4095);
    MPI_Bcast(&disp, 1, MPI_LONG, 1, MPI_COMM_WORLD);
    char *mine = base + (-(uintptr_t)base & 4095);
    long w = b.opt.windows[0];

    for (int put = 1; put >= 0; put--) {
        if (!bench_has_op(&b, put ? "put" : "get"))
            continue;
        BENCH_FOR_SIZES(&b, size) {
            if (!bench_point(&b, "op=%s size=%zu", put ? "put" : "get", size))
                continue;
            long iters = bench_iters(&b, size), warm = bench_warmup(&b, iters);
            long nwin = (iters + w - 1) / w;
            double bw = 0, lat = 0;
            bool ok = true;
            /* the data written or read: the origin's pattern for a put, the target's for a get */
            unsigned seed = (unsigned)(size + (put ? 0 : 1));

            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, b.me, 0, win);
            memset(mine, 0, size);
            if (!put && b.me == 1)
                bench_fill(mine, size, seed);
            MPI_Win_unlock(b.me, win);
            if (b.me == 0) {
                if (put)
                    bench_fill(local, size, seed);
                else
                    memset(local, 0, size);
            }
            bench_barrier(&b);
            if (b.me == 0) {
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                put_or_get(put, local, size, win, disp, 1, warm);
                bw = (double)size * (double)(nwin * w) /
                     put_or_get(put, local, size, win, disp, nwin, w);
                put_or_get(put, local, size, win, disp, warm, 1);
                lat = put_or_get(put, local, size, win, disp, iters, 1) / (double)iters;
                MPI_Win_unlock(1, win);
                if (!put)
                    ok = bench_check(local, size, seed);
            }
            bench_barrier(&b);
            if (put && b.me == 1) {
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                ok = bench_check(mine, size, seed);
                MPI_Win_unlock(1, win);
            }
            ok = bench_all_ok(&b, ok);

            bench_row_begin(&b);
            bench_col_str(&b, "op", put ? "put" : "get");
            bench_col_int(&b, "size", (long long)size);
            bench_col_num(&b, "bandwidth_MBps", bw);
            bench_col_num(&b, "latency_us", lat);
            bench_col_int(&b, "window", w);
            bench_col_int(&b, "iterations", nwin * w);
            bench_col_bool(&b, "valid", ok);
            bench_row_end(&b);
        }
    }
    MPI_Win_free(&win);
    return bench_fini(&b, NULL);
}
