/*
 * Dynamic bones in skeleton mode: the chain's particles are a root joint and its descendants
 * (and virtual tips). Their shape (validation in linear time), reading the animated pose into
 * model transforms and world positions each update, and writing the simulated rotations back
 * into the pose (each joint turned by the best-fit rotation of its children's directions).
 */
#include "chain_internal.h"

#include <stdio.h>

#include "pose.h"
#include "skeleton.h"

/* what is wrong with a pose read (the joint is reported beside it) */
typedef enum pose_fault { POSE_OK = 0, POSE_NOT_FINITE, POSE_ZERO_ROTATION, POSE_TOO_FAR } pose_fault;

/* ---- the particles of the joints ------------------------------------------------------------ */

sn_status sn_chain_skeleton_shape(const sn_chain_def *def, chain_shape *sh, sn_error *err) {
    const sn_skeleton *s = def->skeleton;
    int count = sn_skeleton_count(s), root = def->root, j, nj = 0, deepest = 0, leaves = 0, a = 0, *depth, *kids;
    size_t bytes;
    if (root < 0 || root >= count)
        return sn_fail_arg(err, 1, SN_EINVAL, "root joint %d is out of range (1 .. %d)", root + 1, count);
    /* depth[j - root]: the depth below the root of a joint of the chain, -1 for a joint outside
       (parents come before children, so a joint is in when its parent is); kids[j - root]: its
       children in the chain (a leaf gets a virtual tip) */
    bytes = 2 * (size_t)(count - root) * sizeof(int);
    depth = (int *)sn_scratch_alloc(def->alloc, bytes);
    if (depth == NULL) return sn_fail_arg(err, 1, SN_ENOMEM, "out of memory checking the skeleton");
    kids = depth + (count - root);
    for (j = root; j < count; j++) {
        int p = sn_skeleton_parent(s, j), d = j == root ? 0 : p >= root && depth[p - root] >= 0 ? depth[p - root] + 1 : -1;
        depth[j - root] = d;
        kids[j - root] = 0;
        if (d < 0) continue;
        if (d > 0) kids[p - root]++;
        nj++;
        if (d > deepest) deepest = d;
    }
    for (j = root; j < count; j++) leaves += depth[j - root] >= 0 && kids[j - root] == 0;
    sn_scratch_free(def->alloc, depth, bytes);
    for (j = sn_skeleton_parent(s, root); j >= 0; j = sn_skeleton_parent(s, j)) a++;
    sh->njoint = nj;
    sh->nanc = a;
    sh->n = def->end_length > 0.0 ? nj + leaves : nj;
    sh->max_depth = def->end_length > 0.0 ? deepest + 1 : deepest; /* the deepest joint is a leaf */
    return SN_OK;
}

/* the particle of joint j among the first k particles (sorted by joint), -1 for none */
static int particle_of(const sn_chain *c, int k, int j) {
    int lo = 0, hi = k - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c->p[mid].joint == j) return mid;
        if (c->p[mid].joint < j) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

void sn_chain_skeleton_joints(sn_chain *c, const sn_chain_def *def) {
    const sn_skeleton *s = def->skeleton;
    int count = sn_skeleton_count(s), j, k = 0;
    c->skel = s;
    c->root_joint = def->root;
    for (j = def->root; j < count; j++) { /* a joint is in when its parent is (parents come first) */
        int parent = -1, pj = sn_skeleton_parent(s, j);
        particle *p;
        if (j != def->root && (pj < def->root || (parent = particle_of(c, k, pj)) < 0)) continue;
        p = &c->p[k];
        p->joint = j;
        p->parent = parent;
        p->depth = parent < 0 ? 0 : c->p[parent].depth + 1;
        k++;
    }
    c->njoint = c->n = k;
}

/* ---- transforms ------------------------------------------------------------------------------ */

/* 3x4 row-major affine matrices: o = a b */
static void affine_mul(const double *a, const double *b, double *o) {
    double r[12];
    int i, k;
    for (i = 0; i < 3; i++) {
        for (k = 0; k < 4; k++) r[4 * i + k] = a[4 * i] * b[k] + a[4 * i + 1] * b[4 + k] + a[4 * i + 2] * b[8 + k];
        r[4 * i + 3] += a[4 * i + 3];
    }
    memcpy(o, r, sizeof r);
}

static void affine_point(const double *m, const double *v, double *o) {
    set3(o, m[0] * v[0] + m[1] * v[1] + m[2] * v[2] + m[3], m[4] * v[0] + m[5] * v[1] + m[6] * v[2] + m[7],
         m[8] * v[0] + m[9] * v[1] + m[10] * v[2] + m[11]);
}

