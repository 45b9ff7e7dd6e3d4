-- Figures of glTF import: the time to load Fox.glb and CesiumMan.glb (read the file and import
-- skeleton, clips, meshes and images) beside the floor of the same run (reading the file and
-- decoding its JSON alone, with the same decoder), with meshes and without, measured in turn; ns per joint to
-- sample the Fox's Walk into a pose; ns per call to read one joint of it (the hips, as root motion
-- does) by sampling the pose then getting the joint, and by clip:sample_joint.
local sinew = require "sinew"
local bench = require "common"

local read = require("helper").read_file

-- the decoder sinew.gltf uses by default: lua-cjson when installed, else dkjson
local decoder_name, decode = "dkjson", function(text) return require("dkjson").decode(text, 1, nil) end
do
  local ok, cjson = pcall(require, "cjson.safe")
  if ok and type(cjson) == "table" then decoder_name, decode = "lua-cjson", cjson.decode end
end

local files = {
  { "Fox.glb", "assets/fox/glTF-Binary/Fox.glb" },
  { "CesiumMan.glb", "spec/gltf-corpus/CesiumMan/glTF-Binary/CesiumMan.glb" },
}
local rounds = bench.interpreter == "luajit" and 100 or 50

for _, f in ipairs(files) do
  local name, path = f[1], f[2]
  local ms = bench.in_turn({ -- (in turn: see bench/common.lua)
    function() assert(decode((sinew._gltf.glb(read(path))))) end,
    function() assert(sinew.gltf.load(path)) end,
    function() assert(sinew.gltf.load(path, { meshes = false })) end,
  }, 5, rounds)
  local floor, full, light = ms[1], ms[2], ms[3]
  bench.report(("%s: read + JSON (%s), the floor"):format(name, decoder_name), floor, "ms")
  bench.report(("%s: sinew.gltf.load, meshes too (%.1fx the floor)"):format(name, full / floor), full, "ms")
  bench.report(("%s: sinew.gltf.load, meshes = false (%.1fx the floor)"):format(name, light / floor), light, "ms")
end

-- the pure-Lua decoder a LÖVE game ships beside sinew (dkjson), for the Fox
do
  local dkjson = require "dkjson"
  local function dk(text) return dkjson.decode(text, 1, nil) end
  local path = files[1][2]
  local ms = bench.in_turn({
    function() assert(dk((sinew._gltf.glb(read(path))))) end,
    function() assert(sinew.gltf.load(path, { json = dk })) end,
  }, 5, rounds)
  local floor, full = ms[1], ms[2]
  bench.report("Fox.glb: read + JSON (dkjson), the floor", floor, "ms")
  bench.report(("Fox.glb: sinew.gltf.load with dkjson (%.1fx the floor)"):format(full / floor), full, "ms")
end

local fox = assert(sinew.gltf.load("assets/fox/glTF-Binary/Fox.glb"))
local pose, walk, t = sinew.pose(fox.skeleton), fox.clips.Walk, 0
local dt = walk:duration() / 997
local ns = bench.ns_per_call(function()
  t = t + dt
  walk:sample(t, pose)
end, 200000)
bench.report(("Fox Walk: clip:sample, per joint (%d joints)"):format(#fox.skeleton), ns / #fox.skeleton, "ns")
local hips = fox.skeleton:find("b_Hip_01")
local whole = bench.ns_per_call(function()
  t = t + dt
  walk:sample(t, pose)
  pose:get(hips)
end, 200000)
local one = bench.ns_per_call(function()
  t = t + dt
  walk:sample_joint(t, hips)
end, 200000)
bench.report("Fox Walk: one joint by clip:sample then pose:get, per call", whole, "ns")
bench.report(("Fox Walk: one joint by clip:sample_joint, per call (%.2fx)"):format(one / whole), one, "ns")

-- morph targets on vertices (sinew.Morph, as the importer makes one per primitive): a mesh of
-- 3,000 vertices (position and normal, 6 floats each) with 2 and 8 targets moving both, every
-- weight non-zero; and one morphed position
do
  local vertices, rng = 3000, 12345
  local function byte() -- a fixed sequence (the figures do not depend on the values)
    rng = (rng * 16807) % 2147483647
    return rng % 256
  end
  local function floats(n) -- float32 of magnitude 0.125 .. 0.5, either sign (little-endian)
    local bytes = {}
    for i = 1, n do bytes[i] = string.char(byte(), byte(), byte(), byte() < 128 and 62 or 190) end
    return table.concat(bytes)
  end
  local function buffer(n) -- a sinew.Floats of n values
    return sinew._gltf.floats { component = 5126, count = n, view = { buffer = floats(n), length = 4 * n } }
  end
  local base = floats(6 * vertices)
  for _, targets in ipairs { 2, 8 } do
    local sets, weights = {}, {}
    for k = 1, targets do
      sets[k] = { position = buffer(3 * vertices), normal = buffer(3 * vertices) }
      weights[k] = 0.5 + 0.01 * k
    end
    local morph = sinew._morph(base, 6, { position = 0, normal = 3 }, sets)
    local apply = bench.ns_per_call(function() morph:apply(weights) end, 2000)
    bench.report(("Morph:apply, %d vertices, %d targets: per call (%.2f ns per vertex and target)"):format(vertices,
      targets, apply / vertices / targets), apply / 1e3, "us")
    local v = 0
    local each = bench.ns_per_call(function()
      v = v % vertices + 1
      morph:position(v, weights)
    end, 200000)
    bench.report(("Morph:position, %d targets: per call"):format(targets), each, "ns")
  end
end
