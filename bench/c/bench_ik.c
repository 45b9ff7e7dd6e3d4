/* C figures of the IK solvers: ns per two-bone solve and per aim solve on a pose of a 24-joint
   skeleton whose solved joints sit 3 (aim: 5) joints below the root, and per chain solve (4 joints,
   8 ancestors, 16 iterations: tolerance 0, so that every iteration runs; FABRIK and CCD, free and
   with a hinge and a cone), each solve on a fresh copy of the input values (so every call does
   the full work: read the frames, solve, write back). */
#include "bench.h"

#include <math.h>
#include <string.h>

#include "ik.h"
#include "pose.h"
#include "skeleton.h"

#define N 1000000
#define JOINTS 24

static void *make(size_t size) { return bench_alloc(size); }

int main(void) {
    static const char *names[JOINTS];
    static char buf[JOINTS][8];
    int parents[JOINTS], j, i, m;
    sn_skeleton_def sd;
    sn_pose_def pd;
    sn_ik_two_bone_def td;
    sn_ik_aim_def ad;
    sn_skeleton *s;
    sn_pose *pose;
    sn_ik_two_bone *leg;
    sn_ik_aim *head;
    sn_ik_chain_def cd;
    sn_ik_limit limits[2];
    sn_ik_chain *arms[4];
    static const int arm[4] = {8, 9, 10, 11};
    float model[16 * JOINTS], arm_in[3][4], rest[10 * JOINTS];
    double best_arm[4] = {1e30, 1e30, 1e30, 1e30}, base[3];
    int a;
    float input[4][4];
    double t0, sink = 0, best_leg = 1e30, best_head = 1e30;
    unsigned fl;
    size_t size;
    /* hips(0) spine(1) chest(2) neck(3) head(4), thigh(5) under hips, shin(6), foot(7), others */
    for (j = 0; j < JOINTS; j++) {
        snprintf(buf[j], sizeof buf[j], "j%d", j);
        names[j] = buf[j];
        parents[j] = j == 0 ? -1 : j <= 4 ? j - 1 : j == 5 ? 0 : j - 1;
    }
    for (j = 0; j < JOINTS; j++) { /* the rest pose: the bench's pose (the chain's cone needs bones) */
        float trs[10] = {0.1f, 0.4f, 0.05f, 0.05f, 0.1f, 0.02f, 0.993f, 1, 1, 1};
        if (j == 6 || j == 7) trs[0] = 0, trs[1] = -0.45f, trs[2] = 0;
        memcpy(rest + 10 * j, trs, sizeof trs);
    }
    sn_skeleton_def_init(&sd);
    sd.rest = rest;
    sd.count = JOINTS;
    sd.parents = parents;
    sd.names = names;
    size = sn_skeleton_size(&sd, NULL);
    s = (sn_skeleton *)make(size);
    if (sn_skeleton_init(s, size, &sd, NULL) != SN_OK) return 1;
    sn_pose_def_init(&pd);
    pd.skeleton = s;
    size = sn_pose_size(&pd, NULL);
    pose = (sn_pose *)make(size);
    if (sn_pose_init(pose, size, &pd, NULL) != SN_OK) return 1;
    for (j = 0; j < JOINTS; j++) {
        /* unit rotations, as an animator's poses hold */
        float trs[10] = {0.1f, 0.4f, 0.05f, 0.05f, 0.1f, 0.02f, 0.993f, 1, 1, 1};
        float n = sqrtf(trs[3] * trs[3] + trs[4] * trs[4] + trs[5] * trs[5] + trs[6] * trs[6]);
        trs[3] /= n, trs[4] /= n, trs[5] /= n, trs[6] /= n;
        if (j == 6 || j == 7) trs[0] = 0, trs[1] = -0.45f, trs[2] = 0; /* shin and foot bones */
        sn_pose_set(pose, j, trs);
    }
    sn_ik_two_bone_def_init(&td);
    td.skeleton = s;
    td.joints[0] = 5;
    td.joints[1] = 6;
    td.joints[2] = 7;
    td.mid_axis.x = 1;
    td.mid_axis.z = 0;
    td.soften = 0.9;
    size = sn_ik_two_bone_size(&td, NULL);
    leg = (sn_ik_two_bone *)make(size);
    if (sn_ik_two_bone_init(leg, size, &td, NULL) != SN_OK) return 1;
    sn_ik_aim_def_init(&ad);
    ad.skeleton = s;
    ad.joint = 4;
    ad.offset.y = 0.1;
    ad.limit = 1.4;
    size = sn_ik_aim_size(&ad, NULL);
    head = (sn_ik_aim *)make(size);
    if (sn_ik_aim_init(head, size, &ad, NULL) != SN_OK) return 1;
    {
        const int js[4] = {5, 6, 4, 0};
        for (i = 0; i < 4; i++) {
            float trs[10];
            sn_pose_get(pose, js[i], trs);
            memcpy(input[i], trs + 3, sizeof input[i]);
        }
    }
    /* arms: FABRIK, CCD, each free and limited (a hinge at the elbow, a cone at the shoulder) */
    sn_ik_limit_init(&limits[0], 9);
    limits[0].kind = SN_IK_CONE | SN_IK_TWIST;
    limits[0].cone = 1.2;
    limits[0].twist_min = -0.5;
    limits[0].twist_max = 0.5;
    sn_ik_limit_init(&limits[1], 10);
    limits[1].kind = SN_IK_HINGE;
    limits[1].axis.x = 1;
    limits[1].axis.z = 0;
    limits[1].min = -2.5;
    limits[1].max = 0.5;
    for (a = 0; a < 4; a++) {
        sn_ik_chain_def_init(&cd);
        cd.skeleton = s;
        cd.count = 4;
        cd.joints = arm;
        cd.method = a & 1 ? SN_IK_CCD : SN_IK_FABRIK;
        cd.iterations = 16;
        cd.tolerance = 0;
        cd.limit_count = a >= 2 ? 2 : 0;
        cd.limits = limits;
        size = sn_ik_chain_size(&cd, NULL);
        arms[a] = (sn_ik_chain *)make(size);
        if (sn_ik_chain_init(arms[a], size, &cd, NULL) != SN_OK) return 1;
    }
    for (i = 0; i < 3; i++) {
        float trs[10];
        sn_pose_get(pose, arm[i], trs);
        memcpy(arm_in[i], trs + 3, sizeof arm_in[i]);
    }
    sn_pose_to_model(pose, model);
    for (i = 0; i < 3; i++) base[i] = model[16 * arm[0] + 12 + i];
    for (m = 0; m < 5; m++) {
        double ns;
        for (a = 0; a < 4; a++) {
            t0 = bench_now();
            for (i = 0; i < N / 10; i++) {
                /* reachable targets around the arm (its reach is 1.24) */
                sn_vec3 target = {base[0] + 0.3 + 0.4 * (i & 15) / 15.0, base[1] - 0.2, base[2] + 0.5};
                float *q = sn_pose_channel(pose, SN_POSE_QX);
                int st = sn_skeleton_stride(s), c, k;
                double left;
                for (k = 0; k < 3; k++)
                    for (c = 0; c < 4; c++) q[c * st + arm[k]] = arm_in[k][c];
                sn_ik_chain_solve(arms[a], pose, &target, 1.0, &left, &fl, NULL);
                sink += left;
            }
            ns = (bench_now() - t0) / (N / 10) * 1e9;
            if (ns < best_arm[a]) best_arm[a] = ns;
        }
        t0 = bench_now();
        for (i = 0; i < N; i++) {
            sn_vec3 target = {0.3 + 0.2 * (i & 15) / 15.0, -0.2, 0.4}, pole = {0.5, 0.3, 2.0};
            float *q = sn_pose_channel(pose, SN_POSE_QX);
            int st = sn_skeleton_stride(s), c;
            for (c = 0; c < 4; c++) q[c * st + 5] = input[0][c], q[c * st + 6] = input[1][c];
            sn_ik_two_bone_solve(leg, pose, &target, &pole, 1.0, &fl, NULL);
            sink += fl;
        }
        ns = (bench_now() - t0) / N * 1e9;
        if (ns < best_leg) best_leg = ns;
        t0 = bench_now();
        for (i = 0; i < N; i++) {
            sn_vec3 target = {1.0 + 0.5 * (i & 15) / 15.0, 2.0, 3.0};
            float *q = sn_pose_channel(pose, SN_POSE_QX);
            int st = sn_skeleton_stride(s), c;
            for (c = 0; c < 4; c++) q[c * st + 4] = input[2][c];
            sn_ik_aim_solve(head, pose, &target, NULL, 1.0, &fl, NULL);
            sink += fl;
        }
        ns = (bench_now() - t0) / N * 1e9;
        if (ns < best_head) best_head = ns;
    }
    bench_report("ik two-bone solve (1 ancestor above the root)", best_leg, "ns");
    bench_report("ik aim solve (4 ancestors above the joint, offset, limit)", best_head, "ns");
    bench_report("ik chain FABRIK, 4 joints, 16 iterations (8 ancestors)", best_arm[0], "ns");
    bench_report("ik chain CCD, 4 joints, 16 iterations (8 ancestors)", best_arm[1], "ns");
    bench_report("ik chain FABRIK, 4 joints, 16 iterations, cone+twist and hinge", best_arm[2], "ns");
    bench_report("ik chain CCD, 4 joints, 16 iterations, cone+twist and hinge", best_arm[3], "ns");
    if (sink < 0) printf("%g\n", sink);
    return 0;
}
