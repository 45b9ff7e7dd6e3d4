/* C figures of the quaternion core: ns per call of the per-frame functions (slerp, nlerp, mul,
   rotate, normalize) and per 4-input sn_quat_blend. */
#include "bench.h"

#include <math.h>
#include "quat.h"

#define N 2000000

/* The reference of the fast slerp: the exact slerp through libm (sin and atan2), as sinew computed
   it before, on unit inputs: sin((1 - t) om) / sin(om) a + sin(t om) / sin(om) b, normalised. */
static double sinc_ref(double x) { return x * x < 1e-8 ? 1.0 - x * x / 6.0 : sin(x) / x; }
static void slerp_libm_body(const sn_quat *a, const sn_quat *b, double t, sn_quat *out) {
    double la = 1.0 / sqrt(a->x * a->x + a->y * a->y + a->z * a->z + a->w * a->w);
    double lb = 1.0 / sqrt(b->x * b->x + b->y * b->y + b->z * b->z + b->w * b->w);
    sn_quat ua = {a->x * la, a->y * la, a->z * la, a->w * la}, ub = {b->x * lb, b->y * lb, b->z * lb, b->w * lb};
    double dm, dp, om, k, k0, k1, l;
    if (ua.x * ub.x + ua.y * ub.y + ua.z * ub.z + ua.w * ub.w < 0) {
        ub.x = -ub.x; ub.y = -ub.y; ub.z = -ub.z; ub.w = -ub.w;
    }
    dm = sqrt((ua.x - ub.x) * (ua.x - ub.x) + (ua.y - ub.y) * (ua.y - ub.y) + (ua.z - ub.z) * (ua.z - ub.z) + (ua.w - ub.w) * (ua.w - ub.w));
    dp = sqrt((ua.x + ub.x) * (ua.x + ub.x) + (ua.y + ub.y) * (ua.y + ub.y) + (ua.z + ub.z) * (ua.z + ub.z) + (ua.w + ub.w) * (ua.w + ub.w));
    om = 2.0 * atan2(dm, dp);
    k = 1.0 / sinc_ref(om);
    k0 = (1.0 - t) * sinc_ref((1.0 - t) * om) * k;
    k1 = t * sinc_ref(t * om) * k;
    ua.x = k0 * ua.x + k1 * ub.x; ua.y = k0 * ua.y + k1 * ub.y; ua.z = k0 * ua.z + k1 * ub.z; ua.w = k0 * ua.w + k1 * ub.w;
    l = 1.0 / sqrt(ua.x * ua.x + ua.y * ua.y + ua.z * ua.z + ua.w * ua.w);
    out->x = ua.x * l; out->y = ua.y * l; out->z = ua.z * l; out->w = ua.w * l;
}

/* called through a volatile pointer, as a library function is: the compiler cannot specialise it for
   the bench's constant inputs */
static void (*volatile slerp_libm)(const sn_quat *, const sn_quat *, double, sn_quat *) = slerp_libm_body;

int main(void) {
    sn_quat a = {0, 0, 0, 1}, b = {0.2, 0.3, 0.1, 0.9}, r, qs[4] = {{0, 0, 0, 1}, {0.1, 0, 0, 1}, {0, 0.2, 0, 1}, {0, 0, 0.3, 1}};
    sn_vec3 v = {0.3, -1.2, 2.0}, rv;
    double ws[4] = {0.1, 0.2, 0.3, 0.4}, t0, sink = 0, fast, exact;
    static const char *names[] = {"nlerp", "karcher", "markley", "power"};
    char label[64];
    int i, m;
    sn_quat_normalize(&b, &b, NULL); /* slerp's inputs are unit quaternions, as keys and poses hold */
    /* the least of five rounds of each, taken in turn, so that both see the same machine */
    fast = exact = 1e30;
    for (m = 0; m < 5; m++) {
        double ns;
        t0 = bench_now();
        for (i = 0; i < N / 2; i++) {
            sn_quat_slerp(&a, &b, (i & 1023) / 1023.0, &r, NULL);
            sink += r.w;
        }
        ns = (bench_now() - t0) / (N / 2) * 1e9;
        if (ns < fast) fast = ns;
        t0 = bench_now();
        for (i = 0; i < N / 2; i++) {
            slerp_libm(&a, &b, (i & 1023) / 1023.0, &r);
            sink += r.w;
        }
        ns = (bench_now() - t0) / (N / 2) * 1e9;
        if (ns < exact) exact = ns;
    }
    bench_report("sn_quat_slerp", fast, "ns/call");
    bench_report("slerp through libm sin and atan2 (the reference)", exact, "ns/call");
    bench_report("sn_quat_slerp against the libm slerp (target 33% or less)", 100 * fast / exact, "%");
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
