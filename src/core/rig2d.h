/*
 * sinew core: 2-D rigs (DragonBones' model of a 2-D skeleton).
 *
 * An armature (sn_rig2d_data) holds bones with their setup transforms and inherit flags, IK
 * constraints, slots with their displays (images, meshes, child armatures, bounding boxes) and
 * meshes (plain or weighted). An animation (sn_anim2d) holds the timelines of one of its
 * animations. A rig (sn_rig2d) is one instance: the animation pose of every bone, the world
 * matrices, and the slots' state (display, colour, draw order, mesh deform).
 *
 * Conventions of the 2-D kind (those of DragonBones, so that results match its runtime):
 *   - y points down; angles are radians, positive clockwise on screen.
 *   - A transform is x, y, rotation, skew, scale x, scale y; its matrix (a, b, c, d, tx, ty) is
 *     a = cos(r) sx, b = sin(r) sx, c = -sin(r + skew) sy, d = cos(r + skew) sy; a point (px, py)
 *     maps to (a px + c py + tx, b px + d py + ty).
 *   - A bone's local transform is its setup transform plus its animation pose: x, y, rotation
 *     and skew add, scales multiply. The pose of a bone no timeline moves is 0, 0, 0, 0, 1, 1.
 *   - World matrices follow the bone's inherit flags as DragonBones' runtime computes them;
 *     IK constraints run when their root bone is reached in the update order (parents first,
 *     an IK root after its target).
 *
 * Both the armature and the animation are built from a flat list of numbers (the layout below,
 * written by lua/sinew/dragonbones/compile.lua), checked completely before anything is built:
 * every count, index and number. Every object has the lifecycle of the core (size, then init in
 * caller memory); nothing allocates per frame.
 *
 * ARMATURE LAYOUT (version 1), all numbers:
 *   1, B bones, K constraints, S slots, D displays, M meshes
 *   B x bone:    parent (-1 or 0 .. B-1), flags (1 translation, 2 rotation, 4 scale, 8 reflection),
 *                length, x, y, rotation, skew, scale x, scale y
 *   K x IK:      bone, target, chain (0 or 1), bend positive (0 or 1), weight (0 .. 1)
 *   S x slot:    bone, display index (-1 .. count-1), first display, display count,
 *                blend mode (0 .. 15), colour aM rM gM bM (percent), aO rO gO bO
 *   D x display: type (0 image, 1 mesh, 2 armature, 3 bounding box), mesh (-1 or 0 .. M-1),
 *                x, y, rotation, skew, scale x, scale y
 *   M x mesh:    V vertices, weighted (0 or 1), 2V uvs, then unweighted: 2V vertices (slot space);
 *                weighted: per vertex n (1 .. 16) then n x (bone, weight, x, y in the bone's space)
 *
 * ANIMATION LAYOUT (version 1):
 *   1, F frames (>= 1), frame rate, T timelines, then T x timeline:
 *   type, target, extra, N keys (>= 1), C values per key, then N x key:
 *     start frame (0 for the first, increasing, <= F), tween (0 none, 1 linear, 2 quad in,
 *     3 quad out, 4 quad in-out, 5 curve), amount (quads: percent; curve: sample count n),
 *     n curve samples (curve only, x 10000), C values
 *   types (target; C):  1 bone translate (bone; 2: x, y), 2 bone rotate (bone; 2: rotation, skew),
 *     3 bone scale (bone; 2), 4 slot display (slot; 1: display index, held), 5 slot colour (slot;
 *     8 as the slot's), 6 deform (slot, extra = display of the slot, 0-based; C = the mesh's
 *     deform count: 2 per weight entry of a weighted mesh, 2 per vertex otherwise), 7 draw order
 *     (target 0; C = S: order[k] = the slot drawn k-th, or all -1 for the setup order, held),
 *     8 IK (constraint; 2: weight, bend positive, the second held)
 *   Bone, deform and IK weight values are stored as floats (as DragonBones stores them).
 */
#ifndef SN_RIG2D_H
#define SN_RIG2D_H

#include "common.h"

