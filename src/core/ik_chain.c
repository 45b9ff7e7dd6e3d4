/* The chain solver (see ik.h): FABRIK or CCD over a chain of joints, with hinge, cone and twist
   limits applied at every step, on the model frames read once from the pose.

   Determinism: the solve uses + - * / and sqrt only (all correctly rounded in IEEE double), in a
   fixed order, and the limits' sines and cosines are computed at init by a polynomial of + and *
   (ik_chain_def.c), not by the C library's sin and cos, which differ between libraries. A
   compiler may still fuse a * b + c into one fused multiply-add, rounded once instead of twice,
   on targets that have one (arm64, x86-64 built with -mfma): the pragmas at the top of
   ik_chain_internal.h forbid it in this file (clang honours it; gcc ignores it but does not fuse
   in its ISO modes, -std=c99 as the Makefile builds). */
#include "ik_chain_internal.h"

#include <string.h>

/* ---- limits --------------------------------------------------------------------------------- */

/* Below these a rotation counts as within its limit and is left as it is: a float pose's rotation
   on a hinge is off it by float rounding (1e-7), which a limit need not undo. */
#define IK_SWING_SLACK 1e-8 /* sine of half the swing off the hinge */
#define IK_ANGLE_SLACK 1e-9 /* sine of half an angle past a bound */

/* The twist (s, c) = (sin, cos) of half an angle in [-pi, pi] (c >= 0), clamped to the bounds
   of `l`: where it is outside, the nearer bound (the larger |cos| of half the difference). 1 when
   it changed. */
static int clamp_angle(const ik_link *l, double *s, double *c) {
    double dlo, dhi;
    if (*s >= l->lo_s - IK_ANGLE_SLACK && *s <= l->hi_s + IK_ANGLE_SLACK) return 0;
    dlo = fabs(*s * l->lo_s + *c * l->lo_c);
    dhi = fabs(*s * l->hi_s + *c * l->hi_c);
    if (dlo >= dhi) {
        *s = l->lo_s;
        *c = l->lo_c;
    } else {
        *s = l->hi_s;
        *c = l->hi_c;
    }
    return 1;
}

/* Brings the local rotation *q of link `l` within its limit; 1 when it changed (*q untouched
   otherwise). d = rest^-1 q, split as swing * twist about the axis. */
static int apply_limit(const ik_link *l, sn_quat *q) {
    sn_quat d, sw, tw, out;
    double p, tl, ts, tc, sv;
    int changed = 0;
    if (l->kind == 0) return 0;
    ik_qconj_mul(&l->rest, q, &d);
    if (d.w < 0.0) {
        d.x = -d.x;
        d.y = -d.y;
        d.z = -d.z;
        d.w = -d.w;
    }
    /* the twist: d's vector part along the axis, with d's w, normalised (the identity where d is a
       half turn about an axis across it) */
    p = d.x * l->axis[0] + d.y * l->axis[1] + d.z * l->axis[2];
    tl = sqrt(p * p + d.w * d.w);
    if (tl > 1e-12) {
        ts = p / tl;
        tc = d.w / tl;
    } else {
        ts = 0.0;
        tc = 1.0;
    }
    /* the swing: d twist^-1 */
    tw.x = l->axis[0] * ts;
    tw.y = l->axis[1] * ts;
    tw.z = l->axis[2] * ts;
    tw.w = tc;
    {
        const sn_quat ti = {-tw.x, -tw.y, -tw.z, tw.w};
        ik_qmul(&d, &ti, &sw);
    }
    /* sw.w = (d.w^2 + p^2) / tl >= 0: the swing's angle is 2 acos(sw.w), in [0, pi] */
    sv = sqrt(sw.x * sw.x + sw.y * sw.y + sw.z * sw.z);
    if (l->kind == SN_IK_HINGE) {
        changed = sv > IK_SWING_SLACK;
        sw.x = sw.y = sw.z = 0.0;
        sw.w = 1.0;
        changed |= clamp_angle(l, &ts, &tc);
    } else {
        if ((l->kind & SN_IK_CONE) && sw.w < l->cone_c - IK_ANGLE_SLACK) {
            if (sv > 0.0) {
                const double k = l->cone_s / sv;
                sw.x *= k;
                sw.y *= k;
                sw.z *= k;
            }
            sw.w = l->cone_c;
            changed = 1;
        }
        if (l->kind & SN_IK_TWIST) changed |= clamp_angle(l, &ts, &tc);
    }
    if (!changed) return 0;
    tw.x = l->axis[0] * ts;
    tw.y = l->axis[1] * ts;
    tw.z = l->axis[2] * ts;
    tw.w = tc;
    ik_qmul(&sw, &tw, &d);
    ik_qmul(&l->rest, &d, &out);
    *q = out;
    return 1;
}

