/*
 * The fast path of glTF animation import (lua/sinew/gltf/clips.lua, binds src/core/gltf.h):
 * `sinew.core._gltf.animation` reads a whole plain animation in one call, doing what the Lua
 * channel loop of clips.lua does for it (channel and sampler checks, accessors resolved from the
 * JSON, decoded, key times checked, rotation keys made unit with the slerp keys added, the
 * import's caches of keys filled, the clip's sharing signature and bytes, the clip made as
 * sinew.clip makes it or found among those made), or returns nothing when the animation is not
 * plain, leaving it to that loop.
 *
 * Plain: every channel on a node of the skeleton (translation, rotation or scale), no two on the
 * same joint's path, every sampler LINEAR, STEP or CUBICSPLINE on accessors whose JSON passes
 * Doc:accessor's one test (not sparse, a buffer view whose buffer the import has already read),
 * keys that the Lua loop takes without a fault, and everything they cost within the budget left.
 * Anything else (a weights channel, a node outside the skeleton, a fault of any kind, a table with
 * an __index or __len metamethod) gives nothing: the Lua loop then runs as it always did, names
 * the fault and skips what it skips. Nothing is changed before everything is known to pass, so
 * that both ways leave the import in the same state (spec/gltf_fast_spec.lua compares them).
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/clip.h"
#include "../core/gltf.h"
#include "binding.h"

/* the largest integer a count may be (M.count): 2^53 */
#define MAX_COUNT 9007199254740992.0
/* the most channels of one animation taken here (the duplicate and track searches are linear) */
#define MAX_CHANNELS 1024
/* the signature's numbers are written as Lua writes them (table.concat) when below this: integers
   in decimal, on every Lua (5.1's %.14g writes them so up to 1e14) */
#define SIG_MAX 100000000000000

/* the JSON field names, upvalues 2 .. of _gltf.animation (interned once: a look-up by one of them
   hashes nothing) */
enum {
    K_TARGET = 2, K_SAMPLER, K_PATH, K_NODE, K_INTERPOLATION, K_INPUT, K_OUTPUT, K_SPARSE, K_COMPONENT_TYPE, K_TYPE,
    K_NORMALIZED, K_COUNT, K_BYTE_OFFSET, K_BUFFER_VIEW, K_BUFFER, K_BYTE_LENGTH, K_BYTE_STRIDE, K_END
};
/* the metatable of float buffers: the upvalue after the names */
#define U_FLOATS_MT K_END
static const char *const key_names[] = {"target", "sampler", "path", "node", "interpolation", "input", "output",
                                        "sparse", "componentType", "type", "normalized", "count", "byteOffset",
                                        "bufferView", "buffer", "byteLength", "byteStride"};

/* the arguments and the tables made or read, by stack index */
enum {
    A_DOC = 1, A_SAMPLERS, A_CHANNELS, A_JOINT_OF, A_NODES, A_WIDEST, A_LEFT, A_NUMBER_BYTES, A_SKELETON, A_MADE,
    S_KEYS,      /* 2 slot - 1, 2 slot: the times and values of channel slot's cached keys */
    S_FLOATS,    /* accessor -> the float buffer of it read here (from doc.floats or decoded anew) */
    S_FRESH,     /* accessor -> true when decoded here (doc.floats gets it on commit) */
    S_TIMES,     /* input accessor -> its key times, checked here (doc.key_times gets them) */
    S_RECORDS,   /* 2r - 1, 2r: the times and values of new track r */
    S_BUFFERS,   /* buffer -> its bytes, anchored while they are read */
    S_JSON, S_ACCESSORS, S_VIEWS, S_BUFFER_LIST, S_DOC_BUFFERS, S_DOC_FLOATS, S_DOC_DECODED, S_DOC_KEY_TIMES,
    S_DOC_TRACK_KEYS, S_TOP = S_DOC_TRACK_KEYS
};

enum { PATH_TRANSLATION, PATH_ROTATION, PATH_SCALE };
enum { INTERP_LINEAR, INTERP_STEP, INTERP_CUBIC };
static const char *const path_names[] = {"translation", "rotation", "scale"};
static const char *const interp_json[] = {"LINEAR", "STEP", "CUBICSPLINE"};

typedef struct channel {
    lua_Integer joint;  /* 1-based sinew joint */
    lua_Integer id;     /* its keys' number (doc.tracks_made when they were made) */
    int path;           /* PATH_* */
    int interp;         /* INTERP_* */
    int record;         /* new track (0-based), or -1: the cached keys at slot `slot` */
    int slot;           /* its keys in S_KEYS */
} channel;

typedef struct record {
    lua_Integer input, key;  /* doc.track_keys[input][key] */
    int in, out;             /* the accessors (entries of the call's accessor list) */
    int path, interp;
} record;

/* an accessor as Doc:accessor describes it, its view resolved */
typedef struct accessor {
    lua_Integer index;
    sn_gltf_accessor a;
    sn_gltf_view view;
} accessor;

