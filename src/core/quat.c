#include "quat.h"

#include <math.h>

#define SN_PI 3.14159265358979323846

/* sin(x)/x, accurate near 0 */
static double sinc(double x) {
    double x2 = x * x;
    if (x2 < 1e-8) return 1.0 - x2 / 6.0 + x2 * x2 / 120.0;
    return sin(x) / x;
}

static double max4(double a, double b, double c, double d) {
    double m = fabs(a);
    if (fabs(b) > m) m = fabs(b);
    if (fabs(c) > m) m = fabs(c);
    if (fabs(d) > m) m = fabs(d);
    return m;
}

static sn_quat qmake(double x, double y, double z, double w) {
    sn_quat q;
    q.x = x; q.y = y; q.z = z; q.w = w;
    return q;
}

static sn_quat qscale(const sn_quat *q, double s) { return qmake(q->x * s, q->y * s, q->z * s, q->w * s); }

static double len4(double x, double y, double z, double w) {
    double m = max4(x, y, z, w);
    if (m == 0.0 || !sn_isfinite(m)) return m;
    if (m > 1e150 || m < 1e-150) {
        x /= m; y /= m; z /= m; w /= m;
        return m * sqrt(x * x + y * y + z * z + w * w);
    }
    return sqrt(x * x + y * y + z * z + w * w);
}

static double len3(double x, double y, double z) { return len4(x, y, z, 0.0); }

void sn_quat_mul(const sn_quat *a, const sn_quat *b, sn_quat *out) {
    sn_quat r;
    r.x = a->w * b->x + a->x * b->w + a->y * b->z - a->z * b->y;
    r.y = a->w * b->y - a->x * b->z + a->y * b->w + a->z * b->x;
    r.z = a->w * b->z + a->x * b->y - a->y * b->x + a->z * b->w;
    r.w = a->w * b->w - a->x * b->x - a->y * b->y - a->z * b->z;
    *out = r;
}

void sn_quat_conj(const sn_quat *q, sn_quat *out) { *out = qmake(-q->x, -q->y, -q->z, q->w); }

double sn_quat_dot(const sn_quat *a, const sn_quat *b) {
    return a->x * b->x + a->y * b->y + a->z * b->z + a->w * b->w;
}

double sn_quat_length(const sn_quat *q) { return len4(q->x, q->y, q->z, q->w); }

sn_status sn_quat_normalize(const sn_quat *q, sn_quat *out) {
    double l = sn_quat_length(q);
    if (l == 0.0 || !sn_isfinite(l)) return SN_EINVAL;
    *out = qmake(q->x / l, q->y / l, q->z / l, q->w / l); /* division: correctly rounded */
    return SN_OK;
}

sn_status sn_quat_inverse(const sn_quat *q, sn_quat *out) {
    sn_quat u;
    double l = sn_quat_length(q);
    if (sn_quat_normalize(q, &u) != SN_OK) return SN_EINVAL;
    /* q^-1 = conj(q)/|q|^2 = conj(u)/|q| */
    *out = qmake(-u.x / l, -u.y / l, -u.z / l, u.w / l);
    return SN_OK;
}

sn_status sn_quat_rotate(const sn_quat *q, const sn_vec3 *v, sn_vec3 *out) {
    sn_quat u;
    double tx, ty, tz;
    if (sn_quat_normalize(q, &u) != SN_OK) return SN_EINVAL;
    /* v' = v + w t + u x t, with t = 2 (u x v) */
    tx = 2.0 * (u.y * v->z - u.z * v->y);
    ty = 2.0 * (u.z * v->x - u.x * v->z);
    tz = 2.0 * (u.x * v->y - u.y * v->x);
    out->x = v->x + u.w * tx + (u.y * tz - u.z * ty);
    out->y = v->y + u.w * ty + (u.z * tx - u.x * tz);
    out->z = v->z + u.w * tz + (u.x * ty - u.y * tx);
    return SN_OK;
}

