/*
 * boot_proto.h -- the wire protocol between oshrun and the library's
 * launcher bootstrap (boot_launcher.c).  The only header the two share.
 *
 * Transport: oshrun gives every PE one end of its own AF_UNIX SOCK_STREAM
 * socketpair and tells it through the environment (names below).  Both ends
 * run on the same host with the same ABI, so integers travel in host order.
 *
 * Framing: every message is a shr_boot_msg_hdr_t followed by hdr.len payload
 * bytes, except replies flagged SHR_BOOT_FLAG_MEMFD, whose hdr.len bytes sit
 * in a memfd passed with the header (SCM_RIGHTS) instead of in the stream.
 *
 * Conversation of one PE (-> is PE to oshrun):
 *   -> HELLO      payload shr_boot_hello_t; sent by every shr_boot_init;
 *                 flags = SHR_BOOT_FLAG_FINALIZES_AT_EXIT or 0
 *   -> COLL       arg = collective sequence number, payload = this PE's blob
 *                 (every PE must send the same length; 0 bytes = barrier)
 *   <- COLL_DONE  arg = same sequence number, payload = size * blob bytes,
 *                 the blobs in rank order; sent once every PE contributed
 *   -> ABORT      arg = exit status, flags = SHR_BOOT_FLAG_GLOBAL_EXIT or 0,
 *                 payload = reason text (not NUL-terminated, may be empty)
 *   -> FINALIZED  no payload; the PE left cleanly (it may HELLO again)
 * A PE waits for COLL_DONE before it sends its next COLL, so oshrun has at
 * most one reply in flight per PE.  Any violation ends the job.
 */
#ifndef SHR_BOOT_PROTO_H
#define SHR_BOOT_PROTO_H

#include <stdint.h>

/* Bumped on any incompatible change; oshrun refuses a PE that differs. */
#define SHR_BOOT_PROTO_VERSION 1u

/* Environment given to each PE by oshrun. */
#define SHR_BOOT_ENV_FD     "SHIMMER_BOOT_FD"   /* inherited socket fd number */
#define SHR_BOOT_ENV_RANK   "SHIMMER_BOOT_RANK" /* 0 .. size-1 */
#define SHR_BOOT_ENV_SIZE   "SHIMMER_BOOT_SIZE" /* number of PEs */
#define SHR_BOOT_ENV_JOB_ID "SHIMMER_JOB_ID"    /* unique per job */

/* Largest number of PEs oshrun starts on one host. */
#define SHR_BOOT_MAX_PES 4096

/* Largest blob one PE may contribute to one collective (64 MiB). */
#define SHR_BOOT_MAX_BLOB ((uint64_t)64 << 20)

/* Longest abort reason carried; longer texts are cut by the sender. */
#define SHR_BOOT_MAX_TEXT 1024u

typedef enum {
    SHR_BOOT_MSG_HELLO = 1,
    SHR_BOOT_MSG_COLL = 2,
    SHR_BOOT_MSG_COLL_DONE = 3,
    SHR_BOOT_MSG_ABORT = 4,
    SHR_BOOT_MSG_FINALIZED = 5
} shr_boot_msg_type_t;

/* hdr.flags bits */
#define SHR_BOOT_FLAG_GLOBAL_EXIT 0x1u /* ABORT came from shmem_global_exit */
#define SHR_BOOT_FLAG_MEMFD       0x2u /* COLL_DONE payload is in a memfd */
/* HELLO: the PE says FINALIZED on every exit that runs its exit handlers,
 * so an exit with status 0 and no FINALIZED means they were skipped */
#define SHR_BOOT_FLAG_FINALIZES_AT_EXIT 0x4u

typedef struct {
    uint16_t type;  /* shr_boot_msg_type_t */
    uint16_t flags; /* SHR_BOOT_FLAG_* */
    int32_t arg;    /* type-specific, see above */
    uint64_t len;   /* payload bytes */
} shr_boot_msg_hdr_t;

typedef struct {
    uint32_t version; /* SHR_BOOT_PROTO_VERSION of the library */
    int32_t rank;     /* what the PE read from SHIMMER_BOOT_RANK */
    int32_t pid;      /* getpid() of the PE */
    uint32_t reserved;
} shr_boot_hello_t;

/* The exit status a process reports for a requested `status` (ABORT's arg,
 * shmem_global_exit's argument): its low 8 bits, as exit() keeps them,
 * except that a non-zero request never reads as success (256 would). */
static inline int shr_boot_exit_code(int status)
{
    int code = status & 0xff;
    return status != 0 && code == 0 ? 255 : code;
}

_Static_assert(sizeof(shr_boot_msg_hdr_t) == 16, "header layout");
_Static_assert(sizeof(shr_boot_hello_t) == 16, "hello layout");

#endif
