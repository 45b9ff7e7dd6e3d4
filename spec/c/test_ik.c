/* C-only tests of the IK solvers (src/core/ik*.c): random chains against closed-form answers,
   every degenerate case and every refused input. No Lua involved. */
#define FIXTURE_SEED 2525
#include "fixtures.h"

#include "frames.h"
#include "ik.h"

#define PI 3.14159265358979323846
#define CASES 4000

/* ---- vector helpers beyond frames.h's --------------------------------------------------------- */

/* a minus its part along the unit b */
static void reject3(double *a, const double *b) {
    double k = dot3(a, b);
    a[0] -= k * b[0];
    a[1] -= k * b[1];
    a[2] -= k * b[2];
}
static double angle3(const double *a, const double *b) {
    double c[3];
    cross3(a, b, c);
    return atan2(norm3(c), dot3(a, b));
}
/* v rotated by `angle` about the unit axis (Rodrigues) */
static void turn3(const double *axis, double angle, const double *v, double *o) {
    double c[3], k = dot3(axis, v), cs = cos(angle), sn = sin(angle);
    int i;
    cross3(axis, v, c);
    for (i = 0; i < 3; i++) o[i] = v[i] * cs + c[i] * sn + axis[i] * k * (1 - cs);
}

/* ---- random rigs ------------------------------------------------------------------------------ */

/* A skeleton of `anc` ancestors in a line, a side joint, then root, mid, tip and a child of the
   tip; a pose with random translations, rotations and uniform scales, bones of random lengths. */
typedef struct rig {
    sn_skeleton *s;
    sn_pose *pose;
    int root, mid, tip;
    int n;
} rig;

static void set_joint(sn_pose *pose, int j, const double *t, const double *q, double s) {
    float trs[10];
    int i;
    for (i = 0; i < 3; i++) trs[i] = (float)t[i];
    for (i = 0; i < 4; i++) trs[3 + i] = (float)q[i];
    trs[7] = trs[8] = trs[9] = (float)s;
    sn_pose_set(pose, j, trs);
}

static rig make_rig(int anc) {
    int parents[16], j;
    rig r;
    r.n = anc + 5;
    for (j = 0; j < anc; j++) parents[j] = j - 1;
    parents[anc] = anc > 0 ? (int)rnd(0, anc - 0.001) : -1; /* a side branch */
    r.root = anc + 1;
    r.mid = anc + 2;
    r.tip = anc + 3;
    parents[r.root] = anc - 1;
    parents[r.mid] = r.root;
    parents[r.tip] = r.mid;
    parents[anc + 4] = r.tip;
    r.s = fixture_skeleton(r.n, parents, NULL);
    r.pose = fixture_pose(r.s);
    for (j = 0; j < r.n; j++) {
        double t[3], q[4], len = (j == r.mid || j == r.tip) ? rnd(0.05, 2) : rnd(0, 1.5);
        random_dir(t);
        t[0] *= len;
        t[1] *= len;
        t[2] *= len;
        random_quat(q);
        set_joint(r.pose, j, t, q, j == r.mid || j == r.tip ? 1.0 : rnd(0.5, 2));
    }
    return r;
}

static void snapshot(const sn_pose *p, float *out) {
    int j, n = sn_skeleton_count(sn_pose_skeleton(p));
    for (j = 0; j < n; j++) sn_pose_get(p, j, out + 10 * j);
}

/* every channel equal, but the rotations of the `nfree` joints listed */
static int unchanged_but(const float *before, const float *after, int n, const int *free_joints, int nfree) {
    int j, c, k;
    for (j = 0; j < n; j++) {
        int rot_free = 0;
        for (k = 0; k < nfree; k++) rot_free |= free_joints[k] == j;
        for (c = 0; c < 10; c++) {
            if (rot_free && c >= 3 && c < 7) continue;
            if (memcmp(&before[10 * j + c], &after[10 * j + c], sizeof(float)) != 0) return 0;
        }
    }
    return 1;
}

/* ---- two-bone --------------------------------------------------------------------------------- */

static sn_ik_two_bone *make_two_bone(const sn_ik_two_bone_def *d) {
    sn_error err;
    size_t size = sn_ik_two_bone_size(d, &err);
    void *mem;
    ENSURE(size > 0);
    if (size == 0) return NULL;
    mem = fixture_block(size);
    ENSURE(sn_ik_two_bone_init(mem, size, d, &err) == SN_OK);
    return (sn_ik_two_bone *)mem;
}

/* The knee hinge of a rig: across both bones in the input pose (either sign), in the mid's frame,
   so that ozz's reach holds: fold |l1 - l2| .. reach l1 + l2. */
static void hinge_across(const rig *r, sn_vec3 *axis) {
    mframe m;
    double a[3], b[3], c[3], u[3], v[3], n[3], qc[4];
    ref_pos(r->pose, r->root, a);
    ref_model(r->pose, r->mid, &m);
    memcpy(b, m.p, sizeof b);
    ref_pos(r->pose, r->tip, c);
    sub3(b, a, u);
    sub3(c, b, v);
    cross3(u, v, n);
    if (norm3(n) < 1e-6 * norm3(u) * norm3(v)) { /* straight: any axis across u */
        double e[3] = {1, 0, 0};
        if (fabs(u[0]) > 0.5 * norm3(u)) e[0] = 0, e[1] = 1;
        cross3(u, e, n);
    }
    unit3(n);
    if (rnd(0, 1) < 0.5) n[0] = -n[0], n[1] = -n[1], n[2] = -n[2];
    qc[0] = -m.q[0]; qc[1] = -m.q[1]; qc[2] = -m.q[2]; qc[3] = m.q[3];
    qrot(qc, n, n);
    axis->x = n[0];
    axis->y = n[1];
    axis->z = n[2];
}

typedef struct leg {
    rig r;
    sn_ik_two_bone_def d;
    sn_ik_two_bone *ik;
    double a[3], b[3], c[3], l1, l2;  /* input positions and bone lengths */
} leg;

static leg make_leg(void) {
    leg g;
    double u[3], v[3];
    g.r = make_rig((int)rnd(0, 4.999));
    sn_ik_two_bone_def_init(&g.d);
    g.d.skeleton = g.r.s;
    g.d.joints[0] = g.r.root;
    g.d.joints[1] = g.r.mid;
    g.d.joints[2] = g.r.tip;
    hinge_across(&g.r, &g.d.mid_axis);
    g.ik = make_two_bone(&g.d);
    ref_pos(g.r.pose, g.r.root, g.a);
    ref_pos(g.r.pose, g.r.mid, g.b);
    ref_pos(g.r.pose, g.r.tip, g.c);
    sub3(g.b, g.a, u);
    sub3(g.c, g.b, v);
    g.l1 = norm3(u);
    g.l2 = norm3(v);
    return g;
}

static sn_vec3 vec(const double *v) {
    sn_vec3 r;
    r.x = v[0];
    r.y = v[1];
    r.z = v[2];
    return r;
}

/* a target at distance `dist` from the root in a random direction, and a pole at a random point
   at least 0.1 rad off the root-target line */
static void target_pole(const leg *g, double dist, double *t, double *p) {
    double dir[3], pd[3];
    int i;
    random_dir(dir);
    do random_dir(pd);
    while (angle3(dir, pd) < 0.1 || angle3(dir, pd) > PI - 0.1);
    for (i = 0; i < 3; i++) {
        t[i] = g->a[i] + dist * dir[i];
        p[i] = g->a[i] + rnd(0.2, 3) * pd[i];
    }
}

/* the mid's model hinge after the solve */
static void model_hinge(const leg *g, double *n) {
    mframe m;
    double a[3] = {g->d.mid_axis.x, g->d.mid_axis.y, g->d.mid_axis.z};
    unit3(a);
    ref_model(g->r.pose, g->r.mid, &m);
    qrot(m.q, a, n);
}