/* the table at `idx` is read by the Lua loop through its fields and `#`: plain when it has no
   metatable, or one with neither __index nor __len (so raw access reads what Lua reads) */
static int plain(lua_State *L, int idx) {
    int ok;
    if (!lua_istable(L, idx)) return 0;
    if (!lua_getmetatable(L, idx)) return 1;
    lua_pushstring(L, "__index");
    lua_rawget(L, -2);
    lua_pushstring(L, "__len");
    lua_rawget(L, -3);
    ok = lua_isnil(L, -1) && lua_isnil(L, -2);
    lua_pop(L, 3);
    return ok;
}

/* D.object: a plain table with no [1] */
static int object(lua_State *L, int idx) {
    int ok;
    if (!plain(L, idx)) return 0;
    lua_rawgeti(L, idx, 1);
    ok = lua_isnil(L, -1);
    lua_pop(L, 1);
    return ok;
}

/* D.list of a table (not nil): a plain table whose first key is not a string */
static int list(lua_State *L, int idx) {
    int ok;
    if (!plain(L, idx)) return 0;
    lua_pushnil(L);
    if (!lua_next(L, idx)) return 1;
    ok = lua_type(L, -2) != LUA_TSTRING;
    lua_pop(L, 2);
    return ok;
}

/* the string at `idx` is `name` (all its bytes: a zero byte inside is not an end) */
static int is_name(lua_State *L, int idx, const char *name) {
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    return n == strlen(name) && memcmp(s, name, n) == 0;
}

/* field `key` of the plain table at `t` (raw), pushed; its type */
static int field(lua_State *L, int t, const char *key) {
    lua_pushstring(L, key);
    lua_rawget(L, t);
    return lua_type(L, -1);
}

/* field K_* `k` of the plain table at `t` (raw), pushed; its type */
static int kfield(lua_State *L, int t, int k) {
    lua_pushvalue(L, lua_upvalueindex(k));
    lua_rawget(L, t);
    return lua_type(L, -1);
}

/* the float buffer at `idx`, or NULL (sn_lua_tofloats with the metatable at hand) */
static const sn_lua_floats *floats_at(lua_State *L, int idx) {
    const sn_lua_floats *b = NULL;
    idx = sn_lua_absindex(L, idx);
    if (lua_type(L, idx) == LUA_TUSERDATA && lua_getmetatable(L, idx)) {
        if (lua_rawequal(L, -1, lua_upvalueindex(U_FLOATS_MT))) b = (const sn_lua_floats *)lua_touserdata(L, idx);
        lua_pop(L, 1);
    }
    return b;
}

/* D.index: the value at `idx` an integer in 0 .. n - 1 */
static int index_of(lua_State *L, int idx, size_t n, lua_Integer *out) {
    double v;
    if (lua_type(L, idx) != LUA_TNUMBER) return 0;
    v = lua_tonumber(L, idx);
    if (!(v >= 0 && v < (double)n) || v != floor(v)) return 0;
    *out = (lua_Integer)v;
    return 1;
}

/* D.count: the value at `idx` an integer in 0 .. 2^53, or `dflt` (>= 0) when nil */
static int count_of(lua_State *L, int idx, double dflt, double *out) {
    double v;
    if (lua_isnil(L, idx) && dflt >= 0) {
        *out = dflt;
        return 1;
    }
    if (lua_type(L, idx) != LUA_TNUMBER) return 0;
    v = lua_tonumber(L, idx);
    if (!(v >= 0 && v <= MAX_COUNT) || v != floor(v) || v > (double)((size_t)-1)) return 0;
    *out = v;
    return 1;
}

/* the rows of a glTF accessor type (Doc:accessor's shapes; columns 1): VEC3, VEC4 and SCALAR are
   the types a sampler may have here, any other type is not plain */
static int rows_of(lua_State *L, int idx) {
    if (is_name(L, idx, "SCALAR")) return 1;
    if (is_name(L, idx, "VEC3")) return 3;
    if (is_name(L, idx, "VEC4")) return 4;
    return 0;
}

