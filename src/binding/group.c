/***
 * Groups: many characters' per-frame work in one call.
 *
 * A group holds a list of operations on sinew objects, added once: sample a clip through a
 * cursor, blend poses, build model-space matrices, step or update a chain. `group:run(dt, params)`
 * runs them all in order, in one call, reading the numbers that change every frame (sample times,
 * blend weights) from the array `params`: each `sample` and `blend` returns the index of its
 * first parameter there. The operations are the same core calls as one call per object, so the
 * results are the same, bit for bit. A group keeps the objects it was given alive. Its methods
 * may be called from anywhere, a `__gc` finaliser included, even one that runs while the same
 * group grows: each operation is added whole, before or after the other.
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
   "ops", "layers", "params"), whose array part holds, at index i, a table anchoring every object
   operation i names.

   Re-entry: any allocation may run a collection, and its finalisers may call this group's
   methods (a mod's `__gc` calling `g:blend`). So a method that adds an operation makes every
   allocation it needs first (the anchor table, then the room in the arrays, which `reserve`
   grows by copying what the group holds after the new block is made), and only then reads the
   group's counts, fills its operation and commits it, with no allocation that can collect in
   between (lua_rawgeti and lua_rawseti into a table sized beforehand allocate nothing; only
   raising does, and a raise commits nothing). A finaliser's call thus lands wholly before or
   wholly after, and both operations are kept. */
typedef struct group {
    sn_group_op *ops;
    int n, cap;
    sn_blend_layer *layers;
    int nl, lcap;
    double *params;
    int pcap;
    int nparams; /* parameter slots handed out */
} group;

static group *check_group(lua_State *L) { return (group *)sn_lua_checkobject(L, 1, TNAME); }

/* a new zeroed block of `bytes`, left on the stack (making it may collect: finalisers may
   re-enter the group) */
static void *new_block(lua_State *L, size_t bytes) {
    void *p = sn_lua_newuserdata(L, bytes);
    memset(p, 0, bytes);
    return p;
}

/* keeps the block on top of the stack in field `name` of the group's uservalue and pops it; the
   block it replaces becomes garbage, so this is called only once that block's contents are
   copied (the field exists since creation: no new key, nothing collected) */
static void adopt(lua_State *L, const char *name) {
    sn_lua_getuservalue(L, 1);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, name);
    lua_pop(L, 2);
}

static int grown(int cap, int need, int least) {
    if (cap < least) cap = least;
    while (cap < need) cap *= 2;
    return cap;
}

/* makes room for `ops` more operations, `layers` more layers and `params` more parameters,
   raising past the parameter limit; on return all three fit at once. Each new block is made
   before the group's counts are read, since making it may run a finaliser that adds operations. */
static void reserve(lua_State *L, group *g, int ops, int layers, int params) {
    for (;;) {
        if (params > (1 << 24) - g->nparams) sn_lua_errorf(L, "too many parameters in one group");
        if (g->n + ops > g->cap) {
            int cap = grown(g->cap, g->n + ops, 16);
            sn_group_op *p = (sn_group_op *)new_block(L, sizeof(sn_group_op) * (size_t)cap);
            if (g->n + ops <= cap) { /* else a finaliser grew the group further meanwhile: p is dropped */
                if (g->n > 0) memcpy(p, g->ops, sizeof(sn_group_op) * (size_t)g->n);
                g->ops = p;
                g->cap = cap;
                adopt(L, "ops");
            } else {
                lua_pop(L, 1);
            }
        } else if (g->nl + layers > g->lcap) {
            int cap = grown(g->lcap, g->nl + layers, 16);
            sn_blend_layer *p = (sn_blend_layer *)new_block(L, sizeof(sn_blend_layer) * (size_t)cap);
            if (g->nl + layers <= cap) {
                /* the operations name their layers by index: they move with the block */
                if (g->nl > 0) memcpy(p, g->layers, sizeof(sn_blend_layer) * (size_t)g->nl);
                g->layers = p;
                g->lcap = cap;
                adopt(L, "layers");
            } else {
                lua_pop(L, 1);
            }
        } else if (g->nparams + params > g->pcap) {
            int cap = grown(g->pcap, g->nparams + params, 64);
            double *p = (double *)new_block(L, sizeof(double) * (size_t)cap);
            if (g->nparams + params <= cap) { /* the parameters are written by each run: nothing to copy */
                g->params = p;
                g->pcap = cap;
                adopt(L, "params");
            } else {
                lua_pop(L, 1);
            }
        } else {
            return;
        }
    }
}

