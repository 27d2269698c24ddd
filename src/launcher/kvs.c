/*
 * kvs.c -- oshrun's side of the boot protocol (boot_proto.h): hello, the
 * gather-to-all that every boot collective is, abort and finalized.
 *
 * Sockets are non-blocking.  Blobs are read straight into their rank's slot
 * of the round's result, and the result is shared by all replies, so one
 * collective costs O(N) memory and no copies in oshrun.  Large results go in
 * a memfd that every PE reads itself, so oshrun writes them once.
 */
#include "launcher/launch_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* From this result size on, replies carry a memfd instead of the bytes. */
#define SHR_LAUNCH_MEMFD_MIN ((uint64_t)64 << 10)

/* Largest result of one collective (all blobs together). */
#define SHR_LAUNCH_RESULT_MAX ((uint64_t)4 << 30)

static void shr_launch_round_release(shr_launch_round_t *round)
{
    if (round->memfd >= 0) {
        munmap(round->buf, round->hdr.len);
        close(round->memfd);
    } else {
        free(round->buf);
    }
    free(round);
}

/* Sizes the current round from its first contribution.  Returns false if
 * the result cannot be held. */
static bool shr_launch_round_size(shr_launch_job_t *job, uint64_t blob_len)
{
    shr_launch_round_t *round = job->round;
    uint64_t total = blob_len * (uint64_t)job->npes;

    round->sized = true;
    round->blob_len = blob_len;
    round->hdr.len = total;
    if (total == 0) {
        return true;
    }
    if (total > SHR_LAUNCH_RESULT_MAX) {
        return false;
    }
    if (total >= SHR_LAUNCH_MEMFD_MIN) {
        round->memfd = memfd_create("shimmer-boot", MFD_CLOEXEC);
        if (round->memfd >= 0 && ftruncate(round->memfd, (off_t)total) == 0) {
            round->buf = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED,
                              round->memfd, 0);
            if (round->buf != MAP_FAILED) {
                round->hdr.flags = SHR_BOOT_FLAG_MEMFD;
                return true;
            }
        }
        /* No memfd (old kernel, sandbox): fall back to sending the bytes. */
        if (round->memfd >= 0) {
            close(round->memfd);
        }
        round->memfd = -1;
        round->buf = NULL;
    }
    round->buf = malloc(total);
    return round->buf != NULL;
}

static void shr_launch_pe_arm_output(shr_launch_job_t *job, int rank, bool on)
{
    shr_launch_pe_t *pe = &job->pes[rank];
    struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0),
                             .data.u32 = (uint32_t)rank};

    if (pe->out_armed != on && epoll_ctl(job->epfd, EPOLL_CTL_MOD, pe->fd, &ev) == 0) {
        pe->out_armed = on;
    }
}

static void shr_launch_pe_close(shr_launch_job_t *job, int rank)
{
    shr_launch_pe_t *pe = &job->pes[rank];

    if (pe->fd < 0) {
        return;
    }
    epoll_ctl(job->epfd, EPOLL_CTL_DEL, pe->fd, NULL);
    close(pe->fd);
    pe->fd = -1;
    if (pe->out != NULL && --pe->out->refs == 0) {
        shr_launch_round_release(pe->out);
    }
    pe->out = NULL;
}

/* Sends as much of the pending reply as the socket takes. */
void shr_launch_kvs_on_output(shr_launch_job_t *job, int rank)
{
    shr_launch_pe_t *pe = &job->pes[rank];
    shr_launch_round_t *round = pe->out;
    size_t total;

    if (round == NULL) {
        shr_launch_pe_arm_output(job, rank, false);
        return;
    }
    total = sizeof(round->hdr) + (round->memfd >= 0 ? 0 : round->hdr.len);
    while (pe->out_off < total) {
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } ctl;
        struct iovec iov[2];
        struct msghdr msg = {.msg_iov = iov};
        size_t off = pe->out_off;
        ssize_t n;

        if (off < sizeof(round->hdr)) {
            iov[msg.msg_iovlen++] = (struct iovec){(char *)&round->hdr + off,
                                                   sizeof(round->hdr) - off};
            off = 0;
        } else {
            off -= sizeof(round->hdr);
        }
        if (total > sizeof(round->hdr)) {
            iov[msg.msg_iovlen++] = (struct iovec){round->buf + off, round->hdr.len - off};
        }
        if (pe->out_off == 0 && round->memfd >= 0) {
            struct cmsghdr *c;

            msg.msg_control = ctl.buf;
            msg.msg_controllen = sizeof(ctl.buf);
            c = CMSG_FIRSTHDR(&msg);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(c), &round->memfd, sizeof(int));
        }
        n = sendmsg(pe->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN) {
                shr_launch_pe_arm_output(job, rank, true);
                return;
            }
            /* The PE is gone; its exit status will tell why. */
            shr_launch_pe_close(job, rank);
            return;
        }
        pe->out_off += (size_t)n;
    }
    pe->out = NULL;
    if (--round->refs == 0) {
        shr_launch_round_release(round);
    }
    shr_launch_pe_arm_output(job, rank, false);
}

