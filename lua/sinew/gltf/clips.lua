--- The animations of a glTF file as sinew clips: each channel on a joint's translation, rotation
-- or scale becomes a track (LINEAR, STEP or CUBICSPLINE); channels on morph weights or on nodes
-- outside the skeleton are skipped and reported. glTF interpolates LINEAR rotations by slerp and
-- sinew by nlerp: where two keys are far enough apart for the two to differ by more than 0.01
-- degree, keys on the slerp arc are added between them.
-- @module sinew.gltf.clips
local sinew_core = require "sinew.core"
local D = require "sinew.gltf.document"
local Fault = require "sinew.fault"

local fail, index, list, object = Fault.fail, D.index, D.list, D.object
local abs, sqrt, sin, cos, ceil, max = math.abs, math.sqrt, math.sin, math.cos, math.ceil, math.max
local atan2 = math.atan2 or math.atan

local M = {}

local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

--- The largest angle (radians) by which a LINEAR rotation track may differ from glTF's slerp.
M.TOLERANCE = math.rad(0.01)

local interpolations = { LINEAR = "linear", STEP = "step", CUBICSPLINE = "cubicspline" }
local outputs = {
  translation = { types = { VEC3 = true }, comps = { FLOAT = true } },
  scale = { types = { VEC3 = true }, comps = { FLOAT = true } },
  rotation = { types = { VEC4 = true }, comps = { FLOAT = true, ["BYTE (normalized)"] = true,
    ["UNSIGNED_BYTE (normalized)"] = true, ["SHORT (normalized)"] = true, ["UNSIGNED_SHORT (normalized)"] = true } },
}

-- the largest rotation angle between nlerp and slerp of unit quaternions `w` radians apart (4-D
-- angle): twice the largest |atan2(t sin w, 1 - t + t cos w) - t w| over t in (0, 1)
local function nlerp_error(w)
  local worst = 0
  for k = 1, 39 do
    local t = k / 40
    worst = max(worst, abs(atan2(t * sin(w), 1 - t + t * cos(w)) - t * w))
  end
  return 2 * worst
end
M.nlerp_error = nlerp_error

-- the widest angle between two keys that nlerp follows within `tolerance` of slerp (the error
-- grows with the angle, so an interval cut into ceil(w / widest) equal pieces keeps within it):
-- found once per tolerance by bisection
local widest_cache = {}
local function widest_angle(tolerance)
  if widest_cache[tolerance] then return widest_cache[tolerance] end
  local lo, hi = 0, math.pi / 2
  for _ = 1, 60 do
    local mid = (lo + hi) / 2
    if nlerp_error(mid) > tolerance then hi = mid else lo = mid end
  end
  widest_cache[tolerance] = lo
  return lo
end
M.widest_angle = widest_angle

-- a LINEAR rotation track with unit keys in one hemisphere, and keys added on the slerp arc
-- where nlerp would stray more than M.TOLERANCE from it
local function slerp_keys(doc, times, values, path)
  local slerp = sinew_core.quat.slerp
  local widest = widest_angle(M.TOLERANCE)
  -- the keys each interval needs added, found first: none, and the track is kept as it is (its
  -- key times stay shared with the other tracks on them)
  local pieces, added = {}, 0
  for k = 1, #times - 1 do
    local a, b = 4 * (k - 1), 4 * k
    local d = abs(values[a + 1] * values[b + 1] + values[a + 2] * values[b + 2] + values[a + 3] * values[b + 3] +
      values[a + 4] * values[b + 4])
    local w = atan2(sqrt(max(0, 1 - d * d)), d)
    if w > widest then
      local p = ceil(w / widest)
      -- keys closer than float32 can tell apart would not increase: keep the interval whole
      if (times[k + 1] - times[k]) / p >= 1e-6 * max(1, abs(times[k + 1])) then
        pieces[k] = p
        added = added + p - 1
      end
    end
  end
  if added == 0 then return times, values end
  doc:spend(5 * D.NUMBER_BYTES * added, path)
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
  return t2, v2
