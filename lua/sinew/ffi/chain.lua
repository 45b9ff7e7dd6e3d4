--- The FFI path's chains (dynamic bones): `chain:step` and `chain:update` through the core's
-- function table, for the common case (a chain, a number, a pose, a plain root matrix).
-- @module sinew.ffi.chain
local ffi = require "ffi"
local args = require "sinew.ffi.args"
local errors = require "sinew.ffi.errors"

local M = {}

local type, rawget = type, rawget
local fin, is = args.fin, args.is
local caller, raise_as = errors.caller, errors.raise_as

--- Replaces `chain:step` and `chain:update` (see sinew.ffi for `ctx`).
function M.install(ctx)
  local T, C, try, register = ctx.T, ctx.C, ctx.try, ctx.register
  local POSE, CHAIN = ctx.metatables["sinew.Pose"], ctx.metatables["sinew.Chain"]
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
  register(cm.step, c_step)
  register(cm.update, c_update)
end

return M
