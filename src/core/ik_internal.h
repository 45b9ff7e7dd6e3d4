/*
 * Private to src/core: what the IK solvers share (ik_common.c): vectors as double[3], model
 * frames read from a pose by walking the skeleton's parents (quaternions while scales are
 * uniform, matrices past a non-uniform one), the checks of joint lists and
 * arguments, and the weighted write-back of a local rotation.
 *
 * CONVENTIONS: as ik.h. Not part of the public API.
 */
#ifndef SN_IK_INTERNAL_H
#define SN_IK_INTERNAL_H

#include <math.h>

#include "ik.h"
#include "pose_internal.h"
#include "quat_internal.h"

/// A static function of a solve's hot path that must be inlined (gcc declines some of them past
/// a size, then passes their results through memory).
#if defined(__GNUC__)
#define SN_IK_INLINE static inline __attribute__((always_inline))
#else
#define SN_IK_INLINE static inline
#endif

/// pi, which strict C99 does not name.
#define SN_IK_PI 3.14159265358979323846

/// A joint's local transform as read from a pose: unit rotation, translation, scale.
typedef struct sn_ik_local {
    sn_quat q;     ///< unit rotation
    double t[3];   ///< translation
    double s[3];   ///< scale x, y, z
    int uniform;   ///< 1 when sx = sy = sz
} sn_ik_local;

/// A model frame, x -> t + L x. While every scale on its path is uniform (general 0), L is
/// s R(q): a similarity, composed with quaternions; a non-uniform scale on the path makes it a
/// general affine frame (general 1), L the 3x3 matrix m. q is in both cases the product of the
/// unit local rotations along the path.
typedef struct sn_ik_frame {
    sn_quat q;     ///< unit rotation
    double t[3];   ///< translation: where the frame's origin is
    double s;      ///< uniform scale (general 0)
    double m[9];   ///< 3x3 row-major linear part (general 1)
    int general;   ///< 0: L = s R(q); 1: L = m
} sn_ik_frame;

/// Why a pose could not be read.
typedef enum sn_ik_fault {
    SN_IK_POSE_OK = 0,
    SN_IK_POSE_NOT_FINITE = 1,  ///< a local value is NaN or infinite
    SN_IK_POSE_ZERO_ROT = 2,    ///< a local rotation is zero
    SN_IK_POSE_TOO_FAR = 3      ///< a model-space product left SN_IK_MAX_COORD (or overflowed)
} sn_ik_fault;

