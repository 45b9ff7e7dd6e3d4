/*
 * sinew core: dynamic bones, frame-rate-independent secondary motion of a chain or tree of
 * particles (hair, tails, ears, cloth strips) with colliders.
 *
 * CONVENTIONS: double precision; vectors x, y, z; quaternions x, y, z, w; right-handed; seconds;
 * inputs first, outputs last. A chain is one block of caller memory: sn_chain_size says how many
 * bytes, sn_chain_init builds it there after validating the whole definition (no partial object).
 * Colliders go into a capacity reserved at creation. Per-frame functions (sn_chain_step,
 * sn_chain_update, sn_chain_move_collider, sn_chain_set_param, ...) never allocate.
 *
 * Method: Verlet integration at a fixed step 1/rate with an accumulator (at most max_steps steps
 * per call, the rest of the time dropped), output interpolated between the last two steps. Each
 * step: damping v *= (1 - damping)^(60 h); gravity and force as accelerations; elasticity, bend
 * stiffness (compliance (1/60)^2 (1 - s)/s; s = 1 rigid, s = 0 off) and stretch solved together
 * as one exact implicit (XPBD) step, a tree-structured elimination with 3x3 blocks; segments put
 * back at their exact lengths; colliders by projection with a swept test against tunnelling.
 * Roots are kinematic (inverse mass 0), the other particles have unit mass. Positions are world
 * positions: the model positions of the animation mapped by the root matrix (skeleton mode) or by
 * the transform set with sn_chain_move_root (points mode). See manual/dynamic-bones.md.
 */
#ifndef SN_CHAIN_H
#define SN_CHAIN_H

#include "common.h"
#include "quat.h"

struct sn_skeleton;
struct sn_pose;

/// A chain object (opaque), built by sn_chain_init inside caller memory.
typedef struct sn_chain sn_chain;

/// Parameters that may differ per particle (curves along the chain).
typedef enum sn_chain_param {
    SN_CHAIN_DAMPING = 0,     ///< [0, 1]: fraction of the velocity lost per 1/60 s of simulated time
    SN_CHAIN_ELASTICITY = 1,  ///< [0, 1]: pull toward the animated pose (0 none, 1 rigid)
    SN_CHAIN_STIFFNESS = 2,   ///< [0, 1]: pull toward the animated shape relative to the parent
    SN_CHAIN_INERT = 3,       ///< [0, 1]: fraction of the character's motion the particle ignores
    SN_CHAIN_RADIUS = 4,      ///< >= 0, world units: collision radius of the particle
    SN_CHAIN_GRAVITY = 5,     ///< 3 finite numbers, units/s^2 (default 0, -9.81, 0)
    SN_CHAIN_FORCE = 6,       ///< 3 finite numbers, units/s^2: a constant extra acceleration (wind)
    SN_CHAIN_RATE = 7,        ///< > 0 and <= 10000, steps per second of the internal fixed step
    SN_CHAIN_MAX_STEPS = 8,   ///< integer in [1, 1000]: most steps per call; more time is dropped
    SN_CHAIN_TELEPORT = 9,    ///< >= 0 world units: a root jump beyond it resets the chain; 0 never
    SN_CHAIN_END_LENGTH = 10, ///< >= 0, read only after creation: virtual tip bone / last bone
    SN_CHAIN_PARAM_COUNT = 11 ///< count of the parameters
} sn_chain_param;

/// Count of the per-particle parameters (the first ones of sn_chain_param).
#define SN_CHAIN_PER_PARTICLE 5

/// Largest magnitude of a position, distance, radius or acceleration a chain accepts (world
/// units): inputs within it keep every product of the simulation finite.
#define SN_CHAIN_MAX_COORD 1e9

/// Where the chain simulates (see the manual): how the character's motion reaches the particles.
typedef enum sn_chain_space {
    SN_CHAIN_WORLD = 0,  ///< world space; `inert` carries a fraction of the placement's motion
    SN_CHAIN_PARENT = 1  ///< the root's parent: all of its motion is carried; `inert` is unused
} sn_chain_space;

/// How a step solves elasticity, bend stiffness and stretch (see the manual).
typedef enum sn_chain_solver {
    SN_CHAIN_SWEEP = 0,   ///< parents first, each solved with its parent final: fast; motion depends on rate
    SN_CHAIN_COUPLED = 1  ///< one implicit solve of the whole tree, children also pulling their parents (default)
} sn_chain_solver;

