/* C-only tests of the clip files of src/core (clip_build.c, clip_sample.c): no Lua involved. */
#define FIXTURE_SEED 99991
#include "clip.h"
#include "fixtures.h"

#define JOINTS 12
#define MAXKEYS 24

/* a line of n joints with a rest pose of distinct values */
static sn_skeleton *new_skeleton(int n) {
    float rest[10 * JOINTS];
    int j;
    for (j = 0; j < n; j++) {
        float *r = rest + 10 * j;
        r[0] = (float)j; r[1] = 1; r[2] = 2;
        r[3] = 0; r[4] = 0.6f; r[5] = 0; r[6] = 0.8f;
        r[7] = 1; r[8] = 2; r[9] = 3;
    }
    return fixture_line_skeleton(n, rest);
}

static sn_clip *new_clip(const sn_clip_def *def) {
    size_t size = sn_clip_size(def, NULL);
    sn_clip *c = (sn_clip *)fixture_block(size);
    ENSURE(size > 0);
    ENSURE(sn_clip_init(c, size, def, NULL) == SN_OK);
    return c;
}

#define new_pose fixture_pose

/* storage for random definitions */
typedef struct tracks {
    sn_clip_track_def def[3 * JOINTS];
    float times[3 * JOINTS][MAXKEYS];
    float values[3 * JOINTS][3 * 4 * MAXKEYS];
    int n;
} tracks;

static void random_times(float *times, int keys) {
    int k;
    float t = (float)(int)rnd(0, 8) / 64;
    for (k = 0; k < keys; k++) {
        times[k] = t;
        t += (float)(1 + (int)rnd(0, 11.99)) / 64;
    }
}

/* random tracks on joints of a skeleton of n joints; uniform: every track has the same times */
static void random_tracks(tracks *tr, int n, int uniform) {
    int j, p, k, shared_keys = 1 + (int)rnd(0, MAXKEYS - 0.01);
    float shared[MAXKEYS];
    random_times(shared, shared_keys);
    tr->n = 0;
    for (j = 0; j < n; j++) {
        for (p = 0; p < 3; p++) {
            sn_clip_track_def *d = &tr->def[tr->n];
            int w = p == SN_CLIP_ROTATION ? 4 : 3, keys, count;
            if (rnd(0, 1) < 0.25) continue;
            d->joint = j;
            d->path = (sn_clip_path)p;
            d->interpolation = uniform ? SN_CLIP_LINEAR : (sn_clip_interpolation)(int)rnd(0, 2.99);
            keys = uniform ? shared_keys : 1 + (int)rnd(0, MAXKEYS - 0.01);
            if (uniform) memcpy(tr->times[tr->n], shared, sizeof shared);
            else random_times(tr->times[tr->n], keys);
            count = keys * w * (d->interpolation == SN_CLIP_CUBIC ? 3 : 1);
            for (k = 0; k < count; k++) tr->values[tr->n][k] = (float)rnd(-1, 1);
            d->keys = keys;
            d->times = tr->times[tr->n];
            d->values = tr->values[tr->n];
            tr->n++;
        }
    }
}

/* Tracks with their own key times (a cursor per track): every path of every joint, so that the
   groups write the pose in place, or (sparse) about half of them. `interp` is the interpolation
   of every track, or -1 for random ones; one- and two-key tracks are frequent. */
static void own_time_tracks(tracks *tr, int n, int sparse, int interp) {
    int j, p, k;
    tr->n = 0;
    for (j = 0; j < n; j++) {
        for (p = 0; p < 3; p++) {
            sn_clip_track_def *d = &tr->def[tr->n];
            const int w = p == SN_CLIP_ROTATION ? 4 : 3;
            const double r = rnd(0, 1);
            int keys, count;
            if (sparse && rnd(0, 1) < 0.5) continue;
            d->joint = j;
            d->path = (sn_clip_path)p;
            d->interpolation = (sn_clip_interpolation)(interp >= 0 ? interp : (int)rnd(0, 2.99));
            keys = r < 0.1 ? 1 : r < 0.2 ? 2 : 3 + (int)rnd(0, MAXKEYS - 3 - 0.01);
            random_times(tr->times[tr->n], keys);
            count = keys * w * (d->interpolation == SN_CLIP_CUBIC ? 3 : 1);
            for (k = 0; k < count; k++) tr->values[tr->n][k] = (float)rnd(-1, 1);
            d->keys = keys;
            d->times = tr->times[tr->n];
            d->values = tr->values[tr->n];
            tr->n++;
        }
    }
}

static float max_time(const tracks *tr) {
    float m = 0;
    int i;
    for (i = 0; i < tr->n; i++)
        if (tr->def[i].times[tr->def[i].keys - 1] > m) m = tr->def[i].times[tr->def[i].keys - 1];
    return m;
}

