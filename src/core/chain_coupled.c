/*
 * Dynamic bones, the coupled solver (the default): elasticity, bend stiffness and stretch of the
 * whole tree solved together as one exact implicit (XPBD) step. The system couples a particle
 * with its parent and grandparent only, so eliminating children before parents solves it in
 * linear time with 3x3 blocks (a tree-structured elimination, as Baraff 1996); then every
 * segment is put back at its exact length and the particles are kept out of the colliders. The
 * rows of the system are each particle's coupled_rows (chain_internal.h).
 */
#include "chain_internal.h"

/* ---- 3x3 blocks ---------------------------------------------------------------------------- */

/* 3x3 matrices are row-major; symmetric ones are stored xx, xy, xz, yy, yz, zz. */

static void m3_mul(const double *a, const double *b, double *o) { /* o = a b */
    int r, k;
    for (r = 0; r < 3; r++)
        for (k = 0; k < 3; k++) o[3 * r + k] = a[3 * r] * b[k] + a[3 * r + 1] * b[3 + k] + a[3 * r + 2] * b[6 + k];
}

static void m3_tmul(const double *a, const double *b, double *o) { /* o = a^T b */
    int r, k;
    for (r = 0; r < 3; r++)
        for (k = 0; k < 3; k++) o[3 * r + k] = a[r] * b[k] + a[3 + r] * b[3 + k] + a[6 + r] * b[6 + k];
}

static void m3_tvec(const double *m, const double *v, double *o) { /* o = m^T v */
    set3(o, m[0] * v[0] + m[3] * v[1] + m[6] * v[2], m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
         m[2] * v[0] + m[5] * v[1] + m[8] * v[2]);
}

/* o = s^-1 as a full matrix, s symmetric positive definite */
static void sym_inverse(const double *s, double *o) {
    double c0 = s[3] * s[5] - s[4] * s[4], c1 = s[2] * s[4] - s[1] * s[5], c2 = s[1] * s[4] - s[2] * s[3];
    double id = 1.0 / (s[0] * c0 + s[1] * c1 + s[2] * c2);
    o[0] = c0 * id; o[1] = c1 * id; o[2] = c2 * id;
    o[3] = o[1];    o[4] = (s[0] * s[5] - s[2] * s[2]) * id; o[5] = (s[1] * s[2] - s[0] * s[4]) * id;
    o[6] = o[2];    o[7] = o[5];    o[8] = (s[0] * s[3] - s[1] * s[1]) * id;
}

/* s -= a^T l a for a full 3x3 a and a symmetric l given in full (the result is symmetric) */
static void sym_sub_congruent(double *s, const double *a, const double *la) {
    s[0] -= a[0] * la[0] + a[3] * la[3] + a[6] * la[6];
    s[1] -= a[0] * la[1] + a[3] * la[4] + a[6] * la[7];
    s[2] -= a[0] * la[2] + a[3] * la[5] + a[6] * la[8];
    s[3] -= a[1] * la[1] + a[4] * la[4] + a[7] * la[7];
    s[4] -= a[1] * la[2] + a[4] * la[5] + a[7] * la[8];
    s[5] -= a[2] * la[2] + a[5] * la[5] + a[8] * la[8];
}

/* s times the rotation matrix of the shortest arc from unit u to unit v (a half turn for
   opposite ones) */
static void arc_matrix(const double *u, const double *v, double s, double *m) {
    double k[3], cs = dot3(u, v), f;
    int i;
    if (1.0 + cs < 1e-9) {
        double e[3];
        sn_perp_of_unit(u, e);
        m[0] = 2 * e[0] * e[0] - 1; m[1] = 2 * e[0] * e[1];     m[2] = 2 * e[0] * e[2];
        m[3] = m[1];                m[4] = 2 * e[1] * e[1] - 1; m[5] = 2 * e[1] * e[2];
        m[6] = m[2];                m[7] = m[5];                m[8] = 2 * e[2] * e[2] - 1;
        for (i = 0; i < 9; i++) m[i] *= s;
        return;
    }
    cross3(k, u, v); /* R = cs I + [k]x + k k^T / (1 + cs) */
    f = s / (1.0 + cs);
    cs *= s;
    m[0] = cs + f * k[0] * k[0];        m[1] = -s * k[2] + f * k[0] * k[1]; m[2] = s * k[1] + f * k[0] * k[2];
    m[3] = s * k[2] + f * k[1] * k[0];  m[4] = cs + f * k[1] * k[1];        m[5] = -s * k[0] + f * k[1] * k[2];
    m[6] = -s * k[1] + f * k[2] * k[0]; m[7] = s * k[0] + f * k[2] * k[1];  m[8] = cs + f * k[2] * k[2];
}

