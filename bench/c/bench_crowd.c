/*
 * The floor of the crowd figure (bench/crowd.lua): 1000 characters of 24 joints, each sampling
 * two clips through its own cursors (one clip with key times shared by every track, one whose
 * tracks have their own key times), blending them, building the model-space matrices and
 * updating a 3-joint tail chain: one frame as a C loop over the core. bench/crowd.lua builds the
 * same crowd (same skeleton, key counts and times) and times it from Lua.
 */
#include "bench.h" /* first: it sets _POSIX_C_SOURCE */

#include <math.h>
#include <stdlib.h>

#include "chain.h"
#include "clip.h"
#include "pose.h"

#define CHARS 1000
#define JOINTS 24
#define KEYS 31

/* the crowd's skeleton: a binary tree of 21 joints and a tail of 3 under its last (the Lua side
   builds the same) */
static int parent_of(int j) { return j == 0 ? -1 : j < 21 ? (j - 1) / 2 : j - 1; }

static sn_skeleton *make_skeleton(void) {
    static char names[JOINTS][8];
    const char *np[JOINTS];
    int parents[JOINTS], j;
    sn_skeleton_def def;
    size_t size;
    sn_skeleton *s;
    for (j = 0; j < JOINTS; j++) {
        snprintf(names[j], sizeof names[j], "j%d", j + 1);
        np[j] = names[j];
        parents[j] = parent_of(j);
    }
    sn_skeleton_def_init(&def);
    def.count = JOINTS;
    def.parents = parents;
    def.names = np;
    size = sn_skeleton_size(&def, NULL);
    s = (sn_skeleton *)bench_alloc(size);
    if (sn_skeleton_init(s, size, &def, NULL) != SN_OK) exit(1);
    return s;
}

/* key k of track i of a clip: the crowd's clips (the Lua side computes the same numbers) */
static double key_time(int i, int k, int own) {
    double t = (double)k / (KEYS - 1);
    if (own && k > 0 && k < KEYS - 1) t += 0.3 * sin(7.0 * i + 3.0 * k) / (KEYS - 1);
    return t;
}
static void key_rotation(int i, int k, float *q) {
    double a = 0.4 * sin(0.3 * i + 0.2 * k), b = 0.3 * cos(0.5 * i + 0.1 * k);
    double l = sqrt(a * a + b * b + 1.0);
    q[0] = (float)(a / l); q[1] = (float)(b / l); q[2] = 0.0f; q[3] = (float)(1.0 / l);
}

/* shared: translation and rotation tracks on every joint, the same key times; own: rotation
   tracks, each with its own key times */
