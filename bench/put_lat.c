/*
 * put_lat - put latency, PE 0 -> PE 1, three methods per size:
 *   latency_us   OSU's osu_oshm_put: back-to-back blocking shmem_putmem,
 *                one shmem_quiet at the end, time / iterations;
 *   put_quiet_us shmem_putmem + shmem_quiet every iteration (completion);
 *   pingpong_us  data-then-flag ping-pong: put data, fence, put flag; the
 *                peer waits on the flag and answers the same way; half of
 *                the round trip.
 * --global puts every buffer in a static array instead of the heap.
 * -T p: latency_us and put_quiet_us of shmem_TYPE_p instead of shmem_putmem,
 * TYPE the size's (char, short, int, long: 1, 2, 4, 8 B only); the
 * ping-pong stays the same.
 */
#include "bench.h"

#include <string.h>

#define MAX_SIZE ((size_t)4 << 20)
static char global_pool[2 * MAX_SIZE + 4 * 4096];

/* One shmem_TYPE_p of size bytes of src (-T p). */
static void p_once(void *dest, const void *src, size_t size)
{
    switch (size) {
    case 1: shmem_char_p(dest, *(const char *)src, 1); break;
    case 2: shmem_short_p(dest, *(const short *)src, 1); break;
    case 4: shmem_int_p(dest, *(const int *)src, 1); break;
    default: shmem_long_p(dest, *(const long *)src, 1); break;
    }
}

/* -T p's two loops: back-to-back p then one quiet, and p + quiet each;
 * microseconds per call in *lat and *pq. */
static void p_loops(char *rbuf, const char *sbuf, size_t size, long iters, long warm, double *lat,
                    double *pq)
{
    for (long i = 0; i < warm; i++)
        p_once(rbuf, sbuf, size);
    shmem_quiet();
    double t0 = bench_now_us();
    for (long i = 0; i < iters; i++)
        p_once(rbuf, sbuf, size);
    shmem_quiet();
    *lat = (bench_now_us() - t0) / (double)iters;
    for (long i = 0; i < warm; i++) {
        p_once(rbuf, sbuf, size);
        shmem_quiet();
    }
    t0 = bench_now_us();
    for (long i = 0; i < iters; i++) {
        p_once(rbuf, sbuf, size);
        shmem_quiet();
    }
    *pq = (bench_now_us() - t0) / (double)iters;
}

static double pingpong(bench_t *b, char *sbuf, char *rbuf, long *flag, size_t size,
                       long iters, long warm)
{
    int peer = 1 - b->me;
    double t0 = 0;
    *flag = 0;
    shmem_barrier_all();
    for (long i = 1; i <= iters + warm; i++) {
        if (i == warm + 1)
            t0 = bench_now_us();
        if (b->me == 0) {
            shmem_putmem(rbuf, sbuf, size, peer);
            shmem_fence();
            shmem_long_p(flag, i, peer);
            shmem_long_wait_until(flag, SHMEM_CMP_EQ, i);
        } else {
            shmem_long_wait_until(flag, SHMEM_CMP_EQ, i);
            shmem_putmem(rbuf, sbuf, size, peer);
            shmem_fence();
            shmem_long_p(flag, i, peer);
        }
    }
    double t = bench_now_us() - t0;
    shmem_barrier_all();
    return t / (2.0 * (double)iters);
}

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "put_lat",
        .title = "put latency: blocking putmem (OSU), put+quiet, data-then-flag ping-pong",
        .columns = "size:B latency_us:us put_quiet_us:us pingpong_us:us iterations: valid:",
        .min_size = 1, .max_size = MAX_SIZE,
        BENCH_SWEEP_LAT,
        .min_pes = 2,
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);
    bench_set_global_pool(&b, global_pool, sizeof global_pool);
    bool typed_p = !strcmp(b.opt.type, "p");
    if (!typed_p && strcmp(b.opt.type, "long")) /* long: the harness's default, putmem */
        bench_die(&b, "-T %s: the only variant is p (shmem_TYPE_p instead of shmem_putmem)",
                  b.opt.type);

    size_t max = b.opt.max_size;
    char *sbuf = bench_sym_alloc(&b, max);
    char *rbuf = bench_sym_alloc(&b, max);
    long *flag = bench_sym_alloc(&b, sizeof(long));

    /* PE 2.. idle: only the pair 0 <-> 1 is timed, as in OSU. */
    BENCH_FOR_SIZES(&b, size) {
        if (!bench_point(&b, "size=%zu", size))
            continue;
        long iters = bench_iters(&b, size), warm = bench_warmup(&b, iters);
        bool ok = true;
        double lat = 0, pq = 0, pp = 0;
        bool active = b.me < 2;

        bench_fill(sbuf, size, (unsigned)(size * 2 + b.me));
        memset(rbuf, 0, size);
        shmem_barrier_all();

        if (typed_p && size != 1 && size != 2 && size != 4 && size != 8)
            bench_die(&b, "-T p: size %zu has no shmem_TYPE_p; give sizes of 1, 2, 4 or 8 bytes",
                      size);
        if (b.me == 0 && typed_p) {
            p_loops(rbuf, sbuf, size, iters, warm, &lat, &pq);
        } else if (b.me == 0) { /* OSU method: back-to-back puts, one quiet. */
            for (long i = 0; i < warm; i++)
                shmem_putmem(rbuf, sbuf, size, 1);
            shmem_quiet();
            double t0 = bench_now_us();
            for (long i = 0; i < iters; i++)
                shmem_putmem(rbuf, sbuf, size, 1);
            shmem_quiet();
            lat = (bench_now_us() - t0) / (double)iters;

            for (long i = 0; i < warm; i++) {
                shmem_putmem(rbuf, sbuf, size, 1);
                shmem_quiet();
            }
            t0 = bench_now_us();
            for (long i = 0; i < iters; i++) {
                shmem_putmem(rbuf, sbuf, size, 1);
                shmem_quiet();
            }
            pq = (bench_now_us() - t0) / (double)iters;
        }
        shmem_barrier_all();
        if (b.me == 1)
            ok = bench_check(rbuf, size, (unsigned)(size * 2 + 0));
        memset(rbuf, 0, size);
        shmem_barrier_all();

        if (active)
            pp = pingpong(&b, sbuf, rbuf, flag, size, iters, warm);
        else
            pingpong(&b, sbuf, rbuf, flag, 0, 0, 0);    /* keeps barriers matched */
        if (active)
            ok = ok && bench_check(rbuf, size, (unsigned)(size * 2 + (1 - b.me)));
        ok = bench_all_ok(&b, ok);

        bench_row_begin(&b);
        bench_col_int(&b, "size", (long long)size);
        bench_col_num(&b, "latency_us", lat);
        bench_col_num(&b, "put_quiet_us", pq);
        bench_col_num(&b, "pingpong_us", pp);
        bench_col_int(&b, "iterations", iters);
        bench_col_bool(&b, "valid", ok);
        bench_row_end(&b);
    }
    return bench_fini(&b, NULL);
}
