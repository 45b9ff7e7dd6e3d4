/*
 * What the LuaJIT FFI path (lua/sinew/ffi/) needs from the native library: one table of the
 * core's per-frame functions, handed to Lua as a light userdata, and the sizes of the structs it
 * declares again. Calling through the table needs no symbol lookup, so it works wherever
 * `require "sinew.core"` does (a LÖVE save directory, a Windows DLL that exports only
 * luaopen_sinew_core).
 *
 * The compiler checks the table against the core's headers (each initialiser must have the
 * member's type); spec/ffi_spec.lua checks that ffi/cdef.lua declares the same struct, member by member,
 * and ffi/cdef.lua compares the sizes below with its own before it uses anything.
 */
#include <stddef.h>
#include <string.h>

#include "../core/chain.h"
#include "../core/clip.h"
#include "../core/ik.h"
#include "binding.h"

/* BEGIN sn_ffi_table (spec/ffi_spec.lua reads from here to END) */
typedef struct sn_ffi_table {
    sn_status (*quat_slerp)(const sn_quat *a, const sn_quat *b, double t, sn_quat *out, sn_error *err);
    sn_status (*quat_nlerp)(const sn_quat *a, const sn_quat *b, double t, sn_quat *out, sn_error *err);
    sn_status (*quat_pow)(const sn_quat *q, double e, sn_quat *out, sn_error *err);
    sn_status (*quat_log)(const sn_quat *q, sn_quat *out, sn_error *err);
    sn_status (*quat_exp)(const sn_quat *q, sn_quat *out, sn_error *err);
    sn_status (*quat_blend)(const sn_quat *qs, const double *ws, size_t n, sn_blend_method method, sn_quat *out, sn_error *err);
    int (*blendspace_weights)(const sn_lua_space *space, const double *in, int nin, double *out, int cap);
    sn_status (*pose_blend)(sn_pose *out, sn_blend_layer *layers, const sn_pose *const *poses, const float *weights,
                            const sn_mask *const *masks, int n, float threshold, sn_blend_method method);
    sn_status (*pose_add)(sn_pose *out, const sn_pose *delta, float weight, const sn_mask *mask, sn_error *err);
    sn_status (*pose_to_matrices)(const sn_pose *p, sn_matrices *m, sn_error *err);
    const sn_skeleton *(*pose_skeleton)(const sn_pose *p);
    sn_status (*clip_sample)(sn_clip *c, double t, int loop, sn_pose *out, sn_error *err);
    sn_status (*clip_cursor_sample)(sn_clip_cursor *cur, double t, int loop, sn_pose *out, sn_error *err);
    sn_status (*clip_sample_joint)(const sn_clip *c, double t, int loop, int joint, float *out, sn_error *err);
    sn_status (*chain_step)(sn_chain *c, double dt, sn_error *err);
    sn_status (*chain_update)(sn_chain *c, double dt, sn_pose *pose, const double *root_matrix, sn_error *err);
    sn_status (*blendspace_wedges)(const sn_blendspace *bs, sn_blendspace_wedges *out, sn_error *err);
    sn_status (*ik_two_bone_solve)(const sn_lua_ik *ik, sn_pose *pose, double tx, double ty, double tz, double px, double py,
                                   double pz, double weight, unsigned *flags);
    sn_status (*ik_aim_solve)(const sn_lua_ik *ik, sn_pose *pose, double tx, double ty, double tz, double weight, int has_up,
                              double ux, double uy, double uz, unsigned *flags);
    sn_status (*ik_chain_solve)(const sn_lua_ik *ik, sn_pose *pose, double tx, double ty, double tz, double weight,
                                double *left, unsigned *flags);
    int (*ik_feet_prepare)(sn_lua_feet *feet, const sn_pose *pose, double *points, unsigned *version);
    void (*ik_feet_release)(sn_lua_feet *feet);
    sn_status (*ik_feet_solve)(sn_lua_feet *feet, sn_pose *pose, const double *ground, double dt, double weight,
                               unsigned *flags, sn_error *err);
    double (*pose_morph_get)(const sn_pose *p, int morph);
    void (*pose_morph_set)(sn_pose *p, int morph, double weight);
    int (*pose_morph_count)(const sn_pose *p);
    int (*pose_morph_find)(const sn_pose *p, const char *name, size_t len);
} sn_ffi_table;
/* END sn_ffi_table */