/* ---- assembly -------------------------------------------------------------------------------- */

/* The rows of moving particle p for unit mass, elasticity toward the animated position, and its
   stretch: k (n . (dx_p - dx_q) + |x_p - x_q| - len)^2 / 2, a stiff penalty (STRETCH_K)
   linearised at the current positions (the exact lengths are put back afterwards). */
static void mass_and_stretch(sn_chain *c, particle *p) {
    particle *q = &c->p[p->parent];
    coupled_rows *pr = &p->s.cp, *qr = &q->s.cp;
    double d[3], n[3], l, e, kn[6];
    pr->D[0] = pr->D[3] = pr->D[5] = 1.0 + p->ke;
    pr->D[1] = pr->D[2] = pr->D[4] = 0.0;
    set3(pr->rhs, p->ke * (p->at[0] - p->x[0]), p->ke * (p->at[1] - p->x[1]), p->ke * (p->at[2] - p->x[2]));
    pr->hasb = q->parent >= 0;
    pr->hasg = 0;
    if (pr->hasb) memset(pr->B, 0, sizeof pr->B);
    sub3(d, p->x, q->x);
    l = unit3(n, d);
    if (l == 0.0) return; /* no direction: no constraint this step */
    e = STRETCH_K * (l - p->len);
    kn[0] = STRETCH_K * n[0] * n[0]; kn[1] = STRETCH_K * n[0] * n[1]; kn[2] = STRETCH_K * n[0] * n[2];
    kn[3] = STRETCH_K * n[1] * n[1]; kn[4] = STRETCH_K * n[1] * n[2]; kn[5] = STRETCH_K * n[2] * n[2];
    pr->D[0] += kn[0]; pr->D[1] += kn[1]; pr->D[2] += kn[2]; pr->D[3] += kn[3]; pr->D[4] += kn[4]; pr->D[5] += kn[5];
    madd3(pr->rhs, pr->rhs, -e, n);
    if (q->parent < 0) return;
    qr->D[0] += kn[0]; qr->D[1] += kn[1]; qr->D[2] += kn[2]; qr->D[3] += kn[3]; qr->D[4] += kn[4]; qr->D[5] += kn[5];
    madd3(qr->rhs, qr->rhs, e, n);
    pr->B[0] -= kn[0]; pr->B[1] -= kn[1]; pr->B[2] -= kn[2];
    pr->B[3] -= kn[1]; pr->B[4] -= kn[3]; pr->B[5] -= kn[4];
    pr->B[6] -= kn[2]; pr->B[7] -= kn[4]; pr->B[8] -= kn[5];
}

/* Adds the bend terms of particle p to the system (its parent and grandparent were set up
   before it, its own rows hold the mass, elasticity and stretch). The bend constraint is linear
   in the positions:
       C = (x_p - x_q) - A (x_q - x_g),   A = s R,
   R the shortest arc from the parent's animated direction to p's, s the ratio of the animated
   lengths: the animated shape relative to the parent, turned and stretched with the parent's
   segment. Without a grandparent, or for a zero-length parent segment, C = (x_p - x_q) - the
   animated offset. Its energy kb |C|^2 / 2 is quadratic, so the forces it makes balance. */
