#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
/* What the IK solvers share: reading model frames from a pose, checking arguments, writing a
   weighted local rotation back (see ik_internal.h). */
#include "ik_internal.h"

#include <stdio.h>
#include <string.h>

#include "pose_internal.h"

/* ---- reading the pose ----------------------------------------------------------------------- */

/* m = R(q) diag(s) (row-major 3x3) */
static void local_matrix(const sn_quat *q, const double *s, double *m) {
    const double x = q->x, y = q->y, z = q->z, w = q->w;
    m[0] = (1.0 - 2.0 * (y * y + z * z)) * s[0];
    m[3] = 2.0 * (x * y + z * w) * s[0];
    m[6] = 2.0 * (x * z - y * w) * s[0];
    m[1] = 2.0 * (x * y - z * w) * s[1];
    m[4] = (1.0 - 2.0 * (x * x + z * z)) * s[1];
    m[7] = 2.0 * (y * z + x * w) * s[1];
    m[2] = 2.0 * (x * z + y * w) * s[2];
    m[5] = 2.0 * (y * z - x * w) * s[2];
    m[8] = (1.0 - 2.0 * (x * x + y * y)) * s[2];
}

/* o = a b for 3x3 row-major matrices (o may be a or b) */
static void mat_mul(const double *a, const double *b, double *o) {
    double r[9];
    int i;
    for (i = 0; i < 3; i++) {
        const double *row = a + 3 * i;
        r[3 * i + 0] = row[0] * b[0] + row[1] * b[3] + row[2] * b[6];
        r[3 * i + 1] = row[0] * b[1] + row[1] * b[4] + row[2] * b[7];
        r[3 * i + 2] = row[0] * b[2] + row[1] * b[5] + row[2] * b[8];
    }
    memcpy(o, r, sizeof r);
}

/* f's linear part as the matrix m (a similarity's s R(q) written out) */
static void make_general(sn_ik_frame *f) {
    const double s[3] = {f->s, f->s, f->s};
    if (f->general) return;
    local_matrix(&f->q, s, f->m);
    f->general = 1;
}

sn_ik_fault sn_ik_frame_check_general(const sn_ik_frame *f) {
    const double *t = f->t, *m = f->m;
    /* NaN when any entry is NaN or infinite (x * 0 is 0 for finite x), summed as a tree */
    double s = ((m[0] * 0.0 + m[1] * 0.0) + (m[2] * 0.0 + m[3] * 0.0)) + ((m[4] * 0.0 + m[5] * 0.0) + (m[6] * 0.0 + m[7] * 0.0)) +
               m[8] * 0.0;
    if (s != 0.0) return SN_IK_POSE_TOO_FAR;
    if (!(fabs(t[0]) <= SN_IK_MAX_COORD && fabs(t[1]) <= SN_IK_MAX_COORD && fabs(t[2]) <= SN_IK_MAX_COORD))
        return SN_IK_POSE_TOO_FAR;
    return SN_IK_POSE_OK;
}

/* The walk past a non-uniform scale: from joint k (not applied yet) up, with matrices. */
static sn_ik_fault walk_general(const sn_pose *pose, const int *parents, int k, sn_ik_frame *f, int *bad) {
    for (; k >= 0; k = parents[k]) {
        double m[9], v[3];
        sn_ik_local l;
        sn_ik_fault fault = sn_ik_read_local(pose, k, &l);
        if (fault != SN_IK_POSE_OK) {
            *bad = k;
            return fault;
        }
        make_general(f);
        local_matrix(&l.q, l.s, m);
        ik_vector3(m, f->t, v);
        ik_madd(l.t, 1.0, v, f->t);
        mat_mul(m, f->m, f->m);
        ik_qmul(&l.q, &f->q, &f->q);
    }
    return SN_IK_POSE_OK;
}

