/*
 * sinew core: inverse kinematics on a pose, the two-bone solver (thigh, shin, foot), the aim
 * solver (a head, an eye or a gun arm turned to look at a target) and the chain solver (FABRIK or
 * CCD over 2 .. SN_IK_CHAIN_MAX joints, with per-joint limits).
 *
 * CONVENTIONS
 *   - As every header of src/core: quaternions x, y, z, w (w scalar; the order of quat.h and of a
 *     pose's rotation channels), right-handed, radians; vectors x, y, z; inputs first, outputs
 *     last; joints 0-based (messages name them, or count them from 1).
 *   - Model space is the skeleton's space, the space of sn_pose_to_model's matrices:
 *     model(j) = model(parent) * T * R * S, a root relative to the skeleton's origin. Targets and
 *     poles are model-space points or directions; axes and offsets are in the named joint's own
 *     frame (the frame whose model matrix is model(j): an offset is scaled by the joint's scale,
 *     as a child's translation is).
 *   - A solve reads the pose's local transforms of its joints and of their ancestors (walking the
 *     skeleton's parents from the pose, bottom up, nothing stored), solves in model space in double
 *     precision, and writes back LOCAL ROTATIONS only: the rotation channels of its own joints
 *     (two-bone: root and mid; aim: the joint), unit length, in the hemisphere of the input
 *     rotation. Translations, scales and every other joint keep their values, so bone lengths do
 *     not change. Run solves after blending and before sn_pose_to_model.
 *   - The solves are exact where the scales of the solved joints and of their ancestors are
 *     uniform (sx = sy = sz, any value per joint); under non-uniform scale they treat the model
 *     rotation as the product of the local rotations and come out approximate.
 *   - Solvers have the lifecycle of every core object: `*_def_init`, `*_validate`, `*_size`,
 *     `*_init(mem, size, def, err)`; made once from a skeleton (which outlives them) and joint
 *     indices checked once. A solve allocates nothing and only reads its solver, so one solver
 *     may serve several poses of its skeleton (the setters change it between solves).
 *   - A solve that refuses its arguments (SN_EINVAL with a message; err->arg: 1 the pose, 2 the
 *     target, 3 the pole or up vector, 4 the weight) writes nothing. Degenerate geometry inside
 *     a valid call is not an error: the solve takes the documented fallback and reports it in
 *     `*flags` (SN_IK_* bits); it never writes a NaN. Weight 0 writes nothing (the pose stays
 *     bit for bit); weight w in (0, 1) writes slerp(input, solved, w) per joint (the shorter arc).
 *   - Several aim solves in sequence (spine, neck, head, each with its share of the weight) turn
 *     a chain toward one target: each reads the pose its predecessor wrote.
 */
#ifndef SN_IK_H
#define SN_IK_H

#include "common.h"
#include "pose.h"
#include "quat.h"
#include "skeleton.h"

/// Largest magnitude of a target or pole coordinate, and of a model-space coordinate of a solved
/// joint (model units): inputs within it keep every product of a solve finite.
#define SN_IK_MAX_COORD 1e12
/// A bone shorter than this fraction of the chain's length (two-bone: the sum of both bones)
/// counts as zero-length; a target nearer than it to the root counts as on the root.
#define SN_IK_MIN_RATIO 1e-9
/// A two-bone chain shorter than this (model units) counts as zero-length: squares of squares
/// of its lengths stay well above the double range's underflow.
#define SN_IK_MIN_LENGTH 1e-30

