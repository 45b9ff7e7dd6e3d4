/***
 * Poses, blending, additive layers, masks and model-space matrices.
 *
 * A pose holds one local transform per joint of its skeleton (translation, rotation quaternion
 * x, y, z, w and scale, stored as float32). Joints are 1-based or names. Per-frame calls (get,
 * set, blend, add, delta, to_model, mats:get) make no garbage.
 *
 * A method raises "sinew.Pose expected, got <type>" (or sinew.Mask, sinew.Matrices) when its
 * `self` is something else, as in `Pose.get(nil, 1)`; the methods' Raises sections leave that out.
 * @module sinew.pose
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "binding.h"

static sn_matrices *check_matrices(lua_State *L, int arg) {
    return (sn_matrices *)sn_lua_checkobject(L, arg, SN_MATRICES_MT);
}

sn_pose *sn_lua_checkpose(lua_State *L, int arg) { return (sn_pose *)sn_lua_checkobject(L, arg, SN_POSE_MT); }

sn_mask *sn_lua_checkmask(lua_State *L, int arg) { return (sn_mask *)sn_lua_checkobject(L, arg, SN_MASK_MT); }

/* a new userdata of `size` bytes with metatable `tname`, keeping the skeleton at `skel` alive */
static void *new_object(lua_State *L, size_t size, const char *tname, int skel) {
    void *mem = sn_lua_newuserdata(L, size);
    memset(mem, 0, size);
    sn_lua_setmetatable(L, tname);
    sn_lua_keepskeleton(L, -1, skel);
    return mem;
}

/* Pushes a new object of skeleton argument 1: its block (`size` bytes from the core, or 0 with
   the core's message in `err`) filled by `init`. */
#define NEW_OBJECT(L, tname, def, size_fn, init_fn)                                  \
    do {                                                                              \
        sn_error err_;                                                                \
        size_t size_ = size_fn(&(def), &err_);                                        \
        void *mem_;                                                                   \
        if (size_ == 0) return sn_lua_raise(L, &err_, 0);                             \
        mem_ = new_object(L, size_, tname, 1);                                        \
        if (init_fn(mem_, size_, &(def), &err_) != SN_OK) return sn_lua_raise(L, &err_, 0); \
    } while (0)

/* ---- poses ------------------------------------------------------------------------------ */

/***
 * A new pose of `skel`, set to its rest pose.
 * @function pose
 * @tparam Skeleton skel
 * @treturn Pose
 * @raise "sinew.Skeleton expected, got nil" when `skel` is not a Skeleton
 */
static int l_pose(lua_State *L) {
    sn_pose_def def;
    sn_pose_def_init(&def);
    def.skeleton = sn_lua_checkskeleton(L, 1);
    NEW_OBJECT(L, SN_POSE_MT, def, sn_pose_size, sn_pose_init);
    return 1;
}

static void push_floats(lua_State *L, const float *v, int n) {
    int i;
    for (i = 0; i < n; i++) lua_pushnumber(L, v[i]);
}

/* reads n finite numbers from argument `arg` on into v */
static void check_floats(lua_State *L, int arg, float *v, int n) {
    int i;
    for (i = 0; i < n; i++) {
        double x = sn_lua_checkfinite(L, arg + i);
        if (!sn_isfinite((float)x)) sn_lua_argerror(L, arg + i, "too large for a float");
        v[i] = (float)x;
    }
}

/* reads a rotation from `arg` .. arg+3 into q, normalised */
static void check_rotation(lua_State *L, int arg, float *q) {
    double x = sn_lua_checkfinite(L, arg), y = sn_lua_checkfinite(L, arg + 1), z = sn_lua_checkfinite(L, arg + 2),
           w = sn_lua_checkfinite(L, arg + 3), m, l;
    m = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
    m = fabs(z) > m ? fabs(z) : m;
    m = fabs(w) > m ? fabs(w) : m;
    if (m == 0.0) sn_lua_argerror(L, arg, "zero quaternion");
    x /= m; y /= m; z /= m; w /= m;
    l = sqrt(x * x + y * y + z * z + w * w);
    q[0] = (float)(x / l); q[1] = (float)(y / l); q[2] = (float)(z / l); q[3] = (float)(w / l);
}

/***
 * The transform of a joint, local to its parent: 10 numbers (float32 values).
 * @function Pose:get
 * @param joint index (1 .. #pose) or name
 * @return tx, ty, tz (model units), qx, qy, qz, qw (a unit quaternion), sx, sy, sz (factors)
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil")
 */
static int l_pose_get(lua_State *L) {
    sn_pose *p = sn_lua_checkpose(L, 1);
    float trs[10];
    sn_pose_get(p, sn_lua_checkjoint(L, 2, sn_pose_skeleton(p)), trs);
    push_floats(L, trs, 10);
    return 10;
}

/***
 * Sets the transform of a joint, local to its parent, from 10 numbers; the rotation is
 * normalised. Values are stored as float32.
 * @function Pose:set
 * @param joint index (1 .. #pose) or name
 * @tparam number tx translation, model units
 * @tparam number ty
 * @tparam number tz
 * @tparam number qx rotation quaternion (any non-zero length)
 * @tparam number qy
 * @tparam number qz
 * @tparam number qw
 * @tparam number sx scale factor
 * @tparam number sy
 * @tparam number sz
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil"); for a value that is not a finite
 * number, or is too large for a float ("too large for a float"); "zero quaternion"
 */