/* weights() of a blend space userdata into `out` (room for `cap`): the number of weights
   written, -1 when the core refuses (a wrong count, a non-finite input), or -1 - n when `out`
   has room for fewer than the space's n weights (nothing written then) */
static int space_weights(const sn_lua_space *space, const double *in, int nin, double *out, int cap) {
    if (cap < space->n) return -1 - space->n;
    if (sn_blendspace_weights(space->bs, in, nin, out, NULL) != SN_OK) return -1;
    return space->n;
}

/* sinew.blend from parallel arrays (which Lua fills without making garbage, interpreted too):
   `layers` (room for n) is the scratch where they become sn_pose_blend_method's layers */
static sn_status pose_blend(sn_pose *out, sn_blend_layer *layers, const sn_pose *const *poses, const float *weights,
                            const sn_mask *const *masks, int n, float threshold, sn_blend_method method) {
    int i;
    for (i = 0; i < n; i++) {
        layers[i].pose = poses[i];
        layers[i].weight = weights[i];
        layers[i].mask = masks[i];
    }
    return sn_pose_blend_method(out, layers, n, threshold, method, NULL);
}

/* an IK solve of the solver userdata `ik`, its vectors as numbers (no cdata to make per call);
   the status, and the flags in *flags */
static sn_status ik_two_bone_solve(const sn_lua_ik *ik, sn_pose *pose, double tx, double ty, double tz, double px,
                                   double py, double pz, double weight, unsigned *flags) {
    sn_vec3 t, p;
    t.x = tx, t.y = ty, t.z = tz;
    p.x = px, p.y = py, p.z = pz;
    return sn_ik_two_bone_solve((const sn_ik_two_bone *)ik->solver, pose, &t, &p, weight, flags, NULL);
}

static sn_status ik_aim_solve(const sn_lua_ik *ik, sn_pose *pose, double tx, double ty, double tz, double weight,
                              int has_up, double ux, double uy, double uz, unsigned *flags) {
    sn_vec3 t, u;
    t.x = tx, t.y = ty, t.z = tz;
    u.x = ux, u.y = uy, u.z = uz;
    return sn_ik_aim_solve((const sn_ik_aim *)ik->solver, pose, &t, has_up ? &u : NULL, weight, flags, NULL);
}

/* the chain's solve: the distance left in *left (its solver's scratch is inside the userdata) */
static sn_status ik_chain_solve(const sn_lua_ik *ik, sn_pose *pose, double tx, double ty, double tz, double weight,
                                double *left, unsigned *flags) {
    sn_vec3 t;
    t.x = tx, t.y = ty, t.z = tz;
    return sn_ik_chain_solve((sn_ik_chain *)ik->solver, pose, &t, weight, left, flags, NULL);
}

/* Foot placement in three calls, between which the FFI path calls the ground from Lua (a call
   from C into Lua would end the JIT's trace). prepare: -1 while a solve of `feet` runs (its
   ground callback called it: the C binding raises the re-entry error), 0 when the core refuses
   (the C binding raises why), else the number of legs, their points written to `points` (room
   for 3 * SN_IK_FEET_MAX), the solver marked busy and *version the count of set_ground calls
   (whether the Lua side's copy of the callback is current). release: not busy (a callback
   failed). solve: not busy, then the core's phase 2, its refusal in `err`. */
static int ik_feet_prepare(sn_lua_feet *feet, const sn_pose *pose, double *points, unsigned *version) {
    if (feet->busy) return -1;
    if (sn_ik_feet_prepare((sn_ik_feet *)feet->solver, pose, points, NULL) != SN_OK) return 0;
    feet->busy = 1;
    *version = feet->ground_version;
    return sn_ik_feet_count((const sn_ik_feet *)feet->solver);
}

static void ik_feet_release(sn_lua_feet *feet) { feet->busy = 0; }

static sn_status ik_feet_solve(sn_lua_feet *feet, sn_pose *pose, const double *ground, double dt, double weight,
                               unsigned *flags, sn_error *err) {
    feet->busy = 0;
    return sn_ik_feet_solve((sn_ik_feet *)feet->solver, pose, ground, dt, weight, flags, err);
}

/* the morphs of a pose, for pose:morph and its kin */
static int pose_morph_count(const sn_pose *p) { return sn_skeleton_morph_count(sn_pose_skeleton(p)); }

