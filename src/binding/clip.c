/***
 * Keyframed clips: `sinew.clip`, sampled into poses.
 *
 * Translation and scale tracks lerp, rotation tracks nlerp on the shortest arc; "step" holds
 * the previous key; "cubicspline" is glTF's Hermite form. Joints without a track keep the rest
 * pose; weights tracks animate morph targets, and morphs without one take their default weight. Sampling forward in time reuses a cursor kept in the clip, so it costs no key search;
 * `clip:cursor()` gives one playback its own (for many characters sharing a clip).
 *
 * A method raises "sinew.Clip expected, got <type>" (or sinew.ClipCursor) when its `self` is
 * something else, as in `Clip.duration(nil)`; the methods' Raises sections leave that out.
 * @module sinew.clip
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/clip.h"
#include "binding.h"

static const char *const paths[] = {"translation", "rotation", "scale", "weights", NULL}; /* sn_clip_path */
static const char *const interpolations[] = {"linear", "step", "cubicspline", NULL};
static const char *const clip_fields[] = {"skeleton", "tracks", "duration", NULL};
static const char *const track_fields[] = {"joint", "morph", "path", "interpolation", "times", "values", NULL};

static sn_clip *check_clip(lua_State *L, int arg) { return (sn_clip *)sn_lua_checkobject(L, arg, SN_CLIP_MT); }

static int def_error(lua_State *L, int track, const char *msg) {
    if (track > 0) return sn_lua_argerror(L, 1, lua_pushfstring(L, "track %d: %s", track, msg));
    return sn_lua_argerror(L, 1, msg);
}

/* the joint (or, with sn_lua_morphs, the morph target) of track i at stack index idx, 0-based */
static int track_entry(lua_State *L, int idx, const sn_skeleton *s, int i, const sn_lua_entries *e) {
    if (lua_type(L, idx) == LUA_TSTRING) {
        int k = sn_lua_findentry(L, idx, s, e);
        if (k < 0) def_error(L, i, lua_pushfstring(L, "unknown %s '%s'", e->what, lua_tostring(L, idx)));
        return k;
    }
    if (lua_type(L, idx) == LUA_TNUMBER) {
        double v = lua_tonumber(L, idx);
        const int n = e->count(s);
        if (v != floor(v)) def_error(L, i, lua_pushfstring(L, "%s %s is not an integer", e->what, sn_lua_numstr(L, v)));
        /* 0-based, saturated: the core checks the range */
        return v < 0.0 ? -1 : v > (double)n ? n : (int)v - 1;
    }
    return def_error(L, i, lua_pushfstring(L, "'%s' must be a name or an index (got %s)", e->what, luaL_typename(L, idx)));
}

