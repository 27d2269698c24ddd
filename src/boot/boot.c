/* boot.c -- chooses the bootstrap implementation at init and forwards to it. */
#include "boot/boot_int.h"
#include "boot/boot_proto.h"
#include "util/compiler.h"
#include "util/log.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* THE list of implementations, most specific first: the first one present
 * wins.  single is last because it always applies.  A PMIx implementation
 * joins by providing boot_pmix.c (CMake then defines SHR_BOOT_HAVE_PMIX). */
static const shr_boot_ops_t *const shr_boot_impls[] = {
    &shr_boot_launcher_ops,
#ifdef SHR_BOOT_HAVE_PMIX
    &shr_boot_pmix_ops,
#endif
    &shr_boot_single_ops,
};

/* Chosen by the last successful init and kept after fini, so that abort can
 * still reach the launcher and kind() still answers.  Read by abort from any
 * thread, hence the atomic accesses. */
static const shr_boot_ops_t *shr_boot_ops;
static bool shr_boot_is_active;
static int shr_boot_rank;

/* Key-value emulation for implementations without a store of their own:
 * every allgather carries each PE's count of pending bytes in front of its
 * blob; when any PE has some, one more allgather (padded to the largest)
 * carries them.  Records: u32 key length, u32 value length, key, value. */
static struct {
    char *pending;     /* my records not yet exchanged */
    size_t pending_len;
    char *all;         /* everybody's records of the last exchange: [size][stride] */
    size_t stride;
    int size;          /* the job's PEs (every implementation) */
} shr_boot_kv;

static const shr_boot_ops_t *shr_boot_ops_get(void)
{
    return __atomic_load_n(&shr_boot_ops, __ATOMIC_ACQUIRE);
}

shr_status_t shr_boot_init(int *rank_p, int *size_p, bool finalizes_at_exit)
{
    const size_t count = sizeof(shr_boot_impls) / sizeof(shr_boot_impls[0]);
    const shr_boot_ops_t *ops = shr_boot_impls[count - 1];
    shr_status_t status;
    int rank, size;

    if (shr_boot_is_active) {
        return SHR_ERR_INVALID;
    }
    for (size_t i = 0; i < count; i++) {
        if (shr_boot_impls[i]->is_present()) {
            ops = shr_boot_impls[i];
            break;
        }
    }
    /* N copies started by a launcher we cannot talk to would each run as
     * a job of one PE and compute garbage: refuse, naming the launcher. */
    if (ops->kind == SHR_BOOT_SINGLE) {
        char what[320];
        if (shr_boot_foreign_launch(what, sizeof(what))) {
            fprintf(stderr, "shimmer: error: %s\n", what);
            return SHR_ERR_MISMATCH;
        }
    }
    /* No fallback on failure: a PE started by a launcher that silently ran
     * as a single PE would compute garbage. */
    status = ops->init(&rank, &size, finalizes_at_exit);
    if (status != SHR_OK) {
        return status;
    }
    __atomic_store_n(&shr_boot_ops, ops, __ATOMIC_RELEASE);
    shr_boot_is_active = true;
    shr_boot_rank = rank;
    shr_boot_kv.size = size;
    *rank_p = rank;
    *size_p = size;
    return SHR_OK;
}

static void shr_boot_kv_clear(void)
{
    free(shr_boot_kv.pending);
    free(shr_boot_kv.all);
    memset(&shr_boot_kv, 0, sizeof(shr_boot_kv));
}

void shr_boot_fini(void)
{
    if (!shr_boot_is_active) {
        return;
    }
    shr_boot_ops_get()->fini();
    shr_boot_kv_clear();
    shr_boot_is_active = false;
}

shr_boot_kind_t shr_boot_kind(void)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();

    return ops != NULL ? ops->kind : SHR_BOOT_SINGLE;
}

const char *shr_boot_kind_name(void)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();

    return ops != NULL ? ops->name : shr_boot_single_ops.name;
}

/* The emulated exchange: wraps the caller's allgather.  Each record
 * travels with this PE's pending key-value bytes in front; the records are
 * then packed in place, so the result (size * len bytes, malloc'ed, in
 * *all_p; NULL when len is 0) is the only copy of the PEs' contributions. */
