-- Figures of dynamic chains on 2-D rigs (issue 23): the cost of `chain:step(dt, pose)` for a
-- chain of 6 bones (and a tip: 7 particles) on a rig driven by an animator, per rig and frame,
-- against the same frame without the chain (anim:update, evaluate, rig:apply), at the default
-- settings (coupled solver, rate 60, one step per 1/60 s frame) with and without 4 circles; and the
-- garbage per frame. 100 rigs, frames of 1/60 s.
local sinew = require "sinew"
local bench = require "common"

local db = sinew.dragonbones
local RIGS, dt = 100, 1 / 60

-- an armature of a body and a tail of 6 bones, the body swaying
local function data()
  local bones = { '{"name": "root"}', '{"name": "body", "parent": "root", "length": 40, "transform": {"x": 100, "y": 50}}' }
  local parent = "body"
  for i = 1, 6 do
    bones[#bones + 1] = ('{"name": "t%d", "parent": "%s", "length": 20, "transform": {"x": %d}}'):format(i, parent,
      i == 1 and 40 or 20)
    parent = "t" .. i
  end
  local text = '{"name": "b", "version": "5.5", "frameRate": 24, "armature": [{"type": "Armature", "name": "tail",' ..
    '"bone": [' .. table.concat(bones, ",") .. '], "slot": [], "skin": [],' ..
    '"animation": [{"name": "sway", "duration": 24, "playTimes": 0, "bone": [{"name": "body", "rotateFrame": [' ..
    '{"duration": 12, "tweenEasing": 0, "rotate": -20}, {"duration": 12, "tweenEasing": 0, "rotate": 20},' ..
    '{"duration": 0, "rotate": -20}]}]}]}]}'
  return assert(db.parse(text))
end

local function crowd(with_chain, colliders)
  local d = data()
  local list = {}
  for i = 1, RIGS do
    local rig = db.rig(d)
    local anim = sinew.animator({ skeleton = rig:skeleton(),
      layers = { { entry = "sway", states = { sway = { motion = "sway" } } } } }, { clips = rig:clips() })
    anim:update(i * 0.01)
    local def = { root = "t1", gravity = { 0, 980 }, colliders = {} }
    for k = 1, colliders do def.colliders[k] = { shape = "circle", center = { 150 + 30 * k, 120 }, radius = 10 } end
    list[i] = { rig = rig, anim = anim, pose = rig:pose(), chain = with_chain and rig:chain(def) or nil }
  end
  return function()
    for i = 1, RIGS do
      local r = list[i]
      r.anim:update(dt):evaluate(r.pose)
      r.rig:apply(r.pose)
      if r.chain then r.chain:step(dt, r.pose) end
    end
  end
end

local plain, chained = crowd(false, 0), crowd(true, 0)
local with_circles = crowd(true, 4)
local a, b = bench.alternate(plain, chained, 3, 200)
local _, c = bench.alternate(plain, with_circles, 3, 200)
print(("dragonbones_chain (%s, %s): a 6-bone chain, per rig and frame: animator + apply %.2f us, with the chain %.2f us" ..
  " (the chain %.2f us), with 4 circles %.2f us (the chain %.2f us); garbage per frame %d bytes"):format(
  bench.interpreter, sinew.path, a * 1e3 / RIGS, b * 1e3 / RIGS, (b - a) * 1e3 / RIGS, c * 1e3 / RIGS,
  (c - a) * 1e3 / RIGS, bench.least_garbage(chained, 20)))
