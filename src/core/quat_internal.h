/*
 * Private to src/core: quaternion routines on plain double[3] vectors for the hot paths of other
 * files (dynamic bones), inline, with no checks: their callers hand them unit vectors. The one
 * shortest arc of the core: sn_quat_from_to (quat.c) takes its half turn from here too. And the
 * polynomials of additive layers' d^w (pose.c).
 *
 * CONVENTIONS: as quat.h. Not part of the public API.
 */
#ifndef SN_QUAT_INTERNAL_H
#define SN_QUAT_INTERNAL_H

#include <math.h>

#include "quat.h"

/// 4-D dot product of two unit (or near-unit) quaternions: nothing to overflow, no check.
static inline double sn_quat_dot4(const sn_quat *a, const sn_quat *b) {
    return a->x * b->x + a->y * b->y + a->z * b->z + a->w * b->w;
}

/// o = a unit vector perpendicular to the unit vector u: u crossed with the basis axis least
/// aligned with it, normalised. Deterministic.
static inline void sn_perp_of_unit(const double *u, double *o) {
    double e[3] = {0, 0, 0}, w[3], l, k;
    if (fabs(u[0]) <= fabs(u[1]) && fabs(u[0]) <= fabs(u[2])) e[0] = 1;
    else if (fabs(u[1]) <= fabs(u[2])) e[1] = 1;
    else e[2] = 1;
    w[0] = u[1] * e[2] - u[2] * e[1];
    w[1] = u[2] * e[0] - u[0] * e[2];
    w[2] = u[0] * e[1] - u[1] * e[0];
    l = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    if (!(l > 0.0)) {
        o[0] = o[1] = o[2] = 0.0;
        return;
    }
    k = 1.0 / l;
    o[0] = w[0] * k;
    o[1] = w[1] * k;
    o[2] = w[2] * k;
}

/// q = the shortest-arc rotation turning the unit vector u onto the unit vector v: (u x v,
/// 1 + u . v) normalised; for opposite ones (1 + u . v < 1e-9) a half turn about
/// sn_perp_of_unit(u). The identity for non-finite input.
static inline void sn_quat_arc_unit(const double *u, const double *v, sn_quat *q) {
    double cs = u[0] * v[0] + u[1] * v[1] + u[2] * v[2], l2, k;
    if (1.0 + cs < 1e-9) {
        double e[3];
        sn_perp_of_unit(u, e);
        q->x = e[0]; q->y = e[1]; q->z = e[2]; q->w = 0.0;
        return;
    }
    q->x = u[1] * v[2] - u[2] * v[1];
    q->y = u[2] * v[0] - u[0] * v[2];
    q->z = u[0] * v[1] - u[1] * v[0];
    q->w = 1.0 + cs; /* twice the half-angle rotation, unnormalised */
    l2 = q->x * q->x + q->y * q->y + q->z * q->z + q->w * q->w;
    if (!(l2 > 0.0) || !(l2 - l2 == 0.0)) {
        q->x = q->y = q->z = 0.0;
        q->w = 1.0;
        return;
    }
    k = 1.0 / sqrt(l2);
    q->x *= k; q->y *= k; q->z *= k; q->w *= k;
}

/* The polynomials of pose.c's additive layers (quat.c's slerp used them before it took its own, in
   |a - b|^2), fitted at Chebyshev nodes and evaluated in Estrin's scheme (a few short chains
   instead of one long one): asin(s)/s for v = s^2 in [0, 1/2] (relative error
   1.1e-15), and sin(h)/h (relative, 5.3e-16) and cos(h) (absolute, 2.2e-15) for
   u = h^2 <= (pi/2)^2. */
static inline double sn_asin_over(double v) {
    double v2 = v * v, v4 = v2 * v2, v8 = v4 * v4, v16 = v8 * v8;
    double lo = ((1.0000000000000004 + 0.16666666666614838 * v) + v2 * (0.075000000102490916 + 0.044642849352186459 * v)) + v4 * ((0.030382252985482576 + 0.022364788670565624 * v) + v2 * (0.017468280192969535 + 0.012713080703905401 * v));
    double hi = ((0.021248958993309423 - 0.045046183868903009 * v) + v2 * (0.23666367322149273 - 0.69356345197717528 * v)) + v4 * ((1.5763973504116118 - 2.4964847260877141 * v) + v2 * (2.7061246676109287 - 1.7802262375340645 * v));
    return (lo + v8 * hi) + v16 * 0.56029765081109717;
}
static inline double sn_sin_over(double u) {
    double u2 = u * u, u4 = u2 * u2;
    return ((0.99999999999999989 - 0.16666666666666149 * u) + u2 * (0.008333333333286683 - 0.00019841269825730565 * u)) + u4 * ((2.7557316704752491e-06 - 2.5051887503924615e-08 * u) + u2 * (1.6048332168917e-10 - 7.3763251682534711e-13 * u));
}
static inline double sn_cos_poly(double u) {
    double u2 = u * u, u4 = u2 * u2;
    return ((0.999999999999998 - 0.49999999999989891 * u) + u2 * (0.041666666665809038 - 0.0013888888861085789 * u)) + u4 * ((2.4801582870641037e-05 - 2.7556935453773798e-07 * u) + u2 * (2.0858318915790427e-09 - 1.1007972346776493e-11 * u));
}

#endif
