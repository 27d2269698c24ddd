/* mpp/shmemx.h -- the deprecated header location (spec Annex F). */
#include <shmemx.h>
