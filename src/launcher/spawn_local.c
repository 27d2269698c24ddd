/*
 * spawn_local.c -- finds the program and starts the PEs of a job on this host.
 *
 * Each PE is a direct child with one end of its own socketpair.  The program
 * is looked up once, before any fork, so a typo costs one error line rather
 * than N failed children.
 */
#include "launcher/launch_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* 0 unless `path` is a script whose #! interpreter cannot be run (execve
 * would fail in every PE, after the job started): then 126, as the shell
 * says, with the reason in *why_p (static storage). */
static int shr_launch_interp_check(const char *path, const char **why_p)
{
    static char why[PATH_MAX + 96];
    char line[PATH_MAX + 3];
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        return 0; /* execute-only: execve will say */
    }
    ssize_t got = read(fd, line, sizeof(line) - 1);
    close(fd);
    if (got < 2 || line[0] != '#' || line[1] != '!') {
        return 0;
    }
    line[got] = '\0';
    char *interp = line + 2 + strspn(line + 2, " \t");
    interp[strcspn(interp, " \t\n")] = '\0';
    if (interp[0] == '\0' || (stat(interp, &st) == 0 && S_ISREG(st.st_mode) &&
                               access(interp, X_OK) == 0)) {
        return 0;
    }
    snprintf(why, sizeof(why), "its interpreter %s (its #! line) %s", interp,
             access(interp, F_OK) != 0 ? "does not exist" : "is not an executable file");
    *why_p = why;
    return 126;
}

/* 0 if `path` can be exec'd, else 126 or 127 as the shell would say, with
 * errno-like detail in *why_p. */
static int shr_launch_prog_check(const char *path, const char **why_p)
{
    struct stat st;

    if (stat(path, &st) != 0) {
        *why_p = strerror(errno);
        return errno == ENOENT || errno == ENOTDIR ? 127 : 126;
    }
    if (S_ISDIR(st.st_mode)) {
        *why_p = "it is a directory";
        return 126;
    }
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
        *why_p = "it is not executable";
        return 126;
    }
    return shr_launch_interp_check(path, why_p);
}

int shr_launch_prog_resolve(const char *prog, char **path_p)
{
    const char *why = NULL, *search = getenv("PATH");
    char *dirs, *dir, *save = NULL, *denied = NULL, *denied_why = NULL;
    int ret;

    if (prog[0] == '\0') {
        shr_launch_error("the program name is empty");
        return 127;
    }
    if (strchr(prog, '/') != NULL) {
        ret = shr_launch_prog_check(prog, &why);
        if (ret == 127) {
            shr_launch_error("cannot run '%s': %s", prog, why);
        } else if (ret == 126) {
            shr_launch_error("cannot run '%s': %s%s", prog, why,
                             strcmp(why, "it is not executable") == 0
                                 ? "; make it executable (chmod +x) or check the path"
                                 : "");
        } else if ((*path_p = strdup(prog)) == NULL) {
            shr_launch_error("out of memory");
            return 1;
        }
        return ret;
    }
    /* Same search as execvp, including its default when PATH is unset; a
     * matching file without execute permission is remembered, as bash does. */
    dirs = strdup(search != NULL ? search : "/bin:/usr/bin");
    if (dirs == NULL) {
        shr_launch_error("out of memory");
        return 1;
    }
    for (dir = strtok_r(dirs, ":", &save); dir != NULL; dir = strtok_r(NULL, ":", &save)) {
        char *path;

        if (asprintf(&path, "%s/%s", dir[0] != '\0' ? dir : ".", prog) < 0) {
            break;
        }
        ret = shr_launch_prog_check(path, &why);
        if (ret == 0) {
            free(dirs);
            free(denied);
            free(denied_why);
            *path_p = path;
            return 0;
        }
        if (ret == 126 && denied == NULL) {
            denied = path;
            denied_why = strdup(why);
        } else {
            free(path);
        }
    }
    free(dirs);
    if (denied != NULL) {
        if (denied_why != NULL && strcmp(denied_why, "it is not executable") != 0) {
            shr_launch_error("cannot run '%s' (%s): %s", prog, denied, denied_why);
        } else {
            shr_launch_error("cannot run '%s': %s is not executable; make it executable "
                             "(chmod +x)", prog, denied);
        }
        free(denied);
        free(denied_why);
        return 126;
    }
    shr_launch_error("cannot run '%s': not found in PATH; give its path (e.g. ./%s)",
                     prog, prog);
    return 127;
}

static bool shr_launch_env_is_ours(const char *entry)
{
    static const char *const names[] = {SHR_BOOT_ENV_FD, SHR_BOOT_ENV_RANK,
                                        SHR_BOOT_ENV_SIZE, SHR_BOOT_ENV_JOB_ID};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        size_t len = strlen(names[i]);
        if (strncmp(entry, names[i], len) == 0 && entry[len] == '=') {
            return true;
        }
    }
    return false;
}

static bool shr_launch_env_is_overridden(const shr_launch_opts_t *opts, const char *entry)
{
    size_t len = strcspn(entry, "=");

    for (size_t i = 0; i < opts->n_env_set; i++) {
        if (strncmp(opts->env_set[i], entry, len) == 0 && opts->env_set[i][len] == '=') {
            return true;
        }
    }
    return false;
}

