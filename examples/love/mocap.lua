-- A motion-capture figure beside the Fox (m shows or hides it): a CMU recording of Debian's
-- assimp-testmodels (01_01.bvh: playground jumps) imported with sinew.bvh, its clip looping,
-- drawn as a stick figure through the demo's projection. Nothing when the file is not there.
local M = {}

M.PATH = "/usr/share/assimp/models/BVH/01_01.bvh"
--- Where the recording's ground origin stands in the scene (metres), and its turn about y.
M.X, M.Z, M.HEADING = -2.0, -0.7, -0.84 -- (beside the Fox, jumping away from the first camera)

--- The figure, or nil and why not: its recording, pose, matrices and clock.
function M.load(sinew)
  local f = io.open(M.PATH, "rb")
  if not f then return nil, M.PATH .. " is missing: install Debian's assimp-testmodels" end
  f:close()
  -- the CMU files are in their converter's units, about 1/0.45 inches: 0.056444 makes metres
  local mocap, err = sinew.bvh.load(M.PATH, { scale = 0.056444, end_sites = true })
  if not mocap then return nil, err end
  local s = { mocap = mocap, pose = sinew.pose(mocap.skeleton), mats = sinew.matrices(mocap.skeleton), t = 0,
    pts = {} }
  for j = 1, #mocap.skeleton do s.pts[j] = { 0, 0 } end
  return s
end

--- Advances the figure's clock by dt and samples its pose (no garbage).
function M.step(s, dt)
  local clip = s.mocap.clip
  s.t = (s.t + dt) % clip:duration()
  s.pose:copy(s.mocap.rest)
  clip:sample(s.t, s.pose)
  s.pose:to_model(s.mats)
end

--- Draws the figure with `project(x, y, z) -> sx, sy` (nil behind the camera) on LÖVE's graphics.
function M.draw(s, project, lg)
  local skel, pts, mats = s.mocap.skeleton, s.pts, s.mats
  local c, sn = math.cos(M.HEADING), math.sin(M.HEADING)
  for j = 1, #skel do
    local x, y, z = select(13, mats:get(j))
    local px, py = project(M.X + c * x + sn * z, y, M.Z - sn * x + c * z)
    pts[j][1], pts[j][2] = px, py
  end
  lg.setColor(0.15, 0.25, 0.55)
  lg.setLineWidth(2)
  for j = 1, #skel do
    local p = skel:parent(j)
    if p > 0 and pts[p][1] and pts[j][1] then lg.line(pts[p][1], pts[p][2], pts[j][1], pts[j][2]) end
  end
  lg.setLineWidth(1)
  lg.setColor(0.9, 0.45, 0.1)
  for j = 1, #skel do
    if pts[j][1] then lg.circle("fill", pts[j][1], pts[j][2], 2.5) end
  end
end

return M
