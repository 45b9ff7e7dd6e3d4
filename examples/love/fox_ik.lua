-- The Fox's inverse kinematics in the LÖVE demo: its spine, neck and head turn to look at a point
-- (where the mouse points), one aim spread over three joints (sinew.ik.spread) that the animator
-- runs after its layers. The point is a target of the definition (model space, smoothed), and a
-- smoothed parameter fades the look in and out. Plain Lua with no LÖVE call.
--
--   local fox_ik = require "fox_ik"
--   fox_ik.add(definition)                            -- parameters.gaze_on, targets.gaze, ik
--   plan = sinew.animator.compile(definition, { clips = fox.clips, ik = fox_ik.solvers(fox) })
--   anim:set_target("gaze", fox_ik.to_model(f, wx, wy, wz)):set("gaze_on", 1)
local sinew = require "sinew"

local M = {}

M.spine = { "b_Spine02_03", "b_Neck_04", "b_Head_05" }
M.weights = { 0.2, 0.35, 1 }               -- each joint's share of the turn still needed
M.limits = { math.rad(25), math.rad(45), math.rad(70) }
M.smoothing = 0.12                         -- of the target: the eyes follow the mouse with this lag

-- the model's axis (x, y, z) seen in joint j's frame, from model matrices `mats` (unit)
local function joint_axis(mats, j, x, y, z)
  local m = { mats:get(j) }
  local ax, ay, az = m[1] * x + m[2] * y + m[3] * z, m[5] * x + m[6] * y + m[7] * z, m[9] * x + m[10] * y + m[11] * z
  local l = math.sqrt(ax * ax + ay * ay + az * az)
  return { ax / l, ay / l, az / l }
end

-- the solvers the definition names: `look`, the head's forward (the model's +z at rest) and up
-- (+y) as the rest pose holds them
function M.solvers(fox)
  local skel = fox.skeleton
  local mats = sinew.matrices(skel)
  sinew.pose(skel):copy(fox.rest):to_model(mats)
  local head = skel:find(M.spine[#M.spine])
  return { look = sinew.ik.spread { skeleton = skel, joints = M.spine, weights = M.weights, limit = M.limits,
    forward = joint_axis(mats, head, 0, 0, 1), up = joint_axis(mats, head, 0, 1, 0) } }
end

-- adds the look to an animator definition: the parameter gaze_on (0 .. 1, smoothed), the target
-- gaze and the ik entry
function M.add(def)
  def.parameters.gaze_on = { float = 0, smoothing = 0.3 }
  def.targets = { gaze = { 0, 60, 200, smoothing = M.smoothing } }
  def.ik = { { solver = "look", target = "gaze", weight = "gaze_on" } }
end

-- a world point in the model space of fox `f` (placed at f.x, 0, f.z, turned by f.heading about
-- y, scaled by `scale`: the demo's model matrix)
function M.to_model(f, x, y, z, scale)
  scale = scale or 0.01
  local dx, dz = x - f.x, z - f.z
  local c, s = math.cos(f.heading), math.sin(f.heading)
  return (c * dx - s * dz) / scale, y / scale, (s * dx + c * dz) / scale
end

return M
