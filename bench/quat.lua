-- Figures of sinew.quat: ns per call of every function beside the same work in plain Lua (written
-- as a careful LuaJIT programmer would: locals, no tables), their ratio, and garbage per call;
-- then blend with 4 inputs. On LuaJIT sinew takes its FFI path (sinew.path), on Lua 5.4 the C API.
local sinew = require "sinew"
local bench = require "common"
local quat = sinew.quat

local sqrt, sin, cos, acos, abs = math.sqrt, math.sin, math.cos, math.acos, math.abs
local atan2 = math.atan2 or math.atan
local exp, log = math.exp, math.log

-- ---- plain Lua ---------------------------------------------------------------------------
local P = {}
function P.mul(ax, ay, az, aw, bx, by, bz, bw)
  return aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
         aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz
end
function P.conj(x, y, z, w) return -x, -y, -z, w end
function P.inverse(x, y, z, w)
  local d = x * x + y * y + z * z + w * w
  return -x / d, -y / d, -z / d, w / d
end
function P.normalize(x, y, z, w)
  local l = sqrt(x * x + y * y + z * z + w * w)
  return x / l, y / l, z / l, w / l
end
function P.dot(ax, ay, az, aw, bx, by, bz, bw) return ax * bx + ay * by + az * bz + aw * bw end
function P.length(x, y, z, w) return sqrt(x * x + y * y + z * z + w * w) end
function P.rotate(qx, qy, qz, qw, x, y, z)
  local tx, ty, tz = 2 * (qy * z - qz * y), 2 * (qz * x - qx * z), 2 * (qx * y - qy * x)
  return x + qw * tx + (qy * tz - qz * ty), y + qw * ty + (qz * tx - qx * tz), z + qw * tz + (qx * ty - qy * tx)
end
function P.from_axis_angle(x, y, z, a)
  local l = sqrt(x * x + y * y + z * z)
  local s = sin(0.5 * a) / l
  return x * s, y * s, z * s, cos(0.5 * a)
end
function P.to_axis_angle(x, y, z, w)
  local s = sqrt(x * x + y * y + z * z)
  if s < 1e-12 then return 1, 0, 0, 0 end
  return x / s, y / s, z / s, 2 * atan2(s, w)
end
function P.from_euler(x, y, z) -- "XYZ": qz * qy * qx
  local cx, sx, cy, sy, cz, sz = cos(0.5 * x), sin(0.5 * x), cos(0.5 * y), sin(0.5 * y), cos(0.5 * z), sin(0.5 * z)
  return sx * cy * cz - cx * sy * sz, cx * sy * cz + sx * cy * sz, cx * cy * sz - sx * sy * cz, cx * cy * cz + sx * sy * sz
end
function P.from_to(ux, uy, uz, vx, vy, vz)
  local lu, lv = sqrt(ux * ux + uy * uy + uz * uz), sqrt(vx * vx + vy * vy + vz * vz)
  ux, uy, uz, vx, vy, vz = ux / lu, uy / lu, uz / lu, vx / lv, vy / lv, vz / lv
  local x, y, z, w = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx, 1 + ux * vx + uy * vy + uz * vz
  local l = sqrt(x * x + y * y + z * z + w * w)
  return x / l, y / l, z / l, w / l
end
function P.angle(ax, ay, az, aw, bx, by, bz, bw)
  local d = abs(ax * bx + ay * by + az * bz + aw * bw)
  return 2 * acos(d > 1 and 1 or d)
end
function P.log(x, y, z, w)
  local s = sqrt(x * x + y * y + z * z)
  local l = sqrt(s * s + w * w)
  local k = s > 1e-12 and atan2(s, w) / s or 1 / l
  return x * k, y * k, z * k, log(l)
end
function P.exp(x, y, z, w)
  local s = sqrt(x * x + y * y + z * z)
  local e = exp(w)
  local k = s > 1e-12 and e * sin(s) / s or e
  return x * k, y * k, z * k, e * cos(s)
