#include "chain.h"

#include "pose.h"

#include <math.h>
#include <string.h>
/* x86-64 with GCC or Clang: the collider filter also has an AVX version, chosen at run time */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SN_CHAIN_AVX 1
#include <immintrin.h>
#endif

/* for a function that measured faster out of line (the sweep's solve: inlined into the step
   loop by gcc 12, the step took 10% longer) */
#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE
#endif

#define MAX_POINTS 65536
#define MAX_COLLIDERS 4096
#define MAX_STEPS_LIMIT 1000
#define MAX_RATE 10000.0
#define REF_STEP (1.0 / 60.0) /* damping and the compliances are defined per 1/60 s */
#define COLLIDE_PASSES 4
#define SWEEP_BISECTIONS 40
#define NEAR_SOA 32 /* near colliders whose cores the first collision pass filters all at once */
#define FEW_COLLIDERS 4 /* at most this many outside round colliders: no broad phase (all_near) */
/* Stiffness per step of the linearised stretch penalty: stiff against the unit masses, soft
   enough that the elimination keeps full precision far from the origin (1e-12 at 1000 units). */
#define STRETCH_K 1e4
#define MAX_K 1e6 /* the stiffness per step of elasticity or bend at 1 (rigid) */

/* ---- small vector helpers (double[3]) ---------------------------------------------------- */

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void set3(double *o, double x, double y, double z) { o[0] = x; o[1] = y; o[2] = z; }
static void copy3(double *o, const double *a) { o[0] = a[0]; o[1] = a[1]; o[2] = a[2]; }
static void sub3(double *o, const double *a, const double *b) { set3(o, a[0] - b[0], a[1] - b[1], a[2] - b[2]); }
/* o = a + s * b */
static void madd3(double *o, const double *a, double s, const double *b) {
    set3(o, a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]);
}
static void lerp3(double *o, const double *a, const double *b, double t) {
    set3(o, a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2]));
}
static void cross3(double *o, const double *a, const double *b) {
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    set3(o, x, y, z);
}
static double len3(const double *a) { return sqrt(dot3(a, a)); }
static double clamp01(double x) { return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x; }
static int finite3(const double *a) { return sn_isfinite(a[0]) && sn_isfinite(a[1]) && sn_isfinite(a[2]); }
/* finite and within SN_CHAIN_MAX_COORD: what positions, radii and accelerations must be */
static int inrange(double x) { return sn_isfinite(x) && fabs(x) <= SN_CHAIN_MAX_COORD; }
static int inrange3(const double *a) { return inrange(a[0]) && inrange(a[1]) && inrange(a[2]); }

/* o = a / |a| and returns |a|; a zero vector gives o = 0 */
static double unit3(double *o, const double *a) {
    double l = len3(a), k;
    if (!(l > 0.0)) {
        set3(o, 0.0, 0.0, 0.0);
        return l;
    }
    k = 1.0 / l;
    set3(o, a[0] * k, a[1] * k, a[2] * k);
    return l;
}

/* A unit vector perpendicular to the unit vector u, taken from `hint` when it is not (nearly)
   parallel to u, else from the basis axis least aligned with u: deterministic. */
static void perp3(double *o, const double *u, const double *hint) {
    double w[3], e[3] = {0, 0, 0};
    madd3(w, hint, -dot3(hint, u), u);
    if (dot3(w, w) > 1e-12) {
        unit3(o, w);
        return;
    }
    if (fabs(u[0]) <= fabs(u[1]) && fabs(u[0]) <= fabs(u[2])) e[0] = 1;
    else if (fabs(u[1]) <= fabs(u[2])) e[1] = 1;
    else e[2] = 1;
    cross3(w, u, e);
    unit3(o, w);
}

/* Normalises a quaternion in place: for the near-unit quaternions of products and poses (no
   overflow guard, unlike sn_quat_normalize); SN_EINVAL, and the identity, for a zero or
   non-finite one. */
static sn_status qunit(sn_quat *q) {
    double l2 = q->x * q->x + q->y * q->y + q->z * q->z + q->w * q->w, k;
    if (!(l2 > 0.0) || !(l2 - l2 == 0.0)) {
        q->x = q->y = q->z = 0.0;
        q->w = 1.0;
        return SN_EINVAL;
    }
    k = 1.0 / sqrt(l2);
    q->x *= k; q->y *= k; q->z *= k; q->w *= k;
    return SN_OK;
}

/* the shortest-arc rotation from unit u to unit v; a half turn for opposite ones */
static void arc_quat(const double *u, const double *v, sn_quat *q) {
    double k[3], cs = dot3(u, v);
    if (1.0 + cs < 1e-9) {
        double e[3], z[3] = {0, 0, 0};
        perp3(e, u, z);
        q->x = e[0]; q->y = e[1]; q->z = e[2]; q->w = 0.0;
        return;
    }
    cross3(k, u, v); /* (u x v, 1 + u . v) is twice the half-angle rotation, unnormalised */
    q->x = k[0]; q->y = k[1]; q->z = k[2]; q->w = 1.0 + cs;
    (void)qunit(q);
}

/* ---- rigid frames ------------------------------------------------------------------------- */

typedef struct frame {
    sn_quat q;   /* unit rotation */
    double t[3]; /* translation */
} frame;

static void frame_identity(frame *f) {
    f->q.x = f->q.y = f->q.z = 0.0;
    f->q.w = 1.0;
    set3(f->t, 0.0, 0.0, 0.0);
}

static int frame_equal(const frame *a, const frame *b) {
    return a->q.x == b->q.x && a->q.y == b->q.y && a->q.z == b->q.z && a->q.w == b->q.w &&
           a->t[0] == b->t[0] && a->t[1] == b->t[1] && a->t[2] == b->t[2];
}

/* rotation matrix (row-major 3x3) of a unit quaternion */
static void quat_matrix(const sn_quat *q, double m[9]) {
    double x = q->x, y = q->y, z = q->z, w = q->w;
    m[0] = 1 - 2 * (y * y + z * z); m[1] = 2 * (x * y - z * w);     m[2] = 2 * (x * z + y * w);
    m[3] = 2 * (x * y + z * w);     m[4] = 1 - 2 * (x * x + z * z); m[5] = 2 * (y * z - x * w);
    m[6] = 2 * (x * z - y * w);     m[7] = 2 * (y * z + x * w);     m[8] = 1 - 2 * (x * x + y * y);
}

static void mat_apply(const double m[9], const double *v, double *o) {
    set3(o, m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
         m[6] * v[0] + m[7] * v[1] + m[8] * v[2]);
}

/* A rigid motion x -> m x + t, applied to points. */
typedef struct motion {
    double m[9];
    double t[3];
} motion;

static void motion_apply(const motion *d, double *x) {
    double r[3];
    mat_apply(d->m, x, r);
    set3(x, r[0] + d->t[0], r[1] + d->t[1], r[2] + d->t[2]);
}

/* the frame at fraction v from f0 to f1 (slerp and lerp) */
static void frame_at(const frame *f0, const frame *f1, double v, frame *out) {
    if (v <= 0.0) { *out = *f0; return; }
    if (v >= 1.0) { *out = *f1; return; }
    if (sn_quat_slerp(&f0->q, &f1->q, v, &out->q) != SN_OK) out->q = f1->q;
    lerp3(out->t, f0->t, f1->t, v);
}

/* the motion that takes frame a to frame b: x -> b a^-1 x */
static void motion_between(const frame *a, const frame *b, motion *d) {
    sn_quat ac, r;
    double ta[3];
    sn_quat_conj(&a->q, &ac);
    sn_quat_mul(&b->q, &ac, &r);
    (void)qunit(&r);
    quat_matrix(&r, d->m);
    mat_apply(d->m, a->t, ta);
    sub3(d->t, b->t, ta);
}

/* ---- the object ----------------------------------------------------------------------------- */

typedef struct particle {
    double x[3];    /* world position at the end of the last step */
    double xp[3];   /* world position at the end of the step before: Verlet history, render start */
    double a0[3];   /* animated world position at the previous update */
    double a1[3];   /* animated world position at the current update */
    double at[3];   /* animated world position at the end of the current step */
    double da[3];   /* this step: unit animated direction from the parent (0 for none) */
    double len;     /* this step: animated length of the segment to the parent */
    double rest[3]; /* points mode: rest position in the root frame */
    double fd;      /* per step: fraction of the velocity kept */
    double ke, kb;  /* per step: elasticity and bend stiffness, h^2 / compliance (0: off) */
    double D[6];    /* soft solve: symmetric diagonal block (xx xy xz yy yz zz) */
    double B[9];    /* soft solve: block to the parent, then D^-1 B */
    double G[9];    /* soft solve: block to the grandparent, then D^-1 G */
    double r[3];    /* soft solve: right-hand side, then D^-1 r; sweep: the prediction pulled toward a */
    double dx[3];   /* soft solve: the correction, then the solved segment from the parent;
                       sweep: the animated segment from the parent */
    double u[3];    /* sweep: this step, unit direction of the solved segment from the parent */
    double wsoft;   /* sweep: 1 / (1 + ke + kb) */
    double wbend;   /* sweep: kb / (1 + ke + kb) */
    double av;      /* sweep: this step, the parent's animated direction . dx */
    double vx[3];   /* sweep: this step, dx x the parent's animated direction */
    int hasb, hasg; /* the solve: B, G are not zero */
    double param[SN_CHAIN_PER_PARTICLE];
    int parent;  /* particle index, -1 for a root (kinematic: inverse mass 0) */
    int depth;   /* 0 at a root */
    int joint;   /* skeleton joint, -1 for a virtual tip and in points mode */
    int child;   /* first child particle, -1 for none */
    int sibling; /* next child of the same parent, -1 for none */
    int tip;     /* 1 for a virtual tip (end_length) */
} particle;

/* skeleton mode: the model transform of a particle's joint as read from the pose */
typedef struct jointdata {
    double m[12];  /* model matrix, row-major 3x4: linear part (rotation and scale), translation */
    sn_quat q;     /* animated model rotation (the product of the rotations, scales ignored) */
    sn_quat lq;    /* animated local rotation, normalised */
    sn_quat nq;    /* model rotation after the write-back */
    double mp[3];  /* animated model position (virtual tips too) */
    double pad_;
} jointdata;

typedef struct collider {
    sn_collider_def def;
    double a[3], b[3];  /* centre or end a; end b */
    double u[3];        /* capsule: unit axis a -> b; plane: unit normal */
    double len;         /* capsule axis length */
    double rmin, rmax;  /* the smaller and the larger radius */
    double s, cs;       /* capsule: sine and cosine of the taper, (r_a - r_b) / len */
    double ua;          /* plane: u . a */
    int kind;           /* KIND_ROUND (outside sphere or capsule), KIND_PLANE (outside), KIND_INSIDE */
} collider;

#define KIND_ROUND 0
#define KIND_PLANE 1
#define KIND_INSIDE 2

/* colliders' cores as arrays (see struct sn_chain), padded to a multiple of 4 with far entries */
typedef struct cores {
    double ax[NEAR_SOA], ay[NEAR_SOA], az[NEAR_SOA];
    double ux[NEAR_SOA], uy[NEAR_SOA], uz[NEAR_SOA];
    double len[NEAR_SOA], reach[NEAR_SOA];
} cores;

/* a collider filter: which of the n cores of s a ball of radius r at x may touch, as bits */
typedef unsigned (*filter_fn)(const cores *s, int n, const double *x, double r);

/* entry j of s: collider k's core, or (k NULL) padding: a core 1e30 away (coordinates are at
   most SN_CHAIN_MAX_COORD) with no reach */
