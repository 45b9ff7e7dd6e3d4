/* C-only tests of morph targets in the core: skeleton definitions and look-ups, pose rows, masks,
   blends, additive layers, deltas and weight tracks of clips, each against the formula computed
   here in double. */
#define FIXTURE_SEED 2626
#include <string.h>

#include "clip.h"
#include "fixtures.h"

static const int parents2[] = {-1, 0};
static const char *const joints2[] = {"root", "head"};
static const char *const face[] = {"blink", "smile", "head", "jaw"}; /* "head" is a joint's name too */
static const float face_defaults[] = {0.0f, 0.5f, -0.25f, 1.0f};

static void face_def(sn_skeleton_def *d) {
    sn_skeleton_def_init(d);
    d->count = 2;
    d->parents = parents2;
    d->names = joints2;
    d->morph_count = 4;
    d->morph_names = face;
    d->morph_defaults = face_defaults;
}

static sn_skeleton *face_skeleton(void) {
    sn_skeleton_def d;
    size_t size;
    void *mem;
    face_def(&d);
    size = sn_skeleton_size(&d, NULL);
    ENSURE(size > 0);
    mem = fixture_block(size);
    ENSURE(sn_skeleton_init(mem, size, &d, NULL) == SN_OK);
    return (sn_skeleton *)mem;
}

static sn_mask *morph_mask(const sn_skeleton *s, const float *factors) {
    sn_mask_def def;
    size_t size;
    void *mem;
    sn_mask_def_init(&def);
    def.skeleton = s;
    def.weight = 1.0f;
    def.morph_weights = factors;
    size = sn_mask_size(&def, NULL);
    mem = fixture_block(size);
    ENSURE(sn_mask_init(mem, size, &def, NULL) == SN_OK);
    return (sn_mask *)mem;
}

static void test_skeleton_morphs(void) {
    sn_skeleton *s = face_skeleton();
    const float *d = sn_skeleton_morph_defaults(s);
    int m;
    ENSURE(sn_skeleton_morph_count(s) == 4);
    ENSURE(sn_skeleton_morph_stride(s) == 8);
    for (m = 0; m < 4; m++) {
        ENSURE(strcmp(sn_skeleton_morph_name(s, m), face[m]) == 0);
        ENSURE(sn_skeleton_morph_find(s, face[m]) == m);
        ENSURE(d[m] == face_defaults[m]);
    }
    for (m = 4; m < 8; m++) ENSURE(d[m] == 0.0f); /* padding */
    ENSURE(((size_t)d & 15u) == 0);
    ENSURE(sn_skeleton_morph_name(s, 4) == NULL && sn_skeleton_morph_name(s, -1) == NULL);
    ENSURE(sn_skeleton_morph_find(s, "nose") == -1 && sn_skeleton_morph_find(s, NULL) == -1);
    ENSURE(sn_skeleton_find(s, "head") == 1); /* the joint, not the morph */
    s = fixture_line_skeleton(3, NULL);
    ENSURE(sn_skeleton_morph_count(s) == 0 && sn_skeleton_morph_stride(s) == 0);
    ENSURE(sn_skeleton_morph_find(s, "blink") == -1);
    fixture_free();
}

static const char *const dup_morphs[] = {"a", "b", "a"};
static const char *const hole_morphs[] = {"a", NULL, "c"};
static const char *const empty_morphs[] = {"a", "", "c"};
static char long_morph[300];
static const char *const long_morphs[] = {"a", long_morph};
static float bad_defaults[4];

static void valid_morphs(sn_skeleton_def *d) {
    memset(long_morph, 'x', sizeof long_morph - 1);
    memcpy(bad_defaults, face_defaults, sizeof bad_defaults);
    face_def(d);
}
static void negative_count(sn_skeleton_def *d) { d->morph_count = -1; }
static void too_many_morphs(sn_skeleton_def *d) { d->morph_count = SN_SKELETON_MAX_MORPHS + 1; }
static void no_morph_names(sn_skeleton_def *d) { d->morph_names = NULL; }
static void duplicate_morphs(sn_skeleton_def *d) { d->morph_count = 3, d->morph_names = dup_morphs; }
static void missing_morph(sn_skeleton_def *d) { d->morph_count = 3, d->morph_names = hole_morphs; }
static void empty_morph(sn_skeleton_def *d) { d->morph_count = 3, d->morph_names = empty_morphs; }
static void long_morph_name(sn_skeleton_def *d) { d->morph_count = 2, d->morph_names = long_morphs; }
static void nan_default(sn_skeleton_def *d) {
    bad_defaults[2] = bad_defaults[2] / 0.0f * 0.0f;
    d->morph_defaults = bad_defaults;
}
static void inf_default(sn_skeleton_def *d) {
    bad_defaults[3] = 1.0f / 0.0f;
    d->morph_defaults = bad_defaults;
}

