/*
 * init.c -- bringing a PE up and down: configuration, bootstrap, the
 * symmetric segments, the peer table, teams.  The order of init is the
 * reverse of finalize; both are collective over all PEs.
 */
#include "core/state.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include <shmem_defs.h>

#include "boot/boot.h"
#include "coll/coll.h"
#include "core/env.h"
#include "core/prof.h"
#include "core/remote.h"
#include "core/rma_inline.h"
#include "core/share.h"
#include "core/stall.h"
#include "core/watch.h"
#include "core/team.h"
#include "transport/shm/shm.h"
#include "util/log.h"
#include "util/str.h"

/* Checks are on until init has read the configuration, so a routine called
 * before shmem_init is reported instead of crashing. */
shr_state_t shr_g = {.check_gate = 1, .wait_spin = 64};
SHR_PLUGIN_EXPORT(g);

/* What every PE tells the others at init (one allgather). */
typedef struct pe_card {
    uint64_t node_id;           /* same value = same node: may share memory */
    uint64_t machine_id;        /* same value = same kernel: shares the CPUs (network-
                                   namespace "nodes" of one machine do) */
    uint64_t cpus[16];          /* CPUs this PE may run on (bit mask, CPUs 0..1023) */
    char host[64];
    size_t heap_size, internal_size;
    size_t data_size;           /* 0: global variables not shared */
    shr_shm_seg_addr_t heap, data;
} pe_card_t;

static shr_shm_seg_t my_heap = {.fd = -1};
static shr_shm_seg_t my_data = {.fd = -1};

static uint64_t fnv1a(uint64_t hash, const char *text)
{
    for (; *text != '\0'; text++) {
        hash = (hash ^ (unsigned char)*text) * 0x100000001b3ull;
    }
    return hash;
}

/* Host name plus kernel boot id: network-namespace "hosts" on one machine
 * have their own names (and must talk over the network), real machines
 * have their own boot ids.  The name is the starter's when it gives one
 * (PMIx's PMIX_HOSTNAME), so PEs agree with the launcher on nodes. */
static uint64_t node_identity(uint64_t *machine_p)
{
    shr_boot_node_t node;

    char boot_id[64] = "";
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);

    if (fd >= 0) {
        ssize_t n = read(fd, boot_id, sizeof(boot_id) - 1);
        boot_id[n > 0 ? n : 0] = '\0';
        close(fd);
    }
    shr_boot_node(&node);
    *machine_p = fnv1a(0xcbf29ce484222325ull, boot_id);
    return fnv1a(fnv1a(0xcbf29ce484222325ull, node.name[0] != '\0' ? node.name : shr_g.host),
                 boot_id);
}

void *shr_internal_record(const char *routine, size_t size, const char *what)
{
    size_t offset;

    if (shr_heap_alloc(&shr_g.internal_heap, size, SHR_CACHE_LINE, &offset) != SHR_OK) {
        shr_error("%s: out of internal heap for %s; raise SHIMMER_INTERNAL_HEAP_SIZE", routine,
                  what);
        return NULL;
    }
    return shr_internal_addr(offset);
}

static size_t page_round(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (bytes + page - 1) & ~(page - 1);
}

static void configure_logging(void)
{
    unsigned cats;

    shr_log_level = shr_config.debug && shr_config.log_level < SHR_LOG_DEBUG ? SHR_LOG_DEBUG
                                                                             : shr_config.log_level;
    if (shr_log_parse_cats(shr_config.log_categories, &cats)) {
        shr_log_cats = cats;
    } else {
        shr_warn("SHIMMER_LOG_CATEGORIES=%s names an unknown category; logging all",
                 shr_config.log_categories);
    }
    if (shr_config.log_file[0] != '\0') {
        shr_log_set_file(shr_config.log_file);
    }
}

