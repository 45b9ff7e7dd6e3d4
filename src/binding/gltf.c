/*
 * The binary side of glTF import for lua/sinew/gltf/ (binds src/core/gltf.h): `sinew.core._gltf`,
 * a table of functions that take Lua strings as buffers and plain tables as accessor
 * descriptions. Not for users: lua/sinew/gltf/ checks the JSON, resolves the indices and
 * calls these with the values it found; they raise the core's message on a fault, which the
 * importer prefixes with the file name and the JSON path.
 *
 * An accessor description: { component = 5126, normalized = false, rows = 3, columns = 1,
 * count = n, offset = byteOffset, view = V or nil, sparse = nil or { count = k,
 * indices = V, indices_offset = o, indices_component = c, values = V, values_offset = o } }
 * where a view V is { buffer = bytes (a string), offset = o, length = l, stride = s or 0 }.
 * Every field is read once, and the buffer strings stay on the Lua stack while they are read.
 */
#if !defined(_WIN32) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700 /* realpath, O_NOFOLLOW: POSIX.1-2008 */
#endif
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/gltf.h"
#include "../core/morph.h"
#include "binding.h"

#ifdef _WIN32
#include <sys/stat.h>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

/* the largest integer a description may hold (a byte offset or count): exact in a double */
#define MAX_SIZE 9007199254740992.0

/* Blocks of work up to this size (a file read, accessors decoded before they are interleaved,
   indices before they are checked) are made in a buffer kept for the next call, an upvalue of the
   function: a fresh block is fresh pages to fault in, on every import, and on LuaJIT (whose
   allocator maps every block past 128 KiB afresh) that cost more than the import's own work. */
#define KEPT_MAX ((size_t)2 << 20)

/* a block of `size` bytes for this call's work (not zeroed): the kept one (upvalue 1) up to
   KEPT_MAX, else a new userdata (pushed) */
static void *work_room(lua_State *L, size_t size) {
    if (size <= KEPT_MAX) return sn_lua_scratch(L, 1, size);
    return sn_lua_newuserdata(L, size > 0 ? size : 1);
}

/* field `key` of the table at `t` as a non-negative integer (`dflt` when absent, unless < 0) */
/* a count or an index in decimal, pushed on the stack (lua_pushfstring has no size_t format) */
static const char *sizestr(lua_State *L, size_t v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lu", (unsigned long)v);
    return lua_pushstring(L, buf), lua_tostring(L, -1);
}

static size_t size_field(lua_State *L, int t, const char *key, double dflt) {
    double v;
    int type = sn_lua_field(L, t, key);
    if (type == LUA_TNIL && dflt >= 0) {
        lua_pop(L, 1);
        return (size_t)dflt;
    }
    if (type != LUA_TNUMBER) sn_lua_errorf(L, "'%s' must be a number (got %s)", key, luaL_typename(L, -1));
    v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (!(v >= 0 && v <= MAX_SIZE) || v != floor(v))
        sn_lua_errorf(L, "'%s' %s is not a count or an offset (0 .. 2^53)", key, sn_lua_numstr(L, v));
    if (v > (double)((size_t)-1)) sn_lua_errorf(L, "'%s' %s is too large for this machine", key, sn_lua_numstr(L, v));
    return (size_t)v;
}

/* field `key` of the table at `t` as an int in lo .. hi */
static int int_field(lua_State *L, int t, const char *key, int lo, int hi, int dflt) {
    double v;
    int type = sn_lua_field(L, t, key);
    if (type == LUA_TNIL) {
        lua_pop(L, 1);
        return dflt;
    }
    if (type != LUA_TNUMBER) sn_lua_errorf(L, "'%s' must be a number (got %s)", key, luaL_typename(L, -1));
    v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (!(v >= lo && v <= hi) || v != floor(v))
        sn_lua_errorf(L, "'%s' %s is out of range (%d .. %d)", key, sn_lua_numstr(L, v), lo, hi);
    return (int)v;
}

/* Reads the view table at stack index `t` into v; its buffer string is left on the stack (above
   the caller's values) and stays there while the view is used. */
static void read_view(lua_State *L, int t, sn_gltf_view *v) {
    size_t size;
    t = sn_lua_absindex(L, t);
    if (!lua_istable(L, t)) sn_lua_errorf(L, "a buffer view must be a table (got %s)", luaL_typename(L, t));
    if (sn_lua_field(L, t, "buffer") != LUA_TSTRING)
        sn_lua_errorf(L, "'buffer' must be a string (got %s)", luaL_typename(L, -1));
    v->buffer = (const unsigned char *)lua_tolstring(L, -1, &size); /* anchored: left on the stack */
    v->buffer_size = size;
    v->offset = size_field(L, t, "offset", 0);
    v->length = size_field(L, t, "length", -1);
    v->stride = size_field(L, t, "stride", 0);
}

