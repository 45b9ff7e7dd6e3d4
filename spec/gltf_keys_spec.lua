-- The key work of glTF import in C (src/core/gltf_keys.c through sinew._gltf.rotation_keys and
-- key_times, on float buffers from sinew._gltf.floats) against the Lua it replaced, kept here as
-- the reference: for every rotation sampler of the Fox and the corpus, and for random tracks
-- with wide gaps, the clip made from the C keys samples bit for bit as the clip made from the
-- reference keys, at every key, between keys and at many times.
local helper = require "helper"
local sinew = require "sinew"
local D = require "sinew.gltf.document"
local C = require "sinew.gltf.clips"

local decode = sinew._gltf
local abs, sqrt, ceil, max = math.abs, math.sqrt, math.ceil, math.max
local atan2 = math.atan2 or math.atan

local files = {
  "assets/fox/glTF-Binary/Fox.glb",
  "spec/gltf-corpus/CesiumMan/glTF-Binary/CesiumMan.glb",
  "spec/gltf-corpus/CesiumManQuantized/glTF-Binary/CesiumManQuantized.glb",
  "spec/gltf-corpus/CesiumManSparse/glTF-Binary/CesiumManSparse.glb",
  "spec/gltf-corpus/InterpolationTest/glTF-Binary/InterpolationTest.glb",
  "spec/gltf-corpus/BoxAnimated/glTF-Binary/BoxAnimated.glb",
  "spec/gltf-corpus/RiggedSimple/glTF-Binary/RiggedSimple.glb",
}

-- ---- the reference: lua/sinew/gltf/clips.lua before the key work moved to C -----------------

-- unit keys, each in the hemisphere of the one before; nil and the key of a zero rotation
local function ref_unit_keys(decoded)
  local values = {}
  local px, py, pz, pw
  for k = 0, #decoded / 4 - 1 do
    local x, y, z, w = decoded[4 * k + 1], decoded[4 * k + 2], decoded[4 * k + 3], decoded[4 * k + 4]
    local l = sqrt(x * x + y * y + z * z + w * w)
    if not (l > 1e-12) or l == math.huge then return nil, k end -- luacheck: ignore 581
    x, y, z, w = x / l, y / l, z / l, w / l
    if px and px * x + py * y + pz * z + pw * w < 0 then x, y, z, w = -x, -y, -z, -w end
    values[4 * k + 1], values[4 * k + 2], values[4 * k + 3], values[4 * k + 4] = x, y, z, w
    px, py, pz, pw = x, y, z, w
  end
  return values
end