static void test_two_bone_reaches(void) {
    int i, bad_tip = 0, bad_plane = 0, bad_side = 0, bad_len = 0, bad_flags = 0, bad_hinge = 0, bad_other = 0;
    double worst = 0;
    for (i = 0; i < CASES; i++) {
        leg g = make_leg();
        double L = g.l1 + g.l2, lo = fabs(g.l1 - g.l2), t[3], p[3], a[3], b[3], c[3], d[3], n[3], ab[3], bc[3], nrm[3];
        double dist = lo + rnd(0.01, 0.99) * (L - lo), e, side;
        float before[100], after[100];
        int frees[2] = {g.r.root, g.r.mid};
        unsigned fl;
        sn_vec3 tv, pv;
        sn_error err;
        target_pole(&g, dist, t, p);
        tv = vec(t);
        pv = vec(p);
        snapshot(g.r.pose, before);
        ENSURE(sn_ik_two_bone_solve(g.ik, g.r.pose, &tv, &pv, 1.0, &fl, &err) == SN_OK);
        snapshot(g.r.pose, after);
        if (!unchanged_but(before, after, g.r.n, frees, 2)) bad_other++;
        if (fl != SN_IK_REACHED) bad_flags++;
        ref_pos(g.r.pose, g.r.root, a);
        ref_pos(g.r.pose, g.r.mid, b);
        ref_pos(g.r.pose, g.r.tip, c);
        sub3(c, t, d);
        e = norm3(d) / L;
        if (e > worst) worst = e;
        if (!(e <= 1e-5)) bad_tip++;
        /* lengths unchanged, the root where it was */
        sub3(b, a, ab);
        sub3(c, b, bc);
        if (!(fabs(norm3(ab) - g.l1) <= 1e-9 * L && fabs(norm3(bc) - g.l2) <= 1e-9 * L && fabs(a[0] - g.a[0]) <= 1e-12 * L))
            bad_len++;
        /* the mid in the plane of root, target and pole, on the pole's side */
        sub3(t, a, d);
        sub3(p, a, p);
        cross3(d, p, nrm);
        unit3(nrm);
        if (!(fabs(dot3(ab, nrm)) <= 1e-5 * L)) bad_plane++;
        {
            double dn[3] = {d[0], d[1], d[2]}, mp[3], pp[3];
            int k;
            unit3(dn);
            for (k = 0; k < 3; k++) {
                mp[k] = ab[k] - dot3(ab, dn) * dn[k];
                pp[k] = p[k] - dot3(p, dn) * dn[k];
            }
            side = dot3(mp, pp);
            if (!(side >= -1e-9 * L * norm3(pp))) bad_side++;
        }
        /* bent the way a positive turn about mid_axis opens; the knee turned about its hinge only */
        model_hinge(&g, n);
        cross3(ab, n, nrm);
        if (!(dot3(nrm, bc) >= -1e-6 * L * L)) bad_side++;
        {
            double qi[4], qo[4], dq[4], ax[3] = {g.d.mid_axis.x, g.d.mid_axis.y, g.d.mid_axis.z}, cr[3];
            int k;
            for (k = 0; k < 4; k++) {
                qi[k] = before[10 * g.r.mid + 3 + k];
                qo[k] = after[10 * g.r.mid + 3 + k];
            }
            qi[0] = -qi[0], qi[1] = -qi[1], qi[2] = -qi[2];
            qmul(qi, qo, dq); /* input^-1 * output: the local turn */
            unit3(ax);
            cross3(dq, ax, cr);
            if (!(norm3(cr) <= 1e-6)) bad_hinge++;
        }
    }
    ENSURE(bad_tip == 0);
    ENSURE(bad_plane == 0);
    ENSURE(bad_side == 0);
    ENSURE(bad_len == 0);
    ENSURE(bad_flags == 0);
    ENSURE(bad_hinge == 0);
    ENSURE(bad_other == 0);
    printf("two-bone: %d reachable targets, worst tip error %.3g of the chain length\n", CASES, worst);
    fixture_free();
}

/* a hinge at any angle to the bones (not only across both, as ozz assumes): every distance the knee
   can make is reached exactly, by a turn about mid_axis only */
static void test_two_bone_any_hinge(void) {
    int i, bad_tip = 0, bad_hinge = 0, bad_plane = 0;
    for (i = 0; i < CASES / 2; i++) {
        leg g = make_leg();
        double L = g.l1 + g.l2, n[3], u[3], v[3], vt[3], e[3], q[4], t[3], p[3], a[3], b[3], c[3], d[3], nrm[3], ab[3];
        mframe m;
        unsigned fl;
        sn_vec3 tv, pv;
        int k;
        random_dir(n); /* the hinge, in the mid's frame */
        g.d.mid_axis = vec(n);
        g.ik = make_two_bone(&g.d);
        /* a tip the knee can make: turn v about the model hinge by a random angle, then the whole
           chain by a random rotation about the root */
        ref_model(g.r.pose, g.r.mid, &m);
        qrot(m.q, n, n);
        sub3(g.b, g.a, u);
        sub3(g.c, g.b, v);
        turn3(n, rnd(-PI, PI), v, vt);
        for (k = 0; k < 3; k++) e[k] = u[k] + vt[k];
        random_quat(q);
        qrot(q, e, e);
        for (k = 0; k < 3; k++) t[k] = g.a[k] + e[k];
        if (norm3(e) < 1e-3 * L) continue;
        random_dir(p);
        if (angle3(p, e) < 0.1 || angle3(p, e) > PI - 0.1) continue;
        for (k = 0; k < 3; k++) p[k] += g.a[k];
        tv = vec(t);
        pv = vec(p);
        {
            float before[100], after[100];
            double qi[4], qo[4], dq[4], ax[3] = {g.d.mid_axis.x, g.d.mid_axis.y, g.d.mid_axis.z}, cr[3];
            snapshot(g.r.pose, before);
            ENSURE(sn_ik_two_bone_solve(g.ik, g.r.pose, &tv, &pv, 1.0, &fl, NULL) == SN_OK);
            snapshot(g.r.pose, after);
            for (k = 0; k < 4; k++) {
                qi[k] = before[10 * g.r.mid + 3 + k];
                qo[k] = after[10 * g.r.mid + 3 + k];
            }
            qi[0] = -qi[0], qi[1] = -qi[1], qi[2] = -qi[2];
            qmul(qi, qo, dq);
            unit3(ax);
            cross3(dq, ax, cr);
            if (!(norm3(cr) <= 1e-6)) bad_hinge++;
        }
        ref_pos(g.r.pose, g.r.root, a);
        ref_pos(g.r.pose, g.r.mid, b);
        ref_pos(g.r.pose, g.r.tip, c);
        sub3(c, t, d);
        if (!(norm3(d) <= 1e-5 * L) || !(fl & SN_IK_REACHED)) bad_tip++;
        /* the mid in the plane of root, target and pole */
        sub3(t, a, d);
        sub3(p, a, p);
        cross3(d, p, nrm);
        unit3(nrm);
        sub3(b, a, ab);
        if (!(fabs(dot3(ab, nrm)) <= 1e-5 * L)) bad_plane++;
    }
    ENSURE(bad_tip == 0);
    ENSURE(bad_hinge == 0);
    ENSURE(bad_plane == 0);
    fixture_free();
}

