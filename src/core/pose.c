/* Poses, masks, additive layers, deltas and model-space matrices (blending is in blend.c). */
#include <math.h>
#include <string.h>

#include "lanes_internal.h"
#include "pose_internal.h"

/* ---- poses ------------------------------------------------------------------------------ */

void sn_pose_def_init(sn_pose_def *def) { def->skeleton = NULL; }

sn_status sn_pose_validate(const sn_pose_def *def, sn_error *err) {
    if (def == NULL || def->skeleton == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no skeleton");
    return SN_OK;
}

size_t sn_pose_size(const sn_pose_def *def, sn_error *err) {
    if (sn_pose_validate(def, err) != SN_OK) return 0;
    return SN_ALIGN16(sizeof(sn_pose)) + 15 +
           sizeof(float) * ((SN_POSE_CHANNELS + SN_POSE_ACC_ROWS) * (size_t)sn_skeleton_stride(def->skeleton) +
                            (size_t)sn_skeleton_morph_stride(def->skeleton));
}

sn_status sn_pose_init(void *mem, size_t size, const sn_pose_def *def, sn_error *err) {
    sn_pose *p = (sn_pose *)mem;
    const size_t need = sn_pose_size(def, err);
    const sn_skeleton *s;
    if (need == 0) return SN_EINVAL;
    if (mem == NULL || size < need) return sn_fail(err, SN_ENOMEM, "pose needs %lu bytes", (unsigned long)need);
    s = def->skeleton;
    p->skeleton = s;
    p->count = sn_skeleton_count(s);
    p->stride = sn_skeleton_stride(s);
    p->ch = (float *)sn_aligned_after(mem, sizeof(sn_pose));
    p->acc = p->ch + SN_POSE_CHANNELS * p->stride;
    p->morph_count = sn_skeleton_morph_count(s);
    p->morph_stride = sn_skeleton_morph_stride(s);
    p->mw = p->acc + SN_POSE_ACC_ROWS * p->stride;
    memset(p->acc, 0, sizeof(float) * SN_POSE_ACC_ROWS * (size_t)p->stride);
    sn_pose_reset(p);
    return SN_OK;
}

const sn_skeleton *sn_pose_skeleton(const sn_pose *p) { return p->skeleton; }

void sn_pose_get(const sn_pose *p, int joint, float trs[10]) {
    int c;
    if (joint < 0 || joint >= p->count) {
        sn_skeleton_rest(p->skeleton, -1, trs);
        return;
    }
    for (c = 0; c < SN_POSE_CHANNELS; c++) trs[c] = p->ch[SN_ROW(c) * p->stride + joint];
}

void sn_pose_set(sn_pose *p, int joint, const float trs[10]) {
    int c;
    if (joint < 0 || joint >= p->count) return;
    for (c = 0; c < SN_POSE_CHANNELS; c++) p->ch[SN_ROW(c) * p->stride + joint] = trs[c];
}

float *sn_pose_channel(sn_pose *p, int channel) { return p->ch + SN_ROW(channel) * p->stride; }

const float *sn_pose_channel_const(const sn_pose *p, int channel) { return p->ch + SN_ROW(channel) * p->stride; }

float *sn_pose_morphs(sn_pose *p) { return p->mw; }

const float *sn_pose_morphs_const(const sn_pose *p) { return p->mw; }

void sn_pose_reset(sn_pose *p) {
    memcpy(p->ch, sn_skeleton_rest_soa(p->skeleton), sizeof(float) * SN_POSE_CHANNELS * (size_t)p->stride);
    if (p->morph_count > 0)
        memcpy(p->mw, sn_skeleton_morph_defaults(p->skeleton), sizeof(float) * (size_t)p->morph_stride);
}

sn_status sn_pose_copy(const sn_pose *src, sn_pose *dst, sn_error *err) {
    if (src->skeleton != dst->skeleton) return sn_fail_arg(err, 1, SN_EINVAL, "poses of different skeletons");
    if (src == dst) return SN_OK;
    memcpy(dst->ch, src->ch, sizeof(float) * SN_POSE_CHANNELS * (size_t)dst->stride);
    if (dst->morph_count > 0) memcpy(dst->mw, src->mw, sizeof(float) * (size_t)dst->morph_stride);
    return SN_OK;
}

/* ---- masks ------------------------------------------------------------------------------ */

static int bad_weight(float w) { return !sn_isfinite(w) || w < 0.0f || w > 1.0f; }

void sn_mask_def_init(sn_mask_def *def) {
    def->skeleton = NULL;
    def->weight = 0.0f;
    def->weights = NULL;
    def->has_morph_weight = 0;
    def->morph_weight = 0.0f;
    def->morph_weights = NULL;
}

/* the factor of every morph not in `morph_weights` */
static float morph_weight_of(const sn_mask_def *def) {
    return def->has_morph_weight ? def->morph_weight : def->weight;
}

sn_status sn_mask_validate(const sn_mask_def *def, sn_error *err) {
    int j;
    if (def == NULL || def->skeleton == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no skeleton");
    if (bad_weight(def->weight))
        return sn_fail_arg(err, 1, SN_EINVAL, "mask weight %g is out of range (0 .. 1)", (double)def->weight);
    if (def->weights != NULL)
        for (j = 0; j < sn_skeleton_count(def->skeleton); j++)
            if (bad_weight(def->weights[j]))
                return sn_fail_arg(err, 1, SN_EINVAL, "mask weight %g of joint '%s' is out of range (0 .. 1)",
                                   (double)def->weights[j], sn_skeleton_name(def->skeleton, j));
    if (bad_weight(morph_weight_of(def)))
        return sn_fail_arg(err, 1, SN_EINVAL, "mask morph weight %g is out of range (0 .. 1)", (double)def->morph_weight);
    if (def->morph_weights != NULL)
        for (j = 0; j < sn_skeleton_morph_count(def->skeleton); j++)
            if (bad_weight(def->morph_weights[j]))
                return sn_fail_arg(err, 1, SN_EINVAL, "mask weight %g of morph '%s' is out of range (0 .. 1)",
                                   (double)def->morph_weights[j], sn_skeleton_morph_name(def->skeleton, j));
    return SN_OK;
}

size_t sn_mask_size(const sn_mask_def *def, sn_error *err) {
    if (sn_mask_validate(def, err) != SN_OK) return 0;
    return SN_ALIGN16(sizeof(sn_mask)) + 15 +
           sizeof(float) * (size_t)(sn_skeleton_stride(def->skeleton) + sn_skeleton_morph_stride(def->skeleton));
}

sn_status sn_mask_init(void *mem, size_t size, const sn_mask_def *def, sn_error *err) {
    sn_mask *m = (sn_mask *)mem;
    const size_t need = sn_mask_size(def, err);
    int j;
    if (need == 0) return SN_EINVAL;
    if (mem == NULL || size < need) return sn_fail(err, SN_ENOMEM, "mask needs %lu bytes", (unsigned long)need);
    m->skeleton = def->skeleton;
    m->count = sn_skeleton_count(def->skeleton);
    m->stride = sn_skeleton_stride(def->skeleton);
    m->w = (float *)sn_aligned_after(mem, sizeof(sn_mask));
    for (j = 0; j < m->stride; j++)
        m->w[j] = j >= m->count ? 0.0f : def->weights != NULL ? def->weights[j] : def->weight;
    m->morph_count = sn_skeleton_morph_count(def->skeleton);
    m->mw = m->w + m->stride;
    for (j = 0; j < sn_skeleton_morph_stride(def->skeleton); j++)
        m->mw[j] = j >= m->morph_count ? 0.0f : def->morph_weights != NULL ? def->morph_weights[j] : morph_weight_of(def);
    return SN_OK;
}

const sn_skeleton *sn_mask_skeleton(const sn_mask *m) { return m->skeleton; }

float sn_mask_get(const sn_mask *m, int joint) { return (joint >= 0 && joint < m->count) ? m->w[joint] : 0.0f; }

sn_status sn_mask_set(sn_mask *m, int joint, float weight, int subtree, sn_error *err) {
    int j;
    if (joint < 0 || joint >= m->count)
        return sn_fail_arg(err, 1, SN_ERANGE, "joint %d is out of range (1 .. %d)", joint + 1, m->count);
    if (bad_weight(weight))
        return sn_fail_arg(err, 2, SN_EINVAL, "mask weight %g is out of range (0 .. 1)", (double)weight);
    m->w[joint] = weight;
    if (!subtree) return SN_OK;
    /* parents come before children, so one forward pass finds the descendants: a joint is one
       when its parent is `joint` or a descendant, marked -1 (never a weight) until the end */
    m->w[joint] = -1.0f;
    for (j = joint + 1; j < m->count; j++) {
        int p = sn_skeleton_parent(m->skeleton, j);
        if (p >= joint && m->w[p] == -1.0f) m->w[j] = -1.0f;
    }
    for (j = joint; j < m->count; j++)
        if (m->w[j] == -1.0f) m->w[j] = weight;
    return SN_OK;
}

const float *sn_mask_weights(const sn_mask *m) { return m->w; }

float sn_mask_get_morph(const sn_mask *m, int morph) {
    return (morph >= 0 && morph < m->morph_count) ? m->mw[morph] : 0.0f;
}

sn_status sn_mask_set_morph(sn_mask *m, int morph, float weight, sn_error *err) {
    if (morph < 0 || morph >= m->morph_count) return sn_fail_range(err, 1, "morph", morph + 1.0, 1, m->morph_count);
    if (bad_weight(weight))
        return sn_fail_arg(err, 2, SN_EINVAL, "mask weight %g is out of range (0 .. 1)", (double)weight);
    m->mw[morph] = weight;
    return SN_OK;
}

const float *sn_mask_morph_weights(const sn_mask *m) { return m->mw; }

/* ---- additive layers and deltas --------------------------------------------------------- */

/* r = a * b (Hamilton product, b applied first) */
static void qmul(const float a[4], const float b[4], float r[4]) {
    float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    r[0] = x; r[1] = y; r[2] = z; r[3] = w;
}

/* q / |q|; the identity for a zero q */
static void qnormalize(float q[4]) {
    float l2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], k;
    if (!(l2 > 0.0f)) {
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
        return;
    }
    k = 1.0f / sqrtf(l2);
    q[0] *= k; q[1] *= k; q[2] *= k; q[3] *= k;
}

/* d^w = slerp(identity, d, w) on the shortest arc, for a unit d: (v sin(w t) / |v|, cos(w t))
   with t = atan2(|v|, s), half the rotation angle of d = (v, s), taken with s >= 0. Weights 1
   and -1 (a full additive layer and its removal) are d itself and its conjugate. */
static void qpow(const float d[4], float w, float r[4]) {
    float x = d[0], y = d[1], z = d[2], s = d[3], v, t, k;
    if (s < 0) { x = -x; y = -y; z = -z; s = -s; }
    if (w == 1.0f || w == -1.0f) {
        r[0] = w * x; r[1] = w * y; r[2] = w * z; r[3] = s;
        return;
    }
    v = sqrtf(x * x + y * y + z * z);
    t = atan2f(v, s);
    k = v > 1e-12f ? sinf(w * t) / v : w;
    r[0] = x * k; r[1] = y * k; r[2] = z * k; r[3] = cosf(w * t);
}

/* Polynomials fitted at Chebyshev nodes, in Estrin's scheme, on four float lanes (float precision
   is all a pose stores; in double they give asin(s)/s for v = s^2 in [0, 1/2] to 1.1e-15
   relative, sin(h)/h to 5.3e-16 relative and cos(h) to 2.2e-15 absolute for u = h^2 <= (pi/2)^2):
   the slerp from the identity that additive layers take. */
#define L1(x) sn_lanes_set1((float)(x))
static inline sn_lanes lanes_poly2(sn_lanes x, double a, double b) { return sn_lanes_madd(L1(a), L1(b), x); }
static inline sn_lanes lanes_asin_over(sn_lanes v) {
    const sn_lanes v2 = sn_lanes_mul(v, v), v4 = sn_lanes_mul(v2, v2), v8 = sn_lanes_mul(v4, v4);
    const sn_lanes lo = sn_lanes_add(
        sn_lanes_madd(lanes_poly2(v, 1.0000000000000004, 0.16666666666614838), v2,
                      lanes_poly2(v, 0.075000000102490916, 0.044642849352186459)),
        sn_lanes_mul(v4, sn_lanes_madd(lanes_poly2(v, 0.030382252985482576, 0.022364788670565624), v2,
                                       lanes_poly2(v, 0.017468280192969535, 0.012713080703905401))));
    const sn_lanes hi = sn_lanes_add(
        sn_lanes_madd(lanes_poly2(v, 0.021248958993309423, -0.045046183868903009), v2,
                      lanes_poly2(v, 0.23666367322149273, -0.69356345197717528)),
        sn_lanes_mul(v4, sn_lanes_madd(lanes_poly2(v, 1.5763973504116118, -2.4964847260877141), v2,
                                       lanes_poly2(v, 2.7061246676109287, -1.7802262375340645))));
    return sn_lanes_madd(sn_lanes_madd(lo, v8, hi), sn_lanes_mul(v8, v8), L1(0.56029765081109717));
}
static inline sn_lanes lanes_sin_over(sn_lanes u) {
    const sn_lanes u2 = sn_lanes_mul(u, u), u4 = sn_lanes_mul(u2, u2);
    return sn_lanes_madd(sn_lanes_madd(lanes_poly2(u, 0.99999999999999989, -0.16666666666666149), u2,
                                       lanes_poly2(u, 0.008333333333286683, -0.00019841269825730565)),
                         u4, lanes_poly2(u, 2.7557316704752491e-06, -2.5051887503924615e-08));
}
static inline sn_lanes lanes_cos_poly(sn_lanes u) {
    const sn_lanes u2 = sn_lanes_mul(u, u), u4 = sn_lanes_mul(u2, u2);
    return sn_lanes_madd(sn_lanes_madd(lanes_poly2(u, 0.999999999999998, -0.49999999999989891), u2,
                                       lanes_poly2(u, 0.041666666665809038, -0.0013888888861085789)),
                         u4, lanes_poly2(u, 2.4801582870641037e-05, -2.7556935453773798e-07));
}

/* 1 / sqrt(ss) lane by lane: 1 - e/2 + 3e^2/8 (e = ss - 1) when every lane is within 1e-3 of 1
   (unit rotations stored as float, and their products: the error is below e^3 / 3), else
   exactly */
static inline sn_lanes lanes_unit_scale(sn_lanes ss) {
    const sn_lanes e = sn_lanes_sub(ss, sn_lanes_set1(1.0f));
    if (sn_lanes_all_below(sn_lanes_flip_if_neg(e, e), sn_lanes_set1(1e-3f)))
        return sn_lanes_madd(sn_lanes_set1(1.0f), e, sn_lanes_madd(sn_lanes_set1(-0.5f), sn_lanes_set1(0.375f), e));
    return sn_lanes_rsqrt(ss);
}

/* Row c (a translation or a scale channel) of joints j .. j + 3 after the additive layer with
   weights w: t + w d for translations; for scales t f, or t / f where w < 0, f = 1 + |w| (d - 1),
   and f itself in *fp (a quotient's lane whose f could be 0 but w >= 0 is not used) */
static inline sn_lanes added_row(const float *o, const float *d, int st, int j, sn_lanes w, int c, sn_lanes *fp) {
    const sn_lanes t = sn_lanes_load(o + SN_ROW(c) * st + j), dv = sn_lanes_load(d + SN_ROW(c) * st + j);
    const sn_lanes one = sn_lanes_set1(1.0f);
    sn_lanes f;
    if (c < SN_POSE_QX) return sn_lanes_madd(t, w, dv);
    f = sn_lanes_madd(one, sn_lanes_flip_if_neg(w, w), sn_lanes_sub(dv, one));
    *fp = f;
    return sn_lanes_where_neg(w, sn_lanes_div(t, sn_lanes_where_neg(w, f, one)), sn_lanes_mul(t, f));
}

/* Zero when the additive layer keeps every new translation and scale of joints j .. j + 3 within
   float range and divides no scale by zero (x - x is 0 for a finite x, NaN otherwise) */
static int add_block_refused(const float *o, const float *d, int st, int j, sn_lanes w) {
    sn_lanes acc = sn_lanes_set1(0.0f), f = acc;
    int c;
    for (c = 0; c < 3; c++) {
        const sn_lanes r = added_row(o, d, st, j, w, c, &f);
        acc = sn_lanes_add(acc, sn_lanes_sub(r, r));
    }
    for (c = SN_POSE_SX; c <= SN_POSE_SZ; c++) {
        const sn_lanes r = added_row(o, d, st, j, w, c, &f);
        acc = sn_lanes_add(acc, sn_lanes_add(sn_lanes_sub(f, f), sn_lanes_sub(r, r)));
    }
    acc = sn_lanes_where_zero(w, sn_lanes_set1(0.0f), acc);
    acc = sn_lanes_flip_if_neg(acc, acc);
    return !sn_lanes_all_below(acc, sn_lanes_set1(1.0f)); /* 0 in every lane */
}

/* An additive layer on joints j .. j + 3 with weights w (0 on padding joints), all written or
   none: a joint whose weight is 0 keeps its bits. Translations add w d, scales multiply by
   1 + |w| (d - 1) (divide for w < 0). Rotations become q d^w normalised when every weight lies in
   [-1, 2] (`near`; else the caller takes them joint by joint): d^w is the slerp from the
   identity to d (on d's side, s >= 0) through the polynomials above. With v = |1 - d|^2 / 4
   (sin^2 of a quarter of d's angle theta, at most 1/2) that slerp is k0 (0, 0, 0, 1) + k1 d,
   with theta / 2 = sqrt(v) asin(s)/s, h = w theta / 2, k1 = sin(2h) / sin(theta) =
   w (asin(s)/s) / sqrt(1 - v) sin(h)/h cos(h) and k0 = cos(2h) - k1 cos(theta). */
static void add_block(float *o, const float *d, int st, int j, sn_lanes w, int near) {
    const sn_lanes one = L1(1.0);
    sn_lanes x, y, z, s, n, v, as, u, sh, ch, k0, k1, bx, by, bz, bs, ax, ay, az, as4, qx, qy, qz, qw, f;
    int c;
    for (c = 0; c < SN_POSE_CHANNELS; c++) { /* translations and scales: the rows around the rotation's */
        float *row = o + SN_ROW(c) * st + j;
        if (c >= SN_POSE_QX && c <= SN_POSE_QW) continue;
        sn_lanes_store(row, sn_lanes_where_zero(w, sn_lanes_load(row), added_row(o, d, st, j, w, c, &f)));
    }
    if (!near) return;
    x = sn_lanes_load(d + SN_ROW(SN_POSE_QX) * st + j);
    y = sn_lanes_load(d + SN_ROW(SN_POSE_QY) * st + j);
    z = sn_lanes_load(d + SN_ROW(SN_POSE_QZ) * st + j);
    s = sn_lanes_load(d + SN_ROW(SN_POSE_QW) * st + j);
    n = sn_lanes_flip_if_neg(lanes_unit_scale(sn_lanes_add(sn_lanes_madd(sn_lanes_mul(x, x), y, y),
                                                           sn_lanes_madd(sn_lanes_mul(z, z), s, s))), s);
    x = sn_lanes_mul(x, n);
    y = sn_lanes_mul(y, n);
    z = sn_lanes_mul(z, n);
    s = sn_lanes_mul(s, n);
    v = sn_lanes_sub(one, s);
    v = sn_lanes_mul(L1(0.25), sn_lanes_add(sn_lanes_madd(sn_lanes_mul(x, x), y, y), sn_lanes_madd(sn_lanes_mul(z, z), v, v)));
    v = sn_lanes_min(v, L1(0.5)); /* rounding */
    as = lanes_asin_over(v);
    u = sn_lanes_mul(sn_lanes_mul(sn_lanes_mul(w, w), v), sn_lanes_mul(as, as));
    sh = lanes_sin_over(u);
    ch = lanes_cos_poly(u);
    k1 = sn_lanes_mul(sn_lanes_mul(sn_lanes_mul(w, as), sn_lanes_rsqrt(sn_lanes_sub(one, v))), sn_lanes_mul(sh, ch));
    k0 = sn_lanes_sub(sn_lanes_sub(one, sn_lanes_mul(L1(2.0), sn_lanes_mul(u, sn_lanes_mul(sh, sh)))),
                      sn_lanes_mul(k1, sn_lanes_sub(one, sn_lanes_mul(L1(2.0), v))));
    bx = sn_lanes_mul(k1, x);
    by = sn_lanes_mul(k1, y);
    bz = sn_lanes_mul(k1, z);
    bs = sn_lanes_madd(k0, k1, s);
    ax = sn_lanes_load(o + SN_ROW(SN_POSE_QX) * st + j);
    ay = sn_lanes_load(o + SN_ROW(SN_POSE_QY) * st + j);
    az = sn_lanes_load(o + SN_ROW(SN_POSE_QZ) * st + j);
    as4 = sn_lanes_load(o + SN_ROW(SN_POSE_QW) * st + j);
    /* q = a * b */
    qx = sn_lanes_sub(sn_lanes_add(sn_lanes_madd(sn_lanes_mul(as4, bx), ax, bs), sn_lanes_mul(ay, bz)), sn_lanes_mul(az, by));
    qy = sn_lanes_add(sn_lanes_madd(sn_lanes_sub(sn_lanes_mul(as4, by), sn_lanes_mul(ax, bz)), ay, bs), sn_lanes_mul(az, bx));
    qz = sn_lanes_madd(sn_lanes_sub(sn_lanes_madd(sn_lanes_mul(as4, bz), ax, by), sn_lanes_mul(ay, bx)), az, bs);
    qw = sn_lanes_sub(sn_lanes_sub(sn_lanes_sub(sn_lanes_mul(as4, bs), sn_lanes_mul(ax, bx)), sn_lanes_mul(ay, by)),
                      sn_lanes_mul(az, bz));
    n = lanes_unit_scale(sn_lanes_add(sn_lanes_madd(sn_lanes_mul(qx, qx), qy, qy), sn_lanes_madd(sn_lanes_mul(qz, qz), qw, qw)));
    sn_lanes_store(o + SN_ROW(SN_POSE_QX) * st + j, sn_lanes_where_zero(w, ax, sn_lanes_mul(qx, n)));
    sn_lanes_store(o + SN_ROW(SN_POSE_QY) * st + j, sn_lanes_where_zero(w, ay, sn_lanes_mul(qy, n)));
    sn_lanes_store(o + SN_ROW(SN_POSE_QZ) * st + j, sn_lanes_where_zero(w, az, sn_lanes_mul(qz, n)));
    sn_lanes_store(o + SN_ROW(SN_POSE_QW) * st + j, sn_lanes_where_zero(w, as4, sn_lanes_mul(qw, n)));
}
#undef L1

/* Morph weights of an additive layer: out += weight * mask * delta. With `write` 0, only checks:
   returns the first morph whose new weight would leave the float range, or -1; with 1, writes
   (a morph whose weight is 0 keeps its bits) and returns -1. */
static int add_morphs(sn_pose *out, const sn_pose *delta, float weight, const sn_mask *mask, int write) {
    const float *d = delta->mw;
    float *o = out->mw;
    int m;
    for (m = 0; m < out->morph_count; m++) {
        const float w = weight * (mask != NULL ? mask->mw[m] : 1.0f), r = o[m] + w * d[m];
        if (w == 0.0f) continue;
        if (!write && !sn_isfinite(r)) return m;
        if (write) o[m] = r;
    }
    return -1;
}

sn_status sn_pose_add(sn_pose *out, const sn_pose *delta, float weight, const sn_mask *mask, sn_error *err) {
    const int n = out->count, st = out->stride;
    const float *d = delta->ch;
    float *o = out->ch;
    int j, c;
    if (delta->skeleton != out->skeleton) return sn_fail_arg(err, 1, SN_EINVAL, "delta pose of another skeleton");
    if (!sn_isfinite(weight)) return sn_fail_arg(err, 2, SN_EINVAL, "weight is not finite");
    if (mask != NULL && mask->skeleton != out->skeleton)
        return sn_fail_arg(err, 3, SN_EINVAL, "mask of another skeleton");
    /* before anything is written: no scale divided by zero, every new value within float range;
       four joints at a time, and joint by joint only to name the first that fails */
    for (j = 0; j < n; j += 4) {
        float w[4];
        int k;
        for (k = 0; k < 4; k++) w[k] = j + k < n ? weight * (mask != NULL ? mask->w[j + k] : 1.0f) : 0.0f;
        if (add_block_refused(o, d, st, j, sn_lanes_make(w[0], w[1], w[2], w[3]))) break;
    }
    for (j = j < n ? 0 : n; j < n; j++) {
        float w = weight * (mask != NULL ? mask->w[j] : 1.0f);
        if (w == 0.0f) continue;
        for (c = 0; c < 3; c++)
            if (!sn_isfinite(o[SN_ROW(c) * st + j] + w * d[SN_ROW(c) * st + j]))
                return sn_fail_arg(err, 2, SN_EINVAL, "the layer takes the translation of joint %d out of the float range",
                                   j + 1);
        for (c = SN_POSE_SX; c <= SN_POSE_SZ; c++) {
            float f = 1.0f + (w < 0.0f ? -w : w) * (d[SN_ROW(c) * st + j] - 1.0f);
            if (w < 0.0f && f == 0.0f)
                return sn_fail_arg(err, 1, SN_EINVAL, "subtracting the scale of joint %d divides by zero", j + 1);
            if (!sn_isfinite(f) || !sn_isfinite(w < 0.0f ? o[SN_ROW(c) * st + j] / f : o[SN_ROW(c) * st + j] * f))
                return sn_fail_arg(err, 2, SN_EINVAL, "the layer takes the scale of joint %d out of the float range",
                                   j + 1);
        }
    }
    if ((j = add_morphs(out, delta, weight, mask, 0)) >= 0)
        return sn_fail_arg(err, 2, SN_EINVAL, "the layer takes the weight of morph %d out of the float range", j + 1);
    (void)add_morphs(out, delta, weight, mask, 1);
    for (j = 0; j < n; j += 4) { /* rows are whole blocks of four: the stride is a multiple of them */
        float w[4];
        int k, near = 1;
        for (k = 0; k < 4; k++) {
            w[k] = j + k < n ? weight * (mask != NULL ? mask->w[j + k] : 1.0f) : 0.0f;
            near = near && w[k] >= -1.0f && w[k] <= 2.0f;
        }
        add_block(o, d, st, j, sn_lanes_make(w[0], w[1], w[2], w[3]), near);
        for (k = 0; !near && k < 4 && j + k < n; k++) { /* a weight beyond [-1, 2]: the exact power */
            float q[4], dq[4], r[4];
            if (w[k] == 0.0f) continue;
            for (c = 0; c < 4; c++) {
                q[c] = o[SN_ROW(SN_POSE_QX + c) * st + j + k];
                dq[c] = d[SN_ROW(SN_POSE_QX + c) * st + j + k];
            }
            qpow(dq, w[k], r); /* scale-free: no need to normalise dq first */
            qmul(q, r, q);
            qnormalize(q);
            for (c = 0; c < 4; c++) o[SN_ROW(SN_POSE_QX + c) * st + j + k] = q[c];
        }
    }
    return SN_OK;
}

sn_status sn_pose_delta(const sn_pose *pose, const sn_pose *reference, sn_pose *out, sn_error *err) {
    const int n = out->count, st = out->stride;
    int j, c;
    if (pose->skeleton != out->skeleton) return sn_fail_arg(err, 2, SN_EINVAL, "pose of another skeleton");
    if (reference->skeleton != out->skeleton)
        return sn_fail_arg(err, 3, SN_EINVAL, "reference pose of another skeleton");
    for (j = 0; j < n; j++) {
        for (c = SN_POSE_SX; c <= SN_POSE_SZ; c++)
            if (reference->ch[SN_ROW(c) * st + j] == 0.0f)
                return sn_fail_arg(err, 3, SN_EINVAL, "reference scale of joint %d is zero", j + 1);
        for (c = 0; c < SN_POSE_CHANNELS; c++) {
            const float p = pose->ch[SN_ROW(c) * st + j], r = reference->ch[SN_ROW(c) * st + j];
            if (c < 3 ? !sn_isfinite(p - r) : c >= SN_POSE_SX && !sn_isfinite(p / r))
                return sn_fail_arg(err, 2, SN_EINVAL, "the delta of joint %d is out of the float range", j + 1);
        }
    }
    for (j = 0; j < out->morph_count; j++)
        if (!sn_isfinite(pose->mw[j] - reference->mw[j]))
            return sn_fail_arg(err, 2, SN_EINVAL, "the delta of morph %d is out of the float range", j + 1);
    for (j = 0; j < out->morph_count; j++) out->mw[j] = pose->mw[j] - reference->mw[j];
    for (j = 0; j < n; j++) {
        float p[10], r[10], q[4];
        for (c = 0; c < 10; c++) {
            p[c] = pose->ch[SN_ROW(c) * st + j];
            r[c] = reference->ch[SN_ROW(c) * st + j];
        }
        /* conj(ref) * pose */
        r[3] = -r[3]; r[4] = -r[4]; r[5] = -r[5];
        qmul(r + 3, p + 3, q);
        if (q[3] < 0.0f) { q[0] = -q[0]; q[1] = -q[1]; q[2] = -q[2]; q[3] = -q[3]; }
        qnormalize(q);
        for (c = 0; c < 3; c++) out->ch[SN_ROW(c) * st + j] = p[c] - r[c];
        for (c = 0; c < 4; c++) out->ch[SN_ROW(SN_POSE_QX + c) * st + j] = q[c];
        for (c = SN_POSE_SX; c <= SN_POSE_SZ; c++) out->ch[SN_ROW(c) * st + j] = p[c] / r[c];
    }
    return SN_OK;
}

/* ---- model-space matrices --------------------------------------------------------------- */

/* Model-space matrices, four joints at a time in two stages: the local matrices T * R * S of the
   four, entry by entry in lanes (one joint per lane), then joint by joint the product with the
   parent's model matrix, one column of four floats per register: column c of parent * local is
   the parent's columns 0-2 weighted by the local column's entries, plus the parent's translation
   for c = 3. The last row is set to 0 0 0 1, not computed. */
void sn_pose_to_model(const sn_pose *p, float *out) {
    const int n = p->count, st = p->stride;
    const int *parents = sn_skeleton_parents(p->skeleton);
    const float *tx = p->ch + SN_ROW(SN_POSE_TX) * st, *ty = tx + st, *tz = ty + st;
    const float *qx = p->ch + SN_ROW(SN_POSE_QX) * st, *qy = qx + st, *qz = qy + st, *qw = qz + st;
    const float *sx = p->ch + SN_ROW(SN_POSE_SX) * st, *sy = sx + st, *sz = sy + st;
    const sn_lanes one = sn_lanes_set1(1.0f), two = sn_lanes_set1(2.0f);
    int b, j, c;
    for (b = 0; b < n; b += 4) { /* rows are padded to whole blocks of four (with identities) */
        /* l[e][k]: entry e of joint b + k's local matrix, the three scaled rotation columns then
           the translation */
        float l[12][4];
        const sn_lanes x = sn_lanes_load(qx + b), y = sn_lanes_load(qy + b), z = sn_lanes_load(qz + b);
        const sn_lanes w = sn_lanes_load(qw + b);
        const sn_lanes ax = sn_lanes_load(sx + b), ay = sn_lanes_load(sy + b), az = sn_lanes_load(sz + b);
        const sn_lanes xx = sn_lanes_mul(x, x), yy = sn_lanes_mul(y, y), xy = sn_lanes_mul(x, y);
        const sn_lanes xz = sn_lanes_mul(x, z), yz = sn_lanes_mul(y, z);
        const sn_lanes xw = sn_lanes_mul(x, w), yw = sn_lanes_mul(y, w), zw = sn_lanes_mul(z, w);
        sn_lanes_store(l[0], sn_lanes_mul(sn_lanes_sub(one, sn_lanes_mul(two, sn_lanes_madd(yy, z, z))), ax));
        sn_lanes_store(l[1], sn_lanes_mul(sn_lanes_mul(two, sn_lanes_add(xy, zw)), ax));
        sn_lanes_store(l[2], sn_lanes_mul(sn_lanes_mul(two, sn_lanes_sub(xz, yw)), ax));
        sn_lanes_store(l[3], sn_lanes_mul(sn_lanes_mul(two, sn_lanes_sub(xy, zw)), ay));
        sn_lanes_store(l[4], sn_lanes_mul(sn_lanes_sub(one, sn_lanes_mul(two, sn_lanes_madd(xx, z, z))), ay));
        sn_lanes_store(l[5], sn_lanes_mul(sn_lanes_mul(two, sn_lanes_add(yz, xw)), ay));
        sn_lanes_store(l[6], sn_lanes_mul(sn_lanes_mul(two, sn_lanes_add(xz, yw)), az));
        sn_lanes_store(l[7], sn_lanes_mul(sn_lanes_mul(two, sn_lanes_sub(yz, xw)), az));
        sn_lanes_store(l[8], sn_lanes_mul(sn_lanes_sub(one, sn_lanes_mul(two, sn_lanes_add(xx, yy))), az));
        sn_lanes_store(l[9], sn_lanes_load(tx + b));
        sn_lanes_store(l[10], sn_lanes_load(ty + b));
        sn_lanes_store(l[11], sn_lanes_load(tz + b));
        for (j = b; j < b + 4 && j < n; j++) {
            const int k = j - b;
            float *m = out + 16 * j;
            if (parents[j] < 0) {
                for (c = 0; c < 4; c++)
                    sn_lanes_storeu(m + 4 * c, sn_lanes_make(l[3 * c][k], l[3 * c + 1][k], l[3 * c + 2][k], c == 3));
            } else {
                const float *a = out + 16 * parents[j];
                const sn_lanes a0 = sn_lanes_loadu(a), a1 = sn_lanes_loadu(a + 4), a2 = sn_lanes_loadu(a + 8);
                for (c = 0; c < 4; c++) {
                    sn_lanes v = sn_lanes_madd(sn_lanes_madd(sn_lanes_mul(a0, sn_lanes_set1(l[3 * c][k])), a1,
                                                             sn_lanes_set1(l[3 * c + 1][k])),
                                               a2, sn_lanes_set1(l[3 * c + 2][k]));
                    if (c == 3) v = sn_lanes_add(v, sn_lanes_loadu(a + 12));
                    sn_lanes_storeu(m + 4 * c, sn_lanes_with_w(v, c == 3));
                }
            }
        }
    }
}

sn_status sn_pose_to_matrices(const sn_pose *p, sn_matrices *m, sn_error *err) {
    if (m->skeleton != p->skeleton) return sn_fail_arg(err, 2, SN_EINVAL, "matrices of another skeleton");
    sn_pose_to_model(p, m->m);
    return SN_OK;
}

/* ---- matrix sets ------------------------------------------------------------------------ */

void sn_matrices_def_init(sn_matrices_def *def) { def->skeleton = NULL; }

sn_status sn_matrices_validate(const sn_matrices_def *def, sn_error *err) {
    if (def == NULL || def->skeleton == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no skeleton");
    return SN_OK;
}

size_t sn_matrices_size(const sn_matrices_def *def, sn_error *err) {
    if (sn_matrices_validate(def, err) != SN_OK) return 0;
    return SN_ALIGN16(sizeof(sn_matrices)) + 15 + sizeof(float) * 16 * (size_t)sn_skeleton_stride(def->skeleton);
}

sn_status sn_matrices_init(void *mem, size_t size, const sn_matrices_def *def, sn_error *err) {
    sn_matrices *m = (sn_matrices *)mem;
    const size_t need = sn_matrices_size(def, err);
    int j;
    if (need == 0) return SN_EINVAL;
    if (mem == NULL || size < need) return sn_fail(err, SN_ENOMEM, "matrices need %lu bytes", (unsigned long)need);
    m->skeleton = def->skeleton;
    m->count = sn_skeleton_count(def->skeleton);
    m->m = (float *)sn_aligned_after(mem, sizeof(sn_matrices));
    memset(m->m, 0, sizeof(float) * 16 * (size_t)m->count);
    for (j = 0; j < m->count; j++) m->m[16 * j] = m->m[16 * j + 5] = m->m[16 * j + 10] = m->m[16 * j + 15] = 1.0f;
    return SN_OK;
}

const sn_skeleton *sn_matrices_skeleton(const sn_matrices *m) { return m->skeleton; }

float *sn_matrices_data(sn_matrices *m) { return m->m; }

const float *sn_matrices_data_const(const sn_matrices *m) { return m->m; }

/* out = a * b, column-major 4x4; out may not alias a or b */
static void mat4_mul(const float *a, const float *b, float *out) {
    int c, r;
    for (c = 0; c < 4; c++)
        for (r = 0; r < 4; r++)
            out[4 * c + r] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] + a[8 + r] * b[4 * c + 2] + a[12 + r] * b[4 * c + 3];
}

sn_status sn_matrices_skin(sn_matrices *m, const sn_matrices *inverse_bind, const float *root, sn_error *err) {
    int j;
    if (inverse_bind->skeleton != m->skeleton) return sn_fail_arg(err, 2, SN_EINVAL, "matrices of another skeleton");
    for (j = 0; j < m->count; j++) {
        float tmp[16], out[16];
        mat4_mul(m->m + 16 * j, inverse_bind->m + 16 * j, tmp);
        if (root != NULL) {
            mat4_mul(root, tmp, out);
            memcpy(m->m + 16 * j, out, sizeof out);
        } else {
            memcpy(m->m + 16 * j, tmp, sizeof tmp);
        }
    }
    return SN_OK;
}