/// Bits of a solve's `*flags`: what happened, the documented fallbacks among it.
enum {
    /// The tip (two-bone) or the forward axis through the offset (aim) is on the target: the
    /// target was within reach (two-bone: not softened; aim: within the limit) and weight is 1.
    SN_IK_REACHED = 1,
    /// Two-bone: a bone is zero-length (SN_IK_MIN_RATIO, SN_IK_MIN_LENGTH); aim: the target is
    /// where the forward line through the offset cannot pass (nearer to the joint than that line,
    /// or behind the offset on it). Nothing was written.
    SN_IK_DEGENERATE = 2,
    /// Two-bone: the target is on the root; the chain folds toward its current root-to-tip
    /// direction (or the root-to-mid one when the tip is on the root too).
    SN_IK_TARGET_AT_ROOT = 4,
    /// Two-bone: the pole is on the root-target line (nearer to it than SN_IK_MIN_RATIO times the
    /// sum of the pole's distance from the root and the chain's length); aim: the up reference or the joint's up axis is along the target direction. The
    /// solve turns by the shortest arc only (then the twist): no plane to align with.
    SN_IK_POLE_ON_LINE = 8,
    /// Two-bone: mid_axis is along the root bone or the mid-tip bone in this pose, so the knee
    /// cannot change the reach: only the root turns.
    SN_IK_HINGE_ON_BONE = 16,
    /// Two-bone: the target is in the softening band (beyond soften x reach): the tip falls behind.
    SN_IK_SOFTENED = 32,
    /// Two-bone: the target is out of reach (beyond the reach, or nearer than the folded chain):
    /// the chain lies straight (or folded) toward it.
    SN_IK_UNREACHABLE = 64,
    /// Aim: the limit held the turn back.
    SN_IK_LIMITED = 128
};

/* ---- two-bone ------------------------------------------------------------------------------- */

/// A two-bone solver (opaque; built by sn_ik_two_bone_init).
typedef struct sn_ik_two_bone sn_ik_two_bone;

/// What a two-bone solver is made from.
typedef struct sn_ik_two_bone_def {
    const sn_skeleton *skeleton;  ///< the skeleton; outlives the solver
    int joints[3];      ///< root, mid, tip (0-based): each the parent of the next
    sn_vec3 mid_axis;   ///< the knee's hinge in the mid joint's frame, finite, non-zero (normalised)
    double soften;      ///< (0, 1]: softening starts at this fraction of the reach; 1 never softens
    double twist;       ///< radians, finite: turn of the chain about the root-target axis
} sn_ik_two_bone_def;

/// Fills `def` with the defaults: no skeleton, joints -1, mid_axis (0, 0, 1), soften 1, twist 0.
void sn_ik_two_bone_def_init(sn_ik_two_bone_def *def);
/// Checks `def` (arg 1): a skeleton, joints in range, distinct, each the parent of the next,
/// mid_axis finite and non-zero, soften in (0, 1], twist finite; names the first fault.
sn_status sn_ik_two_bone_validate(const sn_ik_two_bone_def *def, sn_error *err);
/// Bytes needed by the solver of `def`; 0 when `def` is invalid (then `err` says why).
size_t sn_ik_two_bone_size(const sn_ik_two_bone_def *def, sn_error *err);
/// Builds the solver of `def` at `mem` (at least sn_ik_two_bone_size bytes, aligned as malloc or
/// a Lua userdata); validates first. SN_ENOMEM for a NULL or too small `mem`.
sn_status sn_ik_two_bone_init(void *mem, size_t size, const sn_ik_two_bone_def *def, sn_error *err);
/// The skeleton of `ik`.
const sn_skeleton *sn_ik_two_bone_skeleton(const sn_ik_two_bone *ik);
/// Joint i (0 root, 1 mid, 2 tip) of `ik`, 0-based; -1 for another i.
int sn_ik_two_bone_joint(const sn_ik_two_bone *ik, int i);
/// Soften of `ik`, in (0, 1].
double sn_ik_two_bone_soften(const sn_ik_two_bone *ik);
/// Twist of `ik`, radians.
double sn_ik_two_bone_twist(const sn_ik_two_bone *ik);
/// Sets soften, in (0, 1] (SN_EINVAL otherwise, arg 1).
sn_status sn_ik_two_bone_set_soften(sn_ik_two_bone *ik, double soften, sn_error *err);
/// Sets twist, finite radians (SN_EINVAL otherwise, arg 1).
sn_status sn_ik_two_bone_set_twist(sn_ik_two_bone *ik, double twist, sn_error *err);
/// Sets mid_axis, finite and non-zero, in the mid joint's frame (normalised; SN_EINVAL otherwise, arg 1).
sn_status sn_ik_two_bone_set_mid_axis(sn_ik_two_bone *ik, const sn_vec3 *axis, sn_error *err);

