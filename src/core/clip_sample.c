/*
 * Clips, sampling: moving each group's cursor to the time sampled, then computing the values of
 * all its tracks in vectorised loops over the lanes, into the pose. See clip_internal.h for the
 * design; construction is in clip_build.c.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "clip_internal.h"

#if defined(__GNUC__)
#define KERNEL static __attribute__((noinline)) void
#else
#define KERNEL static void
#endif

static const int path_row[3] = {SN_ROW_T, SN_ROW_Q, SN_ROW_S};

/* the first output row of `path` in pose `out` (the morph weights for SN_CLIP_WEIGHT), and the
   floats between its rows in *ost */
static float *path_rows(sn_pose *out, int path, int *ost) {
    if (path == SN_CLIP_WEIGHT) {
        *ost = out->morph_stride;
        return out->mw;
    }
    *ost = out->stride;
    return out->ch + path_row[path] * out->stride;
}

/* Shared times: the interval of lo .. hi holding t, the last one starting at or before t (lane 0
   stands for all lanes; the first interval starts at -inf), by bisection */
static int interval_in(const clip_group *g, float t, int lo, int hi) {
    const size_t rec = (size_t)g->rows * (size_t)g->np;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (g->block[(size_t)mid * rec] <= t) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

static int interval_at(const clip_group *g, float t) { return interval_in(g, t, 0, g->intervals - 1); }

/* Shared times, for sn_clip_sample_joint, which has no cursor to start from: the interval holding
   t, first guessed from t's place between the first and last key times (right away for keys at a
   steady rate, as exporters bake them), then searched on the side where t lies. Interval c holds t
   when its bounds do (lo <= t < hi, the bounds of neighbours shared): the one interval_at finds. */
static int interval_guess(const clip_group *g, float t) {
    const size_t rec = (size_t)g->rows * (size_t)g->np, np = (size_t)g->np;
    const int last = g->intervals - 1;
    const float first_t = g->block[2 * np], last_t = g->block[(size_t)last * rec + 2 * np];
    const float *b;
    float x;
    int c;
    if (last == 0) return 0;
    x = (t - first_t) / (last_t - first_t) * (float)last; /* last_t > first_t: keys increase */
    c = x >= 0.0f ? (x < (float)last ? (int)x : last) : 0;  /* NaN cannot happen; clamped first */
    b = g->block + (size_t)c * rec;
    if (t < b[0]) return interval_in(g, t, 0, c - 1);
    if (t >= b[np]) return interval_in(g, t, c + 1, last);
    return c;
}

/* Shared times: points the cache at the interval holding t. */
static void seek_shared(clip_group *g, float t) {
    const size_t rec = (size_t)g->rows * (size_t)g->np, np = (size_t)g->np;
    const float *cache = g->cache;
    int c = (int)((size_t)(cache - g->block) / rec);
    if (t >= cache[np] && c < g->intervals - 1 && t < cache[rec + np]) c++; /* the next interval: forward playback */
    else c = interval_at(g, t);
    g->cache = g->block + (size_t)c * rec;
}


/* ---- keyed groups: a cursor per track ------------------------------------------------------ */

/* writes the payload of entry `e` (m floats) into its column of the cache, rows `rs` floats apart */
static inline void apply_entry(float *restrict cache, size_t rs, const clip_word *restrict e, int m) {
    float *col = cache + e[1].i;
    int j;
    for (j = 0; j < m; j++) col[(size_t)j * rs] = e[2 + j].f;
}

/* writes a payload of m floats into column `col` of the cache, rows `rs` floats apart */
static inline void apply_payload(float *restrict cache, size_t rs, int col, const float *restrict v, int m) {
    int j;
    for (j = 0; j < m; j++) cache[(size_t)j * rs + (size_t)col] = v[j];
}

/* applies the entries from `e` on while they are needed at or before t; returns the first one
   left (the last entry, needed at +inf, stops it) */
static inline const clip_word *consume(float *restrict cache, size_t rs, const clip_word *e, float t, int m) {
    while (e[0].f <= t) {
        apply_entry(cache, rs, e, m);
        e += 2 + m;
    }
    return e;
}

/* consume() with a constant payload for the compiler to unroll */
static const clip_word *consume_any(float *restrict cache, size_t rs, const clip_word *e, float t, int m) {
    switch (m) {
    case 3: return consume(cache, rs, e, t, 3);   /* step translation, scale */
    case 4: return consume(cache, rs, e, t, 4);   /* linear translation, scale; step rotation */
    case 5: return consume(cache, rs, e, t, 5);   /* linear rotation */
    case 10: return consume(cache, rs, e, t, 10); /* cubic translation, scale */
    default: return consume(cache, rs, e, t, m);  /* cubic rotation */
    }
}

/* Keyed, any time: for every lane, the payloads of its keys around t (the latest `depth` needed
   at or before t, found by bisection over the lane's need times, the first `depth` of which are
   -inf; read from the lane's own copy, where they are next to each other), and `pos` past every
   entry needed at or before t. Gives the cache the same contents as forward playback to t. */
static inline void seek_lanes(clip_group *g, float t, int m) {
    const int e = 2 + m, d = g->depth;
    const size_t rs = (size_t)d * (size_t)g->np;
    int i, j, lo, hi;
    for (i = 0; i < g->n; i++) {
        const float *need = g->need + g->first[i], *keys = g->keys + (size_t)g->first[i] * (size_t)m;
        lo = d - 1;
        hi = g->count[i] - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (need[mid] <= t) lo = mid;
            else hi = mid - 1;
        }
        for (j = lo - d + 1; j <= lo; j++) /* key j goes to slot j & 1 */
            apply_payload(g->cache, rs, i + (j & (d - 1)) * g->np, keys + (size_t)j * (size_t)m, m);
    }
    lo = 0;
    hi = g->total;
    while (lo < hi) { /* the first entry needed after t */
        int mid = (lo + hi) / 2;
        if (g->stream[(size_t)mid * (size_t)e].f <= t) lo = mid + 1;
        else hi = mid;
    }
    g->pos = lo;
}

