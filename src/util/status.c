/* status.c -- messages of the status codes, expanded from status.def. */
#include "util/status.h"

#include "util/compiler.h"

const char *shr_status_string(shr_status_t status)
{
    switch (status) {
#define SHR_STATUS(_name, _value, _msg) case SHR_##_name: return _msg;
#include "util/status.def"
#undef SHR_STATUS
    }
    return "unknown status";
}
SHR_PLUGIN_EXPORT(status_string);