/* The value of a track at time t, in double precision, from the documented formulas. */
static void reference(const sn_clip_track_def *d, double t, double *out) {
    const int w = d->path == SN_CLIP_ROTATION ? 4 : 3, cubic = d->interpolation == SN_CLIP_CUBIC;
    const int per = cubic ? 3 * w : w;
    const int at = cubic ? w : 0, n = d->keys;
    int k = 0, c;
    double v0[4], v1[4], s, dt, dot = 0, len = 0;
    if (t <= d->times[0] || n == 1) {
        for (c = 0; c < w; c++) out[c] = d->values[at + c];
    } else if (t >= d->times[n - 1]) {
        for (c = 0; c < w; c++) out[c] = d->values[per * (n - 1) + at + c];
    } else {
        while (d->times[k + 1] <= t) k++;
        dt = (double)d->times[k + 1] - d->times[k];
        s = (t - d->times[k]) / dt;
        for (c = 0; c < w; c++) {
            v0[c] = d->values[per * k + at + c];
            v1[c] = d->values[per * (k + 1) + at + c];
        }
        if (d->interpolation == SN_CLIP_STEP) {
            for (c = 0; c < w; c++) out[c] = v0[c];
        } else if (cubic) {
            double h00 = 2 * s * s * s - 3 * s * s + 1, h10 = s * s * s - 2 * s * s + s;
            double h01 = 3 * s * s - 2 * s * s * s, h11 = s * s * s - s * s;
            for (c = 0; c < w; c++)
                out[c] = h00 * v0[c] + h10 * dt * d->values[per * k + 2 * w + c] + h01 * v1[c] +
                         h11 * dt * d->values[per * (k + 1) + c];
        } else {
            if (w == 4) {
                double l0 = 0, l1 = 0;
                for (c = 0; c < 4; c++) { l0 += v0[c] * v0[c]; l1 += v1[c] * v1[c]; }
                for (c = 0; c < 4; c++) { v0[c] /= sqrt(l0); v1[c] /= sqrt(l1); dot += v0[c] * v1[c]; }
                if (dot < 0)
                    for (c = 0; c < 4; c++) v1[c] = -v1[c];
            }
            for (c = 0; c < w; c++) out[c] = v0[c] + s * (v1[c] - v0[c]);
        }
    }
    if (w == 4) {
        for (c = 0; c < 4; c++) len += out[c] * out[c];
        for (c = 0; c < 4; c++) out[c] /= sqrt(len);
    }
}

static void check_against_reference(const sn_skeleton *s, const tracks *tr, const sn_pose *p, double t) {
    static const int first[3] = {SN_POSE_TX, SN_POSE_QX, SN_POSE_SX};
    int i, j, c, n = sn_skeleton_count(s), covered[JOINTS][3] = {{0}};
    for (i = 0; i < tr->n; i++) {
        const sn_clip_track_def *d = &tr->def[i];
        double want[4], dot = 0;
        float got[10];
        int w = d->path == SN_CLIP_ROTATION ? 4 : 3;
        reference(d, t, want);
        sn_pose_get(p, d->joint, got);
        covered[d->joint][d->path] = 1;
        for (c = 0; c < w; c++) dot += want[c] * got[first[d->path] + c];
        for (c = 0; c < w; c++)
            ENSURE_NEAR(got[first[d->path] + c] * (w == 4 && dot < 0 ? -1 : 1), want[c], 2e-5 * (1 + fabs(want[c])));
    }
    for (j = 0; j < n; j++) {
        float got[10], rest[10];
        int path;
        sn_pose_get(p, j, got);
        sn_skeleton_rest(s, j, rest);
        for (path = 0; path < 3; path++)
            if (!covered[j][path])
                for (c = 0; c < (path == 1 ? 4 : 3); c++) ENSURE(got[first[path] + c] == rest[first[path] + c]);
    }
}

static void test_matches_reference_and_fresh_cursors(void) {
    int round;
    for (round = 0; round < 40; round++) {
        int n = 1 + (int)rnd(0, JOINTS - 0.01), step;
        sn_skeleton *s = new_skeleton(n);
        static tracks tr;
        sn_clip_def def;
        sn_clip *clip;
        sn_pose *p = new_pose(s), *q = new_pose(s);
        double t = -0.1;
        random_tracks(&tr, n, round % 3 == 0);
        sn_clip_def_init(&def);
        def.skeleton = s;
        def.duration = max_time(&tr);
        def.track_count = tr.n;
        def.tracks = tr.def;
        clip = new_clip(&def);
        ENSURE(sn_clip_track_count(clip) == tr.n && sn_clip_skeleton(clip) == s);
        for (step = 0; step < 150; step++) {
            sn_clip *fresh;
            float a[10], b[10];
            int j;
            if (step < 70) t += rnd(0, 0.04);
            else if (step < 100) t -= rnd(0, 0.04);
            else t = rnd(-0.5, def.duration + 0.5);
            t = floor(t * 4096) / 4096; /* exact in float32 */
            ENSURE(sn_clip_sample(clip, t, 0, p, NULL) == SN_OK);
            check_against_reference(s, &tr, p, t < 0 ? 0 : t > def.duration ? def.duration : t);
            /* a fresh clip (cursors at the start) gives exactly the same pose */
            fresh = new_clip(&def);
            ENSURE(sn_clip_sample(fresh, t, 0, q, NULL) == SN_OK);
            for (j = 0; j < n; j++) {
                sn_pose_get(p, j, a);
                sn_pose_get(q, j, b);
                ENSURE(memcmp(a, b, sizeof a) == 0);
            }
        }
    }
}