/// Values of a per-particle parameter along the chain, by depth (0 at a root).
typedef struct sn_chain_curve {
    const double *values;  ///< borrowed during init only; NULL with count 0 keeps the default
    int count;  ///< 0 default; 1 a constant; 2 {start, end} linear in depth/max depth; depths+1 values per depth
} sn_chain_curve;

/// Definition of a chain: either points mode (count, points, parents) or skeleton mode.
typedef struct sn_chain_def {
    int count;              ///< points mode: number of points (>= 1); 0 in skeleton mode
    const double *points;   ///< points mode: 3*count rest positions in the root frame; borrowed
    const int *parents;     ///< points mode: count parents, 0-based, -1 for a root, parent < index
    const struct sn_skeleton *skeleton;  ///< skeleton mode: the skeleton (borrowed for the chain's life)
    int root;               ///< skeleton mode: 0-based joint whose descendants are simulated
    sn_chain_curve curves[SN_CHAIN_PER_PARTICLE];  ///< per-particle parameters, by sn_chain_param
    double gravity[3];      ///< units/s^2
    double force[3];        ///< units/s^2
    double end_length;      ///< >= 0: a virtual tip after every leaf, this fraction of the last bone
    double rate;            ///< [1, 10000]: internal steps per second
    int max_steps;          ///< [1, 1000]: most steps per update
    int max_colliders;      ///< [0, 4096]: collider capacity reserved in the block
    double teleport;        ///< >= 0 jump distance that resets (0 never); < 0: 5 x the chain length
    sn_chain_space space;   ///< simulation space
    sn_chain_solver solver; ///< the solver (SN_CHAIN_COUPLED by default)
} sn_chain_def;

/// Collider shapes.
typedef enum sn_collider_shape {
    SN_COLLIDER_SPHERE = 0,   ///< centre a, radius
    SN_COLLIDER_CAPSULE = 1,  ///< axis a to b, radius at a, radius_b at b (tapered when they differ)
    SN_COLLIDER_PLANE = 2     ///< point a, normal b (need not be unit): the solid is behind the plane
} sn_collider_shape;

/// Definition of a collider, in world units.
typedef struct sn_collider_def {
    sn_collider_shape shape;  ///< the shape
    int inside;     ///< 0: particles are kept outside the solid; 1: kept inside it
    sn_vec3 a;      ///< sphere centre, capsule end a, plane point
    sn_vec3 b;      ///< capsule end b, plane normal (non-zero); unused for spheres
    double radius;    ///< >= 0: sphere radius, capsule radius at a; unused for planes
    double radius_b;  ///< >= 0: capsule radius at b; |radius - radius_b| < |b - a|
} sn_collider_def;

/// Fills `def` with the defaults: no particles, damping 0.1, elasticity 0.1, stiffness 0.1,
/// inert 0, radius 0, gravity (0, -9.81, 0), rate 60, max_steps 4, 16 colliders, automatic
/// teleport distance, world space.
void sn_chain_def_init(sn_chain_def *def);
/// Checks a definition completely; names the first problem in `err` (arg 1 = the definition).
sn_status sn_chain_validate(const sn_chain_def *def, sn_error *err);
/// Bytes needed for the chain of a valid definition (0 for an invalid one).
size_t sn_chain_size(const sn_chain_def *def);
/// Builds the chain in `mem` (aligned for doubles, `size` >= sn_chain_size(def)); validates first.
/// The particles start at the rest pose: points, or the skeleton's rest pose in model space.
sn_status sn_chain_init(void *mem, size_t size, const sn_chain_def *def, sn_error *err);

/// How a chain filters its colliders (several at once): every path gives the same results.
typedef enum sn_chain_simd {
    SN_CHAIN_SIMD_PLAIN = 0,  ///< a plain C loop, vectorised by the compiler (SSE2 on x86-64)
    SN_CHAIN_SIMD_AVX = 1     ///< four colliders per instruction (x86-64 with AVX, checked at run time)
} sn_chain_simd_level;

/// The best sn_chain_simd_level this build and processor run (a new chain uses it).
int sn_chain_simd_best(void);
/// The sn_chain_simd_level chain c uses.
int sn_chain_get_simd(const sn_chain *c);
/// Makes chain c use `simd`, or the best below it that runs here; returns the one chosen. For
/// tests and benchmarks: the results are the same on every path.
int sn_chain_set_simd(sn_chain *c, int simd);

