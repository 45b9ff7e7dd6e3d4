/*
 * Private to src/core: the layout of poses and masks, shared by skeleton.c, pose.c, blend.c and
 * clip.c.
 *
 * CONVENTIONS: as pose.h. Not part of the public API.
 */
#ifndef SN_ANIM_INTERNAL_H
#define SN_ANIM_INTERNAL_H

#include "pose.h"

/// Row (0 .. 9) at which channel `c` (SN_POSE_TX .. SN_POSE_SZ) is stored in poses and in the
/// rest pose: translation x, y, z in rows 0-2, scale x, y, z in rows 3-5 and rotation x, y, z, w
/// in rows 6-9, so that the six linearly blended rows are one contiguous run.
#define SN_ROW(c) ((c) < 3 ? (c) : (c) < 7 ? (c) + 3 : (c) - 4)
/// First row of the translation, scale and rotation channels.
#define SN_ROW_T 0
#define SN_ROW_S 3
#define SN_ROW_Q 6

/// Rows of the blend scratch of a pose: 10 accumulated channels, the accumulated weight, the
/// rest-pose fill weight and the reciprocal total weight.
#define SN_POSE_ACC_ROWS 13
/// Row of the accumulated weight in the blend scratch.
#define SN_POSE_ACC_W 10
/// Row of the rest-pose fill weight in the blend scratch.
#define SN_POSE_ACC_FILL 11
/// Row of the reciprocal of the total weight in the blend scratch.
#define SN_POSE_ACC_INV 12

/// A pose: header, then (16-byte aligned) the channels and the blend scratch.
struct sn_pose {
    const sn_skeleton *skeleton;  ///< the skeleton, outlives the pose
    int count;                    ///< joints
    int stride;                   ///< floats per channel (count padded)
    float *ch;                    ///< SN_POSE_CHANNELS rows of stride floats (see SN_ROW)
    float *acc;                   ///< SN_POSE_ACC_ROWS * stride floats of blend scratch
};

/// A mask: header, then (16-byte aligned) the weights.
struct sn_mask {
    const sn_skeleton *skeleton;  ///< the skeleton, outlives the mask
    int count;                    ///< joints
    int stride;                   ///< floats of w (count padded)
    float *w;                     ///< stride weights in [0, 1], padding 0
};

/// The rest pose of `s` as 10 rows (see SN_ROW) of sn_skeleton_stride floats, 16-byte aligned.
const float *sn_skeleton_rest_soa(const sn_skeleton *s);

/// The parent of every joint of `s` (count ints, -1 for a root).
const int *sn_skeleton_parents(const sn_skeleton *s);

/// The first 16-byte aligned address at least `header` bytes after `mem`: object blocks reserve
/// 15 bytes of slack so that their arrays are aligned whatever the alignment of `mem`.
static inline unsigned char *sn_aligned_after(void *mem, size_t header) {
    size_t addr = (size_t)((unsigned char *)mem + header);
    return (unsigned char *)mem + (SN_ALIGN16(addr) - (size_t)mem);
}

#endif
