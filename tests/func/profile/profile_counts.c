/*
 * profile_counts.c -- SHIMMER_PROFILE (docs/profile.md) on a program whose
 * counts are known: PE i puts i+1 times (16 bytes each) plus one shmem_p,
 * gets 3 times, adds atomically twice, and so on, and does one of each on a
 * request handle (shmemx.h: counted in put, get and amo; its wait in req); the calls made while
 * shmem_pcontrol(0) has paused the profile must not count.  After finalize
 * PE 0 reads the table (SHIMMER_PROFILE_FILE) and checks every count and
 * byte total, the min / mean / max over the PEs and, with `pe`, each PE's
 * rows.  `off`: no table at all.
 *
 * The program also plays a profiling tool: it defines shmem_long_p and
 * shmem_pcontrol itself and forwards to the pshmem_ names, so the
 * profiling interface is checked in the same run.
 *
 * Usage: test_profile_counts on|pe|off
 */
#include <math.h>
#include <stdbool.h>
#include <unistd.h>

#include <pshmem.h>
#include <shmemx.h>

#include "harness.h"

static long dst[64], src[64], counter, reduced[4];
static int tool_p_calls, tool_last_level = -100;

/* the "tool" */
void shmem_long_p(long *dest, long value, int pe)
{
    tool_p_calls++;
    pshmem_long_p(dest, value, pe);
}

void shmem_pcontrol(int level, ...)
{
    tool_last_level = level;
    pshmem_pcontrol(level);
}

#define EXPECT(_cond, ...) do { \
        if (!(_cond)) { \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #_cond); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
            exit(1); \
        } \
    } while (0)

typedef struct {
    double calls[3], time[3], pct, bytes[3];
    int seen;
} row_t;

typedef struct {
    unsigned long long calls, bytes;
    double time;
} pe_row_t;

/* The aggregated row of `family`, and with per_pe each PE's. */
static void read_table(const char *path, const char *family, int n, row_t *row, pe_row_t *pe_rows,
                       int *per_pe_section)
{
    FILE *in = fopen(path, "r");
    char line[512], name[32];
    int section = 0;

    EXPECT(in != NULL, "no profile in %s", path);
    memset(row, 0, sizeof(*row));
    *per_pe_section = 0;
    while (fgets(line, sizeof(line), in) != NULL) {
        if (strncmp(line, "shimmer profile per PE:", 23) == 0) {
            section = 1;
            *per_pe_section = 1;
            continue;
        }
        if (section == 0) {
            row_t r;
            if (sscanf(line, "%31s %lf %lf %lf %lf %lf %lf %lf%% %lf %lf %lf", name, &r.calls[0],
                       &r.calls[1], &r.calls[2], &r.time[0], &r.time[1], &r.time[2], &r.pct,
                       &r.bytes[0], &r.bytes[1], &r.bytes[2]) == 11 &&
                strcmp(name, family) == 0) {
                *row = r;
                row->seen = 1;
            }
        } else {
            int pe;
            pe_row_t r;
            if (sscanf(line, "%d %31s %llu %lf %llu", &pe, name, &r.calls, &r.time, &r.bytes) == 5 &&
                strcmp(name, family) == 0 && pe >= 0 && pe < n) {
                pe_rows[pe] = r;
            }
        }
    }
    fclose(in);
}

