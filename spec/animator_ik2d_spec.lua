-- 2-D inverse kinematics in the animator (issue 25): the `ik` lists of a definition whose skeleton
-- is a DragonBones armature take the 2-D solvers (`sinew.ik.two_bone`, `aim`, `chain` made with
-- `rig = ...`); targets are x, y in armature space; joint targets are bones. Each result is
-- checked against the same solves called by hand on the pose the layers give, bit for bit.
local sinew = require "sinew"
local helper = require "helper"

local ik, db = sinew.ik, sinew.dragonbones
local boy_data = assert(db.load("assets/dragonbones/dragon_boy/dragon_boy_ske.json"))
local mecha_data = assert(db.load("assets/dragonbones/mecha_1502b/mecha_1502b_ske.json"))

local same_pose = helper.same_pose

-- the solvers on `rig`
local function solvers(rig)
  return {
    arm = ik.two_bone { rig = rig, bones = { "armUpperR", "armR" } },
    head = ik.aim { rig = rig, bone = "head", limit = 1 },
    tail = ik.chain { rig = rig, bones = { "tail", "tailTip" }, method = "fabrik", iterations = 16 },
  }
end

-- a definition of the boy walking and, on a second layer, standing, with `extra` merged in
local function definition(rig, extra)
  local def = {
    skeleton = rig:skeleton(),
    parameters = { reach = { float = 1 }, upper = false },
    targets = { hand = { 60, -80, 0 }, look = { 200, -150, 0, smoothing = 0.2 } },
    layers = {
      { name = "base", entry = "walk", states = { walk = { motion = "walk" } } },
      { name = "upper", entry = "idle", weight = 0.5,
        states = { idle = { motion = "stand" }, wave = { motion = "stand" } },
        transitions = { { from = "idle", to = "wave", when = { { "upper" } }, duration = 0.4 },
          { from = "wave", to = "idle", when = { { "upper", "==", false } }, duration = 0.4 } } },
    },
  }
  for k, v in pairs(extra or {}) do def[k] = v end
  return def
end

-- the same definition without IK
local plain = helper.without_ik

