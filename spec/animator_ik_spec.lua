-- Inverse kinematics in the animator (issue 25): `targets` (vector parameters set with
-- `anim:set_target`), `ik` lists at the top of a definition and in layers, solvers by name, weights
-- from numbers, parameters, layers and states; run by `evaluate` after the layers; in snapshots and
-- `debug()`. Each result is checked against the same solves called by hand on the pose the layers
-- give, bit for bit.
local sinew = require "sinew"
local helper = require "helper"
local Spring = require "sinew.animator.spring"

local ik = sinew.ik
local FOX = "assets/fox/glTF-Binary/Fox.glb"
local fox = assert(sinew.gltf.load(FOX))
local skel = fox.skeleton

local LEG = { "b_LeftLeg01_015", "b_LeftLeg02_016", "b_LeftFoot01_017" }

local function solvers()
  return {
    head = ik.aim { skeleton = skel, joint = "b_Head_05", forward = { 0, 0, 1 }, limit = math.rad(80) },
    leg = ik.two_bone { skeleton = skel, joints = LEG },
    tail = ik.chain { skeleton = skel, joints = { "b_Tail01_012", "b_Tail02_013", "b_Tail03_014" } },
    look = ik.spread { skeleton = skel, joints = { "b_Spine02_03", "b_Neck_04", "b_Head_05" }, forward = { 0, 1, 0 },
      up = { 0, 0, 1 }, weights = { 0.2, 0.4, 1 } },
  }
end

local same_pose = helper.same_pose

-- the model-space position of joint j of a pose
local function position(pose, j)
  local mats = sinew.matrices(skel)
  pose:to_model(mats)
  local x, y, z = select(13, mats:get(j))
  return x, y, z
end

-- a definition of one walking layer (and a second, "upper", with two states) with `extra` merged in
local function definition(extra)
  local def = {
    skeleton = skel,
    parameters = { look = { float = 1 }, aiming = false },
    targets = { gaze = { 0, 60, 200 }, reach = { 0, 10, 30, smoothing = 0.25 } },
    layers = {
      { name = "base", entry = "walk", states = { walk = { motion = "Walk" } } },
      { name = "upper", entry = "idle", weight = 0.5,
        states = { idle = { motion = "Survey" }, aim = { motion = "Survey" } },
        transitions = { { from = "idle", to = "aim", when = { { "aiming" } }, duration = 0.4 },
          { from = "aim", to = "idle", when = { { "aiming", "==", false } }, duration = 0.4 } } },
    },
  }
  for k, v in pairs(extra or {}) do def[k] = v end
  return def
end

-- the same definition without IK: the pose the layers give
local plain = helper.without_ik