/* seek_lanes() with a constant payload for the compiler to unroll */
void sn_clip_seek_keyed(clip_group *g, float t) {
    switch (g->rows) {
    case 3: seek_lanes(g, t, 3); break;
    case 4: seek_lanes(g, t, 4); break;
    case 5: seek_lanes(g, t, 5); break;
    case 10: seek_lanes(g, t, 10); break;
    default: seek_lanes(g, t, g->rows); break;
    }
}

/* Keyed, forward playback: the entries needed up to t, in the order they come in the stream
   (sequential reads). Going back (a loop wrapping around, say) starts again from the beginning
   of the stream, where every lane's first keys are, when t is near it; a jump past more entries
   than a search costs re-searches. */
static void advance_keyed(clip_group *g, float t) {
    const int e = 2 + g->rows, back = t < g->tprev, from = back ? 0 : g->pos;
    const int far = (back ? g->depth * g->n : g->pos) + 2 * g->n;
    if (g->stream[(size_t)(far < g->total ? far : g->total) * (size_t)e].f <= t) {
        sn_clip_seek_keyed(g, t);
    } else {
        const clip_word *at = g->stream + (size_t)from * (size_t)e;
        at = consume_any(g->cache, (size_t)g->depth * (size_t)g->np, at, t, g->rows);
        g->pos = (int)((at - g->stream) / e);
    }
    g->tprev = t;
}

const sn_skeleton *sn_clip_skeleton(const sn_clip *c) { return c->skeleton; }

float sn_clip_duration(const sn_clip *c) { return c->duration; }

int sn_clip_track_count(const sn_clip *c) { return c->track_count; }

double sn_clip_local_time(const sn_clip *c, double t, int loop) {
    double d = c->duration;
    if (!loop) return t < 0.0 ? 0.0 : t > d ? d : t;
    if (t >= 0.0 && t < d) return t; /* what fmod gives there, without its cost */
    if (d <= 0.0) return 0.0;
    t = fmod(t, d); /* exact */
    if (t < 0.0) t += d;
    return t < d ? t : 0.0;
}

/* ---- the per-frame kernels: vectorised loops over the lanes -------------------------------- */

KERNEL cubic_row_s(float *restrict o, const float *restrict p0, const float *restrict m0, const float *restrict dp,
                   const float *restrict m1, float h10, float h01, float h11, int n) {
    int i;
    for (i = 0; i < n; i++) o[i] = p0[i] + h10 * m0[i] + h01 * dp[i] + h11 * m1[i];
}

