-- A crowd of Foxes: every fox plays the shared Walk and Run clips at its own phase through its own
-- clip cursors, blends them by its own speed, builds its skinning matrices and swings its tail as
-- dynamic bones; all of them in one sinew.group call per frame. Prints the time per frame, one
-- call per object against the group, and checks that both give the same matrices.
-- Run from a clone:
--   make && lua5.4 examples/crowd.lua [FOXES]      (or make LUA=luajit && luajit examples/crowd.lua)
local root = dofile((arg and arg[0] or ""):gsub("[^/\\]*$", "") .. "clone.lua") -- run from a clone: see clone.lua
local sinew = require "sinew"

local count = tonumber(arg and arg[1]) or 200
local fox = assert(sinew.gltf.load(root .. "assets/fox/glTF-Binary/Fox.glb"))
local skel, walk, run = fox.skeleton, fox.clips.Walk, fox.clips.Run

-- one fox: its cursors into the shared clips, its poses, matrices and tail
local function new_fox(i)
  local f = {
    walk = walk:cursor(), run = run:cursor(),
    a = sinew.pose(skel), b = sinew.pose(skel), pose = sinew.pose(skel), mats = sinew.matrices(skel),
    tail = sinew.chain { skeleton = skel, root = "b_Tail01_012", end_length = 0.6 },
    phase = (i * 0.618) % 1, speed = 0.5 + 0.5 * math.sin(i),
  }
  f.layers, f.weights = { f.a, f.b }, { 0, 0 }
  return f
end

-- the same crowd twice: frame by frame with one call per object, and with one group call
local by_call, by_group = {}, {}
for i = 1, count do by_call[i], by_group[i] = new_fox(i), new_fox(i) end

local group, params = sinew.group(), {}
for _, f in ipairs(by_group) do
  f.t_walk = group:sample(f.walk, f.a) -- each returns where its numbers go in `params`
  f.t_run = group:sample(f.run, f.b)
  f.w = group:blend(f.pose, f.layers)
  group:to_model(f.pose, f.mats)
  group:update(f.tail, f.pose)
end

-- the walk and run cycles kept in step: one phase, each clip at its own length
local function times(f, t)
  local cycle = t * (1 + f.speed) + f.phase
  return cycle * walk:duration(), cycle * run:duration(), 1 - f.speed, f.speed
end

local dt = 1 / 60
local function frame_by_call(t)
  for _, f in ipairs(by_call) do
    local tw, tr, ww, wr = times(f, t)
    f.walk:sample(tw, f.a)
    f.run:sample(tr, f.b)
    f.weights[1], f.weights[2] = ww, wr
    sinew.blend(f.pose, f.layers, f.weights)
    f.pose:to_model(f.mats)
    f.tail:update(dt, f.pose)
  end
end

local function frame_by_group(t)
  for _, f in ipairs(by_group) do
    params[f.t_walk], params[f.t_run], params[f.w], params[f.w + 1] = times(f, t)
  end
  group:run(dt, params)
end

local frames = 120
local t0 = os.clock()
for k = 1, frames do frame_by_call(k * dt) end
local t1 = os.clock()
for k = 1, frames do frame_by_group(k * dt) end
local t2 = os.clock()

local same = true
for i = 1, count do
  for j = 1, #skel do
    local a, b = { by_call[i].mats:get(j) }, { by_group[i].mats:get(j) }
    for k = 1, 16 do same = same and a[k] == b[k] end
  end
end

-- garbage: the least of three rounds (on LuaJIT a trace recorded during a round counts too).
-- Each round warms again after the full collection, which gives back the interpreter's spare
-- call records (the next deep call takes them again once).
local garbage = math.huge
for round = 1, 3 do
  collectgarbage("collect")
  collectgarbage("stop")
  frame_by_group(0)
  local before = collectgarbage("count")
  for k = round * frames + 1, (round + 1) * frames do frame_by_group(k * dt) end
  garbage = math.min(garbage, (collectgarbage("count") - before) * 1024)
  collectgarbage("restart")
end

print(("%d foxes (%d joints each), %s, sinew.path %s"):format(count, #skel, _VERSION, sinew.path))
print(("one call per object: %.2f ms per frame"):format((t1 - t0) / frames * 1e3))
print(("one group call:      %.2f ms per frame (%d operations, %d parameters)"):format(
  (t2 - t1) / frames * 1e3, #group, group:params()))
print(("the same matrices both ways: %s"):format(same and "yes" or "NO"))
print(("%d more frames made %d bytes of garbage"):format(frames, garbage))
if not same then os.exit(1) end
