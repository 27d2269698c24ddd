/* shm_seg.c -- create, map and destroy shared segments (memfd or file). */
#include "transport/shm/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

/* ---- file backing's guards --------------------------------------------
 * A file-backed segment has a name in a shared directory until every local
 * peer has mapped it.  A PE ended by a signal in that window (the launcher
 * ends the job because another PE died during init) would leave the file
 * behind: the stop signals unlink it first, then act as before.  And tmpfs
 * raises SIGBUS when it cannot back a page on first touch: for an address
 * in a file-backed mapping the PE says so before it dies.  The handlers are
 * installed only with file backing; what they read is set up before. */
static const int shr_shm_stop_signals[] = {SIGTERM, SIGINT, SIGHUP};
#define SHR_SHM_NSTOP (sizeof(shr_shm_stop_signals) / sizeof(shr_shm_stop_signals[0]))

static struct {
    char path[96];                  /* the named file of this PE, "" when none */
    struct sigaction old_stop[SHR_SHM_NSTOP], old_bus;
    bool stop_installed, bus_installed;
    struct { uintptr_t base; size_t size; } *maps; /* file-backed mappings */
    size_t n_maps, cap_maps;
    char bus_msg[256];
    size_t bus_len;
} shr_shm_guard;

static void shr_shm_restore_stop(void)
{
    for (size_t i = 0; i < SHR_SHM_NSTOP; i++) {
        sigaction(shr_shm_stop_signals[i], &shr_shm_guard.old_stop[i], NULL);
    }
}

static void shr_shm_on_stop(int sig)
{
    int saved = errno;

    unlink(shr_shm_guard.path); /* async-signal-safe */
    shr_shm_guard.path[0] = '\0';
    shr_shm_restore_stop();
    shr_shm_guard.stop_installed = false;
    raise(sig); /* delivered on return, under the program's own action */
    errno = saved;
}

static void shr_shm_on_bus(int sig, siginfo_t *info, void *uctx)
{
    uintptr_t addr = (uintptr_t)info->si_addr;

    (void)uctx;
    for (size_t i = 0; i < shr_shm_guard.n_maps; i++) {
        if (addr - shr_shm_guard.maps[i].base < shr_shm_guard.maps[i].size) {
            ssize_t ignored = write(STDERR_FILENO, shr_shm_guard.bus_msg, shr_shm_guard.bus_len);
            (void)ignored;
            break;
        }
    }
    sigaction(sig, &shr_shm_guard.old_bus, NULL);
    /* returning re-runs the faulting access, which now takes the old action */
}

static void shr_shm_guard_name(const char *path)
{
    struct sigaction sa;

    snprintf(shr_shm_guard.path, sizeof(shr_shm_guard.path), "%s", path);
    if (shr_shm_guard.stop_installed) {
        return;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = shr_shm_on_stop;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < SHR_SHM_NSTOP; i++) {
        sigaction(shr_shm_stop_signals[i], &sa, &shr_shm_guard.old_stop[i]);
    }
    shr_shm_guard.stop_installed = true;
}

static void shr_shm_guard_unname(void)
{
    if (shr_shm_guard.stop_installed) {
        shr_shm_restore_stop();
        shr_shm_guard.stop_installed = false;
    }
    shr_shm_guard.path[0] = '\0';
}

/* Remembers a file-backed mapping for the SIGBUS message.  Best effort: a
 * mapping it cannot record only loses the message. */
