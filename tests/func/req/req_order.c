/* req_order.c -- what coalescing (docs/requests.md, "Coalescing") must keep:
 * the small puts, put-with-signals and atomics of a handle to a PE behind
 * the remote transport leave in one message, yet
 *   fence:  puts in a handle, fence, then a flag put: whoever sees the flag
 *           sees the data (also a put-with-signal in the same handle);
 *   quiet:  puts in a handle, quiet, then a get of the same words reads them;
 *   fill:   a window larger than one buffer, a long (direct) put in the
 *           middle over the words just written (still buffered), atomics:
 *           each word ends with its last write, every add counted;
 *   all:    every PE puts to and adds on every other in one handle;
 *   queue:  passes over the same words in one handle, each filling more
 *           than one buffer, the program away before the wait (with the
 *           offload the progress thread sends the full buffers, in
 *           order): each word ends with the last pass's value.
 * The same for operations outside handles (default_path, below).
 * Each on the default context (shared: SHMEM_THREAD_MULTIPLE) and on a
 * private one; argv[2] `single`: at SHMEM_THREAD_SINGLE, where the default
 * context is no thread's to share (the transport lends core room in its
 * buffers for it too).  argv[1] = rounds.  Run with SHIMMER_REMOTE_PES so that the
 * peers are remote; on one node without it the same checks hold trivially. */
#include <shmemx.h>

#include <stdbool.h>
#include <time.h>

#include "harness.h"

#define N 64        /* words of a round (fence, quiet) */
#define ROUNDS 64   /* most rounds */
#define FILL 4000   /* words of the fill case: 192 KB of records, 3 buffers */
#define LONG 3072   /* words of its long put: 24 KiB, above the coalescing limit, */
#define LONG_END 3500 /* ... ending at this word: over the records still buffered */
#define QW 16384    /* words of the queue case: 128 KiB, a pass fills 2 buffers */
#define QPUT 128    /* ... in puts of 1 KiB */
#define QPASSES 3

static long data[2][ROUNDS][N];
static long flag[2][ROUNDS];
static uint64_t sig[2][ROUNDS];
static long sigdata[2][ROUNDS][N];
static long fill[2][FILL];
static long counter[2];
static long all_slots[2][64];
static long qwords[2][QW];
static long all_count[2];

static long val(int pe, int c, long r, long i)
{
    return (long)pe << 40 | (long)c << 36 | r << 16 | i;
}

/* The fence case's second half: fence, the flag to `next`, then wait for
 * ours and check the round's n words from `prev`. */
static void fence_flag_check(shmem_ctx_t ctx, long *flagw, const long *words, long n, int next,
                             int prev, int c, long r)
{
    shmem_ctx_fence(ctx);
    shmem_ctx_long_p(ctx, flagw, r + 1, next);
    shmem_long_wait_until(flagw, SHMEM_CMP_EQ, r + 1);
    for (long i = 0; i < n; i++) {
        CHECK(words[i] == val(prev, c, r, i), "fence ctx %d round %ld word %ld: %#lx, want %#lx",
              c, r, i, words[i], val(prev, c, r, i));
    }
}

/* The default path (no handle): a program's small puts, put-with-signals
 * and non-fetching atomics are coalesced the same way, so
 *   fence:     blocking and nbi puts, fence, then a flag put: whoever sees
 *              the flag sees the data;
 *   pingpong:  a blocking put, then wait_until on the answer, no quiet: the
 *              wait sends the buffer; also put_signal + signal_wait_until;
 *   spin:      a put, then a spin on a volatile word, no library call: the
 *              progress thread sends the buffer once it has aged;
 *   fetch:     puts and adds, then a fetching atomic, a get and nbi gets
 *              of the same words read what was put and added;
 *   all:       every PE puts to and adds on every other, quiet, barrier;
 *   bytes:     puts of 1 to 40 bytes end to end over 96 KiB (records of
 *              every padding, buffers filling and leaving mid-stream, core
 *              appending them itself where the transport lends it room):
 *              every byte lands;
 *   flood:     8-byte puts to 4 MiB for milliseconds, longer than the
 *              progress thread's age flush (1 ms): it takes buffers back
 *              while this thread appends to them; every word lands. */
