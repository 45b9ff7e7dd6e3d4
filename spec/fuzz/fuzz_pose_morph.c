/* Fuzzes morph targets: skeleton definitions with morphs (names that repeat, are empty or long,
   defaults that are not finite) are refused with a message or build; poses, masks and clips of
   weight tracks built on them, then blends, additive layers, deltas, mask factors and samples:
   a refused call writes nothing (joints and morphs), an accepted one leaves finite weights; a
   blend's weights lie between the least and the largest of what it averages (the layers' weights
   and the defaults), a linear or step track's between its keys' values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "pose.h"
#include "reader.h"
#include "poses.h"
#include "skeleton.h"

#define MAXM 12
#define LAYERS 3

static const char *const joint_names[2] = {"a", "b"};
static const int joint_parents[2] = {-1, 0};

/* a skeleton of two joints and 0 .. MAXM morphs from the input, or NULL when its definition is
   refused (then with a message) */
static void *build_skeleton(reader *r, sn_skeleton **out) {
    /* distinct names, or picks from a pool that repeats one, has an empty one, a missing one and
       one too long (a morph may share a joint's name: "a", "b") */
    static const char *const distinct[MAXM] = {"blink", "smile", "a", "b", "jaw", "x.y",
                                               "m6", "m7", "m8", "m9", "m10", "m11"};
    static const char *const pool[8] = {"blink", "smile", "a", "", "blink", "jaw", NULL, NULL};
    static char long_name[300];
    const char *names[MAXM];
    float defaults[MAXM];
    sn_skeleton_def def;
    sn_error err;
    size_t need;
    void *mem;
    int i, n = read_int(r, 0, MAXM), picked = read_byte(r) >= 200u;
    memset(long_name, 'n', sizeof long_name - 1);
    for (i = 0; i < n; i++) {
        const unsigned pick = read_byte(r) % 8u;
        names[i] = !picked ? distinct[i] : pick == 7u ? long_name : pool[pick];
        defaults[i] = read_byte(r) < 240u ? (float)(read_int(r, -400, 400) / 100.0) : (float)read_number(r);
    }
    sn_skeleton_def_init(&def);
    def.count = 2;
    def.parents = joint_parents;
    def.names = joint_names;
    def.morph_count = read_byte(r) < 4u ? -1 : n;
    def.morph_names = names;
    def.morph_defaults = read_byte(r) < 64u ? NULL : defaults;
    need = sn_skeleton_size(&def, &err);
    if (need == 0) {
        FUZZ_CHECK(err.msg[0] != '\0' && sn_skeleton_validate(&def, NULL) != SN_OK);
        return NULL;
    }
    mem = malloc(need);
    FUZZ_CHECK(mem != NULL && sn_skeleton_init(mem, need, &def, &err) == SN_OK);
    *out = (sn_skeleton *)mem;
    for (i = 0; i < n; i++) {
        FUZZ_CHECK(sn_skeleton_morph_find(*out, names[i]) == i);
        FUZZ_CHECK(sn_skeleton_morph_defaults(*out)[i] == (def.morph_defaults != NULL ? defaults[i] : 0.0f));
    }
    return mem;
}

/* a finite float from the input, as the binding would pass it (huge ones now and then) */
static float read_weight_value(reader *r) {
    double v = read_number(r);
    return sn_isfinite(v) && fabs(v) < 3e38 ? (float)v : 0.5f;
}

static void *new_pose(const sn_skeleton *s, reader *r, sn_pose **out) {
    void *mem = fuzz_new_pose(s, out);
    int m;
    for (m = 0; m < sn_skeleton_morph_count(s); m++) FUZZ_CHECK(sn_pose_morphs(*out)[m] == sn_skeleton_morph_defaults(s)[m]);
    for (m = 0; m < sn_skeleton_morph_count(s); m++)
        if (read_byte(r) & 1u) sn_pose_morphs(*out)[m] = read_weight_value(r);
    return mem;
}

