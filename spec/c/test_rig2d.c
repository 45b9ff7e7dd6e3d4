/* C-only tests of src/core/rig2d_*.c: 2-D armatures built from layouts, sampled, and their world
   matrices, IK and mesh vertices computed from first principles here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "group.h"
#include "rig2d.h"

static sn_rig2d_data *build_data(const double *w, size_t n) {
    sn_error err;
    size_t size = sn_rig2d_data_size(w, n, NULL, &err);
    if (size == 0) return NULL;
    void *mem = malloc(size);
    ENSURE(sn_rig2d_data_init(mem, size, w, n, NULL, &err) == SN_OK);
    return (sn_rig2d_data *)mem;
}

static sn_rig2d *build_rig(const sn_rig2d_data *d) {
    void *mem = malloc(sn_rig2d_size(d));
    sn_rig2d_init(mem, d);
    return (sn_rig2d *)mem;
}

/* two bones: a root at (10, 20) turned 90 degrees, a child 5 along it; one image slot on the
   child with a display offset; one mesh slot weighted half to each bone */
static const double ARM[] = {
    1, 2, 0, 2, 2, 1,
    -1, 15, 5, 10, 20, 1.5707963267948966, 0, 1, 1,
    0, 15, 3, 5, 0, 0, 0, 2, 1,
    1, 0, 0, 1, 0, 100, 100, 100, 100, 0, 0, 0, 0,
    0, 0, 1, 1, 0, 50, 100, 100, 100, 0, 0, 0, 0,
    0, -1, 1, 2, 0, 0, 1, 1,
    1, 0, 0, 0, 0, 0, 1, 1,
    1, 1, 0, 0,
    2, 0, 0.5, 0, 0, 1, 0.5, 0, 0,
};

static void test_world_matrices(void) {
    sn_rig2d_data *d = build_data(ARM, sizeof ARM / sizeof ARM[0]);
    ENSURE(d != NULL);
    if (!d) return;
    sn_rig2d *r = build_rig(d);
    const double *m0 = sn_rig2d_bone_matrix(r, 0), *m1 = sn_rig2d_bone_matrix(r, 1);
    /* root: rotation 90 degrees: a = cos = 0, b = sin = 1, c = -1, d = 0 */
    ENSURE_NEAR(m0[0], 0, 1e-12);
    ENSURE_NEAR(m0[1], 1, 1e-12);
    ENSURE_NEAR(m0[2], -1, 1e-12);
    ENSURE_NEAR(m0[4], 10, 1e-12);
    ENSURE_NEAR(m0[5], 20, 1e-12);
    /* child at local (5, 0) scale (2, 1): world position (10, 25), x axis along +y scaled 2 */
    ENSURE_NEAR(m1[4], 10, 1e-12);
    ENSURE_NEAR(m1[5], 25, 1e-12);
    ENSURE_NEAR(m1[1], 2, 1e-12);
    ENSURE_NEAR(m1[2], -1, 1e-12);
    /* the image slot: the display moved (1, 2) in the bone's frame */
    const double *s0 = sn_rig2d_slot_matrix(r, 0);
    ENSURE_NEAR(s0[4], 10 - 2, 1e-12);
    ENSURE_NEAR(s0[5], 25 + 2, 1e-12);
    /* the colour: percent to multipliers */
    ENSURE_NEAR(sn_rig2d_slot_color(r, 1)[0], 0.5, 1e-12);
    /* the mesh vertex: half the root's origin, half the child's */
    double out[2];
    ENSURE(sn_rig2d_vertices(r, 1, out, 2) == 1);
    ENSURE_NEAR(out[0], 10, 1e-12);
    ENSURE_NEAR(out[1], 22.5, 1e-12);
    ENSURE(sn_rig2d_vertices(r, 0, out, 2) == 0);
    free(r);
    free(d);
}

static void test_animation_tweens(void) {
    sn_rig2d_data *d = build_data(ARM, sizeof ARM / sizeof ARM[0]);
    if (!d) return;
    /* 10 frames at 10 fps: translate keys at 0 (linear) and 5 (quad in, 50 %), rotation held */
    static const double AN[] = {
        1, 10, 10, 3,
        1, 1, 0, 2, 2, 0, 1, 0, 0, 0, 5, 2, 50, 10, 0,
        2, 1, 0, 1, 2, 0, 0, 0, 1, 0,
        4, 0, 0, 2, 1, 0, 0, 0, 0, 3, 0, 0, -1,
    };
    sn_error err;
    size_t size = sn_anim2d_size(d, AN, sizeof AN / sizeof AN[0], &err);
    ENSURE(size > 0);
    if (size == 0) { fprintf(stderr, "%s\n", err.msg); free(d); return; }
    sn_anim2d *an = (sn_anim2d *)malloc(size);
    ENSURE(sn_anim2d_init(an, size, d, AN, sizeof AN / sizeof AN[0], &err) == SN_OK);
    ENSURE_NEAR(sn_anim2d_duration(an), 1.0, 1e-15);
    sn_rig2d *r = build_rig(d);
    double *pose = sn_rig2d_pose(r);
    sn_rig2d_sample(r, an, 0.25, 1); /* half way through the first key: linear */
    ENSURE_NEAR(pose[6], 5.0, 1e-6);
    ENSURE_NEAR(pose[8], 1.0, 1e-6);
    ENSURE(sn_rig2d_slot_display(r, 0) == 0);
    sn_rig2d_sample(r, an, 0.75, 0); /* the last key held on the last play */
    ENSURE_NEAR(pose[6], 10.0, 1e-6);
    ENSURE(sn_rig2d_slot_display(r, 0) == -1);
    sn_rig2d_sample(r, an, 0.75, 1); /* toward the first: p = 0.5 eased quad in by 50 %: 0.375 */
    ENSURE_NEAR(pose[6], 10.0 - 10.0 * 0.375, 1e-6);
    free(r);
    free(an);
    free(d);
}

