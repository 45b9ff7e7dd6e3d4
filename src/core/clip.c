/*
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
 *   track by bisection; going back to near the start replays from there.
 */
#include "clip.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim_internal.h"

#if defined(__GNUC__)
#define KERNEL static __attribute__((noinline)) void
#else
#define KERNEL static void
#endif

/* tracks with the same key times form a group with one cursor when there are at least this
   many of them (fewer are cheaper in a per-track group) or when they are all the tracks of
   their interpolation and path */
#define MIN_SHARED 8

/* a word of a keyed group's stream: an entry's need time and payload are floats, its cache
   offset an int */
typedef union word {
    float f;
    int i;
} word;

typedef struct group {
    int n;             /* lanes: tracks, or every joint for a dense shared-times group */
    int np;            /* n rounded up to SN_SKELETON_LANES: the length of every row */
    int path, interp;  /* what the tracks animate, how */
    int rows;          /* shared times: floats per interval record (cache_rows); keyed: payload */
    int direct;        /* 1 when lane j is joint j for every joint: write the pose rows in place */
    int uniform;       /* 1 when every track has the same key times: one cursor for the group */
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
    word *stream;
    int depth;         /* keyed: keys per lane in the cache, 2 (1 for step) */
    int total, pos;
    float tprev;       /* the time of the last sample: going back re-searches */
    float *need;       /* total: per lane (from first[lane] on), its entries' need times in key order */
    float *keys;       /* total x rows: the same entries' payloads */
    int *first;        /* np: where a lane's entries start in `need` and `keys` */
    int *count;        /* np: how many entries the lane has */
    int *joint;        /* np: the joint of each lane */
    float *animated;   /* np: 1 for a lane with a track, 0 for a rest lane of a dense group */
} group;

struct sn_clip {
    const sn_skeleton *skeleton;
    float duration;
    int track_count;
    int stride;
    int fill[3];             /* 1 when some joint has no track for this path: copy the rest pose */
    int group_count;
    group *groups;           /* group_count groups */
    float *scratch;          /* 5 rows of the largest np: a scattered group's results, fractions */
    int scratch_np;
};

static const char *const path_names[3] = {"translation", "rotation", "scale"};
static const int path_row[3] = {SN_ROW_T, SN_ROW_Q, SN_ROW_S};

static int width_of(int path) { return path == SN_CLIP_ROTATION ? 4 : 3; }

/* rows of a group's cache, which are also the floats of one key interval record: lo, hi (the
   interval's bounds, -inf and +inf at the two ends), t0, 1/dt, then the coefficients, each
   `width` floats: v0 and v1 - v0 (linear), v0 (step), p0, dt * m0, p1 - p0, dt * m1 (cubic) */
static int cache_rows(int path, int interp) {
    return 4 + width_of(path) * (interp == SN_CLIP_CUBIC ? 4 : interp == SN_CLIP_LINEAR ? 2 : 1);
}

/* key intervals of a track: one from each key to the next, and a last one holding the last key
   from its time on (so that the last key is hit exactly); a track of one key holds it always */
static int intervals_of(int keys) { return keys; }

/* keys per lane in the cache of a keyed group: the two around the current time, one for step */
static int keyed_depth(int interp) { return interp == SN_CLIP_STEP ? 1 : 2; }

/* floats a key brings into a keyed group's cache (its payload; the cache has as many rows):
   time and value (linear), time, value, in- and out-tangent (cubic), value (step) */
static int keyed_payload(int path, int interp) {
    const int w = width_of(path);
    return interp == SN_CLIP_STEP ? w : interp == SN_CLIP_CUBIC ? 1 + 3 * w : 1 + w;
}

/* entries of a track in a keyed group's stream: one per key, and a second one for a one-key
   track that interpolates, which fills its other slot with the same value */
static int entries_of(const sn_clip_track_def *tr) {
    const int d = keyed_depth(tr->interpolation);
    return tr->keys > d ? tr->keys : d;
}

static int values_of(const sn_clip_track_def *tr) {
    return tr->keys * width_of(tr->path) * (tr->interpolation == SN_CLIP_CUBIC ? 3 : 1);
}

/* track i's fault: "track i (joint 'name' rotation): ..." */
#define TRACK_FAIL(fmt, ...)                                                                                   \
    sn_fail(err, SN_EINVAL, "track %d ('%s' %s): " fmt, i + 1, sn_skeleton_name(def->skeleton, tr->joint), \
            path_names[tr->path], __VA_ARGS__)

static sn_status check_track(const sn_clip_def *def, int i, sn_error *err) {
    const sn_clip_track_def *tr = &def->tracks[i];
    int k, c, w, n, nvalues;
    if (tr->joint < 0 || tr->joint >= sn_skeleton_count(def->skeleton))
        return sn_fail(err, SN_EINVAL, "track %d: joint %d is out of range (1 .. %d)", i + 1, tr->joint + 1,
                       sn_skeleton_count(def->skeleton));
    if ((unsigned)tr->path > SN_CLIP_SCALE)
        return sn_fail(err, SN_EINVAL, "track %d: unknown path %d", i + 1, (int)tr->path);
    if ((unsigned)tr->interpolation > SN_CLIP_CUBIC)
        return sn_fail(err, SN_EINVAL, "track %d: unknown interpolation %d", i + 1, (int)tr->interpolation);
    if (tr->keys < 1 || tr->times == NULL || tr->values == NULL) return TRACK_FAIL("%s", "no keys");
    if (tr->keys > (1 << 24)) return TRACK_FAIL("%d keys, more than %d", tr->keys, 1 << 24);
    for (k = 0; k < tr->keys; k++) {
        float t = tr->times[k];
        if (!sn_isfinite(t)) return TRACK_FAIL("time %d is not finite", k + 1);
        if (t < 0.0f) return TRACK_FAIL("time %d (%g) is negative", k + 1, (double)t);
        if (t > def->duration)
            return TRACK_FAIL("time %d (%g) is past the duration (%g)", k + 1, (double)t, (double)def->duration);
        if (k > 0 && !(t > tr->times[k - 1]))
            return TRACK_FAIL("times are not increasing: time %d (%g) after time %d (%g)", k + 1, (double)t, k,
                              (double)tr->times[k - 1]);
    }
    w = width_of(tr->path);
    nvalues = values_of(tr);
    for (n = 0; n < nvalues; n++) {
        if (!sn_isfinite(tr->values[n])) return TRACK_FAIL("value %d is not finite", n + 1);
        if (fabsf(tr->values[n]) > SN_CLIP_MAX_VALUE)
            return TRACK_FAIL("value %d is too large (at most %g in magnitude)", n + 1, SN_CLIP_MAX_VALUE);
    }
    if (tr->path == SN_CLIP_ROTATION) { /* the value of every key; cubic tangents may be zero */
        const int at = tr->interpolation == SN_CLIP_CUBIC ? 3 * w : w, off = tr->interpolation == SN_CLIP_CUBIC ? w : 0;
        for (k = 0; k < tr->keys; k++) {
            double len2 = 0;
            for (c = 0; c < w; c++) len2 += (double)tr->values[at * k + off + c] * tr->values[at * k + off + c];
            if (!(len2 > 0.0)) return TRACK_FAIL("rotation of key %d is zero", k + 1);
        }
    }
    return SN_OK;
}

