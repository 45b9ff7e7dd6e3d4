--- The LuaJIT fast path: the per-frame functions call the C core through the FFI.
--
-- Under LuaJIT with the JIT on, `require "sinew"` installs this path (see `sinew.path`). A call
-- through Lua's C API costs about 50 ns and ends the JIT's trace; a call through the FFI costs a
-- few ns and the trace goes on. The public API stays the same: each fast function takes the
-- arguments the C binding takes and returns what it returns. It handles the common case (the
-- right objects, plain finite numbers) itself; any other call, and any call the core refuses,
-- goes to the C binding's own function, which raises the same error as on Lua 5.4 (a refused
-- call changes nothing, so calling again is safe).
--
-- Objects keep their validation: every `self` and object argument is checked to be a userdata
-- with the class's own metatable (the test the C binding makes); what the core checks (same
-- skeleton, ranges) it still checks, because the same core function runs.
--
-- The quaternion functions but `slerp` and `blend` are Lua here, computed as the C core computes
-- them, so the JIT compiles them into the caller's trace: `conj`, `mul`, `dot`, `length`,
-- `from_euler` and `nlerp` with the core's operations (the same bits, zeros' signs included), the
-- others within 1e-12 of the core's results; inputs outside the ranges where that holds (huge
-- `t`, exponents above 64, ...) go to the core. So are the weights of `simple_directional` spaces
-- (from the space's own wedges, the same bits). The others call the core through the function
-- table the native library hands over (`src/binding/ffi.c`).
--
-- This is the only file of sinew that requires "ffi".
-- @module sinew.ffi
local ffi = require "ffi"

local M = {}

local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

-- The declarations. The struct sn_ffi_table and sn_lua_space are the ones of src/binding (the
-- spec compares them member by member); enums are passed as int, as C passes them; errors are
-- never read here (NULL), so sn_error stays opaque.
local CDEF = [[
typedef int sn_status;
typedef int sn_euler_order;
typedef int sn_blend_method;
typedef struct sn_error sn_error;
typedef struct sn_skeleton sn_skeleton;
typedef struct sn_pose sn_pose;
typedef struct sn_mask sn_mask;
typedef struct sn_matrices sn_matrices;
typedef struct sn_clip sn_clip;
typedef struct sn_clip_cursor sn_clip_cursor;
typedef struct sn_chain sn_chain;
typedef struct sn_blendspace sn_blendspace;
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
} sn_ffi_table;
]]
M.CDEF = CDEF

local type, getmetatable, select, rawset, rawget = type, getmetatable, select, rawset, rawget
local sqrt, abs, sin, cos, asin, exp, log = math.sqrt, math.abs, math.sin, math.cos, math.asin, math.exp, math.log
local atan2 = math.atan2 or math.atan

-- The plain ranges of src/core/quat.c: inside them the core computes without rescaling
local PLAIN_SQ_LO, PLAIN_SQ_HI = 1e-280, 1e280
local PLAIN_V_LO, PLAIN_V_HI = 1e-290, 1e300
local NEAR_UNIT = 1e-5
-- Largest |e| for which quat.pow is computed here (see F.pow)
local POW_E_LUA = 64
local POW_F_LO, POW_F_HI = 1e-140, 1e140
local DBL_MAX = 1.7976931348623157e308

--- Declares the types (once per process) and checks them against the native library's sizes.
-- Returns the function table as a cdata pointer, or nil and why not.
local function declare(core)
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

-- ---- calling the C binding ------------------------------------------------------------------

-- A call the fast path does not take goes to the C binding's function through `try`
-- (sinew.core.try), which returns `nil, message, argument` for what the binding refuses, so that
-- the error can be raised as the C binding raises it when called directly: luaL_argerror names
-- the function and, for a method call, counts arguments after `self`, from how its caller called
-- it; called from here it sees neither. `caller()` (evaluated in the fast function, not in a tail
-- call) is how the fast function itself was called. Set by M.install.
local try
local getinfo = type(debug) == "table" and debug.getinfo or nil
local function caller() return getinfo and getinfo(2, "n") end

local function raise_as(info, ...)
  local none, msg, n = ...
  if none ~= nil or type(msg) ~= "string" then return ... end -- (no function here returns nil, "text")
  if n then
    local name = info and info.name or "?"
    if info and info.namewhat == "method" then n = n - 1 end
    if n == 0 then
      msg = ("calling '%s' on bad self (%s)"):format(name, msg)
    else
      msg = ("bad argument #%d to '%s' (%s)"):format(n, name, msg)
    end
  end
  error(msg, 2) -- where the fast function was called (raise_as replaced it by a tail call)
end

-- ---- quaternions ---------------------------------------------------------------------------

-- x is a finite number (a string that converts, NaN and infinities are not: the C binding
-- takes or refuses those itself)
local function fin(x) return type(x) == "number" and x - x == 0 end
local function fin4(x, y, z, w) return fin(x) and fin(y) and fin(z) and fin(w) end
-- numbers (finite or not: the computation tells, see quat_functions)
local function num3(x, y, z) return type(x) == "number" and type(y) == "number" and type(z) == "number" end
local function num4(x, y, z, w) return num3(x, y, z) and type(w) == "number" end

