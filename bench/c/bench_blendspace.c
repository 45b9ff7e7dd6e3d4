/* C figures of the blend-space core: ns per sn_blendspace_weights for every 2-D mode with 9 points,
   and freeform_cartesian with 32 and 128 points (the same spaces and inputs as bench/blendspace.lua). */
#include "bench.h" /* first: it sets _POSIX_C_SOURCE */

#include <math.h>

#include "blendspace.h"

static double block[1 << 17];

static void run(sn_blendspace_mode mode, const double *pts, int n, const double *inputs, double *sink) {
    sn_blendspace_def def;
    sn_blendspace *bs;
    double w[128], t0;
    char label[80];
    int i, reps = 4000000 / (n * n / 16 + 8);
    sn_blendspace_def_defaults(&def);
    def.mode = mode;
    def.points = pts;
    def.count = n;
    def.dims = 2;
    if (sn_blendspace_init(block, sizeof block, &def, &bs, NULL) != SN_OK) return;
    t0 = bench_now();
    for (i = 0; i < reps; i++) {
        sn_blendspace_weights(bs, inputs + 2 * (i & 63), 2, w, NULL);
        *sink += w[i % n];
    }
    snprintf(label, sizeof label, "sn_blendspace_weights %s, %d points", sn_blendspace_mode_name(mode), n);
    bench_report(label, (bench_now() - t0) / reps * 1e9, "ns/call");
}

int main(void) {
    static const sn_blendspace_mode modes[] = {SN_BLENDSPACE_SIMPLE_DIRECTIONAL, SN_BLENDSPACE_FREEFORM_CARTESIAN,
                                               SN_BLENDSPACE_FREEFORM_DIRECTIONAL, SN_BLENDSPACE_TRIANGULATED,
                                               SN_BLENDSPACE_GRID, SN_BLENDSPACE_IDW};
    double nine[18] = {0, 0}, many[2 * 128], inputs[128], sink = 0;
    unsigned long s = 7;
    int k, m;
    for (k = 0; k < 8; k++) { /* a centre and eight directions at radii 1 and 2 */
        double r = k % 2 == 0 ? 1 : 2, a = k * 3.14159265358979323846 / 4;
        nine[2 + 2 * k] = r * cos(a);
        nine[3 + 2 * k] = r * sin(a);
    }
    for (k = 0; k < 64; k++) { /* inputs inside and outside the points' range */
        double a = (k + 1) * 2.399963, r = 2.6 * sqrt((k + 1) / 64.0);
        inputs[2 * k] = r * cos(a);
        inputs[2 * k + 1] = r * sin(a);
    }
    for (k = 0; k < 2 * 128; k++) {
        s = (s * 16807ul) % 2147483647ul;
        many[k] = 2.0 * (2.0 * (double)s / 2147483647.0 - 1.0);
    }
    for (m = 0; m < 6; m++) run(modes[m], nine, 9, inputs, &sink);
    run(SN_BLENDSPACE_FREEFORM_CARTESIAN, many, 32, inputs, &sink);
    run(SN_BLENDSPACE_FREEFORM_CARTESIAN, many, 128, inputs, &sink);
    return sink == 12345.0; /* keeps the loops from being optimised away */
}
