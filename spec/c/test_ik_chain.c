/* C-only tests of the chain IK solver (src/core/ik_chain.c): random chains under random parents,
   FABRIK and CCD, free and limited, checked against a model space composed here independently of
   the solver; every degenerate case and every refused input. No Lua involved. */
#define FIXTURE_SEED 2526
#include "fixtures.h"

#include "frames.h"
#include "ik.h"

#define PI 3.14159265358979323846
#define CASES 3000
#define MAXJ 24

/* ---- quaternion helpers beyond frames.h's (the reference model space is there) -------------- */

static void qaxis(const double *axis, double angle, double *q) {
    q[0] = axis[0] * sin(angle / 2);
    q[1] = axis[1] * sin(angle / 2);
    q[2] = axis[2] * sin(angle / 2);
    q[3] = cos(angle / 2);
}

/* ---- random chains ------------------------------------------------------------------------- */

/* a unit vector across the unit d */
static void random_across(const double *d, double *v) {
    double k;
    random_dir(v);
    k = dot3(v, d);
    v[0] -= k * d[0];
    v[1] -= k * d[1];
    v[2] -= k * d[2];
    if (norm3(v) < 1e-3) random_across(d, v);
    else unit3(v);
}

/* `anc` ancestors in a line, the chain c[0..n-1], a child of the tip; random rest pose (bones of
   random lengths), random parent transforms and uniform scales. */
typedef struct rig {
    sn_skeleton *s;
    sn_pose *pose;
    int n, c[MAXJ], total;
    float rest[10 * (MAXJ + 4)];
    sn_ik_limit lim[MAXJ];
    int nlim;
} rig;

static void set_rot(sn_pose *pose, int j, const double *q) {
    float trs[10];
    int i;
    sn_pose_get(pose, j, trs);
    for (i = 0; i < 4; i++) trs[3 + i] = (float)q[i];
    sn_pose_set(pose, j, trs);
}

static void make_rig(rig *r, int n) {
    int parents[MAXJ + 4], anc = (int)rnd(0, 3), j, i;
    r->n = n;
    r->total = anc + n + 1;
    r->nlim = 0;
    for (j = 0; j < r->total; j++) {
        double t[3], q[4], len = rnd(0.2, 1.5);
        parents[j] = j - 1;
        random_dir(t);
        random_quat(q);
        for (i = 0; i < 3; i++) r->rest[10 * j + i] = (float)(t[i] * len);
        for (i = 0; i < 4; i++) r->rest[10 * j + 3 + i] = (float)q[i];
        for (i = 7; i < 10; i++) r->rest[10 * j + i] = 1.0f;
    }
    for (j = 0; j < n; j++) r->c[j] = anc + j;
    r->s = fixture_skeleton(r->total, parents, r->rest);
    r->pose = fixture_pose(r->s);
    for (j = 0; j < r->total; j++) { /* rest translations; random rotations and scales */
        float trs[10];
        double q[4], sc = rnd(0.5, 2);
        sn_pose_get(r->pose, j, trs);
        if (j < anc) {
            double t[3];
            random_dir(t);
            for (i = 0; i < 3; i++) trs[i] = (float)(t[i] * rnd(0, 2));
        }
        random_quat(q);
        for (i = 0; i < 4; i++) trs[3 + i] = (float)q[i];
        trs[7] = trs[8] = trs[9] = (float)sc;
        sn_pose_set(r->pose, j, trs);
    }
}

static double reach_of(const rig *r) {
    double sum = 0, a[3], b[3];
    int j;
    for (j = 0; j + 1 < r->n; j++) {
        ref_pos(r->pose, r->c[j], a);
        ref_pos(r->pose, r->c[j + 1], b);
        sum += dist3(a, b);
    }
    return sum;
}

/* random limits on some of the chain's joints (not the tip) */
static void random_limits(rig *r) {
    int j;
    r->nlim = 0;
    for (j = 0; j + 1 < r->n; j++) {
        sn_ik_limit *l = &r->lim[r->nlim];
        double u = rnd(0, 1), a[3];
        if (u < 0.2) continue;
        sn_ik_limit_init(l, r->c[j]);
        if (u < 0.55) {
            l->kind = SN_IK_HINGE;
            random_dir(a);
            l->axis.x = a[0];
            l->axis.y = a[1];
            l->axis.z = a[2];
            l->min = rnd(-2.5, 0.2);
            l->max = l->min + rnd(0.1, 2.5);
        } else {
            l->kind = u < 0.7 ? SN_IK_CONE : u < 0.8 ? SN_IK_TWIST : SN_IK_CONE | SN_IK_TWIST;
            l->cone = rnd(0.2, 2.0);
            l->twist_min = rnd(-2.0, 0.2);
            l->twist_max = l->twist_min + rnd(0.1, 2.0);
        }
        r->nlim++;
    }
}

static const sn_ik_limit *limit_of(const rig *r, int joint) {
    int k;
    for (k = 0; k < r->nlim; k++)
        if (r->lim[k].joint == joint) return &r->lim[k];
    return NULL;
}

/* the unit bone of chain joint i (the next joint's rest translation) */
static void bone_of(const rig *r, int i, double *d) {
    int k;
    for (k = 0; k < 3; k++) d[k] = r->rest[10 * r->c[i + 1] + k];
    unit3(d);
}

