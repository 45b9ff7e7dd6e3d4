#include "quat.h"
#include "quat_internal.h"

#include <float.h>
#include <math.h>

/* GCC's straight-line vectoriser pairs up the components of a quaternion: it reads one that
   the caller has just stored component by component (the binding does, and most callers) with
   16-byte loads, which wait for the stores to reach the cache, and it shuffles the terms of the
   product: normalize, rotate and mul were much slower with it (manual/performance.md, "Why the
   code is written so"; bench/c/bench_quat.c). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif

#define SN_PI 3.14159265358979323846
#define LN2 0.69314718055994530942
/* Sums of squares strictly between these two take the plain formulas: nothing overflows, and
   what underflows is below the rounding error of the sum. Outside, the input is first scaled by
   a power of two (exact), so subnormal and huge components keep every bit they have. */
#define PLAIN_SQ_LO 1e-280
#define PLAIN_SQ_HI 1e280
/* Largest magnitude of a vector that sn_quat_rotate rotates without scaling, and the least
   non-zero one whose products with the rotation keep full precision. */
#define PLAIN_V_HI 1e300
#define PLAIN_V_LO 1e-290
/* Largest |t| for which nlerp's a + t (b - a) cannot overflow. */
#define PLAIN_T_HI 1e300

/* The rare paths (huge, tiny or non-finite inputs) stay out of line, so that the common ones
   keep a small stack frame and few saved registers. */
#if defined(__GNUC__)
#define SLOW_PATH __attribute__((noinline, cold))
#define OUT_OF_LINE __attribute__((noinline))
#else
#define SLOW_PATH
#define OUT_OF_LINE
#endif

/* Internal outcomes of the helpers below: a usable result, a zero input, a NaN or infinite one. */
enum { FINE = 0, ZERO = 1, NOT_FINITE = 2 };

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

/* q * 2^e, exact unless the result leaves the normal range */
static sn_quat qldexp(const sn_quat *q, int e) {
    return qmake(ldexp(q->x, e), ldexp(q->y, e), ldexp(q->z, e), ldexp(q->w, e));
}

/* a vector as a quaternion with w = 0, so that one set of helpers serves both */
static sn_quat vq(const sn_vec3 *v) { return qmake(v->x, v->y, v->z, 0.0); }

/* x is finite: one compare, false for NaN too (cheaper in the hot paths than sn_isfinite) */
static int bounded(double x) { return fabs(x) <= DBL_MAX; }

static int finite4(const sn_quat *q) {
    return sn_isfinite(q->x) && sn_isfinite(q->y) && sn_isfinite(q->z) && sn_isfinite(q->w);
}

/* the exponent e with max |component| in [2^(e-1), 2^e); 0 for a zero quaternion */
static int exponent_of(const sn_quat *q) {
    int e;
    (void)frexp(max4(q->x, q->y, q->z, q->w), &e);
    return e;
}

static double dot_plain(const sn_quat *a, const sn_quat *b) {
    return a->x * b->x + a->y * b->y + a->z * b->z + a->w * b->w;
}

static sn_quat mul_plain(const sn_quat *a, const sn_quat *b) {
    return qmake(a->w * b->x + a->x * b->w + a->y * b->z - a->z * b->y,
                 a->w * b->y - a->x * b->z + a->y * b->w + a->z * b->x,
                 a->w * b->z + a->x * b->y - a->y * b->x + a->z * b->w,
                 a->w * b->w - a->x * b->x - a->y * b->y - a->z * b->z);
}

/* |q| = r * 2^e, r in [0.5, 2], for q scaled by 2^-e */
SLOW_PATH static int norm4_scaled(const sn_quat *q, double *r, int *e) {
    sn_quat s;
    *r = 0.0;
    *e = 0;
    if (!finite4(q)) return NOT_FINITE;
    if (max4(q->x, q->y, q->z, q->w) == 0.0) return ZERO;
    *e = exponent_of(q);
    s = qldexp(q, -*e);
    *r = sqrt(s.x * s.x + s.y * s.y + s.z * s.z + s.w * s.w);
    return FINE;
}

/* |q| as r * 2^e without overflow or underflow; e = 0 in the plain range, where r is the
   plain sqrt of the sum of squares */
static inline int norm4(const sn_quat *q, double *r, int *e) {
    double ss = q->x * q->x + q->y * q->y + q->z * q->z + q->w * q->w;
    if (ss > PLAIN_SQ_LO && ss < PLAIN_SQ_HI) {
        *r = sqrt(ss);
        *e = 0;
        return FINE;
    }
    return norm4_scaled(q, r, e);
}

