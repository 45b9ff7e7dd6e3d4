/*
 * sinew core: keyframed clips sampled into poses.
 *
 * CONVENTIONS
 *   - Joints are 0-based (messages count joints, tracks and keys from 1, as the Lua API does).
 *     Times are seconds; values are float32: translations and scales x, y, z, rotations
 *     x, y, z, w.
 *   - A track animates one path (translation, rotation or scale) of one joint with keys at
 *     strictly increasing times in [0, duration]. Interpolation:
 *       linear       translation and scale lerp; rotation nlerp (normalised lerp on the shortest
 *                    arc: consecutive keys are put in the same hemisphere at construction)
 *       step         the value of the last key at or before t
 *       cubicspline  glTF's Hermite form: per key an in-tangent, the value and an out-tangent;
 *                    p = (2s^3-3s^2+1) v0 + (s^3-2s^2+s) dt b0 + (-2s^3+3s^2) v1 + (s^3-s^2) dt a1,
 *                    rotations normalised afterwards
 *     Before the first key a track holds its first value, after the last key its last value.
 *     Paths of joints without a track take the skeleton's rest pose.
 *   - Weight tracks (SN_CLIP_WEIGHT) animate one morph target's weight (the track's `joint` field
 *     holds the morph index), one value per key (in-tangent, value, out-tangent for cubic: glTF's
 *     cubicspline with width 1), interpolated as translations are and never clamped; sampling
 *     writes the pose's morph weights, and morphs without a track take the skeleton's default
 *     weights. They are grouped, share key times and cost per key as translation tracks of one
 *     component do (a third of a translation's value floats: 16 to 32 bytes per key).
 *   - A clip has the lifecycle of every core object (sn_clip_def_init, sn_clip_validate,
 *     sn_clip_size, sn_clip_init): it is built once inside caller memory and refers to its
 *     skeleton, which must outlive it. It takes 28 to 116 bytes per key (28 for a step key of
 *     tracks that share their key times, 116 for a cubic rotation key with its own times), less
 *     than the numbers of its definition take in a Lua table; construction needs scratch of
 *     about 100 bytes per track and 12 per key from the definition's allocator. It keeps its
 *     cursors (the current key interval of each track: one for all tracks that share key
 *     times), so sampling forward in time costs no key search; a backward seek or a jump
 *     re-searches by bisection (tracks with their own key times replay from the start instead
 *     when the new time is near it, as when a loop wraps around). Sampling never allocates; a
 *     clip must not be sampled from two threads at once.
 *   - Cursors: many playbacks of one clip (a crowd, each character at its own time) each keep an
 *     sn_clip_cursor, so that each plays forward without a key search. A cursor is built inside
 *     caller memory from a clip (sn_clip_cursor_size: 32 bytes, 16 per group of tracks and, for
 *     tracks with their own key times, 12 to 104 bytes per track) and refers to it; sampling through it uses the
 *     clip's data and the cursor's place, and leaves the clip's own cursors as they were.
 */
#ifndef SN_CLIP_H
#define SN_CLIP_H

#include "common.h"
#include "pose.h"
#include "skeleton.h"

/// Largest magnitude of a clip value or tangent: keeps every float product of sampling finite.
#define SN_CLIP_MAX_VALUE 1e18
/// Longest clip duration, in seconds (about 31 years).
#define SN_CLIP_MAX_TIME 1e9
/// Most keys of one track.
#define SN_CLIP_MAX_TRACK_KEYS (1 << 24)
/// Most keys of all the tracks of a clip.
#define SN_CLIP_MAX_KEYS (1 << 26)

/// What a track animates.
typedef enum sn_clip_path {
    SN_CLIP_TRANSLATION,  ///< 3 values per key
    SN_CLIP_ROTATION,     ///< 4 values per key (quaternion x, y, z, w; non-zero)
    SN_CLIP_SCALE,        ///< 3 values per key
    SN_CLIP_WEIGHT        ///< 1 value per key: a morph target's weight (`joint` is the morph index)
} sn_clip_path;

/// How a track interpolates between keys.
typedef enum sn_clip_interpolation {
    SN_CLIP_LINEAR,  ///< lerp (rotations: nlerp on the shortest arc)
    SN_CLIP_STEP,    ///< hold the previous key
    SN_CLIP_CUBIC    ///< glTF cubic spline: 3 values (in-tangent, value, out-tangent) per key
} sn_clip_interpolation;

/// One track of a clip definition. Arrays are read during sn_clip_size/init only.
typedef struct sn_clip_track_def {
    int joint;                            ///< animated joint, 0-based; the morph (0-based) for SN_CLIP_WEIGHT
    sn_clip_path path;                    ///< what it animates
    sn_clip_interpolation interpolation;  ///< how it interpolates
    int keys;                             ///< number of keys, >= 1
    const float *times;                   ///< keys times, finite, strictly increasing, in [0, duration]
    const float *values;                  ///< keys * width floats (width 3, 4, or 1 for weights), 3 times more for cubic
} sn_clip_track_def;