/// Limits of what an armature or an animation may hold (checked before anything is built).
#define SN_RIG2D_MAX_BONES 4096
#define SN_RIG2D_MAX_SLOTS 4096
#define SN_RIG2D_MAX_DISPLAYS 65536
#define SN_RIG2D_MAX_VERTICES (1 << 20)      ///< mesh vertices in all
#define SN_RIG2D_MAX_WEIGHTS (1 << 22)       ///< weight entries in all
#define SN_RIG2D_MAX_FRAMES 1000000          ///< frames of one animation
#define SN_RIG2D_MAX_TIMELINES 65536
#define SN_RIG2D_MAX_KEYS (1 << 22)          ///< keys of one animation in all
#define SN_RIG2D_MAX_VALUES (1 << 24)        ///< key values of one animation in all

typedef struct sn_rig2d_data sn_rig2d_data;
typedef struct sn_anim2d sn_anim2d;
typedef struct sn_rig2d sn_rig2d;

/// Display types.
enum { SN_RIG2D_IMAGE = 0, SN_RIG2D_MESH = 1, SN_RIG2D_ARMATURE = 2, SN_RIG2D_BOX = 3 };

/* ---- armatures ------------------------------------------------------------------------------ */

/// Bytes an armature of this layout needs, 0 (with `err`) when the layout is invalid.
size_t sn_rig2d_data_size(const double *w, size_t n, const sn_allocator *a, sn_error *err);
/// Builds the armature of layout `w` inside `mem` (sn_rig2d_data_size bytes, 16-aligned).
sn_status sn_rig2d_data_init(void *mem, size_t size, const double *w, size_t n, const sn_allocator *a,
                             sn_error *err);
int sn_rig2d_data_bones(const sn_rig2d_data *d);
int sn_rig2d_data_slots(const sn_rig2d_data *d);
int sn_rig2d_data_constraints(const sn_rig2d_data *d);
/// The parent of bone `b` (0-based), -1 for a root.
int sn_rig2d_data_parent(const sn_rig2d_data *d, int b);
/// The bone of slot `s`.
int sn_rig2d_data_slot_bone(const sn_rig2d_data *d, int s);
/// The type of display `k` (0-based) of slot `s`, -1 when it has none.
int sn_rig2d_data_display_type(const sn_rig2d_data *d, int s, int k);
/// The vertex count of the mesh display `k` of slot `s`, 0 when it is not a mesh.
int sn_rig2d_data_mesh_vertices(const sn_rig2d_data *d, int s, int k);
/// The deform count (numbers per deform key) of the mesh display `k` of slot `s`, 0 if none.
int sn_rig2d_data_deform_count(const sn_rig2d_data *d, int s, int k);

/* ---- animations ----------------------------------------------------------------------------- */

/// Bytes an animation of layout `w` for armature `d` needs, 0 (with `err`) when invalid.
size_t sn_anim2d_size(const sn_rig2d_data *d, const double *w, size_t n, sn_error *err);
sn_status sn_anim2d_init(void *mem, size_t size, const sn_rig2d_data *d, const double *w, size_t n,
                         sn_error *err);
/// Its frames (at least 1) and frame rate; its duration in seconds is frames / frame rate.
int sn_anim2d_frames(const sn_anim2d *an);
double sn_anim2d_frame_rate(const sn_anim2d *an);
double sn_anim2d_duration(const sn_anim2d *an);
const sn_rig2d_data *sn_anim2d_data(const sn_anim2d *an);

/// Samples the bone timelines of `an` at `time` into `pose` (6 numbers a bone, the rest pose for
/// bones it does not key), as sn_rig2d_sample does for a rig.
void sn_anim2d_sample_pose(const sn_anim2d *an, double time, int tween_last, double *pose);

/* ---- 2-D poses: 6 numbers a bone (x, y, rotation, skew, scale x, scale y) ------------------- */

/// The rest pose (0, 0, 0, 0, 1, 1 a bone).
void sn_pose2d_rest(double *p, int bones);
/// out = the blend of n poses with weights and (NULL or per-bone) masks; where a bone's total
/// weight is below `threshold` the rest pose fills in; `out` may be one of the poses.
sn_status sn_pose2d_blend(double *out, int bones, const double *const *poses, const double *weights,
                          const double *const *masks, int n, double threshold, sn_error *err);
/// out = pose - reference (translations and angles: differences; scales: ratios).
void sn_pose2d_delta(double *out, const double *pose, const double *reference, int bones);
/// pose += weight x mask x delta (scales: x 1 + w (ratio - 1)).
void sn_pose2d_add(double *pose, const double *delta, double weight, const double *mask, int bones);
/// Copies `pose` (6 a bone) into the rig's animation pose.
void sn_rig2d_set_pose(sn_rig2d *r, const double *pose);

