/* C figures of foot placement: ns per four-leg solve of the Fox (its skeleton and its Walk at
   0.3 s, written out below from assets/fox), on a plane tilted 10 degrees: sn_ik_feet_prepare,
   the four ground callbacks (a plane: a few products each), sn_ik_feet_solve; each solve on a
   fresh copy of the input pose (so every call does the full work), the state carried over as
   in a game. Also the same with the callbacks left out (the grounds computed once), and the
   prepare phase alone. */
#include "bench.h"

#include <math.h>
#include <string.h>

#include "ik.h"
#include "pose.h"
#include "skeleton.h"

#define N 200000
#define FOX_JOINTS 24

static const int fox_parents[FOX_JOINTS] = {-1, 0, 1, 2, 3, 4, 5, 4, 7, 8, 4, 10, 11, 2, 13, 14, 2, 16, 17, 18, 2, 20, 21, 22};
/* the Fox's rest pose, then its Walk at 0.3 s (translation, rotation x y z w, scale) */
static const float fox_rest[FOX_JOINTS][10] = {
    {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f, 1.0f}, /* _rootJoint */
    {0.0f, 0.0f, 0.0f, -0.70710808f, 0.0f, 0.0f, 0.707105458f, 1.0f, 1.0f, 1.0f}, /* b_Root_00 */
    {0.0f, 26.7484035f, 42.9381714f, 0.127690941f, -0.695482016f, -0.127690226f, 0.695481837f, 1.0f, 1.0f, 1.0f}, /* b_Hip_01 */
    {12.8506012f, 0.0f, 0.0f, 0.0f, 0.0f, -0.590415776f, 0.807099283f, 1.0f, 1.0f, 1.0f}, /* b_Spine01_02 */
    {21.6557541f, -0.000118255615f, 0.0f, 0.0f, 0.0f, 0.0174119528f, 0.999848425f, 1.0f, 1.0f, 1.0f}, /* b_Spine02_03 */
    {25.6491432f, 0.0f, 0.0f, 0.0f, 0.0f, 0.303379148f, 0.952869952f, 1.0f, 1.0f, 1.0f}, /* b_Neck_04 */
    {13.3769608f, 0.0f, 0.0f, 0.0f, 0.0f, -0.400285423f, 0.916390538f, 1.0f, 1.0f, 1.0f}, /* b_Head_05 */
    {18.6779137f, -4.29734039f, 6.96757507f, 0.000467327336f, -0.000446148479f, -0.712179303f, 0.70199734f, 1.0f, 1.0f, 1.0f}, /* b_RightUpperArm_06 */
    {23.045126f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0371259004f, 0.999310613f, 1.0f, 1.0f, 1.0f}, /* b_RightForeArm_07 */
    {19.3500557f, -0.145986557f, 0.0f, -0.0120374067f, -0.00782220997f, 0.460562319f, 0.887511253f, 1.0f, 1.0f, 1.0f}, /* b_RightHand_08 */
    {18.6779175f, -4.29734421f, -6.96798706f, 0.000497261935f, -0.00088219234f, -0.712087512f, 0.702090025f, 1.0f, 1.0f, 1.0f}, /* b_LeftUpperArm_09 */
    {23.0451241f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0371259004f, 0.999310613f, 1.0f, 1.0f, 1.0f}, /* b_LeftForeArm_010 */
    {19.3500519f, -0.145990372f, 0.0f, 0.0165179148f, 0.0140137402f, 0.460075587f, 0.887615502f, 1.0f, 1.0f, 1.0f}, /* b_LeftHand_011 */
    {4.26037598f, 15.9587708f, 0.0f, 0.0f, 0.0f, 0.981892884f, 0.189436913f, 1.0f, 1.0f, 1.0f}, /* b_Tail01_012 */
    {12.4119186f, 0.0f, 0.0f, 0.0f, 0.0f, -0.0696171671f, 0.997573793f, 1.0f, 1.0f, 1.0f}, /* b_Tail02_013 */
    {24.2403221f, 0.0f, 0.0f, 0.0f, 0.0f, -0.0538327433f, 0.998549938f, 1.0f, 1.0f, 1.0f}, /* b_Tail03_014 */
    {4.81377029f, 5.1540184f, -6.96800613f, 0.0f, -0.000171752254f, 0.970015883f, -0.243041471f, 1.0f, 1.0f, 1.0f}, /* b_LeftLeg01_015 */
    {18.9441757f, 0.0f, 0.0f, 0.0f, 0.0f, -0.36804378f, 0.929808438f, 1.0f, 1.0f, 1.0f}, /* b_LeftLeg02_016 */
    {17.942812f, 0.0f, 0.0f, 0.000248410593f, 0.0f, 0.458484113f, 0.888702571f, 1.0f, 1.0f, 1.0f}, /* b_LeftFoot01_017 */
    {15.7799387f, 0.0f, 0.0f, 0.0f, 0.0f, 0.547288299f, 0.836944163f, 1.0f, 1.0f, 1.0f}, /* b_LeftFoot02_018 */
    {4.81377792f, 5.15402603f, 6.96756363f, 0.0f, 0.0f, 0.969958603f, -0.243270069f, 1.0f, 1.0f, 1.0f}, /* b_RightLeg01_019 */
    {18.9441833f, 0.0f, 0.0f, 0.0f, 0.0f, -0.36804381f, 0.929808438f, 1.0f, 1.0f, 1.0f}, /* b_RightLeg02_020 */
    {17.9428101f, 0.0f, 0.0f, -0.000153454559f, 0.0f, 0.457909375f, 0.888998866f, 1.0f, 1.0f, 1.0f}, /* b_RightFoot01_021 */
    {15.7799358f, 0.0f, 0.0f, 0.0f, 0.0f, 0.547288299f, 0.836944163f, 1.0f, 1.0f, 1.0f}, /* b_RightFoot02_022 */
};
static const float fox_walk[FOX_JOINTS][10] = {
    {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f, 1.0f},
    {0.0f, 0.0f, 0.0f, -0.70710808f, 0.0f, 0.0f, 0.707105458f, 1.0f, 1.0f, 1.0f},
    {-0.0929153115f, 24.5516281f, 41.283741f, 0.127306029f, -0.693393826f, -0.128071129f, 0.697564423f, 1.0f, 1.0f, 1.0f},
    {12.8506012f, 0.0f, 0.0f, -0.000117833588f, -0.000197175919f, -0.59360373f, 0.804757476f, 1.0f, 1.0f, 1.0f},
    {21.6557541f, -0.000118255615f, 0.0f, 1.00705693e-05f, 0.000239700894f, 0.0243640076f, 0.999703169f, 1.0f, 1.0f, 1.0f},
    {25.6491432f, 0.0f, 0.0f, 0.00297666434f, -0.000532461272f, 0.220500961f, 0.975382149f, 1.0f, 1.0f, 1.0f},
    {13.3769608f, 0.0f, 0.0f, -8.64165486e-05f, -0.000411598739f, -0.317431599f, 0.948281109f, 1.0f, 1.0f, 1.0f},
    {18.6779137f, -4.29734039f, 6.96757507f, 0.00334202196f, 0.00239840499f, -0.53473103f, 0.845012367f, 1.0f, 1.0f, 1.0f},
    {23.045126f, 0.0f, 0.0f, 3.56258667e-08f, 1.22130377e-08f, 0.32476759f, 0.945793927f, 1.0f, 1.0f, 1.0f},
    {19.3500557f, -0.145986557f, 0.0f, -0.0152680613f, 0.000113221307f, -0.193555996f, 0.980970383f, 1.0f, 1.0f, 1.0f},
    {18.6779175f, -4.29734421f, -6.96798706f, 0.00127345405f, 0.00390618807f, -0.781981766f, 0.623287737f, 1.0f, 1.0f, 1.0f},
    {23.0451241f, 0.0f, 0.0f, 3.78037512e-08f, 1.53523938e-09f, 0.0421210304f, 0.999112546f, 1.0f, 1.0f, 1.0f},
    {19.3500519f, -0.145990372f, 0.0f, 0.0128068365f, 0.00953944772f, 0.547753453f, 0.836487412f, 1.0f, 1.0f, 1.0f},
    {4.26037598f, 15.9587708f, 0.0f, -1.04695658e-07f, 3.00521435e-07f, 0.970364571f, 0.241645589f, 1.0f, 1.0f, 1.0f},
    {12.4119186f, 0.0f, 0.0f, -4.96736401e-20f, -1.58844811e-19f, -0.0988101885f, 0.995106399f, 1.0f, 1.0f, 1.0f},
    {24.2403221f, 0.0f, 0.0f, -5.30917553e-19f, 2.47359134e-19f, -0.271480054f, 0.962444067f, 1.0f, 1.0f, 1.0f},
    {4.81377029f, 5.1540184f, -6.96800613f, -0.00372509379f, 0.000861879031f, 0.987776458f, -0.155830413f, 1.0f, 1.0f, 1.0f},
    {18.9441757f, 0.0f, 0.0f, 1.23337136e-08f, 1.42987151e-08f, -0.653302252f, 0.757097304f, 1.0f, 1.0f, 1.0f},
    {17.942812f, 0.0f, 0.0f, -0.000359608995f, -0.00118162599f, 0.615816474f, 0.787888765f, 1.0f, 1.0f, 1.0f},
    {15.7799387f, 0.0f, 0.0f, 0.0f, 0.0f, 0.547288299f, 0.836944163f, 1.0f, 1.0f, 1.0f},
    {4.81377792f, 5.15402603f, 6.96756363f, 0.00376648502f, 4.45253354e-05f, -0.943573713f, 0.331141144f, 1.0f, 1.0f, 1.0f},
    {18.9441833f, 0.0f, 0.0f, 8.37446823e-09f, 1.68434386e-08f, -0.446177751f, 0.89494437f, 1.0f, 1.0f, 1.0f},
    {17.9428101f, 0.0f, 0.0f, -0.000395496987f, -0.000892347365f, 0.451844633f, 0.892096102f, 1.0f, 1.0f, 1.0f},
    {15.7799358f, 0.0f, 0.0f, 0.0f, 0.0f, 0.547288299f, 0.836944163f, 1.0f, 1.0f, 1.0f},
};

