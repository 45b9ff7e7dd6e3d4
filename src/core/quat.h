/*
 * sinew core: quaternions in double precision.
 *
 * CONVENTIONS: quaternions stored x, y, z, w (w scalar); right-handed; radians; inputs first,
 * outputs last; nothing here allocates. Functions that need a rotation (a non-zero quaternion)
 * return SN_EINVAL for a zero one and normalise their inputs otherwise, so callers may pass
 * quaternions that drifted from unit length.
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

/// out = a * b (apply b first, then a). Any quaternions.
void sn_quat_mul(const sn_quat *a, const sn_quat *b, sn_quat *out);
/// out = conjugate of q. Any quaternion.
void sn_quat_conj(const sn_quat *q, sn_quat *out);
/// out = q^-1 = conj(q) / |q|^2. SN_EINVAL for a zero quaternion.
sn_status sn_quat_inverse(const sn_quat *q, sn_quat *out);
/// out = q / |q|. SN_EINVAL for a zero quaternion.
sn_status sn_quat_normalize(const sn_quat *q, sn_quat *out);
/// 4-D dot product of a and b.
double sn_quat_dot(const sn_quat *a, const sn_quat *b);
/// |q|, computed without overflow for huge components.
double sn_quat_length(const sn_quat *q);
/// out = v rotated by q (q need not be unit). SN_EINVAL for a zero quaternion.
sn_status sn_quat_rotate(const sn_quat *q, const sn_vec3 *v, sn_vec3 *out);
/// Rotation of `angle` radians about `axis` (need not be unit). SN_EINVAL for a zero axis.
sn_status sn_quat_from_axis_angle(const sn_vec3 *axis, double angle, sn_quat *out);
/// Unit axis and angle in [0, pi] of the rotation q; the identity gives axis (1, 0, 0), angle 0.
/// SN_EINVAL for a zero quaternion.
sn_status sn_quat_to_axis_angle(const sn_quat *q, sn_vec3 *axis, double *angle);
/// Rotation from Tait-Bryan angles (radians about X, Y, Z) applied in `order` about fixed axes.
void sn_quat_from_euler(double x, double y, double z, sn_euler_order order, sn_quat *out);
/// Shortest-arc rotation turning the direction of u onto that of v; for antiparallel vectors a
/// half turn about an axis perpendicular to u. SN_EINVAL when either vector is zero.
sn_status sn_quat_from_to(const sn_vec3 *u, const sn_vec3 *v, sn_quat *out);
/// Rotation angle in [0, pi] between orientations a and b (q and -q are the same orientation).
/// SN_EINVAL for a zero quaternion.
sn_status sn_quat_angle(const sn_quat *a, const sn_quat *b, double *angle);
/// out = q^e = |q|^e (cos(e*t), n sin(e*t)) for q = |q| (cos t, n sin t). SN_EINVAL for zero q.
sn_status sn_quat_pow(const sn_quat *q, double e, sn_quat *out);
/// out = log q = (n * t, ln |q|) with the vector part in x, y, z. SN_EINVAL for zero q.
sn_status sn_quat_log(const sn_quat *q, sn_quat *out);
/// out = exp q for any quaternion (vector part x, y, z; scalar part w).
void sn_quat_exp(const sn_quat *q, sn_quat *out);
/// Spherical interpolation from a (t = 0) to b (t = 1) along the shortest path; exact for nearly
/// equal inputs; t outside [0, 1] extrapolates. SN_EINVAL for a zero quaternion.
sn_status sn_quat_slerp(const sn_quat *a, const sn_quat *b, double t, sn_quat *out);
/// Normalised linear interpolation along the shortest path. SN_EINVAL for a zero quaternion or
/// when the interpolated quaternion is zero.
sn_status sn_quat_nlerp(const sn_quat *a, const sn_quat *b, double t, sn_quat *out);

/// Checks the arguments of sn_quat_blend: n >= 1, every component and weight finite, weights
/// non-negative and not all zero, no zero quaternion. Names the first bad one in `err`.
sn_status sn_quat_blend_validate(const sn_quat *qs, const double *ws, size_t n, sn_error *err);
/// Weighted blend of n rotations (weights normalised internally); the result is unit length.
/// Runs sn_quat_blend_validate first; allocates nothing.
sn_status sn_quat_blend(const sn_quat *qs, const double *ws, size_t n, sn_blend_method method,
                        sn_quat *out, sn_error *err);

#endif
