/* The chain solver's definition (see ik.h): defaults, validation, size and init of the block
   ik_chain.c solves with, its getters and setters.

   Determinism: the limits' sines and cosines are computed here, at init, by a polynomial of + and
   * (ik_sincos_half below), not by the C library's sin and cos, which differ between libraries;
   the pragmas at the top of ik_chain_internal.h forbid fused multiply-adds in this file, as
   in ik_chain.c. */
#include "ik_chain_internal.h"

#include <stddef.h>
#include <string.h>

/* ---- definition ---------------------------------------------------------------------------- */

void sn_ik_limit_init(sn_ik_limit *limit, int joint) {
    memset(limit, 0, sizeof *limit);
    limit->joint = joint;
    limit->axis.z = 1.0;
    limit->min = limit->twist_min = -SN_IK_PI;
    limit->max = limit->twist_max = SN_IK_PI;
    limit->cone = SN_IK_PI;
}

void sn_ik_chain_def_init(sn_ik_chain_def *def) {
    memset(def, 0, sizeof *def);
    def->method = SN_IK_FABRIK;
    def->iterations = 16;
    def->tolerance = 1e-4;
}

static sn_status check_iterations(int iterations, sn_error *err) {
    if (iterations < 1 || iterations > SN_IK_CHAIN_MAX_ITERATIONS)
        return sn_fail_arg(err, 1, SN_EINVAL, "'iterations' %d is out of range (1 .. %d)", iterations,
                           SN_IK_CHAIN_MAX_ITERATIONS);
    return SN_OK;
}

static sn_status check_tolerance(double tolerance, sn_error *err) {
    if (!sn_isfinite(tolerance)) return sn_fail_arg(err, 1, SN_EINVAL, "'tolerance' is not finite");
    if (!(tolerance >= 0.0)) return sn_fail_range(err, 1, "'tolerance'", tolerance, 0.0, SN_IK_MAX_COORD);
    return SN_OK;
}

/* a limit's angle range lo .. hi within [-pi, pi], named `what` */
static sn_status check_range(const char *name, const char *what, double lo, double hi, sn_error *err) {
    if (!sn_isfinite(lo) || !sn_isfinite(hi))
        return sn_fail_arg(err, 1, SN_EINVAL, "limit of '%s': %s is not finite", name, what);
    if (!(lo >= -SN_IK_PI && hi <= SN_IK_PI))
        return sn_fail_arg(err, 1, SN_EINVAL, "limit of '%s': %s %g .. %g is out of range (%g .. %g)", name, what, lo, hi,
                           -SN_IK_PI, SN_IK_PI);
    if (!(lo <= hi)) return sn_fail_arg(err, 1, SN_EINVAL, "limit of '%s': %s %g .. %g is empty (min > max)", name, what, lo, hi);
    return SN_OK;
}

/* the position of `joint` on the chain, -1 when not on it */
static int chain_index(const sn_ik_chain_def *def, int joint) {
    int i;
    for (i = 0; i < def->count; i++)
        if (def->joints[i] == joint) return i;
    return -1;
}

static sn_status check_limit(const sn_ik_chain_def *def, int k, sn_error *err) {
    const sn_ik_limit *l = &def->limits[k];
    const sn_skeleton *s = def->skeleton;
    const int n = sn_skeleton_count(s);
    const char *name;
    int i, m;
    if (l->joint < 0 || l->joint >= n)
        return sn_fail_arg(err, 1, SN_EINVAL, "limit %d: joint %d is out of range (1 .. %d)", k + 1, l->joint + 1, n);
    name = sn_skeleton_name(s, l->joint);
    i = chain_index(def, l->joint);
    if (i < 0) return sn_fail_arg(err, 1, SN_EINVAL, "limit of '%s': the joint is not on the chain", name);
    if (i == def->count - 1)
        return sn_fail_arg(err, 1, SN_EINVAL, "limit of '%s': the joint is the chain's tip, which the solve does not turn", name);
    for (m = 0; m < k; m++)
        if (def->limits[m].joint == l->joint) return sn_fail_arg(err, 1, SN_EINVAL, "limit of '%s': the joint is limited twice", name);
    if (l->kind == 0 || (l->kind & ~(unsigned)(SN_IK_HINGE | SN_IK_CONE | SN_IK_TWIST)) != 0 ||
        ((l->kind & SN_IK_HINGE) && l->kind != SN_IK_HINGE))
        return sn_fail_arg(err, 1, SN_EINVAL, "limit of '%s': kind %u is not a hinge, or a cone and/or a twist", name, l->kind);
    if (l->kind == SN_IK_HINGE) {
        if (!sn_isfinite(l->axis.x) || !sn_isfinite(l->axis.y) || !sn_isfinite(l->axis.z))
            return sn_fail_arg(err, 1, SN_EINVAL, "limit of '%s': the hinge axis is not finite", name);
        if (l->axis.x == 0.0 && l->axis.y == 0.0 && l->axis.z == 0.0)
            return sn_fail_arg(err, 1, SN_EINVAL, "limit of '%s': the hinge axis is a zero vector", name);
        return check_range(name, "hinge angles", l->min, l->max, err);
    } else {
        float trs[10];
        sn_skeleton_rest(s, def->joints[i + 1], trs);
        if (trs[0] == 0.0f && trs[1] == 0.0f && trs[2] == 0.0f)
            return sn_fail_arg(err, 1, SN_EINVAL, "limit of '%s': a cone or twist needs a bone, and '%s' rests on the joint", name,
                               sn_skeleton_name(s, def->joints[i + 1]));
        if (l->kind & SN_IK_CONE) {
            if (!sn_isfinite(l->cone)) return sn_fail_arg(err, 1, SN_EINVAL, "limit of '%s': cone is not finite", name);
            if (!(l->cone >= 0.0 && l->cone <= SN_IK_PI))
                return sn_fail_arg(err, 1, SN_EINVAL, "limit of '%s': cone %g is out of range (0 .. %g)", name, l->cone, SN_IK_PI);
        }
        if (l->kind & SN_IK_TWIST) return check_range(name, "twist", l->twist_min, l->twist_max, err);
    }
    return SN_OK;
}

