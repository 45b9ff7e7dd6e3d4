/***
 * Skeletons: `sinew.skeleton`, the joint hierarchy of poses, masks, clips and matrices.
 *
 * Joints are numbered from 1; a joint argument may also be given by name. Parents are 1-based
 * with 0 for a root, and every parent comes before its children.
 * @module sinew.skeleton
 */
#include <math.h>
#include <string.h>

#include "anim.h"

/* ---- shared helpers --------------------------------------------------------------------- */

void *sn_lua_checkobject(lua_State *L, int arg, const char *tname) {
    void *p = sn_lua_testudata(L, arg, tname);
    if (p == NULL)
        luaL_argerror(L, arg, lua_pushfstring(L, "%s expected, got %s", tname, luaL_typename(L, arg)));
    return p;
}

sn_skeleton *sn_lua_checkskeleton(lua_State *L, int arg) {
    return (sn_skeleton *)sn_lua_checkobject(L, arg, SN_SKELETON_MT);
}

sn_pose *sn_lua_checkpose(lua_State *L, int arg) { return (sn_pose *)sn_lua_checkobject(L, arg, SN_POSE_MT); }

sn_mask *sn_lua_checkmask(lua_State *L, int arg) { return (sn_mask *)sn_lua_checkobject(L, arg, SN_MASK_MT); }

void sn_lua_keepskeleton(lua_State *L, int ud, int skel) {
    ud = sn_lua_absindex(L, ud);
    sn_lua_getuservalue(L, skel);
    sn_lua_setuservalue(L, ud);
}

void sn_lua_pushskeleton(lua_State *L, int ud) {
    sn_lua_getuservalue(L, ud);
    if (lua_istable(L, -1)) lua_rawgeti(L, -1, 1);
    else lua_pushnil(L);
    lua_remove(L, -2);
}

const char *sn_lua_numstr(lua_State *L, lua_Number v) {
    if (v == floor(v) && fabs(v) < 1e9) return lua_pushfstring(L, "%d", (int)v);
    return lua_pushfstring(L, "%f", v);
}

int sn_lua_tojoint(lua_State *L, int idx, const sn_skeleton *s, int arg) {
    int n = sn_skeleton_count(s);
    if (lua_type(L, idx) == LUA_TNUMBER) {
        lua_Number v = lua_tonumber(L, idx);
        if (v >= 1 && v <= n && v == (lua_Number)(int)v) return (int)v - 1;
        if (v != floor(v))
            return luaL_argerror(L, arg, lua_pushfstring(L, "joint index %s is not an integer", sn_lua_numstr(L, v)));
        return luaL_argerror(L, arg, lua_pushfstring(L, "joint %s is out of range (1 .. %d)", sn_lua_numstr(L, v), n));
    }
    if (lua_type(L, idx) == LUA_TSTRING) {
        const char *name = lua_tostring(L, idx);
        int j = sn_skeleton_find(s, name);
        if (j < 0) return luaL_argerror(L, arg, lua_pushfstring(L, "unknown joint '%s'", name));
        return j;
    }
    return luaL_argerror(L, arg, lua_pushfstring(L, "joint index or name expected, got %s", luaL_typename(L, idx)));
}

int sn_lua_checkjoint(lua_State *L, int arg, const sn_skeleton *s) { return sn_lua_tojoint(L, arg, s, arg); }

/* ---- sinew.skeleton --------------------------------------------------------------------- */

/* the field `key` of the definition table at 1, which must be a table (or absent when optional) */
static int def_table(lua_State *L, const char *key, int optional) {
    lua_getfield(L, 1, key);
    if (lua_isnil(L, -1) && optional) return 0;
    if (!lua_istable(L, -1))
        return luaL_argerror(L, 1, lua_pushfstring(L, "'%s' must be a table (got %s)", key, luaL_typename(L, -1)));
    return 1;
}

