/* ctx_team.c -- contexts: shmem_ctx_create with every option set, and
 * shmem_team_create_ctx on teams whose numbering differs from WORLD (odd
 * PEs in reverse order, every third PE): every kind of ctx routine
 * (put/p/iput/ibput, get/g/ibget, nbi, AMOs incl. nbi fetches, put-with-
 * signal, signal_add/set, fence, quiet, pe_quiet) uses team-relative PE
 * numbers; get_team; destroy (implicit quiet, INVALID no-op); creation
 * failure (unknown option bits: nonzero and SHMEM_CTX_INVALID, the library
 * stays usable); sessions (INVALID no-op, start twice, stop twice, no change
 * of results); shmem_team_ptr on every team. */
#include <stdbool.h>

#include "harness.h"

#define N 16

static long dst[N], src[N];
static long counter;
static long fetched;
static uint64_t sig;

/* Everything a member of `team` does through `ctx` to its successor in the
 * team, checked by the successor after a barrier. */
static void exchange(shmem_team_t team, shmem_ctx_t ctx, int round)
{
    int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    int world = shmem_my_pe();
    long local[N];

    for (int i = 0; i < N; i++) {
        src[i] = world * 1000 + i + round;
        dst[i] = -1;
    }
    counter = 0;
    sig = 0;
    shmem_barrier_all();

    /* puts: contiguous to [0,4), p to 4, iput to 5,7, ibput blocks to 9..10, 12..13 */
    shmem_ctx_long_put(ctx, dst, src, 4, next);
    shmem_ctx_long_p(ctx, &dst[4], src[4], next);
    shmem_ctx_long_iput(ctx, &dst[5], &src[5], 2, 2, 2, next);
    shmem_ctx_long_ibput(ctx, &dst[9], &src[9], 3, 3, 2, 2, next);
    shmem_ctx_long_put_nbi(ctx, &dst[14], &src[14], 1, next);
    shmem_ctx_fence(ctx);
    shmem_ctx_long_atomic_add(ctx, &counter, world + 1, next);
    long old = shmem_ctx_long_atomic_fetch_add(ctx, &counter, 0, next);
    (void)old;
    shmem_ctx_long_atomic_fetch_inc_nbi(ctx, &fetched, &counter, next);
    int quiet_pe = next;
    shmem_ctx_pe_quiet(ctx, &quiet_pe, 1);
    shmem_ctx_quiet(ctx);
    shmem_ctx_putmem_signal(ctx, &dst[15], &src[15], sizeof(long), &sig, 1, SHMEM_SIGNAL_ADD,
                            next);
    shmem_ctx_signal_add(ctx, &sig, 10, next);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();

    int from = shmem_team_translate_pe(team, prev, SHMEM_TEAM_WORLD);
    for (int i = 0; i < N; i++) {
        bool written = i < 6 || i == 7 || i == 9 || i == 10 || i == 12 || i == 13 || i >= 14;
        long want = written ? from * 1000 + i + round : -1;
        CHECK(dst[i] == want, "round %d: dst[%d] is %ld, want %ld (from world PE %d)", round, i,
              dst[i], want, from);
    }
    CHECK_EQ(counter, from + 2);
    CHECK_EQ(sig, 11);
    shmem_barrier_all();

    /* gets from the successor: its src */
    int from_next = shmem_team_translate_pe(team, next, SHMEM_TEAM_WORLD);
    shmem_ctx_long_get(ctx, local, src, 3, next);
    CHECK_EQ(local[2], from_next * 1000 + 2 + round);
    CHECK_EQ(shmem_ctx_long_g(ctx, &src[7], next), from_next * 1000 + 7 + round);
    shmem_ctx_long_ibget(ctx, local, src, 4, 2, 2, 2, next);
    CHECK_EQ(local[5], from_next * 1000 + 3 + round);
    shmem_ctx_long_get_nbi(ctx, &local[8], &src[8], 1, next);
    shmem_ctx_quiet(ctx);
    CHECK_EQ(local[8], from_next * 1000 + 8 + round);
    CHECK_EQ(shmem_ctx_long_atomic_compare_swap(ctx, &counter, -5, 0, next), world + 2);
    shmem_barrier_all();
}

static void team_case(shmem_team_t team, long options, int round)
{
    if (team == SHMEM_TEAM_INVALID) {
        /* keep the barriers of exchange() matched */
        for (int i = 0; i < 4; i++) {
            shmem_barrier_all();
        }
        return;
    }
    shmem_ctx_t ctx;
    shmem_team_t got = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_create_ctx(team, options, &ctx) == 0, "team_create_ctx");
    CHECK(ctx != SHMEM_CTX_INVALID && ctx != SHMEM_CTX_DEFAULT, "a new context");
    CHECK(shmem_ctx_get_team(ctx, &got) == 0 && got == team, "get_team");
    exchange(team, ctx, round);
    shmem_ctx_destroy(ctx);
}

