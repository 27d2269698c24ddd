/* init.c -- library setup, exit and query routines (spec 9.1, 9.2). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/api_inline.h"
#include "core/env.h"
#include "util/log.h"

static void init_or_die(const char *fn, int requested, int *provided)
{
    if (shr_init(requested, provided, fn) != SHR_OK) {
        const char *why = shr_log_last_error();
        shr_fatal(1, why[0] != '\0' ? why : "initialisation failed");
    }
}

void pshmem_init(void)
{
    int provided;
    init_or_die("shmem_init", SHMEM_THREAD_SINGLE, &provided);
}
SHR_API_ALIAS(shmem_init)

int pshmem_init_thread(int requested, int *provided)
{
    int level;

    if (shr_init(requested, &level, "shmem_init_thread") != SHR_OK) {
        return 1;
    }
    if (provided != NULL) {
        *provided = level;
    }
    return 0;
}
SHR_API_ALIAS(shmem_init_thread)

void pstart_pes(int npes)
{
    int provided;
    (void)npes; /* ignored, as the spec says; repeated calls are no-ops */
    if (!shr_g.initialized) {
        init_or_die("start_pes", SHMEM_THREAD_SINGLE, &provided);
    }
}
SHR_API_ALIAS(start_pes)

void pshmem_finalize(void)
{
    if (shr_g.finalized && !shr_g.initialized && !shr_g.checks) {
        /* the 1.5 spec makes this erroneous, but older programs (the
         * openshmem-examples' finalize.c) call it twice and other
         * libraries let them: harmless, so warn and carry on (with
         * SHMEM_DEBUG=1 it is the usual error) */
        shr_warn_once("shmem_finalize: called again after the last shmem_finalize; ignored "
                      "(call it once per shmem_init)");
        return;
    }
    if (SHR_CHECKS_ON()) {
        shr_check_init_thread("shmem_finalize"); /* initialized, and by this thread */
    }
    shr_finalize("shmem_finalize");
}
SHR_API_ALIAS(shmem_finalize)

void pshmem_query_initialized(int *initialized)
{
    *initialized = shr_g.initialized;
}
SHR_API_ALIAS(shmem_query_initialized)

void pshmem_query_thread(int *provided)
{
    *provided = shr_g.thread_level;
}
SHR_API_ALIAS(shmem_query_thread)

void pshmem_global_exit(int status)
{
    shr_global_exit(status);
}
SHR_API_ALIAS(shmem_global_exit)

int pshmem_my_pe(void)
{
    if (SHR_CHECKS_ON()) {
        shr_check_init("shmem_my_pe");
    }
    return shr_g.my_pe;
}
SHR_API_ALIAS(shmem_my_pe)

int pshmem_n_pes(void)
{
    if (SHR_CHECKS_ON()) {
        shr_check_init("shmem_n_pes");
    }
    return shr_g.n_pes;
}
SHR_API_ALIAS(shmem_n_pes)

/* _my_pe and _num_pes are the pre-1.2 spellings. */
int p_my_pe(void)
{
    return pshmem_my_pe();
}
SHR_API_ALIAS(_my_pe)

int p_num_pes(void)
{
    return pshmem_n_pes();
}
SHR_API_ALIAS(_num_pes)

int pshmem_pe_accessible(int pe)
{
    if (SHR_CHECKS_ON()) {
        shr_check_init("shmem_pe_accessible");
    }
    return pe >= 0 && pe < shr_g.n_pes;
}
SHR_API_ALIAS(shmem_pe_accessible)

int pshmem_addr_accessible(const void *addr, int pe)
{
    if (SHR_CHECKS_ON()) {
        shr_check_init("shmem_addr_accessible");
    }
    return pe >= 0 && pe < shr_g.n_pes && shr_addr_is_user_symmetric(addr, 1);
}
SHR_API_ALIAS(shmem_addr_accessible)

void *pshmem_ptr(const void *dest, int pe)
{
    if (SHR_CHECKS_ON()) {
        shr_check_init("shmem_ptr");
    }
    if (pe < 0 || pe >= shr_g.n_pes || !shr_addr_is_user_symmetric(dest, 1)) {
        return NULL;
    }
    return shr_ptr(dest, pe);
}
SHR_API_ALIAS(shmem_ptr)

void *pshmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    if (SHR_CHECKS_ON()) {
        shr_check_init("shmem_team_ptr");
    }
    if (team == SHMEM_TEAM_INVALID) {
        return NULL;
    }
    SHR_API_CHECK(shr_check_team_handle("shmem_team_ptr", team));
    if (pe < 0 || pe >= team->n_pes) {
        return NULL;
    }
    return pshmem_ptr(dest, shr_team_world_pe(team, pe));
}
SHR_API_ALIAS(shmem_team_ptr)

void pshmem_info_get_version(int *major, int *minor)
{
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}
SHR_API_ALIAS(shmem_info_get_version)

void pshmem_info_get_name(char *name)
{
    /* the spec's buffer is SHMEM_MAX_NAME_LEN bytes; the string fits with NUL */
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}
SHR_API_ALIAS(shmem_info_get_name)

/* Tools interpose shmem_pcontrol; the library's own profile
 * (SHIMMER_PROFILE) pauses at level 0 and resumes at 1 and up. */
void pshmem_pcontrol(int level, ...)
{
    shr_prof_pcontrol(level);
}
SHR_API_ALIAS(shmem_pcontrol)