static inline double ik_dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline void ik_cross(const double *a, const double *b, double *o) {
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    o[0] = x;
    o[1] = y;
    o[2] = z;
}
static inline void ik_sub(const double *a, const double *b, double *o) {
    o[0] = a[0] - b[0];
    o[1] = a[1] - b[1];
    o[2] = a[2] - b[2];
}
static inline void ik_add(const double *a, const double *b, double *o) {
    o[0] = a[0] + b[0];
    o[1] = a[1] + b[1];
    o[2] = a[2] + b[2];
}
/// o = a - b, returning o.
static inline const double *ik_sub3(const double *a, const double *b, double *o) {
    ik_sub(a, b, o);
    return o;
}
/// o = a + k b
static inline void ik_madd(const double *a, double k, const double *b, double *o) {
    o[0] = a[0] + k * b[0];
    o[1] = a[1] + k * b[1];
    o[2] = a[2] + k * b[2];
}
static inline void ik_scale(const double *a, double k, double *o) {
    o[0] = a[0] * k;
    o[1] = a[1] * k;
    o[2] = a[2] * k;
}
static inline double ik_len(const double *a) { return sqrt(ik_dot(a, a)); }
/// o = a / |a| when |a| > tiny (returns |a|), else o untouched and 0 returned.
static inline double ik_unit(const double *a, double tiny, double *o) {
    double l = ik_len(a);
    if (!(l > tiny)) return 0.0;
    ik_scale(a, 1.0 / l, o);
    return l;
}
/// o = v rotated by the unit quaternion q: v + w c + u x c with c = 2 u x v (o may be v).
static inline void ik_rotate(const sn_quat *q, const double *v, double *o) {
    const double x = q->x, y = q->y, z = q->z, w = q->w, vx = v[0], vy = v[1], vz = v[2];
    const double cx = 2.0 * (y * vz - z * vy), cy = 2.0 * (z * vx - x * vz), cz = 2.0 * (x * vy - y * vx);
    o[0] = vx + w * cx + (y * cz - z * cy);
    o[1] = vy + w * cy + (z * cx - x * cz);
    o[2] = vz + w * cz + (x * cy - y * cx);
}
/// o = v rotated by q, a quaternion of any non-zero length, where h = 2 / |q|^2: v + h (w c + u x c)
/// with c = u x v (o may be v). Lets a caller rotate by q before its normalisation is known.
static inline void ik_rotate_h(const sn_quat *q, double h, const double *v, double *o) {
    const double x = q->x, y = q->y, z = q->z, w = q->w, vx = v[0], vy = v[1], vz = v[2];
    const double cx = y * vz - z * vy, cy = z * vx - x * vz, cz = x * vy - y * vx;
    o[0] = vx + h * (w * cx + (y * cz - z * cy));
    o[1] = vy + h * (w * cy + (z * cx - x * cz));
    o[2] = vz + h * (w * cz + (x * cy - y * cx));
}
/// out = a * b (apply b first).
static inline void ik_qmul(const sn_quat *a, const sn_quat *b, sn_quat *out) {
    sn_quat r;
    r.x = a->w * b->x + a->x * b->w + a->y * b->z - a->z * b->y;
    r.y = a->w * b->y - a->x * b->z + a->y * b->w + a->z * b->x;
    r.z = a->w * b->z + a->x * b->y - a->y * b->x + a->z * b->w;
    r.w = a->w * b->w - a->x * b->x - a->y * b->y - a->z * b->z;
    *out = r;
}
/// out = a^-1 * b for a unit a.
static inline void ik_qconj_mul(const sn_quat *a, const sn_quat *b, sn_quat *out) {
    sn_quat c = {-a->x, -a->y, -a->z, a->w};
    ik_qmul(&c, b, out);
}
/// Rotation of `angle` about the unit `axis`.
static inline void ik_qaxis(const double *axis, double angle, sn_quat *out) {
    double s = sin(0.5 * angle);
    out->x = axis[0] * s;
    out->y = axis[1] * s;
    out->z = axis[2] * s;
    out->w = cos(0.5 * angle);
}
/// Rotation about the unit `axis` whose quaternion is (axis s, w) normalised; a half turn about
/// the axis where that length is not above `tiny` (w and s both about 0: opposite directions).
static inline void ik_qaxis_ws(const double *axis, double w, double s, double tiny, sn_quat *out) {
    double l = sqrt(w * w + s * s);
    if (!(l > tiny)) {
        out->x = axis[0];
        out->y = axis[1];
        out->z = axis[2];
        out->w = 0.0;
        return;
    }
    l = 1.0 / l;
    out->x = axis[0] * s * l;
    out->y = axis[1] * s * l;
    out->z = axis[2] * s * l;
    out->w = w * l;
}
/// Rotation about the unit `axis` by the angle whose cosine and sine are c and s (c^2 + s^2 = 1):
/// (axis s, 1 + c) normalised, no trigonometry; a half turn for c = -1.
static inline void ik_qaxis_cs(const double *axis, double c, double s, sn_quat *out) {
    ik_qaxis_ws(axis, 1.0 + c, s, 1e-150, out);
}
/// The rotation about the unit `axis` taking the unit a onto the unit b, both across the axis.
static inline void ik_roll(const double *axis, const double *a, const double *b, sn_quat *out) {
    double c[3];
    ik_cross(a, b, c);
    ik_qaxis_cs(axis, ik_dot(a, b), ik_dot(c, axis), out);
}
/// The rotation about the unit `axis` taking b (across the axis, of length bl > 0) onto the unit
/// p (across the axis): ik_roll without normalising b, (axis s, bl + c) normalised.
static inline void ik_roll_scaled(const double *axis, const double *b, double bl, const double *p, sn_quat *out) {
    double x[3];
    ik_cross(b, p, x);
    ik_qaxis_ws(axis, bl + ik_dot(b, p), ik_dot(x, axis), 1e-150 * bl, out); /* opposite: a half turn */
}
/// ik_roll_scaled unnormalised: *out = (axis s, bl + c), returning its squared length (for a half
/// turn, (axis, 0) and 1), so that the caller can scale a product of it instead of waiting for it.
static inline double ik_roll_scaled_raw(const double *axis, const double *b, double bl, const double *p, sn_quat *out) {
    double x[3], w, s, l2;
    ik_cross(b, p, x);
    w = bl + ik_dot(b, p);
    s = ik_dot(x, axis);
    l2 = w * w + s * s;
    if (!(l2 > 1e-300 * (bl * bl))) { /* opposite: a half turn (|out| not above 1e-150 bl, or 0) */
        out->x = axis[0];
        out->y = axis[1];
        out->z = axis[2];
        out->w = 0.0;
        return 1.0;
    }
    out->x = axis[0] * s;
    out->y = axis[1] * s;
    out->z = axis[2] * s;
    out->w = w;
    return l2;
}
/// out = R(axis, twist) * q where (tc, ts) = (cos, sin) of twist / 2 and the axis is unit; q
/// itself for no twist.
static inline void ik_twist(const double *axis, double tc, double ts, const sn_quat *q, sn_quat *out) {
    sn_quat t;
    if (ts == 0.0 && tc == 1.0) {
        *out = *q;
        return;
    }
    t.x = axis[0] * ts;
    t.y = axis[1] * ts;
    t.z = axis[2] * ts;
    t.w = tc;
    ik_qmul(&t, q, out);
}