static void affine_identity(double *m) {
    memset(m, 0, 12 * sizeof *m);
    m[0] = m[5] = m[10] = 1.0;
}

/* the local matrix T * R * S and the unit rotation of a trs */
static pose_fault local_of(const float *trs, double *m, sn_quat *q) {
    double r[9];
    int i;
    for (i = 0; i < 10; i++)
        if (!((double)trs[i] - (double)trs[i] == 0.0)) return POSE_NOT_FINITE; /* NaN or infinite */
    q->x = trs[3]; q->y = trs[4]; q->z = trs[5]; q->w = trs[6];
    if (qunit(q) != SN_OK) return POSE_ZERO_ROTATION;
    quat_matrix(q, r);
    for (i = 0; i < 3; i++) {
        m[4 * i] = r[3 * i] * trs[7];
        m[4 * i + 1] = r[3 * i + 1] * trs[8];
        m[4 * i + 2] = r[3 * i + 2] * trs[9];
        m[4 * i + 3] = trs[i];
    }
    return POSE_OK;
}

/* rotation of a 3x3 linear map (row-major): its columns orthonormalised (Gram-Schmidt, right-
   handed), then turned into a quaternion (Shepperd's method) */
static void rotation_of(const double *l, sn_quat *q) {
    double x[3], y[3], z[3], m[9], t;
    set3(x, l[0], l[3], l[6]);
    set3(y, l[1], l[4], l[7]);
    if (unit3(x, x) == 0.0) set3(x, 1, 0, 0);
    madd3(y, y, -dot3(x, y), x);
    if (unit3(y, y) == 0.0) perp3(y, x, y);
    cross3(z, x, y);
    m[0] = x[0]; m[1] = y[0]; m[2] = z[0];
    m[3] = x[1]; m[4] = y[1]; m[5] = z[1];
    m[6] = x[2]; m[7] = y[2]; m[8] = z[2];
    t = m[0] + m[4] + m[8];
    if (t > 0.0) {
        double s = 2.0 * sqrt(1.0 + t);
        q->w = 0.25 * s; q->x = (m[7] - m[5]) / s; q->y = (m[2] - m[6]) / s; q->z = (m[3] - m[1]) / s;
    } else if (m[0] > m[4] && m[0] > m[8]) {
        double s = 2.0 * sqrt(1.0 + m[0] - m[4] - m[8]);
        q->w = (m[7] - m[5]) / s; q->x = 0.25 * s; q->y = (m[1] + m[3]) / s; q->z = (m[2] + m[6]) / s;
    } else if (m[4] > m[8]) {
        double s = 2.0 * sqrt(1.0 + m[4] - m[0] - m[8]);
        q->w = (m[2] - m[6]) / s; q->x = (m[1] + m[3]) / s; q->y = 0.25 * s; q->z = (m[5] + m[7]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + m[8] - m[0] - m[4]);
        q->w = (m[3] - m[1]) / s; q->x = (m[2] + m[6]) / s; q->y = (m[5] + m[7]) / s; q->z = 0.25 * s;
    }
    (void)qunit(q);
}

/* inverse of the 3x3 linear part of the 3x4 matrix w into li (row-major 3x3); 0 if singular */
static int linear_inverse(const double *w, double *li) {
    double m[9], c0, c1, c2, det, id;
    m[0] = w[0]; m[1] = w[1]; m[2] = w[2];
    m[3] = w[4]; m[4] = w[5]; m[5] = w[6];
    m[6] = w[8]; m[7] = w[9]; m[8] = w[10];
    c0 = m[4] * m[8] - m[5] * m[7];
    c1 = m[5] * m[6] - m[3] * m[8];
    c2 = m[3] * m[7] - m[4] * m[6];
    det = m[0] * c0 + m[1] * c1 + m[2] * c2;
    if (!(fabs(det) > 1e-300) || !sn_isfinite(1.0 / det)) return 0;
    id = 1.0 / det;
    li[0] = c0 * id; li[1] = (m[2] * m[7] - m[1] * m[8]) * id; li[2] = (m[1] * m[5] - m[2] * m[4]) * id;
    li[3] = c1 * id; li[4] = (m[0] * m[8] - m[2] * m[6]) * id; li[5] = (m[2] * m[3] - m[0] * m[5]) * id;
    li[6] = c2 * id; li[7] = (m[1] * m[6] - m[0] * m[7]) * id; li[8] = (m[0] * m[4] - m[1] * m[3]) * id;
    return 1;
}

