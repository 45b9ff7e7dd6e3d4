/* The two-bone solver (see ik.h): read the chain's model frames, solve the knee about its hinge in
   closed form, turn the root onto the target and into the pole's plane, write back. */
#include "ik_internal.h"

#include <string.h>

struct sn_ik_two_bone {
    const sn_skeleton *skeleton;  /* outlives the solver */
    int joints[3];                /* root, mid, tip */
    double axis[3];               /* mid_axis, unit, in the mid joint's frame */
    double soften;                /* (0, 1] */
    double twist;                 /* radians */
    double twist_c, twist_s;      /* cos and sin of twist / 2 */
};

static const char *const role[3] = {"root", "mid", "tip"};

void sn_ik_two_bone_def_init(sn_ik_two_bone_def *def) {
    memset(def, 0, sizeof *def);
    def->joints[0] = def->joints[1] = def->joints[2] = -1;
    def->mid_axis.z = 1.0;
    def->soften = 1.0;
}

static sn_status check_soften(double soften, sn_error *err) {
    if (!sn_isfinite(soften)) return sn_fail_arg(err, 1, SN_EINVAL, "'soften' is not finite");
    if (!(soften > 0.0 && soften <= 1.0)) return sn_fail_range(err, 1, "'soften'", soften, 0.0, 1.0);
    return SN_OK;
}

