/*
 * N-layer pose blending: one pass over the joints per layer, four joints at a time.
 *
 * Each pass reads one layer and adds it into the output pose's scratch (sums of the ten channels,
 * and of the masked weights, kept block by block: the eleven sums of four joints lie together),
 * four joints per register (sn_lanes), every block independent of the others so that the
 * processor overlaps them. The hemisphere alignment of a
 * layer's rotations is a per-joint sign, that of the dot product with the rotation summed so
 * far. The first layer writes its products; the last one finishes each block in registers
 * (rest-pose fill where a block needs it, division by the total weight, normalisation) and
 * writes the output once; two layers with weight take a single pass, without the scratch, and
 * with more the first pass takes the first two.
 * Layers are read before the output is written, block by block, so the output may be a layer.
 */
#include <math.h>
#include <string.h>

#include "lanes_internal.h"
#include "pose_internal.h"

sn_status sn_pose_blend_validate(const sn_pose *out, const sn_blend_layer *layers, int n, float threshold,
                                 sn_error *err) {
    int i;
    if (n < 0) return sn_fail_arg(err, 2, SN_EINVAL, "negative layer count");
    if (n > 0 && layers == NULL) return sn_fail_arg(err, 2, SN_EINVAL, "no layers");
    for (i = 0; i < n; i++) {
        if (layers[i].pose == NULL || layers[i].pose->skeleton != out->skeleton)
            return sn_fail_arg(err, 2, SN_EINVAL, "layer %d is a pose of another skeleton", i + 1);
        if (!sn_isfinite(layers[i].weight))
            return sn_fail_arg(err, 3, SN_EINVAL, "weight %d is not finite", i + 1);
        if (layers[i].weight < 0.0f) return sn_fail_arg(err, 3, SN_EINVAL, "weight %d is negative", i + 1);
        if (layers[i].mask != NULL && layers[i].mask->skeleton != out->skeleton)
            return sn_fail_arg(err, 4, SN_EINVAL, "mask %d is a mask of another skeleton", i + 1);
    }
    if (!sn_isfinite(threshold) || !(threshold > 0.0f))
        return sn_fail_arg(err, 5, SN_EINVAL, "threshold must be a finite number above 0");
    return SN_OK;
}

/* What every pass of a blend reads besides its layer. */
typedef struct blend_plan {
    int general;        /* 0: the weights sum to 1 and no layer is masked: no fill, no division */
    float uniform;      /* general: the sum of the unmasked layers' weights */
    float threshold;    /* general: the (scaled) threshold the rest pose fills up to */
    const float *rest;  /* general: the rest pose rows */
} blend_plan;

/* Rows of a pose (see SN_ROW): translation 0-2, scale 3-5, rotation 6-9; the scratch holds the
   same ten sums, then the masked weights' sum (SN_POSE_ACC_W), by blocks (see SCRATCH). */
#define ROW(p, r) ((p) + (r) * st)
#define LOAD(p, r) sn_lanes_load(ROW(p, r))
/* The scratch is not in rows but in blocks: the eleven sums of joints j .. j + 3 lie together
   at SCRATCH(acc, j), four floats each, so that a pass reaches them from one pointer and its
   stores to one block share few 4 KiB offsets with the layer rows it loads (masked blends of
   several layers are faster so than with rows: manual/performance.md, "Why the code is written
   so"). */
#define SCRATCH_SUMS (SN_POSE_ACC_W + 1)
#define SCRATCH(acc, j) ((acc) + SCRATCH_SUMS * (j))
#define ALOAD(a, r) sn_lanes_load((a) + 4 * (r))
#define ASTORE(a, r, v) sn_lanes_store((a) + 4 * (r), v)

/* What a pass does, in flags that are constants wherever blend_pass is compiled (see PASS_FN):
   FIRST, the sums start from the first layer's products (the scratch is not read); EMPTY, from
   zero (no layer has weight; with FIRST); PAIR, a second layer is added in the same pass (the
   sums stay in registers in between); LAST, the blocks are finished and written to the output
   instead of the scratch; GENERAL, the masked weights are summed and the rest pose fills up to
   the threshold (masks are looked at only then); MASKED, the one layer of the pass has a mask
   (with GENERAL, without PAIR: a pair's masks are looked at block by block); ROTS, only the
   rotations are written, MOVES only the translations and scales (what is not written is not
   computed either: see SPLIT_FN). */
