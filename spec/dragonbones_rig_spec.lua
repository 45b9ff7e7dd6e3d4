-- sinew.dragonbones rigs against the DragonBones runtime: every armature and animation of the
-- ten samples (assets/dragonbones) and of the hand-made files (spec/dragonbones/extra) played and
-- sought as spec/dragonbones/reference/*.json records what DragonBonesJS 5.6.2 computed (see its
-- README: tools/dragonbones/reference.js, `make dragonbones-reference`). Tolerances of issue 23:
-- bone a, b, c, d within 1e-4, tx, ty within 1e-3 px, mesh vertices within 1e-2 px, colour within
-- 1e-4; display index, draw order and the event sequence exact.
--
-- Nested armatures: the events of the child armatures the slots show (spec: `rig:child(slot)`),
-- each child's in order (the runtime's one queue interleaves them; sinew reports each rig's own).
-- One difference is known and documented (manual/2d.md, "Where sinew and the runtime differ"):
-- an IK weight below 1 (the runtime blends into the previous frame's result; sinew into this
-- frame's pose), so the bones such a constraint moves are not compared.
local helper = require "helper"
local db = require "sinew.dragonbones"
local json = require "dkjson"

local REF = "spec/dragonbones/reference/"

-- under valgrind (50 times slower) the samples that cover every feature at least once: IK and
-- inherit flags, nested armatures and key actions, meshes and FFD in 5.0, and the hand-made files
local VALGRIND_SAMPLES = { mecha_1406 = true, floor_board = true, replace_slot_display = true }

local function reference_files()
  local files = {}
  for _, name in ipairs { "dragon_boy", "effect", "floor_board", "mecha_1004d", "mecha_1406", "mecha_1502b",
    "progress_bar", "replace_slot_display", "you_xin_20703016", "you_xin_body" } do
    if not os.getenv("SINEW_VALGRIND") or VALGRIND_SAMPLES[name] then files[#files + 1] = REF .. name .. ".json" end
  end
  for _, name in ipairs { "events", "ik", "inherit", "legacy50", "tweens" } do
    files[#files + 1] = REF .. "extra/" .. name .. ".json"
  end
  return files
end

local function decode(path)
  local doc, _, err = json.decode(helper.read_file(path), 1, nil)
  assert(doc, path .. ": " .. tostring(err))
  return doc
end

-- the bones an IK constraint with a weight below 1 moves (its root, its tip, what hangs below)
local function history_bones(arm)
  local soft = {}
  for i, k in ipairs(arm.ik) do
    local below = (k.weight or 1) < 1
    for _, anim in ipairs(arm.animations) do
      for _, t in ipairs(anim.ik or {}) do
        if t.constraint == i then
          for _, key in ipairs(t.keys) do if (key.weight or 1) < 1 then below = true end end
        end
      end
    end
    if below then
      local bone = arm.bones[k.bone]
      soft[k.bone] = true
      if (k.chain or 0) > 0 and bone.parent then soft[bone.parent] = true end
    end
  end
  local changed = true
  while changed do
    changed = false
    for i, b in ipairs(arm.bones) do
      if not soft[i] and b.parent and soft[b.parent] then
        soft[i], changed = true, true
      end
    end
  end
  return soft
end

local function within(a, b, tol) return math.abs(a - b) <= tol end -- false for NaN

local function compare_pose(rig, arm, aref, p, soft, where)
  local faults = {}
  local function fault(fmt, ...) faults[#faults + 1] = where .. ": " .. fmt:format(...) end
  for bi, name in ipairs(aref.bones) do
    if not soft[arm.bone[name]] then
      local got, want = { rig:bone(name) }, p.bones[bi]
      for k = 1, 6 do
        local tol = k <= 4 and 1e-4 or 1e-3
        if not within(got[k], want[k], tol) then
          fault("bone %s [%d] %.9g, the runtime %.9g", name, k, got[k], want[k])
        end
      end
    end
  end
  for si, name in ipairs(aref.slots) do
    local got, want = { rig:slot(name) }, p.slots[si]
    if got[1] ~= want[1] then fault("slot %s display %s, the runtime %s", name, got[1], want[1]) end
    if got[2] ~= want[2] then fault("slot %s draw position %s, the runtime %s", name, got[2], want[2]) end
    for k = 3, 6 do
      if not within(got[k], want[k], 1e-4) then
        fault("slot %s colour [%d] %.6g, the runtime %.6g", name, k, got[k], want[k])
      end
    end
  end
  if p.vertices and not next(soft) then
    local out = {}
    for name, want in pairs(p.vertices) do
      local n = rig:vertices(name, out)
      if 2 * n ~= #want then
        fault("slot %s: %d vertices, the runtime %d", name, n, #want / 2)
      else
        for k = 1, #want do
          if not within(out[k], want[k], 1e-2) then
            fault("slot %s vertex number %d %.6g, the runtime %.6g", name, k, out[k], want[k])
            break
          end
        end
      end
    end
  end
  return faults
end

local function event_line(step, kind, name, owner) return ("%d %s %s %s"):format(step, kind, name, owner or "") end

-- plays or seeks one scenario; returns the faults, the poses and the events compared
local function run_scenario(data, aref, anref, sc, soft, where)
  local rig = assert(db.rig(data, aref.name))
  local arm = data.armatures[aref.name]
  local faults, poses, got, want = {}, 0, {}, {}
  local function add(list) for _, f in ipairs(list) do faults[#faults + 1] = f end end
  local at = {}
  for _, p in ipairs(sc.poses) do at[p.step] = p end
  local last = sc.steps or 0
  for _, e in ipairs(sc.events) do want[#want + 1] = event_line(e[1], e[2], e[3], e[4]) end
  -- the child armatures' events, by child
  local nested_got, nested_want = {}, {}
  local function nested(into, step, name, kind, ev, owner)
    into[name] = into[name] or {}
    table.insert(into[name], event_line(step, kind, ev, owner))
  end
  for _, e in ipairs(sc.nested_events or {}) do nested(nested_want, e[1], e[2], e[3], e[4], e[5]) end
  local function children_events(step)
    for s = 1, #arm.slots do
      local child = rig:child(s)
      if child then
        for kind, name, owner in child:events() do nested(nested_got, step, child.model.name, kind, name, owner) end
      end
    end
  end
  if sc.kind == "play" then
    rig:play(anref.name, sc.times >= 0 and sc.times or nil)
    for step = 1, last do
      rig:update(sc.dt)
      for kind, name, owner in rig:events() do got[#got + 1] = event_line(step, kind, name, owner) end
      children_events(step)
      if at[step] then
        add(compare_pose(rig, arm, aref, at[step], soft, ("%s step %d"):format(where, step)))
        poses = poses + 1
      end
    end
  else
    rig:seek(anref.name, sc.time)
    rig:update(0)
    for kind, name, owner in rig:events() do got[#got + 1] = event_line(0, kind, name, owner) end
    children_events(0)
    add(compare_pose(rig, arm, aref, sc.poses[1], soft, ("%s at %.9g s"):format(where, sc.time)))
    poses = 1
  end
  local a, b = table.concat(got, ", "), table.concat(want, ", ")
  if a ~= b then faults[#faults + 1] = ("%s: events\n  sinew:   %s\n  runtime: %s"):format(where, a, b) end
  if sc.kind == "play" then
    for name, list in pairs(nested_want) do
      local x, y = table.concat(nested_got[name] or {}, ", "), table.concat(list, ", ")
      if x ~= y then faults[#faults + 1] = ("%s: child %s's events\n  sinew:   %s\n  runtime: %s"):format(where, name, x, y) end
    end
    for name, list in pairs(nested_got) do
      if not nested_want[name] then faults[#faults + 1] = ("%s: child %s fired %s"):format(where, name, list[1]) end
    end
  end
  return faults, poses, #want
end

describe("sinew.dragonbones rigs against the DragonBones runtime (spec/dragonbones/reference)", function()
  for _, file in ipairs(reference_files()) do
    it("matches " .. file:match("reference/(.*)%.json$") .. ": every armature, animation and scenario", function()
      local ref = decode(file)
      assert.are.equal("5.6.2", ref.runtime)
      local data = assert(db.load(ref.source))
      local faults, poses, events, scenarios = {}, 0, 0, 0
      for _, aref in ipairs(ref.armatures) do
        local arm = assert(data.armatures[aref.name], aref.name)
        local soft = history_bones(arm)
        for _, anref in ipairs(aref.animations) do
          for i, sc in ipairs(anref.scenarios) do
            local where = ("%s %s #%d (%s)"):format(aref.name, anref.name, i, sc.kind)
            local f, p, e = run_scenario(data, aref, anref, sc, soft, where)
            for _, x in ipairs(f) do faults[#faults + 1] = x end
            poses, events, scenarios = poses + p, events + e, scenarios + 1
          end
        end
      end
      assert.is_true(scenarios > 0 and poses > 0)
      local first = {}
      for i = 1, math.min(#faults, 10) do first[i] = faults[i] end
      assert.are.same({}, first)
    end)
  end
end)

describe("a rig's interface", function()
  local data = assert(db.load("assets/dragonbones/mecha_1406/mecha_1406_ske.json"))

  it("names bones and slots in the file's order, and refuses unknown names", function()
    local rig = db.rig(data)
    local bones, slots = rig:bones(), rig:slots()
    assert.are.equal(#data.armatures[1].bones, #bones)
    assert.are.equal(data.armatures[1].bones[1].name, bones[1])
    assert.are.equal(#data.armatures[1].slots, #slots)
    assert.has_error(function() rig:bone("nope") end, "bad argument #1 to 'bone' (no bone 'nope'; the bones are"
      .. " 'root', 'pelvis', 'foot_l', 'foot_r', 'thigh_l' and 12 more)")
    assert.has_error(function() rig:play("nope") end, "bad argument #1 to 'play' (no animation 'nope' in armature"
      .. " 'mecha_1406'; the animations are 'idle', 'walk', 'attack_01', 'death', 'hit' and 3 more)")
    assert.has_error(function() rig:update(-1) end, "bad argument #1 to 'update' (a finite number >= 0 expected)")
    local none, why = db.rig(data, "nope")
    assert.is_nil(none)
    assert.matches("no armature 'nope'", why)
  end)

  it("makes no garbage per update", function()
    local rig = db.rig(data)
    rig:play("walk", 0)
    for _ = 1, 50 do rig:update(1 / 60) end
    assert.are.equal(0, helper.least_garbage(function() rig:update(1 / 60) end, 200))
  end)
end)

describe("a seek to a negative time", function()
  -- The runtime (5.6.2) wraps a negative time as duration - fmod(t, duration), which lands at or
  -- past the end: gotoAndStopByTime shows the end of the animation, its play completed (its state's
  -- currentTime is duration + 1e-6), not the time counted back from the end. The rows below are
  -- what DragonBonesJS 5.6.2 computed (tools/dragonbones/runtime.js: w.seek(arm, name, -0.25), the
  -- reference's rounding): the bones that differ most from a seek to the duration (you_xin_body's
  -- happy, whose last key tweens toward the first before the end) and from a seek to duration -
  -- 0.25 (mecha_1406's walk).
  local cases = {
    { "assets/dragonbones/you_xin_body/body_ske.json", "happy", -0.25, {
      hair0605 = { 0.33988717, 0.94046622, -0.94046622, 0.33988717, 70.620069, -928.190074 },
      hair0403 = { 0.13796316, 0.99043736, -0.99043736, 0.13796316, 36.581011, -1317.134468 },
      hair0604 = { 0.23208745, 0.97269492, -0.97269492, 0.23208745, 38.462078, -1060.941392 },
      hair0603 = { 0.081938508, 0.99663739, -0.99663739, 0.081938508, 26.296401, -1202.691204 },
      hair0602 = { 0.013089597, 0.99991433, -0.99991433, 0.013089597, 24.723111, -1322.110842 },
    } },
    { "assets/dragonbones/mecha_1406/mecha_1406_ske.json", "walk", -0.25, {
      thigh_l_ik = { 1, -2.7554553e-19, -2.7678548e-19, 0.99997975, 91.0159, -76.161418 },
      foot_l = { 6.0956794e-17, 0.9955, -1, 6.123234e-17, 66.778, -29.045 },
      thigh_r_ik = { 0.99252487, 0.12204257, -0.1220401, 0.99250477, -10.688116, -9.940706 },
      calf_l = { 0.68222045, 0.75732935, -0.73949886, 0.66600636, 37.44252, -61.610162 },
      foot_r = { -0.12149338, 0.9880585, -0.99252487, -0.12204257, -50.122, -15.705 },
    } },
  }

  local function pose_at(data, anim, t)
    local rig = db.rig(data)
    rig:seek(anim, t)
    rig:update(0)
    local events = {}
    for kind, name in rig:events() do events[#events + 1] = kind .. " " .. name end
    return rig, table.concat(events, ", ")
  end

  it("shows the animation's end, completed, as the runtime does", function()
    for _, case in ipairs(cases) do
      local data = assert(db.load(case[1]))
      local rig, events = pose_at(data, case[2], case[3])
      assert.are.equal("start " .. case[2], events)
      for name, want in pairs(case[4]) do
        local got = { rig:bone(name) }
        for k = 1, 6 do
          assert.is_true(math.abs(got[k] - want[k]) <= (k <= 4 and 1e-4 or 1e-3), ("%s %s: bone %s [%d] %.9g, the"
            .. " runtime %.9g"):format(case[1], case[2], name, k, got[k], want[k]))
        end
      end
      -- any negative time: the same pose (the end), far from the time counted back from the end
      for _, t in ipairs { -1e-4, -3.3, -1000 } do
        local other = pose_at(data, case[2], t)
        for name in pairs(case[4]) do assert.are.same({ rig:bone(name) }, { other:bone(name) }) end
      end
      local back = pose_at(data, case[2], rig.compiled.animations[case[2]].duration + case[3])
      local apart = 0
      for name in pairs(case[4]) do
        local a, b = { rig:bone(name) }, { back:bone(name) }
        apart = math.max(apart, math.abs(a[5] - b[5]) + math.abs(a[6] - b[6]))
      end
      assert.is_true(apart > 5, ("%s: %g px from seek(duration - 0.25)"):format(case[2], apart))
    end
  end)
end)

describe("rigs made again and again in one process", function()
  -- LuaJIT 2.1.0-beta3's JIT once compiled a loop of the compile step wrongly after a few runs
  -- (`ipairs` over a table constructor), dropping timelines: the same file gives the same rig
  it("give the same pose every time", function()
    local first
    for _ = 1, 8 do
      local rig = db.rig(assert(db.load("assets/dragonbones/you_xin_body/body_ske.json")))
      rig:play("idle")
      rig:update(1 / 60)
      local m = table.concat({ rig:bone("dress0201") }, " ")
      first = first or m
      assert.are.equal(first, m)
    end
  end)
end)

describe("rigs in a group", function()
  it("poses every rig in one call as its own update at the same time does, bit for bit", function()
    local sinew = require "sinew"
    local data = assert(db.load("assets/dragonbones/you_xin_body/body_ske.json"))
    local group, rigs, alone, slots, params = sinew.group(), {}, {}, {}, {}
    for i = 1, 20 do
      rigs[i], alone[i] = db.rig(data), db.rig(data)
      slots[i] = rigs[i]:group(group, i % 2 == 0 and "idle" or "shy", i % 3 ~= 0)
    end
    for frame = 1, 30 do
      for i = 1, 20 do params[slots[i]] = (frame * 0.05 + i * 0.1) % 2 end
      group:run(1 / 60, params)
      for i = 1, 20 do
        local anim = alone[i].compiled.animations[i % 2 == 0 and "idle" or "shy"].core
        alone[i].core:update(anim, params[slots[i]], i % 3 ~= 0)
      end
    end
    for i = 1, 20 do
      for _, name in ipairs(rigs[i]:bones()) do assert.are.same({ alone[i]:bone(name) }, { rigs[i]:bone(name) }) end
      local out_a, out_b = {}, {}
      assert.are.equal(alone[i]:vertices("a_body", out_a), rigs[i]:vertices("a_body", out_b))
      assert.are.same(out_a, out_b)
    end
    assert.has_error(function() group:rig2d(rigs[1].core, db.rig(assert(db.load(
      "assets/dragonbones/dragon_boy/dragon_boy_ske.json"))).compiled.animations[1].core) end)
    assert.are.equal(0, helper.least_garbage(function() group:run(1 / 60, params) end, 50))
  end)
end)

describe("what a long animation costs", function()
  -- an animation holds its keys, not a table per frame: 200 animations of 32,767 frames with two
  -- keys each (the longest the format allows) compile into little memory
  it("is bounded by its keys, not its frames", function()
    -- (dkjson, as `json` above)
    local anims = {}
    for i = 1, 200 do
      anims[i] = { name = "a" .. i, duration = 32767, bone = { { name = "root",
        translateFrame = { { duration = 30000, tweenEasing = 0, x = 0 }, { duration = 2767, x = 10 } } } } }
    end
    local text = json.encode { frameRate = 24, name = "long", version = "5.5", armature = { {
      name = "long", bone = { { name = "root" } }, slot = {}, skin = { { slot = {} } }, animation = anims } } }
    collectgarbage()
    local before = collectgarbage("count")
    local rig = assert(db.rig(assert(db.parse(text))))
    collectgarbage()
    local kb = collectgarbage("count") - before
    assert.is_true(kb < 4096, ("%.0f KB"):format(kb)) -- a frame table per timeline would take 26 MB
    rig:play("a7")
    rig:update(15000 / 24)
    local _, _, _, _, tx = rig:bone("root")
    assert.is_true(math.abs(tx - 5) < 1e-9)
  end)
end)

describe("nested armatures a file multiplies", function()
  it("are refused past Rig.MAX_NESTED, however wide and deep they nest", function()
    -- five levels, each armature showing the next in 20 slots: 20^5 rigs if made
    local arms = {}
    for level = 1, 6 do
      local slots, displays = {}, {}
      if level < 6 then
        for k = 1, 20 do
          slots[k] = { name = "s" .. k, parent = "root" }
          local next_level = "L" .. (level + 1)
          displays[k] = { name = "s" .. k, display = { { type = "armature", name = next_level, path = next_level } } }
        end
      end
      arms[level] = { name = "L" .. level, bone = { { name = "root" } }, slot = slots, skin = { { slot = displays } },
        animation = { { name = "idle", duration = 1 } } }
    end
    local data = assert(db.parse(json.encode { frameRate = 24, name = "wide", version = "5.5", armature = arms }))
    local rig, why = db.rig(data)
    assert.is_nil(rig)
    assert.are.equal("DragonBones: armature 'L1' nests more than 1000 armatures", why)
    assert.is_truthy(db.rig(data, "L5")) -- 20 children: made
  end)
end)
