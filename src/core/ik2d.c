/*
 * Inverse kinematics in the plane (ik2d.h): the DragonBones-shaped knee geometry shared with the
 * rigs' IK constraints, the two-bone, aim and chain solves on positions, returning turns.
 */
#include "ik2d.h"

#include <math.h>

#define PI2D 3.141592653589793
#define TAU2D (3.141592653589793 * 2.0)

/// v wrapped into [-pi, pi) (fmod, as rig2d's r2_normalize).
static double wrap(double v) {
    v = fmod(v + PI2D, TAU2D);
    return v + (v > 0.0 ? -PI2D : PI2D);
}

/// Whether the n points of p (x, y pairs) are finite and within SN_IK_MAX_COORD.
static int points_ok(const double *p, int n) {
    for (int i = 0; i < 2 * n; i++)
        if (!sn_isfinite(p[i]) || fabs(p[i]) > SN_IK_MAX_COORD) return 0;
    return 1;
}

static sn_status check_common(const double *p, int n, const double *target, double weight, sn_error *err) {
    if (!points_ok(p, n))
        return sn_fail_arg(err, 1, SN_EINVAL, "a point of the chain is not finite or beyond %g", SN_IK_MAX_COORD);
    if (!points_ok(target, 1))
        return sn_fail_arg(err, 2, SN_EINVAL, "the target is not finite or beyond %g", SN_IK_MAX_COORD);
    if (!(weight >= 0.0 && weight <= 1.0)) return sn_fail_range(err, 4, "weight", weight, 0.0, 1.0);
    return SN_OK;
}

double sn_ik2d_direction(const double *from, const double *to) { return atan2(to[1] - from[1], to[0] - from[0]); }

unsigned sn_ik2d_knee(const double *root, double lP, double lPP, double lL, double lLL, const double *target,
                      int positive, double *angle) {
    /* DragonBones' IKConstraint._computeB, in its order of operations (rig2d_world.c relies on it) */
    double tx = target[0], ty = target[1];
    double dX = tx - root[0], dY = ty - root[1];
    double lTT = dX * dX + dY * dY, lT = sqrt(lTT);
    if (lL + lP <= lT || lT + lL <= lP || lT + lP <= lL) {
        double a = atan2(ty - root[1], tx - root[0]);
        if (!(lL + lP <= lT) && lP < lL) a += PI2D;
        *angle = a;
        return SN_IK_UNREACHABLE;
    }
    double h = (lPP - lLL + lTT) / (2.0 * lTT);
    double rr2 = lPP - h * h * lTT;
    double rr = sqrt(rr2 > 0.0 ? rr2 : 0.0) / lT; /* rounding can take a grazing reach below 0 (a NaN in DragonBones) */
    double hX = root[0] + (dX * h), hY = root[1] + (dY * h);
    double rX = -dY * rr, rY = dX * rr;
    double mx, my;
    if (positive) {
        mx = hX - rX;
        my = hY - rY;
    } else {
        mx = hX + rX;
        my = hY + rY;
    }
    *angle = atan2(my - root[1], mx - root[0]);
    return 0;
}

/* ---- two-bone ------------------------------------------------------------------------------- */

