/* C-only tests of foot placement (src/core/ik_feet.c): a biped on grounds with closed-form
   answers (flat, uneven, tilted), the spring's exact steps, weight, max_drop, every refused input
   (writing nothing, the state kept) and random grounds that never put a NaN in the pose. */
#define FIXTURE_SEED 2526
#include "fixtures.h"

#include "frames.h"
#include "ik.h"

/* ---- the biped: root, pelvis, and two legs with bent knees ----------------------------------- */

enum { ROOT, PELVIS, THIGH_L, SHIN_L, FOOT_L, THIGH_R, SHIN_R, FOOT_R, JOINTS };

static sn_skeleton *biped(void) {
    static const int parents[JOINTS] = {-1, ROOT, PELVIS, THIGH_L, SHIN_L, PELVIS, THIGH_R, SHIN_R};
    const float s = (float)sin(0.5), c = (float)cos(0.5); /* the knee bent by 1 rad about x */
    const float rest[JOINTS * 10] = {
        0, 0, 0, 0, 0, 0, 1, 1, 1, 1,       /* root */
        0, 2, 0, 0, 0, 0, 1, 1, 1, 1,       /* pelvis, 2 up */
        0.3f, 0, 0, 0, 0, 0, 1, 1, 1, 1,    /* thigh_l */
        0, -1, 0, s, 0, 0, c, 1, 1, 1,      /* shin_l */
        0, -1, 0, 0, 0, 0, 1, 1, 1, 1,      /* foot_l */
        -0.3f, 0, 0, 0, 0, 0, 1, 1, 1, 1,   /* thigh_r */
        0, -1, 0, s, 0, 0, c, 1, 1, 1,      /* shin_r */
        0, -1, 0, 0, 0, 0, 1, 1, 1, 1,      /* foot_r */
    };
    return fixture_skeleton(JOINTS, parents, rest);
}

static void valid_def(sn_ik_feet_def *d);
static sn_skeleton *skel;

static void valid_def(sn_ik_feet_def *d) {
    sn_ik_feet_def_init(d);
    d->skeleton = skel;
    d->pelvis = PELVIS;
    d->count = 2;
    d->legs[0][0] = THIGH_L;
    d->legs[0][1] = SHIN_L;
    d->legs[0][2] = FOOT_L;
    d->legs[1][0] = THIGH_R;
    d->legs[1][1] = SHIN_R;
    d->legs[1][2] = FOOT_R;
    d->smoothing = 0.1;
}

static sn_ik_feet *make(const sn_ik_feet_def *d) {
    sn_error err;
    size_t size = sn_ik_feet_size(d, &err);
    void *mem;
    ENSURE(size > 0);
    mem = fixture_block(size);
    ENSURE(sn_ik_feet_init(mem, size, d, &err) == SN_OK);
    return (sn_ik_feet *)mem;
}

/* one full solve: prepare, the grounds of `g` (4 per leg), solve */
static sn_status solve(sn_ik_feet *ik, sn_pose *pose, const double *g, double dt, double w, unsigned *flags, sn_error *err) {
    double points[3 * SN_IK_FEET_MAX];
    sn_status st = sn_ik_feet_prepare(ik, pose, points, err);
    if (st != SN_OK) return st;
    return sn_ik_feet_solve(ik, pose, g, dt, w, flags, err);
}

static void snap(const sn_pose *pose, float *out) {
    int j;
    for (j = 0; j < JOINTS; j++) sn_pose_get(pose, j, out + 10 * j);
}

/* ---- tests ----------------------------------------------------------------------------------- */

