/*
 * The C half of sinew.bvh (internal: `sinew.core._bvh`, called by the Lua of sinew.bvh): the
 * MOTION section's numbers read in C (src/core/bvh.c) into a value buffer, and the clip's keys
 * made from it as float buffers (sinew.Floats, which `sinew.clip` reads in place), so that a file
 * of a quarter of a million numbers passes through no Lua number per value.
 */
#include <math.h>
#include <string.h>

#include "../core/bvh.h"
#include "binding.h"

#define SN_BVH_VALUES_MT "sinew.BVHValues"

/// The most frames, and numbers of a MOTION section, read (as lua/sinew/bvh/read.lua's limits).
#define MAX_FRAMES 1000000
#define MAX_VALUES 20000000

typedef struct values {
    long frames;
    int channels;
    double v[1]; /* frames * channels */
} values;

static const values *check_values(lua_State *L, int arg) {
    return (const values *)sn_lua_checkobject(L, arg, SN_BVH_VALUES_MT);
}

/* a whole number in [lo, hi] at argument `arg` */
static double check_count(lua_State *L, int arg, double lo, double hi, const char *what) {
    const double v = sn_lua_checknumber(L, arg);
    if (!(v >= lo && v <= hi) || v != floor(v))
        return sn_lua_argerror(L, arg, lua_pushfstring(L, "%s must be a whole number in %d .. %d", what, (int)lo, (int)hi));
    return v;
}

/*
 * Reads the frames of a MOTION section.
 * @function _bvh.frames
 * @tparam string text the file's text
 * @tparam int start where the first frame's line begins (1-based)
 * @tparam int frames 1 .. 1e6
 * @tparam int channels numbers a frame, 1 .. 1e6 (frames * channels at most 2e7)
 * @return a value buffer (sinew.BVHValues); or nil, the fault ("missing", "not a number", "too
 * many", "too few"), the frame, the number (the count read for "too few"), the line from `start`'s
 * (0-based) and the token (for "not a number")
 */
static int l_frames(lua_State *L) {
    static const char *const kinds[] = {"", "missing", "not a number", "too many", "too few"};
    size_t len;
    const char *text = sn_lua_checklstring(L, 1, &len);
    const double start = check_count(L, 2, 1, (double)len + 1 > 2e9 ? 2e9 : (double)len + 1, "start");
    const long frames = (long)check_count(L, 3, 1, MAX_FRAMES, "frames");
    const int channels = (int)check_count(L, 4, 1, MAX_FRAMES, "channels");
    const size_t count = (size_t)frames * (size_t)channels, room = len - (size_t)start + 1;
    sn_bvh_fault fault;
    values *out = NULL;
    if (count > MAX_VALUES) return sn_lua_argerror(L, 4, "more numbers than sinew reads (2e7)");
    /* each number takes two bytes of the text at least (a digit and a white space or line end,
       but the last): a section too short to hold them all is read without a buffer, for its
       fault, so that a file cannot make sinew allocate for numbers it does not hold */
    if (count <= room / 2 + 1) {
        out = (values *)sn_lua_newuserdata(L, sizeof(values) + sizeof(double) * count);
        out->frames = frames;
        out->channels = channels;
        sn_lua_setmetatable(L, SN_BVH_VALUES_MT);
    }
    if (sn_bvh_frames(text, len, (size_t)start - 1, frames, channels, out != NULL ? out->v : NULL, &fault) == SN_OK) {
        if (out == NULL) return sn_lua_errorf(L, "internal: the section held more numbers than it can");
        return 1;
    }
    lua_pushnil(L);
    lua_pushstring(L, kinds[fault.kind]);
    lua_pushinteger(L, (lua_Integer)fault.frame);
    lua_pushinteger(L, (lua_Integer)fault.number);
    lua_pushinteger(L, (lua_Integer)fault.line);
    if (fault.kind == SN_BVH_NOT_NUMBER) {
        lua_pushlstring(L, text + fault.token, fault.token_len);
        return 6;
    }
    return 5;
}

/* the 1-based columns in the table at `arg` (at most `most`, each in 1 .. channels) into cols
   (0-based), and their count; with `axes` (the table at arg + 1, the same length) the axes 1 .. 3
   into axes (0-based) */