/* Every PE contributed: answer all of them with the same result. */
static void shr_launch_round_finish(shr_launch_job_t *job)
{
    shr_launch_round_t *round = job->round;

    job->round = NULL;
    job->seq++;
    round->refs = 1; /* held by this function until every reply is queued */
    for (int rank = 0; rank < job->npes; rank++) {
        shr_launch_pe_t *pe = &job->pes[rank];

        pe->in_coll = false;
        if (pe->fd >= 0) {
            pe->out = round;
            pe->out_off = 0;
            round->refs++;
            shr_launch_kvs_on_output(job, rank);
        }
    }
    if (--round->refs == 0) {
        shr_launch_round_release(round);
    }
}

void shr_launch_kvs_check_stuck(shr_launch_job_t *job)
{
    const shr_launch_round_t *round = job->round;

    if (round == NULL || round->count == 0 || job->ngone == 0 || job->have_status) {
        return;
    }
    for (int rank = 0; rank < job->npes; rank++) {
        const shr_launch_pe_t *pe = &job->pes[rank];

        if (!pe->running && pe->pid > 0 && !pe->in_coll) {
            shr_launch_job_fail(job, rank,
                                "exited with status 0 while other PEs wait for it in "
                                "collective %u (did it skip a collective call or "
                                "shmem_finalize?)",
                                job->seq);
            return;
        }
    }
}

/* A header is complete: check it and decide where its payload goes.
 * Returns false if the PE broke the protocol (reported). */
static bool shr_launch_kvs_begin(shr_launch_job_t *job, int rank)
{
    shr_launch_pe_t *pe = &job->pes[rank];
    const shr_boot_msg_hdr_t *hdr = &pe->hdr;

    pe->body_got = 0;
    pe->body = pe->small;
    switch (hdr->type) {
    case SHR_BOOT_MSG_HELLO:
        if (hdr->len == sizeof(shr_boot_hello_t)) {
            return true;
        }
        break;
    case SHR_BOOT_MSG_ABORT:
        if (hdr->len <= SHR_BOOT_MAX_TEXT) {
            return true;
        }
        break;
    case SHR_BOOT_MSG_FINALIZED:
        if (hdr->len == 0) {
            return true;
        }
        break;
    case SHR_BOOT_MSG_COLL:
        if (pe->in_coll || pe->out != NULL || hdr->arg != (int32_t)job->seq ||
            hdr->len > SHR_BOOT_MAX_BLOB) {
            break;
        }
        if (job->round == NULL) {
            job->round = calloc(1, sizeof(*job->round));
            if (job->round == NULL) {
                shr_launch_job_fail(job, rank, "out of memory in a collective");
                return false;
            }
            job->round->memfd = -1;
            job->round->hdr.type = SHR_BOOT_MSG_COLL_DONE;
            job->round->hdr.arg = (int32_t)job->seq;
        }
        if (!job->round->sized) {
            if (!shr_launch_round_size(job, hdr->len)) {
                shr_launch_job_fail(job, rank, "cannot hold a collective of %d x %llu "
                                    "bytes", job->npes, (unsigned long long)hdr->len);
                return false;
            }
        } else if (hdr->len != job->round->blob_len) {
            shr_launch_job_fail(job, rank,
                                "contributed %llu bytes to collective %u but other PEs "
                                "%llu; the PEs are not in the same collective call",
                                (unsigned long long)hdr->len, job->seq,
                                (unsigned long long)job->round->blob_len);
            return false;
        }
        pe->body = hdr->len > 0 ? job->round->buf + (size_t)rank * hdr->len : NULL;
        return true;
    default:
        break;
    }
    shr_launch_job_fail(job, rank,
                        "bootstrap protocol error (message type %u, %llu bytes, arg %d, "
                        "collective %u): the program and oshrun come from different "
                        "Shimmer builds, or the program wrote to its boot socket",
                        hdr->type, (unsigned long long)hdr->len, hdr->arg, job->seq);
    return false;
}

