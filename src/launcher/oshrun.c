/*
 * oshrun.c -- main: checks the request, starts the PEs, then waits on one
 * epoll set until every PE is gone.  No sleeps and no polling: signals
 * (including SIGCHLD) arrive through a signalfd, timers through timerfds.
 */
#include "launcher/launch_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

/* PEs and the socketpairs must never land on fds 0-2, or the child's
 * stdin/stdout/stderr would be a boot socket. */
static void shr_launch_std_fds_ensure(void)
{
    int fd;

    do {
        fd = open("/dev/null", O_RDWR);
    } while (fd >= 0 && fd <= STDERR_FILENO);
    if (fd >= 0) {
        close(fd);
    }
}

/* oshrun holds one socket per PE; raise the soft open-file limit if the
 * job needs it (PEs get the original limit back). */
static bool shr_launch_nofile_ensure(shr_launch_job_t *job)
{
    rlim_t need = (rlim_t)job->npes + 32;
    struct rlimit lim;

    if (getrlimit(RLIMIT_NOFILE, &lim) != 0) {
        return true;
    }
    job->child_nofile = lim;
    if (lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur >= need) {
        return true;
    }
    if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < need) {
        shr_launch_error("-n %d needs %llu open files but the limit is %llu; raise it "
                         "(ulimit -n)", job->npes, (unsigned long long)need,
                         (unsigned long long)lim.rlim_max);
        return false;
    }
    lim.rlim_cur = need;
    return setrlimit(RLIMIT_NOFILE, &lim) == 0;
}

static bool shr_launch_job_init(shr_launch_job_t *job, const shr_launch_opts_t *opts)
{
    struct timespec now;

    job->opts = opts;
    job->npes = (int)opts->npes;
    job->epfd = job->sigfd = job->timeout_fd = job->grace_fd = -1;
    clock_gettime(CLOCK_REALTIME, &now);
    snprintf(job->job_id, sizeof(job->job_id), "oshrun-%ld-%lx", (long)getpid(),
             (unsigned long)now.tv_sec * 1000000000ul + (unsigned long)now.tv_nsec);
    job->pes = calloc((size_t)job->npes, sizeof(*job->pes));
    if (job->pes == NULL) {
        shr_launch_error("out of memory for %d PEs", job->npes);
        return false;
    }
    for (int rank = 0; rank < job->npes; rank++) {
        job->pes[rank].fd = -1;
    }
    if (!shr_launch_nofile_ensure(job)) {
        return false;
    }
    job->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (job->epfd < 0 || !shr_launch_signals_init(job)) {
        shr_launch_error("cannot set up the job: %s", strerror(errno));
        return false;
    }
    return true;
}

/* Releases what shr_launch_job_init set up (also after it failed). */
static void shr_launch_job_fini(shr_launch_job_t *job)
{
    int fds[] = {job->epfd, job->sigfd, job->timeout_fd, job->grace_fd};

    if (job->pes != NULL) {
        shr_launch_kvs_fini(job);
    }
    free(job->pes);
    job->pes = NULL;
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
        if (fds[i] >= 0) {
            close(fds[i]);
        }
    }
}

static void shr_launch_job_run(shr_launch_job_t *job)
{
    struct epoll_event evs[64];

    while (job->nrunning > 0) {
        int n = epoll_wait(job->epfd, evs, 64, -1);

        if (n < 0 && errno != EINTR) {
            shr_launch_error("epoll_wait: %s", strerror(errno));
            shr_launch_job_set_status(job, 1);
            shr_launch_on_grace(job); /* cannot watch any more: kill now */
            return;
        }
        for (int i = 0; i < n; i++) {
            uint32_t tag = evs[i].data.u32;

            if (tag == SHR_LAUNCH_TAG_SIGNAL) {
                shr_launch_on_signal(job);
            } else if (tag == SHR_LAUNCH_TAG_TIMEOUT) {
                shr_launch_on_timeout(job);
            } else if (tag == SHR_LAUNCH_TAG_GRACE) {
                shr_launch_on_grace(job);
            } else {
                if (evs[i].events & EPOLLOUT) {
                    shr_launch_kvs_on_output(job, (int)tag);
                }
                if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
                    shr_launch_kvs_on_input(job, (int)tag);
                }
            }
        }
    }
}

static int shr_launch_main(const shr_launch_opts_t *opts);

int main(int argc, char **argv)
{
    shr_launch_opts_t opts;
    int ret;

    shr_launch_std_fds_ensure();
    ret = shr_launch_cli_parse(argc, argv, &opts);
    if (ret >= 0) {
        return ret;
    }
    ret = shr_launch_main(&opts);
    shr_launch_cli_fini(&opts);
    return ret;
}

static int shr_launch_main(const shr_launch_opts_t *opts)
{
    shr_launch_job_t job = {0};
    char *path = NULL;
    int ret;

    long nodes;

    if (opts->hostfile != NULL || opts->hosts != NULL) {
        return shr_launch_spawn_remote(opts);
    }
    /* SOS's oshrun does the same: -n N in a multi-node allocation means the
     * allocation, not this node */
    if (shr_launch_in_slurm_allocation(&nodes)) {
        return shr_launch_spawn_srun(opts, nodes);
    }
    if (opts->per_node > 0) {
        return shr_launch_spawn_remote(opts);
    }
    if (opts->npes == 0) {
        shr_launch_error("the number of PEs is missing; add -n N (e.g. oshrun -n 4 %s)",
                         opts->argv[0]);
        return 2;
    }
    if (opts->npes > SHR_BOOT_MAX_PES) {
        shr_launch_error("-n %ld: too many PEs for one host (at most %d)", opts->npes,
                         SHR_BOOT_MAX_PES);
        return 2;
    }
    /* Before any fork: a wrong program name is one line, not N failures. */
    ret = shr_launch_prog_resolve(opts->argv[0], &path);
    if (ret != 0) {
        return ret;
    }
    if (shr_launch_job_init(&job, opts)) {
        if (!shr_launch_spawn_local(&job, path)) {
            shr_launch_job_set_status(&job, 1);
            shr_launch_job_end(&job);
        }
        shr_launch_job_run(&job);
        shr_launch_end_strays(&job);
        ret = job.have_status ? job.status : 0;
    } else {
        ret = 1;
    }
    shr_launch_job_fini(&job);
    free(path);
    return ret;
}
