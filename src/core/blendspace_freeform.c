/*
 * Blend spaces, the modes that weigh every point against every other: freeform_cartesian and
 * freeform_directional (gradient bands: each point's weight is the least of its bands towards the
 * others, in cartesian or polar terms, with every term that does not depend on the input made at
 * construction), idw (Shepard's inverse distances) and direct (the inputs are the weights),
 * neither of which precomputes anything.
 */
#include <math.h>

#include "blendspace_internal.h"

/* ---- freeform_cartesian ---- */

/* every pair term (p_j - p_i) / |p_j - p_i|^2 */
void sn_blendspace_freeform_cartesian_build(sn_blendspace *bs) {
    const double *p = ARR(bs, points, double);
    double *v = ARR(bs, cartesian_pairs, double);
    int n = bs->n, d = bs->dims, i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            double dd;
            if (j == i) continue;
            dd = dist2(p + j * d, p + i * d, d);
            for (k = 0; k < d; k++) *v++ = (p[j * d + k] - p[i * d + k]) / dd;
        }
}

/* each point's least band 1 - (p - p_i) . pair over the others, clamped at 0, normalised */
void sn_blendspace_freeform_cartesian_weights(const sn_blendspace *bs, const double *p, double *w) {
    const double *pts = CARR(bs, points, double), *v = CARR(bs, cartesian_pairs, double);
    int n = bs->n, d = bs->dims, i, j, k;
    double sum = 0.0;
    for (i = 0; i < n; i++) {
        const double *row = v + (size_t)i * (n - 1) * d;
        double r[SN_BLENDSPACE_MAX_DIMS], h = 1.0;
        for (k = 0; k < d; k++) r[k] = p[k] - pts[i * d + k];
        if (d == 2) {
            for (j = 0; j < n - 1 && h > 0.0; j++) {
                double t = 1.0 - (r[0] * row[2 * j] + r[1] * row[2 * j + 1]);
                if (t < h) h = t;
            }
        } else {
            for (j = 0; j < n - 1 && h > 0.0; j++) {
                double t = 1.0;
                for (k = 0; k < d; k++) t -= r[k] * row[j * d + k];
                if (t < h) h = t;
            }
        }
        w[i] = h > 0.0 ? h : 0.0;
        sum += w[i];
    }
    normalise_weights(w, n, sum);
}

/* ---- freeform_directional ---- */

/* signed angle from direction a to direction b in (-pi, pi]; 0 when either is zero */
static double signed_angle(double ax, double ay, double bx, double by) {
    double t;
    if ((ax == 0.0 && ay == 0.0) || (bx == 0.0 && by == 0.0)) return 0.0;
    t = atan2(ax * by - ay * bx, ax * bx + ay * by);
    return t == -PI ? PI : t;
}

/* every radius and its reciprocal, and every pair's angle and band coefficients */
void sn_blendspace_freeform_directional_build(sn_blendspace *bs) {
    const double *p = ARR(bs, points, double);
    double *len = ARR(bs, polar.length, double), *pair = ARR(bs, polar.pair, double);
    int n = bs->n, i, j;
    for (i = 0; i < n; i++) {
        len[2 * i] = sqrt(p[2 * i] * p[2 * i] + p[2 * i + 1] * p[2 * i + 1]);
        len[2 * i + 1] = len[2 * i] > 0.0 ? 1.0 / len[2 * i] : 0.0;
        if (len[2 * i] == 0.0) bs->centre = i;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            double *c = pair + 3 * ((size_t)i * n + j), th, m, vr, nsq;
            c[0] = c[1] = c[2] = 0.0;
            if (i == j || len[2 * i] == 0.0 || len[2 * j] == 0.0) continue;
            th = signed_angle(p[2 * i], p[2 * i + 1], p[2 * j], p[2 * j + 1]);
            m = 0.5 * (len[2 * i] + len[2 * j]);
            vr = (len[2 * j] - len[2 * i]) / m;
            nsq = bs->alpha * bs->alpha * th * th + vr * vr;
            c[0] = th;                                   /* theta_ij */
            c[1] = bs->alpha * bs->alpha * th / nsq;     /* term = 1 - theta_ip c1 - (|p| - |p_i|) c2 */
            c[2] = vr / (m * nsq);
        }
}

