/*
 * Blend spaces, triangulated and grid: the Delaunay triangulation of the (normalised) points,
 * barycentric weights inside a triangle, the nearest point of the hull outside, the line's
 * weights when the points lie on one; grid stores those weights at the points of a grid once and
 * mixes the four around an input bilinearly.
 */
#include <math.h>

#include "blendspace_internal.h"
#include "delaunay.h"

#define INSIDE_TOL 1e-12  /* barycentric slack that still counts as inside a triangle */
#define LINE_TOL 1e-10    /* points this close to a line (relative to its length) count as on it */

/* ---- triangulated ---- */

/* whether the n 2-D points lie on the line through the lexicographically smallest and largest */
static int on_line(const double *pts, int n) {
    int i, lo = 0, hi = 0;
    double dx, dy, len;
    for (i = 1; i < n; i++) {
        if (pts[2 * i] < pts[2 * lo] || (pts[2 * i] == pts[2 * lo] && pts[2 * i + 1] < pts[2 * lo + 1])) lo = i;
        if (pts[2 * i] > pts[2 * hi] || (pts[2 * i] == pts[2 * hi] && pts[2 * i + 1] > pts[2 * hi + 1])) hi = i;
    }
    dx = pts[2 * hi] - pts[2 * lo];
    dy = pts[2 * hi + 1] - pts[2 * lo + 1];
    len = sqrt(dx * dx + dy * dy);
    for (i = 0; i < n; i++) {
        double cross = dx * (pts[2 * i + 1] - pts[2 * lo + 1]) - dy * (pts[2 * i] - pts[2 * lo]);
        if (fabs(cross) > LINE_TOL * len * len) return 0;
    }
    return 1;
}

/* the normalised points, the line through them, and unless they lie on it the triangles (with
   their barycentric maps) and the hull edges (with their projection maps) */
void sn_blendspace_triangulated_build(sn_blendspace *bs, const sn_blendspace_def *def) {
    double hi[2], *u = ARR(bs, tri.normalised, double), *map = ARR(bs, tri.map, double);
    double *hmap = ARR(bs, tri.hull_map, double);
    int *tv = ARR(bs, tri.vertex, int), *tnb = ARR(bs, tri.neighbour, int), *hv = ARR(bs, tri.hull_vertex, int), i, k;
    sn_blendspace_box(def, def->normalize_axes, bs->tri.lo, hi, bs->tri.scale);
    for (i = 0; i < bs->n; i++) normalise(bs->tri.lo, bs->tri.scale, bs->dims, pt(def, i), u + i * bs->dims);
    sn_blendspace_line_build(bs, u);
    if (bs->dims == 1 || on_line(u, bs->n)) return;
    bs->tri.count = sn_delaunay_build(u, bs->n, ARR(bs, tri.scratch, char), tv, tnb);
    for (i = 0; i < bs->tri.count; i++) {
        const double *a = u + 2 * tv[3 * i], *b = u + 2 * tv[3 * i + 1], *c = u + 2 * tv[3 * i + 2];
        double e1x = b[0] - a[0], e1y = b[1] - a[1], e2x = c[0] - a[0], e2y = c[1] - a[1];
        double det = e1x * e2y - e1y * e2x, *m = map + 6 * i;
        m[0] = a[0]; m[1] = a[1];
        m[2] = e2y / det; m[3] = -e2x / det; m[4] = -e1y / det; m[5] = e1x / det;
        if (det == 0.0 || !sn_isfinite(m[2] + m[3] + m[4] + m[5])) m[0] = m[1] = NAN; /* never inside */
        for (k = 0; k < 3; k++)
            if (tnb[3 * i + k] < 0) {
                int ea = tv[3 * i + (k + 1) % 3], eb = tv[3 * i + (k + 2) % 3], h = bs->tri.hull_edges++;
                double dx = u[2 * eb] - u[2 * ea], dy = u[2 * eb + 1] - u[2 * ea + 1];
                hv[2 * h] = ea; hv[2 * h + 1] = eb;
                hmap[5 * h] = u[2 * ea]; hmap[5 * h + 1] = u[2 * ea + 1];
                hmap[5 * h + 2] = dx; hmap[5 * h + 3] = dy; hmap[5 * h + 4] = 1.0 / (dx * dx + dy * dy);
            }
    }
}

