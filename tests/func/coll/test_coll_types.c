/*
 * test_coll_types -- every typed reduction (and/or/xor/min/max/sum/prod over
 * the spec's type table, 1.5 errata applied, plus the signed bitwise
 * compatibility forms), every sum scan (inscan, exscan) and every
 * deprecated _to_all reduction, each checked exactly against a serial
 * computation.  The type lists come from src/api/types.tsv through
 * gen_types.py (coll_types.h, generated at build time).
 *
 * Values are small integers (complex: small Gaussian integers), so every
 * result is exact in every type whatever the order of combination.  Two
 * lengths: 37 elements (the eager path) and 1000 (the bulk paths).
 */
#include <complex.h>
#include <stdbool.h>

#include "harness.h"
#include "coll_types.h"

/* SIGNED() below compares unsigned types with 0 on purpose */
#pragma GCC diagnostic ignored "-Wtype-limits"

#define NMAX 1000

static int me, npes;
static long psync[SHMEM_REDUCE_SYNC_SIZE];
static char *bsrc, *bdst, *bwrk; /* symmetric, NMAX of the largest type */
static int ncases;

typedef struct set {
    const char *name;
    shmem_team_t team;   /* SHMEM_TEAM_INVALID: active set */
    int start, log, size, idx;
} set_t;

static int member(const set_t *s, int k)
{
    return s->team != SHMEM_TEAM_INVALID ? shmem_team_translate_pe(s->team, k, SHMEM_TEAM_WORLD)
                                         : s->start + (k << s->log);
}

static void sync_set(const set_t *s)
{
    if (s->team != SHMEM_TEAM_INVALID) {
        shmem_team_sync(s->team);
    } else {
        shmem_barrier(s->start, s->log, s->size, psync);
    }
}

#define SIGNED(_ctype) ((_ctype)-1 < (_ctype)0)

/* contribution of world PE p to element i */
#define V_BIT(_ctype, _p, _i) ((_ctype)((((_p) * 37 + (_i) * 11) & 0x3f) | (1 << (((_p) + (_i)) % 7))))
#define V_MIN(_ctype, _p, _i) ((_ctype)(((_p) * 13 + (int)(_i) * 7) % 100 - (SIGNED(_ctype) ? 50 : 0)))
#define V_MAX V_MIN
#define V_SUM(_ctype, _p, _i) ((_ctype)(((_p) + (int)(_i)) % 5 + 1 - (SIGNED(_ctype) ? 2 : 0)))
#define V_PROD(_ctype, _p, _i) \
    ((_ctype)(SIGNED(_ctype) && ((_p) + (_i)) % 4 == 1 ? -1 : \
              ((_p) < 6 && ((_p) + (_i)) % 3 == 0 ? 2 : 1)))
#define V_AND V_BIT
#define V_OR V_BIT
#define V_XOR V_BIT
#define C_SUM(_ctype, _p, _i) ((_ctype)((double)(((_p) + (_i)) % 5) + (double)(((_p) * 3 + (_i)) % 4) * I))
#define C_PROD(_ctype, _p, _i) ((_ctype)((((_p) + (_i)) % 3 == 0) ? I : 1))

#define OP_AND(_ctype, _a, _b) ((_ctype)((_a) & (_b)))
#define OP_OR(_ctype, _a, _b) ((_ctype)((_a) | (_b)))
#define OP_XOR(_ctype, _a, _b) ((_ctype)((_a) ^ (_b)))
#define OP_MIN(_ctype, _a, _b) ((_b) < (_a) ? (_b) : (_a))
#define OP_MAX(_ctype, _a, _b) ((_b) > (_a) ? (_b) : (_a))
#define OP_SUM(_ctype, _a, _b) ((_ctype)((_a) + (_b)))
#define OP_PROD(_ctype, _a, _b) ((_ctype)((_a) * (_b)))

/* Runs one reduction call `_call` (dest d, source sr, n elements) on set s
 * and checks every element against the serial result. */
