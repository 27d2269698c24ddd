/* status.h -- internal status codes (from status.def) and their messages. */
#ifndef SHR_STATUS_H
#define SHR_STATUS_H

#include "util/compiler.h"

typedef enum {
#define SHR_STATUS(_name, _value, _msg) SHR_##_name = _value,
#include "util/status.def"
#undef SHR_STATUS
} shr_status_t;

/* Static string describing `status`; never NULL. Thread-safe. */
const char *shr_status_string(shr_status_t status) SHR_PLUGIN_IMPORT(status_string);

#endif
