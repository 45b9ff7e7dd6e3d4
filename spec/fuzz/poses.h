/*
 * Shared by the fuzz targets that make poses (fuzz_clip.c, fuzz_pose.c, fuzz_ik.c): a skeleton of
 * given parents and a pose at the rest pose in malloc'd memory, and the check that a pose is well
 * formed (finite values, unit rotations).
 * Include after reader.h (FUZZ_CHECK).
 */
#ifndef SN_FUZZ_POSES_H
#define SN_FUZZ_POSES_H

#include <math.h>
#include <stdlib.h>

#include "pose.h"
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

#endif
