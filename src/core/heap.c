/* heap.c -- deterministic best-fit allocator over a range of offsets. */
#include "core/heap.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct shr_heap_block {
    size_t offset, size;
    bool free;
    shr_heap_block_t *prev, *next; /* neighbours in offset order */
    shr_heap_block_t *hnext;       /* chain of the index bucket */
};

static size_t round_up(size_t value, size_t align)
{
    return (value + align - 1) & ~(align - 1);
}

static size_t bucket_of(const shr_heap_t *heap, size_t offset)
{
    return (size_t)(((uint64_t)(offset / SHR_HEAP_MIN_ALIGN) * 0x9E3779B97F4A7C15ull) >> 17) &
           (heap->index_len - 1);
}

static shr_heap_block_t **index_slot(const shr_heap_t *heap, size_t offset)
{
    shr_heap_block_t **slot = &heap->index[bucket_of(heap, offset)];
    while (*slot != NULL && (*slot)->offset != offset) {
        slot = &(*slot)->hnext;
    }
    return slot;
}

static shr_status_t index_grow(shr_heap_t *heap)
{
    size_t old_len = heap->index_len;
    shr_heap_block_t **old = heap->index;
    shr_heap_block_t **fresh = calloc(old_len * 2, sizeof(*fresh));

    if (fresh == NULL) {
        return SHR_ERR_NO_MEMORY;
    }
    heap->index = fresh;
    heap->index_len = old_len * 2;
    for (size_t i = 0; i < old_len; i++) {
        for (shr_heap_block_t *b = old[i], *next; b != NULL; b = next) {
            next = b->hnext;
            shr_heap_block_t **slot = &heap->index[bucket_of(heap, b->offset)];
            b->hnext = *slot;
            *slot = b;
        }
    }
    free(old);
    return SHR_OK;
}

shr_status_t shr_heap_init(shr_heap_t *heap, size_t size)
{
    shr_heap_block_t *all = calloc(1, sizeof(*all));

    heap->index_len = 64;
    heap->index = calloc(heap->index_len, sizeof(*heap->index));
    if (all == NULL || heap->index == NULL) {
        free(all);
        free(heap->index);
        return SHR_ERR_NO_MEMORY;
    }
    all->offset = 0;
    all->size = size & ~(size_t)(SHR_HEAP_MIN_ALIGN - 1);
    all->free = true;
    heap->head = all;
    heap->size = all->size;
    heap->in_use = 0;
    heap->n_allocated = 0;
    return SHR_OK;
}

void shr_heap_fini(shr_heap_t *heap)
{
    for (shr_heap_block_t *b = heap->head, *next; b != NULL; b = next) {
        next = b->next;
        free(b);
    }
    free(heap->index);
    heap->head = NULL;
    heap->index = NULL;
}

/* Splits `b` so that it keeps `size` bytes and the rest becomes a new free
 * block after it.  Returns false when out of private memory (b unchanged). */
static bool split(shr_heap_block_t *b, size_t size)
{
    if (b->size == size) {
        return true;
    }
    shr_heap_block_t *rest = calloc(1, sizeof(*rest));
    if (rest == NULL) {
        return false;
    }
    rest->offset = b->offset + size;
    rest->size = b->size - size;
    rest->free = true;
    rest->prev = b;
    rest->next = b->next;
    if (b->next != NULL) {
        b->next->prev = rest;
    }
    b->next = rest;
    b->size = size;
    return true;
}

/* Merges free block `b` with its free successor. */
static void merge_next(shr_heap_block_t *b)
{
    shr_heap_block_t *n = b->next;
    if (n == NULL || !n->free || !b->free) {
        return;
    }
    b->size += n->size;
    b->next = n->next;
    if (n->next != NULL) {
        n->next->prev = b;
    }
    free(n);
}

