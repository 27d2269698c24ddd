/*
 * ucx_status.c -- the one place where UCX statuses become Shimmer's.  The
 * log line keeps UCX's own text (ucs_status_string).  Also what becomes of
 * UCX's own log lines.
 */
#include "transport/ucx/ucx.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <ucs/debug/log_def.h>

#include "boot/boot.h"
#include "util/log.h"

/* Every UCX status Shimmer tells apart, in one table: the status it
 * becomes, and whether it says the peer is gone (its process exited: a
 * connection refused or reset; or its host went silent), which leaves the
 * report to the launcher (shr_ucx_end).  Any other status is
 * SHR_ERR_TRANSPORT, its peer not known to be gone. */
static const struct shr_ucx_status_class {
    ucs_status_t ucs;
    shr_status_t shr;
    bool peer_gone;
} shr_ucx_status_classes[] = {
    {UCS_OK, SHR_OK, false},
    {UCS_INPROGRESS, SHR_OK, false},
    {UCS_ERR_NO_MEMORY, SHR_ERR_NO_MEMORY, false},
    {UCS_ERR_INVALID_PARAM, SHR_ERR_INVALID, false},
    {UCS_ERR_INVALID_ADDR, SHR_ERR_INVALID, false},
    {UCS_ERR_IO_ERROR, SHR_ERR_IO, false},
    {UCS_ERR_UNREACHABLE, SHR_ERR_UNREACHABLE, true},
    {UCS_ERR_NO_DEVICE, SHR_ERR_UNREACHABLE, false},
    {UCS_ERR_NO_RESOURCE, SHR_ERR_NO_RESOURCE, false},
    {UCS_ERR_EXCEEDS_LIMIT, SHR_ERR_NO_RESOURCE, false},
    {UCS_ERR_OUT_OF_RANGE, SHR_ERR_NO_RESOURCE, false},
    {UCS_ERR_UNSUPPORTED, SHR_ERR_UNSUPPORTED, false},
    {UCS_ERR_NOT_IMPLEMENTED, SHR_ERR_UNSUPPORTED, false},
    {UCS_ERR_TIMED_OUT, SHR_ERR_TIMED_OUT, false},
    {UCS_ERR_ENDPOINT_TIMEOUT, SHR_ERR_TIMED_OUT, true},
    {UCS_ERR_CONNECTION_RESET, SHR_ERR_PEER_LOST, true},
    {UCS_ERR_REJECTED, SHR_ERR_PEER_LOST, true},
    {UCS_ERR_CANCELED, SHR_ERR_PEER_LOST, true},
    {UCS_ERR_NOT_CONNECTED, SHR_ERR_TRANSPORT, true},
};

static const struct shr_ucx_status_class *shr_ucx_status_class(ucs_status_t status)
{
    static const struct shr_ucx_status_class other = {UCS_ERR_LAST, SHR_ERR_TRANSPORT, false};

    for (size_t i = 0; i < SHR_ARRAY_SIZE(shr_ucx_status_classes); i++) {
        if (shr_ucx_status_classes[i].ucs == status) {
            return &shr_ucx_status_classes[i];
        }
    }
    return &other;
}

shr_status_t shr_ucx_status(ucs_status_t status, const char *what_fmt, ...)
{
    shr_status_t mapped = shr_ucx_status_class(status)->shr;
    char what[256];
    va_list ap;

    if (mapped != SHR_OK) {
        va_start(ap, what_fmt);
        vsnprintf(what, sizeof(what), what_fmt, ap);
        va_end(ap);
        shr_error("%s: UCX: %s", what, ucs_status_string(status));
    }
    return mapped;
}

static bool shr_ucx_status_is_peer_gone(ucs_status_t status)
{
    return shr_ucx_status_class(status)->peer_gone;
}

void shr_ucx_end(ucs_status_t status, const char *line)
{
    if (shr_ucx_status_is_peer_gone(status)) {
        /* a job that ends by shmem_global_exit, or by a PE's death, loses
         * its peers as a matter of course: the launcher names the PE that
         * ended it, and this PE says nothing unless the job goes on */
        __atomic_store_n(&shr_ucx.ending, 1, __ATOMIC_RELAXED);
        shr_debug(SHR_LOG_UCX, "%s; leaving it to the launcher to report", line);
        shr_boot_peer_lost(line);
    }
    shr_error("%s; ending the job", line);
    shr_fatal(1, line);
}

void shr_ucx_reach_fix(char *buf, size_t len, const char *host)
{
    const char *how = " (a firewall, or set UCX_NET_DEVICES to an interface the nodes share)";

    if (host != NULL) {
        snprintf(buf, len, "; if that PE is running, check that this node reaches %s%s", host,
                 how);
    } else {
        snprintf(buf, len, "; if every PE is running, check that the nodes reach each other%s",
                 how);
    }
}

