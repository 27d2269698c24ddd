/*
 * shm_int.h -- private to src/transport/shm: the kernel's huge page pool
 * (shm_huge.c), for the segments of shm_seg.c.
 */
#ifndef SHR_SHM_INT_H
#define SHR_SHM_INT_H

#include <stdbool.h>
#include <stddef.h>

/* The default huge page size in bytes (/proc/meminfo's Hugepagesize), 0
 * when the kernel has none.  Thread-safe. */
size_t shr_shm_huge_default_size(void);

/* How many huge pages of `page` bytes the kernel's pool has free (its
 * free_hugepages in /sys/kernel/mm/hugepages), 0 when it has none of that
 * size.  Thread-safe. */
unsigned long shr_shm_huge_free(size_t page);

/* Whether `dir` is on a hugetlbfs mount; then sets *page_p to its page
 * size and *limited_p to whether the mount has a size limit (a mount
 * without one reports no free blocks: its room is the pool's). */
bool shr_shm_huge_is_hugetlbfs(const char *dir, size_t *page_p, bool *limited_p);

#endif
