/*
 * Private to src/core: the layout of a clip, shared by clip_build.c (validation, grouping,
 * layout and construction) and clip_sample.c (cursors and the per-frame kernels).
 *
 * Clips: tracks of keys, sampled by loops that run over many tracks at once.
 *
 * Tracks are sorted into groups by interpolation and path, and by joint inside a group; each
 * group keeps a cache of what its tracks need at the current time as structure-of-arrays rows,
 * and a frame computes the values of all its tracks in vectorised loops over all of them at once
 * (for linear tracks, every component and the normalisation of rotations in one pass), straight
 * into the pose when the group covers every joint of its path ("dense"), else into scratch rows
 * scattered to the joints. Every group's cursor moves first, then every group computes.
 *
 * - Tracks with the same key times (the usual case: exporters bake every channel at the same
 *   rate) share one cursor: their keys become interval records (see cache_rows) stored interval
 *   by interval as rows, so moving to the next interval moves a pointer and the fraction is one
 *   number.
 * - Other tracks ("keyed" groups) keep a cursor each, as ozz-animation's SamplingJob does: the
 *   cache holds the two keys around the current time of every track (key k in slot k & 1, so the
 *   contents depend on the time only, not on how the clip got there; step tracks hold one key),
 *   and every key of every track is an entry of one stream sorted by the time it becomes needed,
 *   which names the cache column it refills. Forward playback applies the entries up to the new
 *   time in order (sequential reads, a few scalar stores per key); the interpolation works out
 *   each track's fraction from the two keys' times. Going back or jumping far re-searches each
 */
#ifndef SN_CLIP_INTERNAL_H
#define SN_CLIP_INTERNAL_H

#include "clip.h"
#include "pose_internal.h"

/* a word of a keyed group's stream: an entry's need time and payload are floats, its cache
   offset an int */
typedef union clip_word {
    float f;
    int i;
} clip_word;

typedef struct clip_group {
    int n;             /* lanes: tracks, or every joint for a dense shared-times clip_group */
    int np;            /* n rounded up to SN_SKELETON_LANES: the length of every row */
    int path, interp;  /* what the tracks animate, how */
    int rows;          /* shared times: floats per interval record (cache_rows); keyed: payload */
    int direct;        /* 1 when lane j is joint j for every joint: write the pose rows in place */
    int uniform;       /* 1 when every track has the same key times: one cursor for the clip_group */
    float *cache;      /* shared times: the current interval, rows x np floats; keyed: the keys
                          around the current time, `rows` rows of depth x np floats */
    /* shared times: the intervals, each rows x np floats; the cache points at the current one */
    float *block;
    int intervals;
    /* keyed: the entries of every key of every track, 2 + rows words each (the time from which
       it is needed, the cache offset lane + slot * np, then the payload: time and value for
       linear, time, value, in- and out-tangent for cubic, value for step), sorted by the time
       they are needed; `total` entries and a last one needed at +inf. The entries before `pos`
       are in the cache (for each lane and slot the latest), the others come as time goes on. */
    clip_word *stream;
    int depth;         /* keyed: keys per lane in the cache, 2 (1 for step) */
    int total, pos;
    float tprev;       /* the time of the last sample: going back re-searches */
    float *need;       /* total: per lane (from first[lane] on), its entries' need times in key order */
    float *keys;       /* total x rows: the same entries' payloads */
    int *first;        /* np: where a lane's entries start in `need` and `keys` */
    int *count;        /* np: how many entries the lane has */
    int *joint;        /* np: the joint of each lane (lane j is joint j in a dense group; in
                          increasing order in the others: sn_clip_sample_joint searches them) */
    float *animated;   /* np: 1 for a lane with a track, 0 for a rest lane of a dense clip_group */
} clip_group;

struct sn_clip {
    const sn_skeleton *skeleton;
    float duration;
    int track_count;
    int stride;
    int fill[4];             /* 1 when some joint (morph) has no track for this path: copy the rest
                                pose (the default weights) */
    int group_count;
    clip_group *groups;           /* group_count groups */
    float *scratch;          /* 5 rows of the largest np: a scattered group's results, fractions */
    int scratch_np;
};

static inline int width_of(int path) { return path == SN_CLIP_ROTATION ? 4 : path == SN_CLIP_WEIGHT ? 1 : 3; }

/* the number of paths (SN_CLIP_TRANSLATION .. SN_CLIP_WEIGHT) */
#define CLIP_PATHS 4

/* rows of a group's cache, which are also the floats of one key interval record: lo, hi (the
   interval's bounds, -inf and +inf at the two ends), t0, 1/dt, then the coefficients, each
   `width` floats: v0 and v1 - v0 (linear), v0 (step), p0, dt * m0, p1 - p0, dt * m1 (cubic) */
static inline int cache_rows(int path, int interp) {
    return 4 + width_of(path) * (interp == SN_CLIP_CUBIC ? 4 : interp == SN_CLIP_LINEAR ? 2 : 1);
}

/* key intervals of a track: one from each key to the next, and a last one holding the last key
   from its time on (so that the last key is hit exactly); a track of one key holds it always */
static inline int intervals_of(int keys) { return keys; }

/* keys per lane in the cache of a keyed group: the two around the current time, one for step */
static inline int keyed_depth(int interp) { return interp == SN_CLIP_STEP ? 1 : 2; }

/* floats a key brings into a keyed group's cache (its payload; the cache has as many rows):
   time and value (linear), time, value, in- and out-tangent (cubic), value (step) */
static inline int keyed_payload(int path, int interp) {
    const int w = width_of(path);
    return interp == SN_CLIP_STEP ? w : interp == SN_CLIP_CUBIC ? 1 + 3 * w : 1 + w;
}

/* padding of a group's rows: n rounded up to SN_SKELETON_LANES */
static inline int padded(int n) { return (n + SN_SKELETON_LANES - 1) / SN_SKELETON_LANES * SN_SKELETON_LANES; }

/* rows of scratch: the results of a group that scatters (at most a rotation's 4), fractions */
#define SCRATCH_ROWS 5

/* Keyed group: loads the keys around time t of every lane into the cache by bisection
   (clip_sample.c); construction calls it to load the keys needed from the start. */
void sn_clip_seek_keyed(clip_group *g, float t);
/* Keyed group: the cache before any key is loaded (clip_build.c); a cursor starts from it too. */
void sn_clip_clear_keyed(clip_group *g);

/* What moves when a clip is sampled, per group (the rest of a clip never changes): the cache
   pointer (shared times: into `block`; keyed: the keys around the current time), `pos` and
   `tprev`. A clip keeps one set in its groups; an sn_clip_cursor keeps another (clip_cursor.c). */
typedef struct clip_state {
    float *cache;
    int pos;
    float tprev;
} clip_state;

struct sn_clip_cursor {
    sn_clip *clip;
    int group_count;
    clip_state *groups; /* group_count; the caches of keyed groups follow */
};

#endif
