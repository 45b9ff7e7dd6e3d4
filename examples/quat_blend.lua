-- Blending rotations with sinew.quat: slerp along the shortest arc, and four ways to blend
-- several weighted rotations. Run with `make demo`.
dofile((arg and arg[0] or ""):gsub("[^/\\]*$", "") .. "clone.lua") -- run from a clone: see clone.lua
local sinew = require "sinew"
local quat = sinew.quat

local deg = math.pi / 180

local function show(label, x, y, z, w)
  local ax, ay, az, angle = quat.to_axis_angle(x, y, z, w)
  print(("%-28s %7.2f deg about (%6.3f, %6.3f, %6.3f)"):format(label, angle / deg, ax, ay, az))
end

-- A head turning: 0 to 90 degrees about the up axis.
local ax, ay, az, aw = quat.identity()
local bx, by, bz, bw = quat.from_axis_angle(0, 1, 0, 90 * deg)
for _, t in ipairs { 0, 0.25, 0.5, 0.75, 1 } do
  show(("slerp t = %.2f"):format(t), quat.slerp(ax, ay, az, aw, bx, by, bz, bw, t))
end

-- Four aim poses (look left, right, up, down) blended with weights from a 2-D input.
local look = {}
local function put(i, x, y, z, w) look[4 * i - 3], look[4 * i - 2], look[4 * i - 1], look[4 * i] = x, y, z, w end
put(1, quat.from_euler(0, 40 * deg, 0))   -- left
put(2, quat.from_euler(0, -40 * deg, 0))  -- right
put(3, quat.from_euler(-30 * deg, 0, 0))  -- up
put(4, quat.from_euler(30 * deg, 0, 0))   -- down
local weights = { 0.5, 0.0, 0.3, 0.2 }
print()
for _, method in ipairs { "nlerp", "karcher", "markley", "power" } do
  show("blend " .. method, quat.blend(look, weights, method))
end

-- Per-frame use makes no garbage: everything is plain numbers. (Measured on a second run of the
-- loop with the collector stopped: LuaJIT's compiler allocates while it compiles the first.)
local function blends() for _ = 1, 10000 do quat.blend(look, weights) end end
collectgarbage("collect")
collectgarbage("stop")
blends()
local before = collectgarbage("count")
blends()
collectgarbage("restart")
print(("\n10000 blends made %.0f bytes of garbage"):format((collectgarbage("count") - before) * 1024))
