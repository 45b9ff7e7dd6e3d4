/***
 * Inverse kinematics for 2-D rigs: `sinew.ik.two_bone`, `sinew.ik.aim` and `sinew.ik.chain` given
 * a definition with `rig` (a `sinew.dragonbones` rig) instead of `skeleton`.
 *
 * A solver is made once from a rig and its bones (names or 1-based indices, parent to child). A
 * solve reads the rig's world matrices (the rig shows the pose to solve: after `rig:apply(pose)`
 * or `rig:update(dt)`), solves in armature space (y down, targets in the rig's space), adds the
 * turns to the bones' rotations in `pose` (a 2-D pose of the rig's armature, what the animator
 * fills), or in the rig's own animation pose when `pose` is nil, and updates the rig's world
 * matrices from the result. A solve makes no garbage; a refused solve writes nothing; weight 0
 * writes nothing. See manual/ik.md, "2-D".
 *
 * Methods raise "sinew.IK2DTwoBone expected, got <type>" (and so for IK2DAim, IK2DChain) when their
 * `self` is something else.
 * @module sinew.ik
 */
#include <math.h>
#include <string.h>

#include "ik2d_solver.h"

static const char *const methods[] = {"fabrik", "ccd", NULL};

static ik2d *check_two_bone(lua_State *L) { return (ik2d *)sn_lua_checkobject(L, 1, SN_IK2D_TWO_BONE_MT); }
static ik2d *check_aim(lua_State *L) { return (ik2d *)sn_lua_checkobject(L, 1, SN_IK2D_AIM_MT); }
static ik2d *check_chain(lua_State *L) { return (ik2d *)sn_lua_checkobject(L, 1, SN_IK2D_CHAIN_MT); }

/* ---- definitions ---------------------------------------------------------------------------- */

/* The dragonbones rig at 2 (the top), with its core Rig2D pushed at 3 and its model's name -> bone
   map at 4, anchored while a solver is built; NULL when 2 is no rig. */
static sn_rig2d *rig_at_2(lua_State *L) {
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "core");
        lua_rawget(L, 2); /* 3 */
        lua_pushliteral(L, "model");
        lua_rawget(L, 2);
        if (lua_istable(L, -1)) {
            lua_pushliteral(L, "bone");
            lua_rawget(L, -2);
            lua_remove(L, -2); /* 4 */
        }
        sn_rig2d *r = (sn_rig2d *)sn_lua_testobject(L, 3, SN_RIG2D_MT);
        if (r != NULL && lua_istable(L, 4)) return r;
    }
    return NULL;
}

/* The rig of the definition at 1, pushed at 2 (the dragonbones rig), 3 and 4 (as rig_at_2). */
static sn_rig2d *read_rig(lua_State *L) {
    sn_lua_field(L, 1, "rig"); /* 2 */
    sn_rig2d *r = rig_at_2(L);
    if (r == NULL)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'rig' must be a sinew.dragonbones rig (got %s)", sn_lua_typename_of(L, 2)));
    return r;
}

/* bone at stack index `idx` (a name of the rig's map at 4, or a 1-based index), 0-based; `what`
   names the place in the definition */
static int read_bone(lua_State *L, int idx, const sn_rig2d_data *d, const char *what) {
    int t = lua_type(L, idx), count = sn_rig2d_data_bones(d);
    if (t == LUA_TNUMBER) {
        double v = lua_tonumber(L, idx);
        if (!(v >= 1 && v <= count && v == floor(v)))
            sn_lua_argerror(L, 1, lua_pushfstring(L, "%s: bone index %s is out of range (1 .. %d)", what,
                                                  sn_lua_numstr(L, v), count));
        return (int)v - 1;
    }
    if (t == LUA_TSTRING) {
        lua_pushvalue(L, idx);
        lua_rawget(L, 4);
        double v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
        lua_pop(L, 1);
        if (!(v >= 1 && v <= count && v == floor(v)))
            sn_lua_argerror(L, 1, lua_pushfstring(L, "%s: no bone '%s'", what, lua_tostring(L, idx)));
        return (int)v - 1;
    }
    return sn_lua_argerror(L, 1, lua_pushfstring(L, "%s must be a bone's name or index (got %s)", what,
                                                 luaL_typename(L, idx)));
}

