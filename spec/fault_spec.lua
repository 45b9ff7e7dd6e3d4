-- sinew.try (what the binding refuses as `nil, message, argument`, on the C and the FFI path
-- alike) and sinew.fault (the faults of construction, with their paths).
local helper = require "helper"
local sinew = require "sinew"
local Fault = require "sinew.fault"

local bad_space = { mode = "1d", points = { 1, 1 } }

describe("sinew.try", function()
  local s = sinew.skeleton { names = { "a", "b" }, parents = { 0, 1 } }

  it("returns nil, the message and the argument for a bad blend space definition", function()
    local none, msg, arg = sinew.try(sinew.blendspace, bad_space)
    assert.is_nil(none)
    assert.are.equal("duplicate points 1 and 2", msg)
    assert.are.equal(1, arg)
    -- the message is the one the call raises, without the 'bad argument #1 to ...' around it
    assert.truthy(helper.error_of(sinew.blendspace, bad_space):find("#1 to '[^']*' %(duplicate points 1 and 2%)$"))
  end)

  -- The same triples on both paths: every spec runs on LuaJIT's FFI path and on the C path; on
  -- the FFI path a fast function gives what its C binding function gives when called directly.
  local cases = {
    { "a blend space definition without a mode", function() return sinew.blendspace, {} end,
      nil, "'mode' must be a string (got nil)", 1 },
    { "a method given a number for a pose (self is argument 1)", function()
      local p = sinew.pose(s)
      return p.add, p, 5
    end, nil, "sinew.Pose expected, got number", 2, function(C) return C.Pose.add end },
    { "a method given a bad self", function()
      local p = sinew.pose(s)
      return p.add, 5, p, 1
    end, nil, "sinew.Pose expected, got number", 1, function(C) return C.Pose.add end },
    { "a quaternion function missing an argument", function() return sinew.quat.mul, 0, 0, 0, 1, 0, 0, 0 end,
      nil, "number expected, got no value", 8, function(C) return C.quat.mul end },
    { "a sample time that is not finite", function()
      local c = sinew.clip { skeleton = s, tracks = {} }
      return c.sample, c, 0 / 0, sinew.pose(s)
    end, nil, "not a finite number", 2, function(C) return C.Clip.sample end },
    { "a joint's sample time that is not finite", function()
      local c = sinew.clip { skeleton = s, tracks = {} }
      return c.sample_joint, c, 0 / 0, 1
    end, nil, "not a finite number", 2, function(C) return C.Clip.sample_joint end },
    { "weights of a 1-D space for two coordinates (a refusal of no argument)", function()
      local space = sinew.blendspace { mode = "1d", points = { 0, 1 } }
      return space.weights, space, 0.5, 0.5
    end, nil, "wrong number of coordinates: expected 1, got 2 (the space is 1-D, mode '1d')", nil },
  }
  for _, case in ipairs(cases) do
    it("returns the same triple on every path for " .. case[1], function()
      local none, msg, arg = sinew.try(case[2]())
      assert.are.same({ case[3], case[4], case[5] }, { none, msg, arg })
      if sinew.path == "ffi" and case[6] then
        local c = case[6](require("sinew.ffi").c)
        assert.are_not.equal(c, (case[2]())) -- a fast function stands for it
        assert.are.same({ none, msg, arg }, { sinew.try(c, select(2, case[2]())) })
      end
    end)
  end

  it("returns every result of a call the binding does not refuse", function()
    assert.are.same({ sinew.quat.mul(0, 0, 0.6, 0.8, 0, 0.6, 0, 0.8) },
      { sinew.try(sinew.quat.mul, 0, 0, 0.6, 0.8, 0, 0.6, 0, 0.8) })
    local space = sinew.try(sinew.blendspace, { mode = "1d", points = { 0, 1 } })
    assert.are.same({ 0.75, 0.25 }, space:weights(0.25))
  end)

  it("raises again, as they came, the errors that are not refusals", function()
    local mine = { "mine" }
    local ok, e = pcall(sinew.try, function() error(mine) end)
    assert.is_false(ok)
    assert.are.equal(mine, e)
    assert.are.equal("plain", helper.error_of(sinew.try, function() error("plain", 0) end))
    -- a refusal of a call made by Lua code that try called raises as always
    local msg = helper.error_of(sinew.try, function()
      local space = sinew.blendspace(bad_space)
      return space
    end)
    assert.truthy(msg:find("bad argument #1 to 'blendspace' (duplicate points 1 and 2)", 1, true), msg)
    assert.truthy(helper.error_of(sinew.try, nil):find("function expected, got nil", 1, true))
  end)
end)

describe("sinew.fault", function()
  it("gives a fault's message with its path, and nil for other errors", function()
    local ok, e = pcall(Fault.fail, "layers[1].entry", "unknown state '%s'", "nowhere")
    assert.is_false(ok)
    assert.are.equal("layers[1].entry: unknown state 'nowhere'", Fault.message(e))
    assert.are.equal("no path", Fault.message(select(2, pcall(Fault.fail, "", "no path"))))
    assert.is_nil(Fault.message("layers: a string"))
    assert.is_nil(Fault.message({ msg = "a table like one" }))
  end)

  it("writes any number for %d: integers as integers, others as %.9g", function()
    local function msg(...) return Fault.message(select(2, pcall(Fault.fail, "p", ...))) end
    assert.are.equal("p: 3 of 4", msg("%d of %d", 3, 4))
    assert.are.equal("p: accessor 0.5 and 1e+300", msg("accessor %d and %d", 0.5, 1e300))
    assert.are.equal("p: 4611686018427387904 and 1.84467441e+19", msg("%d and %d", 2 ^ 62, 2 ^ 64))
  end)

  it("raises a compile step's fault again at the caller's level, with a prefix", function()
    local function compile(x) Fault.fail("things[2]", "is %s", x) end
    local function entry(x) return (Fault.run(2, "bad thing: ", compile, x)) end
    local ok, e = pcall(entry, "wrong")
    assert.is_false(ok)
    assert.are.equal("bad thing: things[2]: is wrong", e) -- level 2 of a pcall'd function: no position
    local line = debug.getinfo(1, "l").currentline + 1
    local _, e2 = pcall(function() local v = entry("odd") return v end)
    assert.are.equal(("spec/fault_spec.lua:%d: bad thing: things[2]: is odd"):format(line), e2)
    -- other errors unchanged, results passed
    local mine = {}
    assert.are.equal(mine, select(2, pcall(Fault.run, 2, "", function() error(mine) end)))
    assert.are.equal(42, Fault.run(2, "", function(v) return v * 2 end, 21))
  end)

  it("turns what the core refuses into a fault at a path", function()
    local ok, e = pcall(Fault.core, "layers[1].states.move.motion", sinew.blendspace, bad_space)
    assert.is_false(ok)
    assert.are.equal("layers[1].states.move.motion: duplicate points 1 and 2", Fault.message(e))
    assert.are.equal("sinew.BlendSpace", getmetatable(Fault.core("x", sinew.blendspace, { mode = "1d",
      points = { 0, 1 } })).__name)
  end)

  it("shows values and tells finite numbers", function()
    assert.are.same({ "'a'", "0.5", "nan", "nil", "table" },
      { Fault.show("a"), Fault.show(0.5), Fault.show(-(0 / 0)), Fault.show(nil), Fault.show({}) })
    assert.is_true(Fault.finite(1e308))
    assert.is_false(Fault.finite(1 / 0))
    assert.is_false(Fault.finite(0 / 0))
    assert.is_false(Fault.finite("1"))
  end)
end)
