/*
 * sinew core: blend spaces, which turn a parameter point into one weight per sample.
 *
 * CONVENTIONS: points are stored point-major (point i's coordinates at points[i * dims]);
 * angles are radians (degrees only in messages); indices in messages are 1-based, the numbering
 * of the Lua user. A blend space has the lifecycle of every sinew object: sn_blendspace_def_init
 * fills a definition with defaults, sn_blendspace_validate checks it, sn_blendspace_size says how
 * many bytes it needs, sn_blendspace_init builds it at the start of caller memory with every
 * constant that does not depend on the input precomputed (nothing is allocated: the
 * triangulation's scratch is part of the block). sn_blendspace_weights writes one weight per
 * point into a caller buffer and allocates nothing.
 * Weights are never negative, and they sum to 1 (to 1e-9) in every mode but SN_BLENDSPACE_DIRECT:
 * there they are the inputs clamped at 0, divided by their sum when `normalize` is set and the
 * sum is positive; with no positive input they are all 0, normalised or not.
 * Coordinates must be finite and at most SN_BLENDSPACE_MAX_COORD in magnitude.
 *
 * MEMORY: sn_blendspace_size is at most SN_BLENDSPACE_MAX_SIZE bytes (64 MiB + 1 KiB) for any
 * valid definition. The largest block is a freeform_cartesian space of SN_BLENDSPACE_MAX_POINTS
 * points in SN_BLENDSPACE_MAX_DIMS dimensions (its n (n - 1) precomputed pair vectors: 64 MiB, as
 * much as one evaluation may read); at the same count freeform_directional takes 24 MiB (3 n^2
 * doubles), a 256 x 256 grid 2.6 MiB (three point indices and weights per grid point),
 * triangulated 0.4 MiB, the other modes under 0.1 MiB (spec/c/test_blendspace.c sizes each).
 */
#ifndef SN_BLENDSPACE_H
#define SN_BLENDSPACE_H

#include "common.h"

/// Most points of one blend space.
#define SN_BLENDSPACE_MAX_POINTS 1024
/// Most coordinates per point (freeform_cartesian, idw and direct).
#define SN_BLENDSPACE_MAX_DIMS 8
/// Fewest grid points along one axis (mode grid).
#define SN_BLENDSPACE_MIN_GRID 2
/// Most grid points along one axis (mode grid).
#define SN_BLENDSPACE_MAX_GRID 256
/// Largest magnitude of a point coordinate; larger inputs to sn_blendspace_weights are clamped.
#define SN_BLENDSPACE_MAX_COORD 1e150
/// simple_directional: least angle between two directions, in degrees.
#define SN_BLENDSPACE_MIN_DIRECTION_DEGREES 2.0
/// Bytes that sn_blendspace_size returns at most, for any valid definition: the points and pair
/// vectors of the largest freeform_cartesian space (n^2 dims doubles), and room for the header.
#define SN_BLENDSPACE_MAX_SIZE \
    ((size_t)SN_BLENDSPACE_MAX_POINTS * SN_BLENDSPACE_MAX_POINTS * SN_BLENDSPACE_MAX_DIMS * sizeof(double) + 1024)

/// The weighting schemes; the manual (manual/blendspaces.md) gives every formula.
typedef enum sn_blendspace_mode {
    SN_BLENDSPACE_1D,                   ///< "1d": linear between the two bracketing thresholds
    SN_BLENDSPACE_SIMPLE_DIRECTIONAL,   ///< "simple_directional": Unity 2D Simple Directional
    SN_BLENDSPACE_FREEFORM_CARTESIAN,   ///< "freeform_cartesian": gradient bands, 1 to 8 dims
    SN_BLENDSPACE_FREEFORM_DIRECTIONAL, ///< "freeform_directional": polar gradient bands, 2-D
    SN_BLENDSPACE_TRIANGULATED,         ///< "triangulated": Delaunay + barycentric, 1-D or 2-D
    SN_BLENDSPACE_GRID,                 ///< "grid": triangulated weights sampled on a grid, 2-D
    SN_BLENDSPACE_IDW,                  ///< "idw": Shepard inverse-distance weighting, 1 to 8 dims
    SN_BLENDSPACE_DIRECT,               ///< "direct": the inputs are the weights
    SN_BLENDSPACE_MODES                 ///< number of modes (not a mode)
} sn_blendspace_mode;

/// What a blend space is built from. sn_blendspace_def_init fills every field.
typedef struct sn_blendspace_def {
    sn_blendspace_mode mode; ///< the weighting scheme (SN_BLENDSPACE_1D)
    int count;               ///< number of points, 1 to SN_BLENDSPACE_MAX_POINTS (0: none yet)
    int dims;                ///< coordinates per point, 1 to SN_BLENDSPACE_MAX_DIMS (mode's range) (1)
    const double *points;    ///< count * dims coordinates, point-major; read during validate, size
                             ///< and init only (NULL)
    double alpha;            ///< freeform_directional: weight of angles against radii, > 0 (2)
    double power;            ///< idw: exponent of the inverse distance, > 0 (4)
    int normalize_axes;      ///< triangulated, grid: 1 to work in bounding-box-normalised space (1)
    int normalize;           ///< direct: 1 to divide the weights by their sum when positive (0)
    int grid_cols;           ///< grid: grid points along x, SN_BLENDSPACE_MIN_GRID to _MAX_GRID (5)
    int grid_rows;           ///< grid: grid points along y, SN_BLENDSPACE_MIN_GRID to _MAX_GRID (5)
} sn_blendspace_def;

