/*
 * Dynamic bones in time: the fixed step and its accumulator (the time beyond max_steps steps
 * dropped, the chain carried rigidly through it), teleports (the automatic reset and the carried
 * teleport), the rigid motions carried with the particles, and the animated pose of a points
 * chain placed by sn_chain_move_root. One step itself is the solver's (chain_coupled.c,
 * chain_sweep.c).
 */
#include "chain_internal.h"

/* ---- rigid frames ------------------------------------------------------------------------- */

void sn_chain_frame_at(const frame *f0, const frame *f1, double v, frame *out) {
    if (v <= 0.0) { *out = *f0; return; }
    if (v >= 1.0) { *out = *f1; return; }
    if (sn_quat_slerp(&f0->q, &f1->q, v, &out->q, NULL) != SN_OK) out->q = f1->q;
    lerp3(out->t, f0->t, f1->t, v);
}

void sn_chain_motion_between(const frame *a, const frame *b, motion *d) {
    sn_quat ac, r;
    double ta[3];
    sn_quat_conj(&a->q, &ac);
    (void)sn_quat_mul(&b->q, &ac, &r, NULL);
    (void)qunit(&r);
    quat_matrix(&r, d->m);
    mat_apply(d->m, a->t, ta);
    sub3(d->t, b->t, ta);
}

/* ---- the animated pose -------------------------------------------------------------------- */

/* points mode: animated positions = place * rest; virtual tips (after the points) extend their
   leaf */
void sn_chain_points_animate(sn_chain *c) {
    double m[9], t[3];
    int i;
    quat_matrix(&c->place.q, m);
    copy3(t, c->place.t);
    for (i = 0; i < c->npoints; i++) {
        particle *p = &c->p[i];
        const double *v = p->rest;
        set3(p->a1, m[0] * v[0] + m[1] * v[1] + m[2] * v[2] + t[0], m[3] * v[0] + m[4] * v[1] + m[5] * v[2] + t[1],
             m[6] * v[0] + m[7] * v[1] + m[8] * v[2] + t[2]);
    }
    for (; i < c->n; i++) { /* leaf + (leaf - parent) * end_length */
        particle *p = &c->p[i];
        const particle *leaf = &c->p[p->parent];
        double d[3];
        sub3(d, leaf->a1, c->p[leaf->parent].a1);
        madd3(p->a1, leaf->a1, c->end_length, d);
    }
    c->carry1 = c->place;
    c->root1 = c->place;
    c->anim_dirty = 0;
}

void sn_chain_place_at_animation(sn_chain *c) {
    int i;
    for (i = 0; i < c->n; i++) {
        particle *p = &c->p[i];
        copy3(p->x, p->a1);
        copy3(p->xp, p->a1);
        copy3(p->a0, p->a1);
        copy3(p->at, p->a1);
        set3(p->da, 0, 0, 0);
    }
    c->carry0 = c->carry1;
    c->root0 = c->root1;
}

/* ---- the accumulator ------------------------------------------------------------------------ */

/* The chain follows its first root's animated translation from fraction ua to ub rigidly
   (the time dropped beyond max_steps). */
static void follow_root(sn_chain *c, double ua, double ub) {
    double pa[3], pb[3], d[3];
    int i;
    lerp3(pa, c->p[0].a0, c->p[0].a1, ua);
    lerp3(pb, c->p[0].a0, c->p[0].a1, ub);
    sub3(d, pb, pa);
    for (i = 0; i < c->n; i++) {
        if (c->p[i].parent < 0) continue;
        madd3(c->p[i].x, c->p[i].x, 1.0, d);
        madd3(c->p[i].xp, c->p[i].xp, 1.0, d);
    }
}

/* carries the state and the animation history rigidly with the root's motion of this update */
static void carry_teleport(sn_chain *c) {
    motion mo;
    int i;
    sn_chain_motion_between(&c->root0, &c->root1, &mo);
    for (i = 0; i < c->n; i++) {
        motion_apply(&mo, c->p[i].x);
        motion_apply(&mo, c->p[i].xp);
        motion_apply(&mo, c->p[i].a0);
    }
    c->carry0 = c->carry1;
}

