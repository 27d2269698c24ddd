/*
 * ucx_log_test.c -- unit test of the filter of UCX's own log lines
 * (ucx_status.c): UCX's socket connect() error at a peer that refused or
 * reset the connection (its process is gone, as at shmem_global_exit) is
 * not printed; the same line at any other errno, and any other UCX error,
 * still is.  UCX prints on stdout, which the test reads back from a file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <ucs/config/global_opts.h>
#include <ucs/debug/log_def.h>
#include <unistd.h>

#include "transport/ucx/ucx.h"
#include "util/expect.h"

/* Dispatches one UCX error line with `err` in errno, as UCX's sock.c
 * does, and returns whether UCX printed it. */
static bool printed(int err, const char *format)
{
    FILE *out = tmpfile();
    int saved = dup(STDOUT_FILENO);
    char text[512] = "";

    fflush(stdout);
    dup2(fileno(out), STDOUT_FILENO);
    errno = err;
    ucs_log_dispatch("sock.c", 325, "ucs_socket_connect", UCS_LOG_LEVEL_ERROR,
                     &ucs_global_opts.log_component, format, 23, "10.214.171.1:42015");
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    rewind(out);
    size_t n = fread(text, 1, sizeof(text) - 1, out);
    fclose(out);
    text[n] = '\0';
    return strstr(text, "10.214.171.1:42015") != NULL;
}

int main(void)
{
    static const char connect_line[] = "connect(fd=%d, dest_addr=%s) failed: %m";
    static const char other_line[] = "send(fd=%d, dest=%s) failed: %m";

    /* UCX's own handler prints: the test can see a line at all */
    EXPECT(printed(ECONNREFUSED, connect_line));
    shr_ucx_log_attach();
    EXPECT(!printed(ECONNREFUSED, connect_line));
    EXPECT(!printed(ECONNRESET, connect_line));
    EXPECT(printed(EHOSTUNREACH, connect_line));
    EXPECT(printed(ETIMEDOUT, connect_line));
    EXPECT(printed(ECONNRESET, other_line));
    return failures;
}