sn_status sn_ik2d_two_bone(const double *p, const double *target, int bend, double soften, double weight,
                           double *turn, unsigned *flags, sn_error *err) {
    unsigned f = 0;
    sn_status st = check_common(p, 3, target, weight, err);
    if (st != SN_OK) return st;
    if (bend != 1 && bend != -1) return sn_fail_arg(err, 3, SN_EINVAL, "bend %d must be 1 or -1", bend);
    if (!(soften > 0.0 && soften <= 1.0)) return sn_fail_range(err, 3, "soften", soften, 0.0, 1.0);
    const double *root = p, *mid = p + 2, *tip = p + 4;
    double d1x = mid[0] - root[0], d1y = mid[1] - root[1], d2x = tip[0] - mid[0], d2y = tip[1] - mid[1];
    double l1sq = d1x * d1x + d1y * d1y, l2sq = d2x * d2x + d2y * d2y, l1 = sqrt(l1sq), l2 = sqrt(l2sq);
    double reach = l1 + l2;
    turn[0] = turn[1] = 0.0;
    if (!(reach > SN_IK_MIN_LENGTH) || !(l1 > SN_IK_MIN_RATIO * reach) || !(l2 > SN_IK_MIN_RATIO * reach)) {
        if (flags) *flags = SN_IK_DEGENERATE;
        return SN_OK;
    }
    double t[2] = {target[0], target[1]};
    double dx = t[0] - root[0], dy = t[1] - root[1], lt = sqrt(dx * dx + dy * dy);
    if (!(lt > SN_IK_MIN_RATIO * reach)) {
        if (flags) *flags = SN_IK_TARGET_AT_ROOT;
        return SN_OK;
    }
    if (soften < 1.0) {
        double da = soften * reach, ds = reach - da;
        if (lt > da) {
            double k = (da + ds * (1.0 - exp(-(lt - da) / ds))) / lt;
            t[0] = root[0] + dx * k;
            t[1] = root[1] + dy * k;
            f |= SN_IK_SOFTENED;
        }
    }
    double a;
    f |= sn_ik2d_knee(root, l1, l1sq, l2, l2sq, t, bend > 0, &a);
    double a0 = atan2(d1y, d1x), b0 = atan2(d2y, d2x);
    double m[2] = {root[0] + l1 * cos(a), root[1] + l1 * sin(a)};
    double b = sn_ik2d_direction(m, t);
    double t0 = wrap(a - a0), t1 = wrap((b - b0) - (a - a0));
    if (!(f & (SN_IK_UNREACHABLE | SN_IK_SOFTENED)) && weight == 1.0) f |= SN_IK_REACHED;
    turn[0] = weight == 1.0 ? t0 : t0 * weight;
    turn[1] = weight == 1.0 ? t1 : t1 * weight;
    if (flags) *flags = f;
    return SN_OK;
}

/* ---- aim ------------------------------------------------------------------------------------ */

sn_status sn_ik2d_aim(const double *origin, const double *from, const double *dir, const double *target,
                      double limit, double weight, double *turn, unsigned *flags, sn_error *err) {
    unsigned f = 0;
    sn_status st = check_common(origin, 1, target, weight, err);
    if (st != SN_OK) return st;
    if (!points_ok(from, 1) || !points_ok(dir, 1))
        return sn_fail_arg(err, 1, SN_EINVAL, "the aim's start or direction is not finite or beyond %g", SN_IK_MAX_COORD);
    double fl = sqrt(dir[0] * dir[0] + dir[1] * dir[1]);
    if (!(fl > 0.0)) return sn_fail_arg(err, 1, SN_EINVAL, "the aim's direction is zero");
    if (!(limit > 0.0 && limit <= PI2D)) return sn_fail_range(err, 3, "limit", limit, 0.0, PI2D);
    *turn = 0.0;
    double fx = dir[0] / fl, fy = dir[1] / fl;
    double ox = target[0] - origin[0], oy = target[1] - origin[1], rho = sqrt(ox * ox + oy * oy);
    double bx = from[0] - origin[0], by = from[1] - origin[1];
    double c = fx * by - fy * bx; /* signed distance of the line from the origin */
    double scale = rho + sqrt(bx * bx + by * by);
    if (!(rho > fabs(c)) || !(rho > SN_IK_MIN_RATIO * scale)) {
        if (flags) *flags = SN_IK_DEGENERATE;
        return SN_OK;
    }
    double s = asin(c / rho);
    if (!(rho * cos(s) - (fx * bx + fy * by) > SN_IK_MIN_RATIO * scale)) { /* the target behind `from` */
        if (flags) *flags = SN_IK_DEGENERATE;
        return SN_OK;
    }
    double d = wrap(atan2(oy, ox) - (atan2(fy, fx) + s));
    double ad = fabs(d);
    if (ad > limit && limit < PI2D) {
        double x = (ad - limit) / (PI2D - limit);
        if (x > 1.0) x = 1.0;
        double k = limit * (1.0 - x * x * (3.0 - 2.0 * x));
        d = d < 0.0 ? -k : k;
        f |= SN_IK_LIMITED;
    }
    if (!(f & SN_IK_LIMITED) && weight == 1.0) f |= SN_IK_REACHED;
    *turn = weight == 1.0 ? d : d * weight;
    if (flags) *flags = f;
    return SN_OK;
}

