local helper = require "helper"
local sinew = require "sinew"
local quat = sinew.quat

local near_rel = helper.near_rel

local function all_near(got, want, tol, what)
  for c = 1, #want do
    assert(near_rel(got[c], want[c], tol),
      ("%s: component %d is %.9g, expected %.9g"):format(what or "value", c, got[c], want[c]))
  end
end

-- a rotation within `spread` radians of (cx, cy, cz, cw), of either sign
local function quat_near(rng, spread, cx, cy, cz, cw)
  local dx, dy, dz, dw = quat.from_axis_angle(rng(-1, 1), rng(-1, 1), rng(-1, 1) + 0.01, spread * rng())
  local x, y, z, w = quat.mul(cx, cy, cz, cw, dx, dy, dz, dw)
  if rng() < 0.5 then return -x, -y, -z, -w end
  return x, y, z, w
end

-- sets every joint of `pose` to random values; rotations within 60 degrees of centres[j]
local function randomize(rng, pose, centres)
  for j = 1, #pose do
    local c = centres[j]
    local x, y, z, w = quat_near(rng, math.pi / 3, c[1], c[2], c[3], c[4])
    pose:set(j, rng(-1, 1), rng(-1, 1), rng(-1, 1), x, y, z, w, rng(0.8, 1.2), rng(0.8, 1.2), rng(0.8, 1.2))
  end
end

local function random_centres(rng, n)
  local cs = {}
  for j = 1, n do cs[j] = { helper.random_quat(rng) } end
  return cs
end

-- The blend as documented, computed independently here in double precision.
local function reference_blend(skel, layers, weights, masks, threshold)
  threshold = threshold or 0.1
  local result = {}
  for j = 1, #skel do
    local W, t, q, s = 0, { 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 0 }
    local function add(v, w)
      for c = 1, 3 do t[c] = t[c] + w * v[c]; s[c] = s[c] + w * v[7 + c] end
      local d = q[1] * v[4] + q[2] * v[5] + q[3] * v[6] + q[4] * v[7]
      local sw = d < 0 and -w or w
      for c = 1, 4 do q[c] = q[c] + sw * v[3 + c] end
      W = W + w
    end
    for i = 1, #layers do
      local m = 1
      if masks and masks[i] then m = masks[i]:get(j) end
      local w = weights[i] * m
      if w > 0 then add({ layers[i]:get(j) }, w) end
    end
    if W < threshold then add({ skel:rest(j) }, threshold - W) end
    local l = math.sqrt(q[1] ^ 2 + q[2] ^ 2 + q[3] ^ 2 + q[4] ^ 2)
    result[j] = { t[1] / W, t[2] / W, t[3] / W, q[1] / l, q[2] / l, q[3] / l, q[4] / l, s[1] / W, s[2] / W, s[3] / W }
  end
  return result
end

local function pose_values(pose)
  local v = {}
  for j = 1, #pose do v[j] = { pose:get(j) } end
  return v
end

