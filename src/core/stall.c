/* stall.c -- a job that can no longer move, seen from its final barrier
 * (stall.h). */
#include "core/stall.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shmem_defs.h>

#include "core/remote.h"
#include "core/state.h"
#include "core/team.h"
#include "util/log.h"

/* A PE's words; `end` holds shr_stall_end_t, plus SHR_STALL_THREADED when
 * other threads of the PE may run program code while one waits. */
enum { STALL_NAPS, STALL_NAP_WAITS, STALL_END, STALL_WORDS };
#define SHR_STALL_THREADED 0x100u

/* What each PE keeps in the internal heap (the same offset everywhere). */
typedef struct {
    uint64_t word[STALL_WORDS];
    char host[64]; /* where the PE runs, for the report */
} shr_stall_rec_t;

/* Samples 100 ms apart; stalled when two intervals in a row saw every PE
 * outside the barrier nap and none of them leave its wait. */
#define SHR_STALL_SAMPLE_NS 100000000ull
#define SHR_STALL_INTERVALS 2

static shr_stall_rec_t *shr_stall_rec; /* this PE's */

static struct {
    uint64_t next_ns;
    uint64_t *naps, *waits;       /* [n_pes] at the previous sample */
    uint64_t *ends;               /* [n_pes] end words; another node's PE is read
                                     again only while it was still running */
    uint64_t *cur;                /* [n_pes][STALL_WORDS] this sample's words */
    int *far;                     /* [n_pes] the other nodes' PEs to read */
    int intervals;                /* consecutive intervals that looked stalled */
    bool sampled;
} shr_stall_w;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void stall_state_free(void)
{
    free(shr_stall_w.naps);
    free(shr_stall_w.waits);
    free(shr_stall_w.ends);
    free(shr_stall_w.cur);
    free(shr_stall_w.far);
    memset(&shr_stall_w, 0, sizeof(shr_stall_w));
}

shr_status_t shr_stall_init(const char *routine)
{
    shr_stall_rec_t *rec = shr_internal_record(routine, sizeof(*rec), "the end-of-job watch");

    if (rec == NULL) {
        return SHR_ERR_NO_MEMORY;
    }
    rec->word[STALL_NAPS] = 0;
    rec->word[STALL_NAP_WAITS] = 0;
    rec->word[STALL_END] = shr_g.thread_level == SHMEM_THREAD_MULTIPLE ? SHR_STALL_THREADED : 0;
    snprintf(rec->host, sizeof(rec->host), "%s", shr_g.host);
    stall_state_free();
    __atomic_store_n(&shr_stall_rec, rec, __ATOMIC_RELEASE);
    return SHR_OK;
}

void shr_stall_note_nap(bool first)
{
    shr_stall_rec_t *rec = __atomic_load_n(&shr_stall_rec, __ATOMIC_ACQUIRE);

    if (rec == NULL) {
        return;
    }
    __atomic_fetch_add(&rec->word[STALL_NAPS], 1, __ATOMIC_RELAXED);
    if (first) {
        __atomic_fetch_add(&rec->word[STALL_NAP_WAITS], 1, __ATOMIC_RELAXED);
    }
}

void shr_stall_enter_final(shr_stall_end_t how)
{
    if (shr_stall_rec != NULL) {
        __atomic_fetch_or(&shr_stall_rec->word[STALL_END], (uint64_t)how, __ATOMIC_RELEASE);
    }
}

static bool is_mapped(int pe)
{
    return shr_g.seg[SHR_SEG_HEAP].peer_base[pe] != NULL;
}

/* A PE of this node, through the mapping. */
static uint64_t read_word(int pe, int word)
{
    const uint64_t *peer = shr_ptr(&shr_stall_rec->word[word], pe);
    return __atomic_load_n(peer, __ATOMIC_ACQUIRE);
}

