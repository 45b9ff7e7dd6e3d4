/* C-only tests of the dynamic-bone core (src/core/chain*.c): no Lua involved. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "fixtures.h"

#include "chain.h"
#include "pose.h"
#include "skeleton.h"

/* the solver of the chains the tests make: main runs the behaviour tests with each */
static sn_chain_solver solver = SN_CHAIN_SWEEP;

static void def_init(sn_chain_def *d) {
    sn_chain_def_init(d);
    d->solver = solver;
}

/* a chain of d in an arena block (see fixtures.h) */
static sn_chain *make_chain(const sn_chain_def *d) {
    sn_error err;
    size_t size = sn_chain_size(d, &err);
    void *mem;
    ENSURE(size > 0);
    if (size == 0) return NULL;
    mem = fixture_block(size);
    ENSURE(sn_chain_init(mem, size, d, &err) == SN_OK);
    return (sn_chain *)mem;
}

/* a straight horizontal chain of n points, `seg` apart along +x; the def keeps pointers to the
   static arrays, so one at a time */
static double pts[3 * SN_CHAIN_MAX_POINTS];
static int parents[SN_CHAIN_MAX_POINTS];
static double vals[SN_CHAIN_PER_PARTICLE];

static void line_def(sn_chain_def *d, int n, double seg) {
    int i;
    def_init(d);
    for (i = 0; i < n; i++) {
        pts[3 * i] = i * seg;
        pts[3 * i + 1] = 0.0;
        pts[3 * i + 2] = 0.0;
        parents[i] = i - 1;
    }
    d->count = n;
    d->points = pts;
    d->parents = parents;
}

static void set_default(sn_chain_def *d, int param, double v) {
    vals[param] = v;
    d->curves[param].values = &vals[param];
    d->curves[param].count = 1;
}

static double dist3(const sn_vec3 *a, const sn_vec3 *b) {
    return sqrt((a->x - b->x) * (a->x - b->x) + (a->y - b->y) * (a->y - b->y) + (a->z - b->z) * (a->z - b->z));
}

static double worst_spread(const sn_chain *a, const sn_chain *b) {
    double w = 0.0;
    int i;
    for (i = 0; i < sn_chain_count(a); i++) {
        sn_vec3 p, q;
        sn_chain_position(a, i, &p);
        sn_chain_position(b, i, &q);
        if (dist3(&p, &q) > w) w = dist3(&p, &q);
    }
    return w;
}

static void run_for(sn_chain *c, double dt, double seconds) {
    int frames = (int)floor(seconds / dt + 0.5), f;
    for (f = 0; f < frames; f++) ENSURE(sn_chain_step(c, dt, NULL) == SN_OK);
}

static const sn_quat qid = {0, 0, 0, 1};

static void test_defaults(void) {
    sn_chain_def d;
    sn_chain *c;
    double v[3];
    line_def(&d, 4, 0.1);
    c = make_chain(&d);
    ENSURE(sn_chain_count(c) == 4);
    ENSURE(!sn_chain_has_skeleton(c));
    ENSURE(sn_chain_joint(c, 0) == -1);
    ENSURE_NEAR(sn_chain_length(c), 0.3, 1e-15);
    ENSURE(sn_chain_get_param(c, SN_CHAIN_PARAM_DAMPING, 2, v, NULL) == SN_OK && v[0] == 0.1);
    ENSURE(sn_chain_get_param(c, SN_CHAIN_PARAM_GRAVITY, -1, v, NULL) == SN_OK && v[1] == -9.81);
    ENSURE(sn_chain_get_param(c, SN_CHAIN_PARAM_TELEPORT, -1, v, NULL) == SN_OK);
    ENSURE_NEAR(v[0], 1.5, 1e-12); /* 5 x the chain length */
    ENSURE(sn_chain_get_param(c, SN_CHAIN_PARAM_RATE, -1, v, NULL) == SN_OK && v[0] == 60.0);
    ENSURE(sn_chain_param_find("stiffness") == SN_CHAIN_PARAM_STIFFNESS && sn_chain_param_find("nope") == -1);
    ENSURE(strcmp(sn_chain_param_name(SN_CHAIN_PARAM_END_LENGTH), "end_length") == 0);
    ENSURE(sn_chain_param_arity(SN_CHAIN_PARAM_FORCE) == 3 && sn_chain_param_arity(SN_CHAIN_PARAM_RADIUS) == 1);
    fixture_free();
}

/* a body joint 0, a tail 1..5 along +x (each 0.1 from its parent), a branch 6, 7 off joint 3 */
static const int tail_parents[8] = {-1, 0, 1, 2, 3, 4, 3, 6};

static void tail_rest(float *rest) {
    int i;
    for (i = 0; i < 8; i++) {
        float *t = rest + 10 * i;
        memset(t, 0, 10 * sizeof *t);
        t[6] = 1.0f;
        t[7] = t[8] = t[9] = 1.0f;
        if (i > 0) t[0] = 0.1f;
    }
    rest[60 + 0] = 0.0f;
    rest[60 + 2] = 0.1f; /* joint 6 sideways along z */
    rest[10] = 0.5f;     /* joint 1 is 0.5 from the body */
    rest[11] = 1.0f;
}

/* ---- invalid input: tables of one-line cases, each spoiling a valid definition or call ---- */

static double nan_; /* NaN, made at run time */
static sn_skeleton *case_skeleton; /* the tail skeleton (6 joints) of the skeleton cases */

/* an allocator that never has memory */
static void *no_memory(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud; (void)osize; (void)nsize;
    free(ptr);
    return NULL;
}
static const sn_allocator broke = {no_memory, NULL};

static void valid_line(sn_chain_def *d) { line_def(d, 3, 0.1); }
static void valid_tail(sn_chain_def *d) { def_init(d); d->skeleton = case_skeleton; d->root = 1; }

/* refused by sn_chain_validate, and by sn_chain_size and sn_chain_init with the same message */
static sn_status refused(const sn_chain_def *d, sn_error *err) {
    sn_error again, init;
    sn_status st = sn_chain_validate(d, err);
    memset(&again, 0, sizeof again);
    ENSURE(sn_chain_size(d, &again) == 0 && again.code == st && strcmp(again.msg, err->msg) == 0 && again.arg == 1);
    ENSURE(sn_chain_init(NULL, 0, d, &init) == st && strcmp(init.msg, err->msg) == 0);
    return st;
}

static void no_points(sn_chain_def *d) { d->count = 0; d->points = NULL; }
static void too_many_points(sn_chain_def *d) { d->count = SN_CHAIN_MAX_POINTS + 1; }
static void negative_count(sn_chain_def *d) { d->count = -3; }
static void no_parents(sn_chain_def *d) { d->parents = NULL; }
static void nan_point(sn_chain_def *d) { (void)d; pts[4] = nan_; }
static void far_point(sn_chain_def *d) { (void)d; pts[3] = 4.3e155; }
static void parent_after(sn_chain_def *d) { (void)d; parents[2] = 2; }
static void parent_below_root(sn_chain_def *d) { (void)d; parents[2] = -2; }
static void points_and_skeleton(sn_chain_def *d) { d->skeleton = case_skeleton; }
static void damping_high(sn_chain_def *d) { set_default(d, SN_CHAIN_PARAM_DAMPING, 1.5); }
static void damping_curve_high(sn_chain_def *d) { static const double v[2] = {0.5, 2.0}; d->curves[0].values = v; d->curves[0].count = 2; }
static void curve_of_4(sn_chain_def *d) { static const double v[4] = {0, 0, 0, 0}; d->curves[0].values = v; d->curves[0].count = 4; }
static void curve_without_values(sn_chain_def *d) { d->curves[SN_CHAIN_PARAM_STIFFNESS].count = 1; }
static void curve_count_negative(sn_chain_def *d) { set_default(d, SN_CHAIN_PARAM_INERT, 0.5); d->curves[SN_CHAIN_PARAM_INERT].count = -1; }
static void radius_negative(sn_chain_def *d) { set_default(d, SN_CHAIN_PARAM_RADIUS, -0.1); }
static void radius_huge(sn_chain_def *d) { set_default(d, SN_CHAIN_PARAM_RADIUS, 1e10); }
static void gravity_nan(sn_chain_def *d) { d->gravity[0] = nan_; }
static void gravity_huge(sn_chain_def *d) { d->gravity[1] = -2e9; }
static void force_nan(sn_chain_def *d) { d->force[2] = nan_; }
static void end_length_negative(sn_chain_def *d) { d->end_length = -1; }
static void rate_zero(sn_chain_def *d) { d->rate = 0.0; }
static void rate_negative(sn_chain_def *d) { d->rate = -5; }
static void rate_huge(sn_chain_def *d) { d->rate = 1e6; }
static void rate_denormal(sn_chain_def *d) { d->rate = 4.9e-318; }
static void rate_nan(sn_chain_def *d) { d->rate = nan_; }
static void max_steps_zero(sn_chain_def *d) { d->max_steps = 0; }
static void max_steps_int_max(sn_chain_def *d) { d->max_steps = INT_MAX; }
static void max_steps_int_min(sn_chain_def *d) { d->max_steps = INT_MIN; }
static void max_colliders_negative(sn_chain_def *d) { d->max_colliders = -1; }
static void max_colliders_too_many(sn_chain_def *d) { d->max_colliders = SN_CHAIN_MAX_COLLIDERS + 1; }
static void teleport_nan(sn_chain_def *d) { d->teleport = nan_; }
static void teleport_negative(sn_chain_def *d) { d->teleport = -2.0; }
static void teleport_huge(sn_chain_def *d) { d->teleport = 2e9; }
static void unknown_space(sn_chain_def *d) { d->space = (sn_chain_space)7; }
static void unknown_solver(sn_chain_def *d) { d->solver = (sn_chain_solver)2; }
static void no_scratch(sn_chain_def *d) { d->alloc = &broke; }
static void root_past_end(sn_chain_def *d) { d->root = 9; }
static void root_negative(sn_chain_def *d) { d->root = -1; }
static void skeleton_and_points(sn_chain_def *d) { d->count = 3; }