/// Turns root and mid of `pose` so that the tip reaches `target` (a model-space point): the mid
/// joint bends about mid_axis only, onto the side where a positive turn about mid_axis opens the
/// knee (ozz's convention), and lies in the plane of root, target and `pole` (a model-space
/// point, ozz's pole_vector + root) on the pole's side, then the twist turns the chain about the
/// root-target axis. Reach is the root-tip distance with the knee as open as mid_axis lets it be
/// (the sum of the bones for a hinge across both): beyond soften x reach the target is softened
/// to da + ds (1 - exp(-(d - da) / ds)) (da = soften x reach, ds = reach - da; slope 1 where it
/// starts, never at full reach); out of reach, the chain lies straight toward the target (or as
/// folded as it goes, nearer than the folded chain). `flags` (NULL for none) receives SN_IK_*
/// bits. Refuses (writing nothing) a pose of another skeleton, or where what the solve reads of
/// the chain and its ancestors (the tip's translation only) holds non-finite values or zero
/// rotations or places a joint beyond SN_IK_MAX_COORD (arg 1), a target or pole
/// not finite or beyond SN_IK_MAX_COORD (args 2, 3), a weight outside [0, 1] (arg 4).
sn_status sn_ik_two_bone_solve(const sn_ik_two_bone *ik, sn_pose *pose, const sn_vec3 *target, const sn_vec3 *pole,
                               double weight, unsigned *flags, sn_error *err);

/* ---- aim -------------------------------------------------------------------------------------- */

/// An aim solver (opaque; built by sn_ik_aim_init).
typedef struct sn_ik_aim sn_ik_aim;

/// Most joints from an aim's joint down to its effector (the effector included).
#define SN_IK_AIM_MAX_PATH 32

/// What an aim solver is made from.
typedef struct sn_ik_aim_def {
    const sn_skeleton *skeleton;  ///< the skeleton; outlives the solver
    int joint;         ///< the joint turned (0-based)
    sn_vec3 forward;   ///< the joint's axis aimed at the target, in its frame: finite, non-zero
    sn_vec3 up;        ///< the joint's up axis, in its frame: finite, at least 1e-6 rad off forward
    sn_vec3 offset;    ///< where the forward line starts (the eyes), in the joint's frame: finite
    double limit;      ///< (0, pi]: most angle between the aimed forward and the input's forward
    double twist;      ///< radians, finite: turn about the joint-target axis after aiming
    int effector;      ///< -1: the joint itself; else a descendant (0-based) whose frame holds forward,
                       ///< up and offset: the joint turns so that the effector's forward line passes
                       ///< through the target (a spine or neck turning the head toward it)
} sn_ik_aim_def;

/// Fills `def` with the defaults: no skeleton, joint -1, forward (0, 0, 1), up (0, 1, 0),
/// offset 0, limit pi (no limit), twist 0, effector -1 (the joint).
void sn_ik_aim_def_init(sn_ik_aim_def *def);
/// Checks `def` (arg 1): a skeleton, the joint in range, forward and up finite, non-zero and not
/// parallel, offset finite within SN_IK_MAX_COORD, limit in (0, pi], twist finite, the effector
/// -1 or a descendant of the joint at most SN_IK_AIM_MAX_PATH joints below it.
sn_status sn_ik_aim_validate(const sn_ik_aim_def *def, sn_error *err);
/// Bytes needed by the solver of `def`; 0 when `def` is invalid (then `err` says why).
size_t sn_ik_aim_size(const sn_ik_aim_def *def, sn_error *err);
/// Builds the solver of `def` at `mem` (at least sn_ik_aim_size bytes); validates first.
/// SN_ENOMEM for a NULL or too small `mem`.
sn_status sn_ik_aim_init(void *mem, size_t size, const sn_ik_aim_def *def, sn_error *err);
/// The skeleton of `ik`.
const sn_skeleton *sn_ik_aim_skeleton(const sn_ik_aim *ik);
/// The joint of `ik`, 0-based.
int sn_ik_aim_joint(const sn_ik_aim *ik);
/// The effector of `ik`, 0-based (the joint itself when it has none).
int sn_ik_aim_effector(const sn_ik_aim *ik);
/// Limit of `ik`, radians in (0, pi].
double sn_ik_aim_limit(const sn_ik_aim *ik);
/// Twist of `ik`, radians.
double sn_ik_aim_twist(const sn_ik_aim *ik);
/// Sets limit, in (0, pi] (SN_EINVAL otherwise, arg 1).
sn_status sn_ik_aim_set_limit(sn_ik_aim *ik, double limit, sn_error *err);
/// Sets twist, finite radians (SN_EINVAL otherwise, arg 1).
sn_status sn_ik_aim_set_twist(sn_ik_aim *ik, double twist, sn_error *err);