/* the first track on the same joint and path as an earlier one, or -1; *earlier is set */
static int find_duplicate(const sn_clip_def *def, int *seen, int *earlier) {
    int i, n = 3 * sn_skeleton_count(def->skeleton);
    for (i = 0; i < n; i++) seen[i] = -1;
    for (i = 0; i < def->track_count; i++) {
        int slot = 3 * def->tracks[i].joint + (int)def->tracks[i].path;
        if (seen[slot] >= 0) {
            *earlier = seen[slot];
            return i;
        }
        seen[slot] = i;
    }
    return -1;
}

sn_status sn_clip_validate(const sn_clip_def *def, sn_error *err) {
    int i, dup, earlier = 0, *seen;
    double keys = 0;
    if (def == NULL || def->skeleton == NULL) return sn_fail(err, SN_EINVAL, "no skeleton");
    if (!sn_isfinite(def->duration) || def->duration < 0.0f)
        return sn_fail(err, SN_EINVAL, "duration must be a finite number >= 0");
    if (def->duration > SN_CLIP_MAX_TIME)
        return sn_fail(err, SN_EINVAL, "duration %g is too long (at most %g s)", (double)def->duration, SN_CLIP_MAX_TIME);
    if (def->track_count < 0 || (def->track_count > 0 && def->tracks == NULL))
        return sn_fail(err, SN_EINVAL, "bad track count %d", def->track_count);
    if (def->track_count > 3 * sn_skeleton_count(def->skeleton))
        return sn_fail(err, SN_EINVAL, "%d tracks, more than 3 per joint", def->track_count);
    for (i = 0; i < def->track_count; i++) {
        sn_status st = check_track(def, i, err);
        if (st != SN_OK) return st;
        keys += (double)def->tracks[i].keys;
    }
    if (keys > (double)(1 << 26)) return sn_fail(err, SN_EINVAL, "%.0f keys in all, more than %d", keys, 1 << 26);
    seen = (int *)malloc(sizeof(int) * 3 * (size_t)sn_skeleton_count(def->skeleton));
    if (seen == NULL) return sn_fail(err, SN_ENOMEM, "out of memory checking tracks");
    dup = find_duplicate(def, seen, &earlier);
    free(seen);
    if (dup >= 0) {
        const sn_clip_track_def *tr = &def->tracks[dup];
        return sn_fail(err, SN_EINVAL, "tracks %d and %d both animate the %s of '%s'", earlier + 1, dup + 1,
                       path_names[tr->path], sn_skeleton_name(def->skeleton, tr->joint));
    }
    return SN_OK;
}

static int padded(int n) { return (n + SN_SKELETON_LANES - 1) / SN_SKELETON_LANES * SN_SKELETON_LANES; }

/* How the tracks are grouped: the groups, and the tracks in group order (by joint inside a
   group). Made at construction, with malloc; sn_clip_size and sn_clip_init make the same one. */
typedef struct plan_group {
    int path, interp, uniform;
    int dense;               /* writes every joint of its path in place (see group.direct) */
    int start, n;            /* tracks order[start .. start + n) */
    int lanes;               /* joints it computes: the skeleton's count when dense and uniform */
} plan_group;

typedef struct plan {
    int count;
    plan_group *groups;
    int *order;
} plan;

typedef struct plan_key {
    unsigned base, hash;     /* interpolation * 3 + path; hash of the key times */
    int joint, track;
} plan_key;

static int by_base_hash_joint(const void *a, const void *b) {
    const plan_key *x = (const plan_key *)a, *y = (const plan_key *)b;
    if (x->base != y->base) return x->base < y->base ? -1 : 1;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    return x->joint - y->joint;
}

static int by_joint(const void *a, const void *b) {
    return ((const plan_key *)a)->joint - ((const plan_key *)b)->joint;
}

static unsigned hash_times(const sn_clip_track_def *tr) {
    const unsigned char *b = (const unsigned char *)tr->times;
    unsigned h = 2166136261u ^ (unsigned)tr->keys;
    size_t i;
    for (i = 0; i < sizeof(float) * (size_t)tr->keys; i++) h = (h ^ b[i]) * 16777619u;
    return h;
}

static int same_times(const sn_clip_track_def *a, const sn_clip_track_def *b) {
    return a->keys == b->keys && memcmp(a->times, b->times, sizeof(float) * (size_t)a->keys) == 0;
}

static void add_group(plan *p, const plan_key *k, int n, int uniform, int *at) {
    plan_group *g = &p->groups[p->count++];
    int i;
    g->path = (int)(k[0].base % 3);
    g->interp = (int)(k[0].base / 3);
    g->uniform = uniform;
    g->dense = 0;
    g->start = *at;
    g->n = g->lanes = n;
    for (i = 0; i < n; i++) p->order[(*at)++] = k[i].track;
}

static void free_plan(plan *p) {
    free(p->groups);
    free(p->order);
}

/* Per path, the group that writes the pose rows in place ("dense"): a per-track group of every
   joint, or else the largest shared-times group covering at least half the joints, which then
   computes every joint (the rest pose where it has no track). Dense groups go first, so that
   the other groups of the path overwrite their joints afterwards. */
static void mark_dense(plan *p, int count) {
    int path, g, k = 0;
    for (path = 0; path < 3; path++) {
        int best = -1;
        for (g = 0; g < p->count; g++) {
            const plan_group *q = &p->groups[g];
            if (q->path != path) continue;
            if (!q->uniform && q->n == count) best = g;
            if (q->uniform && 2 * q->n >= count && (best < 0 || (p->groups[best].uniform && q->n > p->groups[best].n)))
                best = g;
        }
        if (best >= 0) {
            p->groups[best].dense = 1;
            if (p->groups[best].uniform) p->groups[best].lanes = count;
        }
    }
    for (g = 0; g < p->count; g++) /* stable: dense groups to the front */
        if (p->groups[g].dense) {
            plan_group d = p->groups[g];
            memmove(p->groups + k + 1, p->groups + k, sizeof(plan_group) * (size_t)(g - k));
            p->groups[k++] = d;
        }
}

