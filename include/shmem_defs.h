/*
 * shmem_defs.h -- Shimmer's OpenSHMEM constants, handles and types.
 * Hand-written; included by the generated shmem.h and pshmem.h.
 * Only names the specification defines (or SHMEMX_/shmemx_-prefixed ones).
 */
#ifndef SHMEM_DEFS_H
#define SHMEM_DEFS_H

#include <stddef.h>
#include <stdint.h>

/* ---- version ---------------------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 6
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 64
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
/* Shimmer's own version: the one place it is written (CMakeLists.txt reads
 * it).  Also how code and tools such as shmem4py tell Shimmer apart from
 * other implementations: #ifdef SHIMMER_VERSION_MAJOR. */
#define SHIMMER_VERSION_MAJOR 0
#define SHIMMER_VERSION_MINOR 1
#define SHIMMER_VERSION_PATCH 0
/* one number that compares: 10000 * major + 100 * minor + patch */
#define SHIMMER_NUMVERSION \
    (SHIMMER_VERSION_MAJOR * 10000 + SHIMMER_VERSION_MINOR * 100 + SHIMMER_VERSION_PATCH)
#define SHIMMER_STRINGIFY_(x) #x
#define SHIMMER_STRINGIFY(x) SHIMMER_STRINGIFY_(x)
#define SHMEM_VENDOR_STRING                                                              \
    "Shimmer " SHIMMER_STRINGIFY(SHIMMER_VERSION_MAJOR) "." SHIMMER_STRINGIFY(            \
        SHIMMER_VERSION_MINOR) "." SHIMMER_STRINGIFY(SHIMMER_VERSION_PATCH)
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

/* ---- threads (strictly increasing, as the spec requires) ------------------ */
#define SHMEM_THREAD_SINGLE     0
#define SHMEM_THREAD_FUNNELED   1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE   3

/* ---- contexts, teams, sessions, malloc hints -------------------------------- */
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE    (1L << 1)
#define SHMEM_CTX_NOSTORE    (1L << 2)
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)
#define SHMEM_CTX_SESSION_TOTAL_OPS (1L << 0)
#define SHMEM_CTX_SESSION_BATCH     (1L << 0)
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE  (1L << 1)

/* ---- signals and comparisons -------------------------------------------- */
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* ---- active-set collectives (deprecated in 1.5, still used widely) ----------
 * Shimmer keeps its active-set state in pSync itself, so every sync array has
 * the same size; SHMEM_SYNC_SIZE fits every routine. */
#define SHMEM_SYNC_VALUE 0L
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 16
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- handles ------------------------------------------------------------
 * Handles are pointers to library objects, so they compare with == and the
 * predefined ones are address constants usable in static initialisers. */
typedef struct shmem_ctx_impl *shmem_ctx_t;
typedef struct shmem_team_impl *shmem_team_t;

typedef struct {
    int num_contexts;
} shmem_team_config_t;

typedef struct {
    size_t total_ops;
} shmem_ctx_session_config_t;

#ifdef __cplusplus
extern "C" {
#endif
extern struct shmem_ctx_impl shmemx_internal_ctx_default;
extern struct shmem_team_impl shmemx_internal_team_world;
extern struct shmem_team_impl shmemx_internal_team_shared;
#ifdef __cplusplus
}
#endif

#define SHMEM_CTX_DEFAULT  (&shmemx_internal_ctx_default)
#define SHMEM_CTX_INVALID  ((shmem_ctx_t)0)
#define SHMEM_TEAM_WORLD   (&shmemx_internal_team_world)
#define SHMEM_TEAM_SHARED  (&shmemx_internal_team_shared)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

/* ---- request handles (shmemx.h, docs/requests.md) ---------------------- */
/* A handle stands for a group of operations; one wait or test completes
 * them all.  NULL (SHMEMX_REQ_NULL) is a handle with nothing in flight. */
typedef struct shmemx_req *shmemx_req_t;
#define SHMEMX_REQ_NULL ((shmemx_req_t)0)

/* ---- attributes -------------------------------------------------------- */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define SHMEMX_NORETURN [[noreturn]]
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define SHMEMX_NORETURN _Noreturn
#elif defined(__GNUC__)
#define SHMEMX_NORETURN __attribute__((noreturn))
#else
#define SHMEMX_NORETURN
#endif

/* Complex reduction types: C99 _Complex, or the GNU spelling in C++. */
#if !defined(__cplusplus) && !defined(__STDC_NO_COMPLEX__)
#define SHMEMX_HAVE_COMPLEX 1
#define SHMEMX_COMPLEXD double _Complex
#define SHMEMX_COMPLEXF float _Complex
#elif defined(__cplusplus) && defined(__GNUC__)
#define SHMEMX_HAVE_COMPLEX 1
#define SHMEMX_COMPLEXD __complex__ double
#define SHMEMX_COMPLEXF __complex__ float
#endif

#endif /* SHMEM_DEFS_H */
