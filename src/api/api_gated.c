/*
 * api_gated.c -- the gated twins of the inline data routines
 * (api_inline.h): where a call goes when shr_g.check_gate is up, for the
 * argument checks (SHMEM_DEBUG, SHIMMER_CHECKS, before init) or the profile
 * (SHIMMER_PROFILE, core/prof.h).  Each is the inline routine's body with
 * its checks in front and its operation timed.
 */
#include "api/api_inline.h"

/* `what` names the local argument in messages ("source" or "value"). */
static SHR_NOINLINE void put_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                                   size_t len, int pe, const char *what, bool nbi)
{
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu bytes to %p on PE %d", len, dest, pe);
    SHR_API_GATED(SHR_PROF_PUT, len, shr_check_rma(fn, ctx, "dest", dest, what, src, len, pe),
                  shr_rma_put(fn, ctx, dest, src, len, shr_api_world_pe(fn, ctx, pe), nbi));
}

void shr_api_put_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                       int pe)
{
    put_gated(fn, ctx, dest, src, len, pe, "source", false);
}

void shr_api_put_nbi_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                           size_t len, int pe)
{
    put_gated(fn, ctx, dest, src, len, pe, "source", true);
}

void shr_api_p_gated(const char *fn, shr_ctx_t *ctx, void *dest, uint64_t bits, size_t size,
                     int pe)
{
    put_gated(fn, ctx, dest, &bits, size, pe, "value", false);
}

void shr_api_get_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src, size_t len,
                       int pe, bool g, bool nbi)
{
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu bytes from %p on PE %d", len, src, pe);
    SHR_API_GATED(SHR_PROF_GET, len,
                  g ? (shr_check_ctx_pe(fn, ctx, pe), shr_check_symmetric(fn, "source", src, len))
                    : shr_check_rma(fn, ctx, "source", src, "dest", dest, len, pe),
                  shr_rma_get(fn, ctx, dest, src, len, shr_api_world_pe(fn, ctx, pe), nbi));
}

uint64_t shr_api_g_gated(const char *fn, shr_ctx_t *ctx, const void *src, size_t size, int pe)
{
    uint64_t bits = 0;

    shr_api_get_gated(fn, ctx, &bits, src, size, pe, true, false);
    return bits;
}

void shr_api_iput_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                        ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, size_t elem,
                        int pe)
{
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu blocks of %zu x %zu bytes to %p on PE %d", nblocks, bsize,
                  elem, dest, pe);
    SHR_API_GATED(SHR_PROF_PUT, nblocks * bsize * elem,
                  shr_check_strided(fn, ctx, "dest", dest, dst, "source", src, sst, bsize, nblocks,
                                    elem, pe),
                  shr_rma_iput(fn, ctx, dest, src, dst, sst, bsize, nblocks, elem,
                               shr_api_world_pe(fn, ctx, pe)));
}

void shr_api_iget_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                        ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, size_t elem,
                        int pe)
{
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu blocks of %zu x %zu bytes from %p on PE %d", nblocks,
                  bsize, elem, src, pe);
    SHR_API_GATED(SHR_PROF_GET, nblocks * bsize * elem,
                  shr_check_strided(fn, ctx, "source", src, sst, "dest", dest, dst, bsize, nblocks,
                                    elem, pe),
                  shr_rma_iget(fn, ctx, dest, src, dst, sst, bsize, nblocks, elem,
                               shr_api_world_pe(fn, ctx, pe)));
}

uint64_t shr_api_amo_gated(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op, void *dest,
                           uint64_t value, uint64_t cond, size_t size, int pe)
{
    uint64_t result;

    SHR_API_TRACE(SHR_LOG_AMO, fn, "%zu bytes at %p on PE %d", size, dest, pe);
    SHR_API_GATED(SHR_PROF_AMO, size, shr_check_amo(fn, ctx, dest, size, pe),
                  result = shr_amo(fn, ctx, op, dest, value, cond, size, shr_api_world_pe(fn, ctx, pe)));
    return result;
}

void shr_api_amo_nbi_gated(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op, void *fetch,
                           void *dest, uint64_t value, uint64_t cond, size_t size, int pe)
{
    SHR_API_TRACE(SHR_LOG_AMO, fn, "%zu bytes at %p on PE %d", size, dest, pe);
    SHR_API_GATED(SHR_PROF_AMO, size,
                  (shr_check_amo(fn, ctx, dest, size, pe),
                   shr_check_local(fn, "fetch", fetch, size)),
                  shr_amo_nbi(fn, ctx, op, fetch, dest, value, cond, size,
                              shr_api_world_pe(fn, ctx, pe)));
}

void shr_api_put_signal_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                              size_t len, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                              bool nbi)
{
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu bytes to %p and a signal to %p on PE %d", len, dest,
                  (void *)sig_addr, pe);
    SHR_API_GATED(SHR_PROF_SIGNAL, len,
                  (shr_check_rma(fn, ctx, "dest", dest, "source", src, len, pe),
                   shr_check_signal(fn, ctx, sig_addr, sig_op, pe)),
                  shr_put_signal(fn, ctx, dest, src, len, sig_addr, signal, sig_op,
                                 shr_api_world_pe(fn, ctx, pe), nbi));
}