enum { FIRST = 1, LAST = 2, GENERAL = 4, PAIR = 8, EMPTY = 16, MASKED = 32, ROTS = 64, MOVES = 128 };

#if defined(__GNUC__)
#define PASS_INLINE static inline __attribute__((always_inline))
#else
#define PASS_INLINE static inline
#endif

/* 1 / |q| of four rotation sums; a zero sum (only from zero input rotations) stays zero: the
   1e-30 instead of a test. */
static inline sn_lanes unit_scale(sn_lanes qx, sn_lanes qy, sn_lanes qz, sn_lanes qw) {
    return sn_lanes_rsqrt(sn_lanes_add(
        sn_lanes_add(sn_lanes_madd(sn_lanes_mul(qx, qx), qy, qy), sn_lanes_madd(sn_lanes_mul(qz, qz), qw, qw)),
        sn_lanes_set1(1e-30f)));
}

/* The sums of a block start as the products of the layer rows at p with weight wj. */
#define START(p, wj)                                                                                  \
    (tx = sn_lanes_mul(wj, LOAD(p, 0)), ty = sn_lanes_mul(wj, LOAD(p, 1)), tz = sn_lanes_mul(wj, LOAD(p, 2)), \
     sx = sn_lanes_mul(wj, LOAD(p, 3)), sy = sn_lanes_mul(wj, LOAD(p, 4)), sz = sn_lanes_mul(wj, LOAD(p, 5)), \
     qx = sn_lanes_mul(wj, LOAD(p, 6)), qy = sn_lanes_mul(wj, LOAD(p, 7)), qz = sn_lanes_mul(wj, LOAD(p, 8)), \
     qw = sn_lanes_mul(wj, LOAD(p, 9)))
/* The layer rows at p with weight wj are added to the sums of a block, each rotation with the
   sign of its dot product with the rotation sum so far. */
#define ADD(p, wj)                                                                                     \
    (tx = sn_lanes_madd(tx, wj, LOAD(p, 0)), ty = sn_lanes_madd(ty, wj, LOAD(p, 1)),                   \
     tz = sn_lanes_madd(tz, wj, LOAD(p, 2)), sx = sn_lanes_madd(sx, wj, LOAD(p, 3)),                   \
     sy = sn_lanes_madd(sy, wj, LOAD(p, 4)), sz = sn_lanes_madd(sz, wj, LOAD(p, 5)),                   \
     d = sn_lanes_add(sn_lanes_madd(sn_lanes_mul(qx, LOAD(p, 6)), qy, LOAD(p, 7)),                  \
                      sn_lanes_madd(sn_lanes_mul(qz, LOAD(p, 8)), qw, LOAD(p, 9))),                  \
     s = sn_lanes_flip_if_neg(wj, d), qx = sn_lanes_madd(qx, s, LOAD(p, 6)),                          \
     qy = sn_lanes_madd(qy, s, LOAD(p, 7)), qz = sn_lanes_madd(qz, s, LOAD(p, 8)),                     \
     qw = sn_lanes_madd(qw, s, LOAD(p, 9)))

/* One pass over every block of four joints of `out`: layer l1 (weight w1, scaled) and with PAIR
   layer l2 (weight w2) are added to the sums. */