/* ---- the chain in model space ------------------------------------------------------------- */

/* The model rotation of the parent of link i. */
static const sn_quat *parent_model(const sn_ik_chain *ik, int i) { return i == 0 ? &ik->parent : &ik->link[i - 1].model; }

/* Model rotations and positions of links from..count-1 from their local rotations q (link from's
   position is where it is: the root's, or placed by its parent's bone). */
static void forward(sn_ik_chain *ik, int from) {
    ik_link *L = ik->link;
    int i;
    for (i = from; i < ik->count; i++) {
        ik_qmul(parent_model(ik, i), &L[i].q, &L[i].model);
        if (i + 1 < ik->count) {
            double v[3];
            ik_rotate(&L[i].model, L[i + 1].t, v);
            ik_madd(L[i].p, L[i].s, v, L[i + 1].p);
        }
    }
}

/* Turns link i by the model-space shortest arc taking the direction `from` onto `to` (neither
   needs to be unit), then applies its limit; updates its model rotation only. A hinge turns about
   its axis only: both directions projected across the axis first (its best turn, where the
   shortest arc's part about the axis would fall short). Returns 1 when its limit changed the
   turn. Directions shorter than `tiny` leave the link as it is. */
static int turn_link(sn_ik_chain *ik, int i, const double *from, const double *to, double tiny) {
    ik_link *l = &ik->link[i];
    double a[3], b[3];
    sn_quat arc, m, q;
    int limited;
    if (l->kind == SN_IK_HINGE) {
        double n[3], fa[3], ta[3];
        ik_rotate(&l->model, l->axis, n);
        ik_madd(from, -ik_dot(from, n), n, fa);
        ik_madd(to, -ik_dot(to, n), n, ta);
        if (ik_unit(fa, tiny, a) == 0.0 || ik_unit(ta, tiny, b) == 0.0) return 0;
        ik_roll(n, a, b, &arc);
    } else {
        /* the shortest arc (from x to, |from| |to| + from . to) normalised, |.|^2 = 2 |from| |to|
           (|from| |to| + from . to): the directions taken as they are, one square root and one
           division after their lengths (sn_quat_arc_unit of the unit ones, to rounding) */
        const double lf = ik_len(from), lt = ik_len(to), ft = lf * lt, w = ft + ik_dot(from, to);
        if (!(lf > tiny) || !(lt > tiny)) return 0;
        if (w < 1e-9 * ft) { /* opposite: sn_quat_arc_unit's half turn */
            ik_scale(from, 1.0 / lf, a);
            ik_scale(to, 1.0 / lt, b);
            sn_quat_arc_unit(a, b, &arc);
        } else {
            const double k = 1.0 / sqrt(2.0 * ft * w);
            ik_cross(from, to, a);
            arc.x = a[0] * k;
            arc.y = a[1] * k;
            arc.z = a[2] * k;
            arc.w = w * k;
        }
    }
    ik_qmul(&arc, &l->model, &m);
    ik_qconj_mul(parent_model(ik, i), &m, &q);
    if (l->kind != 0) { /* on a copy: a free link's q, whose address goes no further, stays in registers */
        sn_quat c = q;
        limited = apply_limit(l, &c);
        q = c;
    } else {
        limited = 0;
    }
    {
        /* renormalise: products of unit quaternions drift by rounding over many iterations */
        double l2 = sn_quat_dot4(&q, &q), k = 1.5 - 0.5 * l2; /* one Newton step of 1 / sqrt near 1 */
        q.x *= k;
        q.y *= k;
        q.z *= k;
        q.w *= k;
    }
    l->q = q;
    ik_qmul(parent_model(ik, i), &q, &l->model);
    return limited;
}

static double tip_distance(const sn_ik_chain *ik, const double *target) {
    double d[3];
    ik_sub(target, ik->link[ik->count - 1].p, d);
    return ik_len(d);
}

/* FABRIK's backward pass: each joint's position f from the target down to the root, at its bone's
   length from the next one's (along the bone's present direction where that is undefined). The
   position just placed is carried in locals to the next joint, not read back from the link: a
   store and a load less on the pass's chain of dependent square roots and divisions. */