/* the ground: a plane rising toward +z by 10 degrees */
static void plane(const double *p, double *g) {
    const double t = 0.17632698070846498, c = 0.98480775301220802, s = 0.17364817766693033;
    g[0] = p[2] * t;
    g[1] = 0;
    g[2] = c;
    g[3] = -s;
}

int main(void) {
    static const char *names[FOX_JOINTS];
    static char buf[FOX_JOINTS][8];
    static const int legs[4][3] = {{10, 11, 12}, {7, 8, 9}, {16, 17, 18}, {20, 21, 22}};
    sn_skeleton_def sd;
    sn_pose_def pd;
    sn_ik_feet_def fd;
    sn_skeleton *s;
    sn_pose *pose;
    sn_ik_feet *feet;
    float *walk;
    double points[12], ground[16], t0, ns, best = 1e30, best_nocb = 1e30, best_prep = 1e30, sink = 0;
    size_t size, bytes;
    int j, i, m;
    for (j = 0; j < FOX_JOINTS; j++) {
        snprintf(buf[j], sizeof buf[j], "j%d", j);
        names[j] = buf[j];
    }
    sn_skeleton_def_init(&sd);
    sd.count = FOX_JOINTS;
    sd.parents = fox_parents;
    sd.names = names;
    sd.rest = &fox_rest[0][0];
    size = sn_skeleton_size(&sd, NULL);
    s = (sn_skeleton *)bench_alloc(size);
    if (sn_skeleton_init(s, size, &sd, NULL) != SN_OK) return 1;
    sn_pose_def_init(&pd);
    pd.skeleton = s;
    size = sn_pose_size(&pd, NULL);
    pose = (sn_pose *)bench_alloc(size);
    if (sn_pose_init(pose, size, &pd, NULL) != SN_OK) return 1;
    for (j = 0; j < FOX_JOINTS; j++) sn_pose_set(pose, j, fox_walk[j]);
    /* the input, channel by channel, to copy back before each solve */
    bytes = sizeof(float) * (size_t)sn_skeleton_stride(s) * SN_POSE_CHANNELS;
    walk = (float *)bench_alloc(bytes);
    memcpy(walk, sn_pose_channel(pose, 0), bytes);
    sn_ik_feet_def_init(&fd);
    fd.skeleton = s;
    fd.pelvis = 2;
    fd.count = 4;
    memcpy(fd.legs, legs, sizeof legs);
    size = sn_ik_feet_size(&fd, NULL);
    feet = (sn_ik_feet *)bench_alloc(size);
    if (sn_ik_feet_init(feet, size, &fd, NULL) != SN_OK) return 1;
    for (m = 0; m < 5; m++) {
        t0 = bench_now();
        for (i = 0; i < N; i++) {
            int l;
            memcpy(sn_pose_channel(pose, 0), walk, bytes);
            sn_ik_feet_prepare(feet, pose, points, NULL);
            for (l = 0; l < 4; l++) plane(points + 3 * l, ground + 4 * l);
            sn_ik_feet_solve(feet, pose, ground, 1.0 / 60, 1.0, NULL, NULL);
        }
        ns = (bench_now() - t0) / N * 1e9;
        if (ns < best) best = ns;
        t0 = bench_now();
        for (i = 0; i < N; i++) {
            memcpy(sn_pose_channel(pose, 0), walk, bytes);
            sn_ik_feet_prepare(feet, pose, points, NULL);
            sn_ik_feet_solve(feet, pose, ground, 1.0 / 60, 1.0, NULL, NULL);
        }
        ns = (bench_now() - t0) / N * 1e9;
        if (ns < best_nocb) best_nocb = ns;
        t0 = bench_now();
        for (i = 0; i < N; i++) {
            sn_ik_feet_prepare(feet, pose, points, NULL);
            sink += points[i & 7];
        }
        ns = (bench_now() - t0) / N * 1e9;
        if (ns < best_prep) best_prep = ns;
    }
    sink += sn_ik_feet_offset(feet);
    bench_report("ik feet, the Fox's 4 legs on a 10-degree plane (C ground callbacks)", best, "ns");
    bench_report("ik feet, the Fox's 4 legs, prepare + solve (grounds given)", best_nocb, "ns");
    bench_report("ik feet, the Fox's 4 legs, prepare alone (foot points)", best_prep, "ns");
    if (sink != sink) printf("%g\n", sink);
    return 0;
}
