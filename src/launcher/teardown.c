/*
 * teardown.c -- how a job ends: signals to oshrun, PE exits, --timeout, and
 * the grace period between asking PEs to stop and killing them.
 *
 * The job's exit status is decided once, by the first event that ends it;
 * everything that follows (PEs dying of our SIGTERM) is a consequence and is
 * neither reported nor counted.
 *
 * Processes the PEs started belong to the job too (as with mpirun): oshrun
 * is a child subreaper, so whatever a PE leaves behind, daemons included,
 * becomes oshrun's child when the PE ends, and is ended with the job
 * (shr_launch_end_strays).  Without subreaper (qemu-user) strays are left
 * to init and oshrun says so under -v.
 */
#include "launcher/launch_int.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Signals oshrun handles through its signalfd; all others keep their
 * default action. */
static const int shr_launch_signals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP};

static void shr_launch_timer_arm(int fd, double seconds)
{
    struct itimerspec it = {0};

    it.it_value.tv_sec = (time_t)seconds;
    it.it_value.tv_nsec = (long)((seconds - (double)it.it_value.tv_sec) * 1e9);
    if (it.it_value.tv_sec == 0 && it.it_value.tv_nsec == 0) {
        it.it_value.tv_nsec = 1; /* zero would disarm */
    }
    timerfd_settime(fd, 0, &it, NULL);
}

static bool shr_launch_watch(shr_launch_job_t *job, int fd, uint32_t tag)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = tag};

    return fd >= 0 && epoll_ctl(job->epfd, EPOLL_CTL_ADD, fd, &ev) == 0;
}

bool shr_launch_signals_init(shr_launch_job_t *job)
{
    sigset_t set;

    sigemptyset(&set);
    for (size_t i = 0; i < sizeof(shr_launch_signals) / sizeof(shr_launch_signals[0]); i++) {
        struct sigaction old;

        /* A stop signal oshrun inherits as ignored (nohup, `cmd &` in a
         * script) stays ignored, for oshrun and the PEs alike. */
        if (shr_launch_signals[i] != SIGCHLD &&
            sigaction(shr_launch_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) {
            continue;
        }
        sigaddset(&set, shr_launch_signals[i]);
    }
    /* Orphans of the PEs come to us, not to init (file comment).  Where
     * the kernel or an emulator refuses (qemu-user answers EINVAL), the
     * job runs the same, only strays go to init instead of ending with it. */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0 && job->opts->verbose) {
        fprintf(stderr, "oshrun: not a child subreaper (%s): processes the PEs leave "
                "behind are not ended with the job\n", strerror(errno));
    }
    /* Blocked before any fork so that no SIGCHLD or ^C can slip past. */
    if (sigprocmask(SIG_BLOCK, &set, &job->child_mask) != 0) {
        return false;
    }
    job->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    job->timeout_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    job->grace_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (!shr_launch_watch(job, job->sigfd, SHR_LAUNCH_TAG_SIGNAL) ||
        !shr_launch_watch(job, job->timeout_fd, SHR_LAUNCH_TAG_TIMEOUT) ||
        !shr_launch_watch(job, job->grace_fd, SHR_LAUNCH_TAG_GRACE)) {
        return false;
    }
    if (job->opts->timeout_s > 0) {
        shr_launch_timer_arm(job->timeout_fd, job->opts->timeout_s);
    }
    return true;
}

bool shr_launch_job_set_status(shr_launch_job_t *job, int status)
{
    if (job->have_status) {
        return false;
    }
    job->have_status = true;
    job->status = status;
    return true;
}

const char *shr_launch_job_ending_text(const shr_launch_job_t *job)
{
    return job->nrunning > 0 && !job->ending ? "; ending the job" : "";
}

static void shr_launch_job_signal_all(shr_launch_job_t *job, int sig)
{
    for (int rank = 0; rank < job->npes; rank++) {
        if (job->pes[rank].running) {
            kill(job->pes[rank].pid, sig);
        }
    }
}

/* Sends `sig` to every running PE and arms the SIGKILL that follows. */
static void shr_launch_job_end_with(shr_launch_job_t *job, int sig)
{
    if (job->ending) {
        return;
    }
    job->ending = true;
    if (job->nrunning > 0) {
        shr_launch_job_signal_all(job, sig);
        shr_launch_timer_arm(job->grace_fd, SHR_LAUNCH_GRACE_S);
    }
}

