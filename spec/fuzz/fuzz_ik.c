/* Fuzzes the IK solvers (src/core/ik*.c) through their lifecycle (def_init, validate, size, init)
   and their solves with arbitrary numbers: any definition is either refused with a message (and
   size 0) or builds a solver; a solve either refuses (with a message, writing nothing) or writes
   only the rotations of its own joints, finite and of unit length; weight 0 writes nothing. Poses
   hold anything a pose can hold: finite values mostly, now and then NaN, infinities, huge values
   and zero rotations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ik.h"
#include "pose.h"
#include "reader.h"
#include "poses.h"
#include "skeleton.h"

#define MAXJ 8

static void *build_skeleton(reader *r, sn_skeleton **out) {
    static const char *const names[MAXJ] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    int parents[MAXJ], i, n = read_int(r, 1, MAXJ);
    /* mostly a line (chains are then common), sometimes any parent */
    for (i = 0; i < n; i++) parents[i] = i == 0 ? -1 : read_byte(r) < 160u ? i - 1 : read_int(r, -1, i - 1);
    return fuzz_new_skeleton(n, parents, names, out);
}

/* a float as a pose may hold it: the number as read (NaN, infinite, huge or tiny now and then) */
static float read_float(reader *r) { return (float)read_number(r); }

static void fill_pose(sn_pose *p, reader *r) {
    int j, c, n = sn_skeleton_count(sn_pose_skeleton(p));
    for (j = 0; j < n; j++) {
        float trs[10];
        double l = 0;
        for (c = 0; c < 10; c++) trs[c] = read_float(r);
        for (c = 3; c < 7; c++) l += (double)trs[c] * trs[c];
        l = sqrt(l);
        if (read_byte(r) < 200u && l > 1e-6 && sn_isfinite(l)) /* mostly unit, as the binding keeps them */
            for (c = 3; c < 7; c++) trs[c] = (float)(trs[c] / l);
        sn_pose_set(p, j, trs);
    }
}

static void snapshot(const sn_pose *p, float *out) {
    int j, n = sn_skeleton_count(sn_pose_skeleton(p));
    for (j = 0; j < n; j++) sn_pose_get(p, j, out + 10 * j);
}

/* after a solve that succeeded: everything as before but the rotations of the joints in `js`
   (count k), which are finite and unit (or untouched) */
static void check_written(const float *before, const sn_pose *p, const int *js, int k) {
    float after[10 * MAXJ];
    int j, c, i, n = sn_skeleton_count(sn_pose_skeleton(p));
    snapshot(p, after);
    for (j = 0; j < n; j++) {
        int mine = 0;
        for (i = 0; i < k; i++) mine |= js[i] == j;
        for (c = 0; c < 10; c++) {
            if (mine && c >= 3 && c < 7) continue;
            FUZZ_CHECK(memcmp(&before[10 * j + c], &after[10 * j + c], sizeof(float)) == 0);
        }
        if (mine && memcmp(&before[10 * j + 3], &after[10 * j + 3], 4 * sizeof(float)) != 0) {
            double l = 0;
            for (c = 3; c < 7; c++) {
                FUZZ_CHECK(sn_isfinite(after[10 * j + c]));
                l += (double)after[10 * j + c] * after[10 * j + c];
            }
            FUZZ_CHECK(fabs(sqrt(l) - 1.0) < 1e-5);
        }
    }
}

static sn_vec3 read_vec(reader *r) {
    sn_vec3 v;
    v.x = read_number(r);
    v.y = read_number(r);
    v.z = read_number(r);
    return v;
}

/* a weight: mostly in [0, 1] (0 and 1 often), sometimes anything */
static double read_weight(reader *r) {
    unsigned tag = read_byte(r);
    if (tag < 64u) return 0.0;
    if (tag < 128u) return 1.0;
    if (tag < 224u) return (tag - 128u) / 96.0;
    return read_number(r);
}

static void check_solve(sn_status st, const sn_error *err, const float *before, const sn_pose *p, double weight,
                        const int *js, int k) {
    float after[10 * MAXJ];
    int n = sn_skeleton_count(sn_pose_skeleton(p));
    if (st != SN_OK) {
        FUZZ_CHECK(err->msg[0] != '\0' && err->arg >= 1 && err->arg <= 4);
        snapshot(p, after);
        FUZZ_CHECK(memcmp(before, after, sizeof(float) * 10 * (size_t)n) == 0);
        return;
    }
    if (weight == 0.0) {
        snapshot(p, after);
        FUZZ_CHECK(memcmp(before, after, sizeof(float) * 10 * (size_t)n) == 0);
    }
    check_written(before, p, js, k);
}

