/* churn.c -- create and destroy what programs create and destroy in loops
 * (contexts, teams, heap blocks): resident memory and open descriptors stay
 * flat.  Each phase is measured after a warm-up tenth (allocator caches,
 * recycled structs) and again at its end.
 * argv: contexts teams mallocs (default 10000 1000 100000). */
#include "harness.h"
#include "procstat.h"

/* Growth allowed after warm-up: far below one leaked page per iteration.
 * ASan's quarantine holds freed memory on purpose (its leak check covers
 * that build), so there only descriptors are compared. */
#if defined(__SANITIZE_ADDRESS__)
#define SLACK_KIB (1L << 30)
#else
#define SLACK_KIB 512
#endif

static void check_flat(const char *what, long rss0, int fds0, long iterations)
{
    long rss = proc_rss_kib();
    int fds = proc_fd_count();

    CHECK(rss - rss0 <= SLACK_KIB, "%s: RSS grew by %ld KiB over %ld iterations", what,
          rss - rss0, iterations);
    CHECK(fds == fds0, "%s: %d descriptors open, %d after warm-up", what, fds, fds0);
}

int main(int argc, char **argv)
{
    long contexts = argc > 1 ? atol(argv[1]) : 10000;
    long teams = argc > 2 ? atol(argv[2]) : 1000;
    long mallocs = argc > 3 ? atol(argv[3]) : 100000;
    static long word;
    long rss0 = 0;
    int fds0 = 0;

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();

    for (long i = 0; i < contexts; i++) {
        shmem_ctx_t ctx;
        if (i == contexts / 10) {
            rss0 = proc_rss_kib();
            fds0 = proc_fd_count();
        }
        CHECK_EQ(shmem_ctx_create(i % 2 ? SHMEM_CTX_PRIVATE : 0, &ctx), 0);
        shmem_ctx_long_atomic_inc(ctx, &word, (me + 1) % n);
        shmem_ctx_quiet(ctx);
        shmem_ctx_destroy(ctx);
    }
    check_flat("contexts", rss0, fds0, contexts);
    shmem_barrier_all();
    CHECK_EQ(word, contexts);

    for (long i = 0; i < teams; i++) {
        shmem_team_t team;
        if (i == teams / 10) {
            rss0 = proc_rss_kib();
            fds0 = proc_fd_count();
        }
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &team), 0);
        CHECK_EQ(shmem_team_n_pes(team), n);
        shmem_team_destroy(team);
    }
    check_flat("teams", rss0, fds0, teams);

    for (long i = 0; i < mallocs; i++) {
        if (i == mallocs / 10) {
            rss0 = proc_rss_kib();
            fds0 = proc_fd_count();
        }
        /* sizes up to 64 KiB: several size classes and block splits */
        size_t size = (size_t)8 << (i % 14);
        char *p = shmem_malloc(size);
        CHECK(p != NULL, "malloc %ld of %zu bytes", i, size);
        p[0] = p[size - 1] = 1;
        shmem_free(p);
    }
    check_flat("malloc/free", rss0, fds0, mallocs);
    return test_pass("churn");
}