/* a mask with morph factors from the input, or NULL when refused (with a message) */
static void *new_mask(const sn_skeleton *s, reader *r, sn_mask **out) {
    float factors[MAXM];
    sn_mask_def def;
    sn_error err;
    size_t need;
    void *mem;
    int m;
    sn_mask_def_init(&def);
    def.skeleton = s;
    def.weight = (float)read_weight(r);
    def.has_morph_weight = (int)(read_byte(r) & 1u);
    def.morph_weight = (float)read_weight(r);
    for (m = 0; m < MAXM; m++) factors[m] = (float)read_weight(r);
    if (read_byte(r) & 1u) def.morph_weights = factors;
    need = sn_mask_size(&def, &err);
    if (need == 0) {
        FUZZ_CHECK(err.msg[0] != '\0' && err.arg == 1);
        return NULL;
    }
    mem = malloc(need);
    FUZZ_CHECK(mem != NULL && sn_mask_init(mem, need, &def, &err) == SN_OK);
    *out = (sn_mask *)mem;
    for (m = 0; m < sn_skeleton_morph_count(s); m++) {
        const float f = sn_mask_get_morph(*out, m);
        FUZZ_CHECK(f >= 0.0f && f <= 1.0f);
    }
    return mem;
}

/* a clip of weight tracks from the input (times and values anything; other paths too), or NULL
   when refused (with a message) */
static void *new_clip(const sn_skeleton *s, reader *r, sn_clip **out, float *lo, float *hi) {
    static float times[MAXM][4], values[MAXM][12];
    sn_clip_track_def tracks[MAXM];
    sn_clip_def def;
    sn_error err;
    size_t need;
    void *mem;
    int i, k, n = read_int(r, 0, MAXM);
    for (i = 0; i < n; i++) {
        const int keys = read_int(r, 1, 4);
        float t = 0.0f;
        memset(&tracks[i], 0, sizeof tracks[i]);
        tracks[i].joint = read_byte(r) < 240u ? i % (sn_skeleton_morph_count(s) + 1) : read_int(r, -2, MAXM + 2);
        tracks[i].path = read_byte(r) < 240u ? SN_CLIP_WEIGHT : (sn_clip_path)read_int(r, 0, 4);
        tracks[i].interpolation = (sn_clip_interpolation)read_int(r, 0, read_byte(r) < 250u ? 2 : 3);
        tracks[i].keys = keys;
        for (k = 0; k < keys; k++) {
            t += read_byte(r) < 240u ? (float)read_int(r, 1, 8) * 0.125f : (float)read_number(r);
            times[i][k] = t;
        }
        for (k = 0; k < 12; k++) values[i][k] = read_byte(r) < 240u ? (float)read_int(r, -8, 8) * 0.25f : (float)read_number(r);
        tracks[i].times = times[i];
        tracks[i].values = values[i];
    }
    sn_clip_def_init(&def);
    def.skeleton = s;
    def.duration = read_byte(r) < 128u ? 4.0f : 1.0f;
    def.track_count = n;
    def.tracks = tracks;
    need = sn_clip_size(&def, &err);
    if (need == 0) {
        FUZZ_CHECK(err.msg[0] != '\0');
        return NULL;
    }
    mem = malloc(need);
    FUZZ_CHECK(mem != NULL && sn_clip_init(mem, need, &def, &err) == SN_OK);
    *out = (sn_clip *)mem;
    /* the range of what a linear or step track (and a morph without a track) can give */
    for (k = 0; k < sn_skeleton_morph_count(s); k++) lo[k] = hi[k] = sn_skeleton_morph_defaults(s)[k];
    for (i = 0; i < n; i++) {
        const int m = tracks[i].joint;
        if (tracks[i].path != SN_CLIP_WEIGHT) continue;
        if (tracks[i].interpolation == SN_CLIP_CUBIC) {
            lo[m] = -INFINITY, hi[m] = INFINITY;
            continue;
        }
        lo[m] = hi[m] = values[i][0];
        for (k = 1; k < tracks[i].keys; k++) {
            if (values[i][k] < lo[m]) lo[m] = values[i][k];
            if (values[i][k] > hi[m]) hi[m] = values[i][k];
        }
    }
    return mem;
}

