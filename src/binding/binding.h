/*
 * What the files of the Lua binding share (the only C that includes lua.h).
 *
 * Conventions: misuse raises a Lua error with a lowercase message, names in single quotes, no
 * final period, ranges `(1 .. n)`, numbers as `%g`, choices `('a' or 'b')`; the binding checks
 * Lua types and raises what the core says about ranges and values (it never repeats a core
 * limit). Per-frame functions return plain numbers or fill a table or userdata the caller passed,
 * so they make no garbage; module state lives in upvalues or the registry, never in C statics.
 *
 * Hostile Lua (see manual/safety.md): every method and metamethod checks its own `self`;
 * definition tables are read once (each field through its metamethods once, its value kept on
 * the stack until the constructor returns; arrays with raw access), and every object a
 * constructor reads stays anchored until it returns, so neither __index nor a __gc finaliser
 * running in between can change what the core is given.
 *
 * The arrows run one way: module.c opens every area; pose.c, clip.c and chain.c use skeleton.c
 * and pose.c through this header; every file uses helpers.c.
 */
#ifndef SN_BINDING_H
#define SN_BINDING_H

#include "../core/blendspace.h"
#include "../core/pose.h"
#include "../core/skeleton.h"
#include "compat.h"

/* ---- helpers.c: numbers, indices, definition tables, errors, classes ---------------------- */

/// luaL_checknumber that also refuses NaN and infinities ("not a finite number").
double sn_lua_checkfinite(lua_State *L, int arg);
/// Optional finite number: `def` when the argument is none or nil.
double sn_lua_optfinite(lua_State *L, int arg, double def);
/// Reads element i (1-based, raw access) of the table at `t` as a finite number; otherwise
/// raises an argument error on `arg`: "element 3 of 'qs' is not a number (got string)".
double sn_lua_finite_at(lua_State *L, int t, int i, int arg, const char *what);
/// Pushes and returns `v` as a short string for messages, as `%g` would write it ("4", "0.25").
const char *sn_lua_numstr(lua_State *L, double v);
/// The number at stack index `idx` as an integer in [lo, hi]; otherwise raises an argument
/// error on `arg`: "<what> 2.5 is not an integer", "<what> 9 is out of range (1 .. 8)" or
/// "<what> must be a number (got string)". The one check of 1-based indices.
int sn_lua_toindex(lua_State *L, int idx, int lo, int hi, int arg, const char *what);
/// The number at `idx` as an int for the core to range-check: an integer-valued number, saturated
/// to INT_MIN .. INT_MAX (never an undefined conversion); raises "'<what>' must be an integer
/// (got 2.5)" or "'<what>' must be a number (got string)" on `arg`.
int sn_lua_toint(lua_State *L, int idx, int arg, const char *what);
/// The number at `idx` (NaN and infinities pass: the core names them); raises "'<what>' must be a
/// number (got string)" on `arg`.
double sn_lua_tonumber(lua_State *L, int idx, int arg, const char *what);
/// The string at `idx` as one of `names` (NULL-terminated), returning its position; nil gives
/// `dflt` when dflt >= 0. Raises on `arg` with `ctx` (a prefix such as "track 2: ", or "")
/// before the message: "'<what>' must be a string (got number)", "unknown <what> 'x' ('a' or 'b')".
int sn_lua_tooption(lua_State *L, int idx, int arg, const char *ctx, const char *what,
                    const char *const *names, int dflt);