void shr_launch_job_end(shr_launch_job_t *job)
{
    shr_launch_job_end_with(job, SIGTERM);
}

void shr_launch_job_fail(shr_launch_job_t *job, int rank, const char *fmt, ...)
{
    char why[512];
    va_list ap;

    if (shr_launch_job_set_status(job, 1)) {
        va_start(ap, fmt);
        vsnprintf(why, sizeof(why), fmt, ap);
        va_end(ap);
        fprintf(stderr, "oshrun: error: PE %d (pid %ld): %s%s\n", rank,
                (long)job->pes[rank].pid, why, shr_launch_job_ending_text(job));
    }
    shr_launch_job_end(job);
}

/* A PE was reaped: read what it left, then judge how it ended. */
static void shr_launch_pe_exited(shr_launch_job_t *job, int rank, int wstatus)
{
    shr_launch_pe_t *pe = &job->pes[rank];
    int code;

    pe->running = false;
    job->nrunning--;
    job->ngone++;
    /* An abort message explains the exit status that follows it. */
    shr_launch_kvs_drain(job, rank);
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && pe->finalizes_at_exit &&
        !pe->finalized && job->nrunning > 0) {
        /* _exit(0) or quick_exit after shmem_init: the library's exit hook
         * did not run, so nothing finalized it; the others can never finish */
        shr_launch_job_fail(job, rank, "exited with status 0 without calling shmem_finalize "
                            "(it called shmem_init; its exit handlers did not run)");
        return;
    }
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) {
        shr_launch_kvs_check_stuck(job);
        return;
    }
    if (WIFEXITED(wstatus)) {
        code = WEXITSTATUS(wstatus);
        if (shr_launch_job_set_status(job, code)) {
            fprintf(stderr, "oshrun: PE %d (pid %ld) exited with status %d%s\n", rank,
                    (long)pe->pid, code, shr_launch_job_ending_text(job));
        }
    } else {
        int sig = WTERMSIG(wstatus);

        code = 128 + sig;
        if (shr_launch_job_set_status(job, code)) {
            fprintf(stderr, "oshrun: PE %d (pid %ld) killed by signal %d (%s)%s%s\n", rank,
                    (long)pe->pid, sig, strsignal(sig),
                    WCOREDUMP(wstatus) ? ", core dumped" : "",
                    shr_launch_job_ending_text(job));
        }
    }
    shr_launch_job_end(job);
}

static void shr_launch_reap(shr_launch_job_t *job)
{
    int wstatus;
    pid_t pid;

    while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
        for (int rank = 0; rank < job->npes; rank++) {
            if (job->pes[rank].pid == pid && job->pes[rank].running) {
                shr_launch_pe_exited(job, rank, wstatus);
                break;
            }
        }
    }
}

static const char *shr_launch_signal_name(int sig)
{
    switch (sig) {
    case SIGINT:  return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP:  return "SIGHUP";
    default:      return "a signal";
    }
}

/* oshrun was asked to stop: pass the request on, or force it if asked twice. */
static void shr_launch_on_stop(shr_launch_job_t *job, int sig)
{
    if (job->ending) {
        shr_launch_job_signal_all(job, SIGKILL);
        job->killed = true;
        return;
    }
    if (shr_launch_job_set_status(job, 128 + sig)) {
        fprintf(stderr, "oshrun: received %s%s\n", shr_launch_signal_name(sig),
                shr_launch_job_ending_text(job));
    }
    shr_launch_job_end_with(job, sig);
}

void shr_launch_on_signal(shr_launch_job_t *job)
{
    struct signalfd_siginfo info[16];
    bool child = false;
    ssize_t n;

    while ((n = read(job->sigfd, info, sizeof(info))) > 0) {
        /* Stop requests first: on ^C the terminal signals the PEs too, and
         * the job should end as "interrupted", not as "PE 0 was killed". */
        for (size_t i = 0; i < (size_t)n / sizeof(info[0]); i++) {
            if (info[i].ssi_signo == SIGCHLD) {
                child = true;
            } else {
                shr_launch_on_stop(job, (int)info[i].ssi_signo);
            }
        }
    }
    if (child) {
        shr_launch_reap(job);
    }
}