/* The CPUs this process may run on (a launcher may have bound it). */
static void cpu_mask(uint64_t mask[16])
{
    cpu_set_t set;

    memset(mask, 0, 16 * sizeof(uint64_t));
    if (sched_getaffinity(0, sizeof(set), &set) != 0) {
        CPU_ZERO(&set);
        for (long cpu = 0; cpu < sysconf(_SC_NPROCESSORS_ONLN) && cpu < CPU_SETSIZE; cpu++) {
            CPU_SET(cpu, &set);
        }
    }
    for (int cpu = 0; cpu < 1024 && cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &set)) {
            mask[cpu / 64] |= 1ull << (cpu % 64);
        }
    }
}

/* CPUs that the PEs of `pe`'s machine (one kernel, which may host several
 * network-namespace nodes) may use together, and how many PEs it runs.
 * (Bound PEs have one CPU each, which is not oversubscription: hence the
 * union.) */
static int machine_cpus(const pe_card_t *cards, int n_pes, int pe, int *on_node_p)
{
    uint64_t cpus[16] = {0};
    int on_node = 0, n_cpus = 0;

    for (int peer = 0; peer < n_pes; peer++) {
        if (cards[peer].machine_id == cards[pe].machine_id) {
            on_node++;
            for (int w = 0; w < 16; w++) {
                cpus[w] |= cards[peer].cpus[w];
            }
        }
    }
    for (int w = 0; w < 16; w++) {
        n_cpus += __builtin_popcountll(cpus[w]);
    }
    *on_node_p = on_node;
    return n_cpus;
}

/* Does some machine run more PEs than the CPUs its PEs may use together?
 * Every PE computes the same answer from the same cards. */
static bool job_is_oversubscribed(const pe_card_t *cards, int n_pes)
{
    for (int pe = 0; pe < n_pes; pe++) {
        int on_node, n_cpus = machine_cpus(cards, n_pes, pe, &on_node);
        if (on_node > n_cpus) {
            return true;
        }
    }
    return false;
}

/* CPUs of `pe`'s machine beyond one per PE there (0 when oversubscribed). */
static int machine_spare_cpus(const pe_card_t *cards, int n_pes, int pe)
{
    int on_node, n_cpus = machine_cpus(cards, n_pes, pe, &on_node);

    return n_cpus > on_node ? n_cpus - on_node : 0;
}

/* Is `pe` named by SHIMMER_REMOTE_PES ("all", or "1,3-5")? */
static bool listed_remote(int pe)
{
    const char *p = shr_config.remote_pes;

    if (strcmp(p, "all") == 0) {
        return true;
    }
    while (*p != '\0') {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p) {
            break;
        }
        if (*end == '-') {
            hi = strtol(end + 1, &end, 10);
        }
        if (pe >= lo && pe <= hi) {
            return true;
        }
        p = *end == ',' ? end + 1 : end;
    }
    return false;
}

/* May `a` and `b` share memory?  Symmetric in a and b, and transitive, so
 * every PE derives the same SHMEM_TEAM_SHARED. */
static bool pair_is_local(const pe_card_t *cards, int a, int b)
{
    if (a == b) {
        return true;
    }
    if (cards[a].node_id != cards[b].node_id) {
        return false;
    }
    if (strcmp(shr_config.remote_pes, "all") == 0) {
        return false;
    }
    return !listed_remote(a) && !listed_remote(b);
}

/* The sharing groups of pair_is_local, in O(n log n): PEs group by node
 * id, except those that share with nobody (SHIMMER_REMOTE_PES). */
static const pe_card_t *group_cards;

static bool alone(int pe)
{
    return strcmp(shr_config.remote_pes, "all") == 0 || listed_remote(pe);
}

static int group_cmp(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    uint64_t na = group_cards[a].node_id, nb = group_cards[b].node_id;
    long ka = alone(a) ? a : -1, kb = alone(b) ? b : -1;

    if (na != nb) {
        return na < nb ? -1 : 1;
    }
    if (ka != kb) {
        return ka < kb ? -1 : 1;
    }
    return a < b ? -1 : a > b;
}

