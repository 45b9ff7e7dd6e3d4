/* C-only tests of src/core/quat.c: no Lua involved. */
#include "ensure.h"
#include "quat.h"

static unsigned long seed = 12345;

static sn_quat q4(double x, double y, double z, double w) {
    sn_quat q;
    q.x = x; q.y = y; q.z = z; q.w = w;
    return q;
}

static sn_quat random_unit(void) {
    double u1 = ensure_random(&seed), u2 = ensure_random(&seed), u3 = ensure_random(&seed);
    double a = sqrt(1 - u1), b = sqrt(u1), tau = 6.283185307179586;
    return q4(a * sin(tau * u2), a * cos(tau * u2), b * sin(tau * u3), b * cos(tau * u3));
}

/* a rotation of at most `maxangle` radians about a random axis */
static sn_quat random_near(const sn_quat *c, double maxangle) {
    sn_vec3 axis;
    sn_quat d, r;
    axis.x = ensure_random(&seed) - 0.5;
    axis.y = ensure_random(&seed) - 0.5;
    axis.z = ensure_random(&seed) - 0.5;
    sn_quat_from_axis_angle(&axis, maxangle * ensure_random(&seed), &d);
    sn_quat_mul(c, &d, &r);
    return r;
}

static double angle_between(const sn_quat *a, const sn_quat *b) {
    double r = -1;
    ENSURE(sn_quat_angle(a, b, &r) == SN_OK);
    return r;
}

static void test_mul_identity_and_inverse(void) {
    int i;
    for (i = 0; i < 100; i++) {
        sn_quat a = random_unit(), inv, r, id = q4(0, 0, 0, 1);
        ENSURE(sn_quat_inverse(&a, &inv) == SN_OK);
        sn_quat_mul(&a, &inv, &r);
        ENSURE_NEAR(r.w, 1.0, 1e-14);
        sn_quat_mul(&a, &id, &r);
        ENSURE_NEAR(sn_quat_dot(&r, &a), 1.0, 1e-14);
    }
}

static void test_rotate_matches_axis_angle(void) {
    sn_vec3 z = {0, 0, 1}, x = {1, 0, 0}, out;
    sn_quat q;
    ENSURE(sn_quat_from_axis_angle(&z, 1.5707963267948966, &q) == SN_OK);
    ENSURE(sn_quat_rotate(&q, &x, &out) == SN_OK);
    ENSURE_NEAR(out.x, 0.0, 1e-15);
    ENSURE_NEAR(out.y, 1.0, 1e-15);
    ENSURE_NEAR(out.z, 0.0, 1e-15);
}

static void test_slerp_angle_is_linear_in_t(void) {
    int i;
    for (i = 0; i < 200; i++) {
        sn_quat a = random_unit(), b = random_unit(), r;
        double t = ensure_random(&seed), full = angle_between(&a, &b);
        ENSURE(sn_quat_slerp(&a, &b, t, &r) == SN_OK);
        ENSURE_NEAR(angle_between(&a, &r), t * full, 1e-9);
        ENSURE_NEAR(angle_between(&r, &b), (1 - t) * full, 1e-9);
    }
}

static void test_slerp_nearly_equal_inputs(void) {
    sn_quat a = random_unit(), b, r;
    sn_vec3 axis = {0.3, -0.2, 0.9};
    sn_quat d;
    sn_quat_from_axis_angle(&axis, 1e-10, &d);
    sn_quat_mul(&a, &d, &b);
    ENSURE(sn_quat_slerp(&a, &b, 0.25, &r) == SN_OK);
    ENSURE_NEAR(angle_between(&a, &r), 0.25e-10, 1e-15);
    ENSURE_NEAR(sn_quat_length(&r), 1.0, 1e-15);
}

static void test_from_to_antiparallel(void) {
    sn_vec3 u = {0, 1, 0}, v = {0, -1, 0}, out;
    sn_quat q;
    ENSURE(sn_quat_from_to(&u, &v, &q) == SN_OK);
    ENSURE(sn_quat_rotate(&q, &u, &out) == SN_OK);
    ENSURE_NEAR(out.y, -1.0, 1e-15);
    ENSURE_NEAR(sn_quat_length(&q), 1.0, 1e-15);
}

static void test_pow_log_exp(void) {
    int i;
    for (i = 0; i < 100; i++) {
        sn_quat a = random_unit(), h, hh, lg, back;
        if (a.w < 0) a = q4(-a.x, -a.y, -a.z, -a.w);
        ENSURE(sn_quat_pow(&a, 0.5, &h) == SN_OK);
        sn_quat_mul(&h, &h, &hh);
        ENSURE_NEAR(sn_quat_dot(&hh, &a), 1.0, 1e-12);
        ENSURE(sn_quat_log(&a, &lg) == SN_OK);
        sn_quat_exp(&lg, &back);
        ENSURE_NEAR(sn_quat_dot(&back, &a), 1.0, 1e-12);
    }
}

