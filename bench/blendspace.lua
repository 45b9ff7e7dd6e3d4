-- Figures of sinew.blendspace: ns per space:weights(x, y, out) for every 2-D mode with 9 points and
-- freeform_cartesian with 32 and 128 points, the same algorithms in plain Lua timed in the same
-- run (with the same precomputation), their ratio, and the garbage per evaluation.
local sinew = require "sinew"
local bench = require "common"

local atan2 = math.atan2 or math.atan
local sqrt, floor, pi = math.sqrt, math.floor, math.pi

-- ---- plain-Lua versions: a constructor doing the precomputation, returning weights(x, y, out) ----

local function plain_simple_directional(pts)
  local n, centre, ang, idx = #pts, nil, {}, {}
  for i, p in ipairs(pts) do
    if p[1] == 0 and p[2] == 0 then centre = i else
      local a, j = atan2(p[2], p[1]), #ang + 1
      while j > 1 and ang[j - 1] > a do ang[j], idx[j] = ang[j - 1], idx[j - 1]; j = j - 1 end
      ang[j], idx[j] = a, i
    end
  end
  local m = #ang
  return function(x, y, w)
    for i = 1, n do w[i] = 0 end
    if x == 0 and y == 0 then
      if centre then w[centre] = 1 else for i = 1, n do w[i] = 1 / n end end
      return w
    end
    local th, lo = atan2(y, x), 1
    if th < ang[1] then lo = m else
      local hi = m + 1
      while hi - lo > 1 do
        local mid = floor((lo + hi) / 2)
        if ang[mid] <= th then lo = mid else hi = mid end
      end
    end
    local ia, ib = idx[lo], idx[lo % m + 1]
    local a, b = pts[ia], pts[ib]
    local det = a[1] * b[2] - a[2] * b[1]
    local wa, wb = (b[2] * x - b[1] * y) / det, (a[1] * y - a[2] * x) / det
    if wa < 0 then wa = 0 end
    if wb < 0 then wb = 0 end
    local c = 1 - wa - wb
    if c < 0 then wa, wb, c = wa / (wa + wb), wb / (wa + wb), 0 elseif c > 1 then wa, wb, c = 0, 0, 1 end
    w[ia], w[ib] = w[ia] + wa, w[ib] + wb
    if centre then w[centre] = w[centre] + c else for i = 1, n do w[i] = w[i] + c / n end end
    return w
  end
end

