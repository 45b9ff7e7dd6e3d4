/* Fuzzes poses, masks and matrix sets through their lifecycle (def_init, validate, size, init)
   and the per-frame calls on them: any definition is either refused with a message or builds an
   object; blend, add, delta and to_matrices either refuse (with a message, writing nothing) or
   give finite poses with unit rotations and finite matrices. Values come as the Lua binding
   passes them: finite floats, rotations normalised; weights anything at all. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pose.h"
#include "reader.h"
#include "poses.h"
#include "skeleton.h"

#define MAXJ 6
#define LAYERS 3

static void *build_skeleton(reader *r, sn_skeleton **out) {
    static const char *const names[MAXJ] = {"a", "b", "c", "d", "e", "f"};
    int parents[MAXJ], i, n = read_int(r, 1, MAXJ);
    for (i = 0; i < n; i++) parents[i] = i == 0 ? -1 : read_int(r, -1, i - 1);
    return fuzz_new_skeleton(n, parents, names, out);
}

/* a finite float from the input, as the binding would pass it */
static float read_finite_float(reader *r) {
    double v = read_number(r);
    return sn_isfinite(v) && fabs(v) < 1e30 ? (float)v : 0.5f;
}

/* a pose of `s` with values from the input */
static void *new_pose(const sn_skeleton *s, reader *r, sn_pose **out) {
    void *mem = fuzz_new_pose(s, out);
    int j, c;
    for (j = 0; j < sn_skeleton_count(s); j++) {
        float trs[10];
        double l = 0;
        for (c = 0; c < 10; c++) trs[c] = read_finite_float(r);
        for (c = 3; c < 7; c++) l += (double)trs[c] * trs[c];
        l = sqrt(l);
        if (!(l > 1e-6)) {
            trs[3] = trs[4] = trs[5] = 0;
            trs[6] = 1;
            l = 1;
        }
        for (c = 3; c < 7; c++) trs[c] = (float)(trs[c] / l);
        sn_pose_set(*out, j, trs);
    }
    return mem;
}

/* a mask from the input, or NULL when its definition is refused (checked to say why) */
static void *new_mask(const sn_skeleton *s, reader *r, sn_mask **out) {
    float weights[MAXJ];
    sn_mask_def def;
    sn_error err;
    size_t need;
    void *mem;
    int j;
    sn_mask_def_init(&def);
    def.skeleton = read_byte(r) < 8u ? NULL : s;
    def.weight = (float)read_number(r);
    for (j = 0; j < MAXJ; j++) weights[j] = (float)read_number(r);
    if (read_byte(r) & 1u) def.weights = weights;
    need = sn_mask_size(&def, &err);
    if (sn_mask_validate(&def, &err) != SN_OK) {
        FUZZ_CHECK(need == 0 && err.msg[0] != '\0' && err.arg == 1);
        return NULL;
    }
    mem = malloc(need);
    FUZZ_CHECK(mem != NULL && sn_mask_init(mem, need, &def, &err) == SN_OK);
    *out = (sn_mask *)mem;
    for (j = 0; j < sn_skeleton_count(s); j++) {
        float w = sn_mask_get(*out, j);
        FUZZ_CHECK(w >= 0.0f && w <= 1.0f);
    }
    return mem;
}

/* every value of a snapshot within 1e4 in magnitude: the model matrices of up to MAXJ joints
   cannot leave the float range */
