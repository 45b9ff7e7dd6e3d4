/*
 * sinew core: skeletons, the joint hierarchy every pose, clip and mask refers to.
 *
 * CONVENTIONS
 *   - Joints are numbered 0 .. count-1 in C (the Lua API adds 1). A joint's parent is a joint
 *     index, or -1 for a root; parents always come before their children (parent < joint), so
 *     one forward walk visits every parent before its children.
 *   - A joint transform "trs" is 10 floats: translation tx, ty, tz; rotation quaternion
 *     qx, qy, qz, qw (x, y, z, w, unit length); scale sx, sy, sz. It is local to the parent
 *     joint: model = parent_model * local, local = T * R * S.
 *   - A skeleton is built once inside caller memory (sn_skeleton_size, then sn_skeleton_init)
 *     and never changes; it owns copies of the names and the rest pose. Nothing here allocates.
 *   - Morph targets (blend shapes) are numbered 0 .. morph_count-1 in C, each with a name and a
 *     default weight; poses hold one weight per morph (any finite value: glTF allows weights
 *     outside [0, 1]). A skeleton without morphs costs nothing extra per frame.
 *   - Per-joint data are stored as structure-of-arrays padded to SN_SKELETON_LANES joints,
 *     16-byte aligned inside the object block, so blend loops run over contiguous float arrays.
 */
#ifndef SN_SKELETON_H
#define SN_SKELETON_H

#include "common.h"

/// Joint arrays are padded to a multiple of this many joints.
#define SN_SKELETON_LANES 8
/// The largest joint count a skeleton may have.
#define SN_SKELETON_MAX_JOINTS 65535
/// The longest joint or morph name, in bytes (without the terminating zero).
#define SN_SKELETON_MAX_NAME 255
/// The largest morph-target count a skeleton may have.
#define SN_SKELETON_MAX_MORPHS 65535

/// An immutable joint hierarchy with names and a rest pose (opaque; built by sn_skeleton_init).
typedef struct sn_skeleton sn_skeleton;

/// What a skeleton is built from. The arrays are read during sn_skeleton_size/init only.
typedef struct sn_skeleton_def {
    int count;                  ///< number of joints, 1 .. SN_SKELETON_MAX_JOINTS
    const int *parents;         ///< count parent indices: -1 for a root, else 0 .. joint-1
    const char *const *names;   ///< count distinct non-empty zero-terminated names
    const float *rest;          ///< 10 * count floats (trs per joint), or NULL for identities
    int morph_count;            ///< number of morph targets (blend shapes), 0 .. SN_SKELETON_MAX_MORPHS
    const char *const *morph_names; ///< morph_count distinct non-empty names (may equal joint names)
    const float *morph_defaults; ///< morph_count finite default weights, or NULL for all 0
    const sn_allocator *alloc;  ///< scratch for checking names (see sn_allocator); NULL: malloc
} sn_skeleton_def;

/// Fills `def` with an empty definition: no joints, no arrays, malloc for scratch.
void sn_skeleton_def_init(sn_skeleton_def *def);

/// Checks `def` fully (counts, parents in range and before their children, cycles, names
/// present, distinct and not too long, rest values finite, rest rotations non-zero; morph count,
/// morph names as joint names (distinct among the morphs), morph defaults finite); names the
/// first fault in `err`.
sn_status sn_skeleton_validate(const sn_skeleton_def *def, sn_error *err);
/// Bytes needed by the skeleton of `def`; 0 when `def` is invalid (then `err` says why).
size_t sn_skeleton_size(const sn_skeleton_def *def, sn_error *err);
/// Builds the skeleton of `def` inside `mem` (at least sn_skeleton_size bytes,
/// aligned as malloc or a Lua userdata; the arrays inside are 16-byte aligned whatever the address).
/// Rest rotations are normalised. On failure nothing usable is left in `mem`.
sn_status sn_skeleton_init(void *mem, size_t size, const sn_skeleton_def *def, sn_error *err);

/// Number of joints.
int sn_skeleton_count(const sn_skeleton *s);
/// Number of joints rounded up to a multiple of SN_SKELETON_LANES: the length of every
/// structure-of-arrays channel of this skeleton's poses, masks and rest pose.
int sn_skeleton_stride(const sn_skeleton *s);
/// Parent of `joint` (0-based), -1 for a root; parents come before children. -1 when out of range.
int sn_skeleton_parent(const sn_skeleton *s, int joint);
/// Name of `joint`, owned by the skeleton; NULL when out of range.
const char *sn_skeleton_name(const sn_skeleton *s, int joint);
/// Index of the joint called `name` (0-based), -1 if none. Hashed: O(1) on average.
int sn_skeleton_find(const sn_skeleton *s, const char *name);
/// Copies the rest transform of `joint` (trs, see CONVENTIONS) into trs; identity when out of range.
void sn_skeleton_rest(const sn_skeleton *s, int joint, float trs[10]);

/// Number of morph targets (0 .. SN_SKELETON_MAX_MORPHS).
int sn_skeleton_morph_count(const sn_skeleton *s);
/// Morph count rounded up to SN_SKELETON_LANES: the length of a pose's and a mask's morph row.
int sn_skeleton_morph_stride(const sn_skeleton *s);
/// Name of morph `morph` (0-based), owned by the skeleton; NULL when out of range.
const char *sn_skeleton_morph_name(const sn_skeleton *s, int morph);
/// Index of the morph called `name` (0-based), -1 if none. Hashed: O(1) on average.
int sn_skeleton_morph_find(const sn_skeleton *s, const char *name);
/// The default weights: sn_skeleton_morph_stride floats (padding 0), 16-byte aligned, owned by
/// the skeleton (a fresh or reset pose holds them).
const float *sn_skeleton_morph_defaults(const sn_skeleton *s);

#endif
