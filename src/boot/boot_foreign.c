/*
 * boot_foreign.c -- recognises a parallel launch that no bootstrap here can
 * join.  A launcher without PMIx (srun without --mpi=pmix, MPICH's hydra,
 * an Open MPI or Shimmer built without PMIx) starts N copies; each would
 * fall back to "single" and compute alone.  Their launchers leave the job's
 * size and the copy's rank in the environment: read them (these are launcher
 * protocol variables, like SHIMMER_BOOT_*; no user knob is read here).
 */
#include "boot/boot_int.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    const char *launcher;  /* who sets them */
    const char *size_var;  /* number of copies (NULL: unknown) */
    const char *rank_var;  /* this copy's number */
    const char *fix;       /* how to launch instead */
} shr_boot_foreign_t;

static const shr_boot_foreign_t shr_boot_foreign_table[] = {
    {"a PMIx launcher", NULL, "PMIX_RANK",
     "this Shimmer was built without PMIx: rebuild it with libpmix-dev (SHIMMER_WITH_PMIX=on)"},
    {"Slurm's srun", "SLURM_STEP_NUM_TASKS", "SLURM_PROCID",
     "launch with `srun --mpi=pmix` (Slurm built with PMIx)"},
    {"Open MPI without PMIx", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
     "launch with an mpirun that serves PMIx (Open MPI 4 or newer, PRRTE's prterun)"},
    {"a PMI-1/PMI-2 launcher (MPICH hydra, Intel MPI)", "PMI_SIZE", "PMI_RANK",
     "launch with a PMIx launcher (Open MPI's mpirun, prterun, srun --mpi=pmix)"},
    {"MVAPICH's launcher", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK",
     "launch with a PMIx launcher (Open MPI's mpirun, prterun, srun --mpi=pmix)"},
    {"LSF's jsrun", "JSM_NAMESPACE_SIZE", "JSM_NAMESPACE_RANK",
     "launch with a PMIx launcher (jsrun with PMIx, or Open MPI's mpirun)"},
};

bool shr_boot_foreign_launch(char *what, size_t len)
{
    for (size_t i = 0; i < sizeof(shr_boot_foreign_table) / sizeof(shr_boot_foreign_table[0]);
         i++) {
        const shr_boot_foreign_t *f = &shr_boot_foreign_table[i];
        const char *rank = getenv(f->rank_var);
        const char *size = f->size_var != NULL ? getenv(f->size_var) : NULL;
        long n = size != NULL ? strtol(size, NULL, 10) : 0;
        long r = rank != NULL ? strtol(rank, NULL, 10) : 0;

        if (rank == NULL) {
            continue;
        }
        /* one copy, or rank 0 of an unknown number: running alone is right
         * (if there are more, the others fail and the launcher ends the job) */
        if (size != NULL ? n <= 1 : r == 0) {
            continue;
        }
        if (size != NULL) {
            snprintf(what, len,
                     "this process is rank %ld of %ld started by %s (%s=%s, %s=%s) but Shimmer "
                     "cannot join the others: each copy would run alone as a job of 1 PE; %s, "
                     "or use oshrun -n %ld on one host",
                     r, n, f->launcher, f->size_var, size, f->rank_var, rank, f->fix, n);
        } else {
            snprintf(what, len,
                     "this process is rank %ld started by %s (%s=%s) but Shimmer cannot join "
                     "the others: each copy would run alone as a job of 1 PE; %s",
                     r, f->launcher, f->rank_var, rank, f->fix);
        }
        return true;
    }
    return false;
}
