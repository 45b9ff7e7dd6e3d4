/*
 * C figures of skeletons, poses and clips: ns per joint to blend 2 / 4 / 8 full-weight layers of
 * 64 joints, to sample clips (translation, rotation and scale tracks on every joint, 30 keys per
 * second) in forward playback at 60 Hz and by jumps of 0.377 s (a key search per track), one joint
 * alone at 60 Hz (sn_clip_sample_joint, ns per call), to add
 * an additive layer and to build the model-space matrices. Blending and model-space matrices are
 * measured against ozz-animation in the same process, with the same compiler and flags, by
 * `make bench-ozz OZZ_SRC=<checkout>` (bench/ozz/bench_ozz.cc; the table is in
 * manual/performance.md: on 2026-11-25, against ozz 0.16.0, blending 0.98-1.10x ozz's time per
 * joint for 64 joints and 1.18-1.32x for 24, model-space matrices 0.76-0.79x). The sampling figure
 * in brackets is the reference number for ozz 0.16.0 (SSE2 build), not measured here.
 */
#include "bench.h" /* first: it sets _POSIX_C_SOURCE */

#include <math.h>
#include <stdlib.h>

#include "clip.h"
#include "pose.h"

#define JOINTS 64
#define LAYERS 8
#define KEYS 31 /* 30 frames per second over one second */

static unsigned long seed = 777;

static float rnd(float lo, float hi) {
    seed = (seed * 16807ul) % 2147483647ul;
    return lo + (hi - lo) * (float)((double)(seed - 1) / 2147483646.0);
}

static void random_trs(float *v) {
    float l;
    int c;
    for (c = 0; c < 3; c++) v[c] = rnd(-1, 1);
    for (c = 3; c < 7; c++) v[c] = rnd(-1, 1);
    l = sqrtf(v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6]);
    for (c = 3; c < 7; c++) v[c] /= l;
    for (c = 7; c < 10; c++) v[c] = rnd(0.5f, 1.5f);
}

static sn_skeleton *make_skeleton(void) {
    static char names[JOINTS][16];
    const char *np[JOINTS];
    int parents[JOINTS], j;
    sn_skeleton_def def;
    size_t size;
    sn_skeleton *s;
    for (j = 0; j < JOINTS; j++) {
        snprintf(names[j], sizeof names[j], "joint%d", j);
        np[j] = names[j];
        parents[j] = j == 0 ? -1 : (int)rnd(0, (float)j - 0.001f);
    }
    sn_skeleton_def_init(&def);
    def.count = JOINTS;
    def.parents = parents;
    def.names = np;
    def.rest = NULL;
    size = sn_skeleton_size(&def, NULL);
    s = (sn_skeleton *)bench_alloc(size);
    if (sn_skeleton_init(s, size, &def, NULL) != SN_OK) exit(1);
    return s;
}

static sn_pose *make_pose(const sn_skeleton *s) {
    sn_pose_def def;
    size_t size;
    sn_pose *p;
    float trs[10];
    int j;
    sn_pose_def_init(&def);
    def.skeleton = s;
    size = sn_pose_size(&def, NULL);
    p = (sn_pose *)bench_alloc(size);
    if (sn_pose_init(p, size, &def, NULL) != SN_OK) exit(1);
    for (j = 0; j < JOINTS; j++) {
        random_trs(trs);
        sn_pose_set(p, j, trs);
    }
    return p;
}

/* Clips with translation, rotation and scale tracks of KEYS linear keys on every joint (`paths`
   bit 0, 1, 2), over one second. Key times: SHARED, the same 30 per second on every track (as
   glTF exporters bake them); MIXED, the same but every fourth track constant (two keys);
   OWN, every track its own times (jittered around the same rate). */
enum { SHARED, MIXED, OWN };

static sn_clip *make_clip(const sn_skeleton *s, int paths, int times_of) {
    static float times[3 * JOINTS][KEYS], values[3 * JOINTS][4 * KEYS];
    sn_clip_track_def tracks[3 * JOINTS];
    sn_clip_def def;
    int j, k, p, n = 0;
    size_t size;
    sn_clip *c;
    for (j = 0; j < JOINTS; j++) {
        for (p = 0; p < 3; p++) {
            sn_clip_track_def *t = &tracks[n];
            if (!(paths & (1 << p))) continue;
            t->joint = j;
            t->path = (sn_clip_path)p;
            t->interpolation = SN_CLIP_LINEAR;
            t->keys = (times_of == MIXED && n % 4 == 3) ? 2 : KEYS;
            for (k = 0; k < t->keys; k++) {
                static const int from[3] = {0, 3, 7}; /* where the path's values start in a trs */
                const int w = p == 1 ? 4 : 3;
                float trs[10];
                int v;
                times[n][k] = t->keys == 2 ? (float)k : (float)k / (KEYS - 1);
                if (times_of == OWN && k > 0 && k < KEYS - 1) times[n][k] += rnd(-0.3f, 0.3f) / (KEYS - 1);
                random_trs(trs);
                for (v = 0; v < w; v++) values[n][w * k + v] = trs[from[p] + v];
            }
            t->times = times[n];
            t->values = values[n];
            n++;
        }
    }
    sn_clip_def_init(&def);
    def.skeleton = s;
    def.duration = 1.0f;
    def.track_count = n;
    def.tracks = tracks;
    size = sn_clip_size(&def, NULL);
    c = (sn_clip *)bench_alloc(size);
    if (sn_clip_init(c, size, &def, NULL) != SN_OK) exit(1);
    return c;
}