/* Cursors: two playbacks of one clip, interleaved with sampling the clip itself, each give the
   pose the clip gives at its time, bit for bit, and leave the clip's own place alone. */
static void test_cursors_play_on_their_own(void) {
    int round;
    for (round = 0; round < 40; round++) {
        int n = 1 + (int)rnd(0, JOINTS - 0.01), step, j;
        sn_skeleton *s = new_skeleton(n);
        static tracks tr;
        sn_clip_def def;
        sn_clip_cursor_def cdef;
        sn_clip *clip, *ref;
        sn_clip_cursor *cur[2];
        sn_pose *p = new_pose(s), *q = new_pose(s);
        double t[3] = {0, 0.3, -0.1};
        size_t size;
        if (round % 2) own_time_tracks(&tr, n, round % 4 == 1, -1);
        else random_tracks(&tr, n, round % 3 == 0);
        sn_clip_def_init(&def);
        def.skeleton = s;
        def.duration = max_time(&tr);
        def.track_count = tr.n;
        def.tracks = tr.def;
        clip = new_clip(&def);
        ref = new_clip(&def);
        sn_clip_cursor_def_init(&cdef);
        ENSURE(sn_clip_cursor_size(&cdef, NULL) == 0);
        cdef.clip = clip;
        size = sn_clip_cursor_size(&cdef, NULL);
        ENSURE(size >= 32);
        for (j = 0; j < 2; j++) {
            cur[j] = (sn_clip_cursor *)fixture_block(size);
            ENSURE(sn_clip_cursor_init(cur[j], size - 16, &cdef, NULL) == SN_EINVAL);
            ENSURE(sn_clip_cursor_init(cur[j], size, &cdef, NULL) == SN_OK);
            ENSURE(sn_clip_cursor_clip(cur[j]) == clip);
        }
        for (step = 0; step < 120; step++) {
            int k = step % 3, i;
            float a[10], b[10];
            t[k] += step < 90 ? rnd(0, 0.05) : rnd(-1, 1);
            t[k] = floor(t[k] * 4096) / 4096;
            if (k < 2) ENSURE(sn_clip_cursor_sample(cur[k], t[k], 1, p, NULL) == SN_OK);
            else ENSURE(sn_clip_sample(clip, t[k], 1, p, NULL) == SN_OK);
            ENSURE(sn_clip_sample(ref, t[k], 1, q, NULL) == SN_OK);
            for (i = 0; i < n; i++) {
                sn_pose_get(p, i, a);
                sn_pose_get(q, i, b);
                ENSURE(memcmp(a, b, sizeof a) == 0);
            }
        }
        ENSURE(sn_clip_cursor_sample(cur[0], 0.0 / 0.0, 1, p, NULL) == SN_EINVAL);
    }
}

static void test_keys_hit_exactly(void) {
    static const float times[3] = {0, 0.5f, 1}, tv[9] = {0.25f, 0.5f, 1, 2, 3, 4, -1, -2, -8};
    sn_skeleton *s = new_skeleton(2);
    sn_pose *p = new_pose(s);
    sn_clip_track_def d[1];
    sn_clip_def def;
    sn_clip *clip;
    int k, c;
    d[0].joint = 1;
    d[0].path = SN_CLIP_SCALE;
    d[0].keys = 3;
    d[0].times = times;
    d[0].values = tv;
    sn_clip_def_init(&def);
    def.skeleton = s;
    def.duration = 1;
    def.track_count = 1;
    def.tracks = d;
    for (d[0].interpolation = SN_CLIP_LINEAR; d[0].interpolation <= SN_CLIP_STEP;
         d[0].interpolation = (sn_clip_interpolation)(d[0].interpolation + 1)) {
        clip = new_clip(&def);
        for (k = 0; k < 3; k++) {
            ENSURE(sn_clip_sample(clip, times[k], 0, p, NULL) == SN_OK);
            for (c = 0; c < 3; c++) ENSURE(sn_pose_channel(p, SN_POSE_SX + c)[1] == tv[3 * k + c]);
        }
        ENSURE(sn_clip_sample(clip, 0.25, 0, p, NULL) == SN_OK);
        ENSURE(sn_pose_channel(p, SN_POSE_SX)[1] == (d[0].interpolation == SN_CLIP_STEP ? 0.25f : 1.125f));
    }
}

