/*
 * shared_copy -- large puts and gets that this node's idle PEs copy part of
 * (docs/shared-copy.md): the bytes arrive whole, in both segments, at
 * lengths that end mid-chunk, with the destination's neighbours untouched,
 * from a symmetric source and (copied by the caller alone) a private one;
 * a PE polling a put's last word sees every byte of it once the word
 * changes; PEs that all copy at once (nobody idle) still get their data;
 * with `threads`, two threads of PE 0 share copies at once while two threads
 * of each other PE wait.  After finalize PE 0 reads its own debug log and
 * checks that it published shared copies and (but with `threads`, whose
 * copying threads may hold every CPU) that peers copied chunks of them,
 * unless the PEs outnumber the CPUs, where sharing is off.
 * Argument: `plain` or `threads`.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include "../harness.h"

#define MAX_LEN ((size_t)3 << 20)
#define GUARD 64

static char global_buf[MAX_LEN + 2 * GUARD]; /* the data segment's copy */
static long tail_flag;

static unsigned char pattern(size_t i, unsigned seed)
{
    return (unsigned char)(i * 131u + seed * 7u + (i >> 12));
}

static void fill(unsigned char *p, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++) {
        p[i] = pattern(i, seed);
    }
}

static void check_fill(const unsigned char *p, size_t len, unsigned seed, const char *what)
{
    for (size_t i = 0; i < len; i++) {
        CHECK(p[i] == pattern(i, seed), "%s: byte %zu of %zu is %u, want %u", what, i, len, p[i],
              pattern(i, seed));
    }
}

static void check_guards(const unsigned char *buf, size_t len, const char *what)
{
    for (size_t i = 0; i < GUARD; i++) {
        CHECK(buf[i] == 0xee && buf[GUARD + len + i] == 0xee,
              "%s: a byte beside the %zu copied was written", what, len);
    }
}

/* Lengths around the default threshold (192 KiB; a put shares its
 * interior, 16 bytes less) and the chunks' ends (64 KiB at most, equal,
 * on the destination's lines). */
static const size_t lengths[] = {
    128 << 10, (192 << 10) + 15, (192 << 10) + 16, (192 << 10) + 1000, (256 << 10) + 197,
    (1 << 20) + 7, (1 << 20) - 4093, (2 << 20) + 65535, MAX_LEN,
};

/* PE 0 puts to (and gets from) every other PE in turn while they wait in
 * a barrier; `seg` 0: heap, 1: data segment.  The blocking put's source
 * is symmetric (`src`), the nbi put's private (`local`). */
static void one_to_each(unsigned char *sym, int seg, unsigned char *src, unsigned char *local)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    unsigned seed = 1;

    for (size_t k = 0; k < sizeof(lengths) / sizeof(lengths[0]); k++) {
        size_t len = lengths[k];

        for (int pe = 1; pe < npes; pe++, seed++) {
            for (int op = 0; op < 4; op++) { /* put, put_nbi, get, get_nbi */
                memset(sym, 0xee, len + 2 * GUARD);
                if (me == pe && op >= 2) {
                    fill(sym + GUARD, len, seed + (unsigned)op);
                }
                shmem_barrier_all();
                if (me == 0) {
                    if (op < 2) {
                        fill((op == 0 ? src : local) + GUARD, len, seed + (unsigned)op);
                        if (op == 0) {
                            shmem_putmem(sym + GUARD, src + GUARD, len, pe);
                        } else {
                            shmem_putmem_nbi(sym + GUARD, local + GUARD, len, pe);
                            shmem_quiet();
                        }
                    } else {
                        if (op == 2) {
                            shmem_getmem(sym + GUARD, sym + GUARD, len, pe);
                        } else {
                            shmem_getmem_nbi(sym + GUARD, sym + GUARD, len, pe);
                            shmem_quiet();
                        }
                        check_fill(sym + GUARD, len, seed + (unsigned)op, seg ? "get (data)" : "get (heap)");
                        check_guards(sym, len, "get");
                    }
                }
                shmem_barrier_all();
                if (me == pe && op < 2) {
                    check_fill(sym + GUARD, len, seed + (unsigned)op, seg ? "put (data)" : "put (heap)");
                    check_guards(sym, len, "put");
                }
            }
        }
    }
}

/* PE 0 puts rounds of 1 MiB + 8 whose last word is the round number; PE 1
 * waits on that word alone and then checks every byte (a program's
 * "poll on the last byte"), while waiting (and so helping). */
static void poll_last_word(unsigned char *sym, unsigned char *src)
{
    const size_t len = (1 << 20) + 8;
    int me = shmem_my_pe();

    *(long *)(sym + len - 8) = 0;
    shmem_barrier_all();
    for (long round = 1; round <= 40; round++) {
        if (me == 0) {
            fill(src, len - 8, (unsigned)round);
            memcpy(src + len - 8, &round, 8);
            shmem_putmem(sym, src, len, 1);
            shmem_long_wait_until(&tail_flag, SHMEM_CMP_EQ, round); /* PE 1 has checked */
        } else if (me == 1) {
            shmem_long_wait_until((long *)(sym + len - 8), SHMEM_CMP_EQ, round);
            check_fill(sym, len - 8, (unsigned)round, "put before its last word");
            shmem_long_atomic_set(&tail_flag, round, 0);
        }
    }
    shmem_barrier_all();
}

/* Every PE puts to its right neighbour at once: nobody is idle, each
 * copies its own (or helps a neighbour once its own is done). */
