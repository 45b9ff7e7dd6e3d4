-- The crowd figure: 1000 characters of 24 joints, each sampling two clips through its own
-- cursors (one clip whose tracks share key times, one whose tracks have their own), blending
-- them, building the model-space matrices and updating a 3-joint tail chain: ms per frame with
-- one call per object, with one sinew.group call, and against the same work as a C loop over the
-- core (bench/c/bench_crowd.c, run here for the ratio; the same crowd).
local sinew = require "sinew"
local bench = require "common"

local CHARS, JOINTS, KEYS = 1000, 24, 31
local sin, cos, sqrt = math.sin, math.cos, math.sqrt

local function parent_of(j) return j == 0 and -1 or (j < 21 and math.floor((j - 1) / 2) or j - 1) end

local names, parents = {}, {}
for j = 0, JOINTS - 1 do names[j + 1], parents[j + 1] = "j" .. (j + 1), parent_of(j) + 1 end
local skel = sinew.skeleton { names = names, parents = parents }

local function key_time(i, k, own)
  local t = k / (KEYS - 1)
  if own and k > 0 and k < KEYS - 1 then t = t + 0.3 * sin(7 * i + 3 * k) / (KEYS - 1) end
  return t
end

local function make_clip(own)
  local tracks, n = {}, 0
  for j = 0, JOINTS - 1 do
    for p = own and 1 or 0, 1 do
      local times, values = {}, {}
      for k = 0, KEYS - 1 do
        times[k + 1] = key_time(n, k, own)
        if p == 0 then
          values[#values + 1], values[#values + 2], values[#values + 3] = 0.1 * j, 0.2 + 0.01 * sin(k + j), 0
        else
          local a, b = 0.4 * sin(0.3 * n + 0.2 * k), 0.3 * cos(0.5 * n + 0.1 * k)
          local l = sqrt(a * a + b * b + 1)
          values[#values + 1], values[#values + 2], values[#values + 3], values[#values + 4] = a / l, b / l, 0, 1 / l
        end
      end
      tracks[#tracks + 1] = { joint = j + 1, path = p == 0 and "translation" or "rotation", times = times, values = values }
      n = n + 1
    end
  end
  return sinew.clip { skeleton = skel, duration = 1, tracks = tracks }
end

local shared, own = make_clip(false), make_clip(true)
local crowd = {}
for i = 0, CHARS - 1 do
  local c = { ca = shared:cursor(), cb = own:cursor(), a = sinew.pose(skel), b = sinew.pose(skel),
              out = sinew.pose(skel), mats = sinew.matrices(skel), tail = sinew.chain { skeleton = skel, root = 22 },
              phase = (i * 0.618) % 1, w = 0.3 + 0.04 * (i % 10) }
  c.layers, c.weights = { c.a, c.b }, { c.w, 1 - c.w }
  crowd[i + 1] = c
end

local blend = sinew.blend
local function frame_by_object(t)
  for i = 1, CHARS do
    local c = crowd[i]
    c.ca:sample(t + c.phase, c.a)
    c.cb:sample(1.1 * t + c.phase, c.b)
    blend(c.out, c.layers, c.weights)
    c.out:to_model(c.mats)
    c.tail:update(1 / 60, c.out)
  end
end

-- the same without cursors: every character samples the clips' own place, a jump each time
local function frame_without_cursors(t)
  for i = 1, CHARS do
    local c = crowd[i]
    shared:sample(t + c.phase, c.a)
    own:sample(1.1 * t + c.phase, c.b)
    blend(c.out, c.layers, c.weights)
    c.out:to_model(c.mats)
    c.tail:update(1 / 60, c.out)
  end
end

local group, params, slots = sinew.group(), {}, {}
for i = 1, CHARS do
  local c = crowd[i]
  slots[i] = { group:sample(c.ca, c.a), group:sample(c.cb, c.b), group:blend(c.out, c.layers) }
  group:to_model(c.out, c.mats)
  group:update(c.tail, c.out)
end
for i = 1, group:params() do params[i] = 0 end
local function frame_by_group(t)
  for i = 1, CHARS do
    local c, s = crowd[i], slots[i]
    params[s[1]], params[s[2]], params[s[3]], params[s[3] + 1] = t + c.phase, 1.1 * t + c.phase, c.w, 1 - c.w
  end
  group:run(1 / 60, params)
end

-- ms per frame: the best of 3 rounds of 60 frames (at 60 frames a second) after a round of warm-up
local function ms_per_frame(frame)
  return bench.ms_per_frame(function(f) frame(f / 60) end, 60, 3)
end

-- The floor runs in its own process (build/lua5.4/bench/bench_crowd), so the two are measured in
-- turn, three times each, and the least of each kept: on a shared machine a single pair moved the
-- ratio by 0.5 either way.
local function c_floor() return bench.c_figure("bench_crowd", "ms/frame") end
local without = ms_per_frame(frame_without_cursors)
local by_object, by_group, floor = math.huge, math.huge, math.huge
for _ = 1, 3 do
  local ms = c_floor()
  if ms then floor = math.min(floor, ms) end
  by_object = math.min(by_object, ms_per_frame(frame_by_object))
  by_group = math.min(by_group, ms_per_frame(frame_by_group))
end
bench.report("crowd, one call per object, without cursors", without, "ms/frame")
bench.report("crowd 1000 x 24 joints, one call per object (" .. sinew.path .. ")", by_object, "ms/frame")
bench.report("crowd 1000 x 24 joints, one sinew.group call", by_group, "ms/frame")
bench.report("crowd, garbage per frame (group)", bench.garbage_per_call(function() frame_by_group(0.5) end, 20),
  "bytes/frame")
if floor < math.huge then
  bench.report("crowd, the C loop over the core (the floor), run now", floor, "ms/frame")
  bench.report("crowd, one call per object / the C floor", by_object / floor, "x", 2)
  bench.report("crowd, the group call / the C floor (target 1.3 or less)", by_group / floor, "x", 2)
end