/* shr_g.node_of[pe] = the lowest PE that shares memory with pe. */
static shr_status_t group_nodes(const pe_card_t *cards)
{
    int n = shr_g.n_pes, *idx = malloc((size_t)n * sizeof(int));

    shr_g.node_of = malloc((size_t)n * sizeof(int));
    if (idx == NULL || shr_g.node_of == NULL) {
        free(idx);
        return SHR_ERR_NO_MEMORY;
    }
    for (int pe = 0; pe < n; pe++) {
        idx[pe] = pe;
    }
    group_cards = cards;
    qsort(idx, (size_t)n, sizeof(int), group_cmp);
    for (int i = 0, first = 0; i < n; i++) {
        if (i > 0 && !pair_is_local(cards, idx[i], idx[first])) {
            first = i;
        }
        shr_g.node_of[idx[i]] = idx[first]; /* sorted by PE within a group */
    }
    free(idx);
    return SHR_OK;
}

/* Maps every peer of this node; the peer table is the product of init. */
/* This node's other PEs, watched when the launcher would be slow to notice
 * one die (core/watch.h). */
static void watch_node(const pe_card_t *cards)
{
    int *pes = malloc((size_t)shr_g.n_pes * sizeof(int));
    pid_t *pids = malloc((size_t)shr_g.n_pes * sizeof(pid_t));
    int count = 0;

    for (int pe = 0; pes != NULL && pids != NULL && pe < shr_g.n_pes; pe++) {
        if (pe != shr_g.my_pe && cards[pe].node_id == cards[shr_g.my_pe].node_id) {
            pes[count] = pe;
            pids[count++] = cards[pe].heap.pid;
        }
    }
    shr_watch_start(pes, pids, count);
    free(pes);
    free(pids);
}

static shr_status_t map_peers(const pe_card_t *cards, const char *routine)
{

    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        shr_g.seg[s].peer_base = calloc((size_t)shr_g.n_pes, sizeof(char *));
        if (shr_g.seg[s].peer_base == NULL) {
            shr_error("%s: out of memory for the peer table of %d PEs", routine, shr_g.n_pes);
            return SHR_ERR_NO_MEMORY;
        }
    }
    shr_g.local_pes = calloc((size_t)shr_g.n_pes, sizeof(int));
    if (shr_g.local_pes == NULL || group_nodes(cards) != SHR_OK) {
        return SHR_ERR_NO_MEMORY;
    }
    shr_g.n_local = 0;
    for (int pe = 0; pe < shr_g.n_pes; pe++) {
        const pe_card_t *card = &cards[pe];
        void *base;

        if (!pair_is_local(cards, shr_g.my_pe, pe)) {
            shr_g.has_remote = 1; /* some peer goes through the remote transport */
            continue;
        }
        if (pe == shr_g.my_pe) {
            shr_g.local_rank = shr_g.n_local;
            shr_g.seg[SHR_SEG_HEAP].peer_base[pe] = my_heap.base;
            shr_g.seg[SHR_SEG_DATA].peer_base[pe] = my_data.base;
        } else {
            shr_status_t status = shr_shm_seg_map_peer(&card->heap, routine, &base);
            if (status != SHR_OK) {
                return status;
            }
            shr_g.seg[SHR_SEG_HEAP].peer_base[pe] = base;
            if (card->data_size != 0) {
                status = shr_shm_seg_map_peer(&card->data, routine, &base);
                if (status != SHR_OK) {
                    return status;
                }
                shr_g.seg[SHR_SEG_DATA].peer_base[pe] = base;
            }
        }
        shr_g.local_pes[shr_g.n_local++] = pe;
    }
    /* the machine is what shares the cores, whatever SHIMMER_REMOTE_PES says */
    shr_g.oversubscribed = job_is_oversubscribed(cards, shr_g.n_pes);
    shr_g.spare_cpus = machine_spare_cpus(cards, shr_g.n_pes, shr_g.my_pe);
    return SHR_OK;
}

