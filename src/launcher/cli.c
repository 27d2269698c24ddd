/* cli.c -- oshrun's command line: options, usage, version. */
#include "launcher/launch_int.h"
#include "util/str.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SHIMMER_VERSION_STRING
#define SHIMMER_VERSION_STRING "unknown"
#endif

typedef enum {
    SHR_LAUNCH_OPT_NP,
    SHR_LAUNCH_OPT_ENV,
    SHR_LAUNCH_OPT_TIMEOUT,
    SHR_LAUNCH_OPT_HOSTFILE,
    SHR_LAUNCH_OPT_HOSTS,
    SHR_LAUNCH_OPT_PER_NODE,
    SHR_LAUNCH_OPT_HELP,
    SHR_LAUNCH_OPT_VERSION,
    SHR_LAUNCH_OPT_BIND,
    SHR_LAUNCH_OPT_MAP,
    SHR_LAUNCH_OPT_REPORT_BINDINGS,
    SHR_LAUNCH_OPT_VERBOSE,
    SHR_LAUNCH_OPT_IGNORED
} shr_launch_opt_kind_t;

/* Every option oshrun knows; spellings follow Open MPI's mpirun so that
 * scripts written for it work unchanged. */
static const struct {
    const char *name;
    shr_launch_opt_kind_t kind;
    bool has_value;
} shr_launch_opt_table[] = {
    {"-n", SHR_LAUNCH_OPT_NP, true},
    {"-np", SHR_LAUNCH_OPT_NP, true},
    {"--np", SHR_LAUNCH_OPT_NP, true},
    {"-x", SHR_LAUNCH_OPT_ENV, true},
    {"--timeout", SHR_LAUNCH_OPT_TIMEOUT, true},
    {"--hostfile", SHR_LAUNCH_OPT_HOSTFILE, true},
    {"-hostfile", SHR_LAUNCH_OPT_HOSTFILE, true},
    {"-H", SHR_LAUNCH_OPT_HOSTS, true},
    {"--host", SHR_LAUNCH_OPT_HOSTS, true},
    {"-host", SHR_LAUNCH_OPT_HOSTS, true},
    {"-N", SHR_LAUNCH_OPT_PER_NODE, true},
    {"--npernode", SHR_LAUNCH_OPT_PER_NODE, true},
    {"-npernode", SHR_LAUNCH_OPT_PER_NODE, true},
    {"--map-by", SHR_LAUNCH_OPT_MAP, true},
    {"-map-by", SHR_LAUNCH_OPT_MAP, true},
    {"--report-bindings", SHR_LAUNCH_OPT_REPORT_BINDINGS, false},
    {"-report-bindings", SHR_LAUNCH_OPT_REPORT_BINDINGS, false},
    {"-v", SHR_LAUNCH_OPT_VERBOSE, false},
    {"--verbose", SHR_LAUNCH_OPT_VERBOSE, false},
    {"-h", SHR_LAUNCH_OPT_HELP, false},
    {"--help", SHR_LAUNCH_OPT_HELP, false},
    {"--version", SHR_LAUNCH_OPT_VERSION, false},
    {"--bind-to", SHR_LAUNCH_OPT_BIND, true},
    {"-bind-to", SHR_LAUNCH_OPT_BIND, true},
    {"--allow-run-as-root", SHR_LAUNCH_OPT_IGNORED, false},
    {"--oversubscribe", SHR_LAUNCH_OPT_IGNORED, false},
};

static const char shr_launch_usage_text[] =
    "usage: oshrun -n N [options] program [args...]\n"
    "Starts N PEs of an OpenSHMEM program on this host.\n"
    "\n"
    "  -n, -np, --np N   number of PEs (1..4096); -n=N works too\n"
    "  -x VAR=VALUE      set VAR in the environment of every PE\n"
    "  -x VAR            pass VAR on to the PEs (matters for multi-host jobs)\n"
    "  --timeout S       end the job after S seconds (exit status 124)\n"
    "  --map-by core|socket|node|ppr:N:node\n"
    "                    which core each PE gets: consecutive cores (core, node),\n"
    "                    round robin over sockets (socket); ppr:N:node = -N N\n"
    "  --bind-to core|socket|none\n"
    "                    pin each PE to its core or its socket (default: core; with\n"
    "                    more PEs than cores, consecutive PEs share one)\n"
    "  --report-bindings print each PE's binding on stderr\n"
    "  -N, --npernode N  PEs per node (multi-host: handed to mpirun or srun)\n"
    "  -v, --verbose     say what oshrun decides (delegation, its command)\n"
    "  -h, --help        show this help\n"
    "  --version         show the version\n"
    "  --allow-run-as-root, --oversubscribe   accepted and ignored (Open MPI scripts)\n"
    "\n"
    "Multi-host jobs (--hostfile F, -H host1,host2, -N PEs-per-node) are handed\n"
    "to an installed PMIx launcher (Open MPI's mpirun); inside a Slurm allocation\n"
    "of several nodes, to srun --mpi=pmix.  The options above go with them.\n"
    "\n"
    "Exit status: 0 if every PE exited 0; else that of the first PE to fail\n"
    "(128+signal if it was killed, its status if it called shmem_global_exit),\n"
    "124 on --timeout, 128+signal if oshrun itself was signalled, 2 for usage\n"
    "errors, 126/127 if the program cannot be run.\n";