static sn_status make_plan(const sn_clip_def *def, plan *p, sn_error *err) {
    const int n = def->track_count;
    plan_key *keys = (plan_key *)malloc(sizeof(plan_key) * (size_t)(n > 0 ? n : 1) * 2), *tmp = keys + n;
    int i, a, at = 0;
    p->count = 0;
    p->groups = (plan_group *)malloc(sizeof(plan_group) * (size_t)(n + 9));
    p->order = (int *)malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (keys == NULL || p->groups == NULL || p->order == NULL) {
        free(keys);
        free_plan(p);
        return sn_fail(err, SN_ENOMEM, "out of memory building the clip");
    }
    for (i = 0; i < n; i++) {
        keys[i].base = (unsigned)def->tracks[i].interpolation * 3u + (unsigned)def->tracks[i].path;
        keys[i].hash = hash_times(&def->tracks[i]);
        keys[i].joint = def->tracks[i].joint;
        keys[i].track = i;
    }
    qsort(keys, (size_t)n, sizeof(plan_key), by_base_hash_joint);
    for (a = 0; a < n;) {
        int z = a, left = 0, h, k;
        while (z < n && keys[z].base == keys[a].base) z++;
        /* keys[a .. z): one interpolation and path, by times hash then joint. Take out the
           classes of equal times big enough to share a cursor; the rest go to one group. */
        for (h = a; h < z;) {
            int e = h, m;
            while (e < z && keys[e].hash == keys[h].hash) e++;
            while (h < e) { /* keys[h .. e): same hash; split off the tracks equal to keys[h] */
                const sn_clip_track_def *lead = &def->tracks[keys[h].track];
                int same = 0, other = 0;
                for (m = h; m < e; m++) {
                    if (same_times(&def->tracks[keys[m].track], lead)) keys[h + same++] = keys[m];
                    else tmp[other++] = keys[m];
                }
                for (m = 0; m < other; m++) keys[h + same + m] = tmp[m];
                if (same >= MIN_SHARED || same == z - a) add_group(p, keys + h, same, 1, &at);
                else for (m = 0; m < same; m++) tmp[n - 1 - left - m] = keys[h + m]; /* set aside */
                if (same < MIN_SHARED && same != z - a) left += same;
                h += same;
            }
        }
        if (left > 0) {
            /* the set-aside tracks, by joint, in one group with a cursor per track */
            for (k = 0; k < left; k++) keys[a + k] = tmp[n - 1 - k];
            qsort(keys + a, (size_t)left, sizeof(plan_key), by_joint);
            add_group(p, keys + a, left, 0, &at);
        }
        a = z;
    }
    free(keys);
    mark_dense(p, sn_skeleton_count(def->skeleton));
    return SN_OK;
}

/* shared times: the intervals of the tracks of a planned group (of one of them); keyed: the
   stream entries of all its tracks */
static size_t group_records(const sn_clip_def *def, const plan *p, const plan_group *g) {
    size_t n = 0;
    int i;
    for (i = 0; i < g->n; i++) {
        const sn_clip_track_def *tr = &def->tracks[p->order[g->start + i]];
        if (g->uniform) return (size_t)intervals_of(tr->keys);
        n += (size_t)entries_of(tr);
    }
    return n;
}

/* floats of a planned group's cache: shared times, every interval record; keyed, the keys around
   the current time, then the payloads of every entry by lane */
static size_t group_floats(const sn_clip_def *def, const plan *p, const plan_group *g) {
    const size_t np = (size_t)padded(g->lanes), m = (size_t)keyed_payload(g->path, g->interp);
    if (g->uniform) return (size_t)cache_rows(g->path, g->interp) * np * group_records(def, p, g);
    return m * (size_t)keyed_depth(g->interp) * np + m * group_records(def, p, g);
}

/* words of a keyed group's stream (with its last entry, needed at +inf); 0 for shared times */
static size_t group_words(const sn_clip_def *def, const plan *p, const plan_group *g) {
    if (g->uniform) return 0;
    return (size_t)(2 + keyed_payload(g->path, g->interp)) * (group_records(def, p, g) + 1);
}

/* ints of a planned group: first, count, joint, animated (as floats) per lane; keyed, the need
   times (as floats) */
static size_t group_ints(const sn_clip_def *def, const plan *p, const plan_group *g) {
    return 4 * (size_t)padded(g->lanes) + (g->uniform ? 0 : group_records(def, p, g));
}

/* bytes of a planned group after the header: its ints, cache and stream, each 16-byte aligned */
static size_t group_bytes(const sn_clip_def *def, const plan *p, const plan_group *g) {
    return SN_ALIGN16(sizeof(int) * group_ints(def, p, g)) + SN_ALIGN16(sizeof(float) * group_floats(def, p, g)) +
           SN_ALIGN16(sizeof(word) * group_words(def, p, g));
}

/* rows of scratch: the results of a group that scatters (at most a rotation's 4), fractions */
#define SCRATCH_ROWS 5

/* bytes after the header: the groups, the scratch, and the arrays of every group */
static size_t arrays_size(const sn_clip_def *def, const plan *p, int *scratch_np) {
    size_t n = SN_ALIGN16(sizeof(group) * (size_t)p->count);
    int g, most = 0;
    for (g = 0; g < p->count; g++) {
        n += group_bytes(def, p, &p->groups[g]);
        if (padded(p->groups[g].lanes) > most) most = padded(p->groups[g].lanes);
    }
    *scratch_np = most;
    return n + sizeof(float) * SCRATCH_ROWS * (size_t)most;
}

size_t sn_clip_size(const sn_clip_def *def, sn_error *err) {
    plan p;
    size_t n;
    int scratch_np;
    if (sn_clip_validate(def, err) != SN_OK) return 0;
    if (make_plan(def, &p, err) != SN_OK) return 0;
    n = SN_ALIGN16(sizeof(sn_clip)) + 15 + arrays_size(def, &p, &scratch_np);
    free_plan(&p);
    return n;
}

/* The factor applied to every value and tangent of a cubic rotation track (1 for other tracks):
   1 / the largest of |value| and |interval * tangent| over the track. The sampled rotation is
   normalised, so scaling the whole curve changes nothing, but float squares of the Hermite sum
   can no longer overflow (or underflow to zero for a tiny curve). */
static double cubic_rotation_scale(const sn_clip_track_def *tr) {
    double top = 0.0;
    int k, c;
    if (tr->path != SN_CLIP_ROTATION || tr->interpolation != SN_CLIP_CUBIC) return 1.0;
    for (k = 0; k < tr->keys; k++) {
        double din = k > 0 ? (double)tr->times[k] - tr->times[k - 1] : 0.0;
        double dout = k + 1 < tr->keys ? (double)tr->times[k + 1] - tr->times[k] : 0.0;
        for (c = 0; c < 4; c++) {
            double a = fabs((double)tr->values[12 * k + c]) * din, v = fabs((double)tr->values[12 * k + 4 + c]);
            double b = fabs((double)tr->values[12 * k + 8 + c]) * dout;
            if (a > top) top = a;
            if (v > top) top = v;
            if (b > top) top = b;
        }
    }
    return top > 0.0 ? 1.0 / top : 1.0;
}

/* the value of key k of `tr` (the middle one of three for cubic); rotations of linear and step
   tracks normalised and, for linear ones, put in the hemisphere of `prev` when given; values
   multiplied by `scale` (cubic_rotation_scale of the track) */
