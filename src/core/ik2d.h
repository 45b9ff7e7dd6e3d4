/*
 * sinew core: inverse kinematics in the plane, for 2-D rigs: the two-bone solver (an arm, a
 * leg, with a bend direction), the aim solver (a gun arm, a head) and the planar chain (CCD or
 * FABRIK with per-bone angle limits), and the glue that writes their turns into a 2-D rig's pose.
 *
 * CONVENTIONS
 *   - Points are x, y pairs in one plane (a 2-D rig's armature space: y down, angles positive
 *     clockwise on screen, as rig2d.h); angles in radians. Inputs first, outputs last.
 *   - The solvers work on positions and return TURNS: the change of each bone's angle relative to
 *     the bone before it in the chain (for the first bone: relative to the plane), each in
 *     [-pi, pi) before the weight. With similarity transforms (uniform scale, no skew) a turn is the
 *     change of the bone's local rotation (negated under a mirrored parent: sn_rig2d_turn does
 *     that). They allocate nothing and write only their outputs.
 *   - Weight w in [0, 1] scales every turn (the shorter arc toward the solution); weight 0 gives
 *     turns of exactly 0.
 *   - A call that refuses its arguments (SN_EINVAL, err->arg: 1 the points, 2 the target, 3 a
 *     parameter, 4 the weight) writes nothing. Degenerate geometry inside a valid call is not an
 *     error: turns of 0 (nothing moves) and a flag (SN_IK_* of ik.h).
 *   - sn_ik2d_knee and sn_ik2d_direction are the geometry the DragonBones IK constraints of a rig
 *     (rig2d_world.c) use too, in DragonBones' order of operations.
 */
#ifndef SN_IK2D_H
#define SN_IK2D_H

#include "common.h"
#include "ik.h"
#include "rig2d.h"

/// Most bones of a planar chain.
#define SN_IK2D_CHAIN_MAX 32

/// The angle (radians, atan2) of the direction from `from` to `to` (0 when they coincide).
double sn_ik2d_direction(const double *from, const double *to);

/// The angle of the root-to-mid bone that puts the tip on `target`, DragonBones' arithmetic: a
/// root-mid bone of length l1 (l1sq its square as the caller computed it) and a mid-tip bone of
/// l2 (l2sq). Within reach the mid joint is the intersection of the two circles on the side
/// `positive` picks (positive: cross(target - root, mid - root) < 0; on screen with y down the
/// knee is counterclockwise from the root-target line); out of reach the root bone points at the
/// target, or away from it when the chain must fold (l1 < l2, target nearer than l2 - l1).
/// Returns 0 within reach, SN_IK_UNREACHABLE otherwise.
unsigned sn_ik2d_knee(const double *root, double l1, double l1sq, double l2, double l2sq, const double *target,
                      int positive, double *angle);

/// Two-bone solve: `p` holds root, mid and tip (6 numbers), `target` a point. bend +1 puts the mid
/// joint on sn_ik2d_knee's positive side, -1 on the other. soften in (0, 1] as ik.h's two-bone
/// (1 never softens). turn[0] receives the root bone's turn, turn[1] the mid bone's (relative to
/// the root bone). Within reach (weight 1, not softened) the tip lands on the target; out of reach
/// the chain lies straight toward it (or folded, nearer than l2 - l1). Flags: SN_IK_REACHED,
/// SN_IK_UNREACHABLE, SN_IK_SOFTENED, SN_IK_TARGET_AT_ROOT (the target on the root: turns 0),
/// SN_IK_DEGENERATE (a bone shorter than SN_IK_MIN_RATIO of the chain: turns 0). Refuses points
/// not finite or beyond SN_IK_MAX_COORD (arg 1), such a target (2), bend not +-1 or soften out of
/// (0, 1] (3), a weight out of [0, 1] (4).
sn_status sn_ik2d_two_bone(const double *p, const double *target, int bend, double soften, double weight,
                           double *turn, unsigned *flags, sn_error *err);