static sn_clip *make_clip(const sn_skeleton *s, int own) {
    static float times[2][2 * JOINTS][KEYS], values[2][2 * JOINTS][4 * KEYS];
    sn_clip_track_def tracks[2 * JOINTS];
    sn_clip_def def;
    int j, k, n = 0;
    size_t size;
    sn_clip *c;
    for (j = 0; j < JOINTS; j++) {
        int p;
        for (p = own ? 1 : 0; p < 2; p++) {
            sn_clip_track_def *t = &tracks[n];
            t->joint = j;
            t->path = p == 0 ? SN_CLIP_TRANSLATION : SN_CLIP_ROTATION;
            t->interpolation = SN_CLIP_LINEAR;
            t->keys = KEYS;
            for (k = 0; k < KEYS; k++) {
                times[own][n][k] = (float)key_time(n, k, own);
                if (p == 0) {
                    values[own][n][3 * k] = (float)(0.1 * j);
                    values[own][n][3 * k + 1] = (float)(0.2 + 0.01 * sin(k + j));
                    values[own][n][3 * k + 2] = 0.0f;
                } else {
                    key_rotation(n, k, &values[own][n][4 * k]);
                }
            }
            t->times = times[own][n];
            t->values = values[own][n];
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

static sn_clip_cursor *make_cursor(sn_clip *c) {
    sn_clip_cursor_def def;
    size_t size;
    sn_clip_cursor *cur;
    sn_clip_cursor_def_init(&def);
    def.clip = c;
    size = sn_clip_cursor_size(&def, NULL);
    cur = (sn_clip_cursor *)bench_alloc(size);
    if (sn_clip_cursor_init(cur, size, &def, NULL) != SN_OK) exit(1);
    return cur;
}

static sn_pose *make_pose(const sn_skeleton *s) {
    sn_pose_def def;
    size_t size;
    sn_pose *p;
    sn_pose_def_init(&def);
    def.skeleton = s;
    size = sn_pose_size(&def, NULL);
    p = (sn_pose *)bench_alloc(size);
    if (sn_pose_init(p, size, &def, NULL) != SN_OK) exit(1);
    return p;
}

static sn_matrices *make_matrices(const sn_skeleton *s) {
    sn_matrices_def def;
    size_t size;
    sn_matrices *m;
    sn_matrices_def_init(&def);
    def.skeleton = s;
    size = sn_matrices_size(&def, NULL);
    m = (sn_matrices *)bench_alloc(size);
    if (sn_matrices_init(m, size, &def, NULL) != SN_OK) exit(1);
    return m;
}

static sn_chain *make_tail(const sn_skeleton *s) {
    sn_chain_def def;
    size_t size;
    sn_chain *c;
    sn_chain_def_init(&def);
    def.skeleton = s;
    def.root = 21;
    size = sn_chain_size(&def, NULL);
    c = (sn_chain *)bench_alloc(size);
    if (sn_chain_init(c, size, &def, NULL) != SN_OK) exit(1);
    return c;
}

typedef struct character {
    sn_clip_cursor *ca, *cb;
    sn_pose *a, *b, *out;
    sn_matrices *mats;
    sn_chain *tail;
    double phase, w;
} character;

int main(void) {
    static character crowd[CHARS];
    sn_skeleton *s = make_skeleton();
    sn_clip *shared = make_clip(s, 0), *own = make_clip(s, 1);
    double best = 1e30, t0;
    int i, f, round;
    for (i = 0; i < CHARS; i++) {
        character *c = &crowd[i];
        c->ca = make_cursor(shared);
        c->cb = make_cursor(own);
        c->a = make_pose(s);
        c->b = make_pose(s);
        c->out = make_pose(s);
        c->mats = make_matrices(s);
        c->tail = make_tail(s);
        c->phase = fmod(i * 0.618, 1.0);
        c->w = 0.3 + 0.04 * (i % 10);
    }
    for (round = 0; round < 4; round++) {
        t0 = bench_now();
        for (f = 0; f < 60; f++) {
            double t = (round * 60 + f) / 60.0;
            for (i = 0; i < CHARS; i++) {
                character *c = &crowd[i];
                sn_blend_layer layers[2];
                sn_clip_cursor_sample(c->ca, t + c->phase, 1, c->a, NULL);
                sn_clip_cursor_sample(c->cb, 1.1 * t + c->phase, 1, c->b, NULL);
                layers[0].pose = c->a; layers[0].weight = (float)c->w; layers[0].mask = NULL;
                layers[1].pose = c->b; layers[1].weight = (float)(1.0 - c->w); layers[1].mask = NULL;
                sn_pose_blend(c->out, layers, 2, SN_BLEND_THRESHOLD, NULL);
                sn_pose_to_matrices(c->out, c->mats, NULL);
                sn_chain_update(c->tail, 1.0 / 60.0, c->out, NULL, NULL);
            }
        }
        t0 = bench_now() - t0;
        if (round > 0 && t0 < best) best = t0; /* round 0 warms up */
    }
    bench_report("crowd of 1000 x 24 joints, one frame, C loop over the core", best / 60 * 1e3, "ms/frame");
    return 0;
}
