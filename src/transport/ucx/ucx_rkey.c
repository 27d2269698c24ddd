/*
 * ucx_rkey.c -- memory registration and what a PE publishes.
 *
 * The heap segment (internal + user heap) and the data segment (.data/.bss)
 * are registered once at init.  Their packed keys, their base addresses
 * (the same layout on every PE, but not the same address) and the default
 * worker's address travel as one blob through boot's key-value store: with
 * PMIx they ride the init fence; peers read a PE's blob only when they first
 * talk to it, and unpack its keys per endpoint.
 */
#include "transport/ucx/ucx.h"

#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "util/log.h"

#define SHR_UCX_BLOB_MAGIC 0x53485231u /* "SHR1" */

typedef struct {
    uint32_t magic;
    uint32_t addr_len;
    uint32_t rkey_len[SHR_SEG_COUNT];
    uint64_t base[SHR_SEG_COUNT];
    uint64_t size[SHR_SEG_COUNT];
    char host[64];
} shr_ucx_blob_t;

static shr_status_t shr_ucx_rkey_register(int seg, void **rkey_p, size_t *len_p,
                                          const char *routine)
{
    ucp_mem_map_params_t params = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
        .address = (void *)shr_g.seg[seg].base,
        .length = shr_g.seg[seg].size,
    };
    shr_status_t status;

    status = shr_ucx_status(ucp_mem_map(shr_ucx.context, &params, &shr_ucx.mem[seg]),
                            "%s: registering the %s (%zu bytes) with UCX", routine,
                            seg == SHR_SEG_HEAP ? "symmetric heap" : "data segment",
                            shr_g.seg[seg].size);
    if (status != SHR_OK) {
        shr_ucx.mem[seg] = NULL;
        return status;
    }
    status = shr_ucx_status(ucp_rkey_pack(shr_ucx.context, shr_ucx.mem[seg], rkey_p, len_p),
                            "%s: packing the remote key of the %s", routine,
                            seg == SHR_SEG_HEAP ? "symmetric heap" : "data segment");
    if (status != SHR_OK) {
        ucp_mem_unmap(shr_ucx.context, shr_ucx.mem[seg]);
        shr_ucx.mem[seg] = NULL;
    }
    return status;
}

shr_status_t shr_ucx_rkey_publish(const char *routine)
{
    ucp_worker_attr_t attr = {.field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS};
    void *rkey[SHR_SEG_COUNT] = {NULL};
    size_t rkey_len[SHR_SEG_COUNT] = {0};
    shr_ucx_blob_t hdr;
    shr_status_t status;
    char *blob = NULL;

    memset(&hdr, 0, sizeof(hdr));
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        if (shr_g.seg[s].size == 0) {
            continue;
        }
        status = shr_ucx_rkey_register(s, &rkey[s], &rkey_len[s], routine);
        if (status != SHR_OK) {
            goto out;
        }
        hdr.rkey_len[s] = (uint32_t)rkey_len[s];
        hdr.base[s] = shr_g.seg[s].base;
        hdr.size[s] = shr_g.seg[s].size;
    }
    status = shr_ucx_status(ucp_worker_query(shr_ucx.dflt->worker, &attr),
                            "%s: reading the UCX worker's address", routine);
    if (status != SHR_OK) {
        goto out;
    }
    hdr.magic = SHR_UCX_BLOB_MAGIC;
    hdr.addr_len = (uint32_t)attr.address_length;
    snprintf(hdr.host, sizeof(hdr.host), "%s", shr_g.host);

    size_t len = sizeof(hdr) + attr.address_length;
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        len += rkey_len[s];
    }
    blob = malloc(len);
    if (blob == NULL) {
        ucp_worker_release_address(shr_ucx.dflt->worker, attr.address);
        status = SHR_ERR_NO_MEMORY;
        goto out;
    }
    char *p = blob;
    memcpy(p, &hdr, sizeof(hdr));
    p += sizeof(hdr);
    memcpy(p, attr.address, attr.address_length);
    p += attr.address_length;
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        if (rkey_len[s] > 0) {
            memcpy(p, rkey[s], rkey_len[s]);
            p += rkey_len[s];
        }
    }
    ucp_worker_release_address(shr_ucx.dflt->worker, attr.address);
    status = shr_boot_put(SHR_UCX_KEY, blob, len);
    if (status != SHR_OK) {
        shr_error("%s: cannot publish this PE's UCX address: %s", routine,
                  shr_status_string(status));
    }
out:
    free(blob);
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        if (rkey[s] != NULL) {
            ucp_rkey_buffer_release(rkey[s]);
        }
    }
    if (status != SHR_OK) {
        shr_ucx_rkey_unpublish();
    }
    return status;
}