/* the sparse weights at x: barycentric in the triangle that holds it, else those of the nearest
   point of the hull (the line's when the points lie on one) */
static int triangulated_sparse(const sn_blendspace *bs, const double *x, int *idx, double *wt) {
    const double *map = CARR(bs, tri.map, double), *hmap = CARR(bs, tri.hull_map, double);
    const int *tv = CARR(bs, tri.vertex, int), *hv = CARR(bs, tri.hull_vertex, int);
    double u[2], best = INFINITY, bestf = 0.0;
    int t, h, besth = 0;
    normalise(bs->tri.lo, bs->tri.scale, bs->dims, x, u);
    if (bs->tri.count == 0) return sn_blendspace_line_sparse(bs, u, idx, wt);
    for (t = 0; t < bs->tri.count; t++) {
        const double *m = map + 6 * t;
        double rx = u[0] - m[0], ry = u[1] - m[1];
        double l1 = rx * m[2] + ry * m[3], l2 = rx * m[4] + ry * m[5], l0 = 1.0 - l1 - l2;
        if (l0 >= -INSIDE_TOL && l1 >= -INSIDE_TOL && l2 >= -INSIDE_TOL) {
            double s;
            if (l0 < 0.0) l0 = 0.0;
            if (l1 < 0.0) l1 = 0.0;
            if (l2 < 0.0) l2 = 0.0;
            s = l0 + l1 + l2;
            if (!(s > 0.0) || !sn_isfinite(s)) continue; /* a degenerate triangle's map */
            idx[0] = tv[3 * t];
            idx[1] = tv[3 * t + 1];
            idx[2] = tv[3 * t + 2];
            wt[0] = l0 / s;
            wt[1] = l1 / s;
            wt[2] = l2 / s;
            return 3;
        }
    }
    for (h = 0; h < bs->tri.hull_edges; h++) { /* outside: the nearest point of the hull boundary */
        const double *m = hmap + 5 * h;
        double rx = u[0] - m[0], ry = u[1] - m[1], f = (rx * m[2] + ry * m[3]) * m[4], dx, dy, d2;
        if (f < 0.0) f = 0.0;
        if (f > 1.0) f = 1.0;
        dx = rx - f * m[2];
        dy = ry - f * m[3];
        d2 = dx * dx + dy * dy;
        if (d2 < best) {
            best = d2;
            besth = h;
            bestf = f;
        }
    }
    if (best < INFINITY) {
        idx[0] = hv[2 * besth];
        wt[0] = 1.0 - bestf;
        idx[1] = hv[2 * besth + 1];
        wt[1] = bestf;
        return 2;
    } else { /* no edge gave a finite distance (degenerate geometry): the nearest point */
        const double *q = CARR(bs, tri.normalised, double);
        int i, near = 0;
        for (i = 0; i < bs->n; i++) {
            double dx = u[0] - q[2 * i], dy = u[1] - q[2 * i + 1], d2 = dx * dx + dy * dy;
            if (d2 < best) {
                best = d2;
                near = i;
            }
        }
        idx[0] = near;
        wt[0] = 1.0;
        return 1;
    }
}

void sn_blendspace_triangulated_weights(const sn_blendspace *bs, const double *x, double *w) {
    int idx[3];
    double wt[3];
    scatter(idx, wt, triangulated_sparse(bs, x, idx, wt), w, bs->n);
}

int sn_blendspace_triangles(const sn_blendspace *bs, const int **tris) {
    *tris = bs->tri.count > 0 ? CARR(bs, tri.vertex, int) : NULL;
    return bs->tri.count;
}

/* ---- grid ---- */

