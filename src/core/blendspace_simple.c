/*
 * Blend spaces, the modes without a triangulation or pair terms: 1d, whose points are sorted
 * along a line once and then found by a binary search and mixed linearly (triangulated and grid
 * spaces whose points lie on a line use the same), and simple_directional, whose directions are
 * sorted by pseudo-angle once; an input's wedge is found by a binary search, and its two ends and
 * the centre share the weight (the wedges are also read by sinew's LuaJIT FFI path, through
 * sn_blendspace_wedges_of).
 */
#include <float.h>
#include <math.h>

#include "blendspace_internal.h"

/* simple_directional: with every radius strictly between these two the quick weights cannot
   overflow (inputs are clamped to MAX_COORD; wedges are under 180 degrees) */
#define QUICK_R_LO 1e-100
#define QUICK_R_HI 1e100

/* ---- 1d ---- */

/* points (n of them, `dims` coordinates each) sorted along the line through the
   lexicographically smallest and largest: the piecewise-linear evaluator */
void sn_blendspace_line_build(sn_blendspace *bs, const double *pts) {
    int n = bs->n, dims = bs->dims, i, k, lo = 0, hi = 0;
    double *org = ARR(bs, line.origin, double), *dir = ARR(bs, line.axis, double), dd = 0.0;
    double *lt = ARR(bs, line.t, double);
    int *order = ARR(bs, line.order, int);
    for (i = 1; i < n; i++) {
        for (k = 0; k < dims && pts[i * dims + k] == pts[lo * dims + k]; k++) {}
        if (k < dims && pts[i * dims + k] < pts[lo * dims + k]) lo = i;
        for (k = 0; k < dims && pts[i * dims + k] == pts[hi * dims + k]; k++) {}
        if (k < dims && pts[i * dims + k] > pts[hi * dims + k]) hi = i;
    }
    for (k = 0; k < dims; k++) {
        org[k] = pts[lo * dims + k];
        dir[k] = pts[hi * dims + k] - org[k];
        dd += dir[k] * dir[k];
    }
    for (k = 0; k < dims; k++) dir[k] /= dd;
    for (i = 0; i < n; i++) {
        double t = 0.0;
        int j;
        for (k = 0; k < dims; k++) t += (pts[i * dims + k] - org[k]) * dir[k];
        for (j = i; j > 0 && lt[j - 1] > t; j--) { /* insertion sort by t */
            lt[j] = lt[j - 1];
            order[j] = order[j - 1];
        }
        lt[j] = t;
        order[j] = i;
    }
}

int sn_blendspace_line_sparse(const sn_blendspace *bs, const double *u, int *idx, double *wt) {
    const double *org = CARR(bs, line.origin, double), *dir = CARR(bs, line.axis, double);
    const double *lt = CARR(bs, line.t, double);
    const int *order = CARR(bs, line.order, int);
    double t = 0.0, f;
    int k, lo = 0, hi = bs->n - 1;
    for (k = 0; k < bs->dims; k++) t += (u[k] - org[k]) * dir[k];
    if (!(t > lt[0]) || t >= lt[hi]) { /* at or beyond an end */
        idx[0] = order[t > lt[0] ? hi : 0];
        wt[0] = 1.0;
        return 1;
    }
    while (hi - lo > 1) { /* lt[lo] < t < lt[hi] */
        int mid = (lo + hi) / 2;
        if (lt[mid] <= t) lo = mid;
        else hi = mid;
    }
    f = (t - lt[lo]) / (lt[hi] - lt[lo]);
    idx[0] = order[lo];
    wt[0] = 1.0 - f;
    idx[1] = order[hi];
    wt[1] = f;
    return 2;
}

void sn_blendspace_line_weights(const sn_blendspace *bs, const double *u, double *w) {
    int idx[2];
    double wt[2];
    scatter(idx, wt, sn_blendspace_line_sparse(bs, u, idx, wt), w, bs->n);
}

/* ---- simple_directional ---- */