static void test_two_bone_unreachable(void) {
    int i, bad = 0, bad_flags = 0;
    for (i = 0; i < CASES; i++) {
        leg g = make_leg();
        double L = g.l1 + g.l2, lo = fabs(g.l1 - g.l2), t[3], p[3], a[3], b[3], c[3], dir[3], want[3], mid_off[3];
        int far = i % 2 == 0 || lo < 0.05 * L, k;
        double dist = far ? L * rnd(1.001, 4) : lo * rnd(0, 0.98);
        unsigned fl;
        sn_vec3 tv, pv;
        target_pole(&g, dist, t, p);
        if (dist < 1e-6 * L) continue;
        tv = vec(t);
        pv = vec(p);
        ENSURE(sn_ik_two_bone_solve(g.ik, g.r.pose, &tv, &pv, 1.0, &fl, NULL) == SN_OK);
        if (fl != SN_IK_UNREACHABLE) bad_flags++;
        ref_pos(g.r.pose, g.r.root, a);
        ref_pos(g.r.pose, g.r.mid, b);
        ref_pos(g.r.pose, g.r.tip, c);
        sub3(t, a, dir);
        unit3(dir);
        /* straight (far) or folded (near) toward the target: the mid on the line too */
        for (k = 0; k < 3; k++) want[k] = a[k] + (far ? L : lo) * dir[k];
        sub3(c, want, want);
        sub3(b, a, mid_off);
        reject3(mid_off, dir);
        if (!(norm3(want) <= 1e-5 * L && norm3(mid_off) <= 1e-5 * L)) bad++;
    }
    ENSURE(bad == 0);
    ENSURE(bad_flags == 0);
    fixture_free();
}

static void test_two_bone_weight(void) {
    int i, bad0 = 0, bad_half = 0;
    for (i = 0; i < CASES / 4; i++) {
        leg g = make_leg();
        double L = g.l1 + g.l2, t[3], p[3];
        float before[100], after[100], full[100];
        unsigned fl;
        sn_vec3 tv, pv;
        sn_pose *copy = fixture_pose(g.r.s);
        int k, j;
        target_pole(&g, rnd(0, 1.5) * L, t, p);
        tv = vec(t);
        pv = vec(p);
        snapshot(g.r.pose, before);
        ENSURE(sn_ik_two_bone_solve(g.ik, g.r.pose, &tv, &pv, 0.0, &fl, NULL) == SN_OK);
        snapshot(g.r.pose, after);
        if (memcmp(before, after, sizeof(float) * 10 * (size_t)g.r.n) != 0 || fl != 0) bad0++;
        /* weight w: each rotation a fraction w of the way (shorter arc) to the full solve's */
        ENSURE(sn_pose_copy(g.r.pose, copy, NULL) == SN_OK);
        ENSURE(sn_ik_two_bone_solve(g.ik, copy, &tv, &pv, 1.0, NULL, NULL) == SN_OK);
        snapshot(copy, full);
        {
            double w = rnd(0.05, 0.95);
            ENSURE(sn_ik_two_bone_solve(g.ik, g.r.pose, &tv, &pv, w, &fl, NULL) == SN_OK);
            ENSURE(!(fl & SN_IK_REACHED));
            snapshot(g.r.pose, after);
            for (k = 0; k < 2; k++) {
                double qi[4], qh[4], qf[4], dh, df;
                j = k == 0 ? g.r.root : g.r.mid;
                {
                    int m;
                    for (m = 0; m < 4; m++) {
                        qi[m] = before[10 * j + 3 + m];
                        qh[m] = after[10 * j + 3 + m];
                        qf[m] = full[10 * j + 3 + m];
                    }
                }
                dh = 2 * acos(fmin(1, fabs(qi[0] * qh[0] + qi[1] * qh[1] + qi[2] * qh[2] + qi[3] * qh[3])));
                df = 2 * acos(fmin(1, fabs(qi[0] * qf[0] + qi[1] * qf[1] + qi[2] * qf[2] + qi[3] * qf[3])));
                if (!(fabs(dh - w * df) <= 2e-3)) bad_half++;
            }
        }
    }
    ENSURE(bad0 == 0);
    ENSURE(bad_half == 0);
    fixture_free();
}

/* soften s: targets beyond s x reach fall behind along da + ds (1 - exp(-(d - da) / ds)); the tip's
   distance never pops (rises with the target's at slope at most 1, below the reach) */
static void test_two_bone_soften(void) {
    int i, bad = 0, bad_mono = 0;
    for (i = 0; i < 200; i++) {
        leg g = make_leg();
        double L = g.l1 + g.l2, lo = fabs(g.l1 - g.l2), s = rnd(0.5, 0.99), da = s * L, ds = L - da, dir[3], p[3];
        double prev_tip = -1, prev_d = 0;
        int k, m;
        sn_pose *work = fixture_pose(g.r.s);
        ENSURE(sn_ik_two_bone_set_soften(g.ik, s, NULL) == SN_OK);
        random_dir(dir);
        random_dir(p);
        for (k = 0; k < 3; k++) p[k] = g.a[k] + p[k];
        for (m = 0; m <= 60; m++) {
            double d = fmax(lo * 1.01, da * 0.9) + m * (2.0 * L - da * 0.9) / 60, t[3], c[3], a[3], off[3], want;
            unsigned fl;
            sn_vec3 tv, pv = vec(p);
            for (k = 0; k < 3; k++) t[k] = g.a[k] + d * dir[k];
            tv = vec(t);
            ENSURE(sn_pose_copy(g.r.pose, work, NULL) == SN_OK);
            ENSURE(sn_ik_two_bone_solve(g.ik, work, &tv, &pv, 1.0, &fl, NULL) == SN_OK);
            ref_pos(work, g.r.root, a);
            ref_pos(work, g.r.tip, c);
            sub3(c, a, off);
            want = d <= da ? d : da + ds * (1 - exp(-(d - da) / ds));
            want = fmax(want, lo); /* softened nearer than the folded chain reaches: folded */
            if (!(fabs(norm3(off) - want) <= 1e-5 * L && angle3(off, dir) <= 1e-5)) bad++;
            if (!(((fl & SN_IK_SOFTENED) != 0) == (d > da) && ((fl & SN_IK_REACHED) != 0) == (d <= da))) bad++;
            if (!(norm3(off) <= L * (1 + 1e-12))) bad++;
            if (prev_tip >= 0 && !(norm3(off) >= prev_tip - 1e-6 * L && norm3(off) - prev_tip <= (d - prev_d) + 1e-6 * L))
                bad_mono++;
            prev_tip = norm3(off);
            prev_d = d;
        }
    }
    ENSURE(bad == 0);
    ENSURE(bad_mono == 0);
    fixture_free();
}

/* twist tau turns the twist-0 solution about the root-target axis by tau; the tip stays on target */
static void test_two_bone_twist(void) {
    int i, bad = 0;
    for (i = 0; i < 500; i++) {
        leg g = make_leg();
        double L = g.l1 + g.l2, lo = fabs(g.l1 - g.l2), t[3], p[3], tau = rnd(-PI, PI), b0[3], b1[3], c1[3], a[3], ax[3], want[3];
        sn_pose *base = fixture_pose(g.r.s);
        sn_vec3 tv, pv;
        ENSURE(sn_pose_copy(g.r.pose, base, NULL) == SN_OK);
        target_pole(&g, lo + rnd(0.05, 0.95) * (L - lo), t, p);
        tv = vec(t);
        pv = vec(p);
        ENSURE(sn_ik_two_bone_solve(g.ik, base, &tv, &pv, 1.0, NULL, NULL) == SN_OK);
        ENSURE(sn_ik_two_bone_set_twist(g.ik, tau, NULL) == SN_OK);
        ENSURE(sn_ik_two_bone_solve(g.ik, g.r.pose, &tv, &pv, 1.0, NULL, NULL) == SN_OK);
        ref_pos(base, g.r.mid, b0);
        ref_pos(g.r.pose, g.r.root, a);
        ref_pos(g.r.pose, g.r.mid, b1);
        ref_pos(g.r.pose, g.r.tip, c1);
        sub3(t, a, ax);
        unit3(ax);
        sub3(b0, a, b0);
        turn3(ax, tau, b0, want);
        sub3(b1, a, b1);
        sub3(want, b1, want);
        sub3(c1, t, c1);
        if (!(norm3(want) <= 1e-5 * L && norm3(c1) <= 1e-5 * L)) bad++;
    }
    ENSURE(bad == 0);
    fixture_free();
}