static void test_local_time_wraps(void) {
    static const float times[1] = {0}, v[3] = {1, 2, 3};
    sn_skeleton *s = new_skeleton(1);
    sn_clip_track_def d = {0, SN_CLIP_TRANSLATION, SN_CLIP_LINEAR, 1, times, v};
    sn_clip_def def;
    sn_clip *clip;
    sn_clip_def_init(&def);
    def.skeleton = s;
    def.duration = 2;
    def.track_count = 1;
    def.tracks = &d;
    clip = new_clip(&def);
    ENSURE(sn_clip_duration(clip) == 2);
    ENSURE_NEAR(sn_clip_local_time(clip, -0.5, 1), 1.5, 0);
    ENSURE_NEAR(sn_clip_local_time(clip, 2e9 + 0.25, 1), 0.25, 1e-6);
    ENSURE_NEAR(sn_clip_local_time(clip, -2e9 - 0.25, 1), 1.75, 1e-6);
    ENSURE(sn_clip_local_time(clip, 2, 1) == 0 && sn_clip_local_time(clip, 4, 1) == 0);
    ENSURE(sn_clip_local_time(clip, 5, 0) == 2 && sn_clip_local_time(clip, -5, 0) == 0);
    ENSURE(sn_clip_local_time(clip, 1.25, 0) == 1.25);
    def.duration = 0;
    clip = new_clip(&def);
    ENSURE(sn_clip_local_time(clip, 7, 1) == 0 && sn_clip_local_time(clip, 7, 0) == 0);
}

/* invalid definitions: two valid rotation tracks, the second spoiled by each case */
static const float t2[2] = {0, 1}, tdup[2] = {0.5f, 0.5f}, tneg[2] = {-1, 0}, v8[8] = {0, 0, 0, 1, 0, 0, 0, 1},
                   vzero[8] = {0, 0, 0, 1, 0, 0, 0, 0};
static float tnan[2] = {0, 0}, vnan[8] = {0, 0, 0, 1, 0, 0, 0, 0};
static sn_skeleton *case_skeleton;
static sn_clip_track_def case_tracks[2];

static void valid_clip(sn_clip_def *def) {
    case_tracks[0].joint = 0;
    case_tracks[0].path = SN_CLIP_ROTATION;
    case_tracks[0].interpolation = SN_CLIP_LINEAR;
    case_tracks[0].keys = 2;
    case_tracks[0].times = t2;
    case_tracks[0].values = v8;
    case_tracks[1] = case_tracks[0];
    case_tracks[1].joint = 1;
    sn_clip_def_init(def);
    def->skeleton = case_skeleton;
    def->duration = 1;
    def->track_count = 2;
    def->tracks = case_tracks;
}

#define T2 case_tracks[1]
static void joint_past_end(sn_clip_def *d) { (void)d; T2.joint = 2; }
static void joint_negative(sn_clip_def *d) { (void)d; T2.joint = -1; }
static void same_joint_and_path(sn_clip_def *d) { (void)d; T2.joint = 0; }
static void unknown_path(sn_clip_def *d) { (void)d; T2.path = (sn_clip_path)(SN_CLIP_WEIGHT + 1); }
static void unknown_interpolation(sn_clip_def *d) { (void)d; T2.interpolation = (sn_clip_interpolation)7; }
static void no_keys(sn_clip_def *d) { (void)d; T2.keys = 0; }
static void no_times(sn_clip_def *d) { (void)d; T2.times = NULL; }
static void repeated_time(sn_clip_def *d) { (void)d; T2.times = tdup; }
static void negative_time(sn_clip_def *d) { (void)d; T2.times = tneg; }
static void nan_time(sn_clip_def *d) { (void)d; T2.times = tnan; }
static void time_past_duration(sn_clip_def *d) { d->duration = 0.5f; }
static void negative_duration(sn_clip_def *d) { d->duration = -1; }
static void nan_duration(sn_clip_def *d) { d->duration = tnan[1]; }
static void endless_duration(sn_clip_def *d) { d->duration = 2e9f; }
static void nan_value(sn_clip_def *d) { (void)d; T2.values = vnan; }
static void zero_rotation(sn_clip_def *d) { (void)d; T2.values = vzero; }
static void huge_value(sn_clip_def *d) { (void)d; vnan[0] = 1e30f; T2.values = vnan; }
static void negative_track_count(sn_clip_def *d) { d->track_count = -1; }
static void too_many_tracks(sn_clip_def *d) { d->track_count = 7; }
static void no_tracks_array(sn_clip_def *d) { d->tracks = NULL; }
static void no_skeleton(sn_clip_def *d) { d->skeleton = NULL; }
#undef T2