static void test_uneven_ground(void) {
    sn_ik_feet_def d;
    sn_ik_feet *ik;
    sn_pose *pose;
    double before[2][3], q[4], q0[2][4], p[3], points[6];
    const double heights[3][2] = {{-0.3, -0.3}, {0.2, -0.1}, {0.05, 0.25}};
    int c, l;
    skel = biped();
    valid_def(&d);
    for (c = 0; c < 3; c++) {
        const double g[8] = {heights[c][0], 0, 0, 0, heights[c][1], 0, 0, 0};
        unsigned flags;
        sn_error err;
        double low = heights[c][0] < heights[c][1] ? heights[c][0] : heights[c][1];
        ik = make(&d);
        pose = fixture_pose(skel);
        ref_frame(pose, FOOT_L, before[0], q0[0], NULL);
        ref_frame(pose, FOOT_R, before[1], q0[1], NULL);
        ENSURE(sn_ik_feet_prepare(ik, pose, points, &err) == SN_OK);
        ENSURE_NEAR(points[0], before[0][0], 1e-12);
        ENSURE_NEAR(points[4], before[1][1], 1e-12);
        ENSURE(sn_ik_feet_solve(ik, pose, g, 1.0 / 60, 1.0, &flags, &err) == SN_OK);
        ENSURE(flags & SN_IK_REACHED);
        /* the first solve starts at its target: the pelvis drops by the lower foot's move */
        ENSURE_NEAR(sn_ik_feet_offset(ik), low > 0 ? 0 : low, 1e-12);
        ref_frame(pose, PELVIS, p, q, NULL);
        ENSURE_NEAR(p[1], 2 + (low > 0 ? 0 : low), 1e-6);
        /* each foot moved straight up or down by its ground's height (flat ground: h / cos 0) */
        for (l = 0; l < 2; l++) {
            ref_frame(pose, l == 0 ? FOOT_L : FOOT_R, p, q, NULL);
            ENSURE_NEAR(p[0], before[l][0], 1e-5);
            ENSURE_NEAR(p[1], before[l][1] + heights[c][l], 1e-5);
            ENSURE_NEAR(p[2], before[l][2], 1e-5);
            /* flat ground: the foot keeps its model rotation */
            ENSURE_NEAR(fabs(q[0] * q0[l][0] + q[1] * q0[l][1] + q[2] * q0[l][2] + q[3] * q0[l][3]), 1, 1e-6);
        }
    }
}

static void test_tilted_normal(void) {
    sn_ik_feet_def d;
    sn_ik_feet *ik;
    sn_pose *pose;
    const double a = 0.2; /* the ground's tilt, radians, about x */
    const double limits[2] = {0.5, 0.1};
    int k, l;
    skel = biped();
    for (k = 0; k < 2; k++) {
        double g[8], h[2], before[2][3], q0[2][4], q[4], p[3], up[3] = {0, 1, 0}, n[3];
        unsigned flags;
        sn_error err;
        double turn = limits[k] < a ? limits[k] : a;
        valid_def(&d);
        d.normal_limit = limits[k];
        d.smoothing = 0;
        ik = make(&d);
        pose = fixture_pose(skel);
        for (l = 0; l < 2; l++) {
            ref_frame(pose, l == 0 ? FOOT_L : FOOT_R, before[l], q0[l], NULL);
            h[l] = before[l][1];
            g[4 * l] = 0;
            g[4 * l + 1] = 0;
            g[4 * l + 2] = 2 * cos(a); /* any length */
            g[4 * l + 3] = 2 * sin(a);
        }
        ENSURE(solve(ik, pose, g, 0.1, 1, &flags, &err) == SN_OK);
        ENSURE(((flags & SN_IK_LIMITED) != 0) == (limits[k] < a));
        for (l = 0; l < 2; l++) {
            ref_frame(pose, l == 0 ? FOOT_L : FOOT_R, p, q, NULL);
            /* the foot's distance from the plane along its normal is its height: h / cos a along up */
            ENSURE_NEAR(p[1], h[l] / cos(a), 1e-5);
            /* the foot turned from up toward the normal by min(a, limit): q q0^-1 takes up there */
            q0[l][0] = -q0[l][0];
            q0[l][1] = -q0[l][1];
            q0[l][2] = -q0[l][2];
            qmul(q, q0[l], q);
            qrot(q, up, n);
            ENSURE_NEAR(n[0], 0, 1e-5);
            ENSURE_NEAR(n[1], cos(turn), 1e-5);
            ENSURE_NEAR(n[2], sin(turn), 1e-5);
        }
    }
}