PASS_INLINE void blend_pass(const blend_plan *b, const sn_blend_layer *l1, float w1, const sn_blend_layer *l2,
                            float w2, sn_pose *out, int mode) {
    const int first = mode & FIRST, last = mode & LAST, general = mode & GENERAL, pair = mode & PAIR;
    const int rots = !(mode & MOVES), moves = !(mode & ROTS);
    const int st = out->stride;
    const float *const src1 = mode & EMPTY ? NULL : l1->pose->ch, *const src2 = pair ? l2->pose->ch : NULL;
    const float *const mask1 = mode & MASKED || (general && pair && l1->mask != NULL) ? l1->mask->w : NULL;
    const float *const mask2 = general && pair && l2->mask != NULL ? l2->mask->w : NULL;
    const float *const rest = b->rest;
    float *const acc = out->acc, *const ch = out->ch;
    const sn_lanes zero = sn_lanes_set1(0.0f), lw1 = sn_lanes_set1(w1), lw2 = sn_lanes_set1(w2);
    const sn_lanes uniform = sn_lanes_set1(b->uniform), threshold = sn_lanes_set1(b->threshold);
    int j;
    for (j = 0; j < st; j += 4) {
        const float *p = src1 != NULL ? src1 + j : NULL, *a = SCRATCH(acc, j); /* no pointer arithmetic on NULL */
        sn_lanes tx, ty, tz, sx, sy, sz, qx, qy, qz, qw, d, s, wsum = zero, wj;
        if (mode & EMPTY) {
            tx = ty = tz = sx = sy = sz = qx = qy = qz = qw = zero;
        } else {
            wj = mask1 != NULL ? sn_lanes_mul(lw1, sn_lanes_load(mask1 + j)) : lw1;
            if (first) {
                START(p, wj);
                if (mask1 != NULL) wsum = wj;
            } else {
                tx = ALOAD(a, 0), ty = ALOAD(a, 1), tz = ALOAD(a, 2), sx = ALOAD(a, 3), sy = ALOAD(a, 4);
                sz = ALOAD(a, 5), qx = ALOAD(a, 6), qy = ALOAD(a, 7), qz = ALOAD(a, 8), qw = ALOAD(a, 9);
                ADD(p, wj);
                if (general) wsum = ALOAD(a, SN_POSE_ACC_W);
                if (mask1 != NULL) wsum = sn_lanes_add(wsum, wj);
            }
            if (pair) {
                wj = mask2 != NULL ? sn_lanes_mul(lw2, sn_lanes_load(mask2 + j)) : lw2;
                p = src2 + j;
                ADD(p, wj);
                if (mask2 != NULL) wsum = sn_lanes_add(wsum, wj);
            }
        }
        if (!last) {
            float *o = SCRATCH(acc, j);
            if (moves) {
                ASTORE(o, 0, tx), ASTORE(o, 1, ty), ASTORE(o, 2, tz);
                ASTORE(o, 3, sx), ASTORE(o, 4, sy), ASTORE(o, 5, sz);
            }
            if (rots) ASTORE(o, 6, qx), ASTORE(o, 7, qy), ASTORE(o, 8, qz), ASTORE(o, 9, qw);
            if (general) ASTORE(o, SN_POSE_ACC_W, wsum);
        } else {
            float *o = ch + j;
            if (general) {
                /* fill = max(threshold - W, 0) of the rest pose, W the joint's total weight, then
                   everything divided by W + fill; the rest pose is read only by blocks that
                   need it (adding 0 x rest changes nothing) */
                const sn_lanes total = sn_lanes_add(uniform, wsum);
                const sn_lanes fill = sn_lanes_pos(sn_lanes_sub(threshold, total));
                const sn_lanes inv = sn_lanes_div(sn_lanes_set1(1.0f), sn_lanes_add(total, fill));
                if (sn_lanes_any_pos(fill)) ADD(rest + j, fill);
                tx = sn_lanes_mul(tx, inv), ty = sn_lanes_mul(ty, inv), tz = sn_lanes_mul(tz, inv);
                sx = sn_lanes_mul(sx, inv), sy = sn_lanes_mul(sy, inv), sz = sn_lanes_mul(sz, inv);
            }
            if (moves) {
                sn_lanes_store(ROW(o, 0), tx), sn_lanes_store(ROW(o, 1), ty), sn_lanes_store(ROW(o, 2), tz);
                sn_lanes_store(ROW(o, 3), sx), sn_lanes_store(ROW(o, 4), sy), sn_lanes_store(ROW(o, 5), sz);
            }
            if (!rots) continue;
            if (!general) { /* normalised here; after the general finish, in a loop of its own */
                s = unit_scale(qx, qy, qz, qw);
                qx = sn_lanes_mul(qx, s), qy = sn_lanes_mul(qy, s), qz = sn_lanes_mul(qz, s), qw = sn_lanes_mul(qw, s);
            }
            sn_lanes_store(ROW(o, 6), qx), sn_lanes_store(ROW(o, 7), qy);
            sn_lanes_store(ROW(o, 8), qz), sn_lanes_store(ROW(o, 9), qw);
        }
    }
    if (last && general) {
        for (j = 0; j < st; j += 4) {
            float *o = ch + j;
            const sn_lanes qx = LOAD(o, 6), qy = LOAD(o, 7), qz = LOAD(o, 8), qw = LOAD(o, 9);
            const sn_lanes s = unit_scale(qx, qy, qz, qw);
            sn_lanes_store(ROW(o, 6), sn_lanes_mul(qx, s)), sn_lanes_store(ROW(o, 7), sn_lanes_mul(qy, s));
            sn_lanes_store(ROW(o, 8), sn_lanes_mul(qz, s)), sn_lanes_store(ROW(o, 9), sn_lanes_mul(qw, s));
        }
    }
}

