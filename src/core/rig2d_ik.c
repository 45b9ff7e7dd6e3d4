/*
 * 2-D rigs and the planar IK solvers (ik2d.h): reading bones' world points, and writing world
 * turns back into a pose as local rotations, through the rig's inherit flags.
 */
#include <math.h>

#include "ik2d.h"
#include "rig2d_internal.h"

void sn_rig2d_bone_points(const sn_rig2d *r, int b, double *o, double *end) {
    const double *m = r->world + 6 * b;
    o[0] = m[4];
    o[1] = m[5];
    if (end) {
        double l = r->data->bone[b].length;
        end[0] = m[4] + m[0] * l;
        end[1] = m[5] + m[1] * l;
    }
}

double sn_rig2d_data_length(const sn_rig2d_data *d, int b) { return d->bone[b].length; }

int sn_rig2d_data_inherits_translation(const sn_rig2d_data *d, int b) { return (d->bone[b].flags & R2_TRANSLATION) != 0; }

double sn_rig2d_local_rotation(const sn_rig2d *r, int b, const double *pose) {
    return r->data->bone[b].setup.rotation + pose[6 * b + 2];
}

int sn_rig2d_data_ik_moves(const sn_rig2d_data *d, int b) {
    for (int k = 0; k < d->constraints; k++) {
        const r2_ik *c = &d->ik[k];
        if (c->root == b || c->bone == b) return 1;
    }
    return 0;
}

double sn_rig2d_turn_sign(const sn_rig2d *r, int b) {
    int p = r->data->bone[b].parent;
    if (p < 0 || !(r->data->bone[b].flags & R2_ROTATION)) return 1.0;
    const double *m = r->world + 6 * p;
    return m[0] * m[3] - m[1] * m[2] < 0.0 ? -1.0 : 1.0;
}

/// The angle turning (ux, uy) onto (vx, vy); 0 when either is zero.
static double turn_of(double ux, double uy, double vx, double vy) {
    double c = ux * vx + uy * vy, s = ux * vy - uy * vx;
    if (c == 0.0 && s == 0.0) return 0.0;
    return atan2(s, c);
}

void sn_rig2d_turn(const sn_rig2d *r, const int *bones, int n, const double *seg, const double *world, double *pose) {
    const sn_rig2d_data *d = r->data;
    /* P: the parent's world linear part (columns (Pa, Pb), (Pc, Pd)); C: the change the solve has
       made to it so far (identity for the first bone, whose parent does not move) */
    double Pa = 1.0, Pb = 0.0, Pc = 0.0, Pd = 1.0, Ca = 1.0, Cb = 0.0, Cc = 0.0, Cd = 1.0;
    int parent = d->bone[bones[0]].parent;
    if (parent >= 0) {
        const double *pw = r->world + 6 * parent;
        Pa = pw[0], Pb = pw[1], Pc = pw[2], Pd = pw[3];
    }
    for (int i = 0; i < n; i++) {
        const r2_bone *bone = &d->bone[bones[i]];
        int has_parent = bone->parent >= 0;
        double Sx = seg[2 * i], Sy = seg[2 * i + 1];
        double cp = cos(world[i]), sp = sin(world[i]);
        double Tx = cp * Sx - sp * Sy, Ty = sp * Sx + cp * Sy; /* the segment turned */
        double det = Pa * Pd - Pb * Pc, delta = 0.0, psi = 0.0;
        if (bone->flags & R2_SCALE || !has_parent) {
            /* W' = C P R(delta) P^-1 W: delta turns P^-1 S onto P^-1 C^-1 T */
            double cdet = Ca * Cd - Cb * Cc;
            if (det != 0.0 && cdet != 0.0) {
                double ux = (Pd * Sx - Pc * Sy) / det, uy = (-Pb * Sx + Pa * Sy) / det;
                double vx = (Cd * Tx - Cc * Ty) / cdet, vy = (-Cb * Tx + Ca * Ty) / cdet;
                double wx = (Pd * vx - Pc * vy) / det, wy = (-Pb * vx + Pa * vy) / det;
                delta = turn_of(ux, uy, wx, wy);
            }
            /* a bone that does not inherit rotation has its parent's world rotation taken out */
            if (has_parent && !(bone->flags & R2_ROTATION) && i > 0)
                psi = turn_of(Pa, Pb, Ca * Pa + Cc * Pb, Cb * Pa + Cd * Pb);
            if (delta != 0.0 && det != 0.0) { /* C = C P R(delta) P^-1 */
                double cd = cos(delta), sd = sin(delta);
                double ia = Pd / det, ib = -Pb / det, ic = -Pc / det, id = Pa / det;
                double ra = cd * ia - sd * ib, rb = sd * ia + cd * ib, rc = cd * ic - sd * id, rd = sd * ic + cd * id;
                double ma = Pa * ra + Pc * rb, mb = Pb * ra + Pd * rb, mc = Pa * rc + Pc * rd, md = Pb * rc + Pd * rd;
                double na = Ca * ma + Cc * mb, nb = Cb * ma + Cd * mb, nc = Ca * mc + Cc * md, nd = Cb * mc + Cd * md;
                Ca = na, Cb = nb, Cc = nc, Cd = nd;
            }
        } else {
            /* the world rotation turns by the parent's turn and +-delta */
            int inherits = (bone->flags & R2_ROTATION) != 0;
            if (inherits && i > 0) psi = turn_of(Pa, Pb, Ca * Pa + Cc * Pb, Cb * Pa + Cd * Pb);
            delta = world[i] - psi;
            if (inherits && det < 0.0) delta = -delta;
            psi = 0.0;
            Ca = cp, Cb = sp, Cc = -sp, Cd = cp;
        }
        delta += psi;
        if (delta != 0.0) pose[6 * bones[i] + 2] += delta;
        const double *w = r->world + 6 * bones[i];
        Pa = w[0], Pb = w[1], Pc = w[2], Pd = w[3];
    }
}