local function plain_freeform_cartesian(pts)
  local n, vx, vy = #pts, {}, {} -- (p_j - p_i) / |p_j - p_i|^2 per ordered pair, row by row
  for i = 1, n do
    for j = 1, n do
      if j ~= i then
        local dx, dy = pts[j][1] - pts[i][1], pts[j][2] - pts[i][2]
        local dd = dx * dx + dy * dy
        vx[#vx + 1], vy[#vy + 1] = dx / dd, dy / dd
      end
    end
  end
  return function(x, y, w)
    local sum, k = 0, 0
    for i = 1, n do
      local rx, ry, h = x - pts[i][1], y - pts[i][2], 1
      for j = k + 1, k + n - 1 do
        local t = 1 - (rx * vx[j] + ry * vy[j])
        if t < h then h = t; if h <= 0 then break end end
      end
      k = k + n - 1
      if h < 0 then h = 0 end
      w[i] = h
      sum = sum + h
    end
    for i = 1, n do w[i] = w[i] / sum end
    return w
  end
end

local function signed_angle(ax, ay, bx, by)
  if (ax == 0 and ay == 0) or (bx == 0 and by == 0) then return 0 end
  local t = atan2(ax * by - ay * bx, ax * bx + ay * by)
  return t == -pi and pi or t
end

local function plain_freeform_directional(pts, alpha)
  local n, len, inv, centre, th, ca, cb = #pts, {}, {}, nil, {}, {}, {}
  for i, p in ipairs(pts) do
    len[i] = sqrt(p[1] * p[1] + p[2] * p[2])
    inv[i] = len[i] > 0 and 1 / len[i] or 0
    if len[i] == 0 then centre = i end
  end
  for i = 1, n do
    for j = 1, n do
      local k = (i - 1) * n + j
      th[k], ca[k], cb[k] = 0, 0, 0
      if i ~= j and len[i] > 0 and len[j] > 0 then
        local t = signed_angle(pts[i][1], pts[i][2], pts[j][1], pts[j][2])
        local m = (len[i] + len[j]) / 2
        local vr = (len[j] - len[i]) / m
        local nsq = alpha * alpha * t * t + vr * vr
        th[k], ca[k], cb[k] = t, alpha * alpha * t / nsq, vr / (m * nsq)
      end
    end
  end
  return function(x, y, w)
    local plen, sum, hc = sqrt(x * x + y * y), 0, 1
    local origin = plen == 0
    for i = 1, n do w[i] = signed_angle(pts[i][1], pts[i][2], x, y) end
    if centre and not origin then
      for j = 1, n do
        if j ~= centre then
          local t = 1 - 4 * plen * inv[j] / (w[j] * w[j] + 4)
          if t < hc then hc = t end
        end
      end
    end
    for i = 1, n do
      local h = 1
      if i == centre then h = hc else
        local a, dr, row = w[i], plen - len[i], (i - 1) * n
        for j = 1, n do
          if j ~= i then
            local t
            if j == centre then t = 4 * plen * inv[i] / (a * a + 4)
            else
              local k = row + j
              t = 1 - (origin and th[k] or a) * ca[k] - dr * cb[k]
            end
            if t < h then h = t; if h <= 0 then break end end
          end
        end
      end
      if h < 0 then h = 0 end
      w[i] = h
      sum = sum + h
    end
    for i = 1, n do w[i] = sum > 0 and w[i] / sum or 1 / n end
    return w
  end
end

local function plain_triangulated(pts, tris)
  -- normalised space, affine maps of the triangles and the hull edges, as the C core keeps them
  local n, lo, sc = #pts, {}, {}
  for k = 1, 2 do
    local a, b = math.huge, -math.huge
    for _, p in ipairs(pts) do a, b = math.min(a, p[k]), math.max(b, p[k]) end
    lo[k], sc[k] = a, b > a and 1 / (b - a) or 1
  end
  local u = {}
  for i, p in ipairs(pts) do u[i] = { (p[1] - lo[1]) * sc[1], (p[2] - lo[2]) * sc[2] } end
  local maps, edges, seen = {}, {}, {}
  for t, v in ipairs(tris) do
    local a, b, c = u[v[1]], u[v[2]], u[v[3]]
    local e1x, e1y, e2x, e2y = b[1] - a[1], b[2] - a[2], c[1] - a[1], c[2] - a[2]
    local det = e1x * e2y - e1y * e2x
    maps[t] = { a[1], a[2], e2y / det, -e2x / det, -e1y / det, e1x / det, v[1], v[2], v[3] }
    for k = 1, 3 do seen[v[k] .. ":" .. v[k % 3 + 1]] = true end
  end
  for _, v in ipairs(tris) do
    for k = 1, 3 do
      local a, b = v[k], v[k % 3 + 1]
      if not seen[b .. ":" .. a] then
        local dx, dy = u[b][1] - u[a][1], u[b][2] - u[a][2]
        edges[#edges + 1] = { u[a][1], u[a][2], dx, dy, 1 / (dx * dx + dy * dy), a, b }
      end
    end
  end
  local tol = 1e-12
  return function(x, y, w)
    for i = 1, n do w[i] = 0 end
    local ux, uy = (x - lo[1]) * sc[1], (y - lo[2]) * sc[2]
    for t = 1, #maps do
      local m = maps[t]
      local rx, ry = ux - m[1], uy - m[2]
      local l1, l2 = rx * m[3] + ry * m[4], rx * m[5] + ry * m[6]
      local l0 = 1 - l1 - l2
      if l0 >= -tol and l1 >= -tol and l2 >= -tol then
        if l0 < 0 then l0 = 0 end
        if l1 < 0 then l1 = 0 end
        if l2 < 0 then l2 = 0 end
        local s = l0 + l1 + l2
        w[m[7]], w[m[8]], w[m[9]] = l0 / s, l1 / s, l2 / s
        return w
      end
    end
    local best, be, bf = math.huge, nil, 0
    for e = 1, #edges do
      local m = edges[e]
      local rx, ry = ux - m[1], uy - m[2]
      local f = (rx * m[3] + ry * m[4]) * m[5]
      if f < 0 then f = 0 elseif f > 1 then f = 1 end
      local dx, dy = rx - f * m[3], ry - f * m[4]
      local d2 = dx * dx + dy * dy
      if d2 < best then best, be, bf = d2, m, f end
    end
    w[be[6]], w[be[7]] = 1 - bf, bf
    return w
  end
end

local function plain_grid(pts, cols, rows, space)
  -- the table comes from the C space's weights at the grid points (construction, not timed)
  local n, lo, hi, table_ = #pts, { math.huge, math.huge }, { -math.huge, -math.huge }, {}
  for _, p in ipairs(pts) do
    for k = 1, 2 do lo[k], hi[k] = math.min(lo[k], p[k]), math.max(hi[k], p[k]) end
  end
  for r = 0, rows - 1 do
    for c = 0, cols - 1 do
      local x = c == cols - 1 and hi[1] or lo[1] + c * (hi[1] - lo[1]) / (cols - 1)
      local y = r == rows - 1 and hi[2] or lo[2] + r * (hi[2] - lo[2]) / (rows - 1)
      local w = space:weights(x, y)
      for i = 1, n do table_[(r * cols + c) * n + i] = w[i] end
    end
  end
  local sx, sy = (cols - 1) / (hi[1] - lo[1]), (rows - 1) / (hi[2] - lo[2])
  return function(x, y, w)
    if x < lo[1] then x = lo[1] elseif x > hi[1] then x = hi[1] end
    if y < lo[2] then y = lo[2] elseif y > hi[2] then y = hi[2] end
    local gx, gy = (x - lo[1]) * sx, (y - lo[2]) * sy
    local cx, cy = floor(gx), floor(gy)
    if cx > cols - 2 then cx = cols - 2 end
    if cy > rows - 2 then cy = rows - 2 end
    local fx, fy = gx - cx, gy - cy
    local r00 = (cy * cols + cx) * n
    local r10, r01 = r00 + n, r00 + cols * n
    local r11 = r01 + n
    for i = 1, n do
      local a = table_[r00 + i] + fx * (table_[r10 + i] - table_[r00 + i])
      local b = table_[r01 + i] + fx * (table_[r11 + i] - table_[r01 + i])
      local v = a + fy * (b - a)
      w[i] = v > 0 and v or 0
    end
    return w
  end
end

local function plain_idw(pts, power)
  local n, e = #pts, power / 2
  return function(x, y, w)
    local nearest = 1
    for i = 1, n do
      local dx, dy = x - pts[i][1], y - pts[i][2]
      w[i] = dx * dx + dy * dy
      if w[i] < w[nearest] then nearest = i end
    end
    local least, sum = w[nearest], 0
    if least == 0 then
      for i = 1, n do w[i] = 0 end
      w[nearest] = 1
      return w
    end
    for i = 1, n do
      local r = least / w[i]
      w[i] = e == 2 and r * r or r ^ e
      sum = sum + w[i]
    end
    for i = 1, n do w[i] = w[i] / sum end
    return w
  end
end

-- ---- the spaces ----

local nine = { { 0, 0 } } -- a centre and eight directions at radii 1 and 2
for k = 0, 7 do
  local r, a = k % 2 == 0 and 1 or 2, k * pi / 4
  nine[#nine + 1] = { r * math.cos(a), r * math.sin(a) }
end

local function random_points(n, seed)
  local s, pts = seed, {}
  local function rnd()
    s = (s * 16807) % 2147483647
    return 2 * s / 2147483647 - 1
  end
  for i = 1, n do pts[i] = { 2 * rnd(), 2 * rnd() } end
  return pts
end

local inputs = {} -- 64 inputs cycled through, inside and outside the points' range
for i = 1, 64 do
  local a, r = i * 2.399963, 2.6 * sqrt(i / 64)
  inputs[i] = { r * math.cos(a), r * math.sin(a) }
end

local cases = {
  { "simple_directional", nine, plain_simple_directional },
  { "freeform_cartesian", nine, plain_freeform_cartesian },
  { "freeform_directional", nine, function(p) return plain_freeform_directional(p, 2) end },
  { "triangulated", nine, function(p, s) return plain_triangulated(p, s:triangles()) end },
  { "grid", nine, function(p) return plain_grid(p, 5, 5, sinew.blendspace { mode = "triangulated", points = p }) end,
    { grid = { 5, 5 } } },
  { "idw", nine, function(p) return plain_idw(p, 4) end },
  { "freeform_cartesian", random_points(32, 7), plain_freeform_cartesian },
  { "freeform_cartesian", random_points(128, 11), plain_freeform_cartesian },
}

-- ns per call, with the number of calls grown until a round takes at least 0.05 s
local function time(fn)
  local n = 100
  while true do
    local t0 = os.clock()
    for _ = 1, n do fn() end
    if os.clock() - t0 > 0.05 then break end
    n = n * 4
  end
  return bench.ns_per_call(fn, n)
end

for _, case in ipairs(cases) do
  local mode, pts, make_plain, options = case[1], case[2], case[3], case[4] or {}
  local def = { mode = mode, points = pts }
  for k, v in pairs(options) do def[k] = v end
  local space = sinew.blendspace(def)
  local plain = make_plain(pts, space)
  local out, lout, i = {}, {}, 0
  local worst = 0
  for _, p in ipairs(inputs) do -- the plain version computes the same weights
    local a, b = space:weights(p[1], p[2], out), plain(p[1], p[2], lout)
    for k = 1, #pts do worst = math.max(worst, math.abs(a[k] - b[k])) end
  end
  assert(worst < 1e-9, mode .. ": the plain Lua version disagrees with the C module")
  local label = ("blendspace %s, %d points"):format(mode, #pts)
  local c = time(function()
    i = i % 64 + 1
    space:weights(inputs[i][1], inputs[i][2], out)
  end)
  local l = time(function()
    i = i % 64 + 1
    plain(inputs[i][1], inputs[i][2], lout)
  end)
  bench.report(label .. ", weights(x, y, out)", c, "ns/call")
  bench.report(label .. ", plain Lua", l, "ns/call")
  bench.report(label .. ", plain Lua / C", l / c, "x")
  bench.report(label .. ", garbage", bench.garbage_per_call(function()
    i = i % 64 + 1
    space:weights(inputs[i][1], inputs[i][2], out)
  end, 20000), "bytes/call")
end
