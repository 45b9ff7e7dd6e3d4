/***
 * Foot placement: `sinew.ik.feet`, the solver that stands a character's feet on uneven ground
 * (slopes, steps), for two legs or four (the Fox) or up to 8.
 *
 * `feet:solve(pose, dt, weight)` reads each foot's model-space position from the pose, asks the
 * definition's `ground(x, y, z)` callback for the ground's height and normal there (model space),
 * then moves each foot along `up` so that its distance from the ground, along the ground's
 * normal, is its height above the flat floor in the input pose (a stance foot stands on the
 * ground, a swing foot keeps its clearance), drops the pelvis (its translation, the only one
 * written) by the most any foot moved down, solves each leg as a two-bone chain (the knee kept on
 * its side) and turns each foot toward the ground's normal (within `normal_limit`). The pelvis
 * drop and the normals are smoothed over time (critically damped springs of time `smoothing`,
 * exact for any `dt`), so the solver holds state: one solver per character. See manual/ik.md.
 *
 * A method raises "sinew.IKFeet expected, got <type>" when its `self` is something else.
 * @module sinew.ik
 */
#include "../core/ik.h"

#include <string.h>

#include "binding.h"

/* The userdata: the header sn_lua_feet (binding.h: the solver, the re-entry guard both paths
   share), then the core object at SOLVER_OFFSET. The uservalue is a table { skeleton, ground }. */
typedef sn_lua_feet feet_header;

#define SOLVER_OFFSET SN_ALIGN16(sizeof(feet_header))

static feet_header *check_feet(lua_State *L) { return (feet_header *)sn_lua_checkobject(L, 1, SN_IK_FEET_MT); }
static sn_ik_feet *feet_of(lua_State *L) { return (sn_ik_feet *)check_feet(L)->solver; }

/* ---- the definition ---------------------------------------------------------------------------- */

static const char *const feet_fields[] = {"skeleton", "pelvis", "up", "legs", "ground", "max_drop", "normal_limit",
                                          "smoothing", NULL};

/***
 * Builds a foot-placement solver. Its definition: `skeleton` (a Skeleton), `pelvis` (the joint
 * translated, a name or 1-based index: an ancestor of every leg), `up` [{0, 1, 0}] (model space),
 * `legs` (1 to 8 legs, each a table of three joints, thigh, shin and foot, each the parent of the
 * next, with an optional field `mid_axis`: the knee's hinge in the shin's frame; by default the
 * rest pose's), `ground` (a function(x, y, z) returning the ground's height along `up` at that
 * model-space point, and optionally its normal nx, ny, nz: called once per leg per solve, it
 * should make no garbage), `max_drop` [math.huge] (model units: the most the pelvis drops),
 * `normal_limit` [pi/4] (radians, from 0 to 1.39626: the most a foot turns toward the ground's
 * normal) and `smoothing` [0.1] (seconds: the time of the pelvis's and the normals' springs; 0
 * follows at once). The solver keeps its skeleton and its callback alive.
 * @function feet
 * @tparam table def
 * @treturn IKFeet
 * @raise when `def` is not a table; "unknown field 'x' in the foot-placement definition";
 * "'skeleton' must be a sinew.Skeleton (got nil)"; "'pelvis' is needed", "pelvis: unknown joint
 * 'x'"; "'legs' must be a table of 1 to 8 legs (got nil)", "legs[2] must be a table of 3 joints
 * (got string)", "legs[2][1]: unknown joint 'x'", "legs[1]: joints do not form a chain: mid 'b'
 * is not a child of root 'a'", "legs[1]: root 'a' is not below the pelvis 'p'", "legs[1] and
 * legs[2] share the joint 'a'"; "'ground' must be a function (got nil)"; "'up' is a zero
 * vector"; "'max_drop' -1 is out of range (0 .. inf)", "'normal_limit' 2 is out of range (0 ..
 * 1.39626)", "'smoothing' is not finite"
 */