/* q / |q| for huge, tiny, zero or non-finite q (out untouched for the last two) */
SLOW_PATH static int unit4_scaled(const sn_quat *q, sn_quat *out) {
    double r;
    int e, st = norm4_scaled(q, &r, &e);
    sn_quat s;
    if (st != FINE) return st;
    s = qldexp(q, -e);
    *out = qmake(s.x / r, s.y / r, s.z / r, s.w / r);
    return FINE;
}

/* q / |q| for any finite non-zero q; out untouched otherwise. */
static inline int unit4(const sn_quat *q, sn_quat *out) {
    double x = q->x, y = q->y, z = q->z, w = q->w, ss = x * x + y * y + z * z + w * w, r;
    if (!(ss > PLAIN_SQ_LO && ss < PLAIN_SQ_HI)) return unit4_scaled(q, out);
    r = sqrt(ss);
    *out = qmake(x / r, y / r, z / r, w / r); /* division: correctly rounded */
    return FINE;
}

/* unit4 with one division (a reciprocal) instead of four: within an ulp of it, for the inputs
   and results of the interpolations, where only the direction matters */
static inline int unit4_quick(const sn_quat *q, sn_quat *out) {
    double x = q->x, y = q->y, z = q->z, w = q->w, ss = x * x + y * y + z * z + w * w, k;
    if (!(ss > PLAIN_SQ_LO && ss < PLAIN_SQ_HI)) return unit4_scaled(q, out);
    k = 1.0 / sqrt(ss);
    *out = qmake(x * k, y * k, z * k, w * k);
    return FINE;
}

/* |q| for quaternions whose length is representable (differences of unit ones, ...) */
static double len4(const sn_quat *q) {
    double r;
    int e;
    (void)norm4(q, &r, &e);
    return e == 0 ? r : ldexp(r, e);
}

static sn_status refuse(sn_error *err, int arg, int why, const char *what) {
    if (why == NOT_FINITE) return sn_fail_arg(err, arg, SN_EINVAL, "%s is not finite", what);
    return sn_fail_arg(err, arg, SN_EINVAL, "zero %s", what);
}

static sn_status too_large(sn_error *err, int arg, const char *why) {
    return sn_fail_arg(err, arg, SN_EINVAL, "result is too large%s", why);
}

/* sin and cos of the product a * b for finite a and |b| <= 4, also when a * b overflows */
static void sincos_product(double a, double b, double *s, double *c) {
    double p = a * b, s1, c1, s2, c2;
    if (sn_isfinite(p)) {
        *s = sin(p);
        *c = cos(p);
        return;
    }
    p = (0.25 * a) * b; /* finite; the angle is 4 p: two double-angle steps */
    s1 = sin(p);
    c1 = cos(p);
    s2 = 2.0 * s1 * c1;
    c2 = (c1 - s1) * (c1 + s1);
    *s = 2.0 * s2 * c2;
    *c = (c2 - s2) * (c2 + s2);
}

/* out = f * e^L for a unit f, also when e^L alone overflows but the products do not (a unit
   quaternion has a component of at least 1/2, so that happens only for L below ln DBL_MAX + ln 2);
   NOT_FINITE when a product exceeds DBL_MAX */
static int times_exp(const sn_quat *f, double L, sn_quat *out) {
    double E = exp(L);
    if (E <= DBL_MAX) {
        *out = qscale(f, E);
        return FINE;
    }
    E = exp(0.5 * L); /* e^L = E * E */
    *out = qmake(f->x * E * E, f->y * E * E, f->z * E * E, f->w * E * E);
    return finite4(out) ? FINE : NOT_FINITE;
}

/* the larger exponents of a and b, scaled away, for products that overflowed; checks both */
SLOW_PATH static sn_status scale_pair(const sn_quat *a, const sn_quat *b, sn_quat *as, sn_quat *bs, int *e,
                            sn_error *err) {
    int ea, eb;
    *as = *a;
    *bs = *b;
    *e = 0;
    if (!finite4(a)) return refuse(err, 1, NOT_FINITE, "quaternion");
    if (!finite4(b)) return refuse(err, 2, NOT_FINITE, "quaternion");
    ea = exponent_of(a);
    eb = exponent_of(b);
    *as = qldexp(a, -ea);
    *bs = qldexp(b, -eb);
    *e = ea + eb;
    return SN_OK;
}