/* a new table at the top of the stack with room for `n` anchored objects (made before anything
   of the group is read: making it may run finalisers) */
static int new_anchor(lua_State *L, int n) {
    lua_createtable(L, n, 0);
    return lua_gettop(L);
}

/* anchors the value at `idx` as entry k of the anchor table at `anchor` (sized for it: allocates
   nothing) */
static void anchor_value(lua_State *L, int anchor, int k, int idx) {
    lua_pushvalue(L, idx);
    lua_rawseti(L, anchor, k);
}

/* checks `op` (raising on argument 2 with the core's message, which commits nothing), then
   commits it with its anchor table (at `anchor`) and its `params` parameter slots; no allocation
   that can collect happens between the caller's last `reserve` and here */
static void commit(lua_State *L, group *g, const sn_group_op *op, int anchor, int params) {
    sn_error err;
    if (sn_group_check_op(op, g->layers, &err) != SN_OK) sn_lua_raise(L, &err, 1);
    sn_lua_getuservalue(L, 1);
    lua_pushvalue(L, anchor);
    lua_rawseti(L, -2, g->n + 1); /* may grow the table's array part: no collection step */
    lua_pop(L, 1);
    g->ops[g->n++] = *op;
    if (op->kind == SN_GROUP_BLEND) g->nl += op->n;
    g->nparams += params;
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
    lua_createtable(L, 0, 3); /* the blocks' fields exist from here on, so replacing one adds no key */
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "ops");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "layers");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "params");
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
    int anchor;
    op.cursor = (sn_clip_cursor *)sn_lua_checkobject(L, 2, SN_CLIP_CURSOR_MT);
    op.pose = sn_lua_checkpose(L, 3);
    op.n = lua_isnoneornil(L, 4) ? 1 : lua_toboolean(L, 4);
    anchor = new_anchor(L, 2);
    reserve(L, g, 1, 0, 1);
    anchor_value(L, anchor, 1, 2);
    anchor_value(L, anchor, 2, 3);
    op.slot = g->nparams;
    commit(L, g, &op, anchor, 1);
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
    int n, i, k, anchor, masks = lua_type(L, 4);
    const sn_mask *all = NULL;
    op.pose = sn_lua_checkpose(L, 2);
    sn_lua_checktype(L, 3, LUA_TTABLE);
    if (masks == LUA_TUSERDATA) all = sn_lua_checkmask(L, 4);
    else if (masks != LUA_TNIL && masks != LUA_TNONE && masks != LUA_TTABLE)
        return sn_lua_argerror(L, 4, lua_pushfstring(L, "mask or table of masks expected, got %s", luaL_typename(L, 4)));
    op.threshold = (float)sn_lua_optfinite(L, 5, SN_BLEND_THRESHOLD);
    op.method = (sn_blend_method)sn_lua_checkoption(L, 6, "nlerp", methods);
    n = (int)sn_lua_rawlen(L, 3);
    if (n > (1 << 20)) return sn_lua_argerror(L, 3, "too many layers");
    anchor = new_anchor(L, 2 * n + 2);
    reserve(L, g, 1, n, n);
    /* from here to the commit nothing collects, so the tables read now are the tables checked
       (a finaliser run by the allocations above may have changed them: what counts is what they
       hold now, and `n` is read again) */
    if ((int)sn_lua_rawlen(L, 3) != n) return sn_lua_argerror(L, 3, "the layers changed while the group grew");
    anchor_value(L, anchor, 1, 2);
    k = 1;
    if (all != NULL) anchor_value(L, anchor, ++k, 4);
    for (i = 0; i < n; i++) {
        sn_blend_layer *l = &g->layers[g->nl + i];
        lua_rawgeti(L, 3, i + 1);
        l->pose = (const sn_pose *)sn_lua_testobject(L, -1, SN_POSE_MT);
        if (l->pose == NULL)
            return sn_lua_argerror(L, 3, lua_pushfstring(L, "layer %d is not a %s (got %s)", i + 1, SN_POSE_MT,
                                                       sn_lua_typename_of(L, -1)));
        lua_rawseti(L, anchor, ++k);
        l->weight = 0.0f;
        l->mask = all;
        if (masks == LUA_TTABLE) {
            lua_rawgeti(L, 4, i + 1);
            if (lua_toboolean(L, -1)) {
                l->mask = (const sn_mask *)sn_lua_testobject(L, -1, SN_MASK_MT);
                if (l->mask == NULL)
                    return sn_lua_argerror(L, 4, lua_pushfstring(L, "mask %d is not a %s (got %s)", i + 1, SN_MASK_MT,
                                                               sn_lua_typename_of(L, -1)));
                lua_rawseti(L, anchor, ++k);
            } else {
                lua_pop(L, 1);
            }
        }
    }
    op.n = n;
    op.layer = g->nl;
    op.slot = g->nparams;
    commit(L, g, &op, anchor, n);
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
    int anchor;
    op.pose = sn_lua_checkpose(L, 2);
    op.mats = (sn_matrices *)sn_lua_checkobject(L, 3, SN_MATRICES_MT);
    anchor = new_anchor(L, 2);
    reserve(L, g, 1, 0, 0);
    anchor_value(L, anchor, 1, 2);
    anchor_value(L, anchor, 2, 3);
    commit(L, g, &op, anchor, 0);
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
    int anchor;
    op.chain = (sn_chain *)sn_lua_checkobject(L, 2, SN_CHAIN_MT);
    anchor = new_anchor(L, 1);
    reserve(L, g, 1, 0, 0);
    anchor_value(L, anchor, 1, 2);
    commit(L, g, &op, anchor, 0);
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
    int anchor;
    op.chain = (sn_chain *)sn_lua_checkobject(L, 2, SN_CHAIN_MT);
    op.pose = sn_lua_checkpose(L, 3);
    if (!sn_chain_has_skeleton(op.chain)) return sn_lua_argerror(L, 2, "update needs a chain of a skeleton");
    sn_lua_pushskeleton(L, 2);
    sn_lua_pushskeleton(L, 3);
    if (!lua_rawequal(L, -1, -2)) return sn_lua_argerror(L, 3, "pose of another skeleton than the chain's");
    lua_pop(L, 2);
    anchor = new_anchor(L, 2);
    reserve(L, g, 1, 0, 0);
    anchor_value(L, anchor, 1, 2);
    anchor_value(L, anchor, 2, 3);
    commit(L, g, &op, anchor, 0);
    return 0;
}

