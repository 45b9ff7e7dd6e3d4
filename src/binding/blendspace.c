/***
 * Blend spaces: `sinew.blendspace`.
 *
 * A blend space turns a parameter point (speed, direction, aim angles, ...) into one weight per
 * sample point. Build one with `sinew.blendspace{ mode = ..., points = {...}, ... }`, then call
 * `space:weights(x, y, out)` every frame: it fills `out` and makes no garbage. Weights are never
 * negative and sum to 1, except in mode "direct" (without normalisation the weights are the
 * inputs; with it, all zero when no input is positive). The modes and their
 * formulas are in manual/blendspaces.md.
 *
 * A method raises "sinew.BlendSpace expected, got <type>" when its `self` is something else; the
 * methods' Raises sections leave that out.
 * @module sinew.blendspace
 */
#include "../core/blendspace.h"

#include <math.h>
#include <string.h>

#include "binding.h"

#define TNAME SN_BLENDSPACE_MT

/* The userdata: an sn_lua_space header (binding.h), the core block, then the output and input
   buffers of weights(). */
typedef sn_lua_space space;

/* Every mode has its own metatable, whose __index table holds the methods and the field `mode`
   (a plain table lookup, the fastest Lua offers). The constructor and every method share one
   upvalue, the table of classes: entry m is the metatable of mode m - 1, and each metatable is a
   key whose value is its mode + 1. A `self` is a blend space when its metatable is such a key:
   compared by identity, in a table no Lua code can reach. */
static space *check_space(lua_State *L) {
    void *p = lua_touserdata(L, 1);
    int ok = 0;
    if (p != NULL && lua_type(L, 1) == LUA_TUSERDATA && lua_getmetatable(L, 1)) {
        lua_rawget(L, lua_upvalueindex(1));
        ok = lua_type(L, -1) == LUA_TNUMBER;
        lua_pop(L, 1);
    }
    if (!ok) sn_lua_argerror(L, 1, lua_pushfstring(L, TNAME " expected, got %s", sn_lua_typename_of(L, 1)));
    return (space *)p;
}

static const char *const option_names[] = {"mode", "points", "alpha", "power", "normalize_axes", "normalize",
                                           "grid", NULL};

static double opt_number(lua_State *L, const char *name, double def) {
    double v = def;
    lua_getfield(L, 1, name);
    if (lua_type(L, -1) == LUA_TNUMBER) v = lua_tonumber(L, -1);
    else if (!lua_isnil(L, -1))
        sn_lua_argerror(L, 1, lua_pushfstring(L, "option '%s' must be a number (got %s)", name, luaL_typename(L, -1)));
    lua_pop(L, 1);
    return v;
}

static int opt_boolean(lua_State *L, const char *name, int def) {
    int v = def;
    lua_getfield(L, 1, name);
    if (lua_type(L, -1) == LUA_TBOOLEAN) v = lua_toboolean(L, -1);
    else if (!lua_isnil(L, -1))
        sn_lua_argerror(L, 1, lua_pushfstring(L, "option '%s' must be a boolean (got %s)", name, luaL_typename(L, -1)));
    lua_pop(L, 1);
    return v;
}

/* element i of the table on top as a grid size (saturated: the core checks the range), or raises */
static int grid_size(lua_State *L, int i) {
    int v;
    lua_rawgeti(L, -1, i);
    if (lua_type(L, -1) != LUA_TNUMBER || lua_tonumber(L, -1) != floor(lua_tonumber(L, -1)))
        sn_lua_argerror(L, 1, "option 'grid' must be {cols, rows}, two integers");
    v = sn_lua_toint(L, -1, 1, "grid");
    lua_pop(L, 1);
    return v;
}

static void opt_grid(lua_State *L, sn_blendspace_def *def) {
    lua_getfield(L, 1, "grid");
    if (lua_type(L, -1) == LUA_TTABLE) {
        if (sn_lua_rawlen(L, -1) != 2) sn_lua_argerror(L, 1, "option 'grid' must be {cols, rows}, two integers");
        def->grid_cols = grid_size(L, 1);
        def->grid_rows = grid_size(L, 2);
    } else if (!lua_isnil(L, -1)) {
        sn_lua_argerror(L, 1, lua_pushfstring(L, "option 'grid' must be {cols, rows} (got %s)", luaL_typename(L, -1)));
    }
    lua_pop(L, 1);
}

