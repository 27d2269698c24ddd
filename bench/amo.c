/*
 * amo - atomic latency and rate, PE 0 operating on a variable of PE 1
 * (osu_oshm_atomics: "Million ops/s" and "Latency (us)" per operation).
 * For each operation: back-to-back blocking calls, one quiet at the end;
 * latency = time / calls, rate = calls / time.  For the fetching ones that
 * is the round trip; for add and set it is the issue cost.
 * -x picks operations; -T int|long the type; --global a static target.
 * Results are checked once after timing (returned values and final value).
 * Note: nothing else touches PE 1's variable during the plain runs, so after
 * the first call its cache line may stay near PE 0; fetch_add_contended is
 * the variant where every call has to fetch the line from the other core.
 */
#include "bench.h"

#include <string.h>

static char global_pool[4 * 4096];

/* fetch_add_contended: PEs 0 and 1 both fetch_add PE 1's variable at once,
 * so the line moves between the two cores on every call (compare with the
 * "contended" row of limits/atomic_pingpong). */
enum { FETCH_ADD, ADD, COMPARE_SWAP, SWAP, FETCH, SET, CONTENDED, NOPS };
static const char *const ops[NOPS] = {"fetch_add", "add", "compare_swap", "swap", "fetch", "set",
                                      "fetch_add_contended"};

/* Runs warm + iters calls of op on PE 1's *target; returns microseconds of the last iters.
 * The op is a loop-invariant switch, so the timed loop holds the call and a
 * predicted branch only. */
#define DEFINE_RUN(T, TN)                                                                  \
    static double run_##TN(int op, T *target, long warm, long iters, bool *ok)    \
    {                                                                                      \
        long n = warm + iters;                                                             \
        T expect = (T)n, got = 0, sink = 0;                                                \
        double t0 = 0;                                                                     \
        bool fetch = op == FETCH;                                                          \
        for (long i = 0; i < n; i++) {                                                     \
            if (i == warm)                                                                 \
                t0 = bench_now_us();                                                       \
            switch (op) {                                                                  \
            case FETCH_ADD:                                                                \
                got = shmem_##TN##_atomic_fetch_add(target, 1, 1);                         \
                *ok = *ok && got == (T)i;                                                  \
                break;                                                                     \
            case ADD:                                                                      \
                shmem_##TN##_atomic_add(target, 1, 1);                                     \
                break;                                                                     \
            case COMPARE_SWAP:                                                             \
                got = shmem_##TN##_atomic_compare_swap(target, (T)i, (T)(i + 1), 1);      \
                *ok = *ok && got == (T)i;                                                  \
                break;                                                                     \
            case SWAP:                                                                     \
                got = shmem_##TN##_atomic_swap(target, (T)(i + 1), 1);                     \
                *ok = *ok && got == (T)i;                                                  \
                break;                                                                     \
            case FETCH:                                                                    \
                sink += shmem_##TN##_atomic_fetch(target, 1);                              \
                break;                                                                     \
            case SET:                                                                      \
                shmem_##TN##_atomic_set(target, (T)(i + 1), 1);                            \
                break;                                                                     \
            default: /* CONTENDED: the other PE adds too; values only grow */              \
                sink = shmem_##TN##_atomic_fetch_add(target, 1, 1);                        \
                *ok = *ok && sink >= got;                                                  \
                got = sink;                                                                \
                break;                                                                     \
            }                                                                              \
        }                                                                                  \
        shmem_quiet();                                                                     \
        double us = bench_now_us() - t0;                                                   \
        if (fetch)                                                                         \
            *ok = *ok && sink == (T)(42 * n);                                              \
        if (op != CONTENDED) {                                                             \
            got = shmem_##TN##_atomic_fetch(target, 1);                                    \
            *ok = *ok && got == (fetch ? (T)42 : expect);                                  \
        }                                                                                  \
        return us;                                                                         \
    }
DEFINE_RUN(int, int)
DEFINE_RUN(long, long)

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        .name = "amo",
        .title = "atomics: latency and rate of blocking fetch_add, add, compare_swap, swap, fetch, set",
        .columns = "op: dtype: latency_us:us mops:Mops/s iterations: valid:",
        .min_size = 8, .max_size = 8,
        .iters = 50000, .min_iters = 20,
        .ops = "fetch_add,add,compare_swap,swap,fetch,set,fetch_add_contended", .min_pes = 2,
    };
    bench_t b;
    bench_init(&b, &info, argc, argv);
    bench_set_global_pool(&b, global_pool, sizeof global_pool);
    bool is_int = !strcmp(b.opt.type, "int");
    if (!is_int && strcmp(b.opt.type, "long"))
        bench_die(&b, "-T %s: only int and long", b.opt.type);
    long *target = bench_sym_alloc(&b, sizeof(long));
    long iters = bench_iters(&b, 0), warm = bench_warmup(&b, iters);

    for (int k = 0; k < NOPS; k++) {
        const char *op = ops[k];
        if (!bench_has_op(&b, op))
            continue;
        if (!bench_point(&b, "op=%s dtype=%s", op, b.opt.type))
            continue;
        bool fetch = k == FETCH;
        if (is_int)
            *(int *)target = fetch ? 42 : 0;
        else
            *target = fetch ? 42 : 0;
        shmem_barrier_all();
        double us = 0;
        bool ok = true;
        if (b.me == 0 || (k == CONTENDED && b.me == 1))
            us = is_int ? run_int(k, (int *)target, warm, iters, &ok)
                        : run_long(k, target, warm, iters, &ok);
        shmem_barrier_all();
        if (k == CONTENDED && b.me == 1)
            ok = ok && (is_int ? *(int *)target == (int)(2 * (warm + iters)) : *target == 2 * (warm + iters));
        ok = bench_all_ok(&b, ok);

        bench_row_begin(&b);
        bench_col_str(&b, "op", op);
        bench_col_str(&b, "dtype", b.opt.type);
        bench_col_num(&b, "latency_us", us / (double)iters);
        bench_col_num(&b, "mops", (double)iters / us);
        bench_col_int(&b, "iterations", iters);
        bench_col_bool(&b, "valid", ok);
        bench_row_end(&b);
    }
    return bench_fini(&b, NULL);
}
