--- The FFI path's clips and cursors: `clip:sample`, `cursor:sample` and `clip:sample_joint`
-- through the core's function table, for the common case (the right objects, a finite time).
-- @module sinew.ffi.clip
local ffi = require "ffi"
local args = require "sinew.ffi.args"
local errors = require "sinew.ffi.errors"

local M = {}

local type, setmetatable = type, setmetatable
local fin, is = args.fin, args.is
local caller, raise_as = errors.caller, errors.raise_as

--- Replaces the `sample` methods of clips and cursors and `clip:sample_joint` (see sinew.ffi for
-- `ctx`).
function M.install(ctx)
  local T, C, try, register = ctx.T, ctx.C, ctx.try, ctx.register
  local POSE, CLIP, CURSOR = ctx.metatables["sinew.Pose"], ctx.metatables["sinew.Clip"], ctx.metatables["sinew.ClipCursor"]
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
  register(CLIP.__index.sample, C.Clip.sample)
  register(CURSOR.__index.sample, C.ClipCursor.sample)

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
  register(CLIP.__index.sample_joint, c_sample_joint)
end

return M
