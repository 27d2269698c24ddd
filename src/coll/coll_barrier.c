/*
 * coll_barrier.c -- barrier (team sync, active-set sync) algorithms.
 *
 *   dissem:  dissemination, ceil(log2 n) rounds; in round r a PE flags the
 *            PE 2^r ahead and waits for the one 2^r behind.  Fastest when
 *            every PE has a core (2 PEs: one cache line each way).
 *   central: arrivals count on member 0, which then releases everyone
 *            (on one node with one word of its own that all poll: one
 *            store instead of a cache-line transfer per member; 4 PEs on
 *            2 cores 1.88 us a barrier instead of 2.15, medians of 8
 *            interleaved runs of `oshrun -n 4 coll -x barrier -i 20000`
 *            from bench/).  Fewest hand-offs
 *            when PEs outnumber cores (auto picks it then).
 *   line:    teams of up to 8 PEs on this node: every member writes its
 *            epoch into its own word of ONE cache line (member 0's) and
 *            polls that line until every word has it.  Each write moves the
 *            line once and carries every earlier arrival with it, so 2 PEs
 *            meet in about half a cache-line ping-pong (separate flag lines
 *            cost an invalidation plus a re-read each).  Auto takes it when
 *            every PE has a core; oversubscribed, n writers contending for
 *            one line while their cores are shared is 20x slower than central.
 *
 * Teams: flags hold the team's barrier epoch and only grow, so back-to-back
 * barriers need no reset and a PE that runs ahead cannot confuse a slower
 * one.  Active sets: pSync must come back as it was, so flags are counters
 * (ADD, then the owner subtracts what it consumed); a PE running ahead into
 * the next barrier on the same pSync only leaves a count the next one takes.
 */
#include "coll/coll_int.h"
#include "core/check.h"

#define EPOCH_MODE(_c) ((_c)->psync == NULL)

static void flag_set(shr_coll_t *c, int member, size_t word, uint64_t value)
{
    shr_put_signal(NULL, shr_ctx_default, NULL, NULL, 0, &c->sync[word], value, SHMEM_SIGNAL_SET,
                   shr_coll_wpe(c, member), false);
}

void shr_coll_barrier_dissem(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, me = c->team->my_pe;

    if (!EPOCH_MODE(c) && n > (1 << SHR_CR_DISSEM_ROUNDS)) {
        shr_coll_barrier_central(c, a); /* more rounds than pSync has lines */
        return;
    }
    shr_coll_ran(c, shr_coll_barrier_dissem);
    if (EPOCH_MODE(c)) {
        for (int r = 0, dist = 1; dist < n; r++, dist <<= 1) {
            size_t word = SHR_TA_DISSEM + (size_t)r * SHR_SYNC_LINE;
            flag_set(c, (me + dist) % n, word, c->seq);
            shr_coll_wait_ge(c, &c->sync[word], c->seq);
        }
        return;
    }
    for (int r = 0, dist = 1; dist < n; r++, dist <<= 1) {
        shr_coll_add(c, (me + dist) % n, SHR_CR_DISSEM + (size_t)r, 1);
        shr_coll_take(c, SHR_CR_DISSEM + (size_t)r, 1);
    }
}

void shr_coll_barrier_central(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes, me = c->team->my_pe;
    (void)a;

    shr_coll_ran(c, shr_coll_barrier_central);
    /* member 0 gathers and releases: it leaves first, which is what a
     * rooted collective after a barrier wants (its root, usually member 0,
     * is already on its way when the others wake up) */
    if (EPOCH_MODE(c)) {
        if (me == 0) {
            shr_coll_wait_ge(c, &c->sync[SHR_TA_BAR_COUNT], c->seq * (uint64_t)(n - 1));
            if (c->all_local) {
                __atomic_store_n(&c->sync[SHR_TA_BAR_RELEASE], c->seq, __ATOMIC_RELEASE);
                return;
            }
            for (int member = 1; member < n; member++) {
                flag_set(c, member, SHR_TA_BAR_RELEASE, c->seq);
            }
            return;
        }
        shr_coll_add(c, 0, SHR_TA_BAR_COUNT, 1);
        if (c->all_local) {
            shr_coll_wait_ge(c, shr_ptr(&c->sync[SHR_TA_BAR_RELEASE], shr_coll_wpe(c, 0)), c->seq);
            return;
        }
        shr_coll_wait_ge(c, &c->sync[SHR_TA_BAR_RELEASE], c->seq);
        return;
    }
    /* counting: member 0 gathers, then releases */
    if (me == 0) {
        shr_coll_take(c, SHR_CW_BAR_CNT, (uint64_t)n - 1);
        for (int member = 1; member < n; member++) {
            shr_coll_add(c, member, SHR_CW_BAR_REL, 1);
        }
        return;
    }
    shr_coll_add(c, 0, SHR_CW_BAR_CNT, 1);
    shr_coll_take(c, SHR_CW_BAR_REL, 1);
}

