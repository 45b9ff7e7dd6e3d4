/* What the IK solvers share: reading model frames from a pose, checking arguments, writing a
   weighted local rotation back (see ik_internal.h). */
#include "ik_internal.h"

#include <stdio.h>

#include "pose_internal.h"

/* ---- reading the pose ----------------------------------------------------------------------- */

sn_ik_fault sn_ik_read_local(const sn_pose *pose, int joint, sn_ik_frame *local, double *t) {
    const int st = pose->stride;
    const float *ch = pose->ch;
    double x = ch[(SN_ROW_Q + 0) * st + joint], y = ch[(SN_ROW_Q + 1) * st + joint];
    double z = ch[(SN_ROW_Q + 2) * st + joint], w = ch[(SN_ROW_Q + 3) * st + joint];
    double sx = ch[(SN_ROW_S + 0) * st + joint], sy = ch[(SN_ROW_S + 1) * st + joint], sz = ch[(SN_ROW_S + 2) * st + joint];
    double l2, k, *m = local->m;
    t[0] = ch[(SN_ROW_T + 0) * st + joint];
    t[1] = ch[(SN_ROW_T + 1) * st + joint];
    t[2] = ch[(SN_ROW_T + 2) * st + joint];
    if (!sn_isfinite(x + y + z + w) || !sn_isfinite(sx + sy + sz) || !sn_isfinite(t[0] + t[1] + t[2]))
        return SN_IK_POSE_NOT_FINITE;
    l2 = x * x + y * y + z * z + w * w; /* floats squared in double: no overflow, no underflow to 0 */
    if (!(l2 > 0.0)) return SN_IK_POSE_ZERO_ROT;
    /* a pose's rotations are unit to float rounding: one Newton step of 1 / sqrt from 1 is exact to
       (3/8) (l2 - 1)^2, below 4e-13 here; any other length takes the square root */
    k = fabs(l2 - 1.0) < 1e-6 ? 1.5 - 0.5 * l2 : 1.0 / sqrt(l2);
    x *= k; y *= k; z *= k; w *= k;
    local->q.x = x; local->q.y = y; local->q.z = z; local->q.w = w;
    m[0] = (1.0 - 2.0 * (y * y + z * z)) * sx;
    m[4] = 2.0 * (x * y + z * w) * sx;
    m[8] = 2.0 * (x * z - y * w) * sx;
    m[1] = 2.0 * (x * y - z * w) * sy;
    m[5] = (1.0 - 2.0 * (x * x + z * z)) * sy;
    m[9] = 2.0 * (y * z + x * w) * sy;
    m[2] = 2.0 * (x * z + y * w) * sz;
    m[6] = 2.0 * (y * z - x * w) * sz;
    m[10] = (1.0 - 2.0 * (x * x + y * y)) * sz;
    m[3] = t[0];
    m[7] = t[1];
    m[11] = t[2];
    return SN_IK_POSE_OK;
}

sn_ik_fault sn_ik_read_translation(const sn_pose *pose, int joint, double *t) {
    const int st = pose->stride;
    const float *ch = pose->ch;
    t[0] = ch[(SN_ROW_T + 0) * st + joint];
    t[1] = ch[(SN_ROW_T + 1) * st + joint];
    t[2] = ch[(SN_ROW_T + 2) * st + joint];
    return sn_isfinite(t[0] + t[1] + t[2]) ? SN_IK_POSE_OK : SN_IK_POSE_NOT_FINITE;
}

void sn_ik_frame_mul(const sn_ik_frame *a, const sn_ik_frame *b, sn_ik_frame *out) {
    const double *x = a->m, *y = b->m;
    double r[12];
    int i;
    for (i = 0; i < 3; i++) {
        const double *row = x + 4 * i;
        r[4 * i + 0] = row[0] * y[0] + row[1] * y[4] + row[2] * y[8];
        r[4 * i + 1] = row[0] * y[1] + row[1] * y[5] + row[2] * y[9];
        r[4 * i + 2] = row[0] * y[2] + row[1] * y[6] + row[2] * y[10];
        r[4 * i + 3] = row[0] * y[3] + row[1] * y[7] + row[2] * y[11] + row[3];
    }
    for (i = 0; i < 12; i++) out->m[i] = r[i];
    ik_qmul(&a->q, &b->q, &out->q);
}