/// p = the 3x3 row-major m applied to the vector v.
static inline void ik_vector3(const double *m, const double *v, double *p) {
    double x = m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
    double y = m[3] * v[0] + m[4] * v[1] + m[5] * v[2];
    double z = m[6] * v[0] + m[7] * v[1] + m[8] * v[2];
    p[0] = x;
    p[1] = y;
    p[2] = z;
}
/// p = the linear part of `f` applied to the vector v.
static inline void ik_frame_vector(const sn_ik_frame *f, const double *v, double *p) {
    if (!f->general) {
        ik_rotate(&f->q, v, p);
        ik_scale(p, f->s, p);
    } else {
        ik_vector3(f->m, v, p);
    }
}
/// p = `f` applied to the point v.
static inline void ik_frame_point(const sn_ik_frame *f, const double *v, double *p) {
    ik_frame_vector(f, v, p);
    p[0] += f->t[0];
    p[1] += f->t[1];
    p[2] += f->t[2];
}

/// The local transform of `joint` from `pose` (rotation normalised); a fault for a non-finite
/// value or a zero rotation. Inline: the walk up the ancestors keeps it in registers.
static inline sn_ik_fault sn_ik_read_local(const sn_pose *pose, int joint, sn_ik_local *local) {
    const int st = pose->stride;
    const float *ch = pose->ch + joint;
    const float fx = ch[SN_ROW_S * st], fy = ch[(SN_ROW_S + 1) * st], fz = ch[(SN_ROW_S + 2) * st];
    const double x = ch[SN_ROW_Q * st], y = ch[(SN_ROW_Q + 1) * st], z = ch[(SN_ROW_Q + 2) * st], w = ch[(SN_ROW_Q + 3) * st];
    const double tx = ch[SN_ROW_T * st], ty = ch[(SN_ROW_T + 1) * st], tz = ch[(SN_ROW_T + 2) * st];
    double l2, k;
    /* one test for the ten values: a sum of floats in double is finite when they all are */
    if (!sn_isfinite(((x + y) + (z + w)) + (((double)fx + fy) + ((double)fz + tx)) + (ty + tz))) return SN_IK_POSE_NOT_FINITE;
    l2 = x * x + y * y + z * z + w * w; /* floats squared in double: no overflow, no underflow to 0 */
    if (!(l2 > 0.0)) return SN_IK_POSE_ZERO_ROT;
    /* a pose's rotations are unit to float rounding: one Newton step of 1 / sqrt from 1 is exact to
       (3/8) (l2 - 1)^2, below 4e-13 here; any other length takes the square root */
    k = fabs(l2 - 1.0) < 1e-6 ? 1.5 - 0.5 * l2 : 1.0 / sqrt(l2);
    local->q.x = x * k;
    local->q.y = y * k;
    local->q.z = z * k;
    local->q.w = w * k;
    local->t[0] = tx;
    local->t[1] = ty;
    local->t[2] = tz;
    local->s[0] = fx;
    local->s[1] = fy;
    local->s[2] = fz;
    local->uniform = fx == fy && fy == fz;
    return SN_IK_POSE_OK;
}
/// The translation t[3] of `joint` from `pose` (all a tip needs); a fault when it is not finite.
static inline sn_ik_fault sn_ik_read_translation(const sn_pose *pose, int joint, double *t) {
    const int st = pose->stride;
    const float *ch = pose->ch + joint;
    t[0] = ch[SN_ROW_T * st];
    t[1] = ch[(SN_ROW_T + 1) * st];
    t[2] = ch[(SN_ROW_T + 2) * st];
    return sn_isfinite(t[0] + t[1] + t[2]) ? SN_IK_POSE_OK : SN_IK_POSE_NOT_FINITE;
}
/// *out = the model frame of the parent of `joint` (the identity for a root), walking the
/// skeleton's parents bottom up. On a fault *bad is the joint at fault.
sn_ik_fault sn_ik_parent_frame(const sn_pose *pose, int joint, sn_ik_frame *out, int *bad);
/// sn_ik_frame_child where `p` is general or `l` has a non-uniform scale.
void sn_ik_frame_child_general(const sn_ik_frame *p, const sn_ik_local *l, sn_ik_frame *out);
/// *out = p * l: the model frame of a joint of local transform `l` under the model frame `p`
/// (inline for similarities: t' = t + s R(q) t_l, s' = s s_l, q' = q q_l).
static inline void sn_ik_frame_child(const sn_ik_frame *p, const sn_ik_local *l, sn_ik_frame *out) {
    double v[3];
    if (p->general || !l->uniform) {
        /* the rare path works on copies: the caller's frames, whose addresses go no further, can
           stay in registers on the common path */
        sn_ik_frame cp = *p, co;
        sn_ik_local cl = *l;
        sn_ik_frame_child_general(&cp, &cl, &co);
        *out = co;
        return;
    }
    ik_rotate(&p->q, l->t, v);
    ik_madd(p->t, p->s, v, out->t);
    out->s = p->s * l->s[0];
    out->general = 0;
    ik_qmul(&p->q, &l->q, &out->q);
}
/// sn_ik_frame_check of a general frame (its matrix).
sn_ik_fault sn_ik_frame_check_general(const sn_ik_frame *f);
/// SN_IK_POSE_OK when every entry of `f` is finite and its translation within SN_IK_MAX_COORD
/// (inline for similarities: a scale and three coordinates).
static inline sn_ik_fault sn_ik_frame_check(const sn_ik_frame *f) {
    if (f->general) {
        sn_ik_frame c = *f; /* a copy, as in sn_ik_frame_child */
        return sn_ik_frame_check_general(&c);
    }
    if (!sn_isfinite(f->s) || !(fabs(f->t[0]) <= SN_IK_MAX_COORD && fabs(f->t[1]) <= SN_IK_MAX_COORD && fabs(f->t[2]) <= SN_IK_MAX_COORD))
        return SN_IK_POSE_TOO_FAR;
    return SN_IK_POSE_OK;
}
/// The error of a pose fault at `joint` (arg 1).
sn_status sn_ik_pose_error(const sn_pose *pose, sn_ik_fault f, int joint, sn_error *err);

