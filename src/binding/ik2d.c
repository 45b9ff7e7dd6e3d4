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

#include "../core/ik2d.h"
#include "binding.h"

/* The userdata of a 2-D solver: everything it solves with. Its uservalue (a table: the
   dragonbones rig, then its core Rig2D) keeps the rig alive, so `rig` stays valid. */
typedef struct ik2d {
    sn_rig2d *rig;
    const sn_rig2d_data *data;
    int n;                              /* bones */
    int bone[SN_IK2D_CHAIN_MAX];        /* 0-based, parent to child */
    int bend;                           /* two-bone: +1 or -1 */
    double soften;                      /* two-bone: (0, 1] */
    double forward, offset[2], limit;   /* aim: axis angle and start in the bone's frame, limit */
    int method, iterations;             /* chain */
    double tolerance;
    int limited;                        /* chain: whether any bone has limits */
    double min[SN_IK2D_CHAIN_MAX], max[SN_IK2D_CHAIN_MAX]; /* local rotation ranges (+-inf: none) */
} ik2d;

static const char *const methods[] = {"fabrik", "ccd", NULL};

/// Most solves of one call (see l_two_bone_solve: under uneven parent scales each pass closes about
/// half the gap; 8 passes end within 1e-3 of the reach on parents scaled 0.7 .. 1.4), and the
/// relative miss that ends them.
#define PASSES 8
#define CLOSE 1e-9

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

/* ---- solves --------------------------------------------------------------------------------- */

/* The pose a solve writes: the 2-D pose at 2 (of the rig's armature), or the rig's own when nil. */
static double *solve_pose(lua_State *L, const ik2d *k, int *own) {
    const sn_rig2d_data *d = NULL;
    double *v;
    if (lua_isnoneornil(L, 2)) {
        *own = 1;
        return sn_rig2d_pose(k->rig);
    }
    *own = 0;
    v = sn_lua_testpose2d(L, 2, &d);
    if (v == NULL)
        sn_lua_argerror(L, 2, lua_pushfstring(L, "a 2-D pose of the solver's armature or nil expected, got %s",
                                              sn_lua_typename_of(L, 2)));
    if (d != k->data) sn_lua_argerror(L, 2, "a 2-D pose of another armature");
    return v;
}

static double opt_weight(lua_State *L, int arg) { return lua_isnoneornil(L, arg) ? 1.0 : sn_lua_checknumber(L, arg); }

/* after turning: the rig shows the written pose */
static void show(const ik2d *k, const double *pose, int own) {
    if (!own) sn_rig2d_set_pose(k->rig, pose);
    sn_rig2d_world(k->rig);
}

static int push_result(lua_State *L, unsigned flags) {
    lua_pushboolean(L, (flags & SN_IK_REACHED) != 0);
    lua_pushinteger(L, (lua_Integer)flags);
    return 2;
}

/***
 * Turns the two bones so that the end of the second reaches the target (armature space, the
 * rig's y-down plane): the knee on the side `bend` picks (1: as DragonBones' bendPositive in an
 * unmirrored armature, counterclockwise on screen from the root-target line; -1: the other side).
 * An unreachable target leaves the arm straight toward it. Reads the rig's world matrices; writes
 * the two rotations into `pose` (nil: the rig's own pose) and updates the rig's world matrices.
 * @function IK2DTwoBone:solve
 * @param pose a 2-D pose of the rig's armature (`rig:pose()`), or nil for the rig's own
 * @tparam number tx target x
 * @tparam number ty target y
 * @tparam[opt=1] number weight in [0, 1]
 * @treturn boolean whether the tip is on the target
 * @treturn int the flags (sinew.ik.REACHED, UNREACHABLE, SOFTENED, TARGET_AT_ROOT, DEGENERATE)
 * @raise "a 2-D pose of the solver's armature or nil expected, got number", "a 2-D pose of another
 * armature"; "number expected, got nil" (tx, ty, weight); "the target is not finite or beyond 1e+12";
 * "'weight' 2 is out of range (0 .. 1)"; "a point of the chain is not finite ..." (argument 2) when
 * the rig's bones are placed so
 */
