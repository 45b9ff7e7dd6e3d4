--- The FFI path's poses: `pose:add`, `pose:to_model`, the morph weights (`pose:morph`,
-- `set_morph`, `morphs`, `set_morphs`) and `sinew.blend` through the core's function table, for
-- the common case (the right objects, plain finite numbers within float range, morphs in range).
-- @module sinew.ffi.pose
local ffi = require "ffi"
local args = require "sinew.ffi.args"
local errors = require "sinew.ffi.errors"

local M = {}

local type, rawget, rawset, floor = type, rawget, rawset, math.floor

-- the largest float: a finite number beyond it the C binding rounds or refuses itself
local FLT_MAX = 3.4028234663852886e38
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

  -- morph weights: read and written one by one through the core (numbers, never a cdata that
  -- would be garbage when the interpreter runs)
  local morph_get, morph_set, morph_count, morph_find = T.pose_morph_get, T.pose_morph_set, T.pose_morph_count,
    T.pose_morph_find
  local c_morph, c_set_morph, c_morphs, c_set_morphs = C.Pose.morph, C.Pose.set_morph, C.Pose.morphs, C.Pose.set_morphs
  -- the 0-based morph `m` (a 1-based index or a name) of pose p, or nil (the C binding then raises)
  local function morph_index(p, m)
    local tm = type(m)
    if tm == "number" then
      if m >= 1 and m <= morph_count(p) and m == floor(m) then return m - 1 end
    elseif tm == "string" then
      local k = morph_find(p, m, #m)
      if k >= 0 then return k end
    end
    return nil
  end
  local function weight_ok(w) return fin(w) and w <= FLT_MAX and w >= -FLT_MAX end
  pm.morph = function(...)
    local self, m = ...
    if is(self, POSE) then
      local k = morph_index(self, m)
      if k then return morph_get(self, k) end
    end
    return raise_as(caller(), try(c_morph, ...))
  end
  pm.set_morph = function(...)
    local self, m, w = ...
    if is(self, POSE) and weight_ok(w) then
      local k = morph_index(self, m)
      if k then
        morph_set(self, k, w)
        return
      end
    end
    return raise_as(caller(), try(c_set_morph, ...))
  end
  pm.morphs = function(...)
    local self, out = ...
    if is(self, POSE) and (out == nil or type(out) == "table") then
      local n = morph_count(self)
      if out == nil then out = {} end
      for m = 1, n do rawset(out, m, morph_get(self, m - 1)) end
      return out
    end
    return raise_as(caller(), try(c_morphs, ...))
  end
  pm.set_morphs = function(...)
    local self, list = ...
    if is(self, POSE) and type(list) == "table" then
      local n = morph_count(self)
      local ok = #list == n
      for m = 1, ok and n or 0 do
        if not weight_ok(rawget(list, m)) then ok = false; break end
      end
      if ok then
        for m = 1, n do morph_set(self, m - 1, rawget(list, m)) end
        return
      end
    end
    return raise_as(caller(), try(c_set_morphs, ...))
  end
  register(pm.morph, c_morph)
  register(pm.set_morph, c_set_morph)
  register(pm.morphs, c_morphs)
  register(pm.set_morphs, c_set_morphs)

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