static void shr_shm_guard_map(const void *base, size_t size, const char *path)
{
    struct sigaction sa;
    const char *slash = strrchr(path, '/');
    int dir_len = slash != NULL ? (int)(slash - path) : 1;

    if (shr_shm_guard.n_maps == shr_shm_guard.cap_maps) {
        size_t cap = shr_shm_guard.cap_maps ? 2 * shr_shm_guard.cap_maps : 16;
        void *maps = malloc(cap * sizeof(*shr_shm_guard.maps));
        if (maps == NULL) {
            return;
        }
        /* a handler may be reading the old array: copy, publish, leak it */
        if (shr_shm_guard.n_maps > 0) {
            memcpy(maps, shr_shm_guard.maps, shr_shm_guard.n_maps * sizeof(*shr_shm_guard.maps));
        }
        __atomic_store_n(&shr_shm_guard.maps, maps, __ATOMIC_RELEASE);
        shr_shm_guard.cap_maps = cap;
    }
    shr_shm_guard.maps[shr_shm_guard.n_maps].base = (uintptr_t)base;
    shr_shm_guard.maps[shr_shm_guard.n_maps].size = size;
    __atomic_store_n(&shr_shm_guard.n_maps, shr_shm_guard.n_maps + 1, __ATOMIC_RELEASE);
    if (shr_shm_guard.bus_installed) {
        return;
    }
    int n = snprintf(shr_shm_guard.bus_msg, sizeof(shr_shm_guard.bus_msg),
                     "shimmer: error: [pid %d] the symmetric heap's files in %.*s ran out of "
                     "space (SIGBUS on first touch); enlarge %.*s, lower SHMEM_SYMMETRIC_SIZE "
                     "or use SHIMMER_SHM_BACKING=memfd\n", (int)getpid(), dir_len,
                     slash != NULL ? path : ".", dir_len, slash != NULL ? path : ".");
    shr_shm_guard.bus_len = n < 0 ? 0 : (size_t)n < sizeof(shr_shm_guard.bus_msg)
                                           ? (size_t)n : sizeof(shr_shm_guard.bus_msg) - 1;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = shr_shm_on_bus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &shr_shm_guard.old_bus);
    shr_shm_guard.bus_installed = true;
}

/* Forgets the mapping at `base` (unmapped); the last one takes the SIGBUS
 * handler with it. */
static void shr_shm_guard_unmap(const void *base)
{
    for (size_t i = 0; i < shr_shm_guard.n_maps; i++) {
        if (shr_shm_guard.maps[i].base == (uintptr_t)base) {
            shr_shm_guard.maps[i] = shr_shm_guard.maps[--shr_shm_guard.n_maps];
            break;
        }
    }
    if (shr_shm_guard.n_maps == 0 && shr_shm_guard.bus_installed) {
        sigaction(SIGBUS, &shr_shm_guard.old_bus, NULL);
        shr_shm_guard.bus_installed = false;
    }
}

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
    shr_shm_guard_name(addr->path);
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
    if (seg.addr.path[0] != '\0') {
        shr_shm_guard_map(seg.base, size, seg.addr.path);
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
        shr_shm_guard_unname();
    }
    close(seg.fd);
    return status;
}

void shr_shm_seg_privatize(const shr_shm_seg_t *seg)
{
    if (seg->base != NULL && seg->fd >= 0) {
        /* the same pages until the child writes one; a failure leaves the
         * shared mapping (the child then writes through to the PE) */
        (void)mmap(seg->base, seg->size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_FIXED | MAP_NORESERVE, seg->fd, 0);
    }
}

void shr_shm_seg_unlink(shr_shm_seg_t *seg)
{
    if (seg->addr.path[0] != '\0') {
        unlink(seg->addr.path);
        shr_shm_guard_unname();
        seg->addr.path[0] = '\0';
    }
}

void shr_shm_seg_destroy(shr_shm_seg_t *seg)
{
    if (seg->base != NULL) {
        shr_shm_guard_unmap(seg->base);
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
        const char *hint = addr->path[0] == '\0'
                               ? "if /proc is restricted, set SHIMMER_SHM_BACKING=file"
                               : "the PEs of a node must see the same files there (no "
                                 "private /tmp or mount namespace)";
        shr_error("%s: cannot open the segment of a local peer (%s): %s; %s", routine, name,
                  strerror(errno), hint);
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
    if (addr->path[0] != '\0') {
        shr_shm_guard_map(base, addr->size, addr->path);
    }
    *base_p = base;
    return SHR_OK;
}

void shr_shm_seg_unmap_peer(void *base, size_t size)
{
    if (base != NULL) {
        shr_shm_guard_unmap(base);
        munmap(base, size);
    }
}