/* The careful walk: each joint checked as it is read, so that a fault names its joint. */
static sn_ik_fault walk_careful(const sn_pose *pose, const int *parents, int joint, sn_ik_frame *out, int *bad) {
    sn_quat q = {0.0, 0.0, 0.0, 1.0};
    double t[3] = {0.0, 0.0, 0.0}, s = 1.0;
    int k;
    /* model(parent) = L(a_1) * ... * L(a_n) * L(parent): walking up, each ancestor multiplies from
       the left; while scales are uniform, as similarities: t' = t_k + s_k R(q_k) t, s' = s_k s,
       q' = q_k q (kept in locals, in registers) */
    for (k = parents[joint]; k >= 0; k = parents[k]) {
        double v[3];
        sn_ik_local l;
        sn_ik_fault fault = sn_ik_read_local(pose, k, &l);
        if (fault != SN_IK_POSE_OK) {
            *bad = k;
            return fault;
        }
        if (!l.uniform) break;
        ik_rotate(&l.q, t, v);
        ik_madd(l.t, l.s[0], v, t);
        s *= l.s[0];
        ik_qmul(&l.q, &q, &q);
    }
    out->q = q;
    memcpy(out->t, t, sizeof t);
    out->s = s;
    out->general = 0;
    if (k >= 0) {
        sn_ik_fault fault = walk_general(pose, parents, k, out, bad);
        if (fault != SN_IK_POSE_OK) return fault;
    }
    *bad = parents[joint];
    return parents[joint] >= 0 ? sn_ik_frame_check(out) : SN_IK_POSE_OK;
}

/* The fast walk, for the common case of finite poses with uniform scales: no test per joint, the
   rotations composed unnormalised (a rotated vector divides by |q|^2 instead), one normalisation at
   the end. A fault anywhere on the path shows in the result (a NaN, an infinity, a zero or
   overflowed rotation: inf * 0 is NaN) and so does a non-uniform scale (a flag): then it returns 0
   and the careful walk reads the path again. */
static int walk_fast(const sn_pose *pose, const int *parents, int k, sn_ik_frame *out) {
    const int st = pose->stride;
    const float *tr = pose->ch + SN_ROW_T * st, *sc = pose->ch + SN_ROW_S * st, *ro = pose->ch + SN_ROW_Q * st;
    double qx, qy, qz, qw, tx, ty, tz, s, l2, kq;
    int uniform;
    if (k < 0) { /* a root: the identity */
        out->q.x = out->q.y = out->q.z = 0.0;
        out->q.w = 1.0;
        out->t[0] = out->t[1] = out->t[2] = 0.0;
        out->s = 1.0;
        out->general = 0;
        return 1;
    }
    /* the nearest ancestor is the start: its own rotation and translation (nothing to turn yet) */
    qx = ro[k];
    qy = ro[k + st];
    qz = ro[k + 2 * st];
    qw = ro[k + 3 * st];
    tx = tr[k];
    ty = tr[k + st];
    tz = tr[k + 2 * st];
    s = sc[k];
    uniform = (sc[k] == sc[k + st]) & (sc[k + st] == sc[k + 2 * st]);
    for (k = parents[k]; k >= 0; k = parents[k]) {
        const float sx = sc[k], sy = sc[k + st], sz = sc[k + 2 * st];
        const double x = ro[k], y = ro[k + st], z = ro[k + 2 * st], w = ro[k + 3 * st];
        const double h = 2.0 / (x * x + y * y + z * z + w * w), ks = sx;
        /* R(q) t = t + (2 / |q|^2) (w (u x t) + u x (u x t)), u = (x, y, z) */
        const double cx = y * tz - z * ty, cy = z * tx - x * tz, cz = x * ty - y * tx;
        const double dx = w * cx + (y * cz - z * cy), dy = w * cy + (z * cx - x * cz), dz = w * cz + (x * cy - y * cx);
        const double px = qx, py = qy, pz = qz, pw = qw;
        uniform &= (sx == sy) & (sy == sz);
        tx = tr[k] + ks * (tx + h * dx);
        ty = tr[k + st] + ks * (ty + h * dy);
        tz = tr[k + 2 * st] + ks * (tz + h * dz);
        s *= ks;
        qx = w * px + x * pw + y * pz - z * py;
        qy = w * py - x * pz + y * pw + z * px;
        qz = w * pz + x * py - y * px + z * pw;
        qw = w * pw - x * px - y * py - z * pz;
    }
    l2 = qx * qx + qy * qy + qz * qz + qw * qw;
    if (!uniform || !(l2 > 1e-200 && l2 < 1e200) || !sn_isfinite(s)) return 0;
    if (!(fabs(tx) <= SN_IK_MAX_COORD && fabs(ty) <= SN_IK_MAX_COORD && fabs(tz) <= SN_IK_MAX_COORD)) return 0;
    /* products of rotations unit to float rounding are unit to about 1e-6: one Newton step of
       1 / sqrt from 1 (exact to (3/8) (l2 - 1)^2, below 4e-13) instead of a square root and a
       division at the start of every solve's chain of dependent work */
    kq = fabs(l2 - 1.0) < 1e-6 ? 1.5 - 0.5 * l2 : 1.0 / sqrt(l2);
    out->q.x = qx * kq;
    out->q.y = qy * kq;
    out->q.z = qz * kq;
    out->q.w = qw * kq;
    out->t[0] = tx;
    out->t[1] = ty;
    out->t[2] = tz;
    out->s = s;
    out->general = 0;
    return 1;
}

