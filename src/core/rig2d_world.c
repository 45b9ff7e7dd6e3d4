/*
 * 2-D rigs: world matrices of bones (inherit flags, IK) and slots.
 *
 * The arithmetic follows DragonBones' runtime (5.6) step by step, in its order of operations,
 * so that results agree to rounding: Transform.toMatrix, Matrix.concat, Transform.fromMatrix,
 * Bone._updateGlobalTransformMatrix and the IK constraint's one- and two-bone solutions. The
 * runtime recomputes a bone only when something changed; sinew recomputes every bone, which
 * gives the same matrices (an IK weight below 1 excepted: sinew starts from this frame's pose,
 * the runtime from the last frame's result; see manual/2d.md).
 */
#include <math.h>
#include <string.h>

#include "ik2d.h"
#include "rig2d_internal.h"

#define PI_Q (R2_PI / 4.0)

void r2_to_matrix(const r2_transform *t, double *m) {
    if (t->rotation == 0.0) {
        m[0] = 1.0;
        m[1] = 0.0;
    } else {
        m[0] = cos(t->rotation);
        m[1] = sin(t->rotation);
    }
    if (t->skew == 0.0) {
        m[2] = -m[1];
        m[3] = m[0];
    } else {
        m[2] = -sin(t->skew + t->rotation);
        m[3] = cos(t->skew + t->rotation);
    }
    if (t->sx != 1.0) {
        m[0] *= t->sx;
        m[1] *= t->sx;
    }
    if (t->sy != 1.0) {
        m[2] *= t->sy;
        m[3] *= t->sy;
    }
    m[4] = t->x;
    m[5] = t->y;
}

/// m = m then p (DragonBones' Matrix.concat: m is the child, p the parent), in place.
static void concat(double *m, const double *p) {
    double a = m[0] * p[0], b = 0.0, c = 0.0, d = m[3] * p[3];
    double tx = m[4] * p[0] + p[4], ty = m[5] * p[3] + p[5];
    if (m[1] != 0.0 || m[2] != 0.0) {
        a += m[1] * p[2];
        b += m[1] * p[3];
        c += m[2] * p[0];
        d += m[2] * p[1];
    }
    if (p[1] != 0.0 || p[2] != 0.0) {
        b += m[0] * p[1];
        c += m[3] * p[2];
        tx += m[5] * p[2];
        ty += m[4] * p[1];
    }
    m[0] = a, m[1] = b, m[2] = c, m[3] = d, m[4] = tx, m[5] = ty;
}

/// t = the transform of matrix m; t's scales before the call decide the signs (fromMatrix).
static void from_matrix(const double *m, r2_transform *t) {
    double backup_x = t->sx, backup_y = t->sy;
    t->x = m[4];
    t->y = m[5];
    t->rotation = atan(m[1] / m[0]);
    double skew_x = atan(-m[2] / m[3]);
    t->sx = (t->rotation > -PI_Q && t->rotation < PI_Q) ? m[0] / cos(t->rotation) : m[1] / sin(t->rotation);
    t->sy = (skew_x > -PI_Q && skew_x < PI_Q) ? m[3] / cos(skew_x) : -m[2] / sin(skew_x);
    if (backup_x >= 0.0 && t->sx < 0.0) {
        t->sx = -t->sx;
        t->rotation = t->rotation - R2_PI;
    }
    if (backup_y >= 0.0 && t->sy < 0.0) {
        t->sy = -t->sy;
        skew_x = skew_x - R2_PI;
    }
    t->skew = skew_x - t->rotation;
}

/// The world transform of bone b, decomposed where it is still only a matrix (updateGlobalTransform).
static const r2_transform *global_of(sn_rig2d *r, int b) {
    if (r->state[b] == 1) {
        from_matrix(r->world + 6 * b, &r->global[b]);
        r->state[b] = 2;
    }
    return &r->global[b];
}

