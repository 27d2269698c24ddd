/*
 * bench_quantile_test.c -- unit test of the harness's bench_quantile
 * (bench/bench.c), which req.c's medians and quartiles and wait.c's median
 * and p90 take: interpolated between neighbours, 0 for no samples, and v
 * left sorted (wait.c reads its largest lateness from v[n - 1], req.c the
 * ends of its interval from v); and bench_span_us, the span of threads'
 * own timings that msg_rate.c and req.c take.  Built with the plain
 * harness; no launcher.
 */
#include <stdio.h>

#include "bench.h"

static int failures;

static void expect_near(double got, double want, const char *what)
{
    if (got - want > 1e-12 || want - got > 1e-12) {
        fprintf(stderr, "bench_quantile: %s is %.17g, want %.17g\n", what, got, want);
        failures++;
    }
}

int main(void)
{
    double none[2] = {9, 7}; /* none + 1: no samples, one before them */
    double one[1] = {5};
    double even[4] = {4, 1, 3, 2};
    double odd[3] = {5, 1, 3};

    expect_near(bench_quantile(none + 1, 0, 0.5), 0, "the median of no samples");
    expect_near(none[1], 7, "a sample past n");
    expect_near(bench_quantile(one, 1, 0.9), 5, "p90 of one sample");
    expect_near(bench_quantile(even, 4, 0.5), 2.5, "the median of 1 2 3 4");
    expect_near(bench_quantile(even, 4, 0.25), 1.75, "q1 of 1 2 3 4");
    expect_near(bench_quantile(even, 4, 0.9), 3.7, "p90 of 1 2 3 4");
    expect_near(bench_quantile(even, 4, 0), 1, "the least of 1 2 3 4");
    expect_near(bench_quantile(even, 4, 1), 4, "the largest of 1 2 3 4");
    expect_near(bench_quantile(odd, 3, 0.5), 3, "the median of 1 3 5");
    for (int i = 0; i < 3; i++) {
        expect_near(odd[i], 1 + 2 * i, "v sorted after the call");
    }

    bench_span_t span = {0};
    expect_near(bench_span_us(&span), 0, "the span of no threads");
    bench_span_add(&span, 5, 7);
    bench_span_add(&span, 3, 6); /* the earliest start, not the first added */
    bench_span_add(&span, 4, 9);
    expect_near(bench_span_us(&span), 6, "the span of [5,7] [3,6] [4,9]");
    if (failures == 0) {
        printf("PASS bench_quantile, bench_span\n");
    }
    return failures != 0;
}
