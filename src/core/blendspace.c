#include "blendspace.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "delaunay.h"

#define PI 3.14159265358979323846
#define MAX_COORD SN_BLENDSPACE_MAX_COORD
#define DEG (PI / 180.0)
#define INSIDE_TOL 1e-12  /* barycentric slack that still counts as inside a triangle */
#define LINE_TOL 1e-10    /* points this close to a line (relative to its length) count as on it */
/* simple_directional: with every radius strictly between these two the quick weights cannot
   overflow (inputs are clamped to MAX_COORD; wedges are under 180 degrees) */
#define PLAIN_R_LO 1e-100
#define PLAIN_R_HI 1e100

/* The block: this header, then arrays at the byte offsets below, counted from the start of the
   block (0 when unused); the first array starts at a 16-byte boundary and each is padded to 16. */
struct sn_blendspace {
    sn_blendspace_mode mode;
    int n, dims, inputs;
    int centre;          /* directional modes: the point at the origin, -1 when none */
    int ndir;            /* simple_directional: number of other points (directions) */
    int ntri, nhull;     /* triangulated, grid: triangles and hull edges, 0 triangles on a line */
    int normalize;       /* direct */
    int cols, rows;      /* grid */
    double alpha, power;
    double lo[2], scale[2];              /* triangulated, grid: u = (x - lo) * scale */
    double glo[2], ghi[2], gscale[2];    /* grid: bounding box, cells per unit */
    size_t points;                       /* n * dims: the points as given */
    size_t norm;                         /* triangulated, grid: n * dims normalised points */
    size_t lorg, ldir, lt, lorder;       /* line: origin, direction / |d|^2, sorted t, order */
    size_t dang, didx, drad;             /* simple_directional: sorted pseudo-angles, their points, radii */
    size_t dunit, dfac;                  /* simple_directional: sorted unit directions; per wedge 1 / (r det) */
    int dplain;                          /* simple_directional: every radius within PLAIN_R (the quick weights) */
    size_t pairs;                        /* freeform_cartesian: n * (n - 1) * dims */
    size_t flen, fpair;                  /* freeform_directional: 2n, then 3 n^2 */
    size_t tv, tnb, tmap, hv, hmap;      /* triangles, neighbours, maps; hull edges, their maps */
    size_t gidx, gwt;                    /* grid: per grid point, 3 point indices and their weights,
                                            the triangulated weights there (spare slots: weight 0) */
    size_t scratch;                      /* triangulation scratch (construction only) */
    size_t size;                         /* bytes of the block in use (from its start) */
};

#define ARR(bs, off, type) ((type *)((char *)(bs) + (bs)->off))
#define CARR(bs, off, type) ((const type *)((const char *)(bs) + (bs)->off))

static const char *const mode_names[SN_BLENDSPACE_MODES] = {
    "1d", "simple_directional", "freeform_cartesian", "freeform_directional",
    "triangulated", "grid", "idw", "direct"};

void sn_blendspace_def_init(sn_blendspace_def *def) {
    def->mode = SN_BLENDSPACE_1D;
    def->count = 0;
    def->dims = 1;
    def->points = NULL;
    def->alpha = 2.0;
    def->power = 4.0;
    def->normalize_axes = 1;
    def->normalize = 0;
    def->grid_cols = 5;
    def->grid_rows = 5;
}

const char *sn_blendspace_mode_name(sn_blendspace_mode mode) {
    if ((unsigned)mode >= (unsigned)SN_BLENDSPACE_MODES) return NULL;
    return mode_names[mode];
}

sn_status sn_blendspace_mode_parse(const char *name, sn_blendspace_mode *mode) {
    int m;
    for (m = 0; m < (int)SN_BLENDSPACE_MODES; m++)
        if (strcmp(name, mode_names[m]) == 0) {
            *mode = (sn_blendspace_mode)m;
            return SN_OK;
        }
    return SN_EINVAL;
}

/* ---- validation ---- */

static const double *pt(const sn_blendspace_def *def, int i) { return def->points + (size_t)i * def->dims; }

static int is_origin(const double *p) { return p[0] == 0.0 && p[1] == 0.0; }

static double dist2(const double *a, const double *b, int dims) {
    double s = 0.0;
    int k;
    for (k = 0; k < dims; k++) s += (a[k] - b[k]) * (a[k] - b[k]);
    return s;
}

static sn_status bad(sn_error *err, const char *fmt, int a, int b) {
    return sn_fail_arg(err, 1, SN_EINVAL, fmt, a, b);
}