/* shared times, linear translations or scales: o = v0 + s dv for the three rows at once */
KERNEL lerp_rows3(float *restrict ox, float *restrict oy, float *restrict oz, const float *restrict c, float s,
                  int np, int n) {
    const float *x = c, *y = c + np, *z = c + 2 * np, *dx = c + 3 * np, *dy = c + 4 * np, *dz = c + 5 * np;
    int i;
    for (i = 0; i < n; i++) {
        ox[i] = x[i] + s * dx[i];
        oy[i] = y[i] + s * dy[i];
        oz[i] = z[i] + s * dz[i];
    }
}

/* shared times, linear weights: o = v0 + s dv */
KERNEL lerp_rows1(float *restrict o, const float *restrict c, float s, int np, int n) {
    const float *x = c, *dx = c + np;
    int i;
    for (i = 0; i < n; i++) o[i] = x[i] + s * dx[i];
}

/* shared times, linear rotations: nlerp of the four rows at once; the lanes flagged 0 in
   `animated` (rest values, dv 0) are left exactly as they are (see normalize_rows) */
KERNEL nlerp_rows(float *restrict ox, float *restrict oy, float *restrict oz, float *restrict ow,
                  const float *restrict c, float s, const float *restrict animated, int np, int n) {
    const float *x = c, *y = c + np, *z = c + 2 * np, *w = c + 3 * np, *dx = c + 4 * np, *dy = c + 5 * np,
                *dz = c + 6 * np, *dw = c + 7 * np;
    int i;
    for (i = 0; i < n; i++) {
        const float qx = x[i] + s * dx[i], qy = y[i] + s * dy[i], qz = z[i] + s * dz[i], qw = w[i] + s * dw[i];
        float k = 1.0f / sqrtf(qx * qx + qy * qy + qz * qz + qw * qw + 1e-30f);
        k = 1.0f + animated[i] * (k - 1.0f);
        ox[i] = qx * k;
        oy[i] = qy * k;
        oz[i] = qz * k;
        ow[i] = qw * k;
    }
}

/* A cubic-spline rotation can pass through zero between two valid keys (tangents that cancel
   the values); where its length is below 1e-6 the identity is used instead (a branch-free add
   to w, so that the loops still vectorise). */
#define CUBIC_ZERO_TO_IDENTITY(x, y, z, w) ((w) += ((x) * (x) + (y) * (y) + (z) * (z) + (w) * (w) < 1e-12f ? 1.0f : 0.0f))

/* normalises the quaternions of the lanes flagged 1 in `animated` in place (a zero one becomes
   the identity, see CUBIC_ZERO_TO_IDENTITY) and leaves those flagged 0 (rest values) exactly as
   they are. Arithmetic rather than a select around sqrtf, so that the loop vectorises. */
KERNEL normalize_rows(float *restrict x, float *restrict y, float *restrict z, float *restrict w,
                      const float *restrict animated, int n) {
    int i;
    for (i = 0; i < n; i++) {
        float qw = w[i], k;
        CUBIC_ZERO_TO_IDENTITY(x[i], y[i], z[i], qw); /* rest lanes are unit: unchanged */
        w[i] = qw;
        k = 1.0f / sqrtf(x[i] * x[i] + y[i] * y[i] + z[i] * z[i] + w[i] * w[i] + 1e-30f);
        k = 1.0f + animated[i] * (k - 1.0f);
        x[i] *= k;
        y[i] *= k;
        z[i] *= k;
        w[i] *= k;
    }
}

/* Keyed groups. The cache rows hold, per lane, key A in slot 0 (the first np floats of a row)
   and key B in slot 1 (the next np); either may be the earlier. The fraction s of t from A's time
   to B's, clamped to [0, 1], is exactly 0 at A's time and 1 at B's (x / x is 1) and 0 for a lane
   whose B is at +inf (a one-key track, a padding lane); (1 - s) A + s B then hits both keys
   exactly, and the Hermite form is the same from either end (h00(1 - s) = h01(s), h10(1 - s) =
   -h11(s), and the interval length changes sign). The fractions go through a scratch row: with
   the clamp in the same loop, gcc's partial redundancy elimination leaves branches that stop
   it vectorising. */
