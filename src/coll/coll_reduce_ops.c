/*
 * coll_reduce_ops.c -- the [op][dtype] reduction kernels, expanded from the
 * type table (core/gen/dtype.def): once to define the functions, once to
 * fill the table.
 *
 *   integers (SINT, UINT, CHAR)  and or xor min max sum prod; sum and prod
 *                                wrap (computed in uintmax_t: no signed
 *                                overflow, same bits as two's complement)
 *   FLOAT                        min max sum prod
 *   CPLX                         sum prod
 * The API generator exposes only the spec's (type, op) pairs; the table may
 * hold more.  Kernels are z[i] = x[i] op y[i], z may be x or y.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3") /* vectorise the kernels (release builds are -O2) */
#endif

#include <stdint.h>

#include "coll/coll_int.h"

#define KERNEL(_op, _name, _ctype, _expr) \
    static void k_##_op##_##_name(void *z_, const void *x_, const void *y_, size_t n) \
    { \
        _ctype *z = z_; \
        const _ctype *x = x_, *y = y_; \
        for (size_t i = 0; i < n; i++) { \
            _ctype a = x[i], b = y[i]; \
            z[i] = (_expr); \
        } \
    }

#define KERNELS_INT(_name, _ctype) \
    KERNEL(and, _name, _ctype, (_ctype)(a & b)) \
    KERNEL(or, _name, _ctype, (_ctype)(a | b)) \
    KERNEL(xor, _name, _ctype, (_ctype)(a ^ b)) \
    KERNEL(min, _name, _ctype, a < b ? a : b) \
    KERNEL(max, _name, _ctype, a > b ? a : b) \
    KERNEL(sum, _name, _ctype, (_ctype)((uintmax_t)a + (uintmax_t)b)) \
    KERNEL(prod, _name, _ctype, (_ctype)((uintmax_t)a * (uintmax_t)b))
#define KERNELS_SINT KERNELS_INT
#define KERNELS_UINT KERNELS_INT
#define KERNELS_CHAR KERNELS_INT
#define KERNELS_FLOAT(_name, _ctype) \
    KERNEL(min, _name, _ctype, a < b ? a : b) \
    KERNEL(max, _name, _ctype, a > b ? a : b) \
    KERNEL(sum, _name, _ctype, a + b) \
    KERNEL(prod, _name, _ctype, a * b)
#define KERNELS_CPLX(_name, _ctype) \
    KERNEL(sum, _name, _ctype, a + b) \
    KERNEL(prod, _name, _ctype, a * b)

#define SHR_DTYPE(_name, _ctype, _kind) KERNELS_##_kind(_name, _ctype)
#include "core/gen/dtype.def"
#undef SHR_DTYPE

#define ROW(_op, _OP, _name) [SHR_OP_##_OP][SHR_DTYPE_##_name] = k_##_op##_##_name,
#define ROWS_INT(_name) \
    ROW(and, AND, _name) ROW(or, OR, _name) ROW(xor, XOR, _name) ROW(min, MIN, _name) \
    ROW(max, MAX, _name) ROW(sum, SUM, _name) ROW(prod, PROD, _name)
#define ROWS_SINT ROWS_INT
#define ROWS_UINT ROWS_INT
#define ROWS_CHAR ROWS_INT
#define ROWS_FLOAT(_name) \
    ROW(min, MIN, _name) ROW(max, MAX, _name) ROW(sum, SUM, _name) ROW(prod, PROD, _name)
#define ROWS_CPLX(_name) ROW(sum, SUM, _name) ROW(prod, PROD, _name)

static const shr_coll_op_fn_t table[SHR_OP_COUNT][SHR_DTYPE_COUNT] = {
#define SHR_DTYPE(_name, _ctype, _kind) ROWS_##_kind(_name)
#include "core/gen/dtype.def"
#undef SHR_DTYPE
};

shr_coll_op_fn_t shr_coll_op_fn(shr_dtype_t dt, shr_op_t op)
{
    if ((unsigned)dt >= SHR_DTYPE_COUNT || (unsigned)op >= SHR_OP_COUNT) {
        return NULL;
    }
    return table[op][dt];
}

bool shr_coll_op_is_supported(shr_dtype_t dt, shr_op_t op)
{
    return shr_coll_op_fn(dt, op) != NULL;
}
