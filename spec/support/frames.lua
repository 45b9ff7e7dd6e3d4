-- A forward kinematics written in doubles (pose:get and sinew.quat), for the IK specs that measure
-- a solver's result in model space independently of the core's own pose:to_model.
local quat = require("sinew").quat

local M = {}

--- The model frame of joint j of `pose`: position, rotation (x, y, z, w) and scale (uniform: the
-- product of the path's x scales).
function M.model(pose, j)
  local skel = pose:skeleton()
  local px, py, pz, qx, qy, qz, qw, s = 0, 0, 0, 0, 0, 0, 1, 1
  local path = {}
  while j ~= 0 do
    path[#path + 1] = j
    j = skel:parent(j)
  end
  for i = #path, 1, -1 do
    local tx, ty, tz, rx, ry, rz, rw, sx = pose:get(path[i])
    local vx, vy, vz = quat.rotate(qx, qy, qz, qw, s * tx, s * ty, s * tz)
    px, py, pz = px + vx, py + vy, pz + vz
    qx, qy, qz, qw = quat.mul(qx, qy, qz, qw, rx, ry, rz, rw)
    s = s * sx
  end
  return px, py, pz, qx, qy, qz, qw, s
end

return M