sn_status sn_quat_from_axis_angle(const sn_vec3 *axis, double angle, sn_quat *out) {
    double l = len3(axis->x, axis->y, axis->z), s;
    if (l == 0.0 || !sn_isfinite(l)) return SN_EINVAL;
    s = sin(0.5 * angle) / l;
    *out = qmake(axis->x * s, axis->y * s, axis->z * s, cos(0.5 * angle));
    return SN_OK;
}

sn_status sn_quat_to_axis_angle(const sn_quat *q, sn_vec3 *axis, double *angle) {
    sn_quat u;
    double s;
    if (sn_quat_normalize(q, &u) != SN_OK) return SN_EINVAL;
    if (u.w < 0.0) u = qscale(&u, -1.0);
    s = len3(u.x, u.y, u.z);
    *angle = 2.0 * atan2(s, u.w);
    if (s == 0.0) {
        axis->x = 1.0; axis->y = 0.0; axis->z = 0.0;
    } else {
        axis->x = u.x / s; axis->y = u.y / s; axis->z = u.z / s;
    }
    return SN_OK;
}

void sn_quat_from_euler(double x, double y, double z, sn_euler_order order, sn_quat *out) {
    static const char *const orders[] = {"XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};
    const char *o = orders[(unsigned)order < 6u ? (unsigned)order : 0u];
    sn_quat r = qmake(0, 0, 0, 1);
    int i;
    for (i = 0; i < 3; i++) {
        sn_quat e = qmake(0, 0, 0, 1);
        double a = o[i] == 'X' ? x : o[i] == 'Y' ? y : z;
        double s = sin(0.5 * a);
        e.w = cos(0.5 * a);
        if (o[i] == 'X') e.x = s;
        else if (o[i] == 'Y') e.y = s;
        else e.z = s;
        sn_quat_mul(&e, &r, &r); /* extrinsic: each later rotation multiplies from the left */
    }
    *out = r;
}

sn_status sn_quat_from_to(const sn_vec3 *u, const sn_vec3 *v, sn_quat *out) {
    double lu = len3(u->x, u->y, u->z), lv = len3(v->x, v->y, v->z), lh;
    sn_vec3 a, b, h;
    if (lu == 0.0 || lv == 0.0 || !sn_isfinite(lu) || !sn_isfinite(lv)) return SN_EINVAL;
    a.x = u->x / lu; a.y = u->y / lu; a.z = u->z / lu;
    b.x = v->x / lv; b.y = v->y / lv; b.z = v->z / lv;
    h.x = a.x + b.x; h.y = a.y + b.y; h.z = a.z + b.z;
    lh = len3(h.x, h.y, h.z);
    if (lh < 1e-12) {
        /* antiparallel: half turn about the axis perpendicular to a, built from the basis axis
           least aligned with a */
        sn_vec3 e = {0, 0, 0}, c;
        double lc;
        if (fabs(a.x) <= fabs(a.y) && fabs(a.x) <= fabs(a.z)) e.x = 1;
        else if (fabs(a.y) <= fabs(a.z)) e.y = 1;
        else e.z = 1;
        c.x = a.y * e.z - a.z * e.y;
        c.y = a.z * e.x - a.x * e.z;
        c.z = a.x * e.y - a.y * e.x;
        lc = len3(c.x, c.y, c.z);
        *out = qmake(c.x / lc, c.y / lc, c.z / lc, 0.0);
        return SN_OK;
    }
    h.x /= lh; h.y /= lh; h.z /= lh;
    /* rotation by twice the angle between a and the half vector h */
    *out = qmake(a.y * h.z - a.z * h.y, a.z * h.x - a.x * h.z, a.x * h.y - a.y * h.x,
                 a.x * h.x + a.y * h.y + a.z * h.z);
    return sn_quat_normalize(out, out);
}

/* Angle between unit 4-vectors a and b, in [0, pi], stable for nearly equal inputs. */
static double angle4(const sn_quat *a, const sn_quat *b) {
    double d = len4(a->x - b->x, a->y - b->y, a->z - b->z, a->w - b->w);
    double s = len4(a->x + b->x, a->y + b->y, a->z + b->z, a->w + b->w);
    return 2.0 * atan2(d, s);
}

sn_status sn_quat_angle(const sn_quat *a, const sn_quat *b, double *angle) {
    sn_quat ua, ub;
    if (sn_quat_normalize(a, &ua) != SN_OK || sn_quat_normalize(b, &ub) != SN_OK) return SN_EINVAL;
    if (sn_quat_dot(&ua, &ub) < 0.0) ub = qscale(&ub, -1.0);
    *angle = 2.0 * angle4(&ua, &ub);
    return SN_OK;
}

sn_status sn_quat_log(const sn_quat *q, sn_quat *out) {
    double l = sn_quat_length(q), s, t;
    sn_quat u;
    if (sn_quat_normalize(q, &u) != SN_OK) return SN_EINVAL;
    s = len3(u.x, u.y, u.z);
    t = atan2(s, u.w);
    if (s == 0.0) {
        /* real quaternion: log of a negative real picks the i axis */
        *out = qmake(u.w < 0.0 ? SN_PI : 0.0, 0.0, 0.0, log(l));
    } else {
        double k = t / s;
        *out = qmake(u.x * k, u.y * k, u.z * k, log(l));
    }
    return SN_OK;
}

void sn_quat_exp(const sn_quat *q, sn_quat *out) {
    double t = len3(q->x, q->y, q->z);
    double e = exp(q->w), k = e * sinc(t);
    *out = qmake(q->x * k, q->y * k, q->z * k, e * cos(t));
}

sn_status sn_quat_pow(const sn_quat *q, double e, sn_quat *out) {
    sn_quat lg;
    if (sn_quat_log(q, &lg) != SN_OK) return SN_EINVAL;
    lg = qscale(&lg, e);
    sn_quat_exp(&lg, out);
    return SN_OK;
}

sn_status sn_quat_slerp(const sn_quat *a, const sn_quat *b, double t, sn_quat *out) {
    sn_quat ua, ub;
    double om, sinc_om, k0, k1;
    if (sn_quat_normalize(a, &ua) != SN_OK || sn_quat_normalize(b, &ub) != SN_OK) return SN_EINVAL;
    if (sn_quat_dot(&ua, &ub) < 0.0) ub = qscale(&ub, -1.0);
    om = angle4(&ua, &ub); /* in [0, pi/2] after alignment */
    /* sin(k om)/sin(om) = k sinc(k om)/sinc(om): exact as om -> 0 */
    sinc_om = sinc(om);
    k0 = (1.0 - t) * sinc((1.0 - t) * om) / sinc_om;
    k1 = t * sinc(t * om) / sinc_om;
    *out = qmake(k0 * ua.x + k1 * ub.x, k0 * ua.y + k1 * ub.y, k0 * ua.z + k1 * ub.z,
                 k0 * ua.w + k1 * ub.w);
    return sn_quat_normalize(out, out);
}

sn_status sn_quat_nlerp(const sn_quat *a, const sn_quat *b, double t, sn_quat *out) {
    sn_quat ua, ub;
    if (sn_quat_normalize(a, &ua) != SN_OK || sn_quat_normalize(b, &ub) != SN_OK) return SN_EINVAL;
    if (sn_quat_dot(&ua, &ub) < 0.0) ub = qscale(&ub, -1.0);
    *out = qmake(ua.x + t * (ub.x - ua.x), ua.y + t * (ub.y - ua.y), ua.z + t * (ub.z - ua.z),
                 ua.w + t * (ub.w - ua.w));
    return sn_quat_normalize(out, out);
}

/* ---- N-way blends ---------------------------------------------------------------------- */

sn_status sn_quat_blend_validate(const sn_quat *qs, const double *ws, size_t n, sn_error *err) {
    size_t i;
    int any = 0;
    if (n == 0) return sn_fail_arg(err, 1, SN_EINVAL, "no quaternions to blend");
    for (i = 0; i < n; i++) {
        const sn_quat *q = &qs[i];
        if (!sn_isfinite(q->x) || !sn_isfinite(q->y) || !sn_isfinite(q->z) || !sn_isfinite(q->w))
            return sn_fail_arg(err, 1, SN_EINVAL, "quaternion %lu has a non-finite component", (unsigned long)(i + 1));
        if (q->x == 0.0 && q->y == 0.0 && q->z == 0.0 && q->w == 0.0)
            return sn_fail_arg(err, 1, SN_EINVAL, "quaternion %lu is zero", (unsigned long)(i + 1));
        if (!sn_isfinite(ws[i]))
            return sn_fail_arg(err, 2, SN_EINVAL, "weight %lu is not finite", (unsigned long)(i + 1));
        if (ws[i] < 0.0)
            return sn_fail_arg(err, 2, SN_EINVAL, "weight %lu is negative", (unsigned long)(i + 1));
        if (ws[i] > 0.0) any = 1;
    }
    if (!any) return sn_fail_arg(err, 2, SN_EINVAL, "weights are all zero");
    return SN_OK;
}

/* index of the largest weight (the first of equals), and the largest weight */
static size_t heaviest(const double *ws, size_t n, double *wmax) {
    size_t i, best = 0;
    for (i = 1; i < n; i++)
        if (ws[i] > ws[best]) best = i;
    *wmax = ws[best];
    return best;
}

/* weights scaled by 1/max first so that their sum cannot overflow */
static double weight_sum(const double *ws, size_t n, double wmax) {
    double s = 0.0;
    size_t i;
    for (i = 0; i < n; i++) s += ws[i] / wmax;
    return s;
}

static void unit(const sn_quat *q, sn_quat *out) { (void)sn_quat_normalize(q, out); }

static void blend_nlerp(const sn_quat *qs, const double *ws, size_t n, sn_quat *out) {
    double wmax, k;
    size_t i, r = heaviest(ws, n, &wmax);
    sn_quat ref, acc = qmake(0, 0, 0, 0);
    k = 1.0 / weight_sum(ws, n, wmax);
    unit(&qs[r], &ref);
    for (i = 0; i < n; i++) {
        sn_quat u;
        double w = ws[i] / wmax * k;
        if (w == 0.0) continue;
        unit(&qs[i], &u);
        if (sn_quat_dot(&u, &ref) < 0.0) w = -w;
        acc.x += w * u.x; acc.y += w * u.y; acc.z += w * u.z; acc.w += w * u.w;
    }
    /* acc . ref >= weight of ref > 0, so acc is never zero */
    unit(&acc, out);
}

static void blend_karcher(const sn_quat *qs, const double *ws, size_t n, sn_quat *out) {
    double wmax, k;
    sn_quat m;
    int it;
    size_t i;
    (void)heaviest(ws, n, &wmax);
    k = 1.0 / weight_sum(ws, n, wmax);
    blend_nlerp(qs, ws, n, &m);
    for (it = 0; it < 200; it++) {
        sn_quat t = qmake(0, 0, 0, 0), mc, step;
        double tl;
        sn_quat_conj(&m, &mc);
        for (i = 0; i < n; i++) {
            sn_quat u, rel, lg;
            double w = ws[i] / wmax * k;
            if (w == 0.0) continue;
            unit(&qs[i], &u);
            sn_quat_mul(&mc, &u, &rel);
            if (rel.w < 0.0) rel = qscale(&rel, -1.0);
            (void)sn_quat_log(&rel, &lg);
            t.x += w * lg.x; t.y += w * lg.y; t.z += w * lg.z;
        }
        sn_quat_exp(&t, &step);
        sn_quat_mul(&m, &step, &m);
        unit(&m, &m);
        tl = len3(t.x, t.y, t.z);
        if (2.0 * tl < 1e-12) break;
    }
    *out = m;
}

/* Eigenvector of the largest eigenvalue of a symmetric 4x4 matrix (cyclic Jacobi). */
static void sym4_top_eigenvector(double a[4][4], double v[4]) {
    double e[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    int sweep, p, q, r, best;
    for (sweep = 0; sweep < 60; sweep++) {
        double off = 0.0, diag = 0.0;
        for (p = 0; p < 4; p++) {
            diag += a[p][p] * a[p][p];
            for (q = p + 1; q < 4; q++) off += a[p][q] * a[p][q];
        }
        if (off <= 1e-34 * diag || off == 0.0) break;
        for (p = 0; p < 3; p++) {
            for (q = p + 1; q < 4; q++) {
                double theta, t, c, s;
                if (a[p][q] == 0.0) continue;
                theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                c = 1.0 / sqrt(t * t + 1.0);
                s = t * c;
                for (r = 0; r < 4; r++) { /* columns p, q */
                    double arp = a[r][p], arq = a[r][q];
                    a[r][p] = c * arp - s * arq;
                    a[r][q] = s * arp + c * arq;
                }
                for (r = 0; r < 4; r++) { /* rows p, q */
                    double apr = a[p][r], aqr = a[q][r];
                    a[p][r] = c * apr - s * aqr;
                    a[q][r] = s * apr + c * aqr;
                }
                for (r = 0; r < 4; r++) {
                    double erp = e[r][p], erq = e[r][q];
                    e[r][p] = c * erp - s * erq;
                    e[r][q] = s * erp + c * erq;
                }
            }
        }
    }
    best = 0;
    for (p = 1; p < 4; p++)
        if (a[p][p] > a[best][best]) best = p;
    for (r = 0; r < 4; r++) v[r] = e[r][best];
}

static void blend_markley(const sn_quat *qs, const double *ws, size_t n, sn_quat *out) {
    double m[4][4] = {{0}}, v[4], wmax, k;
    size_t i, r = heaviest(ws, n, &wmax);
    int p, q;
    sn_quat ref;
    k = 1.0 / weight_sum(ws, n, wmax);
    for (i = 0; i < n; i++) {
        sn_quat u;
        double c[4], w = ws[i] / wmax * k;
        if (w == 0.0) continue;
        unit(&qs[i], &u);
        c[0] = u.x; c[1] = u.y; c[2] = u.z; c[3] = u.w;
        for (p = 0; p < 4; p++)
            for (q = p; q < 4; q++) m[p][q] += w * c[p] * c[q];
    }
    for (p = 0; p < 4; p++)
        for (q = 0; q < p; q++) m[p][q] = m[q][p];
    sym4_top_eigenvector(m, v);
    *out = qmake(v[0], v[1], v[2], v[3]);
    unit(out, out);
    unit(&qs[r], &ref);
    if (sn_quat_dot(out, &ref) < 0.0) *out = qscale(out, -1.0);
}

static void blend_power(const sn_quat *qs, const double *ws, size_t n, sn_quat *out) {
    double wmax, k;
    size_t i;
    sn_quat acc = qmake(0, 0, 0, 1);
    (void)heaviest(ws, n, &wmax);
    k = 1.0 / weight_sum(ws, n, wmax);
    for (i = 0; i < n; i++) {
        sn_quat u, p;
        double w = ws[i] / wmax * k;
        if (w == 0.0) continue;
        unit(&qs[i], &u);
        if (u.w < 0.0) u = qscale(&u, -1.0); /* the shortest-arc fraction of each rotation */
        (void)sn_quat_pow(&u, w, &p);
        sn_quat_mul(&acc, &p, &acc);
    }
    unit(&acc, out);
}

sn_status sn_quat_blend(const sn_quat *qs, const double *ws, size_t n, sn_blend_method method,
                        sn_quat *out, sn_error *err) {
    sn_status st = sn_quat_blend_validate(qs, ws, n, err);
    if (st != SN_OK) return st;
    switch (method) {
    case SN_BLEND_NLERP: blend_nlerp(qs, ws, n, out); break;
    case SN_BLEND_KARCHER: blend_karcher(qs, ws, n, out); break;
    case SN_BLEND_MARKLEY: blend_markley(qs, ws, n, out); break;
    case SN_BLEND_POWER: blend_power(qs, ws, n, out); break;
    default: return sn_fail(err, SN_EINVAL, "unknown blend method %d", (int)method);
    }
    return SN_OK;
}