/* a random local rotation of chain joint i within its limit (any rotation without one) */
static void random_within(const rig *r, int i, double *q) {
    const sn_ik_limit *l = limit_of(r, r->c[i]);
    const double *rest = NULL;
    double restd[4], d[4], sw[4], tw[4], axis[3], across[3];
    int k;
    if (l == NULL) {
        random_quat(q);
        return;
    }
    for (k = 0; k < 4; k++) restd[k] = r->rest[10 * r->c[i] + 3 + k];
    rest = restd;
    if (l->kind == SN_IK_HINGE) {
        axis[0] = l->axis.x;
        axis[1] = l->axis.y;
        axis[2] = l->axis.z;
        unit3(axis);
        qaxis(axis, rnd(l->min, l->max), d);
    } else {
        bone_of(r, i, axis);
        random_across(axis, across);
        qaxis(across, (l->kind & SN_IK_CONE) ? rnd(0, l->cone) : rnd(0, PI * 0.99), sw);
        qaxis(axis, (l->kind & SN_IK_TWIST) ? rnd(l->twist_min, l->twist_max) : rnd(-PI * 0.99, PI * 0.99), tw);
        qmul(sw, tw, d);
    }
    qmul(rest, d, q);
}

/* Angles of chain joint i of `pose` against its limit: how far outside it (radians, 0 within). */
static double limit_excess(const rig *r, const sn_pose *pose, int i) {
    const sn_ik_limit *l = limit_of(r, r->c[i]);
    float trs[10];
    double q[4], rest[4], rc[4], d[4], axis[3], p, tw[4], twc[4], sw[4], ln, swing, ang, ex = 0;
    int k;
    if (l == NULL) return 0;
    sn_pose_get(pose, r->c[i], trs);
    for (k = 0; k < 4; k++) {
        q[k] = trs[3 + k];
        rest[k] = r->rest[10 * r->c[i] + 3 + k];
    }
    ln = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (k = 0; k < 4; k++) q[k] /= ln;
    ln = sqrt(rest[0] * rest[0] + rest[1] * rest[1] + rest[2] * rest[2] + rest[3] * rest[3]);
    for (k = 0; k < 4; k++) rest[k] /= ln;
    qconj(rest, rc);
    qmul(rc, q, d);
    if (d[3] < 0)
        for (k = 0; k < 4; k++) d[k] = -d[k];
    if (l->kind == SN_IK_HINGE) {
        axis[0] = l->axis.x;
        axis[1] = l->axis.y;
        axis[2] = l->axis.z;
        unit3(axis);
    } else {
        bone_of(r, i, axis);
    }
    p = dot3(d, axis);
    ln = sqrt(p * p + d[3] * d[3]);
    for (k = 0; k < 3; k++) tw[k] = axis[k] * p / ln;
    tw[3] = d[3] / ln;
    qconj(tw, twc);
    qmul(d, twc, sw);
    swing = 2 * atan2(norm3(sw), fabs(sw[3]));
    ang = 2 * atan2(p, d[3]);
    if (l->kind == SN_IK_HINGE) {
        ex = fmax(ex, swing);
        ex = fmax(ex, fmax(l->min - ang, ang - l->max));
    } else {
        if (l->kind & SN_IK_CONE) ex = fmax(ex, swing - l->cone);
        /* the twist of a joint swung by nearly a half turn is ill-conditioned: a float's rounding of
           the rotation moves it by that rounding over cos(swing / 2) (ln): the excess counts scaled
           by it */
        if (l->kind & SN_IK_TWIST) ex = fmax(ex, fmax(l->twist_min - ang, ang - l->twist_max) * ln);
    }
    return ex;
}

static sn_ik_chain *make_chain(const rig *r, int method, int iterations, double tolerance, int limited) {
    sn_ik_chain_def d;
    sn_error err;
    size_t size;
    void *mem;
    sn_ik_chain_def_init(&d);
    d.skeleton = r->s;
    d.count = r->n;
    d.joints = r->c;
    d.method = method;
    d.iterations = iterations;
    d.tolerance = tolerance;
    if (limited) {
        d.limit_count = r->nlim;
        d.limits = r->lim;
    }
    size = sn_ik_chain_size(&d, &err);
    if (size == 0) fprintf(stderr, "chain refused: %s\n", err.msg);
    ENSURE(size > 0);
    if (size == 0) return NULL;
    mem = fixture_block(size);
    ENSURE(sn_ik_chain_init(mem, size, &d, &err) == SN_OK);
    return (sn_ik_chain *)mem;
}

static void snapshot(const sn_pose *p, float *out) {
    int j, n = sn_skeleton_count(sn_pose_skeleton(p));
    for (j = 0; j < n; j++) sn_pose_get(p, j, out + 10 * j);
}

/* every channel bit for bit, but the rotations of the chain's joints other than the tip */
static int only_chain_rotations(const rig *r, const float *before, const float *after) {
    int j, c;
    for (j = 0; j < r->total; j++) {
        int free_rot = j >= r->c[0] && j < r->c[r->n - 1];
        for (c = 0; c < 10; c++) {
            if (free_rot && c >= 3 && c < 7) continue;
            if (memcmp(&before[10 * j + c], &after[10 * j + c], sizeof(float)) != 0) return 0;
        }
    }
    return 1;
}

