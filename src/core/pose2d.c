/*
 * 2-D poses: the animation pose of every bone of a 2-D rig (6 numbers a bone: x, y, rotation,
 * skew, scale x, scale y; rest 0, 0, 0, 0, 1, 1), and the verbs the animator blends them with.
 *
 * - Blend: a weighted average per bone (weights times the bone's mask weight), with the rest
 *   pose filling in up to `threshold` where the total weight is below it (as the 3-D blend);
 *   rotation and skew along the shorter arc from the first pose that weighs on the bone, scales
 *   as weighted averages (DragonBones' blending around 1 with weights summing to 1). One pose of
 *   weight 1 is copied exactly.
 * - Delta and add: translations and angles as differences (angles along the shorter arc),
 *   scales as ratios: add scales by 1 + w (ratio - 1).
 */
#include <math.h>
#include <string.h>

#include "rig2d_internal.h"

void sn_pose2d_rest(double *p, int bones) {
    for (int b = 0; b < bones; b++) {
        double *q = p + 6 * b;
        q[0] = q[1] = q[2] = q[3] = 0.0;
        q[4] = q[5] = 1.0;
    }
}

sn_status sn_pose2d_blend(double *out, int bones, const double *const *poses, const double *weights,
                          const double *const *masks, int n, double threshold, sn_error *err) {
    for (int i = 0; i < n; i++)
        if (!sn_isfinite(weights[i]) || weights[i] < 0.0)
            return sn_fail_arg(err, 3, SN_EINVAL, "weight %d is not a finite number >= 0", i + 1);
    if (!(threshold > 0.0) || !sn_isfinite(threshold))
        return sn_fail_arg(err, 5, SN_EINVAL, "threshold must be a finite number above 0");
    for (int b = 0; b < bones; b++) {
        double total = 0.0;
        int first = -1, count = 0;
        for (int i = 0; i < n; i++) {
            double w = weights[i] * (masks && masks[i] ? masks[i][b] : 1.0);
            if (w > 0.0) {
                total += w;
                count++;
                if (first < 0) first = i;
            }
        }
        double *o = out + 6 * b;
        if (first < 0) { /* nothing weighs on the bone: the rest pose */
            o[0] = o[1] = o[2] = o[3] = 0.0;
            o[4] = o[5] = 1.0;
            continue;
        }
        double fill = total < threshold ? threshold - total : 0.0;
        double inv = 1.0 / (total + fill);
        const double *f = poses[first] + 6 * b;
        if (fill == 0.0 && count == 1) { /* one pose weighs alone: itself, exactly */
            if (o != f) memcpy(o, f, 6 * sizeof(double));
            continue;
        }
        double x = 0.0, y = 0.0, r = 0.0, k = 0.0, sx = fill, sy = fill; /* the rest: 0s and scale 1 */
        double r0 = f[2], k0 = f[3];
        for (int i = 0; i < n; i++) {
            double w = weights[i] * (masks && masks[i] ? masks[i][b] : 1.0);
            if (!(w > 0.0)) continue;
            const double *p = poses[i] + 6 * b;
            x += w * p[0];
            y += w * p[1];
            r += w * r2_normalize(p[2] - r0);
            k += w * r2_normalize(p[3] - k0);
            sx += w * p[4];
            sy += w * p[5];
        }
        /* the rest's angle 0, along the shorter arc too */
        r += fill * r2_normalize(0.0 - r0);
        k += fill * r2_normalize(0.0 - k0);
        o[0] = x * inv;
        o[1] = y * inv;
        o[2] = r0 + r * inv;
        o[3] = k0 + k * inv;
        o[4] = sx * inv;
        o[5] = sy * inv;
    }
    return SN_OK;
}

void sn_pose2d_delta(double *out, const double *p, const double *ref, int bones) {
    for (int b = 0; b < bones; b++) {
        const double *a = p + 6 * b, *c = ref + 6 * b;
        double *o = out + 6 * b;
        o[0] = a[0] - c[0];
        o[1] = a[1] - c[1];
        o[2] = r2_normalize(a[2] - c[2]);
        o[3] = r2_normalize(a[3] - c[3]);
        o[4] = c[4] != 0.0 ? a[4] / c[4] : 1.0;
        o[5] = c[5] != 0.0 ? a[5] / c[5] : 1.0;
    }
}

void sn_pose2d_add(double *p, const double *delta, double weight, const double *mask, int bones) {
    for (int b = 0; b < bones; b++) {
        double w = weight * (mask ? mask[b] : 1.0);
        if (w == 0.0) continue;
        const double *d = delta + 6 * b;
        double *o = p + 6 * b;
        o[0] += w * d[0];
        o[1] += w * d[1];
        o[2] += w * d[2];
        o[3] += w * d[3];
        o[4] *= 1.0 + w * (d[4] - 1.0);
        o[5] *= 1.0 + w * (d[5] - 1.0);
    }
}
