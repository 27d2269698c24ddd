/*
 * ssca2 -- SSCA#2 (v2.2) graph analysis on a scalable synthetic graph:
 * an R-MAT generator and the benchmark's four kernels, the graph spread
 * over the PEs by vertex.
 *
 * Graph: N = 2^SCALE vertices, M = 8N directed edges (a multigraph), each
 * edge drawn by R-MAT (a, b, c, d = 0.55, 0.10, 0.10, 0.25: SCALE times a
 * quadrant of the adjacency matrix), vertex labels scrambled by a fixed
 * bijection, integer weights uniform in [1, 2^SCALE].  Edge e is a function
 * of e alone, so the graph does not depend on the PE count.  PE p owns a
 * block of vertices and generates a block of edges (untimed).
 *
 *   K1 build: edges go to their start vertex's owner (put + atomics, the
 *      record exchange of app.h), which builds compressed rows.
 *   K2 classify: the heaviest weight (max-reduction) and every edge that
 *      has it, gathered on every PE (collect).
 *   K3 extract: from the start vertex of each heaviest edge, the subgraph
 *      of paths of at most 3 edges (a level-synchronous BFS): its vertices
 *      and edges.
 *   K4 betweenness centrality (Brandes) from 2^K4 source vertices over the
 *      edges whose weight is not a multiple of 8: per source a BFS that
 *      counts shortest paths (records (w, v, sigma_v) to w's owner, which
 *      keeps v as a predecessor), then the dependencies back along the
 *      predecessors, deepest level first.  TEPS = 7 N 2^K4 / K4's time,
 *      the benchmark's definition.
 *
 * Check: every PE rebuilds the whole graph serially and computes K2, K3
 * and Brandes' algorithm itself (the sources shared out between the PEs,
 * the centralities summed); every result must match, centralities to a
 * relative 1e-9 (sums of path counts in another order).
 */
#include "app.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SEED 0x55ca2ULL
#define EDGE_FACTOR 8
#define PATH_LENGTH 3         /* K3: SubGraphPathLength */
#define RMAT_A 0.55
#define RMAT_B 0.10
#define RMAT_C 0.10

typedef struct {
    int scale, k4;
    long nv, ne, max_w;
} params_t;

/* the exchange's record: K1 (u, v, weight), K3 (vertex), K4 forward
 * (w, v, sigma_v), K4 backward (v, (1 + delta_w) / sigma_w) */
typedef struct {
    long a, b;
    union {
        long l;
        double d;
    } c;
} rec_t;

/* A bijection of [0, 2^scale): multiply by odd numbers and fold the high
 * half down, within the scale's bits. */
static long scramble(const params_t *p, long x, uint64_t salt)
{
    uint64_t mask = ((uint64_t)1 << p->scale) - 1, v = (uint64_t)x;
    int sh = (p->scale + 1) / 2;
    v = (v * 0x9e3779b97f4a7c15ULL + salt) & mask;
    v ^= v >> sh;
    v = (v * 0xbf58476d1ce4e5b9ULL) & mask;
    v ^= v >> sh;
    return (long)v;
}

static void edge_at(const params_t *p, long e, long *u_p, long *v_p, long *w_p)
{
    uint64_t s = app_mix64(SEED ^ ((uint64_t)e << 8));
    long u = 0, v = 0;
    for (int l = 0; l < p->scale; l++) {
        s = app_mix64(s);
        double r = app_unit(s);
        int bu = r >= RMAT_A + RMAT_B, bv = (r >= RMAT_A && r < RMAT_A + RMAT_B) || r >= RMAT_A + RMAT_B + RMAT_C;
        u = (u << 1) | bu;
        v = (v << 1) | bv;
    }
    *u_p = scramble(p, u, 1);
    *v_p = scramble(p, v, 1);
    *w_p = 1 + (long)(app_mix64(s ^ 0x77) % (uint64_t)p->max_w);
}

static inline int k4_edge(long w) { return (w & 7) != 0; }
static long source_at(const params_t *p, long i) { return scramble(p, i, 2); }