/* min / mean / max and per-PE values of one family against calls(pe) and bytes(pe). */
static void expect_family(const char *path, const char *family, int n, bool per_pe,
                          long (*calls)(int pe, int n), long (*bytes)(int pe, int n))
{
    row_t row;
    pe_row_t pe_rows[64];
    int section;
    double cmin = 1e18, cmax = 0, cmean = 0, bmin = 1e18, bmax = 0, bmean = 0;

    memset(pe_rows, 0, sizeof(pe_rows));
    read_table(path, family, n, &row, pe_rows, &section);
    EXPECT(row.seen, "no row %s", family);
    for (int pe = 0; pe < n; pe++) {
        double c = (double)calls(pe, n), b = (double)bytes(pe, n);
        cmin = c < cmin ? c : cmin;
        cmax = c > cmax ? c : cmax;
        cmean += c / n;
        bmin = b < bmin ? b : bmin;
        bmax = b > bmax ? b : bmax;
        bmean += b / n;
        if (per_pe && pe < 64) {
            EXPECT(pe_rows[pe].calls == (unsigned long long)c, "%s pe %d calls %llu, want %.0f",
                   family, pe, pe_rows[pe].calls, c);
            EXPECT(pe_rows[pe].bytes == (unsigned long long)b, "%s pe %d bytes %llu, want %.0f",
                   family, pe, pe_rows[pe].bytes, b);
        }
    }
    EXPECT(section == per_pe, "per-PE section %d, want %d", section, per_pe);
    EXPECT(row.calls[0] == cmin && row.calls[2] == cmax && fabs(row.calls[1] - cmean) < 0.051,
           "%s calls %.1f %.1f %.1f, want %.1f %.1f %.1f", family, row.calls[0], row.calls[1],
           row.calls[2], cmin, cmean, cmax);
    EXPECT(row.bytes[0] == bmin && row.bytes[2] == bmax && fabs(row.bytes[1] - bmean) < 0.051,
           "%s bytes %.1f %.1f %.1f, want %.1f %.1f %.1f", family, row.bytes[0], row.bytes[1],
           row.bytes[2], bmin, bmean, bmax);
    EXPECT(row.time[0] >= 0 && row.time[0] <= row.time[1] + 1e-6 &&
           row.time[1] <= row.time[2] + 1e-6, "%s time %f %f %f not ordered", family,
           row.time[0], row.time[1], row.time[2]);
}

/* The header's wall and recorded times: the recorded time leaves out the
 * paused stretch (PAUSED_US asleep at least), nothing else. */
#define PAUSED_US 50000
static void expect_recorded(const char *path)
{
    FILE *in = fopen(path, "r");
    double wall = -1, recorded = -1;
    int n = 0;

    EXPECT(in != NULL, "no profile in %s", path);
    EXPECT(fscanf(in, "shimmer profile: %d PEs, %lf s from init to finalize, %lf s recorded", &n,
                  &wall, &recorded) == 3, "the first line names no wall and recorded time");
    fclose(in);
    EXPECT(recorded > 0 && recorded <= wall - PAUSED_US / 1e6,
           "recorded %.6f s of a %.6f s run with %.3f s paused", recorded, wall, PAUSED_US / 1e6);
}