static void fabrik_backward(sn_ik_chain *ik, const double *target, double tiny) {
    ik_link *L = ik->link;
    const int n = ik->count;
    double fx = target[0], fy = target[1], fz = target[2]; /* f of joint i + 1 */
    int i;
    memcpy(L[n - 1].f, target, sizeof L[n - 1].f);
    for (i = n - 2; i >= 0; i--) {
        const double vx = L[i].p[0] - fx, vy = L[i].p[1] - fy, vz = L[i].p[2] - fz;
        const double l = sqrt(vx * vx + vy * vy + vz * vz);
        if (l > tiny) { /* v scaled to the bone's length: one division after the square root */
            const double k = L[i].len / l;
            fx = fx + k * vx;
            fy = fy + k * vy;
            fz = fz + k * vz;
        } else { /* on the next one: keep the bone's direction */
            double v[3], u[3];
            ik_sub(L[i].p, L[i + 1].p, v);
            if (ik_unit(v, tiny, u) == 0.0) u[0] = u[1] = u[2] = 0.0;
            fx = fx + L[i].len * u[0];
            fy = fy + L[i].len * u[1];
            fz = fz + L[i].len * u[2];
        }
        L[i].f[0] = fx;
        L[i].f[1] = fy;
        L[i].f[2] = fz;
    }
}

/* One FABRIK iteration: the backward pass on positions from the target, then the forward pass
   turning each joint onto its new bone direction, limits applied on the way. */
static int fabrik_step(sn_ik_chain *ik, const double *target, double tiny) {
    ik_link *L = ik->link;
    const int n = ik->count;
    int i, limited = 0;
    fabrik_backward(ik, target, tiny);
    for (i = 0; i < n - 1; i++) {
        double bone[3], want[3], v[3];
        if (i > 0) ik_qmul(parent_model(ik, i), &L[i].q, &L[i].model); /* carried by its parent */
        if (L[i].len > tiny) {
            /* the bone as placed now by the model rotation (the next position is stale) */
            ik_rotate(&L[i].model, L[i + 1].t, bone);
            ik_scale(bone, L[i].s, bone);
            ik_sub(L[i + 1].f, L[i].p, want);
            limited |= turn_link(ik, i, bone, want, tiny);
        }
        ik_rotate(&L[i].model, L[i + 1].t, v);
        ik_madd(L[i].p, L[i].s, v, L[i + 1].p);
    }
    ik_qmul(parent_model(ik, n - 1), &L[n - 1].q, &L[n - 1].model);
    return limited;
}

/* One FABRIK iteration on positions only, for a chain without limits: the backward pass from the
   target, the forward pass from the root, each bone kept at its length along the direction the
   pass gives it (its previous one where that is undefined). The rotations follow once, at the end
   (positions_to_rotations). */
static void fabrik_positions(sn_ik_chain *ik, const double *target, double tiny) {
    ik_link *L = ik->link;
    const int n = ik->count;
    double px = L[0].p[0], py = L[0].p[1], pz = L[0].p[2]; /* p of joint i, carried as above */
    int i;
    fabrik_backward(ik, target, tiny);
    for (i = 0; i + 1 < n; i++) {
        const double vx = L[i + 1].f[0] - px, vy = L[i + 1].f[1] - py, vz = L[i + 1].f[2] - pz;
        const double l = sqrt(vx * vx + vy * vy + vz * vz);
        if (l > tiny) { /* as in the backward pass */
            const double k = L[i].len / l;
            px = px + k * vx;
            py = py + k * vy;
            pz = pz + k * vz;
        } else {
            double v[3], u[3];
            ik_sub(L[i + 1].p, L[i].p, v);
            if (ik_unit(v, tiny, u) == 0.0) u[0] = u[1] = u[2] = 0.0;
            px = px + L[i].len * u[0];
            py = py + L[i].len * u[1];
            pz = pz + L[i].len * u[2];
        }
        L[i + 1].p[0] = px;
        L[i + 1].p[1] = py;
        L[i + 1].p[2] = pz;
    }
}

/* The local rotations that place the bones along the positions (chains without limits): from the
   root down, each joint (carried by its parent's new rotation) turns by the shortest arc from its
   bone to the bone's new direction, so its twist about the bone stays the input's. The positions
   become those the rotations give (the same to rounding). The model rotation is carried down in
   locals as arc x model, each local rotation found from it beside the next joint's work and
   renormalised (as turn_link does), and the bone's length is the one read (|bone| to rounding):
   the chain of dependent work is a product, a rotation and one square root and division a joint. */
