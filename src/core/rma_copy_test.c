/*
 * rma_copy_test.c -- unit test of the on-node copies of put and get
 * (shr_copy_once, shr_copy_get, shr_copy_skewed, shr_copy_window): every
 * skew of the destination against the source modulo 4 KiB from 0 to 80 and
 * around 4 KiB, lengths on both sides of the skew window's bounds and of
 * the vector loop's, with memcpy and (where the CPU has it) the vector
 * loop, one rep movsb (2 MiB) and, where the L2 is 1 MiB, rep movsb in
 * 128 KiB pieces (1 MiB); the bytes arrive and no byte outside the
 * destination changes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/env.h"
#include "core/rma_inline.h"
#include "util/expect.h"

#define REGION (2 * SHR_COPY_SKEW_END_LEN + (64u << 10))
#define GUARD 64

typedef void copy_fn_t(void *dest, const void *src, size_t len);

static void copy_put(void *dest, const void *src, size_t len)
{
    shr_copy_once(dest, src, len);
}

static void copy_get(void *dest, const void *src, size_t len)
{
    shr_copy_get(dest, src, len);
}

static unsigned char pattern(size_t i, unsigned seed)
{
    return (unsigned char)((i * 131u + seed * 7u + (i >> 8)) ^ 0x5a);
}

/* One copy of len bytes from src_region + src_off to dst_region + dst_off. */
static void check_one(copy_fn_t *fn, const char *name, unsigned char *dst_region,
                      unsigned char *src_region, size_t dst_off, size_t src_off, size_t len)
{
    unsigned seed = (unsigned)(len + dst_off * 3 + src_off);
    unsigned char *d = dst_region + dst_off, *s = src_region + src_off;

    for (size_t i = 0; i < len; i++) {
        s[i] = pattern(i, seed);
    }
    memset(d - GUARD, 0xEE, len + 2 * GUARD);
    fn(d, s, len);
    for (size_t i = 0; i < len; i++) {
        if (d[i] != pattern(i, seed)) {
            fprintf(stderr, "%s of %zu bytes, skew %zu: byte %zu is %u, want %u\n", name, len,
                    (size_t)((uintptr_t)(d - s) & 4095), i, d[i], pattern(i, seed));
            EXPECT(d[i] == pattern(i, seed));
            return;
        }
    }
    for (size_t i = 0; i < GUARD; i++) {
        if (d[-1 - (ptrdiff_t)i] != 0xEE || d[len + i] != 0xEE) {
            fprintf(stderr, "%s of %zu bytes, skew %zu: wrote outside the destination\n", name,
                    len, (size_t)((uintptr_t)(d - s) & 4095));
            EXPECT(d[-1 - (ptrdiff_t)i] == 0xEE && d[len + i] == 0xEE);
            return;
        }
    }
}

/* Every check, with the copy shr_copy_select chose for `mode`; `wide` is
 * the longest copy the vector loop takes (0: none). */