static sn_status check_shape(const sn_blendspace_def *def, sn_error *err) {
    enum { D = SN_BLENDSPACE_MAX_DIMS };
    static const int lo[SN_BLENDSPACE_MODES] = {1, 2, 1, 2, 1, 2, 1, 1};
    static const int hi[SN_BLENDSPACE_MODES] = {1, 2, D, 2, 2, 2, D, D};
    const char *name = sn_blendspace_mode_name(def->mode);
    int m = (int)def->mode, least;
    if (name == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "unknown mode %d", m);
    if (def->count < 1 || def->points == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no points");
    if (def->count > SN_BLENDSPACE_MAX_POINTS)
        return bad(err, "point count %d is out of range (1 .. %d)", def->count, SN_BLENDSPACE_MAX_POINTS);
    least = (def->mode == SN_BLENDSPACE_1D || def->mode == SN_BLENDSPACE_TRIANGULATED ||
             def->mode == SN_BLENDSPACE_GRID) ? 2 : 1;
    if (def->count < least)
        return sn_fail_arg(err, 1, SN_EINVAL, "mode '%s' needs at least %d points (got %d)", name, least,
                           def->count);
    if (def->dims < lo[m] || def->dims > hi[m]) {
        if (lo[m] == hi[m])
            return sn_fail_arg(err, 1, SN_EINVAL, "mode '%s' needs %d-D points (got %d-D)", name, lo[m], def->dims);
        return sn_fail_arg(err, 1, SN_EINVAL, "dimension %d is out of range (%d .. %d) for mode '%s'", def->dims,
                           lo[m], hi[m], name);
    }
    return SN_OK;
}

static sn_status check_options(const sn_blendspace_def *def, sn_error *err) {
    if (!sn_isfinite(def->alpha) || def->alpha <= 0.0)
        return sn_fail_arg(err, 1, SN_EINVAL, "option 'alpha' must be positive and finite (got %g)", def->alpha);
    if (!sn_isfinite(def->power) || def->power <= 0.0)
        return sn_fail_arg(err, 1, SN_EINVAL, "option 'power' must be positive and finite (got %g)", def->power);
    if (def->grid_cols < SN_BLENDSPACE_MIN_GRID || def->grid_rows < SN_BLENDSPACE_MIN_GRID ||
        def->grid_cols > SN_BLENDSPACE_MAX_GRID || def->grid_rows > SN_BLENDSPACE_MAX_GRID)
        return sn_fail_arg(err, 1, SN_EINVAL, "option 'grid' %dx%d is out of range (%d .. %d columns and rows)",
                           def->grid_cols, def->grid_rows, SN_BLENDSPACE_MIN_GRID, SN_BLENDSPACE_MAX_GRID);
    return SN_OK;
}

static sn_status check_points(const sn_blendspace_def *def, sn_error *err) {
    int i, j, k;
    for (i = 0; i < def->count; i++)
        for (k = 0; k < def->dims; k++) {
            double x = pt(def, i)[k];
            if (!sn_isfinite(x)) return bad(err, "coordinate %d of point %d is not finite", k + 1, i + 1);
            if (fabs(x) > MAX_COORD)
                return sn_fail_arg(err, 1, SN_EINVAL, "coordinate %d of point %d is too large (at most %g in magnitude)",
                                   k + 1, i + 1, MAX_COORD);
        }
    for (j = 1; j < def->count; j++)
        for (i = 0; i < j; i++) {
            double d = dist2(pt(def, i), pt(def, j), def->dims);
            if (d == 0.0) return bad(err, "duplicate points %d and %d", i + 1, j + 1);
            if (d < DBL_MIN && def->mode != SN_BLENDSPACE_DIRECT)
                return bad(err, "points %d and %d are too close together", i + 1, j + 1);
        }
    return SN_OK;
}

/* the counter-clockwise angle from direction a to direction b, in [0, 2 pi) */
static double ccw_angle(const double *a, const double *b) {
    double t = atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1]);
    return t < 0.0 ? t + 2.0 * PI : t;
}

static sn_status check_directions(const sn_blendspace_def *def, sn_error *err) {
    int i, j, ndir = 0;
    for (i = 0; i < def->count; i++) ndir += !is_origin(pt(def, i));
    if (ndir < 3)
        return sn_fail_arg(err, 1, SN_EINVAL, "mode 'simple_directional' needs at least 3 directions (got %d)", ndir);
    for (i = 0; i < def->count; i++) {
        double gap = 2.0 * PI;
        int next = -1;
        if (is_origin(pt(def, i))) continue;
        for (j = 0; j < def->count; j++) {
            double a;
            if (j == i || is_origin(pt(def, j))) continue;
            a = ccw_angle(pt(def, i), pt(def, j));
            if (a < SN_BLENDSPACE_MIN_DIRECTION_DEGREES * DEG || 2.0 * PI - a < SN_BLENDSPACE_MIN_DIRECTION_DEGREES * DEG) {
                int lo = i < j ? i : j, hi = i < j ? j : i;
                return sn_fail_arg(err, 1, SN_EINVAL, "points %d and %d are less than %g degrees apart in direction",
                                   lo + 1, hi + 1, SN_BLENDSPACE_MIN_DIRECTION_DEGREES);
            }
            if (a < gap) {
                gap = a;
                next = j;
            }
        }
        if (gap >= PI)
            return sn_fail_arg(err, 1, SN_EINVAL,
                               "a gap of %g degrees between the directions of points %d and %d "
                               "(less than 180 needed)", gap / DEG, i + 1, next + 1);
    }
    return SN_OK;
}

/* the bounding box of the first `dims` (at most 2) coordinates, and the normalising map */
static void box_of(const sn_blendspace_def *def, int normalize, double *lo, double *hi, double *scale) {
    int i, k, e;
    double extent = 0.0;
    for (k = 0; k < def->dims; k++) {
        lo[k] = hi[k] = pt(def, 0)[k];
        for (i = 1; i < def->count; i++) {
            double x = pt(def, i)[k];
            if (x < lo[k]) lo[k] = x;
            if (x > hi[k]) hi[k] = x;
        }
        /* an extent so small that its reciprocal overflows (subnormal) counts as none */
        scale[k] = (normalize && hi[k] > lo[k] && sn_isfinite(1.0 / (hi[k] - lo[k]))) ? 1.0 / (hi[k] - lo[k]) : 1.0;
        if (hi[k] - lo[k] > extent) extent = hi[k] - lo[k];
    }
    if (!normalize && extent > 0.0) {
        /* one power of two for every axis, so that the largest extent is in [0.5, 1): exact, and
           uniform, so Delaunay triangles and barycentric weights are those of the points as given,
           but the geometric predicates (up to fourth powers) cannot overflow or underflow */
        (void)frexp(extent, &e);
        for (k = 0; k < def->dims; k++) scale[k] = ldexp(1.0, -e);
    }
}