/* bone lengths of the pose against `len` (relative error) */
static double length_error(const rig *r, const double *len) {
    double a[3], b[3], e = 0;
    int j;
    for (j = 0; j + 1 < r->n; j++) {
        ref_pos(r->pose, r->c[j], a);
        ref_pos(r->pose, r->c[j + 1], b);
        e = fmax(e, fabs(dist3(a, b) - len[j]) / len[j]);
    }
    return e;
}

/* ---- free chains ----------------------------------------------------------------------------- */

/* Reachable targets (the tip of a random pose of the chain), from another random pose: reached
   within the tolerance, lengths kept, nothing else written, and the distance returned is the
   pose's. */
static void free_chains(int method, int iterations, int *reached_out, int *cases_out, double *worst_len) {
    int c, reached = 0;
    float before[10 * (MAXJ + 4)], after[10 * (MAXJ + 4)];
    *worst_len = 0;
    for (c = 0; c < CASES; c++) {
        rig r;
        sn_ik_chain *ik;
        sn_vec3 t;
        double q[4], tp[3], tip[3], len[MAXJ], a[3], b[3], reach, left = -1, tol;
        unsigned flags;
        int j, n = c % 10 == 0 ? (int)rnd(7, 17) : (int)rnd(2, 7);
        make_rig(&r, n);
        for (j = 0; j + 1 < n; j++) random_quat(q), set_rot(r.pose, r.c[j], q);
        ref_pos(r.pose, r.c[n - 1], tp);
        for (j = 0; j + 1 < n; j++) random_quat(q), set_rot(r.pose, r.c[j], q);
        for (j = 0; j + 1 < n; j++) {
            ref_pos(r.pose, r.c[j], a);
            ref_pos(r.pose, r.c[j + 1], b);
            len[j] = dist3(a, b);
        }
        reach = reach_of(&r);
        tol = 1e-4 * reach;
        ik = make_chain(&r, method, iterations, tol, 0);
        if (ik == NULL) return;
        t.x = tp[0];
        t.y = tp[1];
        t.z = tp[2];
        snapshot(r.pose, before);
        ENSURE(sn_ik_chain_solve(ik, r.pose, &t, 1.0, &left, &flags, NULL) == SN_OK);
        snapshot(r.pose, after);
        ENSURE(only_chain_rotations(&r, before, after));
        ref_pos(r.pose, r.c[n - 1], tip);
        ENSURE_NEAR(left, dist3(tip, tp), 1e-5 * reach);
        /* floats: the written tip is within float rounding (1e-6 of the reach) of the solve's */
        if (dist3(tip, tp) <= tol + 2e-6 * reach) reached++;
        ENSURE(((flags & SN_IK_REACHED) != 0) == (left <= tol));
        ENSURE(!(flags & SN_IK_LIMITED));
        *worst_len = fmax(*worst_len, length_error(&r, len));
    }
    *reached_out = reached;
    *cases_out = CASES;
}

/* The rate of reached targets at several iteration counts (printed), the first being the
   default (16): FABRIK and CCD alone converge slowly on targets at the edge of the chain's reach
   (stretched out or folded up), the damped least-squares steps of the budget's second half finish
   them; the rate asked for is at the default count, and more at the largest. */
static void free_rates(int method, const int *iterations, int counts) {
    int k;
    for (k = 0; k < counts; k++) {
        int reached = 0, cases = 1;
        double le;
        fixture_seed = FIXTURE_SEED; /* the same chains at every count */
        free_chains(method, iterations[k], &reached, &cases, &le);
        printf("  free %s, %d iterations, tolerance 1e-4 of the reach: %d of %d reached (%.2f%%), lengths within %.2g\n",
               method == SN_IK_FABRIK ? "FABRIK" : "CCD", iterations[k], reached, cases, 100.0 * reached / cases, le);
        ENSURE(le <= 1e-6);
        if (k == 0) ENSURE(reached >= cases * 99 / 100);
        if (k == counts - 1) ENSURE(reached >= cases * 999 / 1000);
    }
}

static void test_free_fabrik(void) {
    static const int iterations[4] = {16, 8, 64, 256};
    free_rates(SN_IK_FABRIK, iterations, 4);
}

static void test_free_ccd(void) {
    static const int iterations[4] = {16, 8, 256, 1000};
    free_rates(SN_IK_CCD, iterations, 4);
}

/* ---- limited chains ---------------------------------------------------------------------------- */

static void limited_chains(int method, int iterations, int *reached_out, int *cases_out) {
    int c, reached = 0;
    double worst = 0;
    for (c = 0; c < CASES; c++) {
        rig r;
        sn_ik_chain *ik;
        sn_vec3 t;
        double q[4], tp[3], tip[3], reach, left = -1, tol, d0;
        unsigned flags;
        int j, n = c % 10 == 0 ? (int)rnd(7, 13) : (int)rnd(2, 7);
        make_rig(&r, n);
        random_limits(&r);
        for (j = 0; j + 1 < n; j++) random_within(&r, j, q), set_rot(r.pose, r.c[j], q);
        ref_pos(r.pose, r.c[n - 1], tp);
        for (j = 0; j + 1 < n; j++) random_within(&r, j, q), set_rot(r.pose, r.c[j], q);
        reach = reach_of(&r);
        tol = 1e-4 * reach;
        ik = make_chain(&r, method, iterations, tol, 1);
        if (ik == NULL) return;
        t.x = tp[0];
        t.y = tp[1];
        t.z = tp[2];
        ref_pos(r.pose, r.c[n - 1], tip);
        d0 = dist3(tip, tp);
        ENSURE(sn_ik_chain_solve(ik, r.pose, &t, 1.0, &left, &flags, NULL) == SN_OK);
        ref_pos(r.pose, r.c[n - 1], tip);
        /* never worse than the input (which is within its limits), to float rounding */
        ENSURE(dist3(tip, tp) <= d0 + 2e-6 * reach);
        if (dist3(tip, tp) <= tol + 2e-6 * reach) reached++;
        for (j = 0; j + 1 < n; j++) worst = fmax(worst, limit_excess(&r, r.pose, j));
    }
    printf("  limited %s, %d iterations, tolerance 1e-4 of the reach: %d of %d reached (%.2f%%), limits exceeded by at most "
           "%.2g rad\n",
           method == SN_IK_FABRIK ? "FABRIK" : "CCD", iterations, reached, CASES, 100.0 * reached / CASES, worst);
    ENSURE(worst <= 1e-6);
    *reached_out = reached;
    *cases_out = CASES;
}

