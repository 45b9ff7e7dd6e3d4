/***
 * Skeletons: `sinew.skeleton`, the joint hierarchy of poses, masks, clips and matrices.
 *
 * Joints are numbered from 1; a joint argument may also be given by name. Parents are 1-based
 * with 0 for a root, and every parent comes before its children.
 *
 * A method raises "sinew.Skeleton expected, got <type>" when its `self` is something else;
 * the methods' Raises sections leave that out.
 * @module sinew.skeleton
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "binding.h"

/* ---- what the other files use: skeletons, joints, kept skeletons ------------------------- */

sn_skeleton *sn_lua_checkskeleton(lua_State *L, int arg) {
    return (sn_skeleton *)sn_lua_checkobject(L, arg, SN_SKELETON_MT);
}

void sn_lua_keepskeleton(lua_State *L, int ud, int skel) {
    ud = sn_lua_absindex(L, ud);
    sn_lua_getuservalue(L, skel);
    sn_lua_setuservalue(L, ud);
}

void sn_lua_pushskeleton(lua_State *L, int ud) {
    sn_lua_getuservalue(L, ud); /* on Lua 5.1 a userdata without one has the globals table */
    if (lua_istable(L, -1)) lua_rawgeti(L, -1, 1);
    else lua_pushnil(L);
    lua_remove(L, -2);
    if (sn_lua_testobject(L, -1, SN_SKELETON_MT) == NULL) {
        lua_pop(L, 1);
        lua_pushnil(L);
    }
}

const sn_lua_entries *sn_lua_joints(void) {
    static const sn_lua_entries e = {"joint", sn_skeleton_count, sn_skeleton_find};
    return &e;
}

const sn_lua_entries *sn_lua_morphs(void) {
    static const sn_lua_entries e = {"morph", sn_skeleton_morph_count, sn_skeleton_morph_find};
    return &e;
}

int sn_lua_findentry(lua_State *L, int idx, const sn_skeleton *s, const sn_lua_entries *e) {
    size_t len;
    const char *name = lua_tolstring(L, idx, &len);
    return name != NULL && strlen(name) == len ? e->find(s, name) : -1;
}

/* the entry of `e` at `idx`: a 1-based index or a name, 0-based; an argument error on `arg` */
static int to_entry(lua_State *L, int idx, const sn_skeleton *s, int arg, const sn_lua_entries *e) {
    idx = sn_lua_absindex(L, idx);
    if (lua_type(L, idx) == LUA_TNUMBER) return sn_lua_toindex(L, idx, 1, e->count(s), arg, e->what) - 1;
    if (lua_type(L, idx) == LUA_TSTRING) {
        int k = sn_lua_findentry(L, idx, s, e);
        if (k < 0) return sn_lua_argerror(L, arg, lua_pushfstring(L, "unknown %s '%s'", e->what, lua_tostring(L, idx)));
        return k;
    }
    return sn_lua_argerror(L, arg, lua_pushfstring(L, "%s index or name expected, got %s", e->what, luaL_typename(L, idx)));
}

int sn_lua_tojoint(lua_State *L, int idx, const sn_skeleton *s, int arg) { return to_entry(L, idx, s, arg, sn_lua_joints()); }

int sn_lua_checkjoint(lua_State *L, int arg, const sn_skeleton *s) { return sn_lua_tojoint(L, arg, s, arg); }

int sn_lua_tomorph(lua_State *L, int idx, const sn_skeleton *s, int arg) { return to_entry(L, idx, s, arg, sn_lua_morphs()); }

/* ---- sinew.skeleton --------------------------------------------------------------------- */

static const char *const def_fields[] = {"names", "parents", "rest", "morphs", "morph_defaults", NULL};

/* field `key` of the definition at 1, pushed (once); it must be a table, or nil when optional */
static int def_table(lua_State *L, const char *key, int optional) {
    int t = sn_lua_field(L, 1, key);
    if (t == LUA_TNIL && optional) return 0;
    if (t != LUA_TTABLE)
        return sn_lua_argerror(L, 1, lua_pushfstring(L, "'%s' must be a table (got %s)", key, luaL_typename(L, -1)));
    return 1;
}

