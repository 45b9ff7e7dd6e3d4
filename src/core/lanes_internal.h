/*
 * Private to src/core: four float32 lanes worked on together (one SSE or NEON register), for the
 * pose loops that keep several channels of four joints in registers at once (blend.c, pose.c's
 * model-space matrices), where gcc's auto-vectoriser would spill them.
 *
 * CONVENTIONS: as pose.h. Not part of the public API.
 *   - Under gcc and clang, sn_lanes is a GNU vector type and every function below is one or two
 *     instructions; elsewhere (or with -DSN_NO_VECTOR_EXT) it is a struct of four floats and the
 *     same functions loop over them. Every lane is an ordinary IEEE float operation in the same
 *     order either way, so both give the same bits (no estimate, no fused multiply-add: the core
 *     is built -std=c99, where gcc does not contract a * b + c).
 *   - Loads and stores take 16-byte aligned addresses (every row of a pose, mask, rest pose or
 *     matrix set is aligned so, and rows are whole blocks of four joints: strides are multiples
 *     of SN_SKELETON_LANES); under gcc and clang through a may_alias type, so that they read and
 *     write float arrays without breaking aliasing rules, elsewhere through memcpy.
 */
#ifndef SN_LANES_INTERNAL_H
#define SN_LANES_INTERNAL_H

#include <math.h>
#include <string.h>

#if (defined(__GNUC__) || defined(__clang__)) && !defined(SN_NO_VECTOR_EXT)

/// Four float lanes.
typedef float sn_lanes __attribute__((vector_size(16)));
/// Four int lanes: the masks of lane comparisons (all bits set where true).
typedef int sn_lanes_int __attribute__((vector_size(16)));
/// sn_lanes in memory: 16-byte aligned, may alias floats.
typedef float sn_lanes_mem __attribute__((vector_size(16), aligned(16), may_alias));

/// Four floats from p (16-byte aligned).
static inline sn_lanes sn_lanes_load(const float *p) { return *(const sn_lanes_mem *)p; }
/// Four floats to p (16-byte aligned).
static inline void sn_lanes_store(float *p, sn_lanes a) { *(sn_lanes_mem *)p = a; }

/// All four lanes x.
static inline sn_lanes sn_lanes_set1(float x) {
    sn_lanes r = {x, x, x, x};
    return r;
}
/// The lanes x, y, z, w.
static inline sn_lanes sn_lanes_make(float x, float y, float z, float w) {
    sn_lanes r = {x, y, z, w};
    return r;
}
/// a + b, lane by lane.
static inline sn_lanes sn_lanes_add(sn_lanes a, sn_lanes b) { return a + b; }
/// a - b, lane by lane.
static inline sn_lanes sn_lanes_sub(sn_lanes a, sn_lanes b) { return a - b; }
/// a * b, lane by lane.
static inline sn_lanes sn_lanes_mul(sn_lanes a, sn_lanes b) { return a * b; }
/// a / b, lane by lane.
static inline sn_lanes sn_lanes_div(sn_lanes a, sn_lanes b) { return a / b; }
/// d < 0 ? -w : w, lane by lane (the sign flip that puts a rotation in another's hemisphere).
static inline sn_lanes sn_lanes_flip_if_neg(sn_lanes w, sn_lanes d) {
    const sn_lanes_int sign = {(int)0x80000000u, (int)0x80000000u, (int)0x80000000u, (int)0x80000000u};
    const sn_lanes zero = {0.0f, 0.0f, 0.0f, 0.0f};
    return (sn_lanes)((sn_lanes_int)w ^ ((d < zero) & sign));
}
/// a > 0 ? a : 0, lane by lane (0 for NaN).
static inline sn_lanes sn_lanes_pos(sn_lanes a) {
    const sn_lanes zero = {0.0f, 0.0f, 0.0f, 0.0f};
    return (sn_lanes)((sn_lanes_int)a & (a > zero));
}
/// Non-zero when any lane of a is above 0.
static inline int sn_lanes_any_pos(sn_lanes a) {
    const sn_lanes zero = {0.0f, 0.0f, 0.0f, 0.0f};
    const sn_lanes_int m = a > zero;
    return (m[0] | m[1]) | (m[2] | m[3]);
}
/// 1 / sqrtf(a), lane by lane, exactly rounded steps (gcc and clang make it sqrtps and divps).
static inline sn_lanes sn_lanes_rsqrt(sn_lanes a) {
    sn_lanes r;
    int k;
    for (k = 0; k < 4; k++) r[k] = 1.0f / sqrtf(a[k]);
    return r;
}
/// Lane k of a (0 .. 3).
static inline float sn_lanes_get(sn_lanes a, int k) { return a[k]; }
/// a < b ? a : b, lane by lane.
static inline sn_lanes sn_lanes_min(sn_lanes a, sn_lanes b) {
    const sn_lanes_int m = a < b;
    return (sn_lanes)(((sn_lanes_int)a & m) | ((sn_lanes_int)b & ~m));
}
/// w < 0 ? a : b, lane by lane.
static inline sn_lanes sn_lanes_where_neg(sn_lanes w, sn_lanes a, sn_lanes b) {
    const sn_lanes zero = {0.0f, 0.0f, 0.0f, 0.0f};
    const sn_lanes_int m = w < zero;
    return (sn_lanes)(((sn_lanes_int)a & m) | ((sn_lanes_int)b & ~m));
}
/// w == 0 ? a : b, lane by lane.
static inline sn_lanes sn_lanes_where_zero(sn_lanes w, sn_lanes a, sn_lanes b) {
    const sn_lanes zero = {0.0f, 0.0f, 0.0f, 0.0f};
    const sn_lanes_int m = w == zero;
    return (sn_lanes)(((sn_lanes_int)a & m) | ((sn_lanes_int)b & ~m));
}
/// Non-zero when every lane of a is below b's (false for NaN).
static inline int sn_lanes_all_below(sn_lanes a, sn_lanes b) {
    const sn_lanes_int m = a < b;
    return (m[0] & m[1]) & (m[2] & m[3]);
}
/// a with lane 3 set to w (0 or 1: the last row of an affine matrix column).
static inline sn_lanes sn_lanes_with_w(sn_lanes a, float w) {
    const sn_lanes_int xyz = {-1, -1, -1, 0};
    const sn_lanes last = {0.0f, 0.0f, 0.0f, w};
    return (sn_lanes)(((sn_lanes_int)a & xyz) | (sn_lanes_int)last);
}

