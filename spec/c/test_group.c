/* C-only tests of src/core/group.c: a group runs the same core calls as one call per object. */
#include <string.h>

#include "ensure.h"
#define FIXTURE_SEED 31337
#include "fixtures.h"

#include "group.h"

#define JOINTS 5

static sn_clip *make_clip(const sn_skeleton *s, float *times, float *values) {
    sn_clip_track_def tracks[JOINTS];
    sn_clip_def def;
    size_t size;
    sn_clip *c;
    int j, k;
    for (k = 0; k < 6; k++) times[k] = (float)k / 5;
    for (j = 0; j < JOINTS; j++) {
        for (k = 0; k < 24; k++) values[24 * j + k] = (float)rnd(-1, 1);
        tracks[j].joint = j;
        tracks[j].path = SN_CLIP_ROTATION;
        tracks[j].interpolation = SN_CLIP_LINEAR;
        tracks[j].keys = 6;
        tracks[j].times = times;
        tracks[j].values = values + 24 * j;
    }
    sn_clip_def_init(&def);
    def.skeleton = s;
    def.duration = 1;
    def.track_count = JOINTS;
    def.tracks = tracks;
    size = sn_clip_size(&def, NULL);
    c = (sn_clip *)fixture_block(size);
    ENSURE(sn_clip_init(c, size, &def, NULL) == SN_OK);
    return c;
}

static sn_clip_cursor *make_cursor(sn_clip *c) {
    sn_clip_cursor_def def;
    size_t size;
    sn_clip_cursor *cur;
    sn_clip_cursor_def_init(&def);
    def.clip = c;
    size = sn_clip_cursor_size(&def, NULL);
    cur = (sn_clip_cursor *)fixture_block(size);
    ENSURE(sn_clip_cursor_init(cur, size, &def, NULL) == SN_OK);
    return cur;
}

static sn_chain *make_chain(void) {
    static const double points[9] = {0, 0, 0, 0, -1, 0, 0, -2, 0};
    static const int parents[3] = {-1, 0, 1};
    sn_chain_def def;
    size_t size;
    sn_chain *c;
    sn_chain_def_init(&def);
    def.count = 3;
    def.points = points;
    def.parents = parents;
    size = sn_chain_size(&def, NULL);
    c = (sn_chain *)fixture_block(size);
    ENSURE(sn_chain_init(c, size, &def, NULL) == SN_OK);
    return c;
}

static void same_pose(const sn_pose *a, const sn_pose *b) {
    float x[10], y[10];
    int j;
    for (j = 0; j < JOINTS; j++) {
        sn_pose_get(a, j, x);
        sn_pose_get(b, j, y);
        ENSURE(memcmp(x, y, sizeof x) == 0);
    }
}