/* a * b for factors whose plain product overflowed (or was not finite) */
SLOW_PATH static sn_status mul_scaled(const sn_quat *a, const sn_quat *b, sn_quat *out, sn_error *err) {
    sn_quat as, bs, r;
    int e;
    sn_status st = scale_pair(a, b, &as, &bs, &e, err);
    if (st != SN_OK) return st;
    r = mul_plain(&as, &bs);
    r = qldexp(&r, e);
    if (!finite4(&r)) return too_large(err, 1, "");
    *out = r;
    return SN_OK;
}

sn_status sn_quat_mul(const sn_quat *a, const sn_quat *b, sn_quat *out, sn_error *err) {
    sn_quat r = mul_plain(a, b);
    if (!bounded(r.x + r.y + r.z + r.w)) return mul_scaled(a, b, out, err); /* or the sum overflowed */
    *out = r;
    return SN_OK;
}

void sn_quat_conj(const sn_quat *q, sn_quat *out) { *out = qmake(-q->x, -q->y, -q->z, q->w); }

sn_status sn_quat_dot(const sn_quat *a, const sn_quat *b, double *out, sn_error *err) {
    double d = dot_plain(a, b);
    sn_quat as, bs;
    int e;
    sn_status st;
    if (bounded(d)) {
        *out = d;
        return SN_OK;
    }
    if ((st = scale_pair(a, b, &as, &bs, &e, err)) != SN_OK) return st; /* out of line */
    d = ldexp(dot_plain(&as, &bs), e);
    if (!sn_isfinite(d)) return too_large(err, 1, "");
    *out = d;
    return SN_OK;
}

sn_status sn_quat_length(const sn_quat *q, double *out, sn_error *err) {
    double r;
    int e;
    if (norm4(q, &r, &e) == NOT_FINITE) return refuse(err, 1, NOT_FINITE, "quaternion");
    r = e == 0 ? r : ldexp(r, e);
    if (!sn_isfinite(r)) return too_large(err, 1, "");
    *out = r;
    return SN_OK;
}

sn_status sn_quat_normalize(const sn_quat *q, sn_quat *out, sn_error *err) {
    int st = unit4(q, out); /* writes out only when it succeeds */
    return st == FINE ? SN_OK : refuse(err, 1, st, "quaternion");
}

sn_status sn_quat_inverse(const sn_quat *q, sn_quat *out, sn_error *err) {
    double r;
    int e, st = norm4(q, &r, &e);
    sn_quat s, inv;
    if (st != FINE) return refuse(err, 1, st, "quaternion");
    /* q^-1 = conj(q)/|q|^2 = conj(u)/|q| with u = q/|q| = s/r, |q| = r 2^e */
    s = e == 0 ? *q : qldexp(q, -e);
    inv = qmake(-(s.x / r) / r, -(s.y / r) / r, -(s.z / r) / r, (s.w / r) / r);
    if (e != 0) inv = qldexp(&inv, -e);
    if (!finite4(&inv)) return too_large(err, 1, ": 1/|q| overflows");
    *out = inv;
    return SN_OK;
}

/* v' = v + w t + u x t, with t = 2 (u x v), for a unit u */
static void rotate_plain(const sn_quat *u, const sn_vec3 *v, sn_vec3 *out) {
    double tx = 2.0 * (u->y * v->z - u->z * v->y);
    double ty = 2.0 * (u->z * v->x - u->x * v->z);
    double tz = 2.0 * (u->x * v->y - u->y * v->x);
    out->x = v->x + u->w * tx + (u->y * tz - u->z * ty);
    out->y = v->y + u->w * ty + (u->z * tx - u->x * tz);
    out->z = v->z + u->w * tz + (u->x * ty - u->y * tx);
}

/* rotation of a huge or tiny vector: scaled by a power of two, rotated, scaled back */
SLOW_PATH static sn_status rotate_scaled(const sn_quat *u, const sn_vec3 *v, sn_vec3 *out, sn_error *err) {
    sn_quat q = vq(v), s;
    sn_vec3 vs, r;
    int e;
    if (!finite4(&q)) return refuse(err, 2, NOT_FINITE, "vector");
    e = exponent_of(&q);
    s = qldexp(&q, -e);
    vs.x = s.x; vs.y = s.y; vs.z = s.z;
    rotate_plain(u, &vs, &r);
    r.x = ldexp(r.x, e);
    r.y = ldexp(r.y, e);
    r.z = ldexp(r.z, e);
    if (!sn_isfinite(r.x) || !sn_isfinite(r.y) || !sn_isfinite(r.z)) return too_large(err, 2, "");
    *out = r;
    return SN_OK;
}

