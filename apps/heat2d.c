/*
 * heat2d -- steady-state heat (Laplace's equation) by Jacobi iteration on a
 * 2D block decomposition: halo rows and columns by put in both dimensions,
 * convergence by a max-reduction every iteration.
 *
 * The PEs form a px x py grid (px*py = P, as square as P allows); each
 * owns a block of the NY x NX interior.  The border holds u = x*y (x, y in
 * [0, 1]): bilinear, so the 5-point stencil reproduces it exactly and the
 * converged interior must equal x*y.  Iteration stops when the largest
 * change of a point falls below `tol`; the distance to the exact answer is
 * then bounded by about tol / (1 - rho) with rho = (cos(pi/(NX+1)) +
 * cos(pi/(NY+1))) / 2 (Jacobi's spectral radius); the check allows twice
 * that.
 *
 * Iteration k reads halo buffer k mod 2 and puts this PE's new edges into
 * the neighbours' buffer (k+1) mod 2 (rows directly, columns packed), then
 * shmem_quiet; the max-reduction that follows cannot end on any PE before
 * every PE has entered it, i.e. before every halo of the iteration has
 * landed.  So the reduction is also the step's synchronisation.
 */
#include "app.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NORTH, SOUTH, WEST, EAST };

typedef struct {
    long nx, ny;             /* interior points */
    int px, py;              /* PE grid: px columns, py rows */
    int cx, cy;              /* this PE's place */
    long x0, y0, w, h;       /* this PE's block: first column/row, width, height */
    int nb[4];               /* neighbour PEs, -1 at the border */
} decomp_t;

static double boundary(long i, long j, const decomp_t *d)
{
    return ((double)i / (double)(d->ny + 1)) * ((double)j / (double)(d->nx + 1));
}

static void decompose(decomp_t *d, int me, int npes)
{
    int px = 1;
    for (int f = 1; (long)f * f <= npes; f++)
        if (npes % f == 0)
            px = f;
    d->px = px;
    d->py = npes / px;
    if (d->nx < d->ny && d->px < d->py) {   /* more PEs along the longer side */
        int t = d->px;
        d->px = d->py;
        d->py = t;
    }
    d->cx = me % d->px;
    d->cy = me / d->px;
    d->x0 = app_block_lo(d->nx, d->px, d->cx);
    d->w = app_block_len(d->nx, d->px, d->cx);
    d->y0 = app_block_lo(d->ny, d->py, d->cy);
    d->h = app_block_len(d->ny, d->py, d->cy);
    d->nb[NORTH] = d->cy > 0 ? me - d->px : -1;
    d->nb[SOUTH] = d->cy + 1 < d->py ? me + d->px : -1;
    d->nb[WEST] = d->cx > 0 ? me - 1 : -1;
    d->nb[EAST] = d->cx + 1 < d->px ? me + 1 : -1;
}

