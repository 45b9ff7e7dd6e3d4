#include "delaunay.h"

#include <math.h>

#include "common.h"

/* ---- exact arithmetic on expansions (Shewchuk 1997): sums of non-overlapping doubles ---- */

static void two_sum(double a, double b, double *s, double *e) {
    double x = a + b, bv = x - a, av = x - bv;
    *s = x;
    *e = (a - av) + (b - bv);
}

static void two_product(double a, double b, double *p, double *e) {
    double x = a * b;
    *p = x;
    *e = fma(a, b, -x); /* the exact rounding error of a * b */
}

/* h = e + b in place; e has *len components in increasing magnitude, room for one more */
static void grow(double *e, int *len, double b) {
    double q = b, hh;
    int i, k = 0;
    for (i = 0; i < *len; i++) {
        two_sum(q, e[i], &q, &hh);
        if (hh != 0.0) e[k++] = hh;
    }
    if (q != 0.0 || k == 0) e[k++] = q;
    *len = k;
}

/* adds the exact product a * b to the expansion */
static void grow_product(double *e, int *len, double a, double b) {
    double p, err;
    two_product(a, b, &p, &err);
    grow(e, len, err);
    grow(e, len, p);
}

static int expansion_sign(const double *e, int len) {
    double top = e[len - 1];
    return top > 0.0 ? 1 : top < 0.0 ? -1 : 0;
}

/* det [[ax ay 1] [bx by 1] [cx cy 1]] as an expansion of at most 13 components */
static int orient_exact(const double *a, const double *b, const double *c, double *e) {
    int len = 1;
    e[0] = 0.0;
    grow_product(e, &len, a[0], b[1]);
    grow_product(e, &len, -a[0], c[1]);
    grow_product(e, &len, -a[1], b[0]);
    grow_product(e, &len, a[1], c[0]);
    grow_product(e, &len, b[0], c[1]);
    grow_product(e, &len, -b[1], c[0]);
    return len;
}

#define EPS 1.1102230246251565e-16 /* 2^-53 */

int sn_delaunay_orient(const double *a, const double *b, const double *c) {
    double left = (a[0] - c[0]) * (b[1] - c[1]), right = (a[1] - c[1]) * (b[0] - c[0]);
    double det = left - right, bound = (3.0 + 16.0 * EPS) * EPS * (fabs(left) + fabs(right));
    double e[16];
    if (det > bound || -det > bound) return det > 0.0 ? 1 : -1;
    return expansion_sign(e, orient_exact(a, b, c, e));
}

/* adds sign * (x^2 + y^2) * (the expansion o) to acc */
static void add_lifted(double *acc, int *len, const double *p, double sign, const double *o, int olen) {
    double z[4];
    int i, k;
    two_product(p[0], p[0], &z[1], &z[0]);
    two_product(p[1], p[1], &z[3], &z[2]);
    for (i = 0; i < 4; i++)
        for (k = 0; k < olen; k++) grow_product(acc, len, sign * z[i], o[k]);
}

int sn_delaunay_incircle(const double *a, const double *b, const double *c, const double *d) {
    double adx = a[0] - d[0], ady = a[1] - d[1], bdx = b[0] - d[0], bdy = b[1] - d[1];
    double cdx = c[0] - d[0], cdy = c[1] - d[1];
    double bc = bdx * cdy, cb = cdx * bdy, ca = cdx * ady, ac = adx * cdy, ab = adx * bdy, ba = bdx * ady;
    double la = adx * adx + ady * ady, lb = bdx * bdx + bdy * bdy, lc = cdx * cdx + cdy * cdy;
    double det = la * (bc - cb) + lb * (ca - ac) + lc * (ab - ba);
    double perm = (fabs(bc) + fabs(cb)) * la + (fabs(ca) + fabs(ac)) * lb + (fabs(ab) + fabs(ba)) * lc;
    double o[16], acc[4 * 4 * 13 * 2 * 4 + 1];
    int olen, len = 1;
    if (det > (10.0 + 96.0 * EPS) * EPS * perm) return 1;
    if (-det > (10.0 + 96.0 * EPS) * EPS * perm) return -1;
    /* det of the rows (x, y, x^2 + y^2, 1) expanded along the lifted column */
    acc[0] = 0.0;
    olen = orient_exact(b, c, d, o);
    add_lifted(acc, &len, a, 1.0, o, olen);
    olen = orient_exact(a, c, d, o);
    add_lifted(acc, &len, b, -1.0, o, olen);
    olen = orient_exact(a, b, d, o);
    add_lifted(acc, &len, c, 1.0, o, olen);
    olen = orient_exact(a, b, c, o);
    add_lifted(acc, &len, d, -1.0, o, olen);
    return expansion_sign(acc, len);
}

/* ---- sweep triangulation, then Lawson flips ---- */