/* Reads the accessor description at stack index `d` into a; its views go to `views` (3 of
   them) and their buffers stay on the stack. */
static void read_accessor(lua_State *L, int d, sn_gltf_accessor *a, sn_gltf_view *views) {
    d = sn_lua_absindex(L, d);
    luaL_checkstack(L, 12, "accessor description");
    sn_lua_checktype(L, d, LUA_TTABLE);
    sn_gltf_accessor_init(a);
    a->component = int_field(L, d, "component", 0, INT_MAX, SN_GLTF_FLOAT);
    sn_lua_field(L, d, "normalized");
    a->normalized = lua_toboolean(L, -1);
    lua_pop(L, 1);
    a->rows = int_field(L, d, "rows", 1, 4, 1);
    a->columns = int_field(L, d, "columns", 1, 4, 1);
    a->count = size_field(L, d, "count", -1);
    a->offset = size_field(L, d, "offset", 0);
    if (sn_lua_field(L, d, "view") != LUA_TNIL) {
        read_view(L, -1, &views[0]);
        a->view = &views[0];
    }
    if (sn_lua_field(L, d, "sparse") != LUA_TNIL) {
        int s = lua_gettop(L);
        if (!lua_istable(L, s)) sn_lua_errorf(L, "'sparse' must be a table (got %s)", luaL_typename(L, s));
        a->sparse_count = size_field(L, s, "count", -1);
        sn_lua_field(L, s, "indices");
        read_view(L, -1, &views[1]);
        a->sparse_indices = &views[1];
        a->sparse_indices_offset = size_field(L, s, "indices_offset", 0);
        a->sparse_indices_component = int_field(L, s, "indices_component", 0, INT_MAX, 0);
        sn_lua_field(L, s, "values");
        read_view(L, -1, &views[2]);
        a->sparse_values = &views[2];
        a->sparse_values_offset = size_field(L, s, "values_offset", 0);
    }
}

/* the values of an accessor, checked and sized, and a temporary block for them */
static size_t accessor_values(lua_State *L, const sn_gltf_accessor *a) {
    sn_error err;
    if (sn_gltf_accessor_validate(a, &err) != SN_OK) sn_lua_raise(L, &err, -1);
    return sn_gltf_accessor_values(a);
}

/*
 * Splits a .glb into its JSON chunk and its BIN chunk (nil when there is none); with `in_place`,
 * the BIN chunk is not copied: its place in `bytes` is returned instead (the importer reads its
 * buffer views there).
 * @function _gltf.glb
 * @tparam string bytes the whole file
 * @tparam[opt] boolean in_place
 * @treturn string json
 * @treturn ?string|int bin, or with `in_place` the bytes before it (0-based offset)
 * @treturn ?int with `in_place`, its length in bytes
 * @raise when `bytes` is not a string; the core's refusal of the container: "a .glb starts with a
 * 12-byte header (the file has 5 bytes)", "not a .glb: the file does not start with 'glTF'",
 * "the GLB header's version 1 is not 2", "the GLB header's length 90 is past the end of the file (80 bytes): cut
 * short?", "chunk 1: length 40 is past the end of the container (30 bytes)", "chunk 0 is not the
 * JSON chunk", "no JSON chunk"
 */
static int l_glb(lua_State *L) {
    size_t size;
    const unsigned char *data = (const unsigned char *)sn_lua_checklstring(L, 1, &size);
    sn_gltf_glb glb;
    sn_error err;
    const int in_place = lua_toboolean(L, 2);
    if (sn_gltf_glb_split(data, size, &glb, &err) != SN_OK) return sn_lua_raise(L, &err, -1);
    lua_pushlstring(L, (const char *)glb.json, glb.json_size);
    if (glb.bin == NULL) {
        lua_pushnil(L);
    } else if (in_place) {
        lua_pushinteger(L, (lua_Integer)(glb.bin - data));
        lua_pushinteger(L, (lua_Integer)glb.bin_size);
        return 3;
    } else {
        lua_pushlstring(L, (const char *)glb.bin, glb.bin_size);
    }
    return 2;
}

/*
 * Decodes base64 text.
 * @function _gltf.base64
 * @tparam string text
 * @treturn string bytes
 * @raise when `text` is not a string; "character 7 of the base64 text is not base64 (byte 33)",
 * "base64 text of 5 characters is cut short"
 */
