/* C figures of the dynamic-bone core.
   Stepping: ns per particle-step for 100 chains of 8 particles (hair hanging from a moving head),
   one step per call, for each solver, with colliders in two layouts:
   - "crossing": 4 or 16 capsules placed through the hair itself, so that every chain is near
     3 or 4 of the first 4 and about one particle in four is pushed every step (a worst case);
   - "body": a character's body under the head (neck, shoulders, chest first, then arms, torso,
     hips and legs), where only the strands over the shoulders, chest and back touch and the
     other capsules are far (the usual case).
   Construction: us to validate, size and build one chain (sn_chain_validate, sn_chain_size,
   sn_chain_init) of 1k, 16k and 64k particles, a line and a bushy tree, points and skeleton mode:
   linear in the particles.
   `bench_chain lua` prints only the C figure of bench/chain.lua's last part (50 points chains of 8
   points, no collider, stepped with the root left where it is), which that file reads for its
   ratios; the full run above does not print it. */
#include "bench.h" /* first: it sets _POSIX_C_SOURCE */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "skeleton.h"

#define CHAINS 100
#define POINTS 8
#define STEPS 600
#define ROUNDS 6 /* the first warms up; the median of the others */

/* capsules through the hair: torso, neck, shoulders, then arms and more */
static void crossing_capsule(int k, sn_collider_def *d) {
    double x = (k % 2 ? -1.0 : 1.0) * (0.05 + 0.04 * (k / 2)), y = 1.45 - 0.06 * (k / 2);
    d->shape = SN_COLLIDER_CAPSULE;
    d->inside = 0;
    d->a.x = x;
    d->a.y = y;
    d->a.z = -0.15;
    d->b.x = x * 1.5;
    d->b.y = y - 0.2;
    d->b.z = 0.15;
    d->radius = 0.06;
    d->radius_b = 0.045;
}

/* a body under the head (hair roots on a ring of radius 0.1 at y = 1.6): ax ay az bx by bz r rb */
static const double body[16][8] = {
    {0.00, 1.40, 0.00, 0.00, 1.55, -0.01, 0.050, 0.045},   /* neck */
    {0.05, 1.42, 0.00, 0.21, 1.39, 0.00, 0.055, 0.050},    /* shoulders */
    {-0.05, 1.42, 0.00, -0.21, 1.39, 0.00, 0.055, 0.050},
    {-0.11, 1.28, 0.00, 0.11, 1.28, 0.00, 0.095, 0.095},   /* chest and upper back */
    {0.21, 1.39, 0.00, 0.24, 1.12, 0.01, 0.048, 0.042},    /* upper arms */
    {-0.21, 1.39, 0.00, -0.24, 1.12, 0.01, 0.048, 0.042},
    {0.24, 1.12, 0.01, 0.26, 0.87, 0.06, 0.040, 0.033},    /* forearms */
    {-0.24, 1.12, 0.01, -0.26, 0.87, 0.06, 0.040, 0.033},
    {0.00, 1.20, 0.00, 0.00, 1.00, 0.00, 0.120, 0.110},    /* lower torso */
    {-0.09, 0.94, 0.00, 0.09, 0.94, 0.00, 0.105, 0.105},   /* hips */
    {0.09, 0.92, 0.00, 0.10, 0.50, 0.01, 0.070, 0.055},    /* thighs */
    {-0.09, 0.92, 0.00, -0.10, 0.50, 0.01, 0.070, 0.055},
    {0.10, 0.50, 0.01, 0.10, 0.09, -0.01, 0.050, 0.040},   /* shins */
    {-0.10, 0.50, 0.01, -0.10, 0.09, -0.01, 0.050, 0.040},
    {0.26, 0.87, 0.06, 0.27, 0.77, 0.08, 0.033, 0.028},    /* hands */
    {-0.26, 0.87, 0.06, -0.27, 0.77, 0.08, 0.033, 0.028}};

