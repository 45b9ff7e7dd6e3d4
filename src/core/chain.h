/*
 * sinew core: dynamic bones, frame-rate-independent secondary motion of a chain or tree of
 * particles (hair, tails, ears, cloth strips) with colliders.
 *
 * CONVENTIONS: double precision; vectors x, y, z; quaternions x, y, z, w; right-handed; seconds;
 * inputs first, outputs last. A chain is one block of caller memory with the lifecycle of every
 * core object: sn_chain_def_init, sn_chain_validate, sn_chain_size, sn_chain_init (which
 * validates again and builds the chain at `mem`; no partial object). Validation, size and init
 * take time linear in the particles (and the skeleton's joints after the root), with scratch
 * memory from the definition's allocator for that moment. Colliders go into a capacity reserved
 * at creation. Per-frame functions (sn_chain_step, sn_chain_update, sn_chain_move_collider,
 * sn_chain_set_param, ...) never allocate. Every function that can refuse its input takes an
 * sn_error (NULL for none): err->arg is the 1-based parameter at fault counted after the chain
 * (for sn_chain_validate, sn_chain_size and sn_chain_init, 1 is the definition); messages count
 * particles, points, joints and colliders from 1.
 *
 * MEMORY (64-bit systems): a chain takes 552 bytes per particle (skeleton mode: 776), plus 204
 * bytes per collider of max_colliders, plus 4.7 kB; a virtual tip counts as a particle. Eight
 * particles with the default 16 colliders take 12 kB; max_colliders 4096 alone takes 836 kB. The
 * largest block is SN_CHAIN_MAX_BYTES, 103 MB.
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

/// Most points of a points-mode chain (skeleton mode: the skeleton's own limit, 65535 joints).
#define SN_CHAIN_MAX_POINTS 65536
/// Most particles of a chain: every point or joint, and a virtual tip after each leaf.
#define SN_CHAIN_MAX_PARTICLES (2 * SN_CHAIN_MAX_POINTS - 1)
/// Largest max_steps (steps per call).
#define SN_CHAIN_MAX_STEPS 1000
/// Largest max_colliders (colliders reserved in a chain).
#define SN_CHAIN_MAX_COLLIDERS 4096
/// Smallest rate, steps per second (below it 1/rate is no simulation step).
#define SN_CHAIN_MIN_RATE 1.0
/// Largest rate, steps per second.
#define SN_CHAIN_MAX_RATE 10000.0
/// Largest magnitude of a position, distance, radius or acceleration a chain accepts (world
/// units): inputs within it keep every product of the simulation finite.
#define SN_CHAIN_MAX_COORD 1e9
/// sn_chain_def.teleport value (the default) for a teleport distance of 5 x the chain length.
#define SN_CHAIN_TELEPORT_AUTO (-1.0)
/// Bytes of the largest block sn_chain_size asks for on 64-bit systems (a skeleton chain of 65535
/// joints, all leaves but the root, with tips, and SN_CHAIN_MAX_COLLIDERS colliders).
#define SN_CHAIN_MAX_BYTES ((size_t)102549856u)

/// A chain object (opaque), built by sn_chain_init inside caller memory.
typedef struct sn_chain sn_chain;

/// Parameters of a chain; the per-particle ones (curves along the chain) come first.
typedef enum sn_chain_param {
    SN_CHAIN_PARAM_DAMPING = 0,     ///< [0, 1]: fraction of the velocity lost per 1/60 s of simulated time
    SN_CHAIN_PARAM_ELASTICITY = 1,  ///< [0, 1]: pull toward the animated pose (0 none, 1 rigid)
    SN_CHAIN_PARAM_STIFFNESS = 2,   ///< [0, 1]: pull toward the animated shape relative to the parent
    SN_CHAIN_PARAM_INERT = 3,       ///< [0, 1]: fraction of the character's motion the particle ignores
    SN_CHAIN_PARAM_RADIUS = 4,      ///< [0, SN_CHAIN_MAX_COORD] world units: collision radius of the particle
    SN_CHAIN_PARAM_GRAVITY = 5,     ///< 3 numbers in [-SN_CHAIN_MAX_COORD, SN_CHAIN_MAX_COORD], units/s^2
    SN_CHAIN_PARAM_FORCE = 6,       ///< 3 numbers as gravity, units/s^2: a constant extra acceleration (wind)
    SN_CHAIN_PARAM_RATE = 7,        ///< [SN_CHAIN_MIN_RATE, SN_CHAIN_MAX_RATE]: steps per second of the fixed step
    SN_CHAIN_PARAM_MAX_STEPS = 8,   ///< integer in [1, SN_CHAIN_MAX_STEPS]: most steps per call; more time is dropped
    SN_CHAIN_PARAM_TELEPORT = 9,    ///< [0, SN_CHAIN_MAX_COORD] world units: a root jump beyond it resets; 0 never
    SN_CHAIN_PARAM_END_LENGTH = 10, ///< [0, SN_CHAIN_MAX_COORD], read only after creation: virtual tip bone / last bone
    SN_CHAIN_PARAM_COUNT = 11       ///< count of the parameters
} sn_chain_param;

/// Count of the per-particle parameters (the first ones of sn_chain_param).
#define SN_CHAIN_PER_PARTICLE 5

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
    const double *values;  ///< borrowed during the call only; NULL with count 0 keeps the default
    int count;  ///< 0 default; 1 a constant; 2 {start, end} linear in depth/max depth; depths+1 values per depth
} sn_chain_curve;

/// Definition of a chain: either points mode (count, points, parents) or skeleton mode.
typedef struct sn_chain_def {
    int count;              ///< points mode: number of points, 1 .. SN_CHAIN_MAX_POINTS; 0 in skeleton mode
    const double *points;   ///< points mode: 3*count rest positions in the root frame; borrowed
    const int *parents;     ///< points mode: count parents, 0-based, -1 for a root, parent < index
    const struct sn_skeleton *skeleton;  ///< skeleton mode: the skeleton (borrowed for the chain's life)
    int root;               ///< skeleton mode: 0-based joint whose descendants are simulated
    sn_chain_curve curves[SN_CHAIN_PER_PARTICLE];  ///< per-particle parameters, by sn_chain_param
    double gravity[3];      ///< units/s^2, each in [-SN_CHAIN_MAX_COORD, SN_CHAIN_MAX_COORD]
    double force[3];        ///< units/s^2, as gravity
    double end_length;      ///< [0, SN_CHAIN_MAX_COORD]: a virtual tip after every leaf, this fraction of the last bone
    double rate;            ///< [SN_CHAIN_MIN_RATE, SN_CHAIN_MAX_RATE]: internal steps per second
    int max_steps;          ///< [1, SN_CHAIN_MAX_STEPS]: most steps per update
    int max_colliders;      ///< [0, SN_CHAIN_MAX_COLLIDERS]: collider capacity reserved in the block
    double teleport;        ///< [0, SN_CHAIN_MAX_COORD] jump distance that resets (0 never), or SN_CHAIN_TELEPORT_AUTO
    sn_chain_space space;   ///< simulation space
    sn_chain_solver solver; ///< the solver (SN_CHAIN_COUPLED by default)
    const sn_allocator *alloc;  ///< scratch for validate, size and init (see sn_allocator); NULL: malloc
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
    sn_vec3 a;      ///< sphere centre, capsule end a, plane point: each in [-SN_CHAIN_MAX_COORD, SN_CHAIN_MAX_COORD]
    sn_vec3 b;      ///< capsule end b (as a), plane normal (finite, non-zero); unused for spheres
    double radius;    ///< [0, SN_CHAIN_MAX_COORD]: sphere radius, capsule radius at a; unused for planes
    double radius_b;  ///< [0, SN_CHAIN_MAX_COORD]: capsule radius at b; |radius - radius_b| < |b - a|
} sn_collider_def;

/// Fills `def` with the defaults: no particles, damping 0.1, elasticity 0.1, stiffness 0.1,
/// inert 0, radius 0, gravity (0, -9.81, 0), rate 60, max_steps 4, 16 colliders,
/// SN_CHAIN_TELEPORT_AUTO, world space, the coupled solver, malloc for scratch.
void sn_chain_def_init(sn_chain_def *def);
/// Checks a definition completely; names the first problem in `err` (arg 1 = the definition).
/// SN_ENOMEM when its scratch (an int per particle) cannot be had.
sn_status sn_chain_validate(const sn_chain_def *def, sn_error *err);
/// Bytes needed for the chain of `def` (at most SN_CHAIN_MAX_BYTES); 0 when `def` is invalid,
/// and then `err` says why (as sn_chain_validate).
size_t sn_chain_size(const sn_chain_def *def, sn_error *err);
/// Builds the chain at `mem` (aligned for doubles, `size` >= sn_chain_size(def)); validates
/// first, SN_ENOMEM for a NULL or too small `mem`. The particles start at the rest pose: points,
/// or the skeleton's rest pose in model space.
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
/// Points mode, or i out of range: -1.
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
/// to every particle when i < 0; the others ignore i. SN_EINVAL for an unknown or read-only
/// parameter (arg 1) or a value out of its range (arg 3); SN_ERANGE for a particle i >= count
/// (arg 2).
sn_status sn_chain_set_param(sn_chain *c, int param, int i, const double *value, sn_error *err);
/// Sets a per-particle parameter along the chain from a curve (see sn_chain_curve): SN_EINVAL for
/// a parameter that is not per particle (arg 1) or a bad curve (arg 2).
sn_status sn_chain_set_curve(sn_chain *c, int param, const sn_chain_curve *curve, sn_error *err);
/// Reads a parameter into value[0] (value[0..2] for vectors); particle i (0-based) for
/// per-particle parameters (i < 0 reads particle 0). SN_ERANGE for an unknown parameter (arg 1)
/// or a particle i >= count (arg 2).
sn_status sn_chain_get_param(const sn_chain *c, int param, int i, double *value, sn_error *err);

/// Validates a collider definition (arg 1 = the definition).
sn_status sn_collider_validate(const sn_collider_def *def, sn_error *err);
/// Adds a collider; `*index` receives its 0-based index. SN_EINVAL for a bad definition (arg 1),
/// SN_ERANGE when max_colliders are there already.
sn_status sn_chain_add_collider(sn_chain *c, const sn_collider_def *def, int *index, sn_error *err);
/// Replaces collider k (0-based) with `def`; no allocation. SN_ERANGE for a bad k (arg 1),
/// SN_EINVAL for a bad definition (arg 2).
sn_status sn_chain_move_collider(sn_chain *c, int k, const sn_collider_def *def, sn_error *err);
/// Reads collider k (0-based) back; SN_ERANGE for a bad k (arg 1).
sn_status sn_chain_get_collider(const sn_chain *c, int k, sn_collider_def *out, sn_error *err);

/// Points mode: places the rest points (the animated pose) with rotation q and translation t.
/// q need not be unit. SN_EINVAL for t out of [-SN_CHAIN_MAX_COORD, SN_CHAIN_MAX_COORD] or not
/// finite (arg 1), or a zero or non-finite q (arg 2).
sn_status sn_chain_move_root(sn_chain *c, const sn_vec3 *t, const sn_quat *q, sn_error *err);
/// Advances by dt seconds (finite, >= 0; SN_EINVAL otherwise, arg 1) toward the current animated
/// pose (the last pose read by sn_chain_update, or the points placed by sn_chain_move_root).
sn_status sn_chain_step(sn_chain *c, double dt, sn_error *err);
/// Skeleton mode: reads the animated pose, advances by dt and writes the simulated rotations
/// of the chain's joints back into `pose` (local rotations; translations and scales kept).
/// `root_matrix` (16 numbers, column-major, NULL for the identity) maps model space to world.
/// SN_EINVAL for a points chain, a bad dt (arg 1), pose (arg 2) or root matrix (arg 3).
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