/* Doc:view of bufferView `i` (at `idx`), its buffer already read by the import */
static int resolve_view(lua_State *L, int idx, sn_gltf_view *v) {
    const int top = lua_gettop(L);
    lua_Integer i, b;
    double offset, length, stride, base, size;
    int ok = 0;
    size_t bytes;
    if (!index_of(L, idx, sn_lua_rawlen(L, S_VIEWS), &i)) return 0;
    lua_rawgeti(L, S_VIEWS, (int)i + 1); /* top + 1 */
    if (!object(L, top + 1)) goto done;
    kfield(L, top + 1, K_BUFFER); /* top + 2 */
    if (!index_of(L, top + 2, sn_lua_rawlen(L, S_BUFFER_LIST), &b)) goto done;
    lua_rawgeti(L, S_DOC_BUFFERS, (int)b); /* top + 3: { bytes, base, length } when read */
    if (!lua_istable(L, top + 3)) goto done;
    lua_rawgeti(L, top + 3, 1);
    lua_rawgeti(L, top + 3, 2);
    lua_rawgeti(L, top + 3, 3); /* top + 4 .. 6 */
    if (lua_type(L, top + 4) != LUA_TSTRING || !count_of(L, top + 5, -1, &base) || !count_of(L, top + 6, -1, &size))
        goto done;
    v->buffer = (const unsigned char *)lua_tolstring(L, top + 4, &bytes);
    v->buffer_size = bytes;
    lua_rawgeti(L, S_BUFFERS, (int)b + 1);
    if (!lua_rawequal(L, -1, top + 4)) {
        lua_pushvalue(L, top + 4);
        lua_rawseti(L, S_BUFFERS, (int)b + 1); /* anchored while it is read */
    }
    lua_pop(L, 1);
    kfield(L, top + 1, K_BYTE_OFFSET);
    kfield(L, top + 1, K_BYTE_LENGTH);
    kfield(L, top + 1, K_BYTE_STRIDE); /* top + 7 .. 9 */
    if (!count_of(L, top + 7, 0, &offset) || !count_of(L, top + 8, -1, &length) || !count_of(L, top + 9, 0, &stride))
        goto done;
    if (stride != 0 && (stride < 4 || stride > 252 || fmod(stride, 4) != 0)) goto done;
    if (offset + length > size || base + offset > (double)bytes) goto done;
    v->offset = (size_t)(base + offset);
    v->length = (size_t)length;
    v->stride = (size_t)stride;
    ok = 1;
done:
    lua_settop(L, top);
    return ok;
}

/* Doc:accessor of the value at `idx` when its JSON passes the one test there and it has a buffer
   view (resolved): into *out */
static int resolve_accessor(lua_State *L, int idx, accessor *out) {
    static const int components[] = {SN_GLTF_BYTE,         SN_GLTF_UNSIGNED_BYTE, SN_GLTF_SHORT,
                                     SN_GLTF_UNSIGNED_SHORT, SN_GLTF_UNSIGNED_INT,  SN_GLTF_FLOAT};
    const int top = lua_gettop(L);
    lua_Integer i;
    double component, count, offset;
    int ok = 0, k, known = 0;
    if (!index_of(L, idx, sn_lua_rawlen(L, S_ACCESSORS), &i)) return 0;
    lua_rawgeti(L, S_ACCESSORS, (int)i + 1); /* top + 1 */
    if (!object(L, top + 1)) goto done;
    kfield(L, top + 1, K_SPARSE);
    kfield(L, top + 1, K_COMPONENT_TYPE);
    kfield(L, top + 1, K_TYPE);
    kfield(L, top + 1, K_NORMALIZED);
    kfield(L, top + 1, K_COUNT);
    kfield(L, top + 1, K_BYTE_OFFSET);
    kfield(L, top + 1, K_BUFFER_VIEW); /* top + 2 .. 8 */
    if (!lua_isnil(L, top + 2) || lua_type(L, top + 3) != LUA_TNUMBER || lua_type(L, top + 4) != LUA_TSTRING) goto done;
    component = lua_tonumber(L, top + 3);
    for (k = 0; k < 6; k++) known |= component == components[k];
    if (!known) goto done;
    sn_gltf_accessor_init(&out->a);
    out->a.component = (int)component;
    out->a.rows = rows_of(L, top + 4);
    out->a.columns = 1;
    if (out->a.rows == 0) goto done; /* (a matrix or VEC2: never a sampler's here) */
    if (!lua_isnil(L, top + 5) && !lua_isboolean(L, top + 5)) goto done;
    out->a.normalized = lua_toboolean(L, top + 5);
    if (!count_of(L, top + 6, -1, &count) || count < 1 || !count_of(L, top + 7, 0, &offset)) goto done;
    out->a.count = (size_t)count;
    out->a.offset = (size_t)offset;
    if (lua_isnil(L, top + 8) || !resolve_view(L, top + 8, &out->view)) goto done;
    out->a.view = &out->view;
    out->index = i;
    ok = 1;
done:
    lua_settop(L, top);
    return ok;
}

/* Doc:read_floats of accessor `acc` (its types checked by the caller): the float buffer read in
   this call or kept in doc.floats, else decoded anew (its cost added to *spend); pushed, or
   nothing and NULL on any fault (values not finite too) */
