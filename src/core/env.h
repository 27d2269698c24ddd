/*
 * env.h -- the run-time configuration, parsed once from env.def.
 * getenv() is called in env.c only.
 */
#ifndef SHR_ENV_H
#define SHR_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "util/compiler.h"
#include "util/status.h"

#define SHR_ENV_CTYPE_FLAG   int
#define SHR_ENV_CTYPE_BOOL   int
#define SHR_ENV_CTYPE_INT    long
#define SHR_ENV_CTYPE_SIZE   size_t
#define SHR_ENV_CTYPE_ENUM   int
#define SHR_ENV_CTYPE_STRING const char *

typedef struct shr_config {
#define SHR_ENV(_field, _name, _alias, _type, _def, _values, _cat, _help) \
    SHR_ENV_CTYPE_##_type _field;
#include "core/env.def"
#undef SHR_ENV
} shr_config_t;

/* Values of the ENUM variables, in the order of their list in env.def. */
enum { SHR_SHM_BACKING_MEMFD, SHR_SHM_BACKING_FILE };
enum { SHR_HUGEPAGES_AUTO, SHR_HUGEPAGES_ON, SHR_HUGEPAGES_OFF };
enum { SHR_SHM_COPY_AUTO, SHR_SHM_COPY_AVX512, SHR_SHM_COPY_MEMCPY };
enum { SHR_PROGRESS_THREAD_AUTO, SHR_PROGRESS_THREAD_ON, SHR_PROGRESS_THREAD_OFF };
enum { SHR_WAIT_MODE_AUTO, SHR_WAIT_MODE_SPIN, SHR_WAIT_MODE_MONITOR, SHR_WAIT_MODE_YIELD,
       SHR_WAIT_MODE_NAP };

/* The configuration; valid after shr_env_load() succeeded.  Read-only. */
extern shr_config_t shr_config SHR_PLUGIN_IMPORT(config);

/* Parses every variable.  On a bad value logs one error line naming the
 * variable, the value and the expected form, names `routine` as the caller,
 * and returns SHR_ERR_INVALID.  Warns about unknown SHIMMER_* names. */
shr_status_t shr_env_load(const char *routine);

/* Prints the table with current values and their origin (PE 0's SHMEM_INFO,
 * shimmer-info --env), in columns as wide as their widest entry. */
void shr_env_print(void *stream);

/* One variable as printed: name, current value as text, where the value
 * came from ("default", or the variable that set it), help, deprecated
 * alias (or NULL).  The strings are the table's; valid after shr_env_load. */
typedef struct shr_env_row {
    const char *name, *origin, *help, *alias;
    char value[256];
} shr_env_row_t;

/* The number of variables (rows of env.def), and row i of them. */
size_t shr_env_count(void);
void shr_env_row(size_t i, shr_env_row_t *row);

/* Raw lookup for the few variables that are not in the table: the launcher's
 * protocol variables and other libraries' (PMIx, UCX).  NULL when unset. */
const char *shr_env_get_raw(const char *name) SHR_PLUGIN_IMPORT(env_get_raw);

#endif
