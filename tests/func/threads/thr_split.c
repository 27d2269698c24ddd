/* thr_split.c -- splits of different parents run at the same time in
 * different threads (SHMEM_THREAD_MULTIPLE): thread t of every PE splits
 * its own parent (a copy of WORLD made beforehand) over and over, so the
 * threads of one PE race for the same free team slots and the slot
 * agreement must detect it and retry.  Each new team is used at once by a
 * context of it and destroyed.  argv[1] = splits per thread. */
#include <pthread.h>

#include "harness.h"

#define THREADS 3

static shmem_team_t parents[THREADS];
static long hits[THREADS];
static long iters = 200;

static void *split_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    shmem_team_t parent = parents[t];
    int n = shmem_team_n_pes(parent);

    for (long i = 0; i < iters; i++) {
        shmem_team_t team, x, y;
        int size = (int)(i % n) + 1;
        CHECK(shmem_team_split_strided(parent, 0, 1, size, NULL, 0, &team) == 0,
              "thread %d, split %ld", t, i);
        if (team != SHMEM_TEAM_INVALID) {
            shmem_ctx_t ctx;
            int tme = shmem_team_my_pe(team);
            CHECK(shmem_team_create_ctx(team, SHMEM_CTX_PRIVATE, &ctx) == 0, "create_ctx");
            shmem_ctx_long_atomic_inc(ctx, &hits[t], (tme + 1) % size);
            shmem_ctx_destroy(ctx);
        }
        shmem_team_destroy(team);
        if (i % 10 == 0) {
            CHECK(shmem_team_split_2d(parent, 2, NULL, 0, &x, NULL, 0, &y) == 0, "2d %d", t);
            shmem_team_destroy(x);
            shmem_team_destroy(y);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    pthread_t th[THREADS];

    if (argc > 1) {
        iters = atol(argv[1]);
    }
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init_thread");
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int t = 0; t < THREADS; t++) {
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &parents[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        CHECK(pthread_create(&th[t], NULL, split_thread, (void *)(intptr_t)t) == 0, "pthread");
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
    }
    shmem_barrier_all();
    /* split i has size (i mod n) + 1; its members 0..size-1 each add one to
     * their successor in the team, so PE me (< size) gets one per split */
    long want = 0;
    for (long i = 0; i < iters; i++) {
        want += me < (int)(i % n) + 1;
    }
    for (int t = 0; t < THREADS; t++) {
        CHECK_EQ(hits[t], want);
        shmem_team_destroy(parents[t]);
    }
    return test_pass("thr_split");
}