FIXTURE_CASE_TYPE(clip_case, sn_clip_def);
static const clip_case clip_cases[] = {
    {"a joint past the skeleton", joint_past_end, "joint 3 is out of range (1 .. 2)"},
    {"a negative joint", joint_negative, "joint 0 is out of range (1 .. 2)"},
    {"two tracks on one joint and path", same_joint_and_path, "tracks 1 and 2 both animate the rotation of 'j0'"},
    {"an unknown path", unknown_path, "unknown path"},
    {"an unknown interpolation", unknown_interpolation, "unknown interpolation"},
    {"no keys", no_keys, "no keys"},
    {"no times", no_times, "no keys"},
    {"a repeated key time", repeated_time, "times are not increasing"},
    {"a negative key time", negative_time, "is negative"},
    {"a NaN key time", nan_time, "time 2 is not finite"},
    {"a key past the duration", time_past_duration, "past the duration"},
    {"a negative duration", negative_duration, "'duration' must be a finite number >= 0"},
    {"a NaN duration", nan_duration, "'duration' must be a finite number >= 0"},
    {"a duration of 63 years", endless_duration, "is too long"},
    {"a NaN value", nan_value, "value 8 is not finite"},
    {"a zero rotation", zero_rotation, "rotation of key 2 is zero"},
    {"a value of 1e30", huge_value, "value 1 is too large"},
    {"a negative track count", negative_track_count, "track count"},
    {"more than 3 tracks per joint", too_many_tracks, "more than 3 per joint"},
    {"tracks missing", no_tracks_array, "track count"},
    {"no skeleton", no_skeleton, "no skeleton"},
};

static void test_invalid_inputs_refused(void) {
    sn_skeleton *other = new_skeleton(2);
    sn_clip_def def;
    sn_error err;
    sn_clip *clip;
    sn_pose *p = new_pose(other);
    char small[16];
    tnan[1] = tnan[1] / tnan[1];
    vnan[7] = vnan[7] / vnan[7];
    case_skeleton = new_skeleton(2);
    valid_clip(&def);
    ENSURE(sn_clip_validate(&def, &err) == SN_OK);
    REFUSE_CASES(clip_cases, sn_clip_def, valid_clip, sn_clip_validate);
    valid_clip(&def);
    ENSURE(sn_clip_size(&def, &err) > 0);
    ENSURE(sn_clip_init(small, sizeof small, &def, &err) == SN_ENOMEM);
    clip = new_clip(&def);
    ENSURE(sn_clip_sample(clip, 0, 1, p, &err) == SN_EINVAL && err.arg == 2);
    p = new_pose(case_skeleton);
    ENSURE(sn_clip_sample(clip, tnan[1], 1, p, &err) == SN_EINVAL && err.arg == 1);
    ENSURE(sn_clip_sample(clip, 0.5, 1, p, &err) == SN_OK);
}

/* the one-pass tests of validation draw their lines where the value-by-value ones do: the
   largest float of magnitude at most SN_CLIP_MAX_VALUE is accepted and the next one refused, an
   infinity anywhere in a track is refused, and a rotation of a single denormal component (a
   square above zero in double) is not zero; the fault named is the first, at its place */
static void test_validation_bounds(void) {
    float most = (float)SN_CLIP_MAX_VALUE, v[16], t[4] = {0, 0.25f, 0.5f, 1};
    sn_skeleton *s = new_skeleton(2);
    sn_clip_track_def tr[2];
    sn_clip_def def;
    sn_error err;
    int k, at;
    if ((double)most > SN_CLIP_MAX_VALUE) most = nextafterf(most, 0.0f);
    memset(tr, 0, sizeof tr);
    tr[0].joint = 0;
    tr[0].path = SN_CLIP_TRANSLATION;
    tr[0].interpolation = SN_CLIP_LINEAR;
    tr[0].keys = 4;
    tr[0].times = t;
    tr[0].values = v;
    tr[1] = tr[0];
    tr[1].path = SN_CLIP_ROTATION;
    tr[1].values = v;
    sn_clip_def_init(&def);
    def.skeleton = s;
    def.duration = 1;
    def.tracks = tr;
    def.track_count = 2;
    for (at = 0; at < 16; at++) {
        for (k = 0; k < 16; k++) v[k] = k % 4 == 3 ? 1.0f : 0.0f;
        v[at] = -most;
        ENSURE(sn_clip_validate(&def, &err) == SN_OK);
        v[at] = nextafterf(most, 2.0f * most);
        ENSURE(sn_clip_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "is too large") != NULL);
        v[at] = -1.0f / 0.0f;
        ENSURE(sn_clip_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "is not finite") != NULL);
    }
    for (k = 0; k < 16; k++) v[k] = 0.0f;
    for (k = 0; k < 4; k++) v[4 * k + k] = k == 2 ? 1.4e-45f : 1.0f; /* (a denormal: the smallest float) */
    ENSURE(v[10] > 0.0f && sn_clip_validate(&def, &err) == SN_OK);
    v[10] = -0.0f;
    ENSURE(sn_clip_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "track 2 ('j0' rotation): rotation of key 3 is zero"));
}

