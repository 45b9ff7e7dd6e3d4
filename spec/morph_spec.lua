-- Morph targets (blend shapes) in skeletons, poses, masks, blends, additive layers and clips: each
-- result against the formula computed here independently (manual/poses.md, "Morph weights").
local helper = require "helper"
local sinew = require "sinew"

local near_rel = helper.near_rel

local function skel(morphs, defaults)
  return sinew.skeleton { names = { "root", "head" }, parents = { 0, 1 }, morphs = morphs, morph_defaults = defaults }
end

local FACE = { "face.blink", "face.smile", "head", "jaw.open" } -- "head" is also a joint's name
local DEFAULTS = { 0, 0.5, -0.25, 1 }

local function weights_of(pose)
  local out = {}
  for m = 1, pose:skeleton():morph_count() do out[m] = pose:morph(m) end
  return out
end

local function assert_near_list(got, want, tol, what)
  assert.are.equal(#want, #got, what)
  for i = 1, #want do
    assert(near_rel(got[i], want[i], tol), ("%s: morph %d is %.9g, expected %.9g"):format(what, i, got[i], want[i]))
  end
end

-- runs the table of { name, fn, message } cases: each must raise a message containing `message`
local function refuses(cases)
  for _, c in ipairs(cases) do
    local err = helper.error_of(c[2])
    assert(err, c[1] .. ": no error")
    assert(err:find(c[3], 1, true), ("%s: %q does not say %q"):format(c[1], err, c[3]))
    assert.is_nil(err:find("attempt to", 1, true), c[1])
  end
end

describe("morph targets", function()
  describe("skeletons", function()
    it("keep the names, the defaults and find morphs by name", function()
      local s = skel(FACE, DEFAULTS)
      assert.are.equal(4, s:morph_count())
      assert.are.same(FACE, s:morphs())
      assert.are_not.equal(s:morphs(), s:morphs()) -- a new list each time
      for m, name in ipairs(FACE) do
        assert.are.equal(m, s:find_morph(name))
        assert.are.equal(DEFAULTS[m], s:morph_default(m))
        assert.are.equal(DEFAULTS[m], s:morph_default(name))
      end
      assert.is_nil(s:find_morph("nose"))
      assert.are.equal(2, s:find("head")) -- the joint of the same name is another thing
      local plain = skel()
      assert.are.equal(0, plain:morph_count())
      assert.are.same({}, plain:morphs())
      assert.are.equal(0, skel({ "a", "b" }):morph_default(2))
    end)

    it("refuse bad morph definitions, naming the fault", function()
      local long = ("x"):rep(256)
      refuses {
        { "duplicate names", function() skel({ "a", "b", "a" }) end, "morphs 1 and 3 are both named 'a'" },
        { "empty name", function() skel({ "a", "" }) end, "morph 2 has no name" },
        { "name not a string", function() skel({ "a", 7 }) end, "name of morph 2 is not a string (got number)" },
        { "zero byte", function() skel({ "a\0b" }) end, "name of morph 1 has a zero byte" },
        { "long name", function() skel({ long }) end, "name of morph 1 is longer than 255 bytes" },
        { "morphs not a table", function() skel("a") end, "'morphs' must be a table (got string)" },
        { "defaults not a table", function() skel({ "a" }, 1) end, "'morph_defaults' must be a table (got number)" },
        { "defaults alone", function() skel(nil, { 1 }) end, "'morph_defaults' without 'morphs'" },
        { "defaults count", function() skel({ "a", "b" }, { 1 }) end, "'morph_defaults' has 1 entries, 'morphs' 2" },
        { "NaN default", function() skel({ "a" }, { 0 / 0 }) end, "default weight of morph 1 is not finite" },
        { "inf default", function() skel({ "a" }, { math.huge }) end, "default weight of morph 1 is not finite" },
        { "huge default", function() skel({ "a" }, { 1e300 }) end, "default weight of morph 1 is too large for a float" },
        { "string default", function() skel({ "a" }, { "1" }) end,
          "default weight of morph 1 is not a number (got string)" },
        { "too many", function()
          local names = {}
          for i = 1, 65536 do names[i] = "m" .. i end
          skel(names)
        end, "65536 morphs, more than the 65535 allowed" },
        { "bad morph of morph_default", function() skel({ "a" }):morph_default("b") end, "unknown morph 'b'" },
        { "morph index out of range", function() skel({ "a" }):morph_default(2) end, "morph 2 is out of range (1 .. 1)" },
      }
    end)
  end)

  describe("poses", function()
    it("hold the defaults fresh and after reset, and get and set by index and name", function()
      local s = skel(FACE, DEFAULTS)
      local p = sinew.pose(s)
      assert.are.same(DEFAULTS, weights_of(p))
      p:set_morph("face.blink", 0.75)
      p:set_morph(3, -2.5) -- not clamped: glTF allows any weight
      assert.are.equal(0.75, p:morph(1))
      assert.are.equal(-2.5, p:morph("head"))
      local q = sinew.pose(s)
      q:copy(p)
      assert.are.same({ 0.75, 0.5, -2.5, 1 }, weights_of(q))
      p:reset()
      assert.are.same(DEFAULTS, weights_of(p))
      local out = { 9, 9, 9, 9, 9 }
      assert.are.equal(out, q:morphs(out))
      assert.are.same({ 0.75, 0.5, -2.5, 1, 9 }, out) -- entries past the morphs are left alone
      q:set_morphs({ 1, 2, 3, 4 })
      assert.are.same({ 1, 2, 3, 4 }, q:morphs())
      p:set_morph(2, 0.1) -- stored as float32
      assert.are.equal(p:morph(2), select(1, p:morphs()[2]))
      assert(near_rel(p:morph(2), 0.1, 1e-7))
    end)

    it("refuse bad morph arguments and change nothing then", function()
      local p = sinew.pose(skel(FACE, DEFAULTS))
      refuses {
        { "unknown name", function() p:morph("nose") end, "unknown morph 'nose'" },
        { "index 0", function() p:morph(0) end, "morph 0 is out of range (1 .. 4)" },
        { "index 5", function() p:set_morph(5, 1) end, "morph 5 is out of range (1 .. 4)" },
        { "fraction", function() p:set_morph(1.5, 1) end, "morph 1.5 is not an integer" },
        { "nil morph", function() p:morph() end, "morph index or name expected, got no value" },
        { "table morph", function() p:set_morph({}, 1) end, "morph index or name expected, got table" },
        { "NaN weight", function() p:set_morph(1, 0 / 0) end, "not a finite number" },
        { "inf weight", function() p:set_morph(1, -math.huge) end, "not a finite number" },
        { "huge weight", function() p:set_morph(1, 1e39) end, "too large for a float" },
        { "string weight", function() p:set_morph(1, "1") end, "morph weight expected, got string" },
        { "morphs(out) not a table", function() p:morphs(3) end, "table expected, got number" },
        { "set_morphs nil", function() p:set_morphs() end, "table expected, got no value" },
        { "set_morphs short", function() p:set_morphs({ 1, 2, 3 }) end, "4 morph weights expected, got 3" },
        { "set_morphs NaN", function() p:set_morphs({ 1, 2, 0 / 0, 4 }) end, "morph weight 3 is not finite" },
        { "set_morphs string", function() p:set_morphs({ 1, 2, 3, "4" }) end,
          "morph weight 4 is not a number (got string)" },
        { "set_morphs huge", function() p:set_morphs({ 1e39, 2, 3, 4 }) end, "morph weight 1 is too large for a float" },
      }
      assert.are.same(DEFAULTS, weights_of(p))
      local none = sinew.pose(skel())
      refuses { { "no morphs", function() none:morph(1) end, "morph 1 is out of range (1 .. 0)" } }
      assert.are.same({}, none:morphs())
    end)
  end)

  describe("masks", function()
    it("hold a factor per morph: by name, the default, or the joints' default", function()
      local s = skel(FACE, DEFAULTS)
      local m = sinew.mask(s, { head = 1 }, 0.25, { ["face.smile"] = 0.5, [4] = 1 })
      assert.are.same({ 0.25, 0.5, 0.25, 1 }, { m:get_morph(1), m:get_morph(2), m:get_morph("head"), m:get_morph(4) })
      m = sinew.mask(s, nil, 0.25, { ["face.smile"] = 0.5 }, 0)
      assert.are.same({ 0, 0.5, 0, 0 }, { m:get_morph(1), m:get_morph(2), m:get_morph(3), m:get_morph(4) })
      assert.are.equal(m, m:set_morph("jaw.open", 0.75))
      assert.are.equal(0.75, m:get_morph(4))
      assert.are.equal(0.25, m:get(1)) -- joints untouched
    end)

    it("refuse bad factors", function()
      local s = skel(FACE)
      local m = sinew.mask(s)
      refuses {
        { "unknown morph", function() sinew.mask(s, nil, 0, { nose = 1 }) end, "unknown morph 'nose'" },
        { "factor above 1", function() sinew.mask(s, nil, 0, { head = 2 }) end,
          "mask weight 2 of morph 'head' is out of range (0 .. 1)" },
        { "morphs not a table", function() sinew.mask(s, nil, 0, "x") end, "table expected, got string" },
        { "morph default", function() sinew.mask(s, nil, 0, nil, -1) end, "mask morph weight -1 is out of range (0 .. 1)" },
        { "set_morph range", function() m:set_morph(1, 1.5) end, "mask weight 1.5 is out of range (0 .. 1)" },
        { "set_morph NaN", function() m:set_morph(1, 0 / 0) end, "out of range (0 .. 1)" },
        { "set_morph string", function() m:set_morph(1, "x") end, "mask weight expected, got string" },
        { "get_morph index", function() m:get_morph(9) end, "morph 9 is out of range (1 .. 4)" },
      }
      assert.are.equal(0, m:get_morph(1))
    end)
  end)

  describe("blending", function()
    -- the weighted mean of the layers' weights (weight x mask factor), the default filling in up
    -- to the threshold, in double
    local function reference(s, poses, ws, masks, threshold)
      local out = {}
      for m = 1, s:morph_count() do
        local sum, wsum = 0, 0
        for i = 1, #poses do
          local w = ws[i] * (masks[i] and masks[i]:get_morph(m) or 1)
          sum, wsum = sum + w * poses[i]:morph(m), wsum + w
        end
        local total = 0
        for i = 1, #ws do total = total + ws[i] end
        local fill = math.max(threshold - wsum, 0)
        out[m] = (sum + fill * s:morph_default(m)) / (wsum + fill)
        assert(total >= 0)
      end
      return out
    end

    it("takes the weighted mean of N masked layers, the defaults filling in below the threshold", function()
      local rng = helper.rng(2611)
      local s = skel(FACE, DEFAULTS)
      for round = 1, 60 do
        local n = 1 + round % 5
        local poses, ws, masks = {}, {}, {}
        for i = 1, n do
          poses[i] = sinew.pose(s)
          for m = 1, 4 do poses[i]:set_morph(m, rng(-2, 2)) end
          ws[i] = round % 3 == 0 and rng(0, 0.05) or rng(0, 1) -- every third round below the threshold
          if rng() < 0.5 then
            masks[i] = sinew.mask(s, nil, 1, { [1] = rng(), [2] = rng(), [3] = 0, [4] = rng() })
          else
            masks[i] = false
          end
        end
        local threshold = round % 2 == 0 and 0.1 or 0.3
        local want = reference(s, poses, ws, masks, threshold)
        local out = sinew.pose(s)
        sinew.blend(out, poses, ws, masks, threshold)
        assert_near_list(weights_of(out), want, 2e-6, "round " .. round)
        -- in place: the output is a layer
        local keep = weights_of(poses[1])
        sinew.blend(poses[1], poses, ws, masks, threshold)
        assert_near_list(weights_of(poses[1]), want, 2e-6, "in place, round " .. round)
        poses[1]:set_morphs(keep)
      end
    end)

    it("gives the defaults without weight and a morph masked out everywhere", function()
      local s = skel(FACE, DEFAULTS)
      local a, out = sinew.pose(s), sinew.pose(s)
      a:set_morphs({ 3, 3, 3, 3 })
      sinew.blend(out, { a }, { 0 })
      assert.are.same(DEFAULTS, weights_of(out))
      local no_jaw = sinew.mask(s, nil, 1, { ["jaw.open"] = 0 })
      sinew.blend(out, { a, a }, { 1, 1 }, { no_jaw, no_jaw })
      assert_near_list(weights_of(out), { 3, 3, 3, 1 }, 1e-7, "masked")
      for _, method in ipairs({ "karcher", "markley", "power" }) do
        out:reset()
        sinew.blend(out, { a, out }, { 0.5, 0.5 }, nil, nil, method)
        assert_near_list(weights_of(out), { 1.5, 1.75, 1.375, 2 }, 1e-6, method)
      end
    end)
  end)

  describe("additive layers", function()
    it("add w x mask x delta, and the delta of a pose undoes it", function()
      local rng = helper.rng(77)
      local s = skel(FACE, DEFAULTS)
      local base, pose, ref, d = sinew.pose(s), sinew.pose(s), sinew.pose(s), sinew.pose(s)
      for m = 1, 4 do
        pose:set_morph(m, rng(-3, 3))
        ref:set_morph(m, rng(-3, 3))
      end
      sinew.delta(d, pose, ref)
      for m = 1, 4 do assert(near_rel(d:morph(m), pose:morph(m) - ref:morph(m), 1e-7)) end
      base:copy(ref)
      base:add(d, 1)
      assert_near_list(weights_of(base), weights_of(pose), 1e-6, "round trip")
      local mask = sinew.mask(s, nil, 0, { [2] = 0.5, [4] = 1 })
      base:copy(ref)
      base:add(d, 0.5, mask)
      local want = weights_of(ref)
      want[2] = want[2] + 0.25 * d:morph(2)
      want[4] = want[4] + 0.5 * d:morph(4)
      assert_near_list(weights_of(base), want, 1e-6, "masked")
    end)

    it("refuse a layer that leaves the float range, before writing anything", function()
      local s = skel(FACE)
      local a, b = sinew.pose(s), sinew.pose(s)
      a:set_morphs({ 1, 2, 3e38, 4 })
      b:set_morphs({ 1, 1, 3e38, 1 })
      local before = weights_of(a)
      refuses { { "add", function() a:add(b, 1) end, "the layer takes the weight of morph 3 out of the float range" } }
      assert.are.same(before, weights_of(a))
      b:set_morphs({ 0, 0, -3e38, 0 })
      refuses { { "delta", function() sinew.delta(a, a, b) end, "the delta of morph 3 is out of the float range" } }
      assert.are.same(before, weights_of(a))
    end)
  end)

  describe("clips", function()
    -- glTF's cubic Hermite spline between keys k and k + 1 at fraction s of dt
    local function hermite(v0, b0, v1, a1, dt, s)
      local s2, s3 = s * s, s * s * s
      return (2 * s3 - 3 * s2 + 1) * v0 + (s3 - 2 * s2 + s) * dt * b0 + (-2 * s3 + 3 * s2) * v1 + (s3 - s2) * dt * a1
    end
    local times = { 0, 0.5, 1.25, 2 }
    local lin = { 0, 1, -0.5, 2 }
    local cub = { 0, 0, 1, -- in, value, out per key
      1, 1, 0.5,
      -2, -0.5, 0,
      0, 2, 3 }

    -- the expected weight of each track at t (clamped to [0, 2])
    local function expected(t, interp)
      if t <= times[1] then return interp == "cubicspline" and cub[2] or lin[1] end
      if t >= times[4] then return interp == "cubicspline" and cub[11] or lin[4] end
      local k = 1
      while times[k + 1] <= t do k = k + 1 end
      local dt, s = times[k + 1] - times[k], (t - times[k]) / (times[k + 1] - times[k])
      if interp == "step" then return lin[k] end
      if interp == "linear" then return lin[k] + s * (lin[k + 1] - lin[k]) end
      return hermite(cub[3 * k - 1], cub[3 * k], cub[3 * k + 2], cub[3 * k + 1], dt, s)
    end

    -- a skeleton of `n` morphs and a clip of the three interpolations on morphs 1-3 (more tracks
    -- of the same times when `shared`, so that they share one cursor), the other morphs untracked
    local function make(n, shared)
      local names, defaults = {}, {}
      for m = 1, n do names[m], defaults[m] = "m" .. m, m / 8 end
      local s = skel(names, defaults)
      local tracks = {
        { morph = "m1", times = times, values = lin },
        { morph = 2, path = "weights", interpolation = "step", times = times, values = lin },
        { morph = "m3", interpolation = "cubicspline", times = times, values = cub },
        { joint = "head", path = "translation", times = { 0, 2 }, values = { 0, 0, 0, 1, 2, 3 } },
      }
      if shared then
        for m = 4, n - 1 do tracks[#tracks + 1] = { morph = m, times = times, values = lin } end
      else -- a second linear track of other times: a cursor per track
        tracks[#tracks + 1] = { morph = 4, times = { 0, 0.75, 2 }, values = { 1, 3, 1 } }
      end
      return s, sinew.clip { skeleton = s, tracks = tracks }
    end

    for _, case in ipairs({ { 5, false, "per-track cursors" }, { 12, true, "shared key times" } }) do
      it("samples linear, step and cubicspline weights at and between keys (" .. case[3] .. ")", function()
        local s, c = make(case[1], case[2])
        local p = sinew.pose(s)
        local cursor = c:cursor()
        local q = sinew.pose(s)
        local ts = { -1, 0, 0.1, 0.25, 0.5, 0.7, 1.25, 1.9, 2, 3 }
        for pass = 1, 2 do -- forward, then backward through the clip
          for i = 1, #ts do
            local t = pass == 1 and ts[i] or ts[#ts + 1 - i]
            c:sample(t, p, false)
            cursor:sample(t, q, false)
            local want = { expected(t, "linear"), expected(t, "step"), expected(t, "cubicspline") }
            for m = 1, 3 do
              assert(near_rel(p:morph(m), want[m], 2e-6),
                ("t %g morph %d: %.9g, expected %.9g"):format(t, m, p:morph(m), want[m]))
              assert.are.equal(p:morph(m), q:morph(m))
            end
            if case[2] then
              for m = 4, case[1] - 1 do assert.are.equal(p:morph(1), p:morph(m)) end
            else
              local tc = math.min(math.max(t, 0), 2)
              local w4 = tc < 0.75 and 1 + tc / 0.75 * 2 or 3 - (tc - 0.75) / 1.25 * 2
              assert(near_rel(p:morph(4), w4, 2e-6), ("t %g morph 4: %.9g, expected %.9g"):format(t, p:morph(4), w4))
            end
            assert.are.equal(case[1] / 8, p:morph(case[1])) -- no track: the default
          end
        end
        -- at each key exactly (float keys)
        for k = 1, 4 do
          c:sample(times[k], p, false)
          assert.are.equal(lin[k] + 0.0, p:morph(1))
          assert.are.equal(lin[k] + 0.0, p:morph(2))
          assert(near_rel(p:morph(3), cub[3 * k - 1], 1e-6))
        end
        -- loop: t wraps into [0, 2)
        c:sample(2.7, p, true)
        assert(near_rel(p:morph(1), expected(0.7, "linear"), 2e-6))
        c:sample(-1.3, p, true)
        assert(near_rel(p:morph(3), expected(0.7, "cubicspline"), 2e-6))
        -- sample_joint is unaffected by weight tracks
        local tx = c:sample_joint(1, "head", false)
        assert(near_rel(tx, 0.5, 1e-7))
      end)
    end

    it("gives untracked morphs the defaults even after the pose changed them", function()
      local s, c = make(5, false)
      local p = sinew.pose(s)
      p:set_morphs({ 9, 9, 9, 9, 9 })
      c:sample(0.25, p)
      assert.are.same({ 0.5, 5 / 8 }, { p:morph(1), p:morph(5) })
      local still = sinew.clip { skeleton = s, tracks = {} }
      p:set_morphs({ 9, 9, 9, 9, 9 })
      still:sample(0, p)
      assert.are.same({ 1 / 8, 2 / 8, 3 / 8, 4 / 8, 5 / 8 }, p:morphs())
    end)

    it("refuse bad weight tracks", function()
      local s = skel({ "a", "b" })
      local function clip(track) return function() sinew.clip { skeleton = s, tracks = { track } } end end
      refuses {
        { "unknown morph", clip { morph = "z", times = { 0 }, values = { 0 } }, "track 1: unknown morph 'z'" },
        { "morph 3", clip { morph = 3, times = { 0 }, values = { 0 } }, "track 1: morph 3 is out of range (1 .. 2)" },
        { "morph 0", clip { morph = 0, times = { 0 }, values = { 0 } }, "track 1: morph 0 is out of range (1 .. 2)" },
        { "fraction", clip { morph = 1.5, times = { 0 }, values = { 0 } }, "track 1: morph 1.5 is not an integer" },
        { "bad type", clip { morph = true, times = { 0 }, values = { 0 } },
          "track 1: 'morph' must be a name or an index (got boolean)" },
        { "joint and morph", clip { morph = 1, joint = 1, times = { 0 }, values = { 0 } },
          "track 1: a track has a 'joint' or a 'morph', not both" },
        { "other path", clip { morph = 1, path = "scale", times = { 0 }, values = { 0 } },
          "track 1: a 'morph' track animates its 'weights', not a scale" },
        { "weights of a joint", clip { joint = 1, path = "weights", times = { 0 }, values = { 0 } },
          "track 1: a 'weights' track names a 'morph', not a 'joint'" },
        { "value count", clip { morph = 1, times = { 0, 1 }, values = { 0 } }, "track 1: 1 values, expected 2 (2 keys x 1)" },
        { "cubic count", clip { morph = 1, interpolation = "cubicspline", times = { 0 }, values = { 0 } },
          "track 1: 1 values, expected 3 (1 keys x 3 x 1 for cubicspline)" },
        { "NaN value", clip { morph = 1, times = { 0 }, values = { 0 / 0 } }, "track 1: value 1 is not finite" },
        { "huge value", clip { morph = "b", times = { 0 }, values = { 1e19 } },
          "track 1 ('b' weight): value 1 is too large (at most 1e+18 in magnitude)" },
        { "two tracks", function()
          sinew.clip { skeleton = s, tracks = { { morph = 2, times = { 0 }, values = { 0 } },
            { morph = "b", times = { 0 }, values = { 1 } } } }
        end, "tracks 1 and 2 both animate the weight of 'b'" },
      }
    end)
  end)

  it("go through groups: a group's samples and blends carry them as the direct calls do", function()
    local s = skel(FACE, DEFAULTS)
    local clip = sinew.clip { skeleton = s, tracks = {
      { morph = "face.blink", times = { 0, 1 }, values = { 0, 1 } },
      { morph = "jaw.open", interpolation = "cubicspline", times = { 0, 1 }, values = { 0, 0, 2, 1, -1, 0 } },
      { joint = "head", path = "rotation", times = { 0, 1 }, values = { 0, 0, 0, 1, 0, 1, 0, 0 } } } }
    local a, b, out = sinew.pose(s), sinew.pose(s), sinew.pose(s)
    local a2, b2, out2 = sinew.pose(s), sinew.pose(s), sinew.pose(s)
    local mask = sinew.mask(s, nil, 1, { ["face.blink"] = 0.25 })
    local g = sinew.group()
    g:sample(clip:cursor(), a)
    g:sample(clip:cursor(), b)
    g:blend(out, { a, b }, { mask, false })
    for _, t in ipairs({ 0.1, 0.4, 0.9 }) do
      g:run(0, { t, t + 0.5, 0.3, 0.7 })
      clip:sample(t, a2)
      clip:sample(t + 0.5, b2)
      sinew.blend(out2, { a2, b2 }, { 0.3, 0.7 }, { mask, false })
      assert.are.same(weights_of(out2), weights_of(out))
      assert.are_not.same(DEFAULTS, weights_of(out))
    end
  end)

  if sinew.path == "ffi" then
    it("on the FFI path, gives the C binding's weights bit for bit and raises its errors word for word", function()
      local C = require("sinew.ffi").c.Pose
      local s = skel(FACE, DEFAULTS)
      local methods = getmetatable(sinew.pose(s)).__index
      local EXTREMES = { 0, -0.0, 5e-324, 1e-40, 0.1, -0.5, 1, 3.4028234663852886e38, 3.4028235e38, 3.5e38, 1e300,
        -1e300, math.huge, -math.huge, 0 / 0, "1", true }
      local MORPHS = { 1, 4, 0, 5, 1.5, -1, "face.blink", "head", "nose", "head\0x", true, nil }
      local function run(fast, name, fn)
        local saved = methods[name]
        if not fast then methods[name] = C[name] end
        local p = sinew.pose(s)
        local r = { pcall(fn, p) }
        methods[name] = saved
        r[2] = type(r[2]) == "string" and r[2]:gsub("^[^:]*:%d+: ", "") or r[2]
        r[#r + 1] = table.concat(p:morphs(), ",")
        return r
      end
      local function same(name, fn)
        local a, b = run(true, name, fn), run(false, name, fn)
        assert.are.same(b, a, name)
      end
      for _, m in ipairs(MORPHS) do
        same("morph", function(p) return p:morph(m) end)
        for _, w in ipairs(EXTREMES) do
          same("set_morph", function(p)
            p:set_morph(m, w)
            return p:morph(1), p:morph(4)
          end)
          same("set_morphs", function(p) p:set_morphs({ w, 1, w, 2 }) end)
        end
      end
      for _, out in ipairs({ false, {}, { 1, 2, 3, 4, 5 }, 7, "x" }) do
        same("morphs", function(p) return p:morphs(out or nil) end)
      end
      same("set_morphs", function(p) p:set_morphs({ 1, 2 }) end)
      same("set_morphs", function(p) p:set_morphs("x") end)
      same("morph", function(p) return p.morph(nil, 1) end)
      same("set_morph", function(p) return p.set_morph(s, 1, 1) end)
    end)
  end

  it("makes no garbage per frame: sample, blend, add and reads into reused tables", function()
    local names = {}
    for m = 1, 8 do names[m] = "m" .. m end
    local s = skel(names)
    local tracks = {}
    for m = 1, 8 do tracks[m] = { morph = m, times = { 0, 1 }, values = { 0, m } } end
    local c = sinew.clip { skeleton = s, tracks = tracks }
    local a, b, out = sinew.pose(s), sinew.pose(s), sinew.pose(s)
    local poses, ws, masks = { a, b }, { 0.3, 0.7 }, { sinew.mask(s, nil, 1, { m1 = 0.5 }), false }
    local list, t = {}, 0
    local function frame()
      t = t + 0.001
      c:sample(t, a)
      c:sample(t + 0.5, b)
      sinew.blend(out, poses, ws, masks)
      out:set_morph("m2", 0.25)
      out:morphs(list)
      out:set_morphs(list)
      return out:morph(3) + list[8]
    end
    assert.are.equal(0, helper.least_garbage(frame, 1000))
  end)
end)
