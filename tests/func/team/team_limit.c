/* team_limit.c -- SHIMMER_TEAMS_MAX=6: WORLD, SHARED and 4 user teams fit;
 * the fifth split fails on every PE (nonzero, SHMEM_TEAM_INVALID) with one
 * warning naming the routine, the limit and the fix (checked by the test's
 * regular expression); destroying one makes room again.  Slots are per
 * PE: disjoint teams do not compete, so 2D splits still fit in 2 slots. */
#include "harness.h"

int main(void)
{
    shmem_init();
    int n = shmem_n_pes();
    shmem_team_t teams[4], extra = SHMEM_TEAM_WORLD;

    for (int i = 0; i < 4; i++) {
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &teams[i]) == 0,
              "team %d of 4 must fit", i);
    }
    int ret = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &extra);
    CHECK(ret != 0, "a fifth team exceeds SHIMMER_TEAMS_MAX=6");
    CHECK(extra == SHMEM_TEAM_INVALID, "failed split gives SHMEM_TEAM_INVALID");
    shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt) != 0, "2d full");
    CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID, "2d full handles");

    /* the library stays usable, and a destroy gives a slot back */
    shmem_team_destroy(teams[3]);
    shmem_team_destroy(teams[2]);
    CHECK_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt), 0);
    CHECK(xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID, "2d fits again");
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
    shmem_team_destroy(teams[1]);
    shmem_team_destroy(teams[0]);
    return test_pass("team_limit");
}
