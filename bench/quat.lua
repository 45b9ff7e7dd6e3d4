-- Figures of sinew.quat: ns per call of the per-frame functions (slerp, nlerp, mul, rotate,
-- normalize) and of blend with 4 inputs, and garbage per call.
local sinew = require "sinew"
local bench = require "common"
local quat = sinew.quat

local n = 200000
local bx, by, bz, bw = quat.from_axis_angle(0.3, 1, 0.2, 1.1)
local calls = {
  { "quat.slerp", function() quat.slerp(0, 0, 0, 1, bx, by, bz, bw, 0.37) end },
  { "quat.nlerp", function() quat.nlerp(0, 0, 0, 1, bx, by, bz, bw, 0.37) end },
  { "quat.mul", function() quat.mul(0.1, 0.2, 0.3, 0.9, bx, by, bz, bw) end },
  { "quat.rotate", function() quat.rotate(bx, by, bz, bw, 0.3, -1.2, 2.0) end },
  { "quat.normalize", function() quat.normalize(0.1, 0.2, 0.3, 0.9) end },
}
for _, c in ipairs(calls) do
  bench.report(c[1], bench.ns_per_call(c[2], n), "ns/call")
end
bench.report("quat.slerp garbage", bench.garbage_per_call(calls[1][2], n), "bytes/call")

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
