/*
 * Private to src/core: the layout of poses and masks, shared by pose.c, blend.c and the clip
 * files.
 *
 * CONVENTIONS: as pose.h. Not part of the public API.
 */
#ifndef SN_POSE_INTERNAL_H
#define SN_POSE_INTERNAL_H

#include "pose.h"
#include "skeleton_internal.h"

/// Rows of the blend scratch of a pose: the sums of the 10 channels and of the masked weights
/// between the layers' passes, and 4 rows of rotations kept aside.
#define SN_POSE_ACC_ROWS 15
/// Place of the masked weights' sum among the sums of a block of the blend scratch (blend.c keeps
/// the first 11 * stride floats block by block: 11 sums of four joints together).
#define SN_POSE_ACC_W 10
/// First of the four rows (after the blocks) where sn_pose_blend_method keeps its rotations while
/// sn_pose_blend runs.
#define SN_POSE_ACC_KEEP 11

/// A pose: header, then (16-byte aligned) the channels and the blend scratch.
struct sn_pose {
    const sn_skeleton *skeleton;  ///< the skeleton, outlives the pose
    int count;                    ///< joints
    int stride;                   ///< floats per channel (count padded)
    float *ch;                    ///< SN_POSE_CHANNELS rows of stride floats (see SN_ROW)
    float *acc;                   ///< SN_POSE_ACC_ROWS * stride floats of blend scratch (see blend.c)
    int morph_count;              ///< morph targets of the skeleton
    int morph_stride;             ///< floats of mw (morph_count padded)
    float *mw;                    ///< morph_stride morph weights (padding 0), after the scratch
};

/// A matrix set: header, then (16-byte aligned) 16 floats per joint.
struct sn_matrices {
    const sn_skeleton *skeleton;  ///< the skeleton, outlives the matrices
    int count;                    ///< joints
    float *m;                     ///< 16 * count floats, column-major 4x4 per joint
};

/// A mask: header, then (16-byte aligned) the weights.
struct sn_mask {
    const sn_skeleton *skeleton;  ///< the skeleton, outlives the mask
    int count;                    ///< joints
    int stride;                   ///< floats of w (count padded)
    float *w;                     ///< stride weights in [0, 1], padding 0
    int morph_count;              ///< morph targets of the skeleton
    float *mw;                    ///< morph stride factors in [0, 1], padding 0, after w
};

#endif
