/* team_2d.c -- shmem_team_split_2d: coordinates (x, y) = (p mod xrange,
 * p div xrange), team sizes including the short last row, xrange larger
 * than the parent (behaves as the parent's size), xrange 1, invalid xrange
 * (both handles INVALID and nonzero everywhere), a 3D split as in the
 * spec's example, splits of a reversed parent, and puts through contexts of
 * both axis teams right after the split. */
#include "harness.h"

static long inbox[2][64];

static void use(shmem_team_t team, int axis)
{
    shmem_ctx_t ctx;
    int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);

    CHECK(shmem_team_create_ctx(team, SHMEM_CTX_PRIVATE, &ctx) == 0, "create_ctx");
    for (int pe = 0; pe < n; pe++) {
        shmem_ctx_long_atomic_set(ctx, &inbox[axis][me], shmem_my_pe() + 1, pe);
    }
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
}

static void check_inbox(shmem_team_t team, int axis)
{
    for (int pe = 0; pe < shmem_team_n_pes(team); pe++) {
        CHECK_EQ(inbox[axis][pe], shmem_team_translate_pe(team, pe, SHMEM_TEAM_WORLD) + 1);
        inbox[axis][pe] = 0;
    }
}

/* Splits `parent` (whose PE p is world PE world_of(p)) with `xrange`. */
static void split(shmem_team_t parent, int xrange)
{
    shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
    int n = shmem_team_n_pes(parent), p = shmem_team_my_pe(parent);
    int xr = xrange > n ? n : xrange;

    CHECK_EQ(shmem_team_split_2d(parent, xrange, NULL, 0, &xt, NULL, 0, &yt), 0);
    CHECK(xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID, "both teams");
    int x = p % xr, y = p / xr;
    CHECK_EQ(shmem_team_my_pe(xt), x);
    CHECK_EQ(shmem_team_my_pe(yt), y);
    int row = n - y * xr < xr ? n - y * xr : xr;
    int col = (n - x + xr - 1) / xr;
    CHECK_EQ(shmem_team_n_pes(xt), row);
    CHECK_EQ(shmem_team_n_pes(yt), col);
    for (int i = 0; i < row; i++) {
        CHECK_EQ(shmem_team_translate_pe(xt, i, parent), y * xr + i);
    }
    for (int j = 0; j < col; j++) {
        CHECK_EQ(shmem_team_translate_pe(yt, j, parent), x + j * xr);
    }
    /* the axis teams are independent: members of one row are in
     * different columns */
    if (row > 1) {
        CHECK_EQ(shmem_team_translate_pe(xt, (x + 1) % row, yt), -1);
    }
    use(xt, 0);
    use(yt, 1);
    shmem_barrier_all();
    check_inbox(xt, 0);
    check_inbox(yt, 1);
    shmem_barrier_all();
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
}

/* The spec's example: WORLD -> xteam x yzteam, then yzteam -> yteam x zteam. */
static void three_d(void)
{
    int n = shmem_n_pes();
    int xdim = n >= 3 ? 3 : n, rest = (n + xdim - 1) / xdim;
    int ydim = rest >= 2 ? 2 : 1;
    shmem_team_t xteam, yzteam, yteam, zteam;

    CHECK_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, xdim, NULL, 0, &xteam, NULL, 0, &yzteam), 0);
    CHECK_EQ(shmem_team_split_2d(yzteam, ydim, NULL, 0, &yteam, NULL, 0, &zteam), 0);
    int me = shmem_my_pe();
    int x = shmem_team_my_pe(xteam), y = shmem_team_my_pe(yteam), z = shmem_team_my_pe(zteam);
    CHECK_EQ(x, me % xdim);
    CHECK_EQ(y, (me / xdim) % ydim);
    CHECK_EQ(z, (me / xdim) / ydim);
    shmem_team_destroy(yteam);
    shmem_team_destroy(zteam);
    shmem_team_destroy(xteam);
    shmem_team_destroy(yzteam);
}

int main(void)
{
    shmem_init();
    int n = shmem_n_pes();
    shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;

    CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &xt, NULL, 0, &yt) != 0, "INVALID");
    CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID, "INVALID parent");
    xt = yt = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &xt, NULL, 0, &yt) != 0, "xrange 0");
    CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID, "xrange 0 handles");
    xt = yt = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, -3, NULL, 0, &xt, NULL, 0, &yt) != 0, "xrange<0");
    CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID, "xrange<0 handles");

    int ranges[] = {1, 2, 3, n, n + 5};
    for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
        split(SHMEM_TEAM_WORLD, ranges[i]);
    }
    /* a parent whose PE numbers run backwards through WORLD */
    shmem_team_t rev;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &rev), 0);
    split(rev, 2);
    split(rev, 3);
    shmem_team_destroy(rev);

    /* configs: num_contexts is kept and reported */
    shmem_team_config_t cx = {.num_contexts = 3}, cy = {.num_contexts = 0}, got;
    CHECK_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, &cx, SHMEM_TEAM_NUM_CONTEXTS, &xt, &cy, 0,
                                 &yt), 0);
    CHECK_EQ(shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    CHECK_EQ(got.num_contexts, 3);
    CHECK_EQ(shmem_team_get_config(yt, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    CHECK_EQ(got.num_contexts, 0);
    shmem_ctx_t c1, c2;
    CHECK_EQ(shmem_team_create_ctx(yt, 0, &c1), 0);
    CHECK_EQ(shmem_team_create_ctx(yt, 0, &c2), 0);
    CHECK_EQ(shmem_team_get_config(yt, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    CHECK_EQ(got.num_contexts, 2); /* the current value */
    shmem_ctx_destroy(c1);
    /* c2 is shareable: destroying the team destroys it */
    shmem_team_destroy(yt);
    shmem_team_destroy(xt);

    three_d();
    return test_pass("team_2d");
}
