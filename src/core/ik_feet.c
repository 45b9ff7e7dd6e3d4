/* Foot placement (see ik.h): phase 1 reads each leg from the pose and says where to ask the
   ground; phase 2 takes the ground's heights and normals, smooths the pelvis drop and the foot
   normals, translates the pelvis, solves each leg with a two-bone solver and turns each foot. */
#include "ik_internal.h"

#include <stdio.h>
#include <string.h>

/* Longest path between the pelvis and a leg's root that prepare composes from the pelvis's frame. */
#define SN_IK_FEET_PATH 16
/* cos(SN_IK_FEET_MAX_NORMAL_LIMIT): cos(80 degrees) */
#define FEET_MIN_COS 0.17364817766693041

/* what phase 1 keeps of one leg, model space */
typedef struct leg_read {
    double a[3], b[3], c[3];  /* root, mid and tip positions */
    sn_quat tip;              /* the tip's model rotation */
    double h;                 /* the tip's height above the flat floor (along up) */
    double reach;             /* thigh + shin, model units */
    double hinge[3];          /* the knee's current hinge in the mid frame (u x v), unit */
    int bent;                 /* 1 when the knee bends enough in the pose for `hinge` */
    sn_quat root, mid;        /* the root's and mid joint's model rotations */
    sn_quat parent;           /* the root's parent's model rotation */
    sn_quat lroot, lmid, ltip; /* the local rotations of root, mid and tip (unit) */
} leg_read;

struct sn_ik_feet {
    const sn_skeleton *skeleton;  /* outlives the solver */
    size_t size;                  /* of the whole block (sn_ik_feet_size) */
    int pelvis, count;
    int follow[SN_IK_FEET_MAX];   /* 1: the knee's hinge follows the pose (no mid_axis given) */
    double axis[SN_IK_FEET_MAX][3]; /* the hinge last given to each leg's two-bone solver (mid frame) */
    int legs[SN_IK_FEET_MAX][3];
    double up[3];                 /* unit */
    double max_drop, normal_limit, smoothing;
    double cos_limit, sin_limit;  /* of normal_limit */
    sn_ik_two_bone *solver[SN_IK_FEET_MAX]; /* inside this block, after it */
    /* state */
    int started;                  /* 0: the next solve starts at its targets */
    double offset, velocity;      /* pelvis drop along up and its rate */
    double low;                   /* the target held low (see SN_IK_FEET_RISE) */
    double normal[SN_IK_FEET_MAX][3], nvel[SN_IK_FEET_MAX][3]; /* smoothed foot normals and rates */
    /* per leg, the joints from below the pelvis down to the root's parent (top down): prepare
       composes them onto the pelvis's frame instead of walking each leg up to the root; depth -1
       for a path longer than SN_IK_FEET_PATH (then the leg walks up) */
    int path[SN_IK_FEET_MAX][SN_IK_FEET_PATH];
    int depth[SN_IK_FEET_MAX];
    /* the scratch between prepare and solve */
    const sn_pose *prepared;
    sn_ik_frame pelvis_parent;    /* the pelvis's parent's model frame */
    leg_read read[SN_IK_FEET_MAX];
};

/* o = v / |v| for a finite non-zero v, scaled by its largest component first (by division: a
   denormal one has no finite reciprocal); 0 when v is zero */
static int unit_of(const double *v, double *o) {
    double m = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2]))), a[3];
    if (!(m > 0.0)) return 0;
    a[0] = v[0] / m;
    a[1] = v[1] / m;
    a[2] = v[2] / m;
    ik_scale(a, 1.0 / ik_len(a), o);
    return 1;
}

static const char *const role[3] = {"root", "mid", "tip"};

void sn_ik_feet_def_init(sn_ik_feet_def *def) {
    int i;
    memset(def, 0, sizeof *def);
    def->pelvis = -1;
    def->up.y = 1.0;
    for (i = 0; i < SN_IK_FEET_MAX; i++) def->legs[i][0] = def->legs[i][1] = def->legs[i][2] = -1;
    def->max_drop = HUGE_VAL;
    def->normal_limit = 0.25 * SN_IK_PI;
    def->smoothing = 0.1;
}

static sn_status check_max_drop(double v, sn_error *err) {
    if (v != v) return sn_fail_arg(err, 1, SN_EINVAL, "'max_drop' is not a number");
    if (!(v >= 0.0)) return sn_fail_range(err, 1, "'max_drop'", v, 0.0, HUGE_VAL);
    return SN_OK;
}

static sn_status check_normal_limit(double v, sn_error *err) {
    if (!sn_isfinite(v)) return sn_fail_arg(err, 1, SN_EINVAL, "'normal_limit' is not finite");
    if (!(v >= 0.0 && v <= SN_IK_FEET_MAX_NORMAL_LIMIT))
        return sn_fail_range(err, 1, "'normal_limit'", v, 0.0, SN_IK_FEET_MAX_NORMAL_LIMIT);
    return SN_OK;
}

static sn_status check_smoothing(double v, sn_error *err) {
    if (!sn_isfinite(v)) return sn_fail_arg(err, 1, SN_EINVAL, "'smoothing' is not finite");
    if (!(v >= 0.0)) return sn_fail_range(err, 1, "'smoothing'", v, 0.0, HUGE_VAL);
    return SN_OK;
}

static int is_ancestor(const sn_skeleton *s, int a, int j) {
    for (j = sn_skeleton_parent(s, j); j >= 0; j = sn_skeleton_parent(s, j))
        if (j == a) return 1;
    return 0;
}