static void body_capsule(int k, sn_collider_def *d) {
    const double *b = body[k];
    d->shape = SN_COLLIDER_CAPSULE;
    d->inside = 0;
    d->a.x = b[0];
    d->a.y = b[1];
    d->a.z = b[2];
    d->b.x = b[3];
    d->b.y = b[4];
    d->b.z = b[5];
    d->radius = b[6];
    d->radius_b = b[7];
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double run(int colliders, int layout_body, sn_chain_solver solver, int simd) {
    static sn_chain *chains[CHAINS];
    double pts[3 * POINTS], radius = 0.01, t0, times[ROUNDS];
    int parents[POINTS], c, i, s, round;
    for (c = 0; c < CHAINS; c++) {
        sn_chain_def def;
        size_t size;
        double ang = 6.283185307179586 * c / CHAINS;
        sn_chain_def_init(&def);
        for (i = 0; i < POINTS; i++) {
            pts[3 * i] = 0.1 * cos(ang) * (1.0 + 0.1 * i);
            pts[3 * i + 1] = 1.6 - 0.04 * i;
            pts[3 * i + 2] = 0.1 * sin(ang) * (1.0 + 0.1 * i);
            parents[i] = i - 1;
        }
        def.count = POINTS;
        def.solver = solver;
        def.points = pts;
        def.parents = parents;
        def.curves[SN_CHAIN_PARAM_RADIUS].values = &radius;
        def.curves[SN_CHAIN_PARAM_RADIUS].count = 1;
        size = sn_chain_size(&def, NULL);
        chains[c] = (sn_chain *)malloc(size);
        if (chains[c] == NULL || sn_chain_init(chains[c], size, &def, NULL) != SN_OK) return -1.0;
        if (simd >= 0) (void)sn_chain_set_simd(chains[c], simd);
        for (i = 0; i < colliders; i++) {
            sn_collider_def k;
            if (layout_body) body_capsule(i, &k);
            else crossing_capsule(i, &k);
            (void)sn_chain_add_collider(chains[c], &k, NULL, NULL);
        }
    }
    for (round = 0; round < ROUNDS; round++) {
        t0 = bench_now();
        for (s = 0; s < STEPS; s++) {
            sn_vec3 at;
            sn_quat q;
            sn_vec3 up = {0, 1, 0};
            double tt = (round * STEPS + s) / 60.0;
            at.x = 0.1 * sin(2.0 * tt);
            at.y = 0.02 * sin(7.0 * tt);
            at.z = 0.05 * sin(1.3 * tt);
            (void)sn_quat_from_axis_angle(&up, 0.4 * sin(1.7 * tt), &q, NULL);
            for (c = 0; c < CHAINS; c++) {
                (void)sn_chain_move_root(chains[c], &at, &q, NULL);
                (void)sn_chain_step(chains[c], 1.0 / 60.0, NULL);
            }
        }
        times[round] = bench_now() - t0;
    }
    for (c = 0; c < CHAINS; c++) free(chains[c]);
    qsort(times + 1, ROUNDS - 1, sizeof times[0], cmp_double);
    return times[1 + (ROUNDS - 1) / 2] / ((double)STEPS * CHAINS * POINTS) * 1e9;
}

/* ---- construction ---- */

#define BUILD_ROUNDS 5 /* the median */

/* the parents of a line (each joint the child of the one before) or of a bushy tree (joint j the
   child of (j - 1) / 4: four children each) of n, 0-based, -1 for the root */
static void tree_parents(int *parents, int n, int bushy) {
    int j;
    for (j = 0; j < n; j++) parents[j] = j == 0 ? -1 : bushy ? (j - 1) / 4 : j - 1;
}

/* us to validate, size and build the chain of `def` (the median of BUILD_ROUNDS) */
static double build_time(const sn_chain_def *def) {
    double times[BUILD_ROUNDS];
    int round;
    for (round = 0; round < BUILD_ROUNDS; round++) {
        double t0 = bench_now();
        size_t size;
        void *mem;
        if (sn_chain_validate(def, NULL) != SN_OK || (size = sn_chain_size(def, NULL)) == 0) return -1.0;
        mem = malloc(size);
        if (mem == NULL || sn_chain_init(mem, size, def, NULL) != SN_OK) return -1.0;
        times[round] = bench_now() - t0;
        free(mem);
    }
    qsort(times, BUILD_ROUNDS, sizeof times[0], cmp_double);
    return times[BUILD_ROUNDS / 2] * 1e6;
}

/* a skeleton of n joints with `parents` (unit translations along x), malloc'ed; NULL on failure */
static sn_skeleton *make_skeleton(int n, const int *parents) {
    static char names[SN_SKELETON_MAX_JOINTS][16];
    static const char *np[SN_SKELETON_MAX_JOINTS];
    float *rest = (float *)calloc((size_t)n * 10, sizeof(float));
    sn_skeleton_def def;
    sn_skeleton *s = NULL;
    size_t size;
    int j;
    for (j = 0; rest != NULL && j < n; j++) {
        snprintf(names[j], sizeof names[j], "j%d", j);
        np[j] = names[j];
        rest[10 * j] = 0.01f;
        rest[10 * j + 6] = rest[10 * j + 7] = rest[10 * j + 8] = rest[10 * j + 9] = 1.0f;
    }
    sn_skeleton_def_init(&def);
    def.count = n;
    def.parents = parents;
    def.names = np;
    def.rest = rest;
    if (rest != NULL && (size = sn_skeleton_size(&def, NULL)) > 0 && (s = (sn_skeleton *)malloc(size)) != NULL &&
        sn_skeleton_init(s, size, &def, NULL) != SN_OK) {
        free(s);
        s = NULL;
    }
    free(rest);
    return s;
}

/* construction figures: points and skeleton chains of n joints, a line and a bushy tree */
static void construction(void) {
    static const int sizes[3] = {1024, 16384, 65535};
    static int parents[SN_CHAIN_MAX_POINTS];
    static double pts[3 * SN_CHAIN_MAX_POINTS];
    char label[100];
    int k, bushy, j;
    for (bushy = 0; bushy < 2; bushy++)
        for (k = 0; k < 3; k++) {
            int n = sizes[k];
            sn_chain_def def;
            sn_skeleton *s;
            tree_parents(parents, n, bushy);
            for (j = 0; j < n; j++) {
                pts[3 * j] = 0.01 * j;
                pts[3 * j + 1] = pts[3 * j + 2] = 0.0;
            }
            sn_chain_def_init(&def);
            def.count = n;
            def.points = pts;
            def.parents = parents;
            snprintf(label, sizeof label, "chain build, points, %s of %d", bushy ? "bushy tree" : "line", n);
            bench_report(label, build_time(&def), "us/chain");
            s = make_skeleton(n, parents);
            if (s == NULL) continue;
            sn_chain_def_init(&def);
            def.skeleton = s;
            def.root = bushy ? 0 : 1; /* a line from joint 1, under the skeleton's root */
            def.end_length = 1.0;
            snprintf(label, sizeof label, "chain build, skeleton, %s of %d (tips)", bushy ? "bushy tree" : "line", n);
            bench_report(label, build_time(&def), "us/chain");
            free(s);
        }
}

/* ---- the chains of bench/chain.lua ---- */

#define LUA_CHAINS 50
#define LUA_POINTS 8
#define LUA_STEPS 600

/* ns per particle-step of sn_chain_step over the chains that bench/chain.lua steps in its last
   part, built as that file builds them: sinew.chain { points = ..., parents = ..., radius = 0.01 }
   with every other field left out, so the binding's read_chain_def (src/binding/chain.c) leaves
   sn_chain_def_init's defaults (the coupled solver, damping, elasticity and stiffness 0.1, inert
   0, gravity (0, -9.81, 0), end_length 0, rate 60, max_steps 4, automatic teleport, world space)
   and sets one radius value, as here; the points by the same formula, in double as Lua computes
   them, with the strands numbered from 1 as there. The root is never moved, as in chain.lua's
   step_each: only the first step places the chain at its rest pose, and the warm-up round takes
   it. Timed as bench/common.lua times: the best of 3 rounds after a round of warm-up, the same
   count of steps (600) as chain.lua under LuaJIT; the divisor counts every point, roots included,
   as chain.lua does. */
static double lua_chains(void) {
    static sn_chain *chains[LUA_CHAINS];
    double pts[3 * LUA_POINTS], radius = 0.01, best = 1e30;
    int parents[LUA_POINTS], c, i, s, round;
    for (c = 0; c < LUA_CHAINS; c++) {
        sn_chain_def def;
        size_t size;
        double a = 2 * 3.141592653589793 * (c + 1) / LUA_CHAINS; /* Lua: 2 * math.pi * s / strands */
        sn_chain_def_init(&def);
        for (i = 0; i < LUA_POINTS; i++) {
            pts[3 * i] = (0.1 + 0.01 * i) * cos(a);
            pts[3 * i + 1] = 1.6 - 0.04 * i;
            pts[3 * i + 2] = (0.1 + 0.01 * i) * sin(a);
            parents[i] = i - 1;
        }
        def.count = LUA_POINTS;
        def.points = pts;
        def.parents = parents;
        def.curves[SN_CHAIN_PARAM_RADIUS].values = &radius;
        def.curves[SN_CHAIN_PARAM_RADIUS].count = 1;
        size = sn_chain_size(&def, NULL);
        chains[c] = (sn_chain *)bench_alloc(size);
        if (sn_chain_init(chains[c], size, &def, NULL) != SN_OK) exit(1);
    }
    for (round = 0; round < 4; round++) {
        double t0 = bench_now();
        for (s = 0; s < LUA_STEPS; s++)
            for (c = 0; c < LUA_CHAINS; c++) (void)sn_chain_step(chains[c], 1.0 / 60.0, NULL);
        t0 = bench_now() - t0;
        if (round > 0 && t0 < best) best = t0; /* round 0 warms up */
    }
    for (c = 0; c < LUA_CHAINS; c++) free(chains[c]);
    return best / ((double)LUA_STEPS * LUA_CHAINS * LUA_POINTS) * 1e9;
}

int main(int argc, char **argv) {
    static const int counts[5] = {0, 4, 16, 4, 16};
    char label[100];
    int k, v;
    if (argc > 1 && strcmp(argv[1], "lua") == 0) {
        bench_report("chain step 50 x 8, coupled, no collider, as bench/chain.lua", lua_chains(), "ns/particle-step");
        return 0;
    }
    for (v = 0; v < 2; v++) {
        sn_chain_solver solver = v == 0 ? SN_CHAIN_SWEEP : SN_CHAIN_COUPLED;
        const char *name = v == 0 ? "sweep" : "coupled";
        for (k = 0; k < 5; k++) {
            if (k == 0) snprintf(label, sizeof label, "chain step 100 x 8, %s, no collider", name);
            else snprintf(label, sizeof label, "chain step 100 x 8, %s, %d capsules, %s", name, counts[k],
                          k < 3 ? "crossing" : "body");
            bench_report(label, run(counts[k], k >= 3, solver, -1), "ns/particle-step");
        }
    }
    /* the plain collider filter, where the figures above used AVX */
    if (sn_chain_simd_best() == SN_CHAIN_SIMD_AVX) {
        bench_report("chain step, sweep, 4 capsules, body, plain C filter", run(4, 1, SN_CHAIN_SWEEP, SN_CHAIN_SIMD_PLAIN),
                     "ns/particle-step");
        bench_report("chain step, sweep, 4 capsules, crossing, plain C filter",
                     run(4, 0, SN_CHAIN_SWEEP, SN_CHAIN_SIMD_PLAIN), "ns/particle-step");
    }
    construction();
    printf("c       (collider filter of the chain figures: %s)\n",
           sn_chain_simd_best() == SN_CHAIN_SIMD_AVX ? "AVX, and plain C where named" : "plain C");
    return 0;
}
