-- Renders the weights of a blend space as a PNG, like the influence preview of Unity's blend-tree
-- inspector: on the left every sample's colour mixed by its weight, with the samples numbered (and
-- the triangles of the triangulated modes) on axes; on the right one small panel per sample showing
-- its own weight (black 0, full colour 1), that sample ringed, labelled in its colour. A 1-D space
-- draws one weight curve per sample instead.
--
--   lua examples/weightmap.lua MODE OUT.png [SIZE]    MODE: 1d, simple_directional, freeform_cartesian,
--                                                     freeform_directional, triangulated, grid, idw
--   lua examples/weightmap.lua all DIR [SIZE]         one DIR/weightmap_<mode>.png per 2-D mode (DIR
--                                                     is made when missing)
--
-- Runs on Lua 5.1-5.4 and LuaJIT with nothing but sinew: the PNG (stored deflate blocks, CRC-32,
-- Adler-32) is written by examples/pictures.lua with arithmetic only (Lua 5.1 has no bit operators).
dofile((arg and arg[0] or ""):gsub("[^/\\]*$", "") .. "clone.lua") -- run from a clone: see clone.lua
local sinew = require "sinew"

local pictures = dofile((arg and arg[0] or ""):gsub("[^/\\]*$", "") .. "pictures.lua")

-- ---- sample layouts that suit each mode ----

local scattered = { { 0, 0 }, { 1, 0.1 }, { 0.2, 1 }, { -0.9, 0.3 }, { -0.1, -1 }, { 0.8, 0.9 }, { -0.7, -0.8 },
  { 0.9, -0.7 }, { -0.5, 1.1 } }
local ring = { { 0, 0 } } -- a centre and eight directions, walk (1) and run (2) alternating
for k = 0, 7 do
  local r, a = k % 2 == 0 and 1 or 2, k * math.pi / 4
  ring[#ring + 1] = { r * math.cos(a), r * math.sin(a) }
end
local speeds = { { 0, 0 } } -- a centre, walk and run in four directions
for k = 0, 3 do
  for _, r in ipairs { 1, 2 } do speeds[#speeds + 1] = { r * math.cos(k * math.pi / 2), r * math.sin(k * math.pi / 2) } end
end

-- the axes: the layouts above read as velocities (a strafe set: sideways and forward speed)
local velocity = { x = "sideways speed (m/s)", y = "forward speed (m/s)" }
local layouts = {
  ["1d"] = { def = { points = { -1, 0, 0.5, 2 } }, x = "turn rate (rad/s)", note = "4 samples" },
  simple_directional = { def = { points = ring }, note = "walk (1 m/s) and run (2 m/s), 8 directions" },
  freeform_cartesian = { def = { points = scattered }, note = "9 scattered samples" },
  freeform_directional = { def = { points = speeds }, note = "walk (1 m/s) and run (2 m/s), 4 directions" },
  triangulated = { def = { points = scattered }, note = "9 scattered samples" },
  grid = { def = { points = scattered, grid = { 5, 5 } }, note = "9 scattered samples, a 5 x 5 grid" },
  idw = { def = { points = scattered }, note = "9 scattered samples" },
}
local two_d = { "simple_directional", "freeform_cartesian", "freeform_directional", "triangulated", "grid", "idw" }

local function write(mode, file, size)
  size = math.floor(size)
  local layout, def = layouts[mode], { mode = mode }
  for k, v in pairs(layout.def) do def[k] = v end
  pictures.save(file, pictures.weightmap(sinew.blendspace(def), size,
    { title = ("blend space mode '%s'"):format(mode), subtitle = layout.note, x = layout.x or velocity.x, y = velocity.y }))
  print(("wrote %s (%s)"):format(file, mode))
end

local mode, target, size = arg[1], arg[2], tonumber(arg[3] or "256")
if not size or size < 64 or size > 4096 then
  io.stderr:write(("weightmap.lua: SIZE must be a number of pixels from 64 to 4096, got '%s'\n"):format(arg[3]))
  os.exit(1)
elseif mode == "all" and target then -- (the folder is made when missing)
  for _, m in ipairs(two_d) do write(m, target .. "/weightmap_" .. m .. ".png", size) end
elseif mode and layouts[mode] and target then
  write(mode, target, size)
else
  io.stderr:write("usage: lua examples/weightmap.lua MODE|all OUT.png|DIR [SIZE]\n",
    "modes: 1d, simple_directional, freeform_cartesian, freeform_directional, triangulated, grid, idw\n")
  os.exit(1)
end