static void normalise(const double *lo, const double *scale, int dims, const double *x, double *u) {
    int k;
    for (k = 0; k < dims; k++) u[k] = (x[k] - lo[k]) * scale[k];
}

static sn_status check_normalised(const sn_blendspace_def *def, sn_error *err) {
    double lo[2], hi[2], scale[2], a[2], b[2];
    int i, j;
    if (!def->normalize_axes) return SN_OK;
    box_of(def, 1, lo, hi, scale);
    for (j = 1; j < def->count; j++)
        for (i = 0; i < j; i++) {
            normalise(lo, scale, def->dims, pt(def, i), a);
            normalise(lo, scale, def->dims, pt(def, j), b);
            if (dist2(a, b, def->dims) < DBL_MIN)
                return bad(err, "points %d and %d coincide once the axes are normalised", i + 1, j + 1);
        }
    return SN_OK;
}

sn_status sn_blendspace_validate(const sn_blendspace_def *def, sn_error *err) {
    sn_status s;
    if (def == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no definition");
    if ((s = check_shape(def, err)) != SN_OK) return s;
    if ((s = check_options(def, err)) != SN_OK) return s;
    if ((s = check_points(def, err)) != SN_OK) return s;
    if (def->mode == SN_BLENDSPACE_SIMPLE_DIRECTIONAL) return check_directions(def, err);
    if (def->mode == SN_BLENDSPACE_TRIANGULATED || def->mode == SN_BLENDSPACE_GRID)
        return check_normalised(def, err);
    return SN_OK;
}

/* ---- layout ---- */

static size_t take(size_t *at, size_t bytes) {
    size_t off = *at;
    *at += SN_ALIGN16(bytes);
    return off;
}

/* sets the offsets of every array for `def` (already validated), the first at byte `start` of
   the block; returns the block size */
static size_t layout(sn_blendspace *bs, const sn_blendspace_def *def, size_t start) {
    size_t at = start, n = (size_t)def->count, d = (size_t)def->dims, D = sizeof(double), I = sizeof(int);
    size_t t = (size_t)sn_delaunay_max_triangles(def->count);
    memset(bs, 0, sizeof *bs);
    bs->points = take(&at, n * d * D);
    switch (def->mode) {
    case SN_BLENDSPACE_SIMPLE_DIRECTIONAL:
        bs->dang = take(&at, n * D);
        bs->didx = take(&at, n * I);
        bs->drad = take(&at, n * D);
        bs->dunit = take(&at, 2 * n * D);
        bs->dfac = take(&at, 2 * n * D);
        break;
    case SN_BLENDSPACE_FREEFORM_CARTESIAN:
        bs->pairs = take(&at, n * (n - 1) * d * D);
        break;
    case SN_BLENDSPACE_FREEFORM_DIRECTIONAL:
        bs->flen = take(&at, 2 * n * D);
        bs->fpair = take(&at, 3 * n * n * D);
        break;
    case SN_BLENDSPACE_1D:
    case SN_BLENDSPACE_TRIANGULATED:
    case SN_BLENDSPACE_GRID:
        bs->lorg = take(&at, d * D);
        bs->ldir = take(&at, d * D);
        bs->lt = take(&at, n * D);
        bs->lorder = take(&at, n * I);
        if (def->mode == SN_BLENDSPACE_1D) break;
        bs->norm = take(&at, n * d * D);
        bs->tv = take(&at, 3 * t * I);
        bs->tnb = take(&at, 3 * t * I);
        bs->tmap = take(&at, 6 * t * D);
        bs->hv = take(&at, 2 * n * I);
        bs->hmap = take(&at, 5 * n * D);
        bs->scratch = take(&at, sn_delaunay_scratch_size(def->count));
        if (def->mode == SN_BLENDSPACE_GRID) {
            size_t nodes = (size_t)def->grid_cols * (size_t)def->grid_rows;
            bs->gidx = take(&at, 3 * nodes * I);
            bs->gwt = take(&at, 3 * nodes * D);
        }
        break;
    default:
        break;
    }
    bs->size = at;
    return at;
}

/* The arrays start at the first 16-byte boundary after the header: within 15 bytes of its end,
   which the size allows for, whatever the address of the block. */
static size_t first_array(const void *mem) {
    size_t addr = (size_t)(uintptr_t)mem;
    return SN_ALIGN16(addr + sizeof(sn_blendspace)) - addr;
}

size_t sn_blendspace_size(const sn_blendspace_def *def, sn_error *err) {
    sn_blendspace hdr;
    if (sn_blendspace_validate(def, err) != SN_OK) return 0;
    return layout(&hdr, def, sizeof(sn_blendspace) + 15);
}

/* ---- builders ---- */

/* points (n of them, `dims` coordinates each) sorted along the line through the
   lexicographically smallest and largest: the piecewise-linear evaluator */
static void build_line(sn_blendspace *bs, const double *pts) {
    int n = bs->n, dims = bs->dims, i, k, lo = 0, hi = 0;
    double *org = ARR(bs, lorg, double), *dir = ARR(bs, ldir, double), *lt = ARR(bs, lt, double), dd = 0.0;
    int *order = ARR(bs, lorder, int);
    for (i = 1; i < n; i++) {
        for (k = 0; k < dims && pts[i * dims + k] == pts[lo * dims + k]; k++) {}
        if (k < dims && pts[i * dims + k] < pts[lo * dims + k]) lo = i;
        for (k = 0; k < dims && pts[i * dims + k] == pts[hi * dims + k]; k++) {}
        if (k < dims && pts[i * dims + k] > pts[hi * dims + k]) hi = i;
    }
    for (k = 0; k < dims; k++) {
        org[k] = pts[lo * dims + k];
        dir[k] = pts[hi * dims + k] - org[k];
        dd += dir[k] * dir[k];
    }
    for (k = 0; k < dims; k++) dir[k] /= dd;
    for (i = 0; i < n; i++) {
        double t = 0.0;
        int j;
        for (k = 0; k < dims; k++) t += (pts[i * dims + k] - org[k]) * dir[k];
        for (j = i; j > 0 && lt[j - 1] > t; j--) { /* insertion sort by t */
            lt[j] = lt[j - 1];
            order[j] = order[j - 1];
        }
        lt[j] = t;
        order[j] = i;
    }
}

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

static void build_triangulated(sn_blendspace *bs, const sn_blendspace_def *def) {
    double hi[2], *u = ARR(bs, norm, double), *map = ARR(bs, tmap, double), *hmap = ARR(bs, hmap, double);
    int *tv = ARR(bs, tv, int), *tnb = ARR(bs, tnb, int), *hv = ARR(bs, hv, int), i, k;
    box_of(def, def->normalize_axes, bs->lo, hi, bs->scale);
    for (i = 0; i < bs->n; i++) normalise(bs->lo, bs->scale, bs->dims, pt(def, i), u + i * bs->dims);
    build_line(bs, u);
    if (bs->dims == 1 || on_line(u, bs->n)) return;
    bs->ntri = sn_delaunay_build(u, bs->n, ARR(bs, scratch, char), tv, tnb);
    for (i = 0; i < bs->ntri; i++) {
        const double *a = u + 2 * tv[3 * i], *b = u + 2 * tv[3 * i + 1], *c = u + 2 * tv[3 * i + 2];
        double e1x = b[0] - a[0], e1y = b[1] - a[1], e2x = c[0] - a[0], e2y = c[1] - a[1];
        double det = e1x * e2y - e1y * e2x, *m = map + 6 * i;
        m[0] = a[0]; m[1] = a[1];
        m[2] = e2y / det; m[3] = -e2x / det; m[4] = -e1y / det; m[5] = e1x / det;
        if (det == 0.0 || !sn_isfinite(m[2] + m[3] + m[4] + m[5])) m[0] = m[1] = NAN; /* never inside */
        for (k = 0; k < 3; k++)
            if (tnb[3 * i + k] < 0) {
                int ea = tv[3 * i + (k + 1) % 3], eb = tv[3 * i + (k + 2) % 3], h = bs->nhull++;
                double dx = u[2 * eb] - u[2 * ea], dy = u[2 * eb + 1] - u[2 * ea + 1];
                hv[2 * h] = ea; hv[2 * h + 1] = eb;
                hmap[5 * h] = u[2 * ea]; hmap[5 * h + 1] = u[2 * ea + 1];
                hmap[5 * h + 2] = dx; hmap[5 * h + 3] = dy; hmap[5 * h + 4] = 1.0 / (dx * dx + dy * dy);
            }
    }
}

/* directions are sorted by it and an input's wedge is found by it */
double sn_blendspace_pseudo_angle(double x, double y) {
    if (y >= 0.0) return x >= 0.0 ? y / (x + y) : 1.0 - x / (y - x);
    return x < 0.0 ? -2.0 + y / (x + y) : -1.0 + x / (x - y);
}

static void build_directional(sn_blendspace *bs) {
    const double *p = ARR(bs, points, double);
    double *ang = ARR(bs, dang, double), *rad = ARR(bs, drad, double);
    double *unit = ARR(bs, dunit, double), *fac = ARR(bs, dfac, double);
    int *idx = ARR(bs, didx, int), i, j;
    bs->dplain = 1;
    for (i = 0; i < bs->n; i++) {
        double a;
        rad[i] = hypot(p[2 * i], p[2 * i + 1]); /* hypot: a square of 1e-200 would underflow */
        if (is_origin(p + 2 * i)) {
            bs->centre = i;
            continue;
        }
        if (!(rad[i] > PLAIN_R_LO && rad[i] < PLAIN_R_HI)) bs->dplain = 0;
        a = sn_blendspace_pseudo_angle(p[2 * i], p[2 * i + 1]);
        for (j = bs->ndir++; j > 0 && ang[j - 1] > a; j--) {
            ang[j] = ang[j - 1];
            idx[j] = idx[j - 1];
        }
        ang[j] = a;
        idx[j] = i;
    }
    for (j = 0; j < bs->ndir; j++) {
        const int ia = idx[j];
        unit[2 * j] = p[2 * ia] / rad[ia];
        unit[2 * j + 1] = p[2 * ia + 1] / rad[ia];
    }
    /* wedge j runs from direction j to direction j + 1 (the last back to the first): the weights of
       its ends are (b^ x p) / (|a| det) and (a^ x p) / (|b| det), det = a^ x b^ */
    for (j = 0; j < bs->ndir; j++) {
        const int k = (j + 1) % bs->ndir;
        const double det = unit[2 * j] * unit[2 * k + 1] - unit[2 * j + 1] * unit[2 * k];
        fac[2 * j] = 1.0 / (rad[idx[j]] * det);
        fac[2 * j + 1] = 1.0 / (rad[idx[k]] * det);
        if (!(det > 0.0 && fac[2 * j] <= DBL_MAX && fac[2 * j + 1] <= DBL_MAX)) bs->dplain = 0;
    }
}

static void build_cartesian(sn_blendspace *bs) {
    const double *p = ARR(bs, points, double);
    double *v = ARR(bs, pairs, double);
    int n = bs->n, d = bs->dims, i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            double dd;
            if (j == i) continue;
            dd = dist2(p + j * d, p + i * d, d);
            for (k = 0; k < d; k++) *v++ = (p[j * d + k] - p[i * d + k]) / dd;
        }
}