sn_status sn_quat_rotate(const sn_quat *q, const sn_vec3 *v, sn_vec3 *out, sn_error *err) {
    sn_quat u;
    double m = fabs(v->x);
    int st = unit4(q, &u);
    if (st != FINE) return refuse(err, 1, st, "quaternion");
    if (fabs(v->y) > m) m = fabs(v->y);
    if (fabs(v->z) > m) m = fabs(v->z);
    if ((m > PLAIN_V_LO && m < PLAIN_V_HI) || m == 0.0) {
        rotate_plain(&u, v, out);
        return SN_OK;
    }
    return rotate_scaled(&u, v, out, err);
}

sn_status sn_quat_from_axis_angle(const sn_vec3 *axis, double angle, sn_quat *out, sn_error *err) {
    sn_quat a = vq(axis), n;
    double s;
    int st = unit4(&a, &n);
    if (st != FINE) return refuse(err, 1, st, "axis");
    if (!sn_isfinite(angle)) return refuse(err, 2, NOT_FINITE, "'angle'");
    s = sin(0.5 * angle);
    *out = qmake(n.x * s, n.y * s, n.z * s, cos(0.5 * angle));
    return SN_OK;
}

sn_status sn_quat_to_axis_angle(const sn_quat *q, sn_vec3 *axis, double *angle, sn_error *err) {
    sn_quat u, v, n;
    double r;
    int e, st = unit4(q, &u);
    if (st != FINE) return refuse(err, 1, st, "quaternion");
    if (u.w < 0.0) u = qscale(&u, -1.0);
    v = qmake(u.x, u.y, u.z, 0.0);
    if (norm4(&v, &r, &e) == ZERO) {
        axis->x = 1.0; axis->y = 0.0; axis->z = 0.0;
        *angle = 0.0;
        return SN_OK;
    }
    *angle = 2.0 * atan2(e == 0 ? r : ldexp(r, e), u.w);
    (void)unit4(&v, &n);
    axis->x = n.x; axis->y = n.y; axis->z = n.z;
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
        r = mul_plain(&e, &r); /* extrinsic: each later rotation multiplies from the left */
    }
    *out = r;
}

sn_status sn_quat_from_to(const sn_vec3 *u, const sn_vec3 *v, sn_quat *out, sn_error *err) {
    sn_quat qu = vq(u), qv = vq(v), a, b, h;
    double lh;
    int st;
    if ((st = unit4(&qu, &a)) != FINE) return refuse(err, 1, st, "vector");
    if ((st = unit4(&qv, &b)) != FINE) return refuse(err, 2, st, "vector");
    h = qmake(a.x + b.x, a.y + b.y, a.z + b.z, 0.0);
    lh = len4(&h);
    if (lh < 1e-12) {
        /* antiparallel: a half turn about the axis perpendicular to a that the dynamic bones'
           shortest arc takes too (quat_internal.h) */
        const double av[3] = {a.x, a.y, a.z};
        double e[3];
        sn_perp_of_unit(av, e);
        *out = qmake(e[0], e[1], e[2], 0.0);
        return SN_OK;
    }
    h = qscale(&h, 1.0 / lh);
    /* rotation by twice the angle between a and the half vector h */
    h = qmake(a.y * h.z - a.z * h.y, a.z * h.x - a.x * h.z, a.x * h.y - a.y * h.x,
              a.x * h.x + a.y * h.y + a.z * h.z);
    (void)unit4(&h, out);
    return SN_OK;
}

/* unit4_quick for a quaternion whose squared length ss = 1 + e has |e| < NEAR_UNIT (unit inputs,
   float32 ones too): 1/sqrt(ss) is then 1 - e/2 + 3e^2/8 to within 5e^3/16 < 4e-16, with no
   square root or division on the way. */
#define NEAR_UNIT 1e-5
static inline double sumsq4(double x, double y, double z, double w) { return (x * x + y * y) + (z * z + w * w); }
static inline double near_unit_scale(double ss) {
    double e = ss - 1.0;
    return 1.0 + e * (-0.5 + 0.375 * e);
}
static inline int unit4_near(const sn_quat *q, sn_quat *out) {
    double x = q->x, y = q->y, z = q->z, w = q->w, ss = sumsq4(x, y, z, w), k;
    if (!(fabs(ss - 1.0) < NEAR_UNIT)) return unit4_quick(q, out);
    k = near_unit_scale(ss);
    *out = qmake(x * k, y * k, z * k, w * k);
    return FINE;
}

