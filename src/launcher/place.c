/*
 * place.c -- where the PEs of a one-host job run: --map-by picks each PE's
 * core, --bind-to how much of the machine it may use there, and
 * --report-bindings says so.  The topology is the kernel's (sysfs): cores
 * are (socket, core id) pairs of the CPUs oshrun may use, ordered by socket
 * then core, each with its hardware threads.
 */
#include "launcher/launch_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct shr_launch_core {
    int socket, core;  /* sysfs physical_package_id, core_id */
    cpu_set_t threads; /* the allowed logical CPUs of this core */
};

static int shr_launch_sysfs_int(int cpu, const char *what)
{
    char path[128];
    int v = 0;

    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
    FILE *f = fopen(path, "re");
    if (f != NULL) {
        if (fscanf(f, "%d", &v) != 1) {
            v = 0;
        }
        fclose(f);
    }
    return v;
}

static int shr_launch_core_cmp(const void *a, const void *b)
{
    const shr_launch_core_t *x = a, *y = b;
    return x->socket != y->socket ? (x->socket > y->socket) - (x->socket < y->socket)
                                  : (x->core > y->core) - (x->core < y->core);
}

bool shr_launch_topology_init(shr_launch_topology_t *topo)
{
    cpu_set_t allowed;

    memset(topo, 0, sizeof(*topo));
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
        return false;
    }
    topo->cores = calloc((size_t)CPU_COUNT(&allowed), sizeof(*topo->cores));
    if (topo->cores == NULL) {
        return false;
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed)) {
            continue;
        }
        int socket = shr_launch_sysfs_int(cpu, "physical_package_id");
        int core = shr_launch_sysfs_int(cpu, "core_id"), i;
        for (i = 0; i < topo->ncores; i++) {
            if (topo->cores[i].socket == socket && topo->cores[i].core == core) {
                break;
            }
        }
        if (i == topo->ncores) {
            topo->cores[i].socket = socket;
            topo->cores[i].core = core;
            CPU_ZERO(&topo->cores[i].threads);
            topo->ncores++;
        }
        CPU_SET(cpu, &topo->cores[i].threads);
    }
    qsort(topo->cores, (size_t)topo->ncores, sizeof(*topo->cores), shr_launch_core_cmp);
    for (int i = 0; i < topo->ncores; i++) {
        topo->nsockets += i == 0 || topo->cores[i].socket != topo->cores[i - 1].socket;
    }
    return topo->ncores > 0;
}

void shr_launch_topology_fini(shr_launch_topology_t *topo)
{
    free(topo->cores);
    topo->cores = NULL;
}

/* The index of PE `rank`'s core under the mapping. */
static int shr_launch_core_of(const shr_launch_topology_t *topo, int map, int npes, int rank)
{
    if (map != SHR_LAUNCH_MAP_SOCKET || topo->nsockets < 2) {
        /* core, node, ppr: consecutive cores; more PEs than cores:
         * consecutive PEs share a core (0..k-1 on the first, ...) */
        return npes <= topo->ncores ? rank % topo->ncores
                                    : (int)((long)rank * topo->ncores / npes);
    }
    /* round robin over sockets, then the next core of that socket */
    int socket_no = rank % topo->nsockets, nth = rank / topo->nsockets, first = 0, count = 0;
    for (int i = 0, s = -1; i < topo->ncores; i++) {
        s += i == 0 || topo->cores[i].socket != topo->cores[i - 1].socket;
        if (s == socket_no) {
            first = count == 0 ? i : first;
            count++;
        }
    }
    return first + nth % count;
}

bool shr_launch_place(const shr_launch_topology_t *topo, const shr_launch_opts_t *opts,
                      int npes, int rank, cpu_set_t *set, char *what, size_t what_len)
{
    int bind = opts->bind;

    if (bind == SHR_LAUNCH_BIND_AUTO) {
        /* a core each when they fit; more PEs than cores share them, a
         * block of consecutive PEs a core (--map-by), where mpirun leaves
         * them to the kernel, which stacks waiting PEs that yield onto
         * one core (docs/launcher.md, "More PEs than cores") */
        bind = SHR_LAUNCH_BIND_CORE;
    }
    if (bind == SHR_LAUNCH_BIND_NONE || topo->ncores == 0) {
        snprintf(what, what_len, "not bound");
        return false;
    }
    const shr_launch_core_t *core = &topo->cores[shr_launch_core_of(topo, opts->map, npes, rank)];
    CPU_ZERO(set);
    if (bind == SHR_LAUNCH_BIND_SOCKET) {
        for (int i = 0; i < topo->ncores; i++) {
            if (topo->cores[i].socket == core->socket) {
                CPU_OR(set, set, &topo->cores[i].threads);
            }
        }
    } else {
        CPU_OR(set, set, &core->threads);
    }
    /* "CPUs 0,8": the logical CPUs, then what they are */
    size_t used =
        (size_t)snprintf(what, what_len, "bound to CPU%s ", CPU_COUNT(set) > 1 ? "s" : "");
    for (int cpu = 0, first = 1; cpu < CPU_SETSIZE && used < what_len; cpu++) {
        if (CPU_ISSET(cpu, set)) {
            used +=
                (size_t)snprintf(what + used, what_len - used, "%s%d", first ? "" : ",", cpu);
            first = 0;
        }
    }
    if (used < what_len) {
        if (bind == SHR_LAUNCH_BIND_SOCKET) {
            snprintf(what + used, what_len - used, " (socket %d)", core->socket);
        } else {
            snprintf(what + used, what_len - used, " (core %d of socket %d)", core->core,
                     core->socket);
        }
    }
    return true;
}
