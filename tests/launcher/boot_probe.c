/*
 * boot_probe.c -- a PE program built directly on src/boot (no library core),
 * so that oshrun and the boot layer can be tested on their own.
 *
 * Every PE: init, print "probe: rank R size N kind K", check --rounds
 * allgathers of --blob bytes each, barrier, then act out --mode (the victim
 * PE misbehaves, the others go on or wait), finalize, exit 0.
 */
#include "boot/boot.h"
#include "util/str.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    const char *mode;
    long victim;
    long status;
    long blob;
    long rounds;
    const char *pid_dir;
    const char *env_name;
    int ignore_term;
} shr_probe_opts_t;

static const char shr_probe_usage[] =
    "usage: boot_probe [--mode M] [--victim R] [--status S] [--blob BYTES]\n"
    "                  [--rounds K] [--pid-dir DIR] [--env VAR] [--ignore-term]\n"
    "modes: ok exit signal abort abort-thread global-exit hang block nofini\n"
    "       reinit mismatch leave stdin\n";

static int shr_probe_rank = -1;

static _Noreturn void shr_probe_fail(const char *what)
{
    fprintf(stderr, "probe: rank %d: FAIL: %s\n", shr_probe_rank, what);
    exit(1);
}

static unsigned char shr_probe_byte(int rank, size_t i, long round)
{
    return (unsigned char)(rank * 131 + (long)i * 7 + round * 29 + 1);
}

static void shr_probe_allgather(long blob, long round, int rank, int size)
{
    unsigned char *mine = malloc((size_t)blob + 1);
    unsigned char *all = malloc((size_t)blob * (size_t)size + 1);
    char msg[128];

    if (mine == NULL || all == NULL) {
        shr_probe_fail("out of memory");
    }
    for (size_t i = 0; i < (size_t)blob; i++) {
        mine[i] = shr_probe_byte(rank, i, round);
    }
    if (shr_boot_allgather(mine, all, (size_t)blob) != SHR_OK) {
        shr_probe_fail("shr_boot_allgather returned an error");
    }
    for (int r = 0; r < size; r++) {
        for (size_t i = 0; i < (size_t)blob; i++) {
            if (all[(size_t)r * (size_t)blob + i] != shr_probe_byte(r, i, round)) {
                snprintf(msg, sizeof(msg), "allgather round %ld: wrong byte %zu from rank %d",
                         round, i, r);
                shr_probe_fail(msg);
            }
        }
    }
    free(mine);
    free(all);
}

static void shr_probe_pid_write(const char *dir, int rank)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/pe.%d.pid", dir, rank);
    f = fopen(path, "w");
    if (f == NULL) {
        shr_probe_fail("cannot write the pid file");
    }
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
}

static void *shr_probe_abort_thread(void *arg)
{
    const shr_probe_opts_t *opts = arg;
    struct timespec delay = {0, 100 * 1000 * 1000};

    nanosleep(&delay, NULL);
    shr_boot_abort((int)opts->status, "probe abort from a thread");
}

static _Noreturn void shr_probe_wait_forever(void)
{
    for (;;) {
        pause();
    }
}

static void shr_probe_parse(int argc, char **argv, shr_probe_opts_t *opts)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        long *number = NULL;

        if (strcmp(arg, "--ignore-term") == 0) {
            opts->ignore_term = 1;
            continue;
        }
        if (value == NULL) {
            fputs(shr_probe_usage, stderr);
            exit(2);
        }
        i++;
        if (strcmp(arg, "--mode") == 0) {
            opts->mode = value;
        } else if (strcmp(arg, "--pid-dir") == 0) {
            opts->pid_dir = value;
        } else if (strcmp(arg, "--env") == 0) {
            opts->env_name = value;
        } else if (strcmp(arg, "--victim") == 0) {
            number = &opts->victim;
        } else if (strcmp(arg, "--status") == 0) {
            number = &opts->status;
        } else if (strcmp(arg, "--blob") == 0) {
            number = &opts->blob;
        } else if (strcmp(arg, "--rounds") == 0) {
            number = &opts->rounds;
        } else {
            fputs(shr_probe_usage, stderr);
            exit(2);
        }
        if (number != NULL && shr_str_to_long(value, number == &opts->victim ? -1 : 0,
                                               1L << 30, number) != SHR_OK) {
            fputs(shr_probe_usage, stderr);
            exit(2);
        }
    }
}

