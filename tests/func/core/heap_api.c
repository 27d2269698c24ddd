/* heap_api.c -- shmem_malloc/free/realloc/align/calloc/malloc_with_hints
 * and the deprecated names: symmetry, alignment, data kept by realloc,
 * zeroing, the size-0 and NULL rules, exhaustion returning NULL. */
#include "harness.h"

static void check_symmetric(void *p, size_t bytes)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    unsigned char *c = p, saved = c[bytes - 1];
    c[bytes - 1] = (unsigned char)me;
    shmem_barrier_all();
    /* the same address names the same object on the neighbour */
    unsigned char got = shmem_uchar_g(&c[bytes - 1], (me + 1) % n);
    CHECK(got == (unsigned char)((me + 1) % n), "object not symmetric");
    shmem_barrier_all();
    c[bytes - 1] = saved;
}

int main(void)
{
    shmem_init();

    CHECK(shmem_malloc(0) == NULL, "malloc(0)");
    CHECK(shmem_calloc(0, 8) == NULL && shmem_calloc(8, 0) == NULL, "calloc with 0");
    shmem_free(NULL);

    void *a = shmem_malloc(1000);
    CHECK(a != NULL && (uintptr_t)a % 16 == 0, "malloc alignment");
    check_symmetric(a, 1000);

    /* 1, 2 and 4 too: OpenSHMEM 1.5 programs ask for them */
    for (size_t align = 1; align <= (1u << 20); align <<= 1) {
        void *b = shmem_align(align, 100);
        CHECK(b != NULL && (uintptr_t)b % align == 0, "align %zu", align);
        check_symmetric(b, 100);
        shmem_free(b);
    }

    /* calloc zeroes even reused memory */
    unsigned char *c = shmem_malloc(4096);
    memset(c, 0xAB, 4096);
    shmem_free(c);
    c = shmem_calloc(512, 8);
    for (int i = 0; i < 4096; i++) {
        CHECK(c[i] == 0, "calloc byte %d not zero", i);
    }

    /* realloc keeps the data, in place or moved */
    int *r = shmem_malloc(16 * sizeof(int));
    for (int i = 0; i < 16; i++) {
        r[i] = i * 3;
    }
    r = shmem_realloc(r, 1u << 20); /* a block follows it: must move or grow */
    CHECK(r != NULL, "realloc grow");
    for (int i = 0; i < 16; i++) {
        CHECK_EQ(r[i], i * 3);
    }
    check_symmetric(r, 1u << 20);
    r = shmem_realloc(r, 8 * sizeof(int));
    for (int i = 0; i < 8; i++) {
        CHECK_EQ(r[i], i * 3);
    }
    CHECK(shmem_realloc(r, 0) == NULL, "realloc to 0 frees");
    int *fresh = shmem_realloc(NULL, 64);
    CHECK(fresh != NULL, "realloc(NULL) allocates");

    void *h = shmem_malloc_with_hints(256, SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);
    CHECK(h != NULL, "malloc_with_hints");
    check_symmetric(h, 256);
    void *h2 = shmem_malloc_with_hints(256, 1L << 20); /* unknown hint: plain malloc */
    CHECK(h2 != NULL, "unknown hint");

    /* deprecated names */
    void *old = shmalloc(300);
    CHECK(old != NULL, "shmalloc");
    old = shrealloc(old, 600);
    CHECK(old != NULL, "shrealloc");
    void *al = shmemalign(64, 64);
    CHECK(al != NULL && (uintptr_t)al % 64 == 0, "shmemalign");
    shfree(al);
    shfree(old);

    /* exhaustion: NULL on every PE, and the heap stays usable */
    void *huge = shmem_malloc((size_t)1 << 50);
    CHECK(huge == NULL, "1 PiB must fail");
    void *after = shmem_malloc(64);
    CHECK(after != NULL, "heap usable after a failure");

    /* thousands of allocations and frees in mixed order */
    void *ptrs[500];
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 500; i++) {
            ptrs[i] = shmem_malloc((size_t)(i % 37 + 1) * 24);
            CHECK(ptrs[i] != NULL, "alloc %d", i);
        }
        for (int i = 0; i < 500; i += 2) {
            shmem_free(ptrs[i]);
        }
        for (int i = 499; i > 0; i -= 2) {
            shmem_free(ptrs[i]);
        }
    }
    shmem_free(after);
    shmem_free(h);
    shmem_free(h2);
    shmem_free(fresh);
    shmem_free(c);
    shmem_free(a);
    return test_pass("heap API");
}