static void test_spring_exact(void) {
    sn_ik_feet_def d;
    sn_ik_feet *a, *b;
    sn_pose *pose;
    double g[8] = {-0.1, 0, 0, 0, -0.1, 0, 0, 0}, w = 2 / 0.1, one, two;
    sn_error err;
    skel = biped();
    valid_def(&d);
    a = make(&d);
    b = make(&d);
    pose = fixture_pose(skel);
    ENSURE(solve(a, pose, g, 0.1, 1, NULL, &err) == SN_OK);
    pose = fixture_pose(skel);
    ENSURE(solve(b, pose, g, 0.1, 1, NULL, &err) == SN_OK);
    ENSURE_NEAR(sn_ik_feet_offset(a), -0.1, 1e-12);
    g[0] = g[4] = -0.3;
    pose = fixture_pose(skel);
    ENSURE(solve(a, pose, g, 0.05, 1, NULL, &err) == SN_OK);
    pose = fixture_pose(skel);
    ENSURE(solve(a, pose, g, 0.05, 1, NULL, &err) == SN_OK);
    two = sn_ik_feet_offset(a);
    pose = fixture_pose(skel);
    ENSURE(solve(b, pose, g, 0.1, 1, NULL, &err) == SN_OK);
    one = sn_ik_feet_offset(b);
    ENSURE_NEAR(one, two, 1e-12);
    /* from rest at -0.1 toward -0.3: -0.3 + 0.2 (1 + w t) e^(-w t) */
    ENSURE_NEAR(one, -0.3 + 0.2 * (1 + w * 0.1) * exp(-w * 0.1), 1e-12);
    /* a risen ground: the target rises at most SN_IK_FEET_RISE leg lengths per second */
    g[0] = g[4] = 0;
    pose = fixture_pose(skel);
    ENSURE(solve(b, pose, g, 0.1, 1, NULL, &err) == SN_OK);
    ENSURE(sn_ik_feet_offset(b) < one + SN_IK_FEET_RISE * 2 * 0.1 + 1e-12);
    sn_ik_feet_reset(b);
    pose = fixture_pose(skel);
    ENSURE(solve(b, pose, g, 0.1, 1, NULL, &err) == SN_OK);
    ENSURE_NEAR(sn_ik_feet_offset(b), 0, 1e-12);
}

/* a copy: the same definition and settings with a fresh state; it solves as the original did
   from its own start, bit for bit, and the two keep separate states */
static void test_copy(void) {
    sn_ik_feet_def d;
    sn_ik_feet *a, *b;
    sn_pose *pa, *pb;
    double g[8] = {-0.2, 0, 0, 0, -0.1, 0, 0, 0};
    float sa[10 * JOINTS], sb[10 * JOINTS];
    unsigned char small[16];
    sn_error err;
    skel = biped();
    valid_def(&d);
    a = make(&d);
    ENSURE(sn_ik_feet_set_smoothing(a, 0.2, &err) == SN_OK);
    pa = fixture_pose(skel);
    ENSURE(solve(a, pa, g, 0.1, 1, NULL, &err) == SN_OK); /* a has a state now */
    ENSURE(sn_ik_feet_block_size(a) == sn_ik_feet_size(&d, NULL));
    b = (sn_ik_feet *)fixture_block(sn_ik_feet_block_size(a));
    ENSURE(sn_ik_feet_copy(small, sizeof small, a, &err) == SN_ENOMEM);
    ENSURE(sn_ik_feet_copy(b, sn_ik_feet_block_size(a), a, &err) == SN_OK);
    ENSURE(sn_ik_feet_smoothing(b) == 0.2 && sn_ik_feet_offset(b) == 0.0);
    sn_ik_feet_reset(a);
    pa = fixture_pose(skel);
    pb = fixture_pose(skel);
    ENSURE(solve(a, pa, g, 0.1, 1, NULL, &err) == SN_OK);
    ENSURE(solve(b, pb, g, 0.1, 1, NULL, &err) == SN_OK);
    snap(pa, sa);
    snap(pb, sb);
    ENSURE(memcmp(sa, sb, sizeof sa) == 0);
    g[0] = -0.4;
    pb = fixture_pose(skel);
    ENSURE(solve(b, pb, g, 0.05, 1, NULL, &err) == SN_OK); /* b moves on; a keeps its own state */
    ENSURE(sn_ik_feet_offset(b) != sn_ik_feet_offset(a));
}

