-- Figures of skeletons, poses and clips from Lua: ns per call of sinew.blend (4 layers x 64
-- joints), clip:sample, pose:to_model and pose:add, each beside the same work written in plain Lua
-- as a careful LuaJIT programmer would (flat arrays of numbers, locals, no table or closure per
-- call; checked once against sinew's result before timing), with the ratio plain / sinew measured
-- in the same run, and garbage per call. Issue 15's target: 2 or more wherever the plain version
-- takes more than 200 ns.
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

-- Checks once, before timing, that a plain-Lua result agrees with sinew's to float32 storage:
-- `got` holds sinew's `count` numbers for joint j, `want` the plain ones from want[base + 1].
local TOLERANCE = 1e-4
local function agree(what, j, got, want, base, count)
  for c = 1, count do
    local a, b = got[c], want[base + c]
    assert(math.abs(a - b) <= TOLERANCE * math.max(1, math.abs(a)),
      ("%s: joint %d, number %d: sinew %.9g, plain Lua %.9g"):format(what, j, c, a, b))
  end
end

-- the plain version's time and the ratio plain / sinew, with the issue's target where it applies
local function against_plain(what, t_sinew, t_plain)
  bench.report(("the same as %s, in plain Lua"):format(what), t_plain, "ns/call")
  bench.report(("plain Lua / %s (%s)"):format(what, t_plain > 200 and "target 2 or more" or "plain under 200 ns"),
    t_plain / t_sinew, "x")
end

print(("%-7s (ozz-animation 0.16.0 figures quoted in brackets are the issue's reference numbers, not measured here)")
  :format(bench.interpreter))
local n = 50000
local function blend_call() sinew.blend(out, poses, weights) end
local function lua_call() lua_blend(lua_out, flats, weights) end
blend_call()
lua_call()
for j = 1, JOINTS do agree("sinew.blend", j, { out:get(j) }, lua_out, 10 * (j - 1), 10) end
local t_c = bench.ns_per_call(blend_call, n)
local t_lua = bench.ns_per_call(lua_call, n / 50)
bench.report(("sinew.blend %d layers x %d joints"):format(LAYERS, JOINTS), t_c, "ns/call")
bench.report("sinew.blend garbage", bench.garbage_per_call(blend_call, n), "bytes/call")
against_plain("sinew.blend", t_c, t_lua)

-- a clip with linear translation, rotation and scale tracks on every joint, 30 keys per second
local KEYS = 31
local times = {}
for k = 1, KEYS do times[k] = (k - 1) / (KEYS - 1) end
local tracks = {}
-- the same clip for plain Lua, flat: joint j's translation keys are TV[3 KEYS (j - 1) + 3 (k - 1) + c]
-- at times TT[KEYS (j - 1) + k]; rotations RV (4 numbers a key) at RT, scales SV at ST
local TT, TV, RT, RV, ST, SV = {}, {}, {}, {}, {}, {}
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
  for k = 1, KEYS do
    TT[#TT + 1], RT[#RT + 1], ST[#ST + 1] = times[k], times[k], times[k]
    -- each key on the side of the one before (as sinew does at construction): nlerp then takes
    -- the shortest arc with no test per sample
    local b = 4 * (k - 1)
    if k > 1 and rv[b - 3] * rv[b + 1] + rv[b - 2] * rv[b + 2] + rv[b - 1] * rv[b + 3] + rv[b] * rv[b + 4] < 0 then
      for c = 1, 4 do rv[b + c] = -rv[b + c] end
    end
  end
  for c = 1, 3 * KEYS do TV[#TV + 1], SV[#SV + 1] = tv[c], sv[c] end
  for c = 1, 4 * KEYS do RV[#RV + 1] = rv[c] end
end
local clip = sinew.clip { skeleton = skel, tracks = tracks }
local DURATION = times[KEYS]

-- the sampler: per track a remembered key (0-based k: the keys k and k + 1 of the track hold the
-- time), moved forward as the time passes and back to the first key when the loop wraps
local TC, RC, SC = {}, {}, {}
for j = 1, JOINTS do TC[j], RC[j], SC[j] = 0, 0, 0 end
local function seek(tt, cursors, j, lt)
  local b, k = KEYS * (j - 1), cursors[j]
  if lt < tt[b + k + 1] then k = 0 end
  while k < KEYS - 2 and tt[b + k + 2] <= lt do k = k + 1 end
  cursors[j] = k
  local t0 = tt[b + k + 1]
  local s = (lt - t0) / (tt[b + k + 2] - t0)
  if s > 1 then s = 1 end -- past the last key
  return k, s
end
-- linear translations and scales, nlerp rotations, into 10 numbers per joint
local function lua_sample(dst, t)
  local lt = t % DURATION
  for j = 1, JOINTS do
    local o = 10 * (j - 1)
    local k, s = seek(TT, TC, j, lt)
    local v = 3 * KEYS * (j - 1) + 3 * k
    local a, b, c = TV[v + 1], TV[v + 2], TV[v + 3]
    dst[o + 1], dst[o + 2], dst[o + 3] = a + s * (TV[v + 4] - a), b + s * (TV[v + 5] - b), c + s * (TV[v + 6] - c)
    k, s = seek(RT, RC, j, lt)
    v = 4 * KEYS * (j - 1) + 4 * k
    local x, y, z, w = RV[v + 1], RV[v + 2], RV[v + 3], RV[v + 4]
    x, y, z, w = x + s * (RV[v + 5] - x), y + s * (RV[v + 6] - y), z + s * (RV[v + 7] - z), w + s * (RV[v + 8] - w)
    local l = 1 / sqrt(x * x + y * y + z * z + w * w)
    dst[o + 4], dst[o + 5], dst[o + 6], dst[o + 7] = x * l, y * l, z * l, w * l
    k, s = seek(ST, SC, j, lt)
    v = 3 * KEYS * (j - 1) + 3 * k
    a, b, c = SV[v + 1], SV[v + 2], SV[v + 3]
    dst[o + 8], dst[o + 9], dst[o + 10] = a + s * (SV[v + 4] - a), b + s * (SV[v + 5] - b), c + s * (SV[v + 6] - c)
  end
end

-- the check: 75 frames forward from 0 (through the loop's wrap at 1 s), every fifth compared
local t = 0
for f = 0, 75 do
  clip:sample(t, out)
  lua_sample(lua_out, t)
  if f % 5 == 0 then
    for j = 1, JOINTS do agree(("clip:sample at %g s"):format(t), j, { out:get(j) }, lua_out, 10 * (j - 1), 10) end
  end
  t = t + 1 / 60
end
local function sample_call()
  clip:sample(t, out)
  t = t + 1 / 60
end
local t_lt = t
local function lua_sample_call()
  lua_sample(lua_out, t_lt)
  t_lt = t_lt + 1 / 60
end
local t_s = bench.ns_per_call(sample_call, n)
bench.report(("clip:sample T+R+S x %d joints, forward 60 Hz"):format(JOINTS), t_s, "ns/call")
bench.report("clip:sample per joint [ozz 2.1-2.6, C]", t_s / JOINTS, "ns/joint")
bench.report("clip:sample garbage", bench.garbage_per_call(sample_call, n), "bytes/call")
against_plain("clip:sample", t_s, bench.ns_per_call(lua_sample_call, n / 50))

-- model-space matrices in plain Lua: model(j) = model(parent) * T * R * S, column-major, 16
-- numbers per joint from 16 j + 1, after an identity in the first 16 that roots (parent 0) take
-- as their parent (no branch in the loop); the last row (0 0 0 1) is written once here
local lua_mats = {}
for j = 0, JOINTS do
  for c = 1, 16 do lua_mats[16 * j + c] = (c == 1 or c == 6 or c == 11 or c == 16) and 1 or 0 end
end
local function lua_to_model(dst, src)
  for j = 1, JOINTS do
    local b, m, a = 10 * (j - 1), 16 * j, 16 * parents[j]
    local x, y, z, w = src[b + 4], src[b + 5], src[b + 6], src[b + 7]
    local sx, sy, sz = src[b + 8], src[b + 9], src[b + 10]
    local xx, yy, zz, xy, xz, yz = x * x, y * y, z * z, x * y, x * z, y * z
    local xw, yw, zw = x * w, y * w, z * w
    -- the local rotation-and-scale columns; the translation is src[b + 1 .. b + 3]
    local l0, l1, l2 = (1 - 2 * (yy + zz)) * sx, 2 * (xy + zw) * sx, 2 * (xz - yw) * sx
    local l4, l5, l6 = 2 * (xy - zw) * sy, (1 - 2 * (xx + zz)) * sy, 2 * (yz + xw) * sy
    local l8, l9, l10 = 2 * (xz + yw) * sz, 2 * (yz - xw) * sz, (1 - 2 * (xx + yy)) * sz
    local tx, ty, tz = src[b + 1], src[b + 2], src[b + 3]
    local a0, a1, a2 = dst[a + 1], dst[a + 2], dst[a + 3]
    local a4, a5, a6 = dst[a + 5], dst[a + 6], dst[a + 7]
    local a8, a9, a10 = dst[a + 9], dst[a + 10], dst[a + 11]
    dst[m + 1], dst[m + 2], dst[m + 3] = a0 * l0 + a4 * l1 + a8 * l2, a1 * l0 + a5 * l1 + a9 * l2,
      a2 * l0 + a6 * l1 + a10 * l2
    dst[m + 5], dst[m + 6], dst[m + 7] = a0 * l4 + a4 * l5 + a8 * l6, a1 * l4 + a5 * l5 + a9 * l6,
      a2 * l4 + a6 * l5 + a10 * l6
    dst[m + 9], dst[m + 10], dst[m + 11] = a0 * l8 + a4 * l9 + a8 * l10, a1 * l8 + a5 * l9 + a9 * l10,
      a2 * l8 + a6 * l9 + a10 * l10
    dst[m + 13], dst[m + 14], dst[m + 15] = a0 * tx + a4 * ty + a8 * tz + dst[a + 13],
      a1 * tx + a5 * ty + a9 * tz + dst[a + 14], a2 * tx + a6 * ty + a10 * tz + dst[a + 15]
  end
end

-- the pose both work from: the last sampled one, as plain numbers too
local flat = {}
local function read_pose(dst, pose)
  for j = 1, JOINTS do
    local v = { pose:get(j) }
    for c = 1, 10 do dst[10 * (j - 1) + c] = v[c] end
  end
end
read_pose(flat, out)
local mats = sinew.matrices(skel)
local function model_call() out:to_model(mats) end
local function lua_model_call() lua_to_model(lua_mats, flat) end
model_call()
lua_model_call()
for j = 1, JOINTS do agree("pose:to_model", j, { mats:get(j) }, lua_mats, 16 * j, 16) end
local t_m = bench.ns_per_call(model_call, n)
bench.report(("pose:to_model %d joints"):format(JOINTS), t_m, "ns/call")
bench.report("pose:to_model garbage", bench.garbage_per_call(model_call, n), "bytes/call")
against_plain("pose:to_model", t_m, bench.ns_per_call(lua_model_call, n / 50))
local function get_call() mats:get(7) end
bench.report("mats:get(i) garbage", bench.garbage_per_call(get_call, n), "bytes/call")

-- the additive layer in plain Lua, as sn_pose_add: translation + w delta; rotation q * delta^w
-- (slerp from the identity on the shortest arc: atan2 of the vector's length and the scalar),
-- normalised; scale * (1 + |w| (delta - 1)), divided by it for a negative w
local atan2, sin, cos = math.atan2 or math.atan, math.sin, math.cos
local function lua_add(dst, d, w)
  local aw = w < 0 and -w or w
  for j = 0, JOINTS - 1 do
    local b = 10 * j
    dst[b + 1], dst[b + 2], dst[b + 3] = dst[b + 1] + w * d[b + 1], dst[b + 2] + w * d[b + 2], dst[b + 3] + w * d[b + 3]
    local x, y, z, s = d[b + 4], d[b + 5], d[b + 6], d[b + 7]
    if s < 0 then x, y, z, s = -x, -y, -z, -s end
    local v = sqrt(x * x + y * y + z * z)
    local h = w * atan2(v, s)
    local k = v > 1e-12 and sin(h) / v or w
    local rx, ry, rz, rw = x * k, y * k, z * k, cos(h)
    local qx, qy, qz, qw = dst[b + 4], dst[b + 5], dst[b + 6], dst[b + 7]
    x = qw * rx + qx * rw + qy * rz - qz * ry
    y = qw * ry - qx * rz + qy * rw + qz * rx
    z = qw * rz + qx * ry - qy * rx + qz * rw
    s = qw * rw - qx * rx - qy * ry - qz * rz
    local l = 1 / sqrt(x * x + y * y + z * z + s * s)
    dst[b + 4], dst[b + 5], dst[b + 6], dst[b + 7] = x * l, y * l, z * l, s * l
    local fx, fy, fz = 1 + aw * (d[b + 8] - 1), 1 + aw * (d[b + 9] - 1), 1 + aw * (d[b + 10] - 1)
    if w < 0 then
      dst[b + 8], dst[b + 9], dst[b + 10] = dst[b + 8] / fx, dst[b + 9] / fy, dst[b + 10] / fz
    else
      dst[b + 8], dst[b + 9], dst[b + 10] = dst[b + 8] * fx, dst[b + 9] * fy, dst[b + 10] * fz
    end
  end
end

local delta = sinew.delta(sinew.pose(skel), poses[2], poses[1])
local flat_delta = {}
read_pose(flat_delta, delta)
local sign = 1
local function add_call() -- -0.5 then +0.5: the scales come back, however many calls
  sign = -sign
  out:add(delta, 0.5 * sign)
end
local lua_sign = 1
local function lua_add_call()
  lua_sign = -lua_sign
  lua_add(flat, flat_delta, 0.5 * lua_sign)
end
for _ = 1, 2 do -- one call of each weight, from the same pose
  add_call()
  lua_add_call()
  for j = 1, JOINTS do agree(("pose:add, weight %g"):format(0.5 * sign), j, { out:get(j) }, flat, 10 * (j - 1), 10) end
end
local t_a = bench.ns_per_call(add_call, n / 10)
bench.report(("pose:add %d joints (additive layer)"):format(JOINTS), t_a, "ns/call")
against_plain("pose:add", t_a, bench.ns_per_call(lua_add_call, n / 50))