#define DP_N 16
#define DP_BYTES (96 << 10)
#define DP_FLOOD (1 << 19)

static long dp_data[2][ROUNDS][DP_N];
static long dp_flag[2][ROUNDS];
static long dp_ping[2], dp_pong[2];
static uint64_t dp_sig[2];
static long dp_sigdata[2][DP_N];
static long dp_spin_word[2];
static long dp_words[2][DP_N];
static long dp_counter[2];
static long dp_all_slots[2][64];
static long dp_all_count[2];
static unsigned char dp_bytes[2][DP_BYTES];

static unsigned char byte_val(int pe, int c, long r, size_t i)
{
    return (unsigned char)(pe * 31 + c * 7 + r * 5 + (long)(i % 251));
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void default_path(shmem_ctx_t ctx, int c, long rounds)
{
    static long src[DP_N];
    int me = shmem_my_pe(), n = shmem_n_pes();
    int next = (me + 1) % n, prev = (me + n - 1) % n;

    /* fence: blocking and nbi puts, fence, flag; the reader trusts the flag */
    for (long r = 0; r < rounds; r++) {
        for (long i = 0; i < DP_N; i++) {
            src[i] = val(me, c, r, i);
            if (i & 1) {
                shmem_ctx_long_put_nbi(ctx, &dp_data[c][r][i], &src[i], 1, next);
            } else {
                shmem_ctx_long_p(ctx, &dp_data[c][r][i], src[i], next);
            }
        }
        fence_flag_check(ctx, &dp_flag[c][r], dp_data[c][r], DP_N, next, prev, c, r);
    }
    shmem_barrier_all();

    /* pingpong between PE 0 and the last: no quiet, no fence; the
     * waits send what the puts left in the buffer */
    if (n > 1 && (me == 0 || me == n - 1)) {
        int peer = me == 0 ? n - 1 : 0;
        for (long r = 1; r <= rounds; r++) {
            if (me == 0) {
                shmem_ctx_long_p(ctx, &dp_ping[c], r, peer);
                shmem_long_wait_until(&dp_pong[c], SHMEM_CMP_EQ, r);
            } else {
                shmem_long_wait_until(&dp_ping[c], SHMEM_CMP_EQ, r);
                shmem_ctx_long_p(ctx, &dp_pong[c], r, peer);
            }
        }
        /* put_signal: the data, then its signal; answered the same way */
        for (long r = 1; r <= rounds; r++) {
            for (long i = 0; i < DP_N; i++) {
                src[i] = val(me, c, r, i);
            }
            if (me == 0) {
                shmem_ctx_putmem_signal(ctx, dp_sigdata[c], src, sizeof(src), &dp_sig[c], 1,
                                        SHMEM_SIGNAL_ADD, peer);
            }
            shmem_signal_wait_until(&dp_sig[c], SHMEM_CMP_EQ, (uint64_t)r);
            for (long i = 0; i < DP_N; i++) {
                CHECK(dp_sigdata[c][i] == val(peer, c, r, i), "put_signal ctx %d round %ld "
                      "word %ld: %#lx, want %#lx", c, r, i, dp_sigdata[c][i], val(peer, c, r, i));
            }
            if (me != 0) {
                shmem_ctx_putmem_signal(ctx, dp_sigdata[c], src, sizeof(src), &dp_sig[c], 1,
                                        SHMEM_SIGNAL_ADD, peer);
            }
        }
    }
    shmem_barrier_all();

    /* spin: a put, then no library call until the answer arrives; the
     * progress thread sends the buffers (and serves the peer's) */
    if (n > 1 && (me == 0 || me == n - 1)) {
        int peer = me == 0 ? n - 1 : 0;
        volatile long *w = &dp_spin_word[c];
        double t0 = now_us();
        long spins = rounds < 8 ? rounds : 8;
        for (long r = 1; r <= spins; r++) {
            if (me == 0) {
                shmem_ctx_long_p(ctx, &dp_spin_word[c], 2 * r - 1, peer);
                while (*w != 2 * r) {
                }
            } else {
                while (*w != 2 * r - 1) {
                }
                shmem_ctx_long_p(ctx, &dp_spin_word[c], 2 * r, peer);
            }
        }
        if (me == 0 && getenv("REQ_ORDER_VERBOSE") != NULL) {
            printf("spin ctx %d: %.0f us a round trip\n", c, (now_us() - t0) / (double)spins);
        }
    }
    shmem_barrier_all();

    /* fetch: puts and adds, then a fetching atomic and a get of the
     * same words read them (no fence: the same PE, operations in order) */
    for (long r = 0; r < rounds; r++) {
        for (long i = 0; i < DP_N; i++) {
            shmem_ctx_long_p(ctx, &dp_words[c][i], val(me, c, r, i), next);
            shmem_ctx_long_atomic_add(ctx, &dp_counter[c], 1, next);
        }
        long got = shmem_ctx_long_atomic_fetch(ctx, &dp_words[c][DP_N - 1], next);
        CHECK(got == val(me, c, r, DP_N - 1), "fetch ctx %d round %ld: %#lx, want %#lx", c, r,
              got, val(me, c, r, DP_N - 1));
        got = shmem_ctx_long_atomic_fetch(ctx, &dp_counter[c], next);
        CHECK(got == (r + 1) * DP_N, "fetch of the count ctx %d round %ld: %ld, "
              "want %ld", c, r, got, (r + 1) * DP_N);
        shmem_ctx_long_p(ctx, &dp_words[c][0], val(me, c, r, 99), next);
        got = shmem_ctx_long_g(ctx, &dp_words[c][0], next);
        CHECK(got == val(me, c, r, 99), "get ctx %d round %ld: %#lx, want %#lx", c, r, got,
              val(me, c, r, 99));
        /* nbi gets behind puts to the same words: quiet brings what was put */
        long gotv[DP_N];
        for (long i = 0; i < DP_N; i++) {
            shmem_ctx_long_p(ctx, &dp_words[c][i], val(me, c, r, 200 + i), next);
            shmem_ctx_long_get_nbi(ctx, &gotv[i], &dp_words[c][i], 1, next);
        }
        shmem_ctx_quiet(ctx);
        for (long i = 0; i < DP_N; i++) {
            CHECK(gotv[i] == val(me, c, r, 200 + i), "get_nbi ctx %d round %ld word %ld: %#lx, "
                  "want %#lx", c, r, i, gotv[i], val(me, c, r, 200 + i));
        }
    }
    shmem_barrier_all();

    /* all: every PE puts to and adds on every other, then a barrier
     * (its quiet of the default context; other contexts quiet first) */
    for (int pe = 0; pe < n && n <= 64; pe++) {
        shmem_ctx_long_p(ctx, &dp_all_slots[c][me], val(me, c, 7, pe), pe);
        shmem_ctx_long_atomic_add(ctx, &dp_all_count[c], me + 1, pe);
    }
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int pe = 0; pe < n && n <= 64; pe++) {
        CHECK(dp_all_slots[c][pe] == val(pe, c, 7, me), "all ctx %d slot %d: %#lx, want %#lx",
              c, pe, dp_all_slots[c][pe], val(pe, c, 7, me));
    }
    CHECK(dp_all_count[c] == (long)n * (n + 1) / 2, "all ctx %d count %ld, want %ld", c,
          dp_all_count[c], (long)n * (n + 1) / 2);
    shmem_barrier_all();

    static unsigned char bsrc[DP_BYTES];
    for (long r = 0; r < 2; r++) {
        size_t at = 0;
        for (size_t i = 0; i < DP_BYTES; i++) {
            bsrc[i] = byte_val(me, c, r, i);
        }
        for (long k = 0; at < DP_BYTES; k++) {
            size_t len = 1 + (size_t)(k * 7 + r) % 40;
            len = len < DP_BYTES - at ? len : DP_BYTES - at;
            if (r == 0) {
                shmem_ctx_putmem_nbi(ctx, &dp_bytes[c][at], &bsrc[at], len, next);
            } else {
                shmem_ctx_putmem(ctx, &dp_bytes[c][at], &bsrc[at], len, next);
            }
            at += len;
        }
        shmem_ctx_quiet(ctx);
        shmem_barrier_all();
        for (size_t i = 0; i < DP_BYTES; i++) {
            if (dp_bytes[c][i] != byte_val(prev, c, r, i)) {
                CHECK(0, "bytes ctx %d round %ld byte %zu: %#x, want %#x", c, r, i,
                      dp_bytes[c][i], byte_val(prev, c, r, i));
            }
        }
        shmem_barrier_all();
    }

    long *flood = shmem_malloc(DP_FLOOD * sizeof(long));
    CHECK(flood != NULL, "shmem_malloc of %zu bytes failed", DP_FLOOD * sizeof(long));
    for (long r = 0; r < 2; r++) {
        for (long i = 0; i < DP_FLOOD; i++) {
            long v = val(me, c, r, i);
            shmem_ctx_long_put_nbi(ctx, &flood[i], &v, 1, next);
        }
        shmem_ctx_quiet(ctx);
        shmem_barrier_all();
        for (long i = 0; i < DP_FLOOD; i++) {
            if (flood[i] != val(prev, c, r, i)) {
                CHECK(0, "flood ctx %d round %ld word %ld: %#lx, want %#lx", c, r, i, flood[i],
                      val(prev, c, r, i));
            }
        }
        shmem_barrier_all();
    }
    shmem_free(flood);
}

