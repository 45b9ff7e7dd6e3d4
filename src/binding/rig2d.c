/***
 * 2-D rigs in the C core (the building blocks of `sinew.dragonbones`; use that module, which
 * compiles a DragonBones file's armatures and animations into these objects).
 *
 * An armature (`sinew.Rig2DData`) and its animations (`sinew.Anim2D`) are built once from
 * layouts (lists of numbers, see src/core/rig2d.h); a rig (`sinew.Rig2D`) is one instance.
 * Indices are 1-based. Per-frame methods return plain numbers or fill a table the caller gives.
 * @module sinew.core.rig2d
 */
#include "../core/rig2d.h"
#include "binding.h"

#define SN_RIG2D_DATA_MT "sinew.Rig2DData"
#define SN_ANIM2D_MT "sinew.Anim2D"
#define SN_RIG2D_MT "sinew.Rig2D"

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
    double *out = (double *)sn_lua_scratch(L, 2, sizeof(double) * 2 * (size_t)v);
    sn_rig2d_vertices(r, s, out, 2 * v);
    for (int i = 0; i < 2 * v; i++) {
        lua_pushnumber(L, out[i]);
        lua_rawseti(L, 3, i + 1);
    }
    lua_pushinteger(L, v);
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

void sn_open_rig2d(lua_State *L, int module) {
    static const luaL_Reg data_methods[] = { { "animation", l_anim }, { "rig", l_rig }, { "counts", l_data_counts },
                                             { NULL, NULL } };
    static const luaL_Reg anim_methods[] = { { "duration", l_anim_duration }, { NULL, NULL } };
    static const luaL_Reg rig_methods[] = { { "update", l_update },       { "setup", l_setup },
                                            { "world", l_world },         { "bone", l_bone },
                                            { "slot_matrix", l_slot_matrix }, { "slot", l_slot },
                                            { "slot_offsets", l_slot_offsets }, { "draw_order", l_draw_order },
                                            { "set_display", l_set_display }, { "pose", l_pose }, { "mesh", l_mesh },
                                            { NULL, NULL } };
    static const luaL_Reg none[] = { { NULL, NULL } };
    sn_lua_newclass(L, SN_RIG2D_DATA_MT, data_methods, none);
    sn_lua_newclass(L, SN_ANIM2D_MT, anim_methods, none);
    sn_lua_newclass(L, SN_RIG2D_MT, rig_methods, none);
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
}
