/* setup.c -- setup and query routines: PE numbers (also the pre-1.2
 * names), accessibility, shmem_ptr for every PE on the node (heap and
 * globals), version and name, thread levels, query_initialized and a
 * second init/finalize in the same program (1.6). */
#include <pthread.h>

#include "harness.h"

long g_word;

static void one_session(int round)
{
    int provided = -1, initialized = -1;

    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init_thread");
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided %d", provided);
    int level = -1;
    shmem_query_thread(&level);
    CHECK_EQ(level, provided);
    shmem_query_initialized(&initialized);
    CHECK(initialized != 0, "query_initialized after init");

    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(me >= 0 && me < n, "my_pe %d n_pes %d", me, n);
    CHECK_EQ(_my_pe(), me);
    CHECK_EQ(_num_pes(), n);
    CHECK(shmem_pe_accessible(n - 1) && !shmem_pe_accessible(n) && !shmem_pe_accessible(-1),
          "pe_accessible");

    long *heap = shmem_malloc(sizeof(long));
    long stack_word = 0;
    CHECK(shmem_addr_accessible(heap, 0) && shmem_addr_accessible(&g_word, n - 1),
          "heap and globals are accessible");
    CHECK(!shmem_addr_accessible(&stack_word, 0), "a stack variable is not symmetric");

    /* shmem_ptr: a direct pointer to every PE (one node), writes show up */
    *heap = -1;
    g_word = -1;
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++) {
        long *ph = shmem_ptr(heap, pe), *pg = shmem_ptr(&g_word, pe);
        CHECK(ph != NULL && pg != NULL, "shmem_ptr NULL for PE %d", pe);
        CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, heap, pe) == (void *)ph, "team_ptr WORLD");
        if (pe == (me + 1) % n) {
            __atomic_store_n(ph, me + round * 100, __ATOMIC_RELAXED);
            __atomic_store_n(pg, me + round * 100, __ATOMIC_RELAXED);
        }
    }
    CHECK(shmem_ptr(heap, me) == (void *)heap, "shmem_ptr to self");
    CHECK(shmem_ptr(&stack_word, 0) == NULL, "shmem_ptr of a non-symmetric address");
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, heap, 0) == NULL, "team_ptr INVALID");
    shmem_barrier_all();
    CHECK_EQ(*heap, (me + n - 1) % n + round * 100);
    CHECK_EQ(g_word, (me + n - 1) % n + round * 100);

    int major, minor;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_version(&major, &minor);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION, "version");
    shmem_info_get_name(name);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "name");

    shmem_free(heap);
    shmem_finalize();
    shmem_query_initialized(&initialized);
    CHECK(initialized == 0, "query_initialized after finalize");
}

int main(void)
{
    int initialized = -1;

    shmem_query_initialized(&initialized);
    if (initialized != 0) {
        return 1;
    }
    one_session(0);
    one_session(1); /* re-initialisation (1.6) */

    /* nested init/finalize: only the last finalize tears down */
    shmem_init();
    shmem_init();
    shmem_finalize();
    shmem_query_initialized(&initialized);
    CHECK(initialized != 0, "still initialized after the inner finalize");
    shmem_barrier_all();
    return test_pass("setup and query routines, re-init");
}