/// What a clip is built from.
typedef struct sn_clip_def {
    const sn_skeleton *skeleton;          ///< the skeleton the tracks animate; outlives the clip
    float duration;                       ///< seconds, finite, >= 0 (0: a still pose)
    int track_count;                      ///< number of tracks, >= 0
    const sn_clip_track_def *tracks;      ///< track_count tracks, at most one per joint and path, one per morph
    const sn_allocator *alloc;            ///< scratch while building (see sn_allocator); NULL: malloc
} sn_clip_def;

/// Fills `def` with an empty definition: no skeleton, no tracks, duration 0, malloc for scratch.
void sn_clip_def_init(sn_clip_def *def);

/// A built clip (opaque; built by sn_clip_init).
typedef struct sn_clip sn_clip;

/// Checks `def` fully: skeleton, duration, every track's joint (morph for weights), path,
/// interpolation, key count, times (finite, increasing, within the duration), value count and
/// values (finite, at most SN_CLIP_MAX_VALUE, rotations non-zero), no two tracks on the same
/// joint and path or the same morph. err->msg names the first fault.
sn_status sn_clip_validate(const sn_clip_def *def, sn_error *err);
/// Bytes needed by the clip of `def`; 0 when `def` is invalid (then `err` says why).
size_t sn_clip_size(const sn_clip_def *def, sn_error *err);
/// Builds the clip of `def` inside `mem` (at least sn_clip_size bytes, aligned as
/// malloc or a Lua userdata; the arrays inside are 16-byte aligned whatever the address).
sn_status sn_clip_init(void *mem, size_t size, const sn_clip_def *def, sn_error *err);

/// The skeleton of `c`.
const sn_skeleton *sn_clip_skeleton(const sn_clip *c);
/// The duration of `c` in seconds.
float sn_clip_duration(const sn_clip *c);
/// The number of tracks of `c`.
int sn_clip_track_count(const sn_clip *c);
/// The local time at which sn_clip_sample(c, t, loop, ...) samples: with `loop`, t wrapped into
/// [0, duration) (negative times and times far past the end included); without, t clamped to
/// [0, duration]. `t` must be finite.
double sn_clip_local_time(const sn_clip *c, double t, int loop);
/// Samples `c` at time `t` (seconds, finite; see sn_clip_local_time) into `out`, a pose of the
/// clip's skeleton (its transforms and its morph weights), and moves the cursor there. SN_EINVAL for a pose of another skeleton or a
/// non-finite time (nothing written then).
sn_status sn_clip_sample(sn_clip *c, double t, int loop, sn_pose *out, sn_error *err);

/// Samples joint `joint` (0-based) of `c` at time `t` (as sn_clip_sample; weight tracks are not
/// read) into `out`: translation
/// x, y, z, rotation x, y, z, w, scale x, y, z, as sn_pose_get gives them after sn_clip_sample,
/// bit for bit. Reads the clip only (its cursor stays where it is; threads may call this at once);
/// finds the joint's keys at each call (a guess, exact for keys at a steady rate, or a bisection
/// per group of tracks). SN_EINVAL for a non-finite time (arg 1) or a joint
/// out of range (arg 2); nothing written then.
sn_status sn_clip_sample_joint(const sn_clip *c, double t, int loop, int joint, float out[10], sn_error *err);

/// One playback's place in a clip (opaque; built by sn_clip_cursor_init).
typedef struct sn_clip_cursor sn_clip_cursor;
/// What a cursor is built from.
typedef struct sn_clip_cursor_def {
    sn_clip *clip;  ///< the clip; outlives the cursor
} sn_clip_cursor_def;
/// Fills `def` with an empty definition (no clip).
void sn_clip_cursor_def_init(sn_clip_cursor_def *def);
/// SN_EINVAL without a clip.
sn_status sn_clip_cursor_validate(const sn_clip_cursor_def *def, sn_error *err);
/// Bytes of the cursor `def` describes; 0 (and `err`) when it is invalid.
size_t sn_clip_cursor_size(const sn_clip_cursor_def *def, sn_error *err);
/// Builds the cursor in `mem` (`size` bytes, 16-byte aligned), at the start of the clip.
sn_status sn_clip_cursor_init(void *mem, size_t size, const sn_clip_cursor_def *def, sn_error *err);
/// The clip of a cursor.
sn_clip *sn_clip_cursor_clip(const sn_clip_cursor *cur);
/// sn_clip_sample of the cursor's clip, moving the cursor instead of the clip's own: the same
/// pose as sn_clip_sample at that time, with no key search when the cursor plays forward.
/// SN_EINVAL as sn_clip_sample (arg 1 the time, 2 the pose).
sn_status sn_clip_cursor_sample(sn_clip_cursor *cur, double t, int loop, sn_pose *out, sn_error *err);

#endif