/* Where `pe` runs, into buf; "another node" when it cannot be read. */
static void pe_host(int pe, char *buf, size_t size)
{
    char host[sizeof(shr_stall_rec->host)] = "";

    if (is_mapped(pe)) {
        memcpy(host, shr_ptr(shr_stall_rec->host, pe), sizeof(host));
    } else if (!shr_remote_peek(&pe, 1, shr_stall_rec->host, host, sizeof(host))) {
        snprintf(host, sizeof(host), "another node");
    }
    host[sizeof(host) - 1] = '\0';
    snprintf(buf, size, "%s", host);
}

/* "PE 3" or "PEs 0-2,5": the PEs whose ends[] is `want`. */
static void pe_list(char *buf, size_t size, const uint64_t *ends, shr_stall_end_t want)
{
    int count = 0;

    for (int pe = 0; pe < shr_g.n_pes; pe++) {
        count += (ends[pe] & 0xff) == want;
    }
    size_t used = (size_t)snprintf(buf, size, count == 1 ? "PE " : "PEs ");
    for (int pe = 0; pe < shr_g.n_pes && used < size; pe++) {
        if ((ends[pe] & 0xff) != want || (pe > 0 && (ends[pe - 1] & 0xff) == want)) {
            continue;
        }
        int last = pe;
        while (last + 1 < shr_g.n_pes && (ends[last + 1] & 0xff) == want) {
            last++;
        }
        used += (size_t)snprintf(buf + used, size - used, last > pe ? "%s%d-%d" : "%s%d",
                                 buf[used - 1] == ' ' ? "" : ",", pe, last);
    }
}

static _Noreturn void report(const uint64_t *ends)
{
    char waiting[256], left[256], why[768], host[64];
    int n_left = 0, first_left = -1;

    for (int pe = 0; pe < shr_g.n_pes; pe++) {
        if ((ends[pe] & 0xff) == SHR_STALL_AT_EXIT) {
            first_left = n_left++ == 0 ? pe : first_left;
        }
    }
    pe_list(waiting, sizeof(waiting), ends, SHR_STALL_RUNNING);
    if (n_left > 0) {
        pe_list(left, sizeof(left), ends, SHR_STALL_AT_EXIT);
        if (n_left == 1) {
            pe_host(first_left, host, sizeof(host));
            size_t used = strlen(left);
            snprintf(left + used, sizeof(left) - used, " (on %s)", host);
        }
        snprintf(why, sizeof(why), "%s left main without calling shmem_finalize while %s "
                 "wait inside the library for something no PE will do", left, waiting);
        shr_error("exit: %s; ending the job (call shmem_finalize on every PE after its last "
                  "wait)", why);
    } else {
        pe_list(left, sizeof(left), ends, SHR_STALL_FINALIZE);
        snprintf(why, sizeof(why), "%s wait inside the library (a wait, barrier or "
                 "collective) that no PE will complete, while %s wait in shmem_finalize",
                 waiting, left);
        shr_error("shmem_finalize: %s; ending the job (a put, signal or collective call is "
                  "missing)", why);
    }
    shr_fatal(1, why);
}

/* This sample's words of every PE into shr_stall_w.cur (and the end words
 * into .ends): this node's through the mapping, the other nodes' still
 * running through the remote transport.  False when this PE need not
 * watch (a lower PE of its node is in the final barrier: it watches for
 * the node) or a remote read failed (the job is ending anyway). */