static shr_status_t shr_boot_kv_allgather(const shr_boot_ops_t *ops, const void *mine,
                                          size_t len, void **all_p)
{
    size_t wide = sizeof(uint64_t) + len, most = 0;
    uint64_t pending = shr_boot_kv.pending_len;
    char *out = malloc(wide), *in;
    shr_status_t status;
    int size;

    *all_p = NULL; /* callers free it whatever the status */
    if (out == NULL) {
        return SHR_ERR_NO_MEMORY;
    }
    /* the size is known from the first exchange on: init calls allgather
     * before anything else, and the result tells how many PEs answered */
    size = shr_boot_kv.size;
    memcpy(out, &pending, sizeof(pending));
    if (len > 0) {
        memcpy(out + sizeof(pending), mine, len);
    }
    in = malloc(wide * (size_t)size);
    if (in == NULL) {
        free(out);
        return SHR_ERR_NO_MEMORY;
    }
    status = ops->allgather(out, in, wide);
    free(out);
    /* record r moves from r * wide to r * len: never past its own start */
    for (int r = 0; status == SHR_OK && r < size; r++) {
        memcpy(&pending, in + wide * (size_t)r, sizeof(pending));
        most = pending > most ? pending : most;
        memmove(in + len * (size_t)r, in + wide * (size_t)r + sizeof(pending), len);
    }
    if (status != SHR_OK || len == 0) {
        free(in);
        in = NULL;
    }
    if (status != SHR_OK || most == 0) {
        *all_p = in;
        return status;
    }
    char *padded = calloc(1, most), *result = malloc(most * (size_t)size);
    if (padded == NULL || result == NULL) {
        free(padded);
        free(result);
        free(in);
        return SHR_ERR_NO_MEMORY;
    }
    if (shr_boot_kv.pending_len > 0) {
        memcpy(padded, shr_boot_kv.pending, shr_boot_kv.pending_len);
    }
    status = ops->allgather(padded, result, most);
    free(padded);
    if (status != SHR_OK) {
        free(result);
        free(in);
        return status;
    }
    free(shr_boot_kv.all);
    free(shr_boot_kv.pending);
    shr_boot_kv.all = result;
    shr_boot_kv.stride = most;
    shr_boot_kv.pending = NULL;
    shr_boot_kv.pending_len = 0;
    *all_p = in;
    return SHR_OK;
}

shr_status_t shr_boot_allgather(const void *mine, void *all, size_t len)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();
    shr_status_t status;
    void *packed;

    if (!shr_boot_is_active || (len > 0 && (mine == NULL || all == NULL))) {
        return SHR_ERR_INVALID;
    }
    shr_debug(SHR_LOG_BOOT, "boot (%s): allgather of %zu bytes per PE", ops->name, len);
    if (ops->put != NULL) {
        return ops->allgather(mine, all, len);
    }
    status = shr_boot_kv_allgather(ops, mine, len, &packed);
    if (status == SHR_OK && len > 0) {
        memcpy(all, packed, len * (size_t)shr_boot_kv.size);
    }
    free(packed);
    return status;
}

shr_status_t shr_boot_allgather_alloc(const void *mine, size_t len, void **all_p)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();
    shr_status_t status;
    void *all;

    if (!shr_boot_is_active || len == 0 || mine == NULL) {
        return SHR_ERR_INVALID;
    }
    shr_debug(SHR_LOG_BOOT, "boot (%s): allgather of %zu bytes per PE", ops->name, len);
    if (ops->put != NULL) {
        all = malloc(len * (size_t)shr_boot_kv.size);
        if (all == NULL) {
            return SHR_ERR_NO_MEMORY;
        }
        status = ops->allgather(mine, all, len);
    } else {
        status = shr_boot_kv_allgather(ops, mine, len, &all);
    }
    if (status != SHR_OK) {
        free(all);
        return status;
    }
    *all_p = all;
    return SHR_OK;
}

shr_status_t shr_boot_barrier(void)
{
    if (!shr_boot_is_active) {
        return SHR_ERR_INVALID;
    }
    shr_debug(SHR_LOG_BOOT, "boot (%s): barrier", shr_boot_ops_get()->name);
    return shr_boot_ops_get()->barrier();
}

shr_status_t shr_boot_barrier_progress(void (*progress)(void *arg), void *arg)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();

    if (!shr_boot_is_active) {
        return SHR_ERR_INVALID;
    }
    shr_debug(SHR_LOG_BOOT, "boot (%s): barrier, progressing while waiting", ops->name);
    if (ops->barrier_progress == NULL) {
        return ops->barrier();
    }
    return ops->barrier_progress(progress, arg);
}
SHR_PLUGIN_EXPORT(boot_barrier_progress);

void shr_boot_node(shr_boot_node_t *node_p)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();

    memset(node_p, 0, sizeof(*node_p));
    if (ops != NULL && ops->node != NULL) {
        ops->node(node_p);
        return;
    }
    /* oshrun and single: every PE of the job is on this node */
    node_p->local_rank = shr_boot_rank;
    node_p->local_size = shr_boot_kv.size;
}
SHR_PLUGIN_EXPORT(boot_node);

