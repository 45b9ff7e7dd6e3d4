/*
 * sinew core: poses (one local transform per joint of a skeleton), masks, N-layer blending,
 * additive layers and model-space matrices.
 *
 * CONVENTIONS
 *   - Joints are 0-based. A joint transform "trs" is 10 floats tx, ty, tz, qx, qy, qz, qw,
 *     sx, sy, sz, local to the parent joint; model = parent_model * local, local = T * R * S.
 *     Quaternions are x, y, z, w (w scalar), right-handed.
 *   - A pose stores its transforms as 10 float32 structure-of-arrays channels (SN_POSE_TX ..
 *     SN_POSE_SZ) of sn_skeleton_stride(skeleton) floats each, 16-byte aligned, so blending runs
 *     channel by channel over contiguous arrays. Padding joints hold identities.
 *   - Poses, masks and matrix sets have the lifecycle of every core object: `*_def_init`,
 *     `*_validate`, `*_size`, `*_init(mem, size, def, err)`; they are built once inside caller
 *     memory and refer to their skeleton, which must outlive them. A pose takes 100 bytes per
 *     joint, a mask 4, a matrix set 64 (joints counted padded to SN_SKELETON_LANES), plus 4
 *     bytes per morph target for poses and masks (morphs counted padded the same way), plus 48
 *     to 64 bytes.
 *   - Morph weights: a pose holds one float weight per morph target of its skeleton (any finite
 *     value, not clamped: glTF allows weights outside [0, 1]) after its channels, a mask one
 *     factor in [0, 1] per morph. Reset and fresh poses hold the skeleton's default weights;
 *     copy, blend, add and delta carry them as they carry translations (see each function). Per-frame functions (get, set, blend, add, delta, to_model) never allocate; inputs
 *     first, outputs last.
 *   - Functions that take several poses refuse poses of different skeletons (SN_EINVAL) before
 *     writing anything.
 */
#ifndef SN_POSE_H
#define SN_POSE_H

#include "common.h"
#include "quat.h"
#include "skeleton.h"

/// Channel numbers of a pose's structure-of-arrays (see sn_pose_channel).
enum {
    SN_POSE_TX, SN_POSE_TY, SN_POSE_TZ,
    SN_POSE_QX, SN_POSE_QY, SN_POSE_QZ, SN_POSE_QW,
    SN_POSE_SX, SN_POSE_SY, SN_POSE_SZ,
    SN_POSE_CHANNELS  ///< 10: the number of channels
};

/// The default total weight below which blending fills in the rest pose (as ozz-animation).
#define SN_BLEND_THRESHOLD 0.1f
/// Where a joint's total weight is below this fraction of the largest of the layers' weight sum
/// and the threshold, blending fills in the rest pose up to it (whatever the threshold), so that
/// every blended rotation normalises to a unit quaternion.
#define SN_BLEND_MIN_FILL 1e-6f
/// Most layers with weight in sn_pose_blend_method with another method than nlerp (each joint's
/// rotations are gathered on the stack).
#define SN_BLEND_METHOD_MAX_LAYERS 64

/// One local transform per joint of a skeleton (opaque; built by sn_pose_init).
typedef struct sn_pose sn_pose;
/// One weight in [0, 1] per joint and per morph target of a skeleton (opaque; built by sn_mask_init).
typedef struct sn_mask sn_mask;
/// One model-space matrix per joint of a skeleton (opaque; built by sn_matrices_init).
typedef struct sn_matrices sn_matrices;

/// What a pose is built from.
typedef struct sn_pose_def {
    const sn_skeleton *skeleton;  ///< the skeleton; outlives the pose
} sn_pose_def;

/// What a mask is built from.
typedef struct sn_mask_def {
    const sn_skeleton *skeleton;  ///< the skeleton; outlives the mask
    float weight;                 ///< [0, 1]: the weight of every joint not in `weights`
    const float *weights;         ///< NULL, or one weight in [0, 1] per joint (read during init only)
    int has_morph_weight;         ///< 0 (sn_mask_def_init's): morphs not in `morph_weights` take
                                  ///< `weight`; 1: they take `morph_weight`
    float morph_weight;           ///< [0, 1]: with has_morph_weight, the factor of every morph not in `morph_weights`
    const float *morph_weights;   ///< NULL, or one factor in [0, 1] per morph (read during init only)
} sn_mask_def;

/// What a matrix set is built from.
typedef struct sn_matrices_def {
    const sn_skeleton *skeleton;  ///< the skeleton; outlives the matrices
} sn_matrices_def;

/// One normal layer of sn_pose_blend.
typedef struct sn_blend_layer {
    const sn_pose *pose;  ///< the layer's pose, of the output's skeleton; may be the output itself
    float weight;         ///< layer weight, finite and >= 0 (0 skips the layer)
    const sn_mask *mask;  ///< per-joint factors of the weight, or NULL for all 1
} sn_blend_layer;