static void key_value(const sn_clip_track_def *tr, int k, const float *prev, float *v, double scale) {
    const int w = width_of(tr->path), cubic = tr->interpolation == SN_CLIP_CUBIC;
    int c;
    for (c = 0; c < w; c++) v[c] = (float)(tr->values[(cubic ? 3 * w * k + w : w * k) + c] * scale);
    if (tr->path == SN_CLIP_ROTATION && !cubic) {
        double l = 0, d = 0;
        for (c = 0; c < 4; c++) l += (double)v[c] * v[c];
        l = sqrt(l);
        for (c = 0; c < 4; c++) v[c] = (float)(v[c] / l);
        if (prev != NULL && tr->interpolation == SN_CLIP_LINEAR) {
            for (c = 0; c < 4; c++) d += (double)prev[c] * v[c];
            if (d < 0)
                for (c = 0; c < 4; c++) v[c] = -v[c];
        }
    }
}

/* the interval records of `tr` (see cache_rows), built in `rec` and written at `out` with records
   `rec_stride` floats apart and their floats `row_stride` apart */
static void build_intervals(const sn_clip_track_def *tr, float *out, size_t rec_stride, size_t row_stride) {
    const int w = width_of(tr->path), rows = cache_rows(tr->path, tr->interpolation), n = intervals_of(tr->keys);
    const double scale = cubic_rotation_scale(tr);
    int k, c;
    float v0[4], v1[4], r[20], *coef = r + 4;
    key_value(tr, 0, NULL, v0, scale);
    for (k = 0; k < n; k++) {
        const int k1 = k + 1 < tr->keys ? k + 1 : k; /* k1 == k: the last interval, holding key k */
        double dt = (double)tr->times[k1] - tr->times[k], inv = dt > 0.0 ? 1.0 / dt : 0.0;
        key_value(tr, k1, v0, v1, scale);
        r[0] = k == 0 ? -INFINITY : tr->times[k];
        r[1] = k == n - 1 ? INFINITY : tr->times[k1];
        r[2] = tr->times[k];
        r[3] = inv < 3e38 ? (float)inv : 3e38f;
        for (c = 0; c < w; c++) {
            coef[c] = v0[c];
            if (tr->interpolation == SN_CLIP_LINEAR) {
                coef[w + c] = v1[c] - v0[c];
            } else if (tr->interpolation == SN_CLIP_CUBIC) {
                coef[w + c] = (float)(dt * tr->values[3 * w * k + 2 * w + c] * scale); /* dt * out-tangent(k) */
                coef[2 * w + c] = v1[c] - v0[c];
                coef[3 * w + c] = (float)(dt * tr->values[3 * w * k1 + c] * scale);    /* dt * in-tangent(k+1) */
            }
        }
        for (c = 0; c < rows; c++) out[(size_t)k * rec_stride + (size_t)c * row_stride] = r[c];
        memcpy(v0, v1, sizeof v0);
    }
}

/* Shared times: points the cache at the interval holding t (lane 0 stands for all lanes). */
static void seek_shared(group *g, float t) {
    const size_t rec = (size_t)g->rows * (size_t)g->np, np = (size_t)g->np;
    const float *cache = g->cache;
    int c = (int)((size_t)(cache - g->block) / rec), lo = 0, hi = g->intervals - 1;
    if (t >= cache[np] && c < hi && t < cache[rec + np]) {
        c++; /* the next interval: forward playback */
    } else {
        while (lo < hi) { /* the last interval starting at or before t */
            int mid = (lo + hi + 1) / 2;
            if (g->block[(size_t)mid * rec] <= t) lo = mid;
            else hi = mid - 1;
        }
        c = lo;
    }
    g->cache = g->block + (size_t)c * rec;
}

/* ---- keyed groups: a cursor per track ------------------------------------------------------ */

/* writes the payload of entry `e` (m floats) into its column of the cache, rows `rs` floats apart */
static inline void apply_entry(float *restrict cache, size_t rs, const word *restrict e, int m) {
    float *col = cache + e[1].i;
    int j;
    for (j = 0; j < m; j++) col[(size_t)j * rs] = e[2 + j].f;
}

/* writes a payload of m floats into column `col` of the cache, rows `rs` floats apart */
static inline void apply_payload(float *restrict cache, size_t rs, int col, const float *restrict v, int m) {
    int j;
    for (j = 0; j < m; j++) cache[(size_t)j * rs + (size_t)col] = v[j];
}

/* applies the entries from `e` on while they are needed at or before t; returns the first one
   left (the last entry, needed at +inf, stops it) */
static inline const word *consume(float *restrict cache, size_t rs, const word *e, float t, int m) {
    while (e[0].f <= t) {
        apply_entry(cache, rs, e, m);
        e += 2 + m;
    }
    return e;
}

/* consume() with a constant payload for the compiler to unroll */
static const word *consume_any(float *restrict cache, size_t rs, const word *e, float t, int m) {
    switch (m) {
    case 3: return consume(cache, rs, e, t, 3);   /* step translation, scale */
    case 4: return consume(cache, rs, e, t, 4);   /* linear translation, scale; step rotation */
    case 5: return consume(cache, rs, e, t, 5);   /* linear rotation */
    case 10: return consume(cache, rs, e, t, 10); /* cubic translation, scale */
    default: return consume(cache, rs, e, t, m);  /* cubic rotation */
    }
}

/* Keyed, any time: for every lane, the payloads of its keys around t (the latest `depth` needed
   at or before t, found by bisection over the lane's need times, the first `depth` of which are
   -inf; read from the lane's own copy, where they are next to each other), and `pos` past every
   entry needed at or before t. Gives the cache the same contents as forward playback to t. */
static inline void seek_lanes(group *g, float t, int m) {
    const int e = 2 + m, d = g->depth;
    const size_t rs = (size_t)d * (size_t)g->np;
    int i, j, lo, hi;
    for (i = 0; i < g->n; i++) {
        const float *need = g->need + g->first[i], *keys = g->keys + (size_t)g->first[i] * (size_t)m;
        lo = d - 1;
        hi = g->count[i] - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (need[mid] <= t) lo = mid;
            else hi = mid - 1;
        }
        for (j = lo - d + 1; j <= lo; j++) /* key j goes to slot j & 1 */
            apply_payload(g->cache, rs, i + (j & (d - 1)) * g->np, keys + (size_t)j * (size_t)m, m);
    }
    lo = 0;
    hi = g->total;
    while (lo < hi) { /* the first entry needed after t */
        int mid = (lo + hi) / 2;
        if (g->stream[(size_t)mid * (size_t)e].f <= t) lo = mid + 1;
        else hi = mid;
    }
    g->pos = lo;
}

/* seek_lanes() with a constant payload for the compiler to unroll */
static void seek_keyed(group *g, float t) {
    switch (g->rows) {
    case 3: seek_lanes(g, t, 3); break;
    case 4: seek_lanes(g, t, 4); break;
    case 5: seek_lanes(g, t, 5); break;
    case 10: seek_lanes(g, t, 10); break;
    default: seek_lanes(g, t, g->rows); break;
    }
}

/* Keyed, forward playback: the entries needed up to t, in the order they come in the stream
   (sequential reads). Going back (a loop wrapping around, say) starts again from the beginning
   of the stream, where every lane's first keys are, when t is near it; a jump past more entries
   than a search costs re-searches. */