/* Angle between unit 4-vectors a and b, in [0, pi], stable for nearly equal inputs. */
static double angle4(const sn_quat *a, const sn_quat *b) {
    sn_quat d = qmake(a->x - b->x, a->y - b->y, a->z - b->z, a->w - b->w);
    sn_quat s = qmake(a->x + b->x, a->y + b->y, a->z + b->z, a->w + b->w);
    return 2.0 * atan2(len4(&d), len4(&s));
}

/* both inputs as unit quaternions, b on the side of a (q and -q are the same rotation) */
static inline sn_status aligned_pair(const sn_quat *a, const sn_quat *b, sn_quat *ua, sn_quat *ub, sn_error *err) {
    int st;
    if ((st = unit4_near(a, ua)) != FINE) return refuse(err, 1, st, "quaternion");
    if ((st = unit4_near(b, ub)) != FINE) return refuse(err, 2, st, "quaternion");
    if (dot_plain(ua, ub) < 0.0) *ub = qscale(ub, -1.0);
    return SN_OK;
}

sn_status sn_quat_angle(const sn_quat *a, const sn_quat *b, double *angle, sn_error *err) {
    sn_quat ua, ub;
    sn_status st = aligned_pair(a, b, &ua, &ub, err);
    if (st != SN_OK) return st;
    *angle = 2.0 * angle4(&ua, &ub);
    return SN_OK;
}

/* q = |q| (cos t, n sin t) with a unit axis n (w = 0; (1, 0, 0) for a real q), t in [0, pi],
   and ln |q| */
static int polar(const sn_quat *q, sn_quat *n, double *t, double *lnl) {
    sn_quat u, v;
    double r;
    int e, st = norm4(q, &r, &e);
    *n = qmake(1.0, 0.0, 0.0, 0.0);
    *t = *lnl = 0.0;
    if (st != FINE) return st;
    *lnl = e == 0 ? log(r) : log(r) + e * LN2;
    (void)unit4(q, &u);
    v = qmake(u.x, u.y, u.z, 0.0);
    if (norm4(&v, &r, &e) == ZERO) { /* real: a negative one turns about the i axis */
        *t = u.w < 0.0 ? SN_PI : 0.0;
        return FINE;
    }
    *t = atan2(e == 0 ? r : ldexp(r, e), u.w);
    (void)unit4(&v, n);
    return FINE;
}

sn_status sn_quat_log(const sn_quat *q, sn_quat *out, sn_error *err) {
    sn_quat n;
    double t, lnl;
    int st = polar(q, &n, &t, &lnl);
    if (st != FINE) return refuse(err, 1, st, "quaternion");
    *out = qmake(n.x * t, n.y * t, n.z * t, lnl);
    return SN_OK;
}

/* exp of a quaternion whose vector part is huge or tiny, or whose e^w overflows */
SLOW_PATH static sn_status exp_scaled(const sn_quat *q, sn_quat *out, sn_error *err) {
    sn_quat v = qmake(q->x, q->y, q->z, 0.0), f;
    double r, th;
    int e;
    if (!finite4(q)) return refuse(err, 1, NOT_FINITE, "quaternion");
    (void)norm4(&v, &r, &e); /* |v| = r 2^e */
    th = ldexp(r, e);
    if (th < 1.0) { /* v sin|v|/|v|: sinc is flat here, so |v| rounded to a subnormal is fine */
        double k = sinc(th);
        f = qmake(v.x * k, v.y * k, v.z * k, cos(th));
    } else {
        double s, c;
        sn_quat n;
        sincos_product(ldexp(r, e - 2), 4.0, &s, &c); /* |v| may exceed DBL_MAX */
        (void)unit4(&v, &n);
        f = qmake(n.x * s, n.y * s, n.z * s, c);
    }
    if (times_exp(&f, q->w, out) != FINE) {
        return sn_fail_arg(err, 1, SN_EINVAL, "result is too large: e^w overflows for 'w' = %g", q->w);
    }
    return SN_OK;
}

sn_status sn_quat_exp(const sn_quat *q, sn_quat *out, sn_error *err) {
    double ss = q->x * q->x + q->y * q->y + q->z * q->z, t, e, k;
    if (!(ss < PLAIN_SQ_HI && fabs(q->w) <= 709.0)) return exp_scaled(q, out, err);
    t = sqrt(ss);
    e = exp(q->w);
    k = e * sinc(t);
    *out = qmake(q->x * k, q->y * k, q->z * k, e * cos(t));
    return SN_OK;
}