void shr_launch_error(const char *fmt, ...)
{
    char line[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "oshrun: error: %s\n", line);
}

static bool shr_launch_cli_is_env_name(const char *name, size_t len)
{
    if (len == 0 || !(isalpha((unsigned char)name[0]) || name[0] == '_')) {
        return false;
    }
    for (size_t i = 1; i < len; i++) {
        if (!(isalnum((unsigned char)name[i]) || name[i] == '_')) {
            return false;
        }
    }
    return true;
}

/* Applies one option with its value; returns false after reporting. */
static bool shr_launch_cli_apply(shr_launch_opt_kind_t kind, const char *name,
                                 const char *value, shr_launch_opts_t *opts)
{
    const char *eq;
    char *end;
    long n;

    switch (kind) {
    case SHR_LAUNCH_OPT_NP:
        if (shr_str_to_long(value, 1, LONG_MAX, &n) != SHR_OK) {
            shr_launch_error("%s '%s': the number of PEs must be a positive integer "
                             "(e.g. -n 4)", name, value);
            return false;
        }
        if (opts->npes != 0 && opts->npes != n) {
            /* which one the user meant is a guess; mpirun refuses too */
            shr_launch_error("%s %s: the number of PEs is already %ld; give it once", name,
                             value, opts->npes);
            return false;
        }
        opts->npes = n;
        return true;
    case SHR_LAUNCH_OPT_PER_NODE:
        if (shr_str_to_long(value, 1, SHR_BOOT_MAX_PES, &n) != SHR_OK) {
            shr_launch_error("%s '%s': PEs per node must be an integer in 1..%d", name,
                             value, SHR_BOOT_MAX_PES);
            return false;
        }
        if (opts->per_node != 0 && opts->per_node != n) {
            shr_launch_error("%s %s: PEs per node is already %ld; give it once", name, value,
                             opts->per_node);
            return false;
        }
        opts->per_node = n;
        return true;
    case SHR_LAUNCH_OPT_ENV:
        eq = strchr(value, '=');
        if (!shr_launch_cli_is_env_name(value, eq != NULL ? (size_t)(eq - value)
                                                          : strlen(value))) {
            shr_launch_error("%s '%s': expected VAR or VAR=VALUE with VAR a variable "
                             "name", name, value);
            return false;
        }
        if (eq != NULL) {
            opts->env_set[opts->n_env_set++] = value;
        } else {
            opts->env_pass[opts->n_env_pass++] = value;
        }
        return true;
    case SHR_LAUNCH_OPT_TIMEOUT:
        opts->timeout_s = strtod(value, &end);
        if (end == value || *end != '\0' || !isfinite(opts->timeout_s) ||
            opts->timeout_s <= 0 || opts->timeout_s > 1e9) {
            shr_launch_error("%s '%s': expected a positive number of seconds", name,
                             value);
            return false;
        }
        return true;
    case SHR_LAUNCH_OPT_BIND:
        if (strcmp(value, "core") == 0) {
            opts->bind = SHR_LAUNCH_BIND_CORE;
        } else if (strcmp(value, "socket") == 0) {
            opts->bind = SHR_LAUNCH_BIND_SOCKET;
        } else if (strcmp(value, "none") == 0) {
            opts->bind = SHR_LAUNCH_BIND_NONE;
        } else {
            shr_launch_error("%s '%s': expected core, socket or none", name, value);
            return false;
        }
        return true;
    case SHR_LAUNCH_OPT_MAP:
        opts->map_by = value;
        if (strcmp(value, "core") == 0) {
            opts->map = SHR_LAUNCH_MAP_CORE;
        } else if (strcmp(value, "socket") == 0) {
            opts->map = SHR_LAUNCH_MAP_SOCKET;
        } else if (strcmp(value, "node") == 0) {
            opts->map = SHR_LAUNCH_MAP_NODE;
        } else if (strncmp(value, "ppr:", 4) == 0 &&
                   (n = strtol(value + 4, &end, 10)) >= 1 && n <= SHR_BOOT_MAX_PES &&
                   strcmp(end, ":node") == 0) {
            char count[24];
            opts->map = SHR_LAUNCH_MAP_PPR;
            snprintf(count, sizeof(count), "%ld", n);
            return shr_launch_cli_apply(SHR_LAUNCH_OPT_PER_NODE, name, count, opts);
        } else {
            shr_launch_error("%s '%s': expected core, socket, node or ppr:N:node", name, value);
            return false;
        }
        return true;
    case SHR_LAUNCH_OPT_REPORT_BINDINGS:
        opts->report_bindings = true;
        return true;
    case SHR_LAUNCH_OPT_VERBOSE:
        opts->verbose = true;
        return true;
    case SHR_LAUNCH_OPT_HOSTFILE:
        opts->hostfile = value;
        return true;
    case SHR_LAUNCH_OPT_HOSTS:
        opts->hosts = value;
        return true;
    case SHR_LAUNCH_OPT_HELP:
    case SHR_LAUNCH_OPT_VERSION:
    case SHR_LAUNCH_OPT_IGNORED:
        break;
    }
    return true;
}

