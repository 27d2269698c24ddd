/*
 * boot_launcher.c -- the PE side of oshrun's protocol (boot_proto.h).
 *
 * One blocking socket to oshrun, inherited at exec.  It stays open from the
 * first init to the end of the process so that init/fini/init works and abort
 * can report even after fini.  Losing it means oshrun is gone; the PE then
 * ends itself instead of waiting forever.
 */
#include "boot/boot_int.h"
#include "boot/boot_proto.h"
#include "util/str.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static struct {
    int fd;        /* -1 until the first init */
    int rank;
    int size;
    uint32_t seq;  /* collectives completed, checked against the replies */
    char job_id[128];
} shr_boot_ln = {.fd = -1};

/* Serialises writers: abort may come from any thread while another thread
 * is in the middle of sending a collective, and frames must not interleave. */
static pthread_mutex_t shr_boot_ln_send_lock = PTHREAD_MUTEX_INITIALIZER;

static _Noreturn void shr_boot_launcher_lost(const char *what)
{
    fflush(NULL);
    fprintf(stderr,
            "shimmer: error: [pe %d] lost the connection to oshrun while %s "
            "(oshrun exited or was killed); ending this PE\n",
            shr_boot_ln.rank, what);
    _exit(1);
}

static bool shr_boot_launcher_is_present(void)
{
    return shr_boot_ln.fd >= 0 || getenv(SHR_BOOT_ENV_FD) != NULL;
}

static shr_status_t shr_boot_launcher_env_long(const char *name, long min, long max,
                                               long *value_p)
{
    const char *text = getenv(name);

    if (text == NULL || shr_str_to_long(text, min, max, value_p) != SHR_OK) {
        fprintf(stderr,
                "shimmer: error: %s=%s is not valid (expected %ld..%ld); it is set "
                "by oshrun: start the program with oshrun, or unset SHIMMER_BOOT_* "
                "to run it as a single PE\n",
                name, text != NULL ? text : "(unset)", min, max);
        return SHR_ERR_INVALID;
    }
    return SHR_OK;
}

/* Reads the environment oshrun set, adopts the socket and removes the
 * variables so that programs this PE starts do not mistake the fd for theirs. */
static shr_status_t shr_boot_launcher_connect(void)
{
    const char *job = getenv(SHR_BOOT_ENV_JOB_ID);
    long fd, rank, size;
    struct stat st;

    if (shr_boot_launcher_env_long(SHR_BOOT_ENV_FD, 0, INT_MAX, &fd) != SHR_OK ||
        shr_boot_launcher_env_long(SHR_BOOT_ENV_SIZE, 1, SHR_BOOT_MAX_PES, &size) != SHR_OK ||
        shr_boot_launcher_env_long(SHR_BOOT_ENV_RANK, 0, size - 1, &rank) != SHR_OK) {
        return SHR_ERR_INVALID;
    }
    if (fstat((int)fd, &st) != 0 || !S_ISSOCK(st.st_mode)) {
        fprintf(stderr,
                "shimmer: error: %s=%ld is not a socket inherited from oshrun; start "
                "the program with oshrun, or unset SHIMMER_BOOT_* to run it as a "
                "single PE\n",
                SHR_BOOT_ENV_FD, fd);
        return SHR_ERR_INVALID;
    }
    fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    unsetenv(SHR_BOOT_ENV_FD);
    unsetenv(SHR_BOOT_ENV_RANK);
    unsetenv(SHR_BOOT_ENV_SIZE);

    snprintf(shr_boot_ln.job_id, sizeof(shr_boot_ln.job_id), "%s",
             job != NULL && job[0] != '\0' ? job : "oshrun");
    shr_boot_ln.rank = (int)rank;
    shr_boot_ln.size = (int)size;
    __atomic_store_n(&shr_boot_ln.fd, (int)fd, __ATOMIC_RELEASE); /* read by abort */
    return SHR_OK;
}

/* Writes one whole frame; the caller holds the send lock.  Returns false if
 * the connection is gone. */
static bool shr_boot_launcher_write(const shr_boot_msg_hdr_t *hdr, const void *payload)
{
    struct iovec iov[2] = {
        {.iov_base = (void *)hdr, .iov_len = sizeof(*hdr)},
        {.iov_base = (void *)payload, .iov_len = payload != NULL ? hdr->len : 0},
    };
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};

    while (msg.msg_iovlen > 0) {
        ssize_t n = sendmsg(shr_boot_ln.fd, &msg, MSG_NOSIGNAL);

        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return false;
        }
        while (msg.msg_iovlen > 0 && (size_t)n >= msg.msg_iov->iov_len) {
            n -= (ssize_t)msg.msg_iov->iov_len;
            msg.msg_iov++;
            msg.msg_iovlen--;
        }
        if (msg.msg_iovlen > 0) {
            msg.msg_iov->iov_base = (char *)msg.msg_iov->iov_base + n;
            msg.msg_iov->iov_len -= (size_t)n;
        }
    }
    return true;
}