sn_status sn_quat_pow(const sn_quat *q, double e, sn_quat *out, sn_error *err) {
    sn_quat n, f;
    double t, lnl, s, c;
    int st = polar(q, &n, &t, &lnl);
    if (st != FINE) return refuse(err, 1, st, "quaternion");
    if (!sn_isfinite(e)) return refuse(err, 2, NOT_FINITE, "'e'");
    sincos_product(e, t, &s, &c); /* e t may exceed DBL_MAX */
    f = qmake(n.x * s, n.y * s, n.z * s, c);
    if (times_exp(&f, e * lnl, out) != FINE) return too_large(err, 2, ": |q|^e overflows");
    return SN_OK;
}

/* slerp for t outside [-1, 2], where the sum of the two weighted ends cancels: a * (rel)^t with
   rel = a^-1 b, the rotation angle t times that of rel (t times it may exceed DBL_MAX) */
SLOW_PATH static sn_status slerp_far(const sn_quat *ua, const sn_quat *ub, double t, sn_quat *out, sn_error *err) {
    sn_quat ca, rel, v, n, d;
    double r, s, c;
    int e;
    if (!sn_isfinite(t)) return refuse(err, 3, NOT_FINITE, "'t'");
    sn_quat_conj(ua, &ca);
    rel = mul_plain(&ca, ub);
    v = qmake(rel.x, rel.y, rel.z, 0.0);
    if (norm4(&v, &r, &e) == ZERO) {
        *out = *ua;
        return SN_OK;
    }
    sincos_product(t, atan2(e == 0 ? r : ldexp(r, e), rel.w), &s, &c);
    (void)unit4(&v, &n);
    d = qmake(n.x * s, n.y * s, n.z * s, c);
    d = mul_plain(ua, &d);
    (void)unit4(&d, out);
    return SN_OK;
}

/* The fast slerp's polynomials: minimax fits (Remez), evaluated in Estrin's scheme (a few short
   chains instead of one long one). In d = |a - b|^2 = 4 sin^2(theta / 2), theta the angle between
   unit a and b on one side (d in [0, 2]): theta^2 / d for d <= 1 and for any d (relative error,
   rounding included, 4.4e-16 and 7.3e-16), and theta / sin(theta) (relative, 8.3e-10 and 1.9e-9:
   the start of one Newton step, which leaves below 1e-17). In w = x^2: sin(x)/x for |x| <= pi/2 and
   for |x| <= pi (absolute, 4.1e-16 and 2.4e-16). The ones for d <= 1 and |x| <= pi/2 are 1 at 0,
   so that equal inputs give themselves. */
static inline double theta2_over_near(double d) {
    double d2 = d * d, d4 = d2 * d2, d8 = d4 * d4;
    return (((1.0 + 0.08333333333331944 * d) + d2 * (0.011111111111879025 + 0.001785714269072651 * d)) + d4 * ((0.00031746050438874934 + 6.012381462338917e-05 * d) + d2 * (1.189817193085e-05 + 2.413094315422936e-06 * d))) + d8 * (((5.36741699093693e-07 + 7.066639421566068e-08 * d) + d2 * (5.5618739954415234e-08 - 1.1789220941993564e-08 * d)) + d4 * 5.695009026354704e-09);
}
static inline double theta2_over(double d) {
    double d2 = d * d, d4 = d2 * d2, d8 = d4 * d4, d16 = d8 * d8;
    return ((((0.9999999999999997 + 0.083333333333423 * d) + d2 * (0.011111111106387865 + 0.0017857143841757423 * d)) + d4 * ((0.0003174592370924152 + 6.013225552068025e-05 * d) + d2 * (1.1861240604351977e-05 + 2.524903575734224e-06 * d))) + d8 * (((2.9439094998713747e-07 + 4.5536121199477346e-07 * d) + d2 * (-3.9822307243770677e-07 + 3.8963849554012054e-07 * d)) + d4 * ((-2.611822291731462e-07 + 1.3238185658222192e-07 * d) + d2 * (-4.7751671477298745e-08 + 1.1817203517063126e-08 * d)))) + d16 * (-1.7907052763836046e-09 + 1.2933250905714518e-10 * d);
}
static inline double theta_over_sin_near(double d) {
    double d2 = d * d, d4 = d2 * d2;
    return ((1.0 + 0.16666668905994095 * d) + d2 * (0.0333325996882746 + 0.007149848275523745 * d)) + d4 * ((0.0015579484970506883 + 0.00042337254491061645 * d) + d2 * (1.3804733185883087e-05 + 5.531335725847105e-05 * d));
}
static inline double theta_over_sin(double d) {
    double d2 = d * d, d4 = d2 * d2, d8 = d4 * d4;
    return (((1.0000000018860764 + 0.16666644246251572 * d) + d2 * (0.033337712284602986 + 0.007109738279028244 * d)) + d4 * ((0.0017146142976041522 + 7.862621701061835e-05 * d) + d2 * (0.0004665195158120683 - 0.00030657764658005376 * d))) + d8 * ((0.00017531085350285308 - 5.005791017926725e-05 * d) + d2 * 7.245678915851049e-06);
}
static inline double sinc_half_turn(double w) {
    double w2 = w * w, w4 = w2 * w2;
    return ((1.0 - 0.16666666666666408 * w) + w2 * (0.008333333333298566 - 0.0001984126982759869 * w)) + w4 * ((2.7557316823424657e-06 - 2.50518897024255e-08 * w) + w2 * (1.6048274499426567e-10 - 7.374417884486096e-13 * w));
}
static inline double sinc_turn(double w) {
    double w2 = w * w, w4 = w2 * w2, w8 = w4 * w4;
    return (((1.0 - 0.16666666666666663 * w) + w2 * (0.00833333333333319 - 0.00019841269841247016 * w)) + w4 * ((2.7557319222132343e-06 - 2.5052108297603348e-08 * w) + w2 * (1.605904124045843e-10 - 7.647114401599521e-13 * w))) + w8 * ((2.8108541700257953e-15 - 8.174696790696833e-18 * w) + w2 * 1.7578373044223255e-20);
}