FIXTURE_CASE_TYPE(def_case, sn_chain_def);
static const def_case points_cases[] = {
    {"no points and no skeleton", no_points, "no 'points' and no 'skeleton'"},
    {"too many points", too_many_points, "point count 65537 is out of range (1 .. 65536)"},
    {"a negative count", negative_count, "point count -3 is out of range (1 .. 65536)"},
    {"no parents", no_parents, "'points' and 'parents' are both needed"},
    {"a NaN point", nan_point, "point 2 y is not finite"},
    {"a point far away", far_point, "point 2 x 4.3e+155 is out of range (-1e+09 .. 1e+09)"},
    {"a parent after its point", parent_after, "parent 3 of point 3 is out of range (0 .. 2)"},
    {"a parent below -1", parent_below_root, "parent -1 of point 3 is out of range (0 .. 2)"},
    {"points and a skeleton", points_and_skeleton, "give either 'points' or 'skeleton', not both"},
    {"damping above 1", damping_high, "'damping' 1.5 is out of range (0 .. 1)"},
    {"a damping curve above 1", damping_curve_high, "'damping' 2 is out of range (0 .. 1)"},
    {"a curve of 4 values for 3 depths", curve_of_4, "'damping' has 4 values: give 1, 2 (start, end) or 3 (one per depth)"},
    {"a curve without values", curve_without_values, "'stiffness' has a count of 1 but no values"},
    {"a negative curve count", curve_count_negative, "'inert' has -1 values"},
    {"a negative radius", radius_negative, "'radius' -0.1 is out of range (0 .. 1e+09)"},
    {"a huge radius", radius_huge, "'radius' 1e+10 is out of range (0 .. 1e+09)"},
    {"a NaN gravity", gravity_nan, "'gravity' x is not finite"},
    {"a huge gravity", gravity_huge, "'gravity' y -2e+09 is out of range (-1e+09 .. 1e+09)"},
    {"a NaN force", force_nan, "'force' z is not finite"},
    {"a negative end length", end_length_negative, "'end_length' -1 is out of range (0 .. 1e+09)"},
    {"a rate of 0", rate_zero, "'rate' 0 is out of range (1 .. 10000)"},
    {"a negative rate", rate_negative, "'rate' -5 is out of range (1 .. 10000)"},
    {"a rate above the limit", rate_huge, "'rate' 1e+06 is out of range (1 .. 10000)"},
    {"a denormal rate", rate_denormal, "is out of range (1 .. 10000)"},
    {"a NaN rate", rate_nan, "'rate' is not finite"},
    {"max_steps 0", max_steps_zero, "'max_steps' 0 is out of range (1 .. 1000)"},
    {"max_steps INT_MAX", max_steps_int_max, "'max_steps' 2147483647 is out of range (1 .. 1000)"},
    {"max_steps INT_MIN", max_steps_int_min, "'max_steps' -2147483648 is out of range (1 .. 1000)"},
    {"negative max_colliders", max_colliders_negative, "'max_colliders' -1 is out of range (0 .. 4096)"},
    {"too many max_colliders", max_colliders_too_many, "'max_colliders' 4097 is out of range (0 .. 4096)"},
    {"a NaN teleport", teleport_nan, "'teleport' is not finite"},
    {"a negative teleport", teleport_negative, "'teleport' -2 is out of range (0 .. 1e+09)"},
    {"a huge teleport", teleport_huge, "'teleport' 2e+09 is out of range (0 .. 1e+09)"},
    {"an unknown space", unknown_space, "unknown space 7"},
    {"an unknown solver", unknown_solver, "unknown solver 2"},
    {"no scratch memory", no_scratch, "out of memory checking the points"},
};
static const def_case skeleton_cases[] = {
    {"a root past the skeleton", root_past_end, "root joint 10 is out of range (1 .. 6)"},
    {"a negative root", root_negative, "root joint 0 is out of range (1 .. 6)"},
    {"a skeleton and points", skeleton_and_points, "give either 'points' or 'skeleton', not both"},
    {"a bad curve", curve_of_4, "'damping' has 4 values: give 1, 2 (start, end) or 5 (one per depth)"},
    {"no scratch memory", no_scratch, "out of memory checking the skeleton"},
};

static void test_invalid_definitions_refused(void) {
    float rest[80];
    sn_chain_def d;
    sn_error err;
    size_t size;
    void *mem;
    nan_ = 0.0;
    nan_ = nan_ / nan_;
    tail_rest(rest);
    case_skeleton = fixture_skeleton(6, tail_parents, rest);
    valid_line(&d);
    ENSURE(sn_chain_validate(&d, &err) == SN_OK);
    REFUSE_CASES(points_cases, sn_chain_def, valid_line, refused);
    valid_tail(&d);
    ENSURE(sn_chain_validate(&d, &err) == SN_OK);
    REFUSE_CASES(skeleton_cases, sn_chain_def, valid_tail, refused);
    ENSURE(sn_chain_validate(NULL, &err) == SN_EINVAL && strstr(err.msg, "no definition") != NULL);
    no_scratch(&d);
    ENSURE(sn_chain_validate(&d, &err) == SN_ENOMEM);
    valid_line(&d);
    no_points(&d);
    ENSURE(sn_chain_validate(&d, &err) == SN_EINVAL && err.arg == 1);
    /* memory too small, or none */
    valid_line(&d);
    size = sn_chain_size(&d, &err);
    mem = fixture_block(size);
    ENSURE(sn_chain_init(mem, size - 16, &d, &err) == SN_ENOMEM && strstr(err.msg, "chain needs") != NULL);
    ENSURE(sn_chain_init(NULL, size, &d, &err) == SN_ENOMEM);
    d.rate = 0.0;
    ENSURE(sn_chain_init(mem, size, &d, &err) == SN_EINVAL && strstr(err.msg, "'rate'") != NULL);
    fixture_free();
}

/* live parameters: a call of sn_chain_set_param on the chain `live` (3 particles) */
typedef struct param_call {
    int param, i;
    double v[3];
} param_call;

static sn_chain *live;

static void valid_call(param_call *a) { a->param = SN_CHAIN_PARAM_DAMPING; a->i = -1; a->v[0] = 0.5; a->v[1] = a->v[2] = 0.0; }
static sn_status set_on_live(const param_call *a, sn_error *err) { return sn_chain_set_param(live, a->param, a->i, a->v, err); }

static void damping_negative(param_call *a) { a->v[0] = -0.1; }
static void damping_nan(param_call *a) { a->v[0] = nan_; }
static void particle_past_end(param_call *a) { a->i = 3; }
static void end_length_set(param_call *a) { a->param = SN_CHAIN_PARAM_END_LENGTH; }
static void param_unknown(param_call *a) { a->param = 99; }
static void param_negative(param_call *a) { a->param = -1; }
static void rate_set_zero(param_call *a) { a->param = SN_CHAIN_PARAM_RATE; a->v[0] = 0.0; }
static void max_steps_fraction(param_call *a) { a->param = SN_CHAIN_PARAM_MAX_STEPS; a->v[0] = 2.5; }
static void max_steps_above(param_call *a) { a->param = SN_CHAIN_PARAM_MAX_STEPS; a->v[0] = 2000; }
static void teleport_set_nan(param_call *a) { a->param = SN_CHAIN_PARAM_TELEPORT; a->v[0] = nan_; }
static void force_set_nan(param_call *a) { a->param = SN_CHAIN_PARAM_FORCE; a->v[1] = nan_; }
static void radius_set_huge(param_call *a) { a->param = SN_CHAIN_PARAM_RADIUS; a->v[0] = 1e10; }

FIXTURE_CASE_TYPE(param_case, param_call);
static const param_case param_cases[] = {
    {"a negative damping", damping_negative, "'damping' -0.1 is out of range (0 .. 1)"},
    {"a NaN damping", damping_nan, "'damping' is not finite"},
    {"a particle past the chain", particle_past_end, "particle 4 is out of range (1 .. 3)"},
    {"end_length after creation", end_length_set, "'end_length' is fixed when the chain is created"},
    {"an unknown parameter", param_unknown, "unknown parameter 99"},
    {"a negative parameter", param_negative, "unknown parameter -1"},
    {"a rate of 0", rate_set_zero, "'rate' 0 is out of range (1 .. 10000)"},
    {"a fraction of a step", max_steps_fraction, "'max_steps' 2.5 is not an integer"},
    {"too many steps", max_steps_above, "'max_steps' 2000 is out of range (1 .. 1000)"},
    {"a NaN teleport", teleport_set_nan, "'teleport' is not finite"},
    {"a NaN force", force_set_nan, "'force' y is not finite"},
    {"a huge radius", radius_set_huge, "'radius' 1e+10 is out of range (0 .. 1e+09)"},
};