static void shr_boot_launcher_send(const shr_boot_msg_hdr_t *hdr, const void *payload,
                                   const char *what)
{
    bool ok;

    pthread_mutex_lock(&shr_boot_ln_send_lock);
    ok = shr_boot_launcher_write(hdr, payload);
    pthread_mutex_unlock(&shr_boot_ln_send_lock);
    if (!ok) {
        shr_boot_launcher_lost(what);
    }
}

/* Reads exactly len bytes from fd (the socket, or a memfd at offset `off`
 * when `pos` is true). */
static bool shr_boot_launcher_read(int fd, void *buf, size_t len, bool pos)
{
    size_t got = 0;

    while (got < len) {
        ssize_t n = pos ? pread(fd, (char *)buf + got, len - got, (off_t)got)
                        : read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        got += (size_t)n;
    }
    return true;
}

/* Reads a reply header and the memfd that may ride with it (*memfd_p = -1
 * when none). */
static bool shr_boot_launcher_read_hdr(shr_boot_msg_hdr_t *hdr, int *memfd_p)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    size_t got = 0;

    *memfd_p = -1;
    while (got < sizeof(*hdr)) {
        struct iovec iov = {.iov_base = (char *)hdr + got, .iov_len = sizeof(*hdr) - got};
        struct msghdr msg = {.msg_iov = &iov,
                             .msg_iovlen = 1,
                             .msg_control = ctl.buf,
                             .msg_controllen = sizeof(ctl.buf)};
        ssize_t n = recvmsg(shr_boot_ln.fd, &msg, MSG_CMSG_CLOEXEC);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        if (msg.msg_flags & MSG_CTRUNC) {
            /* The kernel dropped the memfd: this process is out of fds. */
            fprintf(stderr,
                    "shimmer: error: [pe %d] cannot receive a bootstrap result: out of "
                    "file descriptors; raise the limit (ulimit -n)\n",
                    shr_boot_ln.rank);
            shr_boot_abort(1, "out of file descriptors in a bootstrap collective");
        }
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
                c->cmsg_len == CMSG_LEN(sizeof(int)) && *memfd_p < 0) {
                memcpy(memfd_p, CMSG_DATA(c), sizeof(int));
            }
        }
        got += (size_t)n;
    }
    return true;
}

static _Noreturn void shr_boot_launcher_garbled(const shr_boot_msg_hdr_t *hdr, size_t want)
{
    char msg[200];

    snprintf(msg, sizeof(msg),
             "bootstrap protocol error: expected reply %u of %zu bytes, got message "
             "type %u, reply %d, %llu bytes; oshrun and the library do not match",
             shr_boot_ln.seq, want, hdr->type, hdr->arg, (unsigned long long)hdr->len);
    fprintf(stderr, "shimmer: error: [pe %d] %s\n", shr_boot_ln.rank, msg);
    shr_boot_abort(1, msg);
}

static shr_status_t shr_boot_launcher_init(int *rank_p, int *size_p, bool finalizes_at_exit)
{
    shr_boot_msg_hdr_t hdr = {.type = SHR_BOOT_MSG_HELLO,
                              .flags = finalizes_at_exit ? SHR_BOOT_FLAG_FINALIZES_AT_EXIT : 0,
                              .len = sizeof(shr_boot_hello_t)};
    shr_boot_hello_t hello = {.version = SHR_BOOT_PROTO_VERSION};

    if (shr_boot_ln.fd < 0) {
        shr_status_t status = shr_boot_launcher_connect();
        if (status != SHR_OK) {
            return status;
        }
    }
    hello.rank = shr_boot_ln.rank;
    hello.pid = (int32_t)getpid();
    shr_boot_launcher_send(&hdr, &hello, "saying hello");
    *rank_p = shr_boot_ln.rank;
    *size_p = shr_boot_ln.size;
    return SHR_OK;
}

static void shr_boot_launcher_fini(void)
{
    shr_boot_msg_hdr_t hdr = {.type = SHR_BOOT_MSG_FINALIZED};

    shr_boot_launcher_send(&hdr, NULL, "finalizing");
}

static shr_status_t shr_boot_launcher_finish(void *all, size_t want);

