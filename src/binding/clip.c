/***
 * Keyframed clips: `sinew.clip`, sampled into poses.
 *
 * Translation and scale tracks lerp, rotation tracks nlerp on the shortest arc; "step" holds
 * the previous key; "cubicspline" is glTF's Hermite form. Joints without a track keep the rest
 * pose. Sampling forward in time reuses a cursor kept in the clip, so it costs no key search.
 * @module sinew.clip
 */
#include <string.h>

#include "../core/clip.h"
#include "anim.h"

static const char *const paths[] = {"translation", "rotation", "scale", NULL};
static const char *const interpolations[] = {"linear", "step", "cubicspline", NULL};

static sn_clip *check_clip(lua_State *L, int arg) { return (sn_clip *)sn_lua_checkobject(L, arg, SN_CLIP_MT); }

static int def_error(lua_State *L, int track, const char *msg) {
    if (track > 0) return luaL_argerror(L, 1, lua_pushfstring(L, "track %d: %s", track, msg));
    return luaL_argerror(L, 1, msg);
}

static int option_of(const char *s, const char *const *list) {
    int i;
    for (i = 0; list[i] != NULL; i++)
        if (strcmp(s, list[i]) == 0) return i;
    return -1;
}

/* reads string field `key` of the table at -1 as one of `list`; `def` when absent (-1: required) */
static int field_option(lua_State *L, int track, const char *key, const char *const *list, int def) {
    int o;
    lua_getfield(L, -1, key);
    if (lua_isnil(L, -1) && def >= 0) {
        lua_pop(L, 1);
        return def;
    }
    if (lua_type(L, -1) != LUA_TSTRING)
        def_error(L, track, lua_pushfstring(L, "'%s' must be a string (got %s)", key, luaL_typename(L, -1)));
    o = option_of(lua_tostring(L, -1), list);
    if (o < 0) def_error(L, track, lua_pushfstring(L, "unknown %s '%s'", key, lua_tostring(L, -1)));
    lua_pop(L, 1);
    return o;
}

/* pushes field `key` of the table at -1, which must be a table */
static int field_table(lua_State *L, int track, const char *key) {
    lua_getfield(L, -1, key);
    if (!lua_istable(L, -1))
        def_error(L, track, lua_pushfstring(L, "'%s' must be a table (got %s)", key, luaL_typename(L, -1)));
    return (int)sn_lua_rawlen(L, -1);
}