static int l_pose_set(lua_State *L) {
    sn_pose *p = sn_lua_checkpose(L, 1);
    int j = sn_lua_checkjoint(L, 2, sn_pose_skeleton(p));
    float trs[10];
    check_floats(L, 3, trs, 3);
    check_rotation(L, 6, trs + 3);
    check_floats(L, 10, trs + 7, 3);
    sn_pose_set(p, j, trs);
    return 0;
}

/* get or set `n` channels from `first` of joint argument 2 */
static int get_part(lua_State *L, int first, int n) {
    sn_pose *p = sn_lua_checkpose(L, 1);
    int j = sn_lua_checkjoint(L, 2, sn_pose_skeleton(p)), c;
    for (c = 0; c < n; c++) lua_pushnumber(L, sn_pose_channel(p, first + c)[j]);
    return n;
}

static int set_part(lua_State *L, int first, int n) {
    sn_pose *p = sn_lua_checkpose(L, 1);
    int j = sn_lua_checkjoint(L, 2, sn_pose_skeleton(p)), c;
    float v[4];
    if (first == SN_POSE_QX) check_rotation(L, 3, v);
    else check_floats(L, 3, v, n);
    for (c = 0; c < n; c++) sn_pose_channel(p, first + c)[j] = v[c];
    return 0;
}

/* a morph weight at `idx` for argument `arg`: a finite number within float range, or an error
   naming `what` */
static float check_morph_weight(lua_State *L, int idx, int arg, const char *what, int k) {
    double v;
    if (lua_type(L, idx) != LUA_TNUMBER) {
        if (k > 0)
            return (float)sn_lua_argerror(L, arg, lua_pushfstring(L, "%s %d is not a number (got %s)", what, k,
                                                                luaL_typename(L, idx)));
        return (float)sn_lua_argerror(L, arg, lua_pushfstring(L, "%s expected, got %s", what, luaL_typename(L, idx)));
    }
    v = lua_tonumber(L, idx);
    if (!sn_isfinite(v)) {
        if (k > 0) return (float)sn_lua_argerror(L, arg, lua_pushfstring(L, "%s %d is not finite", what, k));
        return (float)sn_lua_argerror(L, arg, "not a finite number");
    }
    if (!sn_isfinite((float)v)) {
        if (k > 0) return (float)sn_lua_argerror(L, arg, lua_pushfstring(L, "%s %d is too large for a float", what, k));
        return (float)sn_lua_argerror(L, arg, "too large for a float");
    }
    return (float)v;
}

/***
 * The weight of a morph target (blend shape): the skeleton's default until a clip, a blend or
 * `set_morph` changes it.
 * @function Pose:morph
 * @param morph index (1 .. skeleton:morph_count()) or name
 * @treturn number the weight (a float32 value; any finite number, not clamped to [0, 1])
 * @raise for a bad morph ("unknown morph 'x'", "morph 9 is out of range (1 .. 8)", "morph 1.5 is
 * not an integer" or "morph index or name expected, got nil")
 */
static int l_pose_morph(lua_State *L) {
    sn_pose *p = sn_lua_checkpose(L, 1);
    lua_pushnumber(L, sn_pose_morphs(p)[sn_lua_tomorph(L, 2, sn_pose_skeleton(p), 2)]);
    return 1;
}

/***
 * Sets the weight of a morph target (a blink, lip sync), stored as float32, not clamped.
 * @function Pose:set_morph
 * @param morph index (1 .. skeleton:morph_count()) or name
 * @tparam number weight any finite number
 * @raise for a bad morph (as Pose:morph); "morph weight expected, got string", "not a finite
 * number", "too large for a float"
 */
static int l_pose_set_morph(lua_State *L) {
    sn_pose *p = sn_lua_checkpose(L, 1);
    int m = sn_lua_tomorph(L, 2, sn_pose_skeleton(p), 2);
    float w = check_morph_weight(L, 3, 3, "morph weight", 0);
    sn_pose_morphs(p)[m] = w;
    return 0;
}

/***
 * Every morph weight in morph order, written into `out` or a new table.
 *
 * Entries 1 to morph_count are written, others left as they are. No garbage when `out` is given.
 * @function Pose:morphs
 * @tparam[opt] table out
 * @treturn {number,...} `out` or a new list
 * @raise "table expected, got number" for `out`
 */
static int l_pose_morphs(lua_State *L) {
    sn_pose *p = sn_lua_checkpose(L, 1);
    const float *w = sn_pose_morphs_const(p);
    int n = sn_skeleton_morph_count(sn_pose_skeleton(p)), m;
    if (lua_isnoneornil(L, 2)) {
        lua_settop(L, 1);
        lua_createtable(L, n, 0);
    } else {
        sn_lua_checktype(L, 2, LUA_TTABLE);
        lua_settop(L, 2);
    }
    for (m = 0; m < n; m++) {
        lua_pushnumber(L, w[m]);
        lua_rawseti(L, 2, m + 1);
    }
    return 1;
}

