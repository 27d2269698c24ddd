/*
 * log.h -- one-line diagnostics.  Lives in util (not core) because every
 * layer, boot and transports included, reports through it.
 *
 * Format of user-facing errors (see docs/errors.md):
 *   shimmer: error: [pe 3 node12] shmem_int64_put: pe is 9, valid range 0..7; <fix>
 */
#ifndef SHR_LOG_H
#define SHR_LOG_H

#include <stdarg.h>
#include <stdbool.h>

#include "util/compiler.h"

typedef enum {
    SHR_LOG_ERROR,
    SHR_LOG_WARN,
    SHR_LOG_INFO,
    SHR_LOG_DEBUG,
    SHR_LOG_TRACE
} shr_log_level_t;

typedef enum {
#define SHR_LOG_CAT(_name, _str) SHR_LOG_CAT_##_name##_BIT,
#include "util/log.def"
#undef SHR_LOG_CAT
    SHR_LOG_CAT_COUNT
} shr_log_cat_bit_t;

typedef enum {
#define SHR_LOG_CAT(_name, _str) SHR_LOG_##_name = 1u << SHR_LOG_CAT_##_name##_BIT,
#include "util/log.def"
#undef SHR_LOG_CAT
    SHR_LOG_ALL = (1u << SHR_LOG_CAT_COUNT) - 1
} shr_log_cat_t;

/* Release builds compile trace logging out entirely. */
#ifndef SHR_LOG_MAX_LEVEL
#ifdef NDEBUG
#define SHR_LOG_MAX_LEVEL SHR_LOG_DEBUG
#else
#define SHR_LOG_MAX_LEVEL SHR_LOG_TRACE
#endif
#endif

extern int shr_log_level SHR_PLUGIN_IMPORT(log_level);     /* current level; read before formatting */
extern unsigned shr_log_cats SHR_PLUGIN_IMPORT(log_cats); /* enabled categories */

#define shr_log_is_enabled(_level, _cat) \
    ((_level) <= SHR_LOG_MAX_LEVEL && (int)(_level) <= shr_log_level && \
     ((_level) <= SHR_LOG_WARN || (shr_log_cats & (_cat))))

#define shr_log(_level, _cat, ...) do { \
        if (shr_log_is_enabled(_level, _cat)) { \
            shr_log_emit(_level, __VA_ARGS__); \
        } \
    } while (0)

#define shr_error(...) shr_log(SHR_LOG_ERROR, SHR_LOG_ALL, __VA_ARGS__)
#define shr_warn(...)  shr_log(SHR_LOG_WARN, SHR_LOG_ALL, __VA_ARGS__)
#define shr_debug(_cat, ...) shr_log(SHR_LOG_DEBUG, _cat, __VA_ARGS__)
#define shr_trace(_cat, ...) shr_log(SHR_LOG_TRACE, _cat, __VA_ARGS__)

/* Warns once per call site. */
#define shr_warn_once(...) do { \
        static int _warned; \
        if (!__atomic_exchange_n(&_warned, 1, __ATOMIC_RELAXED)) { \
            shr_warn(__VA_ARGS__); \
        } \
    } while (0)

/* Writes one line "shimmer: <level>: [pe P host] <message>" in one write(2),
 * so lines of concurrent PEs never interleave.  Thread-safe. */
void shr_log_emit(shr_log_level_t level, const char *fmt, ...) SHR_PLUGIN_IMPORT(log_emit)
    __attribute__((format(printf, 2, 3)));
void shr_log_vemit(shr_log_level_t level, const char *fmt, va_list ap);

/* The message of the last error line logged (without the prefix), "" if
 * none: what a fatal exit hands to the launcher as its reason. */
const char *shr_log_last_error(void);

/* Formats the same line into buf (for messages handed to the launcher). */
int shr_log_format(char *buf, int len, shr_log_level_t level, const char *fmt, va_list ap);

/* Who is speaking: -1 = not known yet.  Not thread-safe (init only). */
void shr_log_set_identity(int pe, const char *host);

/* Sends output to `path` ("%p" = PE, "%h" = host) instead of stderr. */
void shr_log_set_file(const char *path);

/* Parses a comma list of category names ("all" allowed).  Returns false and
 * leaves *cats_p alone when a name is unknown. */
bool shr_log_parse_cats(const char *list, unsigned *cats_p);

#endif