end
function P.pow(x, y, z, w, e)
  local lx, ly, lz, lw = P.log(x, y, z, w)
  return P.exp(lx * e, ly * e, lz * e, lw * e)
end
function P.slerp(ax, ay, az, aw, bx, by, bz, bw, t)
  local d = ax * bx + ay * by + az * bz + aw * bw
  if d < 0 then bx, by, bz, bw, d = -bx, -by, -bz, -bw, -d end
  local k0, k1 = 1 - t, t
  if d < 0.9995 then
    local th = acos(d)
    local s = sin(th)
    k0, k1 = sin((1 - t) * th) / s, sin(t * th) / s
  end
  local x, y, z, w = k0 * ax + k1 * bx, k0 * ay + k1 * by, k0 * az + k1 * bz, k0 * aw + k1 * bw
  local l = sqrt(x * x + y * y + z * z + w * w)
  return x / l, y / l, z / l, w / l
end
function P.nlerp(ax, ay, az, aw, bx, by, bz, bw, t)
  if ax * bx + ay * by + az * bz + aw * bw < 0 then bx, by, bz, bw = -bx, -by, -bz, -bw end
  local x, y, z, w = ax + t * (bx - ax), ay + t * (by - ay), az + t * (bz - az), aw + t * (bw - aw)
  local l = sqrt(x * x + y * y + z * z + w * w)
  return x / l, y / l, z / l, w / l
end

