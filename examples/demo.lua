-- sinew's main example (`make demo`): one small creature, the whole pipeline, every frame.
--
--   speed  -> a 1-D blend space -> weights of idle, walk and run
--   clips  -> sampled into three poses -> blended by those weights
--   tail   -> a dynamic-bone chain swinging behind the turning body
--   pose   -> model-space matrices, ready for a shader
--
-- It prints a line every quarter second and, at the end, the garbage made per frame (zero).
dofile((arg and arg[0] or ""):gsub("[^/\\]*$", "") .. "clone.lua") -- run from a clone: see clone.lua
local sinew = require "sinew"
local quat = sinew.quat

-- A skeleton: body, spine, head, and a four-joint tail pointing backwards (-z).
local names = { "body", "spine", "head", "tail1", "tail2", "tail3", "tail4" }
local parents = { 0, 1, 2, 1, 4, 5, 6 }
local rest = {
  { 0, 0.5, 0,     0, 0, 0, 1, 1, 1, 1 },
  { 0, 0.1, 0.2,   0, 0, 0, 1, 1, 1, 1 },
  { 0, 0.15, 0.2,  0, 0, 0, 1, 1, 1, 1 },
  { 0, 0.05, -0.25, 0, 0, 0, 1, 1, 1, 1 },
  { 0, 0, -0.15,   0, 0, 0, 1, 1, 1, 1 },
  { 0, 0, -0.15,   0, 0, 0, 1, 1, 1, 1 },
  { 0, 0, -0.15,   0, 0, 0, 1, 1, 1, 1 },
}
local skel = sinew.skeleton{ names = names, parents = parents, rest = rest }

-- Three looping clips on body height and spine rotation: idle breathes, walk bobs, run bounds.
local function rotation_keys(n, duration, amplitude, axis)
  local times, values = {}, {}
  for k = 0, n do
    local t = duration * k / n
    times[#times + 1] = t
    local x, y, z, w = quat.from_axis_angle(axis[1], axis[2], axis[3], amplitude * math.sin(2 * math.pi * k / n))
    values[#values + 1], values[#values + 2], values[#values + 3], values[#values + 4] = x, y, z, w
  end
  return times, values
end

local function height_keys(n, duration, base, bob)
  local times, values = {}, {}
  for k = 0, n do
    times[#times + 1] = duration * k / n
    values[#values + 1], values[#values + 2], values[#values + 3] = 0, base + bob * math.abs(math.sin(math.pi * k / n)), 0
  end
  return times, values
end

local function make_clip(duration, bob, sway, lean)
  local ht, hv = height_keys(8, duration, 0.5, bob)
  local st, sv = rotation_keys(8, duration, sway, { 0, 1, 0 })
  local lt, lv = rotation_keys(8, duration, lean, { 1, 0, 0 })
  return sinew.clip{ skeleton = skel, duration = duration, tracks = {
    { joint = "body", path = "translation", times = ht, values = hv },
    { joint = "spine", path = "rotation", times = st, values = sv },
    { joint = "head", path = "rotation", times = lt, values = lv },
  } }
end

local clips = { make_clip(2.0, 0.01, 0.03, 0.05), make_clip(1.0, 0.05, 0.15, 0.1), make_clip(0.6, 0.15, 0.25, 0.2) }
local speeds = { 0, 1.5, 4 } -- the blend space's samples: idle, walk, run (metres per second)
local space = sinew.blendspace{ mode = "1d", points = speeds }

local poses = { sinew.pose(skel), sinew.pose(skel), sinew.pose(skel) }
local out, mats = sinew.pose(skel), sinew.matrices(skel)
local weights = {}

local tail = sinew.chain{ skeleton = skel, root = "tail1", end_length = 0.5,
                          damping = 0.2, elasticity = 0.05, stiffness = 0.2, radius = 0.03 }
local root_matrix = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }
local tail_tip = #tail

-- One frame: everything above, with no table made.
local x, z, heading = 0, 0, 0
local function frame(t, dt)
  local speed = 4 * math.max(0, math.sin(math.pi * t / 6))   -- 0 -> 4 -> 0 m/s over 6 s
  heading = heading + dt * 0.8 * math.sin(t)                 -- wandering left and right
  x, z = x + math.sin(heading) * speed * dt, z + math.cos(heading) * speed * dt
  space:weights(speed, weights)
  for i = 1, 3 do clips[i]:sample(t, poses[i]) end
  sinew.blend(out, poses, weights)
  local c, s = math.cos(heading), math.sin(heading)          -- body yaw about +y, column-major
  root_matrix[1], root_matrix[3], root_matrix[9], root_matrix[11] = c, -s, s, c
  root_matrix[13], root_matrix[15] = x, z
  tail:update(dt, out, root_matrix)
  out:to_model(mats)
  return speed
end

local dt = 1 / 60
print(" time  speed   idle  walk   run   heading   tail tip behind the body (x, y, z)")
for f = 1, 6 * 60 do
  local t = f * dt
  local speed = frame(t, dt)
  if f % 15 == 0 then
    local tx, ty, tz = tail:position(tail_tip)
    -- the tip relative to the body, in the body's own frame: sideways, height, behind
    local dx, dz = tx - x, tz - z
    local c, s = math.cos(heading), math.sin(heading)
    print(("%5.2f  %5.2f   %4.2f  %4.2f  %4.2f  %+7.1f deg  (%+.3f, %+.3f, %+.3f)"):format(
      t, speed, weights[1], weights[2], weights[3], math.deg(heading), c * dx - s * dz, ty, s * dx + c * dz))
  end
end

-- measured on a second run of the same loop, the collector stopped for both: LuaJIT's compiler
-- allocates while it compiles the first, and a collection gives back the interpreter's spare
-- call records, which the first run takes again
local function more_frames(start) for f = 1, 600 do frame(start + f * dt, dt) end end
collectgarbage("collect")
collectgarbage("stop")
more_frames(6)
local before = collectgarbage("count")
more_frames(16)
local bytes = (collectgarbage("count") - before) * 1024
collectgarbage("restart")
print(("\n600 more frames made %.0f bytes of garbage (%.1f per frame)"):format(bytes, bytes / 600))
