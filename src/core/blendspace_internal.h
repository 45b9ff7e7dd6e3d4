/*
 * Private to the blend-space files (blendspace*.c): the layout of a blend space, the helpers
 * every file uses (inline), and the functions one file calls in another. Which file holds what:
 *
 *   blendspace.c               the object: modes and their names, validation, the block's layout,
 *                              construction and evaluation (each dispatched to its mode), accessors
 *   blendspace_simple.c        1d (the points sorted along a line; also triangulated points on a
 *                              line) and simple_directional (wedges between sorted directions)
 *   blendspace_triangulated.c  triangulated (Delaunay, barycentric inside, the nearest hull edge
 *                              outside) and grid (triangulated weights stored on a grid)
 *   blendspace_freeform.c      freeform_cartesian and freeform_directional (gradient bands, their
 *                              pair terms precomputed), idw and direct (nothing precomputed)
 *
 * Every mode but idw and direct has a builder, which sn_blendspace_init calls once after the
 * points are copied in (grid: the triangulated builder first), and every mode has a weights
 * function, which sn_blendspace_weights calls with the input checked and clamped to MAX_COORD
 * (direct: as given); a weights function allocates nothing and writes all n weights.
 *
 * CONVENTIONS: as blendspace.h. Not part of the public API.
 */
#ifndef SN_BLENDSPACE_INTERNAL_H
#define SN_BLENDSPACE_INTERNAL_H

#include <stddef.h>

#include "blendspace.h"

#define PI 3.14159265358979323846
#define MAX_COORD SN_BLENDSPACE_MAX_COORD

/* A blend space is one block: this header, then its arrays. Every array is named by its byte
   offset from the start of the block (a size_t, 0 when the mode has no such array, read with
   ARR / CARR); the first array starts at a 16-byte boundary and each is padded to 16 bytes.
   Which arrays a mode has, and their lengths, are set by layout() in blendspace.c. */
struct sn_blendspace {
    sn_blendspace_mode mode;
    int n;               /* points, and weights */
    int dims;            /* coordinates per point */
    int inputs;          /* numbers sn_blendspace_weights takes: dims, or n for direct */
    int centre;          /* directional modes: the point at the origin, -1 when none */
    int normalize;       /* direct: 1 to divide the weights by their sum */
    double alpha;        /* freeform_directional: weight of angles against radii */
    double power;        /* idw: exponent of the inverse distance */
    size_t points;       /* n * dims doubles: the points as given */

    /* 1d, and triangulated or grid points on a line: the points sorted along the line through the
       lexicographically smallest (the origin) and largest; a point x is at parameter
       t = (x - origin) . axis, 0 at the origin and 1 at the far end */
    struct {
        size_t origin;   /* dims doubles */
        size_t axis;     /* dims doubles: the line's direction divided by its squared length */
        size_t t;        /* n doubles: each point's t, ascending */
        size_t order;    /* n ints: the point of each t */
    } line;

    /* simple_directional: the points other than the origin (the directions) sorted by angle;
       wedge k runs from direction k to direction k + 1, the last back to the first */
    struct {
        int count;       /* directions, at least 3 */
        int quick;       /* 1 when every radius lies in QUICK_R_LO .. QUICK_R_HI (blendspace_simple.c)
                            and every wedge has a positive det and finite factors: the weights
                            come from `factor` with no division (blendspace.h's
                            sn_blendspace_wedges) */
        size_t angle;    /* count doubles (n reserved): the directions' pseudo-angles, ascending */
        size_t point;    /* count ints (n reserved): the point of each direction */
        size_t radius;   /* n doubles, by point: its distance from the origin */
        size_t unit;     /* 2 count doubles (2n reserved): each direction's unit vector, in the
                            order of angle */
        size_t factor;   /* 2 count doubles (2n reserved): per wedge, 1 / (|a| det) and
                            1 / (|b| det), a and b its ends, det = a^ x b^ */
    } wedges;

    /* freeform_cartesian: for each point i and each other point j in order, the dims doubles of
       (p_j - p_i) / |p_j - p_i|^2 (n (n - 1) dims doubles), so that i's band towards j at p is
       1 - (p - p_i) . pair */
    size_t cartesian_pairs;

    /* freeform_directional: the radius terms and the pair terms of the polar gradient bands */
    struct {
        size_t length;   /* 2n doubles: per point, |p_i| and 1 / |p_i| (0 at the origin) */
        size_t pair;     /* 3 n^2 doubles: per pair (i, j), theta_ij and the two coefficients c1, c2
                            of i's band towards j, 1 - theta_ip c1 - (|p| - |p_i|) c2 */
    } polar;

