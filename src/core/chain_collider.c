/*
 * Dynamic bones, colliders: their definitions (validation, adding and moving them), the signed
 * distances of spheres, round cones (tapered capsules) and planes, the pushes that keep a
 * particle out of (or inside) them, and the collision passes of a particle after its solve: the
 * near colliders while it stays in the broad phase's ball, a swept test against tunnelling, and
 * a joint projection for a particle wedged between colliders. Which colliders are near is
 * chain_broadphase.c's.
 */
#include "chain_internal.h"

/* ---- definitions ------------------------------------------------------------------------------ */

/* a radius (arg 1), named `what`: finite and in [0, SN_CHAIN_MAX_COORD] */
static sn_status check_radius(double r, const char *what, sn_error *err) {
    if (!sn_isfinite(r)) return sn_fail_arg(err, 1, SN_EINVAL, "%s is not finite", what);
    if (r < 0.0 || r > SN_CHAIN_MAX_COORD) return sn_fail_range(err, 1, what, r, 0.0, SN_CHAIN_MAX_COORD);
    return SN_OK;
}

static sn_status check_capsule(const double *a, const double *b, double ra, double rb, sn_error *err) {
    double d[3], len;
    sn_status st;
    if ((st = check_coords(a, 1, "capsule 'a'", err)) != SN_OK) return st;
    if ((st = check_coords(b, 1, "capsule 'b'", err)) != SN_OK) return st;
    if ((st = check_radius(ra, "capsule 'radius'", err)) != SN_OK) return st;
    if ((st = check_radius(rb, "capsule 'radius_b'", err)) != SN_OK) return st;
    sub3(d, b, a);
    len = len3(d);
    if (!(len > 0.0)) return sn_fail_arg(err, 1, SN_EINVAL, "capsule ends 'a' and 'b' coincide");
    if (fabs(ra - rb) >= len)
        return sn_fail_arg(err, 1, SN_EINVAL, "capsule radii %g and %g differ by its length %g or more (one end contains the other)",
                           ra, rb, len);
    return SN_OK;
}

static sn_status check_plane(const double *a, const double *b, sn_error *err) {
    sn_status st;
    if ((st = check_coords(a, 1, "plane 'point'", err)) != SN_OK) return st;
    if (!finite3(b)) return sn_fail_arg(err, 1, SN_EINVAL, "plane 'normal' is not finite");
    if (!(len3(b) > 0.0)) return sn_fail_arg(err, 1, SN_EINVAL, "plane 'normal' is zero");
    if (!sn_isfinite(len3(b))) return sn_fail_arg(err, 1, SN_EINVAL, "plane 'normal' is too long (its length overflows)");
    return SN_OK;
}

sn_status sn_collider_validate(const sn_collider_def *def, sn_error *err) {
    double a[3], b[3];
    sn_status st;
    set3(a, def->a.x, def->a.y, def->a.z);
    set3(b, def->b.x, def->b.y, def->b.z);
    switch (def->shape) {
    case SN_COLLIDER_SPHERE:
        if ((st = check_coords(a, 1, "sphere 'center'", err)) != SN_OK) return st;
        return check_radius(def->radius, "sphere 'radius'", err);
    case SN_COLLIDER_CAPSULE:
        return check_capsule(a, b, def->radius, def->radius_b, err);
    case SN_COLLIDER_PLANE:
        return check_plane(a, b, err);
    default:
        return sn_fail_arg(err, 1, SN_EINVAL, "unknown collider shape %d", (int)def->shape);
    }
}