/* each point's least polar band over the others, clamped at 0, normalised (manual/blendspaces.md
   gives the bands, those to and from the point at the origin included) */
void sn_blendspace_freeform_directional_weights(const sn_blendspace *bs, const double *p, double *w) {
    const double *pts = CARR(bs, points, double), *len = CARR(bs, polar.length, double);
    const double *pair = CARR(bs, polar.pair, double);
    int n = bs->n, c = bs->centre, i, j;
    double plen = sqrt(p[0] * p[0] + p[1] * p[1]), hc = 1.0, sum = 0.0;
    int at_origin = plen == 0.0;
    for (i = 0; i < n; i++) /* first pass: w holds theta_ip, the angle from p_i to p */
        w[i] = signed_angle(pts[2 * i], pts[2 * i + 1], p[0], p[1]);
    if (c >= 0 && !at_origin) {
        for (j = 0; j < n && hc > 0.0; j++) {
            double t;
            if (j == c) continue;
            t = 1.0 - 4.0 * plen * len[2 * j + 1] / (w[j] * w[j] + 4.0);
            if (t < hc) hc = t;
        }
    }
    for (i = 0; i < n; i++) {
        const double *row = pair + 3 * (size_t)i * n;
        double th = w[i], h = 1.0, dr = plen - len[2 * i];
        if (i == c) {
            w[i] = hc > 0.0 ? hc : 0.0;
            sum += w[i];
            continue;
        }
        for (j = 0; j < n && h > 0.0; j++) {
            double t;
            if (j == i) continue;
            if (j == c) t = 4.0 * plen * len[2 * i + 1] / (th * th + 4.0);
            else t = 1.0 - (at_origin ? row[3 * j] : th) * row[3 * j + 1] - dr * row[3 * j + 2];
            if (t < h) h = t;
        }
        w[i] = h > 0.0 ? h : 0.0;
        sum += w[i];
    }
    normalise_weights(w, n, sum);
}

/* ---- idw ---- */

void sn_blendspace_idw_weights(const sn_blendspace *bs, const double *p, double *w) {
    const double *pts = CARR(bs, points, double);
    int n = bs->n, d = bs->dims, i, nearest = 0;
    double sum = 0.0, e = 0.5 * bs->power, least;
    for (i = 0; i < n; i++) {
        w[i] = dist2(p, pts + i * d, d);
        if (w[i] < w[nearest]) nearest = i;
    }
    least = w[nearest];
    if (least == 0.0) {
        zero(w, n);
        w[nearest] = 1.0;
        return;
    }
    for (i = 0; i < n; i++) { /* (d_min / d_i)^power: 1 for the nearest, no overflow */
        double r = least / w[i];
        w[i] = e == 2.0 ? r * r : e == 1.0 ? r : pow(r, e);
        sum += w[i];
    }
    normalise_weights(w, n, sum);
}

/* ---- direct ---- */

void sn_blendspace_direct_weights(const sn_blendspace *bs, const double *in, double *w) {
    int i;
    double sum = 0.0, top = 0.0;
    for (i = 0; i < bs->n; i++) {
        w[i] = in[i] > 0.0 ? in[i] : 0.0;
        if (w[i] > top) top = w[i];
    }
    if (!bs->normalize || top == 0.0) return;
    /* scaled by the largest first, so that neither the sum of huge inputs overflows nor the
       reciprocal of a subnormal sum does */
    for (i = 0; i < bs->n; i++) {
        w[i] /= top;
        sum += w[i];
    }
    normalise_weights(w, bs->n, sum);
}
