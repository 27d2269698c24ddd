/* log.c -- formatting and output of log lines. */
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/compiler.h"

int shr_log_level = SHR_LOG_WARN;
SHR_PLUGIN_EXPORT(log_level);
unsigned shr_log_cats = SHR_LOG_ALL;
SHR_PLUGIN_EXPORT(log_cats);

static int log_pe = -1;
static char log_host[64];
static int log_fd = STDERR_FILENO;
static char last_error[512];

static const char *const level_names[] = {"error", "warning", "info", "debug", "trace"};

void shr_log_set_identity(int pe, const char *host)
{
    log_pe = pe;
    if (host != NULL) {
        snprintf(log_host, sizeof(log_host), "%s", host);
    }
}

void shr_log_set_file(const char *path)
{
    char name[4096];
    size_t n = 0;

    for (const char *p = path; *p != '\0' && n + 32 < sizeof(name); p++) {
        if (p[0] == '%' && p[1] == 'p') {
            n += (size_t)snprintf(name + n, sizeof(name) - n, "%d", log_pe);
            p++;
        } else if (p[0] == '%' && p[1] == 'h') {
            n += (size_t)snprintf(name + n, sizeof(name) - n, "%s", log_host);
            p++;
        } else {
            name[n++] = *p;
        }
    }
    name[n] = '\0';
    /* The name is often predictable (/tmp/run-%p.log): never follow a
     * symlink there, and append only to a plain file of our own with no
     * other name, so another user cannot redirect or read our lines. */
    int fd = open(name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        shr_log_emit(SHR_LOG_WARN, "cannot open log file %s: %s; logging to stderr", name,
                     errno == ELOOP ? "it is a symbolic link (not followed)" : strerror(errno));
        return;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        st.st_nlink != 1) {
        close(fd);
        shr_log_emit(SHR_LOG_WARN, "log file %s is not a plain file of this user with one "
                     "name; logging to stderr (remove it or choose another name)", name);
        return;
    }
    log_fd = fd;
}

int shr_log_format(char *buf, int len, shr_log_level_t level, const char *fmt, va_list ap)
{
    int n;

    if (log_pe >= 0) {
        n = snprintf(buf, (size_t)len, "shimmer: %s: [pe %d %s] ", level_names[level], log_pe,
                     log_host);
    } else {
        n = snprintf(buf, (size_t)len, "shimmer: %s: ", level_names[level]);
    }
    if (n < len) {
        n += vsnprintf(buf + n, (size_t)(len - n), fmt, ap);
    }
    return n < len ? n : len - 1;
}

const char *shr_log_last_error(void)
{
    return last_error;
}

void shr_log_vemit(shr_log_level_t level, const char *fmt, va_list ap)
{
    char line[1024];
    va_list copy;

    if (level == SHR_LOG_ERROR) {
        va_copy(copy, ap);
        vsnprintf(last_error, sizeof(last_error), fmt, copy);
        va_end(copy);
    }
    int n = shr_log_format(line, (int)sizeof(line) - 1, level, fmt, ap);

    line[n++] = '\n';
    /* one write: lines from concurrent PEs and threads stay whole */
    ssize_t ret = write(log_fd, line, (size_t)n);
    (void)ret;
}

void shr_log_emit(shr_log_level_t level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    shr_log_vemit(level, fmt, ap);
    va_end(ap);
}
SHR_PLUGIN_EXPORT(log_emit);

bool shr_log_parse_cats(const char *list, unsigned *cats_p)
{
    static const char *const names[] = {
#define SHR_LOG_CAT(_name, _str) _str,
#include "util/log.def"
#undef SHR_LOG_CAT
    };
    unsigned cats = 0;
    const char *p = list;

    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        bool found = false;
        if (len == 3 && strncmp(p, "all", 3) == 0) {
            cats = SHR_LOG_ALL;
            found = true;
        }
        for (unsigned i = 0; !found && i < SHR_LOG_CAT_COUNT; i++) {
            if (strlen(names[i]) == len && strncmp(p, names[i], len) == 0) {
                cats |= 1u << i;
                found = true;
            }
        }
        if (!found && len > 0) {
            return false;
        }
        p += len + (p[len] == ',');
    }
    *cats_p = cats;
    return true;
}
