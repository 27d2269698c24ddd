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

/* Pages of [start, end) that hold data: every file-backed page, and the .bss
 * pages that are present or swapped (from /proc/self/pagemap); untouched
 * .bss pages are zero in the memfd too.  Copies them into `dst`. */
static void copy_touched(const data_range_t *range, char *dst)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t bss = range->file_end < range->end ? range->file_end : range->end;
    int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

    memcpy(dst, (void *)range->start, bss - range->start);
    for (uintptr_t p = bss; p < range->end; p += page) {
        uint64_t entry = UINT64_MAX; /* unknown: copy */
        if (pagemap >= 0 &&
            pread(pagemap, &entry, sizeof(entry), (off_t)(p / page * sizeof(entry))) !=
                sizeof(entry)) {
            entry = UINT64_MAX;
        }
        if (entry & (3ull << 62)) { /* bit 63 present, bit 62 swapped */
            memcpy(dst + (p - range->start), (void *)p, page);
        }
    }
    if (pagemap >= 0) {
        close(pagemap);
    }
}

shr_status_t shr_shm_data_attach(const char *routine, shr_shm_seg_t *seg_p)
{
    data_range_t range = {0};
    shr_shm_seg_t seg;
    shr_status_t status;

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
    status = shr_shm_seg_create(SHR_SHM_MEMFD, NULL, size, (size_t)sysconf(_SC_PAGESIZE), 1,
                                "data segment", routine, &seg);
    if (status != SHR_OK) {
        return status;
    }
    /* Copy, then swap the mapping in place.  No global may be written in
     * between (that write would be lost): only locals are used here. */
    copy_touched(&range, seg.base);
    /* the system call itself: UCX's memory hooks (libucm, loaded with the
     * UCX transport) replace mremap with a version that drops the new
     * address, and with MREMAP_FIXED that moves the segment to 0 */
    void *moved = (void *)syscall(SYS_mremap, seg.base, size, size,
                                  MREMAP_MAYMOVE | MREMAP_FIXED, (void *)range.start);
    if (moved == MAP_FAILED) {
        shr_error("%s: cannot share global variables (mremap: %s); set SHIMMER_DATA_SEGMENT=0 "
                  "to use only the symmetric heap", routine, strerror(errno));
        shr_shm_seg_destroy(&seg);
        return SHR_ERR_IO;
    }
    seg.base = moved;
    data_seg = seg;
    shr_debug(SHR_LOG_SHM, "data segment %p..%p (%zu bytes) shared", (void *)range.start,
              (void *)range.end, size);
    *seg_p = seg;
    return SHR_OK;
}
