/* C-only tests of src/core/skeleton.c, pose.c and blend.c: no Lua involved. */
#define FIXTURE_SEED 4711
#include "fixtures.h"

#define MAXJ 40

typedef struct fixture {
    char names[MAXJ][16];
    const char *np[MAXJ];
    int parents[MAXJ];
    float rest[10 * MAXJ];
    sn_skeleton_def def;
} fixture;

static void random_quat(float *q) {
    double u1 = rnd(0, 1), u2 = rnd(0, 1), u3 = rnd(0, 1), a = sqrt(1 - u1), b = sqrt(u1), tau = 6.283185307179586;
    q[0] = (float)(a * sin(tau * u2));
    q[1] = (float)(a * cos(tau * u2));
    q[2] = (float)(b * sin(tau * u3));
    q[3] = (float)(b * cos(tau * u3));
}

/* a random hierarchy of n joints with a random rest pose */
static void make_def(fixture *f, int n) {
    int j;
    for (j = 0; j < n; j++) {
        float *r = f->rest + 10 * j;
        snprintf(f->names[j], sizeof f->names[j], "j%d", j);
        f->np[j] = f->names[j];
        f->parents[j] = j == 0 ? -1 : (int)rnd(0, j - 0.001);
        r[0] = (float)rnd(-1, 1); r[1] = (float)rnd(-1, 1); r[2] = (float)rnd(-1, 1);
        random_quat(r + 3);
        r[7] = (float)rnd(0.8, 1.2); r[8] = (float)rnd(0.8, 1.2); r[9] = (float)rnd(0.8, 1.2);
    }
    sn_skeleton_def_init(&f->def);
    f->def.count = n;
    f->def.parents = f->parents;
    f->def.names = f->np;
    f->def.rest = f->rest;
}

/* the skeleton of `def` in an arena block (8 bytes past a malloc address: the arrays inside
   must be 16-byte aligned whatever the block's alignment) */
static sn_skeleton *new_skeleton(const sn_skeleton_def *def) {
    size_t size = sn_skeleton_size(def, NULL);
    void *mem = fixture_block(size);
    ENSURE(size > 0 && mem != NULL);
    ENSURE(sn_skeleton_init(mem, size, def, NULL) == SN_OK);
    return (sn_skeleton *)mem;
}

#define new_pose fixture_pose
#define new_mask fixture_mask

/* random values; rotations within about 60 degrees of a per-joint centre, either sign */
static void randomize(sn_pose *p, const float *centres) {
    int j, n = sn_skeleton_count(sn_pose_skeleton(p)), c;
    for (j = 0; j < n; j++) {
        float v[10], d[4], len = 0;
        for (c = 0; c < 4; c++) d[c] = centres[4 * j + c] + (float)rnd(-0.35, 0.35);
        for (c = 0; c < 4; c++) len += d[c] * d[c];
        len = sqrtf(len) * (rnd(0, 1) < 0.5 ? -1.0f : 1.0f);
        v[0] = (float)rnd(-1, 1); v[1] = (float)rnd(-1, 1); v[2] = (float)rnd(-1, 1);
        for (c = 0; c < 4; c++) v[3 + c] = d[c] / len;
        v[7] = (float)rnd(0.8, 1.2); v[8] = (float)rnd(0.8, 1.2); v[9] = (float)rnd(0.8, 1.2);
        sn_pose_set(p, j, v);
    }
}

static void random_centres(float *centres, int n) {
    int j;
    for (j = 0; j < n; j++) random_quat(centres + 4 * j);
}

static void test_skeleton_queries(void) {
    fixture f;
    sn_skeleton *s;
    float trs[10];
    int j;
    make_def(&f, MAXJ);
    s = new_skeleton(&f.def);
    ENSURE(sn_skeleton_count(s) == MAXJ);
    ENSURE(sn_skeleton_stride(s) % SN_SKELETON_LANES == 0 && sn_skeleton_stride(s) >= MAXJ);
    for (j = 0; j < MAXJ; j++) {
        ENSURE(sn_skeleton_find(s, f.names[j]) == j);
        ENSURE(sn_skeleton_parent(s, j) == f.parents[j]);
        ENSURE(strcmp(sn_skeleton_name(s, j), f.names[j]) == 0);
        sn_skeleton_rest(s, j, trs);
        ENSURE_NEAR(trs[0], f.rest[10 * j], 0);
        ENSURE_NEAR(trs[6], f.rest[10 * j + 6], 1e-6);
    }
    ENSURE(sn_skeleton_find(s, "nope") == -1);
    ENSURE(sn_skeleton_parent(s, MAXJ) == -1 && sn_skeleton_name(s, -1) == NULL);
    sn_skeleton_rest(s, MAXJ, trs);
    ENSURE(trs[6] == 1 && trs[7] == 1 && trs[0] == 0);
}