static void positions_to_rotations(sn_ik_chain *ik, double tiny) {
    ik_link *L = ik->link;
    const int n = ik->count;
    sn_quat pm = ik->parent, m; /* the model rotations of joint i's parent and of joint i */
    double px = L[0].p[0], py = L[0].p[1], pz = L[0].p[2]; /* p of joint i, carried */
    int i;
    for (i = 0; i + 1 < n; i++) {
        double v[3];
        ik_qmul(&pm, &L[i].q, &m);
        if (L[i].len > tiny) {
            double bone[3], want[3], lt, ft, w, k;
            ik_rotate(&m, L[i + 1].t, bone);
            ik_scale(bone, L[i].s, bone);
            want[0] = L[i + 1].p[0] - px;
            want[1] = L[i + 1].p[1] - py;
            want[2] = L[i + 1].p[2] - pz;
            lt = ik_len(want);
            ft = L[i].len * lt;
            w = ft + ik_dot(bone, want);
            if (lt > tiny) {
                sn_quat arc, t, q;
                if (w < 1e-9 * ft) { /* opposite: sn_quat_arc_unit's half turn */
                    double a[3], b[3];
                    ik_scale(bone, 1.0 / ik_len(bone), a);
                    ik_scale(want, 1.0 / lt, b);
                    sn_quat_arc_unit(a, b, &arc);
                    k = 1.0;
                } else { /* (bone x want, |bone| |want| + bone . want), |.|^2 = 2 ft w */
                    double c[3];
                    ik_cross(bone, want, c);
                    arc.x = c[0];
                    arc.y = c[1];
                    arc.z = c[2];
                    arc.w = w;
                    k = 1.0 / sqrt(2.0 * ft * w); /* beside the product */
                }
                ik_qmul(&arc, &m, &t);
                m.x = t.x * k;
                m.y = t.y * k;
                m.z = t.z * k;
                m.w = t.w * k;
                ik_qconj_mul(&pm, &m, &q);
                k = 1.5 - 0.5 * sn_quat_dot4(&q, &q); /* one Newton step of 1 / sqrt near 1 */
                L[i].q.x = q.x * k;
                L[i].q.y = q.y * k;
                L[i].q.z = q.z * k;
                L[i].q.w = q.w * k;
            }
        }
        L[i].model = m;
        ik_rotate(&m, L[i + 1].t, v);
        px = px + L[i].s * v[0];
        py = py + L[i].s * v[1];
        pz = pz + L[i].s * v[2];
        L[i + 1].p[0] = px;
        L[i + 1].p[1] = py;
        L[i + 1].p[2] = pz;
        pm = m;
    }
    ik_qmul(&pm, &L[n - 1].q, &L[n - 1].model);
}

/* One CCD iteration on positions only, for a chain without limits: from the tip's parent to the
   root, the joints below each turn about it by the shortest arc taking the tip's direction onto
   the target's. The rotations follow once, at the end (positions_to_rotations). */
static void ccd_positions(sn_ik_chain *ik, const double *target, double tiny) {
    ik_link *L = ik->link;
    const int n = ik->count;
    int i, k;
    for (i = n - 2; i >= 0; i--) {
        double e[3], d[3], a[3], b[3];
        sn_quat arc;
        ik_sub(L[n - 1].p, L[i].p, e);
        ik_sub(target, L[i].p, d);
        if (ik_unit(e, tiny, a) == 0.0 || ik_unit(d, tiny, b) == 0.0) continue;
        sn_quat_arc_unit(a, b, &arc);
        for (k = i + 1; k < n; k++) {
            double v[3];
            ik_sub(L[k].p, L[i].p, v);
            ik_rotate(&arc, v, v);
            ik_madd(L[i].p, 1.0, v, L[k].p);
        }
    }
}

/* One CCD iteration: from the tip's parent to the root, each joint turns the tip toward the
   target, limits applied, the chain below it placed again. */
static int ccd_step(sn_ik_chain *ik, const double *target, double tiny) {
    ik_link *L = ik->link;
    const int n = ik->count;
    int i, limited = 0;
    for (i = n - 2; i >= 0; i--) {
        double e[3], d[3];
        ik_sub(L[n - 1].p, L[i].p, e);
        ik_sub(target, L[i].p, d);
        limited |= turn_link(ik, i, e, d, tiny);
        forward(ik, i);
    }
    return limited;
}

/* ---- damped least squares ---------------------------------------------------------------- */

/* Damped steps that gain nothing this many times in a row end the solve: the tip is held by the
   limits, or as near as rounding lets it. */
#define IK_DLS_MISSES 3
/* A tip within this fraction of the chain's reach ends the damped steps whatever the tolerance:
   rounding moves the positions about as much, and the pose's floats a hundred thousand times more. */
#define IK_DLS_FLOOR 1e-12
/* The first step's damping lambda2, over the reach squared (J J^T is about the reach squared
   times the joint count). */
#define IK_DLS_DAMPING 1e-2

/* Keeps the chain's state as the best so far (keep 1), or goes back to it (keep 0); the positions
   alone for steps on positions (`positions`: the rotations wait for the end). */
