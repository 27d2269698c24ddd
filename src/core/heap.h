/*
 * heap.h -- the symmetric heap allocator.
 *
 * Works on offsets, not addresses: every PE runs the same sequence of
 * collective allocations, and the algorithm is deterministic, so every PE
 * gets the same offsets -- that is what makes the heap symmetric.  The
 * bookkeeping lives in private memory, never in the segment: remote writes
 * cannot corrupt it and init does not touch the segment's pages.
 *
 * Not thread-safe: callers serialise (allocation routines are collective).
 */
#ifndef SHR_HEAP_H
#define SHR_HEAP_H

#include <stddef.h>

#include "util/status.h"

/* Every block starts on a cache line: no false sharing between objects. */
#define SHR_HEAP_MIN_ALIGN 64

typedef struct shr_heap_block shr_heap_block_t;

typedef struct shr_heap {
    size_t size;               /* bytes managed: offsets [0, size) */
    size_t in_use;             /* bytes in allocated blocks */
    size_t n_allocated;        /* allocated blocks */
    shr_heap_block_t *head;    /* every block (free or not) in offset order */
    shr_heap_block_t **index;  /* allocated blocks by offset (chained hash) */
    size_t index_len;          /* buckets, a power of two */
} shr_heap_t;

/* Sets up `heap` managing `size` bytes.  SHR_ERR_NO_MEMORY if the private
 * bookkeeping cannot be allocated. */
shr_status_t shr_heap_init(shr_heap_t *heap, size_t size);
void shr_heap_fini(shr_heap_t *heap);

/* Allocates `size` bytes (> 0) aligned to `align` (a power of two; smaller
 * than SHR_HEAP_MIN_ALIGN means SHR_HEAP_MIN_ALIGN).  Sets *offset_p on
 * success; SHR_ERR_NO_MEMORY when no free block fits. */
shr_status_t shr_heap_alloc(shr_heap_t *heap, size_t size, size_t align, size_t *offset_p);

/* Frees the block starting at `offset`; SHR_ERR_INVALID if no allocated
 * block starts there. */
shr_status_t shr_heap_free(shr_heap_t *heap, size_t offset);

/* Grows or shrinks the block at `offset` in place to `size` bytes.
 * SHR_ERR_NO_MEMORY when the following free space is too small (the block is
 * then unchanged); SHR_ERR_INVALID for an unknown offset. */
shr_status_t shr_heap_resize(shr_heap_t *heap, size_t offset, size_t size);

/* Usable bytes of the allocated block at `offset`, 0 if there is none. */
size_t shr_heap_block_size(const shr_heap_t *heap, size_t offset);

/* Size of the largest free block (for error messages). */
size_t shr_heap_largest_free(const shr_heap_t *heap);

#endif