/* the state: put back into a copy, the copy solves as the original goes on, bit for bit; a refused
   state changes nothing */
static void test_state(void) {
    sn_ik_feet_def d;
    sn_ik_feet *a, *b;
    sn_pose *pa, *pb;
    double g[8] = {-0.2, 0.1, 1, 0, -0.1, 0, 1, 0.1}, st[4 + 9 * SN_IK_FEET_MAX], bad[4 + 9 * SN_IK_FEET_MAX];
    double kept[4 + 9 * SN_IK_FEET_MAX];
    float sa[10 * JOINTS], sb[10 * JOINTS];
    sn_error err;
    int n, k;
    skel = biped();
    valid_def(&d);
    a = make(&d);
    n = sn_ik_feet_state_count(a);
    ENSURE(n == 4 + 9 * 2);
    for (k = 0; k < 3; k++) {
        pa = fixture_pose(skel);
        g[0] -= 0.05;
        ENSURE(solve(a, pa, g, 0.05, 1, NULL, &err) == SN_OK);
    }
    sn_ik_feet_state(a, st);
    ENSURE(st[0] == 1.0 && st[1] < 0.0);
    b = (sn_ik_feet *)fixture_block(sn_ik_feet_block_size(a));
    ENSURE(sn_ik_feet_copy(b, sn_ik_feet_block_size(a), a, &err) == SN_OK);
    ENSURE(sn_ik_feet_set_state(b, st, &err) == SN_OK);
    for (k = 0; k < 3; k++) {
        g[4] += 0.07;
        pa = fixture_pose(skel);
        pb = fixture_pose(skel);
        ENSURE(solve(a, pa, g, 0.04, 1, NULL, &err) == SN_OK);
        ENSURE(solve(b, pb, g, 0.04, 1, NULL, &err) == SN_OK);
        snap(pa, sa);
        snap(pb, sb);
        ENSURE(memcmp(sa, sb, sizeof sa) == 0);
    }
    sn_ik_feet_state(b, kept);
    memcpy(bad, kept, sizeof bad);
    bad[0] = 0.5;
    ENSURE(sn_ik_feet_set_state(b, bad, &err) == SN_EINVAL && err.arg == 1);
    memcpy(bad, kept, sizeof bad);
    bad[5] = NAN;
    ENSURE(sn_ik_feet_set_state(b, bad, &err) == SN_EINVAL);
    memcpy(bad, kept, sizeof bad);
    bad[19] = bad[20] = bad[21] = 0.0; /* leg 2's hinge */
    ENSURE(sn_ik_feet_set_state(b, bad, &err) == SN_EINVAL);
    sn_ik_feet_state(b, bad);
    ENSURE(memcmp(bad, kept, (size_t)n * sizeof(double)) == 0);
}