void shr_ucx_fatal(ucs_status_t status, const char *op, int pe)
{
    const shr_ucx_remote_t *remote = shr_ucx.remote != NULL ? shr_ucx.remote[pe] : NULL;
    const char *host = remote != NULL ? remote->host : NULL;
    char line[512], fix[160] = "";

    if (shr_ucx_status_is_peer_gone(status)) {
        shr_ucx_reach_fix(fix, sizeof(fix), host);
    }
    snprintf(line, sizeof(line), "%s PE %d (on %s) failed: UCX: %s%s", op, pe,
             host != NULL ? host : "another node", ucs_status_string(status), fix);
    shr_ucx_end(status, line);
}

void shr_ucx_fail(ucs_status_t status, const char *what)
{
    char line[512], fix[160] = "";

    if (shr_ucx_status_is_peer_gone(status)) {
        shr_ucx_reach_fix(fix, sizeof(fix), NULL);
    }
    snprintf(line, sizeof(line), "%s: UCX: %s%s", what, ucs_status_string(status), fix);
    shr_ucx_end(status, line);
}

/* ---- UCX's own log lines ----------------------------------------------------
 * UCX prints an error where it finds it, then returns it: a connect() the
 * peer's host refuses prints "UCX ERROR connect(fd=23, dest_addr=...)
 * failed: Connection refused" on stdout, then ucp_ep_create returns
 * "Destination is unreachable" (or, when UCX's TCP transport reconnects
 * inside ucp_worker_progress, the endpoint fails).  At a job's end
 * (shmem_global_exit, a PE that died: the launcher is ending every PE)
 * the peer has simply exited, and the line reads as a fault of the
 * library.  So UCX's warnings and errors are not printed, but go to the
 * ucx debug log: during our connect (the text joins our own line,
 * ucx_ep.c); when UCX's connect() was refused or reset (the peer's
 * process is gone: UCX fails the endpoint or the operation, and
 * shr_ucx_end reports it unless the launcher ends the job first); and
 * once a peer is known to be gone (shr_ucx.ending).  Every other line is
 * UCX's to print. */
typedef struct {
    char *buf;
    size_t len;
    bool peer_gone; /* the line captured was a connect refused or reset */
} shr_ucx_log_capture_t;

static __thread shr_ucx_log_capture_t shr_ucx_log_cap;

static ucs_log_func_rc_t shr_ucx_log_filter(const char *file, unsigned line, const char *function,
                                            ucs_log_level_t level,
                                            const ucs_log_component_config_t *comp_conf,
                                            const char *format, va_list ap)
{
    shr_ucx_log_capture_t *cap = &shr_ucx_log_cap;
    int saved = errno; /* UCX's own handler prints its %m */
    /* only the socket connect's own line: errno may be stale at another.
     * A peer's listening socket answers a connect refused once its process
     * is gone, and reset while the process closes it (global_exit). */
    bool peer_gone = (saved == ECONNREFUSED || saved == ECONNRESET) &&
                   level == UCS_LOG_LEVEL_ERROR && strncmp(format, "connect(", 8) == 0;
    const char *why;
    char text[256];

    (void)function, (void)comp_conf;
    if (level != UCS_LOG_LEVEL_ERROR && level != UCS_LOG_LEVEL_WARN) {
        return UCS_LOG_FUNC_RC_CONTINUE;
    }
    if (cap->buf != NULL) {
        why = "reported with the connection's failure";
    } else if (peer_gone) {
        why = "the peer's process is gone";
    } else if (__atomic_load_n(&shr_ucx.ending, __ATOMIC_RELAXED)) {
        why = "a peer is gone";
    } else {
        return UCS_LOG_FUNC_RC_CONTINUE;
    }
    vsnprintf(text, sizeof(text), format, ap);
    if (cap->buf != NULL && cap->buf[0] == '\0') {
        snprintf(cap->buf, cap->len, "%s", text);
        cap->peer_gone = peer_gone;
    }
    shr_debug(SHR_LOG_UCX, "UCX %s (%s:%u, not printed: %s): %s",
              level == UCS_LOG_LEVEL_WARN ? "warning" : "error",
              strrchr(file, '/') != NULL ? strrchr(file, '/') + 1 : file, line, why, text);
    errno = saved;
    return UCS_LOG_FUNC_RC_STOP;
}

void shr_ucx_log_attach(void)
{
    ucs_log_push_handler(shr_ucx_log_filter);
}

void shr_ucx_log_capture_begin(char *buf, size_t len)
{
    buf[0] = '\0';
    shr_ucx_log_cap.peer_gone = false;
    shr_ucx_log_cap.len = len;
    shr_ucx_log_cap.buf = buf;
}

bool shr_ucx_log_capture_end(void)
{
    shr_ucx_log_cap.buf = NULL;
    return shr_ucx_log_cap.peer_gone;
}