/***
 * Adds "pose the 2-D rig at the time in parameter i of the animation", as the rig's own update at
 * that time does (its timelines, IK, world matrices, slots; no events: for rigs a game times
 * itself, crowds that loop). Returns i. From Lua, `rig:group(group, name [, loop])` adds one.
 * @function Group:rig2d
 * @tparam Rig2D rig a rig's core object
 * @tparam Anim2D anim an animation of its armature
 * @tparam[opt=true] boolean loop the last key tweens toward the first (a looping play)
 * @treturn integer i, the index of its time (seconds within the animation) in `params`
 * @raise "sinew.Rig2D expected, got nil", "sinew.Anim2D expected, got nil"; "an animation of
 * another armature than the rig's"; "too many parameters in one group" past 2^24
 */
static int l_rig2d(lua_State *L) {
    group *g = check_group(L);
    sn_group_op op = blank(SN_GROUP_RIG2D);
    int anchor;
    op.rig = (sn_rig2d *)sn_lua_checkobject(L, 2, SN_RIG2D_MT);
    op.anim = (const sn_anim2d *)sn_lua_checkobject(L, 3, SN_ANIM2D_MT);
    op.n = lua_isnoneornil(L, 4) ? 1 : lua_toboolean(L, 4);
    anchor = new_anchor(L, 2);
    reserve(L, g, 1, 0, 1);
    anchor_value(L, anchor, 1, 2);
    anchor_value(L, anchor, 2, 3);
    op.slot = g->nparams;
    commit(L, g, &op, anchor, 1);
    lua_pushinteger(L, op.slot + 1);
    return 1;
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
    double dt = sn_lua_checknumber(L, 2);
    int i, n;
    sn_error err;
    sn_lua_checktype(L, 3, LUA_TTABLE);
    n = (int)sn_lua_rawlen(L, 3);
    if (n > g->nparams) n = g->nparams;
    for (i = 0; i < n; i++) {
        lua_rawgeti(L, 3, i + 1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            return sn_lua_argerror(L, 3, lua_pushfstring(L, "parameter %d is not a number (got %s)", i + 1,
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
                                       {"step", l_step},     {"update", l_update}, {"rig2d", l_rig2d}, {"run", l_run},
                                       {"params", l_params}, {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__len", l_len}, {"__tostring", l_tostring}, {NULL, NULL}};
    sn_lua_newclass(L, TNAME, methods, meta);
    lua_pushcfunction(L, l_group);
    lua_setfield(L, module, "group");
}