/* directions are sorted by it and an input's wedge is found by it */
double sn_blendspace_pseudo_angle(double x, double y) {
    if (y >= 0.0) return x >= 0.0 ? y / (x + y) : 1.0 - x / (y - x);
    return x < 0.0 ? -2.0 + y / (x + y) : -1.0 + x / (x - y);
}

void sn_blendspace_simple_directional_build(sn_blendspace *bs) {
    const double *p = ARR(bs, points, double);
    double *ang = ARR(bs, wedges.angle, double), *rad = ARR(bs, wedges.radius, double);
    double *unit = ARR(bs, wedges.unit, double), *fac = ARR(bs, wedges.factor, double);
    int *idx = ARR(bs, wedges.point, int), i, j;
    bs->wedges.quick = 1;
    for (i = 0; i < bs->n; i++) {
        double a;
        rad[i] = hypot(p[2 * i], p[2 * i + 1]); /* hypot: a square of 1e-200 would underflow */
        if (is_origin(p + 2 * i)) {
            bs->centre = i;
            continue;
        }
        if (!(rad[i] > QUICK_R_LO && rad[i] < QUICK_R_HI)) bs->wedges.quick = 0;
        a = sn_blendspace_pseudo_angle(p[2 * i], p[2 * i + 1]);
        for (j = bs->wedges.count++; j > 0 && ang[j - 1] > a; j--) {
            ang[j] = ang[j - 1];
            idx[j] = idx[j - 1];
        }
        ang[j] = a;
        idx[j] = i;
    }
    for (j = 0; j < bs->wedges.count; j++) {
        const int ia = idx[j];
        unit[2 * j] = p[2 * ia] / rad[ia];
        unit[2 * j + 1] = p[2 * ia + 1] / rad[ia];
    }
    /* wedge j runs from direction j to direction j + 1 (the last back to the first): the weights of
       its ends are (b^ x p) / (|a| det) and (a^ x p) / (|b| det), det = a^ x b^ */
    for (j = 0; j < bs->wedges.count; j++) {
        const int k = (j + 1) % bs->wedges.count;
        const double det = unit[2 * j] * unit[2 * k + 1] - unit[2 * j + 1] * unit[2 * k];
        fac[2 * j] = 1.0 / (rad[idx[j]] * det);
        fac[2 * j + 1] = 1.0 / (rad[idx[k]] * det);
        if (!(det > 0.0 && fac[2 * j] <= DBL_MAX && fac[2 * j + 1] <= DBL_MAX)) bs->wedges.quick = 0;
    }
}

/* the wedge whose angles hold pseudo-angle th: ang[k] <= th < ang[k + 1], the last wedge (which
   closes the circle) when th is below the first angle or at or above the last */
