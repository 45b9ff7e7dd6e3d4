/***
 * 2-D rigs in the C core (the building blocks of `sinew.dragonbones`; use that module, which
 * compiles a DragonBones file's armatures and animations into these objects).
 *
 * An armature (`sinew.Rig2DData`) and its animations (`sinew.Anim2D`) are built once from
 * layouts (lists of numbers, see src/core/rig2d.h); a rig (`sinew.Rig2D`) is one instance.
 * Indices are 1-based. Per-frame methods return plain numbers or fill a table the caller gives.
 * @module sinew.core.rig2d
 */
#include <math.h>
#include <string.h>

#include "../core/rig2d.h"
#include "binding.h"


/// A 2-D pose or mask: its bone count, then 6 (a pose) or 1 (a mask) numbers a bone.
typedef struct values2d {
    int bones;
    double v[1];
} values2d;

/// The layout at argument `arg` (a list of numbers) as a temporary C array; *n its length.
static const double *check_layout(lua_State *L, int arg, size_t *n) {
    sn_lua_checktype(L, arg, LUA_TTABLE);
    size_t len = (size_t)sn_lua_rawlen(L, arg);
    if (len > ((size_t)1 << 28)) sn_lua_argerror(L, arg, "the layout is too long");
    double *w = (double *)sn_lua_newtemp(L, (len ? len : 1) * sizeof(double));
    for (size_t i = 0; i < len; i++) {
        lua_rawgeti(L, arg, (int)(i + 1));
        if (lua_type(L, -1) != LUA_TNUMBER)
            sn_lua_argerror(L, arg, lua_pushfstring(L, "layout element %d is not a number", (int)(i + 1)));
        w[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    *n = len;
    return w;
}

static sn_rig2d_data *check_data(lua_State *L, int arg) {
    return (sn_rig2d_data *)sn_lua_checkobject(L, arg, SN_RIG2D_DATA_MT);
}
static sn_anim2d *check_anim(lua_State *L, int arg) { return (sn_anim2d *)sn_lua_checkobject(L, arg, SN_ANIM2D_MT); }
static sn_rig2d *check_rig(lua_State *L, int arg) { return (sn_rig2d *)sn_lua_checkobject(L, arg, SN_RIG2D_MT); }

/***
 * Builds an armature from its layout.
 * @function _rig2d_data
 * @tparam {number,...} layout the numbers of src/core/rig2d.h's armature layout
 * @treturn sinew.Rig2DData
 * @raise what is wrong with the layout ("bone 3's parent 7 is out of range (-1 .. 4)")
 */
static int l_data(lua_State *L) {
    size_t n;
    const double *w = check_layout(L, 1, &n);
    sn_allocator a;
    sn_lua_allocator(L, &a);
    sn_error err = { SN_OK, 0, "" };
    size_t size = sn_rig2d_data_size(w, n, &a, &err);
    if (size == 0) return sn_lua_raise(L, &err, 0);
    void *mem = sn_lua_newuserdata(L, size);
    if (sn_rig2d_data_init(mem, size, w, n, &a, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    sn_lua_setmetatable(L, SN_RIG2D_DATA_MT);
    lua_createtable(L, 1, 0); /* its own table, which its animations and rigs keep */
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, 1);
    sn_lua_setuservalue(L, -2);
    return 1;
}

/// The data's table kept by userdata at `ud` from the data at `data`.
static void keep_data(lua_State *L, int ud, int data) {
    ud = sn_lua_absindex(L, ud);
    sn_lua_getuservalue(L, data);
    sn_lua_setuservalue(L, ud);
}

/***
 * Builds an animation of this armature from its layout.
 * @function Rig2DData:animation
 * @tparam {number,...} layout the numbers of src/core/rig2d.h's animation layout
 * @treturn sinew.Anim2D
 */
static int l_anim(lua_State *L) {
    const sn_rig2d_data *d = check_data(L, 1);
    size_t n;
    const double *w = check_layout(L, 2, &n);
    sn_error err = { SN_OK, 0, "" };
    size_t size = sn_anim2d_size(d, w, n, &err);
    if (size == 0) return sn_lua_raise(L, &err, 1);
    void *mem = sn_lua_newuserdata(L, size);
    if (sn_anim2d_init(mem, size, d, w, n, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    sn_lua_setmetatable(L, SN_ANIM2D_MT);
    keep_data(L, -1, 1);
    return 1;
}

/***
 * A new rig of this armature, in the setup pose.
 * @function Rig2DData:rig
 * @treturn sinew.Rig2D
 */
static int l_rig(lua_State *L) {
    const sn_rig2d_data *d = check_data(L, 1);
    void *mem = sn_lua_newuserdata(L, sn_rig2d_size(d));
    sn_rig2d_init(mem, d);
    sn_lua_setmetatable(L, SN_RIG2D_MT);
    keep_data(L, -1, 1);
    return 1;
}

static int l_data_counts(lua_State *L) {
    const sn_rig2d_data *d = check_data(L, 1);
    lua_pushinteger(L, sn_rig2d_data_bones(d));
    lua_pushinteger(L, sn_rig2d_data_slots(d));
    lua_pushinteger(L, sn_rig2d_data_constraints(d));
    return 3;
}

static int l_anim_duration(lua_State *L) {
    const sn_anim2d *an = check_anim(L, 1);
    lua_pushnumber(L, sn_anim2d_duration(an));
    lua_pushinteger(L, sn_anim2d_frames(an));
    lua_pushnumber(L, sn_anim2d_frame_rate(an));
    return 3;
}

static int index_arg(lua_State *L, int arg, int count, const char *what) {
    return sn_lua_toindex(L, arg, 1, count, arg, what) - 1;
}

/***
 * Samples an animation of the rig's armature at `time` and updates the world matrices.
 * @function Rig2D:update
 * @tparam sinew.Anim2D anim an animation of the same armature
 * @tparam number time seconds (0 .. the duration and a little)
 * @tparam boolean tween_last whether the last key tweens toward the first
 */
static int l_update(lua_State *L) {
    sn_rig2d *r = check_rig(L, 1);
    const sn_anim2d *an = check_anim(L, 2);
    double t = sn_lua_checkfinite(L, 3);
    if (sn_anim2d_data(an) != sn_rig2d_rig_data(r)) return sn_lua_argerror(L, 2, "an animation of another armature");
    sn_rig2d_sample(r, an, t, lua_toboolean(L, 4));
    sn_rig2d_world(r);
    return 0;
}

/// Rig2D:setup(): the setup pose and slots, world matrices updated.
static int l_setup(lua_State *L) {
    sn_rig2d *r = check_rig(L, 1);
    sn_rig2d_setup(r);
    sn_rig2d_world(r);
    return 0;
}

/// Rig2D:world(): the world matrices from the current pose.
static int l_world(lua_State *L) {
    sn_rig2d_world(check_rig(L, 1));
    return 0;
}

/// Rig2D:bone(i) -> a, b, c, d, tx, ty
static int l_bone(lua_State *L) {
    const sn_rig2d *r = check_rig(L, 1);
    int b = index_arg(L, 2, sn_rig2d_data_bones(sn_rig2d_rig_data(r)), "bone");
    const double *m = sn_rig2d_bone_matrix(r, b);
    for (int i = 0; i < 6; i++) lua_pushnumber(L, m[i]);
    return 6;
}

/// Rig2D:slot_matrix(i) -> a, b, c, d, tx, ty
static int l_slot_matrix(lua_State *L) {
    const sn_rig2d *r = check_rig(L, 1);
    int s = index_arg(L, 2, sn_rig2d_data_slots(sn_rig2d_rig_data(r)), "slot");
    const double *m = sn_rig2d_slot_matrix(r, s);
    for (int i = 0; i < 6; i++) lua_pushnumber(L, m[i]);
    return 6;
}

/// Rig2D:slot(i) -> display index (0-based, -1 none), draw position, r, g, b, a multipliers
static int l_slot(lua_State *L) {
    const sn_rig2d *r = check_rig(L, 1);
    int s = index_arg(L, 2, sn_rig2d_data_slots(sn_rig2d_rig_data(r)), "slot");
    const double *c = sn_rig2d_slot_color(r, s);
    lua_pushinteger(L, sn_rig2d_slot_display(r, s));
    lua_pushinteger(L, sn_rig2d_slot_position(r, s));
    lua_pushnumber(L, c[1]);
    lua_pushnumber(L, c[2]);
    lua_pushnumber(L, c[3]);
    lua_pushnumber(L, c[0]);
    return 6;
}

/// Rig2D:slot_offsets(i) -> r, g, b, a colour offsets (-255 .. 255)
static int l_slot_offsets(lua_State *L) {
    const sn_rig2d *r = check_rig(L, 1);
    int s = index_arg(L, 2, sn_rig2d_data_slots(sn_rig2d_rig_data(r)), "slot");
    const double *c = sn_rig2d_slot_color(r, s);
    lua_pushnumber(L, c[5]);
    lua_pushnumber(L, c[6]);
    lua_pushnumber(L, c[7]);
    lua_pushnumber(L, c[4]);
    return 4;
}

/// Rig2D:draw_order(k) -> the slot drawn k-th
static int l_draw_order(lua_State *L) {
    const sn_rig2d *r = check_rig(L, 1);
    int k = index_arg(L, 2, sn_rig2d_data_slots(sn_rig2d_rig_data(r)), "draw position");
    lua_pushinteger(L, sn_rig2d_draw_order(r, k) + 1);
    return 1;
}

/// Rig2D:set_display(i, k): slot i shows display k (0-based, -1 none)
static int l_set_display(lua_State *L) {
    sn_rig2d *r = check_rig(L, 1);
    int s = index_arg(L, 2, sn_rig2d_data_slots(sn_rig2d_rig_data(r)), "slot");
    int k = sn_lua_toint(L, 3, 3, "display index");
    sn_error err = { SN_OK, 0, "" };
    if (sn_rig2d_set_display(r, s, k, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/// Rig2D:vertices(i, out) -> n: the mesh slot i shows, in armature space, into out[1 .. 2n]
static int l_vertices(lua_State *L) {
    const sn_rig2d *r = check_rig(L, 1);
    const sn_rig2d_data *d = sn_rig2d_rig_data(r);
    int s = index_arg(L, 2, sn_rig2d_data_slots(d), "slot");
    sn_lua_checktype(L, 3, LUA_TTABLE);
    int k = sn_rig2d_slot_display(r, s);
    int v = k >= 0 ? sn_rig2d_data_mesh_vertices(d, s, k) : 0;
    if (v == 0) {
        lua_pushinteger(L, 0);
        return 1;
    }
    /* the table sized first (this may collect, and a finaliser may call back into sinew, even this
       rig, or grow the shared scratch); then the vertices computed and copied into slots that
       exist, which allocates nothing, so nothing runs in between */
    for (int i = 1; i <= 2 * v; i++) {
        lua_pushnumber(L, 0);
        lua_rawseti(L, 3, i);
    }
    double *out = (double *)sn_lua_scratch(L, 2, sizeof(double) * 2 * (size_t)v);
    int n = sn_rig2d_vertices(r, s, out, 2 * v); /* 0 if a finaliser gave the slot a bigger mesh */
    for (int i = 0; i < 2 * n; i++) {
        lua_pushnumber(L, out[i]);
        lua_rawseti(L, 3, i + 1);
    }
    lua_pushinteger(L, n);
    return 1;
}

/// Rig2D:mesh(i) -> pointer, bytes, n: the vertex buffer of the mesh slot i shows, filled
/// (SN_RIG2D_VERTEX_BYTES a vertex: x, y, u, v floats, r, g, b, a bytes), as a light userdata
/// that stays valid while the rig lives; nil, 0, 0 when the slot shows no mesh
static int l_mesh(lua_State *L) {
    sn_rig2d *r = check_rig(L, 1);
    int s = index_arg(L, 2, sn_rig2d_data_slots(sn_rig2d_rig_data(r)), "slot");
    int n;
    const unsigned char *p = sn_rig2d_mesh(r, s, &n);
    if (p == NULL) lua_pushnil(L);
    else lua_pushlightuserdata(L, (void *)p);
    lua_pushinteger(L, (lua_Integer)n * SN_RIG2D_VERTEX_BYTES);
    lua_pushinteger(L, n);
    return 3;
}

/// Rig2D:pose(i) -> x, y, rotation, skew, scale x, scale y: bone i's animation pose
static int l_pose(lua_State *L) {
    sn_rig2d *r = check_rig(L, 1);
    int b = index_arg(L, 2, sn_rig2d_data_bones(sn_rig2d_rig_data(r)), "bone");
    const double *p = sn_rig2d_pose(r) + 6 * b;
    for (int i = 0; i < 6; i++) lua_pushnumber(L, p[i]);
    return 6;
}

/* ---- 2-D poses and masks (the animator's pose kind for rigs) ---------------------------- */

static values2d *new_values(lua_State *L, int data_arg, int per_bone, const char *mt) {
    const sn_rig2d_data *d = check_data(L, data_arg);
    int bones = sn_rig2d_data_bones(d);
    values2d *p = (values2d *)sn_lua_newuserdata(L, sizeof(values2d) + sizeof(double) * ((size_t)per_bone * bones));
    p->bones = bones;
    sn_lua_setmetatable(L, mt);
    keep_data(L, -1, data_arg);
    return p;
}

static values2d *check_pose2d(lua_State *L, int arg) { return (values2d *)sn_lua_checkobject(L, arg, SN_POSE2D_MT); }
static values2d *check_mask2d(lua_State *L, int arg) { return (values2d *)sn_lua_checkobject(L, arg, SN_MASK2D_MT); }

/// Pushes the armature (Rig2DData) the userdata at `arg` belongs to.
static int push_data_of(lua_State *L, int arg) {
    sn_lua_getuservalue(L, arg);
    if (lua_istable(L, -1)) lua_rawgeti(L, -1, 1);
    else lua_pushnil(L);
    lua_remove(L, -2);
    return 1;
}

static int same_data(lua_State *L, int a, int b) {
    push_data_of(L, a);
    push_data_of(L, b);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same;
}

double *sn_lua_testpose2d(lua_State *L, int idx, const sn_rig2d_data **data) {
    values2d *p = (values2d *)sn_lua_testobject(L, idx, SN_POSE2D_MT);
    if (p == NULL) return NULL;
    push_data_of(L, idx);
    *data = (const sn_rig2d_data *)lua_touserdata(L, -1);
    lua_pop(L, 1);
    return p->v;
}

/// Rig2DData:pose() -> a new 2-D pose at rest (6 numbers a bone)
static int l_new_pose(lua_State *L) {
    values2d *p = new_values(L, 1, 6, SN_POSE2D_MT);
    sn_pose2d_rest(p->v, p->bones);
    return 1;
}

/// Rig2DData:mask(weights [, default]) -> a 2-D mask: weights[i] for bone i (0 .. 1), else default
static int l_new_mask(lua_State *L) {
    check_data(L, 1);
    sn_lua_checktype(L, 2, LUA_TTABLE);
    double dflt = sn_lua_optfinite(L, 3, 0.0);
    if (dflt < 0.0 || dflt > 1.0) return sn_lua_argerror(L, 3, "the default weight must be in 0 .. 1");
    values2d *m = new_values(L, 1, 1, SN_MASK2D_MT);
    for (int b = 0; b < m->bones; b++) {
        lua_rawgeti(L, 2, b + 1);
        double w = lua_isnil(L, -1) ? dflt : sn_lua_tonumber(L, -1, 2, "weight");
        lua_pop(L, 1);
        if (!(w >= 0.0 && w <= 1.0))
            return sn_lua_argerror(L, 2, lua_pushfstring(L, "weight of bone %d is not in 0 .. 1", b + 1));
        m->v[b] = w;
    }
    return 1;
}

static int l_values_skeleton(lua_State *L) {
    sn_lua_checkself(L);
    return push_data_of(L, 1);
}

static int l_values_len(lua_State *L) {
    values2d *p = (values2d *)sn_lua_checkself(L);
    lua_pushinteger(L, p->bones);
    return 1;
}

/// Pose2D:get(j) -> x, y, rotation, skew, scale x, scale y of bone j
static int l_pose_get(lua_State *L) {
    values2d *p = check_pose2d(L, 1);
    int b = index_arg(L, 2, p->bones, "bone");
    for (int i = 0; i < 6; i++) lua_pushnumber(L, p->v[6 * b + i]);
    return 6;
}

/// Pose2D:set(j, x, y, rotation, skew, scale x, scale y)
static int l_pose_set(lua_State *L) {
    values2d *p = check_pose2d(L, 1);
    int b = index_arg(L, 2, p->bones, "bone");
    double v[6];
    for (int i = 0; i < 6; i++) v[i] = sn_lua_checkfinite(L, 3 + i);
    memcpy(p->v + 6 * b, v, sizeof v);
    lua_settop(L, 1);
    return 1;
}

/// Pose2D:copy(from) -> self
static int l_pose_copy(lua_State *L) {
    values2d *p = check_pose2d(L, 1), *f = check_pose2d(L, 2);
    if (!same_data(L, 1, 2)) return sn_lua_argerror(L, 2, "a pose of another armature");
    memmove(p->v, f->v, sizeof(double) * 6 * (size_t)p->bones);
    lua_settop(L, 1);
    return 1;
}

/// Pose2D:add(delta, weight [, mask]) -> self
static int l_pose_add(lua_State *L) {
    values2d *p = check_pose2d(L, 1), *dl = check_pose2d(L, 2);
    double w = sn_lua_checkfinite(L, 3);
    values2d *m = lua_isnoneornil(L, 4) ? NULL : check_mask2d(L, 4);
    if (!same_data(L, 1, 2)) return sn_lua_argerror(L, 2, "a pose of another armature");
    if (m && !same_data(L, 1, 4)) return sn_lua_argerror(L, 4, "a mask of another armature");
    sn_pose2d_add(p->v, dl->v, w, m ? m->v : NULL, p->bones);
    lua_settop(L, 1);
    return 1;
}

/// Mask2D:get(j) -> weight; Mask2D:set(j, w)
static int l_mask_get(lua_State *L) {
    values2d *m = check_mask2d(L, 1);
    lua_pushnumber(L, m->v[index_arg(L, 2, m->bones, "bone")]);
    return 1;
}

static int l_mask_set(lua_State *L) {
    values2d *m = check_mask2d(L, 1);
    int b = index_arg(L, 2, m->bones, "bone");
    double w = sn_lua_checkfinite(L, 3);
    if (w < 0.0 || w > 1.0) return sn_lua_argerror(L, 3, "the weight must be in 0 .. 1");
    m->v[b] = w;
    lua_settop(L, 1);
    return 1;
}

/// _pose2d_blend(out, poses, weights [, masks]) -> out (the rest pose fills in below a total weight
/// of 0.1, as the 3-D blend's default)
static int l_blend(lua_State *L) {
    values2d *out = check_pose2d(L, 1);
    sn_lua_checktype(L, 2, LUA_TTABLE);
    sn_lua_checktype(L, 3, LUA_TTABLE);
    int n = (int)sn_lua_rawlen(L, 2);
    if ((int)sn_lua_rawlen(L, 3) < n) return sn_lua_argerror(L, 3, "fewer weights than poses");
    if (n > 64) return sn_lua_argerror(L, 2, "more than 64 poses");
    int has_masks = !lua_isnoneornil(L, 4);
    if (has_masks) sn_lua_checktype(L, 4, LUA_TTABLE);
    double threshold = 0.1;
    const double *poses[64], *masks[64];
    double weights[64];
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 2, i + 1);
        values2d *p = (values2d *)sn_lua_testobject(L, -1, SN_POSE2D_MT);
        if (p == NULL || !same_data(L, 1, lua_gettop(L)))
            return sn_lua_argerror(L, 2, lua_pushfstring(L, "element %d is not a pose of this armature", i + 1));
        poses[i] = p->v;
        lua_pop(L, 1);
        weights[i] = sn_lua_finite_at(L, 3, i + 1, 3, "weights");
        masks[i] = NULL;
        if (has_masks) {
            lua_rawgeti(L, 4, i + 1);
            if (lua_toboolean(L, -1)) {
                values2d *m = (values2d *)sn_lua_testobject(L, -1, SN_MASK2D_MT);
                if (m == NULL || !same_data(L, 1, lua_gettop(L)))
                    return sn_lua_argerror(L, 4, lua_pushfstring(L, "element %d is not a mask of this armature", i + 1));
                masks[i] = m->v;
            }
            lua_pop(L, 1);
        }
    }
    sn_error err = { SN_OK, 0, "" };
    if (sn_pose2d_blend(out->v, out->bones, poses, weights, masks, n, threshold, &err) != SN_OK)
        return sn_lua_raise(L, &err, 0);
    lua_settop(L, 1);
    return 1;
}

/// _pose2d_delta(out, pose, reference) -> out
static int l_delta(lua_State *L) {
    values2d *out = check_pose2d(L, 1), *p = check_pose2d(L, 2), *ref = check_pose2d(L, 3);
    if (!same_data(L, 1, 2)) return sn_lua_argerror(L, 2, "a pose of another armature");
    if (!same_data(L, 1, 3)) return sn_lua_argerror(L, 3, "a pose of another armature");
    sn_pose2d_delta(out->v, p->v, ref->v, out->bones);
    lua_settop(L, 1);
    return 1;
}

/// Anim2D:local_time(t, loop) -> the time the animation samples at t
static double local_time(const sn_anim2d *an, double t, int loop) {
    double d = sn_anim2d_duration(an);
    if (loop) {
        t = fmod(t, d);
        return t < 0.0 ? t + d : t;
    }
    return t < 0.0 ? 0.0 : t > d ? d : t;
}

static int l_local_time(lua_State *L) {
    const sn_anim2d *an = check_anim(L, 1);
    lua_pushnumber(L, local_time(an, sn_lua_checkfinite(L, 2), lua_toboolean(L, 3)));
    return 1;
}

/// Anim2D:sample(t, out, loop) -> out: the bone timelines at t into a 2-D pose
static int l_anim_sample(lua_State *L) {
    const sn_anim2d *an = check_anim(L, 1);
    double t = sn_lua_checkfinite(L, 2);
    values2d *out = check_pose2d(L, 3);
    if (!same_data(L, 1, 3)) return sn_lua_argerror(L, 3, "a pose of another armature");
    int loop = lua_toboolean(L, 4);
    sn_anim2d_sample_pose(an, local_time(an, t, loop), loop, out->v);
    lua_settop(L, 3);
    return 1;
}

static int l_anim_cursor(lua_State *L) {
    check_anim(L, 1);
    lua_settop(L, 1);
    return 1;
}

/// Rig2D:apply(pose [, anim, time, tween_last]): the rig's bones from a 2-D pose (an animator's),
/// its slots from `anim`'s slot timelines at `time` when given (else as they are), then the world
/// matrices
static int l_apply(lua_State *L) {
    sn_rig2d *r = check_rig(L, 1);
    values2d *p = check_pose2d(L, 2);
    if (!same_data(L, 1, 2)) return sn_lua_argerror(L, 2, "a pose of another armature");
    if (!lua_isnoneornil(L, 3)) {
        const sn_anim2d *an = check_anim(L, 3);
        double t = sn_lua_checkfinite(L, 4);
        if (sn_anim2d_data(an) != sn_rig2d_rig_data(r)) return sn_lua_argerror(L, 3, "an animation of another armature");
        sn_rig2d_sample(r, an, t, lua_toboolean(L, 5));
    }
    sn_rig2d_set_pose(r, p->v);
    sn_rig2d_world(r);
    return 0;
}

void sn_open_rig2d(lua_State *L, int module) {
    static const luaL_Reg data_methods[] = { { "animation", l_anim }, { "rig", l_rig }, { "counts", l_data_counts },
                                             { "pose", l_new_pose }, { "mask", l_new_mask }, { NULL, NULL } };
    static const luaL_Reg anim_methods[] = { { "duration", l_anim_duration }, { "skeleton", l_values_skeleton },
                                             { "local_time", l_local_time }, { "sample", l_anim_sample },
                                             { "cursor", l_anim_cursor }, { NULL, NULL } };
    static const luaL_Reg pose_methods[] = { { "skeleton", l_values_skeleton }, { "get", l_pose_get }, { "set", l_pose_set },
                                             { "copy", l_pose_copy }, { "add", l_pose_add }, { NULL, NULL } };
    static const luaL_Reg mask_methods[] = { { "skeleton", l_values_skeleton }, { "get", l_mask_get }, { "set", l_mask_set },
                                             { NULL, NULL } };
    static const luaL_Reg values_meta[] = { { "__len", l_values_len }, { NULL, NULL } };
    static const luaL_Reg rig_methods[] = { { "update", l_update },       { "setup", l_setup },
                                            { "world", l_world },         { "bone", l_bone },
                                            { "slot_matrix", l_slot_matrix }, { "slot", l_slot },
                                            { "slot_offsets", l_slot_offsets }, { "draw_order", l_draw_order },
                                            { "set_display", l_set_display }, { "pose", l_pose }, { "mesh", l_mesh },
                                            { "apply", l_apply },
                                            { NULL, NULL } };
    static const luaL_Reg none[] = { { NULL, NULL } };
    sn_lua_newclass(L, SN_RIG2D_DATA_MT, data_methods, none);
    sn_lua_newclass(L, SN_ANIM2D_MT, anim_methods, none);
    sn_lua_newclass(L, SN_RIG2D_MT, rig_methods, none);
    sn_lua_newclass(L, SN_POSE2D_MT, pose_methods, values_meta);
    sn_lua_newclass(L, SN_MASK2D_MT, mask_methods, values_meta);
    /* vertices keeps a scratch block as upvalue 2 */
    luaL_getmetatable(L, SN_RIG2D_MT);
    lua_getfield(L, -1, "__index");
    lua_pushstring(L, SN_RIG2D_MT);
    lua_pushboolean(L, 0);
    lua_pushcclosure(L, l_vertices, 2);
    lua_setfield(L, -2, "vertices");
    lua_pop(L, 2);
    lua_pushcfunction(L, l_data);
    lua_setfield(L, module, "_rig2d_data");
    lua_pushcfunction(L, l_blend);
    lua_setfield(L, module, "_pose2d_blend");
    lua_pushcfunction(L, l_delta);
    lua_setfield(L, module, "_pose2d_delta");
}