static const sn_lua_floats *read_floats(lua_State *L, const accessor *acc, double number_bytes, double *spend) {
    const lua_Integer i = acc->index;
    sn_lua_floats *b;
    sn_error err;
    size_t n;
    lua_rawgeti(L, S_FLOATS, (int)i);
    if (!lua_isnil(L, -1)) return floats_at(L, -1); /* (checked when it was put there) */
    lua_pop(L, 1);
    lua_rawgeti(L, S_DOC_FLOATS, (int)i); /* { values, bad } */
    if (lua_istable(L, -1)) {
        const sn_lua_floats *kept;
        lua_rawgeti(L, -1, 2);
        lua_rawgeti(L, -2, 1);
        kept = floats_at(L, -1);
        if (kept == NULL || !lua_isnil(L, -2)) {
            lua_pop(L, 3);
            return NULL;
        }
        lua_replace(L, -3);
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_rawseti(L, S_FLOATS, (int)i);
        return kept;
    }
    lua_pop(L, 1);
    if (sn_gltf_accessor_validate(&acc->a, &err) != SN_OK) return NULL;
    n = sn_gltf_accessor_values(&acc->a);
    if (n > SN_GLTF_MAX_VALUES) return NULL;
    lua_rawgeti(L, S_DOC_DECODED, (int)i);
    if (!lua_toboolean(L, -1)) *spend += number_bytes * (double)n;
    lua_pop(L, 1);
    b = sn_lua_newfloats(L, n);
    if (sn_gltf_accessor_read(&acc->a, b->v, n, &err) != SN_OK || !sn_floats_finite(b->v, n)) {
        lua_pop(L, 1);
        return NULL;
    }
    lua_pushvalue(L, -1);
    lua_rawseti(L, S_FLOATS, (int)i);
    lua_pushboolean(L, 1);
    lua_rawseti(L, S_FRESH, (int)i);
    return b;
}

/* the key times of input `acc`: checked here before, kept in doc.key_times, or read and checked
   (clips.lua's key_times); pushed, or nothing and NULL on a fault */
static const sn_lua_floats *key_times(lua_State *L, const accessor *acc, double number_bytes, double *spend) {
    const sn_lua_floats *t;
    size_t at;
    lua_rawgeti(L, S_TIMES, (int)acc->index);
    if (!lua_isnil(L, -1)) return floats_at(L, -1);
    lua_pop(L, 1);
    lua_rawgeti(L, S_DOC_KEY_TIMES, (int)acc->index);
    t = floats_at(L, -1);
    if (t != NULL) { /* (anchored here too: doc.key_times gets the same buffer back) */
        lua_pushvalue(L, -1);
        lua_rawseti(L, S_TIMES, (int)acc->index);
        return t;
    }
    lua_pop(L, 1);
    if (acc->a.rows != 1 || acc->a.component != SN_GLTF_FLOAT || acc->a.normalized) return NULL;
    t = read_floats(L, acc, number_bytes, spend);
    if (t == NULL) return NULL;
    if (sn_gltf_key_times_check(t->v, t->n, &at) != SN_GLTF_TIMES_OK) {
        lua_pop(L, 1);
        return NULL;
    }
    lua_pushvalue(L, -1);
    lua_rawseti(L, S_TIMES, (int)acc->index);
    return t;
}

/* the output components a path takes (clips.lua's outputs): FLOAT, and normalised 8- and 16-bit
   integers for rotations */
static int output_ok(const accessor *acc, int path) {
    const int c = acc->a.component;
    if (acc->a.rows != (path == PATH_ROTATION ? 4 : 3)) return 0;
    if (c == SN_GLTF_FLOAT) return !acc->a.normalized;
    return path == PATH_ROTATION && acc->a.normalized &&
           (c == SN_GLTF_BYTE || c == SN_GLTF_UNSIGNED_BYTE || c == SN_GLTF_SHORT || c == SN_GLTF_UNSIGNED_SHORT);
}

/* The times and values of a new track (clips.lua's track after its cache test), pushed as two
   values; 0 (nothing pushed) on a fault. */
static int make_track(lua_State *L, const record *r, const accessor *in, const accessor *out, double *spend) {
    const double number_bytes = lua_tonumber(L, A_NUMBER_BYTES);
    const int top = lua_gettop(L);
    const sn_lua_floats *t, *v;
    double *unit;
    size_t keys, at, added = 0;
    sn_error err;
    t = key_times(L, in, number_bytes, spend); /* top + 1 */
    if (t == NULL || !output_ok(out, r->path)) goto fault;
    v = read_floats(L, out, number_bytes, spend); /* top + 2 */
    if (v == NULL || out->a.count != (r->interp == INTERP_CUBIC ? 3 : 1) * t->n) goto fault;
    if (r->path != PATH_ROTATION || r->interp == INTERP_CUBIC) return 1;
    /* the rotation keys (clips.lua's rotation_keys, _gltf.rotation_keys) */
    keys = t->n;
    *spend += number_bytes * (double)v->n;
    unit = (double *)sn_lua_scratch(L, 1, sizeof(double) * 4 * keys);
    if (!sn_gltf_unit_rotations(v->v, keys, unit, &at)) goto fault;
    if (r->interp == INTERP_LINEAR) added = sn_gltf_slerp_added(t->v, unit, keys, lua_tonumber(L, A_WIDEST));
    *spend += 5 * number_bytes * (double)added;
    lua_pop(L, added == 0 ? 1 : 2); /* (t and v stay anchored: in this call's tables or the document's) */
    if (sn_lua_push_rotation_keys(L, t, unit, added, lua_tonumber(L, A_WIDEST), &err) == 0) goto fault;
    return 1;
fault:
    lua_settop(L, top);
    return 0;
}

