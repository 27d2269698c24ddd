/* str.c -- size, boolean and integer parsing; size formatting. */
#include "util/str.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

shr_status_t shr_str_to_size(const char *text, size_t *bytes_p)
{
    const char *p = text;
    long double value = 0, scale = 1;
    int digits = 0;

    if (text == NULL) {
        return SHR_ERR_INVALID;
    }
    /* Parse by hand: strtod would also take hex, "inf", "nan" and signs. */
    for (; isdigit((unsigned char)*p); p++, digits++) {
        value = value * 10 + (*p - '0');
    }
    if (*p == '.') {
        long double place = 0.1L;
        for (p++; isdigit((unsigned char)*p); p++, digits++, place /= 10) {
            value += (*p - '0') * place;
        }
    }
    if (digits == 0) {
        return SHR_ERR_INVALID;
    }
    if ((*p == 'e' || *p == 'E') &&
        (isdigit((unsigned char)p[1]) ||
         ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
        char *end;
        long exp10 = strtol(p + 1, &end, 10);
        if (exp10 > 30 || exp10 < -30) {
            return SHR_ERR_INVALID;
        }
        value *= powl(10, exp10);
        p = end;
    }
    switch (*p) {
    case '\0':           break;
    case 'k': case 'K':  scale = 1024.0L; break;
    case 'm': case 'M':  scale = 1024.0L * 1024; break;
    case 'g': case 'G':  scale = 1024.0L * 1024 * 1024; break;
    case 't': case 'T':  scale = 1024.0L * 1024 * 1024 * 1024; break;
    default:             return SHR_ERR_INVALID;
    }
    value = ceill(value * scale);
    if (!(value <= (long double)(SIZE_MAX / 2))) {
        return SHR_ERR_INVALID;
    }
    *bytes_p = (size_t)value;
    return SHR_OK;
}

const char *shr_str_from_size(size_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double value = (double)bytes;
    unsigned unit = 0;

    while (value >= 1024 && unit + 1 < sizeof(units) / sizeof(units[0])) {
        value /= 1024;
        unit++;
    }
    if (unit == 0 || value == (double)(long long)value) {
        snprintf(buf, len, "%lld %s", (long long)value, units[unit]);
    } else {
        snprintf(buf, len, "%.1f %s", value, units[unit]);
    }
    return buf;
}

const char *shr_str_from_size_env(size_t bytes, char *buf, size_t len)
{
    static const char suffix[] = {'k', 'm', 'g', 't'};
    unsigned long long value = bytes;
    int unit = -1;

    /* the largest unit that keeps the number a whole one >= 1 */
    while (unit < 3 && value >= 1024) {
        value = (value + 1023) / 1024;
        unit++;
    }
    if (unit < 0) {
        snprintf(buf, len, "%llu", value);
    } else {
        snprintf(buf, len, "%llu%c", value, suffix[unit]);
    }
    return buf;
}

shr_status_t shr_str_to_bool(const char *text, int *value_p)
{
    static const char *const yes[] = {"1", "y", "yes", "on", "true"};
    static const char *const no[] = {"0", "n", "no", "off", "false"};

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(text, yes[i]) == 0) {
            *value_p = 1;
            return SHR_OK;
        }
        if (strcasecmp(text, no[i]) == 0) {
            *value_p = 0;
            return SHR_OK;
        }
    }
    return SHR_ERR_INVALID;
}

shr_status_t shr_str_to_long(const char *text, long min, long max, long *value_p)
{
    char *end;
    long value;

    errno = 0;
    value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < min || value > max) {
        return SHR_ERR_INVALID;
    }
    *value_p = value;
    return SHR_OK;
}
