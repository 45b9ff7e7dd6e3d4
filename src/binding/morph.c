/***
 * Morph targets on vertices (binds src/core/morph.h): a `sinew.Morph` holds one mesh primitive's
 * base vertices and its targets' deltas, made by the glTF importer (`asset.meshes[k].morph`; see
 * manual/gltf.md, "Morph targets"), and its own vertex buffer, which `morph:apply(weights)`
 * fills with base + sum of weight x delta (the glTF formula) and `morph:pointer()` hands to a
 * renderer without garbage.
 *
 * Weights are a Lua list read from `first` (default 1): the weights of this primitive's targets,
 * or any longer list holding them from `first` on (the asset's morph list, with the mesh's
 * `morph_first`). A method raises "sinew.Morph expected, got <type>" when its `self` is something
 * else.
 * @module sinew.gltf
 */
#include "../core/morph.h"
#include "../core/pose.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "binding.h"

#define SN_MORPH_MT "sinew.Morph"

/* The userdata: this header, the core set at SET_OFFSET, then the vertex buffer at `out`. */
typedef struct morph_header {
    float *out;    /* vertices x stride floats: what apply writes, base until then */
    size_t floats; /* its floats */
} morph_header;

#define SET_OFFSET SN_ALIGN16(sizeof(morph_header))

static morph_header *check_header(lua_State *L) { return (morph_header *)sn_lua_checkobject(L, 1, SN_MORPH_MT); }
static const sn_morph *set_of(morph_header *h) { return (const sn_morph *)((unsigned char *)h + SET_OFFSET); }

/* ---- construction ---------------------------------------------------------------------------- */

static const char *const channel_fields[SN_MORPH_CHANNELS] = {"position", "normal", "tangent"};

/* the channel offsets from the table at `t`: { position = 0, normal = 3 } (0-based floats; nil: not in the layout) */
static void read_offsets(lua_State *L, int t, int *offsets) {
    int c;
    sn_lua_checktype(L, t, LUA_TTABLE);
    for (c = 0; c < SN_MORPH_CHANNELS; c++) {
        if (sn_lua_field(L, t, channel_fields[c]) == LUA_TNIL) offsets[c] = -1;
        else offsets[c] = sn_lua_toindex(L, -1, 0, SN_MORPH_MAX_STRIDE - 1, t, channel_fields[c]);
        lua_pop(L, 1);
    }
}

/*
 * Makes a morph set for the glTF importer (not for users): `vertices` is the primitive's
 * interleaved float32 vertices (a string, `stride` floats each), `offsets` { position = 0,
 * normal = 3, tangent = nil } where the channels lie in a vertex (0-based floats; nil: not in
 * the layout), `targets` a list of { position = Floats, normal = Floats, tangent = Floats } (each
 * optional, 3 floats per vertex: the decoded accessors of the target).
 * @function _morph
 * @tparam string vertices
 * @tparam int stride floats per vertex
 * @tparam table offsets
 * @tparam table targets
 * @treturn userdata a sinew.Morph
 * @raise "bad argument #1 to '_morph' (string expected, got nil)"; "vertices of 30 bytes are not
 * whole vertices of 8 floats"; "target 2: 'normal' has 9 floats, not 3 per vertex (24)";
 * "target 2: 'normal' must be a sinew.Floats (got table)"; the core's refusal: "2000 targets (0 ..
 * 1024)", "target 0: position delta of vertex 3 is not finite", "the normal (offset 2) overlaps
 * the position (offset 0)", ...
 */
