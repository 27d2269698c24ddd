/*
 * coll_debug.c -- the slow half of waiting in a collective, and the
 * debug-mode (SHR_CHECKS_ON) diagnostics: hang reports naming the PEs
 * that have not arrived, and cross-PE agreement of arguments.
 *
 * Every PE records the collective it is in, in a line of its own memory
 * that peers read only when something looks wrong: for a team, the team
 * area's debug line (kind, last data-collective number, last barrier
 * epoch); for an active set, WORLD's debug line (kind, pSync).  A waiter
 * that has not moved for SHIMMER_HANG_TIMEOUT seconds reads the members'
 * lines and warns, naming the routine, the team and the members that are
 * not in this call (and what they are in instead), then keeps waiting:
 * a slow PE is not an error, and the report repeats every timeout.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

#include "coll/coll_int.h"
#include "core/check.h"
#include "core/env.h"
#include "util/log.h"

static const char *const kind_names[] = {
#define SHR_COLL_KIND(_kind, _name) _name,
#include "coll/coll_kinds.def"
#undef SHR_COLL_KIND
};

const char *shr_coll_kind_name(shr_coll_kind_t kind)
{
    return (unsigned)kind < SHR_COLL_KIND_COUNT ? kind_names[kind] : "collective";
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* "SHMEM_TEAM_WORLD", "a team of 4 PEs (world PEs 1, 3, ...)", "the active
 * set (PE_start 0, logPE_stride 1, PE_size 4)" */
static void describe_members(const shr_coll_t *c, char *out, size_t size)
{
    const shr_team_t *t = c->team;

    if (c->psync != NULL) {
        int log = 0;
        while ((1 << log) < t->stride) {
            log++;
        }
        snprintf(out, size, "the active set (PE_start %d, logPE_stride %d, PE_size %d)",
                 t->start, log, t->n_pes);
    } else if (t == shr_team_world) {
        snprintf(out, size, "SHMEM_TEAM_WORLD");
    } else if (t == shr_team_shared) {
        snprintf(out, size, "SHMEM_TEAM_SHARED");
    } else if (t->world_pes == NULL) {
        snprintf(out, size, "a team of %d PEs (world PE %d + stride %d)", t->n_pes, t->start,
                 t->stride);
    } else {
        snprintf(out, size, "a team of %d PEs", t->n_pes);
    }
}

/* What member m is doing, or NULL if it is in this call. */
static const char *member_state(const shr_coll_t *c, int m, char *buf, size_t size)
{
    uint64_t rec[8];
    int pe = shr_coll_wpe(c, m);

    if (c->psync != NULL) {
        shr_rma_get(NULL, shr_ctx_default, rec, &shr_team_world->sync[SHR_TA_DBG_CALL], sizeof(rec),
                    pe, false);
        uint64_t kind = rec[SHR_DBG_ASET_KIND];
        if (kind == (uint64_t)c->kind + 1 && rec[SHR_DBG_ASET_PSYNC] == shr_coll_sym_name(c->psync)) {
            return NULL;
        }
        if (kind == 0) {
            return "not in an active-set collective";
        }
        snprintf(buf, size, "in an active-set %s%s", shr_coll_kind_name((shr_coll_kind_t)(kind - 1)),
                 kind == (uint64_t)c->kind + 1 ? " with another pSync" : "");
        return buf;
    }
    shr_rma_get(NULL, shr_ctx_default, rec, &c->team->sync[SHR_TA_DBG_CALL], sizeof(rec), pe, false);
    bool barrier = c->kind == SHR_COLL_BARRIER;
    uint64_t reached = barrier ? rec[SHR_DBG_EPOCH] : rec[SHR_DBG_SEQ];
    if (reached >= c->seq) {
        return NULL;
    }
    uint64_t kind = rec[SHR_DBG_KIND];
    if (kind == 0) {
        snprintf(buf, size, "not in a collective of this team; it has entered %" PRIu64
                 " of its %s", reached, barrier ? "barriers" : "data collectives");
    } else {
        snprintf(buf, size, "in a %s of this team, at %s %" PRIu64,
                 shr_coll_kind_name((shr_coll_kind_t)(kind - 1)),
                 barrier ? "barrier" : "data collective", reached);
    }
    return buf;
}