/* ---- compressed rows (the distributed graph's local part, and the serial one) */
typedef struct {
    long n;                  /* rows */
    long *off;               /* n + 1 */
    long *dst, *wt;
} csr_t;

static void csr_build(const app_t *a, csr_t *g, long n, long m, const long *src_row,
                      const long *dst, const long *wt)
{
    g->n = n;
    g->off = app_alloc(a, (size_t)(n + 1) * sizeof(long), "the row offsets");
    g->dst = app_alloc(a, (size_t)(m ? m : 1) * sizeof(long), "the edges");
    g->wt = app_alloc(a, (size_t)(m ? m : 1) * sizeof(long), "the weights");
    memset(g->off, 0, (size_t)(n + 1) * sizeof(long));
    for (long e = 0; e < m; e++)
        g->off[src_row[e] + 1]++;
    for (long i = 0; i < n; i++)
        g->off[i + 1] += g->off[i];
    long *at = app_alloc(a, (size_t)(n ? n : 1) * sizeof(long), "the row cursors");
    memcpy(at, g->off, (size_t)n * sizeof(long));
    for (long e = 0; e < m; e++) {
        long k = at[src_row[e]]++;
        g->dst[k] = dst[e];
        g->wt[k] = wt[e];
    }
    free(at);
}

static void csr_free(csr_t *g)
{
    free(g->off);
    free(g->dst);
    free(g->wt);
}

/* ---- the distributed graph ------------------------------------------------ */
typedef struct {
    app_t *app;
    params_t p;
    long lo, nloc;           /* my vertices */
    csr_t g;                 /* my vertices' out-edges, global destinations */
    long in_edges;           /* edges into my vertices */
    app_exch_t x;
    /* results */
    long max_w, nheavy;
    long *heavy;             /* (u, v) pairs, sorted */
    long *sub_v, *sub_e;     /* K3: vertices and edges per subgraph */
    double *bc;              /* K4: my vertices' centrality */
    double t[4];
} dgraph_t;

static int owner(const dgraph_t *d, long v) { return app_block_owner(d->p.nv, d->app->npes, v); }

static int cmp_pair(const void *x, const void *y)
{
    const long *a = x, *b = y;
    return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] != b[1] ? (a[1] < b[1] ? -1 : 1) : 0;
}

/* K1: the edges to their start vertex's owner; compressed rows. */
static void kernel1(dgraph_t *d, const long *eu, const long *ev, const long *ew, long my_edges)
{
    app_t *a = d->app;
    int npes = a->npes;
    /* how many edges each PE will hold (out) and point into (in) */
    long *cnt = app_calloc(a, 2 * (size_t)npes * sizeof(long), "the edge counts");
    long *tot = app_calloc(a, 2 * (size_t)npes * sizeof(long), "the edge totals");
    for (long e = 0; e < my_edges; e++) {
        cnt[owner(d, eu[e])]++;
        cnt[npes + owner(d, ev[e])]++;
    }
    app_sum_long_array(tot, cnt, 2 * (size_t)npes);
    long cap = 1;
    for (int q = 0; q < 2 * npes; q++)
        cap = tot[q] > cap ? tot[q] : cap;
    long mine = tot[a->me];
    d->in_edges = tot[npes + a->me];
    shmem_free(tot);
    shmem_free(cnt);
    /* one exchange serves every kernel: no round carries more records to a
     * PE than the edges out of or into its vertices */
    app_exch_create(&d->x, a, sizeof(rec_t), (size_t)cap, 2048);
    for (long e = 0; e < my_edges; e++) {
        rec_t *r = app_exch_slot(&d->x, owner(d, eu[e]));
        r->a = eu[e];
        r->b = ev[e];
        r->c.l = ew[e];
    }
    const void *in;
    size_t n = app_exch_round(&d->x, &in);
    if ((long)n != mine)
        app_die(a, "K1 received %zu edges, expected %ld", n, mine);
    const rec_t *r = in;
    long *row = app_alloc(a, (n ? n : 1) * sizeof(long), "the edges' rows");
    long *dst = app_alloc(a, (n ? n : 1) * sizeof(long), "the edges' ends");
    long *wt = app_alloc(a, (n ? n : 1) * sizeof(long), "the edges' weights");
    for (size_t i = 0; i < n; i++) {
        row[i] = r[i].a - d->lo;
        dst[i] = r[i].b;
        wt[i] = r[i].c.l;
    }
    csr_build(a, &d->g, d->nloc, (long)n, row, dst, wt);
    free(row);
    free(dst);
    free(wt);
}