describe("sinew.pose", function()
  local err = helper.error_of
  local skel = sinew.skeleton { names = { "hips", "spine", "head" }, parents = { 0, 1, 2 },
    rest = { { 0, 1, 0, 0, 0, 0, 1, 1, 1, 1 }, { 0, 0.5, 0, 0, 0, 0.6, 0.8, 1, 1, 1 }, { 0, 0.3, 0, 0, 0, 0, 1, 2, 2, 2 } } }

  describe("get and set", function()
    it("starts as the rest pose and goes back to it with reset()", function()
      local pose = sinew.pose(skel)
      for j = 1, 3 do assert.same({ skel:rest(j) }, { pose:get(j) }) end
      pose:set(2, 1, 2, 3, 0, 0, 0, 1, 4, 5, 6)
      assert.equal(pose, pose:reset())
      assert.same({ skel:rest(2) }, { pose:get(2) })
      assert.equal(3, #pose)
      assert.matches("^sinew.Pose %(3 joints%)", tostring(pose))
    end)

    it("round-trips values as float32 and normalises rotations", function()
      local rng, pose = helper.rng(21), sinew.pose(skel)
      for _ = 1, 100 do
        local j = 1 + math.floor(rng() * 3)
        local x, y, z, w = helper.random_quat(rng)
        local k = rng(0.1, 10)
        local v = { rng(-100, 100), rng(-1, 1), rng(-1, 1), x, y, z, w, rng(0.1, 3), rng(0.1, 3), rng(0.1, 3) }
        pose:set(j, v[1], v[2], v[3], x * k, y * k, z * k, w * k, v[8], v[9], v[10])
        all_near({ pose:get(j) }, v, 1e-6, "get")
      end
    end)

    it("gets and sets translation, rotation and scale separately, by index or name", function()
      local pose = sinew.pose(skel)
      pose:set_translation("head", 1, 2, 3)
      pose:set_rotation(3, 0, 0, 2, 0)
      pose:set_scale(3, 4, 5, 6)
      assert.same({ 1, 2, 3 }, { pose:get_translation(3) })
      assert.same({ 0, 0, 1, 0 }, { pose:get_rotation("head") })
      assert.same({ 4, 5, 6 }, { pose:get_scale(3) })
      assert.same({ 1, 2, 3, 0, 0, 1, 0, 4, 5, 6 }, { pose:get(3) })
    end)

    it("copies another pose of the same skeleton", function()
      local a, b = sinew.pose(skel), sinew.pose(skel)
      a:set(1, 1, 2, 3, 0, 1, 0, 0, 2, 2, 2)
      assert.equal(b, b:copy(a))
      assert.same(pose_values(a), pose_values(b))
    end)

    it("keeps its skeleton alive", function()
      local pose = sinew.pose(sinew.skeleton { names = { "a", "b" }, parents = { 0, 1 } })
      collectgarbage()
      collectgarbage()
      assert.equal(2, #pose:skeleton())
      assert.equal("b", pose:skeleton():name(2))
    end)

    it("makes no garbage per call", function()
      local pose = sinew.pose(skel)
      assert.equal(0, helper.garbage_per_call(function() pose:get(2) end, 2000))
      assert.equal(0, helper.garbage_per_call(function() pose:set(2, 1, 2, 3, 0, 0, 0, 1, 1, 1, 1) end, 2000))
      assert.equal(0, helper.garbage_per_call(function() pose:set_rotation("head", 0, 1, 0, 1) end, 2000))
      assert.equal(0, helper.garbage_per_call(function() pose:get_scale(1) end, 2000))
    end)

    it("refuses bad joints and values", function()
      local pose = sinew.pose(skel)
      assert.matches("joint 4 is out of range %(1 .. 3%)", err(pose.get, pose, 4))
      assert.matches("joint 0 is out of range", err(pose.set, pose, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1))
      assert.matches("joint 2.5 is not an integer", err(pose.get_rotation, pose, 2.5))
      assert.matches("unknown joint 'tail'", err(pose.set_scale, pose, "tail", 1, 1, 1))
      assert.matches("bad argument #6 .*zero quaternion", err(pose.set, pose, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1))
      assert.matches("bad argument #3 .*zero quaternion", err(pose.set_rotation, pose, 1, 0, 0, 0, 0))
      assert.matches("bad argument #5 .*not a finite number", err(pose.set_translation, pose, 1, 0, 0, 0 / 0))
      assert.matches("bad argument #12 .*number expected", err(pose.set, pose, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1))
      assert.matches("bad argument #3 .*too large for a float", err(pose.set_scale, pose, 1, 1e300, 1, 1))
      assert.matches("sinew.Pose expected, got table", err(pose.get, {}, 1))
      local stranger = sinew.pose(sinew.skeleton { names = { "x" }, parents = { 0 } })
      assert.matches("pose of another skeleton", err(pose.copy, pose, stranger))
      assert.matches("sinew.Skeleton expected, got no value", err(sinew.pose))
    end)
  end)

  describe("sinew.blend()", function()
    it("averages rotations by nlerp, Karcher mean, Markley eigenvector or powers, joint by joint", function()
      local s = sinew.skeleton { names = { "a", "b" }, parents = { 0, 1 } }
      local p, q, out = sinew.pose(s), sinew.pose(s), sinew.pose(s)
      q:set_rotation(1, quat.from_axis_angle(0, 1, 0, math.rad(150)))
      q:set_rotation(2, quat.from_axis_angle(1, 0, 0, math.rad(90)))
      q:set_translation(1, 4, 0, 0)
      local atan2 = math.atan2 or math.atan
      local angle = function(x, y, z, w) return math.deg(2 * atan2(math.sqrt(x * x + y * y + z * z), w)) end
      local got = {}
      for _, method in ipairs { "nlerp", "karcher", "markley", "power" } do
        sinew.blend(out, { p, q }, { 0.25, 0.75 }, nil, nil, method)
        got[method] = angle(out:get_rotation(1))
        assert.equal(3, (out:get_translation(1))) -- translations do not depend on the method
      end
      assert.is_true(math.abs(got.karcher - 112.5) < 1e-3, got.karcher)  -- the geodesic: slerp
      assert.is_true(math.abs(got.power - 112.5) < 1e-3, got.power)      -- p^0.25 q^0.75 with p = 1
      assert.is_true(math.abs(got.nlerp - 112.5) > 1, got.nlerp)         -- nlerp runs ahead of the arc
      assert.is_true(got.markley > 90 and got.markley < 150, got.markley)
      -- a mask: joint 2 keeps p where the mask says 0
      local m = sinew.mask(s, { a = 1 }, 0)
      sinew.blend(out, { p, q }, { 0.25, 0.75 }, { false, m }, nil, "karcher")
      assert.is_true(math.abs(angle(out:get_rotation(2))) < 1e-3)
      assert.matches("invalid option 'slerp'", helper.error_of(sinew.blend, out, { p, q }, { 1, 1 }, nil, nil, "slerp"))
      local layers, weights = { p, q }, { 0.25, 0.75 }
      assert.equal(0, helper.garbage_per_call(function() sinew.blend(out, layers, weights, nil, nil, "karcher") end))
    end)

    it("equals an independent reference for random poses, weights and masks, to 1e-5", function()
      local rng = helper.rng(31)
      for round = 1, 40 do
        local s = helper.random_skeleton(rng, 1 + math.floor(rng() * 20), 0.8, 1.2)
        local centres = random_centres(rng, #s)
        local n = 1 + math.floor(rng() * 6)
        local layers, weights, masks = {}, {}, {}
        for i = 1, n do
          layers[i] = sinew.pose(s)
          randomize(rng, layers[i], centres)
          weights[i] = rng() < 0.15 and 0 or rng(0, 2)
          if round % 2 == 0 and rng() < 0.6 then
            local m = sinew.mask(s, nil, rng())
            for j = 1, #s do if rng() < 0.5 then m:set(j, rng() < 0.3 and 0 or rng()) end end
            masks[i] = m
          else
            masks[i] = false
          end
        end
        local out = sinew.pose(s)
        sinew.blend(out, layers, weights, round % 2 == 0 and masks or nil)
        local want = reference_blend(s, layers, weights, round % 2 == 0 and masks or nil)
        for j = 1, #s do all_near({ out:get(j) }, want[j], 1e-5, ("round %d joint %d"):format(round, j)) end
      end
    end)

    it("normalises the weights and aligns rotations of opposite sign", function()
      local rng = helper.rng(32)
      local a, b, c, d = sinew.pose(skel), sinew.pose(skel), sinew.pose(skel), sinew.pose(skel)
      local centres = random_centres(rng, 3)
      randomize(rng, a, centres)
      randomize(rng, b, centres)
      sinew.blend(c, { a, b }, { 1, 3 })
      sinew.blend(d, { a, b }, { 0.25, 0.75 })
      for j = 1, 3 do all_near({ c:get(j) }, { d:get(j) }, 1e-6) end
      -- q and -q are the same rotation: blending them gives it back
      local x, y, z, w = a:get_rotation(2)
      b:copy(a)
      b:set_rotation(2, -x, -y, -z, -w)
      sinew.blend(c, { a, b }, { 0.5, 0.5 })
      all_near({ c:get_rotation(2) }, { x, y, z, w }, 1e-6)
    end)

    it("gives a single full-weight layer back, and the rest pose for all-zero weights", function()
      local rng = helper.rng(33)
      local a, out = sinew.pose(skel), sinew.pose(skel)
      randomize(rng, a, random_centres(rng, 3))
      sinew.blend(out, { a }, { 1 })
      for j = 1, 3 do all_near({ out:get(j) }, { a:get(j) }, 1e-6) end
      sinew.blend(out, { a }, { 0 })
      for j = 1, 3 do all_near({ out:get(j) }, { skel:rest(j) }, 1e-6) end
      sinew.blend(out, {}, {})
      for j = 1, 3 do all_near({ out:get(j) }, { skel:rest(j) }, 1e-6) end
    end)

    it("fills in the rest pose below the threshold", function()
      local rng = helper.rng(34)
      local a, out = sinew.pose(skel), sinew.pose(skel)
      randomize(rng, a, random_centres(rng, 3))
      sinew.blend(out, { a }, { 0.05 })
      local ta, tr = { a:get_translation(2) }, { skel:rest(2) }
      local t = { out:get_translation(2) }
      for c = 1, 3 do assert.is_true(near_rel(t[c], (ta[c] + tr[c]) / 2, 1e-6)) end
      -- a custom threshold
      sinew.blend(out, { a }, { 0.05 }, nil, 0.05)
      all_near({ out:get(2) }, { a:get(2) }, 1e-6)
      sinew.blend(out, { a }, { 0.5 }, nil, 1)
      t = { out:get_translation(2) }
      for c = 1, 3 do assert.is_true(near_rel(t[c], (ta[c] + tr[c]) / 2, 1e-6)) end
    end)

    it("leaves joints untouched by a layer whose mask is 0 there", function()
      local rng = helper.rng(35)
      local a, b, out = sinew.pose(skel), sinew.pose(skel), sinew.pose(skel)
      local centres = random_centres(rng, 3)
      randomize(rng, a, centres)
      randomize(rng, b, centres)
      local upper = sinew.mask(skel, { spine = 1 }, 0):set("spine", 1, true)
      sinew.blend(out, { a, b }, { 1, 1 }, { false, upper })
      all_near({ out:get(1) }, { a:get(1) }, 1e-6, "hips follow a alone")
      local want = reference_blend(skel, { a, b }, { 1, 1 })
      for j = 2, 3 do all_near({ out:get(j) }, want[j], 1e-5, "spine and head blend") end
      -- one mask for every layer
      sinew.blend(out, { a, b }, { 1, 1 }, upper)
      all_near({ out:get(1) }, { skel:rest(1) }, 1e-6, "no weight on the hips: rest pose")
    end)

    it("accepts the output among the layers", function()
      local rng = helper.rng(36)
      local a, b, ref = sinew.pose(skel), sinew.pose(skel), sinew.pose(skel)
      local centres = random_centres(rng, 3)
      randomize(rng, a, centres)
      randomize(rng, b, centres)
      sinew.blend(ref, { a, b }, { 0.3, 0.7 })
      assert.equal(a, sinew.blend(a, { a, b }, { 0.3, 0.7 }))
      for j = 1, 3 do all_near({ a:get(j) }, { ref:get(j) }, 1e-6) end
    end)

    it("gives unit rotations and finite values for any threshold, tiny or huge (found by fuzzing)", function()
      local p, out = sinew.pose(skel), sinew.pose(skel)
      p:set_translation(2, 3e38, 0, 0)
      for _, threshold in ipairs { 1e-39, 1e-30, 1e-7, 0.1, 1e20, 3e38 } do
        for _, layers in ipairs { {}, { p }, { p, p } } do
          local w = {}
          for i = 1, #layers do w[i] = 1 end
          sinew.blend(out, layers, w, nil, threshold)
          for j = 1, 3 do
            local v = { out:get(j) }
            for c = 1, 10 do assert.is_true(v[c] == v[c] and math.abs(v[c]) <= 3.5e38, c) end
            assert.is_true(near_rel(v[4] ^ 2 + v[5] ^ 2 + v[6] ^ 2 + v[7] ^ 2, 1, 1e-5))
          end
        end
      end
    end)

    it("gives the same result for huge weights as for the same weights scaled down", function()
      -- found by fuzzing: float sums of weights like 2.7e22 overflowed to a zero rotation
      local rng = helper.rng(37)
      local centres = random_centres(rng, 3)
      local mask = sinew.mask(skel, { [2] = 0.5 }, 1)
      for _, case in ipairs {
        { weights = { 2.7e22, 0.75 }, aliased = true },
        { weights = { 3e38, 3e38 } },
        { weights = { 1e30, 2e30 }, masks = { mask } },
      } do
        local a, b, out, ref = sinew.pose(skel), sinew.pose(skel), sinew.pose(skel), sinew.pose(skel)
        randomize(rng, a, centres)
        randomize(rng, b, centres)
        local w = case.weights
        local top = math.max(w[1], w[2])
        local small = { w[1] / top, w[2] / top }
        local target = case.aliased and b or out
        if case.aliased then out:copy(b) end
        sinew.blend(ref, { a, out }, small, case.masks)
        sinew.blend(target, { a, target }, w, case.masks)
        for j = 1, 3 do all_near({ target:get(j) }, { ref:get(j) }, 1e-5) end
      end
    end)

    it("makes no garbage per call", function()
      local rng = helper.rng(37)
      local layers, out = {}, sinew.pose(skel)
      for i = 1, 4 do layers[i] = sinew.pose(skel); randomize(rng, layers[i], random_centres(rng, 3)) end
      local ws, m = { 0.1, 0.2, 0.3, 0.4 }, sinew.mask(skel, { head = 0.5 }, 1)
      local masks = { m, false, m, false }
      assert.equal(0, helper.garbage_per_call(function() sinew.blend(out, layers, ws) end, 2000))
      assert.equal(0, helper.garbage_per_call(function() sinew.blend(out, layers, ws, masks) end, 2000))
      assert.equal(0, helper.garbage_per_call(function() sinew.blend(out, layers, ws, m, 0.5) end, 2000))
    end)

    it("refuses poses of other skeletons, bad weights and bad masks", function()
      local a, out = sinew.pose(skel), sinew.pose(skel)
      local other = sinew.skeleton { names = { "x", "y", "z" }, parents = { 0, 1, 2 } }
      local b = sinew.pose(other)
      assert.matches("bad argument #2 .*layer 2 is a pose of another skeleton", err(sinew.blend, out, { a, b }, { 1, 1 }))
      assert.matches("bad argument #3 .*2 weights for 1 layers", err(sinew.blend, out, { a }, { 1, 1 }))
      assert.matches("bad argument #3 .*weight 2 is negative", err(sinew.blend, out, { a, a }, { 1, -1 }))
      assert.matches("bad argument #3 .*weight 1 is not finite", err(sinew.blend, out, { a }, { 0 / 0 }))
      assert.matches("bad argument #3 .*weight 1 is not a number %(got string%)", err(sinew.blend, out, { a }, { "1" }))
      assert.matches("bad argument #2 .*layer 1 is not a sinew.Pose %(got table%)", err(sinew.blend, out, { {} }, { 1 }))
      assert.matches("bad argument #4 .*mask 1 is a mask of another skeleton",
        err(sinew.blend, out, { a }, { 1 }, { sinew.mask(other) }))
      assert.matches("bad argument #4 .*mask 1 is a mask of another skeleton",
        err(sinew.blend, out, { a }, { 1 }, sinew.mask(other)))
      assert.matches("bad argument #4 .*mask 1 is not a sinew.Mask", err(sinew.blend, out, { a }, { 1 }, { a }))
      assert.matches("bad argument #4 .*mask or table of masks expected", err(sinew.blend, out, { a }, { 1 }, 5))
      assert.matches("bad argument #5 .*threshold must be a finite number above 0", err(sinew.blend, out, { a }, { 1 }, nil, 0))
      assert.matches("bad argument #1 .*sinew.Pose expected", err(sinew.blend, skel, { a }, { 1 }))
      assert.matches("bad argument #2 .*table expected", err(sinew.blend, out, a, { 1 }))
    end)
  end)

  describe("additive layers", function()
    it("returns the original pose after adding then subtracting, to 1e-5", function()
      local rng = helper.rng(41)
      for _ = 1, 30 do
        local s = helper.random_skeleton(rng, 1 + math.floor(rng() * 12), 0.8, 1.2)
        local centres = random_centres(rng, #s)
        local p, d = sinew.pose(s), sinew.pose(s)
        randomize(rng, p, centres)
        randomize(rng, d, random_centres(rng, #s))
        local before = pose_values(p)
        local w = rng(-2, 2)
        local m = rng() < 0.5 and sinew.mask(s, nil, rng()) or nil
        p:add(d, w, m)
        p:add(d, -w, m)
        for j = 1, #s do all_near({ p:get(j) }, before[j], 1e-5) end
      end
    end)

    it("applies out * slerp(identity, delta, w), adds translations and scales scales", function()
      local rng = helper.rng(42)
      local p, d = sinew.pose(skel), sinew.pose(skel)
      randomize(rng, p, random_centres(rng, 3))
      randomize(rng, d, random_centres(rng, 3))
      for _, w in ipairs { 0, 0.25, 1, -0.5, 1.5 } do
        local before, delta = pose_values(p), pose_values(d)
        p:add(d, w)
        for j = 1, 3 do
          local b, dv = before[j], delta[j]
          local sx, sy, sz, sw = quat.slerp(0, 0, 0, 1, dv[4], dv[5], dv[6], dv[7], w)
          local qx, qy, qz, qw = quat.mul(b[4], b[5], b[6], b[7], sx, sy, sz, sw)
          local want = { b[1] + w * dv[1], b[2] + w * dv[2], b[3] + w * dv[3], qx, qy, qz, qw }
          for c = 8, 10 do
            local f = 1 + math.abs(w) * (dv[c] - 1)
            want[c] = w >= 0 and b[c] * f or b[c] / f
          end
          local got = { p:get(j) }
          if got[4] * qx + got[5] * qy + got[6] * qz + got[7] * qw < 0 then
            for c = 4, 7 do want[c] = -want[c] end
          end
          all_near(got, want, 1e-5, ("w %g joint %d"):format(w, j))
        end
      end
    end)

    it("makes a delta that adds back to the pose, and leaves masked joints alone", function()
      local rng = helper.rng(43)
      local p, ref, d = sinew.pose(skel), sinew.pose(skel), sinew.pose(skel)
      randomize(rng, p, random_centres(rng, 3))
      randomize(rng, ref, random_centres(rng, 3))
      assert.equal(d, sinew.delta(d, p, ref))
      local back = sinew.pose(skel):copy(ref)
      back:add(d, 1)
      for j = 1, 3 do
        local got, want = { back:get(j) }, { p:get(j) }
        if got[4] * want[4] + got[5] * want[5] + got[6] * want[6] + got[7] * want[7] < 0 then
          for c = 4, 7 do got[c] = -got[c] end
        end
        all_near(got, want, 1e-5)
      end
      local keep = sinew.pose(skel):copy(ref)
      keep:add(d, 1, sinew.mask(skel, { hips = 1 }))
      all_near({ keep:get(2) }, { ref:get(2) }, 0)
      all_near({ keep:get(3) }, { ref:get(3) }, 0)
      -- the delta may be written over its inputs
      local p2 = sinew.pose(skel):copy(p)
      sinew.delta(p2, p2, ref)
      for j = 1, 3 do all_near({ p2:get(j) }, { d:get(j) }, 1e-7) end
    end)

    it("makes no garbage per call", function()
      local p, d = sinew.pose(skel), sinew.pose(skel)
      assert.equal(0, helper.garbage_per_call(function() p:add(d, 0.5):add(d, -0.5) end, 1000))
      assert.equal(0, helper.garbage_per_call(function() sinew.delta(d, p, p) end, 1000))
    end)

    it("refuses other skeletons, non-finite weights and zero reference scales", function()
      local p = sinew.pose(skel)
      local other = sinew.pose(sinew.skeleton { names = { "x" }, parents = { 0 } })
      assert.matches("bad argument #2 .*delta pose of another skeleton", err(p.add, p, other, 1))
      assert.matches("bad argument #3 .*not a finite number", err(p.add, p, p, 1 / 0))
      assert.matches("bad argument #4 .*mask of another skeleton", err(p.add, p, p, 1, sinew.mask(other:skeleton())))
      assert.matches("bad argument #2 .*pose of another skeleton", err(sinew.delta, p, other, p))
      local z = sinew.pose(skel)
      z:set_scale(2, 0, 1, 1)
      assert.matches("bad argument #3 .*reference scale of joint 2 is zero", err(sinew.delta, p, p, z))
      local d = sinew.pose(skel)
      d:set_scale(1, -1, 1, 1)
      assert.matches("subtracting the scale of joint 1 divides by zero", err(p.add, p, d, -0.5))
    end)

    it("refuses results out of the float range, and writes nothing then", function()
      local p, d = sinew.pose(skel), sinew.pose(skel)
      p:set_scale(1, 3e38, 1, 1)
      d:set_scale(1, 2, 1, 1)
      local before = { p:get(2) }
      assert.matches("bad argument #3 .*the layer takes the scale of joint 1 out of the float range", err(p.add, p, d, 1))
      assert.same(before, { p:get(2) })
      p:set_translation(3, 3e38, 0, 0)
      d:set_translation(3, -3e38, 0, 0)
      assert.matches("the delta of joint 3 is out of the float range", err(sinew.delta, d, p, d))
    end)
  end)

  describe("sinew.mask()", function()
    it("sets weights by name or index, with a default", function()
      local m = sinew.mask(skel, { spine = 1, [3] = 0.5 }, 0.25)
      assert.same({ 0.25, 1, 0.5 }, { m:get(1), m:get("spine"), m:get(3) })
      assert.same({ 0, 0, 0 }, { sinew.mask(skel):get(1), sinew.mask(skel):get(2), sinew.mask(skel):get(3) })
      assert.equal(3, #m)
      assert.equal(skel, m:skeleton())
    end)

    it("sets a whole subtree", function()
      local s = sinew.skeleton { names = { "root", "a", "b", "a1", "b1", "a2" }, parents = { 0, 1, 1, 2, 3, 4 } }
      local m = sinew.mask(s):set("a", 0.75, true)
      assert.same({ 0, 0.75, 0, 0.75, 0, 0.75 }, { m:get(1), m:get(2), m:get(3), m:get(4), m:get(5), m:get(6) })
      m:set("a1", 0.25)
      assert.same({ 0.75, 0.25, 0.75 }, { m:get(2), m:get(4), m:get(6) })
    end)

    it("refuses weights outside (0 .. 1) and unknown joints", function()
      assert.matches("bad argument #2 .*mask weight 1.5 of joint 'spine' is out of range %(0 %.%. 1%)",
        err(sinew.mask, skel, { spine = 1.5 }))
      assert.matches("bad argument #2 .*mask weight inf of joint 'spine'", err(sinew.mask, skel, { spine = 1e300 }))
      assert.matches("bad argument #2 .*unknown joint 'tail'", err(sinew.mask, skel, { tail = 1 }))
      assert.matches("bad argument #2 .*joint 4 is out of range", err(sinew.mask, skel, { [4] = 1 }))
      assert.matches("bad argument #2 .*mask weight expected, got string", err(sinew.mask, skel, { spine = "x" }))
      assert.matches("bad argument #3 .*mask weight %-1 is out of range %(0 %.%. 1%)", err(sinew.mask, skel, nil, -1))
      local m = sinew.mask(skel)
      assert.matches("bad argument #3 .*is out of range %(0 %.%. 1%)", err(m.set, m, 1, 0 / 0))
    end)
  end)

  describe("model-space matrices", function()
    -- column-major 4x4 of T * R * S, and the product of two affine ones, in double precision
    local function local_matrix(v)
      local x, y, z, w = v[4], v[5], v[6], v[7]
      return {
        (1 - 2 * (y * y + z * z)) * v[8], 2 * (x * y + z * w) * v[8], 2 * (x * z - y * w) * v[8], 0,
        2 * (x * y - z * w) * v[9], (1 - 2 * (x * x + z * z)) * v[9], 2 * (y * z + x * w) * v[9], 0,
        2 * (x * z + y * w) * v[10], 2 * (y * z - x * w) * v[10], (1 - 2 * (x * x + y * y)) * v[10], 0,
        v[1], v[2], v[3], 1 }
    end
    local function mul(a, b)
      local m = {}
      for col = 0, 3 do
        for row = 0, 3 do
          local sum = 0
          for k = 0, 3 do sum = sum + a[4 * k + row + 1] * b[4 * col + k + 1] end
          m[4 * col + row + 1] = sum
        end
      end
      return m
    end

    it("equal the product of the parent chains, to 1e-5", function()
      local rng = helper.rng(51)
      for _ = 1, 20 do
        local s = helper.random_skeleton(rng, 1 + math.floor(rng() * 30), 0.8, 1.2)
        local p, mats = sinew.pose(s), sinew.matrices(s)
        randomize(rng, p, random_centres(rng, #s))
        assert.equal(mats, p:to_model(mats))
        for j = 1, #s do
          local want = local_matrix({ p:get(j) })
          local k = s:parent(j)
          while k > 0 do
            want = mul(local_matrix({ p:get(k) }), want)
            k = s:parent(k)
          end
          all_near({ mats:get(j) }, want, 1e-5, "joint " .. j)
        end
      end
    end)

    it("start as identities and hand out their floats as bytes and as a pointer", function()
      local mats = sinew.matrices(skel)
      assert.same({ 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }, { mats:get(2) })
      local p = sinew.pose(skel)
      p:to_model(mats)
      local bytes = mats:bytes()
      assert.equal(3 * 64, #bytes)
      assert.equal(3, #mats)
      assert.equal("userdata", type(mats:pointer()))
      local floats = {}
      if string.unpack then
        for k = 1, 48 do floats[k] = string.unpack("f", bytes, 4 * k - 3) end
      elseif rawget(_G, "jit") then
        local ffi = require "ffi"
        local f = ffi.cast("const float *", mats:pointer())
        for k = 1, 48 do floats[k] = f[k - 1] end
      end
      for k = 1, #floats do
        local j, e = math.floor((k - 1) / 16) + 1, (k - 1) % 16 + 1
        assert.equal(select(e, mats:get(j)), floats[k])
      end
    end)

    it("make no garbage per call", function()
      local p, mats = sinew.pose(skel), sinew.matrices(skel)
      assert.equal(0, helper.garbage_per_call(function() p:to_model(mats) end, 2000))
      assert.equal(0, helper.garbage_per_call(function() mats:get(3) end, 2000))
      assert.equal(0, helper.garbage_per_call(function() mats:pointer() end, 2000))
    end)

    it("refuse matrices of another skeleton and bad joints", function()
      local p, mats = sinew.pose(skel), sinew.matrices(skel)
      local other = sinew.matrices(sinew.skeleton { names = { "x" }, parents = { 0 } })
      assert.matches("bad argument #2 .*matrices of another skeleton", err(p.to_model, p, other))
      assert.matches("bad argument #2 .*sinew.Matrices expected, got no value", err(p.to_model, p))
      assert.matches("joint 4 is out of range", err(mats.get, mats, 4))
    end)
  end)

  describe("methods and metamethods called with a wrong self", function()
    it("raise an error naming the class they expect", function()
      local s = sinew.skeleton { names = { "a" }, parents = { 0 } }
      local objects = { sinew.pose(s), sinew.mask(s), sinew.matrices(s) }
      local wrong = { io.stdout, {}, 1, "x", s, sinew.blendspace { mode = "1d", points = { 0, 1 } } }
      for i, obj in ipairs(objects) do
        local mt = getmetatable(obj)
        local name = mt.__name
        for _, f in ipairs({ mt.__len, mt.__tostring, mt.__index.skeleton, mt.__index.get }) do
          assert.matches(name .. " expected", helper.error_of(f))
          for _, w in ipairs(wrong) do assert.matches(name .. " expected", helper.error_of(f, w, 1)) end
          local other = objects[i % 3 + 1]
          assert.matches(name .. " expected", helper.error_of(f, other, 1))
        end
      end
    end)
  end)
end)