static void test_pose_get_set_reset_copy(void) {
    fixture f;
    sn_skeleton *s;
    sn_pose *a, *b;
    float v[10] = {1, 2, 3, 0, 0.6f, 0, 0.8f, 4, 5, 6}, got[10], rest[10];
    int c;
    make_def(&f, 5);
    s = new_skeleton(&f.def);
    a = new_pose(s);
    b = new_pose(s);
    ENSURE(sn_pose_skeleton(a) == s);
    sn_pose_get(a, 3, got);
    sn_skeleton_rest(s, 3, rest);
    for (c = 0; c < 10; c++) ENSURE(got[c] == rest[c]);
    sn_pose_set(a, 3, v);
    sn_pose_get(a, 3, got);
    for (c = 0; c < 10; c++) ENSURE(got[c] == v[c]);
    ENSURE(sn_pose_channel(a, SN_POSE_QY)[3] == 0.6f && sn_pose_channel_const(a, SN_POSE_SZ)[3] == 6);
    ENSURE(sn_pose_copy(a, b, NULL) == SN_OK);
    sn_pose_get(b, 3, got);
    for (c = 0; c < 10; c++) ENSURE(got[c] == v[c]);
    sn_pose_reset(a);
    sn_pose_get(a, 3, got);
    for (c = 0; c < 10; c++) ENSURE(got[c] == rest[c]);
}

/* the documented blend, in double precision */
static void reference_blend(const sn_skeleton *s, sn_pose *const *layers, const float *w, sn_mask *const *masks,
                            int n, double threshold, int joint, double out[10]) {
    double W = 0, acc[10] = {0}, v[10], l;
    float f[10];
    int i, c;
    for (i = 0; i <= n; i++) {
        double wi, d = 0, sw;
        if (i < n) {
            wi = w[i] * (masks != NULL && masks[i] != NULL ? sn_mask_get(masks[i], joint) : 1.0f);
            if (!(wi > 0)) continue;
            sn_pose_get(layers[i], joint, f);
        } else {
            if (W >= threshold) break;
            wi = threshold - W;
            sn_skeleton_rest(s, joint, f);
        }
        for (c = 0; c < 10; c++) v[c] = f[c];
        for (c = 3; c < 7; c++) d += acc[c] * v[c];
        sw = d < 0 ? -wi : wi;
        for (c = 0; c < 10; c++) acc[c] += (c >= 3 && c < 7 ? sw : wi) * v[c];
        W += wi;
    }
    l = sqrt(acc[3] * acc[3] + acc[4] * acc[4] + acc[5] * acc[5] + acc[6] * acc[6]);
    for (c = 0; c < 10; c++) out[c] = (c >= 3 && c < 7) ? acc[c] / l : acc[c] / W;
}

static void test_blend_matches_reference(void) {
    int round;
    for (round = 0; round < 60; round++) {
        fixture f;
        sn_skeleton *s;
        sn_pose *layers[6], *out;
        sn_mask *masks[6];
        sn_blend_layer bl[6];
        float w[6], centres[4 * MAXJ];
        int n = 1 + (int)rnd(0, 5.99), count = 1 + (int)rnd(0, MAXJ - 0.01), i, j, c, masked = round % 2;
        make_def(&f, count);
        s = new_skeleton(&f.def);
        random_centres(centres, count);
        out = new_pose(s);
        for (i = 0; i < n; i++) {
            layers[i] = new_pose(s);
            randomize(layers[i], centres);
            w[i] = rnd(0, 1) < 0.15 ? 0.0f : (float)rnd(0, 2);
            masks[i] = NULL;
            if (masked && rnd(0, 1) < 0.6) {
                masks[i] = new_mask(s, (float)rnd(0, 1));
                for (j = 0; j < count; j++)
                    if (rnd(0, 1) < 0.5) ENSURE(sn_mask_set(masks[i], j, (float)rnd(0, 1), 0, NULL) == SN_OK);
            }
            bl[i].pose = layers[i];
            bl[i].weight = w[i];
            bl[i].mask = masks[i];
        }
        ENSURE(sn_pose_blend(out, bl, n, SN_BLEND_THRESHOLD, NULL) == SN_OK);
        for (j = 0; j < count; j++) {
            double want[10];
            float got[10];
            reference_blend(s, layers, w, masks, n, SN_BLEND_THRESHOLD, j, want);
            sn_pose_get(out, j, got);
            for (c = 0; c < 10; c++) ENSURE_NEAR(got[c], want[c], 1e-5 * (1 + fabs(want[c])));
        }
        /* the output may be one of the layers */
        ENSURE(sn_pose_blend(layers[0], bl, n, SN_BLEND_THRESHOLD, NULL) == SN_OK);
        for (j = 0; j < count; j++) {
            float a[10], b[10];
            sn_pose_get(layers[0], j, a);
            sn_pose_get(out, j, b);
            for (c = 0; c < 10; c++) ENSURE_NEAR(a[c], b[c], 1e-6);
        }
    }
}