/* the name of bone b (0-based) for a message: the rig model's, else "#<b+1>" */
static const char *bone_name(lua_State *L, int b) {
    lua_pushliteral(L, "model");
    lua_rawget(L, 2);
    if (lua_istable(L, -1)) {
        lua_pushliteral(L, "bones");
        lua_rawget(L, -2);
        if (lua_istable(L, -1)) {
            lua_rawgeti(L, -1, b + 1);
            if (lua_istable(L, -1)) {
                lua_pushliteral(L, "name");
                lua_rawget(L, -2);
                if (lua_type(L, -1) == LUA_TSTRING) {
                    const char *s = lua_tostring(L, -1);
                    lua_insert(L, -4); /* below the model: anchored while the message is made */
                    lua_pop(L, 3);
                    return s;
                }
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return lua_pushfstring(L, "#%d", b + 1);
}

/* checks the chain of bones: each the child of the one before and following its translation, none
   turned by a DragonBones IK constraint (which would override the solve) */
static void check_bones(lua_State *L, const ik2d *k, const char *field) {
    for (int i = 0; i < k->n; i++) {
        int b = k->bone[i];
        for (int j = 0; j < i; j++)
            if (k->bone[j] == b)
                sn_lua_argerror(L, 1, lua_pushfstring(L, "'%s': bone '%s' is given twice", field, bone_name(L, b)));
        if (i > 0 && sn_rig2d_data_parent(k->data, b) != k->bone[i - 1])
            sn_lua_argerror(L, 1, lua_pushfstring(L, "'%s': bone '%s' is not a child of '%s'", field, bone_name(L, b),
                                                  bone_name(L, k->bone[i - 1])));
        if (i > 0 && !sn_rig2d_data_inherits_translation(k->data, b))
            sn_lua_argerror(L, 1, lua_pushfstring(L, "'%s': bone '%s' does not inherit its parent's translation", field,
                                                  bone_name(L, b)));
        if (sn_rig2d_data_ik_moves(k->data, b))
            sn_lua_argerror(L, 1, lua_pushfstring(L, "'%s': bone '%s' is turned by an IK constraint of the armature",
                                                  field, bone_name(L, b)));
    }
}

/* the list field `field` of the definition at 1: between lo and hi bones */
static void read_bones(lua_State *L, ik2d *k, const char *field, int lo, int hi) {
    int t = sn_lua_field(L, 1, field);
    int n = t == LUA_TTABLE ? (int)sn_lua_rawlen(L, -1) : 0;
    if (t != LUA_TTABLE || n < lo || n > hi) {
        if (lo == hi)
            sn_lua_argerror(L, 1, lua_pushfstring(L, "'%s' must be a list of %d bones (got %s)", field, lo,
                                                  t == LUA_TTABLE ? "a list of another length" : luaL_typename(L, -1)));
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'%s' must be a list of %d .. %d bones (got %s)", field, lo, hi,
                                              t == LUA_TTABLE ? "a list of another length" : luaL_typename(L, -1)));
    }
    int list = lua_gettop(L);
    k->n = n;
    for (int i = 0; i < n; i++) {
        char what[40];
        snprintf(what, sizeof what, "%s[%d]", field, i + 1);
        lua_rawgeti(L, list, i + 1);
        k->bone[i] = read_bone(L, -1, k->data, what);
        lua_pop(L, 1);
    }
    /* the list stays anchored on the stack */
}

/* optional number field: *v left when nil */
static void opt_number(lua_State *L, const char *key, double *v) {
    if (sn_lua_field(L, 1, key) != LUA_TNIL) *v = sn_lua_tonumber(L, -1, 1, key);
    lua_pop(L, 1);
}

/* a new solver userdata of type `tname` keeping the rig (stack 2, 3) */
static ik2d *new_solver(lua_State *L, const char *tname, const ik2d *k) {
    ik2d *h = (ik2d *)sn_lua_newuserdata(L, sizeof(ik2d));
    *h = *k;
    sn_lua_setmetatable(L, tname);
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, 2);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, 3);
    lua_rawseti(L, -2, 2);
    sn_lua_setuservalue(L, -2);
    return h;
}

