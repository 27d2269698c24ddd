/*
 * launch_int.h -- private to src/launcher: the job oshrun runs and the
 * functions its files share.  oshrun is single-threaded and event-driven
 * (one epoll set: signals, timers, one socket per PE), so nothing here is
 * thread-safe and nothing blocks except epoll_wait in oshrun.c.
 */
#ifndef SHR_LAUNCH_INT_H
#define SHR_LAUNCH_INT_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "boot/boot_proto.h"

/* What the command line asked for (cli.c). */
typedef struct {
    long npes;              /* -n; 0 when not given */
    char **argv;            /* program and its arguments (main's argv) */
    const char **env_set;   /* -x VAR=VALUE, in order */
    size_t n_env_set;
    const char **env_pass;  /* -x VAR (meaningful for multi-host) */
    size_t n_env_pass;
    double timeout_s;       /* --timeout; 0 = none */
    const char *hostfile;   /* --hostfile: multi-host, delegated */
    const char *hosts;      /* -H a,b */
    long per_node;          /* -N, --npernode, --map-by ppr:N:node; 0 when not given */
    int bind;               /* --bind-to: SHR_LAUNCH_BIND_* */
    int map;                /* --map-by: SHR_LAUNCH_MAP_* */
    const char *map_by;     /* --map-by as given (passed on when delegating) */
    bool report_bindings;   /* --report-bindings */
    bool verbose;           /* -v: say what oshrun decides */
} shr_launch_opts_t;

/* --bind-to: auto binds each PE to one core: its own when there are
 * enough cores, else consecutive PEs share one (place.c says why). */
enum { SHR_LAUNCH_BIND_AUTO, SHR_LAUNCH_BIND_CORE, SHR_LAUNCH_BIND_SOCKET, SHR_LAUNCH_BIND_NONE };
/* --map-by: which core PE i gets (place.c) */
enum { SHR_LAUNCH_MAP_CORE, SHR_LAUNCH_MAP_SOCKET, SHR_LAUNCH_MAP_NODE, SHR_LAUNCH_MAP_PPR };

/* The cores oshrun may use, ordered by socket then core (place.c). */
typedef struct shr_launch_core shr_launch_core_t;
typedef struct {
    shr_launch_core_t *cores;
    int ncores;
    int nsockets;
} shr_launch_topology_t;

/* Reads the topology of the CPUs oshrun may use; false if it cannot. */
bool shr_launch_topology_init(shr_launch_topology_t *topo);
void shr_launch_topology_fini(shr_launch_topology_t *topo);
/* PE `rank` of `npes`: fills *set and returns true when it is to be bound;
 * `what` says where it runs, for --report-bindings ("bound to CPU 3 (core 3
 * of socket 0)", "not bound"). */
bool shr_launch_place(const shr_launch_topology_t *topo, const shr_launch_opts_t *opts,
                      int npes, int rank, cpu_set_t *set, char *what, size_t what_len);

/* The result of one collective, shared by the replies to every PE. */
typedef struct {
    shr_boot_msg_hdr_t hdr; /* COLL_DONE header sent to each PE */
    uint64_t blob_len;      /* bytes per PE; fixed by the first contributor */
    bool sized;             /* blob_len and buf set (by the first header) */
    int count;              /* PEs whose contribution is complete */
    int refs;               /* replies still being sent */
    char *buf;              /* npes * blob_len bytes, rank order */
    int memfd;              /* >= 0: buf is this memfd mapped (large results) */
} shr_launch_round_t;

typedef struct {
    pid_t pid;            /* 0 until forked */
    int fd;               /* oshrun's end of the socketpair; -1 once closed */
    bool running;         /* forked and not reaped yet */
    bool in_coll;         /* contributed to the current round */
    bool finalizes_at_exit; /* its HELLO promised FINALIZED from exit handlers */
    bool finalized;       /* said FINALIZED since its last HELLO */
    /* input being assembled */
    shr_boot_msg_hdr_t hdr;
    size_t hdr_got;
    char *body;           /* where the payload goes */
    size_t body_got;
    char small[SHR_BOOT_MAX_TEXT]; /* hello and abort payloads */
    /* output in flight: at most one reply per PE */
    shr_launch_round_t *out;
    size_t out_off;       /* bytes of header + payload sent */
    bool out_armed;       /* EPOLLOUT registered */
} shr_launch_pe_t;

