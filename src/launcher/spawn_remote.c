/* spawn_remote.c -- multi-host jobs are handed to an installed PMIx launcher. */
#include "launcher/launch_int.h"

int shr_launch_spawn_remote(const shr_launch_opts_t *opts)
{
    (void)opts;
    shr_launch_error("multi-host jobs (--hostfile, -H, -N) are not yet supported; "
                     "run on one host with -n N, or start the program with mpirun");
    return 2;
}