/* copies n numbers of the table at `t` (raw access) into out */
static void read_floats(lua_State *L, int t, int track, const char *what, float *out, int n) {
    int k;
    for (k = 0; k < n; k++) {
        lua_rawgeti(L, t, k + 1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            def_error(L, track,
                      lua_pushfstring(L, "%s %d is not a number (got %s)", what, k + 1, luaL_typename(L, -1)));
        out[k] = (float)lua_tonumber(L, -1);
        if (!sn_isfinite(out[k])) def_error(L, track, lua_pushfstring(L, "%s %d is not finite", what, k + 1));
        lua_pop(L, 1);
    }
}

/* the length of a track's times or values at `idx`: a float buffer's `b` (the glTF importer's:
   see src/binding/gltf.c) or else a table's (raw), saturated to INT_MAX (the core refuses such
   counts) */
static int list_length(lua_State *L, int idx, const sn_lua_floats *b) {
    size_t n = b != NULL ? b->n : sn_lua_rawlen(L, idx);
    return n > INT_MAX ? INT_MAX : (int)n;
}

/* the floats of the list at `t` (n of them, counted by read_track): a float buffer's own (`b`,
   found by read_track), checked (it stays anchored while the clip is made), or a table's numbers
   copied to *room, which moves past them */
static const float *read_list(lua_State *L, int t, int track, const char *what, float **room, int n,
                              const sn_lua_floats *b) {
    const float *out = *room;
    int k;
    if (b == NULL) {
        read_floats(L, t, track, what, *room, n);
        *room += n;
        return out;
    }
    if (!sn_floats_finite(b->v, (size_t)n)) /* n <= b->n: counted above, and a buffer never changes its count */
        for (k = 0; k < n; k++)
            if (!sn_isfinite(b->v[k])) def_error(L, track, lua_pushfstring(L, "%s %d is not finite", what, k + 1));
    return b->v;
}

/* The list at field `field` ("times" or "values") of track i (its table at `track`): a table or a
   float buffer (returned, NULL for a table), anchored at entry `e` of the anchor table at
   `anchor`; its length in *count */
static const sn_lua_floats *anchor_list(lua_State *L, int track, int i, const char *field, int anchor, int e,
                                        int *count) {
    const sn_lua_floats *b = sn_lua_field(L, track, field) != LUA_TTABLE ? sn_lua_tofloats(L, -1) : NULL;
    if (lua_type(L, -1) != LUA_TTABLE && b == NULL)
        def_error(L, i, lua_pushfstring(L, "'%s' must be a table (got %s)", field, luaL_typename(L, -1)));
    *count = list_length(L, -1, b);
    lua_rawseti(L, anchor, e);
    return b;
}

/* Reads the fields of track i (1-based; its table on top) once: the joint, path and
   interpolation into tr, the times and values tables into the anchor table at `anchor` (entries
   2i - 1 and 2i) with their lengths: tr->keys and *nvalues. Pops the track. */
static void read_track(lua_State *L, const sn_skeleton *s, int i, int anchor, sn_clip_track_def *tr, int *nvalues,
                       const sn_lua_floats **bufs) {
    char ctx[32], where[32];
    int track = lua_gettop(L), width, want, len;
    if (!lua_istable(L, track)) def_error(L, i, lua_pushfstring(L, "a table expected, got %s", luaL_typename(L, track)));
    len = sprintf(ctx, "track %d: ", i); /* and `where`, the same without ": " */
    memcpy(where, ctx, (size_t)len - 2);
    where[len - 2] = '\0';
    sn_lua_checkfields(L, track, 1, where, track_fields);
    if (sn_lua_field(L, track, "morph") != LUA_TNIL) { /* a weights track: 'morph', no 'joint', 'path' optional */
        if (sn_lua_field(L, track, "joint") != LUA_TNIL) def_error(L, i, "a track has a 'joint' or a 'morph', not both");
        tr->joint = track_entry(L, -2, s, i, sn_lua_morphs());
        sn_lua_field(L, track, "path");
        tr->path = (sn_clip_path)sn_lua_tooption(L, -1, 1, ctx, "path", paths, SN_CLIP_WEIGHT);
        if (tr->path != SN_CLIP_WEIGHT)
            def_error(L, i, lua_pushfstring(L, "a 'morph' track animates its 'weights', not a %s", paths[tr->path]));
    } else {
        sn_lua_field(L, track, "joint");
        tr->joint = track_entry(L, -1, s, i, sn_lua_joints());
        sn_lua_field(L, track, "path");
        tr->path = (sn_clip_path)sn_lua_tooption(L, -1, 1, ctx, "path", paths, -1);
        if (tr->path == SN_CLIP_WEIGHT) def_error(L, i, "a 'weights' track names a 'morph', not a 'joint'");
    }
    lua_pop(L, 3); /* morph, joint, path */
    sn_lua_field(L, track, "interpolation");
    tr->interpolation = (sn_clip_interpolation)sn_lua_tooption(L, -1, 1, ctx, "interpolation", interpolations,
                                                                SN_CLIP_LINEAR);
    lua_pop(L, 1);
    /* each list a table or a float buffer, found once (kept in bufs[0] and bufs[1]) */
    bufs[0] = anchor_list(L, track, i, "times", anchor, 2 * i - 1, &tr->keys);
    bufs[1] = anchor_list(L, track, i, "values", anchor, 2 * i, nvalues);
    lua_pop(L, 1); /* the track */
    if (tr->keys < 1) def_error(L, i, "no keys ('times' is empty)");
    width = tr->path == SN_CLIP_ROTATION ? 4 : tr->path == SN_CLIP_WEIGHT ? 1 : 3;
    want = tr->interpolation == SN_CLIP_CUBIC ? 3 * width : width;
    if (*nvalues / want != tr->keys || *nvalues % want != 0) {
        if (tr->interpolation == SN_CLIP_CUBIC)
            def_error(L, i, lua_pushfstring(L, "%d values, expected %d (%d keys x 3 x %d for cubicspline)", *nvalues,
                                            want * tr->keys, tr->keys, width));
        def_error(L, i, lua_pushfstring(L, "%d values, expected %d (%d keys x %d)", *nvalues, want * tr->keys, tr->keys,
                                        width));
    }
}

/***
 * Builds a clip.
 *
 * `def.skeleton` is the Skeleton, `def.tracks` a list of tracks
 * `{joint = name or index, path = "translation" | "rotation" | "scale", times = {...},
 * values = {...}, interpolation = "linear" (default) | "step" | "cubicspline"}` with strictly
 * increasing times (seconds, >= 0) and 3 (translation in model units, scale factors) or 4
 * (rotation quaternion x, y, z, w, any non-zero length) values per key, three times as many for
 * "cubicspline" (in-tangent, value, out-tangent per key, as glTF). Times and values are stored as
 * float32 (the glTF importer passes its float buffers, sinew.Floats, in place of the tables). A
 * weights track `{morph = name or index, times = {...}, values = {...}, interpolation = ...}`
 * (`path = "weights"` optional, no `joint`) animates a morph target of the skeleton with 1 value
 * per key (3 for "cubicspline"), any finite number. `def.duration` (seconds) defaults to the last
 * key time of all tracks. Every fault is an error; no partial object is made.
 * @function clip
 * @tparam table def `{skeleton = ..., tracks = {...}, duration = ...}`
 * @treturn Clip
 * @raise when `def` is not a table; "unknown field 'x' in the clip definition"; "'skeleton' must be
 * a sinew.Skeleton (got nil)"; "'tracks' must be a table (got nil)"; "'duration' must be a number
 * (got string)", "'duration' must be a finite number >= 0", "'duration' 2e+09 is too long (at most
 * 1e+09 s)"; and per track, prefixed "track 2: " or "track 2 ('hips' rotation): ": "a table
 * expected, got number", "unknown field 'x' in track 2", "unknown joint 'x'", "joint 1.5 is not an
 * integer", "joint 9 is out of range (1 .. 8)", "'joint' must be a name or an index (got nil)",
 * "'path' must be a string ('translation', 'rotation' or 'scale') (got nil)", "unknown path 'x'
 * (...)", "unknown interpolation 'x' (...)", "'times' must be a table (got nil)" (and 'values'),
 * "no keys ('times' is empty)", "7 values, expected 6 (2 keys x 3)", "time 2 is not a number (got
 * string)", "time 2 is not finite", "time 2 (-1) is negative", "time 3 (2) is past the duration
 * (1)", "times are not increasing: time 2 (0.5) after time 1 (0.5)", "value 4 is not finite",
 * "value 4 is too large (at most 1e+18 in magnitude)", "rotation of key 2 is zero"; "tracks 1 and 3
 * both animate the rotation of 'hips'"; for weights tracks "unknown morph 'x'", "morph 1.5 is not an
 * integer", "morph 5 is out of range (1 .. 4)", "'morph' must be a name or an index (got boolean)",
 * "a track has a 'joint' or a 'morph', not both", "a 'morph' track animates its 'weights', not a
 * rotation", "a 'weights' track names a 'morph', not a 'joint'", "tracks 1 and 2 both animate the
 * weight of 'blink'"
 */
static int l_clip(lua_State *L) {
    sn_clip_def def;
    sn_clip_track_def *tracks;
    sn_allocator alloc;
    sn_error err;
    float *floats;
    size_t total = 0, size;
    int n, i, *nvalues;
    const sn_lua_floats **bufs;
    void *mem;
    sn_lua_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    sn_lua_checkfields(L, 1, 1, "the clip definition", clip_fields);
    sn_clip_def_init(&def);
    sn_lua_field(L, 1, "skeleton"); /* 2: read once, anchored here while the clip refers to it */
    def.skeleton = (const sn_skeleton *)sn_lua_testobject(L, 2, SN_SKELETON_MT);
    if (def.skeleton == NULL)
        return def_error(L, 0, lua_pushfstring(L, "'skeleton' must be a %s (got %s)", SN_SKELETON_MT,
                                               sn_lua_typename_of(L, 2)));
    if (sn_lua_field(L, 1, "tracks") != LUA_TTABLE) /* 3 */
        return def_error(L, 0, lua_pushfstring(L, "'tracks' must be a table (got %s)", luaL_typename(L, 3)));
    sn_lua_field(L, 1, "duration"); /* 4 */
    if (!lua_isnil(L, 4) && lua_type(L, 4) != LUA_TNUMBER)
        return def_error(L, 0, lua_pushfstring(L, "'duration' must be a number (got %s)", luaL_typename(L, 4)));
    n = (int)sn_lua_rawlen(L, 3);
    /* 5: the track definitions and their value counts; 6: the times and values tables, anchored */
    tracks = (sn_clip_track_def *)sn_lua_newtemp(
        L, (sizeof(sn_clip_track_def) + 2 * sizeof(sn_lua_floats *) + sizeof(int)) * (size_t)n);
    bufs = (const sn_lua_floats **)(tracks + n);
    nvalues = (int *)(bufs + 2 * n);
    lua_createtable(L, 2 * n, 0);
    for (i = 1; i <= n; i++) {
        lua_rawgeti(L, 3, i);
        read_track(L, def.skeleton, i, 6, &tracks[i - 1], &nvalues[i - 1], bufs + 2 * (i - 1));
        /* the floats of tables are copied, float buffers read in place */
        total += (bufs[2 * i - 2] == NULL ? (size_t)tracks[i - 1].keys : 0) +
                 (bufs[2 * i - 1] == NULL ? (size_t)nvalues[i - 1] : 0);
    }
    /* 7: the numbers of the tables (float buffers are read in place). Each table is read raw for
       the count found above: if a finaliser run by this allocation changed one, a missing number
       is an error and an extra one is not read */
    floats = (float *)sn_lua_newtemp(L, sizeof(float) * (total > 0 ? total : 1));
    for (i = 0; i < n; i++) {
        sn_clip_track_def *tr = &tracks[i];
        lua_rawgeti(L, 6, 2 * i + 1);
        tr->times = read_list(L, lua_gettop(L), i + 1, "time", &floats, tr->keys, bufs[2 * i]);
        lua_rawgeti(L, 6, 2 * i + 2);
        tr->values = read_list(L, lua_gettop(L), i + 1, "value", &floats, nvalues[i], bufs[2 * i + 1]);
        lua_pop(L, 2);
    }
    def.tracks = tracks;
    def.track_count = n;
    if (lua_isnil(L, 4)) {
        int k;
        def.duration = 0.0f; /* the latest key time (not only last ones, so that order faults show as such) */
        for (i = 0; i < n; i++)
            for (k = 0; k < tracks[i].keys; k++)
                if (tracks[i].times[k] > def.duration) def.duration = tracks[i].times[k];
    } else {
        def.duration = (float)lua_tonumber(L, 4); /* the core checks it */
    }
    sn_lua_allocator(L, &alloc);
    def.alloc = &alloc;
    size = sn_clip_size(&def, &err);
    if (size == 0) return def_error(L, 0, err.msg);
    mem = sn_lua_newuserdata(L, size);
    if (sn_clip_init(mem, size, &def, &err) != SN_OK) return def_error(L, 0, err.msg);
    sn_lua_setmetatable(L, SN_CLIP_MT);
    sn_lua_keepskeleton(L, -1, 2);
    return 1;
}

/***
 * Samples the clip at time `t` into `pose` (of the clip's skeleton) and returns the pose.
 * Joints without a track keep their rest transform, morphs without one their default weight (the
 * pose's morph weights are written too). No garbage.
 * @function Clip:sample
 * @tparam number t seconds (any finite value: with `loop` it wraps into [0, duration), negative
 * times and times far past the end included; without, it is clamped to [0, duration])
 * @tparam Pose pose
 * @tparam[opt=true] boolean loop
 * @treturn Pose pose
 * @raise "not a finite number" for `t`; "sinew.Pose expected, got nil" for `pose`; "pose of another
 * skeleton"
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
 * Samples one joint of the clip at time `t`: what `clip:sample(t, pose, loop)` then
 * `pose:get(joint)` give, bit for bit, without a pose and without moving the clip's cursor (so
 * it does not slow the clip's own forward playback). It finds the joint's keys at each call;
 * reading one joint this way takes about half the time of sampling the pose and getting the
 * joint under Lua 5.4, a fifth under LuaJIT (manual/poses.md). No garbage.
 * @function Clip:sample_joint
 * @tparam number t seconds (any finite value, as for `Clip:sample`)
 * @param joint index (1 .. #skeleton) or name
 * @tparam[opt=true] boolean loop
 * @return tx, ty, tz (model units), qx, qy, qz, qw (a unit quaternion), sx, sy, sz (factors), as
 * `Pose:get`
 * @raise "not a finite number" for `t`; for a bad joint ("unknown joint 'x'", "joint 9 is out of
 * range (1 .. 8)", "joint 1.5 is not an integer" or "joint index or name expected, got nil")
 */
static int l_clip_sample_joint(lua_State *L) {
    sn_clip *c = check_clip(L, 1);
    double t = sn_lua_checkfinite(L, 2);
    int j = sn_lua_checkjoint(L, 3, sn_clip_skeleton(c)), loop = lua_isnoneornil(L, 4) ? 1 : lua_toboolean(L, 4), k;
    float trs[10];
    sn_error err;
    if (sn_clip_sample_joint(c, t, loop, j, trs, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    for (k = 0; k < 10; k++) lua_pushnumber(L, trs[k]);
    return 10;
}

/***
 * The duration.
 * @function Clip:duration
 * @treturn number seconds
 * @raise never
 */
static int l_clip_duration(lua_State *L) {
    lua_pushnumber(L, sn_clip_duration(check_clip(L, 1)));
    return 1;
}

/***
 * The local time the clip samples at for time `t`.
 * @function Clip:local_time
 * @tparam number t seconds (any finite value)
 * @tparam[opt=true] boolean loop
 * @treturn number seconds: `t` wrapped into [0, duration) with `loop`, clamped to [0, duration]
 * without
 * @raise "not a finite number" for `t`
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
 * @raise never
 */
static int l_clip_skeleton(lua_State *L) {
    check_clip(L, 1);
    sn_lua_pushskeleton(L, 1);
    return 1;
}

/***
 * A new cursor of this clip: one playback's place in it, so that many playbacks of one clip (a
 * crowd, each character at its own time) each play forward without a key search. The cursor
 * keeps the clip alive. It takes 32 bytes, 16 per group of tracks and, for tracks with their own
 * key times, 12 to 104 bytes per track.
 * @function Clip:cursor
 * @treturn ClipCursor
 * @raise never
 */
static int l_clip_cursor(lua_State *L) {
    sn_clip_cursor_def def;
    sn_error err;
    size_t size;
    void *mem;
    sn_clip_cursor_def_init(&def);
    def.clip = check_clip(L, 1);
    size = sn_clip_cursor_size(&def, &err);
    if (size == 0) return sn_lua_raise(L, &err, 0);
    mem = sn_lua_newuserdata(L, size);
    if (sn_clip_cursor_init(mem, size, &def, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    sn_lua_setmetatable(L, SN_CLIP_CURSOR_MT);
    lua_createtable(L, 1, 0); /* the uservalue: {clip} keeps the clip alive */
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 1);
    sn_lua_setuservalue(L, -2);
    return 1;
}

static sn_clip_cursor *check_cursor(lua_State *L, int arg) {
    return (sn_clip_cursor *)sn_lua_checkobject(L, arg, SN_CLIP_CURSOR_MT);
}

/***
 * Samples the cursor's clip at time `t` into `pose`, as `Clip:sample` does, moving this cursor
 * (not the clip's own): the same pose as `clip:sample(t, pose, loop)`. No garbage.
 * @function ClipCursor:sample
 * @tparam number t seconds (any finite value)
 * @tparam Pose pose of the clip's skeleton
 * @tparam[opt=true] boolean loop wrap t into [0, duration) (true) or clamp it to [0, duration]
 * (false)
 * @treturn Pose pose
 * @raise "not a finite number" for `t`; "sinew.Pose expected, got nil" for `pose`; "pose of another
 * skeleton"
 */
static int l_cursor_sample(lua_State *L) {
    sn_clip_cursor *c = check_cursor(L, 1);
    double t = sn_lua_checkfinite(L, 2);
    sn_pose *p = sn_lua_checkpose(L, 3);
    int loop = lua_isnoneornil(L, 4) ? 1 : lua_toboolean(L, 4);
    sn_error err;
    if (sn_clip_cursor_sample(c, t, loop, p, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    lua_settop(L, 3);
    return 1;
}

/***
 * The clip of this cursor.
 * @function ClipCursor:clip
 * @treturn Clip
 * @raise never
 */
static int l_cursor_clip(lua_State *L) {
    check_cursor(L, 1);
    sn_lua_getuservalue(L, 1);
    lua_rawgeti(L, -1, 1);
    return 1;
}

static int l_cursor_tostring(lua_State *L) {
    lua_pushfstring(L, "sinew.ClipCursor: %p", (void *)check_cursor(L, 1));
    return 1;
}

static int l_clip_tostring(lua_State *L) {
    sn_clip *c = check_clip(L, 1);
    lua_pushfstring(L, "sinew.Clip (%d tracks, %s s): %p", sn_clip_track_count(c),
                    sn_lua_numstr(L, sn_clip_duration(c)), (void *)c);
    return 1;
}

void sn_open_clip(lua_State *L, int module) {
    static const luaL_Reg methods[] = {{"sample", l_clip_sample},
                                       {"sample_joint", l_clip_sample_joint},
                                       {"duration", l_clip_duration},
                                       {"local_time", l_clip_local_time},
                                       {"skeleton", l_clip_skeleton},
                                       {"cursor", l_clip_cursor},
                                       {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__tostring", l_clip_tostring}, {NULL, NULL}};
    static const luaL_Reg cursor_methods[] = {{"sample", l_cursor_sample}, {"clip", l_cursor_clip}, {NULL, NULL}};
    static const luaL_Reg cursor_meta[] = {{"__tostring", l_cursor_tostring}, {NULL, NULL}};
    sn_lua_newclass(L, SN_CLIP_MT, methods, meta);
    sn_lua_newclass(L, SN_CLIP_CURSOR_MT, cursor_methods, cursor_meta);
    lua_pushcfunction(L, l_clip);
    lua_setfield(L, module, "clip");
}