sn_ik_fault sn_ik_frame_check(const sn_ik_frame *f) {
    const double *m = f->m;
    /* NaN when any entry is NaN or infinite (x * 0 is 0 for finite x), summed as a tree */
    double s = ((m[0] * 0.0 + m[1] * 0.0) + (m[2] * 0.0 + m[3] * 0.0)) + ((m[4] * 0.0 + m[5] * 0.0) + (m[6] * 0.0 + m[7] * 0.0)) +
               ((m[8] * 0.0 + m[9] * 0.0) + (m[10] * 0.0 + m[11] * 0.0));
    if (s != 0.0) return SN_IK_POSE_TOO_FAR;
    if (!(fabs(f->m[3]) <= SN_IK_MAX_COORD && fabs(f->m[7]) <= SN_IK_MAX_COORD && fabs(f->m[11]) <= SN_IK_MAX_COORD))
        return SN_IK_POSE_TOO_FAR;
    return SN_IK_POSE_OK;
}

sn_ik_fault sn_ik_parent_frame(const sn_pose *pose, int joint, sn_ik_frame *out, int *bad) {
    const int *parents = sn_skeleton_parents(pose->skeleton);
    int i, k;
    for (i = 0; i < 12; i++) out->m[i] = (i % 5 == 0) ? 1.0 : 0.0;
    out->q.x = out->q.y = out->q.z = 0.0;
    out->q.w = 1.0;
    /* model(parent) = L(a_1) * ... * L(a_n) * L(parent): walking up, each ancestor multiplies from
       the left */
    for (k = parents[joint]; k >= 0; k = parents[k]) {
        sn_ik_frame l;
        double t[3];
        sn_ik_fault f = sn_ik_read_local(pose, k, &l, t);
        if (f != SN_IK_POSE_OK) {
            *bad = k;
            return f;
        }
        sn_ik_frame_mul(&l, out, out);
    }
    *bad = parents[joint];
    if (parents[joint] >= 0 && sn_ik_frame_check(out) != SN_IK_POSE_OK) return SN_IK_POSE_TOO_FAR;
    return SN_IK_POSE_OK;
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

sn_status sn_ik_check_call(const sn_skeleton *s, const sn_pose *pose, const sn_vec3 *target, const sn_vec3 *pole,
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

/* ---- writing ---------------------------------------------------------------------------------- */

void sn_ik_write_rotation(sn_pose *pose, int joint, const sn_quat *input, const sn_quat *solved, double weight) {
    const int st = pose->stride;
    float *ch = pose->ch;
    sn_quat q = *solved;
    double l2, k = 1.0;
    if (weight < 1.0) (void)sn_quat_slerp(input, solved, weight, &q, NULL);
    /* products of unit quaternions (and slerp's result) are unit to rounding: normalise only what
       drifted further */
    l2 = sn_quat_dot4(&q, &q);
    if (!(l2 > 0.0) || !sn_isfinite(l2)) return; /* cannot happen for unit inputs; never write a NaN */
    if (!(fabs(l2 - 1.0) < 1e-12)) k = 1.0 / sqrt(l2);
    if (sn_quat_dot4(&q, input) < 0.0) k = -k; /* keep the sign of the animation */
    ch[(SN_ROW_Q + 0) * st + joint] = (float)(q.x * k);
    ch[(SN_ROW_Q + 1) * st + joint] = (float)(q.y * k);
    ch[(SN_ROW_Q + 2) * st + joint] = (float)(q.z * k);
    ch[(SN_ROW_Q + 3) * st + joint] = (float)(q.w * k);
}