void shr_launch_on_timeout(shr_launch_job_t *job)
{
    uint64_t ticks;

    if (read(job->timeout_fd, &ticks, sizeof(ticks)) < 0) {
        return;
    }
    if (shr_launch_job_set_status(job, 124)) {
        fprintf(stderr, "oshrun: timeout: the job ran longer than --timeout %g s%s\n",
                job->opts->timeout_s, shr_launch_job_ending_text(job));
    }
    shr_launch_job_end(job);
}

/* Our children now: processes a PE started and left behind.  Fills
 * pids[max], returns how many (the rest are found on the next call). */
static int shr_launch_strays(pid_t *pids, int max)
{
    DIR *proc = opendir("/proc");
    struct dirent *ent;
    int n = 0;
    pid_t self = getpid();

    if (proc == NULL) {
        return 0;
    }
    while (n < max && (ent = readdir(proc)) != NULL) {
        char path[64], stat[512];
        long pid = strtol(ent->d_name, NULL, 10);
        if (pid <= 0) {
            continue;
        }
        snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "re");
        if (f == NULL) {
            continue;
        }
        size_t got = fread(stat, 1, sizeof(stat) - 1, f);
        fclose(f);
        stat[got] = '\0';
        /* "pid (comm) state ppid ...": comm may hold spaces and ')' */
        char *end = strrchr(stat, ')');
        char state;
        long ppid;
        if (end != NULL && sscanf(end + 1, " %c %ld", &state, &ppid) == 2 && ppid == self &&
            state != 'Z') {
            pids[n++] = (pid_t)pid;
        }
    }
    closedir(proc);
    return n;
}

void shr_launch_end_strays(shr_launch_job_t *job)
{
    pid_t pids[64];
    int n = shr_launch_strays(pids, 64), ep = epoll_create1(EPOLL_CLOEXEC);
    bool killed = false;

    if (n == 0) {
        if (ep >= 0) {
            close(ep);
        }
        return;
    }
    fprintf(stderr, "oshrun: %d process%s the PEs started (pid %ld%s) outlived the job; "
            "ending %s\n", n, n == 1 ? "" : "es", (long)pids[0], n > 1 ? ", ..." : "",
            n == 1 ? "it" : "them");
    /* The same events as the job: SIGCHLD (a stray died) and the grace
     * timer; a stop signal to oshrun skips the grace. */
    struct epoll_event ev = {.events = EPOLLIN};
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, job->sigfd, &ev) != 0 ||
        (ev.data.u32 = 1, epoll_ctl(ep, EPOLL_CTL_ADD, job->grace_fd, &ev)) != 0) {
        killed = true; /* cannot wait for them: no grace */
    }
    shr_launch_timer_arm(job->grace_fd, SHR_LAUNCH_GRACE_S);
    while (n > 0) {
        /* orphans of the ones ended appear on later rounds: signal them all */
        for (int i = 0; i < n; i++) {
            kill(pids[i], killed ? SIGKILL : SIGTERM);
        }
        struct epoll_event got[2];
        int k = ep >= 0 ? epoll_wait(ep, got, 2, -1) : 0;
        for (int i = 0; i < k; i++) {
            uint64_t ticks;
            struct signalfd_siginfo info;
            if (got[i].data.u32 == 1 && read(job->grace_fd, &ticks, sizeof(ticks)) > 0) {
                if (killed) {
                    n = 0; /* stuck in the kernel even after SIGKILL: give up */
                }
                killed = true;
                shr_launch_timer_arm(job->grace_fd, 1);
            }
            while (got[i].data.u32 == 0 && read(job->sigfd, &info, sizeof(info)) > 0) {
                killed |= info.ssi_signo != SIGCHLD;
            }
        }
        while (waitpid(-1, NULL, WNOHANG) > 0) {
        }
        if (n > 0) {
            n = shr_launch_strays(pids, 64);
        }
    }
    if (ep >= 0) {
        close(ep);
    }
}

void shr_launch_on_grace(shr_launch_job_t *job)
{
    uint64_t ticks;

    if (read(job->grace_fd, &ticks, sizeof(ticks)) < 0 || job->killed) {
        return;
    }
    job->killed = true;
    shr_launch_job_signal_all(job, SIGKILL);
}