/* Limited chains may stop where their limits hold them, away from the target: at the default
   count (the first) 90% of the targets are reached, 95% at the largest. */
static void limited_rates(int method, const int *iterations, int counts) {
    int k;
    for (k = 0; k < counts; k++) {
        int reached = 0, cases = 1;
        fixture_seed = FIXTURE_SEED + 1;
        limited_chains(method, iterations[k], &reached, &cases);
        if (k == 0) ENSURE(reached >= cases * 9 / 10);
        if (k == counts - 1) ENSURE(reached >= cases * 95 / 100);
    }
}

static void test_limited_fabrik(void) {
    static const int iterations[4] = {16, 8, 64, 256};
    limited_rates(SN_IK_FABRIK, iterations, 4);
}

static void test_limited_ccd(void) {
    static const int iterations[4] = {16, 8, 64, 256};
    limited_rates(SN_IK_CCD, iterations, 4);
}

/* An input outside its limits comes back within them, whatever the target. */
static void test_limits_restore(void) {
    int c;
    for (c = 0; c < 500; c++) {
        rig r;
        sn_ik_chain *ik;
        sn_vec3 t;
        double q[4], v[3];
        int j, n = (int)rnd(2, 7);
        make_rig(&r, n);
        random_limits(&r);
        for (j = 0; j + 1 < n; j++) random_quat(q), set_rot(r.pose, r.c[j], q);
        ik = make_chain(&r, c % 2 ? SN_IK_CCD : SN_IK_FABRIK, (int)rnd(1, 20), 1e-4, 1);
        random_dir(v);
        ref_pos(r.pose, r.c[0], q);
        t.x = q[0] + v[0] * rnd(0, 3);
        t.y = q[1] + v[1] * rnd(0, 3);
        t.z = q[2] + v[2] * rnd(0, 3);
        ENSURE(sn_ik_chain_solve(ik, r.pose, &t, 1.0, NULL, NULL, NULL) == SN_OK);
        for (j = 0; j + 1 < n; j++) ENSURE(limit_excess(&r, r.pose, j) <= 1e-6);
    }
}

/* ---- weight, determinism ---------------------------------------------------------------------- */

static void test_weight_and_determinism(void) {
    int c;
    for (c = 0; c < 1000; c++) {
        rig r;
        sn_ik_chain *ik;
        sn_pose *copy;
        sn_vec3 t;
        float before[10 * (MAXJ + 4)], after[10 * (MAXJ + 4)], again[10 * (MAXJ + 4)];
        double q[4], v[3], l1 = -1, l2 = -2, l0 = -1, tip[3];
        unsigned f1, f2;
        int j, n = (int)rnd(2, 9);
        make_rig(&r, n);
        if (c % 2) random_limits(&r);
        for (j = 0; j + 1 < n; j++) random_within(&r, j, q), set_rot(r.pose, r.c[j], q);
        ik = make_chain(&r, c % 4 < 2 ? SN_IK_CCD : SN_IK_FABRIK, 16, 1e-4, 1);
        random_dir(v);
        ref_pos(r.pose, r.c[0], q);
        t.x = q[0] + v[0] * rnd(0, 4);
        t.y = q[1] + v[1] * rnd(0, 4);
        t.z = q[2] + v[2] * rnd(0, 4);
        /* weight 0: bit for bit, and the distance as it is */
        snapshot(r.pose, before);
        ENSURE(sn_ik_chain_solve(ik, r.pose, &t, 0.0, &l0, NULL, NULL) == SN_OK);
        snapshot(r.pose, after);
        ENSURE(memcmp(before, after, sizeof(float) * 10 * (size_t)r.total) == 0);
        ref_pos(r.pose, r.c[n - 1], tip);
        ENSURE_NEAR(l0, dist3(tip, &t.x), 1e-5 * (1 + l0));
        /* two solves of one input: the same bits */
        copy = fixture_pose(r.s);
        ENSURE(sn_pose_copy(r.pose, copy, NULL) == SN_OK);
        ENSURE(sn_ik_chain_solve(ik, r.pose, &t, c % 3 ? 1.0 : 0.5, &l1, &f1, NULL) == SN_OK);
        ENSURE(sn_ik_chain_solve(ik, copy, &t, c % 3 ? 1.0 : 0.5, &l2, &f2, NULL) == SN_OK);
        snapshot(r.pose, after);
        snapshot(copy, again);
        ENSURE(memcmp(after, again, sizeof(float) * 10 * (size_t)r.total) == 0);
        ENSURE(memcmp(&l1, &l2, sizeof l1) == 0 && f1 == f2);
    }
}