static void advance_keyed(group *g, float t) {
    const int e = 2 + g->rows, back = t < g->tprev, from = back ? 0 : g->pos;
    const int far = (back ? g->depth * g->n : g->pos) + 2 * g->n;
    if (g->stream[(size_t)(far < g->total ? far : g->total) * (size_t)e].f <= t) {
        seek_keyed(g, t);
    } else {
        const word *at = g->stream + (size_t)from * (size_t)e;
        at = consume_any(g->cache, (size_t)g->depth * (size_t)g->np, at, t, g->rows);
        g->pos = (int)((at - g->stream) / e);
    }
    g->tprev = t;
}

typedef struct stream_key {
    float need;
    int lane, entry;
} stream_key;

static int by_need(const void *a, const void *b) {
    const stream_key *x = (const stream_key *)a, *y = (const stream_key *)b;
    if (x->need != y->need) return x->need < y->need ? -1 : 1;
    if (x->lane != y->lane) return x->lane - y->lane;
    return x->entry - y->entry;
}

/* The payload of entry k of `tr` in a keyed group (see keyed_payload) into `v`; returns the time
   from which it is needed. Entry k is key k, and for a one-key track entry 1 is its value again,
   at time +inf, with no tangents. `prev` holds the previous key's value (rotations of linear
   tracks go to its hemisphere) and gets this one's; `scale` is cubic_rotation_scale(tr). */
static float make_entry(const sn_clip_track_def *tr, int k, float prev[4], float *v, double scale) {
    const int w = width_of(tr->path), d = keyed_depth(tr->interpolation), key = k < tr->keys ? k : tr->keys - 1;
    const int real = key == k;
    float q[4];
    int c, at = 0;
    key_value(tr, key, k > 0 ? prev : NULL, q, scale);
    if (tr->interpolation != SN_CLIP_STEP) v[at++] = real ? tr->times[key] : INFINITY;
    for (c = 0; c < w; c++) v[at++] = q[c];
    if (tr->interpolation == SN_CLIP_CUBIC) {
        for (c = 0; c < w; c++) v[at++] = real ? (float)(tr->values[3 * w * key + c] * scale) : 0.0f; /* in-tangent */
        for (c = 0; c < w; c++)
            v[at++] = real ? (float)(tr->values[3 * w * key + 2 * w + c] * scale) : 0.0f; /* out-tangent */
    }
    memcpy(prev, q, sizeof q);
    return k < d ? -INFINITY : tr->times[k - d + 1]; /* key k + 1 is needed from key k's time on */
}

/* The cache rows of a keyed group before any key is loaded: in both slots the identity of the
   path, the times 0 and +inf (so padding lanes compute the identity), tangents 0. */
static void clear_keyed(group *g) {
    const int w = width_of(g->path), d = g->depth, first = g->interp == SN_CLIP_STEP ? 0 : 1;
    const size_t np = (size_t)g->np, rs = (size_t)d * np;
    size_t i;
    int c;
    memset(g->cache, 0, sizeof(float) * rs * (size_t)g->rows);
    if (first)
        for (i = 0; i < np; i++) g->cache[np + i] = INFINITY;
    for (c = 0; c < w; c++) {
        float one = g->path == SN_CLIP_SCALE || (g->path == SN_CLIP_ROTATION && c == 3) ? 1.0f : 0.0f;
        for (i = 0; i < rs; i++) g->cache[(size_t)(first + c) * rs + i] = one;
    }
}

/* Builds the entries of a keyed group (tracks `tracks`, lane i = track i): by lane in `need` and
   `keys`, and in the stream sorted by the time they are needed; loads the keys needed from the
   start. */
static sn_status build_stream(group *g, const sn_clip_track_def *const *tracks, sn_error *err) {
    const int m = g->rows, e = 2 + m, d = g->depth;
    stream_key *order = (stream_key *)malloc(sizeof(stream_key) * (size_t)(g->total > 0 ? g->total : 1));
    word *last = g->stream + (size_t)g->total * (size_t)e;
    int i, k, c, at = 0;
    if (order == NULL) return sn_fail(err, SN_ENOMEM, "out of memory building the clip");
    for (i = 0; i < g->n; i++) {
        float prev[4] = {0, 0, 0, 0};
        const double scale = cubic_rotation_scale(tracks[i]);
        g->first[i] = at;
        g->count[i] = entries_of(tracks[i]);
        for (k = 0; k < g->count[i]; k++) {
            g->need[at + k] = make_entry(tracks[i], k, prev, g->keys + (size_t)(at + k) * (size_t)m, scale);
            order[at + k].need = g->need[at + k];
            order[at + k].lane = i;
            order[at + k].entry = at + k;
        }
        at += g->count[i];
    }
    qsort(order, (size_t)g->total, sizeof(stream_key), by_need);
    for (k = 0; k < g->total; k++) {
        word *en = g->stream + (size_t)k * (size_t)e;
        const int lane = order[k].lane, j = order[k].entry - g->first[lane];
        en[0].f = order[k].need;
        en[1].i = lane + (j & (d - 1)) * g->np; /* the slot of key j */
        for (c = 0; c < m; c++) en[2 + c].f = g->keys[(size_t)order[k].entry * (size_t)m + (size_t)c];
    }
    for (k = 0; k < e; k++) last[k].f = 0.0f;
    last[0].f = INFINITY; /* never needed: stops forward playback */
    last[1].i = 0;
    free(order);
    clear_keyed(g);
    g->tprev = -INFINITY;
    seek_keyed(g, -INFINITY);
    return SN_OK;
}

/* In a dense shared-times group, the lanes of joints without a track (joint -1) hold the rest
   value as a constant over the group's intervals; `model` is a lane with a track, whose times
   they copy. */
static void fill_rest_lanes(group *g, const sn_skeleton *s, int model) {
    const size_t np = (size_t)g->np, rec = (size_t)g->rows * np;
    const int w = width_of(g->path), first = g->path == SN_CLIP_TRANSLATION ? 0 : g->path == SN_CLIP_ROTATION ? 3 : 7;
    int j, k, r, c;
    for (j = 0; j < g->n; j++) {
        float trs[10];
        if (g->joint[j] >= 0) continue; /* a lane with a track */
        g->joint[j] = j;
        sn_skeleton_rest(s, j, trs);
        for (k = 0; k < g->intervals; k++) {
            float *b = g->block + (size_t)k * rec;
            for (r = 0; r < 4; r++) b[(size_t)r * np + (size_t)j] = b[(size_t)r * np + (size_t)model];
            for (c = 0; c < w; c++) b[(4 + c) * np + (size_t)j] = trs[first + c]; /* v0, p0; the rest 0 */
        }
    }
}