/***
 * Sets every morph weight from a list of morph_count finite numbers (all checked before any is
 * written).
 * @function Pose:set_morphs
 * @tparam {number,...} weights one per morph, in morph order
 * @raise "table expected, got nil"; "2 morph weights expected, got 3"; "morph weight 2 is not a
 * number (got string)", "morph weight 2 is not finite", "morph weight 2 is too large for a float"
 */
static int l_pose_set_morphs(lua_State *L) {
    sn_pose *p = sn_lua_checkpose(L, 1);
    int n = sn_skeleton_morph_count(sn_pose_skeleton(p)), m;
    float *w = sn_pose_morphs(p);
    sn_lua_checktype(L, 2, LUA_TTABLE);
    if ((int)sn_lua_rawlen(L, 2) != n)
        return sn_lua_argerror(L, 2, lua_pushfstring(L, "%d morph weights expected, got %d", n, (int)sn_lua_rawlen(L, 2)));
    for (m = 0; m < n; m++) { /* checked first: a refused call changes nothing */
        lua_rawgeti(L, 2, m + 1);
        (void)check_morph_weight(L, -1, 2, "morph weight", m + 1);
        lua_pop(L, 1);
    }
    for (m = 0; m < n; m++) {
        lua_rawgeti(L, 2, m + 1);
        w[m] = (float)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    return 0;
}

/***
 * Translation of a joint, local to its parent: 3 numbers.
 * @function Pose:get_translation
 * @param joint index (1 .. #pose) or name
 * @return x, y, z in model units
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil")
 */
static int l_pose_get_translation(lua_State *L) { return get_part(L, SN_POSE_TX, 3); }
/***
 * Rotation of a joint, local to its parent: 4 numbers x, y, z, w.
 * @function Pose:get_rotation
 * @param joint index (1 .. #pose) or name
 * @return x, y, z, w: a unit quaternion
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil")
 */
static int l_pose_get_rotation(lua_State *L) { return get_part(L, SN_POSE_QX, 4); }
/***
 * Scale of a joint: 3 numbers.
 * @function Pose:get_scale
 * @param joint index (1 .. #pose) or name
 * @return x, y, z: factors
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil")
 */
static int l_pose_get_scale(lua_State *L) { return get_part(L, SN_POSE_SX, 3); }
/***
 * Sets the translation of a joint, local to its parent (stored as float32).
 * @function Pose:set_translation
 * @param joint index (1 .. #pose) or name
 * @tparam number x model units
 * @tparam number y
 * @tparam number z
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil"); for a value that is not a finite
 * number, or is too large for a float ("too large for a float")
 */
static int l_pose_set_translation(lua_State *L) { return set_part(L, SN_POSE_TX, 3); }
/***
 * Sets the rotation of a joint, local to its parent (normalised, stored as float32).
 * @function Pose:set_rotation
 * @param joint index (1 .. #pose) or name
 * @tparam number x quaternion (any non-zero length)
 * @tparam number y
 * @tparam number z
 * @tparam number w
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil"); for an argument that is not a finite
 * number; "zero quaternion"
 */
static int l_pose_set_rotation(lua_State *L) { return set_part(L, SN_POSE_QX, 4); }
/***
 * Sets the scale of a joint (stored as float32).
 * @function Pose:set_scale
 * @param joint index (1 .. #pose) or name
 * @tparam number x factor
 * @tparam number y
 * @tparam number z
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil"); for a value that is not a finite
 * number, or is too large for a float ("too large for a float")
 */
static int l_pose_set_scale(lua_State *L) { return set_part(L, SN_POSE_SX, 3); }

/***
 * Copies `other` (a pose of the same skeleton, its morph weights too) into this pose; returns this pose.
 * @function Pose:copy
 * @tparam Pose other
 * @treturn Pose the pose
 * @raise "sinew.Pose expected, got nil" when `other` is not a Pose; "pose of another skeleton"
 */
static int l_pose_copy(lua_State *L) {
    sn_pose *p = sn_lua_checkpose(L, 1), *o = sn_lua_checkpose(L, 2);
    if (sn_pose_skeleton(p) != sn_pose_skeleton(o)) return sn_lua_argerror(L, 2, "pose of another skeleton");
    (void)sn_pose_copy(o, p, NULL);
    lua_settop(L, 1);
    return 1;
}

/***
 * Sets every joint back to the rest pose and every morph weight to its default; returns this pose.
 * @function Pose:reset
 * @treturn Pose the pose
 * @raise never
 */
static int l_pose_reset(lua_State *L) {
    sn_pose_reset(sn_lua_checkpose(L, 1));
    lua_settop(L, 1);
    return 1;
}

/***
 * Adds an additive layer: per joint with w = weight * mask weight, rotation = rotation *
 * slerp(identity, delta, w), translation += w * delta, scale *= 1 + w (delta - 1) (divided by
 * 1 + |w| (delta - 1) for w < 0). A negative weight subtracts: add(d, w) then add(d, -w) gives
 * the pose back. Returns this pose. A refused call changes nothing.
 * @function Pose:add
 * @tparam Pose delta a delta pose (see `sinew.delta`)
 * @tparam number weight any finite number (1 adds the whole delta, negative subtracts)
 * @tparam[opt] Mask mask per-joint weights (0 .. 1) that multiply `weight`
 * @treturn Pose the pose
 * @raise "sinew.Pose expected" or "sinew.Mask expected" for an argument of another type; "not a
 * finite number" for `weight`; "delta pose of another skeleton", "mask of another skeleton"; "the
 * layer takes the translation of joint 3 out of the float range" (or the scale); "subtracting the
 * scale of joint 3 divides by zero"
 */
static int l_pose_add(lua_State *L) {
    sn_pose *p = sn_lua_checkpose(L, 1), *d = sn_lua_checkpose(L, 2);
    double w = sn_lua_checkfinite(L, 3);
    const sn_mask *m = lua_isnoneornil(L, 4) ? NULL : sn_lua_checkmask(L, 4);
    sn_error err;
    if (sn_pose_add(p, d, (float)w, m, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    lua_settop(L, 1);
    return 1;
}

/***
 * Fills the model-space matrices `mats` (of the same skeleton) from this pose, walking the
 * joints once: model(j) = model(parent) * T * R * S.
 * @function Pose:to_model
 * @tparam Matrices mats
 * @treturn Matrices mats
 * @raise "sinew.Matrices expected, got nil" when `mats` is not Matrices; "matrices of another
 * skeleton"
 */
static int l_pose_to_model(lua_State *L) {
    sn_pose *p = sn_lua_checkpose(L, 1);
    sn_matrices *m = check_matrices(L, 2);
    sn_error err;
    if (sn_pose_to_matrices(p, m, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    lua_settop(L, 2);
    return 1;
}

/***
 * The skeleton of this object (poses, masks and matrices all have this method).
 * @function Pose:skeleton
 * @treturn Skeleton
 * @raise never
 */
static int l_skeleton_of(lua_State *L) {
    (void)sn_lua_checkself(L); /* a Pose, Mask or Matrices: each keeps its skeleton */
    sn_lua_pushskeleton(L, 1);
    return 1;
}

/* the skeleton of self, a Pose, Mask or Matrices (the class in upvalue 1) */
static const sn_skeleton *skeleton_of_self(lua_State *L) {
    (void)sn_lua_checkself(L);
    sn_lua_pushskeleton(L, 1);
    return sn_lua_checkskeleton(L, lua_gettop(L));
}

/* __len of poses, masks and matrices: their skeleton's joints */
static int l_object_len(lua_State *L) {
    lua_pushinteger(L, sn_skeleton_count(skeleton_of_self(L)));
    return 1;
}

/* __tostring of poses, masks and matrices: "sinew.Pose (3 joints): 0x..." */
static int l_object_tostring(lua_State *L) {
    const sn_skeleton *s = skeleton_of_self(L);
    lua_pushfstring(L, "%s (%d joints): %p", lua_tostring(L, lua_upvalueindex(1)), sn_skeleton_count(s),
                    lua_touserdata(L, 1));
    return 1;
}

/* ---- blend and delta -------------------------------------------------------------------- */

/* the userdata at idx when its metatable is upvalue `up`, else NULL */
static void *fast_udata(lua_State *L, int idx, int up) {
    void *p = lua_touserdata(L, idx);
    if (p == NULL || !lua_getmetatable(L, idx)) return NULL;
    if (!lua_rawequal(L, -1, lua_upvalueindex(up))) p = NULL;
    lua_pop(L, 1);
    return p;
}

/***
 * Blends normal layers into `out`: `sinew.blend(out, {p1, p2, ...}, {w1, w2, ...} [, masks
 * [, threshold [, rotation]]])`.
 *
 * Weights are finite and >= 0 and are normalised per joint; a mask multiplies its layer's
 * weight joint by joint. `masks` is one Mask for every layer, or a table whose entry i is the
 * Mask of layer i (nil or false for none). Translations and scales are weighted means; rotations
 * are summed with each layer's sign chosen in the hemisphere of the sum so far, then normalised.
 * Where a joint's total weight is below `threshold` (default 0.1, as ozz-animation) the rest
 * pose fills in the difference. `out` may also be one of the layers. `rotation` chooses how each
 * joint's rotations are averaged: "nlerp" (the default, above), "karcher" (weighted geodesic
 * mean), "markley" (eigenvector method) or "power" (q1^w1 * q2^w2 * ..., in layer order), the
 * last three per joint in double, for at most 64 layers with weight. Returns `out`.
 * @function blend
 * @tparam Pose out
 * @tparam table layers poses of out's skeleton
 * @tparam table weights one number per layer, finite and >= 0 (relative: normalised per joint)
 * @param[opt] masks Mask or table of masks (weights 0 .. 1 per joint)
 * @tparam[opt=0.1] number threshold total weight (finite, > 0) below which the rest pose fills in
 * @tparam[opt="nlerp"] string rotation "nlerp", "karcher", "markley" or "power"
 * @treturn Pose out
 * @raise "sinew.Pose expected, got nil" for `out`; when `layers` or `weights` is not a table; "3
 * weights for 2 layers"; "layer 2 is not a sinew.Pose (got table)", "weight 2 is not a number (got
 * string)", "mask or table of masks expected, got number", "mask 2 is not a sinew.Mask (got
 * table)"; for a `threshold` that is not a finite number; "invalid option 'x'" for `rotation`; and
 * the core's refusals: "layer 2 is a pose of another skeleton", "weight 2 is not finite", "weight 2
 * is negative", "mask 2 is a mask of another skeleton", "threshold must be a finite number above
 * 0", "70 layers with weight: at most 64 average rotations other than by nlerp"
 */
static int l_blend(lua_State *L) {
    static const char *const rotation_methods[] = {"nlerp", "karcher", "markley", "power", NULL}; /* sn_blend_method */
    sn_pose *out = (sn_pose *)fast_udata(L, 1, 2);
    int n, i, masks_type;
    sn_blend_layer *layers;
    const sn_mask *all = NULL;
    float threshold;
    sn_blend_method method;
    sn_error err;
    if (out == NULL) out = sn_lua_checkpose(L, 1);
    sn_lua_checktype(L, 2, LUA_TTABLE);
    sn_lua_checktype(L, 3, LUA_TTABLE);
    n = (int)sn_lua_rawlen(L, 2);
    if ((int)sn_lua_rawlen(L, 3) != n)
        return sn_lua_argerror(L, 3, lua_pushfstring(L, "%d weights for %d layers", (int)sn_lua_rawlen(L, 3), n));
    masks_type = lua_type(L, 4);
    if (masks_type == LUA_TUSERDATA) {
        all = (const sn_mask *)fast_udata(L, 4, 3);
        if (all == NULL) all = sn_lua_checkmask(L, 4);
    } else if (masks_type != LUA_TNIL && masks_type != LUA_TNONE && masks_type != LUA_TTABLE) {
        return sn_lua_argerror(L, 4, lua_pushfstring(L, "mask or table of masks expected, got %s", luaL_typename(L, 4)));
    }
    threshold = (float)sn_lua_optfinite(L, 5, SN_BLEND_THRESHOLD);
    method = (sn_blend_method)sn_lua_checkoption(L, 6, "nlerp", rotation_methods);
    layers = (sn_blend_layer *)sn_lua_scratch(L, 1, sizeof(sn_blend_layer) * (size_t)(n > 0 ? n : 1));
    for (i = 0; i < n; i++) {
        sn_blend_layer *l = &layers[i];
        lua_rawgeti(L, 2, i + 1);
        l->pose = (const sn_pose *)fast_udata(L, -1, 2);
        if (l->pose == NULL)
            return sn_lua_argerror(L, 2, lua_pushfstring(L, "layer %d is not a %s (got %s)", i + 1, SN_POSE_MT,
                                                       sn_lua_typename_of(L, -1)));
        lua_rawgeti(L, 3, i + 1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            return sn_lua_argerror(L, 3, lua_pushfstring(L, "weight %d is not a number (got %s)", i + 1,
                                                       luaL_typename(L, -1)));
        l->weight = (float)lua_tonumber(L, -1);
        l->mask = all;
        if (masks_type == LUA_TTABLE) {
            lua_rawgeti(L, 4, i + 1);
            if (lua_toboolean(L, -1)) {
                l->mask = (const sn_mask *)fast_udata(L, -1, 3);
                if (l->mask == NULL)
                    return sn_lua_argerror(L, 4, lua_pushfstring(L, "mask %d is not a %s (got %s)", i + 1, SN_MASK_MT,
                                                               sn_lua_typename_of(L, -1)));
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 2);
    }
    if (sn_pose_blend_method(out, layers, n, threshold, method, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    lua_settop(L, 1);
    return 1;
}

/***
 * `out` = `pose` relative to `reference`: the delta that `reference:add(out, 1)` turns back into
 * `pose`. Rotation conj(ref) * pose, translation pose - ref, scale pose / ref. `out` may be
 * `pose` or `reference`. Morph weights: pose - ref. Returns `out`. A refused call changes nothing.
 * @function delta
 * @tparam Pose out
 * @tparam Pose pose
 * @tparam Pose reference
 * @treturn Pose out
 * @raise "sinew.Pose expected, got nil" for an argument that is not a Pose; "pose of another
 * skeleton", "reference pose of another skeleton"; "reference scale of joint 3 is zero"; "the delta
 * of joint 3 is out of the float range", "the delta of morph 2 is out of the float range"
 */
static int l_delta(lua_State *L) {
    sn_pose *out = sn_lua_checkpose(L, 1), *p = sn_lua_checkpose(L, 2), *r = sn_lua_checkpose(L, 3);
    sn_error err;
    if (sn_pose_delta(p, r, out, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    lua_settop(L, 1);
    return 1;
}

/* ---- masks ------------------------------------------------------------------------------ */

/* a mask weight: a number (the core checks its range; NaN and huge values become NaN or inf,
   which it refuses) */
static float check_mask_weight(lua_State *L, int idx, int arg) {
    if (lua_type(L, idx) != LUA_TNUMBER)
        sn_lua_argerror(L, arg, lua_pushfstring(L, "mask weight expected, got %s", luaL_typename(L, idx)));
    return (float)lua_tonumber(L, idx);
}

/* The morph factors of the mask at argument 4 (a table: morph name or index -> factor, or nil)
   into def, every other morph at argument 5's factor (def->morph_weight, already read), or the
   joints' default; the temporary array is pushed (7). */
static void read_mask_morphs(lua_State *L, const sn_skeleton *s, sn_mask_def *def) {
    int n = sn_skeleton_morph_count(s), m;
    float *w = (float *)sn_lua_newtemp(L, sizeof(float) * (size_t)(n > 0 ? n : 1)); /* 7 */
    sn_error err;
    const float all = def->has_morph_weight ? def->morph_weight : def->weight;
    for (m = 0; m < n; m++) w[m] = all;
    if (!lua_isnil(L, 4)) {
        lua_pushnil(L);
        while (lua_next(L, 4)) {
            m = sn_lua_tomorph(L, -2, s, 4);
            w[m] = check_mask_weight(L, -1, 4);
            lua_pop(L, 1);
        }
    }
    def->morph_weights = n > 0 ? w : NULL;
    if (sn_mask_validate(def, &err) != SN_OK) sn_lua_argerror(L, 4, err.msg);
}

/***
 * A per-joint weight mask: `sinew.mask(skel, {spine = 1, head = 0.5} [, default])`.
 *
 * Keys are joint names or 1-based indices, values weights in [0, 1] (stored as float32); every
 * other joint gets `default` (0 when omitted). The mask also holds a factor in [0, 1] per morph
 * target: `morphs` maps morph names or indices to factors, every other morph gets
 * `morph_default`, which is `default` when omitted: `sinew.mask(skel, {head = 1}, 0, {blink = 1})`
 * masks the head and the blink.
 * @function mask
 * @tparam Skeleton skel
 * @tparam[opt] table weights joint -> weight (0 .. 1)
 * @tparam[opt=0] number default weight (0 .. 1)
 * @tparam[opt] table morphs morph -> factor (0 .. 1)
 * @tparam[opt=default] number morph_default factor of the other morphs (0 .. 1)
 * @treturn Mask
 * @raise "sinew.Skeleton expected, got nil" for `skel`; when `weights` is not a table; for a bad
 * joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is not an integer" or
 * "joint index or name expected, got nil") (a key of `weights`); "mask weight expected, got
 * string"; "mask weight 2 is out of range (0 .. 1)" or "mask weight 2 of joint 'head' is out of
 * range (0 .. 1)"; for `morphs`, "table expected, got string", a bad morph ("unknown morph 'x'",
 * "morph 9 is out of range (1 .. 8)", "morph 1.5 is not an integer", "morph index or name expected,
 * got boolean"), "mask weight 2 of morph 'blink' is out of range (0 .. 1)"; for `morph_default`,
 * "mask morph weight 2 is out of range (0 .. 1)"
 */
static int l_mask(lua_State *L) {
    sn_skeleton *s = sn_lua_checkskeleton(L, 1);
    sn_mask_def def;
    sn_error err;
    int n = sn_skeleton_count(s), j;
    float *w;
    sn_mask_def_init(&def);
    def.skeleton = s;
    def.weight = lua_isnoneornil(L, 3) ? 0.0f : check_mask_weight(L, 3, 3);
    if (sn_mask_validate(&def, &err) != SN_OK) return sn_lua_argerror(L, 3, err.msg);
    if (!lua_isnoneornil(L, 2)) sn_lua_checktype(L, 2, LUA_TTABLE);
    if (!lua_isnoneornil(L, 4)) sn_lua_checktype(L, 4, LUA_TTABLE);
    if (!lua_isnoneornil(L, 5)) { /* checked now, so that argument 5's faults come before the tables' */
        def.morph_weight = check_mask_weight(L, 5, 5);
        def.has_morph_weight = 1;
        if (sn_mask_validate(&def, &err) != SN_OK) return sn_lua_argerror(L, 5, err.msg);
    }
    lua_settop(L, 5);
    /* every entry read once (raw traversal) into a temporary array before the mask exists */
    w = (float *)sn_lua_newtemp(L, sizeof(float) * (size_t)n); /* 6 */
    for (j = 0; j < n; j++) w[j] = def.weight;
    if (!lua_isnil(L, 2)) {
        lua_pushnil(L);
        while (lua_next(L, 2)) {
            j = sn_lua_tojoint(L, -2, s, 2);
            w[j] = check_mask_weight(L, -1, 2);
            lua_pop(L, 1);
        }
    }
    def.weights = w;
    if (sn_mask_validate(&def, &err) != SN_OK) return sn_lua_argerror(L, 2, err.msg);
    read_mask_morphs(L, s, &def);
    NEW_OBJECT(L, SN_MASK_MT, def, sn_mask_size, sn_mask_init);
    return 1;
}

/***
 * The weight of a joint.
 * @function Mask:get
 * @param joint index (1 .. #mask) or name
 * @treturn number weight (0 .. 1, a float32 value)
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil")
 */
static int l_mask_get(lua_State *L) {
    sn_mask *m = sn_lua_checkmask(L, 1);
    lua_pushnumber(L, sn_mask_get(m, sn_lua_checkjoint(L, 2, sn_mask_skeleton(m))));
    return 1;
}

/***
 * Sets the weight of a joint, and of all its descendants when `subtree` is true. Returns the mask.
 * @function Mask:set
 * @param joint index (1 .. #mask) or name
 * @tparam number weight in [0, 1] (stored as float32)
 * @tparam[opt=false] boolean subtree
 * @treturn Mask the mask
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil"); "mask weight expected, got string";
 * "mask weight 2 is out of range (0 .. 1)"
 */
static int l_mask_set(lua_State *L) {
    sn_mask *m = sn_lua_checkmask(L, 1);
    int j = sn_lua_checkjoint(L, 2, sn_mask_skeleton(m));
    float w = check_mask_weight(L, 3, 3);
    sn_error err;
    if (sn_mask_set(m, j, w, lua_toboolean(L, 4), &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    lua_settop(L, 1);
    return 1;
}

/***
 * The factor of a morph target.
 * @function Mask:get_morph
 * @param morph index (1 .. skeleton:morph_count()) or name
 * @treturn number factor (0 .. 1, a float32 value)
 * @raise for a bad morph ("unknown morph 'x'", "morph 9 is out of range (1 .. 8)", "morph 1.5 is
 * not an integer" or "morph index or name expected, got nil")
 */
static int l_mask_get_morph(lua_State *L) {
    sn_mask *m = sn_lua_checkmask(L, 1);
    lua_pushnumber(L, sn_mask_get_morph(m, sn_lua_tomorph(L, 2, sn_mask_skeleton(m), 2)));
    return 1;
}

/***
 * Sets the factor of a morph target. Returns the mask.
 * @function Mask:set_morph
 * @param morph index (1 .. skeleton:morph_count()) or name
 * @tparam number weight in [0, 1] (stored as float32)
 * @treturn Mask the mask
 * @raise for a bad morph (as Mask:get_morph); "mask weight expected, got string"; "mask weight 2
 * is out of range (0 .. 1)"
 */
static int l_mask_set_morph(lua_State *L) {
    sn_mask *m = sn_lua_checkmask(L, 1);
    int k = sn_lua_tomorph(L, 2, sn_mask_skeleton(m), 2);
    float w = check_mask_weight(L, 3, 3);
    sn_error err;
    if (sn_mask_set_morph(m, k, w, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    lua_settop(L, 1);
    return 1;
}

/* ---- matrices --------------------------------------------------------------------------- */

/***
 * Model-space matrices of a skeleton: 16 float32 per joint, column-major 4x4, filled by
 * `Pose:to_model`. Starts as identities.
 * @function matrices
 * @tparam Skeleton skel
 * @treturn Matrices
 * @raise "sinew.Skeleton expected, got nil" when `skel` is not a Skeleton
 */
static int l_matrices(lua_State *L) {
    sn_matrices_def def;
    sn_matrices_def_init(&def);
    def.skeleton = sn_lua_checkskeleton(L, 1);
    NEW_OBJECT(L, SN_MATRICES_MT, def, sn_matrices_size, sn_matrices_init);
    return 1;
}

/***
 * The matrix of a joint: 16 numbers (float32 values), column-major (m13, m14, m15 hold the
 * translation, in model units).
 * @function Matrices:get
 * @param joint index (1 .. #mats) or name
 * @return m1, ..., m16: the matrix, column-major
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil")
 */
static int l_mats_get(lua_State *L) {
    sn_matrices *m = check_matrices(L, 1);
    push_floats(L, sn_matrices_data(m) + 16 * sn_lua_checkjoint(L, 2, sn_matrices_skeleton(m)), 16);
    return 16;
}

/***
 * Sets the matrix of a joint from 16 finite numbers, column-major (as `Matrices:get` gives
 * them): for matrices that do not come from a pose, such as a skin's inverse bind matrices.
 * Stored as float32. Returns the matrices.
 * @function Matrices:set
 * @param joint index (1 .. #mats) or name
 * @tparam number m1 column 1, row 1
 * @tparam number m2
 * @tparam number m3
 * @tparam number m4
 * @tparam number m5
 * @tparam number m6
 * @tparam number m7
 * @tparam number m8
 * @tparam number m9
 * @tparam number m10
 * @tparam number m11
 * @tparam number m12
 * @tparam number m13 column 4, row 1: the translation x (model units)
 * @tparam number m14
 * @tparam number m15
 * @tparam number m16
 * @treturn Matrices the matrices
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil"); for a value that is not a finite
 * number, or is too large for a float ("too large for a float")
 */
static int l_mats_set(lua_State *L) {
    sn_matrices *m = check_matrices(L, 1);
    float v[16];
    int j = sn_lua_checkjoint(L, 2, sn_matrices_skeleton(m));
    check_floats(L, 3, v, 16);
    memcpy(sn_matrices_data(m) + 16 * j, v, sizeof v);
    lua_settop(L, 1);
    return 1;
}

/***
 * Turns model-space matrices into skinning matrices, in place and without garbage: each joint's
 * matrix becomes `root * matrix * inverse_bind[joint]`, what a skinning shader multiplies
 * vertices by. For a glTF asset: `pose:to_model(mats); mats:skin(asset.inverse_bind,
 * asset.root_matrix)`. Returns the matrices.
 * @function Matrices:skin
 * @tparam Matrices inverse_bind matrices of the same skeleton (may be these)
 * @tparam[opt] table root 16 finite numbers, column-major (the transform above the skeleton)
 * @treturn Matrices the matrices
 * @raise "sinew.Matrices expected, got nil" for `inverse_bind`; when `root` is not a table; "root
 * entry 3 must be a number (got nil)", "root entry 3 (inf) is not a finite float"; "matrices of
 * another skeleton"
 */
static int l_mats_skin(lua_State *L) {
    sn_matrices *m = check_matrices(L, 1);
    const sn_matrices *ibm = check_matrices(L, 2);
    float root[16];
    sn_error err;
    int k;
    if (!lua_isnoneornil(L, 3)) {
        sn_lua_checktype(L, 3, LUA_TTABLE);
        for (k = 0; k < 16; k++) {
            double v;
            lua_rawgeti(L, 3, k + 1);
            if (lua_type(L, -1) != LUA_TNUMBER)
                return sn_lua_argerror(L, 3, lua_pushfstring(L, "root entry %d must be a number (got %s)", k + 1,
                                                          luaL_typename(L, -1)));
            v = lua_tonumber(L, -1);
            if (!(fabs(v) <= FLT_MAX))
                return sn_lua_argerror(L, 3, lua_pushfstring(L, "root entry %d (%s) is not a finite float", k + 1,
                                                          sn_lua_numstr(L, v)));
            root[k] = (float)v;
            lua_pop(L, 1);
        }
    }
    if (sn_matrices_skin(m, ibm, lua_isnoneornil(L, 3) ? NULL : root, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    lua_settop(L, 1);
    return 1;
}

/***
 * All matrices as one string of 64 bytes per joint (float32, native byte order, column-major),
 * for `love.data.newByteData`, `Shader:send` or a mesh. Makes one string per call.
 * @function Matrices:bytes
 * @treturn string 64 * #mats bytes
 * @raise never
 */
static int l_mats_bytes(lua_State *L) {
    sn_matrices *m = check_matrices(L, 1);
    lua_pushlstring(L, (const char *)sn_matrices_data(m),
                    sizeof(float) * 16 * (size_t)sn_skeleton_count(sn_matrices_skeleton(m)));
    return 1;
}

/***
 * The address of the float data as a light userdata, valid while the Matrices object lives: for
 * LuaJIT's `ffi.copy(dst, mats:pointer(), 64 * #mats)`, say. No garbage.
 * @function Matrices:pointer
 * @treturn userdata 16 float32 per joint, column-major
 * @raise never
 */
static int l_mats_pointer(lua_State *L) {
    lua_pushlightuserdata(L, sn_matrices_data(check_matrices(L, 1)));
    return 1;
}


void sn_open_pose(lua_State *L, int module) {
    static const luaL_Reg pose_methods[] = {
        {"get", l_pose_get},
        {"set", l_pose_set},
        {"get_translation", l_pose_get_translation},
        {"get_rotation", l_pose_get_rotation},
        {"get_scale", l_pose_get_scale},
        {"set_translation", l_pose_set_translation},
        {"set_rotation", l_pose_set_rotation},
        {"set_scale", l_pose_set_scale},
        {"copy", l_pose_copy},
        {"reset", l_pose_reset},
        {"add", l_pose_add},
        {"to_model", l_pose_to_model},
        {"skeleton", l_skeleton_of},
        {"morph", l_pose_morph},
        {"set_morph", l_pose_set_morph},
        {"morphs", l_pose_morphs},
        {"set_morphs", l_pose_set_morphs},
        {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__len", l_object_len}, {"__tostring", l_object_tostring}, {NULL, NULL}};
    static const luaL_Reg mask_methods[] = {
        {"get", l_mask_get}, {"set", l_mask_set}, {"get_morph", l_mask_get_morph}, {"set_morph", l_mask_set_morph},
        {"skeleton", l_skeleton_of}, {NULL, NULL}};
    static const luaL_Reg mats_methods[] = {
        {"get", l_mats_get}, {"set", l_mats_set}, {"skin", l_mats_skin}, {"bytes", l_mats_bytes}, {"pointer", l_mats_pointer}, {"skeleton", l_skeleton_of},
        {NULL, NULL}};
    sn_lua_newclass(L, SN_POSE_MT, pose_methods, meta);
    sn_lua_newclass(L, SN_MASK_MT, mask_methods, meta);
    sn_lua_newclass(L, SN_MATRICES_MT, mats_methods, meta);
    lua_pushcfunction(L, l_pose);
    lua_setfield(L, module, "pose");
    lua_pushcfunction(L, l_mask);
    lua_setfield(L, module, "mask");
    lua_pushcfunction(L, l_matrices);
    lua_setfield(L, module, "matrices");
    lua_pushcfunction(L, l_delta);
    lua_setfield(L, module, "delta");
    lua_pushboolean(L, 0);              /* upvalue 1 of blend: its scratch block, made on first use */
    luaL_getmetatable(L, SN_POSE_MT);   /* upvalue 2: the Pose metatable */
    luaL_getmetatable(L, SN_MASK_MT);   /* upvalue 3: the Mask metatable */
    lua_pushcclosure(L, l_blend, 3);
    lua_setfield(L, module, "blend");
}
