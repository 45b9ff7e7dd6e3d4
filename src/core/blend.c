/*
 * N-layer pose blending, channel by channel over contiguous float arrays.
 *
 * Every loop below runs over one or a few structure-of-arrays channels with restrict pointers
 * and no dependency between joints, so that gcc and clang vectorise them at -O3 with baseline
 * SSE2. The hemisphere alignment of a layer's rotations is a per-joint sign (the sign of the
 * dot product with the rotation accumulated so far), computed in the same pass as the sum.
 * The accumulators live in the output pose's own scratch rows, so the output may be a layer.
 */
#include <math.h>
#include <string.h>

#include "pose_internal.h"

/* The kernels stay separate functions: inlined into sn_pose_blend, gcc loses their restrict
   guarantees (output and scratch come from the same pose) and falls back to scalar loops. */
#if defined(__GNUC__)
#define KERNEL static __attribute__((noinline)) void
#else
#define KERNEL static void
#endif

/* acc = w * src */
KERNEL lin_first(float *restrict acc, const float *restrict src, float w, int n) {
    int j;
    for (j = 0; j < n; j++) acc[j] = w * src[j];
}

/* acc = w * mask * src */
KERNEL lin_first_masked(float *restrict acc, const float *restrict src, const float *restrict mask, float w,
                             int n) {
    int j;
    for (j = 0; j < n; j++) acc[j] = (w * mask[j]) * src[j];
}

/* acc += w * src */
KERNEL lin_add(float *restrict acc, const float *restrict src, float w, int n) {
    int j;
    for (j = 0; j < n; j++) acc[j] += w * src[j];
}

/* acc += w * mask * src */
KERNEL lin_add_masked(float *restrict acc, const float *restrict src, const float *restrict mask, float w,
                           int n) {
    int j;
    for (j = 0; j < n; j++) acc[j] += (w * mask[j]) * src[j];
}

/* acc_q += (+-w) q, the sign putting q in the hemisphere of acc_q */
KERNEL rot_add(float *restrict ax, float *restrict ay, float *restrict az, float *restrict aw,
                    const float *restrict qx, const float *restrict qy, const float *restrict qz,
                    const float *restrict qw, float w, int n) {
    int j;
    for (j = 0; j < n; j++) {
        float d = ax[j] * qx[j] + ay[j] * qy[j] + az[j] * qz[j] + aw[j] * qw[j];
        float s = d < 0.0f ? -w : w;
        ax[j] += s * qx[j];
        ay[j] += s * qy[j];
        az[j] += s * qz[j];
        aw[j] += s * qw[j];
    }
}

/* the same with the weight w * mask */
KERNEL rot_add_masked(float *restrict ax, float *restrict ay, float *restrict az, float *restrict aw,
                           const float *restrict qx, const float *restrict qy, const float *restrict qz,
                           const float *restrict qw, const float *restrict mask, float w, int n) {
    int j;
    for (j = 0; j < n; j++) {
        float d = ax[j] * qx[j] + ay[j] * qy[j] + az[j] * qz[j] + aw[j] * qw[j];
        float wm = w * mask[j];
        float s = d < 0.0f ? -wm : wm;
        ax[j] += s * qx[j];
        ay[j] += s * qy[j];
        az[j] += s * qz[j];
        aw[j] += s * qw[j];
    }
}

/* fill = max(threshold - (base + wsum), 0), inv = 1 / (base + wsum + fill); wsum may be NULL */
KERNEL weights_finish(float *restrict fill, float *restrict inv, const float *restrict wsum, float base,
                           float threshold, int n) {
    int j;
    for (j = 0; j < n; j++) {
        float w = base + (wsum != NULL ? wsum[j] : 0.0f);
        float f = threshold - w > 0.0f ? threshold - w : 0.0f;
        fill[j] = f;
        inv[j] = 1.0f / (w + f);
    }
}

/* out = (acc + fill * rest) * inv */
KERNEL lin_finish(float *restrict out, const float *restrict acc, const float *restrict rest,
                       const float *restrict fill, const float *restrict inv, int n) {
    int j;
    for (j = 0; j < n; j++) out[j] = (acc[j] + fill[j] * rest[j]) * inv[j];
}

