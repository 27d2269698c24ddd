/* mn_bench.c -- the three remote-path figures, measured the way
 * ucx_perftest measures its UCP tests, with plain OpenSHMEM calls (so the
 * same source builds against Shimmer and Open MPI's OSHMEM):
 *   put_lat  8-byte put ping-pong: shmem_long_p of a counter the peer waits
 *            for, then the peer answers the same way; half the round trip
 *            (ucx_perftest -t ucp_put_lat: a put whose last byte the peer polls)
 *   fadd     blocking 64-bit fetch_add round trip (ucx_perftest -t ucp_fadd)
 *   put_bw   1 MiB shmem_putmem_nbi stream, quiet every WINDOW puts, MiB/s
 *            (ucx_perftest -t ucp_put_bw -s 1048576: a window of puts)
 * PE 0 and PE n-1 are timed (on different hosts when one PE runs per host);
 * other PEs only join the barriers.  Latencies are reported as the median
 * of per-iteration times (ucx_perftest's "50.0%ile" column; robust against
 * a loaded machine) and as the average; bandwidth as the overall rate.
 * Output: one line per figure, "name value unit". */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BW_SIZE (1u << 20)
#define WINDOW 16

static long flag;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, long n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return v[n / 2];
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    long bw_iters = argc > 2 ? atol(argv[2]) : 1000;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), peer = me == 0 ? n - 1 : 0;
    int active = me == 0 || me == n - 1;
    long *ctr = shmem_calloc(1, sizeof(long));
    char *buf = shmem_malloc(BW_SIZE);
    char *src = malloc(BW_SIZE);
    double t0, lat = 0, fadd = 0, bw = 0, lat_med = 0, fadd_med = 0;
    double *samples = malloc((size_t)iters * sizeof(double));

    memset(src, me, BW_SIZE);
    if (n < 2) {
        if (me == 0) fprintf(stderr, "mn_bench: needs 2 PEs\n");
        shmem_finalize();
        return 77;
    }
    /* put_lat: warm-up, then the timed ping-pong */
    for (int pass = 0; pass < 2; pass++) {
        long count = pass == 0 ? iters / 10 + 10 : iters;
        flag = 0;
        shmem_barrier_all();
        t0 = now_us();
        if (active) {
            for (long i = 1; i <= count; i++) {
                if (me == 0) {
                    double s = now_us();
                    shmem_long_p(&flag, i, peer);
                    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, i);
                    samples[(i - 1) % iters] = (now_us() - s) / 2.0;
                } else {
                    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, i);
                    shmem_long_p(&flag, i, peer);
                }
            }
        }
        lat = (now_us() - t0) / (2.0 * (double)count);
    }
    if (me == 0) {
        lat_med = median(samples, iters);
    }
    shmem_barrier_all();
    /* fadd */
    if (me == 0) {
        for (long i = 0; i < iters / 10 + 10; i++) {
            (void)shmem_long_atomic_fetch_add(ctr, 1, peer);
        }
        t0 = now_us();
        for (long i = 0; i < iters; i++) {
            double s = now_us();
            (void)shmem_long_atomic_fetch_add(ctr, 1, peer);
            samples[i] = now_us() - s;
        }
        fadd = (now_us() - t0) / (double)iters;
        fadd_med = median(samples, iters);
    }
    shmem_barrier_all();
    /* put_bw */
    if (me == 0) {
        for (long i = 0; i < WINDOW * 4; i++) {
            shmem_putmem_nbi(buf, src, BW_SIZE, peer);
        }
        shmem_quiet();
        t0 = now_us();
        for (long i = 0; i < bw_iters; i++) {
            shmem_putmem_nbi(buf, src, BW_SIZE, peer);
            if ((i + 1) % WINDOW == 0) {
                shmem_quiet();
            }
        }
        shmem_quiet();
        bw = (double)BW_SIZE * (double)bw_iters / (now_us() - t0) * 1e6 / (1024.0 * 1024.0);
    }
    shmem_barrier_all();
    if (me == 0) {
        printf("put_lat %.3f us\nfadd %.3f us\nput_lat_avg %.3f us\nfadd_avg %.3f us\n"
               "put_bw %.1f MiB/s\n", lat_med, fadd_med, lat, fadd, bw);
        fflush(stdout);
    }
    shmem_finalize();
    return 0;
}