end

-- unit rotation keys, each in the hemisphere of the one before (the shortest arc): a new list
-- (the decoded accessor is shared)
local function unit_keys(decoded, path)
  local values = {}
  local px, py, pz, pw
  for k = 0, #decoded / 4 - 1 do
    local x, y, z, w = decoded[4 * k + 1], decoded[4 * k + 2], decoded[4 * k + 3], decoded[4 * k + 4]
    local l = sqrt(x * x + y * y + z * z + w * w)
    -- not (l > 1e-12) is true for NaN too
    if not (l > 1e-12) or l == math.huge then -- luacheck: ignore 581
      fail(path, "rotation of key %d is zero or not finite", k)
    end
    x, y, z, w = x / l, y / l, z / l, w / l
    if px and px * x + py * y + pz * z + pw * w < 0 then x, y, z, w = -x, -y, -z, -w end
    values[4 * k + 1], values[4 * k + 2], values[4 * k + 3], values[4 * k + 4] = x, y, z, w
    px, py, pz, pw = x, y, z, w
  end
  return values
end

-- the key times of a sampler: finite, not negative, strictly increasing
-- (samplers often share them: each accessor is read and checked once, and never changed)
local function key_times(doc, input, path)
  if doc.key_times[input] then return doc.key_times[input] end
  local times, _, bad = doc:read(input, path, { SCALAR = true }, { FLOAT = true })
  if bad then fail(path, "key time %d is not finite", bad) end
  if times[1] < 0 then fail(path, "key time 0 (%g) is negative", times[1]) end
  for k = 2, #times do
    local t = times[k]
    if t <= times[k - 1] then -- times are finite here
      fail(path, "key times do not increase: key %d (%g) after key %d (%g)", k - 1, t, k - 2, times[k - 1])
    end
  end
  doc.key_times[input] = times
  return times
end

local LANES = 8 -- SN_SKELETON_LANES (src/core/skeleton.h)
local widths = { translation = 3, rotation = 4, scale = 3 }
local rows_per_key = { linear = 2, step = 1, cubicspline = 4 }