static void all_at_once(unsigned char *sym, unsigned char *src)
{
    const size_t len = (2 << 20) + 40;
    int me = shmem_my_pe(), npes = shmem_n_pes();

    for (unsigned r = 0; r < 6; r++) {
        fill(src, len, 100 + r + (unsigned)me);
        shmem_barrier_all();
        shmem_putmem(sym, src, len, (me + 1) % npes);
        shmem_barrier_all();
        check_fill(sym, len, 100 + r + (unsigned)((me + npes - 1) % npes), "put all at once");
    }
}

/* threads: two threads of PE 0 each put to its own half of PE 1's buffer
 * at once (one may find the slot taken and copy alone); two threads of
 * every other PE wait meanwhile in wait_until. */
static unsigned char *thr_sym, *thr_src;
static long thr_done;

static void *putter(void *arg)
{
    size_t half = MAX_LEN / 2, at = (size_t)(uintptr_t)arg * half;

    for (int r = 0; r < 30; r++) {
        shmem_putmem(thr_sym + at, thr_src + at, half, 1);
    }
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    shmem_long_wait_until(&thr_done, SHMEM_CMP_EQ, 1);
    return NULL;
}

static void threads_at_once(void)
{
    int me = shmem_my_pe();
    pthread_t t[2];

    fill(thr_src, MAX_LEN, 77);
    memset(thr_sym, 0, MAX_LEN);
    shmem_barrier_all();
    if (me == 0) {
        for (uintptr_t i = 0; i < 2; i++) {
            CHECK(pthread_create(&t[i], NULL, putter, (void *)i) == 0, "pthread_create");
        }
        for (int i = 0; i < 2; i++) {
            pthread_join(t[i], NULL);
        }
        shmem_quiet();
        for (int pe = 1; pe < shmem_n_pes(); pe++) {
            shmem_long_atomic_set(&thr_done, 1, pe);
        }
    } else {
        CHECK(pthread_create(&t[0], NULL, waiter, NULL) == 0, "pthread_create");
        waiter(NULL);
        pthread_join(t[0], NULL);
    }
    shmem_barrier_all();
    if (me == 1) {
        check_fill(thr_sym, MAX_LEN, 77, "two threads' puts");
    }
}

/* After finalize (no CHECK: it would end a job that has ended): whether
 * the debug line finalize wrote to this PE's log says that its peers
 * copied chunks of its copies. */
static bool peers_helped(const char *path, int npes, bool need_help)
{
    FILE *in = fopen(path, "r");
    char line[512];
    long published = -1, copied = -1;

    if (in == NULL) {
        fprintf(stderr, "FAIL [pe 0] cannot read the log %s\n", path);
        return false;
    }
    while (fgets(line, sizeof(line), in) != NULL) {
        const char *at = strstr(line, "shared copies: published ");
        if (at != NULL && sscanf(at, "shared copies: published %ld, peers copied %ld",
                                 &published, &copied) != 2) {
            published = -1;
        }
    }
    fclose(in);
    if (published == -1 && npes > sysconf(_SC_NPROCESSORS_ONLN)) {
        return true; /* more PEs than CPUs: sharing is off, by design */
    }
    if (published <= 0 || (need_help && copied <= 0)) {
        fprintf(stderr, "FAIL [pe 0] its log says %ld shared copies published, %ld chunks copied "
                "by peers; want both above 0\n", published, copied);
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    bool threads = argc > 1 && strcmp(argv[1], "threads") == 0;
    char path[256];
    const char *tmp = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";

    /* oshrun is every PE's parent: one name per job, %p per PE */
    snprintf(path, sizeof(path), "%s/shimmer-shared-copy-%ld.%%p.log", tmp, (long)getppid());
    setenv("SHIMMER_LOG_FILE", path, 1);
    setenv("SHIMMER_LOG_LEVEL", "debug", 1);
    setenv("SHIMMER_LOG_CATEGORIES", "shm", 1);
    if (threads) {
        if (!test_init_multiple()) {
            return TEST_SKIP;
        }
    } else {
        shmem_init();
    }
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        shmem_finalize();
        return TEST_SKIP;
    }
    unsigned char *heap = shmem_malloc(MAX_LEN + 2 * GUARD);
    unsigned char *src = shmem_malloc(MAX_LEN + 2 * GUARD);
    unsigned char *local = malloc(MAX_LEN + 2 * GUARD);
    CHECK(heap != NULL && src != NULL && local != NULL, "out of memory");

    if (threads) {
        thr_sym = heap;
        thr_src = src;
        threads_at_once();
    } else {
        one_to_each(heap, 0, src, local);
        one_to_each((unsigned char *)global_buf, 1, src, local);
        poll_last_word(heap, src);
        all_at_once(heap, src);
    }
    shmem_barrier_all();
    if (me == 0) {
        printf("PASS shared_copy %s on %d PE(s)\n", threads ? "threads" : "plain", shmem_n_pes());
    }
    shmem_free(src);
    shmem_free(heap);
    shmem_finalize();
    free(local);

    char mine[300];
    snprintf(mine, sizeof(mine), "%s/shimmer-shared-copy-%ld.%d.log", tmp, (long)getppid(), me);
    /* threads: PE 0's two copying threads may hold both CPUs throughout */
    bool ok = me != 0 || peers_helped(mine, npes, !threads);
    unlink(mine);
    return ok ? 0 : 1;
}