static int l_morph(lua_State *L) {
    size_t bytes, size, count, floats;
    const char *vertices = sn_lua_checklstring(L, 1, &bytes);
    const int stride = sn_lua_toindex(L, 2, 3, SN_MORPH_MAX_STRIDE, 2, "stride");
    const float **deltas;
    sn_morph_def def;
    morph_header *h;
    sn_error err;
    int targets, t, c;
    float *base;
    lua_settop(L, 4);
    sn_lua_checktype(L, 4, LUA_TTABLE);
    if (bytes % (sizeof(float) * (size_t)stride) != 0)
        return sn_lua_errorf(L, "vertices of %d bytes are not whole vertices of %d floats", (int)(bytes > 0x7fffffff ? -1 : (int)bytes), stride);
    count = bytes / (sizeof(float) * (size_t)stride);
    floats = count * (size_t)stride;
    targets = sn_lua_rawlen(L, 4) > SN_MORPH_MAX_TARGETS ? SN_MORPH_MAX_TARGETS + 1 : (int)sn_lua_rawlen(L, 4);
    sn_morph_def_init(&def);
    read_offsets(L, 3, def.offsets);
    /* the base copied out of the string (alignment), the delta pointers into the targets' buffers
       (each anchored on the stack until the set is made) */
    base = (float *)sn_lua_newtemp(L, sizeof(float) * (floats > 0 ? floats : 1));
    memcpy(base, vertices, sizeof(float) * floats);
    deltas = (const float **)sn_lua_newtemp(L, sizeof(float *) * SN_MORPH_CHANNELS * (size_t)(targets > 0 ? targets : 1));
    if (targets <= SN_MORPH_MAX_TARGETS)
        for (t = 0; t < targets; t++) {
            int e;
            luaL_checkstack(L, 8, "too many targets");
            lua_rawgeti(L, 4, t + 1);
            e = lua_gettop(L);
            if (!lua_istable(L, e))
                return sn_lua_errorf(L, "target %d must be a table (got %s)", t + 1, luaL_typename(L, e));
            for (c = 0; c < SN_MORPH_CHANNELS; c++) {
                const sn_lua_floats *f;
                deltas[SN_MORPH_CHANNELS * t + c] = NULL;
                if (sn_lua_field(L, e, channel_fields[c]) == LUA_TNIL) continue; /* nil stays on the stack */
                f = sn_lua_tofloats(L, -1);
                if (f == NULL)
                    return sn_lua_errorf(L, "target %d: '%s' must be a sinew.Floats (got %s)", t + 1, channel_fields[c],
                                         sn_lua_typename_of(L, -1));
                if (f->n / 3 != count || f->n % 3 != 0)
                    return sn_lua_errorf(L, "target %d: '%s' has %d floats, not 3 per vertex (%d)", t + 1,
                                         channel_fields[c], f->n > 0x7fffffff ? -1 : (int)f->n,
                                         count > 0x7fffffff ? -1 : (int)count);
                deltas[SN_MORPH_CHANNELS * t + c] = f->v; /* anchored: left on the stack */
            }
        }
    def.vertices = count;
    def.stride = stride;
    def.targets = targets;
    def.base = base;
    def.deltas = deltas;
    size = sn_morph_size(&def, &err);
    if (size == 0) return sn_lua_raise(L, &err, -1);
    if (size > ((size_t)-1 - SET_OFFSET - 16) / 2 || floats > ((size_t)-1 - SET_OFFSET - size - 16) / sizeof(float))
        return sn_lua_errorf(L, "the morph set is too large for this machine");
    h = (morph_header *)sn_lua_newuserdata(L, SET_OFFSET + SN_ALIGN16(size) + sizeof(float) * floats);
    h->out = NULL;
    h->floats = 0;
    if (sn_morph_init((unsigned char *)h + SET_OFFSET, size, &def, &err) != SN_OK) return sn_lua_raise(L, &err, -1);
    h->out = (float *)((unsigned char *)h + SET_OFFSET + SN_ALIGN16(size));
    h->floats = floats;
    memcpy(h->out, base, sizeof(float) * floats);
    sn_lua_setmetatable(L, SN_MORPH_MT);
    return 1;
}

/* ---- weights ----------------------------------------------------------------------------------- */