typedef struct rec {
    double x, y; /* the point */
    int idx;     /* its index in the caller's array */
} rec;

typedef struct work {
    rec *pts;          /* n points in lexicographic order; the sweep works on these positions */
    int *v, *nb;       /* 3 vertices (counter-clockwise) and 3 neighbours per triangle; nb[3t+k] is
                          across the edge opposite v[3t+k], -1 on the hull */
    int *next, *prev;  /* counter-clockwise hull as a linked list of vertices */
    int *htri;         /* the triangle holding hull edge (i, next[i]) */
    int *stack, *mark; /* edges (3t + k) waiting for the flip test, and whether each is queued */
    int ntri, nstack;
} work;

static int before(const rec *a, const rec *b) { return a->x < b->x || (a->x == b->x && a->y < b->y); }

static void sift_down(rec *r, int at, int n) {
    for (;;) {
        int child = 2 * at + 1;
        rec tmp;
        if (child >= n) return;
        if (child + 1 < n && before(&r[child], &r[child + 1])) child++;
        if (!before(&r[at], &r[child])) return;
        tmp = r[at];
        r[at] = r[child];
        r[child] = tmp;
        at = child;
    }
}

/* in-place heapsort by (x, y): no allocation (the C library's qsort may allocate) */
static void sort_xy(rec *r, int n) {
    int i;
    for (i = n / 2 - 1; i >= 0; i--) sift_down(r, i, n);
    for (i = n - 1; i > 0; i--) {
        rec tmp = r[0];
        r[0] = r[i];
        r[i] = tmp;
        sift_down(r, 0, i);
    }
}

int sn_delaunay_max_triangles(int n) { return n < 3 ? 1 : 2 * n; }

size_t sn_delaunay_scratch_size(int n) {
    size_t t = (size_t)sn_delaunay_max_triangles(n), m = (size_t)(n > 0 ? n : 1);
    return SN_ALIGN16(m * sizeof(rec)) + SN_ALIGN16((3 * t * 4 + 3 * m) * sizeof(int));
}

static const double *xy_of(const work *w, int i) { return &w->pts[i].x; }

static int orient_of(const work *w, int a, int b, int c) {
    return sn_delaunay_orient(xy_of(w, a), xy_of(w, b), xy_of(w, c));
}

static int add_tri(work *w, int a, int b, int c) {
    int t = w->ntri++;
    w->v[3 * t] = a;
    w->v[3 * t + 1] = b;
    w->v[3 * t + 2] = c;
    w->nb[3 * t] = w->nb[3 * t + 1] = w->nb[3 * t + 2] = -1;
    return t;
}

static int has_vertex(const work *w, int t, int x) {
    return w->v[3 * t] == x || w->v[3 * t + 1] == x || w->v[3 * t + 2] == x;
}

/* the slot of t whose vertex is not in u: the edge t shares with u is opposite it */
static int slot_apart(const work *w, int t, int u) {
    int k;
    for (k = 0; k < 3; k++)
        if (!has_vertex(w, u, w->v[3 * t + k])) return k;
    return 0;
}

static void link(work *w, int t, int u) {
    if (t < 0 || u < 0) return;
    w->nb[3 * t + slot_apart(w, t, u)] = u;
    w->nb[3 * u + slot_apart(w, u, t)] = t;
}

static void push_edge(work *w, int e) {
    if (w->nb[e] < 0 || w->mark[e]) return;
    w->mark[e] = 1;
    w->stack[w->nstack++] = e;
}

/* the fan over the collinear run 0..k-1 to point k; sets up the hull */
static void start_fan(work *w, int k) {
    int i, ccw = orient_of(w, 0, 1, k) > 0;
    for (i = 0; i + 1 < k; i++) {
        int t = ccw ? add_tri(w, i, i + 1, k) : add_tri(w, i + 1, i, k);
        if (i > 0) link(w, t - 1, t);
        if (ccw) {
            w->next[i] = i + 1;
            w->prev[i + 1] = i;
            w->htri[i] = t;
        } else {
            w->next[i + 1] = i;
            w->prev[i] = i + 1;
            w->htri[i + 1] = t;
        }
    }
    if (ccw) {
        w->next[k - 1] = k; w->prev[k] = k - 1; w->htri[k - 1] = k - 2;
        w->next[k] = 0;     w->prev[0] = k;     w->htri[k] = 0;
    } else {
        w->next[0] = k;     w->prev[k] = 0;     w->htri[0] = 0;
        w->next[k] = k - 1; w->prev[k - 1] = k; w->htri[k] = k - 2;
    }
}