/* the position of grid point (c, r): the box's far edges exactly at the last column and row */
static void grid_node(const sn_blendspace *bs, int c, int r, double *x) {
    const double *lo = bs->grid.lo, *hi = bs->grid.hi;
    const int cols = bs->grid.cols, rows = bs->grid.rows;
    x[0] = c == cols - 1 ? hi[0] : lo[0] + c * (hi[0] - lo[0]) / (cols - 1);
    x[1] = r == rows - 1 ? hi[1] : lo[1] + r * (hi[1] - lo[1]) / (rows - 1);
}

/* every grid point stores the (at most 3) non-zero triangulated weights there */
void sn_blendspace_grid_build(sn_blendspace *bs, const sn_blendspace_def *def) {
    int *gidx = ARR(bs, grid.point, int);
    double *gwt = ARR(bs, grid.weight, double), unused[2];
    int c, r, k;
    bs->grid.cols = def->grid_cols;
    bs->grid.rows = def->grid_rows;
    sn_blendspace_box(def, 1, bs->grid.lo, bs->grid.hi, unused);
    for (k = 0; k < 2; k++) {
        const double lo = bs->grid.lo[k], hi = bs->grid.hi[k];
        const int cells = (k == 0 ? bs->grid.cols : bs->grid.rows) - 1;
        bs->grid.scale[k] = hi > lo ? cells / (hi - lo) : 0.0;
        if (!sn_isfinite(bs->grid.scale[k])) bs->grid.scale[k] = 0.0; /* a subnormal extent: no extent */
    }
    for (r = 0; r < bs->grid.rows; r++)
        for (c = 0; c < bs->grid.cols; c++) {
            size_t at = 3 * ((size_t)r * bs->grid.cols + c);
            double x[2];
            grid_node(bs, c, r, x);
            for (k = triangulated_sparse(bs, x, gidx + at, gwt + at); k < 3; k++) {
                gidx[at + k] = gidx[at]; /* a spare slot: weight 0 for the first point */
                gwt[at + k] = 0.0;
            }
        }
}

/* The bilinear mix of the four grid points around x: each adds its (at most 3) weights times its
   bilinear coefficient, with no search for the points the four share and no branch on the data
   (it replaced a dense table of every point's weight at every grid point, which took n doubles
   per grid point; manual/performance.md compares their speed). The dense table mixed each
   point's four weights as a + fy (b - a), a = w00 + fx (w10 - w00), b = w01 + fx (w11 - w01);
   the sum of coefficient times weight differs from that by a few units in the last place. */
void sn_blendspace_grid_weights(const sn_blendspace *bs, const double *x, double *w) {
    const int *gidx = CARR(bs, grid.point, int);
    const double *gwt = CARR(bs, grid.weight, double);
    double f[2], c[4];
    int cell[2], k, e;
    for (k = 0; k < 2; k++) {
        int last = (k == 0 ? bs->grid.cols : bs->grid.rows) - 2;
        const double lo = bs->grid.lo[k], hi = bs->grid.hi[k];
        double v = x[k] < lo ? lo : x[k] > hi ? hi : x[k];
        double g = (v - lo) * bs->grid.scale[k];
        cell[k] = (int)g;
        if (cell[k] > last) cell[k] = last;
        f[k] = g - cell[k];
        if (f[k] > 1.0) f[k] = 1.0; /* g rounded just past the last grid point */
    }
    c[0] = (1.0 - f[0]) * (1.0 - f[1]); /* grid points (c, r), (c + 1, r), (c, r + 1), (c + 1, r + 1) */
    c[1] = f[0] * (1.0 - f[1]);
    c[2] = (1.0 - f[0]) * f[1];
    c[3] = f[0] * f[1];
    zero(w, bs->n);
    for (k = 0; k < 4; k++) {
        size_t at = 3 * ((size_t)(cell[1] + k / 2) * bs->grid.cols + cell[0] + k % 2);
        for (e = 0; e < 3; e++) w[gidx[at + e]] += c[k] * gwt[at + e];
    }
}
