/* Fuzzes foot placement (src/core/ik_feet.c) through its lifecycle (def_init, validate, size,
   init, setters, reset) and its two-phase solves with arbitrary numbers: any definition is either
   refused with a message (and size 0) or builds a solver; a prepare either refuses or gives finite
   points; a solve either refuses (with a message, writing nothing, the state kept) or writes only
   the pelvis's translation and the legs' rotations, finite (rotations of unit length); weight 0
   writes nothing. Poses hold anything a pose can hold; grounds are any numbers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ik.h"
#include "pose.h"
#include "reader.h"
#include "poses.h"
#include "skeleton.h"

#define MAXJ 12

static void *build_skeleton(reader *r, sn_skeleton **out) {
    static const char *const names[MAXJ] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"};
    int parents[MAXJ], i, n = read_int(r, 1, MAXJ);
    /* mostly a hips joint with lines below it (legs are then common), sometimes any parent */
    for (i = 0; i < n; i++) {
        unsigned tag = read_byte(r);
        parents[i] = i == 0 ? -1 : tag < 120u ? i - 1 : tag < 200u ? 0 : read_int(r, -1, i - 1);
    }
    return fuzz_new_skeleton(n, parents, names, out);
}

/* after a solve that succeeded: only the pelvis's translation and the legs' rotations changed,
   each finite (rotations unit) */
static void check_written(const float *before, const sn_pose *p, const sn_ik_feet *ik) {
    float after[10 * MAXJ];
    int j, c, l, k, n = sn_skeleton_count(sn_pose_skeleton(p)), pelvis = sn_ik_feet_pelvis(ik);
    fuzz_snapshot(p, after);
    for (j = 0; j < n; j++) {
        int leg = 0;
        for (l = 0; l < sn_ik_feet_count(ik); l++)
            for (k = 0; k < 3; k++) leg |= sn_ik_feet_joint(ik, l, k) == j;
        for (c = 0; c < 10; c++) {
            int changed = memcmp(&before[10 * j + c], &after[10 * j + c], sizeof(float)) != 0;
            if (!changed) continue;
            FUZZ_CHECK((c < 3 && j == pelvis) || (c >= 3 && c < 7 && leg));
            FUZZ_CHECK(sn_isfinite(after[10 * j + c]));
        }
        if (leg && memcmp(&before[10 * j + 3], &after[10 * j + 3], 4 * sizeof(float)) != 0) {
            double q = 0;
            for (c = 3; c < 7; c++) q += (double)after[10 * j + c] * after[10 * j + c];
            FUZZ_CHECK(fabs(sqrt(q) - 1.0) < 1e-5);
        }
    }
}

/* the state: its own always goes back unchanged; arbitrary numbers are refused (the state kept)
   or read back as given (the hinges of legs whose definition gave one aside) */
static void fuzz_state(reader *r, sn_ik_feet *ik) {
    double own[4 + 9 * SN_IK_FEET_MAX], in[4 + 9 * SN_IK_FEET_MAX], out[4 + 9 * SN_IK_FEET_MAX];
    int n = sn_ik_feet_state_count(ik), i;
    sn_error err;
    sn_ik_feet_state(ik, own);
    FUZZ_CHECK(sn_ik_feet_set_state(ik, own, &err) == SN_OK);
    sn_ik_feet_state(ik, out);
    FUZZ_CHECK(memcmp(own, out, (size_t)n * sizeof(double)) == 0);
    for (i = 0; i < n; i++) {
        unsigned b = read_byte(r);
        in[i] = b < 128u ? own[i] : b < 160u ? read_raw(r) : read_number(r);
    }
    memset(&err, 0, sizeof err);
    if (sn_ik_feet_set_state(ik, in, &err) != SN_OK) {
        FUZZ_CHECK(err.msg[0] != '\0' && err.arg == 1);
        sn_ik_feet_state(ik, out);
        FUZZ_CHECK(memcmp(own, out, (size_t)n * sizeof(double)) == 0);
        return;
    }
    sn_ik_feet_state(ik, out);
    FUZZ_CHECK(in[0] == out[0]); /* (-0 reads back as 0) */
    for (i = 1; i < 10; i++) FUZZ_CHECK(memcmp(&in[i], &out[i], sizeof in[i]) == 0);
    for (i = 0; i < n; i++) FUZZ_CHECK(sn_isfinite(out[i]));
}