static int l_base64(lua_State *L) {
    size_t size, written;
    const char *text = sn_lua_checklstring(L, 1, &size);
    size_t room = sn_gltf_base64_size(text, size);
    unsigned char *out = (unsigned char *)sn_lua_newtemp(L, room);
    sn_error err;
    if (sn_gltf_base64_decode(text, size, out, room, &written, &err) != SN_OK) return sn_lua_raise(L, &err, -1);
    lua_pushlstring(L, (const char *)out, written);
    return 1;
}

/* Decodes the accessor described at 1 into `n` floats: a Floats userdata (`buffer`) or a scratch
   block, pushed on the stack either way; raises on a bad description or the core's refusal. */
static float *decode_accessor(lua_State *L, int buffer, size_t *n) {
    sn_gltf_accessor a;
    sn_gltf_view views[3];
    sn_error err;
    float *out;
    lua_settop(L, 1);
    read_accessor(L, 1, &a, views);
    *n = accessor_values(L, &a);
    out = buffer ? sn_lua_newfloats(L, *n)->v : (float *)sn_lua_newtemp(L, sizeof(float) * *n);
    if (sn_gltf_accessor_read(&a, out, *n, &err) != SN_OK) sn_lua_raise(L, &err, -1);
    return out;
}

/* pushes the position (from 0) of the first of the n values that is not finite, or nil */
static void push_first_not_finite(lua_State *L, const float *v, size_t n) {
    size_t i = n;
    if (!sn_floats_finite(v, n)) /* (one pass; the place found only when there is one) */
        for (i = 0; i < n && isfinite(v[i]); i++) continue;
    if (i < n)
        lua_pushinteger(L, (lua_Integer)i);
    else
        lua_pushnil(L);
}

/*
 * Decodes an accessor into a table of numbers (count x rows x columns, matrices column-major,
 * normalised integers as fractions in 0 .. 1 or -1 .. 1), and the position (from 0) of its first
 * value that is not finite, or nil when all are.
 * @function _gltf.accessor
 * @tparam table description
 * @treturn table
 * @treturn ?int
 * @raise when `description` is not a table; a bad description: "'count' must be a number (got
 * nil)", "'offset' -1 is not a count or an offset (0 .. 2^53)", "'rows' 5 is out of range (1 ..
 * 4)", "a buffer view must be a table (got string)", "'buffer' must be a string (got nil)",
 * "'sparse' must be a table (got number)"; the core's refusal of the accessor: "unknown component
 * type 5121", "count 0: an accessor has at least one element", "byteStride 2 is less than an
 * element (12 bytes)", "10 elements of 12 bytes from byte 0 are past the end of its buffer view
 * (100 bytes)", "sparse index 9 is out of range (0 .. 7)", ...
 */
static int l_accessor(lua_State *L) {
    size_t n, i;
    const float *out = decode_accessor(L, 0, &n);
    lua_createtable(L, n > INT_MAX ? INT_MAX : (int)n, 0);
    for (i = 0; i < n; i++) {
        lua_pushnumber(L, out[i]);
        lua_rawseti(L, -2, (int)i + 1);
    }
    push_first_not_finite(L, out, n);
    return 2;
}

/* ---- float buffers ------------------------------------------------------------------------ */

sn_lua_floats *sn_lua_newfloats(lua_State *L, size_t n) {
    sn_lua_floats *b;
    if (n > ((size_t)-1 - sizeof(sn_lua_floats)) / sizeof(float)) sn_lua_errorf(L, "too many floats");
    b = (sn_lua_floats *)sn_lua_newuserdata(L, sizeof(sn_lua_floats) + sizeof(float) * n);
    b->n = n;
    memset(b->v, 0, sizeof(float) * (n > 0 ? n : 1));
    sn_lua_setmetatable(L, SN_FLOATS_MT);
    return b;
}

const sn_lua_floats *sn_lua_tofloats(lua_State *L, int idx) {
    return (const sn_lua_floats *)sn_lua_testobject(L, idx, SN_FLOATS_MT);
}

static const sn_lua_floats *check_floats(lua_State *L, int arg) {
    return (const sn_lua_floats *)sn_lua_checkobject(L, arg, SN_FLOATS_MT);
}