static int l_two_bone_solve(lua_State *L) {
    ik2d *k = check_two_bone(L);
    int own;
    double *pose = solve_pose(L, k, &own);
    double t[2], p[6], turn[2], seg[4], world[2];
    unsigned flags = 0;
    sn_error err;
    t[0] = sn_lua_checknumber(L, 3);
    t[1] = sn_lua_checknumber(L, 4);
    double w = opt_weight(L, 5);
    /* one solve is exact where the chain's parents are similarities (uniform scale, no skew, any
       mirroring); under others the bones' world lengths change as they turn: a few more passes
       from the updated world close the gap */
    for (int pass = 0; pass < PASSES; pass++) {
        unsigned f = 0;
        sn_rig2d_bone_points(k->rig, k->bone[0], p, NULL);
        sn_rig2d_bone_points(k->rig, k->bone[1], p + 2, p + 4);
        if (sn_ik2d_two_bone(p, t, k->bend, k->soften, w, turn, &f, &err) != SN_OK) {
            if (pass == 0) return sn_lua_raise(L, &err, 1);
            break;
        }
        if (pass == 0) flags = f;
        if (turn[0] == 0.0 && turn[1] == 0.0) break;
        seg[0] = p[2] - p[0], seg[1] = p[3] - p[1], seg[2] = p[4] - p[2], seg[3] = p[5] - p[3];
        world[0] = turn[0];
        world[1] = turn[0] + turn[1];
        sn_rig2d_turn(k->rig, k->bone, 2, seg, world, pose);
        show(k, pose, own);
        if (!(flags & SN_IK_REACHED)) break;
        sn_rig2d_bone_points(k->rig, k->bone[1], p + 2, p + 4);
        double reach = hypot(p[2] - p[0], p[3] - p[1]) + hypot(p[4] - p[2], p[5] - p[3]);
        if (hypot(p[4] - t[0], p[5] - t[1]) <= CLOSE * reach) break;
        if (pass == PASSES - 1) flags &= ~(unsigned)SN_IK_REACHED;
    }
    return push_result(L, flags);
}

/***
 * Turns the bone so that its forward axis, drawn from the offset, passes through the target
 * (armature space); `limit` caps the turn softly. Reads the rig's world matrices; writes the
 * rotation into `pose` (nil: the rig's own) and updates the rig's world matrices.
 * @function IK2DAim:solve
 * @param pose a 2-D pose of the rig's armature, or nil
 * @tparam number tx
 * @tparam number ty
 * @tparam[opt=1] number weight in [0, 1]
 * @treturn boolean whether the axis passes through the target
 * @treturn int the flags (REACHED, LIMITED, DEGENERATE)
 * @raise as IK2DTwoBone:solve
 */
