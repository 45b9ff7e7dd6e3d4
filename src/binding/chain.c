/***
 * Dynamic bones: `sinew.chain`, frame-rate-independent secondary motion (hair, tails, ears,
 * cloth strips) with colliders.
 *
 * A chain simulates particles with a fixed internal step and writes the result back as joint
 * rotations (skeleton mode, `chain:update`) or gives positions (points mode, `chain:step`).
 * Particles are numbered from 1: the points (or the root joint and its descendants, in skeleton
 * order), then one virtual tip per leaf when `end_length` > 0. Per-frame calls (`step`,
 * `update`, `position`, `move_root`, `move_collider`, `set_param`) make no garbage.
 * See manual/dynamic-bones.md.
 *
 * A method raises "sinew.Chain expected, got <type>" when its `self` is something else;
 * the methods' Raises sections leave that out.
 * @module sinew.chain
 */
#include "../core/chain.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "binding.h"

static sn_chain *check_chain(lua_State *L, int arg) { return (sn_chain *)sn_lua_checkobject(L, arg, SN_CHAIN_MT); }

/* ---- reading definitions -------------------------------------------------------------------- */

/* the value at `idx` as a table of 3 finite numbers, blaming argument `arg` and naming `what` */
static void read_vec3(lua_State *L, int idx, int arg, const char *what, double *out) {
    int i;
    idx = sn_lua_absindex(L, idx);
    if (!lua_istable(L, idx) || sn_lua_rawlen(L, idx) != 3)
        sn_lua_argerror(L, arg, lua_pushfstring(L, "'%s' must be a table of 3 numbers (got %s)", what, luaL_typename(L, idx)));
    for (i = 0; i < 3; i++) out[i] = sn_lua_finite_at(L, idx, i + 1, arg, what);
}

#define read_number sn_lua_tonumber

/* A per-particle parameter value at `idx`: a number, or a table of numbers (a curve). The values
   go to `vals` (room for `room`); returns the count. */