static void test_weight_and_max_drop(void) {
    sn_ik_feet_def d;
    sn_ik_feet *ik;
    sn_pose *pose;
    double g[8] = {-0.4, 0, 0, 0, -0.4, 0, 0, 0};
    float before[JOINTS * 10], after[JOINTS * 10];
    unsigned flags;
    sn_error err;
    skel = biped();
    valid_def(&d);
    ik = make(&d);
    pose = fixture_pose(skel);
    snap(pose, before);
    ENSURE(solve(ik, pose, g, 0.1, 0, &flags, &err) == SN_OK);
    snap(pose, after);
    ENSURE(memcmp(before, after, sizeof before) == 0);
    ENSURE_NEAR(sn_ik_feet_offset(ik), -0.4, 1e-12); /* the state advances at weight 0 */
    pose = fixture_pose(skel);
    ENSURE(solve(ik, pose, g, 0.1, 0.5, &flags, &err) == SN_OK);
    snap(pose, after);
    ENSURE_NEAR(after[10 * PELVIS + 1], 2 - 0.2, 1e-6); /* half the drop */
    ENSURE(!(flags & SN_IK_REACHED));
    d.max_drop = 0.25;
    ik = make(&d);
    pose = fixture_pose(skel);
    ENSURE(solve(ik, pose, g, 0.1, 1, &flags, &err) == SN_OK);
    ENSURE_NEAR(sn_ik_feet_offset(ik), -0.25, 1e-12);
    ENSURE(flags & SN_IK_LIMITED);
    /* the feet still go down to the ground: the legs stretch (unreachable when too far) */
    ENSURE(sn_ik_feet_set_max_drop(ik, -1, &err) == SN_EINVAL);
    ENSURE(sn_ik_feet_set_normal_limit(ik, 2, &err) == SN_EINVAL);
    ENSURE(sn_ik_feet_set_smoothing(ik, -1, &err) == SN_EINVAL);
    ENSURE(sn_ik_feet_set_smoothing(ik, 0.5, &err) == SN_OK && sn_ik_feet_smoothing(ik) == 0.5);
    ENSURE(sn_ik_feet_set_normal_limit(ik, 0.5, &err) == SN_OK && sn_ik_feet_normal_limit(ik) == 0.5);
    ENSURE(sn_ik_feet_set_max_drop(ik, 1, &err) == SN_OK && sn_ik_feet_max_drop(ik) == 1);
    ENSURE(sn_ik_feet_pelvis(ik) == PELVIS && sn_ik_feet_count(ik) == 2 && sn_ik_feet_skeleton(ik) == skel);
    ENSURE(sn_ik_feet_joint(ik, 1, 2) == FOOT_R && sn_ik_feet_joint(ik, 2, 0) == -1 && sn_ik_feet_joint(ik, 0, 3) == -1);
    ENSURE(sn_ik_feet_up(ik).y == 1);
    /* a denormal mid_axis and up normalise (1 / 1e-320 is infinite: they are divided instead) */
    valid_def(&d);
    d.up.x = 0;
    d.up.y = 1e-320;
    d.up.z = 0;
    d.mid_axis[0].x = 1e-320;
    d.mid_axis[0].y = d.mid_axis[0].z = 0;
    d.mid_axis[1] = d.mid_axis[0];
    ik = make(&d);
    ENSURE(sn_ik_feet_up(ik).y == 1);
    pose = fixture_pose(skel);
    g[0] = g[4] = -0.1;
    ENSURE(solve(ik, pose, g, 0.1, 1, &flags, &err) == SN_OK);
    ENSURE(flags & SN_IK_REACHED);
    {
        double p[3], q[4], r[3];
        ref_frame(fixture_pose(skel), FOOT_L, r, q, NULL);
        ref_frame(pose, FOOT_L, p, q, NULL);
        ENSURE_NEAR(p[1], r[1] - 0.1, 1e-5); /* down with the ground, by the leg's hinge */
    }
}

/* ---- refusals -------------------------------------------------------------------------------- */