/* animation fraction of the moment `behind` seconds before the end of an update of dt */
static double fraction(double behind, double dt) { return dt > 0.0 ? clamp01(1.0 - behind / dt) : 1.0; }

/* Before the steps of an update: the first one starts at the animated pose; a pending teleport
   carries the chain; a root jump beyond the teleport distance resets it. */
static void start_update(sn_chain *c) {
    if (!c->started) {
        sn_chain_place_at_animation(c);
        c->started = 1;
    } else if (c->teleport_pending) {
        carry_teleport(c);
    } else if (c->teleport > 0.0) {
        double d[3];
        sub3(d, c->p[0].a1, c->p[0].a0);
        if (len3(d) > c->teleport) sn_chain_place_at_animation(c);
    }
    c->teleport_pending = 0;
}

sn_status sn_chain_check_dt(double dt, sn_error *err) {
    if (!sn_isfinite(dt)) return sn_fail_arg(err, 1, SN_EINVAL, "'dt' is not finite");
    if (dt < 0.0) return sn_fail_arg(err, 1, SN_EINVAL, "'dt' %g is negative", dt);
    return SN_OK;
}

sn_status sn_chain_advance(sn_chain *c, double dt, sn_error *err) {
    double steps, total;
    int i, n;
    sn_status st = sn_chain_check_dt(dt, err);
    if (st != SN_OK) return st;
    start_update(c);
    total = c->acc + dt;
    steps = floor(total / c->h);
    c->acc = total;
    if (steps > c->max_steps) { /* drop the time beyond max_steps steps */
        c->acc = total - (steps - c->max_steps) * c->h;
        steps = c->max_steps;
        follow_root(c, fraction(total, dt), fraction(c->acc, dt));
    }
    n = (int)steps;
    for (i = 0; i < n; i++) {
        double u0 = fraction(c->acc - i * c->h, dt), u1 = fraction(c->acc - (i + 1) * c->h, dt);
        if (c->solver == SN_CHAIN_COUPLED) sn_chain_step_coupled(c, u0, u1);
        else sn_chain_step_sweep(c, u0, u1);
    }
    c->acc -= n * c->h;
    if (c->acc < 0.0) c->acc = 0.0;
    c->alpha = clamp01(c->acc / c->h);
    for (i = 0; i < c->n; i++) copy3(c->p[i].a0, c->p[i].a1);
    c->carry0 = c->carry1;
    c->root0 = c->root1;
    return SN_OK;
}

/* ---- points mode and the public calls --------------------------------------------------------- */

sn_status sn_chain_move_root(sn_chain *c, const sn_vec3 *t, const sn_quat *q, sn_error *err) {
    sn_quat u;
    double tt[3];
    sn_status st;
    set3(tt, t->x, t->y, t->z);
    if ((st = check_coords(tt, 1, "translation", err)) != SN_OK) return st;
    if (!sn_isfinite(q->x) || !sn_isfinite(q->y) || !sn_isfinite(q->z) || !sn_isfinite(q->w))
        return sn_fail_arg(err, 2, SN_EINVAL, "rotation is not finite");
    if (sn_quat_normalize(q, &u, NULL) != SN_OK) return sn_fail_arg(err, 2, SN_EINVAL, "rotation is zero");
    c->place.q = u;
    copy3(c->place.t, tt);
    c->anim_dirty = 1;
    return SN_OK;
}

sn_status sn_chain_step(sn_chain *c, double dt, sn_error *err) {
    if (c->skel == NULL && c->anim_dirty) sn_chain_points_animate(c);
    return sn_chain_advance(c, dt, err);
}

void sn_chain_reset(sn_chain *c) {
    if (c->skel == NULL && c->anim_dirty) sn_chain_points_animate(c);
    sn_chain_place_at_animation(c);
    c->started = 1;
}

void sn_chain_teleport(sn_chain *c) { c->teleport_pending = 1; }
