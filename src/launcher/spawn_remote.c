/*
 * spawn_remote.c -- multi-host jobs are handed to an installed PMIx launcher
 * (Open MPI's mpirun) rather than reinventing remote process start-up; the
 * PEs then bootstrap through PMIx.  oshrun replaces itself with mpirun, so
 * signals and the exit status are mpirun's own.
 */
#include "launcher/launch_int.h"

#include <errno.h>
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
    argv = calloc(16 + 2 * (opts->n_env_set + opts->n_env_pass) + nprog, sizeof(*argv));
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
    /* A nested oshrun must not hand its own PE channel to mpirun's PEs. */
    unsetenv(SHR_BOOT_ENV_FD);
    unsetenv(SHR_BOOT_ENV_RANK);
    unsetenv(SHR_BOOT_ENV_SIZE);
    /* When a PE dies, mpirun's daemons give the others a second between
     * SIGTERM and SIGKILL: the job took 2-3 s to end.  PEs keep nothing that
     * needs that second (memfds go with the process), so kill at once: the
     * job then ends within 0.1 s of the death (docs/multinode.md).  An
     * environment variable, so an mpirun that does not know it ignores it;
     * the user's own setting wins. */
    setenv("OMPI_MCA_odls_base_sigkill_timeout", "0", 0);
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