/* ---- reading the pose ---------------------------------------------------------------------------- */

/* The model transform of the root joint's parent (identity for a skeleton root) and its rotation,
   from `pose` or, when NULL, the rest pose. */
static pose_fault ancestors_model(const sn_chain *c, const sn_pose *pose, double *m, sn_quat *q) {
    int k;
    affine_identity(m);
    q->x = q->y = q->z = 0.0;
    q->w = 1.0;
    for (k = 0; k < c->nanc; k++) {
        float trs[10];
        double l[12];
        sn_quat lq;
        pose_fault f;
        if (pose != NULL) sn_pose_get(pose, c->anc[k], trs);
        else sn_skeleton_rest(c->skel, c->anc[k], trs);
        if ((f = local_of(trs, l, &lq)) != POSE_OK) return f;
        affine_mul(m, l, m);
        (void)sn_quat_mul(q, &lq, q, NULL);
    }
    return qunit(q) == SN_OK ? POSE_OK : POSE_ZERO_ROTATION;
}

/* The frames whose motion the chain sees: carry1 (the root matrix, or with it the root's parent
   in parent space: pm, pq) and root1 (the root joint in the world). `w` is the root matrix. */
static void read_frames(sn_chain *c, const double *w, const double *pm, const sn_quat *pq) {
    double lin[9];
    sn_quat wq;
    lin[0] = w[0]; lin[1] = w[1]; lin[2] = w[2];
    lin[3] = w[4]; lin[4] = w[5]; lin[5] = w[6];
    lin[6] = w[8]; lin[7] = w[9]; lin[8] = w[10];
    rotation_of(lin, &wq);
    if (c->space == SN_CHAIN_PARENT) {
        double o[3] = {0, 0, 0};
        set3(o, pm[3], pm[7], pm[11]);
        (void)sn_quat_mul(&wq, pq, &c->carry1.q, NULL);
        (void)qunit(&c->carry1.q);
        affine_point(w, o, c->carry1.t);
    } else {
        c->carry1.q = wq;
        set3(c->carry1.t, w[3], w[7], w[11]);
    }
    (void)sn_quat_mul(&wq, &c->jd[0].q, &c->root1.q, NULL);
    (void)qunit(&c->root1.q);
    copy3(c->root1.t, c->p[0].a1);
    c->pq = *pq;
}

/* Reads the animated pose (NULL: the rest pose) into model transforms and world positions a1,
   and sets the frames carry1 and root1. `w` is the root matrix (3x4 row-major). A fault names
   the joint in *bad: a non-finite or zero-rotation transform, or a position beyond range. */
static pose_fault skeleton_read(sn_chain *c, const sn_pose *pose, const double *w, int *bad) {
    double pm[12];
    sn_quat pq;
    pose_fault f;
    int i;
    *bad = c->nanc > 0 ? c->anc[0] : c->root_joint;
    if ((f = ancestors_model(c, pose, pm, &pq)) != POSE_OK) return f;
    for (i = 0; i < c->n; i++) {
        particle *p = &c->p[i];
        jointdata *J = &c->jd[i];
        float trs[10];
        double l[12];
        sn_quat lq;
        if (p->tip) { /* end_length times the leaf's own translation, in the leaf's frame */
            const particle *leaf = &c->p[p->parent];
            double t[3];
            if (pose != NULL) sn_pose_get(pose, leaf->joint, trs);
            else sn_skeleton_rest(c->skel, leaf->joint, trs);
            set3(t, trs[0] * c->end_length, trs[1] * c->end_length, trs[2] * c->end_length);
            affine_point(c->jd[p->parent].m, t, J->mp);
            affine_point(w, J->mp, p->a1);
            *bad = leaf->joint;
            if (!inrange3(p->a1)) return POSE_TOO_FAR;
            continue;
        }
        *bad = p->joint;
        if (pose != NULL) sn_pose_get(pose, p->joint, trs);
        else sn_skeleton_rest(c->skel, p->joint, trs);
        if ((f = local_of(trs, l, &lq)) != POSE_OK) return f;
        J->lq = lq;
        if (p->parent < 0) { /* products of unit quaternions: unit to rounding, no normalising */
            affine_mul(pm, l, J->m);
            (void)sn_quat_mul(&pq, &lq, &J->q, NULL);
        } else {
            affine_mul(c->jd[p->parent].m, l, J->m);
            (void)sn_quat_mul(&c->jd[p->parent].q, &lq, &J->q, NULL);
        }
        set3(J->mp, J->m[3], J->m[7], J->m[11]);
        affine_point(w, J->mp, p->a1);
        if (!inrange3(p->a1)) return POSE_TOO_FAR; /* also catches an overflow further up */
    }
    read_frames(c, w, pm, &pq);
    return POSE_OK;
}

