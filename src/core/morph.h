/*
 * sinew core: morph targets (blend shapes) applied to vertices. A morph set holds a primitive's
 * base vertices (interleaved floats, the importer's vertex layout) and the deltas of each of its
 * targets for up to three channels of the vertex (position, normal, tangent); applying weights
 * writes base + sum over targets of weight * delta into a vertex buffer of the same layout, the
 * glTF 2.0 formula (3.7.2.2, "Morph Targets").
 *
 * CONVENTIONS
 *   - A vertex is `stride` floats; a channel is 3 floats at its offset within the vertex (x, y,
 *     z; a tangent's w, the handedness, is not changed). Vertices and targets count from 0.
 *   - Deltas are kept per target and channel as 3 floats per vertex, in the set's own block;
 *     a target without deltas for a channel moves nothing there (no memory kept for it).
 *   - Normals and tangents are written as the formula gives them, not renormalised (a shader
 *     normalises them, as it must after skinning anyway).
 *   - Sums run in float, target after target in index order, targets of weight 0 skipped: the
 *     vertex buffer and sn_morph_position agree bit for bit.
 *   - The lifecycle of every core object: def_init, validate, size, init (the set lives in one
 *     caller-owned block). Applying allocates nothing, and a refused call writes nothing.
 */
#ifndef SN_MORPH_H
#define SN_MORPH_H

#include "common.h"

/// The channels of a vertex a target may move.
enum { SN_MORPH_POSITION = 0, SN_MORPH_NORMAL = 1, SN_MORPH_TANGENT = 2, SN_MORPH_CHANNELS = 3 };

/// Most targets of one morph set.
#define SN_MORPH_MAX_TARGETS 1024
/// Most vertices of one morph set.
#define SN_MORPH_MAX_VERTICES (1 << 24)
/// Most floats of one vertex.
#define SN_MORPH_MAX_STRIDE 64

/// What a morph set is made from; the arrays are copied by sn_morph_init and may go after it.
typedef struct sn_morph_def {
    size_t vertices;                   ///< vertex count, 1 .. SN_MORPH_MAX_VERTICES
    int stride;                        ///< floats per vertex, 3 .. SN_MORPH_MAX_STRIDE
    int targets;                       ///< target count, 0 .. SN_MORPH_MAX_TARGETS
    int offsets[SN_MORPH_CHANNELS];    ///< first float of each channel in a vertex, -1: not in the layout
    const float *base;                 ///< vertices x stride floats: the vertices at weight 0
    const float *const *deltas;        ///< targets x SN_MORPH_CHANNELS pointers (deltas[3 t + c]): vertices x 3
                                       ///< finite floats each, or NULL (no delta); ignored for a channel at -1
} sn_morph_def;

/// A morph set: sized by sn_morph_size, made by sn_morph_init in caller-owned memory.
typedef struct sn_morph sn_morph;

/// Fills `def` with an empty definition: no vertices, stride 3, no targets, only a position channel at 0.
void sn_morph_def_init(sn_morph_def *def);
/// Checks a definition: counts within their limits, the base present, channel offsets within the
/// stride and not overlapping, every delta of a channel in the layout finite (the message names the
/// target, the channel and the vertex from 0). err->arg 1.
sn_status sn_morph_validate(const sn_morph_def *def, sn_error *err);
/// Bytes of the block sn_morph_init needs for `def`; 0 when `def` is invalid (then `err` says why).
size_t sn_morph_size(const sn_morph_def *def, sn_error *err);
/// Makes the morph set of `def` in `mem` (at least sn_morph_size bytes, aligned as malloc or a Lua
/// userdata), copying the base and the deltas of the channels in the layout; the set is `mem`
/// itself. On failure nothing usable is left in `mem`.
sn_status sn_morph_init(void *mem, size_t size, const sn_morph_def *def, sn_error *err);

/// The vertex count.
size_t sn_morph_vertices(const sn_morph *m);
/// Floats per vertex.
int sn_morph_stride(const sn_morph *m);
/// The target count.
int sn_morph_targets(const sn_morph *m);
/// The base vertices (vertices x stride floats), owned by the set.
const float *sn_morph_base(const sn_morph *m);

/// The deltas of target `t` (from 0) for `channel` kept by the set (vertices x 3 floats, owned by
/// the set), or NULL when it keeps none there (no delta, a channel not in the layout, `t` or
/// `channel` out of range): for a renderer that blends on the GPU.
const float *sn_morph_deltas(const sn_morph *m, int t, int channel);

/// Checks `n` weights for the set: n must be its target count (err->arg 2) and each weight finite
/// (err->arg 2, the message names the weight from 1).
sn_status sn_morph_check_weights(const sn_morph *m, const float *weights, int n, sn_error *err);
/// Writes every vertex into `out` (`room` floats, at least vertices x stride): the base, with each
/// channel in the layout moved by sum weights[t] x deltas of target t. Checks the weights (arg 2)
/// and the room (arg 3) before writing anything. Allocates nothing.
sn_status sn_morph_apply(const sn_morph *m, const float *weights, int n, float *out, size_t room, sn_error *err);
/// The morphed value of channel `channel` of vertex `v` (from 0) into out[0 .. 2], as
/// sn_morph_apply writes it. Refuses a vertex out of range (arg 2), a channel not in the layout
/// (arg 3) and weights as sn_morph_apply does (arg 4).
sn_status sn_morph_vertex(const sn_morph *m, size_t v, int channel, const float *weights, int n, float out[3],
                          sn_error *err);

#endif
