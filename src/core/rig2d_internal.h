/*
 * The layouts of 2-D rigs shared by rig2d_*.c (not part of the core's interface).
 */
#ifndef SN_RIG2D_INTERNAL_H
#define SN_RIG2D_INTERNAL_H

#include <math.h>

#include "rig2d.h"

#define R2_PI 3.141592653589793
#define R2_TAU (3.141592653589793 * 2.0)

/// Inherit flags of a bone.
enum { R2_TRANSLATION = 1, R2_ROTATION = 2, R2_SCALE = 4, R2_REFLECTION = 8 };

/// A transform: x, y, rotation, skew, scale x, scale y.
typedef struct r2_transform {
    double x, y, rotation, skew, sx, sy;
} r2_transform;

typedef struct r2_bone {
    int parent, flags, has_ik;
    double length;
    r2_transform setup;
} r2_bone;

typedef struct r2_ik {
    int root, bone, target;  ///< bone: the chain's tip of a two-bone constraint, -1 for one bone
    int bend_positive;
    double weight;
} r2_ik;

typedef struct r2_slot {
    int bone, display_index, first_display, display_count, blend;
    double color[8];                 ///< aM rM gM bM (percent) aO rO gO bO, as in the file
} r2_slot;

typedef struct r2_display {
    int type, mesh;
    double local[6];  ///< the display's transform as a matrix
} r2_display;

typedef struct r2_mesh {
    int vertices, weighted, entries;  ///< entries: weight entries (weighted meshes)
    int deform_count;                 ///< 2 x entries (weighted) or 2 x vertices
    float *uvs;                       ///< 2 x vertices
    float *points;                    ///< plain: 2 x vertices; weighted: 3 x entries (w, x, y)
    int *counts;                      ///< weighted: influences per vertex
    int *bones;                       ///< weighted: the bone of each entry
} r2_mesh;

struct sn_rig2d_data {
    int bones, constraints, slots, displays, meshes, deform_total;
    r2_bone *bone;
    int *order;  ///< the update order of bones
    r2_ik *ik;
    r2_slot *slot;
    r2_display *display;
    r2_mesh *mesh;
    int *mesh_deform;  ///< each mesh's offset in a rig's deform area (deform_total numbers)
    int *mesh_vertex;  ///< each mesh's first vertex in a rig's vertex buffer (vertex_total vertices)
    int vertex_total;
};

typedef struct r2_key {
    int start, tween, samples, values;  ///< samples, values: offsets into the animation's arrays
    double amount;                      ///< quads: amount x 0.01; curve: sample count
} r2_key;

typedef struct r2_timeline {
    int type, target, extra, keys, count, first;  ///< first: its first key in the animation's keys
} r2_timeline;

struct sn_anim2d {
    const sn_rig2d_data *data;
    int frames, timelines;
    double frame_rate, duration;
    r2_timeline *timeline;
    r2_key *key;
    float *value;
    short *sample;
};

struct sn_rig2d {
    const sn_rig2d_data *data;
    double *pose;        ///< 6 per bone
    double *world;       ///< 6 per bone: a b c d tx ty
    r2_transform *global;  ///< per bone: the world transform as DragonBones keeps it
    unsigned char *state;  ///< per bone during sn_rig2d_world: 0 to do, 1 done, 2 done and decomposed
    unsigned char *dirty;  ///< per bone during sn_rig2d_world_changed: 1 to be redone
    int stale;             ///< 1: the pose or slots changed since the last sn_rig2d_world
    double *ik_weight;
    int *ik_bend;
    int *display;
    int *order, *position;
    double *color;       ///< 8 per slot: multipliers a r g b, offsets a r g b
    double *slot_world;  ///< 6 per slot
    double *deform;      ///< deform_total numbers
    unsigned char *buffer;  ///< vertex_total vertices of SN_RIG2D_VERTEX_BYTES (sn_rig2d_mesh)
};

/// v wrapped into [-pi, pi) as DragonBones' normalizeRadian (JavaScript's % is C's fmod).
static inline double r2_normalize(double v) {
    v = fmod(v + R2_PI, R2_TAU);
    return v + (v > 0.0 ? -R2_PI : R2_PI);
}

/// A walk over a layout (rig2d.h): numbers read in order, every one checked; the first fault is
/// recorded in `err` (with "timeline <k>: " before it when `timeline` > 0) and every read after it
/// returns 0.
typedef struct r2_reader {
    const double *w;
    size_t n, at;
    sn_error *err;
    int failed;
    int timeline;  ///< the animation's timeline being read (1-based), 0 outside one
} r2_reader;

/// The next number, which must be finite.
double r2_number(r2_reader *r, const char *what);
/// The next number as an integer in [lo, hi].
int r2_integer(r2_reader *r, const char *what, int lo, int hi);
/// Records a fault (printf-style) unless one is recorded already; returns 0.
int r2_fault(r2_reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/// The matrix of transform t (DragonBones' Transform.toMatrix, in its order of operations).
void r2_to_matrix(const r2_transform *t, double *m);

#endif