static void cores_set(cores *s, int j, const collider *k) {
    if (k == NULL) {
        s->ax[j] = s->ay[j] = s->az[j] = 1e30;
        s->ux[j] = s->uy[j] = s->uz[j] = 0.0;
        s->len[j] = s->reach[j] = 0.0;
        return;
    }
    s->ax[j] = k->a[0];
    s->ay[j] = k->a[1];
    s->az[j] = k->a[2];
    s->ux[j] = k->u[0];
    s->uy[j] = k->u[1];
    s->uz[j] = k->u[2];
    s->len[j] = k->len;
    s->reach[j] = k->kind == KIND_ROUND ? k->rmax : HUGE_VAL;
}

struct sn_chain {
    int n;          /* particles */
    int njoint;     /* particles carrying a skeleton joint (the first njoint); 0 in points mode */
    int npoints;    /* points mode: the given points (the first npoints; virtual tips follow) */
    int nanc;       /* skeleton mode: ancestors of the root joint */
    int ncol, maxcol;
    int nflat;      /* colliders that are not outside round ones (planes, inside colliders) */
    int max_steps;
    int max_depth;
    int root_joint; /* skeleton mode: the chain's root joint, else -1 */
    int space;
    int solver;     /* sn_chain_solver */
    int started;    /* 0 until the first step, which starts at the animated pose */
    int teleport_pending;
    int anim_dirty; /* points mode: moved since the animated positions were computed */
    double rate, h, acc, alpha;
    double teleport, end_length, length;
    double rmax;    /* the largest radius of a moving particle */
    int carries;    /* 1 when some particle carries the placement's motion (parent space, or inert > 0) */
    int simd;       /* sn_chain_simd_level: how colliders are filtered (the same results on every path) */
    filter_fn within; /* the filter of that level */
    double gravity[3], force[3];
    frame place;          /* points mode: the transform of the rest points */
    frame carry0, carry1; /* the frame whose motion is carried, at the previous / current update */
    frame root0, root1;   /* the root's world frame at the previous / current update */
    sn_quat pq;           /* skeleton mode: model rotation of the root joint's parent, last read */
    const struct sn_skeleton *skel;
    particle *p;
    collider *col;
    jointdata *jd;  /* skeleton mode: n entries */
    int *anc;       /* skeleton mode: the root joint's ancestors, topmost first */
    int *near;      /* this step: the colliders that can reach the ball bc, br (maxcol entries) */
    int nnear;      /* this step: entries in near */
    int npad;       /* this step: entries of the near cores, nnear (at most NEAR_SOA) rounded up to 4 */
    double sweep2;  /* this step: the squared thinnest radius of the near outside round colliders */
    /* the cores of colliders as arrays, for filters that run over all of them at once: an end, the
       unit axis, the axis length (a sphere's axis is 0) and the radius within which a particle
       centre can touch them, before the particle radius (HUGE_VAL: always tested, for planes and
       inside colliders). `all`: the first NEAR_SOA colliders, kept as they are added and moved;
       `nearc`: this step, the near colliders when some are far (when none is, `all` serves) */
    cores all, nearc;
    int nall;       /* entries of `all` in use, padded: the first NEAR_SOA colliders rounded up to 4 */
    const cores *near_cores; /* this step: the near colliders' cores, `all` when they are all of them */
    double bc[3], br2; /* this step: a ball holding every moving particle's start and solved positions */
    int everywhere;    /* this step: no broad phase (all_near), the ball is all space */
};

/* ---- parameters ------------------------------------------------------------------------------ */

static const char *const param_names[SN_CHAIN_PARAM_COUNT] = {
    "damping", "elasticity", "stiffness", "inert", "radius", "gravity",
    "force", "rate", "max_steps", "teleport", "end_length"};

int sn_chain_param_find(const char *name) {
    int i;
    for (i = 0; i < SN_CHAIN_PARAM_COUNT; i++)
        if (strcmp(name, param_names[i]) == 0) return i;
    return -1;
}

const char *sn_chain_param_name(int param) {
    return param >= 0 && param < SN_CHAIN_PARAM_COUNT ? param_names[param] : NULL;
}

int sn_chain_param_arity(int param) { return param == SN_CHAIN_GRAVITY || param == SN_CHAIN_FORCE ? 3 : 1; }

/* Checks one value of a parameter; `arg` is the argument blamed. */
static sn_status check_value(int param, const double *v, int arg, sn_error *err) {
    const char *name = param_names[param];
    if (param == SN_CHAIN_GRAVITY || param == SN_CHAIN_FORCE) {
        if (!finite3(v)) return sn_fail_arg(err, arg, SN_EINVAL, "'%s' is not finite", name);
        if (!inrange3(v))
            return sn_fail_arg(err, arg, SN_EINVAL, "'%s' is too large (at most %g in magnitude)", name, SN_CHAIN_MAX_COORD);
        return SN_OK;
    }
    if (!sn_isfinite(v[0])) return sn_fail_arg(err, arg, SN_EINVAL, "'%s' is not finite", name);
    switch (param) {
    case SN_CHAIN_DAMPING: case SN_CHAIN_ELASTICITY: case SN_CHAIN_STIFFNESS: case SN_CHAIN_INERT:
        if (v[0] < 0.0 || v[0] > 1.0)
            return sn_fail_arg(err, arg, SN_EINVAL, "'%s' must be in [0, 1] (got %g)", name, v[0]);
        break;
    case SN_CHAIN_RATE:
        if (!(v[0] >= 1.0) || v[0] > MAX_RATE) /* below 1 step per second is no simulation (and 1/rate overflows) */
            return sn_fail_arg(err, arg, SN_EINVAL, "'rate' must be in [1, %g] (got %g)", MAX_RATE, v[0]);
        break;
    case SN_CHAIN_MAX_STEPS:
        if (v[0] != floor(v[0]) || v[0] < 1.0 || v[0] > MAX_STEPS_LIMIT)
            return sn_fail_arg(err, arg, SN_EINVAL, "'max_steps' must be an integer in [1, %d] (got %g)",
                               MAX_STEPS_LIMIT, v[0]);
        break;
    default: /* radius, teleport, end_length */
        if (v[0] < 0.0) return sn_fail_arg(err, arg, SN_EINVAL, "'%s' must not be negative (got %g)", name, v[0]);
        if (v[0] > SN_CHAIN_MAX_COORD)
            return sn_fail_arg(err, arg, SN_EINVAL, "'%s' is too large (at most %g)", name, SN_CHAIN_MAX_COORD);
        break;
    }
    return SN_OK;
}

/* Stiffness per step of a parameter s in [0, 1]: h^2 / compliance, the compliance being
   REF_STEP^2 (1 - s) / s; 0 for s = 0 (off), capped at MAX_K (rigid) near s = 1. */
static double stiffness_per_step(double s, double h) {
    double k;
    if (s <= 0.0) return 0.0;
    if (s >= 1.0) return MAX_K;
    k = s / (1.0 - s) * (h / REF_STEP) * (h / REF_STEP);
    return k < MAX_K ? k : MAX_K;
}

static void update_factors(sn_chain *c, particle *p) {
    double d = p->param[SN_CHAIN_DAMPING];
    p->fd = d >= 1.0 ? 0.0 : pow(1.0 - d, c->h / REF_STEP);
    p->ke = stiffness_per_step(p->param[SN_CHAIN_ELASTICITY], c->h);
    p->kb = stiffness_per_step(p->param[SN_CHAIN_STIFFNESS], c->h);
    p->wsoft = 1.0 / (1.0 + p->ke + p->kb);
    p->wbend = p->kb * p->wsoft;
}

/* after a per-particle parameter changed: the largest radius of a moving particle (roots do not
   collide), and whether any particle carries the placement's motion */
static void update_chain_wide(sn_chain *c) {
    int i;
    c->rmax = 0.0;
    c->carries = c->space == SN_CHAIN_PARENT;
    for (i = 0; i < c->n; i++) {
        if (c->p[i].parent >= 0 && c->p[i].param[SN_CHAIN_RADIUS] > c->rmax) c->rmax = c->p[i].param[SN_CHAIN_RADIUS];
        if (c->p[i].param[SN_CHAIN_INERT] > 0.0) c->carries = 1;
    }
}

/* value of a curve at depth d of max_depth */
static double curve_at(const sn_chain_curve *cv, int d, int max_depth) {
    if (cv->count == 1) return cv->values[0];
    if (cv->count == max_depth + 1) return cv->values[d];
    return cv->values[0] + (cv->values[1] - cv->values[0]) * (max_depth > 0 ? (double)d / max_depth : 0.0);
}

static sn_status check_curve(int param, const sn_chain_curve *cv, int max_depth, int arg, sn_error *err) {
    int i;
    if (cv->count == 0) return SN_OK;
    if (cv->values == NULL || cv->count < 0 ||
        (cv->count > 2 && cv->count != max_depth + 1))
        return sn_fail_arg(err, arg, SN_EINVAL, "'%s' has %d values: give 1, 2 (start, end) or %d (one per depth)",
                           param_names[param], cv->count, max_depth + 1);
    for (i = 0; i < cv->count; i++) {
        sn_status st = check_value(param, &cv->values[i], arg, err);
        if (st != SN_OK) return st;
    }
    return SN_OK;
}

/* ---- topology: the particles of a definition --------------------------------------------- */

/* Checks the points of a definition; *n is an upper bound of the particles (one virtual tip per
   point; init counts them exactly), *max_depth the greatest depth (+1 with virtual tips, as the
   deepest point is a leaf). */
static sn_status points_topology(const sn_chain_def *def, int *n, int *max_depth, sn_error *err) {
    int i, deepest = 0;
    if (def->count < 1 || def->count > MAX_POINTS)
        return sn_fail_arg(err, 1, SN_EINVAL, "'points' must have 1 to %d points (got %d)", MAX_POINTS, def->count);
    if (def->points == NULL || def->parents == NULL)
        return sn_fail_arg(err, 1, SN_EINVAL, "'points' and 'parents' are both needed");
    for (i = 0; i < def->count; i++) {
        int p = def->parents[i], d = 0, j;
        if (!finite3(&def->points[3 * i]))
            return sn_fail_arg(err, 1, SN_EINVAL, "point %d is not finite", i + 1);
        if (!inrange3(&def->points[3 * i]))
            return sn_fail_arg(err, 1, SN_EINVAL, "point %d is too far from the origin (at most %g)", i + 1,
                               SN_CHAIN_MAX_COORD);
        if (p < -1 || p >= i)
            return sn_fail_arg(err, 1, SN_EINVAL, "parent of point %d must be a point before it or the root (got %d)",
                               i + 1, p + 1);
        for (j = i; def->parents[j] >= 0; j = def->parents[j]) d++;
        if (d > deepest) deepest = d;
    }
    *n = def->end_length > 0.0 ? 2 * def->count : def->count;
    *max_depth = def->end_length > 0.0 && deepest > 0 ? deepest + 1 : deepest;
    return SN_OK;
}

static sn_status skeleton_topology(const sn_chain_def *def, int *n, int *njoint, int *nanc, int *max_depth,
                                   sn_error *err);

static sn_status topology(const sn_chain_def *def, int *n, int *njoint, int *nanc, int *max_depth, sn_error *err) {
    if (def->skeleton != NULL) {
        if (def->count != 0 || def->points != NULL)
            return sn_fail_arg(err, 1, SN_EINVAL, "give either 'points' or 'skeleton', not both");
        return skeleton_topology(def, n, njoint, nanc, max_depth, err);
    }
    *njoint = 0;
    *nanc = 0;
    if (def->count == 0 && def->points == NULL)
        return sn_fail_arg(err, 1, SN_EINVAL, "no 'points' and no 'skeleton'");
    return points_topology(def, n, max_depth, err);
}

