/*
 * rma_guard_test.c -- unit test of the on-node copies of put and get
 * (shr_copy_once, shr_copy_get) against inaccessible pages: every length
 * from 0 to 8 KiB and a few from 1 MiB (one rep movsb), with the source or
 * the destination ending right before, or starting right after, a page
 * that faults, at skews 0 to 4 KiB apart; with memcpy and (where the CPU
 * has it) the 64-byte loop.  A load or store outside the range faults;
 * the bytes arrive and no byte beside the destination changes.
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

#define SPAN ((size_t)(2u << 20) + (64u << 10)) /* the longest copy plus room */
#define SIDE 64                                   /* bytes checked beside the destination */

typedef void copy_fn_t(void *dest, const void *src, size_t len);

static void copy_put(void *dest, const void *src, size_t len)
{
    shr_copy_once(dest, src, len);
}

static void copy_get(void *dest, const void *src, size_t len)
{
    shr_copy_get(dest, src, len);
}

/* SPAN accessible bytes between two PROT_NONE pages; returns the first. */
static unsigned char *guarded(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *m = mmap(NULL, SPAN + 2 * page, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (m == MAP_FAILED || mprotect(m, page, PROT_NONE) != 0 ||
        mprotect(m + page + SPAN, page, PROT_NONE) != 0) {
        perror("mmap");
        exit(1);
    }
    return m + page;
}

static unsigned char *src_pattern;

/* One copy of len bytes from s to d; d lies in [dlo, dhi), whose bytes
 * outside the copy hold 0xEE.  The source holds src_pattern's bytes. */
static void check_one(copy_fn_t *fn, const char *name, unsigned char *d, const unsigned char *s,
                      const unsigned char *pat, size_t len, const unsigned char *dlo,
                      const unsigned char *dhi)
{
    unsigned char *lo = d - SIDE < dlo ? (unsigned char *)dlo : d - SIDE;
    unsigned char *hi = d + len + SIDE > dhi ? (unsigned char *)dhi : d + len + SIDE;

    memset(lo, 0xEE, (size_t)(hi - lo));
    fn(d, s, len);
    if (memcmp(d, pat, len) != 0) {
        fprintf(stderr, "%s of %zu bytes, skew %zu: the bytes differ\n", name, len,
                (size_t)((uintptr_t)(d - s) & 4095));
        EXPECT(memcmp(d, pat, len) == 0);
    }
    for (unsigned char *p = lo; p < hi; p++) {
        if ((p < d || p >= d + len) && *p != 0xEE) {
            fprintf(stderr, "%s of %zu bytes, skew %zu: wrote %td bytes off the destination\n",
                    name, len, (size_t)((uintptr_t)(d - s) & 4095), p < d ? p - d : p - d - (ptrdiff_t)len);
            EXPECT(*p == 0xEE);
            return;
        }
    }
}

/* The four placements against the guard pages, the other side `k` bytes
 * in from its own guard (a skew of k or -k modulo 4 KiB). */
static void check_len(unsigned char *dst, unsigned char *src, size_t len, size_t k)
{
    copy_fn_t *fns[] = {copy_put, copy_get};
    const char *names[] = {"put", "get"};

    if (len + k > SPAN) {
        return;
    }
    for (int f = 0; f < 2; f++) {
        unsigned char *dend = dst + SPAN, *send = src + SPAN;
        /* ending at the guard: loads or stores past the end fault */
        memcpy(send - len, src_pattern, len);
        check_one(fns[f], names[f], dend - len - k, send - len, src_pattern, len, dst, dend);
        memcpy(send - k - len, src_pattern, len);
        check_one(fns[f], names[f], dend - len, send - k - len, src_pattern, len, dst, dend);
        /* starting at the guard: loads or stores before the start fault */
        memcpy(src, src_pattern, len);
        check_one(fns[f], names[f], dst + k, src, src_pattern, len, dst, dend);
        memcpy(src + k, src_pattern, len);
        check_one(fns[f], names[f], dst, src + k, src_pattern, len, dst, dend);
    }
}

static void check_all(unsigned char *dst, unsigned char *src)
{
    static const size_t ks[] = {0, 1, 3, 31, 32, 2053}; /* skews k and -k mod 4 KiB */
    static const size_t long_lens[] = {(1u << 20) - 1, 1u << 20, (1u << 20) + 1,
                                       (1u << 20) + 16, (1u << 20) + 17, (1u << 20) + 4099,
                                       (1u << 20) + (64u << 10) + 40, 2u << 20};

    for (size_t i = 0; i < SHR_ARRAY_SIZE(ks); i++) {
        for (size_t len = 0; len <= 8192; len++) {
            check_len(dst, src, len, ks[i]);
        }
        for (size_t l = 0; l < SHR_ARRAY_SIZE(long_lens); l++) {
            check_len(dst, src, long_lens[l], ks[i]);
        }
    }
}

int main(void)
{
    unsigned char *src = guarded(), *dst = guarded();

    src_pattern = malloc(SPAN);
    if (src_pattern == NULL) {
        return 1;
    }
    for (size_t i = 0; i < SPAN; i++) {
        src_pattern[i] = (unsigned char)((i * 131u + (i >> 8) + (i >> 16)) ^ 0x5a);
    }
    EXPECT(shr_copy_select(SHR_SHM_COPY_MEMCPY) == 0);
    check_all(dst, src);
    if (shr_copy_select(SHR_SHM_COPY_AVX512) != 0) {
        check_all(dst, src);
    } else {
        printf("no AVX-512 here: the vector loop is not tested\n");
    }
    free(src_pattern);
    if (failures == 0) {
        printf("PASS rma_guard\n");
    }
    return failures != 0;
}
