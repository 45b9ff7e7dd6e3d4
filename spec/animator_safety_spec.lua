-- The animator against hostile input at run time (issue 21): huge steps, speeds and rates that
-- would overflow, parameters that would poison it, a step over thousands of event crossings, and
-- thousands of mutated snapshots. What could hang or exhaust memory runs in a child process of
-- the same interpreter (spec/support/animator_child.lua) with a time and a memory cap, so that a
-- regression fails here instead of stopping the run. SINEW_ANIMATOR_FUZZ sets the number of
-- mutated snapshots and random steps (default 3,000 and 2,000).
local sinew = require "sinew"
local helper = require "helper"
local figures = require "spec.support.figures" -- printed after the run with SINEW_VERBOSE=1
local F = dofile "spec/support/animator_fixture.lua"

local fuzz = tonumber(os.getenv("SINEW_ANIMATOR_FUZZ") or "") or (os.getenv("SINEW_VALGRIND") and 100 or nil)

-- runs scenario `args` of spec/support/animator_child.lua under `seconds` and 1 GB
-- (helper.lua_child): its output and exit status
local function child(args, seconds)
  return helper.lua_child("spec/support/animator_child.lua " .. args, seconds, 1000)
end

local function passes(args, seconds)
  local out, status = child(args, seconds)
  assert.are.equal(0, status, out) -- 124: the time cap, 137 or a memory error: the memory cap
  assert.is_truthy(out:match("\nok ") or out:match("^ok "), out)
  return out
end

describe("sinew.animator under hostile input (in a child process, capped)", function()
  it("returns from huge steps, and keeps every time finite (update(1e19) twice used to hang)", function()
    passes("huge_dt", 30)
  end)

  it("refuses at set what would overflow a speed or a direct node, and is never poisoned by a speed", function()
    passes("rates", 30)
  end)

  it("queues at most MAX_EVENTS per update, the earliest, in time order, in time linear in them", function()
    local out = passes("events", 30)
    figures.add(out:match("ok events ([^\n]*)"))
  end)

  it("takes random parameters and steps without an error or a value that is not finite", function()
    passes("params 20261127 " .. (fuzz or 2000), 120)
  end)

  it("restores snapshots at the edges of the ranges and refuses those beyond them", function()
    passes("restore_edges", 30)
  end)

  it("refuses mutated snapshots changing nothing, and works after those it accepts", function()
    local out = passes("restore 20261127 " .. (fuzz or 3000), 240)
    figures.add(out:match("ok restore ([^\n]*)"))
  end)
end)

