-- Figures of skeletons, poses and clips from Lua: ns per sinew.blend of 4 layers x 64 joints
-- beside the same blend written in plain Lua (same run, with the ratio), clip sampling,
-- model-space matrices, and garbage per call of each.
local sinew = require "sinew"
local bench = require "common"

local JOINTS, LAYERS = 64, 4

-- a deterministic generator, the same on every Lua (see spec/helper.lua)
local seed = 4242
local function rnd(lo, hi)
  seed = (seed * 16807) % 2147483647
  return lo + (hi - lo) * (seed - 1) / 2147483646
end

local function random_trs()
  local qx, qy, qz, qw = rnd(-1, 1), rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)
  local l = math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
  return rnd(-1, 1), rnd(-1, 1), rnd(-1, 1), qx / l, qy / l, qz / l, qw / l, rnd(0.5, 1.5), rnd(0.5, 1.5), rnd(0.5, 1.5)
end

local names, parents = {}, {}
for j = 1, JOINTS do
  names[j] = "joint" .. j
  parents[j] = j == 1 and 0 or math.floor(rnd(1, j - 0.001))
end
local skel = sinew.skeleton { names = names, parents = parents }

-- the layers as poses, and as flat Lua arrays of 10 numbers per joint for the plain-Lua blend
local poses, flats, weights = {}, {}, {}
for i = 1, LAYERS do
  poses[i], flats[i], weights[i] = sinew.pose(skel), {}, 1
  for j = 1, JOINTS do
    local v = { random_trs() }
    poses[i]:set(j, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10])
    for c = 1, 10 do flats[i][10 * (j - 1) + c] = v[c] end
  end
end
local out, lua_out = sinew.pose(skel), {}
for k = 1, 10 * JOINTS do lua_out[k] = 0 end

-- the same blend in plain Lua: weighted means, rotations aligned to the sum so far, normalised
local sqrt = math.sqrt
local function lua_blend(dst, layers, ws)
  local n, total = #layers, 0
  for i = 1, n do total = total + ws[i] end
  for j = 0, JOINTS - 1 do
    local b = 10 * j
    local tx, ty, tz, qx, qy, qz, qw, sx, sy, sz = 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    for i = 1, n do
      local p, w = layers[i], ws[i] / total
      tx, ty, tz = tx + w * p[b + 1], ty + w * p[b + 2], tz + w * p[b + 3]
      local x, y, z, v = p[b + 4], p[b + 5], p[b + 6], p[b + 7]
      if qx * x + qy * y + qz * z + qw * v < 0 then w = -w end
      qx, qy, qz, qw = qx + w * x, qy + w * y, qz + w * z, qw + w * v
      w = ws[i] / total
      sx, sy, sz = sx + w * p[b + 8], sy + w * p[b + 9], sz + w * p[b + 10]
    end
    local k = 1 / sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
    dst[b + 1], dst[b + 2], dst[b + 3] = tx, ty, tz
    dst[b + 4], dst[b + 5], dst[b + 6], dst[b + 7] = qx * k, qy * k, qz * k, qw * k
    dst[b + 8], dst[b + 9], dst[b + 10] = sx, sy, sz
  end
end

print(("%-7s (ozz-animation 0.16.0 figures quoted in brackets are the issue's reference numbers, not measured here)")
  :format(bench.interpreter))
local n = 50000
local function blend_call() sinew.blend(out, poses, weights) end
local function lua_call() lua_blend(lua_out, flats, weights) end
local t_c = bench.ns_per_call(blend_call, n)
local t_lua = bench.ns_per_call(lua_call, n / 50)
bench.report(("sinew.blend %d layers x %d joints"):format(LAYERS, JOINTS), t_c, "ns/call")
bench.report("sinew.blend garbage", bench.garbage_per_call(blend_call, n), "bytes/call")
bench.report(("the same blend in plain Lua"):format(), t_lua, "ns/call")
bench.report("plain Lua / sinew.blend", t_lua / t_c, "x")

-- a clip with linear translation, rotation and scale tracks on every joint, 30 keys per second
local KEYS = 31
local times = {}
for k = 1, KEYS do times[k] = (k - 1) / (KEYS - 1) end
local tracks = {}
for j = 1, JOINTS do
  local tv, rv, sv = {}, {}, {}
  for _ = 1, KEYS do
    local v = { random_trs() }
    for c = 1, 3 do tv[#tv + 1] = v[c] end
    for c = 4, 7 do rv[#rv + 1] = v[c] end
    for c = 8, 10 do sv[#sv + 1] = v[c] end
  end
  tracks[#tracks + 1] = { joint = j, path = "translation", times = times, values = tv }
  tracks[#tracks + 1] = { joint = j, path = "rotation", times = times, values = rv }
  tracks[#tracks + 1] = { joint = j, path = "scale", times = times, values = sv }
end
local clip = sinew.clip { skeleton = skel, tracks = tracks }
local t = 0
local function sample_call()
  clip:sample(t, out)
  t = t + 1 / 60
end
local t_s = bench.ns_per_call(sample_call, n)
bench.report(("clip:sample T+R+S x %d joints, forward 60 Hz"):format(JOINTS), t_s, "ns/call")
bench.report("clip:sample per joint [ozz 2.1-2.6, C]", t_s / JOINTS, "ns/joint")
bench.report("clip:sample garbage", bench.garbage_per_call(sample_call, n), "bytes/call")

local mats = sinew.matrices(skel)
local function model_call() out:to_model(mats) end
bench.report(("pose:to_model %d joints"):format(JOINTS), bench.ns_per_call(model_call, n), "ns/call")
bench.report("pose:to_model garbage", bench.garbage_per_call(model_call, n), "bytes/call")
local function get_call() mats:get(7) end
bench.report("mats:get(i) garbage", bench.garbage_per_call(get_call, n), "bytes/call")
local delta = sinew.delta(sinew.pose(skel), poses[2], poses[1])
local sign = 1
local function add_call() -- +0.5 then -0.5: the scales come back, however many calls
  sign = -sign
  out:add(delta, 0.5 * sign)
end
bench.report(("pose:add %d joints (additive layer)"):format(JOINTS), bench.ns_per_call(add_call, n / 10), "ns/call")