FIXTURE_CASE_TYPE(morph_case, sn_skeleton_def);
static const morph_case morph_cases[] = {
    {"a negative morph count", negative_count, "negative morph count -1"},
    {"more morphs than allowed", too_many_morphs, "65536 morphs, more than the 65535 allowed"},
    {"no morph names", no_morph_names, "no morph names"},
    {"two morphs of one name", duplicate_morphs, "morphs 1 and 3 are both named 'a'"},
    {"a morph without a name", missing_morph, "morph 2 has no name"},
    {"an empty morph name", empty_morph, "morph 2 has no name"},
    {"a morph name of 299 bytes", long_morph_name, "name of morph 2 is longer than 255 bytes"},
    {"a NaN default", nan_default, "default weight of morph 'head' is not finite"},
    {"an infinite default", inf_default, "default weight of morph 'jaw' is not finite"},
};

static void test_invalid_morphs_refused(void) {
    sn_skeleton_def d;
    REFUSE_CASES(morph_cases, sn_skeleton_def, valid_morphs, sn_skeleton_validate);
    valid_morphs(&d);
    ENSURE(sn_skeleton_validate(&d, NULL) == SN_OK);
    d.morph_defaults = NULL; /* all 0 */
    ENSURE(sn_skeleton_validate(&d, NULL) == SN_OK);
}

static void test_pose_rows(void) {
    sn_skeleton *s = face_skeleton();
    sn_pose *p = fixture_pose(s), *q = fixture_pose(s);
    float *w = sn_pose_morphs(p);
    sn_error err;
    int m;
    ENSURE(((size_t)w & 15u) == 0);
    for (m = 0; m < 4; m++) ENSURE(w[m] == face_defaults[m]);
    for (m = 0; m < 4; m++) w[m] = (float)(m * 3 - 7);
    ENSURE(sn_pose_copy(p, q, &err) == SN_OK);
    for (m = 0; m < 4; m++) ENSURE(sn_pose_morphs_const(q)[m] == (float)(m * 3 - 7));
    sn_pose_reset(p);
    for (m = 0; m < 4; m++) ENSURE(w[m] == face_defaults[m]);
    ENSURE(sn_pose_morphs(q)[0] == -7.0f); /* copies, not shares */
    fixture_free();
}

static void test_masks(void) {
    static const float factors[] = {0.25f, 1.0f, 0.0f, 0.5f};
    sn_skeleton *s = face_skeleton();
    sn_mask_def def;
    sn_mask *m = morph_mask(s, factors), *all;
    sn_error err;
    int k;
    for (k = 0; k < 4; k++) ENSURE(sn_mask_get_morph(m, k) == factors[k]);
    ENSURE(sn_mask_get_morph(m, 4) == 0.0f);
    ENSURE(sn_mask_set_morph(m, 2, 0.75f, &err) == SN_OK && sn_mask_get_morph(m, 2) == 0.75f);
    ENSURE(sn_mask_set_morph(m, 4, 0.5f, &err) == SN_EINVAL && strstr(err.msg, "morph 5 is out of range (1 .. 4)"));
    ENSURE(sn_mask_set_morph(m, 1, 1.5f, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_mask_get_morph(m, 1) == 1.0f);
    all = fixture_mask(s, 0.5f); /* morphs as joints by default */
    for (k = 0; k < 4; k++) ENSURE(sn_mask_get_morph(all, k) == 0.5f);
    sn_mask_def_init(&def);
    def.skeleton = s;
    def.weight = 0.5f;
    def.has_morph_weight = 1;
    def.morph_weight = 2.0f;
    ENSURE(sn_mask_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "mask morph weight 2 is out of range"));
    def.morph_weight = 0.0f;
    def.morph_weights = NULL;
    ENSURE(sn_mask_validate(&def, &err) == SN_OK);
    def.morph_weights = factors;
    ENSURE(sn_mask_validate(&def, &err) == SN_OK);
    fixture_free();
}