/* degenerate geometry: documented fallbacks, nothing refused, never a NaN */
static void test_two_bone_degenerate(void) {
    int i, bad = 0, badk[5] = {0, 0, 0, 0, 0};
    for (i = 0; i < 400; i++) {
        leg g = make_leg();
        double L = g.l1 + g.l2, lo = fabs(g.l1 - g.l2), t[3], p[3], a[3], b[3], c[3], d[3], dir[3];
        float before[100], after[100];
        unsigned fl;
        sn_vec3 tv, pv;
        int k, kind = i % 5;
        target_pole(&g, lo + rnd(0.05, 0.95) * (L - lo), t, p);
        if (kind == 0 || kind == 1) { /* a zero-length bone: nothing written */
            float trs[10];
            int j = kind == 0 ? g.r.mid : g.r.tip;
            sn_pose_get(g.r.pose, j, trs);
            trs[0] = trs[1] = trs[2] = 0;
            sn_pose_set(g.r.pose, j, trs);
            snapshot(g.r.pose, before);
            tv = vec(t);
            pv = vec(p);
            ENSURE(sn_ik_two_bone_solve(g.ik, g.r.pose, &tv, &pv, 1.0, &fl, NULL) == SN_OK);
            snapshot(g.r.pose, after);
            if (fl != SN_IK_DEGENERATE || memcmp(before, after, sizeof(float) * 10 * (size_t)g.r.n) != 0) bad++, badk[kind]++;
            continue;
        }
        if (kind == 2) { /* the target on the root: folded toward the current root-tip direction */
            sub3(g.c, g.a, dir);
            unit3(dir);
            tv = vec(g.a);
            pv = vec(p);
            ENSURE(sn_ik_two_bone_solve(g.ik, g.r.pose, &tv, &pv, 1.0, &fl, NULL) == SN_OK);
            ref_pos(g.r.pose, g.r.root, a);
            ref_pos(g.r.pose, g.r.tip, c);
            sub3(c, a, d);
            if (!(fl & SN_IK_TARGET_AT_ROOT) || !(fabs(norm3(d) - lo) <= 1e-5 * L)) bad++, badk[kind]++;
            if (lo > 1e-3 * L && !(angle3(d, dir) <= 1e-4)) bad++, badk[kind]++;
            continue;
        }
        if (kind == 3) { /* the pole on the root-target line (or on the root): the tip still on target */
            double along = i % 2 ? 0.0 : rnd(-2, 2);
            for (k = 0; k < 3; k++) p[k] = g.a[k] + along * (t[k] - g.a[k]);
            tv = vec(t);
            pv = vec(p);
            ENSURE(sn_ik_two_bone_solve(g.ik, g.r.pose, &tv, &pv, 1.0, &fl, NULL) == SN_OK);
            ref_pos(g.r.pose, g.r.tip, c);
            sub3(c, t, d);
            if (!(fl & SN_IK_POLE_ON_LINE) || !(fl & SN_IK_REACHED) || !(norm3(d) <= 1e-5 * L)) bad++, badk[kind]++;
            continue;
        }
        { /* a hinge along the mid-tip bone: the knee cannot turn, the chain points at the target */
            mframe m;
            double v[3], qc[4];
            sn_ik_two_bone *ik;
            ref_model(g.r.pose, g.r.mid, &m);
            sub3(g.c, g.b, v);
            qc[0] = -m.q[0]; qc[1] = -m.q[1]; qc[2] = -m.q[2]; qc[3] = m.q[3];
            qrot(qc, v, v);
            g.d.mid_axis = vec(v);
            ik = make_two_bone(&g.d);
            tv = vec(t);
            pv = vec(p);
            ENSURE(sn_ik_two_bone_solve(ik, g.r.pose, &tv, &pv, 1.0, &fl, NULL) == SN_OK);
            ref_pos(g.r.pose, g.r.root, a);
            ref_pos(g.r.pose, g.r.mid, b);
            ref_pos(g.r.pose, g.r.tip, c);
            sub3(c, a, d);
            sub3(t, a, dir);
            if (!(fl & SN_IK_HINGE_ON_BONE) || !(angle3(d, dir) <= 1e-5)) bad++, badk[kind]++;
            if (!sn_isfinite(b[0] + b[1] + b[2])) bad++, badk[kind]++;
        }
    }
    if (bad) fprintf(stderr, "degenerate kinds failing: %d %d %d %d %d\n", badk[0], badk[1], badk[2], badk[3], badk[4]);
    ENSURE(bad == 0);
    fixture_free();
}

/* ---- invalid input ------------------------------------------------------------------------------ */

static sn_skeleton *bad_skel;

static void valid_two_bone(sn_ik_two_bone_def *d) {
    sn_ik_two_bone_def_init(d);
    d->skeleton = bad_skel;
    d->joints[0] = 1;
    d->joints[1] = 2;
    d->joints[2] = 3;
}
static void tb_no_skeleton(sn_ik_two_bone_def *d) { d->skeleton = NULL; }
static void tb_root_range(sn_ik_two_bone_def *d) { d->joints[0] = -1; }
static void tb_tip_range(sn_ik_two_bone_def *d) { d->joints[2] = 6; }
static void tb_repeat(sn_ik_two_bone_def *d) { d->joints[2] = 1; }
static void tb_repeat_mid(sn_ik_two_bone_def *d) { d->joints[1] = 3; }
static void tb_not_chain(sn_ik_two_bone_def *d) { d->joints[2] = 5; }
static void tb_reversed(sn_ik_two_bone_def *d) { d->joints[0] = 3, d->joints[2] = 1; }
static void tb_grandchild(sn_ik_two_bone_def *d) { d->joints[0] = 0; }
static void tb_axis_zero(sn_ik_two_bone_def *d) { d->mid_axis.z = 0; }
static void tb_axis_nan(sn_ik_two_bone_def *d) { d->mid_axis.x = NAN; }
static void tb_soften_zero(sn_ik_two_bone_def *d) { d->soften = 0; }
static void tb_soften_big(sn_ik_two_bone_def *d) { d->soften = 1.5; }
static void tb_soften_nan(sn_ik_two_bone_def *d) { d->soften = NAN; }
static void tb_twist_inf(sn_ik_two_bone_def *d) { d->twist = INFINITY; }

FIXTURE_CASE_TYPE(two_bone_case, sn_ik_two_bone_def);
static const two_bone_case two_bone_cases[] = {
    {"no skeleton", tb_no_skeleton, "no skeleton"},
    {"root out of range", tb_root_range, "root joint 0 is out of range (1 .. 6)"},
    {"tip out of range", tb_tip_range, "tip joint 7 is out of range (1 .. 6)"},
    {"repeated joint", tb_repeat, "root and tip are the same joint 'j1'"},
    {"repeated mid", tb_repeat_mid, "mid and tip are the same joint 'j3'"},
    {"not a chain", tb_not_chain, "tip 'j5' is not a child of mid 'j2'"},
    {"reversed", tb_reversed, "mid 'j2' is not a child of root 'j3'"},
    {"grandparent", tb_grandchild, "mid 'j2' is not a child of root 'j0'"},
    {"zero axis", tb_axis_zero, "'mid_axis' is a zero vector"},
    {"nan axis", tb_axis_nan, "'mid_axis' is not finite"},
    {"soften 0", tb_soften_zero, "'soften' 0 is out of range (0 .. 1)"},
    {"soften 1.5", tb_soften_big, "'soften' 1.5 is out of range"},
    {"soften nan", tb_soften_nan, "'soften' is not finite"},
    {"twist inf", tb_twist_inf, "'twist' is not finite"},
};

static sn_status tb_size_of(const sn_ik_two_bone_def *d, sn_error *err) {
    return sn_ik_two_bone_size(d, err) == 0 ? err->code : SN_OK;
}
static sn_status tb_init_of(const sn_ik_two_bone_def *d, sn_error *err) {
    static unsigned char mem[256];
    return sn_ik_two_bone_init(mem, sizeof mem, d, err);
}

