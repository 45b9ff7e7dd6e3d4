-- DragonBones rigs in sinew's animator (issue 23, "Rigs in the animator"): the rig's animations
-- are clips of the 2-D pose kind (sinew.dragonbones.kind), so the same definitions play them.
-- Checked here: one animation played by an animator is the rig's own playback bone for bone; a
-- 1-D blend is the weighted average with angles along the shorter arc (computed independently
-- below); masks, additive layers, snapshots; and no garbage per frame.
local helper = require "helper"
local sinew = require "sinew"
local db = sinew.dragonbones

local data = assert(db.load("assets/dragonbones/mecha_1406/mecha_1406_ske.json"))

local function max_bone_difference(a, b)
  local worst = 0
  for _, name in ipairs(a:bones()) do
    local m, n = { a:bone(name) }, { b:bone(name) }
    for k = 1, 6 do worst = math.max(worst, math.abs(m[k] - n[k])) end
  end
  return worst
end

local function wrap(v) -- to [-pi, pi), as an independent check of the shorter arc
  v = math.fmod(v + math.pi, 2 * math.pi)
  if v < 0 then v = v + 2 * math.pi end
  return v - math.pi
end

describe("DragonBones rigs in the animator", function()
  -- (the animator keeps a state's time as a fraction of the clip, so its times differ from the
  -- rig's in the last bits: bones agree to 1e-9, and a frame that falls on a loop's seam may fall
  -- on either side of it, so those frames are left out)
  it("plays one animation as the rig plays it, frame after frame", function()
    local rig, direct = db.rig(data), db.rig(data)
    local anim = sinew.animator({ skeleton = rig:skeleton(),
      layers = { { entry = "walk", states = { walk = { motion = "walk" } } } } }, { clips = rig:clips() })
    local pose = rig:pose()
    direct:play("walk", 0)
    local duration, compared = rig:clips().walk:duration(), 0
    for _ = 1, 300 do
      anim:update(1 / 60):evaluate(pose)
      rig:apply(pose)
      direct:update(1 / 60)
      local t = math.fmod(direct.head.time, duration)
      if t > 1e-9 and t < duration - 1e-9 then
        assert.is_true(max_bone_difference(rig, direct) < 1e-9)
        compared = compared + 1
      end
    end
    assert.is_true(compared > 290)
  end)

  it("blends by a parameter: weighted averages, angles along the shorter arc", function()
    local rig = db.rig(data)
    local clips = rig:clips()
    local anim = sinew.animator({ skeleton = rig:skeleton(), parameters = { speed = 0.25 },
      layers = { { entry = "move", states = { move = { motion = { blend = "1d", parameter = "speed",
        children = { { 0, "idle" }, { 1, "walk" } } } } } } } }, { clips = clips })
    local pose = anim:update(0):evaluate(rig:pose())
    local a, b = clips.idle:sample(0, rig:pose(), true), clips.walk:sample(0, rig:pose(), true)
    for j = 1, #pose do
      local p, q, out = { a:get(j) }, { b:get(j) }, { pose:get(j) }
      for k = 1, 6 do
        local want
        if k == 3 or k == 4 then want = p[k] + 0.25 * wrap(q[k] - p[k]) else want = 0.75 * p[k] + 0.25 * q[k] end
        assert.is_true(math.abs(out[k] - want) < 1e-12, ("bone %d number %d: %.17g, want %.17g"):format(j, k, out[k], want))
      end
    end
  end)

  it("masks a layer to some bones and adds an additive layer", function()
    local rig = db.rig(data)
    local names = rig:bones()
    local upper = rig:mask({ [names[2]] = 1 })
    local anim = sinew.animator({ skeleton = rig:skeleton(), layers = {
      { entry = "idle", states = { idle = { motion = "idle" } } },
      { name = "aim", mask = upper, entry = "aim", states = { aim = { motion = "aim" } } },
    } }, { clips = rig:clips() })
    local pose = anim:update(0.1):evaluate(rig:pose())
    local idle = rig:clips().idle:sample(0.1, rig:pose(), true)
    local aim = rig:clips().aim:sample(0.1, rig:pose(), true)
    for j = 1, #pose do
      local got, want = { pose:get(j) }, { (j == 2 and aim or idle):get(j) }
      for k = 1, 6 do assert.is_true(math.abs(got[k] - want[k]) < 1e-12, ("bone %d number %d"):format(j, k)) end
    end
    local additive = sinew.animator({ skeleton = rig:skeleton(), layers = {
      { entry = "idle", states = { idle = { motion = "idle" } } },
      { name = "hit", mode = "additive", weight = 1, entry = "hit", states = { hit = { motion = "hit" } } },
    } }, { clips = rig:clips() })
    local sum = additive:update(0.1):evaluate(rig:pose())
    local changed = 0
    for j = 1, #sum do
      local p, q = { sum:get(j) }, { idle:get(j) }
      for k = 1, 6 do if math.abs(p[k] - q[k]) > 1e-9 then changed = changed + 1 end end
    end
    assert.is_true(changed > 0)
  end)

  it("snapshots and restores an animator of a rig", function()
    local rig = db.rig(data)
    local def = { skeleton = rig:skeleton(), parameters = { speed = 0.5 }, layers = { { entry = "move",
      states = { move = { motion = { blend = "1d", parameter = "speed", children = { { 0, "idle" }, { 1, "walk" } } } } } } } }
    local a = sinew.animator(def, { clips = rig:clips() })
    a:update(0.37)
    local snap = a:snapshot()
    local p1 = a:update(0.1):evaluate(rig:pose())
    local b = sinew.animator(def, { clips = rig:clips() })
    b:restore(snap)
    local p2 = b:update(0.1):evaluate(rig:pose())
    for j = 1, #p1 do
      local x, y = { p1:get(j) }, { p2:get(j) }
      for k = 1, 6 do assert.is_true(math.abs(x[k] - y[k]) < 1e-9) end
    end
  end)

  it("refuses a pose of another armature, and makes no garbage per frame", function()
    local rig = db.rig(data)
    local other = db.rig(assert(db.load("assets/dragonbones/dragon_boy/dragon_boy_ske.json")))
    assert.has_error(function() rig:apply(other:pose()) end)
    local anim = sinew.animator({ skeleton = rig:skeleton(), parameters = { speed = 0.5 }, layers = { { entry = "move",
      states = { move = { motion = { blend = "1d", parameter = "speed", children = { { 0, "idle" }, { 1, "walk" } } } } } } } },
      { clips = rig:clips() })
    local pose = rig:pose()
    local function frame()
      anim:update(1 / 60):evaluate(pose)
      rig:apply(pose)
    end
    for _ = 1, 50 do frame() end
    assert.are.equal(0, helper.least_garbage(frame, 200))
  end)
end)

describe("a rig's frame events in the animator", function()
  it("fires a DragonBones animation's frame and sound events in a state that plays it", function()
    local d = assert(db.load("assets/dragonbones/mecha_1004d/mecha_1004d_ske.json"))
    local rig = db.rig(d)
    local anim = sinew.animator({ skeleton = rig:skeleton(),
      layers = { { entry = "walk", states = { walk = { motion = "walk" } } } } }, { clips = rig:clips() })
    -- the rig's own playback: the names and the steps they fire at
    local direct, want, got = db.rig(d), {}, {}
    direct:play("walk", 0)
    -- (steps of 1/64 s: none lands exactly on an event's frame, where the animator's time, kept as
    -- a fraction of the clip, and the rig's sum could fall on either side of it)
    for step = 1, 240 do
      direct:update(1 / 64)
      for kind, name in direct:events() do
        if kind == "soundEvent" or kind == "frameEvent" then want[#want + 1] = step .. " " .. name end
      end
      anim:update(1 / 64)
      for name in anim:events() do got[#got + 1] = step .. " " .. name end
    end
    assert.is_true(#want > 0)
    assert.are.same(want, got)
  end)
end)