/* the blend of one morph as documented, in double */
static double reference_blend(const sn_blend_layer *l, int n, float threshold, int m, double dflt) {
    double sum = 0, wsum = 0, fill;
    int i;
    for (i = 0; i < n; i++) {
        double w = l[i].weight * (l[i].mask != NULL ? sn_mask_get_morph(l[i].mask, m) : 1.0);
        sum += w * sn_pose_morphs_const(l[i].pose)[m];
        wsum += w;
    }
    fill = threshold > wsum ? threshold - wsum : 0.0;
    return (sum + fill * dflt) / (wsum + fill);
}

static void test_blend(void) {
    sn_skeleton *s = face_skeleton();
    sn_pose *poses[5], *out = fixture_pose(s);
    sn_mask *masks[5];
    sn_blend_layer layers[5];
    sn_error err;
    int round, i, m;
    for (i = 0; i < 5; i++) {
        float f[4];
        poses[i] = fixture_pose(s);
        for (m = 0; m < 4; m++) f[m] = (float)rnd(0, 1);
        masks[i] = morph_mask(s, f);
    }
    for (round = 0; round < 200; round++) {
        const int n = 1 + round % 5;
        const float threshold = round % 2 ? 0.1f : 0.4f;
        for (i = 0; i < n; i++) {
            for (m = 0; m < 4; m++) sn_pose_morphs(poses[i])[m] = (float)rnd(-3, 3);
            layers[i].pose = poses[i];
            layers[i].weight = (float)(round % 3 == 0 ? rnd(0, 0.05) : rnd(0, 1));
            layers[i].mask = rnd(0, 1) < 0.5 ? masks[i] : NULL;
        }
        ENSURE(sn_pose_blend(out, layers, n, threshold, &err) == SN_OK);
        for (m = 0; m < 4; m++) {
            double want = reference_blend(layers, n, threshold, m, face_defaults[m]);
            ENSURE_NEAR(sn_pose_morphs(out)[m], want, 2e-6 * (fabs(want) > 1 ? fabs(want) : 1));
        }
    }
    ENSURE(sn_pose_blend(out, layers, 0, 0.1f, &err) == SN_OK); /* no layer: the defaults */
    for (m = 0; m < 4; m++) ENSURE_NEAR(sn_pose_morphs(out)[m], face_defaults[m], 1e-7);
    fixture_free();
}

static void test_add_and_delta(void) {
    static const float factors[] = {1.0f, 0.5f, 0.0f, 0.25f};
    sn_skeleton *s = face_skeleton();
    sn_pose *pose = fixture_pose(s), *ref = fixture_pose(s), *d = fixture_pose(s), *out = fixture_pose(s);
    sn_mask *mask = morph_mask(s, factors);
    sn_error err;
    int m;
    for (m = 0; m < 4; m++) {
        sn_pose_morphs(pose)[m] = (float)rnd(-2, 2);
        sn_pose_morphs(ref)[m] = (float)rnd(-2, 2);
    }
    ENSURE(sn_pose_delta(pose, ref, d, &err) == SN_OK);
    for (m = 0; m < 4; m++) ENSURE(sn_pose_morphs(d)[m] == sn_pose_morphs(pose)[m] - sn_pose_morphs(ref)[m]);
    ENSURE(sn_pose_copy(ref, out, &err) == SN_OK);
    ENSURE(sn_pose_add(out, d, 0.5f, mask, &err) == SN_OK);
    for (m = 0; m < 4; m++)
        ENSURE_NEAR(sn_pose_morphs(out)[m], sn_pose_morphs(ref)[m] + 0.5 * factors[m] * sn_pose_morphs(d)[m], 1e-6);
    ENSURE(sn_pose_morphs(out)[2] == sn_pose_morphs(ref)[2]); /* weight 0: the same bits */
    /* out of the float range: refused, nothing written (joints included) */
    sn_pose_morphs(d)[3] = 3e38f;
    sn_pose_morphs(out)[3] = 3e38f;
    {
        float before[4], t[10];
        memcpy(before, sn_pose_morphs(out), sizeof before);
        sn_pose_get(d, 1, t);
        t[0] = 1.0f;
        sn_pose_set(d, 1, t);
        ENSURE(sn_pose_add(out, d, 1.0f, NULL, &err) == SN_EINVAL &&
               strstr(err.msg, "the layer takes the weight of morph 4 out of the float range"));
        ENSURE(memcmp(before, sn_pose_morphs(out), sizeof before) == 0);
        sn_pose_get(out, 1, t);
        ENSURE(t[0] == 0.0f);
        sn_pose_morphs(ref)[3] = -3e38f;
        ENSURE(sn_pose_delta(out, ref, out, &err) == SN_EINVAL &&
               strstr(err.msg, "the delta of morph 4 is out of the float range"));
        ENSURE(memcmp(before, sn_pose_morphs(out), sizeof before) == 0);
    }
    fixture_free();
}