/* buf[i]: value i (1-based) as a number, nil past the ends or for any other key */
static int l_floats_index(lua_State *L) {
    const sn_lua_floats *b = check_floats(L, 1);
    if (lua_type(L, 2) == LUA_TNUMBER) {
        const double i = lua_tonumber(L, 2);
        if (i >= 1 && i <= (double)b->n && i == floor(i)) {
            lua_pushnumber(L, b->v[(size_t)i - 1]);
            return 1;
        }
    }
    lua_pushnil(L);
    return 1;
}

static int l_floats_len(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)check_floats(L, 1)->n);
    return 1;
}

static int l_floats_tostring(lua_State *L) {
    lua_pushfstring(L, "%s (%s floats)", SN_FLOATS_MT, sizestr(L, check_floats(L, 1)->n));
    return 1;
}

/*
 * Decodes an accessor into a float buffer (as _gltf.accessor does into a table), and the
 * position (from 0) of its first value that is not finite, or nil when all are.
 * @function _gltf.floats
 * @tparam table description
 * @treturn userdata a sinew.Floats: `#buf` values, `buf[i]` from 1
 * @treturn ?int
 * @raise as _gltf.accessor
 */
static int l_floats(lua_State *L) {
    size_t n;
    const float *v = decode_accessor(L, 1, &n);
    push_first_not_finite(L, v, n);
    return 2;
}

/*
 * Checks a sampler's key times: nothing when they are finite, not negative and strictly
 * increasing; else the fault ("not finite", "negative" or "not increasing") and the key's
 * position (from 0).
 * @function _gltf.key_times
 * @tparam userdata times a sinew.Floats
 * @treturn ?string
 * @treturn ?int
 * @raise "sinew.Floats expected, got table" when `times` is not a float buffer
 */
static int l_key_times(lua_State *L) {
    static const char *const faults[] = {NULL, "not finite", "negative", "not increasing"};
    const sn_lua_floats *t = check_floats(L, 1);
    size_t at;
    const int fault = sn_gltf_key_times_check(t->v, t->n, &at);
    if (fault == SN_GLTF_TIMES_OK) return 0;
    lua_pushstring(L, faults[fault]);
    lua_pushinteger(L, (lua_Integer)at);
    return 2;
}

/*
 * The rotation keys of a track: unit, each in the hemisphere of the one before, and for a
 * LINEAR track (`widest` given) keys added on the slerp arc where the keys lie more than
 * `widest` radians apart (see sn_gltf_slerp_added). Returns the key times (`times` itself when
 * no key was added), the values and the count of keys added; or false and the position (from 0)
 * of a key of length zero or not finite; or nil and the count of keys it would add when that is
 * more than `room`.
 * @function _gltf.rotation_keys
 * @tparam userdata times a sinew.Floats of n key times
 * @tparam userdata values a sinew.Floats of 4 n values
 * @tparam ?number widest radians (nil: no keys added, as for STEP)
 * @tparam number room the most keys that may be added
 * @treturn userdata|false|nil
 * @treturn userdata|int
 * @treturn ?int
 * @raise "sinew.Floats expected, got table" (for `times` or `values`), "'values' has 7 floats, not 4
 * per key time (2)", "not a positive angle" (for `widest`)
 */
static int l_rotation_keys(lua_State *L) {
    const sn_lua_floats *t = check_floats(L, 1), *v = check_floats(L, 2);
    const int linear = !lua_isnil(L, 3);
    const double widest = linear ? sn_lua_checknumber(L, 3) : 0.0;
    const double room = sn_lua_checknumber(L, 4);
    const size_t keys = t->n;
    size_t at, added = 0;
    double *unit;
    sn_error err;
    if (v->n / 4 != keys || v->n % 4 != 0)
        return sn_lua_errorf(L, "'values' has %s floats, not 4 per key time (%s)", sizestr(L, v->n), sizestr(L, keys));
    if (linear && !(widest > 0)) return sn_lua_argerror(L, 3, "not a positive angle");
    lua_settop(L, 4);
    unit = (double *)work_room(L, sizeof(double) * 4 * (keys > 0 ? keys : 1));
    if (!sn_gltf_unit_rotations(v->v, keys, unit, &at)) {
        lua_pushboolean(L, 0);
        lua_pushinteger(L, (lua_Integer)at);
        return 2;
    }
    if (linear) added = sn_gltf_slerp_added(t->v, unit, keys, widest);
    if ((double)added > room) {
        lua_pushnil(L);
        lua_pushinteger(L, (lua_Integer)added);
        return 2;
    }
    if (added == 0) lua_pushvalue(L, 1);
    if (sn_lua_push_rotation_keys(L, t, unit, added, widest, &err) == 0) return sn_lua_raise(L, &err, -1);
    lua_pushinteger(L, (lua_Integer)added);
    return 3;
}