describe("IK in the animator", function()
  it("aims the head at a target after the layers, as a solve by hand does, bit for bit", function()
    local s = solvers()
    local def = definition { ik = { { solver = "head", target = "gaze", weight = "look" } } }
    local anim = sinew.animator(def, { clips = fox.clips, ik = s })
    local bare = sinew.animator(plain(def), { clips = fox.clips })
    local pose, want = sinew.pose(skel), sinew.pose(skel)
    for frame = 1, 30 do
      anim:set("look", frame / 30):set_target("gaze", 10 * frame, 60, 200)
      anim:update(1 / 30):evaluate(pose)
      bare:update(1 / 30):evaluate(want)
      s.head:solve(want, 10 * frame, 60, 200, frame / 30)
      assert.is_true(same_pose(pose, want))
    end
    -- the head looks at the target: its forward axis passes through it (within the limit)
    local d = anim:debug()
    assert.same({ 300, 60, 200 }, d.targets.gaze)
    assert.equal("head", d.ik[1].solver)
    assert.equal("aim", d.ik[1].kind)
    assert.equal(1, d.ik[1].weight)
  end)

  it("runs a chain and a spread aim with an up target as by hand", function()
    local s = solvers()
    local def = definition { targets = { gaze = { 0, 60, 200 }, sky = { 0, 0, 1 } },
      ik = { { solver = s.look, target = "gaze", up = "sky", weight = 0.75 }, { solver = "tail", target = "gaze" } } }
    local anim = sinew.animator(def, { clips = fox.clips, ik = s })
    local bare = sinew.animator(plain(def), { clips = fox.clips })
    local pose, want = sinew.pose(skel), sinew.pose(skel)
    for frame = 1, 5 do
      anim:set_target("gaze", 20 * frame, 50, 150):update(0.1):evaluate(pose)
      bare:update(0.1):evaluate(want)
      s.look:solve(want, 20 * frame, 50, 150, 0.75, 0, 0, 1)
      local left = s.tail:solve(want, 20 * frame, 50, 150, 1)
      assert.is_true(same_pose(pose, want))
      local d = anim:debug()
      assert.equal("spread", d.ik[1].kind)
      assert.equal("tail", d.ik[2].solver)
      assert.equal(left, d.ik[2].left)
    end
  end)

  it("reaches for a joint, with the knee's own side as the default pole", function()
    local s = solvers()
    local other = skel:find("b_RightFoot01_021")
    local def = definition { ik = { { solver = "leg", target = { joint = "b_RightFoot01_021" } } } }
    local anim = sinew.animator(def, { clips = fox.clips, ik = s })
    local bare = sinew.animator(plain(def), { clips = fox.clips })
    local pose, want = sinew.pose(skel), sinew.pose(skel)
    for _ = 1, 10 do
      anim:update(0.05):evaluate(pose)
      bare:update(0.05):evaluate(want)
      local tx, ty, tz = position(want, other)
      local px, py, pz = position(want, skel:find(LEG[2]))
      s.leg:solve(want, tx, ty, tz, px, py, pz, 1)
      assert.is_true(same_pose(pose, want))
    end
  end)

  it("weighs a layer's entry by the layer's weight and its states' share of the fade", function()
    local s = solvers()
    local def = definition()
    def.layers[2].ik = { { solver = "head", target = "gaze", states = { "aim" } } }
    local anim = sinew.animator(def, { clips = fox.clips, ik = s })
    local bare = sinew.animator(plain(def), { clips = fox.clips })
    local pose, want = sinew.pose(skel), sinew.pose(skel)
    anim:update(0.1):evaluate(pose)
    assert.equal(0, anim:debug().ik[1].weight) -- idle: off
    assert.equal("upper", anim:debug().ik[1].layer)
    anim:set("aiming", true)
    bare:update(0.1):set("aiming", true)
    for _ = 1, 6 do
      anim:update(0.1):evaluate(pose)
      bare:update(0.1):evaluate(want)
      local _, _, to, progress = anim:state("upper")
      local share = to and progress or 1 -- (a linear fade: the destination's weight is the progress)
      local w = anim:debug().ik[1].weight
      assert.near(0.5 * share, w, 1e-12)
      s.head:solve(want, 0, 60, 200, w)
      assert.is_true(same_pose(pose, want))
    end
    assert.equal(0.5, anim:debug().ik[1].weight)
    anim:set_layer_weight("upper", 0)
    anim:update(0.1):evaluate(pose)
    assert.equal(0, anim:debug().ik[1].weight)
  end)

  it("smooths a target as a smoothed parameter is smoothed", function()
    local anim = sinew.animator(definition(), { clips = fox.clips })
    assert.same({ 0, 10, 30, 0, 10, 30 }, { anim:target("reach") })
    anim:set_target("reach", 1, 2, 3)
    assert.same({ 0, 10, 30, 1, 2, 3 }, { anim:target("reach") })
    anim:update(0.1)
    local x, vx = Spring.step(0, 0, 1, 0.25, 0.1)
    local got = { anim:target("reach") }
    assert.equal(x, got[1])
    assert.is_true(vx > 0)
    anim:set_target("gaze", 4, 5, 6) -- not smoothed: at once
    assert.same({ 4, 5, 6 }, { anim:target("gaze") })
  end)

  it("keeps targets in snapshots; a bad snapshot changes nothing", function()
    local s = solvers()
    local def = definition { ik = { { solver = "head", target = "reach" } } }
    local anim = sinew.animator(def, { clips = fox.clips, ik = s })
    anim:set_target("reach", 50, 60, 70):update(0.1)
    local snap = anim:snapshot()
    local p1, p2 = sinew.pose(skel), sinew.pose(skel)
    anim:update(0.1):evaluate(p1)
    local other = sinew.animator(def, { clips = fox.clips, ik = s })
    other:restore(snap)
    other:update(0.1):evaluate(p2)
    assert.is_true(same_pose(p1, p2))
    local bad = helper.deep_copy(snap)
    bad.ik.values.reach[2] = 0 / 0
    local before = { other:target("reach") }
    local ok, err = pcall(other.restore, other, bad)
    assert.is_false(ok)
    assert.matches("bad snapshot: ik.values.reach%[2%]: must be a finite number", err)
    assert.same(before, { other:target("reach") })
    bad = helper.deep_copy(snap)
    bad.ik.goals.nowhere = { 1, 2, 3 }
    assert.error_matches(function() other:restore(bad) end, "ik.goals: unknown target 'nowhere'")
  end)

  it("makes no garbage per update and evaluate", function()
    local s = solvers()
    local def = definition { ik = { { solver = "head", target = "reach", weight = "look" },
      { solver = "leg", target = { joint = "b_RightFoot01_021" } }, { solver = "tail", target = "gaze" } } }
    local anim = sinew.animator(def, { clips = fox.clips, ik = s })
    local pose = sinew.pose(skel)
    local t = 0
    local function step()
      t = t + 1
      anim:set_target("reach", t % 7, 20, 30):update(1 / 60):evaluate(pose)
    end
    for _ = 1, 50 do step() end
    assert.equal(0, helper.least_garbage(step, 2000))
  end)

  it("names what is wrong in a definition", function()
    local s = solvers()
    local res = { clips = fox.clips, ik = s }
    local function fails(extra, pattern, resources)
      local ok, err = pcall(sinew.animator, definition(extra), resources or res)
      assert.is_false(ok)
      assert.matches(pattern, err, 1, true)
    end
    fails({ ik = { { solver = "haed", target = "gaze" } } }, "ik[1].solver: unknown IK solver 'haed' (did you mean 'head'?)")
    fails({ ik = { { solver = "head", target = "gaze" } } }, "ik[1].solver: unknown IK solver 'head': no ik were given",
      { clips = fox.clips })
    fails({ ik = { { solver = 42, target = "gaze" } } }, "ik[1].solver: must be a sinew.ik solver or its name")
    fails({ ik = { { solver = "head" } } }, "ik[1].target: an aim solver needs a target")
    fails({ ik = { { solver = "head", target = "gase" } } }, "ik[1].target: unknown target 'gase' (did you mean 'gaze'?)")
    fails({ ik = { { solver = "head", target = { joint = "nope" } } } }, "ik[1].target.joint: unknown joint 'nope'")
    fails({ ik = { { solver = "head", target = "gaze", pole = "gaze" } } }, "ik[1].pole: only a two-bone solver has a pole")
    fails({ ik = { { solver = "leg", target = "gaze", up = "gaze" } } }, "ik[1].up: only a 3-D aim solver has an up")
    fails({ ik = { { solver = "head", target = "gaze", weight = 2 } } }, "ik[1].weight: 2 is out of range (0 .. 1)")
    fails({ ik = { { solver = "head", target = "gaze", weight = "aiming" } } },
      "ik[1].weight: parameter 'aiming' is a bool: a weight is a number parameter")
    fails({ ik = { { solver = "head", target = "gaze", states = { "aim" } } } },
      "ik[1].states: only an entry of a layer's list plays with states")
    fails({ ik = { { solver = "head", target = "gaze", speed = 1 } } }, "ik[1]: unknown field 'speed'")
    fails({ targets = { look = { 1, 2, 3 } } }, "targets.look: a parameter is named 'look' too")
    fails({ targets = { g = { 1, 2 } } }, "targets.g[3]: must be a finite number (got nil)")
    fails({ targets = { g = { 1, 2, 0 / 0 } } }, "targets.g[3]: must be a finite number (got nan)")
    local other = assert(sinew.gltf.load(FOX)).skeleton
    local foreign = { head = ik.aim { skeleton = other, joint = "b_Head_05" } }
    fails({ ik = { { solver = "head", target = "gaze" } } }, "ik[1].solver: solver of another skeleton",
      { clips = fox.clips, ik = foreign })
    local def = definition()
    def.layers[2].ik = { { solver = "head", target = "gaze", states = { "walk" } } }
    local ok, err = pcall(sinew.animator, def, res)
    assert.is_false(ok)
    assert.matches("layers[2].ik[1].states[1]: unknown state 'walk'", err, 1, true)
  end)

  it("places the feet with a clone per animator, as by hand, and survives a ground that raises", function()
    local legs = { { "b_RightUpperArm_06", "b_RightForeArm_07", "b_RightHand_08" },
      { "b_LeftUpperArm_09", "b_LeftForeArm_010", "b_LeftHand_011" },
      { "b_RightLeg01_019", "b_RightLeg02_020", "b_RightFoot01_021" },
      { "b_LeftLeg01_015", "b_LeftLeg02_016", "b_LeftFoot01_017" } }
    local raise = false
    local function ground(x, _, z)
      if raise then error("no ground here") end
      return 0.1 * x + 0.05 * z, -0.1, 1, -0.05 -- a slope
    end
    local feet = ik.feet { skeleton = skel, pelvis = "b_Hip_01", legs = legs, ground = ground }
    local def = definition { ik = { { solver = "feet", weight = "planted" } } }
    def.parameters.planted = { float = 1 }
    local plan = sinew.animator.compile(def, { clips = fox.clips, ik = { feet = feet } })
    local a, b = plan:new(), plan:new()
    local bare = sinew.animator(plain(def), { clips = fox.clips })
    local mine = feet:clone()
    local pa, pb, want = sinew.pose(skel), sinew.pose(skel), sinew.pose(skel)
    for frame = 1, 20 do
      a:update(1 / 30)
      a:update(1 / 60) -- (two updates between evaluations: the feet see their sum)
      a:evaluate(pa)
      bare:update(1 / 30):update(1 / 60):evaluate(want)
      assert.is_false(same_pose(pa, want), frame) -- (the feet moved something)
      mine:solve(want, 1 / 30 + 1 / 60, 1)
      assert.is_true(same_pose(pa, want), frame)
    end
    b:update(0.5):evaluate(pb) -- its own solver: a's state does not reach it
    local fresh = feet:clone()
    local again = sinew.animator(plain(def), { clips = fox.clips })
    again:update(0.5):evaluate(want)
    fresh:solve(want, 0.5, 1)
    assert.is_true(same_pose(pb, want))
    assert.equal("feet", a:debug().ik[1].kind)
    assert.equal("feet", ik.kind(feet))
    raise = true
    local ok, err = pcall(a.evaluate, a, pa)
    assert.is_false(ok)
    assert.matches("no ground here", err)
    raise = false
    a:update(0.1):evaluate(pa) -- not left busy
    local bad = pcall(sinew.animator, definition { ik = { { solver = feet, target = "gaze" } } }, { clips = fox.clips })
    assert.is_false(bad)
  end)

  it("keeps the feet's smoothing in snapshots: a restored animator goes on bit for bit", function()
    local legs = { { "b_RightUpperArm_06", "b_RightForeArm_07", "b_RightHand_08" },
      { "b_LeftUpperArm_09", "b_LeftForeArm_010", "b_LeftHand_011" },
      { "b_RightLeg01_019", "b_RightLeg02_020", "b_RightFoot01_021" },
      { "b_LeftLeg01_015", "b_LeftLeg02_016", "b_LeftFoot01_017" } }
    local function ground(x, _, z) return 8 * math.sin(0.05 * x + 0.03 * z), 0, 1, 0 end
    local feet = ik.feet { skeleton = skel, pelvis = "b_Hip_01", legs = legs, ground = ground }
    local def = definition { ik = { { solver = "feet" } } }
    local plan = sinew.animator.compile(def, { clips = fox.clips, ik = { feet = feet } })
    local a, b = plan:new(), plan:new()
    local pa, pb = sinew.pose(skel), sinew.pose(skel)
    for _ = 1, 15 do a:update(1 / 30):evaluate(pa) end
    a:update(1 / 60) -- (an update not yet evaluated: its seconds are in the snapshot too)
    local snap = a:snapshot()
    assert.are.equal(40, #snap.ik.feet["ik[1]"])
    assert.are.equal(1 / 60, snap.ik.dt)
    b:restore(snap)
    for frame = 1, 15 do
      a:update(1 / 30):evaluate(pa)
      b:update(1 / 30):evaluate(pb)
      assert.is_true(same_pose(pa, pb), frame)
    end
    -- a snapshot without the feet (an older one) restarts them from their targets
    snap.ik.feet, snap.ik.dt = nil, nil
    b:restore(snap)
    -- bad states are named, and change nothing
    local function refused(edit, pattern)
      local s = a:snapshot()
      edit(s.ik)
      local before = b:snapshot()
      local ok, err = pcall(b.restore, b, s)
      assert.is_false(ok)
      assert.matches(pattern, err, 1, true)
      assert.are.same(before, b:snapshot())
    end
    refused(function(t) t.feet["ik[1]"][1] = 0.5 end, 'ik.feet["ik[1]"]: state number 1 (started) must be 0 or 1')
    refused(function(t) t.feet["ik[1]"][11], t.feet["ik[1]"][12], t.feet["ik[1]"][13] = 0, 0, 0 end,
      "state of leg 1: its knee hinge is not a unit vector")
    refused(function(t) t.feet["ik[1]"][7] = 0 / 0 end, 'ik.feet["ik[1]"][7]: must be a finite number')
    refused(function(t) t.feet["ik[1]"][41] = 1 end, 'ik.feet["ik[1]"]: has 41 numbers, expected 40')
    refused(function(t) t.feet.other = {} end, "ik.feet: no foot-placement entry 'other'")
    refused(function(t) t.dt = -1 end, "ik.dt: must be a finite number of seconds >= 0 (got -1)")
  end)

  it("names what is wrong in set_target and target", function()
    local anim = sinew.animator(definition(), { clips = fox.clips })
    assert.error_matches(function() anim:set_target("gase", 1, 2, 3) end, "unknown target 'gase' %(did you mean 'gaze'%?%)")
    assert.error_matches(function() anim:set_target("gaze", 1, 0 / 0, 3) end,
      "bad argument #3 to 'set_target' %(y must be a finite number")
    assert.error_matches(function() anim:set_target("gaze", 1, 2) end, "bad argument #4 to 'set_target'")
    assert.same({ 0, 60, 200 }, { anim:target("gaze") }) -- (a failed call changes nothing)
    assert.error_matches(function() anim:target(nil) end, "unknown target nil")
    assert.error_matches(function() anim.set_target({}, "gaze", 1, 2, 3) end, "sinew.Animator expected, got table")
    local none = sinew.animator(plain(definition()), { clips = fox.clips })
    assert.error_matches(function() none:target("gaze") end, "unknown target 'gaze'")
  end)

  it("tells a solver's kind", function()
    local s = solvers()
    assert.equal("aim", ik.kind(s.head))
    assert.equal("two_bone", ik.kind(s.leg))
    assert.equal("chain", ik.kind(s.tail))
    assert.is_nil(ik.kind(sinew.pose(skel)))
    assert.is_nil(ik.kind({}))
    assert.is_nil(ik.kind())
  end)
end)