/* signed angle from direction a to direction b in (-pi, pi]; 0 when either is zero */
static double signed_angle(double ax, double ay, double bx, double by) {
    double t;
    if ((ax == 0.0 && ay == 0.0) || (bx == 0.0 && by == 0.0)) return 0.0;
    t = atan2(ax * by - ay * bx, ax * bx + ay * by);
    return t == -PI ? PI : t;
}

static void build_freeform_directional(sn_blendspace *bs) {
    const double *p = ARR(bs, points, double);
    double *len = ARR(bs, flen, double), *pair = ARR(bs, fpair, double);
    int n = bs->n, i, j;
    for (i = 0; i < n; i++) {
        len[2 * i] = sqrt(p[2 * i] * p[2 * i] + p[2 * i + 1] * p[2 * i + 1]);
        len[2 * i + 1] = len[2 * i] > 0.0 ? 1.0 / len[2 * i] : 0.0;
        if (len[2 * i] == 0.0) bs->centre = i;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            double *c = pair + 3 * ((size_t)i * n + j), th, m, vr, nsq;
            c[0] = c[1] = c[2] = 0.0;
            if (i == j || len[2 * i] == 0.0 || len[2 * j] == 0.0) continue;
            th = signed_angle(p[2 * i], p[2 * i + 1], p[2 * j], p[2 * j + 1]);
            m = 0.5 * (len[2 * i] + len[2 * j]);
            vr = (len[2 * j] - len[2 * i]) / m;
            nsq = bs->alpha * bs->alpha * th * th + vr * vr;
            c[0] = th;                                   /* theta_ij */
            c[1] = bs->alpha * bs->alpha * th / nsq;     /* term = 1 - theta_ip c1 - (|p| - |p_i|) c2 */
            c[2] = vr / (m * nsq);
        }
}