#else

/// Four float lanes.
typedef struct sn_lanes {
    float f[4];  ///< the lanes
} sn_lanes;

static inline sn_lanes sn_lanes_set1(float x) {
    sn_lanes r;
    r.f[0] = r.f[1] = r.f[2] = r.f[3] = x;
    return r;
}
static inline sn_lanes sn_lanes_make(float x, float y, float z, float w) {
    sn_lanes r;
    r.f[0] = x, r.f[1] = y, r.f[2] = z, r.f[3] = w;
    return r;
}
#define SN_LANES_OP(name, expr)                                   \
    static inline sn_lanes name(sn_lanes a, sn_lanes b) {         \
        sn_lanes r;                                               \
        int k;                                                    \
        for (k = 0; k < 4; k++) r.f[k] = expr;                    \
        return r;                                                 \
    }
SN_LANES_OP(sn_lanes_add, a.f[k] + b.f[k])
SN_LANES_OP(sn_lanes_sub, a.f[k] - b.f[k])
SN_LANES_OP(sn_lanes_mul, a.f[k] * b.f[k])
SN_LANES_OP(sn_lanes_div, a.f[k] / b.f[k])
SN_LANES_OP(sn_lanes_flip_if_neg, b.f[k] < 0.0f ? -a.f[k] : a.f[k])
SN_LANES_OP(sn_lanes_min, a.f[k] < b.f[k] ? a.f[k] : b.f[k])
#undef SN_LANES_OP
#define SN_LANES_WHERE(name, cond)                                                 \
    static inline sn_lanes name(sn_lanes w, sn_lanes a, sn_lanes b) {              \
        sn_lanes r;                                                                \
        int k;                                                                     \
        for (k = 0; k < 4; k++) r.f[k] = w.f[k] cond ? a.f[k] : b.f[k];            \
        return r;                                                                  \
    }
SN_LANES_WHERE(sn_lanes_where_neg, < 0.0f)
SN_LANES_WHERE(sn_lanes_where_zero, == 0.0f)
#undef SN_LANES_WHERE
static inline sn_lanes sn_lanes_pos(sn_lanes a) {
    int k;
    for (k = 0; k < 4; k++) a.f[k] = a.f[k] > 0.0f ? a.f[k] : 0.0f;
    return a;
}
static inline int sn_lanes_any_pos(sn_lanes a) {
    return (a.f[0] > 0.0f) | (a.f[1] > 0.0f) | (a.f[2] > 0.0f) | (a.f[3] > 0.0f);
}
static inline int sn_lanes_all_below(sn_lanes a, sn_lanes b) {
    return (a.f[0] < b.f[0]) & (a.f[1] < b.f[1]) & (a.f[2] < b.f[2]) & (a.f[3] < b.f[3]);
}
static inline sn_lanes sn_lanes_rsqrt(sn_lanes a) {
    int k;
    for (k = 0; k < 4; k++) a.f[k] = 1.0f / sqrtf(a.f[k]);
    return a;
}
static inline float sn_lanes_get(sn_lanes a, int k) { return a.f[k]; }
static inline sn_lanes sn_lanes_with_w(sn_lanes a, float w) {
    a.f[3] = w;
    return a;
}
static inline sn_lanes sn_lanes_load(const float *p) {
    sn_lanes r;
    memcpy(&r, p, sizeof r);
    return r;
}
static inline void sn_lanes_store(float *p, sn_lanes a) { memcpy(p, &a, sizeof a); }

#endif
/// Four floats from p, any alignment.
static inline sn_lanes sn_lanes_loadu(const float *p) {
    sn_lanes r;
    memcpy(&r, p, sizeof r);
    return r;
}
/// Four floats to p, any alignment.
static inline void sn_lanes_storeu(float *p, sn_lanes a) { memcpy(p, &a, sizeof a); }
/// a + b * c, lane by lane, rounded twice (never fused).
static inline sn_lanes sn_lanes_madd(sn_lanes a, sn_lanes b, sn_lanes c) {
    return sn_lanes_add(a, sn_lanes_mul(b, c));
}

#endif