static shr_status_t shr_boot_launcher_allgather(const void *mine, void *all, size_t len)
{
    shr_boot_msg_hdr_t hdr = {.type = SHR_BOOT_MSG_COLL,
                              .arg = (int32_t)shr_boot_ln.seq,
                              .len = len};
    size_t want = len * (size_t)shr_boot_ln.size;

    if (len > SHR_BOOT_MAX_BLOB) {
        fprintf(stderr,
                "shimmer: error: [pe %d] bootstrap allgather of %zu bytes per PE is "
                "over the limit of %llu bytes\n",
                shr_boot_ln.rank, len, (unsigned long long)SHR_BOOT_MAX_BLOB);
        return SHR_ERR_INVALID;
    }
    shr_boot_launcher_send(&hdr, len > 0 ? mine : NULL, "sending a collective");
    return shr_boot_launcher_finish(all, want);
}

/* Reads the reply of the collective just sent: want bytes into all. */
static shr_status_t shr_boot_launcher_finish(void *all, size_t want)
{
    shr_boot_msg_hdr_t hdr;
    bool ok;
    int memfd;

    if (!shr_boot_launcher_read_hdr(&hdr, &memfd)) {
        shr_boot_launcher_lost("waiting in a collective");
    }
    if (hdr.type != SHR_BOOT_MSG_COLL_DONE || hdr.arg != (int32_t)shr_boot_ln.seq ||
        hdr.len != want || ((hdr.flags & SHR_BOOT_FLAG_MEMFD) != 0) != (memfd >= 0)) {
        shr_boot_launcher_garbled(&hdr, want);
    }
    if (memfd >= 0) {
        /* Large results come in one memfd shared by all PEs, so that oshrun
         * writes them once instead of once per PE. */
        ok = shr_boot_launcher_read(memfd, all, want, true);
        close(memfd);
        if (!ok) {
            shr_boot_launcher_garbled(&hdr, want);
        }
    } else if (!shr_boot_launcher_read(shr_boot_ln.fd, all, want, false)) {
        shr_boot_launcher_lost("receiving a collective");
    }
    shr_boot_ln.seq++;
    return SHR_OK;
}

static shr_status_t shr_boot_launcher_barrier(void)
{
    return shr_boot_launcher_allgather(NULL, NULL, 0);
}

/* The barrier, driving the caller's transport until oshrun answers. */
static shr_status_t shr_boot_launcher_barrier_progress(void (*progress)(void *arg), void *arg)
{
    shr_boot_msg_hdr_t hdr = {.type = SHR_BOOT_MSG_COLL, .arg = (int32_t)shr_boot_ln.seq};

    shr_boot_launcher_send(&hdr, NULL, "sending a collective");
    for (;;) {
        struct pollfd pfd = {.fd = shr_boot_ln.fd, .events = POLLIN};

        progress(arg);
        int n = poll(&pfd, 1, 0);
        if (n > 0 || (n < 0 && errno != EINTR)) {
            break; /* the reply, or an error the read below reports */
        }
        sched_yield();
    }
    return shr_boot_launcher_finish(NULL, 0);
}

static const char *shr_boot_launcher_job_id(void)
{
    return shr_boot_ln.job_id;
}

static void shr_boot_launcher_abort(int status, const char *msg, bool global_exit)
{
    shr_boot_msg_hdr_t hdr = {.type = SHR_BOOT_MSG_ABORT,
                              .flags = global_exit ? SHR_BOOT_FLAG_GLOBAL_EXIT : 0,
                              .arg = status};
    struct timespec deadline;
    int fd = __atomic_load_n(&shr_boot_ln.fd, __ATOMIC_ACQUIRE);

    if (fd < 0) {
        return; /* not connected yet: oshrun reports the exit status alone */
    }
    hdr.len = msg != NULL ? strnlen(msg, SHR_BOOT_MAX_TEXT) : 0;
    /* Another thread may hold the lock while blocked on a dead oshrun; do not
     * let that keep this process alive. */
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 1;
    if (pthread_mutex_timedlock(&shr_boot_ln_send_lock, &deadline) == 0) {
        (void)shr_boot_launcher_write(&hdr, msg);
        pthread_mutex_unlock(&shr_boot_ln_send_lock);
    }
}

const shr_boot_ops_t shr_boot_launcher_ops = {
    .name = "launcher",
    .kind = SHR_BOOT_LAUNCHER,
    .is_present = shr_boot_launcher_is_present,
    .init = shr_boot_launcher_init,
    .fini = shr_boot_launcher_fini,
    .allgather = shr_boot_launcher_allgather,
    .barrier = shr_boot_launcher_barrier,
    .job_id = shr_boot_launcher_job_id,
    .abort = shr_boot_launcher_abort,
    .barrier_progress = shr_boot_launcher_barrier_progress,
};