/// Number of particles: the points or chain joints, then one virtual tip per leaf (end_length > 0).
int sn_chain_count(const sn_chain *c);
/// 1 in skeleton mode, 0 in points mode.
int sn_chain_has_skeleton(const sn_chain *c);
/// Skeleton mode: 0-based skeleton joint of particle i (0-based), -1 for a virtual tip.
/// Points mode: -1.
int sn_chain_joint(const sn_chain *c, int i);
/// Number of colliders added so far.
int sn_chain_collider_count(const sn_chain *c);
/// Total rest length of the longest root-to-leaf path (virtual tips included).
double sn_chain_length(const sn_chain *c);

/// Index of the parameter called `name` ("damping", "gravity", ...), -1 for none.
int sn_chain_param_find(const char *name);
/// Name of a parameter, NULL out of range.
const char *sn_chain_param_name(int param);
/// Number of values of a parameter: 3 for gravity and force, 1 for the others.
int sn_chain_param_arity(int param);
/// Sets a parameter live, without reset. Per-particle parameters go to particle i (0-based) or
/// to every particle when i < 0; the others ignore i. SN_EINVAL names an out-of-range value
/// (arg 3), SN_ERANGE a bad particle (arg 4), a read-only parameter is SN_EINVAL (arg 2).
sn_status sn_chain_set_param(sn_chain *c, int param, int i, const double *value, sn_error *err);
/// Sets a per-particle parameter along the chain from a curve (see sn_chain_curve).
sn_status sn_chain_set_curve(sn_chain *c, int param, const sn_chain_curve *curve, sn_error *err);
/// Reads a parameter into value[0] (value[0..2] for vectors); particle i (0-based) for
/// per-particle parameters (i < 0 reads particle 0). SN_ERANGE for a bad param or particle.
sn_status sn_chain_get_param(const sn_chain *c, int param, int i, double *value);

/// Validates a collider definition (arg 1 = the definition).
sn_status sn_collider_validate(const sn_collider_def *def, sn_error *err);
/// Adds a collider; `*index` receives its 0-based index. SN_ERANGE when the capacity is full.
sn_status sn_chain_add_collider(sn_chain *c, const sn_collider_def *def, int *index, sn_error *err);
/// Replaces collider k (0-based) with `def`; no allocation. SN_ERANGE for a bad k.
sn_status sn_chain_move_collider(sn_chain *c, int k, const sn_collider_def *def, sn_error *err);
/// Reads collider k (0-based) back; SN_ERANGE for a bad k.
sn_status sn_chain_get_collider(const sn_chain *c, int k, sn_collider_def *out);

/// Points mode: places the rest points (the animated pose) with rotation q and translation t.
/// q need not be unit; SN_EINVAL for a zero or non-finite q or a non-finite t.
sn_status sn_chain_move_root(sn_chain *c, const sn_vec3 *t, const sn_quat *q);
/// Advances by dt seconds (finite, >= 0; SN_EINVAL otherwise) toward the current animated pose
/// (the last pose read by sn_chain_update, or the points placed by sn_chain_move_root).
sn_status sn_chain_step(sn_chain *c, double dt, sn_error *err);
/// Skeleton mode: reads the animated pose, advances by dt and writes the simulated rotations
/// of the chain's joints back into `pose` (local rotations; translations and scales kept).
/// `root_matrix` (16 numbers, column-major, NULL for the identity) maps model space to world.
sn_status sn_chain_update(sn_chain *c, double dt, struct sn_pose *pose, const double *root_matrix,
                          sn_error *err);
/// World position of particle i (0-based; out of range gives the origin) for rendering:
/// interpolated between the last two steps by the time left in the accumulator.
void sn_chain_position(const sn_chain *c, int i, sn_vec3 *out);
/// World position of particle i at the end of the last step (not interpolated): the state the
/// constraints and colliders hold exactly.
void sn_chain_step_position(const sn_chain *c, int i, sn_vec3 *out);
/// Puts every particle at the current animated pose with zero velocity.
void sn_chain_reset(sn_chain *c);
/// The next step or update carries the chain, its velocities and its animation history rigidly
/// with the root's motion since the last one, instead of simulating that motion.
void sn_chain_teleport(sn_chain *c);

#endif