/* element c of the rest table at -1 of joint j, as a float */
static float rest_value(lua_State *L, int j, int c) {
    double v;
    lua_rawgeti(L, -1, c + 1);
    if (lua_type(L, -1) != LUA_TNUMBER)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "rest value %d of joint %d is not a number (got %s)", c + 1, j + 1,
                                            luaL_typename(L, -1)));
    v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (!sn_isfinite(v)) sn_lua_argerror(L, 1, lua_pushfstring(L, "rest value %d of joint %d is not finite", c + 1, j + 1));
    if (v > FLT_MAX || v < -FLT_MAX)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "rest value %d of joint %d is too large for a float", c + 1, j + 1));
    return (float)v;
}

/* Reads the morph targets of the definition at 1 into `def` (its names anchored in the table at
   6): 'morphs', a list of names, and 'morph_defaults', a list of as many numbers (stack slots 7
   to 9). */
static void read_morphs(lua_State *L, sn_skeleton_def *def) {
    const char **names;
    float *defaults;
    int n, m, has_defaults;
    def_table(L, "morphs", 1);                        /* 7 (nil when absent) */
    has_defaults = def_table(L, "morph_defaults", 1); /* 8 */
    n = lua_istable(L, 7) ? (int)sn_lua_rawlen(L, 7) : 0;
    if (has_defaults && lua_isnil(L, 7)) sn_lua_argerror(L, 1, "'morph_defaults' without 'morphs'");
    if (n > SN_SKELETON_MAX_MORPHS)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "%d morphs, more than the %d allowed", n, SN_SKELETON_MAX_MORPHS));
    if (has_defaults && (int)sn_lua_rawlen(L, 8) != n)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'morph_defaults' has %d entries, 'morphs' %d",
                                            (int)sn_lua_rawlen(L, 8), n));
    names = (const char **)sn_lua_newtemp(L, (sizeof(char *) + sizeof(float)) * (size_t)(n > 0 ? n : 1)); /* 9 */
    defaults = (float *)(names + (n > 0 ? n : 1));
    for (m = 0; m < n; m++) {
        size_t len;
        lua_rawgeti(L, 7, m + 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            sn_lua_argerror(L, 1, lua_pushfstring(L, "name of morph %d is not a string (got %s)", m + 1,
                                                luaL_typename(L, -1)));
        names[m] = lua_tolstring(L, -1, &len);
        if (strlen(names[m]) != len) sn_lua_argerror(L, 1, lua_pushfstring(L, "name of morph %d has a zero byte", m + 1));
        lua_rawseti(L, 6, def->count + m + 1); /* anchored after the joint names */
        if (has_defaults) {
            double v;
            lua_rawgeti(L, 8, m + 1);
            if (lua_type(L, -1) != LUA_TNUMBER)
                sn_lua_argerror(L, 1, lua_pushfstring(L, "default weight of morph %d is not a number (got %s)", m + 1,
                                                    luaL_typename(L, -1)));
            v = lua_tonumber(L, -1);
            lua_pop(L, 1);
            if (!sn_isfinite(v))
                sn_lua_argerror(L, 1, lua_pushfstring(L, "default weight of morph %d is not finite", m + 1));
            if (v > FLT_MAX || v < -FLT_MAX)
                sn_lua_argerror(L, 1, lua_pushfstring(L, "default weight of morph %d is too large for a float", m + 1));
            defaults[m] = (float)v;
        }
    }
    def->morph_count = n;
    def->morph_names = n > 0 ? names : NULL;
    def->morph_defaults = has_defaults ? defaults : NULL;
}

/* Reads the definition table at 1 into `def`. Its fields are read once (stack slots 2, 3, 4);
   the arrays go into a temporary userdata (5) and the names into an anchor table (6) that keeps
   the strings alive while the core reads them, whatever runs during later allocations. */
