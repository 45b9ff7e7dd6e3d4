-- Figures of issue 22, the animator at crowd scale: 1000 Fox animators of bench/animator.lua's
-- definition (base layer idle / a synced walk-run blend tree / jump, an additive look layer under
-- an upper-body mask), each at its own speed and evaluated into its own pose, against the floor:
-- the same C-core calls made directly from Lua for 1000 characters with their own cursors, poses
-- and times. Also the Lua heap each animator holds and the time to make one. When the animator has
-- plans (`sinew.animator.compile`), the 1000 are instances of one plan; before that, 1000
-- `sinew.animator(def, resources)`. The issue's targets: update + evaluate at most 1.5x the floor
-- on LuaJIT and 2x on Lua 5.4, at most 8 KB per instance, at most 20 us to make one from a plan.
local sinew = require "sinew"
local bench = require "common"

local CHARS, dt = 1000, 1 / 60

local fox = assert(sinew.gltf.load("assets/fox/glTF-Binary/Fox.glb", { meshes = false }))
local skel, clips = fox.skeleton, fox.clips
local upper = sinew.mask(skel, {}, 0):set("b_Spine02_03", 1, true)

-- character i's speed (0.6 .. 1.9, so every one stays in the move state) and phase (0 .. 1)
local function phase_of(i) return (i * 0.618) % 1 end
local function speed_of(i) return 0.6 + 1.3 * phase_of(i) end

local definition = bench.fox_definition(skel, upper) -- (bench/animator.lua's)
local resources = { clips = clips }

-- the floor: bench/animator.lua's floor per character, each with its own cursors, poses and times
local space = sinew.blendspace { mode = "1d", points = { 0.5, 2.0 } }
local walk, run, survey = clips.Walk, clips.Run, clips.Survey
local blend, delta = sinew.blend, sinew.delta
local first = sinew.pose(skel)
survey:sample(0, first, false)
local floor_crowd = {}
for i = 1, CHARS do
  local c = { walk = walk:cursor(), run = run:cursor(), survey = survey:cursor(),
              a = sinew.pose(skel), b = sinew.pose(skel), add = sinew.pose(skel), out = sinew.pose(skel),
              w = { 0, 0 }, speed = speed_of(i), norm = phase_of(i), t = 3 * phase_of(i) }
  c.layers = { c.a, c.b }
  floor_crowd[i] = c
end
-- (the clips' durations read once: the floor makes only the per-frame core calls, a stricter
-- floor than bench/animator.lua's, which reads them every frame)
local walk_d, run_d = walk:duration(), run:duration()
local function floor_frame()
  for i = 1, CHARS do
    local c = floor_crowd[i]
    local w = c.w
    space:weights(c.speed, w)
    local norm = c.norm + dt / (w[1] * walk_d + w[2] * run_d)
    c.norm, c.t = norm, c.t + dt
    c.walk:sample(norm * walk_d, c.a)
    c.run:sample(norm * run_d, c.b)
    blend(c.out, c.layers, w)
    c.survey:sample(c.t, c.add)
    delta(c.add, c.add, first)
    c.out:add(c.add, 0.6, upper)
  end
end

-- the animators: the user's poses first, so that the heap figure leaves them out
local compile = sinew.animator.compile
local plan, compile_us
if compile then
  compile_us = math.huge
  for _ = 1, 5 do
    local t0 = os.clock()
    plan = compile(definition, resources)
    compile_us = math.min(compile_us, (os.clock() - t0) * 1e6)
  end
end
local function make() if plan then return plan:new() end return sinew.animator(definition, resources) end

local poses = {}
for i = 1, CHARS do poses[i] = sinew.pose(skel) end
collectgarbage("collect")
collectgarbage("collect")
local before = collectgarbage("count")
local anims = {}
for i = 1, CHARS do anims[i] = make() end
collectgarbage("collect")
collectgarbage("collect")
local heap_kb = (collectgarbage("count") - before) / CHARS

-- making one: the least of three rounds of making 1000 (dropped after each round)
local make_us = math.huge
for _ = 1, 3 do
  local spare = {}
  collectgarbage("collect")
  local t0 = os.clock()
  for i = 1, CHARS do spare[i] = make() end
  make_us = math.min(make_us, (os.clock() - t0) / CHARS * 1e6)
  assert(#spare == CHARS)
end
collectgarbage("collect")

-- warm-up into the move state, each at its own speed and a time of its own
for i = 1, CHARS do
  local a = anims[i]
  a:set("speed", speed_of(i))
  a:update(2 * phase_of(i))
  for _ = 1, 30 do a:update(dt) end
  assert(a:state() == "move", "the benchmark expects every animator in the move state")
end
local function crowd_frame()
  for i = 1, CHARS do
    local a = anims[i]
    a:update(dt)
    a:evaluate(poses[i])
  end
end

-- the floor and the animators in turn, ten times each (rounds of 10 frames), the least of each
-- kept: on a shared machine the crowd's figure (its working set is megabytes, so it pays for
-- every cache a neighbour evicts) moved by 2x between runs, the floor's by 1.5x
local floor_ms, crowd_ms = bench.alternate(floor_frame, crowd_frame, 10, 10)

-- the same with every character's speed changing every frame (the floor computes its weights
-- every frame anyway; the animator keeps a blend node's weights while its parameters stay)
local frame_no = 0
local sin = math.sin
local function floor_varying()
  frame_no = frame_no + 1
  for i = 1, CHARS do floor_crowd[i].speed = speed_of(i) + 0.1 * sin(frame_no * 0.05 + i) end
  floor_frame()
end
local function crowd_varying()
  frame_no = frame_no + 1
  for i = 1, CHARS do anims[i]:set("speed", speed_of(i) + 0.1 * sin(frame_no * 0.05 + i)) end
  crowd_frame()
end
local floor_v, crowd_v = bench.alternate(floor_varying, crowd_varying, 10, 10)
local target = bench.interpreter == "luajit" and "1.5x" or "2x"
local how = plan and "plan:new()" or "sinew.animator(def)"
bench.report("animator crowd: 1000 Fox, C-core calls made directly (the floor)", floor_ms, "ms/frame", 2)
bench.report(("animator crowd: 1000 %s update + evaluate (%.2fx the floor; target %s)"):format(
  how, crowd_ms / floor_ms, target), crowd_ms, "ms/frame", 2)
bench.report("animator crowd: the same, speeds changing every frame: the floor", floor_v, "ms/frame", 2)
bench.report(("animator crowd: the same, speeds changing every frame: %s (%.2fx)"):format(how, crowd_v / floor_v),
  crowd_v, "ms/frame", 2)
bench.report("animator crowd: garbage per frame of the 1000 (target 0)",
  bench.least_garbage(crowd_frame, 10), "bytes/frame")
bench.report(("animator crowd: Lua heap per %s, its pose excluded (target 8 KB)"):format(how), heap_kb, "KB")
bench.report(("animator crowd: making one with %s (target 20 us from a plan)"):format(how), make_us, "us")
if plan then bench.report("animator crowd: compiling the plan, once", compile_us, "us") end
