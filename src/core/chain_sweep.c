/*
 * Dynamic bones, the sweep solver: parents before children, each particle solved with its
 * parent already final (as Dynamic Bone and VRM spring bones do, but exactly): the minimiser of
 * |x - y|^2 + ke |x - a|^2 + kb |x - t|^2 (y the Verlet prediction, a the animated position, t
 * the bend target), put at its exact length from the parent and kept out of the colliders. One
 * pass with no system to solve; the motion depends on the rate (see the manual). What a step
 * keeps of each particle is its sweep_rows (chain_internal.h).
 */
#include "chain_internal.h"

/* s R v, for R the shortest arc from unit a to unit b, and a factor s > 0 it returns (a half turn
   about an axis perpendicular to a for opposite ones, s = 1), given av = a . v and w = v x a,
   which do not depend on b. With c = a . b,
   R v = c v + (a x b) x v + ((a x b) . v) (a x b) / (1 + c); s = 1 + c takes the division off
   the path from b (the parent's direction, just solved) to the result, and the caller only needs
   a direction. Expanded so that b goes through as few dependent operations as possible. */
static inline double arc_apply_scaled(const double *a, const double *b, const double *v, double av, const double *w,
                                      double *o) {
    double c = dot3(a, b), s = 1.0 + c, bv, bw, k[3];
    if (s < 1e-9) { /* 2 (e . v) e - v, e a unit vector perpendicular to a */
        double e[3], ev;
        sn_perp_of_unit(a, e);
        ev = 2.0 * dot3(e, v);
        set3(o, ev * e[0] - v[0], ev * e[1] - v[1], ev * e[2] - v[2]);
        return 1.0;
    }
    bv = dot3(b, v);
    bw = dot3(b, w);
    cross3(k, a, b);
    set3(o, s * (c * v[0] + (av * b[0] - bv * a[0])) + bw * k[0], s * (c * v[1] + (av * b[1] - bv * a[1])) + bw * k[1],
         s * (c * v[2] + (av * b[2] - bv * a[2])) + bw * k[2]);
    return s;
}

/* The sweep's first part for a moving particle p with parent q, which needs nothing of other
   particles' solved positions: the Verlet prediction (damping per second, gravity and force)
   pulled toward the animated position, in pull; the animated segment from the parent, in aseg,
   and what the bend target needs of it. */
static inline void sweep_predict(particle *p, const particle *q, const double *acc) {
    sweep_rows *ps = &p->s.sw;
    double y[3];
    set3(y, p->x[0] + (p->x[0] - p->xp[0]) * p->fd + acc[0], p->x[1] + (p->x[1] - p->xp[1]) * p->fd + acc[1],
         p->x[2] + (p->x[2] - p->xp[2]) * p->fd + acc[2]);
    copy3(p->xp, p->x);
    set3(ps->pull, (y[0] + p->ke * p->at[0]) * p->wsoft, (y[1] + p->ke * p->at[1]) * p->wsoft,
         (y[2] + p->ke * p->at[2]) * p->wsoft);
    sub3(ps->aseg, p->at, q->at);
    p->len = unit3(p->da, ps->aseg);
    if (p->wbend > 0.0) {
        ps->av = dot3(q->da, ps->aseg);
        cross3(ps->vx, ps->aseg, q->da);
    }
}

/* The sweep's second part, with the parent q final: the bend target added to the prediction,
   the particle put at its exact length from the parent, then kept out of (or in) the colliders. */
static OUT_OF_LINE void sweep_solve(const sn_chain *c, particle *p, const particle *q) {
    sweep_rows *ps = &p->s.sw;
    const sweep_rows *qs = &q->s.sw;
    double d[3], l;
    /* d: the direction from the parent, y - q->x for y = pull + wbend (t + q->x), t the bend
       target, up to a factor s > 0 (see arc_apply_scaled). Written so that the bend target, which
       waits for the parent's direction, comes last: d = s (pull - (1 - wbend) q->x) + wbend s t */
    if (p->wbend > 0.0) {
        double t[3], e[3], w = p->wbend, s = 1.0;
        set3(e, ps->pull[0] - (1.0 - w) * q->x[0], ps->pull[1] - (1.0 - w) * q->x[1], ps->pull[2] - (1.0 - w) * q->x[2]);
        if (q->parent >= 0 && q->len > 0.0) s = arc_apply_scaled(q->da, qs->u, ps->aseg, ps->av, ps->vx, t);
        else copy3(t, ps->aseg);
        set3(d, s * e[0] + w * t[0], s * e[1] + w * t[1], s * e[2] + w * t[2]);
    } else {
        sub3(d, ps->pull, q->x);
    }
    l = len3(d);
    if (l > 0.0) {
        l = 1.0 / l;
        set3(ps->u, d[0] * l, d[1] * l, d[2] * l);
    } else if (p->len > 0.0) copy3(ps->u, p->da);
    else if (q->parent >= 0) copy3(ps->u, qs->u);
    else set3(ps->u, 0.0, -1.0, 0.0);
    set3(p->x, q->x[0] + ps->u[0] * p->len, q->x[1] + ps->u[1] * p->len, q->x[2] + ps->u[2] * p->len);
    if (c->ncol > 0 && collide(c, p, p->xp, q->x)) { /* pushed: the segment as it now is */
        sub3(d, p->x, q->x);
        l = len3(d);
        if (l > 0.0) set3(ps->u, d[0] / l, d[1] / l, d[2] / l);
    }
}

/* One fixed step of the sweep solver, from animation fraction u0 to u1 of the current update.
   Parents before children, each particle is solved with its parent already final: the exact
   implicit step of its elasticity and bend springs, put at its exact length from the parent,
   and kept out of (or in) the colliders; its children then start from that final position. With
   a broad phase, the predictions of every particle come first (no particle waits on another),
   for the box around them; without, each particle is predicted and solved in turn (the solve
   then finds the particle in the first-level cache). */
void sn_chain_step_sweep(sn_chain *c, double u0, double u1) {
    double acc[3], kcached = -1.0, lo[3], hi[3];
    int i, n = c->n, carrying = step_carries(c);
    motion mo;
    step_acceleration(c, acc);
    if (!needs_broad_phase(c)) {
        if (c->ncol > 0) sn_chain_all_near(c);
        for (i = 0; i < n; i++) {
            particle *p = &c->p[i];
            if (start_particle(c, p, u0, u1, carrying, &kcached, &mo)) continue; /* a kinematic root */
            sweep_predict(p, &c->p[p->parent], acc);
            sweep_solve(c, p, &c->p[p->parent]);
        }
        return;
    }
    box_empty(lo, hi);
    for (i = 0; i < n; i++) {
        particle *p = &c->p[i];
        if (start_particle(c, p, u0, u1, carrying, &kcached, &mo)) continue;
        sweep_predict(p, &c->p[p->parent], acc);
        box_add(lo, hi, p->xp, p->s.sw.pull); /* the broad phase's box: start and prediction */
    }
    if (lo[0] <= hi[0]) sn_chain_broad_phase(c, lo, hi, c->rmax);
    for (i = 0; i < n; i++)
        if (c->p[i].parent >= 0) sweep_solve(c, &c->p[i], &c->p[c->p[i].parent]);
}