static void valid_aim(sn_ik_aim_def *d) {
    sn_ik_aim_def_init(d);
    d->skeleton = bad_skel;
    d->joint = 3;
}
static void aim_no_skeleton(sn_ik_aim_def *d) { d->skeleton = NULL; }
static void aim_joint_range(sn_ik_aim_def *d) { d->joint = 6; }
static void aim_forward_zero(sn_ik_aim_def *d) { d->forward.z = 0; }
static void aim_forward_nan(sn_ik_aim_def *d) { d->forward.y = NAN; }
static void aim_up_zero(sn_ik_aim_def *d) { d->up.y = 0; }
static void aim_up_parallel(sn_ik_aim_def *d) { d->up.y = 0, d->up.z = -3; }
static void aim_up_nearly(sn_ik_aim_def *d) { d->up.y = 1e-9, d->up.z = 1; }
static void aim_offset_inf(sn_ik_aim_def *d) { d->offset.x = -INFINITY; }
static void aim_offset_far(sn_ik_aim_def *d) { d->offset.x = 1e13; }
static void aim_limit_zero(sn_ik_aim_def *d) { d->limit = 0; }
static void aim_limit_big(sn_ik_aim_def *d) { d->limit = 4; }
static void aim_limit_nan(sn_ik_aim_def *d) { d->limit = NAN; }
static void aim_twist_nan(sn_ik_aim_def *d) { d->twist = NAN; }
static void aim_effector_range(sn_ik_aim_def *d) { d->effector = 6; }
static void aim_effector_above(sn_ik_aim_def *d) { d->effector = 0; }
static void aim_effector_aside(sn_ik_aim_def *d) { d->effector = 5; }

FIXTURE_CASE_TYPE(aim_case, sn_ik_aim_def);
static const aim_case aim_cases[] = {
    {"no skeleton", aim_no_skeleton, "no skeleton"},
    {"joint out of range", aim_joint_range, "joint 7 is out of range (1 .. 6)"},
    {"zero forward", aim_forward_zero, "'forward' is a zero vector"},
    {"nan forward", aim_forward_nan, "'forward' is not finite"},
    {"zero up", aim_up_zero, "'up' is a zero vector"},
    {"up parallel", aim_up_parallel, "'up' is parallel to 'forward'"},
    {"up nearly parallel", aim_up_nearly, "'up' is parallel to 'forward'"},
    {"offset inf", aim_offset_inf, "'offset' is not finite"},
    {"offset far", aim_offset_far, "'offset' is out of range"},
    {"limit 0", aim_limit_zero, "'limit' 0 is out of range (0 .. 3.14159)"},
    {"limit 4", aim_limit_big, "'limit' 4 is out of range"},
    {"limit nan", aim_limit_nan, "'limit' is not finite"},
    {"twist nan", aim_twist_nan, "'twist' is not finite"},
    {"effector out of range", aim_effector_range, "effector 7 is out of range (1 .. 6)"},
    {"effector above", aim_effector_above, "effector 1 is not a descendant of joint 4 within 32 joints"},
    {"effector aside", aim_effector_aside, "effector 6 is not a descendant of joint 4"},
};

static sn_status aim_size_of(const sn_ik_aim_def *d, sn_error *err) { return sn_ik_aim_size(d, err) == 0 ? err->code : SN_OK; }
static sn_status aim_init_of(const sn_ik_aim_def *d, sn_error *err) {
    static unsigned char mem[256];
    return sn_ik_aim_init(mem, sizeof mem, d, err);
}

/* a solve refused with a message holding `says`, naming argument `arg`, writing nothing */
static int refused(sn_status st, const sn_error *err, int arg, const char *says, const float *before, const sn_pose *pose) {
    float after[60];
    int n = sn_skeleton_count(sn_pose_skeleton(pose));
    snapshot(pose, after);
    if (st == SN_OK || err->arg != arg || strstr(err->msg, says) == NULL || memcmp(before, after, sizeof(float) * 10 * (size_t)n) != 0) {
        fprintf(stderr, "wanted arg %d \"%s\", got %d \"%s\"\n", arg, says, err->arg, err->msg);
        return 0;
    }
    return 1;
}