static void unmap_peers(void)
{
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        if (shr_g.seg[s].peer_base == NULL) {
            continue;
        }
        for (int pe = 0; pe < shr_g.n_pes; pe++) {
            if (pe != shr_g.my_pe) {
                shr_shm_seg_unmap_peer(shr_g.seg[s].peer_base[pe], shr_g.seg[s].size);
            }
        }
        free(shr_g.seg[s].peer_base);
        shr_g.seg[s].peer_base = NULL;
    }
    free(shr_g.local_pes);
    shr_g.local_pes = NULL;
    free(shr_g.node_of);
    shr_g.node_of = NULL;
    shr_g.has_remote = 0;
    shr_g.needs_progress = 0;
}

/* Every PE must see the same symmetric layout; a mismatch means different
 * environments or different executables. */
static shr_status_t check_agreement(const pe_card_t *cards, const char *routine)
{
    const pe_card_t *me = &cards[shr_g.my_pe];
    char a[32], b[32];

    for (int pe = 0; pe < shr_g.n_pes; pe++) {
        if (cards[pe].heap_size != me->heap_size ||
            cards[pe].internal_size != me->internal_size) {
            shr_error("%s: PE %d has a symmetric heap of %s but PE %d has %s; give every PE "
                      "the same SHMEM_SYMMETRIC_SIZE and SHIMMER_INTERNAL_HEAP_SIZE", routine,
                      pe, shr_str_from_size(cards[pe].heap_size, a, sizeof(a)), shr_g.my_pe,
                      shr_str_from_size(me->heap_size, b, sizeof(b)));
            return SHR_ERR_MISMATCH;
        }
        if (cards[pe].data_size != me->data_size) {
            shr_error("%s: PE %d's global variables take %zu bytes but PE %d's take %zu; every "
                      "PE must run the same executable (or set SHIMMER_DATA_SEGMENT=0 on all)",
                      routine, pe, cards[pe].data_size, shr_g.my_pe, me->data_size);
            return SHR_ERR_MISMATCH;
        }
    }
    return SHR_OK;
}

/* Heaps are reserved, not touched, so any size starts; one larger than the
 * node can ever back fails later, far from its cause (OOM kill, SIGBUS).
 * Said once per node, with the figures, when one PE's heaps alone exceed
 * memory and swap, or all of the node's do with at most a PE per CPU (an
 * oversubscribed test run of 256 PEs with default heaps is not a mistake). */
static void warn_if_beyond_memory(size_t per_pe, int node_pes)
{
    struct sysinfo si;
    char need[32], have[32], each[32];

    if (sysinfo(&si) != 0) {
        return;
    }
    unsigned long long backing = ((unsigned long long)si.totalram + si.totalswap) * si.mem_unit;
    unsigned long long heaps = (unsigned long long)per_pe * (unsigned long long)node_pes;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (per_pe > backing || (heaps > backing && node_pes <= cpus)) {
        shr_warn("the symmetric heaps of this node's %d PE(s) total %s (%d x %s, "
                 "SHMEM_SYMMETRIC_SIZE plus SHIMMER_INTERNAL_HEAP_SIZE) but it has %s of "
                 "memory and swap: a program that uses them all will be killed; lower "
                 "SHMEM_SYMMETRIC_SIZE", node_pes, shr_str_from_size(heaps, need, sizeof(need)),
                 node_pes, shr_str_from_size(per_pe, each, sizeof(each)),
                 shr_str_from_size(backing, have, sizeof(have)));
    }
}

