/*
 * coll_slot_test.c -- unit test of the slot helpers (coll_int.h): for every
 * slot area from 1 line to a team region's, every slot count, every payload
 * length a slot holds and every slot, the payload starts 16-byte aligned
 * (reductions combine long double and complex payloads in place), inside
 * its slot, ends before the header and less than 16 bytes from it, shares
 * the header's line up to 56 bytes, and shr_coll_slot_clear zeroes it all.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "coll/coll_int.h"
#include "util/expect.h"

#define ALIGN 16 /* the strongest alignment of a reduced type, checked in main */

static _Alignas(SHR_SYNC_LINE_BYTES) shr_coll_region_t region;

static size_t line_of(const void *p)
{
    return (size_t)((uintptr_t)p / SHR_SYNC_LINE_BYTES);
}

/* Slot i of nslots of sw words holding len bytes; false on the first fault. */
static bool check_slot(shr_coll_t *c, size_t nslots, size_t sw, size_t i, size_t len)
{
    uint64_t *slot = SHR_COLL_SLOT(c, i, sw);
    const unsigned char *p = shr_coll_slot_payload(c, i, sw, len);
    const unsigned char *header = (const unsigned char *)&slot[sw - 1];
    bool ok = (uintptr_t)p % ALIGN == 0 && p >= (const unsigned char *)slot &&
              p + len <= header && header - (p + len) < ALIGN &&
              (len > 56 || line_of(p) == line_of(header)) &&
              (sw > SHR_SYNC_LINE || line_of(slot) == line_of(header)) &&
              &slot[sw] <= &c->sync[SHR_CR_SLOTS + c->slot_words];

    if (ok && (i == 0 || i == nslots - 1)) {
        memset((void *)(uintptr_t)p, 0xa5, len);
        slot[sw - 1] = 1;
        shr_coll_slot_clear(c, i, sw, len);
        for (size_t w = 0; w < sw; w++) {
            ok = ok && slot[w] == 0;
        }
    }
    if (!ok) {
        fprintf(stderr, "slot %zu of %zu (%zu words, area of %zu lines), %zu B: payload at "
                "word %td of the slot, %td B before the header, address %% %d = %zu\n",
                i, nslots, sw, c->slot_words / SHR_SYNC_LINE,
                len, (const uint64_t *)(const void *)p - slot, header - p, ALIGN,
                (size_t)((uintptr_t)p % ALIGN));
        memset(slot, 0, sw * sizeof(uint64_t));
    }
    EXPECT(ok);
    return ok;
}

int main(void)
{
    /* 16 bytes align every type a reduction combines */
#define SHR_DTYPE(_name, _ctype, _kind) EXPECT(ALIGN % _Alignof(_ctype) == 0);
#include "core/gen/dtype.def"
#undef SHR_DTYPE
    shr_coll_t c = {.sync = (uint64_t *)(void *)&region};
    size_t checked = 0;

    for (size_t lines = 1; lines <= SHR_COLL_REGION_SLOT_LINES; lines++) {
        c.slot_words = lines * SHR_SYNC_LINE;
        for (size_t nslots = 1; nslots <= c.slot_words / 2; nslots++) {
            bool ok = true;
            for (size_t len = 1; ok; len++) {
                size_t sw = shr_coll_slot_size(&c, len, nslots);
                if (sw == 0) {
                    EXPECT(len > 8); /* two-word slots always fit */
                    break;
                }
                for (size_t i = 0; ok && i < nslots; i++, checked++) {
                    ok = check_slot(&c, nslots, sw, i, len);
                }
            }
            if (!ok) {
                return failures;
            }
        }
    }
    printf("%zu slot placements checked\n", checked);
    return failures;
}