static void keep_best(sn_ik_chain *ik, int keep, int positions) {
    ik_link *L = ik->link;
    int i;
    for (i = 0; i < ik->count; i++) {
        if (positions) {
            if (keep) memcpy(L[i].best_p, L[i].p, sizeof L[i].p);
            else memcpy(L[i].p, L[i].best_p, sizeof L[i].p);
        } else if (keep) {
            L[i].best = L[i].q;
            L[i].best_model = L[i].model;
            memcpy(L[i].best_p, L[i].p, sizeof L[i].p);
        } else {
            L[i].q = L[i].best;
            L[i].model = L[i].best_model;
            memcpy(L[i].p, L[i].best_p, sizeof L[i].p);
        }
    }
}

/* the tip's move by the joints not held, summed into the symmetric a (xx xy xz yy yz zz) */
static void dls_normal(sn_ik_chain *ik, double lambda2, double *a) {
    ik_link *L = ik->link;
    const int n = ik->count;
    int i;
    a[0] = a[3] = a[5] = lambda2;
    a[1] = a[2] = a[4] = 0.0;
    for (i = 0; i + 1 < n; i++) {
        double r[3];
        if (L[i].held) continue;
        ik_sub(L[n - 1].p, L[i].p, r);
        if (L[i].kind == SN_IK_HINGE) {
            double ax[3], *c = L[i].c;
            ik_rotate(&L[i].model, L[i].axis, ax);
            ik_cross(ax, r, c);
            a[0] += c[0] * c[0];
            a[1] += c[0] * c[1];
            a[2] += c[0] * c[2];
            a[3] += c[1] * c[1];
            a[4] += c[1] * c[2];
            a[5] += c[2] * c[2];
        } else { /* over the axes x, y, z: the sum of (e_k x r)(e_k x r)^T = |r|^2 I - r r^T */
            const double rr = ik_dot(r, r);
            a[0] += rr - r[0] * r[0];
            a[1] -= r[0] * r[1];
            a[2] -= r[0] * r[2];
            a[3] += rr - r[1] * r[1];
            a[4] -= r[1] * r[2];
            a[5] += rr - r[2] * r[2];
        }
    }
}

/* y = a^-1 e for the symmetric positive definite a, by its adjugate; 0 when singular */
static int solve3(const double *a, const double *e, double *y) {
    const double b00 = a[3] * a[5] - a[4] * a[4], b01 = a[2] * a[4] - a[1] * a[5], b02 = a[1] * a[4] - a[2] * a[3];
    const double b11 = a[0] * a[5] - a[2] * a[2], b12 = a[1] * a[2] - a[0] * a[4], b22 = a[0] * a[3] - a[1] * a[1];
    double det = a[0] * b00 + a[1] * b01 + a[2] * b02;
    if (!(det > 0.0)) return 0;
    det = 1.0 / det;
    y[0] = (b00 * e[0] + b01 * e[1] + b02 * e[2]) * det;
    y[1] = (b01 * e[0] + b11 * e[1] + b12 * e[2]) * det;
    y[2] = (b02 * e[0] + b12 * e[1] + b22 * e[2]) * det;
    return 1;
}

/* the local rotation of link i turned by its share J_i^T y of the step, normalised (unlimited) */
static void dls_turn(const sn_ik_chain *ik, int i, const double *y, sn_quat *q) {
    const ik_link *l = &ik->link[i];
    sn_quat d;
    double k;
    if (l->kind == SN_IK_HINGE) { /* q R(axis, th), th = c . y: about the hinge, in its own frame */
        const double h = 0.5 * ik_dot(l->c, y);
        d.x = l->axis[0] * h;
        d.y = l->axis[1] * h;
        d.z = l->axis[2] * h;
        d.w = 1.0;
        ik_qmul(&l->q, &d, q);
    } else { /* w = r x y in model space, in the parent's frame: P^-1 R(w) P q */
        const sn_quat *P = parent_model(ik, i);
        const sn_quat Pc = {-P->x, -P->y, -P->z, P->w};
        double r[3], w[3];
        ik_sub(ik->link[ik->count - 1].p, l->p, r);
        ik_cross(r, y, w);
        ik_rotate(&Pc, w, w);
        d.x = 0.5 * w[0]; /* (w / 2, 1) normalised: a turn of 2 atan(|w| / 2), |w| to first order */
        d.y = 0.5 * w[1];
        d.z = 0.5 * w[2];
        d.w = 1.0;
        ik_qmul(&d, &l->q, q);
    }
    k = 1.0 / sqrt(sn_quat_dot4(q, q));
    q->x *= k;
    q->y *= k;
    q->z *= k;
    q->w *= k;
}