static void grid_node(const sn_blendspace *bs, int c, int r, double *x) {
    x[0] = c == bs->cols - 1 ? bs->ghi[0] : bs->glo[0] + c * (bs->ghi[0] - bs->glo[0]) / (bs->cols - 1);
    x[1] = r == bs->rows - 1 ? bs->ghi[1] : bs->glo[1] + r * (bs->ghi[1] - bs->glo[1]) / (bs->rows - 1);
}

static int triangulated_sparse(const sn_blendspace *bs, const double *x, int *idx, double *wt);

/* every grid point stores the (at most 3) non-zero triangulated weights there */
static void build_grid(sn_blendspace *bs, const sn_blendspace_def *def) {
    int *gidx = ARR(bs, gidx, int);
    double *gwt = ARR(bs, gwt, double), unused[2];
    int c, r, k;
    bs->cols = def->grid_cols;
    bs->rows = def->grid_rows;
    box_of(def, 1, bs->glo, bs->ghi, unused);
    for (k = 0; k < 2; k++) {
        bs->gscale[k] = bs->ghi[k] > bs->glo[k] ? ((k == 0 ? bs->cols : bs->rows) - 1) / (bs->ghi[k] - bs->glo[k]) : 0.0;
        if (!sn_isfinite(bs->gscale[k])) bs->gscale[k] = 0.0; /* a subnormal extent: no extent */
    }
    for (r = 0; r < bs->rows; r++)
        for (c = 0; c < bs->cols; c++) {
            size_t at = 3 * ((size_t)r * bs->cols + c);
            double x[2];
            grid_node(bs, c, r, x);
            for (k = triangulated_sparse(bs, x, gidx + at, gwt + at); k < 3; k++) {
                gidx[at + k] = gidx[at]; /* a spare slot: weight 0 for the first point */
                gwt[at + k] = 0.0;
            }
        }
}

sn_status sn_blendspace_init(void *mem, size_t size, const sn_blendspace_def *def, sn_error *err) {
    sn_blendspace hdr, *bs = (sn_blendspace *)mem;
    size_t need = sn_blendspace_size(def, err);
    if (need == 0) return err != NULL ? err->code : SN_EINVAL;
    if (mem == NULL || size < need)
        return sn_fail(err, SN_ENOMEM, "blend space needs %lu bytes (got %lu)", (unsigned long)need,
                       (unsigned long)(mem == NULL ? 0 : size));
    if ((uintptr_t)mem % sizeof(double) != 0)
        return sn_fail(err, SN_ENOMEM, "blend space memory must be %d-byte aligned", (int)sizeof(double));
    (void)layout(&hdr, def, first_array(mem));
    memcpy(bs, &hdr, sizeof hdr);
    bs->mode = def->mode;
    bs->n = def->count;
    bs->dims = def->dims;
    bs->inputs = def->mode == SN_BLENDSPACE_DIRECT ? def->count : def->dims;
    bs->centre = -1;
    bs->alpha = def->alpha;
    bs->power = def->power;
    bs->normalize = def->normalize != 0;
    memcpy(ARR(bs, points, double), def->points, (size_t)def->count * def->dims * sizeof(double));
    switch (def->mode) {
    case SN_BLENDSPACE_1D: build_line(bs, def->points); break;
    case SN_BLENDSPACE_SIMPLE_DIRECTIONAL: build_directional(bs); break;
    case SN_BLENDSPACE_FREEFORM_CARTESIAN: build_cartesian(bs); break;
    case SN_BLENDSPACE_FREEFORM_DIRECTIONAL: build_freeform_directional(bs); break;
    case SN_BLENDSPACE_TRIANGULATED: build_triangulated(bs, def); break;
    case SN_BLENDSPACE_GRID:
        build_triangulated(bs, def);
        build_grid(bs, def);
        break;
    default: break;
    }
    return SN_OK;
}