static void test_invalid_refused(void) {
    int parents[6] = {-1, 0, 1, 2, 2, -1};
    sn_ik_two_bone_def td;
    sn_ik_aim_def ad;
    sn_ik_two_bone *tb;
    sn_ik_aim *aim;
    sn_pose *pose, *foreign;
    sn_error err;
    sn_vec3 t = {0.5, 0.5, 0}, p = {0, 1, 0}, bad;
    float before[60];
    unsigned char small[8];
    int k;
    bad_skel = fixture_skeleton(6, parents, NULL);
    REFUSE_CASES(two_bone_cases, sn_ik_two_bone_def, valid_two_bone, sn_ik_two_bone_validate);
    REFUSE_CASES(two_bone_cases, sn_ik_two_bone_def, valid_two_bone, tb_size_of);
    REFUSE_CASES(two_bone_cases, sn_ik_two_bone_def, valid_two_bone, tb_init_of);
    REFUSE_CASES(aim_cases, sn_ik_aim_def, valid_aim, sn_ik_aim_validate);
    REFUSE_CASES(aim_cases, sn_ik_aim_def, valid_aim, aim_size_of);
    REFUSE_CASES(aim_cases, sn_ik_aim_def, valid_aim, aim_init_of);
    ENSURE(sn_ik_two_bone_validate(NULL, &err) == SN_EINVAL && strstr(err.msg, "no two-bone definition") != NULL);
    ENSURE(sn_ik_aim_validate(NULL, &err) == SN_EINVAL && strstr(err.msg, "no aim definition") != NULL);
    valid_two_bone(&td);
    ENSURE(sn_ik_two_bone_init(small, sizeof small, &td, &err) == SN_ENOMEM && strstr(err.msg, "needs") != NULL);
    ENSURE(sn_ik_two_bone_init(NULL, 256, &td, &err) == SN_ENOMEM);
    valid_aim(&ad);
    ENSURE(sn_ik_aim_init(small, sizeof small, &ad, &err) == SN_ENOMEM);
    /* the defaults, and what a solver reports of itself */
    ENSURE(td.soften == 1.0 && td.twist == 0.0 && td.mid_axis.z == 1.0 && td.mid_axis.x == 0.0);
    ENSURE(ad.limit == PI && ad.forward.z == 1.0 && ad.up.y == 1.0 && ad.offset.x == 0.0);
    td.mid_axis.x = 1;
    td.mid_axis.z = 0;
    tb = make_two_bone(&td);
    aim = (sn_ik_aim *)fixture_block(sn_ik_aim_size(&ad, NULL));
    ENSURE(sn_ik_aim_init(aim, sn_ik_aim_size(&ad, NULL), &ad, &err) == SN_OK);
    ENSURE(sn_ik_two_bone_skeleton(tb) == bad_skel && sn_ik_two_bone_joint(tb, 0) == 1 && sn_ik_two_bone_joint(tb, 2) == 3 &&
           sn_ik_two_bone_joint(tb, 3) == -1);
    ENSURE(sn_ik_aim_skeleton(aim) == bad_skel && sn_ik_aim_joint(aim) == 3);
    ENSURE(sn_ik_two_bone_set_soften(tb, 0, &err) == SN_EINVAL && err.arg == 1);
    ENSURE(sn_ik_two_bone_set_twist(tb, NAN, &err) == SN_EINVAL && err.arg == 1);
    ENSURE(sn_ik_aim_set_limit(aim, -1, &err) == SN_EINVAL && err.arg == 1);
    ENSURE(sn_ik_aim_set_twist(aim, INFINITY, &err) == SN_EINVAL && err.arg == 1);
    /* a pose with some shape: the joints 0.5 apart */
    pose = fixture_pose(bad_skel);
    foreign = fixture_pose(fixture_line_skeleton(6, NULL));
    for (k = 1; k < 6; k++) {
        float trs[10] = {0.5f, 0, 0, 0, 0, 0.2f, 0.98f, 1, 1, 1};
        sn_pose_set(pose, k, trs);
    }
    snapshot(pose, before);
    ENSURE(refused(sn_ik_two_bone_solve(tb, NULL, &t, &p, 1, NULL, &err), &err, 1, "no pose", before, pose));
    ENSURE(refused(sn_ik_two_bone_solve(tb, foreign, &t, &p, 1, NULL, &err), &err, 1, "pose of another skeleton", before, pose));
    ENSURE(refused(sn_ik_two_bone_solve(tb, pose, NULL, &p, 1, NULL, &err), &err, 2, "no target", before, pose));
    ENSURE(refused(sn_ik_two_bone_solve(tb, pose, &t, NULL, 1, NULL, &err), &err, 3, "no pole", before, pose));
    bad = t;
    bad.y = NAN;
    ENSURE(refused(sn_ik_two_bone_solve(tb, pose, &bad, &p, 1, NULL, &err), &err, 2, "target y is not finite", before, pose));
    bad.y = 2e12;
    ENSURE(refused(sn_ik_two_bone_solve(tb, pose, &bad, &p, 1, NULL, &err), &err, 2, "target y 2e+12 is out of range (-1e+12 .. 1e+12)",
                   before, pose));
    bad = p;
    bad.z = -INFINITY;
    ENSURE(refused(sn_ik_two_bone_solve(tb, pose, &t, &bad, 1, NULL, &err), &err, 3, "pole z is not finite", before, pose));
    ENSURE(refused(sn_ik_two_bone_solve(tb, pose, &t, &p, NAN, NULL, &err), &err, 4, "weight is not finite", before, pose));
    ENSURE(refused(sn_ik_two_bone_solve(tb, pose, &t, &p, 1.5, NULL, &err), &err, 4, "weight 1.5 is out of range (0 .. 1)", before, pose));
    ENSURE(refused(sn_ik_two_bone_solve(tb, pose, &t, &p, -0.1, NULL, &err), &err, 4, "weight -0.1 is out of range", before, pose));
    ENSURE(refused(sn_ik_aim_solve(aim, foreign, &t, NULL, 1, NULL, &err), &err, 1, "pose of another skeleton", before, pose));
    bad = t;
    bad.x = NAN;
    ENSURE(refused(sn_ik_aim_solve(aim, pose, &bad, NULL, 1, NULL, &err), &err, 2, "target x is not finite", before, pose));
    bad = p;
    bad.x = INFINITY;
    ENSURE(refused(sn_ik_aim_solve(aim, pose, &t, &bad, 1, NULL, &err), &err, 3, "up x is not finite", before, pose));
    bad.x = bad.y = bad.z = 0;
    ENSURE(refused(sn_ik_aim_solve(aim, pose, &t, &bad, 1, NULL, &err), &err, 3, "up is a zero vector", before, pose));
    bad.x = 1e300; /* any finite up direction is fine, however long */
    ENSURE(sn_ik_aim_solve(aim, pose, &t, &bad, 1, NULL, &err) == SN_OK);
    ENSURE(sn_pose_copy(pose, pose, NULL) == SN_OK);
    snapshot(pose, before);
    ENSURE(refused(sn_ik_aim_solve(aim, pose, &t, NULL, 2, NULL, &err), &err, 4, "weight 2 is out of range", before, pose));
    /* a pose whose chain or ancestors cannot be read: refused, naming the joint */
    {
        float trs[10];
        sn_pose_get(pose, 0, trs);
        trs[1] = NAN;
        sn_pose_set(pose, 0, trs);
        snapshot(pose, before);
        ENSURE(refused(sn_ik_two_bone_solve(tb, pose, &t, &p, 1, NULL, &err), &err, 1, "joint 'j0' of the pose is not finite", before, pose));
        ENSURE(refused(sn_ik_aim_solve(aim, pose, &t, NULL, 1, NULL, &err), &err, 1, "joint 'j0' of the pose is not finite", before, pose));
        trs[1] = 0;
        sn_pose_set(pose, 0, trs);
        sn_pose_get(pose, 2, trs);
        trs[3] = trs[4] = trs[5] = trs[6] = 0;
        sn_pose_set(pose, 2, trs);
        snapshot(pose, before);
        ENSURE(refused(sn_ik_two_bone_solve(tb, pose, &t, &p, 1, NULL, &err), &err, 1, "joint 'j2' of the pose has a zero rotation", before, pose));
        trs[6] = 1;
        trs[0] = 3e38f; /* two joints at 3e38: beyond SN_IK_MAX_COORD */
        sn_pose_set(pose, 2, trs);
        snapshot(pose, before);
        ENSURE(refused(sn_ik_two_bone_solve(tb, pose, &t, &p, 1, NULL, &err), &err, 1, "joint 'j2' of the pose is placed out of range", before, pose));
        trs[0] = 0.5f;
        trs[7] = trs[8] = trs[9] = 3e38f; /* the scales overflow the products */
        sn_pose_set(pose, 1, trs);
        sn_pose_set(pose, 2, trs);
        snapshot(pose, before);
        ENSURE(refused(sn_ik_two_bone_solve(tb, pose, &t, &p, 1, NULL, &err), &err, 1, "of the pose is placed out of range", before, pose));
        ENSURE(refused(sn_ik_aim_solve(aim, pose, &t, NULL, 1, NULL, &err), &err, 1, "of the pose is placed out of range", before, pose));
    }
    fixture_free();
}

/* ---- aim ---------------------------------------------------------------------------------------- */

typedef struct head {
    rig r;
    sn_ik_aim_def d;
    sn_ik_aim *ik;
    int j;
} head;

static sn_ik_aim *make_aim(const sn_ik_aim_def *d) {
    sn_error err;
    size_t size = sn_ik_aim_size(d, &err);
    void *mem;
    ENSURE(size > 0);
    if (size == 0) return NULL;
    mem = fixture_block(size);
    ENSURE(sn_ik_aim_init(mem, size, d, &err) == SN_OK);
    return (sn_ik_aim *)mem;
}

static head make_head(double limit) {
    head h;
    double f[3], u[3], o[3];
    h.r = make_rig((int)rnd(0, 4.999));
    h.j = h.r.mid;
    sn_ik_aim_def_init(&h.d);
    h.d.skeleton = h.r.s;
    h.d.joint = h.j;
    random_dir(f);
    do random_dir(u);
    while (angle3(f, u) < 0.2 || angle3(f, u) > PI - 0.2);
    random_dir(o);
    h.d.forward = vec(f);
    h.d.up = vec(u);
    h.d.offset.x = o[0] * rnd(0, 0.3);
    h.d.offset.y = o[1] * rnd(0, 0.3);
    h.d.offset.z = o[2] * rnd(0, 0.3);
    h.d.limit = limit;
    h.ik = make_aim(&h.d);
    return h;
}

/* the model forward axis (unit), up axis across forward (unit) and offset point of the head's
   joint in `pose` */
static void head_axes(const head *h, const sn_pose *pose, double *fwd, double *up, double *eye) {
    mframe m;
    double f[3] = {h->d.forward.x, h->d.forward.y, h->d.forward.z}, u[3] = {h->d.up.x, h->d.up.y, h->d.up.z};
    double o[3] = {h->d.offset.x, h->d.offset.y, h->d.offset.z};
    int k;
    unit3(f);
    unit3(u);
    reject3(u, f);
    unit3(u);
    ref_model(pose, h->j, &m);
    qrot(m.q, f, fwd);
    qrot(m.q, u, up);
    qrot(m.q, o, eye);
    for (k = 0; k < 3; k++) eye[k] = m.p[k] + m.s * eye[k];
}

