/*
 * Shared by the fuzz targets that make poses (fuzz_clip.c, fuzz_pose.c, fuzz_ik*.c): a skeleton of
 * given parents and a pose at the rest pose in malloc'd memory, a pose filled with what the bytes
 * say, the check that a pose is well formed (finite values, unit rotations), and the checks the IK
 * targets make of what a solve wrote. Include after reader.h (FUZZ_CHECK, the readers).
 */
#ifndef SN_FUZZ_POSES_H
#define SN_FUZZ_POSES_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pose.h"
#include "quat.h"
#include "skeleton.h"

/* a skeleton of n joints with `parents` and `names` in *out; returns the block to free */
static void *fuzz_new_skeleton(int n, const int *parents, const char *const *names, sn_skeleton **out) {
    sn_skeleton_def def;
    size_t need;
    void *mem;
    sn_skeleton_def_init(&def);
    def.count = n;
    def.parents = parents;
    def.names = names;
    need = sn_skeleton_size(&def, NULL);
    FUZZ_CHECK(need > 0);
    mem = malloc(need);
    FUZZ_CHECK(mem != NULL && sn_skeleton_init(mem, need, &def, NULL) == SN_OK);
    *out = (sn_skeleton *)mem;
    return mem;
}

/* a pose of `s` at the rest pose in *out; returns the block to free */
static void *fuzz_new_pose(const sn_skeleton *s, sn_pose **out) {
    sn_pose_def def;
    size_t need;
    void *mem;
    sn_pose_def_init(&def);
    def.skeleton = s;
    need = sn_pose_size(&def, NULL);
    mem = malloc(need);
    FUZZ_CHECK(mem != NULL && sn_pose_init(mem, need, &def, NULL) == SN_OK);
    *out = (sn_pose *)mem;
    return mem;
}

/* every value of every joint finite, every rotation of unit length */
static void fuzz_check_pose(const sn_pose *p) {
    int j, k, n = sn_skeleton_count(sn_pose_skeleton(p));
    for (j = 0; j < n; j++) {
        float trs[10];
        double qn;
        sn_pose_get(p, j, trs);
        for (k = 0; k < 10; k++) FUZZ_CHECK(sn_isfinite(trs[k]));
        qn = sqrt((double)trs[3] * trs[3] + (double)trs[4] * trs[4] + (double)trs[5] * trs[5] + (double)trs[6] * trs[6]);
        FUZZ_CHECK(fabs(qn - 1.0) < 1e-3);
    }
}


/* a vector of three numbers as read */
static sn_vec3 read_vec(reader *r) {
    sn_vec3 v;
    v.x = read_number(r);
    v.y = read_number(r);
    v.z = read_number(r);
    return v;
}

/* every joint of `p` set to ten floats as read, the rotation mostly made unit (as the binding keeps
   them); with `varied`, also now and then the joint left at its rest transform and mostly uniform
   scales (each read from the bytes, so that a target's corpus keeps its meaning) */
static void fuzz_fill_pose(sn_pose *p, reader *r, int varied) {
    int j, c, n = sn_skeleton_count(sn_pose_skeleton(p));
    for (j = 0; j < n; j++) {
        float trs[10];
        double l = 0;
        if (varied && read_byte(r) < 64u) continue;
        for (c = 0; c < 10; c++) trs[c] = read_float(r);
        if (varied && read_byte(r) < 160u) trs[7] = trs[8] = trs[9] = trs[7];
        for (c = 3; c < 7; c++) l += (double)trs[c] * trs[c];
        l = sqrt(l);
        if (read_byte(r) < 200u && l > 1e-6 && sn_isfinite(l))
            for (c = 3; c < 7; c++) trs[c] = (float)(trs[c] / l);
        sn_pose_set(p, j, trs);
    }
}