/* K2: the heaviest weight and its edges, on every PE. */
static void kernel2(dgraph_t *d)
{
    app_t *a = d->app;
    long m = d->g.off[d->nloc], wmax = 0, mine = 0;
    for (long k = 0; k < m; k++)
        wmax = d->g.wt[k] > wmax ? d->g.wt[k] : wmax;
    d->max_w = app_max_long(wmax);
    for (long k = 0; k < m; k++)
        mine += d->g.wt[k] == d->max_w;
    long most = app_max_long(mine);
    d->nheavy = app_sum_long(mine);
    long *src = app_malloc(a, (size_t)(2 * most) * sizeof(long), "the heavy edges");
    long *all = app_malloc(a, (size_t)(2 * d->nheavy) * sizeof(long), "every heavy edge");
    long k2 = 0;
    for (long i = 0; i < d->nloc; i++)
        for (long k = d->g.off[i]; k < d->g.off[i + 1]; k++)
            if (d->g.wt[k] == d->max_w) {
                src[k2++] = d->lo + i;
                src[k2++] = d->g.dst[k];
            }
    app_collect(all, src, (size_t)k2 * sizeof(long));
    d->heavy = app_alloc(a, (size_t)(2 * d->nheavy) * sizeof(long), "the heavy edges");
    memcpy(d->heavy, all, (size_t)(2 * d->nheavy) * sizeof(long));
    qsort(d->heavy, (size_t)d->nheavy, 2 * sizeof(long), cmp_pair);
    shmem_free(all);
    shmem_free(src);
}

/* K3: per heaviest edge, the vertices and edges within PATH_LENGTH of its
 * start. */
static void kernel3(dgraph_t *d)
{
    app_t *a = d->app;
    long *stamp = app_alloc(a, (size_t)(d->nloc ? d->nloc : 1) * sizeof(long), "the K3 marks");
    long *front = app_alloc(a, (size_t)(d->nloc ? d->nloc : 1) * sizeof(long), "the K3 frontier");
    long *next = app_alloc(a, (size_t)(d->nloc ? d->nloc : 1) * sizeof(long), "the K3 frontier");
    long *sums = app_malloc(a, 4 * sizeof(long), "the K3 sums");
    d->sub_v = app_alloc(a, (size_t)(d->nheavy ? d->nheavy : 1) * sizeof(long), "the K3 results");
    d->sub_e = app_alloc(a, (size_t)(d->nheavy ? d->nheavy : 1) * sizeof(long), "the K3 results");
    for (long i = 0; i < d->nloc; i++)
        stamp[i] = -1;
    for (long h = 0; h < d->nheavy; h++) {
        long root = d->heavy[2 * h], nf = 0, verts = 0, edges = 0;
        if (owner(d, root) == a->me) {
            stamp[root - d->lo] = h;
            front[nf++] = root - d->lo;
            verts = 1;
        }
        for (int depth = 0; depth < PATH_LENGTH; depth++) {
            for (long f = 0; f < nf; f++) {
                long x = front[f];
                edges += d->g.off[x + 1] - d->g.off[x];
                for (long k = d->g.off[x]; k < d->g.off[x + 1]; k++) {
                    long y = d->g.dst[k];
                    rec_t *r = app_exch_slot(&d->x, owner(d, y));
                    r->a = y;
                }
            }
            const void *in;
            size_t n = app_exch_round(&d->x, &in);
            const rec_t *r = in;
            nf = 0;
            for (size_t i = 0; i < n; i++) {
                long y = r[i].a - d->lo;
                if (stamp[y] != h) {
                    stamp[y] = h;
                    next[nf++] = y;
                }
            }
            verts += nf;
            long *t = front;
            front = next;
            next = t;
        }
        sums[0] = verts;
        sums[1] = edges;
        app_sum_long_array(&sums[2], &sums[0], 2);
        d->sub_v[h] = sums[2];
        d->sub_e[h] = sums[3];
    }
    shmem_free(sums);
    free(stamp);
    free(front);
    free(next);
}