sn_status sn_clip_init(void *mem, size_t size, const sn_clip_def *def, sn_error *err) {
    size_t need = sn_clip_size(def, err);
    sn_clip *c = (sn_clip *)mem;
    unsigned char *at;
    int i, g, p, j, count;
    unsigned char *covered;
    const sn_clip_track_def **tracks;
    plan pl;
    if (need == 0) return err != NULL ? err->code : SN_EINVAL;
    if (mem == NULL || size < need) return sn_fail(err, SN_ENOMEM, "clip needs %lu bytes", (unsigned long)need);
    count = sn_skeleton_count(def->skeleton);
    covered = (unsigned char *)malloc(3 * (size_t)count);
    tracks = (const sn_clip_track_def **)malloc(sizeof(*tracks) * (size_t)(def->track_count + 1));
    if (covered == NULL || tracks == NULL || make_plan(def, &pl, err) != SN_OK) {
        free(covered);
        free(tracks);
        return sn_fail(err, SN_ENOMEM, "out of memory building the clip");
    }
    c->skeleton = def->skeleton;
    c->duration = def->duration;
    c->track_count = def->track_count;
    c->stride = sn_skeleton_stride(def->skeleton);
    c->group_count = pl.count;
    at = sn_aligned_after(mem, sizeof(sn_clip));
    c->groups = (group *)at;
    at += SN_ALIGN16(sizeof(group) * (size_t)pl.count);
    (void)arrays_size(def, &pl, &c->scratch_np);
    c->scratch = (float *)at;
    memset(c->scratch, 0, sizeof(float) * SCRATCH_ROWS * (size_t)c->scratch_np);
    at += sizeof(float) * SCRATCH_ROWS * (size_t)c->scratch_np;
    for (g = 0; g < pl.count; g++) {
        const plan_group *pg = &pl.groups[g];
        group *gr = &c->groups[g];
        const size_t ints = group_ints(def, &pl, pg), floats = group_floats(def, &pl, pg);
        gr->n = pg->lanes;
        gr->np = padded(pg->lanes);
        gr->path = pg->path;
        gr->interp = pg->interp;
        gr->rows = pg->uniform ? cache_rows(gr->path, gr->interp) : keyed_payload(gr->path, gr->interp);
        gr->depth = keyed_depth(gr->interp);
        gr->direct = pg->dense;
        gr->uniform = pg->uniform;
        gr->intervals = gr->uniform ? (int)group_records(def, &pl, pg) : 0;
        gr->total = gr->uniform ? 0 : (int)group_records(def, &pl, pg);
        gr->first = (int *)at;
        gr->count = gr->first + gr->np;
        gr->joint = gr->count + gr->np;
        gr->animated = (float *)(gr->joint + gr->np);
        gr->need = gr->animated + gr->np;
        memset(at, 0, sizeof(int) * ints);
        at += SN_ALIGN16(sizeof(int) * ints);
        gr->cache = (float *)at;
        gr->keys = gr->uniform ? NULL : gr->cache + (size_t)gr->rows * (size_t)gr->depth * (size_t)gr->np;
        memset(gr->cache, 0, sizeof(float) * floats);
        at += SN_ALIGN16(sizeof(float) * floats);
        gr->block = gr->uniform ? gr->cache : NULL;
        gr->stream = gr->uniform ? NULL : (word *)at;
        at += SN_ALIGN16(sizeof(word) * group_words(def, &pl, pg));
        gr->pos = 0;
        gr->tprev = -INFINITY;
        if (gr->n != pg->n)
            for (i = 0; i < gr->n; i++) gr->joint[i] = -1;
        for (i = 0; i < pg->n; i++) {
            const sn_clip_track_def *d = &def->tracks[pl.order[pg->start + i]];
            const int lane = gr->n == pg->n ? i : d->joint; /* a dense shared-times group: by joint */
            gr->joint[lane] = d->joint;
            gr->animated[lane] = 1.0f;
            tracks[i] = d;
            if (gr->uniform) build_intervals(d, gr->block + lane, (size_t)gr->rows * (size_t)gr->np, (size_t)gr->np);
        }
        if (!gr->uniform && build_stream(gr, tracks, err) != SN_OK) {
            free(tracks);
            free(covered);
            free_plan(&pl);
            return err != NULL ? err->code : SN_ENOMEM;
        }
        if (gr->n != pg->n) fill_rest_lanes(gr, def->skeleton, def->tracks[pl.order[pg->start]].joint);
    }
    memset(covered, 0, 3 * (size_t)count);
    for (i = 0; i < def->track_count; i++) covered[3 * def->tracks[i].joint + def->tracks[i].path] = 1;
    for (p = 0; p < 3; p++) {
        int n = 0;
        for (j = 0; j < count; j++) n += covered[3 * j + p];
        c->fill[p] = n < count;
    }
    free(covered);
    free(tracks);
    free_plan(&pl);
    return SN_OK;
}

const sn_skeleton *sn_clip_skeleton(const sn_clip *c) { return c->skeleton; }

float sn_clip_duration(const sn_clip *c) { return c->duration; }

int sn_clip_track_count(const sn_clip *c) { return c->track_count; }

double sn_clip_local_time(const sn_clip *c, double t, int loop) {
    double d = c->duration;
    if (!loop) return t < 0.0 ? 0.0 : t > d ? d : t;
    if (d <= 0.0) return 0.0;
    t = fmod(t, d); /* exact */
    if (t < 0.0) t += d;
    return t < d ? t : 0.0;
}

/* ---- the per-frame kernels: vectorised loops over the lanes -------------------------------- */

KERNEL cubic_row_s(float *restrict o, const float *restrict p0, const float *restrict m0, const float *restrict dp,
                   const float *restrict m1, float h10, float h01, float h11, int n) {
    int i;
    for (i = 0; i < n; i++) o[i] = p0[i] + h10 * m0[i] + h01 * dp[i] + h11 * m1[i];
}

/* shared times, linear translations or scales: o = v0 + s dv for the three rows at once */
KERNEL lerp_rows3(float *restrict ox, float *restrict oy, float *restrict oz, const float *restrict c, float s,
                  int np, int n) {
    const float *x = c, *y = c + np, *z = c + 2 * np, *dx = c + 3 * np, *dy = c + 4 * np, *dz = c + 5 * np;
    int i;
    for (i = 0; i < n; i++) {
        ox[i] = x[i] + s * dx[i];
        oy[i] = y[i] + s * dy[i];
        oz[i] = z[i] + s * dz[i];
    }
}

/* shared times, linear rotations: nlerp of the four rows at once; the lanes flagged 0 in
   `animated` (rest values, dv 0) are left exactly as they are (see normalize_rows) */
KERNEL nlerp_rows(float *restrict ox, float *restrict oy, float *restrict oz, float *restrict ow,
                  const float *restrict c, float s, const float *restrict animated, int np, int n) {
    const float *x = c, *y = c + np, *z = c + 2 * np, *w = c + 3 * np, *dx = c + 4 * np, *dy = c + 5 * np,
                *dz = c + 6 * np, *dw = c + 7 * np;
    int i;
    for (i = 0; i < n; i++) {
        const float qx = x[i] + s * dx[i], qy = y[i] + s * dy[i], qz = z[i] + s * dz[i], qw = w[i] + s * dw[i];
        float k = 1.0f / sqrtf(qx * qx + qy * qy + qz * qz + qw * qw + 1e-30f);
        k = 1.0f + animated[i] * (k - 1.0f);
        ox[i] = qx * k;
        oy[i] = qy * k;
        oz[i] = qz * k;
        ow[i] = qw * k;
    }
}