sn_status sn_ik_chain_validate(const sn_ik_chain_def *def, sn_error *err) {
    const sn_skeleton *s;
    sn_status st;
    int i, k, n;
    if (def == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no chain definition");
    if ((s = def->skeleton) == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no skeleton");
    if (def->count < 2 || def->count > SN_IK_CHAIN_MAX)
        return sn_fail_arg(err, 1, SN_EINVAL, "a chain of %d joints is out of range (2 .. %d)", def->count, SN_IK_CHAIN_MAX);
    if (def->joints == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no joints");
    n = sn_skeleton_count(s);
    for (i = 0; i < def->count; i++)
        if (def->joints[i] < 0 || def->joints[i] >= n)
            return sn_fail_arg(err, 1, SN_EINVAL, "joint %d of the chain: %d is out of range (1 .. %d)", i + 1, def->joints[i] + 1, n);
    for (i = 0; i < def->count; i++)
        for (k = i + 1; k < def->count; k++)
            if (def->joints[i] == def->joints[k])
                return sn_fail_arg(err, 1, SN_EINVAL, "joints %d and %d of the chain are the same joint '%s'", i + 1, k + 1,
                                   sn_skeleton_name(s, def->joints[i]));
    for (i = 1; i < def->count; i++)
        if (sn_skeleton_parent(s, def->joints[i]) != def->joints[i - 1])
            return sn_fail_arg(err, 1, SN_EINVAL, "joints do not form a chain: '%s' (%d) is not a child of '%s' (%d)",
                               sn_skeleton_name(s, def->joints[i]), i + 1, sn_skeleton_name(s, def->joints[i - 1]), i);
    if (def->method != SN_IK_FABRIK && def->method != SN_IK_CCD)
        return sn_fail_arg(err, 1, SN_EINVAL, "unknown method %d (SN_IK_FABRIK or SN_IK_CCD)", def->method);
    if ((st = check_iterations(def->iterations, err)) != SN_OK) return st;
    if ((st = check_tolerance(def->tolerance, err)) != SN_OK) return st;
    if (def->limit_count < 0 || def->limit_count > def->count - 1)
        return sn_fail_arg(err, 1, SN_EINVAL, "%d limits is out of range (0 .. %d)", def->limit_count, def->count - 1);
    if (def->limit_count > 0 && def->limits == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no limits");
    for (k = 0; k < def->limit_count; k++)
        if ((st = check_limit(def, k, err)) != SN_OK) return st;
    return SN_OK;
}

size_t sn_ik_chain_size(const sn_ik_chain_def *def, sn_error *err) {
    if (sn_ik_chain_validate(def, err) != SN_OK) return 0;
    return SN_ALIGN16(offsetof(sn_ik_chain, link) + (size_t)def->count * sizeof(ik_link));
}

/* sin and cos of x / 2 for |x| <= pi, by their Taylor series in Horner's form (terms to x^25,
   below 1e-20 at pi / 2): + - * / by small integers only, the same bits everywhere. */
static void ik_sincos_half(double x, double *s, double *c) {
    const double h = 0.5 * x, h2 = h * h;
    double ps = 1.0, pc = 1.0;
    int k;
    for (k = 24; k >= 2; k -= 2) {
        ps = 1.0 - h2 / ((double)(k) * (double)(k + 1)) * ps;   /* 1 - h^2/(2*3) (1 - h^2/(4*5) (...)) */
        pc = 1.0 - h2 / ((double)(k - 1) * (double)(k)) * pc;   /* 1 - h^2/(1*2) (1 - h^2/(3*4) (...)) */
    }
    *s = h * ps;
    *c = pc;
}

/* v / |v| scaled by its largest component first: any finite non-zero vector normalises */
static void unit_of(const double *v, double *o) {
    double m = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
    ik_scale(v, 1.0 / m, o);
    ik_scale(o, 1.0 / ik_len(o), o);
}

sn_status sn_ik_chain_init(void *mem, size_t size, const sn_ik_chain_def *def, sn_error *err) {
    size_t need = sn_ik_chain_size(def, err);
    sn_ik_chain *ik = (sn_ik_chain *)mem;
    int i, k;
    if (need == 0) return err != NULL ? err->code : SN_EINVAL;
    if (mem == NULL || size < need) return sn_fail(err, SN_ENOMEM, "chain solver needs %lu bytes", (unsigned long)need);
    memset(mem, 0, need);
    ik->skeleton = def->skeleton;
    ik->count = def->count;
    ik->method = def->method;
    ik->iterations = def->iterations;
    ik->tolerance = def->tolerance;
    for (i = 0; i < def->count; i++) {
        ik_link *l = &ik->link[i];
        float trs[10];
        double r2;
        l->joint = def->joints[i];
        sn_skeleton_rest(def->skeleton, l->joint, trs);
        l->rest.x = trs[3];
        l->rest.y = trs[4];
        l->rest.z = trs[5];
        l->rest.w = trs[6];
        r2 = sn_quat_dot4(&l->rest, &l->rest);
        r2 = 1.0 / sqrt(r2); /* the skeleton's rest rotations are normalised and non-zero */
        l->rest.x *= r2;
        l->rest.y *= r2;
        l->rest.z *= r2;
        l->rest.w *= r2;
        l->lo_s = -1.0;
        l->lo_c = 0.0;
        l->hi_s = 1.0;
        l->hi_c = 0.0;
        l->cone_c = 0.0;
        l->cone_s = 1.0;
    }
    for (k = 0; k < def->limit_count; k++) {
        const sn_ik_limit *lim = &def->limits[k];
        ik_link *l = &ik->link[chain_index(def, lim->joint)];
        l->kind = lim->kind;
        ik->has_limits = 1;
        if (lim->kind == SN_IK_HINGE) {
            const double a[3] = {lim->axis.x, lim->axis.y, lim->axis.z};
            unit_of(a, l->axis);
            ik_sincos_half(lim->min, &l->lo_s, &l->lo_c);
            ik_sincos_half(lim->max, &l->hi_s, &l->hi_c);
        } else {
            float trs[10];
            double b[3];
            sn_skeleton_rest(def->skeleton, l[1].joint, trs);
            b[0] = trs[0];
            b[1] = trs[1];
            b[2] = trs[2];
            unit_of(b, l->axis);
            if (lim->kind & SN_IK_CONE) ik_sincos_half(lim->cone, &l->cone_s, &l->cone_c);
            if (lim->kind & SN_IK_TWIST) {
                ik_sincos_half(lim->twist_min, &l->lo_s, &l->lo_c);
                ik_sincos_half(lim->twist_max, &l->hi_s, &l->hi_c);
            }
        }
    }
    return SN_OK;
}

const sn_skeleton *sn_ik_chain_skeleton(const sn_ik_chain *ik) { return ik->skeleton; }
int sn_ik_chain_count(const sn_ik_chain *ik) { return ik->count; }
int sn_ik_chain_joint(const sn_ik_chain *ik, int i) { return i >= 0 && i < ik->count ? ik->link[i].joint : -1; }
int sn_ik_chain_method(const sn_ik_chain *ik) { return ik->method; }
int sn_ik_chain_iterations(const sn_ik_chain *ik) { return ik->iterations; }
double sn_ik_chain_tolerance(const sn_ik_chain *ik) { return ik->tolerance; }

sn_status sn_ik_chain_set_iterations(sn_ik_chain *ik, int iterations, sn_error *err) {
    sn_status st = check_iterations(iterations, err);
    if (st == SN_OK) ik->iterations = iterations;
    return st;
}

sn_status sn_ik_chain_set_tolerance(sn_ik_chain *ik, double tolerance, sn_error *err) {
    sn_status st = check_tolerance(tolerance, err);
    if (st == SN_OK) ik->tolerance = tolerance;
    return st;
}
