/* The aim solver (see ik.h): read the joint's model frame, find the direction from the joint that
   puts the forward line through the offset on the target, turn onto it, roll the up axis toward
   the up reference, cap the turn by the limit, write back. */
#include "ik_internal.h"

#include <string.h>

struct sn_ik_aim {
    const sn_skeleton *skeleton;  /* outlives the solver */
    int joint;
    double fwd[3];     /* forward, unit, joint frame */
    double up[3];      /* the up axis's part across forward, unit, joint frame */
    double offset[3];  /* joint frame */
    double limit;      /* (0, pi] */
    double twist;      /* radians */
    double twist_c, twist_s;  /* cos and sin of twist / 2 */
    double cos_limit;  /* cos(limit) */
    int path_n;        /* joints from the joint's child down to the effector (0: no effector) */
    int path[SN_IK_AIM_MAX_PATH];
};

/* The sine of the smallest angle allowed between forward and up. */
#define AIM_MIN_SIN 1e-6

void sn_ik_aim_def_init(sn_ik_aim_def *def) {
    memset(def, 0, sizeof *def);
    def->joint = -1;
    def->forward.z = 1.0;
    def->up.y = 1.0;
    def->limit = SN_IK_PI;
    def->effector = -1;
}

/* The joints below `joint` down to `effector`, top first, into path (NULL: only counted): their
   count, or -1 when the effector is not below the joint within SN_IK_AIM_MAX_PATH joints. */
static int effector_path(const sn_skeleton *s, int joint, int effector, int *path) {
    int n = 0, j = effector, k;
    while (j != joint) {
        if (j < 0 || n >= SN_IK_AIM_MAX_PATH) return -1;
        n++;
        j = sn_skeleton_parent(s, j);
    }
    for (j = effector, k = n - 1; path != NULL && k >= 0; k--, j = sn_skeleton_parent(s, j)) path[k] = j;
    return n;
}

static sn_status check_limit(double limit, sn_error *err) {
    if (!sn_isfinite(limit)) return sn_fail_arg(err, 1, SN_EINVAL, "'limit' is not finite");
    if (!(limit > 0.0 && limit <= SN_IK_PI)) return sn_fail_range(err, 1, "'limit'", limit, 0.0, SN_IK_PI);
    return SN_OK;
}

/* o = v / |v| for a finite non-zero v (divided by its largest component first: no overflow, and
   by division: a denormal largest component has no finite reciprocal, which made 'forward' =
   {1e-310, 0, 0} NaN and refused as "parallel to 'up'") */
static void unit_of(const sn_vec3 *v, double *o) {
    double m = fmax(fabs(v->x), fmax(fabs(v->y), fabs(v->z)));
    double a[3] = {v->x / m, v->y / m, v->z / m};
    ik_scale(a, 1.0 / ik_len(a), o);
}

