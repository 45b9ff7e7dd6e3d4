/*
 * sinew core: quaternions in double precision.
 *
 * CONVENTIONS: quaternions stored x, y, z, w (w scalar); right-handed; radians; inputs first,
 * outputs last; nothing here allocates. Functions that need a rotation (a non-zero quaternion)
 * return SN_EINVAL for a zero one and normalise their inputs otherwise, so callers may pass
 * quaternions that drifted from unit length.
 *
 * FINITE RESULTS: for finite inputs (subnormal, huge, mixed magnitudes: any finite doubles) every
 * function either writes finite results or returns SN_EINVAL with a message, and refuses only
 * when the true result is not representable ("result is too large") or the input is not a
 * rotation ("zero quaternion"); err->arg is the 1-based parameter at fault. Functions returning
 * sn_status also refuse NaN and infinite inputs ("... is not finite").
 */
#ifndef SN_QUAT_H
#define SN_QUAT_H

#include "common.h"

/// A quaternion x*i + y*j + z*k + w.
typedef struct sn_quat {
    double x;  ///< i component
    double y;  ///< j component
    double z;  ///< k component
    double w;  ///< scalar component
} sn_quat;

/// A 3-vector.
typedef struct sn_vec3 {
    double x;  ///< x component
    double y;  ///< y component
    double z;  ///< z component
} sn_vec3;

/// Tait-Bryan orders for sn_quat_from_euler: the order in which the rotations about the fixed
/// (extrinsic) axes are applied; "XYZ" gives q = qz * qy * qx, the same as intrinsic Z-Y'-X''.
typedef enum sn_euler_order {
    SN_EULER_XYZ, SN_EULER_XZY, SN_EULER_YXZ, SN_EULER_YZX, SN_EULER_ZXY, SN_EULER_ZYX
} sn_euler_order;

/// Ways to blend n weighted rotations (sn_quat_blend).
typedef enum sn_blend_method {
    SN_BLEND_NLERP,    ///< hemisphere-aligned weighted sum, normalised
    SN_BLEND_KARCHER,  ///< weighted geodesic (Karcher) mean, iterated until the step is below 1e-12 rad
    SN_BLEND_MARKLEY,  ///< eigenvector of the largest eigenvalue of sum(w q q^T), Markley et al. 2007
    SN_BLEND_POWER     ///< q1^w1 * q2^w2 * ... in the given order (order dependent)
} sn_blend_method;