shr_status_t shr_boot_put(const char *key, const void *value, size_t len)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();
    uint32_t klen = (uint32_t)strlen(key), vlen = (uint32_t)len;

    if (!shr_boot_is_active || len > UINT32_MAX) {
        return SHR_ERR_INVALID;
    }
    shr_debug(SHR_LOG_BOOT, "boot (%s): publish %s (%zu bytes)", ops->name, key, len);
    if (ops->put != NULL) {
        return ops->put(key, value, len);
    }
    size_t add = 2 * sizeof(uint32_t) + klen + len;
    char *grown = realloc(shr_boot_kv.pending, shr_boot_kv.pending_len + add);
    if (grown == NULL) {
        return SHR_ERR_NO_MEMORY;
    }
    char *rec = grown + shr_boot_kv.pending_len;
    memcpy(rec, &klen, sizeof(klen));
    memcpy(rec + sizeof(klen), &vlen, sizeof(vlen));
    memcpy(rec + 2 * sizeof(uint32_t), key, klen);
    if (len > 0) {
        memcpy(rec + 2 * sizeof(uint32_t) + klen, value, len);
    }
    shr_boot_kv.pending = grown;
    shr_boot_kv.pending_len += add;
    return SHR_OK;
}
SHR_PLUGIN_EXPORT(boot_put);

shr_status_t shr_boot_get(int rank, const char *key, void **value_p, size_t *len_p)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();
    size_t klen = strlen(key);

    if (!shr_boot_is_active || rank < 0) {
        return SHR_ERR_INVALID;
    }
    shr_debug(SHR_LOG_BOOT, "boot (%s): look up %s of PE %d", ops->name, key, rank);
    if (ops->get != NULL) {
        return ops->get(rank, key, value_p, len_p);
    }
    if (shr_boot_kv.all == NULL || rank >= shr_boot_kv.size) {
        return SHR_ERR_UNREACHABLE;
    }
    const char *rec = shr_boot_kv.all + shr_boot_kv.stride * (size_t)rank;
    const char *end = rec + shr_boot_kv.stride;
    while (end - rec >= (ptrdiff_t)(2 * sizeof(uint32_t))) {
        uint32_t k, v;
        memcpy(&k, rec, sizeof(k));
        memcpy(&v, rec + sizeof(k), sizeof(v));
        if (k == 0 || (size_t)(end - rec) < 2 * sizeof(uint32_t) + k + v) {
            break; /* padding */
        }
        if (k == klen && memcmp(rec + 2 * sizeof(uint32_t), key, klen) == 0) {
            void *copy = malloc(v > 0 ? v : 1);
            if (copy == NULL) {
                return SHR_ERR_NO_MEMORY;
            }
            memcpy(copy, rec + 2 * sizeof(uint32_t) + k, v);
            *value_p = copy;
            *len_p = v;
            return SHR_OK;
        }
        rec += 2 * sizeof(uint32_t) + k + v;
    }
    return SHR_ERR_UNREACHABLE;
}
SHR_PLUGIN_EXPORT(boot_get);

const char *shr_boot_job_id(void)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();

    return ops != NULL ? ops->job_id() : "";
}

static _Noreturn void shr_boot_end(int status, const char *msg, bool global_exit)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();

    /* The spec wants C stdio flushed; _exit below would drop it. */
    fflush(NULL);
    if (ops == NULL) {
        ops = &shr_boot_single_ops; /* before init: nobody to tell */
    }
    ops->abort(status, msg, global_exit);
    _exit(shr_boot_exit_code(status));
}

_Noreturn void shr_boot_abort(int status, const char *msg)
{
    shr_boot_end(status, msg, false);
}

bool shr_boot_wants_peer_watch(void)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();

    return ops != NULL && ops->wants_peer_watch != NULL && ops->wants_peer_watch();
}

/* How long a launcher may take to end the job after a PE died: oshrun and
 * mpirun reap the dead PE at once and end every process with its status
 * (0.03-0.11 s measured, docs/multinode.md); only if they do not does this
 * PE end the job itself, with what it knows.  Not 3 s: on the 2-CPU CI
 * machine, loaded by the suite, mpirun once left a PE of another host
 * running 3 s after shmem_global_exit (multinode.2x2.gexit, 1 of 4 runs),
 * which then printed a failure the job's end had made. */
#define SHR_BOOT_PEER_GRACE_S 10

_Noreturn void shr_boot_peer_lost(const char *msg)
{
    const shr_boot_ops_t *ops = shr_boot_ops_get();

    fflush(NULL);
    if (ops != NULL && ops->peer_lost != NULL) {
        ops->peer_lost(msg);
    }
    sleep(SHR_BOOT_PEER_GRACE_S);
    /* the job goes on: a failure after all, and mpirun prints no abort's
     * reason, so this PE's own line says it */
    shr_error("%s; ending the job", msg);
    shr_boot_abort(1, msg);
}
SHR_PLUGIN_EXPORT(boot_peer_lost);

_Noreturn void shr_boot_global_exit(int status)
{
    shr_boot_end(status, NULL, true);
}
