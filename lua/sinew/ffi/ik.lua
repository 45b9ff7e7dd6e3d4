--- The FFI path's inverse kinematics: `IKTwoBone:solve`, `IKAim:solve` and `IKChain:solve` through the core's
-- function table (ffi.c's solve functions, which take the vectors as numbers), for the common
-- case (the right objects, numbers); anything else, and what the core refuses, goes to the C
-- binding, which raises its own error.
--
-- `IKFeet:solve` runs in three calls (ffi.c's ik_feet_prepare, ik_feet_release, ik_feet_solve)
-- with the ground callbacks called from Lua between them, so that LuaJIT compiles the whole
-- solve with its callbacks (a call from C into Lua ends a trace). It checks each answer as the C
-- binding does (src/binding/ik_feet.c: the same messages, nothing written on a refusal) and
-- shares its re-entry guard (the userdata's `busy`, set by prepare). A callback that yields must
-- raise, as on the C binding, and a yield from a Lua function called from Lua would suspend the
-- solve: inside a coroutine (where a yield could succeed) the solve goes to the C binding, whose
-- call into the callback refuses yields. On the main thread a yield raises by itself.
-- @module sinew.ffi.ik
local ffi = require "ffi"
local args = require "sinew.ffi.args"
local errors = require "sinew.ffi.errors"

local M = {}

local type, error, pcall, tonumber, setmetatable = type, error, pcall, tonumber, setmetatable
local format = string.format
local running = coroutine.running
local is = args.is
local caller, raise_as = errors.caller, errors.raise_as

-- the core's arguments of sn_ik_feet_solve (pose, ground, dt, weight) as IKFeet:solve's: a
-- refusal of the ground (2) names no argument (ik_feet.c's args)
local FEET_ARGS = { 2, nil, 3, 4 }

-- the ground callback for leg `leg` answered `what`: not busy, and the C binding's error, where
-- the solve was called (called by the fast function, or by check_normal at `level` 4)
local function ground_fault(release, self, leg, what, level)
  release(self)
  error(format("ground callback for leg %d %s", leg, what), level or 3)
end

-- checks one normal component `v` (named `axis`) of leg `leg`'s answer, as ik_feet.c does
local function check_normal(release, self, leg, v, axis)
  if type(v) ~= "number" then
    ground_fault(release, self, leg, format("returned %s for normal %s (number expected)", type(v), axis), 4)
  end
  if v - v ~= 0 then ground_fault(release, self, leg, "returned a normal that is not finite", 4) end
  return v
end

--- Replaces the `solve` methods of the IK solver classes (see sinew.ffi for `ctx`).
function M.install(ctx)
  local T, C, try, register = ctx.T, ctx.C, ctx.try, ctx.register
  local POSE = ctx.metatables["sinew.Pose"]
  local TWO, AIM = ctx.metatables["sinew.IKTwoBone"], ctx.metatables["sinew.IKAim"]
  local CHAIN = ctx.metatables["sinew.IKChain"]
  local two_solve, aim_solve, chain_solve = T.ik_two_bone_solve, T.ik_aim_solve, T.ik_chain_solve
  local c_two, c_aim, c_chain = C.IKTwoBone.solve, C.IKAim.solve, C.IKChain.solve
  -- the flags of the last solve: written by the core, read at once (nothing runs in between)
  local flags = ffi.new("unsigned[1]")
  local left = ffi.new("double[1]")

  TWO.__index.solve = function(...)
    local self, pose, tx, ty, tz, px, py, pz, w = ...
    if w == nil then w = 1 end
    if is(self, TWO) and is(pose, POSE) and type(tx) == "number" and type(ty) == "number" and type(tz) == "number"
      and type(px) == "number" and type(py) == "number" and type(pz) == "number" and type(w) == "number"
      and two_solve(self, pose, tx, ty, tz, px, py, pz, w, flags) == 0 then
      local f = tonumber(flags[0])
      return f % 2 == 1, f -- REACHED is bit 1
    end
    return raise_as(caller(), try(c_two, ...))
  end
  AIM.__index.solve = function(...)
    local self, pose, tx, ty, tz, w, ux, uy, uz = ...
    if w == nil then w = 1 end
    local up = 0
    if ux ~= nil then
      up = (type(ux) == "number" and type(uy) == "number" and type(uz) == "number") and 1 or false
    else
      ux, uy, uz = 0, 0, 0
    end
    if up and is(self, AIM) and is(pose, POSE) and type(tx) == "number" and type(ty) == "number"
      and type(tz) == "number" and type(w) == "number"
      and aim_solve(self, pose, tx, ty, tz, w, up, ux, uy, uz, flags) == 0 then
      local f = tonumber(flags[0])
      return f % 2 == 1, f
    end
    return raise_as(caller(), try(c_aim, ...))
  end
  CHAIN.__index.solve = function(...)
    local self, pose, tx, ty, tz, w = ...
    if w == nil then w = 1 end
    if is(self, CHAIN) and is(pose, POSE) and type(tx) == "number" and type(ty) == "number" and type(tz) == "number"
      and type(w) == "number" and chain_solve(self, pose, tx, ty, tz, w, left, flags) == 0 then
      return left[0], tonumber(flags[0])
    end
    return raise_as(caller(), try(c_chain, ...))
  end

  local FEET = ctx.metatables["sinew.IKFeet"]
  local c_feet, c_ground = C.IKFeet.solve, C.IKFeet.ground
  local feet_prepare, feet_release, feet_solve = T.ik_feet_prepare, T.ik_feet_release, T.ik_feet_solve
  local MAX = ctx.core._ffi.constants.SN_IK_FEET_MAX
  local version = ffi.new("unsigned[1]")
  local err = ffi.new("sn_error")
  -- per solver, made at its first solve: { its ground callback, the set_ground count it is of,
  -- the feet's points (3 per leg), the ground's answers (4 per leg) }; a solver's own buffers,
  -- because a callback may solve another solver in between
  local per = setmetatable({}, { __mode = "k" })

  FEET.__index.solve = function(...)
    local self, pose, dt, w = ...
    if w == nil then w = 1 end
    local co, main = running()
    if (co == nil or main == true) and is(self, FEET) and is(pose, POSE) and type(dt) == "number"
      and type(w) == "number" then
      local e = per[self]
      if e == nil then
        e = { false, -1, ffi.new("double[?]", 3 * MAX), ffi.new("double[?]", 4 * MAX) }
        per[self] = e
      end
      local p, g = e[3], e[4]
      local n = feet_prepare(self, pose, p, version)
      if n < 0 then return c_feet(...) end -- re-entered: the C binding raises that (no position)
      if n > 0 then
        if e[2] ~= version[0] then
          e[1], e[2] = c_ground(self), version[0]
        end
        local fn = e[1]
        for l = 0, n - 1 do
          local ok, h, nx, ny, nz = pcall(fn, p[3 * l], p[3 * l + 1], p[3 * l + 2])
          if not ok then
            if type(h) == "string" then ground_fault(feet_release, self, l + 1, "failed: " .. h) end
            ground_fault(feet_release, self, l + 1, format("failed (error object is a %s value)", type(h)))
          end
          if type(h) ~= "number" then
            ground_fault(feet_release, self, l + 1, format("returned %s for the height (number expected)", type(h)))
          end
          if h - h ~= 0 then ground_fault(feet_release, self, l + 1, "returned a height that is not finite") end
          g[4 * l] = h
          if nx == nil and ny == nil and nz == nil then
            g[4 * l + 1], g[4 * l + 2], g[4 * l + 3] = 0, 0, 0 -- up
          else
            g[4 * l + 1] = check_normal(feet_release, self, l + 1, nx, "x")
            g[4 * l + 2] = check_normal(feet_release, self, l + 1, ny, "y")
            g[4 * l + 3] = check_normal(feet_release, self, l + 1, nz, "z")
          end
        end
        if feet_solve(self, pose, g, dt, w, flags, err) == 0 then
          local f = tonumber(flags[0])
          return f % 2 == 1, f
        end
        -- refused after the callbacks (which cannot be called again): the C binding's error
        local arg = FEET_ARGS[err.arg]
        if arg == nil then error(ffi.string(err.msg), 2) end
        return raise_as(caller(), nil, ffi.string(err.msg), arg)
      end
    end
    return raise_as(caller(), try(c_feet, ...))
  end

  register(TWO.__index.solve, c_two)
  register(AIM.__index.solve, c_aim)
  register(CHAIN.__index.solve, c_chain)
  register(FEET.__index.solve, c_feet)
end

return M
