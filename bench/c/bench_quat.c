/* C figures of the quaternion core: ns per call of the per-frame functions (slerp, nlerp, mul,
   rotate, normalize) and per 4-input sn_quat_blend. */
#include "bench.h"
#include "quat.h"

#define N 2000000

int main(void) {
    sn_quat a = {0, 0, 0, 1}, b = {0.2, 0.3, 0.1, 0.9}, r, qs[4] = {{0, 0, 0, 1}, {0.1, 0, 0, 1}, {0, 0.2, 0, 1}, {0, 0, 0.3, 1}};
    sn_vec3 v = {0.3, -1.2, 2.0}, rv;
    double ws[4] = {0.1, 0.2, 0.3, 0.4}, t0, sink = 0;
    static const char *names[] = {"nlerp", "karcher", "markley", "power"};
    char label[64];
    int i, m;
    t0 = bench_now();
    for (i = 0; i < N; i++) {
        sn_quat_slerp(&a, &b, (i & 1023) / 1023.0, &r, NULL);
        sink += r.w;
    }
    bench_report("sn_quat_slerp", (bench_now() - t0) / N * 1e9, "ns/call");
    t0 = bench_now();
    for (i = 0; i < N; i++) {
        sn_quat_nlerp(&a, &b, (i & 1023) / 1023.0, &r, NULL);
        sink += r.w;
    }
    bench_report("sn_quat_nlerp", (bench_now() - t0) / N * 1e9, "ns/call");
    t0 = bench_now();
    for (i = 0; i < N; i++) {
        sn_quat_mul(&qs[i & 3], &b, &r, NULL);
        sink += r.x;
    }
    bench_report("sn_quat_mul", (bench_now() - t0) / N * 1e9, "ns/call");
    t0 = bench_now();
    for (i = 0; i < N; i++) {
        b.w = 0.9 + (i & 1023) * 1e-4;
        sn_quat_rotate(&b, &v, &rv, NULL);
        sink += rv.x;
    }
    bench_report("sn_quat_rotate", (bench_now() - t0) / N * 1e9, "ns/call");
    t0 = bench_now();
    for (i = 0; i < N; i++) {
        b.w = 0.9 + (i & 1023) * 1e-4;
        sn_quat_normalize(&b, &r, NULL);
        sink += r.w;
    }
    bench_report("sn_quat_normalize", (bench_now() - t0) / N * 1e9, "ns/call");
    b.w = 0.9;
    for (m = 0; m < 4; m++) {
        int reps = m == 1 ? N / 10 : N;
        t0 = bench_now();
        for (i = 0; i < reps; i++) {
            ws[0] = 0.1 + (i & 7) * 0.01;
            sn_quat_blend(qs, ws, 4, (sn_blend_method)m, &r, NULL);
            sink += r.w;
        }
        snprintf(label, sizeof label, "sn_quat_blend 4 inputs, %s", names[m]);
        bench_report(label, (bench_now() - t0) / reps * 1e9, "ns/call");
    }
    return sink == 12345.0; /* keeps the loops from being optimised away */
}
