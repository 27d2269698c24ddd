/*
 * coll_select.c -- the algorithm registry (coll_algos.def) and the
 * SHIMMER_COLL_<NAME>_ALGO variables that force one algorithm.
 *
 * The variables are resolved on first use; every PE sees the same
 * environment, so every PE makes the same choice.  An unknown name ends the
 * job with the list of valid ones.
 */
#include <stdio.h>
#include <string.h>

#include "coll/coll_int.h"
#include "core/check.h"
#include "core/env.h"
#include "util/log.h"

typedef struct algo_row {
    shr_coll_id_t id;
    const char *name;
    shr_coll_algo_fn_t fn;
} algo_row_t;

static const algo_row_t rows[] = {
#define SHR_COLL_NAME(_coll, _field)
#define SHR_COLL_ALGO(_coll, _name, _fn) {SHR_COLL_ID_##_coll, #_name, _fn},
#include "coll/coll_algos.def"
#undef SHR_COLL_ALGO
#undef SHR_COLL_NAME
};

static const char *const coll_names[SHR_COLL_ID_COUNT] = {
#define SHR_COLL_NAME(_coll, _field) #_coll,
#define SHR_COLL_ALGO(_coll, _name, _fn)
#include "coll/coll_algos.def"
#undef SHR_COLL_ALGO
#undef SHR_COLL_NAME
};

static const char *config_value(shr_coll_id_t id)
{
    switch (id) {
#define SHR_COLL_NAME(_coll, _field) case SHR_COLL_ID_##_coll: return shr_config._field;
#define SHR_COLL_ALGO(_coll, _name, _fn)
#include "coll/coll_algos.def"
#undef SHR_COLL_ALGO
#undef SHR_COLL_NAME
    default:
        return "auto";
    }
}

/* 0 = not resolved yet, 1 = auto, else row index + 2 */
static int resolved[SHR_COLL_ID_COUNT];

static SHR_COLD int resolve(shr_coll_id_t id, const char *fn)
{
    const char *want = config_value(id);
    char valid[256];
    size_t used = 0;

    if (want == NULL || want[0] == '\0' || strcmp(want, "auto") == 0) {
        return 1;
    }
    for (size_t i = 0; i < SHR_ARRAY_SIZE(rows); i++) {
        if (rows[i].id == id && strcmp(rows[i].name, want) == 0) {
            return (int)i + 2;
        }
    }
    used += (size_t)snprintf(valid, sizeof(valid), "auto");
    for (size_t i = 0; i < SHR_ARRAY_SIZE(rows) && used < sizeof(valid); i++) {
        if (rows[i].id == id) {
            used += (size_t)snprintf(valid + used, sizeof(valid) - used, ", %s", rows[i].name);
        }
    }
    shr_check_fail(fn, "SHIMMER_COLL_%s_ALGO is \"%s\", which is not an "
                   "algorithm of %s; use one of %s", coll_names[id], want, coll_names[id],
                   valid);
}

shr_coll_algo_fn_t shr_coll_forced(shr_coll_id_t id, const char *fn)
{
    int r = __atomic_load_n(&resolved[id], __ATOMIC_RELAXED);

    if (SHR_UNLIKELY(r == 0)) {
        r = resolve(id, fn);
        __atomic_store_n(&resolved[id], r, __ATOMIC_RELAXED);
    }
    return r == 1 ? NULL : rows[r - 2].fn;
}

/* The registry row of algorithm `fn`, or SHR_ARRAY_SIZE(rows). */
static size_t row_of(shr_coll_algo_fn_t fn)
{
    size_t r = 0;

    while (r < SHR_ARRAY_SIZE(rows) && rows[r].fn != fn) {
        r++;
    }
    return r;
}

typedef enum { RAN_FORCED, RAN_AUTO, RAN_INSTEAD, RAN_LEADERS, RAN_REASONS } ran_reason_t;

SHR_COLD void shr_coll_ran_log(const shr_coll_t *c, shr_coll_algo_fn_t self)
{
    static int logged[SHR_ARRAY_SIZE(rows)][RAN_REASONS];
    size_t r = row_of(self);

    if (r == SHR_ARRAY_SIZE(rows)) {
        shr_warn_once("%s: a collective algorithm that is not in coll_algos.def ran", c->fn);
        return;
    }
    shr_coll_id_t id = rows[r].id;
    shr_coll_algo_fn_t forced = c->nested ? NULL : shr_coll_forced(id, c->fn);
    ran_reason_t why = c->nested ? RAN_LEADERS : forced == NULL ? RAN_AUTO
                       : forced == self ? RAN_FORCED : RAN_INSTEAD;
    char reason[128];

    if (__atomic_exchange_n(&logged[r][why], 1, __ATOMIC_RELAXED)) {
        return;
    }
    switch (why) {
    case RAN_FORCED:
        snprintf(reason, sizeof(reason), "forced by SHIMMER_COLL_%s_ALGO", coll_names[id]);
        break;
    case RAN_AUTO:
        snprintf(reason, sizeof(reason), "automatic choice");
        break;
    case RAN_INSTEAD:
        snprintf(reason, sizeof(reason), "SHIMMER_COLL_%s_ALGO forces %s, which does not run "
                 "this call", coll_names[id], rows[row_of(forced)].name);
        break;
    default:
        snprintf(reason, sizeof(reason), "the leaders' phase of a hierarchical call");
        break;
    }
    shr_debug(SHR_LOG_COLL, "%s: algorithm %s/%s runs (%s; %d PEs)", c->fn, coll_names[id],
              rows[r].name, reason, c->team->n_pes);
}

size_t shr_coll_eager_max(void)
{
    return shr_config.coll_eager_size;
}