/* Rotation averaging other than nlerp: each joint's rotation is sn_quat_blend of the layers'
   rotations (and the rest-pose fill) with the masked weights; translations as sn_pose_blend;
   the output may be a layer; too many layers and unknown methods are refused. */
static void test_blend_methods(void) {
    static const sn_blend_method methods[] = {SN_BLEND_KARCHER, SN_BLEND_MARKLEY, SN_BLEND_POWER};
    int round;
    for (round = 0; round < 30; round++) {
        fixture f;
        sn_skeleton *s;
        sn_pose *layers[5], *out, *plain;
        sn_mask *masks[5];
        sn_blend_layer bl[5];
        float centres[4 * MAXJ];
        sn_blend_method method = methods[round % 3];
        int n = 1 + (int)rnd(0, 4.99), count = 1 + (int)rnd(0, MAXJ - 0.01), i, j, c;
        make_def(&f, count);
        s = new_skeleton(&f.def);
        random_centres(centres, count);
        out = new_pose(s);
        plain = new_pose(s);
        for (i = 0; i < n; i++) {
            layers[i] = new_pose(s);
            randomize(layers[i], centres);
            masks[i] = NULL;
            if (round % 2 && rnd(0, 1) < 0.5) {
                masks[i] = new_mask(s, (float)rnd(0, 1));
                for (j = 0; j < count; j++)
                    if (rnd(0, 1) < 0.5) ENSURE(sn_mask_set(masks[i], j, (float)rnd(0, 1), 0, NULL) == SN_OK);
            }
            bl[i].pose = layers[i];
            bl[i].weight = rnd(0, 1) < 0.15 ? 0.0f : (float)rnd(0, 2);
            bl[i].mask = masks[i];
        }
        ENSURE(sn_pose_blend_method(out, bl, n, SN_BLEND_THRESHOLD, method, NULL) == SN_OK);
        ENSURE(sn_pose_blend(plain, bl, n, SN_BLEND_THRESHOLD, NULL) == SN_OK);
        for (j = 0; j < count; j++) {
            sn_quat qs[6], want;
            double ws[6], total = 0, sum = 0, scale, fill;
            size_t m = 0;
            float got[10], lin[10], rest[10];
            for (i = 0; i < n; i++) total += bl[i].weight;
            scale = 1.0 / (total > SN_BLEND_THRESHOLD ? total : SN_BLEND_THRESHOLD);
            for (i = 0; i < n; i++) {
                double w = bl[i].weight * scale * (masks[i] ? sn_mask_get(masks[i], j) : 1.0);
                float v[10];
                if (!(w > 0)) continue;
                sn_pose_get(layers[i], j, v);
                qs[m].x = v[3]; qs[m].y = v[4]; qs[m].z = v[5]; qs[m].w = v[6];
                ws[m++] = w;
                sum += w;
            }
            fill = SN_BLEND_THRESHOLD * scale;
            if (fill < SN_BLEND_MIN_FILL) fill = SN_BLEND_MIN_FILL;
            if (fill - sum > 0) {
                sn_skeleton_rest(s, j, rest);
                qs[m].x = rest[3]; qs[m].y = rest[4]; qs[m].z = rest[5]; qs[m].w = rest[6];
                ws[m++] = fill - sum;
            }
            ENSURE(sn_quat_blend(qs, ws, m, method, &want, NULL) == SN_OK);
            sn_pose_get(out, j, got);
            sn_pose_get(plain, j, lin);
            ENSURE_NEAR(got[3], want.x, 1e-5);
            ENSURE_NEAR(got[4], want.y, 1e-5);
            ENSURE_NEAR(got[5], want.z, 1e-5);
            ENSURE_NEAR(got[6], want.w, 1e-5);
            for (c = 0; c < 3; c++) ENSURE(got[c] == lin[c] && got[7 + c] == lin[7 + c]);
        }
        /* into one of its layers: the same */
        ENSURE(sn_pose_blend_method(layers[0], bl, n, SN_BLEND_THRESHOLD, method, NULL) == SN_OK);
        for (j = 0; j < count; j++) {
            float a[10], b[10];
            sn_pose_get(layers[0], j, a);
            sn_pose_get(out, j, b);
            for (c = 0; c < 10; c++) ENSURE_NEAR(a[c], b[c], 1e-6);
        }
    }
    {
        fixture f;
        sn_skeleton *s;
        sn_pose *p, *many[SN_BLEND_METHOD_MAX_LAYERS + 1];
        sn_blend_layer bl[SN_BLEND_METHOD_MAX_LAYERS + 1];
        sn_error err;
        int i;
        make_def(&f, 3);
        s = new_skeleton(&f.def);
        p = new_pose(s);
        for (i = 0; i <= SN_BLEND_METHOD_MAX_LAYERS; i++) {
            many[i] = new_pose(s);
            bl[i].pose = many[i];
            bl[i].weight = 1;
            bl[i].mask = NULL;
        }
        ENSURE(sn_pose_blend_method(p, bl, SN_BLEND_METHOD_MAX_LAYERS, 0.1f, SN_BLEND_KARCHER, &err) == SN_OK);
        ENSURE(sn_pose_blend_method(p, bl, SN_BLEND_METHOD_MAX_LAYERS + 1, 0.1f, SN_BLEND_KARCHER, &err) == SN_EINVAL &&
               err.arg == 2);
        ENSURE(sn_pose_blend_method(p, bl, 2, 0.1f, (sn_blend_method)9, &err) == SN_EINVAL && err.arg == 6);
        ENSURE(sn_pose_blend_method(p, bl, 2, -1.0f, SN_BLEND_POWER, &err) == SN_EINVAL && err.arg == 5);
    }
}