KERNEL slot_fractions(float *restrict s, const float *restrict ta, const float *restrict tb, float t, int n) {
    int i;
    for (i = 0; i < n; i++) {
        float a = (t - ta[i]) / (tb[i] - ta[i]);
        a = a > 0.0f ? a : 0.0f;
        s[i] = a < 1.0f ? a : 1.0f;
    }
}

/* linear translations or scales: the cache holds the keys' times in row 0, values in rows 1-3 */
KERNEL keyed_lerp3(float *restrict ox, float *restrict oy, float *restrict oz, const float *restrict c,
                   const float *restrict s, int np, int n) {
    const float *xa = c + 2 * np, *xb = c + 3 * np, *ya = c + 4 * np, *yb = c + 5 * np, *za = c + 6 * np,
                *zb = c + 7 * np;
    int i;
    for (i = 0; i < n; i++) {
        const float b = s[i], a = 1.0f - b;
        ox[i] = a * xa[i] + b * xb[i];
        oy[i] = a * ya[i] + b * yb[i];
        oz[i] = a * za[i] + b * zb[i];
    }
}

/* linear weights: the cache holds the keys' times in row 0, values in row 1 */
KERNEL keyed_lerp1(float *restrict o, const float *restrict c, const float *restrict s, int np, int n) {
    const float *xa = c + 2 * np, *xb = c + 3 * np;
    int i;
    for (i = 0; i < n; i++) {
        const float b = s[i], a = 1.0f - b;
        o[i] = a * xa[i] + b * xb[i];
    }
}

/* linear rotations (nlerp; the keys are in one hemisphere): the times in row 0, x, y, z, w in
   rows 1-4 */
KERNEL keyed_nlerp(float *restrict ox, float *restrict oy, float *restrict oz, float *restrict ow,
                   const float *restrict c, const float *restrict s, int np, int n) {
    const float *xa = c + 2 * np, *xb = c + 3 * np, *ya = c + 4 * np, *yb = c + 5 * np, *za = c + 6 * np,
                *zb = c + 7 * np, *wa = c + 8 * np, *wb = c + 9 * np;
    int i;
    for (i = 0; i < n; i++) {
        const float b = s[i], a = 1.0f - b;
        const float x = a * xa[i] + b * xb[i], y = a * ya[i] + b * yb[i], z = a * za[i] + b * zb[i],
                    w = a * wa[i] + b * wb[i];
        const float k = 1.0f / sqrtf(x * x + y * y + z * z + w * w + 1e-30f);
        ox[i] = x * k;
        oy[i] = y * k;
        oz[i] = z * k;
        ow[i] = w * k;
    }
}

/* The Hermite weights of lane i at its fraction s, with h10 and h11 times the signed interval
   length (capped, so that a lane whose B is at +inf, where s is 0 and so are they, gives 0), and
   fa = 1, fb = 0 when A is the earlier key, which then brings its out-tangent and B its
   in-tangent, else fa = 0, fb = 1. The tangents are picked by fa x + fb y, exact for finite
   values: gcc does not vectorise the loop with selects there. */
#define HERMITE_WEIGHTS(i)                                                                 \
    const float u = s[i], u2 = u * u, u3 = u2 * u, ti = ta[i], tj = tb[i];               \
    const float dt = tj - ti, dtc = dt < FLT_MAX ? dt : FLT_MAX;                           \
    const float h00 = 2.0f * u3 - 3.0f * u2 + 1.0f, h01 = 3.0f * u2 - 2.0f * u3;          \
    const float g10 = (u3 - 2.0f * u2 + u) * dtc, g11 = (u3 - u2) * dtc;                   \
    const float fa = ti <= tj ? 1.0f : 0.0f, fb = 1.0f - fa

/* one component of the Hermite sum for lane i: value p, in-tangent in and out-tangent out, each
   a row of two slots (A at i, B at np + i); fa/fb pick key A's out-tangent and key B's in-tangent
   when A is the earlier key, the other way round when B is */
static inline float hermite_row(const float *restrict p, const float *restrict in, const float *restrict out,
                                int i, int np, float h00, float g10, float h01, float g11, float fa, float fb) {
    return h00 * p[i] + g10 * (fa * out[i] + fb * in[i]) + h01 * p[np + i] + g11 * (fa * in[np + i] + fb * out[np + i]);
}