-- Every fast function takes `...` and reads its arguments from it, so that a call it does not
-- take reaches the C binding with exactly the arguments it was given ("got no value" stays).
-- Nothing here makes garbage, interpreted or compiled: scratch memory is allocated once, read
-- and written as double arrays, and the function pointers are taken out of the table once.
local function quat_functions(T, C)
  local F = {}
  local qa, qb, qo = ffi.new("sn_quat[1]"), ffi.new("sn_quat[1]"), ffi.new("sn_quat[1]")
  local da, db, dout = ffi.cast("double *", qa), ffi.cast("double *", qb), ffi.cast("double *", qo)
  local slerp, blend, nlerp, pow = T.quat_slerp, T.quat_blend, T.quat_nlerp, T.quat_pow
  local qs_buf, ws_buf, buf_n = ffi.new("sn_quat[8]"), ffi.new("double[8]"), 8
  local qs_d = ffi.cast("double *", qs_buf)

  -- 1 / |q| for |q|^2 = ss: near 1 the core's near_unit_scale, else the reciprocal of the square
  -- root (from_axis_angle's axis, within 1e-12 of the core's); nil outside the plain range (the
  -- C binding then), for NaN too
  local function near_scale(ss)
    local e = ss - 1.0
    if abs(e) < NEAR_UNIT then return 1.0 + e * (-0.5 + 0.375 * e) end
    if ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then return 1.0 / sqrt(ss) end
    return nil
  end

  -- 1 / |q| as src/core/quat.c's unit4_near takes it: near 1 its near_unit_scale, else
  -- unit4_quick's reciprocal of the sum of squares in unit4_quick's order (one rounding apart
  -- from sumsq4's, and nlerp for a large t magnifies that); nil outside the plain range (the core
  -- then), for NaN too
  local function unit_scale(x, y, z, w)
    local e = ((x * x + y * y) + (z * z + w * w)) - 1.0
    if abs(e) < NEAR_UNIT then return 1.0 + e * (-0.5 + 0.375 * e) end
    local ss = x * x + y * y + z * z + w * w
    if ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then return 1.0 / sqrt(ss) end
    return nil
  end

  -- a and b as src/core/quat.c's aligned_pair gives them (unit, b on a's side), the same bits, or
  -- nil where the core rescales (the caller then goes to the core)
  local function aligned(ax, ay, az, aw, bx, by, bz, bw)
    local ka = unit_scale(ax, ay, az, aw)
    local kb = unit_scale(bx, by, bz, bw)
    if not (ka and kb) then return nil end
    ax, ay, az, aw = ax * ka, ay * ka, az * ka, aw * ka
    bx, by, bz, bw = bx * kb, by * kb, bz * kb, bw * kb
    if ax * bx + ay * by + az * bz + aw * bw < 0.0 then bx, by, bz, bw = -bx, -by, -bz, -bw end
    return ax, ay, az, aw, bx, by, bz, bw
  end

  -- How these stay cheap: a type test costs nothing in a compiled trace (the arithmetic needs it
  -- anyway), so each argument is tested only for being a number; whether it is finite is decided
  -- by a range test the computation makes anyway (NaN fails every comparison, an infinity the
  -- range), or by one test of the result where any non-finite input reaches it. Where the core
  -- divides by a length the fast path multiplies by one reciprocal, and a length within
  -- NEAR_UNIT of 1 (unit inputs, float32 ones too) costs no square root or division at all
  -- (`near_scale`): the results stay within 1e-12 of the core's, or are its bits where the same
  -- operations are made (spec/ffi_spec.lua, extreme arguments included). What the Lua cannot
  -- compute so (a range the core rescales, an exponent that magnifies a rounding) goes to the
  -- core through the FFI where the table has the function, else to the C binding.

  function F.identity(...)
    if select("#", ...) == 0 then return 0, 0, 0, 1 end
    return raise_as(caller(), try(C.identity, ...))
  end

  function F.conj(...)
    local x, y, z, w = ...
    if fin4(x, y, z, w) then return -x, -y, -z, w end
    return raise_as(caller(), try(C.conj, ...))
  end

  -- a non-finite factor makes the sum of the product's components non-finite (each component of
  -- a meets each of b in one of them), as does an overflow: the core's one test
  function F.mul(...)
    local ax, ay, az, aw, bx, by, bz, bw = ...
    if num4(ax, ay, az, aw) and num4(bx, by, bz, bw) then
      local x = aw * bx + ax * bw + ay * bz - az * by
      local y = aw * by - ax * bz + ay * bw + az * bx
      local z = aw * bz + ax * by - ay * bx + az * bw
      local w = aw * bw - ax * bx - ay * by - az * bz
      if abs(x + y + z + w) <= DBL_MAX then return x, y, z, w end
    end
    return raise_as(caller(), try(C.mul, ...))
  end

  function F.dot(...)
    local ax, ay, az, aw, bx, by, bz, bw = ...
    if num4(ax, ay, az, aw) and num4(bx, by, bz, bw) then
      local d = ax * bx + ay * by + az * bz + aw * bw
      if abs(d) <= DBL_MAX then return d end
    end
    return raise_as(caller(), try(C.dot, ...))
  end

  function F.length(...)
    local x, y, z, w = ...
    if num4(x, y, z, w) then
      local ss = x * x + y * y + z * z + w * w
      if ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then return sqrt(ss) end
    end
    return raise_as(caller(), try(C.length, ...))
  end

  -- near 1 without a square root or division; elsewhere the core's exactly rounded divisions
  function F.normalize(...)
    local x, y, z, w = ...
    if num4(x, y, z, w) then
      local ss = x * x + y * y + z * z + w * w -- as the core's unit4
      local e = ss - 1.0
      if abs(e) < NEAR_UNIT then
        local k = 1.0 + e * (-0.5 + 0.375 * e)
        return x * k, y * k, z * k, w * k
      end
      if ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then
        local r = sqrt(ss)
        return x / r, y / r, z / r, w / r
      end
    end
    return raise_as(caller(), try(C.normalize, ...))
  end

  -- conj(q) / |q|^2
  function F.inverse(...)
    local x, y, z, w = ...
    if num4(x, y, z, w) then
      local ss = (x * x + y * y) + (z * z + w * w)
      local e, k = ss - 1.0, nil
      if abs(e) < NEAR_UNIT then
        k = 1.0 + e * (-1.0 + e * (1.0 - e))
      elseif ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then
        k = 1.0 / ss
      end
      if k then return -x * k, -y * k, -z * k, w * k end
    end
    return raise_as(caller(), try(C.inverse, ...))
  end

  -- v' = v + w t + u x t with t = 2 (u x v), for q / |q| = (u, w): the core's rotate_plain. Near
  -- unit length 1 / |q|^2 scales the change instead (a series, no division): the products with
  -- q then start at once, beside the series.
  function F.rotate(...)
    local qx, qy, qz, qw, x, y, z = ...
    if num4(qx, qy, qz, qw) and num3(x, y, z) then
      local m = abs(x)
      if abs(y) > m then m = abs(y) end
      if abs(z) > m then m = abs(z) end
      -- the sum: a NaN or an infinity in any of x, y, z (the largest alone misses a NaN)
      if abs(x + y + z) <= DBL_MAX and ((m > PLAIN_V_LO and m < PLAIN_V_HI) or m == 0) then
        local ss = (qx * qx + qy * qy) + (qz * qz + qw * qw)
        local e, k = ss - 1.0, 2.0
        if abs(e) < NEAR_UNIT then
          k = 2.0 + e * (-2.0 + e * (2.0 - 2.0 * e)) -- 2 / (1 + e), to e^4
        elseif ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then
          local r = 1.0 / sqrt(ss)
          qx, qy, qz, qw = qx * r, qy * r, qz * r, qw * r
        else
          k = nil
        end
        if k then
          local tx, ty, tz = qy * z - qz * y, qz * x - qx * z, qx * y - qy * x
          return x + k * (qw * tx + (qy * tz - qz * ty)), y + k * (qw * ty + (qz * tx - qx * tz)),
                 z + k * (qw * tz + (qx * ty - qy * tx))
        end
      end
    end
    return raise_as(caller(), try(C.rotate, ...))
  end

  function F.from_axis_angle(...)
    local x, y, z, a = ...
    if num3(x, y, z) and type(a) == "number" and abs(a) <= DBL_MAX then
      local k = near_scale(x * x + y * y + z * z)
      if k then
        k = k * sin(0.5 * a)
        return x * k, y * k, z * k, cos(0.5 * a)
      end
    end
    return raise_as(caller(), try(C.from_axis_angle, ...))
  end

  -- the axis and the angle do not depend on |q|: no normalisation first
  function F.to_axis_angle(...)
    local x, y, z, w = ...
    if num4(x, y, z, w) then
      local vv = x * x + y * y + z * z
      local ss = vv + w * w
      if vv > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then -- else real, tiny, huge or not finite: the core
        local s = sqrt(vv)
        local k = 1.0 / s
        -- the core turns q to w >= 0 when w / |q| < 0: a w too small for that quotient (above
        -- -1e-150 it can be, for |q| up to 1e140) is taken as the core takes it
        if w < 0.0 and (w < -1e-150 or w / sqrt(ss) < 0.0) then k, w = -k, -w end
        return x * k, y * k, z * k, 2.0 * atan2(s, w)
      end
    end
    return raise_as(caller(), try(C.to_axis_angle, ...))
  end

  -- e * r for e the rotation about one axis with sin s and cos c (half the angle): the core's
  -- mul_plain without its products with e's zero components. Those change no non-zero value, so
  -- the non-zero components of a product (and of a product of such products) are the core's bits;
  -- they only decide the sign of a zero one (-0 + 0 * y is +0 for y >= 0).
  local function about_x(s, c, x, y, z, w) return c * x + s * w, c * y - s * z, c * z + s * y, c * w - s * x end
  local function about_y(s, c, x, y, z, w) return c * x + s * z, c * y + s * w, c * z - s * x, c * w - s * y end
  local function about_z(s, c, x, y, z, w) return c * x - s * y, c * y + s * x, c * z + s * w, c * w - s * z end
  -- the same products term by term, the zero ones included: the core's zeros too
  local function exact_x(s, c, x, y, z, w)
    return ((c * x + s * w) + 0.0 * z) - 0.0 * y, ((c * y - s * z) + 0.0 * w) + 0.0 * x,
           ((c * z + s * y) - 0.0 * x) + 0.0 * w, ((c * w - s * x) - 0.0 * y) - 0.0 * z
  end
  local function exact_y(s, c, x, y, z, w)
    return ((c * x + 0.0 * w) + s * z) - 0.0 * y, ((c * y - 0.0 * z) + s * w) + 0.0 * x,
           ((c * z + 0.0 * y) - s * x) + 0.0 * w, ((c * w - 0.0 * x) - s * y) - 0.0 * z
  end
  local function exact_z(s, c, x, y, z, w)
    return ((c * x + 0.0 * w) + 0.0 * z) - s * y, ((c * y - 0.0 * z) + 0.0 * w) + s * x,
           ((c * z + 0.0 * y) - 0.0 * x) + s * w, ((c * w - 0.0 * x) - 0.0 * y) - s * z
  end
  -- One function per order, applying the axes as src/core/quat.c's sn_quat_from_euler does: the
  -- first rotation times the identity (its sine, a -0 made +0 by the product's zero terms, zeros,
  -- its cosine, never 0), each later one multiplied from the left. A result without a zero
  -- component is the core's; one with a zero (a product underflowing to 0 tells too) is computed
  -- again term by term. Per axis: the first product, e * r both ways, which of x, y, z is its angle.
  local function half(a) return sin(0.5 * a), cos(0.5 * a) end
  local AXES = {
    X = { alone = function(s, c) return s + 0.0, 0.0, 0.0, c end, about = about_x, exact = exact_x,
          angle = function(x) return x end },
    Y = { alone = function(s, c) return 0.0, s + 0.0, 0.0, c end, about = about_y, exact = exact_y,
          angle = function(_, y) return y end },
    Z = { alone = function(s, c) return 0.0, 0.0, s + 0.0, c end, about = about_z, exact = exact_z,
          angle = function(_, _, z) return z end },
  }
  local function euler(order)
    local a, b, c = AXES[order:sub(1, 1)], AXES[order:sub(2, 2)], AXES[order:sub(3, 3)]
    local alone, first, middle, last = a.alone, a.angle, b.angle, c.angle
    local second, third, second_exact, third_exact = b.about, c.about, b.exact, c.exact
    return function(x, y, z)
      local s1, c1 = half(first(x, y, z))
      local s2, c2 = half(middle(x, y, z))
      local s3, c3 = half(last(x, y, z))
      local qx, qy, qz, qw = third(s3, c3, second(s2, c2, alone(s1, c1)))
      if qx * qy * qz * qw ~= 0.0 then return qx, qy, qz, qw end
      return third_exact(s3, c3, second_exact(s2, c2, alone(s1, c1)))
    end
  end
  local EULER = {}
  for _, order in ipairs { "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX" } do EULER[order] = euler(order) end
  function F.from_euler(...)
    local x, y, z, order = ...
    local f = EULER[order == nil and "XYZ" or order]
    if f and num3(x, y, z) and abs(x) <= DBL_MAX and abs(y) <= DBL_MAX and abs(z) <= DBL_MAX then
      return f(x, y, z)
    end
    return raise_as(caller(), try(C.from_euler, ...))
  end

  -- the core's half-vector construction: the unit inputs as it divides them, the half vector
  -- left unnormalised (the last normalisation takes its length out)
  function F.from_to(...)
    local ux, uy, uz, vx, vy, vz = ...
    if num3(ux, uy, uz) and num3(vx, vy, vz) then
      local su = ux * ux + uy * uy + uz * uz
      local sv = vx * vx + vy * vy + vz * vz
      if su > PLAIN_SQ_LO and su < PLAIN_SQ_HI and sv > PLAIN_SQ_LO and sv < PLAIN_SQ_HI then
        local ru, rv = sqrt(su), sqrt(sv)
        local ax, ay, az = ux / ru, uy / ru, uz / ru
        local hx, hy, hz = ax + vx / rv, ay + vy / rv, az + vz / rv
        -- |h| clearly above the core's 1e-12 (else opposite vectors, or nearly: the C binding's half turn)
        if hx * hx + hy * hy + hz * hz > 1.000001e-24 then
          local x, y, z, w = ay * hz - az * hy, az * hx - ax * hz, ax * hy - ay * hx, ax * hx + ay * hy + az * hz
          local k = 1.0 / sqrt(x * x + y * y + z * z + w * w)
          return x * k, y * k, z * k, w * k
        end
      end
    end
    return raise_as(caller(), try(C.from_to, ...))
  end

  -- 2 acos(|a.b|) for unit a, b, computed as the core does it without cancellation: once aligned
  -- |a - b| = 2 sin(theta / 4) for the rotation angle theta, at most sqrt(2)
  function F.angle(...)
    local ax, ay, az, aw, bx, by, bz, bw = ...
    if num4(ax, ay, az, aw) and num4(bx, by, bz, bw) then
      ax, ay, az, aw, bx, by, bz, bw = aligned(ax, ay, az, aw, bx, by, bz, bw)
      if ax then
        local dx, dy, dz, dw = ax - bx, ay - by, az - bz, aw - bw
        return 4.0 * asin(0.5 * sqrt((dx * dx + dy * dy) + (dz * dz + dw * dw)))
      end
    end
    return raise_as(caller(), try(C.angle, ...))
  end

  -- the core's unit4_quick of the core's a + t (b - a): the same bits. Where its squared length
  -- leaves the plain range (|t| beyond about 1e154) the core rescales: the core then, as for
  -- inputs it rescales and |t| above its own 1e300.
  function F.nlerp(...)
    local ax, ay, az, aw, bx, by, bz, bw, t = ...
    if num4(ax, ay, az, aw) and num4(bx, by, bz, bw) and type(t) == "number" then
      local ux, uy, uz, uw, vx, vy, vz, vw = aligned(ax, ay, az, aw, bx, by, bz, bw)
      if ux and abs(t) <= 1e300 then
        local x = ux + t * (vx - ux)
        local y = uy + t * (vy - uy)
        local z = uz + t * (vz - uz)
        local w = uw + t * (vw - uw)
        local ss = x * x + y * y + z * z + w * w
        if ss < PLAIN_SQ_HI then -- and above PLAIN_SQ_LO: at least 1/2 (see the core)
          local k = 1.0 / sqrt(ss)
          return x * k, y * k, z * k, w * k
        end
      end
      da[0], da[1], da[2], da[3] = ax, ay, az, aw
      db[0], db[1], db[2], db[3] = bx, by, bz, bw
      if nlerp(qa, qb, t, qo, nil) == 0 then return dout[0], dout[1], dout[2], dout[3] end
    end
    return raise_as(caller(), try(C.nlerp, ...))
  end

  function F.slerp(...)
    local ax, ay, az, aw, bx, by, bz, bw, t = ...
    if num4(ax, ay, az, aw) and num4(bx, by, bz, bw) and type(t) == "number" then
      da[0], da[1], da[2], da[3] = ax, ay, az, aw
      db[0], db[1], db[2], db[3] = bx, by, bz, bw
      if slerp(qa, qb, t, qo, nil) == 0 then return dout[0], dout[1], dout[2], dout[3] end
    end
    return raise_as(caller(), try(C.slerp, ...))
  end

  -- q = |q| (cos t, n sin t): the axis n, the angle t and ln |q| of src/core/quat.c's polar, taken
  -- from q itself (they do not depend on its length), or nil where the core takes another path
  -- (a real q, a huge or tiny or non-finite one)
  local function polar(x, y, z, w)
    local vv = x * x + y * y + z * z
    local ss = vv + w * w
    if vv > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then
      local s = sqrt(vv)
      return 1.0 / s, atan2(s, w), 0.5 * log(ss)
    end
    return nil
  end

  function F.log(...)
    local x, y, z, w = ...
    if num4(x, y, z, w) then
      local k, t, lnl = polar(x, y, z, w)
      if k then
        k = k * t
        return x * k, y * k, z * k, lnl
      end
    end
    return raise_as(caller(), try(C.log, ...))
  end

  -- sin(t)/t as the core's sinc, for t >= 0
  local function sinc(t)
    local t2 = t * t
    if t2 < 1e-8 then return 1.0 - t2 / 6.0 + t2 * t2 / 120.0 end
    return sin(t) / t
  end

  function F.exp(...)
    local x, y, z, w = ...
    if num4(x, y, z, w) then
      local ss = x * x + y * y + z * z
      if ss < PLAIN_SQ_HI and abs(w) <= 709.0 then
        local t = sqrt(ss)
        local e = exp(w)
        local k = e * sinc(t)
        return x * k, y * k, z * k, e * cos(t)
      end
    end
    return raise_as(caller(), try(C.exp, ...))
  end

  -- q^e = |q|^e (cos et, n sin et). The angle t and ln |q| differ from the core's by an ulp or
  -- two, and e multiplies that: for |e| up to POW_E_LUA the results stay within 1e-13 of the
  -- core's (6e-14 measured at 64), larger exponents go to the core (the same bits), as do the
  -- quaternions polar leaves to it and |q|^e outside [1e-140, 1e140], where the factor
  -- sin(et) |q|^e / |v| (|v| in [1e-140, 1e140]) could overflow or underflow here.
  function F.pow(...)
    local x, y, z, w, e = ...
    if num4(x, y, z, w) and type(e) == "number" then
      if abs(e) <= POW_E_LUA then
        local k, t, lnl = polar(x, y, z, w)
        if k then
          local f = exp(e * lnl)
          if f >= POW_F_LO and f <= POW_F_HI then -- else 1/|v| |q|^e may underflow or overflow
            local p = e * t
            k = k * sin(p) * f
            return x * k, y * k, z * k, cos(p) * f
          end
        end
      end
      da[0], da[1], da[2], da[3] = x, y, z, w
      if pow(qa, e, qo, nil) == 0 then return dout[0], dout[1], dout[2], dout[3] end
    end
    return raise_as(caller(), try(C.pow, ...))
  end

  local METHODS = { nlerp = 0, karcher = 1, markley = 2, power = 3 }
  if C.blend then
    function F.blend(...)
      local qs, ws, method = ...
      local m = method == nil and 0 or METHODS[method]
      if m and type(qs) == "table" and type(ws) == "table" then
        local n = #ws
        if n > 0 and #qs == 4 * n then
          if n > buf_n then
            -- made, then installed: a finaliser run by ffi.new may call this function and grow
            -- the buffers further, and then its larger ones are kept (setting buf_n before the
            -- allocation let it name more than the buffers held: a heap overflow, issue 21)
            local qnew, wnew = ffi.new("sn_quat[?]", n), ffi.new("double[?]", n)
            local dnew = ffi.cast("double *", qnew)
            if n > buf_n then qs_buf, ws_buf, qs_d, buf_n = qnew, wnew, dnew, n end
          end
          -- nothing below allocates until the core has read the buffers
          local ok = true
          for i = 1, 4 * n do
            local x = rawget(qs, i)
            if not fin(x) then ok = false; break end
            qs_d[i - 1] = x
          end
          for i = 1, n do
            local w = rawget(ws, i)
            if not fin(w) then ok = false; break end
            ws_buf[i - 1] = w
          end
          if ok and blend(qs_buf, ws_buf, n, m, qo, nil) == 0 then
            return dout[0], dout[1], dout[2], dout[3]
          end
        end
      end
      return raise_as(caller(), try(C.blend, ...))
    end
  end
  return F