static void bend_terms(sn_chain *c, particle *p) {
    particle *q = &c->p[p->parent], *g = NULL;
    coupled_rows *pr = &p->s.cp, *qr = &q->s.cp, *gr;
    double C[3], kb = p->kb, A[9], s = 0.0, v[3], atc[3];
    int i;
    if (q->parent >= 0 && q->len > 0.0) {
        g = &c->p[q->parent];
        s = p->len / q->len;
        arc_matrix(q->da, p->da, s, A);
        sub3(v, q->x, g->x);
        mat_apply(A, v, C);
    } else {
        set3(C, p->len * p->da[0], p->len * p->da[1], p->len * p->da[2]);
    }
    set3(C, p->x[0] - q->x[0] - C[0], p->x[1] - q->x[1] - C[1], p->x[2] - q->x[2] - C[2]);
    /* J_p = I, J_q = -(I + A), J_g = A: blocks kb J^T J, right-hand sides -kb J^T C */
    pr->D[0] += kb; pr->D[3] += kb; pr->D[5] += kb;
    madd3(pr->rhs, pr->rhs, -kb, C);
    if (g == NULL) return;
    gr = &g->s.cp;
    m3_tvec(A, C, atc);
    if (q->parent >= 0) { /* q moves: (I + A)^T (I + A) = (1 + s^2) I + A + A^T */
        double d = kb * (1.0 + s * s);
        qr->D[0] += d + 2.0 * kb * A[0]; qr->D[1] += kb * (A[1] + A[3]); qr->D[2] += kb * (A[2] + A[6]);
        qr->D[3] += d + 2.0 * kb * A[4]; qr->D[4] += kb * (A[5] + A[7]); qr->D[5] += d + 2.0 * kb * A[8];
        for (i = 0; i < 9; i++) pr->B[i] -= kb * A[i];
        pr->B[0] -= kb; pr->B[4] -= kb; pr->B[8] -= kb;
        set3(qr->rhs, qr->rhs[0] + kb * (C[0] + atc[0]), qr->rhs[1] + kb * (C[1] + atc[1]), qr->rhs[2] + kb * (C[2] + atc[2]));
    }
    if (g->parent >= 0) { /* g moves: A^T A = s^2 I */
        double d = kb * s * s;
        gr->D[0] += d; gr->D[3] += d; gr->D[5] += d;
        for (i = 0; i < 9; i++) pr->G[i] = kb * A[i];
        pr->hasg = 1;
        madd3(gr->rhs, gr->rhs, -kb, atc);
        if (q->parent >= 0) { /* (I + A)^T A = A + s^2 I */
            for (i = 0; i < 9; i++) qr->B[i] -= kb * A[i];
            qr->B[0] -= d; qr->B[4] -= d; qr->B[8] -= d;
        }
    }
}

/* ---- the solve --------------------------------------------------------------------------------- */

/* Eliminates particle p (its children are eliminated already) from the rows of its parent and
   grandparent: its rows become D^-1 B, D^-1 G and D^-1 rhs. */
static void eliminate(sn_chain *c, particle *p) {
    coupled_rows *pr = &p->s.cp;
    double L[9], P[9], Q[9], t[9], v[3];
    int k;
    sym_inverse(pr->D, L);
    mat_apply(L, pr->rhs, v);
    copy3(pr->rhs, v);
    if (pr->hasb) { /* the parent moves */
        coupled_rows *qr = &c->p[p->parent].s.cp;
        m3_mul(L, pr->B, P);
        sym_sub_congruent(qr->D, pr->B, P);
        m3_tvec(pr->B, v, t);
        madd3(qr->rhs, qr->rhs, -1.0, t);
        if (pr->hasg) {
            m3_mul(L, pr->G, Q);
            m3_tmul(pr->B, Q, t);
            for (k = 0; k < 9; k++) qr->B[k] -= t[k];
        }
        memcpy(pr->B, P, sizeof P);
    }
    if (pr->hasg) { /* the grandparent moves */
        coupled_rows *gr = &c->p[c->p[p->parent].parent].s.cp;
        if (!pr->hasb) m3_mul(L, pr->G, Q);
        sym_sub_congruent(gr->D, pr->G, Q);
        m3_tvec(pr->G, v, t);
        madd3(gr->rhs, gr->rhs, -1.0, t);
        memcpy(pr->G, Q, sizeof Q);
    }
}

/* Elasticity and bend stiffness as one implicit step (backward Euler, the exact solution of one
   XPBD step) of the quadratic energy sum ke |x - a|^2 / 2 + sum kb |C|^2 / 2 over the
   corrections dx: (I + sum k J^T J) dx = -sum k J^T C. The matrix couples a particle only with
   its parent and grandparent, and eliminating children before parents makes no other fill, so
   the system is solved exactly in linear time with 3x3 blocks. */
