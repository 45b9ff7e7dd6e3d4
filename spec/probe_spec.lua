-- Hostile Lua: spec/probe/probe.lua calls every function, method and metamethod reachable from
-- `require "sinew"` with hostile arguments and plays the lifetime scenarios of issue 12. It runs
-- in a child process of the same interpreter (and, under `make sanitize`, the same sanitizers),
-- so that a crash fails this spec instead of ending the run. SINEW_PROBE_ROUNDS (default 4; 1 in
-- `make test`, SINEW_QUICK) repeats the calls with fresh random choices.
local helper = require "helper"
local figures = require "spec.support.figures" -- printed after the run with SINEW_VERBOSE=1

-- runs the probe with `args` (at most 300 s: 7 s here for the calls' four rounds); returns its
-- output and exit status
local function probe(args)
  return helper.lua_child("spec/probe/probe.lua " .. args, 300)
end

describe("hostile Lua (spec/probe/probe.lua, in a child process)", function()
  it("finds every function, method and metamethod at run time", function()
    local out, status = probe("entries")
    assert.are.equal(0, status, out)
    local found = {}
    for kind, name in out:gmatch("(%a+) (%S+)\n") do found[name] = kind end
    for _, name in ipairs({ "sinew.quat.slerp", "sinew.clip", "sinew.chain", "sinew.blend", "sinew.Pose.__len",
      "sinew.Mask.__tostring", "sinew.Matrices:pointer", "sinew.Chain:set_param", "sinew.Clip:sample",
      "sinew.BlendSpace(grid):weights", "sinew.Skeleton.__len", "sinew.gltf.parse", "sinew._gltf.vertices",
      "sinew._gltf.floats", "sinew._gltf.rotation_keys", "sinew._gltf.key_times", "sinew.Floats.__index",
      "sinew.Matrices:set", "sinew.Clip:sample_joint", "sinew.animator.compile", "sinew.AnimatorPlan:new",
      "sinew.AnimatorPlan:skeleton", "sinew.Animator:update", "sinew.dragonbones.load", "sinew.dragonbones.rig",
      "sinew.dragonbones.Rig:update", "sinew.Rig2D:update", "sinew.Rig2D:vertices", "sinew.Rig2DData:animation",
      "sinew._rig2d_data", "sinew.Anim2D:duration", "sinew._pose2d_blend", "sinew.Pose2D:add", "sinew.Mask2D:set",
      "sinew.Rig2D:apply", "sinew.Rig2D:mesh", "sinew.dragonbones.Rig:apply", "sinew.dragonbones.Rig:chain",
      "sinew.dragonbones.Chain:step", "sinew.dragonbones.Chain:set_param", "sinew.dragonbones.Chain:move_collider",
      "sinew.dragonbones.Chain:add_collider", "sinew.dragonbones.Chain:position", "sinew.dragonbones.Chain:__len",
      "sinew.ik.two_bone", "sinew.ik.aim", "sinew.ik.has", "sinew.IKTwoBone:solve", "sinew.IKTwoBone:set_soften",
      "sinew.IKTwoBone.__tostring", "sinew.IKAim:solve", "sinew.IKAim:set_limit", "sinew.IKAim:joint", "sinew.ik.chain",
      "sinew.IKChain:solve", "sinew.IKChain:set_iterations", "sinew.IKChain.__len", "sinew.ik.feet", "sinew.IKFeet:solve",
      "sinew.IKFeet:set_ground", "sinew.IKFeet:reset", "sinew.IKFeet.__len", "sinew.IK2DTwoBone:clone",
      "sinew.IK2DChain:clone", "sinew.dragonbones.Rig:clone", "sinew.bvh.parse", "sinew.bvh.load", "sinew.Pose:morph",
      "sinew.Pose:set_morph", "sinew.Pose:morphs", "sinew.Pose:set_morphs", "sinew.Mask:get_morph",
      "sinew.Mask:set_morph", "sinew.Skeleton:morph_count", "sinew.Skeleton:morphs", "sinew.Skeleton:find_morph",
      "sinew.Skeleton:morph_default", "sinew._bvh.frames", "sinew._bvh.rotations", "sinew._bvh.positions",
      "sinew._bvh.times", "sinew._morph", "sinew._vertex", "sinew._gltf.split", "sinew._gltf.animation", "sinew.Morph:apply",
      "sinew.Morph:position", "sinew.Morph:normal", "sinew.Morph:pointer", "sinew.Morph:bytes", "sinew.Morph:deltas",
      "sinew.Morph:vertices", "sinew.Morph.__len", "sinew.gltf.Mesh:position", "sinew.Animator:set_morph",
      "sinew.Animator:morph" }) do
      assert.is_truthy(found[name], name .. " was not found:\n" .. out)
    end
    assert.is_nil(out:match("template %d+ of [^\n]*"))
  end)

  it("gets a clean error or a result from every hostile call, never a crash", function()
    local rounds = tonumber(os.getenv("SINEW_PROBE_ROUNDS") or (os.getenv("SINEW_QUICK") == "1" and "1" or "4"))
    local out, status = probe("calls 20261125 " .. rounds)
    assert.are.equal(0, status, out)
    local calls, entries = out:match("probe: (%d+) calls, %d+ errors, (%d+) entries")
    assert.is_truthy(calls, out)
    assert.is_true(tonumber(entries) >= 75, out)
    assert.is_true(tonumber(calls) >= 60000 * rounds, out)
    figures.add(out:match("probe: [^\n]*"))
  end)

  it("survives the lifetime and re-entrancy scenarios", function()
    local out, status = probe("scenarios")
    assert.are.equal(0, status, out)
    assert.is_truthy(out:match("scenarios: %d+ passed, 0 failed"), out)
  end)
end)
