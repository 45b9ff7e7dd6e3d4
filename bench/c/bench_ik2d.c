/* C figures of the planar IK solvers (src/core/ik2d.c) on positions: ns per two-bone solve, per aim
   solve and per chain solve (4 bones, 16 iterations, tolerance 0 so that every iteration runs;
   FABRIK and CCD, free and with bounds), the target moving a little every call. The rig's world
   update that a Lua solve adds (sn_rig2d_world) is measured by the Lua benchmarks. */
#include "bench.h"

#include <math.h>

#include "ik2d.h"

#define N 1000000

int main(void) {
    double p2[6] = {0, 0, 30, 5, 55, -2}, p4[10] = {0, 0, 20, 0, 40, 5, 58, 12, 70, 20};
    double lo[4] = {-1, -0.5, -0.5, -0.5}, hi[4] = {1, 1.5, 1.5, 1.5};
    double turn[4], left, sink = 0, t0;
    unsigned fl;
    sn_error err;
    t0 = bench_now();
    for (int i = 0; i < N; i++) {
        double t[2] = {20 + (i & 15), 30 - (i & 7)};
        sn_ik2d_two_bone(p2, t, 1, 1.0, 1.0, turn, &fl, &err);
        sink += turn[0];
    }
    bench_report("ik2d two-bone solve", (bench_now() - t0) / N * 1e9, "ns");
    double o[2] = {0, 0}, from[2] = {2, 3}, dir[2] = {1, 0.2};
    t0 = bench_now();
    for (int i = 0; i < N; i++) {
        double t[2] = {100 + (i & 15), 50 - (i & 7)};
        sn_ik2d_aim(o, from, dir, t, 1.0, 1.0, turn, &fl, &err);
        sink += turn[0];
    }
    bench_report("ik2d aim solve (limit 1)", (bench_now() - t0) / N * 1e9, "ns");
    for (int m = 0; m < 4; m++) {
        int n = N / 10, limited = m >= 2;
        sn_ik_method method = m % 2 ? SN_IK_CCD : SN_IK_FABRIK;
        t0 = bench_now();
        for (int i = 0; i < n; i++) {
            double t[2] = {30 + (i & 15), 40 - (i & 7)};
            sn_ik2d_chain(p4, 4, t, method, 16, 0.0, limited ? lo : NULL, limited ? hi : NULL, 1.0, turn, &left, &fl, &err);
            sink += left;
        }
        char what[64];
        snprintf(what, sizeof what, "ik2d chain solve (4 bones, 16 it., %s%s)", m % 2 ? "ccd" : "fabrik",
                 limited ? ", bounds" : "");
        bench_report(what, (bench_now() - t0) / n * 1e9, "ns");
    }
    if (sink == 12345.678) printf("%g\n", sink);
    return 0;
}