/* K4: Brandes from each source, level-synchronous. */
static void kernel4(dgraph_t *d)
{
    app_t *a = d->app;
    long nloc = d->nloc ? d->nloc : 1, nsrc = 1L << d->p.k4;
    long *dist = app_alloc(a, (size_t)nloc * sizeof(long), "the distances");
    double *sigma = app_alloc(a, (size_t)nloc * sizeof(double), "the path counts");
    double *delta = app_alloc(a, (size_t)nloc * sizeof(double), "the dependencies");
    long *order = app_alloc(a, (size_t)(nloc + 1) * sizeof(long), "the BFS order");
    /* a BFS can be deeper than this PE has vertices: levels by the graph's size */
    long *lvl = app_alloc(a, (size_t)(d->p.nv + 2) * sizeof(long), "the level starts");
    long npred = d->in_edges ? d->in_edges : 1;
    long *pred_w = app_alloc(a, (size_t)npred * sizeof(long), "the predecessors");
    long *pred_v = app_alloc(a, (size_t)npred * sizeof(long), "the predecessors");
    long *plvl = app_alloc(a, (size_t)(d->p.nv + 2) * sizeof(long), "the predecessor levels");
    d->bc = app_alloc(a, (size_t)nloc * sizeof(double), "the centralities");
    memset(d->bc, 0, (size_t)nloc * sizeof(double));

    for (long si = 0; si < nsrc; si++) {
        long s = source_at(&d->p, si);
        for (long i = 0; i < d->nloc; i++) {
            dist[i] = -1;
            sigma[i] = 0.0;
            delta[i] = 0.0;
        }
        long nord = 0, np = 0;
        lvl[0] = 0;
        plvl[0] = plvl[1] = 0;
        if (owner(d, s) == a->me) {
            dist[s - d->lo] = 0;
            sigma[s - d->lo] = 1.0;
            order[nord++] = s - d->lo;
        }
        lvl[1] = nord;
        long depth = 0;
        for (;;) {                         /* forward: level depth -> depth + 1 */
            for (long f = lvl[depth]; f < lvl[depth + 1]; f++) {
                long x = order[f];
                for (long k = d->g.off[x]; k < d->g.off[x + 1]; k++) {
                    if (!k4_edge(d->g.wt[k]))
                        continue;
                    long y = d->g.dst[k];
                    rec_t *r = app_exch_slot(&d->x, owner(d, y));
                    r->a = y;
                    r->b = d->lo + x;
                    r->c.d = sigma[x];
                }
            }
            const void *in;
            size_t n = app_exch_round(&d->x, &in);
            const rec_t *r = in;
            for (size_t i = 0; i < n; i++) {
                long y = r[i].a - d->lo;
                if (dist[y] < 0) {
                    dist[y] = depth + 1;
                    order[nord++] = y;
                }
                if (dist[y] == depth + 1) {
                    sigma[y] += r[i].c.d;
                    pred_w[np] = y;
                    pred_v[np++] = r[i].b;
                }
            }
            lvl[depth + 2] = nord;
            plvl[depth + 2] = np;      /* predecessors of level depth + 1 */
            if (app_sum_long(lvl[depth + 2] - lvl[depth + 1]) == 0)
                break;
            depth++;
        }
        /* backward: levels depth .. 1 send to their predecessors */
        for (long l = depth; l >= 1; l--) {
            for (long k = plvl[l]; k < plvl[l + 1]; k++) {
                long w = pred_w[k];
                rec_t *r = app_exch_slot(&d->x, owner(d, pred_v[k]));
                r->a = pred_v[k];
                r->c.d = (1.0 + delta[w]) / sigma[w];
            }
            const void *in;
            size_t n = app_exch_round(&d->x, &in);
            const rec_t *r = in;
            for (size_t i = 0; i < n; i++) {
                long v = r[i].a - d->lo;
                delta[v] += sigma[v] * r[i].c.d;
            }
        }
        for (long i = 0; i < d->nloc; i++)
            if (d->lo + i != s)
                d->bc[i] += delta[i];
    }
    free(dist);
    free(sigma);
    free(delta);
    free(order);
    free(lvl);
    free(pred_w);
    free(pred_v);
    free(plvl);
}