static int compare_integers(const void *a, const void *b) {
    const lua_Integer x = *(const lua_Integer *)a, y = *(const lua_Integer *)b;
    return (x > y) - (x < y);
}

/* a track for M.clip_bytes: its times (by identity) and its rows class */
typedef struct sized {
    const sn_lua_floats *times;
    int cls; /* path x 8 + rows per key */
} sized;

static int compare_sized(const void *a, const void *b) {
    const sized *x = (const sized *)a, *y = (const sized *)b;
    if (x->times != y->times) return (uintptr_t)x->times < (uintptr_t)y->times ? -1 : 1;
    return (x->cls > y->cls) - (x->cls < y->cls);
}

/* M.clip_bytes of the `n` tracks on a skeleton of `joints` joints */
static double clip_bytes(sized *s, int n, double joints) {
    static const int widths[] = {3, 4, 3};
    double bytes = 1024.0 + 64.0 * n;
    int i = 0;
    qsort(s, (size_t)n, sizeof *s, compare_sized);
    while (i < n) {
        int j = i;
        double lanes, padded;
        while (j < n && s[j].times == s[i].times && s[j].cls == s[i].cls) j++;
        lanes = (double)(j - i);
        if (2 * lanes >= joints && joints > lanes) lanes = joints;
        padded = ceil(lanes / SN_SKELETON_LANES) * SN_SKELETON_LANES;
        bytes += 4.0 * (double)s[i].times->n * (4 + widths[s[i].cls / 8] * (s[i].cls % 8)) * padded;
        i = j;
    }
    return bytes;
}

/* the keys table { times, values, id } at `idx` is usable as a cached track's */
static int keys_ok(lua_State *L, int idx) {
    int ok;
    double id;
    if (!lua_istable(L, idx)) return 0;
    lua_rawgeti(L, idx, 1);
    lua_rawgeti(L, idx, 2);
    lua_rawgeti(L, idx, 3);
    id = lua_tonumber(L, -1);
    ok = floats_at(L, -3) != NULL && floats_at(L, -2) != NULL && lua_type(L, -1) == LUA_TNUMBER &&
         id >= 1 && id <= 1e9 && id == floor(id) && floats_at(L, -3)->n > 0;
    lua_pop(L, 3);
    return ok;
}

/* the accessor of the value at `idx`: one resolved in this call before, or resolved now and added
   to `known` (*n of them); its place there, or -1 when it is not plain */
static int accessor_of(lua_State *L, int idx, accessor *known, int *n) {
    lua_Integer i;
    int k;
    if (!index_of(L, idx, sn_lua_rawlen(L, S_ACCESSORS), &i)) return -1;
    for (k = 0; k < *n; k++)
        if (known[k].index == i) return k;
    if (!resolve_accessor(L, idx, &known[k])) return -1;
    known[k].a.view = &known[k].view;
    return (*n)++;
}

/* reads the channels into ch (and the new tracks into rec, their count in *nrec), with every check
   of the Lua loop; 0 when the animation is not plain. The accessors go to `known` (*nknown). */
