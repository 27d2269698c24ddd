/* team_split.c -- shmem_team_split_strided: membership, numbering and
 * translation for positive, odd, negative and zero strides, size 1, teams
 * split from split teams (and from SHMEM_TEAM_SHARED), invalid triplets
 * (nonzero on every PE, SHMEM_TEAM_INVALID everywhere), get_config, the
 * SHMEM_TEAM_INVALID answers, and that a new team is usable at once:
 * every member puts into every other member through a context of the
 * team, with team-relative PE numbers, right after the split. */
#include <stdbool.h>

#include "harness.h"

static long inbox[64];

/* World PE of member i of a strided split of WORLD. */
static int member_world(int start, int stride, int i)
{
    return start + i * stride;
}

/* Every member writes its world PE into inbox[its team number] of every
 * other member through a context of the team; then each checks its inbox. */
static void exercise(shmem_team_t team, int start, int stride, int size)
{
    int me = shmem_my_pe();
    shmem_ctx_t ctx;

    if (team == SHMEM_TEAM_INVALID) {
        shmem_barrier_all();
        return;
    }
    int tme = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
    CHECK_EQ(tn, size);
    CHECK_EQ(member_world(start, stride, tme), me);
    CHECK(shmem_team_create_ctx(team, 0, &ctx) == 0, "create_ctx");
    for (int pe = 0; pe < tn; pe++) {
        shmem_ctx_long_p(ctx, &inbox[tme], me + 1000, pe);
    }
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int pe = 0; pe < tn; pe++) {
        CHECK_EQ(inbox[pe], member_world(start, stride, pe) + 1000);
        inbox[pe] = 0;
    }
    shmem_ctx_destroy(ctx);
}

static void one_split(int start, int stride, int size)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_team_t team = (shmem_team_t)&inbox; /* must be overwritten */

    int ret = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &team);
    CHECK(ret == 0, "split(%d, %d, %d) returned %d on %d PEs", start, stride, size, ret, n);
    bool member = false;
    for (int i = 0; i < size; i++) {
        member |= member_world(start, stride, i) == me;
    }
    CHECK(member == (team != SHMEM_TEAM_INVALID), "membership of PE %d in (%d, %d, %d)", me,
          start, stride, size);
    if (member) {
        /* translate both ways, for every member */
        for (int i = 0; i < size; i++) {
            int w = member_world(start, stride, i);
            CHECK_EQ(shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD), w);
            CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, team), i);
        }
        CHECK_EQ(shmem_team_translate_pe(team, size, SHMEM_TEAM_WORLD), -1);
        CHECK_EQ(shmem_team_translate_pe(team, -1, SHMEM_TEAM_WORLD), -1);
        for (int w = 0; w < n; w++) {
            bool in = false;
            for (int i = 0; i < size; i++) {
                in |= member_world(start, stride, i) == w;
            }
            if (!in) {
                CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, team), -1);
            }
        }
        shmem_team_config_t config = {.num_contexts = -5};
        CHECK_EQ(shmem_team_get_config(team, SHMEM_TEAM_NUM_CONTEXTS, &config), 0);
        CHECK_EQ(config.num_contexts, 0);
        CHECK_EQ(shmem_team_get_config(team, 0, NULL), 0);
    }
    exercise(team, start, stride, size);
    shmem_team_destroy(team); /* INVALID on non-members: a no-op */
}

static void expect_invalid(int start, int stride, int size)
{
    shmem_team_t team = SHMEM_TEAM_WORLD;
    int ret = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &team);
    CHECK(ret != 0, "invalid split(%d, %d, %d) returned 0", start, stride, size);
    CHECK(team == SHMEM_TEAM_INVALID, "invalid split(%d, %d, %d) gave a team", start, stride,
          size);
}