/* ---- the serial answer ------------------------------------------------------ */
typedef struct {
    csr_t g;
    long max_w, nheavy;
    long *heavy;
} serial_t;

static void serial_build(const app_t *a, serial_t *s, const params_t *p)
{
    long *u = app_alloc(a, (size_t)p->ne * sizeof(long), "the serial graph");
    long *v = app_alloc(a, (size_t)p->ne * sizeof(long), "the serial graph");
    long *w = app_alloc(a, (size_t)p->ne * sizeof(long), "the serial graph");
    s->max_w = 0;
    for (long e = 0; e < p->ne; e++) {
        edge_at(p, e, &u[e], &v[e], &w[e]);
        s->max_w = w[e] > s->max_w ? w[e] : s->max_w;
    }
    csr_build(a, &s->g, p->nv, p->ne, u, v, w);
    s->nheavy = 0;
    for (long e = 0; e < p->ne; e++)
        s->nheavy += w[e] == s->max_w;
    s->heavy = app_alloc(a, (size_t)(2 * s->nheavy) * sizeof(long), "the serial heavy edges");
    for (long e = 0, k = 0; e < p->ne; e++)
        if (w[e] == s->max_w) {
            s->heavy[k++] = u[e];
            s->heavy[k++] = v[e];
        }
    qsort(s->heavy, (size_t)s->nheavy, 2 * sizeof(long), cmp_pair);
    free(u);
    free(v);
    free(w);
}

static void serial_subgraph(const serial_t *s, long root, long *stamp, long *queue, long tag,
                            long *verts_p, long *edges_p)
{
    long head = 0, tail = 0, end_of_level, edges = 0;
    stamp[root] = tag;
    queue[tail++] = root;
    for (int depth = 0; depth < PATH_LENGTH; depth++) {
        end_of_level = tail;
        for (; head < end_of_level; head++) {
            long x = queue[head];
            edges += s->g.off[x + 1] - s->g.off[x];
            for (long k = s->g.off[x]; k < s->g.off[x + 1]; k++)
                if (stamp[s->g.dst[k]] != tag) {
                    stamp[s->g.dst[k]] = tag;
                    queue[tail++] = s->g.dst[k];
                }
        }
    }
    *verts_p = tail;
    *edges_p = edges;
}

/* Brandes from one source, adding into bc. */
static void serial_brandes(const serial_t *s, long src, long *dist, double *sigma, double *delta,
                           long *queue, double *bc)
{
    const csr_t *g = &s->g;
    for (long i = 0; i < g->n; i++) {
        dist[i] = -1;
        sigma[i] = 0.0;
        delta[i] = 0.0;
    }
    long head = 0, tail = 0;
    dist[src] = 0;
    sigma[src] = 1.0;
    queue[tail++] = src;
    while (head < tail) {
        long x = queue[head++];
        for (long k = g->off[x]; k < g->off[x + 1]; k++) {
            long y = g->dst[k];
            if (!k4_edge(g->wt[k]))
                continue;
            if (dist[y] < 0) {
                dist[y] = dist[x] + 1;
                queue[tail++] = y;
            }
            if (dist[y] == dist[x] + 1)
                sigma[y] += sigma[x];
        }
    }
    for (long q = tail - 1; q >= 0; q--) {
        long x = queue[q];
        for (long k = g->off[x]; k < g->off[x + 1]; k++) {
            long y = g->dst[k];
            if (k4_edge(g->wt[k]) && dist[y] == dist[x] + 1)
                delta[x] += sigma[x] / sigma[y] * (1.0 + delta[y]);
        }
        if (x != src)
            bc[x] += delta[x];
    }
}