-- The same contract as sinew where the plain versions above do less: they take unit inputs as
-- unit, and angle's acos loses up to 3e-8 rad near 0. These normalise their inputs (one
-- reciprocal square root each) and measure the angle without cancellation, as sinew does
-- (slerp's acos keeps its loss near 0: only the normalisation is added there).
local SAME = {}
local function unit(x, y, z, w)
  local k = 1 / sqrt(x * x + y * y + z * z + w * w)
  return x * k, y * k, z * k, w * k
end
function SAME.rotate(qx, qy, qz, qw, x, y, z)
  qx, qy, qz, qw = unit(qx, qy, qz, qw)
  return P.rotate(qx, qy, qz, qw, x, y, z)
end
function SAME.nlerp(ax, ay, az, aw, bx, by, bz, bw, t)
  ax, ay, az, aw = unit(ax, ay, az, aw)
  bx, by, bz, bw = unit(bx, by, bz, bw)
  return P.nlerp(ax, ay, az, aw, bx, by, bz, bw, t)
end
function SAME.slerp(ax, ay, az, aw, bx, by, bz, bw, t)
  ax, ay, az, aw = unit(ax, ay, az, aw)
  bx, by, bz, bw = unit(bx, by, bz, bw)
  return P.slerp(ax, ay, az, aw, bx, by, bz, bw, t)
end
function SAME.angle(ax, ay, az, aw, bx, by, bz, bw)
  ax, ay, az, aw = unit(ax, ay, az, aw)
  bx, by, bz, bw = unit(bx, by, bz, bw)
  if ax * bx + ay * by + az * bz + aw * bw < 0 then bx, by, bz, bw = -bx, -by, -bz, -bw end
  local dx, dy, dz, dw = ax - bx, ay - by, az - bz, aw - bw
  return 4 * math.asin(0.5 * sqrt(dx * dx + dy * dy + dz * dz + dw * dw))
end

-- ---- the calls: the same arguments for both, varied a little every call ---------------------
local n = 200000
local bx, by, bz, bw = quat.from_axis_angle(0.3, 1, 0.2, 1.1)
local args = {
  mul = { 0.1, 0.2, 0.3, 0.9, bx, by, bz, bw }, conj = { bx, by, bz, bw }, inverse = { bx, by, bz, bw },
  normalize = { 0.1, 0.2, 0.3, 0.9 }, dot = { 0.1, 0.2, 0.3, 0.9, bx, by, bz, bw }, length = { 0.1, 0.2, 0.3, 0.9 },
  rotate = { bx, by, bz, bw, 0.3, -1.2, 2.0 }, from_axis_angle = { 0.3, 1, 0.2, 1.1 },
  to_axis_angle = { bx, by, bz, bw }, from_euler = { 0.2, -0.4, 0.9, "XYZ" }, from_to = { 1, 0.2, 0, 0.1, 1, 0.3 },
  angle = { 0, 0, 0, 1, bx, by, bz, bw }, log = { bx, by, bz, bw }, exp = { 0.1, 0.2, 0.3, 0.1 },
  pow = { bx, by, bz, bw, 0.37 }, slerp = { 0, 0, 0, 1, bx, by, bz, bw, 0.37 }, nlerp = { 0, 0, 0, 1, bx, by, bz, bw, 0.37 },
}
local order = { "mul", "conj", "inverse", "normalize", "dot", "length", "rotate", "from_axis_angle", "to_axis_angle",
                "from_euler", "from_to", "angle", "log", "exp", "pow", "slerp", "nlerp" }

-- a timed closure calling f with the arguments, the last number moved a little each call,
-- adding up every result so that the JIT cannot drop the work of either side. Each closure is
-- compiled from its own source: LuaJIT's traces belong to a function's code and specialise on
-- the function it calls, so closures sharing code would slow whichever side runs second.
local sink = { 0 }
local load = loadstring or load
local function caller(f, a)
  local list, last = {}, #a
  while type(a[last]) ~= "number" do last = last - 1 end
  for i = 1, #a do
    list[i] = i == last and ("a[%d] + k"):format(i) or (type(a[i]) == "string" and ("%q"):format(a[i]) or ("a[%d]"):format(i))
  end
  local src = ([[
local f, a, sink = ...
local k = 0
local function add(x, y, z, w) sink[1] = sink[1] + x + (y or 0) + (z or 0) + (w or 0) end
return function() k = k + 1e-9; add(f(%s)) end]]):format(table.concat(list, ", "))
  local numbers = {}
  for i = 1, #a do numbers[i] = a[i] end
  return load(src)(f, numbers, sink)
end

local slower, slower_same = 0, 0
for _, name in ipairs(order) do
  local s = bench.ns_per_call(caller(quat[name], args[name]), n)
  local p = bench.ns_per_call(caller(P[name], args[name]), n)
  bench.report(("quat.%s (%s; plain Lua %.1f ns)"):format(name, sinew.path, p), s, "ns/call")
  bench.report(("quat.%s / plain Lua (target 1 or less)"):format(name), s / p, "x")
  if s > p then slower = slower + 1 end
  if SAME[name] then
    local q = bench.ns_per_call(caller(SAME[name], args[name]), n)
    bench.report(("quat.%s / plain Lua normalising its inputs as sinew does (%.1f ns)"):format(name, q), s / q, "x")
    if s > q then slower_same = slower_same + 1 end
  elseif s > p then
    slower_same = slower_same + 1
  end
end
bench.report("quat functions slower than plain Lua", slower, ("of %d"):format(#order))
bench.report("the same, against plain Lua of the same contract", slower_same, ("of %d"):format(#order))
assert(sink[1] == sink[1], "the results are numbers")
bench.report("quat.slerp garbage", bench.garbage_per_call(caller(quat.slerp, args.slerp), n), "bytes/call")

local qs = {}
for i = 1, 4 do
  qs[4 * i - 3], qs[4 * i - 2], qs[4 * i - 1], qs[4 * i] = quat.from_euler(0.2 * i, -0.1 * i, 0.3, "XYZ")
end
local ws = { 0.1, 0.2, 0.3, 0.4 }
for _, m in ipairs { "nlerp", "karcher", "markley", "power" } do
  local per = m == "karcher" and n / 10 or n
  bench.report("quat.blend 4 inputs, " .. m, bench.ns_per_call(function() quat.blend(qs, ws, m) end, per), "ns/call")
  bench.report("quat.blend 4 inputs, " .. m .. " garbage",
    bench.garbage_per_call(function() quat.blend(qs, ws, m) end, per), "bytes/call")
end
