/* mpp/shmem.h -- the deprecated header location (spec Annex F). */
#include <shmem.h>