/* Returns the number of results that differ from the serial answer (the
 * same on every PE) and describes the first in `why`. */
static long verify(dgraph_t *d, char *why, size_t why_len)
{
    app_t *a = d->app;
    const params_t *p = &d->p;
    serial_t s;
    long bad = 0;
    serial_build(a, &s, p);
    why[0] = '\0';
    if (s.max_w != d->max_w || s.nheavy != d->nheavy ||
        memcmp(s.heavy, d->heavy, (size_t)(2 * s.nheavy) * sizeof(long))) {
        snprintf(why, why_len, "K2: heaviest weight %ld on %ld edges, serially %ld on %ld", d->max_w,
                 d->nheavy, s.max_w, s.nheavy);
        return 1;
    }
    long *stamp = app_alloc(a, (size_t)p->nv * sizeof(long), "the serial marks");
    long *queue = app_alloc(a, (size_t)p->nv * sizeof(long), "the serial queue");
    for (long i = 0; i < p->nv; i++)
        stamp[i] = -1;
    for (long h = 0; h < s.nheavy; h++) {
        long sv, se;
        serial_subgraph(&s, s.heavy[2 * h], stamp, queue, h, &sv, &se);
        if (sv != d->sub_v[h] || se != d->sub_e[h]) {
            if (!bad)
                snprintf(why, why_len, "K3: subgraph %ld has %ld vertices and %ld edges, serially %ld and %ld",
                         h, d->sub_v[h], d->sub_e[h], sv, se);
            bad++;
        }
    }
    /* K4: each PE takes every npes-th source; the sums are the answer */
    double *bc_part = app_calloc(a, (size_t)p->nv * sizeof(double), "the serial centralities");
    double *bc_all = app_calloc(a, (size_t)p->nv * sizeof(double), "the serial centralities");
    double *sigma = app_alloc(a, (size_t)p->nv * sizeof(double), "the serial path counts");
    double *delta = app_alloc(a, (size_t)p->nv * sizeof(double), "the serial dependencies");
    for (long si = a->me; si < (1L << p->k4); si += a->npes)
        serial_brandes(&s, source_at(p, si), stamp, sigma, delta, queue, bc_part);
    app_sum_double_array(bc_all, bc_part, (size_t)p->nv);
    long bc_bad = 0;
    for (long i = 0; i < d->nloc; i++) {
        double want = bc_all[d->lo + i], got = d->bc[i];
        if (fabs(got - want) > 1e-9 * fmax(1.0, fabs(want))) {
            if (!bc_bad && !bad)
                snprintf(why, why_len, "K4: vertex %ld has centrality %.17g, serially %.17g (PE %d)",
                         d->lo + i, got, want, a->me);
            bc_bad++;
        }
    }
    long bc_bad_all = app_sum_long(bc_bad);
    /* the first PE with a wrong centrality tells PE 0 what it was */
    if (bc_bad_all && !bad) {
        char *msg = app_calloc(a, 256, "the K4 message");
        long first = app_max_long(bc_bad ? (long)(a->npes - a->me) : 0);
        if (bc_bad && a->npes - a->me == first)
            shmem_putmem(msg, why, strlen(why) + 1 < 256 ? strlen(why) + 1 : 255, 0);
        shmem_barrier_all();
        if (a->me == 0)
            snprintf(why, why_len, "%s", msg);
        shmem_barrier_all();
        shmem_free(msg);
    }
    shmem_free(bc_all);
    shmem_free(bc_part);
    free(sigma);
    free(delta);
    free(stamp);
    free(queue);
    free(s.heavy);
    csr_free(&s.g);
    return bad + bc_bad_all;
}

