/* signal.c -- signal_add/set/fetch and signal_wait_until (spec 9.8, 9.11.15). */
#include "api/api_inline.h"

static void signal_op(const char *fn, shr_ctx_t *ctx, uint64_t *sig_addr, uint64_t signal,
                      int sig_op, int pe)
{
    SHR_API_TIMED(SHR_PROF_SIGNAL, sizeof(signal), shr_check_signal(fn, ctx, sig_addr, sig_op, pe),
                  shr_signal(fn, ctx, sig_addr, signal, sig_op, shr_api_world_pe(fn, ctx, pe)));
}

void pshmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_op("shmem_ctx_signal_add", ctx, sig_addr, signal, SHMEM_SIGNAL_ADD, pe);
}
SHR_API_ALIAS(shmem_ctx_signal_add)

void pshmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_op("shmem_signal_add", shr_ctx_default, sig_addr, signal, SHMEM_SIGNAL_ADD, pe);
}
SHR_API_ALIAS(shmem_signal_add)

void pshmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_op("shmem_ctx_signal_set", ctx, sig_addr, signal, SHMEM_SIGNAL_SET, pe);
}
SHR_API_ALIAS(shmem_ctx_signal_set)

void pshmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_op("shmem_signal_set", shr_ctx_default, sig_addr, signal, SHMEM_SIGNAL_SET, pe);
}
SHR_API_ALIAS(shmem_signal_set)

uint64_t pshmem_signal_fetch(const uint64_t *sig_addr)
{
    uint64_t value;

    SHR_API_TIMED(SHR_PROF_TEST, 0,
                  shr_check_wait("shmem_signal_fetch", sig_addr, 1, sizeof(uint64_t)),
                  value = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE));
    return value;
}
SHR_API_ALIAS(shmem_signal_fetch)

uint64_t pshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    uint64_t value;

    SHR_API_CHECK_CMP("shmem_signal_wait_until", cmp);
    /* the value that satisfied the condition, not a later one */
    SHR_API_TIMED(SHR_PROF_WAIT, 0,
                  shr_check_wait("shmem_signal_wait_until", sig_addr, 1, sizeof(uint64_t)),
                  value = shr_p2p_wait_until(sig_addr, cmp, &cmp_value, SHR_DTYPE_UINT64));
    return value;
}
SHR_API_ALIAS(shmem_signal_wait_until)
