local helper = require "helper"
local sinew = require "sinew"

local unpack = table.unpack or unpack
local atan2 = math.atan2 or math.atan
local pi, sqrt, abs = math.pi, math.sqrt, math.abs

local near_abs = helper.near_abs

local function random_points(rng, n, dims, with_origin)
  local pts = {}
  for i = 1, n do
    local p = {}
    for k = 1, dims do p[k] = rng(-1, 1) end
    pts[i] = p
  end
  if with_origin then
    for k = 1, dims do pts[1][k] = 0 end
  end
  return pts
end

-- m directions spread around the circle (gaps of 0.4 to 1.6 times 360/m degrees), radii 0.5 to 2,
-- and the centre sample when asked: a valid simple_directional layout for m >= 4
local function random_directions(rng, m, with_centre)
  local pts, base = {}, rng(0, 2 * pi)
  if with_centre then pts[1] = { 0, 0 } end
  for i = 1, m do
    local a, r = base + (i - 1 + rng(-0.3, 0.3)) * 2 * pi / m, rng(0.5, 2)
    pts[#pts + 1] = { r * math.cos(a), r * math.sin(a) }
  end
  return pts
end

local function random_input(rng, dims, span)
  local p = {}
  for k = 1, dims do p[k] = rng(-span, span) end
  return p
end

local function weights_at(space, p) return space:weights(unpack(p)) end

-- the largest change of a weight between two inputs 2e-7 apart in angle, on each side of the ray
-- through every sample and of the ray opposite it, at three radii
local function largest_jump_across_rays(space, pts)
  local most = 0
  for _, p in ipairs(pts) do
    if p[1] ~= 0 or p[2] ~= 0 then
      for _, turn in ipairs { 0, pi } do
        for _, r in ipairs { 0.3, 1, 2.5 } do
          local a = atan2(p[2], p[1]) + turn
          local w1 = space:weights(r * math.cos(a + 1e-7), r * math.sin(a + 1e-7))
          local w2 = space:weights(r * math.cos(a - 1e-7), r * math.sin(a - 1e-7))
          for k = 1, #w1 do most = math.max(most, abs(w1[k] - w2[k])) end
        end
      end
    end
  end
  return most
end

-- The modes, each with the dimensions it takes and a maker of random layouts from a seed.
local cases = {
  { mode = "1d", dims = { 1 } },
  { mode = "simple_directional", dims = { 2 },
    make = function(rng, i) return random_directions(rng, 4 + i % 6, i % 2 == 0) end },
  { mode = "freeform_cartesian", dims = { 1, 2, 3 } },
  { mode = "freeform_directional", dims = { 2 }, -- a centre sample and gaps under 150 degrees: continuous
    make = function(rng, i) return random_directions(rng, 4 + i % 6, true) end },
  { mode = "triangulated", dims = { 1, 2 } },
  { mode = "grid", dims = { 2 }, options = { grid = { 7, 6 } } },
  { mode = "idw", dims = { 1, 2, 3 } },
  { mode = "direct", dims = { 1 } },
}

-- every (case, dims, seed) as a built space with its points
local function each_space(case, count, fn)
  for _, dims in ipairs(case.dims) do
    for i = 1, count do
      local rng = helper.rng(1000 * i + dims)
      local pts = case.make and case.make(rng, i) or random_points(rng, 2 + i % 8, dims, i % 3 == 0)
      local def = { mode = case.mode, points = pts }
      for k, v in pairs(case.options or {}) do def[k] = v end
      fn(sinew.blendspace(def), pts, rng, dims, def)
    end
  end
end

local function inputs_of(space) return space:dims() end

describe("sinew.blendspace", function()
  for _, case in ipairs(cases) do
    describe(("mode '%s'"):format(case.mode), function()
      it("gives non-negative weights that sum to 1", function()
        each_space(case, 12, function(space, pts, rng)
          for _ = 1, 40 do
            local p = random_input(rng, inputs_of(space), 2)
            if case.mode == "direct" then -- normalised, with inputs not all zero
              for k = 1, #p do p[k] = k == 1 and rng(0.1, 2) or p[k] end
              space = sinew.blendspace { mode = "direct", points = pts, normalize = true }
            end
            local w, sum = weights_at(space, p), 0
            assert.equal(#pts, #w)
            for k = 1, #w do
              assert.is_true(w[k] >= 0, "negative weight")
              sum = sum + w[k]
            end
            assert.is_true(near_abs(sum, 1, 1e-9), ("sum %.17g"):format(sum))
          end
        end)
      end)

      if case.mode ~= "grid" and case.mode ~= "direct" then
        it("gives weight 1 at each sample", function()
          each_space(case, 12, function(space, pts)
            for i, p in ipairs(pts) do
              local w = weights_at(space, p)
              assert.is_true(near_abs(w[i], 1, 1e-12), ("w[%d] = %.17g at its sample"):format(i, w[i]))
            end
          end)
        end)
      end

      it("changes continuously: a 1e-6 step moves no weight by more than 1e-3", function()
        each_space(case, 8, function(space, _, rng)
          for _ = 1, 100 do
            local p = random_input(rng, inputs_of(space), 1.5)
            local q = {}
            for k = 1, #p do q[k] = p[k] + rng(-1e-6, 1e-6) end
            local a, b = weights_at(space, p), weights_at(space, q)
            for k = 1, #a do
              assert.is_true(near_abs(a[k], b[k], 1e-3), ("weight %d jumps from %.9g to %.9g"):format(k, a[k], b[k]))
            end
          end
        end)
      end)

      it("does not depend on the order of the points", function()
        each_space(case, 8, function(space, pts, rng, _, def)
          local perm, shuffled = {}, {}
          for i = 1, #pts do perm[i] = i end
          for i = #pts, 2, -1 do
            local j = 1 + math.floor(rng() * i)
            perm[i], perm[j] = perm[j], perm[i]
          end
          for i = 1, #pts do shuffled[i] = pts[perm[i]] end
          local other = sinew.blendspace { mode = def.mode, points = shuffled, grid = def.grid }
          for _ = 1, 30 do
            local p = random_input(rng, inputs_of(space), 1.5)
            local q = p
            if case.mode == "direct" then
              q = {}
              for i = 1, #pts do q[i] = p[perm[i]] end
            end
            local a, b = weights_at(space, p), weights_at(other, q)
            for i = 1, #pts do
              assert.is_true(near_abs(b[i], a[perm[i]], 1e-12), "weights do not follow the points")
            end
          end
        end)
      end)

      it("makes no garbage when given an 'out' table", function()
        each_space(case, 1, function(space, _, rng)
          local out, p = {}, random_input(rng, inputs_of(space), 1)
          local a, b, c = p[1], p[2], p[3]
          local n = inputs_of(space)
          local fn
          if n == 1 then fn = function() space:weights(a, out) end
          elseif n == 2 then fn = function() space:weights(a, b, out) end
          elseif n == 3 then fn = function() space:weights(a, b, c, out) end
          else
            fn = function() space:weights(unpack(p)) end -- not measured: unpack varargs
          end
          if n <= 3 then assert.equal(0, helper.garbage_per_call(fn, 2000)) end
        end)
      end)
    end)
  end

  describe("mode '1d'", function()
    it("shares the weight between the bracketing thresholds and clamps outside", function()
      local space = sinew.blendspace { mode = "1d", points = { 3, -1, { 1 }, 7 } }
      local w = space:weights(2)
      assert.is_true(near_abs(w[1], 0.5, 1e-15) and near_abs(w[3], 0.5, 1e-15) and w[2] == 0 and w[4] == 0)
      w = space:weights(-5)
      assert.same({ 0, 1, 0, 0 }, w)
      w = space:weights(100)
      assert.same({ 0, 0, 0, 1 }, w)
      w = space:weights(4)
      assert.is_true(near_abs(w[1], 0.75, 1e-15) and near_abs(w[4], 0.25, 1e-15))
    end)
  end)

  describe("mode 'simple_directional'", function()
    -- the issue's formula, with the neighbours found by scanning every sample
    local function reference(pts, px, py)
      local n, w, centre, dirs = #pts, {}, nil, {}
      for i = 1, n do
        w[i] = 0
        if pts[i][1] == 0 and pts[i][2] == 0 then centre = i else dirs[#dirs + 1] = i end
      end
      if px == 0 and py == 0 then
        for i = 1, n do w[i] = centre and (i == centre and 1 or 0) or 1 / n end
        return w
      end
      local function ccw(ax, ay, bx, by)
        local t = atan2(ax * by - ay * bx, ax * bx + ay * by)
        return t < 0 and t + 2 * pi or t
      end
      local ia, ib, besta, bestb = nil, nil, math.huge, math.huge
      for _, i in ipairs(dirs) do
        local from = ccw(pts[i][1], pts[i][2], px, py) -- sample to input
        local to = ccw(px, py, pts[i][1], pts[i][2])   -- input to sample
        if from < besta then besta, ia = from, i end
        if to > 0 and to < bestb then bestb, ib = to, i end
      end
      local a, b = pts[ia], pts[ib]
      local det = a[1] * b[2] - a[2] * b[1]
      local wa = math.max(0, (b[2] * px - b[1] * py) / det)
      local wb = math.max(0, (a[1] * py - a[2] * px) / det)
      local c = 1 - wa - wb
      if c < 0 then wa, wb, c = wa / (wa + wb), wb / (wa + wb), 0 end
      if c > 1 then wa, wb, c = 0, 0, 1 end
      w[ia], w[ib] = w[ia] + wa, w[ib] + wb
      if centre then w[centre] = w[centre] + c else
        for i = 1, n do w[i] = w[i] + c / n end
      end
      return w
    end

    it("is continuous across every sample's direction, the opposite rays and the origin", function()
      for seed = 1, 40 do
        local rng = helper.rng(seed)
        local pts = random_directions(rng, 4 + seed % 6, seed % 2 == 0)
        local space = sinew.blendspace { mode = "simple_directional", points = pts }
        assert.is_true(largest_jump_across_rays(space, pts) <= 1e-3)
        local a, b = space:weights(1e-7, 0), space:weights(-1e-7, 1e-9)
        for k = 1, #pts do assert.is_true(near_abs(a[k], b[k], 1e-3)) end
      end
    end)

    it("follows the formula of the issue, with and without a centre sample", function()
      for seed = 1, 20 do
        local rng = helper.rng(seed)
        local pts = random_directions(rng, 4 + seed % 5, seed % 2 == 0)
        local space = sinew.blendspace { mode = "simple_directional", points = pts }
        for _ = 1, 30 do
          local px, py = rng(-2, 2), rng(-2, 2)
          local w, r = space:weights(px, py), reference(pts, px, py)
          for i = 1, #pts do assert.is_true(near_abs(w[i], r[i], 1e-12), "differs from the formula") end
        end
        local w, r = space:weights(0, 0), reference(pts, 0, 0)
        for i = 1, #pts do assert.is_true(near_abs(w[i], r[i], 1e-15)) end
      end
    end)
  end)

  describe("mode 'simple_directional' at extreme scales", function()
    -- weights in [0, 1] summing to 1 at every input of `inputs`
    local function check_weights(points, inputs)
      local space = sinew.blendspace { mode = "simple_directional", points = points }
      for _, p in ipairs(inputs) do
        local w, sum = space:weights(p[1], p[2]), 0
        for i = 1, #points do
          assert.is_true(w[i] >= 0 and w[i] <= 1)
          sum = sum + w[i]
        end
        assert.is_true(near_abs(sum, 1, 1e-12))
      end
    end

    it("gives finite weights summing to 1 for tiny samples and huge inputs", function()
      -- found by fuzzing: (b x p) / (a x b) overflowed for a sample 1e-279 from the origin
      check_weights({ { 3.5, -2.75 }, { 0, 1.2675e-279 }, { -0.75, 2 }, { -4, 0 } },
        { { -4, 1.7e159 }, { 0, 1e-300 }, { 1e-250, 1e-250 }, { -3, 2 }, { 1e300, -1e300 } })
      -- a sample at a subnormal distance, and an input exactly on another sample's direction (inf * 0)
      check_weights({ { -4, -1 }, { -0.5, -4 }, { -1.5, -0.25 }, { 1, 1 }, { 1, 0 }, { -3.5, -1.5 }, { 0, 2.78e-309 } },
        { { 1.75, 1.75 }, { 0, 5 }, { 2, 0 }, { 1e-300, 1e-300 } })
    end)
  end)

  describe("mode 'freeform_cartesian'", function()
    it("follows Johansen's gradient bands in 1 to 8 dimensions", function()
      for seed = 1, 16 do
        local rng = helper.rng(seed)
        local dims = 1 + (seed - 1) % 8
        local pts = random_points(rng, 3 + seed % 6, dims)
        local space = sinew.blendspace { mode = "freeform_cartesian", points = pts }
        for _ = 1, 10 do
          local p = random_input(rng, dims, 1.5)
          local h, sum = {}, 0
          for i = 1, #pts do
            h[i] = 1
            for j = 1, #pts do
              if j ~= i then
                local num, den = 0, 0
                for k = 1, dims do
                  num = num + (p[k] - pts[i][k]) * (pts[j][k] - pts[i][k])
                  den = den + (pts[j][k] - pts[i][k]) ^ 2
                end
                h[i] = math.min(h[i], math.max(0, math.min(1, 1 - num / den)))
              end
            end
            sum = sum + h[i]
          end
          local w = weights_at(space, p)
          for i = 1, #pts do assert.is_true(near_abs(w[i], h[i] / sum, 1e-12)) end
        end
      end
    end)
  end)

  describe("mode 'freeform_directional'", function()
    local function angle(ax, ay, bx, by) -- signed, from a to b; 0 when either is zero
      if (ax == 0 and ay == 0) or (bx == 0 and by == 0) then return 0 end
      local t = atan2(ax * by - ay * bx, ax * bx + ay * by)
      return t == -pi and pi or t
    end
    -- the issue's formula, case by case
    local function reference(pts, alpha, px, py)
      local n, h, sum, lp = #pts, {}, 0, sqrt(px * px + py * py)
      for i = 1, n do
        local xi, yi = pts[i][1], pts[i][2]
        local li = sqrt(xi * xi + yi * yi)
        h[i] = 1
        for j = 1, n do
          if j ~= i then
            local xj, yj = pts[j][1], pts[j][2]
            local lj = sqrt(xj * xj + yj * yj)
            local a, tij, tip = alpha
            if li == 0 then
              a, tij, tip = 1, angle(px, py, xj, yj), 0
            elseif lj == 0 then
              a, tij = 1, angle(xi, yi, px, py)
              tip = tij
            else
              tij = angle(xi, yi, xj, yj)
              tip = lp == 0 and tij or angle(xi, yi, px, py)
              if tij == 0 then tip = 0 end
            end
            local m = (li + lj) / 2
            local v1, v2 = a * tij, (lj - li) / m
            local u1, u2 = a * tip, (lp - li) / m
            local term = 1 - (u1 * v1 + u2 * v2) / (v1 * v1 + v2 * v2)
            h[i] = math.min(h[i], math.max(0, math.min(1, term)))
          end
        end
        sum = sum + h[i]
      end
      for i = 1, n do h[i] = sum > 0 and h[i] / sum or 1 / n end
      return h
    end

    it("follows the polar gradient-band formula, zero-length cases included", function()
      for seed = 1, 20 do
        local rng = helper.rng(seed)
        local pts = random_points(rng, 3 + seed % 6, 2, seed % 2 == 0)
        local alpha = seed % 3 == 0 and 1.5 or nil
        local space = sinew.blendspace { mode = "freeform_directional", points = pts, alpha = alpha }
        local inputs = { { 0, 0 } }
        for _ = 1, 20 do inputs[#inputs + 1] = random_input(rng, 2, 2) end
        for _, p in ipairs(inputs) do
          local w, r = weights_at(space, p), reference(pts, alpha or 2, p[1], p[2])
          for i = 1, #pts do assert.is_true(near_abs(w[i], r[i], 1e-12), "differs from the formula") end
        end
      end
    end)

    it("is continuous across the rays of the samples given a centre sample and no wide gap", function()
      for seed = 1, 40 do
        local pts = random_directions(helper.rng(seed), 4 + seed % 6, true) -- gaps under 150 degrees
        local space = sinew.blendspace { mode = "freeform_directional", points = pts }
        assert.is_true(largest_jump_across_rays(space, pts) <= 1e-3)
      end
    end)

    it("jumps at the origin when no sample sits there (a documented discontinuity)", function()
      local space = sinew.blendspace { mode = "freeform_directional", points = { { 1, 0 }, { 0, 1 }, { -1, 0 }, { 0, -1 } } }
      local a, b = space:weights(1e-7, 0), space:weights(-1e-7, 0)
      assert.is_true(abs(a[1] - b[1]) > 0.1)
    end)

    it("gives every sample 1/n when every band is zero", function()
      -- far on the other side of two samples both bands vanish (the formula agrees)
      local pts = { { -1, -0.2 }, { -0.5, -0.25 } }
      local space = sinew.blendspace { mode = "freeform_directional", points = pts }
      local r = reference(pts, 2, 2.5, 0.9)
      assert.same({ 0.5, 0.5 }, r)
      assert.same(r, space:weights(2.5, 0.9))
    end)
  end)

  describe("mode 'triangulated'", function()
    it("reproduces the input inside the hull and the nearest hull point outside", function()
      for seed = 1, 15 do
        local rng = helper.rng(seed)
        local pts = random_points(rng, 4 + seed, 2)
        local space = sinew.blendspace { mode = "triangulated", points = pts, normalize_axes = false }
        for _ = 1, 40 do
          local px, py = rng(-1.5, 1.5), rng(-1.5, 1.5)
          local w, sx, sy, used = space:weights(px, py), 0, 0, 0
          for i = 1, #pts do
            sx, sy = sx + w[i] * pts[i][1], sy + w[i] * pts[i][2]
            if w[i] > 0 then used = used + 1 end
          end
          assert.is_true(used <= 3)
          -- the blended point is px, py inside; outside it is no farther than any sample
          local d = (sx - px) ^ 2 + (sy - py) ^ 2
          for i = 1, #pts do
            assert.is_true(d <= (pts[i][1] - px) ^ 2 + (pts[i][2] - py) ^ 2 + 1e-12)
          end
        end
      end
    end)

    it("builds a Delaunay triangulation, splitting cocircular cells the same way for any order", function()
      local pts = {}
      for r = 0, 3 do
        for c = 0, 3 do pts[#pts + 1] = { c, r } end
      end
      local space = sinew.blendspace { mode = "triangulated", points = pts }
      local tris = space:triangles()
      assert.equal(18, #tris)
      for _, t in ipairs(tris) do
        -- empty circumcircle (a tolerance is enough: all coordinates are small integers)
        local a, b, c = pts[t[1]], pts[t[2]], pts[t[3]]
        for _, d in ipairs(pts) do
          local adx, ady, bdx, bdy, cdx, cdy = a[1] - d[1], a[2] - d[2], b[1] - d[1], b[2] - d[2], c[1] - d[1], c[2] - d[2]
          local det = (adx * adx + ady * ady) * (bdx * cdy - cdx * bdy) + (bdx * bdx + bdy * bdy) * (cdx * ady - adx * cdy)
            + (cdx * cdx + cdy * cdy) * (adx * bdy - bdx * ady)
          assert.is_true(det <= 0)
        end
      end
      local reversed = {}
      for i = #pts, 1, -1 do reversed[#reversed + 1] = pts[i] end
      local other = sinew.blendspace { mode = "triangulated", points = reversed }
      local w1, w2 = space:weights(1.3, 1.6), other:weights(1.3, 1.6)
      for i = 1, #pts do assert.equal(w1[i], w2[#pts + 1 - i]) end
    end)

    it("blends piecewise-linearly along the line when the points are collinear", function()
      local space = sinew.blendspace { mode = "triangulated", points = { { 2, 2 }, { 0, 0 }, { 3, 3 } } }
      assert.same({}, space:triangles())
      local w = space:weights(1, 1)
      assert.is_true(near_abs(w[1], 0.5, 1e-15) and near_abs(w[2], 0.5, 1e-15) and w[3] == 0)
      w = space:weights(2.5, 2.5 + 1e-3) -- off the line: its projection
      assert.is_true(near_abs(w[1], 0.5 - 5e-4, 1e-12) and near_abs(w[3], 0.5 + 5e-4, 1e-12))
      assert.same({ 0, 0, 1 }, space:weights(10, 10))
      assert.same({ 0, 1, 0 }, space:weights(5, -7))
    end)

    it("measures in normalised space with 'normalize_axes', so scaling an axis changes nothing", function()
      local rng = helper.rng(7)
      local pts, wide = random_points(rng, 10, 2), {}
      for i, p in ipairs(pts) do wide[i] = { 100 * p[1], p[2] } end
      local a = sinew.blendspace { mode = "triangulated", points = pts }
      local b = sinew.blendspace { mode = "triangulated", points = wide }
      local c = sinew.blendspace { mode = "triangulated", points = wide, normalize_axes = false }
      local differs = false
      for _ = 1, 50 do
        local x, y = rng(-1.2, 1.2), rng(-1.2, 1.2)
        local wa, wb, wc = a:weights(x, y), b:weights(100 * x, y), c:weights(100 * x, y)
        for i = 1, #pts do
          assert.is_true(near_abs(wa[i], wb[i], 1e-9))
          if not near_abs(wa[i], wc[i], 1e-6) then differs = true end
        end
      end
      assert.is_true(differs)
    end)
  end)

  describe("mode 'grid'", function()
    it("stores the triangulated weights at grid points and blends them bilinearly", function()
      local rng = helper.rng(11)
      local pts = random_points(rng, 9, 2)
      local grid = sinew.blendspace { mode = "grid", points = pts, grid = { 4, 3 } }
      local tri = sinew.blendspace { mode = "triangulated", points = pts }
      local lo, hi = { math.huge, math.huge }, { -math.huge, -math.huge }
      for _, p in ipairs(pts) do
        for k = 1, 2 do lo[k], hi[k] = math.min(lo[k], p[k]), math.max(hi[k], p[k]) end
      end
      local function node(c, r)
        return lo[1] + c * (hi[1] - lo[1]) / 3, lo[2] + r * (hi[2] - lo[2]) / 2
      end
      for r = 0, 2 do
        for c = 0, 3 do
          local x, y = node(c, r)
          local wg, wt = grid:weights(x, y), tri:weights(x, y)
          for i = 1, #pts do assert.is_true(near_abs(wg[i], wt[i], 1e-12)) end
        end
      end
      -- the centre of a cell is the mean of its four corners
      local x0, y0 = node(1, 0)
      local x1, y1 = node(2, 1)
      local mid = grid:weights((x0 + x1) / 2, (y0 + y1) / 2)
      local c00, c10, c01, c11 = tri:weights(x0, y0), tri:weights(x1, y0), tri:weights(x0, y1), tri:weights(x1, y1)
      for i = 1, #pts do
        assert.is_true(near_abs(mid[i], (c00[i] + c10[i] + c01[i] + c11[i]) / 4, 1e-12))
      end
    end)

    it("gives weights summing to 1 without normalize_axes when coordinates span 1e115", function()
      -- found by fuzzing: raw coordinates overflowed the Delaunay predicates, and every weight was 0
      local pts = { { 0.809, -4 }, { 4, 4.739 }, { -4, 4 }, { -4, -1.46792e+115 }, { -4.468, -3.13108e+105 },
        { -8.927, 2 }, { 0, 0 }, { -3.75, -2.75 }, { 1.5, -4 }, { -3.75, -4 }, { 3.75, -4 }, { -4, -4 },
        { -2, -3.5 }, { 3.5, -3.5 }, { 0, 1.25 }, { 1.25, 1.25 }, { 2.25, 1.25 }, { -3.75, 1.5 }, { -4, -3.75 } }
      for _, mode in ipairs { "triangulated", "grid" } do
        local space = sinew.blendspace { mode = mode, points = pts, normalize_axes = false }
        for _, p in ipairs { { -4, -4 }, { 3.5, -1.5 }, { 0, 0 }, { -8.927, -1.46792e+115 }, { 4.739, 4.739 } } do
          local w, sum = space:weights(p[1], p[2]), 0
          for i = 1, #pts do
            assert.is_true(w[i] >= 0 and w[i] <= 1)
            sum = sum + w[i]
          end
          assert.is_true(near_abs(sum, 1, 1e-9), mode)
        end
      end
    end)

    it("stays finite when the points span a subnormal extent along one axis", function()
      -- found by fuzzing: cells per unit along y overflowed to infinity, then 0 * inf was NaN
      for _, na in ipairs { true, false } do
        local space = sinew.blendspace { mode = "grid", points = { { -0.5, 0 }, { -4, 6.3e-322 } }, normalize_axes = na }
        for _, p in ipairs { { -4, 0 }, { -0.5, 6.3e-322 }, { -2, 1 }, { 3, -3 } } do
          local w = space:weights(p[1], p[2])
          assert.is_true(w[1] >= 0 and w[2] >= 0 and near_abs(w[1] + w[2], 1, 1e-12))
        end
      end
    end)
  end)

  describe("mode 'idw'", function()
    it("weights by inverse distance to the power 'power'", function()
      for seed = 1, 10 do
        local rng = helper.rng(seed)
        local dims = 1 + seed % 3
        local power = seed % 2 == 0 and 4 or rng(0.5, 6)
        local pts = random_points(rng, 5, dims)
        local space = sinew.blendspace { mode = "idw", points = pts, power = seed % 2 == 0 and nil or power }
        for _ = 1, 10 do
          local p, r, sum = random_input(rng, dims, 2), {}, 0
          for i = 1, #pts do
            local d2 = 0
            for k = 1, dims do d2 = d2 + (p[k] - pts[i][k]) ^ 2 end
            r[i] = d2 ^ (-power / 2)
            sum = sum + r[i]
          end
          local w = weights_at(space, p)
          for i = 1, #pts do assert.is_true(near_abs(w[i], r[i] / sum, 1e-12)) end
        end
      end
    end)
  end)

  describe("mode 'direct'", function()
    it("passes the inputs through, negative ones as 0, normalised on request", function()
      local pts = { 1, 2, 3 }
      local plain = sinew.blendspace { mode = "direct", points = pts }
      local norm = sinew.blendspace { mode = "direct", points = pts, normalize = true }
      assert.equal(3, plain:dims())
      assert.same({ 0.5, 0, 2 }, plain:weights(0.5, -1, 2))
      local w = norm:weights(0.5, -1, 1.5)
      assert.is_true(near_abs(w[1], 0.25, 1e-15) and w[2] == 0 and near_abs(w[3], 0.75, 1e-15))
      assert.same({ 0, 0, 0 }, norm:weights(0, -1, 0))
    end)

    it("normalises subnormal and huge inputs to finite weights that sum to 1", function()
      -- found by fuzzing: 1 / (a subnormal sum) overflowed to an infinite weight
      local norm = sinew.blendspace { mode = "direct", points = { 1, 2, 3 }, normalize = true }
      for _, input in ipairs { { 5e-324, 0, 0 }, { 4e-320, 1e-320, 0 }, { 1e308, 1e308, 1e308 } } do
        local w = norm:weights(input[1], input[2], input[3])
        local sum = 0
        for i = 1, 3 do
          assert.is_true(w[i] >= 0 and w[i] <= 1)
          sum = sum + w[i]
        end
        assert.is_true(near_abs(sum, 1, 1e-12))
      end
      assert.is_true(near_abs(norm:weights(1e308, 1e308, 0)[1], 0.5, 1e-15))
    end)
  end)

  describe("the object", function()
    local space = sinew.blendspace { mode = "freeform_cartesian", points = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { -1, 0 } } }

    it("has a length, dims, points, a mode and a name", function()
      assert.equal(4, #space)
      assert.equal(2, space:dims())
      assert.same({ -1, 0 }, { space:point(4) })
      assert.equal("freeform_cartesian", space.mode)
      assert.equal("sinew.BlendSpace(freeform_cartesian, 4 points, 2-D)", tostring(space))
      assert.is_nil(space.nothing)
      assert.same({}, space:triangles())
    end)

    it("fills and returns the caller's table, or a new one", function()
      local out = { 9, 9, 9, 9, "kept" }
      assert.equal(out, space:weights(0.3, 0.2, out))
      assert.equal("kept", out[5])
      local w = space:weights(0.3, 0.2)
      assert.is_false(w == out)
      for i = 1, 4 do assert.equal(out[i], w[i]) end
      assert.same(w, space:weights(0.3, 0.2, nil))
    end)

    it("refuses a point index out of range", function()
      for _, i in ipairs { 0, 5, -1 } do
        local msg = helper.error_of(space.point, space, i)
        assert.is_truthy(msg:find(("point %d is out of range (1 .. 4)"):format(i), 1, true), msg)
      end
      assert.matches("point 2.5 is not an integer", helper.error_of(space.point, space, 2.5))
    end)
  end)

  describe("bad input", function()
    local function fails(def, text)
      local msg = helper.error_of(sinew.blendspace, def)
      assert.is_truthy(msg and msg:find(text, 1, true), ("expected '%s', got %s"):format(text, tostring(msg)))
    end
    local sq = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 } }

    it("is refused at construction with a clear message", function()
      fails(nil, "table expected")
      fails({ mode = "cartesain", points = sq }, "unknown mode 'cartesain'")
      fails({ points = sq }, "'mode' must be a string (got nil)")
      fails({ mode = "idw", points = sq, powr = 2 }, "unknown field 'powr' in the blend space definition")
      fails({ mode = "idw" }, "'points' must be a table (got nil)")
      fails({ mode = "idw", points = {} }, "no points")
      fails({ mode = "1d", points = { 1 } }, "mode '1d' needs at least 2 points (got 1)")
      fails({ mode = "triangulated", points = { { 1, 2 } } }, "needs at least 2 points")
      fails({ mode = "grid", points = { { 1, 2 } } }, "needs at least 2 points")
      fails({ mode = "simple_directional", points = { { 0, 0 }, { 1, 0 }, { 0, 1 } } },
        "needs at least 3 directions (got 2)")
      fails({ mode = "idw", points = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 0 } } }, "duplicate points 2 and 4")
      fails({ mode = "idw", points = { { 0, 0 }, { 1, 0, 2 } } }, "point 2 has 3 coordinates, point 1 has 2")
      fails({ mode = "idw", points = { { 0, 0 }, "x" } }, "point 2 must be a number or a list of numbers (got string)")
      fails({ mode = "idw", points = { { 0, 0 }, { 1, "y" } } }, "coordinate 2 of point 2 is not a number")
      fails({ mode = "idw", points = { { 0, 0 }, { 1, 0 / 0 } } }, "coordinate 2 of point 2 is not finite")
      fails({ mode = "idw", points = { { 0, 0 }, { math.huge, 0 } } }, "coordinate 1 of point 2 is not finite")
      fails({ mode = "idw", points = { {} } }, "point 1 has no coordinates")
      local many = {}
      for i = 1, 1025 do many[i] = i end
      fails({ mode = "1d", points = many }, "point count 1025 is out of range (1 .. 1024)")
      fails({ mode = "simple_directional", points = { { 1, 2, 3 } } }, "needs 2-D points (got 3-D)")
      fails({ mode = "triangulated", points = { { 1, 2, 3 }, { 0, 0, 0 } } },
        "dimension 3 is out of range (1 .. 2) for mode 'triangulated'")
      fails({ mode = "freeform_cartesian", points = { { 1, 2, 3, 4, 5, 6, 7, 8, 9 } } },
        "dimension 9 is out of range (1 .. 8) for mode 'freeform_cartesian'")
      fails({ mode = "idw", points = sq, power = 0 }, "option 'power' must be positive and finite (got 0)")
      fails({ mode = "idw", points = sq, power = -1 }, "option 'power' must be positive")
      fails({ mode = "idw", points = sq, power = "4" }, "option 'power' must be a number (got string)")
      fails({ mode = "freeform_directional", points = sq, alpha = 0 }, "option 'alpha' must be positive")
      fails({ mode = "grid", points = sq, grid = { 1, 5 } }, "option 'grid' 1x5 is out of range (2 .. 256 columns and rows)")
      fails({ mode = "grid", points = sq, grid = { 2.5, 5 } }, "option 'grid' must be {cols, rows}, two integers")
      fails({ mode = "grid", points = sq, grid = 4 }, "option 'grid' must be {cols, rows} (got number)")
      fails({ mode = "triangulated", points = sq, normalize_axes = 1 }, "option 'normalize_axes' must be a boolean")
      fails({ mode = "simple_directional", points = { { 1, 0 }, { 1, 0.01 }, { 0, 1 }, { -1, 0 }, { 0, -1 } } },
        "points 1 and 2 are less than 2 degrees apart in direction")
      fails({ mode = "simple_directional", points = { { 1, 0 }, { 0, 1 }, { -1, 0 } } },
        "a gap of 180 degrees between the directions of points 3 and 1")
      fails({ mode = "simple_directional", points = { { 1, 0 }, { 0, 1 }, { -1, 0.2 }, { 0.5, 0.5 } } }, "a gap of")
    end)

    it("is refused at evaluation with a clear message", function()
      local space = sinew.blendspace { mode = "idw", points = sq }
      local function fails_eval(text, ...)
        local msg = helper.error_of(space.weights, space, ...)
        assert.is_truthy(msg and msg:find(text, 1, true), ("expected '%s', got %s"):format(text, tostring(msg)))
      end
      fails_eval("wrong number of coordinates: expected 2, got 1", 1)
      fails_eval("wrong number of coordinates: expected 2, got 3", 1, 2, 3)
      fails_eval("wrong number of coordinates: expected 2, got 1", 1, {})
      fails_eval("wrong number of coordinates: expected 2, got 0")
      fails_eval("not a finite number", 1, 0 / 0)
      fails_eval("not a finite number", math.huge, 1)
      fails_eval("'out' must be a table (got string)", 1, 2, "out")
      fails_eval("number expected", 1, "x", {})
      local msg = helper.error_of(space.weights, {}, 1, 2)
      assert.is_truthy(msg and msg:find("sinew.BlendSpace expected", 1, true), msg)
    end)
  end)

  describe("methods and metamethods called with a wrong self", function()
    it("raise an error, whatever the metatable of what they get", function()
      local space = sinew.blendspace { mode = "1d", points = { 0, 1 } }
      local grid = sinew.blendspace { mode = "grid", points = { { 0, 0 }, { 1, 0 }, { 0, 1 } } }
      local mt = getmetatable(space)
      -- a userdata of another kind whose metatable got every key of a blend space's metatable
      local file_mt = getmetatable(io.stdout)
      local added = {}
      for k, v in pairs(mt) do
        if file_mt[k] == nil then file_mt[k] = v; added[#added + 1] = k end
      end
      local wrong = { io.stdout, {}, 1, sinew.skeleton { names = { "a" }, parents = { 0 } } }
      for _, f in ipairs({ mt.__len, mt.__tostring, mt.__index.weights, mt.__index.point, mt.__index.dims,
        mt.__index.triangles }) do
        for _, w in ipairs(wrong) do
          assert.matches("sinew.BlendSpace expected", helper.error_of(f, w, 0.5, {}))
        end
      end
      for _, k in ipairs(added) do file_mt[k] = nil end
      -- a method taken from one mode's metatable works on a space of another mode
      assert.equal(2, mt.__index.dims(grid))
    end)
  end)
end)