static void check_all(unsigned char *dst, unsigned char *src, size_t wide)
{
    /* both sides of each bound: a put's shapes (33, 40, 65, 72, 145 B), its
     * interior (its length less 16) */
    static const size_t lens[] = {1, 7, 8, 15, 16, 17, 31, 32, 33, 39, 40, 48, 63, 64, 65, 71,
                                  72, 79, 80, 100, 127, 128, 129, 143, 144, 145, 200, 513,
                                  576, 640, 704, 1000, 4096, /* whole lines: 1-3, 0 mod 4 */
                                  SHR_COPY_SKEW_MIN_LEN - 1,
                                  SHR_COPY_SKEW_MIN_LEN, SHR_COPY_SKEW_MIN_LEN + 15,
                                  SHR_COPY_SKEW_MIN_LEN + 16, SHR_COPY_SKEW_MIN_LEN + 17,
                                  SHR_COPY_SKEW_MIN_LEN + 61, 4096 + 13, 65536 + 5};
    /* with a 1 MiB L2, 1 MiB in 128 KiB pieces and 2 MiB in one rep movsb */
    static const size_t long_lens[] = {SHR_COPY_SKEW_END_LEN - 1, SHR_COPY_SKEW_END_LEN,
                                       SHR_COPY_SKEW_END_LEN + 16, SHR_COPY_SKEW_END_LEN + 17,
                                       2 * SHR_COPY_SKEW_END_LEN + 17};
    static const size_t long_skews[] = {0, 1, 8, SHR_COPY_SKEW_MAX, SHR_COPY_SKEW_MAX + 1};
    static const size_t src_offs[] = {0, 3, 8};
    /* both sides of the vector loop's longest copy, for a put's interior too */
    const size_t wide_lens[] = {wide - 1, wide, wide + 1, wide + 15, wide + 16, wide + 17};
    size_t skewed = 0;

    for (size_t skew = 0; skew < 4096; skew = skew == 80 ? 4096 - 80 : skew + 1) {
        for (size_t k = 0; k < SHR_ARRAY_SIZE(src_offs); k++) {
            size_t so = 4096 + src_offs[k], doff = 4096 + src_offs[k] + skew;

            for (size_t l = 0; l < SHR_ARRAY_SIZE(lens); l++) {
                check_one(copy_put, "put", dst, src, doff, so, lens[l]);
                check_one(copy_get, "get", dst, src, doff, so, lens[l]);
                skewed += shr_copy_is_skewed(dst + doff, src + so, lens[l]);
            }
        }
        /* the skewed copy on its own, every length up to 300 */
        for (size_t len = 16; len <= 300; len++) {
            check_one(shr_copy_skewed, "skewed copy", dst, src, 4096 + skew, 4096, len);
        }
    }
    /* the upper bound, at a few skews */
    for (size_t k = 0; k < SHR_ARRAY_SIZE(long_skews); k++) {
        for (size_t l = 0; l < SHR_ARRAY_SIZE(long_lens); l++) {
            check_one(copy_put, "put", dst, src, 4096 + long_skews[k], 4096, long_lens[l]);
            check_one(copy_get, "get", dst, src, 4096 + long_skews[k], 4096, long_lens[l]);
        }
    }
    for (size_t k = 0; wide != 0 && k < SHR_ARRAY_SIZE(long_skews); k++) {
        for (size_t l = 0; l < SHR_ARRAY_SIZE(wide_lens); l++) {
            for (size_t o = 0; o < 64; o += 7) {
                check_one(copy_put, "put", dst, src, 4096 + o + long_skews[k], 4096 + o,
                          wide_lens[l]);
                check_one(copy_get, "get", dst, src, 4096 + o + long_skews[k], 4096 + o,
                          wide_lens[l]);
            }
        }
    }
    EXPECT(skewed > 0); /* some copy took the skewed path */
}

int main(void)
{
    unsigned char *src = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *dst = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (src == MAP_FAILED || dst == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    EXPECT(shr_copy_select(SHR_SHM_COPY_MEMCPY) == 0);
    check_all(dst, src, 0);
    size_t wide = shr_copy_select(SHR_SHM_COPY_AVX512);
    if (wide != 0) {
        EXPECT(wide > SHR_COPY_SKEW_MIN_LEN && wide + 4096 + 128 < REGION);
        check_all(dst, src, wide);
        if (sysconf(_SC_LEVEL2_CACHE_SIZE) != 1 << 20) { /* shr_copy_select's test */
            printf("the L2 is not 1 MiB: rep movsb in pieces is not tested\n");
        }
    } else {
        printf("no AVX-512 here: the vector loop is not tested\n");
    }
    munmap(src, REGION);
    munmap(dst, REGION);
    if (failures == 0) {
        printf("PASS rma_copy\n");
    }
    return failures != 0;
}
