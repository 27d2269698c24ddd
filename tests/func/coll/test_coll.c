/*
 * test_coll -- every collective on several member sets, at 0, 1 element,
 * 4 KiB and 1 MiB, checked exactly against a serial computation, and at 0
 * elements on NULL buffers.
 *
 * Broadcast, collect and fcollect also in place (source == dest; every
 * source at its own block of dest), as legacy code uses them.
 *
 * Member sets: SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED, split teams with odd
 * strides, and active sets (all PEs; odd PEs: logPE_stride 1).  Forms:
 * team routines on teams, the deprecated active-set routines (pSync, pWrk)
 * on active sets.  Also back-to-back calls: barriers and syncs reusing one
 * pSync, data collectives reusing a team with no barrier in between.
 *
 *   test_coll [what]   what = all (default) or one of barrier, broadcast,
 *                      collect, fcollect, alltoall, alltoalls, reduce, scan:
 *                      the collectives of coll_algos.def, lower case
 *                      (test_coll_forced.py runs only the forced one's)
 */
#include <stdbool.h>

#include "harness.h"

#define MiB (1u << 20)

static int me, npes;
static const char *only = "all";
static long psync[2][SHMEM_SYNC_SIZE];
static long pwrk[2][MiB / 8 / 2 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static char *src, *dst;        /* symmetric, big enough for every case */
static long *lsrc, *ldst;      /* the same memory, as longs */

typedef struct group {
    char name[64];
    shmem_team_t team;   /* team form, or SHMEM_TEAM_INVALID for an active set */
    int start, log, size;
    int idx;             /* my number in the set, -1 if not a member */
} group_t;

static bool want(const char *what)
{
    /* "alltoall" selects alltoalls too: they share SHIMMER_COLL_ALLTOALL_ALGO */
    return !strcmp(only, "all") || !strncmp(what, only, strlen(only));
}

static int world_of(const group_t *g, int i)
{
    return g->team != SHMEM_TEAM_INVALID ? shmem_team_translate_pe(g->team, i, SHMEM_TEAM_WORLD)
                                         : g->start + (i << g->log);
}

static unsigned char pat(int pe, size_t i, unsigned seed)
{
    return test_byte(pe, i, seed);
}

static void fill(char *p, size_t len, int pe, unsigned seed)
{
    for (size_t i = 0; i < len; i++) {
        p[i] = (char)pat(pe, i, seed);
    }
}

static void check_bytes(const char *p, size_t len, int pe, unsigned seed, size_t off0,
                        const char *what, const group_t *g, size_t size)
{
    for (size_t i = 0; i < len; i++) {
        if ((unsigned char)p[i] != pat(pe, off0 + i, seed)) {
            CHECK(0, "%s on %s, %zu bytes: byte %zu is %u, want %u (data of PE %d)", what,
                  g->name, size, i, (unsigned char)p[i], pat(pe, off0 + i, seed), pe);
        }
    }
}

static void sync_group(const group_t *g, int k)
{
    if (g->team != SHMEM_TEAM_INVALID) {
        shmem_team_sync(g->team);
    } else {
        shmem_barrier(g->start, g->log, g->size, psync[k & 1]);
    }
}

/* ---- broadcast ---- */
static void t_bcast(const group_t *g, size_t size, unsigned seed)
{
    int roots[2] = {0, g->size - 1};
    for (int r = 0; r < 2; r++) {
        int root = roots[r];
        memset(dst, 0x5a, size + 64);
        fill(src, size, world_of(g, root) + 1000 * r, seed);
        sync_group(g, 0);
        if (g->team != SHMEM_TEAM_INVALID) {
            CHECK_EQ(shmem_broadcastmem(g->team, dst, src, size, root), 0);
        } else {
            shmem_broadcast64(dst, src, size / 8, root, g->start, g->log, g->size, psync[r]);
        }
        if (g->team == SHMEM_TEAM_INVALID && g->idx == root) {
            for (size_t i = 0; i < size; i++) {
                CHECK((unsigned char)dst[i] == 0x5a, "active-set broadcast wrote dest on the "
                      "root (%s, byte %zu)", g->name, i);
            }
        } else {
            check_bytes(dst, size, world_of(g, root) + 1000 * r, seed, 0, "broadcast", g, size);
        }
        CHECK((unsigned char)dst[size] == 0x5a, "broadcast wrote past dest (%s)", g->name);
        sync_group(g, 1);
    }
    /* back to back on a team: no synchronisation between calls, changing
     * roots, the ring of regions wraps several times */
    if (g->team != SHMEM_TEAM_INVALID && size <= 4096) {
        for (int k = 0; k < 40; k++) {
            int root = k % g->size;
            char *s = src + (size_t)(k % 2) * 8192, *d = dst + (size_t)(k % 2) * 8192;
            if (g->idx == root) {
                fill(s, size, k, seed);
            }
            /* the root may refill s only once everyone has its copy:
             * alternating buffers and a sync every other call allow that */
            CHECK_EQ(shmem_broadcastmem(g->team, d, s, size, root), 0);
            check_bytes(d, size, k, seed, 0, "back-to-back broadcast", g, size);
            if (k % 2) {
                shmem_team_sync(g->team);
            }
        }
        shmem_team_sync(g->team);
        /* and with no synchronisation at all: a buffer per call, so the
         * ring of regions must recycle itself (a barrier every 16 calls) */
        for (int k = 0; k < 50; k++) {
            char *s = src + (size_t)k * 4096, *d = dst + (size_t)k * 4096;
            if (g->idx == k % g->size) {
                fill(s, size, 7 * k, seed);
            }
            CHECK_EQ(shmem_broadcastmem(g->team, d, s, size, k % g->size), 0);
        }
        for (int k = 0; k < 50; k++) {
            check_bytes(dst + (size_t)k * 4096, size, 7 * k, seed, 0, "unsynchronised broadcast",
                        g, size);
        }
        shmem_team_sync(g->team);
    }
}

/* in place (docs/collectives.md): source == dest; the root keeps its data */
static void t_bcast_in_place(const group_t *g, size_t size, unsigned seed)
{
    int roots[2] = {0, g->size - 1};
    for (int r = 0; r < 2; r++) {
        int root = roots[r], data = world_of(g, root) + 2000 + 1000 * r;
        memset(dst, 0x5a, size + 64);
        if (g->idx == root) {
            fill(dst, size, data, seed);
        }
        sync_group(g, 0);
        if (g->team != SHMEM_TEAM_INVALID) {
            CHECK_EQ(shmem_broadcastmem(g->team, dst, dst, size, root), 0);
        } else {
            shmem_broadcast64(dst, dst, size / 8, root, g->start, g->log, g->size, psync[r]);
        }
        check_bytes(dst, size, data, seed, 0, "in-place broadcast", g, size);
        CHECK((unsigned char)dst[size] == 0x5a, "in-place broadcast wrote past dest (%s)",
              g->name);
        sync_group(g, 1);
    }
}

/* ---- collect and fcollect ---- */
static size_t collect_len(int i, size_t size)
{
    if (size == 0) {
        return 0;
    }
    /* per-PE sizes differ (multiples of 8 for collect64); one PE gives none */
    return i == 1 ? 0 : size + (size_t)(i % 3) * 8;
}

/* in place (docs/collectives.md): every source is its own block of dest */
static void t_collect(const group_t *g, size_t size, unsigned seed, bool fixed, bool in_place)
{
    size_t mine = fixed ? size : collect_len(g->idx, size), total = 0, at = 0;
    for (int i = 0; i < g->size; i++) {
        size_t len = fixed ? size : collect_len(i, size);
        at += i < g->idx ? len : 0;
        total += len;
    }
    char *s = in_place ? dst + at : src;
    memset(dst, 0x5a, total + 64);
    fill(s, mine, shmem_my_pe(), seed);
    sync_group(g, 0);
    if (g->team != SHMEM_TEAM_INVALID) {
        int ret = fixed ? shmem_fcollectmem(g->team, dst, s, mine)
                        : shmem_collectmem(g->team, dst, s, mine);
        CHECK_EQ(ret, 0);
    } else if (fixed) {
        shmem_fcollect64(dst, s, mine / 8, g->start, g->log, g->size, psync[0]);
    } else {
        shmem_collect64(dst, s, mine / 8, g->start, g->log, g->size, psync[0]);
    }
    const char *what = fixed ? (in_place ? "in-place fcollect" : "fcollect")
                             : (in_place ? "in-place collect" : "collect");
    size_t off = 0;
    for (int i = 0; i < g->size; i++) {
        size_t len = fixed ? size : collect_len(i, size);
        check_bytes(dst + off, len, world_of(g, i), seed, 0, what, g, size);
        off += len;
    }
    CHECK((unsigned char)dst[total] == 0x5a, "%s wrote past dest (%s)", what, g->name);
    sync_group(g, 1);
}

/* Apart, though the source starts right after the collected bytes and the
 * last member gives none: a source of 0 bytes overlaps nothing, so that
 * member's source, at its empty block's address, is not in place (the
 * pulling algorithms then read every member's source, not its dest). */
static void t_collect_after(const group_t *g, size_t size, unsigned seed)
{
    size_t len = size + 8, total = (size_t)(g->size - 1) * len;
    size_t mine = g->idx == g->size - 1 ? 0 : len;
    char *s = dst + total;

    memset(dst, 0x5a, total);
    fill(s, mine, shmem_my_pe(), seed);
    sync_group(g, 0);
    if (g->team != SHMEM_TEAM_INVALID) {
        CHECK_EQ(shmem_collectmem(g->team, dst, s, mine), 0);
    } else {
        shmem_collect64(dst, s, mine / 8, g->start, g->log, g->size, psync[0]);
    }
    for (int i = 0; i + 1 < g->size; i++) {
        check_bytes(dst + (size_t)i * len, len, world_of(g, i), seed, 0,
                    "collect, the source right after dest", g, size);
    }
    sync_group(g, 1);
}

/* ---- alltoall(s) ---- */
static void t_alltoall(const group_t *g, size_t size, unsigned seed, bool strided)
{
    int n = g->size;
    size_t elem = 8, nelems = size / elem / (size_t)n;
    ptrdiff_t dst_s = strided ? 3 : 1, src_s = strided ? 2 : 1;
    if (size != 0 && nelems == 0) {
        nelems = 1;
    }
    if (strided && nelems > 4096) {
        nelems = 4096; /* 1 MiB strided is slow and adds nothing */
    }
    size_t dext = (size_t)n * nelems * (size_t)dst_s * elem, sext = (size_t)n * nelems * (size_t)src_s * elem;
    long *s = lsrc, *d = ldst;
    for (size_t k = 0; k < sext / 8; k++) {
        s[k] = -1;
    }
    for (int j = 0; j < n; j++) {
        for (size_t e = 0; e < nelems; e++) {
            s[((size_t)j * nelems + e) * (size_t)src_s] =
                (long)shmem_my_pe() * 1000003L + j * 10007L + (long)e + seed;
        }
    }
    memset(d, 0x5a, dext + 64);
    sync_group(g, 0);
    if (g->team != SHMEM_TEAM_INVALID) {
        CHECK_EQ(strided ? shmem_long_alltoalls(g->team, d, s, dst_s, src_s, nelems)
                         : shmem_long_alltoall(g->team, d, s, nelems), 0);
    } else if (strided) {
        shmem_alltoalls64(d, s, dst_s, src_s, nelems, g->start, g->log, g->size, psync[0]);
    } else {
        shmem_alltoall64(d, s, nelems, g->start, g->log, g->size, psync[0]);
    }
    (void)strided;
    for (int j = 0; j < n; j++) {
        for (size_t e = 0; e < nelems; e++) {
            long want_v = (long)world_of(g, j) * 1000003L + g->idx * 10007L + (long)e + seed;
            long got = d[((size_t)j * nelems + e) * (size_t)dst_s];
            CHECK(got == want_v, "%s on %s, nelems %zu: block %d element %zu is %ld, want %ld",
                  strided ? "alltoalls" : "alltoall", g->name, nelems, j, e, got, want_v);
        }
    }
    sync_group(g, 1);
}

/* alltoallsmem takes elements of 1 byte: exercise it with a byte-strided
 * exchange of its own (the case above uses longs through the typed form) */
static void t_alltoalls_mem(const group_t *g, unsigned seed)
{
    int n = g->size;
    size_t nelems = 5;
    ptrdiff_t ds = 2, ss = 3;
    memset(src, 0, (size_t)n * nelems * (size_t)ss);
    for (int j = 0; j < n; j++) {
        for (size_t e = 0; e < nelems; e++) {
            src[((size_t)j * nelems + e) * (size_t)ss] = (char)pat(shmem_my_pe(), (size_t)j * 64 + e, seed);
        }
    }
    memset(dst, 0x5a, (size_t)n * nelems * (size_t)ds + 8);
    sync_group(g, 0);
    CHECK_EQ(shmem_alltoallsmem(g->team, dst, src, ds, ss, nelems), 0);
    for (int j = 0; j < n; j++) {
        for (size_t e = 0; e < nelems; e++) {
            unsigned char got = (unsigned char)dst[((size_t)j * nelems + e) * (size_t)ds];
            unsigned char w = pat(world_of(g, j), (size_t)g->idx * 64 + e, seed);
            CHECK(got == w, "alltoallsmem on %s: block %d element %zu is %u, want %u", g->name, j,
                  e, got, w);
        }
    }
    sync_group(g, 1);
}

/* ---- reductions ---- */
static long rval(int pe, size_t i, unsigned seed)
{
    return (long)((pe + 1) * 7919L) ^ (long)(i * 2654435761u + seed);
}

static void t_reduce(const group_t *g, size_t size, unsigned seed, bool in_place)
{
    size_t count = size / 8;
    long *d = in_place ? lsrc : ldst;
    for (size_t i = 0; i < count; i++) {
        lsrc[i] = rval(shmem_my_pe(), i, seed);
    }
    if (!in_place) {
        for (size_t i = 0; i < count + 8; i++) {
            ldst[i] = 0x5a5a;
        }
    }
    sync_group(g, 0);
    if (g->team != SHMEM_TEAM_INVALID) {
        CHECK_EQ(shmem_long_sum_reduce(g->team, d, lsrc, count), 0);
    } else {
        shmem_long_sum_to_all(d, lsrc, (int)count, g->start, g->log, g->size, pwrk[0], psync[0]);
    }
    for (size_t i = 0; i < count; i++) {
        unsigned long want_v = 0;
        for (int j = 0; j < g->size; j++) {
            want_v += (unsigned long)rval(world_of(g, j), i, seed);
        }
        CHECK(d[i] == (long)want_v, "sum reduction%s on %s, %zu elements: element %zu is %ld, "
              "want %ld", in_place ? " in place" : "", g->name, count, i, d[i], (long)want_v);
    }
    if (!in_place) {
        CHECK(ldst[count] == 0x5a5a, "reduction wrote past dest (%s)", g->name);
    }
    sync_group(g, 1);
    /* a second operator through the same path: max */
    if (!in_place && count > 0) {
        if (g->team != SHMEM_TEAM_INVALID) {
            CHECK_EQ(shmem_long_max_reduce(g->team, ldst, lsrc, count), 0);
        } else {
            shmem_long_max_to_all(ldst, lsrc, (int)count, g->start, g->log, g->size, pwrk[1],
                                  psync[1]);
        }
        for (size_t i = 0; i < count; i += 1 + count / 64) {
            long want_v = rval(world_of(g, 0), i, seed);
            for (int j = 1; j < g->size; j++) {
                long v = rval(world_of(g, j), i, seed);
                want_v = v > want_v ? v : want_v;
            }
            CHECK(ldst[i] == want_v, "max reduction on %s: element %zu is %ld, want %ld",
                  g->name, i, ldst[i], want_v);
        }
        sync_group(g, 0);
    }
}

/* ---- scans (team only) ---- */
static void t_scan(const group_t *g, size_t size, unsigned seed, bool inclusive, bool in_place)
{
    size_t count = size / 8;
    long *d = in_place ? lsrc : ldst;
    for (size_t i = 0; i < count; i++) {
        lsrc[i] = rval(shmem_my_pe(), i, seed);
    }
    sync_group(g, 0);
    int ret = inclusive ? shmem_long_sum_inscan(g->team, d, lsrc, count)
                        : shmem_long_sum_exscan(g->team, d, lsrc, count);
    CHECK_EQ(ret, 0);
    for (size_t i = 0; i < count; i++) {
        unsigned long want_v = 0;
        for (int j = 0; j < g->idx + (inclusive ? 1 : 0); j++) {
            want_v += (unsigned long)rval(world_of(g, j), i, seed);
        }
        CHECK(d[i] == (long)want_v, "%s scan%s on %s (team PE %d), %zu elements: element %zu "
              "is %ld, want %ld", inclusive ? "inclusive" : "exclusive",
              in_place ? " in place" : "", g->name, g->idx, count, i, d[i], (long)want_v);
    }
    sync_group(g, 1);
}

/* ---- zero elements, NULL buffers ----
 * Nothing moves, so no buffer may be touched: NULL is accepted, as for
 * RMA (tests-sos' nop_collectives does this; collect's flat exchange
 * handed NULL to memcpy, which the UBSan build stops on). */
static void t_empty_null(const group_t *g)
{
    bool team = g->team != SHMEM_TEAM_INVALID;

    if (want("broadcast")) {
        if (team) {
            CHECK_EQ(shmem_broadcastmem(g->team, NULL, NULL, 0, 0), 0);
        } else {
            shmem_broadcast64(NULL, NULL, 0, 0, g->start, g->log, g->size, psync[0]);
        }
        sync_group(g, 1);
    }
    for (int fixed = 0; fixed < 2; fixed++) {
        if (!want(fixed ? "fcollect" : "collect")) {
            continue;
        }
        if (team) {
            CHECK_EQ(fixed ? shmem_fcollectmem(g->team, NULL, NULL, 0)
                           : shmem_collectmem(g->team, NULL, NULL, 0), 0);
        } else if (fixed) {
            shmem_fcollect64(NULL, NULL, 0, g->start, g->log, g->size, psync[0]);
        } else {
            shmem_collect64(NULL, NULL, 0, g->start, g->log, g->size, psync[0]);
        }
        sync_group(g, 1);
    }
    if (want("alltoall")) {
        if (team) {
            CHECK_EQ(shmem_alltoallmem(g->team, NULL, NULL, 0), 0);
            CHECK_EQ(shmem_alltoallsmem(g->team, NULL, NULL, 1, 1, 0), 0);
        } else {
            shmem_alltoall64(NULL, NULL, 0, g->start, g->log, g->size, psync[0]);
            sync_group(g, 1);
            shmem_alltoalls64(NULL, NULL, 1, 1, 0, g->start, g->log, g->size, psync[0]);
        }
        sync_group(g, 1);
    }
    if (want("reduce")) {
        if (team) {
            CHECK_EQ(shmem_long_sum_reduce(g->team, NULL, NULL, 0), 0);
        } else {
            shmem_long_sum_to_all(NULL, NULL, 0, g->start, g->log, g->size, pwrk[0], psync[0]);
        }
        sync_group(g, 1);
    }
    if (want("scan") && team) {
        CHECK_EQ(shmem_long_sum_inscan(g->team, NULL, NULL, 0), 0);
        CHECK_EQ(shmem_long_sum_exscan(g->team, NULL, NULL, 0), 0);
        sync_group(g, 1);
    }
}

/* ---- barriers and syncs ---- */
static long counter; /* symmetric */

static void t_barrier(const group_t *g)
{
    /* back-to-back barriers and syncs on one pSync; a put before each
     * barrier must be visible after it */
    for (int k = 0; k < 50; k++) {
        int right = world_of(g, (g->idx + 1) % g->size);
        shmem_long_p(&counter, k, right);
        if (g->team != SHMEM_TEAM_INVALID) {
            shmem_quiet();
            CHECK_EQ(shmem_team_sync(g->team), 0);
        } else {
            shmem_barrier(g->start, g->log, g->size, psync[0]);
        }
        CHECK(counter == k, "barrier %d on %s: put from the left not visible (%ld)", k, g->name,
              counter);
        if (g->team != SHMEM_TEAM_INVALID) {
            CHECK_EQ(shmem_team_sync(g->team), 0);
        } else {
            shmem_sync(g->start, g->log, g->size, psync[0]);
        }
    }
}

/* After every member has left its last active-set call, pSync is back to
 * SHMEM_SYNC_VALUE (a barrier_all follows each group). */
static void check_psync_restored(const char *name)
{
    for (int k = 0; k < 2; k++) {
        for (int w = 0; w < SHMEM_SYNC_SIZE; w++) {
            CHECK(psync[k][w] == SHMEM_SYNC_VALUE, "pSync[%d][%d] is %ld after the calls on "
                  "%s, want SHMEM_SYNC_VALUE", k, w, psync[k][w], name);
        }
    }
}

static void run_group(group_t *g)
{
    /* above 8 PEs (16 on 2 cores: the oversubscription run) the largest
     * size is 128 KiB, which keeps that run short */
    size_t sizes[] = {0, 8, 4096, npes > 8 ? MiB / 8 : MiB};
    unsigned seed = 1;

    if (g->idx < 0) {
        return;
    }
    if (want("barrier")) {
        t_barrier(g);
    }
    t_empty_null(g);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t size = sizes[s];
        seed += 17;
        if (want("broadcast")) {
            t_bcast(g, size, seed);
            t_bcast_in_place(g, size, seed);
        }
        if (want("fcollect")) {
            t_collect(g, size, seed, true, false);
            t_collect(g, size, seed, true, true);
        }
        if (want("collect")) {
            t_collect(g, size, seed, false, false);
            t_collect(g, size, seed, false, true);
            t_collect_after(g, size, seed);
        }
        if (want("alltoall")) {
            t_alltoall(g, size, seed, false);
        }
        if (want("alltoalls")) {
            t_alltoall(g, size, seed, true);
            if (g->team != SHMEM_TEAM_INVALID && s == 1) {
                t_alltoalls_mem(g, seed);
            }
        }
        if (want("reduce")) {
            t_reduce(g, size, seed, false);
            t_reduce(g, size, seed, true);
        }
        if (want("scan") && g->team != SHMEM_TEAM_INVALID) {
            t_scan(g, size, seed, true, false);
            t_scan(g, size, seed, false, false);
            t_scan(g, size, seed, true, true);
            t_scan(g, size, seed, false, true);
        }
    }
}