static void init_def(lua_State *L, ik2d *k, const char *what, const char *const *fields) {
    lua_settop(L, 1);
    sn_lua_checktype(L, 1, LUA_TTABLE);
    sn_lua_checkfields(L, 1, 1, what, fields);
    memset(k, 0, sizeof *k);
    k->rig = read_rig(L); /* 2, 3, 4 */
    k->data = sn_rig2d_rig_data(k->rig);
    k->bend = 1;
    k->soften = 1.0;
    k->limit = 3.141592653589793;
    k->method = SN_IK_FABRIK;
    k->iterations = 16;
    k->tolerance = 1e-3;
}

static const char *const two_bone_fields[] = {"rig", "bones", "bend", "soften", NULL};

/***
 * Builds a 2-D two-bone solver (`sinew.ik.two_bone` given a definition with `rig`): `rig` (a
 * `sinew.dragonbones` rig), `bones` (two bones, names or 1-based indices, the second a child of
 * the first; the tip is the second's end), `bend` [1] (1 or -1: the side of the knee, see
 * `IK2DTwoBone:solve`) and `soften` [1] (in (0, 1]: the tip falls behind a target beyond that
 * fraction of the reach). The solver keeps its rig alive.
 * @function two_bone
 * @tparam table def
 * @treturn IK2DTwoBone
 * @raise "unknown field 'x' in the 2-D two-bone definition"; "'bones': no bone 'x'"; "'bones':
 * bone 'c' is not a child of 'a'"; "'bones': bone 'x' has length 0 (the tip is its end)"; "'bend' must
 * be 1 or -1 (got 2)"; "'soften' 0 is out of range (0 .. 1)"
 */
static int l_two_bone2d(lua_State *L) {
    ik2d k;
    double bend = 1;
    sn_error err;
    init_def(L, &k, "the 2-D two-bone definition", two_bone_fields);
    read_bones(L, &k, "bones", 2, 2);
    check_bones(L, &k, "bones");
    if (!(sn_rig2d_data_length(k.data, k.bone[1]) > 0.0))
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'bones': bone '%s' has length 0 (the tip is its end)",
                                              bone_name(L, k.bone[1])));
    opt_number(L, "bend", &bend);
    if (bend != 1 && bend != -1)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'bend' must be 1 or -1 (got %s)", sn_lua_numstr(L, bend)));
    k.bend = (int)bend;
    opt_number(L, "soften", &k.soften);
    if (!(k.soften > 0.0 && k.soften <= 1.0)) {
        sn_fail_range(&err, 1, "'soften'", k.soften, 0.0, 1.0);
        return sn_lua_raise(L, &err, 0);
    }
    new_solver(L, SN_IK2D_TWO_BONE_MT, &k);
    return 1;
}

static const char *const aim_fields[] = {"rig", "bone", "forward", "offset", "limit", NULL};

/***
 * Builds a 2-D aim solver (`sinew.ik.aim` given a definition with `rig`): `rig`, `bone` (a name or
 * 1-based index), `forward` [0] (radians: the aimed axis in the bone's frame, 0 along the bone),
 * `offset` [{0, 0}] (where the aimed line starts, in the bone's frame) and `limit` [math.pi]
 * (radians in (0, pi]: the most the bone turns from its input; past it the turn eases back).
 * @function aim
 * @tparam table def
 * @treturn IK2DAim
 * @raise "unknown field 'x' in the 2-D aim definition"; "'bone': no bone 'x'"; "'offset' must be
 * a table of 2 numbers (got a table of another length)"; "'limit' 4 is out of range (0 ..
 * 3.14159)"
 */
static int l_aim2d(lua_State *L) {
    ik2d k;
    sn_error err;
    init_def(L, &k, "the 2-D aim definition", aim_fields);
    sn_lua_field(L, 1, "bone");
    k.n = 1;
    k.bone[0] = read_bone(L, -1, k.data, "'bone'");
    check_bones(L, &k, "bone");
    opt_number(L, "forward", &k.forward);
    if (!sn_isfinite(k.forward)) sn_lua_argerror(L, 1, "'forward' is not finite");
    if (sn_lua_field(L, 1, "offset") != LUA_TNIL) {
        if (!lua_istable(L, -1) || sn_lua_rawlen(L, -1) != 2)
            sn_lua_argerror(L, 1, lua_pushfstring(L, "'offset' must be a table of 2 numbers (got %s)",
                                                  lua_istable(L, -1) ? "a table of another length" : luaL_typename(L, -1)));
        k.offset[0] = sn_lua_finite_at(L, -1, 1, 1, "offset");
        k.offset[1] = sn_lua_finite_at(L, -1, 2, 1, "offset");
        if (fabs(k.offset[0]) > SN_IK_MAX_COORD || fabs(k.offset[1]) > SN_IK_MAX_COORD)
            sn_lua_argerror(L, 1, "'offset' is too far");
    }
    lua_pop(L, 1);
    opt_number(L, "limit", &k.limit);
    if (!(k.limit > 0.0 && k.limit <= 3.141592653589793)) {
        sn_fail_range(&err, 1, "'limit'", k.limit, 0.0, 3.141592653589793);
        return sn_lua_raise(L, &err, 0);
    }
    new_solver(L, SN_IK2D_AIM_MT, &k);
    return 1;
}

