/* req_threads.c -- request handles under SHMEM_THREAD_MULTIPLE: THREADS
 * threads per PE, each with its own SHMEM_CTX_PRIVATE context, issue puts,
 * gets and atomics into handles; they complete them with wait, test loops
 * and wait_any, mix them with put_nbi + quiet, and hand their last handle
 * to the main thread with merge, which waits once for the operations of
 * all four contexts.  argv[1] = iterations per thread. */
#include <pthread.h>

#include <shmemx.h>

#include "harness.h"

#define THREADS 4
#define WORDS 8
#define WINDOW 4

static long slots[THREADS][WINDOW][WORDS]; /* slots[t]: written by thread t of the previous PE */
static long last[THREADS][WORDS];          /* the handed-off round */
static long counter;                       /* every thread of every PE adds to PE 0's */
static long iters = 200;
static pthread_mutex_t handoff_lock = PTHREAD_MUTEX_INITIALIZER;
static shmemx_req_t handoff = SHMEMX_REQ_NULL; /* the threads' merged handles */
static shmem_ctx_t ctxs[THREADS];

static void fill(long *buf, int me, int t, long i, int k)
{
    for (int w = 0; w < WORDS; w++) {
        buf[w] = (long)me << 40 | (long)t << 32 | i << 8 | k << 4 | w;
    }
}

static void *req_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    int me = shmem_my_pe(), n = shmem_n_pes(), next = (me + 1) % n;
    /* made by the thread that uses it, as SHMEM_CTX_PRIVATE says; the main
     * thread destroys it after waiting for the hand-off */
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctxs[t]) == 0, "thread %d: ctx_create", t);
    shmem_ctx_t ctx = ctxs[t];
    long buf[WINDOW][WORDS], back[WORDS], fetched = 0;
    shmemx_req_t reqs[WINDOW];

    for (long i = 0; i < iters; i++) {
        /* one handle per window slot, completed in whatever order wait_any says */
        for (int k = 0; k < WINDOW; k++) {
            reqs[k] = SHMEMX_REQ_NULL;
            fill(buf[k], me, t, i, k);
            shmemx_ctx_long_put_req(ctx, slots[t][k], buf[k], WORDS, next, &reqs[k]);
            shmemx_ctx_long_atomic_add_req(ctx, &counter, 1, 0, &reqs[k]);
        }
        int done = 0;
        for (size_t idx; (idx = shmemx_req_wait_any(WINDOW, reqs)) != SIZE_MAX;) {
            CHECK(idx < WINDOW && reqs[idx] == SHMEMX_REQ_NULL, "thread %d: wait_any %zu", t,
                  idx);
            done++;
        }
        CHECK(done <= WINDOW, "thread %d: wait_any completed %d of %d", t, done, WINDOW);
        /* a get and a fetching atomic in one handle, completed by a test loop */
        shmemx_req_t r = SHMEMX_REQ_NULL;
        shmemx_ctx_long_get_req(ctx, back, slots[t][i % WINDOW], WORDS, next, &r);
        shmemx_ctx_long_atomic_fetch_add_req(ctx, &fetched, &counter, 0, 0, &r);
        while (!shmemx_req_test(&r)) {
        }
        CHECK_EQ(back[WORDS - 1], buf[i % WINDOW][WORDS - 1]); /* only this thread writes it */
        CHECK(fetched > 0, "thread %d: fetched %ld", t, fetched);
        /* handles beside plain nbi + quiet on the same context */
        shmem_ctx_long_put_nbi(ctx, slots[t][0], buf[0], WORDS, next);
        shmemx_ctx_long_put_req(ctx, slots[t][1], buf[1], WORDS, next, &r);
        shmem_ctx_quiet(ctx);
        shmemx_req_wait(&r); /* quiet completed it already */
        CHECK(r == SHMEMX_REQ_NULL, "thread %d: waited handle is NULL", t);
    }
    /* the hand-off: this thread's last operations go to the main thread */
    shmemx_req_t mine = SHMEMX_REQ_NULL;
    fill(buf[0], me, t, iters, 0);
    shmemx_ctx_long_put_req(ctx, last[t], buf[0], WORDS, next, &mine);
    shmemx_ctx_long_atomic_inc_req(ctx, &counter, 0, &mine);
    pthread_mutex_lock(&handoff_lock);
    shmemx_req_merge(&handoff, &mine);
    pthread_mutex_unlock(&handoff_lock);
    CHECK(mine == SHMEMX_REQ_NULL, "thread %d: merged handle is NULL", t);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[THREADS];

    if (argc > 1) {
        iters = atol(argv[1]);
    }
    if (!test_init_multiple()) {
        return TEST_SKIP;
    }
    int me = shmem_my_pe(), n = shmem_n_pes(), prev = (me + n - 1) % n;
    shmem_barrier_all();
    for (int t = 0; t < THREADS; t++) {
        pthread_create(&th[t], NULL, req_thread, (void *)(intptr_t)t);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
    }
    /* one wait for the operations of four contexts */
    shmemx_req_wait(&handoff);
    CHECK(handoff == SHMEMX_REQ_NULL, "the merged handle is NULL after wait");
    for (int t = 0; t < THREADS; t++) {
        shmem_ctx_destroy(ctxs[t]);
    }
    shmem_barrier_all();
    for (int t = 0; t < THREADS; t++) {
        CHECK_EQ(last[t][WORDS - 1], (long)prev << 40 | (long)t << 32 | iters << 8 | (WORDS - 1));
        for (int k = 0; k < WINDOW; k++) {
            CHECK_EQ(slots[t][k][WORDS - 1] >> 32, (long)prev << 8 | t);
        }
    }
    if (me == 0) {
        CHECK_EQ(counter, (long)n * THREADS * (iters * WINDOW + 1));
    }
    return test_pass("request handles across threads with private contexts");
}