static void team_group(group_t *g, const char *name, shmem_team_t team)
{
    memset(g, 0, sizeof(*g));
    snprintf(g->name, sizeof(g->name), "%s", name);
    g->team = team;
    g->idx = team == SHMEM_TEAM_INVALID ? -1 : shmem_team_my_pe(team);
    g->size = team == SHMEM_TEAM_INVALID ? 0 : shmem_team_n_pes(team);
}

static void aset_group(group_t *g, int start, int log, int size)
{
    memset(g, 0, sizeof(*g));
    snprintf(g->name, sizeof(g->name), "active set (%d, %d, %d)", start, log, size);
    g->team = SHMEM_TEAM_INVALID;
    g->start = start;
    g->log = log;
    g->size = size;
    int rel = me - start;
    g->idx = rel >= 0 && rel % (1 << log) == 0 && rel / (1 << log) < size ? rel >> log : -1;
}

int main(int argc, char **argv)
{
    group_t g;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (argc > 1) {
        only = argv[1];
    }
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < SHMEM_SYNC_SIZE; i++) {
            psync[k][i] = SHMEM_SYNC_VALUE;
        }
    }
    size_t max = (size_t)npes * (MiB + 64) + 8 * MiB;
    src = shmem_malloc(max);
    dst = shmem_malloc(max);
    CHECK(src != NULL && dst != NULL, "shmem_malloc(%zu) failed", max);
    lsrc = (long *)src;
    ldst = (long *)dst;

    team_group(&g, "SHMEM_TEAM_WORLD", SHMEM_TEAM_WORLD);
    run_group(&g);
    shmem_barrier_all();
    team_group(&g, "SHMEM_TEAM_SHARED", SHMEM_TEAM_SHARED);
    run_group(&g);
    shmem_barrier_all();

    aset_group(&g, 0, 0, npes);
    run_group(&g);
    shmem_barrier_all();
    check_psync_restored(g.name);
    shmem_barrier_all(); /* nobody signals a pSync before its owner checked it */
    if (npes > 1) {
        aset_group(&g, 1, 1, npes / 2); /* odd PEs: 1, 3, 5, ... */
        run_group(&g);
        shmem_barrier_all();
        check_psync_restored(g.name);
        shmem_barrier_all();
    }

    /* split teams with odd strides: 1, 4, 7 ... and the even PEs */
    if (npes > 2) {
        shmem_team_t t3 = SHMEM_TEAM_INVALID, t2 = SHMEM_TEAM_INVALID;
        int n3 = (npes - 1 + 2) / 3;
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 3, n3, NULL, 0, &t3), 0);
        team_group(&g, "split team (start 1, stride 3)", t3);
        run_group(&g);
        shmem_barrier_all();
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &t2), 0);
        team_group(&g, "split team (start 0, stride 2)", t2);
        run_group(&g);
        shmem_barrier_all();
        if (t3 != SHMEM_TEAM_INVALID) {
            shmem_team_destroy(t3);
        }
        if (t2 != SHMEM_TEAM_INVALID) {
            shmem_team_destroy(t2);
        }
    }
    shmem_free(src);
    shmem_free(dst);
    return test_pass("collectives");
}