static void test_masks(void) {
    /* root(0) -> a(1) -> a1(3) -> a2(5); root -> b(2) -> b1(4) */
    static const char *names[] = {"root", "a", "b", "a1", "b1", "a2"};
    static const int parents[] = {-1, 0, 0, 1, 2, 3};
    sn_skeleton_def def;
    sn_skeleton *s;
    sn_mask *m;
    int j;
    sn_skeleton_def_init(&def);
    def.count = 6;
    def.names = names;
    def.parents = parents;
    def.rest = NULL;
    s = new_skeleton(&def);
    m = new_mask(s, 0.25f);
    ENSURE(sn_mask_skeleton(m) == s);
    ENSURE(sn_mask_set(m, 1, 1.0f, 1, NULL) == SN_OK);
    ENSURE(sn_mask_get(m, 0) == 0.25f && sn_mask_get(m, 1) == 1 && sn_mask_get(m, 2) == 0.25f);
    ENSURE(sn_mask_get(m, 3) == 1 && sn_mask_get(m, 4) == 0.25f && sn_mask_get(m, 5) == 1);
    for (j = 6; j < sn_skeleton_stride(s); j++) ENSURE(sn_mask_weights(m)[j] == 0);
}

static void test_add_subtract_and_delta(void) {
    int round;
    for (round = 0; round < 40; round++) {
        fixture f;
        sn_skeleton *s;
        sn_pose *p, *d, *ref, *back;
        sn_mask *m;
        float before[10 * MAXJ], centres[4 * MAXJ], got[10];
        int count = 1 + (int)rnd(0, MAXJ - 0.01), j, c;
        float w = (float)rnd(-2, 2);
        make_def(&f, count);
        s = new_skeleton(&f.def);
        random_centres(centres, count);
        p = new_pose(s);
        d = new_pose(s);
        ref = new_pose(s);
        back = new_pose(s);
        m = new_mask(s, (float)rnd(0, 1));
        randomize(p, centres);
        randomize(d, centres);
        randomize(ref, centres);
        for (j = 0; j < count; j++) sn_pose_get(p, j, before + 10 * j);
        ENSURE(sn_pose_add(p, d, w, round % 2 ? m : NULL, NULL) == SN_OK);
        ENSURE(sn_pose_add(p, d, -w, round % 2 ? m : NULL, NULL) == SN_OK);
        for (j = 0; j < count; j++) {
            sn_pose_get(p, j, got);
            for (c = 0; c < 10; c++) ENSURE_NEAR(got[c], before[10 * j + c], 1e-5);
        }
        /* delta then add gives the pose back (up to the sign of the rotation) */
        ENSURE(sn_pose_delta(p, ref, d, NULL) == SN_OK);
        ENSURE(sn_pose_copy(ref, back, NULL) == SN_OK);
        ENSURE(sn_pose_add(back, d, 1.0f, NULL, NULL) == SN_OK);
        for (j = 0; j < count; j++) {
            double dot = 0;
            sn_pose_get(back, j, got);
            for (c = 3; c < 7; c++) dot += got[c] * before[10 * j + c];
            for (c = 0; c < 10; c++)
                ENSURE_NEAR(got[c] * (c >= 3 && c < 7 && dot < 0 ? -1 : 1), before[10 * j + c], 1e-5);
        }
    }
}