#undef ADD
#undef START
#undef ASTORE
#undef ALOAD
#undef SCRATCH
#undef SCRATCH_SUMS
#undef LOAD
#undef ROW

/* blend_pass compiled once per kind of pass: [stage][kind], stage 0 first, 1 between, 2 last,
   3 only (first and last); kind 0 uniform, 1 general, 2 general with a masked layer. The uniform
   passes that finish run as two loops, the rotations then the translations and scales: the
   rotations' chain (signs, square root, division) is long, and without the other channels'
   work between them more blocks are in flight (faster for the finishing passes; the passes
   between were not faster so: manual/performance.md). */
typedef void (*pass_fn)(const blend_plan *b, const sn_blend_layer *l1, float w1, const sn_blend_layer *l2, float w2,
                        sn_pose *out);
#define PASS_FN(name, mode)                                                                          \
    static void name(const blend_plan *b, const sn_blend_layer *l1, float w1, const sn_blend_layer *l2, \
                     float w2, sn_pose *out) {                                                       \
        blend_pass(b, l1, w1, l2, w2, out, mode);                                                    \
    }
#define SPLIT_FN(name, mode)                                                                         \
    static void name(const blend_plan *b, const sn_blend_layer *l1, float w1, const sn_blend_layer *l2, \
                     float w2, sn_pose *out) {                                                       \
        blend_pass(b, l1, w1, l2, w2, out, mode | ROTS);                                             \
        blend_pass(b, l1, w1, l2, w2, out, mode | MOVES);                                            \
    }
PASS_FN(first_uniform, FIRST)
PASS_FN(first_general, FIRST | GENERAL)
PASS_FN(middle_uniform, 0)
PASS_FN(first_masked, FIRST | GENERAL | MASKED)
PASS_FN(middle_general, GENERAL)
PASS_FN(middle_masked, GENERAL | MASKED)
PASS_FN(first_uniform2, FIRST | PAIR)
PASS_FN(first_general2, FIRST | GENERAL | PAIR)
SPLIT_FN(last_uniform, LAST)
PASS_FN(last_general, LAST | GENERAL)
PASS_FN(last_masked, LAST | GENERAL | MASKED)
SPLIT_FN(only_uniform2, FIRST | LAST | PAIR)
PASS_FN(only_general, FIRST | LAST | GENERAL)
PASS_FN(only_masked, FIRST | LAST | GENERAL | MASKED)
PASS_FN(only_general2, FIRST | LAST | GENERAL | PAIR)
PASS_FN(only_empty, FIRST | LAST | GENERAL | EMPTY)
#undef SPLIT_FN
#undef PASS_FN
static const pass_fn passes[4][3] = {{first_uniform, first_general, first_masked},
                                     {middle_uniform, middle_general, middle_masked},
                                     {last_uniform, last_general, last_masked},
                                     {NULL, only_general, only_masked}};

/* The next layer with weight after layer i (last + 1 after the last). */
static int next_layer(const sn_blend_layer *layers, int i, int last) {
    while (++i < last && layers[i].weight == 0.0f) continue;
    return i;
}

/* The passes between the first and the last, with a float scale k, in one call (the set-up of
   the rows once, no call per layer): of a uniform plan, of a general one. It pays most for few
   joints, where a pass's fixed cost weighs most (manual/performance.md). */