/* Split a split: the odd PEs in reverse order, then every second of those. */
static void nested(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int n_odd = n / 2;
    shmem_team_t odd = SHMEM_TEAM_INVALID, sub = SHMEM_TEAM_INVALID;

    if (n_odd == 0) {
        return;
    }
    int top = 2 * n_odd - 1; /* the highest odd PE */
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, top, -2, n_odd, NULL, 0, &odd), 0);
    CHECK((me % 2 == 1) == (odd != SHMEM_TEAM_INVALID), "odd membership");
    if (odd != SHMEM_TEAM_INVALID) {
        CHECK_EQ(shmem_team_my_pe(odd), (top - me) / 2);
        int sub_size = (n_odd + 1) / 2;
        CHECK_EQ(shmem_team_split_strided(odd, 0, 2, sub_size, NULL, 0, &sub), 0);
        int in_odd = shmem_team_my_pe(odd);
        CHECK((in_odd % 2 == 0) == (sub != SHMEM_TEAM_INVALID), "sub membership");
        if (sub != SHMEM_TEAM_INVALID) {
            CHECK_EQ(shmem_team_my_pe(sub), in_odd / 2);
            CHECK_EQ(shmem_team_translate_pe(sub, shmem_team_my_pe(sub), SHMEM_TEAM_WORLD), me);
            CHECK_EQ(shmem_team_translate_pe(sub, 0, odd), 0);
            CHECK_EQ(shmem_team_translate_pe(sub, 0, SHMEM_TEAM_WORLD), top);
        }
        /* the parent may go first: the child stays valid */
        shmem_team_destroy(odd);
        if (sub != SHMEM_TEAM_INVALID) {
            CHECK_EQ(shmem_team_translate_pe(sub, 0, SHMEM_TEAM_WORLD), top);
            shmem_team_destroy(sub);
        }
    }
    shmem_barrier_all();
}

/* Splits of SHARED (all of this node in a one-node job) by even members. */
static void from_shared(void)
{
    shmem_team_t half = SHMEM_TEAM_INVALID;
    int n = shmem_team_n_pes(SHMEM_TEAM_SHARED), me = shmem_team_my_pe(SHMEM_TEAM_SHARED);

    CHECK(n >= 1 && me >= 0, "SHARED %d of %d", me, n);
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_SHARED, 0, 2, (n + 1) / 2, NULL, 0, &half), 0);
    CHECK((me % 2 == 0) == (half != SHMEM_TEAM_INVALID), "SHARED split membership");
    if (half != SHMEM_TEAM_INVALID) {
        CHECK_EQ(shmem_team_my_pe(half), me / 2);
        int w = shmem_team_translate_pe(half, shmem_team_my_pe(half), SHMEM_TEAM_WORLD);
        CHECK_EQ(w, shmem_my_pe());
        long *heap = shmem_malloc(0); /* no-op; keeps the collective order simple */
        (void)heap;
    }
    shmem_team_destroy(half);
}

int main(void)
{
    shmem_init();
    int n = shmem_n_pes();

    /* the INVALID answers */
    shmem_team_config_t config;
    shmem_team_t t = SHMEM_TEAM_WORLD;
    CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
    CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &config) != 0,
          "get_config INVALID");
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1);
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID), -1);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0 &&
              t == SHMEM_TEAM_INVALID, "split of INVALID");
    shmem_team_destroy(SHMEM_TEAM_INVALID);
    CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), shmem_my_pe());
    CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), n);

    /* valid triplets */
    one_split(0, 1, n);                       /* a copy of WORLD */
    one_split(n - 1, -1, n);                  /* WORLD reversed */
    one_split(0, 2, (n + 1) / 2);             /* evens */
    one_split(n - 1, 0, 1);                   /* stride 0, size 1 */
    one_split(n / 2, 5, 1);                   /* size 1, any stride */
    if (n >= 4) {
        one_split(1, 3, (n - 2) / 3 + 1);     /* odd stride */
        one_split(n - 2, -3, (n - 2) / 3 + 1);/* odd negative stride */
    }
    /* invalid triplets: the same nonzero answer everywhere */
    expect_invalid(0, 1, n + 1);
    expect_invalid(0, 1, 0);
    expect_invalid(-1, 1, 1);
    expect_invalid(n, 1, 1);
    expect_invalid(0, -1, 2);
    if (n >= 2) {
        expect_invalid(0, 0, 2);
    }
    nested();
    from_shared();
    return test_pass("team_split");
}