static const char *const chain_fields[] = {"rig", "bones", "method", "iterations", "tolerance", "limits", NULL};

static int set_iterations(lua_State *L, ik2d *k, double v, int arg) {
    if (!(v >= 1 && v <= SN_IK_CHAIN_MAX_ITERATIONS && v == floor(v))) {
        sn_error err;
        sn_fail_range(&err, arg, "'iterations'", v, 1, SN_IK_CHAIN_MAX_ITERATIONS);
        return sn_lua_raise(L, &err, 0);
    }
    k->iterations = (int)v;
    return 0;
}

static int set_tolerance(lua_State *L, ik2d *k, double v, int arg) {
    if (!(v >= 0.0) || !sn_isfinite(v)) {
        sn_error err;
        sn_fail_arg(&err, arg, SN_EINVAL, "'tolerance' must be a finite number >= 0 (got %g)", v);
        return sn_lua_raise(L, &err, 0);
    }
    k->tolerance = v;
    return 0;
}

/***
 * Builds a 2-D chain solver (`sinew.ik.chain` given a definition with `rig`): `rig`, `bones` (up
 * to 32 bones, root first, each the parent of the next; the tip is the last one's end), `method`
 * ["fabrik"] ("fabrik" or "ccd"), `iterations` [16] (1 to 1000), `tolerance` [1e-3] (armature
 * units: a tip this near stops the iterations) and `limits` (bone -> `{ min = a, max = b }`,
 * radians: the bone's local rotation as the rig composes it, setup plus pose, kept between them).
 * @function chain
 * @tparam table def
 * @treturn IK2DChain
 * @raise "unknown field 'x' in the 2-D chain definition"; "unknown method 'x' ('fabrik' or
 * 'ccd')"; "'iterations' 0 is out of range (1 .. 1000)"; "'tolerance' must be a finite number >= 0
 * (got -1)"; "'limits' key: no bone 'x'"; "'bones': bone 'c' is not a child of 'a'"
 */