/* best of 5 rounds, ns per joint; `body` runs `reps` times per round */
#define TIME_PER_JOINT(result, reps, body)                                   \
    do {                                                                     \
        int round_, rep_;                                                    \
        double best_ = 1e30;                                                 \
        for (round_ = 0; round_ < 5; round_++) {                             \
            double t0_ = bench_now();                                        \
            for (rep_ = 0; rep_ < (reps); rep_++) { body; }                  \
            t0_ = bench_now() - t0_;                                         \
            if (t0_ < best_) best_ = t0_;                                    \
        }                                                                    \
        (result) = best_ / (reps) / JOINTS * 1e9;                            \
    } while (0)

/* a value of the output, summed so that the timed loops cannot be optimised away */
#define CHECK(pose) sn_pose_channel(pose, SN_POSE_QX)[5]

int main(void) {
    sn_skeleton *s = make_skeleton();
    sn_pose *layers[LAYERS], *out = make_pose(s), *delta = make_pose(s);
    sn_blend_layer bl[LAYERS];
    float *mats = (float *)bench_alloc(sizeof(float) * 16 * JOINTS), sink = 0, one[10];
    char label[96];
    double ns;
    int i, k;
    const int reps = 200000;
    printf("c       (against ozz-animation, measured: make bench-ozz; [ozz ...]: the issue's reference, not measured here)\n");
    for (i = 0; i < LAYERS; i++) {
        layers[i] = make_pose(s);
        bl[i].pose = layers[i];
        bl[i].weight = 1.0f;
        bl[i].mask = NULL;
    }
    for (k = 0; k < 3; k++) {
        int n = 2 << k;
        TIME_PER_JOINT(ns, reps, sn_pose_blend(out, bl, n, SN_BLEND_THRESHOLD, NULL); sink += CHECK(out));
        snprintf(label, sizeof label, "sn_pose_blend %d layers x %d joints", n, JOINTS);
        bench_report(label, ns, "ns/joint");
    }
    {
        static const char *const what[3] = {"shared times", "1/4 const", "own times"};
        for (k = 0; k < 3; k++) {
            double t = 0;
            sn_clip *clip = make_clip(s, 7, k);
            TIME_PER_JOINT(ns, reps, sn_clip_sample(clip, t, 1, out, NULL); t += 1.0 / 60; sink += CHECK(out));
            snprintf(label, sizeof label, "sn_clip_sample TRS fwd 60 Hz, %s [ozz 2.1-2.6]", what[k]);
            bench_report(label, ns, "ns/joint");
            t = 0; /* one joint alone, as root motion reads it: per call, against the whole pose's */
            TIME_PER_JOINT(ns, reps, sn_clip_sample_joint(clip, t, 1, JOINTS / 3, one, NULL); t += 1.0 / 60; sink += one[4]);
            snprintf(label, sizeof label, "sn_clip_sample_joint TRS fwd 60 Hz, %s, per call", what[k]);
            bench_report(label, ns * JOINTS, "ns");
            if (k != MIXED) {
                t = 0;
                TIME_PER_JOINT(ns, reps / 4, sn_clip_sample(clip, t, 1, out, NULL); t += 0.377; sink += CHECK(out));
                snprintf(label, sizeof label, "sn_clip_sample TRS random jumps, %s", what[k]);
                bench_report(label, ns, "ns/joint");
            }
            free(clip);
        }
        {
            double t = 0;
            sn_clip *clip = make_clip(s, 2, SHARED);
            TIME_PER_JOINT(ns, reps, sn_clip_sample(clip, t, 1, out, NULL); t += 1.0 / 60; sink += CHECK(out));
            bench_report("sn_clip_sample rotations only, fwd 60 Hz, shared times", ns, "ns/joint");
            free(clip);
        }
    }
    TIME_PER_JOINT(ns, reps / 10, sn_pose_add(out, delta, (i++ & 1) ? 0.5f : -0.5f, NULL, NULL); sink += CHECK(out));
    bench_report("sn_pose_add (additive layer)", ns, "ns/joint");
    TIME_PER_JOINT(ns, reps, sn_pose_to_model(layers[0], mats); sink += mats[17]);
    bench_report("sn_pose_to_model", ns, "ns/joint");
    return sink == 12345.0f; /* keeps the loops from being optimised away */
}
