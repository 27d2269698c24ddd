/* env.c -- parses env.def into shr_config; the only user of getenv(). */
#include "core/env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/compiler.h"
#include "util/log.h"
#include "util/str.h"

extern char **environ;

shr_config_t shr_config;
SHR_PLUGIN_EXPORT(config);

typedef enum { T_FLAG, T_BOOL, T_INT, T_SIZE, T_ENUM, T_STRING } env_type_t;

typedef struct {
    const char *name, *alias, *def, *values, *category, *help;
    env_type_t type;
    size_t offset;
} env_var_t;

#define SHR_ENV(_field, _name, _alias, _type, _def, _values, _cat, _help) \
    {#_name, #_alias, _def, _values, #_cat, _help, T_##_type, offsetof(shr_config_t, _field)},
static env_var_t env_vars[] = {
#include "core/env.def"
};
#undef SHR_ENV

#define ENV_COUNT (sizeof(env_vars) / sizeof(env_vars[0]))

/* Where each value came from, for SHMEM_INFO. */
static const char *env_origin[ENV_COUNT];

/* SHIMMER_* names that are set by our own launcher, not by users. */
static const char *const internal_names[] = {
    "SHIMMER_BOOT_FD", "SHIMMER_BOOT_RANK", "SHIMMER_BOOT_SIZE", "SHIMMER_JOB_ID",
};

const char *shr_env_get_raw(const char *name)
{
    return getenv(name);
}
SHR_PLUGIN_EXPORT(env_get_raw);

/* Index of `value` in the comma list `values`, or -1. */
static int enum_index(const char *values, const char *value)
{
    int index = 0;

    for (const char *p = values; *p != '\0'; index++) {
        size_t len = strcspn(p, ",");
        if (strlen(value) == len && strncasecmp(p, value, len) == 0) {
            return index;
        }
        p += len + (p[len] == ',');
    }
    return -1;
}

static shr_status_t parse_value(const env_var_t *var, const char *text, void *field)
{
    int flag;
    long number;

    switch (var->type) {
    case T_FLAG:
        /* the spec says "any value" enables; accept the usual spellings of off */
        *(int *)field = !(shr_str_to_bool(text, &flag) == SHR_OK && flag == 0);
        return SHR_OK;
    case T_BOOL:
        if (strcasecmp(text, "auto") == 0) {
            *(int *)field = -1;
            return SHR_OK;
        }
        return shr_str_to_bool(text, (int *)field);
    case T_INT:
        if (shr_str_to_long(text, -1, 1L << 40, &number) != SHR_OK) {
            return SHR_ERR_INVALID;
        }
        *(long *)field = number;
        return SHR_OK;
    case T_SIZE:
        return shr_str_to_size(text, (size_t *)field);
    case T_ENUM:
        number = enum_index(var->values, text);
        if (number < 0) {
            return SHR_ERR_INVALID;
        }
        *(int *)field = (int)number;
        return SHR_OK;
    case T_STRING:
        *(const char **)field = text;
        return SHR_OK;
    }
    return SHR_ERR_INVALID;
}

static const char *expected_form(const env_var_t *var, char *buf, size_t len)
{
    switch (var->type) {
    case T_BOOL:   return "1 or 0 (also yes/no, on/off, auto)";
    case T_INT:    return "a whole number";
    case T_SIZE:   return "a number with an optional k/m/g/t suffix, e.g. 512m or 1.5g";
    case T_ENUM:   snprintf(buf, len, "one of %s", var->values); return buf;
    default:       return "a value";
    }
}

static unsigned edit_distance(const char *a, const char *b)
{
    unsigned row[128], la = (unsigned)strlen(a), lb = (unsigned)strlen(b);

    if (lb >= 128) {
        return 1000;
    }
    for (unsigned j = 0; j <= lb; j++) {
        row[j] = j;
    }
    for (unsigned i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = i;
        for (unsigned j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned cost = diag + (a[i - 1] != b[j - 1]);
            unsigned best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = cost < best ? cost : best;
            diag = up;
        }
    }
    return row[lb];
}

static void warn_unknown_names(void)
{
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        char name[128];
        size_t len = strcspn(*e, "=");
        bool known = false;

        if (strncmp(*e, "SHIMMER_", 8) != 0 || len >= sizeof(name)) {
            continue;
        }
        memcpy(name, *e, len);
        name[len] = '\0';
        for (size_t i = 0; i < ENV_COUNT && !known; i++) {
            known = strcmp(name, env_vars[i].name) == 0;
        }
        for (size_t i = 0; i < sizeof(internal_names) / sizeof(internal_names[0]); i++) {
            known = known || strcmp(name, internal_names[i]) == 0;
        }
        /* per-collective algorithm knobs are checked by the collectives */
        known = known || strncmp(name, "SHIMMER_COLL_", 13) == 0;
        if (known) {
            continue;
        }
        const char *nearest = NULL;
        unsigned best = 1000;
        for (size_t i = 0; i < ENV_COUNT; i++) {
            unsigned d = edit_distance(name, env_vars[i].name);
            if (d < best) {
                best = d;
                nearest = env_vars[i].name;
            }
        }
        if (best <= 4) {
            shr_warn("unknown variable %s is ignored; did you mean %s?", name, nearest);
        } else {
            shr_warn("unknown variable %s is ignored; `shimmer-info --env` lists the known ones",
                     name);
        }
    }
}

