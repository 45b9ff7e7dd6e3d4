-- The fast path of glTF animation import (sinew.core._gltf.animation, src/binding/gltf_clips.c)
-- against the Lua loop it stands in for (sinew.gltf.clips with FAST = false): every file of the
-- corpus, the Fox, spoiled files and tight budgets give the same result both ways. The same: the
-- clips sampled bit for bit at every key time and between keys, which animations share a clip,
-- the names, the skipped channels, the morph tracks, the bytes spent (options.max_bytes), the
-- import's caches of decoded accessors and keys, and every message.
local sinew = require "sinew"
local C = require "sinew.gltf.clips"
local D = require "sinew.gltf.document"
local json = require "dkjson"
local Spoil = require "support.gltf_spoil"

local read = require("helper").read_file
local ROUNDS = tonumber(os.getenv("SINEW_GLTF_FUZZ") or (os.getenv("SINEW_QUICK") == "1" and "30" or "100"))

local files = { "assets/fox/glTF-Binary/Fox.glb" }
do
  local p = assert(io.popen("find spec/gltf-corpus -name '*.gltf' -o -name '*.glb' | sort"))
  for path in p:lines() do files[#files + 1] = path end
  p:close()
end

local integer_type = math.type or function() return "float" end -- (5.1, LuaJIT: every number a float)

-- the import of `bytes` (or of the file at `path`) with the fast path on or off: the asset or the
-- message, and the document it used
local function import(fast, path, bytes, options)
  local new, doc = D.new, nil
  D.new = function(...)
    doc = new(...)
    return doc
  end
  C.FAST = fast
  local ok, a, why
  if bytes then
    ok, a, why = pcall(sinew.gltf.parse, bytes, path:match("^(.*)/") or "", options)
  else
    ok, a, why = pcall(sinew.gltf.load, path, options)
  end
  D.new, C.FAST = new, true
  assert(ok, a)
  return a, why, doc
end

local function floats(b)
  local out = {}
  for i = 1, #b do out[i] = b[i] end
  return out
end

-- the float buffers and keys a document keeps, as plain values (float buffers compared by value,
-- and which of them are the same buffer)
local function caches(doc)
  local out = { spent = doc.spent, spent_type = integer_type(doc.spent), tracks_made = doc.tracks_made, floats = {},
    decoded = {}, key_times = {}, track_keys = {} }
  for i, e in pairs(doc.floats) do out.floats[i] = { floats(e[1]), e[2] } end
  for i in pairs(doc.decoded) do out.decoded[i] = true end
  for i, t in pairs(doc.key_times or {}) do out.key_times[i] = { floats(t), t == (doc.floats[i] or {})[1] } end
  for input, by in pairs(doc.track_keys or {}) do
    local keys = {}
    for key, k in pairs(by) do
      keys[key] = { floats(k[1]), floats(k[2]), k[3], k[1] == doc.key_times[input] }
    end
    out.track_keys[input] = keys
  end
  return out
end

-- every key time of the document's tracks, and the times halfway between them
local function times_of(doc)
  local seen, set = {}, {}
  for _, by in pairs(doc.track_keys or {}) do
    for _, k in pairs(by) do
      for i = 1, #k[1] do
        local t = k[1][i]
        if not seen[t] then seen[t], set[#set + 1] = true, t end
      end
    end
  end
  table.sort(set)
  local out = {}
  for i, t in ipairs(set) do
    out[#out + 1] = t
    if set[i + 1] then out[#out + 1] = (t + set[i + 1]) / 2 end
  end
  return out
end

-- the pose of `clip` at time t (not looped), as numbers
local function sampled(clip, skeleton, t)
  local pose = sinew.pose(skeleton)
  clip:sample(t, pose, false)
  local out = {}
  for j = 1, #skeleton do
    for _, v in ipairs { pose:get(j) } do out[#out + 1] = v end
  end
  for _, w in ipairs(pose:morphs()) do out[#out + 1] = w end
  return out
end

-- the parts of an asset the clips stage makes, and the document's caches
local function summary(a, doc, sample_times)
  local s = { names = a.clip_names, skipped = a.skipped, shared = {}, morph_tracks = {}, clips = {}, doc = caches(doc) }
  for i, x in ipairs(a.clip_names) do
    for j, y in ipairs(a.clip_names) do s.shared[#s.shared + 1] = (a.clips[x] == a.clips[y]) and (i .. "=" .. j) or "" end
    local clip = a.clips[x]
    local c = { duration = clip:duration(), poses = {} }
    for _, t in ipairs(sample_times) do c.poses[#c.poses + 1] = sampled(clip, a.skeleton, t) end
    c.poses[#c.poses + 1] = sampled(clip, a.skeleton, clip:duration())
    s.clips[x] = c
    local mt = {}
    for k, tr in ipairs(a.morph_tracks[x]) do
      mt[k] = { tr.morph, tr.interpolation, floats(tr.times), floats(tr.values) }
    end
    s.morph_tracks[x] = mt
  end
  return s
end

-- the same result both ways: the same message, or the same asset (sampled at every key time and
-- between keys when `thorough`, else at a few times) and the same document
local function same_both_ways(path, bytes, options, thorough)
  local a, why_a, doc_a = import(true, path, bytes, options)
  local b, why_b, doc_b = import(false, path, bytes, options)
  assert.equal(why_b, why_a)
  assert.equal(b == nil, a == nil)
  if a then
    local times = thorough and times_of(doc_b) or { 0, 0.1, 0.5, 1 }
    assert.same(summary(b, doc_b, times), summary(a, doc_a, times))
  end
  return a, why_a, doc_a
end

describe("sinew.gltf.clips fast path", function()
  it("gives the same assets as the Lua loop for every file of the corpus and the Fox", function()
    local fast = 0
    local call = sinew._gltf.animation
    sinew._gltf.animation = function(...)
      local clip, sig, spent = call(...)
      if clip then fast = fast + 1 end
      return clip, sig, spent
    end
    for _, path in ipairs(files) do same_both_ways(path, nil, nil, true) end
    assert.is_true(fast >= 10, "the fast path took only " .. fast .. " animations")
    -- dkjson's tables have metatables (without __index or __len): read as plain tables too
    fast = 0
    local function dk(text) return json.decode(text, 1, nil) end
    same_both_ways("assets/fox/glTF-Binary/Fox.glb", nil, { json = dk }, false)
    assert.equal(3, fast)
    -- a decoder whose tables answer fields through __index: left to the Lua loop
    fast = 0
    local function wrapped(text)
      local function wrap(v)
        if type(v) ~= "table" then return v end
        local inner = {}
        for k, x in pairs(v) do inner[k] = wrap(x) end
        return setmetatable({}, { __index = inner, __len = function() return #inner end })
      end
      local tree = json.decode(text, 1, nil)
      local out = wrap(tree)
      return setmetatable({ animations = getmetatable(out).__index.animations }, { __index = getmetatable(out).__index })
    end
    same_both_ways("assets/fox/glTF-Binary/Fox.glb", nil, { json = wrapped, meshes = false }, false)
    assert.equal(0, fast)
    sinew._gltf.animation = call
  end)

  it("gives the same messages and assets for spoiled files", function()
    for fi, path in ipairs { "assets/fox/glTF-Binary/Fox.glb",
      "spec/gltf-corpus/InterpolationTest/glTF-Binary/InterpolationTest.glb",
      "spec/gltf-corpus/CesiumMan/glTF-Binary/CesiumMan.glb",
      "spec/gltf-corpus/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb" } do
      local rng = Spoil.generator(20261128 + fi)
      local text, bin = sinew._gltf.glb(read(path))
      local tree = assert(json.decode(text, 1, nil))
      for round = 1, ROUNDS do
        same_both_ways("spoiled.glb", Spoil.spoil(rng, round, tree, text, bin), { name = "spoiled.glb" }, false)
      end
    end
  end)

  it("spends the same bytes: every budget gives the same message or asset", function()
    for _, path in ipairs { "assets/fox/glTF-Binary/Fox.glb",
      "spec/gltf-corpus/InterpolationTest/glTF/InterpolationTest.gltf",
      "spec/gltf-corpus/CesiumManQuantized/glTF-Binary/CesiumManQuantized.glb" } do
      local _, _, doc = import(true, path, nil, { meshes = false })
      local full = doc.spent
      for k = 0, 24 do
        local budget = math.floor(full * k / 24)
        same_both_ways(path, nil, { meshes = false, max_bytes = budget }, false)
        same_both_ways(path, nil, { meshes = false, max_bytes = budget + 1 }, false)
      end
    end
  end)

  it("shares a clip between an animation it reads and the same one read by the Lua loop", function()
    local text, bin = sinew._gltf.glb(read("assets/fox/glTF-Binary/Fox.glb"))
    local tree = assert(json.decode(text, 1, nil))
    local anims = tree.animations
    -- a copy of an animation with a channel on no node (skipped): only the Lua loop reads it
    local function with_skipped(a, name)
      local c = require("helper").deep_copy(a)
      c.name = name
      c.channels[#c.channels + 1] = { sampler = 0, target = { path = "rotation" } }
      return c
    end
    local walk3 = require("helper").deep_copy(anims[2])
    walk3.name = "Walk3"
    tree.animations = { with_skipped(anims[2], "Walk2"), anims[1], anims[2], anims[3], with_skipped(anims[3], "Run2"),
      walk3 }
    local bytes = require("support.gltf_hostile").glb(json.encode(tree), bin)
    local a = same_both_ways("Fox2.glb", bytes, nil, true)
    assert.equal(a.clips.Walk, a.clips.Walk2)
    assert.equal(a.clips.Walk, a.clips.Walk3)
    assert.equal(a.clips.Run, a.clips.Run2)
    assert.are_not.equal(a.clips.Walk, a.clips.Run)
    assert.equal(2, #a.skipped)
  end)

  it("takes nothing it cannot read as the Lua loop does: a weights channel, a node outside the skeleton", function()
    local call, calls, taken = sinew._gltf.animation, 0, 0
    sinew._gltf.animation = function(...)
      calls = calls + 1
      local clip, sig, spent = call(...)
      if clip then taken = taken + 1 end
      return clip, sig, spent
    end
    same_both_ways("spec/gltf-corpus/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", nil, nil, true)
    sinew._gltf.animation = call
    assert.equal(1, calls)
    assert.equal(0, taken)
  end)
end)
