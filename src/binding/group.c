/***
 * Groups: many characters' per-frame work in one call.
 *
 * A group holds a list of operations on sinew objects, added once: sample a clip through a
 * cursor, blend poses, build model-space matrices, step or update a chain. `group:run(dt, params)`
 * runs them all in order, in one call, reading the numbers that change every frame (sample times,
 * blend weights) from the array `params`: each `sample` and `blend` returns the index of its
 * first parameter there. The operations are the same core calls as one call per object, so the
 * results are the same, bit for bit. A group keeps the objects it was given alive.
 *
 * A method raises "sinew.Group expected, got <type>" when its `self` is something else;
 * the methods' Raises sections leave that out.
 * @module sinew.group
 */
#include "../core/group.h"

#include <string.h>

#include "binding.h"

#define TNAME SN_GROUP_MT

/* The userdata: this header; the arrays are userdata blocks in the uservalue table (fields
   "ops", "layers", "params"), which also holds every object an operation names (array part). */
typedef struct group {
    sn_group_op *ops;
    int n, cap;
    sn_blend_layer *layers;
    int nl, lcap;
    double *params;
    int pcap;
    int nparams; /* parameter slots handed out */
    int kept;    /* objects in the uservalue table */
} group;

static group *check_group(lua_State *L) { return (group *)sn_lua_checkobject(L, 1, TNAME); }

/* a block of `bytes` with the first `used` bytes of `old`, kept in field `name` of the uservalue
   of the group at index 1 (the old block becomes garbage) */
static void *grow(lua_State *L, const char *name, const void *old, size_t used, size_t bytes) {
    void *p = sn_lua_newuserdata(L, bytes);
    memset(p, 0, bytes);
    if (used > 0) memcpy(p, old, used);
    sn_lua_getuservalue(L, 1);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, name);
    lua_pop(L, 2);
    return p;
}

/* anchors the value at `idx` in the group's uservalue table */
static void keep(lua_State *L, group *g, int idx) {
    sn_lua_getuservalue(L, 1);
    lua_pushvalue(L, idx);
    lua_rawseti(L, -2, ++g->kept);
    lua_pop(L, 1);
}

/* checks `op` (raising on argument 2 with the core's message) and appends it */
static void append(lua_State *L, group *g, const sn_group_op *op) {
    sn_error err;
    if (sn_group_check_op(op, g->layers, &err) != SN_OK) sn_lua_raise(L, &err, 1);
    if (g->n == g->cap) {
        int cap = g->cap < 16 ? 16 : 2 * g->cap;
        g->ops = (sn_group_op *)grow(L, "ops", g->ops, sizeof(sn_group_op) * (size_t)g->n, sizeof(sn_group_op) * (size_t)cap);
        g->cap = cap;
    }
    g->ops[g->n++] = *op;
}

/* makes room for `count` more parameter slots (raising past the limit) and returns the first
   (0-based); they count once the operation is accepted (g->nparams += count) */
static int room_for(lua_State *L, group *g, int count) {
    if (count > (1 << 24) - g->nparams) luaL_error(L, "too many parameters in one group");
    if (g->nparams + count > g->pcap) {
        int cap = g->pcap < 64 ? 64 : g->pcap;
        while (cap < g->nparams + count) cap *= 2;
        g->params = (double *)grow(L, "params", g->params, 0, sizeof(double) * (size_t)cap);
        g->pcap = cap;
    }
    return g->nparams;
}

static sn_group_op blank(sn_group_kind kind) {
    sn_group_op op;
    memset(&op, 0, sizeof op);
    op.kind = kind;
    op.threshold = SN_BLEND_THRESHOLD;
    return op;
}

/***
 * A new empty group.
 * @function sinew.group
 * @treturn Group
 * @raise never
 */
static int l_group(lua_State *L) {
    group *g = (group *)sn_lua_newuserdata(L, sizeof(group));
    memset(g, 0, sizeof *g);
    sn_lua_setmetatable(L, TNAME);
    lua_newtable(L);
    sn_lua_setuservalue(L, -2);
    return 1;
}

/***
 * Adds "sample the cursor's clip into `pose` at the time in parameter i", as
 * `cursor:sample(params[i], pose, loop)` does. Returns i.
 * @function Group:sample
 * @tparam ClipCursor cursor
 * @tparam Pose pose of the clip's skeleton
 * @tparam[opt=true] boolean loop wrap the time (true) or clamp it (false)
 * @treturn integer i, the index of its time (seconds) in `params`
 * @raise "sinew.ClipCursor expected, got nil" or "sinew.Pose expected, got nil" for an argument of
 * another type; "pose of another skeleton than the clip's"; "too many parameters in one group" past
 * 2^24
 */
static int l_sample(lua_State *L) {
    group *g = check_group(L);
    sn_group_op op = blank(SN_GROUP_SAMPLE);
    op.cursor = (sn_clip_cursor *)sn_lua_checkobject(L, 2, SN_CLIP_CURSOR_MT);
    op.pose = sn_lua_checkpose(L, 3);
    op.n = lua_isnoneornil(L, 4) ? 1 : lua_toboolean(L, 4);
    op.slot = room_for(L, g, 1);
    append(L, g, &op);
    g->nparams += 1;
    keep(L, g, 2);
    keep(L, g, 3);
    lua_pushinteger(L, op.slot + 1);
    return 1;
}