/* angle between the rotations of two trs (radians, either sign of quaternion) */
static double rot_angle(const float *a, const float *b) {
    double dot = 0, la = 0, lb = 0;
    int k;
    for (k = 3; k < 7; k++) {
        dot += (double)a[k] * b[k];
        la += (double)a[k] * a[k];
        lb += (double)b[k] * b[k];
    }
    return 2 * acos(fmin(1, fabs(dot) / sqrt(la * lb)));
}

/* Weight 1/2: each joint halfway along the shorter arc from its input to the full solve's. */
static void test_weight_blends(void) {
    int c;
    for (c = 0; c < 300; c++) {
        rig r;
        sn_ik_chain *ik;
        sn_pose *full, *input;
        sn_vec3 t;
        float a[10], b[10], h[10];
        double q[4], v[3];
        int j, n = (int)rnd(2, 6);
        make_rig(&r, n);
        for (j = 0; j + 1 < n; j++) random_quat(q), set_rot(r.pose, r.c[j], q);
        ik = make_chain(&r, c % 2 ? SN_IK_CCD : SN_IK_FABRIK, 16, 1e-4, 0);
        random_dir(v);
        ref_pos(r.pose, r.c[0], q);
        t.x = q[0] + v[0];
        t.y = q[1] + v[1];
        t.z = q[2] + v[2];
        full = fixture_pose(r.s);
        input = fixture_pose(r.s);
        ENSURE(sn_pose_copy(r.pose, full, NULL) == SN_OK);
        ENSURE(sn_pose_copy(r.pose, input, NULL) == SN_OK);
        ENSURE(sn_ik_chain_solve(ik, full, &t, 1.0, NULL, NULL, NULL) == SN_OK);
        ENSURE(sn_ik_chain_solve(ik, r.pose, &t, 0.5, NULL, NULL, NULL) == SN_OK);
        for (j = 0; j + 1 < n; j++) {
            double whole;
            sn_pose_get(input, r.c[j], a);
            sn_pose_get(full, r.c[j], b);
            sn_pose_get(r.pose, r.c[j], h);
            whole = rot_angle(a, b);
            ENSURE_NEAR(rot_angle(a, h), whole / 2, 1e-3);
            ENSURE_NEAR(rot_angle(h, b), whole / 2, 1e-3);
        }
    }
}

/* ---- degenerate geometry ---------------------------------------------------------------------- */

static void test_degenerate(void) {
    int parents[5] = {-1, 0, 1, 2, 3}, joints[4] = {1, 2, 3, 4}, j;
    float rest[50], before[50], after[50];
    sn_skeleton *s;
    sn_pose *pose;
    sn_ik_chain_def d;
    sn_ik_chain *ik;
    sn_vec3 t = {1, 2, 3};
    double left = -1, tip[3], root[3];
    unsigned flags = 0;
    for (j = 0; j < 5; j++) {
        memset(rest + 10 * j, 0, 10 * sizeof(float));
        rest[10 * j + 6] = rest[10 * j + 7] = rest[10 * j + 8] = rest[10 * j + 9] = 1;
    }
    s = fixture_skeleton(5, parents, rest); /* every bone zero-length */
    pose = fixture_pose(s);
    sn_ik_chain_def_init(&d);
    d.skeleton = s;
    d.count = 4;
    d.joints = joints;
    ik = (sn_ik_chain *)fixture_block(sn_ik_chain_size(&d, NULL));
    ENSURE(sn_ik_chain_init(ik, sn_ik_chain_size(&d, NULL), &d, NULL) == SN_OK);
    snapshot(pose, before);
    ENSURE(sn_ik_chain_solve(ik, pose, &t, 1.0, &left, &flags, NULL) == SN_OK);
    snapshot(pose, after);
    ENSURE(flags == SN_IK_DEGENERATE && memcmp(before, after, sizeof before) == 0);
    ENSURE_NEAR(left, sqrt(14.0), 1e-12);

    /* a zero-length bone in the middle: the others reach, no NaN */
    rest[10 * 2 + 0] = 1;
    rest[10 * 4 + 1] = 1;
    s = fixture_skeleton(5, parents, rest);
    pose = fixture_pose(s);
    d.skeleton = s;
    for (j = 0; j < 2; j++) {
        d.method = j ? SN_IK_CCD : SN_IK_FABRIK;
        d.iterations = 100;
        d.tolerance = 1e-6;
        ik = (sn_ik_chain *)fixture_block(sn_ik_chain_size(&d, NULL));
        ENSURE(sn_ik_chain_init(ik, sn_ik_chain_size(&d, NULL), &d, NULL) == SN_OK);
        t.x = 0.5;
        t.y = 0.7;
        t.z = 0.3;
        sn_pose_reset(pose);
        ENSURE(sn_ik_chain_solve(ik, pose, &t, 1.0, &left, &flags, NULL) == SN_OK);
        ref_pos(pose, 4, tip);
        ENSURE(left <= 1e-5 && dist3(tip, &t.x) <= 1e-5);
        /* target on the root: flagged, the chain folds toward it, finite */
        t.x = t.y = t.z = 0;
        ENSURE(sn_ik_chain_solve(ik, pose, &t, 1.0, &left, &flags, NULL) == SN_OK);
        ENSURE((flags & SN_IK_TARGET_AT_ROOT) && left == left && left <= 2.0);
        snapshot(pose, after);
        for (int k = 0; k < 50; k++) ENSURE(after[k] == after[k]);
        /* out of reach: the chain lies straight toward the target */
        t.x = 10;
        t.y = -3;
        t.z = 4;
        ENSURE(sn_ik_chain_solve(ik, pose, &t, 1.0, &left, &flags, NULL) == SN_OK);
        ENSURE(flags & SN_IK_UNREACHABLE);
        ref_pos(pose, 1, root);
        ref_pos(pose, 4, tip);
        ENSURE_NEAR(left, sqrt(125.0) - 2.0, 1e-5);
        ENSURE_NEAR(dist3(tip, root), 2.0, 1e-5);
    }
}

