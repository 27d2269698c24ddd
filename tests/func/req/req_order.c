/* req_order.c -- what coalescing (docs/requests.md, "Coalescing") must keep:
 * the small puts, put-with-signals and atomics of a handle to a PE behind
 * the remote transport leave in one message, yet
 *   fence:  puts in a handle, fence, then a flag put: whoever sees the flag
 *           sees the data (also a put-with-signal in the same handle);
 *   quiet:  puts in a handle, quiet, then a get of the same words reads them;
 *   fill:   a window larger than one buffer, a long (direct) put in the
 *           middle over the words just written (still buffered), atomics:
 *           each word ends with its last write, every add counted;
 *   all:    every PE puts to and adds on every other in one handle.
 * Each on the default context (shared: SHMEM_THREAD_MULTIPLE) and on a
 * private one.  argv[1] = rounds.  Run with SHIMMER_REMOTE_PES so that the
 * peers are remote; on one node without it the same checks hold trivially. */
#include <shmemx.h>

#include "harness.h"

#define N 64        /* words of a round (fence, quiet) */
#define ROUNDS 64   /* most rounds */
#define FILL 4000   /* words of the fill case: 192 KB of records, 3 buffers */
#define LONG 3072   /* words of its long put: 24 KiB, above the coalescing limit, */
#define LONG_END 3500 /* ... ending at this word: over the records still buffered */

static long data[2][ROUNDS][N];
static long flag[2][ROUNDS];
static uint64_t sig[2][ROUNDS];
static long sigdata[2][ROUNDS][N];
static long fill[2][FILL];
static long counter[2];
static long all_slots[2][64];
static long all_count[2];

static long val(int pe, int c, long r, long i)
{
    return (long)pe << 40 | (long)c << 36 | r << 16 | i;
}

int main(int argc, char **argv)
{
    static long src[N], lsrc[LONG], fsrc[FILL], csrc[16];
    int provided, me, n, next, prev;
    long rounds = argc > 1 ? atol(argv[1]) : 16;
    shmem_ctx_t ctxs[2];

    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
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
            shmem_ctx_fence(ctx);
            shmem_ctx_long_p(ctx, &flag[c][r], r + 1, next);
            shmem_long_wait_until(&flag[c][r], SHMEM_CMP_EQ, r + 1);
            for (long i = 0; i < N; i++) {
                CHECK(data[c][r][i] == val(prev, c, r, i), "fence ctx %d round %ld word %ld: "
                      "%#lx, want %#lx", c, r, i, data[c][r][i], val(prev, c, r, i));
            }
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
    }
    shmem_ctx_destroy(ctxs[1]);
    return test_pass("req_order");
}
