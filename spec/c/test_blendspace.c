/* C-only tests of src/core/blendspace.c and src/core/delaunay.c: no Lua involved. */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blendspace.h"
#include "delaunay.h"
#include "ensure.h"
#include "fixtures.h"
#include "wedges.h"

#define MAXN 200
#define PI 3.14159265358979323846

/* one blend space in static memory, rebuilt by each call */
static double block[1 << 18];

static sn_blendspace_def def_of(sn_blendspace_mode mode, const double *pts, int n, int dims) {
    sn_blendspace_def def;
    sn_blendspace_def_init(&def);
    def.mode = mode;
    def.points = pts;
    def.count = n;
    def.dims = dims;
    return def;
}

/* the blend space of `def` in `mem`, or NULL (and a failed check) when it is refused */
static sn_blendspace *build(void *mem, size_t size, const sn_blendspace_def *def) {
    sn_error err;
    ENSURE(sn_blendspace_size(def, &err) <= size);
    if (sn_blendspace_init(mem, size, def, &err) != SN_OK) {
        fprintf(stderr, "init failed: %s\n", err.msg);
        ensure_failed_checks++;
        return NULL;
    }
    return (sn_blendspace *)mem;
}

static sn_blendspace *make(sn_blendspace_mode mode, const double *pts, int n, int dims) {
    sn_blendspace_def def = def_of(mode, pts, n, dims);
    return build(block, sizeof block, &def);
}

static void weights(const sn_blendspace *bs, const double *p, double *w) {
    ENSURE(sn_blendspace_weights(bs, p, sn_blendspace_inputs(bs), w, NULL) == SN_OK);
}

/* ---- triangulation ---- */

static int hull_size(const double *xy, int n) { /* points on the hull boundary, collinear ones too */
    int i, j, k, count = 0;
    for (i = 0; i < n; i++) {
        int on = 0;
        for (j = 0; j < n && !on; j++) {
            int left = 0, right = 0;
            if (j == i) continue;
            for (k = 0; k < n; k++) {
                int s = sn_delaunay_orient(xy + 2 * i, xy + 2 * j, xy + 2 * k);
                left += s > 0;
                right += s < 0;
            }
            on = left == 0 || right == 0; /* a supporting line through i and j */
        }
        count += on;
    }
    return count;
}