static void collider_set(collider *k, const sn_collider_def *def) {
    double d[3];
    k->def = *def;
    set3(k->a, def->a.x, def->a.y, def->a.z);
    set3(k->b, def->b.x, def->b.y, def->b.z);
    set3(k->u, 0, 0, 0);
    k->len = 0.0;
    k->rmin = k->rmax = def->radius;
    k->s = 0.0;
    k->cs = 1.0;
    if (def->shape == SN_COLLIDER_CAPSULE) {
        sub3(d, k->b, k->a);
        k->len = unit3(k->u, d);
        if (def->radius_b > k->rmax) k->rmax = def->radius_b;
        if (def->radius_b < k->rmin) k->rmin = def->radius_b;
        k->s = (def->radius - def->radius_b) / k->len;
        k->cs = sqrt(1.0 - k->s * k->s);
    } else if (def->shape == SN_COLLIDER_PLANE) {
        unit3(k->u, k->b);
    }
    k->ua = dot3(k->u, k->a);
    k->kind = def->inside ? KIND_INSIDE : def->shape == SN_COLLIDER_PLANE ? KIND_PLANE : KIND_ROUND;
}

/* SN_OK when k (0-based, arg 1) is a collider of c */
static sn_status check_collider(const sn_chain *c, int k, sn_error *err) {
    if (k >= 0 && k < c->ncol) return SN_OK;
    return sn_fail_arg(err, 1, SN_ERANGE, "collider %d is out of range (1 .. %d)", k + 1, c->ncol);
}

sn_status sn_chain_add_collider(sn_chain *c, const sn_collider_def *def, int *index, sn_error *err) {
    sn_status st = sn_collider_validate(def, err);
    if (st != SN_OK) return st;
    if (c->ncol >= c->maxcol)
        return sn_fail(err, SN_ERANGE, "no room for another collider ('max_colliders' is %d)", c->maxcol);
    collider_set(&c->col[c->ncol], def);
    c->nflat += c->col[c->ncol].kind != KIND_ROUND;
    if (c->ncol < NEAR_SOA) {
        cores_set(&c->all, c->ncol, &c->col[c->ncol]);
        for (c->nall = c->ncol + 1; c->nall % 4 != 0; c->nall++) cores_set(&c->all, c->nall, NULL);
    }
    if (index != NULL) *index = c->ncol;
    c->ncol++;
    return SN_OK;
}

sn_status sn_chain_move_collider(sn_chain *c, int k, const sn_collider_def *def, sn_error *err) {
    sn_status st = check_collider(c, k, err);
    if (st != SN_OK) return st;
    st = sn_collider_validate(def, err);
    if (st != SN_OK) {
        if (err != NULL) err->arg = 2;
        return st;
    }
    c->nflat -= c->col[k].kind != KIND_ROUND;
    collider_set(&c->col[k], def);
    c->nflat += c->col[k].kind != KIND_ROUND;
    if (k < NEAR_SOA) cores_set(&c->all, k, &c->col[k]);
    return SN_OK;
}

sn_status sn_chain_get_collider(const sn_chain *c, int k, sn_collider_def *out, sn_error *err) {
    sn_status st = check_collider(c, k, err);
    if (st != SN_OK) return st;
    *out = c->col[k].def;
    return SN_OK;
}

/* ---- shapes ------------------------------------------------------------------------------- */

/* Signed distance from p to collider k with its radii grown by `grow` (clamped at 0), and the
   unit outward gradient g. `hint` is a direction used where the gradient is undefined (the
   centre of a sphere, the axis of a capsule), so that every point gets a push direction. */
