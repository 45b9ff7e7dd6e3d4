-- A crowd of Foxes: every fox plays the shared Walk and Run clips at its own phase through its own
-- clip cursors, blends them by its own speed, builds its skinning matrices and swings its tail as
-- dynamic bones; all of them in one sinew.group call per frame. Prints the time per frame, one
-- call per object against the group, and checks that both give the same matrices.
-- Then the same crowd driven by animators: a definition compiled once into a plan
-- (sinew.animator.compile), one small animator of it per fox (plan:new()) with its own speed and
-- phase, each evaluated into its own pose, then matrices and tails in one group call. Prints its
-- time per frame and the heap each animator takes, and checks that the animators of one plan give
-- the same poses as animators each compiled on its own.
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

-- whether two crowds' matrices are the same, bit for bit
local function same_matrices(x, y)
  for i = 1, count do
    for j = 1, #skel do
      local a, b = { x[i].mats:get(j) }, { y[i].mats:get(j) }
      for k = 1, 16 do
        if a[k] ~= b[k] then return false end
      end
    end
  end
  return true
end
local same = same_matrices(by_call, by_group)

-- garbage: the least of three rounds (on LuaJIT a trace recorded during a round counts too).
-- Each round warms again after the full collection, which gives back the interpreter's spare
-- call records (the next deep call takes them again once).
local function garbage_of(frame)
  local least = math.huge
  for round = 1, 3 do
    collectgarbage("collect")
    collectgarbage("stop")
    for k = 0, 2 do frame(k * dt) end
    local before = collectgarbage("count")
    for k = round * frames + 1, (round + 1) * frames do frame(k * dt) end
    least = math.min(least, (collectgarbage("count") - before) * 1024)
    collectgarbage("restart")
  end
  return least
end
local garbage = garbage_of(frame_by_group)

print(("%d foxes (%d joints each), %s, sinew.path %s"):format(count, #skel, _VERSION, sinew.path))
print(("one call per object: %.2f ms per frame"):format((t1 - t0) / frames * 1e3))
print(("one group call:      %.2f ms per frame (%d operations, %d parameters)"):format(
  (t2 - t1) / frames * 1e3, #group, group:params()))
print(("the same matrices both ways: %s"):format(same and "yes" or "NO"))
print(("%d more frames made %d bytes of garbage"):format(frames, garbage))

-- ---- the same crowd through animators of one plan ------------------------------------------------

-- The definition: the walk-run blend tree, synced (both clips at one normalised time), weighted by
-- the parameter `speed` (0 walks, 1 runs). Compiled once: the plan holds everything that does not
-- change while the foxes play (the blend space, the clips, the scratch poses an evaluation uses).
local definition = {
  skeleton = skel,
  parameters = { speed = 0 },
  layers = { { states = { move = { motion = { blend = "1d", parameter = "speed", sync = true,
    children = { { 0, "Walk" }, { 1, "Run" } } } } } } },
}
local resources = { clips = fox.clips }
local function compile()
  collectgarbage("collect")
  local kb = collectgarbage("count")
  local plan = sinew.animator.compile(definition, resources)
  collectgarbage("collect")
  return plan, collectgarbage("count") - kb
end
compile() -- (the heap figure is the second's: the first also fills caches the modules keep)
local plan, plan_kb = compile()

-- one fox: its own pose, matrices and tail; its animator comes after (for the heap figure)
local function new_animated_fox(i)
  return { pose = sinew.pose(skel), mats = sinew.matrices(skel),
    tail = sinew.chain { skeleton = skel, root = "b_Tail01_012", end_length = 0.6 },
    phase = (i * 0.618) % 1, speed = 0.5 + 0.5 * math.sin(i) }
end

-- its own speed (a parameter) and phase (a first update of that share of its cycle: the synced
-- cycle is the weighted mean of the two clips' lengths)
local function start(anim, f)
  anim:set("speed", f.speed)
  anim:update(f.phase * ((1 - f.speed) * walk:duration() + f.speed * run:duration()))
end

-- a crowd of `count` foxes, each with the animator `make()` returns (started at its own speed and
-- phase), and the frame that plays them: update + evaluate each into its own pose, then matrices
-- and tails of all in one group call. Also the heap the animators took, KB per fox.
local function animated_crowd(make)
  local list = {}
  for i = 1, count do list[i] = new_animated_fox(i) end
  collectgarbage("collect")
  collectgarbage("collect")
  local before = collectgarbage("count")
  for i = 1, count do list[i].anim = make() end
  collectgarbage("collect")
  collectgarbage("collect")
  local per_fox = (collectgarbage("count") - before) / count
  for i = 1, count do start(list[i].anim, list[i]) end
  local after, none = sinew.group(), {}
  for i = 1, count do
    after:to_model(list[i].pose, list[i].mats)
    after:update(list[i].tail, list[i].pose)
  end
  local function frame()
    for i = 1, count do
      local f = list[i]
      f.anim:update(dt)
      f.anim:evaluate(f.pose)
    end
    after:run(dt, none)
  end
  return list, frame, per_fox, #after
end

local by_anim, frame_by_animator, plan_fox_kb, operations = animated_crowd(function() return plan:new() end)
local t3 = os.clock()
for _ = 1, frames do frame_by_animator() end
local t4 = os.clock()

-- the same crowd with animators each compiled on its own (sinew.animator(def) is compile + new):
-- after the same frames, the same matrices bit for bit
local by_own, frame_by_own, own_fox_kb = animated_crowd(function() return sinew.animator(definition, resources) end)
for _ = 1, frames do frame_by_own() end
local same_mats = same_matrices(by_anim, by_own)
local anim_garbage = garbage_of(frame_by_animator)

print(("animators of one plan: %.2f ms per frame (update + evaluate each, then one group call of %d operations)")
  :format((t4 - t3) / frames * 1e3, operations))
print(("heap: the plan %.0f KB once, %.1f KB per animator of it; %.1f KB per animator compiled on its own")
  :format(plan_kb, plan_fox_kb, own_fox_kb))
print(("the same matrices as animators compiled one by one: %s"):format(same_mats and "yes" or "NO"))
print(("animators: %d more frames made %d bytes of garbage"):format(frames, anim_garbage))
if not (same and same_mats) then os.exit(1) end