/* ---- refused input -------------------------------------------------------------------------- */

static sn_skeleton *bad_skel;
static int bad_joints[4] = {1, 2, 3, 4};
static sn_ik_limit bad_limits[2];

static void valid_chain(sn_ik_chain_def *d) {
    sn_ik_chain_def_init(d);
    d->skeleton = bad_skel;
    d->count = 4;
    bad_joints[0] = 1;
    bad_joints[1] = 2;
    bad_joints[2] = 3;
    bad_joints[3] = 4;
    d->joints = bad_joints;
    sn_ik_limit_init(&bad_limits[0], 2);
    bad_limits[0].kind = SN_IK_HINGE;
    bad_limits[0].min = 0;
    bad_limits[0].max = 2;
    sn_ik_limit_init(&bad_limits[1], 3);
    bad_limits[1].kind = SN_IK_CONE | SN_IK_TWIST;
    bad_limits[1].cone = 1;
    d->limit_count = 2;
    d->limits = bad_limits;
}

static void no_skeleton(sn_ik_chain_def *d) { d->skeleton = NULL; }
static void one_joint(sn_ik_chain_def *d) { d->count = 1; }
static void too_many(sn_ik_chain_def *d) { d->count = SN_IK_CHAIN_MAX + 1; }
static void no_joints(sn_ik_chain_def *d) { d->joints = NULL; }
static void joint_out(sn_ik_chain_def *d) { bad_joints[2] = 9; (void)d; }
static void joint_negative(sn_ik_chain_def *d) { bad_joints[0] = -1; (void)d; }
static void repeated(sn_ik_chain_def *d) { bad_joints[3] = 2; (void)d; }
static void not_chain(sn_ik_chain_def *d) { bad_joints[3] = 5; (void)d; }
static void reversed(sn_ik_chain_def *d) { bad_joints[0] = 2, bad_joints[1] = 1; (void)d; }
static void bad_method(sn_ik_chain_def *d) { d->method = 7; }
static void zero_iter(sn_ik_chain_def *d) { d->iterations = 0; }
static void many_iter(sn_ik_chain_def *d) { d->iterations = SN_IK_CHAIN_MAX_ITERATIONS + 1; }
static void neg_tol(sn_ik_chain_def *d) { d->tolerance = -1; }
static void nan_tol(sn_ik_chain_def *d) { d->tolerance = NAN; }
static void many_limits(sn_ik_chain_def *d) { d->limit_count = 4; }
static void neg_limits(sn_ik_chain_def *d) { d->limit_count = -1; }
static void null_limits(sn_ik_chain_def *d) { d->limits = NULL; }
static void limit_off_chain(sn_ik_chain_def *d) { bad_limits[0].joint = 0; (void)d; }
static void limit_out(sn_ik_chain_def *d) { bad_limits[0].joint = 99; (void)d; }
static void limit_tip(sn_ik_chain_def *d) { bad_limits[1].joint = 4; (void)d; }
static void limit_twice(sn_ik_chain_def *d) { bad_limits[1].joint = 2; (void)d; }
static void kind_zero(sn_ik_chain_def *d) { bad_limits[0].kind = 0; (void)d; }
static void kind_bits(sn_ik_chain_def *d) { bad_limits[0].kind = 8; (void)d; }
static void hinge_cone(sn_ik_chain_def *d) { bad_limits[0].kind = SN_IK_HINGE | SN_IK_CONE; (void)d; }
static void axis_zero(sn_ik_chain_def *d) { bad_limits[0].axis.z = 0; (void)d; }
static void axis_nan(sn_ik_chain_def *d) { bad_limits[0].axis.x = NAN; (void)d; }
static void hinge_empty(sn_ik_chain_def *d) { bad_limits[0].min = 1, bad_limits[0].max = 0.5; (void)d; }
static void hinge_wide(sn_ik_chain_def *d) { bad_limits[0].max = 4; (void)d; }
static void hinge_inf(sn_ik_chain_def *d) { bad_limits[0].min = -INFINITY; (void)d; }
static void cone_neg(sn_ik_chain_def *d) { bad_limits[1].cone = -0.1; (void)d; }
static void cone_wide(sn_ik_chain_def *d) { bad_limits[1].cone = 3.5; (void)d; }
static void cone_nan(sn_ik_chain_def *d) { bad_limits[1].cone = NAN; (void)d; }
static void twist_empty(sn_ik_chain_def *d) { bad_limits[1].twist_min = 1, bad_limits[1].twist_max = 0; (void)d; }
static void twist_wide(sn_ik_chain_def *d) { bad_limits[1].twist_min = -4; (void)d; }
static void cone_no_bone(sn_ik_chain_def *d) { bad_limits[1].joint = 1, d->joints = bad_joints; bad_joints[0] = 1; (void)d; }

