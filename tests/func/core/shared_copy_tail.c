/*
 * shared_copy_tail -- shared copies (docs/shared-copy.md) whose last chunk
 * would be short: from 64 MiB on a copy is cut into 1025 or more chunks of
 * 64 KiB, and a length just past a multiple of that leaves a last chunk of
 * a few bytes.  PE 0 puts to and gets from PE 1 (which waits in a barrier,
 * helping) at such lengths; every byte must arrive and no byte beside the
 * destination change (a last chunk of 1-127 bytes was copied with 64-byte
 * moves that wrote up to 64 bytes past the destination's end).
 * Skips where the PEs outnumber the CPUs: sharing is off there.
 */
#include <unistd.h>

#include "../harness.h"

#define CHUNKS_LEN ((size_t)64 << 20) /* 1024 chunks of 64 KiB */
#define GUARD 256                     /* a multiple of 64: see below */
#define MAX_LEN (CHUNKS_LEN + 72 + 2049)

/* The bytes of a copy: a block of the harness pattern of `seed`, repeated
 * (a block of a prime length, so that no chunk is a shifted copy of
 * another; memcpy and memcmp keep 64 MiB quick under the sanitizers). */
#define BLOCK 4093
static unsigned char block[BLOCK];

static void fill(unsigned char *p, size_t len, unsigned seed)
{
    for (size_t i = 0; i < BLOCK; i++) {
        block[i] = test_byte(0, i, seed);
    }
    for (size_t at = 0; at < len; at += BLOCK) {
        memcpy(p + at, block, len - at < BLOCK ? len - at : BLOCK);
    }
}

/* buf holds GUARD bytes of 0xee, the len copied (block, repeated), GUARD
 * bytes of 0xee. */
static void check(const unsigned char *buf, size_t len, const char *what)
{
    for (size_t at = 0; at < len; at += BLOCK) {
        CHECK(memcmp(buf + GUARD + at, block, len - at < BLOCK ? len - at : BLOCK) == 0,
              "%s of %zu bytes: bytes %zu.. are wrong", what, len, at);
    }
    for (size_t i = 0; i < GUARD; i++) {
        CHECK(buf[i] == 0xee && buf[GUARD + len + i] == 0xee,
              "%s of %zu bytes: a byte %zu before it or past its end was written", what, len, i);
    }
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2 || npes > sysconf(_SC_NPROCESSORS_ONLN)) {
        shmem_finalize();
        return TEST_SKIP;
    }
    /* line-aligned (the segments start on pages), so the copies' offsets
     * below end their last chunks `tail` bytes past a line */
    unsigned char *dst = shmem_align(64, MAX_LEN + 2 * GUARD);
    unsigned char *src = shmem_align(64, MAX_LEN + 2 * GUARD);
    CHECK(dst != NULL && src != NULL, "out of symmetric heap; SHMEM_SYMMETRIC_SIZE=160M");
    /* 1-127: stored past by 64-byte moves before the fix; 2048 joins the
     * chunk before, 2049 (shr_copy_window's shortest) stays a chunk */
    static const size_t tails[] = {1, 56, 127, 128, 2048, 2049};
    unsigned seed = 1;

    for (size_t k = 0; k < sizeof(tails) / sizeof(tails[0]); k++) {
        for (int op = 0; op < 2; op++, seed++) {
            /* a get shares its whole length; a put its interior, from byte 8
             * (8 bytes into a line here) to 8 bytes before its end */
            size_t len = CHUNKS_LEN + tails[k] + (op == 0 ? 72 : 0);
            memset(dst, 0xee, len + 2 * GUARD);
            fill(src + GUARD, len, seed);
            shmem_barrier_all();
            if (me == 0) {
                if (op == 0) {
                    shmem_putmem(dst + GUARD, src + GUARD, len, 1);
                } else {
                    shmem_getmem(dst + GUARD, src + GUARD, len, 1);
                    check(dst, len, "get");
                }
            }
            shmem_barrier_all();
            if (me == 1 && op == 0) {
                check(dst, len, "put");
            }
        }
    }
    shmem_free(src);
    shmem_free(dst);
    return test_pass("shared_copy_tail");
}
