/*
 * Private to src/core: what poses, masks, blending and clips read of a skeleton beyond its
 * public accessors: the row layout of transforms, the rest pose as rows, the parents array, and
 * the alignment rule of every object block.
 *
 * CONVENTIONS: as skeleton.h. Not part of the public API.
 */
#ifndef SN_SKELETON_INTERNAL_H
#define SN_SKELETON_INTERNAL_H

#include "skeleton.h"

/// Row (0 .. 9) at which component `c` of a transform (tx, ty, tz, qx, qy, qz, qw, sx, sy, sz)
/// is stored in the rest pose and in poses: translation x, y, z in rows 0-2, scale x, y, z in
/// rows 3-5 and rotation x, y, z, w in rows 6-9, so that the six linearly blended rows are one
/// contiguous run.
#define SN_ROW(c) ((c) < 3 ? (c) : (c) < 7 ? (c) + 3 : (c) - 4)
/// First row of the translation, scale and rotation components.
#define SN_ROW_T 0
#define SN_ROW_S 3
#define SN_ROW_Q 6

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