/* e -= the tip's move by link i turned from its rotation q to `to` (to first order) */
static void dls_moved(const sn_ik_chain *ik, int i, const sn_quat *to, double *e) {
    const ik_link *l = &ik->link[i];
    const sn_quat *P = parent_model(ik, i);
    const sn_quat qc = {-l->q.x, -l->q.y, -l->q.z, l->q.w}, Pc = {-P->x, -P->y, -P->z, P->w};
    sn_quat d, m;
    double k, w[3], r[3], v[3];
    ik_qmul(to, &qc, &d); /* to = d q, d in the parent's frame */
    ik_qmul(P, &d, &m);
    ik_qmul(&m, &Pc, &d); /* in model space */
    k = d.w < 0.0 ? -2.0 : 2.0;
    w[0] = k * d.x;
    w[1] = k * d.y;
    w[2] = k * d.z;
    ik_sub(ik->link[ik->count - 1].p, l->p, r);
    ik_cross(w, r, v);
    ik_sub(e, v, e);
}

/* The damped least-squares step (a Levenberg-Marquardt step on the tip's position): every joint
   turns at once by a small rotation, together chosen to move the tip onto the target to first
   order. A joint's turn w_i (model space) moves the tip by w_i x r_i (r_i from the joint to the
   tip); a hinge turns about its axis n_i only, its angle moving the tip along n_i x r_i. With J
   those columns and e = target - tip, the turns are J^T y where (J J^T + lambda2 I) y = e: one
   3x3 solve whatever the chain's length. Each turn is then brought within its joint's limit; a
   joint whose limit changed its turn keeps the changed turn, its own move of the tip comes out of
   e, and the others solve once more without it. The positions follow. Returns 1 when a limit
   changed a turn. */
static int dls_step(sn_ik_chain *ik, const double *target, double lambda2) {
    ik_link *L = ik->link;
    const int n = ik->count;
    double e[3], a[6], y[3];
    int i, round, limited = 0, again = 0;
    ik_sub(target, L[n - 1].p, e);
    for (i = 0; i + 1 < n; i++) L[i].held = 0;
    for (round = 0; round < 2; round++) {
        dls_normal(ik, lambda2, a);
        if (!solve3(a, e, y)) {
            if (round == 0) return 0; /* lambda2 > 0 keeps a positive definite: not reached */
            break;
        }
        again = 0;
        for (i = 0; i + 1 < n; i++) {
            sn_quat q;
            if (L[i].held) continue;
            dls_turn(ik, i, y, &q);
            if (apply_limit(&L[i], &q)) {
                limited = 1;
                if (round == 0) {
                    L[i].held = 1;
                    dls_moved(ik, i, &q, e);
                    again = 1;
                }
            }
            L[i].next = q;
        }
        if (!again) break;
    }
    for (i = 0; i + 1 < n; i++) L[i].q = L[i].next;
    forward(ik, 0);
    return limited;
}

/* The damped least-squares step of a chain without limits, on its positions: each bone turns
   on its own (its joint's turn carries the bones below along, which the step leaves to the
   others), the tip moving by w_k x v_k for a turn w_k of the bone v_k, so A = sum |v_k|^2 I -
   v_k v_k^T + lambda2 I, w_k = v_k x y, and the bone becomes v_k + w_k x v_k set back to its
   length. The rotations follow once, at the end (positions_to_rotations). */
static void dls_positions(sn_ik_chain *ik, const double *target, double lambda2, double tiny) {
    ik_link *L = ik->link;
    const int n = ik->count;
    double e[3], a[6], y[3], was[3];
    int k;
    ik_sub(target, L[n - 1].p, e);
    a[0] = a[3] = a[5] = lambda2;
    a[1] = a[2] = a[4] = 0.0;
    for (k = 0; k + 1 < n; k++) {
        double v[3], vv;
        ik_sub(L[k + 1].p, L[k].p, v);
        vv = ik_dot(v, v);
        a[0] += vv - v[0] * v[0];
        a[1] -= v[0] * v[1];
        a[2] -= v[0] * v[2];
        a[3] += vv - v[1] * v[1];
        a[4] -= v[1] * v[2];
        a[5] += vv - v[2] * v[2];
    }
    if (!solve3(a, e, y)) return;
    memcpy(was, L[0].p, sizeof was);
    for (k = 0; k + 1 < n; k++) {
        double v[3], w[3];
        ik_sub(L[k + 1].p, was, v);
        memcpy(was, L[k + 1].p, sizeof was);
        ik_scale(y, ik_dot(v, v), w); /* (v x y) x v = |v|^2 y - (v . y) v */
        ik_madd(w, -ik_dot(v, y), v, w);
        ik_madd(v, 1.0, w, w);
        {
            const double l = ik_len(w);
            if (L[k].len > tiny && l > tiny) ik_madd(L[k].p, L[k].len / l, w, L[k + 1].p); /* set to its length */
            else ik_madd(L[k].p, 1.0, v, L[k + 1].p);
        }
    }
}

