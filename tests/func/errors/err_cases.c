/* err_cases.c -- programs that misuse the API in one way each (argv[1]);
 * test_errors.py runs them and checks the message and the exit status.
 * Modes that must not fail print "survived" and exit 0. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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
    } else if (strcmp(mode, "init_retry") == 0 && argc > 2) {
        /* the environment makes the first init fail part-way (argv[2] names
         * the variable); without it the second must give a working job */
        int provided, me, n;
        if (shmem_init_thread(SHMEM_THREAD_SINGLE, &provided) == 0) {
            printf("the first init succeeded\n");
            return 4;
        }
        unsetenv(argv[2]);
        if (shmem_init_thread(SHMEM_THREAD_SINGLE, &provided) != 0) {
            printf("the second init failed\n");
            return 5;
        }
        me = shmem_my_pe();
        n = shmem_n_pes();
        long *h = shmem_malloc(sizeof(long));
        *h = 0;
        g_word = 0;
        shmem_barrier_all();
        shmem_long_p(&g_word, me + 1, (me + 1) % n);
        shmem_long_atomic_add(h, me + 1, 0);
        shmem_barrier_all();
        long want = (long)n * (n + 1) / 2;
        if (g_word != (me + n - 1) % n + 1 || (me == 0 && *h != want)) {
            printf("PE %d: global %ld, heap %ld after the retry\n", me, g_word, *h);
            return 6;
        }
        shmem_free(h);
        shmem_finalize();
        printf("PE %d: init_retry survived\n", me);
        return 0;
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
    } else if (strcmp(mode, "null_source") == 0) {
        long *dest = shmem_malloc(sizeof(long));
        shmem_putmem(dest, NULL, sizeof(long), 0);
    } else if (strcmp(mode, "past_heap_end") == 0) {
        /* the length runs from a heap block past the end of the user heap
         * (into the library's internal heap on the target) */
        char *dest = shmem_malloc(64);
        static char src[4 << 20];
        shmem_putmem(dest, src, sizeof(src), (me + 1) % n);
    } else if (strcmp(mode, "past_data_end") == 0) {
        /* from a global, longer than the whole data segment (nothing is
         * copied: the check stops it first) */
        static char dest[64];
        shmem_getmem(dest, &g_word, (size_t)1 << 30, (me + 1) % n);
    } else if (strcmp(mode, "ctx_garbage") == 0) {
        shmem_ctx_long_p((shmem_ctx_t)(uintptr_t)0x1000, &g_word, 1, 0);
    } else if (strcmp(mode, "ctx_destroyed") == 0) {
        shmem_ctx_t ctx;
        if (shmem_ctx_create(0, &ctx) != 0) {
            return 3;
        }
        shmem_ctx_destroy(ctx);
        shmem_ctx_long_p(ctx, &g_word, 1, 0);
    } else if (strcmp(mode, "team_destroyed") == 0) {
        shmem_team_t team;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &team);
        shmem_team_destroy(team);
        printf("PE %d: team_my_pe %d\n", me, shmem_team_my_pe(team));
    } else if (strcmp(mode, "double_free") == 0) {
        long *p = shmem_malloc(sizeof(long));
        shmem_free(p);
        shmem_free(p);
    } else if (strcmp(mode, "coll_size_mismatch") == 0) {
        long *src = shmem_calloc(16, sizeof(long)), *dest = shmem_calloc(16, sizeof(long));
        shmem_long_broadcast(SHMEM_TEAM_WORLD, dest, src, me == 0 ? 8 : 16, 0);
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
    } else if (strcmp(mode, "crash") == 0 || strcmp(mode, "hangup") == 0) {
        if (me == n - 1) {
            raise(mode[0] == 'c' ? SIGSEGV : SIGHUP);
        }
        shmem_long_wait_until(&g_word, SHMEM_CMP_EQ, 99);
    } else if (strcmp(mode, "listen_addrs") == 0) {
        /* every TCP socket this PE listens on, by address: its socket
         * inodes (/proc/self/fd) matched with /proc/self/net/tcp{,6} */
        char line[512], path[64], target[64];
        unsigned long inodes[256];
        int n_inodes = 0, listening = 0;
        for (int fd = 0; fd < 1024 && n_inodes < 256; fd++) {
            snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
            ssize_t len = readlink(path, target, sizeof(target) - 1);
            if (len > 0) {
                target[len] = '\0';
                if (sscanf(target, "socket:[%lu]", &inodes[n_inodes]) == 1) {
                    n_inodes++;
                }
            }
        }
        const char *tables[] = {"/proc/self/net/tcp", "/proc/self/net/tcp6"};
        for (int t = 0; t < 2; t++) {
            FILE *f = fopen(tables[t], "r");
            while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
                char local[64];
                unsigned state;
                unsigned long inode;
                if (sscanf(line, " %*d: %63s %*s %x %*s %*s %*s %*s %*s %lu", local, &state,
                           &inode) != 3 || state != 0x0A) {
                    continue;
                }
                for (int i = 0; i < n_inodes; i++) {
                    if (inodes[i] == inode) {
                        printf("PE %d listens on %s\n", me, local);
                        listening++;
                    }
                }
            }
            if (f != NULL) {
                fclose(f);
            }
        }
        printf("PE %d: %d listening sockets\n", me, listening);
        shmem_barrier_all();
    } else if (strcmp(mode, "ucs_mapped") == 0) {
        /* is UCX's libucs in this process? (only jobs that span nodes,
         * or SHIMMER_REMOTE_PES, load it) */
        FILE *maps = fopen("/proc/self/maps", "r");
        char line[1024];
        int ucs = 0;
        while (maps != NULL && fgets(line, sizeof(line), maps) != NULL) {
            ucs |= strstr(line, "/libucs.so") != NULL;
        }
        if (maps != NULL) {
            fclose(maps);
        }
        printf("PE %d: %s\n", me, ucs ? "libucs loaded" : "no libucs");
        shmem_barrier_all();
    } else if (strncmp(mode, "leave_", 6) == 0) {
        /* leave_<how>_<where>: the last PE leaves main without
         * shmem_finalize (how: return0, exit0, return3, exit3, _exit0)
         * while the others wait in a barrier or a wait_until that nobody
         * will satisfy.  The job must end, promptly, with a message. */
        const char *how = mode + 6;
        write_pid();
        if (me == n - 1) {
            usleep(200000); /* the others are inside the library by now */
            if (strncmp(how, "return0", 7) == 0) {
                return 0;
            } else if (strncmp(how, "return3", 7) == 0) {
                return 3;
            } else if (strncmp(how, "exit0", 5) == 0) {
                exit(0);
            } else if (strncmp(how, "exit3", 5) == 0) {
                exit(3);
            } else {
                _exit(0);
            }
        }
        if (strstr(how, "barrier") != NULL) {
            shmem_barrier_all();
        } else {
            shmem_long_wait_until(&g_word, SHMEM_CMP_EQ, 99);
        }
    } else if (strcmp(mode, "no_finalize") == 0) {
        /* legacy programs (SHMEM before 1.2) never call shmem_finalize: the
         * PEs leave main at different times, the implicit finalize meets */
        if (me == 0) {
            usleep(300000);
        }
        shmem_barrier_all();
        printf("survived\n");
        return 0;
    } else if (strcmp(mode, "no_finalize_late") == 0) {
        /* PE 0 leaves main at once without shmem_finalize while the others
         * still compute (outside the library) and then finalize: legal
         * legacy behaviour, the implicit finalize waits for them */
        if (me != 0) {
            double x = 0;
            for (long i = 0; i < 300000000L; i++) {
                x += (double)i * 1e-9;
            }
            printf("computed %g\n", x);
            shmem_finalize();
        }
        printf("survived\n");
        return 0;
    } else if (strcmp(mode, "compute_forever") == 0) {
        /* PE 0 leaves main and waits in the exit hook's finalize for the
         * others, which compute forever outside the library: a legal state
         * the job stays in until the test signals oshrun */
        write_pid();
        if (me == 0) {
            return 0;
        }
        for (volatile unsigned long spin = 0;; spin++) {
        }
    } else if (strcmp(mode, "fork_child") == 0) {
        /* a child of fork() writes globals and the heap, then exits through
         * its exit handlers: the PE sees none of it and goes on */
        long *heap_word = shmem_malloc(sizeof(long));
        *heap_word = 5;
        g_word = 1;
        shmem_barrier_all();
        pid_t child = fork();
        if (child == 0) {
            g_word = 2;
            *heap_word = 6;
            exit(0);
        }
        int wstatus = 0;
        waitpid(child, &wstatus, 0);
        if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 || g_word != 1 || *heap_word != 5) {
            printf("PE %d: child status 0x%x, g_word %ld, heap word %ld\n", me, wstatus, g_word,
                   *heap_word);
            return 1;
        }
        shmem_barrier_all();
    } else if (strcmp(mode, "fill_shm_dir") == 0) {
        /* someone else takes the segment directory's space after init; the
         * heap's pages are then touched for the first time */
        size_t len = (size_t)15 << 20;
        char *buf = shmem_malloc(len);
        if (me == 0) {
            char path[512];
            snprintf(path, sizeof(path), "%s/filler", getenv("SHIMMER_SHM_DIR"));
            FILE *f = fopen(path, "w");
            static char chunk[1 << 16];
            while (f != NULL && fwrite(chunk, 1, sizeof(chunk), f) == sizeof(chunk)) {
            }
            if (f != NULL) {
                fclose(f);
            }
        }
        shmem_barrier_all();
        memset(buf, 1, len);
    } else if (strcmp(mode, "every_path") == 0) {
        /* correct use of each logged path: heap, put, get, atomic, barrier */
        long *word = shmem_malloc(sizeof(long)), value = 0;
        shmem_long_p(word, me, (me + 1) % n);
        shmem_barrier_all();
        shmem_long_get(&value, word, 1, (me + 1) % n);
        shmem_long_atomic_add(word, 1, (me + 1) % n);
        shmem_barrier_all();
        shmem_free(word);
    } else if (strcmp(mode, "ok") != 0) {
        fprintf(stderr, "err_cases: unknown mode %s\n", mode);
        return 2;
    }
    shmem_finalize();
    printf("survived\n");
    return 0;
}