typedef struct {
    const shr_launch_opts_t *opts;
    int npes;
    shr_launch_pe_t *pes;
    int epfd;
    int sigfd;
    int timeout_fd;       /* --timeout */
    int grace_fd;         /* SIGKILL after the grace period */
    int nrunning;         /* PEs forked and not reaped */
    int ngone;            /* PEs reaped */
    bool ending;          /* SIGTERM sent, grace timer armed */
    bool killed;          /* SIGKILL sent */
    bool have_status;     /* the job's exit status is decided */
    int status;
    uint32_t seq;         /* collectives completed */
    shr_launch_round_t *round; /* collective being gathered, or NULL */
    char job_id[64];
    sigset_t child_mask;  /* oshrun's signal mask before it blocked any */
    struct rlimit child_nofile; /* open-file limit to give back to PEs */
} shr_launch_job_t;

/* epoll tags that are not PE ranks */
#define SHR_LAUNCH_TAG_SIGNAL  UINT32_MAX
#define SHR_LAUNCH_TAG_TIMEOUT (UINT32_MAX - 1)
#define SHR_LAUNCH_TAG_GRACE   (UINT32_MAX - 2)

/* Seconds between SIGTERM and SIGKILL when ending a job. */
#define SHR_LAUNCH_GRACE_S 2

/* cli.c: parses argv into *opts_p.  Returns -1 to go on and run, otherwise
 * the exit status oshrun should end with (0 after --help/--version, 2 after a
 * usage error, which it has already reported). */
int shr_launch_cli_parse(int argc, char **argv, shr_launch_opts_t *opts_p);
/* Frees what a successful shr_launch_cli_parse allocated. */
void shr_launch_cli_fini(shr_launch_opts_t *opts);

/* Prints `oshrun: error: <fmt>` as one line to stderr. */
void shr_launch_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* spawn_local.c: finds the program like execvp would.  On success stores a
 * malloc'ed path in *path_p and returns 0; otherwise reports and returns the
 * exit status (127 not found, 126 not executable). */
int shr_launch_prog_resolve(const char *prog, char **path_p);

/* spawn_local.c: forks and execs every PE of the job.  Returns false if a PE
 * could not be started (reported; the job is ending). */
bool shr_launch_spawn_local(shr_launch_job_t *job, const char *path);

/* spawn_remote.c: runs a multi-host job through an installed PMIx launcher
 * (mpirun); returns only on failure, with the exit status. */
int shr_launch_spawn_remote(const shr_launch_opts_t *opts);
/* True inside a Slurm allocation of more than one node (sets *nodes_p):
 * oshrun -n N must not then put every PE on the first node. */
bool shr_launch_in_slurm_allocation(long *nodes_p);
/* Runs the job through srun --mpi=pmix; returns only on failure. */
int shr_launch_spawn_srun(const shr_launch_opts_t *opts, long nodes);

/* kvs.c: serves the boot protocol. */
/* Reads and acts on everything the PE's socket holds now (never blocks);
 * closes oshrun's end on EOF or a protocol violation. */
void shr_launch_kvs_on_input(shr_launch_job_t *job, int rank);
/* Sends as much of the PE's pending reply as its socket takes now. */
void shr_launch_kvs_on_output(shr_launch_job_t *job, int rank);
/* Reads what a PE left in its socket, then closes oshrun's end. */
void shr_launch_kvs_drain(shr_launch_job_t *job, int rank);
/* Ends the job if a PE that is gone holds up the current collective. */
void shr_launch_kvs_check_stuck(shr_launch_job_t *job);
/* Closes every PE socket and frees collective state. */
void shr_launch_kvs_fini(shr_launch_job_t *job);

/* teardown.c: signals, exits and the end of the job. */
/* Blocks the signals oshrun handles, creates the signalfd and the timers,
 * and watches them in job->epfd; arms --timeout.  False on failure. */
bool shr_launch_signals_init(shr_launch_job_t *job);
/* The signalfd is readable: stop requests first, then reaps exited PEs. */
void shr_launch_on_signal(shr_launch_job_t *job);
/* --timeout expired: status 124, end the job. */
void shr_launch_on_timeout(shr_launch_job_t *job);
/* The grace period after SIGTERM is over (or oshrun gives up): SIGKILL. */
void shr_launch_on_grace(shr_launch_job_t *job);
/* After the last PE: ends the processes the PEs left behind (teardown.c). */
void shr_launch_end_strays(shr_launch_job_t *job);
/* Decides the job's exit status if nobody did yet; true if this call did
 * (the caller then reports why). */
bool shr_launch_job_set_status(shr_launch_job_t *job, int status);
/* SIGTERM to every running PE, SIGKILL after the grace period.  Idempotent. */
void shr_launch_job_end(shr_launch_job_t *job);
/* Reports a PE that broke the protocol and ends the job with status 1. */
void shr_launch_job_fail(shr_launch_job_t *job, int rank, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* " ending the job" suffix when other PEs are still running, else "". */
const char *shr_launch_job_ending_text(const shr_launch_job_t *job);

#endif
