/*
 * heat_image -- heat conduction on a grid distributed by rows: explicit time
 * steps of the 5-point stencil, halo rows by put, one barrier_all a step;
 * optionally writes the final temperature as a PGM image.
 *
 * The grid has NY x NX interior points and a border held at 0.  The initial
 * field is the sum of two eigenvectors of the discrete Laplacian,
 * sin(p pi i/(NY+1)) sin(q pi j/(NX+1)) for (p,q) = (1,1) and (3,2), so the
 * answer is known exactly: each mode is multiplied in each step by
 * 1 + r (2 cos(p pi/(NY+1)) + 2 cos(q pi/(NX+1)) - 4).  The check compares
 * every point with it.
 *
 * Step k reads the neighbours' rows from halo buffer k mod 2 and puts this
 * PE's new edge rows into the neighbours' buffer (k+1) mod 2, then
 * barrier_all: a PE that runs ahead writes the buffer its neighbour is not
 * reading, so one barrier a step suffices.
 */
#include "app.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define R_COEF 0.2            /* dt/h^2: stable below 0.25 */

typedef struct {
    long nx, ny;
    double lam11, lam32;
} problem_t;

static double mode(long i, long j, long p, long q, const problem_t *pb)
{
    return sin((double)p * M_PI * (double)(i + 1) / (double)(pb->ny + 1)) *
           sin((double)q * M_PI * (double)(j + 1) / (double)(pb->nx + 1));
}

static double exact(long i, long j, long steps, const problem_t *pb)
{
    return pow(pb->lam11, (double)steps) * mode(i, j, 1, 1, pb) +
           0.5 * pow(pb->lam32, (double)steps) * mode(i, j, 3, 2, pb);
}

static double factor(long p, long q, const problem_t *pb)
{
    return 1.0 + R_COEF * (2.0 * cos((double)p * M_PI / (double)(pb->ny + 1)) +
                           2.0 * cos((double)q * M_PI / (double)(pb->nx + 1)) - 4.0);
}

/* One row of the explicit step; the border columns are 0. */
static void stencil_row(double *restrict o, const double *restrict n, const double *restrict c,
                        const double *restrict s, long nx)
{
    if (nx == 1) {
        o[0] = c[0] + R_COEF * (n[0] + s[0] - 4.0 * c[0]);
        return;
    }
    o[0] = c[0] + R_COEF * (n[0] + s[0] + c[1] - 4.0 * c[0]);
    for (long j = 1; j < nx - 1; j++)
        o[j] = c[j] + R_COEF * (n[j] + s[j] + c[j - 1] + c[j + 1] - 4.0 * c[j]);
    o[nx - 1] = c[nx - 1] + R_COEF * (n[nx - 1] + s[nx - 1] + c[nx - 2] - 4.0 * c[nx - 1]);
}

/* PE 0 fetches every PE's rows and writes a binary PGM, 0..255 over the
 * field's range. */
static void write_image(const app_t *a, const char *path, const double *grid, long nx, long ny)
{
    if (a->me != 0)
        return;
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s\n", a->name, path);
        return;
    }
    double *row = app_alloc(a, (size_t)nx * sizeof(double), "an image row");
    unsigned char *pix = app_alloc(a, (size_t)nx, "an image row");
    fprintf(f, "P5\n%ld %ld\n255\n", nx, ny);
    for (long i = 0; i < ny; i++) {
        int pe = app_block_owner(ny, a->npes, i);
        long li = i - app_block_lo(ny, a->npes, pe);
        shmem_getmem(row, &grid[li * nx], (size_t)nx * sizeof(double), pe);
        for (long j = 0; j < nx; j++) {
            double v = (row[j] + 0.5) / 2.0;      /* the field stays within [-0.5, 1.5] */
            pix[j] = (unsigned char)(v <= 0 ? 0 : v >= 1 ? 255 : (int)(v * 255.0 + 0.5));
        }
        fwrite(pix, 1, (size_t)nx, f);
    }
    fclose(f);
    free(row);
    free(pix);
}

