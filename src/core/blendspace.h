/*
 * sinew core: blend spaces, which turn a parameter point into one weight per sample.
 *
 * CONVENTIONS: points are stored point-major (point i's coordinates at points[i * dims]);
 * angles are radians (degrees only in messages); indices in messages are 1-based, the numbering
 * of the Lua user. A blend space is built once inside caller memory (sn_blendspace_size, then
 * sn_blendspace_init) with every constant that does not depend on the input precomputed;
 * sn_blendspace_weights writes one weight per point into a caller buffer and allocates nothing.
 * Weights are never negative and sum to 1 (to 1e-9), except in mode SN_BLENDSPACE_DIRECT
 * without normalisation. Coordinates must be finite and at most 1e150 in magnitude.
 */
#ifndef SN_BLENDSPACE_H
#define SN_BLENDSPACE_H

#include "common.h"

/// Most points of one blend space.
#define SN_BLENDSPACE_MAX_POINTS 1024
/// Most coordinates per point (freeform_cartesian, idw and direct).
#define SN_BLENDSPACE_MAX_DIMS 8
/// Most grid points along one axis (mode grid).
#define SN_BLENDSPACE_MAX_GRID 256

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

/// What a blend space is built from. sn_blendspace_def_defaults fills the options.
typedef struct sn_blendspace_def {
    sn_blendspace_mode mode; ///< the weighting scheme
    int count;               ///< number of points, 1 to SN_BLENDSPACE_MAX_POINTS
    int dims;                ///< coordinates per point, 1 to SN_BLENDSPACE_MAX_DIMS (mode's range)
    const double *points;    ///< count * dims coordinates, point-major; read during init only
    double alpha;            ///< freeform_directional: weight of angles against radii, > 0 (2)
    double power;            ///< idw: exponent of the inverse distance, > 0 (4)
    int normalize_axes;      ///< triangulated, grid: 1 to work in bounding-box-normalised space (1)
    int normalize;           ///< direct: 1 to divide the weights by their sum when positive (0)
    int grid_cols;           ///< grid: grid points along x, 2 to SN_BLENDSPACE_MAX_GRID (5)
    int grid_rows;           ///< grid: grid points along y, 2 to SN_BLENDSPACE_MAX_GRID (5)
} sn_blendspace_def;

/// An initialised blend space: an opaque block of sn_blendspace_size(def) bytes in caller memory.
typedef struct sn_blendspace sn_blendspace;

/// Sets every option of `def` to its default (mode, count, dims and points are left alone).
void sn_blendspace_def_defaults(sn_blendspace_def *def);
/// The name of a mode ("freeform_cartesian", ...), or NULL for a value that is not a mode.
const char *sn_blendspace_mode_name(sn_blendspace_mode mode);
/// Finds the mode called `name`; SN_EINVAL when there is none.
sn_status sn_blendspace_mode_parse(const char *name, sn_blendspace_mode *mode);
/// Checks a definition completely (counts, dims, finite and distinct points, options, the
/// direction rules of simple_directional); names the first fault in `err` (arg 1).
sn_status sn_blendspace_validate(const sn_blendspace_def *def, sn_error *err);
/// Bytes that sn_blendspace_init needs for `def`, or 0 when the definition is invalid.
size_t sn_blendspace_size(const sn_blendspace_def *def);
/// Builds the blend space inside `mem` (`size` bytes, 8-byte aligned, at least
/// sn_blendspace_size(def)); validates first, so a failure leaves nothing half-built. Allocates
/// nothing: the triangulation's scratch is part of the block. `*out` points into `mem`.
sn_status sn_blendspace_init(void *mem, size_t size, const sn_blendspace_def *def, sn_blendspace **out,
                             sn_error *err);
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

#endif