shr_status_t shr_env_load(const char *routine)
{
    shr_config_t config;
    char buf[128];

    memset(&config, 0, sizeof(config));
    for (size_t i = 0; i < ENV_COUNT; i++) {
        if (env_vars[i].alias != NULL && strcmp(env_vars[i].alias, "NONE") == 0) {
            env_vars[i].alias = NULL;
        }
    }
    for (size_t i = 0; i < ENV_COUNT; i++) {
        const env_var_t *var = &env_vars[i];
        void *field = (char *)&config + var->offset;
        const char *text = getenv(var->name), *used = var->name;

        env_origin[i] = "default";
        if (text == NULL && var->alias != NULL) {
            text = getenv(var->alias);
            used = var->alias;
        }
        if (text != NULL) {
            env_origin[i] = used;
            if (parse_value(var, text, field) != SHR_OK) {
                shr_error("%s: %s=%s is not valid: expected %s", routine, used, text,
                          expected_form(var, buf, sizeof(buf)));
                return SHR_ERR_INVALID;
            }
        } else if (var->type != T_FLAG && parse_value(var, var->def, field) != SHR_OK) {
            shr_error("%s: bad default of %s (a bug in env.def)", routine, var->name);
            return SHR_ERR_INVALID;
        }
    }
    warn_unknown_names();
    shr_config = config;
    return SHR_OK;
}

size_t shr_env_count(void)
{
    return ENV_COUNT;
}

void shr_env_row(size_t i, shr_env_row_t *row)
{
    const env_var_t *var = &env_vars[i];
    const void *field = (const char *)&shr_config + var->offset;

    row->name = var->name;
    row->help = var->help;
    row->alias = var->alias;
    row->origin = env_origin[i] != NULL ? env_origin[i] : "default";
    switch (var->type) {
    case T_FLAG:
    case T_BOOL:
        snprintf(row->value, sizeof(row->value), "%s", *(const int *)field < 0 ? "auto" :
                 *(const int *)field ? "on" : "off");
        break;
    case T_INT:
        snprintf(row->value, sizeof(row->value), "%ld", *(const long *)field);
        break;
    case T_SIZE:
        shr_str_from_size(*(const size_t *)field, row->value, sizeof(row->value));
        break;
    case T_ENUM: {
        int index = *(const int *)field;
        const char *p = var->values;
        for (; index > 0; index--) {
            p += strcspn(p, ",") + 1;
        }
        snprintf(row->value, sizeof(row->value), "%.*s", (int)strcspn(p, ","), p);
        break;
    }
    case T_STRING:
        snprintf(row->value, sizeof(row->value), "%s", *(const char *const *)field);
        break;
    }
}

static int widest(int width, const char *text)
{
    int len = (int)strlen(text);
    return len > width ? len : width;
}

void shr_env_print(void *stream)
{
    FILE *out = stream;
    int wname = (int)strlen("variable"), wvalue = (int)strlen("value");
    int worigin = (int)strlen("origin");
    shr_env_row_t row;

    /* columns as wide as their widest entry: a long path or an alias as
     * origin must not push the rest of its line out of line */
    for (size_t i = 0; i < ENV_COUNT; i++) {
        shr_env_row(i, &row);
        wname = widest(wname, row.name);
        wvalue = widest(wvalue, row.value);
        worigin = widest(worigin, row.origin);
    }
    fprintf(out, "%-*s  %-*s  %-*s  %s\n", wname, "variable", wvalue, "value", worigin,
            "origin", "meaning");
    for (size_t i = 0; i < ENV_COUNT; i++) {
        shr_env_row(i, &row);
        fprintf(out, "%-*s  %-*s  %-*s  %s%s%s\n", wname, row.name, wvalue, row.value, worigin,
                row.origin, row.help, row.alias ? "; deprecated alias " : "",
                row.alias ? row.alias : "");
    }
}
