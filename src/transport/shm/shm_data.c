/*
 * shm_data.c -- make the program's global and static variables shareable.
 *
 * OpenSHMEM makes .data and .bss of the executable symmetric.  To let local
 * peers reach them with plain loads and stores (instead of a system call per
 * access), init moves the executable's writable segment into a memfd mapped
 * at the very same address: the program sees no difference, and peers map
 * the memfd like a heap segment.  Only the pages the program has touched are
 * copied, so a large .bss costs nothing.
 */
#include "transport/shm/shm.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/log.h"

typedef struct {
    uintptr_t start, end;      /* writable range to move, page aligned */
    uintptr_t file_end;        /* end of the file-backed part (rest is .bss) */
    int found;
} data_range_t;

static shr_shm_seg_t data_seg = {.fd = -1};

static int find_range(struct dl_phdr_info *info, size_t size, void *arg)
{
    data_range_t *range = arg;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t relro_end = 0;
    (void)size;

    /* the first object is the executable itself */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO) {
            relro_end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        }
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || ph->p_memsz == 0) {
            continue;
        }
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        uintptr_t end = start + ph->p_memsz;
        /* the dynamic loader made the RELRO part read-only: leave it alone */
        if (relro_end > start && relro_end < end) {
            start = relro_end;
        }
        range->start = start & ~(page - 1);
        range->end = (end + page - 1) & ~(page - 1);
        range->file_end = (info->dlpi_addr + ph->p_vaddr + ph->p_filesz + page - 1) & ~(page - 1);
        range->found = 1;
    }
    return 1; /* stop after the executable */
}

/* Copies into the memfd the pages of [start, end) that hold data: every
 * file-backed page, and the .bss pages that are present or swapped (from
 * /proc/self/pagemap); untouched .bss pages are zero in the memfd too.  The
 * kernel does the copying (pwrite), so the bytes between variables are
 * copied raw -- no sanitizer may object to that. */
static shr_status_t copy_touched(const data_range_t *range, int fd)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t bss = range->file_end < range->end ? range->file_end : range->end;
    int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    shr_status_t status = SHR_OK;

    for (uintptr_t p = range->start; p < range->end && status == SHR_OK; p += page) {
        uint64_t entry = UINT64_MAX; /* unknown: copy */
        if (p >= bss && pagemap >= 0 &&
            pread(pagemap, &entry, sizeof(entry), (off_t)(p / page * sizeof(entry))) !=
                sizeof(entry)) {
            entry = UINT64_MAX;
        }
        if (!(entry & (3ull << 62))) { /* bit 63 present, bit 62 swapped */
            continue;
        }
        /* a raw system call: libc's pwrite may be intercepted by sanitizers */
        if (syscall(SYS_pwrite64, fd, (const void *)p, (size_t)page,
                    (off_t)(p - range->start)) != (long)page) {
            status = SHR_ERR_IO;
        }
    }
    if (pagemap >= 0) {
        close(pagemap);
    }
    return status;
}

shr_status_t shr_shm_data_attach(const char *routine, shr_shm_seg_t *seg_p)
{
    data_range_t range = {0};
    shr_shm_seg_t seg = {.fd = -1};

    if (data_seg.base != NULL) {
        *seg_p = data_seg;
        return SHR_OK;
    }
    dl_iterate_phdr(find_range, &range);
    if (!range.found || range.end <= range.start) {
        shr_debug(SHR_LOG_SHM, "the executable has no writable data segment");
        return SHR_ERR_UNSUPPORTED;
    }
    size_t size = range.end - range.start;
    seg.fd = memfd_create("shimmer-data", MFD_CLOEXEC);
    if (seg.fd < 0 || fchmod(seg.fd, 0600) != 0 || ftruncate(seg.fd, (off_t)size) != 0) {
        shr_error("%s: cannot create the shared copy of the global variables (%zu bytes): %s; "
                  "set SHIMMER_DATA_SEGMENT=0 to use only the symmetric heap", routine, size,
                  strerror(errno));
        goto err;
    }
    /* Copy, then map the copy in place of the original.  No global may be
     * written in between, by this thread or any other: such a write goes
     * to the old pages after they were copied and vanishes with them.  So
     * only locals here, and the caller starts no thread before this
     * returns (core/init.c:attach_data says why that covers the remote
     * transport's start-up helper; with libshimmer.a linked in, the
     * library's own globals are in this range).  A thread of the program
     * itself that writes globals while shmem_init runs is the program's
     * race, as with any memory shmem_init makes symmetric. */
    if (copy_touched(&range, seg.fd) != SHR_OK) {
        shr_error("%s: cannot copy the global variables: %s", routine, strerror(errno));
        goto err;
    }
    void *base = mmap((void *)range.start, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                      seg.fd, 0);
    if (base == MAP_FAILED) {
        shr_error("%s: cannot share global variables (mmap: %s); set SHIMMER_DATA_SEGMENT=0 "
                  "to use only the symmetric heap", routine, strerror(errno));
        goto err;
    }
    seg.base = base;
    seg.size = size;
    seg.addr.pid = getpid();
    seg.addr.fd = seg.fd;
    seg.addr.size = size;
    data_seg = seg;
    shr_debug(SHR_LOG_SHM, "data segment %p..%p (%zu bytes) shared", (void *)range.start,
              (void *)range.end, size);
    *seg_p = seg;
    return SHR_OK;

err:
    if (seg.fd >= 0) {
        close(seg.fd);
    }
    return SHR_ERR_IO;
}

void shr_shm_data_detach(shr_shm_seg_t *seg)
{
    /* The mapping stays: the program's globals live in it for the life of
     * the process (moving them back would be a second copy for nothing),
     * and the next attach, after a re-init, hands it out again.  Peers
     * unmapped it before this (their finalize or unwinding). */
    *seg = (shr_shm_seg_t){.fd = -1};
}
