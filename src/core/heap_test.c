/*
 * heap_test.c -- unit test of the symmetric heap allocator: bounds,
 * alignment, no overlap, coalescing, in-place resize, exhaustion and,
 * above all, determinism (two heaps fed the same calls give the same
 * offsets -- what makes the heap symmetric).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/heap.h"

#define HEAP_SIZE (64u << 20)
#define SLOTS 512

static int failures;

#define EXPECT(_cond, ...) do { \
        if (!(_cond)) { \
            fprintf(stderr, "FAIL line %d: %s: ", __LINE__, #_cond); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
            failures++; \
        } \
    } while (0)

typedef struct {
    size_t offset, size;
    int live;
} slot_t;

static void check_no_overlap(const slot_t *slots)
{
    for (int i = 0; i < SLOTS; i++) {
        if (!slots[i].live) {
            continue;
        }
        EXPECT(slots[i].offset + slots[i].size <= HEAP_SIZE, "slot %d out of bounds", i);
        for (int j = i + 1; j < SLOTS; j++) {
            if (slots[j].live) {
                EXPECT(slots[i].offset + slots[i].size <= slots[j].offset ||
                       slots[j].offset + slots[j].size <= slots[i].offset,
                       "slots %d and %d overlap", i, j);
            }
        }
    }
}

static void test_random_against_twin(void)
{
    shr_heap_t a, b;
    slot_t slots[SLOTS] = {{0}};
    unsigned seed = 12345;

    EXPECT(shr_heap_init(&a, HEAP_SIZE) == SHR_OK, "init");
    EXPECT(shr_heap_init(&b, HEAP_SIZE) == SHR_OK, "init twin");
    for (int step = 0; step < 20000; step++) {
        int i = (int)(rand_r(&seed) % SLOTS);
        unsigned op = rand_r(&seed) % 4;
        if (!slots[i].live) {
            size_t size = 1 + rand_r(&seed) % (op == 0 ? 1000000 : 5000);
            size_t align = (size_t)1 << (rand_r(&seed) % 14);
            size_t oa, ob;
            shr_status_t sa = shr_heap_alloc(&a, size, align, &oa);
            shr_status_t sb = shr_heap_alloc(&b, size, align, &ob);
            EXPECT(sa == sb && (sa != SHR_OK || oa == ob), "twins disagree at step %d", step);
            if (sa == SHR_OK) {
                EXPECT(oa % (align < SHR_HEAP_MIN_ALIGN ? SHR_HEAP_MIN_ALIGN : align) == 0,
                       "offset %zu not aligned to %zu", oa, align);
                EXPECT(shr_heap_block_size(&a, oa) >= size, "block too small");
                slots[i] = (slot_t){oa, size, 1};
            }
        } else if (op == 3) {
            size_t size = 1 + rand_r(&seed) % 20000;
            shr_status_t sa = shr_heap_resize(&a, slots[i].offset, size);
            shr_status_t sb = shr_heap_resize(&b, slots[i].offset, size);
            EXPECT(sa == sb, "twins disagree on resize at step %d", step);
            if (sa == SHR_OK) {
                slots[i].size = size;
                EXPECT(shr_heap_block_size(&a, slots[i].offset) >= size, "resize too small");
            }
        } else {
            EXPECT(shr_heap_free(&a, slots[i].offset) == SHR_OK, "free");
            EXPECT(shr_heap_free(&b, slots[i].offset) == SHR_OK, "free twin");
            slots[i].live = 0;
        }
        if (step % 1000 == 0) {
            check_no_overlap(slots);
        }
    }
    check_no_overlap(slots);
    for (int i = 0; i < SLOTS; i++) {
        if (slots[i].live) {
            shr_heap_free(&a, slots[i].offset);
            shr_heap_free(&b, slots[i].offset);
        }
    }
    /* everything coalesced back into one block */
    EXPECT(a.in_use == 0 && a.n_allocated == 0, "leak: %zu bytes in use", a.in_use);
    EXPECT(shr_heap_largest_free(&a) == HEAP_SIZE, "not coalesced: largest %zu",
           shr_heap_largest_free(&a));
    shr_heap_fini(&a);
    shr_heap_fini(&b);
}

static void test_edges(void)
{
    shr_heap_t h;
    size_t off, off2;

    EXPECT(shr_heap_init(&h, 1u << 20) == SHR_OK, "init");
    EXPECT(shr_heap_alloc(&h, 0, 64, &off) == SHR_ERR_NO_MEMORY, "size 0");
    EXPECT(shr_heap_alloc(&h, (1u << 20) + 1, 64, &off) == SHR_ERR_NO_MEMORY, "too big");
    EXPECT(shr_heap_alloc(&h, 1u << 20, 64, &off) == SHR_OK && off == 0, "whole heap");
    EXPECT(shr_heap_alloc(&h, 1, 64, &off2) == SHR_ERR_NO_MEMORY, "exhausted");
    EXPECT(shr_heap_free(&h, off) == SHR_OK, "free whole");
    EXPECT(shr_heap_free(&h, off) == SHR_ERR_INVALID, "double free");
    EXPECT(shr_heap_free(&h, 12345) == SHR_ERR_INVALID, "bogus free");
    /* in-place growth into the free successor, shrink gives space back */
    EXPECT(shr_heap_alloc(&h, 1000, 64, &off) == SHR_OK, "alloc");
    EXPECT(shr_heap_resize(&h, off, 100000) == SHR_OK, "grow in place");
    EXPECT(shr_heap_alloc(&h, 1000, 64, &off2) == SHR_OK && off2 >= off + 100000, "after grown");
    EXPECT(shr_heap_resize(&h, off, 200000) == SHR_ERR_NO_MEMORY, "cannot grow past neighbour");
    EXPECT(shr_heap_block_size(&h, off) >= 100000, "failed resize keeps the block");
    EXPECT(shr_heap_resize(&h, off, 64) == SHR_OK, "shrink");
    EXPECT(shr_heap_largest_free(&h) >= (1u << 20) - 100000 - 2048, "shrink frees space");
    /* large alignment leaves the head free for later use */
    EXPECT(shr_heap_alloc(&h, 64, 1u << 16, &off) == SHR_OK && off % (1u << 16) == 0, "align 64k");
    shr_heap_fini(&h);
}

static void test_many_teams_pattern(void)
{
    /* thousands of create/destroy cycles must not leak */
    shr_heap_t h;
    size_t off;

    EXPECT(shr_heap_init(&h, 1u << 20) == SHR_OK, "init");
    for (int i = 0; i < 100000; i++) {
        EXPECT(shr_heap_alloc(&h, 4096, 64, &off) == SHR_OK, "cycle %d", i);
        EXPECT(shr_heap_free(&h, off) == SHR_OK, "cycle free %d", i);
        if (failures) {
            break;
        }
    }
    EXPECT(h.in_use == 0, "leak after cycles");
    shr_heap_fini(&h);
}

int main(void)
{
    test_edges();
    test_random_against_twin();
    test_many_teams_pattern();
    if (failures == 0) {
        printf("PASS heap\n");
    }
    return failures ? 1 : 0;
}
