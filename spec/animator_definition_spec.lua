-- The animator's definition as it is compiled (lua/sinew/animator/definition.lua): read once into
-- private tables (proxies and later edits do not reach the animator), shared nodes compiled once,
-- and the limits that turn a definition small to write but huge to run into a "path: why" error.
-- The runaway definitions and the random ones run in a child process with time and memory caps
-- (spec/support/animator_definitions.lua), so that a runaway fails this spec instead of the run.
local sinew = require "sinew"
local helper = require "helper"
local Definition = require "sinew.animator.definition"

local limits = Definition.limits

local skel = sinew.skeleton { names = { "hips", "spine", "head" }, parents = { 0, 1, 2 } }

local function line(d, x1)
  return sinew.clip { skeleton = skel, tracks = {
    { joint = "hips", path = "translation", times = { 0, d }, values = { 0, 0, 0, x1, 0, 0 } } } }
end

local clips = { a = line(1, 1), b = line(2, 20), walk = line(0.7, 7), run = line(1.16, 11.6) }

-- runs spec/support/animator_definitions.lua with `args` under 20 s and 1 GB (helper.lua_child):
-- its output and status
local function child(args)
  return helper.lua_child("spec/support/animator_definitions.lua " .. args, 20, 1000)
end

-- a definition using what can be shared or edited: a blend tree with a parameter list, a
-- sub-state machine, transitions with conditions
local function def_of()
  return { skeleton = skel, parameters = { speed = 0, dir = 0, go = false },
    machines = { loco = { entry = "w", states = { w = { motion = "walk" }, r = { motion = "run" } },
      transitions = { { from = "w", to = "r", when = { { "speed", ">", 1 } }, duration = 0.3 } } } },
    layers = { { entry = "idle",
      states = {
        idle = { motion = "a" },
        move = { motion = { blend = "freeform_cartesian", parameters = { "speed", "dir" },
          children = { { { 0, 0 }, "a" }, { { 2, 0 }, "b" }, { { 0, 1 }, "walk" }, { { 2, 1 }, "run" } } } },
        sub = { motion = { machine = "loco" } },
      },
      transitions = {
        { from = "idle", to = "move", when = { { "speed", ">", 0.1 } }, duration = 0.25 },
        { from = "move", to = "sub", when = { { "go", "==", true } }, duration = 0.2 },
        { from = "sub", to = "idle", exit_time = 2.5 },
      } } } }
end

-- the x of joint 1 over a scripted run (speed up, go, speed down), one entry per frame
local function run(anim)
  local pose, xs = sinew.pose(skel), {}
  for f = 1, 240 do
    anim:set("speed", f < 120 and f / 40 or 0):set("dir", (f % 50) / 50):set("go", f > 80 and f < 100)
    anim:update(1 / 60):evaluate(pose)
    xs[f] = pose:get(1)
  end
  return xs
end