static shr_status_t create_heap(pe_card_t *card, const char *routine)
{
    shr_status_t status;

    shr_g.internal_size = page_round(shr_config.internal_heap_size);
    shr_g.user_heap_size = page_round(shr_config.symmetric_size);
    size_t total = shr_g.internal_size + shr_g.user_heap_size;
    /* a file-backed directory must hold the heaps of every PE of this node
     * (the starter knows how many; peers are not mapped yet) */
    shr_boot_node_t node;
    shr_boot_node(&node);
    int node_pes = node.local_size >= 1 ? node.local_size : shr_g.n_pes;
    if (node.local_rank == 0) {
        warn_if_beyond_memory(total, node_pes);
    }
    status = shr_shm_seg_create(shr_config.shm_backing == SHR_SHM_BACKING_FILE ? SHR_SHM_FILE
                                                                                : SHR_SHM_MEMFD,
                                shr_config.shm_dir, total, SHR_HEAP_BASE_ALIGN,
                                shr_config.hugepages == SHR_HUGEPAGES_ON     ? SHR_SHM_HUGE_ON
                                : shr_config.hugepages == SHR_HUGEPAGES_AUTO ? SHR_SHM_HUGE_AUTO
                                                                             : SHR_SHM_HUGE_OFF,
                                node_pes, "symmetric heap", routine, &my_heap);
    if (status != SHR_OK) {
        return status;
    }
    shr_g.seg[SHR_SEG_HEAP].base = (uintptr_t)my_heap.base;
    shr_g.seg[SHR_SEG_HEAP].size = total;
    shr_g.seg[SHR_SEG_HEAP].user_size = shr_g.user_heap_size;
    shr_g.user_heap_base = (uintptr_t)my_heap.base;
    shr_g.internal_heap_base = (uintptr_t)my_heap.base + shr_g.user_heap_size;
    card->heap = my_heap.addr;
    card->heap_size = shr_g.user_heap_size;
    card->internal_size = shr_g.internal_size;

    return SHR_OK;
}

/* The program's globals become shareable (shm_data.c).  The copy and the
 * MAP_FIXED remap lose any write another thread makes to the executable's
 * data segment meanwhile, and in a program linked with libshimmer.a that
 * segment holds the library's own globals too (and a helper's malloc or
 * UCX state may land there): so init starts no thread of its own -- the
 * remote transport's start-up helper included -- before this returns. */
static shr_status_t attach_data(pe_card_t *card, const char *routine)
{
    if (!shr_config.data_segment) {
        return SHR_OK;
    }
    shr_status_t status = shr_shm_data_attach(routine, &my_data);
    if (status == SHR_ERR_UNSUPPORTED) {
        return SHR_OK; /* no writable segment: globals are simply not symmetric */
    }
    if (status != SHR_OK) {
        return status;
    }
    shr_g.seg[SHR_SEG_DATA].base = (uintptr_t)my_data.base;
    shr_g.seg[SHR_SEG_DATA].size = my_data.size;
    shr_g.seg[SHR_SEG_DATA].user_size = my_data.size;
    card->data = my_data.addr;
    card->data_size = my_data.size;
    return SHR_OK;
}

/* attach_data's pair (finalize, unwinding). */
static void detach_data(void)
{
    shr_shm_data_detach(&my_data);
    memset(&shr_g.seg[SHR_SEG_DATA], 0, sizeof(shr_g.seg[SHR_SEG_DATA]));
}

/* SHIMMER_WAIT_MODE: one choice at init, with its reason (wait_mode.h). */
static void choose_wait_mode(void)
{
    shr_wait_cpu_t cpu;
    bool fell_back;

    shr_wait_probe(&cpu);
    shr_g.wait_mode = shr_wait_select(shr_config.wait_mode, &cpu, shr_g.wait_why,
                                      sizeof(shr_g.wait_why), &fell_back);
    if (fell_back && shr_g.local_rank == 0) { /* once per node */
        shr_warn("%s", shr_g.wait_why);
    }
}

static unsigned auto_wait_spin(void)
{
    if (shr_config.wait_spin >= 0) {
        return (unsigned)shr_config.wait_spin;
    }
    /* with a core each, spinning hands off fastest; oversubscribed, the
     * writer we wait for may need our core: yield almost at once */
    return shr_g.oversubscribed ? 16 : 4096;
}

/* The spin of a wait among more of this PE's waiting threads than its own
 * CPU and the machine's spare ones: the one that will answer may need a
 * waiter's core. */
static unsigned auto_wait_spin_crowded(void)
{
    return shr_config.wait_spin >= 0 ? (unsigned)shr_config.wait_spin : 16;
}