int main(int argc, char **argv)
{
    app_t a = {
        .name = "ssca2",
        .title = "SSCA#2 graph analysis: R-MAT graph, build, heaviest edges, subgraphs, betweenness",
        .rate_unit = "MTEPS",
        .size_help = "SCALE: log2 of the vertex count",
        .iter_help = "K4approx: log2 of the betweenness sources",
    };
    app_init(&a, argc, argv);
    dgraph_t d;
    memset(&d, 0, sizeof d);
    d.app = &a;
    d.p.scale = (int)app_pick(&a, 8, 15, 17);
    d.p.k4 = (int)app_pick_iters(&a, 3, 7, 8);
    if (d.p.scale < 2 || d.p.scale > 30)
        app_die(&a, "-S %d: SCALE must be 2..30", d.p.scale);
    if (d.p.k4 > d.p.scale)
        app_die(&a, "-I %d: K4approx cannot exceed SCALE (%d)", d.p.k4, d.p.scale);
    d.p.nv = 1L << d.p.scale;
    d.p.ne = EDGE_FACTOR * d.p.nv;
    d.p.max_w = d.p.nv;
    d.lo = app_block_lo(d.p.nv, a.npes, a.me);
    d.nloc = app_block_len(d.p.nv, a.npes, a.me);
    app_say(&a, "class %s, %d PEs: SCALE %d (%ld vertices, %ld edges), %ld betweenness sources",
            app_class_name(&a), a.npes, d.p.scale, d.p.nv, d.p.ne, 1L << d.p.k4);

    /* untimed: my block of the edge list */
    long e0 = app_block_lo(d.p.ne, a.npes, a.me), my_edges = app_block_len(d.p.ne, a.npes, a.me);
    long *eu = app_alloc(&a, (size_t)(my_edges ? my_edges : 1) * sizeof(long), "the edge list");
    long *ev = app_alloc(&a, (size_t)(my_edges ? my_edges : 1) * sizeof(long), "the edge list");
    long *ew = app_alloc(&a, (size_t)(my_edges ? my_edges : 1) * sizeof(long), "the edge list");
    for (long e = 0; e < my_edges; e++)
        edge_at(&d.p, e0 + e, &eu[e], &ev[e], &ew[e]);

    double before = 0;
    app_time_begin(&a);
    kernel1(&d, eu, ev, ew, my_edges);
    app_time_end(&a);
    d.t[0] = a.elapsed - before;
    before = a.elapsed;
    free(eu);
    free(ev);
    free(ew);
    app_time_begin(&a);
    kernel2(&d);
    app_time_end(&a);
    d.t[1] = a.elapsed - before;
    before = a.elapsed;
    app_time_begin(&a);
    kernel3(&d);
    app_time_end(&a);
    d.t[2] = a.elapsed - before;
    before = a.elapsed;
    app_time_begin(&a);
    kernel4(&d);
    app_time_end(&a);
    d.t[3] = a.elapsed - before;

    long rounds = d.x.rounds;
    app_exch_destroy(&d.x);
    char why[256];
    long bad = verify(&d, why, sizeof why);
    csr_free(&d.g);
    free(d.heavy);
    free(d.sub_v);
    free(d.sub_e);
    free(d.bc);

    double teps = 7.0 * (double)d.p.nv * (double)(1L << d.p.k4) / d.t[3];
    app_metric(&a, "k1_build_s", "s", d.t[0]);
    app_metric(&a, "k2_classify_s", "s", d.t[1]);
    app_metric(&a, "k3_extract_s", "s", d.t[2]);
    app_metric(&a, "k4_centrality_s", "s", d.t[3]);
    app_metric(&a, "rounds", "round", (double)rounds);
    char detail[400];
    if (bad)
        snprintf(detail, sizeof detail, "%s (%ld results differ from the serial computation)", why, bad);
    else
        snprintf(detail, sizeof detail, "%ld heaviest edges (weight %ld), %ld subgraphs and %ld "
                 "centralities equal the serial computation", d.nheavy, d.max_w, d.nheavy, d.p.nv);
    return app_finish(&a, bad == 0, teps / 1e6, "%s", detail);
}
