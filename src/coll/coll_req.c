/*
 * coll_req.c -- multithreaded collectives: `nthreads` threads of each PE
 * call the same collective on the same team, each with a request handle
 * marked by shmemx_req_split(req, nthreads, rank), and each moves its
 * slice of the data (docs/requests.md, "Collectives").
 *
 * Every thread pulls its slice from the other PEs' sources (a get, or a
 * copy through the mapping on this node), so no PE writes another's
 * memory and threads never share a buffer.  Two meetings bracket the data
 * movement: the threads of a PE meet, and the last to arrive runs the
 * team's barrier for all of them (every PE's source is ready; on the way
 * out, every PE has finished reading the others' sources), then releases
 * the others.  The call returns complete on this PE: the handle is left
 * as it was.  A split barrier or sync is the meeting alone (pulls are
 * blocking gets, so only the barrier has a quiet to run).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_int.h"
#include "core/check.h"
#include "core/rma_inline.h"
#include "core/wait_inline.h"

/* The meeting point of one team's threads on this PE.  `arrived` counts
 * the threads of the current meeting; `gen` counts meetings. */
typedef struct {
    shr_team_t *team;
    uint64_t arrived;
    uint64_t gen;
} shr_coll_mt_t;

#define MT_TEAMS 64

static pthread_mutex_t mt_lock = PTHREAD_MUTEX_INITIALIZER;
static shr_coll_mt_t mt_table[MT_TEAMS];

static shr_coll_mt_t *mt_of(const char *fn, shr_team_t *team)
{
    shr_coll_mt_t *m = NULL;

    pthread_mutex_lock(&mt_lock);
    for (int i = 0; i < MT_TEAMS && m == NULL; i++) {
        if (mt_table[i].team == team) {
            m = &mt_table[i];
        }
    }
    for (int i = 0; i < MT_TEAMS && m == NULL; i++) {
        if (mt_table[i].team == NULL) {
            m = &mt_table[i];
            m->team = team;
        }
    }
    pthread_mutex_unlock(&mt_lock);
    if (m == NULL) {
        shr_check_fail(fn, "more than %d teams ran multithreaded collectives (split "
                       "handles); run them on fewer teams", MT_TEAMS);
    }
    return m;
}

/* The nthreads threads meet; the last one runs the team barrier first
 * (`fn` names it in hang reports), after the default context's quiet when
 * `quiet` (every thread's operations were issued before its arrival). */
static void mt_meet(const char *fn, shr_coll_mt_t *m, int nthreads, bool quiet)
{
    uint64_t gen = __atomic_load_n(&m->gen, __ATOMIC_ACQUIRE);

    if (__atomic_add_fetch(&m->arrived, 1, __ATOMIC_ACQ_REL) == (uint64_t)nthreads) {
        __atomic_store_n(&m->arrived, 0, __ATOMIC_RELAXED);
        if (quiet) {
            shr_quiet_before_arrival(shr_ctx_default);
        }
        shr_coll_sync(fn, m->team);
        __atomic_store_n(&m->gen, gen + 1, __ATOMIC_RELEASE);
        return;
    }
    shr_wait_u64_ge(&m->gen, gen + 1, "a multithreaded collective's other threads");
}

/* [*lo_p, *hi_p): slice `rank` of `nthreads` of n units. */
static void mt_slice(size_t n, int nthreads, int rank, size_t *lo_p, size_t *hi_p)
{
    *lo_p = n * (size_t)rank / (size_t)nthreads;
    *hi_p = n * (size_t)(rank + 1) / (size_t)nthreads;
}

/* len bytes from symmetric src of world PE pe into local dest. */
static void mt_pull(void *dest, const void *src, size_t len, int pe)
{
    if (len != 0) {
        shr_rma_get(NULL, shr_ctx_default, dest, src, len, pe, false); /* the library's own */
    }
}

int shr_coll_broadcast_mt(const char *fn, shr_team_t *team, void *dest, const void *src,
                          size_t len, int root, int nthreads, int rank)
{
    shr_coll_mt_t *m = mt_of(fn, team);
    size_t lo, hi;

    mt_slice(len, nthreads, rank, &lo, &hi);
    mt_meet(fn, m, nthreads, false);
    if (team->my_pe != root) {
        mt_pull((char *)dest + lo, (const char *)src + lo, hi - lo,
                shr_team_world_pe(team, root));
    } else if (dest != src) {
        memcpy((char *)dest + lo, (const char *)src + lo, hi - lo); /* 1.5: root's dest too */
    }
    mt_meet(fn, m, nthreads, false);
    return 0;
}

int shr_coll_fcollect_mt(const char *fn, shr_team_t *team, void *dest, const void *src,
                         size_t len, int nthreads, int rank)
{
    shr_coll_mt_t *m = mt_of(fn, team);
    int n = team->n_pes;
    size_t lo, hi;

    shr_coll_args_t a = {.dest = dest, .src = src, .len = len, .fixed = true};
    size_t my_off = (size_t)team->my_pe * len;

    mt_slice(len, nthreads, rank, &lo, &hi);
    mt_meet(fn, m, nthreads, false);
    for (int i = 0; i < n; i++) {
        int pe = (team->my_pe + i) % n; /* PEs start at different sources */
        size_t off = (size_t)pe * len;
        const char *from = shr_coll_src_of(&a, my_off, off);
        if (pe != team->my_pe || from != (char *)dest + off) { /* in place: mine is there */
            mt_pull((char *)dest + off + lo, from + lo, hi - lo, shr_team_world_pe(team, pe));
        }
    }
    mt_meet(fn, m, nthreads, false);
    return 0;
}

int shr_coll_reduce_mt(const char *fn, shr_team_t *team, void *dest, const void *src,
                       size_t count, shr_dtype_t dt, shr_op_t op, int nthreads, int rank)
{
    shr_coll_mt_t *m = mt_of(fn, team);
    shr_coll_op_fn_t kernel = shr_coll_op_fn(dt, op);
    size_t es = shr_dtype_size(dt), lo, hi;
    int n = team->n_pes;
    char *acc, *in = NULL;

    mt_slice(count, nthreads, rank, &lo, &hi);
    size_t bytes = (hi - lo) * es, off = lo * es;
    acc = malloc(bytes ? 2 * bytes : 1);
    if (acc == NULL) {
        shr_fatal(1, "out of memory for a multithreaded reduction's slice");
    }
    in = acc + bytes;
    mt_meet(fn, m, nthreads, false);
    /* in team order on every PE: floating-point sums come out the same */
    for (int i = 0; i < n && bytes != 0; i++) {
        int pe = shr_team_world_pe(team, i);
        const void *peer = shr_ptr((const char *)src + off, pe);
        if (peer == NULL) {
            mt_pull(in, (const char *)src + off, bytes, pe);
            peer = in;
        }
        if (i == 0) {
            memcpy(acc, peer, bytes);
        } else {
            kernel(acc, acc, peer, hi - lo);
        }
    }
    /* dest may be src (in place): written only once every PE read it */
    mt_meet(fn, m, nthreads, false);
    memcpy((char *)dest + off, acc, bytes);
    free(acc);
    return 0;
}

int shr_coll_sync_mt(const char *fn, shr_team_t *team, bool quiet, int nthreads)
{
    mt_meet(fn, mt_of(fn, team), nthreads, quiet);
    return 0;
}
