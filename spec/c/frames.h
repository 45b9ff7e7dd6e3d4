/*
 * Shared by the C-only IK tests (test_ik.c, test_ik_chain.c, test_ik_feet.c) and test_bvh.c: quaternion and
 * vector helpers in doubles and a reference model space composed top-down from a pose's local
 * transforms, written independently of the solvers and of sn_pose_to_model (uniform scales: the
 * x scale is taken as the joint's scale), and random rotations and directions from the file's
 * sequence. Quaternions are x, y, z, w. Include after fixtures.h (rnd).
 */
#ifndef SN_FRAMES_H
#define SN_FRAMES_H

#include <math.h>
#include <string.h>

#include "pose.h"
#include "skeleton.h"

/* o = a b (o may be a or b) */
static inline void qmul(const double *a, const double *b, double *o) {
    double r[4];
    r[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    r[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    r[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    r[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    memcpy(o, r, sizeof r);
}

/* o = the conjugate of a */
static inline void qconj(const double *a, double *o) {
    o[0] = -a[0];
    o[1] = -a[1];
    o[2] = -a[2];
    o[3] = a[3];
}

/* v rotated by the unit q: q v q* (o may be v) */
static inline void qrot(const double *q, const double *v, double *o) {
    double p[4] = {v[0], v[1], v[2], 0}, c[4], t[4];
    qconj(q, c);
    qmul(q, p, t);
    qmul(t, c, t);
    memcpy(o, t, 3 * sizeof(double));
}

static inline double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double norm3(const double *a) { return sqrt(dot3(a, a)); }
static inline void sub3(const double *a, const double *b, double *o) {
    o[0] = a[0] - b[0];
    o[1] = a[1] - b[1];
    o[2] = a[2] - b[2];
}
static inline double dist3(const double *a, const double *b) {
    double d[3];
    sub3(a, b, d);
    return norm3(d);
}
static inline void cross3(const double *a, const double *b, double *o) {
    double r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(o, r, sizeof r);
}
static inline void unit3(double *a) {
    double l = norm3(a);
    a[0] /= l;
    a[1] /= l;
    a[2] /= l;
}

/* a random unit quaternion, uniform over rotations (rnd: fixtures.h) */
static inline void random_quat(double *q) {
    double u1 = rnd(0, 1), u2 = rnd(0, 1), u3 = rnd(0, 1), a = sqrt(1 - u1), b = sqrt(u1);
    double tau = 2 * 3.14159265358979323846;
    q[0] = a * sin(tau * u2);
    q[1] = a * cos(tau * u2);
    q[2] = b * sin(tau * u3);
    q[3] = b * cos(tau * u3);
}

/* a random unit vector, uniform over directions */
static inline void random_dir(double *v) {
    do {
        v[0] = rnd(-1, 1);
        v[1] = rnd(-1, 1);
        v[2] = rnd(-1, 1);
    } while (dot3(v, v) > 1 || dot3(v, v) < 1e-4);
    unit3(v);
}

/* The model frame of joint j of `pose`: position p[3], unit rotation q[4] and uniform scale *s
   (s may be NULL when not wanted). */
static inline void ref_frame(const sn_pose *pose, int j, double *p, double *q, double *s) {
    const sn_skeleton *sk = sn_pose_skeleton(pose);
    float trs[10];
    double t[3], lq[4], l, own;
    int parent = sn_skeleton_parent(sk, j), i;
    if (s == NULL) s = &own;
    sn_pose_get(pose, j, trs);
    l = sqrt((double)trs[3] * trs[3] + (double)trs[4] * trs[4] + (double)trs[5] * trs[5] + (double)trs[6] * trs[6]);
    for (i = 0; i < 4; i++) lq[i] = trs[3 + i] / l;
    for (i = 0; i < 3; i++) t[i] = trs[i];
    if (parent < 0) {
        memcpy(p, t, sizeof t);
        memcpy(q, lq, sizeof lq);
        *s = trs[7];
        return;
    }
    ref_frame(pose, parent, p, q, s);
    qrot(q, t, t);
    for (i = 0; i < 3; i++) p[i] += *s * t[i];
    qmul(q, lq, q);
    *s *= trs[7];
}

/* a model frame as one value */
typedef struct mframe {
    double p[3]; /* position */
    double q[4]; /* rotation x, y, z, w, unit */
    double s;    /* uniform scale */
} mframe;

static inline void ref_model(const sn_pose *pose, int j, mframe *out) { ref_frame(pose, j, out->p, out->q, &out->s); }

/* the model position of joint j of `pose` */
static inline void ref_pos(const sn_pose *pose, int j, double *p) {
    double q[4];
    ref_frame(pose, j, p, q, NULL);
}

#endif