/// Turns the joint of `pose` about its own position so that the forward axis, drawn from the
/// offset, passes through `target` (a model-space point; forward, up and offset in the effector's
/// frame when there is one, as the pose places it); of the turns that do, the one that
/// brings the up axis nearest to `up` (a model-space direction; NULL: the up axis's direction in
/// the input pose, the least roll), then the twist about the joint-target axis. The limit caps
/// the angle between the aimed forward axis and the input's: where the full aim would turn the
/// forward axis by a > limit, it turns along the same great circle by limit x (1 - smoothstep((a -
/// limit) / (pi - limit))) (slope 0 at the limit, 0 right behind) with the full aim's roll faded
/// the same way, so the joint eases back to its input as the target goes behind it and never flips
/// from side to side (a limit of pi caps nothing: right behind, the turn's side is arbitrary).
/// A target the forward line cannot pass
/// through (SN_IK_DEGENERATE) leaves the pose unchanged, as ozz's IKAimJob. `flags` (NULL for
/// none) receives SN_IK_* bits. Refuses (writing nothing) a pose of another skeleton or with
/// non-finite values, zero rotations or places beyond SN_IK_MAX_COORD on the joint's path (arg 1),
/// a target not finite or beyond SN_IK_MAX_COORD (arg 2), an up vector not finite (arg 3), a
/// weight outside [0, 1] (arg 4).
sn_status sn_ik_aim_solve(const sn_ik_aim *ik, sn_pose *pose, const sn_vec3 *target, const sn_vec3 *up, double weight,
                          unsigned *flags, sn_error *err);

/* ---- chain ------------------------------------------------------------------------------- */

/// Most joints of a chain (tip included). Chains are limbs, tails, spines and tentacles: 32
/// joints cover them; the solver block grows by a few hundred bytes per joint, and CCD's cost by
/// the square of the count.
#define SN_IK_CHAIN_MAX 32
/// Most iterations of a chain solve.
#define SN_IK_CHAIN_MAX_ITERATIONS 1000

/// How a chain is solved.
typedef enum sn_ik_method {
    SN_IK_FABRIK = 0,  ///< forward and backward reaching (Aristidou and Lasenby 2011)
    SN_IK_CCD = 1      ///< cyclic coordinate descent, tip to root
} sn_ik_method;

/// Kinds of a joint limit (bits of sn_ik_limit.kind). A hinge excludes the other two.
enum {
    SN_IK_HINGE = 1,  ///< one degree of freedom: a turn about `axis` by an angle in [min, max]
    SN_IK_CONE = 2,   ///< the bone stays within `cone` radians of its rest direction
    SN_IK_TWIST = 4   ///< the turn about the bone, from rest, stays in [twist_min, twist_max]
};

/// A limit of one chain joint, relative to the joint's REST local rotation r (the skeleton's):
/// the joint's local rotation q is read as r * d, and the limit bounds d. The bone of a joint is
/// the rest translation of the next chain joint, in the joint's frame (it must be non-zero for a
/// cone or a twist). A hinge keeps d = R(axis, a), min <= a <= max; a cone and a twist split d =
/// swing * twist (twist about the bone, swing about an axis across it) and bound the swing's
/// angle by `cone` and the twist's angle to [twist_min, twist_max].
typedef struct sn_ik_limit {
    int joint;          ///< the joint (0-based skeleton index): one of the chain's, not its tip
    unsigned kind;      ///< SN_IK_HINGE, or SN_IK_CONE and/or SN_IK_TWIST
    sn_vec3 axis;       ///< hinge: the axis in the joint's frame, finite, non-zero (normalised)
    double min, max;    ///< hinge: radians, -pi <= min <= max <= pi
    double cone;        ///< cone: radians in [0, pi]
    double twist_min;   ///< twist: radians, -pi <= twist_min <= twist_max <= pi
    double twist_max;   ///< twist: radians
} sn_ik_limit;