FIXTURE_CASE_TYPE(feet_case, sn_ik_feet_def);
static void no_skeleton(sn_ik_feet_def *d) { d->skeleton = NULL; }
static void bad_pelvis(sn_ik_feet_def *d) { d->pelvis = 99; }
static void zero_up(sn_ik_feet_def *d) { d->up.x = d->up.y = d->up.z = 0; }
static void nan_up(sn_ik_feet_def *d) { d->up.y = NAN; }
static void no_legs(sn_ik_feet_def *d) { d->count = 0; }
static void many_legs(sn_ik_feet_def *d) { d->count = SN_IK_FEET_MAX + 1; }
static void leg_range(sn_ik_feet_def *d) { d->legs[1][2] = -1; }
static void not_chain(sn_ik_feet_def *d) { d->legs[0][2] = FOOT_R; }
static void above_pelvis(sn_ik_feet_def *d) { d->pelvis = THIGH_R; }
static void shared(sn_ik_feet_def *d) { memcpy(d->legs[1], d->legs[0], sizeof d->legs[0]); }
static void nan_axis(sn_ik_feet_def *d) { d->mid_axis[1].z = INFINITY; }
static void neg_drop(sn_ik_feet_def *d) { d->max_drop = -1; }
static void nan_drop(sn_ik_feet_def *d) { d->max_drop = NAN; }
static void big_limit(sn_ik_feet_def *d) { d->normal_limit = 1.5; }
static void nan_smooth(sn_ik_feet_def *d) { d->smoothing = INFINITY; }
static const feet_case feet_cases[] = {
    {"no skeleton", no_skeleton, "no skeleton"},
    {"pelvis out of range", bad_pelvis, "pelvis joint 100 is out of range (1 .. 8)"},
    {"zero up", zero_up, "'up' is a zero vector"},
    {"NaN up", nan_up, "'up' is not finite"},
    {"no legs", no_legs, "0 legs is out of range (1 .. 8)"},
    {"many legs", many_legs, "9 legs is out of range (1 .. 8)"},
    {"joint out of range", leg_range, "legs[2]: tip joint 0 is out of range"},
    {"not a chain", not_chain, "legs[1]: joints do not form a chain: tip 'j7' is not a child of mid 'j3'"},
    {"not below the pelvis", above_pelvis, "legs[1]: root 'j2' is not below the pelvis 'j5'"},
    {"shared joints", shared, "legs[1] and legs[2] share the joint 'j2'"},
    {"mid_axis", nan_axis, "legs[2]: 'mid_axis' is not finite"},
    {"negative max_drop", neg_drop, "'max_drop' -1 is out of range (0 .. inf)"},
    {"NaN max_drop", nan_drop, "'max_drop' is not a number"},
    {"normal_limit", big_limit, "'normal_limit' 1.5 is out of range (0 .. 1.39626)"},
    {"smoothing", nan_smooth, "'smoothing' is not finite"},
};
static sn_status size_of(const sn_ik_feet_def *d, sn_error *err) {
    return sn_ik_feet_size(d, err) > 0 ? SN_OK : SN_EINVAL;
}
static sn_status init_of(const sn_ik_feet_def *d, sn_error *err) {
    static unsigned char mem[8192];
    return sn_ik_feet_init(mem, sizeof mem, d, err);
}

static void test_refused(void) {
    sn_ik_feet_def d;
    sn_ik_feet *ik;
    sn_pose *pose, *other;
    float before[JOINTS * 10], after[JOINTS * 10];
    double points[6], g[8] = {0.1, 0, 1, 0, 0.2, 0, 1, 0};
    sn_error err;
    unsigned char small[16];
    struct {
        int slot;        /* index into g to spoil, or -1 */
        double value;
        double dt, w;
        int arg;
        const char *says;
    } calls[] = {
        {0, NAN, 0.1, 1, 2, "ground height of leg 1 is not finite"},
        {4, 1e13, 0.1, 1, 2, "ground height of leg 2 1e+13 is out of range"},
        {6, INFINITY, 0.1, 1, 2, "ground normal y of leg 2 is not finite"},
        {-1, 0, -1, 1, 3, "dt -1 is out of range"},
        {-1, 0, NAN, 1, 3, "dt is not finite"},
        {-1, 0, 0.1, 1.5, 4, "weight 1.5 is out of range (0 .. 1)"},
        {-1, 0, 0.1, NAN, 4, "weight is not finite"},
    };
    size_t k;
    skel = biped();
    REFUSE_CASES(feet_cases, sn_ik_feet_def, valid_def, sn_ik_feet_validate);
    REFUSE_CASES(feet_cases, sn_ik_feet_def, valid_def, size_of);
    REFUSE_CASES(feet_cases, sn_ik_feet_def, valid_def, init_of);
    valid_def(&d);
    ENSURE(sn_ik_feet_init(small, sizeof small, &d, &err) == SN_ENOMEM);
    ENSURE(sn_ik_feet_init(NULL, 0, &d, &err) == SN_ENOMEM);
    ik = make(&d);
    pose = fixture_pose(skel);
    ENSURE(solve(ik, pose, g, 0.1, 1, NULL, &err) == SN_OK);
    pose = fixture_pose(skel);
    snap(pose, before);
    for (k = 0; k < sizeof calls / sizeof calls[0]; k++) {
        double gg[8], offset = sn_ik_feet_offset(ik);
        sn_status st;
        memcpy(gg, g, sizeof g);
        if (calls[k].slot >= 0) gg[calls[k].slot] = calls[k].value;
        memset(&err, 0, sizeof err);
        st = solve(ik, pose, gg, calls[k].dt, calls[k].w, NULL, &err);
        snap(pose, after);
        if (st == SN_OK || err.arg != calls[k].arg || strstr(err.msg, calls[k].says) == NULL ||
            memcmp(before, after, sizeof before) != 0 || sn_ik_feet_offset(ik) != offset) {
            fprintf(stderr, "call %d: wanted arg %d \"%s\", got %d \"%s\"\n", (int)k, calls[k].arg, calls[k].says, err.arg, err.msg);
            ensure_failed_checks++;
        }
    }
    /* a solve without its prepare, or with another pose, or after a refused prepare */
    ENSURE(sn_ik_feet_solve(ik, pose, g, 0.1, 1, NULL, &err) == SN_EINVAL && strstr(err.msg, "not prepared") != NULL);
    ENSURE(sn_ik_feet_prepare(ik, pose, points, &err) == SN_OK);
    other = fixture_pose(skel);
    ENSURE(sn_ik_feet_solve(ik, other, g, 0.1, 1, NULL, &err) == SN_EINVAL && err.arg == 1);
    ENSURE(sn_ik_feet_prepare(ik, fixture_pose(biped()), points, &err) == SN_EINVAL &&
           strstr(err.msg, "pose of another skeleton") != NULL);
    ENSURE(sn_ik_feet_solve(ik, pose, g, 0.1, 1, NULL, &err) == SN_EINVAL);
    {
        float trs[10];
        sn_pose_get(pose, THIGH_L, trs);
        trs[1] = 2e12f;
        sn_pose_set(pose, THIGH_L, trs);
        ENSURE(sn_ik_feet_prepare(ik, pose, points, &err) == SN_EINVAL && strstr(err.msg, "placed out of range") != NULL);
    }
    snap(pose, after);
    ENSURE(memcmp(before, after, sizeof before) != 0); /* only the set above changed it */
}