static double collider_sdf(const collider *k, const double *p, double grow, const double *hint, double *g) {
    double d[3];
    sub3(d, p, k->a);
    if (k->def.shape == SN_COLLIDER_PLANE) {
        copy3(g, k->u);
        return dot3(d, k->u) - grow;
    }
    if (k->def.shape == SN_COLLIDER_SPHERE) {
        double r = k->def.radius + grow, l = unit3(g, d);
        if (l == 0.0) unit3(g, hint);
        if (l == 0.0 && dot3(g, g) == 0.0) set3(g, 0.0, 1.0, 0.0);
        return l - (r > 0.0 ? r : 0.0);
    } else {
        /* round cone: the convex hull of the spheres (a, r1) and (b, r2); in the plane of the axis
           with x radial and y along the axis, the side line has the unit normal (c, s),
           s = (r1 - r2) / len; it touches sphere a at tangential coordinate 0 and sphere b at c len */
        double r1 = k->def.radius + grow, r2 = k->def.radius_b + grow, s = k->s, cs = k->cs, y, x, tau, rad[3], er[3];
        if (r1 < 0.0 || r2 < 0.0) { /* a radius shrunk below zero (inside colliders): recompute the taper */
            if (r1 < 0.0) r1 = 0.0;
            if (r2 < 0.0) r2 = 0.0;
            s = (r1 - r2) / k->len;
            cs = sqrt(1.0 - s * s);
        }
        y = dot3(d, k->u);
        madd3(rad, d, -y, k->u);
        x = unit3(er, rad);
        tau = cs * y - s * x;
        if (tau < 0.0) {
            double l = unit3(g, d);
            return l - r1;
        }
        if (tau > cs * k->len) {
            double e[3], l;
            sub3(e, p, k->b);
            l = unit3(g, e);
            return l - r2;
        }
        if (x == 0.0) perp3(er, k->u, hint);
        set3(g, cs * er[0] + s * k->u[0], cs * er[1] + s * k->u[1], cs * er[2] + s * k->u[2]);
        return cs * x + s * y - r1;
    }
}

/* The point of the segment s0 + t m (t in [0, 1]) closest to the core of collider k (the centre
   of a sphere, the axis of a capsule); returns t. */
static double closest_on_motion(const collider *k, const double *s0, const double *m) {
    double mm = dot3(m, m), r[3];
    if (mm == 0.0) return 0.0;
    sub3(r, s0, k->a);
    if (k->def.shape == SN_COLLIDER_SPHERE) return clamp01(-dot3(r, m) / mm);
    {
        /* closest points of the segments s0 + t m and a + v (b - a), t, v in [0, 1] */
        double e[3], ee, b, cc, f, den, t, v;
        sub3(e, k->b, k->a);
        ee = dot3(e, e);
        b = dot3(m, e);
        cc = dot3(m, r);
        f = dot3(e, r);
        den = mm * ee - b * b;
        t = den > 1e-12 * mm * ee ? clamp01((b * f - cc * ee) / den) : 0.0;
        v = (b * t + f) / ee;
        if (v < 0.0) t = clamp01(-cc / mm);
        else if (v > 1.0) t = clamp01((b - cc) / mm);
        return t;
    }
}

/* The collision constraint of collider k at x, wanted >= 0: the signed distance for an outside
   collider (grown by the particle radius r), its negative for an inside one (shrunk by r); g gets
   its gradient. */
static double collider_value(const collider *k, const double *x, double r, const double *hint, double *g) {
    double v;
    if (!k->def.inside) return collider_sdf(k, x, r, hint, g);
    v = -collider_sdf(k, x, -r, hint, g);
    set3(g, -g[0], -g[1], -g[2]);
    return v;
}

/* An outside sphere or round cone k against a particle of radius r at x: 0 when x is farther
   than `reach` from its core (nothing computed); else 1, with the signed distance in *sd and, when
   it is negative, the unit push direction in g. collider_sdf's geometry, sharing the projection
   on the axis with the reach test. */