static int read_curve(lua_State *L, int idx, int arg, const char *what, double *vals, int room) {
    int n, i;
    idx = sn_lua_absindex(L, idx);
    if (lua_type(L, idx) == LUA_TNUMBER) {
        vals[0] = lua_tonumber(L, idx);
        return 1;
    }
    if (!lua_istable(L, idx))
        sn_lua_argerror(L, arg, lua_pushfstring(L, "'%s' must be a number or a table of numbers (got %s)", what,
                                              luaL_typename(L, idx)));
    n = (int)sn_lua_rawlen(L, idx);
    if (n < 1) sn_lua_argerror(L, arg, lua_pushfstring(L, "'%s' is an empty table", what));
    if (n > room) sn_lua_argerror(L, arg, lua_pushfstring(L, "'%s' has %d values, more than the chain's depths", what, n));
    for (i = 0; i < n; i++) {
        lua_rawgeti(L, idx, i + 1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            sn_lua_argerror(L, arg, lua_pushfstring(L, "element %d of '%s' is not a number (got %s)", i + 1, what,
                                                  luaL_typename(L, -1)));
        vals[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    return n;
}

static const char *const space_names[] = {"world", "parent", NULL};   /* sn_chain_space order */
static const char *const solver_names[] = {"sweep", "coupled", NULL}; /* sn_chain_solver order */

/* field `name` of the table at 1: one of `names` (its index returned), or `dflt` when nil */
static int read_choice(lua_State *L, const char *name, const char *const *names, int dflt) {
    int i;
    sn_lua_field(L, 1, name);
    i = sn_lua_tooption(L, -1, 1, "", name, names, dflt);
    lua_pop(L, 1);
    return i;
}

static const char *const def_fields[] = {
    "skeleton", "root", "points", "parents", "damping", "elasticity", "stiffness", "inert", "radius",
    "gravity", "force", "end_length", "rate", "max_steps", "max_colliders", "teleport", "space", "solver", NULL};

/* Reads the definition table at 1 into `def`, each field once. The skeleton (or nil) stays at
   stack index 2, anchored while the chain is built and then kept by it; arrays go into
   temporary userdata left on the stack. */
static void read_chain_def(lua_State *L, sn_chain_def *def) {
    int n = 0, i, room;
    double *vals;
    sn_chain_def_init(def);
    sn_lua_checktype(L, 1, LUA_TTABLE);
    sn_lua_checkfields(L, 1, 1, "the chain definition", def_fields);
    sn_lua_field(L, 1, "skeleton"); /* 2 */
    if (!lua_isnil(L, 2)) {
        sn_skeleton *s = (sn_skeleton *)sn_lua_testobject(L, 2, SN_SKELETON_MT);
        if (s == NULL) sn_lua_argerror(L, 1, lua_pushfstring(L, "'skeleton' must be a %s (got %s)", SN_SKELETON_MT, sn_lua_typename_of(L, 2)));
        def->skeleton = s;
        sn_lua_field(L, 1, "root");
        if (lua_isnil(L, -1)) sn_lua_argerror(L, 1, "'root' is needed with 'skeleton'");
        def->root = sn_lua_tojoint(L, -1, s, 1);
        lua_pop(L, 1);
        n = sn_skeleton_count(s);
    }
    lua_getfield(L, 1, "points");
    if (!lua_isnil(L, -1)) {
        int np, *parents;
        double *pts;
        if (def->skeleton != NULL) sn_lua_argerror(L, 1, "give either 'points' or 'skeleton', not both");
        if (!lua_istable(L, -1)) sn_lua_argerror(L, 1, "'points' must be a table of {x, y, z} tables");
        np = (int)sn_lua_rawlen(L, -1);
        if (np < 1) sn_lua_argerror(L, 1, "'points' is empty");
        lua_getfield(L, 1, "parents");
        if (!lua_istable(L, -1) || (int)sn_lua_rawlen(L, -1) != np)
            sn_lua_argerror(L, 1, lua_pushfstring(L, "'parents' must be a table of %d numbers, one per point", np));
        pts = (double *)sn_lua_newtemp(L, (size_t)np * (3 * sizeof(double) + sizeof(int)));
        parents = (int *)(pts + 3 * np);
        lua_insert(L, -3); /* scratch below points and parents */
        for (i = 0; i < np; i++) {
            char what[32];
            lua_rawgeti(L, -2, i + 1);
            sprintf(what, "point %d", i + 1);
            read_vec3(L, -1, 1, what, &pts[3 * i]);
            lua_pop(L, 1);
            lua_rawgeti(L, -1, i + 1);
            parents[i] = sn_lua_toint(L, -1, 1, "parents");
            if (parents[i] > INT_MIN) parents[i]--; /* 0-based; the core checks the range */
            lua_pop(L, 1);
        }
        lua_pop(L, 2);
        def->count = np;
        def->points = pts;
        def->parents = parents;
        n = np;
    } else {
        lua_pop(L, 1);
        if (def->skeleton == NULL) sn_lua_argerror(L, 1, "give 'points' (with 'parents') or 'skeleton' (with 'root')");
    }
    /* curves: at most one value per depth, depths < particles + 1 */
    room = n + 2;
    vals = (double *)sn_lua_newtemp(L, (size_t)SN_CHAIN_PER_PARTICLE * (size_t)room * sizeof(double));
    for (i = 0; i < SN_CHAIN_PER_PARTICLE; i++) {
        const char *name = sn_chain_param_name(i);
        lua_getfield(L, 1, name);
        if (!lua_isnil(L, -1)) {
            def->curves[i].values = vals + i * room;
            def->curves[i].count = read_curve(L, -1, 1, name, vals + i * room, room);
        }
        lua_pop(L, 1);
    }
    lua_getfield(L, 1, "gravity");
    if (!lua_isnil(L, -1)) read_vec3(L, -1, 1, "gravity", def->gravity);
    lua_pop(L, 1);
    lua_getfield(L, 1, "force");
    if (!lua_isnil(L, -1)) read_vec3(L, -1, 1, "force", def->force);
    lua_pop(L, 1);
    lua_getfield(L, 1, "end_length");
    if (!lua_isnil(L, -1)) def->end_length = read_number(L, -1, 1, "end_length");
    lua_pop(L, 1);
    lua_getfield(L, 1, "rate");
    if (!lua_isnil(L, -1)) def->rate = read_number(L, -1, 1, "rate");
    lua_pop(L, 1);
    lua_getfield(L, 1, "max_steps");
    if (!lua_isnil(L, -1)) def->max_steps = sn_lua_toint(L, -1, 1, "max_steps");
    lua_pop(L, 1);
    lua_getfield(L, 1, "max_colliders");
    if (!lua_isnil(L, -1)) def->max_colliders = sn_lua_toint(L, -1, 1, "max_colliders");
    lua_pop(L, 1);
    lua_getfield(L, 1, "teleport");
    if (!lua_isnil(L, -1)) {
        def->teleport = read_number(L, -1, 1, "teleport");
        if (def->teleport < 0) sn_lua_argerror(L, 1, "'teleport' must not be negative");
    }
    lua_pop(L, 1);
    def->space = (sn_chain_space)read_choice(L, "space", space_names, (int)def->space);
    def->solver = (sn_chain_solver)read_choice(L, "solver", solver_names, (int)def->solver);
}

/***
 * Builds a chain.
 *
 * Skeleton mode: `skeleton` (a Skeleton) and `root` (joint index or name): the root joint and all
 * its descendants are simulated (a tree: branches allowed); the root follows the animation.
 * Points mode: `points`, a table of `{x, y, z}` rest positions (world units), and `parents`, one
 * per point (1-based, 0 for a root; parents before their children). Options (defaults in
 * brackets): `damping` [0.1] (fraction of the velocity lost per 1/60 s), `elasticity` [0.1],
 * `stiffness` [0.1], `inert` [0] (fraction of the character's motion ignored), each in [0, 1],
 * and `radius` [0] (world units, >= 0), each a number or a curve along the chain (a table of one
 * value per depth, or `{start, end}`); `gravity` [{0, -9.81, 0}] and `force` [{0, 0, 0}] in world
 * units/s^2; `end_length` [0] (a virtual tip after every leaf, this fraction of the last bone);
 * `rate` [60] steps per second (1 .. 10000); `max_steps` [4] (most steps per call, 1 .. 1000);
 * `max_colliders` [16] (0 .. 4096); `teleport` [5 x the chain length; 0: never] (world units: a
 * root jump beyond it resets the chain); `space` ["world"] or "parent"; `solver` ["coupled"] or
 * "sweep" (see the manual). Coordinates are at most 1e9 in magnitude. Every fault is an error; no
 * partial object.
 * @function chain
 * @tparam table def
 * @treturn Chain
 * @raise when `def` is not a table; "unknown field 'x' in the chain definition"; "give 'points'
 * (with 'parents') or 'skeleton' (with 'root')", "give either 'points' or 'skeleton', not both";
 * "'skeleton' must be a sinew.Skeleton (got table)", "'root' is needed with 'skeleton'", a bad
 * `root` joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)"); "'points' must be a table
 * of {x, y, z} tables", "'points' is empty", "'parents' must be a table of 3 numbers, one per
 * point", "'point 2' must be a table of 3 numbers (got number)", "element 1 of 'point 2' is not
 * finite", "'parents' must be an integer (got 1.5)", "parent 5 of point 2 is out of range (0 ..
 * 1)", "point count 70000 is out of range (1 .. 65536)"; for a parameter: "'damping' must be a
 * number or a table of numbers (got string)", "'damping' is an empty table", "'damping' has 9
 * values, more than the chain's depths", "'damping' has 4 values: give 1, 2 (start, end) or 6 (one
 * per depth)", "'damping' is not finite", "'damping' 2 is out of range (0 .. 1)", "'gravity' must
 * be a table of 3 numbers (got number)", "'rate' 0 is out of range (1 .. 10000)", "'max_steps' must
 * be an integer (got 2.5)", "'max_steps' 0 is out of range (1 .. 1000)", "'max_colliders' 5000 is
 * out of range (0 .. 4096)", "'teleport' must not be negative", "unknown space 'x' ('world' or
 * 'parent')", "unknown solver 'x' ('sweep' or 'coupled')"
 */
static int l_chain(lua_State *L) {
    sn_chain_def def;
    sn_allocator alloc;
    sn_error err;
    size_t size;
    void *mem;
    lua_settop(L, 1);
    read_chain_def(L, &def);
    sn_lua_allocator(L, &alloc);
    def.alloc = &alloc;
    size = sn_chain_size(&def, &err);
    if (size == 0) return sn_lua_raise(L, &err, 0);
    mem = sn_lua_newuserdata(L, size);
    if (sn_chain_init(mem, size, &def, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    sn_lua_setmetatable(L, SN_CHAIN_MT);
    if (def.skeleton != NULL) sn_lua_keepskeleton(L, -1, 2); /* the value read once, at 2 */
    return 1;
}

/* ---- stepping ----------------------------------------------------------------------------- */

/***
 * Advances the simulation by `dt` toward the current animated pose: the points placed by
 * `move_root` (points mode) or the last pose read by `update`. Internally in fixed steps of 1/rate
 * seconds, at most `max_steps` of them per call (more time is dropped).
 * @function Chain:step
 * @tparam number dt seconds (finite, >= 0)
 * @raise for a `dt` that is not a number; "'dt' is not finite", "'dt' -1 is negative"
 */
static int l_step(lua_State *L) {
    sn_chain *c = check_chain(L, 1);
    sn_error err;
    if (sn_chain_step(c, sn_lua_checknumber(L, 2), &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/***
 * Skeleton mode: reads the animated `pose`, advances by `dt` and writes the simulated rotations
 * of the chain's joints back into `pose` (local rotations; translations and scales are kept;
 * twist comes from the animation). `root_matrix` places the model in the world, where gravity,
 * colliders and positions live; default the identity. A refused call changes nothing.
 * @function Chain:update
 * @tparam number dt seconds (finite, >= 0)
 * @tparam Pose pose a pose of the chain's skeleton
 * @tparam[opt] table root_matrix 16 numbers, column-major, as glTF: an affine transform from model
 * units to world units, each entry at most 1e9 in magnitude
 * @raise for a `dt` that is not a number; "sinew.Pose expected, got nil" for `pose`; "'root_matrix'
 * must have 16 numbers", "element 3 of 'root_matrix' is not a number (got string)" or "... is not
 * finite"; "chain has no skeleton (use step)"; "'dt' is not finite", "'dt' -1 is negative"; "pose
 * of another skeleton"; "element 13 of the root matrix 2e+09 is out of range (-1e+09 .. 1e+09)",
 * "root matrix is not affine (its last row must be 0 0 0 1)", "root matrix is singular"; "joint 'x'
 * of the pose is not finite", "joint 'x' of the pose has a zero rotation", "joint 'x' of the pose
 * is placed out of range (-1e+09 .. 1e+09)"
 */
static int l_update(lua_State *L) {
    sn_chain *c = check_chain(L, 1);
    double dt = sn_lua_checknumber(L, 2), m[16];
    sn_pose *pose = sn_lua_checkpose(L, 3);
    sn_error err;
    int i, has_matrix = !lua_isnoneornil(L, 4);
    if (has_matrix) {
        sn_lua_checktype(L, 4, LUA_TTABLE);
        if (sn_lua_rawlen(L, 4) != 16) return sn_lua_argerror(L, 4, "'root_matrix' must have 16 numbers");
        for (i = 0; i < 16; i++) m[i] = sn_lua_finite_at(L, 4, i + 1, 4, "root_matrix");
    }
    if (sn_chain_update(c, dt, pose, has_matrix ? m : NULL, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/* particle argument at `arg`: an index 1 .. #chain, or (skeleton mode) the name of a chain joint;
   returns it 0-based. The chain is at stack index 1. */
static int check_particle(lua_State *L, sn_chain *c, int arg) {
    int n = sn_chain_count(c), i, j;
    if (lua_type(L, arg) == LUA_TSTRING) {
        if (!sn_chain_has_skeleton(c)) return sn_lua_argerror(L, arg, "a points chain has no joint names");
        sn_lua_pushskeleton(L, 1);
        j = sn_lua_checkjoint(L, arg, sn_lua_checkskeleton(L, lua_gettop(L)));
        lua_pop(L, 1);
        for (i = 0; i < n; i++)
            if (sn_chain_joint(c, i) == j) return i;
        return sn_lua_argerror(L, arg, lua_pushfstring(L, "joint '%s' is not in the chain", lua_tostring(L, arg)));
    }
    return sn_lua_toindex(L, arg, 1, n, arg, "particle") - 1;
}

/***
 * World position of particle `i` (an index, or a joint name of a skeleton chain): by default the
 * render position, interpolated between the last two steps; with `"step"`, the state at the end
 * of the last step.
 * @function Chain:position
 * @param i particle: an index (1 .. #chain) or a joint name
 * @tparam[opt="render"] string which "render" or "step"
 * @return x, y, z in world units
 * @raise for a bad particle ("particle must be a number (got table)", "particle 2.5 is not an
 * integer", "particle 9 is out of range (1 .. 8)"; for a name "a points chain has no joint names",
 * "unknown joint 'x'", "joint 'x' is not in the chain"); "unknown position 'x' ('render' or
 * 'step')" or "'position' must be a string ('render' or 'step') (got number)"
 */
static int l_position(lua_State *L) {
    sn_chain *c = check_chain(L, 1);
    int i = check_particle(L, c, 2);
    sn_vec3 p;
    static const char *const which[] = {"render", "step", NULL};
    if (sn_lua_tooption(L, 3, 3, "", "position", which, 0) == 0) sn_chain_position(c, i, &p);
    else sn_chain_step_position(c, i, &p);
    lua_pushnumber(L, p.x);
    lua_pushnumber(L, p.y);
    lua_pushnumber(L, p.z);
    return 3;
}

/* translation and optional rotation from argument `arg` on: x, y, z [, qx, qy, qz, qw] */
static void check_placement(lua_State *L, int arg, sn_vec3 *t, sn_quat *q) {
    t->x = sn_lua_checkfinite(L, arg);
    t->y = sn_lua_checkfinite(L, arg + 1);
    t->z = sn_lua_checkfinite(L, arg + 2);
    q->x = q->y = q->z = 0.0;
    q->w = 1.0;
    if (!lua_isnoneornil(L, arg + 3)) {
        q->x = sn_lua_checkfinite(L, arg + 3);
        q->y = sn_lua_checkfinite(L, arg + 4);
        q->z = sn_lua_checkfinite(L, arg + 5);
        q->w = sn_lua_checkfinite(L, arg + 6);
    }
}

static void points_only(lua_State *L, sn_chain *c, const char *what) {
    if (sn_chain_has_skeleton(c))
        sn_lua_errorf(L, "'%s' is for points chains: a skeleton chain's root follows the pose", what);
}

/* places a points chain's root from the arguments at 2.. (move_root, teleport) */
static void place_root(lua_State *L, sn_chain *c, const char *what) {
    static const int args[] = {2, 5}; /* t from Lua argument 2, q from 5 */
    sn_vec3 t;
    sn_quat q;
    sn_error err;
    points_only(L, c, what);
    check_placement(L, 2, &t, &q);
    if (sn_chain_move_root(c, &t, &q, &err) != SN_OK) sn_lua_raise_args(L, &err, args);
}

/***
 * Points mode: places the rest points (the animated pose the chain follows) with a translation
 * and an optional rotation (normalised). The chain follows at the next step.
 * @function Chain:move_root
 * @tparam number x translation of the rest points, world units (at most 1e9 in magnitude)
 * @tparam number y
 * @tparam number z
 * @tparam[opt] number qx rotation quaternion (any non-zero length; all four or none; default the
 * identity)
 * @tparam[opt] number qy
 * @tparam[opt] number qz
 * @tparam[opt] number qw
 * @raise "'move_root' is for points chains: a skeleton chain's root follows the pose"; for an
 * argument that is not a finite number; "translation x 2e+09 is out of range (-1e+09 .. 1e+09)";
 * "rotation is zero"
 */
static int l_move_root(lua_State *L) {
    place_root(L, check_chain(L, 1), "move_root");
    return 0;
}

/***
 * Puts every particle at the current animated pose, at rest.
 * @function Chain:reset
 * @raise never
 */
static int l_reset(lua_State *L) {
    sn_chain_reset(check_chain(L, 1));
    return 0;
}

/***
 * The next step or update carries the chain (positions, velocities, animation history) rigidly
 * with its root's motion since the last one, instead of simulating that motion: the swing goes
 * on at the new place. In points mode the new placement may be given here (as `move_root`).
 * @function Chain:teleport
 * @tparam[opt] number x translation of the rest points, world units (at most 1e9 in magnitude)
 * @tparam[opt] number y
 * @tparam[opt] number z
 * @tparam[opt] number qx rotation quaternion (any non-zero length; all four or none; default the
 * identity)
 * @tparam[opt] number qy
 * @tparam[opt] number qz
 * @tparam[opt] number qw
 * @raise when a placement is given: "'teleport(x, y, z)' is for points chains: a skeleton chain's
 * root follows the pose", and as `move_root`
 */
static int l_teleport(lua_State *L) {
    sn_chain *c = check_chain(L, 1);
    if (!lua_isnoneornil(L, 2)) place_root(L, c, "teleport(x, y, z)");
    sn_chain_teleport(c);
    return 0;
}

/* ---- parameters --------------------------------------------------------------------------- */

static int check_param(lua_State *L, int arg) {
    const char *name = sn_lua_checklstring(L, arg, NULL);
    int p = sn_chain_param_find(name);
    if (p < 0) sn_lua_argerror(L, arg, lua_pushfstring(L, "unknown parameter '%s'", name));
    return p;
}

/***
 * Changes a parameter live, without resetting the simulation. Per-particle parameters
 * (`damping`, `elasticity`, `stiffness`, `inert` in [0, 1], `radius` in world units) take a number
 * for every particle, a number and a particle (index or joint name) for one, or a curve table for
 * all (one value per depth, or `{start, end}`). `gravity` and `force` take a table `{x, y, z}`
 * (world units/s^2); `rate` (steps per second, 1 .. 10000), `max_steps` (an integer, 1 .. 1000)
 * and `teleport` (world units; 0 never) a number. `end_length` is fixed at creation.
 * @function Chain:set_param
 * @tparam string name
 * @param value a number, a curve table, or `{x, y, z}`
 * @param[opt] particle an index (1 .. #chain) or a joint name: only that particle
 * @raise "unknown parameter 'x'"; "'damping' must be a number (got string)", "'gravity' must be a
 * table of 3 numbers (got number)", "element 2 of 'gravity' is not finite"; for a curve: "'damping'
 * is an empty table", "'damping' has 9 values, more than the chain's depths", "'damping' has 4
 * values: give 1, 2 (start, end) or 6 (one per depth)", "a curve sets every particle: give no
 * particle"; "'rate' is not per particle" when a particle is given; for a bad particle ("particle
 * must be a number (got table)", "particle 2.5 is not an integer", "particle 9 is out of range (1
 * .. 8)"; for a name "a points chain has no joint names", "unknown joint 'x'", "joint 'x' is not in
 * the chain"); "'damping' is not finite", "'damping' 2 is out of range (0 .. 1)", "'max_steps' 2.5
 * is not an integer", "'end_length' is fixed when the chain is created"
 */
static int l_set_param(lua_State *L) {
    static const int args[] = {2, 4, 3}; /* the parameter, the particle, the value */
    sn_chain *c = check_chain(L, 1);
    int p = check_param(L, 2), i = -1;
    double v[3];
    sn_error err;
    if (p == SN_CHAIN_PARAM_GRAVITY || p == SN_CHAIN_PARAM_FORCE) {
        read_vec3(L, 3, 3, sn_chain_param_name(p), v);
    } else if (lua_istable(L, 3) && p < SN_CHAIN_PER_PARTICLE) {
        int n = sn_chain_count(c) + 2;
        double *vals = (double *)sn_lua_scratch(L, 1, (size_t)n * sizeof(double));
        sn_chain_curve cv;
        if (!lua_isnoneornil(L, 4)) return sn_lua_argerror(L, 4, "a curve sets every particle: give no particle");
        cv.values = vals;
        cv.count = read_curve(L, 3, 3, sn_chain_param_name(p), vals, n);
        if (sn_chain_set_curve(c, p, &cv, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
        return 0;
    } else {
        v[0] = read_number(L, 3, 3, sn_chain_param_name(p));
    }
    if (!lua_isnoneornil(L, 4)) {
        if (p >= SN_CHAIN_PER_PARTICLE)
            return sn_lua_argerror(L, 4, lua_pushfstring(L, "'%s' is not per particle", sn_chain_param_name(p)));
        i = check_particle(L, c, 4);
    }
    if (sn_chain_set_param(c, p, i, v, &err) != SN_OK) return sn_lua_raise_args(L, &err, args);
    return 0;
}

/***
 * The value of a parameter: a number, or x, y, z for `gravity` and `force`; per-particle
 * parameters of particle `i` (default 1). Units as for `set_param`.
 * @function Chain:get_param
 * @tparam string name
 * @param[opt] particle an index (1 .. #chain) or a joint name
 * @return the value, or x, y, z
 * @raise "unknown parameter 'x'"; for a bad particle ("particle must be a number (got table)",
 * "particle 2.5 is not an integer", "particle 9 is out of range (1 .. 8)"; for a name "a points
 * chain has no joint names", "unknown joint 'x'", "joint 'x' is not in the chain")
 */
static int l_get_param(lua_State *L) {
    sn_chain *c = check_chain(L, 1);
    int p = check_param(L, 2), i = lua_isnoneornil(L, 3) ? 0 : check_particle(L, c, 3), k;
    double v[3];
    (void)sn_chain_get_param(c, p, i, v, NULL);
    for (k = 0; k < sn_chain_param_arity(p); k++) lua_pushnumber(L, v[k]);
    return sn_chain_param_arity(p);
}

/* ---- colliders ---------------------------------------------------------------------------- */

static const char *const shapes[] = {"sphere", "capsule", "plane", NULL};
static const char *const collider_fields[] = {"shape", "center", "radius", "a", "b", "radius_b", "point",
                                              "normal", "inside", NULL};

/* optional vector field `key` of the table at `t` into v (kept when absent); 1 if present */
static int opt_vec3_field(lua_State *L, int t, const char *key, int arg, sn_vec3 *v) {
    double d[3];
    lua_getfield(L, t, key);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return 0;
    }
    read_vec3(L, -1, arg, key, d);
    lua_pop(L, 1);
    v->x = d[0];
    v->y = d[1];
    v->z = d[2];
    return 1;
}

static int opt_number_field(lua_State *L, int t, const char *key, int arg, double *v) {
    lua_getfield(L, t, key);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return 0;
    }
    *v = read_number(L, -1, arg, key);
    lua_pop(L, 1);
    return 1;
}

/* Reads a collider table at `t` over `def` (which holds the defaults, or the current collider).
   `fresh`: a new collider, whose shape and geometry are required. */
static void read_collider(lua_State *L, int t, int arg, int fresh, sn_collider_def *def) {
    int i, has_r;
    t = sn_lua_absindex(L, t);
    sn_lua_checkfields(L, t, arg, "the collider", collider_fields);
    lua_getfield(L, t, "shape");
    i = sn_lua_tooption(L, -1, arg, "", "collider shape", shapes, fresh ? -1 : (int)def->shape);
    if (!fresh && i != (int)def->shape)
        sn_lua_argerror(L, arg, lua_pushfstring(L, "collider is a %s, not a %s", shapes[def->shape], shapes[i]));
    def->shape = (sn_collider_shape)i;
    lua_pop(L, 1);
    lua_getfield(L, t, "inside");
    if (!lua_isnil(L, -1)) def->inside = lua_toboolean(L, -1);
    lua_pop(L, 1);
    switch (def->shape) {
    case SN_COLLIDER_SPHERE:
        if (!opt_vec3_field(L, t, "center", arg, &def->a) && fresh) sn_lua_argerror(L, arg, "sphere needs 'center'");
        if (!opt_number_field(L, t, "radius", arg, &def->radius) && fresh) sn_lua_argerror(L, arg, "sphere needs 'radius'");
        break;
    case SN_COLLIDER_CAPSULE:
        if (!(opt_vec3_field(L, t, "a", arg, &def->a) & opt_vec3_field(L, t, "b", arg, &def->b)) && fresh)
            sn_lua_argerror(L, arg, "capsule needs 'a' and 'b'");
        has_r = opt_number_field(L, t, "radius", arg, &def->radius);
        if (!has_r && fresh) sn_lua_argerror(L, arg, "capsule needs 'radius'");
        if (!opt_number_field(L, t, "radius_b", arg, &def->radius_b) && fresh) def->radius_b = def->radius;
        break;
    default:
        if (!(opt_vec3_field(L, t, "point", arg, &def->a) & opt_vec3_field(L, t, "normal", arg, &def->b)) && fresh)
            sn_lua_argerror(L, arg, "plane needs 'point' and 'normal'");
        break;
    }
}

/***
 * Adds a collider and returns its index. Shapes: `{shape = "sphere", center = {x,y,z}, radius =
 * r}`, `{shape = "capsule", a = {...}, b = {...}, radius = r [, radius_b = r2]}` (tapered when
 * the radii differ), `{shape = "plane", point = {...}, normal = {...}}` (the solid is behind the
 * normal, which need not be unit). `inside = true` keeps the particles inside instead of outside.
 * World units, coordinates and radii at most 1e9 in magnitude. The room was reserved at creation
 * (`max_colliders`).
 * @function Chain:add_collider
 * @tparam table def
 * @treturn int k the collider (from 1)
 * @raise when `def` is not a table; "unknown field 'x' in the collider"; "'collider shape' must be
 * a string ('sphere', 'capsule' or 'plane') (got nil)", "unknown collider shape 'x' (...)"; "sphere
 * needs 'center'", "sphere needs 'radius'", "capsule needs 'a' and 'b'", "capsule needs 'radius'",
 * "plane needs 'point' and 'normal'"; "'center' must be a table of 3 numbers (got number)",
 * "element 2 of 'center' is not finite", "'radius' must be a number (got string)"; "sphere 'center'
 * x 2e+09 is out of range (-1e+09 .. 1e+09)", "sphere 'radius' -1 is out of range (0 .. 1e+09)",
 * "capsule ends 'a' and 'b' coincide", "capsule radii 1 and 5 differ by its length 2 or more (one
 * end contains the other)", "plane 'normal' is zero"; "no room for another collider
 * ('max_colliders' is 16)"
 */
static int l_add_collider(lua_State *L) {
    sn_chain *c = check_chain(L, 1);
    sn_collider_def def;
    sn_error err;
    int k;
    memset(&def, 0, sizeof def);
    sn_lua_checktype(L, 2, LUA_TTABLE);
    read_collider(L, 2, 2, 1, &def);
    if (sn_chain_add_collider(c, &def, &k, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    lua_pushinteger(L, k + 1);
    return 1;
}

/***
 * Moves collider `k`, every frame if need be, without garbage: either a table with the fields to
 * change (as `add_collider`, the shape kept), or numbers by shape, in world units: sphere `cx, cy,
 * cz [, radius]`; capsule `ax, ay, az, bx, by, bz [, radius [, radius_b]]`; plane `px, py, pz [,
 * nx, ny, nz]`.
 * @function Chain:move_collider
 * @tparam int k the collider (1 .. chain:colliders())
 * @param ... a table, or the numbers above
 * @raise "the chain has no collider"; "collider 3 is out of range (1 .. 2)" (or not an integer);
 * for a number that is not finite; "collider is a sphere, not a plane" for a table naming another
 * shape; and the faults of `add_collider` for the new values
 */
static int l_move_collider(lua_State *L) {
    sn_chain *c = check_chain(L, 1);
    sn_collider_def def;
    sn_error err;
    int k;
    if (sn_chain_collider_count(c) == 0) return sn_lua_argerror(L, 2, "the chain has no collider");
    k = sn_lua_toindex(L, 2, 1, sn_chain_collider_count(c), 2, "collider") - 1;
    (void)sn_chain_get_collider(c, k, &def, NULL);
    if (lua_istable(L, 3)) {
        read_collider(L, 3, 3, 0, &def);
    } else {
        def.a.x = sn_lua_checkfinite(L, 3);
        def.a.y = sn_lua_checkfinite(L, 4);
        def.a.z = sn_lua_checkfinite(L, 5);
        if (def.shape == SN_COLLIDER_SPHERE) {
            def.radius = sn_lua_optfinite(L, 6, def.radius);
        } else if (def.shape == SN_COLLIDER_CAPSULE) {
            def.b.x = sn_lua_checkfinite(L, 6);
            def.b.y = sn_lua_checkfinite(L, 7);
            def.b.z = sn_lua_checkfinite(L, 8);
            def.radius = sn_lua_optfinite(L, 9, def.radius);
            def.radius_b = sn_lua_optfinite(L, 10, def.radius_b);
        } else if (!lua_isnoneornil(L, 6)) {
            def.b.x = sn_lua_checkfinite(L, 6);
            def.b.y = sn_lua_checkfinite(L, 7);
            def.b.z = sn_lua_checkfinite(L, 8);
        }
    }
    if (sn_chain_move_collider(c, k, &def, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/* ---- queries ------------------------------------------------------------------------------ */

/***
 * The skeleton joint of particle `i` (its index), or nil for a virtual tip or a points chain.
 * @function Chain:joint
 * @param i particle: an index (1 .. #chain) or a joint name
 * @treturn ?int the joint (1 .. #skeleton), or nil
 * @raise for a bad particle ("particle must be a number (got table)", "particle 2.5 is not an
 * integer", "particle 9 is out of range (1 .. 8)"; for a name "a points chain has no joint names",
 * "unknown joint 'x'", "joint 'x' is not in the chain")
 */
static int l_joint(lua_State *L) {
    sn_chain *c = check_chain(L, 1);
    int j = sn_chain_joint(c, check_particle(L, c, 2));
    if (j < 0) lua_pushnil(L);
    else lua_pushinteger(L, j + 1);
    return 1;
}

/***
 * The rest length of the longest root-to-leaf path (virtual tips included).
 * @function Chain:length
 * @treturn number world units
 * @raise never
 */
static int l_length(lua_State *L) {
    lua_pushnumber(L, sn_chain_length(check_chain(L, 1)));
    return 1;
}

/***
 * The number of colliders.
 * @function Chain:colliders
 * @treturn int
 * @raise never
 */
static int l_colliders(lua_State *L) {
    lua_pushinteger(L, sn_chain_collider_count(check_chain(L, 1)));
    return 1;
}

/***
 * The skeleton of a skeleton chain, or nil.
 * @function Chain:skeleton
 * @treturn ?Skeleton the skeleton
 * @raise never
 */
static int l_skeleton_of(lua_State *L) {
    check_chain(L, 1);
    sn_lua_pushskeleton(L, 1);
    return 1;
}

static int l_len(lua_State *L) {
    lua_pushinteger(L, sn_chain_count(check_chain(L, 1)));
    return 1;
}

static int l_tostring(lua_State *L) {
    sn_chain *c = check_chain(L, 1);
    lua_pushfstring(L, "%s (%s, %d particles, %d colliders): %p", SN_CHAIN_MT,
                    sn_chain_has_skeleton(c) ? "skeleton" : "points", sn_chain_count(c), sn_chain_collider_count(c),
                    (void *)c);
    return 1;
}

void sn_open_chain(lua_State *L, int module) {
    static const luaL_Reg methods[] = {
        {"step", l_step}, {"update", l_update}, {"position", l_position}, {"move_root", l_move_root},
        {"reset", l_reset}, {"teleport", l_teleport}, {"get_param", l_get_param},
        {"add_collider", l_add_collider}, {"move_collider", l_move_collider}, {"joint", l_joint},
        {"length", l_length}, {"colliders", l_colliders}, {"skeleton", l_skeleton_of}, {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__len", l_len}, {"__tostring", l_tostring}, {NULL, NULL}};
    sn_lua_newclass(L, SN_CHAIN_MT, methods, meta);
    /* set_param keeps a scratch block (curves) in its upvalue */
    luaL_getmetatable(L, SN_CHAIN_MT);
    lua_getfield(L, -1, "__index");
    lua_pushboolean(L, 0);
    lua_pushcclosure(L, l_set_param, 1);
    lua_setfield(L, -2, "set_param");
    lua_pop(L, 2);
    lua_pushcfunction(L, l_chain);
    lua_setfield(L, module, "chain");
}