/* weight of morph `morph` (0-based, in range: the caller checked), as the C binding pushes it */
static double pose_morph_get(const sn_pose *p, int morph) { return sn_pose_morphs_const(p)[morph]; }

/* sets it from a finite number within float range, as the C binding stores it */
static void pose_morph_set(sn_pose *p, int morph, double weight) { sn_pose_morphs(p)[morph] = (float)weight; }

/* the morph called `name` (`len` bytes, a Lua string's: -1 when it holds a zero byte), 0-based, or -1 */
static int pose_morph_find(const sn_pose *p, const char *name, size_t len) {
    return strlen(name) == len ? sn_skeleton_morph_find(sn_pose_skeleton(p), name) : -1;
}

static const sn_ffi_table table = {
    sn_quat_slerp, sn_quat_nlerp, sn_quat_pow, sn_quat_log, sn_quat_exp, sn_quat_blend,
    space_weights,
    pose_blend, sn_pose_add, sn_pose_to_matrices, sn_pose_skeleton,
    sn_clip_sample, sn_clip_cursor_sample, sn_clip_sample_joint,
    sn_chain_step, sn_chain_update,
    sn_blendspace_wedges_of,
    ik_two_bone_solve, ik_aim_solve, ik_chain_solve,
    ik_feet_prepare, ik_feet_release, ik_feet_solve,
    pose_morph_get, pose_morph_set, pose_morph_count, pose_morph_find,
};

static void set_size(lua_State *L, const char *name, size_t v) {
    lua_pushinteger(L, (lua_Integer)v);
    lua_setfield(L, -2, name);
}

/* module._ffi = {table = <light userdata>, sizes = {...}, constants = {...}, metatables = {...}}: the metatables
   are those of the classes whose methods lua/sinew/ffi/ replaces (each is reachable from Lua anyway, by
   getmetatable on an object) */
void sn_open_ffi(lua_State *L, int module) {
    static const char *const classes[] = {SN_POSE_MT, SN_MASK_MT, SN_MATRICES_MT, SN_CLIP_MT, SN_CLIP_CURSOR_MT, SN_CHAIN_MT,
                                         SN_IK_TWO_BONE_MT, SN_IK_AIM_MT, SN_IK_CHAIN_MT, SN_IK_FEET_MT, NULL};
    int i;
    lua_createtable(L, 0, 4);
    lua_createtable(L, 0, 10);
    for (i = 0; classes[i] != NULL; i++) {
        luaL_getmetatable(L, classes[i]);
        lua_setfield(L, -2, classes[i]);
    }
    lua_getfield(L, LUA_REGISTRYINDEX, SN_BLENDSPACE_METATABLES);
    lua_setfield(L, -2, SN_BLENDSPACE_MT);
    lua_setfield(L, -2, "metatables");
    lua_pushlightuserdata(L, (void *)&table);
    lua_setfield(L, -2, "table");
    lua_createtable(L, 0, 13);
    set_size(L, "sn_ffi_table", sizeof(sn_ffi_table));
    set_size(L, "sn_lua_space", sizeof(sn_lua_space));
    set_size(L, "sn_lua_space.inputs", offsetof(sn_lua_space, inputs));
    set_size(L, "sn_blend_layer", sizeof(sn_blend_layer));
    set_size(L, "sn_blend_layer.mask", offsetof(sn_blend_layer, mask));
    set_size(L, "sn_quat", sizeof(sn_quat));
    set_size(L, "sn_vec3", sizeof(sn_vec3));
    set_size(L, "sn_euler_order", sizeof(sn_euler_order));
    set_size(L, "sn_status", sizeof(sn_status));
    set_size(L, "sn_blendspace_wedges", sizeof(sn_blendspace_wedges));
    set_size(L, "sn_blendspace_wedges.fac", offsetof(sn_blendspace_wedges, fac));
    set_size(L, "sn_error", sizeof(sn_error));
    set_size(L, "sn_error.msg", offsetof(sn_error, msg));
    lua_setfield(L, -2, "sizes");
    lua_createtable(L, 0, 1); /* the core's limits the FFI path sizes its buffers by */
    set_size(L, "SN_IK_FEET_MAX", SN_IK_FEET_MAX);
    lua_setfield(L, -2, "constants");
    lua_setfield(L, module, "_ffi");
}