/* cubic weights: the times in row 0, the values in row 1, the in-tangents in 2, the out-tangents
   in 3 */
KERNEL keyed_cubic1(float *restrict o, const float *restrict c, const float *restrict s, int np, int n) {
    const size_t r = 2 * (size_t)np;
    const float *ta = c, *tb = c + np, *px = c + r, *ix = c + 2 * r, *qx = c + 3 * r;
    int i;
    for (i = 0; i < n; i++) {
        HERMITE_WEIGHTS(i);
        o[i] = hermite_row(px, ix, qx, i, np, h00, g10, h01, g11, fa, fb);
    }
}

/* cubic translations or scales: the times in row 0, the values in rows 1-3, the in-tangents in
   4-6, the out-tangents in 7-9 */
KERNEL keyed_cubic3(float *restrict ox, float *restrict oy, float *restrict oz, const float *restrict c,
                    const float *restrict s, int np, int n) {
    const size_t r = 2 * (size_t)np;
    const float *ta = c, *tb = c + np, *px = c + r, *py = c + 2 * r, *pz = c + 3 * r, *ix = c + 4 * r,
                *iy = c + 5 * r, *iz = c + 6 * r, *qx = c + 7 * r, *qy = c + 8 * r, *qz = c + 9 * r;
    int i;
    for (i = 0; i < n; i++) {
        HERMITE_WEIGHTS(i);
        ox[i] = hermite_row(px, ix, qx, i, np, h00, g10, h01, g11, fa, fb);
        oy[i] = hermite_row(py, iy, qy, i, np, h00, g10, h01, g11, fa, fb);
        oz[i] = hermite_row(pz, iz, qz, i, np, h00, g10, h01, g11, fa, fb);
    }
}

/* cubic rotations, normalised: the times in row 0, the values in rows 1-4, the in-tangents in
   5-8, the out-tangents in 9-12 */
KERNEL keyed_cubic4(float *restrict ox, float *restrict oy, float *restrict oz, float *restrict ow,
                    const float *restrict c, const float *restrict s, int np, int n) {
    const size_t r = 2 * (size_t)np;
    const float *ta = c, *tb = c + np, *px = c + r, *py = c + 2 * r, *pz = c + 3 * r, *pw = c + 4 * r,
                *ix = c + 5 * r, *iy = c + 6 * r, *iz = c + 7 * r, *iw = c + 8 * r, *qx = c + 9 * r,
                *qy = c + 10 * r, *qz = c + 11 * r, *qw = c + 12 * r;
    int i;
    for (i = 0; i < n; i++) {
        HERMITE_WEIGHTS(i);
        const float x = hermite_row(px, ix, qx, i, np, h00, g10, h01, g11, fa, fb);
        const float y = hermite_row(py, iy, qy, i, np, h00, g10, h01, g11, fa, fb);
        const float z = hermite_row(pz, iz, qz, i, np, h00, g10, h01, g11, fa, fb);
        float w = hermite_row(pw, iw, qw, i, np, h00, g10, h01, g11, fa, fb), k;
        CUBIC_ZERO_TO_IDENTITY(x, y, z, w);
        k = 1.0f / sqrtf(x * x + y * y + z * z + w * w + 1e-30f);
        ox[i] = x * k;
        oy[i] = y * k;
        oz[i] = z * k;
        ow[i] = w * k;
    }
}

/* computes the values of lanes 0 .. n of a keyed group (tracks `path`, `interp`) at t from the
   cache `c` (rows of depth x np floats, the cursor at t) into `width` rows at `o` (row stride
   ost); `s` is a scratch row. sn_clip_sample passes the group's own cache, sn_clip_sample_joint
   a cache of one lane (np 1). */
