/*
 * handles.h -- every team and context struct this process ever handed out.
 *
 * A handle is a pointer to its struct (team.h), so a check that reads
 * `magic` through a garbage handle would fault itself.  The checks first
 * ask this registry whether the pointer is one of ours; only then do they
 * read it (a destroyed struct stays registered and readable: structs are
 * recycled, never freed).  Lookups take a mutex and a tree search: for the
 * debug checks and team/context management, not for the fast path.
 */
#ifndef SHR_HANDLES_H
#define SHR_HANDLES_H

#include <stdbool.h>

typedef enum { SHR_HANDLE_TEAM, SHR_HANDLE_CTX, SHR_HANDLE_KINDS } shr_handle_kind_t;

/* Records `p` (a struct that will never be freed) as a handle of `kind`.
 * Idempotent.  False only when out of memory (the handle then reads as
 * unknown to the checks). */
bool shr_handle_register(shr_handle_kind_t kind, const void *p);

/* Was `p` ever registered as a `kind` handle?  Thread-safe. */
bool shr_handle_known(shr_handle_kind_t kind, const void *p);

#endif