static int l_chain2d(lua_State *L) {
    ik2d k;
    double it = 16, tol = 1e-3;
    init_def(L, &k, "the 2-D chain definition", chain_fields);
    read_bones(L, &k, "bones", 1, SN_IK2D_CHAIN_MAX); /* 5 */
    check_bones(L, &k, "bones");
    if (!(sn_rig2d_data_length(k.data, k.bone[k.n - 1]) > 0.0))
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'bones': the last bone '%s' has length 0 (the tip is its end)",
                                              bone_name(L, k.bone[k.n - 1])));
    if (sn_lua_field(L, 1, "method") != LUA_TNIL) k.method = sn_lua_tooption(L, -1, 1, "", "method", methods, 0);
    lua_pop(L, 1);
    opt_number(L, "iterations", &it);
    set_iterations(L, &k, it, 1);
    opt_number(L, "tolerance", &tol);
    set_tolerance(L, &k, tol, 1);
    for (int i = 0; i < k.n; i++) k.min[i] = -HUGE_VAL, k.max[i] = HUGE_VAL;
    int t = sn_lua_field(L, 1, "limits");
    if (t != LUA_TNIL) {
        int lim = lua_gettop(L);
        if (t != LUA_TTABLE) sn_lua_argerror(L, 1, lua_pushfstring(L, "'limits' must be a table (got %s)", luaL_typename(L, -1)));
        lua_pushnil(L);
        while (lua_next(L, lim)) {
            /* key at -2, value at -1 */
            int b = read_bone(L, -2, k.data, "'limits' key"), i = -1;
            for (int j = 0; j < k.n; j++)
                if (k.bone[j] == b) i = j;
            if (i < 0) sn_lua_argerror(L, 1, lua_pushfstring(L, "'limits': bone '%s' is not in the chain", bone_name(L, b)));
            if (!lua_istable(L, -1))
                sn_lua_argerror(L, 1, lua_pushfstring(L, "'limits' of '%s' must be a table { min = , max = } (got %s)",
                                                      bone_name(L, b), luaL_typename(L, -1)));
            int v = lua_gettop(L);
            lua_pushliteral(L, "min");
            lua_rawget(L, v);
            lua_pushliteral(L, "max");
            lua_rawget(L, v);
            if (lua_type(L, -2) != LUA_TNUMBER || lua_type(L, -1) != LUA_TNUMBER)
                sn_lua_argerror(L, 1, lua_pushfstring(L, "'limits' of '%s' must have numbers 'min' and 'max'", bone_name(L, b)));
            double mn = lua_tonumber(L, -2), mx = lua_tonumber(L, -1);
            if (!(sn_isfinite(mn) && sn_isfinite(mx) && mn <= mx && mx - mn <= 2 * 3.141592653589793))
                sn_lua_argerror(L, 1, lua_pushfstring(L, "'limits' of '%s': min %s .. max %s is no range of at most 2 pi",
                                                      bone_name(L, b), sn_lua_numstr(L, mn), sn_lua_numstr(L, mx)));
            k.min[i] = mn;
            k.max[i] = mx;
            k.limited = 1;
            lua_settop(L, v - 1);
        }
    }
    new_solver(L, SN_IK2D_CHAIN_MT, &k);
    return 1;
}

/***
 * A solver of the same definition (bones, bend, soften, forward, offset, limit, method,
 * iterations, tolerance, limits) on another rig of the same armature: what the animator solves
 * on (a rig of its own), or one solver per character (also `IK2DAim:clone`, `IK2DChain:clone`).
 * @function IK2DTwoBone:clone
 * @param rig a `sinew.dragonbones` rig of the solver's armature
 * @return a new solver of the same type
 * @raise "bad argument #1 to 'clone' (a sinew.dragonbones rig expected, got nil)"; "(a rig of
 * another armature)"
 */
static int l_clone(lua_State *L) {
    const ik2d *k = (const ik2d *)sn_lua_checkself(L);
    const char *tname = lua_tostring(L, lua_upvalueindex(1)); /* the class (sn_lua_checkself's) */
    ik2d c = *k;
    lua_settop(L, 2);
    c.rig = rig_at_2(L); /* 3, 4 */
    if (c.rig == NULL)
        sn_lua_argerror(L, 2, lua_pushfstring(L, "a sinew.dragonbones rig expected, got %s", sn_lua_typename_of(L, 2)));
    if (sn_rig2d_rig_data(c.rig) != k->data) sn_lua_argerror(L, 2, "a rig of another armature");
    new_solver(L, tname, &c);
    return 1;
}

/* ---- getters, setters ---------------------------------------------------------------------- */

static int push_bones(lua_State *L, const ik2d *k) {
    luaL_checkstack(L, k->n, "too many bones");
    for (int i = 0; i < k->n; i++) lua_pushinteger(L, k->bone[i] + 1);
    return k->n;
}

/***
 * The two bones, 1-based indices (as the rig lists them).
 * @function IK2DTwoBone:bones
 * @return the indices
 * @raise never
 */
static int l_two_bone_bones(lua_State *L) { return push_bones(L, check_two_bone(L)); }
/***
 * The side of the knee: 1 or -1.
 * @function IK2DTwoBone:bend
 * @treturn int
 * @raise never
 */
static int l_two_bone_bend(lua_State *L) {
    lua_pushinteger(L, check_two_bone(L)->bend);
    return 1;
}
/***
 * Sets the side of the knee.
 * @function IK2DTwoBone:set_bend
 * @tparam int bend 1 or -1
 * @raise "'bend' must be 1 or -1 (got 0)"
 */