describe("anim:restore() is atomic", function()
  local function setup()
    local anim = sinew.animator({ skeleton = F.skeleton, parameters = { go = "trigger" }, layers = { {
      entry = "a", states = { a = { motion = F.clips.a } },
      transitions = { { from = "a", to = "a", when = { { "go" } }, duration = 1 } } } } })
    anim:update(0.1):trigger("go"):update(0.1) -- a fade from a still
    return anim
  end

  it("refuses a pose number beyond the float range before writing anything", function()
    local anim = setup()
    local before = anim:snapshot()
    local s = anim:snapshot()
    s.layers[1].states.a.motion.norm = 0.77 -- (written first, were nothing checked)
    s.layers[1].transition.still[1] = 1e300
    local err = helper.error_of(anim.restore, anim, s)
    assert.matches("bad snapshot: layers%[1%]%.transition%.still%[1%]: 1e%+300 is out of range", err)
    assert.same(before, anim:snapshot())
  end)

  it("reads a snapshot raw, each value once: a proxy's __index is never called", function()
    local anim = setup()
    local before = anim:snapshot()
    local reads = 0
    local s = anim:snapshot()
    local still = s.layers[1].transition.still
    s.layers[1].transition.still = setmetatable({}, { __index = function(_, k)
      reads = reads + 1
      return reads % 2 == 1 and still[k] or 1e300
    end, __len = function() return #still end })
    assert.matches("bad snapshot: layers%[1%]%.transition%.still: has 0 numbers, expected 30",
      helper.error_of(anim.restore, anim, s))
    assert.equal(0, reads)
    assert.same(before, anim:snapshot())
    -- what it keeps is its own: changing the table afterwards changes nothing
    local good = anim:snapshot()
    anim:restore(good)
    good.layers[1].transition.still[1] = 1e300
    good.layers[1].states.a.motion.norm = 5
    assert.same(before.layers[1].states.a.motion.norm, anim:snapshot().layers[1].states.a.motion.norm)
    assert.are_not.equal(1e300, anim:snapshot().layers[1].transition.still[1])
  end)

  it("refuses times and speeds that the run time does not keep", function()
    local anim = setup()
    local before = anim:snapshot()
    for _, c in ipairs {
      { function(s) s.layers[1].states.a.motion.norm = 1e308 end, "norm: 1e+308 is out of range (-2^24 .. 2^24)" },
      { function(s) s.layers[1].transition.duration = 1e308 end, "duration: 1e+308 is out of range (0 .. 1e12)" },
      { function(s) s.layers[1].transition.elapsed = -1 end, "elapsed: -1 is out of range (0 .. 1e12)" },
    } do
      local s = anim:snapshot()
      c[1](s)
      local err = helper.error_of(anim.restore, anim, s)
      assert.is_truthy(err and err:find(c[2], 1, true), err)
      assert.same(before, anim:snapshot())
    end
  end)
end)

describe("the run time's new paths", function()
  it("make no garbage: events of several layers merged in time order, an inertialised coast", function()
    local clips = F.clips
    local anim = sinew.animator({ skeleton = F.skeleton, parameters = { go = false }, layers = {
      { entry = "a", states = { a = { motion = clips.walk, events = { { 0.2, "a1" }, { 0.7, "a2" } } },
          b = { motion = clips.run, events = { { 0.5, "b1" } } } },
        transitions = { { from = "a", to = "b", when = { { "go" } }, duration = 0.3, mode = "inertialize" },
          { from = "b", to = "a", when = { { "go", "==", false } }, duration = 0.3, mode = "inertialize" } } },
      { name = "two", states = { s = { motion = clips.short, events = { { 0.1, "s1" }, { 0.6, "s2" } } } } } } })
    local pose, frame, sorts = sinew.pose(F.skeleton), 0, 0
    local function step()
      frame = frame + 1
      anim:set("go", frame % 40 < 20)
      local lists = anim.ev_name
      anim:update(1 / 30)
      anim:evaluate(pose)
      if anim.ev_name ~= lists then sorts = sorts + 1 end -- merged into the spare lists
      for i = 2, anim.ev_n do
        assert(anim.ev_time[i] >= anim.ev_time[i - 1], "events out of time order")
      end
    end
    -- (layer "two" runs 0.67 loops per frame, so its events land among layer 1's)
    for _ = 1, 30000 do step() end
    assert.is_true(sorts > 100, sorts)
    assert.equal(0, helper.least_garbage(step, 10000))
  end)

  it("give the root motion of a step over thousands of loops, the same as many small steps", function()
    local function walker(speed)
      return sinew.animator({ skeleton = F.skeleton, root_motion = "hips", layers = { { states = {
        s = { motion = F.clips.b, speed = speed } } } } })
    end
    -- position and heading after `steps` updates of dt, each delta applied as the manual says
    local function travel(anim, steps, dt)
      local px, pz, yaw = 0, 0, 0
      for _ = 1, steps do
        anim:update(dt)
        local dx, _, dz, _, qy, _, qw = anim:root_motion()
        local c, s = math.cos(yaw), math.sin(yaw)
        px, pz = px + dx * c + dz * s, pz + dz * c - dx * s
        yaw = yaw + 2 * (math.atan2 or math.atan)(qy, qw)
      end
      return px, pz, yaw
    end
    for _, speed in ipairs { 1, -1 } do
      for _, loops in ipairs { 3.3, 2500.6 } do -- (clip b: 2 s, 20 units along x, a turn of 0.3 rad)
        local n = math.ceil(loops * 4)
        local x1, z1, y1 = travel(walker(speed), 1, 2 * loops)
        local x2, z2, y2 = travel(walker(speed), n, 2 * loops / n)
        assert.is_true(math.abs(x1 - x2) < 1e-6 and math.abs(z1 - z2) < 1e-6, ("%g %g / %g %g"):format(x1, z1, x2, z2))
        local turn = (y1 - y2) % (2 * math.pi)
        assert.is_true(turn < 1e-9 or turn > 2 * math.pi - 1e-9, tostring(turn))
      end
    end
  end)

  it("time the events of a sub-state machine in the animator's seconds, in order with the others", function()
    local a = F.clips.a -- 1 s
    local anim = sinew.animator({ skeleton = F.skeleton, machines = { m = { entry = "w",
      states = { w = { motion = a, events = { { 0.5, "inner" }, { "enter", "inner_enter" } } } } } },
      layers = { { entry = "idle", states = { idle = { motion = a, events = { { 0.2, "outer" } } },
          sub = { motion = { machine = "m" }, speed = 2 } },
        transitions = { { from = "idle", to = "sub", exit_time = 0.5 } } },
        { name = "two", states = { s = { motion = a, events = { { 0.6, "two" } } } } } } })
    anim:update(0.9) -- sub from 0.5 s; inside it, at twice the speed, w's 0.5 at 0.75 s
    local got = {}
    for i = 1, anim.ev_n do got[i] = ("%s %.6g"):format(anim.ev_name[i], anim.ev_time[i]) end
    assert.same({ "outer 0.2", "inner_enter 0.5", "two 0.6", "inner 0.75" }, got)
  end)
end)