/* Reads the set's weights from the list at `arg`, from index `first` at `arg` + 1 (default 1),
   into w; nil at `arg` gives zeros when `nil_ok`. Raises on the list or a weight that is not a
   number (the core checks that they are finite). */
static int read_weights(lua_State *L, const sn_morph *m, int arg, int nil_ok, float *w) {
    const int n = sn_morph_targets(m);
    int first, i;
    if (nil_ok && lua_isnoneornil(L, arg)) {
        for (i = 0; i < n; i++) w[i] = 0.0f;
        return n;
    }
    {
        /* a pose: its morph weights (an animator's or a clip's), from `first` on */
        const sn_pose *p = (const sn_pose *)sn_lua_testobject(L, arg, SN_POSE_MT);
        if (p != NULL) {
            const int count = sn_skeleton_morph_count(sn_pose_skeleton(p));
            const float *pw = sn_pose_morphs_const(p);
            first = lua_isnoneornil(L, arg + 1) ? 1 : sn_lua_toindex(L, arg + 1, 1, 0x7fffffff - SN_MORPH_MAX_TARGETS, arg + 1, "first");
            if (first - 1 + n > count)
                return sn_lua_argerror(L, arg, lua_pushfstring(L, "the pose has %d morph weights: %d targets from morph %d need %d",
                                                              count, n, first, first - 1 + n));
            for (i = 0; i < n; i++) w[i] = pw[first - 1 + i];
            return n;
        }
    }
    if (!lua_istable(L, arg)) return sn_lua_typeerror(L, arg, "table or sinew.Pose");
    first = lua_isnoneornil(L, arg + 1) ? 1 : sn_lua_toindex(L, arg + 1, 1, 0x7fffffff - SN_MORPH_MAX_TARGETS, arg + 1, "first");
    for (i = 0; i < n; i++) {
        double v;
        lua_rawgeti(L, arg, first + i);
        if (lua_type(L, -1) != LUA_TNUMBER) {
            const char *got = luaL_typename(L, -1);
            return sn_lua_argerror(L, arg, lua_pushfstring(L, "weight %d (entry %d) must be a number (got %s)", i + 1,
                                                          first + i, got));
        }
        v = lua_tonumber(L, -1);
        lua_pop(L, 1);
        /* past float range: infinite (the core refuses it), never an undefined conversion */
        w[i] = v > FLT_MAX ? INFINITY : v < -FLT_MAX ? -INFINITY : (float)v;
    }
    return n;
}

/***
 * Fills the morph's vertex buffer: every vertex is the base (the primitive's vertices as
 * imported) with its position (and normal) moved by the sum over targets of weight x delta, the
 * glTF formula; normals are not renormalised. Targets of weight 0 cost nothing. No garbage.
 * @function Morph:apply
 * @param weights a list of numbers, or a `sinew.Pose` (its morph weights: a clip's or an
 * animator's): the weights of this primitive's targets, read from entry or morph `first` on
 * @tparam[opt=1] int first where they start in `weights` (a mesh's `morph_first` in the asset's list)
 * @treturn userdata the morph
 * @raise "bad argument #1 to 'apply' (table or sinew.Pose expected, got nil)", "(the pose has 2
 * morph weights: 2 targets from morph 3 need 4)", "weight 2 (entry 5) must be a
 * number (got nil)", "weight 2 is not finite", "first 0 is out of range (1 .. ...)"; a refused
 * call leaves the buffer as it was
 */
static int l_apply(lua_State *L) {
    morph_header *h = check_header(L);
    const sn_morph *m = set_of(h);
    float w[SN_MORPH_MAX_TARGETS];
    sn_error err;
    const int n = read_weights(L, m, 2, 0, w);
    if (sn_morph_apply(m, w, n, h->out, h->floats, &err) != SN_OK) return sn_lua_argerror(L, 2, err.msg);
    lua_settop(L, 1);
    return 1;
}