/// sn_ik_check_call past its one-test common case: checks each argument in turn and names the
/// first fault.
sn_status sn_ik_check_call_fault(const sn_skeleton *s, const sn_pose *pose, const sn_vec3 *target, const sn_vec3 *pole,
                                 const char *pole_name, int bounded, double weight, sn_error *err);
/// 1 when every coordinate of v is within SN_IK_MAX_COORD (so finite).
static inline int sn_ik_in_range(const sn_vec3 *v) {
    return fabs(v->x) <= SN_IK_MAX_COORD && fabs(v->y) <= SN_IK_MAX_COORD && fabs(v->z) <= SN_IK_MAX_COORD;
}
/// Checks a solve's common arguments: the pose of `s` (arg 1), `target` finite within
/// SN_IK_MAX_COORD (arg 2), `pole` (may be NULL) finite, within SN_IK_MAX_COORD when `bounded`
/// (arg 3, called `pole_name`), weight in [0, 1] (arg 4). The common case is one inline test;
/// sn_ik_check_call_fault names a fault.
SN_IK_INLINE sn_status sn_ik_check_call(const sn_skeleton *s, const sn_pose *pose, const sn_vec3 *target,
                                        const sn_vec3 *pole, const char *pole_name, int bounded, double weight,
                                        sn_error *err) {
    if (pose != NULL && pose->skeleton == s && target != NULL && sn_ik_in_range(target) && weight >= 0.0 && weight <= 1.0 &&
        (pole == NULL || (bounded ? sn_ik_in_range(pole) : sn_isfinite(pole->x + pole->y + pole->z))))
        return SN_OK;
    return sn_ik_check_call_fault(s, pose, target, pole, pole_name, bounded, weight, err);
}
/// Checks a vector of a definition: finite, and non-zero when `nonzero` (arg 1, named `what`).
sn_status sn_ik_check_vec(const sn_vec3 *v, const char *what, int nonzero, sn_error *err);