static void test_aim_hits(void) {
    int i, bad_hit = 0, bad_up = 0, bad_flags = 0, bad_other = 0;
    double worst = 0;
    for (i = 0; i < CASES; i++) {
        head h = make_head(PI);
        double t[3], dir[3], fwd[3], up[3], eye[3], ref[3], pj[3], to[3], ax[3];
        float before[100], after[100];
        int given = i % 2, k;
        unsigned fl;
        sn_vec3 tv, uv;
        ref_pos(h.r.pose, h.j, pj);
        random_dir(dir);
        head_axes(&h, h.r.pose, fwd, ref, eye); /* NULL: the input's up */
        sub3(eye, pj, to);
        for (k = 0; k < 3; k++) t[k] = pj[k] + (norm3(to) + rnd(0.1, 5)) * dir[k]; /* beyond the eyes */
        if (given) random_dir(ref);
        tv = vec(t);
        uv = vec(ref);
        snapshot(h.r.pose, before);
        ENSURE(sn_ik_aim_solve(h.ik, h.r.pose, &tv, given ? &uv : NULL, 1.0, &fl, NULL) == SN_OK);
        snapshot(h.r.pose, after);
        if (!unchanged_but(before, after, h.r.n, &h.j, 1)) bad_other++;
        if ((fl & ~(unsigned)SN_IK_POLE_ON_LINE) != SN_IK_REACHED) bad_flags++;
        head_axes(&h, h.r.pose, fwd, up, eye);
        sub3(t, eye, to);
        if (angle3(to, fwd) > worst) worst = angle3(to, fwd);
        if (!(angle3(to, fwd) <= 1e-5)) {
            bad_hit++;
        }
        /* up as near the reference as the aim allows: no turn about the joint-target axis (which
           keeps the aim) brings it nearer */
        if (!(fl & SN_IK_POLE_ON_LINE)) {
            double u2[3], here = dot3(up, ref);
            sub3(t, pj, ax);
            unit3(ax);
            for (k = -1; k <= 1; k += 2) {
                turn3(ax, k * 1e-3, up, u2);
                if (!(dot3(u2, ref) <= here + 1e-9)) bad_up++;
            }
        }
    }
    ENSURE(bad_hit == 0);
    ENSURE(bad_up == 0);
    ENSURE(bad_flags == 0);
    ENSURE(bad_other == 0);
    printf("aim: %d targets, worst forward error %.3g rad\n", CASES, worst);
    fixture_free();
}

/* an effector: an ancestor of the head's joint turns so that the head's forward line (its offset,
   forward and up in the head's frame) passes through the target; spread over two ancestors with
   partial weights and the head last, the head is on target; nothing but the turned joint changes */
static void test_aim_effector(void) {
    int i, bad_hit = 0, bad_other = 0, bad_spread = 0, solved = 0;
    double worst = 0;
    for (i = 0; i < CASES / 2; i++) {
        head h = make_head(PI);
        sn_ik_aim_def d = h.d;
        sn_ik_aim *up1, *up2;
        double t[3], dir[3], pj[3], fwd[3], up[3], eye[3], to[3];
        float before[100], after[100];
        unsigned fl;
        int k, a1 = h.r.root, a2 = sn_skeleton_parent(h.r.s, h.r.root);
        sn_vec3 tv;
        if (a2 < 0) a2 = a1;
        d.effector = h.j;
        d.joint = a1;
        up1 = make_aim(&d);
        ENSURE(sn_ik_aim_effector(up1) == h.j && sn_ik_aim_joint(up1) == a1);
        d.joint = a2;
        up2 = make_aim(&d);
        ref_pos(h.r.pose, a2, pj);
        random_dir(dir);
        for (k = 0; k < 3; k++) t[k] = pj[k] + rnd(2, 6) * dir[k];
        tv = vec(t);
        snapshot(h.r.pose, before);
        ENSURE(sn_ik_aim_solve(up1, h.r.pose, &tv, NULL, 1.0, &fl, NULL) == SN_OK);
        snapshot(h.r.pose, after);
        if (!unchanged_but(before, after, h.r.n, &a1, 1)) bad_other++;
        if (!(fl & SN_IK_DEGENERATE)) {
            solved++;
            head_axes(&h, h.r.pose, fwd, up, eye);
            sub3(t, eye, to);
            if (angle3(to, fwd) > worst) worst = angle3(to, fwd);
            if (!(angle3(to, fwd) <= 1e-5)) bad_hit++;
        }
        ENSURE(sn_ik_aim_solve(up2, h.r.pose, &tv, NULL, 0.3, NULL, NULL) == SN_OK);
        ENSURE(sn_ik_aim_solve(up1, h.r.pose, &tv, NULL, 0.5, NULL, NULL) == SN_OK);
        ENSURE(sn_ik_aim_solve(h.ik, h.r.pose, &tv, NULL, 1.0, &fl, NULL) == SN_OK);
        head_axes(&h, h.r.pose, fwd, up, eye);
        sub3(t, eye, to);
        if (!(fl & SN_IK_DEGENERATE) && !(angle3(to, fwd) <= 1e-5)) bad_spread++;
    }
    ENSURE(bad_hit == 0);
    ENSURE(bad_other == 0);
    ENSURE(bad_spread == 0);
    ENSURE(solved > CASES / 4);
    printf("aim with an effector: %d of %d solved, worst forward error %.3g rad\n", solved, CASES / 2, worst);
    fixture_free();
}

/* the limit holds; within it the target is hit; sweeping the target round behind the joint moves the
   forward axis continuously (no flip) and back to the input's forward right behind */
static void test_aim_limit(void) {
    int i, bad_limit = 0, bad_hit = 0, bad_jump = 0, bad_behind = 0;
    for (i = 0; i < CASES / 2; i++) {
        head h = make_head(rnd(0.2, 2.8));
        double t[3], dir[3], f0[3], fwd[3], up[3], eye[3], pj[3], to[3], prev[3] = {0, 0, 0};
        sn_pose *work = fixture_pose(h.r.s);
        int k, m;
        unsigned fl;
        sn_vec3 tv;
        ref_pos(h.r.pose, h.j, pj);
        head_axes(&h, h.r.pose, f0, up, eye);
        /* random targets */
        random_dir(dir);
        sub3(eye, pj, to);
        for (k = 0; k < 3; k++) t[k] = pj[k] + (norm3(to) + rnd(0.1, 5)) * dir[k];
        tv = vec(t);
        ENSURE(sn_pose_copy(h.r.pose, work, NULL) == SN_OK);
        ENSURE(sn_ik_aim_solve(h.ik, work, &tv, NULL, 1.0, &fl, NULL) == SN_OK);
        head_axes(&h, work, fwd, up, eye);
        if (!(angle3(fwd, f0) <= h.d.limit + 1e-6)) bad_limit++;
        sub3(t, eye, to);
        if (!(fl & SN_IK_LIMITED) && !(angle3(to, fwd) <= 1e-5)) bad_hit++;
        if (!!(fl & SN_IK_LIMITED) == !!(fl & SN_IK_REACHED)) bad_hit++;
        /* a sweep in the plane of the input forward and a random direction, far away */
        random_dir(dir);
        reject3(dir, f0);
        unit3(dir);
        for (m = 0; m <= 720; m++) {
            double a = 2 * PI * m / 720;
            for (k = 0; k < 3; k++) t[k] = pj[k] + 1e3 * (cos(a) * f0[k] + sin(a) * dir[k]);
            tv = vec(t);
            ENSURE(sn_pose_copy(h.r.pose, work, NULL) == SN_OK);
            ENSURE(sn_ik_aim_solve(h.ik, work, &tv, NULL, 1.0, NULL, NULL) == SN_OK);
            head_axes(&h, work, fwd, up, eye);
            if (!(angle3(fwd, f0) <= h.d.limit + 1e-6)) bad_limit++;
            /* the target turns by 2 pi / 720 a step; beyond the limit the forward axis eases back
               at most 1.5 limit / (pi - limit) times as fast (smoothstep's steepest slope) */
            if (m > 0 && !(angle3(fwd, prev) <= 1.2 * (2 * PI / 720) * (1 + 1.5 * h.d.limit / (PI - h.d.limit)))) bad_jump++;
            if (m == 360 && !(angle3(fwd, f0) <= 1e-3)) bad_behind++;
            memcpy(prev, fwd, sizeof prev);
        }
    }
    ENSURE(bad_limit == 0);
    ENSURE(bad_hit == 0);
    ENSURE(bad_jump == 0);
    ENSURE(bad_behind == 0);
    fixture_free();
}