static int l_feet(lua_State *L) {
    sn_ik_feet_def def;
    sn_error err;
    feet_header *h;
    size_t size;
    int legs = 0, l, i;
    lua_settop(L, 1);
    sn_ik_feet_def_init(&def);
    sn_lua_checktype(L, 1, LUA_TTABLE);
    sn_lua_checkfields(L, 1, 1, "the foot-placement definition", feet_fields);
    sn_lua_field(L, 1, "skeleton"); /* 2 */
    def.skeleton = (sn_skeleton *)sn_lua_testobject(L, 2, SN_SKELETON_MT);
    if (def.skeleton == NULL)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'skeleton' must be a %s (got %s)", SN_SKELETON_MT,
                                              sn_lua_typename_of(L, 2)));
    if (sn_lua_field(L, 1, "ground") != LUA_TFUNCTION) /* 3 */
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'ground' must be a function (got %s)", luaL_typename(L, 3)));
    if (sn_lua_field(L, 1, "pelvis") == LUA_TNIL) sn_lua_argerror(L, 1, "'pelvis' is needed"); /* 4 */
    def.pelvis = sn_lua_ik_joint(L, 4, def.skeleton, "pelvis");
    if (sn_lua_field(L, 1, "up") != LUA_TNIL) sn_lua_ik_vec3(L, 5, "up", &def.up); /* 5 */
    if (sn_lua_field(L, 1, "legs") != LUA_TTABLE || (legs = (int)sn_lua_rawlen(L, 6)) < 1 || legs > SN_IK_FEET_MAX) /* 6 */
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'legs' must be a table of 1 to %d legs (got %s)", SN_IK_FEET_MAX,
                                              lua_istable(L, 6) ? "a table of another length" : luaL_typename(L, 6)));
    def.count = legs;
    for (l = 0; l < legs; l++) {
        char what[32];
        lua_rawgeti(L, 6, l + 1);
        if (!lua_istable(L, -1) || sn_lua_rawlen(L, -1) != 3)
            sn_lua_argerror(L, 1, lua_pushfstring(L, "legs[%d] must be a table of 3 joints (got %s)", l + 1,
                                                  lua_istable(L, -1) ? "a table of another length" : luaL_typename(L, -1)));
        for (i = 0; i < 3; i++) {
            lua_rawgeti(L, -1, i + 1);
            snprintf(what, sizeof what, "legs[%d][%d]", l + 1, i + 1);
            def.legs[l][i] = sn_lua_ik_joint(L, -1, def.skeleton, what);
            lua_pop(L, 1);
        }
        lua_pushliteral(L, "mid_axis");
        lua_rawget(L, -2);
        if (!lua_isnil(L, -1)) {
            snprintf(what, sizeof what, "legs[%d].mid_axis", l + 1);
            sn_lua_ik_vec3(L, -1, what, &def.mid_axis[l]);
            if (def.mid_axis[l].x == 0.0 && def.mid_axis[l].y == 0.0 && def.mid_axis[l].z == 0.0)
                sn_lua_argerror(L, 1, lua_pushfstring(L, "'%s' is a zero vector", what));
        }
        lua_pop(L, 1); /* the leg table stays anchored */
    }
    if (sn_lua_field(L, 1, "max_drop") != LUA_TNIL) def.max_drop = sn_lua_tonumber(L, -1, 1, "max_drop");
    if (sn_lua_field(L, 1, "normal_limit") != LUA_TNIL) def.normal_limit = sn_lua_tonumber(L, -1, 1, "normal_limit");
    if (sn_lua_field(L, 1, "smoothing") != LUA_TNIL) def.smoothing = sn_lua_tonumber(L, -1, 1, "smoothing");
    size = sn_ik_feet_size(&def, &err);
    if (size == 0) return sn_lua_raise(L, &err, 0);
    h = (feet_header *)sn_lua_newuserdata(L, SOLVER_OFFSET + size);
    memset(h, 0, SOLVER_OFFSET + size);
    h->solver = (char *)h + SOLVER_OFFSET;
    sn_lua_setmetatable(L, SN_IK_FEET_MT);
    if (sn_ik_feet_init(h->solver, size, &def, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    lua_createtable(L, 2, 0); /* the uservalue: { skeleton, ground } */
    lua_pushvalue(L, 2);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, 3);
    lua_rawseti(L, -2, 2);
    sn_lua_setuservalue(L, -2);
    return 1;
}

/***
 * A new solver of the same definition and settings (max_drop, normal_limit, smoothing, the
 * ground callback) with a fresh state, as after `reset`: the feet of one more character (the
 * animator gives each of its animators its own).
 * @function IKFeet:clone
 * @treturn IKFeet
 * @raise "sinew.IKFeet expected, got table" for a wrong `self`
 */