/* every joint's pose equals the one of a clip built afresh and sampled once at t (its cursors
   found by search), bit for bit */
static void check_same_as_fresh(const sn_skeleton *s, const sn_clip_def *def, const sn_pose *p, double t, int loop) {
    sn_clip *fresh = new_clip(def);
    sn_pose *q = new_pose(s);
    float a[10], b[10];
    int j;
    ENSURE(sn_clip_sample(fresh, t, loop, q, NULL) == SN_OK);
    for (j = 0; j < sn_skeleton_count(s); j++) {
        sn_pose_get(p, j, a);
        sn_pose_get(q, j, b);
        ENSURE(memcmp(a, b, sizeof a) == 0);
    }
}

/* Tracks with their own key times, played as a game plays them: forward by small steps (a frame)
   and large ones (past many keys), with and without looping (wrapping around the end), back by
   small steps, back to near the start, and by random jumps; every sample equals the reference
   and a fresh clip's sample. */
static void test_own_times_playback(void) {
    int round;
    for (round = 0; round < 60; round++) {
        int n = 1 + (int)rnd(0, JOINTS - 0.01), step, loop = 0;
        sn_skeleton *s = new_skeleton(n);
        static tracks tr;
        sn_clip_def def;
        sn_clip *clip;
        sn_pose *p = new_pose(s);
        double t = rnd(-0.2, 0.2);
        own_time_tracks(&tr, n, round % 4 == 3, round % 5 < 3 ? round % 5 : -1);
        sn_clip_def_init(&def);
        def.skeleton = s;
        def.duration = max_time(&tr) + (float)(int)rnd(0, 4) / 64; /* some hold past the last key */
        def.track_count = tr.n;
        def.tracks = tr.def;
        clip = new_clip(&def);
        for (step = 0; step < 300; step++) {
            const double kind = rnd(0, 1);
            double local;
            if (kind < 0.5) t += rnd(0, 1.0 / 30);                     /* a frame forward */
            else if (kind < 0.6) t += rnd(0, 1.5);                     /* past many keys */
            else if (kind < 0.7) t -= rnd(0, 1.0 / 30);                /* a frame back */
            else if (kind < 0.75) t = rnd(0, 0.1);                     /* back to the start */
            else if (kind < 0.8) t = rnd(-0.5, def.duration + 0.5);    /* anywhere */
            else if (kind < 0.85) loop = !loop;
            t = floor(t * 4096) / 4096; /* exact in float32, so that the reference samples the same time */
            ENSURE(sn_clip_sample(clip, t, loop, p, NULL) == SN_OK);
            local = sn_clip_local_time(clip, t, loop);
            check_against_reference(s, &tr, p, local);
            if (step % 3 == 0) check_same_as_fresh(s, &def, p, t, loop);
        }
    }
}

/* Tracks with their own key times hit their keys exactly (linear, step and cubic translations
   and scales; rotations are normalised), hold the first key before it and the last after it,
   forward and after a jump back. */
static void test_own_times_keys_exact(void) {
    static const int first[3] = {SN_POSE_TX, SN_POSE_QX, SN_POSE_SX};
    int round;
    for (round = 0; round < 12; round++) {
        int n = 1 + (int)rnd(0, JOINTS - 0.01), pass;
        sn_skeleton *s = new_skeleton(n);
        static tracks tr;
        sn_clip_def def;
        sn_clip *clip;
        sn_pose *p = new_pose(s);
        own_time_tracks(&tr, n, round % 2, round % 3);
        sn_clip_def_init(&def);
        def.skeleton = s;
        def.duration = max_time(&tr) + 0.25f;
        def.track_count = tr.n;
        def.tracks = tr.def;
        clip = new_clip(&def);
        for (pass = 0; pass < 2; pass++) {
            int tick;
            /* every 1/64 s, where all keys are, forward; the second pass after a jump to the end */
            if (pass == 1) ENSURE(sn_clip_sample(clip, def.duration, 0, p, NULL) == SN_OK);
            for (tick = 0; tick <= (int)(def.duration * 64); tick++) {
                const float t = (float)tick / 64;
                int i, k, c;
                ENSURE(sn_clip_sample(clip, t, 0, p, NULL) == SN_OK);
                for (i = 0; i < tr.n; i++) {
                    const sn_clip_track_def *d = &tr.def[i];
                    const int w = d->path == SN_CLIP_ROTATION ? 4 : 3, cubic = d->interpolation == SN_CLIP_CUBIC;
                    float got[10];
                    if (d->path == SN_CLIP_ROTATION) continue;
                    /* the key at or before t when t is a key time, before the first or after the last */
                    for (k = d->keys - 1; k > 0 && d->times[k] > t; k--) continue;
                    if (!(d->times[k] == t || t < d->times[0] || t > d->times[d->keys - 1])) continue;
                    sn_pose_get(p, d->joint, got);
                    for (c = 0; c < w; c++)
                        ENSURE(got[first[d->path] + c] == d->values[(cubic ? 3 * w * k + w : w * k) + c]);
                }
            }
        }
    }
}