describe("2-D IK in the animator", function()
  it("reaches, aims and bends a chain after the layers, as solves by hand do, bit for bit", function()
    local rig = db.rig(boy_data)
    local s = solvers(rig)
    local def = definition(rig, { ik = {
      { solver = "arm", target = "hand", weight = "reach" },
      { solver = "head", target = "look" },
      { solver = "tail", target = "hand", weight = 0.5 } } })
    local anim = sinew.animator(def, { clips = rig:clips(), ik = s })
    local bare = sinew.animator(plain(def), { clips = rig:clips() })
    local pose, want, bare_pose = rig:pose(), rig:pose(), rig:pose()
    local moved = 0
    for frame = 1, 40 do
      local hx, hy = 40 + 2 * frame, -90 + frame
      anim:set("reach", frame / 40):set_target("hand", hx, hy):set_target("look", 300, -100 - 4 * frame)
      anim:update(1 / 30):evaluate(pose)
      bare:update(1 / 30):evaluate(want)
      bare_pose:copy(want)
      local lx, ly, lz = anim:target("look")
      assert.are.equal(0, lz)
      rig:apply(want)
      s.arm:solve(want, hx, hy, frame / 40)
      s.head:solve(want, lx, ly, 1)
      s.tail:solve(want, hx, hy, 0.5)
      assert.is_true(same_pose(pose, want), "frame " .. frame)
      if not same_pose(pose, bare_pose) then moved = moved + 1 end
    end
    assert.is_true(moved > 30, "IK changed the pose in most frames")
    -- what debug shows
    local _, list = anim:debug().targets, anim:debug().ik
    assert.are.same({ "arm", "two_bone", 1 }, { list[1].solver, list[1].kind, list[1].weight })
    assert.are.same({ "tail", "chain", 0.5 }, { list[3].solver, list[3].kind, list[3].weight })
    assert.is_number(list[3].left)
  end)

  it("points at a bone where the layers put it, and weighs a layer's entry by its states' share", function()
    local rig = db.rig(boy_data)
    local s = solvers(rig)
    local def = definition(rig)
    def.layers[2].ik = { { solver = "head", target = { joint = "handL" }, states = { "wave" } } }
    local anim = sinew.animator(def, { clips = rig:clips(), ik = s })
    local bare = sinew.animator(plain(def), { clips = rig:clips() })
    local pose, want = rig:pose(), rig:pose()
    local shares = {}
    for frame = 1, 30 do
      anim:set("upper", frame > 5)
      bare:set("upper", frame > 5)
      anim:update(1 / 30):evaluate(pose)
      bare:update(1 / 30):evaluate(want)
      local w = anim:debug().ik[1].weight
      shares[#shares + 1] = w
      rig:apply(want)
      local _, _, _, _, x, y = rig:bone("handL")
      if w > 0 then s.head:solve(want, x, y, w) end
      assert.is_true(same_pose(pose, want), "frame " .. frame)
    end
    -- the layer's weight (0.5) times the fade into "wave" (0.4 s): 0 before, rising, then 0.5
    assert.are.equal(0, shares[5])
    assert.is_true(shares[8] > 0 and shares[8] < 0.5)
    assert.are.equal(0.5, shares[30])
  end)

  it("solves on a rig of the plan's own: the rigs a game draws never change in evaluate", function()
    local rig, other = db.rig(boy_data), db.rig(boy_data)
    local plan = sinew.animator.compile(definition(rig, { ik = { { solver = "arm", target = "hand" } } }),
      { clips = rig:clips(), ik = solvers(rig) })
    local a, b = plan:new(), plan:new()
    local pa, pb = rig:pose(), rig:pose()
    rig:apply(pb)
    local before = { rig:bone("armR") }
    a:set_target("hand", 40, -60)
    b:set_target("hand", 30, -50)
    for _ = 1, 10 do
      a:update(1 / 30):evaluate(pa)
      b:update(1 / 30):evaluate(pb)
    end
    assert.are.same(before, { rig:bone("armR") })
    -- each pose, shown on a rig of the game's, has the arm's end (armR's end, 12.5 along it) on its target
    for _, c in ipairs { { other, pa, 40, -60 }, { rig, pb, 30, -50 } } do
      c[1]:apply(c[2])
      local ax, ay, _, _, x, y = c[1]:bone("armR")
      assert.is_true(math.abs(x + 12.5 * ax - c[3]) < 1e-6 and math.abs(y + 12.5 * ay - c[4]) < 1e-6)
    end
    assert.is_true(a:debug().ik[1].reached and b:debug().ik[1].reached)
  end)

  it("makes no garbage per update and evaluate", function()
    local rig = db.rig(boy_data)
    local def = definition(rig, { ik = { { solver = "arm", target = "hand" }, { solver = "head", target = { joint = "handL" } },
      { solver = "tail", target = "look" } } })
    local anim = sinew.animator(def, { clips = rig:clips(), ik = solvers(rig) })
    local pose = rig:pose()
    local function frame() anim:update(1 / 60):evaluate(pose) end
    assert.are.equal(0, helper.least_garbage(frame, 2000))
  end)

  it("keeps 2-D targets in snapshots", function()
    local rig = db.rig(boy_data)
    local def = definition(rig, { ik = { { solver = "arm", target = "hand" } } })
    local anim = sinew.animator(def, { clips = rig:clips(), ik = solvers(rig) })
    anim:set_target("look", 10, 20):update(0.05)
    local snap = anim:snapshot()
    local copy = sinew.animator(def, { clips = rig:clips(), ik = solvers(rig) })
    copy:restore(snap)
    assert.are.same({ anim:target("look") }, { copy:target("look") })
  end)

  it("names what is wrong in a 2-D definition", function()
    local rig, mecha = db.rig(boy_data), db.rig(mecha_data)
    local fox = assert(sinew.gltf.load("assets/fox/glTF-Binary/Fox.glb"))
    local leg3d = ik.two_bone { skeleton = fox.skeleton, joints = { "b_LeftLeg01_015", "b_LeftLeg02_016", "b_LeftFoot01_017" } }
    local s = solvers(rig)
    s.leg3d = leg3d
    s.other = ik.aim { rig = mecha, bone = 1 }
    local cases = {
      { { { solver = "leg3d", target = "hand" } },
        "ik%[1%]%.solver: a solver of a 3%-D skeleton, in a definition of 2%-D bones" },
      { { { solver = "other", target = "hand" } }, "ik%[1%]%.solver: solver of another armature" },
      { { { solver = "arm", target = "hand", pole = "look" } }, "ik%[1%]%.pole: a 2%-D two%-bone solver has no pole" },
      { { { solver = "head", target = "hand", up = "look" } }, "ik%[1%]%.up: only a 3%-D aim solver has an up reference" },
      { { { solver = "head", target = { joint = "tentacle" } } }, "ik%[1%]%.target%.joint: unknown bone 'tentacle'" },
      { { { solver = "head", target = { joint = 99 } } }, "ik%[1%]%.target%.joint: unknown bone 99" },
    }
    for i, c in ipairs(cases) do
      local ok, err = pcall(sinew.animator, definition(rig, { ik = c[1] }), { clips = rig:clips(), ik = s })
      assert.is_false(ok, "case " .. i)
      assert.matches(c[2], err, nil, false, "case " .. i)
    end
    -- and a 2-D solver in a 3-D definition
    local ok, err = pcall(sinew.animator, { skeleton = fox.skeleton,
      layers = { { entry = "w", states = { w = { motion = "Walk" } } } },
      targets = { t = { 0, 0, 0 } }, ik = { { solver = s.arm, target = "t" } } }, { clips = fox.clips })
    assert.is_false(ok)
    assert.matches("ik%[1%]%.solver: a solver of a 2%-D rig, in a definition of 3%-D joints", err)
  end)

  it("tells a 2-D solver's kind", function()
    local s = solvers(db.rig(boy_data))
    assert.are.same({ "two_bone", 2 }, { ik.kind(s.arm) })
    assert.are.same({ "aim", 2 }, { ik.kind(s.head) })
    assert.are.same({ "chain", 2 }, { ik.kind(s.tail) })
  end)
end)