/* ---- rigs ----------------------------------------------------------------------------------- */

size_t sn_rig2d_size(const sn_rig2d_data *d);
/// A rig of armature `d` in its setup pose (world matrices computed).
void sn_rig2d_init(void *mem, const sn_rig2d_data *d);
const sn_rig2d_data *sn_rig2d_rig_data(const sn_rig2d *r);

/// Sets the rig to the setup pose and slot state (no world update).
void sn_rig2d_setup(sn_rig2d *r);
/// Samples `an` at `time` (seconds, 0 .. duration + a little) into the rig's pose and slot
/// state: the timelines as DragonBones evaluates them. `tween_last`: the last key tweens toward
/// the first (every play but the last of a looping animation). Bones and slots the animation
/// does not key get the setup pose.
void sn_rig2d_sample(sn_rig2d *r, const sn_anim2d *an, double time, int tween_last);
/// World matrices of bones (with IK) and slots from the current pose.
void sn_rig2d_world(sn_rig2d *r);
/// The world matrices after a change of part of the pose, when the rest of the rig's world is
/// current (its last sn_rig2d_world or sn_rig2d_world_changed, nothing else changed since): with
/// `pose` (6 numbers per bone, or NULL) the rig's pose is set to it; the bones whose pose that
/// changes and bone `bone` (-1: none), whose pose the caller changed in place, are redone with
/// every bone below them, every bone whose IK constraint follows one of them (its target or its
/// second bone) and the slots on all of these. Gives the matrices sn_rig2d_world gives, bit for
/// bit; a 2-D IK solve of two bones of a 19-bone rig redoes a few bones instead of all. A change
/// that reaches back up to a constraint's root through its second bone (constraints in a row on
/// one bone) redoes that root and what follows it too (more than 8 such steps: the whole rig).
void sn_rig2d_world_changed(sn_rig2d *r, const double *pose, int bone);

/// The animation pose of the rig: 6 numbers per bone (x, y, rotation, skew, scale x, scale y).
double *sn_rig2d_pose(sn_rig2d *r);
/// The world matrix of bone `b`: a, b, c, d, tx, ty.
const double *sn_rig2d_bone_matrix(const sn_rig2d *r, int b);
/// The world matrix of slot `s` (its display's transform in its bone's): a, b, c, d, tx, ty.
const double *sn_rig2d_slot_matrix(const sn_rig2d *r, int s);
/// Slot `s`'s display index (-1 none), draw position (1 = first drawn) and colour
/// (multipliers a, r, g, b then offsets a, r, g, b).
int sn_rig2d_slot_display(const sn_rig2d *r, int s);
int sn_rig2d_slot_position(const sn_rig2d *r, int s);
const double *sn_rig2d_slot_color(const sn_rig2d *r, int s);
/// The slot drawn k-th (0-based).
int sn_rig2d_draw_order(const sn_rig2d *r, int k);
/// Sets slot `s`'s display index (-1 .. count-1); the deform restarts when the mesh changes.
sn_status sn_rig2d_set_display(sn_rig2d *r, int s, int display, sn_error *err);
/// IK constraint `k`'s weight and bend direction as the rig will use them.
void sn_rig2d_constraint(const sn_rig2d *r, int k, double *weight, int *bend_positive);

/// The vertices of the mesh slot `s` shows, in armature space, into out[0 .. 2V-1] (at most
/// `cap` numbers); returns V, 0 when the slot shows no mesh. The deform is applied.
int sn_rig2d_vertices(const sn_rig2d *r, int s, double *out, int cap);

/// Bytes of one vertex of sn_rig2d_mesh: x, y, u, v as floats, then r, g, b, a as bytes (the
/// layout of love.graphics.newMesh's default format: VertexPosition, VertexTexCoord, VertexColor).
#define SN_RIG2D_VERTEX_BYTES 20
/// Fills the rig's vertex buffer for the mesh slot `s` shows (armature-space positions as
/// sn_rig2d_vertices, the mesh's uvs, the slot's colour multipliers as bytes) and returns it;
/// *count gets its vertex count. NULL (count 0) when the slot shows no mesh.
const unsigned char *sn_rig2d_mesh(sn_rig2d *r, int s, int *count);

#endif
