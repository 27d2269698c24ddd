/* start_pes.c -- the pre-1.2 start: start_pes(), shmalloc, _my_pe and no
 * shmem_finalize (the library finalizes at exit). */
#include <stdio.h>

#include <shmem.h>

int main(void)
{
    start_pes(0);
    start_pes(0); /* repeated calls are no-ops */
    long *x = shmalloc(sizeof(long));
    *x = _my_pe();
    shmem_barrier_all();
    long got = shmem_long_g(x, (_my_pe() + 1) % _num_pes());
    if (got != (_my_pe() + 1) % _num_pes()) {
        fprintf(stderr, "FAIL start_pes: got %ld\n", got);
        return 1;
    }
    shmem_barrier_all();
    if (_my_pe() == 0) {
        printf("PASS start_pes without finalize on %d PE(s)\n", _num_pes());
    }
    return 0;
}