static int read_columns(lua_State *L, int arg, int channels, int most, int *cols, int *axes) {
    int n, i;
    sn_lua_checktype(L, arg, LUA_TTABLE);
    if (axes != NULL) sn_lua_checktype(L, arg + 1, LUA_TTABLE);
    n = (int)sn_lua_rawlen(L, arg);
    if (n > most) return sn_lua_argerror(L, arg, lua_pushfstring(L, "more than %d columns", most));
    if (axes != NULL && (int)sn_lua_rawlen(L, arg + 1) != n) return sn_lua_argerror(L, arg + 1, "not one axis a column");
    for (i = 0; i < n; i++) {
        double c;
        lua_rawgeti(L, arg, i + 1);
        c = lua_tonumber(L, -1);
        lua_pop(L, 1);
        if (!(c >= (axes != NULL ? 1 : 0) && c <= channels) || c != floor(c))
            return sn_lua_argerror(L, arg, lua_pushfstring(L, "column %d is not a channel (1 .. %d)", i + 1, channels));
        cols[i] = (int)c - 1;
        if (axes != NULL) {
            double a;
            lua_rawgeti(L, arg + 1, i + 1);
            a = lua_tonumber(L, -1);
            lua_pop(L, 1);
            if (!(a == 1 || a == 2 || a == 3)) return sn_lua_argerror(L, arg + 1, lua_pushfstring(L, "axis %d is not 1, 2 or 3", i + 1));
            axes[i] = (int)a - 1;
        }
    }
    return n;
}

/*
 * The rotation keys of one joint (sn_bvh_rotations).
 * @function _bvh.rotations
 * @param values a value buffer of _bvh.frames
 * @tparam {int,...} cols the joint's rotation channels' columns in a frame (1-based), in their order (at most 16)
 * @tparam {int,...} axes their axes (1 x, 2 y, 3 z)
 * @tparam boolean zup convert from Z-up to Y-up
 * @return a float buffer of 4 floats a frame
 */
static int l_rotations(lua_State *L) {
    const values *v = check_values(L, 1);
    int cols[16], axes[16];
    const int n = read_columns(L, 2, v->channels, 16, cols, axes);
    const int zup = lua_toboolean(L, 4);
    sn_lua_floats *out = sn_lua_newfloats(L, 4 * (size_t)v->frames);
    sn_bvh_rotations(v->v, v->frames, v->channels, cols, axes, n, zup, out->v);
    return 1;
}

/*
 * The translation keys of one joint (sn_bvh_positions).
 * @function _bvh.positions
 * @param values a value buffer of _bvh.frames
 * @tparam {int,int,int} cols the columns of the x, y and z position channels (1-based; 0 for none)
 * @tparam {number,number,number} offset the joint's OFFSET
 * @tparam number scale
 * @tparam boolean zup
 * @tparam boolean in_place hold x and z at the first frame's
 * @tparam number max the largest coordinate
 * @return a float buffer of 3 floats a frame; or nil and the first frame (1-based) beyond `max`
 */
static int l_positions(lua_State *L) {
    const values *v = check_values(L, 1);
    int cols[3] = {-1, -1, -1}, i;
    double offset[3];
    const int n = read_columns(L, 2, v->channels, 3, cols, NULL);
    double scale, max;
    long bad;
    sn_lua_floats *out;
    for (i = n; i < 3; i++) cols[i] = -1;
    sn_lua_checktype(L, 3, LUA_TTABLE);
    for (i = 0; i < 3; i++) {
        lua_rawgeti(L, 3, i + 1);
        offset[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
        if (!sn_isfinite(offset[i])) return sn_lua_argerror(L, 3, "not 3 finite numbers");
    }
    scale = sn_lua_checknumber(L, 4);
    max = sn_lua_checknumber(L, 7);
    if (!sn_isfinite(scale)) return sn_lua_argerror(L, 4, "not finite");
    out = sn_lua_newfloats(L, 3 * (size_t)v->frames);
    bad = sn_bvh_positions(v->v, v->frames, v->channels, cols, offset, scale, lua_toboolean(L, 5), lua_toboolean(L, 6),
                           max, out->v);
    if (bad == 0) return 1;
    lua_pushnil(L);
    lua_pushinteger(L, (lua_Integer)bad);
    return 2;
}

/*
 * The key times of a clip of `frames` frames `frame_time` apart: (i - 1) * frame_time for frame i.
 * @function _bvh.times
 * @tparam int frames 1 .. 1e6
 * @tparam number frame_time finite, > 0
 * @return a float buffer
 */
static int l_times(lua_State *L) {
    const long frames = (long)check_count(L, 1, 1, MAX_FRAMES, "frames");
    const double dt = sn_lua_checknumber(L, 2);
    sn_lua_floats *out;
    long f;
    if (!(dt > 0.0) || !sn_isfinite(dt)) return sn_lua_argerror(L, 2, "not a time above 0");
    out = sn_lua_newfloats(L, (size_t)frames);
    for (f = 0; f < frames; f++) out->v[f] = (float)((double)f * dt);
    return 1;
}

void sn_open_bvh(lua_State *L, int module) {
    static const luaL_Reg fns[] = {{"frames", l_frames}, {"rotations", l_rotations}, {"positions", l_positions},
                                   {"times", l_times}, {NULL, NULL}};
    luaL_newmetatable(L, SN_BVH_VALUES_MT);
    lua_pushstring(L, SN_BVH_VALUES_MT);
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
    lua_newtable(L);
    sn_lua_setfuncs(L, fns, 0);
    lua_setfield(L, module, "_bvh");
}
