/*
 * dtype.h -- the OpenSHMEM types as values (for type-erased code: waits,
 * reductions), expanded from the generated gen/dtype.def.
 */
#ifndef SHR_DTYPE_H
#define SHR_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <shmem_defs.h>

typedef enum {
#define SHR_DTYPE(_name, _ctype, _kind) SHR_DTYPE_##_name,
#include "core/gen/dtype.def"
#undef SHR_DTYPE
    SHR_DTYPE_BYTE,  /* raw bytes: the "mem" forms */
    SHR_DTYPE_COUNT
} shr_dtype_t;

typedef enum { SHR_KIND_SINT, SHR_KIND_UINT, SHR_KIND_CHAR, SHR_KIND_FLOAT, SHR_KIND_CPLX } shr_kind_t;

static inline size_t shr_dtype_size(shr_dtype_t dt)
{
    switch (dt) {
#define SHR_DTYPE(_name, _ctype, _kind) case SHR_DTYPE_##_name: return sizeof(_ctype);
#include "core/gen/dtype.def"
#undef SHR_DTYPE
    default: return 1;
    }
}

static inline shr_kind_t shr_dtype_kind(shr_dtype_t dt)
{
    switch (dt) {
#define SHR_DTYPE(_name, _ctype, _kind) case SHR_DTYPE_##_name: return SHR_KIND_##_kind;
#include "core/gen/dtype.def"
#undef SHR_DTYPE
    default: return SHR_KIND_UINT;
    }
}

/* Signed integer comparison semantics (plain char follows the platform). */
static inline bool shr_dtype_is_signed(shr_dtype_t dt)
{
    shr_kind_t kind = shr_dtype_kind(dt);
    return kind == SHR_KIND_SINT || (kind == SHR_KIND_CHAR && (char)-1 < 0);
}

/* Reduction operators. */
typedef enum {
    SHR_OP_AND,
    SHR_OP_OR,
    SHR_OP_XOR,
    SHR_OP_MIN,
    SHR_OP_MAX,
    SHR_OP_SUM,
    SHR_OP_PROD,
    SHR_OP_COUNT
} shr_op_t;

const char *shr_dtype_name(shr_dtype_t dt);

#endif
