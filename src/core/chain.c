/*
 * Dynamic bones, the chain object: its definition (defaults, validation, the particles it makes),
 * the block it lives in (size, construction), its parameters (live changes, curves) and the
 * queries. Stepping is in chain_step.c, the solvers in chain_coupled.c and chain_sweep.c,
 * colliders in chain_collider.c and chain_broadphase.c, skeleton mode in chain_skeleton.c.
 */
#include "chain_internal.h"

#include <stdio.h>

/* ---- parameters ------------------------------------------------------------------------------ */

static const char *const param_names[SN_CHAIN_PARAM_COUNT] = {
    "damping", "elasticity", "stiffness", "inert", "radius", "gravity",
    "force", "rate", "max_steps", "teleport", "end_length"};

static const double default_params[SN_CHAIN_PER_PARTICLE] = {0.1, 0.1, 0.1, 0.0, 0.0};

int sn_chain_param_find(const char *name) {
    int i;
    for (i = 0; i < SN_CHAIN_PARAM_COUNT; i++)
        if (strcmp(name, param_names[i]) == 0) return i;
    return -1;
}

const char *sn_chain_param_name(int param) {
    return param >= 0 && param < SN_CHAIN_PARAM_COUNT ? param_names[param] : NULL;
}

int sn_chain_param_arity(int param) {
    return param == SN_CHAIN_PARAM_GRAVITY || param == SN_CHAIN_PARAM_FORCE ? 3 : 1;
}

