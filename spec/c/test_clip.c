/* C-only tests of src/core/clip.c: no Lua involved. */
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "ensure.h"

static unsigned long seed = 99991;

static double rnd(double lo, double hi) { return lo + (hi - lo) * ensure_random(&seed); }

#define JOINTS 12
#define MAXKEYS 24

static const char *names[JOINTS] = {"j0", "j1", "j2", "j3", "j4", "j5", "j6", "j7", "j8", "j9", "j10", "j11"};

static sn_skeleton *new_skeleton(int n) {
    int parents[JOINTS], j;
    float rest[10 * JOINTS];
    sn_skeleton_def def;
    size_t size;
    sn_skeleton *s;
    for (j = 0; j < n; j++) {
        float *r = rest + 10 * j;
        parents[j] = j - 1;
        r[0] = (float)j; r[1] = 1; r[2] = 2;
        r[3] = 0; r[4] = 0.6f; r[5] = 0; r[6] = 0.8f;
        r[7] = 1; r[8] = 2; r[9] = 3;
    }
    def.count = n;
    def.parents = parents;
    def.names = names;
    def.rest = rest;
    size = sn_skeleton_size(&def, NULL);
    s = (sn_skeleton *)malloc(size);
    ENSURE(sn_skeleton_init(s, size, &def, NULL) == SN_OK);
    return s;
}

static sn_clip *new_clip(const sn_clip_def *def) {
    size_t size = sn_clip_size(def, NULL);
    sn_clip *c = (sn_clip *)malloc(size + 8);
    ENSURE(size > 0);
    /* 8 bytes in: the arrays inside must be 16-byte aligned whatever the block's alignment */
    ENSURE(sn_clip_init((char *)c + 8, size, def, NULL) == SN_OK);
    return (sn_clip *)((char *)c + 8);
}

static void free_clip(sn_clip *c) { free((char *)c - 8); }

static sn_pose *new_pose(const sn_skeleton *s) {
    size_t size = sn_pose_size(s);
    sn_pose *p = (sn_pose *)malloc(size);
    ENSURE(sn_pose_init(p, size, s, NULL) == SN_OK);
    return p;
}

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
            free_clip(fresh);
        }
        free_clip(clip);
        free(p);
        free(q);
        free(s);
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
        free_clip(clip);
    }
    free(p);
    free(s);
}

static void test_local_time_wraps(void) {
    static const float times[1] = {0}, v[3] = {1, 2, 3};
    sn_skeleton *s = new_skeleton(1);
    sn_clip_track_def d = {0, SN_CLIP_TRANSLATION, SN_CLIP_LINEAR, 1, times, v};
    sn_clip_def def;
    sn_clip *clip;
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
    free_clip(clip);
    def.duration = 0;
    clip = new_clip(&def);
    ENSURE(sn_clip_local_time(clip, 7, 1) == 0 && sn_clip_local_time(clip, 7, 0) == 0);
    free_clip(clip);
    free(s);
}

static void test_invalid_inputs_refused(void) {
    static const float t2[2] = {0, 1}, tdup[2] = {0.5f, 0.5f}, tneg[2] = {-1, 0}, v8[8] = {0, 0, 0, 1, 0, 0, 0, 1},
                       vzero[8] = {0, 0, 0, 1, 0, 0, 0, 0};
    float tnan[2] = {0, 0}, vnan[8] = {0, 0, 0, 1, 0, 0, 0, 0};
    sn_skeleton *s = new_skeleton(2), *other = new_skeleton(2);
    sn_clip_track_def d[2];
    sn_clip_def def;
    sn_error err;
    sn_clip *clip;
    sn_pose *p = new_pose(other);
    char small[16];
    tnan[1] = tnan[1] / tnan[1];
    vnan[7] = vnan[7] / vnan[7];
    d[0].joint = 0;
    d[0].path = SN_CLIP_ROTATION;
    d[0].interpolation = SN_CLIP_LINEAR;
    d[0].keys = 2;
    d[0].times = t2;
    d[0].values = v8;
    d[1] = d[0];
    d[1].joint = 1;
    def.skeleton = s;
    def.duration = 1;
    def.track_count = 2;
    def.tracks = d;
    ENSURE(sn_clip_validate(&def, &err) == SN_OK);
#define REFUSED(text) ENSURE(sn_clip_size(&def, &err) == 0 && err.code == SN_EINVAL && strstr(err.msg, text) != NULL)
    d[1].joint = 2;
    REFUSED("joint 3 is out of range");
    d[1].joint = -1;
    REFUSED("out of range");
    d[1].joint = 0;
    REFUSED("tracks 1 and 2 both animate the rotation of 'j0'");
    d[1].joint = 1;
    d[1].path = (sn_clip_path)3;
    REFUSED("unknown path");
    d[1].path = SN_CLIP_ROTATION;
    d[1].interpolation = (sn_clip_interpolation)7;
    REFUSED("unknown interpolation");
    d[1].interpolation = SN_CLIP_LINEAR;
    d[1].keys = 0;
    REFUSED("no keys");
    d[1].keys = 2;
    d[1].times = tdup;
    REFUSED("times are not increasing");
    d[1].times = tneg;
    REFUSED("is negative");
    d[1].times = tnan;
    REFUSED("time 2 is not finite");
    d[1].times = t2;
    def.duration = 0.5f;
    REFUSED("past the duration");
    def.duration = -1;
    REFUSED("duration");
    def.duration = tnan[1];
    REFUSED("duration");
    def.duration = 1;
    d[1].values = vnan;
    REFUSED("value 8 is not finite");
    d[1].values = vzero;
    REFUSED("rotation of key 2 is zero");
    d[1].values = v8;
    def.track_count = -1;
    REFUSED("track count");
    def.track_count = 7;
    REFUSED("more than 3 per joint");
    def.track_count = 2;
    def.skeleton = NULL;
    REFUSED("no skeleton");
    def.skeleton = s;
    ENSURE(sn_clip_init(small, sizeof small, &def, &err) == SN_ENOMEM);
    clip = new_clip(&def);
    ENSURE(sn_clip_sample(clip, 0, 1, p, &err) == SN_EINVAL && err.arg == 2);
    free(p);
    p = new_pose(s);
    ENSURE(sn_clip_sample(clip, tnan[1], 1, p, &err) == SN_EINVAL && err.arg == 1);
    ENSURE(sn_clip_sample(clip, 0.5, 1, p, &err) == SN_OK);
#undef REFUSED
    free_clip(clip);
    free(p);
    free(s);
    free(other);
}

int main(void) {
    RUN(test_matches_reference_and_fresh_cursors);
    RUN(test_keys_hit_exactly);
    RUN(test_local_time_wraps);
    RUN(test_invalid_inputs_refused);
    return END("test_clip");
}
