/*
 * sinew core: groups, many characters' per-frame work in one call.
 *
 * CONVENTIONS: a group is a list of operations on core objects (sample a clip through a cursor,
 * blend poses, build model-space matrices, step or update a dynamic chain, pose a 2-D rig at an
 * animation's time), run in order by one
 * call, with the numbers that change every frame (sample times, blend weights) read from one
 * array of parameters, each operation naming its slots in it. It runs the same core functions
 * as one call per object, so the results are the same, bit for bit. The arrays belong to the
 * caller (the Lua binding grows them as operations are added); running never allocates. The
 * objects an operation names must outlive the group's use of them; the caller checks when adding
 * an operation that its objects fit together (one skeleton), as sn_group_check_op does.
 */
#ifndef SN_GROUP_H
#define SN_GROUP_H

#include "chain.h"
#include "clip.h"
#include "common.h"
#include "pose.h"
#include "rig2d.h"

/// What an operation does.
typedef enum sn_group_kind {
    SN_GROUP_SAMPLE,    ///< sn_clip_cursor_sample(cursor, params[slot], n, pose)
    SN_GROUP_BLEND,     ///< sn_pose_blend_method(pose, n layers from `layer`, weights params[slot ..])
    SN_GROUP_TO_MODEL,  ///< sn_pose_to_matrices(pose, mats)
    SN_GROUP_STEP,      ///< sn_chain_step(chain, dt)
    SN_GROUP_UPDATE,    ///< sn_chain_update(chain, dt, pose, NULL)
    SN_GROUP_RIG2D      ///< sn_rig2d_sample(rig, anim, params[slot], n) then sn_rig2d_world(rig)
} sn_group_kind;

/// One operation of a group.
typedef struct sn_group_op {
    sn_group_kind kind;      ///< what it does
    int slot;                ///< its first parameter: a sample's time, a blend's n weights
    int n;                   ///< blend: layers; sample: 1 to loop, 0 to clamp
    int layer;               ///< blend: its first layer in the group's layers (their weights are set by the run)
    float threshold;         ///< blend: sn_pose_blend's threshold
    sn_blend_method method;  ///< blend: how rotations are averaged
    sn_clip_cursor *cursor;  ///< sample
    sn_pose *pose;           ///< sample, blend (the output), to_model, update
    sn_matrices *mats;       ///< to_model
    sn_chain *chain;         ///< step, update
    sn_rig2d *rig;           ///< rig2d: a 2-D rig (n: 1 when the last key tweens toward the first)
    const sn_anim2d *anim;   ///< rig2d: an animation of the rig's armature
} sn_group_op;

/// Checks one operation as it is added: objects present and of one skeleton (the blend's layers
/// `layers` included, masks too), slots >= 0, a known kind and method, threshold finite and > 0.
/// err->arg 1; the message says what does not fit.
sn_status sn_group_check_op(const sn_group_op *op, const sn_blend_layer *layers, sn_error *err);
/// Checks a run before anything moves: dt finite and >= 0 (err->arg 1), every slot of every
/// operation inside the `nparams` parameters, sample times finite, blend weights in [0, FLT_MAX]
/// (err->arg 2; the message names the operation and the parameter, from 1).
sn_status sn_group_validate_run(const sn_group_op *ops, int n, double dt, const double *params, int nparams,
                                sn_error *err);
/// Runs the n operations in order (sn_group_validate_run first; nothing moves when it refuses).
/// A refusal of the core past that point (a chain whose pose places a joint out of range) stops
/// the run at that operation with its message after "operation 5 (update): "; the operations
/// before it have run. Allocates nothing.
sn_status sn_group_run(const sn_group_op *ops, int n, sn_blend_layer *layers, double dt, const double *params,
                       int nparams, sn_error *err);

#endif