/* reads the definition table at 1 into `def`, with its arrays in a temporary userdata */
static void read_skeleton_def(lua_State *L, sn_skeleton_def *def) {
    int n, j, c, has_rest, *parents;
    const char **names;
    float *rest;
    luaL_checktype(L, 1, LUA_TTABLE);
    def_table(L, "parents", 0);  /* 2 */
    def_table(L, "names", 0);    /* 3 */
    has_rest = def_table(L, "rest", 1); /* 4 */
    n = (int)sn_lua_rawlen(L, 2);
    if (n < 1) luaL_argerror(L, 1, "'parents' is empty: a skeleton needs at least one joint");
    if (n > SN_SKELETON_MAX_JOINTS)
        luaL_argerror(L, 1, lua_pushfstring(L, "%d joints, more than the %d allowed", n, SN_SKELETON_MAX_JOINTS));
    if ((int)sn_lua_rawlen(L, 3) > n)
        luaL_argerror(L, 1, lua_pushfstring(L, "'names' has %d entries, 'parents' %d", (int)sn_lua_rawlen(L, 3), n));
    if (has_rest && (int)sn_lua_rawlen(L, 4) != n)
        luaL_argerror(L, 1, lua_pushfstring(L, "'rest' has %d entries, 'parents' %d", (int)sn_lua_rawlen(L, 4), n));
    names = (const char **)lua_newuserdata(L, (sizeof(char *) + 10 * sizeof(float) + sizeof(int)) * (size_t)n); /* 5 */
    rest = (float *)(names + n);
    parents = (int *)(rest + 10 * n);
    for (j = 0; j < n; j++) {
        lua_Number p;
        lua_rawgeti(L, 2, j + 1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            luaL_argerror(L, 1, lua_pushfstring(L, "parent of joint %d is not a number (got %s)", j + 1,
                                                luaL_typename(L, -1)));
        p = lua_tonumber(L, -1);
        lua_pop(L, 1);
        if (!(p >= 0 && p <= n))
            luaL_argerror(L, 1, lua_pushfstring(L, "parent of joint %d is out of range (0 .. %d)", j + 1, n));
        if (p != (lua_Number)(int)p)
            luaL_argerror(L, 1, lua_pushfstring(L, "parent of joint %d is not an integer", j + 1));
        parents[j] = (int)p - 1;
        lua_rawgeti(L, 3, j + 1);
        if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING)
            luaL_argerror(L, 1, lua_pushfstring(L, "name of joint %d is not a string (got %s)", j + 1,
                                                luaL_typename(L, -1)));
        names[j] = lua_tostring(L, -1); /* NULL when missing; the string stays in the names table */
        lua_pop(L, 1);
        if (has_rest) {
            lua_rawgeti(L, 4, j + 1);
            if (!lua_istable(L, -1) || sn_lua_rawlen(L, -1) != 10)
                luaL_argerror(L, 1, lua_pushfstring(L, "rest of joint %d must be a table of 10 numbers", j + 1));
            for (c = 0; c < 10; c++) {
                lua_rawgeti(L, -1, c + 1);
                if (lua_type(L, -1) != LUA_TNUMBER)
                    luaL_argerror(L, 1, lua_pushfstring(L, "rest value %d of joint %d is not a number", c + 1, j + 1));
                rest[10 * j + c] = (float)lua_tonumber(L, -1);
                if (!sn_isfinite(rest[10 * j + c]))
                    luaL_argerror(L, 1, lua_pushfstring(L, "rest value %d of joint %d is not finite", c + 1, j + 1));
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
    }
    sn_skeleton_def_init(def);
    def->count = n;
    def->parents = parents;
    def->names = names;
    def->rest = has_rest ? rest : NULL;
}

/***
 * Builds a skeleton.
 *
 * `def.parents` gives each joint's parent (1-based, 0 for a root; every parent before its
 * children), `def.names` a distinct non-empty name per joint, and the optional `def.rest` a table
 * per joint of 10 numbers `{tx,ty,tz, qx,qy,qz,qw, sx,sy,sz}` (default: the identity). Rest
 * rotations are normalised. Every fault is an error; no partial object is made.
 * @function skeleton
 * @tparam table def `{names = {...}, parents = {...}, rest = {...}}`
 * @treturn Skeleton
 */
static int l_skeleton(lua_State *L) {
    sn_skeleton_def def;
    sn_error err;
    size_t size;
    void *mem;
    lua_settop(L, 1);
    read_skeleton_def(L, &def);
    size = sn_skeleton_size(&def, &err);
    if (size == 0) return luaL_argerror(L, 1, err.msg);
    mem = sn_lua_newuserdata(L, size);
    if (sn_skeleton_init(mem, size, &def, &err) != SN_OK) return luaL_argerror(L, 1, err.msg);
    sn_lua_setmetatable(L, SN_SKELETON_MT);
    lua_createtable(L, 1, 0); /* the uservalue shared by the skeleton and everything made of it */
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, 1);
    sn_lua_setuservalue(L, -2);
    return 1;
}

/***
 * The index of the joint called `name`, or nil.
 * @function Skeleton:find
 * @tparam string name
 * @treturn ?int
 */
static int l_skel_find(lua_State *L) {
    sn_skeleton *s = sn_lua_checkskeleton(L, 1);
    int j = sn_skeleton_find(s, luaL_checkstring(L, 2));
    if (j < 0) lua_pushnil(L);
    else lua_pushinteger(L, j + 1);
    return 1;
}

/***
 * The parent of a joint: its index, 0 for a root.
 * @function Skeleton:parent
 * @param joint index or name
 * @treturn int
 */
static int l_skel_parent(lua_State *L) {
    sn_skeleton *s = sn_lua_checkskeleton(L, 1);
    lua_pushinteger(L, sn_skeleton_parent(s, sn_lua_checkjoint(L, 2, s)) + 1);
    return 1;
}

/***
 * The name of a joint.
 * @function Skeleton:name
 * @param joint index or name
 * @treturn string
 */
static int l_skel_name(lua_State *L) {
    sn_skeleton *s = sn_lua_checkskeleton(L, 1);
    lua_pushstring(L, sn_skeleton_name(s, sn_lua_checkjoint(L, 2, s)));
    return 1;
}

/***
 * The rest transform of a joint: 10 numbers tx,ty,tz, qx,qy,qz,qw, sx,sy,sz (float32 values).
 * @function Skeleton:rest
 * @param joint index or name
 */
static int l_skel_rest(lua_State *L) {
    sn_skeleton *s = sn_lua_checkskeleton(L, 1);
    float trs[10];
    int c;
    sn_skeleton_rest(s, sn_lua_checkjoint(L, 2, s), trs);
    for (c = 0; c < 10; c++) lua_pushnumber(L, trs[c]);
    return 10;
}

static int l_skel_len(lua_State *L) {
    lua_pushinteger(L, sn_skeleton_count(sn_lua_checkskeleton(L, 1)));
    return 1;
}

static int l_skel_tostring(lua_State *L) {
    sn_skeleton *s = sn_lua_checkskeleton(L, 1);
    lua_pushfstring(L, "sinew.Skeleton (%d joints): %p", sn_skeleton_count(s), (void *)s);
    return 1;
}

void sn_open_skeleton(lua_State *L, int module) {
    static const luaL_Reg methods[] = {
        {"find", l_skel_find}, {"parent", l_skel_parent}, {"name", l_skel_name}, {"rest", l_skel_rest},
        {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__len", l_skel_len}, {"__tostring", l_skel_tostring}, {NULL, NULL}};
    sn_lua_newclass(L, SN_SKELETON_MT, methods, meta);
    lua_pushcfunction(L, l_skeleton);
    lua_setfield(L, module, "skeleton");
}

void sn_open_anim(lua_State *L, int module) {
    sn_open_skeleton(L, module);
    sn_open_pose(L, module);
    sn_open_clip(L, module);
}
