-- Figures of the animator: microseconds per `update` + `evaluate` for the Fox (24 joints) with a
-- base layer (idle / a synced walk-run blend tree / jump) and an additive upper-body layer, beside
-- the floor: the same C-core calls made directly (the blend space's weights, the two clips
-- sampled, blended, the additive clip sampled, made a delta and added under the mask). The
-- issue's target: at most 2x the floor plus 1 us.
local sinew = require "sinew"
local bench = require "common"

local fox = assert(sinew.gltf.load("assets/fox/glTF-Binary/Fox.glb", { meshes = false }))
local skel, clips = fox.skeleton, fox.clips
local upper = sinew.mask(skel, {}, 0):set("b_Spine02_03", 1, true)

local anim = sinew.animator(bench.fox_definition(skel, upper), { clips = clips })

local pose = sinew.pose(skel)
local dt = 1 / 60
local frame = function()
  anim:update(dt)
  anim:evaluate(pose)
end
for _ = 1, 120 do frame() end -- into the move state
assert(anim:state() == "move", "the benchmark expects the move state")
local n = bench.interpreter == "luajit" and 200000 or 50000
local full = bench.ns_per_call(frame, n) / 1e3

-- the floor: the same C-core work, called directly
local space = sinew.blendspace { mode = "1d", points = { 0.5, 2.0 } }
local walk, run, survey = clips.Walk, clips.Run, clips.Survey
local a, b, add, first = sinew.pose(skel), sinew.pose(skel), sinew.pose(skel), sinew.pose(skel)
survey:sample(0, first, false)
local w, layers = { 0, 0 }, { a, b }
local norm, t = 0, 0
local floor_frame = function()
  space:weights(1.2, w)
  norm = norm + dt / (w[1] * walk:duration() + w[2] * run:duration())
  t = t + dt
  walk:sample(norm * walk:duration(), a)
  run:sample(norm * run:duration(), b)
  sinew.blend(pose, layers, w)
  survey:sample(t, add)
  sinew.delta(add, add, first)
  pose:add(add, 0.6, upper)
end
local floor = bench.ns_per_call(floor_frame, n) / 1e3

bench.report("animator: Fox, C-core calls made directly (the floor)", floor, "us")
bench.report(("animator: Fox update + evaluate (%.2fx the floor; target 2x + 1 us)"):format(full / floor), full, "us")
bench.report("animator: garbage per update + evaluate", bench.garbage_per_call(frame, 20000), "bytes")