describe("sinew.animator definitions", function()
  describe("read once", function()
    it("take no field from a metatable: a proxy's answers never reach the animator", function()
      -- the issue's case: `to` answered by __index, differently at each read
      local d = def_of()
      local reads = 0
      d.layers[1].transitions[1] = setmetatable({ from = "idle", when = { { "speed", ">", 0.1 } } }, {
        __index = function(_, k)
          if k ~= "to" then return nil end
          reads = reads + 1
          return reads % 2 == 1 and "move" or nil
        end })
      local err = helper.error_of(sinew.animator, d, { clips = clips })
      assert.matches("layers%[1%]%.transitions%[1%]%.to: must be a non%-empty string %(got nil%)", err)
      assert.equal(0, reads)
      -- fields of its own under a metatable that lies, raises and says every table is equal
      d = def_of()
      local t = d.layers[1].transitions[1]
      setmetatable(t, { __index = function() return "nowhere" end, __newindex = function() error("no") end,
        __pairs = function() error("__pairs called") end, __len = function() return 1e9 end,
        __eq = function() return true end, __tostring = function() error("__tostring called") end })
      setmetatable(d.layers[1].transitions, { __len = function() return 0 end, __index = function() return {} end })
      local anim = sinew.animator(d, { clips = clips })
      assert.same(run(sinew.animator(def_of(), { clips = clips })), run(anim))
    end)

    it("are copied: edits after construction change nothing", function()
      local d = def_of()
      local anim = sinew.animator(d, { clips = clips })
      local twin = sinew.animator(def_of(), { clips = clips })
      -- the issue's case: a blend node's parameter list edited; then everything else
      local node = d.layers[1].states.move.motion
      node.parameters[1], node.parameters[2], node.parameters[3] = "nope", nil, "x"
      node.children[1] = nil
      d.layers[1].transitions[1].to, d.layers[1].transitions[3].exit_time = "gone", -1
      d.machines.loco.states, d.layers[1].states, d.parameters = nil, nil, nil
      clips.spare = clips.a -- and the resources
      assert.same(run(twin), run(anim))
      clips.spare = nil
    end)

    it("compile a node used in several places once, and play each place on its own", function()
      local shared = { blend = "1d", parameter = "speed", children = { { 0, "a" }, { 2, "b" } } }
      local function with(m1, m2)
        local d = def_of()
        d.layers[1].states.idle.motion = { blend = "1d", parameter = "dir", children = { { 0, m1 }, { 1, m2 } } }
        d.layers[1].states.move.motion = m2
        return d
      end
      local copy = function() return { blend = "1d", parameter = "speed", children = { { 0, "a" }, { 2, "b" } } } end
      local anim = sinew.animator(with(shared, shared), { clips = clips })
      assert.same(run(sinew.animator(with(copy(), copy()), { clips = clips })), run(anim))
    end)

    it("refuse a blend node or a sub-state machine that contains itself", function()
      local d = def_of()
      local node = { blend = "1d", parameter = "speed", children = { { 0, "a" } } }
      node.children[2] = { 1, node }
      d.layers[1].states.move.motion = node
      assert.matches("layers%[1%]%.states%.move%.motion%.children%[2%]%[2%]: a blend node that contains itself",
        helper.error_of(sinew.animator, d, { clips = clips }))
      d = def_of()
      local m = { entry = "s", states = { s = { motion = "a" } } }
      m.states.t = { motion = m }
      d.layers[1].states.sub.motion = m
      assert.matches("layers%[1%]%.states%.sub%.motion%.states%.t%.motion: a sub%-state machine that contains itself",
        helper.error_of(sinew.animator, d, { clips = clips }))
    end)

    it("refuse a list with holes or extra keys, and curve values outside 0 .. 1", function()
      local d = def_of()
      d.layers[1].transitions[5] = { from = "idle", to = "sub", exit_time = 1 }
      assert.matches("layers%[1%]%.transitions: 5 is not an index of a list %(1 %.%. 4%)",
        helper.error_of(sinew.animator, d, { clips = clips }))
      d = def_of()
      d.layers[1].transitions[1].curve = { 0, 1.5, 1 }
      assert.matches("layers%[1%]%.transitions%[1%]%.curve%[2%]: 1%.5 is out of range %(0 %.%. 1%)",
        helper.error_of(sinew.animator, d, { clips = clips }))
    end)

    it("give a 'path: why' for every mutated definition, proxies among them, and a working animator otherwise",
      function()
        local count = os.getenv("SINEW_VALGRIND") and 150 or 2000 -- (valgrind runs it 50 times slower)
        local out, status = child("fuzz 20261127 " .. count)
        assert.are.equal(0, status, out)
        local built, refused, proxies = out:match("fuzz (%d+) (%d+) (%d+)")
        assert.is_truthy(built, out)
        assert.is_true(tonumber(built) >= count / 10 and tonumber(refused) >= count / 10
          and tonumber(proxies) >= (count < 1000 and 1 or 10), out)
      end)
  end)

  describe("limits", function()
    -- { case, n, what the child prints }: refused ones with the message's text, built ones with nil
    local cases = {
      { "dag", 18, "layers[1].states.s.motion.children[1][2]", "plays more than " .. limits.instances .. " motion instances" },
      { "machines", 18, "machines.m", "play more than " .. limits.instances .. " motion instances" },
      { "ring", 30000, "layers[1].states", "30000 states, more than the limit of " .. limits.states },
      { "any", 300, "layers[1].transitions", "the states check more than " .. limits.checks .. " transitions" },
      { "deep", 20000, "layers[1].states.s.motion.states.a.motion", "nest more than " .. limits.depth .. " deep" },
      { "nest", 20000, "layers[1].states.s.motion.children[1][2]", "nest more than " .. limits.depth .. " deep" },
      { "dag", 11 }, { "machines", 11 }, { "ring", limits.states }, { "any", 200 },
      { "deep", limits.depth - 1 }, { "nest", limits.depth - 1 },
    }
    for _, c in ipairs(cases) do
      local name, n, path, why = c[1], c[2], c[3], c[4]
      it((why and "refuse " or "take ") .. name .. " " .. n, function()
        local out, status = child(("runaway %s %d"):format(name, n))
        assert.are.equal(0, status, out)
        if why then
          local kb, msg = out:match("^refused [%d.]+ ([%d.]+) ([^\n]*)")
          assert.is_truthy(msg, out)
          msg = msg:gsub("^[^\n]-:%d+: ", "", 1)
          assert.equal(path, msg:sub(1, #path))
          assert.is_truthy(msg:find(why, 1, true), msg)
          assert.is_true(tonumber(kb) < 64 * 1024, out) -- a few MB at most
        else
          assert.matches("^built ", out)
        end
      end)
    end
  end)

  describe("dot()", function()
    it("draws a synced layer with the states it follows", function()
      local d = def_of()
      d.layers[2] = { name = "arms", sync = "layer1", motions = { idle = "b", sub = "walk" } }
      local text = sinew.animator.dot(d, { clips = clips })
      assert.is_truthy(text:find('label="arms (override, synced to layer1)"', 1, true), text)
      assert.is_truthy(text:find('"2:move" [label="move\\nfreeform_cartesian blend (4)"', 1, true), text)
    end)
  end)
end)