/* colliders: sn_collider_validate of a spoiled sphere */
static void valid_sphere(sn_collider_def *k) { memset(k, 0, sizeof *k); k->shape = SN_COLLIDER_SPHERE; k->radius = 1.0; }
static void capsule_of(sn_collider_def *k, double bx, double r, double rb) {
    k->shape = SN_COLLIDER_CAPSULE;
    k->b.x = bx;
    k->radius = r;
    k->radius_b = rb;
}

static void shape_unknown(sn_collider_def *k) { k->shape = (sn_collider_shape)9; }
static void sphere_radius_negative(sn_collider_def *k) { k->radius = -1; }
static void sphere_radius_nan(sn_collider_def *k) { k->radius = nan_; }
static void sphere_center_nan(sn_collider_def *k) { k->a.y = nan_; }
static void sphere_far(sn_collider_def *k) { k->a.x = 2e9; }
static void capsule_ends_coincide(sn_collider_def *k) { capsule_of(k, 0.0, 1.0, 1.0); }
static void capsule_one_end_inside(sn_collider_def *k) { capsule_of(k, 1.0, 1.0, 2.5); }
static void capsule_radius_b_negative(sn_collider_def *k) { capsule_of(k, 1.0, 1.0, -0.5); }
static void capsule_end_far(sn_collider_def *k) { capsule_of(k, -3e9, 1.0, 1.0); }
static void plane_normal_zero(sn_collider_def *k) { k->shape = SN_COLLIDER_PLANE; }
static void plane_normal_nan(sn_collider_def *k) { k->shape = SN_COLLIDER_PLANE; k->b.z = nan_; }
static void plane_normal_overflows(sn_collider_def *k) { k->shape = SN_COLLIDER_PLANE; k->b.x = k->b.y = 1e300; }
static void plane_point_far(sn_collider_def *k) { k->shape = SN_COLLIDER_PLANE; k->b.y = 1; k->a.z = -1e10; }

FIXTURE_CASE_TYPE(collider_case, sn_collider_def);
static const collider_case collider_cases[] = {
    {"an unknown shape", shape_unknown, "unknown collider shape 9"},
    {"a negative sphere radius", sphere_radius_negative, "sphere 'radius' -1 is out of range (0 .. 1e+09)"},
    {"a NaN sphere radius", sphere_radius_nan, "sphere 'radius' is not finite"},
    {"a NaN sphere centre", sphere_center_nan, "sphere 'center' y is not finite"},
    {"a sphere far away", sphere_far, "sphere 'center' x 2e+09 is out of range (-1e+09 .. 1e+09)"},
    {"capsule ends at one place", capsule_ends_coincide, "capsule ends 'a' and 'b' coincide"},
    {"a capsule end inside the other", capsule_one_end_inside, "capsule radii 1 and 2.5 differ by its length 1 or more"},
    {"a negative capsule radius_b", capsule_radius_b_negative, "capsule 'radius_b' -0.5 is out of range (0 .. 1e+09)"},
    {"a capsule end far away", capsule_end_far, "capsule 'b' x -3e+09 is out of range (-1e+09 .. 1e+09)"},
    {"a zero plane normal", plane_normal_zero, "plane 'normal' is zero"},
    {"a NaN plane normal", plane_normal_nan, "plane 'normal' is not finite"},
    {"a plane normal whose length overflows", plane_normal_overflows, "plane 'normal' is too long"},
    {"a plane point far away", plane_point_far, "plane 'point' z -1e+10 is out of range (-1e+09 .. 1e+09)"},
};

