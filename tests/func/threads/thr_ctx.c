/* thr_ctx.c -- SHMEM_THREAD_MULTIPLE: THREADS threads per PE, each with
 * its own SHMEM_CTX_PRIVATE context, do puts, gets, AMOs (fetching and
 * not, nbi fetches), put-with-signal and quiet at the same time; others
 * create and destroy contexts (shareable, on WORLD and on a team) in a
 * loop meanwhile.  Every result is checked after the threads join.
 * argv[1] = iterations per thread. */
#include <pthread.h>

#include "harness.h"

#define THREADS 4
#define WORDS 8

static long slots[THREADS][WORDS];   /* slots[t]: written by thread t of the previous PE */
static long counter;                 /* every thread of every PE adds to PE 0's */
static uint64_t signals[THREADS];
static long iters = 2000;
static shmem_team_t evens = SHMEM_TEAM_INVALID;

static void *rma_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    int me = shmem_my_pe(), n = shmem_n_pes(), next = (me + 1) % n;
    shmem_ctx_t ctx;
    long buf[WORDS], fetched = 0;

    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "thread %d: ctx_create", t);
    for (long i = 0; i < iters; i++) {
        for (int w = 0; w < WORDS; w++) {
            buf[w] = (long)me << 32 | (long)t << 24 | i;
        }
        shmem_ctx_long_put(ctx, slots[t], buf, WORDS, next);
        shmem_ctx_long_atomic_add(ctx, &counter, 1, 0);
        if (i % 16 == 0) {
            shmem_ctx_long_atomic_fetch_add_nbi(ctx, &fetched, &counter, 0, 0);
            shmem_ctx_quiet(ctx);
            CHECK(fetched > 0, "thread %d: fetched %ld", t, fetched);
            long back[WORDS];
            shmem_ctx_long_get(ctx, back, slots[t], WORDS, next);
            CHECK_EQ(back[WORDS - 1], buf[WORDS - 1]); /* only this thread writes it */
        }
    }
    shmem_ctx_putmem_signal(ctx, slots[t], buf, sizeof(buf), &signals[t], 1, SHMEM_SIGNAL_ADD,
                            next);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    return NULL;
}

static void *churn_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    int me = shmem_my_pe();

    for (long i = 0; i < iters / 4; i++) {
        shmem_ctx_t a, b = SHMEM_CTX_INVALID;
        CHECK(shmem_ctx_create(i % 3 == 0 ? SHMEM_CTX_SERIALIZED : 0, &a) == 0, "churn %d", t);
        if (evens != SHMEM_TEAM_INVALID) {
            CHECK(shmem_team_create_ctx(evens, 0, &b) == 0, "churn %d: team ctx", t);
            shmem_team_t team;
            CHECK(shmem_ctx_get_team(b, &team) == 0 && team == evens, "get_team");
            /* team PE 0 is world PE 0 */
            shmem_ctx_long_atomic_add(b, &counter, 1, 0);
        }
        shmem_ctx_long_atomic_add(a, &counter, 1, 0);
        shmem_ctx_destroy(a);
        shmem_ctx_destroy(b);
    }
    (void)me;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    pthread_t th[2 * THREADS];

    if (argc > 1) {
        iters = atol(argv[1]);
    }
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init_thread");
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    int me = shmem_my_pe(), n = shmem_n_pes(), prev = (me + n - 1) % n;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens), 0);
    shmem_barrier_all();

    for (int t = 0; t < THREADS; t++) {
        CHECK(pthread_create(&th[t], NULL, rma_thread, (void *)(intptr_t)t) == 0, "pthread");
        CHECK(pthread_create(&th[THREADS + t], NULL, churn_thread, (void *)(intptr_t)t) == 0,
              "pthread");
    }
    for (int t = 0; t < 2 * THREADS; t++) {
        pthread_join(th[t], NULL);
    }
    shmem_barrier_all();

    for (int t = 0; t < THREADS; t++) {
        CHECK_EQ(signals[t], 1);
        for (int w = 0; w < WORDS; w++) {
            CHECK_EQ(slots[t][w], (long)prev << 32 | (long)t << 24 | (iters - 1));
        }
    }
    if (me == 0) {
        long churn = (iters / 4) * THREADS;
        long want = (long)n * THREADS * iters + (long)n * churn + (long)((n + 1) / 2) * churn;
        CHECK_EQ(counter, want);
    }
    shmem_team_destroy(evens);
    return test_pass("thr_ctx");
}
