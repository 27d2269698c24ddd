/*
 * shimmer-info -- what this Shimmer is and how it is configured.
 *   shimmer-info           version, build options, transports, environment
 *   shimmer-info --env     only the environment table (current values)
 *   shimmer-info --version only the version line
 * Runs without a launcher and without initialising the library.
 */
#include <stdio.h>
#include <string.h>

#include <shmem_defs.h>

#include "core/env.h"
#include "core/remote.h"
#include "util/log.h"

static void print_build(void)
{
    printf("%s (OpenSHMEM %d.%d)\n", SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION,
           SHMEM_MINOR_VERSION);
    printf("  transports: shm (load/store on this node), ");
    shr_remote_describe(stdout); /* which plugin it finds, and whether it loads */
    printf("\n");
    printf("  bootstrap:  oshrun, single PE%s\n",
#ifdef SHIMMER_HAVE_PMIX
           ", PMIx (mpirun, srun --mpi=pmix, prterun)"
#else
           "; no PMIx (built without libpmix)"
#endif
    );
    printf("  compiler:   %s\n", __VERSION__);
    printf("  thread levels: up to SHMEM_THREAD_MULTIPLE\n");
    printf("  log levels: up to %s\n\n",
           SHR_LOG_MAX_LEVEL >= SHR_LOG_TRACE ? "trace" : "debug (trace is compiled out)");
}

int main(int argc, char **argv)
{
    int env_only = argc > 1 && strcmp(argv[1], "--env") == 0;

    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("%s\n", SHMEM_VENDOR_STRING);
        return 0;
    }
    if (argc > 1 && !env_only) {
        fprintf(stderr, "usage: shimmer-info [--env | --version]\n");
        return 2;
    }
    if (!env_only) {
        print_build();
        printf("environment (value, origin, meaning):\n");
    }
    if (shr_env_load("shimmer-info") != SHR_OK) {
        return 1;
    }
    shr_env_print(stdout);
    return 0;
}
