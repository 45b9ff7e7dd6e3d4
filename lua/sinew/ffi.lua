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
-- The tiny quaternion functions (`mul`, `rotate`, `normalize`, ...) are Lua here, written as
-- the C core computes them, so the JIT compiles them into the caller's trace; the others call the
-- core through the function table the native library hands over (`src/binding/ffi.c`).
--
-- This is the only file of sinew that requires "ffi".
-- @module sinew.ffi
local ffi = require "ffi"

local M = {}

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
    sn_status (*chain_step)(sn_chain *c, double dt, sn_error *err);
    sn_status (*chain_update)(sn_chain *c, double dt, sn_pose *pose, const double *root_matrix, sn_error *err);
} sn_ffi_table;
]]
M.CDEF = CDEF

local type, getmetatable, select, rawset, rawget = type, getmetatable, select, rawset, rawget
local sqrt, abs, sin, cos = math.sqrt, math.abs, math.sin, math.cos
local atan2 = math.atan2 or math.atan

-- The plain ranges of src/core/quat.c: inside them the core computes without rescaling
local PLAIN_SQ_LO, PLAIN_SQ_HI = 1e-280, 1e280
local PLAIN_V_LO, PLAIN_V_HI = 1e-290, 1e300
local NEAR_UNIT = 1e-5

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
  }
  for name, size in pairs(native.sizes) do
    if mine[name] ~= size then
      return nil, ("the FFI declarations do not match the native library: %s is %s bytes here, %d there")
        :format(name, tostring(mine[name]), size)
    end
  end
  for name in pairs(mine) do
    if native.sizes[name] == nil then return nil, "the native library does not report " .. name end
  end
  return ffi.cast("const sn_ffi_table *", native.table)
end

-- ---- calling the C binding ------------------------------------------------------------------

-- A call the fast path does not take goes to the C binding's function, under pcall so that an
-- error it raises can be told as the C binding tells it when called directly: luaL_argerror
-- names the function and, for a method call, counts arguments after `self`, from how its caller
-- called it; called from here it sees neither. `caller()` (evaluated in the fast function, not in
-- a tail call) is how the fast function itself was called.
local getinfo = type(debug) == "table" and debug.getinfo or nil
local function caller() return getinfo and getinfo(2, "n") end

local function raise_as(info, ok, ...)
  if ok then return ... end
  local msg = ...
  if type(msg) ~= "string" or msg:match("^[^\n]-:%d+: ") then error(msg, 0) end -- Lua code's own error
  if info then
    local n, rest = msg:match("^bad argument #(%d+) to '%?' (.*)$")
    if n then
      local name = info.name or "?"
      n = tonumber(n)
      if info.namewhat == "method" then n = n - 1 end
      if n == 0 then
        msg = ("calling '%s' on bad self %s"):format(name, rest)
      else
        msg = ("bad argument #%d to '%s' %s"):format(n, name, rest)
      end
    end
  end
  error(msg, 2) -- where the fast function was called (raise_as replaced it by a tail call)
end

-- ---- quaternions ---------------------------------------------------------------------------

-- x is a finite number (a string that converts, NaN and infinities are not: the C binding
-- takes or refuses those itself)
local function fin(x) return type(x) == "number" and x - x == 0 end
local function fin4(x, y, z, w) return fin(x) and fin(y) and fin(z) and fin(w) end