/* Words of the shared line, one per member. */
#define LINE_MAX_PES SHR_SYNC_LINE

static bool line_usable(const shr_coll_t *c)
{
    return EPOCH_MODE(c) && c->team->n_pes <= LINE_MAX_PES && c->all_local;
}

static void barrier_auto(shr_coll_t *c, const shr_coll_args_t *a);

void shr_coll_barrier_line(shr_coll_t *c, const shr_coll_args_t *a)
{
    int n = c->team->n_pes;

    if (!line_usable(c)) {
        barrier_auto(c, a);
        return;
    }
    shr_coll_ran(c, shr_coll_barrier_line);
    /* members wait on member 0's memory: team destroy's barrier never comes
     * here (shr_coll_barrier_last), member 0 zeroes its area after it */
    uint64_t *line = shr_ptr(&c->sync[SHR_TA_LINE_BAR], shr_coll_wpe(c, 0));
    __atomic_store_n(&line[c->team->my_pe], c->seq, __ATOMIC_RELEASE);
    for (int m = 0; m < n; m++) {
        shr_coll_wait_ge(c, &line[m], c->seq);
    }
}

/* The job's state decides, so every PE makes the same choice. */
static void barrier_auto(shr_coll_t *c, const shr_coll_args_t *a)
{
    if (SHR_UNLIKELY(shr_g.has_remote) && shr_coll_hier_wanted(c)) {
        shr_coll_barrier_hier(c, a); /* members on several nodes (coll_hier.c) */
    } else if (shr_g.oversubscribed) {
        shr_coll_barrier_central(c, a);
    } else if (line_usable(c)) {
        shr_coll_barrier_line(c, a);
    } else {
        shr_coll_barrier_dissem(c, a);
    }
}

/* `algo`: NULL = the forced or automatic choice */
static void sync_run(const char *fn, shr_team_t *team, shr_coll_algo_fn_t algo)
{
    shr_coll_state_t *st = (shr_coll_state_t *)team->sync;
    uint64_t epoch = ++team->barrier_epoch;

    if (team->n_pes > 1) {
        shr_coll_t c = {.fn = fn, .team = team, .sync = team->sync, .seq = epoch,
                        .kind = SHR_COLL_BARRIER,
                        .all_local = shr_coll_team_local(team)};
        if (SHR_CHECKS_ON()) {
            team->sync[SHR_TA_DBG_CALL + SHR_DBG_KIND] = SHR_COLL_BARRIER + 1;
            __atomic_store_n(&team->sync[SHR_TA_DBG_CALL + SHR_DBG_EPOCH], epoch,
                             __ATOMIC_RELEASE);
        }
        if (algo != NULL) {
            algo(&c, NULL);
        } else {
            shr_coll_run(SHR_COLL_ID_BARRIER, barrier_auto, &c, NULL);
        }
        if (SHR_CHECKS_ON()) {
            team->sync[SHR_TA_DBG_CALL + SHR_DBG_KIND] = 0;
        }
    }
    /* everyone has left every data collective started before */
    st->last_free = st->seq;
}

void shr_coll_sync(const char *fn, shr_team_t *team)
{
    sync_run(fn, team, NULL);
}

void shr_coll_barrier_last(shr_team_t *team)
{
    /* dissemination: epoch flags in each member's own memory (central's
     * arrival count is cumulative, so it cannot follow other algorithms) */
    sync_run("shmem_team_destroy", team, shr_coll_barrier_dissem);
}

void shr_coll_barrier(shr_team_t *team)
{
    shr_coll_sync("the library's internal barrier (shmem_init, shmem_finalize, shmem_malloc, "
                  "shmem_free, shmem_team_destroy)", team);
}

void shr_coll_barrier_team(shr_team_t *team)
{
    shr_coll_sync("the barrier that recycles a team's collective state", team);
}

void shr_coll_barrier_aset(const char *fn, int PE_start, int logPE_stride, int PE_size,
                           long *pSync)
{
    shr_team_t view;
    shr_coll_t c;

    if (PE_size == 1) {
        return;
    }
    shr_coll_aset_begin(&c, &view, fn, PE_start, logPE_stride, PE_size, pSync,
                        SHR_COLL_BARRIER);
    shr_coll_run(SHR_COLL_ID_BARRIER, barrier_auto, &c, NULL);
    shr_coll_aset_end(&c);
}