static void shr_launch_kvs_on_abort(shr_launch_job_t *job, int rank)
{
    shr_launch_pe_t *pe = &job->pes[rank];
    int status = pe->hdr.arg;
    int len = (int)pe->hdr.len;

    /* The reason becomes the end of one line of ours. */
    while (len > 0 && (pe->small[len - 1] == '\n' || pe->small[len - 1] == ' ')) {
        len--;
    }
    for (int i = 0; i < len; i++) {
        if ((unsigned char)pe->small[i] < ' ') {
            pe->small[i] = ' ';
        }
    }

    if (!shr_launch_job_set_status(job, shr_boot_exit_code(status))) {
        return;
    }
    if (pe->hdr.flags & SHR_BOOT_FLAG_GLOBAL_EXIT) {
        fprintf(stderr, "oshrun: PE %d called shmem_global_exit(%d)%s\n", rank, status,
                shr_launch_job_ending_text(job));
    } else if (len > 0) {
        fprintf(stderr, "oshrun: PE %d aborted (status %d): %.*s\n", rank, status, len,
                pe->small);
    } else {
        fprintf(stderr, "oshrun: PE %d aborted (status %d)%s\n", rank, status,
                shr_launch_job_ending_text(job));
    }
    shr_launch_job_end(job);
}

/* The payload is complete: act on the message. */
static void shr_launch_kvs_complete(shr_launch_job_t *job, int rank)
{
    shr_launch_pe_t *pe = &job->pes[rank];
    shr_boot_hello_t hello;

    pe->hdr_got = 0;
    switch (pe->hdr.type) {
    case SHR_BOOT_MSG_HELLO:
        memcpy(&hello, pe->small, sizeof(hello));
        if (hello.version != SHR_BOOT_PROTO_VERSION) {
            shr_launch_job_fail(job, rank,
                                "its Shimmer library speaks boot protocol %u, this oshrun "
                                "%u; use the oshrun of the Shimmer the program is "
                                "linked with",
                                hello.version, SHR_BOOT_PROTO_VERSION);
        } else if (hello.rank != rank) {
            shr_launch_job_fail(job, rank, "says it is rank %d (wrong %s?)", hello.rank,
                                SHR_BOOT_ENV_RANK);
        }
        pe->finalizes_at_exit = (pe->hdr.flags & SHR_BOOT_FLAG_FINALIZES_AT_EXIT) != 0;
        pe->finalized = false;
        break;
    case SHR_BOOT_MSG_FINALIZED:
        pe->finalized = true;
        break;
    case SHR_BOOT_MSG_ABORT:
        shr_launch_kvs_on_abort(job, rank);
        break;
    case SHR_BOOT_MSG_COLL:
        pe->in_coll = true;
        if (++job->round->count == job->npes) {
            shr_launch_round_finish(job);
        } else if (job->ngone > 0) {
            shr_launch_kvs_check_stuck(job);
        }
        break;
    }
}

void shr_launch_kvs_on_input(shr_launch_job_t *job, int rank)
{
    shr_launch_pe_t *pe = &job->pes[rank];

    while (pe->fd >= 0) {
        bool in_hdr = pe->hdr_got < sizeof(pe->hdr);
        char *dst = in_hdr ? (char *)&pe->hdr + pe->hdr_got : pe->body + pe->body_got;
        size_t want = in_hdr ? sizeof(pe->hdr) - pe->hdr_got : pe->hdr.len - pe->body_got;
        ssize_t n = read(pe->fd, dst, want);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && errno == EAGAIN) {
            return;
        }
        if (n <= 0) {
            /* EOF: the PE closed or exited.  Its exit status, judged when it
             * is reaped, says whether that was fine. */
            shr_launch_pe_close(job, rank);
            return;
        }
        if (in_hdr) {
            pe->hdr_got += (size_t)n;
            if (pe->hdr_got < sizeof(pe->hdr)) {
                continue;
            }
            if (!shr_launch_kvs_begin(job, rank)) {
                shr_launch_pe_close(job, rank);
                return;
            }
        } else {
            pe->body_got += (size_t)n;
        }
        if (pe->body_got == pe->hdr.len) {
            shr_launch_kvs_complete(job, rank);
        }
    }
}

void shr_launch_kvs_drain(shr_launch_job_t *job, int rank)
{
    /* A dead PE's last words (an abort) are all in the socket by now; a
     * grandchild may still hold the socket, so stop at "nothing more". */
    shr_launch_kvs_on_input(job, rank);
    shr_launch_pe_close(job, rank);
}

void shr_launch_kvs_fini(shr_launch_job_t *job)
{
    for (int rank = 0; rank < job->npes; rank++) {
        shr_launch_pe_close(job, rank);
    }
    if (job->round != NULL) {
        shr_launch_round_release(job->round);
        job->round = NULL;
    }
}