static void sample_keyed(int path, int interp, const float *c, int np, int n, float t, float *o, int ost, float *s) {
    const int w = width_of(path);
    int r;
    if (interp == SN_CLIP_STEP) {
        for (r = 0; r < w; r++) memcpy(o + r * ost, c + (size_t)r * (size_t)np, sizeof(float) * (size_t)n);
        return;
    }
    slot_fractions(s, c, c + np, t, n);
    if (interp == SN_CLIP_LINEAR) {
        if (w == 1) keyed_lerp1(o, c, s, np, n);
        else if (w == 3) keyed_lerp3(o, o + ost, o + 2 * ost, c, s, np, n);
        else keyed_nlerp(o, o + ost, o + 2 * ost, o + 3 * ost, c, s, np, n);
    } else {
        if (w == 1) keyed_cubic1(o, c, s, np, n);
        else if (w == 3) keyed_cubic3(o, o + ost, o + 2 * ost, c, s, np, n);
        else keyed_cubic4(o, o + ost, o + 2 * ost, o + 3 * ost, c, s, np, n);
    }
}

/* moves the cursor of `g` to t: the interval of a shared-times group, the cached keys of a keyed
   one. Done for every group before any computes, so that the keys just stored have left the
   store buffer when the vector loads read them. */
static void move_cursor(clip_group *g, float t) {
    if (!g->uniform) advance_keyed(g, t);
    else if (t < g->cache[0] || t >= g->cache[g->np]) seek_shared(g, t);
}

/* computes the values of lanes lane .. lane + n of shared-times group `g` at t, whose interval
   record `row` holds t, into `width` rows at `o` (row stride ost): sn_clip_sample passes every
   lane and the record of the group's cursor, sn_clip_sample_joint one lane and the record it
   found */
static void sample_shared(const clip_group *g, const float *row, float t, int lane, int n, float *o, int ost) {
    const int np = g->np, w = width_of(g->path);
    const float *coef = row + 4 * np + lane, *animated = g->animated + lane;
    /* one interval for all: the fraction and the Hermite weights are plain numbers (lane 0's
       times stand for every lane's) */
    float a = (t - row[2 * np]) * row[3 * np];
    int r;
    a = a < 0.0f ? 0.0f : a > 1.0f ? 1.0f : a;
    if (g->interp == SN_CLIP_LINEAR) {
        if (w == 1) lerp_rows1(o, coef, a, np, n);
        else if (w == 3) lerp_rows3(o, o + ost, o + 2 * ost, coef, a, np, n);
        else nlerp_rows(o, o + ost, o + 2 * ost, o + 3 * ost, coef, a, animated, np, n);
        return;
    } else if (g->interp == SN_CLIP_STEP) {
        for (r = 0; r < w; r++) memcpy(o + r * ost, coef + r * np, sizeof(float) * (size_t)n);
    } else {
        const float a2 = a * a, a3 = a2 * a;
        for (r = 0; r < w; r++)
            cubic_row_s(o + r * ost, coef + r * np, coef + (w + r) * np, coef + (2 * w + r) * np,
                        coef + (3 * w + r) * np, a3 - 2 * a2 + a, 3 * a2 - 2 * a3, a3 - a2, n);
    }
    if (g->path == SN_CLIP_ROTATION && g->interp != SN_CLIP_STEP)
        normalize_rows(o, o + ost, o + 2 * ost, o + 3 * ost, animated, n);
}

/* o[r * ost + joint[i]] = res[r * rst + i] for the w rows r */
KERNEL scatter(float *restrict o, int ost, const float *restrict res, int rst, const int *restrict joint, int n,
               int w) {
    int i, r;
    for (r = 0; r < w; r++)
        for (i = 0; i < n; i++) o[r * ost + joint[i]] = res[r * rst + i];
}

sn_status sn_clip_sample(sn_clip *c, double t, int loop, sn_pose *out, sn_error *err) {
    const int st = c->stride;
    const float *rest = sn_skeleton_rest_soa(c->skeleton);
    float *ch = out->ch, ft, *res = c->scratch;
    int p, g;
    if (sn_pose_skeleton(out) != c->skeleton) return sn_fail_arg(err, 2, SN_EINVAL, "pose of another skeleton");
    if (!sn_isfinite(t)) return sn_fail_arg(err, 1, SN_EINVAL, "time is not finite");
    ft = (float)sn_clip_local_time(c, t, loop);
    for (g = 0; g < c->group_count; g++)
        if (c->groups[g].n > 0) move_cursor(&c->groups[g], ft);
    for (p = 0; p < 3; p++)
        if (c->fill[p])
            memcpy(ch + path_row[p] * st, rest + path_row[p] * st, sizeof(float) * (size_t)(width_of(p) * st));
    if (c->fill[SN_CLIP_WEIGHT] && out->morph_count > 0)
        memcpy(out->mw, sn_skeleton_morph_defaults(c->skeleton), sizeof(float) * (size_t)out->morph_stride);
    for (g = 0; g < c->group_count; g++) {
        const clip_group *gr = &c->groups[g];
        int pst;
        float *rows = path_rows(out, gr->path, &pst);
        float *o = gr->direct ? rows : res;
        const int ost = gr->direct ? pst : c->scratch_np;
        if (gr->n == 0) continue;
        if (gr->uniform) sample_shared(gr, gr->cache, ft, 0, gr->n, o, ost);
        else sample_keyed(gr->path, gr->interp, gr->cache, gr->np, gr->n, ft, o, ost, c->scratch + 4 * c->scratch_np);
        if (!gr->direct) scatter(rows, pst, res, c->scratch_np, gr->joint, gr->n, width_of(gr->path));
    }
    return SN_OK;
}