sn_status sn_ik_two_bone_validate(const sn_ik_two_bone_def *def, sn_error *err) {
    const sn_skeleton *s;
    sn_status st;
    int i, k, n;
    if (def == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no two-bone definition");
    if ((s = def->skeleton) == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no skeleton");
    n = sn_skeleton_count(s);
    for (i = 0; i < 3; i++)
        if (def->joints[i] < 0 || def->joints[i] >= n)
            return sn_fail_arg(err, 1, SN_EINVAL, "%s joint %d is out of range (1 .. %d)", role[i], def->joints[i] + 1, n);
    for (i = 0; i < 3; i++)
        for (k = i + 1; k < 3; k++)
            if (def->joints[i] == def->joints[k])
                return sn_fail_arg(err, 1, SN_EINVAL, "%s and %s are the same joint '%s'", role[i], role[k],
                                   sn_skeleton_name(s, def->joints[i]));
    for (i = 1; i < 3; i++)
        if (sn_skeleton_parent(s, def->joints[i]) != def->joints[i - 1])
            return sn_fail_arg(err, 1, SN_EINVAL, "joints do not form a chain: %s '%s' is not a child of %s '%s'", role[i],
                               sn_skeleton_name(s, def->joints[i]), role[i - 1], sn_skeleton_name(s, def->joints[i - 1]));
    if ((st = sn_ik_check_vec(&def->mid_axis, "mid_axis", 1, err)) != SN_OK) return st;
    if ((st = check_soften(def->soften, err)) != SN_OK) return st;
    if (!sn_isfinite(def->twist)) return sn_fail_arg(err, 1, SN_EINVAL, "'twist' is not finite");
    return SN_OK;
}

size_t sn_ik_two_bone_size(const sn_ik_two_bone_def *def, sn_error *err) {
    if (sn_ik_two_bone_validate(def, err) != SN_OK) return 0;
    return SN_ALIGN16(sizeof(sn_ik_two_bone));
}

sn_status sn_ik_two_bone_init(void *mem, size_t size, const sn_ik_two_bone_def *def, sn_error *err) {
    size_t need = sn_ik_two_bone_size(def, err);
    sn_ik_two_bone *ik = (sn_ik_two_bone *)mem;
    double a[3], m;
    int i;
    if (need == 0) return err != NULL ? err->code : SN_EINVAL;
    if (mem == NULL || size < need) return sn_fail(err, SN_ENOMEM, "two-bone solver needs %lu bytes", (unsigned long)need);
    ik->skeleton = def->skeleton;
    for (i = 0; i < 3; i++) ik->joints[i] = def->joints[i];
    /* divided by the largest component first: any finite non-zero axis normalises (a denormal
       largest component has no finite reciprocal: 1e-320 made the axis NaN, and the solve wrote nothing) */
    m = fmax(fabs(def->mid_axis.x), fmax(fabs(def->mid_axis.y), fabs(def->mid_axis.z)));
    a[0] = def->mid_axis.x / m;
    a[1] = def->mid_axis.y / m;
    a[2] = def->mid_axis.z / m;
    ik_scale(a, 1.0 / ik_len(a), ik->axis);
    ik->soften = def->soften;
    ik->twist = def->twist;
    ik->twist_c = cos(0.5 * def->twist);
    ik->twist_s = sin(0.5 * def->twist);
    return SN_OK;
}

const sn_skeleton *sn_ik_two_bone_skeleton(const sn_ik_two_bone *ik) { return ik->skeleton; }

int sn_ik_two_bone_joint(const sn_ik_two_bone *ik, int i) { return i >= 0 && i < 3 ? ik->joints[i] : -1; }

double sn_ik_two_bone_soften(const sn_ik_two_bone *ik) { return ik->soften; }

double sn_ik_two_bone_twist(const sn_ik_two_bone *ik) { return ik->twist; }

sn_status sn_ik_two_bone_set_soften(sn_ik_two_bone *ik, double soften, sn_error *err) {
    sn_status st = check_soften(soften, err);
    if (st == SN_OK) ik->soften = soften;
    return st;
}

sn_status sn_ik_two_bone_set_twist(sn_ik_two_bone *ik, double twist, sn_error *err) {
    if (!sn_isfinite(twist)) return sn_fail_arg(err, 1, SN_EINVAL, "'twist' is not finite");
    ik->twist = twist;
    ik->twist_c = cos(0.5 * twist);
    ik->twist_s = sin(0.5 * twist);
    return SN_OK;
}

sn_status sn_ik_two_bone_set_mid_axis(sn_ik_two_bone *ik, const sn_vec3 *axis, sn_error *err) {
    double a[3], m;
    sn_status st = sn_ik_check_vec(axis, "mid_axis", 1, err);
    if (st != SN_OK) return st;
    m = fmax(fabs(axis->x), fmax(fabs(axis->y), fabs(axis->z)));
    a[0] = axis->x / m; /* by division: a denormal m has no finite reciprocal */
    a[1] = axis->y / m;
    a[2] = axis->z / m;
    ik_scale(a, 1.0 / ik_len(a), ik->axis);
    return SN_OK;
}

/* ---- the solve ------------------------------------------------------------------------------ */

typedef sn_ik_two_bone_chain chain;

/* sn_ik_pose_error, whose status is SN_EINVAL whatever the fault, said here: so the compiler
   sees that a chain is read whenever read_chain returns SN_OK (it keeps the chain in registers,
   and would otherwise warn that parts of it may be used unset) */
SN_IK_INLINE sn_status chain_fault(const sn_pose *pose, sn_ik_fault f, int joint, sn_error *err) {
    (void)sn_ik_pose_error(pose, f, joint, err);
    return SN_EINVAL;
}

static sn_status read_chain(const sn_ik_two_bone *ik, const sn_pose *pose, chain *ch, sn_error *err) {
    sn_ik_frame p, mr, mm;
    sn_ik_local lr, lm;
    double t[3];
    int bad;
    sn_ik_fault f = sn_ik_parent_frame(pose, ik->joints[0], &p, &bad);
    if (f != SN_IK_POSE_OK) return chain_fault(pose, f, bad, err);
    if ((f = sn_ik_read_local(pose, ik->joints[0], &lr)) != SN_IK_POSE_OK) return chain_fault(pose, f, ik->joints[0], err);
    if ((f = sn_ik_read_local(pose, ik->joints[1], &lm)) != SN_IK_POSE_OK) return chain_fault(pose, f, ik->joints[1], err);
    if ((f = sn_ik_read_translation(pose, ik->joints[2], t)) != SN_IK_POSE_OK) return chain_fault(pose, f, ik->joints[2], err);
    sn_ik_frame_child(&p, &lr, &mr);
    if (sn_ik_frame_check(&mr) != SN_IK_POSE_OK) return chain_fault(pose, SN_IK_POSE_TOO_FAR, ik->joints[0], err);
    sn_ik_frame_child(&mr, &lm, &mm);
    if (sn_ik_frame_check(&mm) != SN_IK_POSE_OK) return chain_fault(pose, SN_IK_POSE_TOO_FAR, ik->joints[1], err);
    ik_frame_point(&mm, t, ch->c);
    if (!(fabs(ch->c[0]) <= SN_IK_MAX_COORD && fabs(ch->c[1]) <= SN_IK_MAX_COORD && fabs(ch->c[2]) <= SN_IK_MAX_COORD))
        return chain_fault(pose, SN_IK_POSE_TOO_FAR, ik->joints[2], err);
    memcpy(ch->a, mr.t, sizeof ch->a);
    memcpy(ch->b, mm.t, sizeof ch->b);
    ch->parent = p.q;
    ch->root = mr.q;
    ch->mid = mm.q;
    ch->lroot = lr.q;
    ch->lmid = lm.q;
    return SN_OK;
}

/* The knee: the turn phi about the model hinge n (unit) that puts the tip at distance `dist` from
   the root, on the branch where a positive turn opens the knee. The tip vector v = C - B turns as
   v(phi) = vpar + cos(phi) vperp + sin(phi) n x vperp, so |u + v(phi)|^2 = base + 2 R cos(phi - phi0)
   with u = B - A: its reach runs from sqrt(base - 2R) (phi = phi0 + pi) to sqrt(base + 2R) (phi0). */
typedef struct knee {
    double vpar[3], vperp[3], w[3];  /* parts of v: along n, across n, and n x vperp */
    double base, r;                  /* |u|^2 + |v|^2 + 2 u.vpar; amplitude */
    double half_ir;                  /* 1 / 2R (0 for R = 0) */
    double c0, s0;                   /* cos and sin of the phase phi0 */
    double reach2, fold2;            /* squares of the largest and smallest root-tip distance */
} knee;

SN_IK_INLINE int knee_setup(const double *u, const double *v, const double *n, double l1, double l2, knee *k) {
    double alpha, beta, ir;
    ik_scale(n, ik_dot(v, n), k->vpar);
    ik_sub(v, k->vpar, k->vperp);
    ik_cross(n, k->vperp, k->w);
    alpha = ik_dot(u, k->vperp);
    beta = ik_dot(u, k->w);
    k->base = l1 * l1 + l2 * l2 + 2.0 * ik_dot(u, k->vpar);
    k->r = sqrt(alpha * alpha + beta * beta);
    ir = k->r > 0.0 ? 1.0 / k->r : 0.0; /* one division, off the path from the target to the knee */
    k->half_ir = 0.5 * ir;
    k->c0 = k->r > 0.0 ? alpha * ir : 1.0;
    k->s0 = k->r > 0.0 ? beta * ir : 0.0;
    k->reach2 = k->base + 2.0 * k->r > 0.0 ? k->base + 2.0 * k->r : 0.0;
    k->fold2 = k->base - 2.0 * k->r > 0.0 ? k->base - 2.0 * k->r : 0.0;
    /* a hinge along either bone: the knee cannot change the reach */
    return k->r > SN_IK_MIN_RATIO * l1 * l2;
}

/* cos and sin of the knee's turn phi = phi0 - acos(c) for the root-tip distance sqrt(dist2), with
   c = (dist2 - base) / 2R: no trigonometry. */
SN_IK_INLINE void knee_turn(const knee *k, double dist2, double *cp, double *sp) {
    double c = (dist2 - k->base) * k->half_ir, s;
    c = c < -1.0 ? -1.0 : c > 1.0 ? 1.0 : c;
    s = sqrt(1.0 - c * c);
    *cp = k->c0 * c + k->s0 * s;
    *sp = k->s0 * c - k->c0 * s;
}

/* The softened distance of a target at `d` for a chain of reach `reach`. */
SN_IK_INLINE double soften_distance(double d, double reach, double soften, unsigned *flags) {
    double da = soften * reach, ds = reach - da;
    if (!(ds > 0.0) || !(d > da)) return d;
    *flags |= SN_IK_SOFTENED;
    return da + ds * (1.0 - exp(-(d - da) * (1.0 / ds))); /* 1 / ds beside d, off the path from the target */
}

/* The solve of a chain read (sn_ik_two_bone_run), inlined into both callers. */
SN_IK_INLINE void run(const sn_ik_two_bone *ik, sn_pose *pose, const chain *ch, const sn_vec3 *target, const sn_vec3 *pole,
                       double weight, unsigned *flags, sn_quat *written) {
    knee k;
    double u[3], v[3], n[3], d[3], e[3], e1[3], f1[3], bend[3], p[3], vt[3];
    double l1, l2, len, dist, want, want2, cphi = 1.0, sphi = 0.0, tol2, inv_e, x2 = 1.0, kr = 1.0;
    unsigned fl = 0;
    sn_quat q1, x, y, a1, lroot, qk, lmid;
    int hinge, have_dir;

    /* bones; a zero-length one leaves the pose as it is */
    ik_sub(ch->b, ch->a, u);
    ik_sub(ch->c, ch->b, v);
    l1 = ik_len(u);
    l2 = ik_len(v);
    len = l1 + l2;
    if (!(len >= SN_IK_MIN_LENGTH) || !(l1 > SN_IK_MIN_RATIO * len) || !(l2 > SN_IK_MIN_RATIO * len)) {
        if (flags != NULL) *flags = SN_IK_DEGENERATE;
        if (written != NULL) {
            written[0] = ch->lroot;
            written[1] = ch->lmid;
        }
        return;
    }
    tol2 = 2e-12 * len * len; /* 1e-12 of the chain on a distance, in squares */

    /* the knee's reach about its model hinge */
    ik_rotate(&ch->mid, ik->axis, n);
    hinge = knee_setup(u, v, n, l1, l2, &k);
    if (!hinge) {
        fl |= SN_IK_HINGE_ON_BONE;
        k.reach2 = k.fold2 = k.base > 0.0 ? k.base : 0.0;
    }

    /* the target's direction and softened distance */
    ik_sub((const double[3]){target->x, target->y, target->z}, ch->a, d);
    dist = ik_unit(d, SN_IK_MIN_RATIO * len, f1);
    if (dist == 0.0) {
        fl |= SN_IK_TARGET_AT_ROOT;
        ik_sub(ch->c, ch->a, e);
        if (ik_unit(e, SN_IK_MIN_RATIO * len, f1) == 0.0) ik_scale(u, 1.0 / l1, f1);
    }
    want = ik->soften < 1.0 ? soften_distance(dist, sqrt(k.reach2), ik->soften, &fl) : dist;
    want2 = want * want;
    if (want2 > k.reach2 + tol2 || want2 < k.fold2 - tol2) fl |= SN_IK_UNREACHABLE;
    want2 = want2 > k.reach2 ? k.reach2 : want2 < k.fold2 ? k.fold2 : want2;

    /* 1 / |e| for the root-tip vector e below, whose length the knee makes sqrt(want2): computed
       beside the knee, not after it (where sqrt(want2) is small beside the chain, the rounding of
       base + 2R cos could matter: there |e| itself is measured) */
    inv_e = hinge && want2 >= 1e-4 * len * len ? 1.0 / sqrt(want2) : 0.0;

    /* the knee, then the tip vector from the root */
    if (hinge) {
        knee_turn(&k, want2, &cphi, &sphi);
        ik_madd(k.vpar, cphi, k.vperp, vt);
        ik_madd(vt, sphi, k.w, vt);
    } else {
        vt[0] = v[0]; vt[1] = v[1]; vt[2] = v[2];
    }
    e[0] = u[0] + vt[0]; e[1] = u[1] + vt[1]; e[2] = u[2] + vt[2];

    /* the root: root-tip onto the target direction, then about it into the pole's plane */
    if (inv_e > 0.0) {
        ik_scale(e, inv_e, e1);
        have_dir = 1;
    } else {
        have_dir = ik_unit(e, SN_IK_MIN_RATIO * len, e1) > 0.0;
    }
    /* the root's turn Q = X q1: q1 the shortest arc root-tip -> target, X (the roll into the pole's
       plane, then the twist) about the target direction; the identity for a tip on the root */
    x.x = x.y = x.z = 0.0;
    x.w = 1.0;
    a1 = ch->root;
    if (have_dir) {
        double m[3], pl, ml, cs, q2;
        int have_bend;
        ik_madd(u, -ik_dot(u, e1), e1, m); /* the mid's offset from the root-tip line */
        ml = ik_len(m); /* the roll takes m unnormalised: |m| beside the turn below */
        have_bend = ml > SN_IK_MIN_RATIO * l1;
        if (!have_bend) { /* straight or folded: the side the hinge bends to */
            ik_cross(n, e1, bend);
            have_bend = ik_unit(bend, SN_IK_MIN_RATIO, m) > 0.0;
            ml = 1.0;
        }
        ik_sub((const double[3]){pole->x, pole->y, pole->z}, ch->a, p);
        pl = ik_len(p);
        ik_madd(p, -ik_dot(p, f1), f1, p);
        /* q1 = (e1 x f1, 1 + e1 . f1) / |.|: the bend turned by q1 unnormalised (a division, no
           square root, on the way to the roll), q1's own length found beside it */
        cs = ik_dot(e1, f1);
        if (1.0 + cs < 1e-9) { /* opposite: sn_quat_arc_unit's half turn */
            sn_quat_arc_unit(e1, f1, &q1);
            q2 = 1.0;
        } else {
            double ax[3];
            ik_cross(e1, f1, ax);
            q1.x = ax[0];
            q1.y = ax[1];
            q1.z = ax[2];
            q1.w = 1.0 + cs;
            q2 = ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2] + q1.w * q1.w;
        }
        if (have_bend && ik_unit(p, SN_IK_MIN_RATIO * (pl + len), p) > 0.0) {
            double b1[3];
            ik_rotate_h(&q1, 2.0 / q2, m, b1); /* across f1, as p; |b1| = ml */
            x2 = ik_roll_scaled_raw(f1, b1, ml, p, &x);
        } else {
            fl |= SN_IK_POLE_ON_LINE;
        }
        kr = 1.0 / sqrt(x2 * q2); /* the inverse length of X q1, beside the products below */
        ik_twist(f1, ik->twist_c, ik->twist_s, &x, &x);
        ik_qmul(&q1, &ch->root, &a1); /* q1 root_model, beside the roll */
    }
    if (!(fl & (SN_IK_SOFTENED | SN_IK_UNREACHABLE)) && weight >= 1.0) fl |= SN_IK_REACHED;

    /* locals: root' = parent^-1 X (q1 root_model); mid' = mid * R(axis, phi); X and q1 taken
       unnormalised, root' scaled by their lengths' inverses at the end */
    ik_qconj_mul(&ch->parent, &x, &y);
    ik_qmul(&y, &a1, &lroot);
    lroot.x *= kr;
    lroot.y *= kr;
    lroot.z *= kr;
    lroot.w *= kr;
    ik_qaxis_cs(ik->axis, cphi, sphi, &qk);
    ik_qmul(&ch->lmid, &qk, &lmid);
    sn_ik_write_rotation_as(pose, ik->joints[0], &ch->lroot, &lroot, weight, written);
    sn_ik_write_rotation_as(pose, ik->joints[1], &ch->lmid, &lmid, weight, written != NULL ? written + 1 : NULL);
    if (flags != NULL) *flags = fl;
}

sn_status sn_ik_two_bone_solve(const sn_ik_two_bone *ik, sn_pose *pose, const sn_vec3 *target, const sn_vec3 *pole,
                               double weight, unsigned *flags, sn_error *err) {
    chain ch;
    sn_status st;
    if (flags != NULL) *flags = 0;
    if (pole == NULL) return sn_fail_arg(err, 3, SN_EINVAL, "no pole");
    if ((st = sn_ik_check_call(ik->skeleton, pose, target, pole, "pole", 1, weight, err)) != SN_OK) return st;
    if (weight == 0.0) return SN_OK;
    if ((st = read_chain(ik, pose, &ch, err)) != SN_OK) return st;
    run(ik, pose, &ch, target, pole, weight, flags, NULL);
    return SN_OK;
}

void sn_ik_two_bone_run(const sn_ik_two_bone *ik, sn_pose *pose, const sn_ik_two_bone_chain *ch, const sn_vec3 *target,
                        const sn_vec3 *pole, double weight, unsigned *flags, sn_quat *written) {
    run(ik, pose, ch, target, pole, weight, flags, written);
}

void sn_ik_two_bone_set_unit_axis(sn_ik_two_bone *ik, const double *axis) {
    ik->axis[0] = axis[0];
    ik->axis[1] = axis[1];
    ik->axis[2] = axis[2];
}
