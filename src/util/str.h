/* str.h -- string helpers shared by the library and the launcher. */
#ifndef SHR_STR_H
#define SHR_STR_H

#include <stddef.h>

#include "util/status.h"

/* Parses a byte count in the OpenSHMEM environment syntax (spec section 8):
 * a non-negative decimal integer or floating-point number, then at most one
 * suffix k/K m/M g/G t/T (powers of 1024); characters after the suffix are
 * ignored ("20kk" = 20 KiB), ".5m" = "0.5m".  The result is the ceiling of
 * the product.  On success sets *bytes_p; on a malformed value, an unknown
 * suffix or an overflow returns SHR_ERR_INVALID and leaves *bytes_p alone.
 * Thread-safe. */
shr_status_t shr_str_to_size(const char *text, size_t *bytes_p);

/* Writes `bytes` for humans ("512 B", "64 MiB", "3.1 GiB") into buf[len] and
 * returns buf.  Thread-safe. */
const char *shr_str_from_size(size_t bytes, char *buf, size_t len);

/* Writes `bytes` rounded up in the environment syntax ("128m", "3g", "64k")
 * into buf[len] and returns buf: what a message tells the user to set. */
const char *shr_str_from_size_env(size_t bytes, char *buf, size_t len);

/* Parses a boolean the way users write it: 1/0, y/n, yes/no, on/off,
 * true/false (any case).  SHR_ERR_INVALID otherwise. */
shr_status_t shr_str_to_bool(const char *text, int *value_p);

/* Parses a decimal integer in [min, max] (whole string).  SHR_ERR_INVALID
 * otherwise. */
shr_status_t shr_str_to_long(const char *text, long min, long max, long *value_p);

#endif