static int read_channels(lua_State *L, channel *ch, int nch, record *rec, int *nrec, accessor *known, int *nknown,
                         unsigned char *seen, size_t nodes, lua_Integer joints) {
    const size_t samplers = sn_lua_rawlen(L, A_SAMPLERS);
    int ci, r;
    *nrec = 0;
    *nknown = 0;
    for (ci = 0; ci < nch; ci++) {
        const int top = lua_gettop(L);
        lua_Integer s, n, key;
        int icode, in, out;
        double joint;
        lua_rawgeti(L, A_CHANNELS, ci + 1); /* top + 1 */
        if (!object(L, top + 1)) return 0;
        kfield(L, top + 1, K_TARGET);
        kfield(L, top + 1, K_SAMPLER); /* top + 2, 3 */
        if (!object(L, top + 2) || !index_of(L, top + 3, samplers, &s)) return 0;
        if (kfield(L, top + 2, K_PATH) != LUA_TSTRING) return 0; /* top + 4 */
        for (ch[ci].path = 0; ch[ci].path < 3 && !is_name(L, top + 4, path_names[ch[ci].path]); ch[ci].path++) continue;
        if (ch[ci].path == 3) return 0; /* weights, or not a path */
        kfield(L, top + 2, K_NODE); /* top + 5 */
        if (!index_of(L, top + 5, nodes, &n)) return 0;
        lua_rawgeti(L, A_JOINT_OF, (int)n); /* top + 6 */
        if (lua_type(L, top + 6) != LUA_TNUMBER) return 0;
        joint = lua_tonumber(L, top + 6);
        if (!(joint >= 1 && joint <= (double)joints) || joint != floor(joint)) return 0;
        ch[ci].joint = (lua_Integer)joint;
        if (seen[3 * (ch[ci].joint - 1) + ch[ci].path]) return 0; /* (a fault, or two nodes of one joint) */
        seen[3 * (ch[ci].joint - 1) + ch[ci].path] = 1;
        lua_rawgeti(L, A_SAMPLERS, (int)s + 1); /* top + 7 */
        if (!object(L, top + 7)) return 0;
        kfield(L, top + 7, K_INTERPOLATION); /* top + 8 */
        if (!lua_toboolean(L, top + 8)) {
            icode = INTERP_LINEAR;
        } else {
            if (lua_type(L, top + 8) != LUA_TSTRING) return 0;
            for (icode = 0; icode < 3 && !is_name(L, top + 8, interp_json[icode]); icode++) continue;
            if (icode == 3) return 0;
        }
        kfield(L, top + 7, K_INPUT);
        kfield(L, top + 7, K_OUTPUT); /* top + 9, 10 */
        in = accessor_of(L, top + 9, known, nknown);
        out = in < 0 ? -1 : accessor_of(L, top + 10, known, nknown);
        if (out < 0) return 0;
        key = (known[out].index * 3 + icode) * 4 + ch[ci].path;
        ch[ci].interp = icode;
        ch[ci].slot = ci + 1;
        ch[ci].record = -1;
        lua_rawgeti(L, S_DOC_TRACK_KEYS, (int)known[in].index); /* top + 11 */
        if (lua_istable(L, top + 11)) {
            lua_pushinteger(L, key);
            lua_rawget(L, top + 11); /* top + 12 */
            if (!lua_isnil(L, top + 12)) {
                if (!keys_ok(L, top + 12)) return 0;
                /* its times and values anchored here (S_KEYS 2 slot - 1, 2 slot), its number kept */
                lua_rawgeti(L, top + 12, 1);
                lua_rawseti(L, S_KEYS, 2 * ch[ci].slot - 1);
                lua_rawgeti(L, top + 12, 2);
                lua_rawseti(L, S_KEYS, 2 * ch[ci].slot);
                lua_rawgeti(L, top + 12, 3);
                ch[ci].id = (lua_Integer)lua_tonumber(L, -1);
                lua_settop(L, top);
                continue;
            }
        }
        for (r = 0; r < *nrec && !(rec[r].input == known[in].index && rec[r].key == key); r++) continue;
        if (r == *nrec) {
            rec[r].input = known[in].index, rec[r].key = key, rec[r].in = in, rec[r].out = out;
            rec[r].path = ch[ci].path, rec[r].interp = icode;
            (*nrec)++;
        }
        ch[ci].record = r;
        ch[ci].slot = nch + r + 1;
        lua_settop(L, top);
    }
    return 1;
}

/* the float buffers and number of channel `c`'s keys (cached, or of new track `made` + 1 ..);
   they stay anchored in S_KEYS's tables or S_RECORDS */
static void channel_keys(lua_State *L, channel *c, lua_Integer made, const sn_lua_floats **t,
                         const sn_lua_floats **v) {
    if (c->record < 0) {
        lua_rawgeti(L, S_KEYS, 2 * c->slot - 1);
        *t = floats_at(L, -1);
        lua_rawgeti(L, S_KEYS, 2 * c->slot);
        *v = floats_at(L, -1);
        lua_pop(L, 2);
    } else {
        lua_rawgeti(L, S_RECORDS, 2 * c->record + 1);
        *t = floats_at(L, -1);
        lua_rawgeti(L, S_RECORDS, 2 * c->record + 2);
        *v = floats_at(L, -1);
        c->id = made + c->record + 1;
        lua_pop(L, 2);
    }
}

/* the commit: the import's caches get what the Lua loop would have put there */
static void commit(lua_State *L, const record *rec, int nrec, lua_Integer made) {
    int r;
    lua_pushnil(L);
    while (lua_next(L, S_FRESH)) { /* doc.floats[i] = { values } */
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_createtable(L, 2, 0);
        lua_pushvalue(L, -2);
        lua_rawget(L, S_FLOATS);
        lua_rawseti(L, -2, 1);
        lua_rawset(L, S_DOC_FLOATS);
    }
    lua_pushnil(L);
    while (lua_next(L, S_TIMES)) { /* doc.key_times[input] = times */
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, S_DOC_KEY_TIMES);
    }
    for (r = 0; r < nrec; r++) { /* doc.track_keys[input][key] = { times, values, id } */
        lua_rawgeti(L, S_DOC_TRACK_KEYS, (int)rec[r].input);
        if (!lua_istable(L, -1)) {
            lua_pop(L, 1);
            lua_newtable(L);
            lua_pushvalue(L, -1);
            lua_rawseti(L, S_DOC_TRACK_KEYS, (int)rec[r].input);
        }
        lua_pushinteger(L, rec[r].key);
        lua_createtable(L, 3, 0);
        lua_rawgeti(L, S_RECORDS, 2 * r + 1);
        lua_rawseti(L, -2, 1);
        lua_rawgeti(L, S_RECORDS, 2 * r + 2);
        lua_rawseti(L, -2, 2);
        lua_pushinteger(L, made + r + 1);
        lua_rawseti(L, -2, 3);
        lua_rawset(L, -3);
        lua_pop(L, 1);
    }
    lua_pushstring(L, "tracks_made");
    lua_pushinteger(L, made + nrec);
    lua_rawset(L, A_DOC);
}

