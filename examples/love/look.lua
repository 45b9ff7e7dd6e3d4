-- The Fox's look layer, an aim offset: the Fox has no turning or looking clips, so this builds
-- nine still poses in Lua (sinew.clip, one key per track) that turn its neck and head from the
-- rest pose left, right, up, down and diagonally, and plays them through a 2-D triangulated blend
-- space (Unreal 5's aim offsets) on an additive layer masked to the neck and head, measured from
-- the rest pose. Two float parameters drive it: look_x (yaw, -1 left .. 1 right) and look_y
-- (pitch, -1 down .. 1 up), smoothed. Plain Lua with no LÖVE call: examples/love/main.lua
-- requires it, examples/demo.lua loads it with dofile (this folder is a self-contained LÖVE game,
-- so the file lives here, where both reach it).
--
--   local look = require "look"                    -- or dofile(".../love/look.lua")
--   local layer = look.layer(fox.skeleton)         -- once per skeleton; a definition's layer
--   def.layers[2], def.parameters.look_x, def.parameters.look_y = layer, look.parameter(), look.parameter()
--   anim:set("look_x", x):set("look_y", y)         -- every frame, numbers only
local sinew = require "sinew"

local M = {}

M.mode = "triangulated"
M.parameters = { "look_x", "look_y" }
-- the samples: a 3 x 3 grid of (yaw, pitch), x to the Fox's right, y up
M.points = { { -1, -1 }, { 0, -1 }, { 1, -1 }, { -1, 0 }, { 0, 0 }, { 1, 0 }, { -1, 1 }, { 0, 1 }, { 1, 1 } }
M.names = { "down-left", "down", "down-right", "left", "centre", "right", "up-left", "up", "up-right" }
M.yaw, M.pitch = math.rad(70), math.rad(35) -- the turn at x or y = +-1, neck and head together
M.joints = { { "b_Neck_04", 0.4 }, { "b_Head_05", 0.6 } } -- each joint's share of the turn
M.smoothing = 0.2

-- a smoothed float parameter for look_x or look_y
function M.parameter() return { float = 0, smoothing = M.smoothing } end

-- look_x for a turn of `turn` rad/s (positive to the left, as a heading grows): into the turn,
-- fully from 2 rad/s
function M.follow_turn(turn) return math.max(-1, math.min(1, -turn / 2)) end

local q = sinew.quat

-- the axis (x, y, z) of the model's frame seen from joint j's parent in the rest pose
local function parent_axis(mats, skel, j, x, y, z)
  local p = skel:parent(j)
  if p == 0 then return x, y, z end
  local m = { mats:get(p) } -- columns: the parent's axes in the model's frame (any scale divided out)
  local ax, ay, az = m[1] * x + m[2] * y + m[3] * z, m[5] * x + m[6] * y + m[7] * z, m[9] * x + m[10] * y + m[11] * z
  local len = math.sqrt(ax * ax + ay * ay + az * az)
  return ax / len, ay / len, az / len
end

-- the nine still clips, in the order of M.points: each joint of M.joints turned about the
-- model's vertical (y, the Fox faces +z, so its right is -x) and then its side axis, from rest
function M.clips(skel)
  local rest, mats = sinew.pose(skel), sinew.matrices(skel)
  rest:to_model(mats)
  local clips = {}
  for i, point in ipairs(M.points) do
    local tracks = {}
    for k, joint in ipairs(M.joints) do
      local j = assert(skel:find(joint[1]), joint[1])
      local share = joint[2]
      local ux, uy, uz = parent_axis(mats, skel, j, 0, 1, 0)
      local sx, sy, sz = parent_axis(mats, skel, j, 1, 0, 0)
      local yx, yy, yz, yw = q.from_axis_angle(ux, uy, uz, -point[1] * M.yaw * share)   -- right: clockwise from above
      local px, py, pz, pw = q.from_axis_angle(sx, sy, sz, -point[2] * M.pitch * share) -- up: the snout rises
      local _, _, _, rx, ry, rz, rw = skel:rest(j)
      local tx, ty, tz, tw = q.mul(yx, yy, yz, yw, q.mul(px, py, pz, pw, rx, ry, rz, rw))
      tracks[k] = { joint = j, path = "rotation", times = { 0 }, values = { tx, ty, tz, tw } }
    end
    clips[i] = sinew.clip { skeleton = skel, tracks = tracks }
  end
  return clips
end

-- the layer for an animator definition, with its clips (in the order of M.points) and its space
-- (the same points, for drawing); the reference is the rest pose the clips were turned from
function M.layer(skel)
  local clips = M.clips(skel)
  local children = {}
  for i, point in ipairs(M.points) do children[i] = { point, clips[i] } end
  local mask = sinew.mask(skel, {}, 0):set(M.joints[1][1], 1, true) -- the neck and what hangs from it
  return {
    name = "look", mode = "additive", mask = mask, reference = sinew.pose(skel),
    states = { look = { motion = { blend = M.mode, parameters = M.parameters, children = children } } },
  }, clips
end

-- the blend space of the layer, for pictures and panels (the animator builds its own)
function M.space() return sinew.blendspace { mode = M.mode, points = M.points } end

return M
