--- The FFI path's inverse kinematics: `IKTwoBone:solve`, `IKAim:solve` and `IKChain:solve` through the core's
-- function table (ffi.c's solve functions, which take the vectors as numbers), for the common
-- case (the right objects, numbers); anything else, and what the core refuses, goes to the C
-- binding, which raises its own error.
-- @module sinew.ffi.ik
local ffi = require "ffi"
local args = require "sinew.ffi.args"
local errors = require "sinew.ffi.errors"

local M = {}

local type = type
local is = args.is
local caller, raise_as = errors.caller, errors.raise_as

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
  register(TWO.__index.solve, c_two)
  register(AIM.__index.solve, c_aim)
  register(CHAIN.__index.solve, c_chain)
end

return M