static long put_calls(int pe, int n) { (void)n; return pe + 3; }
static long put_bytes(int pe, int n) { (void)n; return 16L * (pe + 1) + 8 + 24; }
static long get_calls(int pe, int n) { (void)pe; (void)n; return 4; }
static long get_bytes(int pe, int n) { (void)pe; (void)n; return 24 + 16; }
static long amo_calls(int pe, int n) { (void)pe; (void)n; return 3; }
static long amo_bytes(int pe, int n) { (void)pe; (void)n; return 24; }
static long one(int pe, int n) { (void)pe; (void)n; return 1; }
static long none(int pe, int n) { (void)pe; (void)n; return 0; }
static long barrier_calls(int pe, int n) { (void)pe; (void)n; return 3; }
static long bcast_bytes(int pe, int n) { (void)pe; (void)n; return 32; }
static long reduce_bytes(int pe, int n) { (void)pe; (void)n; return 24; }

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "on";
    const char *tmp = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    char path[512];

    /* one launcher per job (oshrun), so its pid names the job's file */
    snprintf(path, sizeof(path), "%s/shimmer-profile-test-%d.txt", tmp, (int)getppid());
    unlink(path);
    setenv("SHIMMER_PROFILE", strcmp(mode, "off") == 0 ? "0" : strcmp(mode, "pe") == 0 ? "pe" : "1",
           1);
    setenv("SHIMMER_PROFILE_FILE", path, 1);

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    for (int i = 0; i < 64; i++) {
        src[i] = me * 100 + i;
    }
    shmem_barrier_all();                               /* barrier 1 */
    for (int i = 0; i <= me; i++) {
        shmem_long_put(dst, src, 2, right);            /* put: me+1 calls, 16 bytes */
    }
    shmem_long_p(&dst[10], 5, right);                  /* put: 1 call, 8 bytes (via the tool) */
    for (int i = 0; i < 3; i++) {
        (void)shmem_long_g(&src[i], right);            /* get: 3 calls, 8 bytes */
    }
    shmem_long_atomic_fetch_add(&counter, 1, 0);       /* amo: 2 calls, 8 bytes */
    shmem_long_atomic_add(&counter, 1, 0);
    shmemx_req_t req = SHMEMX_REQ_NULL;
    long fetched;
    shmemx_long_put_req(&dst[50], src, 3, right, &req);      /* put: 1 call, 24 bytes */
    shmemx_long_get_req(&dst[54], &src[4], 2, right, &req);  /* get: 1 call, 16 bytes */
    shmemx_long_atomic_fetch_add_req(&fetched, &counter, 1, 0, &req); /* amo: 1, 8 bytes */
    shmemx_req_wait(&req);                             /* req: 1 */
    shmem_quiet();                                     /* quiet: 1 */
    shmem_barrier_all();                               /* barrier 2 */
    shmem_long_broadcast(SHMEM_TEAM_WORLD, &dst[20], src, 4, 0); /* 32 bytes */
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, reduced, src, 3);    /* 24 bytes */

    shmem_pcontrol(0);                                 /* paused: nothing below counts */
    usleep(PAUSED_US);                                 /* nor in the recorded time */
    for (int i = 0; i < 10; i++) {
        shmem_long_put(&dst[30], src, 4, right);
        shmem_long_p(&dst[40], 1, right);
        shmemx_long_put_req(&dst[30], src, 4, right, &req);
    }
    shmemx_req_wait(&req);
    shmem_barrier_all();
    shmem_pcontrol(1);

    shmem_barrier_all();                               /* barrier 3 */
    CHECK_EQ(reduced[0], 100L * n * (n - 1) / 2);
    CHECK_EQ(counter, me == 0 ? 3L * n : 0);
    CHECK_EQ(tool_p_calls, 11);                        /* the tool saw every call */
    CHECK_EQ(tool_last_level, 1);
    shmem_finalize();
    if (me != 0) {
        return 0;
    }

    if (strcmp(mode, "off") == 0) {
        EXPECT(access(path, F_OK) != 0, "SHIMMER_PROFILE=0 wrote %s", path);
        printf("PASS profile_counts off on %d PE(s)\n", n);
        return 0;
    }
    bool per_pe = strcmp(mode, "pe") == 0;
    expect_recorded(path);
    expect_family(path, "put", n, per_pe, put_calls, put_bytes);
    expect_family(path, "get", n, per_pe, get_calls, get_bytes);
    expect_family(path, "amo", n, per_pe, amo_calls, amo_bytes);
    expect_family(path, "quiet", n, per_pe, one, none);
    expect_family(path, "req", n, per_pe, one, none);
    expect_family(path, "barrier", n, per_pe, barrier_calls, none);
    expect_family(path, "broadcast", n, per_pe, one, bcast_bytes);
    expect_family(path, "reduce", n, per_pe, one, reduce_bytes);
    expect_family(path, "init", n, per_pe, one, none);
    expect_family(path, "finalize", n, per_pe, one, none);
    /* families never called have no row */
    row_t row;
    pe_row_t pe_rows[64];
    int section;
    read_table(path, "fcollect", n, &row, pe_rows, &section);
    EXPECT(!row.seen, "a row for fcollect, which was never called");
    unlink(path);
    printf("PASS profile_counts %s on %d PE(s)\n", mode, n);
    return 0;
}