static double chordal_score(const sn_quat *qs, const double *ws, int n, const sn_quat *v) {
    double s = 0;
    int i;
    for (i = 0; i < n; i++) s += ws[i] * sn_quat_dot(&qs[i], v) * sn_quat_dot(&qs[i], v);
    return s;
}

static void test_blend_methods_agree_for_close_inputs(void) {
    int i, m;
    for (i = 0; i < 50; i++) {
        sn_quat c = random_unit(), qs[4], out[4];
        double ws[4];
        int k;
        for (k = 0; k < 4; k++) {
            qs[k] = random_near(&c, 1.0471975511965976); /* 60 degrees */
            ws[k] = 0.1 + ensure_random(&seed);
        }
        for (m = 0; m < 4; m++) {
            ENSURE(sn_quat_blend(qs, ws, 4, (sn_blend_method)m, &out[m], NULL) == SN_OK);
            ENSURE_NEAR(sn_quat_length(&out[m]), 1.0, 1e-12);
        }
        ENSURE(angle_between(&out[SN_BLEND_NLERP], &out[SN_BLEND_KARCHER]) < 1.5 * 3.141592653589793 / 180);
        /* Markley maximises sum w (q . q_i)^2: no other result scores higher */
        ENSURE(chordal_score(qs, ws, 4, &out[SN_BLEND_MARKLEY]) >= chordal_score(qs, ws, 4, &out[SN_BLEND_NLERP]) - 1e-14);
        ENSURE(chordal_score(qs, ws, 4, &out[SN_BLEND_MARKLEY]) >= chordal_score(qs, ws, 4, &out[SN_BLEND_KARCHER]) - 1e-14);
    }
}

static void test_karcher_is_order_independent(void) {
    int i;
    for (i = 0; i < 50; i++) {
        sn_quat qs[5], rev[5], a, b, c = random_unit();
        double ws[5], wr[5];
        int k;
        for (k = 0; k < 5; k++) {
            qs[k] = random_near(&c, 1.5);
            ws[k] = ensure_random(&seed) + 0.01;
        }
        for (k = 0; k < 5; k++) {
            rev[k] = qs[4 - k];
            wr[k] = ws[4 - k];
        }
        ENSURE(sn_quat_blend(qs, ws, 5, SN_BLEND_KARCHER, &a, NULL) == SN_OK);
        ENSURE(sn_quat_blend(rev, wr, 5, SN_BLEND_KARCHER, &b, NULL) == SN_OK);
        ENSURE(angle_between(&a, &b) < 1e-9);
    }
}

static void test_blend_single_input_is_itself(void) {
    sn_quat q = q4(0.1, 0.2, 0.3, 0.9), u, out;
    double w = 2.0;
    int m;
    sn_quat_normalize(&q, &u);
    for (m = 0; m < 4; m++) {
        ENSURE(sn_quat_blend(&q, &w, 1, (sn_blend_method)m, &out, NULL) == SN_OK);
        ENSURE(angle_between(&out, &u) < 1e-12);
    }
}

static void test_invalid_inputs_refused(void) {
    sn_quat qs[2] = {{0, 0, 0, 1}, {0, 0, 0, 0}}, out, ok[2] = {{0, 0, 0, 1}, {0, 0, 1, 0}};
    double ws[2] = {1, 1}, neg[2] = {1, -1}, zero[2] = {0, 0}, nan[2] = {1, 0};
    sn_error err;
    sn_vec3 zv = {0, 0, 0}, x = {1, 0, 0};
    nan[1] = nan[1] / nan[1];
    ENSURE(sn_quat_blend(qs, ws, 2, SN_BLEND_NLERP, &out, &err) == SN_EINVAL && err.arg == 1);
    ENSURE(sn_quat_blend(ok, neg, 2, SN_BLEND_NLERP, &out, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_quat_blend(ok, zero, 2, SN_BLEND_NLERP, &out, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_quat_blend(ok, nan, 2, SN_BLEND_NLERP, &out, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_quat_blend(ok, ws, 0, SN_BLEND_NLERP, &out, &err) == SN_EINVAL);
    ENSURE(sn_quat_blend(ok, ws, 2, (sn_blend_method)9, &out, &err) == SN_EINVAL);
    ENSURE(sn_quat_normalize(&qs[1], &out) == SN_EINVAL);
    ENSURE(sn_quat_slerp(&qs[0], &qs[1], 0.5, &out) == SN_EINVAL);
    ENSURE(sn_quat_from_to(&zv, &x, &out) == SN_EINVAL);
    ENSURE(sn_quat_from_axis_angle(&zv, 1.0, &out) == SN_EINVAL);
}

int main(void) {
    RUN(test_mul_identity_and_inverse);
    RUN(test_rotate_matches_axis_angle);
    RUN(test_slerp_angle_is_linear_in_t);
    RUN(test_slerp_nearly_equal_inputs);
    RUN(test_from_to_antiparallel);
    RUN(test_pow_log_exp);
    RUN(test_blend_methods_agree_for_close_inputs);
    RUN(test_karcher_is_order_independent);
    RUN(test_blend_single_input_is_itself);
    RUN(test_invalid_inputs_refused);
    return END("test_quat");
}