-- keys added on the slerp arc; the times, the values and the count added
local function ref_slerp_keys(times, values)
  local slerp = sinew.quat.slerp
  local widest = C.widest_angle(C.TOLERANCE)
  local pieces, added = {}, 0
  for k = 1, #times - 1 do
    local a, b = 4 * (k - 1), 4 * k
    local d = abs(values[a + 1] * values[b + 1] + values[a + 2] * values[b + 2] + values[a + 3] * values[b + 3] +
      values[a + 4] * values[b + 4])
    local w = atan2(sqrt(max(0, 1 - d * d)), d)
    if w > widest then
      local p = ceil(w / widest)
      if (times[k + 1] - times[k]) / p >= 1e-6 * max(1, abs(times[k + 1])) then
        pieces[k] = p
        added = added + p - 1
      end
    end
  end
  if added == 0 then return times, values, 0 end
  local t2, v2 = { times[1] }, { values[1], values[2], values[3], values[4] }
  for k = 1, #times - 1 do
    local a, b = 4 * (k - 1), 4 * k
    local bx, by, bz, bw = values[b + 1], values[b + 2], values[b + 3], values[b + 4]
    local n = pieces[k]
    if n then
      local ax, ay, az, aw = values[a + 1], values[a + 2], values[a + 3], values[a + 4]
      for m = 1, n - 1 do
        local f = m / n
        t2[#t2 + 1] = times[k] + f * (times[k + 1] - times[k])
        local x, y, z, qw = slerp(ax, ay, az, aw, bx, by, bz, bw, f)
        v2[#v2 + 1], v2[#v2 + 2], v2[#v2 + 3], v2[#v2 + 4] = x, y, z, qw
      end
    end
    t2[#t2 + 1] = times[k + 1]
    v2[#v2 + 1], v2[#v2 + 2], v2[#v2 + 3], v2[#v2 + 4] = bx, by, bz, bw
  end
  return t2, v2, added
end

-- ---- the comparison -------------------------------------------------------------------------

local skeleton = sinew.skeleton { names = { "j" }, parents = { 0 } }
local pose_a, pose_b = sinew.pose(skeleton), sinew.pose(skeleton)

-- the clips of one rotation track from (times, values) tables and from float buffers sample
-- alike at every key, every midpoint and `n` more times across (and past) the track; the count
-- of samples compared
local function same_clips(ref_t, ref_v, times, values, interpolation, n)
  local a = sinew.clip { skeleton = skeleton, tracks = { { joint = 1, path = "rotation", times = ref_t,
    values = ref_v, interpolation = interpolation } } }
  local b = sinew.clip { skeleton = skeleton, tracks = { { joint = 1, path = "rotation", times = times,
    values = values, interpolation = interpolation } } }
  assert.are.equal(a:duration(), b:duration())
  local at = {}
  for k = 1, #ref_t do
    at[#at + 1] = ref_t[k]
    if k < #ref_t then at[#at + 1] = (ref_t[k] + ref_t[k + 1]) / 2 end
  end
  for s = 0, n do at[#at + 1] = a:duration() * (s / n * 1.1 - 0.05) end
  for _, t in ipairs(at) do
    a:sample(t, pose_a)
    b:sample(t, pose_b)
    local ra, rb = { pose_a:get(1) }, { pose_b:get(1) }
    for i = 1, #ra do
      if ra[i] ~= rb[i] then
        error(("at time %.17g, value %d: %.17g (reference) ~= %.17g (C)"):format(t, i, ra[i], rb[i]), 2)
      end
    end
  end
  return #at
end

-- the little-endian float32 bytes of `v` (a normal float or 0; rounded either way near a tie:
-- the specs read the floats back from the buffer)
local function float_bytes(v)
  if string.pack then return string.pack("<f", v) end
  if v == 0 then return "\0\0\0\0" end
  local sign = v < 0 and 128 or 0
  local m, e = math.frexp(abs(v)) -- abs(v) = m 2^e, m in [0.5, 1)
  local E, f = e + 126, math.floor((2 * m - 1) * 2 ^ 23 + 0.5)
  if f == 2 ^ 23 then E, f = E + 1, 0 end
  return string.char(f % 256, math.floor(f / 256) % 256, math.floor(f / 65536) % 128 + E % 2 * 128,
    sign + math.floor(E / 2))
end

-- a float buffer of the numbers in `list` (as float32)
local function floats_of(list)
  local parts = {}
  for i, v in ipairs(list) do parts[i] = float_bytes(v) end
  local bytes = table.concat(parts)
  return decode.floats { component = 5126, count = #list, view = { buffer = bytes, length = #bytes } }
end

describe("sinew.gltf key work in C", function()
  it("makes the clips of every rotation sampler of the Fox and the corpus bit for bit as the Lua did", function()
    local samplers, samples, added_keys = 0, 0, 0
    for _, path in ipairs(files) do
      local json, bin, bin_offset, bin_length = D.container(helper.read_file(path))
      local doc = D.new(D.json(json), bin, path:match("^(.*/)"), nil, nil, bin_offset, bin_length)
      for _, a in ipairs(doc.json.animations or {}) do
        local rotation = {}
        for _, ch in ipairs(a.channels) do
          if ch.target.path == "rotation" then rotation[ch.sampler] = true end
        end
        for s, sampler in ipairs(a.samplers) do
          local interp = sampler.interpolation or "LINEAR"
          if rotation[s - 1] and interp ~= "CUBICSPLINE" then
            local tdesc, vdesc = doc:accessor(sampler.input, "input"), doc:accessor(sampler.output, "output")
            local ref_t, ref_v = decode.accessor(tdesc), assert(ref_unit_keys(decode.accessor(vdesc)))
            local times, values = decode.floats(tdesc), decode.floats(vdesc)
            assert.is_nil(decode.key_times(times))
            local ref_added = 0
            if interp == "LINEAR" then ref_t, ref_v, ref_added = ref_slerp_keys(ref_t, ref_v) end
            local widest = interp == "LINEAR" and C.widest_angle(C.TOLERANCE) or nil
            local t2, v2, added = decode.rotation_keys(times, values, widest, math.huge)
            assert.are.equal(ref_added, added)
            assert.are.equal(#ref_t, #t2)
            assert.are.equal(#ref_v, #v2)
            if added == 0 then assert.are.equal(times, t2) end -- the key times stay shared
            samples = samples + same_clips(ref_t, ref_v, t2, v2, interp:lower(), 200)
            samplers, added_keys = samplers + 1, added_keys + added
          end
        end
      end
    end
    assert.is_true(samplers >= 40, "rotation samplers compared: " .. samplers)
    assert.is_true(added_keys > 0, "no slerp keys were added")
    assert.is_true(samples > 10000)
  end)

  it("makes random tracks with wide gaps and unnormalised keys as the Lua did", function()
    local random = helper.rng(2611)
    local compared = 0
    for _ = 1, 60 do
      local n = math.floor(random(2, 13))
      local times, quats, t = {}, {}, random() * 2
      for k = 1, n do
        times[k] = t
        t = t + (random() < 0.1 and 1e-7 or random() * 3)
        local s = random() < 0.5 and 1 or 5 * random()
        for i = 1, 4 do quats[4 * (k - 1) + i] = s * (2 * random() - 1) end
      end
      -- as float32, both ways: the file's floats
      local tbuf, vbuf = floats_of(times), floats_of(quats)
      do
        local ft, fq = {}, {}
        for k = 1, #tbuf do ft[k] = tbuf[k] end
        for k = 1, #vbuf do fq[k] = vbuf[k] end
        if not decode.key_times(tbuf) then
          for _, interp in ipairs { "linear", "step" } do
            local ref_t, ref_v, ref_added = ft, assert(ref_unit_keys(fq)), 0
            if interp == "linear" then ref_t, ref_v, ref_added = ref_slerp_keys(ref_t, ref_v) end
            local t2, v2, added = decode.rotation_keys(tbuf, vbuf, interp == "linear" and C.widest_angle(C.TOLERANCE)
              or nil, math.huge)
            assert.are.equal(ref_added, added)
            compared = compared + same_clips(ref_t, ref_v, t2, v2, interp, 50)
          end
        end
      end
    end
    assert.is_true(compared > 1000, "samples compared: " .. compared)
  end)

  it("finds the faults the Lua found, at the same keys", function()
    local function buf(list) return floats_of(list) end
    local cases = {
      { "a negative first key", { -1, 0, 1 }, "negative", 0 },
      { "a repeated key", { 0, 1, 1, 2 }, "not increasing", 2 },
      { "a key going back", { 0, 2, 1 }, "not increasing", 2 },
    }
    for _, c in ipairs(cases) do
      local fault, at = decode.key_times(buf(c[2]))
      assert.are.equal(c[3], fault, c[1])
      assert.are.equal(c[4], at, c[1])
    end
    assert.is_nil(decode.key_times(buf { 0, 0.5, 1 }))
    local ok, at = decode.rotation_keys(buf { 0, 1, 2 }, buf { 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0 }, 0.1, 100)
    assert.are.equal(false, ok)
    assert.are.equal(1, at)
    -- more keys than the room: nil and the count, nothing made
    local none, count = decode.rotation_keys(buf { 0, 1 }, buf { 0, 0, 0, 1, 1, 0, 0, 0 }, 0.1, 3)
    assert.is_nil(none)
    assert.are.equal(select(3, decode.rotation_keys(buf { 0, 1 }, buf { 0, 0, 0, 1, 1, 0, 0, 0 }, 0.1, 1e9)), count)
    assert.is_true(count > 3)
    assert.has_error(function() decode.rotation_keys(buf { 0, 1 }, buf { 0, 0, 0, 1 }, 0.1, 1) end,
      "'values' has 4 floats, not 4 per key time (2)")
  end)

  it("gives float buffers a length and 1-based values, nil past the ends", function()
    local b = floats_of { 0.5, -2, 3 }
    assert.are.equal(3, #b)
    assert.are.same({ 0.5, -2, 3 }, { b[1], b[2], b[3] })
    assert.is_nil(b[0])
    assert.is_nil(b[4])
    assert.is_nil(b[1.5])
    assert.is_nil(b.x)
    assert.matches("sinew.Floats %(3 floats%)", tostring(b))
  end)
end)