/* Up to `steps` damped least-squares steps from a tip `d` from the target, on positions (free
   chains) or rotations (limited ones), each kept only when it brings the tip nearer: the damping
   falls then, and rises otherwise (Levenberg-Marquardt); they stop within the tolerance, at
   IK_DLS_FLOOR of the reach, or after IK_DLS_MISSES steps in a row that gain nothing. Returns the
   distance left; *flag: 1 when a step ran (positions) or a limit changed a turn (rotations). */
static double dls_finish(sn_ik_chain *ik, const double *target, double reach, double d, int steps, int positions,
                         int *flag) {
    const double stop = fmax(ik->tolerance, IK_DLS_FLOOR * reach), lambda0 = IK_DLS_DAMPING * reach * reach;
    const double tiny = SN_IK_MIN_RATIO * reach;
    double best = d, lambda2 = lambda0;
    int it, missed = 0;
    keep_best(ik, 1, positions);
    for (it = 0; it < steps && best > stop && missed < IK_DLS_MISSES; it++) {
        if (positions) {
            dls_positions(ik, target, lambda2, tiny);
            *flag = 1;
        } else {
            *flag |= dls_step(ik, target, lambda2);
        }
        d = tip_distance(ik, target);
        if (d < best) {
            best = d;
            keep_best(ik, 1, positions);
            lambda2 = fmax(0.25 * lambda2, IK_DLS_FLOOR * lambda0); /* never 0: A stays invertible */
            missed = 0;
        } else {
            keep_best(ik, 0, positions);
            lambda2 *= 8.0;
            missed++;
        }
    }
    return best;
}

/* ---- the solve ------------------------------------------------------------------------------ */

/* Reads the chain's model frames and local transforms from the pose into the scratch. */
static sn_status read_chain(sn_ik_chain *ik, const sn_pose *pose, sn_error *err) {
    ik_link *L = ik->link;
    sn_ik_frame pf;
    int i, bad;
    sn_ik_fault f = sn_ik_parent_frame(pose, L[0].joint, &pf, &bad);
    if (f != SN_IK_POSE_OK) return sn_ik_pose_error(pose, f, bad, err);
    ik->parent = pf.q;
    memcpy(ik->parent_t, pf.t, sizeof pf.t);
    /* under a non-uniform scale the chain counts the length of the frame's first column */
    ik->parent_s = pf.general ? sqrt(pf.m[0] * pf.m[0] + pf.m[3] * pf.m[3] + pf.m[6] * pf.m[6]) : pf.s;
    for (i = 0; i < ik->count; i++) {
        sn_ik_local lo;
        if ((f = sn_ik_read_local(pose, L[i].joint, &lo)) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, f, L[i].joint, err);
        L[i].in = L[i].q = lo.q;
        memcpy(L[i].t, lo.t, sizeof lo.t);
        L[i].ls = lo.s[0];
    }
    /* positions and scales, checked against SN_IK_MAX_COORD */
    {
        double v[3];
        ik_rotate(&ik->parent, L[0].t, v);
        ik_madd(ik->parent_t, ik->parent_s, v, L[0].p);
    }
    L[0].s = ik->parent_s * L[0].ls;
    for (i = 1; i < ik->count; i++) L[i].s = L[i - 1].s * L[i].ls;
    forward(ik, 0);
    for (i = 0; i < ik->count; i++) {
        const double *p = L[i].p;
        if (!(fabs(p[0]) <= SN_IK_MAX_COORD && fabs(p[1]) <= SN_IK_MAX_COORD && fabs(p[2]) <= SN_IK_MAX_COORD) ||
            !sn_isfinite(L[i].s))
            return sn_ik_pose_error(pose, SN_IK_POSE_TOO_FAR, L[i].joint, err);
    }
    for (i = 0; i + 1 < ik->count; i++) L[i].len = fabs(L[i].s) * ik_len(L[i + 1].t);
    return SN_OK;
}