static sn_blendspace_mode check_mode(lua_State *L) {
    sn_blendspace_mode mode = SN_BLENDSPACE_1D;
    lua_getfield(L, 1, "mode");
    if (lua_type(L, -1) != LUA_TSTRING)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'mode' must be a string (got %s)", luaL_typename(L, -1)));
    if (sn_blendspace_mode_parse(lua_tostring(L, -1), &mode) != SN_OK)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "unknown mode '%s'", lua_tostring(L, -1)));
    lua_pop(L, 1);
    return mode;
}

/* the number of coordinates of the point on top of the stack; raises when it is not a point */
static int point_dims(lua_State *L, int i) {
    int t = lua_type(L, -1);
    if (t == LUA_TNUMBER) return 1;
    if (t != LUA_TTABLE)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "point %d must be a number or a list of numbers (got %s)", i,
                                            luaL_typename(L, -1)));
    return (int)sn_lua_rawlen(L, -1);
}

/* Reads def.points once, in one pass with raw access, into a temporary userdata (left on the
   stack above the points table) sized from the first point; sets count and dims. The core
   checks the counts and dimensions against its limits. */
static void read_points(lua_State *L, sn_blendspace_def *def) {
    int n, dims, i, k, t;
    double *xs;
    if (sn_lua_field(L, 1, "points") != LUA_TTABLE)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'points' must be a table (got %s)", luaL_typename(L, -1)));
    t = lua_gettop(L);
    n = (int)sn_lua_rawlen(L, t);
    if (n == 0) sn_lua_argerror(L, 1, "no points");
    lua_rawgeti(L, t, 1);
    dims = point_dims(L, 1);
    lua_pop(L, 1);
    xs = (double *)sn_lua_newtemp(L, (size_t)n * (size_t)dims * sizeof(double));
    for (i = 1; i <= n; i++) {
        int d;
        lua_rawgeti(L, t, i);
        d = point_dims(L, i);
        if (d == 0) sn_lua_argerror(L, 1, lua_pushfstring(L, "point %d has no coordinates", i));
        if (d != dims) sn_lua_argerror(L, 1, lua_pushfstring(L, "point %d has %d coordinates, point 1 has %d", i, d, dims));
        if (lua_type(L, -1) == LUA_TNUMBER) {
            xs[i - 1] = lua_tonumber(L, -1);
        } else {
            for (k = 1; k <= dims; k++) {
                lua_rawgeti(L, -1, k);
                if (lua_type(L, -1) != LUA_TNUMBER)
                    sn_lua_argerror(L, 1, lua_pushfstring(L, "coordinate %d of point %d is not a number (got %s)", k, i,
                                                        luaL_typename(L, -1)));
                xs[(size_t)(i - 1) * dims + k - 1] = lua_tonumber(L, -1);
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    def->count = n;
    def->dims = dims;
    def->points = xs;
}

/***
 * Builds a blend space.
 *
 * `def.mode` is one of "1d", "simple_directional", "freeform_cartesian", "freeform_directional",
 * "triangulated", "grid", "idw", "direct"; `def.points` a list of points, each a list of numbers
 * (1-D points may be plain numbers), all of the same dimension. Options: `alpha` (2,
 * freeform_directional), `power` (4, idw), `normalize_axes` (true, triangulated and grid),
 * `grid = {cols, rows}` ({5, 5}, grid), `normalize` (false, direct). Coordinates are in the
 * units of the parameter they stand for (speed, an angle in radians, ...).
 * @function blendspace
 * @tparam table def `{mode = ..., points = {...}, alpha = ..., power = ..., normalize_axes = ...,
 * grid = ..., normalize = ...}`
 * @treturn BlendSpace
 * @raise when `def` is not a table; "unknown field 'x' in the blend space definition"; "'mode' must
 * be a string (got nil)" or "unknown mode 'x'"; "'points' must be a table", "no points", "point 2
 * has 1 coordinates, point 1 has 2", "coordinate 1 of point 2 is not a number (got string)"; option
 * values of the wrong type ("option 'alpha' must be a number (got string)", "option 'grid' must be
 * {cols, rows}, two integers"); and the core's refusals: "mode 'grid' needs at least 2 points (got
 * 1)", "mode 'triangulated' needs 2-D points (got 3-D)", "dimension 9 is out of range (1 .. 8) for
 * mode 'idw'", "point count 2000 is out of range (1 .. 1024)", "coordinate 1 of point 2 is not
 * finite" or "is too large", "duplicate points 2 and 5", "points 1 and 2 are too close together",
 * "option 'alpha' must be positive and finite (got 0)" (and 'power'), "option 'grid' 1x5 is out of
 * range (2 .. 256 columns and rows)", and for "simple_directional" too few directions, directions
 * less than 2 degrees apart or a gap of 180 degrees or more
 * @usage local space = sinew.blendspace{ mode = "freeform_cartesian", points = { {0,0}, {1,0}, {0,1} } }
 */
static int l_new(lua_State *L) {
    sn_blendspace_def def;
    sn_error err;
    size_t size, head = SN_ALIGN16(sizeof(space));
    space *s;
    int inputs;
    sn_lua_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    sn_lua_checkfields(L, 1, 1, "the blend space definition", option_names);
    sn_blendspace_def_init(&def);
    def.mode = check_mode(L);
    def.alpha = opt_number(L, "alpha", def.alpha);
    def.power = opt_number(L, "power", def.power);
    def.normalize_axes = opt_boolean(L, "normalize_axes", def.normalize_axes);
    def.normalize = opt_boolean(L, "normalize", def.normalize);
    opt_grid(L, &def);
    read_points(L, &def);
    size = SN_ALIGN16(sn_blendspace_size(&def, &err));
    if (size == 0) return sn_lua_raise(L, &err, 0);
    inputs = def.mode == SN_BLENDSPACE_DIRECT ? def.count : def.dims;
    s = (space *)sn_lua_newuserdata(L, head + size + (size_t)(def.count + inputs) * sizeof(double));
    s->n = def.count;
    s->inputs = inputs;
    s->out = (double *)((char *)s + head + size);
    s->in = s->out + def.count;
    s->bs = (sn_blendspace *)((char *)s + head);
    if (sn_blendspace_init(s->bs, size, &def, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    lua_rawgeti(L, lua_upvalueindex(1), (int)def.mode + 1);
    lua_setmetatable(L, -2);
    return 1;
}

/***
 * The weights at an input point: one per sample, in the order of `points`.
 *
 * Takes `space:dims()` coordinates (for mode "direct", one input per point) and an optional
 * table `out`, which is filled (entries 1 to #space) and returned: no garbage. Without `out` a
 * new table is returned.
 * @function BlendSpace:weights
 * @tparam number ... the coordinates x1, ..., xdims, in the points' units (any finite value: what
 * each mode gives outside its points is in manual/blendspaces.md)
 * @tparam[opt] table out
 * @treturn table the weights, fractions in 0 .. 1 that sum to 1 (in mode "direct": the inputs, or
 * normalised with `normalize`)
 * @raise "wrong number of coordinates: expected 2, got 1 (the space is 2-D, mode 'freeform_cartesian')"; for a coordinate that is not a finite
 * number; "'out' must be a table (got string)"
 */
static int l_weights(lua_State *L) {
    space *s = check_space(L);
    int top = lua_gettop(L), out = 0, ncoords = top - 1, i;
    if (top == s->inputs + 2 && lua_type(L, top) != LUA_TNUMBER) {
        if (lua_type(L, top) == LUA_TTABLE) out = top;
        else if (!lua_isnil(L, top))
            return sn_lua_argerror(L, top, lua_pushfstring(L, "'out' must be a table (got %s)", luaL_typename(L, top)));
        ncoords = s->inputs;
    } else if (top >= 2 && lua_type(L, top) == LUA_TTABLE) {
        ncoords = top - 2;
    }
    if (ncoords != s->inputs) {
        const sn_blendspace_mode mode = sn_blendspace_mode_of(s->bs);
        if (mode == SN_BLENDSPACE_DIRECT)
            return sn_lua_errorf(L, "wrong number of coordinates: expected %d, got %d (mode 'direct' takes an input per point)",
                                 s->inputs, ncoords);
        return sn_lua_errorf(L, "wrong number of coordinates: expected %d, got %d (the space is %d-D, mode '%s')", s->inputs,
                             ncoords, s->inputs, sn_blendspace_mode_name(mode));
    }
    for (i = 0; i < s->inputs; i++) sn_lua_checkfinite(L, i + 2);
    if (out == 0) { /* made first: making it may run a finaliser that calls weights on this space */
        lua_createtable(L, s->n, 0);
        out = lua_gettop(L);
    }
    /* from here to the return nothing collects (lua_rawseti and lua_pushnumber run no step), so
       the space's own buffers hold this call's numbers */
    for (i = 0; i < s->inputs; i++) s->in[i] = lua_tonumber(L, i + 2);
    sn_blendspace_weights(s->bs, s->in, s->inputs, s->out, NULL);
    for (i = 0; i < s->n; i++) {
        lua_pushnumber(L, s->out[i]);
        lua_rawseti(L, out, i + 1);
    }
    lua_pushvalue(L, out);
    return 1;
}

/***
 * The number of coordinates `weights` takes: the points' dimension, or `#space` in mode "direct".
 * @function BlendSpace:dims
 * @treturn integer
 * @raise never
 */
static int l_dims(lua_State *L) {
    lua_pushinteger(L, check_space(L)->inputs);
    return 1;
}

/***
 * The coordinates of point i, as several numbers.
 * @function BlendSpace:point
 * @tparam integer i the point (1 .. #space)
 * @return x1, ..., xd in the points' units
 * @raise "point must be a number (got string)", "point 2.5 is not an integer" or "point 9 is out of
 * range (1 .. 8)"
 */
static int l_point(lua_State *L) {
    space *s = check_space(L);
    const double *p = sn_blendspace_point(s->bs, sn_lua_toindex(L, 2, 1, s->n, 2, "point") - 1);
    int k, d = sn_blendspace_dims(s->bs);
    luaL_checkstack(L, d, "too many coordinates");
    for (k = 0; k < d; k++) lua_pushnumber(L, p[k]);
    return d;
}

/***
 * The triangles of a "triangulated" or "grid" space, as a list of `{i, j, k}` point indices
 * (from 1) in counter-clockwise order; an empty list for other modes and for points on a line.
 * @function BlendSpace:triangles
 * @treturn table
 * @raise never
 */
static int l_triangles(lua_State *L) {
    space *s = check_space(L);
    const int *tv;
    int nt = sn_blendspace_triangles(s->bs, &tv), t, k;
    lua_createtable(L, nt, 0);
    for (t = 0; t < nt; t++) {
        lua_createtable(L, 3, 0);
        for (k = 0; k < 3; k++) {
            lua_pushinteger(L, tv[3 * t + k] + 1);
            lua_rawseti(L, -2, k + 1);
        }
        lua_rawseti(L, -2, t + 1);
    }
    return 1;
}

static int l_len(lua_State *L) {
    lua_pushinteger(L, check_space(L)->n);
    return 1;
}

static int l_tostring(lua_State *L) {
    space *s = check_space(L);
    lua_pushfstring(L, TNAME "(%s, %d points, %d-D)", sn_blendspace_mode_name(sn_blendspace_mode_of(s->bs)), s->n,
                    sn_blendspace_dims(s->bs));
    return 1;
}

void sn_open_blendspace(lua_State *L, int module) {
    static const luaL_Reg methods[] = {
        {"weights", l_weights}, {"dims", l_dims}, {"point", l_point}, {"triangles", l_triangles}, {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__len", l_len}, {"__tostring", l_tostring}, {NULL, NULL}};
    int m, classes;
    lua_createtable(L, (int)SN_BLENDSPACE_MODES, (int)SN_BLENDSPACE_MODES); /* the classes (see check_space) */
    classes = lua_gettop(L);
    for (m = 0; m < (int)SN_BLENDSPACE_MODES; m++) {
        lua_createtable(L, 0, 4);
        lua_pushvalue(L, classes);
        sn_lua_setfuncs(L, meta, 1);
        lua_createtable(L, 0, 5);
        lua_pushvalue(L, classes);
        sn_lua_setfuncs(L, methods, 1);
        lua_pushstring(L, sn_blendspace_mode_name((sn_blendspace_mode)m));
        lua_setfield(L, -2, "mode");
        lua_setfield(L, -2, "__index");
        lua_pushstring(L, TNAME);
        lua_setfield(L, -2, "__name");
        lua_pushvalue(L, -1);
        lua_pushinteger(L, m + 1);
        lua_rawset(L, classes);
        lua_rawseti(L, classes, m + 1);
    }
    lua_createtable(L, (int)SN_BLENDSPACE_MODES, 0); /* a copy of the list of metatables, for ffi.c */
    for (m = 1; m <= (int)SN_BLENDSPACE_MODES; m++) {
        lua_rawgeti(L, classes, m);
        lua_rawseti(L, -2, m);
    }
    lua_setfield(L, LUA_REGISTRYINDEX, SN_BLENDSPACE_METATABLES);
    lua_pushcclosure(L, l_new, 1);
    lua_setfield(L, module, "blendspace");
}