/* adds point p, outside the hull, seen from the hull vertex `last` */
static void add_outside(work *w, int p, int last) {
    int a = last, b = last, u, prev_t = -1, first_t = -1;
    while (orient_of(w, a, w->next[a], p) < 0) a = w->next[a];
    while (orient_of(w, w->prev[b], b, p) < 0) b = w->prev[b];
    for (u = b; u != a; u = w->next[u]) {
        int t = add_tri(w, w->next[u], u, p);
        link(w, t, w->htri[u]);
        link(w, t, prev_t);
        if (first_t < 0) first_t = t;
        prev_t = t;
    }
    w->next[b] = p;
    w->prev[p] = b;
    w->next[p] = a;
    w->prev[a] = p;
    w->htri[b] = first_t;
    w->htri[p] = prev_t;
}

/* is the edge e (slot k of triangle t) illegal? a, b, c are t's vertices from slot k, d is the
   far vertex of the neighbour; a tie on the circle goes to the diagonal through the smallest */
static int illegal(const work *w, int a, int b, int c, int d) {
    int s = sn_delaunay_incircle(xy_of(w, a), xy_of(w, b), xy_of(w, c), xy_of(w, d));
    int lo = a;
    if (s != 0) return s > 0;
    if (b < lo) lo = b;
    if (c < lo) lo = c;
    if (d < lo) lo = d;
    return lo == a || lo == d;
}

static void repoint(work *w, int t, int from, int to) {
    int k;
    if (t < 0) return;
    for (k = 0; k < 3; k++)
        if (w->nb[3 * t + k] == from) w->nb[3 * t + k] = to;
}

static void flip_until_delaunay(work *w) {
    long budget = 20L * w->ntri * w->ntri + 100; /* never reached with exact predicates */
    int e;
    for (e = 0; e < 3 * w->ntri; e++) push_edge(w, e);
    while (w->nstack > 0 && budget-- > 0) {
        int t, k, u, ku, a, b, c, d, nab, nca, nbd, ndc;
        e = w->stack[--w->nstack];
        w->mark[e] = 0;
        t = e / 3;
        k = e % 3;
        u = w->nb[e];
        if (u < 0) continue;
        a = w->v[3 * t + k];
        b = w->v[3 * t + (k + 1) % 3];
        c = w->v[3 * t + (k + 2) % 3];
        ku = slot_apart(w, u, t);
        d = w->v[3 * u + ku];
        if (!illegal(w, a, b, c, d)) continue;
        nab = w->nb[3 * t + (k + 2) % 3];
        nca = w->nb[3 * t + (k + 1) % 3];
        nbd = w->nb[3 * u + (ku + 1) % 3]; /* u is (d, c, b) from ku: edge (b, d) is opposite c */
        ndc = w->nb[3 * u + (ku + 2) % 3]; /* and edge (d, c) is opposite b */
        w->v[3 * t] = a; w->v[3 * t + 1] = b; w->v[3 * t + 2] = d;
        w->nb[3 * t] = nbd; w->nb[3 * t + 1] = u; w->nb[3 * t + 2] = nab;
        w->v[3 * u] = a; w->v[3 * u + 1] = d; w->v[3 * u + 2] = c;
        w->nb[3 * u] = ndc; w->nb[3 * u + 1] = nca; w->nb[3 * u + 2] = t;
        repoint(w, nbd, u, t);
        repoint(w, nca, t, u);
        push_edge(w, 3 * t);
        push_edge(w, 3 * t + 2);
        push_edge(w, 3 * u);
        push_edge(w, 3 * u + 1);
    }
}

int sn_delaunay_build(const double *xy, int n, void *scratch, int *tris, int *nbrs) {
    work w;
    size_t t = (size_t)sn_delaunay_max_triangles(n);
    int *ints, i, k;
    if (n < 3) return 0;
    w.pts = (rec *)scratch;
    ints = (int *)((char *)scratch + SN_ALIGN16((size_t)n * sizeof(rec)));
    w.v = ints;
    w.nb = w.v + 3 * t;
    w.stack = w.nb + 3 * t;
    w.mark = w.stack + 3 * t;
    w.next = w.mark + 3 * t;
    w.prev = w.next + n;
    w.htri = w.prev + n;
    w.ntri = w.nstack = 0;
    for (i = 0; i < 3 * (int)t; i++) w.mark[i] = 0;
    for (i = 0; i < n; i++) {
        w.pts[i].x = xy[2 * i];
        w.pts[i].y = xy[2 * i + 1];
        w.pts[i].idx = i;
    }
    sort_xy(w.pts, n);
    for (k = 2; k < n && orient_of(&w, 0, 1, k) == 0; k++) {}
    if (k == n) return 0;
    start_fan(&w, k);
    for (i = k + 1; i < n; i++) add_outside(&w, i, i - 1);
    flip_until_delaunay(&w);
    for (i = 0; i < 3 * w.ntri; i++) {
        tris[i] = w.pts[w.v[i]].idx;
        if (nbrs != NULL) nbrs[i] = w.nb[i];
    }
    return w.ntri;
}
