/*
 * ucx_ep.c -- endpoints, made when a worker first talks to a PE.
 *
 * Error handling is UCX's peer mode: if a peer's process or host dies, UCX
 * reports it on the endpoint and the job ends with a line naming the PE,
 * its host and UCX's reason -- unless the library is finalizing, when
 * peers that already left are expected.  A connection to a peer that has
 * exited fails the same way; both leave the report to the launcher first
 * (shr_boot_peer_lost), since a job that ends by shmem_global_exit or by a
 * PE's death loses its peers as a matter of course.
 */
#include "transport/ucx/ucx_inline.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "util/log.h"

/* A peer vanished.  Its launcher knows why (signal, exit status) and ends
 * the job with that, naming the PE and its host: boot gives it a moment
 * (and tells srun, which would not) before ending the job with what UCX
 * knows.  Whatever the reason, no PE goes on with a peer missing. */
static void shr_ucx_ep_failed(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    int pe = (int)(intptr_t)arg;
    const shr_ucx_remote_t *remote = shr_ucx.remote != NULL ? shr_ucx.remote[pe] : NULL;
    char line[384];

    (void)ep;
    if (__atomic_load_n(&shr_ucx.finalizing, __ATOMIC_ACQUIRE)) {
        return;
    }
    __atomic_store_n(&shr_ucx.ending, 1, __ATOMIC_RELAXED); /* UCX's lines: noise from here */
    snprintf(line, sizeof(line), "the connection to PE %d (on %s) failed: UCX: %s", pe,
             remote != NULL ? remote->host : "another node", ucs_status_string(status));
    shr_debug(SHR_LOG_UCX, "%s; leaving it to the launcher to report", line);
    shr_boot_peer_lost(line);
}

ucs_status_t shr_ucx_peer_try(shr_ucx_worker_t *w, int pe, char *why, size_t len,
                              shr_ucx_peer_t **peer_p)
{
    shr_ucx_remote_t *remote = shr_ucx_remote_get(pe);
    shr_ucx_peer_t *peer;
    ucp_ep_params_t params;
    ucs_status_t st;

    if (remote == NULL) {
        shr_fatal(1, "cannot reach a PE on another node (see the error above)");
    }
    peer = calloc(1, sizeof(*peer));
    if (peer == NULL) {
        shr_ucx_fatal(UCS_ERR_NO_MEMORY, "connecting to", pe);
    }
    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                        UCP_EP_PARAM_FIELD_ERR_HANDLER;
    params.address = remote->address;
    params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    params.err_handler.cb = shr_ucx_ep_failed;
    params.err_handler.arg = (void *)(intptr_t)pe;
    /* a peer that has exited refuses the connection, and UCX says so
     * itself: its line joins ours (shr_ucx_peer_connect), or none */
    shr_ucx_log_capture_begin(why, len);
    st = ucp_ep_create(w->worker, &params, &peer->ep);
    bool peer_gone = shr_ucx_log_capture_end();
    if (st != UCS_OK) {
        shr_debug(SHR_LOG_UCX, "connecting to PE %d on %s: UCX: %s%s%s", pe, remote->host,
                  ucs_status_string(st), why[0] != '\0' ? ": " : "", why);
        free(peer);
        return st;
    }
    /* refused or reset, yet an endpoint: its operations fail as the peer's
     * process is gone, and take the launcher's grace (shr_ucx_end) */
    if (why[0] != '\0' && !peer_gone) {
        shr_warn("connecting to PE %d (on %s): UCX: %s", pe, remote->host, why);
    }
    if (shr_ucx_rkey_unpack(remote, peer, pe) != SHR_OK) {
        shr_fatal(1, "cannot use the memory keys of a PE on another node (see the error above)");
    }
    shr_debug(SHR_LOG_UCX, "connected to PE %d on %s", pe, remote->host);
    /* readers of the table hold the worker's lock or are its only thread */
    w->peers[pe] = peer;
    *peer_p = peer;
    return UCS_OK;
}

/* A PE that cannot be reached has usually exited: the job is ending
 * (shmem_global_exit, or it died and its launcher ends every PE), and that
 * launcher reports it.  So this PE says nothing unless the job goes on;
 * then one line, with UCX's own reason, says which PE it could not reach. */
shr_ucx_peer_t *shr_ucx_peer_connect(shr_ucx_worker_t *w, int pe)
{
    shr_ucx_peer_t *peer;
    char why[256], fix[160], line[640];
    ucs_status_t st = shr_ucx_peer_try(w, pe, why, sizeof(why), &peer);
    const shr_ucx_remote_t *remote;

    if (st == UCS_OK) {
        return peer;
    }
    remote = shr_ucx.remote[pe];
    shr_ucx_reach_fix(fix, sizeof(fix), remote->host);
    snprintf(line, sizeof(line), "connecting to PE %d (on %s) failed: UCX: %s%s%s%s%s", pe,
             remote->host, ucs_status_string(st), why[0] != '\0' ? " (" : "", why,
             why[0] != '\0' ? ")" : "", fix);
    shr_ucx_end(st, line);
}

void shr_ucx_peer_close(shr_ucx_worker_t *w, int pe, bool force)
{
    shr_ucx_peer_t *peer = w->peers[pe];
    ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                 .flags = force ? UCP_EP_CLOSE_FLAG_FORCE : 0};
    shr_cmpl_t closed = {0};

    if (peer == NULL) {
        return;
    }
    shr_ucx_rkey_destroy(peer);
    shr_ucx_param_cmpl(&param, &closed);
    /* a failed close (the peer is gone) leaves nothing to release */
    if (shr_ucx_track(ucp_ep_close_nbx(peer->ep, &param), &closed) == UCS_OK) {
        (void)shr_ucx_cmpl_wait(w, &closed);
    }
    free(peer);
    w->peers[pe] = NULL;
}