int sn_lua_push_rotation_keys(lua_State *L, const sn_lua_floats *t, const double *unit, size_t added, double widest,
                              sn_error *err) {
    const size_t keys = t->n;
    sn_lua_floats *out_t, *out_v;
    size_t i;
    if (added == 0) {
        out_v = sn_lua_newfloats(L, 4 * keys);
        for (i = 0; i < 4 * keys; i++) out_v->v[i] = (float)unit[i];
        return 1;
    }
    out_t = sn_lua_newfloats(L, keys + added);
    out_v = sn_lua_newfloats(L, 4 * (keys + added));
    if (sn_gltf_slerp_fill(t->v, unit, keys, widest, out_t->v, out_v->v, keys + added, err) != SN_OK) {
        lua_pop(L, 2);
        return 0;
    }
    return 2;
}

/*
 * Splits the values of a morph weights sampler (`n` weights per output element, one element
 * after another) into `n` float buffers: buffer k gets value k of each element, in order (the
 * track of target k).
 * @function _gltf.split
 * @tparam userdata values a sinew.Floats of m x n values
 * @tparam int n 1 .. SN_MORPH_MAX_TARGETS (1024)
 * @treturn userdata... n sinew.Floats of m values
 * @raise "sinew.Floats expected, got table", "n 0 is out of range (1 .. 1024)", "'values' has 7
 * floats, not a multiple of 2"
 */
static int l_split(lua_State *L) {
    const sn_lua_floats *v = check_floats(L, 1);
    const int n = sn_lua_toindex(L, 2, 1, SN_MORPH_MAX_TARGETS, 2, "n");
    size_t m, i;
    int k;
    if (v->n % (size_t)n != 0)
        return sn_lua_errorf(L, "'values' has %s floats, not a multiple of %d", sizestr(L, v->n), n);
    m = v->n / (size_t)n;
    lua_settop(L, 2);
    luaL_checkstack(L, n + 2, "too many buffers");
    for (k = 0; k < n; k++) {
        sn_lua_floats *out = sn_lua_newfloats(L, m);
        for (i = 0; i < m; i++) out->v[i] = v->v[i * (size_t)n + (size_t)k];
    }
    return n;
}

/*
 * Decodes an accessor of unsigned integers (indices) into a string of native uint32 values, for
 * `Mesh:setVertexMap(love.data.newByteData(s), "uint32")`; each must be below `vertices` when
 * given.
 * @function _gltf.indices
 * @tparam table description
 * @tparam[opt] int vertices the vertex count (0 .. 2^31 - 1)
 * @treturn string 4 bytes per index
 * @raise "vertex count 2.5 is not an integer" (or out of range); when `description` is not a table;
 * a bad description: "'count' must be a number (got nil)", "'offset' -1 is not a count or an offset
 * (0 .. 2^53)", "'rows' 5 is out of range (1 .. 4)", "a buffer view must be a table (got string)",
 * "'buffer' must be a string (got nil)", "'sparse' must be a table (got number)"; the core's
 * refusal of the accessor: "unknown component type 5121", "count 0: an accessor has at least one
 * element", "byteStride 2 is less than an element (12 bytes)", "10 elements of 12 bytes from byte 0
 * are past the end of its buffer view (100 bytes)", "sparse index 9 is out of range (0 .. 7)", ...;
 * "component type 5126 is not an unsigned integer type", "normalised integers are not indices";
 * "index 9 (entry 3) is out of range (0 .. 7)"
 */
static int l_indices(lua_State *L) {
    sn_gltf_accessor a;
    sn_gltf_view views[3];
    sn_error err;
    size_t n, i, vertices;
    uint32_t *out;
    lua_settop(L, 2);
    vertices = lua_isnil(L, 2) ? (size_t)-1 : (size_t)sn_lua_toindex(L, 2, 0, INT_MAX, 2, "vertex count");
    read_accessor(L, 1, &a, views);
    n = accessor_values(L, &a);
    out = (uint32_t *)work_room(L, sizeof(uint32_t) * n);
    if (sn_gltf_accessor_read_uint(&a, out, n, &err) != SN_OK) return sn_lua_raise(L, &err, -1);
    for (i = 0; i < n; i++)
        if (out[i] >= vertices)
            return sn_lua_errorf(L, "index %s (entry %s) is out of range (0 .. %s)", sizestr(L, out[i]), sizestr(L, i),
                              sizestr(L, vertices - 1));
    lua_pushlstring(L, (const char *)out, sizeof(uint32_t) * n);
    return 1;
}

