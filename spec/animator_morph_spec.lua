-- Morph targets in the animator (issue 26): the layers blend a skeleton's morph weights as they
-- blend joints (blend trees, cross-fades, override layers under masks, additive layers,
-- inertialisation), `anim:set_morph` holds a weight over them, and snapshots keep both. Each
-- weight is checked against the formula computed here from the clips' keys.
local sinew = require "sinew"
local helper = require "helper"

-- a root joint and two morph targets; `blink` rises 0 -> 1 over a second in "close", `smile` is
-- 1 throughout "grin"; a target a clip has no track for takes its default (0 and 0.25)
local skel = sinew.skeleton { names = { "root" }, parents = { 0 }, morphs = { "face.blink", "face.smile" },
  morph_defaults = { 0, 0.25 } }
local function clip(tracks) return sinew.clip { skeleton = skel, tracks = tracks, duration = 1 } end
local clips = {
  close = clip { { morph = "face.blink", times = { 0, 1 }, values = { 0, 1 } } },
  grin = clip { { morph = "face.smile", times = { 0, 1 }, values = { 1, 1 } } },
  still = clip {},
}
local blink_at = function(t) return t % 1 end -- close's blink at time t (looping)

local function definition(extra)
  local def = {
    skeleton = skel,
    parameters = { mix = { float = 0 }, grin = false },
    layers = {
      { name = "base", entry = "face",
        states = { face = { motion = { blend = "1d", parameter = "mix", children = { { 0, "close" }, { 1, "grin" } } } },
          rest = { motion = "still" } },
        transitions = { { from = "face", to = "rest", when = { { "grin" } }, duration = 0.5 },
          { from = "rest", to = "face", when = { { "grin", "==", false } }, duration = 0.5, mode = "inertialize" } } },
    },
  }
  for k, v in pairs(extra or {}) do def[k] = v end
  return def
end

local TOL = 1e-6

