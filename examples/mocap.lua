-- Motion capture in sinew (`make demo` runs it after demo.lua): a CMU recording (01_01.bvh, from
-- Debian's assimp-testmodels: the files there are playground jumps and climbs and a boxer, no
-- plain walk) imported with sinew.bvh, its clip sampled every 0.25 s through a forward jump (both
-- feet leave the ground at 5.1 s), and drawn in software: the skeleton from the side, one panel a
-- pose.
--   lua5.4 examples/mocap.lua [OUTDIR] [BVH FILE]
-- Prints what it loaded and writes OUTDIR/mocap.png (default build/demo/).
local root = dofile((arg and arg[0] or ""):gsub("[^/\\]*$", "") .. "clone.lua") -- run from a clone: see clone.lua
local sinew = require "sinew"
local pictures = dofile((arg and arg[0] or ""):gsub("[^/\\]*$", "") .. "pictures.lua")

local outdir = arg and arg[1] or root .. "build/demo"
local path = arg and arg[2] or "/usr/share/assimp/models/BVH/01_01.bvh"

local f = io.open(path, "rb")
if not f then
  print(("mocap.lua: no %s: install Debian's assimp-testmodels (make demo does) for the CMU files"):format(path))
  return
end
f:close()

-- the CMU files are in their converter's units, about 1/0.45 inches: 0.056444 makes metres
local t0 = os.clock()
local mocap = assert(sinew.bvh.load(path, { scale = 0.056444, end_sites = true }))
local skel, clip = mocap.skeleton, mocap.clip
print(("%s: %d joints, %d frames of %.4f s (%.1f s), %d channels a frame, loaded in %.2f s"):format(
  path:match("[^/\\]*$"), #skel, mocap.frames, mocap.frame_time, clip:duration(), mocap.channels, os.clock() - t0))

-- the poses: model-space joint positions every 0.25 s from 4 s on (not looping at the end)
local pose, mats = sinew.pose(skel), sinew.matrices(skel)
local from, step, count = 4.0, 0.25, 8
local shots, hi, half = {}, 0, 0
for k = 0, count - 1 do
  local t = from + k * step
  pose:copy(mocap.rest)
  clip:sample(t, pose, false)
  pose:to_model(mats)
  local joints, rz = {}, select(15, mats:get(1))
  for j = 1, #skel do
    local _, y, z = select(13, mats:get(j))
    joints[j] = { z - rz, y } -- the side view: z forward to the right (from the root), y up
    hi, half = math.max(hi, y), math.max(half, math.abs(z - rz))
  end
  shots[#shots + 1] = { t = t, joints = joints, z = rz }
end
print(("the root from %.2f m to %.2f m forward over %.2f s"):format(shots[1].z, shots[#shots].z, (count - 1) * step))

-- the picture: one panel a pose, the figure centred on its root, the ground at y = 0
local P = pictures
local px_per_m, margin, band = 100, 8, P.LINE + 4
local panel_w = math.ceil(2 * half * px_per_m) + 2 * margin
local panel_h = band + math.ceil(hi * px_per_m) + 2 * margin
local left, top = 8, P.title_height(true) + 4
local legend = { { "bones", { 60, 60, 70 } }, { "joints", { 200, 90, 30 }, "dot" } }
local _, legend_h = P.legend_size(legend)
local img = P.canvas(left + count * (panel_w + 2) + 8, top + panel_h + 8 + legend_h + 6)
P.title(img, ("motion capture: %s, %.2f .. %.2f s"):format(path:match("[^/\\]*$"), from, from + (count - 1) * step),
  "sinew.bvh: the skeleton from the side, z forward to the right; the root's z above each")
for i, shot in ipairs(shots) do
  local ox, oy = left + (i - 1) * (panel_w + 2), top
  local ground = oy + band + margin + hi * px_per_m
  img.box(ox - 1, oy - 1, panel_w + 2, panel_h + 2, P.FRAME)
  img.rect(ox, oy, panel_w, panel_h, { 235, 235, 228 })
  img.rect(ox, oy, panel_w, band, { 215, 215, 206 })
  img.text(ox + 4, oy + 3, ("%.2f s  %.2f m"):format(shot.t, shot.z), P.INK)
  local function at(z, y) return ox + panel_w / 2 + z * px_per_m, ground - y * px_per_m end
  img.line(ox + 2, ground, ox + panel_w - 3, ground, { 150, 150, 140 })
  for j = 1, #skel do
    local p = skel:parent(j)
    if p > 0 then
      local ax, ay = at(shot.joints[p][1], shot.joints[p][2])
      local bx, by = at(shot.joints[j][1], shot.joints[j][2])
      img.line(ax, ay, bx, by, legend[1][2])
    end
  end
  for j = 1, #skel do
    local x, y = at(shot.joints[j][1], shot.joints[j][2])
    img.disc(x, y, 2, legend[2][2])
  end
end
P.legend(img, left, top + panel_h + 8, legend)
local written = P.save(outdir .. "/mocap.png", img.png())
print(("wrote %s (%d poses)"):format(written, #shots))