void sn_chain_def_init(sn_chain_def *def) {
    memset(def, 0, sizeof *def);
    def->gravity[1] = -9.81;
    def->end_length = 0.0;
    def->rate = 60.0;
    def->max_steps = 4;
    def->max_colliders = 16;
    def->teleport = -1.0;
    def->space = SN_CHAIN_WORLD;
    def->solver = SN_CHAIN_COUPLED;
}

static const double default_params[SN_CHAIN_PER_PARTICLE] = {0.1, 0.1, 0.1, 0.0, 0.0};

sn_status sn_chain_validate(const sn_chain_def *def, sn_error *err) {
    int n, njoint, nanc, max_depth, i;
    double v;
    sn_status st;
    if (def == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no definition");
    st = topology(def, &n, &njoint, &nanc, &max_depth, err);
    if (st != SN_OK) return st;
    for (i = 0; i < SN_CHAIN_PER_PARTICLE; i++) {
        st = check_curve(i, &def->curves[i], max_depth, 1, err);
        if (st != SN_OK) return st;
    }
    if ((st = check_value(SN_CHAIN_GRAVITY, def->gravity, 1, err)) != SN_OK) return st;
    if ((st = check_value(SN_CHAIN_FORCE, def->force, 1, err)) != SN_OK) return st;
    if ((st = check_value(SN_CHAIN_END_LENGTH, &def->end_length, 1, err)) != SN_OK) return st;
    if ((st = check_value(SN_CHAIN_RATE, &def->rate, 1, err)) != SN_OK) return st;
    v = def->max_steps;
    if ((st = check_value(SN_CHAIN_MAX_STEPS, &v, 1, err)) != SN_OK) return st;
    if (!sn_isfinite(def->teleport)) return sn_fail_arg(err, 1, SN_EINVAL, "'teleport' is not finite");
    if (def->max_colliders < 0 || def->max_colliders > MAX_COLLIDERS)
        return sn_fail_arg(err, 1, SN_EINVAL, "'max_colliders' must be in [0, %d] (got %d)", MAX_COLLIDERS,
                           def->max_colliders);
    if (def->space != SN_CHAIN_WORLD && def->space != SN_CHAIN_PARENT)
        return sn_fail_arg(err, 1, SN_EINVAL, "unknown space %d", (int)def->space);
    if (def->solver != SN_CHAIN_SWEEP && def->solver != SN_CHAIN_COUPLED)
        return sn_fail_arg(err, 1, SN_EINVAL, "unknown solver %d", (int)def->solver);
    return SN_OK;
}

/* byte offsets of the parts of the block: off[0] particles, [1] colliders, [2] joint data,
   [3] ancestors, [4] the near colliders; returns the total */
static size_t layout(int n, int maxcol, int skeleton, int nanc, size_t off[5]) {
    size_t s = SN_ALIGN16(sizeof(sn_chain));
    off[0] = s;
    s += SN_ALIGN16((size_t)n * sizeof(particle));
    off[1] = s;
    s += SN_ALIGN16((size_t)maxcol * sizeof(collider));
    off[2] = s;
    s += skeleton ? SN_ALIGN16((size_t)n * sizeof(jointdata)) : 0;
    off[3] = s;
    s += SN_ALIGN16((size_t)nanc * sizeof(int));
    off[4] = s;
    s += SN_ALIGN16((size_t)maxcol * sizeof(int));
    return s;
}

size_t sn_chain_size(const sn_chain_def *def) {
    int n, njoint, nanc, max_depth;
    size_t off[5];
    if (sn_chain_validate(def, NULL) != SN_OK) return 0;
    (void)topology(def, &n, &njoint, &nanc, &max_depth, NULL);
    return layout(n, def->max_colliders, def->skeleton != NULL, nanc, off);
}

static void link_children(sn_chain *c) {
    int i;
    for (i = 0; i < c->n; i++) c->p[i].child = c->p[i].sibling = -1;
    for (i = c->n - 1; i >= 0; i--) { /* backwards, so that children come out in index order */
        int par = c->p[i].parent;
        if (par >= 0) {
            c->p[i].sibling = c->p[par].child;
            c->p[par].child = i;
        }
    }
}

/* Links the c->n particles to their children and, with `tips`, adds a virtual tip after every
   leaf (roots too when `roots`: a lone skeleton joint has a bone direction of its own), then
   links again. The block has room for them (topology counted one per particle). */
static void add_tips(sn_chain *c, int tips, int roots) {
    int i, n = c->n;
    link_children(c);
    if (!tips) return;
    for (i = 0; i < n; i++) {
        particle *t = &c->p[c->n];
        if (c->p[i].child >= 0 || (c->p[i].parent < 0 && !roots)) continue;
        t->parent = i;
        t->depth = c->p[i].depth + 1;
        t->joint = -1;
        t->tip = 1;
        c->n++;
    }
    link_children(c);
}

/* the longest root-to-leaf path of the animated pose; at[0] holds each particle's path length
   meanwhile (place_at_animation overwrites it) */
static void compute_length(sn_chain *c) {
    int i;
    double best = 0.0;
    for (i = 0; i < c->n; i++) {
        particle *p = &c->p[i];
        double d[3];
        p->at[0] = 0.0;
        if (p->parent < 0) continue;
        sub3(d, p->a1, c->p[p->parent].a1);
        p->at[0] = c->p[p->parent].at[0] + len3(d);
        if (p->at[0] > best) best = p->at[0];
    }
    c->length = best;
}

/* points mode: animated positions = place * rest; virtual tips (after the points) extend their
   leaf */
static void points_animate(sn_chain *c) {
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

static void place_at_animation(sn_chain *c) {
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

static void skeleton_init(sn_chain *c, const sn_chain_def *def);
static filter_fn filter_of(int simd);

sn_status sn_chain_init(void *mem, size_t size, const sn_chain_def *def, sn_error *err) {
    int n, njoint, nanc, max_depth, i, k;
    size_t off[5], need;
    sn_chain *c = (sn_chain *)mem;
    sn_status st = sn_chain_validate(def, err);
    if (st != SN_OK) return st;
    (void)topology(def, &n, &njoint, &nanc, &max_depth, NULL);
    need = layout(n, def->max_colliders, def->skeleton != NULL, nanc, off);
    if (mem == NULL || size < need)
        return sn_fail(err, SN_ENOMEM, "chain needs %lu bytes, got %lu", (unsigned long)need, (unsigned long)size);
    memset(mem, 0, need);
    c->n = n;
    c->njoint = njoint;
    c->nanc = nanc;
    c->maxcol = def->max_colliders;
    c->max_steps = def->max_steps;
    c->max_depth = max_depth;
    c->root_joint = -1;
    c->space = (int)def->space;
    c->solver = (int)def->solver;
    c->simd = sn_chain_simd_best();
    c->within = filter_of(c->simd);
    c->rate = def->rate;
    c->h = 1.0 / def->rate;
    c->end_length = def->end_length;
    copy3(c->gravity, def->gravity);
    copy3(c->force, def->force);
    c->p = (particle *)((char *)mem + off[0]);
    c->col = (collider *)((char *)mem + off[1]);
    c->jd = def->skeleton != NULL ? (jointdata *)((char *)mem + off[2]) : NULL;
    c->anc = (int *)((char *)mem + off[3]);
    c->near = (int *)((char *)mem + off[4]);
    frame_identity(&c->place);
    frame_identity(&c->carry1);
    frame_identity(&c->root1);
    if (def->skeleton != NULL) {
        skeleton_init(c, def);
    } else {
        k = def->count;
        for (i = 0; i < def->count; i++) {
            particle *p = &c->p[i];
            p->parent = def->parents[i];
            p->depth = p->parent < 0 ? 0 : c->p[p->parent].depth + 1;
            p->joint = -1;
            copy3(p->rest, &def->points[3 * i]);
        }
        c->n = c->npoints = def->count;
        add_tips(c, def->end_length > 0.0, 0);
        points_animate(c);
    }
    for (i = 0; i < c->n; i++) {
        particle *p = &c->p[i];
        for (k = 0; k < SN_CHAIN_PER_PARTICLE; k++)
            p->param[k] = def->curves[k].count > 0 ? curve_at(&def->curves[k], p->depth, max_depth) : default_params[k];
        update_factors(c, p);
    }
    update_chain_wide(c);
    compute_length(c);
    c->teleport = def->teleport >= 0.0 ? def->teleport : 5.0 * c->length;
    place_at_animation(c);
    return SN_OK;
}

/* ---- queries ------------------------------------------------------------------------------- */

int sn_chain_simd_best(void) {
#if SN_CHAIN_AVX
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx")) return SN_CHAIN_SIMD_AVX;
#endif
    return SN_CHAIN_SIMD_PLAIN;
}

int sn_chain_get_simd(const sn_chain *c) { return c->simd; }

int sn_chain_set_simd(sn_chain *c, int simd) {
    int best = sn_chain_simd_best();
    c->simd = simd < SN_CHAIN_SIMD_PLAIN ? SN_CHAIN_SIMD_PLAIN : simd > best ? best : simd;
    c->within = filter_of(c->simd);
    return c->simd;
}

int sn_chain_count(const sn_chain *c) { return c->n; }
int sn_chain_has_skeleton(const sn_chain *c) { return c->skel != NULL; }
int sn_chain_joint(const sn_chain *c, int i) { return i >= 0 && i < c->n && c->p[i].joint >= 0 ? c->p[i].joint : -1; }
int sn_chain_collider_count(const sn_chain *c) { return c->ncol; }
double sn_chain_length(const sn_chain *c) { return c->length; }

void sn_chain_position(const sn_chain *c, int i, sn_vec3 *out) {
    double r[3] = {0, 0, 0};
    if (i >= 0 && i < c->n) lerp3(r, c->p[i].xp, c->p[i].x, c->alpha);
    out->x = r[0];
    out->y = r[1];
    out->z = r[2];
}

void sn_chain_step_position(const sn_chain *c, int i, sn_vec3 *out) {
    double r[3] = {0, 0, 0};
    if (i >= 0 && i < c->n) copy3(r, c->p[i].x);
    out->x = r[0];
    out->y = r[1];
    out->z = r[2];
}

/* ---- live parameters ------------------------------------------------------------------------ */

sn_status sn_chain_set_param(sn_chain *c, int param, int i, const double *value, sn_error *err) {
    sn_status st;
    int k;
    if (param < 0 || param >= SN_CHAIN_PARAM_COUNT) return sn_fail_arg(err, 2, SN_EINVAL, "unknown parameter %d", param);
    if (param == SN_CHAIN_END_LENGTH)
        return sn_fail_arg(err, 2, SN_EINVAL, "'end_length' is fixed when the chain is created");
    st = check_value(param, value, 3, err);
    if (st != SN_OK) return st;
    if (param < SN_CHAIN_PER_PARTICLE) {
        if (i >= c->n) return sn_fail_arg(err, 4, SN_ERANGE, "particle %d out of range [1, %d]", i + 1, c->n);
        for (k = i < 0 ? 0 : i; k < (i < 0 ? c->n : i + 1); k++) {
            c->p[k].param[param] = value[0];
            update_factors(c, &c->p[k]);
        }
        update_chain_wide(c);
        return SN_OK;
    }
    switch (param) {
    case SN_CHAIN_GRAVITY: copy3(c->gravity, value); break;
    case SN_CHAIN_FORCE: copy3(c->force, value); break;
    case SN_CHAIN_RATE:
        c->rate = value[0];
        c->h = 1.0 / value[0];
        for (k = 0; k < c->n; k++) update_factors(c, &c->p[k]);
        break;
    case SN_CHAIN_MAX_STEPS: c->max_steps = (int)value[0]; break;
    default: c->teleport = value[0]; break;
    }
    return SN_OK;
}

sn_status sn_chain_set_curve(sn_chain *c, int param, const sn_chain_curve *curve, sn_error *err) {
    sn_status st;
    int i;
    if (param < 0 || param >= SN_CHAIN_PER_PARTICLE)
        return sn_fail_arg(err, 2, SN_EINVAL, "'%s' is not a per-joint parameter",
                           param >= 0 && param < SN_CHAIN_PARAM_COUNT ? param_names[param] : "?");
    if (curve->count < 1) return sn_fail_arg(err, 3, SN_EINVAL, "'%s' has no values", param_names[param]);
    st = check_curve(param, curve, c->max_depth, 3, err);
    if (st != SN_OK) return st;
    for (i = 0; i < c->n; i++) {
        c->p[i].param[param] = curve_at(curve, c->p[i].depth, c->max_depth);
        update_factors(c, &c->p[i]);
    }
    update_chain_wide(c);
    return SN_OK;
}

sn_status sn_chain_get_param(const sn_chain *c, int param, int i, double *value) {
    if (param < 0 || param >= SN_CHAIN_PARAM_COUNT) return SN_ERANGE;
    if (param < SN_CHAIN_PER_PARTICLE) {
        if (i >= c->n) return SN_ERANGE;
        value[0] = c->p[i < 0 ? 0 : i].param[param];
        return SN_OK;
    }
    switch (param) {
    case SN_CHAIN_GRAVITY: copy3(value, c->gravity); break;
    case SN_CHAIN_FORCE: copy3(value, c->force); break;
    case SN_CHAIN_RATE: value[0] = c->rate; break;
    case SN_CHAIN_MAX_STEPS: value[0] = c->max_steps; break;
    case SN_CHAIN_TELEPORT: value[0] = c->teleport; break;
    default: value[0] = c->end_length; break;
    }
    return SN_OK;
}

/* ---- colliders ------------------------------------------------------------------------------ */

sn_status sn_collider_validate(const sn_collider_def *def, sn_error *err) {
    double a[3], b[3], d[3];
    set3(a, def->a.x, def->a.y, def->a.z);
    set3(b, def->b.x, def->b.y, def->b.z);
    switch (def->shape) {
    case SN_COLLIDER_SPHERE:
        if (!finite3(a)) return sn_fail_arg(err, 1, SN_EINVAL, "sphere 'center' is not finite");
        if (!sn_isfinite(def->radius) || def->radius < 0.0)
            return sn_fail_arg(err, 1, SN_EINVAL, "sphere 'radius' must be finite and not negative");
        if (!inrange3(a) || def->radius > SN_CHAIN_MAX_COORD)
            return sn_fail_arg(err, 1, SN_EINVAL, "sphere is too large or too far (at most %g)", SN_CHAIN_MAX_COORD);
        return SN_OK;
    case SN_COLLIDER_CAPSULE:
        if (!finite3(a) || !finite3(b)) return sn_fail_arg(err, 1, SN_EINVAL, "capsule 'a' or 'b' is not finite");
        if (!sn_isfinite(def->radius) || def->radius < 0.0 || !sn_isfinite(def->radius_b) || def->radius_b < 0.0)
            return sn_fail_arg(err, 1, SN_EINVAL, "capsule 'radius' and 'radius_b' must be finite and not negative");
        if (!inrange3(a) || !inrange3(b) || def->radius > SN_CHAIN_MAX_COORD || def->radius_b > SN_CHAIN_MAX_COORD)
            return sn_fail_arg(err, 1, SN_EINVAL, "capsule is too large or too far (at most %g)", SN_CHAIN_MAX_COORD);
        sub3(d, b, a);
        if (!(len3(d) > 0.0)) return sn_fail_arg(err, 1, SN_EINVAL, "capsule ends 'a' and 'b' coincide");
        if (!sn_isfinite(len3(d))) return sn_fail_arg(err, 1, SN_EINVAL, "capsule is too long");
        if (fabs(def->radius - def->radius_b) >= len3(d))
            return sn_fail_arg(err, 1, SN_EINVAL, "capsule radii differ by its length or more (one end contains the other)");
        return SN_OK;
    case SN_COLLIDER_PLANE:
        if (!finite3(a) || !finite3(b)) return sn_fail_arg(err, 1, SN_EINVAL, "plane 'point' or 'normal' is not finite");
        if (!inrange3(a)) return sn_fail_arg(err, 1, SN_EINVAL, "plane 'point' is too far (at most %g)", SN_CHAIN_MAX_COORD);
        if (!(len3(b) > 0.0) || !sn_isfinite(len3(b))) return sn_fail_arg(err, 1, SN_EINVAL, "plane 'normal' is zero");
        return SN_OK;
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

sn_status sn_chain_add_collider(sn_chain *c, const sn_collider_def *def, int *index, sn_error *err) {
    sn_status st = sn_collider_validate(def, err);
    if (st != SN_OK) return st;
    if (c->ncol >= c->maxcol)
        return sn_fail(err, SN_ERANGE, "no room for another collider (max_colliders is %d)", c->maxcol);
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
    sn_status st;
    if (k < 0 || k >= c->ncol) return sn_fail_arg(err, 1, SN_ERANGE, "collider %d out of range [1, %d]", k + 1, c->ncol);
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

sn_status sn_chain_get_collider(const sn_chain *c, int k, sn_collider_def *out) {
    if (k < 0 || k >= c->ncol) return SN_ERANGE;
    *out = c->col[k].def;
    return SN_OK;
}

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

/* Which of the n (a multiple of 4) cores of s a ball of radius r at x may touch, as bits: the
   squared distance from x to every core at once against the reach plus r, with a margin for
   rounding (the exact tests decide). A plain loop that compilers vectorise for the baseline
   instruction set (SSE2 on x86-64: two cores per instruction); on x86-64 an AVX version (four),
   chosen at run time. Either way the exact tests decide, so the motion is the same. */
static unsigned within_plain(const cores *s, int n, const double *x, double r) {
    double slack[NEAR_SOA];
    unsigned bits = 0;
    int j;
    for (j = 0; j < n; j++) {
        double dx = x[0] - s->ax[j], dy = x[1] - s->ay[j], dz = x[2] - s->az[j];
        double t = dx * s->ux[j] + dy * s->uy[j] + dz * s->uz[j], reach = s->reach[j] + r;
        t = t < 0.0 ? 0.0 : t;
        t = t > s->len[j] ? s->len[j] : t;
        dx -= t * s->ux[j];
        dy -= t * s->uy[j];
        dz -= t * s->uz[j];
        slack[j] = reach * reach * (1.0 + 1e-9) - (dx * dx + dy * dy + dz * dz);
    }
    for (j = 0; j < n; j++) bits |= (unsigned)(slack[j] >= 0.0) << j;
    return bits;
}

#if SN_CHAIN_AVX
/* within_plain with AVX intrinsics: four cores per instruction, the same operations in the same
   order, and the bits straight from the comparison */
__attribute__((target("avx"))) static unsigned within_avx(const cores *s, int n, const double *x, double r) {
    const __m256d px = _mm256_set1_pd(x[0]), py = _mm256_set1_pd(x[1]), pz = _mm256_set1_pd(x[2]);
    const __m256d pr = _mm256_set1_pd(r), zero = _mm256_setzero_pd(), margin = _mm256_set1_pd(1.0 + 1e-9);
    unsigned bits = 0;
    int j;
    for (j = 0; j < n; j += 4) {
        __m256d ux = _mm256_loadu_pd(s->ux + j), uy = _mm256_loadu_pd(s->uy + j), uz = _mm256_loadu_pd(s->uz + j);
        __m256d dx = _mm256_sub_pd(px, _mm256_loadu_pd(s->ax + j));
        __m256d dy = _mm256_sub_pd(py, _mm256_loadu_pd(s->ay + j));
        __m256d dz = _mm256_sub_pd(pz, _mm256_loadu_pd(s->az + j));
        __m256d t = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, ux), _mm256_mul_pd(dy, uy)), _mm256_mul_pd(dz, uz));
        __m256d reach = _mm256_add_pd(_mm256_loadu_pd(s->reach + j), pr), d2;
        t = _mm256_min_pd(_mm256_max_pd(t, zero), _mm256_loadu_pd(s->len + j));
        dx = _mm256_sub_pd(dx, _mm256_mul_pd(t, ux));
        dy = _mm256_sub_pd(dy, _mm256_mul_pd(t, uy));
        dz = _mm256_sub_pd(dz, _mm256_mul_pd(t, uz));
        d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
        bits |= (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(d2, _mm256_mul_pd(_mm256_mul_pd(reach, reach), margin), _CMP_LE_OQ))
                << j;
    }
    return bits;
}
#endif

/* the filter of a sn_chain_simd_level, called through a pointer (one call, no dispatch) */
static filter_fn filter_of(int simd) {
#if SN_CHAIN_AVX
    if (simd >= SN_CHAIN_SIMD_AVX) return within_avx;
#else
    (void)simd;
#endif
    return within_plain;
}

/* the near colliders (the first NEAR_SOA) that a particle of radius r at x may touch, as bits */
static unsigned near_within(const sn_chain *c, const double *x, double r) { return c->within(c->near_cores, c->npad, x, r); }

/* ---- broad phase: per chain and step, the colliders that can reach it ---- */

/* squared distance from x to the core of a sphere (its centre) or capsule (its axis segment) */
static double core_distance2(const collider *k, const double *x) {
    double d[3], t;
    sub3(d, x, k->a);
    t = dot3(d, k->u); /* a sphere has u = 0 and len = 0 */
    t = t < 0.0 ? 0.0 : t > k->len ? k->len : t;
    madd3(d, d, -t, k->u);
    return dot3(d, d);
}

/* 1 when collider k cannot act on a particle of radius at most r anywhere in the ball (bc, br):
   every point of the ball is outside the outside-collider grown by r (or inside the
   inside-collider shrunk by r) with room to spare, so collide would not move it. Conservative:
   a sphere or round cone lies within rmax of its core, and holds the balls of radius rmin about
   its core. */
static int collider_far(const collider *k, const double *bc, double br, double r) {
    double d[3];
    if (k->def.shape == SN_COLLIDER_PLANE) {
        sub3(d, bc, k->a);
        return k->def.inside ? dot3(d, k->u) + br + r < 0.0 : dot3(d, k->u) - br - r > 0.0;
    }
    if (k->def.inside) {
        double room = k->rmin - r - br;
        return room > 0.0 && core_distance2(k, bc) < room * room;
    }
    return core_distance2(k, bc) > (k->rmax + r + br) * (k->rmax + r + br);
}

/* Before the colliders of a step: the ball around the box lo..hi of every moving particle's
   start and solved positions, and the list of the colliders that can reach a particle of radius
   at most `rmax` in it. A particle whose path stays in the ball needs only those: the others
   cannot move it (colliders_for). One that the placing or a push takes out of it is tested
   against all of them (cheaper, measured, than growing the ball by a margin). */
static void broad_phase(sn_chain *c, const double *lo, const double *hi, double rmax) {
    double d[3], br;
    unsigned cand;
    int k, nfirst = c->ncol < NEAR_SOA ? c->ncol : NEAR_SOA;
    set3(c->bc, 0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]));
    sub3(d, hi, lo);
    br = 0.5 * len3(d);
    c->br2 = br * br;
    c->everywhere = 0;
    c->nnear = 0;
    c->sweep2 = HUGE_VAL;
    /* the first NEAR_SOA at once: an outside round collider whose core is beyond its reach plus
       rmax + br is far (the filter keeps the others, and every plane and inside collider, which
       collider_far then decides) */
    cand = c->within(&c->all, c->nall, c->bc, rmax + br);
    for (k = 0; k < c->ncol; k++) {
        const collider *col = &c->col[k];
        int far = k < nfirst && !((cand >> k) & 1u);
        if (!far && (k >= nfirst || col->kind != KIND_ROUND)) far = collider_far(col, c->bc, br, rmax);
        if (far) continue;
        c->near[c->nnear++] = k;
        if (col->kind == KIND_ROUND && col->rmin * col->rmin < c->sweep2) c->sweep2 = col->rmin * col->rmin;
    }
    if (c->nnear == c->ncol && c->ncol <= NEAR_SOA) { /* all of them: `all` holds them */
        c->near_cores = &c->all;
        c->npad = c->nall;
        return;
    }
    c->near_cores = &c->nearc;
    c->npad = c->nnear < NEAR_SOA ? c->nnear : NEAR_SOA;
    for (k = 0; k < c->npad; k++) cores_set(&c->nearc, k, &c->col[c->near[k]]);
    for (; c->npad % 4 != 0; c->npad++) cores_set(&c->nearc, c->npad, NULL);
}

/* Instead of broad_phase for at most FEW_COLLIDERS outside round colliders: every collider is
   near and the ball is all space. The filter of collide looks at four cores at once (one AVX
   instruction, two SSE2), so keeping fewer would not make it cheaper: the broad phase and the
   box it needs would cost more than they save. (A plane or inside collider always passes the
   filter, so with one of them the broad phase is kept: it drops them when they are far.) */
static void all_near(sn_chain *c) {
    int k;
    set3(c->bc, 0.0, 0.0, 0.0);
    c->br2 = HUGE_VAL;
    c->everywhere = 1;
    c->sweep2 = HUGE_VAL;
    for (k = 0; k < c->ncol; k++) {
        double r = c->col[k].rmin;
        c->near[k] = k;
        if (r * r < c->sweep2) c->sweep2 = r * r;
    }
    c->nnear = c->ncol;
    c->near_cores = &c->all;
    c->npad = c->nall;
}

/* 1 when the colliders need a broad phase (else all_near) */
static int needs_broad_phase(const sn_chain *c) { return c->ncol > FEW_COLLIDERS || c->nflat > 0; }

/* 1 when x is in the broad phase's ball */
static int in_ball(const sn_chain *c, const double *x) {
    double d[3];
    if (c->everywhere) return 1;
    sub3(d, x, c->bc);
    return dot3(d, d) <= c->br2;
}

/* the colliders to test at x: the near list when x is in the ball (*list set, count returned),
   else all of them (*list NULL) */
static int colliders_for(const sn_chain *c, const double *x, int **list) {
    if (in_ball(c, x)) {
        *list = c->near;
        return c->nnear;
    }
    *list = NULL;
    return c->ncol;
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

/* Keeps particle p (whose step started at s0) out of or inside every collider: projections
   until a pass moves nothing (at most COLLIDE_PASSES), then joint projections onto the colliders
   still violated (a particle wedged between two). In the first pass, a particle that moved
   farther than an outside collider's thinnest radius is swept against it: a shorter move cannot
   pass through, a longer one is stopped where it enters. While the particle (and in the first
   pass its whole path) is in the broad phase's ball, only the colliders that can reach the ball
   are tested: the others cannot move it. `hint` is the parent's position. Returns 1 when it moved
   the particle. */
static int collide_passes(const sn_chain *c, particle *p, const double *s0, const double *parent, unsigned bits0,
                          int have_bits0) {
    double r = p->param[SN_CHAIN_RADIUS], m[3], m2, mlen = -1.0, hint[3], g[3];
    int pass, i, skip = -1;
    sub3(m, p->x, s0);
    m2 = dot3(m, m);
    sub3(hint, p->x, parent);
    pass = 0;
    if (m2 <= c->sweep2 && c->nnear <= NEAR_SOA) { /* s0 is in the ball: the ball holds every start */
        /* the common case: while x is in the ball, only the near colliders can move it, and the
           move is too short to pass through one of them, so no sweep is needed. Each pass first
           filters every near core at once (near_within), so that until something moves x only
           the colliders within reach are looked at. The same passes as the general loop below,
           which goes on where x leaves the ball. */
        int n = c->nnear;
        for (; pass < COLLIDE_PASSES && in_ball(c, p->x); pass++) {
            unsigned bits = pass == 0 && have_bits0 ? bits0 : near_within(c, p->x, r);
            int moved = 0, mover = -1, j;
            if (!bits) return pass > 0;
            for (j = 0; j < n; j++) {
                const collider *k;
                double sd;
                if (!moved && !((bits >> j) & 1u)) continue;
                if (c->near[j] == skip) continue; /* it alone moved the particle: now on its surface */
                k = &c->col[c->near[j]];
                if (k->kind == KIND_ROUND) {
                    if (!round_test(k, p->x, r, k->rmax + r, hint, g, &sd) || sd >= 0.0) continue;
                    madd3(p->x, p->x, -sd, g);
                } else if (!push_flat_or_inside(k, p->x, r, hint)) {
                    continue;
                }
                moved++;
                mover = c->near[j];
            }
            if (!moved) return pass > 0;
            skip = moved == 1 ? mover : -1;
        }
    }
    for (; pass < COLLIDE_PASSES; pass++) {
        int moved = 0, mover = -1, j, *list, *start, count = colliders_for(c, p->x, &list);
        if (pass == 0 && list != NULL) { /* the sweep needs the whole path in the ball: its start too */
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
                sweep = pass == 0 && m2 > (k->rmin + r) * (k->rmin + r);
                if (sweep && mlen < 0.0) mlen = sqrt(m2);
                reach = k->rmax + r + (sweep ? mlen : 0.0);
                if (!round_test(k, p->x, r, reach, hint, g, &sd)) continue; /* out of reach */
                if (sd < 0.0) {
                    madd3(p->x, p->x, -sd, g);
                    moved++;
                    mover = i;
                } else if (sweep && sd < mlen) {
                    /* both ends outside: did the motion pass through the collider? */
                    double sd0 = collider_sdf(k, s0, r, hint, g), t, q[3], lo, hi;
                    int it;
                    if (sd0 < 0.0 || sd0 + sd >= mlen) continue;
                    t = closest_on_motion(k, s0, m);
                    madd3(q, s0, t, m);
                    if (collider_sdf(k, q, r, hint, g) >= 0.0) continue;
                    lo = 0.0; /* outside */
                    hi = t;   /* inside */
                    for (it = 0; it < SWEEP_BISECTIONS; it++) {
                        double mid = 0.5 * (lo + hi);
                        madd3(q, s0, mid, m);
                        if (collider_sdf(k, q, r, hint, g) < 0.0) hi = mid;
                        else lo = mid;
                    }
                    madd3(p->x, s0, lo, m);
                    moved++;
                    mover = i;
                }
            } else if (push_flat_or_inside(k, p->x, r, hint)) {
                moved++;
                mover = i;
            }
        }
        if (!moved) return pass > 0;
        skip = moved == 1 ? mover : -1;
    }
    for (pass = 0; pass < COLLIDE_PASSES; pass++)
        if (!project_jointly(c, p->x, r, hint)) break;
    return 1;
}

/* collide_passes with its most common case first, inline: a particle whose move stays in the
   ball and that no near collider can reach (the first pass's filter finds nothing) is done. */
static inline int collide(const sn_chain *c, particle *p, const double *s0, const double *parent) {
    double m[3];
    sub3(m, p->x, s0);
    if (dot3(m, m) <= c->sweep2 && c->nnear <= NEAR_SOA && in_ball(c, p->x)) {
        unsigned bits = near_within(c, p->x, p->param[SN_CHAIN_RADIUS]);
        return bits ? collide_passes(c, p, s0, parent, bits, 1) : 0;
    }
    return collide_passes(c, p, s0, parent, 0, 0);
}

/* ---- stepping ------------------------------------------------------------------------------ */

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

/* s times the rotation matrix of the shortest arc from unit u to unit v (a half turn for
   opposite ones) */
static void arc_matrix(const double *u, const double *v, double s, double *m) {
    double k[3], cs = dot3(u, v), f;
    int i;
    if (1.0 + cs < 1e-9) {
        double e[3], z[3] = {0, 0, 0};
        perp3(e, u, z);
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

/* Adds the bend terms of particle p to the soft system (its parent and grandparent were set up
   before it, its own diagonal block and right-hand side hold the mass and elasticity). The bend
   constraint is linear in the positions:
       C = (x_p - x_q) - A (x_q - x_g),   A = s R,
   R the shortest arc from the parent's animated direction to p's, s the ratio of the animated
   lengths: the animated shape relative to the parent, turned and stretched with the parent's
   segment. Without a grandparent, or for a zero-length parent segment, C = (x_p - x_q) - the
   animated offset. Its energy kb |C|^2 / 2 is quadratic, so the forces it makes balance. */
static void soft_terms(sn_chain *c, particle *p) {
    particle *q = &c->p[p->parent], *g = NULL;
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
    p->D[0] += kb; p->D[3] += kb; p->D[5] += kb;
    madd3(p->r, p->r, -kb, C);
    if (g == NULL) return;
    m3_tvec(A, C, atc);
    if (q->parent >= 0) { /* q moves: (I + A)^T (I + A) = (1 + s^2) I + A + A^T */
        double d = kb * (1.0 + s * s);
        q->D[0] += d + 2.0 * kb * A[0]; q->D[1] += kb * (A[1] + A[3]); q->D[2] += kb * (A[2] + A[6]);
        q->D[3] += d + 2.0 * kb * A[4]; q->D[4] += kb * (A[5] + A[7]); q->D[5] += d + 2.0 * kb * A[8];
        for (i = 0; i < 9; i++) p->B[i] -= kb * A[i];
        p->B[0] -= kb; p->B[4] -= kb; p->B[8] -= kb;
        set3(q->r, q->r[0] + kb * (C[0] + atc[0]), q->r[1] + kb * (C[1] + atc[1]), q->r[2] + kb * (C[2] + atc[2]));
    }
    if (g->parent >= 0) { /* g moves: A^T A = s^2 I */
        double d = kb * s * s;
        g->D[0] += d; g->D[3] += d; g->D[5] += d;
        for (i = 0; i < 9; i++) p->G[i] = kb * A[i];
        p->hasg = 1;
        madd3(g->r, g->r, -kb, atc);
        if (q->parent >= 0) { /* (I + A)^T A = A + s^2 I */
            for (i = 0; i < 9; i++) q->B[i] -= kb * A[i];
            q->B[0] -= d; q->B[4] -= d; q->B[8] -= d;
        }
    }
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

/* Elasticity and bend stiffness as one implicit step (backward Euler, the exact solution of one
   XPBD step) of the quadratic energy sum ke |x - a|^2 / 2 + sum kb |C|^2 / 2 over the
   corrections dx: (I + sum k J^T J) dx = -sum k J^T C. The matrix couples a particle only with
   its parent and grandparent, and eliminating children before parents makes no other fill, so
   the system is solved exactly in linear time with 3x3 blocks. The system was assembled during
   integration and by soft_terms. */
static void solve_soft(sn_chain *c) {
    int i, k;
    for (i = c->n - 1; i >= 0; i--) { /* eliminate children before parents */
        particle *p = &c->p[i];
        double L[9], P[9], Q[9], t[9], v[3];
        int qi = p->parent;
        if (qi < 0) continue;
        sym_inverse(p->D, L);
        mat_apply(L, p->r, v);
        copy3(p->r, v);
        if (p->hasb) { /* the parent moves */
            particle *q = &c->p[qi];
            m3_mul(L, p->B, P);
            sym_sub_congruent(q->D, p->B, P);
            m3_tvec(p->B, v, t);
            madd3(q->r, q->r, -1.0, t);
            if (p->hasg) {
                m3_mul(L, p->G, Q);
                m3_tmul(p->B, Q, t);
                for (k = 0; k < 9; k++) q->B[k] -= t[k];
            }
            memcpy(p->B, P, sizeof P);
        }
        if (p->hasg) { /* the grandparent moves */
            particle *g = &c->p[c->p[qi].parent];
            if (!p->hasb) m3_mul(L, p->G, Q);
            sym_sub_congruent(g->D, p->G, Q);
            m3_tvec(p->G, v, t);
            madd3(g->r, g->r, -1.0, t);
            memcpy(p->G, Q, sizeof Q);
        }
    }
    for (i = 0; i < c->n; i++) { /* back-substitute, parents before children */
        particle *p = &c->p[i];
        double v[3];
        if (p->parent < 0) continue;
        copy3(p->dx, p->r);
        if (p->hasb) {
            mat_apply(p->B, c->p[p->parent].dx, v);
            madd3(p->dx, p->dx, -1.0, v);
        }
        if (p->hasg) {
            mat_apply(p->G, c->p[c->p[p->parent].parent].dx, v);
            madd3(p->dx, p->dx, -1.0, v);
        }
        madd3(p->x, p->x, 1.0, p->dx);
    }
}

/* Stretch of particle p as a stiff penalty (STRETCH_K) in the same system, linearised at the
   current positions: k (n . (dx_p - dx_q) + |x_p - x_q| - len)^2 / 2. The exact lengths are put
   back afterwards. */
static void stretch_terms(sn_chain *c, particle *p) {
    particle *q = &c->p[p->parent];
    double d[3], n[3], l, e, kn[6];
    sub3(d, p->x, q->x);
    l = unit3(n, d);
    if (l == 0.0) return; /* no direction: no constraint this step */
    e = STRETCH_K * (l - p->len);
    kn[0] = STRETCH_K * n[0] * n[0]; kn[1] = STRETCH_K * n[0] * n[1]; kn[2] = STRETCH_K * n[0] * n[2];
    kn[3] = STRETCH_K * n[1] * n[1]; kn[4] = STRETCH_K * n[1] * n[2]; kn[5] = STRETCH_K * n[2] * n[2];
    p->D[0] += kn[0]; p->D[1] += kn[1]; p->D[2] += kn[2]; p->D[3] += kn[3]; p->D[4] += kn[4]; p->D[5] += kn[5];
    madd3(p->r, p->r, -e, n);
    if (q->parent < 0) return;
    q->D[0] += kn[0]; q->D[1] += kn[1]; q->D[2] += kn[2]; q->D[3] += kn[3]; q->D[4] += kn[4]; q->D[5] += kn[5];
    madd3(q->r, q->r, e, n);
    p->B[0] -= kn[0]; p->B[1] -= kn[1]; p->B[2] -= kn[2];
    p->B[3] -= kn[1]; p->B[4] -= kn[3]; p->B[5] -= kn[4];
    p->B[6] -= kn[2]; p->B[7] -= kn[4]; p->B[8] -= kn[5];
}

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
        double e[3], z[3] = {0, 0, 0}, ev;
        perp3(e, a, z);
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

/* an empty box lo..hi (lo[0] > hi[0] until a point is added) */
static void box_empty(double *lo, double *hi) {
    set3(lo, HUGE_VAL, HUGE_VAL, HUGE_VAL);
    set3(hi, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL);
}

/* grows the box lo..hi to hold the points a and b */
static void box_add(double *lo, double *hi, const double *a, const double *b) {
    int k;
    for (k = 0; k < 3; k++) {
        lo[k] = a[k] < lo[k] ? a[k] : lo[k];
        lo[k] = b[k] < lo[k] ? b[k] : lo[k];
        hi[k] = a[k] > hi[k] ? a[k] : hi[k];
        hi[k] = b[k] > hi[k] ? b[k] : hi[k];
    }
}

/* After a solve, each segment in dx: puts every particle at its parent's final position plus its
   segment, parents first, and keeps it out of (or in) the colliders, after a broad phase around
   the start and solved positions of the moving particles. */
static void place_and_collide(sn_chain *c) {
    double lo[3], hi[3];
    int i;
    if (needs_broad_phase(c)) {
        box_empty(lo, hi);
        for (i = 0; i < c->n; i++)
            if (c->p[i].parent >= 0) box_add(lo, hi, c->p[i].x, c->p[i].xp);
        if (lo[0] <= hi[0]) broad_phase(c, lo, hi, c->rmax);
    } else if (c->ncol > 0) {
        all_near(c);
    }
    for (i = 0; i < c->n; i++) {
        particle *p = &c->p[i];
        const particle *q;
        if (p->parent < 0) continue;
        q = &c->p[p->parent];
        madd3(p->x, q->x, 1.0, p->dx);
        if (c->ncol > 0) collide(c, p, p->xp, q->x);
    }
}

/* The start of a step for particle p, from animation fraction u0 to u1: its animated position
   at the step's end, the carried motion (when `carrying`; *mo caches it for the inert value
   *kcached), and for a kinematic root its new position. Returns 1 for a root (done). */
static inline int start_particle(const sn_chain *c, particle *p, double u0, double u1, int carrying, double *kcached,
                          motion *mo) {
    lerp3(p->at, p->a0, p->a1, u1);
    if (carrying) { /* roots too: their previous positions are rendered with the others */
        double k = c->space == SN_CHAIN_PARENT ? 1.0 : p->param[SN_CHAIN_INERT];
        if (k > 0.0) {
            if (k != *kcached) {
                frame fa, fb;
                frame_at(&c->carry0, &c->carry1, k * u0, &fa);
                frame_at(&c->carry0, &c->carry1, k * u1, &fb);
                motion_between(&fa, &fb, mo);
                *kcached = k;
            }
            motion_apply(mo, p->x);
            motion_apply(mo, p->xp);
        }
    }
    if (p->parent >= 0) return 0;
    copy3(p->xp, p->x);
    copy3(p->x, p->at);
    return 1;
}

/* One fixed step of the coupled solver, from animation fraction u0 to u1 of the current update. */
static void step_coupled(sn_chain *c, double u0, double u1) {
    double h2 = c->h * c->h, acc[3], kcached = -1.0;
    int i, carrying = c->carries && !frame_equal(&c->carry0, &c->carry1);
    motion mo;
    set3(acc, (c->gravity[0] + c->force[0]) * h2, (c->gravity[1] + c->force[1]) * h2,
         (c->gravity[2] + c->force[2]) * h2);
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
        /* the system: unit mass plus elasticity toward the animated position */
        p->D[0] = p->D[3] = p->D[5] = 1.0 + p->ke;
        p->D[1] = p->D[2] = p->D[4] = 0.0;
        set3(p->r, p->ke * (p->at[0] - p->x[0]), p->ke * (p->at[1] - p->x[1]), p->ke * (p->at[2] - p->x[2]));
        p->hasb = c->p[p->parent].parent >= 0;
        p->hasg = 0;
        if (p->hasb) memset(p->B, 0, sizeof p->B);
        stretch_terms(c, p);
    }
    for (i = 0; i < c->n; i++)
        if (c->p[i].parent >= 0 && c->p[i].kb > 0.0) soft_terms(c, &c->p[i]);
    solve_soft(c);
    /* exact lengths (the solve is linearised): every segment is rescaled from the solved
       positions at once (no chain of square roots waiting on each other) */
    for (i = 0; i < c->n; i++) {
        particle *p = &c->p[i];
        double v[3], l;
        if (p->parent < 0) continue;
        sub3(v, p->x, c->p[p->parent].x);
        l = len3(v);
        if (l > 0.0) set3(p->dx, v[0] * (p->len / l), v[1] * (p->len / l), v[2] * (p->len / l));
        else set3(p->dx, p->len * p->da[0], p->len * p->da[1], p->len * p->da[2]);
    }
    place_and_collide(c);
}

/* The sweep's first part for a moving particle p with parent q, which needs nothing of other
   particles' solved positions: the Verlet prediction (damping per second, gravity and force)
   pulled toward the animated position, in r; the animated segment from the parent, in dx, and
   what the bend target needs of it. */
static inline void sweep_predict(particle *p, const particle *q, const double *acc) {
    double y[3];
    set3(y, p->x[0] + (p->x[0] - p->xp[0]) * p->fd + acc[0], p->x[1] + (p->x[1] - p->xp[1]) * p->fd + acc[1],
         p->x[2] + (p->x[2] - p->xp[2]) * p->fd + acc[2]);
    copy3(p->xp, p->x);
    set3(p->r, (y[0] + p->ke * p->at[0]) * p->wsoft, (y[1] + p->ke * p->at[1]) * p->wsoft,
         (y[2] + p->ke * p->at[2]) * p->wsoft);
    sub3(p->dx, p->at, q->at);
    p->len = unit3(p->da, p->dx);
    if (p->wbend > 0.0) {
        p->av = dot3(q->da, p->dx);
        cross3(p->vx, p->dx, q->da);
    }
}

/* The sweep's second part, with the parent q final: the bend target added to the prediction,
   the particle put at its exact length from the parent, then kept out of (or in) the colliders. */
static OUT_OF_LINE void sweep_solve(const sn_chain *c, particle *p, const particle *q) {
    double d[3], l;
    /* d: the direction from the parent, y - q->x for y = r + wbend (t + q->x), t the bend target,
       up to a factor s > 0 (see arc_apply_scaled). Written so that the bend target, which waits
       for the parent's direction, comes last: d = s (r - (1 - wbend) q->x) + wbend s t */
    if (p->wbend > 0.0) {
        double t[3], e[3], w = p->wbend, s = 1.0;
        set3(e, p->r[0] - (1.0 - w) * q->x[0], p->r[1] - (1.0 - w) * q->x[1], p->r[2] - (1.0 - w) * q->x[2]);
        if (q->parent >= 0 && q->len > 0.0) s = arc_apply_scaled(q->da, q->u, p->dx, p->av, p->vx, t);
        else copy3(t, p->dx);
        set3(d, s * e[0] + w * t[0], s * e[1] + w * t[1], s * e[2] + w * t[2]);
    } else {
        sub3(d, p->r, q->x);
    }
    l = len3(d);
    if (l > 0.0) {
        l = 1.0 / l;
        set3(p->u, d[0] * l, d[1] * l, d[2] * l);
    } else if (p->len > 0.0) copy3(p->u, p->da);
    else if (q->parent >= 0) copy3(p->u, q->u);
    else set3(p->u, 0.0, -1.0, 0.0);
    set3(p->x, q->x[0] + p->u[0] * p->len, q->x[1] + p->u[1] * p->len, q->x[2] + p->u[2] * p->len);
    if (c->ncol > 0 && collide(c, p, p->xp, q->x)) { /* pushed: the segment as it now is */
        sub3(d, p->x, q->x);
        l = len3(d);
        if (l > 0.0) set3(p->u, d[0] / l, d[1] / l, d[2] / l);
    }
}

/* One fixed step of the sweep solver, from animation fraction u0 to u1 of the current update.
   Parents before children, each particle is solved with its parent already final: the exact
   implicit step of its elasticity and bend springs (the minimiser of
   |x - y|^2 + ke |x - a|^2 + kb |x - t|^2, y the Verlet prediction, a the animated position, t
   the bend target: the animated offset from the parent turned with the parent's segment), put at
   its exact length from the parent, and kept out of (or in) the colliders; its children then
   start from that final position. With a broad phase, the predictions of every particle come
   first (no particle waits on another), for the box around them; without, each particle is
   predicted and solved in turn. */
static void step_sweep(sn_chain *c, double u0, double u1) {
    double h2 = c->h * c->h, acc[3], kcached = -1.0, lo[3], hi[3];
    int i, n = c->n, carrying = c->carries && !frame_equal(&c->carry0, &c->carry1);
    motion mo;
    set3(acc, (c->gravity[0] + c->force[0]) * h2, (c->gravity[1] + c->force[1]) * h2,
         (c->gravity[2] + c->force[2]) * h2);
    if (!needs_broad_phase(c)) {
        if (c->ncol > 0) all_near(c);
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
        box_add(lo, hi, p->xp, p->r); /* the broad phase's box: start and prediction */
    }
    if (lo[0] <= hi[0]) broad_phase(c, lo, hi, c->rmax);
    for (i = 0; i < n; i++)
        if (c->p[i].parent >= 0) sweep_solve(c, &c->p[i], &c->p[c->p[i].parent]);
}

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
    motion_between(&c->root0, &c->root1, &mo);
    for (i = 0; i < c->n; i++) {
        motion_apply(&mo, c->p[i].x);
        motion_apply(&mo, c->p[i].xp);
        motion_apply(&mo, c->p[i].a0);
    }
    c->carry0 = c->carry1;
}

/* animation fraction of the moment `behind` seconds before the end of an update of dt */
static double fraction(double behind, double dt) { return dt > 0.0 ? clamp01(1.0 - behind / dt) : 1.0; }

/* Advances by dt toward the animated positions a1 (and frames carry1, root1). */
static sn_status advance(sn_chain *c, double dt, sn_error *err) {
    double steps, total;
    int i, n;
    if (!sn_isfinite(dt)) return sn_fail_arg(err, 1, SN_EINVAL, "dt is not finite");
    if (dt < 0.0) return sn_fail_arg(err, 1, SN_EINVAL, "dt is negative (got %g)", dt);
    if (!c->started) {
        place_at_animation(c);
        c->started = 1;
    } else if (c->teleport_pending) {
        carry_teleport(c);
    } else if (c->teleport > 0.0) {
        double d[3];
        sub3(d, c->p[0].a1, c->p[0].a0);
        if (len3(d) > c->teleport) place_at_animation(c);
    }
    c->teleport_pending = 0;
    total = c->acc + dt;
    steps = floor(total / c->h);
    c->acc = total;
    if (steps > c->max_steps) {
        c->acc = total - (steps - c->max_steps) * c->h;
        steps = c->max_steps;
        follow_root(c, fraction(total, dt), fraction(c->acc, dt));
    }
    n = (int)steps;
    for (i = 0; i < n; i++) {
        double u0 = fraction(c->acc - i * c->h, dt), u1 = fraction(c->acc - (i + 1) * c->h, dt);
        if (c->solver == SN_CHAIN_COUPLED) step_coupled(c, u0, u1);
        else step_sweep(c, u0, u1);
    }
    c->acc -= n * c->h;
    if (c->acc < 0.0) c->acc = 0.0;
    c->alpha = clamp01(c->acc / c->h);
    for (i = 0; i < c->n; i++) copy3(c->p[i].a0, c->p[i].a1);
    c->carry0 = c->carry1;
    c->root0 = c->root1;
    return SN_OK;
}

sn_status sn_chain_move_root(sn_chain *c, const sn_vec3 *t, const sn_quat *q) {
    sn_quat u;
    double tt[3];
    set3(tt, t->x, t->y, t->z);
    if (!inrange3(tt) || !sn_isfinite(q->x) || !sn_isfinite(q->y) || !sn_isfinite(q->z) || !sn_isfinite(q->w))
        return SN_EINVAL;
    if (sn_quat_normalize(q, &u) != SN_OK) return SN_EINVAL;
    c->place.q = u;
    copy3(c->place.t, tt);
    c->anim_dirty = 1;
    return SN_OK;
}

sn_status sn_chain_step(sn_chain *c, double dt, sn_error *err) {
    if (c->skel == NULL && c->anim_dirty) points_animate(c);
    return advance(c, dt, err);
}

void sn_chain_reset(sn_chain *c) {
    if (c->skel == NULL && c->anim_dirty) points_animate(c);
    place_at_animation(c);
    c->started = 1;
}

void sn_chain_teleport(sn_chain *c) { c->teleport_pending = 1; }

/* ---- skeleton mode ---------------------------------------------------------------------------- */

/* 1 when joint j is `root` or one of its descendants (parents come before children) */
static int under(const sn_skeleton *s, int j, int root) {
    while (j > root) j = sn_skeleton_parent(s, j);
    return j == root;
}

/* Counts the chain joints (root and descendants), the root's ancestors and the greatest depth;
   *n is an upper bound of the particles (one virtual tip per joint), init counts them exactly. */
static sn_status skeleton_topology(const sn_chain_def *def, int *n, int *njoint, int *nanc, int *max_depth,
                                   sn_error *err) {
    const sn_skeleton *s = def->skeleton;
    int count = sn_skeleton_count(s), j, k, nj = 0, deepest = 0, a = 0;
    if (def->root < 0 || def->root >= count)
        return sn_fail_arg(err, 1, SN_EINVAL, "root joint %d out of range [1, %d]", def->root + 1, count);
    for (j = def->root; j < count; j++) {
        int d = 0;
        if (!under(s, j, def->root)) continue;
        nj++;
        for (k = j; k != def->root; k = sn_skeleton_parent(s, k)) d++;
        if (d > deepest) deepest = d;
    }
    for (k = sn_skeleton_parent(s, def->root); k >= 0; k = sn_skeleton_parent(s, k)) a++;
    *njoint = nj;
    *nanc = a;
    *n = def->end_length > 0.0 ? 2 * nj : nj;
    *max_depth = def->end_length > 0.0 ? deepest + 1 : deepest; /* the deepest joint is a leaf */
    return SN_OK;
}

/* the particle of joint j among the first k particles (sorted by joint), -1 for none */
static int particle_of(const sn_chain *c, int k, int j) {
    int lo = 0, hi = k - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c->p[mid].joint == j) return mid;
        if (c->p[mid].joint < j) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* 3x4 row-major affine matrices: o = a b */
static void affine_mul(const double *a, const double *b, double *o) {
    double r[12];
    int i, k;
    for (i = 0; i < 3; i++) {
        for (k = 0; k < 4; k++) r[4 * i + k] = a[4 * i] * b[k] + a[4 * i + 1] * b[4 + k] + a[4 * i + 2] * b[8 + k];
        r[4 * i + 3] += a[4 * i + 3];
    }
    memcpy(o, r, sizeof r);
}

static void affine_point(const double *m, const double *v, double *o) {
    set3(o, m[0] * v[0] + m[1] * v[1] + m[2] * v[2] + m[3], m[4] * v[0] + m[5] * v[1] + m[6] * v[2] + m[7],
         m[8] * v[0] + m[9] * v[1] + m[10] * v[2] + m[11]);
}

static void affine_identity(double *m) {
    memset(m, 0, 12 * sizeof *m);
    m[0] = m[5] = m[10] = 1.0;
}

/* the local matrix T * R * S and the unit rotation of a trs; SN_EINVAL for a non-finite one */
static sn_status local_of(const float *trs, double *m, sn_quat *q) {
    double r[9];
    int i;
    for (i = 0; i < 10; i++)
        if (!((double)trs[i] - (double)trs[i] == 0.0)) return SN_EINVAL; /* NaN or infinite */
    q->x = trs[3]; q->y = trs[4]; q->z = trs[5]; q->w = trs[6];
    if (qunit(q) != SN_OK) return SN_EINVAL;
    quat_matrix(q, r);
    for (i = 0; i < 3; i++) {
        m[4 * i] = r[3 * i] * trs[7];
        m[4 * i + 1] = r[3 * i + 1] * trs[8];
        m[4 * i + 2] = r[3 * i + 2] * trs[9];
        m[4 * i + 3] = trs[i];
    }
    return SN_OK;
}

/* rotation of a 3x3 linear map (row-major): its columns orthonormalised (Gram-Schmidt, right-
   handed), then turned into a quaternion (Shepperd's method) */
static void rotation_of(const double *l, sn_quat *q) {
    double x[3], y[3], z[3], m[9], t;
    set3(x, l[0], l[3], l[6]);
    set3(y, l[1], l[4], l[7]);
    if (unit3(x, x) == 0.0) set3(x, 1, 0, 0);
    madd3(y, y, -dot3(x, y), x);
    if (unit3(y, y) == 0.0) perp3(y, x, y);
    cross3(z, x, y);
    m[0] = x[0]; m[1] = y[0]; m[2] = z[0];
    m[3] = x[1]; m[4] = y[1]; m[5] = z[1];
    m[6] = x[2]; m[7] = y[2]; m[8] = z[2];
    t = m[0] + m[4] + m[8];
    if (t > 0.0) {
        double s = 2.0 * sqrt(1.0 + t);
        q->w = 0.25 * s; q->x = (m[7] - m[5]) / s; q->y = (m[2] - m[6]) / s; q->z = (m[3] - m[1]) / s;
    } else if (m[0] > m[4] && m[0] > m[8]) {
        double s = 2.0 * sqrt(1.0 + m[0] - m[4] - m[8]);
        q->w = (m[7] - m[5]) / s; q->x = 0.25 * s; q->y = (m[1] + m[3]) / s; q->z = (m[2] + m[6]) / s;
    } else if (m[4] > m[8]) {
        double s = 2.0 * sqrt(1.0 + m[4] - m[0] - m[8]);
        q->w = (m[2] - m[6]) / s; q->x = (m[1] + m[3]) / s; q->y = 0.25 * s; q->z = (m[5] + m[7]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + m[8] - m[0] - m[4]);
        q->w = (m[3] - m[1]) / s; q->x = (m[2] + m[6]) / s; q->y = (m[5] + m[7]) / s; q->z = 0.25 * s;
    }
    (void)qunit(q);
}

/* The model transform of the root joint's parent (identity for a skeleton root) and its rotation,
   from `pose` or, when NULL, the rest pose. */
static sn_status ancestors_model(const sn_chain *c, const sn_pose *pose, double *m, sn_quat *q) {
    int k;
    affine_identity(m);
    q->x = q->y = q->z = 0.0;
    q->w = 1.0;
    for (k = 0; k < c->nanc; k++) {
        float trs[10];
        double l[12];
        sn_quat lq;
        if (pose != NULL) sn_pose_get(pose, c->anc[k], trs);
        else sn_skeleton_rest(c->skel, c->anc[k], trs);
        if (local_of(trs, l, &lq) != SN_OK) return SN_EINVAL;
        affine_mul(m, l, m);
        sn_quat_mul(q, &lq, q);
    }
    return qunit(q);
}

/* Reads the animated pose (NULL: the rest pose) into model transforms and world positions a1,
   and sets the frames carry1 and root1. `w` is the root matrix (3x4 row-major). SN_EINVAL (with
   the joint in *bad) for a non-finite or zero-rotation transform. */
static sn_status skeleton_read(sn_chain *c, const sn_pose *pose, const double *w, int *bad) {
    double pm[12], lin[9];
    sn_quat pq, wq;
    int i;
    *bad = c->nanc > 0 ? c->anc[0] : c->root_joint;
    if (ancestors_model(c, pose, pm, &pq) != SN_OK) return SN_EINVAL;
    for (i = 0; i < c->n; i++) {
        particle *p = &c->p[i];
        jointdata *J = &c->jd[i];
        float trs[10];
        double l[12];
        sn_quat lq;
        if (p->tip) { /* end_length times the leaf's own translation, in the leaf's frame */
            const particle *leaf = &c->p[p->parent];
            double t[3];
            if (pose != NULL) sn_pose_get(pose, leaf->joint, trs);
            else sn_skeleton_rest(c->skel, leaf->joint, trs);
            set3(t, trs[0] * c->end_length, trs[1] * c->end_length, trs[2] * c->end_length);
            affine_point(c->jd[p->parent].m, t, J->mp);
            affine_point(w, J->mp, p->a1);
            *bad = leaf->joint;
            if (!inrange3(p->a1)) return SN_EINVAL;
            continue;
        }
        *bad = p->joint;
        if (pose != NULL) sn_pose_get(pose, p->joint, trs);
        else sn_skeleton_rest(c->skel, p->joint, trs);
        if (local_of(trs, l, &lq) != SN_OK) return SN_EINVAL;
        J->lq = lq;
        if (p->parent < 0) { /* products of unit quaternions: unit to rounding, no normalising */
            affine_mul(pm, l, J->m);
            sn_quat_mul(&pq, &lq, &J->q);
        } else {
            affine_mul(c->jd[p->parent].m, l, J->m);
            sn_quat_mul(&c->jd[p->parent].q, &lq, &J->q);
        }
        set3(J->mp, J->m[3], J->m[7], J->m[11]);
        affine_point(w, J->mp, p->a1);
        if (!inrange3(p->a1)) return SN_EINVAL; /* also catches an overflow further up */
    }
    lin[0] = w[0]; lin[1] = w[1]; lin[2] = w[2];
    lin[3] = w[4]; lin[4] = w[5]; lin[5] = w[6];
    lin[6] = w[8]; lin[7] = w[9]; lin[8] = w[10];
    rotation_of(lin, &wq);
    if (c->space == SN_CHAIN_PARENT) {
        double o[3] = {0, 0, 0};
        set3(o, pm[3], pm[7], pm[11]);
        sn_quat_mul(&wq, &pq, &c->carry1.q);
        (void)qunit(&c->carry1.q);
        affine_point(w, o, c->carry1.t);
    } else {
        c->carry1.q = wq;
        set3(c->carry1.t, w[3], w[7], w[11]);
    }
    sn_quat_mul(&wq, &c->jd[0].q, &c->root1.q);
    (void)qunit(&c->root1.q);
    copy3(c->root1.t, c->p[0].a1);
    c->pq = pq;
    return SN_OK;
}

static void skeleton_init(sn_chain *c, const sn_chain_def *def) {
    const sn_skeleton *s = def->skeleton;
    int count = sn_skeleton_count(s), j, k = 0, a = c->nanc, bad;
    double w[12];
    c->skel = s;
    c->root_joint = def->root;
    for (j = def->root; j < count; j++) {
        particle *p;
        if (!under(s, j, def->root)) continue;
        p = &c->p[k];
        p->joint = j;
        p->parent = j == def->root ? -1 : particle_of(c, k, sn_skeleton_parent(s, j));
        p->depth = p->parent < 0 ? 0 : c->p[p->parent].depth + 1;
        k++;
    }
    c->njoint = c->n = k;
    add_tips(c, def->end_length > 0.0, 1);
    for (j = sn_skeleton_parent(s, def->root); j >= 0; j = sn_skeleton_parent(s, j)) c->anc[--a] = j;
    affine_identity(w);
    (void)skeleton_read(c, NULL, w, &bad); /* the skeleton validated its rest pose */
}

/* Horn's best-fit rotation (unit quaternion) turning the unit directions a_k onto s_k, whose
   correlation is S[3 * i + j] = sum a_k[i] s_k[j]: the eigenvector of the largest eigenvalue of
   Horn's 4x4 matrix N, by power iteration on N + m I (m the number of pairs: N's eigenvalues are
   in [-m, m]) started from `start`. Where the fit leaves freedom (collinear directions), the
   start's share of it is kept. */
static void best_fit(const double *S, double m, const sn_quat *start, sn_quat *out) {
    double sxx = S[0], sxy = S[1], sxz = S[2], syx = S[3], syy = S[4], syz = S[5], szx = S[6], szy = S[7], szz = S[8];
    double N[16] = {
        sxx + syy + szz, syz - szy, szx - sxz, sxy - syx,
        syz - szy, sxx - syy - szz, sxy + syx, szx + sxz,
        szx - sxz, sxy + syx, -sxx + syy - szz, syz + szy,
        sxy - syx, szx + sxz, syz + szy, -sxx - syy + szz};
    double v[4], u[4], l;
    int it, i;
    v[0] = start->w; v[1] = start->x; v[2] = start->y; v[3] = start->z;
    for (it = 0; it < 64; it++) {
        for (i = 0; i < 4; i++) u[i] = N[4 * i] * v[0] + N[4 * i + 1] * v[1] + N[4 * i + 2] * v[2] + N[4 * i + 3] * v[3] + m * v[i];
        l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3]);
        if (!(l > 0.0)) break;
        for (i = 0; i < 4; i++) v[i] = u[i] / l;
    }
    out->w = v[0]; out->x = v[1]; out->y = v[2]; out->z = v[3];
    if (qunit(out) != SN_OK) *out = *start;
}