static void check_team_ptr(shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID) {
        return;
    }
    for (int pe = 0; pe < shmem_team_n_pes(team); pe++) {
        int w = shmem_team_translate_pe(team, pe, SHMEM_TEAM_WORLD);
        CHECK(shmem_team_ptr(team, dst, pe) == shmem_ptr(dst, w), "team_ptr pe %d", pe);
        /* every PE of SHMEM_TEAM_SHARED is load/store reachable (spec) */
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, SHMEM_TEAM_SHARED) < 0 ||
                  shmem_team_ptr(team, dst, pe) != NULL,
              "team_ptr of a SHARED member is NULL");
    }
    CHECK(shmem_team_ptr(team, dst, -1) == NULL, "team_ptr pe -1");
    CHECK(shmem_team_ptr(team, dst, shmem_team_n_pes(team)) == NULL, "team_ptr pe n");
}

int main(void)
{
    shmem_init();
    int n = shmem_n_pes(), me = shmem_my_pe();
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    shmem_team_t team = SHMEM_TEAM_WORLD;

    /* INVALID answers and failures */
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team) != 0 && team == SHMEM_TEAM_INVALID,
          "get_team INVALID");
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0 && ctx == SHMEM_CTX_INVALID,
          "create_ctx on INVALID");
    ctx = SHMEM_CTX_DEFAULT;
    CHECK(shmem_ctx_create(1L << 20, &ctx) != 0 && ctx == SHMEM_CTX_INVALID, "unknown option");
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team) == 0 && team == SHMEM_TEAM_WORLD,
          "default ctx team");
    shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    shmem_ctx_session_stop(SHMEM_CTX_INVALID);

    /* world contexts with every option combination */
    long all[] = {0, SHMEM_CTX_SERIALIZED, SHMEM_CTX_PRIVATE, SHMEM_CTX_NOSTORE,
                  SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        CHECK(shmem_ctx_create(all[i], &ctx) == 0, "ctx_create(0x%lx)", all[i]);
        CHECK(shmem_ctx_get_team(ctx, &team) == 0 && team == SHMEM_TEAM_WORLD, "WORLD");
        exchange(SHMEM_TEAM_WORLD, ctx, (int)i);
        shmem_ctx_destroy(ctx);
    }

    /* sessions: hints only; results are the same inside one */
    shmem_ctx_session_config_t config = {.total_ops = 100};
    CHECK_EQ(shmem_ctx_create(0, &ctx), 0);
    shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, &config, SHMEM_CTX_SESSION_TOTAL_OPS);
    shmem_ctx_session_start(ctx, 0, NULL, 0); /* a second start ORs options */
    exchange(SHMEM_TEAM_WORLD, ctx, 7);
    shmem_ctx_session_stop(ctx);
    shmem_ctx_session_stop(ctx); /* idempotent */
    shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    exchange(SHMEM_TEAM_WORLD, SHMEM_CTX_DEFAULT, 8);
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    shmem_ctx_destroy(ctx);

    /* team contexts: odd PEs in reverse order; every third PE from 1 */
    shmem_team_t odd = SHMEM_TEAM_INVALID, third = SHMEM_TEAM_INVALID;
    if (n >= 2) {
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 2 * (n / 2) - 1, -2, n / 2, NULL, 0,
                                          &odd), 0);
        CHECK((me % 2 == 1) == (odd != SHMEM_TEAM_INVALID), "odd membership");
    }
    if (n >= 3) {
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 3, (n - 2) / 3 + 1, NULL, 0,
                                          &third), 0);
    }
    for (int round = 0; round < 3; round++) {
        team_case(odd, round == 1 ? SHMEM_CTX_PRIVATE : 0, round);
        team_case(third, round == 2 ? SHMEM_CTX_SERIALIZED : 0, round);
        team_case(SHMEM_TEAM_SHARED, 0, round);
    }
    check_team_ptr(SHMEM_TEAM_WORLD);
    check_team_ptr(SHMEM_TEAM_SHARED);
    check_team_ptr(odd);
    check_team_ptr(third);
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, dst, 0) == NULL, "team_ptr INVALID");

    /* a shareable context left on a team dies with it */
    if (odd != SHMEM_TEAM_INVALID) {
        shmem_ctx_t left;
        CHECK_EQ(shmem_team_create_ctx(odd, 0, &left), 0);
        shmem_ctx_long_atomic_inc(left, &counter, 0);
    }
    shmem_team_destroy(odd);
    shmem_team_destroy(third);
    return test_pass("ctx_team");
}
