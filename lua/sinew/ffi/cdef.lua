--- The FFI path's declarations: the C types and the function table of the native library
-- (`src/binding/ffi.c`), declared once per process and checked against the sizes that library
-- reports before anything is used.
--
-- The struct sn_ffi_table and sn_lua_space are the ones of src/binding (spec/ffi_spec.lua
-- compares them member by member, and sn_error with src/core/common.h's); enums are passed as
-- int, as C passes them. Errors are read only by the foot-placement solve (its refusal comes
-- after the ground callbacks, so it cannot be handed to the C binding); the others pass NULL.
-- @module sinew.ffi.cdef
local ffi = require "ffi"

local M = {}

local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

local CDEF = [[
typedef int sn_status;
typedef int sn_euler_order;
typedef int sn_blend_method;
typedef struct sn_error {
    sn_status code;
    int arg;
    char msg[200];
} sn_error;
typedef struct sn_skeleton sn_skeleton;
typedef struct sn_pose sn_pose;
typedef struct sn_mask sn_mask;
typedef struct sn_matrices sn_matrices;
typedef struct sn_clip sn_clip;
typedef struct sn_clip_cursor sn_clip_cursor;
typedef struct sn_chain sn_chain;
typedef struct sn_blendspace sn_blendspace;
typedef struct sn_lua_ik sn_lua_ik;
typedef struct sn_lua_feet sn_lua_feet;
typedef struct sn_quat { double x, y, z, w; } sn_quat;
typedef struct sn_vec3 { double x, y, z; } sn_vec3;
typedef struct sn_blend_layer {
    const sn_pose *pose;
    float weight;
    const sn_mask *mask;
} sn_blend_layer;
typedef struct sn_lua_space {
    sn_blendspace *bs;
    double *out;
    double *in;
    int n, inputs;
} sn_lua_space;
typedef struct sn_blendspace_wedges {
    int count;
    int ndir;
    int centre;
    int quick;
    const double *ang;
    const int *idx;
    const double *unit;
    const double *fac;
} sn_blendspace_wedges;
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
]]
M.CDEF = CDEF

--- Declares the types (once per process) and checks them against the native library's sizes.
-- Returns the function table as a cdata pointer, or nil and why not.
function M.declare(core)
  local native = core._ffi
  if type(native) ~= "table" or type(native.sizes) ~= "table" then
    return nil, "the native library has no FFI table (an older build)"
  end
  if not pcall(ffi.typeof, "sn_ffi_table") then
    local ok, err = pcall(ffi.cdef, CDEF)
    if not ok then return nil, "ffi.cdef failed: " .. tostring(err) end
  end
  local mine = {
    sn_ffi_table = ffi.sizeof("sn_ffi_table"),
    sn_lua_space = ffi.sizeof("sn_lua_space"),
    ["sn_lua_space.inputs"] = ffi.offsetof("sn_lua_space", "inputs"),
    sn_blend_layer = ffi.sizeof("sn_blend_layer"),
    ["sn_blend_layer.mask"] = ffi.offsetof("sn_blend_layer", "mask"),
    sn_quat = ffi.sizeof("sn_quat"),
    sn_vec3 = ffi.sizeof("sn_vec3"),
    sn_euler_order = ffi.sizeof("sn_euler_order"),
    sn_status = ffi.sizeof("sn_status"),
    sn_blendspace_wedges = ffi.sizeof("sn_blendspace_wedges"),
    ["sn_blendspace_wedges.fac"] = ffi.offsetof("sn_blendspace_wedges", "fac"),
    sn_error = ffi.sizeof("sn_error"),
    ["sn_error.msg"] = ffi.offsetof("sn_error", "msg"),
  }
  for name, size in each, native.sizes do
    if mine[name] ~= size then
      return nil, ("the FFI declarations do not match the native library: %s is %s bytes here, %d there")
        :format(name, tostring(mine[name]), size)
    end
  end
  for name in each, mine do
    if native.sizes[name] == nil then return nil, "the native library does not report " .. name end
  end
  return ffi.cast("const sn_ffi_table *", native.table)
end

return M
