/* C-only tests of the planar IK solvers (src/core/ik2d.c): random 2-D chains against closed-form
   answers (the tip on a reachable target, lengths unchanged, the bend side, straight toward an
   unreachable target, the aim's line through the target), weight 0 = no turn, every refusal. */
#define FIXTURE_SEED 2552
#include "fixtures.h"

#include "ik2d.h"

#define PI 3.14159265358979323846
#define CASES 5000

/* forward kinematics written independently of the solver: joints p (n + 1) turned by the
   relative turns t (each bone turns with every bone before it) into q */
static void apply_turns(const double *p, int n, const double *t, double *q) {
    double acc = 0.0;
    q[0] = p[0];
    q[1] = p[1];
    for (int i = 0; i < n; i++) {
        double ux = p[2 * i + 2] - p[2 * i], uy = p[2 * i + 3] - p[2 * i + 1];
        acc += t[i];
        double c = cos(acc), s = sin(acc);
        q[2 * i + 2] = q[2 * i] + c * ux - s * uy;
        q[2 * i + 3] = q[2 * i + 1] + s * ux + c * uy;
    }
}

static double dist(const double *a, const double *b) { return hypot(a[0] - b[0], a[1] - b[1]); }
static double cross(const double *o, const double *a, const double *b) {
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

static void random_chain(double *p, int n, double *len) {
    double scale = pow(10.0, rnd(-3, 3)), a = rnd(-PI, PI);
    p[0] = rnd(-10, 10) * scale;
    p[1] = rnd(-10, 10) * scale;
    for (int i = 0; i < n; i++) {
        double l = rnd(0.1, 2.0) * scale;
        a += rnd(-PI, PI);
        p[2 * i + 2] = p[2 * i] + l * cos(a);
        p[2 * i + 3] = p[2 * i + 1] + l * sin(a);
        if (len) len[i] = l;
    }
}

static void test_two_bone_reaches(void) {
    int missed = 0, side = 0, lengths = 0, flagged = 0;
    for (int k = 0; k < CASES; k++) {
        double p[6], len[2], q[6], t[2], turn[2];
        unsigned flags;
        sn_error err;
        random_chain(p, 2, len);
        double reach = len[0] + len[1], lo = fabs(len[0] - len[1]);
        double d = lo + (reach - lo) * rnd(0.001, 0.999), a = rnd(-PI, PI);
        int bend = k % 2 ? 1 : -1;
        t[0] = p[0] + d * cos(a);
        t[1] = p[1] + d * sin(a);
        ENSURE(sn_ik2d_two_bone(p, t, bend, 1.0, 1.0, turn, &flags, &err) == SN_OK);
        apply_turns(p, 2, turn, q);
        if (!(dist(q + 4, t) <= 1e-9 * reach)) missed++;
        if (!(fabs(dist(q, q + 2) - len[0]) <= 1e-12 * reach && fabs(dist(q + 2, q + 4) - len[1]) <= 1e-12 * reach)) lengths++;
        /* bend 1: cross(target - root, mid - root) < 0 */
        if ((cross(q, t, q + 2) < 0) != (bend == 1)) side++;
        if (flags != SN_IK_REACHED) flagged++;
    }
    ENSURE(missed == 0);
    ENSURE(lengths == 0);
    ENSURE(side == 0);
    ENSURE(flagged == 0);
}

static void test_two_bone_unreachable(void) {
    int bad = 0;
    for (int k = 0; k < CASES; k++) {
        double p[6], len[2], q[6], t[2], turn[2];
        unsigned flags;
        sn_error err;
        random_chain(p, 2, len);
        double reach = len[0] + len[1], d = reach * rnd(1.001, 10), a = rnd(-PI, PI);
        t[0] = p[0] + d * cos(a);
        t[1] = p[1] + d * sin(a);
        ENSURE(sn_ik2d_two_bone(p, t, 1, 1.0, 1.0, turn, &flags, &err) == SN_OK);
        apply_turns(p, 2, turn, q);
        /* straight toward the target: the tip on the root-target line at the reach */
        double ex = p[0] + (t[0] - p[0]) * reach / d, ey = p[1] + (t[1] - p[1]) * reach / d, e[2] = {ex, ey};
        if (!(dist(q + 4, e) <= 1e-9 * reach) || flags != SN_IK_UNREACHABLE) bad++;
    }
    ENSURE(bad == 0);
}

static void test_two_bone_weight_and_soften(void) {
    int bad = 0;
    for (int k = 0; k < CASES; k++) {
        double p[6], len[2], t[2], turn[2], full[2], q[6];
        unsigned flags;
        sn_error err;
        random_chain(p, 2, len);
        double reach = len[0] + len[1];
        t[0] = p[0] + rnd(-1, 1) * reach;
        t[1] = p[1] + rnd(-1, 1) * reach;
        ENSURE(sn_ik2d_two_bone(p, t, -1, 1.0, 0.0, turn, &flags, &err) == SN_OK);
        if (turn[0] != 0.0 || turn[1] != 0.0 || (flags & SN_IK_REACHED)) bad++;
        double w = rnd(0, 1);
        ENSURE(sn_ik2d_two_bone(p, t, -1, 1.0, 1.0, full, NULL, &err) == SN_OK);
        ENSURE(sn_ik2d_two_bone(p, t, -1, 1.0, w, turn, NULL, &err) == SN_OK);
        if (!(fabs(turn[0] - w * full[0]) <= 1e-15 && fabs(turn[1] - w * full[1]) <= 1e-15)) bad++;
        /* softened: a target at the full reach is not reached, the tip falls behind on the line */
        double a = rnd(-PI, PI), tt[2] = {p[0] + reach * cos(a), p[1] + reach * sin(a)};
        ENSURE(sn_ik2d_two_bone(p, tt, 1, 0.8, 1.0, turn, &flags, &err) == SN_OK);
        apply_turns(p, 2, turn, q);
        double r = dist(q + 4, p);
        if (!(flags & SN_IK_SOFTENED) || !(r < reach && r > 0.8 * reach) || fabs(cross(p, tt, q + 4)) > 1e-9 * reach * reach)
            bad++;
    }
    ENSURE(bad == 0);
}

static void test_two_bone_degenerate(void) {
    double p[6] = {1, 1, 1, 1, 2, 1}, t[2] = {0, 3}, turn[2] = {5, 5};
    unsigned flags;
    sn_error err;
    ENSURE(sn_ik2d_two_bone(p, t, 1, 1.0, 1.0, turn, &flags, &err) == SN_OK);
    ENSURE(flags == SN_IK_DEGENERATE && turn[0] == 0.0 && turn[1] == 0.0);
    double p2[6] = {0, 0, 1, 0, 2, 0}, at[2] = {0, 0};
    ENSURE(sn_ik2d_two_bone(p2, at, 1, 1.0, 1.0, turn, &flags, &err) == SN_OK);
    ENSURE(flags == SN_IK_TARGET_AT_ROOT && turn[0] == 0.0 && turn[1] == 0.0);
}

static void test_aim(void) {
    int bad = 0;
    for (int k = 0; k < CASES; k++) {
        double o[2] = {rnd(-5, 5), rnd(-5, 5)}, a = rnd(-PI, PI), dir[2] = {cos(a), sin(a)};
        double off = rnd(-0.5, 0.5), along = rnd(0, 0.5);
        double from[2] = {o[0] + along * dir[0] - off * dir[1], o[1] + along * dir[1] + off * dir[0]};
        double b = rnd(-PI, PI), r = rnd(1, 10), t[2] = {o[0] + r * cos(b), o[1] + r * sin(b)};
        double turn;
        unsigned flags;
        sn_error err;
        ENSURE(sn_ik2d_aim(o, from, dir, t, PI, 1.0, &turn, &flags, &err) == SN_OK);
        if (flags & SN_IK_DEGENERATE) continue;
        /* the turned line through the target: its distance from the target is 0 */
        double c = cos(turn), s = sin(turn);
        double fx = o[0] + c * (from[0] - o[0]) - s * (from[1] - o[1]), fy = o[1] + s * (from[0] - o[0]) + c * (from[1] - o[1]);
        double dx = c * dir[0] - s * dir[1], dy = s * dir[0] + c * dir[1];
        double miss = fabs(dx * (t[1] - fy) - dy * (t[0] - fx)), ahead = dx * (t[0] - fx) + dy * (t[1] - fy);
        if (!(miss < 1e-9 * r) || !(ahead > 0) || flags != SN_IK_REACHED) bad++;
        /* a limit caps the turn, continuously, and weight 0 turns nothing */
        double lim = rnd(0.1, 3.0), lt;
        ENSURE(sn_ik2d_aim(o, from, dir, t, lim, 1.0, &lt, &flags, &err) == SN_OK);
        if (!(fabs(lt) <= lim + 1e-15)) bad++;
        if (fabs(turn) <= lim && lt != turn) bad++;
        ENSURE(sn_ik2d_aim(o, from, dir, t, lim, 0.0, &lt, &flags, &err) == SN_OK);
        if (lt != 0.0) bad++;
    }
    ENSURE(bad == 0);
    /* a target nearer to the origin than the line passes: degenerate, no turn */
    double o[2] = {0, 0}, from[2] = {0, 1}, dir[2] = {1, 0}, t[2] = {0.5, 0}, turn = 3;
    unsigned flags;
    sn_error err;
    ENSURE(sn_ik2d_aim(o, from, dir, t, PI, 1.0, &turn, &flags, &err) == SN_OK);
    ENSURE(flags == SN_IK_DEGENERATE && turn == 0.0);
}

static void test_chain(void) {
    int reached[2] = {0, 0}, tries = 0, lengths = 0, limits = 0, worse = 0;
    for (int k = 0; k < 2000; k++) {
        int n = 2 + k % 6;
        double p[2 * 9], len[8], q[2 * 9], t[2], turn[8], left, total = 0;
        double lo[8], hi[8];
        unsigned flags;
        sn_error err;
        random_chain(p, n, len);
        double longest = 0;
        for (int i = 0; i < n; i++) total += len[i], longest = len[i] > longest ? len[i] : longest;
        /* reachable: between the inner radius (the longest bone folded back over the others) and the reach */
        double inner = 2 * longest - total > 0 ? 2 * longest - total : 0;
        double d = inner + (total - inner) * rnd(0.02, 0.98), a = rnd(-PI, PI);
        t[0] = p[0] + d * cos(a);
        t[1] = p[1] + d * sin(a);
        tries++;
        for (int m = 0; m < 2; m++) {
            sn_ik_method method = m ? SN_IK_CCD : SN_IK_FABRIK;
            ENSURE(sn_ik2d_chain(p, n, t, method, 1000, 1e-6 * total, NULL, NULL, 1.0, turn, &left, &flags, &err) == SN_OK);
            apply_turns(p, n, turn, q);
            if (flags & SN_IK_REACHED) reached[m]++;
            if (!(fabs(dist(q + 2 * n, t) - left) <= 1e-9 * total)) lengths++;
            for (int i = 0; i < n; i++)
                if (!(fabs(dist(q + 2 * i, q + 2 * i + 2) - len[i]) <= 1e-12 * total)) lengths++;
        }
        /* limited: every turn within its bounds, never worse than the limited input */
        for (int i = 0; i < n; i++) {
            lo[i] = rnd(-1.5, 0.2);
            hi[i] = lo[i] + rnd(0, 2);
        }
        double start[8], sq[2 * 9];
        for (int i = 0; i < n; i++) start[i] = lo[i] > 0 ? lo[i] : hi[i] < 0 ? hi[i] : 0;
        apply_turns(p, n, start, sq);
        ENSURE(sn_ik2d_chain(p, n, t, (sn_ik_method)(k % 2), 64, 1e-9 * total, lo, hi, 1.0, turn, &left, &flags, &err) == SN_OK);
        for (int i = 0; i < n; i++)
            if (turn[i] < lo[i] || turn[i] > hi[i]) limits++;
        if (left > dist(sq + 2 * n, t) * (1 + 1e-12)) worse++;
    }
    printf("  planar chains: FABRIK reached %d of %d, CCD %d (1000 iterations, tolerance 1e-6 of the length)\n", reached[0],
           tries, reached[1]);
    ENSURE(reached[0] >= tries * 95 / 100);
    ENSURE(reached[1] >= tries * 90 / 100);
    ENSURE(lengths == 0);
    ENSURE(limits == 0);
    ENSURE(worse == 0);
}

static void test_refused(void) {
    double p[6] = {0, 0, 1, 0, 2, 0}, t[2] = {1, 1}, turn[4] = {7, 7, 7, 7}, nan = NAN;
    sn_error err;
    double bad_p[6] = {0, nan, 1, 0, 2, 0}, far_t[2] = {1e13, 0}, inf_t[2] = {INFINITY, 0};
    ENSURE(sn_ik2d_two_bone(bad_p, t, 1, 1, 1, turn, NULL, &err) == SN_EINVAL && err.arg == 1);
    ENSURE(sn_ik2d_two_bone(p, far_t, 1, 1, 1, turn, NULL, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_ik2d_two_bone(p, inf_t, 1, 1, 1, turn, NULL, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_ik2d_two_bone(p, t, 0, 1, 1, turn, NULL, &err) == SN_EINVAL && err.arg == 3);
    ENSURE(sn_ik2d_two_bone(p, t, 1, 0, 1, turn, NULL, &err) == SN_EINVAL && err.arg == 3);
    ENSURE(sn_ik2d_two_bone(p, t, 1, 1, 1.5, turn, NULL, &err) == SN_EINVAL && err.arg == 4);
    ENSURE(sn_ik2d_two_bone(p, t, 1, 1, nan, turn, NULL, &err) == SN_EINVAL && err.arg == 4);
    ENSURE(turn[0] == 7 && turn[1] == 7);
    double zero[2] = {0, 0}, dir[2] = {1, 0};
    ENSURE(sn_ik2d_aim(p, p, zero, t, 1, 1, turn, NULL, &err) == SN_EINVAL && err.arg == 1);
    ENSURE(sn_ik2d_aim(p, p, dir, inf_t, 1, 1, turn, NULL, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_ik2d_aim(p, p, dir, t, 0, 1, turn, NULL, &err) == SN_EINVAL && err.arg == 3);
    ENSURE(sn_ik2d_aim(p, p, dir, t, 4, 1, turn, NULL, &err) == SN_EINVAL && err.arg == 3);
    ENSURE(sn_ik2d_aim(p, p, dir, t, 1, -1, turn, NULL, &err) == SN_EINVAL && err.arg == 4);
    double lo[2] = {1, 0}, hi[2] = {0, 0};
    ENSURE(sn_ik2d_chain(p, 0, t, SN_IK_CCD, 10, 0, NULL, NULL, 1, turn, NULL, NULL, &err) == SN_EINVAL && err.arg == 3);
    ENSURE(sn_ik2d_chain(p, 33, t, SN_IK_CCD, 10, 0, NULL, NULL, 1, turn, NULL, NULL, &err) == SN_EINVAL);
    ENSURE(sn_ik2d_chain(p, 2, t, (sn_ik_method)7, 10, 0, NULL, NULL, 1, turn, NULL, NULL, &err) == SN_EINVAL && err.arg == 3);
    ENSURE(sn_ik2d_chain(p, 2, t, SN_IK_CCD, 0, 0, NULL, NULL, 1, turn, NULL, NULL, &err) == SN_EINVAL && err.arg == 3);
    ENSURE(sn_ik2d_chain(p, 2, t, SN_IK_CCD, 10, -1, NULL, NULL, 1, turn, NULL, NULL, &err) == SN_EINVAL && err.arg == 3);
    ENSURE(sn_ik2d_chain(p, 2, t, SN_IK_CCD, 10, 0, lo, hi, 1, turn, NULL, NULL, &err) == SN_EINVAL && err.arg == 3);
    ENSURE(sn_ik2d_chain(p, 2, inf_t, SN_IK_CCD, 10, 0, NULL, NULL, 1, turn, NULL, NULL, &err) == SN_EINVAL && err.arg == 2);
    ENSURE(sn_ik2d_chain(p, 2, t, SN_IK_CCD, 10, 0, NULL, NULL, 2, turn, NULL, NULL, &err) == SN_EINVAL && err.arg == 4);
    ENSURE(turn[0] == 7 && turn[1] == 7);
}

int main(void) {
    RUN(test_two_bone_reaches);
    RUN(test_two_bone_unreachable);
    RUN(test_two_bone_weight_and_soften);
    RUN(test_two_bone_degenerate);
    RUN(test_aim);
    RUN(test_chain);
    RUN(test_refused);
    return END("test_ik2d");
}