int main(int argc, char **argv)
{
    app_t a = {
        .name = "heat_image",
        .title = "heat conduction, grid distributed by rows, halo rows by put, barrier_all per step",
        .rate_unit = "Mpoint/s",
        .size_help = "grid side (interior points per row and per column)",
        .iter_help = "time steps",
    };
    const char *image = NULL;
    /* -p FILE: the kernel's own option, taken out before the common ones */
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-p")) {
            image = argv[i + 1];
            memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 1) * sizeof(char *));
            argc -= 2;
            break;
        }
    app_init(&a, argc, argv);
    int me = a.me, npes = a.npes;
    problem_t pb;
    pb.nx = pb.ny = app_pick(&a, 64, 1024, 2048);
    long steps = app_pick_iters(&a, 50, 400, 400);
    if (pb.ny < npes)
        app_die(&a, "a grid of %ld rows cannot give each of %d PEs a row; raise -S", pb.ny, npes);
    pb.lam11 = factor(1, 1, &pb);
    pb.lam32 = factor(3, 2, &pb);
    long nx = pb.nx, ny = pb.ny;
    long lo = app_block_lo(ny, npes, me), rows = app_block_len(ny, npes, me);
    long max_rows = app_block_len(ny, npes, 0);
    int up = me - 1, down = me + 1 < npes ? me + 1 : -1;

    /* symmetric: the two grids (old and new, swapped each step; PE 0 reads
     * the last one for the image) and the halos */
    double *grid[2];
    for (int g = 0; g < 2; g++)
        grid[g] = app_malloc(&a, (size_t)(max_rows * nx) * sizeof(double), "a grid");
    double *halo_top = app_calloc(&a, 2 * (size_t)nx * sizeof(double), "the upper halo rows");
    double *halo_bot = app_calloc(&a, 2 * (size_t)nx * sizeof(double), "the lower halo rows");
    double *u = grid[0];
    app_say(&a, "class %s, %d PEs: %ld x %ld grid, %ld steps, r = %g",
            app_class_name(&a), npes, ny, nx, steps, R_COEF);

    for (long i = 0; i < rows; i++)
        for (long j = 0; j < nx; j++)
            u[i * nx + j] = exact(lo + i, j, 0, &pb);
    /* step 0's halos: the neighbours' initial edge rows */
    if (up >= 0)
        shmem_putmem(&halo_bot[0], &u[0], (size_t)nx * sizeof(double), up);
    if (down >= 0)
        shmem_putmem(&halo_top[0], &u[(rows - 1) * nx], (size_t)nx * sizeof(double), down);

    app_time_begin(&a);
    for (long k = 0; k < steps; k++) {
        const double *top = &halo_top[(k & 1) * nx], *bot = &halo_bot[(k & 1) * nx];
        double *un = grid[(k + 1) & 1];
        for (long i = 0; i < rows; i++)
            stencil_row(&un[i * nx], i > 0 ? &u[(i - 1) * nx] : top, &u[i * nx],
                        i + 1 < rows ? &u[(i + 1) * nx] : bot, nx);
        u = un;
        long nb = ((k + 1) & 1) * nx;
        if (up >= 0)
            shmem_putmem(&halo_bot[nb], &u[0], (size_t)nx * sizeof(double), up);
        if (down >= 0)
            shmem_putmem(&halo_top[nb], &u[(rows - 1) * nx], (size_t)nx * sizeof(double), down);
        shmem_barrier_all();
    }
    app_time_end(&a);

    double err = 0.0;
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < nx; j++) {
            double d = fabs(u[i * nx + j] - exact(lo + i, j, steps, &pb));
            err = d > err ? d : err;
        }
    err = app_max_double(err);
    if (image)
        write_image(&a, image, u, nx, ny);
    shmem_barrier_all();       /* PE 0 has read every grid */
    shmem_free(grid[0]);
    shmem_free(grid[1]);
    shmem_free(halo_top);
    shmem_free(halo_bot);

    const double tol = 1e-12 * (double)(steps + 10);
    return app_finish(&a, err <= tol, (double)(nx * ny) * (double)steps / a.elapsed / 1e6,
                      "max |u - exact| %.3g %s %.3g (two decaying eigenmodes, amplitude 1.5)", err,
                      err <= tol ? "<=" : "EXCEEDS", tol);
}