    /* triangulated and grid: the Delaunay triangulation of the normalised points u = (x - lo) scale
       (exact powers of two without normalize_axes), and its hull */
    struct {
        int count;       /* triangles; 0 when the points lie on a line (then `line` gives the weights) */
        int hull_edges;  /* edges of the convex hull */
        double lo[2];    /* the normalising map's offset */
        double scale[2]; /* and its factors */
        size_t normalised; /* n * dims doubles: the points, normalised */
        size_t vertex;   /* 3 ints per triangle: its points, counter-clockwise */
        size_t neighbour; /* 3 ints per triangle: the triangle across the edge opposite each corner,
                            -1 on the hull */
        size_t map;      /* 6 doubles per triangle: its first corner, then the inverse of its edge
                            matrix (u -> the barycentric coordinates of its second and third corners;
                            NaN corner for a degenerate triangle: never inside) */
        size_t hull_vertex; /* 2 ints per hull edge: its ends */
        size_t hull_map;    /* 5 doubles per hull edge: its start, its vector, 1 / its squared length */
        size_t scratch;  /* the triangulation's scratch (construction only) */
    } tri;

    /* grid: the triangulated weights at cols x rows grid points over the points' bounding box,
       mixed bilinearly */
    struct {
        int cols, rows;  /* grid points along x and y */
        double lo[2], hi[2]; /* the bounding box */
        double scale[2];     /* grid cells per unit along x and y (0 for no extent) */
        size_t point;    /* 3 ints per grid point, row-major: the points of its (at most 3) weights */
        size_t weight;   /* 3 doubles per grid point: the weights (spare slots: weight 0) */
    } grid;

    size_t size;         /* bytes of the block in use (from its start) */
};

/* the array at offset field `off` of the block `bs`, as a `type *` */
#define ARR(bs, off, type) ((type *)((char *)(bs) + (bs)->off))
#define CARR(bs, off, type) ((const type *)((const char *)(bs) + (bs)->off))

/* ---- helpers ---- */

/* point i of a definition */
static inline const double *pt(const sn_blendspace_def *def, int i) { return def->points + (size_t)i * def->dims; }

static inline int is_origin(const double *p) { return p[0] == 0.0 && p[1] == 0.0; }

static inline double dist2(const double *a, const double *b, int dims) {
    double s = 0.0;
    int k;
    for (k = 0; k < dims; k++) s += (a[k] - b[k]) * (a[k] - b[k]);
    return s;
}

/* u = (x - lo) scale, coordinate by coordinate */
static inline void normalise(const double *lo, const double *scale, int dims, const double *x, double *u) {
    int k;
    for (k = 0; k < dims; k++) u[k] = (x[k] - lo[k]) * scale[k];
}

static inline void zero(double *w, int n) {
    int i;
    for (i = 0; i < n; i++) w[i] = 0.0;
}

/* Sparse weights: the modes built on a line or a triangulation give at most 3 non-zero weights,
   as (point index, weight) pairs; scatter makes the n dense weights of k such pairs. */
static inline void scatter(const int *idx, const double *wt, int k, double *w, int n) {
    int e;
    zero(w, n);
    for (e = 0; e < k; e++) w[idx[e]] = wt[e];
}

/* divides the n weights by their sum, or spreads them evenly when the sum is 0 */
static inline void normalise_weights(double *w, int n, double sum) {
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

/* ---- between the files ---- */

/* blendspace.c: the bounding box of the first `dims` (at most 2) coordinates of the points, and
   the factors of the normalising map (per axis 1 / extent with `normalize`, else one power of two) */
void sn_blendspace_box(const sn_blendspace_def *def, int normalize, double *lo, double *hi, double *scale);

/* blendspace_simple.c */
void sn_blendspace_line_build(sn_blendspace *bs, const double *pts);
int sn_blendspace_line_sparse(const sn_blendspace *bs, const double *u, int *idx, double *wt);
void sn_blendspace_line_weights(const sn_blendspace *bs, const double *u, double *w);
void sn_blendspace_simple_directional_build(sn_blendspace *bs);
void sn_blendspace_simple_directional_weights(const sn_blendspace *bs, const double *p, double *w);

/* blendspace_triangulated.c */
void sn_blendspace_triangulated_build(sn_blendspace *bs, const sn_blendspace_def *def);
void sn_blendspace_triangulated_weights(const sn_blendspace *bs, const double *x, double *w);
void sn_blendspace_grid_build(sn_blendspace *bs, const sn_blendspace_def *def);
void sn_blendspace_grid_weights(const sn_blendspace *bs, const double *x, double *w);

/* blendspace_freeform.c */
void sn_blendspace_freeform_cartesian_build(sn_blendspace *bs);
void sn_blendspace_freeform_cartesian_weights(const sn_blendspace *bs, const double *p, double *w);
void sn_blendspace_freeform_directional_build(sn_blendspace *bs);
void sn_blendspace_freeform_directional_weights(const sn_blendspace *bs, const double *p, double *w);
void sn_blendspace_idw_weights(const sn_blendspace *bs, const double *p, double *w);
void sn_blendspace_direct_weights(const sn_blendspace *bs, const double *in, double *w);

#endif