-- Every fast function takes `...` and reads its arguments from it, so that a call it does not
-- take reaches the C binding with exactly the arguments it was given ("got no value" stays).
-- Nothing here makes garbage, interpreted or compiled: scratch memory is allocated once, read
-- and written as double arrays, and the function pointers are taken out of the table once.
local function quat_functions(T, C)
  local F = {}
  local qa, qb, qo = ffi.new("sn_quat[1]"), ffi.new("sn_quat[1]"), ffi.new("sn_quat[1]")
  local da, db, dout = ffi.cast("double *", qa), ffi.cast("double *", qb), ffi.cast("double *", qo)
  local slerp, pow, log, exp, blend = T.quat_slerp, T.quat_pow, T.quat_log, T.quat_exp, T.quat_blend
  local qs_buf, ws_buf, buf_n = ffi.new("sn_quat[8]"), ffi.new("double[8]"), 8
  local qs_d = ffi.cast("double *", qs_buf)

  -- |q| as the core's norm4 computes it in its plain range (the sum of squares neither huge nor
  -- tiny), else nil: the core rescales there, and the C binding takes the call
  local function plain_len(x, y, z, w)
    local ss = x * x + y * y + z * z + w * w
    if ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then return sqrt(ss) end
    return nil
  end

  function F.identity(...)
    if select("#", ...) == 0 then return 0, 0, 0, 1 end
    return raise_as(caller(), pcall(C.identity, ...))
  end

  function F.conj(...)
    local x, y, z, w = ...
    if fin4(x, y, z, w) then return -x, -y, -z, w end
    return raise_as(caller(), pcall(C.conj, ...))
  end

  function F.mul(...)
    local ax, ay, az, aw, bx, by, bz, bw = ...
    if fin4(ax, ay, az, aw) and fin4(bx, by, bz, bw) then
      local x = aw * bx + ax * bw + ay * bz - az * by
      local y = aw * by - ax * bz + ay * bw + az * bx
      local z = aw * bz + ax * by - ay * bx + az * bw
      local w = aw * bw - ax * bx - ay * by - az * bz
      local s = x + y + z + w
      if s - s == 0 then return x, y, z, w end
    end
    return raise_as(caller(), pcall(C.mul, ...))
  end

  function F.dot(...)
    local ax, ay, az, aw, bx, by, bz, bw = ...
    if fin4(ax, ay, az, aw) and fin4(bx, by, bz, bw) then
      local d = ax * bx + ay * by + az * bz + aw * bw
      if d - d == 0 then return d end
    end
    return raise_as(caller(), pcall(C.dot, ...))
  end

  function F.length(...)
    local x, y, z, w = ...
    local r = fin4(x, y, z, w) and plain_len(x, y, z, w)
    if r then return r end
    return raise_as(caller(), pcall(C.length, ...))
  end

  function F.normalize(...)
    local x, y, z, w = ...
    local r = fin4(x, y, z, w) and plain_len(x, y, z, w)
    if r then return x / r, y / r, z / r, w / r end
    return raise_as(caller(), pcall(C.normalize, ...))
  end

  function F.inverse(...)
    local x, y, z, w = ...
    local r = fin4(x, y, z, w) and plain_len(x, y, z, w)
    if r then return -(x / r) / r, -(y / r) / r, -(z / r) / r, (w / r) / r end
    return raise_as(caller(), pcall(C.inverse, ...))
  end

  function F.rotate(...)
    local qx, qy, qz, qw, x, y, z = ...
    if fin4(qx, qy, qz, qw) and fin(x) and fin(y) and fin(z) then
      local ss = qx * qx + qy * qy + qz * qz + qw * qw
      local m = abs(x)
      if abs(y) > m then m = abs(y) end
      if abs(z) > m then m = abs(z) end
      if ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI and ((m > PLAIN_V_LO and m < PLAIN_V_HI) or m == 0) then
        local r = sqrt(ss)
        local ux, uy, uz, uw = qx / r, qy / r, qz / r, qw / r
        local tx = 2.0 * (uy * z - uz * y)
        local ty = 2.0 * (uz * x - ux * z)
        local tz = 2.0 * (ux * y - uy * x)
        return x + uw * tx + (uy * tz - uz * ty), y + uw * ty + (uz * tx - ux * tz), z + uw * tz + (ux * ty - uy * tx)
      end
    end
    return raise_as(caller(), pcall(C.rotate, ...))
  end

  function F.from_axis_angle(...)
    local x, y, z, a = ...
    if fin(x) and fin(y) and fin(z) and fin(a) then
      local ss = x * x + y * y + z * z
      if ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then
        local r = sqrt(ss)
        local s = sin(0.5 * a)
        return x / r * s, y / r * s, z / r * s, cos(0.5 * a)
      end
    end
    return raise_as(caller(), pcall(C.from_axis_angle, ...))
  end

  -- 1 / |q| for |q|^2 = ss as src/core/quat.c's unit4_near takes it: near 1 its near_unit_scale,
  -- else unit4_quick's reciprocal; nil outside the plain range (the C binding then)
  local function near_scale(ss)
    local e = ss - 1.0
    if abs(e) < NEAR_UNIT then return 1.0 + e * (-0.5 + 0.375 * e) end
    if ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then return 1.0 / sqrt(ss) end
    return nil
  end

  -- a and b as src/core/quat.c's aligned_pair gives them (unit, b on a's side), or nil where the
  -- core rescales (the caller then goes to the C binding)
  local function aligned(ax, ay, az, aw, bx, by, bz, bw)
    local ka = near_scale((ax * ax + ay * ay) + (az * az + aw * aw))
    local kb = near_scale((bx * bx + by * by) + (bz * bz + bw * bw))
    if not (ka and kb) then return nil end
    ax, ay, az, aw = ax * ka, ay * ka, az * ka, aw * ka
    bx, by, bz, bw = bx * kb, by * kb, bz * kb, bw * kb
    if ax * bx + ay * by + az * bz + aw * bw < 0.0 then bx, by, bz, bw = -bx, -by, -bz, -bw end
    return ax, ay, az, aw, bx, by, bz, bw
  end

  function F.nlerp(...)
    local ax, ay, az, aw, bx, by, bz, bw, t = ...
    if fin4(ax, ay, az, aw) and fin4(bx, by, bz, bw) and fin(t) and abs(t) <= 1e300 then
      ax, ay, az, aw, bx, by, bz, bw = aligned(ax, ay, az, aw, bx, by, bz, bw)
      if ax then
        local x = ax + t * (bx - ax)
        local y = ay + t * (by - ay)
        local z = az + t * (bz - az)
        local w = aw + t * (bw - aw)
        local k = 1.0 / sqrt(x * x + y * y + z * z + w * w)
        return x * k, y * k, z * k, w * k
      end
    end
    return raise_as(caller(), pcall(C.nlerp, ...))
  end

  function F.slerp(...)
    local ax, ay, az, aw, bx, by, bz, bw, t = ...
    if fin4(ax, ay, az, aw) and fin4(bx, by, bz, bw) and fin(t) then
      da[0], da[1], da[2], da[3] = ax, ay, az, aw
      db[0], db[1], db[2], db[3] = bx, by, bz, bw
      if slerp(qa, qb, t, qo, nil) == 0 then return dout[0], dout[1], dout[2], dout[3] end
    end
    return raise_as(caller(), pcall(C.slerp, ...))
  end

  -- |v| as src/core/quat.c's len4: plain_len, and 0 for zero
  local function len4(x, y, z, w)
    if x == 0 and y == 0 and z == 0 and w == 0 then return 0 end
    return plain_len(x, y, z, w)
  end

  function F.angle(...)
    local ax, ay, az, aw, bx, by, bz, bw = ...
    if fin4(ax, ay, az, aw) and fin4(bx, by, bz, bw) then
      ax, ay, az, aw, bx, by, bz, bw = aligned(ax, ay, az, aw, bx, by, bz, bw)
      if ax then
        local ld = len4(ax - bx, ay - by, az - bz, aw - bw)
        local ls = len4(ax + bx, ay + by, az + bz, aw + bw)
        if ld and ls then return 2.0 * (2.0 * atan2(ld, ls)) end
      end
    end
    return raise_as(caller(), pcall(C.angle, ...))
  end

  function F.to_axis_angle(...)
    local x, y, z, w = ...
    local r = fin4(x, y, z, w) and plain_len(x, y, z, w)
    if r then
      x, y, z, w = x / r, y / r, z / r, w / r
      if w < 0.0 then x, y, z, w = -x, -y, -z, -w end
      if x == 0 and y == 0 and z == 0 then return 1.0, 0.0, 0.0, 0.0 end
      local rv = plain_len(x, y, z, 0.0)
      if rv then return x / rv, y / rv, z / rv, 2.0 * atan2(rv, w) end
    end
    return raise_as(caller(), pcall(C.to_axis_angle, ...))
  end

  -- the axes of each order, as src/core/quat.c's sn_quat_from_euler applies them (1 x, 2 y, 3 z)
  local ORDER_AXES = { XYZ = { 1, 2, 3 }, XZY = { 1, 3, 2 }, YXZ = { 2, 1, 3 }, YZX = { 2, 3, 1 },
                       ZXY = { 3, 1, 2 }, ZYX = { 3, 2, 1 } }
  local XYZ = ORDER_AXES.XYZ
  function F.from_euler(...)
    local x, y, z, order = ...
    local axes = order == nil and XYZ or ORDER_AXES[order]
    if axes and fin(x) and fin(y) and fin(z) then
      local rx, ry, rz, rw = 0.0, 0.0, 0.0, 1.0
      for i = 1, 3 do
        local axis = axes[i]
        local a = axis == 1 and x or axis == 2 and y or z
        local s, ew = sin(0.5 * a), cos(0.5 * a)
        local ex, ey, ez = 0.0, 0.0, 0.0
        if axis == 1 then ex = s elseif axis == 2 then ey = s else ez = s end
        -- r = e * r, the core's mul_plain
        rx, ry, rz, rw = ew * rx + ex * rw + ey * rz - ez * ry, ew * ry - ex * rz + ey * rw + ez * rx,
                         ew * rz + ex * ry - ey * rx + ez * rw, ew * rw - ex * rx - ey * ry - ez * rz
      end
      return rx, ry, rz, rw
    end
    return raise_as(caller(), pcall(C.from_euler, ...))
  end

  function F.from_to(...)
    local ux, uy, uz, vx, vy, vz = ...
    if fin(ux) and fin(uy) and fin(uz) and fin(vx) and fin(vy) and fin(vz) then
      local su = ux * ux + uy * uy + uz * uz + 0.0 * 0.0
      local sv = vx * vx + vy * vy + vz * vz + 0.0 * 0.0
      if su > PLAIN_SQ_LO and su < PLAIN_SQ_HI and sv > PLAIN_SQ_LO and sv < PLAIN_SQ_HI then
        local ru, rv = sqrt(su), sqrt(sv)
        local ax, ay, az = ux / ru, uy / ru, uz / ru
        local hx, hy, hz = ax + vx / rv, ay + vy / rv, az + vz / rv
        local lh = len4(hx, hy, hz, 0.0)
        if lh and lh >= 1e-12 then -- else antiparallel: the C binding's half turn
          local k = 1.0 / lh
          hx, hy, hz = hx * k, hy * k, hz * k
          local x, y, z, w = ay * hz - az * hy, az * hx - ax * hz, ax * hy - ay * hx, ax * hx + ay * hy + az * hz
          local r = sqrt(x * x + y * y + z * z + w * w)
          return x / r, y / r, z / r, w / r
        end
      end
    end
    return raise_as(caller(), pcall(C.from_to, ...))
  end

  function F.pow(...)
    local x, y, z, w, e = ...
    if fin4(x, y, z, w) and fin(e) then
      da[0], da[1], da[2], da[3] = x, y, z, w
      if pow(qa, e, qo, nil) == 0 then return dout[0], dout[1], dout[2], dout[3] end
    end
    return raise_as(caller(), pcall(C.pow, ...))
  end

  -- log and exp: a quaternion in, a quaternion out, through `fn`
  local function unary(fn, c)
    return function(...)
      local x, y, z, w = ...
      if fin4(x, y, z, w) then
        da[0], da[1], da[2], da[3] = x, y, z, w
        if fn(qa, qo, nil) == 0 then return dout[0], dout[1], dout[2], dout[3] end
      end
      return raise_as(caller(), pcall(c, ...))
    end
  end
  F.log = unary(log, C.log)
  F.exp = unary(exp, C.exp)

  local METHODS = { nlerp = 0, karcher = 1, markley = 2, power = 3 }
  if C.blend then
    function F.blend(...)
      local qs, ws, method = ...
      local m = method == nil and 0 or METHODS[method]
      if m and type(qs) == "table" and type(ws) == "table" then
        local n = #ws
        if n > 0 and #qs == 4 * n then
          if n > buf_n then
            buf_n = n
            qs_buf, ws_buf = ffi.new("sn_quat[?]", n), ffi.new("double[?]", n)
            qs_d = ffi.cast("double *", qs_buf)
          end
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
      return raise_as(caller(), pcall(C.blend, ...))
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
  for k, v in pairs(core.quat) do C.quat[k] = v end
  for k, v in pairs(POSE.__index) do C.Pose[k] = v end
  for k, v in pairs(CLIP.__index) do C.Clip[k] = v end
  for k, v in pairs(CURSOR.__index) do C.ClipCursor[k] = v end
  for k, v in pairs(CHAIN.__index) do C.Chain[k] = v end
  for i, mt in ipairs(SPACES) do C.BlendSpace[i] = mt.__index.weights end
  C.blend = core.blend
  M.c = C

  for k, v in pairs(quat_functions(T, C.quat)) do core.quat[k] = v end

  local function is(x, mt) return type(x) == "userdata" and getmetatable(x) == mt end

  -- blend spaces: weights(x1, ..., xd [, out]) for d up to 4 (more go to the C binding)
  local weights_fn = T.blendspace_weights
  local input, wbuf, wcap = ffi.new("double[4]"), ffi.new("double[16]"), 16
  for i, mt in ipairs(SPACES) do
    local c_weights = C.BlendSpace[i]
    mt.__index.weights = function(...)
      local self, x1, x2, x3, x4 = ...
      local nargs = select("#", ...) -- a constant in a compiled trace
      if nargs >= 2 and nargs <= 6 and type(self) == "userdata" and getmetatable(self) == mt then
        local out, d = select(nargs, ...), nargs - 1
        if type(out) == "table" or out == nil then d = d - 1 else out = nil end
        local ok = d >= 1 and d <= 4 and fin(x1)
        if ok then input[0] = x1 end
        if ok and d >= 2 then ok = fin(x2); input[1] = ok and x2 or 0 end
        if ok and d >= 3 then ok = fin(x3); input[2] = ok and x3 or 0 end
        if ok and d >= 4 then ok = fin(x4); input[3] = ok and x4 or 0 end
        if ok then
          local n = weights_fn(self, input, d, wbuf, wcap)
          if n < -1 then -- more points than wbuf holds: grow it once
            wcap = -1 - n
            wbuf = ffi.new("double[?]", wcap)
            n = weights_fn(self, input, d, wbuf, wcap)
          end
          if n >= 0 then
            if out == nil then out = {} end
            for k = 1, n do rawset(out, k, wbuf[k - 1]) end
            return out
          end
        end
      end
      return raise_as(caller(), pcall(c_weights, ...))
    end
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
    return raise_as(caller(), pcall(c_add, ...))
  end
  pm.to_model = function(...)
    local self, mats = ...
    if is(self, POSE) and is(mats, MATS) and to_matrices(self, mats, nil) == 0 then return mats end
    return raise_as(caller(), pcall(c_to_model, ...))
  end

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
        if n > layers_n then
          layers_n = n
          layers, lposes = ffi.new("sn_blend_layer[?]", n), ffi.new("const sn_pose *[?]", n)
          lweights, lmasks = ffi.new("float[?]", n), ffi.new("const sn_mask *[?]", n)
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
    return raise_as(caller(), pcall(c_blend, ...))
  end

  -- clips and cursors: sample(t, pose [, loop]) through `fn`, for objects of class `mt`
  local function sampler(mt, fn, c)
    return function(...)
      local self, t, pose, loop = ...
      if is(self, mt) and fin(t) and is(pose, POSE) then
        local l = 1
        if loop ~= nil and not loop then l = 0 end
        if fn(self, t, l, pose, nil) == 0 then return pose end
      end
      return raise_as(caller(), pcall(c, ...))
    end
  end
  CLIP.__index.sample = sampler(CLIP, T.clip_sample, C.Clip.sample)
  CURSOR.__index.sample = sampler(CURSOR, T.clip_cursor_sample, C.ClipCursor.sample)

  -- chains
  local cm, c_step, c_update = CHAIN.__index, C.Chain.step, C.Chain.update
  local step, update = T.chain_step, T.chain_update
  local root = ffi.new("double[16]")
  cm.step = function(...)
    local self, dt = ...
    if is(self, CHAIN) and type(dt) == "number" and step(self, dt, nil) == 0 then return end
    return raise_as(caller(), pcall(c_step, ...))
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
    return raise_as(caller(), pcall(c_update, ...))
  end
  return true
end

return M