static void test_invalid_calls_refused(void) {
    sn_chain_def d;
    sn_chain *c;
    sn_collider_def k;
    sn_error err;
    double bad[2] = {0.5, 2.0}, v[3] = {0, 0, 0};
    int idx, i;
    sn_quat zero = {0, 0, 0, 0}, nanq = {0, 0, 0, 1};
    sn_vec3 t = {0, 0, 0};
    nan_ = 0.0;
    nan_ = nan_ / nan_;
    nanq.w = nan_;
    line_def(&d, 3, 0.1);
    d.max_colliders = 1;
    c = live = make_chain(&d);
    /* live parameters */
    REFUSE_CASES(param_cases, param_call, valid_call, set_on_live);
    v[0] = 1.5;
    ENSURE(sn_chain_set_param(c, SN_CHAIN_PARAM_DAMPING, -1, v, &err) == SN_EINVAL && err.arg == 3);
    v[0] = 0.5;
    ENSURE(sn_chain_set_param(c, SN_CHAIN_PARAM_DAMPING, 3, v, &err) == SN_ERANGE && err.arg == 2);
    ENSURE(sn_chain_set_param(c, SN_CHAIN_PARAM_END_LENGTH, -1, v, &err) == SN_EINVAL && err.arg == 1);
    {
        sn_chain_curve cv;
        cv.values = bad;
        cv.count = 0;
        ENSURE(sn_chain_set_curve(c, SN_CHAIN_PARAM_DAMPING, &cv, &err) == SN_EINVAL && strstr(err.msg, "no values") != NULL);
        cv.count = 2;
        ENSURE(sn_chain_set_curve(c, SN_CHAIN_PARAM_DAMPING, &cv, &err) == SN_EINVAL && err.arg == 2 &&
               strstr(err.msg, "'damping' 2 is out of range (0 .. 1)") != NULL);
        ENSURE(sn_chain_set_curve(c, SN_CHAIN_PARAM_GRAVITY, &cv, &err) == SN_EINVAL && err.arg == 1 &&
               strstr(err.msg, "'gravity' is not per particle") != NULL);
        ENSURE(sn_chain_set_curve(c, 77, &cv, &err) == SN_EINVAL && strstr(err.msg, "unknown parameter 77") != NULL);
    }
    ENSURE(sn_chain_get_param(c, SN_CHAIN_PARAM_DAMPING, 5, v, &err) == SN_ERANGE && err.arg == 2 &&
           strstr(err.msg, "particle 6 is out of range (1 .. 3)") != NULL);
    ENSURE(sn_chain_get_param(c, 42, 0, v, &err) == SN_ERANGE && err.arg == 1);
    ENSURE(sn_chain_get_param(c, 42, 0, v, NULL) == SN_ERANGE);
    /* colliders */
    REFUSE_CASES(collider_cases, sn_collider_def, valid_sphere, sn_collider_validate);
    valid_sphere(&k);
    plane_normal_zero(&k);
    ENSURE(sn_chain_add_collider(c, &k, &idx, &err) == SN_EINVAL && err.arg == 1);
    ENSURE(sn_chain_collider_count(c) == 0);
    k.b.y = 1;
    ENSURE(sn_chain_add_collider(c, &k, &idx, &err) == SN_OK && idx == 0);
    ENSURE(sn_chain_add_collider(c, &k, &idx, &err) == SN_ERANGE &&
           strstr(err.msg, "no room for another collider ('max_colliders' is 1)") != NULL);
    ENSURE(sn_chain_move_collider(c, 1, &k, &err) == SN_ERANGE && err.arg == 1 &&
           strstr(err.msg, "collider 2 is out of range (1 .. 1)") != NULL);
    k.b.y = 0;
    ENSURE(sn_chain_move_collider(c, 0, &k, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_chain_get_collider(c, 3, &k, &err) == SN_ERANGE && err.arg == 1);
    ENSURE(sn_chain_get_collider(c, -1, &k, NULL) == SN_ERANGE);
    /* stepping and placing */
    ENSURE(sn_chain_step(c, -0.1, &err) == SN_EINVAL && err.arg == 1 && strstr(err.msg, "'dt' -0.1 is negative") != NULL);
    ENSURE(sn_chain_step(c, nan_, &err) == SN_EINVAL && strstr(err.msg, "'dt' is not finite") != NULL);
    ENSURE(sn_chain_step(c, 1.0 / 0.0, &err) == SN_EINVAL);
    ENSURE(sn_chain_move_root(c, &t, &zero, &err) == SN_EINVAL && err.arg == 2 && strstr(err.msg, "rotation is zero") != NULL);
    ENSURE(sn_chain_move_root(c, &t, &nanq, &err) == SN_EINVAL && err.arg == 2 && strstr(err.msg, "not finite") != NULL);
    t.x = nan_;
    ENSURE(sn_chain_move_root(c, &t, &qid, &err) == SN_EINVAL && err.arg == 1 &&
           strstr(err.msg, "translation x is not finite") != NULL);
    t.x = 0.0;
    t.y = 1e12;
    ENSURE(sn_chain_move_root(c, &t, &qid, &err) == SN_EINVAL && err.arg == 1 &&
           strstr(err.msg, "translation y 1e+12 is out of range (-1e+09 .. 1e+09)") != NULL);
    ENSURE(sn_chain_move_root(c, &t, &qid, NULL) == SN_EINVAL);
    ENSURE(sn_chain_update(c, 0.1, NULL, NULL, &err) == SN_EINVAL && strstr(err.msg, "no skeleton") != NULL);
    for (i = 0; i < sn_chain_count(c); i++) { /* nothing above changed the chain */
        sn_vec3 p;
        sn_chain_position(c, i, &p);
        ENSURE(p.x == pts[3 * i] && p.y == 0.0);
    }
    fixture_free();
}

/* ---- the largest chains: construction is linear in the particles ---- */

/* rest transforms for n joints, each 0.01 along x from its parent */
static const float *long_rest(int n) {
    static float rest[10 * SN_SKELETON_MAX_JOINTS];
    int j;
    for (j = 0; j < n; j++) {
        float *t = rest + 10 * j;
        memset(t, 0, 10 * sizeof *t);
        t[0] = 0.01f;
        t[6] = t[7] = t[8] = t[9] = 1.0f;
    }
    return rest;
}

/* builds the chain of d, steps it once and checks that it stays finite; the particle count */
static int build_and_step(const sn_chain_def *d) {
    sn_chain *c = make_chain(d);
    sn_vec3 p;
    if (c == NULL) return 0;
    ENSURE(sn_chain_step(c, 1.0 / 60, NULL) == SN_OK);
    sn_chain_step_position(c, sn_chain_count(c) - 1, &p);
    ENSURE(sn_isfinite(p.x) && sn_isfinite(p.y) && sn_isfinite(p.z));
    return sn_chain_count(c);
}

static void test_largest_chains(void) {
    sn_chain_def d;
    sn_skeleton *s;
    int j, n = SN_CHAIN_MAX_POINTS;
    /* points: the longest line, and a star of as many particles as a chain can have */
    line_def(&d, n, 0.01);
    d.end_length = 1.0;
    ENSURE(build_and_step(&d) == n + 1);
    for (j = 1; j < n; j++) parents[j] = 0;
    ENSURE(build_and_step(&d) == SN_CHAIN_MAX_PARTICLES);
    fixture_free();
    /* skeleton: the longest line under the skeleton's root (joint 1 on) */
    n = SN_SKELETON_MAX_JOINTS;
    def_init(&d);
    d.skeleton = s = fixture_line_skeleton(n, long_rest(n));
    d.root = 1;
    d.end_length = 1.0;
    ENSURE(s != NULL && build_and_step(&d) == n);
    fixture_free();
    /* the largest block: a root and 65534 leaves, with tips, and every collider */
    for (j = 0; j < n; j++) parents[j] = j == 0 ? -1 : 0;
    d.skeleton = s = fixture_skeleton(n, parents, long_rest(n));
    d.root = 0;
    d.max_colliders = SN_CHAIN_MAX_COLLIDERS;
    ENSURE(s != NULL && sn_chain_size(&d, NULL) == SN_CHAIN_MAX_BYTES);
    fixture_free();
}

/* a chain released from horizontal under gravity: positions after `seconds` */
static sn_chain *released(double rate, double frame_dt, double seconds, int moving) {
    sn_chain_def d;
    sn_chain *c;
    int frames, f;
    line_def(&d, 8, 0.1);
    d.rate = rate;
    c = make_chain(&d);
    frames = (int)floor(seconds / frame_dt + 0.5);
    for (f = 1; f <= frames; f++) {
        if (moving) {
            sn_vec3 t;
            t.x = 0.3 * sin(3.0 * f * frame_dt);
            t.y = 0.2 * sin(5.0 * f * frame_dt);
            t.z = 0.0;
            ENSURE(sn_chain_move_root(c, &t, &qid, NULL) == SN_OK);
        }
        ENSURE(sn_chain_step(c, frame_dt, NULL) == SN_OK);
    }
    return c;
}

static void test_frame_rate_independence(void) {
    int moving;
    for (moving = 0; moving < 2; moving++) {
        sn_chain *ref = released(60, 1.0 / 144, 2.0, moving);
        sn_chain *a = released(60, 1.0 / 30, 2.0, moving), *b = released(60, 1.0 / 60, 2.0, moving);
        sn_chain *r120 = released(120, 1.0 / 144, 2.0, moving);
        double len = sn_chain_length(ref);
        ENSURE(worst_spread(a, ref) <= 0.02 * len);
        ENSURE(worst_spread(b, ref) <= 0.02 * len);
        ENSURE(worst_spread(r120, ref) <= 0.05 * len);
    }
    fixture_free();
}

/* a random tree of n points, within a unit box around the origin */
static void random_tree_def(sn_chain_def *d, int n) {
    int i;
    def_init(d);
    pts[0] = pts[1] = pts[2] = 0.0;
    parents[0] = -1;
    for (i = 1; i < n; i++) {
        int p = rnd(0, 1) < 0.7 ? i - 1 : (int)(rnd(0, 1) * i);
        parents[i] = p;
        pts[3 * i] = pts[3 * p] + rnd(-0.2, 0.2);
        pts[3 * i + 1] = pts[3 * p + 1] + rnd(-0.2, 0.2);
        pts[3 * i + 2] = pts[3 * p + 2] + rnd(-0.2, 0.2);
    }
    d->count = n;
    d->points = pts;
    d->parents = parents;
}

static void test_lengths_kept_each_step(void) {
    int trial, s, i;
    for (trial = 0; trial < 20; trial++) {
        sn_chain_def d;
        sn_chain *c;
        double rest[64];
        random_tree_def(&d, 3 + trial % 10);
        d.end_length = trial % 2 ? 0.5 : 0.0;
        c = make_chain(&d);
        for (i = 0; i < sn_chain_count(c); i++) rest[i] = 0;
        for (s = 0; s < 200; s++) {
            sn_vec3 t;
            sn_quat q;
            sn_vec3 axis = {0.3, 1, 0.2};
            t.x = 0.5 * sin(s * 0.1);
            t.y = 0.0;
            t.z = 0.3 * cos(s * 0.07);
            ENSURE(sn_quat_from_axis_angle(&axis, 0.02 * s, &q, NULL) == SN_OK);
            ENSURE(sn_chain_move_root(c, &t, &q, NULL) == SN_OK);
            ENSURE(sn_chain_step(c, 1.0 / 60, NULL) == SN_OK); /* one step each */
            for (i = 1; i < sn_chain_count(c); i++) {
                sn_vec3 a, b;
                int p;
                /* the parent of particle i: found through the definition (points) or the tip rule */
                p = i < d.count ? parents[i] : -1;
                if (p < 0) continue;
                sn_chain_position(c, i, &a);
                sn_chain_position(c, p, &b);
                if (s == 0) rest[i] = dist3(&a, &b);
                else ENSURE(fabs(dist3(&a, &b) - rest[i]) <= 0.01 * rest[i] + 1e-12);
            }
        }
    }
    fixture_free();
}

static void test_determinism(void) {
    sn_chain *a, *b;
    sn_collider_def k;
    int s, i;
    sn_chain_def d;
    random_tree_def(&d, 12);
    set_default(&d, SN_CHAIN_PARAM_RADIUS, 0.02);
    a = make_chain(&d);
    b = make_chain(&d);
    memset(&k, 0, sizeof k);
    k.shape = SN_COLLIDER_CAPSULE;
    k.a.x = -1; k.a.y = -0.2; k.b.x = 1; k.b.y = -0.25;
    k.radius = 0.1; k.radius_b = 0.05;
    ENSURE(sn_chain_add_collider(a, &k, NULL, NULL) == SN_OK);
    ENSURE(sn_chain_add_collider(b, &k, NULL, NULL) == SN_OK);
    for (s = 0; s < 300; s++) {
        sn_vec3 t = {0, 0, 0};
        double dt = 0.004 + 0.03 * rnd(0, 1);
        t.x = 0.4 * sin(s * 0.13);
        ENSURE(sn_chain_move_root(a, &t, &qid, NULL) == SN_OK && sn_chain_move_root(b, &t, &qid, NULL) == SN_OK);
        ENSURE(sn_chain_step(a, dt, NULL) == SN_OK && sn_chain_step(b, dt, NULL) == SN_OK);
    }
    for (i = 0; i < sn_chain_count(a); i++) {
        sn_vec3 p, q;
        sn_chain_position(a, i, &p);
        sn_chain_position(b, i, &q);
        ENSURE(memcmp(&p, &q, sizeof p) == 0);
    }
    fixture_free();
}

static int finite_chain(const sn_chain *c) {
    int i;
    for (i = 0; i < sn_chain_count(c); i++) {
        sn_vec3 p;
        sn_chain_position(c, i, &p);
        if (!sn_isfinite(p.x) || !sn_isfinite(p.y) || !sn_isfinite(p.z)) return 0;
    }
    return 1;
}

static void test_never_nan(void) {
    sn_chain_def d;
    sn_chain *c;
    sn_collider_def k;
    double dts[] = {0.0, 1e-9, 10.0, 1.0 / 60, 0.0, 3.3, 1e-9};
    int i;
    /* zero-length bones: repeated points */
    line_def(&d, 6, 0.1);
    pts[6] = pts[3];
    pts[9] = pts[3];
    d.end_length = 1.0;
    c = make_chain(&d);
    memset(&k, 0, sizeof k);
    k.shape = SN_COLLIDER_SPHERE;
    k.a.x = 0.1; /* centred on the repeated points */
    k.radius = 0.05;
    ENSURE(sn_chain_add_collider(c, &k, NULL, NULL) == SN_OK);
    k.shape = SN_COLLIDER_CAPSULE; /* its axis through a point */
    k.a.x = 0.4; k.a.y = -1; k.b.x = 0.4; k.b.y = 1;
    k.radius = k.radius_b = 0.03;
    ENSURE(sn_chain_add_collider(c, &k, NULL, NULL) == SN_OK);
    for (i = 0; i < (int)(sizeof dts / sizeof dts[0]); i++) {
        ENSURE(sn_chain_step(c, dts[i], NULL) == SN_OK);
        ENSURE(finite_chain(c));
    }
    sn_chain_reset(c);
    ENSURE(finite_chain(c));
    /* every point at one place, with a collider centred there */
    line_def(&d, 4, 0.0);
    c = make_chain(&d);
    k.shape = SN_COLLIDER_SPHERE;
    k.a.x = k.a.y = k.a.z = 0.0;
    k.radius = 0.1;
    ENSURE(sn_chain_add_collider(c, &k, NULL, NULL) == SN_OK);
    for (i = 0; i < (int)(sizeof dts / sizeof dts[0]); i++) {
        ENSURE(sn_chain_step(c, dts[i], NULL) == SN_OK);
        ENSURE(finite_chain(c));
    }
    fixture_free();
}

/* signed distance of p from collider k grown by r (outside positive), recomputed here */
static double sdf_check(const sn_collider_def *k, const sn_vec3 *p, double r) {
    if (k->shape == SN_COLLIDER_SPHERE) return dist3(p, &k->a) - k->radius - r;
    if (k->shape == SN_COLLIDER_PLANE) {
        double l = sqrt(k->b.x * k->b.x + k->b.y * k->b.y + k->b.z * k->b.z);
        return ((p->x - k->a.x) * k->b.x + (p->y - k->a.y) * k->b.y + (p->z - k->a.z) * k->b.z) / l - r;
    } else {
        /* round cone: minimum over the axis of |p - c(t)| - r(t) is an upper bound of the distance
           and exact on the part of the hull made of the spheres; sample densely */
        double best = 1e300;
        int i;
        for (i = 0; i <= 2000; i++) {
            double t = i / 2000.0;
            sn_vec3 c;
            double rr = k->radius + t * (k->radius_b - k->radius);
            c.x = k->a.x + t * (k->b.x - k->a.x);
            c.y = k->a.y + t * (k->b.y - k->a.y);
            c.z = k->a.z + t * (k->b.z - k->a.z);
            if (dist3(p, &c) - rr < best) best = dist3(p, &c) - rr;
        }
        return best - r;
    }
}

static void random_collider(sn_collider_def *k) {
    memset(k, 0, sizeof *k);
    k->shape = (sn_collider_shape)(rnd(0, 1) * 3);
    k->a.x = rnd(-0.5, 0.5); k->a.y = rnd(-0.8, 0.0); k->a.z = rnd(-0.5, 0.5);
    k->radius = rnd(0.02, 0.2);
    if (k->shape == SN_COLLIDER_CAPSULE) {
        k->b.x = k->a.x + rnd(-0.5, 0.5); k->b.y = k->a.y + rnd(-0.3, 0.3); k->b.z = k->a.z + rnd(-0.5, 0.5);
        k->radius_b = rnd(0.02, 0.2);
    } else if (k->shape == SN_COLLIDER_PLANE) {
        k->a.y = rnd(-1.2, -0.8);
        k->b.x = rnd(-0.3, 0.3); k->b.y = 1.0; k->b.z = rnd(-0.3, 0.3);
    }
}

/* bounding radius of a collider around a.. b, for keeping them apart */
static int overlapping(const sn_collider_def *a, const sn_collider_def *b) {
    sn_vec3 ca = a->a, cb = b->a;
    double ra = a->radius, rb = b->radius;
    if (a->shape == SN_COLLIDER_PLANE || b->shape == SN_COLLIDER_PLANE) return 0;
    if (a->shape == SN_COLLIDER_CAPSULE) {
        ca.x = (a->a.x + a->b.x) / 2; ca.y = (a->a.y + a->b.y) / 2; ca.z = (a->a.z + a->b.z) / 2;
        ra = dist3(&a->a, &a->b) / 2 + (a->radius > a->radius_b ? a->radius : a->radius_b);
    }
    if (b->shape == SN_COLLIDER_CAPSULE) {
        cb.x = (b->a.x + b->b.x) / 2; cb.y = (b->a.y + b->b.y) / 2; cb.z = (b->a.z + b->b.z) / 2;
        rb = dist3(&b->a, &b->b) / 2 + (b->radius > b->radius_b ? b->radius : b->radius_b);
    }
    return dist3(&ca, &cb) < ra + rb + 0.1;
}

/* the first `count` particles of a and b are at the same end-of-step positions, bit for bit */
static void ensure_same_positions(const sn_chain *a, const sn_chain *b, int count) {
    int i;
    for (i = 0; i < count; i++) {
        sn_vec3 pa, pb;
        sn_chain_step_position(a, i, &pa);
        sn_chain_step_position(b, i, &pb);
        ENSURE(memcmp(&pa, &pb, sizeof pa) == 0);
    }
}

/* adds up to `want` random, mutually non-overlapping colliders to chain a (and to b when given),
   recording them in ks; returns how many */
static int add_random_colliders(sn_chain *a, sn_chain *b, sn_collider_def *ks, int want) {
    int i, j, nk = 0;
    for (i = 0; i < 200 && nk < want; i++) {
        sn_collider_def k;
        int ok = 1;
        random_collider(&k);
        for (j = 0; j < nk; j++) ok = ok && !overlapping(&k, &ks[j]);
        if (!ok) continue;
        ks[nk++] = k;
        ENSURE(sn_chain_add_collider(a, &k, NULL, NULL) == SN_OK);
        if (b != NULL) ENSURE(sn_chain_add_collider(b, &k, NULL, NULL) == SN_OK);
    }
    return nk;
}

static void test_colliders_not_penetrated(void) {
    int trial, s, i, j, nk;
    for (trial = 0; trial < 40; trial++) {
        sn_chain_def d;
        sn_chain *c;
        sn_collider_def ks[4];
        double radius = trial % 3 == 0 ? 0.0 : 0.02;
        random_tree_def(&d, 10);
        set_default(&d, SN_CHAIN_PARAM_RADIUS, radius);
        set_default(&d, SN_CHAIN_PARAM_ELASTICITY, 0.0);
        set_default(&d, SN_CHAIN_PARAM_DAMPING, 0.02);
        d.teleport = 0.0; /* never: large jumps are the point here */
        d.gravity[1] = -30.0;
        c = make_chain(&d);
        nk = add_random_colliders(c, NULL, ks, 4);
        for (s = 0; s < 240; s++) {
            sn_vec3 t = {0, 0, 0};
            t.x = 0.8 * sin(s * 0.3); /* fast: up to 0.24 per step */
            t.z = 0.5 * cos(s * 0.23);
            ENSURE(sn_chain_move_root(c, &t, &qid, NULL) == SN_OK);
            ENSURE(sn_chain_step(c, 1.0 / 60, NULL) == SN_OK); /* exactly one step: check after each */
            for (i = 1; i < sn_chain_count(c); i++) {
                sn_vec3 p;
                sn_chain_step_position(c, i, &p);
                for (j = 0; j < nk; j++) ENSURE(sdf_check(&ks[j], &p, radius) >= -1e-4);
            }
        }
    }
    fixture_free();
}

static void test_inside_collider_keeps_in(void) {
    sn_chain_def d;
    sn_chain *c;
    sn_collider_def k;
    int s, i;
    line_def(&d, 6, 0.1);
    set_default(&d, SN_CHAIN_PARAM_RADIUS, 0.01);
    set_default(&d, SN_CHAIN_PARAM_ELASTICITY, 0.0);
    set_default(&d, SN_CHAIN_PARAM_STIFFNESS, 0.0);
    c = make_chain(&d);
    memset(&k, 0, sizeof k);
    k.shape = SN_COLLIDER_SPHERE;
    k.inside = 1;
    k.radius = 0.3; /* the chain is 0.5 long: its tip must fold inside */
    ENSURE(sn_chain_add_collider(c, &k, NULL, NULL) == SN_OK);
    for (s = 0; s < 120; s++) {
        ENSURE(sn_chain_step(c, 1.0 / 60, NULL) == SN_OK);
        for (i = 1; i < 6; i++) {
            sn_vec3 p;
            sn_chain_step_position(c, i, &p);
            ENSURE(sqrt(p.x * p.x + p.y * p.y + p.z * p.z) <= 0.3 - 0.01 + 1e-9);
        }
    }
    fixture_free();
}

static void test_no_tunnelling(void) {
    /* a two-point chain whip: the tip crosses a thin capsule far faster than its radius per step */
    sn_chain_def d;
    sn_chain *c;
    sn_collider_def k;
    sn_vec3 p;
    sn_quat q;
    sn_vec3 z = {0, 0, 1};
    int s;
    line_def(&d, 2, 1.0);
    d.gravity[1] = 0.0;
    set_default(&d, SN_CHAIN_PARAM_ELASTICITY, 1.0); /* follows the animation: it wants to go through */
    d.teleport = 0.0;
    c = make_chain(&d);
    memset(&k, 0, sizeof k);
    k.shape = SN_COLLIDER_CAPSULE;
    k.a.x = 0.8660254; k.a.y = 0.5; k.a.z = -1; /* on the tip's circle, at 30 degrees */
    k.b.x = 0.8660254; k.b.y = 0.5; k.b.z = 1;
    k.radius = k.radius_b = 0.01;
    ENSURE(sn_chain_add_collider(c, &k, NULL, NULL) == SN_OK);
    ENSURE(sn_chain_step(c, 1.0 / 60, NULL) == SN_OK);
    for (s = 1; s <= 10; s++) { /* rotate the rest pose by 9 degrees per step: 0.16 per step at the tip */
        sn_vec3 o = {0, 0, 0};
        ENSURE(sn_quat_from_axis_angle(&z, s * 0.157, &q, NULL) == SN_OK);
        ENSURE(sn_chain_move_root(c, &o, &q, NULL) == SN_OK);
        ENSURE(sn_chain_step(c, 1.0 / 60, NULL) == SN_OK);
    }
    sn_chain_step_position(c, 1, &p);
    ENSURE(p.y < 0.5); /* stopped below the capsule, not past it */
    ENSURE(sdf_check(&k, &p, 0.0) >= -1e-4);
    fixture_free();
}

/* a collider definition from numbers: shape, a, b, radius, radius_b, inside */
static void collider_of(sn_collider_def *k, sn_collider_shape shape, double ax, double ay, double az, double bx,
                        double by, double bz, double ra, double rb, int inside) {
    memset(k, 0, sizeof *k);
    k->shape = shape;
    k->a.x = ax; k->a.y = ay; k->a.z = az;
    k->b.x = bx; k->b.y = by; k->b.z = bz;
    k->radius = ra;
    k->radius_b = rb;
    k->inside = inside;
}

static void test_far_colliders_change_nothing(void) {
    /* the broad phase skips colliders that cannot reach the chain: with many of them around (of
       every kind, between the near ones) the motion is the same, bit for bit */
    sn_collider_def near[3], far[6];
    sn_chain *with, *without;
    sn_chain_def d;
    int s, k;
    random_tree_def(&d, 12);
    set_default(&d, SN_CHAIN_PARAM_RADIUS, 0.02);
    set_default(&d, SN_CHAIN_PARAM_ELASTICITY, 0.0);
    d.teleport = 0.0;
    d.gravity[1] = -30.0;
    d.max_colliders = 9;
    with = make_chain(&d);
    without = make_chain(&d);
    collider_of(&near[0], SN_COLLIDER_CAPSULE, -0.6, -0.4, 0.1, 0.7, -0.45, -0.1, 0.08, 0.04, 0);
    collider_of(&near[1], SN_COLLIDER_SPHERE, 0.2, -0.3, 0.2, 0, 0, 0, 0.12, 0, 0);
    collider_of(&near[2], SN_COLLIDER_PLANE, 0, -0.8, 0, 0.1, 1, 0, 0, 0, 0);
    collider_of(&far[0], SN_COLLIDER_SPHERE, 30, 0, 0, 0, 0, 0, 1, 0, 0);
    collider_of(&far[1], SN_COLLIDER_CAPSULE, -20, 5, 0, -20, 9, 3, 2, 1, 0);
    collider_of(&far[2], SN_COLLIDER_PLANE, 0, -40, 0, 0, 1, 0.2, 0, 0, 0);
    collider_of(&far[3], SN_COLLIDER_SPHERE, 0, 0, 0, 0, 0, 0, 100, 0, 1);      /* everything inside */
    collider_of(&far[4], SN_COLLIDER_CAPSULE, 0, -50, 0, 0, 50, 0, 60, 60, 1); /* the same */
    collider_of(&far[5], SN_COLLIDER_PLANE, 0, 50, 0, 0, 1, 0, 0, 0, 1);     /* everything behind */
    for (k = 0; k < 3; k++) {
        ENSURE(sn_chain_add_collider(with, &far[2 * k], NULL, NULL) == SN_OK);
        ENSURE(sn_chain_add_collider(with, &near[k], NULL, NULL) == SN_OK);
        ENSURE(sn_chain_add_collider(with, &far[2 * k + 1], NULL, NULL) == SN_OK);
        ENSURE(sn_chain_add_collider(without, &near[k], NULL, NULL) == SN_OK);
    }
    for (s = 0; s < 300; s++) {
        sn_vec3 t = {0, 0, 0};
        sn_quat q;
        sn_vec3 axis = {0.2, 1, 0.4};
        t.x = 0.8 * sin(s * 0.3);
        t.z = 0.5 * cos(s * 0.23);
        ENSURE(sn_quat_from_axis_angle(&axis, 1.5 * sin(s * 0.05), &q, NULL) == SN_OK);
        ENSURE(sn_chain_move_root(with, &t, &q, NULL) == SN_OK && sn_chain_move_root(without, &t, &q, NULL) == SN_OK);
        ENSURE(sn_chain_step(with, s % 25 == 0 ? 0.2 : 1.0 / 60, NULL) == SN_OK);
        ENSURE(sn_chain_step(without, s % 25 == 0 ? 0.2 : 1.0 / 60, NULL) == SN_OK);
        ensure_same_positions(with, without, sn_chain_count(with));
    }
    fixture_free();
}

/* a floor plane far below everything: it never touches, but with it the chain has a broad phase
   (a plane always passes the collider filter, so the broad phase drops it when it is far) */
static void add_far_floor(sn_chain *c) {
    sn_collider_def floor;
    collider_of(&floor, SN_COLLIDER_PLANE, 0, -50, 0, 0, 1, 0, 0, 0, 0);
    ENSURE(sn_chain_add_collider(c, &floor, NULL, NULL) == SN_OK);
}

static void test_broad_phase_matches_all_colliders(void) {
    /* the same tree alone, and with a second tree 100 units away in the same chain: that one
       makes the broad phase's ball so big that every collider is tested for every particle, and
       trees do not interact, so the first tree must move the same, bit for bit */
    int trial, s, i;
    for (trial = 0; trial < 12; trial++) {
        sn_chain_def d;
        sn_chain *alone, *both;
        sn_collider_def ks[4];
        double radius = trial % 3 == 0 ? 0.0 : 0.02;
        random_tree_def(&d, 10);
        set_default(&d, SN_CHAIN_PARAM_RADIUS, radius);
        set_default(&d, SN_CHAIN_PARAM_ELASTICITY, 0.0);
        set_default(&d, SN_CHAIN_PARAM_DAMPING, 0.02);
        d.teleport = 0.0;
        d.max_steps = 20;
        d.gravity[1] = -30.0;
        alone = make_chain(&d);
        for (i = 10; i < 12; i++) { /* the far tree: a root and a child */
            parents[i] = i == 10 ? -1 : 10;
            pts[3 * i] = 100.0 + 0.1 * (i - 10);
            pts[3 * i + 1] = pts[3 * i + 2] = 0.0;
        }
        d.count = 12;
        both = make_chain(&d);
        (void)add_random_colliders(alone, both, ks, 4);
        add_far_floor(alone); /* so that both have a broad phase, whatever colliders were drawn */
        add_far_floor(both);
        for (s = 0; s < 120; s++) {
            sn_vec3 t = {0, 0, 0};
            double dt = s % 10 == 0 ? 0.2 : 1.0 / 60;
            t.x = 0.8 * sin(s * 0.3);
            t.z = 0.5 * cos(s * 0.23);
            ENSURE(sn_chain_move_root(alone, &t, &qid, NULL) == SN_OK && sn_chain_move_root(both, &t, &qid, NULL) == SN_OK);
            ENSURE(sn_chain_step(alone, dt, NULL) == SN_OK && sn_chain_step(both, dt, NULL) == SN_OK);
            ensure_same_positions(alone, both, 10);
        }
        fixture_free();
    }
}

/* two chains of the same random 10-point tree falling fast (radius 0 or 0.02 by trial), for
   comparing two ways of stepping it */
static void falling_tree_pair(sn_chain_def *d, int trial, sn_chain *c[2]) {
    random_tree_def(d, 10);
    set_default(d, SN_CHAIN_PARAM_RADIUS, trial % 3 == 0 ? 0.0 : 0.02);
    set_default(d, SN_CHAIN_PARAM_ELASTICITY, 0.0);
    set_default(d, SN_CHAIN_PARAM_DAMPING, 0.02);
    d->teleport = 0.0;
    d->gravity[1] = -30.0;
    c[0] = make_chain(d);
    c[1] = make_chain(d);
}

/* 120 steps of both chains with the root swinging fast: the same positions after each, bit for bit */
static void step_pair_alike(sn_chain *c[2]) {
    int s, v;
    for (s = 0; s < 120; s++) {
        sn_vec3 t = {0, 0, 0};
        t.x = 0.8 * sin(s * 0.3);
        t.z = 0.5 * cos(s * 0.23);
        for (v = 0; v < 2; v++) {
            ENSURE(sn_chain_move_root(c[v], &t, &qid, NULL) == SN_OK);
            ENSURE(sn_chain_step(c[v], 1.0 / 60, NULL) == SN_OK);
        }
        ensure_same_positions(c[0], c[1], 10);
    }
}

static void test_simd_paths_agree(void) {
    /* the collider filters (the plain loop, and AVX where the processor has it) choose what the
       exact tests look at, with a margin: both must give the same motion, bit for bit */
    int trial;
    for (trial = 0; trial < 12; trial++) {
        sn_chain_def d;
        sn_chain *c[2];
        sn_collider_def ks[10];
        falling_tree_pair(&d, trial, c);
        ENSURE(sn_chain_get_simd(c[1]) == sn_chain_simd_best());
        ENSURE(sn_chain_set_simd(c[0], SN_CHAIN_SIMD_PLAIN) == SN_CHAIN_SIMD_PLAIN);
        (void)add_random_colliders(c[0], c[1], ks, trial % 2 ? 10 : 4);
        step_pair_alike(c);
        ENSURE(sn_chain_set_simd(c[0], -5) == SN_CHAIN_SIMD_PLAIN);
        ENSURE(sn_chain_set_simd(c[0], 99) == sn_chain_simd_best() && sn_chain_get_simd(c[0]) == sn_chain_simd_best());
        fixture_free();
    }
}

static void test_pushed_out_of_the_broad_phase(void) {
    /* a particle at the centre of a big sphere is pushed far out of the chain's broad-phase ball,
       into a small sphere the broad phase found out of reach: it is kept out of both */
    sn_chain_def d;
    sn_chain *c;
    sn_collider_def big, small;
    sn_vec3 p;
    line_def(&d, 2, 0.1);
    d.gravity[1] = 0.0;
    c = make_chain(&d);
    collider_of(&big, SN_COLLIDER_SPHERE, 0.1, 0, 0, 0, 0, 0, 0.5, 0, 0);
    collider_of(&small, SN_COLLIDER_SPHERE, 0.64, 0.03, 0, 0, 0, 0, 0.06, 0, 0); /* holds (0.6, 0, 0) */
    ENSURE(sn_chain_add_collider(c, &big, NULL, NULL) == SN_OK);
    ENSURE(sn_chain_add_collider(c, &small, NULL, NULL) == SN_OK);
    add_far_floor(c); /* two spheres alone are all tested without a broad phase */
    ENSURE(sn_chain_step(c, 1.0 / 60, NULL) == SN_OK);
    sn_chain_step_position(c, 1, &p);
    ENSURE(sdf_check(&big, &p, 0.0) >= -1e-4);
    ENSURE(sdf_check(&small, &p, 0.0) >= -1e-4);
    fixture_free();
}

static void test_broad_phase_changes_nothing(void) {
    /* up to 4 outside spheres and capsules are all tested without a broad phase; a far floor
       plane added brings the broad phase back (it drops the floor, and whatever round collider
       is far): the motion must be the same, bit for bit */
    int trial, v;
    for (trial = 0; trial < 12; trial++) {
        sn_chain_def d;
        sn_chain *c[2];
        sn_collider_def k;
        int nk = 0, tries;
        falling_tree_pair(&d, trial, c);
        for (tries = 0; tries < 100 && nk < 1 + trial % 4; tries++) {
            random_collider(&k);
            if (k.shape == SN_COLLIDER_PLANE) continue;
            for (v = 0; v < 2; v++) ENSURE(sn_chain_add_collider(c[v], &k, NULL, NULL) == SN_OK);
            nk++;
        }
        add_far_floor(c[1]);
        step_pair_alike(c);
        fixture_free();
    }
}

static void test_teleport(void) {
    sn_chain_def d;
    sn_chain *c, *ref;
    sn_vec3 far = {100, 0, 0}, p, q;
    int s, i;
    /* a jump beyond the threshold resets to the animated pose */
    line_def(&d, 5, 0.1);
    c = make_chain(&d);
    run_for(c, 1.0 / 60, 0.5);
    ENSURE(sn_chain_move_root(c, &far, &qid, NULL) == SN_OK);
    ENSURE(sn_chain_step(c, 1.0 / 60, NULL) == SN_OK);
    sn_chain_position(c, 4, &p);
    ENSURE(p.x > 100.0 && p.x < 100.5 && fabs(p.y) < 0.05); /* near the animated pose, not flung */
    sn_chain_reset(c);
    for (i = 0; i < 5; i++) {
        sn_chain_position(c, i, &p);
        ENSURE_NEAR(p.x, 100.0 + 0.1 * i, 1e-12);
        ENSURE(p.y == 0.0);
    }
    /* teleport(): the swing goes on, carried rigidly */
    line_def(&d, 5, 0.1);
    c = make_chain(&d);
    ref = make_chain(&d);
    run_for(c, 1.0 / 60, 0.3);
    run_for(ref, 1.0 / 60, 0.3);
    sn_chain_teleport(c);
    ENSURE(sn_chain_move_root(c, &far, &qid, NULL) == SN_OK);
    for (s = 0; s < 20; s++) {
        ENSURE(sn_chain_step(c, 1.0 / 60, NULL) == SN_OK);
        ENSURE(sn_chain_step(ref, 1.0 / 60, NULL) == SN_OK);
    }
    for (i = 0; i < 5; i++) {
        sn_chain_position(c, i, &p);
        sn_chain_position(ref, i, &q);
        ENSURE_NEAR(p.x - 100.0, q.x, 1e-9);
        ENSURE_NEAR(p.y, q.y, 1e-9);
    }
    fixture_free();
}

static void test_inert_and_parent_space(void) {
    sn_chain_def d;
    sn_chain *moved, *still, *parent;
    int s, i;
    line_def(&d, 6, 0.1);
    set_default(&d, SN_CHAIN_PARAM_INERT, 1.0);
    moved = make_chain(&d);
    still = make_chain(&d);
    d.curves[SN_CHAIN_PARAM_INERT].count = 0;
    d.space = SN_CHAIN_PARENT;
    parent = make_chain(&d);
    for (s = 1; s <= 90; s++) {
        sn_vec3 t = {0, 0, 0};
        t.x = 2.0 * s / 90.0; /* running: 2 units in 1.5 s, accelerating from rest */
        t.x *= t.x;
        ENSURE(sn_chain_move_root(moved, &t, &qid, NULL) == SN_OK && sn_chain_move_root(parent, &t, &qid, NULL) == SN_OK);
        ENSURE(sn_chain_step(moved, 1.0 / 60, NULL) == SN_OK);
        ENSURE(sn_chain_step(still, 1.0 / 60, NULL) == SN_OK);
        ENSURE(sn_chain_step(parent, 1.0 / 60, NULL) == SN_OK);
    }
    for (i = 0; i < 6; i++) {
        sn_vec3 a, b, r, p;
        sn_chain_position(moved, i, &a);
        sn_chain_position(moved, 0, &r);
        sn_chain_position(still, i, &b);
        sn_chain_position(parent, i, &p);
        ENSURE_NEAR(a.x - r.x, b.x, 1e-9);
        ENSURE_NEAR(a.y, b.y, 1e-9);
        ENSURE_NEAR(p.x - r.x, b.x, 1e-9);
    }
    fixture_free();
}

static void test_live_params_and_curves(void) {
    sn_chain_def d;
    sn_chain *c;
    double pair[2] = {0.1, 0.5}, per[4] = {0.0, 0.1, 0.2, 0.3}, v[3];
    sn_chain_curve cv;
    sn_vec3 before, after;
    int i;
    line_def(&d, 4, 0.1);
    d.curves[SN_CHAIN_PARAM_DAMPING].values = pair;
    d.curves[SN_CHAIN_PARAM_DAMPING].count = 2;
    d.curves[SN_CHAIN_PARAM_RADIUS].values = per;
    d.curves[SN_CHAIN_PARAM_RADIUS].count = 4;
    c = make_chain(&d);
    for (i = 0; i < 4; i++) {
        ENSURE(sn_chain_get_param(c, SN_CHAIN_PARAM_DAMPING, i, v, NULL) == SN_OK);
        ENSURE_NEAR(v[0], 0.1 + 0.4 * i / 3.0, 1e-15);
        ENSURE(sn_chain_get_param(c, SN_CHAIN_PARAM_RADIUS, i, v, NULL) == SN_OK && v[0] == per[i]);
    }
    run_for(c, 1.0 / 60, 0.2);
    sn_chain_position(c, 3, &before);
    v[0] = 0.7;
    ENSURE(sn_chain_set_param(c, SN_CHAIN_PARAM_STIFFNESS, 2, v, NULL) == SN_OK);
    v[0] = 120.0;
    ENSURE(sn_chain_set_param(c, SN_CHAIN_PARAM_RATE, -1, v, NULL) == SN_OK);
    sn_chain_position(c, 3, &after);
    ENSURE(memcmp(&before, &after, sizeof before) == 0); /* no reset */
    ENSURE(sn_chain_step(c, 1.0 / 60, NULL) == SN_OK);
    sn_chain_position(c, 3, &after);
    ENSURE(dist3(&before, &after) < 0.05); /* continues from where it was */
    ENSURE(sn_chain_get_param(c, SN_CHAIN_PARAM_STIFFNESS, 2, v, NULL) == SN_OK && v[0] == 0.7);
    ENSURE(sn_chain_get_param(c, SN_CHAIN_PARAM_STIFFNESS, 1, v, NULL) == SN_OK && v[0] == 0.1);
    cv.values = per;
    cv.count = 4;
    ENSURE(sn_chain_set_curve(c, SN_CHAIN_PARAM_INERT, &cv, NULL) == SN_OK);
    ENSURE(sn_chain_get_param(c, SN_CHAIN_PARAM_INERT, 3, v, NULL) == SN_OK && v[0] == 0.3);
    fixture_free();
}

static void test_end_length_tips(void) {
    sn_chain_def d;
    sn_chain *c;
    sn_vec3 p;
    line_def(&d, 3, 0.1);
    parents[2] = 0; /* a fork: two leaves */
    pts[6] = 0.0;
    pts[7] = 0.2;
    d.end_length = 0.5;
    c = make_chain(&d);
    ENSURE(sn_chain_count(c) == 5);
    sn_chain_position(c, 3, &p);
    ENSURE_NEAR(p.x, 0.15, 1e-15);
    sn_chain_position(c, 4, &p);
    ENSURE_NEAR(p.y, 0.3, 1e-15);
    fixture_free();
}

/* ---- skeleton mode ---- */

static void test_skeleton_chain(void) {
    float rest[80], model[16 * 8];
    sn_skeleton *s, *other;
    sn_pose *pose, *wrong;
    sn_chain_def d;
    sn_chain *c;
    sn_error err;
    int i, f;
    tail_rest(rest);
    s = fixture_skeleton(6, tail_parents, rest); /* the body and the tail, no branch */
    other = fixture_skeleton(6, tail_parents, rest);
    pose = fixture_pose(s);
    wrong = fixture_pose(other);
    def_init(&d);
    d.skeleton = s;
    d.root = 9;
    ENSURE(sn_chain_validate(&d, &err) == SN_EINVAL && strstr(err.msg, "root joint 10") != NULL);
    d.root = 1;
    d.end_length = 1.0;
    c = make_chain(&d);
    ENSURE(sn_chain_has_skeleton(c));
    ENSURE(sn_chain_count(c) == 6); /* joints 1..5 and a tip after 5 */
    ENSURE(sn_chain_joint(c, 0) == 1 && sn_chain_joint(c, 4) == 5 && sn_chain_joint(c, 5) == -1);
    ENSURE(sn_chain_update(c, 0.1, wrong, NULL, &err) == SN_EINVAL && err.arg == 2);
    {
        double m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        m[3] = 1.0;
        ENSURE(sn_chain_update(c, 0.1, pose, m, &err) == SN_EINVAL && err.arg == 3);
        m[3] = 0.0;
        m[5] = 0.0;
        ENSURE(sn_chain_update(c, 0.1, pose, m, &err) == SN_EINVAL && strstr(err.msg, "singular") != NULL);
        m[5] = 1.0 / 0.0;
        ENSURE(sn_chain_update(c, 0.1, pose, m, &err) == SN_EINVAL);
    }
    {
        float trs[10];
        sn_pose_get(pose, 3, trs);
        trs[3] = trs[4] = trs[5] = trs[6] = 0.0f;
        sn_pose_set(pose, 3, trs);
        ENSURE(sn_chain_update(c, 0.1, pose, NULL, &err) == SN_EINVAL && strstr(err.msg, "'j3'") != NULL);
        sn_pose_reset(pose);
    }
    /* under gravity the tail droops; the written pose puts every joint where its particle is */
    for (f = 0; f < 60; f++) ENSURE(sn_chain_update(c, 1.0 / 60, pose, NULL, &err) == SN_OK);
    sn_pose_to_model(pose, model);
    for (i = 0; i < 5; i++) {
        sn_vec3 p;
        int j = sn_chain_joint(c, i);
        sn_chain_position(c, i, &p);
        ENSURE_NEAR(model[16 * j + 12], p.x, 2e-5);
        ENSURE_NEAR(model[16 * j + 13], p.y, 2e-5);
        ENSURE_NEAR(model[16 * j + 14], p.z, 2e-5);
    }
    {
        sn_vec3 tip;
        sn_chain_position(c, 4, &tip); /* joint 5, the end of the tail */
        ENSURE(tip.y < 0.95);
    }
    fixture_free();
}

/* a chain definition on the branched tail skeleton (a new one) from joint `root`, and a pose */
static sn_pose *branched_tail(sn_chain_def *d, int root) {
    float rest[80];
    sn_skeleton *s;
    tail_rest(rest);
    s = fixture_skeleton(8, tail_parents, rest);
    def_init(d);
    d->skeleton = s;
    d->root = root;
    return fixture_pose(s);
}

static void test_skeleton_branch_best_fit_and_root_matrix(void) {
    float model[16 * 8];
    sn_pose *pose;
    sn_chain_def d;
    sn_chain *c;
    double m[16] = {0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 5, 6, 7, 1}; /* 90 degrees about z, moved */
    double vals1[1] = {1.0}, zero[1] = {0.0};
    int i, f;
    pose = branched_tail(&d, 2);
    d.curves[SN_CHAIN_PARAM_STIFFNESS].values = vals1; /* rigid bend: the branch turns as one piece */
    d.curves[SN_CHAIN_PARAM_STIFFNESS].count = 1;
    d.curves[SN_CHAIN_PARAM_ELASTICITY].values = zero;
    d.curves[SN_CHAIN_PARAM_ELASTICITY].count = 1;
    d.gravity[1] = 0.0;
    d.gravity[0] = -9.81; /* in world: along the root's model -y after the 90 degree turn */
    c = make_chain(&d);
    for (f = 0; f < 30; f++) ENSURE(sn_chain_update(c, 1.0 / 60, pose, m, NULL) == SN_OK);
    sn_pose_to_model(pose, model);
    for (i = 0; i < sn_chain_count(c); i++) {
        sn_vec3 p;
        int j = sn_chain_joint(c, i);
        double x, y, z;
        sn_chain_position(c, i, &p);
        /* world = m * model */
        x = model[16 * j + 12]; y = model[16 * j + 13]; z = model[16 * j + 14];
        ENSURE_NEAR(m[0] * x + m[4] * y + m[8] * z + m[12], p.x, 1e-4);
        ENSURE_NEAR(m[1] * x + m[5] * y + m[9] * z + m[13], p.y, 1e-4);
        ENSURE_NEAR(m[2] * x + m[6] * y + m[10] * z + m[14], p.z, 1e-4);
    }
    fixture_free();
}

static void test_skeleton_rest_stays(void) {
    /* without gravity and force the rest pose is an equilibrium: rotations are written unchanged */
    float trs[10];
    sn_pose *pose;
    sn_chain_def d;
    sn_chain *c;
    int f, j;
    pose = branched_tail(&d, 0);
    d.gravity[1] = 0.0;
    d.end_length = 0.5;
    c = make_chain(&d);
    for (f = 0; f < 30; f++) ENSURE(sn_chain_update(c, 1.0 / 45, pose, NULL, NULL) == SN_OK);
    for (j = 0; j < 8; j++) {
        sn_pose_get(pose, j, trs);
        ENSURE_NEAR(trs[6], 1.0, 1e-6);
    }
    fixture_free();
}

int main(void) {
    static const sn_chain_solver solvers[2] = {SN_CHAIN_SWEEP, SN_CHAIN_COUPLED};
    int k;
    RUN(test_defaults);
    RUN(test_invalid_definitions_refused);
    RUN(test_invalid_calls_refused);
    RUN(test_largest_chains);
    for (k = 0; k < 2; k++) {
        solver = solvers[k];
        RUN(test_frame_rate_independence);
        RUN(test_lengths_kept_each_step);
        RUN(test_determinism);
        RUN(test_never_nan);
        RUN(test_colliders_not_penetrated);
        RUN(test_inside_collider_keeps_in);
        RUN(test_no_tunnelling);
        RUN(test_far_colliders_change_nothing);
        RUN(test_broad_phase_matches_all_colliders);
        RUN(test_pushed_out_of_the_broad_phase);
        RUN(test_simd_paths_agree);
        RUN(test_broad_phase_changes_nothing);
        RUN(test_teleport);
        RUN(test_inert_and_parent_space);
        RUN(test_live_params_and_curves);
        RUN(test_end_length_tips);
        RUN(test_skeleton_chain);
        RUN(test_skeleton_branch_best_fit_and_root_matrix);
        RUN(test_skeleton_rest_stays);
        if (ensure_failed > 0) fprintf(stderr, "  (solver %s)\n", k == 0 ? "sweep" : "coupled");
    }
    return END("test_chain");
}