/* ---- chains --------------------------------------------------------------------------------- */

/// A chain solve's state: the input joints, bone lengths and input angles, the turns so far and
/// the joints they place.
typedef struct chain2d {
    int n;
    double len[SN_IK2D_CHAIN_MAX], a0[SN_IK2D_CHAIN_MAX];  ///< lengths, input world angles
    double d[SN_IK2D_CHAIN_MAX];                            ///< turns (relative to the previous bone)
    double x[SN_IK2D_CHAIN_MAX + 1], y[SN_IK2D_CHAIN_MAX + 1];
    const double *lo, *hi;
    int limited;
} chain2d;

/// Joints from the turns (forward kinematics from the root).
static void chain_place(chain2d *c, const double *d) {
    double acc = 0.0;
    for (int i = 0; i < c->n; i++) {
        acc += d[i];
        double a = c->a0[i] + acc;
        c->x[i + 1] = c->x[i] + c->len[i] * cos(a);
        c->y[i + 1] = c->y[i] + c->len[i] * sin(a);
    }
}

static double chain_gap(const chain2d *c, const double *t) {
    double dx = t[0] - c->x[c->n], dy = t[1] - c->y[c->n];
    return sqrt(dx * dx + dy * dy);
}

static double clamp_turn(chain2d *c, int i, double v) {
    if (c->lo) {
        if (v < c->lo[i]) v = c->lo[i], c->limited = 1;
        if (v > c->hi[i]) v = c->hi[i], c->limited = 1;
    }
    return v;
}

/// The joints after j (to the tip) turned about joint j by the angle of cosine co and sine si.
static void turn_after(chain2d *c, int j, double co, double si) {
    double px = c->x[j], py = c->y[j];
    for (int k = j + 1; k <= c->n; k++) {
        double rx = c->x[k] - px, ry = c->y[k] - py;
        c->x[k] = px + co * rx - si * ry;
        c->y[k] = py + si * rx + co * ry;
    }
}

/// FABRIK's backward pass: the joints' positions (qx, qy) from the target t down to the root, each
/// at its bone's length from the next one.
static void fabrik_backward(const chain2d *c, const double *t, double *qx, double *qy) {
    int n = c->n;
    qx[n] = t[0];
    qy[n] = t[1];
    for (int i = n - 1; i >= 0; i--) {
        double ux = c->x[i] - qx[i + 1], uy = c->y[i] - qy[i + 1], l = sqrt(ux * ux + uy * uy);
        if (!(l > 0.0)) { /* on the next joint: keep the bone's present direction */
            ux = c->x[i] - c->x[i + 1];
            uy = c->y[i] - c->y[i + 1];
            l = sqrt(ux * ux + uy * uy);
        }
        double k = l > 0.0 ? c->len[i] / l : 0.0;
        qx[i] = qx[i + 1] + ux * k;
        qy[i] = qy[i + 1] + uy * k;
    }
}

/// One CCD sweep, the tip's bone first: each bone turns the tip toward the target, within bounds.
static void chain_ccd(chain2d *c, const double *t) {
    for (int j = c->n - 1; j >= 0; j--) {
        if (!(c->len[j] > 0.0)) continue;
        double px = c->x[j], py = c->y[j];
        double ux = c->x[c->n] - px, uy = c->y[c->n] - py, vx = t[0] - px, vy = t[1] - py;
        double cs = ux * vx + uy * vy, sn = ux * vy - uy * vx;
        if (cs == 0.0 && sn == 0.0) continue;
        double nd = clamp_turn(c, j, c->d[j] + atan2(sn, cs));
        double delta = nd - c->d[j];
        if (delta == 0.0) continue;
        c->d[j] = nd;
        double co = cos(delta), si = sin(delta);
        turn_after(c, j, co, si);
    }
}

