/*
 * cases.h -- the test logic behind the generated per-type tests.  Each
 * macro checks one group of routines for one type; tools/gen_tests.py
 * expands them over every type of the routine's class (types.tsv), so the
 * generated files name every typed routine.
 *
 * Pattern: PE `me` talks to its right neighbour (me+1) and hears from its
 * left one; values are small integers, exact in every type.  Buffers are on
 * the heap and in global (static) arrays, both must work.
 */
#ifndef SHIMMER_TEST_CASES_H
#define SHIMMER_TEST_CASES_H

#include "harness.h"

#include <shmemx.h>

#define NELEMS 37 /* odd: catches tail handling */

static int me, npes, right, left;

static void cases_init(void)
{
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
}

/* value of element i written by PE pe, exact in every type (1..120) */
#define VAL(_type, _pe, _i) ((_type)(((_pe) * 31 + (_i) * 7) % 120 + 1))

/* Contiguous, single-element and nonblocking RMA on `dst`/`src` (symmetric,
 * NELEMS each), through the plain name (_put) and the ctx twin (_cput). */
#define RMA_ROUND(_type, _dst, _src, _put, _get, _label) do { \
        for (int i = 0; i < NELEMS; i++) { \
            (_src)[i] = VAL(_type, me, i); \
            (_dst)[i] = 0; \
        } \
        shmem_barrier_all(); \
        _put; \
        shmem_barrier_all(); \
        for (int i = 0; i < NELEMS; i++) { \
            CHECK((_dst)[i] == VAL(_type, left, i), "%s put element %d", _label, i); \
        } \
        shmem_barrier_all(); \
        for (int i = 0; i < NELEMS; i++) { \
            (_dst)[i] = 0; \
        } \
        _get; \
        for (int i = 0; i < NELEMS; i++) { \
            CHECK((_dst)[i] == VAL(_type, right, i), "%s get element %d", _label, i); \
        } \
        shmem_barrier_all(); \
    } while (0)

