-- Plans and their animators (issue 22): `sinew.animator.compile(def, resources)` once, `plan:new()`
-- per character. Animators of one plan share its scratch and nothing else: what each plays,
-- its parameters, events, snapshots and poses are its own; a plan keeps what it needs alive.
local sinew = require "sinew"
local helper = require "helper"
local figures = require "spec.support.figures" -- printed after the run with SINEW_VERBOSE=1
local Fixture = require "support.animator_fixture"

local skel = Fixture.skeleton

local numbers, same_pose = helper.pose_numbers, helper.same_pose

local function events_of(anim)
  local out = {}
  for name, layer, state, weight in anim:events() do out[#out + 1] = ("%s %s %s %.9g"):format(name, layer, state, weight) end
  return table.concat(out, "; ")
end

describe("sinew.animator.compile", function()
  it("makes a plan whose animators play as animators made alone do, bit for bit", function()
    local plan = sinew.animator.compile(Fixture.definition(), { clips = Fixture.clips })
    assert.equal("sinew.AnimatorPlan (3 joints, layers layer1, upper, head, add)", tostring(plan))
    assert.equal(skel, plan:skeleton())
    local a, alone = plan:new(), Fixture.new()
    assert.equal(skel, a:skeleton())
    local pa, pb = sinew.pose(skel), sinew.pose(skel)
    for f = 1, 700 do
      Fixture.drive(a, f)
      Fixture.drive(alone, f)
      a:evaluate(pa)
      alone:evaluate(pb)
      assert.is_true(same_pose(pa, pb))
      assert.equal(events_of(alone), events_of(a))
    end
    assert.same(alone:snapshot(), a:snapshot())
    assert.same({ alone:root_motion() }, { a:root_motion() })
  end)

  it("gives animators that share no state: parameters, triggers, times, events, snapshots and poses", function()
    local plan = sinew.animator.compile(Fixture.definition(), { clips = Fixture.clips })
    local list, alone, poses, alone_poses = {}, {}, {}, {}
    for i = 1, 4 do
      list[i], alone[i] = plan:new(), Fixture.new()
      poses[i], alone_poses[i] = sinew.pose(skel), sinew.pose(skel)
    end
    -- each its own script (offset frames), played interleaved: animator 2's update between
    -- animator 1's update and evaluate, and so on
    for f = 1, 650 do
      for i = 1, 4 do Fixture.drive(list[i], f + 37 * i) end
      for i = 4, 1, -1 do list[i]:evaluate(poses[i]) end
      for i = 1, 4 do
        Fixture.drive(alone[i], f + 37 * i)
        alone[i]:evaluate(alone_poses[i])
        assert.is_true(same_pose(alone_poses[i], poses[i]))
        assert.equal(events_of(alone[i]), events_of(list[i]))
      end
    end
    for i = 1, 4 do assert.same(alone[i]:snapshot(), list[i]:snapshot()) end
    -- a parameter, a trigger and a layer weight set on one are not seen by another
    local a, b = plan:new(), plan:new()
    a:set("speed", 1.5):trigger("jump"):set_layer_weight("upper", 0.2)
    assert.equal(0, (b:get("speed")))
    assert.is_false(b:get("jump"))
    assert.equal(0.7, b:layer_weight("upper"))
    b:update(0.1)
    assert.same({ "idle" }, { (b:state()), select(3, b:state()) })
    a:update(0.1)
    assert.equal("move", select(3, a:state()))
    a:update(0.1)
    assert.equal("jump", select(3, a:state())) -- (the trigger waited for the fade into move)
    assert.is_false(b:get("jump"))
    assert.are_not.same(a:snapshot(), b:snapshot())
    -- a handler belongs to its animator
    local heard = {}
    a:on("idle_in", function() heard[#heard + 1] = "a" end)
    local c = plan:new()
    c:update(0.1)
    assert.same({}, heard)
  end)

  it("restores one animator's snapshot into another of the same plan, and into one of another plan", function()
    local plan = sinew.animator.compile(Fixture.definition(), { clips = Fixture.clips })
    local a, b = plan:new(), plan:new()
    local other = sinew.animator.compile(Fixture.definition(), { clips = Fixture.clips }):new()
    for f = 1, 333 do Fixture.drive(a, f) end
    local snap = a:snapshot()
    b:restore(snap)
    other:restore(snap)
    local pa, pb, po = sinew.pose(skel), sinew.pose(skel), sinew.pose(skel)
    for f = 334, 500 do
      Fixture.drive(a, f)
      Fixture.drive(b, f)
      Fixture.drive(other, f)
      a:evaluate(pa)
      b:evaluate(pb)
      other:evaluate(po)
      -- the two restored ones bit for bit; the original to float rounding (a restore puts the
      -- poses an inertialised layer keeps back through pose:set, which normalises rotations)
      assert.is_true(same_pose(pb, po))
      local x, y = numbers(pa), numbers(pb)
      for i = 1, #x do assert.is_true(math.abs(x[i] - y[i]) <= 1e-5, ("%.17g and %.17g"):format(x[i], y[i])) end
    end
  end)

  it("keeps alive what it needs: the definition, resources and plan may all be dropped", function()
    local a, b
    do
      local plan = sinew.animator.compile(Fixture.definition(), { clips = Fixture.clips })
      a = plan:new()
      b = plan:new()
    end
    for _ = 1, 3 do collectgarbage() end
    local alone = Fixture.new()
    local pa, pb = sinew.pose(skel), sinew.pose(skel)
    for f = 1, 400 do
      Fixture.drive(a, f)
      Fixture.drive(alone, f)
      if f % 50 == 0 then collectgarbage() end
      a:evaluate(pa)
      alone:evaluate(pb)
      assert.is_true(same_pose(pa, pb))
    end
    b:update(0.5):evaluate(pb)
    -- a plan made of clips that nothing else holds
    local c
    do
      local clips = {}
      for name, clip in pairs(Fixture.clips) do
        clips[name] = sinew.clip { skeleton = skel, tracks = { { joint = "hips", path = "translation",
          times = { 0, clip:duration() }, values = { 0, 0, 0, 1, 0, 0 } } } }
      end
      c = sinew.animator.compile(Fixture.definition(), { clips = clips }):new()
    end
    for _ = 1, 3 do collectgarbage() end
    for f = 1, 300 do Fixture.drive(c, f) end
    c:evaluate(pa)
    assert.is_true(select(1, pa:get(1)) == select(1, pa:get(1))) -- a number, not NaN
  end)

  it("makes small animators: each holds its times and cursors, the plan the poses and the definition", function()
    local plan = sinew.animator.compile(Fixture.definition(), { clips = Fixture.clips })
    -- (measured up to three times: on a loaded machine LuaJIT's collector has been seen to give
    -- back memory of its own during a measure, which read as a negative size)
    local each, whole
    for _ = 1, 3 do
      local keep = {}
      for i = 1, 20 do keep[i] = plan:new() end
      for _ = 1, 3 do collectgarbage() end
      local before = collectgarbage("count")
      for i = 21, 220 do keep[i] = plan:new() end
      for _ = 1, 3 do collectgarbage() end
      each = (collectgarbage("count") - before) * 1024 / 200
      assert.equal(220, #keep)
      keep = nil -- luacheck: ignore 311 (let go before the next measure)
      for _ = 1, 3 do collectgarbage() end
      before = collectgarbage("count")
      local alone = {}
      for i = 1, 20 do alone[i] = Fixture.new() end
      for _ = 1, 3 do collectgarbage() end
      whole = (collectgarbage("count") - before) * 1024 / #alone
      if each > 0 and whole > 0 and each < whole / 4 then break end
    end
    -- (this definition: 4 layers, 7 states, a sub-state machine, 22 motion slots, a pose of 3 joints)
    figures.add(("an animator of a plan: %.0f bytes; one made alone: %.0f bytes"):format(each, whole))
    assert.is_true(each < whole / 4, ("an animator of a plan takes %.0f bytes, one made alone %.0f"):format(each, whole))
  end)

  it("checks a state's transitions again as soon as a parameter they read changes", function()
    -- (a check that found none is not repeated while its parameters keep their values)
    local plan = sinew.animator.compile({ skeleton = skel, parameters = { x = 0, go = "trigger", on = false },
      layers = { { entry = "a", states = { a = { motion = "a" }, b = { motion = "b" }, c = { motion = "a" } },
        transitions = { { from = "a", to = "b", when = { { "x", ">", 1 } } },
                        { from = "b", to = "c", when = { { "go" }, { "on", "==", true } } },
                        { from = "c", to = "a", exit_time = 0.5 } } } } }, { clips = Fixture.clips })
    local anim = plan:new()
    for _ = 1, 50 do anim:update(0.01) end
    assert.equal("a", (anim:state()))
    anim:set("x", 1)
    anim:update(0.01)
    assert.equal("a", (anim:state()))
    anim:set("x", 1.5)
    anim:update(0.01)
    assert.equal("b", (anim:state()))
    anim:trigger("go")
    for _ = 1, 20 do anim:update(0.01) end
    assert.equal("b", (anim:state())) -- (`on` is false: the trigger waits)
    anim:set("on", true)
    anim:update(0.01)
    assert.equal("c", (anim:state()))
    anim:set("x", 0)
    for _ = 1, 60 do anim:update(0.01) end -- the exit time is checked every update
    assert.equal("a", (anim:state()))
    anim:update(0.01)
    assert.equal("a", (anim:state()))
    anim:set("x", 1.5) -- the value a's last check but one saw: checked again all the same
    anim:update(0.01)
    assert.equal("b", (anim:state()))
  end)

  it("makes no garbage per frame for a crowd of one plan", function()
    local plan = sinew.animator.compile(Fixture.definition(), { clips = Fixture.clips })
    local list, poses = {}, {}
    for i = 1, 8 do list[i], poses[i] = plan:new(), sinew.pose(skel) end
    local f = 0
    local function frame()
      f = f + 1
      for i = 1, 8 do
        local anim = list[i]
        anim:set("speed", ((f + 40 * i) % 300) < 150 and 1.4 or 0)
        anim:set("x", 0.3 + 0.01 * i)
        anim:update(1 / 60)
        anim:evaluate(poses[i])
      end
    end
    for _ = 1, 3000 do frame() end
    assert.equal(0, helper.least_garbage(frame, 2000))
  end)

  it("refuses what is not a plan, and definitions as sinew.animator does", function()
    local plan = sinew.animator.compile(Fixture.definition(), { clips = Fixture.clips })
    local err = helper.error_of(plan.new, {})
    assert.is_truthy(err:find("bad argument #1 to 'new' (sinew.AnimatorPlan expected, got table)", 1, true), err)
    err = helper.error_of(plan.new, setmetatable({}, getmetatable(plan)))
    assert.is_truthy(err:find("sinew.AnimatorPlan expected", 1, true), err)
    err = helper.error_of(plan.skeleton, 5)
    assert.is_truthy(err:find("(sinew.AnimatorPlan expected, got number)", 1, true), err)
    local anim = plan:new()
    err = helper.error_of(plan.new, anim)
    assert.is_truthy(err:find("sinew.AnimatorPlan expected", 1, true), err)
    err = helper.error_of(anim.update, plan, 0.1)
    assert.is_truthy(err:find("sinew.Animator expected", 1, true), err)
    local d = Fixture.definition()
    d.layers[1].transitions[1].to = "nowhere"
    err = helper.error_of(sinew.animator.compile, d, { clips = Fixture.clips })
    assert.is_truthy(err:find("layers[1].transitions[1].to: unknown state 'nowhere'", 1, true), err)
    err = helper.error_of(sinew.animator.compile, Fixture.definition())
    assert.is_truthy(err:find("unknown clip", 1, true), err)
  end)

  it("refuses an update of one animator from a finaliser while another of its plan updates", function()
    local plan = sinew.animator.compile(Fixture.definition(), { clips = Fixture.clips })
    local a, b = plan:new(), plan:new()
    local pose = sinew.pose(skel)
    local seen = {}
    helper.eager_collector(true)
    for f = 1, 200 do
      for _ = 1, 3 do
        helper.finaliser(function()
          local ok, err = pcall(b.update, b, 0.01)
          if not ok then seen[#seen + 1] = tostring(err) end
        end)
      end
      Fixture.drive(a, f)
      a:evaluate(pose)
    end
    helper.eager_collector(false)
    collectgarbage()
    for _, err in ipairs(seen) do
      assert.is_truthy(err:find("of another animator of the same plan (from a finaliser): not allowed", 1, true)
        or err:find("the animator's own", 1, true), err)
    end
    b:update(0.1):evaluate(pose)
  end)
end)