/* ---- one joint: the same kernels on one lane, no cursor moved -------------------------------- */

/* the lane of `joint` in group g, or -1 when g does not write it (lanes are by joint: lane j is
   joint j in a dense group, the others list their joints in increasing order) */
static int lane_of(const clip_group *g, int joint) {
    int lo = 0, hi = g->n - 1;
    if (g->direct) return joint;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (g->joint[mid] < joint) lo = mid + 1;
        else hi = mid;
    }
    return g->n > 0 && g->joint[lo] == joint ? lo : -1;
}

/* Keyed group g, lane i: the keys around t into `cache`, a cache of one lane (np 1: row r, slot
   k at r * depth + k), as seek_lanes loads them into the group's cache; forward playback to t
   leaves the same there, so what is computed from it is what sn_clip_sample computes. */
static void load_lane(const clip_group *g, int i, float t, float *cache) {
    const int m = g->rows, d = g->depth;
    const float *need = g->need + g->first[i], *keys = g->keys + (size_t)g->first[i] * (size_t)m;
    int lo = d - 1, hi = g->count[i] - 1, j, r;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (need[mid] <= t) lo = mid;
        else hi = mid - 1;
    }
    for (j = lo - d + 1; j <= lo; j++) /* key j goes to slot j & 1 */
        for (r = 0; r < m; r++) cache[r * d + (j & (d - 1))] = keys[(size_t)j * (size_t)m + (size_t)r];
}

/* floats of the one-lane cache of load_lane: the largest payload (a cubic rotation's 13) in two
   slots */
#define LANE_CACHE (2 * (1 + 3 * 4))

sn_status sn_clip_sample_joint(const sn_clip *c, double t, int loop, int joint, float out[10], sn_error *err) {
    static const int first[3] = {SN_POSE_TX, SN_POSE_QX, SN_POSE_SX}; /* a path's first channel */
    const int count = sn_skeleton_count(c->skeleton);
    float ft, v[10];
    int g;
    if (!sn_isfinite(t)) return sn_fail_arg(err, 1, SN_EINVAL, "time is not finite");
    if (joint < 0 || joint >= count) return sn_fail_range(err, 2, "joint", joint + 1.0, 1, count);
    ft = (float)sn_clip_local_time(c, t, loop);
    /* sn_clip_sample's order: the rest pose, then each group that computes the joint (a dense
       group's rest lane included: a later group of its path overwrites it) */
    sn_skeleton_rest(c->skeleton, joint, v);
    for (g = 0; g < c->group_count; g++) {
        const clip_group *gr = &c->groups[g];
        const int lane = gr->n > 0 && gr->path != SN_CLIP_WEIGHT ? lane_of(gr, joint) : -1;
        float *o;
        if (lane < 0) continue; /* weight tracks animate morphs, not joints */
        o = v + first[gr->path];
        if (gr->uniform) {
            const size_t rec = (size_t)gr->rows * (size_t)gr->np;
            sample_shared(gr, gr->block + (size_t)interval_guess(gr, ft) * rec, ft, lane, 1, o, 1);
        } else {
            float cache[LANE_CACHE], s;
            load_lane(gr, lane, ft, cache);
            sample_keyed(gr->path, gr->interp, cache, 1, 1, ft, o, 1, &s);
        }
    }
    memcpy(out, v, sizeof v);
    return SN_OK;
}