/* Finds `arg` (or its part before '=') in the table; -1 if unknown. */
static int shr_launch_cli_lookup(const char *arg, const char **inline_value_p)
{
    const char *eq = strchr(arg, '=');
    size_t len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
    size_t count = sizeof(shr_launch_opt_table) / sizeof(shr_launch_opt_table[0]);

    for (size_t i = 0; i < count; i++) {
        const char *name = shr_launch_opt_table[i].name;
        if (strlen(name) == len && strncmp(name, arg, len) == 0 &&
            (eq == NULL || shr_launch_opt_table[i].has_value)) {
            *inline_value_p = eq != NULL ? eq + 1 : NULL;
            return (int)i;
        }
    }
    return -1;
}

void shr_launch_cli_fini(shr_launch_opts_t *opts)
{
    free(opts->env_set);
    free(opts->env_pass);
    opts->env_set = opts->env_pass = NULL;
}

static int shr_launch_cli_parse_opts(int argc, char **argv, shr_launch_opts_t *opts);

int shr_launch_cli_parse(int argc, char **argv, shr_launch_opts_t *opts_p)
{
    shr_launch_opts_t opts = {0};
    int ret = shr_launch_cli_parse_opts(argc, argv, &opts);

    if (ret >= 0) {
        shr_launch_cli_fini(&opts);
        return ret;
    }
    *opts_p = opts;
    return ret;
}

static int shr_launch_cli_parse_opts(int argc, char **argv, shr_launch_opts_t *opts)
{
    int i;

    /* -x can repeat at most argc times. */
    opts->env_set = calloc((size_t)argc, sizeof(*opts->env_set));
    opts->env_pass = calloc((size_t)argc, sizeof(*opts->env_pass));
    if (opts->env_set == NULL || opts->env_pass == NULL) {
        shr_launch_error("out of memory");
        return 1;
    }
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *arg = argv[i], *value = NULL;
        int idx;

        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        idx = shr_launch_cli_lookup(arg, &value);
        if (idx < 0 && strncmp(arg, "-n", 2) == 0 && isdigit((unsigned char)arg[2])) {
            idx = 0; /* -n4, as srun spells it */
            value = arg + 2;
        }
        if (idx < 0) {
            shr_launch_error("unknown option '%s'; see 'oshrun --help'", arg);
            return 2;
        }
        switch (shr_launch_opt_table[idx].kind) {
        case SHR_LAUNCH_OPT_HELP:
            fputs(shr_launch_usage_text, stdout);
            return 0;
        case SHR_LAUNCH_OPT_VERSION:
            printf("oshrun (Shimmer) %s, boot protocol %u\n", SHIMMER_VERSION_STRING,
                   SHR_BOOT_PROTO_VERSION);
            return 0;
        default:
            break;
        }
        if (shr_launch_opt_table[idx].has_value && value == NULL) {
            if (i + 1 >= argc) {
                shr_launch_error("option %s needs a value; see 'oshrun --help'", arg);
                return 2;
            }
            value = argv[++i];
        }
        if (!shr_launch_cli_apply(shr_launch_opt_table[idx].kind,
                                  shr_launch_opt_table[idx].name, value, opts)) {
            return 2;
        }
    }
    if (i >= argc) {
        shr_launch_error("no program given; usage: oshrun -n N program [args...]");
        return 2;
    }
    opts->argv = &argv[i];
    return -1;
}
