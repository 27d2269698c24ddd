/* interpose.c -- the profiling interface (spec section 10) from a tool's
 * side: this program defines its own shmem_putmem, shmem_long_p,
 * shmem_ctx_create and shmem_team_split_strided, each counting its calls
 * and forwarding to the pshmem_ name.  Calls made by the program (directly
 * and through the C11 generic shmem_p) must reach the wrappers, and the
 * forwarded operations must still work.  Built against the shared and the
 * static library. */
#include <pshmem.h>

#include "harness.h"

static int n_putmem, n_long_p, n_ctx_create, n_split;

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    n_putmem++;
    pshmem_putmem(dest, source, nelems, pe);
}

void shmem_long_p(long *dest, long value, int pe)
{
    n_long_p++;
    pshmem_long_p(dest, value, pe);
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    n_ctx_create++;
    return pshmem_ctx_create(options, ctx);
}

int shmem_team_split_strided(shmem_team_t parent, int start, int stride, int size,
                             const shmem_team_config_t *config, long mask, shmem_team_t *team)
{
    n_split++;
    return pshmem_team_split_strided(parent, start, stride, size, config, mask, team);
}

static long box[3];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), next = (me + 1) % n;
    long v = me + 100;

    shmem_putmem(&box[0], &v, sizeof(v), next);
    shmem_long_p(&box[1], v, next);
    shmem_p(&box[2], v, next); /* the generic selects shmem_long_p */
    shmem_ctx_t ctx;
    CHECK_EQ(shmem_ctx_create(0, &ctx), 0);
    shmem_ctx_destroy(ctx);
    shmem_team_t team;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &team), 0);
    shmem_team_destroy(team);
    shmem_barrier_all();

    long want = (me + n - 1) % n + 100;
    CHECK_EQ(box[0], want);
    CHECK_EQ(box[1], want);
    CHECK_EQ(box[2], want);
    CHECK_EQ(n_putmem, 1);
    CHECK_EQ(n_long_p, 2);
    CHECK_EQ(n_ctx_create, 1);
    CHECK_EQ(n_split, 1);
    return test_pass("interpose");
}
