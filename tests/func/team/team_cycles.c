/* team_cycles.c -- thousands of team create/destroy cycles leak nothing:
 * run with SHIMMER_TEAMS_MAX=4 (WORLD, SHARED and two more), so a slot
 * that is not given back fails the third cycle; and a small internal heap,
 * so per-team symmetric allocations would run out.  Each cycle also uses
 * the new team's barrier (in destroy) and a context on it, so reusing a
 * slot whose memory was not reset would hang or corrupt; so does a
 * team_sync on every second-level team and a sum reduction every 7th
 * cycle (the collectives keep sequence state in the slot).
 * argv[1] = cycles. */
#include "harness.h"

static long box[4];

int main(int argc, char **argv)
{
    long cycles = argc > 1 ? atol(argv[1]) : 10000;

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (long c = 0; c < cycles; c++) {
        shmem_team_t a, b;
        /* alternate shapes so slots move between different memberships */
        int stride = c % 2 == 0 ? 1 : -1, start = c % 2 == 0 ? 0 : n - 1;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, n, NULL, 0, &a) == 0,
              "cycle %ld: split", c);
        CHECK(a != SHMEM_TEAM_INVALID, "cycle %ld", c);
        CHECK(shmem_team_split_strided(a, 0, 2, (n + 1) / 2, NULL, 0, &b) == 0,
              "cycle %ld: second split", c);
        /* the new teams' collectives work at once on the reused slots: a
         * sync that stale flags let through would show a missing value */
        if (b != SHMEM_TEAM_INVALID) {
            int bme = shmem_team_my_pe(b), bn = shmem_team_n_pes(b);
            int to = shmem_team_translate_pe(b, (bme + 1) % bn, SHMEM_TEAM_WORLD);
            shmem_long_atomic_set(&box[1], c + 1, to);
            shmem_quiet();
            CHECK(shmem_team_sync(b) == 0, "cycle %ld: team_sync", c);
            CHECK(shmem_long_atomic_fetch(&box[1], me) == c + 1,
                  "cycle %ld: team_sync returned before the neighbour's update", c);
            CHECK(shmem_team_sync(b) == 0, "cycle %ld: team_sync", c);
        }
        if (c % 7 == 0) {
            static long one = 1, sum;
            CHECK(shmem_long_sum_reduce(a, &sum, &one, 1) == 0, "cycle %ld: reduce", c);
            CHECK(sum == n, "cycle %ld: sum %ld", c, sum);
        }
        if (c % 97 == 0) {
            /* a context on the team, used at once */
            shmem_ctx_t ctx;
            int tme = shmem_team_my_pe(a);
            CHECK(shmem_team_create_ctx(a, 0, &ctx) == 0, "cycle %ld: create_ctx", c);
            shmem_ctx_long_atomic_add(ctx, &box[0], tme + 1, (tme + 1) % n);
            shmem_ctx_destroy(ctx);
        }
        shmem_team_destroy(b);
        shmem_team_destroy(a);
    }
    shmem_barrier_all();
    /* every 97th cycle each PE got (its predecessor in the team + 1) */
    long rounds = (cycles + 96) / 97, want = 0;
    for (long c = 0; c < cycles; c += 97) {
        int stride = c % 2 == 0 ? 1 : -1, start = c % 2 == 0 ? 0 : n - 1;
        int tme = (me - start) / stride;                 /* my number in a */
        int pred = (tme + n - 1) % n;                    /* who added into me */
        want += pred + 1;
    }
    (void)rounds;
    CHECK_EQ(box[0], want);
    return test_pass("team_cycles");
}
