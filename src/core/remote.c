/*
 * remote.c -- choosing the remote transport and driving its life cycle
 * (core/remote.h).
 *
 * The choice is made once per init: a job whose PEs all share this node
 * (and no SHIMMER_REMOTE_PES) keeps `none` and loads nothing -- no libucs,
 * no UCX signal handlers, no UCX threads; a job that spans nodes gets the
 * remote transport, loaded and started on a helper thread as soon as boot
 * has joined the job and the data segment is shared, so that both overlap
 * init's local work (the symmetric heap).  Init starts the helper only
 * after the copy and remap of the executable's data segment
 * (init.c:attach_data): in a program linked with libshimmer.a, this file's
 * globals, the transport's and those of anything else linked in statically
 * live in that segment, and a write made during the copy would be lost.
 *
 * Where the transport comes from: the shared library loads the plugin
 * lib/shimmer/libshimmer-ucx.so from beside itself (the same layout in the
 * build tree and in any installed prefix); libshimmer.a, whose programs
 * have no libshimmer.so for a plugin to bind to, has it built in.
 */
#include "core/remote.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "core/env.h"
#include "core/state.h"
#include "util/log.h"

/* THE list of remote transports (one: UCX), built in or as a plugin.  A
 * plugin is never unloaded: UCX patches functions of the process (libucm)
 * and keeps handlers that outlive a finalize; a re-init finds it loaded. */
#if defined(SHR_REMOTE_UCX_BUILTIN)
extern const shr_remote_ops_t shr_ucx_ops;
#define SHR_REMOTE_BUILTIN (&shr_ucx_ops)
#elif defined(SHR_REMOTE_UCX_PLUGIN)
#define SHR_REMOTE_PLUGIN_FILE "libshimmer-ucx.so"
#define SHR_REMOTE_PLUGIN_PACKAGE "libucx0"
#endif

const shr_remote_ops_t *shr_remote = &shr_remote_none;
unsigned shr_remote_caps;

/* Room for why a transport cannot be loaded: its path and dlerror's. */
#define SHR_REMOTE_WHY_MAX (3 * PATH_MAX)

/* What the helper thread made; malloc'ed, read by publish after the join. */
typedef struct remote_early {
    pthread_t thread;
    const shr_remote_ops_t *ops; /* the loaded transport, NULL if it failed */
    char why[SHR_REMOTE_WHY_MAX]; /* ... and why */
    void *state;                 /* its prestart's result */
} remote_early_t;

static remote_early_t *early;
static const shr_remote_ops_t *attached; /* the transport whose attach ran */

#ifdef SHR_REMOTE_PLUGIN_FILE
/* Where the plugin is: <dir>/shimmer/<file>, <dir> being that of the file
 * this code was loaded from -- libshimmer.so, in lib/ of the build tree or
 * of an installed prefix.  A program that links the library's objects
 * (shimmer-info, in bin/) looks in the lib/ beside its bin/. */
static void plugin_path(char *path, size_t len)
{
    char self[PATH_MAX] = "";
    Dl_info info;

    if (dladdr((void *)plugin_path, &info) != 0 && info.dli_fname != NULL &&
        strcmp(info.dli_fname, program_invocation_name) != 0) {
        if (realpath(info.dli_fname, self) == NULL) {
            snprintf(self, sizeof(self), "%s", info.dli_fname);
        }
        char *slash = strrchr(self, '/');
        snprintf(path, len, "%.*s/%s/%s", slash != NULL ? (int)(slash - self) : 1,
                 slash != NULL ? self : ".", SHR_PLUGIN_SUBDIR, SHR_REMOTE_PLUGIN_FILE);
        return;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(self, '/'), libdir[PATH_MAX + 16], real[PATH_MAX];
    snprintf(libdir, sizeof(libdir), "%.*s/%s", slash != NULL ? (int)(slash - self) : 1,
             slash != NULL ? self : ".", SHR_BIN_TO_LIBDIR);
    snprintf(path, len, "%s/%s/%s", realpath(libdir, real) != NULL ? real : libdir,
             SHR_PLUGIN_SUBDIR, SHR_REMOTE_PLUGIN_FILE);
}

/* dlopens the plugin and checks that it was built with this library;
 * NULL and the reason in `why` otherwise. */
static const shr_remote_ops_t *plugin_load(char *why, size_t len)
{
    char path[PATH_MAX + 64];
    const shr_remote_ops_t *const *entry;
    void *handle;

    plugin_path(path, sizeof(path));
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        bool missing = access(path, F_OK) != 0;
        snprintf(why, len, "PEs on other nodes (or made remote by SHIMMER_REMOTE_PES) need the "
                 "UCX transport %s, which %s%s; install UCX (Debian package %s) and a Shimmer "
                 "built with it, or run every PE on one node", path,
                 missing ? "is missing" : "cannot be loaded: ", missing ? "" : dlerror(),
                 SHR_REMOTE_PLUGIN_PACKAGE);
        return NULL;
    }
    entry = (const shr_remote_ops_t *const *)dlsym(handle, SHR_REMOTE_PLUGIN_ENTRY);
    if (entry == NULL || *entry == NULL || (*entry)->abi != SHR_REMOTE_ABI ||
        strcmp((*entry)->version, SHIMMER_VERSION_STRING) != 0) {
        snprintf(why, len, "%s is not the UCX transport of this Shimmer (%s, interface %d): "
                 "found %s; install the plugin built with this library", path,
                 SHIMMER_VERSION_STRING, SHR_REMOTE_ABI,
                 entry == NULL || *entry == NULL ? "no transport table"
                 : (*entry)->abi != SHR_REMOTE_ABI ? "another interface version"
                                                   : (*entry)->version);
        return NULL; /* left loaded: unloading UCX is not safe */
    }
    return *entry;
}
#endif