/* glTF's cubic Hermite spline between two keys at fraction s of dt */
static double hermite(double v0, double b0, double v1, double a1, double dt, double s) {
    double s2 = s * s, s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * v0 + (s3 - 2 * s2 + s) * dt * b0 + (-2 * s3 + 3 * s2) * v1 + (s3 - s2) * dt * a1;
}

static sn_clip *make_clip(const sn_clip_def *def) {
    sn_error err;
    size_t size = sn_clip_size(def, &err);
    void *mem;
    ENSURE(size > 0);
    mem = fixture_block(size);
    ENSURE(sn_clip_init(mem, size, def, &err) == SN_OK);
    return (sn_clip *)mem;
}

static void test_weight_tracks(void) {
    static const float times[] = {0.0f, 0.5f, 1.25f, 2.0f}, own[] = {0.0f, 0.75f, 2.0f};
    static const float lin[] = {0.0f, 1.0f, -0.5f, 2.0f}, lin3[] = {1.0f, 3.0f, 1.0f};
    static const float cub[] = {0, 0, 1, 1, 1, 0.5f, -2, -0.5f, 0, 0, 2, 3};
    sn_skeleton *s = face_skeleton();
    sn_pose *p = fixture_pose(s);
    sn_clip_track_def tr[4];
    sn_clip_def def;
    sn_clip *c;
    sn_error err;
    int i, k;
    memset(tr, 0, sizeof tr);
    tr[0].joint = 0, tr[0].path = SN_CLIP_WEIGHT, tr[0].interpolation = SN_CLIP_LINEAR;
    tr[0].keys = 4, tr[0].times = times, tr[0].values = lin;
    tr[1].joint = 3, tr[1].path = SN_CLIP_WEIGHT, tr[1].interpolation = SN_CLIP_CUBIC;
    tr[1].keys = 4, tr[1].times = times, tr[1].values = cub;
    tr[2].joint = 2, tr[2].path = SN_CLIP_WEIGHT, tr[2].interpolation = SN_CLIP_STEP;
    tr[2].keys = 3, tr[2].times = own, tr[2].values = lin3;
    tr[3] = tr[2]; /* two linear tracks of different times: a cursor per track */
    tr[3].joint = 1, tr[3].interpolation = SN_CLIP_LINEAR;
    sn_clip_def_init(&def);
    def.skeleton = s;
    def.duration = 2.0f;
    def.track_count = 4;
    def.tracks = tr;
    c = make_clip(&def);
    for (i = 0; i <= 40; i++) {
        const double t = 2.2 * i / 40.0 - 0.1, tc = t < 0 ? 0 : t > 2 ? 2 : t;
        double want0, want3, want2, want1;
        ENSURE(sn_clip_sample(c, t, 0, p, &err) == SN_OK);
        k = 0;
        while (k < 2 && times[k + 1] <= (float)tc) k++;
        {
            const double dt = times[k + 1] - times[k], f = ((float)tc - times[k]) / dt, fc = f > 1 ? 1 : f;
            want0 = lin[k] + fc * (lin[k + 1] - lin[k]);
            want3 = hermite(cub[3 * k + 1], cub[3 * k + 2], cub[3 * k + 4], cub[3 * k + 3], dt, fc);
        }
        want2 = (float)tc >= 2.0f ? lin3[2] : (float)tc >= 0.75f ? lin3[1] : lin3[0];
        k = (float)tc >= 0.75f ? 1 : 0;
        want1 = lin3[k] + ((float)tc - own[k]) / (own[k + 1] - own[k]) * (lin3[k + 1] - lin3[k]);
        ENSURE_NEAR(sn_pose_morphs(p)[0], want0, 2e-6);
        ENSURE_NEAR(sn_pose_morphs(p)[3], want3, 4e-6);
        ENSURE(sn_pose_morphs(p)[2] == (float)want2);
        ENSURE_NEAR(sn_pose_morphs(p)[1], want1, 2e-6);
    }
    def.track_count = 3;
    c = make_clip(&def);
    ENSURE(sn_clip_sample(c, 0.3, 0, p, &err) == SN_OK);
    ENSURE(sn_pose_morphs(p)[1] == face_defaults[1]); /* no track: the default */
    /* validation of the new path */
    tr[2].joint = 4;
    ENSURE(sn_clip_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "track 3: morph 5 is out of range (1 .. 4)"));
    tr[2].joint = 0;
    ENSURE(sn_clip_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "tracks 1 and 3 both animate the weight of 'blink'"));
    tr[2].joint = 2;
    tr[2].values = cub; /* 3 keys of a step track read 3 values: 0, 0, 1 */
    ENSURE(sn_clip_validate(&def, &err) == SN_OK);
    {
        float big[3] = {0, 2e18f, 0};
        tr[2].values = big;
        ENSURE(sn_clip_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "track 3 ('head' weight): value 2 is too large"));
    }
    fixture_free();
}

