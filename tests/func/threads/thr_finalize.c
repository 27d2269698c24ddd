/* thr_finalize.c -- debug mode: shmem_finalize from a thread other than the
 * one that called shmem_init_thread is reported in one line (the test's
 * regular expression checks it) and ends the job. */
#include <pthread.h>

#include "harness.h"

static void *finalize_thread(void *arg)
{
    (void)arg;
    shmem_finalize();
    return NULL;
}

int main(void)
{
    int provided;
    pthread_t th;

    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init_thread");
    shmem_barrier_all();
    pthread_create(&th, NULL, finalize_thread, NULL);
    pthread_join(th, NULL);
    printf("finalize from another thread was not reported\n");
    return 1;
}