/* ---- evaluation ---- */

static void zero(double *w, int n) {
    int i;
    for (i = 0; i < n; i++) w[i] = 0.0;
}

/* divides by the sum, or spreads evenly when everything is zero */
static void normalise_weights(double *w, int n, double sum) {
    int i;
    if (sum >= 1e-300) {
        double inv = 1.0 / sum;
        for (i = 0; i < n; i++) w[i] *= inv;
    } else if (sum > 0.0) { /* 1/sum would overflow: divide each weight (w[i] <= sum) */
        for (i = 0; i < n; i++) w[i] /= sum;
    } else {
        for (i = 0; i < n; i++) w[i] = 1.0 / n;
    }
}

/* Sparse weights: the modes built on a line or a triangulation give at most 3 non-zero weights,
   returned as (point index, weight) pairs; the count is the return value. */

static int line_sparse(const sn_blendspace *bs, const double *u, int *idx, double *wt) {
    const double *org = CARR(bs, lorg, double), *dir = CARR(bs, ldir, double), *lt = CARR(bs, lt, double);
    const int *order = CARR(bs, lorder, int);
    double t = 0.0, f;
    int k, lo = 0, hi = bs->n - 1;
    for (k = 0; k < bs->dims; k++) t += (u[k] - org[k]) * dir[k];
    if (!(t > lt[0]) || t >= lt[hi]) { /* at or beyond an end */
        idx[0] = order[t > lt[0] ? hi : 0];
        wt[0] = 1.0;
        return 1;
    }
    while (hi - lo > 1) { /* lt[lo] < t < lt[hi] */
        int mid = (lo + hi) / 2;
        if (lt[mid] <= t) lo = mid;
        else hi = mid;
    }
    f = (t - lt[lo]) / (lt[hi] - lt[lo]);
    idx[0] = order[lo];
    wt[0] = 1.0 - f;
    idx[1] = order[hi];
    wt[1] = f;
    return 2;
}

/* the dense weights of k sparse ones */
static void scatter(const int *idx, const double *wt, int k, double *w, int n) {
    int e;
    zero(w, n);
    for (e = 0; e < k; e++) w[idx[e]] = wt[e];
}

static void line_weights(const sn_blendspace *bs, const double *u, double *w) {
    int idx[2];
    double wt[2];
    scatter(idx, wt, line_sparse(bs, u, idx, wt), w, bs->n);
}

static void simple_directional_weights(const sn_blendspace *bs, const double *p, double *w) {
    const double *ang = CARR(bs, dang, double), *rad = CARR(bs, drad, double), *unit = CARR(bs, dunit, double);
    const double *ha, *hb;
    const int *idx = CARR(bs, didx, int);
    double th, wa, wb, c;
    int n = bs->n, lo = 0, hi = bs->ndir, next, ia, ib, i;
    zero(w, n);
    if (p[0] == 0.0 && p[1] == 0.0) {
        if (bs->centre >= 0) w[bs->centre] = 1.0;
        else normalise_weights(w, n, 0.0);
        return;
    }
    th = sn_blendspace_pseudo_angle(p[0], p[1]);
    if (th < ang[0]) {
        lo = bs->ndir - 1;
    } else {
        while (hi - lo > 1) { /* ang[lo] <= th < ang[hi] */
            int mid = (lo + hi) / 2;
            if (ang[mid] <= th) lo = mid;
            else hi = mid;
        }
    }
    next = (lo + 1) % bs->ndir;
    ia = idx[lo];
    ib = idx[next];
    ha = unit + 2 * lo; /* a / |a| and b / |b| */
    hb = unit + 2 * next;
    if (bs->dplain) { /* the weights of wedge lo's ends from its factors: no division */
        const double *f = CARR(bs, dfac, double) + 2 * lo;
        wa = (hb[1] * p[0] - hb[0] * p[1]) * f[0];
        wb = (ha[0] * p[1] - ha[1] * p[0]) * f[1];
        if (!(wa > 0.0)) wa = 0.0; /* only rounding makes these negative inside the wedge */
        if (!(wb > 0.0)) wb = 0.0;
        c = 1.0 - wa - wb;
        if (c < 0.0) {
            double s = wa + wb;
            wa /= s;
            wb /= s;
            c = 0.0;
        }
    } else {
        /* The wa = (b x p)/(a x b), wb = (p x a)/(a x b), computed on unit directions
           (hat) so that no product overflows or underflows whatever the scale of points and input:
           wa = (|p|/|a|) ua, wb = (|p|/|b|) ub with ua = (b^ x p^)/(a^ x b^), ub = (p^ x a^)/(a^ x b^). */
        const double ra = rad[ia], rb = rad[ib], rp2 = p[0] * p[0] + p[1] * p[1];
        const double rp = (rp2 > 1e-290 && rp2 < 1e290) ? sqrt(rp2) : hypot(p[0], p[1]);
        const double px = p[0] / rp, py = p[1] / rp, det = ha[0] * hb[1] - ha[1] * hb[0];
        double ua = (hb[1] * px - hb[0] * py) / det, ub = (ha[0] * py - ha[1] * px) / det;
        if (ua < 0.0) ua = 0.0; /* only rounding makes these negative inside the wedge */
        if (ub < 0.0) ub = 0.0;
        wa = ua > 0.0 ? rp / ra * ua : 0.0; /* |p|/|a| may overflow for a subnormal |a|: inf * 0 is NaN */
        wb = ub > 0.0 ? rp / rb * ub : 0.0;
        c = 1.0 - wa - wb; /* -inf for an input far beyond tiny samples: handled as c < 0 */
        if (c < 0.0) {
            /* wa / (wa + wb) with |p| cancelled: bounded for any scale */
            double s = ua * rb + ub * ra;
            wa = ua * rb / s;
            wb = ub * ra / s;
            c = 0.0;
        } else if (c > 1.0) {
            c = 1.0;
            wa = wb = 0.0;
        }
    }
    w[ia] += wa;
    w[ib] += wb;
    if (bs->centre >= 0) {
        w[bs->centre] += c;
    } else {
        for (i = 0; i < n; i++) w[i] += c / n;
    }
}