/* x, y, z of channel `channel` of vertex arg 2 (1-based) with the weights at 3 (nil: the base) */
static int vertex_channel(lua_State *L, int channel) {
    morph_header *h = check_header(L);
    const sn_morph *m = set_of(h);
    const size_t count = sn_morph_vertices(m);
    const int v = sn_lua_toindex(L, 2, 1, count > 0x7fffffff ? 0x7fffffff : (int)count, 2, "vertex");
    float w[SN_MORPH_MAX_TARGETS], out[3];
    sn_error err;
    const int n = read_weights(L, m, 3, 1, w);
    if (sn_morph_vertex(m, (size_t)v - 1, channel, w, n, out, &err) != SN_OK)
        return sn_lua_argerror(L, err.arg == 4 ? 3 : 1, err.msg);
    lua_pushnumber(L, out[0]);
    lua_pushnumber(L, out[1]);
    lua_pushnumber(L, out[2]);
    return 3;
}

/***
 * The morphed position of one vertex, as `apply` would write it (the mesh's own space: no node
 * matrix, no skinning). Reads the weights only: the buffer is not touched. No garbage.
 * @function Morph:position
 * @tparam int v the vertex (1 .. vertices)
 * @tparam[opt] table weights as for `apply` (nil: the base position)
 * @tparam[opt=1] int first
 * @treturn number x
 * @treturn number y
 * @treturn number z
 * @raise "vertex 25 is out of range (1 .. 24)" and the faults of the weights, as `apply`
 */
static int l_position(lua_State *L) { return vertex_channel(L, SN_MORPH_POSITION); }

/***
 * The morphed normal of one vertex (not renormalised), as `apply` would write it.
 * @function Morph:normal
 * @tparam int v
 * @tparam[opt] table weights
 * @tparam[opt=1] int first
 * @treturn number x
 * @treturn number y
 * @treturn number z
 * @raise as `position`, and "channel 1 is not in the vertex layout" for a primitive without normals
 */
static int l_normal(lua_State *L) { return vertex_channel(L, SN_MORPH_NORMAL); }

/***
 * The vertex buffer's address as a light userdata and its size in bytes: for LuaJIT's
 * `ffi.copy(byte_data:getFFIPointer(), morph:pointer())` into a LÖVE ByteData, then
 * `mesh:setVertices(byte_data)`. Valid while the morph lives. No garbage.
 * @function Morph:pointer
 * @treturn userdata
 * @treturn int bytes (vertices x stride x 4)
 * @raise never
 */
static int l_pointer(lua_State *L) {
    morph_header *h = check_header(L);
    lua_pushlightuserdata(L, h->out);
    lua_pushinteger(L, (lua_Integer)(sizeof(float) * h->floats));
    return 2;
}

/***
 * The vertex buffer as a string (float32, native byte order), the layout of the mesh's
 * `vertices`: for `love.data.newByteData`. Makes one string per call.
 * @function Morph:bytes
 * @treturn string
 * @raise never
 */
static int l_bytes(lua_State *L) {
    morph_header *h = check_header(L);
    lua_pushlstring(L, (const char *)h->out, sizeof(float) * h->floats);
    return 1;
}

/***
 * The deltas of one target as a string of float32 (native byte order), 3 per vertex (x, y, z),
 * zeros where the target moves nothing: to upload once for blending on the GPU (a texture or
 * vertex attributes; manual/gltf.md, "Morph targets"). Makes one string per call.
 * @function Morph:deltas
 * @tparam int t the target (1 .. #morph)
 * @tparam[opt='position'] string channel 'position' or 'normal'
 * @treturn string 12 bytes per vertex
 * @raise "target 3 is out of range (1 .. 2)", "bad argument #2 to 'deltas' (invalid option 'tangent')"
 */
