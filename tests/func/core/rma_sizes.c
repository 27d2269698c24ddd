/* rma_sizes.c -- putmem/getmem (blocking and nbi) from 0 bytes to 8 MiB,
 * at unaligned offsets, into heap, global and static targets; zero-length
 * transfers with NULL pointers. */
#include "harness.h"

#define MAX_BYTES (8u << 20)
#define SLACK 64

unsigned char global_buf[1 << 16];         /* .bss, global */
static unsigned char static_buf[1 << 16];  /* .bss, static */
static unsigned char data_buf[4096] = {1}; /* .data */

static void fill(unsigned char *p, size_t n, int pe, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = test_byte(pe, i, seed);
    }
}

static void check(const unsigned char *p, size_t n, int pe, unsigned seed, const char *what,
                  size_t len, size_t off)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != test_byte(pe, i, seed)) {
            CHECK(0, "%s: %zu bytes at offset %zu: byte %zu is %u, want %u", what, len, off, i,
                  p[i], test_byte(pe, i, seed));
        }
    }
}

/* One put/get round on a target of `cap` bytes (symmetric `dst`). */
static void round_trip(unsigned char *dst, unsigned char *src, size_t cap, size_t len,
                       size_t off, int nbi, const char *what)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    unsigned seed = (unsigned)(len * 131 + off * 7 + (unsigned)nbi);

    if (len + off > cap) {
        return;
    }
    fill(src + off, len, me, seed);
    memset(dst, 0xEE, cap < len + off + SLACK ? cap : len + off + SLACK);
    shmem_barrier_all();
    if (nbi) {
        shmem_putmem_nbi(dst + off, src + off, len, right);
        shmem_quiet();
    } else {
        shmem_putmem(dst + off, src + off, len, right);
    }
    shmem_barrier_all();
    check(dst + off, len, left, seed, what, len, off);
    /* bytes around the transfer untouched */
    for (size_t i = 0; i < off; i++) {
        CHECK(dst[i] == 0xEE, "%s: put of %zu at %zu wrote before its start", what, len, off);
    }
    if (len + off < cap) {
        CHECK(dst[len + off] == 0xEE, "%s: put of %zu at %zu wrote past its end", what, len, off);
    }
    shmem_barrier_all();
    /* get it back from the right neighbour, whose dst holds my data */
    memset(src + off, 0, len);
    if (nbi) {
        shmem_getmem_nbi(src + off, dst + off, len, right);
        shmem_quiet();
    } else {
        shmem_getmem(src + off, dst + off, len, right);
    }
    check(src + off, len, me, seed, what, len, off);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    unsigned char *h_src = shmem_malloc(MAX_BYTES + SLACK);
    unsigned char *h_dst = shmem_malloc(MAX_BYTES + SLACK);
    static unsigned char local_src[sizeof(global_buf)]; /* source need not be symmetric */
    CHECK(h_src != NULL && h_dst != NULL, "allocation");

    /* sizes 0, 1..16 and powers of two up to 8 MiB, plus odd neighbours */
    for (size_t len = 0; len <= MAX_BYTES; len = len < 16 ? len + 1 : len * 2) {
        size_t sizes[3] = {len, len + 3, len > 5 ? len - 5 : len};
        for (int k = 0; k < 3; k++) {
            if (sizes[k] > MAX_BYTES) {
                continue;
            }
            for (size_t off = 0; off < 8; off += (sizes[k] > 4096 ? 7 : 1)) {
                round_trip(h_dst, h_src, MAX_BYTES + SLACK, sizes[k], off, 0, "heap");
                round_trip(h_dst, h_src, MAX_BYTES + SLACK, sizes[k], off, 1, "heap nbi");
            }
            round_trip(global_buf, local_src, sizeof(global_buf), sizes[k], 3, 0, "global");
            round_trip(static_buf, local_src, sizeof(static_buf), sizes[k], 5, 1, "static");
            round_trip(data_buf, local_src, sizeof(data_buf), sizes[k], 1, 0, ".data");
        }
    }
    /* mixed: heap source into a global target and back */
    round_trip(global_buf, h_src, sizeof(global_buf), 1000, 0, 0, "heap->global");

    /* zero-length transfers are valid with any pointer */
    shmem_putmem(NULL, NULL, 0, 0);
    shmem_getmem(NULL, NULL, 0, 0);
    shmem_putmem_nbi(NULL, NULL, 0, 0);
    shmem_getmem_nbi(NULL, NULL, 0, 0);
    shmem_int_put(NULL, NULL, 0, 0);
    shmem_iput64(NULL, NULL, 1, 1, 0, 0);
    shmem_quiet();

    shmem_free(h_src);
    shmem_free(h_dst);
    return test_pass("rma sizes 0..8 MiB, unaligned, heap/global/static");
}