/* root at the origin, 10 long along x; tip 10 along it, 10 long; a target bone at (12, 8); one
   IK constraint: bones 0 and 1 reach for bone 2 */
static const double REACH[] = {
    1, 3, 1, 0, 0, 0,
    -1, 15, 10, 0, 0, 0, 0, 1, 1,
    0, 15, 10, 10, 0, 0, 0, 1, 1,
    -1, 15, 0, 12, 8, 0, 0, 1, 1,
    1, 2, 1, 1, 1,
};

static void test_two_bone_ik_reaches(void) {
    sn_rig2d_data *d = build_data(REACH, sizeof REACH / sizeof REACH[0]);
    ENSURE(d != NULL);
    if (!d) return;
    sn_rig2d *r = build_rig(d);
    const double *tip = sn_rig2d_bone_matrix(r, 1);
    /* the tip bone's end: its origin + its x axis x length */
    double ex = tip[4] + tip[0] * 10, ey = tip[5] + tip[1] * 10;
    ENSURE_NEAR(ex, 12, 1e-9);
    ENSURE_NEAR(ey, 8, 1e-9);
    ENSURE_NEAR(hypot(tip[4], tip[5]), 10, 1e-9);
    free(r);
    free(d);
}

/* the world matrices of rig r against a second rig of the same data given r's pose in full */
static void ensure_same_world(const sn_rig2d_data *d, sn_rig2d *r) {
    sn_rig2d *full = build_rig(d);
    int bones = sn_rig2d_data_bones(d);
    sn_rig2d_set_pose(full, sn_rig2d_pose(r));
    sn_rig2d_world(full);
    for (int b = 0; b < bones; b++)
        ENSURE(memcmp(sn_rig2d_bone_matrix(r, b), sn_rig2d_bone_matrix(full, b), 6 * sizeof(double)) == 0);
    free(full);
}

static void test_world_changed_redoes_part(void) {
    sn_rig2d_data *d = build_data(REACH, sizeof REACH / sizeof REACH[0]);
    ENSURE(d != NULL);
    if (!d) return;
    sn_rig2d *r = build_rig(d);
    double pose[18], before[18];
    const double *tip = sn_rig2d_bone_matrix(r, 1);
    /* the target moved in a pose given: the constraint's bones follow it */
    memcpy(pose, sn_rig2d_pose(r), sizeof pose);
    pose[6 * 2 + 0] = -3; /* (12, 8) -> (9, 8) */
    sn_rig2d_world_changed(r, pose, -1);
    ENSURE_NEAR(tip[4] + tip[0] * 10, 9, 1e-9);
    ENSURE_NEAR(tip[5] + tip[1] * 10, 8, 1e-9);
    ensure_same_world(d, r);
    /* the second bone turned in place: its constraint's root is redone too */
    sn_rig2d_pose(r)[6 * 1 + 2] = 0.3;
    sn_rig2d_world_changed(r, NULL, 1);
    ensure_same_world(d, r);
    /* nothing changed: nothing moves */
    memcpy(before, sn_rig2d_bone_matrix(r, 0), 6 * sizeof(double));
    sn_rig2d_world_changed(r, NULL, -1);
    ENSURE(memcmp(before, sn_rig2d_bone_matrix(r, 0), 6 * sizeof(double)) == 0);
    /* a pose set elsewhere since the last update: all of it is redone */
    memcpy(pose, sn_rig2d_pose(r), sizeof pose);
    pose[6 * 0 + 1] = 4;
    sn_rig2d_set_pose(r, pose);
    sn_rig2d_world_changed(r, NULL, -1);
    ensure_same_world(d, r);
    free(r);
    free(d);
}

/* two constraints in a row on one target (bone 3 at (12, 8)): bones 0 and 1 reach for it, then
   bones 1 and 2; bone 1 is the first constraint's second bone and the second one's root */
static const double NESTED[] = {
    1, 4, 2, 0, 0, 0,
    -1, 15, 10, 0, 0, 0, 0, 1, 1,
    0, 15, 10, 10, 0, 0, 0, 1, 1,
    1, 15, 10, 10, 0, 0, 0, 1, 1,
    -1, 15, 0, 12, 8, 0, 0, 1, 1,
    2, 3, 1, 1, 1,
    1, 3, 1, 1, 1,
};