/* the clip of the `n` tracks `tr` (pushed), as sinew.clip makes it; 0 (nothing pushed) when the
   core refuses them */
static int make_clip(lua_State *L, const sn_skeleton *skeleton, const sn_clip_track_def *tr, int n, double duration) {
    sn_clip_def def;
    sn_allocator alloc;
    sn_error err;
    size_t size;
    void *mem;
    sn_clip_def_init(&def);
    def.skeleton = skeleton;
    def.tracks = tr;
    def.track_count = n;
    def.duration = (float)duration;
    sn_lua_allocator(L, &alloc);
    def.alloc = &alloc;
    size = sn_clip_size(&def, &err);
    if (size == 0) return 0;
    mem = sn_lua_newuserdata(L, size);
    if (sn_clip_init(mem, size, &def, &err) != SN_OK) {
        lua_pop(L, 1);
        return 0;
    }
    sn_lua_setmetatable(L, SN_CLIP_MT);
    sn_lua_keepskeleton(L, -1, A_SKELETON);
    return 1;
}

/*
 * The fast path of clips.lua for one animation (not for users): when the animation is plain (see
 * the top of src/binding/gltf_clips.c), does what the Lua loop of M.clips does for it: fills the
 * import's caches of keys, finds the clip of the same tracks in `made` or makes it, and returns
 * it with its signature and the bytes the loop would have spent; else returns nothing and changes
 * nothing.
 * @function _gltf.animation
 * @tparam table doc the import's document (sinew.gltf.document): its json, buffers, floats,
 * decoded, key_times, track_keys and tracks_made are read, and on success the last four written
 * @tparam table samplers the animation's samplers
 * @tparam table channels its channels
 * @tparam table joint_of node -> 1-based joint
 * @tparam int nodes the node count
 * @tparam number widest radians: the widest angle between LINEAR rotation keys (sn_gltf_slerp_added)
 * @tparam number left the bytes left in the budget
 * @tparam number number_bytes what a number counts against it (D.NUMBER_BYTES)
 * @tparam userdata skeleton the sinew.Skeleton
 * @tparam table made signature -> the clip made for it (read only)
 * @treturn ?userdata the sinew.Clip (from `made` when its signature is there)
 * @treturn string the signature
 * @treturn int the bytes spent (Doc:spend): keys, and the clip's (M.clip_bytes) when it is new
 * @raise when an argument is not of its type: "table expected, got nil", "sinew.Skeleton expected,
 * got nil", "node count -1 is out of range (0 .. 2147483647)", "not a positive angle", ...
 */
