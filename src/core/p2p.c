/*
 * p2p.c -- the multi-variable wait/test forms (spec 9.11.2-9.11.14).
 *
 * Empty sets (nelems 0 or every entry excluded): test_all/wait_all 1,
 * any SIZE_MAX, some 0 -- the 1.6 erratum.  Scans start at a rotating
 * position so that repeated _any/_some calls cannot starve an index.
 */
#include "core/p2p_inline.h"

static __thread size_t scan_start;

static bool satisfied(const void *ivars, size_t i, int cmp, const void *values, bool vector,
                      shr_dtype_t dt)
{
    size_t size = shr_dtype_size(dt);
    const char *value = (const char *)values + (vector ? i * size : 0);
    return shr_p2p_test((const char *)ivars + i * size, cmp, value, dt);
}

size_t shr_p2p_test_set(shr_wait_kind_t kind, const void *ivars, size_t nelems, size_t *indices,
                        const int *status, int cmp, const void *values, bool vector,
                        shr_dtype_t dt)
{
    size_t start = nelems ? scan_start++ % nelems : 0, count = 0;

    for (size_t k = 0; k < nelems; k++) {
        size_t i = kind == SHR_WAIT_ALL ? k : (start + k) % nelems;
        if (status != NULL && status[i] != 0) {
            continue;
        }
        bool ok = satisfied(ivars, i, cmp, values, vector, dt);
        switch (kind) {
        case SHR_WAIT_ALL:
            if (!ok) {
                return 0;
            }
            break;
        case SHR_WAIT_ANY:
            if (ok) {
                return i;
            }
            break;
        case SHR_WAIT_SOME:
            if (ok) {
                indices[count++] = i;
            }
            break;
        }
    }
    return kind == SHR_WAIT_ALL ? 1 : kind == SHR_WAIT_ANY ? SIZE_MAX : count;
}

size_t shr_p2p_wait_set(shr_wait_kind_t kind, const void *ivars, size_t nelems, size_t *indices,
                        const int *status, int cmp, const void *values, bool vector,
                        shr_dtype_t dt)
{
    shr_waiter_t waiter = SHR_WAITER_INIT(NULL);
    size_t active = 0;

    for (size_t i = 0; i < nelems; i++) {
        active += status == NULL || status[i] == 0;
    }
    if (active == 0) {
        return kind == SHR_WAIT_ALL ? 1 : kind == SHR_WAIT_ANY ? SIZE_MAX : 0;
    }
    for (;;) {
        size_t found = shr_p2p_test_set(kind, ivars, nelems, indices, status, cmp, values,
                                        vector, dt);
        if ((kind == SHR_WAIT_ALL && found == 1) || (kind == SHR_WAIT_ANY && found != SIZE_MAX) ||
            (kind == SHR_WAIT_SOME && found > 0)) {
            return found;
        }
        shr_waiter_pause(&waiter);
    }
}
