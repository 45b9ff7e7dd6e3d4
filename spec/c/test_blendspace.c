/* C-only tests of src/core/blendspace.c and src/core/delaunay.c: no Lua involved. */
#include <stdlib.h>
#include <string.h>

#include "blendspace.h"
#include "delaunay.h"
#include "ensure.h"

#define MAXN 200

static unsigned long seed = 4242;

static double rnd(double lo, double hi) { return lo + (hi - lo) * ensure_random(&seed); }

/* one blend space in static memory, rebuilt by each call */
static double block[1 << 18];

static sn_blendspace_def def_of(sn_blendspace_mode mode, const double *pts, int n, int dims) {
    sn_blendspace_def def;
    sn_blendspace_def_defaults(&def);
    def.mode = mode;
    def.points = pts;
    def.count = n;
    def.dims = dims;
    return def;
}

static sn_blendspace *make(sn_blendspace_mode mode, const double *pts, int n, int dims) {
    sn_blendspace_def def = def_of(mode, pts, n, dims);
    sn_blendspace *bs = NULL;
    sn_error err;
    ENSURE(sn_blendspace_size(&def) <= sizeof block);
    if (sn_blendspace_init(block, sizeof block, &def, &bs, &err) != SN_OK) {
        fprintf(stderr, "init failed: %s\n", err.msg);
        return NULL;
    }
    return bs;
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
            int j = (int)(ensure_random(&seed) * (i + 1)), tmp = perm[i];
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
    sn_blendspace_def def = def_of(SN_BLENDSPACE_GRID, pts, 6, 2);
    sn_blendspace *grid = NULL, *tri = NULL;
    static double other[4096];
    int c, r, i;
    def.grid_cols = 5;
    def.grid_rows = 3;
    ENSURE(sn_blendspace_init(block, sizeof block, &def, &grid, NULL) == SN_OK);
    def.mode = SN_BLENDSPACE_TRIANGULATED;
    ENSURE(sn_blendspace_init(other, sizeof other, &def, &tri, NULL) == SN_OK);
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

static sn_status try_def(sn_blendspace_mode mode, const double *pts, int n, int dims, sn_error *err) {
    sn_blendspace_def def = def_of(mode, pts, n, dims);
    sn_blendspace *bs;
    return sn_blendspace_init(block, sizeof block, &def, &bs, err);
}

static void test_invalid_inputs_refused(void) {
    double ok[] = {0, 0, 1, 0, 0, 1, -1, 0}, dup[] = {0, 0, 1, 0, 1, 0}, nan[] = {0, 0, 1, 0};
    double near[] = {1, 0, 1, 0.01, 0, 1, -1, 0}, gap[] = {1, 0, 0, 1, -1, 0}, big[] = {1e200, 0, 1, 1};
    double in[2] = {0, 0}, w[8];
    sn_blendspace_def def;
    sn_blendspace *bs = NULL;
    sn_error err;
    nan[3] = nan[3] / nan[3];
    ENSURE(try_def(SN_BLENDSPACE_IDW, ok, 0, 2, &err) == SN_EINVAL && strstr(err.msg, "no points") && err.arg == 1);
    ENSURE(try_def(SN_BLENDSPACE_1D, ok, 1, 1, &err) == SN_EINVAL && strstr(err.msg, "at least 2 points"));
    ENSURE(try_def(SN_BLENDSPACE_TRIANGULATED, ok, 1, 2, &err) == SN_EINVAL);
    ENSURE(try_def(SN_BLENDSPACE_GRID, ok, 1, 2, &err) == SN_EINVAL);
    ENSURE(try_def(SN_BLENDSPACE_SIMPLE_DIRECTIONAL, ok, 3, 2, &err) == SN_EINVAL && strstr(err.msg, "3 directions"));
    ENSURE(try_def(SN_BLENDSPACE_IDW, dup, 3, 2, &err) == SN_EINVAL && strstr(err.msg, "duplicate points 2 and 3"));
    ENSURE(try_def(SN_BLENDSPACE_IDW, nan, 2, 2, &err) == SN_EINVAL && strstr(err.msg, "coordinate 2 of point 2"));
    ENSURE(try_def(SN_BLENDSPACE_IDW, big, 2, 2, &err) == SN_EINVAL && strstr(err.msg, "too large"));
    ENSURE(try_def(SN_BLENDSPACE_SIMPLE_DIRECTIONAL, near, 4, 2, &err) == SN_EINVAL &&
           strstr(err.msg, "points 1 and 2 are less than 2 degrees apart"));
    ENSURE(try_def(SN_BLENDSPACE_SIMPLE_DIRECTIONAL, gap, 3, 2, &err) == SN_EINVAL && strstr(err.msg, "gap of 180.0"));
    ENSURE(try_def(SN_BLENDSPACE_1D, ok, 4, 2, &err) == SN_EINVAL && strstr(err.msg, "needs 1-D points (got 2-D)"));
    ENSURE(try_def(SN_BLENDSPACE_FREEFORM_DIRECTIONAL, ok, 2, 4, &err) == SN_EINVAL);
    ENSURE(try_def(SN_BLENDSPACE_IDW, ok, 1, 9, &err) == SN_EINVAL && strstr(err.msg, "1-D to 8-D"));
    ENSURE(try_def(SN_BLENDSPACE_IDW, ok, SN_BLENDSPACE_MAX_POINTS + 1, 1, &err) == SN_EINVAL);
    ENSURE(try_def((sn_blendspace_mode)99, ok, 4, 2, &err) == SN_EINVAL && strstr(err.msg, "unknown mode"));
    def = def_of(SN_BLENDSPACE_IDW, ok, 4, 2);
    def.power = 0;
    ENSURE(sn_blendspace_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "'power'"));
    ENSURE(sn_blendspace_size(&def) == 0);
    def.power = 4;
    def.alpha = -1;
    ENSURE(sn_blendspace_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "'alpha'"));
    def.alpha = 2;
    def.grid_rows = 1;
    ENSURE(sn_blendspace_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "at least 2x2 (got 5x1)"));
    def.grid_rows = SN_BLENDSPACE_MAX_GRID + 1;
    ENSURE(sn_blendspace_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "at most"));
    def.grid_rows = 5;
    ENSURE(sn_blendspace_init(block, sn_blendspace_size(&def) - 1, &def, &bs, &err) == SN_ENOMEM);
    ENSURE(sn_blendspace_init((char *)block + 4, sizeof block - 8, &def, &bs, &err) == SN_ENOMEM);
    ENSURE(sn_blendspace_init(block, sn_blendspace_size(&def), &def, &bs, &err) == SN_OK);
    if (bs == NULL) return;
    ENSURE(sn_blendspace_weights(bs, in, 1, w, &err) == SN_EINVAL && strstr(err.msg, "expected 2, got 1"));
    in[1] = nan[3];
    ENSURE(sn_blendspace_weights(bs, in, 2, w, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_blendspace_point(bs, 4) == NULL && sn_blendspace_point(bs, -1) == NULL);
    ENSURE(sn_blendspace_point(bs, 3)[0] == -1);
    ENSURE(sn_blendspace_mode_name((sn_blendspace_mode)99) == NULL);
}

int main(void) {
    RUN(test_predicates_are_exact);
    RUN(test_delaunay_random_and_degenerate_sets);
    RUN(test_delaunay_ignores_point_order);
    RUN(test_modes_interpolate_and_sum_to_one);
    RUN(test_freeform_cartesian_follows_the_formula);
    RUN(test_triangulated_reproduces_linear_functions);
    RUN(test_grid_stores_triangulated_weights);
    RUN(test_direct_and_simple_directional);
    RUN(test_invalid_inputs_refused);
    return END("test_blendspace");
}