int main(int argc, char **argv)
{
    app_t a = {
        .name = "heat2d",
        .title = "steady-state heat by Jacobi, 2D blocks, halos both ways by put, max-reduction per iteration",
        .rate_unit = "Mpoint/s",
        .size_help = "grid side (interior points per row and per column)",
        .iter_help = "most iterations before giving up",
    };
    app_init(&a, argc, argv);
    int me = a.me, npes = a.npes;
    decomp_t d;
    d.nx = d.ny = app_pick(&a, 24, 128, 192);
    long max_iter = app_pick_iters(&a, 20000, 400000, 1000000);
    const double tol = a.cls == APP_TINY && !a.size ? 1e-8 : 1e-9;
    decompose(&d, me, npes);
    if (d.nx < d.px || d.ny < d.py)
        app_die(&a, "a %ld x %ld grid cannot give each PE of a %d x %d PE grid a point; raise -S",
                d.ny, d.nx, d.py, d.px);
    long w = d.w, h = d.h, W = w + 2;        /* local array: h+2 rows of w+2, with a frame */
    long max_w = app_block_len(d.nx, d.px, 0), max_h = app_block_len(d.ny, d.py, 0);

    double *u = app_alloc(&a, (size_t)((h + 2) * W) * sizeof(double), "the block");
    double *un = app_alloc(&a, (size_t)((h + 2) * W) * sizeof(double), "the new block");
    double *pack = app_alloc(&a, (size_t)max_h * sizeof(double), "a packed column");
    /* halos [parity][side][point], symmetric; sized for the largest block */
    long side = max_w > max_h ? max_w : max_h;
    double *halo = app_calloc(&a, 2 * 4 * (size_t)side * sizeof(double), "the halos");
#define HALO(_par, _side) (&halo[((_par) * 4 + (_side)) * side])

    app_say(&a, "class %s, %d PEs as %d x %d: %ld x %ld grid, tol %g, at most %ld iterations",
            app_class_name(&a), npes, d.py, d.px, d.ny, d.nx, tol, max_iter);

    /* interior 0, frame = the border values where the block meets the border */
    for (long i = 0; i < h + 2; i++)
        for (long j = 0; j < W; j++) {
            long gi = d.y0 + i, gj = d.x0 + j;      /* global with the border at 0 and n+1 */
            int border = gi == 0 || gi == d.ny + 1 || gj == 0 || gj == d.nx + 1;
            u[i * W + j] = un[i * W + j] = border ? boundary(gi, gj, &d) : 0.0;
        }

    long iters = 0;
    double change = 0.0;
    app_time_begin(&a);
    for (long k = 0; k < max_iter; k++) {
        /* this iteration's halos: from buffer k mod 2 (iteration 0: zeros,
         * the interior's start value) into the frame */
        int par = (int)(k & 1), nxt = par ^ 1;
        if (d.nb[NORTH] >= 0)
            memcpy(&u[1], HALO(par, NORTH), (size_t)w * sizeof(double));
        if (d.nb[SOUTH] >= 0)
            memcpy(&u[(h + 1) * W + 1], HALO(par, SOUTH), (size_t)w * sizeof(double));
        if (d.nb[WEST] >= 0)
            for (long i = 0; i < h; i++)
                u[(i + 1) * W] = HALO(par, WEST)[i];
        if (d.nb[EAST] >= 0)
            for (long i = 0; i < h; i++)
                u[(i + 1) * W + w + 1] = HALO(par, EAST)[i];
        double dmax = 0.0;
        for (long i = 1; i <= h; i++) {
            const double *n = &u[(i - 1) * W], *c = &u[i * W], *s = &u[(i + 1) * W];
            double *o = &un[i * W];
            for (long j = 1; j <= w; j++) {
                double v = 0.25 * (n[j] + s[j] + c[j - 1] + c[j + 1]);
                double dv = fabs(v - c[j]);
                dmax = dv > dmax ? dv : dmax;
                o[j] = v;
            }
        }
        double *t = u;
        u = un;
        un = t;
        /* my new edges into the neighbours' next halos: my north row is
         * their south halo, and so on */
        if (d.nb[NORTH] >= 0)
            shmem_putmem(HALO(nxt, SOUTH), &u[W + 1], (size_t)w * sizeof(double), d.nb[NORTH]);
        if (d.nb[SOUTH] >= 0)
            shmem_putmem(HALO(nxt, NORTH), &u[h * W + 1], (size_t)w * sizeof(double), d.nb[SOUTH]);
        if (d.nb[WEST] >= 0) {
            for (long i = 0; i < h; i++)
                pack[i] = u[(i + 1) * W + 1];
            shmem_putmem(HALO(nxt, EAST), pack, (size_t)h * sizeof(double), d.nb[WEST]);
        }
        if (d.nb[EAST] >= 0) {
            for (long i = 0; i < h; i++)
                pack[i] = u[(i + 1) * W + w];
            shmem_putmem(HALO(nxt, WEST), pack, (size_t)h * sizeof(double), d.nb[EAST]);
        }
        shmem_quiet();
        change = app_max_double(dmax);
        iters = k + 1;
        if (change < tol)
            break;
    }
    app_time_end(&a);

    double err = 0.0;
    for (long i = 1; i <= h; i++)
        for (long j = 1; j <= w; j++) {
            double e = fabs(u[i * W + j] - boundary(d.y0 + i, d.x0 + j, &d));
            err = e > err ? e : err;
        }
    err = app_max_double(err);
    shmem_free(halo);
    free(u);
    free(un);
    free(pack);

    double rho = 0.5 * (cos(M_PI / (double)(d.nx + 1)) + cos(M_PI / (double)(d.ny + 1)));
    double bound = 2.0 * tol / (1.0 - rho) + 1e-12;
    int converged = change < tol;
    app_metric(&a, "iterations", "iter", (double)iters);
    return app_finish(&a, converged && err <= bound,
                      (double)(d.nx * d.ny) * (double)iters / a.elapsed / 1e6,
                      "%s after %ld iterations (last change %.3g, tol %g); max |u - x*y| %.3g %s %.3g",
                      converged ? "converged" : "NOT converged", iters, change, tol, err,
                      err <= bound ? "<=" : "EXCEEDS", bound);
}
