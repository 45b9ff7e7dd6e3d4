/* Fuzzes clip construction and sampling: any definition is either refused with a message or
   builds a clip whose samples, at any finite time, looping or not, are finite poses with unit
   rotations; each joint sampled alone (sn_clip_sample_joint) is that pose's joint bit for bit,
   and is refused as the whole sample is (a time that is not finite) or for a joint out of range;
   blending two such poses stays finite too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "group.h"
#include "pose.h"
#include "reader.h"
#include "poses.h"
#include "skeleton.h"


#define MAXJ 4
#define MAXT 8
#define MAXK 6

static void *build_skeleton(reader *r, sn_skeleton **out) {
    static const char *const names[MAXJ] = {"a", "b", "c", "d"};
    int parents[MAXJ], i, n = read_int(r, 1, MAXJ);
    float rest[10 * MAXJ];
    sn_skeleton_def def;
    size_t need;
    void *mem;
    for (i = 0; i < n; i++) {
        int k;
        parents[i] = i == 0 ? -1 : read_int(r, -1, i - 1);
        for (k = 0; k < 10; k++) rest[10 * i + k] = (float)read_number(r);
        if (rest[10 * i + 3] == 0 && rest[10 * i + 4] == 0 && rest[10 * i + 5] == 0 && rest[10 * i + 6] == 0)
            rest[10 * i + 6] = 1;
    }
    sn_skeleton_def_init(&def);
    def.count = n;
    def.parents = parents;
    def.names = names;
    def.rest = rest;
    if (sn_skeleton_validate(&def, NULL) != SN_OK) return NULL; /* e.g. a non-finite rest value */
    need = sn_skeleton_size(&def, NULL);
    mem = malloc(need);
    FUZZ_CHECK(mem != NULL && sn_skeleton_init(mem, need, &def, NULL) == SN_OK);
    *out = (sn_skeleton *)mem;
    return mem;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    sn_skeleton *skel = NULL;
    void *smem = build_skeleton(&r, &skel), *cmem, *pmem, *qmem, *cursor_mem;
    sn_clip_cursor *cursor;
    size_t csize;
    sn_clip_track_def tracks[MAXT];
    float times[MAXT][MAXK], values[MAXT][MAXK * 12];
    sn_clip_def def;
    sn_clip *clip;
    sn_pose *pose, *other;
    sn_error err;
    size_t need;
    int i, k, n;
    if (smem == NULL) return 0;
    n = sn_skeleton_count(skel);
    sn_clip_def_init(&def);
    def.skeleton = skel;
    def.duration = (float)read_number(&r);
    def.track_count = read_int(&r, 0, MAXT);
    def.tracks = tracks;
    for (i = 0; i < def.track_count; i++) {
        float t = 0;
        tracks[i].joint = read_int(&r, -1, n);             /* out of range at both ends too */
        tracks[i].path = (sn_clip_path)read_int(&r, 0, 3);
        tracks[i].interpolation = (sn_clip_interpolation)read_int(&r, 0, 3);
        tracks[i].keys = read_int(&r, 0, MAXK);
        for (k = 0; k < MAXK; k++) {                      /* mostly increasing times */
            t += (read_byte(&r) < 230u) ? (float)fabs(read_number(&r)) : (float)read_number(&r);
            times[i][k] = t;
        }
        for (k = 0; k < MAXK * 12; k++) values[i][k] = (float)read_number(&r);
        tracks[i].times = times[i];
        tracks[i].values = values[i];
    }
    need = sn_clip_size(&def, &err);
    if (sn_clip_validate(&def, &err) != SN_OK) {
        FUZZ_CHECK(err.msg[0] != '\0' && need == 0);
        free(smem);
        return 0;
    }
    FUZZ_CHECK(need > 0);
    /* what the core took (it checks in one pass first): every time finite, from 0 to the
       duration, increasing; every value finite and within SN_CLIP_MAX_VALUE; rotations not zero */
    for (i = 0; i < def.track_count; i++) {
        const sn_clip_track_def *tr = &tracks[i];
        const int w = tr->path == SN_CLIP_ROTATION ? 4 : tr->path == SN_CLIP_WEIGHT ? 1 : 3;
        const int per = tr->interpolation == SN_CLIP_CUBIC ? 3 * w : w;
        for (k = 0; k < tr->keys; k++) {
            double len2 = 0;
            int c;
            FUZZ_CHECK(isfinite(tr->times[k]) && tr->times[k] >= 0.0f && tr->times[k] <= def.duration);
            FUZZ_CHECK(k == 0 || tr->times[k] > tr->times[k - 1]);
            for (c = 0; c < per; c++)
                FUZZ_CHECK(isfinite(tr->values[per * k + c]) && fabs(tr->values[per * k + c]) <= SN_CLIP_MAX_VALUE);
            for (c = 0; c < w && tr->path == SN_CLIP_ROTATION; c++) {
                const double v = tr->values[per * k + (per == w ? 0 : w) + c];
                len2 += v * v;
            }
            FUZZ_CHECK(tr->path != SN_CLIP_ROTATION || len2 > 0.0);
        }
    }
    cmem = malloc(need);
    FUZZ_CHECK(cmem != NULL && sn_clip_init(cmem, need, &def, &err) == SN_OK);
    clip = (sn_clip *)cmem;
    pmem = fuzz_new_pose(skel, &pose);
    qmem = fuzz_new_pose(skel, &other);
    {
        sn_clip_cursor_def cdef;
        sn_clip_cursor_def_init(&cdef);
        cdef.clip = clip;
        csize = sn_clip_cursor_size(&cdef, &err);
        FUZZ_CHECK(csize > 0);
        cursor_mem = malloc(csize);
        FUZZ_CHECK(cursor_mem != NULL && sn_clip_cursor_init(cursor_mem, csize, &cdef, &err) == SN_OK);
        cursor = (sn_clip_cursor *)cursor_mem;
    }
    for (i = 0; i < 12; i++) {
        double t = read_number(&r) * (read_byte(&r) < 128u ? 1.0 : 1000.0);
        int loop = (int)(read_byte(&r) & 1u), through_cursor = (int)(read_byte(&r) & 1u);
        sn_status st = through_cursor ? sn_clip_cursor_sample(cursor, t, loop, pose, &err)
                                      : sn_clip_sample(clip, t, loop, pose, &err);
        float one[10], whole[10];
        int j = read_int(&r, -1, n); /* out of range at both ends too */
        if (st != SN_OK) {
            FUZZ_CHECK(!sn_isfinite(t));
            FUZZ_CHECK(sn_clip_sample_joint(clip, t, loop, j, one, &err) == SN_EINVAL && err.arg == 1);
            continue;
        }
        fuzz_check_pose(pose);
        if (j < 0 || j >= n)
            FUZZ_CHECK(sn_clip_sample_joint(clip, t, loop, j, one, &err) == SN_EINVAL && err.arg == 2);
        for (j = 0; j < n; j++) {
            FUZZ_CHECK(sn_clip_sample_joint(clip, t, loop, j, one, &err) == SN_OK);
            sn_pose_get(pose, j, whole);
            FUZZ_CHECK(memcmp(one, whole, sizeof one) == 0);
        }
        {
            sn_blend_layer layers[2];
            layers[0].pose = pose;
            layers[0].weight = (float)fabs(read_number(&r));
            layers[0].mask = NULL;
            layers[1].pose = other;
            layers[1].weight = (float)fabs(read_number(&r));
            layers[1].mask = NULL;
            if (sn_pose_blend(other, layers, 2, 0.1f, &err) == SN_OK) fuzz_check_pose(other);
        }
    }
    { /* the same through a group (src/core/group.c): fuzzed times, weights, thresholds and dt */
        sn_group_op ops[3];
        sn_blend_layer layers[2];
        double params[4];
        int k;
        memset(ops, 0, sizeof ops);
        ops[0].kind = SN_GROUP_SAMPLE; ops[0].cursor = cursor; ops[0].pose = pose;
        ops[0].slot = read_int(&r, -1, 4); ops[0].n = (int)(read_byte(&r) & 1u);
        layers[0].pose = pose; layers[0].mask = NULL; layers[1].pose = other; layers[1].mask = NULL;
        ops[1].kind = SN_GROUP_BLEND; ops[1].pose = other; ops[1].n = read_int(&r, 0, 2);
        ops[1].slot = read_int(&r, 0, 4); ops[1].threshold = (float)read_number(&r);
        ops[1].method = (sn_blend_method)read_int(&r, 0, 4);
        ops[2].kind = (sn_group_kind)read_int(&r, 0, 5); ops[2].pose = pose; ops[2].cursor = cursor;
        for (k = 0; k < 3; k++) {
            if (sn_group_check_op(&ops[k], layers, &err) != SN_OK) {
                FUZZ_CHECK(err.msg[0] != '\0');
                ops[k] = ops[0];
                ops[k].slot = 0;
                ops[k].kind = SN_GROUP_SAMPLE;
                ops[k].n = 1;
                ops[k].cursor = cursor;
                ops[k].pose = pose;
            }
        }
        for (k = 0; k < 4; k++) params[k] = read_number(&r);
        if (sn_group_run(ops, 3, layers, read_number(&r), params, read_int(&r, 0, 4), &err) == SN_OK) {
            fuzz_check_pose(pose);
            fuzz_check_pose(other);
        } else {
            FUZZ_CHECK(err.msg[0] != '\0');
        }
    }
    free(cursor_mem);
    free(qmem);
    free(pmem);
    free(cmem);
    free(smem);
    return 0;
}