/* out = acc + w * src: the last layer of blend_uniform */
KERNEL lin_last(float *restrict out, const float *restrict acc, const float *restrict src, float w, int n) {
    int j;
    for (j = 0; j < n; j++) out[j] = acc[j] + w * src[j];
}

/* out_q = normalise(acc_q +- fill * rest_q); a zero sum (only from zero input rotations) stays
   zero. Selects around sqrtf stop gcc from vectorising, hence the 1e-30 instead of a test. */
KERNEL rot_finish(float *restrict ox, float *restrict oy, float *restrict oz, float *restrict ow,
                       const float *restrict ax, const float *restrict ay, const float *restrict az,
                       const float *restrict aw, const float *restrict rx, const float *restrict ry,
                       const float *restrict rz, const float *restrict rw, const float *restrict fill, int n) {
    int j;
    for (j = 0; j < n; j++) {
        float d = ax[j] * rx[j] + ay[j] * ry[j] + az[j] * rz[j] + aw[j] * rw[j];
        float s = d < 0.0f ? -fill[j] : fill[j];
        float x = ax[j] + s * rx[j], y = ay[j] + s * ry[j], z = az[j] + s * rz[j], w = aw[j] + s * rw[j];
        float k = 1.0f / sqrtf(x * x + y * y + z * z + w * w + 1e-30f); /* no branch: it vectorises */
        ox[j] = x * k;
        oy[j] = y * k;
        oz[j] = z * k;
        ow[j] = w * k;
    }
}

/* out_q = normalise(acc_q +- w q): rot_add and the normalisation in one pass */
KERNEL rot_last(float *restrict ox, float *restrict oy, float *restrict oz, float *restrict ow,
                const float *restrict ax, const float *restrict ay, const float *restrict az, const float *restrict aw,
                const float *restrict qx, const float *restrict qy, const float *restrict qz, const float *restrict qw,
                float w, int n) {
    int j;
    for (j = 0; j < n; j++) {
        float d = ax[j] * qx[j] + ay[j] * qy[j] + az[j] * qz[j] + aw[j] * qw[j];
        float s = d < 0.0f ? -w : w;
        float x = ax[j] + s * qx[j], y = ay[j] + s * qy[j], z = az[j] + s * qz[j], v = aw[j] + s * qw[j];
        float k = 1.0f / sqrtf(x * x + y * y + z * z + v * v + 1e-30f);
        ox[j] = x * k;
        oy[j] = y * k;
        oz[j] = z * k;
        ow[j] = v * k;
    }
}

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

/* rows of a pose block (see SN_ROW): the six linear rows, then the four rotation rows */
#define LIN_ROWS 6
#define Q(base, k) ((base) + (SN_ROW_Q + (k)) * st)

/* Adds layer `l` into the accumulators; `first` writes instead of adding. */
static void accumulate(float *acc, const sn_blend_layer *l, int first, int st) {
    const float *src = l->pose->ch, *m = l->mask != NULL ? l->mask->w : NULL;
    float w = l->weight;
    int r;
    if (first && m == NULL) {
        lin_first(acc, src, w, SN_POSE_CHANNELS * st);
    } else if (first) {
        for (r = 0; r < SN_POSE_CHANNELS; r++) lin_first_masked(acc + r * st, src + r * st, m, w, st);
    } else if (m == NULL) {
        lin_add(acc, src, w, LIN_ROWS * st);
        rot_add(Q(acc, 0), Q(acc, 1), Q(acc, 2), Q(acc, 3), Q(src, 0), Q(src, 1), Q(src, 2), Q(src, 3), w, st);
    } else {
        for (r = 0; r < LIN_ROWS; r++) lin_add_masked(acc + r * st, src + r * st, m, w, st);
        rot_add_masked(Q(acc, 0), Q(acc, 1), Q(acc, 2), Q(acc, 3), Q(src, 0), Q(src, 1), Q(src, 2), Q(src, 3), m, w,
                       st);
    }
}

/* The common case: at least two unmasked layers, total weight above the threshold, the output
   not among the layers. Weights are multiplied by k = 1 / their sum up front and the last layer
   writes the output directly, normalising rotations in the same pass: one pass per layer,
   nothing after. */