static int by_xy(const void *pa, const void *pb) {
    const double *a = (const double *)pa, *b = (const double *)pb;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

static double hull_area(const double *xy, int n) { /* Andrew's monotone chain, then the shoelace */
    double s[2 * MAXN], h[2 * (2 * MAXN + 2)], area = 0.0;
    int i, k = 0, lower;
    memcpy(s, xy, sizeof(double) * 2 * (size_t)n);
    qsort(s, (size_t)n, 2 * sizeof(double), by_xy);
    for (i = 0; i < n; i++) {
        while (k >= 2 && sn_delaunay_orient(h + 2 * (k - 2), h + 2 * (k - 1), s + 2 * i) <= 0) k--;
        h[2 * k] = s[2 * i]; h[2 * k + 1] = s[2 * i + 1]; k++;
    }
    lower = k + 1;
    for (i = n - 2; i >= 0; i--) {
        while (k >= lower && sn_delaunay_orient(h + 2 * (k - 2), h + 2 * (k - 1), s + 2 * i) <= 0) k--;
        h[2 * k] = s[2 * i]; h[2 * k + 1] = s[2 * i + 1]; k++;
    }
    for (i = 0; i + 1 < k; i++) area += h[2 * i] * h[2 * i + 3] - h[2 * i + 2] * h[2 * i + 1];
    return 0.5 * area;
}

static void check_delaunay(const double *xy, int n) {
    static unsigned char scratch[1 << 16];
    int tris[6 * MAXN], nbrs[6 * MAXN], nt, t, i;
    double area = 0.0;
    ENSURE(sn_delaunay_scratch_size(n) <= sizeof scratch);
    nt = sn_delaunay_build(xy, n, scratch, tris, nbrs);
    ENSURE(nt == 2 * n - 2 - hull_size(xy, n));
    for (t = 0; t < nt; t++) {
        const double *a = xy + 2 * tris[3 * t], *b = xy + 2 * tris[3 * t + 1], *c = xy + 2 * tris[3 * t + 2];
        int k;
        ENSURE(sn_delaunay_orient(a, b, c) > 0);
        area += 0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
        for (i = 0; i < n; i++) /* empty circumcircles */
            ENSURE(sn_delaunay_incircle(a, b, c, xy + 2 * i) <= 0);
        for (k = 0; k < 3; k++) { /* neighbours are mutual */
            int u = nbrs[3 * t + k], j, back = 0;
            if (u < 0) continue;
            for (j = 0; j < 3; j++) back += nbrs[3 * u + j] == t;
            ENSURE(back == 1);
        }
    }
    ENSURE_NEAR(area, hull_area(xy, n), 1e-9 * (1 + fabs(area)));
}

static void test_predicates_are_exact(void) {
    double a[2] = {0.1, 0.1}, b[2] = {0.2, 0.2}, c[2] = {0.5, 0.5}, d[2] = {1, 1};
    double p[2] = {5, 0}, q[2] = {0, 5}, r[2] = {-3, 4}, s[2] = {4, -3}, in[2] = {4.99, 0}, out[2] = {5.01, 0};
    double e[2] = {1, 1}, f[2] = {3, 3}, tiny[2] = {2, 2};
    ENSURE(sn_delaunay_orient(a, c, d) == 0 || sn_delaunay_orient(a, c, d) == -sn_delaunay_orient(c, a, d));
    ENSURE(sn_delaunay_orient(c, d, d) == 0);
    ENSURE(sn_delaunay_orient(b, c, d) == -sn_delaunay_orient(c, b, d));
    ENSURE(sn_delaunay_orient(e, f, tiny) == 0);
    tiny[1] = 2 + ldexp(1.0, -51); /* one unit in the last place off the line y = x is seen */
    ENSURE(sn_delaunay_orient(e, f, tiny) == 1);
    tiny[1] = 2 - ldexp(1.0, -52);
    ENSURE(sn_delaunay_orient(e, f, tiny) == -1);
    ENSURE(sn_delaunay_incircle(p, q, r, s) == 0); /* four points on the circle of radius 5 */
    ENSURE(sn_delaunay_incircle(p, q, r, in) == 1);
    ENSURE(sn_delaunay_incircle(p, q, r, out) == -1);
}

static void test_delaunay_random_and_degenerate_sets(void) {
    double xy[2 * MAXN];
    int round, n, i;
    for (round = 0; round < 30; round++) { /* uniform */
        n = 3 + round * 5;
        for (i = 0; i < 2 * n; i++) xy[i] = rnd(-1, 1);
        check_delaunay(xy, n);
    }
    for (n = 2; n <= 12; n++) { /* square grids: every cell is cocircular */
        int r, c, k = 0;
        for (r = 0; r < n; r++)
            for (c = 0; c < n && k < MAXN; c++) {
                xy[2 * k] = c / 3.0;
                xy[2 * k + 1] = r / 7.0;
                k++;
            }
        check_delaunay(xy, k);
    }
    {   /* twelve points on one circle, plus its centre */
        static const double ring[] = {5, 0, 0, 5, -5, 0, 0, -5, 3, 4, -3, 4, 3, -4, -3, -4, 4, 3, -4, 3, 4, -3, -4, -3, 0, 0};
        check_delaunay(ring, 12);
        check_delaunay(ring, 13);
    }
    {   /* a collinear run first, then points on both sides */
        static const double run[] = {0, 0, 1, 0, 2, 0, 3, 0, 1.5, 1, 4, 0, 2.5, -2, 5, 0, 6, 0};
        check_delaunay(run, 9);
    }
}

static void canonical(int *tris, int nt) { /* rotate each triple to start at its least index, sort */
    int t, k;
    for (t = 0; t < nt; t++) {
        int *v = tris + 3 * t, lo = 0, r[3];
        for (k = 1; k < 3; k++)
            if (v[k] < v[lo]) lo = k;
        for (k = 0; k < 3; k++) r[k] = v[(lo + k) % 3];
        memcpy(v, r, sizeof r);
    }
    for (t = 1; t < nt; t++) { /* insertion sort of triples */
        int j = t, tmp[3];
        memcpy(tmp, tris + 3 * t, sizeof tmp);
        while (j > 0 && memcmp(tris + 3 * (j - 1), tmp, sizeof tmp) > 0) {
            memcpy(tris + 3 * j, tris + 3 * (j - 1), sizeof tmp);
            j--;
        }
        memcpy(tris + 3 * j, tmp, sizeof tmp);
    }
}

static void test_delaunay_ignores_point_order(void) {
    static unsigned char scratch[1 << 16];
    double xy[2 * 49], shuffled[2 * 49];
    int perm[49], a[6 * 49], b[6 * 49], na, nb, i, round;
    for (i = 0; i < 49; i++) { /* a 7x7 grid: many cocircular quads */
        xy[2 * i] = i % 7;
        xy[2 * i + 1] = i / 7;
    }
    for (round = 0; round < 10; round++) {
        for (i = 0; i < 49; i++) perm[i] = i;
        for (i = 48; i > 0; i--) {
            int j = (int)(rnd(0, 1) * (i + 1)), tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
        }
        for (i = 0; i < 49; i++) {
            shuffled[2 * i] = xy[2 * perm[i]];
            shuffled[2 * i + 1] = xy[2 * perm[i] + 1];
        }
        na = sn_delaunay_build(xy, 49, scratch, a, NULL);
        nb = sn_delaunay_build(shuffled, 49, scratch, b, NULL);
        ENSURE(na == nb && na == 72);
        for (i = 0; i < 3 * nb; i++) b[i] = perm[b[i]];
        canonical(a, na);
        canonical(b, nb);
        ENSURE(memcmp(a, b, sizeof(int) * 3 * (size_t)na) == 0);
    }
}

/* ---- weights ---- */

static void check_common(const sn_blendspace *bs, const double *p) {
    double w[MAXN], sum = 0.0;
    int i;
    weights(bs, p, w);
    for (i = 0; i < sn_blendspace_count(bs); i++) {
        ENSURE(w[i] >= 0.0);
        sum += w[i];
    }
    ENSURE_NEAR(sum, 1.0, 1e-9);
}

static void random_points(double *pts, int n, int dims, int with_origin) {
    int i;
    for (i = 0; i < n * dims; i++) pts[i] = rnd(-1, 1);
    if (with_origin)
        for (i = 0; i < dims; i++) pts[i] = 0.0;
}

static void test_modes_interpolate_and_sum_to_one(void) {
    static const sn_blendspace_mode modes[] = {SN_BLENDSPACE_1D, SN_BLENDSPACE_FREEFORM_CARTESIAN,
                                               SN_BLENDSPACE_FREEFORM_DIRECTIONAL, SN_BLENDSPACE_TRIANGULATED,
                                               SN_BLENDSPACE_IDW};
    double pts[MAXN * 3], w[MAXN], p[3];
    int m, round, i, k;
    for (m = 0; m < 5; m++)
        for (round = 0; round < 20; round++) {
            int dims = modes[m] == SN_BLENDSPACE_1D ? 1
                       : modes[m] == SN_BLENDSPACE_FREEFORM_DIRECTIONAL ? 2
                       : modes[m] == SN_BLENDSPACE_TRIANGULATED ? 1 + round % 2 : 1 + round % 3;
            int n = 2 + round % 9;
            const sn_blendspace *bs;
            random_points(pts, n, dims, round % 2);
            bs = make(modes[m], pts, n, dims);
            ENSURE(bs != NULL);
            if (bs == NULL) continue;
            for (i = 0; i < n; i++) {
                weights(bs, pts + i * dims, w);
                ENSURE_NEAR(w[i], 1.0, 1e-12);
            }
            for (i = 0; i < 50; i++) {
                for (k = 0; k < dims; k++) p[k] = rnd(-2, 2);
                check_common(bs, p);
            }
        }
}

/* Johansen's gradient band weight of point i, straight from the formula */
static double band(const double *pts, int n, int d, int i, const double *p) {
    double h = 1.0;
    int j, k;
    for (j = 0; j < n; j++) {
        double num = 0.0, den = 0.0, t;
        if (j == i) continue;
        for (k = 0; k < d; k++) {
            num += (p[k] - pts[i * d + k]) * (pts[j * d + k] - pts[i * d + k]);
            den += (pts[j * d + k] - pts[i * d + k]) * (pts[j * d + k] - pts[i * d + k]);
        }
        t = 1.0 - num / den;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        if (t < h) h = t;
    }
    return h;
}

static void test_freeform_cartesian_follows_the_formula(void) {
    double pts[12 * 3], p[3], w[12], h[12], sum;
    int round, i, k;
    for (round = 0; round < 30; round++) {
        int d = 1 + round % 3, n = 3 + round % 10;
        const sn_blendspace *bs;
        random_points(pts, n, d, 0);
        bs = make(SN_BLENDSPACE_FREEFORM_CARTESIAN, pts, n, d);
        if (bs == NULL) continue;
        for (k = 0; k < d; k++) p[k] = rnd(-1.5, 1.5);
        weights(bs, p, w);
        sum = 0.0;
        for (i = 0; i < n; i++) sum += h[i] = band(pts, n, d, i, p);
        for (i = 0; i < n; i++) ENSURE_NEAR(w[i], h[i] / sum, 1e-12);
    }
}

static int inside_some_triangle(const sn_blendspace *bs, const double *pts, const double *p) {
    const int *tv;
    int nt = sn_blendspace_triangles(bs, &tv), t;
    for (t = 0; t < nt; t++) {
        const double *a = pts + 2 * tv[3 * t], *b = pts + 2 * tv[3 * t + 1], *c = pts + 2 * tv[3 * t + 2];
        if (sn_delaunay_orient(a, b, p) >= 0 && sn_delaunay_orient(b, c, p) >= 0 && sn_delaunay_orient(c, a, p) >= 0)
            return 1;
    }
    return 0;
}

static void test_triangulated_reproduces_linear_functions(void) {
    double pts[2 * 30], w[30], p[2];
    int round, i, j;
    for (round = 0; round < 20; round++) {
        int n = 3 + round;
        const sn_blendspace *bs;
        random_points(pts, n, 2, 0);
        bs = make(SN_BLENDSPACE_TRIANGULATED, pts, n, 2);
        if (bs == NULL) continue;
        for (j = 0; j < 40; j++) {
            double sx = 0, sy = 0;
            p[0] = rnd(-1, 1);
            p[1] = rnd(-1, 1);
            weights(bs, p, w);
            for (i = 0; i < n; i++) {
                sx += w[i] * pts[2 * i];
                sy += w[i] * pts[2 * i + 1];
            }
            if (inside_some_triangle(bs, pts, p)) { /* inside the hull: the weights reproduce p */
                ENSURE_NEAR(sx, p[0], 1e-9);
                ENSURE_NEAR(sy, p[1], 1e-9);
            } else { /* outside: they give a point of the hull boundary, which is nearer */
                ENSURE((sx - p[0]) * (sx - p[0]) + (sy - p[1]) * (sy - p[1]) > 0);
            }
        }
    }
}

static void test_grid_stores_triangulated_weights(void) {
    double pts[] = {0, 0, 2, 0, 0, 1, 2, 1, 1, 0.5, 0.3, 0.8}, w[6], v[6], node[2];
    static double other[4096];
    sn_blendspace_def def = def_of(SN_BLENDSPACE_GRID, pts, 6, 2);
    sn_blendspace *grid, *tri;
    int c, r, i;
    def.grid_cols = 5;
    def.grid_rows = 3;
    grid = build(block, sizeof block, &def);
    def.mode = SN_BLENDSPACE_TRIANGULATED;
    tri = build(other, sizeof other, &def);
    if (grid == NULL || tri == NULL) return;
    for (r = 0; r < 3; r++)
        for (c = 0; c < 5; c++) {
            node[0] = c * 0.5;
            node[1] = r * 0.5;
            weights(grid, node, w);
            weights(tri, node, v);
            for (i = 0; i < 6; i++) ENSURE_NEAR(w[i], v[i], 1e-12);
        }
}

/* The grid keeps at most 3 weights per grid point; its weights must be those of a dense table of
   every point's triangulated weight at every grid point, mixed bilinearly (the dense table's
   formula, which the grid once used), to within an ulp or two. */
static void test_grid_is_the_dense_bilinear_mix(void) {
    static double other[1 << 15];
    double pts[2 * 40], lo[2], hi[2], p[2], w[40], r[4][40], x[2];
    int round, q, i, k;
    for (round = 0; round < 60; round++) {
        int n = 3 + round % 37, cols = 2 + round % 7, rows = 2 + (round * 5) % 9, cell[2], dims[2];
        double f[2], scale = round % 3 == 0 ? 1e-3 : round % 3 == 1 ? 7.3 : 1;
        sn_blendspace_def def;
        sn_blendspace *grid, *tri;
        random_points(pts, n, 2, round % 4 == 0);
        for (i = 0; i < 2 * n; i++) pts[i] *= scale;
        def = def_of(SN_BLENDSPACE_GRID, pts, n, 2);
        def.grid_cols = cols;
        def.grid_rows = rows;
        def.normalize_axes = round % 2;
        grid = build(block, sizeof block, &def);
        def.mode = SN_BLENDSPACE_TRIANGULATED;
        tri = build(other, sizeof other, &def);
        if (grid == NULL || tri == NULL) continue;
        dims[0] = cols;
        dims[1] = rows;
        for (k = 0; k < 2; k++) { /* the grid spans the bounding box */
            lo[k] = hi[k] = pts[k];
            for (i = 1; i < n; i++) {
                if (pts[2 * i + k] < lo[k]) lo[k] = pts[2 * i + k];
                if (pts[2 * i + k] > hi[k]) hi[k] = pts[2 * i + k];
            }
        }
        for (q = 0; q < 100; q++) {
            for (k = 0; k < 2; k++) { /* the cell and the fractions, as the grid finds them */
                double g;
                p[k] = q < 4 ? ((q >> k) & 1 ? hi[k] : lo[k]) : rnd(lo[k], hi[k]); /* corners, then inside */
                g = (p[k] - lo[k]) * ((dims[k] - 1) / (hi[k] - lo[k]));
                cell[k] = (int)g;
                if (cell[k] > dims[k] - 2) cell[k] = dims[k] - 2;
                f[k] = g - cell[k];
            }
            for (k = 0; k < 4; k++) { /* the dense weights at the four grid points around p */
                int c = cell[0] + k % 2, rr = cell[1] + k / 2;
                x[0] = c == cols - 1 ? hi[0] : lo[0] + c * (hi[0] - lo[0]) / (cols - 1);
                x[1] = rr == rows - 1 ? hi[1] : lo[1] + rr * (hi[1] - lo[1]) / (rows - 1);
                weights(tri, x, r[k]);
            }
            check_common(grid, p); /* non-negative, sum 1 */
            weights(grid, p, w);
            for (i = 0; i < n; i++) {
                double a = r[0][i] + f[0] * (r[1][i] - r[0][i]), b = r[2][i] + f[0] * (r[3][i] - r[2][i]);
                double v = a + f[1] * (b - a);
                ENSURE_NEAR(w[i], v > 0.0 ? v : 0.0, 4.5e-16);
            }
        }
    }
}

static void test_direct_and_simple_directional(void) {
    double pts[] = {0, 0, 1, 0, 0, 1, -1, 0, 0, -1}, in[5] = {0.5, -1, 2, 0, 0.5}, w[5], p[2] = {0.25, 0.5};
    const sn_blendspace *bs = make(SN_BLENDSPACE_DIRECT, pts, 5, 2);
    int i;
    if (bs != NULL) {
        weights(bs, in, w);
        for (i = 0; i < 5; i++) ENSURE(w[i] == (in[i] > 0 ? in[i] : 0));
    }
    bs = make(SN_BLENDSPACE_SIMPLE_DIRECTIONAL, pts, 5, 2);
    if (bs == NULL) return;
    weights(bs, p, w); /* p = 0.25 (1, 0) + 0.5 (0, 1): the centre keeps 0.25 */
    ENSURE_NEAR(w[1], 0.25, 1e-15);
    ENSURE_NEAR(w[2], 0.5, 1e-15);
    ENSURE_NEAR(w[0], 0.25, 1e-15);
    p[0] = 2; /* beyond the segment: c < 0, the pair renormalised */
    p[1] = 2;
    weights(bs, p, w);
    ENSURE_NEAR(w[1], 0.5, 1e-15);
    ENSURE_NEAR(w[2], 0.5, 1e-15);
    ENSURE(w[0] == 0);
}

/* The wedges a fast path reads give sn_blendspace_weights's bits when followed as blendspace.h
   says, for spaces with and without a centre, inputs in every wedge and beyond the samples; the
   pseudo-angle grows with the angle; other modes have no wedges. */
static void test_wedges_give_the_weights(void) {
    static const double idw_pts[] = {0, 0, 1, 0, 0, 1, -1, 0};
    double pts[2 * 10], w[10], mine[10], prev = -3;
    sn_blendspace_wedges wg;
    sn_error err;
    int round, i, k;
    for (i = 0; i < 64; i++) { /* monotonic over one turn from -pi */
        double a = -PI + 2 * PI * i / 64 + 1e-9, t = sn_blendspace_pseudo_angle(cos(a), sin(a));
        ENSURE(t > prev && t > -2 && t <= 2);
        prev = t;
    }
    ENSURE(sn_blendspace_wedges_of(make(SN_BLENDSPACE_IDW, idw_pts, 4, 2), &wg, &err) == SN_EINVAL);
    for (round = 0; round < 40; round++) {
        int n = 4 + round % 6, centre = round % 2 == 0, m = 0;
        const sn_blendspace *bs;
        if (centre) pts[m++] = 0, pts[m++] = 0;
        for (i = 0; i < n - centre; i++) { /* directions spread round the circle, radii 0.5 .. 2 */
            double a = 2 * PI * (i + 0.3 * rnd(0, 1)) / (n - centre), r = rnd(0.5, 2);
            pts[m++] = r * cos(a);
            pts[m++] = r * sin(a);
        }
        bs = make(SN_BLENDSPACE_SIMPLE_DIRECTIONAL, pts, n, 2);
        if (bs == NULL) continue;
        ENSURE(sn_blendspace_wedges_of(bs, &wg, NULL) == SN_OK);
        ENSURE(wg.count == n && wg.ndir == n - centre && wg.centre == (centre ? 0 : -1) && wg.quick);
        for (k = 0; k < 50; k++) {
            double p[2] = {rnd(-3, 3), rnd(-3, 3)};
            weights(bs, p, w);
            ENSURE(wedge_weights(&wg, p, mine));
            ENSURE(memcmp(mine, w, sizeof(double) * (size_t)n) == 0);
        }
    }
}

/* ---- refusals ---- */

static const double valid_pts[] = {0, 0, 1, 0, 0, 1, -1, 0};
static const double dup_pts[] = {0, 0, 1, 0, 1, 0};
static const double near_pts[] = {1, 0, 1, 0.01, 0, 1, -1, 0};
static const double gap_pts[] = {1, 0, 0, 1, -1, 0};
static const double huge_pts[] = {1e200, 0, 1, 1};
static const double close_pts[] = {0, 0, 1e-160, 0};
static const double squashed_pts[] = {0, 0, 1, 0, 1, 1e-150, 0, 1e10};
static double nan_pts[] = {0, 0, 1, 0};

/* a valid definition: idw over four 2-D points */
static void valid_def(sn_blendspace_def *d) {
    sn_blendspace_def_init(d);
    d->mode = SN_BLENDSPACE_IDW;
    d->points = valid_pts;
    d->count = 4;
    d->dims = 2;
}

static void no_count(sn_blendspace_def *d) { d->count = 0; }
static void no_array(sn_blendspace_def *d) { d->points = NULL; }
static void too_many(sn_blendspace_def *d) { d->count = SN_BLENDSPACE_MAX_POINTS + 1; }
static void bad_mode(sn_blendspace_def *d) { d->mode = (sn_blendspace_mode)99; }
static void line_of_one(sn_blendspace_def *d) { d->mode = SN_BLENDSPACE_1D; d->count = 1; d->dims = 1; }
static void triangle_of_one(sn_blendspace_def *d) { d->mode = SN_BLENDSPACE_TRIANGULATED; d->count = 1; }
static void grid_of_one(sn_blendspace_def *d) { d->mode = SN_BLENDSPACE_GRID; d->count = 1; }
static void two_directions(sn_blendspace_def *d) { d->mode = SN_BLENDSPACE_SIMPLE_DIRECTIONAL; d->count = 3; }
static void line_in_2d(sn_blendspace_def *d) { d->mode = SN_BLENDSPACE_1D; }
static void polar_in_4d(sn_blendspace_def *d) { d->mode = SN_BLENDSPACE_FREEFORM_DIRECTIONAL; d->count = 2; d->dims = 4; }
static void nine_dims(sn_blendspace_def *d) { d->count = 1; d->dims = 9; }
static void zero_dims(sn_blendspace_def *d) { d->dims = 0; }
static void duplicates(sn_blendspace_def *d) { d->points = dup_pts; d->count = 3; }
static void not_finite(sn_blendspace_def *d) { d->points = nan_pts; d->count = 2; }
static void too_large(sn_blendspace_def *d) { d->points = huge_pts; d->count = 2; }
static void too_close(sn_blendspace_def *d) { d->points = close_pts; d->count = 2; }
static void squashed(sn_blendspace_def *d) { d->mode = SN_BLENDSPACE_TRIANGULATED; d->points = squashed_pts; }
static void near_directions(sn_blendspace_def *d) { d->mode = SN_BLENDSPACE_SIMPLE_DIRECTIONAL; d->points = near_pts; }
static void half_turn_gap(sn_blendspace_def *d) { d->mode = SN_BLENDSPACE_SIMPLE_DIRECTIONAL; d->points = gap_pts; d->count = 3; }
static void negative_alpha(sn_blendspace_def *d) { d->alpha = -1; }
static void nan_alpha(sn_blendspace_def *d) { d->alpha = nan_pts[3]; }
static void zero_power(sn_blendspace_def *d) { d->power = 0; }
static void thin_grid(sn_blendspace_def *d) { d->grid_rows = SN_BLENDSPACE_MIN_GRID - 1; }
static void wide_grid(sn_blendspace_def *d) { d->grid_cols = SN_BLENDSPACE_MAX_GRID + 1; }

FIXTURE_CASE_TYPE(def_case, sn_blendspace_def);

static const def_case bad_defs[] = {
    {"no points", no_count, "no points"},
    {"no point array", no_array, "no points"},
    {"too many points", too_many, "point count 1025 is out of range (1 .. 1024)"},
    {"unknown mode", bad_mode, "unknown mode 99"},
    {"a 1d space of one point", line_of_one, "mode '1d' needs at least 2 points (got 1)"},
    {"a triangulation of one point", triangle_of_one, "mode 'triangulated' needs at least 2 points"},
    {"a grid of one point", grid_of_one, "mode 'grid' needs at least 2 points"},
    {"two directions", two_directions, "needs at least 3 directions (got 2)"},
    {"1d over 2-D points", line_in_2d, "mode '1d' needs 1-D points (got 2-D)"},
    {"polar bands in 4-D", polar_in_4d, "mode 'freeform_directional' needs 2-D points (got 4-D)"},
    {"nine dimensions", nine_dims, "dimension 9 is out of range (1 .. 8) for mode 'idw'"},
    {"no dimensions", zero_dims, "dimension 0 is out of range (1 .. 8)"},
    {"duplicate points", duplicates, "duplicate points 2 and 3"},
    {"a NaN coordinate", not_finite, "coordinate 2 of point 2 is not finite"},
    {"a huge coordinate", too_large, "coordinate 1 of point 1 is too large (at most 1e+150 in magnitude)"},
    {"points closer than DBL_MIN", too_close, "points 1 and 2 are too close together"},
    {"points that normalising merges", squashed, "points 2 and 3 coincide once the axes are normalised"},
    {"directions 0.6 degrees apart", near_directions, "points 1 and 2 are less than 2 degrees apart in direction"},
    {"a half-turn gap", half_turn_gap, "a gap of 180 degrees between the directions of points 3 and 1"},
    {"a negative alpha", negative_alpha, "option 'alpha' must be positive and finite (got -1)"},
    {"a NaN alpha", nan_alpha, "option 'alpha' must be positive and finite"},
    {"a zero power", zero_power, "option 'power' must be positive and finite (got 0)"},
    {"a grid one row high", thin_grid, "option 'grid' 5x1 is out of range (2 .. 256 columns and rows)"},
    {"a grid too wide", wide_grid, "option 'grid' 257x5 is out of range (2 .. 256 columns and rows)"},
};

/* size and init refuse what validate refuses, with the same message */
static sn_status size_of(const sn_blendspace_def *d, sn_error *err) {
    return sn_blendspace_size(d, err) == 0 ? err->code : SN_OK;
}

static sn_status init_of(const sn_blendspace_def *d, sn_error *err) {
    return sn_blendspace_init(block, sizeof block, d, err);
}

static void test_invalid_definitions_refused(void) {
    nan_pts[3] = nan_pts[3] / nan_pts[3];
    REFUSE_CASES(bad_defs, sn_blendspace_def, valid_def, sn_blendspace_validate);
    REFUSE_CASES(bad_defs, sn_blendspace_def, valid_def, size_of);
    REFUSE_CASES(bad_defs, sn_blendspace_def, valid_def, init_of);
    ENSURE(sn_blendspace_validate(NULL, NULL) == SN_EINVAL);
}

static void test_bad_memory_and_inputs_refused(void) {
    double in[2] = {0, 0}, w[8];
    sn_blendspace_def def;
    sn_error err;
    size_t size;
    const sn_blendspace *bs = (const sn_blendspace *)block;
    valid_def(&def);
    size = sn_blendspace_size(&def, &err);
    ENSURE(sn_blendspace_init(block, size - 1, &def, &err) == SN_ENOMEM && strstr(err.msg, "bytes (got"));
    ENSURE(sn_blendspace_init(NULL, size, &def, &err) == SN_ENOMEM);
    ENSURE(sn_blendspace_init((char *)block + 4, sizeof block - 8, &def, &err) == SN_ENOMEM &&
           strstr(err.msg, "8-byte aligned"));
    ENSURE(sn_blendspace_init(block, size, &def, &err) == SN_OK);
    ENSURE(sn_blendspace_weights(bs, in, 1, w, &err) == SN_EINVAL && strstr(err.msg, "expected 2, got 1"));
    in[1] = nan_pts[3];
    ENSURE(sn_blendspace_weights(bs, in, 2, w, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_blendspace_point(bs, 4) == NULL && sn_blendspace_point(bs, -1) == NULL);
    ENSURE(sn_blendspace_point(bs, 3)[0] == -1);
    ENSURE(sn_blendspace_mode_name((sn_blendspace_mode)99) == NULL);
}

static void test_def_init_fills_every_field(void) {
    sn_blendspace_def def;
    sn_error err;
    memset(&def, 0x5a, sizeof def);
    sn_blendspace_def_init(&def);
    ENSURE(def.mode == SN_BLENDSPACE_1D && def.count == 0 && def.dims == 1 && def.points == NULL);
    ENSURE(def.alpha == 2 && def.power == 4 && def.normalize_axes == 1 && def.normalize == 0);
    ENSURE(def.grid_cols == 5 && def.grid_rows == 5);
    ENSURE(sn_blendspace_size(&def, &err) == 0 && strcmp(err.msg, "no points") == 0 && err.arg == 1);
}

/* ---- memory ---- */

/* Every mode at the limits: the block fits SN_BLENDSPACE_MAX_SIZE, the largest comes close to
   it, and the space builds in a block of that size at an address that is 8 modulo 16. */
static void test_block_sizes_at_the_limits(void) {
    static double pts[SN_BLENDSPACE_MAX_POINTS * SN_BLENDSPACE_MAX_DIMS], circle[2 * 180];
    size_t largest = 0;
    int m, i;
    for (i = 0; i < SN_BLENDSPACE_MAX_POINTS * SN_BLENDSPACE_MAX_DIMS; i++) pts[i] = rnd(-1, 1);
    for (i = 1; i < 180; i++) { /* the origin, then 179 directions just over 2 degrees apart */
        circle[2 * i] = cos(i * 2 * PI / 179);
        circle[2 * i + 1] = sin(i * 2 * PI / 179);
    }
    for (m = 0; m < SN_BLENDSPACE_MODES; m++) {
        sn_blendspace_def def;
        sn_error err;
        size_t size;
        int many = m == SN_BLENDSPACE_FREEFORM_CARTESIAN || m == SN_BLENDSPACE_IDW || m == SN_BLENDSPACE_DIRECT;
        void *mem;
        def = def_of((sn_blendspace_mode)m, pts, SN_BLENDSPACE_MAX_POINTS, many ? SN_BLENDSPACE_MAX_DIMS : m == 0 ? 1 : 2);
        def.grid_cols = def.grid_rows = SN_BLENDSPACE_MAX_GRID;
        if (m == SN_BLENDSPACE_SIMPLE_DIRECTIONAL) {
            def.points = circle;
            def.count = 180;
        }
        size = sn_blendspace_size(&def, &err);
        ENSURE(size > 0 && size <= SN_BLENDSPACE_MAX_SIZE);
        if (size > largest) largest = size;
        mem = fixture_block(size);
        ENSURE(mem != NULL && (uintptr_t)mem % 16 == 8);
        if (mem != NULL && sn_blendspace_init(mem, size, &def, &err) == SN_OK) {
            const int *tris;
            ENSURE((uintptr_t)sn_blendspace_point((sn_blendspace *)mem, 0) % 16 == 0);
            if (sn_blendspace_triangles((sn_blendspace *)mem, &tris) > 0) ENSURE((uintptr_t)tris % 16 == 0);
        } else {
            ENSURE(0);
        }
        fixture_free();
    }
    ENSURE(largest > SN_BLENDSPACE_MAX_SIZE - 1024);
}

int main(void) {
    RUN(test_predicates_are_exact);
    RUN(test_delaunay_random_and_degenerate_sets);
    RUN(test_delaunay_ignores_point_order);
    RUN(test_modes_interpolate_and_sum_to_one);
    RUN(test_freeform_cartesian_follows_the_formula);
    RUN(test_triangulated_reproduces_linear_functions);
    RUN(test_grid_stores_triangulated_weights);
    RUN(test_grid_is_the_dense_bilinear_mix);
    RUN(test_direct_and_simple_directional);
    RUN(test_wedges_give_the_weights);
    RUN(test_invalid_definitions_refused);
    RUN(test_bad_memory_and_inputs_refused);
    RUN(test_def_init_fills_every_field);
    RUN(test_block_sizes_at_the_limits);
    return END("test_blendspace");
}