static int l_aim_solve(lua_State *L) {
    ik2d *k = check_aim(L);
    int own;
    double *pose = solve_pose(L, k, &own);
    double t[2], o[2], from[2], dir[2], turn;
    unsigned flags = 0;
    sn_error err;
    t[0] = sn_lua_checknumber(L, 3);
    t[1] = sn_lua_checknumber(L, 4);
    double w = opt_weight(L, 5);
    int b = k->bone[0];
    const double *m = sn_rig2d_bone_matrix(k->rig, b);
    double fx = cos(k->forward), fy = sin(k->forward);
    sn_rig2d_bone_points(k->rig, b, o, NULL);
    dir[0] = m[0] * fx + m[2] * fy;
    dir[1] = m[1] * fx + m[3] * fy;
    from[0] = o[0] + m[0] * k->offset[0] + m[2] * k->offset[1];
    from[1] = o[1] + m[1] * k->offset[0] + m[3] * k->offset[1];
    if (sn_ik2d_aim(o, from, dir, t, k->limit, w, &turn, &flags, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    if (turn != 0.0) {
        sn_rig2d_turn(k->rig, k->bone, 1, dir, &turn, pose);
        show(k, pose, own);
    }
    return push_result(L, flags);
}

/***
 * Turns the chain's bones (CCD or FABRIK in the plane) so that the end of the last bone reaches
 * the target (armature space), each limited bone's rotation (its local rotation as the rig composes
 * it: setup plus pose) kept between its min and max. Reads the rig's world matrices; writes the
 * rotations into `pose` (nil: the rig's own) and updates the rig's world matrices.
 * @function IK2DChain:solve
 * @param pose a 2-D pose of the rig's armature, or nil
 * @tparam number tx
 * @tparam number ty
 * @tparam[opt=1] number weight in [0, 1]
 * @treturn number the distance left from the tip to the target
 * @treturn int the flags (REACHED, LIMITED, UNREACHABLE, DEGENERATE)
 * @raise as IK2DTwoBone:solve
 */
static int l_chain_solve(lua_State *L) {
    ik2d *k = check_chain(L);
    int own, n = k->n;
    double *pose = solve_pose(L, k, &own);
    double t[2], p[2 * (SN_IK2D_CHAIN_MAX + 1)], turn[SN_IK2D_CHAIN_MAX], lo[SN_IK2D_CHAIN_MAX], hi[SN_IK2D_CHAIN_MAX];
    double seg[2 * SN_IK2D_CHAIN_MAX], world[SN_IK2D_CHAIN_MAX], left = 0.0;
    unsigned flags = 0;
    sn_error err;
    t[0] = sn_lua_checknumber(L, 3);
    t[1] = sn_lua_checknumber(L, 4);
    double w = opt_weight(L, 5);
    for (int i = 0; i < n; i++) sn_rig2d_bone_points(k->rig, k->bone[i], p + 2 * i, i == n - 1 ? p + 2 * n : NULL);
    if (k->limited) {
        /* local rotation limits as bounds on the turns: a turn d changes the rotation by s d */
        for (int i = 0; i < n; i++) {
            if (!(k->min[i] > -HUGE_VAL)) {
                lo[i] = -HUGE_VAL, hi[i] = HUGE_VAL;
                continue;
            }
            double c = 0.5 * (k->min[i] + k->max[i]), r = sn_rig2d_local_rotation(k->rig, k->bone[i], pose);
            double v = r - c;
            if (!sn_isfinite(v)) v = 0.0; /* the core refuses the points then */
            v = c + (v - 6.283185307179586 * floor((v + 3.141592653589793) / 6.283185307179586));
            double a = k->min[i] - v, b = k->max[i] - v;
            if (sn_rig2d_turn_sign(k->rig, k->bone[i]) < 0.0)
                lo[i] = -b, hi[i] = -a;
            else
                lo[i] = a, hi[i] = b;
        }
    }
    if (sn_ik2d_chain(p, n, t, (sn_ik_method)k->method, k->iterations, k->tolerance, k->limited ? lo : NULL,
                      k->limited ? hi : NULL, w, turn, &left, &flags, &err) != SN_OK)
        return sn_lua_raise(L, &err, 1);
    double acc = 0.0;
    int moved = 0;
    for (int i = 0; i < n; i++) {
        acc += turn[i];
        world[i] = acc;
        seg[2 * i] = p[2 * i + 2] - p[2 * i];
        seg[2 * i + 1] = p[2 * i + 3] - p[2 * i + 1];
        moved |= turn[i] != 0.0;
    }
    if (moved) {
        sn_rig2d_turn(k->rig, k->bone, n, seg, world, pose);
        show(k, pose, own);
        /* the distance as the rig now has it (under uneven parent scales a turn is approximate) */
        double tip[2], o[2];
        sn_rig2d_bone_points(k->rig, k->bone[n - 1], o, tip);
        left = hypot(tip[0] - t[0], tip[1] - t[1]);
        if (left > k->tolerance) flags &= ~(unsigned)SN_IK_REACHED;
    }
    lua_pushnumber(L, left);
    lua_pushinteger(L, (lua_Integer)flags);
    return 2;
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
        {"solve", l_two_bone_solve}, {"bones", l_two_bone_bones}, {"bend", l_two_bone_bend},
        {"set_bend", l_two_bone_set_bend}, {"soften", l_two_bone_soften}, {"set_soften", l_two_bone_set_soften},
        {"rig", l_rig_of}, {"clone", l_clone}, {NULL, NULL}};
    static const luaL_Reg two_bone_meta[] = {{"__tostring", l_two_bone_tostring}, {NULL, NULL}};
    static const luaL_Reg aim_methods[] = {{"solve", l_aim_solve}, {"bone", l_aim_bone}, {"limit", l_aim_limit},
                                           {"set_limit", l_aim_set_limit}, {"rig", l_rig_of}, {"clone", l_clone},
                                           {NULL, NULL}};
    static const luaL_Reg aim_meta[] = {{"__tostring", l_aim_tostring}, {NULL, NULL}};
    static const luaL_Reg chain_methods[] = {
        {"solve", l_chain_solve}, {"bones", l_chain_bones}, {"method", l_chain_method},
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
    for (size_t i = 0; i < sizeof ctors / sizeof ctors[0]; i++) {
        lua_getfield(L, ik, ctors[i].name); /* the 3-D constructor */
        lua_pushcfunction(L, ctors[i].fn);
        lua_pushcclosure(L, l_dispatch, 2);
        lua_setfield(L, ik, ctors[i].name);
    }
}
