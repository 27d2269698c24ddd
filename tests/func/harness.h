/*
 * harness.h -- the multi-PE functional tests' helpers.  Tests are plain C
 * OpenSHMEM programs run under oshrun at several PE counts; exit status 0
 * pass, 1 fail, 77 skip.  A failed check prints where and what on the PE
 * that saw it and ends the whole job with status 1.
 */
#ifndef SHIMMER_TEST_HARNESS_H
#define SHIMMER_TEST_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#define TEST_SKIP 77

#include <stdarg.h>

static inline __attribute__((noreturn, format(printf, 4, 5))) void
test_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "FAIL [pe %d] %s:%d: %s: ", shmem_my_pe(), file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(NULL);
    shmem_global_exit(1);
}

/* An expression, so it also works inside comma lists. */
#define CHECK(_cond, ...) \
    ((_cond) ? (void)0 : test_fail(__FILE__, __LINE__, #_cond, __VA_ARGS__))

/* Compares two integers of any type, printing both on failure. */
#define CHECK_EQ(_got, _want) \
    CHECK((_got) == (_want), "got %lld, want %lld", (long long)(_got), (long long)(_want))

/* Says what ran (PE 0 only) and passes. */
static inline int test_pass(const char *name)
{
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        printf("PASS %s on %d PE(s)\n", name, shmem_n_pes());
    }
    shmem_finalize();
    return 0;
}

/* shmem_init_thread(SHMEM_THREAD_MULTIPLE): 1, or 0 (after shmem_finalize)
 * when the library provides less; the test then returns TEST_SKIP. */
static inline int test_init_multiple(void)
{
    int provided;

    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    if (provided != SHMEM_THREAD_MULTIPLE) {
        shmem_finalize();
        return 0;
    }
    return 1;
}

/* Deterministic byte pattern of (pe, index, seed), for data checks. */
static inline unsigned char test_byte(int pe, size_t index, unsigned seed)
{
    uint64_t x = ((uint64_t)pe << 40) ^ ((uint64_t)index * 0x9E3779B97F4A7C15ull) ^ seed;
    x ^= x >> 29;
    return (unsigned char)(x * 0xBF58476D1CE4E5B9ull >> 56);
}

#endif