static void cartesian_weights(const sn_blendspace *bs, const double *p, double *w) {
    const double *pts = CARR(bs, points, double), *v = CARR(bs, pairs, double);
    int n = bs->n, d = bs->dims, i, j, k;
    double sum = 0.0;
    for (i = 0; i < n; i++) {
        const double *row = v + (size_t)i * (n - 1) * d;
        double r[SN_BLENDSPACE_MAX_DIMS], h = 1.0;
        for (k = 0; k < d; k++) r[k] = p[k] - pts[i * d + k];
        if (d == 2) {
            for (j = 0; j < n - 1 && h > 0.0; j++) {
                double t = 1.0 - (r[0] * row[2 * j] + r[1] * row[2 * j + 1]);
                if (t < h) h = t;
            }
        } else {
            for (j = 0; j < n - 1 && h > 0.0; j++) {
                double t = 1.0;
                for (k = 0; k < d; k++) t -= r[k] * row[j * d + k];
                if (t < h) h = t;
            }
        }
        w[i] = h > 0.0 ? h : 0.0;
        sum += w[i];
    }
    normalise_weights(w, n, sum);
}

static void freeform_directional_weights(const sn_blendspace *bs, const double *p, double *w) {
    const double *pts = CARR(bs, points, double), *len = CARR(bs, flen, double), *pair = CARR(bs, fpair, double);
    int n = bs->n, c = bs->centre, i, j;
    double plen = sqrt(p[0] * p[0] + p[1] * p[1]), hc = 1.0, sum = 0.0;
    int at_origin = plen == 0.0;
    for (i = 0; i < n; i++) /* first pass: w holds theta_ip, the angle from p_i to p */
        w[i] = signed_angle(pts[2 * i], pts[2 * i + 1], p[0], p[1]);
    if (c >= 0 && !at_origin) {
        for (j = 0; j < n && hc > 0.0; j++) {
            double t;
            if (j == c) continue;
            t = 1.0 - 4.0 * plen * len[2 * j + 1] / (w[j] * w[j] + 4.0);
            if (t < hc) hc = t;
        }
    }
    for (i = 0; i < n; i++) {
        const double *row = pair + 3 * (size_t)i * n;
        double th = w[i], h = 1.0, dr = plen - len[2 * i];
        if (i == c) {
            w[i] = hc > 0.0 ? hc : 0.0;
            sum += w[i];
            continue;
        }
        for (j = 0; j < n && h > 0.0; j++) {
            double t;
            if (j == i) continue;
            if (j == c) t = 4.0 * plen * len[2 * i + 1] / (th * th + 4.0);
            else t = 1.0 - (at_origin ? row[3 * j] : th) * row[3 * j + 1] - dr * row[3 * j + 2];
            if (t < h) h = t;
        }
        w[i] = h > 0.0 ? h : 0.0;
        sum += w[i];
    }
    normalise_weights(w, n, sum);
}