static void fuzz_two_bone(reader *r, const sn_skeleton *s, sn_pose *pose, sn_pose *foreign) {
    sn_ik_two_bone_def def;
    sn_error err;
    size_t need;
    void *mem;
    int i, round, n = sn_skeleton_count(s);
    sn_ik_two_bone_def_init(&def);
    def.skeleton = read_byte(r) < 8u ? NULL : s;
    if (read_byte(r) < 200u) { /* a chain ending at a random joint, when it has two ancestors */
        int tip = read_int(r, 0, n - 1);
        def.joints[2] = tip;
        def.joints[1] = sn_skeleton_parent(s, tip);
        def.joints[0] = def.joints[1] >= 0 ? sn_skeleton_parent(s, def.joints[1]) : -1;
    } else {
        for (i = 0; i < 3; i++) def.joints[i] = read_int(r, -2, n);
    }
    if (read_byte(r) < 128u) def.mid_axis = read_vec(r);
    if (read_byte(r) < 128u) def.soften = read_number(r);
    if (read_byte(r) < 128u) def.twist = read_number(r);
    need = sn_ik_two_bone_size(&def, &err);
    if (sn_ik_two_bone_validate(&def, &err) != SN_OK) {
        FUZZ_CHECK(need == 0 && err.msg[0] != '\0' && err.arg == 1);
        return;
    }
    FUZZ_CHECK(need > 0);
    mem = malloc(need);
    FUZZ_CHECK(mem != NULL && sn_ik_two_bone_init(mem, need, &def, &err) == SN_OK);
    for (round = 0; round < 4; round++) {
        const sn_ik_two_bone *ik = (const sn_ik_two_bone *)mem;
        float before[10 * MAXJ];
        sn_vec3 target = read_vec(r), pole = read_vec(r);
        double weight = read_weight(r);
        sn_pose *p = read_byte(r) < 8u ? foreign : pose;
        sn_status st;
        if (read_byte(r) < 32u) (void)sn_ik_two_bone_set_soften((sn_ik_two_bone *)mem, read_number(r), &err);
        if (read_byte(r) < 32u) (void)sn_ik_two_bone_set_twist((sn_ik_two_bone *)mem, read_number(r), &err);
        snapshot(pose, before);
        memset(&err, 0, sizeof err);
        st = sn_ik_two_bone_solve(ik, p, &target, &pole, weight, NULL, &err);
        if (p == foreign) FUZZ_CHECK(st != SN_OK);
        check_solve(st, &err, before, pose, weight, def.joints, 2);
    }
    free(mem);
}

static void fuzz_aim(reader *r, const sn_skeleton *s, sn_pose *pose) {
    sn_ik_aim_def def;
    sn_error err;
    size_t need;
    void *mem;
    int round, n = sn_skeleton_count(s);
    sn_ik_aim_def_init(&def);
    def.skeleton = read_byte(r) < 8u ? NULL : s;
    def.joint = read_int(r, -1, n);
    if (read_byte(r) < 128u) def.forward = read_vec(r);
    if (read_byte(r) < 128u) def.up = read_vec(r);
    if (read_byte(r) < 128u) def.offset = read_vec(r);
    if (read_byte(r) < 128u) def.limit = read_number(r);
    if (read_byte(r) < 64u) def.twist = read_number(r);
    if (read_byte(r) < 96u) def.effector = read_int(r, -2, n);
    need = sn_ik_aim_size(&def, &err);
    if (sn_ik_aim_validate(&def, &err) != SN_OK) {
        FUZZ_CHECK(need == 0 && err.msg[0] != '\0' && err.arg == 1);
        return;
    }
    mem = malloc(need);
    FUZZ_CHECK(mem != NULL && sn_ik_aim_init(mem, need, &def, &err) == SN_OK);
    for (round = 0; round < 4; round++) {
        float before[10 * MAXJ];
        sn_vec3 target = read_vec(r), up = read_vec(r);
        double weight = read_weight(r);
        sn_status st;
        if (read_byte(r) < 32u) (void)sn_ik_aim_set_limit((sn_ik_aim *)mem, read_number(r), &err);
        snapshot(pose, before);
        memset(&err, 0, sizeof err);
        st = sn_ik_aim_solve((const sn_ik_aim *)mem, pose, &target, read_byte(r) < 128u ? &up : NULL, weight, NULL, &err);
        check_solve(st, &err, before, pose, weight, &def.joint, 1);
    }
    free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    sn_skeleton *skel = NULL, *other = NULL;
    sn_pose *pose, *foreign;
    void *smem = build_skeleton(&r, &skel), *omem = build_skeleton(&r, &other);
    void *pmem = fuzz_new_pose(skel, &pose), *fmem = fuzz_new_pose(other, &foreign);
    int round;
    if (read_byte(&r) < 192u) fill_pose(pose, &r);
    for (round = 0; round < 3; round++) {
        if (read_byte(&r) & 1u) fuzz_two_bone(&r, skel, pose, foreign);
        else fuzz_aim(&r, skel, pose);
    }
    free(pmem);
    free(fmem);
    free(omem);
    free(smem);
    return 0;
}