static int find_wedge(const double *ang, int count, double th) {
    int lo = 0, hi = count;
    if (th < ang[0]) return count - 1;
    while (hi - lo > 1) { /* ang[lo] <= th < ang[hi] */
        int mid = (lo + hi) / 2;
        if (ang[mid] <= th) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* The weights *wa, *wb of the wedge's ends a and b at p from the wedge's factors f, no division
   (quick spaces); returns the centre's share. ha, hb: the unit directions of a and b. */
static double quick_ends(const double *ha, const double *hb, const double *f, const double *p, double *wa,
                         double *wb) {
    double a = (hb[1] * p[0] - hb[0] * p[1]) * f[0], b = (ha[0] * p[1] - ha[1] * p[0]) * f[1], c;
    if (!(a > 0.0)) a = 0.0; /* only rounding makes these negative inside the wedge */
    if (!(b > 0.0)) b = 0.0;
    c = 1.0 - a - b;
    if (c < 0.0) {
        double s = a + b;
        a /= s;
        b /= s;
        c = 0.0;
    }
    *wa = a;
    *wb = b;
    return c;
}

/* The same for any scale of points and input: the wa = (b x p)/(a x b),
   wb = (p x a)/(a x b), computed on unit directions (hat) so that no product overflows or
   underflows: wa = (|p|/|a|) ua, wb = (|p|/|b|) ub with ua = (b^ x p^)/(a^ x b^),
   ub = (p^ x a^)/(a^ x b^). ra, rb: the radii of a and b. */
static double exact_ends(const double *ha, const double *hb, double ra, double rb, const double *p, double *wa,
                         double *wb) {
    const double rp2 = p[0] * p[0] + p[1] * p[1];
    const double rp = (rp2 > 1e-290 && rp2 < 1e290) ? sqrt(rp2) : hypot(p[0], p[1]);
    const double px = p[0] / rp, py = p[1] / rp, det = ha[0] * hb[1] - ha[1] * hb[0];
    double ua = (hb[1] * px - hb[0] * py) / det, ub = (ha[0] * py - ha[1] * px) / det, a, b, c;
    if (ua < 0.0) ua = 0.0; /* only rounding makes these negative inside the wedge */
    if (ub < 0.0) ub = 0.0;
    a = ua > 0.0 ? rp / ra * ua : 0.0; /* |p|/|a| may overflow for a subnormal |a|: inf * 0 is NaN */
    b = ub > 0.0 ? rp / rb * ub : 0.0;
    c = 1.0 - a - b; /* -inf for an input far beyond tiny samples: handled as c < 0 */
    if (c < 0.0) {
        /* wa / (wa + wb) with |p| cancelled: bounded for any scale */
        double s = ua * rb + ub * ra;
        a = ua * rb / s;
        b = ub * ra / s;
        c = 0.0;
    } else if (c > 1.0) {
        c = 1.0;
        a = b = 0.0;
    }
    *wa = a;
    *wb = b;
    return c;
}

/* the input's wedge, the weights of its two ends, and the rest to the centre (or shared evenly
   when there is none); the origin is all centre */
void sn_blendspace_simple_directional_weights(const sn_blendspace *bs, const double *p, double *w) {
    const double *ang = CARR(bs, wedges.angle, double), *rad = CARR(bs, wedges.radius, double);
    const double *unit = CARR(bs, wedges.unit, double);
    const int *idx = CARR(bs, wedges.point, int);
    double wa, wb, c;
    int n = bs->n, k, next, ia, ib, i;
    zero(w, n);
    if (p[0] == 0.0 && p[1] == 0.0) {
        if (bs->centre >= 0) w[bs->centre] = 1.0;
        else normalise_weights(w, n, 0.0);
        return;
    }
    k = find_wedge(ang, bs->wedges.count, sn_blendspace_pseudo_angle(p[0], p[1]));
    next = (k + 1) % bs->wedges.count;
    ia = idx[k];
    ib = idx[next];
    if (bs->wedges.quick)
        c = quick_ends(unit + 2 * k, unit + 2 * next, CARR(bs, wedges.factor, double) + 2 * k, p, &wa, &wb);
    else
        c = exact_ends(unit + 2 * k, unit + 2 * next, rad[ia], rad[ib], p, &wa, &wb);
    w[ia] += wa;
    w[ib] += wb;
    if (bs->centre >= 0) {
        w[bs->centre] += c;
    } else {
        for (i = 0; i < n; i++) w[i] += c / n;
    }
}

sn_status sn_blendspace_wedges_of(const sn_blendspace *bs, sn_blendspace_wedges *out, sn_error *err) {
    if (bs->mode != SN_BLENDSPACE_SIMPLE_DIRECTIONAL)
        return sn_fail(err, SN_EINVAL, "mode '%s' has no wedges", sn_blendspace_mode_name(bs->mode));
    out->count = bs->n;
    out->ndir = bs->wedges.count;
    out->centre = bs->centre;
    out->quick = bs->wedges.quick;
    out->ang = CARR(bs, wedges.angle, double);
    out->idx = CARR(bs, wedges.point, int);
    out->unit = CARR(bs, wedges.unit, double);
    out->fac = CARR(bs, wedges.factor, double);
    return SN_OK;
}