/* A cubic-spline rotation can pass through zero between two valid keys (tangents that cancel
   the values); where its length is below 1e-6 the identity is used instead (a branch-free add
   to w, so that the loops still vectorise). */
#define CUBIC_ZERO_TO_IDENTITY(x, y, z, w) ((w) += ((x) * (x) + (y) * (y) + (z) * (z) + (w) * (w) < 1e-12f ? 1.0f : 0.0f))

/* normalises the quaternions of the lanes flagged 1 in `animated` in place (a zero one becomes
   the identity, see CUBIC_ZERO_TO_IDENTITY) and leaves those flagged 0 (rest values) exactly as
   they are. Arithmetic rather than a select around sqrtf, so that the loop vectorises. */
KERNEL normalize_rows(float *restrict x, float *restrict y, float *restrict z, float *restrict w,
                      const float *restrict animated, int n) {
    int i;
    for (i = 0; i < n; i++) {
        float qw = w[i], k;
        CUBIC_ZERO_TO_IDENTITY(x[i], y[i], z[i], qw); /* rest lanes are unit: unchanged */
        w[i] = qw;
        k = 1.0f / sqrtf(x[i] * x[i] + y[i] * y[i] + z[i] * z[i] + w[i] * w[i] + 1e-30f);
        k = 1.0f + animated[i] * (k - 1.0f);
        x[i] *= k;
        y[i] *= k;
        z[i] *= k;
        w[i] *= k;
    }
}

/* Keyed groups. The cache rows hold, per lane, key A in slot 0 (the first np floats of a row)
   and key B in slot 1 (the next np); either may be the earlier. The fraction s of t from A's time
   to B's, clamped to [0, 1], is exactly 0 at A's time and 1 at B's (x / x is 1) and 0 for a lane
   whose B is at +inf (a one-key track, a padding lane); (1 - s) A + s B then hits both keys
   exactly, and the Hermite form is the same from either end (h00(1 - s) = h01(s), h10(1 - s) =
   -h11(s), and the interval length changes sign). The fractions go through a scratch row: with
   the clamp in the same loop, gcc's partial redundancy elimination leaves branches that stop
   it vectorising. */
KERNEL slot_fractions(float *restrict s, const float *restrict ta, const float *restrict tb, float t, int n) {
    int i;
    for (i = 0; i < n; i++) {
        float a = (t - ta[i]) / (tb[i] - ta[i]);
        a = a > 0.0f ? a : 0.0f;
        s[i] = a < 1.0f ? a : 1.0f;
    }
}

/* linear translations or scales: the cache holds the keys' times in row 0, values in rows 1-3 */
KERNEL keyed_lerp3(float *restrict ox, float *restrict oy, float *restrict oz, const float *restrict c,
                   const float *restrict s, int np, int n) {
    const float *xa = c + 2 * np, *xb = c + 3 * np, *ya = c + 4 * np, *yb = c + 5 * np, *za = c + 6 * np,
                *zb = c + 7 * np;
    int i;
    for (i = 0; i < n; i++) {
        const float b = s[i], a = 1.0f - b;
        ox[i] = a * xa[i] + b * xb[i];
        oy[i] = a * ya[i] + b * yb[i];
        oz[i] = a * za[i] + b * zb[i];
    }
}

/* linear rotations (nlerp; the keys are in one hemisphere): the times in row 0, x, y, z, w in
   rows 1-4 */
KERNEL keyed_nlerp(float *restrict ox, float *restrict oy, float *restrict oz, float *restrict ow,
                   const float *restrict c, const float *restrict s, int np, int n) {
    const float *xa = c + 2 * np, *xb = c + 3 * np, *ya = c + 4 * np, *yb = c + 5 * np, *za = c + 6 * np,
                *zb = c + 7 * np, *wa = c + 8 * np, *wb = c + 9 * np;
    int i;
    for (i = 0; i < n; i++) {
        const float b = s[i], a = 1.0f - b;
        const float x = a * xa[i] + b * xb[i], y = a * ya[i] + b * yb[i], z = a * za[i] + b * zb[i],
                    w = a * wa[i] + b * wb[i];
        const float k = 1.0f / sqrtf(x * x + y * y + z * z + w * w + 1e-30f);
        ox[i] = x * k;
        oy[i] = y * k;
        oz[i] = z * k;
        ow[i] = w * k;
    }
}

/* The Hermite weights of lane i at its fraction s, with h10 and h11 times the signed interval
   length (capped, so that a lane whose B is at +inf, where s is 0 and so are they, gives 0), and
   fa = 1, fb = 0 when A is the earlier key, which then brings its out-tangent and B its
   in-tangent, else fa = 0, fb = 1. The tangents are picked by fa x + fb y, exact for finite
   values: gcc does not vectorise the loop with selects there. */
#define HERMITE_WEIGHTS(i)                                                                 \
    const float u = s[i], u2 = u * u, u3 = u2 * u, ti = ta[i], tj = tb[i];               \
    const float dt = tj - ti, dtc = dt < FLT_MAX ? dt : FLT_MAX;                           \
    const float h00 = 2.0f * u3 - 3.0f * u2 + 1.0f, h01 = 3.0f * u2 - 2.0f * u3;          \
    const float g10 = (u3 - 2.0f * u2 + u) * dtc, g11 = (u3 - u2) * dtc;                   \
    const float fa = ti <= tj ? 1.0f : 0.0f, fb = 1.0f - fa

/* one component of the Hermite sum for lane i: value p, in-tangent in and out-tangent out, each
   a row of two slots (A at i, B at np + i); fa/fb pick key A's out-tangent and key B's in-tangent
   when A is the earlier key, the other way round when B is */
static inline float hermite_row(const float *restrict p, const float *restrict in, const float *restrict out,
                                int i, int np, float h00, float g10, float h01, float g11, float fa, float fb) {
    return h00 * p[i] + g10 * (fa * out[i] + fb * in[i]) + h01 * p[np + i] + g11 * (fa * in[np + i] + fb * out[np + i]);
}

/* cubic translations or scales: the times in row 0, the values in rows 1-3, the in-tangents in
   4-6, the out-tangents in 7-9 */
KERNEL keyed_cubic3(float *restrict ox, float *restrict oy, float *restrict oz, const float *restrict c,
                    const float *restrict s, int np, int n) {
    const size_t r = 2 * (size_t)np;
    const float *ta = c, *tb = c + np, *px = c + r, *py = c + 2 * r, *pz = c + 3 * r, *ix = c + 4 * r,
                *iy = c + 5 * r, *iz = c + 6 * r, *qx = c + 7 * r, *qy = c + 8 * r, *qz = c + 9 * r;
    int i;
    for (i = 0; i < n; i++) {
        HERMITE_WEIGHTS(i);
        ox[i] = hermite_row(px, ix, qx, i, np, h00, g10, h01, g11, fa, fb);
        oy[i] = hermite_row(py, iy, qy, i, np, h00, g10, h01, g11, fa, fb);
        oz[i] = hermite_row(pz, iz, qz, i, np, h00, g10, h01, g11, fa, fb);
    }
}