--- A bound on the bytes of the clip of `tracks` on a skeleton of `joints` joints, before it is
-- made (the layout of src/core/clip_build.c): tracks of one path and interpolation on the same
-- key times share rows of 4 + width x (2 linear, 4 cubic, 1 step) floats per key, padded to 8
-- lanes (all the joints when they cover half of them); tracks with times of their own cost no
-- more than a group of their own.
function M.clip_bytes(tracks, joints)
  local groups, order = {}, {}
  for _, tr in ipairs(tracks) do
    local g = groups[tr.times]
    if not g then
      g = {}
      groups[tr.times] = g
      order[#order + 1] = tr.times
    end
    local k = tr.path .. " " .. tr.interpolation
    g[k] = (g[k] or 0) + 1
  end
  local bytes = 1024 + 64 * #tracks
  for _, times in ipairs(order) do
    for k, lanes in each, groups[times] do
      local path, interp = k:match("^(%S+) (%S+)$")
      if 2 * lanes >= joints then lanes = math.max(lanes, joints) end
      local padded = ceil(lanes / LANES) * LANES
      bytes = bytes + 4 * #times * (4 + widths[path] * rows_per_key[interp]) * padded
    end
  end
  return bytes
end

-- the track of one sampler on `joint`'s `path`; its key times and values are made once per
-- import for each (input, output, interpolation, path), and shared by every track that uses them
local function track(doc, sampler, spath, joint, path)
  local interp = sampler.interpolation or "LINEAR"
  if not interpolations[interp] then fail(spath .. ".interpolation", "unknown interpolation %s", D.show(interp)) end
  local input = doc:accessor(sampler.input, spath .. ".input").index
  local output = doc:accessor(sampler.output, spath .. ".output").index
  local key = ("%d %d %s %s"):format(input, output, interp, path)
  local keys = doc.track_keys[key]
  if not keys then
    local times = key_times(doc, input, spath .. ".input")
    local spec = outputs[path]
    local values, desc, bad = doc:read(output, spath .. ".output", spec.types, spec.comps)
    local per = interp == "CUBICSPLINE" and 3 or 1
    if desc.count ~= per * #times then
      fail(spath .. ".output", "accessor %d has %d values for %d key times%s", desc.index, desc.count, #times,
        per == 3 and " (cubicspline: 3 per key)" or "")
    end
    if bad then fail(spath .. ".output", "value %d is not finite", bad) end
    if path == "rotation" and interp ~= "CUBICSPLINE" then
      doc:spend(D.NUMBER_BYTES * #values, spath .. ".output")
      values = unit_keys(values, spath .. ".output")
      if interp == "LINEAR" then times, values = slerp_keys(doc, times, values, spath .. ".output") end
    end
    doc.tracks_made = doc.tracks_made + 1
    keys = { times, values, doc.tracks_made }
    doc.track_keys[key] = keys
  end
  return { joint = joint, path = path, interpolation = interpolations[interp], times = keys[1], values = keys[2] },
    keys[3]
end

--- The clips: a table name -> clip and the names in file order. Skipped channels are added to
-- `skipped` as { path = ..., why = ... }.
function M.clips(doc, nodes, skeleton, joint_of, skipped)
  local anims = doc:array("animations")
  doc.key_times, doc.track_keys, doc.tracks_made = {}, {}, 0
  local clips, names, made = {}, {}, {}
  for ai = 0, #anims - 1 do
    local apath = ("animations[%d]"):format(ai)
    local a = object(anims[ai + 1], apath)
    local samplers = list(a.samplers, apath .. ".samplers")
    local tracks, targets, duration, sig = {}, {}, 0, {}
    for ci, ch in ipairs(list(a.channels, apath .. ".channels")) do
      local cpath = ("%s.channels[%d]"):format(apath, ci - 1)
      ch = object(ch, cpath)
      local target = object(ch.target, cpath .. ".target")
      local s = index(ch.sampler, #samplers, cpath .. ".sampler", "sampler")
      local path = target.path
      if path ~= "translation" and path ~= "rotation" and path ~= "scale" and path ~= "weights" then
        fail(cpath .. ".target.path", "unknown path %s", D.show(path))
      end
      if target.node == nil then
        skipped[#skipped + 1] = { path = cpath, why = "no target node" }
      else
        local n = index(target.node, nodes.count, cpath .. ".target.node", "node")
        local key = n .. " " .. path
        if targets[key] then
          fail(cpath, "node %d's %s is the target of channel %d too", n, path, targets[key])
        end
        targets[key] = ci - 1
        if path == "weights" then
          skipped[#skipped + 1] = { path = cpath, why = "morph target weights" }
        elseif not joint_of[n] then
          skipped[#skipped + 1] = { path = cpath, why = ("node %d is not in the skeleton"):format(n) }
        else
          local spath = ("%s.samplers[%d]"):format(apath, s)
          local tr, id = track(doc, object(samplers[s + 1], spath), spath, joint_of[n], path)
          tracks[#tracks + 1] = tr
          sig[#sig + 1] = ("%d %s %d"):format(tr.joint, path, id)
          duration = max(duration, tr.times[#tr.times])
        end
      end
    end
    local name = type(a.name) == "string" and a.name ~= "" and a.name or ("animation_" .. ai)
    if clips[name] then name = name .. "_" .. ai end
    -- animations of the same tracks (the same keys on the same joints) share one clip: clips
    -- cannot change
    table.sort(sig)
    sig = table.concat(sig, ",") .. "," .. ("%.17g"):format(duration)
    local clip = made[sig]
    if not clip then
      doc:spend(M.clip_bytes(tracks, #skeleton), apath)
      clip = Fault.core(apath, sinew_core.clip, { skeleton = skeleton, tracks = tracks, duration = duration })
      made[sig] = clip
    end
    clips[name] = clip
    names[#names + 1] = name
  end
  return clips, names
end

return M