static void blend_uniform(sn_pose *out, const sn_blend_layer *layers, int n, double k) {
    const int st = out->stride;
    float *acc = out->acc, *o = out->ch;
    int i, last = n - 1, first = 1;
    while (layers[last].weight == 0.0f) last--;
    for (i = 0; i < last; i++) {
        sn_blend_layer l = layers[i];
        if (l.weight == 0.0f) continue;
        l.weight = (float)(l.weight * k);
        accumulate(acc, &l, first, st);
        first = 0;
    }
    {
        const float *src = layers[last].pose->ch;
        float w = (float)(layers[last].weight * k);
        lin_last(o, acc, src, w, LIN_ROWS * st);
        rot_last(Q(o, 0), Q(o, 1), Q(o, 2), Q(o, 3), Q(acc, 0), Q(acc, 1), Q(acc, 2), Q(acc, 3), Q(src, 0), Q(src, 1),
                 Q(src, 2), Q(src, 3), w, st);
    }
}

sn_status sn_pose_blend(sn_pose *out, const sn_blend_layer *layers, int n, float threshold, sn_error *err) {
    const int st = out->stride;
    float *acc = out->acc, *o = out->ch, *wsum = acc + SN_POSE_ACC_W * st;
    float *fill = acc + SN_POSE_ACC_FILL * st, *inv = acc + SN_POSE_ACC_INV * st;
    const float *rest = sn_skeleton_rest_soa(out->skeleton);
    float uniform = 0.0f; /* total (scaled) weight of the unmasked layers */
    double total = 0.0, scale;
    int i, r, first = 1, masked = 0, active = 0, aliased = 0;
    sn_status status = sn_pose_blend_validate(out, layers, n, threshold, err);
    if (status != SN_OK) return status;
    /* The weights and the threshold are scaled together so that the larger of the weights' sum
       and the threshold is 1: the blend (sum w x + fill rest) / (sum w + fill) with
       fill = max(threshold - sum w, 0) does not change, but no sum of weighted values can
       overflow float, and neither can a huge threshold nor underflow a tiny one. Every joint's
       total weight is then at least the scaled threshold, which is kept at SN_BLEND_MIN_FILL or
       more so that its rotation sum normalises to a unit quaternion. */
    for (i = 0; i < n; i++) total += layers[i].weight;
    scale = 1.0 / (total > threshold ? total : (double)threshold);
    threshold = (float)(threshold * scale);
    if (threshold < SN_BLEND_MIN_FILL) threshold = SN_BLEND_MIN_FILL;
    for (i = 0; i < n; i++) {
        if (layers[i].weight == 0.0f) continue;
        active++;
        aliased |= layers[i].pose == out;
        if (layers[i].mask != NULL) masked = 1;
        else uniform += (float)(layers[i].weight * scale);
    }
    if (active >= 2 && !masked && !aliased && uniform >= threshold) {
        blend_uniform(out, layers, n, scale / uniform);
        return SN_OK;
    }
    masked = 0;
    for (i = 0; i < n; i++) {
        sn_blend_layer l = layers[i];
        if (l.weight == 0.0f) continue;
        l.weight = (float)(l.weight * scale);
        accumulate(acc, &l, first, st);
        first = 0;
        if (l.mask != NULL) {
            if (masked) lin_add(wsum, l.mask->w, l.weight, st);
            else lin_first(wsum, l.mask->w, l.weight, st);
            masked = 1;
        }
    }
    if (first) memset(acc, 0, sizeof(float) * SN_POSE_CHANNELS * (size_t)st);
    weights_finish(fill, inv, masked ? wsum : NULL, uniform, threshold, st);
    for (r = 0; r < LIN_ROWS; r++) lin_finish(o + r * st, acc + r * st, rest + r * st, fill, inv, st);
    rot_finish(Q(o, 0), Q(o, 1), Q(o, 2), Q(o, 3), Q(acc, 0), Q(acc, 1), Q(acc, 2), Q(acc, 3), Q(rest, 0), Q(rest, 1),
               Q(rest, 2), Q(rest, 3), fill, st);
    return SN_OK;
}

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
