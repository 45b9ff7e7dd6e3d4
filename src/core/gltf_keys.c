/*
 * sinew core: the key work of glTF animation import (see gltf.h, "Animation keys"): key times
 * checked, rotation keys made unit and kept in one hemisphere, and keys added on the slerp arc
 * of LINEAR rotation tracks, which glTF interpolates by slerp and sinew by nlerp.
 *
 * Every step is computed in double from the file's floats, in the order lua/sinew/gltf/clips.lua
 * computed it before these functions existed (the clips made are the same bit for bit: see
 * spec/gltf_keys_spec.lua): the unit keys stay doubles until they are written as floats.
 */
#include <math.h>

#include "gltf.h"
#include "quat.h"

int sn_gltf_key_times_check(const float *times, size_t n, size_t *at) {
    size_t k;
    *at = 0;
    for (k = 0; k < n; k++)
        if (!isfinite(times[k])) {
            *at = k;
            return SN_GLTF_TIMES_NOT_FINITE;
        }
    if (n > 0 && times[0] < 0.0f) return SN_GLTF_TIMES_NEGATIVE;
    for (k = 1; k < n; k++)
        if (times[k] <= times[k - 1]) {
            *at = k;
            return SN_GLTF_TIMES_NOT_INCREASING;
        }
    return SN_GLTF_TIMES_OK;
}

int sn_gltf_unit_rotations(const float *values, size_t keys, double *unit, size_t *at) {
    size_t k;
    for (k = 0; k < keys; k++) {
        const double x = values[4 * k], y = values[4 * k + 1], z = values[4 * k + 2], w = values[4 * k + 3];
        const double l = sqrt(x * x + y * y + z * z + w * w);
        double *u = unit + 4 * k;
        if (!(l > 1e-12) || l == HUGE_VAL) { /* NaN fails the first test */
            *at = k;
            return 0;
        }
        u[0] = x / l, u[1] = y / l, u[2] = z / l, u[3] = w / l;
        if (k > 0 && u[-4] * u[0] + u[-3] * u[1] + u[-2] * u[2] + u[-1] * u[3] < 0.0)
            u[0] = -u[0], u[1] = -u[1], u[2] = -u[2], u[3] = -u[3];
    }
    return 1;
}

/* the pieces the interval from key k to key k + 1 is cut into: 1 (kept whole) when nlerp follows
   slerp within the widest angle, or when the pieces would be closer than float32 key times can
   tell apart */
static double pieces(const float *times, const double *unit, size_t k, double widest, double near) {
    const double *a = unit + 4 * k, *b = a + 4;
    const double d = fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
    double s, w, p, t1;
    if (d > near) return 1.0; /* surely within the widest angle: no atan2 for most keys */
    s = 1.0 - d * d;
    w = atan2(sqrt(s > 0.0 ? s : 0.0), d);
    if (!(w > widest)) return 1.0;
    p = ceil(w / widest);
    t1 = fabs((double)times[k + 1]);
    if (((double)times[k + 1] - (double)times[k]) / p >= 1e-6 * (t1 > 1.0 ? t1 : 1.0)) return p;
    return 1.0;
}

/* the widest angle used (at least SN_GLTF_SLERP_MIN_WIDEST; NaN gives that too), and a cosine
   above which two keys' |dot| surely means an angle within it (a margin of 1e-9 over the cosine,
   far past atan2's rounding: the keys cut are the same as by atan2 alone) */
static double widest_used(double widest, double *near) {
    if (!(widest >= SN_GLTF_SLERP_MIN_WIDEST)) widest = SN_GLTF_SLERP_MIN_WIDEST;
    *near = cos(widest) + 1e-9;
    return widest;
}

size_t sn_gltf_slerp_added(const float *times, const double *unit, size_t keys, double widest) {
    size_t k, added = 0;
    double near;
    widest = widest_used(widest, &near);
    for (k = 0; k + 1 < keys; k++) added += (size_t)pieces(times, unit, k, widest, near) - 1;
    return added;
}

sn_status sn_gltf_slerp_fill(const float *times, const double *unit, size_t keys, double widest, float *out_times,
                             float *out_values, size_t room, sn_error *err) {
    size_t k, at = 0;
    int i;
    double near;
    if (keys == 0) return SN_OK;
    if (room < keys + sn_gltf_slerp_added(times, unit, keys, widest))
        return sn_fail(err, SN_ENOMEM, "room for %lu keys is too little", (unsigned long)room);
    widest = widest_used(widest, &near);
    out_times[0] = times[0];
    for (i = 0; i < 4; i++) out_values[i] = (float)unit[i];
    for (k = 0; k + 1 < keys; k++) {
        const double n = pieces(times, unit, k, widest, near), t0 = times[k], t1 = times[k + 1];
        const double *b = unit + 4 * (k + 1);
        double m;
        for (m = 1.0; m < n; m += 1.0) {
            const double f = m / n;
            const double *a = unit + 4 * k;
            sn_quat qa, qb, q;
            qa.x = a[0], qa.y = a[1], qa.z = a[2], qa.w = a[3];
            qb.x = b[0], qb.y = b[1], qb.z = b[2], qb.w = b[3];
            if (sn_quat_slerp(&qa, &qb, f, &q, err) != SN_OK) return err->code; /* unit inputs: never */
            at++;
            out_times[at] = (float)(t0 + f * (t1 - t0));
            out_values[4 * at] = (float)q.x, out_values[4 * at + 1] = (float)q.y;
            out_values[4 * at + 2] = (float)q.z, out_values[4 * at + 3] = (float)q.w;
        }
        at++;
        out_times[at] = times[k + 1];
        for (i = 0; i < 4; i++) out_values[4 * at + i] = (float)b[i];
    }
    return SN_OK;
}