/***
 * Adds "blend `poses` into `out` with the weights in parameters i to i + #poses - 1", as
 * `sinew.blend(out, poses, weights, masks, threshold, rotation)` does. Returns i.
 * @function Group:blend
 * @tparam Pose out
 * @tparam {Pose,...} poses the layers, of out's skeleton
 * @tparam[opt] Mask|{Mask|false,...} masks one mask for every layer, or one per layer
 * @tparam[opt=0.1] number threshold total weight (finite, > 0) below which the rest pose fills in
 * @tparam[opt="nlerp"] string rotation "nlerp", "karcher", "markley" or "power"
 * @treturn integer i, the index of its first weight in `params`
 * @raise "sinew.Pose expected, got nil" for `out`; when `poses` is not a table; "mask or table of
 * masks expected, got number", "sinew.Mask expected, got table"; "layer 2 is not a sinew.Pose (got
 * table)", "mask 2 is not a sinew.Mask (got table)"; for a `threshold` that is not a finite number,
 * "threshold must be finite and > 0"; "invalid option 'x'" for `rotation`; "too many layers" (more
 * than 2^20); "layer 2 is a pose of another skeleton", "mask 2 is of another skeleton"; "more than
 * 64 layers" for a rotation other than "nlerp"; "too many parameters in one group" past 2^24
 */
