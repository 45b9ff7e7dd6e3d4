--- The animations of a glTF file as sinew clips: each channel on a joint's translation, rotation
-- or scale becomes a track (LINEAR, STEP or CUBICSPLINE); each channel on a mesh's morph weights
-- becomes one weight track per target, kept beside the clip (`asset.morph_tracks`); channels on
-- nodes outside the skeleton are skipped and reported. glTF interpolates LINEAR rotations by slerp and
-- sinew by nlerp: where two keys are far enough apart for the two to differ by more than 0.01
-- degree, keys on the slerp arc are added between them.
-- @module sinew.gltf.clips
local sinew_core = require "sinew.core"
local decode = sinew_core._gltf
local D = require "sinew.gltf.document"
local Fault = require "sinew.fault"
local Morphs = require "sinew.gltf.morphs"

local fail, index, list, object = Fault.fail, D.index, D.list, D.object
local abs, sin, cos, ceil, max, floor = math.abs, math.sin, math.cos, math.ceil, math.max, math.floor
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

-- the rotation keys of a track: unit, each in the hemisphere of the one before (the shortest
-- arc), and for a LINEAR track keys added on the slerp arc where nlerp would stray more than
-- M.TOLERANCE from it (src/core/gltf_keys.c). New buffers, and the key times themselves when no
-- key was added (shared with the other tracks on them); the decoded accessor is never changed.
local function rotation_keys(doc, times, values, interp, path)
  doc:spend(D.NUMBER_BYTES * #values, path)
  local widest = interp == "LINEAR" and widest_angle(M.TOLERANCE) or nil
  local per_key = 5 * D.NUMBER_BYTES
  local t2, v2, added = decode.rotation_keys(times, values, widest, max(0, doc:left()) / per_key)
  if t2 == false then fail(path, "rotation of key %d is zero or not finite", v2) end
  if t2 == nil then -- more keys than the budget holds: spend refuses them
    doc:spend(per_key * v2, path)
    t2, v2 = decode.rotation_keys(times, values, widest, math.huge)
  elseif added > 0 then
    doc:spend(per_key * added, path)
  end
  return t2, v2
end

-- the key times of a sampler: finite, not negative, strictly increasing
-- (samplers often share them: each accessor is read and checked once, and never changed)
local function key_times(doc, input, path)
  if doc.key_times[input] then return doc.key_times[input] end
  local times, _, bad = doc:read_floats(input, path, { SCALAR = true }, { FLOAT = true })
  if bad then fail(path, "key time %d is not finite", bad) end
  local fault, k = decode.key_times(times)
  if fault == "negative" then fail(path, "key time 0 (%g) is negative", times[1]) end
  if fault == "not increasing" then
    fail(path, "key times do not increase: key %d (%g) after key %d (%g)", k, times[k + 1], k - 1, times[k])
  end
  if fault then fail(path, "key time %d is not finite", k) end
  doc.key_times[input] = times
  return times
end

local interp_codes = { LINEAR = 0, STEP = 1, CUBICSPLINE = 2 }
local path_codes = { translation = 0, rotation = 1, scale = 2, weights = 3 }
local code_widths = { [0] = 3, 4, 3, 1 } -- the floats of a key of each path code

local LANES = 8 -- SN_SKELETON_LANES (src/core/skeleton.h)
local rows_per_key = { linear = 2, step = 1, cubicspline = 4 }

--- A bound on the bytes of the clip of `tracks` on a skeleton of `joints` joints, before it is
-- made (the layout of src/core/clip_build.c): tracks of one path and interpolation on the same
-- key times share rows of 4 + width x (2 linear, 4 cubic, 1 step) floats per key, padded to 8
-- lanes (all the joints when they cover half of them); tracks with times of their own cost no
-- more than a group of their own. Morph weight tracks (`morph` in place of `path`) count as
-- tracks 1 wide.
function M.clip_bytes(tracks, joints)
  local groups, order = {}, {}
  for _, tr in ipairs(tracks) do
    local g = groups[tr.times]
    if not g then
      g = {}
      groups[tr.times] = g
      order[#order + 1] = tr.times
    end
    -- the tracks of one path and one interpolation: counted under (path's code) x 8 + rows per key
    local k = path_codes[tr.path or "weights"] * 8 + rows_per_key[tr.interpolation] -- (a morph weight track)
    g[k] = (g[k] or 0) + 1
  end
  local bytes = 1024 + 64 * #tracks
  for _, times in ipairs(order) do
    for k, lanes in each, groups[times] do
      if 2 * lanes >= joints then lanes = math.max(lanes, joints) end
      local padded = ceil(lanes / LANES) * LANES
      bytes = bytes + 4 * #times * (4 + code_widths[floor(k / 8)] * (k % 8)) * padded
    end
  end
  return bytes
end

-- the JSON paths of an animation's channels and samplers, and of a field of one (made only for
-- a message or a fault: see sinew.gltf.document's path_of)
local function channel_path(ai, ci, field) return ("animations[%d].channels[%d]"):format(ai, ci) .. (field or "") end
local function sampler_path(ai, s, field) return ("animations[%d].samplers[%d]"):format(ai, s) .. (field or "") end

-- the track of sampler `s` of animation `ai` on `joint`'s `path`; its key times and values are
-- made once per import for each (input, output, interpolation, path), and shared by every track
-- that uses them
local function track(doc, sampler, ai, s, joint, path)
  local interp = sampler.interpolation or "LINEAR"
  local icode = interp_codes[interp]
  if not icode then fail(sampler_path(ai, s, ".interpolation"), "unknown interpolation %s", D.show(interp)) end
  local input = doc:accessor(sampler.input, sampler_path, ai, s, ".input").index
  local output = doc:accessor(sampler.output, sampler_path, ai, s, ".output").index
  local by_input = doc.track_keys[input]
  if not by_input then
    by_input = {}
    doc.track_keys[input] = by_input
  end
  local key = (output * 3 + icode) * 4 + path_codes[path]
  local keys = by_input[key]
  if not keys then
    local spath = sampler_path(ai, s)
    local times = key_times(doc, input, spath .. ".input")
    local spec = outputs[path]
    local values, desc, bad = doc:read_floats(output, spath .. ".output", spec.types, spec.comps)
    local per = interp == "CUBICSPLINE" and 3 or 1
    if desc.count ~= per * #times then
      fail(spath .. ".output", "accessor %d has %d values for %d key times%s", desc.index, desc.count, #times,
        per == 3 and " (cubicspline: 3 per key)" or "")
    end
    if bad then fail(spath .. ".output", "value %d is not finite", bad) end
    if path == "rotation" and interp ~= "CUBICSPLINE" then
      times, values = rotation_keys(doc, times, values, interp, spath .. ".output")
    end
    doc.tracks_made = doc.tracks_made + 1
    keys = { times, values, doc.tracks_made }
    by_input[key] = keys
  end
  return { joint = joint, path = path, interpolation = interpolations[interp], times = keys[1], values = keys[2] },
    keys[3]
end

-- the components a weights sampler's output may have (glTF 2.0, 3.11)
local weight_comps = { FLOAT = true, ["BYTE (normalized)"] = true, ["UNSIGNED_BYTE (normalized)"] = true,
  ["SHORT (normalized)"] = true, ["UNSIGNED_SHORT (normalized)"] = true }
local SCALAR = { SCALAR = true }

-- the weight tracks of one sampler on the `range.count` targets of a mesh (range.first: the
-- first target's entry in the asset's morph list): the output is `count` weights per key (3 x
-- count for CUBICSPLINE: in-tangents, values, out-tangents), split into a float buffer per
-- target; made once per import for each (input, output, interpolation, target count)
local function weight_tracks(doc, sampler, spath, range, mi, out)
  local interp = sampler.interpolation or "LINEAR"
  if not interpolations[interp] then fail(spath .. ".interpolation", "unknown interpolation %s", D.show(interp)) end
  local input = doc:accessor(sampler.input, spath .. ".input").index
  local output = doc:accessor(sampler.output, spath .. ".output").index
  local n = range.count
  local key = ("%d %d %s weights %d"):format(input, output, interp, n)
  local keys = doc.weight_keys[key]
  if not keys then
    local times = key_times(doc, input, spath .. ".input")
    local values, desc, bad = doc:read_floats(output, spath .. ".output", SCALAR, weight_comps)
    local per = interp == "CUBICSPLINE" and 3 or 1
    if desc.count % n ~= 0 then
      fail(spath .. ".output", "accessor %d has %d values, not a multiple of the %d morph targets of mesh %d",
        desc.index, desc.count, n, mi)
    end
    if desc.count ~= per * n * #times then
      fail(spath .. ".output", "accessor %d has %d values for %d key times and %d morph targets%s", desc.index,
        desc.count, #times, n, per == 3 and " (cubicspline: 3 per key and target)" or "")
    end
    if bad then fail(spath .. ".output", "value %d is not finite", bad) end
    doc:spend(4 * desc.count, spath .. ".output")
    doc.tracks_made = doc.tracks_made + 1
    keys = { times, { Fault.core(spath .. ".output", decode.split, values, n) }, doc.tracks_made }
    doc.weight_keys[key] = keys
  end
  for t = 1, n do
    out[#out + 1] = { morph = range.first + t - 1, interpolation = interpolations[interp], times = keys[1],
      values = keys[2][t] }
  end
  return keys[3], keys[1][#keys[1]]
end

-- why a weights channel on node `n` is not imported, or nil when its mesh's targets are in the
-- asset's morph list
local function weights_skipped(node, n, joints, ranges)
  if node.mesh == nil then return ("node %d has no mesh (morph weights need one)"):format(n) end
  if not Morphs.shown(node, joints) then
    return ("node %d's mesh is skinned to skin %s, not the one imported"):format(n, D.show(node.skin))
  end
  if not ranges[node.mesh] then return ("mesh %d has no morph targets"):format(node.mesh) end
  return nil
end

--- Whether M.clips reads each plain animation in one C call (`sinew.core._gltf.animation`, see
-- src/binding/gltf_clips.c) before the loop below: the same clips, caches and budget either way
-- (spec/gltf_fast_spec.lua compares them); false runs the loop for every animation (for tests).
M.FAST = true

-- the .glb's BIN chunk read as buffer 0 now, when that can neither fail nor spend (its
-- byteLength is the chunk's): the fast path reads only buffers the import has read
local function bin_ready(doc)
  if doc.bin == nil or doc.buffers[0] then return end
  local buffers = doc.json.buffers
  if type(buffers) ~= "table" or type((next(buffers))) == "string" then return end
  local b = buffers[1]
  if type(b) ~= "table" or rawget(b, 1) ~= nil or b.uri ~= nil or b.byteLength ~= doc.bin_length then return end
  doc:buffer(0, "buffers")
end

-- the tracks of animation `ai` by the Lua loop: the tracks, the duration, the sorted signature
-- numbers and the morph weight tracks
local function animation_tracks(doc, ai, samplers, channels, nodes, joint_of, skipped, joints, ranges)
  local node_count, sampler_count = nodes.count, #samplers
  local tracks, targets, duration, sig, weights = {}, {}, 0, {}, {}
  for ci, ch in ipairs(channels) do
    object(ch, channel_path, false, ai, ci - 1)
    local target = object(ch.target, channel_path, false, ai, ci - 1, ".target")
    local s = index(ch.sampler, sampler_count, channel_path, "sampler", ai, ci - 1, ".sampler")
    local path = target.path
    local code = path_codes[path]
    if not code then fail(channel_path(ai, ci - 1, ".target.path"), "unknown path %s", D.show(path)) end
    local n = target.node
    if n == nil then
      skipped[#skipped + 1] = { path = channel_path(ai, ci - 1), why = "no target node" }
    else
      n = index(n, node_count, channel_path, "node", ai, ci - 1, ".target.node")
      local key = n * 4 + code
      if targets[key] then
        fail(channel_path(ai, ci - 1), "node %d's %s is the target of channel %d too", n, path, targets[key])
      end
      targets[key] = ci - 1
      local why = code == 3 and weights_skipped(nodes[n], n, joints, ranges)
      local sampler = samplers[s + 1]
      if why then
        skipped[#skipped + 1] = { path = channel_path(ai, ci - 1), why = why }
      elseif code == 3 then
        local spath = sampler_path(ai, s)
        local range = ranges[nodes[n].mesh]
        local id, last = weight_tracks(doc, object(sampler, spath), spath, range, nodes[n].mesh, weights)
        sig[#sig + 1] = -(id * 131072 + range.first) -- (morph indices are below 2^17)
        duration = max(duration, last)
      elseif not joint_of[n] then
        skipped[#skipped + 1] = { path = channel_path(ai, ci - 1), why = ("node %d is not in the skeleton"):format(n) }
      else
        local tr, id = track(doc, object(sampler, sampler_path, false, ai, s), ai, s, joint_of[n], path)
        tracks[#tracks + 1] = tr
        sig[#sig + 1] = (id * 4 + code) * 65536 + tr.joint -- (joints are below 2^16)
        local times = tr.times
        duration = max(duration, times[#times])
      end
    end
  end
  table.sort(sig)
  return tracks, duration, sig, weights
end

--- The clips: a table name -> clip, the names in file order, and a table name -> the clip's
-- morph weight tracks (a list, empty when it has none: `{ morph = 1-based index into the
-- asset's morph list, interpolation = "linear", "step" or "cubicspline", times = float buffer,
-- values = float buffer (1 per key, 3 for cubicspline: in-tangent, value, out-tangent) }`).
-- Skipped channels are added to `skipped` as { path = ..., why = ... }. `ranges` is the mesh
-- index -> { first, count } of sinew.gltf.morphs.list.
function M.clips(doc, nodes, skeleton, joint_of, skipped, joints, ranges)
  local anims = doc:array("animations")
  doc.key_times, doc.track_keys, doc.weight_keys, doc.tracks_made = {}, {}, {}, 0
  local clips, names, made, morph_tracks = {}, {}, {}, {}
  local widest = widest_angle(M.TOLERANCE)
  local fast = M.FAST and widest > 0 -- (no angle: the loop raises for the first LINEAR rotation, as it did)
  if fast then bin_ready(doc) end
  for ai = 0, #anims - 1 do
    local apath = ("animations[%d]"):format(ai)
    local a = object(anims[ai + 1], apath)
    local samplers = list(a.samplers, apath .. ".samplers")
    local channels = list(a.channels, apath .. ".channels")
    local clip, sig, spent, weights
    if fast then
      clip, sig, spent = decode.animation(doc, samplers, channels, joint_of, nodes.count, widest, doc:left(),
        D.NUMBER_BYTES, skeleton, made)
    end
    if clip then
      doc:spend(spent, apath) -- (within the budget: the fast path takes no more)
      made[sig], weights = clip, {}
    else
      local tracks, duration
      tracks, duration, sig, weights = animation_tracks(doc, ai, samplers, channels, nodes, joint_of, skipped, joints,
        ranges)
      sig[#sig + 1] = ("%.17g"):format(duration)
      sig = table.concat(sig, ",")
      clip = made[sig]
      if not clip then
        for _, w in ipairs(weights) do tracks[#tracks + 1] = w end -- (the weight tracks: in the clip too)
        doc:spend(M.clip_bytes(tracks, #skeleton), apath)
        clip = Fault.core(apath, sinew_core.clip, { skeleton = skeleton, tracks = tracks, duration = duration })
        made[sig] = clip
      end
    end
    -- (animations of the same tracks, the same keys on the same joints, share one clip: clips
    -- cannot change)
    local name = type(a.name) == "string" and a.name ~= "" and a.name or ("animation_" .. ai)
    if clips[name] then name = name .. "_" .. ai end
    clips[name] = clip
    names[#names + 1] = name
    morph_tracks[name] = weights
  end
  return clips, names, morph_tracks
end

return M
