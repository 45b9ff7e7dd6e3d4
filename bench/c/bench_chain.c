/* C figures of the dynamic-bone core: ns per particle-step for 100 chains of 8 particles (hair
   hanging from a moving head) with 0, 4 and 16 capsule colliders around them (a body), one step
   per call. */
#include "bench.h" /* first: it sets _POSIX_C_SOURCE */

#include <math.h>
#include <stdlib.h>

#include "chain.h"

#define CHAINS 100
#define POINTS 8
#define STEPS 600

/* capsules of a rough body: torso, neck, shoulders, then arms and more */
static void body_capsule(int k, sn_collider_def *d) {
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

static double run(int colliders) {
    static sn_chain *chains[CHAINS];
    double pts[3 * POINTS], radius = 0.01, t0, t, best = 1e300;
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
        def.points = pts;
        def.parents = parents;
        def.curves[SN_CHAIN_RADIUS].values = &radius;
        def.curves[SN_CHAIN_RADIUS].count = 1;
        size = sn_chain_size(&def);
        chains[c] = (sn_chain *)malloc(size);
        if (chains[c] == NULL || sn_chain_init(chains[c], size, &def, NULL) != SN_OK) return -1.0;
        for (i = 0; i < colliders; i++) {
            sn_collider_def k;
            body_capsule(i, &k);
            (void)sn_chain_add_collider(chains[c], &k, NULL, NULL);
        }
    }
    for (round = 0; round < 4; round++) { /* the first round warms up; the best of the others */
        t0 = bench_now();
        for (s = 0; s < STEPS; s++) {
            sn_vec3 at;
            sn_quat q;
            sn_vec3 up = {0, 1, 0};
            double tt = (round * STEPS + s) / 60.0;
            at.x = 0.1 * sin(2.0 * tt);
            at.y = 0.02 * sin(7.0 * tt);
            at.z = 0.05 * sin(1.3 * tt);
            (void)sn_quat_from_axis_angle(&up, 0.4 * sin(1.7 * tt), &q);
            for (c = 0; c < CHAINS; c++) {
                (void)sn_chain_move_root(chains[c], &at, &q);
                (void)sn_chain_step(chains[c], 1.0 / 60.0, NULL);
            }
        }
        t = bench_now() - t0;
        if (round > 0 && t < best) best = t;
    }
    for (c = 0; c < CHAINS; c++) free(chains[c]);
    return best / ((double)STEPS * CHAINS * POINTS) * 1e9;
}

int main(void) {
    static const int counts[3] = {0, 4, 16};
    char label[80];
    int k;
    for (k = 0; k < 3; k++) {
        snprintf(label, sizeof label, "sn_chain_step 100 x 8 particles, %d capsules", counts[k]);
        bench_report(label, run(counts[k]), "ns/particle-step");
    }
    return 0;
}
