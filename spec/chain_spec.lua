local helper = require "helper"
local sinew = require "sinew"
local figures = require "spec.support.figures" -- printed after the run with SINEW_VERBOSE=1

local sin = math.sin -- a local: under busted, a global lookup may itself make garbage on Lua 5.3

-- a points chain of n points `seg` apart along +x, with extra options
local function line(n, seg, opts)
  local def = { points = {}, parents = {} }
  for i = 1, n do
    def.points[i] = { (i - 1) * seg, 0, 0 }
    def.parents[i] = i - 1
  end
  for k, v in pairs(opts or {}) do def[k] = v end
  return def
end

local function dist(ax, ay, az, bx, by, bz)
  return math.sqrt((ax - bx) ^ 2 + (ay - by) ^ 2 + (az - bz) ^ 2)
end

-- the largest distance between the same particle of two chains
local function spread(a, b, which)
  local worst = 0
  for i = 1, #a do
    local ax, ay, az = a:position(i, which)
    local bx, by, bz = b:position(i, which)
    worst = math.max(worst, dist(ax, ay, az, bx, by, bz))
  end
  return worst
end

local function finite(x) return x == x and x ~= math.huge and x ~= -math.huge end

-- the released-from-horizontal test: an 8-point chain, frame dt `dt` for `seconds`; with
-- `moving` the root swings (the animated pose is interpolated between frames)
local function released(solver, rate, dt, seconds, moving)
  local c = sinew.chain(line(8, 0.1, { rate = rate, solver = solver }))
  local frames = math.floor(seconds / dt + 0.5)
  for f = 1, frames do
    if moving then c:move_root(0.3 * math.sin(3 * f * dt), 0.2 * math.sin(5 * f * dt), 0) end
    c:step(dt)
  end
  return c
end

-- a body joint and a tail of `n` joints along +x, 0.1 apart, the tail starting 0.5 from the body
local function tail_skeleton(n, twist)
  local names, parents, rest = { "body" }, { 0 }, { { 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 } }
  for i = 1, n do
    names[i + 1] = "tail" .. i
    parents[i + 1] = i
    rest[i + 1] = { i == 1 and 0.5 or 0.1, i == 1 and 1 or 0, 0, 0, 0, 0, 1, 1, 1, 1 }
  end
  if twist then -- the first tail joint twisted about its bone axis (x)
    local qx, qy, qz, qw = sinew.quat.from_axis_angle(1, 0, 0, twist)
    rest[2] = { 0.5, 1, 0, qx, qy, qz, qw, 1, 1, 1 }
  end
  return sinew.skeleton { names = names, parents = parents, rest = rest }
end