/// Raises on `arg` when the table at `t` has a key (found by raw traversal) other than `known`
/// (NULL-terminated): "unknown field 'x' in <what>" (or "a number key" for a key that is not a
/// string).
void sn_lua_checkfields(lua_State *L, int t, int arg, const char *what, const char *const *known);
/// Pushes field `key` of the table at `t` (read once, through __index when the table has one)
/// and returns its type. The value stays on the stack, anchored while the caller uses it.
int sn_lua_field(lua_State *L, int t, const char *key);
/// Registry name of the metatable of refusals: the error object an argument or data check raises
/// instead of a message when the function was called by sinew.core.try (see sn_lua_refuse).
#define SN_REFUSAL_MT "sinew.refusal"
/// The one way the binding refuses a call: argument `arg` (0: no argument in particular) with
/// `msg`. Called from anywhere, it raises as lauxlib does: luaL_argerror for an argument
/// ("bad argument #2 to 'sample' (...)"), luaL_error's position and message otherwise. Called
/// directly by sinew.core.try, it raises a refusal table { msg, arg } that try returns as
/// `nil, msg, arg`, so no caller parses the message.
int sn_lua_refuse(lua_State *L, int arg, const char *msg);
/// sn_lua_refuse of argument `arg` (luaL_argerror's replacement in every file of the binding).
int sn_lua_argerror(lua_State *L, int arg, const char *msg);
/// sn_lua_refuse of no argument, with a message in lua_pushfstring's way (luaL_error's
/// replacement).
int sn_lua_errorf(lua_State *L, const char *fmt, ...);
/// sinew.core.try(fn, ...): calls fn(...) and returns what it returns; a refusal of the binding
/// comes back as `nil, message, argument` (argument nil when none); any other error is raised
/// again as it came. Registered by module.c; sn_lua_refuse compares its caller with it.
int sn_lua_try(lua_State *L);
/// lauxlib's type error ("number expected, got nil", with the interpreter's own naming of the
/// value) through sn_lua_argerror; and the checks that raise it, as lauxlib's luaL_checktype,
/// luaL_checknumber, luaL_checklstring, luaL_optstring and luaL_checkoption.
int sn_lua_typeerror(lua_State *L, int arg, const char *tname);
void sn_lua_checktype(lua_State *L, int arg, int t);
double sn_lua_checknumber(lua_State *L, int arg);
const char *sn_lua_checklstring(lua_State *L, int arg, size_t *len);
const char *sn_lua_optstring(lua_State *L, int arg, const char *def);
int sn_lua_checkoption(lua_State *L, int arg, const char *def, const char *const *names);
/// Raises the core's failure as a Lua error: an argument error when err->arg > 0 and
/// `arg_offset` >= 0 (Lua argument = err->arg + arg_offset), a plain error otherwise.
int sn_lua_raise(lua_State *L, const sn_error *err, int arg_offset);
/// Raises the core's failure on the Lua argument where C parameter err->arg begins: `args[k]` is
/// the Lua argument of C parameter k + 1 (`n` of them), for functions whose C parameters do not
/// map to Lua arguments by one offset (a quaternion takes four). A plain error for err->arg 0.
int sn_lua_raise_at(lua_State *L, const sn_error *err, const int *args, int n);
/// sn_lua_raise_at with a static array `args`.
#define sn_lua_raise_args(L, err, args) sn_lua_raise_at((L), (err), (args), (int)(sizeof(args) / sizeof((args)[0])))
/// The Lua state's allocator as an sn_allocator, for the core's construction scratch.
void sn_lua_allocator(lua_State *L, sn_allocator *a);
/// Pushes a new userdata of `size` bytes (zeroed) to hold a constructor's temporary arrays; it
/// is garbage once the constructor returns.
void *sn_lua_newtemp(lua_State *L, size_t size);
/// Returns a block of at least `size` bytes owned by the userdata in upvalue `upvalue` of the
/// running C function; grows it (a new userdata) only when it is too small, so steady-state calls
/// allocate nothing.
void *sn_lua_scratch(lua_State *L, int upvalue, size_t size);
/// Creates the metatable `tname` (in the registry) with __index = methods, __name = tname and
/// the given metamethods; every function of `methods` and `meta` gets `tname` as upvalue 1, so
/// that a function shared by several classes knows which one its `self` must be. Pops it.
void sn_lua_newclass(lua_State *L, const char *tname, const luaL_Reg *methods, const luaL_Reg *meta);
/// The name of the value at `idx` for a message "... expected, got <name>": its metatable's
/// __name when that is a string ("sinew.Pose"; Lua 5.3+ name some of their own so too), read
/// raw, else its type ("nil", "table", "light userdata", ...), on every Lua alike. May leave
/// two values on the stack: for a message about to be raised.
const char *sn_lua_typename_of(lua_State *L, int idx);
/// The userdata at argument `arg` if its metatable is the registry's `tname` (compared by
/// identity: nothing from Lua can forge it); otherwise an argument error
/// "<tname> expected, got <name>" (sn_lua_typename_of: "sinew.Matrices expected, got sinew.Pose").
void *sn_lua_checkobject(lua_State *L, int arg, const char *tname);
/// The userdata at stack index `idx` if its metatable is the registry's `tname`, else NULL.
void *sn_lua_testobject(lua_State *L, int idx, const char *tname);
/// sn_lua_checkobject for the class named by upvalue 1 of the running function (see
/// sn_lua_newclass).
void *sn_lua_checkself(lua_State *L);