/* What the victim does in each failure mode; returns for modes in which the
 * victim carries on. */
static void shr_probe_victim_act(const shr_probe_opts_t *opts, int rank)
{
    const char *mode = opts->mode;
    char msg[64];
    pthread_t thread;

    if (strcmp(mode, "exit") == 0) {
        exit((int)opts->status);
    } else if (strcmp(mode, "signal") == 0) {
        signal((int)opts->status, SIG_DFL);
        raise((int)opts->status);
        shr_probe_fail("still alive after raise");
    } else if (strcmp(mode, "abort") == 0) {
        snprintf(msg, sizeof(msg), "probe abort from rank %d", rank);
        shr_boot_abort((int)opts->status, msg);
    } else if (strcmp(mode, "abort-thread") == 0) {
        if (pthread_create(&thread, NULL, shr_probe_abort_thread, (void *)opts) != 0) {
            shr_probe_fail("pthread_create");
        }
        /* Blocks in the launcher until the thread aborts the job. */
        shr_boot_barrier();
        shr_probe_fail("barrier returned although other PEs never joined");
    } else if (strcmp(mode, "global-exit") == 0) {
        shr_boot_global_exit((int)opts->status);
    } else if (strcmp(mode, "leave") == 0) {
        _exit(0);
    }
}

int main(int argc, char **argv)
{
    shr_probe_opts_t opts = {.mode = "ok", .victim = -1, .blob = 64, .rounds = 2};
    bool failing_mode;
    int rank, size;

    shr_probe_parse(argc, argv, &opts);
    if (opts.ignore_term) {
        signal(SIGTERM, SIG_IGN);
        signal(SIGINT, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
    }
    if (shr_boot_init(&rank, &size, false) != SHR_OK) {
        shr_probe_fail("shr_boot_init failed");
    }
    shr_probe_rank = rank;
    printf("probe: rank %d size %d kind %s\n", rank, size, shr_boot_kind_name());
    if (opts.pid_dir != NULL) {
        shr_probe_pid_write(opts.pid_dir, rank);
    }
    if (opts.env_name != NULL) {
        const char *value = getenv(opts.env_name);
        printf("probe: rank %d env %s=%s\n", rank, opts.env_name,
               value != NULL ? value : "(unset)");
    }
    fflush(stdout);

    if (strcmp(opts.mode, "mismatch") == 0 && rank == opts.victim) {
        opts.blob++;
    }
    if (strcmp(opts.mode, "leave") == 0 && rank == opts.victim) {
        shr_probe_victim_act(&opts, rank);
    }
    if (strcmp(opts.mode, "block") == 0 && rank == opts.victim) {
        shr_probe_wait_forever(); /* the others block in the first collective */
    }
    for (long round = 0; round < opts.rounds; round++) {
        shr_probe_allgather(opts.blob, round, rank, size);
    }
    if (shr_boot_barrier() != SHR_OK) {
        shr_probe_fail("barrier");
    }
    printf("probe: rank %d allgather ok\n", rank);
    fflush(stdout);

    failing_mode = strcmp(opts.mode, "exit") == 0 || strcmp(opts.mode, "signal") == 0 ||
                   strcmp(opts.mode, "abort") == 0 || strcmp(opts.mode, "abort-thread") == 0 ||
                   strcmp(opts.mode, "global-exit") == 0;
    if (failing_mode || strcmp(opts.mode, "hang") == 0) {
        if (rank == opts.victim) {
            shr_probe_victim_act(&opts, rank);
        }
        shr_probe_wait_forever(); /* the launcher must end us */
    } else if (strcmp(opts.mode, "nofini") == 0) {
        return 0;
    } else if (strcmp(opts.mode, "reinit") == 0) {
        int rank2, size2;

        shr_boot_fini();
        if (shr_boot_init(&rank2, &size2, false) != SHR_OK || rank2 != rank || size2 != size) {
            shr_probe_fail("re-init after fini");
        }
        shr_probe_allgather(opts.blob, 99, rank, size);
        printf("probe: rank %d reinit ok\n", rank);
    } else if (strcmp(opts.mode, "stdin") == 0) {
        char line[256];

        if (fgets(line, sizeof(line), stdin) != NULL) {
            printf("probe: rank %d stdin %s", rank, line);
        } else {
            printf("probe: rank %d stdin eof\n", rank);
        }
    }
    shr_boot_fini();
    return 0;
}