#define RMA_TYPED(_type, _name) do { \
        static _type g_src[NELEMS], g_dst[NELEMS]; \
        _type *h_src = shmem_malloc(sizeof(_type) * NELEMS); \
        _type *h_dst = shmem_malloc(sizeof(_type) * NELEMS); \
        _type *bufs[2][2] = {{h_src, h_dst}, {g_src, g_dst}}; \
        for (int b = 0; b < 2; b++) { \
            _type *s = bufs[b][0], *d = bufs[b][1]; \
            RMA_ROUND(_type, d, s, shmem_##_name##_put(d, s, NELEMS, right), \
                      shmem_##_name##_get(d, s, NELEMS, right), #_name " put/get"); \
            RMA_ROUND(_type, d, s, shmem_ctx_##_name##_put(SHMEM_CTX_DEFAULT, d, s, NELEMS, right), \
                      shmem_ctx_##_name##_get(SHMEM_CTX_DEFAULT, d, s, NELEMS, right), \
                      #_name " ctx put/get"); \
            RMA_ROUND(_type, d, s, (shmem_##_name##_put_nbi(d, s, NELEMS, right), shmem_quiet()), \
                      (shmem_##_name##_get_nbi(d, s, NELEMS, right), shmem_quiet()), \
                      #_name " nbi"); \
            RMA_ROUND(_type, d, s, \
                      (shmem_ctx_##_name##_put_nbi(SHMEM_CTX_DEFAULT, d, s, NELEMS, right), \
                       shmem_ctx_quiet(SHMEM_CTX_DEFAULT)), \
                      (shmem_ctx_##_name##_get_nbi(SHMEM_CTX_DEFAULT, d, s, NELEMS, right), \
                       shmem_ctx_quiet(SHMEM_CTX_DEFAULT)), #_name " ctx nbi"); \
            RMA_ROUND(_type, d, s, \
                      for (int i = 0; i < NELEMS; i++) shmem_##_name##_p(&d[i], s[i], right), \
                      for (int i = 0; i < NELEMS; i++) d[i] = shmem_##_name##_g(&s[i], right), \
                      #_name " p/g"); \
            RMA_ROUND(_type, d, s, \
                      for (int i = 0; i < NELEMS; i++) \
                          shmem_ctx_##_name##_p(SHMEM_CTX_DEFAULT, &d[i], s[i], right), \
                      for (int i = 0; i < NELEMS; i++) \
                          d[i] = shmem_ctx_##_name##_g(SHMEM_CTX_DEFAULT, &s[i], right), \
                      #_name " ctx p/g"); \
            /* strided: every element in one call of stride 1, then odd strides */ \
            RMA_ROUND(_type, d, s, shmem_##_name##_iput(d, s, 1, 1, NELEMS, right), \
                      shmem_##_name##_iget(d, s, 1, 1, NELEMS, right), #_name " iput/iget"); \
            RMA_ROUND(_type, d, s, \
                      shmem_ctx_##_name##_iput(SHMEM_CTX_DEFAULT, d, s, 1, 1, NELEMS, right), \
                      shmem_ctx_##_name##_iget(SHMEM_CTX_DEFAULT, d, s, 1, 1, NELEMS, right), \
                      #_name " ctx iput/iget"); \
            RMA_ROUND(_type, d, s, shmem_##_name##_ibput(d, s, 1, 1, 1, NELEMS, right), \
                      shmem_##_name##_ibget(d, s, 1, 1, 1, NELEMS, right), #_name " ibput/ibget"); \
            RMA_ROUND(_type, d, s, \
                      shmem_ctx_##_name##_ibput(SHMEM_CTX_DEFAULT, d, s, 1, 1, 1, NELEMS, right), \
                      shmem_ctx_##_name##_ibget(SHMEM_CTX_DEFAULT, d, s, 1, 1, 1, NELEMS, right), \
                      #_name " ctx ibput/ibget"); \
            STRIDED_CHECK(_type, d, s, shmem_##_name##_iput(d, s, 3, 2, 6, right), \
                          shmem_##_name##_iget(d, s, 2, 3, 6, right), \
                          shmem_##_name##_ibput(d, s, 5, 4, 2, 6, right), \
                          shmem_##_name##_ibget(d, s, 4, 5, 2, 6, right), #_name); \
        } \
        shmem_free(h_src); \
        shmem_free(h_dst); \
    } while (0)

/* Strided transfers: dest element i*dst gets source element i*sst. */
#define STRIDED_CHECK(_type, _d, _s, _iput, _iget, _ibput, _ibget, _label) do { \
        for (int i = 0; i < NELEMS; i++) { \
            (_s)[i] = VAL(_type, me, i); \
            (_d)[i] = 0; \
        } \
        shmem_barrier_all(); \
        _iput; /* dst 3, sst 2, 6 elements */ \
        shmem_barrier_all(); \
        for (int i = 0; i < NELEMS; i++) { \
            _type want = (i % 3 == 0 && i / 3 < 6) ? VAL(_type, left, (i / 3) * 2) : (_type)0; \
            CHECK((_d)[i] == want, "%s iput element %d", _label, i); \
            (_d)[i] = 0; \
        } \
        shmem_barrier_all(); \
        _iget; /* dst 2, sst 3, 6 elements */ \
        for (int i = 0; i < NELEMS; i++) { \
            _type want = (i % 2 == 0 && i / 2 < 6) ? VAL(_type, right, (i / 2) * 3) : (_type)0; \
            CHECK((_d)[i] == want, "%s iget element %d", _label, i); \
            (_d)[i] = 0; \
        } \
        shmem_barrier_all(); \
        _ibput; /* dst 5, sst 4, blocks of 2, 6 blocks */ \
        shmem_barrier_all(); \
        for (int i = 0; i < NELEMS; i++) { \
            int blk = i / 5, off = i % 5; \
            _type want = (blk < 6 && off < 2) ? VAL(_type, left, blk * 4 + off) : (_type)0; \
            CHECK((_d)[i] == want, "%s ibput element %d", _label, i); \
            (_d)[i] = 0; \
        } \
        shmem_barrier_all(); \
        _ibget; /* dst 4, sst 5, blocks of 2, 6 blocks */ \
        for (int i = 0; i < NELEMS; i++) { \
            int blk = i / 4, off = i % 4; \
            _type want = (blk < 6 && off < 2) ? VAL(_type, right, blk * 5 + off) : (_type)0; \
            CHECK((_d)[i] == want, "%s ibget element %d", _label, i); \
        } \
        shmem_barrier_all(); \
    } while (0)

/* The sized forms (putN, getN, ...) moved through a uintN_t array. */
#define RMA_SIZED(_bits, _type) do { \
        static _type g_src[NELEMS], g_dst[NELEMS]; \
        _type *s = g_src, *d = g_dst; \
        RMA_ROUND(_type, d, s, shmem_put##_bits(d, s, NELEMS, right), \
                  shmem_get##_bits(d, s, NELEMS, right), "put/get" #_bits); \
        RMA_ROUND(_type, d, s, shmem_ctx_put##_bits(SHMEM_CTX_DEFAULT, d, s, NELEMS, right), \
                  shmem_ctx_get##_bits(SHMEM_CTX_DEFAULT, d, s, NELEMS, right), "ctx put/get" #_bits); \
        RMA_ROUND(_type, d, s, (shmem_put##_bits##_nbi(d, s, NELEMS, right), shmem_quiet()), \
                  (shmem_get##_bits##_nbi(d, s, NELEMS, right), shmem_quiet()), "nbi" #_bits); \
        RMA_ROUND(_type, d, s, \
                  (shmem_ctx_put##_bits##_nbi(SHMEM_CTX_DEFAULT, d, s, NELEMS, right), shmem_quiet()), \
                  (shmem_ctx_get##_bits##_nbi(SHMEM_CTX_DEFAULT, d, s, NELEMS, right), shmem_quiet()), \
                  "ctx nbi" #_bits); \
        RMA_ROUND(_type, d, s, shmem_iput##_bits(d, s, 1, 1, NELEMS, right), \
                  shmem_iget##_bits(d, s, 1, 1, NELEMS, right), "iput/iget" #_bits); \
        RMA_ROUND(_type, d, s, shmem_ctx_iput##_bits(SHMEM_CTX_DEFAULT, d, s, 1, 1, NELEMS, right), \
                  shmem_ctx_iget##_bits(SHMEM_CTX_DEFAULT, d, s, 1, 1, NELEMS, right), \
                  "ctx iput/iget" #_bits); \
        RMA_ROUND(_type, d, s, shmem_ibput##_bits(d, s, 1, 1, 1, NELEMS, right), \
                  shmem_ibget##_bits(d, s, 1, 1, 1, NELEMS, right), "ibput/ibget" #_bits); \
        RMA_ROUND(_type, d, s, shmem_ctx_ibput##_bits(SHMEM_CTX_DEFAULT, d, s, 1, 1, 1, NELEMS, right), \
                  shmem_ctx_ibget##_bits(SHMEM_CTX_DEFAULT, d, s, 1, 1, 1, NELEMS, right), \
                  "ctx ibput/ibget" #_bits); \
    } while (0)

#define RMA_MEM() do { \
        static unsigned char g_src[NELEMS], g_dst[NELEMS]; \
        unsigned char *s = g_src, *d = g_dst; \
        RMA_ROUND(unsigned char, d, s, shmem_putmem(d, s, NELEMS, right), \
                  shmem_getmem(d, s, NELEMS, right), "putmem/getmem"); \
        RMA_ROUND(unsigned char, d, s, shmem_ctx_putmem(SHMEM_CTX_DEFAULT, d, s, NELEMS, right), \
                  shmem_ctx_getmem(SHMEM_CTX_DEFAULT, d, s, NELEMS, right), "ctx putmem/getmem"); \
        RMA_ROUND(unsigned char, d, s, (shmem_putmem_nbi(d, s, NELEMS, right), shmem_quiet()), \
                  (shmem_getmem_nbi(d, s, NELEMS, right), shmem_quiet()), "mem nbi"); \
        RMA_ROUND(unsigned char, d, s, \
                  (shmem_ctx_putmem_nbi(SHMEM_CTX_DEFAULT, d, s, NELEMS, right), shmem_quiet()), \
                  (shmem_ctx_getmem_nbi(SHMEM_CTX_DEFAULT, d, s, NELEMS, right), shmem_quiet()), \
                  "ctx mem nbi"); \
    } while (0)

/* ------------------------------------------------------------------ AMO
 * Every PE updates counters on PE 0 (heap and global); totals are exact.
 * _ops is a statement list using the names ctr (target) and k (round). */
#define AMO_ROUNDS 5

#define AMO_COUNTER(_type, _name, _label, _ops, _expect) do { \
        static _type g_ctr; \
        _type *h_ctr = shmem_malloc(sizeof(_type)); \
        _type *targets[2] = {h_ctr, &g_ctr}; \
        for (int t = 0; t < 2; t++) { \
            _type *ctr = targets[t]; \
            *ctr = 0; \
            shmem_barrier_all(); \
            for (int k = 0; k < AMO_ROUNDS; k++) { \
                _ops; \
            } \
            shmem_barrier_all(); \
            if (me == 0) { \
                CHECK(*ctr == (_type)(_expect), "%s: counter %lld, want %lld", _label, \
                      (long long)*ctr, (long long)(_expect)); \
            } \
            shmem_barrier_all(); \
        } \
        shmem_free(h_ctr); \
    } while (0)

/* standard AMO types: inc/add and their fetching and nbi forms */
#define AMO_STD(_type, _name) do { \
        _type fetched, nbi_out; \
        (void)fetched; \
        AMO_COUNTER(_type, _name, #_name " inc/add", \
            (shmem_##_name##_atomic_inc(ctr, 0), \
             shmem_ctx_##_name##_atomic_inc(SHMEM_CTX_DEFAULT, ctr, 0), \
             shmem_##_name##_atomic_add(ctr, 2, 0), \
             shmem_ctx_##_name##_atomic_add(SHMEM_CTX_DEFAULT, ctr, 3, 0)), \
            npes * AMO_ROUNDS * 7); \
        AMO_COUNTER(_type, _name, #_name " fetch_inc/fetch_add", \
            (fetched = shmem_##_name##_atomic_fetch_inc(ctr, 0), \
             CHECK(fetched < (_type)(npes * AMO_ROUNDS * 7), "fetch_inc old value"), \
             fetched = shmem_ctx_##_name##_atomic_fetch_inc(SHMEM_CTX_DEFAULT, ctr, 0), \
             fetched = shmem_##_name##_atomic_fetch_add(ctr, 2, 0), \
             fetched = shmem_ctx_##_name##_atomic_fetch_add(SHMEM_CTX_DEFAULT, ctr, 3, 0)), \
            npes * AMO_ROUNDS * 7); \
        AMO_COUNTER(_type, _name, #_name " nbi fetch_inc/fetch_add", \
            (shmem_##_name##_atomic_fetch_inc_nbi(&nbi_out, ctr, 0), \
             shmem_ctx_##_name##_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, &nbi_out, ctr, 0), \
             shmem_##_name##_atomic_fetch_add_nbi(&nbi_out, ctr, 2, 0), \
             shmem_ctx_##_name##_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, &nbi_out, ctr, 3, 0), \
             shmem_quiet(), \
             CHECK(nbi_out < (_type)(npes * AMO_ROUNDS * 7), "fetch_add_nbi old value")), \
            npes * AMO_ROUNDS * 7); \
        AMO_CSWAP(_type, _name); \
    } while (0)

/* compare_swap: each PE claims its own slot on its right neighbour */
#define AMO_CSWAP(_type, _name) do { \
        _type *slots = shmem_calloc((size_t)npes, sizeof(_type)), old, nbi_old; \
        shmem_barrier_all(); \
        old = shmem_##_name##_atomic_compare_swap(&slots[me], 0, (_type)(me + 1), right); \
        CHECK(old == 0, #_name " compare_swap first"); \
        old = shmem_ctx_##_name##_atomic_compare_swap(SHMEM_CTX_DEFAULT, &slots[me], 0, 9, right); \
        CHECK(old == (_type)(me + 1), #_name " compare_swap must fail the second time"); \
        shmem_##_name##_atomic_compare_swap_nbi(&nbi_old, &slots[me], (_type)(me + 1), 2, right); \
        shmem_quiet(); \
        CHECK(nbi_old == (_type)(me + 1), #_name " compare_swap_nbi"); \
        shmem_ctx_##_name##_atomic_compare_swap_nbi(SHMEM_CTX_DEFAULT, &nbi_old, &slots[me], 2, 3, \
                                                    right); \
        shmem_quiet(); \
        CHECK(nbi_old == 2, #_name " ctx compare_swap_nbi"); \
        shmem_barrier_all(); \
        CHECK(slots[left] == 3, #_name " compare_swap result"); \
        shmem_free(slots); \
    } while (0)

/* extended AMO types: fetch, set, swap (+ nbi) */
#define AMO_EXT(_type, _name) do { \
        _type *cell = shmem_calloc((size_t)npes, sizeof(_type)), got, nbi_got; \
        shmem_barrier_all(); \
        shmem_##_name##_atomic_set(&cell[me], (_type)(me + 1), right); \
        shmem_barrier_all(); \
        CHECK(cell[left] == (_type)(left + 1), #_name " set"); \
        shmem_barrier_all(); /* checked before anyone swaps it */ \
        got = shmem_##_name##_atomic_fetch(&cell[me], right); \
        CHECK(got == (_type)(me + 1), #_name " fetch"); \
        got = shmem_ctx_##_name##_atomic_fetch(SHMEM_CTX_DEFAULT, &cell[me], right); \
        CHECK(got == (_type)(me + 1), #_name " ctx fetch"); \
        got = shmem_##_name##_atomic_swap(&cell[me], (_type)(me + 2), right); \
        CHECK(got == (_type)(me + 1), #_name " swap"); \
        got = shmem_ctx_##_name##_atomic_swap(SHMEM_CTX_DEFAULT, &cell[me], (_type)(me + 3), right); \
        CHECK(got == (_type)(me + 2), #_name " ctx swap"); \
        shmem_##_name##_atomic_swap_nbi(&nbi_got, &cell[me], (_type)(me + 4), right); \
        shmem_quiet(); \
        CHECK(nbi_got == (_type)(me + 3), #_name " swap_nbi"); \
        shmem_ctx_##_name##_atomic_swap_nbi(SHMEM_CTX_DEFAULT, &nbi_got, &cell[me], (_type)(me + 5), \
                                           right); \
        shmem_quiet(); \
        CHECK(nbi_got == (_type)(me + 4), #_name " ctx swap_nbi"); \
        shmem_##_name##_atomic_fetch_nbi(&nbi_got, &cell[me], right); \
        shmem_quiet(); \
        CHECK(nbi_got == (_type)(me + 5), #_name " fetch_nbi"); \
        shmem_ctx_##_name##_atomic_set(SHMEM_CTX_DEFAULT, &cell[me], (_type)(me + 6), right); \
        shmem_ctx_##_name##_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, &nbi_got, &cell[me], right); \
        shmem_quiet(); \
        CHECK(nbi_got == (_type)(me + 6), #_name " ctx set + fetch_nbi"); \
        shmem_barrier_all(); \
        shmem_free(cell); \
    } while (0)

/* bitwise AMO types: every PE owns one bit of a word on PE 0 */
#define AMO_BIT(_type, _name) do { \
        _type *word = shmem_calloc(1, sizeof(_type)), old, nbi_old; \
        _type bit = (_type)((_type)1 << (me % (int)(8 * sizeof(_type)))); \
        int bits = npes < (int)(8 * sizeof(_type)) ? npes : (int)(8 * sizeof(_type)); \
        _type all = (_type)(bits == (int)(8 * sizeof(_type)) ? ~(_type)0 \
                                                              : (((_type)1 << bits) - 1)); \
        shmem_barrier_all(); \
        shmem_##_name##_atomic_or(word, bit, 0); \
        shmem_barrier_all(); \
        CHECK(shmem_##_name##_atomic_fetch(word, 0) == all, #_name " or"); \
        shmem_barrier_all(); \
        shmem_ctx_##_name##_atomic_and(SHMEM_CTX_DEFAULT, word, (_type)~bit, 0); \
        shmem_barrier_all(); \
        CHECK(shmem_##_name##_atomic_fetch(word, 0) == 0, #_name " and"); \
        shmem_barrier_all(); \
        shmem_##_name##_atomic_xor(word, bit, 0); \
        shmem_ctx_##_name##_atomic_xor(SHMEM_CTX_DEFAULT, word, bit, 0); \
        shmem_##_name##_atomic_xor(word, bit, 0); \
        shmem_barrier_all(); \
        CHECK(shmem_##_name##_atomic_fetch(word, 0) == all, #_name " xor"); \
        shmem_barrier_all(); \
        old = shmem_##_name##_atomic_fetch_and(word, (_type)~bit, 0); \
        CHECK((old & bit) == bit, #_name " fetch_and old value"); \
        old = shmem_ctx_##_name##_atomic_fetch_or(SHMEM_CTX_DEFAULT, word, bit, 0); \
        CHECK((old & bit) == 0, #_name " ctx fetch_or old value"); \
        old = shmem_##_name##_atomic_fetch_xor(word, bit, 0); \
        CHECK((old & bit) == bit, #_name " fetch_xor old value"); \
        old = shmem_ctx_##_name##_atomic_fetch_xor(SHMEM_CTX_DEFAULT, word, bit, 0); \
        CHECK((old & bit) == 0, #_name " ctx fetch_xor old value"); \
        old = shmem_ctx_##_name##_atomic_fetch_and(SHMEM_CTX_DEFAULT, word, (_type)~bit, 0); \
        old = shmem_##_name##_atomic_fetch_or(word, bit, 0); \
        CHECK((old & bit) == 0, #_name " fetch_or after ctx fetch_and"); \
        shmem_##_name##_atomic_fetch_and_nbi(&nbi_old, word, (_type)~bit, 0); \
        shmem_quiet(); \
        CHECK((nbi_old & bit) == bit, #_name " fetch_and_nbi"); \
        shmem_##_name##_atomic_fetch_or_nbi(&nbi_old, word, bit, 0); \
        shmem_quiet(); \
        CHECK((nbi_old & bit) == 0, #_name " fetch_or_nbi"); \
        shmem_##_name##_atomic_fetch_xor_nbi(&nbi_old, word, bit, 0); \
        shmem_quiet(); \
        CHECK((nbi_old & bit) == bit, #_name " fetch_xor_nbi"); \
        shmem_ctx_##_name##_atomic_fetch_xor_nbi(SHMEM_CTX_DEFAULT, &nbi_old, word, bit, 0); \
        shmem_ctx_##_name##_atomic_fetch_and_nbi(SHMEM_CTX_DEFAULT, &nbi_old, word, (_type)~bit, 0); \
        shmem_ctx_##_name##_atomic_fetch_or_nbi(SHMEM_CTX_DEFAULT, &nbi_old, word, bit, 0); \
        shmem_quiet(); \
        CHECK((nbi_old & bit) == 0, #_name " ctx fetch_or_nbi"); \
        shmem_barrier_all(); \
        CHECK(shmem_##_name##_atomic_fetch(word, 0) == all, #_name " final bits"); \
        shmem_barrier_all(); \
        shmem_free(word); \
    } while (0)

/* the deprecated names of the add family */
#define AMO_DEP(_type, _name) do { \
        _type fetched; \
        AMO_COUNTER(_type, _name, #_name " deprecated inc/add/finc/fadd", \
            (shmem_##_name##_inc(ctr, 0), shmem_##_name##_add(ctr, 2, 0), \
             fetched = shmem_##_name##_finc(ctr, 0), \
             fetched = shmem_##_name##_fadd(ctr, 3, 0), \
             CHECK(fetched < (_type)(npes * AMO_ROUNDS * 7), "fadd old value")), \
            npes * AMO_ROUNDS * 7); \
        _type *slot = shmem_calloc((size_t)npes, sizeof(_type)); \
        shmem_barrier_all(); \
        CHECK(shmem_##_name##_cswap(&slot[me], 0, 5, right) == 0, #_name " cswap"); \
        CHECK(shmem_##_name##_cswap(&slot[me], 0, 6, right) == 5, #_name " cswap again"); \
        shmem_barrier_all(); \
        shmem_free(slot); \
    } while (0)

#define AMO_DEP_EXT(_type, _name) do { \
        _type *cell = shmem_calloc((size_t)npes, sizeof(_type)); \
        shmem_barrier_all(); \
        shmem_##_name##_set(&cell[me], (_type)(me + 1), right); \
        shmem_barrier_all(); \
        CHECK(shmem_##_name##_fetch(&cell[me], right) == (_type)(me + 1), #_name " fetch"); \
        CHECK(shmem_##_name##_swap(&cell[me], (_type)(me + 2), right) == (_type)(me + 1), \
              #_name " swap"); \
        shmem_barrier_all(); \
        CHECK(cell[left] == (_type)(left + 2), #_name " swap result"); \
        shmem_barrier_all(); \
        shmem_free(cell); \
    } while (0)

/* ------------------------------------------------------------------ signals */
#define SIGNAL_ROUND(_type, _put, _label) do { \
        static _type g_src[NELEMS], g_dst[NELEMS]; \
        static uint64_t sig; \
        _type *s = g_src, *d = g_dst; \
        for (int i = 0; i < NELEMS; i++) { \
            s[i] = VAL(_type, me, i); \
            d[i] = 0; \
        } \
        sig = 0; \
        shmem_barrier_all(); \
        _put; /* SHMEM_SIGNAL_SET to 1 */ \
        CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1) == 1, "%s set", _label); \
        for (int i = 0; i < NELEMS; i++) { \
            CHECK(d[i] == VAL(_type, left, i), "%s element %d", _label, i); \
        } \
        shmem_barrier_all(); \
    } while (0)

#define SIGNAL_TYPED(_type, _name) do { \
        SIGNAL_ROUND(_type, shmem_##_name##_put_signal(d, s, NELEMS, &sig, 1, SHMEM_SIGNAL_SET, right), \
                     #_name " put_signal"); \
        SIGNAL_ROUND(_type, shmem_ctx_##_name##_put_signal(SHMEM_CTX_DEFAULT, d, s, NELEMS, &sig, 1, \
                                                           SHMEM_SIGNAL_ADD, right), \
                     #_name " ctx put_signal"); \
        SIGNAL_ROUND(_type, shmem_##_name##_put_signal_nbi(d, s, NELEMS, &sig, 1, SHMEM_SIGNAL_ADD, \
                                                           right), \
                     #_name " put_signal_nbi"); \
        SIGNAL_ROUND(_type, shmem_ctx_##_name##_put_signal_nbi(SHMEM_CTX_DEFAULT, d, s, NELEMS, \
                                                               &sig, 1, SHMEM_SIGNAL_SET, right), \
                     #_name " ctx put_signal_nbi"); \
    } while (0)

#define SIGNAL_SIZED(_bits, _type) do { \
        SIGNAL_ROUND(_type, shmem_put##_bits##_signal(d, s, NELEMS, &sig, 1, SHMEM_SIGNAL_SET, right), \
                     "put" #_bits "_signal"); \
        SIGNAL_ROUND(_type, shmem_ctx_put##_bits##_signal(SHMEM_CTX_DEFAULT, d, s, NELEMS, &sig, 1, \
                                                          SHMEM_SIGNAL_ADD, right), \
                     "ctx put" #_bits "_signal"); \
        SIGNAL_ROUND(_type, shmem_put##_bits##_signal_nbi(d, s, NELEMS, &sig, 1, SHMEM_SIGNAL_SET, \
                                                          right), \
                     "put" #_bits "_signal_nbi"); \
        SIGNAL_ROUND(_type, shmem_ctx_put##_bits##_signal_nbi(SHMEM_CTX_DEFAULT, d, s, NELEMS, &sig, \
                                                              1, SHMEM_SIGNAL_ADD, right), \
                     "ctx put" #_bits "_signal_nbi"); \
    } while (0)

#define SIGNAL_MEM() do { \
        SIGNAL_ROUND(unsigned char, shmem_putmem_signal(d, s, NELEMS, &sig, 1, SHMEM_SIGNAL_SET, right), \
                     "putmem_signal"); \
        SIGNAL_ROUND(unsigned char, shmem_ctx_putmem_signal(SHMEM_CTX_DEFAULT, d, s, NELEMS, &sig, 1, \
                                                            SHMEM_SIGNAL_SET, right), \
                     "ctx putmem_signal"); \
        SIGNAL_ROUND(unsigned char, shmem_putmem_signal_nbi(d, s, NELEMS, &sig, 1, SHMEM_SIGNAL_ADD, \
                                                            right), \
                     "putmem_signal_nbi"); \
        SIGNAL_ROUND(unsigned char, shmem_ctx_putmem_signal_nbi(SHMEM_CTX_DEFAULT, d, s, NELEMS, &sig, \
                                                                1, SHMEM_SIGNAL_ADD, right), \
                     "ctx putmem_signal_nbi"); \
    } while (0)

/* ------------------------------------------------------------------ wait/test
 * The left neighbour sets our variable to `_set` (through `_store`); we
 * wait for `_cmp _want`.  The variable starts at 50, which satisfies none
 * of the conditions tried before it is changed. */
static const int cmp_ops[] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT,
                              SHMEM_CMP_GE, SHMEM_CMP_LT, SHMEM_CMP_LE};
/* for each operator: value written, value compared against (from 50) */
static const int cmp_set[] = {60, 61, 70, 70, 20, 20};
static const int cmp_arg[] = {60, 50, 61, 70, 21, 20};
/* before the write the condition must not hold */
static const int cmp_pre[] = {59, 50, 65, 55, 10, 10};

#define WAIT_TYPED(_type, _name, _store) do { \
        static _type ivar, ivars[4]; \
        static int status[4]; \
        size_t idx[4]; \
        for (int c = 0; c < 6; c++) { \
            ivar = 50; \
            shmem_barrier_all(); \
            CHECK(shmem_##_name##_test(&ivar, cmp_ops[c], (_type)cmp_pre[c]) == 0, \
                  #_name " test before (cmp %d)", c); \
            shmem_barrier_all(); \
            _store(&ivar, (_type)cmp_set[c], right); \
            shmem_##_name##_wait_until(&ivar, cmp_ops[c], (_type)cmp_arg[c]); \
            CHECK(shmem_##_name##_test(&ivar, cmp_ops[c], (_type)cmp_arg[c]) == 1, \
                  #_name " test after (cmp %d)", c); \
            shmem_barrier_all(); \
        } \
        /* sets: the left neighbour fills entries 1 and 3 */ \
        for (int i = 0; i < 4; i++) { \
            ivars[i] = 0; \
            status[i] = 0; \
        } \
        shmem_barrier_all(); \
        CHECK(shmem_##_name##_test_any(ivars, 4, NULL, SHMEM_CMP_EQ, 7) == SIZE_MAX, #_name " test_any none"); \
        CHECK(shmem_##_name##_test_all(ivars, 4, NULL, SHMEM_CMP_EQ, 0) == 1, #_name " test_all"); \
        CHECK(shmem_##_name##_test_some(ivars, 4, idx, NULL, SHMEM_CMP_EQ, 7) == 0, #_name " test_some none"); \
        shmem_barrier_all(); \
        _store(&ivars[1], (_type)7, right); \
        _store(&ivars[3], (_type)7, right); \
        size_t any = shmem_##_name##_wait_until_any(ivars, 4, NULL, SHMEM_CMP_EQ, 7); \
        CHECK(any == 1 || any == 3, #_name " wait_until_any gave %zu", any); \
        status[1] = 1; \
        CHECK(shmem_##_name##_wait_until_any(ivars, 4, status, SHMEM_CMP_EQ, 7) == 3, \
              #_name " wait_until_any with status"); \
        status[1] = 0; \
        size_t n = shmem_##_name##_wait_until_some(ivars, 4, idx, NULL, SHMEM_CMP_EQ, 7); \
        while (n < 2) n += shmem_##_name##_wait_until_some(ivars, 4, idx + n, NULL, SHMEM_CMP_EQ, 7); \
        CHECK(n == 2 && idx[0] + idx[1] == 4, #_name " wait_until_some"); \
        status[0] = status[2] = 1; \
        shmem_##_name##_wait_until_all(ivars, 4, status, SHMEM_CMP_EQ, 7); \
        CHECK(shmem_##_name##_test_all(ivars, 4, status, SHMEM_CMP_EQ, 7) == 1, #_name " test_all status"); \
        CHECK(shmem_##_name##_test_all(ivars, 4, NULL, SHMEM_CMP_EQ, 7) == 0, #_name " test_all no status"); \
        CHECK(shmem_##_name##_test_some(ivars, 4, idx, NULL, SHMEM_CMP_EQ, 7) == 2, #_name " test_some"); \
        size_t t_any = shmem_##_name##_test_any(ivars, 4, NULL, SHMEM_CMP_EQ, 7); \
        CHECK(t_any == 1 || t_any == 3, #_name " test_any"); \
        { \
            _type want[4] = {0, 7, 0, 7}, other[4] = {1, 1, 1, 7}; \
            shmem_##_name##_wait_until_all_vector(ivars, 4, NULL, SHMEM_CMP_EQ, want); \
            CHECK(shmem_##_name##_test_all_vector(ivars, 4, NULL, SHMEM_CMP_EQ, want) == 1, \
                  #_name " test_all_vector"); \
            CHECK(shmem_##_name##_wait_until_any_vector(ivars, 4, NULL, SHMEM_CMP_EQ, other) == 3, \
                  #_name " wait_until_any_vector"); \
            CHECK(shmem_##_name##_test_any_vector(ivars, 4, NULL, SHMEM_CMP_EQ, other) == 3, \
                  #_name " test_any_vector"); \
            CHECK(shmem_##_name##_wait_until_some_vector(ivars, 4, idx, NULL, SHMEM_CMP_EQ, other) == 1 && \
                  idx[0] == 3, #_name " wait_until_some_vector"); \
            CHECK(shmem_##_name##_test_some_vector(ivars, 4, idx, NULL, SHMEM_CMP_NE, other) == 3, \
                  #_name " test_some_vector"); \
        } \
        /* empty sets (1.6 erratum) */ \
        for (int i = 0; i < 4; i++) status[i] = 1; \
        CHECK(shmem_##_name##_test_all(ivars, 4, status, SHMEM_CMP_EQ, 99) == 1, #_name " empty test_all"); \
        CHECK(shmem_##_name##_test_any(ivars, 4, status, SHMEM_CMP_EQ, 7) == SIZE_MAX, #_name " empty test_any"); \
        CHECK(shmem_##_name##_wait_until_any(ivars, 4, status, SHMEM_CMP_EQ, 7) == SIZE_MAX, \
              #_name " empty wait_until_any"); \
        CHECK(shmem_##_name##_wait_until_some(ivars, 0, idx, NULL, SHMEM_CMP_EQ, 7) == 0, \
              #_name " empty wait_until_some"); \
        shmem_barrier_all(); \
    } while (0)

/* the deprecated shmem_<T>_wait: until the value differs */
#define WAIT_DEP(_type, _name, _store) do { \
        static _type ivar; \
        ivar = 50; \
        shmem_barrier_all(); \
        _store(&ivar, (_type)51, right); \
        shmem_##_name##_wait(&ivar, (_type)50); \
        CHECK(ivar == 51, #_name " wait"); \
        shmem_barrier_all(); \
    } while (0)

/* ------------------------------------------------------------------ request handles
 * Every `_req` routine (shmemx.h): the same rounds as above, each operation
 * joined to a handle that a wait or a test loop completes.  Run with
 * SHIMMER_REMOTE_PES the handle carries transport operations; on this node
 * it stays NULL. */
#define REQ_WAIT(_call) ((_call), shmemx_req_wait(&r))
#define REQ_TEST(_call) do { \
        (_call); \
        while (!shmemx_req_test(&r)) { \
        } \
        CHECK(r == SHMEMX_REQ_NULL, "a handle tested to 1 is NULL"); \
    } while (0)

#define REQ_RMA_TYPED(_type, _name) do { \
        static _type g_src[NELEMS], g_dst[NELEMS]; \
        _type *s = g_src, *d = g_dst; \
        shmemx_req_t r = SHMEMX_REQ_NULL; \
        RMA_ROUND(_type, d, s, REQ_WAIT(shmemx_##_name##_put_req(d, s, NELEMS, right, &r)), \
                  REQ_WAIT(shmemx_##_name##_get_req(d, s, NELEMS, right, &r)), #_name " put/get_req"); \
        RMA_ROUND(_type, d, s, \
                  REQ_TEST(shmemx_ctx_##_name##_put_req(SHMEM_CTX_DEFAULT, d, s, NELEMS, right, &r)), \
                  REQ_TEST(shmemx_ctx_##_name##_get_req(SHMEM_CTX_DEFAULT, d, s, NELEMS, right, &r)), \
                  #_name " ctx put/get_req"); \
        RMA_ROUND(_type, d, s, REQ_WAIT(shmemx_##_name##_iput_req(d, s, 1, 1, NELEMS, right, &r)), \
                  REQ_WAIT(shmemx_##_name##_iget_req(d, s, 1, 1, NELEMS, right, &r)), \
                  #_name " iput/iget_req"); \
        RMA_ROUND(_type, d, s, \
                  REQ_WAIT(shmemx_ctx_##_name##_iput_req(SHMEM_CTX_DEFAULT, d, s, 1, 1, NELEMS, right, &r)), \
                  REQ_WAIT(shmemx_ctx_##_name##_iget_req(SHMEM_CTX_DEFAULT, d, s, 1, 1, NELEMS, right, &r)), \
                  #_name " ctx iput/iget_req"); \
        SIGNAL_ROUND(_type, REQ_WAIT(shmemx_##_name##_put_signal_req(d, s, NELEMS, &sig, 1, \
                                                                      SHMEM_SIGNAL_SET, right, &r)), \
                     #_name " put_signal_req"); \
        SIGNAL_ROUND(_type, REQ_WAIT(shmemx_ctx_##_name##_put_signal_req(SHMEM_CTX_DEFAULT, d, s, NELEMS, \
                                                                          &sig, 1, SHMEM_SIGNAL_ADD, \
                                                                          right, &r)), \
                     #_name " ctx put_signal_req"); \
    } while (0)

#define REQ_RMA_SIZED(_bits, _type) do { \
        static _type g_src[NELEMS], g_dst[NELEMS]; \
        _type *s = g_src, *d = g_dst; \
        shmemx_req_t r = SHMEMX_REQ_NULL; \
        RMA_ROUND(_type, d, s, REQ_WAIT(shmemx_put##_bits##_req(d, s, NELEMS, right, &r)), \
                  REQ_WAIT(shmemx_get##_bits##_req(d, s, NELEMS, right, &r)), "put/get" #_bits "_req"); \
        RMA_ROUND(_type, d, s, \
                  REQ_TEST(shmemx_ctx_put##_bits##_req(SHMEM_CTX_DEFAULT, d, s, NELEMS, right, &r)), \
                  REQ_TEST(shmemx_ctx_get##_bits##_req(SHMEM_CTX_DEFAULT, d, s, NELEMS, right, &r)), \
                  "ctx put/get" #_bits "_req"); \
        RMA_ROUND(_type, d, s, REQ_WAIT(shmemx_iput##_bits##_req(d, s, 1, 1, NELEMS, right, &r)), \
                  REQ_WAIT(shmemx_iget##_bits##_req(d, s, 1, 1, NELEMS, right, &r)), \
                  "iput/iget" #_bits "_req"); \
        RMA_ROUND(_type, d, s, \
                  REQ_WAIT(shmemx_ctx_iput##_bits##_req(SHMEM_CTX_DEFAULT, d, s, 1, 1, NELEMS, right, &r)), \
                  REQ_WAIT(shmemx_ctx_iget##_bits##_req(SHMEM_CTX_DEFAULT, d, s, 1, 1, NELEMS, right, &r)), \
                  "ctx iput/iget" #_bits "_req"); \
        SIGNAL_ROUND(_type, REQ_WAIT(shmemx_put##_bits##_signal_req(d, s, NELEMS, &sig, 1, \
                                                                     SHMEM_SIGNAL_SET, right, &r)), \
                     "put" #_bits "_signal_req"); \
        SIGNAL_ROUND(_type, REQ_WAIT(shmemx_ctx_put##_bits##_signal_req(SHMEM_CTX_DEFAULT, d, s, NELEMS, \
                                                                         &sig, 1, SHMEM_SIGNAL_SET, \
                                                                         right, &r)), \
                     "ctx put" #_bits "_signal_req"); \
    } while (0)

#define REQ_RMA_MEM() do { \
        static unsigned char g_src[NELEMS], g_dst[NELEMS]; \
        unsigned char *s = g_src, *d = g_dst; \
        shmemx_req_t r = SHMEMX_REQ_NULL; \
        RMA_ROUND(unsigned char, d, s, REQ_WAIT(shmemx_putmem_req(d, s, NELEMS, right, &r)), \
                  REQ_WAIT(shmemx_getmem_req(d, s, NELEMS, right, &r)), "putmem/getmem_req"); \
        RMA_ROUND(unsigned char, d, s, \
                  REQ_TEST(shmemx_ctx_putmem_req(SHMEM_CTX_DEFAULT, d, s, NELEMS, right, &r)), \
                  REQ_TEST(shmemx_ctx_getmem_req(SHMEM_CTX_DEFAULT, d, s, NELEMS, right, &r)), \
                  "ctx putmem/getmem_req"); \
        SIGNAL_ROUND(unsigned char, REQ_WAIT(shmemx_putmem_signal_req(d, s, NELEMS, &sig, 1, \
                                                                       SHMEM_SIGNAL_SET, right, &r)), \
                     "putmem_signal_req"); \
        SIGNAL_ROUND(unsigned char, REQ_WAIT(shmemx_ctx_putmem_signal_req(SHMEM_CTX_DEFAULT, d, s, \
                                                                           NELEMS, &sig, 1, \
                                                                           SHMEM_SIGNAL_SET, right, &r)), \
                     "ctx putmem_signal_req"); \
    } while (0)

/* every PE's operations of a round share one handle: one wait completes them */
#define REQ_AMO_STD(_type, _name) do { \
        _type f1 = 0, f2 = 0; \
        shmemx_req_t r = SHMEMX_REQ_NULL; \
        AMO_COUNTER(_type, _name, #_name " inc/add/fetch_inc/fetch_add_req", \
            (shmemx_##_name##_atomic_inc_req(ctr, 0, &r), \
             shmemx_ctx_##_name##_atomic_inc_req(SHMEM_CTX_DEFAULT, ctr, 0, &r), \
             shmemx_##_name##_atomic_add_req(ctr, 2, 0, &r), \
             shmemx_ctx_##_name##_atomic_add_req(SHMEM_CTX_DEFAULT, ctr, 3, 0, &r), \
             shmemx_##_name##_atomic_fetch_inc_req(&f1, ctr, 0, &r), \
             shmemx_ctx_##_name##_atomic_fetch_add_req(SHMEM_CTX_DEFAULT, &f2, ctr, 2, 0, &r), \
             shmemx_ctx_##_name##_atomic_fetch_inc_req(SHMEM_CTX_DEFAULT, &f1, ctr, 0, &r), \
             shmemx_##_name##_atomic_fetch_add_req(&f2, ctr, 3, 0, &r), \
             shmemx_req_wait(&r), \
             CHECK(f1 < (_type)(npes * AMO_ROUNDS * 14) && f2 < (_type)(npes * AMO_ROUNDS * 14), \
                   "fetch_inc/fetch_add_req old values")), \
            npes * AMO_ROUNDS * 14); \
        _type *cell = shmem_calloc((size_t)npes, sizeof(_type)); \
        shmem_barrier_all(); \
        shmemx_##_name##_atomic_compare_swap_req(&f1, &cell[me], 0, (_type)(me + 1), right, &r); \
        shmemx_req_wait(&r); \
        CHECK(f1 == 0, #_name " compare_swap_req old value"); \
        shmemx_ctx_##_name##_atomic_compare_swap_req(SHMEM_CTX_DEFAULT, &f2, &cell[me], 0, 9, right, &r); \
        REQ_TEST((void)0); \
        CHECK(f2 == (_type)(me + 1), #_name " ctx compare_swap_req (no swap) old value"); \
        shmem_barrier_all(); \
        CHECK(cell[left] == (_type)(left + 1), #_name " compare_swap_req result"); \
        shmem_barrier_all(); \
        shmem_free(cell); \
    } while (0)

#define REQ_AMO_EXT(_type, _name) do { \
        _type *cell = shmem_calloc((size_t)npes, sizeof(_type)), got = 0, got2 = 0; \
        shmemx_req_t r = SHMEMX_REQ_NULL; \
        shmem_barrier_all(); \
        shmemx_##_name##_atomic_set_req(&cell[me], (_type)(me + 1), right, &r); \
        shmemx_req_wait(&r); \
        shmem_barrier_all(); \
        CHECK(cell[left] == (_type)(left + 1), #_name " set_req"); \
        shmem_barrier_all(); \
        shmemx_ctx_##_name##_atomic_set_req(SHMEM_CTX_DEFAULT, &cell[me], (_type)(me + 2), right, &r); \
        shmemx_req_wait(&r); \
        shmemx_##_name##_atomic_fetch_req(&got, &cell[me], right, &r); \
        shmemx_req_wait(&r); \
        CHECK(got == (_type)(me + 2), #_name " fetch_req"); \
        shmemx_ctx_##_name##_atomic_fetch_req(SHMEM_CTX_DEFAULT, &got, &cell[me], right, &r); \
        shmemx_req_wait(&r); /* a handle orders nothing: complete the fetch first */ \
        shmemx_##_name##_atomic_swap_req(&got2, &cell[me], (_type)(me + 3), right, &r); \
        shmemx_req_wait(&r); \
        CHECK(got == (_type)(me + 2) && got2 == (_type)(me + 2), #_name " ctx fetch_req, swap_req"); \
        shmemx_ctx_##_name##_atomic_swap_req(SHMEM_CTX_DEFAULT, &got, &cell[me], (_type)(me + 4), right, &r); \
        REQ_TEST((void)0); \
        CHECK(got == (_type)(me + 3), #_name " ctx swap_req"); \
        shmem_barrier_all(); \
        CHECK(cell[left] == (_type)(left + 4), #_name " swap_req result"); \
        shmem_barrier_all(); \
        shmem_free(cell); \
    } while (0)

#define REQ_AMO_BIT(_type, _name) do { \
        _type *word = shmem_calloc(1, sizeof(_type)), old = 0; \
        _type bit = (_type)((_type)1 << (me % (int)(8 * sizeof(_type)))); \
        int bits = npes < (int)(8 * sizeof(_type)) ? npes : (int)(8 * sizeof(_type)); \
        _type all = (_type)(bits == (int)(8 * sizeof(_type)) ? ~(_type)0 \
                                                              : (((_type)1 << bits) - 1)); \
        shmemx_req_t r = SHMEMX_REQ_NULL; \
        shmem_barrier_all(); \
        shmemx_##_name##_atomic_or_req(word, bit, 0, &r); \
        shmemx_req_wait(&r); \
        shmem_barrier_all(); \
        CHECK(shmem_##_name##_atomic_fetch(word, 0) == all, #_name " or_req"); \
        shmem_barrier_all(); \
        shmemx_ctx_##_name##_atomic_and_req(SHMEM_CTX_DEFAULT, word, (_type)~bit, 0, &r); \
        shmemx_req_wait(&r); \
        shmem_barrier_all(); \
        CHECK(shmem_##_name##_atomic_fetch(word, 0) == 0, #_name " and_req"); \
        shmem_barrier_all(); \
        shmemx_##_name##_atomic_xor_req(word, bit, 0, &r); \
        shmemx_ctx_##_name##_atomic_xor_req(SHMEM_CTX_DEFAULT, word, bit, 0, &r); \
        shmemx_##_name##_atomic_xor_req(word, bit, 0, &r); \
        shmemx_req_wait(&r); \
        shmem_barrier_all(); \
        CHECK(shmem_##_name##_atomic_fetch(word, 0) == all, #_name " xor_req"); \
        shmem_barrier_all(); \
        shmemx_##_name##_atomic_fetch_and_req(&old, word, (_type)~bit, 0, &r); \
        shmemx_req_wait(&r); \
        CHECK((old & bit) == bit, #_name " fetch_and_req old value"); \
        shmem_barrier_all(); \
        shmemx_ctx_##_name##_atomic_fetch_or_req(SHMEM_CTX_DEFAULT, &old, word, bit, 0, &r); \
        shmemx_req_wait(&r); \
        CHECK((old & bit) == 0, #_name " fetch_or_req old value"); \
        shmem_barrier_all(); \
        shmemx_##_name##_atomic_fetch_xor_req(&old, word, bit, 0, &r); \
        shmemx_ctx_##_name##_atomic_fetch_xor_req(SHMEM_CTX_DEFAULT, &old, word, bit, 0, &r); \
        shmemx_ctx_##_name##_atomic_fetch_or_req(SHMEM_CTX_DEFAULT, &old, word, 0, 0, &r); \
        shmemx_##_name##_atomic_fetch_and_req(&old, word, (_type)~(_type)0, 0, &r); \
        shmemx_req_wait(&r); \
        shmem_barrier_all(); \
        CHECK(shmem_##_name##_atomic_fetch(word, 0) == all, #_name " fetch_xor_req"); \
        shmem_barrier_all(); \
        shmem_free(word); \
    } while (0)

/* Every team reduction on a handle, over WORLD, not in place and in place:
 * called without a split mark it is complete on return and leaves the
 * handle NULL.  Values stay exact in every type at up to 16 PEs (sums and
 * products small, bit patterns below 64).  Split between threads:
 * tests/func/req/req_coll.c. */
#define RED_VAL_BIT(_type, _pe, _i) \
    ((_type)((((_pe) * 5 + (_i) * 3) & 0x1f) | (1 << (((_pe) + (_i)) % 6))))
#define RED_VAL_SUM(_type, _pe, _i) ((_type)(((_pe) + (_i)) % 3))
#define RED_VAL_PROD(_type, _pe, _i) ((_type)((_pe) < 3 && ((_pe) + (_i)) % 2 == 0 ? 2 : 1))
#define RED_AND(_a, _b) ((_a) & (_b))
#define RED_OR(_a, _b) ((_a) | (_b))
#define RED_XOR(_a, _b) ((_a) ^ (_b))
#define RED_MAX(_a, _b) ((_b) > (_a) ? (_b) : (_a))
#define RED_MIN(_a, _b) ((_b) < (_a) ? (_b) : (_a))
#define RED_SUM(_a, _b) ((_a) + (_b))
#define RED_PROD(_a, _b) ((_a) * (_b))

#define REQ_RED(_type, _name, _op, _VAL, _OP) do { \
        static _type rs[NELEMS], rd[NELEMS]; \
        shmemx_req_t r = SHMEMX_REQ_NULL; \
        for (int ip = 0; ip < 2; ip++) { \
            _type *d = ip ? rs : rd; \
            for (int i = 0; i < NELEMS; i++) { \
                rs[i] = _VAL(_type, me, i); \
            } \
            CHECK(shmemx_##_name##_##_op##_reduce_req(SHMEM_TEAM_WORLD, d, rs, NELEMS, &r) == 0, \
                  #_name "_" #_op "_reduce_req returns 0"); \
            CHECK(r == SHMEMX_REQ_NULL, #_name "_" #_op "_reduce_req leaves the handle NULL"); \
            for (int i = 0; i < NELEMS; i++) { \
                _type want = _VAL(_type, 0, i); \
                for (int p = 1; p < npes; p++) { \
                    want = (_type)_OP(want, _VAL(_type, p, i)); \
                } \
                CHECK(d[i] == want, #_name "_" #_op "_reduce_req%s element %d", \
                      ip ? " (in place)" : "", i); \
            } \
            shmem_barrier_all(); \
        } \
    } while (0)

#define REQ_RED_BIT(_type, _name) do { \
        REQ_RED(_type, _name, and, RED_VAL_BIT, RED_AND); \
        REQ_RED(_type, _name, or, RED_VAL_BIT, RED_OR); \
        REQ_RED(_type, _name, xor, RED_VAL_BIT, RED_XOR); \
    } while (0)

#define REQ_RED_MINMAX(_type, _name) do { \
        REQ_RED(_type, _name, max, VAL, RED_MAX); \
        REQ_RED(_type, _name, min, VAL, RED_MIN); \
    } while (0)

#define REQ_RED_SUM(_type, _name) do { \
        REQ_RED(_type, _name, sum, RED_VAL_SUM, RED_SUM); \
        REQ_RED(_type, _name, prod, RED_VAL_PROD, RED_PROD); \
    } while (0)

#endif