FIXTURE_CASE_TYPE(chain_case, sn_ik_chain_def);
static const chain_case chain_cases[] = {
    {"no skeleton", no_skeleton, "no skeleton"},
    {"one joint", one_joint, "a chain of 1 joints is out of range (2 .. 32)"},
    {"too many joints", too_many, "a chain of 33 joints"},
    {"no joints", no_joints, "no joints"},
    {"joint out of range", joint_out, "joint 3 of the chain: 10 is out of range (1 .. 6)"},
    {"joint negative", joint_negative, "joint 1 of the chain: 0 is out of range"},
    {"repeated joint", repeated, "joints 2 and 4 of the chain are the same joint 'j2'"},
    {"not a chain", not_chain, "'j5' (4) is not a child of 'j3' (3)"},
    {"reversed", reversed, "'j1' (2) is not a child of 'j2' (1)"},
    {"unknown method", bad_method, "unknown method 7"},
    {"zero iterations", zero_iter, "'iterations' 0 is out of range (1 .. 1000)"},
    {"too many iterations", many_iter, "'iterations' 1001"},
    {"negative tolerance", neg_tol, "'tolerance'"},
    {"NaN tolerance", nan_tol, "'tolerance' is not finite"},
    {"too many limits", many_limits, "4 limits is out of range (0 .. 3)"},
    {"negative limit count", neg_limits, "-1 limits"},
    {"no limits", null_limits, "no limits"},
    {"limit off the chain", limit_off_chain, "limit of 'j0': the joint is not on the chain"},
    {"limit out of range", limit_out, "limit 1: joint 100 is out of range (1 .. 6)"},
    {"limit on the tip", limit_tip, "limit of 'j4': the joint is the chain's tip"},
    {"limit twice", limit_twice, "limit of 'j2': the joint is limited twice"},
    {"kind 0", kind_zero, "kind 0 is not a hinge"},
    {"unknown kind bit", kind_bits, "kind 8"},
    {"hinge and cone", hinge_cone, "kind 3"},
    {"zero hinge axis", axis_zero, "the hinge axis is a zero vector"},
    {"NaN hinge axis", axis_nan, "the hinge axis is not finite"},
    {"empty hinge range", hinge_empty, "hinge angles 1 .. 0.5 is empty"},
    {"hinge beyond pi", hinge_wide, "hinge angles 0 .. 4 is out of range"},
    {"infinite hinge", hinge_inf, "hinge angles is not finite"},
    {"negative cone", cone_neg, "cone -0.1 is out of range"},
    {"cone beyond pi", cone_wide, "cone 3.5"},
    {"NaN cone", cone_nan, "cone is not finite"},
    {"empty twist", twist_empty, "twist 1 .. 0 is empty"},
    {"twist beyond pi", twist_wide, "twist -4 .. "},
    {"cone without a bone", cone_no_bone, "needs a bone, and 'j2' rests on the joint"},
};

static sn_status size_of(const sn_ik_chain_def *d, sn_error *err) { return sn_ik_chain_size(d, err) > 0 ? SN_OK : SN_EINVAL; }
static sn_status init_of(const sn_ik_chain_def *d, sn_error *err) {
    static unsigned char mem[1 << 16];
    return sn_ik_chain_init(mem, sizeof mem, d, err);
}

