/*
 * heap.c -- symmetric memory management (spec 9.3).  Every routine is
 * collective over the world team and synchronises with a barrier that
 * quiets the default context; size 0 / NULL do nothing and skip it.
 */
#include <stdio.h>
#include <string.h>

#include "api/api_inline.h"
#include "coll/coll.h"
#include "core/env.h"
#include "util/log.h"
#include "util/str.h"

static void heap_barrier(void)
{
    shr_quiet(shr_ctx_default);
    shr_coll_barrier(shr_team_world);
}

/* Debug mode: every PE must ask for the same thing.  Each PE posts its
 * request in its own slot of the internal heap, then compares with all. */
typedef struct {
    uint64_t seq, size, align, hints;
} heap_request_t;

static uint64_t request_seq;

static void check_same_request(const char *fn, size_t size, size_t align, long hints)
{
    heap_request_t mine = {++request_seq, size, align, (uint64_t)hints}, theirs;
    heap_request_t *request_slot = shr_g.check_scratch;

    *request_slot = mine;
    heap_barrier();
    for (int pe = 0; pe < shr_g.n_pes; pe++) {
        shr_rma_get(NULL, shr_ctx_default, &theirs, request_slot, sizeof(theirs), pe, false);
        if (theirs.size != mine.size || theirs.align != mine.align || theirs.hints != mine.hints) {
            shr_check_fail(fn, "PE %d asked for %zu bytes (alignment %zu, hints %#lx) but PE %d "
                           "for %zu bytes (alignment %zu, hints %#lx); symmetric allocations "
                           "must be the same on every PE", pe, (size_t)theirs.size,
                           (size_t)theirs.align, (long)theirs.hints, shr_g.my_pe, size, align,
                           hints);
        }
    }
}

static void report_exhausted(const char *fn, size_t size)
{
    char want[32], total[32], used[32], largest[32], advice[32];
    size_t suggest = (shr_g.user_heap.in_use + size) * 2;

    shr_warn("%s(%s): symmetric heap exhausted (%s per PE, %s in use, largest free block %s); "
             "set SHMEM_SYMMETRIC_SIZE=%s or more", fn, shr_str_from_size(size, want, sizeof(want)),
             shr_str_from_size(shr_g.user_heap_size, total, sizeof(total)),
             shr_str_from_size(shr_g.user_heap.in_use, used, sizeof(used)),
             shr_str_from_size(shr_heap_largest_free(&shr_g.user_heap), largest, sizeof(largest)),
             shr_str_from_size_env(suggest, advice, sizeof(advice)));
}

static void *offset_to_ptr(size_t offset)
{
    return (void *)(shr_g.user_heap_base + offset);
}

/* Offset of a pointer returned by the allocator.  Anything else ends the
 * job, with or without checks: the lookup is the allocator's own, and
 * ignoring a double free would hide the bug that frees a block another
 * part of the program still uses. */
static size_t ptr_to_offset(const char *fn, const void *ptr)
{
    uintptr_t off = (uintptr_t)ptr - shr_g.user_heap_base;

    if (off >= shr_g.user_heap_size || shr_heap_block_size(&shr_g.user_heap, off) == 0) {
        shr_check_fail(fn, "ptr %p was not returned by shmem_malloc, shmem_calloc, "
                       "shmem_align or shmem_realloc (or was freed already)", ptr);
    }
    return off;
}

static void *heap_alloc_block(const char *fn, size_t size, size_t align, long hints)
{
    size_t offset;
    void *ptr = NULL;

    if (SHR_CHECKS_ON()) {
        shr_check_init(fn);
        if (size != 0) {
            check_same_request(fn, size, align, hints);
        }
    }
    if (size == 0) {
        return NULL;
    }
    if (shr_heap_alloc(&shr_g.user_heap, size, align, &offset) == SHR_OK) {
        ptr = offset_to_ptr(offset);
        shr_debug(SHR_LOG_HEAP, "%s: %zu bytes at heap offset 0x%zx; largest free block %zu bytes",
                  fn, size, offset, shr_heap_largest_free(&shr_g.user_heap));
    } else {
        report_exhausted(fn, size);
    }
    heap_barrier();
    return ptr;
}

/* heap_alloc_block, a call of the profile's alloc family. */
static void *heap_alloc(const char *fn, size_t size, size_t align, long hints)
{
    void *ptr;

    SHR_API_TIMED(SHR_PROF_ALLOC, size, (void)0, ptr = heap_alloc_block(fn, size, align, hints));
    return ptr;
}

void *pshmem_malloc(size_t size)
{
    return heap_alloc("shmem_malloc", size, SHR_HEAP_MIN_ALIGN, 0);
}
SHR_API_ALIAS(shmem_malloc)

void *pshmem_malloc_with_hints(size_t size, long hints)
{
    /* hints only describe use; on shared memory every block is equally good
     * for atomics and signals, so they change nothing here */
    return heap_alloc("shmem_malloc_with_hints", size, SHR_HEAP_MIN_ALIGN, hints);
}
SHR_API_ALIAS(shmem_malloc_with_hints)