/// Bone b's world matrix from its pose and its parent's (done before it); with `decompose` its
/// world transform too (the runtime's isCache).
static void bone_world(sn_rig2d *r, int b, int decompose) {
    const sn_rig2d_data *d = r->data;
    const r2_bone *bone = &d->bone[b];
    const double *pose = r->pose + 6 * b;
    double *m = r->world + 6 * b;
    r2_transform *g = &r->global[b];
    g->x = bone->setup.x + 0.0 + pose[0];
    g->y = bone->setup.y + 0.0 + pose[1];
    g->skew = bone->setup.skew + 0.0 + pose[3];
    g->rotation = bone->setup.rotation + 0.0 + pose[2];
    g->sx = bone->setup.sx * 1.0 * pose[4];
    g->sy = bone->setup.sy * 1.0 * pose[5];
    r->state[b] = 2;
    if (bone->parent < 0) {
        r2_to_matrix(g, m);
        return;
    }
    const double *pm = r->world + 6 * bone->parent;
    if (bone->flags & R2_SCALE) {
        if (!(bone->flags & R2_ROTATION)) g->rotation = g->rotation - global_of(r, bone->parent)->rotation;
        r2_to_matrix(g, m);
        concat(m, pm);
        if (bone->flags & R2_TRANSLATION) {
            g->x = m[4];
            g->y = m[5];
        } else {
            m[4] = g->x;
            m[5] = g->y;
        }
        if (decompose)
            from_matrix(m, g);
        else
            r->state[b] = 1;
        return;
    }
    if (bone->flags & R2_TRANSLATION) {
        double x = g->x, y = g->y;
        g->x = pm[0] * x + pm[2] * y + pm[4];
        g->y = pm[1] * x + pm[3] * y + pm[5];
    }
    if (bone->flags & R2_ROTATION) {
        const r2_transform *pg = global_of(r, bone->parent);
        double rotation = pg->sx < 0.0 ? g->rotation + pg->rotation + R2_PI : g->rotation + pg->rotation;
        if (pm[0] * pm[3] - pm[1] * pm[2] < 0.0) {
            rotation -= g->rotation * 2.0;
            if (bone->flags & R2_REFLECTION) g->skew += R2_PI;
        }
        g->rotation = rotation;
    }
    r2_to_matrix(g, m);
}

/// One bone pointing at its target (IKConstraint._computeA).
static void ik_one(sn_rig2d *r, const r2_ik *k, double weight) {
    const double *t = r->world + 6 * k->target;
    r2_transform *g = &r->global[k->root];
    double origin[2] = {g->x, g->y};
    double radian = sn_ik2d_direction(origin, t + 4);
    if (g->sx < 0.0) radian += R2_PI;
    g->rotation += (radian - g->rotation) * weight;
    r2_to_matrix(g, r->world + 6 * k->root);
}

/// Two bones reaching for the target (IKConstraint._computeB).
static void ik_two(sn_rig2d *r, const r2_ik *k, double weight, int bend_positive) {
    const sn_rig2d_data *d = r->data;
    const double *t = r->world + 6 * k->target;
    double tx = t[4], ty = t[5];
    r2_transform *pg = &r->global[k->root], *g = &r->global[k->bone];
    double *m = r->world + 6 * k->bone;
    double length = d->bone[k->bone].length;
    double x = m[0] * length, y = m[1] * length;
    double lLL = x * x + y * y, lL = sqrt(lLL);
    double dX = g->x - pg->x, dY = g->y - pg->y;
    double lPP = dX * dX + dY * dY, lP = sqrt(lPP);
    double raw = g->rotation, raw_parent = pg->rotation, raw_a = atan2(dY, dX);
    double radian_a, root[2] = {pg->x, pg->y}, target[2] = {tx, ty};
    int flipped = 0;
    int grand = d->bone[k->root].parent;
    if (grand >= 0) {
        const double *gm = r->world + 6 * grand;
        flipped = gm[0] * gm[3] - gm[1] * gm[2] < 0.0;
    }
    /* the knee on the side DragonBones picks: h - r where flipped != bend_positive */
    (void)sn_ik2d_knee(root, lP, lPP, lL, lLL, target, flipped != bend_positive, &radian_a);
    double dR = r2_normalize(radian_a - raw_a);
    pg->rotation = raw_parent + dR * weight;
    r2_to_matrix(pg, r->world + 6 * k->root);
    double current_a = raw_a + dR * weight;
    g->x = pg->x + cos(current_a) * lP;
    g->y = pg->y + sin(current_a) * lP;
    double radian_b = atan2(ty - g->y, tx - g->x);
    if (g->sx < 0.0) radian_b += R2_PI;
    g->rotation = pg->rotation + raw - raw_parent + r2_normalize(radian_b - dR - raw) * weight;
    r2_to_matrix(g, m);
}

