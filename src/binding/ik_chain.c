/***
 * The chain solver of `sinew.ik` (FABRIK or CCD with joint limits: an arm, a tail, a spine), in
 * 3-D: its constructor and the methods of `IKChain`. The module's other solvers are in ik.c.
 * @module sinew.ik
 */
#include "../core/ik.h"

#include <string.h>

#include "binding.h"


static sn_lua_ik *check_chain(lua_State *L) { return (sn_lua_ik *)sn_lua_checkobject(L, 1, SN_IK_CHAIN_MT); }

static const char *const chain_fields[] = {"skeleton", "joints", "method", "iterations", "tolerance", "limits", NULL};
static const char *const limit_fields[] = {"hinge", "min", "max", "cone", "twist", NULL};
static const char *const methods[] = {"fabrik", "ccd", NULL};

/* The limit at -1 (a table) of the joint `joint` into *l; `path` names it ("limits.forearm"). */
static void read_limit(lua_State *L, int joint, const char *path, sn_ik_limit *l) {
    const int t = lua_gettop(L);
    int hinge, cone, twist, range;
    sn_ik_limit_init(l, joint);
    if (!lua_istable(L, t)) sn_lua_argerror(L, 1, lua_pushfstring(L, "%s must be a table (got %s)", path, luaL_typename(L, t)));
    sn_lua_checkfields(L, t, 1, lua_pushfstring(L, "%s", path), limit_fields);
    lua_pop(L, 1);
    hinge = sn_lua_field(L, t, "hinge") != LUA_TNIL;
    if (hinge) {
        const char *what = lua_pushfstring(L, "%s.hinge", path);
        sn_lua_ik_vec3(L, -2, what, &l->axis);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    range = sn_lua_field(L, t, "min") != LUA_TNIL;
    if (range) l->min = sn_lua_tonumber(L, -1, 1, "min");
    lua_pop(L, 1);
    if (sn_lua_field(L, t, "max") != LUA_TNIL) l->max = sn_lua_tonumber(L, -1, 1, "max"), range = 1;
    lua_pop(L, 1);
    cone = sn_lua_field(L, t, "cone") != LUA_TNIL;
    if (cone) l->cone = sn_lua_tonumber(L, -1, 1, "cone");
    lua_pop(L, 1);
    twist = sn_lua_field(L, t, "twist") != LUA_TNIL;
    if (twist) {
        if (!lua_istable(L, -1) || sn_lua_rawlen(L, -1) != 2)
            sn_lua_argerror(L, 1, lua_pushfstring(L, "%s.twist must be a table of 2 numbers, min and max (got %s)", path,
                                                  lua_istable(L, -1) ? "a table of another length" : luaL_typename(L, -1)));
        l->twist_min = sn_lua_finite_at(L, -1, 1, 1, "twist");
        l->twist_max = sn_lua_finite_at(L, -1, 2, 1, "twist");
    }
    lua_pop(L, 1);
    if (!hinge && !cone && !twist) sn_lua_argerror(L, 1, lua_pushfstring(L, "%s: needs 'hinge', 'cone' or 'twist'", path));
    if (hinge && (cone || twist)) sn_lua_argerror(L, 1, lua_pushfstring(L, "%s: a hinge takes no 'cone' or 'twist'", path));
    if (range && !hinge) sn_lua_argerror(L, 1, lua_pushfstring(L, "%s: 'min' and 'max' belong to a hinge", path));
    l->kind = hinge ? (unsigned)SN_IK_HINGE : (cone ? (unsigned)SN_IK_CONE : 0u) | (twist ? (unsigned)SN_IK_TWIST : 0u);
    lua_settop(L, t);
}

/* The limits table at -1 (joint name or index -> limit) into `out` (room for SN_IK_CHAIN_MAX);
   returns how many there are (the core refuses more than the chain takes). */
static int read_limits(lua_State *L, const sn_skeleton *s, sn_ik_limit *out) {
    const int t = lua_gettop(L);
    int n = 0;
    if (!lua_istable(L, t))
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'limits' must be a table of limits by joint (got %s)", luaL_typename(L, t)));
    lua_pushnil(L);
    while (lua_next(L, t) != 0) {
        const char *path;
        int joint;
        if (lua_type(L, -2) == LUA_TSTRING) {
            path = lua_pushfstring(L, "limits.%s", lua_tostring(L, -2));
        } else if (lua_type(L, -2) == LUA_TNUMBER) {
            path = lua_pushfstring(L, "limits[%s]", sn_lua_numstr(L, lua_tonumber(L, -2)));
            lua_remove(L, -2);
        } else {
            return sn_lua_argerror(L, 1, lua_pushfstring(L, "'limits' keys must be joint names or indices (got %s)",
                                                         luaL_typename(L, -2)));
        }
        lua_pushvalue(L, -3); /* the key, then the value, above the path */
        joint = sn_lua_ik_joint(L, -1, s, path);
        lua_pop(L, 1);
        lua_pushvalue(L, -2);
        if (n < SN_IK_CHAIN_MAX) read_limit(L, joint, path, &out[n]);
        n++;
        lua_settop(L, t + 1); /* the key, for lua_next */
    }
    return n;
}

/***
 * Builds a chain solver, FABRIK or CCD with joint limits. Its definition: `skeleton` (a Skeleton),
 * `joints` (the chain's joints, root first, each the parent of the next: names or 1-based indices;
 * 2 .. 32 of them), `method` ["fabrik"] ("fabrik" or "ccd"), `iterations` [16] (1 .. 1000),
 * `tolerance` [1e-4] (model units: a tip this near the target stops the iterations) and `limits`
 * [none] (by joint name or index, any joint of the chain but the tip: `{ hinge = { x, y, z }, min = a, max = b }`, a turn about the axis (in the joint's
 * frame) by an angle from the joint's rest rotation in [min, max] (radians, default -pi .. pi);
 * or `{ cone = a, twist = { min, max } }` (either or both): the bone (the next joint's rest
 * translation) stays within `cone` radians of its rest direction, and the turn about it from rest
 * within the twist range). The solver keeps its skeleton alive. See manual/ik.md.
 * @function chain
 * @tparam table def
 * @treturn IKChain
 * @raise when `def` is not a table; "unknown field 'x' in the chain definition"; "'skeleton' must
 * be a sinew.Skeleton (got nil)"; "'joints' must be a table of joints (got string)", "joints[2]:
 * unknown joint 'x'", "a chain of 1 joints is out of range (2 .. 32)", "joints do not form a chain:
 * 'b' (2) is not a child of 'a' (1)", "joints 1 and 3 of the chain are the same joint 'a'";
 * "unknown method 'x' ('fabrik' or 'ccd')"; "'iterations' 0 is out of range (1 .. 1000)";
 * "'tolerance' -1 is out of range ..."; "'limits' must be a table of limits by joint (got
 * number)", "limits.x: unknown joint 'x'", "limits.hand must be a table (got number)", "unknown
 * field 'y' in limits.hand", "limits.hand: needs 'hinge', 'cone' or 'twist'", "limits.hand: a hinge
 * takes no 'cone' or 'twist'", "limits.hand: 'min' and 'max' belong to a hinge", "limits.hand.twist
 * must be a table of 2 numbers, min and max (got number)", "limit of 'hand': the joint is the
 * chain's tip, which the solve does not turn", "limit of 'a': hinge angles 1 .. 0 is empty (min >
 * max)", "limit of 'a': cone 4 is out of range (0 .. 3.14159)", "limit of 'a': a cone or twist
 * needs a bone, and 'b' rests on the joint"
 */
static int l_chain(lua_State *L) {
    sn_ik_chain_def def;
    sn_ik_limit limits[SN_IK_CHAIN_MAX];
    int joints[SN_IK_CHAIN_MAX], i, n;
    sn_error err;
    sn_lua_ik *h;
    size_t size;
    lua_settop(L, 1);
    sn_ik_chain_def_init(&def);
    sn_lua_checktype(L, 1, LUA_TTABLE);
    sn_lua_checkfields(L, 1, 1, "the chain definition", chain_fields);
    def.skeleton = sn_lua_ik_skeleton(L); /* 2 */
    if (sn_lua_field(L, 1, "joints") != LUA_TTABLE)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'joints' must be a table of joints (got %s)", luaL_typename(L, -1)));
    n = (int)(sn_lua_rawlen(L, -1) < (size_t)INT_MAX ? sn_lua_rawlen(L, -1) : (size_t)INT_MAX);
    for (i = 0; i < n && i < SN_IK_CHAIN_MAX; i++) {
        const char *what = lua_pushfstring(L, "joints[%d]", i + 1);
        lua_rawgeti(L, -2, i + 1);
        joints[i] = sn_lua_ik_joint(L, -1, def.skeleton, what);
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    def.count = n;
    def.joints = joints;
    sn_lua_field(L, 1, "method");
    def.method = sn_lua_tooption(L, -1, 1, "", "method", methods, 0) == 1 ? SN_IK_CCD : SN_IK_FABRIK;
    lua_pop(L, 1);
    if (sn_lua_field(L, 1, "iterations") != LUA_TNIL) def.iterations = sn_lua_toint(L, -1, 1, "iterations");
    lua_pop(L, 1);
    sn_lua_ik_opt_number(L, "tolerance", &def.tolerance);
    if (sn_lua_field(L, 1, "limits") != LUA_TNIL) {
        def.limit_count = read_limits(L, def.skeleton, limits);
        def.limits = limits;
    }
    lua_pop(L, 1);
    size = sn_ik_chain_size(&def, &err);
    if (size == 0) return sn_lua_raise(L, &err, 0);
    h = sn_lua_ik_new(L, size, SN_IK_CHAIN_MT);
    if (sn_ik_chain_init(h->solver, size, &def, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    sn_lua_keepskeleton(L, -1, 2);
    return 1;
}

/***
 * Turns the chain's joints of `pose` (all but the tip) so that the tip reaches the target (a
 * model-space point), by FABRIK or CCD within the joints' limits, then writes them with `weight`. Bone lengths do not change; the solve never ends farther from the target than the
 * input (brought within its limits). A refused call writes nothing; weight 0 writes nothing.
 * @function IKChain:solve
 * @tparam Pose pose a pose of the solver's skeleton
 * @tparam number tx the target, model units
 * @tparam number ty
 * @tparam number tz
 * @tparam[opt=1] number weight in [0, 1]
 * @treturn number the distance left from the tip (of the pose as written) to the target
 * @treturn int flags: a sum of the `sinew.ik` flags (REACHED: within the tolerance at weight 1;
 * DEGENERATE: every bone zero-length, nothing written; TARGET_AT_ROOT; UNREACHABLE: beyond the
 * reach; LIMITED: a limit held a joint)
 * @raise "sinew.Pose expected, got nil" for `pose`, "number expected, got nil" for a coordinate or
 * the weight; "pose of another skeleton", "joint 'a' of the pose is not finite", "joint 'a' of the
 * pose has a zero rotation", "joint 'a' of the pose is placed out of range (-1e+12 .. 1e+12)";
 * "target x is not finite", "target y 1e+13 is out of range (-1e+12 .. 1e+12)"; "weight is not
 * finite", "weight 2 is out of range (0 .. 1)"
 */
static int l_chain_solve(lua_State *L) {
    static const int args[] = {2, 3, 3, 6}; /* pose, target, (none), weight */
    sn_lua_ik *h = check_chain(L);
    sn_pose *pose = sn_lua_checkpose(L, 2);
    sn_vec3 target;
    sn_error err;
    unsigned flags = 0;
    double weight, left = 0.0;
    target.x = sn_lua_checknumber(L, 3);
    target.y = sn_lua_checknumber(L, 4);
    target.z = sn_lua_checknumber(L, 5);
    weight = sn_lua_ik_weight(L, 6);
    if (sn_ik_chain_solve((sn_ik_chain *)h->solver, pose, &target, weight, &left, &flags, &err) != SN_OK)
        return sn_lua_raise_args(L, &err, args);
    lua_pushnumber(L, left);
    lua_pushinteger(L, (lua_Integer)flags);
    return 2;
}

/***
 * The iterations of a solve (at most).
 * @function IKChain:iterations
 * @treturn int
 * @raise never
 */
static int l_chain_iterations(lua_State *L) {
    lua_pushinteger(L, sn_ik_chain_iterations((const sn_ik_chain *)check_chain(L)->solver));
    return 1;
}

/***
 * Sets the iterations of a solve.
 * @function IKChain:set_iterations
 * @tparam int iterations 1 .. 1000
 * @raise "'iterations' must be a number (got nil)", "'iterations' must be an integer (got 1.5)",
 * "'iterations' 0 is out of range (1 .. 1000)"
 */
static int l_chain_set_iterations(lua_State *L) {
    sn_lua_ik *h = check_chain(L);
    int v = sn_lua_toint(L, 2, 2, "iterations");
    sn_error err;
    if (sn_ik_chain_set_iterations((sn_ik_chain *)h->solver, v, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/***
 * The tolerance, model units.
 * @function IKChain:tolerance
 * @treturn number
 * @raise never
 */
static int l_chain_tolerance(lua_State *L) {
    lua_pushnumber(L, sn_ik_chain_tolerance((const sn_ik_chain *)check_chain(L)->solver));
    return 1;
}

/***
 * Sets the tolerance: a tip this near the target stops the iterations.
 * @function IKChain:set_tolerance
 * @tparam number tolerance model units, finite, >= 0
 * @raise "number expected, got nil"; "'tolerance' is not finite", "'tolerance' -1 is out of range
 * ..."
 */
static int l_chain_set_tolerance(lua_State *L) {
    sn_lua_ik *h = check_chain(L);
    double v = sn_lua_checknumber(L, 2);
    sn_error err;
    if (sn_ik_chain_set_tolerance((sn_ik_chain *)h->solver, v, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/***
 * The method: "fabrik" or "ccd".
 * @function IKChain:method
 * @treturn string
 * @raise never
 */
static int l_chain_method(lua_State *L) {
    lua_pushstring(L, methods[sn_ik_chain_method((const sn_ik_chain *)check_chain(L)->solver) == SN_IK_CCD ? 1 : 0]);
    return 1;
}

/***
 * The chain's joints, root first.
 * @function IKChain:joints
 * @treturn int... (1 .. #skeleton each)
 * @raise never
 */
static int l_chain_joints(lua_State *L) {
    const sn_ik_chain *ik = (const sn_ik_chain *)check_chain(L)->solver;
    int i, n = sn_ik_chain_count(ik);
    luaL_checkstack(L, n, "too many joints");
    for (i = 0; i < n; i++) lua_pushinteger(L, sn_ik_chain_joint(ik, i) + 1);
    return n;
}

/***
 * The solver's skeleton.
 * @function IKChain:skeleton
 * @treturn Skeleton
 * @raise never
 */
static int l_chain_skeleton(lua_State *L) {
    check_chain(L);
    sn_lua_pushskeleton(L, 1);
    return 1;
}

static int l_chain_len(lua_State *L) {
    lua_pushinteger(L, sn_ik_chain_count((const sn_ik_chain *)check_chain(L)->solver));
    return 1;
}

static int l_chain_tostring(lua_State *L) {
    sn_lua_ik *h = check_chain(L);
    const sn_ik_chain *ik = (const sn_ik_chain *)h->solver;
    const sn_skeleton *s = sn_ik_chain_skeleton(ik);
    lua_pushfstring(L, "%s (%s, '%s' .. '%s', %d joints): %p", SN_IK_CHAIN_MT, methods[sn_ik_chain_method(ik) == SN_IK_CCD],
                    sn_skeleton_name(s, sn_ik_chain_joint(ik, 0)),
                    sn_skeleton_name(s, sn_ik_chain_joint(ik, sn_ik_chain_count(ik) - 1)), sn_ik_chain_count(ik), (void *)h);
    return 1;
}

/* Adds the chain class and `chain` to the `sinew.ik` table at `ik` (called by sn_open_ik). */
void sn_open_ik_chain(lua_State *L, int ik) {
    static const luaL_Reg chain_methods[] = {
        {"solve", l_chain_solve}, {"iterations", l_chain_iterations}, {"set_iterations", l_chain_set_iterations},
        {"tolerance", l_chain_tolerance}, {"set_tolerance", l_chain_set_tolerance}, {"method", l_chain_method},
        {"joints", l_chain_joints}, {"skeleton", l_chain_skeleton}, {NULL, NULL}};
    static const luaL_Reg chain_meta[] = {{"__tostring", l_chain_tostring}, {"__len", l_chain_len}, {NULL, NULL}};
    ik = sn_lua_absindex(L, ik);
    sn_lua_newclass(L, SN_IK_CHAIN_MT, chain_methods, chain_meta);
    lua_pushcfunction(L, l_chain);
    lua_setfield(L, ik, "chain");
}