static int l_animation(lua_State *L) {
    size_t nodes, k;
    lua_Integer joints, made;
    int nch, nrec, nknown, r, ci;
    channel *ch;
    record *rec;
    accessor *known;
    sized *sz;
    sn_clip_track_def *tr;
    lua_Integer *sig;
    unsigned char *seen;
    double spend = 0.0, duration = 0.0, left;
    const sn_skeleton *skeleton;
    char number[64];
    luaL_Buffer b;
    sn_lua_checktype(L, A_DOC, LUA_TTABLE);
    sn_lua_checktype(L, A_SAMPLERS, LUA_TTABLE);
    sn_lua_checktype(L, A_CHANNELS, LUA_TTABLE);
    sn_lua_checktype(L, A_JOINT_OF, LUA_TTABLE);
    nodes = (size_t)sn_lua_toindex(L, A_NODES, 0, INT_MAX, A_NODES, "node count");
    if (!(sn_lua_checknumber(L, A_WIDEST) > 0)) return sn_lua_argerror(L, A_WIDEST, "not a positive angle");
    left = sn_lua_checknumber(L, A_LEFT);
    if (!(sn_lua_checknumber(L, A_NUMBER_BYTES) >= 0)) return sn_lua_argerror(L, A_NUMBER_BYTES, "not a count");
    skeleton = sn_lua_checkskeleton(L, A_SKELETON);
    joints = sn_skeleton_count(skeleton);
    sn_lua_checktype(L, A_MADE, LUA_TTABLE);
    lua_settop(L, A_MADE);
    luaL_checkstack(L, 40, "animation");
    if (!plain(L, A_SAMPLERS) || !plain(L, A_CHANNELS) || joints < 1) return 0;
    for (nch = 0; nch <= MAX_CHANNELS; nch++) { /* ipairs: up to the first nil */
        lua_rawgeti(L, A_CHANNELS, nch + 1);
        if (lua_isnil(L, -1)) break;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (nch == 0 || nch > MAX_CHANNELS) return 0;
    for (k = S_KEYS; k <= S_BUFFERS; k++) lua_newtable(L);
    /* the document's tables: the JSON lists as Doc:array finds them, the caches */
    lua_pushstring(L, "json");
    lua_rawget(L, A_DOC);
    if (!plain(L, S_JSON)) return 0;
    field(L, S_JSON, "accessors");
    field(L, S_JSON, "bufferViews");
    field(L, S_JSON, "buffers");
    if (!list(L, S_ACCESSORS) || !list(L, S_VIEWS) || !list(L, S_BUFFER_LIST)) return 0;
    field(L, A_DOC, "buffers");
    field(L, A_DOC, "floats");
    field(L, A_DOC, "decoded");
    field(L, A_DOC, "key_times");
    field(L, A_DOC, "track_keys");
    field(L, A_DOC, "tracks_made");
    for (k = S_DOC_BUFFERS; k <= S_DOC_TRACK_KEYS; k++)
        if (!lua_istable(L, (int)k)) return 0;
    if (lua_type(L, S_TOP + 1) != LUA_TNUMBER) return 0;
    made = (lua_Integer)lua_tonumber(L, S_TOP + 1);
    lua_settop(L, S_TOP);
    /* one block for the channels, the new tracks, the accessors, the signature, the sizes, the
       track definitions and the joints' paths seen */
    ch = (channel *)sn_lua_newtemp(L, (sizeof(channel) + sizeof(record) + 2 * sizeof(accessor) + sizeof(lua_Integer) +
                                        sizeof(sized) + sizeof(sn_clip_track_def)) * (size_t)nch + 3 * (size_t)joints);
    rec = (record *)(ch + nch);
    known = (accessor *)(rec + nch);
    sig = (lua_Integer *)(known + 2 * nch);
    sz = (sized *)(sig + nch);
    tr = (sn_clip_track_def *)(sz + nch);
    seen = (unsigned char *)(tr + nch);
    if (!read_channels(L, ch, nch, rec, &nrec, known, &nknown, seen, nodes, joints)) return 0;
    for (r = 0; r < nrec; r++) {
        if (!make_track(L, &rec[r], &known[rec[r].in], &known[rec[r].out], &spend)) return 0;
        lua_rawseti(L, S_RECORDS, 2 * r + 2);
        lua_rawseti(L, S_RECORDS, 2 * r + 1);
    }
    /* the tracks, the duration and the signature (clips.lua's sig) */
    for (ci = 0; ci < nch; ci++) {
        const sn_lua_floats *t, *v;
        channel_keys(L, &ch[ci], made, &t, &v);
        tr[ci].joint = (int)ch[ci].joint - 1;
        tr[ci].path = (sn_clip_path)ch[ci].path;
        tr[ci].interpolation = (sn_clip_interpolation)ch[ci].interp;
        tr[ci].keys = (int)t->n;
        tr[ci].times = t->v;
        tr[ci].values = v->v;
        sig[ci] = (ch[ci].id * 4 + ch[ci].path) * 65536 + ch[ci].joint;
        sz[ci].times = t;
        sz[ci].cls = ch[ci].path * 8 + (ch[ci].interp == INTERP_LINEAR ? 2 : ch[ci].interp == INTERP_STEP ? 1 : 4);
        if (t->v[t->n - 1] > duration) duration = t->v[t->n - 1];
    }
    qsort(sig, (size_t)nch, sizeof *sig, compare_integers);
    if (sig[0] < 0 || sig[nch - 1] >= SIG_MAX) return 0;
    luaL_buffinit(L, &b);
    for (ci = 0; ci < nch; ci++) {
        char digits[24], *d = digits + sizeof digits;
        lua_Integer v = sig[ci];
        *--d = ',';
        do {
            *--d = (char)('0' + v % 10);
            v /= 10;
        } while (v > 0);
        luaL_addlstring(&b, d, (size_t)(digits + sizeof digits - d));
    }
    snprintf(number, sizeof number, "%.17g", duration);
    luaL_addstring(&b, number);
    luaL_pushresult(&b); /* S_TOP + 2 */
    /* the clip: one of the same signature, or a new one, its bytes within the budget too */
    lua_pushvalue(L, -1);
    lua_rawget(L, A_MADE); /* S_TOP + 3 */
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        spend += clip_bytes(sz, nch, (double)joints);
        if (!(spend <= (left > 0 ? left : 0))) return 0;
        if (!make_clip(L, skeleton, tr, nch, duration)) return 0;
    } else if (!(spend <= (left > 0 ? left : 0))) {
        return 0;
    }
    commit(L, rec, nrec, made);
    lua_pushvalue(L, S_TOP + 2);
    lua_pushinteger(L, (lua_Integer)spend);
    return 3;
}

void sn_open_gltf_clips(lua_State *L, int gltf) {
    int k;
    gltf = sn_lua_absindex(L, gltf);
    lua_pushnil(L); /* the block of unit rotations (sn_lua_scratch), made at the first call */
    for (k = K_TARGET; k < K_END; k++) lua_pushstring(L, key_names[k - K_TARGET]);
    luaL_getmetatable(L, SN_FLOATS_MT);
    lua_pushcclosure(L, l_animation, U_FLOATS_MT);
    lua_setfield(L, gltf, "animation");
}
