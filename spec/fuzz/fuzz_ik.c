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

static void check_solve(sn_status st, const sn_error *err, const float *before, const sn_pose *p, double weight,
                        const int *js, int k) {
    if (st != SN_OK) {
        FUZZ_CHECK(err->msg[0] != '\0' && err->arg >= 1 && err->arg <= 4);
        fuzz_check_unchanged(before, p);
        return;
    }
    if (weight == 0.0) fuzz_check_unchanged(before, p);
    fuzz_check_written(before, p, js, k);
}

static void fuzz_two_bone(reader *r, const sn_skeleton *s, sn_pose *pose, sn_pose *foreign) {
    sn_ik_two_bone_def def;
    sn_error err;
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
    FUZZ_NEW(ik_two_bone, &def, &err, mem);
    if (mem == NULL) return;
    for (round = 0; round < 4; round++) {
        const sn_ik_two_bone *ik = (const sn_ik_two_bone *)mem;
        float before[10 * MAXJ];
        sn_vec3 target = read_vec(r), pole = read_vec(r);
        double weight = read_weight(r);
        sn_pose *p = read_byte(r) < 8u ? foreign : pose;
        sn_status st;
        if (read_byte(r) < 32u) (void)sn_ik_two_bone_set_soften((sn_ik_two_bone *)mem, read_number(r), &err);
        if (read_byte(r) < 32u) (void)sn_ik_two_bone_set_twist((sn_ik_two_bone *)mem, read_number(r), &err);
        fuzz_snapshot(pose, before);
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
    FUZZ_NEW(ik_aim, &def, &err, mem);
    if (mem == NULL) return;
    for (round = 0; round < 4; round++) {
        float before[10 * MAXJ];
        sn_vec3 target = read_vec(r), up = read_vec(r);
        double weight = read_weight(r);
        sn_status st;
        if (read_byte(r) < 32u) (void)sn_ik_aim_set_limit((sn_ik_aim *)mem, read_number(r), &err);
        fuzz_snapshot(pose, before);
        memset(&err, 0, sizeof err);
        st = sn_ik_aim_solve((const sn_ik_aim *)mem, pose, &target, read_byte(r) < 128u ? &up : NULL, weight, NULL, &err);
        check_solve(st, &err, before, pose, weight, &def.joint, 1);
    }
    free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    fuzz_scene sc;
    int round;
    fuzz_scene_init(&sc, &r, build_skeleton, 192u, 0);
    for (round = 0; round < 3; round++) {
        if (read_byte(&r) & 1u) fuzz_two_bone(&r, sc.skel, sc.pose, sc.foreign);
        else fuzz_aim(&r, sc.skel, sc.pose);
    }
    fuzz_scene_free(&sc);
    return 0;
}