/// sn_ik_write_rotation that also gives the rotation written, in doubles (unit; `input` where
/// nothing was written), in *written when not NULL.
static inline void sn_ik_write_rotation_as(sn_pose *pose, int joint, const sn_quat *input, const sn_quat *solved, double weight,
                                            sn_quat *written) {
    const int st = pose->stride;
    float *ch = pose->ch;
    sn_quat q = *solved;
    double l2, k = 1.0;
    if (weight < 1.0) { /* on copies, as in sn_ik_frame_child */
        const sn_quat a = *input, b = *solved;
        sn_quat r;
        (void)sn_quat_slerp(&a, &b, weight, &r, NULL);
        q = r;
    }
    /* products of unit quaternions (and slerp's result) are unit to rounding: normalise only what
       drifted further */
    l2 = sn_quat_dot4(&q, &q);
    if (!(l2 > 0.0) || !sn_isfinite(l2)) { /* cannot happen for unit inputs; never write a NaN */
        if (written != NULL) *written = *input;
        return;
    }
    if (!(fabs(l2 - 1.0) < 1e-12)) k = 1.0 / sqrt(l2);
    if (sn_quat_dot4(&q, input) < 0.0) k = -k; /* keep the sign of the animation */
    ch[(SN_ROW_Q + 0) * st + joint] = (float)(q.x * k);
    ch[(SN_ROW_Q + 1) * st + joint] = (float)(q.y * k);
    ch[(SN_ROW_Q + 2) * st + joint] = (float)(q.z * k);
    ch[(SN_ROW_Q + 3) * st + joint] = (float)(q.w * k);
    if (written != NULL) {
        written->x = q.x * k;
        written->y = q.y * k;
        written->z = q.z * k;
        written->w = q.w * k;
    }
}
/// Writes the local rotation of `joint`: slerp(input, solved, weight) (weight in (0, 1]),
/// normalised, in the hemisphere of `input`, as floats; nothing else of the pose changes.
/// Inline: a few products and four stores for weight 1.
static inline void sn_ik_write_rotation(sn_pose *pose, int joint, const sn_quat *input, const sn_quat *solved, double weight) {
    sn_ik_write_rotation_as(pose, joint, input, solved, weight, NULL);
}

/// A two-bone chain in model space: read from the pose by sn_ik_two_bone_solve, or made by foot
/// placement from what its prepare read.
typedef struct sn_ik_two_bone_chain {
    double a[3], b[3], c[3];  ///< root, mid and tip positions, within SN_IK_MAX_COORD
    sn_quat parent;           ///< the root's parent's model rotation (unit)
    sn_quat root, mid;        ///< model rotations of root and mid (unit)
    sn_quat lroot, lmid;      ///< their local rotations in the pose (unit)
} sn_ik_two_bone_chain;

/// sn_ik_two_bone_solve past its checks and its reading of the pose: solves `ch` for the target
/// and pole (checked, within SN_IK_MAX_COORD) and writes the root's and mid's local rotations
/// (weight in (0, 1]); *flags (may be NULL) as the solve's; written[2] (may be NULL): the root's and
/// mid's local rotations written, in doubles (sn_ik_write_rotation_as).
void sn_ik_two_bone_run(const sn_ik_two_bone *ik, sn_pose *pose, const sn_ik_two_bone_chain *ch, const sn_vec3 *target,
                        const sn_vec3 *pole, double weight, unsigned *flags, sn_quat *written);
/// Sets the knee's hinge of `ik` to the unit `axis` (mid joint's frame) as it is: foot placement's
/// hinge of the pose, unit already.
void sn_ik_two_bone_set_unit_axis(sn_ik_two_bone *ik, const double *axis);

#endif