static int l_two_bone_set_bend(lua_State *L) {
    ik2d *k = check_two_bone(L);
    double b = sn_lua_checknumber(L, 2);
    if (b != 1 && b != -1) return sn_lua_argerror(L, 2, lua_pushfstring(L, "'bend' must be 1 or -1 (got %s)", sn_lua_numstr(L, b)));
    k->bend = (int)b;
    return 0;
}
/***
 * The softening fraction, in (0, 1].
 * @function IK2DTwoBone:soften
 * @treturn number
 * @raise never
 */
static int l_two_bone_soften(lua_State *L) {
    lua_pushnumber(L, check_two_bone(L)->soften);
    return 1;
}
/***
 * Sets the softening fraction.
 * @function IK2DTwoBone:set_soften
 * @tparam number soften in (0, 1]
 * @raise "'soften' 0 is out of range (0 .. 1)"
 */
static int l_two_bone_set_soften(lua_State *L) {
    ik2d *k = check_two_bone(L);
    double v = sn_lua_checknumber(L, 2);
    if (!(v > 0.0 && v <= 1.0)) {
        sn_error err;
        sn_fail_range(&err, 2, "'soften'", v, 0.0, 1.0);
        return sn_lua_raise(L, &err, 0);
    }
    k->soften = v;
    return 0;
}
/***
 * The bone, a 1-based index.
 * @function IK2DAim:bone
 * @treturn int
 * @raise never
 */
static int l_aim_bone(lua_State *L) { return push_bones(L, check_aim(L)); }
/***
 * The limit, radians in (0, pi].
 * @function IK2DAim:limit
 * @treturn number
 * @raise never
 */
static int l_aim_limit(lua_State *L) {
    lua_pushnumber(L, check_aim(L)->limit);
    return 1;
}
/***
 * Sets the limit.
 * @function IK2DAim:set_limit
 * @tparam number limit radians in (0, pi]
 * @raise "'limit' 4 is out of range (0 .. 3.14159)"
 */
static int l_aim_set_limit(lua_State *L) {
    ik2d *k = check_aim(L);
    double v = sn_lua_checknumber(L, 2);
    if (!(v > 0.0 && v <= 3.141592653589793)) {
        sn_error err;
        sn_fail_range(&err, 2, "'limit'", v, 0.0, 3.141592653589793);
        return sn_lua_raise(L, &err, 0);
    }
    k->limit = v;
    return 0;
}
/***
 * The bones, 1-based indices, root first.
 * @function IK2DChain:bones
 * @return the indices
 * @raise never
 */
static int l_chain_bones(lua_State *L) { return push_bones(L, check_chain(L)); }
/***
 * The method: "fabrik" or "ccd".
 * @function IK2DChain:method
 * @treturn string
 * @raise never
 */
static int l_chain_method(lua_State *L) {
    lua_pushstring(L, methods[check_chain(L)->method]);
    return 1;
}
/***
 * The most iterations of a solve, 1 to 1000.
 * @function IK2DChain:iterations
 * @treturn int
 * @raise never
 */
static int l_chain_iterations(lua_State *L) {
    lua_pushinteger(L, check_chain(L)->iterations);
    return 1;
}
/***
 * Sets the most iterations of a solve.
 * @function IK2DChain:set_iterations
 * @tparam int iterations 1 to 1000
 * @raise "'iterations' 0 is out of range (1 .. 1000)"
 */
static int l_chain_set_iterations(lua_State *L) {
    ik2d *k = check_chain(L);
    return set_iterations(L, k, sn_lua_checknumber(L, 2), 2);
}
/***
 * The tolerance, armature units.
 * @function IK2DChain:tolerance
 * @treturn number
 * @raise never
 */
static int l_chain_tolerance(lua_State *L) {
    lua_pushnumber(L, check_chain(L)->tolerance);
    return 1;
}
/***
 * Sets the tolerance.
 * @function IK2DChain:set_tolerance
 * @tparam number tolerance armature units, finite, >= 0
 * @raise "'tolerance' must be a finite number >= 0 (got -1)"
 */
static int l_chain_set_tolerance(lua_State *L) {
    ik2d *k = check_chain(L);
    return set_tolerance(L, k, sn_lua_checknumber(L, 2), 2);
}
/***
 * The number of bones (`#chain`).
 * @function IK2DChain:__len
 * @treturn int
 * @raise never
 */
static int l_chain_len(lua_State *L) {
    lua_pushinteger(L, check_chain(L)->n);
    return 1;
}