/* random grounds (any heights within range, any normals, zero or pointing down) and random leg
   rotations: the pose stays finite and only the pelvis's translation changes */
static void test_never_nan(void) {
    sn_ik_feet_def d;
    sn_ik_feet *ik;
    int c, j, k;
    skel = biped();
    valid_def(&d);
    ik = make(&d);
    for (c = 0; c < 2000; c++) {
        sn_pose *pose = fixture_pose(skel);
        float before[JOINTS * 10], after[JOINTS * 10];
        double g[8];
        sn_error err;
        for (j = THIGH_L; j < JOINTS; j++) {
            float trs[10];
            double q[4], l = 0;
            sn_pose_get(pose, j, trs);
            for (k = 0; k < 4; k++) {
                q[k] = rnd(-1, 1);
                l += q[k] * q[k];
            }
            l = sqrt(l);
            for (k = 0; k < 4; k++) trs[3 + k] = (float)(q[k] / l);
            sn_pose_set(pose, j, trs);
        }
        for (k = 0; k < 8; k++) g[k] = rnd(-3, 3);
        if (c % 7 == 0) g[1] = g[2] = g[3] = 0;
        if (c % 11 == 0) g[0] = rnd(-1e6, 1e6);
        if (c % 13 == 0) g[1] = 4.9e-324, g[2] = g[3] = 0; /* a denormal normal (the fuzzer's first find) */
        snap(pose, before);
        ENSURE(solve(ik, pose, g, rnd(0, 0.2), rnd(0, 1), NULL, &err) == SN_OK);
        snap(pose, after);
        for (k = 0; k < JOINTS * 10; k++) {
            ENSURE(after[k] - after[k] == 0);
            if (k / 10 != PELVIS && k % 10 < 3) ENSURE(after[k] == before[k]);
            if (k % 10 >= 7) ENSURE(after[k] == before[k]);
        }
        if (c % 97 == 0) sn_ik_feet_reset(ik);
    }
}

int main(void) {
    RUN(test_uneven_ground);
    RUN(test_tilted_normal);
    RUN(test_spring_exact);
    RUN(test_weight_and_max_drop);
    RUN(test_copy);
    RUN(test_state);
    RUN(test_refused);
    RUN(test_never_nan);
    fixture_free();
    return END("test_ik_feet");
}
