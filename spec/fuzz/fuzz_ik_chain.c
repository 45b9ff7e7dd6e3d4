/* Fuzzes the chain IK solver (src/core/ik_chain.c) through its lifecycle (def_init, validate,
   size, init) and its solves with arbitrary numbers: any definition (joints, method, iterations,
   tolerance, limits of every kind with any angles and axes) is either refused with a message (and
   size 0) or builds a solver; a solve either refuses (with a message, writing nothing) or writes
   only the rotations of its joints before the tip, finite and of unit length, and reports a
   finite distance left; weight 0 writes nothing; a solve of the same input twice gives the same
   bits. Skeletons have random rest poses (zero-length bones among them) and poses hold anything
   a pose can hold. */
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
    int parents[MAXJ], i, c, n = read_int(r, 1, MAXJ);
    float rest[10 * MAXJ];
    sn_skeleton_def def;
    size_t need;
    void *mem;
    for (i = 0; i < n; i++) {
        double l = 0;
        parents[i] = i == 0 ? -1 : read_byte(r) < 200u ? i - 1 : read_int(r, -1, i - 1);
        for (c = 0; c < 10; c++) {
            float v = read_float(r);
            rest[10 * i + c] = sn_isfinite(v) && fabsf(v) < 1e6f ? v : 0.5f; /* a skeleton refuses non-finite rests */
        }
        for (c = 3; c < 7; c++) l += (double)rest[10 * i + c] * rest[10 * i + c];
        if (!(l > 1e-12)) rest[10 * i + 6] = 1.0f;
    }
    sn_skeleton_def_init(&def);
    def.count = n;
    def.parents = parents;
    def.names = names;
    def.rest = read_byte(r) < 32u ? NULL : rest;
    need = sn_skeleton_size(&def, NULL);
    FUZZ_CHECK(need > 0);
    mem = malloc(need);
    FUZZ_CHECK(mem != NULL && sn_skeleton_init(mem, need, &def, NULL) == SN_OK);
    *out = (sn_skeleton *)mem;
    return mem;
}

/* an angle: mostly within [-pi, pi], sometimes anything */
static double read_angle(reader *r) {
    unsigned tag = read_byte(r);
    if (tag < 224u) return (tag / 223.0 * 2.0 - 1.0) * 3.14159265358979323846;
    return read_number(r);
}

static void read_limit(reader *r, const int *joints, int count, sn_ik_limit *l) {
    unsigned tag = read_byte(r);
    sn_ik_limit_init(l, tag < 240u ? joints[read_int(r, 0, count - 1)] : read_int(r, -2, MAXJ));
    tag = read_byte(r);
    l->kind = tag < 80u ? (unsigned)SN_IK_HINGE : tag < 250u ? (unsigned)read_int(r, 1, 3) << 1 : tag;
    if (read_byte(r) < 200u) l->axis = read_vec(r);
    l->min = read_angle(r);
    l->max = read_byte(r) < 200u ? l->min + fabs(read_angle(r)) : read_angle(r);
    l->cone = fabs(read_angle(r));
    l->twist_min = read_angle(r);
    l->twist_max = read_byte(r) < 200u ? l->twist_min + fabs(read_angle(r)) : read_angle(r);
}

static void fuzz_chain(reader *r, const sn_skeleton *s, sn_pose *pose, sn_pose *copy, sn_pose *foreign) {
    sn_ik_chain_def def;
    sn_ik_limit limits[MAXJ];
    sn_error err;
    void *mem;
    int joints[MAXJ], i, k, round, n = sn_skeleton_count(s);
    sn_ik_chain_def_init(&def);
    def.skeleton = read_byte(r) < 8u ? NULL : s;
    if (read_byte(r) < 220u) { /* the ancestors of a random tip, up to a random length */
        int tip = read_int(r, 0, n - 1), len = read_int(r, 1, MAXJ), path[MAXJ], m = 0, j;
        for (j = tip; j >= 0 && m < len; j = sn_skeleton_parent(s, j)) path[m++] = j;
        for (k = 0; k < m; k++) joints[k] = path[m - 1 - k];
        def.count = m;
    } else {
        def.count = read_int(r, -1, MAXJ);
        for (k = 0; k < MAXJ; k++) joints[k] = read_int(r, -2, n);
    }
    def.joints = read_byte(r) < 4u ? NULL : joints;
    def.method = read_byte(r) < 250u ? (int)(read_byte(r) & 1u) : read_int(r, -3, 3);
    def.iterations = read_byte(r) < 200u ? read_int(r, 1, 40) : read_int(r, -5, 1100);
    def.tolerance = read_byte(r) < 200u ? read_int(r, 0, 100) * 1e-4 : read_number(r);
    def.limit_count = read_byte(r) < 200u ? read_int(r, 0, def.count > 1 ? def.count - 1 : 0) : read_int(r, -1, MAXJ);
    for (i = 0; i < MAXJ; i++) read_limit(r, joints, def.count >= 1 && def.count <= MAXJ ? def.count : 1, &limits[i]);
    def.limits = read_byte(r) < 4u ? NULL : limits;
    FUZZ_NEW(ik_chain, &def, &err, mem);
    if (mem == NULL) return;
    for (round = 0; round < 4; round++) {
        sn_ik_chain *ik = (sn_ik_chain *)mem;
        float before[10 * MAXJ], after[10 * MAXJ], again[10 * MAXJ];
        sn_vec3 target = read_vec(r);
        double weight = read_weight(r), left = -1, left2 = -2;
        unsigned flags = 0, flags2 = 1;
        sn_pose *p = read_byte(r) < 8u ? foreign : pose;
        sn_status st, st2;
        if (read_byte(r) < 32u) (void)sn_ik_chain_set_iterations(ik, read_int(r, -2, 200), &err);
        if (read_byte(r) < 32u) (void)sn_ik_chain_set_tolerance(ik, read_number(r), &err);
        fuzz_snapshot(pose, before);
        FUZZ_CHECK(sn_pose_copy(pose, copy, NULL) == SN_OK);
        memset(&err, 0, sizeof err);
        st = sn_ik_chain_solve(ik, p, &target, weight, &left, &flags, &err);
        if (p == foreign) FUZZ_CHECK(st != SN_OK);
        if (st != SN_OK) {
            FUZZ_CHECK(err.msg[0] != '\0' && (err.arg == 1 || err.arg == 2 || err.arg == 4));
            fuzz_check_unchanged(before, pose);
            FUZZ_CHECK(flags == 0);
            continue;
        }
        FUZZ_CHECK(sn_isfinite(left) && left >= 0.0);
        fuzz_snapshot(pose, after);
        if (weight == 0.0) FUZZ_CHECK(memcmp(before, after, sizeof(float) * 10 * (size_t)n) == 0);
        fuzz_check_written(before, pose, def.joints, def.count - 1); /* the tip keeps its rotation */
        /* the same input again: the same bits */
        st2 = sn_ik_chain_solve(ik, copy, &target, weight, &left2, &flags2, &err);
        fuzz_snapshot(copy, again);
        FUZZ_CHECK(st2 == SN_OK && memcmp(after, again, sizeof(float) * 10 * (size_t)n) == 0);
        FUZZ_CHECK(memcmp(&left, &left2, sizeof left) == 0 && flags == flags2);
    }
    free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    fuzz_scene sc;
    int round;
    fuzz_scene_init(&sc, &r, build_skeleton, 192u, 1);
    for (round = 0; round < 3; round++) fuzz_chain(&r, sc.skel, sc.pose, sc.copy, sc.foreign);
    fuzz_scene_free(&sc);
    return 0;
}