static void test_invalid_refused(void) {
    int parents[6] = {-1, 0, 1, 2, 3, 2};
    float rest[60];
    sn_ik_chain_def d;
    sn_ik_chain *ik;
    sn_pose *pose, *foreign;
    sn_error err;
    sn_vec3 t = {0.5, 0.5, 0}, bad;
    float before[60], after[60];
    unsigned char small[8];
    double left = 7;
    unsigned flags = 99;
    int j, k;
    for (j = 0; j < 6; j++) {
        memset(rest + 10 * j, 0, 10 * sizeof(float));
        rest[10 * j + 6] = rest[10 * j + 7] = rest[10 * j + 8] = rest[10 * j + 9] = 1;
        rest[10 * j + 1] = j == 2 ? 0.0f : 1.0f; /* j2 rests on j1: j1 has no bone */
    }
    bad_skel = fixture_skeleton(6, parents, rest);
    REFUSE_CASES(chain_cases, sn_ik_chain_def, valid_chain, sn_ik_chain_validate);
    REFUSE_CASES(chain_cases, sn_ik_chain_def, valid_chain, size_of);
    REFUSE_CASES(chain_cases, sn_ik_chain_def, valid_chain, init_of);
    ENSURE(sn_ik_chain_validate(NULL, &err) == SN_EINVAL && strstr(err.msg, "no chain definition") != NULL);
    valid_chain(&d);
    ENSURE(sn_ik_chain_init(small, sizeof small, &d, &err) == SN_ENOMEM && strstr(err.msg, "needs") != NULL);
    ENSURE(sn_ik_chain_init(NULL, 1 << 16, &d, &err) == SN_ENOMEM);
    /* the defaults, and what a solver says of itself */
    sn_ik_chain_def_init(&d);
    ENSURE(d.method == SN_IK_FABRIK && d.iterations == 16 && d.tolerance == 1e-4 && d.limit_count == 0);
    valid_chain(&d);
    d.method = SN_IK_CCD;
    ik = (sn_ik_chain *)fixture_block(sn_ik_chain_size(&d, NULL));
    ENSURE(sn_ik_chain_init(ik, sn_ik_chain_size(&d, NULL), &d, &err) == SN_OK);
    ENSURE(sn_ik_chain_skeleton(ik) == bad_skel && sn_ik_chain_count(ik) == 4 && sn_ik_chain_joint(ik, 0) == 1 &&
           sn_ik_chain_joint(ik, 3) == 4 && sn_ik_chain_joint(ik, 4) == -1 && sn_ik_chain_joint(ik, -1) == -1);
    ENSURE(sn_ik_chain_method(ik) == SN_IK_CCD && sn_ik_chain_iterations(ik) == 16 && sn_ik_chain_tolerance(ik) == 1e-4);
    ENSURE(sn_ik_chain_set_iterations(ik, 0, &err) == SN_EINVAL && strstr(err.msg, "'iterations' 0") && err.arg == 1);
    ENSURE(sn_ik_chain_set_iterations(ik, 5, &err) == SN_OK && sn_ik_chain_iterations(ik) == 5);
    ENSURE(sn_ik_chain_set_tolerance(ik, NAN, &err) == SN_EINVAL && strstr(err.msg, "'tolerance' is not finite"));
    ENSURE(sn_ik_chain_set_tolerance(ik, -1, &err) == SN_EINVAL);
    ENSURE(sn_ik_chain_set_tolerance(ik, 0.01, &err) == SN_OK && sn_ik_chain_tolerance(ik) == 0.01);
    ENSURE(sn_ik_chain_tolerance(ik) == 0.01 && sn_ik_chain_iterations(ik) == 5);
    /* solves that refuse write nothing and name the argument */
    pose = fixture_pose(bad_skel);
    foreign = fixture_pose(fixture_skeleton(6, parents, rest));
    snapshot(pose, before);
    ENSURE(sn_ik_chain_solve(ik, NULL, &t, 1, &left, &flags, &err) == SN_EINVAL && err.arg == 1 && strstr(err.msg, "no pose"));
    ENSURE(sn_ik_chain_solve(ik, foreign, &t, 1, &left, &flags, &err) == SN_EINVAL && err.arg == 1 &&
           strstr(err.msg, "pose of another skeleton"));
    ENSURE(sn_ik_chain_solve(ik, pose, NULL, 1, &left, &flags, &err) == SN_EINVAL && err.arg == 2);
    for (k = 0; k < 4; k++) {
        bad = t;
        if (k == 0) bad.x = NAN;
        if (k == 1) bad.y = INFINITY;
        if (k == 2) bad.z = -INFINITY;
        if (k == 3) bad.x = 2 * SN_IK_MAX_COORD;
        ENSURE(sn_ik_chain_solve(ik, pose, &bad, 1, &left, &flags, &err) == SN_EINVAL && err.arg == 2 &&
               strstr(err.msg, "target") != NULL);
    }
    ENSURE(sn_ik_chain_solve(ik, pose, &t, -0.1, &left, &flags, &err) == SN_EINVAL && err.arg == 4 && strstr(err.msg, "weight"));
    ENSURE(sn_ik_chain_solve(ik, pose, &t, NAN, &left, &flags, &err) == SN_EINVAL && err.arg == 4);
    ENSURE(sn_ik_chain_solve(ik, pose, &t, 1.5, &left, &flags, &err) == SN_EINVAL && err.arg == 4);
    {
        float trs[10];
        sn_pose_get(pose, 2, trs);
        trs[3] = trs[4] = trs[5] = trs[6] = 0;
        sn_pose_set(pose, 2, trs);
        snapshot(pose, before);
        ENSURE(sn_ik_chain_solve(ik, pose, &t, 1, &left, &flags, &err) == SN_EINVAL && err.arg == 1 &&
               strstr(err.msg, "joint 'j2' of the pose has a zero rotation"));
        trs[6] = 1;
        trs[0] = NAN;
        sn_pose_set(pose, 2, trs);
        snapshot(pose, before);
        ENSURE(sn_ik_chain_solve(ik, pose, &t, 1, &left, &flags, &err) == SN_EINVAL && err.arg == 1 &&
               strstr(err.msg, "joint 'j2' of the pose is not finite"));
        trs[0] = 1e30f;
        sn_pose_set(pose, 2, trs);
        snapshot(pose, before);
        ENSURE(sn_ik_chain_solve(ik, pose, &t, 1, &left, &flags, &err) == SN_EINVAL && err.arg == 1 &&
               strstr(err.msg, "out of range"));
    }
    snapshot(pose, after);
    ENSURE(memcmp(before, after, sizeof before) == 0 && flags == 0);
}

int main(void) {
    RUN(test_invalid_refused);
    RUN(test_degenerate);
    RUN(test_free_fabrik);
    RUN(test_free_ccd);
    RUN(test_limited_fabrik);
    RUN(test_limited_ccd);
    RUN(test_limits_restore);
    RUN(test_weight_and_determinism);
    RUN(test_weight_blends);
    fixture_free();
    return END("test_ik_chain");
}