/* ---- gltf.c: float buffers ----------------------------------------------------------------- */

#define SN_FLOATS_MT "sinew.Floats"
/// A float buffer (a userdata of metatable SN_FLOATS_MT): the glTF importer's decoded accessors
/// and keys, passed to `sinew.clip` as a track's `times` or `values` without a Lua number per
/// value. `#buf` is its count, `buf[i]` value i (1-based).
typedef struct sn_lua_floats {
    size_t n;    ///< floats in v
    float v[1];  ///< n floats (the block is sized for them)
} sn_lua_floats;
/// Pushes a new float buffer of `n` floats (zeroed) and returns it.
sn_lua_floats *sn_lua_newfloats(lua_State *L, size_t n);
/// The float buffer at stack index `idx`, or NULL when it is something else.
const sn_lua_floats *sn_lua_tofloats(lua_State *L, int idx);
/// The rotation keys of the key times `t` (anchored by the caller) from their values made unit
/// (`unit`, 4 doubles a key: sn_gltf_unit_rotations) with `added` keys on the slerp arc
/// (sn_gltf_slerp_added with `widest`): pushes the values when none is added (the times are `t`),
/// else the new times and the values; returns the count pushed, or 0 (nothing pushed, `err` set)
/// when the core refuses them.
int sn_lua_push_rotation_keys(lua_State *L, const sn_lua_floats *t, const double *unit, size_t added, double widest,
                              sn_error *err);

/* ---- skeleton.c: skeletons, joints, and the objects that keep a skeleton ------------------- */

#define SN_SKELETON_MT "sinew.Skeleton"
#define SN_POSE_MT "sinew.Pose"
#define SN_MASK_MT "sinew.Mask"
#define SN_MATRICES_MT "sinew.Matrices"
#define SN_CLIP_MT "sinew.Clip"
#define SN_CLIP_CURSOR_MT "sinew.ClipCursor"
#define SN_CHAIN_MT "sinew.Chain"
#define SN_GROUP_MT "sinew.Group"
#define SN_BLENDSPACE_MT "sinew.BlendSpace"
#define SN_RIG2D_DATA_MT "sinew.Rig2DData"
#define SN_ANIM2D_MT "sinew.Anim2D"
#define SN_RIG2D_MT "sinew.Rig2D"
#define SN_POSE2D_MT "sinew.Pose2D"
#define SN_MASK2D_MT "sinew.Mask2D"
#define SN_IK_TWO_BONE_MT "sinew.IKTwoBone"
#define SN_IK_AIM_MT "sinew.IKAim"
#define SN_IK_CHAIN_MT "sinew.IKChain"
#define SN_IK_FEET_MT "sinew.IKFeet"
#define SN_IK2D_TWO_BONE_MT "sinew.IK2DTwoBone"
#define SN_IK2D_AIM_MT "sinew.IK2DAim"
#define SN_IK2D_CHAIN_MT "sinew.IK2DChain"
/// Registry key of the list of the blend spaces' metatables, one per mode (for ffi.c)
#define SN_BLENDSPACE_METATABLES "sinew.BlendSpace metatables"

