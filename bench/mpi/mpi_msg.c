/*
 * mpi_msg - MPI message passing between ranks 0 and 1:
 *   bandwidth_MBps  uni-directional, IMB-MPI1 Uniband / osu_bw: rank 1
 *                   posts W MPI_Irecv, rank 0 W MPI_Isend, both MPI_Waitall,
 *                   then rank 1 acknowledges with a 0-byte message; repeated
 *                   (the pattern of put_bw's window of nbi puts + quiet);
 *   latency_us      ping-pong, IMB PingPong / osu_latency: MPI_Send, MPI_Recv
 *                   the answer; half of the round trip.
 * Every message of a point uses the same send and receive buffers, as
 * OSU's.  MB = 1e6 bytes.  Built with mpicc (-DBENCH_MPI), run with mpirun.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

static double uniband(bench_t *b, char *sbuf, char *rbuf, size_t size, MPI_Request *req,
                      long nwin, long w)
{
    double t0 = bench_now_us();
    for (long k = 0; k < nwin; k++) {
        for (long i = 0; i < w; i++) {
            if (b->me == 0)
                MPI_Isend(sbuf, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[i]);
            else
                MPI_Irecv(rbuf, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &req[i]);
        }
        MPI_Waitall((int)w, req, MPI_STATUSES_IGNORE);
        if (b->me == 0)
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
    return bench_now_us() - t0;
}

static double pingpong(bench_t *b, char *sbuf, char *rbuf, size_t size, long iters)
{
    int peer = 1 - b->me;
    double t0 = bench_now_us();
    for (long i = 0; i < iters; i++) {
        if (b->me == 0) {
            MPI_Send(sbuf, (int)size, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)size, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)size, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
        }
    }
    return (bench_now_us() - t0) / (2.0 * (double)iters);
}

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "mpi_msg",
        .title = "MPI Isend/Irecv uni-directional bandwidth (windows + ack), Send/Recv ping-pong",
        .columns = "size:B bandwidth_MBps:MB/s latency_us:us window: iterations: valid:",
        .min_size = 8, .max_size = (size_t)4 << 20,
        BENCH_SWEEP_BW,
        .windows = "64", .min_pes = 2,
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);

    size_t max = b.opt.max_size;
    char *sbuf = bench_sym_alloc(&b, max);
    char *rbuf = bench_sym_alloc(&b, max);
    long w = b.opt.windows[0];
    MPI_Request *req = calloc((size_t)w, sizeof *req);
    if (!req)
        bench_die(&b, "calloc of %ld requests failed", w);
    /* ranks 2.. only meet the others at barriers */
    bool active = b.me < 2;

    BENCH_FOR_SIZES(&b, size) {
        if (!bench_point(&b, "size=%zu", size))
            continue;
        long iters = bench_iters(&b, size), warm = bench_warmup(&b, iters);
        long nwin = (iters + w - 1) / w;
        double bw = 0, lat = 0;
        bool ok = true;

        bench_fill(sbuf, size, (unsigned)(size + b.me));
        memset(rbuf, 0, size);
        bench_barrier(&b);
        if (active) {
            uniband(&b, sbuf, rbuf, size, req, (warm + w - 1) / w, w);
            bw = (double)size * (double)(nwin * w) / uniband(&b, sbuf, rbuf, size, req, nwin, w);
            if (b.me == 1)
                ok = bench_check(rbuf, size, (unsigned)(size + 0));
            memset(rbuf, 0, size);
            pingpong(&b, sbuf, rbuf, size, warm);
            lat = pingpong(&b, sbuf, rbuf, size, iters);
            ok = ok && bench_check(rbuf, size, (unsigned)(size + (1 - b.me)));
        }
        ok = bench_all_ok(&b, ok);

        bench_row_begin(&b);
        bench_col_int(&b, "size", (long long)size);
        bench_col_num(&b, "bandwidth_MBps", bw);
        bench_col_num(&b, "latency_us", lat);
        bench_col_int(&b, "window", w);
        bench_col_int(&b, "iterations", nwin * w);
        bench_col_bool(&b, "valid", ok);
        bench_row_end(&b);
    }
    free(req);
    return bench_fini(&b, NULL);
}