static int triangulated_sparse(const sn_blendspace *bs, const double *x, int *idx, double *wt) {
    const double *map = CARR(bs, tmap, double), *hmap = CARR(bs, hmap, double);
    const int *tv = CARR(bs, tv, int), *hv = CARR(bs, hv, int);
    double u[2], best = INFINITY, bestf = 0.0;
    int t, h, besth = 0;
    normalise(bs->lo, bs->scale, bs->dims, x, u);
    if (bs->ntri == 0) return line_sparse(bs, u, idx, wt);
    for (t = 0; t < bs->ntri; t++) {
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
    for (h = 0; h < bs->nhull; h++) { /* outside: the nearest point of the hull boundary */
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
        const double *q = CARR(bs, norm, double);
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

static void triangulated_weights(const sn_blendspace *bs, const double *x, double *w) {
    int idx[3];
    double wt[3];
    scatter(idx, wt, triangulated_sparse(bs, x, idx, wt), w, bs->n);
}

/* The bilinear mix of the four grid points around x: each adds its (at most 3) weights times its
   bilinear coefficient. No search for the points the four share, no branch on the data: as fast
   as the dense table was for 9 points, faster from a few dozen. (The dense table mixed each
   point's four weights as a + fy (b - a), a = w00 + fx (w10 - w00), b = w01 + fx (w11 - w01);
   the sum of coefficient times weight differs from that by a few units in the last place.) */
static void grid_weights(const sn_blendspace *bs, const double *x, double *w) {
    const int *gidx = CARR(bs, gidx, int);
    const double *gwt = CARR(bs, gwt, double);
    double f[2], c[4];
    int cell[2], k, e;
    for (k = 0; k < 2; k++) {
        int last = (k == 0 ? bs->cols : bs->rows) - 2;
        double v = x[k] < bs->glo[k] ? bs->glo[k] : x[k] > bs->ghi[k] ? bs->ghi[k] : x[k];
        double g = (v - bs->glo[k]) * bs->gscale[k];
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
        size_t at = 3 * ((size_t)(cell[1] + k / 2) * bs->cols + cell[0] + k % 2);
        for (e = 0; e < 3; e++) w[gidx[at + e]] += c[k] * gwt[at + e];
    }
}

static void idw_weights(const sn_blendspace *bs, const double *p, double *w) {
    const double *pts = CARR(bs, points, double);
    int n = bs->n, d = bs->dims, i, nearest = 0;
    double sum = 0.0, e = 0.5 * bs->power, least;
    for (i = 0; i < n; i++) {
        w[i] = dist2(p, pts + i * d, d);
        if (w[i] < w[nearest]) nearest = i;
    }
    least = w[nearest];
    if (least == 0.0) {
        zero(w, n);
        w[nearest] = 1.0;
        return;
    }
    for (i = 0; i < n; i++) { /* (d_min / d_i)^power: 1 for the nearest, no overflow */
        double r = least / w[i];
        w[i] = e == 2.0 ? r * r : e == 1.0 ? r : pow(r, e);
        sum += w[i];
    }
    normalise_weights(w, n, sum);
}

static void direct_weights(const sn_blendspace *bs, const double *in, double *w) {
    int i;
    double sum = 0.0, top = 0.0;
    for (i = 0; i < bs->n; i++) {
        w[i] = in[i] > 0.0 ? in[i] : 0.0;
        if (w[i] > top) top = w[i];
    }
    if (!bs->normalize || top == 0.0) return;
    /* scaled by the largest first, so that neither the sum of huge inputs overflows nor the
       reciprocal of a subnormal sum does */
    for (i = 0; i < bs->n; i++) {
        w[i] /= top;
        sum += w[i];
    }
    normalise_weights(w, bs->n, sum);
}

sn_status sn_blendspace_weights(const sn_blendspace *bs, const double *in, int nin, double *out,
                                sn_error *err) {
    double p[SN_BLENDSPACE_MAX_DIMS];
    int k;
    if (nin != bs->inputs)
        return sn_fail(err, SN_EINVAL, "wrong number of coordinates: expected %d, got %d", bs->inputs, nin);
    for (k = 0; k < nin; k++)
        if (!sn_isfinite(in[k])) return sn_fail_arg(err, k + 1, SN_EINVAL, "input %d is not finite", k + 1);
    if (bs->mode == SN_BLENDSPACE_DIRECT) {
        direct_weights(bs, in, out);
        return SN_OK;
    }
    for (k = 0; k < nin; k++) p[k] = in[k] < -MAX_COORD ? -MAX_COORD : in[k] > MAX_COORD ? MAX_COORD : in[k];
    switch (bs->mode) {
    case SN_BLENDSPACE_1D: line_weights(bs, p, out); break;
    case SN_BLENDSPACE_SIMPLE_DIRECTIONAL: simple_directional_weights(bs, p, out); break;
    case SN_BLENDSPACE_FREEFORM_CARTESIAN: cartesian_weights(bs, p, out); break;
    case SN_BLENDSPACE_FREEFORM_DIRECTIONAL: freeform_directional_weights(bs, p, out); break;
    case SN_BLENDSPACE_TRIANGULATED: triangulated_weights(bs, p, out); break;
    case SN_BLENDSPACE_GRID: grid_weights(bs, p, out); break;
    default: idw_weights(bs, p, out); break;
    }
    return SN_OK;
}

/* ---- accessors ---- */

sn_blendspace_mode sn_blendspace_mode_of(const sn_blendspace *bs) { return bs->mode; }
int sn_blendspace_count(const sn_blendspace *bs) { return bs->n; }
int sn_blendspace_dims(const sn_blendspace *bs) { return bs->dims; }
int sn_blendspace_inputs(const sn_blendspace *bs) { return bs->inputs; }

const double *sn_blendspace_point(const sn_blendspace *bs, int i) {
    if (i < 0 || i >= bs->n) return NULL;
    return CARR(bs, points, double) + (size_t)i * bs->dims;
}

sn_status sn_blendspace_wedges_of(const sn_blendspace *bs, sn_blendspace_wedges *out, sn_error *err) {
    if (bs->mode != SN_BLENDSPACE_SIMPLE_DIRECTIONAL)
        return sn_fail(err, SN_EINVAL, "mode '%s' has no wedges", mode_names[bs->mode]);
    out->count = bs->n;
    out->ndir = bs->ndir;
    out->centre = bs->centre;
    out->quick = bs->dplain;
    out->ang = CARR(bs, dang, double);
    out->idx = CARR(bs, didx, int);
    out->unit = CARR(bs, dunit, double);
    out->fac = CARR(bs, dfac, double);
    return SN_OK;
}

int sn_blendspace_triangles(const sn_blendspace *bs, const int **tris) {
    *tris = bs->ntri > 0 ? CARR(bs, tv, int) : NULL;
    return bs->ntri;
}
