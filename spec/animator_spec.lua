-- The animator (lua/sinew/animator/): parameters, state machines, blend trees, transitions,
-- interruption, layers, events, driven by update(dt) sequences with exact expectations. The
-- clips move joint 1 along x at a known speed, so a pose's x tells which clip played how far.
local sinew = require "sinew"
local helper = require "helper"

local skel = sinew.skeleton { names = { "hips", "spine", "head" }, parents = { 0, 1, 2 } }

-- a clip of duration d moving joint `joint` (default hips) along x from 0 to `x1` (linear)
local function line(d, x1, joint)
  return sinew.clip { skeleton = skel, tracks = {
    { joint = joint or "hips", path = "translation", times = { 0, d }, values = { 0, 0, 0, x1, 0, 0 } } } }
end

local clips = {
  a = line(1, 1),         -- x = t
  b = line(2, 20),        -- x = 10 t
  walk = line(0.7, 7),    -- 0.7 s cycle, x = 10 t
  run = line(1.16, 11.6), -- 1.16 s cycle, x = 10 t
  still = line(1, 0),
}

local function x_of(pose, j) return (pose:get(j or 1)) end

local function assert_near(want, got, tol, what)
  assert(helper.near_abs(want, got, tol or 1e-5), ("%s: expected %.9g, got %.9g"):format(what or "value", want, got))
end

-- an animator of one layer
local function machine(states, transitions, params, entry)
  return sinew.animator({ skeleton = skel, parameters = params or {}, layers = { {
    entry = entry, states = states, transitions = transitions } } }, { clips = clips })
end