/* Checks one value of a parameter (3 for gravity and force); `arg` is the argument blamed. */
static sn_status check_value(int param, const double *v, int arg, sn_error *err) {
    char name[32];
    double lo = 0.0, hi = SN_CHAIN_MAX_COORD; /* radius, teleport, end_length */
    if (param == SN_CHAIN_PARAM_GRAVITY || param == SN_CHAIN_PARAM_FORCE) {
        if (inrange3(v)) return SN_OK;
        snprintf(name, sizeof name, "'%s'", param_names[param]);
        return sn_chain_coords_fault(v, arg, name, err);
    }
    if (!sn_isfinite(v[0])) return sn_fail_arg(err, arg, SN_EINVAL, "'%s' is not finite", param_names[param]);
    switch (param) {
    case SN_CHAIN_PARAM_DAMPING: case SN_CHAIN_PARAM_ELASTICITY: case SN_CHAIN_PARAM_STIFFNESS: case SN_CHAIN_PARAM_INERT:
        hi = 1.0;
        break;
    case SN_CHAIN_PARAM_RATE: /* below 1 step per second is no simulation (and 1/rate overflows) */
        lo = SN_CHAIN_MIN_RATE;
        hi = SN_CHAIN_MAX_RATE;
        break;
    case SN_CHAIN_PARAM_MAX_STEPS:
        if (v[0] != floor(v[0])) return sn_fail_arg(err, arg, SN_EINVAL, "'max_steps' %g is not an integer", v[0]);
        lo = 1.0;
        hi = SN_CHAIN_MAX_STEPS;
        break;
    default:
        break;
    }
    if (v[0] >= lo && v[0] <= hi) return SN_OK;
    snprintf(name, sizeof name, "'%s'", param_names[param]);
    return sn_fail_range(err, arg, name, v[0], lo, hi);
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

static void update_factors(const sn_chain *c, particle *p) {
    double d = p->param[SN_CHAIN_PARAM_DAMPING];
    p->fd = d >= 1.0 ? 0.0 : pow(1.0 - d, c->h / REF_STEP);
    p->ke = stiffness_per_step(p->param[SN_CHAIN_PARAM_ELASTICITY], c->h);
    p->kb = stiffness_per_step(p->param[SN_CHAIN_PARAM_STIFFNESS], c->h);
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
        const double *v = c->p[i].param;
        if (c->p[i].parent >= 0 && v[SN_CHAIN_PARAM_RADIUS] > c->rmax) c->rmax = v[SN_CHAIN_PARAM_RADIUS];
        if (v[SN_CHAIN_PARAM_INERT] > 0.0) c->carries = 1;
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
    if (cv->values == NULL)
        return sn_fail_arg(err, arg, SN_EINVAL, "'%s' has a count of %d but no values", param_names[param], cv->count);
    if (cv->count < 0 || (cv->count > 2 && cv->count != max_depth + 1))
        return sn_fail_arg(err, arg, SN_EINVAL, "'%s' has %d values: give 1, 2 (start, end) or %d (one per depth)",
                           param_names[param], cv->count, max_depth + 1);
    for (i = 0; i < cv->count; i++) {
        sn_status st = check_value(param, &cv->values[i], arg, err);
        if (st != SN_OK) return st;
    }
    return SN_OK;
}

/* ---- the definition ------------------------------------------------------------------------ */

void sn_chain_def_init(sn_chain_def *def) {
    memset(def, 0, sizeof *def);
    def->gravity[1] = -9.81;
    def->end_length = 0.0;
    def->rate = 60.0;
    def->max_steps = 4;
    def->max_colliders = 16;
    def->teleport = SN_CHAIN_TELEPORT_AUTO;
    def->space = SN_CHAIN_WORLD;
    def->solver = SN_CHAIN_COUPLED;
    def->alloc = NULL;
}

/* Checks the points of a definition and counts what they make: the depth of each point comes
   from its parent's (parents come first), and a virtual tip goes after each leaf that is not a
   root, in scratch memory: depth[i], then kids[i] the children of point i. */
static sn_status points_shape(const sn_chain_def *def, chain_shape *sh, sn_error *err) {
    int i, deepest = 0, leaves = 0, *depth, *kids;
    size_t bytes;
    sn_status st = SN_OK;
    if (def->count < 1 || def->count > SN_CHAIN_MAX_POINTS)
        return sn_fail_arg(err, 1, SN_EINVAL, "point count %d is out of range (1 .. %d)", def->count, SN_CHAIN_MAX_POINTS);
    if (def->points == NULL || def->parents == NULL)
        return sn_fail_arg(err, 1, SN_EINVAL, "'points' and 'parents' are both needed");
    bytes = 2 * (size_t)def->count * sizeof(int);
    depth = (int *)sn_scratch_alloc(def->alloc, bytes);
    if (depth == NULL) return sn_fail_arg(err, 1, SN_ENOMEM, "out of memory checking the points");
    kids = depth + def->count;
    for (i = 0; i < def->count; i++) {
        int p = def->parents[i];
        if (!inrange3(&def->points[3 * i])) { /* name the point only then */
            char what[32];
            snprintf(what, sizeof what, "point %d", i + 1);
            st = sn_chain_coords_fault(&def->points[3 * i], 1, what, err);
        }
        if (st == SN_OK && (p < -1 || p >= i))
            st = sn_fail_arg(err, 1, SN_EINVAL, "parent %d of point %d is out of range (0 .. %d)", p + 1, i + 1, i);
        if (st != SN_OK) break;
        depth[i] = p < 0 ? 0 : depth[p] + 1;
        kids[i] = 0;
        if (p >= 0) kids[p]++;
        if (depth[i] > deepest) deepest = depth[i];
    }
    for (i = 0; st == SN_OK && i < def->count; i++) leaves += kids[i] == 0 && def->parents[i] >= 0;
    sn_scratch_free(def->alloc, depth, bytes);
    sh->n = def->end_length > 0.0 ? def->count + leaves : def->count;
    sh->njoint = sh->nanc = 0;
    sh->max_depth = def->end_length > 0.0 && deepest > 0 ? deepest + 1 : deepest; /* the deepest point is a leaf */
    return st;
}

/* Checks a definition completely and counts what it makes (validate, size and init). */
static sn_status check_def(const sn_chain_def *def, chain_shape *sh, sn_error *err) {
    sn_status st;
    int i;
    if (def == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no definition");
    if (def->skeleton != NULL && (def->count != 0 || def->points != NULL))
        return sn_fail_arg(err, 1, SN_EINVAL, "give either 'points' or 'skeleton', not both");
    if (def->skeleton == NULL && def->count == 0 && def->points == NULL)
        return sn_fail_arg(err, 1, SN_EINVAL, "no 'points' and no 'skeleton'");
    st = def->skeleton != NULL ? sn_chain_skeleton_shape(def, sh, err) : points_shape(def, sh, err);
    for (i = 0; i < SN_CHAIN_PER_PARTICLE && st == SN_OK; i++) st = check_curve(i, &def->curves[i], sh->max_depth, 1, err);
    if (st == SN_OK) st = check_value(SN_CHAIN_PARAM_GRAVITY, def->gravity, 1, err);
    if (st == SN_OK) st = check_value(SN_CHAIN_PARAM_FORCE, def->force, 1, err);
    if (st == SN_OK) st = check_value(SN_CHAIN_PARAM_END_LENGTH, &def->end_length, 1, err);
    if (st == SN_OK) st = check_value(SN_CHAIN_PARAM_RATE, &def->rate, 1, err);
    if (st != SN_OK) return st;
    if (def->max_steps < 1 || def->max_steps > SN_CHAIN_MAX_STEPS)
        return sn_fail_arg(err, 1, SN_EINVAL, "'max_steps' %d is out of range (1 .. %d)", def->max_steps, SN_CHAIN_MAX_STEPS);
    if (def->teleport != SN_CHAIN_TELEPORT_AUTO &&
        (st = check_value(SN_CHAIN_PARAM_TELEPORT, &def->teleport, 1, err)) != SN_OK)
        return st;
    if (def->max_colliders < 0 || def->max_colliders > SN_CHAIN_MAX_COLLIDERS)
        return sn_fail_arg(err, 1, SN_EINVAL, "'max_colliders' %d is out of range (0 .. %d)", def->max_colliders,
                           SN_CHAIN_MAX_COLLIDERS);
    if (def->space != SN_CHAIN_WORLD && def->space != SN_CHAIN_PARENT)
        return sn_fail_arg(err, 1, SN_EINVAL, "unknown space %d", (int)def->space);
    if (def->solver != SN_CHAIN_SWEEP && def->solver != SN_CHAIN_COUPLED)
        return sn_fail_arg(err, 1, SN_EINVAL, "unknown solver %d", (int)def->solver);
    return SN_OK;
}

sn_status sn_chain_validate(const sn_chain_def *def, sn_error *err) {
    chain_shape sh;
    return check_def(def, &sh, err);
}

/* ---- the block ----------------------------------------------------------------------------- */

/* byte offsets of the parts of the block: off[0] particles, [1] colliders, [2] joint data,
   [3] ancestors, [4] the near colliders; returns the total */
static size_t layout(const chain_shape *sh, int maxcol, int skeleton, size_t off[5]) {
    size_t s = SN_ALIGN16(sizeof(sn_chain));
    off[0] = s;
    s += SN_ALIGN16((size_t)sh->n * sizeof(particle));
    off[1] = s;
    s += SN_ALIGN16((size_t)maxcol * sizeof(collider));
    off[2] = s;
    s += skeleton ? SN_ALIGN16((size_t)sh->n * sizeof(jointdata)) : 0;
    off[3] = s;
    s += SN_ALIGN16((size_t)sh->nanc * sizeof(int));
    off[4] = s;
    s += SN_ALIGN16((size_t)maxcol * sizeof(int));
    return s;
}

size_t sn_chain_size(const sn_chain_def *def, sn_error *err) {
    chain_shape sh;
    size_t off[5];
    if (check_def(def, &sh, err) != SN_OK) return 0;
    return layout(&sh, def->max_colliders, def->skeleton != NULL, off);
}

/* links every particle to its children (child, sibling), in index order */
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
   links again. The block has room for them (the shape counted them). */
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
   meanwhile (sn_chain_place_at_animation overwrites it) */
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

/* points mode: the particles of the points, in their order */
static void points_particles(sn_chain *c, const sn_chain_def *def) {
    int i;
    for (i = 0; i < def->count; i++) {
        particle *p = &c->p[i];
        p->parent = def->parents[i];
        p->depth = p->parent < 0 ? 0 : c->p[p->parent].depth + 1;
        p->joint = -1;
        copy3(p->rest, &def->points[3 * i]);
    }
    c->n = c->npoints = def->count;
}

/* the chain-wide settings of a definition, and the parts of the block */
static void init_header(sn_chain *c, const sn_chain_def *def, const chain_shape *sh, const size_t off[5]) {
    char *mem = (char *)c;
    c->n = sh->n;
    c->njoint = sh->njoint;
    c->nanc = sh->nanc;
    c->maxcol = def->max_colliders;
    c->max_steps = def->max_steps;
    c->max_depth = sh->max_depth;
    c->root_joint = -1;
    c->space = (int)def->space;
    c->solver = (int)def->solver;
    c->simd = sn_chain_simd_best();
    c->within = sn_chain_filter_of(c->simd);
    c->rate = def->rate;
    c->h = 1.0 / def->rate;
    c->end_length = def->end_length;
    copy3(c->gravity, def->gravity);
    copy3(c->force, def->force);
    c->p = (particle *)(mem + off[0]);
    c->col = (collider *)(mem + off[1]);
    c->jd = def->skeleton != NULL ? (jointdata *)(mem + off[2]) : NULL;
    c->anc = (int *)(mem + off[3]);
    c->near = (int *)(mem + off[4]);
    frame_identity(&c->place);
    frame_identity(&c->carry1);
    frame_identity(&c->root1);
}

sn_status sn_chain_init(void *mem, size_t size, const sn_chain_def *def, sn_error *err) {
    chain_shape sh;
    size_t off[5], need;
    sn_chain *c = (sn_chain *)mem;
    int i, k;
    sn_status st = check_def(def, &sh, err);
    if (st != SN_OK) return st;
    need = layout(&sh, def->max_colliders, def->skeleton != NULL, off);
    if (mem == NULL || size < need)
        return sn_fail(err, SN_ENOMEM, "chain needs %lu bytes, got %lu", (unsigned long)need, (unsigned long)size);
    memset(mem, 0, need);
    init_header(c, def, &sh, off);
    /* the particles: points or joints, then the virtual tips; their animated (rest) positions */
    if (def->skeleton != NULL) sn_chain_skeleton_joints(c, def);
    else points_particles(c, def);
    add_tips(c, def->end_length > 0.0, def->skeleton != NULL);
    if (def->skeleton != NULL) sn_chain_skeleton_rest(c);
    else sn_chain_points_animate(c);
    for (i = 0; i < c->n; i++) {
        particle *p = &c->p[i];
        for (k = 0; k < SN_CHAIN_PER_PARTICLE; k++)
            p->param[k] = def->curves[k].count > 0 ? curve_at(&def->curves[k], p->depth, sh.max_depth) : default_params[k];
        update_factors(c, p);
    }
    update_chain_wide(c);
    compute_length(c);
    c->teleport = def->teleport >= 0.0 ? def->teleport : 5.0 * c->length;
    sn_chain_place_at_animation(c);
    return SN_OK;
}

/* ---- queries ------------------------------------------------------------------------------- */

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

/* SN_OK when i (0-based) is a particle of c, or negative (every particle, or the first) */
static sn_status check_particle(const sn_chain *c, int i, int arg, sn_error *err) {
    if (i < c->n) return SN_OK;
    return sn_fail_arg(err, arg, SN_ERANGE, "particle %d is out of range (1 .. %d)", i + 1, c->n);
}

sn_status sn_chain_set_param(sn_chain *c, int param, int i, const double *value, sn_error *err) {
    sn_status st;
    int k;
    if (param < 0 || param >= SN_CHAIN_PARAM_COUNT) return sn_fail_arg(err, 1, SN_EINVAL, "unknown parameter %d", param);
    if (param == SN_CHAIN_PARAM_END_LENGTH)
        return sn_fail_arg(err, 1, SN_EINVAL, "'end_length' is fixed when the chain is created");
    st = check_value(param, value, 3, err);
    if (st != SN_OK) return st;
    if (param < SN_CHAIN_PER_PARTICLE) {
        if ((st = check_particle(c, i, 2, err)) != SN_OK) return st;
        for (k = i < 0 ? 0 : i; k < (i < 0 ? c->n : i + 1); k++) {
            c->p[k].param[param] = value[0];
            update_factors(c, &c->p[k]);
        }
        update_chain_wide(c);
        return SN_OK;
    }
    switch (param) {
    case SN_CHAIN_PARAM_GRAVITY: copy3(c->gravity, value); break;
    case SN_CHAIN_PARAM_FORCE: copy3(c->force, value); break;
    case SN_CHAIN_PARAM_RATE:
        c->rate = value[0];
        c->h = 1.0 / value[0];
        for (k = 0; k < c->n; k++) update_factors(c, &c->p[k]);
        break;
    case SN_CHAIN_PARAM_MAX_STEPS: c->max_steps = (int)value[0]; break;
    default: c->teleport = value[0]; break;
    }
    return SN_OK;
}

sn_status sn_chain_set_curve(sn_chain *c, int param, const sn_chain_curve *curve, sn_error *err) {
    sn_status st;
    int i;
    if (param < 0 || param >= SN_CHAIN_PER_PARTICLE) {
        if (param >= 0 && param < SN_CHAIN_PARAM_COUNT)
            return sn_fail_arg(err, 1, SN_EINVAL, "'%s' is not per particle", param_names[param]);
        return sn_fail_arg(err, 1, SN_EINVAL, "unknown parameter %d", param);
    }
    if (curve->count < 1) return sn_fail_arg(err, 2, SN_EINVAL, "'%s' has no values", param_names[param]);
    st = check_curve(param, curve, c->max_depth, 2, err);
    if (st != SN_OK) return st;
    for (i = 0; i < c->n; i++) {
        c->p[i].param[param] = curve_at(curve, c->p[i].depth, c->max_depth);
        update_factors(c, &c->p[i]);
    }
    update_chain_wide(c);
    return SN_OK;
}

sn_status sn_chain_get_param(const sn_chain *c, int param, int i, double *value, sn_error *err) {
    sn_status st;
    if (param < 0 || param >= SN_CHAIN_PARAM_COUNT) return sn_fail_arg(err, 1, SN_ERANGE, "unknown parameter %d", param);
    if (param < SN_CHAIN_PER_PARTICLE) {
        if ((st = check_particle(c, i, 2, err)) != SN_OK) return st;
        value[0] = c->p[i < 0 ? 0 : i].param[param];
        return SN_OK;
    }
    switch (param) {
    case SN_CHAIN_PARAM_GRAVITY: copy3(value, c->gravity); break;
    case SN_CHAIN_PARAM_FORCE: copy3(value, c->force); break;
    case SN_CHAIN_PARAM_RATE: value[0] = c->rate; break;
    case SN_CHAIN_PARAM_MAX_STEPS: value[0] = c->max_steps; break;
    case SN_CHAIN_PARAM_TELEPORT: value[0] = c->teleport; break;
    default: value[0] = c->end_length; break;
    }
    return SN_OK;
}
