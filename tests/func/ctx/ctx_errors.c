/* ctx_errors.c -- debug mode (SHMEM_DEBUG=1) reports misuse of team and
 * context handles in one line and ends the job.  argv[1] picks the case;
 * each ctest checks the line with a regular expression:
 *   put_destroyed      RMA on a destroyed context
 *   amo_destroyed      AMO on a destroyed team context
 *   team_destroyed     team query on a destroyed team
 *   split_destroyed    split of a destroyed team
 *   destroy_world      shmem_team_destroy(SHMEM_TEAM_WORLD)
 *   destroy_default    shmem_ctx_destroy(SHMEM_CTX_DEFAULT)
 *   private_thread     a PRIVATE context destroyed by another thread
 *   private_put        a put on a PRIVATE context from another thread
 *   ctx_pe_range       a PE outside the context's team
 *   put_garbage        RMA on a pointer that never was a context
 *   team_garbage       team query on a pointer that never was a team
 *   team_as_ctx        a team handle passed as a context */
#include <pthread.h>

#include "harness.h"

static long word;

static void *destroy_it(void *arg)
{
    shmem_ctx_destroy((shmem_ctx_t)arg);
    return NULL;
}

static void *put_on_it(void *arg)
{
    shmem_ctx_long_p((shmem_ctx_t)arg, &word, 1, 0);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    int provided;
    shmem_ctx_t ctx;
    shmem_team_t team;

    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    int n = shmem_n_pes();
    if (strcmp(what, "put_destroyed") == 0) {
        CHECK_EQ(shmem_ctx_create(0, &ctx), 0);
        shmem_ctx_destroy(ctx);
        shmem_ctx_long_p(ctx, &word, 1, 0);
    } else if (strcmp(what, "amo_destroyed") == 0) {
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &team), 0);
        CHECK_EQ(shmem_team_create_ctx(team, 0, &ctx), 0);
        shmem_ctx_destroy(ctx);
        shmem_ctx_long_atomic_inc(ctx, &word, 0);
    } else if (strcmp(what, "team_destroyed") == 0) {
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &team), 0);
        shmem_team_destroy(team);
        shmem_team_my_pe(team);
    } else if (strcmp(what, "split_destroyed") == 0) {
        shmem_team_t child;
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &team), 0);
        shmem_team_destroy(team);
        shmem_team_split_strided(team, 0, 1, 1, NULL, 0, &child);
    } else if (strcmp(what, "destroy_world") == 0) {
        shmem_team_destroy(SHMEM_TEAM_WORLD);
    } else if (strcmp(what, "destroy_default") == 0) {
        shmem_ctx_destroy(SHMEM_CTX_DEFAULT);
    } else if (strcmp(what, "private_thread") == 0) {
        pthread_t th;
        CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
        pthread_create(&th, NULL, destroy_it, ctx);
        pthread_join(th, NULL);
    } else if (strcmp(what, "private_put") == 0) {
        pthread_t th;
        CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
        shmem_ctx_long_p(ctx, &word, 1, 0); /* its own thread: fine */
        pthread_create(&th, NULL, put_on_it, ctx);
        pthread_join(th, NULL);
    } else if (strcmp(what, "put_garbage") == 0) {
        shmem_ctx_long_p((shmem_ctx_t)(uintptr_t)0x1000, &word, 1, 0); /* unmapped */
    } else if (strcmp(what, "team_garbage") == 0) {
        shmem_team_my_pe((shmem_team_t)(uintptr_t)0x1000);
    } else if (strcmp(what, "team_as_ctx") == 0) {
        shmem_ctx_quiet((shmem_ctx_t)(void *)SHMEM_TEAM_WORLD);
    } else if (strcmp(what, "ctx_pe_range") == 0) {
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &team), 0);
        if (team != SHMEM_TEAM_INVALID) {
            CHECK_EQ(shmem_team_create_ctx(team, 0, &ctx), 0);
            shmem_ctx_long_p(ctx, &word, 1, 1); /* the team has one PE */
        }
    }
    shmem_barrier_all();
    printf("case '%s' was not reported\n", what);
    return 1;
}
