/*
 * daxpy -- y = a*x + y on vectors spread over the PEs in blocks, with the
 * blocks moved by get and put.
 *
 * x and y are block-distributed; in every pass PE p updates the block that
 * PE p+1 owns (every byte crosses between PEs, except on one PE): chunk by
 * chunk it gets x and y from the owner, computes, and puts y back.  A
 * barrier ends each pass.  The values are small multiples of 1/4 and a = 2,
 * so every sum is exact: after R passes y must equal y0 + R*a*x to the bit,
 * element by element (the serial answer).  Rate: bytes moved (x and y in,
 * y out: 24 bytes per element) per second.
 *
 * Variant `direct` moves the same chunks with memcpy through shmem_ptr
 * instead of get and put: the kernel as a library with no cost of its own
 * would run it, where the implementation maps the owner's memory (PEs of
 * one node).  bench/ takes its time as the kernel's floor on one node.
 */
#include "app.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK 8192                     /* doubles per get/put: 64 KiB */
#define A_SCALE 2.0

static double x0_at(long i) { return (double)(i % 1024) * 0.25; }
static double y0_at(long i) { return (double)(i % 777) * 0.5; }

int main(int argc, char **argv)
{
    app_t a = {
        .name = "daxpy",
        .title = "distributed y = a*x + y, blocks moved by get and put",
        .rate_unit = "GB/s",
        .size_help = "log2 of the vectors' length (all PEs together)",
        .iter_help = "passes over the vectors",
        .variants = "getput,direct",
    };
    app_init(&a, argc, argv);
    int me = a.me, npes = a.npes;
    int log_n = (int)app_pick(&a, 14, 23, 24);
    long passes = app_pick_iters(&a, 3, 40, 40);
    if (log_n < 1 || log_n > 36)
        app_die(&a, "-S %d: the vectors' log2 length must be 1..36", log_n);
    long n = 1L << log_n;
    long max_local = app_block_len(n, npes, 0);
    long my_lo = app_block_lo(n, npes, me), my_len = app_block_len(n, npes, me);
    double *x = app_malloc(&a, (size_t)max_local * sizeof(double), "x");
    double *y = app_malloc(&a, (size_t)max_local * sizeof(double), "y");
    double *xb = app_alloc(&a, CHUNK * sizeof(double), "a chunk of x");
    double *yb = app_alloc(&a, CHUNK * sizeof(double), "a chunk of y");
    app_say(&a, "class %s, %d PEs: 2 vectors of 2^%d doubles (%.1f MiB each), %ld passes",
            app_class_name(&a), npes, log_n, (double)n * 8 / 1048576.0, passes);

    for (long i = 0; i < my_len; i++) {
        x[i] = x0_at(my_lo + i);
        y[i] = y0_at(my_lo + i);
    }

    int owner = (me + 1) % npes;
    long len = app_block_len(n, npes, owner);
    double *x_at = NULL, *y_at = NULL;   /* direct: the owner's x and y, mapped */
    if (a.variant[0] == 'd') {
        x_at = shmem_ptr(x, owner);
        y_at = shmem_ptr(y, owner);
        if (x_at == NULL || y_at == NULL)
            app_die(&a, "-V direct: shmem_ptr cannot reach PE %d's vectors; run the PEs on one "
                    "node of an implementation that maps them, or use -V getput", owner);
    }
    app_time_begin(&a);
    for (long r = 0; r < passes; r++) {
        for (long c = 0; c < len; c += CHUNK) {
            size_t m = (size_t)(len - c < CHUNK ? len - c : CHUNK);
            if (x_at) {
                memcpy(xb, &x_at[c], m * sizeof(double));
                memcpy(yb, &y_at[c], m * sizeof(double));
            } else {
                shmem_getmem(xb, &x[c], m * sizeof(double), owner);
                shmem_getmem(yb, &y[c], m * sizeof(double), owner);
            }
            for (size_t i = 0; i < m; i++)
                yb[i] = A_SCALE * xb[i] + yb[i];
            if (y_at)
                memcpy(&y_at[c], yb, m * sizeof(double));
            else
                shmem_putmem(&y[c], yb, m * sizeof(double), owner);
        }
        shmem_barrier_all();   /* the pass is complete everywhere before the next reads y */
    }
    app_time_end(&a);

    long wrong = 0;
    for (long i = 0; i < my_len; i++) {
        double want = y0_at(my_lo + i) + (double)passes * A_SCALE * x0_at(my_lo + i);
        wrong += memcmp(&y[i], &want, sizeof want) != 0;
    }
    wrong = app_sum_long(wrong);
    shmem_free(x);
    shmem_free(y);
    free(xb);
    free(yb);

    double bytes = 24.0 * (double)n * (double)passes;
    app_metric(&a, "gflops", "GFLOP/s", 2.0 * (double)n * (double)passes / a.elapsed / 1e9);
    return app_finish(&a, wrong == 0, bytes / a.elapsed / 1e9,
                      "%ld of %ld elements differ from y0 + %ld*a*x (exact arithmetic)", wrong, n,
                      passes);
}