void sn_chain_skeleton_rest(sn_chain *c) {
    const sn_skeleton *s = c->skel;
    int j, a = c->nanc, bad;
    double w[12];
    for (j = sn_skeleton_parent(s, c->root_joint); j >= 0; j = sn_skeleton_parent(s, j)) c->anc[--a] = j;
    affine_identity(w);
    (void)skeleton_read(c, NULL, w, &bad); /* the skeleton validated its rest pose */
}

/* ---- writing the rotations back ---------------------------------------------------------------- */

/* Horn's best-fit rotation (unit quaternion) turning the unit directions a_k onto s_k, whose
   correlation is S[3 * i + j] = sum a_k[i] s_k[j]: the eigenvector of the largest eigenvalue of
   Horn's 4x4 matrix N, by power iteration on N + m I (m the number of pairs: N's eigenvalues are
   in [-m, m]) started from `start`. Where the fit leaves freedom (collinear directions), the
   start's share of it is kept. */
static void best_fit(const double *S, double m, const sn_quat *start, sn_quat *out) {
    double sxx = S[0], sxy = S[1], sxz = S[2], syx = S[3], syy = S[4], syz = S[5], szx = S[6], szy = S[7], szz = S[8];
    double N[16] = {
        sxx + syy + szz, syz - szy, szx - sxz, sxy - syx,
        syz - szy, sxx - syy - szz, sxy + syx, szx + sxz,
        szx - sxz, sxy + syx, -sxx + syy - szz, syz + szy,
        sxy - syx, szx + sxz, syz + szy, -sxx - syy + szz};
    double v[4], u[4], l;
    int it, i;
    v[0] = start->w; v[1] = start->x; v[2] = start->y; v[3] = start->z;
    for (it = 0; it < 64; it++) {
        for (i = 0; i < 4; i++) u[i] = N[4 * i] * v[0] + N[4 * i + 1] * v[1] + N[4 * i + 2] * v[2] + N[4 * i + 3] * v[3] + m * v[i];
        l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3]);
        if (!(l > 0.0)) break;
        for (i = 0; i < 4; i++) v[i] = u[i] / l;
    }
    out->w = v[0]; out->x = v[1]; out->y = v[2]; out->z = v[3];
    if (qunit(out) != SN_OK) *out = *start;
}

/* The rotation taking joint particle i's animated child directions onto its simulated ones
   (model space; `winv` maps world directions to model space); 0 when no child has both. */