/// Fills `def` with an empty definition (no skeleton).
void sn_pose_def_init(sn_pose_def *def);
/// Checks `def`: a skeleton is given (arg 1).
sn_status sn_pose_validate(const sn_pose_def *def, sn_error *err);
/// Bytes needed by the pose of `def`; 0 when `def` is invalid (then `err` says why).
size_t sn_pose_size(const sn_pose_def *def, sn_error *err);
/// Builds the pose of `def` at `mem` (at least sn_pose_size bytes, aligned as malloc or a Lua
/// userdata), set to the rest pose; validates first. SN_ENOMEM when `size` is too small.
sn_status sn_pose_init(void *mem, size_t size, const sn_pose_def *def, sn_error *err);
/// The skeleton of `p`.
const sn_skeleton *sn_pose_skeleton(const sn_pose *p);
/// Copies the transform of `joint` (0-based, in range) into trs.
void sn_pose_get(const sn_pose *p, int joint, float trs[10]);
/// Sets the transform of `joint` (0-based, in range) from trs, as given (pass a unit rotation).
void sn_pose_set(sn_pose *p, int joint, const float trs[10]);
/// Channel `channel` (SN_POSE_TX .. SN_POSE_SZ): sn_skeleton_stride floats, 16-byte aligned,
/// owned by the pose. Writing it is the fast way to fill a pose; keep rotations unit length.
float *sn_pose_channel(sn_pose *p, int channel);
/// Read-only channel `channel` of a const pose.
const float *sn_pose_channel_const(const sn_pose *p, int channel);
/// The morph weights: sn_skeleton_morph_stride floats (one per morph, padding 0), 16-byte
/// aligned, owned by the pose; any finite value (not clamped). Writing them is how a game drives
/// a morph target (a blink).
float *sn_pose_morphs(sn_pose *p);
/// Read-only sn_pose_morphs of a const pose.
const float *sn_pose_morphs_const(const sn_pose *p);
/// Sets every joint to the rest pose of the skeleton and every morph weight to its default.
void sn_pose_reset(sn_pose *p);
/// dst = src (transforms and morph weights). SN_EINVAL when the poses belong to different skeletons.
sn_status sn_pose_copy(const sn_pose *src, sn_pose *dst, sn_error *err);

/// Checks a blend: 0 <= n, every layer pose and mask of out's skeleton, weights finite and
/// >= 0, threshold finite and > 0. err->arg is 2 for a layer pose, 3 for a weight, 4 for a mask,
/// 5 for the threshold; the message names the layer (1-based).
sn_status sn_pose_blend_validate(const sn_pose *out, const sn_blend_layer *layers, int n,
                                 float threshold, sn_error *err);
/// out = weighted blend of n layers: per joint, weight w_i * mask_i(joint); translations and
/// scales are weighted means; rotations are summed with each layer's sign chosen in the
/// hemisphere of the sum so far, then normalised. Where a joint's total weight W is below
/// `threshold`, the rest pose is added with weight threshold - W. Morph weights: per morph the
/// weighted mean with weights w_i * mask_i(morph) (sn_mask_get_morph), the skeleton's default
/// weight filling in below the threshold as the rest pose does for translations (computed in
/// double; the threshold scaled with the weights and kept at SN_BLEND_MIN_FILL or more).
/// Validates first; `out` may also be a layer. Allocates nothing.
sn_status sn_pose_blend(sn_pose *out, const sn_blend_layer *layers, int n, float threshold,
                        sn_error *err);
/// sn_pose_blend with the rotations averaged by `method`: SN_BLEND_NLERP is sn_pose_blend itself;
/// otherwise each joint's rotation is the sn_quat_blend (Karcher mean, Markley eigenvector or
/// product of powers in layer order, the rest-pose fill last) of the layers' rotations with
/// weights w_i * mask_i(joint), computed in double; translations and scales as sn_pose_blend.
/// SN_EINVAL (arg 2) for more than SN_BLEND_METHOD_MAX_LAYERS layers with weight, (arg 6) for an
/// unknown method. Allocates nothing; `out` may be a layer.
sn_status sn_pose_blend_method(sn_pose *out, const sn_blend_layer *layers, int n, float threshold,
                               sn_blend_method method, sn_error *err);
/// Additive layer: per joint with w = weight * mask(joint): rotation out = out * delta^w (slerp
/// from the identity, shortest arc), translation out += w * delta, scale out *= 1 + w (delta - 1)
/// for w >= 0 and out /= 1 + |w| (delta - 1) for w < 0, so that adding with -w undoes +w;
/// morph weights out += (weight * mask_morph(m)) * delta (float; a morph whose w is 0 keeps its bits).
/// SN_EINVAL for another skeleton, a non-finite weight, a scale that would divide by zero or a
/// translation, scale or morph weight that would leave the float range (checked before
/// anything is written).
sn_status sn_pose_add(sn_pose *out, const sn_pose *delta, float weight, const sn_mask *mask,
                      sn_error *err);