/// A chain solver (opaque; built by sn_ik_chain_init). Holds its solve's scratch: one solve at a
/// time per solver.
typedef struct sn_ik_chain sn_ik_chain;

/// What a chain solver is made from. The arrays are read during validate, size and init only.
typedef struct sn_ik_chain_def {
    const sn_skeleton *skeleton;  ///< the skeleton; outlives the solver
    int count;                    ///< number of joints, 2 .. SN_IK_CHAIN_MAX
    const int *joints;            ///< `count` joints (0-based), root first: each the parent of the next
    int method;                   ///< SN_IK_FABRIK or SN_IK_CCD
    int iterations;               ///< 1 .. SN_IK_CHAIN_MAX_ITERATIONS
    double tolerance;             ///< model units, finite, >= 0: a tip this near the target stops
    int limit_count;              ///< number of limits, 0 .. count - 1
    const sn_ik_limit *limits;    ///< `limit_count` limits on distinct joints (NULL when 0)
} sn_ik_chain_def;

/// Fills `limit` with the limit of `joint` that holds nothing: kind 0, axis (0, 0, 1), min -pi,
/// max pi, cone pi, twist -pi .. pi.
void sn_ik_limit_init(sn_ik_limit *limit, int joint);
/// Fills `def` with the defaults: no skeleton, no joints, FABRIK, 16 iterations, tolerance 1e-4,
/// no limits.
void sn_ik_chain_def_init(sn_ik_chain_def *def);
/// Checks `def` (arg 1): a skeleton, the count, joints in range, distinct, each the parent of the
/// next, the method, iterations, tolerance, and each limit (its joint on the chain and not the
/// tip, not limited twice, its kind, axis and angles, a bone for a cone or a twist); names the
/// first fault.
sn_status sn_ik_chain_validate(const sn_ik_chain_def *def, sn_error *err);
/// Bytes needed by the solver of `def` (its scratch included); 0 when `def` is invalid.
size_t sn_ik_chain_size(const sn_ik_chain_def *def, sn_error *err);
/// Builds the solver of `def` at `mem` (at least sn_ik_chain_size bytes); validates first.
/// SN_ENOMEM for a NULL or too small `mem`.
sn_status sn_ik_chain_init(void *mem, size_t size, const sn_ik_chain_def *def, sn_error *err);
/// The skeleton of `ik`.
const sn_skeleton *sn_ik_chain_skeleton(const sn_ik_chain *ik);
/// Number of joints of `ik`.
int sn_ik_chain_count(const sn_ik_chain *ik);
/// Joint i (0 the root .. count - 1 the tip) of `ik`, 0-based; -1 for another i.
int sn_ik_chain_joint(const sn_ik_chain *ik, int i);
/// Method of `ik` (SN_IK_FABRIK or SN_IK_CCD).
int sn_ik_chain_method(const sn_ik_chain *ik);
/// Iterations of `ik`.
int sn_ik_chain_iterations(const sn_ik_chain *ik);
/// Tolerance of `ik`, model units.
double sn_ik_chain_tolerance(const sn_ik_chain *ik);
/// Sets the iterations, 1 .. SN_IK_CHAIN_MAX_ITERATIONS (SN_EINVAL otherwise, arg 1).
sn_status sn_ik_chain_set_iterations(sn_ik_chain *ik, int iterations, sn_error *err);
/// Sets the tolerance, finite, >= 0 (SN_EINVAL otherwise, arg 1).
sn_status sn_ik_chain_set_tolerance(sn_ik_chain *ik, double tolerance, sn_error *err);