/* A child of fork() is not a PE.  The symmetric heap and the global
 * variables are shared mappings (peers reach them): the child gets private
 * copy-on-write ones, so its writes do not land in the PE, and it leaves
 * the library, so that its exit does not finalize the PE's job (nor touch
 * the PE's launcher socket).  posix_spawn and system() do not run this. */
static void child_after_fork(void)
{
    if (!shr_g.initialized) {
        return;
    }
    shr_shm_seg_privatize(&my_heap);
    shr_shm_seg_privatize(&my_data);
    shr_g.initialized = false;
    shr_g.check_gate = 1; /* its shmem calls now say "called before shmem_init" */
}

/* Set while the exit hook finalizes for a PE that left main without
 * shmem_finalize (the final barrier's watch then says so). */
static bool finalizing_at_exit;

/* A PE leaves main (or calls exit) with the library still initialised.
 * Failing (status != 0): its peers may wait for it forever, so the job ends
 * now with that status, as mpirun does.  Succeeding: start_pes-era programs
 * need no shmem_finalize, so the hook finalizes for them; the final barrier
 * ends the job instead of hanging when the others wait inside the library
 * for this PE (stall.h). */
static void at_exit_finalize(int status, void *arg)
{
    char why[128];

    (void)arg;
    if (!shr_g.initialized) {
        return;
    }
    if (status != 0) {
        snprintf(why, sizeof(why), "left main with exit status %d without calling "
                 "shmem_finalize", status);
        /* said here too: srun does not print an abort's reason */
        shr_error("exit: %s; ending the job", why);
        shr_fatal(status, why);
    }
    finalizing_at_exit = true;
    while (shr_g.initialized) {
        shr_finalize("exit");
    }
}

/* The final barrier's wait when no peer is remote: the stall watch (the
 * remote transport's barrier calls it too), and naps once it has lasted
 * (the PEs that finalized early leave the cores to the others).  `arg`
 * counts the calls. */
static void final_barrier_progress(void *arg)
{
    unsigned *calls = arg;

    shr_stall_watch();
    if (++*calls > 1000) {
        struct timespec ts = {.tv_sec = 0, .tv_nsec = 200000};
        nanosleep(&ts, NULL);
    }
}

/* The last finalize's barrier goes through boot, not a team barrier: a PE
 * that left main early must not pair its finalize with the others'
 * shmem_barrier_all (they would pass it and wait in theirs forever). */
static void final_barrier(void)
{
    unsigned calls = 0;

    shr_stall_enter_final(finalizing_at_exit ? SHR_STALL_AT_EXIT : SHR_STALL_FINALIZE);
    if (shr_remote_final_barrier(shr_stall_watch)) {
        return;
    }
    if (shr_boot_barrier_progress(final_barrier_progress, &calls) != SHR_OK) {
        shr_warn("shmem_finalize: the final bootstrap barrier failed; closing anyway");
    }
}

static void print_banner(void)
{
    if (shr_g.my_pe != 0) {
        return;
    }
    if (shr_config.version || shr_config.info) {
        printf("%s (OpenSHMEM %d.%d), bootstrap %s, %d PE(s)\n", SHMEM_VENDOR_STRING,
               SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, shr_boot_kind_name(), shr_g.n_pes);
    }
    if (shr_config.info) {
        shr_env_print(stdout);
    }
    fflush(stdout);
}

