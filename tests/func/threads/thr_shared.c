/* thr_shared.c -- SHMEM_THREAD_MULTIPLE: THREADS threads share one context
 * (the default one, then a shareable one from shmem_ctx_create) and mix,
 * towards the next PE, blocking and nbi puts of 8 to 192 bytes, adds,
 * request-handle puts and adds, blocking gets of what they just put,
 * fetches of their counters and quiets.  Behind the remote transport
 * (SHIMMER_REMOTE_PES) these records of all threads join the same
 * coalescing buffers (one per context and PE), which fill and leave while
 * the other threads append: each thread's data, counts and order must
 * survive.  argv[1] = iterations per thread. */
#include <pthread.h>
#include <shmemx.h>

#include "harness.h"

#define THREADS 4
#define WORDS 512   /* a thread's region at the next PE */
#define MAXW 24     /* longest put, in words */
#define HANDLE 64   /* words written through handles */
#define RING 128    /* iterations between a thread's quiets */

static long region[2][THREADS][WORDS];
static long hslots[2][THREADS][HANDLE];
static long counter[2][THREADS];
static long hcounter[2][THREADS];
static long iters = 2000;

typedef struct {
    int t, c;
    shmem_ctx_t ctx;
    long shadow[WORDS];       /* what region[c][t] at the next PE must hold */
    long ring[RING][MAXW];    /* nbi sources: untouched until the quiet */
    long hshadow[HANDLE];
} job_t;

static long val(int pe, int t, long i, long w)
{
    return (long)pe << 48 | (long)t << 40 | i << 8 | w;
}

static void *worker(void *arg)
{
    job_t *j = arg;
    int t = j->t, c = j->c, me = shmem_my_pe(), next = (me + 1) % shmem_n_pes();
    shmem_ctx_t ctx = j->ctx;
    shmemx_req_t req = SHMEMX_REQ_NULL;
    shmem_ctx_t probe; /* another context: sees only what completed */

    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &probe) == 0, "thread %d: ctx_create", t);
    for (long i = 0; i < iters; i++) {
        long n = 1 + (i * 7 + t) % MAXW, off = (i * 5 + t) % (WORDS - MAXW);
        long *src = j->ring[i % RING];
        for (long w = 0; w < n; w++) {
            src[w] = val(me, t, i, w);
            j->shadow[off + w] = src[w];
        }
        if (i & 1) {
            shmem_ctx_long_put_nbi(ctx, &region[c][t][off], src, (size_t)n, next);
        } else {
            shmem_ctx_long_put(ctx, &region[c][t][off], src, (size_t)n, next);
        }
        shmem_ctx_long_atomic_add(ctx, &counter[c][t], 1, next);
        /* handles on the same context: their records join the same buffers */
        j->hshadow[i % HANDLE] = val(me, t, i, 99);
        shmemx_ctx_long_put_req(ctx, &hslots[c][t][i % HANDLE], &j->hshadow[i % HANDLE], 1,
                                next, &req);
        shmemx_ctx_long_atomic_add_req(ctx, &hcounter[c][t], 1, next, &req);
        if (i % 8 == 7) {
            if (i % 16 == 7) {
                shmemx_req_wait(&req);
                long got = shmem_ctx_long_g(probe, &hslots[c][t][i % HANDLE], next);
                CHECK(got == j->hshadow[i % HANDLE], "ctx %d thread %d iteration %ld: after "
                      "the wait %#lx, want %#lx", c, t, i, got, j->hshadow[i % HANDLE]);
            } else {
                while (!shmemx_req_test(&req)) {
                }
            }
        }
        if (i % 16 == 5) {
            /* the same PE's operations apply in order: the get reads the put */
            long got = shmem_ctx_long_g(ctx, &region[c][t][off + n - 1], next);
            CHECK(got == src[n - 1], "ctx %d thread %d iteration %ld: got %#lx, want %#lx", c, t,
                  i, got, src[n - 1]);
        }
        if (i % 64 == 63) {
            long cnt = shmem_ctx_long_atomic_fetch(ctx, &counter[c][t], next);
            CHECK(cnt == i + 1, "ctx %d thread %d iteration %ld: count %ld, want %ld", c, t, i,
                  cnt, i + 1);
        }
        if (i % RING == RING - 1) {
            shmem_ctx_quiet(ctx);
            long got = shmem_ctx_long_g(probe, &region[c][t][off], next);
            CHECK(got == src[0], "ctx %d thread %d iteration %ld: after quiet %#lx, want %#lx",
                  c, t, i, got, src[0]);
        }
    }
    shmemx_req_wait(&req);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(probe);
    return NULL;
}

static void run(int c, shmem_ctx_t ctx)
{
    static job_t jobs[THREADS];
    pthread_t th[THREADS];
    int me = shmem_my_pe(), next = (me + 1) % shmem_n_pes();

    for (int t = 0; t < THREADS; t++) {
        memset(&jobs[t], 0, sizeof(jobs[t]));
        jobs[t].t = t;
        jobs[t].c = c;
        jobs[t].ctx = ctx;
        CHECK(pthread_create(&th[t], NULL, worker, &jobs[t]) == 0, "pthread_create %d", t);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
    }
    shmem_barrier_all();
    for (int t = 0; t < THREADS; t++) {
        long back[WORDS], hback[HANDLE];
        shmem_long_get(back, region[c][t], WORDS, next);
        shmem_long_get(hback, hslots[c][t], HANDLE, next);
        for (long w = 0; w < WORDS; w++) {
            CHECK(back[w] == jobs[t].shadow[w], "ctx %d thread %d word %ld: %#lx, want %#lx", c,
                  t, w, back[w], jobs[t].shadow[w]);
        }
        for (long w = 0; w < HANDLE && w < iters; w++) {
            CHECK(hback[w] == jobs[t].hshadow[w], "ctx %d thread %d handle word %ld: %#lx, "
                  "want %#lx", c, t, w, hback[w], jobs[t].hshadow[w]);
        }
        CHECK_EQ(shmem_long_atomic_fetch(&counter[c][t], next), iters);
        CHECK_EQ(shmem_long_atomic_fetch(&hcounter[c][t], next), iters);
    }
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    shmem_ctx_t shared;

    if (argc > 1) {
        iters = atol(argv[1]);
    }
    if (!test_init_multiple()) {
        return TEST_SKIP;
    }
    run(0, SHMEM_CTX_DEFAULT);
    CHECK(shmem_ctx_create(0, &shared) == 0, "shmem_ctx_create");
    run(1, shared);
    shmem_ctx_destroy(shared);
    return test_pass("thr_shared");
}