/// out = a * b (apply b first, then a). Any quaternions; SN_EINVAL ("result is too large", arg 1)
/// when a component of the product exceeds DBL_MAX.
sn_status sn_quat_mul(const sn_quat *a, const sn_quat *b, sn_quat *out, sn_error *err);
/// out = conjugate of q. Any quaternion.
void sn_quat_conj(const sn_quat *q, sn_quat *out);
/// out = q^-1 = conj(q) / |q|^2. SN_EINVAL for a zero quaternion, and when |q| is so small
/// (below about 1/DBL_MAX) that the inverse overflows.
sn_status sn_quat_inverse(const sn_quat *q, sn_quat *out, sn_error *err);
/// out = q / |q|, for any non-zero q (subnormal or huge components too). SN_EINVAL for zero q.
sn_status sn_quat_normalize(const sn_quat *q, sn_quat *out, sn_error *err);
/// *out = 4-D dot product of a and b. SN_EINVAL when it exceeds DBL_MAX in magnitude.
sn_status sn_quat_dot(const sn_quat *a, const sn_quat *b, double *out, sn_error *err);
/// *out = |q|, computed without overflow or underflow on the way. SN_EINVAL when |q| itself
/// exceeds DBL_MAX (components near DBL_MAX).
sn_status sn_quat_length(const sn_quat *q, double *out, sn_error *err);
/// out = v rotated by q (q need not be unit). SN_EINVAL for a zero quaternion (arg 1), and when
/// a component of the result exceeds DBL_MAX (arg 2: |v| near DBL_MAX).
sn_status sn_quat_rotate(const sn_quat *q, const sn_vec3 *v, sn_vec3 *out, sn_error *err);
/// Rotation of `angle` radians about `axis` (need not be unit, any non-zero length).
/// SN_EINVAL for a zero axis.
sn_status sn_quat_from_axis_angle(const sn_vec3 *axis, double angle, sn_quat *out, sn_error *err);
/// Unit axis and angle in [0, pi] of the rotation q; the identity gives axis (1, 0, 0), angle 0.
/// SN_EINVAL for a zero quaternion.
sn_status sn_quat_to_axis_angle(const sn_quat *q, sn_vec3 *axis, double *angle, sn_error *err);
/// Rotation from Tait-Bryan angles (radians about X, Y, Z) applied in `order` about fixed axes.
/// The angles must be finite; the result is unit length.
void sn_quat_from_euler(double x, double y, double z, sn_euler_order order, sn_quat *out);
/// Shortest-arc rotation turning the direction of u onto that of v; for antiparallel vectors a
/// half turn about an axis perpendicular to u. SN_EINVAL when either vector is zero.
sn_status sn_quat_from_to(const sn_vec3 *u, const sn_vec3 *v, sn_quat *out, sn_error *err);
/// Rotation angle in [0, pi] between orientations a and b (q and -q are the same orientation).
/// SN_EINVAL for a zero quaternion.
sn_status sn_quat_angle(const sn_quat *a, const sn_quat *b, double *angle, sn_error *err);
/// out = q^e = |q|^e (cos(e*t), n sin(e*t)) for q = |q| (cos t, n sin t), t in [0, pi]; a
/// negative real q takes n = (1, 0, 0). SN_EINVAL for zero q (arg 1), and when |q|^e exceeds
/// DBL_MAX (arg 2).
sn_status sn_quat_pow(const sn_quat *q, double e, sn_quat *out, sn_error *err);
/// out = log q = (n * t, ln |q|) with the vector part in x, y, z (t in [0, pi]; a negative real
/// q takes n = (1, 0, 0)). SN_EINVAL for zero q.
sn_status sn_quat_log(const sn_quat *q, sn_quat *out, sn_error *err);
/// out = exp q = e^w (cos |v|, v/|v| sin |v|) for q = (v, w). SN_EINVAL when e^w makes a
/// component exceed DBL_MAX (w above about 709.78).
sn_status sn_quat_exp(const sn_quat *q, sn_quat *out, sn_error *err);
/// Spherical interpolation from a (t = 0) to b (t = 1) along the shortest path, within 3e-14 rad of
/// the exact slerp (polynomials, no libm call, for unit inputs and t in [-1, 2]); exact for nearly
/// equal inputs; any finite t outside [0, 1] extrapolates. SN_EINVAL for a zero quaternion.
sn_status sn_quat_slerp(const sn_quat *a, const sn_quat *b, double t, sn_quat *out, sn_error *err);
/// Normalised linear interpolation along the shortest path; any finite t. SN_EINVAL for a zero
/// quaternion (the interpolated quaternion of two unit ones is never zero).
sn_status sn_quat_nlerp(const sn_quat *a, const sn_quat *b, double t, sn_quat *out, sn_error *err);

/// Checks the arguments of sn_quat_blend: n >= 1, every component and weight finite, weights
/// non-negative and not all zero, no zero quaternion. Names the first bad one in `err`.
sn_status sn_quat_blend_validate(const sn_quat *qs, const double *ws, size_t n, sn_error *err);
/// Weighted blend of n rotations (weights normalised internally); the result is unit length.
/// Runs sn_quat_blend_validate first; allocates nothing.
sn_status sn_quat_blend(const sn_quat *qs, const double *ws, size_t n, sn_blend_method method,
                        sn_quat *out, sn_error *err);

#endif