/// Turns the chain's joints (root .. the tip's parent; the tip's rotation is kept) so that the
/// tip reaches `target` (a model-space point), then writes them with `weight`; `*left` (NULL for
/// none) receives the distance from the tip of the pose as written to the target. The root stays
/// where it is and bone lengths do not change (rotations only). First, each limited joint is
/// brought within its limit (a joint outside it takes the nearest rotation within); the
/// iterations start from there and stop early once the tip is within the tolerance. FABRIK: a
/// backward pass from the target, then a forward pass from the root, bones at their lengths. CCD:
/// from the tip's parent to the root, each joint turns by the shortest arc taking the tip's
/// direction onto the target's. Without limits both iterate on positions only, then turn each
/// joint once, root first, by the shortest arc taking its bone from the input's direction onto
/// the solved one: the least turn, so each joint's twist about its bone stays the input's. With
/// limits they turn the joints at every step (FABRIK in its forward pass), each by the shortest
/// arc and then its limit; where a FABRIK iteration gains less than a tenth of the distance
/// (limits can hold FABRIK at a fixed point short of the target) a CCD sweep follows. A hinge joint turns
/// about its axis only (the directions projected across it), as far as its best turn. Limits
/// hold after every step, so after the solve at weight 1 (a weight in (0, 1) blends each joint's
/// input and solved rotations along the shorter arc, which the limits do not check again); where
/// the solve ends farther from the target than the limited input, the limited input is kept
/// (never worse than the input). Weight 0 and 1 use
/// + - * / and sqrt only, in double: the same bits on every IEEE platform (a weight in (0, 1)
/// blends through sn_quat_slerp, which uses the C library's trigonometry).
/// The method runs the first half of the iterations (rounded up); damped least-squares steps
/// (Levenberg-Marquardt on the tip) run the rest: every joint turns at once by the small turn that
/// moves the tip onto the target to first order (one 3x3 solve; without limits each bone's
/// direction turns, the joints once at the end as above; a hinge turns about its axis; a joint
/// whose limit cut its turn keeps the cut turn and the others solve again), a step kept only when
/// it brings the tip nearer; they stop within the tolerance, at 1e-12 of the reach, or after 3
/// steps in a row that gain nothing.
/// Fallbacks: every bone zero-length (SN_IK_DEGENERATE): nothing written; a zero-length bone is
/// not turned; a target on the root (SN_IK_TARGET_AT_ROOT) or beyond the reach
/// (SN_IK_UNREACHABLE) iterates as any other (the chain folds toward the root, or lies straight
/// toward the target). `flags` (NULL for none) receives SN_IK_* bits: also SN_IK_REACHED (within
/// the tolerance, weight 1) and SN_IK_LIMITED (a limit changed a rotation). Refuses (writing
/// nothing) what sn_ik_two_bone_solve refuses (args 1, 2, 4; arg 3 is unused), also at weight 0
/// (which reads the chain for `*left`).
sn_status sn_ik_chain_solve(sn_ik_chain *ik, sn_pose *pose, const sn_vec3 *target, double weight, double *left,
                            unsigned *flags, sn_error *err);


/* ---- foot placement ------------------------------------------------------------------------- */

/// Most legs of a foot-placement solver (a biped has 2, the Fox 4, a spider 8).
#define SN_IK_FEET_MAX 8
/// Largest normal_limit of a foot-placement solver, radians (80 degrees): a foot's height over a
/// ground steeper than this is measured as over a ground this steep (1 / cos stays below 6).
#define SN_IK_FEET_MAX_NORMAL_LIMIT 1.3962634015954636
/// A knee bent by more than about this angle (radians: the sine of thigh and shin) in the input
/// pose bends about its current hinge, on its current side, unless the leg's mid_axis is given.
#define SN_IK_FEET_BENT 0.05
/// The pelvis's target rises (toward 0) at most this many leg lengths (the shortest leg) per
/// second; it falls at once (then the spring smooths it).
#define SN_IK_FEET_RISE 0.25

/// A foot-placement solver (opaque; built by sn_ik_feet_init). Unlike the other solvers it holds
/// PER-INSTANCE STATE (the smoothed pelvis drop and foot normals, and the scratch between the two
/// phases of a solve): one solver per character.
typedef struct sn_ik_feet sn_ik_feet;

