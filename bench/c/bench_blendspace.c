/* C figures of the blend-space core: ns per sn_blendspace_weights for every 2-D mode with 9 points,
   and freeform_cartesian with 32 and 128 points (the same spaces and inputs as bench/blendspace.lua);
   then ms per sn_blendspace_init and the block size of every mode at the limits (1024 points, 8-D
   where the mode allows it, a 256 x 256 grid). */
#include "bench.h" /* first: it sets _POSIX_C_SOURCE */

#include <math.h>
#include <stdlib.h>

#include "blendspace.h"

#define PI 3.14159265358979323846

static double block[1 << 17];

static void run(sn_blendspace_mode mode, const double *pts, int n, const double *inputs, double *sink) {
    sn_blendspace_def def;
    const sn_blendspace *bs = (const sn_blendspace *)block;
    double w[128], t0;
    char label[80];
    int i, reps = 4000000 / (n * n / 16 + 8);
    sn_blendspace_def_init(&def);
    def.mode = mode;
    def.points = pts;
    def.count = n;
    def.dims = 2;
    if (sn_blendspace_init(block, sizeof block, &def, NULL) != SN_OK) return;
    t0 = bench_now();
    for (i = 0; i < reps; i++) {
        sn_blendspace_weights(bs, inputs + 2 * (i & 63), 2, w, NULL);
        *sink += w[i % n];
    }
    snprintf(label, sizeof label, "sn_blendspace_weights %s, %d points", sn_blendspace_mode_name(mode), n);
    bench_report(label, (bench_now() - t0) / reps * 1e9, "ns/call");
}

/* sn_blendspace_init at the limits: the least time of three, and the block size */
static void run_init(sn_blendspace_mode mode, int dims, const double *pts) {
    sn_blendspace_def def;
    sn_error err;
    size_t size;
    void *mem;
    double best = 1e30;
    char label[80];
    int round;
    sn_blendspace_def_init(&def);
    def.mode = mode;
    def.dims = dims;
    /* simple_directional: at most 180 directions 2 degrees apart, and a centre */
    def.count = mode == SN_BLENDSPACE_SIMPLE_DIRECTIONAL ? 180 : SN_BLENDSPACE_MAX_POINTS;
    def.points = pts;
    def.grid_cols = def.grid_rows = SN_BLENDSPACE_MAX_GRID;
    size = sn_blendspace_size(&def, &err);
    if (size == 0 || (mem = malloc(size)) == NULL) {
        printf("%s: %s\n", sn_blendspace_mode_name(mode), size == 0 ? err.msg : "out of memory");
        return;
    }
    for (round = 0; round < 3; round++) {
        double t0 = bench_now();
        if (sn_blendspace_init(mem, size, &def, &err) != SN_OK) printf("%s\n", err.msg);
        if (bench_now() - t0 < best) best = bench_now() - t0;
    }
    free(mem);
    snprintf(label, sizeof label, "sn_blendspace_init %s, %d points, %d-D", sn_blendspace_mode_name(mode),
             def.count, dims);
    bench_report(label, best * 1e3, "ms");
    snprintf(label, sizeof label, "  its block");
    bench_report(label, (double)size / (1 << 20), "MiB");
}

int main(void) {
    static const sn_blendspace_mode modes[] = {SN_BLENDSPACE_SIMPLE_DIRECTIONAL, SN_BLENDSPACE_FREEFORM_CARTESIAN,
                                               SN_BLENDSPACE_FREEFORM_DIRECTIONAL, SN_BLENDSPACE_TRIANGULATED,
                                               SN_BLENDSPACE_GRID, SN_BLENDSPACE_IDW};
    static double big[SN_BLENDSPACE_MAX_POINTS * SN_BLENDSPACE_MAX_DIMS], circle[2 * 180];
    double nine[18] = {0, 0}, many[2 * 128], inputs[128], sink = 0;
    unsigned long s = 7;
    int k, m;
    for (k = 0; k < 8; k++) { /* a centre and eight directions at radii 1 and 2 */
        double r = k % 2 == 0 ? 1 : 2, a = k * PI / 4;
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

    for (k = 0; k < SN_BLENDSPACE_MAX_POINTS * SN_BLENDSPACE_MAX_DIMS; k++) {
        s = (s * 16807ul) % 2147483647ul;
        big[k] = 2.0 * (double)s / 2147483647.0 - 1.0;
    }
    for (k = 1; k < 180; k++) { /* the origin, then 179 directions 360/179 degrees apart */
        circle[2 * k] = cos(k * 2 * PI / 179);
        circle[2 * k + 1] = sin(k * 2 * PI / 179);
    }
    run_init(SN_BLENDSPACE_1D, 1, big);
    run_init(SN_BLENDSPACE_SIMPLE_DIRECTIONAL, 2, circle);
    run_init(SN_BLENDSPACE_FREEFORM_CARTESIAN, SN_BLENDSPACE_MAX_DIMS, big);
    run_init(SN_BLENDSPACE_FREEFORM_DIRECTIONAL, 2, big);
    run_init(SN_BLENDSPACE_TRIANGULATED, 2, big);
    run_init(SN_BLENDSPACE_GRID, 2, big);
    run_init(SN_BLENDSPACE_IDW, SN_BLENDSPACE_MAX_DIMS, big);
    run_init(SN_BLENDSPACE_DIRECT, SN_BLENDSPACE_MAX_DIMS, big);
    return sink == 12345.0; /* keeps the loops from being optimised away */
}