sn_status sn_ik_feet_validate(const sn_ik_feet_def *def, sn_error *err) {
    const sn_skeleton *s;
    sn_status st;
    int i, k, l, m, n;
    if (def == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no foot-placement definition");
    if ((s = def->skeleton) == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no skeleton");
    n = sn_skeleton_count(s);
    if (def->pelvis < 0 || def->pelvis >= n)
        return sn_fail_arg(err, 1, SN_EINVAL, "pelvis joint %d is out of range (1 .. %d)", def->pelvis + 1, n);
    if ((st = sn_ik_check_vec(&def->up, "up", 1, err)) != SN_OK) return st;
    if (def->count < 1 || def->count > SN_IK_FEET_MAX)
        return sn_fail_arg(err, 1, SN_EINVAL, "%d legs is out of range (1 .. %d)", def->count, SN_IK_FEET_MAX);
    for (l = 0; l < def->count; l++) {
        const int *j = def->legs[l];
        for (i = 0; i < 3; i++)
            if (j[i] < 0 || j[i] >= n)
                return sn_fail_arg(err, 1, SN_EINVAL, "legs[%d]: %s joint %d is out of range (1 .. %d)", l + 1, role[i],
                                   j[i] + 1, n);
        for (i = 1; i < 3; i++)
            if (sn_skeleton_parent(s, j[i]) != j[i - 1])
                return sn_fail_arg(err, 1, SN_EINVAL, "legs[%d]: joints do not form a chain: %s '%s' is not a child of %s '%s'",
                                   l + 1, role[i], sn_skeleton_name(s, j[i]), role[i - 1], sn_skeleton_name(s, j[i - 1]));
        if (!is_ancestor(s, def->pelvis, j[0]))
            return sn_fail_arg(err, 1, SN_EINVAL, "legs[%d]: root '%s' is not below the pelvis '%s'", l + 1,
                               sn_skeleton_name(s, j[0]), sn_skeleton_name(s, def->pelvis));
        for (m = 0; m < l; m++)
            for (i = 0; i < 3; i++)
                for (k = 0; k < 3; k++)
                    if (def->legs[m][k] == j[i])
                        return sn_fail_arg(err, 1, SN_EINVAL, "legs[%d] and legs[%d] share the joint '%s'", m + 1, l + 1,
                                           sn_skeleton_name(s, j[i]));
        if (!sn_isfinite(def->mid_axis[l].x) || !sn_isfinite(def->mid_axis[l].y) || !sn_isfinite(def->mid_axis[l].z))
            return sn_fail_arg(err, 1, SN_EINVAL, "legs[%d]: 'mid_axis' is not finite", l + 1);
    }
    if ((st = check_max_drop(def->max_drop, err)) != SN_OK) return st;
    if ((st = check_normal_limit(def->normal_limit, err)) != SN_OK) return st;
    return check_smoothing(def->smoothing, err);
}

size_t sn_ik_feet_size(const sn_ik_feet_def *def, sn_error *err) {
    sn_ik_two_bone_def d;
    size_t leg;
    if (sn_ik_feet_validate(def, err) != SN_OK) return 0;
    /* the size of a two-bone solver does not depend on its definition: a valid one of leg 1 */
    sn_ik_two_bone_def_init(&d);
    d.skeleton = def->skeleton;
    memcpy(d.joints, def->legs[0], sizeof d.joints);
    leg = sn_ik_two_bone_size(&d, NULL);
    return SN_ALIGN16(sizeof(sn_ik_feet)) + (size_t)def->count * SN_ALIGN16(leg);
}

/* the rest pose's local transform of `joint`: translation, rotation (unit) and scale */
static void rest_local(const sn_skeleton *s, int joint, double *t, sn_quat *q, double *sc) {
    float trs[10];
    double l;
    sn_skeleton_rest(s, joint, trs);
    t[0] = trs[0];
    t[1] = trs[1];
    t[2] = trs[2];
    q->x = trs[3];
    q->y = trs[4];
    q->z = trs[5];
    q->w = trs[6];
    l = sqrt(sn_quat_dot4(q, q));
    if (l > 0.0) {
        q->x /= l;
        q->y /= l;
        q->z /= l;
        q->w /= l;
    } else {
        q->w = 1.0;
    }
    *sc = (fabs(trs[7]) + fabs(trs[8]) + fabs(trs[9])) / 3.0;
}

/* The knee's hinge of the rest pose in the mid joint's frame: thigh u and shin v seen from the
   mid joint; about shin x thigh (tt x u) the two-bone solver keeps the knee on the side it bends
   to; (0, 0, 1) for a straight leg. */
static void rest_knee(const sn_skeleton *s, const int *j, double *axis) {
    double tm[3], tt[3], u[3], n[3], sc;
    sn_quat qm, qt, c;
    rest_local(s, j[1], tm, &qm, &sc);
    rest_local(s, j[2], tt, &qt, &sc);
    c.x = -qm.x;
    c.y = -qm.y;
    c.z = -qm.z;
    c.w = qm.w;
    ik_rotate(&c, tm, u); /* the thigh's direction in the mid frame */
    ik_cross(tt, u, n);
    if (ik_unit(n, 1e-6 * ik_len(tt) * ik_len(u), axis) == 0.0) {
        axis[0] = 0.0;
        axis[1] = 0.0;
        axis[2] = 1.0;
    }
}

sn_status sn_ik_feet_init(void *mem, size_t size, const sn_ik_feet_def *def, sn_error *err) {
    size_t need = sn_ik_feet_size(def, err), head, leg;
    sn_ik_feet *ik = (sn_ik_feet *)mem;
    char *p;
    int l;
    if (need == 0) return err != NULL ? err->code : SN_EINVAL;
    if (mem == NULL || size < need) return sn_fail(err, SN_ENOMEM, "foot-placement solver needs %lu bytes", (unsigned long)need);
    head = SN_ALIGN16(sizeof(sn_ik_feet));
    leg = (need - head) / (size_t)def->count;
    memset(ik, 0, sizeof *ik);
    ik->skeleton = def->skeleton;
    ik->size = need;
    ik->pelvis = def->pelvis;
    ik->count = def->count;
    {
        const double u[3] = {def->up.x, def->up.y, def->up.z};
        (void)unit_of(u, ik->up); /* validated: finite, non-zero */
    }
    ik->max_drop = def->max_drop;
    ik->normal_limit = def->normal_limit;
    ik->cos_limit = cos(def->normal_limit);
    ik->sin_limit = sin(def->normal_limit);
    ik->smoothing = def->smoothing;
    p = (char *)mem + head;
    for (l = 0; l < def->count; l++) {
        sn_ik_two_bone_def d;
        double axis[3];
        sn_status st;
        memcpy(ik->legs[l], def->legs[l], sizeof ik->legs[l]);
        rest_knee(def->skeleton, def->legs[l], axis);
        sn_ik_two_bone_def_init(&d);
        d.skeleton = def->skeleton;
        memcpy(d.joints, def->legs[l], sizeof d.joints);
        if (def->mid_axis[l].x != 0.0 || def->mid_axis[l].y != 0.0 || def->mid_axis[l].z != 0.0) {
            d.mid_axis = def->mid_axis[l];
        } else {
            ik->follow[l] = 1;
            d.mid_axis.x = axis[0];
            d.mid_axis.y = axis[1];
            d.mid_axis.z = axis[2];
        }
        ik->axis[l][0] = d.mid_axis.x;
        ik->axis[l][1] = d.mid_axis.y;
        ik->axis[l][2] = d.mid_axis.z;
        (void)unit_of(ik->axis[l], ik->axis[l]);
        {
            int k, n = 0, stack[SN_IK_FEET_PATH];
            for (k = sn_skeleton_parent(def->skeleton, def->legs[l][0]); k != def->pelvis && n < SN_IK_FEET_PATH;
                 k = sn_skeleton_parent(def->skeleton, k))
                stack[n++] = k;
            if (k != def->pelvis) {
                ik->depth[l] = -1;
            } else {
                ik->depth[l] = n;
                for (k = 0; k < n; k++) ik->path[l][k] = stack[n - 1 - k];
            }
        }
        ik->solver[l] = (sn_ik_two_bone *)p;
        if ((st = sn_ik_two_bone_init(p, leg, &d, err)) != SN_OK) return st;
        p += leg;
    }
    return SN_OK;
}

const sn_skeleton *sn_ik_feet_skeleton(const sn_ik_feet *ik) { return ik->skeleton; }
int sn_ik_feet_pelvis(const sn_ik_feet *ik) { return ik->pelvis; }
int sn_ik_feet_count(const sn_ik_feet *ik) { return ik->count; }
int sn_ik_feet_joint(const sn_ik_feet *ik, int leg, int i) {
    return leg >= 0 && leg < ik->count && i >= 0 && i < 3 ? ik->legs[leg][i] : -1;
}
sn_vec3 sn_ik_feet_up(const sn_ik_feet *ik) {
    sn_vec3 v;
    v.x = ik->up[0];
    v.y = ik->up[1];
    v.z = ik->up[2];
    return v;
}
double sn_ik_feet_max_drop(const sn_ik_feet *ik) { return ik->max_drop; }
double sn_ik_feet_normal_limit(const sn_ik_feet *ik) { return ik->normal_limit; }
double sn_ik_feet_smoothing(const sn_ik_feet *ik) { return ik->smoothing; }
double sn_ik_feet_offset(const sn_ik_feet *ik) { return ik->offset; }

sn_status sn_ik_feet_set_max_drop(sn_ik_feet *ik, double v, sn_error *err) {
    sn_status st = check_max_drop(v, err);
    if (st == SN_OK) ik->max_drop = v;
    return st;
}
sn_status sn_ik_feet_set_normal_limit(sn_ik_feet *ik, double v, sn_error *err) {
    sn_status st = check_normal_limit(v, err);
    if (st == SN_OK) {
        ik->normal_limit = v;
        ik->cos_limit = cos(v);
        ik->sin_limit = sin(v);
    }
    return st;
}
sn_status sn_ik_feet_set_smoothing(sn_ik_feet *ik, double v, sn_error *err) {
    sn_status st = check_smoothing(v, err);
    if (st == SN_OK) ik->smoothing = v;
    return st;
}

size_t sn_ik_feet_block_size(const sn_ik_feet *ik) { return ik->size; }

sn_status sn_ik_feet_copy(void *mem, size_t size, const sn_ik_feet *src, sn_error *err) {
    sn_ik_feet *ik = (sn_ik_feet *)mem;
    int l;
    if (src->size < SN_ALIGN16(sizeof(sn_ik_feet))) return sn_fail_arg(err, 1, SN_EINVAL, "not a built solver");
    if (mem == NULL || size < src->size)
        return sn_fail(err, SN_ENOMEM, "foot-placement solver needs %lu bytes", (unsigned long)src->size);
    memcpy(mem, src, src->size);
    for (l = 0; l < src->count; l++) /* the legs' solvers sit inside the block: at the same offsets */
        ik->solver[l] = (sn_ik_two_bone *)((char *)mem + ((const char *)src->solver[l] - (const char *)src));
    sn_ik_feet_reset(ik);
    return SN_OK;
}

void sn_ik_feet_reset(sn_ik_feet *ik) {
    ik->started = 0;
    ik->offset = ik->velocity = ik->low = 0.0;
    ik->prepared = NULL;
}

int sn_ik_feet_state_count(const sn_ik_feet *ik) { return 4 + 9 * ik->count; }

void sn_ik_feet_state(const sn_ik_feet *ik, double *out) {
    int l;
    out[0] = ik->started;
    out[1] = ik->offset;
    out[2] = ik->velocity;
    out[3] = ik->low;
    for (l = 0; l < ik->count; l++) {
        memcpy(out + 4 + 9 * l, ik->normal[l], 3 * sizeof(double));
        memcpy(out + 7 + 9 * l, ik->nvel[l], 3 * sizeof(double));
        memcpy(out + 10 + 9 * l, ik->axis[l], 3 * sizeof(double));
    }
}

sn_status sn_ik_feet_check_state(const sn_ik_feet *ik, const double *in, sn_error *err) {
    int n = sn_ik_feet_state_count(ik), i;
    if (!(in[0] == 0.0 || in[0] == 1.0)) return sn_fail_arg(err, 1, SN_EINVAL, "state number 1 (started) must be 0 or 1");
    /* any finite number: a solve's springs reach large rates with a short smoothing time, and a
       state that puts the feet out of range makes the solves refuse, writing nothing */
    for (i = 1; i < n; i++)
        if (!sn_isfinite(in[i])) return sn_fail_arg(err, 1, SN_EINVAL, "state number %d is not finite", i + 1);
    for (i = 0; i < ik->count; i++) {
        const double *h = in + 10 + 9 * i, l2 = h[0] * h[0] + h[1] * h[1] + h[2] * h[2];
        if (!(fabs(l2 - 1.0) <= 1e-6)) /* (a state's hinge is unit: the solve hands it on as it is) */
            return sn_fail_arg(err, 1, SN_EINVAL, "state of leg %d: its knee hinge is not a unit vector (length %g)",
                               i + 1, sqrt(l2));
    }
    return SN_OK;
}

sn_status sn_ik_feet_set_state(sn_ik_feet *ik, const double *in, sn_error *err) {
    sn_status st = sn_ik_feet_check_state(ik, in, err);
    int l;
    if (st != SN_OK) return st;
    ik->started = in[0] == 1.0;
    ik->offset = in[1];
    ik->velocity = in[2];
    ik->low = in[3];
    for (l = 0; l < ik->count; l++) {
        memcpy(ik->normal[l], in + 4 + 9 * l, 3 * sizeof(double));
        memcpy(ik->nvel[l], in + 7 + 9 * l, 3 * sizeof(double));
        if (!ik->follow[l]) continue; /* a hinge given in the definition is a setting, not state */
        memcpy(ik->axis[l], in + 10 + 9 * l, 3 * sizeof(double)); /* as a solve keeps it */
        sn_ik_two_bone_set_unit_axis(ik->solver[l], ik->axis[l]);
    }
    ik->prepared = NULL;
    return SN_OK;
}

/* ---- phase 1: read the legs ------------------------------------------------------------------ */

/* What prepare keeps of a leg, from its frames: the root's parent p, root fr, mid fm and tip ft,
   and the locals of root, mid and tip. */
static void fill_leg(const sn_ik_feet *ik, const sn_ik_frame *p, const sn_ik_frame *fr, const sn_ik_frame *fm,
                     const sn_ik_frame *ft, const sn_ik_local *lr, const sn_ik_local *lm, const sn_ik_local *lt,
                     leg_read *r) {
    r->parent = p->q;
    {
        /* the knee's hinge in this pose: shin x thigh, v x u (about it a positive turn opens the
           knee: the side on which sn_ik_two_bone_solve keeps the knee bent as it is; u x v made
           the solve take the mirrored knee and roll the leg a half turn back), in the mid joint's
           frame */
        double u[3], v[3], n[3], lu, lv, ln;
        ik_sub(fm->t, fr->t, u);
        ik_sub(ft->t, fm->t, v);
        ik_cross(v, u, n);
        lu = ik_len(u);
        lv = ik_len(v);
        ln = ik_len(n);
        r->bent = ln > SN_IK_FEET_BENT * lu * lv;
        r->reach = lu + lv;
        if (r->bent) {
            sn_quat c = {-fm->q.x, -fm->q.y, -fm->q.z, fm->q.w};
            ik_scale(n, 1.0 / ln, n);
            ik_rotate(&c, n, r->hinge);
        }
    }
    memcpy(r->a, fr->t, sizeof r->a);
    memcpy(r->b, fm->t, sizeof r->b);
    memcpy(r->c, ft->t, sizeof r->c);
    r->tip = ft->q;
    r->root = fr->q;
    r->mid = fm->q;
    r->lroot = lr->q;
    r->lmid = lm->q;
    r->ltip = lt->q;
    r->h = ik_dot(r->c, ik->up);
}

static sn_status read_leg(const sn_ik_feet *ik, const sn_pose *pose, int l, const sn_ik_frame *pelvis, leg_read *r,
                          sn_error *err) {
    const int *j = ik->legs[l];
    sn_ik_frame p, fr, fm, ft;
    sn_ik_local lr, lm, lt;
    sn_ik_fault f;
    int bad, k;
    if (ik->depth[l] < 0) {
        if ((f = sn_ik_parent_frame(pose, j[0], &p, &bad)) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, f, bad, err);
    } else {
        p = *pelvis;
        for (k = 0; k < ik->depth[l]; k++) {
            const int a = ik->path[l][k];
            sn_ik_frame c;
            sn_ik_local la;
            if ((f = sn_ik_read_local(pose, a, &la)) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, f, a, err);
            sn_ik_frame_child(&p, &la, &c);
            if (sn_ik_frame_check(&c) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, SN_IK_POSE_TOO_FAR, a, err);
            p = c;
        }
    }
    if ((f = sn_ik_read_local(pose, j[0], &lr)) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, f, j[0], err);
    if ((f = sn_ik_read_local(pose, j[1], &lm)) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, f, j[1], err);
    if ((f = sn_ik_read_local(pose, j[2], &lt)) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, f, j[2], err);
    sn_ik_frame_child(&p, &lr, &fr);
    if (sn_ik_frame_check(&fr) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, SN_IK_POSE_TOO_FAR, j[0], err);
    sn_ik_frame_child(&fr, &lm, &fm);
    if (sn_ik_frame_check(&fm) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, SN_IK_POSE_TOO_FAR, j[1], err);
    sn_ik_frame_child(&fm, &lt, &ft);
    if (sn_ik_frame_check(&ft) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, SN_IK_POSE_TOO_FAR, j[2], err);
    fill_leg(ik, &p, &fr, &fm, &ft, &lr, &lm, &lt, r);
    return SN_OK;
}

/* The legs read stage by stage, every leg at each stage (their chains of dependent work side by
   side instead of one after the other), a leg under the same joint as an earlier one starting
   from that one's frame: 1 when every leg was read, 0 at any fault (then read_leg reads them
   again in order, to name the first). */
static int read_legs_staged(sn_ik_feet *ik, const sn_pose *pose, const sn_ik_frame *pelvis) {
    const int *parents = sn_skeleton_parents(pose->skeleton);
    sn_ik_frame p[SN_IK_FEET_MAX], fr[SN_IK_FEET_MAX], fm[SN_IK_FEET_MAX], ft[SN_IK_FEET_MAX];
    sn_ik_local lr[SN_IK_FEET_MAX], lm[SN_IK_FEET_MAX], lt[SN_IK_FEET_MAX];
    int l, m, k, bad, ok = 1;
    for (l = 0; l < ik->count; l++) {
        const int up = parents[ik->legs[l][0]];
        for (m = 0; m < l; m++)
            if (ik->depth[m] >= 0 && parents[ik->legs[m][0]] == up) break;
        if (m < l && ik->depth[l] >= 0) {
            p[l] = p[m];
        } else if (ik->depth[l] < 0) {
            ok &= sn_ik_parent_frame(pose, ik->legs[l][0], &p[l], &bad) == SN_IK_POSE_OK;
        } else {
            p[l] = *pelvis;
            for (k = 0; k < ik->depth[l]; k++) {
                sn_ik_frame c;
                sn_ik_local la;
                ok &= sn_ik_read_local(pose, ik->path[l][k], &la) == SN_IK_POSE_OK;
                sn_ik_frame_child(&p[l], &la, &c);
                ok &= sn_ik_frame_check(&c) == SN_IK_POSE_OK;
                p[l] = c;
            }
        }
    }
    for (l = 0; l < ik->count; l++) {
        ok &= sn_ik_read_local(pose, ik->legs[l][0], &lr[l]) == SN_IK_POSE_OK;
        ok &= sn_ik_read_local(pose, ik->legs[l][1], &lm[l]) == SN_IK_POSE_OK;
        ok &= sn_ik_read_local(pose, ik->legs[l][2], &lt[l]) == SN_IK_POSE_OK;
    }
    if (!ok) return 0;
    for (l = 0; l < ik->count; l++) {
        sn_ik_frame_child(&p[l], &lr[l], &fr[l]);
        ok &= sn_ik_frame_check(&fr[l]) == SN_IK_POSE_OK;
    }
    for (l = 0; l < ik->count; l++) {
        sn_ik_frame_child(&fr[l], &lm[l], &fm[l]);
        ok &= sn_ik_frame_check(&fm[l]) == SN_IK_POSE_OK;
    }
    for (l = 0; l < ik->count; l++) {
        sn_ik_frame_child(&fm[l], &lt[l], &ft[l]);
        ok &= sn_ik_frame_check(&ft[l]) == SN_IK_POSE_OK;
    }
    if (!ok) return 0;
    for (l = 0; l < ik->count; l++) fill_leg(ik, &p[l], &fr[l], &fm[l], &ft[l], &lr[l], &lm[l], &lt[l], &ik->read[l]);
    return 1;
}

sn_status sn_ik_feet_prepare(sn_ik_feet *ik, const sn_pose *pose, double *points, sn_error *err) {
    int l, bad;
    sn_ik_frame p;
    sn_ik_local lp;
    sn_ik_fault f;
    sn_status st;
    ik->prepared = NULL;
    if (pose == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no pose");
    if (pose->skeleton != ik->skeleton) return sn_fail_arg(err, 1, SN_EINVAL, "pose of another skeleton");
    /* the pelvis's own path (its translation is written), then its frame, where the legs start */
    if ((f = sn_ik_parent_frame(pose, ik->pelvis, &ik->pelvis_parent, &bad)) != SN_IK_POSE_OK)
        return sn_ik_pose_error(pose, f, bad, err);
    if ((f = sn_ik_read_local(pose, ik->pelvis, &lp)) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, f, ik->pelvis, err);
    sn_ik_frame_child(&ik->pelvis_parent, &lp, &p);
    if (sn_ik_frame_check(&p) != SN_IK_POSE_OK) return sn_ik_pose_error(pose, SN_IK_POSE_TOO_FAR, ik->pelvis, err);
    if (!read_legs_staged(ik, pose, &p))
        for (l = 0; l < ik->count; l++)
            if ((st = read_leg(ik, pose, l, &p, &ik->read[l], err)) != SN_OK) return st;
    for (l = 0; l < ik->count; l++) memcpy(points + 3 * l, ik->read[l].c, 3 * sizeof(double));
    ik->prepared = pose;
    return SN_OK;
}

/* ---- phase 2: place the feet ----------------------------------------------------------------- */

/* One step of a critically damped spring of time constant `time` (w = 2 / time) toward `target`,
   with e = exp(-w dt) computed once by the caller for every spring of the solve: exact for any dt
   (the animator's smoothed parameters); at the target when time is 0 or the arithmetic leaves
   the double range. */
static void spring(double *x, double *v, double target, double w, double e, double dt) {
    double y, j, nx, nv;
    if (!(w > 0.0) || !sn_isfinite(w)) {
        *x = target;
        *v = 0.0;
        return;
    }
    y = *x - target;
    j = *v + w * y;
    nx = target + (y + j * dt) * e;
    nv = (*v - w * j * dt) * e;
    if (sn_isfinite(nx) && sn_isfinite(nv)) {
        *x = nx;
        *v = nv;
    } else {
        *x = target;
        *v = 0.0;
    }
}

/* The highest pelvis offset along up that lets a leg rooted at a (model space, before the
   offset) of `reach` reach the point c + lift up: |t - a - o up| <= reach for
   o <= d.up + sqrt(reach^2 - |d across up|^2), d = t - a (infinity where no offset does). */
static double leg_cap(const double *a, const double *c, double lift, double reach, const double *up) {
    double d[3], du, room;
    ik_madd(c, lift, up, d);
    ik_sub(d, a, d);
    du = ik_dot(d, up);
    room = reach * reach * (1.0 - 1e-6) - (ik_dot(d, d) - du * du);
    return room > 0.0 ? du + sqrt(room) : HUGE_VAL; /* out of reach across up: no height helps */
}

/* The pelvis's local translation change for a model-space move d, through the inverse of its
   parent's linear part. */
static void local_move(const sn_ik_frame *p, const double *d, double *o) {
    if (!p->general) {
        sn_quat c = {-p->q.x, -p->q.y, -p->q.z, p->q.w};
        ik_rotate(&c, d, o);
        ik_scale(o, p->s != 0.0 ? 1.0 / p->s : 0.0, o);
    } else {
        const double *m = p->m;
        double c0 = m[4] * m[8] - m[5] * m[7], c1 = m[5] * m[6] - m[3] * m[8], c2 = m[3] * m[7] - m[4] * m[6];
        double det = m[0] * c0 + m[1] * c1 + m[2] * c2, inv[9];
        if (!(fabs(det) > 1e-300) || !sn_isfinite(det)) {
            o[0] = o[1] = o[2] = 0.0;
            return;
        }
        inv[0] = c0 / det;
        inv[1] = (m[2] * m[7] - m[1] * m[8]) / det;
        inv[2] = (m[1] * m[5] - m[2] * m[4]) / det;
        inv[3] = c1 / det;
        inv[4] = (m[0] * m[8] - m[2] * m[6]) / det;
        inv[5] = (m[2] * m[3] - m[0] * m[5]) / det;
        inv[6] = c2 / det;
        inv[7] = (m[1] * m[6] - m[0] * m[7]) / det;
        inv[8] = (m[0] * m[4] - m[1] * m[3]) / det;
        ik_vector3(inv, d, o);
    }
}

/* 1 when every coordinate of p is within SN_IK_MAX_COORD */
static int in_range(const double *p) {
    return fabs(p[0]) <= SN_IK_MAX_COORD && fabs(p[1]) <= SN_IK_MAX_COORD && fabs(p[2]) <= SN_IK_MAX_COORD;
}

sn_status sn_ik_feet_solve(sn_ik_feet *ik, sn_pose *pose, const double *ground, double dt, double weight,
                           unsigned *flags, sn_error *err) {
    static const char *const axis[3] = {"x", "y", "z"};
    const double *up = ik->up;
    double lift[SN_IK_FEET_MAX], nrm[SN_IK_FEET_MAX][3];
    double sw, se, target, low, cap = HUGE_VAL, offset, velocity, cos_limit;
    double nstate[SN_IK_FEET_MAX][3], nvel[SN_IK_FEET_MAX][3];
    unsigned fl = 0;
    int l, k;
    if (flags != NULL) *flags = 0;
    if (pose == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no pose");
    if (pose != ik->prepared) return sn_fail_arg(err, 1, SN_EINVAL, "pose was not prepared for this solve (no prepare, another pose, or a reset since)");
    ik->prepared = NULL; /* one prepare serves one solve, refused or not */
    if (ground == NULL) return sn_fail_arg(err, 2, SN_EINVAL, "no ground");
    if (!sn_isfinite(dt)) return sn_fail_arg(err, 3, SN_EINVAL, "dt is not finite");
    if (!(dt >= 0.0)) return sn_fail_range(err, 3, "dt", dt, 0.0, HUGE_VAL);
    if (!sn_isfinite(weight)) return sn_fail_arg(err, 4, SN_EINVAL, "weight is not finite");
    if (!(weight >= 0.0 && weight <= 1.0)) return sn_fail_range(err, 4, "weight", weight, 0.0, 1.0);
    cos_limit = ik->cos_limit;
    sw = ik->smoothing > 0.0 ? 2.0 / ik->smoothing : 0.0;
    se = exp(-sw * dt);

    /* the ground under each foot: how far the foot moves along up, and the normal it turns to */
    target = 0.0;
    for (l = 0; l < ik->count; l++) {
        const double *g = ground + 4 * l;
        const leg_read *r = &ik->read[l];
        double n[3], c;
        if (!sn_isfinite(g[0])) return sn_fail_arg(err, 2, SN_EINVAL, "ground height of leg %d is not finite", l + 1);
        if (!(fabs(g[0]) <= SN_IK_MAX_COORD)) {
            char what[48];
            snprintf(what, sizeof what, "ground height of leg %d", l + 1);
            return sn_fail_range(err, 2, what, g[0], -SN_IK_MAX_COORD, SN_IK_MAX_COORD);
        }
        for (k = 0; k < 3; k++)
            if (!sn_isfinite(g[1 + k])) return sn_fail_arg(err, 2, SN_EINVAL, "ground normal %s of leg %d is not finite", axis[k], l + 1);
        /* the foot's distance from the ground plane along its normal is its height h: over a
           plane whose normal makes the angle a with up, h / cos a along up (a capped at the
           normal limit's largest value); cos a = (g . up) / |g| for the normal g scaled by its
           largest component (no overflow), so that the lift, which the pelvis and every leg
           wait for, takes one division after the square root */
        {
            const double m = fmax(fabs(g[1]), fmax(fabs(g[2]), fabs(g[3])));
            double a[3], la, au;
            if (m > 0.0) {
                a[0] = g[1] / m;
                a[1] = g[2] / m;
                a[2] = g[3] / m;
                la = ik_len(a);
                au = ik_dot(a, up);
                ik_scale(a, 1.0 / la, n);
            } else {
                memcpy(n, up, sizeof n);
                la = au = 1.0;
            }
            lift[l] = g[0] + r->h * la / (au < FEET_MIN_COS * la ? FEET_MIN_COS * la : au) - r->h;
        }
        if (l == 0 || lift[l] < target) target = lift[l];
        /* the turn: n within the limit of up */
        c = ik_dot(n, up);
        if (c < cos_limit) {
            double w[3];
            ik_madd(n, -c, up, w);
            if (ik_unit(w, 1e-12, w) > 0.0) {
                ik_scale(up, cos_limit, n);
                ik_madd(n, ik->sin_limit, w, n);
            } else {
                memcpy(n, up, sizeof n);
            }
            fl |= SN_IK_LIMITED;
        }
        memcpy(nrm[l], n, sizeof n);
    }
    if (target > 0.0) target = 0.0;
    if (target < -ik->max_drop) {
        target = -ik->max_drop;
        fl |= SN_IK_LIMITED;
    }

    /* the pelvis: smoothed toward the target, then never higher than each leg's reach lets it be */
    for (l = 0; l < ik->count; l++) {
        const leg_read *r = &ik->read[l];
        double c = leg_cap(r->a, r->c, lift[l], r->reach, up);
        if (c < cap) cap = c;
    }
    /* the target held low: it follows a falling target at once and rises at most
       SN_IK_FEET_RISE leg lengths per second, so over a gait the pelvis stays where the lowest
       foot comes back to, and does not bob up and down with each step */
    {
        double shortest = HUGE_VAL, rise = SN_IK_FEET_RISE;
        for (l = 0; l < ik->count; l++)
            if (ik->read[l].reach < shortest) shortest = ik->read[l].reach;
        low = ik->started ? ik->low + rise * shortest * dt : target;
        if (!(low < target)) low = target; /* also a NaN from inf * 0 */
    }
    offset = ik->offset;
    velocity = ik->velocity;
    if (!ik->started) {
        offset = low;
        velocity = 0.0;
    } else {
        spring(&offset, &velocity, low, sw, se, dt);
    }
    if (offset > cap) { /* the reach pulls the pelvis down: the spring starts again from there at rest */
        offset = cap;
        if (velocity < 0.0) velocity = 0.0;
    }
    if (offset < -ik->max_drop) {
        offset = -ik->max_drop;
        if (velocity < 0.0) velocity = 0.0;
    }
    /* the normals */
    for (l = 0; l < ik->count; l++)
        for (k = 0; k < 3; k++) {
            nstate[l][k] = ik->started ? ik->normal[l][k] : nrm[l][k];
            nvel[l][k] = ik->started ? ik->nvel[l][k] : 0.0;
            if (ik->started) spring(&nstate[l][k], &nvel[l][k], nrm[l][k], sw, se, dt);
        }

    /* the writes: every leg's chain, target and pole first, checked before anything is written
       (a refused solve writes nothing); then the pelvis, the legs' two-bone solves and the feet */
    if (weight > 0.0) {
        double move[3], dl[3], shift[3];
        float moved[3];
        sn_ik_two_bone_chain ch[SN_IK_FEET_MAX];
        sn_vec3 tv[SN_IK_FEET_MAX], pv[SN_IK_FEET_MAX];
        sn_quat want[SN_IK_FEET_MAX];
        sn_status st = SN_OK;
        ik_scale(up, offset * weight, move);
        local_move(&ik->pelvis_parent, move, dl);
        for (k = 0; k < 3; k++) {
            const float was = pose->ch[(SN_ROW_T + k) * pose->stride + ik->pelvis];
            moved[k] = (float)(was + dl[k]);
            dl[k] = (double)moved[k] - was; /* the move to be written, in floats */
        }
        /* what every joint below the pelvis moves by in model space: the legs as prepare read
           them, moved, are what a new reading of the pose would give */
        ik_frame_vector(&ik->pelvis_parent, dl, shift);
        for (l = 0; l < ik->count && st == SN_OK; l++) {
            const leg_read *r = &ik->read[l];
            const int *j = ik->legs[l];
            double t[3], pl[3], n[3];
            sn_quat turn;
            ik_madd(r->c, lift[l], up, t);
            if (ik->follow[l] && r->bent) {
                sn_ik_two_bone_set_unit_axis(ik->solver[l], r->hinge);
                memcpy(ik->axis[l], r->hinge, sizeof r->hinge);
            }
            {
                /* the pole: beside the middle of the new root-target line, on the side the knee
                   bends to about its hinge n (n x e, e the root-target direction) */
                double root[3], e[3], hn[3], side[3], el;
                ik_madd(r->a, offset * weight, up, root);
                ik_sub(t, root, e);
                el = ik_len(e);
                ik_rotate(&r->mid, ik->axis[l], hn);
                if (el > 0.0) ik_scale(e, 1.0 / el, e);
                ik_cross(hn, e, side);
                ik_madd(root, 0.5, (const double[3]){t[0] - root[0], t[1] - root[1], t[2] - root[2]}, pl);
                ik_madd(pl, r->reach, side, pl);
            }
            tv[l].x = t[0];
            tv[l].y = t[1];
            tv[l].z = t[2];
            pv[l].x = pl[0];
            pv[l].y = pl[1];
            pv[l].z = pl[2];
            /* the leg's two-bone solve is of the chain as prepare read it, moved with the pelvis
               (not read from the pose again) */
            st = sn_ik_check_call(ik->skeleton, pose, &tv[l], &pv[l], "pole", 1, weight, err);
            if (st != SN_OK) break;
            ik_add(r->a, shift, ch[l].a);
            ik_add(r->b, shift, ch[l].b);
            ik_add(r->c, shift, ch[l].c);
            if (!in_range(ch[l].a)) st = sn_ik_pose_error(pose, SN_IK_POSE_TOO_FAR, j[0], err);
            else if (!in_range(ch[l].b)) st = sn_ik_pose_error(pose, SN_IK_POSE_TOO_FAR, j[1], err);
            else if (!in_range(ch[l].c)) st = sn_ik_pose_error(pose, SN_IK_POSE_TOO_FAR, j[2], err);
            ch[l].parent = r->parent;
            ch[l].root = r->root;
            ch[l].mid = r->mid;
            ch[l].lroot = r->lroot;
            ch[l].lmid = r->lmid;
            /* the foot: its input model rotation turned from up onto the normal s, by the
               shortest arc (up x s, |s| + up . s) normalised, |.|^2 = 2 |s| (|s| + up . s): s
               taken as it is, one square root and one division after its length */
            {
                const double *sv = nstate[l];
                const double nl = ik_len(sv), cu = ik_dot(up, sv);
                if (!(nl > 1e-12)) {
                    turn.x = turn.y = turn.z = 0.0;
                    turn.w = 1.0;
                } else if (nl + cu < 1e-9 * nl) { /* opposite: sn_quat_arc_unit's half turn */
                    double e[3];
                    sn_perp_of_unit(up, e);
                    turn.x = e[0];
                    turn.y = e[1];
                    turn.z = e[2];
                    turn.w = 0.0;
                } else {
                    const double kq = 1.0 / sqrt(2.0 * nl * (nl + cu));
                    ik_cross(up, sv, n);
                    turn.x = n[0] * kq;
                    turn.y = n[1] * kq;
                    turn.z = n[2] * kq;
                    turn.w = (nl + cu) * kq;
                }
            }
            ik_qmul(&turn, &r->tip, &want[l]);
        }
        if (st != SN_OK) {
            if (err != NULL) err->arg = 1;
            return st;
        }
        for (k = 0; k < 3; k++) pose->ch[(SN_ROW_T + k) * pose->stride + ik->pelvis] = moved[k];
        for (l = 0; l < ik->count; l++) {
            const leg_read *r = &ik->read[l];
            sn_quat midq, local, written[2];
            unsigned lf = 0;
            sn_ik_two_bone_run(ik->solver[l], pose, &ch[l], &tv[l], &pv[l], weight, &lf, written);
            fl |= lf & (SN_IK_UNREACHABLE | SN_IK_SOFTENED);
            /* the mid joint's new model rotation: the root's parent's, then the locals written */
            ik_qmul(&r->parent, &written[0], &midq);
            ik_qmul(&midq, &written[1], &midq);
            ik_qconj_mul(&midq, &want[l], &local);
            sn_ik_write_rotation(pose, ik->legs[l][2], &r->ltip, &local, weight); /* two-bone leaves the tip's as it was */
        }
    }

    /* the state advances only when nothing was refused */
    ik->started = 1;
    ik->offset = offset;
    ik->low = low;
    ik->velocity = velocity;
    memcpy(ik->normal, nstate, sizeof nstate);
    memcpy(ik->nvel, nvel, sizeof nvel);
    ik->prepared = NULL;
    if (!(fl & (SN_IK_UNREACHABLE | SN_IK_SOFTENED)) && weight >= 1.0) fl |= SN_IK_REACHED;
    if (flags != NULL) *flags = fl;
    return SN_OK;
}
