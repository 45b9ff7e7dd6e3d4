-- Figures of dynamic chains on 2-D rigs (issue 23): the cost of `chain:step(dt, pose)` for a
-- chain of 6 bones (and a tip: 7 particles) on a rig driven by an animator, per rig and frame,
-- against the same frame without the chain (anim:update, evaluate, rig:apply), at the default
-- settings (coupled solver, rate 60, one step per 1/60 s frame) with and without 4 circles; then
-- you_xin_body's hair by direct playback and through the animator; and the garbage per frame. 100
-- rigs, frames of 1/60 s.
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

-- direct playback (rig:update, then chain:step(dt) without a pose: the rig's pose copied, every
-- bone) on you_xin_body (68 bones), its hair0501 .. hair0505 and a tip
local body = assert(db.load("assets/dragonbones/you_xin_body/body_ske.json"))
local function direct(with_chain, via_pose)
  local list = {}
  for i = 1, RIGS do
    local rig = db.rig(body)
    rig:play("idle", 0)
    rig:update(i * 0.01)
    local anim = sinew.animator({ skeleton = rig:skeleton(),
      layers = { { entry = "idle", states = { idle = { motion = "idle" } } } } }, { clips = rig:clips() })
    list[i] = { rig = rig, anim = anim, pose = rig:pose(),
      chain = with_chain and rig:chain { root = "hair0501", gravity = { 0, 980 } } or nil }
  end
  return function()
    for i = 1, RIGS do
      local r = list[i]
      if via_pose then
        r.anim:update(dt):evaluate(r.pose)
        r.rig:apply(r.pose)
        if r.chain then r.chain:step(dt, r.pose) end
      else
        r.rig:update(dt)
        if r.chain then r.chain:step(dt) end
      end
    end
  end
end
local d0, d1 = bench.alternate(direct(false), direct(true), 3, 100)
local a0, a1 = bench.alternate(direct(false, true), direct(true, true), 3, 100)
print(("dragonbones_chain (%s, %s): you_xin_body's hair (5 bones and a tip), per rig and frame: rig:update %.2f us," ..
  " with chain:step(dt) %.2f us (the chain %.2f us); the animator and apply %.2f us, with chain:step(dt, pose)" ..
  " %.2f us (the chain %.2f us); garbage per frame %d bytes"):format(bench.interpreter, sinew.path, d0 * 1e3 / RIGS,
  d1 * 1e3 / RIGS, (d1 - d0) * 1e3 / RIGS, a0 * 1e3 / RIGS, a1 * 1e3 / RIGS, (a1 - a0) * 1e3 / RIGS,
  bench.least_garbage(direct(true), 20)))