static void *calloc_block(size_t len)
{
    void *ptr = heap_alloc_block("shmem_calloc", len, SHR_HEAP_MIN_ALIGN, 0);
    if (ptr != NULL) {
        memset(ptr, 0, len); /* a reused block is not zero */
        heap_barrier();      /* no PE writes it before everyone cleared theirs */
    }
    return ptr;
}

void *pshmem_calloc(size_t count, size_t size)
{
    if (count != 0 && size > SIZE_MAX / count) {
        if (SHR_CHECKS_ON()) {
            shr_check_fail("shmem_calloc", "count %zu x size %zu overflows size_t", count, size);
        }
        return NULL;
    }
    void *ptr;
    SHR_API_TIMED(SHR_PROF_ALLOC, count * size, (void)0,
                  ptr = calloc_block(count * size));
    return ptr;
}
SHR_API_ALIAS(shmem_calloc)

void *pshmem_align(size_t alignment, size_t size)
{
    if (alignment > SHR_HEAP_BASE_ALIGN) {
        shr_warn("shmem_align: alignment %zu is larger than the %zu bytes the symmetric heap "
                 "supports; returning NULL", alignment, SHR_HEAP_BASE_ALIGN);
        heap_barrier();
        return NULL;
    }
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        if (SHR_CHECKS_ON()) {
            shr_check_fail("shmem_align", "alignment %zu is not a power of two; pass a power "
                           "of two that is a multiple of sizeof(void *)", alignment);
        }
        shr_warn("shmem_align: alignment %zu is not a power of two; returning NULL (pass a "
                 "power of two)", alignment);
        heap_barrier();
        return NULL;
    }
    /* 1.6 asks for a multiple of sizeof(void *), 1.5 for any power of two:
     * 1, 2 and 4 are served too (every block is SHR_HEAP_MIN_ALIGN-aligned) */
    return heap_alloc("shmem_align", size, alignment, 0);
}
SHR_API_ALIAS(shmem_align)

static void free_block(void *ptr)
{
    if (SHR_CHECKS_ON()) {
        shr_check_init("shmem_free");
    }
    if (ptr == NULL) {
        return;
    }
    heap_barrier(); /* nobody still uses the block */
    size_t offset = ptr_to_offset("shmem_free", ptr);
    shr_debug(SHR_LOG_HEAP, "shmem_free: block of %zu bytes at heap offset 0x%zx",
              shr_heap_block_size(&shr_g.user_heap, offset), offset);
    shr_heap_free(&shr_g.user_heap, offset);
}

void pshmem_free(void *ptr)
{
    SHR_API_TIMED(SHR_PROF_ALLOC, 0, (void)0, free_block(ptr));
}
SHR_API_ALIAS(shmem_free)

static void *realloc_block(void *ptr, size_t size)
{
    const char *fn = "shmem_realloc";

    if (ptr == NULL) {
        return heap_alloc_block(fn, size, SHR_HEAP_MIN_ALIGN, 0);
    }
    if (size == 0) {
        free_block(ptr);
        return NULL;
    }
    if (SHR_CHECKS_ON()) {
        shr_check_init(fn);
        check_same_request(fn, size, SHR_HEAP_MIN_ALIGN, 0);
    }
    heap_barrier(); /* nobody still uses the old block */
    size_t offset = ptr_to_offset(fn, ptr), moved;
    size_t old_size = shr_heap_block_size(&shr_g.user_heap, offset);
    void *result = ptr;
    if (shr_heap_resize(&shr_g.user_heap, offset, size) == SHR_OK) {
        shr_debug(SHR_LOG_HEAP, "%s: block of %zu bytes at heap offset 0x%zx resized in place "
                  "to %zu", fn, old_size, offset, size);
    } else {
        if (shr_heap_alloc(&shr_g.user_heap, size, SHR_HEAP_MIN_ALIGN, &moved) == SHR_OK) {
            shr_debug(SHR_LOG_HEAP, "%s: block of %zu bytes at heap offset 0x%zx moved to 0x%zx "
                      "as %zu",
                      fn, old_size, offset, moved, size);
            result = offset_to_ptr(moved);
            memcpy(result, ptr, old_size < size ? old_size : size);
            shr_heap_free(&shr_g.user_heap, offset);
        } else {
            report_exhausted(fn, size); /* the old block stays intact */
            result = NULL;
        }
    }
    heap_barrier();
    return result;
}

void *pshmem_realloc(void *ptr, size_t size)
{
    void *result;

    SHR_API_TIMED(SHR_PROF_ALLOC, size, (void)0, result = realloc_block(ptr, size));
    return result;
}
SHR_API_ALIAS(shmem_realloc)

/* The pre-1.2 names. */
void *pshmalloc(size_t size)
{
    return heap_alloc("shmalloc", size, SHR_HEAP_MIN_ALIGN, 0);
}
SHR_API_ALIAS(shmalloc)

void pshfree(void *ptr)
{
    pshmem_free(ptr);
}
SHR_API_ALIAS(shfree)

void *pshrealloc(void *ptr, size_t size)
{
    return pshmem_realloc(ptr, size);
}
SHR_API_ALIAS(shrealloc)

void *pshmemalign(size_t alignment, size_t size)
{
    return pshmem_align(alignment, size);
}
SHR_API_ALIAS(shmemalign)
