/*
 * ucx_status.c -- the one place where UCX statuses become Shimmer's.  The
 * log line keeps UCX's own text (ucs_status_string).
 */
#include "transport/ucx/ucx.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/log.h"

static shr_status_t shr_ucx_status_map(ucs_status_t status)
{
    switch (status) {
    case UCS_OK:
    case UCS_INPROGRESS:
        return SHR_OK;
    case UCS_ERR_NO_MEMORY:
        return SHR_ERR_NO_MEMORY;
    case UCS_ERR_INVALID_PARAM:
    case UCS_ERR_INVALID_ADDR:
        return SHR_ERR_INVALID;
    case UCS_ERR_IO_ERROR:
        return SHR_ERR_IO;
    case UCS_ERR_UNREACHABLE:
    case UCS_ERR_NO_DEVICE:
        return SHR_ERR_UNREACHABLE;
    case UCS_ERR_NO_RESOURCE:
    case UCS_ERR_EXCEEDS_LIMIT:
    case UCS_ERR_OUT_OF_RANGE:
        return SHR_ERR_NO_RESOURCE;
    case UCS_ERR_UNSUPPORTED:
    case UCS_ERR_NOT_IMPLEMENTED:
        return SHR_ERR_UNSUPPORTED;
    case UCS_ERR_TIMED_OUT:
    case UCS_ERR_ENDPOINT_TIMEOUT:
        return SHR_ERR_TIMED_OUT;
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_REJECTED:
    case UCS_ERR_CANCELED:
        return SHR_ERR_PEER_LOST;
    default:
        return SHR_ERR_TRANSPORT;
    }
}

shr_status_t shr_ucx_status(ucs_status_t status, const char *what_fmt, ...)
{
    shr_status_t mapped = shr_ucx_status_map(status);
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

void shr_ucx_fatal(ucs_status_t status, const char *op, int pe)
{
    const shr_ucx_remote_t *remote = shr_ucx.remote != NULL ? shr_ucx.remote[pe] : NULL;
    char line[384];

    snprintf(line, sizeof(line), "%s PE %d (on %s) failed: UCX: %s; ending the job", op, pe,
             remote != NULL ? remote->host : "another node", ucs_status_string(status));
    shr_error("%s", line);
    shr_fatal(1, line);
}
