/*
 * shmemx.h -- Shimmer's extensions to OpenSHMEM (shmemx_ / SHMEMX_ names).
 * The spec requires this header to exist; everything here is beyond the
 * standard and documented in docs/extensions.md.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SHMEMX_H */