/// An initialised blend space: an opaque block of sn_blendspace_size(def) bytes in caller memory.
typedef struct sn_blendspace sn_blendspace;

/// Fills every field of `def`: mode 1d, no points (count 0, dims 1, points NULL), the options'
/// defaults (given in parentheses in sn_blendspace_def).
void sn_blendspace_def_init(sn_blendspace_def *def);
/// The name of a mode ("freeform_cartesian", ...), or NULL for a value that is not a mode.
const char *sn_blendspace_mode_name(sn_blendspace_mode mode);
/// Finds the mode called `name`; SN_EINVAL when there is none.
sn_status sn_blendspace_mode_parse(const char *name, sn_blendspace_mode *mode);
/// Checks a definition completely (counts, dims, finite and distinct points, options, the
/// direction rules of simple_directional); names the first fault in `err` (arg 1: the definition).
sn_status sn_blendspace_validate(const sn_blendspace_def *def, sn_error *err);
/// Bytes that sn_blendspace_init needs for `def` (at most SN_BLENDSPACE_MAX_SIZE); validates
/// first: 0, and `err` set, when the definition is invalid.
size_t sn_blendspace_size(const sn_blendspace_def *def, sn_error *err);
/// Builds the blend space of `def` at the start of `mem` (`size` bytes, at least
/// sn_blendspace_size(def); aligned as malloc or a Lua userdata, 8 bytes at least: the arrays
/// inside are 16-byte aligned whatever the address); the sn_blendspace is `(sn_blendspace *)mem`.
/// Validates first, so a failure (SN_EINVAL for the definition, SN_ENOMEM for memory too small
/// or misaligned) leaves nothing usable. Allocates nothing.
sn_status sn_blendspace_init(void *mem, size_t size, const sn_blendspace_def *def, sn_error *err);
/// Writes the weights at input `in` (`nin` finite numbers: sn_blendspace_inputs of them) into
/// `out` (sn_blendspace_count doubles). SN_EINVAL for a wrong count or a non-finite input.
/// Allocates nothing; `out` may not overlap `in`.
sn_status sn_blendspace_weights(const sn_blendspace *bs, const double *in, int nin, double *out,
                                sn_error *err);
/// The mode of the blend space.
sn_blendspace_mode sn_blendspace_mode_of(const sn_blendspace *bs);
/// Number of points (and of weights).
int sn_blendspace_count(const sn_blendspace *bs);
/// Coordinates per point.
int sn_blendspace_dims(const sn_blendspace *bs);
/// Numbers sn_blendspace_weights takes: the points' dims, or the number of points for direct.
int sn_blendspace_inputs(const sn_blendspace *bs);
/// The coordinates of point i (0-based), or NULL when i is out of range. Owned by the space.
const double *sn_blendspace_point(const sn_blendspace *bs, int i);
/// Triangles of a triangulated or grid space as counter-clockwise triples of 0-based point
/// indices: sets *tris (owned by the space) and returns their number; 0 for other modes and for
/// points on a line.
int sn_blendspace_triangles(const sn_blendspace *bs, const int **tris);

/// The wedges of a simple_directional space, read-only, for a fast path that works out the
/// weights itself (sinew's LuaJIT FFI path) with the same arithmetic as sn_blendspace_weights:
/// find the wedge k with ang[k] <= sn_blendspace_pseudo_angle(x, y) < ang[k + 1] (the last wedge
/// when below ang[0] or at or above ang[ndir - 1]), then, when `quick` is set, the weight of
/// point idx[k] is (unit[2 k' + 1] x - unit[2 k'] y) fac[2 k] and that of idx[k'] is
/// (unit[2 k] y - unit[2 k + 1] x) fac[2 k + 1] with k' = (k + 1) mod ndir (each clamped at 0,
/// both divided by their sum when it exceeds 1), and the rest 1 - their sum goes to the centre.
typedef struct sn_blendspace_wedges {
    int count;           ///< points (and weights)
    int ndir;            ///< directions: the points other than the origin, at least 3
    int centre;          ///< the point at the origin, 0-based; -1 when none (the rest is shared out evenly)
    int quick;           ///< non-zero when unit and fac give the weights (every radius within 1e-100 .. 1e100)
    const double *ang;   ///< ndir pseudo-angles, ascending
    const int *idx;      ///< ndir 0-based point indices, in the order of ang
    const double *unit;  ///< 2 ndir: each direction's unit vector, in the order of ang
    const double *fac;   ///< 2 ndir: wedge k's factors for its first and second point
} sn_blendspace_wedges;
/// Fills `out` for a simple_directional space (pointers owned by the space); SN_EINVAL for other
/// modes.
sn_status sn_blendspace_wedges_of(const sn_blendspace *bs, sn_blendspace_wedges *out, sn_error *err);
/// A number in [-2, 2] that never falls as the counter-clockwise angle of (x, y) grows (as atan2 does)
/// (the "diamond angle": one division, no trigonometry); for finite (x, y) other than (0, 0)
/// with |x|, |y| <= SN_BLENDSPACE_MAX_COORD.
double sn_blendspace_pseudo_angle(double x, double y);

#endif