/* slerp of a and b, unit to within UNIT_EXACT and on one side, for t in [-1, 2]:
   (sin((1 - t) theta) a + sin(t theta) b) / sin(theta) = g ((1 - t) S(((1 - t) theta)^2) a +
   t S((t theta)^2) b), with S(x^2) = sin(x)/x and g = theta / sin(theta). theta^2 comes from
   d = |a - b|^2 (no cancellation for nearly equal inputs: exact there), the two ends' factors are
   independent (two short chains, not one long one), and the length comes from one Newton step on
   the sum, which g makes unit to within 2e-9 before it: no square root, division or libm call.
   The common cases take the shorter polynomials: d <= 1 (theta up to 60 degrees) and t in [0, 1]
   (both angles within pi/2). Taking inputs within UNIT_EXACT of unit length as unit moves the
   result by less than 4 UNIT_EXACT rad. Within 3e-14 rad of the exact slerp (spec/c/test_quat.c
   checks it against a long-double reference; what larger random trials gave: manual/performance.md,
   "Slerp"). */
#define UNIT_EXACT 1e-15
static inline void slerp_unit(double ax, double ay, double az, double aw, double bx, double by, double bz, double bw,
                              double t, sn_quat *out) {
    double dx = ax - bx, dy = ay - by, dz = az - bz, dw = aw - bw, d = sumsq4(dx, dy, dz, dw);
    double t1 = 1.0 - t, q, g, s0, s1, k0, k1, px, py, pz, pw, s;
    if (d > 2.0) d = 2.0; /* rounding */
    if (d <= 1.0) {
        q = theta2_over_near(d);
        g = theta_over_sin_near(d);
    } else {
        q = theta2_over(d);
        g = theta_over_sin(d);
    }
    if (t >= 0.0 && t <= 1.0) {
        s0 = sinc_half_turn(((t1 * t1) * d) * q);
        s1 = sinc_half_turn(((t * t) * d) * q);
    } else {
        s0 = sinc_turn(((t1 * t1) * d) * q);
        s1 = sinc_turn(((t * t) * d) * q);
    }
    k0 = (g * t1) * s0;
    k1 = (g * t) * s1;
    px = k0 * ax + k1 * bx; py = k0 * ay + k1 * by; pz = k0 * az + k1 * bz; pw = k0 * aw + k1 * bw;
    s = 1.5 - 0.5 * sumsq4(px, py, pz, pw); /* one Newton step */
    *out = qmake(px * s, py * s, pz * s, pw * s);
}

SLOW_PATH static sn_status slerp_general(const sn_quat *a, const sn_quat *b, double t, sn_quat *out, sn_error *err) {
    sn_quat ua, ub;
    sn_status st = aligned_pair(a, b, &ua, &ub, err);
    if (st != SN_OK) return st;
    if (!(t >= -1.0 && t <= 2.0)) return slerp_far(&ua, &ub, t, out, err);
    slerp_unit(ua.x, ua.y, ua.z, ua.w, ub.x, ub.y, ub.z, ub.w, t, out);
    return SN_OK;
}

