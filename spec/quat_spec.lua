local helper = require "helper"
local sinew = require "sinew"
local quat = sinew.quat

local deg = math.pi / 180

local near_abs = helper.near_abs

-- rotation of at most maxangle about a random axis, composed onto c
local function random_near(rng, maxangle, cx, cy, cz, cw)
  local ax, ay, az = rng(-1, 1), rng(-1, 1), rng(-1, 1)
  local dx, dy, dz, dw = quat.from_axis_angle(ax, ay, az, maxangle * rng())
  return quat.mul(cx, cy, cz, cw, dx, dy, dz, dw)
end

local function pack(...) return { n = select("#", ...), ... } end
local unpack = table.unpack or unpack -- luacheck: ignore

describe("sinew.quat", function()
  describe("basic algebra", function()
    it("multiplies so that q * q^-1 is the identity", function()
      local rng = helper.rng(1)
      for _ = 1, 50 do
        local x, y, z, w = helper.random_quat(rng)
        local ix, iy, iz, iw = quat.inverse(x * 3, y * 3, z * 3, w * 3)
        local rx, ry, rz, rw = quat.mul(x * 3, y * 3, z * 3, w * 3, ix, iy, iz, iw)
        assert.is_true(near_abs(rx, 0, 1e-14) and near_abs(ry, 0, 1e-14) and near_abs(rz, 0, 1e-14) and near_abs(rw, 1, 1e-14))
      end
    end)

    it("conjugates, normalizes, measures length and dot", function()
      assert.same({ -1, -2, -3, 4 }, { quat.conj(1, 2, 3, 4) })
      assert.is_true(near_abs(quat.length(1, 2, 3, 4), math.sqrt(30), 1e-15))
      assert.equal(30, quat.dot(1, 2, 3, 4, 1, 2, 3, 4))
      local x, y, z, w = quat.normalize(0, 0, 3, 4)
      assert.is_true(x == 0 and y == 0 and near_abs(z, 0.6, 1e-16) and near_abs(w, 0.8, 1e-16))
      assert.same({ 0, 0, 0, 1 }, { quat.identity() })
    end)

    it("rotates vectors right-handedly", function()
      local qx, qy, qz, qw = quat.from_axis_angle(0, 0, 1, math.pi / 2)
      local x, y, z = quat.rotate(qx, qy, qz, qw, 1, 0, 0)
      assert.is_true(near_abs(x, 0, 1e-15) and near_abs(y, 1, 1e-15) and near_abs(z, 0, 1e-15))
    end)

    it("round-trips axis-angle and returns angles in [0, pi]", function()
      local x, y, z, a = quat.to_axis_angle(quat.from_axis_angle(0, 2, 0, 1.25))
      assert.is_true(near_abs(x, 0, 1e-15) and near_abs(y, 1, 1e-15) and near_abs(z, 0, 1e-15) and near_abs(a, 1.25, 1e-15))
      -- a rotation by 3*pi/2 is the same as pi/2 the other way
      local _, y2, _, a2 = quat.to_axis_angle(quat.from_axis_angle(0, 1, 0, 1.5 * math.pi))
      assert.is_true(near_abs(a2, math.pi / 2, 1e-12) and near_abs(y2, -1, 1e-12))
      assert.same({ 1, 0, 0, 0 }, { quat.to_axis_angle(0, 0, 0, 1) })
    end)

    it("builds euler rotations in the documented extrinsic order", function()
      local ax, ay, az = 0.3, -0.7, 1.1
      local qx = pack(quat.from_axis_angle(1, 0, 0, ax))
      local qy = pack(quat.from_axis_angle(0, 1, 0, ay))
      local qz = pack(quat.from_axis_angle(0, 0, 1, az))
      local q = { X = qx, Y = qy, Z = qz }
      for _, order in ipairs { "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX" } do
        local a, b, c = q[order:sub(1, 1)], q[order:sub(2, 2)], q[order:sub(3, 3)]
        -- extrinsic: first a, then b, then c about the fixed axes: c * b * a
        local ex = pack(quat.mul(c[1], c[2], c[3], c[4], quat.mul(b[1], b[2], b[3], b[4], a[1], a[2], a[3], a[4])))
        local got = pack(quat.from_euler(ax, ay, az, order))
        assert.is_true(quat.angle(ex[1], ex[2], ex[3], ex[4], got[1], got[2], got[3], got[4]) < 1e-14, order)
      end
      assert.same({ quat.from_euler(ax, ay, az, "XYZ") }, { quat.from_euler(ax, ay, az) })
    end)

    it("finds the shortest arc, also between antiparallel vectors", function()
      local rng = helper.rng(2)
      for _ = 1, 50 do
        local ux, uy, uz, vx, vy, vz = rng(-1, 1), rng(-1, 1), rng(-1, 1), rng(-1, 1), rng(-1, 1), rng(-1, 1)
        local qx, qy, qz, qw = quat.from_to(ux, uy, uz, vx, vy, vz)
        local rx, ry, rz = quat.rotate(qx, qy, qz, qw, ux, uy, uz)
        local lu, lv = math.sqrt(ux * ux + uy * uy + uz * uz), math.sqrt(vx * vx + vy * vy + vz * vz)
        assert.is_true(near_abs(rx, vx * lu / lv, 1e-12) and near_abs(ry, vy * lu / lv, 1e-12)
          and near_abs(rz, vz * lu / lv, 1e-12))
        -- shortest: the rotation angle equals the angle between the vectors
        local _, _, _, a = quat.to_axis_angle(qx, qy, qz, qw)
        local cos = (ux * vx + uy * vy + uz * vz) / (lu * lv)
        assert.is_true(near_abs(a, math.acos(math.max(-1, math.min(1, cos))), 1e-7))
      end
      for _, v in ipairs { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 0.6, 0.8, 0 } } do
        local qx, qy, qz, qw = quat.from_to(v[1], v[2], v[3], -v[1], -v[2], -v[3])
        local rx, ry, rz = quat.rotate(qx, qy, qz, qw, v[1], v[2], v[3])
        assert.is_true(near_abs(rx, -v[1], 1e-15) and near_abs(ry, -v[2], 1e-15) and near_abs(rz, -v[3], 1e-15))
        assert.is_true(near_abs(quat.length(qx, qy, qz, qw), 1, 1e-15))
      end
    end)

    it("measures the angle between orientations, treating q and -q as equal", function()
      local ax, ay, az, aw = quat.from_axis_angle(1, 0, 0, 0.5)
      assert.is_true(near_abs(quat.angle(0, 0, 0, 1, ax, ay, az, aw), 0.5, 1e-15))
      assert.is_true(near_abs(quat.angle(0, 0, 0, -1, ax, ay, az, aw), 0.5, 1e-15))
      assert.is_true(near_abs(quat.angle(0, 0, 0, 1, quat.from_axis_angle(0, 1, 0, math.pi)), math.pi, 1e-15))
    end)

    it("has pow, log and exp consistent with each other", function()
      local x, y, z, w = quat.from_axis_angle(1, 2, 3, 1.2)
      local hx, hy, hz, hw = quat.pow(x, y, z, w, 0.5)
      assert.is_true(near_abs(quat.angle(hx, hy, hz, hw, quat.from_axis_angle(1, 2, 3, 0.6)), 0, 1e-12))
      local lx, ly, lz, lw = quat.log(x, y, z, w)
      assert.is_true(near_abs(math.sqrt(lx * lx + ly * ly + lz * lz), 0.6, 1e-14) and near_abs(lw, 0, 1e-15))
      local ex, ey, ez, ew = quat.exp(lx, ly, lz, lw)
      assert.is_true(near_abs(quat.dot(ex, ey, ez, ew, x, y, z, w), 1, 1e-14))
      -- log and exp of non-unit quaternions: ln|q| in w
      local _, _, _, lw2 = quat.log(0, 0, 0, 2)
      assert.is_true(near_abs(lw2, math.log(2), 1e-15))
    end)
  end)

  describe("slerp() and nlerp()", function()
    it("puts slerp(a, b, t) at angle t * angle(a, b) from a, to 1e-9", function()
      local rng = helper.rng(3)
      for _ = 1, 300 do
        local ax, ay, az, aw = helper.random_quat(rng)
        local bx, by, bz, bw = helper.random_quat(rng)
        local t = rng()
        local full = quat.angle(ax, ay, az, aw, bx, by, bz, bw)
        local rx, ry, rz, rw = quat.slerp(ax, ay, az, aw, bx, by, bz, bw, t)
        assert.is_true(near_abs(quat.angle(ax, ay, az, aw, rx, ry, rz, rw), t * full, 1e-9))
        assert.is_true(near_abs(quat.angle(rx, ry, rz, rw, bx, by, bz, bw), (1 - t) * full, 1e-9))
      end
    end)

    it("stays exact for nearly equal inputs", function()
      for _, tiny in ipairs { 1e-6, 1e-9, 1e-12 } do
        local bx, by, bz, bw = quat.from_axis_angle(0, 0, 1, tiny)
        local rx, ry, rz, rw = quat.slerp(0, 0, 0, 1, bx, by, bz, bw, 0.3)
        assert.is_true(near_abs(quat.angle(0, 0, 0, 1, rx, ry, rz, rw), 0.3 * tiny, 1e-15))
      end
      assert.same({ 0, 0, 0, 1 }, { quat.slerp(0, 0, 0, 1, 0, 0, 0, 1, 0.5) })
    end)

    it("takes the shortest path when the inputs are in opposite hemispheres", function()
      local bx, by, bz, bw = quat.from_axis_angle(0, 1, 0, 0.4)
      local rx, ry, rz, rw = quat.slerp(0, 0, 0, 1, -bx, -by, -bz, -bw, 0.5)
      assert.is_true(near_abs(quat.angle(0, 0, 0, 1, rx, ry, rz, rw), 0.2, 1e-14))
      rx, ry, rz, rw = quat.nlerp(0, 0, 0, 1, -bx, -by, -bz, -bw, 0.5)
      assert.is_true(near_abs(quat.angle(0, 0, 0, 1, rx, ry, rz, rw), 0.2, 1e-14))
    end)

    -- every route: unit inputs, float32 ones (off unit length by about 1e-7: normalised by a
    -- series), inputs further off, t inside [0, 1], in [-1, 2] and beyond (extrapolated)
    it("moves along the arc at t times the angle on every route, unit and float32 inputs, any t", function()
      local rng = helper.rng(33)
      local function f32(x)
        if x == 0 then return x end
        local m, e = math.frexp(x)
        return math.ldexp(math.floor(m * 2 ^ 24 + 0.5) / 2 ^ 24, e)
      end
      for i = 1, 600 do
        local ax, ay, az, aw = helper.random_quat(rng)
        local bx, by, bz, bw = quat.from_axis_angle(rng(-1, 1), rng(-1, 1), rng(-1, 1) + 0.1, rng(-3, 3))
        bx, by, bz, bw = quat.mul(ax, ay, az, aw, bx, by, bz, bw)
        local k = i % 3
        if k == 1 then
          ax, ay, az, aw, bx, by, bz, bw = f32(ax), f32(ay), f32(az), f32(aw), f32(bx), f32(by), f32(bz), f32(bw)
        elseif k == 2 then
          local s = rng(0.5, 2)
          ax, ay, az, aw = ax * s, ay * s, az * s, aw * s
        end
        local t = ({ rng(), rng(-1, 2), rng(-4, 5), 0, 1, -1, 2 })[1 + i % 7]
        local full = quat.angle(ax, ay, az, aw, bx, by, bz, bw)
        local rx, ry, rz, rw = quat.slerp(ax, ay, az, aw, bx, by, bz, bw, t)
        assert.is_true(near_abs(quat.length(rx, ry, rz, rw), 1, 1e-15))
        -- the angle from a is |t| times the full one, up to a whole turn for |t| > 1 (an angle
        -- between rotations is at most pi)
        local want = math.abs(t) * full % (2 * math.pi)
        if want > math.pi then want = 2 * math.pi - want end
        assert.is_true(near_abs(quat.angle(ax, ay, az, aw, rx, ry, rz, rw), want, 1e-9), i)
      end
    end)

    it("returns the end points at t = 0 and t = 1", function()
      local bx, by, bz, bw = quat.from_axis_angle(1, 1, 0, 2)
      assert.is_true(quat.angle(bx, by, bz, bw, quat.slerp(0, 0, 0, 1, bx, by, bz, bw, 1)) < 1e-15)
      assert.is_true(quat.angle(0, 0, 0, 1, quat.nlerp(0, 0, 0, 1, bx, by, bz, bw, 0)) < 1e-15)
    end)
  end)

  describe("blend()", function()
    local methods = { "nlerp", "karcher", "markley", "power" }

    it("returns unit quaternions to 1e-12 with every method", function()
      local rng = helper.rng(4)
      for _ = 1, 100 do
        local n = 1 + math.floor(rng() * 6)
        local qs, ws = {}, {}
        for i = 1, n do
          local x, y, z, w = helper.random_quat(rng)
          local s = rng(0.1, 10) -- non-unit inputs are normalised
          qs[4 * i - 3], qs[4 * i - 2], qs[4 * i - 1], qs[4 * i] = x * s, y * s, z * s, w * s
          ws[i] = rng()
        end
        for _, m in ipairs(methods) do
          assert.is_true(near_abs(quat.length(quat.blend(qs, ws, m)), 1, 1e-12), m)
        end
      end
    end)

    it("gives the karcher mean independently of input order, to 1e-9", function()
      local rng = helper.rng(5)
      for _ = 1, 50 do
        local cx, cy, cz, cw = helper.random_quat(rng)
        local qs, ws, rq, rw = {}, {}, {}, {}
        local n = 5
        for i = 1, n do
          local x, y, z, w = random_near(rng, 80 * deg, cx, cy, cz, cw)
          if rng() < 0.5 then x, y, z, w = -x, -y, -z, -w end -- either sign of each input
          qs[4 * i - 3], qs[4 * i - 2], qs[4 * i - 1], qs[4 * i] = x, y, z, w
          ws[i] = rng(0.01, 1)
        end
        for i = 1, n do -- a rotation of the order
          local j = i % n + 1
          rq[4 * i - 3], rq[4 * i - 2], rq[4 * i - 1], rq[4 * i] = qs[4 * j - 3], qs[4 * j - 2], qs[4 * j - 1], qs[4 * j]
          rw[i] = ws[j]
        end
        local a = pack(quat.blend(qs, ws, "karcher"))
        local b = pack(quat.blend(rq, rw, "karcher"))
        assert.is_true(quat.angle(a[1], a[2], a[3], a[4], b[1], b[2], b[3], b[4]) < 1e-9)
      end
    end)

    it("puts nlerp within 1.5 degrees of karcher for 4 inputs within 60 degrees of a centre", function()
      local rng = helper.rng(6)
      local worst = 0
      for _ = 1, 500 do
        local cx, cy, cz, cw = helper.random_quat(rng)
        local qs, ws = {}, {}
        for i = 1, 4 do
          qs[4 * i - 3], qs[4 * i - 2], qs[4 * i - 1], qs[4 * i] = random_near(rng, 60 * deg, cx, cy, cz, cw)
          ws[i] = rng()
        end
        local a = pack(quat.blend(qs, ws))
        local k = pack(quat.blend(qs, ws, "karcher"))
        worst = math.max(worst, quat.angle(a[1], a[2], a[3], a[4], k[1], k[2], k[3], k[4]))
      end
      assert.is_true(worst < 1.5 * deg, ("worst %.3f degrees"):format(worst / deg))
    end)

    it("finds the karcher mean as the point where the weighted log-sum vanishes", function()
      local qs = { 0, 0, 0, 1 }
      local ws = { 1, 2, 3 }
      local rx = pack(quat.from_axis_angle(1, 0, 0, 0.9))
      local ry = pack(quat.from_axis_angle(0, 1, 0, 1.3))
      for i = 1, 4 do qs[4 + i], qs[8 + i] = rx[i], ry[i] end
      local m = pack(quat.blend(qs, ws, "karcher"))
      local sx, sy, sz = 0, 0, 0
      for i = 1, 3 do
        local dx, dy, dz, dw = quat.mul(-m[1], -m[2], -m[3], m[4], qs[4 * i - 3], qs[4 * i - 2], qs[4 * i - 1], qs[4 * i])
        local lx, ly, lz = quat.log(dx, dy, dz, dw)
        sx, sy, sz = sx + ws[i] * lx, sy + ws[i] * ly, sz + ws[i] * lz
      end
      assert.is_true(math.sqrt(sx * sx + sy * sy + sz * sz) < 1e-11)
    end)

    it("gives markley the largest eigenvalue of sum(w q q^T)", function()
      local rng = helper.rng(7)
      for _ = 1, 30 do
        local qs, ws = {}, {}
        for i = 1, 4 do
          qs[4 * i - 3], qs[4 * i - 2], qs[4 * i - 1], qs[4 * i] = helper.random_quat(rng)
          ws[i] = rng()
        end
        local v = pack(quat.blend(qs, ws, "markley"))
        local function score(x, y, z, w)
          local s = 0
          for i = 1, 4 do
            local d = quat.dot(qs[4 * i - 3], qs[4 * i - 2], qs[4 * i - 1], qs[4 * i], x, y, z, w)
            s = s + ws[i] * d * d
          end
          return s
        end
        local best = score(v[1], v[2], v[3], v[4])
        for _ = 1, 200 do -- no direction scores higher
          assert.is_true(score(helper.random_quat(rng)) <= best + 1e-12)
        end
        for _, m in ipairs { "nlerp", "karcher" } do
          assert.is_true(score(quat.blend(qs, ws, m)) <= best + 1e-12)
        end
      end
    end)

    it("multiplies powers in the given order for 'power'", function()
      local a = pack(quat.from_axis_angle(1, 0, 0, 1.0))
      local b = pack(quat.from_axis_angle(0, 1, 0, 1.0))
      local qs = { a[1], a[2], a[3], a[4], b[1], b[2], b[3], b[4] }
      local got = pack(quat.blend(qs, { 1, 3 }, "power"))
      local pa = pack(quat.pow(a[1], a[2], a[3], a[4], 0.25))
      local pb = pack(quat.pow(b[1], b[2], b[3], b[4], 0.75))
      local want = pack(quat.mul(pa[1], pa[2], pa[3], pa[4], pb[1], pb[2], pb[3], pb[4]))
      assert.is_true(quat.angle(got[1], got[2], got[3], got[4], want[1], want[2], want[3], want[4]) < 1e-14)
      local swapped = pack(quat.blend({ b[1], b[2], b[3], b[4], a[1], a[2], a[3], a[4] }, { 3, 1 }, "power"))
      -- order dependent: the swapped product is a different rotation
      assert.is_true(quat.angle(got[1], got[2], got[3], got[4], swapped[1], swapped[2], swapped[3], swapped[4]) > 1e-3)
    end)

    it("returns the input itself for one input or one non-zero weight", function()
      local q = pack(quat.from_axis_angle(0.2, 0.5, -1, 2.5))
      local other = pack(quat.from_axis_angle(1, 0, 0, 1))
      for _, m in ipairs(methods) do
        local r = pack(quat.blend({ q[1], q[2], q[3], q[4] }, { 5 }, m))
        assert.is_true(quat.angle(r[1], r[2], r[3], r[4], q[1], q[2], q[3], q[4]) < 1e-12, m)
        r = pack(quat.blend({ other[1], other[2], other[3], other[4], q[1], q[2], q[3], q[4] }, { 0, 1 }, m))
        assert.is_true(quat.angle(r[1], r[2], r[3], r[4], q[1], q[2], q[3], q[4]) < 1e-12, m)
      end
    end)

    it("makes no garbage per call", function()
      local qs = { 0, 0, 0, 1, 0, 0, 0.6, 0.8, 0, 0.6, 0, 0.8, 0.6, 0, 0, 0.8 }
      local ws = { 1, 2, 3, 4 }
      for _, m in ipairs(methods) do
        assert.equal(0, helper.garbage_per_call(function() quat.blend(qs, ws, m) end, 2000))
      end
      assert.equal(0, helper.garbage_per_call(function() quat.slerp(0, 0, 0, 1, 0, 0, 0.6, 0.8, 0.3) end, 2000))
    end)
  end)

  describe("finite results for finite arguments", function()
    local err = helper.error_of
    local MAX = 1.7976931348623157e308 -- the largest double
    local TINY = 4.9406564584124654e-324 -- the least subnormal

    local function finite(...)
      for i = 1, select("#", ...) do
        local x = select(i, ...)
        if x ~= x or x == math.huge or x == -math.huge then return false end
      end
      return true
    end

    -- any finite double: zeros, subnormals, the extremes, or 10^u over the whole range, either sign
    local special = { 0, TINY, 1e-320, 2.2250738585072009e-308, 1e-300, 1e-160, 1, 1e154, 1e300, MAX / 3, MAX }
    local function adversarial(rng)
      local x
      if rng() < 0.3 then
        x = special[math.floor(rng(1, #special + 1))]
      else
        x = 10 ^ rng(-323.5, 308.25)
      end
      return rng() < 0.5 and -x or x
    end

    -- every function of sinew.quat but blend, with the count of numbers it takes
    local fns = {
      { "mul", 8 }, { "conj", 4 }, { "inverse", 4 }, { "normalize", 4 }, { "dot", 8 }, { "length", 4 },
      { "rotate", 7 }, { "from_axis_angle", 4 }, { "to_axis_angle", 4 }, { "from_euler", 3 },
      { "from_to", 6 }, { "angle", 8 }, { "pow", 5 }, { "log", 4 }, { "exp", 4 }, { "slerp", 9 },
      { "nlerp", 9 },
    }
    -- the only refusals a finite argument may meet
    local refusals = { "zero quaternion", "zero axis", "zero vector", "result is too large" }

    local function check(name, ok, ...)
      if ok then
        assert.is_true(finite(...), name .. " returned a non-finite number")
        return
      end
      local msg = tostring((...))
      for _, r in ipairs(refusals) do
        if msg:find(r, 1, true) then return end
      end
      error(name .. ": unexpected error " .. msg)
    end

    it("returns finite numbers or raises a clear error, for random magnitudes (fixed seed)", function()
      local rng = helper.rng(12)
      local args = {}
      for round = 1, 1500 do
        for _, f in ipairs(fns) do
          local scale = adversarial(rng)
          for i = 1, f[2] do
            -- a unit quaternion scaled to any magnitude, or each number of its own magnitude
            args[i] = round % 2 == 0 and adversarial(rng) or scale * rng(-1, 1)
          end
          if (f[1] == "slerp" or f[1] == "nlerp") and round % 3 == 0 then
            args[9] = rng(-2, 3) -- interpolation, not only extrapolation
          end
          check(f[1], pcall(quat[f[1]], unpack(args, 1, f[2])))
        end
        local qs, ws = {}, {}
        for i = 1, 12 do qs[i] = adversarial(rng) end
        for i = 1, 3 do ws[i] = math.abs(adversarial(rng)) end
        ws[1] = ws[1] + 1
        check("blend", pcall(quat.blend, qs, ws, "karcher"))
      end
    end)

    it("handles near-antiparallel inputs at every scale", function()
      local rng = helper.rng(13)
      for _ = 1, 500 do
        local k, x, y, z, w = adversarial(rng), helper.random_quat(rng) -- a rotation, a scale
        for _, name in ipairs { "slerp", "nlerp", "angle" } do
          check(name, pcall(quat[name], x, y, z, w, -x * k, -y * k, -z * k * (1 + 1e-16), -w * k, rng(-1, 2)))
        end
        check("from_to", pcall(quat.from_to, x, y, z, -x * k, -y * k * (1 + 1e-16), -z * k))
      end
    end)

    it("answers the cases of the issue", function()
      local x, y, z, w = quat.log(1e-320, 0, 0, -1)
      assert.is_true(math.abs(x - math.pi) < 1e-15 and y == 0 and z == 0 and w == 0)
      x, y, z, w = quat.pow(1e-310, 0, 0, -1, 0.5)
      assert.is_true(math.abs(x - 1) < 1e-15 and y == 0 and z == 0 and math.abs(w) < 1e-15)
      x, y, z, w = quat.from_axis_angle(0, 1e-320, 0, 1.5)
      assert.is_true(x == 0 and y == math.sin(0.75) and z == 0 and w == math.cos(0.75))
      assert.matches("bad argument #1 .*result is too large: e%^w overflows for 'w' = 710",
        err(quat.exp, 0, 0, 0, 710))
    end)

    it("keeps tiny rotations exact and huge vectors whole", function()
      local x, y = quat.normalize(1e-320, 1e-320, 0, 0)
      assert.is_true(x == y and math.abs(x - math.sqrt(0.5)) < 1e-16)
      local ax, ay, _, angle = quat.to_axis_angle(1e-320, 1e-320, 0, 1)
      assert.is_true(ax == ay and math.abs(ax - math.sqrt(0.5)) < 1e-16 and angle > 0)
      local rx, ry = quat.rotate(0, 0, math.sqrt(0.5), math.sqrt(0.5), 0.9 * MAX, 0, 0)
      assert.is_true(math.abs(rx) < 1e300 and math.abs(ry / MAX - 0.9) < 1e-15)
      assert.equal(MAX, quat.dot(MAX, MAX, -MAX, 0, 1, 1, 1, 0)) -- the plain sum overflows on the way
      assert.equal(MAX, quat.length(MAX, 0, 0, 0))
      local _, _, _, iw = quat.inverse(MAX, MAX, MAX, MAX)
      assert.is_true(iw > 0 and iw < 1e-308)
      assert.is_true(finite(quat.slerp(0, 0, 0, 1, 0, 0.6, 0, 0.8, MAX)))
      assert.is_true(finite(quat.nlerp(0, 0, 0, 1, 0, 0.6, 0, 0.8, -MAX)))
      assert.is_true(finite(quat.pow(0.6, 0, 0, 0.8, MAX)))
      assert.is_true(finite(quat.exp(MAX, MAX, MAX, 0)))
      assert.is_true(finite(quat.exp(0, 0, 0.7853981633974483, 710))) -- e^710 cos(pi/4) fits
      assert.is_true(finite(quat.from_to(MAX, MAX, MAX, -MAX, -MAX, -MAX)))
    end)

    it("raises 'result is too large' only where the result exceeds the largest double", function()
      assert.matches("bad argument #1 .*result is too large", err(quat.mul, MAX, 0, 0, 0, 0, 0, 0, 2))
      assert.matches("bad argument #1 .*result is too large", err(quat.dot, 1e200, 0, 0, 0, 1e200, 0, 0, 0))
      assert.matches("bad argument #1 .*result is too large", err(quat.length, MAX, 0, 0, MAX))
      assert.matches("bad argument #1 .*result is too large: 1/|q| overflows", err(quat.inverse, 0, 0, 0, 1e-310))
      assert.matches("bad argument #5 .*result is too large", err(quat.rotate, 0, 0, 0.3, 1, MAX, MAX, MAX))
      assert.matches("bad argument #5 .*result is too large: |q|%^e overflows", err(quat.pow, 0, 0, 0, 2, 2000))
      assert.equal(0, select(4, quat.pow(0, 0, 0, 2, -2000)))
    end)
  end)

  describe("bad input", function()
    local err = helper.error_of
    local nan, inf = 0 / 0, math.huge

    it("refuses non-numbers and non-finite components, naming the argument", function()
      assert.matches("bad argument #3 .*%(number expected", err(quat.slerp, 0, 0, "x", 1, 0, 0, 0, 1, 0.5))
      assert.matches("bad argument #5 .*not a finite number", err(quat.mul, 0, 0, 0, 1, nan, 0, 0, 1))
      assert.matches("bad argument #9 .*not a finite number", err(quat.slerp, 0, 0, 0, 1, 0, 0, 0, 1, inf))
      assert.matches("bad argument #4 .*number expected", err(quat.normalize, 0, 0, 0))
      assert.matches("bad argument #2 .*not a finite number", err(quat.from_euler, 0, -inf, 0))
      assert.matches("bad argument #5 .*not a finite number", err(quat.pow, 0, 0, 0, 1, nan))
    end)

    it("refuses a zero quaternion where a rotation is needed", function()
      assert.matches("bad argument #1 .*zero quaternion", err(quat.normalize, 0, 0, 0, 0))
      assert.matches("bad argument #1 .*zero quaternion", err(quat.inverse, 0, 0, 0, 0))
      assert.matches("bad argument #5 .*zero quaternion", err(quat.slerp, 0, 0, 0, 1, 0, 0, 0, 0, 0.5))
      assert.matches("bad argument #5 .*zero quaternion", err(quat.nlerp, 0, 0, 0, 1, 0, 0, 0, 0, 0.5))
      assert.matches("bad argument #1 .*zero quaternion", err(quat.rotate, 0, 0, 0, 0, 1, 2, 3))
      assert.matches("bad argument #1 .*zero quaternion", err(quat.angle, 0, 0, 0, 0, 0, 0, 0, 1))
      assert.matches("bad argument #1 .*zero quaternion", err(quat.to_axis_angle, 0, 0, 0, 0))
      assert.matches("bad argument #1 .*zero quaternion", err(quat.log, 0, 0, 0, 0))
      assert.matches("bad argument #1 .*zero axis", err(quat.from_axis_angle, 0, 0, 0, 1))
      assert.matches("bad argument #4 .*zero vector", err(quat.from_to, 1, 0, 0, 0, 0, 0))
      assert.matches("bad argument #1 .*quaternion 1 is zero", err(quat.blend, { 0, 0, 0, 0 }, { 1 }))
    end)

    it("refuses bad weights and mismatched counts in blend()", function()
      local q2 = { 0, 0, 0, 1, 0, 0, 1, 0 }
      assert.matches("bad argument #2 .*weight 2 is negative", err(quat.blend, q2, { 1, -1 }))
      assert.matches("bad argument #2 .*weights are all zero", err(quat.blend, q2, { 0, 0 }))
      assert.matches("bad argument #2 .*element 1 of 'ws' is not finite", err(quat.blend, q2, { nan, 1 }))
      assert.matches("bad argument #2 .*element 2 of 'ws' is not finite", err(quat.blend, q2, { 1, inf }))
      assert.matches("bad argument #1 .*'qs' has 8 numbers, expected 4 per weight %(12%)", err(quat.blend, q2, { 1, 1, 1 }))
      assert.matches("bad argument #1 .*element 3 of 'qs' is not a number", err(quat.blend, { 0, 0, "z", 1 }, { 1 }))
      assert.matches("bad argument #1 .*element 4 of 'qs' is not finite", err(quat.blend, { 0, 0, 0, nan }, { 1 }))
      assert.matches("bad argument #2 .*no weights", err(quat.blend, {}, {}))
      assert.matches("bad argument #1 .*table expected", err(quat.blend, 5, { 1 }))
      assert.matches("bad argument #3 .*unknown method 'slurp'", err(quat.blend, q2, { 1, 1 }, "slurp"))
      assert.matches("bad argument #4 .*unknown order 'XXY'", err(quat.from_euler, 0, 0, 0, "XXY"))
    end)
  end)
end)
