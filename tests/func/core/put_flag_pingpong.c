/* put_flag_pingpong.c -- the put + wait_until ping-pong (OSU latency,
 * openshmem-examples' sping): each PE puts a message whose first or last
 * element is the flag, the receiver waits for it, checks it and resets it
 * to 0 before answering.  A put must store each byte once: if it stored
 * the flag twice (glibc's memcpy does for 8 and 16 bytes), a reset made
 * between the two stores would be undone and the old message seen again.
 * Pairs (0,1), (2,3)...; a message that never comes fails after 20 s
 * instead of hanging.  argv[1]: rounds of 1-word messages (default 20000;
 * a quarter of that for the longer ones). */
#include <sched.h>
#include <time.h>

#include "harness.h"

#define MAX_WORDS 9

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits until *flag != 0 with a deadline; returns the value seen.  After a
 * short spin it yields every round: with more PEs than cores the sender may
 * need this core, and a pure spin would make every round a scheduler tick. */
static long await_flag(long *flag, long expected, size_t words, int rounds_left)
{
    double start = now_s();
    for (int spins = 0; shmem_long_test(flag, SHMEM_CMP_NE, 0) == 0; spins++) {
        if (spins >= 256) {
            sched_yield();
        }
        CHECK(now_s() - start < 20.0, "message %ld of %zu words never came (%d rounds left): "
              "a reset was overwritten by an old message", expected, words, rounds_left);
    }
    return *flag;
}

int main(int argc, char **argv)
{
    int rounds_1 = argc > 1 ? atoi(argv[1]) : 20000;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), peer = me ^ 1;
    long *msg = shmem_calloc(MAX_WORDS, sizeof(long));
    long out[MAX_WORDS];
    static const size_t words_list[] = {1, 2, 3, 4, 8, 9};

    for (size_t w = 0; w < sizeof(words_list) / sizeof(words_list[0]); w++) {
        size_t words = words_list[w];
        for (int flag_last = 0; flag_last < 2; flag_last++) {
            long *flag = flag_last ? &msg[words - 1] : &msg[0];
            int rounds = words == 1 ? rounds_1 : rounds_1 / 4;
            long next_in = 1, next_out = 1;
            shmem_barrier_all();
            if (peer < n) {
                int odd = me & 1;
                for (int r = 0; r < rounds; r++) {
                    if (!odd || r > 0) {
                        for (size_t i = 0; i < words; i++) {
                            out[i] = next_out;
                        }
                        shmem_long_put(msg, out, words, peer);
                        next_out++;
                    }
                    long got = await_flag(flag, next_in, words, rounds - r);
                    CHECK(got == next_in, "%zu words, flag %s: got message %ld, want %ld (an "
                          "old message came back after the reset)", words,
                          flag_last ? "last" : "first", got, next_in);
                    next_in++;
                    *flag = 0;
                }
                if (odd) {
                    for (size_t i = 0; i < words; i++) {
                        out[i] = next_out;
                    }
                    shmem_long_put(msg, out, words, peer);
                }
            }
            shmem_barrier_all();
            memset(msg, 0, MAX_WORDS * sizeof(long));
        }
    }
    shmem_free(msg);
    return test_pass("put + wait_until ping-pong (each byte stored once)");
}