static void fuzz_feet(reader *r, const sn_skeleton *s, sn_pose *pose, sn_pose *foreign) {
    sn_ik_feet_def def;
    sn_error err;
    void *mem;
    int l, i, round, n = sn_skeleton_count(s);
    sn_ik_feet_def_init(&def);
    def.skeleton = read_byte(r) < 8u ? NULL : s;
    def.pelvis = read_byte(r) < 200u ? 0 : read_int(r, -1, n);
    def.count = read_byte(r) < 240u ? read_int(r, 1, 4) : read_int(r, -1, SN_IK_FEET_MAX + 1);
    for (l = 0; l < SN_IK_FEET_MAX && l < def.count; l++) {
        if (read_byte(r) < 220u) { /* a chain ending at a random joint */
            int tip = read_int(r, 0, n - 1);
            def.legs[l][2] = tip;
            def.legs[l][1] = sn_skeleton_parent(s, tip);
            def.legs[l][0] = def.legs[l][1] >= 0 ? sn_skeleton_parent(s, def.legs[l][1]) : -1;
        } else {
            for (i = 0; i < 3; i++) def.legs[l][i] = read_int(r, -2, n);
        }
        if (read_byte(r) < 64u) def.mid_axis[l] = read_vec(r);
    }
    if (read_byte(r) < 64u) def.up = read_vec(r);
    if (read_byte(r) < 64u) def.max_drop = read_number(r);
    if (read_byte(r) < 64u) def.normal_limit = read_number(r);
    if (read_byte(r) < 64u) def.smoothing = read_number(r);
    FUZZ_NEW(ik_feet, &def, &err, mem);
    if (mem == NULL) return;
    for (round = 0; round < 6; round++) {
        sn_ik_feet *ik = (sn_ik_feet *)mem;
        float before[10 * MAXJ];
        double points[3 * SN_IK_FEET_MAX], ground[4 * SN_IK_FEET_MAX], dt, weight, offset;
        sn_pose *p = read_byte(r) < 8u ? foreign : pose;
        unsigned tag = read_byte(r);
        sn_status st;
        if (tag < 16u) (void)sn_ik_feet_set_max_drop(ik, read_number(r), &err);
        else if (tag < 32u) (void)sn_ik_feet_set_normal_limit(ik, read_number(r), &err);
        else if (tag < 48u) (void)sn_ik_feet_set_smoothing(ik, read_number(r), &err);
        else if (tag < 56u) sn_ik_feet_reset(ik);
        else if (tag < 72u) fuzz_state(r, ik);
        memset(&err, 0, sizeof err);
        st = sn_ik_feet_prepare(ik, p, points, &err);
        if (p == foreign) FUZZ_CHECK(st != SN_OK);
        if (st != SN_OK) {
            FUZZ_CHECK(err.msg[0] != '\0' && err.arg == 1);
            continue;
        }
        for (i = 0; i < 3 * sn_ik_feet_count(ik); i++) FUZZ_CHECK(fabs(points[i]) <= SN_IK_MAX_COORD);
        for (i = 0; i < 4 * sn_ik_feet_count(ik); i++) ground[i] = read_byte(r) < 16u ? read_raw(r) : read_number(r);
        dt = read_byte(r) < 240u ? read_int(r, 0, 100) * 0.005 : read_number(r);
        weight = read_byte(r) < 200u ? read_int(r, 0, 4) * 0.25 : read_number(r);
        offset = sn_ik_feet_offset(ik);
        fuzz_snapshot(pose, before);
        memset(&err, 0, sizeof err);
        st = sn_ik_feet_solve(ik, pose, ground, dt, weight, NULL, &err);
        if (st != SN_OK) {
            FUZZ_CHECK(err.msg[0] != '\0' && err.arg >= 1 && err.arg <= 4);
            fuzz_check_unchanged(before, pose);
            FUZZ_CHECK(memcmp(&offset, &(double){sn_ik_feet_offset(ik)}, sizeof offset) == 0);
            continue;
        }
        FUZZ_CHECK(sn_isfinite(sn_ik_feet_offset(ik)));
        if (weight == 0.0) fuzz_check_unchanged(before, pose);
        check_written(before, pose, ik);
        /* a second solve without a prepare is refused */
        FUZZ_CHECK(sn_ik_feet_solve(ik, pose, ground, dt, 1.0, NULL, &err) == SN_EINVAL);
    }
    free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    fuzz_scene sc;
    int round;
    fuzz_scene_init(&sc, &r, build_skeleton, 160u, 0);
    for (round = 0; round < 2; round++) fuzz_feet(&r, sc.skel, sc.pose, sc.foreign);
    fuzz_scene_free(&sc);
    return 0;
}