void shr_ucx_rkey_unpublish(void)
{
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        if (shr_ucx.mem[s] != NULL) {
            ucp_mem_unmap(shr_ucx.context, shr_ucx.mem[s]);
            shr_ucx.mem[s] = NULL;
        }
    }
}

/* Reads and checks pe's blob; NULL (logged) if it is missing or garbled. */
static shr_ucx_remote_t *shr_ucx_remote_fetch(int pe)
{
    shr_ucx_remote_t *remote;
    shr_ucx_blob_t hdr;
    shr_status_t status;
    void *blob;
    size_t len, want;

    status = shr_boot_get(pe, SHR_UCX_KEY, &blob, &len);
    if (status != SHR_OK) {
        shr_error("PE %d published no UCX address (%s): it runs a Shimmer without UCX, or "
                  "believes every PE shares its node", pe, shr_status_string(status));
        return NULL;
    }
    memcpy(&hdr, blob, len >= sizeof(hdr) ? sizeof(hdr) : 0);
    want = sizeof(hdr) + hdr.addr_len;
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        want += hdr.rkey_len[s];
    }
    if (len < sizeof(hdr) || hdr.magic != SHR_UCX_BLOB_MAGIC || len != want) {
        shr_error("PE %d published a UCX address this PE cannot read (%zu bytes): the PEs run "
                  "different Shimmer versions", pe, len);
        free(blob);
        return NULL;
    }
    remote = calloc(1, sizeof(*remote));
    if (remote == NULL) {
        free(blob);
        return NULL;
    }
    remote->blob = blob;
    memcpy(remote->host, hdr.host, sizeof(remote->host));
    remote->host[sizeof(remote->host) - 1] = '\0';
    char *p = (char *)blob + sizeof(hdr);
    remote->address = (ucp_address_t *)p;
    p += hdr.addr_len;
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        remote->base[s] = hdr.base[s];
        remote->size[s] = hdr.size[s];
        remote->rkey_buf[s] = hdr.rkey_len[s] > 0 ? p : NULL;
        p += hdr.rkey_len[s];
        if (hdr.size[s] != shr_g.seg[s].size) {
            shr_error("PE %d's %s is %llu bytes, this PE's %zu: every PE must run the same "
                      "program with the same SHMEM_SYMMETRIC_SIZE", pe,
                      s == SHR_SEG_HEAP ? "symmetric heap" : "data segment",
                      (unsigned long long)hdr.size[s], shr_g.seg[s].size);
            free(blob);
            free(remote);
            return NULL;
        }
    }
    return remote;
}

shr_ucx_remote_t *shr_ucx_remote_get(int pe)
{
    shr_ucx_remote_t *remote;

    pthread_mutex_lock(&shr_ucx.list_lock);
    remote = shr_ucx.remote[pe];
    if (remote == NULL) {
        remote = shr_ucx_remote_fetch(pe);
        shr_ucx.remote[pe] = remote;
    }
    pthread_mutex_unlock(&shr_ucx.list_lock);
    return remote;
}

void shr_ucx_remote_free_all(void)
{
    if (shr_ucx.remote == NULL) {
        return;
    }
    for (int pe = 0; pe < shr_g.n_pes; pe++) {
        if (shr_ucx.remote[pe] != NULL) {
            free(shr_ucx.remote[pe]->blob);
            free(shr_ucx.remote[pe]);
        }
    }
    free(shr_ucx.remote);
    shr_ucx.remote = NULL;
}

shr_status_t shr_ucx_rkey_unpack(const shr_ucx_remote_t *remote, shr_ucx_peer_t *peer, int pe)
{
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        peer->base[s] = remote->base[s];
        peer->rkey[s] = NULL;
        if (remote->rkey_buf[s] == NULL) {
            continue;
        }
        shr_status_t status = shr_ucx_status(
            ucp_ep_rkey_unpack(peer->ep, remote->rkey_buf[s], &peer->rkey[s]),
            "unpacking the memory key of PE %d (on %s)", pe, remote->host);
        if (status != SHR_OK) {
            shr_ucx_rkey_destroy(peer);
            return status;
        }
    }
    return SHR_OK;
}

void shr_ucx_rkey_destroy(shr_ucx_peer_t *peer)
{
    for (int s = 0; s < SHR_SEG_COUNT; s++) {
        if (peer->rkey[s] != NULL) {
            ucp_rkey_destroy(peer->rkey[s]);
            peer->rkey[s] = NULL;
        }
    }
}
