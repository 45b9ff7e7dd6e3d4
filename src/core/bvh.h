/*
 * sinew core: the MOTION section of BVH motion-capture files, read into numbers, and the keys of
 * a sinew clip made from them (the hierarchy is read in Lua, lua/sinew/bvh/read.lua).
 *
 * CONVENTIONS
 *   - Lines end with "\n", "\r\n" or "\r"; a frame is one line of numbers separated by white space
 *     (' ', '\t', '\v', '\f'); lines of white space alone are skipped. A
 *     number is what C's strtod reads whole (decimal or hexadecimal, with the locale's decimal
 *     point or '.') and is finite; tokens longer than SN_BVH_MAX_TOKEN bytes are refused.
 *   - Values are doubles, frame by frame, `channels` a frame. Frames and numbers in faults count
 *     from 1, lines from the line the reading began on (0).
 *   - Nothing here allocates; outputs are the caller's.
 */
#ifndef SN_BVH_H
#define SN_BVH_H

#include <stddef.h>

#include "common.h"

/// The longest number token read, in bytes.
#define SN_BVH_MAX_TOKEN 255

/// What sn_bvh_frames found wrong.
typedef enum sn_bvh_fault_kind {
    SN_BVH_OK,          ///< nothing
    SN_BVH_MISSING,     ///< the text ends before frame `frame` (`line`: the last line not blank)
    SN_BVH_NOT_NUMBER,  ///< token `number` of frame `frame` is not a finite number
    SN_BVH_TOO_MANY,    ///< frame `frame` has more numbers than the channels
    SN_BVH_TOO_FEW      ///< frame `frame` has `number` numbers, fewer than the channels
} sn_bvh_fault_kind;

/// Where and what sn_bvh_frames refused.
typedef struct sn_bvh_fault {
    sn_bvh_fault_kind kind;
    long frame;          ///< 1-based
    int number;          ///< 1-based within the frame (the count read, for SN_BVH_TOO_FEW)
    size_t line;         ///< the line of the fault, counted from the line the reading began on
    size_t token;        ///< SN_BVH_NOT_NUMBER: the token's offset in the text
    size_t token_len;    ///< and its length
} sn_bvh_fault;

/// Reads `frames` frames of `channels` numbers (channels >= 1) from text[start ..] (start at the
/// beginning of a line) into out (frames * channels doubles; NULL: read and checked only). SN_OK, or SN_EINVAL with `fault`
/// filled (the first fault, in reading order: a token that is not a number before a count that
/// does not match); nothing after the last frame's line is read.
sn_status sn_bvh_frames(const char *text, size_t len, size_t start, long frames, int channels, double *out,
                        sn_bvh_fault *fault);

/// The rotation keys of one joint: per frame the product of the turns of its `n` rotation
/// channels in their order (column cols[i] of the frame, degrees, about axis axes[i]: 0 x, 1 y,
/// 2 z), q = R(c1) R(c2) ..., converted from Z-up to Y-up when `zup` (C q C^-1, C a turn of -90
/// degrees about x), each key in the hemisphere of the one before; 4 floats (x, y, z, w) a frame
/// into out. Computed in double, rounded to float at the end.
void sn_bvh_rotations(const double *values, long frames, int channels, const int *cols, const int *axes, int n,
                      int zup, float *out);

/// The translation keys of one joint: per frame (offset + the position channels' values, cols[a]
/// the column of axis a or -1 for none) * scale, converted from Z-up ((x, y, z) -> (x, z, -y))
/// when `zup`, and with `in_place` x and z held at the first frame's; 3 floats a frame into out.
/// Returns 0, or the first frame (1-based) whose scaled position has a coordinate beyond
/// `max_coord` or not finite (then out is partly written).
long sn_bvh_positions(const double *values, long frames, int channels, const int cols[3], const double offset[3],
                      double scale, int zup, int in_place, double max_coord, float *out);

#endif
