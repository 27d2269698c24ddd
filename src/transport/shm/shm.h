/*
 * shm.h -- segments shared with the PEs of this node.
 *
 * A segment is memory this PE owns and exports: the symmetric heap (a new
 * memfd) or the program's data segment (.data/.bss moved into a memfd at
 * init).  Local peers map it once; from then on every access is a load or a
 * store (see core/state.h, shr_ptr).
 *
 * Nothing is left behind: memfds have no name, so the kernel frees them with
 * the last process that maps them, even after kill -9.  With
 * SHIMMER_SHM_BACKING=file the files are unlinked as soon as every peer
 * mapped them (shr_shm_seg_unlink), or by SIGTERM/SIGINT/SIGHUP before that
 * (a launcher ending the job during init); a SIGBUS in a file-backed
 * mapping (tmpfs full) prints why before the PE dies (shm_seg.c's guards).
 *
 * Not thread-safe; init/finalize only.
 */
#ifndef SHR_SHM_H
#define SHR_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/status.h"

typedef enum { SHR_SHM_MEMFD, SHR_SHM_FILE } shr_shm_backing_t;

/* Huge pages for a memfd segment: never; when the kernel's pool has room
 * for all of it; always (or the creation fails, saying why). */
typedef enum { SHR_SHM_HUGE_OFF, SHR_SHM_HUGE_AUTO, SHR_SHM_HUGE_ON } shr_shm_huge_t;

/* How a peer finds one of my segments (travels in the init allgather). */
typedef struct shr_shm_seg_addr {
    pid_t pid;
    int fd;             /* memfd: opened as /proc/<pid>/fd/<fd> */
    size_t size;
    char path[96];      /* file backing: the file's path */
} shr_shm_seg_addr_t;

typedef struct shr_shm_seg {
    int fd;
    void *base;         /* my own mapping */
    size_t size;
    shr_shm_seg_addr_t addr;
} shr_shm_seg_t;

/* Creates a segment of `size` bytes (not touched: init time does not grow
 * with size) and maps it at an address aligned to `align` (a power of two,
 * at least a page).  `huge` applies to memfd backing; a file on a hugetlbfs
 * mount has huge pages whatever it says.  Huge pages are reserved when
 * mapped (a short pool fails here, never as SIGBUS later) and round the
 * segment up to a whole number of them (seg_p->size).  `what` names it in
 * errors ("symmetric heap"), `routine` is the user's routine, `n_local` the
 * PEs of this node (to check that a file-backed directory can hold them
 * all).  Logs the cause on error. */
shr_status_t shr_shm_seg_create(shr_shm_backing_t backing, const char *dir, size_t size,
                                size_t align, shr_shm_huge_t huge, int n_local,
                                const char *what, const char *routine, shr_shm_seg_t *seg_p);
void shr_shm_seg_destroy(shr_shm_seg_t *seg);

/* Moves the program's writable data segment (.data and .bss of the
 * executable) into a memfd at the same address, so that local peers can map
 * it.  Sets *seg_p (base = start of the range).  Idempotent: the second call
 * returns the segment of the first.  SHR_ERR_UNSUPPORTED if the executable
 * has no suitable segment.  No thread may write a global of the executable
 * while it runs (see shm_data.c): the caller starts its helpers after. */
shr_status_t shr_shm_data_attach(const char *routine, shr_shm_seg_t *seg_p);
/* attach's pair: ends this init's use of the segment and clears *seg.  The
 * memfd stays mapped where the globals are (they live in it now); a later
 * attach returns it again. */
void shr_shm_data_detach(shr_shm_seg_t *seg);

/* Maps a peer's segment; sets *base_p.  Logs the cause on error. */
shr_status_t shr_shm_seg_map_peer(const shr_shm_seg_addr_t *addr, const char *routine,
                                  void **base_p);
void shr_shm_seg_unmap_peer(void *base, size_t size);

/* In a child of fork(): replaces this process's mapping of its own segment
 * by a private copy-on-write one of the same memory, so the child's writes
 * stay its own.  Async-signal-safe (mmap only). */
void shr_shm_seg_privatize(const shr_shm_seg_t *seg);

/* File backing: removes the file once every peer has it mapped. */
void shr_shm_seg_unlink(shr_shm_seg_t *seg);

#endif