static void test_model_matrices(void) {
    fixture f;
    sn_skeleton *s;
    sn_pose *p;
    sn_matrices *set;
    float *mats, centres[4 * MAXJ];
    int j, k;
    make_def(&f, MAXJ);
    s = new_skeleton(&f.def);
    p = new_pose(s);
    random_centres(centres, MAXJ);
    randomize(p, centres);
    set = fixture_matrices(s);
    mats = sn_matrices_data(set);
    for (j = 0; j < MAXJ; j++) /* identities at first */
        for (k = 0; k < 16; k++) ENSURE(mats[16 * j + k] == (k % 5 == 0 ? 1.0f : 0.0f));
    ENSURE(sn_matrices_skeleton(set) == s);
    ENSURE(sn_pose_to_matrices(p, set, NULL) == SN_OK);
    for (j = 0; j < MAXJ; j++) {
        /* the model matrix maps the joint's local point x to parent_model * (T R S x): check with
           a test point pushed through the chain of local transforms */
        double x[3] = {0.3, -0.2, 0.5};
        int joint = j;
        while (joint >= 0) {
            float v[10];
            double q[4], sx[3], r[3];
            sn_pose_get(p, joint, v);
            for (k = 0; k < 4; k++) q[k] = v[3 + k];
            for (k = 0; k < 3; k++) sx[k] = x[k] * v[7 + k];
            /* r = q sx q* */
            {
                double tx = 2 * (q[1] * sx[2] - q[2] * sx[1]), ty = 2 * (q[2] * sx[0] - q[0] * sx[2]),
                       tz = 2 * (q[0] * sx[1] - q[1] * sx[0]);
                r[0] = sx[0] + q[3] * tx + (q[1] * tz - q[2] * ty);
                r[1] = sx[1] + q[3] * ty + (q[2] * tx - q[0] * tz);
                r[2] = sx[2] + q[3] * tz + (q[0] * ty - q[1] * tx);
            }
            for (k = 0; k < 3; k++) x[k] = r[k] + v[k];
            joint = sn_skeleton_parent(s, joint);
        }
        for (k = 0; k < 3; k++) {
            const float *m = mats + 16 * j;
            double got = m[k] * 0.3 + m[4 + k] * -0.2 + m[8 + k] * 0.5 + m[12 + k];
            ENSURE_NEAR(got, x[k], 1e-4);
        }
        ENSURE(mats[16 * j + 3] == 0 && mats[16 * j + 7] == 0 && mats[16 * j + 11] == 0 && mats[16 * j + 15] == 1);
    }
}

/* invalid skeleton definitions: a valid 3-joint line, spoiled by each case */
static const char *names3[] = {"a", "b", "c"}, *dup_names[] = {"a", "b", "a"}, *hole_names[] = {"a", NULL, "c"},
                  *empty_names[] = {"a", "", "c"};
static const int line3[] = {-1, 0, 1}, own_parent[] = {-1, 1, 1}, cycle[] = {-1, 2, 1}, late_parent[] = {-1, 2, 0},
                 parent_past_end[] = {-1, 3, 1}, parent_below_root[] = {-2, 0, 1};
static char long_name[300];
static const char *long_names[] = {"a", long_name, "c"};
static float case_rest[30];

static void valid_skeleton(sn_skeleton_def *def) {
    int c;
    for (c = 0; c < 30; c++) case_rest[c] = (c % 10 == 6 || c % 10 >= 7) ? 1.0f : 0.0f;
    memset(long_name, 'x', sizeof long_name - 1);
    sn_skeleton_def_init(def);
    def->count = 3;
    def->parents = line3;
    def->names = names3;
    def->rest = case_rest;
}