shr_status_t shr_init(int requested, int *provided_p, const char *routine)
{
    static bool exit_hook;
    pe_card_t card, *cards = NULL;
    shr_status_t status;
    int rank, size;

    if (shr_g.initialized) {
        shr_g.init_count++;
        *provided_p = shr_g.thread_level;
        return SHR_OK;
    }
    uint64_t started = shr_prof_now(); /* the profile's init row */
    /* join the job first: every later message can then name this PE */
    status = shr_boot_init(&rank, &size, true);
    if (status != SHR_OK) {
        shr_error("%s: cannot join the job: %s", routine, shr_status_string(status));
        return status;
    }
    shr_g.my_pe = rank;
    shr_g.n_pes = size;
    gethostname(shr_g.host, sizeof(shr_g.host) - 1);
    shr_log_set_identity(rank, shr_g.host);
    status = shr_env_load(routine);
    if (status != SHR_OK) {
        goto err_boot;
    }
    configure_logging();

    memset(&card, 0, sizeof(card));
    status = attach_data(&card, routine);
    if (status != SHR_OK) {
        goto err_boot; /* attach_data undid its own steps */
    }
    /* a job across nodes needs the remote transport: its context and
     * worker are made in the background while init does its local work
     * (after the data segment's copy: see attach_data) */
    shr_remote_prestart();
    snprintf(card.host, sizeof(card.host), "%s", shr_g.host);
    card.node_id = node_identity(&card.machine_id);
    cpu_mask(card.cpus);
    status = create_heap(&card, routine);
    if (status != SHR_OK) {
        goto err_prestart;
    }
    /* addresses and keys for other nodes ride the one exchange below */
    status = shr_remote_publish(routine);
    if (status != SHR_OK) {
        goto err_publish;
    }
    status = shr_boot_allgather_alloc(&card, sizeof(card), (void **)&cards);
    if (status != SHR_OK) {
        goto err_peers;
    }
    status = check_agreement(cards, routine);
    if (status == SHR_OK) {
        status = map_peers(cards, routine);
    }
    if (status == SHR_OK && shr_boot_wants_peer_watch()) {
        watch_node(cards);
    }
    free(cards);
    if (status != SHR_OK) {
        goto err_peers;
    }
    /* before the transport's init: whether the default context is shared
     * between threads decides how it issues (ucx_agg.c, windows) */
    shr_g.thread_level = requested > SHMEM_THREAD_MULTIPLE ? SHMEM_THREAD_MULTIPLE
                                                          : requested < SHMEM_THREAD_SINGLE
                                                                ? SHMEM_THREAD_SINGLE
                                                                : requested;
    status = shr_remote_init(routine);
    if (status != SHR_OK) {
        goto err_peers;
    }

    status = shr_heap_init(&shr_g.internal_heap, shr_g.internal_size);
    if (status != SHR_OK) {
        shr_error("%s: out of memory for the heap bookkeeping", routine);
        goto err_peers;
    }
    status = shr_heap_init(&shr_g.user_heap, shr_g.user_heap_size);
    if (status != SHR_OK) {
        shr_error("%s: out of memory for the heap bookkeeping", routine);
        goto err_internal_heap;
    }
    size_t offset;
    status = shr_heap_alloc(&shr_g.internal_heap, SHR_CHECK_SCRATCH, 64, &offset);
    if (status != SHR_OK) {
        shr_error("%s: the internal heap cannot hold %d bytes of scratch for the argument "
                  "checks; raise SHIMMER_INTERNAL_HEAP_SIZE", routine, SHR_CHECK_SCRATCH);
        goto err_user_heap;
    }
    shr_g.check_scratch = shr_internal_addr(offset);
    shr_g.wait_spin = auto_wait_spin();
    shr_g.wait_spin_crowded = auto_wait_spin_crowded();
    choose_wait_mode();
    size_t wide = shr_copy_select(shr_config.shm_copy);
    if (wide == 0 && shr_config.shm_copy == SHR_SHM_COPY_AVX512 && shr_g.local_rank == 0) {
        shr_warn_once("SHIMMER_SHM_COPY=avx512: this CPU has no AVX-512; puts and gets on this "
                      "node copy with memcpy (unset it, or set auto)"); /* once per node, not per init */
    }
    shr_debug(SHR_LOG_SHM, "puts and gets on this node copy up to %zu bytes of memcpy's rep "
              "movsb window with 64-byte moves", wide);
    shr_g.wait_sleep_after_ns = 1000ull * (uint64_t)(shr_config.wait_sleep_after >= 0
                                                         ? shr_config.wait_sleep_after
                                                         : shr_g.oversubscribed ? 500 : 2000);
    shr_g.init_thread = (pid_t)syscall(SYS_gettid);
    status = shr_stall_init(routine);
    if (status != SHR_OK) {
        goto err_user_heap;
    }
    status = shr_share_init(routine);
    if (status != SHR_OK) {
        goto err_user_heap;
    }
    status = shr_team_init(routine);
    if (status != SHR_OK) {
        goto err_teams;
    }
    shr_g.checks = shr_config.checks < 0 ? shr_config.debug : shr_config.checks;
    shr_g.initialized = true;
    shr_g.finalized = false;
    shr_g.init_count = 1;
    /* the profile times calls on the gated path (core/prof.h) */
    shr_g.check_gate = shr_g.checks || shr_config.profile != SHR_PROFILE_OFF;
    if (!exit_hook) {
        pthread_atfork(NULL, NULL, child_after_fork);
        on_exit(at_exit_finalize, NULL);
        exit_hook = true;
    }
    print_banner();
    /* Every PE has passed the exchange: every segment exists and is
     * registered, and a team's sync words are only ever incremented, so
     * early operations from peers are safe.  What remains is that this
     * node's peers map our segment.  Across nodes only the node meets: a
     * world barrier would cost every PE a UCX wire-up (ms over TCP) before
     * the program sends a byte. */
    shr_coll_barrier(shr_g.has_remote ? shr_team_shared : shr_team_world);
    /* this node's peers hold their mappings now: a file-backed segment's
     * name can go */
    shr_shm_seg_unlink(&my_heap);
    shr_prof_init(started);
    *provided_p = shr_g.thread_level;
    return SHR_OK;

    /* Unwinding: each label undoes one step and falls through to those
     * done before it, in reverse order; each undo runs at most once.  What
     * the steps took from the internal heap (team pool, stall words, check
     * scratch) goes with the heap's bookkeeping. */
err_teams:
    shr_team_fini();
err_user_heap:
    shr_heap_fini(&shr_g.user_heap);
err_internal_heap:
    shr_heap_fini(&shr_g.internal_heap);
err_peers:
    shr_watch_stop();
    unmap_peers();
err_publish:
    shr_remote_fini(); /* undoes publish (and init, if it ran) */
    shr_shm_seg_destroy(&my_heap);
    memset(&shr_g.seg[SHR_SEG_HEAP], 0, sizeof(shr_g.seg[SHR_SEG_HEAP]));
err_prestart:
    shr_remote_prestart_cancel(); /* nothing once publish took the helper's work */
    detach_data();
err_boot:
    shr_boot_fini();
    return status;
}