/* ---- sn_clip_sample_joint ---------------------------------------------------------------- */

/* A skeleton like new_skeleton's whose rest pose holds negative zeros (a dense group's rest lane
   computes v + s * 0, which is +0 for them: one joint must give what the whole pose gives). */
static sn_skeleton *signed_zero_skeleton(int n) {
    float rest[10 * JOINTS];
    int j;
    for (j = 0; j < n; j++) {
        float *r = rest + 10 * j;
        r[0] = j % 2 ? -0.0f : (float)j; r[1] = -0.0f; r[2] = 2;
        r[3] = -0.0f; r[4] = 0.6f; r[5] = 0; r[6] = 0.8f;
        r[7] = 1; r[8] = -0.0f; r[9] = 3;
    }
    return fixture_line_skeleton(n, rest);
}

/* Tracks of every kind of group at once: per path, most joints share one interpolation and one
   set of key times (a shared-times group, dense when it covers half the joints or more), the
   others have a random interpolation and their own times (a keyed group; those of a joint that
   the dense group also computes, from the rest pose, overwrite it), some joints none. */
static void mixed_tracks(tracks *tr, int n) {
    int j, p, k;
    tr->n = 0;
    for (p = 0; p < 3; p++) {
        const sn_clip_interpolation main = (sn_clip_interpolation)(int)rnd(0, 2.99);
        const int shared_keys = 1 + (int)rnd(0, MAXKEYS - 0.01), w = p == SN_CLIP_ROTATION ? 4 : 3;
        float shared[MAXKEYS];
        random_times(shared, shared_keys);
        for (j = 0; j < n; j++) {
            sn_clip_track_def *d = &tr->def[tr->n];
            const double r = rnd(0, 1);
            int count;
            if (r < 0.15) continue;
            d->joint = j;
            d->path = (sn_clip_path)p;
            if (r < 0.8) {
                d->interpolation = main;
                d->keys = shared_keys;
                memcpy(tr->times[tr->n], shared, sizeof shared);
            } else {
                d->interpolation = (sn_clip_interpolation)(int)rnd(0, 2.99);
                d->keys = 1 + (int)rnd(0, MAXKEYS - 0.01);
                random_times(tr->times[tr->n], d->keys);
            }
            count = d->keys * w * (d->interpolation == SN_CLIP_CUBIC ? 3 : 1);
            for (k = 0; k < count; k++) tr->values[tr->n][k] = (float)rnd(-1, 1);
            d->times = tr->times[tr->n];
            d->values = tr->values[tr->n];
            tr->n++;
        }
    }
}

/* every joint of `clip` sampled alone at (t, loop) is, bit for bit, the pose's joint after
   sn_clip_sample(clip, t, loop) */
static void check_joints(sn_clip *clip, sn_pose *p, double t, int loop) {
    const int n = sn_skeleton_count(sn_clip_skeleton(clip));
    float a[10], b[10];
    int j;
    ENSURE(sn_clip_sample(clip, t, loop, p, NULL) == SN_OK);
    for (j = 0; j < n; j++) {
        sn_error err;
        ENSURE(sn_clip_sample_joint(clip, t, loop, j, a, &err) == SN_OK);
        sn_pose_get(p, j, b);
        if (memcmp(a, b, sizeof a) != 0) {
            fprintf(stderr, "joint %d at t = %.17g (loop %d): sample_joint and sample differ\n", j, t, loop);
            ENSURE(memcmp(a, b, sizeof a) == 0);
        }
    }
}

/* Random clips of every kind (shared times and keyed, every interpolation, dense groups with and
   without rest lanes, one-key tracks, a zero duration): at times forward by frames, back, on the
   keys, before and after the clip, far out (1e6, 1e12 s), looping and not, each joint sampled
   alone equals the whole sample, and sampling joints does not disturb the clip's cursors. */
