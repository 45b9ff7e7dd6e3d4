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

#endif