/* The remote transport of this build, ready to use; NULL (and the reason
 * in `why`) if it cannot be loaded.  A build without one returns `none`,
 * whose init names the PE that cannot be reached.  May run on the helper
 * thread. */
static const shr_remote_ops_t *remote_load(char *why, size_t len)
{
#if defined(SHR_REMOTE_BUILTIN)
    (void)why, (void)len;
    return SHR_REMOTE_BUILTIN;
#elif defined(SHR_REMOTE_PLUGIN_FILE)
    return plugin_load(why, len);
#else
    (void)why, (void)len;
    return &shr_remote_none;
#endif
}

/* Runs the transport's attach once per process, on init's thread. */
static void remote_attach(const shr_remote_ops_t *ops)
{
    if (attached != ops && ops->attach != NULL) {
        ops->attach();
    }
    attached = ops;
}

/* Some PE is on another node, as the starter placed them. */
static bool job_spans_nodes(void)
{
    shr_boot_node_t node;

    shr_boot_node(&node);
    return shr_g.n_pes > 1 && node.local_size < shr_g.n_pes;
}

static void *early_main(void *arg)
{
    remote_early_t *e = arg;

    e->ops = remote_load(e->why, sizeof(e->why));
    if (e->ops != NULL && e->ops->prestart != NULL) {
        e->state = e->ops->prestart();
    }
    return NULL;
}

void shr_remote_prestart(void)
{
    /* SHIMMER_REMOTE_PES changes what the transport must reach (this node's
     * peers too): publish brings it up itself */
    if (early != NULL || !job_spans_nodes() || shr_env_get_raw("SHIMMER_REMOTE_PES") != NULL) {
        return;
    }
    early = calloc(1, sizeof(*early));
    if (early != NULL && pthread_create(&early->thread, NULL, early_main, early) != 0) {
        free(early);
        early = NULL; /* publish does the work itself */
    }
}

void shr_remote_prestart_cancel(void)
{
    if (early == NULL) {
        return;
    }
    pthread_join(early->thread, NULL);
    /* The transport's start-up state is left as it is (the table has no
     * operation to drop it): init is failing, and says why. */
    free(early);
    early = NULL;
}

shr_status_t shr_remote_publish(const char *routine)
{
    const shr_remote_ops_t *ops;
    char why[SHR_REMOTE_WHY_MAX] = "";
    void *state = NULL;

#ifdef SHR_REMOTE_BUILTIN
    /* built in, its libraries came with the program: tame them even when
     * the job never uses them */
    remote_attach(SHR_REMOTE_BUILTIN);
#endif
    if (early != NULL) {
        pthread_join(early->thread, NULL);
        ops = early->ops;
        state = early->state;
        snprintf(why, sizeof(why), "%s", early->why);
        free(early);
        early = NULL;
    } else if (shr_g.n_pes > 1 && (job_spans_nodes() || shr_config.remote_pes[0] != '\0')) {
        ops = remote_load(why, sizeof(why));
    } else {
        return SHR_OK; /* every PE shares this node's memory */
    }
    if (ops == NULL) {
        shr_error("%s: %s", routine, why);
        return SHR_ERR_UNSUPPORTED;
    }
    remote_attach(ops);
    shr_remote = ops;
    return ops->publish(routine, state);
}

shr_status_t shr_remote_init(const char *routine)
{
    unsigned caps = 0;
    shr_status_t status = shr_remote->init(routine, &caps);

    if (status != SHR_OK) {
        return status;
    }
    shr_remote_caps = caps;
    shr_g.needs_progress = shr_g.has_remote && (caps & SHR_REMOTE_CAP_TARGET_PROGRESS) != 0;
    if (shr_g.has_remote && !(caps & SHR_REMOTE_CAP_CPU_ATOMICS)) {
        shr_warn("%s: the %s transport does not apply atomic operations as CPU atomics at the "
                 "target, so those of other nodes are not atomic with this node's on the same "
                 "words; for UCX, leave UCX_ATOMIC_MODE unset", routine, shr_remote->name);
    }
    return SHR_OK;
}

bool shr_remote_final_barrier(void (*watch)(void))
{
    return shr_remote->final_barrier(watch);
}

void shr_remote_fini(void)
{
    shr_remote->fini();
    shr_remote = &shr_remote_none;
    shr_remote_caps = 0;
}

void shr_remote_describe(FILE *out)
{
#if defined(SHR_REMOTE_BUILTIN)
    fprintf(out, "ucx (other nodes; built in)");
#elif defined(SHR_REMOTE_PLUGIN_FILE)
    char path[PATH_MAX + 64];
    char why[SHR_REMOTE_WHY_MAX];

    plugin_path(path, sizeof(path));
    if (access(path, R_OK) != 0) {
        fprintf(out, "ucx (other nodes): plugin %s MISSING", path);
    } else if (plugin_load(why, sizeof(why)) == NULL) {
        fprintf(out, "ucx (other nodes): plugin %s does not load: %s", path, why);
    } else {
        fprintf(out, "ucx (other nodes): plugin %s", path);
    }
#else
    fprintf(out, "no remote transport (built without UCX)");
#endif
}