sn_ik_fault sn_ik_parent_frame(const sn_pose *pose, int joint, sn_ik_frame *out, int *bad) {
    const int *parents = sn_skeleton_parents(pose->skeleton);
    *bad = parents[joint];
    if (walk_fast(pose, parents, parents[joint], out)) return SN_IK_POSE_OK;
    return walk_careful(pose, parents, joint, out, bad);
}

void sn_ik_frame_child_general(const sn_ik_frame *p, const sn_ik_local *l, sn_ik_frame *out) {
    double v[3], lm[9], pm[9];
    if (p->general) {
        memcpy(pm, p->m, sizeof pm);
    } else {
        const double s[3] = {p->s, p->s, p->s};
        local_matrix(&p->q, s, pm);
    }
    local_matrix(&l->q, l->s, lm);
    ik_vector3(pm, l->t, v);
    ik_madd(p->t, 1.0, v, out->t);
    mat_mul(pm, lm, out->m);
    out->general = 1;
    ik_qmul(&p->q, &l->q, &out->q);
}

sn_status sn_ik_pose_error(const sn_pose *pose, sn_ik_fault f, int joint, sn_error *err) {
    const char *name = sn_skeleton_name(pose->skeleton, joint);
    if (f == SN_IK_POSE_NOT_FINITE) return sn_fail_arg(err, 1, SN_EINVAL, "joint '%s' of the pose is not finite", name);
    if (f == SN_IK_POSE_ZERO_ROT) return sn_fail_arg(err, 1, SN_EINVAL, "joint '%s' of the pose has a zero rotation", name);
    return sn_fail_arg(err, 1, SN_EINVAL, "joint '%s' of the pose is placed out of range (%g .. %g)", name,
                       -SN_IK_MAX_COORD, SN_IK_MAX_COORD);
}

/* ---- arguments -------------------------------------------------------------------------------- */

static sn_status check_point(const sn_vec3 *v, const char *what, int arg, int bounded, sn_error *err) {
    const double c[3] = {v->x, v->y, v->z};
    static const char *const axis[3] = {"x", "y", "z"};
    int i;
    for (i = 0; i < 3; i++) {
        if (!sn_isfinite(c[i])) return sn_fail_arg(err, arg, SN_EINVAL, "%s %s is not finite", what, axis[i]);
        if (bounded && !(fabs(c[i]) <= SN_IK_MAX_COORD)) {
            char name[48];
            snprintf(name, sizeof name, "%s %s", what, axis[i]);
            return sn_fail_range(err, arg, name, c[i], -SN_IK_MAX_COORD, SN_IK_MAX_COORD);
        }
    }
    return SN_OK;
}

sn_status sn_ik_check_call_fault(const sn_skeleton *s, const sn_pose *pose, const sn_vec3 *target, const sn_vec3 *pole,
                                 const char *pole_name, int bounded, double weight, sn_error *err) {
    sn_status st;
    if (pose == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no pose");
    if (pose->skeleton != s) return sn_fail_arg(err, 1, SN_EINVAL, "pose of another skeleton");
    if (target == NULL) return sn_fail_arg(err, 2, SN_EINVAL, "no target");
    if ((st = check_point(target, "target", 2, 1, err)) != SN_OK) return st;
    if (pole != NULL && (st = check_point(pole, pole_name, 3, bounded, err)) != SN_OK) return st;
    if (!sn_isfinite(weight)) return sn_fail_arg(err, 4, SN_EINVAL, "weight is not finite");
    if (!(weight >= 0.0 && weight <= 1.0)) return sn_fail_range(err, 4, "weight", weight, 0.0, 1.0);
    return SN_OK;
}

sn_status sn_ik_check_vec(const sn_vec3 *v, const char *what, int nonzero, sn_error *err) {
    if (!sn_isfinite(v->x) || !sn_isfinite(v->y) || !sn_isfinite(v->z))
        return sn_fail_arg(err, 1, SN_EINVAL, "'%s' is not finite", what);
    if (nonzero && v->x == 0.0 && v->y == 0.0 && v->z == 0.0)
        return sn_fail_arg(err, 1, SN_EINVAL, "'%s' is a zero vector", what);
    return SN_OK;
}