/* cubic rotations, normalised: the times in row 0, the values in rows 1-4, the in-tangents in
   5-8, the out-tangents in 9-12 */
KERNEL keyed_cubic4(float *restrict ox, float *restrict oy, float *restrict oz, float *restrict ow,
                    const float *restrict c, const float *restrict s, int np, int n) {
    const size_t r = 2 * (size_t)np;
    const float *ta = c, *tb = c + np, *px = c + r, *py = c + 2 * r, *pz = c + 3 * r, *pw = c + 4 * r,
                *ix = c + 5 * r, *iy = c + 6 * r, *iz = c + 7 * r, *iw = c + 8 * r, *qx = c + 9 * r,
                *qy = c + 10 * r, *qz = c + 11 * r, *qw = c + 12 * r;
    int i;
    for (i = 0; i < n; i++) {
        HERMITE_WEIGHTS(i);
        const float x = hermite_row(px, ix, qx, i, np, h00, g10, h01, g11, fa, fb);
        const float y = hermite_row(py, iy, qy, i, np, h00, g10, h01, g11, fa, fb);
        const float z = hermite_row(pz, iz, qz, i, np, h00, g10, h01, g11, fa, fb);
        float w = hermite_row(pw, iw, qw, i, np, h00, g10, h01, g11, fa, fb), k;
        CUBIC_ZERO_TO_IDENTITY(x, y, z, w);
        k = 1.0f / sqrtf(x * x + y * y + z * z + w * w + 1e-30f);
        ox[i] = x * k;
        oy[i] = y * k;
        oz[i] = z * k;
        ow[i] = w * k;
    }
}

/* computes the values of every track of keyed group `g` at t (its cursor there) into `width`
   rows at `o` (row stride ost); `s` is a scratch row */
static void sample_keyed(const group *g, float t, float *o, int ost, float *s) {
    const int n = g->n, np = g->np, w = width_of(g->path);
    const float *c = g->cache;
    int r;
    if (g->interp == SN_CLIP_STEP) {
        for (r = 0; r < w; r++) memcpy(o + r * ost, c + (size_t)r * (size_t)np, sizeof(float) * (size_t)n);
        return;
    }
    slot_fractions(s, c, c + np, t, n);
    if (g->interp == SN_CLIP_LINEAR) {
        if (w == 3) keyed_lerp3(o, o + ost, o + 2 * ost, c, s, np, n);
        else keyed_nlerp(o, o + ost, o + 2 * ost, o + 3 * ost, c, s, np, n);
    } else {
        if (w == 3) keyed_cubic3(o, o + ost, o + 2 * ost, c, s, np, n);
        else keyed_cubic4(o, o + ost, o + 2 * ost, o + 3 * ost, c, s, np, n);
    }
}

/* moves the cursor of `g` to t: the interval of a shared-times group, the cached keys of a keyed
   one. Done for every group before any computes, so that the keys just stored have left the
   store buffer when the vector loads read them. */
static void move_cursor(group *g, float t) {
    if (!g->uniform) advance_keyed(g, t);
    else if (t < g->cache[0] || t >= g->cache[g->np]) seek_shared(g, t);
}

/* computes the values of every track of shared-times group `g` at t (its cursor there) into
   `width` rows at `o` (row stride ost) */
static void sample_shared(const group *g, float t, float *o, int ost) {
    const int n = g->n, np = g->np, w = width_of(g->path);
    const float *row = g->cache, *coef = row + 4 * np;
    /* one interval for all: the fraction and the Hermite weights are plain numbers */
    float a = (t - row[2 * np]) * row[3 * np];
    int r;
    a = a < 0.0f ? 0.0f : a > 1.0f ? 1.0f : a;
    if (g->interp == SN_CLIP_LINEAR) {
        if (w == 3) lerp_rows3(o, o + ost, o + 2 * ost, coef, a, np, n);
        else nlerp_rows(o, o + ost, o + 2 * ost, o + 3 * ost, coef, a, g->animated, np, n);
        return;
    } else if (g->interp == SN_CLIP_STEP) {
        for (r = 0; r < w; r++) memcpy(o + r * ost, coef + r * np, sizeof(float) * (size_t)n);
    } else {
        const float a2 = a * a, a3 = a2 * a;
        for (r = 0; r < w; r++)
            cubic_row_s(o + r * ost, coef + r * np, coef + (w + r) * np, coef + (2 * w + r) * np,
                        coef + (3 * w + r) * np, a3 - 2 * a2 + a, 3 * a2 - 2 * a3, a3 - a2, n);
    }
    if (g->path == SN_CLIP_ROTATION && g->interp != SN_CLIP_STEP)
        normalize_rows(o, o + ost, o + 2 * ost, o + 3 * ost, g->animated, n);
}

/* o[r * ost + joint[i]] = res[r * rst + i] for the w rows r */
KERNEL scatter(float *restrict o, int ost, const float *restrict res, int rst, const int *restrict joint, int n,
               int w) {
    int i, r;
    for (r = 0; r < w; r++)
        for (i = 0; i < n; i++) o[r * ost + joint[i]] = res[r * rst + i];
}

sn_status sn_clip_sample(sn_clip *c, double t, int loop, sn_pose *out, sn_error *err) {
    const int st = c->stride;
    const float *rest = sn_skeleton_rest_soa(c->skeleton);
    float *ch = out->ch, ft, *res = c->scratch;
    int p, g;
    if (sn_pose_skeleton(out) != c->skeleton) return sn_fail_arg(err, 2, SN_EINVAL, "pose of another skeleton");
    if (!sn_isfinite(t)) return sn_fail_arg(err, 1, SN_EINVAL, "time is not finite");
    ft = (float)sn_clip_local_time(c, t, loop);
    for (g = 0; g < c->group_count; g++)
        if (c->groups[g].n > 0) move_cursor(&c->groups[g], ft);
    for (p = 0; p < 3; p++)
        if (c->fill[p])
            memcpy(ch + path_row[p] * st, rest + path_row[p] * st, sizeof(float) * (size_t)(width_of(p) * st));
    for (g = 0; g < c->group_count; g++) {
        const group *gr = &c->groups[g];
        float *o = gr->direct ? ch + path_row[gr->path] * st : res;
        const int ost = gr->direct ? st : c->scratch_np;
        if (gr->n == 0) continue;
        if (gr->uniform) sample_shared(gr, ft, o, ost);
        else sample_keyed(gr, ft, o, ost, c->scratch + 4 * c->scratch_np);
        if (!gr->direct)
            scatter(ch + path_row[gr->path] * st, st, res, c->scratch_np, gr->joint, gr->n, width_of(gr->path));
    }
    return SN_OK;
}