/* The rotation taking joint particle i's animated child directions onto its simulated ones
   (model space; `winv` maps world directions to model space); 0 when no child has both. */
static int joint_turn(const sn_chain *c, int i, const double *winv, sn_quat *out) {
    const particle *p = &c->p[i];
    double S[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, xi[3];
    sn_quat sum = {0, 0, 0, 0}, first = {0, 0, 0, 1};
    int k, m = 0, a, b;
    lerp3(xi, p->xp, p->x, c->alpha);
    for (k = p->child; k >= 0; k = c->p[k].sibling) {
        const particle *q = &c->p[k];
        double an[3], sw[3], sn[3];
        sn_quat arc;
        sub3(an, c->jd[k].mp, c->jd[i].mp);
        lerp3(sw, q->xp, q->x, c->alpha);
        sub3(sw, sw, xi);
        mat_apply(winv, sw, sn);
        if (unit3(an, an) == 0.0 || unit3(sn, sn) == 0.0) continue;
        for (a = 0; a < 3; a++)
            for (b = 0; b < 3; b++) S[3 * a + b] += an[a] * sn[b];
        arc_quat(an, sn, &arc);
        if (m == 0) first = arc;
        if (sn_quat_dot(&arc, &first) < 0.0) {
            arc.x = -arc.x; arc.y = -arc.y; arc.z = -arc.z; arc.w = -arc.w;
        }
        sum.x += arc.x; sum.y += arc.y; sum.z += arc.z; sum.w += arc.w;
        m++;
    }
    if (m == 0) return 0;
    if (m == 1) *out = first;
    else {
        if (qunit(&sum) != SN_OK) sum = first;
        best_fit(S, (double)m, &sum, out);
    }
    return 1;
}

/* inverse of the 3x3 linear part of the 3x4 matrix w into li (row-major 3x3); 0 if singular */
static int linear_inverse(const double *w, double *li) {
    double m[9], c0, c1, c2, det, id;
    m[0] = w[0]; m[1] = w[1]; m[2] = w[2];
    m[3] = w[4]; m[4] = w[5]; m[5] = w[6];
    m[6] = w[8]; m[7] = w[9]; m[8] = w[10];
    c0 = m[4] * m[8] - m[5] * m[7];
    c1 = m[5] * m[6] - m[3] * m[8];
    c2 = m[3] * m[7] - m[4] * m[6];
    det = m[0] * c0 + m[1] * c1 + m[2] * c2;
    if (!(fabs(det) > 1e-300) || !sn_isfinite(1.0 / det)) return 0;
    id = 1.0 / det;
    li[0] = c0 * id; li[1] = (m[2] * m[7] - m[1] * m[8]) * id; li[2] = (m[1] * m[5] - m[2] * m[4]) * id;
    li[3] = c1 * id; li[4] = (m[0] * m[8] - m[2] * m[6]) * id; li[5] = (m[2] * m[3] - m[0] * m[5]) * id;
    li[6] = c2 * id; li[7] = (m[1] * m[6] - m[0] * m[7]) * id; li[8] = (m[0] * m[4] - m[1] * m[3]) * id;
    return 1;
}

/* Writes the simulated rotations into the pose, parents before children: a joint with simulated
   children turns its animated model rotation by joint_turn; the others keep their local rotation. */
static void write_back(sn_chain *c, sn_pose *pose, const double *winv) {
    int i;
    for (i = 0; i < c->njoint; i++) {
        particle *p = &c->p[i];
        jointdata *J = &c->jd[i];
        const sn_quat *parent = p->parent < 0 ? &c->pq : &c->jd[p->parent].nq;
        float trs[10];
        sn_quat turn, local, pc;
        /* products of unit quaternions stay unit to rounding: no normalising on the way */
        if (!joint_turn(c, i, winv, &turn)) {
            sn_quat_mul(parent, &J->lq, &J->nq);
            continue;
        }
        sn_quat_mul(&turn, &J->q, &J->nq);
        sn_quat_conj(parent, &pc);
        sn_quat_mul(&pc, &J->nq, &local);
        sn_pose_get(pose, p->joint, trs);
        if (sn_quat_dot(&local, &J->lq) < 0.0) { /* keep the sign of the animation */
            local.x = -local.x; local.y = -local.y; local.z = -local.z; local.w = -local.w;
        }
        trs[3] = (float)local.x;
        trs[4] = (float)local.y;
        trs[5] = (float)local.z;
        trs[6] = (float)local.w;
        sn_pose_set(pose, p->joint, trs);
    }
}

sn_status sn_chain_update(sn_chain *c, double dt, struct sn_pose *pose, const double *root_matrix, sn_error *err) {
    double w[12], winv[9];
    int i, bad;
    sn_status st;
    if (c->skel == NULL) return sn_fail(err, SN_EINVAL, "chain has no skeleton (use step)");
    if (!sn_isfinite(dt)) return sn_fail_arg(err, 1, SN_EINVAL, "dt is not finite");
    if (dt < 0.0) return sn_fail_arg(err, 1, SN_EINVAL, "dt is negative (got %g)", dt);
    if (pose == NULL || sn_pose_skeleton(pose) != c->skel)
        return sn_fail_arg(err, 2, SN_EINVAL, "pose of another skeleton");
    if (root_matrix == NULL) {
        affine_identity(w);
    } else {
        for (i = 0; i < 16; i++)
            if (!sn_isfinite(root_matrix[i]))
                return sn_fail_arg(err, 3, SN_EINVAL, "element %d of the root matrix is not finite", i + 1);
            else if (!inrange(root_matrix[i]))
                return sn_fail_arg(err, 3, SN_EINVAL, "element %d of the root matrix is too large (at most %g)", i + 1,
                                   SN_CHAIN_MAX_COORD);
        if (root_matrix[3] != 0.0 || root_matrix[7] != 0.0 || root_matrix[11] != 0.0 || root_matrix[15] != 1.0)
            return sn_fail_arg(err, 3, SN_EINVAL, "root matrix is not affine (its last row must be 0 0 0 1)");
        for (i = 0; i < 3; i++) { /* column-major 4x4 to row-major 3x4 */
            w[4 * i] = root_matrix[i];
            w[4 * i + 1] = root_matrix[4 + i];
            w[4 * i + 2] = root_matrix[8 + i];
            w[4 * i + 3] = root_matrix[12 + i];
        }
    }
    if (!linear_inverse(w, winv)) return sn_fail_arg(err, 3, SN_EINVAL, "root matrix is singular");
    if (skeleton_read(c, pose, w, &bad) != SN_OK) {
        /* restore the last good animated positions before failing */
        for (i = 0; i < c->n; i++) copy3(c->p[i].a1, c->p[i].a0);
        c->carry1 = c->carry0;
        c->root1 = c->root0;
        return sn_fail_arg(err, 2, SN_EINVAL,
                           "joint '%s' of the pose is not finite, has a zero rotation or is placed beyond %g",
                           sn_skeleton_name(c->skel, bad), SN_CHAIN_MAX_COORD);
    }
    st = advance(c, dt, err);
    if (st != SN_OK) return st;
    write_back(c, pose, winv);
    return SN_OK;
}