static void read_skeleton_def(lua_State *L, sn_skeleton_def *def) {
    int n, j, c, has_rest, *parents;
    const char **names;
    float *rest;
    sn_lua_checktype(L, 1, LUA_TTABLE);
    sn_lua_checkfields(L, 1, 1, "the skeleton definition", def_fields);
    def_table(L, "parents", 0);         /* 2 */
    def_table(L, "names", 0);           /* 3 */
    has_rest = def_table(L, "rest", 1); /* 4 */
    n = (int)sn_lua_rawlen(L, 2);
    if (n < 1) sn_lua_argerror(L, 1, "'parents' is empty: a skeleton needs at least one joint");
    if (n > SN_SKELETON_MAX_JOINTS)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "%d joints, more than the %d allowed", n, SN_SKELETON_MAX_JOINTS));
    names = (const char **)sn_lua_newtemp(L, (sizeof(char *) + 10 * sizeof(float) + sizeof(int)) * (size_t)n); /* 5 */
    rest = (float *)(names + n);
    parents = (int *)(rest + 10 * n);
    lua_createtable(L, n, 0); /* 6 */
    /* each value is read once, raw, into the blocks sized above: whatever a finaliser does to
       the tables during an allocation, nothing is written past them and every name is anchored */
    if ((int)sn_lua_rawlen(L, 3) > n)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'names' has %d entries, 'parents' %d", (int)sn_lua_rawlen(L, 3), n));
    if (has_rest && (int)sn_lua_rawlen(L, 4) != n)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'rest' has %d entries, 'parents' %d", (int)sn_lua_rawlen(L, 4), n));
    for (j = 0; j < n; j++) {
        size_t len;
        double p;
        lua_rawgeti(L, 2, j + 1);
        p = lua_tonumber(L, -1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            sn_lua_argerror(L, 1, lua_pushfstring(L, "parent of joint %d is not a number (got %s)", j + 1,
                                                luaL_typename(L, -1)));
        if (p != floor(p))
            sn_lua_argerror(L, 1, lua_pushfstring(L, "parent %s of joint %d is not an integer", sn_lua_numstr(L, p), j + 1));
        /* 0-based, saturated: the core checks the range */
        parents[j] = p < -1.0 ? -2 : p > (double)n ? n : (int)p - 1;
        lua_pop(L, 1);
        lua_rawgeti(L, 3, j + 1);
        if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING)
            sn_lua_argerror(L, 1, lua_pushfstring(L, "name of joint %d is not a string (got %s)", j + 1,
                                                luaL_typename(L, -1)));
        names[j] = lua_tolstring(L, -1, &len); /* NULL when missing: the core names the fault */
        if (names[j] != NULL && strlen(names[j]) != len)
            sn_lua_argerror(L, 1, lua_pushfstring(L, "name of joint %d has a zero byte", j + 1));
        lua_rawseti(L, 6, j + 1); /* anchored: the pointer stays valid */
        if (has_rest) {
            lua_rawgeti(L, 4, j + 1);
            if (!lua_istable(L, -1) || sn_lua_rawlen(L, -1) != 10)
                sn_lua_argerror(L, 1, lua_pushfstring(L, "rest of joint %d must be a table of 10 numbers", j + 1));
            for (c = 0; c < 10; c++) rest[10 * j + c] = rest_value(L, j, c);
            lua_pop(L, 1);
        }
    }
    sn_skeleton_def_init(def);
    def->count = n;
    def->parents = parents;
    def->names = names;
    def->rest = has_rest ? rest : NULL;
    read_morphs(L, def);
}