#define RUN_RED(_ctype, _label, _VAL, _OP, _call, _in_place) do { \
        _ctype *sr = (_ctype *)bsrc, *d = (_in_place) ? sr : (_ctype *)bdst; \
        for (size_t i = 0; i < n; i++) { \
            sr[i] = _VAL(_ctype, me, i); \
        } \
        sync_set(s); \
        _call; \
        for (size_t i = 0; i < n; i++) { \
            _ctype want = _VAL(_ctype, member(s, 0), i); \
            for (int k = 1; k < s->size; k++) { \
                want = _OP(_ctype, want, _VAL(_ctype, member(s, k), i)); \
            } \
            CHECK(d[i] == want, "%s on %s, %zu elements%s: element %zu differs", _label, \
                  s->name, n, (_in_place) ? " (in place)" : "", i); \
        } \
        sync_set(s); \
        ncases++; \
    } while (0)

/* Team reduction of (type, op) with value generator VAL. */
#define TEAM_RED(_ctype, _tn, _op, _VAL, _OP) \
    RUN_RED(_ctype, "shmem_" #_tn "_" #_op "_reduce", _VAL, _OP, \
            CHECK_EQ(shmem_##_tn##_##_op##_reduce(s->team, d, sr, n), 0), false); \
    RUN_RED(_ctype, "shmem_" #_tn "_" #_op "_reduce", _VAL, _OP, \
            CHECK_EQ(shmem_##_tn##_##_op##_reduce(s->team, d, sr, n), 0), true)

#define ASET_RED(_ctype, _tn, _op, _VAL, _OP) \
    RUN_RED(_ctype, "shmem_" #_tn "_" #_op "_to_all", _VAL, _OP, \
            shmem_##_tn##_##_op##_to_all(d, sr, (int)n, s->start, s->log, s->size, \
                                         (_ctype *)bwrk, psync), false); \
    RUN_RED(_ctype, "shmem_" #_tn "_" #_op "_to_all", _VAL, _OP, \
            shmem_##_tn##_##_op##_to_all(d, sr, (int)n, s->start, s->log, s->size, \
                                         (_ctype *)bwrk, psync), true)

/* Scans: element i of the result on member k sums members 0..k(-1). */
#define RUN_SCAN(_ctype, _tn, _VAL, _incl) do { \
        _ctype *sr = (_ctype *)bsrc, *d = (_ctype *)bdst; \
        for (size_t i = 0; i < n; i++) { \
            sr[i] = _VAL(_ctype, me, i); \
        } \
        sync_set(s); \
        CHECK_EQ((_incl) ? shmem_##_tn##_sum_inscan(s->team, d, sr, n) \
                         : shmem_##_tn##_sum_exscan(s->team, d, sr, n), 0); \
        for (size_t i = 0; i < n; i++) { \
            _ctype want = (_ctype)0; \
            for (int k = 0; k < s->idx + ((_incl) ? 1 : 0); k++) { \
                want = OP_SUM(_ctype, want, _VAL(_ctype, member(s, k), i)); \
            } \
            CHECK(d[i] == want, "shmem_%s_sum_%s on %s (member %d), %zu elements: element " \
                  "%zu differs", #_tn, (_incl) ? "inscan" : "exscan", s->name, s->idx, n, i); \
        } \
        sync_set(s); \
        ncases++; \
    } while (0)

/* ---- expansions over the type lists ---- */
#define T_BIT(_ctype, _tn, _kind) \
    TEAM_RED(_ctype, _tn, and, V_AND, OP_AND); \
    TEAM_RED(_ctype, _tn, or, V_OR, OP_OR); \
    TEAM_RED(_ctype, _tn, xor, V_XOR, OP_XOR);
#define T_MINMAX(_ctype, _tn, _kind) \
    TEAM_RED(_ctype, _tn, min, V_MIN, OP_MIN); \
    TEAM_RED(_ctype, _tn, max, V_MAX, OP_MAX);
#define T_SUM(_ctype, _tn, _kind) \
    TEAM_RED(_ctype, _tn, sum, V_SUM, OP_SUM); \
    TEAM_RED(_ctype, _tn, prod, V_PROD, OP_PROD); \
    RUN_SCAN(_ctype, _tn, V_SUM, true); \
    RUN_SCAN(_ctype, _tn, V_SUM, false);
#define T_SUM_CPLX(_ctype, _tn, _kind) \
    TEAM_RED(_ctype, _tn, sum, C_SUM, OP_SUM); \
    TEAM_RED(_ctype, _tn, prod, C_PROD, OP_PROD); \
    RUN_SCAN(_ctype, _tn, C_SUM, true); \
    RUN_SCAN(_ctype, _tn, C_SUM, false);
#define A_BIT(_ctype, _tn, _kind) \
    ASET_RED(_ctype, _tn, and, V_AND, OP_AND); \
    ASET_RED(_ctype, _tn, or, V_OR, OP_OR); \
    ASET_RED(_ctype, _tn, xor, V_XOR, OP_XOR);
#define A_MINMAX(_ctype, _tn, _kind) \
    ASET_RED(_ctype, _tn, min, V_MIN, OP_MIN); \
    ASET_RED(_ctype, _tn, max, V_MAX, OP_MAX);
#define A_SUM(_ctype, _tn, _kind) \
    ASET_RED(_ctype, _tn, sum, V_SUM, OP_SUM); \
    ASET_RED(_ctype, _tn, prod, V_PROD, OP_PROD);
#define A_SUM_CPLX(_ctype, _tn, _kind) \
    ASET_RED(_ctype, _tn, sum, C_SUM, OP_SUM); \
    ASET_RED(_ctype, _tn, prod, C_PROD, OP_PROD);

static void team_cases(const set_t *s, size_t n)
{
    FOR_RED_BIT(T_BIT)
    FOR_RED_BIT_COMPAT(T_BIT)
    FOR_RED_MINMAX(T_MINMAX)
    FOR_RED_SUM(T_SUM)
    FOR_RED_SUM_CPLX(T_SUM_CPLX)
}

static void aset_cases(const set_t *s, size_t n)
{
    FOR_TOALL_BIT(A_BIT)
    FOR_TOALL_MINMAX(A_MINMAX)
    FOR_TOALL_SUM(A_SUM)
    FOR_TOALL_SUM_CPLX(A_SUM_CPLX)
}

static void run(const set_t *s)
{
    /* 1 and 2 elements: eager payloads of 1 to 8 words, odd and even
     * counts (the slot helper rounds an even one's start down to 16 bytes
     * below the header, shr_coll_slot_at), combined in place */
    static const size_t lens[] = {1, 2, 37, NMAX};
    if (s->idx < 0) {
        return;
    }
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
        if (s->team != SHMEM_TEAM_INVALID) {
            team_cases(s, lens[l]);
        } else {
            aset_cases(s, lens[l]);
        }
    }
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) {
        psync[i] = SHMEM_SYNC_VALUE;
    }
    size_t bytes = NMAX * sizeof(long double _Complex) + 64;
    bsrc = shmem_malloc(bytes);
    bdst = shmem_malloc(bytes);
    bwrk = shmem_malloc(bytes);
    CHECK(bsrc && bdst && bwrk, "shmem_malloc failed");

    set_t world = {"SHMEM_TEAM_WORLD", SHMEM_TEAM_WORLD, 0, 0, npes, me};
    run(&world);
    shmem_barrier_all();
    set_t all = {"active set (0, 0, npes)", SHMEM_TEAM_INVALID, 0, 0, npes, me};
    run(&all);
    shmem_barrier_all();
    if (npes > 2) {
        /* odd strides: the odd PEs as a split team and as an active set */
        shmem_team_t odd;
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd), 0);
        set_t t = {"split team (1, 2)", odd, 0, 0, 0, -1};
        if (odd != SHMEM_TEAM_INVALID) {
            t.size = shmem_team_n_pes(odd);
            t.idx = shmem_team_my_pe(odd);
        }
        run(&t);
        set_t a = {"active set (1, 1, npes/2)", SHMEM_TEAM_INVALID, 1, 1, npes / 2,
                   me % 2 == 1 && me / 2 < npes / 2 ? me / 2 : -1};
        run(&a);
        shmem_barrier_all();
        if (odd != SHMEM_TEAM_INVALID) {
            shmem_team_destroy(odd);
        }
    }
    if (me == 0) {
        printf("%d reduction and scan cases checked on PE 0\n", ncases);
    }
    shmem_free(bsrc);
    shmem_free(bdst);
    shmem_free(bwrk);
    return test_pass("every reduction type and operator");
}
