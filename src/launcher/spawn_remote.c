/*
 * spawn_remote.c -- multi-host jobs are handed to an installed PMIx launcher
 * (Open MPI's mpirun) rather than reinventing remote process start-up; the
 * PEs then bootstrap through PMIx.  oshrun replaces itself with mpirun, so
 * signals and the exit status are mpirun's own.
 */
#include "launcher/launch_int.h"
#include "util/str.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The Open MPI options that oshrun's own translate to. */
/* mpirun gives a host named with -H one slot; oshrun's -H a,b means "these
 * hosts", with -N PEs each (or -n spread over them): "a:k,b:k".  Hosts that
 * carry their own ":slots" keep them.  NULL when nothing needs adding or
 * memory is short (then the list goes as given). */
static char *shr_launch_remote_hosts(const shr_launch_opts_t *opts)
{
    long nhosts = 1, slots;
    size_t len = strlen(opts->hosts);
    char *out, *p;

    for (const char *c = opts->hosts; *c != '\0'; c++) {
        nhosts += *c == ',';
    }
    slots = opts->per_node > 0 ? opts->per_node
            : opts->npes > 0   ? (opts->npes + nhosts - 1) / nhosts
                               : 0;
    if (slots <= 1) {
        return NULL;
    }
    out = malloc(len + (size_t)nhosts * 24 + 1);
    if (out == NULL) {
        return NULL;
    }
    p = out;
    for (const char *h = opts->hosts; *h != '\0';) {
        size_t hl = strcspn(h, ",");
        memcpy(p, h, hl);
        p += hl;
        if (memchr(h, ':', hl) == NULL) {
            p += sprintf(p, ":%ld", slots);
        }
        h += hl;
        if (*h == ',') {
            *p++ = *h++;
        }
    }
    *p = '\0';
    return out;
}

static char **shr_launch_remote_argv(const shr_launch_opts_t *opts, char *np, char *ppr,
                                     char *timeout, char *hosts)
{
    size_t nprog = 0, n = 0;
    char **argv;

    while (opts->argv[nprog] != NULL) {
        nprog++;
    }
    argv = calloc(24 + 2 * (opts->n_env_set + opts->n_env_pass) + nprog, sizeof(*argv));
    if (argv == NULL) {
        return NULL;
    }
    argv[n++] = "mpirun";
    if (opts->npes > 0) {
        snprintf(np, 32, "%ld", opts->npes);
        argv[n++] = "-np";
        argv[n++] = np;
    }
    if (opts->hostfile != NULL) {
        argv[n++] = "--hostfile";
        argv[n++] = (char *)opts->hostfile;
    }
    if (opts->hosts != NULL) {
        argv[n++] = "-H";
        argv[n++] = hosts != NULL ? hosts : (char *)opts->hosts;
    }
    if (opts->per_node > 0) {
        snprintf(ppr, 48, "ppr:%ld:node", opts->per_node);
        argv[n++] = "--map-by";
        argv[n++] = ppr;
    } else if (opts->map_by != NULL) {
        argv[n++] = "--map-by";
        argv[n++] = (char *)opts->map_by;
    }
    if (opts->bind != SHR_LAUNCH_BIND_AUTO) {
        argv[n++] = "--bind-to";
        argv[n++] = opts->bind == SHR_LAUNCH_BIND_CORE     ? "core"
                    : opts->bind == SHR_LAUNCH_BIND_SOCKET ? "socket"
                                                           : "none";
    }
    if (opts->report_bindings) {
        argv[n++] = "--report-bindings";
    }
    if (opts->timeout_s > 0) {
        snprintf(timeout, 32, "%.0f", ceil(opts->timeout_s));
        argv[n++] = "--timeout";
        argv[n++] = timeout;
    }
    for (size_t i = 0; i < opts->n_env_pass; i++) {
        argv[n++] = "-x";
        argv[n++] = (char *)opts->env_pass[i];
    }
    for (size_t i = 0; i < opts->n_env_set; i++) {
        argv[n++] = "-x";
        argv[n++] = (char *)opts->env_set[i];
    }
    if (geteuid() == 0) {
        argv[n++] = "--allow-run-as-root"; /* mpirun refuses root otherwise */
    }
    argv[n++] = "--";
    for (size_t i = 0; i < nprog; i++) {
        argv[n++] = opts->argv[i];
    }
    return argv;
}

/* -v: the command oshrun is about to become, on one line. */
static void shr_launch_say_handover(const shr_launch_opts_t *opts, const char *why,
                                    char **argv)
{
    if (!opts->verbose) {
        return;
    }
    fprintf(stderr, "oshrun: %s; handing the job to:", why);
    for (size_t i = 0; argv[i] != NULL; i++) {
        fprintf(stderr, " %s", argv[i]);
    }
    fputc('\n', stderr);
}

/* A nested oshrun must not hand its own PE channel to the launcher's PEs. */
static void shr_launch_forget_own_job(void)
{
    unsetenv(SHR_BOOT_ENV_FD);
    unsetenv(SHR_BOOT_ENV_RANK);
    unsetenv(SHR_BOOT_ENV_SIZE);
}

