--- The FFI path's poses: `pose:add`, `pose:to_model` and `sinew.blend` through the core's function
-- table, for the common case (the right objects, plain finite numbers).
-- @module sinew.ffi.pose
local ffi = require "ffi"
local args = require "sinew.ffi.args"
local errors = require "sinew.ffi.errors"

local M = {}

local type, rawget = type, rawget
local fin, is = args.fin, args.is
local caller, raise_as = errors.caller, errors.raise_as

--- Replaces `pose:add`, `pose:to_model` and `core.blend` (see sinew.ffi for `ctx`).
function M.install(ctx)
  local core, T, C, try, register = ctx.core, ctx.T, ctx.C, ctx.try, ctx.register
  local POSE, MASK, MATS = ctx.metatables["sinew.Pose"], ctx.metatables["sinew.Mask"], ctx.metatables["sinew.Matrices"]
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

  register(pm.add, c_add)
  register(pm.to_model, c_to_model)

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
  register(core.blend, c_blend)
end

return M