/* the joints and morphs of a pose, for "nothing written" */
static void snapshot(const sn_pose *p, float *v) {
    const int mc = sn_skeleton_morph_count(sn_pose_skeleton(p));
    fuzz_snapshot(p, v);
    memcpy(v + 20, sn_pose_morphs_const(p), sizeof(float) * (size_t)mc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    sn_skeleton *skel = NULL;
    void *smem = build_skeleton(&r, &skel), *pmem[LAYERS], *mmem[LAYERS], *dmem, *cmem;
    sn_pose *poses[LAYERS], *delta;
    sn_mask *masks[LAYERS];
    sn_clip *clip = NULL;
    sn_blend_layer layers[LAYERS];
    sn_error err;
    float before[20 + MAXM], after[20 + MAXM], lo[MAXM], hi[MAXM];
    int i, m, round, mc;
    if (smem == NULL) return 0;
    mc = sn_skeleton_morph_count(skel);
    for (i = 0; i < LAYERS; i++) {
        pmem[i] = new_pose(skel, &r, &poses[i]);
        masks[i] = NULL;
        mmem[i] = new_mask(skel, &r, &masks[i]);
    }
    dmem = new_pose(skel, &r, &delta);
    cmem = new_clip(skel, &r, &clip, lo, hi);
    for (round = 0; round < 8; round++) {
        const unsigned op = read_byte(&r) % 5u;
        sn_status st = SN_OK;
        sn_pose *out = poses[read_int(&r, 0, LAYERS - 1)];
        memset(before, 0, sizeof before);
        memset(after, 0, sizeof after);
        snapshot(out, before);
        if (op == 0) { /* blend: the result between the least and the largest it averages */
            const int count = read_int(&r, 0, LAYERS);
            const float threshold = read_byte(&r) < 200u ? SN_BLEND_THRESHOLD : (float)read_number(&r);
            float wlo[MAXM], whi[MAXM];
            for (m = 0; m < mc; m++) wlo[m] = whi[m] = sn_skeleton_morph_defaults(skel)[m];
            for (i = 0; i < count; i++) {
                layers[i].pose = poses[i];
                layers[i].weight = (float)read_number(&r);
                layers[i].mask = (read_byte(&r) & 1u) ? masks[i] : NULL;
                for (m = 0; m < mc; m++) {
                    const float v = sn_pose_morphs(poses[i])[m];
                    if (v < wlo[m]) wlo[m] = v;
                    if (v > whi[m]) whi[m] = v;
                }
            }
            st = sn_pose_blend_method(out, layers, count, threshold, (sn_blend_method)read_int(&r, 0, 3), &err);
            if (st == SN_OK)
                for (m = 0; m < mc; m++) {
                    const float v = sn_pose_morphs(out)[m], slack = 1e-5f * (fabsf(wlo[m]) + fabsf(whi[m]) + 1.0f);
                    FUZZ_CHECK(v >= wlo[m] - slack && v <= whi[m] + slack);
                }
        } else if (op == 1) { /* an additive layer of any weight */
            st = sn_pose_add(out, delta, (float)read_number(&r), masks[read_int(&r, 0, LAYERS - 1)], &err);
        } else if (op == 2) { /* a delta */
            st = sn_pose_delta(poses[read_int(&r, 0, LAYERS - 1)], delta, out, &err);
        } else if (op == 3) { /* a mask's morph factor */
            sn_mask *mk = masks[read_int(&r, 0, LAYERS - 1)];
            if (mk != NULL) {
                const int k = read_int(&r, -1, mc);
                const float f = (float)read_weight(&r), was = sn_mask_get_morph(mk, k);
                if (sn_mask_set_morph(mk, k, f, &err) == SN_OK) FUZZ_CHECK(sn_mask_get_morph(mk, k) == f);
                else FUZZ_CHECK(err.msg[0] != '\0' && sn_mask_get_morph(mk, k) == was);
            }
        } else if (clip != NULL) { /* a sample at any time */
            const double t = read_number(&r);
            st = sn_clip_sample(clip, t, (int)(read_byte(&r) & 1u), out, &err);
            if (st == SN_OK)
                for (m = 0; m < mc; m++) {
                    const float v = sn_pose_morphs(out)[m], slack = 1e-5f * (fabsf(lo[m]) + fabsf(hi[m]) + 1.0f);
                    FUZZ_CHECK(v >= lo[m] - slack && v <= hi[m] + slack);
                }
        }
        if (st != SN_OK) {
            FUZZ_CHECK(err.msg[0] != '\0');
            snapshot(out, after);
            FUZZ_CHECK(memcmp(before, after, sizeof before) == 0); /* nothing written */
        } else {
            for (m = 0; m < mc; m++) FUZZ_CHECK(sn_isfinite(sn_pose_morphs(out)[m]));
        }
    }
    for (i = 0; i < LAYERS; i++) {
        free(pmem[i]);
        free(mmem[i]);
    }
    free(dmem);
    free(cmem);
    free(smem);
    return 0;
}
