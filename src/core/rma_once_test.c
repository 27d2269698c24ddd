/*
 * rma_once_test.c -- unit test of what a put promises a PE polling its
 * ends (docs/memory-ordering.md): shr_copy_once stores the first and the
 * last 8 bytes once each, each in one store, the last one last.  A final
 * comparison cannot see a byte stored twice, so this traces the stores:
 * the destination is read-only, each store faults, the handler lets that
 * one instruction run (the trap flag), notes which bytes it wrote and
 * writes the poison back.  Every length from 33 to 2 KiB at destination
 * offsets in a cache line on both sides of each bound (`all`: every one),
 * with memcpy and (where the CPU has it) the vector copy, whose 64-byte
 * loops (shr_copy_wide, whole lines) also at a few lengths up to 8 KiB
 * and at the longest they take; a put of whole lines past the inline
 * copies stores every byte once.  x86-64 only (the trap flag).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__x86_64__)

#include "core/env.h"
#include "core/rma_inline.h"
#include "util/expect.h"

#define MAX_LEN 2048
#define LONG_LEN (24u << 10) /* the longest put traced: the vector copy's longest on Zen 5 */
#define POISON 0xEE
#define REGION (2 * LONG_LEN + 2 * 4096)
#define TRAP_FLAG 0x100

static unsigned char *region;
static size_t lo, hi;                      /* the bytes a store may reach: the put's, and 64 each side */
static size_t lines_max;                   /* the longest put of whole lines the vector copy
                                              stores line by line (0: memcpy chosen) */
static volatile unsigned stores;           /* store instructions traced so far */
static unsigned writes[REGION];           /* per byte: times stored */
static unsigned first_store[REGION];      /* ... by which store (the first) */
static unsigned last_store[REGION];       /* ... by which store (the last) */
static unsigned char value[REGION];        /* ... the last value stored */

static void on_segv(int sig, siginfo_t *si, void *uc_)
{
    ucontext_t *uc = uc_;
    unsigned char *a = si->si_addr;

    if (a < region || a >= region + REGION) {
        signal(sig, SIG_DFL); /* not ours: die of it */
        return;
    }
    (void)mprotect(region, REGION, PROT_READ | PROT_WRITE);
    uc->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG; /* back here after this one store */
}

static void on_trap(int sig, siginfo_t *si, void *uc_)
{
    ucontext_t *uc = uc_;
    unsigned id = ++stores;

    (void)sig;
    (void)si;
    for (size_t i = lo; i < hi; i++) {
        if (region[i] != POISON) {
            writes[i]++;
            first_store[i] = writes[i] == 1 ? id : first_store[i];
            last_store[i] = id;
            value[i] = region[i];
            region[i] = POISON; /* so that a second store of the same value shows */
        }
    }
    (void)mprotect(region, REGION, PROT_READ);
    uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)TRAP_FLAG;
}

/* One put of len bytes to region + off; false on a broken promise. */
static bool check_one(const char *mode, const unsigned char *src, size_t off, size_t len)
{
    unsigned char *d = region + off;
    size_t head = off, tail = off + len - 8;

    lo = off - 64;
    hi = off + len + 64;
    memset(writes + lo, 0, (hi - lo) * sizeof(writes[0]));
    stores = 0;
    (void)mprotect(region, REGION, PROT_READ);
    shr_copy_once(d, src, len);
    (void)mprotect(region, REGION, PROT_READ | PROT_WRITE);

    /* whole lines past the inline copies (shr_copy_lines): every byte once */
    bool lines = ((uintptr_t)d | len) % 64 == 0 && len > shr_copy_inline_max && len <= lines_max;
    bool ok = true;
    for (size_t i = lo; i < hi; i++) {
        bool inside = i >= off && i < off + len;
        ok = ok && (inside ? (lines ? writes[i] == 1 : writes[i] >= 1) && value[i] == src[i - off]
                           : writes[i] == 0);
    }
    for (size_t i = 0; i < 8; i++) {
        ok = ok && writes[head + i] == 1 && first_store[head + i] == first_store[head];
        ok = ok && writes[tail + i] == 1 && first_store[tail + i] == first_store[tail];
    }
    ok = ok && first_store[tail] == stores; /* the last word last */
    if (!ok) {
        fprintf(stderr, "%s put of %zu bytes at line offset %zu: the ends were not stored once "
                        "each, in one store, the last last%s (head: %u stores, tail: %u, tail's "
                        "store %u of %u)\n",
                mode, len, (size_t)((uintptr_t)d & 63),
                lines ? ", or a byte of its whole lines not once" : "", writes[head], writes[tail],
                first_store[tail], stores);
    }
    return ok;
}