/// Aim solve: turns a bone about its origin `origin` so that the line from `from` (a point
/// turning with the bone, e.g. a barrel below the arm's axis) along `dir` (a non-zero direction)
/// passes through `target`, ahead of `from`. limit in (0, pi] caps the turn softly as ik.h's aim
/// (limit x (1 - smoothstep((a - limit) / (pi - limit))) beyond it: no flip behind). *turn
/// receives the turn. Flags: SN_IK_REACHED, SN_IK_LIMITED, SN_IK_DEGENERATE (the target nearer to
/// the origin than the line, or behind `from` on it: turn 0). Refuses non-finite or far points or a
/// zero direction (arg 1), a bad target (2), a limit out of (0, pi] (3), a bad weight (4).
sn_status sn_ik2d_aim(const double *origin, const double *from, const double *dir, const double *target,
                      double limit, double weight, double *turn, unsigned *flags, sn_error *err);

/// Planar chain solve over `bones` bones (1 .. SN_IK2D_CHAIN_MAX): `p` holds bones + 1 joints
/// (the root first, the tip last). `lo`, `hi` (NULL: free) bound each bone's turn: lo[i] <= turn[i]
/// <= hi[i] (a bone whose bounds exclude 0 is brought within them first). CCD turns each bone,
/// tip's first, to point the tip at the target; FABRIK reaches backward from the target and
/// forward from the root (the forward pass clamps each turn to its bounds). `iterations` (1 ..
/// SN_IK_CHAIN_MAX_ITERATIONS) and `tolerance` (>= 0: a tip this near stops) as ik.h's chain.
/// turn[0 .. bones-1] receives the turns, *left (NULL for none) the tip's distance to the target
/// after the weighted turns. Flags: SN_IK_REACHED, SN_IK_LIMITED, SN_IK_UNREACHABLE (beyond the
/// chain's length), SN_IK_DEGENERATE (every bone zero-length: turns 0). Refuses bad points (1),
/// target (2), counts, method, tolerance or bounds (lo > hi, or NaN; infinite bounds are none) (3),
/// weight (4).
sn_status sn_ik2d_chain(const double *p, int bones, const double *target, sn_ik_method method, int iterations,
                        double tolerance, const double *lo, const double *hi, double weight, double *turn,
                        double *left, unsigned *flags, sn_error *err);

/* ---- 2-D rigs ------------------------------------------------------------------------------- */

/// The world origin of bone `b` of rig `r` into o[0], o[1], and (when `end` is not NULL) the end
/// of the bone (its origin plus its world matrix times (length, 0)) into end[0], end[1].
void sn_rig2d_bone_points(const sn_rig2d *r, int b, double *o, double *end);
/// The length of bone `b` of armature `d`.
double sn_rig2d_data_length(const sn_rig2d_data *d, int b);
/// Whether bone `b` inherits its parent's translation (what moving its parent moves).
int sn_rig2d_data_inherits_translation(const sn_rig2d_data *d, int b);
/// The bone's local rotation as the rig composes it: setup rotation plus pose[6 b + 2].
double sn_rig2d_local_rotation(const sn_rig2d *r, int b, const double *pose);
/// Whether a DragonBones IK constraint of `d` turns bone `b`.
int sn_rig2d_data_ik_moves(const sn_rig2d_data *d, int b);
/// The sign (+1, -1) by which a change of bone b's local rotation turns it in world space: -1
/// when its parent's world matrix mirrors and it inherits rotation (at the rig's current world).
double sn_rig2d_turn_sign(const sn_rig2d *r, int b);
/// Adds to `pose` (6 numbers a bone: the rig's own or a 2-D pose of its armature) the local
/// rotations that turn bones[0 .. n-1] (each the parent of the next) so that each one's world
/// segment seg[2i], seg[2i+1] turns by world[i] radians (the bone's own world turn, not relative),
/// from the rig's current world matrices: exact under any parent matrix for bones that inherit
/// scale (P^-1 S onto P^-1 C^-1 T as sinew.dragonbones.Chain does), the world turn less the
/// parent's (negated under a mirrored parent) for others. Writes rotations only.
void sn_rig2d_turn(const sn_rig2d *r, const int *bones, int n, const double *seg, const double *world, double *pose);

#endif