bool shr_launch_in_slurm_allocation(long *nodes_p)
{
    const char *job = getenv("SLURM_JOB_ID"), *nodes = getenv("SLURM_JOB_NUM_NODES");
    long n;

    if (nodes == NULL) {
        nodes = getenv("SLURM_NNODES");
    }
    if (job == NULL || nodes == NULL || shr_str_to_long(nodes, 1, LONG_MAX, &n) != SHR_OK) {
        return false;
    }
    *nodes_p = n;
    return n > 1;
}

/* srun --mpi=pmix with oshrun's options in Slurm's spelling. */
int shr_launch_spawn_srun(const shr_launch_opts_t *opts, long nodes)
{
    char np[32], ppn[48], time_limit[48], bind[48], why[96];
    size_t nprog = 0, n = 0;
    char **argv;

    while (opts->argv[nprog] != NULL) {
        nprog++;
    }
    argv = calloc(16 + nprog, sizeof(*argv));
    if (argv == NULL) {
        shr_launch_error("out of memory");
        return 1;
    }
    argv[n++] = "srun";
    argv[n++] = "--mpi=pmix";
    if (opts->npes > 0) {
        snprintf(np, sizeof(np), "--ntasks=%ld", opts->npes);
        argv[n++] = np;
    }
    if (opts->per_node > 0) {
        snprintf(ppn, sizeof(ppn), "--ntasks-per-node=%ld", opts->per_node);
        argv[n++] = ppn;
    }
    if (opts->map_by != NULL && opts->map != SHR_LAUNCH_MAP_PPR) {
        /* core: consecutive ranks on a node; socket: round robin over the
         * node's sockets; node: round robin over the nodes */
        argv[n++] = opts->map == SHR_LAUNCH_MAP_SOCKET ? "--distribution=block:cyclic"
                    : opts->map == SHR_LAUNCH_MAP_NODE ? "--distribution=cyclic"
                                                       : "--distribution=block:block";
    }
    if (opts->bind != SHR_LAUNCH_BIND_AUTO || opts->report_bindings) {
        const char *how = opts->bind == SHR_LAUNCH_BIND_SOCKET ? "sockets"
                          : opts->bind == SHR_LAUNCH_BIND_NONE ? "none"
                                                               : "cores";
        snprintf(bind, sizeof(bind), "--cpu-bind=%s%s", opts->report_bindings ? "verbose," : "",
                 how);
        argv[n++] = bind;
    }
    if (opts->timeout_s > 0) {
        /* Slurm counts whole minutes; the step then ends as TIMEOUT */
        snprintf(time_limit, sizeof(time_limit), "--time=%.0f", ceil(opts->timeout_s / 60));
        argv[n++] = time_limit;
    }
    for (size_t i = 0; i < nprog; i++) {
        argv[n++] = opts->argv[i];
    }
    /* srun passes the whole environment: -x VAR=VALUE goes in it */
    for (size_t i = 0; i < opts->n_env_set; i++) {
        putenv((char *)opts->env_set[i]);
    }
    shr_launch_forget_own_job();
    snprintf(why, sizeof(why), "inside Slurm allocation %s of %ld nodes", getenv("SLURM_JOB_ID"),
             nodes);
    shr_launch_say_handover(opts, why, argv);
    fflush(NULL);
    execvp(argv[0], argv);
    int err = errno;
    free(argv);
    shr_launch_error("%s but cannot run srun: %s; use -n N with --hostfile/-H, or run srun "
                     "--mpi=pmix yourself", why, strerror(err));
    return err == ENOENT ? 127 : 126;
}

int shr_launch_spawn_remote(const shr_launch_opts_t *opts)
{
    char np[32], ppr[48], timeout[32];
    char *hosts = opts->hosts != NULL ? shr_launch_remote_hosts(opts) : NULL;
    char **argv = shr_launch_remote_argv(opts, np, ppr, timeout, hosts);
    int err;

    if (argv == NULL) {
        shr_launch_error("out of memory");
        return 1;
    }
    shr_launch_forget_own_job();
    /* When a PE dies, mpirun's daemons give the others a second between
     * SIGTERM and SIGKILL: the job took 2-3 s to end.  PEs keep nothing that
     * needs that second (memfds go with the process), so kill at once: the
     * job then ends within 0.1 s of the death (docs/multinode.md).  An
     * environment variable, so an mpirun that does not know it ignores it;
     * the user's own setting wins. */
    setenv("OMPI_MCA_odls_base_sigkill_timeout", "0", 0);
    shr_launch_say_handover(opts, "a multi-host job", argv);
    fflush(NULL);
    execvp(argv[0], argv);
    err = errno;
    free(argv);
    free(hosts);
    if (err == ENOENT) {
        shr_launch_error("multi-host jobs (--hostfile, -H, -N) need Open MPI's mpirun in "
                         "PATH (Debian: openmpi-bin); or run on one host with -n N only");
    } else {
        shr_launch_error("cannot run mpirun for a multi-host job: %s", strerror(err));
    }
    return err == ENOENT ? 127 : 126;
}