static inline int round_test(const collider *k, const double *x, double r, double reach, const double *hint, double *g,
                             double *sd) {
    double d[3], rad[3], y, x2, core2, rx, tau, l;
    sub3(d, x, k->a);
    y = dot3(d, k->u); /* a sphere has u = 0 and len = 0 */
    madd3(rad, d, -y, k->u);
    x2 = dot3(rad, rad);
    if (y < 0.0) core2 = dot3(d, d);
    else if (y > k->len) core2 = x2 + (y - k->len) * (y - k->len);
    else core2 = x2;
    if (core2 > reach * reach) return 0;
    if (k->def.shape == SN_COLLIDER_SPHERE) {
        l = sqrt(x2);
        *sd = l - (k->def.radius + r);
        if (*sd < 0.0) {
            if (l > 0.0) set3(g, d[0] / l, d[1] / l, d[2] / l);
            else (void)collider_sdf(k, x, r, hint, g);
        }
        return 1;
    }
    rx = sqrt(x2);
    tau = k->cs * y - k->s * rx;
    if (tau < 0.0) { /* on the sphere at a */
        l = sqrt(x2 + y * y);
        *sd = l - (k->def.radius + r);
        if (*sd < 0.0 && l > 0.0) set3(g, d[0] / l, d[1] / l, d[2] / l);
    } else if (tau > k->cs * k->len) { /* on the sphere at b */
        l = sqrt(x2 + (y - k->len) * (y - k->len));
        *sd = l - (k->def.radius_b + r);
        if (*sd < 0.0 && l > 0.0) {
            madd3(d, d, -k->len, k->u);
            set3(g, d[0] / l, d[1] / l, d[2] / l);
        }
    } else { /* on the side */
        l = rx;
        *sd = k->cs * rx + k->s * y - (k->def.radius + r);
        if (*sd < 0.0 && l > 0.0) {
            double f = k->cs / rx;
            set3(g, f * rad[0] + k->s * k->u[0], f * rad[1] + k->s * k->u[1], f * rad[2] + k->s * k->u[2]);
        }
    }
    if (*sd < 0.0 && !(l > 0.0)) (void)collider_sdf(k, x, r, hint, g); /* on the core: the hint decides */
    return 1;
}

/* ---- pushes ------------------------------------------------------------------------------- */

/* A plane (a half-space: nothing to tunnel through) or an inside collider k against a particle
   of radius r at x: moves x onto its surface when it is on the wrong side; returns 1 if it did. */
static int push_flat_or_inside(const collider *k, double *x, double r, const double *hint) {
    double sd, g[3];
    if (k->kind == KIND_PLANE) {
        sd = dot3(x, k->u) - k->ua - r;
        if (!(sd < 0.0)) return 0;
        madd3(x, x, -sd, k->u);
        return 1;
    }
    sd = collider_sdf(k, x, -r, hint, g);
    if (!(sd > 0.0)) return 0;
    madd3(x, x, -sd, g);
    return 1;
}

/* The swept test of a particle of radius r whose step moved it from s0 by m (of length mlen),
   outside the round collider k at both ends (by sd at the end, less than mlen): when the motion
   passed through k, x is put where it entered (found by bisection) and 1 returned. */
static int stop_at_entry(const collider *k, const double *s0, const double *m, double mlen, double sd, double r,
                         const double *hint, double *x) {
    double g[3], sd0 = collider_sdf(k, s0, r, hint, g), t, q[3], lo, hi;
    int it;
    if (sd0 < 0.0 || sd0 + sd >= mlen) return 0;
    t = closest_on_motion(k, s0, m);
    madd3(q, s0, t, m);
    if (collider_sdf(k, q, r, hint, g) >= 0.0) return 0;
    lo = 0.0; /* outside */
    hi = t;   /* inside */
    for (it = 0; it < SWEEP_BISECTIONS; it++) {
        double mid = 0.5 * (lo + hi);
        madd3(q, s0, mid, m);
        if (collider_sdf(k, q, r, hint, g) < 0.0) hi = mid;
        else lo = mid;
    }
    madd3(x, s0, lo, m);
    return 1;
}

/* Moves x onto every violated constraint at once: dx = sum l_j g_j with g_i . dx = -c_i for the
   (at most 3) deepest violated colliders, a Newton step on the active set. For a particle wedged
   between colliders (a capsule on a floor), where projecting onto one after the other converges
   slowly. Returns 0 when nothing is violated. */