local function events_of(anim)
  local out = {}
  for name, layer, state, weight in anim:events() do out[#out + 1] = { name, layer, state, weight } end
  return out
end

local function names_of(anim)
  local out = {}
  for name in anim:events() do out[#out + 1] = name end
  return table.concat(out, " ")
end

describe("sinew.animator", function()
  describe("a single state", function()
    it("plays its clip in time, looping", function()
      local anim = machine({ idle = { motion = "a" } })
      local pose = sinew.pose(skel)
      anim:update(0.25):evaluate(pose)
      assert_near(0.25, x_of(pose))
      anim:update(1.0):evaluate(pose)
      assert_near(0.25, x_of(pose))
      local name, norm = anim:state()
      assert.equal("idle", name)
      assert_near(1.25, norm, 1e-12)
    end)

    it("holds the last frame of a state that does not loop, and runs at its speed", function()
      local anim = machine({ once = { motion = "b", loop = false, speed = 2 } })
      local pose = sinew.pose(skel)
      anim:update(0.5):evaluate(pose)
      assert_near(10, x_of(pose))
      anim:update(5):evaluate(pose)
      assert_near(20, x_of(pose))
    end)

    it("takes its speed from a parameter, and plays backwards", function()
      local anim = machine({ idle = { motion = "b", speed = 1, speed_parameter = "rate" } }, nil, { rate = 1 })
      local pose = sinew.pose(skel)
      anim:update(0.5):evaluate(pose)
      assert_near(5, x_of(pose))
      anim:set("rate", -1):update(0.75):evaluate(pose)
      assert_near(17.5, x_of(pose)) -- 0.5 - 0.75 wraps to 1.75 s
    end)
  end)

  describe("parameters", function()
    it("sets and gets every kind, and refuses the wrong type", function()
      local anim = machine({ idle = { motion = "a" } }, nil,
        { speed = 0, count = { int = 2 }, grounded = true, jump = "trigger", f = { float = 0.5 } })
      assert.equal(0, anim:get("speed"))
      assert.equal(2, anim:get("count"))
      assert.equal(true, anim:get("grounded"))
      assert.equal(false, anim:get("jump"))
      assert.equal(0.5, anim:get("f"))
      anim:set("speed", 1.5):set("count", 3):set("grounded", false):trigger("jump")
      assert.equal(1.5, anim:get("speed"))
      assert.equal(true, anim:get("jump"))
      anim:reset_trigger("jump")
      assert.equal(false, anim:get("jump"))
      local cases = {
        { function() anim:set("nope", 1) end, "unknown parameter 'nope'" },
        { function() anim:set("speed", "fast") end, "parameter 'speed' is a number: got 'fast'" },
        { function() anim:set("speed", 0 / 0) end, "parameter 'speed' is a number: got nan" },
        { function() anim:set("speed", math.huge) end, "parameter 'speed' is a number: got inf" },
        { function() anim:set("count", 1.5) end, "parameter 'count' is an int: got 1.5" },
        { function() anim:set("grounded", 1) end, "parameter 'grounded' is a bool: got 1" },
        { function() anim:trigger("speed") end, "parameter 'speed' is not a trigger" },
        { function() anim:get(nil) end, "unknown parameter nil" },
      }
      for _, c in ipairs(cases) do
        local err = helper.error_of(c[1])
        assert.is_truthy(err and err:find(c[2], 1, true), ("%s: got %s"):format(c[2], tostring(err)))
      end
      assert.equal(1.5, anim:get("speed")) -- a failed call changes nothing
    end)
  end)

  describe("transitions", function()
    local states = { idle = { motion = "a" }, move = { motion = "b" } }

    it("cross-fade linearly over their duration, from the frame the condition holds", function()
      local anim = machine(states, {
        { from = "idle", to = "move", when = { { "speed", ">", 0.1 } }, duration = 0.5 } }, { speed = 0 }, "idle")
      local pose = sinew.pose(skel)
      anim:update(0.25)
      anim:set("speed", 1)
      anim:update(0.25):evaluate(pose)
      local from, norm, to, progress = anim:state()
      assert.same({ "idle", "move" }, { from, to })
      assert_near(0.5, norm, 1e-12)
      assert_near(0.5, progress, 1e-12)
      -- idle at 0.5 s (x 0.5), move at 0.25 s (x 2.5), half and half
      assert_near(0.5 * 0.5 + 0.5 * 2.5, x_of(pose))
      local weights = {}
      for clip, w, t in anim:active() do weights[#weights + 1] = { clip, w, t } end
      assert.equal(clips.a, weights[1][1])
      assert_near(0.5, weights[1][2], 1e-12)
      assert_near(0.5, weights[1][3], 1e-6)
      assert.equal(clips.b, weights[2][1])
      assert_near(0.25, weights[2][3], 1e-6)
      anim:update(0.25):evaluate(pose)
      assert.same({ "move" }, { (anim:state()) })
      assert.is_nil(select(3, anim:state()))
      assert_near(5, x_of(pose))
    end)

    it("follow a smoothstep or a curve table", function()
      for _, c in ipairs { { "smoothstep", 0.25 * 0.25 * (3 - 0.5) }, { { 0, 0.8, 1 }, 0.4 } } do
        local anim = machine(states, { { from = "idle", to = "move", when = { { "go" } }, duration = 1,
          curve = c[1] } }, { go = true }, "idle")
        local pose = sinew.pose(skel)
        anim:update(0.25):evaluate(pose)
        local w
        for clip, weight in anim:active() do if clip == clips.b then w = weight end end
        assert_near(c[2], w, 1e-12, tostring(c[1]))
      end
    end)

    it("take a duration in cycles of the source with fixed_duration = false", function()
      local anim = machine(states, { { from = "move", to = "idle", when = { { "go" } }, duration = 0.25,
        fixed_duration = false } }, { go = true }, "move")
      anim:update(0.25)
      assert_near(0.5, select(4, anim:state()), 1e-12) -- 0.25 of b's 2 s is 0.5 s
    end)

    it("start the destination at an offset", function()
      local anim = machine(states, { { from = "idle", to = "move", when = { { "go" } }, offset = 0.5 } },
        { go = true }, "idle")
      local pose = sinew.pose(skel)
      anim:update(0.1):evaluate(pose)
      assert_near(10 * (1 + 0.1), x_of(pose))
    end)

    it("take priority in the order written, 'any' included", function()
      local anim = machine({ idle = { motion = "a" }, move = { motion = "b" }, other = { motion = "still" } }, {
        { from = "any", to = "other", when = { { "x", ">", 1 } } },
        { from = "idle", to = "move", when = { { "x", ">", 0 } } } }, { x = 2 }, "idle")
      anim:update(0.1)
      assert.equal("other", anim:state())
    end)

    it("consume a trigger once; a trigger no transition uses stays set", function()
      local anim = machine(states, {
        { from = "idle", to = "move", when = { { "go" } } },
        { from = "move", to = "idle", when = { { "go" } } } }, { go = "trigger", other = "trigger" }, "idle")
      anim:trigger("go"):trigger("other")
      anim:update(0.1)
      assert.equal("move", anim:state())
      assert.is_false(anim:get("go"))
      anim:update(0.1)
      assert.equal("move", anim:state()) -- consumed: it does not fire the way back
      assert.is_true(anim:get("other"))
    end)

    it("leave at an exit time below 1 in any loop, at the instant of the crossing", function()
      local anim = machine(states, { { from = "idle", to = "move", exit_time = 0.75, when = { { "go" } } } },
        { go = false }, "idle")
      local pose = sinew.pose(skel)
      anim:update(1.0) -- crosses 0.75 without the condition
      assert.equal("idle", anim:state())
      anim:set("go", true)
      anim:update(0.1) -- at 1.1: past 0.75 of the second loop? no (0.1): waits for 1.75
      assert.equal("idle", anim:state())
      anim:update(0.7):evaluate(pose) -- crosses 1.75 at 0.65 into the step: 0.05 s of move
      assert.equal("move", anim:state())
      assert_near(0.5, x_of(pose))
    end)

    it("leave at an exit time above 1 once, and at the end of a clip that does not loop", function()
      local anim = machine({ once = { motion = "a", loop = false }, move = { motion = "b" } },
        { { from = "once", to = "move", exit_time = 1, duration = 0 } }, {}, "once")
      local pose = sinew.pose(skel)
      anim:update(0.9)
      assert.equal("once", anim:state())
      anim:update(0.2):evaluate(pose)
      assert.equal("move", anim:state())
      assert_near(1, x_of(pose)) -- 0.1 s of b
      local anim2 = machine(states, { { from = "idle", to = "move", exit_time = 2.5 } }, {}, "idle")
      anim2:update(2.4)
      assert.equal("idle", anim2:state())
      anim2:update(0.2)
      assert.equal("move", anim2:state())
    end)

    it("go to the playing state only when allowed, fading from a still of its pose", function()
      local anim = machine(states, { { from = "any", to = "idle", when = { { "go" } } } }, { go = "trigger" }, "idle")
      anim:update(0.5):trigger("go"):update(0.1)
      assert_near(0.6, select(2, anim:state()), 1e-12) -- no restart
      anim = machine(states, { { from = "any", to = "idle", when = { { "go" } }, can_self = true, duration = 0.2 } },
        { go = "trigger" }, "idle")
      local pose = sinew.pose(skel)
      anim:update(0.5):trigger("go"):update(0.1):evaluate(pose)
      local from, norm, to = anim:state()
      assert.same({ "idle", "idle" }, { from, to })
      assert_near(0.5 * 0.5 + 0.5 * 0.1, x_of(pose)) -- the still at 0.5, the restart at 0.1
      assert_near(0.5, norm, 1e-12)
    end)

    describe("interruption", function()
      local three = { a = { motion = "a" }, b = { motion = "b" }, c = { motion = "still" } }

      local function run(interruption, param)
        local anim = machine(three, {
          { from = "a", to = "b", when = { { "ab" } }, duration = 1, interruption = interruption },
          { from = "a", to = "c", when = { { "ac" } }, duration = 1 },
          { from = "b", to = "c", when = { { "bc" } }, duration = 1 } },
          { ab = false, ac = false, bc = false }, "a")
        anim:update(0.2):set("ab", true):update(0.5)
        anim:set(param, true):update(0.1)
        return anim
      end

      it("does not happen with 'none'", function()
        for _, param in ipairs { "ac", "bc" } do
          local from, _, to = run("none", param):state()
          assert.same({ "a", "b" }, { from, to })
        end
      end)

      it("takes the source's or the destination's transitions as the interruption source says", function()
        for _, c in ipairs {
          { "source", "ac", "c" }, { "source", "bc", "b" },
          { "destination", "bc", "c" }, { "destination", "ac", "b" },
          { "source_then_destination", "ac", "c" }, { "source_then_destination", "bc", "c" },
          { "destination_then_source", "ac", "c" }, { "destination_then_source", "bc", "c" },
        } do
          local anim = run(c[1], c[2])
          assert.equal(c[3], select(3, anim:state()), c[1] .. " " .. c[2])
        end
      end)

      it("fades from the pose of the instant it happens: no pop", function()
        local anim = machine(three, {
          { from = "a", to = "b", when = { { "ab" } }, duration = 1, interruption = "destination" },
          { from = "b", to = "c", when = { { "bc" } }, duration = 1 } }, { ab = true, bc = false }, "a")
        local before, after = sinew.pose(skel), sinew.pose(skel)
        anim:update(0.5):evaluate(before)
        anim:set("bc", true):update(0):evaluate(after)
        assert.equal("c", select(3, anim:state()))
        assert_near(x_of(before), x_of(after))
        anim:update(0.5):evaluate(after)
        assert_near(0.5 * x_of(before), x_of(after)) -- half of the still, half of c (x 0)
      end)
    end)
  end)

  describe("blend trees", function()
    it("weigh their children by the blend space and merge children that play the same clip", function()
      local anim = machine({ move = { motion = { blend = "1d", parameter = "speed",
        children = { { 0, "a" }, { 1, "b" }, { 2, "a" } } } } }, nil, { speed = 1.5 })
      local pose = sinew.pose(skel)
      anim:update(0.5):evaluate(pose)
      local seen = {}
      for clip, w in anim:active() do seen[#seen + 1] = { clip, w } end
      assert.equal(2, #seen) -- a once, weight 0.5
      assert.equal(clips.a, seen[1][1])
      assert_near(0.5, seen[1][2], 1e-12)
      assert_near(0.5 * 0.5 + 0.5 * 5, x_of(pose))
    end)

    it("keep children in step with sync: the cycle is the weighted mean (0.7 s and 1.16 s)", function()
      local anim = machine({ move = { motion = { blend = "1d", parameter = "speed", sync = true,
        children = { { 0, "walk" }, { 1, "run" } } } } }, nil, { speed = 0.5 })
      local cycle = 0.5 * 0.7 + 0.5 * 1.16
      anim:update(cycle / 4)
      local times = {}
      for clip, _, t in anim:active() do times[clip] = t end
      assert_near(0.25 * 0.7, times[clips.walk], 1e-6)
      assert_near(0.25 * 1.16, times[clips.run], 1e-6)
      assert_near(0.25, select(2, anim:state()), 1e-6) -- clip durations are float32
      -- rates scale the cycle: L = sum w len / rate
      anim = machine({ move = { motion = { blend = "1d", parameter = "speed", sync = true,
        children = { { 0, "walk", rate = 2 }, { 1, "run" } } } } }, nil, { speed = 0.5 })
      anim:update(0.1)
      assert_near(0.1 / (0.5 * 0.35 + 0.5 * 1.16), select(2, anim:state()), 1e-6)
    end)

    it("follow the heaviest child with sync = \"leader\", and run freely without sync", function()
      local anim = machine({ move = { motion = { blend = "1d", parameter = "speed", sync = "leader",
        children = { { 0, "walk" }, { 1, "run" } } } } }, nil, { speed = 0.75 })
      anim:update(0.29)
      assert_near(0.25, select(2, anim:state()), 1e-6) -- run leads: 0.29 / 1.16
      anim = machine({ move = { motion = { blend = "1d", parameter = "speed",
        children = { { 0, "walk" }, { 1, "run" } } } } }, nil, { speed = 0.75 })
      anim:update(0.35)
      local times = {}
      for clip, _, t in anim:active() do times[clip] = t end
      assert_near(0.35, times[clips.walk], 1e-6)
      assert_near(0.35, times[clips.run], 1e-6)
    end)

    it("average rotations as their node says", function()
      local h = math.rad(150)
      local turn = sinew.clip { skeleton = skel, tracks = {
        { joint = "hips", path = "rotation", times = { 0 }, values = { 0, math.sin(h / 2), 0, math.cos(h / 2) } } } }
      local still = sinew.clip { skeleton = skel, tracks = {} }
      local atan2 = math.atan2 or math.atan
      for _, c in ipairs { { "karcher", 112.5 }, { "power", 112.5 } } do
        local anim = machine({ s = { motion = { blend = "1d", parameter = "x", rotation = c[1],
          children = { { 0, still }, { 1, turn } } } } }, nil, { x = 0.75 })
        local pose = sinew.pose(skel)
        anim:update(0.1):evaluate(pose)
        local _, y, _, w = pose:get_rotation(1)
        assert_near(c[2], math.deg(2 * atan2(y, w)), 1e-3, c[1])
      end
    end)

    it("nest, in 2-D modes too", function()
      local anim = machine({ move = { motion = { blend = "freeform_cartesian", parameters = { "x", "y" },
        children = { { { 0, 0 }, "still" }, { { 1, 0 }, "a" },
          { { 0, 1 }, { blend = "1d", parameter = "speed", children = { { 0, "a" }, { 1, "b" } } } } } } } }, nil,
        { x = 0, y = 1, speed = 1 })
      local pose = sinew.pose(skel)
      anim:update(0.5):evaluate(pose)
      assert_near(5, x_of(pose))
    end)
  end)

  describe("layers", function()
    it("override the joints of their mask with their weight", function()
      local upper = sinew.mask(skel, { spine = 1 }, 0)
      local lower = line(1, 1, "hips")
      local wave = line(1, 4, "spine")
      local anim = sinew.animator({ skeleton = skel, layers = {
        { states = { walk = { motion = lower } } },
        { name = "upper", mask = upper, weight = 0.5, states = { wave = { motion = wave } } },
      } })
      local pose = sinew.pose(skel)
      anim:update(0.5):evaluate(pose)
      assert_near(0.5, x_of(pose, 1))       -- hips: the base layer
      assert_near(0.5 * 2, x_of(pose, 2))   -- spine: half the wave's 2
      anim:set_layer_weight("upper", 1):evaluate(pose)
      assert_near(2, x_of(pose, 2))
      assert.equal(1, anim:layer_weight("upper"))
    end)

    it("follow another layer's states and fades with their own motions when synced", function()
      local upper = sinew.mask(skel, { spine = 1 }, 0)
      local anim = sinew.animator({ skeleton = skel, parameters = { go = false }, layers = {
        { entry = "idle", states = { idle = { motion = "a" }, move = { motion = "b" }, rest = { motion = "still" } },
          transitions = { { from = "idle", to = "move", when = { { "go" } }, duration = 0.5 } } },
        { name = "arms", sync = "layer1", mask = upper,
          motions = { idle = line(1, 4, "spine"), move = line(2, 40, "spine") } },
      } }, { clips = clips })
      local pose = sinew.pose(skel)
      anim:update(0.25):evaluate(pose)
      assert_near(0.25, x_of(pose, 1))
      assert_near(1, x_of(pose, 2))          -- the arms' idle, at idle's time
      anim:set("go", true):update(0.25):evaluate(pose)
      assert_near(0.5 * 2 + 0.5 * 5, x_of(pose, 2)) -- idle arms at 0.5 s, move arms at 0.25 s, half each
      assert.equal("idle", anim:state("arms"))
      assert.matches("follows layer 'layer1'", helper.error_of(anim.travel, anim, "move", "arms"))
      local seen = 0
      for _, _, _, layer in anim:active() do if layer == "arms" then seen = seen + 1 end end
      assert.equal(2, seen)
    end)

    it("add the motion of an additive layer relative to its clip's first frame", function()
      local offset = sinew.clip { skeleton = skel, tracks = {
        { joint = "hips", path = "translation", times = { 0, 1 }, values = { 5, 0, 0, 7, 0, 0 } } } }
      local anim = sinew.animator({ skeleton = skel, layers = {
        { states = { walk = { motion = "a" } } },
        { name = "breathe", mode = "additive", states = { b = { motion = offset } } },
      } }, { clips = clips })
      local pose = sinew.pose(skel)
      anim:update(0.5):evaluate(pose)
      assert_near(0.5 + 1, x_of(pose)) -- 0.5 from a, 6 - 5 from the additive clip
    end)
  end)

  describe("events", function()
    local evs = { { 0.25, "quarter" }, { 0.75, "three" } }

    it("fire once per crossing, in time order, also when a step spans several loops", function()
      local anim = machine({ idle = { motion = "a", events = evs } })
      anim:update(0.2)
      assert.equal("", names_of(anim))
      anim:update(0.1)
      assert.equal("quarter", names_of(anim))
      anim:update(2.5) -- from 0.3 to 2.8: 0.75, 1.25, 1.75, 2.25, 2.75
      assert.equal("three quarter three quarter three", names_of(anim))
    end)

    it("fire on enter and exit, and from both sides of a cross-fade with their weights", function()
      local anim = machine({
        idle = { motion = "a", events = { { 0.75, "idle_mark" }, { "exit", "left_idle" } } },
        move = { motion = "b", events = { { 0.1, "move_mark" }, { "enter", "entered_move" } } },
      }, { { from = "idle", to = "move", when = { { "go" } }, duration = 0.5 } }, { go = false }, "idle")
      anim:update(0.5):set("go", true):update(0.3)
      -- move enters at 0; its 0.1 mark (0.2 s) at 0.2: weight 0.4; idle's 0.75 at 0.25: weight 0.5
      local list = events_of(anim)
      assert.equal(3, #list)
      assert.same({ "entered_move", "layer1", "move", 1 }, list[1])
      assert.same({ "move_mark", "layer1", "move" }, { list[2][1], list[2][2], list[2][3] })
      assert_near(0.4, list[2][4], 1e-9)
      assert.same({ "idle_mark", "layer1", "idle" }, { list[3][1], list[3][2], list[3][3] })
      assert_near(0.5, list[3][4], 1e-9)
      anim:update(0.3)
      assert.equal("left_idle", names_of(anim))
    end)

    it("fire backwards when a state plays backwards", function()
      local anim = machine({ idle = { motion = "a", speed = -1, events = evs } })
      anim:update(0.3) -- 0 to -0.3: crosses -0.25 (= 0.75 of the loop before)
      assert.equal("three", names_of(anim))
      anim:update(1)
      assert.equal("quarter three", names_of(anim))
    end)

    it("reach handlers registered with on, after the update", function()
      local anim = machine({ idle = { motion = "a", events = evs } })
      local got = {}
      anim:on("quarter", function(name, layer, state, weight) got[#got + 1] = { name, layer, state, weight } end)
      anim:update(1.3)
      assert.same({ { "quarter", "layer1", "idle", 1 }, { "quarter", "layer1", "idle", 1 } }, got)
    end)
  end)

  describe("inertialisation", function()
    local function run(mode)
      local anim = machine({ go = { motion = "b" }, stop = { motion = "still" } },
        { { from = "go", to = "stop", when = { { "halt" } }, duration = 0.5, mode = mode } }, { halt = false }, "go")
      local pose, xs, dt = sinew.pose(skel), {}, 1 / 60
      for f = 1, 30 do
        anim:update(dt):evaluate(pose)
        xs[f] = x_of(pose)
      end
      anim:set("halt", true):update(0):evaluate(pose)
      xs.switch = x_of(pose)
      anim:update(1e-4):evaluate(pose) -- the velocity just after the switch
      xs.after = x_of(pose)
      for f = 31, 90 do
        anim:update(dt):evaluate(pose)
        xs[f] = x_of(pose)
      end
      return xs, anim
    end

    it("keeps the pose and its velocity continuous at the switch, and lands on the destination", function()
      local xs = run("inertialize")
      local dt = 1 / 60
      assert_near(xs[30], xs.switch, 1e-6)                  -- no jump in the pose
      local before, after = (xs[30] - xs[29]) / dt, (xs.after - xs.switch) / 1e-4
      assert_near(10, before, 1e-3)
      assert.is_true(math.abs(after - before) < 0.01 * before, ("velocity %g then %g"):format(before, after))
      assert_near(0, xs[61], 1e-6)                           -- after 0.5 s, the destination alone
      -- a linear cross-fade from a live source keeps the pose but breaks the velocity
      local cross = run("crossfade")
      assert_near(cross[30], cross.switch, 1e-6)
      assert.is_true(math.abs((cross.after - cross.switch) / 1e-4 - 10) > 5)
    end)

    it("costs one pose: the source stops playing", function()
      local anim = machine({ go = { motion = "b" }, stop = { motion = "still" } },
        { { from = "go", to = "stop", when = { { "halt" } }, duration = 0.5, mode = "inertialize" } },
        { halt = false }, "go")
      anim:update(0.2):evaluate(sinew.pose(skel))
      anim:set("halt", true):update(0.1)
      local n = 0
      for clip in anim:active() do
        n = n + 1
        assert.equal(clips.still, clip)
      end
      assert.equal(1, n)
    end)
  end)

  describe("root motion", function()
    local walk = sinew.clip { skeleton = skel, tracks = {
      { joint = "hips", path = "translation", times = { 0, 1 }, values = { 0, 0.5, 0, 0, 0.5, 1 } } } }
    local run3 = sinew.clip { skeleton = skel, tracks = {
      { joint = "hips", path = "translation", times = { 0, 1 }, values = { 0, 0.5, 0, 0, 0.5, 3 } } } }
    local h = math.sqrt(0.5)
    local turn = sinew.clip { skeleton = skel, tracks = {
      { joint = "hips", path = "rotation", times = { 0, 1 }, values = { 0, 0, 0, 1, 0, h, 0, h } } } }

    local function walker(states, transitions, params, entry)
      return sinew.animator({ skeleton = skel, root_motion = "hips", parameters = params or {}, layers = { {
        entry = entry, states = states, transitions = transitions } } })
    end

    it("gives the root's motion per update, across loop ends, and keeps it out of the pose", function()
      local anim = walker({ go = { motion = walk } })
      local pose = sinew.pose(skel)
      anim:update(0.25):evaluate(pose)
      local dx, dy, dz, qx, qy, qz, qw = anim:root_motion()
      assert_near(0, dx, 1e-6); assert_near(0, dy, 1e-12); assert_near(0.25, dz, 1e-6)
      assert.same({ 0, 0, 0, 1 }, { qx, qy, qz, qw })
      local tx, ty, tz = pose:get_translation(1)
      assert.same({ 0, 0.5 }, { tx, ty }) -- height stays
      assert_near(0, tz, 1e-7)
      anim:update(2.5)
      assert_near(2.5, select(3, anim:root_motion()), 1e-5) -- from 0.25 over two loop ends to 2.75
      local total = 0
      for _ = 1, 60 do total = total + select(3, anim:update(1 / 60):root_motion()) end
      assert_near(1, total, 1e-5)
    end)

    it("takes the turn about y out, and plays backwards", function()
      local anim = walker({ go = { motion = turn } })
      local pose = sinew.pose(skel)
      anim:update(0.5):evaluate(pose)
      local _, _, _, qx, qy, qz, qw = anim:root_motion()
      local s = math.sin(math.rad(22.5))
      assert_near(0, qx, 1e-12); assert_near(s, qy, 1e-5); assert_near(0, qz, 1e-12)
      assert_near(math.cos(math.rad(22.5)), qw, 1e-5)
      local x, y, z, w = pose:get_rotation(1)
      assert_near(0, x, 1e-6); assert_near(0, y, 1e-6); assert_near(0, z, 1e-6); assert_near(1, w, 1e-6)
      local back = walker({ go = { motion = walk, speed = -1 } })
      back:update(0.3)
      assert_near(-0.3, select(3, back:root_motion()), 1e-5)
    end)

    it("weighs the clips of a fade as the fade does", function()
      local anim = walker({ a = { motion = walk }, b = { motion = run3 } },
        { { from = "a", to = "b", when = { { "go" } }, duration = 1 } }, { go = false }, "a")
      anim:update(0.1):set("go", true)
      anim:update(0.5) -- the fade weight at the end: 0.5
      assert_near(0.5 * 0.5 * 1 + 0.5 * 0.5 * 3, select(3, anim:root_motion()), 1e-5)
    end)
  end)

  describe("sub-state machines", function()
    local function loco_def(extra)
      local d = { skeleton = skel, parameters = { speed = 0, done = false, go = false },
        machines = { loco = { entry = "walk", states = { walk = { motion = "a" }, run = { motion = "b" } },
          transitions = { { from = "walk", to = "run", when = { { "speed", ">", 1 } }, duration = 0.5 },
                          { from = "run", to = "exit", when = { { "done" } } } } } },
        layers = { { entry = "idle", states = { idle = { motion = "still" }, loco = { motion = { machine = "loco" } },
          other = { motion = { machine = "loco" } } },
          transitions = { { from = "idle", to = "loco", when = { { "go" } } },
                          { from = "loco", to = "idle", exit_time = 5, duration = 0 } } } } }
      if extra then extra(d) end
      return sinew.animator(d, { clips = clips })
    end

    it("play a state machine inside a state, with its own transitions and fades", function()
      local anim, pose = loco_def(), sinew.pose(skel)
      anim:set("go", true):update(0.25):evaluate(pose)
      assert.equal("loco", anim:state())
      assert_near(0.25, x_of(pose)) -- walk (a) from its start
      anim:set("speed", 2):update(0.25):evaluate(pose)
      -- the inner fade: walk at 0.5 (x 0.5), run at 0.25 (x 2.5), half each
      assert_near(0.5 * 0.5 + 0.5 * 2.5, x_of(pose))
      local names = {}
      for clip in anim:active() do names[#names + 1] = clip == clips.a and "a" or clip == clips.b and "b" or "?" end
      assert.same({ "a", "b" }, names)
      local d = anim:debug()
      assert.equal("loco", d.layers[1].state)
    end)

    it("leave through 'exit': the state's transitions above go on without waiting for exit times", function()
      local anim = loco_def()
      anim:set("go", true):update(0.1):set("go", false):set("speed", 2):update(0.6)
      assert.equal("loco", anim:state())
      anim:set("done", true):update(0.1) -- run -> exit inside
      anim:update(0.1)                    -- loco -> idle above, its exit time (5) not awaited
      assert.equal("idle", anim:state())
    end)

    it("are reused as separate instances, and restart at their entry", function()
      local anim = loco_def(function(d)
        table.insert(d.layers[1].transitions, 1, { from = "loco", to = "other", when = { { "done" } } })
      end)
      anim:set("go", true):update(0.1):set("go", false):set("speed", 2):update(0.6)
      anim:set("done", true):set("speed", 0):update(0.1)
      assert.equal("other", anim:state())
      local pose = sinew.pose(skel)
      anim:evaluate(pose)
      assert_near(0.1, x_of(pose)) -- other's own walk, from its start
    end)

    it("are travelled through: 'loco/run'", function()
      local anim = loco_def()
      assert.is_true(anim:travel("loco/run"))
      anim:update(0.1) -- idle -> loco (instant), loco's machine starts and travels walk -> run
      anim:update(0.6)
      local pose = sinew.pose(skel)
      anim:evaluate(pose)
      assert.equal("loco", anim:state())
      assert_near(10 * 0.7, x_of(pose)) -- b (x 10 t) since the first update: 0.7 s in, its fade over
      assert.matches("state 'idle' is not a sub%-state machine", helper.error_of(anim.travel, anim, "idle/x"))
      assert.matches("unknown state 'fly' in layer 'layer1'", helper.error_of(anim.travel, anim, "loco/fly"))
    end)

    it("show in dot()", function()
      local text = sinew.animator.dot({ skeleton = skel, machines = { m = { states = { s = { motion = "a" } } } },
        layers = { { entry = "x", states = { x = { motion = { machine = "m" } } } } } }, { clips = clips })
      assert.is_truthy(text:find("state machine (1 states)", 1, true), text)
    end)

    it("are kept in snapshots", function()
      local a, b = loco_def(), loco_def()
      local pa, pb = sinew.pose(skel), sinew.pose(skel)
      a:set("go", true):update(0.1):set("speed", 2):update(0.3)
      b:restore(a:snapshot())
      a:update(0.1):evaluate(pa)
      b:update(0.1):evaluate(pb)
      assert.equal(pa:get(1), pb:get(1))
      assert.same(a:snapshot(), b:snapshot())
    end)
  end)

  describe("travel", function()
    local states = { a = { motion = "a" }, b = { motion = "b" }, c = { motion = "still" }, d = { motion = "a" } }

    it("takes the shortest path, conditions ignored, each fade in turn, exit times awaited", function()
      local anim = machine(states, {
        { from = "a", to = "b", when = { { "never" } }, duration = 0.1 },
        { from = "b", to = "c", exit_time = 0.5, duration = 0.1 },
        { from = "a", to = "d", when = { { "never" } } },
        { from = "d", to = "b", when = { { "never" } } },
      }, { never = false }, "a")
      assert.is_true(anim:travel("c"))
      anim:update(0.05)
      local from, _, to = anim:state()
      assert.same({ "a", "b" }, { from, to })
      anim:update(0.1)
      assert.equal("b", anim:state())
      assert.is_nil(select(3, anim:state()))
      anim:update(0.7) -- b is 2 s long: exit time 0.5 at 1 s
      assert.equal("b", anim:state())
      anim:update(0.2)
      assert.equal("c", select(3, anim:state()))
      anim:update(0.2)
      assert.equal("c", anim:state())
      assert.is_nil(select(3, anim:state()))
    end)

    it("switches at once where no path leads, and refuses an unknown state", function()
      local anim = machine(states, { { from = "a", to = "b", when = { { "never" } } } }, { never = false }, "a")
      assert.is_false(anim:travel("c"))
      anim:update(0.1)
      assert.equal("c", anim:state())
      assert.matches("unknown state 'z' in layer 'layer1'", helper.error_of(anim.travel, anim, "z"))
    end)
  end)

  describe("smoothed parameters", function()
    it("follow their target as a critically damped spring, the same in one step or many", function()
      local function make()
        return machine({ idle = { motion = "a" } }, nil, { speed = { float = 0, smoothing = 0.5 } })
      end
      local a, b = make(), make()
      a:set("speed", 1)
      b:set("speed", 1)
      a:update(0.3)
      for _ = 1, 3 do b:update(0.1) end
      local va, target = a:get("speed")
      assert.equal(1, target)
      assert_near(va, (b:get("speed")), 1e-12)
      -- x(t) = 1 - (1 + w t) e^(-w t), w = 2 / 0.5
      assert_near(1 - (1 + 4 * 0.3) * math.exp(-4 * 0.3), va, 1e-12)
      for _ = 1, 100 do a:update(0.1) end
      assert_near(1, (a:get("speed")), 1e-9)
    end)
  end)

  describe("snapshots", function()
    local function game()
      local anim = sinew.animator({ skeleton = skel, root_motion = "hips",
        parameters = { speed = { float = 0, smoothing = 0.2 },
        jump = "trigger" }, layers = {
        { entry = "idle", states = {
          idle = { motion = "still" },
          move = { motion = { blend = "1d", parameter = "speed", sync = true, children = { { 0.5, "walk" }, { 2, "run" } } } },
          jump = { motion = "a", loop = false } },
          transitions = {
            { from = "idle", to = "move", when = { { "speed", ">", 0.1 } }, duration = 0.3, interruption = "destination" },
            { from = "move", to = "idle", when = { { "speed", "<", 0.1 } }, duration = 0.3 },
            { from = "any", to = "jump", when = { { "jump" } }, duration = 0.2, mode = "inertialize" },
            { from = "jump", to = "idle", exit_time = 0.9, duration = 0.2 } } },
        { name = "upper", mask = sinew.mask(skel, { spine = 1 }, 0), weight = 0.7,
          states = { wave = { motion = line(0.9, 3, "spine") } } },
        { name = "head", sync = "layer1", mask = sinew.mask(skel, { head = 1 }, 0), weight = 0.5,
          motions = { idle = line(1.3, 2, "head"), jump = line(0.5, 1, "head") } },
      } }, { clips = clips })
      return anim
    end

    local function drive(anim, from, to, pose)
      for f = from, to do
        anim:set("speed", (f % 90) < 45 and 1.4 or 0)
        if f % 37 == 0 then anim:trigger("jump") end
        anim:update(1 / 60 + (f % 5) * 1e-3)
      end
      return anim:evaluate(pose)
    end

    it("restore the state exactly: the same poses afterwards, bit for bit, mid-fade too", function()
      local a, b = game(), game()
      local pa, pb = sinew.pose(skel), sinew.pose(skel)
      drive(a, 1, 200, pa)
      for stop = 201, 260, 7 do -- several points, inside fades and out
        drive(a, stop - 6, stop, pa)
        local snap = a:snapshot()
        b:restore(snap)
        drive(a, stop + 1, stop + 50, pa)
        drive(b, stop + 1, stop + 50, pb)
        local ma, mb = sinew.matrices(skel), sinew.matrices(skel)
        pa:to_model(ma)
        pb:to_model(mb)
        assert.equal(ma:bytes(), mb:bytes())
        assert.same(a:snapshot(), b:snapshot())
        a:restore(snap) -- and rewind a to keep going from there
      end
    end)

    it("round-trip through JSON to the digits of the encoder", function()
      local json = require "dkjson"
      local a, b = game(), game()
      local pa, pb = sinew.pose(skel), sinew.pose(skel)
      drive(a, 1, 213, pa)
      b:restore(json.decode(json.encode(a:snapshot())))
      drive(a, 214, 300, pa)
      drive(b, 214, 300, pb)
      for j = 1, #skel do
        local x, y = { pa:get(j) }, { pb:get(j) }
        for k = 1, 10 do assert_near(x[k], y[k], 1e-6) end
      end
      assert.equal(a:state(), b:state())
    end)

    it("refuse a bad snapshot and change nothing", function()
      local anim = game()
      anim:update(0.1)
      local good = anim:snapshot()
      local cases = {
        { function(s) s.version = 2 end, "bad snapshot: version: unknown snapshot version 2" },
        { function(s) s.layers[1].state = "swim" end, "bad snapshot: layers[1].state: unknown state 'swim'" },
        { function(s) s.values.speed = 0 / 0 end, "bad snapshot: values.speed: must be a finite number (got nan)" },
        { function(s) s.values.jump = 1 end, "bad snapshot: values.jump: must be a boolean (got 1)" },
        { function(s) s.layers[3] = nil end, "bad snapshot: layers: has 2 layers, the animator 3" },
        { function(s) s.layers[1].states.move.motion.uw = { 1 } end,
          "bad snapshot: layers[1].states.move.motion.uw: has 1 numbers, expected 2" },
        { function(s) s.layers[1].transition = { index = 3, from = "idle", to = "move", elapsed = 0, duration = 1,
          from_live = true } end, "bad snapshot: layers[1].transition: transition 3 leads to 'jump', not 'move'" },
      }
      for _, c in ipairs(cases) do
        local s = anim:snapshot()
        c[1](s)
        local err = helper.error_of(anim.restore, anim, s)
        assert.is_truthy(err and err:find(c[2], 1, true), ("%s: got %s"):format(c[2], tostring(err)))
        assert.same(good, anim:snapshot())
      end
    end)
  end)

  describe("seeing it", function()
    it("debug() gives a plain table of what plays; dot() the state machine", function()
      local anim = machine({ idle = { motion = "a" }, move = { motion = "b" } },
        { { from = "idle", to = "move", when = { { "speed", ">", 0.1 } }, duration = 0.5 } }, { speed = 1 }, "idle")
      anim:update(0.25)
      local d = anim:debug()
      assert.equal(1, d.parameters.speed)
      assert.equal("idle", d.layers[1].state)
      assert.equal("move", d.layers[1].target)
      assert_near(0.5, d.layers[1].progress, 1e-12)
      assert.equal(2, #d.layers[1].clips)
      assert.equal("a", d.layers[1].clips[1].clip)
      local text = sinew.animator.dot({ skeleton = skel, parameters = { speed = 0 }, layers = { {
        entry = "idle", states = { idle = { motion = "a" }, move = { motion = "b" } },
        transitions = { { from = "idle", to = "move", when = { { "speed", ">", 0.1 } }, duration = 0.5 } } } } },
        { clips = clips })
      assert.matches('^digraph animator {', text)
      assert.is_truthy(text:find('"1:idle" -> "1:move" [label="speed > 0.1\\n0.5s"]', 1, true), text)
    end)
  end)

  describe("steady state", function()
    local function fox_like()
      return sinew.animator({ skeleton = skel, parameters = { speed = 0, jump = "trigger" }, root_motion = "hips",
        layers = { { entry = "idle", states = {
          idle = { motion = "still" },
          move = { motion = { blend = "1d", parameter = "speed", sync = true,
            children = { { 0.5, "walk" }, { 2, "run" } } }, events = { { 0.5, "step" } } },
          jump = { motion = "a", loop = false },
        }, transitions = {
          { from = "idle", to = "move", when = { { "speed", ">", 0.1 } }, duration = 0.25 },
          { from = "move", to = "idle", when = { { "speed", "<", 0.1 } }, duration = 0.25 },
          { from = "any", to = "jump", when = { { "jump" } }, duration = 0.1 },
          { from = "jump", to = "idle", exit_time = 0.9, duration = 0.2 },
        } } } }, { clips = clips })
    end

    it("makes no garbage per update and evaluate, transitions and events included", function()
      local anim, pose, frame = fox_like(), sinew.pose(skel), 0
      anim:on("step", function() end)
      local function step()
        frame = frame + 1
        anim:set("speed", (frame % 300) < 150 and 1.5 or 0)
        if frame % 97 == 0 then anim:trigger("jump") end
        anim:update(1 / 60)
        anim:evaluate(pose)
        for _ in anim:events() do end
      end
      -- a long warm-up first: on LuaJIT every branch of a transition gets its side trace, and
      -- recording one allocates (the steady state is after that); garbage made per frame would
      -- show in every round, so the least of several rounds is the figure
      for _ = 1, 30000 do step() end
      assert.equal(0, helper.least_garbage(step, 10000))
    end)

    it("gives the same pose for the same parameters and steps, bit for bit", function()
      local a, b = fox_like(), fox_like()
      local pa, pb = sinew.pose(skel), sinew.pose(skel)
      local mats_a, mats_b = sinew.matrices(skel), sinew.matrices(skel)
      for f = 1, 600 do
        local speed = (f % 200) < 100 and 1.2 or 0
        a:set("speed", speed); b:set("speed", speed)
        if f % 131 == 0 then a:trigger("jump"); b:trigger("jump") end
        local dt = 1 / 60 + (f % 7) * 1e-3
        a:update(dt):evaluate(pa)
        b:update(dt):evaluate(pb)
      end
      pa:to_model(mats_a)
      pb:to_model(mats_b)
      assert.equal(mats_a:bytes(), mats_b:bytes())
    end)
  end)

  describe("bad input", function()
    local base = function()
      return { skeleton = skel, parameters = { speed = 0, on = true, jump = "trigger" }, layers = { {
        entry = "idle", states = { idle = { motion = "a" }, move = { motion = "b" } },
        transitions = { { from = "idle", to = "move", when = { { "speed", ">", 0.1 } } } } } } }
    end
    local other = sinew.skeleton { names = { "x" }, parents = { 0 } }
    local cases = {
      { "an unknown state", function(d) d.layers[1].transitions[1].to = "nowhere" end,
        "layers[1].transitions[1].to: unknown state 'nowhere'" },
      { "an unknown source", function(d) d.layers[1].transitions[1].from = "where" end,
        "layers[1].transitions[1].from: unknown state 'where'" },
      { "an unknown parameter", function(d) d.layers[1].transitions[1].when[1][1] = "sped" end,
        "layers[1].transitions[1].when[1][1]: unknown parameter 'sped'" },
      { "a bool compared with a number", function(d) d.layers[1].transitions[1].when[1] = { "on", ">", 1 } end,
        "layers[1].transitions[1].when[1][2]: bool parameter 'on' compares with == or ~= only" },
      { "a number compared with a bool", function(d) d.layers[1].transitions[1].when[1] = { "speed", "==", true } end,
        "layers[1].transitions[1].when[1][3]: float parameter 'speed' compares with a number (got boolean)" },
      { "a trigger compared with >", function(d) d.layers[1].transitions[1].when[1] = { "jump", ">", 0 } end,
        "layers[1].transitions[1].when[1]: trigger 'jump' takes no operator" },
      { "an unknown operator", function(d) d.layers[1].transitions[1].when[1][2] = "=>" end,
        "layers[1].transitions[1].when[1][2]: unknown operator '=>'" },
      { "a float without a comparison", function(d) d.layers[1].transitions[1].when[1] = { "speed" } end,
        "layers[1].transitions[1].when[1]: float parameter 'speed' needs an operator and a value" },
      { "a transition with neither conditions nor exit time", function(d) d.layers[1].transitions[1].when = nil end,
        "layers[1].transitions[1]: a transition needs conditions ('when') or an exit_time" },
      { "a blend node with no children", function(d)
        d.layers[1].states.move.motion = { blend = "1d", parameter = "speed", children = {} } end,
        "layers[1].states.move.motion.children: a blend node needs children" },
      { "a blend node with the wrong parameter count", function(d)
        d.layers[1].states.move.motion = { blend = "simple_directional", parameters = { "speed" },
          children = { { { 0, 1 }, "a" }, { { 1, 0 }, "b" }, { { -1, 0 }, "a" } } } end,
        "layers[1].states.move.motion.parameters: mode 'simple_directional' takes 2 parameters (got 1)" },
      { "a blend node on a bool", function(d)
        d.layers[1].states.move.motion = { blend = "1d", parameter = "on", children = { { 0, "a" }, { 1, "b" } } } end,
        "layers[1].states.move.motion.parameters[1]: parameter 'on' is a bool, not a number" },
      { "a blend space the core refuses", function(d)
        d.layers[1].states.move.motion = { blend = "1d", parameter = "speed", children = { { 0, "a" }, { 0, "b" } } } end,
        "layers[1].states.move.motion: duplicate points 1 and 2" },
      { "an unknown blend mode", function(d)
        d.layers[1].states.move.motion = { blend = "2d", parameter = "speed", children = { { 0, "a" } } } end,
        "layers[1].states.move.motion.blend: unknown blend mode '2d'" },
      { "an unknown clip name", function(d) d.layers[1].states.move.motion = "swim" end,
        "layers[1].states.move.motion: unknown clip 'swim'" },
      { "a clip of another skeleton", function(d)
        d.layers[1].states.move.motion = sinew.clip { skeleton = other, tracks = {} } end,
        "layers[1].states.move.motion: clip of another skeleton" },
      { "a mask of another skeleton", function(d)
        d.layers[2] = { mask = sinew.mask(other, {}), states = { s = { motion = "a" } } } end,
        "layers[2].mask: mask of another skeleton" },
      { "a function where data belongs", function(d) d.layers[1].states.idle.motion = print end,
        "layers[1].states.idle.motion: must be a clip, a clip name or a blend node (got function)" },
      { "userdata where data belongs", function(d) d.layers[1].states.idle.speed = io.stdout end,
        "layers[1].states.idle.speed: must be a finite number (got userdata)" },
      { "a typo in a field", function(d) d.layers[1].transitions[1].durration = 1 end,
        "layers[1].transitions[1]: unknown field 'durration'" },
      { "no entry among several states", function(d) d.layers[1].entry = nil end,
        "layers[1].entry: a layer of several states needs an entry state" },
      { "a base layer with a mask", function(d) d.layers[1].mask = sinew.mask(skel, {}) end,
        "layers[1]: the first layer is the base: override, weight 1, no mask" },
      { "an event outside 0 .. 1", function(d) d.layers[1].states.idle.events = { { 1.5, "x" } } end,
        "layers[1].states.idle.events[1][1]: 1.5 is out of range (0 .. 1)" },
      { "a NaN duration", function(d) d.layers[1].transitions[1].duration = 0 / 0 end,
        "layers[1].transitions[1].duration: must be a finite number (got nan)" },
      { "an unknown interruption source", function(d) d.layers[1].transitions[1].interruption = "both" end,
        "layers[1].transitions[1].interruption: unknown interruption source 'both'" },
      { "a parameter of no known kind", function(d) d.parameters.speed = "fast" end,
        "parameters.speed: must be a number, a boolean, \"trigger\", { int = n } or { float = x [, smoothing = s] }" },
      { "no skeleton", function(d) d.skeleton = nil end, "skeleton: must be a sinew skeleton (got nil)" },
      { "a sub-state machine without states", function(d) d.layers[1].states.move.motion = { entry = "x", states = {} } end,
        "layers[1].states.move.motion.states: a state machine needs states" },
      { "a cycle of sub-state machines", function(d)
        d.machines = { m1 = { states = { s = { motion = { machine = "m2" } } } },
          m2 = { states = { s = { motion = { machine = "m1" } } } } }
        d.layers[1].states.move.motion = { machine = "m1" } end,
        "machines.m2.states.s.motion.machine: a cycle of sub-state machines through 'm1'" },
      { "an unknown state machine", function(d) d.layers[1].states.move.motion = { machine = "nope" } end,
        "layers[1].states.move.motion.machine: unknown state machine 'nope'" },
      { "an exit outside a sub-state machine", function(d) d.layers[1].transitions[1].to = "exit" end,
        "layers[1].transitions[1].to: unknown state 'exit' ('exit' is for sub-state machines)" },
      { "a sub-state machine in a blend node", function(d)
        d.layers[1].states.move.motion = { blend = "1d", parameter = "speed",
          children = { { 0, "a" }, { 1, { states = { s = { motion = "a" } } } } } } end,
        "layers[1].states.move.motion.children[2][2]: a sub-state machine is a state's motion, not a child of a blend node" },
      { "a synced layer with states", function(d) d.layers[2] = { sync = "layer1", states = { s = { motion = "a" } } } end,
        "layers[2]: a synced layer has motions, not states, transitions or an entry" },
      { "a synced layer following no layer", function(d) d.layers[2] = { sync = "top", motions = {} } end,
        "layers[2].sync: unknown layer 'top' (a synced layer follows an earlier layer)" },
      { "a synced layer's motion for no state", function(d)
        d.layers[2] = { sync = "layer1", motions = { swim = "a" } } end,
        "layers[2].motions: layer 'layer1' has no state 'swim'" },
      { "motions without sync", function(d) d.layers[2] = { motions = {}, states = { s = { motion = "a" } } } end,
        "layers[2].motions: only a synced layer has motions" },
      { "an unknown rotation averaging", function(d)
        d.layers[1].states.move.motion = { blend = "1d", parameter = "speed", rotation = "slerp",
          children = { { 0, "a" }, { 1, "b" } } } end,
        "layers[1].states.move.motion.rotation: unknown rotation averaging 'slerp' (nlerp, power, karcher or markley)" },
      { "an unknown root-motion joint", function(d) d.root_motion = "tail" end, "root_motion: unknown joint 'tail'" },
      { "no layers", function(d) d.layers = {} end, "layers: an animator needs a layer" },
    }
    for _, c in ipairs(cases) do
      it("refuses " .. c[1], function()
        local d = base()
        c[2](d)
        local err = helper.error_of(sinew.animator, d, { clips = clips })
        assert.is_truthy(err and err:find(c[3], 1, true), ("expected %q, got %s"):format(c[3], tostring(err)))
      end)
    end

    it("refuses run-time misuse and changes nothing", function()
      local anim = sinew.animator(base(), { clips = clips })
      local pose = sinew.pose(skel)
      anim:update(0.25):evaluate(pose)
      local before = pose:get(1)
      assert.matches("a sinew pose of the animator's skeleton expected",
        helper.error_of(anim.evaluate, anim, sinew.pose(other)))
      assert.matches("a sinew pose of the animator's skeleton expected", helper.error_of(anim.evaluate, anim, io.stdout))
      assert.matches("dt must be a finite number >= 0, got nan", helper.error_of(anim.update, anim, 0 / 0))
      assert.matches("dt must be a finite number >= 0, got %-1", helper.error_of(anim.update, anim, -1))
      assert.matches("unknown layer 'top'", helper.error_of(anim.state, anim, "top"))
      assert.matches("layer weight must be a number from 0 to 1", helper.error_of(anim.set_layer_weight, anim, 1, 2))
      assert.equal("idle", anim:state())
      assert_near(0.25, select(2, anim:state()), 1e-12)
      anim:evaluate(pose)
      assert.equal(before, (pose:get(1)))
    end)
  end)
end)