/***
 * Builds a skeleton.
 *
 * `def.parents` gives each joint's parent (1-based, 0 for a root; every parent before its
 * children), `def.names` a distinct non-empty name per joint, and the optional `def.rest` a table
 * per joint of 10 numbers `{tx,ty,tz, qx,qy,qz,qw, sx,sy,sz}`: translation in model units, rotation
 * quaternion, scale factors (default: the identity). Rest values are stored as float32 and rest
 * rotations are normalised. The optional `def.morphs` lists the names of the morph targets (blend
 * shapes: distinct among themselves, non-empty, at most 255 bytes; they may equal joint names)
 * and `def.morph_defaults` as many default weights (any finite number; default 0), which fresh
 * and reset poses hold. Every fault is an error; no partial object is made.
 * @function skeleton
 * @tparam table def `{names = {...}, parents = {...}, rest = {...}, morphs = {...}, morph_defaults = {...}}`
 * @treturn Skeleton
 * @raise when `def` is not a table; "unknown field 'x' in the skeleton definition"; "'parents' must
 * be a table (got nil)" (and 'names', 'rest'); "'parents' is empty: a skeleton needs at least one
 * joint"; "70000 joints, more than the 65535 allowed"; "'names' has 4 entries, 'parents' 3",
 * "'rest' has 2 entries, 'parents' 3"; "parent of joint 2 is not a number (got string)", "parent
 * 1.5 of joint 2 is not an integer", "parent 5 of joint 'b' is out of range (0 .. 3)", "joint 'a'
 * is its own parent", "parents form a cycle through joint 'a'", "parent 'b' comes after its child
 * 'c' (parents must come first)"; "name of joint 2 is not a string (got number)", "joint 2 has no
 * name", "name of joint 2 has a zero byte", "name of joint 2 is longer than 255 bytes", "joints 1
 * and 3 are both named 'a'"; "rest of joint 2 must be a table of 10 numbers", "rest value 4 of
 * joint 2 is not a number (got string)", "... is not finite", "... is too large for a float", "rest
 * rotation of joint 'b' is zero"; morphs: "'morphs' must be a table (got string)" (and
 * 'morph_defaults'), "'morph_defaults' without 'morphs'", "'morph_defaults' has 1 entries, 'morphs'
 * 2", "70000 morphs, more than the 65535 allowed", "name of morph 2 is not a string (got number)",
 * "morph 2 has no name", "name of morph 2 has a zero byte", "name of morph 2 is longer than 255
 * bytes", "morphs 1 and 3 are both named 'blink'", "default weight of morph 2 is not a number (got
 * string)", "... is not finite", "... is too large for a float"
 */