static int project_jointly(const sn_chain *c, double *x, double r, const double *hint) {
    double gs[3][3], cs[3], G[9], l[3], det;
    int i, j, m = 0, a, *list = NULL, count = colliders_for(c, x, &list);
    for (j = 0; j < count; j++) {
        double g[3], v;
        i = list != NULL ? list[j] : j;
        v = collider_value(&c->col[i], x, r, hint, g);
        if (!(v < 0.0)) continue;
        if (m < 3) a = m++;
        else { /* keep the three deepest */
            a = cs[0] > cs[1] ? (cs[0] > cs[2] ? 0 : 2) : (cs[1] > cs[2] ? 1 : 2);
            if (v >= cs[a]) continue;
        }
        cs[a] = v;
        copy3(gs[a], g);
    }
    if (m == 0) return 0;
    for (i = 0; i < m; i++)
        for (a = 0; a < m; a++) G[3 * i + a] = dot3(gs[i], gs[a]);
    if (m == 1) det = G[0];
    else if (m == 2) det = G[0] * G[4] - G[1] * G[3];
    else det = G[0] * (G[4] * G[8] - G[5] * G[7]) - G[1] * (G[3] * G[8] - G[5] * G[6]) + G[2] * (G[3] * G[7] - G[4] * G[6]);
    if (!(fabs(det) > 1e-9)) { /* parallel gradients: the deepest alone */
        a = 0;
        for (i = 1; i < m; i++) if (cs[i] < cs[a]) a = i;
        madd3(x, x, -cs[a], gs[a]);
        return 1;
    }
    if (m == 1) l[0] = -cs[0] / G[0];
    else if (m == 2) {
        l[0] = (-cs[0] * G[4] + cs[1] * G[1]) / det;
        l[1] = (-cs[1] * G[0] + cs[0] * G[3]) / det;
    } else {
        double inv[9];
        inv[0] = (G[4] * G[8] - G[5] * G[7]) / det; inv[1] = (G[2] * G[7] - G[1] * G[8]) / det; inv[2] = (G[1] * G[5] - G[2] * G[4]) / det;
        inv[3] = (G[5] * G[6] - G[3] * G[8]) / det; inv[4] = (G[0] * G[8] - G[2] * G[6]) / det; inv[5] = (G[2] * G[3] - G[0] * G[5]) / det;
        inv[6] = (G[3] * G[7] - G[4] * G[6]) / det; inv[7] = (G[1] * G[6] - G[0] * G[7]) / det; inv[8] = (G[0] * G[4] - G[1] * G[3]) / det;
        for (i = 0; i < 3; i++) l[i] = -(inv[3 * i] * cs[0] + inv[3 * i + 1] * cs[1] + inv[3 * i + 2] * cs[2]);
    }
    for (i = 0; i < m; i++) madd3(x, x, l[i], gs[i]);
    return 1;
}

/* ---- the collision passes of a particle ---------------------------------------------------------- */

/* A pass over the near colliders while x is in the broad phase's ball: those whose bit is set in
   `bits` (every one after the first that moved x) but `skip` push x out of (or into) them.
   Returns how many moved it; *mover is the last. */
static inline int near_pass(const sn_chain *c, double *x, double r, const double *hint, unsigned bits, int skip,
                            int *mover) {
    int moved = 0, j, n = c->nnear;
    double g[3];
    for (j = 0; j < n; j++) {
        const collider *k;
        double sd;
        if (!moved && !((bits >> j) & 1u)) continue;
        if (c->near[j] == skip) continue; /* it alone moved the particle: now on its surface */
        k = &c->col[c->near[j]];
        if (k->kind == KIND_ROUND) {
            if (!round_test(k, x, r, k->rmax + r, hint, g, &sd) || sd >= 0.0) continue;
            madd3(x, x, -sd, g);
        } else if (!push_flat_or_inside(k, x, r, hint)) {
            continue;
        }
        moved++;
        *mover = c->near[j];
    }
    return moved;
}