/// One FABRIK iteration: backward from the target, forward from the root with each turn bounded.
static void chain_fabrik(chain2d *c, const double *t) {
    double qx[SN_IK2D_CHAIN_MAX + 1], qy[SN_IK2D_CHAIN_MAX + 1];
    int n = c->n;
    fabrik_backward(c, t, qx, qy);
    double parent_new = 0.0, parent_old = 0.0, acc = 0.0;
    for (int i = 0; i < n; i++) {
        double ux = qx[i + 1] - c->x[i], uy = qy[i + 1] - c->y[i];
        double nd = c->d[i];
        if (c->len[i] > 0.0 && (ux != 0.0 || uy != 0.0))
            nd = clamp_turn(c, i, wrap((atan2(uy, ux) - parent_new) - (c->a0[i] - parent_old)));
        c->d[i] = nd;
        acc += nd;
        double a = c->a0[i] + acc;
        c->x[i + 1] = c->x[i] + c->len[i] * cos(a);
        c->y[i + 1] = c->y[i] + c->len[i] * sin(a);
        parent_new = a;
        parent_old = c->a0[i];
    }
}

/// Free chains iterate on positions only (no angles): one CCD sweep, each joint turning the rest
/// by the rotation taking the tip's direction onto the target's (cosine and sine from the dot and
/// cross products), and one FABRIK iteration with the bones kept at their lengths.
static void free_ccd(chain2d *c, const double *t) {
    for (int j = c->n - 1; j >= 0; j--) {
        if (!(c->len[j] > 0.0)) continue;
        double px = c->x[j], py = c->y[j];
        double ux = c->x[c->n] - px, uy = c->y[c->n] - py, vx = t[0] - px, vy = t[1] - py;
        double l = sqrt((ux * ux + uy * uy) * (vx * vx + vy * vy));
        if (!(l > 0.0)) continue;
        double co = (ux * vx + uy * vy) / l, si = (ux * vy - uy * vx) / l;
        turn_after(c, j, co, si);
    }
}

static void free_fabrik(chain2d *c, const double *t) {
    double qx[SN_IK2D_CHAIN_MAX + 1], qy[SN_IK2D_CHAIN_MAX + 1];
    int n = c->n;
    fabrik_backward(c, t, qx, qy);
    for (int i = 0; i < n; i++) {
        double ux = qx[i + 1] - c->x[i], uy = qy[i + 1] - c->y[i], l = sqrt(ux * ux + uy * uy);
        if (!(l > 0.0)) { /* keep the bone's direction */
            ux = c->x[i + 1] - c->x[i];
            uy = c->y[i + 1] - c->y[i];
            l = sqrt(ux * ux + uy * uy);
        }
        double k = l > 0.0 ? c->len[i] / l : 0.0;
        double nx = c->x[i] + ux * k, ny = c->y[i] + uy * k;
        c->x[i + 1] = nx;
        c->y[i + 1] = ny;
    }
}

/// The turns that place the bones along the joints' present segments (zero-length bones: 0).
static void turns_of_points(chain2d *c) {
    double prev_new = 0.0, prev_old = 0.0;
    for (int i = 0; i < c->n; i++) {
        double ux = c->x[i + 1] - c->x[i], uy = c->y[i + 1] - c->y[i];
        double a = c->len[i] > 0.0 && (ux != 0.0 || uy != 0.0) ? atan2(uy, ux) : c->a0[i] + (prev_new - prev_old);
        c->d[i] = wrap((a - prev_new) - (c->a0[i] - prev_old));
        prev_new = a;
        prev_old = c->a0[i];
    }
}