static void test_world_changed_up_a_constraint(void) {
    sn_rig2d_data *d = build_data(NESTED, sizeof NESTED / sizeof NESTED[0]);
    ENSURE(d != NULL);
    if (!d) return;
    sn_rig2d *r = build_rig(d);
    /* bone 2 turned in place: the root of its constraint (bone 1) is redone, and bone 1 is placed
       by the constraint rooted at bone 0 (found from the fuzzer: the partial update redid bone 1
       from its parent alone, without that constraint) */
    sn_rig2d_pose(r)[6 * 2 + 2] = 0.3;
    sn_rig2d_world_changed(r, NULL, 2);
    ensure_same_world(d, r);
    sn_rig2d_pose(r)[6 * 1 + 2] = -0.2; /* and the middle bone itself */
    sn_rig2d_world_changed(r, NULL, 1);
    ensure_same_world(d, r);
    free(r);
    free(d);
}

static void test_refuses_bad_layouts(void) {
    sn_error err;
    double w[sizeof ARM / sizeof ARM[0]];
    size_t n = sizeof ARM / sizeof ARM[0];
    memcpy(w, ARM, sizeof w);
    ENSURE(sn_rig2d_data_size(w, n - 1, NULL, &err) == 0 && strstr(err.msg, "ends early") != NULL);
    w[6] = 1; /* the root's parent: the next bone, which is its child: a cycle */
    ENSURE(sn_rig2d_data_size(w, n, NULL, &err) == 0 && strstr(err.msg, "cannot be ordered") != NULL);
    memcpy(w, ARM, sizeof w);
    w[10] = NAN;
    ENSURE(sn_rig2d_data_size(w, n, NULL, &err) == 0 && strstr(err.msg, "finite") != NULL);
    memcpy(w, ARM, sizeof w);
    w[n - 8] = 3; /* a weight entry's bone out of range */
    ENSURE(sn_rig2d_data_size(w, n, NULL, &err) == 0 && strstr(err.msg, "out of range") != NULL);
    sn_rig2d_data *d = build_data(ARM, n);
    if (!d) return;
    static const double BAD[] = { 1, 10, 10, 1, 4, 0, 0, 1, 1, 0, 0, 0, 5 }; /* display 5 of 2 */
    ENSURE(sn_anim2d_size(d, BAD, sizeof BAD / sizeof BAD[0], &err) == 0 && strstr(err.msg, "display index") != NULL);
    static const double ORDER[] = { 1, 10, 10, 1, 7, 0, 0, 1, 2, 0, 0, 0, 1, 1 }; /* not a permutation */
    ENSURE(sn_anim2d_size(d, ORDER, sizeof ORDER / sizeof ORDER[0], &err) == 0 && strstr(err.msg, "order") != NULL);
    free(d);
}

static void test_group_poses_rigs(void) {
    sn_rig2d_data *d = build_data(ARM, sizeof ARM / sizeof ARM[0]);
    if (!d) return;
    static const double AN[] = {
        1, 10, 10, 1,
        2, 1, 0, 2, 2, 0, 1, 0, 0, 0, 5, 1, 0, 1, 0.5,
    };
    sn_error err;
    size_t size = sn_anim2d_size(d, AN, sizeof AN / sizeof AN[0], &err);
    sn_anim2d *an = (sn_anim2d *)malloc(size);
    ENSURE(sn_anim2d_init(an, size, d, AN, sizeof AN / sizeof AN[0], &err) == SN_OK);
    sn_rig2d *a = build_rig(d), *b = build_rig(d);
    sn_group_op op;
    memset(&op, 0, sizeof op);
    op.kind = SN_GROUP_RIG2D;
    op.rig = a;
    op.anim = an;
    op.n = 1;
    ENSURE(sn_group_check_op(&op, NULL, &err) == SN_OK);
    double params[1] = { 0.3 };
    ENSURE(sn_group_run(&op, 1, NULL, 0.0, params, 1, &err) == SN_OK);
    sn_rig2d_sample(b, an, 0.3, 1);
    sn_rig2d_world(b);
    ENSURE(memcmp(sn_rig2d_bone_matrix(a, 1), sn_rig2d_bone_matrix(b, 1), 6 * sizeof(double)) == 0);
    params[0] = NAN;
    ENSURE(sn_group_run(&op, 1, NULL, 0.0, params, 1, &err) == SN_EINVAL && strstr(err.msg, "not finite") != NULL);
    op.anim = NULL;
    ENSURE(sn_group_check_op(&op, NULL, &err) == SN_EINVAL);
    free(a);
    free(b);
    free(an);
    free(d);
}

int main(void) {
    (void)ensure_random;
    RUN(test_world_matrices);
    RUN(test_animation_tweens);
    RUN(test_two_bone_ik_reaches);
    RUN(test_world_changed_redoes_part);
    RUN(test_world_changed_up_a_constraint);
    RUN(test_refuses_bad_layouts);
    RUN(test_group_poses_rigs);
    return END("test_rig2d");
}
