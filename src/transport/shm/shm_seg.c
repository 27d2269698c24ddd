/* shm_seg.c -- create, map and destroy shared segments (memfd or file). */
#include "transport/shm/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "util/log.h"
#include "util/str.h"

static shr_status_t create_memfd(const char *what, const char *routine, int *fd_p)
{
    int fd = memfd_create("shimmer", MFD_CLOEXEC);

    if (fd < 0) {
        shr_error("%s: cannot create the %s: memfd_create: %s; try SHIMMER_SHM_BACKING=file",
                  routine, what, strerror(errno));
        return SHR_ERR_IO;
    }
    /* peers reach it through /proc/<pid>/fd, which needs ptrace rights over
     * this process (same user); the mode keeps everyone else out anyway */
    if (fchmod(fd, 0600) != 0) {
        shr_debug(SHR_LOG_SHM, "fchmod of memfd: %s", strerror(errno));
    }
    *fd_p = fd;
    return SHR_OK;
}

static shr_status_t create_file(const char *dir, size_t size, int n_local, const char *what,
                                const char *routine, shr_shm_seg_addr_t *addr, int *fd_p)
{
    struct statvfs fs;
    char need[32], have[32], each[32];

    /* tmpfs gives SIGBUS on first touch of a page it cannot back: refuse now,
     * while the message can still say why and what to do */
    if (statvfs(dir, &fs) != 0) {
        shr_error("%s: cannot use SHIMMER_SHM_DIR=%s for the %s: %s", routine, dir, what,
                  strerror(errno));
        return SHR_ERR_IO;
    }
    unsigned long long avail = (unsigned long long)fs.f_bavail * fs.f_frsize;
    unsigned long long needed = (unsigned long long)size * (unsigned long long)n_local;
    if (avail < needed) {
        shr_error("%s: %s has %s free but the %s of %d PE(s) needs %s (%d x %s); lower "
                  "SHMEM_SYMMETRIC_SIZE, enlarge %s (mount -o remount,size=<bytes> %s) or "
                  "use SHIMMER_SHM_BACKING=memfd", routine, dir,
                  shr_str_from_size(avail, have, sizeof(have)), what, n_local,
                  shr_str_from_size(needed, need, sizeof(need)), n_local,
                  shr_str_from_size(size, each, sizeof(each)), dir, dir);
        return SHR_ERR_NO_RESOURCE;
    }
    snprintf(addr->path, sizeof(addr->path), "%s/shimmer-%d-XXXXXX", dir, (int)getpid());
    int fd = mkostemp(addr->path, O_CLOEXEC);
    if (fd < 0) {
        shr_error("%s: cannot create the %s in %s: %s; set SHIMMER_SHM_DIR to a writable tmpfs",
                  routine, what, dir, strerror(errno));
        return SHR_ERR_IO;
    }
    fchmod(fd, 0600);
    *fd_p = fd;
    return SHR_OK;
}

/* Maps fd at an `align`-aligned address: reserve size + align of address
 * space, map over the aligned part, give back the rest. */
static void *map_aligned(int fd, size_t size, size_t align)
{
    char *reserve = mmap(NULL, size + align, PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserve == MAP_FAILED) {
        return MAP_FAILED;
    }
    char *start = (char *)(((uintptr_t)reserve + align - 1) & ~(uintptr_t)(align - 1));
    void *base = mmap(start, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE | MAP_FIXED,
                      fd, 0);
    if (base == MAP_FAILED) {
        munmap(reserve, size + align);
        return MAP_FAILED;
    }
    if (start > reserve) {
        munmap(reserve, (size_t)(start - reserve));
    }
    size_t tail = (size_t)(reserve + size + align - (start + size));
    if (tail > 0) {
        munmap(start + size, tail);
    }
    return base;
}

shr_status_t shr_shm_seg_create(shr_shm_backing_t backing, const char *dir, size_t size,
                                size_t align, int n_local, const char *what,
                                const char *routine, shr_shm_seg_t *seg_p)
{
    shr_shm_seg_t seg;
    shr_status_t status;
    char sz[32];

    memset(&seg, 0, sizeof(seg));
    status = backing == SHR_SHM_MEMFD ? create_memfd(what, routine, &seg.fd)
                                      : create_file(dir, size, n_local, what, routine,
                                                    &seg.addr, &seg.fd);
    if (status != SHR_OK) {
        return status;
    }
    if (ftruncate(seg.fd, (off_t)size) != 0) {
        shr_error("%s: cannot size the %s to %s: %s; lower SHMEM_SYMMETRIC_SIZE", routine, what,
                  shr_str_from_size(size, sz, sizeof(sz)), strerror(errno));
        status = SHR_ERR_NO_RESOURCE;
        goto err_close;
    }
    seg.base = map_aligned(seg.fd, size, align);
    if (seg.base == MAP_FAILED) {
        shr_error("%s: cannot map the %s (%s): %s; lower SHMEM_SYMMETRIC_SIZE or raise the "
                  "address-space limit (ulimit -v)", routine, what,
                  shr_str_from_size(size, sz, sizeof(sz)), strerror(errno));
        status = SHR_ERR_NO_MEMORY;
        goto err_close;
    }
    seg.size = size;
    seg.addr.pid = getpid();
    seg.addr.fd = seg.fd;
    seg.addr.size = size;
    *seg_p = seg;
    return SHR_OK;

err_close:
    if (seg.addr.path[0] != '\0') {
        unlink(seg.addr.path);
    }
    close(seg.fd);
    return status;
}

void shr_shm_seg_unlink(shr_shm_seg_t *seg)
{
    if (seg->addr.path[0] != '\0') {
        unlink(seg->addr.path);
        seg->addr.path[0] = '\0';
    }
}

void shr_shm_seg_destroy(shr_shm_seg_t *seg)
{
    if (seg->base != NULL) {
        munmap(seg->base, seg->size);
        seg->base = NULL;
    }
    shr_shm_seg_unlink(seg);
    if (seg->fd >= 0) {
        close(seg->fd);
        seg->fd = -1;
    }
}

shr_status_t shr_shm_seg_map_peer(const shr_shm_seg_addr_t *addr, const char *routine,
                                  void **base_p)
{
    char path[128];
    const char *name = addr->path;

    if (name[0] == '\0') {
        snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)addr->pid, addr->fd);
        name = path;
    }
    int fd = open(name, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        shr_error("%s: cannot open the segment of a local peer (%s): %s; if /proc is "
                  "restricted, set SHIMMER_SHM_BACKING=file", routine, name, strerror(errno));
        return SHR_ERR_IO;
    }
    void *base = mmap(NULL, addr->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
                      fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        shr_error("%s: cannot map the segment of a local peer (%zu bytes): %s; lower "
                  "SHMEM_SYMMETRIC_SIZE or raise the address-space limit", routine, addr->size,
                  strerror(errno));
        return SHR_ERR_NO_MEMORY;
    }
    *base_p = base;
    return SHR_OK;
}

void shr_shm_seg_unmap_peer(void *base, size_t size)
{
    if (base != NULL) {
        munmap(base, size);
    }
}
