/* mn_atomic_mix.c -- AMOs on one location stay atomic whichever path
 * issues them: PEs on the target's node use CPU atomics on their mapping,
 * PEs on other nodes go through UCX, all at the same time, on the same
 * words.  Checks:
 *   - fetch_add (64 and 32 bit): every returned value is unique across all
 *     PEs and the final value is the total (a lost or doubled update on
 *     either path shows);
 *   - add + inc interleaved with fetch_add on one word: the total;
 *   - compare_swap increment loops: the total, and no PE's CAS succeeds on
 *     a value another PE also claimed;
 *   - fetch_xor / fetch_or / fetch_and toggling disjoint bits of one word.
 * Targets: PE 0 and the last PE (so each node hosts a contended word).
 * Run it where both paths exist: 2 hosts x 2 PEs, or one host with
 * SHIMMER_REMOTE_PES naming some PEs. */
#include <stdbool.h>

#include "harness.h"

#define ITERS 400

static uint64_t ctr64;
static uint32_t ctr32;
static uint64_t mixed;
static uint64_t cas_word;
static uint64_t bits;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void check_unique(uint64_t *seen, int me, int n, const char *what, int target)
{
    /* every PE's values gathered on every PE; then sort and look for twins */
    uint64_t *all = shmem_malloc((size_t)n * ITERS * sizeof(uint64_t));
    CHECK(all != NULL, "shmem_malloc");
    shmem_barrier_all();
    shmem_fcollectmem(SHMEM_TEAM_WORLD, all, seen, ITERS * sizeof(uint64_t));
    if (me == 0) {
        qsort(all, (size_t)n * ITERS, sizeof(uint64_t), cmp_u64);
        for (size_t i = 0; i < (size_t)n * ITERS; i++) {
            CHECK(all[i] == i, "%s on PE %d: the %zu-th smallest value returned is %llu: an "
                  "update was lost or applied twice", what, target, i,
                  (unsigned long long)all[i]);
        }
    }
    shmem_barrier_all();
    shmem_free(all);
}

static void round_on(int target, int me, int n)
{
    uint64_t *seen = shmem_malloc(ITERS * sizeof(uint64_t));
    CHECK(seen != NULL, "shmem_malloc");

    ctr64 = ctr32 = 0;
    mixed = cas_word = bits = 0;
    shmem_barrier_all();

    /* 64-bit fetch_add, unique results */
    for (int i = 0; i < ITERS; i++) {
        seen[i] = shmem_uint64_atomic_fetch_add(&ctr64, 1, target);
    }
    check_unique(seen, me, n, "uint64 fetch_add", target);

    /* 32-bit fetch_inc, unique results */
    for (int i = 0; i < ITERS; i++) {
        seen[i] = shmem_uint32_atomic_fetch_inc(&ctr32, target);
    }
    check_unique(seen, me, n, "uint32 fetch_inc", target);

    /* add, inc and fetch_add interleaved on one word */
    for (int i = 0; i < ITERS; i++) {
        switch (i % 3) {
        case 0: shmem_uint64_atomic_add(&mixed, 3, target); break;
        case 1: shmem_uint64_atomic_inc(&mixed, target); break;
        default: (void)shmem_uint64_atomic_fetch_add(&mixed, 5, target); break;
        }
    }

    /* compare_swap increments: the value a CAS installs is claimed once */
    for (int i = 0; i < ITERS; i++) {
        uint64_t cur = shmem_uint64_atomic_fetch(&cas_word, target);
        for (;;) {
            uint64_t old = shmem_uint64_atomic_compare_swap(&cas_word, cur, cur + 1, target);
            if (old == cur) {
                seen[i] = cur;
                break;
            }
            cur = old;
        }
    }
    check_unique(seen, me, n, "compare_swap increment", target);

    /* bit toggles: PE p owns bit p % 64; xor twice per round leaves it, or
     * sets it, and fetch_and keeps it */
    uint64_t mine = 1ull << (me % 64);
    for (int i = 0; i < ITERS; i++) {
        (void)shmem_uint64_atomic_fetch_xor(&bits, mine, target);
        (void)shmem_uint64_atomic_fetch_xor(&bits, mine, target);
    }
    (void)shmem_uint64_atomic_fetch_or(&bits, mine, target);
    (void)shmem_uint64_atomic_fetch_and(&bits, ~0ull, target);

    shmem_barrier_all();
    if (me == target) {
        uint64_t per_pe = (ITERS / 3 + (ITERS % 3 > 0)) * 3 + (ITERS / 3 + (ITERS % 3 > 1)) * 1 +
                          (ITERS / 3) * 5;
        uint64_t all_bits = n >= 64 ? ~0ull : (1ull << n) - 1;
        CHECK(ctr64 == (uint64_t)n * ITERS, "ctr64 %llu", (unsigned long long)ctr64);
        CHECK(ctr32 == (uint32_t)(n * ITERS), "ctr32 %u", ctr32);
        CHECK(mixed == per_pe * (uint64_t)n, "mixed %llu, want %llu", (unsigned long long)mixed,
              (unsigned long long)(per_pe * (uint64_t)n));
        CHECK(cas_word == (uint64_t)n * ITERS, "cas_word %llu", (unsigned long long)cas_word);
        CHECK(bits == all_bits, "bits %#llx, want %#llx", (unsigned long long)bits,
              (unsigned long long)all_bits);
    }
    shmem_barrier_all();
    shmem_free(seen);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int shared = shmem_team_n_pes(SHMEM_TEAM_SHARED);

    if (me == 0) {
        printf("mn_atomic_mix: %d PEs, %d share PE 0's memory, %d reach it through the "
               "remote transport\n", n, shared, n - shared);
    }
    round_on(0, me, n);
    if (n > 1) {
        round_on(n - 1, me, n);
    }
    return test_pass("mn_atomic_mix");
}