int main(int argc, char **argv)
{
    static long src[N], lsrc[LONG], fsrc[FILL], csrc[16];
    int provided, me, n, next, prev;
    long rounds = argc > 1 ? atol(argv[1]) : 16;
    shmem_ctx_t ctxs[2];

    bool single = argc > 2 && strcmp(argv[2], "single") == 0;
    shmem_init_thread(single ? SHMEM_THREAD_SINGLE : SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    n = shmem_n_pes();
    next = (me + 1) % n;
    prev = (me + n - 1) % n;
    rounds = rounds > ROUNDS ? ROUNDS : rounds;
    ctxs[0] = SHMEM_CTX_DEFAULT;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctxs[1]) == 0, "shmem_ctx_create failed");

    for (int c = 0; c < 2; c++) {
        shmem_ctx_t ctx = ctxs[c];

        /* fence: data, fence, flag; the reader trusts the flag */
        for (long r = 0; r < rounds; r++) {
            shmemx_req_t h = SHMEMX_REQ_NULL;
            for (long i = 0; i < N; i++) {
                src[i] = val(me, c, r, i);
                shmemx_ctx_long_put_req(ctx, &data[c][r][i], &src[i], 1, next, &h);
            }
            fence_flag_check(ctx, &flag[c][r], data[c][r], N, next, prev, c, r);
            shmemx_req_wait(&h);
            CHECK(h == SHMEMX_REQ_NULL, "wait left the handle set");
        }

        /* put-with-signal in the handle: the data before its signal */
        for (long r = 0; r < rounds; r++) {
            shmemx_req_t h = SHMEMX_REQ_NULL;
            for (long i = 0; i < N; i++) {
                src[i] = val(me, c, r, i) ^ 0x5a;
            }
            shmemx_ctx_long_put_req(ctx, sigdata[c][r], src, N / 2, next, &h);
            shmemx_ctx_long_put_signal_req(ctx, sigdata[c][r] + N / 2, src + N / 2, N / 2,
                                           &sig[c][r], (uint64_t)r + 7, SHMEM_SIGNAL_SET, next,
                                           &h);
            shmemx_req_wait(&h);
            shmem_signal_wait_until(&sig[c][r], SHMEM_CMP_EQ, (uint64_t)r + 7);
            for (long i = 0; i < N; i++) {
                CHECK(sigdata[c][r][i] == (val(prev, c, r, i) ^ 0x5a),
                      "signal ctx %d round %ld word %ld: %#lx", c, r, i, sigdata[c][r][i]);
            }
        }
        shmem_barrier_all();

        /* quiet: the same words read back */
        for (long r = 0; r < rounds; r++) {
            shmemx_req_t h = SHMEMX_REQ_NULL;
            long back[N];
            for (long i = 0; i < N; i++) {
                src[i] = val(me, c, r, i) + 3;
                shmemx_ctx_long_put_req(ctx, &data[c][r][i], &src[i], 1, next, &h);
            }
            shmem_ctx_quiet(ctx);
            shmem_ctx_long_get(ctx, back, data[c][r], N, next);
            for (long i = 0; i < N; i++) {
                CHECK(back[i] == val(me, c, r, i) + 3, "quiet ctx %d round %ld word %ld: %#lx",
                      c, r, i, back[i]);
            }
            shmemx_req_wait(&h);
        }
        shmem_barrier_all();

        /* fill: a window of several buffers, a long put in the middle */
        {
            shmemx_req_t h = SHMEMX_REQ_NULL;
            for (long i = 0; i < FILL; i++) {
                fsrc[i] = val(me, c, 1, i);
                shmemx_ctx_long_put_req(ctx, &fill[c][i], &fsrc[i], 1, next, &h);
                shmemx_ctx_long_atomic_add_req(ctx, &counter[c], 1, next, &h);
                if (i == LONG_END) {
                    for (long k = 0; k < LONG; k++) {
                        lsrc[k] = val(me, c, 2, LONG_END + 1 - LONG + k);
                    }
                    shmemx_ctx_long_put_req(ctx, &fill[c][LONG_END + 1 - LONG], lsrc, LONG, next,
                                            &h);
                }
            }
            for (long k = 0; k < 16; k++) {
                csrc[k] = val(me, c, 3, k);
            }
            shmemx_ctx_long_put_req(ctx, fill[c], csrc, 10, next, &h);
            shmemx_req_wait(&h);
            shmem_barrier_all();
            for (long i = 0; i < FILL; i++) {
                long want = val(prev, c, i < 10 ? 3 : i > LONG_END - LONG && i <= LONG_END ? 2 : 1,
                                i);
                CHECK(fill[c][i] == want, "fill ctx %d word %ld: %#lx, want %#lx", c, i,
                      fill[c][i], want);
            }
            CHECK_EQ(counter[c], FILL);
        }

        /* all: one handle to every PE */
        if (n <= 64) {
            shmemx_req_t h = SHMEMX_REQ_NULL;
            static long one[64];
            for (int pe = 0; pe < n; pe++) {
                one[pe] = val(me, c, 4, pe);
                shmemx_ctx_long_put_req(ctx, &all_slots[c][me], &one[pe], 1, pe, &h);
                shmemx_ctx_long_atomic_add_req(ctx, &all_count[c], me + 1, pe, &h);
            }
            shmemx_req_wait(&h);
            shmem_barrier_all();
            for (int pe = 0; pe < n; pe++) {
                CHECK(all_slots[c][pe] == val(pe, c, 4, me), "all ctx %d from PE %d: %#lx", c,
                      pe, all_slots[c][pe]);
            }
            CHECK_EQ(all_count[c], (long)n * (n + 1) / 2);
        }
        shmem_barrier_all();

        /* queue: the program stays away before issuing (the offload's
         * back-off after the waits above ends) and before waiting */
        {
            static long qsrc[QW];
            struct timespec away = {0, 3000000};
            shmemx_req_t h = SHMEMX_REQ_NULL;
            nanosleep(&away, NULL);
            for (long p = 0; p < QPASSES; p++) {
                for (long i = 0; i < QW; i++) {
                    qsrc[i] = val(me, c, 5 + p, i);
                }
                for (long i = 0; i < QW; i += QPUT) {
                    shmemx_ctx_long_put_req(ctx, &qwords[c][i], &qsrc[i], QPUT, next, &h);
                }
            }
            nanosleep(&away, NULL);
            shmemx_req_wait(&h);
            shmem_barrier_all();
            for (long i = 0; i < QW; i++) {
                CHECK(qwords[c][i] == val(prev, c, 5 + QPASSES - 1, i),
                      "queue ctx %d word %ld: %#lx, want %#lx", c, i, qwords[c][i],
                      val(prev, c, 5 + QPASSES - 1, i));
            }
        }
        shmem_barrier_all();
        default_path(ctx, c, rounds);
    }
    shmem_ctx_destroy(ctxs[1]);
    return test_pass("req_order");
}