static int l_skeleton(lua_State *L) {
    sn_skeleton_def def;
    sn_allocator alloc;
    sn_error err;
    size_t size;
    void *mem;
    lua_settop(L, 1);
    read_skeleton_def(L, &def);
    sn_lua_allocator(L, &alloc);
    def.alloc = &alloc;
    size = sn_skeleton_size(&def, &err);
    if (size == 0) return sn_lua_raise(L, &err, 0);
    mem = sn_lua_newuserdata(L, size);
    if (sn_skeleton_init(mem, size, &def, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    sn_lua_setmetatable(L, SN_SKELETON_MT);
    lua_createtable(L, 1, 0); /* the uservalue shared by the skeleton and everything made of it */
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, 1);
    sn_lua_setuservalue(L, -2);
    return 1;
}

/* skeleton:find / find_morph: the entry of `e` named by argument 2 (1-based), or nil */
static int push_found(lua_State *L, const sn_lua_entries *e) {
    sn_skeleton *s = sn_lua_checkskeleton(L, 1);
    int k;
    sn_lua_checklstring(L, 2, NULL);
    k = sn_lua_findentry(L, 2, s, e);
    if (k < 0) lua_pushnil(L);
    else lua_pushinteger(L, k + 1);
    return 1;
}

/***
 * The index of the joint called `name`, or nil.
 * @function Skeleton:find
 * @tparam string name
 * @treturn ?int the joint (1 .. #skeleton), or nil when no joint has that name
 * @raise when `name` is not a string or a number
 */
static int l_skel_find(lua_State *L) { return push_found(L, sn_lua_joints()); }

/***
 * The parent of a joint: its index, 0 for a root.
 * @function Skeleton:parent
 * @param joint index (1 .. #skeleton) or name
 * @treturn int the parent (1 .. #skeleton), or 0
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil")
 */
static int l_skel_parent(lua_State *L) {
    sn_skeleton *s = sn_lua_checkskeleton(L, 1);
    lua_pushinteger(L, sn_skeleton_parent(s, sn_lua_checkjoint(L, 2, s)) + 1);
    return 1;
}

/***
 * The name of a joint.
 * @function Skeleton:name
 * @param joint index (1 .. #skeleton) or name
 * @treturn string
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil")
 */
static int l_skel_name(lua_State *L) {
    sn_skeleton *s = sn_lua_checkskeleton(L, 1);
    lua_pushstring(L, sn_skeleton_name(s, sn_lua_checkjoint(L, 2, s)));
    return 1;
}

/***
 * The rest transform of a joint: 10 numbers (float32 values).
 * @function Skeleton:rest
 * @param joint index (1 .. #skeleton) or name
 * @return tx, ty, tz (model units), qx, qy, qz, qw (a unit quaternion), sx, sy, sz (factors)
 * @raise for a bad joint ("unknown joint 'x'", "joint 9 is out of range (1 .. 8)", "joint 1.5 is
 * not an integer" or "joint index or name expected, got nil")
 */
static int l_skel_rest(lua_State *L) {
    sn_skeleton *s = sn_lua_checkskeleton(L, 1);
    float trs[10];
    int c;
    sn_skeleton_rest(s, sn_lua_checkjoint(L, 2, s), trs);
    for (c = 0; c < 10; c++) lua_pushnumber(L, trs[c]);
    return 10;
}

/***
 * The number of morph targets (blend shapes) of the skeleton.
 * @function Skeleton:morph_count
 * @treturn int 0 .. 65535
 * @raise never
 */
static int l_skel_morph_count(lua_State *L) {
    lua_pushinteger(L, sn_skeleton_morph_count(sn_lua_checkskeleton(L, 1)));
    return 1;
}

/***
 * The names of the morph targets, in order: a new list (empty without morphs).
 * @function Skeleton:morphs
 * @treturn {string,...}
 * @raise never
 */
static int l_skel_morphs(lua_State *L) {
    sn_skeleton *s = sn_lua_checkskeleton(L, 1);
    int n = sn_skeleton_morph_count(s), m;
    lua_createtable(L, n, 0);
    for (m = 0; m < n; m++) {
        lua_pushstring(L, sn_skeleton_morph_name(s, m));
        lua_rawseti(L, -2, m + 1);
    }
    return 1;
}

/***
 * The index of the morph target called `name`, or nil.
 * @function Skeleton:find_morph
 * @tparam string name
 * @treturn ?int the morph (1 .. skeleton:morph_count()), or nil when no morph has that name
 * @raise when `name` is not a string or a number
 */
static int l_skel_find_morph(lua_State *L) { return push_found(L, sn_lua_morphs()); }

/***
 * The default weight of a morph target (what a fresh or reset pose holds).
 * @function Skeleton:morph_default
 * @param morph index (1 .. skeleton:morph_count()) or name
 * @treturn number the weight (a float32 value)
 * @raise for a bad morph ("unknown morph 'x'", "morph 9 is out of range (1 .. 8)", "morph 1.5 is
 * not an integer" or "morph index or name expected, got nil")
 */
static int l_skel_morph_default(lua_State *L) {
    sn_skeleton *s = sn_lua_checkskeleton(L, 1);
    lua_pushnumber(L, sn_skeleton_morph_defaults(s)[sn_lua_tomorph(L, 2, s, 2)]);
    return 1;
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
        {"morph_count", l_skel_morph_count}, {"morphs", l_skel_morphs}, {"find_morph", l_skel_find_morph},
        {"morph_default", l_skel_morph_default}, {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__len", l_skel_len}, {"__tostring", l_skel_tostring}, {NULL, NULL}};
    sn_lua_newclass(L, SN_SKELETON_MT, methods, meta);
    lua_pushcfunction(L, l_skeleton);
    lua_setfield(L, module, "skeleton");
}