/* Nine morphs animated with the same key times share one cursor (a dense group when they cover
   every morph but one): the same weights as tracks of their own */
static void test_shared_weight_tracks(void) {
    static const char *const names[] = {"m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"};
    static const float times[] = {0.0f, 0.4f, 1.0f};
    float values[10][9];
    sn_skeleton_def sd;
    sn_skeleton *s;
    sn_pose *p, *q;
    sn_clip_track_def shared[9], single;
    sn_clip_def def;
    sn_clip *c, *one[9];
    sn_error err;
    size_t size;
    int m, i;
    sn_skeleton_def_init(&sd);
    sd.count = 2, sd.parents = parents2, sd.names = joints2, sd.morph_count = 10, sd.morph_names = names;
    size = sn_skeleton_size(&sd, &err);
    s = (sn_skeleton *)fixture_block(size);
    ENSURE(sn_skeleton_init(s, size, &sd, &err) == SN_OK);
    p = fixture_pose(s);
    q = fixture_pose(s);
    memset(shared, 0, sizeof shared);
    for (m = 0; m < 9; m++) {
        for (i = 0; i < 9; i++) values[m][i] = (float)rnd(-2, 2);
        shared[m].joint = m + 1, shared[m].path = SN_CLIP_WEIGHT, shared[m].interpolation = SN_CLIP_CUBIC;
        shared[m].keys = 3, shared[m].times = times, shared[m].values = values[m];
    }
    sn_clip_def_init(&def);
    def.skeleton = s, def.duration = 1.0f, def.track_count = 9, def.tracks = shared;
    c = make_clip(&def);
    for (m = 0; m < 9; m++) {
        single = shared[m];
        def.track_count = 1, def.tracks = &single;
        one[m] = make_clip(&def);
    }
    for (i = 0; i < 25; i++) {
        const double t = i / 20.0;
        ENSURE(sn_clip_sample(c, t, 1, p, &err) == SN_OK);
        ENSURE(sn_pose_morphs(p)[0] == 0.0f);
        for (m = 0; m < 9; m++) {
            ENSURE(sn_clip_sample(one[m], t, 1, q, &err) == SN_OK);
            ENSURE(sn_pose_morphs(p)[m + 1] == sn_pose_morphs(q)[m + 1]);
        }
    }
    fixture_free();
}

int main(void) {
    RUN(test_skeleton_morphs);
    RUN(test_invalid_morphs_refused);
    RUN(test_pose_rows);
    RUN(test_masks);
    RUN(test_blend);
    RUN(test_add_and_delta);
    RUN(test_weight_tracks);
    RUN(test_shared_weight_tracks);
    return END("test_pose_morph");
}
