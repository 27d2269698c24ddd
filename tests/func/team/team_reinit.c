/* team_reinit.c -- init / finalize / init again (OpenSHMEM 1.6): each
 * session recreates SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED and the default
 * context, splits teams and makes contexts, and leaves some of them alive
 * for finalize to clean up (SHIMMER_TEAMS_MAX=4 leaves room for only two
 * user teams, so leftovers of a session must not count in the next).  A
 * nested init/finalize pair inside a session keeps everything alive.
 * shmem_query_initialized follows along. */
#include "harness.h"

static long box;

static void session(int round)
{
    int provided, initialized = -1;

    shmem_query_initialized(&initialized);
    CHECK_EQ(initialized, 0);
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init, round %d", round);
    shmem_query_initialized(&initialized);
    CHECK(initialized != 0, "initialized, round %d", round);

    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
    CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), n);
    CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) >= 1, "SHARED");
    shmem_team_t team, rev;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &team), 0);
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &rev), 0);
    shmem_ctx_t ctx, left;
    CHECK_EQ(shmem_team_create_ctx(rev, 0, &ctx), 0);
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &left), 0);
    box = 0;
    shmem_barrier_all();
    /* team PE 0 of rev is world PE n-1 */
    shmem_ctx_long_atomic_add(ctx, &box, round + 1, 0);
    shmem_ctx_quiet(ctx);

    /* a nested pair: the inner finalize is a barrier, nothing is released */
    CHECK(shmem_init_thread(SHMEM_THREAD_SINGLE, &provided) == 0, "nested init");
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    shmem_finalize();
    shmem_query_initialized(&initialized);
    CHECK(initialized != 0, "still initialized after the inner finalize");
    if (me == n - 1) {
        CHECK_EQ(box, (long)n * (round + 1));
    }
    CHECK_EQ(shmem_team_translate_pe(rev, 0, team), n - 1);
    shmem_ctx_long_atomic_inc(left, &box, 0);
    shmem_ctx_destroy(ctx);
    if (round % 2 == 0) {
        shmem_team_destroy(team);
    }
    /* rev, `left` and (odd rounds) team stay for finalize */
    shmem_barrier_all();
    shmem_finalize();
    shmem_query_initialized(&initialized);
    CHECK_EQ(initialized, 0);
}

int main(void)
{
    for (int round = 0; round < 4; round++) {
        session(round);
    }
    shmem_init();
    int ok = shmem_my_pe() >= 0;
    CHECK(ok, "final session");
    return test_pass("team_reinit");
}