/* Builds the environment shared by all PEs: ours minus what we set, then
 * -x VAR=VALUE, then 4 free slots for the per-PE protocol variables. */
static char **shr_launch_env_build(const shr_launch_opts_t *opts, size_t *slot_p)
{
    size_t count = 0, n = 0;
    char **envp;

    while (environ[count] != NULL) {
        count++;
    }
    envp = calloc(count + opts->n_env_set + 5, sizeof(*envp));
    if (envp == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        if (!shr_launch_env_is_ours(environ[i]) &&
            !shr_launch_env_is_overridden(opts, environ[i])) {
            envp[n++] = environ[i];
        }
    }
    for (size_t i = 0; i < opts->n_env_set; i++) {
        envp[n++] = (char *)opts->env_set[i];
    }
    *slot_p = n;
    return envp;
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static _Noreturn void shr_launch_child_exec(const shr_launch_job_t *job, const char *path,
                                            char **envp, int rank, int sock, int devnull,
                                            pid_t parent, const cpu_set_t *cpus)
{
    /* If oshrun dies, even by SIGKILL, the PE must not outlive it; the
     * getppid check closes the window before prctl took effect. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {
        _exit(128 + SIGKILL);
    }
    sigprocmask(SIG_SETMASK, &job->child_mask, NULL);
    setrlimit(RLIMIT_NOFILE, &job->child_nofile); /* oshrun may have raised it */
    if (cpus != NULL) {
        sched_setaffinity(0, sizeof(*cpus), cpus); /* a failure just leaves it unbound */
    }
    /* stdin belongs to PE 0 only, as with mpirun. */
    if (rank != 0 && dup2(devnull, STDIN_FILENO) < 0) {
        _exit(126);
    }
    if (fcntl(sock, F_SETFD, 0) != 0) {
        _exit(126);
    }
    execve(path, job->opts->argv, envp);
    dprintf(STDERR_FILENO, "oshrun: error: PE %d: cannot run '%s': %s\n", rank, path,
            strerror(errno));
    _exit(errno == ENOENT ? 127 : 126);
}

bool shr_launch_spawn_local(shr_launch_job_t *job, const char *path)
{
    char env_fd[32], env_rank[32], env_size[32], env_job[96];
    pid_t self = getpid();
    size_t slot;
    char **envp = shr_launch_env_build(job->opts, &slot);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    bool ok = true;

    if (envp == NULL || devnull < 0) {
        shr_launch_error("cannot prepare the PEs: %s", strerror(errno));
        free(envp);
        return false;
    }
    snprintf(env_size, sizeof(env_size), "%s=%d", SHR_BOOT_ENV_SIZE, job->npes);
    snprintf(env_job, sizeof(env_job), "%s=%s", SHR_BOOT_ENV_JOB_ID, job->job_id);
    envp[slot] = env_fd;
    envp[slot + 1] = env_rank;
    envp[slot + 2] = env_size;
    envp[slot + 3] = env_job;

    shr_launch_topology_t topo;
    bool have_topo = shr_launch_topology_init(&topo);
    for (int rank = 0; rank < job->npes; rank++) {
        shr_launch_pe_t *pe = &job->pes[rank];
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)rank};
        int sv[2];
        pid_t pid;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
            shr_launch_error("cannot start PE %d: socketpair: %s", rank, strerror(errno));
            ok = false;
            break;
        }
        snprintf(env_fd, sizeof(env_fd), "%s=%d", SHR_BOOT_ENV_FD, sv[1]);
        snprintf(env_rank, sizeof(env_rank), "%s=%d", SHR_BOOT_ENV_RANK, rank);
        cpu_set_t cpus;
        char where[256] = "not bound (the CPU topology is unreadable)";
        bool bind = have_topo && shr_launch_place(&topo, job->opts, job->npes, rank, &cpus,
                                                  where, sizeof(where));
        pid = fork();
        if (pid == 0) {
            shr_launch_child_exec(job, path, envp, rank, sv[1], devnull, self,
                                  bind ? &cpus : NULL);
        }
        close(sv[1]);
        if (pid < 0) {
            shr_launch_error("cannot start PE %d: fork: %s", rank, strerror(errno));
            close(sv[0]);
            ok = false;
            break;
        }
        if (job->opts->report_bindings) {
            fprintf(stderr, "oshrun: PE %d (pid %ld) %s\n", rank, (long)pid, where);
        }
        pe->pid = pid;
        pe->running = true;
        job->nrunning++;
        pe->fd = sv[0];
        fcntl(sv[0], F_SETFL, O_NONBLOCK);
        if (epoll_ctl(job->epfd, EPOLL_CTL_ADD, sv[0], &ev) != 0) {
            shr_launch_error("cannot watch PE %d: epoll_ctl: %s", rank, strerror(errno));
            ok = false;
            break;
        }
    }
    if (have_topo) {
        shr_launch_topology_fini(&topo);
    }
    close(devnull);
    free(envp);
    return ok;
}
