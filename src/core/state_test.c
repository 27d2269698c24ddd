/*
 * state_test.c -- unit test of shr_user_ptr (core/state.h), the always-on
 * test of a program's address range on every put: the PE against the job,
 * then [addr, addr+len) inside the user part of the heap or of the data
 * segment.  Both segments' ends at len 0, 1 and the whole part, addresses
 * just before each segment whose length carries past UINTPTR_MAX back into
 * it, lengths near SIZE_MAX, the internal heap, an unmapped PE; and, for
 * every address near a bound and every length above 0, the same answer as
 * shr_user_seg, the test the cold path reports by (core/check.c).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/state.h"
#include "util/expect.h"

#define HEAP_USER 4096u
#define HEAP_SIZE (HEAP_USER + 1024u) /* the internal heap follows the user part */
#define DATA_SIZE 512u
#define N_PES 3                       /* PE 2: not mapped here (another node) */

static char heap_mem[2][HEAP_SIZE];
static char data_mem[2][DATA_SIZE];
static char *heap_peers[N_PES] = {heap_mem[0], heap_mem[1], NULL};
static char *data_peers[N_PES] = {data_mem[0], data_mem[1], NULL};

static void set_up(void)
{
    shr_g.n_pes = N_PES;
    shr_g.my_pe = 0;
    shr_g.seg[SHR_SEG_HEAP] = (shr_seg_t){(uintptr_t)heap_mem[0], HEAP_SIZE, HEAP_USER, heap_peers};
    shr_g.seg[SHR_SEG_DATA] = (shr_seg_t){(uintptr_t)data_mem[0], DATA_SIZE, DATA_SIZE, data_peers};
}

/* PE 1's copy of `addr`, which lies `off` bytes into segment s. */
static void *at(int s, uintptr_t off)
{
    return (s == SHR_SEG_HEAP ? heap_mem[1] : data_mem[1]) + off;
}

static void check_ends(int s)
{
    const void *base = (const void *)shr_g.seg[s].base;
    const char *b = base;
    size_t user = shr_g.seg[s].user_size;
    uintptr_t a = shr_g.seg[s].base;

    EXPECT(shr_user_ptr(base, 0, 1) == at(s, 0));
    EXPECT(shr_user_ptr(base, 1, 1) == at(s, 0));
    EXPECT(shr_user_ptr(base, user, 1) == at(s, 0));
    EXPECT(shr_user_ptr(base, user + 1, 1) == NULL);
    EXPECT(shr_user_ptr(b + user - 8, 8, 1) == at(s, user - 8));
    EXPECT(shr_user_ptr(b + user - 8, 9, 1) == NULL);
    EXPECT(shr_user_ptr(b + user, 0, 1) == at(s, user));   /* ends at the end: stores nothing */
    EXPECT(shr_user_ptr(b + user, 1, 1) == NULL);
    EXPECT(shr_user_ptr((const void *)(a + user + 1), 0, 1) == NULL);
    /* before the segment: the offset wraps; an add without its carry
     * would end inside the user part */
    EXPECT(shr_user_ptr((const void *)(a - 1), 1, 1) == NULL);
    EXPECT(shr_user_ptr((const void *)(a - 16), 32, 1) == NULL);
    EXPECT(shr_user_ptr((const void *)(a - 16), 16, 1) == NULL);
    /* lengths whose end carries past UINTPTR_MAX */
    EXPECT(shr_user_ptr(b + 8, SIZE_MAX, 1) == NULL);
    EXPECT(shr_user_ptr(b + 8, SIZE_MAX - 7, 1) == NULL);
    EXPECT(shr_user_ptr(b + 8, SIZE_MAX - 8, 1) == NULL);
    /* the PE: of the job, and mapped here */
    EXPECT(shr_user_ptr(base, 8, 0) == (s == SHR_SEG_HEAP ? heap_mem[0] : data_mem[0]));
    EXPECT(shr_user_ptr(base, 8, 2) == NULL);
    EXPECT(shr_user_ptr(base, 8, N_PES) == NULL);
    EXPECT(shr_user_ptr(base, 8, -1) == NULL);
}

/* shr_user_ptr against shr_user_seg for len > 0, and for len 0 the user
 * part with its end; near every bound of both segments and at the top. */
static void check_against_cold(void)
{
    static const size_t lens[] = {0, 1, 7, 8, 9, 64, DATA_SIZE - 1, DATA_SIZE, DATA_SIZE + 1,
                                  HEAP_USER - 1, HEAP_USER, HEAP_USER + 1, HEAP_SIZE,
                                  SIZE_MAX / 2, SIZE_MAX - 1, SIZE_MAX};
    uintptr_t bounds[] = {shr_g.seg[SHR_SEG_HEAP].base,
                          shr_g.seg[SHR_SEG_HEAP].base + HEAP_USER,
                          shr_g.seg[SHR_SEG_HEAP].base + HEAP_SIZE,
                          shr_g.seg[SHR_SEG_DATA].base,
                          shr_g.seg[SHR_SEG_DATA].base + DATA_SIZE,
                          0, UINTPTR_MAX - 64};
    unsigned checked = 0;

    for (size_t i = 0; i < SHR_ARRAY_SIZE(bounds); i++) {
        for (uintptr_t a = bounds[i] - 64; a != bounds[i] + 65; a++) {
            for (size_t l = 0; l < SHR_ARRAY_SIZE(lens); l++) {
                size_t len = lens[l];
                void *p = shr_user_ptr((const void *)a, len, 1);
                uint64_t off = 0;
                int s = shr_user_seg((const void *)a, len, &off);
                bool want;

                if (len == 0) {
                    s = -1;
                    for (int k = 0; k < SHR_SEG_COUNT && s < 0; k++) { /* heap first */
                        if (a - shr_g.seg[k].base <= shr_g.seg[k].user_size) {
                            s = k;
                            off = a - shr_g.seg[k].base;
                        }
                    }
                }
                want = s >= 0;
                if ((p != NULL) != want || (want && p != at(s, (uintptr_t)off))) {
                    fprintf(stderr, "addr %#jx (bound %zu %+jd) len %zu: %p, want %s\n",
                            (uintmax_t)a, i, (intmax_t)(a - bounds[i]), len, p,
                            want ? "its copy" : "NULL");
                    EXPECT(false);
                    return;
                }
                checked++;
            }
        }
    }
    EXPECT(checked == SHR_ARRAY_SIZE(bounds) * 129 * SHR_ARRAY_SIZE(lens));
}

int main(void)
{
    set_up();
    check_ends(SHR_SEG_HEAP);
    check_ends(SHR_SEG_DATA);
    check_against_cold();
    /* no data segment (SHIMMER_DATA_SEGMENT=0): only the heap */
    shr_g.seg[SHR_SEG_DATA] = (shr_seg_t){0, 0, 0, data_peers};
    data_peers[0] = data_peers[1] = NULL;
    EXPECT(shr_user_ptr(NULL, 0, 1) == NULL);
    EXPECT(shr_user_ptr(NULL, 8, 1) == NULL);
    EXPECT(shr_user_ptr(heap_mem[0], 8, 1) == heap_mem[1]);
    if (failures == 0) {
        printf("PASS state\n");
    }
    return failures != 0;
}