describe("sinew.chain", function()
  describe("construction", function()
    it("makes one particle per point, then a virtual tip per leaf with end_length", function()
      local c = sinew.chain(line(5, 0.1))
      assert.equal(5, #c)
      assert.matches("sinew.Chain %(points, 5 particles, 0 colliders%)", tostring(c))
      local forked = line(3, 0.1, { end_length = 0.5 })
      forked.parents[3] = 1
      forked.points[3] = { 0, 0.2, 0 }
      local f = sinew.chain(forked)
      assert.equal(5, #f)
      local x = f:position(4)
      local _, y = f:position(5)
      assert.is_true(math.abs(x - 0.15) < 1e-15 and math.abs(y - 0.3) < 1e-15)
      assert.is_true(math.abs(f:length() - 0.3) < 1e-15)
      assert.is_nil(f:joint(1))
    end)

    it("reads per-particle parameters as numbers, {start, end} pairs or one value per depth", function()
      local c = sinew.chain(line(5, 0.1, { damping = { 0.1, 0.5 }, radius = { 0, 0.01, 0.02, 0.03, 0.04 }, inert = 0.25 }))
      for i = 1, 5 do
        assert.is_true(math.abs(c:get_param("damping", i) - (0.1 + 0.4 * (i - 1) / 4)) < 1e-15)
        assert.is_true(math.abs(c:get_param("radius", i) - 0.01 * (i - 1)) < 1e-15)
        assert.equal(0.25, c:get_param("inert", i))
      end
      assert.same({ 0, -9.81, 0 }, { c:get_param("gravity") })
      assert.equal(60, c:get_param("rate"))
      assert.equal(4, c:get_param("max_steps"))
      assert.is_true(math.abs(c:get_param("teleport") - 5 * 0.4) < 1e-12)
    end)
  end)

  describe("bad input", function()
    local skel = tail_skeleton(3)

    it("refuses bad definitions with clear messages", function()
      local cases = {
        { {}, "give 'points'" },
        { line(3, 0.1, { damping = 1.5 }), "'damping' 1.5 is out of range %(0 %.%. 1%)" },
        { line(3, 0.1, { radius = -0.1 }), "'radius' %-0.1 is out of range %(0 %.%. 1e%+0?0?9%)" },
        { line(3, 0.1, { rate = 0 }), "'rate' 0 is out of range %(1 %.%. 10000%)" },
        { line(3, 0.1, { rate = -60 }), "'rate' %-60 is out of range" },
        { line(3, 0.1, { max_steps = 2.5 }), "'max_steps' must be an integer" },
        { line(3, 0.1, { stiffness = { 0.1, 0.2, 0.3, 0.4 } }), "'stiffness' has 4 values" },
        { line(3, 0.1, { gravity = { 0, 0 / 0, 0 } }), "element 2 of 'gravity' is not finite" },
        { line(3, 0.1, { space = "local" }), "unknown space 'local'" },
        { line(3, 0.1, { solver = "exact" }), "unknown solver 'exact'" },
        { line(3, 0.1, { solver = 1 }), "'solver' must be a string %('sweep' or 'coupled'%) %(got number%)" },
        { line(3, 0.1, { dampign = 0.2 }), "unknown field 'dampign'" },
        { line(3, 0.1, { skeleton = skel, root = "tail1" }), "either 'points' or 'skeleton'" },
        { { points = { { 0, 0, 0 }, { 1, 0, 0 } }, parents = { 0, 2 } }, "parent 2 of point 2 is out of range %(0 %.%. 1%)" },
        { { points = { { 0, 0, 0 }, { 1, 0 / 0, 0 } }, parents = { 0, 1 } }, "not finite" },
        { { skeleton = skel, root = "nose" }, "unknown joint 'nose'" },
        { { skeleton = skel }, "'root' is needed" },
        { { skeleton = {}, root = 1 }, "'skeleton' must be a sinew.Skeleton" },
        -- magnitudes whose products would overflow (found by fuzzing)
        { { points = { { 0, 0, 0 }, { 4.3e155, 0, 0 } }, parents = { 0, 1 } }, "point 2 x 4.3e%+155 is out of range" },
        { line(3, 0.1, { gravity = { 0, -2e9, 0 } }), "'gravity' y %-2e%+0?0?9 is out of range" },
        { line(3, 0.1, { radius = 1e10 }), "'radius' 1e%+0?10 is out of range" },
        { line(3, 0.1, { rate = 4.9e-318 }), "'rate' 4.9e%-318 is out of range %(1 %.%. 10000%)" },
      }
      for _, case in ipairs(cases) do
        local msg = helper.error_of(sinew.chain, case[1])
        assert.is_not_nil(msg, case[2])
        assert.matches(case[2], msg)
      end
    end)

    it("refuses bad parameters, particles, colliders and dt", function()
      local c = sinew.chain(line(3, 0.1, { max_colliders = 1 }))
      local cases = {
        { function() c:set_param("dampness", 0.1) end, "unknown parameter 'dampness'" },
        { function() c:set_param("damping", -0.1) end, "bad argument #2 .*'damping' %-0.1 is out of range %(0 %.%. 1%)" },
        { function() c:set_param("radius", -1) end, "'radius' %-1 is out of range" },
        { function() c:set_param("rate", 0) end, "'rate' 0 is out of range" },
        { function() c:set_param("damping", 0.1, 4) end, "bad argument #3 .*particle 4 is out of range %(1 %.%. 3%)" },
        { function() c:set_param("end_length", 1) end, "fixed when the chain is created" },
        { function() c:set_param("gravity", 3) end, "'gravity' must be a table of 3 numbers" },
        { function() c:set_param("rate", 30, 2) end, "'rate' is not per particle" },
        { function() c:step(-1 / 60) end, "'dt' %-0.0166667 is negative" },
        { function() c:step(0 / 0) end, "'dt' is not finite" },
        { function() c:step(math.huge) end, "'dt' is not finite" },
        { function() c:position(0) end, "particle 0 is out of range %(1 %.%. 3%)" },
        { function() c:position(1.5) end, "particle 1.5 is not an integer" },
        { function() c:position(1, "later") end, "unknown position 'later'" },
        { function() c:add_collider { shape = "cube", center = { 0, 0, 0 }, radius = 1 } end, "unknown collider shape 'cube'" },
        { function() c:add_collider { shape = "sphere", center = { 0, 0, 0 }, radius = -1 } end,
          "sphere 'radius' %-1 is out of range %(0 %.%. 1e%+0?0?9%)" },
        { function() c:add_collider { shape = "sphere", center = { 0, 0 / 0, 0 }, radius = 1 } end, "not finite" },
        { function() c:add_collider { shape = "capsule", a = { 0, 0, 0 }, b = { 0, 0, 0 }, radius = 1 } end, "coincide" },
        { function() c:add_collider { shape = "capsule", a = { 0, 0, 0 }, b = { 1, 0, 0 }, radius = 2, radius_b = 0.5 } end,
          "one end contains the other" },
        { function() c:add_collider { shape = "plane", point = { 0, 0, 0 }, normal = { 0, 0, 0 } } end, "'normal' is zero" },
        { function() c:add_collider { shape = "sphere", centre = { 0, 0, 0 }, radius = 1 } end,
          "unknown field 'centre' in the collider" },
        { function() c:move_collider(1, 0, 0, 0) end, "the chain has no collider" },
        { function() c:update(1 / 60, nil) end, "sinew.Pose expected" },
      }
      for _, case in ipairs(cases) do
        local msg = helper.error_of(case[1])
        assert.is_not_nil(msg, case[2])
        assert.matches(case[2], msg)
      end
      assert.equal(1, c:add_collider { shape = "plane", point = { 0, -1, 0 }, normal = { 0, 1, 0 } })
      assert.matches("no room for another collider",
        helper.error_of(c.add_collider, c, { shape = "plane", point = { 0, -1, 0 }, normal = { 0, 1, 0 } }))
      assert.matches("'normal' is zero", helper.error_of(c.move_collider, c, 1, 0, -1, 0, 0, 0, 0))
      -- collider indices are checked before any conversion (issue 12: 1e300 was converted first)
      for _, k in ipairs { 1e300, -1e300, 2 ^ 63, 0 / 0, 1.5, 2 } do
        assert.matches("bad argument #2 .*collider .* is", helper.error_of(c.move_collider, c, k, 0, 0, 0))
      end
      local far = sinew.chain(line(3, 0.1, { max_colliders = 1 }))
      assert.matches("sphere 'center' x 2e%+0?0?9 is out of range %(%-1e%+0?0?9 %.%. 1e%+0?0?9%)",
        helper.error_of(far.add_collider, far, { shape = "sphere", center = { 2e9, 0, 0 }, radius = 1 }))
      assert.matches("bad argument #2 .*translation y 1e%+0?12 is out of range",
        helper.error_of(far.move_root, far, 0, 1e12, 0))
      assert.matches("bad argument #5 .*rotation is zero", helper.error_of(far.move_root, far, 0, 0, 0, 0, 0, 0, 0))
    end)

    it("refuses a pose of another skeleton, a bad root matrix and update on a points chain", function()
      local c = sinew.chain { skeleton = skel, root = "tail1" }
      local other = sinew.pose(tail_skeleton(3))
      local pose = sinew.pose(skel)
      assert.matches("pose of another skeleton", helper.error_of(c.update, c, 1 / 60, other))
      assert.matches("'root_matrix' must have 16 numbers", helper.error_of(c.update, c, 1 / 60, pose, { 1, 0, 0 }))
      local singular = { 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }
      assert.matches("root matrix is singular", helper.error_of(c.update, c, 1 / 60, pose, singular))
      local huge = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1e12, 0, 1 }
      assert.matches("element 14 of the root matrix 1e%+0?12 is out of range", helper.error_of(c.update, c, 1 / 60, pose, huge))
      local flung = sinew.pose(skel)
      flung:set_translation(c:joint(1), 1e30, 0, 0)
      assert.matches("bad argument #3 .*joint 'tail1' of the pose is placed out of range",
        helper.error_of(c.update, c, 1 / 60, flung))
      c:update(1 / 60, pose) -- and it goes on from the last good pose
      for i = 1, #c do
        local x, y, z = c:position(i)
        assert.is_true(x == x and y == y and z == z and math.abs(x) < 1e3)
      end
      local bad = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0 / 0, 0, 1 }
      assert.matches("element 14 of 'root_matrix' is not finite", helper.error_of(c.update, c, 1 / 60, pose, bad))
      assert.matches("'dt' %-1 is negative", helper.error_of(c.update, c, -1, pose))
      assert.matches("'move_root' is for points chains", helper.error_of(c.move_root, c, 1, 2, 3))
      local p = sinew.chain(line(3, 0.1))
      assert.matches("no skeleton", helper.error_of(p.update, p, 1 / 60, pose))
      assert.matches("no joint names", helper.error_of(p.position, p, "tail1"))
    end)
  end)

  -- every behaviour, for each solver
  for _, solver in ipairs { "sweep", "coupled" } do
    local function new_chain(def)
      def.solver = def.solver or solver
      return sinew.chain(def)
    end

    describe("solver " .. solver, function()
    describe("frame-rate independence", function()
      it("ends within 2% of the chain length for frame dt 1/30, 1/60, 1/144 after 2 s (its figures: SINEW_VERBOSE=1)", function()
        for _, moving in ipairs { false, true } do
          local ref = released(solver, 60, 1 / 144, 2, moving)
          local len = ref:length()
          for _, dt in ipairs { 1 / 30, 1 / 60 } do
            local s = spread(released(solver, 60, dt, 2, moving), ref) / len
            local figure = (solver .. ": frame dt 1/%d vs 1/144, %s root: spread %.5f%% of the chain length"):format(
              math.floor(1 / dt + 0.5), moving and "swinging" or "fixed", 100 * s)
            figures.add(figure)
            assert.is_true(s <= 0.02, figure)
          end
        end
      end)

      it("ends within 5% of the chain length for rate 60 versus 120 (its figures: SINEW_VERBOSE=1)", function()
        for _, moving in ipairs { false, true } do
          local a, b = released(solver, 60, 1 / 144, 2, moving), released(solver, 120, 1 / 144, 2, moving)
          local s = spread(a, b) / a:length()
          local figure = ("%s: rate 60 vs 120, %s root: spread %.5f%% of the chain length"):format(
            solver, moving and "swinging" or "fixed", 100 * s)
          figures.add(figure)
          assert.is_true(s <= 0.05, figure)
        end
      end)

      if solver == "coupled" then
        it("converges with the step: rate 60, 120, 240 end within 0.5% of the chain length of 960 Hz", function()
          for _, moving in ipairs { false, true } do
            local ref = released(solver, 960, 1 / 240, 2, moving)
            for _, rate in ipairs { 60, 120, 240 } do
              local s = spread(released(solver, rate, 1 / 240, 2, moving), ref, "step") / ref:length()
              assert.is_true(s <= 0.005, ("rate %d, %s root: %.4f%%"):format(rate, moving and "swinging" or "fixed", 100 * s))
            end
          end
        end)
      end

      it("gives the same rest shape at any rate for stiff settings (the solve is exact)", function()
        local rng = helper.rng(11)
        for _ = 1, 3 do
          local st = rng(0.3, 0.95)
          local tips = {}
          for _, rate in ipairs { 30, 60, 240 } do
            local c = new_chain(line(8, 0.1, { rate = rate, stiffness = st, elasticity = 0, damping = 0.3 }))
            for _ = 1, 8 * rate do c:step(1 / rate) end
            tips[#tips + 1] = { c:position(8) }
          end
          for k = 1, 2 do
            local d = dist(tips[k][1], tips[k][2], tips[k][3], tips[3][1], tips[3][2], tips[3][3])
            assert.is_true(d < 0.02 * 0.7, ("stiffness %.2f: %.4f"):format(st, d))
          end
        end
      end)
    end)

    describe("stepping", function()
      it("keeps every segment within 1% of its length after each step", function()
        local rng = helper.rng(3)
        for _ = 1, 10 do
          local n = 3 + math.floor(rng() * 8)
          local def = { points = { { 0, 0, 0 } }, parents = { 0 } }
          for i = 2, n do
            local p = rng() < 0.7 and i - 1 or 1 + math.floor(rng() * (i - 1))
            local q = def.points[p]
            def.points[i] = { q[1] + rng(-0.2, 0.2), q[2] + rng(-0.2, 0.2), q[3] + rng(-0.2, 0.2) }
            def.parents[i] = p
          end
          local c = new_chain(def)
          for s = 1, 120 do
            c:move_root(0.5 * math.sin(s * 0.1), 0, 0.3 * math.cos(s * 0.07), sinew.quat.from_axis_angle(0.3, 1, 0.2, 0.02 * s))
            c:step(1 / 60)
            for i = 2, n do
              local p = def.parents[i]
              local rest = dist(def.points[i][1], def.points[i][2], def.points[i][3],
                def.points[p][1], def.points[p][2], def.points[p][3])
              local ax, ay, az = c:position(i, "step")
              local bx, by, bz = c:position(p, "step")
              assert.is_true(math.abs(dist(ax, ay, az, bx, by, bz) - rest) <= 0.01 * rest + 1e-12)
            end
          end
        end
      end)

      it("is deterministic: the same inputs give bit-identical outputs", function()
        local function run()
          local c = new_chain(line(10, 0.07, { radius = 0.01 }))
          c:add_collider { shape = "capsule", a = { -1, -0.2, 0 }, b = { 1, -0.25, 0 }, radius = 0.1, radius_b = 0.05 }
          local rng = helper.rng(5)
          local out = {}
          for s = 1, 200 do
            c:move_root(0.4 * math.sin(s * 0.13), 0, 0)
            c:step(0.004 + 0.03 * rng())
            for i = 1, #c do
              local x, y, z = c:position(i)
              out[#out + 1] = ("%.17g %.17g %.17g"):format(x, y, z) -- round-trips doubles exactly
            end
          end
          return table.concat(out, ";")
        end
        assert.equal(run(), run())
      end)

      it("never makes NaN: dt 0, 1e-9, 10 s, zero-length bones, particles at collider centres", function()
        local def = line(6, 0.1, { end_length = 1 })
        def.points[3] = { 0.1, 0, 0 } -- zero-length bones
        def.points[4] = { 0.1, 0, 0 }
        local c = new_chain(def)
        c:add_collider { shape = "sphere", center = { 0.1, 0, 0 }, radius = 0.05 }
        c:add_collider { shape = "capsule", a = { 0.4, -1, 0 }, b = { 0.4, 1, 0 }, radius = 0.03 }
        local all = new_chain(line(4, 0)) -- every point at one place
        all:add_collider { shape = "sphere", center = { 0, 0, 0 }, radius = 0.1 }
        for _, dt in ipairs { 0, 1e-9, 10, 1 / 60, 0, 3.3, 1e-9, 10 } do
          for _, ch in ipairs { c, all } do
            ch:step(dt)
            for i = 1, #ch do
              local x, y, z = ch:position(i)
              assert.is_true(finite(x) and finite(y) and finite(z))
            end
          end
        end
      end)

      it("drops the time beyond max_steps, and the chain follows its root through it", function()
        local c = new_chain(line(5, 0.1, { max_steps = 2, teleport = 0 }))
        c:step(1 / 60)
        c:move_root(0.5, 0, 0) -- far within one long frame
        c:step(1)
        local x = c:position(5, "step")
        assert.is_true(x > 0.5 and x < 0.95) -- moved along, not left behind or flung past
      end)

      it("changes parameters live without a reset", function()
        local c = new_chain(line(5, 0.1))
        for _ = 1, 20 do c:step(1 / 60) end
        local x, y, z = c:position(5)
        c:set_param("stiffness", 0.7, 3)
        c:set_param("damping", { 0.1, 0.4 })
        c:set_param("rate", 120)
        c:set_param("gravity", { 0, -5, 0 })
        assert.same({ x, y, z }, { c:position(5) })
        c:step(1 / 60)
        assert.is_true(dist(x, y, z, c:position(5)) < 0.05)
        assert.equal(0.7, c:get_param("stiffness", 3))
        assert.equal(0.1, c:get_param("stiffness", 2))
        assert.equal(0.4, c:get_param("damping", 5))
        assert.same({ 0, -5, 0 }, { c:get_param("gravity") })
      end)
    end)

    describe("colliders", function()
      -- signed distance from a collider definition, grown by r (outside positive)
      local function sdf(k, x, y, z, r)
        if k.shape == "sphere" then return dist(x, y, z, k.center[1], k.center[2], k.center[3]) - k.radius - r end
        if k.shape == "plane" then
          local n = k.normal
          local l = math.sqrt(n[1] ^ 2 + n[2] ^ 2 + n[3] ^ 2)
          return ((x - k.point[1]) * n[1] + (y - k.point[2]) * n[2] + (z - k.point[3]) * n[3]) / l - r
        end
        local best = math.huge -- a capsule is the union of the balls along its axis
        for i = 0, 400 do
          local t = i / 400
          local rr = k.radius + t * ((k.radius_b or k.radius) - k.radius)
          best = math.min(best, dist(x, y, z, k.a[1] + t * (k.b[1] - k.a[1]), k.a[2] + t * (k.b[2] - k.a[2]),
            k.a[3] + t * (k.b[3] - k.a[3])) - rr)
        end
        return best - r
      end

      it("keeps every particle centre out of outside-colliders after each step, also with large dt", function()
        local rng = helper.rng(7)
        for trial = 1, 12 do
          local radius = trial % 3 == 0 and 0 or 0.02
          local c = new_chain(line(8, 0.08, { radius = radius, elasticity = 0, damping = 0.02, teleport = 0,
            gravity = { 0, -30, 0 }, max_steps = 20 }))
          local ks = {
            { shape = "sphere", center = { rng(0.1, 0.5), rng(-0.5, -0.1), rng(-0.2, 0.2) }, radius = rng(0.05, 0.2) },
            { shape = "capsule", a = { -0.5, -0.6, rng(-0.3, 0.3) }, b = { 0.8, -0.6, rng(-0.3, 0.3) },
              radius = rng(0.02, 0.1), radius_b = rng(0.02, 0.1) },
            { shape = "plane", point = { 0, -0.9, 0 }, normal = { rng(-0.3, 0.3), 1, rng(-0.3, 0.3) } },
          }
          for _, k in ipairs(ks) do c:add_collider(k) end
          for s = 1, 60 do
            c:move_root(0.6 * math.sin(s * 0.4), 0, 0.4 * math.cos(s * 0.3))
            c:step(s % 10 == 0 and 0.3 or 1 / 60) -- every tenth frame a long one: 18 steps at once
            for i = 2, #c do
              local x, y, z = c:position(i, "step")
              for _, k in ipairs(ks) do
                assert.is_true(sdf(k, x, y, z, radius) >= -1e-4)
              end
            end
          end
        end
      end)

      it("tests only the colliders that can reach the chain, with the same result (bit for bit)", function()
        -- the same tree alone and with a far second tree in the chain (whose broad-phase ball then
        -- holds every collider), and alone with far colliders of every kind between the near ones
        local rng = helper.rng(13)
        local function tree(far_tree)
          local def = line(8, 0.08, { radius = 0.02, elasticity = 0, damping = 0.02, teleport = 0,
            gravity = { 0, -30, 0 }, max_steps = 20, max_colliders = 12 })
          if far_tree then
            def.points[9], def.parents[9] = { 100, 0, 0 }, 0
            def.points[10], def.parents[10] = { 100.1, 0, 0 }, 9
          end
          return new_chain(def)
        end
        local alone, both, padded = tree(false), tree(true), tree(false)
        local near = {
          { shape = "sphere", center = { rng(0.1, 0.5), rng(-0.5, -0.1), rng(-0.2, 0.2) }, radius = rng(0.05, 0.2) },
          { shape = "capsule", a = { -0.5, -0.6, rng(-0.3, 0.3) }, b = { 0.8, -0.6, rng(-0.3, 0.3) },
            radius = rng(0.02, 0.1), radius_b = rng(0.02, 0.1) },
          { shape = "plane", point = { 0, -0.9, 0 }, normal = { rng(-0.3, 0.3), 1, rng(-0.3, 0.3) } },
        }
        local far = {
          { shape = "sphere", center = { 30, 0, 0 }, radius = 1 },
          { shape = "capsule", a = { -20, 5, 0 }, b = { -20, 9, 3 }, radius = 2, radius_b = 1 },
          { shape = "plane", point = { 0, -40, 0 }, normal = { 0, 1, 0.2 } },
          { shape = "sphere", center = { 0, 0, 0 }, radius = 200, inside = true },
          { shape = "capsule", a = { 0, -50, 0 }, b = { 0, 50, 0 }, radius = 60, radius_b = 60, inside = true },
          { shape = "plane", point = { 0, 50, 0 }, normal = { 0, 1, 0 }, inside = true },
        }
        for k = 1, 3 do
          alone:add_collider(near[k])
          both:add_collider(near[k])
          padded:add_collider(far[2 * k - 1])
          padded:add_collider(near[k])
          padded:add_collider(far[2 * k])
        end
        for s = 1, 60 do
          for _, c in ipairs { alone, both, padded } do
            c:move_root(0.6 * math.sin(s * 0.4), 0, 0.4 * math.cos(s * 0.3))
            c:step(s % 10 == 0 and 0.3 or 1 / 60)
          end
          for i = 1, 8 do
            local x, y, z = alone:position(i, "step")
            assert.same({ x, y, z }, { both:position(i, "step") })
            assert.same({ x, y, z }, { padded:position(i, "step") })
          end
        end
      end)

      it("keeps particles inside a keep-in collider", function()
        local c = new_chain(line(6, 0.1, { radius = 0.01, elasticity = 0, stiffness = 0 }))
        c:add_collider { shape = "sphere", center = { 0, 0, 0 }, radius = 0.3, inside = true }
        for _ = 1, 60 do
          c:step(1 / 60)
          for i = 2, #c do
            local x, y, z = c:position(i, "step")
            assert.is_true(dist(x, y, z, 0, 0, 0) <= 0.29 + 1e-9)
          end
        end
      end)

      it("moves colliders by numbers or by table, the chain following", function()
        local c = new_chain(line(4, 0.1, { gravity = { 0, 0, 0 }, radius = 0.01 }))
        local k = c:add_collider { shape = "sphere", center = { 5, 5, 5 }, radius = 0.05 }
        assert.equal(1, k)
        assert.equal(1, c:colliders())
        c:move_collider(k, 0.3, 0.02, 0) -- onto the third segment
        c:step(1 / 60)
        local x, y, z = c:position(4, "step")
        assert.is_true(dist(x, y, z, 0.3, 0.02, 0) >= 0.06 - 1e-4)
        c:move_collider(k, { center = { 0.2, -0.02, 0 }, radius = 0.03 })
        c:step(1 / 60)
        x, y, z = c:position(3, "step")
        assert.is_true(dist(x, y, z, 0.2, -0.02, 0) >= 0.04 - 1e-4)
        assert.matches("collider is a sphere, not a plane", helper.error_of(c.move_collider, c, k, { shape = "plane" }))
      end)
    end)

    describe("teleport and inertia", function()
      it("resets to the animated pose after a root jump beyond 'teleport'", function()
        local c = new_chain(line(5, 0.1))
        for _ = 1, 30 do c:step(1 / 60) end
        c:move_root(100, 0, 0)
        c:step(1 / 60)
        local x, y = c:position(5, "step")
        assert.is_true(x > 100.3 and x < 100.5 and math.abs(y) < 0.05)
        c:reset()
        for i = 1, 5 do
          local px, py = c:position(i)
          assert.is_true(math.abs(px - (100 + 0.1 * (i - 1))) < 1e-12 and py == 0)
        end
      end)

      it("carries the swing rigidly on teleport()", function()
        local c, ref = new_chain(line(5, 0.1)), new_chain(line(5, 0.1))
        for _ = 1, 18 do
          c:step(1 / 60)
          ref:step(1 / 60)
        end
        c:teleport(100, 0, 0)
        for _ = 1, 20 do
          c:step(1 / 60)
          ref:step(1 / 60)
        end
        for i = 1, 5 do
          local ax, ay = c:position(i)
          local bx, by = ref:position(i)
          assert.is_true(math.abs(ax - 100 - bx) < 1e-9 and math.abs(ay - by) < 1e-9)
        end
      end)

      it("is not swept back by running with inert = 1, nor in parent space", function()
        local moved = new_chain(line(6, 0.1, { inert = 1 }))
        local parent = new_chain(line(6, 0.1, { space = "parent" }))
        local world = new_chain(line(6, 0.1))
        local still = new_chain(line(6, 0.1))
        for s = 1, 90 do
          local x = (2 * s / 90) ^ 2 -- accelerating from rest
          moved:move_root(x, 0, 0)
          parent:move_root(x, 0, 0)
          world:move_root(x, 0, 0)
          for _, c in ipairs { moved, parent, world, still } do c:step(1 / 60) end
        end
        local rx = moved:position(1)
        for i = 1, 6 do
          local ax, ay = moved:position(i)
          local px, py = parent:position(i)
          local bx, by = still:position(i)
          assert.is_true(math.abs(ax - rx - bx) < 1e-9 and math.abs(ay - by) < 1e-9)
          assert.is_true(math.abs(px - rx - bx) < 1e-9 and math.abs(py - by) < 1e-9)
        end
        local wx = world:position(6)
        local sx = still:position(6)
        assert.is_true(wx - rx < sx - 0.01) -- in world space with inert 0 the tip trails behind
      end)
    end)

    describe("skeleton mode", function()
      it("writes rotations back so that each joint sits on its simulated particle", function()
        local skel = tail_skeleton(5)
        local pose = sinew.pose(skel)
        local mats = sinew.matrices(skel)
        local c = new_chain { skeleton = skel, root = "tail1", end_length = 1 }
        assert.equal(6, #c)
        assert.equal(skel:find("tail5"), c:joint(5))
        assert.is_nil(c:joint(6))
        for _ = 1, 40 do c:update(1 / 60, pose) end
        pose:to_model(mats)
        for i = 1, 5 do
          local m = { mats:get(c:joint(i)) }
          local x, y, z = c:position(i)
          assert.is_true(dist(m[13], m[14], m[15], x, y, z) < 2e-5)
        end
        local _, ty = c:position("tail5")
        assert.is_true(ty < 0.95) -- drooped under gravity
      end)

      it("keeps the twist of the animation", function()
        local results = {}
        for _, twist in ipairs { 0, 0.8 } do
          local skel = tail_skeleton(4, twist)
          local pose = sinew.pose(skel)
          local c = new_chain { skeleton = skel, root = "tail1", end_length = 1 }
          for _ = 1, 30 do c:update(1 / 60, pose) end
          results[#results + 1] = { pose:get_rotation("tail1") }
        end
        local a, b = results[1], results[2]
        -- the same swing; b = a * twist about the bone axis
        local tx, ty, tz, tw = sinew.quat.from_axis_angle(1, 0, 0, 0.8)
        local ex, ey, ez, ew = sinew.quat.mul(a[1], a[2], a[3], a[4], tx, ty, tz, tw)
        assert.is_true(sinew.quat.angle(ex, ey, ez, ew, b[1], b[2], b[3], b[4]) < 1e-5)
        assert.is_true(sinew.quat.angle(a[1], a[2], a[3], a[4], 0, 0, 0, 1) > 0.01) -- it did swing
      end)

      it("places the model in the world with the root matrix", function()
        local skel = tail_skeleton(3)
        local pose = sinew.pose(skel)
        local c = new_chain { skeleton = skel, root = "tail1", gravity = { 0, 0, 0 } }
        local m = { 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 5, 6, 7, 1 } -- 90 degrees about z, moved
        c:update(1 / 60, pose, m)
        -- tail1 rests at model (0.5, 1, 0): world (5 - 1, 6 + 0.5, 7)
        local x, y, z = c:position(1)
        assert.is_true(dist(x, y, z, 4, 6.5, 7) < 1e-6)
        x, y, z = c:position(3)
        assert.is_true(dist(x, y, z, 4, 6.7, 7) < 1e-6)
        assert.equal(skel, c:skeleton())
      end)

      it("in parent space ignores the motion of the root's parent joint", function()
        local skel = tail_skeleton(4)
        local written = {}
        for run = 1, 2 do
          local pose = sinew.pose(skel)
          local c = new_chain { skeleton = skel, root = "tail1", space = "parent", end_length = 1, elasticity = 0 }
          for f = 1, 60 do
            pose:reset()
            -- the body runs off (below the teleport distance, 5 x the chain length, per frame)
            if run == 2 then pose:set_translation("body", 0.002 * f * f, 0, 0) end
            c:update(1 / 60, pose)
          end
          written[run] = { pose:get_rotation("tail2") }
        end
        local a, b = written[1], written[2]
        assert.is_true(sinew.quat.angle(a[1], a[2], a[3], a[4], b[1], b[2], b[3], b[4]) < 1e-5)
        assert.is_true(sinew.quat.angle(a[1], a[2], a[3], a[4], 0, 0, 0, 1) > 0.01) -- it drooped
      end)

      it("keeps its skeleton alive", function()
        local c = new_chain { skeleton = tail_skeleton(3), root = 2 }
        collectgarbage("collect")
        collectgarbage("collect")
        local skel = c:skeleton()
        assert.equal(4, #skel)
        c:update(1 / 60, sinew.pose(skel))
      end)
    end)

    describe("garbage", function()
      it("makes no garbage per frame", function()
        local c = new_chain(line(8, 0.1, { radius = 0.01 }))
        local k = c:add_collider { shape = "capsule", a = { 0, -0.3, -1 }, b = { 0, -0.3, 1 }, radius = 0.05 }
        local move = { a = { 0.1, -0.3, -1 } }
        local t = 0
        local skel = tail_skeleton(6)
        local pose = sinew.pose(skel)
        local sc = new_chain { skeleton = skel, root = 2, end_length = 0.5 }
        local m = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }
        local calls = {
          step = function() t = t + 1; c:move_root(sin(t * 0.01), 0, 0); c:step(1 / 60) end,
          position = function() return c:position(8) end,
          move_collider = function() c:move_collider(k, 0.1, -0.3, -1, 0.1, -0.3, 1) end,
          move_collider_table = function() c:move_collider(k, move) end,
          set_param = function() c:set_param("damping", 0.2, 3) end,
          update = function() t = t + 1; m[13] = sin(t * 0.01); sc:update(1 / 60, pose, m) end,
          teleport = function() c:teleport() end,
        }
        for name, fn in pairs(calls) do
          assert.equal(0, helper.garbage_per_call(fn, 500), name)
        end
      end)
    end)
    end)
  end

  describe("definition tables with metatables (see manual/safety.md)", function()
    it("reads the skeleton once and keeps it, whatever __index does afterwards", function()
      local reads = 0
      local c = sinew.chain(setmetatable({ root = 1 }, { __index = function(_, k)
        if k == "skeleton" then
          reads = reads + 1
          if reads == 1 then return sinew.skeleton { names = { "a", "b", "c" }, parents = { 0, 1, 2 } } end
          return 42
        end
        collectgarbage()
      end }))
      collectgarbage()
      assert.equal(1, reads)
      assert.equal(3, #c:skeleton())
      c:update(1 / 60, sinew.pose(c:skeleton()))
    end)

    it("takes fields from a prototype through __index", function()
      local proto = { damping = 0.4, solver = "sweep" }
      local c = sinew.chain(setmetatable(line(3, 0.1), { __index = proto }))
      assert.equal(0.4, c:get_param("damping"))
    end)

    it("gives no skeleton for a points chain, whatever the globals hold", function()
      rawset(_G, 1, tail_skeleton(2))
      local c = sinew.chain(line(3, 0.1))
      rawset(_G, 1, nil)
      assert.is_nil(c:skeleton())
    end)
  end)
end)