sn_status sn_ik2d_chain(const double *p, int bones, const double *target, sn_ik_method method, int iterations,
                        double tolerance, const double *lo, const double *hi, double weight, double *turn,
                        double *left, unsigned *flags, sn_error *err) {
    if (bones < 1 || bones > SN_IK2D_CHAIN_MAX) return sn_fail_range(err, 3, "bone count", bones, 1, SN_IK2D_CHAIN_MAX);
    sn_status st = check_common(p, bones + 1, target, weight, err);
    if (st != SN_OK) return st;
    if (method != SN_IK_FABRIK && method != SN_IK_CCD) return sn_fail_arg(err, 3, SN_EINVAL, "unknown method %d", (int)method);
    if (iterations < 1 || iterations > SN_IK_CHAIN_MAX_ITERATIONS)
        return sn_fail_range(err, 3, "iterations", iterations, 1, SN_IK_CHAIN_MAX_ITERATIONS);
    if (!(tolerance >= 0.0) || !sn_isfinite(tolerance)) return sn_fail_arg(err, 3, SN_EINVAL, "tolerance must be finite and >= 0");
    if ((lo == NULL) != (hi == NULL)) return sn_fail_arg(err, 3, SN_EINVAL, "give both bounds or neither");
    if (lo)
        for (int i = 0; i < bones; i++)
            if (!(lo[i] <= hi[i]) || lo[i] != lo[i] || hi[i] != hi[i])
                return sn_fail_arg(err, 3, SN_EINVAL, "bounds of bone %d: %g .. %g is no range", i + 1, lo[i], hi[i]);
    chain2d c;
    double total = 0.0, best[SN_IK2D_CHAIN_MAX];
    unsigned f = 0;
    c.n = bones;
    c.lo = lo;
    c.hi = hi;
    c.limited = 0;
    c.x[0] = p[0];
    c.y[0] = p[1];
    for (int i = 0; i < bones; i++) {
        double ux = p[2 * i + 2] - p[2 * i], uy = p[2 * i + 3] - p[2 * i + 1];
        c.len[i] = sqrt(ux * ux + uy * uy);
        c.a0[i] = atan2(uy, ux);
        c.d[i] = 0.0;
        c.x[i + 1] = p[2 * i + 2];
        c.y[i + 1] = p[2 * i + 3];
        total += c.len[i];
        turn[i] = 0.0;
    }
    if (!(total > SN_IK_MIN_LENGTH)) {
        if (left) *left = chain_gap(&c, target);
        if (flags) *flags = SN_IK_DEGENERATE;
        return SN_OK;
    }
    {
        double dx = target[0] - p[0], dy = target[1] - p[1];
        if (sqrt(dx * dx + dy * dy) > total) f |= SN_IK_UNREACHABLE;
    }
    /* bring each bone within its bounds first: the limited input, the fallback */
    if (lo) {
        for (int i = 0; i < bones; i++) c.d[i] = clamp_turn(&c, i, 0.0);
        chain_place(&c, c.d);
    }
    double start = chain_gap(&c, target), gap = start;
    for (int i = 0; i < bones; i++) best[i] = c.d[i];
    for (int it = 0; it < iterations && gap > tolerance; it++) {
        double before = gap;
        if (!lo) {
            if (method == SN_IK_CCD)
                free_ccd(&c, target);
            else
                free_fabrik(&c, target);
        } else if (method == SN_IK_CCD) {
            chain_ccd(&c, target);
        } else {
            chain_fabrik(&c, target);
            gap = chain_gap(&c, target);
            if (lo && before - gap < 0.1 * before) chain_ccd(&c, target); /* limits can hold FABRIK still */
        }
        gap = chain_gap(&c, target);
    }
    if (!lo) turns_of_points(&c);
    chain_place(&c, c.d); /* the joints exactly as the turns place them */
    gap = chain_gap(&c, target);
    if (gap <= start) {
        for (int i = 0; i < bones; i++) best[i] = c.d[i];
    } else {
        gap = start; /* never worse than the (limited) input */
    }
    if (c.limited) f |= SN_IK_LIMITED;
    if (gap <= tolerance && weight == 1.0) f |= SN_IK_REACHED;
    for (int i = 0; i < bones; i++) turn[i] = weight == 1.0 ? best[i] : best[i] * weight;
    if (left) {
        if (weight != 1.0) {
            chain_place(&c, turn);
            gap = chain_gap(&c, target);
        }
        *left = gap;
    }
    if (flags) *flags = f;
    return SN_OK;
}