/* A pass over the colliders that can reach x (the near ones while x is in the ball, else all)
   but `skip`, each pushing x out of (or into) it. In the `first` pass, a particle whose step
   (from s0 by m, m2 = |m|^2) was longer than an outside collider's thinnest radius is also
   swept against it (stop_at_entry); the sweep needs the whole path in the ball to use the near
   list. Returns how many moved x; *mover is the last. */
static int full_pass(const sn_chain *c, double *x, double r, const double *s0, const double *m, double m2,
                     const double *hint, int first, int skip, int *mover) {
    double g[3], mlen = -1.0;
    int moved = 0, i, j, *list, *start, count = colliders_for(c, x, &list);
    if (first && list != NULL) { /* the sweep needs the whole path in the ball: its start too */
        (void)colliders_for(c, s0, &start);
        if (start == NULL) {
            list = NULL;
            count = c->ncol;
        }
    }
    for (j = 0; j < count; j++) {
        const collider *k;
        double sd, reach;
        int sweep;
        i = list != NULL ? list[j] : j;
        if (i == skip) continue; /* it alone moved the particle: now on its surface */
        k = &c->col[i];
        if (k->kind == KIND_ROUND) {
            sweep = first && m2 > (k->rmin + r) * (k->rmin + r);
            if (sweep && mlen < 0.0) mlen = sqrt(m2);
            reach = k->rmax + r + (sweep ? mlen : 0.0);
            if (!round_test(k, x, r, reach, hint, g, &sd)) continue; /* out of reach */
            if (sd < 0.0) madd3(x, x, -sd, g);
            else if (!(sweep && sd < mlen && stop_at_entry(k, s0, m, mlen, sd, r, hint, x))) continue;
        } else if (!push_flat_or_inside(k, x, r, hint)) {
            continue;
        }
        moved++;
        *mover = i;
    }
    return moved;
}

/* Keeps particle p (whose step started at s0) out of or inside every collider: passes until one
   moves nothing (at most COLLIDE_PASSES), then joint projections onto the colliders still
   violated (a particle wedged between two). While the particle (and in the first pass its whole
   path) is in the broad phase's ball, only the colliders that can reach the ball are tested: the
   others cannot move it. The common case first: a move too short to pass through a near collider
   needs no sweep, and each of its passes filters every near core at once (near_within; `bits0`
   when `have_bits0`, for the first), so that until something moves x only the colliders within
   reach are looked at; full passes go on where x leaves the ball. `parent` is the parent's
   position (`hint`: x - parent). Returns 1 when it moved the particle. */
int sn_chain_collide_passes(const sn_chain *c, particle *p, const double *s0, const double *parent, unsigned bits0,
                            int have_bits0) {
    double r = p->param[SN_CHAIN_PARAM_RADIUS], m[3], m2, hint[3];
    int pass = 0, skip = -1, moved, mover = -1;
    sub3(m, p->x, s0);
    m2 = dot3(m, m);
    sub3(hint, p->x, parent);
    if (m2 <= c->sweep2 && c->nnear <= NEAR_SOA) /* s0 is in the ball: the ball holds every start */
        for (; pass < COLLIDE_PASSES && in_ball(c, p->x); pass++) {
            unsigned bits = pass == 0 && have_bits0 ? bits0 : near_within(c, p->x, r);
            if (!bits) return pass > 0;
            moved = near_pass(c, p->x, r, hint, bits, skip, &mover);
            if (!moved) return pass > 0;
            skip = moved == 1 ? mover : -1;
        }
    for (; pass < COLLIDE_PASSES; pass++) {
        moved = full_pass(c, p->x, r, s0, m, m2, hint, pass == 0, skip, &mover);
        if (!moved) return pass > 0;
        skip = moved == 1 ? mover : -1;
    }
    for (pass = 0; pass < COLLIDE_PASSES; pass++)
        if (!project_jointly(c, p->x, r, hint)) break;
    return 1;
}