/***
 * The `sinew.dragonbones` rig the solver was made for (also `IK2DAim:rig`, `IK2DChain:rig`).
 * @function IK2DTwoBone:rig
 * @return the rig
 * @raise never
 */
static int l_rig_of(lua_State *L) {
    sn_lua_checkself(L);
    sn_lua_getuservalue(L, 1);
    if (lua_istable(L, -1)) lua_rawgeti(L, -1, 1);
    else lua_pushnil(L);
    return 1;
}

static int tostring_of(lua_State *L, const char *tname, const ik2d *k) {
    lua_pushfstring(L, "%s (%d bones, first %d): %p", tname, k->n, k->bone[0] + 1, (const void *)k);
    return 1;
}
static int l_two_bone_tostring(lua_State *L) { return tostring_of(L, SN_IK2D_TWO_BONE_MT, check_two_bone(L)); }
static int l_aim_tostring(lua_State *L) { return tostring_of(L, SN_IK2D_AIM_MT, check_aim(L)); }
static int l_chain_tostring(lua_State *L) { return tostring_of(L, SN_IK2D_CHAIN_MT, check_chain(L)); }

/* ---- dispatch ------------------------------------------------------------------------------- */

/* sinew.ik.two_bone / aim / chain: a definition with a raw `rig` field builds a 2-D solver (upvalue
   2); anything else goes to the 3-D constructor (upvalue 1), called in this frame so its messages
   name the same function */
static int l_dispatch(lua_State *L) {
    int two_d = 0;
    if (lua_type(L, 1) == LUA_TTABLE) {
        lua_pushliteral(L, "rig");
        lua_rawget(L, 1);
        two_d = !lua_isnil(L, -1);
        lua_pop(L, 1);
    }
    lua_CFunction f = lua_tocfunction(L, lua_upvalueindex(two_d ? 2 : 1));
    return f(L);
}

void sn_open_ik2d(lua_State *L, int ik) {
    static const luaL_Reg two_bone_methods[] = {
        {"bones", l_two_bone_bones}, {"bend", l_two_bone_bend},
        {"set_bend", l_two_bone_set_bend}, {"soften", l_two_bone_soften}, {"set_soften", l_two_bone_set_soften},
        {"rig", l_rig_of}, {"clone", l_clone}, {NULL, NULL}};
    static const luaL_Reg two_bone_meta[] = {{"__tostring", l_two_bone_tostring}, {NULL, NULL}};
    static const luaL_Reg aim_methods[] = {{"bone", l_aim_bone}, {"limit", l_aim_limit},
                                           {"set_limit", l_aim_set_limit}, {"rig", l_rig_of}, {"clone", l_clone},
                                           {NULL, NULL}};
    static const luaL_Reg aim_meta[] = {{"__tostring", l_aim_tostring}, {NULL, NULL}};
    static const luaL_Reg chain_methods[] = {
        {"bones", l_chain_bones}, {"method", l_chain_method},
        {"iterations", l_chain_iterations}, {"set_iterations", l_chain_set_iterations},
        {"tolerance", l_chain_tolerance}, {"set_tolerance", l_chain_set_tolerance}, {"rig", l_rig_of},
        {"clone", l_clone}, {NULL, NULL}};
    static const luaL_Reg chain_meta[] = {{"__tostring", l_chain_tostring}, {"__len", l_chain_len}, {NULL, NULL}};
    static const struct {
        const char *name;
        lua_CFunction fn;
    } ctors[] = {{"two_bone", l_two_bone2d}, {"aim", l_aim2d}, {"chain", l_chain2d}};
    sn_lua_newclass(L, SN_IK2D_TWO_BONE_MT, two_bone_methods, two_bone_meta);
    sn_lua_newclass(L, SN_IK2D_AIM_MT, aim_methods, aim_meta);
    sn_lua_newclass(L, SN_IK2D_CHAIN_MT, chain_methods, chain_meta);
    sn_open_ik2d_solve(L);
    for (size_t i = 0; i < sizeof ctors / sizeof ctors[0]; i++) {
        lua_getfield(L, ik, ctors[i].name); /* the 3-D constructor */
        lua_pushcfunction(L, ctors[i].fn);
        lua_pushcclosure(L, l_dispatch, 2);
        lua_setfield(L, ik, ctors[i].name);
    }
}
