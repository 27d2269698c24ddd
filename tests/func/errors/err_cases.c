/* err_cases.c -- programs that misuse the API in one way each (argv[1]);
 * test_errors.py runs them and checks the message and the exit status.
 * Modes that must not fail print "survived" and exit 0. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shmem.h>

long g_word;

static void write_pid(void)
{
    const char *dir = getenv("ERR_PID_DIR");
    if (dir != NULL) {
        char path[512];
        snprintf(path, sizeof(path), "%s/pe%d.pid", dir, shmem_my_pe());
        FILE *f = fopen(path, "w");
        if (f != NULL) {
            fprintf(f, "%d\n", (int)getpid());
            fclose(f);
        }
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    long stack_word = 0;

    if (strcmp(mode, "before_init") == 0) {
        shmem_long_p(&g_word, 1, 0);
    } else if (strcmp(mode, "init_thread_bad_env") == 0) {
        int provided;
        if (shmem_init_thread(SHMEM_THREAD_SINGLE, &provided) != 0) {
            printf("init_thread returned nonzero\n");
            return 3;
        }
        return 0;
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (strcmp(mode, "pe_range") == 0) {
        shmem_long_p(&g_word, 1, n);
    } else if (strcmp(mode, "pe_negative") == 0) {
        shmem_long_atomic_add(&g_word, 1, -1);
    } else if (strcmp(mode, "nonsym") == 0) {
        shmem_long_p(&stack_word, 1, 0);
    } else if (strcmp(mode, "nonsym_get") == 0) {
        long v;
        shmem_getmem(&v, &stack_word, sizeof(v), 0);
    } else if (strcmp(mode, "heap_exhausted") == 0) {
        void *p = shmem_malloc(64u << 20);
        printf("malloc returned %s\n", p == NULL ? "NULL" : "memory");
        shmem_finalize();
        return p == NULL ? 0 : 1;
    } else if (strcmp(mode, "malloc_mismatch") == 0) {
        (void)shmem_malloc(me == 0 ? 100 : 200);
    } else if (strcmp(mode, "bad_cmp") == 0) {
        shmem_long_wait_until(&g_word, 42, 0);
    } else if (strcmp(mode, "misaligned_amo") == 0) {
        static char bytes[16];
        shmem_long_atomic_add((long *)(bytes + 1), 1, 0);
    } else if (strcmp(mode, "after_finalize") == 0) {
        shmem_finalize();
        shmem_long_p(&g_word, 1, 0);
    } else if (strcmp(mode, "finalize_twice") == 0) {
        shmem_finalize();
        shmem_finalize(); /* older programs do; ignored with a warning */
        printf("after the second finalize\n");
    } else if (strcmp(mode, "free_foreign") == 0) {
        shmem_free(&g_word);
    } else if (strcmp(mode, "global_exit") == 0) {
        /* PE 1 leaves with argv[2] (7) while everyone else sits in a barrier */
        if (me == 1 % n) {
            sleep(1);
            shmem_global_exit(argc > 2 ? atoi(argv[2]) : 7);
        }
        shmem_barrier_all();
        shmem_long_wait_until(&g_word, SHMEM_CMP_EQ, 99);
    } else if (strcmp(mode, "hang") == 0) {
        /* every PE waits forever: the test kills someone */
        write_pid();
        shmem_barrier_all();
        shmem_long_wait_until(&g_word, SHMEM_CMP_EQ, 99);
    } else if (strcmp(mode, "crash") == 0) {
        if (me == n - 1) {
            raise(SIGSEGV);
        }
        shmem_long_wait_until(&g_word, SHMEM_CMP_EQ, 99);
    } else if (strcmp(mode, "ok") != 0) {
        fprintf(stderr, "err_cases: unknown mode %s\n", mode);
        return 2;
    }
    shmem_finalize();
    printf("survived\n");
    return 0;
}