/* the ten values of every joint of `p` into `out` (10 * joints floats) */
static void fuzz_snapshot(const sn_pose *p, float *out) {
    int j, n = sn_skeleton_count(sn_pose_skeleton(p));
    for (j = 0; j < n; j++) sn_pose_get(p, j, out + 10 * j);
}

/* `p` holds the same bits as `before` (a fuzz_snapshot of it) */
static void fuzz_check_unchanged(const float *before, const sn_pose *p) {
    int j, n = sn_skeleton_count(sn_pose_skeleton(p));
    for (j = 0; j < n; j++) {
        float now[10];
        sn_pose_get(p, j, now);
        FUZZ_CHECK(memcmp(&before[10 * j], now, sizeof now) == 0);
    }
}

/* after a solve that succeeded: everything as in `before` but the rotations of the joints in `js`
   (count k), which are finite and unit (or untouched) */
static void fuzz_check_written(const float *before, const sn_pose *p, const int *js, int k) {
    int j, c, i, n = sn_skeleton_count(sn_pose_skeleton(p));
    for (j = 0; j < n; j++) {
        float after[10];
        int mine = 0;
        sn_pose_get(p, j, after);
        for (i = 0; i < k; i++) mine |= js[i] == j;
        for (c = 0; c < 10; c++) {
            if (mine && c >= 3 && c < 7) continue;
            FUZZ_CHECK(memcmp(&before[10 * j + c], &after[c], sizeof(float)) == 0);
        }
        if (mine && memcmp(&before[10 * j + 3], &after[3], 4 * sizeof(float)) != 0) {
            double l = 0;
            for (c = 3; c < 7; c++) {
                FUZZ_CHECK(sn_isfinite(after[c]));
                l += (double)after[c] * after[c];
            }
            FUZZ_CHECK(fabs(sqrt(l) - 1.0) < 1e-5);
        }
    }
}

/* What the IK targets solve on: a skeleton, its pose (filled from the bytes `fill` times in 256,
   fuzz_fill_pose's `varied` as given) and a spare pose of it, and another skeleton with a pose
   that every solve must refuse (the skeletons made by the target's own `build`). */
typedef struct fuzz_scene {
    sn_skeleton *skel, *other;
    sn_pose *pose, *copy, *foreign;
    void *mem[5];
} fuzz_scene;

static void fuzz_scene_init(fuzz_scene *sc, reader *r, void *(*build)(reader *, sn_skeleton **), unsigned fill,
                            int varied) {
    sc->mem[0] = build(r, &sc->skel);
    sc->mem[1] = build(r, &sc->other);
    sc->mem[2] = fuzz_new_pose(sc->skel, &sc->pose);
    sc->mem[3] = fuzz_new_pose(sc->skel, &sc->copy);
    sc->mem[4] = fuzz_new_pose(sc->other, &sc->foreign);
    if (read_byte(r) < fill) fuzz_fill_pose(sc->pose, r, varied);
}

static void fuzz_scene_free(fuzz_scene *sc) {
    int i;
    for (i = 4; i >= 0; i--) free(sc->mem[i]);
}

/* The lifecycle of an object of kind `noun` (sn_<noun>_size, _validate, _init) from `def`: a
   refused definition has a message for argument 1 and size 0, and `mem` is then NULL; otherwise
   `mem` is the object in malloc'd memory (the caller frees it). */
#define FUZZ_NEW(noun, def, err, mem)                                                           \
    do {                                                                                        \
        size_t need_ = sn_##noun##_size(def, err);                                              \
        (mem) = NULL;                                                                           \
        if (sn_##noun##_validate(def, err) != SN_OK) {                                          \
            FUZZ_CHECK(need_ == 0 && (err)->msg[0] != '\0' && (err)->arg == 1);                 \
            break;                                                                              \
        }                                                                                       \
        FUZZ_CHECK(need_ > 0);                                                                  \
        (mem) = malloc(need_);                                                                  \
        FUZZ_CHECK((mem) != NULL && sn_##noun##_init(mem, need_, def, err) == SN_OK);           \
    } while (0)

#endif