static void test_sample_joint_equals_sample(void) {
    static const double far[6] = {1e6, -1e6, 1e12 + 0.3, -1e12, 123456.789, -0.0};
    int round;
    for (round = 0; round < 120; round++) {
        const int n = 1 + (int)rnd(0, JOINTS - 0.01), kind = round % 6;
        sn_skeleton *s = round % 2 ? signed_zero_skeleton(n) : new_skeleton(n);
        static tracks tr;
        sn_clip_def def;
        sn_clip *clip, *ref;
        sn_pose *p = new_pose(s), *q = new_pose(s);
        double t = rnd(-0.3, 0.1);
        int step, loop = round % 3 == 0, j;
        if (kind == 0) random_tracks(&tr, n, 1);
        else if (kind == 1) random_tracks(&tr, n, 0);
        else if (kind == 2) own_time_tracks(&tr, n, 0, (round / 6) % 4 < 3 ? (round / 6) % 4 : -1);
        else if (kind == 3) own_time_tracks(&tr, n, 1, -1);
        else mixed_tracks(&tr, n);
        sn_clip_def_init(&def);
        def.skeleton = s;
        def.duration = max_time(&tr) + (float)(int)rnd(0, 4) / 64;
        if (round % 20 == 19) { /* a still pose: every key at 0 */
            int i;
            for (i = 0; i < tr.n; i++) tr.def[i].keys = 1, tr.times[i][0] = 0;
            def.duration = 0;
        }
        def.track_count = tr.n;
        def.tracks = tr.def;
        clip = new_clip(&def);
        ref = new_clip(&def);
        for (step = 0; step < 160; step++) {
            const double r = rnd(0, 1);
            float a[10], b[10];
            if (r < 0.45) t += rnd(0, 1.0 / 30);
            else if (r < 0.55) t -= rnd(0, 1.0 / 30);
            else if (r < 0.7) t = (double)(int)rnd(-8, def.duration * 64 + 8) / 64; /* on a key, or near */
            else if (r < 0.8) t = rnd(-2, def.duration + 2);
            else if (r < 0.85) t = far[(int)rnd(0, 5.99)];
            else if (r < 0.9) t = def.duration;
            else loop = !loop;
            if (r < 0.55) t = floor(t * 4096) / 4096;
            check_joints(clip, p, t, loop);
            /* the clip's own samples are those of a clip never asked for one joint */
            ENSURE(sn_clip_sample(ref, t, loop, q, NULL) == SN_OK);
            for (j = 0; j < n; j++) {
                sn_pose_get(p, j, a);
                sn_pose_get(q, j, b);
                ENSURE(memcmp(a, b, sizeof a) == 0);
            }
        }
    }
}

/* Refusals: a non-finite time (arg 1) or a joint out of range (arg 2), nothing written. */
static void test_sample_joint_refuses(void) {
    static const float times[2] = {0, 1}, v[6] = {1, 2, 3, 4, 5, 6};
    const double inf = 1.0 / 0.0, nan = inf - inf;
    sn_skeleton *s = new_skeleton(3);
    sn_clip_track_def d = {1, SN_CLIP_TRANSLATION, SN_CLIP_LINEAR, 2, times, v};
    sn_clip_def def;
    sn_clip *clip;
    sn_error err;
    float out[10], before[10];
    int k;
    sn_clip_def_init(&def);
    def.skeleton = s;
    def.duration = 1;
    def.track_count = 1;
    def.tracks = &d;
    clip = new_clip(&def);
    for (k = 0; k < 10; k++) out[k] = before[k] = (float)k - 42;
    ENSURE(sn_clip_sample_joint(clip, nan, 1, 0, out, &err) == SN_EINVAL && err.arg == 1);
    ENSURE(strstr(err.msg, "time is not finite") != NULL);
    ENSURE(sn_clip_sample_joint(clip, inf, 0, 0, out, &err) == SN_EINVAL && err.arg == 1);
    ENSURE(sn_clip_sample_joint(clip, -inf, 1, 0, out, NULL) == SN_EINVAL);
    ENSURE(sn_clip_sample_joint(clip, 0.5, 1, 3, out, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(strcmp(err.msg, "joint 4 is out of range (1 .. 3)") == 0);
    ENSURE(sn_clip_sample_joint(clip, 0.5, 1, -1, out, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(strcmp(err.msg, "joint 0 is out of range (1 .. 3)") == 0);
    ENSURE(memcmp(out, before, sizeof out) == 0);
    ENSURE(sn_clip_sample_joint(clip, 0.5, 1, 1, out, &err) == SN_OK);
    ENSURE(out[0] == 2.5f && out[1] == 3.5f && out[2] == 4.5f);
}

int main(void) {
    RUN(test_matches_reference_and_fresh_cursors);
    RUN(test_cursors_play_on_their_own);
    RUN(test_keys_hit_exactly);
    RUN(test_own_times_playback);
    RUN(test_own_times_keys_exact);
    RUN(test_local_time_wraps);
    RUN(test_invalid_inputs_refused);
    RUN(test_validation_bounds);
    RUN(test_sample_joint_equals_sample);
    RUN(test_sample_joint_refuses);
    fixture_free();
    return END("test_clip");
}