static void middle_uniforms(const blend_plan *b, const sn_blend_layer *layers, int i, int last, float k,
                            sn_pose *out) {
    for (; i < last; i = next_layer(layers, i, last)) blend_pass(b, &layers[i], layers[i].weight * k, NULL, 0.0f, out, 0);
}
static void middle_generals(const blend_plan *b, const sn_blend_layer *layers, int i, int last, float k,
                            sn_pose *out) {
    for (; i < last; i = next_layer(layers, i, last)) {
        if (layers[i].mask != NULL)
            blend_pass(b, &layers[i], layers[i].weight * k, NULL, 0.0f, out, GENERAL | MASKED);
        else
            blend_pass(b, &layers[i], layers[i].weight * k, NULL, 0.0f, out, GENERAL);
    }
}

/* The passes: the first layer with weight, the ones between, the last (which finishes); two
   layers with weight take one pass together, and with more, the first pass takes the first two
   (its chain is short: it starts from the products). More in one pass were slower, and so were
   pairs in the middle passes: each layer's rotation signs wait on the sums so far, and that
   chain grows with every layer. Layer i weighs
   layers[i].weight * k (kd in double when the plan's scale is not a float: fast == 0). Only
   general plans have a single layer with weight. */
static void blend_layers(sn_pose *out, const sn_blend_layer *layers, int first, int last, int fast, float k,
                         double kd, const blend_plan *b) {
    const int general = b->general != 0;
    int i;
#define KIND(i) (general + (general && layers[i].mask != NULL))
#define WEIGHT(i) (fast ? layers[i].weight * k : (float)((double)layers[i].weight * kd))
    if (first < 0) { /* no layer with weight: the rest pose, through the general finish */
        only_empty(b, NULL, 0.0f, NULL, 0.0f, out);
        return;
    }
    if (first == last) {
        passes[3][KIND(first)](b, &layers[first], WEIGHT(first), NULL, 0.0f, out);
        return;
    }
    i = next_layer(layers, first, last);
    if (i == last) {
        (general ? only_general2 : only_uniform2)(b, &layers[first], WEIGHT(first), &layers[last], WEIGHT(last), out);
        return;
    }
    if (next_layer(layers, i, last) < last) {
        (general ? first_general2 : first_uniform2)(b, &layers[first], WEIGHT(first), &layers[i], WEIGHT(i), out);
        i = next_layer(layers, i, last);
    } else {
        passes[0][KIND(first)](b, &layers[first], WEIGHT(first), NULL, 0.0f, out);
    }
    if (fast)
        (general ? middle_generals : middle_uniforms)(b, layers, i, last, k, out);
    else
        for (; i < last; i = next_layer(layers, i, last)) passes[1][KIND(i)](b, &layers[i], WEIGHT(i), NULL, 0.0f, out);
    passes[2][KIND(last)](b, &layers[last], WEIGHT(last), NULL, 0.0f, out);
#undef KIND
#undef WEIGHT
}

/* The morph weights of a blend, morph by morph: with the weights scaled as the joints' are (the
   larger of their sum and the threshold 1, in double), W = sum of w_i mask_i(m), the default
   weight fills in with max(threshold - W, 0) (the threshold at least SN_BLEND_MIN_FILL, as for
   the joints), and the result is the weighted mean: layer by layer over the morphs in chunks,
   every layer read before the chunk is written, so the output may be a layer. Not called for
   skeletons without morphs. */
static void blend_morphs(sn_pose *out, const sn_blend_layer *layers, int n, float threshold) {
    enum { CHUNK = 64 }; /* morphs summed at once, layer by layer, in double on the stack */
    const float *defaults = sn_skeleton_morph_defaults(out->skeleton);
    double total = 0.0, scale, fill_at, sum[CHUNK], wsum[CHUNK];
    int i, m, at;
    for (i = 0; i < n; i++) total += layers[i].weight;
    scale = 1.0 / (total > threshold ? total : (double)threshold);
    fill_at = threshold * scale;
    if (fill_at < SN_BLEND_MIN_FILL) fill_at = SN_BLEND_MIN_FILL;
    for (at = 0; at < out->morph_count; at += CHUNK) {
        const int k = out->morph_count - at < CHUNK ? out->morph_count - at : CHUNK;
        for (m = 0; m < k; m++) sum[m] = wsum[m] = 0.0;
        for (i = 0; i < n; i++) { /* a layer's factor 0 adds 0 x a finite weight: nothing */
            const sn_blend_layer *l = &layers[i];
            const double w = l->weight * scale;
            const float *x = l->pose->mw + at;
            if (!(w > 0.0)) continue;
            if (l->mask != NULL) {
                const float *f = l->mask->mw + at;
                for (m = 0; m < k; m++) {
                    const double wm = w * f[m];
                    sum[m] += wm * x[m];
                    wsum[m] += wm;
                }
            } else {
                for (m = 0; m < k; m++) {
                    sum[m] += w * x[m];
                    wsum[m] += w;
                }
            }
        }
        for (m = 0; m < k; m++) {
            const double fill = fill_at > wsum[m] ? fill_at - wsum[m] : 0.0;
            out->mw[at + m] = (float)((sum[m] + fill * defaults[at + m]) / (wsum[m] + fill));
        }
    }
}