/// out = pose relative to reference, the delta that sn_pose_add(reference, out, 1) turns back
/// into pose: rotation conj(ref) * pose (shortest arc), translation pose - ref, scale pose / ref,
/// morph weights pose - ref.
/// SN_EINVAL for another skeleton, a zero reference scale or a difference or ratio out of the
/// float range (before anything is written).
/// `out` may be `pose` or `reference`.
sn_status sn_pose_delta(const sn_pose *pose, const sn_pose *reference, sn_pose *out, sn_error *err);
/// Model-space matrices: out[16 * j ..] = model matrix of joint j, float32, column-major 4x4,
/// model(j) = model(parent) * T * R * S, walking the joints once. `out` holds 16 * count floats.
void sn_pose_to_model(const sn_pose *p, float *out);
/// sn_pose_to_model into a matrix set of the pose's skeleton; SN_EINVAL (arg 2) for another.
sn_status sn_pose_to_matrices(const sn_pose *p, sn_matrices *m, sn_error *err);

/// Fills `def` with an empty definition (no skeleton).
void sn_matrices_def_init(sn_matrices_def *def);
/// Checks `def`: a skeleton is given (arg 1).
sn_status sn_matrices_validate(const sn_matrices_def *def, sn_error *err);
/// Bytes needed by the matrix set of `def`; 0 when `def` is invalid (then `err` says why).
size_t sn_matrices_size(const sn_matrices_def *def, sn_error *err);
/// Builds the matrix set of `def` at `mem` (at least sn_matrices_size bytes, aligned as malloc
/// or a Lua userdata), every matrix the identity; validates first.
sn_status sn_matrices_init(void *mem, size_t size, const sn_matrices_def *def, sn_error *err);
/// The skeleton of `m`.
const sn_skeleton *sn_matrices_skeleton(const sn_matrices *m);
/// The matrices: 16 floats per joint (column-major 4x4), 16-byte aligned, owned by `m`.
float *sn_matrices_data(sn_matrices *m);
/// Read-only sn_matrices_data.
const float *sn_matrices_data_const(const sn_matrices *m);
/// Skinning matrices in place: m[j] = root * m[j] * inverse_bind[j] for every joint (root the
/// identity when NULL: 16 floats, column-major), in float arithmetic (a product past float range
/// is infinite, never undefined). `inverse_bind` may be `m`. SN_EINVAL (arg 2) for matrices of
/// another skeleton.
sn_status sn_matrices_skin(sn_matrices *m, const sn_matrices *inverse_bind, const float *root, sn_error *err);

/// Fills `def` with an empty definition: no skeleton, weight 0, no per-joint weights, morphs as joints.
void sn_mask_def_init(sn_mask_def *def);
/// Checks `def`: a skeleton, `weight`, `morph_weight` and every per-joint and per-morph weight
/// finite and in [0, 1] (arg 1; the message names the joint or morph).
sn_status sn_mask_validate(const sn_mask_def *def, sn_error *err);
/// Bytes needed by the mask of `def`; 0 when `def` is invalid (then `err` says why).
size_t sn_mask_size(const sn_mask_def *def, sn_error *err);
/// Builds the mask of `def` at `mem` (at least sn_mask_size bytes, aligned as malloc or a Lua
/// userdata); validates first. SN_ENOMEM when `size` is too small.
sn_status sn_mask_init(void *mem, size_t size, const sn_mask_def *def, sn_error *err);
/// The skeleton of `m`.
const sn_skeleton *sn_mask_skeleton(const sn_mask *m);
/// Weight of `joint` (0-based, in range).
float sn_mask_get(const sn_mask *m, int joint);
/// Sets the weight of `joint` (0-based) to `weight` in [0, 1], and of all its descendants too
/// when `subtree` is non-zero. SN_ERANGE / SN_EINVAL for a bad joint or weight.
sn_status sn_mask_set(sn_mask *m, int joint, float weight, int subtree, sn_error *err);
/// The weights: sn_skeleton_stride floats (padding joints 0), 16-byte aligned, read-only.
const float *sn_mask_weights(const sn_mask *m);
/// Factor of morph `morph` (0-based); 0 when out of range.
float sn_mask_get_morph(const sn_mask *m, int morph);
/// Sets the factor of morph `morph` (0-based) to `weight` in [0, 1]. SN_EINVAL (arg 1) for a
/// morph out of range, (arg 2) for a bad weight; nothing changed then.
sn_status sn_mask_set_morph(sn_mask *m, int morph, float weight, sn_error *err);
/// The morph factors: sn_skeleton_morph_stride floats (padding 0), 16-byte aligned, read-only.
const float *sn_mask_morph_weights(const sn_mask *m);

#endif