/// What a foot-placement solver is made from.
typedef struct sn_ik_feet_def {
    const sn_skeleton *skeleton;        ///< the skeleton; outlives the solver
    int pelvis;                         ///< the joint translated (0-based): an ancestor of every leg
    sn_vec3 up;                         ///< model-space up, finite, non-zero (normalised)
    int count;                          ///< legs, 1 .. SN_IK_FEET_MAX
    int legs[SN_IK_FEET_MAX][3];        ///< per leg: root (thigh), mid (shin), tip (foot), each the parent of the next
    sn_vec3 mid_axis[SN_IK_FEET_MAX];   ///< per leg: the knee's hinge in the mid joint's frame; zero: from the rest pose
    double max_drop;                    ///< model units, >= 0 (infinity: no limit): the most the pelvis drops
    double normal_limit;                ///< radians in [0, SN_IK_FEET_MAX_NORMAL_LIMIT]: the most a foot turns
    double smoothing;                   ///< seconds, >= 0 and finite: time constant of the pelvis and normals (0: none)
} sn_ik_feet_def;

/// Fills `def` with the defaults: no skeleton, pelvis -1, up (0, 1, 0), no legs, mid axes zero
/// (from the rest pose), max_drop infinity, normal_limit pi/4, smoothing 0.1 s.
void sn_ik_feet_def_init(sn_ik_feet_def *def);
/// Checks `def` (arg 1): a skeleton, the pelvis and the legs' joints in range, each leg a chain
/// under the pelvis, no joint in two legs, up and mid axes finite (up non-zero), max_drop >= 0,
/// normal_limit in [0, SN_IK_FEET_MAX_NORMAL_LIMIT], smoothing finite >= 0.
sn_status sn_ik_feet_validate(const sn_ik_feet_def *def, sn_error *err);
/// Bytes needed by the solver of `def`; 0 when `def` is invalid (then `err` says why).
size_t sn_ik_feet_size(const sn_ik_feet_def *def, sn_error *err);
/// Builds the solver of `def` at `mem` (at least sn_ik_feet_size bytes); validates first.
/// SN_ENOMEM for a NULL or too small `mem`. A zero mid axis is the rest pose's knee hinge (the
/// normal of thigh and shin, on the side that opens the knee), or (0, 0, 1) for a straight leg.
sn_status sn_ik_feet_init(void *mem, size_t size, const sn_ik_feet_def *def, sn_error *err);
/// The skeleton of `ik`.
const sn_skeleton *sn_ik_feet_skeleton(const sn_ik_feet *ik);
/// The pelvis of `ik`, 0-based.
int sn_ik_feet_pelvis(const sn_ik_feet *ik);
/// The number of legs of `ik`.
int sn_ik_feet_count(const sn_ik_feet *ik);
/// Joint i (0 root, 1 mid, 2 tip) of leg `leg` (0-based); -1 out of range.
int sn_ik_feet_joint(const sn_ik_feet *ik, int leg, int i);
/// The unit up direction of `ik`, model space.
sn_vec3 sn_ik_feet_up(const sn_ik_feet *ik);
/// max_drop, normal_limit and smoothing of `ik` (as in the definition).
double sn_ik_feet_max_drop(const sn_ik_feet *ik);
double sn_ik_feet_normal_limit(const sn_ik_feet *ik);
double sn_ik_feet_smoothing(const sn_ik_feet *ik);
/// Setters of the three (SN_EINVAL outside the definition's ranges, arg 1).
sn_status sn_ik_feet_set_max_drop(sn_ik_feet *ik, double v, sn_error *err);
sn_status sn_ik_feet_set_normal_limit(sn_ik_feet *ik, double v, sn_error *err);
sn_status sn_ik_feet_set_smoothing(sn_ik_feet *ik, double v, sn_error *err);
/// The pelvis offset along up of the last solve (model units, <= 0 at weight 1; 0 before any).
double sn_ik_feet_offset(const sn_ik_feet *ik);
/// Forgets the smoothing state: the next solve starts at its targets (after a teleport).
void sn_ik_feet_reset(sn_ik_feet *ik);
/// How many numbers `ik`'s state has: 4 + 9 per leg.
int sn_ik_feet_state_count(const sn_ik_feet *ik);
/// Writes `ik`'s state into out[0 .. sn_ik_feet_state_count - 1]: started (0 or 1), the pelvis's
/// offset, its rate and its held-low target, then per leg the smoothed foot normal (3), its rate
/// (3) and the knee's hinge last used (3, in the mid joint's frame): all a solve carries to the
/// next, so that a state put back with sn_ik_feet_set_state continues bit for bit.
void sn_ik_feet_state(const sn_ik_feet *ik, double *out);
/// Checks a state for sn_ik_feet_set_state: started 0 or 1, every other number finite, each hinge
/// a unit vector (to 1e-6 on its squared length) (arg 1). A state whose numbers put the feet out of
/// range makes the solves refuse (writing nothing) until a reset or another state.
sn_status sn_ik_feet_check_state(const sn_ik_feet *ik, const double *in, sn_error *err);
/// Puts back a state that sn_ik_feet_state gave (checked first: a refused one changes nothing).
/// The hinge of a leg whose definition gave `mid_axis` is a setting: its three numbers are checked
/// and not put back.
sn_status sn_ik_feet_set_state(sn_ik_feet *ik, const double *in, sn_error *err);
/// The bytes of `ik`'s block (what sn_ik_feet_size gave for its definition).
size_t sn_ik_feet_block_size(const sn_ik_feet *ik);
/// Builds at `mem` (at least sn_ik_feet_block_size(src) bytes) a solver of `src`'s definition and
/// settings (max_drop, normal_limit, smoothing, knee hinges) with a fresh state, as if reset: one
/// more character's feet. SN_ENOMEM for a NULL or too small `mem`.
sn_status sn_ik_feet_copy(void *mem, size_t size, const sn_ik_feet *src, sn_error *err);