/* Weights and thresholds between these powers of two scale in float (see sn_pose_blend). */
#define FAST_MAX 0x1p100f
#define FAST_MIN 0x1p-100f

sn_status sn_pose_blend(sn_pose *out, const sn_blend_layer *layers, int n, float threshold, sn_error *err) {
    const sn_skeleton *sk = out->skeleton;
    float total = 0.0f, unmasked = 0.0f, k = 0.0f, top; /* sums of the weights, of the unmasked ones */
    double kd = 0.0;
    int i, masked = 0, active = 0, first = -1, last = -1, fast;
    blend_plan b;
    /* One look at each layer: the checks of sn_pose_blend_validate (which, when one fails, finds
       and words the first fault) and the sums. */
    if (n < 0 || (n > 0 && layers == NULL) || !(threshold > 0.0f && threshold - threshold == 0.0f))
        return sn_pose_blend_validate(out, layers, n, threshold, err);
    for (i = 0; i < n; i++) {
        const sn_blend_layer *l = &layers[i];
        const float w = l->weight;
        if (l->pose == NULL || l->pose->skeleton != sk || !(w >= 0.0f && w - w == 0.0f) ||
            (l->mask != NULL && l->mask->skeleton != sk))
            return sn_pose_blend_validate(out, layers, n, threshold, err);
        if (w == 0.0f) continue;
        total += w;
        if (l->mask != NULL) masked = 1;
        else unmasked += w;
        if (first < 0) first = i;
        last = i;
        active++;
    }
    /* The weights and the threshold are scaled together so that the larger of the weights' sum
       and the threshold is 1: the blend (sum w x + fill rest) / (sum w + fill) with
       fill = max(threshold - sum w, 0) does not change, but no sum of weighted values can
       overflow float, and neither can a huge threshold nor underflow a tiny one. Every joint's
       total weight is then at least the scaled threshold, which is kept at SN_BLEND_MIN_FILL or
       more so that its rotation sum normalises to a unit quaternion. With the sum and the
       threshold between 2^-100 and 2^100 (so no weight is above 2^100 and the float sums above
       cannot overflow), the scale is a float; otherwise it is worked out in double. */
    top = total > threshold ? total : threshold;
    fast = top <= FAST_MAX && top >= FAST_MIN;
    b.rest = NULL;
    b.uniform = b.threshold = 0.0f;
    /* The common case, at least two unmasked layers and a total weight above the threshold: the
       weights are multiplied by 1 / their sum up front, no rest pose, no division. */
    b.general = !(active >= 2 && !masked && total >= threshold);
    if (!b.general && fast) {
        k = 1.0f / total;
    } else if (fast) {
        k = 1.0f / top;
        b.threshold = threshold * k;
        b.uniform = unmasked * k;
    } else {
        double sum = 0.0;
        for (i = 0; i < n; i++) sum += layers[i].weight;
        kd = 1.0 / (sum > threshold ? sum : (double)threshold);
        b.threshold = (float)(threshold * kd);
        b.uniform = 0.0f;
        for (i = 0; i < n; i++)
            if (layers[i].mask == NULL) b.uniform += (float)(layers[i].weight * kd);
        if (!b.general) kd /= b.uniform;
    }
    if (b.general) {
        if (b.threshold < SN_BLEND_MIN_FILL) b.threshold = SN_BLEND_MIN_FILL;
        b.rest = sn_skeleton_rest_soa(sk);
    }
    blend_layers(out, layers, first, last, fast, k, kd, &b);
    if (out->morph_count > 0) blend_morphs(out, layers, n, threshold);
    return SN_OK;
}

