--- The 2-D pose kind of the animator: registers DragonBones rigs' poses with
-- `sinew.animator.pose_kind`, so that `sinew.animator` plays a rig's animations through the same
-- definitions as 3-D clips (blend trees, state machines, layers with masks, additive layers,
-- inertialisation, events, snapshots). Loaded by `sinew.dragonbones`. See manual/2d.md, "Rigs in
-- the animator".
--
-- A 2-D pose holds 6 numbers a bone (x, y, rotation, skew, scale x, scale y), the animation pose
-- DragonBones adds to the setup pose (rest 0, 0, 0, 0, 1, 1). Blends are weighted averages per
-- bone with angles along the shorter arc; deltas are differences (scales: ratios).
-- @module sinew.dragonbones.kind
local core = require "sinew.core"
local PoseKind = require "sinew.animator.pose_kind"

local M = {}

-- the types, from a throwaway one-bone armature
local data = core._rig2d_data { 1, 1, 0, 0, 0, 0, -1, 15, 0, 0, 0, 0, 0, 1, 1 }
local pose, mask = data:pose(), data:mask({}, 1)
local anim = data:animation { 1, 1, 24, 0 }

local Pose = getmetatable(pose)

local function complement(_, m)
  local skeleton = m:skeleton()
  local c = skeleton:mask({}, 0)
  for b = 1, #m do c:set(b, 1 - m:get(b)) end
  return c
end

local function check(q, b, j)
  for i = 1, 6 do
    local v = q[b + i]
    if v ~= v or v == math.huge or v == -math.huge then return ("number %d of bone %d is not finite"):format(i, j) end
  end
  return nil
end

M.kind = {
  name = "2-D bones", dims = 2,
  Skeleton = getmetatable(data), Pose = Pose, Mask = getmetatable(mask), Clip = getmetatable(anim),
  joints = function(s) return (s:counts()) end,
  pose = function(s) return s:pose() end,
  blend = core._pose2d_blend, delta = core._pose2d_delta,
  add = Pose.__index.add, copy = Pose.__index.copy,
  complement = complement,
  numbers = 6, get = Pose.__index.get, set = Pose.__index.set, check = check,
  clip_events = function(clip) return require("sinew.dragonbones.compile").events(clip) end,
  root_motion = nil,
}
PoseKind.register(M.kind)

return M
