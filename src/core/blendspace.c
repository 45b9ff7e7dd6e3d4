/*
 * Blend spaces, the object: the modes and their names, validation of a definition (the checks
 * every mode shares and the direction rules of simple_directional), the layout of the block,
 * construction and evaluation, each handed to its mode's builder and weights function (in
 * blendspace_simple.c, blendspace_triangulated.c and blendspace_freeform.c), and the accessors
 * every mode has (those of one mode are in its file).
 * blendspace_internal.h describes the block.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "blendspace_internal.h"
#include "delaunay.h"

#define DEG (PI / 180.0)

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
void sn_blendspace_box(const sn_blendspace_def *def, int normalize, double *lo, double *hi, double *scale) {
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

static sn_status check_normalised(const sn_blendspace_def *def, sn_error *err) {
    double lo[2], hi[2], scale[2], a[2], b[2];
    int i, j;
    if (!def->normalize_axes) return SN_OK;
    sn_blendspace_box(def, 1, lo, hi, scale);
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
        bs->wedges.angle = take(&at, n * D);
        bs->wedges.point = take(&at, n * I);
        bs->wedges.radius = take(&at, n * D);
        bs->wedges.unit = take(&at, 2 * n * D);
        bs->wedges.factor = take(&at, 2 * n * D);
        break;
    case SN_BLENDSPACE_FREEFORM_CARTESIAN:
        bs->cartesian_pairs = take(&at, n * (n - 1) * d * D);
        break;
    case SN_BLENDSPACE_FREEFORM_DIRECTIONAL:
        bs->polar.length = take(&at, 2 * n * D);
        bs->polar.pair = take(&at, 3 * n * n * D);
        break;
    case SN_BLENDSPACE_1D:
    case SN_BLENDSPACE_TRIANGULATED:
    case SN_BLENDSPACE_GRID:
        bs->line.origin = take(&at, d * D);
        bs->line.axis = take(&at, d * D);
        bs->line.t = take(&at, n * D);
        bs->line.order = take(&at, n * I);
        if (def->mode == SN_BLENDSPACE_1D) break;
        bs->tri.normalised = take(&at, n * d * D);
        bs->tri.vertex = take(&at, 3 * t * I);
        bs->tri.neighbour = take(&at, 3 * t * I);
        bs->tri.map = take(&at, 6 * t * D);
        bs->tri.hull_vertex = take(&at, 2 * n * I);
        bs->tri.hull_map = take(&at, 5 * n * D);
        bs->tri.scratch = take(&at, sn_delaunay_scratch_size(def->count));
        if (def->mode == SN_BLENDSPACE_GRID) {
            size_t nodes = (size_t)def->grid_cols * (size_t)def->grid_rows;
            bs->grid.point = take(&at, 3 * nodes * I);
            bs->grid.weight = take(&at, 3 * nodes * D);
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

/* ---- construction ---- */

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
    case SN_BLENDSPACE_1D: sn_blendspace_line_build(bs, def->points); break;
    case SN_BLENDSPACE_SIMPLE_DIRECTIONAL: sn_blendspace_simple_directional_build(bs); break;
    case SN_BLENDSPACE_FREEFORM_CARTESIAN: sn_blendspace_freeform_cartesian_build(bs); break;
    case SN_BLENDSPACE_FREEFORM_DIRECTIONAL: sn_blendspace_freeform_directional_build(bs); break;
    case SN_BLENDSPACE_TRIANGULATED: sn_blendspace_triangulated_build(bs, def); break;
    case SN_BLENDSPACE_GRID:
        sn_blendspace_triangulated_build(bs, def);
        sn_blendspace_grid_build(bs, def);
        break;
    default: break;
    }
    return SN_OK;
}

/* ---- evaluation ---- */

sn_status sn_blendspace_weights(const sn_blendspace *bs, const double *in, int nin, double *out,
                                sn_error *err) {
    double p[SN_BLENDSPACE_MAX_DIMS];
    int k;
    if (nin != bs->inputs)
        return sn_fail(err, SN_EINVAL, "wrong number of coordinates: expected %d, got %d", bs->inputs, nin);
    for (k = 0; k < nin; k++)
        if (!sn_isfinite(in[k])) return sn_fail_arg(err, k + 1, SN_EINVAL, "input %d is not finite", k + 1);
    if (bs->mode == SN_BLENDSPACE_DIRECT) {
        sn_blendspace_direct_weights(bs, in, out);
        return SN_OK;
    }
    for (k = 0; k < nin; k++) p[k] = in[k] < -MAX_COORD ? -MAX_COORD : in[k] > MAX_COORD ? MAX_COORD : in[k];
    switch (bs->mode) {
    case SN_BLENDSPACE_1D: sn_blendspace_line_weights(bs, p, out); break;
    case SN_BLENDSPACE_SIMPLE_DIRECTIONAL: sn_blendspace_simple_directional_weights(bs, p, out); break;
    case SN_BLENDSPACE_FREEFORM_CARTESIAN: sn_blendspace_freeform_cartesian_weights(bs, p, out); break;
    case SN_BLENDSPACE_FREEFORM_DIRECTIONAL: sn_blendspace_freeform_directional_weights(bs, p, out); break;
    case SN_BLENDSPACE_TRIANGULATED: sn_blendspace_triangulated_weights(bs, p, out); break;
    case SN_BLENDSPACE_GRID: sn_blendspace_grid_weights(bs, p, out); break;
    default: sn_blendspace_idw_weights(bs, p, out); break;
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