/// Bone b's world matrix, after its parent's, with the IK constraints rooted at it (which place
/// their second bone too).
static void update_bone(sn_rig2d *r, int b) {
    const sn_rig2d_data *d = r->data;
    if (d->bone[b].has_ik) {
        for (int c = 0; c < d->constraints; c++) {
            const r2_ik *k = &d->ik[c];
            if (k->root != b) continue;
            if (r->state[b] == 0) bone_world(r, b, 1);
            global_of(r, b);
            if (k->bone >= 0) {
                if (r->state[k->bone] == 0) bone_world(r, k->bone, 1);
                global_of(r, k->bone);
                ik_two(r, k, r->ik_weight[c], r->ik_bend[c]);
            } else {
                ik_one(r, k, r->ik_weight[c]);
            }
        }
    }
    if (r->state[b] == 0) bone_world(r, b, 0);
}

/// Slot s's world matrix: its display's transform in its bone's world.
static void update_slot(sn_rig2d *r, int s) {
    const sn_rig2d_data *d = r->data;
    int k = r->display[s];
    double *m = r->slot_world + 6 * s;
    const double *bm = r->world + 6 * d->slot[s].bone;
    if (k < 0) {
        for (int j = 0; j < 6; j++) m[j] = bm[j];
        return;
    }
    const r2_display *p = &d->display[d->slot[s].first_display + k];
    for (int j = 0; j < 6; j++) m[j] = p->local[j];
    concat(m, bm);
}

void sn_rig2d_world(sn_rig2d *r) {
    const sn_rig2d_data *d = r->data;
    for (int i = 0; i < d->bones; i++) r->state[i] = 0;
    for (int i = 0; i < d->bones; i++) update_bone(r, d->order[i]);
    for (int s = 0; s < d->slots; s++) update_slot(r, s);
    r->stale = 0;
}

void sn_rig2d_world_changed(sn_rig2d *r, const double *pose, int bone) {
    const sn_rig2d_data *d = r->data;
    unsigned char *dirty = r->dirty;
    int any = 0;
    for (int i = 0; i < d->bones; i++) dirty[i] = 0;
    if (r->stale) { /* changed elsewhere since the last update: all of it */
        if (pose != NULL) memcpy(r->pose, pose, 6 * sizeof(double) * (size_t)d->bones);
        sn_rig2d_world(r);
        return;
    }
    if (pose != NULL) {
        for (int i = 0; i < d->bones; i++) {
            if (memcmp(r->pose + 6 * i, pose + 6 * i, 6 * sizeof(double)) != 0) {
                memcpy(r->pose + 6 * i, pose + 6 * i, 6 * sizeof(double));
                dirty[i] = 1;
            }
        }
    }
    if (bone >= 0 && bone < d->bones) dirty[bone] = 1;
    /* in update order: below a changed bone, and a constraint's root when its target or its second
       bone changed (the target comes before the root; the second bone's own change is read as
       given, its parent being the root). A second bone found to change only after its root was
       passed (it is the root of a later constraint that changed: constraints in a row on one
       bone) makes its root change too, and the pass runs again for what follows that root; a rig
       that needs more than a few such passes is redone whole */
    for (int pass = 0;; pass++) {
        int late = 0;
        for (int i = 0; i < d->bones; i++) {
            int b = d->order[i], p = d->bone[b].parent;
            if (!dirty[b] && p >= 0 && dirty[p]) dirty[b] = 1;
            if (!dirty[b] && d->bone[b].has_ik) {
                for (int c = 0; c < d->constraints; c++) {
                    const r2_ik *k = &d->ik[c];
                    if (k->root == b && (dirty[k->target] || (k->bone >= 0 && dirty[k->bone]))) dirty[b] = 1;
                }
            }
        }
        for (int c = 0; c < d->constraints; c++) {
            const r2_ik *k = &d->ik[c];
            if (k->bone >= 0 && dirty[k->bone] && !dirty[k->root]) dirty[k->root] = late = 1;
        }
        if (!late) break;
        if (pass == 8) {
            sn_rig2d_world(r);
            return;
        }
    }
    /* each bone to be redone starts again (state 0), the others keep their matrices and
       decompositions */
    for (int i = 0; i < d->bones; i++) {
        if (dirty[i]) {
            r->state[i] = 0;
            any = 1;
        }
    }
    if (!any) return;
    for (int i = 0; i < d->bones; i++)
        if (dirty[d->order[i]]) update_bone(r, d->order[i]);
    for (int s = 0; s < d->slots; s++)
        if (dirty[d->slot[s].bone]) update_slot(r, s);
}