describe("morph targets in the animator", function()
  it("blends morph weights in blend trees and cross-fades as the formula does", function()
    local anim = sinew.animator(definition(), { clips = clips })
    local pose = sinew.pose(skel)
    local t = 0
    for frame = 1, 30 do
      local mix = frame / 30
      anim:set("mix", mix):update(0.02):evaluate(pose)
      t = t + 0.02
      -- the 1d node: (1 - mix) close + mix grin; close's smile and grin's blink are the defaults
      assert.near((1 - mix) * blink_at(t) + mix * 0, pose:morph("face.blink"), TOL)
      assert.near((1 - mix) * 0.25 + mix * 1, pose:morph("face.smile"), TOL)
    end
    -- a cross-fade to "rest" (no tracks: the defaults) over 0.5 s
    anim:set("mix", 0):set("grin", true)
    local from_blink
    for frame = 1, 10 do
      anim:update(0.05):evaluate(pose)
      t = t + 0.05
      local a = math.min(1, frame * 0.05 / 0.5)
      from_blink = blink_at(t)
      -- (the fade's curve is linear by default: the weights move from the face's to the defaults)
      assert.near((1 - a) * from_blink, pose:morph(1), 1e-5)
      assert.near((1 - a) * 0.25 + a * 0.25, pose:morph(2), 1e-5)
    end
    assert.near(0, pose:morph(1), 1e-12)
  end)

  it("masks morph targets on an override layer, and adds them on an additive one", function()
    local mask = sinew.mask(skel, {}, 1, { ["face.smile"] = 0 })
    local def = definition()
    def.layers[2] = { name = "over", entry = "grin", weight = 0.5, mask = mask, states = { grin = { motion = "grin" } } }
    def.layers[3] = { name = "add", mode = "additive", entry = "close", weight = 0.5, states = { close = { motion = "close" } },
      reference = "still_pose" }
    local still = sinew.pose(skel) -- the defaults: the additive layer adds close's weights less them
    local anim = sinew.animator(def, { clips = clips, poses = { still_pose = still } })
    local pose = sinew.pose(skel)
    local t = 0
    for _ = 1, 20 do
      anim:update(0.03):evaluate(pose)
      t = t + 0.03
      local blink = blink_at(t)
      -- base (mix 0): close. Over, weight 0.5: grin's blink (the default 0) on blink; smile masked
      -- out. Add, weight 0.5: (close - still) = blink's key, smile 0.25 - 0.25
      local base_blink, base_smile = blink, 0.25
      local over_blink = 0.5 * base_blink + 0.5 * 0
      assert.near(over_blink + 0.5 * blink, pose:morph("face.blink"), TOL)
      assert.near(base_smile, pose:morph("face.smile"), TOL)
    end
  end)

  it("holds a weight set by hand over the layers until it is given back, without garbage", function()
    local anim = sinew.animator(definition(), { clips = clips })
    local pose = sinew.pose(skel)
    anim:update(0.25):evaluate(pose)
    assert.near(0.25, pose:morph(1), TOL)
    assert.is_nil(anim:morph("face.blink"))
    assert.equal(anim, anim:set_morph("face.blink", 0.9))
    anim:set_morph(2, -0.5) -- by index; any finite weight
    assert.equal(0.9, anim:morph(1))
    anim:update(0.25):evaluate(pose)
    assert.near(0.9, pose:morph(1), TOL)
    assert.equal(-0.5, pose:morph(2))
    assert.same({ ["face.blink"] = 0.9, ["face.smile"] = -0.5 }, anim:debug().morphs)
    anim:set_morph("face.blink", nil)
    anim:update(0.25):evaluate(pose)
    assert.near(0.75, pose:morph(1), TOL) -- the clip's again
    assert.equal(-0.5, pose:morph(2))
    local w = 0
    local function frame()
      w = w + 0.01
      anim:set_morph("face.blink", w % 1):update(1 / 60):evaluate(pose)
    end
    assert.equal(0, helper.least_garbage(frame, 2000))
  end)

  it("names what is wrong with set_morph", function()
    local anim = sinew.animator(definition(), { clips = clips })
    local cases = {
      { function() anim:set_morph("face.blnk", 1) end, "unknown morph 'face.blnk' (did you mean 'face.blink'?)" },
      { function() anim:set_morph(3, 1) end, "morph 3 is out of range (1 .. 2)" },
      { function() anim:set_morph(1.5, 1) end, "morph 1.5 is out of range (1 .. 2)" },
      { function() anim:set_morph(1, 0 / 0) end, "bad argument #2 to 'set_morph' (a finite number within the float range" },
      { function() anim:set_morph(1, 1e39) end, "bad argument #2 to 'set_morph'" },
      { function() anim:set_morph(1, "1") end, "bad argument #2 to 'set_morph'" },
      { function() anim:morph("nope") end, "unknown morph 'nope'" },
      { function() anim.set_morph({}, 1, 1) end, "bad argument #1 to 'set_morph'" },
    }
    for i, c in ipairs(cases) do
      local ok, err = pcall(c[1])
      assert.is_false(ok, i)
      assert.is_truthy(tostring(err):find(c[2], 1, true), ("case %d: %s"):format(i, tostring(err)))
    end
    assert.is_nil(anim:morph(1)) -- a refused call changed nothing
    local plain = sinew.skeleton { names = { "root" }, parents = { 0 } }
    local bare = sinew.animator({ skeleton = plain, layers = { { name = "b", entry = "s", states = { s = { motion = "c" } } } } },
      { clips = { c = sinew.clip { skeleton = plain, tracks = {} } } })
    local ok, err = pcall(bare.set_morph, bare, "face.blink", 1)
    assert.is_false(ok)
    assert.matches("the animator's skeleton has no morph targets", err)
  end)

  it("keeps the weights set and the poses' morph weights in snapshots, going on bit for bit", function()
    local def = definition()
    local a = sinew.animator(def, { clips = clips })
    local b = sinew.animator(def, { clips = clips })
    local pa, pb = sinew.pose(skel), sinew.pose(skel)
    a:set("mix", 0.3):set_morph("face.smile", 0.6)
    for _ = 1, 10 do a:update(0.03):evaluate(pa) end
    -- an inertialised switch back to the face from the rest, taken in the middle
    a:set("grin", true)
    for _ = 1, 20 do a:update(0.03):evaluate(pa) end
    a:set("grin", false)
    for _ = 1, 3 do a:update(0.03):evaluate(pa) end
    local snap = a:snapshot()
    assert.same({ ["face.smile"] = 0.6 }, snap.morphs)
    b:restore(snap)
    assert.equal(0.6, b:morph("face.smile"))
    for frame = 1, 20 do
      a:update(0.03):evaluate(pa)
      b:update(0.03):evaluate(pb)
      assert.equal(pa:morph(1), pb:morph(1), frame)
      assert.equal(pa:morph(2), pb:morph(2), frame)
    end
    -- bad parts are named, and a refused restore changes nothing
    local bad = a:snapshot()
    bad.morphs = { ["face.frown"] = 1 }
    local ok, err = pcall(b.restore, b, bad)
    assert.is_false(ok)
    assert.matches("bad snapshot: morphs: unknown morph 'face.frown'", err)
    bad.morphs = { ["face.smile"] = 0 / 0 }
    ok, err = pcall(b.restore, b, bad)
    assert.is_false(ok)
    assert.matches("morphs.face.smile", err)
    assert.equal(0.6, b:morph("face.smile"))
    -- the poses it keeps (the history and velocity of an inertialised switch) hold the joints'
    -- numbers, then the morph weights; one of a build without morph weights (the joints' alone)
    -- still restores, the weights at their defaults
    local old = a:snapshot()
    local poses = 0
    local function cut(t)
      for k, v in pairs(t) do
        if type(v) == "table" then
          if #v == 12 and type(v[1]) == "number" then
            t[k] = { (table.unpack or unpack)(v, 1, 10) }
            poses = poses + 1
          else
            cut(v)
          end
        end
      end
    end
    cut(old.layers)
    assert.is_true(poses >= 2, poses .. " poses")
    b:restore(old)
    -- a snapshot without the weights set gives them back to the layers
    local none = a:snapshot()
    none.morphs = nil
    b:restore(none)
    assert.is_nil(b:morph("face.smile"))
  end)

  it("plays a glTF asset's morph targets as its clip samples them", function()
    local cube = assert(sinew.gltf.load("spec/gltf-corpus/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb"))
    local anim = sinew.animator({ skeleton = cube.skeleton, layers = { { name = "base", entry = "square",
      states = { square = { motion = "Square" } } } } }, { clips = cube.clips })
    local pose, want = sinew.pose(cube.skeleton), sinew.pose(cube.skeleton)
    local t = 0
    for _ = 1, 50 do
      anim:update(0.07):evaluate(pose)
      t = t + 0.07
      cube.clips.Square:sample(t, want)
      assert.near(want:morph(1), pose:morph(1), TOL)
      assert.near(want:morph(2), pose:morph(2), TOL)
    end
    anim:set_morph("Cube.1", 1):evaluate(pose)
    local m = cube.meshes[1]
    assert.same({ m:position(1, { pose:morph(1), 1 }) }, { m:position(1, pose) })
  end)
end)
