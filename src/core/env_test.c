/* env_test.c -- unit test of the environment table parser. */
#include <stdio.h>
#include <stdlib.h>

#include "core/env.h"
#include "util/expect.h"

int main(void)
{
    unsetenv("SHMEM_SYMMETRIC_SIZE");
    unsetenv("SMA_SYMMETRIC_SIZE");
    EXPECT(shr_env_load("test") == SHR_OK);
    EXPECT(shr_config.symmetric_size == 512u << 20); /* the default */
    EXPECT(shr_config.checks == -1);                 /* auto */

    setenv("SMA_SYMMETRIC_SIZE", "2m", 1);
    EXPECT(shr_env_load("test") == SHR_OK && shr_config.symmetric_size == 2u << 20);
    setenv("SHMEM_SYMMETRIC_SIZE", "3.1M", 1); /* the SHMEM_ name wins */
    EXPECT(shr_env_load("test") == SHR_OK && shr_config.symmetric_size == 3250586);

    setenv("SHMEM_DEBUG", "", 1); /* any value enables */
    EXPECT(shr_env_load("test") == SHR_OK && shr_config.debug == 1);
    setenv("SHMEM_DEBUG", "0", 1);
    EXPECT(shr_env_load("test") == SHR_OK && shr_config.debug == 0);

    setenv("SHIMMER_SHM_BACKING", "file", 1);
    EXPECT(shr_env_load("test") == SHR_OK && shr_config.shm_backing == SHR_SHM_BACKING_FILE);

    /* bad values are errors (the caller fails init) */
    setenv("SHMEM_SYMMETRIC_SIZE", "12x", 1);
    EXPECT(shr_env_load("test") == SHR_ERR_INVALID);
    setenv("SHMEM_SYMMETRIC_SIZE", "1m", 1);
    setenv("SHIMMER_SHM_BACKING", "tape", 1);
    EXPECT(shr_env_load("test") == SHR_ERR_INVALID);
    unsetenv("SHIMMER_SHM_BACKING");
    setenv("SHIMMER_CHECKS", "maybe", 1);
    EXPECT(shr_env_load("test") == SHR_ERR_INVALID);
    setenv("SHIMMER_CHECKS", "on", 1);
    EXPECT(shr_env_load("test") == SHR_OK && shr_config.checks == 1);
    setenv("SHIMMER_WAIT_SPIN", "ten", 1);
    EXPECT(shr_env_load("test") == SHR_ERR_INVALID);
    unsetenv("SHIMMER_WAIT_SPIN");

    /* an unknown SHIMMER_ name only warns */
    setenv("SHIMMER_SHM_BAKCING", "memfd", 1);
    EXPECT(shr_env_load("test") == SHR_OK);
    if (failures == 0) {
        printf("PASS env\n");
    }
    return failures ? 1 : 0;
}
