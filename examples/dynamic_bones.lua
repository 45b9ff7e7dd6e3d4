-- Dynamic bones with sinew.chain: a tail swinging behind a body that turns left and right.
-- Prints the tail tip over time, then the same motion rendered at 30, 60 and 144 frames per
-- second to show that the result does not depend on the frame rate. Run from a clone:
--   make && lua5.4 examples/dynamic_bones.lua
dofile((arg and arg[0] or ""):gsub("[^/\\]*$", "") .. "clone.lua") -- run from a clone: see clone.lua
local pictures = dofile((arg and arg[0] or ""):gsub("[^/\\]*$", "") .. "pictures.lua")
local sinew = require "sinew"
local quat = sinew.quat

-- A hip joint and a tail of 6 joints, 0.1 apart, pointing backwards (-z) from the hip.
local names, parents, rest = { "hips" }, { 0 }, { { 0, 1, 0, 0, 0, 0, 1, 1, 1, 1 } }
for i = 1, 6 do
  names[i + 1] = "tail" .. i
  parents[i + 1] = i
  rest[i + 1] = { 0, 0, i == 1 and -0.15 or -0.1, 0, 0, 0, 1, 1, 1, 1 }
end
local skel = sinew.skeleton { names = names, parents = parents, rest = rest }

-- The animation: the hips turn +-60 degrees about the vertical axis, once per second.
local function animate(pose, t)
  pose:reset()
  pose:set_rotation("hips", quat.from_axis_angle(0, 1, 0, math.rad(60) * math.sin(2 * math.pi * t)))
end

local function new_tail()
  local chain = sinew.chain {
    skeleton = skel, root = "tail1", end_length = 1,
    damping = 0.05, elasticity = 0.02, stiffness = { 0.3, 0.05 }, -- stiff at the base, soft at the tip
    radius = 0.02,
  }
  -- the thigh the tail must not pass through
  chain:add_collider { shape = "capsule", a = { 0.12, 1.0, -0.1 }, b = { 0.12, 0.55, -0.05 }, radius = 0.07 }
  return chain
end

-- Runs the tail for `seconds` at `fps` frames per second; calls report(t, chain, pose) each frame.
local function run(fps, seconds, report)
  local pose, chain = sinew.pose(skel), new_tail()
  for frame = 1, math.floor(seconds * fps + 0.5) do
    local t = frame / fps
    animate(pose, t)         -- the freshly animated pose, every frame
    chain:update(1 / fps, pose) -- simulates and writes the tail's rotations into it
    if report then report(t, chain, pose) end
  end
  return chain
end