/*
 * Interleaves vertex attributes into one string of native float32: `attributes` is a list of
 * `{ accessor = description, slots = n, fill = x, joints = true or nil, weights = true or nil,
 * transform = nil or 6 numbers }`, every accessor of the same count; the values of a `joints`
 * attribute are mapped through `joint_map` (a list: skin joint i + 1 -> sinew joint, 0-based),
 * those of a `weights` attribute scaled to sum to 1 per vertex, those of a 2-wide attribute
 * with a `transform` mapped by it (2 x 3, column-major: a texture transform baked in).
 * @function _gltf.vertices
 * @tparam table attributes 1 to 8 attributes
 * @tparam[opt] table joint_map 0-based sinew joints (0 .. 65534)
 * @treturn string 4 bytes per float, the slots of every attribute per vertex
 * @treturn int the vertex count
 * @raise when `attributes` or `joint_map` is not a table; "joint map entry 70000 is out of range (0
 * .. 65534)"; "9 attributes (1 .. 8)", "attribute 2 must be a table (got string)", "attribute 2 has
 * 10 vertices, attribute 1 12", "attribute 2 has 16 values per vertex (1 .. 4)", "'slots' 2 is out
 * of range (3 .. 4)", "'fill' must be a number (got string)", "attribute 2: fill inf is not a
 * finite float", "attribute 2: 'transform' must be 6 numbers, of a 2-wide attribute"; a bad
 * description: "'count' must be a number (got nil)", "'offset' -1 is not a count or an offset (0 ..
 * 2^53)", "'rows' 5 is out of range (1 .. 4)", "a buffer view must be a table (got string)",
 * "'buffer' must be a string (got nil)", "'sparse' must be a table (got number)"; the core's
 * refusal of the accessor: "unknown component type 5121", "count 0: an accessor has at least one
 * element", "byteStride 2 is less than an element (12 bytes)", "10 elements of 12 bytes from byte 0
 * are past the end of its buffer view (100 bytes)", "sparse index 9 is out of range (0 .. 7)", ...;
 * "joint index 9 (value 9) is out of range (0 .. 3)"; "texture transform entry 2 is not finite",
 * "texture coordinate 4 transformed is past float range"
 */