static int modest(const float *v, int n) {
    int i;
    for (i = 0; i < 10 * n; i++)
        if (!(fabsf(v[i]) <= 1e4f)) return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    sn_skeleton *skel = NULL, *other = NULL;
    void *smem = build_skeleton(&r, &skel), *omem = build_skeleton(&r, &other);
    void *pmem[LAYERS], *mmem[LAYERS], *xmem, *delta_mem, *foreign_mem;
    sn_pose *poses[LAYERS], *delta, *foreign;
    sn_mask *masks[LAYERS];
    sn_matrices *mats;
    sn_matrices_def xd;
    sn_blend_layer layers[LAYERS];
    sn_error err;
    float before[10 * MAXJ], after[10 * MAXJ];
    size_t need;
    int i, round, n = sn_skeleton_count(skel);
    for (i = 0; i < LAYERS; i++) {
        pmem[i] = new_pose(skel, &r, &poses[i]);
        masks[i] = NULL;
        mmem[i] = new_mask(skel, &r, &masks[i]);
    }
    delta_mem = new_pose(skel, &r, &delta);
    foreign_mem = new_pose(other, &r, &foreign);
    sn_matrices_def_init(&xd);
    xd.skeleton = skel;
    need = sn_matrices_size(&xd, &err);
    xmem = malloc(need);
    FUZZ_CHECK(xmem != NULL && sn_matrices_init(xmem, need, &xd, &err) == SN_OK);
    mats = (sn_matrices *)xmem;
    for (round = 0; round < 6; round++) {
        const unsigned op = read_byte(&r) % 5u;
        sn_status st = SN_OK;
        sn_pose *out = poses[read_int(&r, 0, LAYERS - 1)];
        fuzz_snapshot(out, before);
        if (op == 0) { /* blend: weights, threshold and method anything; sometimes a foreign layer */
            int count = read_int(&r, 0, LAYERS);
            for (i = 0; i < count; i++) {
                layers[i].pose = read_byte(&r) < 16u ? foreign : poses[i];
                layers[i].weight = (float)read_number(&r);
                layers[i].mask = (read_byte(&r) & 1u) ? masks[i] : NULL;
            }
            /* by nlerp, or by one of the per-joint averages (an unknown method now and then) */
            st = sn_pose_blend_method(out, layers, count,
                                      read_byte(&r) < 200u ? SN_BLEND_THRESHOLD : (float)read_number(&r),
                                      (sn_blend_method)read_int(&r, 0, 4), &err);
        } else if (op == 1) { /* an additive layer of any finite weight */
            double w = read_number(&r);
            st = sn_pose_add(out, read_byte(&r) < 16u ? foreign : delta, sn_isfinite(w) && fabs(w) < 1e30 ? (float)w : NAN,
                             masks[read_int(&r, 0, LAYERS - 1)], &err);
        } else if (op == 2) { /* a delta against another pose */
            st = sn_pose_delta(poses[read_int(&r, 0, LAYERS - 1)], read_byte(&r) < 16u ? foreign : delta, out, &err);
        } else if (op == 3) { /* a mask's joint, or its subtree */
            sn_mask *m = masks[read_int(&r, 0, LAYERS - 1)];
            if (m != NULL) {
                sn_status ms = sn_mask_set(m, read_int(&r, -1, n), (float)read_number(&r), (int)(read_byte(&r) & 1u), &err);
                FUZZ_CHECK(ms == SN_OK || err.msg[0] != '\0');
            }
        } else { /* model-space matrices: finite while products along the hierarchy fit a float */
            st = sn_pose_to_matrices(read_byte(&r) < 16u ? foreign : out, mats, &err);
            if (st == SN_OK && modest(before, n)) {
                const float *m = sn_matrices_data(mats);
                for (i = 0; i < 16 * n; i++) FUZZ_CHECK(sn_isfinite(m[i]));
            }
        }
        if (st != SN_OK) {
            FUZZ_CHECK(err.msg[0] != '\0');
            fuzz_snapshot(out, after);
            FUZZ_CHECK(memcmp(before, after, sizeof(float) * 10 * (size_t)n) == 0); /* nothing written */
        } else if (op != 4) {
            fuzz_check_pose(out);
        }
    }
    for (i = 0; i < LAYERS; i++) {
        free(pmem[i]);
        free(mmem[i]);
    }
    free(xmem);
    free(delta_mem);
    free(foreign_mem);
    free(omem);
    free(smem);
    return 0;
}