print("time   hips yaw   tail tip (x, y, z)          sideways swing of the tip")
local next_print = 0
run(60, 2, function(t, chain, pose)
  if t + 1e-9 < next_print then return end
  next_print = next_print + 0.1
  local x, y, z = chain:position(#chain) -- the virtual tip after tail6
  local _, _, _, angle = quat.to_axis_angle(pose:get_rotation("hips"))
  local _, qy = pose:get_rotation("hips")
  local bar = {}
  for i = -20, 20 do bar[#bar + 1] = i == 0 and "|" or " " end
  local col = math.max(-20, math.min(20, math.floor(x * 30 + 0.5)))
  bar[col + 21] = "*"
  print(("%4.1fs  %+7.1f deg  (%+.3f, %+.3f, %+.3f)   %s"):format(
    t, math.deg(angle) * (qy < 0 and -1 or 1), x, y, z, table.concat(bar)))
end)

print()
print("the same 2 s at other frame rates (internal step 1/60 s; the output is interpolated):")
local reference = run(144, 2)
for _, fps in ipairs { 30, 60, 144 } do
  local chain = run(fps, 2)
  local worst = 0
  for i = 1, #chain do
    local ax, ay, az = chain:position(i)
    local bx, by, bz = reference:position(i)
    worst = math.max(worst, math.sqrt((ax - bx) ^ 2 + (ay - by) ^ 2 + (az - bz) ^ 2))
  end
  local x, y, z = chain:position(#chain)
  print(("  %3d fps: tip (%+.4f, %+.4f, %+.4f), farthest particle from the 144 fps run %.2e"):format(
    fps, x, y, z, worst))
end

-- With a file name: the tail from above over the first 2 s, one line per 1/15 s, from blue
-- (early) to orange (late), on axes in metres framed to what moved: `lua5.4 examples/dynamic_bones.lua tail.png`
if arg and arg[1] then
  local shots, next_shot = {}, 0
  local lo, hi = { -0.2, -0.2 }, { 0.2, 0.05 } -- x, z: the hips and the thigh at least
  run(60, 2, function(t, chain)
    if t + 1e-9 < next_shot then return end
    next_shot = next_shot + 1 / 15
    local line = {}
    for i = 1, #chain do
      local x, _, z = chain:position(i)
      line[i] = { x, z }
      lo[1], hi[1], lo[2], hi[2] = math.min(lo[1], x), math.max(hi[1], x), math.min(lo[2], z), math.max(hi[2], z)
    end
    shots[#shots + 1] = { t = t, line = line }
  end)
  local P = pictures
  local pad = 0.05 -- metres around what moved
  local xr, zr = { lo[1] - pad, hi[1] + pad }, { lo[2] - pad, hi[2] + pad }
  local scale = math.min(400 / (xr[2] - xr[1]), 300 / (zr[2] - zr[1])) -- pixels per metre, alike on both axes
  local w, h = math.floor((xr[2] - xr[1]) * scale), math.floor((zr[2] - zr[1]) * scale)
  local left, top = P.axis_left(zr[1], zr[2]), P.title_height(true) + 4
  local function colour_at(f) return { 40 + 200 * f, 90 + 60 * f, 220 - 190 * f } end
  local legend = { { "the hips, turning +-60 deg", { 30, 30, 30 }, "dot" },
    { "the thigh (a capsule collider)", { 200, 200, 192 }, "swatch" },
    { "the tail every 1/15 s, its tip", colour_at(0.5), "line" } }
  local lw, lh = P.legend_size(legend)
  local img = P.canvas(math.max(left + w + 16 + lw + 8, 460), top + math.max(h, lh + 50) + P.AXIS_BELOW + 6)
  P.title(img, "a dynamic tail seen from above", "2 s of hips turning left and right once a second")
  local to_x, to_z = P.axes(img, { left, top, w, h }, xr, zr, { x = "x, sideways (m)", y = "z, forward (m)", grid = true })
  img.clip(left, top, w, h)
  do -- the thigh from above: the capsule's segment (x, z) with its radius
    local c = { 0.12, -0.1, 0.12, -0.05, 0.07 }
    for px = math.floor(to_x(c[1] - c[5])), math.ceil(to_x(c[1] + c[5])) do
      for py = math.floor(to_z(math.max(c[2], c[4]) + c[5])), math.ceil(to_z(math.min(c[2], c[4]) - c[5])) do
        local x = xr[1] + (px - left) / (w - 1) * (xr[2] - xr[1])
        local z = zr[1] + (top + h - 1 - py) / (h - 1) * (zr[2] - zr[1])
        local u = math.max(0, math.min(1, (z - c[2]) / (c[4] - c[2])))
        if (x - c[1]) ^ 2 + (z - (c[2] + u * (c[4] - c[2]))) ^ 2 <= c[5] ^ 2 then img.set(px, py, 200, 200, 192) end
      end
    end
  end
  for k, shot in ipairs(shots) do
    local col = colour_at((k - 1) / math.max(1, #shots - 1))
    local line = shot.line
    for i = 2, #line do
      img.line(to_x(line[i - 1][1]), to_z(line[i - 1][2]), to_x(line[i][1]), to_z(line[i][2]), col)
    end
    img.disc(to_x(line[#line][1]), to_z(line[#line][2]), 2, col)
  end
  img.disc(to_x(0), to_z(0), 5, legend[1][2])
  img.clip()
  local lx = left + w + 16
  P.legend(img, lx, top, legend)
  P.colour_bar(img, { lx + 4, top + lh + 24, lw - 8, 10 }, colour_at, { 0, shots[#shots].t }, "time (s)")
  P.save(arg[1], img.png())
  print(("\nwrote %s (the tail from above, %d moments over 2 s)"):format(arg[1], #shots))
end