end

-- ---- objects -------------------------------------------------------------------------------

--- Installs the fast path into `core` (`require "sinew.core"`, whose entries `require "sinew"`
-- then copies): its `quat` functions and `blend`, and the methods of the classes. Returns true,
-- or false and why the C binding stays in use (nothing is changed then).
function M.install(core)
  local T, why = declare(core)
  if not T then return false, why end
  local mts = core._ffi.metatables
  local POSE, MASK, MATS = mts["sinew.Pose"], mts["sinew.Mask"], mts["sinew.Matrices"]
  local CLIP, CURSOR, CHAIN = mts["sinew.Clip"], mts["sinew.ClipCursor"], mts["sinew.Chain"]
  local SPACES = mts["sinew.BlendSpace"]

  -- the C binding's functions, kept for every call the fast path does not take (and for specs)
  local C = { quat = {}, Pose = {}, Clip = {}, ClipCursor = {}, Chain = {}, BlendSpace = {} }
  for k, v in each, core.quat do C.quat[k] = v end
  for k, v in each, POSE.__index do C.Pose[k] = v end
  for k, v in each, CLIP.__index do C.Clip[k] = v end
  for k, v in each, CURSOR.__index do C.ClipCursor[k] = v end
  for k, v in each, CHAIN.__index do C.Chain[k] = v end
  for i, mt in ipairs(SPACES) do C.BlendSpace[i] = mt.__index.weights end
  C.blend = core.blend
  C.try = core.try
  M.c = C
  try = C.try

  -- each fast function -> the C binding's function it stands for: `sinew.try(fn, ...)` calls that
  -- one, so that a refusal comes back as the same `nil, message, argument` as on the C path
  local c_of = {}
  core.try = function(fn, ...) return try(c_of[fn] or fn, ...) end

  for k, v in each, quat_functions(T, C.quat) do
    core.quat[k] = v
    c_of[v] = C.quat[k]
  end

  local function is(x, mt) return type(x) == "userdata" and getmetatable(x) == mt end

  -- blend spaces: weights(x1, ..., xd [, out]) for d up to 4 (more go to the C binding)
  local weights_fn = T.blendspace_weights
  local input, wbuf, wcap = ffi.new("double[4]"), ffi.new("double[16]"), 16
  local calls = 0 -- weights calls begun: a call that sees it move was re-entered by a finaliser
  -- Functions that write entries 1 .. n of a table, made once per n: copy(out, w) from w[0 ..],
  -- fill(out, v) with v. Up to 64 entries store by store (a loop of a count the trace does not
  -- know costs LuaJIT about 3 ns an entry, straight stores next to nothing); made apart from the
  -- calls' path, since a function that makes a closure stops the trace.
  local copiers, fillers = {}, {}
  local function make_stores(cache, n, item) -- item: "w[%d]" copies, "w" fills
    local f
    if n <= 64 then
      local stores = {}
      for k = 1, n do stores[k] = ("rawset(o, %d, " .. item .. ")"):format(k, k - 1) end
      f = (loadstring or load)("local rawset = ...\nreturn function(o, w) " .. table.concat(stores, " ") .. " end",
        "=sinew.ffi weights stores")(rawset)
    elseif item == "w" then
      f = function(o, v) for k = 1, n do rawset(o, k, v) end end
    else
      f = function(o, w) for k = 1, n do rawset(o, k, w[k - 1]) end end
    end
    cache[n] = f
    return f
  end
  -- simple_directional in Lua (its weights are a few products once the wedge is found, and the
  -- call into the core cost more than that): the space's wedges (sn_blendspace_wedges_of, kept
  -- per space), read as src/core/blendspace.c reads them, in the same order of operations, so
  -- the weights are the same bits. Spaces whose radii leave the quick range, and the input
  -- (0, 0), go to the core.
  local wedges_fn, MAX_COORD = T.blendspace_wedges, 1e150
  local wedges = setmetatable({}, { __mode = "k" })
  local function wedges_of(self) -- once per space, away from the calls' path
    local w = ffi.new("sn_blendspace_wedges")
    if wedges_fn(ffi.cast("const sn_lua_space *", self).bs, w, nil) ~= 0 or w.quick == 0 or w.ndir > 256 then
      w = false
    end
    wedges[self] = w
    return w
  end
  -- the core's binary search for ang[lo] <= t < ang[hi], written out for up to 256 directions
  -- (they are at least 2 degrees apart: at most 180): a loop inside the calls' trace would keep
  -- LuaJIT from compiling it
  local floor = math.floor
  local function halve(ang, t, lo, hi)
    if hi - lo > 1 then
      local mid = floor((lo + hi) / 2)
      if ang[mid] <= t then lo = mid else hi = mid end
    end
    return lo, hi
  end
  local function search(ang, t, lo, hi)
    lo, hi = halve(ang, t, lo, hi)
    lo, hi = halve(ang, t, lo, hi)
    lo, hi = halve(ang, t, lo, hi)
    lo, hi = halve(ang, t, lo, hi)
    lo, hi = halve(ang, t, lo, hi)
    lo, hi = halve(ang, t, lo, hi)
    lo, hi = halve(ang, t, lo, hi)
    lo = halve(ang, t, lo, hi)
    return lo
  end
  local function directional(self, x, y, out)
    local wg = wedges[self]
    if wg == nil then wg = wedges_of(self) end
    if not wg or (x == 0 and y == 0) then return nil end
    if x < -MAX_COORD then x = -MAX_COORD elseif x > MAX_COORD then x = MAX_COORD end
    if y < -MAX_COORD then y = -MAX_COORD elseif y > MAX_COORD then y = MAX_COORD end
    local t -- sn_blendspace_pseudo_angle
    if y >= 0.0 then
      if x >= 0.0 then t = y / (x + y) else t = 1.0 - x / (y - x) end
    elseif x < 0.0 then
      t = -2.0 + y / (x + y)
    else
      t = -1.0 + x / (x - y)
    end
    local ang, ndir = wg.ang, wg.ndir
    local lo = ndir - 1
    if t >= ang[0] then lo = search(ang, t, 0, ndir) end
    local nx = lo + 1
    if nx == ndir then nx = 0 end
    local unit, fac = wg.unit, wg.fac
    local wa = (unit[2 * nx + 1] * x - unit[2 * nx] * y) * fac[2 * lo]
    local wb = (unit[2 * lo] * y - unit[2 * lo + 1] * x) * fac[2 * lo + 1]
    if not (wa > 0.0) then wa = 0.0 end -- luacheck: ignore 581 (NaN too, as the core)
    if not (wb > 0.0) then wb = 0.0 end -- luacheck: ignore 581
    local c = 1.0 - wa - wb
    if c < 0.0 then
      local sum = wa + wb
      wa, wb, c = wa / sum, wb / sum, 0.0
    end
    local n, ia, ib, centre = wg.count, wg.idx[lo] + 1, wg.idx[nx] + 1, wg.centre
    local fill = fillers[n] or make_stores(fillers, n, "w")
    if out == nil then out = {} end
    if centre >= 0 then
      fill(out, 0.0)
      rawset(out, ia, wa)
      rawset(out, ib, wb)
      rawset(out, centre + 1, c)
    else
      local e = c / n
      fill(out, e)
      rawset(out, ia, wa + e)
      rawset(out, ib, wb + e)
    end
    return out
  end

  for i, mt in ipairs(SPACES) do
    local c_weights = C.BlendSpace[i]
    local wedged = mt.__index.mode == "simple_directional"
    local weights
    weights = function(...)
      local self, x1, x2, x3, x4 = ...
      local nargs = select("#", ...) -- a constant in a compiled trace
      if nargs >= 2 and nargs <= 6 and type(self) == "userdata" and getmetatable(self) == mt then
        local out, d = select(nargs, ...), nargs - 1
        if type(out) == "table" or out == nil then d = d - 1 else out = nil end
        local ok = d >= 1 and d <= 4 and fin(x1)
        -- the table is made before the shared input and wbuf are filled: making it may run a
        -- finaliser that calls weights too
        if ok and out == nil then out = {} end
        calls = calls + 1
        local my_call = calls
        if ok then input[0] = x1 end
        if ok and d >= 2 then ok = fin(x2); input[1] = ok and x2 or 0 end
        if ok and d >= 3 then ok = fin(x3); input[2] = ok and x3 or 0 end
        if ok and d >= 4 then ok = fin(x4); input[3] = ok and x4 or 0 end
        if ok and wedged and d == 2 then
          local r = directional(self, x1, x2, out)
          if r then return r end
        end
        if ok then
          local n = weights_fn(self, input, d, wbuf, wcap)
          if n < -1 or (n >= 0 and not copiers[n]) then
            -- once per size: a larger wbuf (made, then installed, as the buffers above) or a new
            -- copier; these allocations may run a finaliser that uses input and wbuf, so both
            -- are filled again after them
            local need = n < -1 and -1 - n or n
            if need > wcap then
              local b = ffi.new("double[?]", need)
              if need > wcap then wbuf, wcap = b, need end
            end
            if not copiers[need] then make_stores(copiers, need, "w[%d]") end
            input[0], input[1], input[2], input[3] = x1, d >= 2 and x2 or 0, d >= 3 and x3 or 0, d >= 4 and x4 or 0
            n = weights_fn(self, input, d, wbuf, wcap)
          end
          if n >= 0 then
            copiers[n](out, wbuf)
            -- a compiled copy may collect while it grows `out`, and a finaliser may then have
            -- called weights and refilled wbuf: if any call began since this one, the C
            -- binding below does it again (it computes into the space's own memory)
            if calls == my_call then return out end
          end
        end
      end
      return raise_as(caller(), try(c_weights, ...))
    end
    mt.__index.weights, c_of[weights] = weights, c_weights
  end

  -- poses
  local pm, c_add, c_to_model = POSE.__index, C.Pose.add, C.Pose.to_model
  local add, to_matrices = T.pose_add, T.pose_to_matrices
  pm.add = function(...)
    local self, delta, weight, mask = ...
    if is(self, POSE) and is(delta, POSE) and fin(weight) and (mask == nil or is(mask, MASK))
      and add(self, delta, weight, mask, nil) == 0 then
      return self
    end
    return raise_as(caller(), try(c_add, ...))
  end
  pm.to_model = function(...)
    local self, mats = ...
    if is(self, POSE) and is(mats, MATS) and to_matrices(self, mats, nil) == 0 then return mats end
    return raise_as(caller(), try(c_to_model, ...))
  end

  c_of[pm.add], c_of[pm.to_model] = c_add, c_to_model

  -- sinew.blend(out, poses, weights [, masks [, threshold [, rotation]]])
  local c_blend, blend_fn = C.blend, T.pose_blend
  local layers_n = 8
  local layers, lposes = ffi.new("sn_blend_layer[8]"), ffi.new("const sn_pose *[8]")
  local lweights, lmasks = ffi.new("float[8]"), ffi.new("const sn_mask *[8]")
  local ROT = { nlerp = 0, karcher = 1, markley = 2, power = 3 }
  core.blend = function(...)
    local out, poses, ws, masks, threshold, rotation = ...
    local method = rotation == nil and 0 or ROT[rotation]
    if threshold == nil then threshold = 0.1 end -- SN_BLEND_THRESHOLD, as a float
    if method and is(out, POSE) and type(poses) == "table" and type(ws) == "table" and fin(threshold) then
      local n = #poses
      local mt = type(masks)
      local all = nil
      if mt == "userdata" then
        if is(masks, MASK) then all = masks else mt = false end
      elseif mt ~= "nil" and mt ~= "table" then
        mt = false
      end
      if mt and #ws == n then
        if n > layers_n then -- made, then installed, as the quaternion buffers above
          local a, b = ffi.new("sn_blend_layer[?]", n), ffi.new("const sn_pose *[?]", n)
          local c, d = ffi.new("float[?]", n), ffi.new("const sn_mask *[?]", n)
          if n > layers_n then layers, lposes, lweights, lmasks, layers_n = a, b, c, d, n end
        end
        for i = 1, n do
          local p, w = rawget(poses, i), rawget(ws, i)
          if not (is(p, POSE) and type(w) == "number") then mt = false; break end
          lposes[i - 1], lweights[i - 1], lmasks[i - 1] = p, w, all
          if mt == "table" then
            local m = rawget(masks, i)
            if m then
              if is(m, MASK) then lmasks[i - 1] = m else mt = false; break end
            end
          end
        end
        -- entries past n, from a larger earlier call, are never read: n is passed
        if mt and blend_fn(out, layers, lposes, lweights, lmasks, n, threshold, method) == 0 then return out end
      end
    end
    return raise_as(caller(), try(c_blend, ...))
  end
  c_of[core.blend] = c_blend

  -- clips and cursors: sample(t, pose [, loop]) through `fn`, for objects of class `mt`
  local function sampler(mt, fn, c)
    return function(...)
      local self, t, pose, loop = ...
      if is(self, mt) and fin(t) and is(pose, POSE) then
        local l = 1
        if loop ~= nil and not loop then l = 0 end
        if fn(self, t, l, pose, nil) == 0 then return pose end
      end
      return raise_as(caller(), try(c, ...))
    end
  end
  CLIP.__index.sample = sampler(CLIP, T.clip_sample, C.Clip.sample)
  CURSOR.__index.sample = sampler(CURSOR, T.clip_cursor_sample, C.ClipCursor.sample)
  c_of[CLIP.__index.sample], c_of[CURSOR.__index.sample] = C.Clip.sample, C.ClipCursor.sample

  -- clip:sample_joint(t, joint [, loop]) into one float[10] made here (the core writes it and
  -- the numbers are read out before anything can allocate, so no finaliser can call in between).
  -- A joint is an index, or a name looked up once per clip and name (index_of, away from the
  -- calls' path); anything else, and what the core refuses, goes to the C binding.
  local sample_joint, c_sample_joint, c_skeleton = T.clip_sample_joint, C.Clip.sample_joint, C.Clip.skeleton
  local jout = ffi.new("float[10]")
  local indices = setmetatable({}, { __mode = "k" }) -- clip -> {name = 1-based index}
  local function index_of(self, name)
    local j = c_skeleton(self):find(name)
    if j then
      local names = indices[self]
      if not names then names = {}; indices[self] = names end
      names[name] = j
    end
    return j
  end
  CLIP.__index.sample_joint = function(...)
    local self, t, joint, loop = ...
    if is(self, CLIP) and fin(t) then
      if type(joint) == "string" then
        local names = indices[self]
        joint = names and names[joint] or index_of(self, joint)
      end
      -- an integer the core can take (it checks the range); 1.5, NaN, huge: the C binding says
      if type(joint) == "number" and joint >= 1 and joint <= 0x7fffffff and joint % 1 == 0 then
        local l = 1
        if loop ~= nil and not loop then l = 0 end
        if sample_joint(self, t, l, joint - 1, jout, nil) == 0 then
          return jout[0], jout[1], jout[2], jout[3], jout[4], jout[5], jout[6], jout[7], jout[8], jout[9]
        end
      end
    end
    return raise_as(caller(), try(c_sample_joint, ...))
  end

  -- chains
  local cm, c_step, c_update = CHAIN.__index, C.Chain.step, C.Chain.update
  local step, update = T.chain_step, T.chain_update
  local root = ffi.new("double[16]")
  cm.step = function(...)
    local self, dt = ...
    if is(self, CHAIN) and type(dt) == "number" and step(self, dt, nil) == 0 then return end
    return raise_as(caller(), try(c_step, ...))
  end
  cm.update = function(...)
    local self, dt, pose, m = ...
    if is(self, CHAIN) and type(dt) == "number" and is(pose, POSE) then
      local r = nil
      if m ~= nil then
        r = root
        if type(m) ~= "table" or #m ~= 16 then r = false else
          for i = 1, 16 do
            local v = rawget(m, i)
            if not fin(v) then r = false; break end
            root[i - 1] = v
          end
        end
      end
      if r ~= false and update(self, dt, pose, r, nil) == 0 then return end
    end
    return raise_as(caller(), try(c_update, ...))
  end
  c_of[cm.step], c_of[cm.update] = c_step, c_update
  return true
end

return M