sn_status sn_ik_chain_solve(sn_ik_chain *ik, sn_pose *pose, const sn_vec3 *target, double weight, double *left,
                            unsigned *flags, sn_error *err) {
    ik_link *L = ik->link;
    const int n = ik->count;
    double tgt[3], reach = 0.0, tiny, d_base, d_end, v[3];
    unsigned fl = 0;
    int i, it, half, limited = 0, solved = 0, wrote = 0;
    sn_status st;
    if (flags != NULL) *flags = 0;
    if ((st = sn_ik_check_call(ik->skeleton, pose, target, NULL, "", 1, weight, err)) != SN_OK) return st;
    if ((st = read_chain(ik, pose, err)) != SN_OK) return st;
    tgt[0] = target->x;
    tgt[1] = target->y;
    tgt[2] = target->z;
    for (i = 0; i + 1 < n; i++) reach += L[i].len;
    if (!(reach >= SN_IK_MIN_LENGTH)) {
        if (left != NULL) *left = tip_distance(ik, tgt);
        if (flags != NULL) *flags = SN_IK_DEGENERATE;
        return SN_OK;
    }
    tiny = SN_IK_MIN_RATIO * reach;
    ik_sub(tgt, L[0].p, v);
    if (ik_len(v) <= tiny) fl |= SN_IK_TARGET_AT_ROOT;
    if (ik_len(v) > reach * (1.0 + 1e-12)) fl |= SN_IK_UNREACHABLE;
    if (weight == 0.0) {
        if (left != NULL) *left = tip_distance(ik, tgt);
        if (flags != NULL) *flags = fl;
        return SN_OK;
    }

    /* the input within its limits: where the iterations start, and what they must beat */
    for (i = 0; i + 1 < n; i++) limited |= apply_limit(&L[i], &L[i].q);
    if (limited) forward(ik, 0);
    for (i = 0; i + 1 < n; i++) L[i].base = L[i].q;
    d_base = d_end = tip_distance(ik, tgt);

    /* the method's iterations: the first half of the budget; damped least-squares steps the rest */
    half = (ik->iterations + 1) / 2;
    if (!ik->has_limits) {
        /* free chains: positions only, the rotations once at the end */
        for (it = 0; it < half && d_end > ik->tolerance; it++) {
            if (ik->method == SN_IK_FABRIK) fabrik_positions(ik, tgt, tiny);
            else ccd_positions(ik, tgt, tiny);
            d_end = tip_distance(ik, tgt);
            solved = 1;
        }
        if (d_end > ik->tolerance && half < ik->iterations)
            d_end = dls_finish(ik, tgt, reach, d_end, ik->iterations - half, 1, &solved);
        if (solved) {
            positions_to_rotations(ik, tiny);
            d_end = tip_distance(ik, tgt);
        }
    } else {
        for (it = 0; it < half && d_end > ik->tolerance; it++) {
            const double d_was = d_end;
            if (ik->method == SN_IK_CCD) {
                limited |= ccd_step(ik, tgt, tiny);
            } else {
                limited |= fabrik_step(ik, tgt, tiny);
                /* limits can hold FABRIK at a point its passes keep returning to, away from the
                   target: an iteration that gained less than a tenth stalls, and a CCD sweep follows */
                if ((d_end = tip_distance(ik, tgt)) > 0.9 * d_was)
                    limited |= ccd_step(ik, tgt, tiny);
            }
            d_end = tip_distance(ik, tgt);
            solved = 1;
        }
        if (d_end > ik->tolerance && half < ik->iterations) {
            int held = 0;
            d_end = dls_finish(ik, tgt, reach, d_end, ik->iterations - half, 0, &held);
            limited |= held;
            solved = 1;
        }
    }
    if (d_end > d_base) { /* never worse than the (limited) input */
        for (i = 0; i + 1 < n; i++) L[i].q = L[i].base;
        solved = 0;
    }
    if (limited) fl |= SN_IK_LIMITED;

    /* write back what changed: solved joints, or those the limits moved */
    for (i = 0; i + 1 < n; i++) {
        if (!solved && memcmp(&L[i].q, &L[i].in, sizeof(sn_quat)) == 0) continue;
        sn_ik_write_rotation(pose, L[i].joint, &L[i].in, &L[i].q, weight);
        wrote = 1;
    }
    /* the distance left by the pose as written (floats, weighted) */
    if (wrote) {
        for (i = 0; i + 1 < n; i++) {
            sn_ik_local lo;
            (void)sn_ik_read_local(pose, L[i].joint, &lo); /* finite, non-zero: written above */
            L[i].q = lo.q;
        }
        forward(ik, 0);
        d_end = tip_distance(ik, tgt);
    } else {
        d_end = d_base;
    }
    if (d_end <= ik->tolerance && weight >= 1.0) fl |= SN_IK_REACHED;
    if (left != NULL) *left = d_end;
    if (flags != NULL) *flags = fl;
    return SN_OK;
}
