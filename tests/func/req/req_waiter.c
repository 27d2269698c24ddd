/* req_waiter.c -- one thread waits for handles while the threads whose
 * private contexts hold their parts keep issuing (docs/requests.md,
 * "Threads"): each of ISSUERS threads puts a round of 8-byte words (and an
 * atomic add) to the next PE into a handle on its own SHMEM_CTX_PRIVATE
 * context, merges the handle into that round's mailbox and goes on with
 * the next round at once, up to LEAD rounds ahead of the waiter, after
 * completing a handle of its own (one put) on the same context.  The
 * waiter thread takes each round's merged handle (parts of all four
 * contexts), completes it -- by wait, or by a test loop every third round
 * -- and then sets the round's flag at the next PE; the main thread checks
 * every word of a round as soon as the previous PE's flag for it is set
 * (the handle's completion put them in place).  The waiter sends and
 * drives the issuers' workers while they append to their buffers.
 * argv[1] = rounds. */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

#include <shmemx.h>

#include "harness.h"

#define ISSUERS 4
#define WORDS 24 /* a round's puts per thread */
#define LEAD 3   /* rounds the issuers may run ahead of the waiter */

typedef struct {
    pthread_mutex_t lock;
    shmemx_req_t req; /* the round's handles, merged */
    int merged;       /* issuers that merged theirs */
} mailbox_t;

static long rounds = 300;
static long *data;      /* symmetric [rounds][ISSUERS][WORDS]: written by the previous PE */
static long *flag;      /* symmetric [rounds]: the previous PE completed the round */
static long counter;    /* every issuer of every PE adds 1 a round to the next PE's */
static long echo[ISSUERS]; /* each issuer's own handle: the previous PE's last round */
static mailbox_t *box;  /* [rounds] */
static long waited;     /* rounds the waiter completed (the issuers' lead) */

static long word(int pe, int t, long r, int k)
{
    return (long)pe << 48 | (long)t << 40 | r << 8 | k;
}

static void *issuer(void *arg)
{
    int t = (int)(intptr_t)arg;
    int me = shmem_my_pe(), next = (me + 1) % shmem_n_pes();
    long vals[WORDS];
    shmem_ctx_t ctx; /* made by the thread that uses it, as SHMEM_CTX_PRIVATE says */

    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "issuer %d: ctx_create", t);
    for (long r = 0; r < rounds; r++) {
        while (r - __atomic_load_n(&waited, __ATOMIC_ACQUIRE) > LEAD) {
            sched_yield();
        }
        shmemx_req_t req = SHMEMX_REQ_NULL;
        for (int k = 0; k < WORDS; k++) {
            vals[k] = word(me, t, r, k);
            shmemx_ctx_long_put_req(ctx, &data[(r * ISSUERS + t) * WORDS + k], &vals[k], 1,
                                    next, &req);
        }
        shmemx_ctx_long_atomic_add_req(ctx, &counter, 1, next, &req);
        pthread_mutex_lock(&box[r].lock);
        shmemx_req_merge(&box[r].req, &req);
        box[r].merged++;
        pthread_mutex_unlock(&box[r].lock);
        CHECK(req == SHMEMX_REQ_NULL, "issuer %d: merged handle is NULL", t);
        /* its own handle, waited here: this thread drives its worker too */
        shmemx_ctx_long_put_req(ctx, &echo[t], &vals[0], 1, next, &req);
        shmemx_req_wait(&req);
    }
    /* the waiter drives this context until the last round's handle is done */
    while (__atomic_load_n(&waited, __ATOMIC_ACQUIRE) < rounds) {
        sched_yield();
    }
    shmem_ctx_destroy(ctx);
    return NULL;
}

static void *waiter(void *arg)
{
    int next = (shmem_my_pe() + 1) % shmem_n_pes();

    (void)arg;
    for (long r = 0; r < rounds; r++) {
        shmemx_req_t req = SHMEMX_REQ_NULL;
        for (bool all = false; !all;) {
            pthread_mutex_lock(&box[r].lock);
            all = box[r].merged == ISSUERS;
            if (all) {
                req = box[r].req;
                box[r].req = SHMEMX_REQ_NULL;
            }
            pthread_mutex_unlock(&box[r].lock);
            if (!all) {
                sched_yield();
            }
        }
        if (r % 3 == 2) {
            while (!shmemx_req_test(&req)) {
            }
        } else {
            shmemx_req_wait(&req);
        }
        CHECK(req == SHMEMX_REQ_NULL, "round %ld: completed handle is NULL", r);
        /* the round's words are in place at next: say so */
        shmem_long_atomic_set(&flag[r], 1, next);
        __atomic_store_n(&waited, r + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[ISSUERS + 1];

    if (argc > 1) {
        rounds = atol(argv[1]);
    }
    if (!test_init_multiple()) {
        return TEST_SKIP;
    }
    int me = shmem_my_pe(), n = shmem_n_pes(), prev = (me + n - 1) % n;
    data = shmem_calloc((size_t)rounds * ISSUERS * WORDS, sizeof(long));
    flag = shmem_calloc((size_t)rounds, sizeof(long));
    box = calloc((size_t)rounds, sizeof(*box));
    CHECK(data != NULL && flag != NULL && box != NULL, "out of memory for %ld rounds", rounds);
    for (long r = 0; r < rounds; r++) {
        pthread_mutex_init(&box[r].lock, NULL);
    }
    shmem_barrier_all();
    pthread_create(&th[ISSUERS], NULL, waiter, NULL);
    for (int t = 0; t < ISSUERS; t++) {
        pthread_create(&th[t], NULL, issuer, (void *)(intptr_t)t);
    }
    /* each round of the previous PE, as soon as it says it is complete */
    for (long r = 0; r < rounds; r++) {
        shmem_long_wait_until(&flag[r], SHMEM_CMP_EQ, 1);
        for (int t = 0; t < ISSUERS; t++) {
            for (int k = 0; k < WORDS; k++) {
                long got = __atomic_load_n(&data[(r * ISSUERS + t) * WORDS + k], __ATOMIC_RELAXED);
                CHECK(got == word(prev, t, r, k), "round %ld issuer %d word %d: got %#lx, want %#lx",
                      r, t, k, (unsigned long)got, (unsigned long)word(prev, t, r, k));
            }
        }
    }
    for (int t = 0; t <= ISSUERS; t++) {
        pthread_join(th[t], NULL);
    }
    shmem_barrier_all();
    CHECK_EQ(shmem_long_atomic_fetch(&counter, me), (long)ISSUERS * rounds);
    for (int t = 0; t < ISSUERS; t++) {
        CHECK_EQ(echo[t], word(prev, t, rounds - 1, 0));
    }
    shmem_free(data);
    shmem_free(flag);
    return test_pass("one thread completes handles while their contexts' threads issue");
}