/* reads n numbers of the table at -1 into out */
static void read_floats(lua_State *L, int track, const char *what, float *out, int n) {
    int k;
    for (k = 0; k < n; k++) {
        lua_rawgeti(L, -1, k + 1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            def_error(L, track,
                      lua_pushfstring(L, "%s %d is not a number (got %s)", what, k + 1, luaL_typename(L, -1)));
        out[k] = (float)lua_tonumber(L, -1);
        if (!sn_isfinite(out[k])) def_error(L, track, lua_pushfstring(L, "%s %d is not finite", what, k + 1));
        lua_pop(L, 1);
    }
}

/* Reads track i (1-based) of the tracks table at index 3 into tr; with `floats` NULL only
   counts, returning the floats it needs. */
static size_t read_track(lua_State *L, const sn_skeleton *s, int i, sn_clip_track_def *tr, float *floats) {
    int keys, nvalues, want, width;
    lua_rawgeti(L, 3, i);
    if (!lua_istable(L, -1)) def_error(L, i, lua_pushfstring(L, "a table expected, got %s", luaL_typename(L, -1)));
    lua_getfield(L, -1, "joint");
    if (lua_type(L, -1) == LUA_TSTRING) {
        tr->joint = sn_skeleton_find(s, lua_tostring(L, -1));
        if (tr->joint < 0) def_error(L, i, lua_pushfstring(L, "unknown joint '%s'", lua_tostring(L, -1)));
    } else if (lua_type(L, -1) == LUA_TNUMBER) {
        lua_Number v = lua_tonumber(L, -1);
        if (!(v >= 1 && v <= sn_skeleton_count(s) && v == (lua_Number)(int)v))
            def_error(L, i, lua_pushfstring(L, "joint %s is not an index in 1 .. %d", sn_lua_numstr(L, v),
                                            sn_skeleton_count(s)));
        tr->joint = (int)v - 1;
    } else {
        def_error(L, i, lua_pushfstring(L, "'joint' must be a name or an index (got %s)", luaL_typename(L, -1)));
    }
    lua_pop(L, 1);
    tr->path = (sn_clip_path)field_option(L, i, "path", paths, -1);
    tr->interpolation = (sn_clip_interpolation)field_option(L, i, "interpolation", interpolations, SN_CLIP_LINEAR);
    width = tr->path == SN_CLIP_ROTATION ? 4 : 3;
    keys = field_table(L, i, "times");
    if (keys < 1) def_error(L, i, "no keys ('times' is empty)");
    if (floats != NULL) read_floats(L, i, "time", floats, keys);
    lua_pop(L, 1);
    nvalues = field_table(L, i, "values");
    want = keys * width * (tr->interpolation == SN_CLIP_CUBIC ? 3 : 1);
    if (nvalues != want) {
        if (tr->interpolation == SN_CLIP_CUBIC)
            def_error(L, i, lua_pushfstring(L, "%d values, expected %d (%d keys x 3 x %d for cubicspline)", nvalues,
                                            want, keys, width));
        def_error(L, i, lua_pushfstring(L, "%d values, expected %d (%d keys x %d)", nvalues, want, keys, width));
    }
    if (floats != NULL) {
        read_floats(L, i, "value", floats + keys, nvalues);
        tr->keys = keys;
        tr->times = floats;
        tr->values = floats + keys;
    }
    lua_pop(L, 2);
    return (size_t)keys + (size_t)nvalues;
}

/***
 * Builds a clip.
 *
 * `def.skeleton` is the Skeleton, `def.tracks` a list of tracks
 * `{joint = name or index, path = "translation" | "rotation" | "scale", times = {...},
 * values = {...}, interpolation = "linear" (default) | "step" | "cubicspline"}` with strictly
 * increasing times and 3 (translation, scale) or 4 (rotation x, y, z, w) values per key, three
 * times as many for "cubicspline" (in-tangent, value, out-tangent per key, as glTF).
 * `def.duration` (seconds) defaults to the last key time of all tracks. Every fault is an error;
 * no partial object is made.
 * @function clip
 * @tparam table def
 * @treturn Clip
 */
static int l_clip(lua_State *L) {
    sn_clip_def def;
    sn_clip_track_def *tracks;
    sn_error err;
    float *floats;
    size_t total = 0, size;
    int n, i;
    void *mem;
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    sn_clip_def_init(&def);
    lua_getfield(L, 1, "skeleton"); /* 2 */
    def.skeleton = (const sn_skeleton *)sn_lua_testudata(L, 2, SN_SKELETON_MT);
    if (def.skeleton == NULL)
        return def_error(L, 0, lua_pushfstring(L, "'skeleton' must be a %s (got %s)", SN_SKELETON_MT,
                                               luaL_typename(L, 2)));
    lua_getfield(L, 1, "tracks"); /* 3 */
    if (!lua_istable(L, 3))
        return def_error(L, 0, lua_pushfstring(L, "'tracks' must be a table (got %s)", luaL_typename(L, 3)));
    n = (int)sn_lua_rawlen(L, 3);
    if (n > 3 * sn_skeleton_count(def.skeleton))
        return def_error(L, 0, lua_pushfstring(L, "%d tracks, more than 3 per joint", n));
    for (i = 1; i <= n; i++) {
        sn_clip_track_def tr;
        total += read_track(L, def.skeleton, i, &tr, NULL);
    }
    /* 4: a temporary block for the track definitions and their numbers (garbage after this call) */
    tracks = (sn_clip_track_def *)lua_newuserdata(L, sizeof(sn_clip_track_def) * (size_t)n + sizeof(float) * total + 1);
    floats = (float *)(tracks + n);
    for (i = 1; i <= n; i++) floats += read_track(L, def.skeleton, i, &tracks[i - 1], floats);
    def.tracks = tracks;
    def.track_count = n;
    lua_getfield(L, 1, "duration");
    if (lua_isnil(L, -1)) {
        int k;
        def.duration = 0.0f; /* the latest key time (not only last ones, so that order faults show as such) */
        for (i = 0; i < n; i++)
            for (k = 0; k < tracks[i].keys; k++)
                if (tracks[i].times[k] > def.duration) def.duration = tracks[i].times[k];
    } else {
        double d;
        if (lua_type(L, -1) != LUA_TNUMBER)
            return def_error(L, 0, lua_pushfstring(L, "'duration' must be a number (got %s)", luaL_typename(L, -1)));
        d = lua_tonumber(L, -1);
        if (!(d >= 0) || !sn_isfinite((float)d)) return def_error(L, 0, "'duration' must be a finite number >= 0");
        def.duration = (float)d;
    }
    lua_pop(L, 1);
    size = sn_clip_size(&def, &err);
    if (size == 0) return def_error(L, 0, err.msg);
    mem = sn_lua_newuserdata(L, size);
    if (sn_clip_init(mem, size, &def, &err) != SN_OK) return def_error(L, 0, err.msg);
    sn_lua_setmetatable(L, SN_CLIP_MT);
    sn_lua_keepskeleton(L, -1, 2);
    return 1;
}

/***
 * Samples the clip at time `t` (seconds) into `pose` (of the clip's skeleton) and returns the
 * pose. With `loop` (default true) t wraps into [0, duration), negative times and times far
 * past the end included; without, t is clamped to [0, duration]. No garbage.
 * @function Clip:sample
 * @tparam number t
 * @tparam Pose pose
 * @tparam[opt=true] boolean loop
 * @treturn Pose pose
 */
static int l_clip_sample(lua_State *L) {
    sn_clip *c = check_clip(L, 1);
    double t = sn_lua_checkfinite(L, 2);
    sn_pose *p = sn_lua_checkpose(L, 3);
    int loop = lua_isnoneornil(L, 4) ? 1 : lua_toboolean(L, 4);
    sn_error err;
    if (sn_clip_sample(c, t, loop, p, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    lua_settop(L, 3);
    return 1;
}

/***
 * The duration in seconds.
 * @function Clip:duration
 * @treturn number
 */
static int l_clip_duration(lua_State *L) {
    lua_pushnumber(L, sn_clip_duration(check_clip(L, 1)));
    return 1;
}

/***
 * The local time the clip samples at for time `t`: wrapped into [0, duration) with `loop`
 * (default true), clamped to [0, duration] without.
 * @function Clip:local_time
 * @tparam number t
 * @tparam[opt=true] boolean loop
 * @treturn number
 */
static int l_clip_local_time(lua_State *L) {
    sn_clip *c = check_clip(L, 1);
    double t = sn_lua_checkfinite(L, 2);
    lua_pushnumber(L, sn_clip_local_time(c, t, lua_isnoneornil(L, 3) ? 1 : lua_toboolean(L, 3)));
    return 1;
}

/***
 * The skeleton the clip animates.
 * @function Clip:skeleton
 * @treturn Skeleton
 */
static int l_clip_skeleton(lua_State *L) {
    check_clip(L, 1);
    sn_lua_pushskeleton(L, 1);
    return 1;
}

static int l_clip_tostring(lua_State *L) {
    sn_clip *c = check_clip(L, 1);
    lua_pushfstring(L, "sinew.Clip (%d tracks, %f s): %p", sn_clip_track_count(c), (lua_Number)sn_clip_duration(c),
                    (void *)c);
    return 1;
}

void sn_open_clip(lua_State *L, int module) {
    static const luaL_Reg methods[] = {{"sample", l_clip_sample},
                                       {"duration", l_clip_duration},
                                       {"local_time", l_clip_local_time},
                                       {"skeleton", l_clip_skeleton},
                                       {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__tostring", l_clip_tostring}, {NULL, NULL}};
    sn_lua_newclass(L, SN_CLIP_MT, methods, meta);
    lua_pushcfunction(L, l_clip);
    lua_setfield(L, module, "clip");
}