static SHR_COLD void hang_report(shr_coll_t *c, uint64_t waited_ns)
{
    char who[160], line[512], state[160];
    size_t used = 0;
    int missing = 0, listed = 0;

    describe_members(c, who, sizeof(who));
    for (int m = 0; m < c->team->n_pes; m++) {
        if (m == c->team->my_pe) {
            continue;
        }
        const char *what = member_state(c, m, state, sizeof(state));
        if (what == NULL) {
            continue;
        }
        missing++;
        if (listed < 8 && used < sizeof(line)) {
            used += (size_t)snprintf(line + used, sizeof(line) - used, "%sPE %d (%s)",
                                     listed ? ", " : "", shr_coll_wpe(c, m), what);
            listed++;
        }
    }
    if (missing == 0) {
        shr_warn("%s: has waited %" PRIu64 " s on %s; every member has arrived, one of them "
                 "may be stopped or very slow", c->fn, (uint64_t)(waited_ns / 1000000000u), who);
        return;
    }
    shr_warn("%s: has waited %" PRIu64 " s on %s: %d PE(s) have not arrived: %s%s; every "
             "member must call the same collectives in the same order (SHIMMER_HANG_TIMEOUT "
             "sets this delay)", c->fn, (uint64_t)(waited_ns / 1000000000u), who, missing, line,
             missing > listed ? ", ..." : "");
}

/* How long a wait polls while the member it waits for runs on another CPU
 * (PEs outnumbering CPUs): about two of heat2d's steps at 4 PEs. */
#define SHR_COLL_POLL_RUNNING_NS 10000u

/* This PE's word that tells peers whether it runs (shr_coll_state_t). */
static uint64_t *running_word(void)
{
    return &shr_team_world->sync[SHR_CS_RUNNING];
}

/* Does member `from` run, on a CPU other than this PE's?  Its word says
 * so until it yields in a collective's wait; a member on this PE's CPU
 * cannot run while this PE does, and needs it to yield. */
static bool runs_elsewhere(const shr_coll_t *c, int from)
{
    const uint64_t *word = shr_ptr(running_word(), shr_coll_wpe(c, from));
    uint64_t cpu = word != NULL ? __atomic_load_n(word, __ATOMIC_RELAXED) : 0;

    return cpu != 0 && cpu != (uint64_t)sched_getcpu() + 1;
}

/* PEs outnumbering CPUs: poll while `from` runs elsewhere, for at most
 * SHR_COLL_POLL_RUNNING_NS; its signal then comes without a yield, and the
 * PEs sharing this CPU, which yielded it to this one, are not handed it back
 * only to find this wait's answer not there yet. */
static bool poll_while_running(const shr_coll_t *c, const uint64_t *addr, uint64_t value,
                               int from, uint64_t *seen_p)
{
    uint64_t start = 0, seen;

    for (unsigned round = 0; runs_elsewhere(c, from); round++) {
        for (int i = 0; i < 16; i++) {
            if ((seen = __atomic_load_n(addr, __ATOMIC_ACQUIRE)) >= value) {
                *seen_p = seen;
                return true;
            }
            shr_cpu_relax();
        }
        uint64_t now = now_ns();
        start = round == 0 ? now : start;
        if (now - start >= SHR_COLL_POLL_RUNNING_NS) {
            break;
        }
    }
    return false;
}

uint64_t shr_coll_wait_slow(shr_coll_t *c, const uint64_t *addr, uint64_t value, int from)
{
    shr_waiter_t waiter = SHR_WAITER_ON(NULL, addr, sizeof(*addr));
    uint64_t seen, since = 0;
    unsigned checked = 0;

    if (shr_g.oversubscribed) {
        if (from >= 0 && poll_while_running(c, addr, value, from, &seen)) {
            return seen;
        }
        __atomic_store_n(running_word(), 0, __ATOMIC_RELAXED);
    }

    /* a collective has nothing to overlap with its wait: when PEs outnumber
     * cores, the PE it waits for may need this very core, so yield at once
     * (barriers on 2 cores: 4 PEs 3.6 us instead of 4.4, 8 PEs 11.5 instead
     * of 13.5, 16 PEs 23.5 instead of 27; the same for every collective,
     * whose slot waits each spun anew: docs/collectives.md) */
    if (shr_g.oversubscribed) {
        waiter.spins = shr_g.wait_spin;
    }

    while ((seen = __atomic_load_n(addr, __ATOMIC_ACQUIRE)) < value) {
        shr_waiter_pause(&waiter);
        if (SHR_CHECKS_ON() && waiter.yields != checked &&
            (waiter.yields & 63) == 0) {
            checked = waiter.yields;
            uint64_t now = now_ns();
            if (since == 0) {
                since = now;
            } else if (now - since >= (uint64_t)shr_config.hang_timeout * 1000000000ull) {
                hang_report(c, now - since);
                since = now;
            }
        }
    }
    if (shr_g.oversubscribed) {
        __atomic_store_n(running_word(), (uint64_t)sched_getcpu() + 1, __ATOMIC_RELAXED);
    }
    return seen;
}

/* ---- argument agreement ----
 * Each member publishes (kind, values) in its debug-args line, all arrive,
 * each compares with member 0's, all arrive again (so member 0's line is
 * not overwritten while others read it). */

#define ARGS_WORDS 6 /* the kind, the values, this PE's bytes (sig->blocks) */

/* sig->blocks, between the two arrivals: this PE's offset and the total
 * from every member's bytes, then where the sources are (shr_coll_sig_t).
 * A member in another collective is left to the kind check. */
