/* handles.c -- the registry of team and context structs (handles.h), a
 * glibc binary tree (tsearch) per kind under one mutex. */
#include "core/handles.h"

#include <pthread.h>
#include <search.h>
#include <stdint.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *roots[SHR_HANDLE_KINDS];

static int by_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y ? -1 : x > y;
}

bool shr_handle_register(shr_handle_kind_t kind, const void *p)
{
    pthread_mutex_lock(&lock);
    bool ok = tsearch(p, &roots[kind], by_address) != NULL;
    pthread_mutex_unlock(&lock);
    return ok;
}

bool shr_handle_known(shr_handle_kind_t kind, const void *p)
{
    pthread_mutex_lock(&lock);
    bool known = tfind(p, &roots[kind], by_address) != NULL;
    pthread_mutex_unlock(&lock);
    return known;
}