/// The Skeleton at argument `arg`; otherwise an argument error "sinew.Skeleton expected, got ...".
sn_skeleton *sn_lua_checkskeleton(lua_State *L, int arg);
/// Sets the uservalue of the userdata at `ud` to that of the Skeleton userdata at `skel`
/// (the skeleton's own table, whose element 1 is the skeleton), which keeps the skeleton alive
/// as long as the userdata: a core object may then keep a pointer to it.
void sn_lua_keepskeleton(lua_State *L, int ud, int skel);
/// Pushes the Skeleton userdata kept by the userdata at `ud` (see sn_lua_keepskeleton), or nil
/// when it keeps none.
void sn_lua_pushskeleton(lua_State *L, int ud);
/// What the binding finds in a skeleton by name or 1-based index: its joints or its morph targets.
typedef struct sn_lua_entries {
    const char *what;                                      ///< "joint" or "morph", for messages
    int (*count)(const sn_skeleton *s);                    ///< how many
    int (*find)(const sn_skeleton *s, const char *name);   ///< 0-based, -1 for none
} sn_lua_entries;
/// The joints (sn_skeleton_count, sn_skeleton_find) and the morph targets of a skeleton
/// (functions, not exported data: the library keeps no data a sanitizer would instrument).
const sn_lua_entries *sn_lua_joints(void);
const sn_lua_entries *sn_lua_morphs(void);
/// The entry of `e` named by the string at stack index `idx` (0-based), -1 when none is (a name
/// with a zero byte names none).
int sn_lua_findentry(lua_State *L, int idx, const sn_skeleton *s, const sn_lua_entries *e);
/// Reads the value at stack index `idx` as a joint of `s`: a 1-based index or a joint name;
/// returns it 0-based, or raises an argument error on `arg`.
int sn_lua_tojoint(lua_State *L, int idx, const sn_skeleton *s, int arg);
/// sn_lua_tojoint for argument `arg`.
int sn_lua_checkjoint(lua_State *L, int arg, const sn_skeleton *s);
/// Reads the value at stack index `idx` as a morph target of `s`: a 1-based index or a morph
/// name; returns it 0-based, or raises an argument error on `arg` ("unknown morph 'x'", "morph 9
/// is out of range (1 .. 8)", "morph 1.5 is not an integer", "morph index or name expected, got nil").
int sn_lua_tomorph(lua_State *L, int idx, const sn_skeleton *s, int arg);

/* ---- pose.c: poses and masks, for the clip and chain files -------------------------------- */

/// The Pose at argument `arg`; otherwise an argument error "sinew.Pose expected, got ...".
sn_pose *sn_lua_checkpose(lua_State *L, int arg);
/// The Mask at argument `arg`; otherwise an argument error "sinew.Mask expected, got ...".
sn_mask *sn_lua_checkmask(lua_State *L, int arg);

/* ---- blendspace.c and ffi.c: what the LuaJIT FFI path reads (lua/sinew/ffi/) ------------- */

/// The userdata of a blend space: this header, then the core block and the buffers it points to.
/// lua/sinew/ffi/cdef.lua declares the same struct; spec/ffi_spec.lua compares the two texts.
typedef struct sn_lua_space {
    sn_blendspace *bs; /* the core object, inside this userdata */
    double *out;       /* n weights, written by every weights() call */
    double *in;        /* the inputs of the current weights() call */
    int n, inputs;     /* number of points, numbers weights() takes */
} sn_lua_space;

/// The userdata of an IK solver (ik.c): this header, then the core object (sn_ik_two_bone,
/// sn_ik_aim or sn_ik_chain) it points to. ffi.c's solve functions take it; the FFI path declares it opaque.
typedef struct sn_lua_ik {
    void *solver; /* the core object, inside this userdata (it alone holds the settings) */
} sn_lua_ik;