/* weight 0 writes nothing; spine, neck and head in turn with partial weights: the last, at weight
   1, hits the target */
static void test_aim_weights(void) {
    int i, bad0 = 0, bad_chain = 0;
    for (i = 0; i < CASES / 4; i++) {
        head h = make_head(PI);
        sn_ik_aim_def d = h.d;
        sn_ik_aim *spine, *neck;
        double t[3], dir[3], pj[3], fwd[3], up[3], eye[3], to[3];
        float before[100], after[100];
        unsigned fl;
        int k;
        sn_vec3 tv;
        d.joint = sn_skeleton_parent(h.r.s, h.r.root) >= 0 ? sn_skeleton_parent(h.r.s, h.r.root) : h.r.root;
        d.offset.x = d.offset.y = d.offset.z = 0;
        spine = make_aim(&d);
        d.joint = h.r.root; /* the head's parent */
        neck = make_aim(&d);
        ref_pos(h.r.pose, h.j, pj);
        random_dir(dir);
        for (k = 0; k < 3; k++) t[k] = pj[k] + rnd(1, 5) * dir[k];
        tv = vec(t);
        snapshot(h.r.pose, before);
        ENSURE(sn_ik_aim_solve(h.ik, h.r.pose, &tv, NULL, 0.0, &fl, NULL) == SN_OK);
        snapshot(h.r.pose, after);
        if (fl != 0 || memcmp(before, after, sizeof(float) * 10 * (size_t)h.r.n) != 0) bad0++;
        ENSURE(sn_ik_aim_solve(spine, h.r.pose, &tv, NULL, 0.3, NULL, NULL) == SN_OK);
        ENSURE(sn_ik_aim_solve(neck, h.r.pose, &tv, NULL, 0.5, NULL, NULL) == SN_OK);
        ENSURE(sn_ik_aim_solve(h.ik, h.r.pose, &tv, NULL, 1.0, &fl, NULL) == SN_OK);
        head_axes(&h, h.r.pose, fwd, up, eye);
        sub3(t, eye, to);
        if (!(fl & SN_IK_DEGENERATE) && !(angle3(to, fwd) <= 1e-5)) bad_chain++;
    }
    ENSURE(bad0 == 0);
    ENSURE(bad_chain == 0);
    fixture_free();
}

static void test_aim_degenerate(void) {
    int i, bad = 0, badk[3] = {0, 0, 0};
    for (i = 0; i < 400; i++) {
        head h = make_head(PI);
        double t[3], pj[3], fwd[3], up[3], eye[3], to[3];
        float before[100], after[100];
        unsigned fl;
        int k, kind = i % 3;
        sn_vec3 tv, uv;
        ref_pos(h.r.pose, h.j, pj);
        head_axes(&h, h.r.pose, fwd, up, eye);
        snapshot(h.r.pose, before);
        if (kind == 0) { /* the target on the joint (any offset): nothing written */
            tv = vec(pj);
            ENSURE(sn_ik_aim_solve(h.ik, h.r.pose, &tv, NULL, 1.0, &fl, NULL) == SN_OK);
            snapshot(h.r.pose, after);
            if (fl != SN_IK_DEGENERATE || memcmp(before, after, sizeof(float) * 10 * (size_t)h.r.n) != 0) bad++, badk[kind]++;
        } else if (kind == 1) { /* between the joint and eyes placed ahead on the forward axis */
            sn_ik_aim_def d = h.d;
            sn_ik_aim *ik;
            mframe m;
            ref_model(h.r.pose, h.j, &m);
            d.offset = d.forward;
            ik = make_aim(&d);
            for (k = 0; k < 3; k++) t[k] = pj[k] + 0.4 * m.s * fwd[k] * norm3((double[3]){d.forward.x, d.forward.y, d.forward.z});
            tv = vec(t);
            ENSURE(sn_ik_aim_solve(ik, h.r.pose, &tv, NULL, 1.0, &fl, NULL) == SN_OK);
            snapshot(h.r.pose, after);
            if (fl != SN_IK_DEGENERATE || memcmp(before, after, sizeof(float) * 10 * (size_t)h.r.n) != 0) bad++, badk[kind]++;
        } else { /* the up reference along the target direction: the shortest arc, still on target */
            double reach;
            sub3(eye, pj, to);
            reach = norm3(to) + rnd(0.5, 3); /* beyond the eyes */
            for (k = 0; k < 3; k++) t[k] = pj[k] + reach * up[k];
            tv = vec(t);
            uv = vec(up);
            ENSURE(sn_ik_aim_solve(h.ik, h.r.pose, &tv, &uv, 1.0, &fl, NULL) == SN_OK);
            head_axes(&h, h.r.pose, fwd, up, eye);
            sub3(t, eye, to);
            if (!(fl & SN_IK_POLE_ON_LINE) || !(angle3(to, fwd) <= 1e-5)) bad++, badk[kind]++;
        }
    }
    if (bad) fprintf(stderr, "aim degenerate kinds failing: %d %d %d\n", badk[0], badk[1], badk[2]);
    ENSURE(bad == 0);
    fixture_free();
}

/* random poses with non-uniform scales, targets and poles anywhere within range: never a NaN, every
   rotation unit */
static void test_never_nan(void) {
    int i, j, c, bad = 0;
    for (i = 0; i < CASES; i++) {
        leg g = make_leg();
        head h;
        double t[3], p[3], big = pow(10, rnd(-6, 12));
        sn_vec3 tv, pv;
        sn_ik_aim_def d;
        for (j = 0; j < g.r.n; j++) {
            float trs[10];
            sn_pose_get(g.r.pose, j, trs);
            trs[7] = (float)rnd(0.01, 3);
            trs[8] = (float)rnd(0.01, 3);
            if (i % 3 == 0) trs[9] = 0; /* a flat joint */
            sn_pose_set(g.r.pose, j, trs);
        }
        for (j = 0; j < 3; j++) {
            t[j] = rnd(-1, 1) * big;
            p[j] = i % 7 == 0 ? g.a[j] : rnd(-1, 1) * big;
        }
        tv = vec(t);
        pv = vec(p);
        ENSURE(sn_ik_two_bone_solve(g.ik, g.r.pose, &tv, &pv, rnd(0, 1), NULL, NULL) == SN_OK);
        h.r = g.r;
        sn_ik_aim_def_init(&d);
        d.skeleton = g.r.s;
        d.joint = g.r.tip;
        d.offset.x = rnd(-1, 1);
        d.limit = rnd(0.01, PI);
        h.ik = make_aim(&d);
        ENSURE(sn_ik_aim_solve(h.ik, g.r.pose, &tv, i % 2 ? &pv : NULL, rnd(0, 1), NULL, NULL) == SN_OK);
        for (j = 0; j < g.r.n; j++) {
            float trs[10];
            double l = 0;
            sn_pose_get(g.r.pose, j, trs);
            for (c = 0; c < 10; c++)
                if (!sn_isfinite(trs[c])) bad++;
            for (c = 3; c < 7; c++) l += (double)trs[c] * trs[c];
            if (!(fabs(sqrt(l) - 1) < 1e-6)) bad++;
        }
    }
    ENSURE(bad == 0);
    fixture_free();
}

int main(void) {
    RUN(test_invalid_refused);
    RUN(test_aim_effector);
    RUN(test_two_bone_reaches);
    RUN(test_two_bone_any_hinge);
    RUN(test_two_bone_unreachable);
    RUN(test_two_bone_weight);
    RUN(test_two_bone_soften);
    RUN(test_two_bone_twist);
    RUN(test_two_bone_degenerate);
    RUN(test_aim_hits);
    RUN(test_aim_limit);
    RUN(test_aim_weights);
    RUN(test_aim_degenerate);
    RUN(test_never_nan);
    return END("test_ik");
}