#undef FAST_MIN
#undef FAST_MAX

/* ---- rotation averaging other than nlerp -------------------------------------------------- */

sn_status sn_pose_blend_method(sn_pose *out, const sn_blend_layer *layers, int n, float threshold,
                               sn_blend_method method, sn_error *err) {
    const int st = out->stride;
    float *keep = out->acc + SN_POSE_ACC_KEEP * st;
    const float *rest = sn_skeleton_rest_soa(out->skeleton);
    sn_quat qs[SN_BLEND_METHOD_MAX_LAYERS + 1];
    double ws[SN_BLEND_METHOD_MAX_LAYERS + 1], total = 0.0, scale, fill_at;
    int i, j, k, active = 0;
    sn_status status;
    if (method == SN_BLEND_NLERP) return sn_pose_blend(out, layers, n, threshold, err);
    if (method != SN_BLEND_KARCHER && method != SN_BLEND_MARKLEY && method != SN_BLEND_POWER)
        return sn_fail_arg(err, 6, SN_EINVAL, "unknown rotation averaging method %d", (int)method);
    status = sn_pose_blend_validate(out, layers, n, threshold, err);
    if (status != SN_OK) return status;
    for (i = 0; i < n; i++) {
        total += layers[i].weight;
        active += layers[i].weight > 0.0f;
    }
    if (active > SN_BLEND_METHOD_MAX_LAYERS)
        return sn_fail_arg(err, 2, SN_EINVAL, "%d layers with weight: at most %d average rotations other than by nlerp",
                           active, SN_BLEND_METHOD_MAX_LAYERS);
    /* the same scaling as sn_pose_blend: weights and threshold together, the larger of the two 1 */
    scale = 1.0 / (total > threshold ? total : (double)threshold);
    fill_at = threshold * scale;
    if (fill_at < SN_BLEND_MIN_FILL) fill_at = SN_BLEND_MIN_FILL;
    /* first every joint's rotation, read from the layers before anything is written (the output
       may be a layer), kept in the pose's spare scratch rows; NaN where the method refused */
    for (j = 0; j < out->count; j++) {
        double sum = 0.0;
        size_t m = 0;
        sn_quat r;
        sn_error ignored;
        for (i = 0; i < n; i++) {
            const sn_blend_layer *l = &layers[i];
            double w = l->weight * scale * (l->mask != NULL ? l->mask->w[j] : 1.0f);
            const float *q = l->pose->ch;
            if (!(w > 0.0)) continue;
            qs[m].x = q[(SN_ROW_Q + 0) * st + j];
            qs[m].y = q[(SN_ROW_Q + 1) * st + j];
            qs[m].z = q[(SN_ROW_Q + 2) * st + j];
            qs[m].w = q[(SN_ROW_Q + 3) * st + j];
            ws[m++] = w;
            sum += w;
        }
        if (fill_at - sum > 0.0) {
            qs[m].x = rest[(SN_ROW_Q + 0) * st + j];
            qs[m].y = rest[(SN_ROW_Q + 1) * st + j];
            qs[m].z = rest[(SN_ROW_Q + 2) * st + j];
            qs[m].w = rest[(SN_ROW_Q + 3) * st + j];
            ws[m++] = fill_at - sum;
        }
        if (sn_quat_blend(qs, ws, m, method, &r, &ignored) == SN_OK) {
            keep[0 * st + j] = (float)r.x;
            keep[1 * st + j] = (float)r.y;
            keep[2 * st + j] = (float)r.z;
            keep[3 * st + j] = (float)r.w;
        } else {
            keep[0 * st + j] = NAN; /* a zero rotation in a layer: the nlerp of sn_pose_blend stays */
        }
    }
    status = sn_pose_blend(out, layers, n, threshold, err);
    if (status != SN_OK) return status;
    for (j = 0; j < out->count; j++) {
        if (keep[j] != keep[j]) continue;
        for (k = 0; k < 4; k++) out->ch[(SN_ROW_Q + k) * st + j] = keep[k * st + j];
    }
    return SN_OK;
}