static bool stall_sample(void)
{
    int n = shr_g.n_pes, n_far = 0;
    uint64_t *cur = shr_stall_w.cur;

    for (int pe = 0; pe < n; pe++) {
        uint64_t *w = &cur[(size_t)pe * STALL_WORDS];
        if (pe == shr_g.my_pe) {
            w[STALL_END] = shr_stall_rec->word[STALL_END];
        } else if (is_mapped(pe)) {
            w[STALL_END] = read_word(pe, STALL_END);
            if (pe < shr_g.my_pe && (w[STALL_END] & 0xff) != SHR_STALL_RUNNING) {
                return false;
            }
            w[STALL_NAPS] = read_word(pe, STALL_NAPS);
            w[STALL_NAP_WAITS] = read_word(pe, STALL_NAP_WAITS);
        } else if ((shr_stall_w.ends[pe] & 0xff) == SHR_STALL_RUNNING) {
            shr_stall_w.far[n_far++] = pe; /* read below */
            continue;
        } else {
            w[STALL_END] = shr_stall_w.ends[pe]; /* in the final barrier: stays there */
        }
        shr_stall_w.ends[pe] = w[STALL_END];
    }
    if (n_far == 0) {
        return true;
    }
    uint64_t got[64 * STALL_WORDS];
    for (int i = 0; i < n_far; i += 64) {
        int count = n_far - i < 64 ? n_far - i : 64;
        if (!shr_remote_peek(&shr_stall_w.far[i], (size_t)count, shr_stall_rec->word, got,
                             sizeof(shr_stall_rec->word))) {
            return false;
        }
        for (int k = 0; k < count; k++) {
            int pe = shr_stall_w.far[i + k];
            memcpy(&cur[(size_t)pe * STALL_WORDS], &got[k * STALL_WORDS],
                   sizeof(shr_stall_rec->word));
            shr_stall_w.ends[pe] = got[k * STALL_WORDS + STALL_END];
        }
    }
    return true;
}

void shr_stall_watch(void)
{
    uint64_t now = now_ns();
    int n = shr_g.n_pes;

    if (shr_stall_rec == NULL || now < shr_stall_w.next_ns) {
        return;
    }
    if (shr_stall_w.next_ns == 0 && shr_g.has_remote) {
        /* the first sample one interval in: a finalize whose PEs all
         * arrive meanwhile sends nothing over the network */
        shr_stall_w.next_ns = now + SHR_STALL_SAMPLE_NS;
        return;
    }
    shr_stall_w.next_ns = now + SHR_STALL_SAMPLE_NS;
    if (shr_stall_w.naps == NULL) {
        shr_stall_w.naps = calloc((size_t)n, sizeof(uint64_t));
        shr_stall_w.waits = calloc((size_t)n, sizeof(uint64_t));
        shr_stall_w.ends = calloc((size_t)n, sizeof(uint64_t));
        shr_stall_w.cur = calloc((size_t)n * STALL_WORDS, sizeof(uint64_t));
        shr_stall_w.far = calloc((size_t)n, sizeof(int));
        if (shr_stall_w.naps == NULL || shr_stall_w.waits == NULL || shr_stall_w.ends == NULL ||
            shr_stall_w.cur == NULL || shr_stall_w.far == NULL) {
            stall_state_free(); /* retried at the next sample */
            shr_stall_w.next_ns = now + SHR_STALL_SAMPLE_NS;
            return;
        }
    }
    if (!stall_sample()) {
        shr_stall_w.sampled = false;
        shr_stall_w.intervals = 0;
        return;
    }
    bool stalled = shr_stall_w.sampled;
    int outside = 0, reporter = shr_g.my_pe;
    for (int pe = 0; pe < n; pe++) {
        const uint64_t *w = &shr_stall_w.cur[(size_t)pe * STALL_WORDS];
        if ((w[STALL_END] & 0xff) != SHR_STALL_RUNNING) {
            reporter = pe < reporter ? pe : reporter;
            continue;
        }
        /* not napping since the last sample (running program code, or a wait
         * still spinning), or a new wait since: the PE moves */
        if ((w[STALL_END] & SHR_STALL_THREADED) || w[STALL_NAPS] == shr_stall_w.naps[pe] ||
            w[STALL_NAP_WAITS] != shr_stall_w.waits[pe]) {
            stalled = false;
        }
        shr_stall_w.naps[pe] = w[STALL_NAPS];
        shr_stall_w.waits[pe] = w[STALL_NAP_WAITS];
        outside++;
    }
    shr_stall_w.sampled = true;
    shr_stall_w.intervals = stalled && outside > 0 ? shr_stall_w.intervals + 1 : 0;
    if (shr_stall_w.intervals >= SHR_STALL_INTERVALS && reporter == shr_g.my_pe) {
        report(shr_stall_w.ends);
    }
}