/// The userdata of a foot-placement solver (ik_feet.c): this header, then the core object
/// (sn_ik_feet). `busy` is the re-entry guard of both paths: ffi.c's feet functions set and clear
/// it for the FFI path, which calls the ground from Lua; the FFI path declares it opaque.
typedef struct sn_lua_feet {
    void *solver;           /* the core object, inside this userdata */
    int busy;               /* 1 while a solve runs (its ground callback may call back into Lua) */
    unsigned ground_version; /* counts set_ground calls: the FFI path's cached callback is stale when it changes */
} sn_lua_feet;

/* ---- the areas, opened by module.c: each sets its entries into the table at `module` ------- */

void sn_open_quat(lua_State *L, int module);
void sn_open_blendspace(lua_State *L, int module);
void sn_open_skeleton(lua_State *L, int module);
void sn_open_pose(lua_State *L, int module);
void sn_open_clip(lua_State *L, int module);
void sn_open_chain(lua_State *L, int module);
void sn_open_gltf(lua_State *L, int module);
/// _gltf.animation (gltf_clips.c): the fast path of glTF animation import, set into the _gltf table at `gltf`.
void sn_open_gltf_clips(lua_State *L, int gltf);
void sn_open_bvh(lua_State *L, int module);
/// sinew.Morph and sinew.core._morph, _vertex (morph.c): morph targets on a glTF primitive's vertices.
void sn_open_morph(lua_State *L, int module);
void sn_open_group(lua_State *L, int module);
void sn_open_ffi(lua_State *L, int module);
void sn_open_rig2d(lua_State *L, int module);
void sn_open_ik(lua_State *L, int module);

/* ---- ik.c: what the 3-D solvers' files (ik.c, ik_chain.c, ik_feet.c) read definitions with ---- */

/// The value at `idx` as a table of 3 finite numbers into v; raises naming `what` (argument 1).
void sn_lua_ik_vec3(lua_State *L, int idx, const char *what, sn_vec3 *v);
/// The optional vector and number fields `key` of the definition at 1 (left as they are when nil).
void sn_lua_ik_opt_vec3(lua_State *L, const char *key, sn_vec3 *v);
void sn_lua_ik_opt_number(lua_State *L, const char *key, double *v);
/// The skeleton of the definition at 1, pushed at stack index 2.
sn_skeleton *sn_lua_ik_skeleton(lua_State *L);
/// The joint at `idx` (a 1-based index or a name) of skeleton s, 0-based; `what` names the place.
int sn_lua_ik_joint(lua_State *L, int idx, const sn_skeleton *s, const char *what);
/// A new solver userdata (sn_lua_ik, then `size` zeroed core bytes) with metatable `tname`.
sn_lua_ik *sn_lua_ik_new(lua_State *L, size_t size, const char *tname);
/// The optional weight at `arg`: 1 when none or nil.
double sn_lua_ik_weight(lua_State *L, int arg);
/// ik_chain.c: adds the chain class and `chain` to the `sinew.ik` table at `ik`.
void sn_open_ik_chain(lua_State *L, int ik);
/// ik2d.c: the 2-D solvers behind sinew.ik's constructors (a definition with a `rig`); called by
/// sn_open_ik with the `sinew.ik` table at `ik`.
void sn_open_ik2d(lua_State *L, int ik);

/* ---- rig2d.c: 2-D poses, for ik2d.c ------------------------------------------------------- */

/// The values (6 a bone) of the Pose2D at `idx` and its armature into *data; NULL (data
/// untouched) when the value is no Pose2D.
struct sn_rig2d_data;
double *sn_lua_testpose2d(lua_State *L, int idx, const struct sn_rig2d_data **data);
/// Adds `feet` (ik_feet.c) to the `sinew.ik` table at `ik`; called by sn_open_ik.
void sn_open_ik_feet(lua_State *L, int ik);

#endif