static int l_vertices(lua_State *L) {
    sn_gltf_accessor acc[8];
    sn_gltf_attribute attrs[8];
    sn_gltf_view views[8][3];
    sn_error err;
    size_t count = 0, total = 0, slots = 0, at = 0;
    int n, i, nmap = 0, *map = NULL, joints[8], weights[8], transform[8];
    double uv[8][6];
    float *values, *out;
    lua_settop(L, 2);
    sn_lua_checktype(L, 1, LUA_TTABLE);
    n = (int)(sn_lua_rawlen(L, 1) > 8 ? 9 : sn_lua_rawlen(L, 1));
    if (n < 1 || n > 8) return sn_lua_errorf(L, "%d attributes (1 .. 8)", n);
    if (!lua_isnil(L, 2)) {
        sn_lua_checktype(L, 2, LUA_TTABLE);
        nmap = (int)(sn_lua_rawlen(L, 2) > 65536 ? 65536 : sn_lua_rawlen(L, 2));
        map = (int *)sn_lua_newtemp(L, sizeof(int) * (size_t)(nmap > 0 ? nmap : 1));
        for (i = 0; i < nmap; i++) {
            lua_rawgeti(L, 2, i + 1);
            map[i] = sn_lua_toindex(L, -1, 0, SN_SKELETON_MAX_JOINTS - 1, 2, "joint map entry");
            lua_pop(L, 1);
        }
    }
    /* every attribute's description read once and checked, its buffers left on the stack */
    for (i = 0; i < n; i++) {
        int e;
        luaL_checkstack(L, 8, "too many attributes");
        lua_rawgeti(L, 1, i + 1);
        e = lua_gettop(L);
        if (!lua_istable(L, e)) return sn_lua_errorf(L, "attribute %d must be a table (got %s)", i + 1, luaL_typename(L, e));
        sn_lua_field(L, e, "accessor");
        read_accessor(L, -1, &acc[i], views[i]);
        if (i == 0) count = acc[i].count;
        if (acc[i].count != count)
            return sn_lua_errorf(L, "attribute %d has %s vertices, attribute 1 %s", i + 1, sizestr(L, acc[i].count),
                              sizestr(L, count));
        attrs[i].width = acc[i].rows * acc[i].columns;
        if (attrs[i].width > 4) return sn_lua_errorf(L, "attribute %d has %d values per vertex (1 .. 4)", i + 1, attrs[i].width);
        attrs[i].slots = int_field(L, e, "slots", attrs[i].width, 4, attrs[i].width);
        if (sn_lua_field(L, e, "fill") != LUA_TNIL) {
            const double fill = sn_lua_tonumber(L, -1, 1, "fill");
            if (!(fabs(fill) <= FLT_MAX))
                return sn_lua_errorf(L, "attribute %d: fill %s is not a finite float", i + 1, sn_lua_numstr(L, fill));
            attrs[i].fill = (float)fill;
        } else {
            attrs[i].fill = 0.0f;
        }
        transform[i] = 0;
        if (sn_lua_field(L, e, "transform") != LUA_TNIL) {
            int k;
            if (!lua_istable(L, -1) || sn_lua_rawlen(L, -1) != 6 || attrs[i].width != 2)
                return sn_lua_errorf(L, "attribute %d: 'transform' must be 6 numbers, of a 2-wide attribute", i + 1);
            for (k = 0; k < 6; k++) {
                lua_rawgeti(L, -1, k + 1);
                uv[i][k] = sn_lua_tonumber(L, -1, 1, "transform entry");
                lua_pop(L, 1);
            }
            transform[i] = 1;
        }
        lua_pop(L, 1);
        sn_lua_field(L, e, "joints");
        joints[i] = lua_toboolean(L, -1);
        sn_lua_field(L, e, "weights");
        weights[i] = lua_toboolean(L, -1);
        lua_pop(L, 3);
        total += accessor_values(L, &acc[i]);
        slots += (size_t)attrs[i].slots;
    }
    /* decoded into one block of work, then interleaved into the rest of it */
    values = (float *)work_room(L, sizeof(float) * (total + count * slots));
    for (i = 0; i < n; i++) {
        const size_t m = count * (size_t)attrs[i].width;
        if (sn_gltf_accessor_read(&acc[i], values + at, total - at, &err) != SN_OK) return sn_lua_raise(L, &err, -1);
        if (joints[i] && sn_gltf_map_joints(values + at, m, map, nmap, &err) != SN_OK) return sn_lua_raise(L, &err, -1);
        if (weights[i]) sn_gltf_normalize_weights(values + at, count, attrs[i].width);
        if (transform[i] && sn_gltf_transform_uv(values + at, count, uv[i], &err) != SN_OK)
            return sn_lua_raise(L, &err, -1);
        attrs[i].values = values + at;
        at += m;
    }
    out = values + total;
    if (sn_gltf_interleave(attrs, n, count, out, count * slots, &err) != SN_OK) return sn_lua_raise(L, &err, -1);
    lua_pushlstring(L, (const char *)out, sizeof(float) * count * slots);
    lua_pushinteger(L, (lua_Integer)count);
    return 2;
}

/* nil and a message, as the reader returns a refusal */
static int refuse(lua_State *L, const char *what) {
    lua_pushnil(L);
    lua_pushstring(L, what);
    return 2;
}

#ifndef _WIN32
/* the real path of `path` (links, "." and ".." resolved), pushed; NULL and a message pushed when
   it has none */
static const char *real_path(lua_State *L, const char *path) {
    char real[PATH_MAX]; /* on the C stack: nothing to free if the push below raises */
    if (realpath(path, real) == NULL) {
        lua_pushstring(L, strerror(errno));
        return NULL;
    }
    return lua_pushstring(L, real), lua_tostring(L, -1);
}
#endif

/*
 * Reads a file for the glTF importer: at most `max` bytes of it, and only when it is a regular
 * file (not a device, a pipe or a folder) whose real path (links resolved) lies within the real
 * path of the folder `root` when one is given.
 * @function _gltf.read_file
 * @tparam string path
 * @tparam ?string root the folder the file must lie in (nil: anywhere)
 * @tparam number max the most bytes wanted (0 .. 2^53)
 * @treturn ?string the first `max` bytes of the file (all of them when it is not longer), or nil
 * @treturn boolean|string true when the file is longer than `max` bytes (the bytes are cut
 * there), false when not; or why there are no bytes: "it leads outside the folder of the glTF
 * file", "it is a directory", "it is not a regular file", "No such file or directory", ...
 * @raise when `path` is not a string or `max` not a count
 */
