/*
 * Clips, construction: validation of a definition, the grouping of its tracks (the plan), the
 * layout of the block and the building of each group's records. See clip_internal.h for the
 * design; sampling is in clip_sample.c.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h> /* qsort (the plan) */
#include <string.h>

#include "clip_internal.h"

/* tracks with the same key times form a group with one cursor when there are at least this
   many of them (fewer are cheaper in a per-track group) or when they are all the tracks of
   their interpolation and path */
#define MIN_SHARED 8

static const char *const path_names[CLIP_PATHS] = {"translation", "rotation", "scale", "weight"};

/* the name of what track `tr` animates: its joint's, or its morph's for a weight track */
static const char *target_name(const sn_skeleton *s, const sn_clip_track_def *tr) {
    return tr->path == SN_CLIP_WEIGHT ? sn_skeleton_morph_name(s, tr->joint) : sn_skeleton_name(s, tr->joint);
}

/* the slot of a track's joint and path (or morph) among 3 per joint and then 1 per morph */
static int target_slot(const sn_skeleton *s, const sn_clip_track_def *tr) {
    return tr->path == SN_CLIP_WEIGHT ? 3 * sn_skeleton_count(s) + tr->joint : 3 * tr->joint + (int)tr->path;
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
    sn_fail_arg(err, 1, SN_EINVAL, "track %d ('%s' %s): " fmt, i + 1, target_name(def->skeleton, tr), \
            path_names[tr->path], __VA_ARGS__)

/* 1 when n >= 1 key times are all finite, at least 0, at most `duration` and increasing (what
   check_track tests time by time, in one pass without a branch per time: an increasing run from
   0 or later to `duration` or earlier is finite, and a NaN fails every comparison) */
static int times_fine(const float *t, int n, float duration) {
    int ok = t[0] >= 0.0f && t[n - 1] <= duration, k;
    for (k = 1; k < n; k++) ok &= t[k] > t[k - 1];
    return ok;
}

/* 1 when n values are all finite and at most SN_CLIP_MAX_VALUE in magnitude (what check_track
   tests value by value), by their bits in one pass without a branch per value: for floats
   without their sign the order of the bits is the order of the values, infinities and NaNs above
   all finite ones, so a value is fine when its bits are at most those of the largest float of
   magnitude SN_CLIP_MAX_VALUE or less */
static int values_fine(const float *v, int n) {
    float most = (float)SN_CLIP_MAX_VALUE;
    int32_t lim, u;
    int bad = 0, k;
    if ((double)most > SN_CLIP_MAX_VALUE) most = nextafterf(most, 0.0f);
    memcpy(&lim, &most, sizeof lim);
    for (k = 0; k < n; k++) {
        memcpy(&u, v + k, sizeof u);
        bad |= (u & 0x7fffffff) > lim;
    }
    return !bad;
}

/* 1 when none of `keys` rotations (4 finite values each, `stride` floats apart) is zero: what
   check_track tests rotation by rotation (the square of a finite float is above zero in double
   when the float is not zero), by their bits in one pass */
static int rotations_fine(const float *v, int stride, int keys) {
    uint32_t u[4];
    int ok = 1, k;
    for (k = 0; k < keys; k++) {
        memcpy(u, v + (size_t)stride * (size_t)k, sizeof u);
        ok &= ((u[0] | u[1] | u[2] | u[3]) & 0x7fffffffu) != 0;
    }
    return ok;
}

static sn_status check_track(const sn_clip_def *def, int i, sn_error *err) {
    const sn_clip_track_def *tr = &def->tracks[i];
    int k, c, w, n, nvalues;
    if (tr->path != SN_CLIP_WEIGHT && (tr->joint < 0 || tr->joint >= sn_skeleton_count(def->skeleton)))
        return sn_fail_arg(err, 1, SN_EINVAL, "track %d: joint %d is out of range (1 .. %d)", i + 1, tr->joint + 1,
                       sn_skeleton_count(def->skeleton));
    if ((unsigned)tr->path > SN_CLIP_WEIGHT)
        return sn_fail_arg(err, 1, SN_EINVAL, "track %d: unknown path %d", i + 1, (int)tr->path);
    if (tr->path == SN_CLIP_WEIGHT && (tr->joint < 0 || tr->joint >= sn_skeleton_morph_count(def->skeleton)))
        return sn_fail_arg(err, 1, SN_EINVAL, "track %d: morph %d is out of range (1 .. %d)", i + 1, tr->joint + 1,
                           sn_skeleton_morph_count(def->skeleton));
    if ((unsigned)tr->interpolation > SN_CLIP_CUBIC)
        return sn_fail_arg(err, 1, SN_EINVAL, "track %d: unknown interpolation %d", i + 1, (int)tr->interpolation);
    if (tr->keys < 1 || tr->times == NULL || tr->values == NULL) return TRACK_FAIL("%s", "no keys");
    if (tr->keys > SN_CLIP_MAX_TRACK_KEYS) return TRACK_FAIL("%d keys, more than %d", tr->keys, SN_CLIP_MAX_TRACK_KEYS);
    /* one pass over all of them; only a fault goes on to find the first one, named */
    if (!times_fine(tr->times, tr->keys, def->duration)) {
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
    }
    w = width_of(tr->path);
    nvalues = values_of(tr);
    if (!values_fine(tr->values, nvalues)) {
        for (n = 0; n < nvalues; n++) {
            if (!sn_isfinite(tr->values[n])) return TRACK_FAIL("value %d is not finite", n + 1);
            if (fabsf(tr->values[n]) > SN_CLIP_MAX_VALUE)
                return TRACK_FAIL("value %d is too large (at most %g in magnitude)", n + 1, SN_CLIP_MAX_VALUE);
        }
    }
    if (tr->path == SN_CLIP_ROTATION) { /* the value of every key; cubic tangents may be zero */
        const int at = tr->interpolation == SN_CLIP_CUBIC ? 3 * w : w, off = tr->interpolation == SN_CLIP_CUBIC ? w : 0;
        if (!rotations_fine(tr->values + off, at, tr->keys)) {
            for (k = 0; k < tr->keys; k++) {
                double len2 = 0;
                for (c = 0; c < w; c++) len2 += (double)tr->values[at * k + off + c] * tr->values[at * k + off + c];
                if (!(len2 > 0.0)) return TRACK_FAIL("rotation of key %d is zero", k + 1);
            }
        }
    }
    return SN_OK;
}

/* the first track on the same joint and path as an earlier one, or -1; *earlier is set */
static int find_duplicate(const sn_clip_def *def, int *seen, int *earlier) {
    int i, n = 3 * sn_skeleton_count(def->skeleton) + sn_skeleton_morph_count(def->skeleton);
    for (i = 0; i < n; i++) seen[i] = -1;
    for (i = 0; i < def->track_count; i++) {
        int slot = target_slot(def->skeleton, &def->tracks[i]);
        if (seen[slot] >= 0) {
            *earlier = seen[slot];
            return i;
        }
        seen[slot] = i;
    }
    return -1;
}

void sn_clip_def_init(sn_clip_def *def) { memset(def, 0, sizeof *def); }

sn_status sn_clip_validate(const sn_clip_def *def, sn_error *err) {
    int i, dup, earlier = 0, *seen;
    double keys = 0;
    size_t seen_bytes;
    if (def == NULL || def->skeleton == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no skeleton");
    seen_bytes = sizeof(int) * (3 * (size_t)sn_skeleton_count(def->skeleton) +
                                (size_t)sn_skeleton_morph_count(def->skeleton));
    if (!sn_isfinite(def->duration) || def->duration < 0.0f)
        return sn_fail_arg(err, 1, SN_EINVAL, "'duration' must be a finite number >= 0");
    if (def->duration > SN_CLIP_MAX_TIME)
        return sn_fail_arg(err, 1, SN_EINVAL, "'duration' %g is too long (at most %g s)", (double)def->duration, SN_CLIP_MAX_TIME);
    if (def->track_count < 0 || (def->track_count > 0 && def->tracks == NULL))
        return sn_fail_arg(err, 1, SN_EINVAL, "bad track count %d", def->track_count);
    if (def->track_count > 3 * sn_skeleton_count(def->skeleton) + sn_skeleton_morph_count(def->skeleton))
        return sn_fail_arg(err, 1, SN_EINVAL, "%d tracks, more than 3 per joint and 1 per morph", def->track_count);
    for (i = 0; i < def->track_count; i++) {
        sn_status st = check_track(def, i, err);
        if (st != SN_OK) return st;
        keys += (double)def->tracks[i].keys;
    }
    if (keys > (double)SN_CLIP_MAX_KEYS)
        return sn_fail_arg(err, 1, SN_EINVAL, "%.0f keys in all, more than %d", keys, SN_CLIP_MAX_KEYS);
    seen = (int *)sn_scratch_alloc(def->alloc, seen_bytes);
    if (seen == NULL) return sn_fail(err, SN_ENOMEM, "out of memory checking tracks");
    dup = find_duplicate(def, seen, &earlier);
    sn_scratch_free(def->alloc, seen, seen_bytes);
    if (dup >= 0) {
        const sn_clip_track_def *tr = &def->tracks[dup];
        return sn_fail_arg(err, 1, SN_EINVAL, "tracks %d and %d both animate the %s of '%s'", earlier + 1, dup + 1,
                       path_names[tr->path], target_name(def->skeleton, tr));
    }
    return SN_OK;
}

/* How the tracks are grouped: the groups, and the tracks in group order (by joint inside a
   group). Made at construction in scratch from the definition's allocator; sn_clip_size and
   sn_clip_init make the same one. */
typedef struct plan_group {
    int path, interp, uniform;
    int dense;               /* writes every joint of its path in place (see group.direct) */
    int start, n;            /* tracks order[start .. start + n) */
    int lanes;               /* joints it computes: the skeleton's count when dense and uniform */
} plan_group;

typedef struct plan {
    int count;
    plan_group *groups;      /* room for tracks + 9 */
    int *order;              /* room for tracks (at least 1) */
    size_t room;             /* tracks, at least 1: what the arrays were sized for */
    const sn_allocator *alloc;
} plan;

typedef struct plan_key {
    unsigned base, hash;     /* interpolation * CLIP_PATHS + path; hash of the key times */
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

/* a hash of a track's key times: equal times, equal hashes (same_times tells the rest apart).
   Their count and at most 33 of them, spread over the track and the last among them: a clip's
   tracks share times or differ in count or somewhere along them, and a clip of long tracks is
   built without a pass over every key time for this */
static unsigned hash_times(const sn_clip_track_def *tr) {
    const int n = tr->keys, step = n / 32 + 1;
    unsigned h = 2166136261u ^ (unsigned)n;
    uint32_t bits;
    int k;
    for (k = 0; k < n; k += step) {
        memcpy(&bits, tr->times + k, sizeof bits);
        h = (h ^ bits) * 16777619u;
    }
    if (n > 0) {
        memcpy(&bits, tr->times + n - 1, sizeof bits);
        h = (h ^ bits) * 16777619u;
    }
    return h;
}

static int same_times(const sn_clip_track_def *a, const sn_clip_track_def *b) {
    return a->keys == b->keys && memcmp(a->times, b->times, sizeof(float) * (size_t)a->keys) == 0;
}

static void add_group(plan *p, const plan_key *k, int n, int uniform, int *at) {
    plan_group *g = &p->groups[p->count++];
    int i;
    g->path = (int)(k[0].base % CLIP_PATHS);
    g->interp = (int)(k[0].base / CLIP_PATHS);
    g->uniform = uniform;
    g->dense = 0;
    g->start = *at;
    g->n = g->lanes = n;
    for (i = 0; i < n; i++) p->order[(*at)++] = k[i].track;
}

static void free_plan(plan *p) {
    sn_scratch_free(p->alloc, p->groups, sizeof(plan_group) * (p->room + 9));
    sn_scratch_free(p->alloc, p->order, sizeof(int) * p->room);
}

/* Per path, the group that writes the pose rows in place ("dense"): a per-track group of every
   joint, or else the largest shared-times group covering at least half the joints, which then
   computes every joint (the rest pose where it has no track). Dense groups go first, so that
   the other groups of the path overwrite their joints afterwards. */
static void mark_dense(plan *p, const sn_skeleton *s) {
    int path, g, k = 0;
    for (path = 0; path < CLIP_PATHS; path++) {
        const int count = path == SN_CLIP_WEIGHT ? sn_skeleton_morph_count(s) : sn_skeleton_count(s);
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
    const size_t room = (size_t)(n > 0 ? n : 1);
    plan_key *keys = (plan_key *)sn_scratch_alloc(def->alloc, sizeof(plan_key) * room * 2), *tmp = keys + n;
    int i, a, at = 0;
    p->count = 0;
    p->room = room;
    p->alloc = def->alloc;
    p->groups = (plan_group *)sn_scratch_alloc(def->alloc, sizeof(plan_group) * (room + 9));
    p->order = (int *)sn_scratch_alloc(def->alloc, sizeof(int) * room);
    if (keys == NULL || p->groups == NULL || p->order == NULL) {
        sn_scratch_free(def->alloc, keys, sizeof(plan_key) * room * 2);
        free_plan(p);
        return sn_fail(err, SN_ENOMEM, "out of memory building the clip");
    }
    for (i = 0; i < n; i++) {
        keys[i].base = (unsigned)def->tracks[i].interpolation * CLIP_PATHS + (unsigned)def->tracks[i].path;
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
    sn_scratch_free(def->alloc, keys, sizeof(plan_key) * room * 2);
    mark_dense(p, def->skeleton);
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
           SN_ALIGN16(sizeof(clip_word) * group_words(def, p, g));
}


/* bytes after the header: the groups, the scratch, and the arrays of every clip_group */
static size_t arrays_size(const sn_clip_def *def, const plan *p, int *scratch_np) {
    size_t n = SN_ALIGN16(sizeof(clip_group) * (size_t)p->count);
    int g, most = 0;
    for (g = 0; g < p->count; g++) {
        n += group_bytes(def, p, &p->groups[g]);
        if (padded(p->groups[g].lanes) > most) most = padded(p->groups[g].lanes);
    }
    *scratch_np = most;
    return n + sizeof(float) * SCRATCH_ROWS * (size_t)most;
}

/* the bytes of the clip of a planned definition (as sn_clip_size) */
static size_t planned_size(const sn_clip_def *def, const plan *p, int *scratch_np) {
    return SN_ALIGN16(sizeof(sn_clip)) + 15 + arrays_size(def, p, scratch_np);
}

size_t sn_clip_size(const sn_clip_def *def, sn_error *err) {
    plan p;
    size_t n;
    int scratch_np;
    if (sn_clip_validate(def, err) != SN_OK) return 0;
    if (make_plan(def, &p, err) != SN_OK) return 0;
    n = planned_size(def, &p, &scratch_np);
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

/* tracks whose interval records build_intervals makes at once */
#define INTERVAL_LANES 16

/* key_value of key k of `m` tracks of one path and interpolation (at most INTERVAL_LANES), into
   v[i]; prev[i]: see key_value (NULL: none). Rotations of linear and step tracks are normalised a
   step at a time over all the tracks, which keeps the square roots and divisions of different
   tracks in flight together: the same arithmetic, in the same order, as key_value's. */
static void lane_values(const sn_clip_track_def *const *trs, int m, int k, float (*prev)[4], float (*v)[4],
                        const double *scale) {
    const sn_clip_track_def *lead = trs[0];
    double len[INTERVAL_LANES];
    int i, c;
    if (lead->path != SN_CLIP_ROTATION || lead->interpolation == SN_CLIP_CUBIC) {
        for (i = 0; i < m; i++) key_value(trs[i], k, prev != NULL ? prev[i] : NULL, v[i], scale[i]);
        return;
    }
    for (i = 0; i < m; i++) /* (scale is 1 for these tracks: value * 1 is the value) */
        for (c = 0; c < 4; c++) v[i][c] = trs[i]->values[4 * k + c];
    for (i = 0; i < m; i++) {
        double l = 0;
        for (c = 0; c < 4; c++) l += (double)v[i][c] * v[i][c];
        len[i] = sqrt(l);
    }
    for (i = 0; i < m; i++)
        for (c = 0; c < 4; c++) v[i][c] = (float)(v[i][c] / len[i]);
    if (prev == NULL || lead->interpolation != SN_CLIP_LINEAR) return;
    for (i = 0; i < m; i++) {
        double d = 0;
        for (c = 0; c < 4; c++) d += (double)prev[i][c] * v[i][c];
        if (d < 0)
            for (c = 0; c < 4; c++) v[i][c] = -v[i][c];
    }
}

/* The interval records (see cache_rows) of `m` tracks of a shared-times group (at most
   INTERVAL_LANES: the same path, interpolation and key times), track i's in lane lanes[i] of
   `block`, whose records are `rec_stride` floats apart and their rows `row_stride` apart; with
   `clear`, each record is set to 0 first (the first call for a group).
   Interval by interval: a record's rows are written while they are in the cache, row by row
   across the lanes, and its times and their inverse found once for all the tracks. */
static void build_intervals(const sn_clip_track_def *const *trs, const int *lanes, int m, float *block,
                            size_t rec_stride, size_t row_stride, int clear) {
    const sn_clip_track_def *lead = trs[0];
    const int w = width_of(lead->path), rows = cache_rows(lead->path, lead->interpolation), n = intervals_of(lead->keys);
    const int cubic = lead->interpolation == SN_CLIP_CUBIC, linear = lead->interpolation == SN_CLIP_LINEAR;
    const float *times = lead->times;
    float v0[INTERVAL_LANES][4], v1[INTERVAL_LANES][4], coef[INTERVAL_LANES][16];
    double scale[INTERVAL_LANES];
    int i, k, c;
    for (i = 0; i < m; i++) scale[i] = cubic_rotation_scale(trs[i]);
    lane_values(trs, m, 0, NULL, v0, scale);
    for (k = 0; k < n; k++) {
        const int k1 = k + 1 < lead->keys ? k + 1 : k; /* k1 == k: the last interval, holding key k */
        const double dt = (double)times[k1] - times[k], inv = dt > 0.0 ? 1.0 / dt : 0.0;
        float head[4], *rec = block + (size_t)k * rec_stride;
        head[0] = k == 0 ? -INFINITY : times[k];
        head[1] = k == n - 1 ? INFINITY : times[k1];
        head[2] = times[k];
        head[3] = inv < 3e38 ? (float)inv : 3e38f;
        if (clear) memset(rec, 0, sizeof(float) * rec_stride); /* (the lanes of no track stay 0) */
        lane_values(trs, m, k1, v0, v1, scale);
        for (i = 0; i < m; i++) {
            const sn_clip_track_def *tr = trs[i];
            float *r = coef[i];
            for (c = 0; c < w; c++) {
                r[c] = v0[i][c];
                if (linear) {
                    r[w + c] = v1[i][c] - v0[i][c];
                } else if (cubic) {
                    r[w + c] = (float)(dt * tr->values[3 * w * k + 2 * w + c] * scale[i]); /* dt * out-tangent(k) */
                    r[2 * w + c] = v1[i][c] - v0[i][c];
                    r[3 * w + c] = (float)(dt * tr->values[3 * w * k1 + c] * scale[i]);   /* dt * in-tangent(k+1) */
                }
            }
        }
        memcpy(v0, v1, sizeof(float) * 4 * (size_t)m);
        for (c = 0; c < 4; c++)
            for (i = 0; i < m; i++) rec[(size_t)c * row_stride + (size_t)lanes[i]] = head[c];
        for (c = 4; c < rows; c++)
            for (i = 0; i < m; i++) rec[(size_t)c * row_stride + (size_t)lanes[i]] = coef[i][c - 4];
    }
}

/* In a keyed group's stream, the next entry of lane a (entry next[a]) comes before lane b's: by
   the time from which it is needed, then by lane (a lane's own entries are in order already) */
static int before(const clip_group *g, const int *next, int a, int b) {
    const float na = g->need[next[a]], nb = g->need[next[b]];
    return na < nb || (na == nb && a < b);
}

/* restores the order of the heap of `n` lanes below position i (the first lane goes first) */
static void sift_down(const clip_group *g, const int *next, int *heap, int n, int i) {
    for (;;) {
        const int l = 2 * i + 1, r = l + 1;
        int s = i, t;
        if (l < n && before(g, next, heap[l], heap[s])) s = l;
        if (r < n && before(g, next, heap[r], heap[s])) s = r;
        if (s == i) return;
        t = heap[i];
        heap[i] = heap[s];
        heap[s] = t;
        i = s;
    }
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
void sn_clip_clear_keyed(clip_group *g) {
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
static sn_status build_stream(clip_group *g, const sn_clip_track_def *const *tracks, const sn_allocator *alloc,
                              sn_error *err) {
    const int m = g->rows, e = 2 + m, d = g->depth;
    const size_t lanes_bytes = 2 * sizeof(int) * (size_t)(g->n > 0 ? g->n : 1);
    int *heap = (int *)sn_scratch_alloc(alloc, lanes_bytes), *next = heap + g->n;
    clip_word *last = g->stream + (size_t)g->total * (size_t)e;
    int i, k, c, at = 0, size = 0;
    if (heap == NULL) return sn_fail(err, SN_ENOMEM, "out of memory building the clip");
    for (i = 0; i < g->n; i++) {
        float prev[4] = {0, 0, 0, 0};
        const double scale = cubic_rotation_scale(tracks[i]);
        g->first[i] = at;
        g->count[i] = entries_of(tracks[i]);
        for (k = 0; k < g->count[i]; k++)
            g->need[at + k] = make_entry(tracks[i], k, prev, g->keys + (size_t)(at + k) * (size_t)m, scale);
        at += g->count[i];
        next[i] = g->first[i];
        heap[size++] = i; /* (a lane has at least one entry) */
    }
    /* the stream: every lane's entries (each lane's in order of need already) merged by need,
       then lane (a heap of the lanes by their next entry) */
    for (i = size / 2 - 1; i >= 0; i--) sift_down(g, next, heap, size, i);
    for (k = 0; k < g->total; k++) {
        clip_word *en = g->stream + (size_t)k * (size_t)e;
        const int lane = heap[0], entry = next[lane], j = entry - g->first[lane];
        en[0].f = g->need[entry];
        en[1].i = lane + (j & (d - 1)) * g->np; /* the slot of key j */
        for (c = 0; c < m; c++) en[2 + c].f = g->keys[(size_t)entry * (size_t)m + (size_t)c];
        if (++next[lane] == g->first[lane] + g->count[lane]) heap[0] = heap[--size];
        sift_down(g, next, heap, size, 0);
    }
    for (k = 0; k < e; k++) last[k].f = 0.0f;
    last[0].f = INFINITY; /* never needed: stops forward playback */
    last[1].i = 0;
    sn_scratch_free(alloc, heap, lanes_bytes);
    sn_clip_clear_keyed(g);
    g->tprev = -INFINITY;
    sn_clip_seek_keyed(g, -INFINITY);
    return SN_OK;
}

/* In a dense shared-times group, the lanes of joints without a track (joint -1) hold the rest
   value (a weight group's: the morph's default weight) as a constant over the group's intervals;
   `model` is a lane with a track, whose times they copy. */
static void fill_rest_lanes(clip_group *g, const sn_skeleton *s, int model) {
    const size_t np = (size_t)g->np, rec = (size_t)g->rows * np;
    const int w = width_of(g->path), first = g->path == SN_CLIP_ROTATION ? 3 : g->path == SN_CLIP_SCALE ? 7 : 0;
    int j, k, r, c;
    for (j = 0; j < g->n; j++) {
        float trs[10];
        if (g->joint[j] >= 0) continue; /* a lane with a track */
        g->joint[j] = j;
        if (g->path == SN_CLIP_WEIGHT) trs[0] = sn_skeleton_morph_defaults(s)[j];
        else sn_skeleton_rest(s, j, trs);
        for (k = 0; k < g->intervals; k++) {
            float *b = g->block + (size_t)k * rec;
            for (r = 0; r < 4; r++) b[(size_t)r * np + (size_t)j] = b[(size_t)r * np + (size_t)model];
            for (c = 0; c < w; c++) b[(4 + c) * np + (size_t)j] = trs[first + c]; /* v0, p0; the rest 0 */
        }
    }
}

sn_status sn_clip_init(void *mem, size_t size, const sn_clip_def *def, sn_error *err) {
    sn_clip *c = (sn_clip *)mem;
    unsigned char *at;
    int i, g, p, j, count, slots, scratch_np;
    size_t need, covered_bytes, tracks_bytes;
    unsigned char *covered;
    const sn_clip_track_def **tracks;
    int *lanes; /* the lane of each of tracks (after them in their scratch) */
    plan pl;
    /* what sn_clip_size does, with the plan kept for the build (one plan, not two) */
    if (sn_clip_validate(def, err) != SN_OK) return err != NULL ? err->code : SN_EINVAL;
    if (make_plan(def, &pl, err) != SN_OK) return err != NULL ? err->code : SN_ENOMEM;
    need = planned_size(def, &pl, &scratch_np);
    if (mem == NULL || size < need) {
        free_plan(&pl);
        return sn_fail(err, SN_ENOMEM, "clip needs %lu bytes", (unsigned long)need);
    }
    count = sn_skeleton_count(def->skeleton);
    slots = 3 * count + sn_skeleton_morph_count(def->skeleton);
    covered_bytes = (size_t)slots;
    tracks_bytes = (sizeof(*tracks) + sizeof(int)) * (size_t)(def->track_count + 1);
    covered = (unsigned char *)sn_scratch_alloc(def->alloc, covered_bytes);
    tracks = (const sn_clip_track_def **)sn_scratch_alloc(def->alloc, tracks_bytes);
    if (covered == NULL || tracks == NULL) {
        sn_scratch_free(def->alloc, covered, covered_bytes);
        sn_scratch_free(def->alloc, tracks, tracks_bytes);
        free_plan(&pl);
        return sn_fail(err, SN_ENOMEM, "out of memory building the clip");
    }
    lanes = (int *)(tracks + def->track_count + 1);
    c->skeleton = def->skeleton;
    c->duration = def->duration;
    c->track_count = def->track_count;
    c->stride = sn_skeleton_stride(def->skeleton);
    c->group_count = pl.count;
    at = sn_aligned_after(mem, sizeof(sn_clip));
    c->groups = (clip_group *)at;
    at += SN_ALIGN16(sizeof(clip_group) * (size_t)pl.count);
    c->scratch_np = scratch_np;
    c->scratch = (float *)at;
    memset(c->scratch, 0, sizeof(float) * SCRATCH_ROWS * (size_t)c->scratch_np);
    at += sizeof(float) * SCRATCH_ROWS * (size_t)c->scratch_np;
    for (g = 0; g < pl.count; g++) {
        const plan_group *pg = &pl.groups[g];
        clip_group *gr = &c->groups[g];
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
        if (!gr->uniform) memset(gr->cache, 0, sizeof(float) * floats); /* (build_intervals clears its records) */
        at += SN_ALIGN16(sizeof(float) * floats);
        gr->block = gr->uniform ? gr->cache : NULL;
        gr->stream = gr->uniform ? NULL : (clip_word *)at;
        at += SN_ALIGN16(sizeof(clip_word) * group_words(def, &pl, pg));
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
            lanes[i] = lane;
        }
        for (i = 0; gr->uniform && i < pg->n; i += INTERVAL_LANES)
            build_intervals(tracks + i, lanes + i, pg->n - i < INTERVAL_LANES ? pg->n - i : INTERVAL_LANES, gr->block,
                            (size_t)gr->rows * (size_t)gr->np, (size_t)gr->np, i == 0);
        if (!gr->uniform && build_stream(gr, tracks, def->alloc, err) != SN_OK) {
            sn_scratch_free(def->alloc, tracks, tracks_bytes);
            sn_scratch_free(def->alloc, covered, covered_bytes);
            free_plan(&pl);
            return err != NULL ? err->code : SN_ENOMEM;
        }
        if (gr->n != pg->n) fill_rest_lanes(gr, def->skeleton, def->tracks[pl.order[pg->start]].joint);
    }
    memset(covered, 0, (size_t)slots);
    for (i = 0; i < def->track_count; i++) covered[target_slot(def->skeleton, &def->tracks[i])] = 1;
    for (p = 0; p < 3; p++) {
        int n = 0;
        for (j = 0; j < count; j++) n += covered[3 * j + p];
        c->fill[p] = n < count;
    }
    for (j = 3 * count; j < slots && covered[j]; j++) continue;
    c->fill[SN_CLIP_WEIGHT] = j < slots; /* some morph without a track: the default weights */
    sn_scratch_free(def->alloc, covered, covered_bytes);
    sn_scratch_free(def->alloc, tracks, tracks_bytes);
    free_plan(&pl);
    return SN_OK;
}