static int l_feet_clone(lua_State *L) {
    const sn_ik_feet *src = feet_of(L);
    size_t size = sn_ik_feet_block_size(src);
    sn_error err;
    feet_header *h;
    lua_settop(L, 1); /* (the stack slots below are numbered from here) */
    h = (feet_header *)sn_lua_newuserdata(L, SOLVER_OFFSET + size); /* 2 */
    memset(h, 0, SOLVER_OFFSET + size);
    h->solver = (char *)h + SOLVER_OFFSET;
    sn_lua_setmetatable(L, SN_IK_FEET_MT);
    if (sn_ik_feet_copy(h->solver, size, src, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    sn_lua_getuservalue(L, 1); /* 3: { skeleton, ground }: the clone gets a table of its own */
    if (!lua_istable(L, 3)) {
        lua_newtable(L);
        lua_replace(L, 3);
    }
    lua_createtable(L, 2, 0);
    lua_rawgeti(L, 3, 1);
    lua_rawseti(L, -2, 1);
    lua_rawgeti(L, 3, 2);
    lua_rawseti(L, -2, 2);
    sn_lua_setuservalue(L, 2);
    lua_settop(L, 2);
    return 1;
}

/* ---- the solve ------------------------------------------------------------------------------------ */

/* the error of the ground callback for leg l: "ground callback for leg 2 <what>" */
static int ground_error(lua_State *L, feet_header *h, int leg, const char *what) {
    h->busy = 0;
    return sn_lua_errorf(L, "ground callback for leg %d %s", leg, what);
}

/* asks the callback at `fn` about leg l (1-based) at p; writes height and normal to g */
static void ask_ground(lua_State *L, feet_header *h, int fn, int leg, const double *p, double *g) {
    int k;
    lua_pushvalue(L, fn);
    lua_pushnumber(L, p[0]);
    lua_pushnumber(L, p[1]);
    lua_pushnumber(L, p[2]);
    if (lua_pcall(L, 3, 4, 0) != 0) {
        const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        h->busy = 0;
        if (msg != NULL) sn_lua_errorf(L, "ground callback for leg %d failed: %s", leg, msg);
        sn_lua_errorf(L, "ground callback for leg %d failed (error object is a %s value)", leg, luaL_typename(L, -1));
    }
    if (lua_type(L, -4) != LUA_TNUMBER)
        ground_error(L, h, leg, lua_pushfstring(L, "returned %s for the height (number expected)", luaL_typename(L, -4)));
    g[0] = lua_tonumber(L, -4);
    if (!(g[0] - g[0] == 0.0)) ground_error(L, h, leg, "returned a height that is not finite");
    if (lua_isnil(L, -3) && lua_isnil(L, -2) && lua_isnil(L, -1)) {
        g[1] = g[2] = g[3] = 0.0; /* up */
    } else {
        for (k = 0; k < 3; k++) {
            if (lua_type(L, -3 + k) != LUA_TNUMBER)
                ground_error(L, h, leg, lua_pushfstring(L, "returned %s for normal %s (number expected)",
                                                        luaL_typename(L, -3 + k), k == 0 ? "x" : k == 1 ? "y" : "z"));
            g[1 + k] = lua_tonumber(L, -3 + k);
            if (!(g[1 + k] - g[1 + k] == 0.0)) ground_error(L, h, leg, "returned a normal that is not finite");
        }
    }
    lua_pop(L, 4);
}

/***
 * Places the feet of `pose` on the ground (see the module's summary): reads the pose, calls the
 * ground callback once per leg (with the foot's model-space position), then writes the pelvis's
 * translation and the legs' rotations. The pelvis drop and the feet's normals follow their
 * targets over `dt` (critically damped; the first solve, and the first after `reset`, starts at
 * the targets). A refused call, or a callback that raises, returns a bad value or yields, writes
 * nothing and leaves the solver's state as it was. Weight 0 writes nothing (the state still
 * advances).
 * @function IKFeet:solve
 * @tparam Pose pose a pose of the solver's skeleton
 * @tparam number dt seconds since the last solve, >= 0
 * @tparam[opt=1] number weight in [0, 1]
 * @treturn boolean placed: every foot reached its place (weight 1)
 * @treturn int flags: `sinew.ik.UNREACHABLE` (a leg fell short), `LIMITED` (max_drop or
 * normal_limit held), `REACHED`
 * @raise "sinew.Pose expected, got nil", "number expected, got nil"; "pose of another skeleton",
 * "joint 'a' of the pose is not finite"; "dt -1 is out of range (0 .. inf)", "weight 2 is out of
 * range (0 .. 1)"; "ground callback for leg 2 failed: ...: boom" (it raised; "... attempt to
 * yield across a C-call boundary" when it yields), "ground callback for leg 1 returned nil for
 * the height (number expected)", "ground callback for leg 1 returned a height that is not
 * finite", "ground callback for leg 1 returned string for normal y (number expected)", "ground
 * height of leg 1 1e+13 is out of range (-1e+12 .. 1e+12)"; "solve called from its own ground
 * callback"
 */
static int l_feet_solve(lua_State *L) {
    static const int args[] = {2, 0, 3, 4}; /* pose, ground (the callback: no argument), dt, weight */
    feet_header *h = check_feet(L);
    sn_ik_feet *ik = (sn_ik_feet *)h->solver;
    sn_pose *pose = sn_lua_checkpose(L, 2);
    double dt = sn_lua_checknumber(L, 3), weight = lua_isnoneornil(L, 4) ? 1.0 : sn_lua_checknumber(L, 4);
    double points[3 * SN_IK_FEET_MAX], ground[4 * SN_IK_FEET_MAX];
    sn_error err;
    unsigned flags = 0;
    int l, n = sn_ik_feet_count(ik), fn;
    if (h->busy) return sn_lua_errorf(L, "solve called from its own ground callback");
    lua_settop(L, 4);
    sn_lua_getuservalue(L, 1); /* 5: { skeleton, ground } */
    lua_rawgeti(L, 5, 2);      /* 6: the callback, anchored for this call */
    fn = 6;
    if (sn_ik_feet_prepare(ik, pose, points, &err) != SN_OK) return sn_lua_raise_args(L, &err, args);
    h->busy = 1;
    for (l = 0; l < n; l++) ask_ground(L, h, fn, l + 1, points + 3 * l, ground + 4 * l);
    h->busy = 0;
    if (sn_ik_feet_solve(ik, pose, ground, dt, weight, &flags, &err) != SN_OK) {
        if (err.arg == 2) return sn_lua_errorf(L, "%s", err.msg);
        return sn_lua_raise_args(L, &err, args);
    }
    lua_pushboolean(L, (flags & SN_IK_REACHED) != 0);
    lua_pushinteger(L, (lua_Integer)flags);
    return 2;
}

/* ---- getters and setters ------------------------------------------------------------------------ */

/***
 * The pelvis, a 1-based joint index.
 * @function IKFeet:pelvis
 * @treturn int
 * @raise never
 */
static int l_feet_pelvis(lua_State *L) {
    lua_pushinteger(L, sn_ik_feet_pelvis(feet_of(L)) + 1);
    return 1;
}

/***
 * The joints of leg `i`: thigh, shin and foot.
 * @function IKFeet:leg
 * @tparam int i the leg (1 .. #feet)
 * @treturn int thigh (1 .. #skeleton)
 * @treturn int shin
 * @treturn int foot
 * @raise "leg 5 is out of range (1 .. 4)"
 */
static int l_feet_leg(lua_State *L) {
    const sn_ik_feet *ik = feet_of(L);
    int i = sn_lua_toindex(L, 2, 1, sn_ik_feet_count(ik), 2, "leg") - 1, k;
    for (k = 0; k < 3; k++) lua_pushinteger(L, sn_ik_feet_joint(ik, i, k) + 1);
    return 3;
}

/***
 * The unit up direction, model space.
 * @function IKFeet:up
 * @treturn number x
 * @treturn number y
 * @treturn number z
 * @raise never
 */
static int l_feet_up(lua_State *L) {
    sn_vec3 u = sn_ik_feet_up(feet_of(L));
    lua_pushnumber(L, u.x);
    lua_pushnumber(L, u.y);
    lua_pushnumber(L, u.z);
    return 3;
}

/***
 * The pelvis's offset along up written by the last solve (model units, <= 0; 0 before any), at
 * weight 1.
 * @function IKFeet:offset
 * @treturn number
 * @raise never
 */
static int l_feet_offset(lua_State *L) {
    lua_pushnumber(L, sn_ik_feet_offset(feet_of(L)));
    return 1;
}

/***
 * Forgets the smoothing state: the next solve starts at its targets (after a teleport or a cut).
 * @function IKFeet:reset
 * @raise never
 */
static int l_feet_reset(lua_State *L) {
    sn_ik_feet_reset(feet_of(L));
    return 0;
}

/***
 * The smoothing state, as numbers: started (0 or 1), the pelvis's offset, its rate and its
 * held-low target, then per leg the smoothed foot normal (3 numbers), its rate (3) and the knee's
 * hinge last used (3): 4 + 9 per leg. What a snapshot keeps: `set_state` puts it back and the
 * solves go on bit for bit as they would have.
 * @function IKFeet:state
 * @tparam[opt] table out a table to fill (its first 4 + 9 * #feet entries), instead of a new one
 * @treturn table the list
 * @raise "bad argument #1 to 'state' (table expected, got number)"
 */
static int l_feet_state(lua_State *L) {
    sn_ik_feet *ik = feet_of(L);
    double v[4 + 9 * SN_IK_FEET_MAX];
    int n = sn_ik_feet_state_count(ik), i;
    if (lua_isnoneornil(L, 2)) {
        lua_createtable(L, n, 0);
    } else {
        sn_lua_checktype(L, 2, LUA_TTABLE);
        lua_settop(L, 2);
    }
    sn_ik_feet_state(ik, v);
    for (i = 0; i < n; i++) {
        lua_pushnumber(L, v[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/***
 * Puts back a state that `state` gave (of a solver of the same number of legs; the hinge of a leg
 * given `mid_axis` is a setting and stays). A refused state changes nothing.
 * @function IKFeet:set_state
 * @tparam table state 4 + 9 * #feet numbers
 * @raise "bad argument #1 to 'set_state' (a list of 40 numbers expected, got 12)"; "(element 3 is not
 * a number (got string))"; "(state number 1 (started) must be 0 or 1)", "(state number 5 is not
 * finite)", "(state of leg 2: its knee hinge is not a unit vector (length 0))"; "set_state called
 * from its own ground callback"
 */
static int l_feet_set_state(lua_State *L) {
    feet_header *h = check_feet(L);
    sn_ik_feet *ik = (sn_ik_feet *)h->solver;
    double v[4 + 9 * SN_IK_FEET_MAX];
    int n = sn_ik_feet_state_count(ik), i, got;
    sn_error err;
    sn_lua_checktype(L, 2, LUA_TTABLE);
    got = (int)sn_lua_rawlen(L, 2);
    if (got != n) return sn_lua_argerror(L, 2, lua_pushfstring(L, "a list of %d numbers expected, got %d", n, got));
    for (i = 0; i < n; i++) {
        lua_rawgeti(L, 2, i + 1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            return sn_lua_argerror(L, 2, lua_pushfstring(L, "element %d is not a number (got %s)", i + 1, luaL_typename(L, -1)));
        v[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    if (h->busy) return sn_lua_errorf(L, "set_state called from its own ground callback");
    if (sn_ik_feet_set_state(ik, v, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/***
 * The most the pelvis drops, model units.
 * @function IKFeet:max_drop
 * @treturn number
 * @raise never
 */
static int l_feet_max_drop(lua_State *L) {
    lua_pushnumber(L, sn_ik_feet_max_drop(feet_of(L)));
    return 1;
}

/***
 * Sets the most the pelvis drops.
 * @function IKFeet:set_max_drop
 * @tparam number max_drop model units, >= 0 (math.huge: no limit)
 * @raise "number expected, got nil"; "'max_drop' -1 is out of range (0 .. inf)"
 */
static int l_feet_set_max_drop(lua_State *L) {
    sn_ik_feet *ik = feet_of(L);
    sn_error err;
    if (sn_ik_feet_set_max_drop(ik, sn_lua_checknumber(L, 2), &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/***
 * The most a foot turns toward the ground's normal, radians.
 * @function IKFeet:normal_limit
 * @treturn number
 * @raise never
 */
static int l_feet_normal_limit(lua_State *L) {
    lua_pushnumber(L, sn_ik_feet_normal_limit(feet_of(L)));
    return 1;
}

/***
 * Sets the most a foot turns toward the ground's normal.
 * @function IKFeet:set_normal_limit
 * @tparam number limit radians, 0 .. 1.39626 (80 degrees)
 * @raise "number expected, got nil"; "'normal_limit' 2 is out of range (0 .. 1.39626)"
 */
static int l_feet_set_normal_limit(lua_State *L) {
    sn_ik_feet *ik = feet_of(L);
    sn_error err;
    if (sn_ik_feet_set_normal_limit(ik, sn_lua_checknumber(L, 2), &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/***
 * The time of the pelvis's and the normals' springs, seconds.
 * @function IKFeet:smoothing
 * @treturn number
 * @raise never
 */
static int l_feet_smoothing(lua_State *L) {
    lua_pushnumber(L, sn_ik_feet_smoothing(feet_of(L)));
    return 1;
}

/***
 * Sets the time of the springs.
 * @function IKFeet:set_smoothing
 * @tparam number smoothing seconds, finite, >= 0 (0: no smoothing)
 * @raise "number expected, got nil"; "'smoothing' is not finite", "'smoothing' -1 is out of range
 * (0 .. inf)"
 */
static int l_feet_set_smoothing(lua_State *L) {
    sn_ik_feet *ik = feet_of(L);
    sn_error err;
    if (sn_ik_feet_set_smoothing(ik, sn_lua_checknumber(L, 2), &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/***
 * The ground callback.
 * @function IKFeet:ground
 * @treturn function
 * @raise never
 */
static int l_feet_ground(lua_State *L) {
    check_feet(L);
    sn_lua_getuservalue(L, 1);
    if (lua_istable(L, -1)) lua_rawgeti(L, -1, 2);
    else lua_pushnil(L);
    return 1;
}

/***
 * Sets the ground callback (see `sinew.ik.feet`).
 * @function IKFeet:set_ground
 * @tparam function ground
 * @raise "function expected, got nil"
 */
static int l_feet_set_ground(lua_State *L) {
    feet_header *h = check_feet(L);
    sn_lua_checktype(L, 2, LUA_TFUNCTION);
    sn_lua_getuservalue(L, 1);
    if (!lua_istable(L, -1)) return 0;
    lua_pushvalue(L, 2);
    lua_rawseti(L, -2, 2);
    h->ground_version++; /* the FFI path's cached callback is stale */
    return 0;
}

/***
 * The solver's skeleton.
 * @function IKFeet:skeleton
 * @treturn Skeleton
 * @raise never
 */
static int l_feet_skeleton(lua_State *L) {
    check_feet(L);
    sn_lua_pushskeleton(L, 1);
    return 1;
}

static int l_feet_len(lua_State *L) {
    lua_pushinteger(L, sn_ik_feet_count(feet_of(L)));
    return 1;
}

static int l_feet_tostring(lua_State *L) {
    feet_header *h = check_feet(L);
    const sn_ik_feet *ik = (const sn_ik_feet *)h->solver;
    lua_pushfstring(L, "%s ('%s', %d legs): %p", SN_IK_FEET_MT, sn_skeleton_name(sn_ik_feet_skeleton(ik), sn_ik_feet_pelvis(ik)),
                    sn_ik_feet_count(ik), (void *)h);
    return 1;
}

void sn_open_ik_feet(lua_State *L, int ik) {
    static const luaL_Reg methods[] = {
        {"solve", l_feet_solve}, {"clone", l_feet_clone}, {"pelvis", l_feet_pelvis}, {"leg", l_feet_leg}, {"up", l_feet_up},
        {"offset", l_feet_offset}, {"reset", l_feet_reset}, {"state", l_feet_state}, {"set_state", l_feet_set_state},
        {"max_drop", l_feet_max_drop},
        {"set_max_drop", l_feet_set_max_drop}, {"normal_limit", l_feet_normal_limit},
        {"set_normal_limit", l_feet_set_normal_limit}, {"smoothing", l_feet_smoothing},
        {"set_smoothing", l_feet_set_smoothing}, {"ground", l_feet_ground}, {"set_ground", l_feet_set_ground},
        {"skeleton", l_feet_skeleton}, {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__tostring", l_feet_tostring}, {"__len", l_feet_len}, {NULL, NULL}};
    ik = sn_lua_absindex(L, ik);
    sn_lua_newclass(L, SN_IK_FEET_MT, methods, meta);
    lua_pushcfunction(L, l_feet);
    lua_setfield(L, ik, "feet");
}
