/* req_misuse.c -- debug mode (SHMEM_DEBUG=1) reports misused request
 * handles; argv[1] picks the case, the test expects its one-line error.
 *   twice: a copy of a completed handle is waited again
 *   reset: a copy of a completed handle is merged
 *   ctx:   a handle outlives the context of its operations (needs a remote
 *          PE: run with SHIMMER_REMOTE_PES=1)
 *   ok:    correct use of the same calls passes */
#include <shmemx.h>

#include "harness.h"

static long dst[4];

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    shmemx_req_t r = SHMEMX_REQ_NULL, copy, other = SHMEMX_REQ_NULL;

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    /* a split mark makes a handle even on this node */
    shmemx_req_split(&r, 2, 1);
    copy = r;
    shmemx_req_wait(&r);
    CHECK(r == SHMEMX_REQ_NULL, "wait resets the handle");
    if (strcmp(mode, "twice") == 0) {
        shmemx_req_wait(&copy);
    } else if (strcmp(mode, "reset") == 0) {
        shmemx_req_merge(&other, &copy);
    } else if (strcmp(mode, "ctx") == 0 && n > 1) {
        shmem_ctx_t ctx;
        CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
        long v[4] = {1, 2, 3, 4};
        shmemx_ctx_long_put_req(ctx, dst, v, 4, (me + 1) % n, &r);
        CHECK(r != SHMEMX_REQ_NULL || (me + 1) % n != 1, "a put to the remote PE made a handle");
        shmem_ctx_destroy(ctx);
        shmemx_req_wait(&r);
    }
    shmem_barrier_all();
    return test_pass("request handle misuse");
}