void shr_finalize(const char *routine)
{
    (void)routine;
    if (!shr_g.initialized) {
        return;
    }
    uint64_t started = shr_prof_now();
    if (--shr_g.init_count > 0) {
        /* not the last of a series of init/finalize: behaves as barrier_all */
        shr_quiet(shr_ctx_default);
        shr_coll_barrier(shr_team_world);
        return;
    }
    shr_quiet(shr_ctx_default);
    /* peers may leave once we are in the final barrier */
    shr_watch_stop();
    /* nobody may touch our memory once we start releasing it */
    final_barrier();
    shr_share_fini();
    shr_team_fini();
    shr_remote_fini();
    shr_g.check_gate = 1;
    shr_g.initialized = false;
    shr_g.finalized = true;
    shr_heap_fini(&shr_g.user_heap);
    shr_heap_fini(&shr_g.internal_heap);
    unmap_peers();
    shr_shm_seg_destroy(&my_heap);
    detach_data();
    memset(shr_g.seg, 0, sizeof(shr_g.seg));
    shr_prof_report(started); /* through boot: the last thing that needs the job */
    fflush(NULL);
    shr_boot_fini();
}

_Noreturn void shr_fatal(int status, const char *reason)
{
    shr_boot_abort(status, reason);
}
SHR_PLUGIN_EXPORT(fatal);

_Noreturn void shr_global_exit(int status)
{
    shr_boot_global_exit(status);
}
