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

#include "transport/shm/shm_int.h"
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

/* A memfd only this user can open; -1 with errno set on failure. */
static int memfd_private(unsigned int flags)
{
    int fd = memfd_create("shimmer", MFD_CLOEXEC | flags);

    /* peers reach it through /proc/<pid>/fd, which needs ptrace rights over
     * this process (same user); the mode keeps everyone else out anyway */
    if (fd >= 0 && fchmod(fd, 0600) != 0) {
        shr_debug(SHR_LOG_SHM, "fchmod of memfd: %s", strerror(errno));
    }
    return fd;
}

static shr_status_t create_memfd(const char *what, const char *routine, int *fd_p)
{
    int fd = memfd_private(0);

    if (fd < 0) {
        shr_error("%s: cannot create the %s: memfd_create: %s; try SHIMMER_SHM_BACKING=file",
                  routine, what, strerror(errno));
        return SHR_ERR_IO;
    }
    *fd_p = fd;
    return SHR_OK;
}

static size_t round_up(size_t size, size_t page)
{
    return (size + page - 1) / page * page;
}

/* Sets *huge_page_p to the page size of a hugetlbfs `dir` (the segment is
 * then a whole number of them), else 0. */
static shr_status_t create_file(const char *dir, size_t size, int n_local, const char *what,
                                const char *routine, shr_shm_seg_addr_t *addr, int *fd_p,
                                size_t *huge_page_p)
{
    struct statvfs fs;
    char need[32], have[32], each[32];
    size_t huge_page = 0;
    bool limited = true;

    /* tmpfs gives SIGBUS on first touch of a page it cannot back: refuse now,
     * while the message can still say why and what to do */
    if (statvfs(dir, &fs) != 0) {
        shr_error("%s: cannot use SHIMMER_SHM_DIR=%s for the %s: %s", routine, dir, what,
                  strerror(errno));
        return SHR_ERR_IO;
    }
    unsigned long long avail = (unsigned long long)fs.f_bavail * fs.f_frsize;
    if (shr_shm_huge_is_hugetlbfs(dir, &huge_page, &limited)) {
        size = round_up(size, huge_page);
        if (!limited) { /* a mount without size= holds what the pool has free */
            avail = (unsigned long long)shr_shm_huge_free(huge_page) * huge_page;
        }
    }
    unsigned long long needed = (unsigned long long)size * (unsigned long long)n_local;
    if (avail < needed && huge_page != 0) {
        shr_error("%s: %s is a hugetlbfs mount with %s of free huge pages but the %s of %d "
                  "PE(s) needs %s (%d x %s); reserve more huge pages (sysctl "
                  "vm.nr_hugepages, as root), lower SHMEM_SYMMETRIC_SIZE or use "
                  "SHIMMER_SHM_BACKING=memfd", routine, dir,
                  shr_str_from_size(avail, have, sizeof(have)), what, n_local,
                  shr_str_from_size(needed, need, sizeof(need)), n_local,
                  shr_str_from_size(size, each, sizeof(each)));
        return SHR_ERR_NO_RESOURCE;
    }
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
    *huge_page_p = huge_page;
    return SHR_OK;
}

/* Maps fd at an `align`-aligned address: reserve size + align of address
 * space, map over the aligned part, give back the rest.  `set_aside`: the
 * kernel reserves the pages now (huge pages: a short pool fails here). */