static int l_read_file(lua_State *L) {
    const char *path = sn_lua_checklstring(L, 1, NULL);
    const char *root = sn_lua_optstring(L, 2, NULL);
    const double maxd = sn_lua_checknumber(L, 3);
    size_t max, room, got = 0;
    char *bytes;
    if (!(maxd >= 0 && maxd <= MAX_SIZE) || maxd != floor(maxd))
        return sn_lua_argerror(L, 3, "not a count of bytes (0 .. 2^53)");
    max = maxd > (double)((size_t)-2) ? (size_t)-2 : (size_t)maxd;
    lua_settop(L, 3);
#ifdef _WIN32
    {
        struct _stat st;
        FILE *f;
        (void)root; /* links are rare there; ".." and absolute paths are refused by the Lua side */
        if (_stat(path, &st) != 0) return refuse(L, strerror(errno));
        if (st.st_mode & _S_IFDIR) return refuse(L, "it is a directory");
        if (!(st.st_mode & _S_IFREG)) return refuse(L, "it is not a regular file");
        room = (size_t)st.st_size < max ? (size_t)st.st_size + 1 : max + 1;
        bytes = (char *)work_room(L, room); /* before the file is opened: a raise leaks nothing */
        f = fopen(path, "rb");
        if (f == NULL) return refuse(L, strerror(errno));
        got = fread(bytes, 1, room, f);
        fclose(f);
    }
#else
    {
        struct stat st;
        const char *real = real_path(L, path);
        int fd;
        if (real == NULL) return refuse(L, lua_tostring(L, -1));
        if (root != NULL) {
            const char *real_root = real_path(L, root[0] != '\0' ? root : ".");
            if (real_root == NULL) return refuse(L, lua_pushfstring(L, "its folder: %s", lua_tostring(L, -1)));
            if (!sn_gltf_path_within(real_root, strlen(real_root), real, strlen(real)))
                return refuse(L, "it leads outside the folder of the glTF file");
        }
        if (stat(real, &st) != 0) return refuse(L, strerror(errno));
        if (S_ISDIR(st.st_mode)) return refuse(L, "it is a directory");
        if (!S_ISREG(st.st_mode)) return refuse(L, "it is not a regular file");
        room = (size_t)st.st_size < max ? (size_t)st.st_size + 1 : max + 1;
        bytes = (char *)work_room(L, room); /* before the file is opened: a raise leaks nothing */
        /* the real path has no link left to follow; O_NOFOLLOW refuses one put there since, and
           O_NONBLOCK an open that would wait (a pipe put there since: refused below) */
        fd = open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0) return refuse(L, strerror(errno));
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            return refuse(L, "it is not a regular file");
        }
        while (got < room) {
            const ssize_t n = read(fd, bytes + got, room - got);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) {
                const int e = errno;
                close(fd);
                return refuse(L, strerror(e));
            }
            if (n == 0) break;
            got += (size_t)n;
        }
        close(fd);
    }
#endif
    lua_pushlstring(L, bytes, got > max ? max : got);
    lua_pushboolean(L, got > max);
    return 2;
}

void sn_open_gltf(lua_State *L, int module) {
    static const luaL_Reg fns[] = {{"glb", l_glb},
                                   {"base64", l_base64},
                                   {"accessor", l_accessor},
                                   {"floats", l_floats},
                                   {"key_times", l_key_times},
                                   {"split", l_split},
                                   {NULL, NULL}};
    static const luaL_Reg floats_meta[] = {
        {"__index", l_floats_index}, {"__len", l_floats_len}, {"__tostring", l_floats_tostring}, {NULL, NULL}};
    luaL_newmetatable(L, SN_FLOATS_MT);
    sn_lua_setfuncs(L, floats_meta, 0);
    lua_pushstring(L, SN_FLOATS_MT);
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
    lua_newtable(L);
    sn_lua_setfuncs(L, fns, 0);
    lua_pushnil(L); /* each function's block of work (work_room), made at its first call */
    lua_pushcclosure(L, l_read_file, 1);
    lua_setfield(L, -2, "read_file");
    lua_pushnil(L);
    lua_pushcclosure(L, l_indices, 1);
    lua_setfield(L, -2, "indices");
    lua_pushnil(L);
    lua_pushcclosure(L, l_vertices, 1);
    lua_setfield(L, -2, "vertices");
    lua_pushnil(L);
    lua_pushcclosure(L, l_rotation_keys, 1);
    lua_setfield(L, -2, "rotation_keys");
    lua_pushnumber(L, (lua_Number)SN_GLTF_MAX_VALUES);
    lua_setfield(L, -2, "MAX_VALUES");
    sn_open_gltf_clips(L, -1);
    lua_setfield(L, module, "_gltf");
}