static void no_joints(sn_skeleton_def *d) { d->count = 0; }
static void too_many_joints(sn_skeleton_def *d) { d->count = SN_SKELETON_MAX_JOINTS + 1; }
static void joint_its_own_parent(sn_skeleton_def *d) { d->parents = own_parent; }
static void parents_in_a_cycle(sn_skeleton_def *d) { d->parents = cycle; }
static void parent_after_child(sn_skeleton_def *d) { d->parents = late_parent; }
static void parent_past_the_end(sn_skeleton_def *d) { d->parents = parent_past_end; }
static void parent_below_minus_1(sn_skeleton_def *d) { d->parents = parent_below_root; }
static void no_parents(sn_skeleton_def *d) { d->parents = NULL; }
static void duplicate_names(sn_skeleton_def *d) { d->names = dup_names; }
static void missing_name(sn_skeleton_def *d) { d->names = hole_names; }
static void empty_name(sn_skeleton_def *d) { d->names = empty_names; }
static void name_too_long(sn_skeleton_def *d) { d->names = long_names; }
static void no_names(sn_skeleton_def *d) { d->names = NULL; }
static void nan_rest_value(sn_skeleton_def *d) { (void)d; case_rest[12] = case_rest[12] / case_rest[12]; }
static void zero_rest_rotation(sn_skeleton_def *d) { (void)d; case_rest[16] = 0; }

FIXTURE_CASE_TYPE(skeleton_case, sn_skeleton_def);
static const skeleton_case skeleton_cases[] = {
    {"no joints", no_joints, "at least one joint"},
    {"more joints than allowed", too_many_joints, "more than the 65535 allowed"},
    {"a joint its own parent", joint_its_own_parent, "joint 'b' is its own parent"},
    {"parents in a cycle", parents_in_a_cycle, "cycle through joint 'b'"},
    {"a parent after its child", parent_after_child, "parent 'c' comes after its child 'b'"},
    {"a parent past the end", parent_past_the_end, "parent 4 of joint 'b' is out of range (0 .. 3)"},
    {"a parent below -1", parent_below_minus_1, "parent -1 of joint 'a' is out of range (0 .. 3)"},
    {"no parents", no_parents, "no joint parents"},
    {"two joints of one name", duplicate_names, "joints 1 and 3 are both named 'a'"},
    {"a joint without a name", missing_name, "joint 2 has no name"},
    {"an empty name", empty_name, "joint 2 has no name"},
    {"a name of 299 bytes", name_too_long, "longer than 255 bytes"},
    {"no names", no_names, "no joint names"},
    {"a NaN rest value", nan_rest_value, "rest value 3 of joint 'b' is not finite"},
    {"a zero rest rotation", zero_rest_rotation, "rest rotation of joint 'b' is zero"},
};

/* invalid mask definitions: weight 0.5 on a 3-joint skeleton, spoiled by each case */
static sn_skeleton *case_skeleton;
static float case_weights[3];

static void valid_mask(sn_mask_def *def) {
    sn_mask_def_init(def);
    def->skeleton = case_skeleton;
    def->weight = 0.5f;
    case_weights[0] = case_weights[1] = case_weights[2] = 1.0f;
}

static void mask_without_skeleton(sn_mask_def *d) { d->skeleton = NULL; }
static void mask_weight_above_1(sn_mask_def *d) { d->weight = 1.5f; }
static void mask_weight_negative(sn_mask_def *d) { d->weight = -0.25f; }
static void mask_weight_nan(sn_mask_def *d) { d->weight = d->weight - d->weight; d->weight /= d->weight; }
static void joint_weight_above_1(sn_mask_def *d) { case_weights[1] = 2.0f; d->weights = case_weights; }

FIXTURE_CASE_TYPE(mask_case, sn_mask_def);
static const mask_case mask_cases[] = {
    {"no skeleton", mask_without_skeleton, "no skeleton"},
    {"a weight above 1", mask_weight_above_1, "mask weight 1.5 is out of range (0 .. 1)"},
    {"a negative weight", mask_weight_negative, "mask weight -0.25 is out of range (0 .. 1)"},
    {"a NaN weight", mask_weight_nan, "is out of range (0 .. 1)"},
    {"a joint's weight above 1", joint_weight_above_1, "mask weight 2 of joint 'b' is out of range (0 .. 1)"},
};

/* Skinning matrices: root * model * inverse_bind per joint, checked against a double product;
   the model matrices times their own inverses give identities; another skeleton is refused. */
static void mul_ref(const float *a, const float *b, double *out) {
    int c, r, k;
    for (c = 0; c < 4; c++)
        for (r = 0; r < 4; r++) {
            double sum = 0;
            for (k = 0; k < 4; k++) sum += (double)a[4 * k + r] * b[4 * c + k];
            out[4 * c + r] = sum;
        }
}

