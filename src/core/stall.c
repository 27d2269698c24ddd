/* stall.c -- a job that can no longer move, seen from its final barrier
 * (stall.h). */
#include "core/stall.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shmem_defs.h>

#include "core/state.h"
#include "core/team.h"
#include "util/log.h"

/* A PE's words; `end` holds shr_stall_end_t, plus SHR_STALL_THREADED when
 * other threads of the PE may run program code while one waits. */
enum { STALL_NAPS, STALL_NAP_WAITS, STALL_END, STALL_WORDS };
#define SHR_STALL_THREADED 0x100u

/* Samples 100 ms apart; stalled when two intervals in a row saw every PE
 * outside the barrier nap and none of them leave its wait. */
#define SHR_STALL_SAMPLE_NS 100000000ull
#define SHR_STALL_INTERVALS 2

static uint64_t *shr_stall_words; /* this PE's; the same offset on every PE */

static struct {
    uint64_t next_ns;
    uint64_t *naps, *waits;       /* [n_pes] at the previous sample */
    int intervals;                /* consecutive intervals that looked stalled */
    bool sampled;
} shr_stall_w;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

shr_status_t shr_stall_init(const char *routine)
{
    size_t offset;
    shr_status_t status = shr_heap_alloc(&shr_g.internal_heap, STALL_WORDS * sizeof(uint64_t),
                                         SHR_CACHE_LINE, &offset);

    if (status != SHR_OK) {
        shr_error("%s: out of internal heap for the end-of-job watch; raise "
                  "SHIMMER_INTERNAL_HEAP_SIZE", routine);
        return status;
    }
    uint64_t *words = shr_internal_addr(offset);
    words[STALL_NAPS] = 0;
    words[STALL_NAP_WAITS] = 0;
    words[STALL_END] = shr_g.thread_level == SHMEM_THREAD_MULTIPLE ? SHR_STALL_THREADED : 0;
    free(shr_stall_w.naps);
    free(shr_stall_w.waits);
    memset(&shr_stall_w, 0, sizeof(shr_stall_w));
    __atomic_store_n(&shr_stall_words, words, __ATOMIC_RELEASE);
    return SHR_OK;
}

void shr_stall_note_nap(bool first)
{
    uint64_t *words = __atomic_load_n(&shr_stall_words, __ATOMIC_ACQUIRE);

    if (words == NULL) {
        return;
    }
    __atomic_fetch_add(&words[STALL_NAPS], 1, __ATOMIC_RELAXED);
    if (first) {
        __atomic_fetch_add(&words[STALL_NAP_WAITS], 1, __ATOMIC_RELAXED);
    }
}

void shr_stall_enter_final(shr_stall_end_t how)
{
    if (shr_stall_words != NULL) {
        __atomic_fetch_or(&shr_stall_words[STALL_END], (uint64_t)how, __ATOMIC_RELEASE);
    }
}

/* Through the mapping only: a remote read could race with a peer that has
 * passed the final barrier and closed its endpoints. */
static uint64_t read_word(int pe, int word)
{
    const uint64_t *peer = shr_ptr(&shr_stall_words[word], pe);
    return __atomic_load_n(peer, __ATOMIC_ACQUIRE);
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
    char waiting[256], left[256], why[768];
    bool any_left = false;

    for (int pe = 0; pe < shr_g.n_pes; pe++) {
        any_left |= (ends[pe] & 0xff) == SHR_STALL_AT_EXIT;
    }
    pe_list(waiting, sizeof(waiting), ends, SHR_STALL_RUNNING);
    if (any_left) {
        pe_list(left, sizeof(left), ends, SHR_STALL_AT_EXIT);
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

void shr_stall_watch(void)
{
    uint64_t now = now_ns();
    int n = shr_g.n_pes;

    if (shr_stall_words == NULL || shr_g.has_remote || now < shr_stall_w.next_ns) {
        return; /* a job with remote PEs is not watched (read_word) */
    }
    shr_stall_w.next_ns = now + SHR_STALL_SAMPLE_NS;
    if (shr_stall_w.naps == NULL) {
        shr_stall_w.naps = calloc((size_t)n, sizeof(uint64_t));
        shr_stall_w.waits = calloc((size_t)n, sizeof(uint64_t));
        if (shr_stall_w.naps == NULL || shr_stall_w.waits == NULL) {
            return; /* retried at the next sample */
        }
    }
    uint64_t *ends = calloc((size_t)n, sizeof(uint64_t));
    if (ends == NULL) {
        return;
    }
    bool stalled = shr_stall_w.sampled;
    int outside = 0, reporter = shr_g.my_pe;
    for (int pe = 0; pe < n; pe++) {
        ends[pe] = pe == shr_g.my_pe ? shr_stall_words[STALL_END] : read_word(pe, STALL_END);
        if ((ends[pe] & 0xff) != SHR_STALL_RUNNING) {
            reporter = pe < reporter ? pe : reporter;
            continue;
        }
        uint64_t naps = read_word(pe, STALL_NAPS), waits = read_word(pe, STALL_NAP_WAITS);
        /* not napping since the last sample (running program code, or a wait
         * still spinning), or a new wait since: the PE moves */
        if ((ends[pe] & SHR_STALL_THREADED) || naps == shr_stall_w.naps[pe] ||
            waits != shr_stall_w.waits[pe]) {
            stalled = false;
        }
        shr_stall_w.naps[pe] = naps;
        shr_stall_w.waits[pe] = waits;
        outside++;
    }
    shr_stall_w.sampled = true;
    shr_stall_w.intervals = stalled && outside > 0 ? shr_stall_w.intervals + 1 : 0;
    if (shr_stall_w.intervals >= SHR_STALL_INTERVALS && reporter == shr_g.my_pe) {
        report(ends);
    }
    free(ends);
}
