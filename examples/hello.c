/* hello.c -- the smallest OpenSHMEM program: every PE says who it is.
 *   oshcc examples/hello.c -o hello && oshrun -n 4 ./hello */
#include <stdio.h>

#include <shmem.h>

int main(void)
{
    shmem_init();
    printf("Hello from PE %d of %d\n", shmem_my_pe(), shmem_n_pes());
    shmem_finalize();
    return 0;
}
