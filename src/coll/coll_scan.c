/*
 * coll_scan.c -- sum scans (1.6): inclusive dest_i = src_0 + ... + src_i,
 * exclusive dest_i = src_0 + ... + src_{i-1} and zeros on member 0.
 *
 *   eager  member i writes its source into a slot of every member after
 *          it; member j adds the slots of 0..j-1 (and its own source) in
 *          member order.  Not "full": member 0 hears from nobody.
 *   pull   members tell every later member their source is ready; member j
 *          adds the sources of 0..j-1 where they are (chunk by chunk), then
 *          tells every earlier member it is done with its source; a member
 *          returns when every later one is done.  "full".  In place, a
 *          member's result waits in a local buffer until the later members
 *          have read its source.
 * auto: eager up to SHIMMER_COLL_EAGER_SIZE bytes, pull otherwise.
 */
#include <stdlib.h>

#include "coll/coll_int.h"
#include "core/check.h"

#define CHUNK 4096

static void scan_auto(shr_coll_t *c, const shr_coll_args_t *a)
{
    size_t bytes = a->count * shr_dtype_size(a->dt);

    if (SHR_UNLIKELY(shr_g.has_remote) && shr_coll_hier_wanted(c)) {
        shr_coll_scan_hier(c, a); /* members on several nodes (coll_hier*.c) */
        return;
    }
    if (bytes <= shr_coll_eager_max() &&
        shr_coll_slot_size(c, bytes, (size_t)c->team->n_pes - 1) != 0) {
        shr_coll_scan_eager(c, a);
    } else {
        shr_coll_scan_pull(c, a);
    }
}

/* Members whose sources make my result: 0..me-1, and me if inclusive. */
static int scan_terms(const shr_coll_t *c, const shr_coll_args_t *a)
{
    return c->team->my_pe + (a->inclusive ? 1 : 0);
}

void shr_coll_scan_eager(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, me = c->team->my_pe;
    size_t bytes = a->count * shr_dtype_size(a->dt);
    size_t sw = shr_coll_slot_size(c, bytes, (size_t)n - 1);
    shr_coll_op_fn_t add = shr_coll_op_fn(a->dt, SHR_OP_SUM);
    SHR_COLL_SCRATCH uint64_t acc[SHR_COLL_REGION_SLOT_LINES * SHR_SYNC_LINE];
    int terms = scan_terms(c, a);

    if (sw == 0 || bytes > sizeof(acc)) {
        scan_auto(c, a);
        return;
    }
    shr_coll_ran(c, shr_coll_scan_eager);
    for (int m = me + 1; m < n; m++) {
        shr_coll_slot_send(c, m, shr_coll_slot_of(me, m), sw, 1, a->src, bytes);
    }
    if (terms == 0) {
        memset(a->dest, 0, bytes);
        return;
    }
    const void *x = NULL;
    for (int m = 0; m < terms; m++) {
        const void *y = a->src;
        if (m != me) {
            shr_coll_slot_wait_from(c, m, sw);
            y = shr_coll_slot_payload(c, shr_coll_slot_of(m, me), sw, bytes);
        }
        if (m == 0) {
            x = y;
            continue;
        }
        add(acc, x, y, a->count);
        x = acc;
    }
    memmove(a->dest, x, bytes);
    for (int m = 0; m < me; m++) {
        shr_coll_slot_clear(c, shr_coll_slot_of(m, me), sw, bytes);
    }
}

void shr_coll_scan_pull(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, me = c->team->my_pe;
    size_t es = shr_dtype_size(a->dt), bytes = a->count * es;
    size_t chunk = CHUNK / es * es;
    shr_coll_op_fn_t add = shr_coll_op_fn(a->dt, SHR_OP_SUM);
    int terms = scan_terms(c, a);
    bool in_place = a->dest == a->src && me < n - 1;
    char *out = a->dest;
    SHR_COLL_SCRATCH uint64_t buf[CHUNK / 8], acc[CHUNK / 8];

    shr_coll_ran(c, shr_coll_scan_pull);
    for (int m = me + 1; m < n; m++) {
        shr_coll_add(c, m, SHR_CW_READY, 1);
    }
    shr_coll_take(c, SHR_CW_READY, (uint64_t)me);
    if (in_place && terms > 0) {
        out = malloc(bytes);
        if (out == NULL) {
            shr_check_fail(c->fn, "out of memory for a %zu-byte in-place scan", bytes);
        }
    }
    for (size_t off = 0; off < bytes && terms > 0; off += chunk) {
        size_t len = bytes - off < chunk ? bytes - off : chunk;
        const char *sym = (const char *)a->src + off;
        for (int m = 0; m < terms; m++) {
            const void *y = sym;
            if (m != me) {
                y = shr_ptr(sym, shr_coll_wpe(c, m));
                if (y == NULL) {
                    shr_coll_get(c, buf, sym, len, m);
                    y = buf;
                }
            }
            if (m == 0) {
                memcpy(acc, y, len);
            } else {
                add(acc, acc, y, len / es);
            }
        }
        memcpy(out + off, acc, len);
    }
    if (terms == 0 && !in_place) {
        memset(a->dest, 0, bytes);
    }
    for (int m = 0; m < me; m++) {
        shr_coll_add(c, m, SHR_CW_DONE, 1);
    }
    shr_coll_take(c, SHR_CW_DONE, (uint64_t)(n - 1 - me));
    if (terms == 0 && in_place) {
        memset(a->dest, 0, bytes); /* the later members have read our source */
    }
    if (out != a->dest) {
        memcpy(a->dest, out, bytes);
        free(out);
    }
    c->full = true;
}

int shr_coll_scan(const char *fn, shr_team_t *team, void *dest, const void *src, size_t count,
                  shr_dtype_t dt, bool inclusive)
{
    shr_coll_args_t a = {.dest = dest, .src = src, .count = count, .dt = dt,
                         .op = SHR_OP_SUM, .inclusive = inclusive};
    shr_coll_t c;

    if (SHR_CHECKS_ON()) {
        shr_coll_sig_t sig = {
            .what = {"nelems", "type and inclusive/exclusive", "dest", "source"},
            .value = {count, (uint64_t)dt << 8 | inclusive, shr_coll_sym_name(dest),
                      shr_coll_sym_name(src)}};
        shr_coll_agree_team(fn, team, SHR_COLL_SCAN, &sig);
    }
    if (count == 0) {
        return 0;
    }
    if (team->n_pes == 1) {
        if (inclusive) {
            shr_coll_copy_local(dest, src, count * shr_dtype_size(dt));
        } else {
            memset(dest, 0, count * shr_dtype_size(dt));
        }
        return 0;
    }
    shr_coll_team_begin(&c, fn, team, SHR_COLL_SCAN);
    shr_coll_run(SHR_COLL_ID_SCAN, scan_auto, &c, &a);
    shr_coll_team_end(&c);
    return 0;
}