static void *map_aligned(int fd, size_t size, size_t align, bool set_aside)
{
    char *reserve = mmap(NULL, size + align, PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserve == MAP_FAILED) {
        return MAP_FAILED;
    }
    char *start = (char *)(((uintptr_t)reserve + align - 1) & ~(uintptr_t)(align - 1));
    void *base = mmap(start, size, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_FIXED | (set_aside ? 0 : MAP_NORESERVE), fd, 0);
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

/* A memfd segment of huge pages for `size` bytes: sets seg->fd, base and
 * size.  SHR_ERR_UNSUPPORTED when `huge` is auto and the pool cannot hold
 * it (the caller then uses normal pages); with on, logs why and fails. */
static shr_status_t create_huge(size_t size, size_t align, shr_shm_huge_t huge, int n_local,
                                const char *what, const char *routine, shr_shm_seg_t *seg)
{
    size_t page = shr_shm_huge_default_size();
    char why[160] = "", psz[32], sz[32];
    int fd = -1;
    void *base = MAP_FAILED;

    if (page == 0) {
        if (huge == SHR_SHM_HUGE_ON) {
            shr_error("%s: SHIMMER_HUGEPAGES=on but this kernel has no huge pages (no "
                      "Hugepagesize in /proc/meminfo); set SHIMMER_HUGEPAGES=auto or off", routine);
            return SHR_ERR_NO_RESOURCE;
        }
        return SHR_ERR_UNSUPPORTED;
    }
    size_t rounded = round_up(size, page);
    unsigned long need = rounded / page, avail = shr_shm_huge_free(page);
    shr_str_from_size(page, psz, sizeof(psz));
    if (avail < need) {
        snprintf(why, sizeof(why), "the kernel's pool has %lu free huge pages of %s", avail, psz);
    } else if ((fd = memfd_private(MFD_HUGETLB)) < 0) {
        snprintf(why, sizeof(why), "memfd_create(MFD_HUGETLB): %s", strerror(errno));
    } else if (ftruncate(fd, (off_t)rounded) != 0 ||
               (base = map_aligned(fd, rounded, align, true)) == MAP_FAILED) {
        /* another process took the pages between the count and the map */
        snprintf(why, sizeof(why), "they could not be reserved: %s", strerror(errno));
    }
    if (why[0] != '\0') {
        if (fd >= 0) {
            close(fd);
        }
        if (huge == SHR_SHM_HUGE_AUTO) {
            shr_debug(SHR_LOG_SHM, "%s: normal pages (SHIMMER_HUGEPAGES=auto): it needs %lu "
                      "huge pages of %s, %s", what, need, psz, why);
            return SHR_ERR_UNSUPPORTED;
        }
        shr_error("%s: SHIMMER_HUGEPAGES=on but the %s (%s) needs %lu huge pages of %s and %s; "
                  "reserve them (the %d PE(s) of this node need %lu: sysctl vm.nr_hugepages, "
                  "as root) or set SHIMMER_HUGEPAGES=auto", routine, what,
                  shr_str_from_size(rounded, sz, sizeof(sz)), need, psz, why, n_local,
                  need * (unsigned long)n_local);
        return SHR_ERR_NO_RESOURCE;
    }
    shr_debug(SHR_LOG_SHM, "%s: %lu huge pages of %s", what, need, psz);
    seg->fd = fd;
    seg->base = base;
    seg->size = rounded;
    return SHR_OK;
}

shr_status_t shr_shm_seg_create(shr_shm_backing_t backing, const char *dir, size_t size,
                                size_t align, shr_shm_huge_t huge, int n_local,
                                const char *what, const char *routine, shr_shm_seg_t *seg_p)
{
    shr_shm_seg_t seg;
    shr_status_t status = SHR_ERR_UNSUPPORTED;
    size_t huge_page = 0;
    bool limited;
    char sz[32];

    memset(&seg, 0, sizeof(seg));
    seg.fd = -1;
    if (backing == SHR_SHM_FILE && huge == SHR_SHM_HUGE_ON &&
        !shr_shm_huge_is_hugetlbfs(dir, &huge_page, &limited)) {
        shr_error("%s: SHIMMER_HUGEPAGES=on with SHIMMER_SHM_BACKING=file needs SHIMMER_SHM_DIR "
                  "on a hugetlbfs mount, and %s is not one; point it at one (mount -t hugetlbfs "
                  "none DIR, as root) or use the memfd backing", routine, dir);
        return SHR_ERR_INVALID;
    }
    if (backing == SHR_SHM_MEMFD && huge != SHR_SHM_HUGE_OFF) {
        status = create_huge(size, align, huge, n_local, what, routine, &seg);
        if (status != SHR_OK && status != SHR_ERR_UNSUPPORTED) {
            return status;
        }
    }
    if (status != SHR_OK) { /* normal pages, or the pages of the directory */
        status = backing == SHR_SHM_MEMFD ? create_memfd(what, routine, &seg.fd)
                                          : create_file(dir, size, n_local, what, routine,
                                                        &seg.addr, &seg.fd, &huge_page);
        if (status != SHR_OK) {
            return status;
        }
        seg.size = huge_page != 0 ? round_up(size, huge_page) : size;
        if (ftruncate(seg.fd, (off_t)seg.size) != 0) {
            shr_error("%s: cannot size the %s to %s: %s; lower SHMEM_SYMMETRIC_SIZE", routine,
                      what, shr_str_from_size(seg.size, sz, sizeof(sz)), strerror(errno));
            status = SHR_ERR_NO_RESOURCE;
            goto err_close;
        }
        seg.base = map_aligned(seg.fd, seg.size, align, huge_page != 0);
        if (seg.base == MAP_FAILED) {
            shr_error("%s: cannot map the %s (%s): %s; %s", routine, what,
                      shr_str_from_size(seg.size, sz, sizeof(sz)), strerror(errno),
                      huge_page != 0 ? "the huge page pool ran short (sysctl vm.nr_hugepages)"
                                     : "lower SHMEM_SYMMETRIC_SIZE or raise the address-space "
                                       "limit (ulimit -v)");
            status = SHR_ERR_NO_MEMORY;
            goto err_close;
        }
    }
    if (seg.addr.path[0] != '\0') {
        shr_shm_guard_map(seg.base, seg.size, seg.addr.path);
    }
    seg.addr.pid = getpid();
    seg.addr.fd = seg.fd;
    seg.addr.size = seg.size;
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