void shr_api_wait_until_gated(const char *fn, void *ivar, int cmp, const void *value,
                              shr_dtype_t dt)
{
    SHR_API_GATED(SHR_PROF_WAIT, 0, shr_check_wait(fn, ivar, 1, shr_dtype_size(dt)),
                  shr_p2p_wait_until(ivar, cmp, value, dt));
}

int shr_api_test_gated(const char *fn, void *ivar, int cmp, const void *value, shr_dtype_t dt)
{
    int ret;

    SHR_API_GATED(SHR_PROF_TEST, 0, shr_check_wait(fn, ivar, 1, shr_dtype_size(dt)),
                  (shr_g.needs_progress ? shr_progress() : (void)0,
                   ret = shr_p2p_test(ivar, cmp, value, dt)));
    return ret;
}

size_t shr_api_set_gated(const char *fn, shr_wait_kind_t kind, void *ivars, size_t nelems,
                         size_t *indices, const int *status, int cmp, const void *values,
                         size_t vector_elem, shr_dtype_t dt, bool test)
{
    size_t ret;

    SHR_API_GATED(test ? SHR_PROF_TEST : SHR_PROF_WAIT, 0,
                  shr_check_wait(fn, ivars, nelems, shr_dtype_size(dt)),
                  ret = (test ? shr_p2p_test_set : shr_p2p_wait_set)(
                      kind, ivars, nelems, indices, status, cmp, values, vector_elem != 0, dt));
    return ret;
}

/* ---- request handles: counted in the families of their blocking forms ---- */
void shr_api_put_req_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                           size_t len, int pe, shmemx_req_t *req)
{
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu bytes to %p on PE %d", len, dest, pe);
    SHR_API_GATED(SHR_PROF_PUT, len,
                  (shr_check_rma(fn, ctx, "dest", dest, "source", src, len, pe),
                   shr_check_local(fn, "req", req, 1)),
                  shr_req_put(fn, ctx, dest, src, len, shr_api_world_pe(fn, ctx, pe), req));
}

void shr_api_get_req_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                           size_t len, int pe, shmemx_req_t *req)
{
    SHR_API_TRACE(SHR_LOG_RMA, fn, "%zu bytes from %p on PE %d", len, src, pe);
    SHR_API_GATED(SHR_PROF_GET, len,
                  (shr_check_rma(fn, ctx, "source", src, "dest", dest, len, pe),
                   shr_check_local(fn, "req", req, 1)),
                  shr_req_get(fn, ctx, dest, src, len, shr_api_world_pe(fn, ctx, pe), req));
}

void shr_api_istrided_req_gated(const char *fn, shr_ctx_t *ctx, bool put, void *dest,
                                const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                                size_t elem, int pe, shmemx_req_t *req)
{
    if (put) {
        SHR_API_GATED(SHR_PROF_PUT, nelems * elem,
                      (shr_check_strided(fn, ctx, "dest", dest, dst, "source", src, sst, 1,
                                         nelems, elem, pe),
                       shr_check_local(fn, "req", req, 1)),
                      shr_req_iput(fn, ctx, dest, src, dst, sst, 1, nelems, elem,
                                   shr_api_world_pe(fn, ctx, pe), req));
    } else {
        SHR_API_GATED(SHR_PROF_GET, nelems * elem,
                      (shr_check_strided(fn, ctx, "source", src, sst, "dest", dest, dst, 1,
                                         nelems, elem, pe),
                       shr_check_local(fn, "req", req, 1)),
                      shr_req_iget(fn, ctx, dest, src, dst, sst, 1, nelems, elem,
                                   shr_api_world_pe(fn, ctx, pe), req));
    }
}

void shr_api_amo_req_gated(const char *fn, shr_ctx_t *ctx, shr_amo_op_t op, void *fetch,
                           void *dest, uint64_t value, uint64_t cond, size_t size, int pe,
                           shmemx_req_t *req)
{
    SHR_API_TRACE(SHR_LOG_AMO, fn, "%zu bytes at %p on PE %d", size, dest, pe);
    SHR_API_GATED(SHR_PROF_AMO, size,
                  (shr_check_amo(fn, ctx, dest, size, pe), shr_check_local(fn, "req", req, 1),
                   fetch != NULL ? shr_check_local(fn, "fetch", fetch, size) : (void)0),
                  shr_req_amo(fn, ctx, op, fetch, dest, value, cond, size,
                              shr_api_world_pe(fn, ctx, pe), req));
}

void shr_api_put_signal_req_gated(const char *fn, shr_ctx_t *ctx, void *dest, const void *src,
                                  size_t len, uint64_t *sig_addr, uint64_t signal, int sig_op,
                                  int pe, shmemx_req_t *req)
{
    SHR_API_GATED(SHR_PROF_SIGNAL, len,
                  (shr_check_rma(fn, ctx, "dest", dest, "source", src, len, pe),
                   shr_check_signal(fn, ctx, sig_addr, sig_op, pe),
                   shr_check_local(fn, "req", req, 1)),
                  shr_req_put_signal(fn, ctx, dest, src, len, sig_addr, signal, sig_op,
                                     shr_api_world_pe(fn, ctx, pe), req));
}
