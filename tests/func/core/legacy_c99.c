/* legacy_c99.c -- an old-style program, compiled as C99 (no generics):
 * start_pes, shmalloc, _my_pe/_num_pes, the untyped shmem_swap and
 * shmem_wait, the deprecated AMO names and <mpp/shmem.h>. */
#include <stdio.h>

#include <mpp/shmem.h>

long flag;
long word;

int main(void)
{
    start_pes(0);
    int me = _my_pe(), n = _num_pes();
    long *counter = (long *)shmalloc(sizeof(long));
    *counter = 0;
    shmem_barrier_all();

    long old = shmem_swap(&word, me + 10, me); /* the pre-1.3 untyped swap */
    if (old != 0 || word != me + 10) {
        fprintf(stderr, "FAIL [pe %d] shmem_swap: old %ld word %ld\n", me, old, word);
        return 1;
    }
    shmem_long_finc(counter, 0);
    shmem_long_add(counter, 2, 0);
    shmem_barrier_all();
    if (me == 0 && shmem_long_fetch(counter, 0) != 3L * n) {
        fprintf(stderr, "FAIL counter %ld\n", *counter);
        return 1;
    }
    /* a ring of flags with the untyped wait */
    if (me == 0) {
        shmem_long_p(&flag, 1, (me + 1) % n);
    }
    if (n > 1 || me != 0) {
        shmem_wait(&flag, 0);
    }
    if (me != 0) {
        shmem_long_p(&flag, 1, (me + 1) % n);
    }
    shmem_barrier_all();
    shfree(counter);
    if (me == 0) {
        printf("PASS legacy C99 program on %d PE(s)\n", n);
    }
    return 0;
}
