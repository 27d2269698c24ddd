/*
 * api.h -- included first by every file of src/api: the public prototypes
 * with default visibility (the rest of the library is hidden; the generated
 * version script decides what is exported) and the profiling alias.
 */
#ifndef SHR_API_H
#define SHR_API_H

#pragma GCC visibility push(default)
#include <shmem.h>
#include <pshmem.h>
#include <shmemx.h>
#pragma GCC visibility pop

/* Every routine is defined as pshmem_<name>; shmem_<name> is a weak alias,
 * so a profiling tool can define shmem_<name> and call pshmem_<name>. */
#define SHR_API_ALIAS(_name) \
    extern __typeof__(p##_name) _name \
        __attribute__((weak, alias("p" #_name), visibility("default")));

#endif