/// Phase 1 of a solve: reads the pose and writes each foot's model-space position to
/// points[3 * count] (x, y, z per leg): where the caller asks the ground. Keeps what it read in
/// `ik` for one sn_ik_feet_solve (the next call on `ik`, with the same pose). Refuses (arg 1) a pose
/// of another skeleton or one sn_ik_two_bone_solve would refuse on a leg's path; writes nothing
/// into the pose.
sn_status sn_ik_feet_prepare(sn_ik_feet *ik, const sn_pose *pose, double *points, sn_error *err);
/// Phase 2: places the feet. ground[4 * count] holds per leg the ground's height (along up, at
/// the foot's point) and its normal (model space, any length; zero: up). Each foot (the leg's
/// tip) moves along up so that its distance from the ground plane, along the plane's normal, is
/// its height above the flat floor (the plane through the origin across up) in the input pose:
/// a stance foot stands on the ground, a swing foot keeps its clearance. The pelvis drops (its
/// translation, the only one written) by the most any foot moves down (at most max_drop),
/// smoothed with a critically damped spring of time `smoothing` (exact for any dt; the first
/// solve after init or reset starts at the target), then lower still where a leg could not
/// reach. Each leg is a two-bone solve (its knee toward its current side) of the leg as prepare
/// read it, moved with the pelvis (the pose is not read again); each foot then turns
/// by the shortest arc from up to its smoothed ground normal (at most normal_limit). Weight
/// blends every write with the input (translation lerp, rotations slerp); the state advances at
/// any weight. `flags` receives SN_IK_UNREACHABLE (a leg fell short), SN_IK_LIMITED (max_drop or
/// normal_limit held), SN_IK_REACHED (every foot placed, weight 1). Refuses (writing nothing,
/// the state unchanged): a pose not the one prepared (arg 1), a height not finite or beyond
/// SN_IK_MAX_COORD or a normal not finite (arg 2), dt not finite or negative (arg 3), weight
/// outside [0, 1] (arg 4).
sn_status sn_ik_feet_solve(sn_ik_feet *ik, sn_pose *pose, const double *ground, double dt, double weight,
                           unsigned *flags, sn_error *err);

#endif
