/*
 * Clips: tracks of keys, sampled by loops that run over many tracks at once.
 *
 * Each track's keys become interval records (see cache_rows): from each key to the next, plus
 * one holding the last key. Tracks are sorted into groups by interpolation and path, and by
 * joint inside a group; each group keeps a cache of the current interval of every track as
 * structure-of-arrays rows, and a frame computes the values of all its tracks row by row in
 * vectorised passes, straight into the pose when the group covers every joint of its path
 * ("dense"), else into scratch rows scattered to the joints.
 *
 * - Tracks with the same key times (the usual case: exporters bake every channel at the same
 *   rate) share one cursor: their records are stored interval by interval as rows, so moving to
 *   the next interval moves a pointer and the fraction is one number.
 * - Other tracks keep a cursor each: their records sit in one stream sorted by start time, so
 *   forward playback copies the records that start before the new time, in order, into the
 *   cache (sequential reads); going back or jumping far re-searches each track by bisection.
 */
#include "clip.h"

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

typedef struct group {
    int n;             /* lanes: tracks, or every joint for a dense shared-times group */
    int np;            /* n rounded up to SN_SKELETON_LANES: the length of every row */
    int path, interp;  /* what the tracks animate, how */
    int rows;          /* rows of the cache: floats per interval record (cache_rows) */
    int direct;        /* 1 when lane j is joint j for every joint: write the pose rows in place */
    int uniform;       /* 1 when every track has the same key times: one cursor for the group */
    float *cache;      /* np floats per row: the current interval of every lane (shared times:
                          all rows; a cursor per track: from t0 on, lo and hi are not needed) */
    /* shared times: the intervals, each rows x np floats; the cache points at the current one */
    float *block;
    int intervals;
    /* a cursor per track: the interval records of every track, rows + 1 floats each (the last
       is the lane), sorted by the time they start at (lo); the records before `pos` are in the
       cache (for each lane the latest), the others come as time goes forward */
    float *stream;
    int total, pos;
    float tprev;       /* the time of the last sample: going back re-searches */
    int *index;        /* total: per lane, its records' numbers in `stream`, in time order */
    int *first;        /* np: where a lane's numbers start in `index` */
    int *count;        /* np: how many records the lane has */
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
    float *scratch;          /* 9 rows of the largest np: fractions, Hermite weights, results */
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
    for (n = 0; n < nvalues; n++)
        if (!sn_isfinite(tr->values[n])) return TRACK_FAIL("value %d is not finite", n + 1);
    if (tr->path == SN_CLIP_ROTATION && tr->interpolation != SN_CLIP_CUBIC) {
        for (k = 0; k < tr->keys; k++) {
            double len2 = 0;
            for (c = 0; c < w; c++) len2 += (double)tr->values[w * k + c] * tr->values[w * k + c];
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

/* intervals of the tracks of a planned group (of one of them when uniform) */
static size_t group_intervals(const sn_clip_def *def, const plan *p, const plan_group *g) {
    size_t n = 0;
    int i;
    for (i = 0; i < g->n; i++) {
        const sn_clip_track_def *tr = &def->tracks[p->order[g->start + i]];
        if (g->uniform) return (size_t)intervals_of(tr->keys);
        n += (size_t)intervals_of(tr->keys);
    }
    return n;
}

/* floats of a planned group's cache and interval records */
static size_t group_floats(const sn_clip_def *def, const plan *p, const plan_group *g) {
    const size_t rows = (size_t)cache_rows(g->path, g->interp), np = (size_t)padded(g->lanes);
    if (g->uniform) return rows * np * group_intervals(def, p, g);
    return (rows - 2) * np + (rows + 1) * group_intervals(def, p, g);
}

/* ints of a planned group: first, count, joint, animated (as floats) per lane, and the index */
static size_t group_ints(const sn_clip_def *def, const plan *p, const plan_group *g) {
    return 4 * (size_t)padded(g->lanes) + (g->uniform ? 0 : group_intervals(def, p, g));
}

/* bytes after the header: the groups, the scratch, and per group its ints, cache and records */
static size_t arrays_size(const sn_clip_def *def, const plan *p, int *scratch_np) {
    size_t n = SN_ALIGN16(sizeof(group) * (size_t)p->count);
    int g, most = 0;
    for (g = 0; g < p->count; g++) {
        n += SN_ALIGN16(sizeof(int) * group_ints(def, p, &p->groups[g])) +
             sizeof(float) * group_floats(def, p, &p->groups[g]);
        if (padded(p->groups[g].lanes) > most) most = padded(p->groups[g].lanes);
    }
    *scratch_np = most;
    return n + sizeof(float) * 9 * (size_t)most;
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

/* the value of key k of `tr` (the middle one of three for cubic); rotations of linear and step
   tracks normalised and, for linear ones, put in the hemisphere of `prev` when given */
static void key_value(const sn_clip_track_def *tr, int k, const float *prev, float *v) {
    const int w = width_of(tr->path), cubic = tr->interpolation == SN_CLIP_CUBIC;
    int c;
    for (c = 0; c < w; c++) v[c] = tr->values[(cubic ? 3 * w * k + w : w * k) + c];
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
    int k, c;
    float v0[4], v1[4], r[20], *coef = r + 4;
    key_value(tr, 0, NULL, v0);
    for (k = 0; k < n; k++) {
        const int k1 = k + 1 < tr->keys ? k + 1 : k; /* k1 == k: the last interval, holding key k */
        double dt = (double)tr->times[k1] - tr->times[k], inv = dt > 0.0 ? 1.0 / dt : 0.0;
        key_value(tr, k1, v0, v1);
        r[0] = k == 0 ? -INFINITY : tr->times[k];
        r[1] = k == n - 1 ? INFINITY : tr->times[k1];
        r[2] = tr->times[k];
        r[3] = inv < 3e38 ? (float)inv : 3e38f;
        for (c = 0; c < w; c++) {
            coef[c] = v0[c];
            if (tr->interpolation == SN_CLIP_LINEAR) {
                coef[w + c] = v1[c] - v0[c];
            } else if (tr->interpolation == SN_CLIP_CUBIC) {
                coef[w + c] = (float)(dt * tr->values[3 * w * k + 2 * w + c]); /* dt * out-tangent(k) */
                coef[2 * w + c] = v1[c] - v0[c];
                coef[3 * w + c] = (float)(dt * tr->values[3 * w * k1 + c]);    /* dt * in-tangent(k+1) */
            }
        }
        for (c = 0; c < rows; c++) out[(size_t)k * rec_stride + (size_t)c * row_stride] = r[c];
        memcpy(v0, v1, sizeof v0);
    }
}

/* copies `rows` floats of a record into column i of a cache with rows of np floats; the cases
   give the compiler constant counts to unroll */
static void load_column(float *restrict cache, int np, int i, const float *restrict rec, int rows) {
    int r;
    switch (rows) {
    case 8: for (r = 0; r < 8; r++) cache[r * np + i] = rec[r]; break;
    case 10: for (r = 0; r < 10; r++) cache[r * np + i] = rec[r]; break;
    default: for (r = 0; r < rows; r++) cache[r * np + i] = rec[r]; break;
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

/* A cursor per track, any time: for every lane, the latest record starting at or before t
   (bisection over the lane's records), and `pos` past every record starting at or before t. */
static void seek_tracks(group *g, float t) {
    const int rs = g->rows + 1;
    int i, lo, hi;
    for (i = 0; i < g->n; i++) {
        const int *idx = g->index + g->first[i];
        lo = 0;
        hi = g->count[i] - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (g->stream[(size_t)idx[mid] * rs] <= t) lo = mid;
            else hi = mid - 1;
        }
        load_column(g->cache, g->np, i, g->stream + (size_t)idx[lo] * rs + 2, g->rows - 2);
    }
    lo = 0;
    hi = g->total;
    while (lo < hi) { /* the first record starting after t */
        int mid = (lo + hi) / 2;
        if (g->stream[(size_t)mid * rs] <= t) lo = mid + 1;
        else hi = mid;
    }
    g->pos = lo;
}

/* A cursor per track, forward playback: the records starting up to t, in the order they come
   in the stream (sequential reads); a step back or a long jump re-searches. */
static void advance_tracks(group *g, float t) {
    const int rs = g->rows + 1, far = g->pos + 2 * g->n;
    if (t < g->tprev || (far < g->total && g->stream[(size_t)far * rs] <= t)) {
        seek_tracks(g, t);
    } else {
        while (g->pos < g->total && g->stream[(size_t)g->pos * rs] <= t) {
            const float *r = g->stream + (size_t)g->pos * rs;
            load_column(g->cache, g->np, (int)r[g->rows], r + 2, g->rows - 2);
            g->pos++;
        }
    }
    g->tprev = t;
}

typedef struct stream_key {
    float lo;
    int lane, record;
} stream_key;

static int by_start(const void *a, const void *b) {
    const stream_key *x = (const stream_key *)a, *y = (const stream_key *)b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    return x->lane - y->lane;
}

/* Builds the records of a group with a cursor per track (tracks `tracks`, lane i = track i)
   into its stream, sorted by start time, and its index; loads the first record of each lane. */
static sn_status build_stream(group *g, const sn_clip_track_def *const *tracks, sn_error *err) {
    const int rs = g->rows + 1;
    float *tmp = (float *)malloc(sizeof(float) * (size_t)rs * (size_t)g->total);
    stream_key *keys = (stream_key *)malloc(sizeof(stream_key) * (size_t)g->total);
    int i, k, at = 0;
    if (tmp == NULL || keys == NULL) {
        free(tmp);
        free(keys);
        return sn_fail(err, SN_ENOMEM, "out of memory building the clip");
    }
    for (i = 0; i < g->n; i++) {
        g->first[i] = at;
        g->count[i] = intervals_of(tracks[i]->keys);
        build_intervals(tracks[i], tmp + (size_t)at * rs, (size_t)rs, 1);
        for (k = 0; k < g->count[i]; k++) {
            tmp[(size_t)(at + k) * rs + g->rows] = (float)i;
            keys[at + k].lo = tmp[(size_t)(at + k) * rs];
            keys[at + k].lane = i;
            keys[at + k].record = at + k;
        }
        at += g->count[i];
    }
    qsort(keys, (size_t)g->total, sizeof(stream_key), by_start);
    for (i = 0; i < g->n; i++) g->count[i] = 0;
    for (k = 0; k < g->total; k++) {
        const int lane = keys[k].lane;
        memcpy(g->stream + (size_t)k * rs, tmp + (size_t)keys[k].record * rs, sizeof(float) * (size_t)rs);
        g->index[g->first[lane] + g->count[lane]++] = k; /* a lane's records come in time order */
    }
    free(tmp);
    free(keys);
    g->tprev = -INFINITY;
    seek_tracks(g, -INFINITY);
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
    memset(c->scratch, 0, sizeof(float) * 9 * (size_t)c->scratch_np);
    at += sizeof(float) * 9 * (size_t)c->scratch_np;
    for (g = 0; g < pl.count; g++) {
        const plan_group *pg = &pl.groups[g];
        group *gr = &c->groups[g];
        size_t floats = group_floats(def, &pl, pg);
        gr->n = pg->lanes;
        gr->np = padded(pg->lanes);
        gr->path = pg->path;
        gr->interp = pg->interp;
        gr->rows = cache_rows(gr->path, gr->interp);
        gr->direct = pg->dense;
        gr->uniform = pg->uniform;
        gr->intervals = gr->uniform ? (int)group_intervals(def, &pl, pg) : 0;
        gr->first = (int *)at;
        gr->count = gr->first + gr->np;
        gr->joint = gr->count + gr->np;
        gr->animated = (float *)(gr->joint + gr->np);
        gr->index = gr->joint + 2 * gr->np;
        memset(at, 0, sizeof(int) * group_ints(def, &pl, pg));
        at += SN_ALIGN16(sizeof(int) * group_ints(def, &pl, pg));
        gr->cache = (float *)at;
        memset(gr->cache, 0, sizeof(float) * floats);
        at += sizeof(float) * floats;
        gr->block = gr->uniform ? gr->cache : NULL;
        gr->stream = gr->uniform ? NULL : gr->cache + (size_t)(gr->rows - 2) * (size_t)gr->np;
        gr->total = gr->uniform ? 0 : (int)group_intervals(def, &pl, pg);
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

/* ---- the per-frame kernels: one row at a time, vectorised -------------------------------- */

/* s = clamp((t - t0) / dt, 0, 1) */
KERNEL fraction(float *restrict s, const float *restrict t0, const float *restrict inv, float t, int n) {
    int i;
    for (i = 0; i < n; i++) {
        float a = (t - t0[i]) * inv[i];
        a = a < 0.0f ? 0.0f : a;
        s[i] = a > 1.0f ? 1.0f : a;
    }
}

KERNEL lerp_row(float *restrict o, const float *restrict v0, const float *restrict dv, const float *restrict s, int n) {
    int i;
    for (i = 0; i < n; i++) o[i] = v0[i] + s[i] * dv[i];
}

KERNEL lerp_row_s(float *restrict o, const float *restrict v0, const float *restrict dv, float s, int n) {
    int i;
    for (i = 0; i < n; i++) o[i] = v0[i] + s * dv[i];
}

/* the glTF Hermite basis at s, without h00 = 1 - h01: h10, h01, h11 */
KERNEL hermite(float *restrict h10, float *restrict h01, float *restrict h11, const float *restrict s, int n) {
    int i;
    for (i = 0; i < n; i++) {
        float x = s[i], x2 = x * x, x3 = x2 * x;
        h10[i] = x3 - 2 * x2 + x;
        h01[i] = 3 * x2 - 2 * x3;
        h11[i] = x3 - x2;
    }
}

/* p = h00 p0 + h10 m0 + h01 p1 + h11 m1 written p0 + h10 m0 + h01 (p1 - p0) + h11 m1 (h00 + h01
   = 1), which gives p0 exactly at s = 0 and for constant lanes */
KERNEL cubic_row(float *restrict o, const float *restrict p0, const float *restrict m0, const float *restrict dp,
                 const float *restrict m1, const float *restrict h10, const float *restrict h01,
                 const float *restrict h11, int n) {
    int i;
    for (i = 0; i < n; i++) o[i] = p0[i] + h10[i] * m0[i] + h01[i] * dp[i] + h11[i] * m1[i];
}

KERNEL cubic_row_s(float *restrict o, const float *restrict p0, const float *restrict m0, const float *restrict dp,
                   const float *restrict m1, float h10, float h01, float h11, int n) {
    int i;
    for (i = 0; i < n; i++) o[i] = p0[i] + h10 * m0[i] + h01 * dp[i] + h11 * m1[i];
}

/* normalises the quaternions of the lanes flagged 1 in `animated` in place and leaves those
   flagged 0 (rest values) exactly as they are; a zero one stays zero. Arithmetic rather than a
   select around sqrtf, so that the loop vectorises. */
KERNEL normalize_rows(float *restrict x, float *restrict y, float *restrict z, float *restrict w,
                      const float *restrict animated, int n) {
    int i;
    for (i = 0; i < n; i++) {
        float k = 1.0f / sqrtf(x[i] * x[i] + y[i] * y[i] + z[i] * z[i] + w[i] * w[i] + 1e-30f);
        k = 1.0f + animated[i] * (k - 1.0f);
        x[i] *= k;
        y[i] *= k;
        z[i] *= k;
        w[i] *= k;
    }
}

static void sample_tracks(sn_clip *clip, group *g, float t, float *o, int ost);

/* computes the values of every track of `g` at t into `width` rows at `o` (row stride ost) */
static void sample_group(sn_clip *clip, group *g, float t, float *o, int ost) {
    const int n = g->n, np = g->np, w = width_of(g->path);
    float *row = g->cache, *coef;
    int r;
    if (!g->uniform) advance_tracks(g, t);
    else if (t < row[0] || t >= row[np]) seek_shared(g, t);
    row = g->cache;
    coef = row + 4 * np;
    if (g->uniform) {
        /* one interval for all: the fraction and the Hermite weights are plain numbers */
        float a = (t - row[2 * np]) * row[3 * np];
        a = a < 0.0f ? 0.0f : a > 1.0f ? 1.0f : a;
        if (g->interp == SN_CLIP_LINEAR) {
            for (r = 0; r < w; r++) lerp_row_s(o + r * ost, coef + r * np, coef + (w + r) * np, a, n);
        } else if (g->interp == SN_CLIP_STEP) {
            for (r = 0; r < w; r++) memcpy(o + r * ost, coef + r * np, sizeof(float) * (size_t)n);
        } else {
            const float a2 = a * a, a3 = a2 * a;
            for (r = 0; r < w; r++)
                cubic_row_s(o + r * ost, coef + r * np, coef + (w + r) * np, coef + (2 * w + r) * np,
                            coef + (3 * w + r) * np, a3 - 2 * a2 + a, 3 * a2 - 2 * a3, a3 - a2, n);
        }
    } else {
        sample_tracks(clip, g, t, o, ost);
    }
    if (g->path == SN_CLIP_ROTATION && g->interp != SN_CLIP_STEP)
        normalize_rows(o, o + ost, o + 2 * ost, o + 3 * ost, g->animated, n);
}

/* the values of a group with a cursor per track: fractions and Hermite weights per track */
static void sample_tracks(sn_clip *clip, group *g, float t, float *o, int ost) {
    const int n = g->n, np = g->np, w = width_of(g->path);
    float *row = g->cache, *s = clip->scratch, *coef = row + 2 * np; /* rows t0, 1/dt, coefficients */
    int r;
    if (g->interp == SN_CLIP_STEP) {
        for (r = 0; r < w; r++) memcpy(o + r * ost, coef + r * np, sizeof(float) * (size_t)n);
        return;
    }
    fraction(s, row, row + np, t, n);
    if (g->interp == SN_CLIP_LINEAR) {
        for (r = 0; r < w; r++) lerp_row(o + r * ost, coef + r * np, coef + (w + r) * np, s, n);
    } else {
        float *h = s + clip->scratch_np; /* three rows after s */
        const int sn = clip->scratch_np;
        hermite(h, h + sn, h + 2 * sn, s, n);
        for (r = 0; r < w; r++)
            cubic_row(o + r * ost, coef + r * np, coef + (w + r) * np, coef + (2 * w + r) * np,
                      coef + (3 * w + r) * np, h, h + sn, h + 2 * sn, n);
    }
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
    float *ch = out->ch, ft, *res = c->scratch + 5 * c->scratch_np;
    int p, g;
    if (sn_pose_skeleton(out) != c->skeleton) return sn_fail_arg(err, 2, SN_EINVAL, "pose of another skeleton");
    if (!sn_isfinite(t)) return sn_fail_arg(err, 1, SN_EINVAL, "time is not finite");
    ft = (float)sn_clip_local_time(c, t, loop);
    for (p = 0; p < 3; p++)
        if (c->fill[p])
            memcpy(ch + path_row[p] * st, rest + path_row[p] * st, sizeof(float) * (size_t)(width_of(p) * st));
    for (g = 0; g < c->group_count; g++) {
        group *gr = &c->groups[g];
        float *o = ch + path_row[gr->path] * st;
        const int w = width_of(gr->path);
        if (gr->n == 0) continue;
        if (gr->direct) {
            sample_group(c, gr, ft, o, st);
            continue;
        }
        sample_group(c, gr, ft, res, c->scratch_np);
        scatter(o, st, res, c->scratch_np, gr->joint, gr->n, w);
    }
    return SN_OK;
}
