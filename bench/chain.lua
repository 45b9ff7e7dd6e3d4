-- Figures of sinew.chain: time per frame (in microseconds) for 50 chains of 8 joints (hair strands on a turning
-- head, 4 capsule colliders each) updated through chain:update, and garbage per frame; then the
-- same strands in points mode through chain:step, one call per chain and one sinew.group call,
-- against sn_chain_step over the same chains as a C loop (bench/c/bench_chain.c, run here for the
-- ratios: `bench_chain lua` builds them with the same definition and steps them the same way).
local sinew = require "sinew"
local bench = require "common"

local strands, joints = 50, 8

-- a head joint with `strands` strands of `joints` joints hanging around it
local names, parents, rest = { "head" }, { 0 }, { { 0, 1.6, 0, 0, 0, 0, 1, 1, 1, 1 } }
for s = 1, strands do
  local a = 2 * math.pi * s / strands
  for j = 1, joints do
    local i = #names + 1
    names[i] = ("strand%d_%d"):format(s, j)
    parents[i] = j == 1 and 1 or i - 1
    if j == 1 then
      rest[i] = { 0.1 * math.cos(a), 0, 0.1 * math.sin(a), 0, 0, 0, 1, 1, 1, 1 }
    else
      rest[i] = { 0.01 * math.cos(a), -0.04, 0.01 * math.sin(a), 0, 0, 0, 1, 1, 1, 1 }
    end
  end
end
local skel = sinew.skeleton { names = names, parents = parents, rest = rest }
local anim, pose = sinew.pose(skel), sinew.pose(skel)

local frame, head = 0, skel:find("head")
local sin, from_axis_angle = math.sin, sinew.quat.from_axis_angle
local n = bench.interpreter == "luajit" and 600 or 300

for _, solver in ipairs { "coupled", "sweep" } do
  local chains = {}
  for s = 1, strands do
    local c = sinew.chain { skeleton = skel, root = ("strand%d_1"):format(s), radius = 0.01, end_length = 0.5,
      solver = solver }
    for k = 0, 3 do
      local x = (k % 2 == 0 and 1 or -1) * (0.05 + 0.04 * math.floor(k / 2))
      c:add_collider { shape = "capsule", a = { x, 1.45 - 0.06 * math.floor(k / 2), -0.15 },
        b = { 1.5 * x, 1.25 - 0.06 * math.floor(k / 2), 0.15 }, radius = 0.06, radius_b = 0.045 }
    end
    chains[s] = c
  end
  local function update_all()
    frame = frame + 1
    anim:set_rotation(head, from_axis_angle(0, 1, 0, 0.6 * sin(frame * 0.05)))
    pose:copy(anim) -- the freshly animated pose; the chains write their rotations into it
    for s = 1, strands do chains[s]:update(1 / 60, pose) end
  end
  -- microseconds: the report prints one decimal, too coarse for milliseconds
  bench.report(("chain:update %d chains x %d joints, 4 capsules, %s (+ pose copy)"):format(strands, joints, solver),
    bench.ns_per_call(update_all, n) / 1e3, "us/frame")
  bench.report(("chain:update garbage, %s"):format(solver), bench.garbage_per_call(update_all, n), "bytes/frame")
end

-- the same strands without a skeleton
local points = {}
for s = 1, strands do
  local a = 2 * math.pi * s / strands
  local def = { points = {}, parents = {}, radius = 0.01 }
  for j = 1, joints do
    def.points[j] = { (0.1 + 0.01 * (j - 1)) * math.cos(a), 1.6 - 0.04 * (j - 1), (0.1 + 0.01 * (j - 1)) * math.sin(a) }
    def.parents[j] = j - 1
  end
  points[s] = sinew.chain(def)
end
local function step_all()
  frame = frame + 1
  local qx, qy, qz, qw = from_axis_angle(0, 1, 0, 0.6 * sin(frame * 0.05))
  for s = 1, strands do
    local c = points[s]
    c:move_root(0, 0, 0, qx, qy, qz, qw)
    c:step(1 / 60)
  end
end
bench.report(("chain:step %d chains x %d points, no collider"):format(strands, joints),
  bench.ns_per_call(step_all, n) / 1e3, "us/frame")
bench.report("chain:step garbage", bench.garbage_per_call(step_all, n), "bytes/frame")

-- stepping only (the root left where it is): one chain:step per chain, and one sinew.group call
local function step_each()
  for s = 1, strands do points[s]:step(1 / 60) end
end
local group = sinew.group()
for s = 1, strands do group:step(points[s]) end
local none = {}
local function step_group() group:run(1 / 60, none) end
-- the same chains stepped by a C loop over sn_chain_step, run before and after the Lua figures and
-- the better run kept (the machine's load moves single runs; every figure here is a best of rounds)
local function c_step() return bench.c_figure("bench_chain lua", "ns/particle-step") end
local floor = c_step()
local particles = strands * joints
local each, grouped = bench.ns_per_call(step_each, n), bench.ns_per_call(step_group, n)
local again = floor and c_step()
if again and again < floor then floor = again end
bench.report(("chain:step %d chains x %d points, one call per chain (%s)"):format(strands, joints, sinew.path),
  each / particles, "ns/particle")
bench.report(("the same, one sinew.group call"):format(), grouped / particles, "ns/particle")
bench.report("chain:step group garbage", bench.garbage_per_call(step_group, n), "bytes/frame")
if floor then
  bench.report("the same chains, sn_chain_step in a C loop, run now", floor, "ns/particle")
  bench.report("chain:step, one call per chain / C", each / particles / floor, "x", 2)
  bench.report("chain:step, the group call / C (target 1.2 or less)", grouped / particles / floor, "x", 2)
end
