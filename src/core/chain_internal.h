/*
 * Private to the dynamic-bone files (chain*.c): the layout of a chain, its tuning
 * constants, the small vector and frame helpers every file uses (inline), and the functions one
 * file calls in another. Which file holds what:
 *
 *   chain.c            the object: definitions, validation, topology, construction, parameters, queries
 *   chain_step.c       time: the accumulator, teleports, carried motion, the points' animated pose
 *   chain_coupled.c    the coupled solver: one implicit solve of the whole tree
 *   chain_sweep.c      the sweep solver: parents first, each particle with its parent final
 *   chain_collider.c   colliders: definitions, signed distances, pushes, the collision passes
 *   chain_broadphase.c the SIMD collider filter and the broad phase
 *   chain_skeleton.c   skeleton mode: reading the pose, writing the rotations back
 *
 * CONVENTIONS: as chain.h; vectors here are double[3]. Not part of the public API.
 */
#ifndef SN_CHAIN_INTERNAL_H
#define SN_CHAIN_INTERNAL_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chain.h"
#include "quat_internal.h"

/* x86-64 with GCC or Clang: the collider filter also has an AVX version, chosen at run time */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SN_CHAIN_AVX 1
#endif

/* for a function that measured faster out of line (the sweep's solve: inlined into the step
   loop by gcc 12, the step took 10% longer) */
#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE
#endif

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

static inline double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline void set3(double *o, double x, double y, double z) { o[0] = x; o[1] = y; o[2] = z; }
static inline void copy3(double *o, const double *a) { o[0] = a[0]; o[1] = a[1]; o[2] = a[2]; }
static inline void sub3(double *o, const double *a, const double *b) { set3(o, a[0] - b[0], a[1] - b[1], a[2] - b[2]); }
/* o = a + s * b */
static inline void madd3(double *o, const double *a, double s, const double *b) {
    set3(o, a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]);
}
static inline void lerp3(double *o, const double *a, const double *b, double t) {
    set3(o, a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2]));
}
static inline void cross3(double *o, const double *a, const double *b) {
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    set3(o, x, y, z);
}
static inline double len3(const double *a) { return sqrt(dot3(a, a)); }
static inline double clamp01(double x) { return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x; }
static inline int finite3(const double *a) { return sn_isfinite(a[0]) && sn_isfinite(a[1]) && sn_isfinite(a[2]); }
/* finite and within SN_CHAIN_MAX_COORD: what positions, radii and accelerations must be */
static inline int inrange(double x) { return sn_isfinite(x) && fabs(x) <= SN_CHAIN_MAX_COORD; }
static inline int inrange3(const double *a) { return inrange(a[0]) && inrange(a[1]) && inrange(a[2]); }