/* slerp of inputs near unit length (to NEAR_UNIT: float32 keys, drifted ones), normalised by the
   series, and t in [-1, 2]; out of line, so that the unit case keeps a short body */
OUT_OF_LINE static sn_status slerp_near_unit(const sn_quat *a, const sn_quat *b, double t, double sa, double sb,
                                             sn_quat *out, sn_error *err) {
    double ka, kb;
    if (!(fabs(sa - 1.0) < NEAR_UNIT && fabs(sb - 1.0) < NEAR_UNIT && t >= -1.0 && t <= 2.0))
        return slerp_general(a, b, t, out, err);
    ka = near_unit_scale(sa);
    kb = near_unit_scale(sb);
    if ((a->x * b->x + a->y * b->y) + (a->z * b->z + a->w * b->w) < 0.0) kb = -kb;
    slerp_unit(a->x * ka, a->y * ka, a->z * ka, a->w * ka, b->x * kb, b->y * kb, b->z * kb, b->w * kb, t, out);
    return SN_OK;
}

/* The common case inline: unit inputs (to UNIT_EXACT) and t in [-1, 2], all in registers. */
sn_status sn_quat_slerp(const sn_quat *a, const sn_quat *b, double t, sn_quat *out, sn_error *err) {
    double ax = a->x, ay = a->y, az = a->z, aw = a->w, bx = b->x, by = b->y, bz = b->z, bw = b->w;
    double sa = sumsq4(ax, ay, az, aw), sb = sumsq4(bx, by, bz, bw);
    if (!(fabs(sa - 1.0) < UNIT_EXACT && fabs(sb - 1.0) < UNIT_EXACT && t >= -1.0 && t <= 2.0))
        return slerp_near_unit(a, b, t, sa, sb, out, err);
    if ((ax * bx + ay * by) + (az * bz + aw * bw) < 0.0) {
        bx = -bx; by = -by; bz = -bz; bw = -bw;
    }
    slerp_unit(ax, ay, az, aw, bx, by, bz, bw, t, out);
    return SN_OK;
}

sn_status sn_quat_nlerp(const sn_quat *a, const sn_quat *b, double t, sn_quat *out, sn_error *err) {
    sn_quat ua, ub, d;
    sn_status st = aligned_pair(a, b, &ua, &ub, err);
    if (st != SN_OK) return st;
    d = qmake(ub.x - ua.x, ub.y - ua.y, ub.z - ua.z, ub.w - ua.w);
    if (fabs(t) <= PLAIN_T_HI) {
        ua = qmake(ua.x + t * d.x, ua.y + t * d.y, ua.z + t * d.z, ua.w + t * d.w);
    } else { /* the same direction divided by |t|, which the normalisation removes */
        double k = 1.0 / fabs(t), sg = t < 0.0 ? -1.0 : 1.0;
        if (!sn_isfinite(t)) return refuse(err, 3, NOT_FINITE, "'t'");
        ua = qmake(ua.x * k + sg * d.x, ua.y * k + sg * d.y, ua.z * k + sg * d.z, ua.w * k + sg * d.w);
    }
    /* never zero: for unit a, b in one hemisphere the line a + t (b - a) keeps a distance of at
       least cos 45 degrees from the origin */
    (void)unit4_quick(&ua, out);
    return SN_OK;
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

static void unit(const sn_quat *q, sn_quat *out) { (void)unit4(q, out); }

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
        if (dot_plain(&u, &ref) < 0.0) w = -w;
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
            sn_quat u, rel, axis;
            double w = ws[i] / wmax * k, th, lnl;
            if (w == 0.0) continue;
            unit(&qs[i], &u);
            rel = mul_plain(&mc, &u);
            if (rel.w < 0.0) rel = qscale(&rel, -1.0);
            (void)polar(&rel, &axis, &th, &lnl); /* log rel = (axis th, 0) */
            t.x += w * (axis.x * th); t.y += w * (axis.y * th); t.z += w * (axis.z * th);
        }
        (void)sn_quat_exp(&t, &step, NULL);
        m = mul_plain(&m, &step);
        unit(&m, &m);
        tl = len4(&t);
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
    if (dot_plain(out, &ref) < 0.0) *out = qscale(out, -1.0);
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
        (void)sn_quat_pow(&u, w, &p, NULL);
        acc = mul_plain(&acc, &p);
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
