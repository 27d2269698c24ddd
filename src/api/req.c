/* req.c -- the routines of request handles (shmemx.h, docs/requests.md);
 * the `_req` operations are generated shims (gen/shims_req.c).  Completion
 * (test, wait) is profiled in family `req`; merge and split, which only
 * rearrange handles, are not timed. */
#include "api/api_inline.h"
#include "core/req.h"

static void check_reqs(const char *fn, const char *what, const void *reqs, size_t n)
{
    shr_check_init(fn);
    shr_check_local(fn, what, reqs, n);
}

void pshmemx_req_merge(shmemx_req_t *into, shmemx_req_t *from)
{
    SHR_API_CHECK((check_reqs("shmemx_req_merge", "into", into, 1),
                   check_reqs("shmemx_req_merge", "from", from, 1)));
    shr_req_merge("shmemx_req_merge", into, from);
}
SHR_API_ALIAS(shmemx_req_merge)

/* An empty handle (on this node every operation finished as it was issued)
 * completes as quiet does, with one fence and no more: without this the
 * general path's frame alone made a merged window of one put slower than
 * put_nbi + quiet. */
static SHR_ALWAYS_INLINE bool req_empty_fast(shmemx_req_t *req)
{
    if (SHR_LIKELY(!shr_g.check_gate && *req == SHMEMX_REQ_NULL)) {
        shr_fence_full();
        return true;
    }
    return false;
}

/* The general paths of test and wait, out of line: inline, their frame
 * (three saved registers) was built before the empty handle's test, 8 of
 * the 15 instructions an empty wait ran. */
static SHR_COLD int req_test_slow(shmemx_req_t *req)
{
    int ret;

    SHR_API_TIMED(SHR_PROF_REQ, 0, check_reqs("shmemx_req_test", "req", req, 1),
                  ret = shr_req_test("shmemx_req_test", req));
    return ret;
}

static SHR_COLD void req_wait_slow(shmemx_req_t *req)
{
    SHR_API_TIMED(SHR_PROF_REQ, 0, check_reqs("shmemx_req_wait", "req", req, 1),
                  shr_req_wait("shmemx_req_wait", req));
}

int pshmemx_req_test(shmemx_req_t *req)
{
    if (req_empty_fast(req)) {
        return 1;
    }
    return req_test_slow(req);
}
SHR_API_ALIAS(shmemx_req_test)

void pshmemx_req_wait(shmemx_req_t *req)
{
    if (req_empty_fast(req)) {
        return;
    }
    req_wait_slow(req);
}
SHR_API_ALIAS(shmemx_req_wait)

void pshmemx_req_wait_all(size_t n, shmemx_req_t *reqs)
{
    SHR_API_TIMED(SHR_PROF_REQ, 0, check_reqs("shmemx_req_wait_all", "reqs", reqs, n),
                  shr_req_wait_all("shmemx_req_wait_all", n, reqs));
}
SHR_API_ALIAS(shmemx_req_wait_all)

size_t pshmemx_req_wait_any(size_t n, shmemx_req_t *reqs)
{
    size_t ret;

    SHR_API_TIMED(SHR_PROF_REQ, 0, check_reqs("shmemx_req_wait_any", "reqs", reqs, n),
                  ret = shr_req_wait_any("shmemx_req_wait_any", n, reqs));
    return ret;
}
SHR_API_ALIAS(shmemx_req_wait_any)

void pshmemx_req_split(shmemx_req_t *req, int nthreads, int rank)
{
    SHR_API_CHECK(check_reqs("shmemx_req_split", "req", req, 1));
    shr_req_split("shmemx_req_split", req, nthreads, rank);
}
SHR_API_ALIAS(shmemx_req_split)
