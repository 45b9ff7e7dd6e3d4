-- The Fox's inverse kinematics in the LÖVE demo, run by the animator after its layers: its spine,
-- neck and head turn to look at a point (where the mouse points), one aim spread over three
-- joints (sinew.ik.spread), and its four feet stand on the uneven ground (sinew.ik.feet, asking
-- terrain.lua). The point is a target of the definition (model space, smoothed); smoothed
-- parameters fade each in and out. Plain Lua with no LÖVE call.
--
--   local fox_ik = require "fox_ik"
--   fox_ik.add(definition)                     -- parameters gaze_on and feet_on, targets.gaze, ik
--   plan = sinew.animator.compile(definition, { clips = fox.clips, ik = fox_ik.solvers(fox, terrain.height) })
--   anim:set_target("gaze", fox_ik.to_model(f, wx, wy, wz)):set("gaze_on", 1)
--   fox_ik.current = f; anim:evaluate(pose)    -- the fox whose feet the ground callback places
local sinew = require "sinew"

local M = {}

M.spine = { "b_Spine02_03", "b_Neck_04", "b_Head_05" }
M.weights = { 0.2, 0.35, 1 }               -- each joint's share of the turn still needed
M.limits = { math.rad(25), math.rad(45), math.rad(70) }
M.smoothing = 0.12                         -- of the target: the eyes follow the mouse with this lag
M.pelvis = "b_Hip_01"
M.legs = { { "b_LeftUpperArm_09", "b_LeftForeArm_010", "b_LeftHand_011" },
  { "b_RightUpperArm_06", "b_RightForeArm_07", "b_RightHand_08" },
  { "b_LeftLeg01_015", "b_LeftLeg02_016", "b_LeftFoot01_017" },
  { "b_RightLeg01_019", "b_RightLeg02_020", "b_RightFoot01_021" } }
M.scale = 0.01                             -- the demo's model matrix: centimetres to metres
M.current = nil                            -- the fox (x, y, z, heading) being evaluated

-- the model's axis (x, y, z) seen in joint j's frame, from model matrices `mats` (unit)
local function joint_axis(mats, j, x, y, z)
  local m = { mats:get(j) }
  local ax, ay, az = m[1] * x + m[2] * y + m[3] * z, m[5] * x + m[6] * y + m[7] * z, m[9] * x + m[10] * y + m[11] * z
  local l = math.sqrt(ax * ax + ay * ay + az * az)
  return { ax / l, ay / l, az / l }
end

-- the feet's ground callback: model-space point of M.current -> the ground's height along the
-- model's up (model units) and its normal in the model's frame, from `height(x, z)` (world metres)
local function ground_of(height)
  local cos, sin = math.cos, math.sin
  return function(px, _, pz)
    local f, k = M.current, M.scale
    local c, s = cos(f.heading), sin(f.heading)
    local h, nx, ny, nz = height(f.x + k * (c * px + s * pz), f.z + k * (c * pz - s * px))
    return (h - f.y) / k, c * nx - s * nz, ny, s * nx + c * nz
  end
end

-- the solvers the definition names: `look`, the head's forward (the model's +z at rest) and up
-- (+y) as the rest pose holds them; `feet`, on the ground `height(x, z)` gives (world metres:
-- height and unit normal)
function M.solvers(fox, height)
  local skel = fox.skeleton
  local mats = sinew.matrices(skel)
  sinew.pose(skel):copy(fox.rest):to_model(mats)
  local head = skel:find(M.spine[#M.spine])
  return { look = sinew.ik.spread { skeleton = skel, joints = M.spine, weights = M.weights, limit = M.limits,
      forward = joint_axis(mats, head, 0, 0, 1), up = joint_axis(mats, head, 0, 1, 0) },
    feet = sinew.ik.feet { skeleton = skel, pelvis = M.pelvis, legs = M.legs, ground = ground_of(height),
      smoothing = 0.08 } }
end

-- adds the IK to an animator definition: the parameters gaze_on and feet_on (0 .. 1, smoothed),
-- the target gaze and the ik entries (the base layer's first: the look turns the spine the feet leave)
function M.add(def)
  def.parameters.gaze_on = { float = 0, smoothing = 0.3 }
  def.parameters.feet_on = { float = 1, smoothing = 0.3 }
  def.targets = { gaze = { 0, 60, 200, smoothing = M.smoothing } }
  -- the feet in the base layer's list: they fade out as a jump fades in, and back as it lands
  def.layers[1].ik = { { solver = "feet", weight = "feet_on", states = { "idle", "move" } } }
  def.ik = { { solver = "look", target = "gaze", weight = "gaze_on" } }
end

-- a world point in the model space of fox `f` (placed at f.x, f.y, f.z, turned by f.heading about
-- y, scaled by M.scale: the demo's model matrix)
function M.to_model(f, x, y, z)
  local dx, dz, k = x - f.x, z - f.z, M.scale
  local c, s = math.cos(f.heading), math.sin(f.heading)
  return (c * dx - s * dz) / k, (y - f.y) / k, (s * dx + c * dz) / k
end

return M