static SHR_COLD void check_blocks(shr_coll_t *c, const uint64_t *line, const shr_coll_sig_t *sig,
                                  const char *who)
{
    int n = c->team->n_pes, me = c->team->my_pe;
    uint64_t before = 0, total = 0, src0 = line[2], w[ARGS_WORDS];

    for (int m = 0; m < n; m++) {
        if (m == me) {
            memcpy(w, line, sizeof(w));
        } else {
            shr_rma_get(NULL, shr_ctx_default, w, line, sizeof(w), shr_coll_wpe(c, m), false);
        }
        if (w[0] != line[0]) {
            return;
        }
        src0 = m == 0 ? w[2] : src0;
        before += m < me ? w[5] : 0;
        total += w[5];
    }
    uintptr_t dest = (uintptr_t)sig->dest, src = (uintptr_t)sig->src;
    bool mine = src == dest + before, first = src0 == line[1]; /* member 0's is at byte 0 */
    if (sig->len == 0 && before == total) {
        mine = first; /* an empty block at the end: its address is also the next array's */
    }
    if (!mine && sig->len != 0 && src < dest + total && dest < src + sig->len) {
        shr_check_fail(c->fn, "source %p (%zu bytes) overlaps dest %p (%" PRIu64 " bytes) but "
                       "is not this PE's block, which starts at byte %" PRIu64 "; pass source "
                       "= dest + %" PRIu64 " bytes (in place) or separate arrays", sig->src,
                       sig->len, sig->dest, total, before, before);
    }
    if (mine != first) {
        shr_check_fail(c->fn, "PE %d passes %s but PE %d of %s does %s; pass every member's "
                       "block of dest as its source (in place) or one separate source on all",
                       shr_g.my_pe, mine ? "its block of dest as source (in place)"
                                         : "a separate source",
                       shr_coll_wpe(c, 0), who, first ? "it in place" : "not");
    }
    if (!mine && src0 != line[2]) {
        shr_check_fail(c->fn, "source is %" PRIu64 " on PE %d but %" PRIu64 " on PE %d of %s; "
                       "every member must pass the same source, or each its block of dest "
                       "(in place)", line[2], shr_g.my_pe, src0, shr_coll_wpe(c, 0), who);
    }
}

static void agree_run(shr_coll_t *c, uint64_t *line, const shr_coll_sig_t *sig)
{
    uint64_t theirs[ARGS_WORDS];
    char who[160];

    line[0] = (uint64_t)c->kind + 1;
    for (int i = 0; i < 4; i++) {
        line[1 + i] = sig->value[i];
    }
    line[5] = sig->len;
    shr_coll_sync_all(c, SHR_CW_AGREE1);
    describe_members(c, who, sizeof(who));
    if (sig->blocks) {
        check_blocks(c, line, sig, who);
    }
    if (c->team->my_pe != 0) {
        shr_rma_get(NULL, shr_ctx_default, theirs, line, sizeof(theirs), shr_coll_wpe(c, 0), false);
        if (theirs[0] != line[0]) {
            shr_check_fail(c->fn, "PE %d called a %s on %s while PE %d called a %s; every "
                           "member must call the same collectives in the same order",
                           shr_g.my_pe, shr_coll_kind_name(c->kind), who, shr_coll_wpe(c, 0),
                           shr_coll_kind_name((shr_coll_kind_t)(theirs[0] - 1)));
        }
        for (int i = 0; i < 4; i++) {
            if (sig->what[i] != NULL && theirs[1 + i] != line[1 + i]) {
                shr_check_fail(c->fn, "%s is %" PRIu64 " on PE %d but %" PRIu64 " on PE %d "
                               "of %s; every member must pass the same %s", sig->what[i],
                               line[1 + i], shr_g.my_pe, theirs[1 + i], shr_coll_wpe(c, 0),
                               who, sig->what[i]);
            }
        }
    }
    shr_coll_sync_all(c, SHR_CW_AGREE2);
}

void shr_coll_agree_team(const char *fn, shr_team_t *team, shr_coll_kind_t kind,
                         const shr_coll_sig_t *sig)
{
    shr_coll_t c;

    if (team->n_pes == 1) {
        return;
    }
    shr_coll_team_begin(&c, fn, team, kind);
    c.full = true;
    agree_run(&c, &team->sync[SHR_TA_DBG_ARGS], sig);
    shr_coll_team_end(&c);
}

void shr_coll_agree_aset(const char *fn, int PE_start, int logPE_stride, int PE_size,
                         long *pSync, shr_coll_kind_t kind, const shr_coll_sig_t *sig)
{
    shr_team_t view;
    shr_coll_t c;

    if (PE_size == 1) {
        return;
    }
    shr_coll_aset_begin(&c, &view, fn, PE_start, logPE_stride, PE_size, pSync, kind);
    agree_run(&c, &shr_team_world->sync[SHR_TA_DBG_ARGS], sig);
    shr_coll_aset_end(&c);
}