static void solve_soft(sn_chain *c) {
    int i;
    for (i = c->n - 1; i >= 0; i--) /* eliminate children before parents */
        if (c->p[i].parent >= 0) eliminate(c, &c->p[i]);
    for (i = 0; i < c->n; i++) { /* back-substitute, parents before children */
        particle *p = &c->p[i];
        coupled_rows *pr = &p->s.cp;
        double v[3];
        if (p->parent < 0) continue;
        copy3(pr->dx, pr->rhs);
        if (pr->hasb) {
            mat_apply(pr->B, c->p[p->parent].s.cp.dx, v);
            madd3(pr->dx, pr->dx, -1.0, v);
        }
        if (pr->hasg) {
            mat_apply(pr->G, c->p[c->p[p->parent].parent].s.cp.dx, v);
            madd3(pr->dx, pr->dx, -1.0, v);
        }
        madd3(p->x, p->x, 1.0, pr->dx);
    }
}

/* ---- the step ------------------------------------------------------------------------------------ */

/* After the solve, each segment in seg: puts every particle at its parent's final position plus
   its segment, parents first, and keeps it out of (or in) the colliders, after a broad phase
   around the start and solved positions of the moving particles. */
static void place_and_collide(sn_chain *c) {
    double lo[3], hi[3];
    int i;
    if (needs_broad_phase(c)) {
        box_empty(lo, hi);
        for (i = 0; i < c->n; i++)
            if (c->p[i].parent >= 0) box_add(lo, hi, c->p[i].x, c->p[i].xp);
        if (lo[0] <= hi[0]) sn_chain_broad_phase(c, lo, hi, c->rmax);
    } else if (c->ncol > 0) {
        sn_chain_all_near(c);
    }
    for (i = 0; i < c->n; i++) {
        particle *p = &c->p[i];
        const particle *q;
        if (p->parent < 0) continue;
        q = &c->p[p->parent];
        madd3(p->x, q->x, 1.0, p->s.cp.seg);
        if (c->ncol > 0) collide(c, p, p->xp, q->x);
    }
}

/* One fixed step of the coupled solver, from animation fraction u0 to u1 of the current update:
   integrate and assemble, bend terms, solve, exact lengths, colliders. */
void sn_chain_step_coupled(sn_chain *c, double u0, double u1) {
    double acc[3], kcached = -1.0;
    int i, carrying = step_carries(c);
    motion mo;
    step_acceleration(c, acc);
    /* integrate (Verlet with damping per second, gravity, force) and set up the soft solve */
    for (i = 0; i < c->n; i++) {
        particle *p = &c->p[i];
        double v[3], d[3];
        if (start_particle(c, p, u0, u1, carrying, &kcached, &mo)) continue; /* a kinematic root */
        sub3(v, p->x, p->xp);
        copy3(p->xp, p->x);
        set3(p->x, p->x[0] + v[0] * p->fd + acc[0], p->x[1] + v[1] * p->fd + acc[1],
             p->x[2] + v[2] * p->fd + acc[2]);
        sub3(d, p->at, c->p[p->parent].at);
        p->len = unit3(p->da, d);
        mass_and_stretch(c, p);
    }
    for (i = 0; i < c->n; i++)
        if (c->p[i].parent >= 0 && c->p[i].kb > 0.0) bend_terms(c, &c->p[i]);
    solve_soft(c);
    /* exact lengths (the solve is linearised): every segment is rescaled from the solved
       positions at once (no chain of square roots waiting on each other) */
    for (i = 0; i < c->n; i++) {
        particle *p = &c->p[i];
        double v[3], l, *seg = p->s.cp.seg;
        if (p->parent < 0) continue;
        sub3(v, p->x, c->p[p->parent].x);
        l = len3(v);
        if (l > 0.0) set3(seg, v[0] * (p->len / l), v[1] * (p->len / l), v[2] * (p->len / l));
        else set3(seg, p->len * p->da[0], p->len * p->da[1], p->len * p->da[2]);
    }
    place_and_collide(c);
}