/* o = a / |a| and returns |a|; a zero vector gives o = 0 */
static inline double unit3(double *o, const double *a) {
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
static inline void perp3(double *o, const double *u, const double *hint) {
    double w[3];
    madd3(w, hint, -dot3(hint, u), u);
    if (dot3(w, w) > 1e-12) unit3(o, w);
    else sn_perp_of_unit(u, o);
}

/* Normalises a quaternion in place: for the near-unit quaternions of products and poses (no
   overflow guard, unlike sn_quat_normalize); SN_EINVAL, and the identity, for a zero or
   non-finite one. */
static inline sn_status qunit(sn_quat *q) {
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

/* ---- rigid frames and motions ----------------------------------------------------------- */

typedef struct frame {
    sn_quat q;   /* unit rotation */
    double t[3]; /* translation */
} frame;

static inline void frame_identity(frame *f) {
    f->q.x = f->q.y = f->q.z = 0.0;
    f->q.w = 1.0;
    set3(f->t, 0.0, 0.0, 0.0);
}

static inline int frame_equal(const frame *a, const frame *b) {
    return a->q.x == b->q.x && a->q.y == b->q.y && a->q.z == b->q.z && a->q.w == b->q.w &&
           a->t[0] == b->t[0] && a->t[1] == b->t[1] && a->t[2] == b->t[2];
}

/* rotation matrix (row-major 3x3) of a unit quaternion */
static inline void quat_matrix(const sn_quat *q, double m[9]) {
    double x = q->x, y = q->y, z = q->z, w = q->w;
    m[0] = 1 - 2 * (y * y + z * z); m[1] = 2 * (x * y - z * w);     m[2] = 2 * (x * z + y * w);
    m[3] = 2 * (x * y + z * w);     m[4] = 1 - 2 * (x * x + z * z); m[5] = 2 * (y * z - x * w);
    m[6] = 2 * (x * z - y * w);     m[7] = 2 * (y * z + x * w);     m[8] = 1 - 2 * (x * x + y * y);
}

static inline void mat_apply(const double m[9], const double *v, double *o) {
    set3(o, m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
         m[6] * v[0] + m[7] * v[1] + m[8] * v[2]);
}

/* A rigid motion x -> m x + t, applied to points. */
typedef struct motion {
    double m[9];
    double t[3];
} motion;

static inline void motion_apply(const motion *d, double *x) {
    double r[3];
    mat_apply(d->m, x, r);
    set3(x, r[0] + d->t[0], r[1] + d->t[1], r[2] + d->t[2]);
}

/* ---- the object ------------------------------------------------------------------------- */

/* The coupled solver's rows of a particle in the system (I + sum k J^T J) dx = -sum k J^T C,
   rebuilt every step (chain_coupled.c). */
typedef struct coupled_rows {
    double D[6];    /* symmetric diagonal block (xx xy xz yy yz zz) */
    double B[9];    /* block to the parent, then D^-1 B */
    double G[9];    /* block to the grandparent, then D^-1 G */
    double rhs[3];  /* right-hand side, then D^-1 rhs */
    double dx[3];   /* the solved correction */
    double seg[3];  /* the solved segment from the parent, at its exact length */
    int hasb, hasg; /* B, G are not zero */
} coupled_rows;

/* What the sweep solver keeps of a particle during a step (chain_sweep.c). */
typedef struct sweep_rows {
    double pull[3]; /* the Verlet prediction pulled toward the animated position, times wsoft */
    double aseg[3]; /* the animated segment from the parent */
    double u[3];    /* unit direction of the solved segment from the parent */
    double av;      /* the parent's animated direction . aseg */
    double vx[3];   /* aseg x the parent's animated direction */
} sweep_rows;

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
    double wsoft;   /* sweep, per step: 1 / (1 + ke + kb) */
    double wbend;   /* sweep, per step: kb / (1 + ke + kb) */
    double param[SN_CHAIN_PER_PARTICLE];
    int parent;  /* particle index, -1 for a root (kinematic: inverse mass 0) */
    int depth;   /* 0 at a root */
    int joint;   /* skeleton joint, -1 for a virtual tip and in points mode */
    int child;   /* first child particle, -1 for none */
    int sibling; /* next child of the same parent, -1 for none */
    int tip;     /* 1 for a virtual tip (end_length) */
    union {      /* this step's work of the chain's solver */
        coupled_rows cp;
        sweep_rows sw;
    } s;
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

/* entry j of s: collider k's core, or (k NULL) padding: a core 1e30 away (coordinates are at
   most SN_CHAIN_MAX_COORD) with no reach */
static inline void cores_set(cores *s, int j, const collider *k) {
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

/* a collider filter: which of the n cores of s a ball of radius r at x may touch, as bits */
typedef unsigned (*filter_fn)(const cores *s, int n, const double *x, double r);

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

/* What a definition makes: counts for the layout of the block. */
typedef struct chain_shape {
    int n;         /* particles: the points or joints, and a virtual tip per leaf with end_length */
    int njoint;    /* skeleton mode: the chain's joints */
    int nanc;      /* skeleton mode: ancestors of the root joint */
    int max_depth; /* the greatest depth (virtual tips included) */
} chain_shape;

/* ---- between the files ------------------------------------------------------------------ */

/* chain_step.c */
/* the frame at fraction v from f0 to f1 (slerp and lerp) */
void sn_chain_frame_at(const frame *f0, const frame *f1, double v, frame *out);
/* the motion that takes frame a to frame b: x -> b a^-1 x */
void sn_chain_motion_between(const frame *a, const frame *b, motion *d);
/* points mode: the animated positions a1 of the points placed by `place`, and their tips */
void sn_chain_points_animate(sn_chain *c);
/* every particle at its animated position a1, at rest */
void sn_chain_place_at_animation(sn_chain *c);
/* SN_OK for a finite dt >= 0 (arg 1) */
sn_status sn_chain_check_dt(double dt, sn_error *err);
/* advances by dt toward the animated positions a1 (and frames carry1, root1); dt is arg 1 */
sn_status sn_chain_advance(sn_chain *c, double dt, sn_error *err);

/* chain_coupled.c, chain_sweep.c: one fixed step from animation fraction u0 to u1 */
void sn_chain_step_coupled(sn_chain *c, double u0, double u1);
void sn_chain_step_sweep(sn_chain *c, double u0, double u1);

/* chain_collider.c */
/* keeps particle p, whose step started at s0, out of (or in) the colliders; see collide below */
int sn_chain_collide_passes(const sn_chain *c, particle *p, const double *s0, const double *parent, unsigned bits0,
                            int have_bits0);

/* chain_broadphase.c */
/* the filter of a sn_chain_simd_level */
filter_fn sn_chain_filter_of(int simd);
/* the ball around the box lo..hi of the moving particles, and the near colliders in it */
void sn_chain_broad_phase(sn_chain *c, const double *lo, const double *hi, double rmax);
/* instead of the broad phase for at most FEW_COLLIDERS outside round colliders: all are near */
void sn_chain_all_near(sn_chain *c);

/* chain_skeleton.c */
/* skeleton mode's part of validation: the chain's joints, depths and the root's ancestors */
sn_status sn_chain_skeleton_shape(const sn_chain_def *def, chain_shape *sh, sn_error *err);
/* skeleton mode's part of construction: the particles of the joints (before the tips) */
void sn_chain_skeleton_joints(sn_chain *c, const sn_chain_def *def);
/* skeleton mode's part of construction: the root's ancestors and the rest pose read */
void sn_chain_skeleton_rest(sn_chain *c);

/* ---- hot paths shared by the files (inline) ------------------------------------------------ */

/* Refuses the first of 3 coordinates (named "`what` x", ...) that is not finite or not within
   SN_CHAIN_MAX_COORD: the slow path of check_coords */
static inline sn_status sn_chain_coords_fault(const double *v, int arg, const char *what, sn_error *err) {
    static const char axis[3] = {'x', 'y', 'z'};
    char name[64];
    int k;
    for (k = 0; k < 3; k++) {
        snprintf(name, sizeof name, "%s %c", what, axis[k]);
        if (!sn_isfinite(v[k])) return sn_fail_arg(err, arg, SN_EINVAL, "%s is not finite", name);
        if (!inrange(v[k])) return sn_fail_range(err, arg, name, v[k], -SN_CHAIN_MAX_COORD, SN_CHAIN_MAX_COORD);
    }
    return SN_OK;
}
/* SN_OK for 3 coordinates finite and within SN_CHAIN_MAX_COORD, else the fault named by `what`
   (the name formatted only then) */
static inline sn_status check_coords(const double *v, int arg, const char *what, sn_error *err) {
    return inrange3(v) ? SN_OK : sn_chain_coords_fault(v, arg, what, err);
}

/* 1 when the colliders need a broad phase (else all_near) */
static inline int needs_broad_phase(const sn_chain *c) { return c->ncol > FEW_COLLIDERS || c->nflat > 0; }

/* 1 when x is in the broad phase's ball */
static inline int in_ball(const sn_chain *c, const double *x) {
    double d[3];
    if (c->everywhere) return 1;
    sub3(d, x, c->bc);
    return dot3(d, d) <= c->br2;
}

/* the colliders to test at x: the near list when x is in the ball (*list set, count returned),
   else all of them (*list NULL) */
static inline int colliders_for(const sn_chain *c, const double *x, int **list) {
    if (in_ball(c, x)) {
        *list = c->near;
        return c->nnear;
    }
    *list = NULL;
    return c->ncol;
}

/* the near colliders (the first NEAR_SOA) that a particle of radius r at x may touch, as bits */
static inline unsigned near_within(const sn_chain *c, const double *x, double r) {
    return c->within(c->near_cores, c->npad, x, r);
}

/* Keeps particle p (whose step started at s0; `parent` its parent's final position) out of or
   inside every collider; returns 1 when it moved the particle. The most common case first,
   inline: a particle whose move stays in the ball and that no near collider can reach (the first
   pass's filter finds nothing) is done. */
static inline int collide(const sn_chain *c, particle *p, const double *s0, const double *parent) {
    double m[3];
    sub3(m, p->x, s0);
    if (dot3(m, m) <= c->sweep2 && c->nnear <= NEAR_SOA && in_ball(c, p->x)) {
        unsigned bits = near_within(c, p->x, p->param[SN_CHAIN_PARAM_RADIUS]);
        return bits ? sn_chain_collide_passes(c, p, s0, parent, bits, 1) : 0;
    }
    return sn_chain_collide_passes(c, p, s0, parent, 0, 0);
}

/* an empty box lo..hi (lo[0] > hi[0] until a point is added) */
static inline void box_empty(double *lo, double *hi) {
    set3(lo, HUGE_VAL, HUGE_VAL, HUGE_VAL);
    set3(hi, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL);
}

/* grows the box lo..hi to hold the points a and b */
static inline void box_add(double *lo, double *hi, const double *a, const double *b) {
    int k;
    for (k = 0; k < 3; k++) {
        lo[k] = a[k] < lo[k] ? a[k] : lo[k];
        lo[k] = b[k] < lo[k] ? b[k] : lo[k];
        hi[k] = a[k] > hi[k] ? a[k] : hi[k];
        hi[k] = b[k] > hi[k] ? b[k] : hi[k];
    }
}

/* (gravity + force) h^2: the step's acceleration term */
static inline void step_acceleration(const sn_chain *c, double *acc) {
    double h2 = c->h * c->h;
    set3(acc, (c->gravity[0] + c->force[0]) * h2, (c->gravity[1] + c->force[1]) * h2,
         (c->gravity[2] + c->force[2]) * h2);
}

/* 1 when this step carries the placement's motion with the particles */
static inline int step_carries(const sn_chain *c) { return c->carries && !frame_equal(&c->carry0, &c->carry1); }

/* The start of a step for particle p, from animation fraction u0 to u1: its animated position
   at the step's end, the carried motion (when `carrying`; *mo caches it for the inert value
   *kcached), and for a kinematic root its new position. Returns 1 for a root (done). */
static inline int start_particle(const sn_chain *c, particle *p, double u0, double u1, int carrying, double *kcached,
                                 motion *mo) {
    lerp3(p->at, p->a0, p->a1, u1);
    if (carrying) { /* roots too: their previous positions are rendered with the others */
        double k = c->space == SN_CHAIN_PARENT ? 1.0 : p->param[SN_CHAIN_PARAM_INERT];
        if (k > 0.0) {
            if (k != *kcached) {
                frame fa, fb;
                sn_chain_frame_at(&c->carry0, &c->carry1, k * u0, &fa);
                sn_chain_frame_at(&c->carry0, &c->carry1, k * u1, &fb);
                sn_chain_motion_between(&fa, &fb, mo);
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

#endif