shr_status_t shr_heap_alloc(shr_heap_t *heap, size_t size, size_t align, size_t *offset_p)
{
    shr_heap_block_t *best = NULL;
    size_t best_waste = SIZE_MAX;

    if (align < SHR_HEAP_MIN_ALIGN) {
        align = SHR_HEAP_MIN_ALIGN;
    }
    if (size == 0 || size > heap->size) {
        return SHR_ERR_NO_MEMORY;
    }
    size = round_up(size, SHR_HEAP_MIN_ALIGN);
    /* best fit, lowest offset on ties: deterministic on every PE */
    for (shr_heap_block_t *b = heap->head; b != NULL; b = b->next) {
        if (!b->free) {
            continue;
        }
        size_t lead = round_up(b->offset, align) - b->offset;
        if (b->size < lead || b->size - lead < size) {
            continue;
        }
        size_t waste = b->size - size;
        if (waste < best_waste) {
            best = b;
            best_waste = waste;
            if (waste == 0) {
                break;
            }
        }
    }
    if (best == NULL) {
        return SHR_ERR_NO_MEMORY;
    }
    if (heap->n_allocated + 1 > heap->index_len && index_grow(heap) != SHR_OK) {
        return SHR_ERR_NO_MEMORY;
    }
    size_t lead = round_up(best->offset, align) - best->offset;
    if (lead > 0) {
        /* keep the unaligned head as a free block of its own */
        if (!split(best, lead)) {
            return SHR_ERR_NO_MEMORY;
        }
        best = best->next;
    }
    if (!split(best, size)) {
        return SHR_ERR_NO_MEMORY;
    }
    best->free = false;
    shr_heap_block_t **slot = &heap->index[bucket_of(heap, best->offset)];
    best->hnext = *slot;
    *slot = best;
    heap->in_use += best->size;
    heap->n_allocated++;
    *offset_p = best->offset;
    return SHR_OK;
}

shr_status_t shr_heap_free(shr_heap_t *heap, size_t offset)
{
    shr_heap_block_t **slot = index_slot(heap, offset);
    shr_heap_block_t *b = *slot;

    if (b == NULL) {
        return SHR_ERR_INVALID;
    }
    *slot = b->hnext;
    b->hnext = NULL;
    b->free = true;
    heap->in_use -= b->size;
    heap->n_allocated--;
    merge_next(b);
    if (b->prev != NULL && b->prev->free) {
        merge_next(b->prev);
    }
    return SHR_OK;
}

shr_status_t shr_heap_resize(shr_heap_t *heap, size_t offset, size_t size)
{
    shr_heap_block_t *b = *index_slot(heap, offset);

    if (b == NULL) {
        return SHR_ERR_INVALID;
    }
    size = round_up(size == 0 ? 1 : size, SHR_HEAP_MIN_ALIGN);
    if (size > b->size) {
        shr_heap_block_t *n = b->next;
        if (n == NULL || !n->free || b->size + n->size < size) {
            return SHR_ERR_NO_MEMORY;
        }
        /* take the front of the free successor */
        size_t grow = size - b->size;
        if (n->size == grow) {
            b->next = n->next;
            if (n->next != NULL) {
                n->next->prev = b;
            }
            free(n);
        } else {
            n->offset += grow;
            n->size -= grow;
        }
        b->size = size;
        heap->in_use += grow;
    } else if (size < b->size) {
        size_t old = b->size;
        if (!split(b, size)) {
            return SHR_ERR_NO_MEMORY;
        }
        heap->in_use -= old - size;
        merge_next(b->next);
    }
    return SHR_OK;
}

size_t shr_heap_block_size(const shr_heap_t *heap, size_t offset)
{
    shr_heap_block_t *b = *index_slot(heap, offset);
    return b != NULL ? b->size : 0;
}

size_t shr_heap_largest_free(const shr_heap_t *heap)
{
    size_t largest = 0;
    for (shr_heap_block_t *b = heap->head; b != NULL; b = b->next) {
        if (b->free && b->size > largest) {
            largest = b->size;
        }
    }
    return largest;
}