/* Every length from 33 to 2 KiB at the destination offsets (in a cache
 * line) offs[0..n). */
static void check_all(const char *mode, const unsigned char *src, const size_t *offs, size_t n)
{
    unsigned bad = 0;

    for (size_t len = 33; len <= MAX_LEN; len++) {
        for (size_t k = 0; k < n; k++) {
            if (!check_one(mode, src, 4096 + offs[k], len) && ++bad >= 8) {
                EXPECT(bad == 0);
                return;
            }
        }
    }
    EXPECT(bad == 0);
}

/* The vector copy's 64-byte loops, which shr_copy_once_vec takes whole
 * from 2049 B (or between the ends' 8 bytes), and whole lines at a line's
 * start (1-3 or 0 lines mod 4): a few lengths past 2 KiB, below half of
 * any L1, and `wide`, the longest (not memcpy's: glibc's rep movsb from
 * 2113 B writes many bytes in one traced instruction). */
static void check_long(const char *mode, const unsigned char *src, const size_t *offs, size_t n,
                       size_t wide)
{
    static const size_t long_lens[] = {2049, 2056, 2112, 2113, 2120, 2176, 2240,
                                       4096, 4104, 8128, 8192, 8200};

    for (size_t l = 0; l <= SHR_ARRAY_SIZE(long_lens); l++) {
        size_t len = l < SHR_ARRAY_SIZE(long_lens) ? long_lens[l] : wide;

        for (size_t k = 0; k < n && len <= LONG_LEN; k++) {
            EXPECT(check_one(mode, src, 4096 + offs[k], len));
        }
    }
    if (wide > LONG_LEN) {
        printf("the vector copy's longest put, %zu bytes, is past the %u traced: not traced\n",
               wide, LONG_LEN);
    }
}

/* argv[1] `all`: every offset in a cache line (~2 minutes); without it,
 * both sides of each bound the copies test (8-byte alignment, the last
 * 8 bytes of a line) and the commonest (0). */
int main(int argc, char **argv)
{
    static const size_t some[] = {0, 1, 7, 8, 9, 31, 55, 56, 57, 63};
    size_t every[64];
    static unsigned char src[LONG_LEN];
    bool all = argc > 1 && strcmp(argv[1], "all") == 0;
    struct sigaction sa = {.sa_flags = SA_SIGINFO};

    region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    memset(region, POISON, REGION);
    for (size_t i = 0; i < LONG_LEN; i++) {
        src[i] = (unsigned char)(i * 131u + 7u);
        src[i] = src[i] == POISON ? 0x11 : src[i];
    }
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_segv;
    sigaction(SIGSEGV, &sa, NULL);
    sa.sa_sigaction = on_trap;
    sigaction(SIGTRAP, &sa, NULL);

    for (size_t o = 0; o < 64; o++) {
        every[o] = o;
    }
    const size_t *offs = all ? every : some;
    size_t n = all ? 64 : SHR_ARRAY_SIZE(some);

    EXPECT(shr_copy_select(SHR_SHM_COPY_MEMCPY) == 0);
    check_all("memcpy", src, offs, n);
    size_t wide = shr_copy_select(SHR_SHM_COPY_AVX512);
    lines_max = wide;
    if (wide != 0) {
        check_all("vector", src, offs, n);
        check_long("vector", src, offs, n, wide);
    } else {
        printf("no AVX-512 here: the vector copy is not tested\n");
    }
    if (failures == 0) {
        printf("PASS rma_once\n");
    }
    return failures != 0;
}

#else
int main(void)
{
    printf("SKIP rma_once: the store trace needs x86-64's trap flag\n");
    return 77;
}
#endif