static int l_blend(lua_State *L) {
    static const char *const methods[] = {"nlerp", "karcher", "markley", "power", NULL};
    group *g = check_group(L);
    sn_group_op op = blank(SN_GROUP_BLEND);
    int n, i, masks = lua_type(L, 4);
    const sn_mask *all = NULL;
    op.pose = sn_lua_checkpose(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    n = (int)sn_lua_rawlen(L, 3);
    if (masks == LUA_TUSERDATA) all = sn_lua_checkmask(L, 4);
    else if (masks != LUA_TNIL && masks != LUA_TNONE && masks != LUA_TTABLE)
        return luaL_argerror(L, 4, lua_pushfstring(L, "mask or table of masks expected, got %s", luaL_typename(L, 4)));
    op.threshold = (float)sn_lua_optfinite(L, 5, SN_BLEND_THRESHOLD);
    op.method = (sn_blend_method)luaL_checkoption(L, 6, "nlerp", methods);
    if (n > (1 << 20)) return luaL_argerror(L, 3, "too many layers");
    if (g->nl + n > g->lcap) {
        int cap = g->lcap < 16 ? 16 : g->lcap;
        while (cap < g->nl + n) cap *= 2;
        g->layers = (sn_blend_layer *)grow(L, "layers", g->layers, sizeof(sn_blend_layer) * (size_t)g->nl,
                                           sizeof(sn_blend_layer) * (size_t)cap);
        g->lcap = cap;
    }
    keep(L, g, 2);
    if (all != NULL) keep(L, g, 4);
    /* layers written past nl count once the operation is accepted; each pose and mask is kept as
       it is read, before anything else allocates (a finaliser run by a collection could empty the
       tables), so a refused operation may leave some kept */
    for (i = 0; i < n; i++) {
        sn_blend_layer *l = &g->layers[g->nl + i];
        lua_rawgeti(L, 3, i + 1);
        l->pose = (const sn_pose *)sn_lua_testobject(L, -1, SN_POSE_MT);
        if (l->pose == NULL)
            return luaL_argerror(L, 3, lua_pushfstring(L, "layer %d is not a %s (got %s)", i + 1, SN_POSE_MT,
                                                       luaL_typename(L, -1)));
        keep(L, g, lua_gettop(L));
        l->weight = 0.0f;
        l->mask = all;
        if (masks == LUA_TTABLE) {
            lua_rawgeti(L, 4, i + 1);
            if (lua_toboolean(L, -1)) {
                l->mask = (const sn_mask *)sn_lua_testobject(L, -1, SN_MASK_MT);
                if (l->mask == NULL)
                    return luaL_argerror(L, 4, lua_pushfstring(L, "mask %d is not a %s (got %s)", i + 1, SN_MASK_MT,
                                                               luaL_typename(L, -1)));
                keep(L, g, lua_gettop(L));
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    op.n = n;
    op.layer = g->nl;
    op.slot = room_for(L, g, n);
    append(L, g, &op);
    g->nl += n;
    g->nparams += n;
    lua_pushinteger(L, op.slot + 1);
    return 1;
}

/***
 * Adds "build the model-space matrices `mats` from `pose`", as `pose:to_model(mats)` does.
 * @function Group:to_model
 * @tparam Pose pose
 * @tparam Matrices mats of the pose's skeleton
 * @raise "sinew.Pose expected, got nil" or "sinew.Matrices expected, got nil" for an argument of
 * another type; "matrices of another skeleton"
 */
static int l_to_model(lua_State *L) {
    group *g = check_group(L);
    sn_group_op op = blank(SN_GROUP_TO_MODEL);
    op.pose = sn_lua_checkpose(L, 2);
    op.mats = (sn_matrices *)sn_lua_checkobject(L, 3, SN_MATRICES_MT);
    append(L, g, &op);
    keep(L, g, 2);
    keep(L, g, 3);
    return 0;
}

/***
 * Adds "advance the chain by the run's dt", as `chain:step(dt)` does.
 * @function Group:step
 * @tparam Chain chain
 * @raise "sinew.Chain expected, got nil" when `chain` is not a Chain
 */
static int l_step(lua_State *L) {
    group *g = check_group(L);
    sn_group_op op = blank(SN_GROUP_STEP);
    op.chain = (sn_chain *)sn_lua_checkobject(L, 2, SN_CHAIN_MT);
    append(L, g, &op);
    keep(L, g, 2);
    return 0;
}

/***
 * Adds "update the skeleton chain from `pose` by the run's dt", as `chain:update(dt, pose)` does
 * (no root matrix: the model space is the world).
 * @function Group:update
 * @tparam Chain chain a chain of a skeleton
 * @tparam Pose pose of the chain's skeleton
 * @raise "sinew.Chain expected, got nil" or "sinew.Pose expected, got nil" for an argument of
 * another type; "update needs a chain of a skeleton"; "pose of another skeleton than the chain's"
 */
static int l_update(lua_State *L) {
    group *g = check_group(L);
    sn_group_op op = blank(SN_GROUP_UPDATE);
    op.chain = (sn_chain *)sn_lua_checkobject(L, 2, SN_CHAIN_MT);
    op.pose = sn_lua_checkpose(L, 3);
    if (!sn_chain_has_skeleton(op.chain)) return luaL_argerror(L, 2, "update needs a chain of a skeleton");
    sn_lua_pushskeleton(L, 2);
    sn_lua_pushskeleton(L, 3);
    if (!lua_rawequal(L, -1, -2)) return luaL_argerror(L, 3, "pose of another skeleton than the chain's");
    lua_pop(L, 2);
    append(L, g, &op);
    keep(L, g, 2);
    keep(L, g, 3);
    return 0;
}

/***
 * Runs every operation in order, in one call: `dt` for the chains, and `params` for the sample
 * times and blend weights. Everything is checked before anything moves; a chain refusing its pose
 * part way (a joint placed out of range) stops the run there, the operations before it having
 * run. No garbage.
 * @function Group:run
 * @tparam number dt seconds (finite, >= 0)
 * @tparam {number,...} params at least `group:params()` numbers: sample times in seconds (finite),
 * blend weights (finite, >= 0, relative)
 * @raise for a `dt` that is not a number; when `params` is not a table; "parameter 3 is not a
 * number (got string)"; "dt must be finite and >= 0"; "operation 2 (sample) reads parameter 5 of 4"
 * (too few parameters); "operation 2 (blend): parameter 3 is not finite" (or "a negative weight",
 * "too large for a float"); "operation 4 (update): joint 'x' of the pose is placed out of range
 * (-1e+09 .. 1e+09)" (or another fault of that call, named by its operation)
 */
static int l_run(lua_State *L) {
    group *g = check_group(L);
    double dt = luaL_checknumber(L, 2);
    int i, n;
    sn_error err;
    luaL_checktype(L, 3, LUA_TTABLE);
    n = (int)sn_lua_rawlen(L, 3);
    if (n > g->nparams) n = g->nparams;
    for (i = 0; i < n; i++) {
        lua_rawgeti(L, 3, i + 1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            return luaL_argerror(L, 3, lua_pushfstring(L, "parameter %d is not a number (got %s)", i + 1,
                                                       luaL_typename(L, -1)));
        g->params[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    if (sn_group_run(g->ops, g->n, g->layers, dt, g->params, n, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/***
 * The number of parameters the operations read: `params` of `run` needs at least as many.
 * @function Group:params
 * @treturn integer
 * @raise never
 */
static int l_params(lua_State *L) {
    lua_pushinteger(L, check_group(L)->nparams);
    return 1;
}

static int l_len(lua_State *L) {
    lua_pushinteger(L, check_group(L)->n);
    return 1;
}

static int l_tostring(lua_State *L) {
    group *g = check_group(L);
    lua_pushfstring(L, "sinew.Group (%d operations, %d parameters): %p", g->n, g->nparams, (void *)g);
    return 1;
}

void sn_open_group(lua_State *L, int module) {
    static const luaL_Reg methods[] = {{"sample", l_sample}, {"blend", l_blend},   {"to_model", l_to_model},
                                       {"step", l_step},     {"update", l_update}, {"run", l_run},
                                       {"params", l_params}, {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__len", l_len}, {"__tostring", l_tostring}, {NULL, NULL}};
    sn_lua_newclass(L, TNAME, methods, meta);
    lua_pushcfunction(L, l_group);
    lua_setfield(L, module, "group");
}