static int joint_turn(const sn_chain *c, int i, const double *winv, sn_quat *out) {
    const particle *p = &c->p[i];
    double S[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, xi[3];
    sn_quat sum = {0, 0, 0, 0}, first = {0, 0, 0, 1};
    int k, m = 0, a, b;
    lerp3(xi, p->xp, p->x, c->alpha);
    for (k = p->child; k >= 0; k = c->p[k].sibling) {
        const particle *q = &c->p[k];
        double an[3], sw[3], sn[3];
        sn_quat arc;
        sub3(an, c->jd[k].mp, c->jd[i].mp);
        lerp3(sw, q->xp, q->x, c->alpha);
        sub3(sw, sw, xi);
        mat_apply(winv, sw, sn);
        if (unit3(an, an) == 0.0 || unit3(sn, sn) == 0.0) continue;
        for (a = 0; a < 3; a++)
            for (b = 0; b < 3; b++) S[3 * a + b] += an[a] * sn[b];
        sn_quat_arc_unit(an, sn, &arc);
        if (m == 0) first = arc;
        if (sn_quat_dot4(&arc, &first) < 0.0) {
            arc.x = -arc.x; arc.y = -arc.y; arc.z = -arc.z; arc.w = -arc.w;
        }
        sum.x += arc.x; sum.y += arc.y; sum.z += arc.z; sum.w += arc.w;
        m++;
    }
    if (m == 0) return 0;
    if (m == 1) *out = first;
    else {
        if (qunit(&sum) != SN_OK) sum = first;
        best_fit(S, (double)m, &sum, out);
    }
    return 1;
}

/* Writes the simulated rotations into the pose, parents before children: a joint with simulated
   children turns its animated model rotation by joint_turn; the others keep their local rotation. */
static void write_back(sn_chain *c, sn_pose *pose, const double *winv) {
    int i;
    for (i = 0; i < c->njoint; i++) {
        particle *p = &c->p[i];
        jointdata *J = &c->jd[i];
        const sn_quat *parent = p->parent < 0 ? &c->pq : &c->jd[p->parent].nq;
        float trs[10];
        sn_quat turn, local, pc;
        /* products of unit quaternions stay unit to rounding: no normalising on the way */
        if (!joint_turn(c, i, winv, &turn)) {
            (void)sn_quat_mul(parent, &J->lq, &J->nq, NULL);
            continue;
        }
        (void)sn_quat_mul(&turn, &J->q, &J->nq, NULL);
        sn_quat_conj(parent, &pc);
        (void)sn_quat_mul(&pc, &J->nq, &local, NULL);
        sn_pose_get(pose, p->joint, trs);
        if (sn_quat_dot4(&local, &J->lq) < 0.0) { /* keep the sign of the animation */
            local.x = -local.x; local.y = -local.y; local.z = -local.z; local.w = -local.w;
        }
        trs[3] = (float)local.x;
        trs[4] = (float)local.y;
        trs[5] = (float)local.z;
        trs[6] = (float)local.w;
        sn_pose_set(pose, p->joint, trs);
    }
}

/* ---- the update ---------------------------------------------------------------------------------- */

/* The root matrix (16 numbers, column-major; NULL for the identity) as a 3x4 row-major w; arg 3
   at fault. */
static sn_status read_root_matrix(const double *root_matrix, double *w, sn_error *err) {
    int i;
    affine_identity(w);
    if (root_matrix != NULL) {
        for (i = 0; i < 16; i++) {
            char what[48];
            if (inrange(root_matrix[i])) continue;
            snprintf(what, sizeof what, "element %d of the root matrix", i + 1);
            if (!sn_isfinite(root_matrix[i])) return sn_fail_arg(err, 3, SN_EINVAL, "%s is not finite", what);
            return sn_fail_range(err, 3, what, root_matrix[i], -SN_CHAIN_MAX_COORD, SN_CHAIN_MAX_COORD);
        }
        if (root_matrix[3] != 0.0 || root_matrix[7] != 0.0 || root_matrix[11] != 0.0 || root_matrix[15] != 1.0)
            return sn_fail_arg(err, 3, SN_EINVAL, "root matrix is not affine (its last row must be 0 0 0 1)");
        for (i = 0; i < 3; i++) { /* column-major 4x4 to row-major 3x4 */
            w[4 * i] = root_matrix[i];
            w[4 * i + 1] = root_matrix[4 + i];
            w[4 * i + 2] = root_matrix[8 + i];
            w[4 * i + 3] = root_matrix[12 + i];
        }
    }
    return SN_OK;
}

sn_status sn_chain_update(sn_chain *c, double dt, struct sn_pose *pose, const double *root_matrix, sn_error *err) {
    double w[12], winv[9];
    int i, bad;
    pose_fault f;
    sn_status st;
    if (c->skel == NULL) return sn_fail(err, SN_EINVAL, "chain has no skeleton (use step)");
    if ((st = sn_chain_check_dt(dt, err)) != SN_OK) return st;
    if (pose == NULL || sn_pose_skeleton(pose) != c->skel)
        return sn_fail_arg(err, 2, SN_EINVAL, "pose of another skeleton");
    if ((st = read_root_matrix(root_matrix, w, err)) != SN_OK) return st;
    if (!linear_inverse(w, winv)) return sn_fail_arg(err, 3, SN_EINVAL, "root matrix is singular");
    if ((f = skeleton_read(c, pose, w, &bad)) != POSE_OK) {
        const char *name = sn_skeleton_name(c->skel, bad);
        /* restore the last good animated positions before failing */
        for (i = 0; i < c->n; i++) copy3(c->p[i].a1, c->p[i].a0);
        c->carry1 = c->carry0;
        c->root1 = c->root0;
        if (f == POSE_NOT_FINITE) return sn_fail_arg(err, 2, SN_EINVAL, "joint '%s' of the pose is not finite", name);
        if (f == POSE_ZERO_ROTATION) return sn_fail_arg(err, 2, SN_EINVAL, "joint '%s' of the pose has a zero rotation", name);
        return sn_fail_arg(err, 2, SN_EINVAL, "joint '%s' of the pose is placed out of range (%g .. %g)", name,
                           -SN_CHAIN_MAX_COORD, SN_CHAIN_MAX_COORD);
    }
    st = sn_chain_advance(c, dt, err);
    if (st != SN_OK) return st;
    write_back(c, pose, winv);
    return SN_OK;
}