static int l_deltas(lua_State *L) {
    static const char *const names[] = {"position", "normal", NULL};
    const sn_morph *m = set_of(check_header(L));
    const int t = sn_lua_toindex(L, 2, 1, sn_morph_targets(m), 2, "target");
    const int channel = sn_lua_checkoption(L, 3, "position", names);
    const size_t bytes = sizeof(float) * 3 * sn_morph_vertices(m);
    const float *d = sn_morph_deltas(m, t - 1, channel);
    if (d != NULL) {
        lua_pushlstring(L, (const char *)d, bytes);
    } else {
        void *zeros = sn_lua_newtemp(L, bytes); /* zeroed */
        lua_pushlstring(L, (const char *)zeros, bytes);
    }
    return 1;
}

/***
 * The vertex count and the floats per vertex.
 * @function Morph:vertices
 * @treturn int
 * @treturn int
 * @raise never
 */
static int l_vertices(lua_State *L) {
    const sn_morph *m = set_of(check_header(L));
    lua_pushinteger(L, (lua_Integer)sn_morph_vertices(m));
    lua_pushinteger(L, sn_morph_stride(m));
    return 2;
}

/* #morph: the target count */
static int l_len(lua_State *L) {
    lua_pushinteger(L, sn_morph_targets(set_of(check_header(L))));
    return 1;
}

static int l_tostring(lua_State *L) {
    const sn_morph *m = set_of(check_header(L));
    const size_t count = sn_morph_vertices(m);
    lua_pushfstring(L, "%s (%d vertices, %d targets)", SN_MORPH_MT, count > 0x7fffffff ? -1 : (int)count,
                    sn_morph_targets(m));
    return 1;
}

/*
 * x, y, z of vertex `v` (1-based) of interleaved float32 vertices of `stride` floats (the first
 * three floats of the vertex): the position of a mesh without morph targets, for the importer's
 * `mesh:position` (not for users).
 * @function _vertex
 * @tparam string vertices
 * @tparam int stride
 * @tparam int v
 * @treturn number x
 * @treturn number y
 * @treturn number z
 * @raise "vertex 9 is out of range (1 .. 8)", "stride 2 is out of range (3 .. 64)"
 */
static int l_vertex(lua_State *L) {
    size_t bytes, count;
    const char *vertices = sn_lua_checklstring(L, 1, &bytes);
    const int stride = sn_lua_toindex(L, 2, 3, SN_MORPH_MAX_STRIDE, 2, "stride");
    float xyz[3];
    int v;
    count = bytes / (sizeof(float) * (size_t)stride);
    v = sn_lua_toindex(L, 3, 1, count > 0x7fffffff ? 0x7fffffff : (int)count, 3, "vertex");
    memcpy(xyz, vertices + sizeof(float) * (size_t)stride * (size_t)(v - 1), sizeof xyz);
    lua_pushnumber(L, xyz[0]);
    lua_pushnumber(L, xyz[1]);
    lua_pushnumber(L, xyz[2]);
    return 3;
}

void sn_open_morph(lua_State *L, int module) {
    static const luaL_Reg methods[] = {{"apply", l_apply},     {"position", l_position}, {"normal", l_normal},
                                       {"pointer", l_pointer}, {"bytes", l_bytes},       {"vertices", l_vertices},
                                       {"deltas", l_deltas},
                                       {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__len", l_len}, {"__tostring", l_tostring}, {NULL, NULL}};
    sn_lua_newclass(L, SN_MORPH_MT, methods, meta);
    lua_pushcfunction(L, l_morph);
    lua_setfield(L, module, "_morph");
    lua_pushinteger(L, SN_MORPH_MAX_TARGETS); /* for the importer's message */
    lua_setfield(L, module, "_MORPH_MAX_TARGETS");
    lua_pushcfunction(L, l_position); /* Morph:position for the glTF importer's mesh:position */
    lua_setfield(L, module, "_morph_position");
    lua_pushcfunction(L, l_vertex);
    lua_setfield(L, module, "_vertex");
}