static void test_runs_as_one_call_per_object(void) {
    static float times[6], values[JOINTS * 24];
    sn_skeleton *s = fixture_line_skeleton(JOINTS, NULL);
    sn_clip *clip = make_clip(s, times, values);
    sn_pose *a = fixture_pose(s), *b = fixture_pose(s), *o = fixture_pose(s);
    sn_pose *a2 = fixture_pose(s), *b2 = fixture_pose(s), *o2 = fixture_pose(s);
    sn_matrices *m = fixture_matrices(s), *m2 = fixture_matrices(s);
    sn_clip_cursor *ca = make_cursor(clip), *cb = make_cursor(clip), *ca2 = make_cursor(clip), *cb2 = make_cursor(clip);
    sn_chain *ch = make_chain(), *ch2 = make_chain();
    sn_blend_layer layers[2], direct[2];
    sn_group_op ops[5];
    double params[4];
    int i, frame;
    memset(ops, 0, sizeof ops);
    ops[0].kind = SN_GROUP_SAMPLE; ops[0].cursor = ca; ops[0].pose = a; ops[0].slot = 0; ops[0].n = 1;
    ops[1].kind = SN_GROUP_SAMPLE; ops[1].cursor = cb; ops[1].pose = b; ops[1].slot = 1; ops[1].n = 0;
    layers[0].pose = a; layers[0].mask = NULL; layers[1].pose = b; layers[1].mask = NULL;
    ops[2].kind = SN_GROUP_BLEND; ops[2].pose = o; ops[2].slot = 2; ops[2].n = 2; ops[2].layer = 0;
    ops[2].threshold = SN_BLEND_THRESHOLD; ops[2].method = SN_BLEND_NLERP;
    ops[3].kind = SN_GROUP_TO_MODEL; ops[3].pose = o; ops[3].mats = m;
    ops[4].kind = SN_GROUP_STEP; ops[4].chain = ch;
    for (i = 0; i < 5; i++) ENSURE(sn_group_check_op(&ops[i], layers, NULL) == SN_OK);
    for (frame = 0; frame < 50; frame++) {
        params[0] = frame / 30.0;
        params[1] = 0.7 + frame / 25.0;
        params[2] = 0.5 + 0.5 * sin(frame / 7.0);
        params[3] = 1 - params[2];
        ENSURE(sn_group_run(ops, 5, layers, 1 / 60.0, params, 4, NULL) == SN_OK);
        ENSURE(sn_clip_cursor_sample(ca2, params[0], 1, a2, NULL) == SN_OK);
        ENSURE(sn_clip_cursor_sample(cb2, params[1], 0, b2, NULL) == SN_OK);
        direct[0].pose = a2; direct[0].weight = (float)params[2]; direct[0].mask = NULL;
        direct[1].pose = b2; direct[1].weight = (float)params[3]; direct[1].mask = NULL;
        ENSURE(sn_pose_blend_method(o2, direct, 2, SN_BLEND_THRESHOLD, SN_BLEND_NLERP, NULL) == SN_OK);
        ENSURE(sn_pose_to_matrices(o2, m2, NULL) == SN_OK);
        ENSURE(sn_chain_step(ch2, 1 / 60.0, NULL) == SN_OK);
        same_pose(o, o2);
        ENSURE(memcmp(sn_matrices_data(m), sn_matrices_data(m2), sizeof(float) * 16 * JOINTS) == 0);
    }
}

static void test_refuses_before_anything_moves(void) {
    static float times[6], values[JOINTS * 24];
    sn_skeleton *s = fixture_line_skeleton(JOINTS, NULL), *other = fixture_line_skeleton(2, NULL);
    sn_clip *clip = make_clip(s, times, values);
    sn_pose *a = fixture_pose(s), *o = fixture_pose(other);
    sn_clip_cursor *ca = make_cursor(clip);
    sn_group_op op;
    sn_blend_layer layer;
    sn_error err;
    double params[2] = {0.5, 0.0 / 0.0};
    float before[10], after[10];
    memset(&op, 0, sizeof op);
    op.kind = SN_GROUP_SAMPLE; op.cursor = ca; op.pose = o;
    ENSURE(sn_group_check_op(&op, NULL, &err) == SN_EINVAL && strstr(err.msg, "another skeleton") != NULL);
    op.pose = a;
    op.slot = -1;
    ENSURE(sn_group_check_op(&op, NULL, &err) == SN_EINVAL);
    op.slot = 1;
    ENSURE(sn_group_check_op(&op, NULL, NULL) == SN_OK);
    sn_pose_get(a, 2, before);
    ENSURE(sn_group_run(&op, 1, NULL, 0, params, 2, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(strstr(err.msg, "operation 1 (sample): parameter 2 is not finite") != NULL);
    ENSURE(sn_group_run(&op, 1, NULL, 0, params, 1, &err) == SN_EINVAL && strstr(err.msg, "reads parameter 2 of 1"));
    ENSURE(sn_group_run(&op, 1, NULL, -1, params, 2, &err) == SN_EINVAL && err.arg == 1);
    sn_pose_get(a, 2, after);
    ENSURE(memcmp(before, after, sizeof before) == 0);
    layer.pose = o; layer.mask = NULL; layer.weight = 0;
    memset(&op, 0, sizeof op);
    op.kind = SN_GROUP_BLEND; op.pose = a; op.n = 1; op.threshold = 0.1f;
    ENSURE(sn_group_check_op(&op, &layer, &err) == SN_EINVAL && strstr(err.msg, "layer 1") != NULL);
    op.threshold = 0;
    layer.pose = a;
    ENSURE(sn_group_check_op(&op, &layer, &err) == SN_EINVAL);
    op.kind = (sn_group_kind)9;
    ENSURE(sn_group_check_op(&op, &layer, &err) == SN_EINVAL);
}

int main(void) {
    RUN(test_runs_as_one_call_per_object);
    RUN(test_refuses_before_anything_moves);
    fixture_free();
    return END("test_group");
}