sn_status sn_ik_aim_validate(const sn_ik_aim_def *def, sn_error *err) {
    double f[3], u[3], c[3];
    sn_status st;
    int n;
    if (def == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no aim definition");
    if (def->skeleton == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no skeleton");
    n = sn_skeleton_count(def->skeleton);
    if (def->joint < 0 || def->joint >= n)
        return sn_fail_arg(err, 1, SN_EINVAL, "joint %d is out of range (1 .. %d)", def->joint + 1, n);
    if ((st = sn_ik_check_vec(&def->forward, "forward", 1, err)) != SN_OK) return st;
    if ((st = sn_ik_check_vec(&def->up, "up", 1, err)) != SN_OK) return st;
    unit_of(&def->forward, f);
    unit_of(&def->up, u);
    ik_cross(f, u, c);
    if (!(ik_len(c) > AIM_MIN_SIN)) return sn_fail_arg(err, 1, SN_EINVAL, "'up' is parallel to 'forward'");
    if ((st = sn_ik_check_vec(&def->offset, "offset", 0, err)) != SN_OK) return st;
    if (!(fabs(def->offset.x) <= SN_IK_MAX_COORD && fabs(def->offset.y) <= SN_IK_MAX_COORD &&
          fabs(def->offset.z) <= SN_IK_MAX_COORD))
        return sn_fail_arg(err, 1, SN_EINVAL, "'offset' is out of range (%g .. %g)", -SN_IK_MAX_COORD, SN_IK_MAX_COORD);
    if ((st = check_limit(def->limit, err)) != SN_OK) return st;
    if (!sn_isfinite(def->twist)) return sn_fail_arg(err, 1, SN_EINVAL, "'twist' is not finite");
    if (def->effector != -1) {
        if (def->effector < 0 || def->effector >= n)
            return sn_fail_arg(err, 1, SN_EINVAL, "effector %d is out of range (1 .. %d)", def->effector + 1, n);
        if (effector_path(def->skeleton, def->joint, def->effector, NULL) < 0)
            return sn_fail_arg(err, 1, SN_EINVAL, "effector %d is not a descendant of joint %d within %d joints",
                               def->effector + 1, def->joint + 1, SN_IK_AIM_MAX_PATH);
    }
    return SN_OK;
}

size_t sn_ik_aim_size(const sn_ik_aim_def *def, sn_error *err) {
    if (sn_ik_aim_validate(def, err) != SN_OK) return 0;
    return SN_ALIGN16(sizeof(sn_ik_aim));
}

sn_status sn_ik_aim_init(void *mem, size_t size, const sn_ik_aim_def *def, sn_error *err) {
    size_t need = sn_ik_aim_size(def, err);
    sn_ik_aim *ik = (sn_ik_aim *)mem;
    double u[3];
    if (need == 0) return err != NULL ? err->code : SN_EINVAL;
    if (mem == NULL || size < need) return sn_fail(err, SN_ENOMEM, "aim solver needs %lu bytes", (unsigned long)need);
    ik->skeleton = def->skeleton;
    ik->joint = def->joint;
    unit_of(&def->forward, ik->fwd);
    unit_of(&def->up, u);
    ik_madd(u, -ik_dot(u, ik->fwd), ik->fwd, u); /* the up axis across forward */
    ik_scale(u, 1.0 / ik_len(u), ik->up);
    ik->offset[0] = def->offset.x;
    ik->offset[1] = def->offset.y;
    ik->offset[2] = def->offset.z;
    ik->limit = def->limit;
    ik->cos_limit = cos(def->limit);
    ik->twist = def->twist;
    ik->twist_c = cos(0.5 * def->twist);
    ik->twist_s = sin(0.5 * def->twist);
    ik->path_n = def->effector == -1 ? 0 : effector_path(def->skeleton, def->joint, def->effector, ik->path);
    return SN_OK;
}

const sn_skeleton *sn_ik_aim_skeleton(const sn_ik_aim *ik) { return ik->skeleton; }

int sn_ik_aim_joint(const sn_ik_aim *ik) { return ik->joint; }

int sn_ik_aim_effector(const sn_ik_aim *ik) { return ik->path_n > 0 ? ik->path[ik->path_n - 1] : ik->joint; }

double sn_ik_aim_limit(const sn_ik_aim *ik) { return ik->limit; }

double sn_ik_aim_twist(const sn_ik_aim *ik) { return ik->twist; }

sn_status sn_ik_aim_set_limit(sn_ik_aim *ik, double limit, sn_error *err) {
    sn_status st = check_limit(limit, err);
    if (st == SN_OK) {
        ik->limit = limit;
        ik->cos_limit = cos(limit);
    }
    return st;
}

sn_status sn_ik_aim_set_twist(sn_ik_aim *ik, double twist, sn_error *err) {
    if (!sn_isfinite(twist)) return sn_fail_arg(err, 1, SN_EINVAL, "'twist' is not finite");
    ik->twist = twist;
    ik->twist_c = cos(0.5 * twist);
    ik->twist_s = sin(0.5 * twist);
    return SN_OK;
}

/* ---- the solve ------------------------------------------------------------------------------ */

/* The forward angle the limit allows for a full turn of `angle` (> limit): easing (smoothstep, so
   with slope 0 at the limit) from the limit down to 0 when the target is right behind. */
static double capped_angle(double angle, double limit) {
    double s = (angle - limit) / (SN_IK_PI - limit);
    s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
    return limit * (1.0 - s * s * (3.0 - 2.0 * s));
}

/* r held back by the limit: r = R(F, rho) * arc(f -> F) turns f by `angle` onto F; the result
   turns f by g along the same great circle (arc(f -> Fc), continuous in F: right behind, g is 0)
   and keeps the roll rho faded by g / limit. */
static void hold_back(sn_quat *r, const double *f, const double *fa, double g, double limit) {
    double axis[3], fc[3], rho;
    sn_quat arc, roll, qc;
    sn_quat_arc_unit(f, fa, &arc);
    ik_qmul(r, &(sn_quat){-arc.x, -arc.y, -arc.z, arc.w}, &roll); /* R(F, rho) */
    rho = 2.0 * atan2(roll.x * fa[0] + roll.y * fa[1] + roll.z * fa[2], roll.w);
    if (rho > SN_IK_PI) rho -= 2.0 * SN_IK_PI;
    if (rho < -SN_IK_PI) rho += 2.0 * SN_IK_PI;
    ik_cross(f, fa, axis);
    if (ik_unit(axis, 0.0, axis) == 0.0) sn_perp_of_unit(f, axis); /* right behind: g is 0 */
    ik_qaxis(axis, g, &qc);
    ik_rotate(&qc, f, fc);
    ik_qaxis(fc, rho * g / limit, &roll);
    ik_qmul(&roll, &qc, r);
}

sn_status sn_ik_aim_solve(const sn_ik_aim *ik, sn_pose *pose, const sn_vec3 *target, const sn_vec3 *up, double weight,
                          unsigned *flags, sn_error *err) {
    sn_ik_frame p, mj;
    sn_ik_local l;
    double t[3], pj[3], o[3], f[3], upm[3], w[3], wn[3], tn[3], ref[3], u1[3], a[3], b[3], c[3], fa[3];
    double dist, ol, of, disc, lam, al, tt, oo, q2, x2 = 1.0, r2, kr;
    unsigned fl = 0;
    sn_quat q1, x, a1, r, model, local;
    sn_status st;
    sn_ik_fault fault;
    int bad;
    if (flags != NULL) *flags = 0;
    if ((st = sn_ik_check_call(ik->skeleton, pose, target, up, "up", 0, weight, err)) != SN_OK) return st;
    if (up != NULL && up->x == 0.0 && up->y == 0.0 && up->z == 0.0)
        return sn_fail_arg(err, 3, SN_EINVAL, "up is a zero vector");
    if (weight == 0.0) return SN_OK;

    /* the joint's model frame, its forward and up axes and the offset in model space */
    if ((fault = sn_ik_parent_frame(pose, ik->joint, &p, &bad)) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, fault, bad, err);
    if ((fault = sn_ik_read_local(pose, ik->joint, &l)) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, fault, ik->joint, err);
    sn_ik_frame_child(&p, &l, &mj);
    if (sn_ik_frame_check(&mj) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, SN_IK_POSE_TOO_FAR, ik->joint, err);
    pj[0] = mj.t[0]; pj[1] = mj.t[1]; pj[2] = mj.t[2];
    if (ik->path_n == 0) {
        ik_frame_vector(&mj, ik->offset, o);
        ik_rotate(&mj.q, ik->fwd, f);
        ik_rotate(&mj.q, ik->up, upm);
    } else { /* the effector's frame, down the path: its offset point from the joint, its axes */
        sn_ik_frame me = mj, next;
        sn_ik_local le;
        int k;
        for (k = 0; k < ik->path_n; k++) {
            if ((fault = sn_ik_read_local(pose, ik->path[k], &le)) != SN_IK_POSE_OK)
                return sn_ik_pose_error(pose, fault, ik->path[k], err);
            sn_ik_frame_child(&me, &le, &next);
            if (sn_ik_frame_check(&next) != SN_IK_POSE_OK)
                return sn_ik_pose_error(pose, SN_IK_POSE_TOO_FAR, ik->path[k], err);
            me = next;
        }
        ik_frame_vector(&me, ik->offset, o);
        o[0] += me.t[0] - pj[0];
        o[1] += me.t[1] - pj[1];
        o[2] += me.t[2] - pj[2];
        ik_rotate(&me.q, ik->fwd, f);
        ik_rotate(&me.q, ik->up, upm);
    }
    if (!(fabs(o[0]) <= SN_IK_MAX_COORD && fabs(o[1]) <= SN_IK_MAX_COORD && fabs(o[2]) <= SN_IK_MAX_COORD))
        return sn_ik_pose_error(pose, SN_IK_POSE_TOO_FAR, ik->joint, err);

    /* the direction w from the joint, in the joint's current frame, that the target must take: the
       point of the forward line from the offset at the target's distance (ozz's offsetted forward) */
    ik_sub((const double[3]){target->x, target->y, target->z}, pj, t);
    tt = ik_dot(t, t); /* |t|^2 and |o|^2 as dot products: the square roots stay beside the path */
    oo = ik_dot(o, o);
    of = ik_dot(o, f);
    disc = tt - (oo - of * of);
    lam = disc >= 0.0 ? sqrt(disc) - of : -1.0;
    dist = sqrt(tt);
    ol = sqrt(oo);
    if (!(lam > SN_IK_MIN_RATIO * (dist + ol))) { /* the line cannot pass through the target */
        if (flags != NULL) *flags = SN_IK_DEGENERATE;
        return SN_OK;
    }
    ik_madd(o, lam, f, w);
    ik_scale(t, 1.0 / dist, tn);
    {
        /* the shortest arc w -> t, |w| = |t| = dist: (w x t, |t|^2 + w . t), as sn_quat_arc_unit
           of the unit vectors; kept unnormalised (k1 its inverse length, found beside it) */
        double cs = ik_dot(w, t), wt[3];
        if (tt + cs < 1e-9 * tt) { /* opposite: sn_quat_arc_unit's half turn */
            ik_scale(w, 1.0 / dist, wn);
            sn_quat_arc_unit(wn, tn, &q1);
            q2 = 1.0;
        } else {
            ik_cross(w, t, wt);
            q1.x = wt[0];
            q1.y = wt[1];
            q1.z = wt[2];
            q1.w = tt + cs;
            q2 = wt[0] * wt[0] + wt[1] * wt[1] + wt[2] * wt[2] + q1.w * q1.w;
        }
    }

    /* the roll about the target direction that brings the up axis nearest to the reference */
    if (up != NULL) {
        unit_of(up, ref);
    } else {
        ref[0] = upm[0]; ref[1] = upm[1]; ref[2] = upm[2];
    }
    ik_rotate_h(&q1, 2.0 / q2, upm, u1); /* a division, no square root, before the roll */
    ik_madd(u1, -ik_dot(u1, tn), tn, a);
    ik_madd(ref, -ik_dot(ref, tn), tn, b);
    al = ik_len(a); /* the roll takes a unnormalised: |a| beside it */
    x.x = x.y = x.z = 0.0;
    x.w = 1.0;
    if (al > SN_IK_MIN_RATIO && ik_unit(b, SN_IK_MIN_RATIO, b) > 0.0) {
        x2 = ik_roll_scaled_raw(tn, a, al, b, &x); /* unnormalised too: x2 its squared length */
    } else {
        fl |= SN_IK_POLE_ON_LINE;
    }
    r2 = x2 * q2;            /* |X q1|^2 */
    kr = 1.0 / sqrt(r2);     /* beside the products below */
    ik_twist(tn, ik->twist_c, ik->twist_s, &x, &x); /* X: the roll, then the twist */
    ik_qmul(&q1, &mj.q, &a1);                         /* q1 model, beside X */
    ik_qmul(&x, &q1, &r);

    /* the limit: the angle the forward axis turns, whose cosine f . (r f) is 1 - 2 (|u|^2 - (u . f)^2)
       for r = (u, w) unit (|r|^2 times that for r unnormalised): the turned axis itself only past the
       limit's cosine */
    if (ik->limit < SN_IK_PI &&
        r2 - 2.0 * ((r.x * r.x + r.y * r.y + r.z * r.z) - (r.x * f[0] + r.y * f[1] + r.z * f[2]) * (r.x * f[0] + r.y * f[1] + r.z * f[2])) <
            ik->cos_limit * r2) {
        double angle;
        r.x *= kr; /* R normalised (X and q1 stay as they are) */
        r.y *= kr;
        r.z *= kr;
        r.w *= kr;
        ik_rotate(&r, f, fa);
        ik_cross(f, fa, c);
        angle = atan2(ik_len(c), ik_dot(f, fa));
        if (angle > ik->limit) {
            fl |= SN_IK_LIMITED;
            hold_back(&r, f, fa, capped_angle(angle, ik->limit), ik->limit);
        }
    }
    if (!(fl & SN_IK_LIMITED) && weight >= 1.0) fl |= SN_IK_REACHED;

    /* local' = parent^-1 R model: (parent^-1 X) (q1 model) where the limit left R = X q1 */
    if (!(fl & SN_IK_LIMITED)) {
        ik_qconj_mul(&p.q, &x, &model);
        ik_qmul(&model, &a1, &local);
        local.x *= kr;
        local.y *= kr;
        local.z *= kr;
        local.w *= kr;
    } else {
        ik_qmul(&r, &mj.q, &model);
        ik_qconj_mul(&p.q, &model, &local);
    }
    sn_ik_write_rotation(pose, ik->joint, &l.q, &local, weight);
    if (flags != NULL) *flags = fl;
    return SN_OK;
}
