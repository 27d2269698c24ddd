/* dtype.c -- names of the types (for messages). */
#include "core/dtype.h"

const char *shr_dtype_name(shr_dtype_t dt)
{
    switch (dt) {
#define SHR_DTYPE(_name, _ctype, _kind) case SHR_DTYPE_##_name: return #_ctype;
#include "core/gen/dtype.def"
#undef SHR_DTYPE
    default: return "bytes";
    }
}