static void test_skinning_matrices(void) {
    fixture f, f2;
    sn_skeleton *s, *s2;
    sn_pose *p;
    sn_matrices *model, *ibm, *skin;
    sn_error err;
    float centres[4 * MAXJ], root[16];
    int j, k;
    make_def(&f, MAXJ);
    s = new_skeleton(&f.def);
    make_def(&f2, 2);
    s2 = new_skeleton(&f2.def);
    p = new_pose(s);
    random_centres(centres, MAXJ);
    randomize(p, centres);
    model = fixture_matrices(s);
    ibm = fixture_matrices(s);
    skin = fixture_matrices(s);
    ENSURE(sn_pose_to_matrices(p, model, NULL) == SN_OK);
    for (j = 0; j < 16 * MAXJ; j++) sn_matrices_data(ibm)[j] = (float)(rand() % 2001 - 1000) / 500.0f;
    for (k = 0; k < 16; k++) root[k] = (float)(rand() % 2001 - 1000) / 500.0f;
    memcpy(sn_matrices_data(skin), sn_matrices_data(model), 64 * (size_t)MAXJ);
    ENSURE(sn_matrices_skin(skin, ibm, root, &err) == SN_OK);
    for (j = 0; j < MAXJ; j++) {
        double tmp[16], want[16];
        float tmpf[16];
        mul_ref(sn_matrices_data(model) + 16 * j, sn_matrices_data(ibm) + 16 * j, tmp);
        for (k = 0; k < 16; k++) tmpf[k] = (float)tmp[k];
        mul_ref(root, tmpf, want);
        for (k = 0; k < 16; k++) ENSURE(fabs(sn_matrices_data(skin)[16 * j + k] - want[k]) <= 1e-4 * (1 + fabs(want[k])));
    }
    /* no root, and inverse_bind aliasing the output: each matrix becomes its own square */
    memcpy(sn_matrices_data(skin), sn_matrices_data(model), 64 * (size_t)MAXJ);
    ENSURE(sn_matrices_skin(skin, skin, NULL, &err) == SN_OK);
    for (j = 0; j < MAXJ; j++) {
        double want[16];
        mul_ref(sn_matrices_data(model) + 16 * j, sn_matrices_data(model) + 16 * j, want);
        for (k = 0; k < 16; k++) ENSURE(fabs(sn_matrices_data(skin)[16 * j + k] - want[k]) <= 1e-3 * (1 + fabs(want[k])));
    }
    /* another skeleton: refused, nothing written */
    memcpy(sn_matrices_data(skin), sn_matrices_data(model), 64 * (size_t)MAXJ);
    ENSURE(sn_matrices_skin(skin, fixture_matrices(s2), NULL, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(memcmp(sn_matrices_data(skin), sn_matrices_data(model), 64 * (size_t)MAXJ) == 0);
}

static void test_invalid_definitions_refused(void) {
    sn_skeleton_def def;
    sn_mask_def md;
    sn_pose_def pd;
    sn_matrices_def xd;
    sn_error err;
    char small[8];
    valid_skeleton(&def);
    ENSURE(sn_skeleton_validate(&def, &err) == SN_OK);
    REFUSE_CASES(skeleton_cases, sn_skeleton_def, valid_skeleton, sn_skeleton_validate);
    ENSURE(sn_skeleton_validate(NULL, &err) == SN_EINVAL);
    valid_skeleton(&def);
    ENSURE(sn_skeleton_init(small, sizeof small, &def, &err) == SN_ENOMEM);
    case_skeleton = new_skeleton(&def);
    valid_mask(&md);
    ENSURE(sn_mask_validate(&md, &err) == SN_OK);
    REFUSE_CASES(mask_cases, sn_mask_def, valid_mask, sn_mask_validate);
    ENSURE(sn_mask_init(small, sizeof small, &md, &err) == SN_ENOMEM);
    sn_pose_def_init(&pd);
    ENSURE(sn_pose_size(&pd, &err) == 0 && strstr(err.msg, "no skeleton") != NULL);
    pd.skeleton = case_skeleton;
    ENSURE(sn_pose_init(small, sizeof small, &pd, &err) == SN_ENOMEM);
    sn_matrices_def_init(&xd);
    ENSURE(sn_matrices_size(&xd, &err) == 0 && strstr(err.msg, "no skeleton") != NULL);
    xd.skeleton = case_skeleton;
    ENSURE(sn_matrices_init(small, sizeof small, &xd, &err) == SN_ENOMEM);
}

/* calls with objects of another skeleton or bad numbers: refused before anything is written */
static void test_invalid_calls_refused(void) {
    sn_skeleton_def def;
    sn_error err;
    sn_skeleton *s, *s2;
    sn_pose *p, *q;
    sn_mask *m, *m2;
    sn_blend_layer bl[2];
    float nan = 0.0f;
    nan = nan / nan;
    valid_skeleton(&def);
    s = new_skeleton(&def);
    def.rest = NULL;
    s2 = new_skeleton(&def);
    p = new_pose(s);
    q = new_pose(s2);
    m = new_mask(s, 1);
    m2 = new_mask(s2, 1);
    ENSURE(sn_mask_set(m, 3, 1, 0, &err) == SN_ERANGE && err.arg == 1);
    ENSURE(sn_mask_set(m, 0, -0.5f, 0, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_mask_set(m, 0, nan, 0, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_pose_copy(q, p, &err) == SN_EINVAL);
    ENSURE(sn_pose_to_matrices(p, fixture_matrices(s2), &err) == SN_EINVAL && err.arg == 2);
    bl[0].pose = p; bl[0].weight = 1; bl[0].mask = NULL;
    bl[1].pose = q; bl[1].weight = 1; bl[1].mask = NULL;
    ENSURE(sn_pose_blend(p, bl, 2, 0.1f, &err) == SN_EINVAL && err.arg == 2);
    bl[1].pose = p;
    bl[1].weight = -1;
    ENSURE(sn_pose_blend(p, bl, 2, 0.1f, &err) == SN_EINVAL && err.arg == 3);
    bl[1].weight = nan;
    ENSURE(sn_pose_blend(p, bl, 2, 0.1f, &err) == SN_EINVAL && err.arg == 3);
    bl[1].weight = 1;
    bl[1].mask = m2;
    ENSURE(sn_pose_blend(p, bl, 2, 0.1f, &err) == SN_EINVAL && err.arg == 4);
    bl[1].mask = m;
    ENSURE(sn_pose_blend(p, bl, 2, 0.0f, &err) == SN_EINVAL && err.arg == 5);
    ENSURE(sn_pose_blend(p, bl, 2, nan, &err) == SN_EINVAL && err.arg == 5);
    ENSURE(sn_pose_blend(p, bl, -1, 0.1f, &err) == SN_EINVAL);
    ENSURE(sn_pose_blend(p, NULL, 2, 0.1f, &err) == SN_EINVAL);
    ENSURE(sn_pose_blend(p, bl, 2, 0.1f, &err) == SN_OK);
    ENSURE(sn_pose_add(p, q, 1, NULL, &err) == SN_EINVAL && err.arg == 1);
    ENSURE(sn_pose_add(p, p, nan, NULL, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_pose_add(p, p, 1, m2, &err) == SN_EINVAL && err.arg == 3);
    ENSURE(sn_pose_delta(q, p, p, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_pose_delta(p, q, p, &err) == SN_EINVAL && err.arg == 3);
    {
        float v[10] = {0, 0, 0, 0, 0, 0, 1, 0, 1, 1}, before[10], after[10];
        sn_pose *z = new_pose(s);
        sn_pose_set(z, 1, v);
        sn_pose_get(p, 0, before);
        ENSURE(sn_pose_delta(p, z, p, &err) == SN_EINVAL && strstr(err.msg, "joint 2") != NULL);
        sn_pose_get(p, 0, after);
        ENSURE(memcmp(before, after, sizeof before) == 0); /* nothing written */
        v[7] = -1;                                       /* 1 + 0.5 * (-1 - 1) = 0 */
        sn_pose_set(z, 1, v);
        ENSURE(sn_pose_add(p, z, -0.5f, NULL, &err) == SN_EINVAL && strstr(err.msg, "divides by zero") != NULL);
    }
}

/* a mask's subtree of a long line: one pass, whatever the depth */
static void test_mask_subtree_of_a_deep_line(void) {
    int j, n = SN_SKELETON_MAX_JOINTS;
    sn_mask *m = new_mask(fixture_line_skeleton(n, NULL), 0.25f);
    ENSURE(sn_mask_set(m, 10, 1.0f, 1, NULL) == SN_OK);
    ENSURE(sn_mask_get(m, 9) == 0.25f && sn_mask_get(m, 10) == 1.0f && sn_mask_get(m, n - 1) == 1.0f);
    ENSURE(sn_mask_set(m, 0, 0.5f, 1, NULL) == SN_OK);
    for (j = 0; j < n; j++) ENSURE(sn_mask_get(m, j) == 0.5f);
}

int main(void) {
    RUN(test_skeleton_queries);
    RUN(test_pose_get_set_reset_copy);
    RUN(test_blend_matches_reference);
    RUN(test_blend_methods);
    RUN(test_masks);
    RUN(test_add_subtract_and_delta);
    RUN(test_model_matrices);
    RUN(test_skinning_matrices);
    RUN(test_invalid_definitions_refused);
    RUN(test_invalid_calls_refused);
    RUN(test_mask_subtree_of_a_deep_line);
    fixture_free();
    return END("test_pose");
}
