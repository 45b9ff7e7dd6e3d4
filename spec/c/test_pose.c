/* C-only tests of src/core/skeleton.c, pose.c and blend.c: no Lua involved. */
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "pose.h"

static unsigned long seed = 4711;

static double rnd(double lo, double hi) { return lo + (hi - lo) * ensure_random(&seed); }

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

static sn_skeleton *new_skeleton(const sn_skeleton_def *def) {
    size_t size = sn_skeleton_size(def, NULL);
    void *mem = malloc(size + 8);
    ENSURE(size > 0 && mem != NULL);
    /* 8 bytes in: the arrays inside must be 16-byte aligned whatever the block's alignment */
    ENSURE(sn_skeleton_init((char *)mem + 8, size, def, NULL) == SN_OK);
    return (sn_skeleton *)((char *)mem + 8);
}

static void free_skeleton(sn_skeleton *s) { free((char *)s - 8); }

static sn_pose *new_pose(const sn_skeleton *s) {
    size_t size = sn_pose_size(s);
    sn_pose *p = (sn_pose *)malloc(size);
    ENSURE(sn_pose_init(p, size, s, NULL) == SN_OK);
    return p;
}

static sn_mask *new_mask(const sn_skeleton *s, float w) {
    size_t size = sn_mask_size(s);
    sn_mask *m = (sn_mask *)malloc(size);
    ENSURE(sn_mask_init(m, size, s, w, NULL) == SN_OK);
    return m;
}

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
    free_skeleton(s);
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
    free(a);
    free(b);
    free_skeleton(s);
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
        for (i = 0; i < n; i++) {
            free(layers[i]);
            free(masks[i]);
        }
        free(out);
        free_skeleton(s);
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
    free(m);
    free_skeleton(s);
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
        free(p);
        free(d);
        free(ref);
        free(back);
        free(m);
        free_skeleton(s);
    }
}

static void test_model_matrices(void) {
    fixture f;
    sn_skeleton *s;
    sn_pose *p;
    float *mats, centres[4 * MAXJ];
    int j, k;
    make_def(&f, MAXJ);
    s = new_skeleton(&f.def);
    p = new_pose(s);
    random_centres(centres, MAXJ);
    randomize(p, centres);
    mats = (float *)malloc(sizeof(float) * 16 * MAXJ);
    sn_pose_to_model(p, mats);
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
    free(mats);
    free(p);
    free_skeleton(s);
}

static void test_invalid_inputs_refused(void) {
    static const char *names3[] = {"a", "b", "c"}, *dup[] = {"a", "b", "a"}, *holes[] = {"a", NULL, "c"},
                      *empty[] = {"a", "", "c"};
    static const int chain[] = {-1, 0, 1}, self[] = {-1, 1, 1}, cycle[] = {-1, 2, 1}, late[] = {-1, 2, 0},
                     range[] = {-1, 3, 1}, low[] = {-2, 0, 1};
    float rest[30], nan = 0.0f;
    char longname[300];
    const char *longnames[] = {"a", longname, "c"};
    sn_skeleton_def def = {3, chain, names3, NULL, NULL};
    sn_error err;
    sn_skeleton *s, *s2;
    sn_pose *p, *q;
    sn_mask *m, *m2;
    sn_blend_layer bl[2];
    char small[8];
    int c;
    nan = nan / nan;
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    ENSURE(sn_skeleton_validate(&def, &err) == SN_OK);
    def.count = 0;
    ENSURE(sn_skeleton_size(&def, &err) == 0 && err.code == SN_EINVAL);
    def.count = SN_SKELETON_MAX_JOINTS + 1;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_EINVAL);
    def.count = 3;
    def.parents = self;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "its own parent") != NULL);
    def.parents = cycle;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "cycle") != NULL);
    def.parents = late;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "comes after") != NULL);
    def.parents = range;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "out of range") != NULL);
    def.parents = low;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_EINVAL);
    def.parents = NULL;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_EINVAL);
    def.parents = chain;
    def.names = dup;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "both named 'a'") != NULL);
    def.names = holes;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "joint 2 has no name") != NULL);
    def.names = empty;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_EINVAL);
    def.names = longnames;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "longer") != NULL);
    def.names = NULL;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_EINVAL);
    def.names = names3;
    for (c = 0; c < 30; c++) rest[c] = (c % 10 == 6 || c % 10 >= 7) ? 1.0f : 0.0f;
    def.rest = rest;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_OK);
    rest[12] = nan;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "not finite") != NULL);
    rest[12] = 0;
    rest[16] = 0;
    ENSURE(sn_skeleton_validate(&def, &err) == SN_EINVAL && strstr(err.msg, "rotation of joint 'b' is zero") != NULL);
    rest[16] = 1;
    ENSURE(sn_skeleton_validate(NULL, &err) == SN_EINVAL);
    ENSURE(sn_skeleton_init(small, sizeof small, &def, &err) == SN_ENOMEM);

    s = new_skeleton(&def);
    def.rest = NULL;
    s2 = new_skeleton(&def);
    ENSURE(sn_pose_init(small, sizeof small, s, &err) == SN_ENOMEM);
    ENSURE(sn_mask_init(small, sizeof small, s, 1, &err) == SN_ENOMEM);
    p = new_pose(s);
    q = new_pose(s2);
    m = new_mask(s, 1);
    m2 = new_mask(s2, 1);
    ENSURE(sn_mask_init(m, sn_mask_size(s), s, 1.5f, &err) == SN_EINVAL);
    ENSURE(sn_mask_set(m, 3, 1, 0, &err) == SN_ERANGE);
    ENSURE(sn_mask_set(m, 0, -0.5f, 0, &err) == SN_EINVAL);
    ENSURE(sn_mask_set(m, 0, nan, 0, &err) == SN_EINVAL);
    ENSURE(sn_pose_copy(q, p, &err) == SN_EINVAL);
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
        free(z);
    }
    free(p);
    free(q);
    free(m);
    free(m2);
    free_skeleton(s);
    free_skeleton(s2);
}

int main(void) {
    RUN(test_skeleton_queries);
    RUN(test_pose_get_set_reset_copy);
    RUN(test_blend_matches_reference);
    RUN(test_masks);
    RUN(test_add_subtract_and_delta);
    RUN(test_model_matrices);
    RUN(test_invalid_inputs_refused);
    return END("test_pose");
}
