-- The whole sinew.gltf.parse path fed mutated .glb files: the glTF corpus with its JSON spoiled
-- value by value (indices, counts, offsets, types swapped for others) and its binary chunk
-- spoiled byte by byte. Every file must give an asset whose clips sample, or nil and a message
-- naming the file; never a Lua error, never a crash (the sanitizer and valgrind runs watch the
-- C side). SINEW_GLTF_FUZZ sets the mutations per file (default 150; 30 in `make test`, SINEW_QUICK).
local sinew = require "sinew"
local figures = require "spec.support.figures" -- printed after the run with SINEW_VERBOSE=1
local json = require "dkjson"

local ROUNDS = tonumber(os.getenv("SINEW_GLTF_FUZZ") or (os.getenv("SINEW_QUICK") == "1" and "30" or "150"))

local read = require("helper").read_file

local glb = require("support.gltf_hostile").glb -- a .glb of JSON text and a BIN chunk

-- a deterministic generator, the same on every Lua
local function generator(seed)
  local state = seed
  return function(n)
    state = (state * 16807) % 2147483647
    return 1 + state % n
  end
end

-- the values a spoiled JSON value becomes
local pool = { 0, 1, -1, 2, 3, 7, 24, 255, 256, 5120, 5121, 5122, 5123, 5125, 5126, 65535, 65536, 2 ^ 31, 2 ^ 32 + 1,
  2 ^ 53, 2 ^ 60, 1e300, -1e300, 0.5, -0.25, "x", "", "SCALAR", "VEC4", "MAT4", "rotation", "translation", "weights",
  "CUBICSPLINE", "STEP", true, false, {}, { 0 }, { 0, 0, 0, 0 }, { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0 },
  "data:application/octet-stream;base64,AAAA", "../x.bin", "missing.bin" }

local copy = require("helper").deep_copy

-- every (table, key) of the tree, in a fixed order
local function slots(tree)
  local out = {}
  local function walk(t)
    local keys = {}
    for k in pairs(t) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b)
      if type(a) == type(b) then return a < b end
      return type(a) == "number"
    end)
    for _, k in ipairs(keys) do
      out[#out + 1] = { t, k }
      if type(t[k]) == "table" then walk(t[k]) end
    end
  end
  walk(tree)
  return out
end

local files = {
  "spec/gltf-corpus/SimpleSkin/glTF-Binary/SimpleSkin.glb",
  "spec/gltf-corpus/RiggedSimple/glTF-Binary/RiggedSimple.glb",
  "spec/gltf-corpus/BoxAnimated/glTF-Binary/BoxAnimated.glb",
  "spec/gltf-corpus/InterpolationTest/glTF-Binary/InterpolationTest.glb",
  "spec/gltf-corpus/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb",
  "assets/fox/glTF-Binary/Fox.glb",
}

describe("sinew.gltf.parse on mutated .glb files", function()
  for fi, path in ipairs(files) do
    it(("gives an asset or nil and a message for every spoiled %s"):format(path:match("[^/]*$")), function()
      local rng = generator(20261125 + fi)
      local text, bin = sinew._gltf.glb(read(path))
      local tree = assert(json.decode(text, 1, nil))
      local imported, refused = 0, 0
      for round = 1, ROUNDS do
        local bytes
        if round % 3 ~= 0 then -- spoil 1 to 3 JSON values
          local t = copy(tree)
          local all = slots(t)
          for _ = 1, rng(3) do
            local s = all[rng(#all)]
            local v = pool[rng(#pool + 1)] -- one past the pool: remove the value
            s[1][s[2]] = copy(v)
          end
          bytes = glb(json.encode(t), bin)
        else -- spoil bytes of the binary chunk (floats, indices, joints), or cut the file short
          local b = bin
          for _ = 1, rng(8) do
            local p = rng(#b)
            b = b:sub(1, p - 1) .. string.char(rng(256) - 1) .. b:sub(p + 1)
          end
          bytes = glb(text, b)
          if rng(4) == 1 then bytes = bytes:sub(1, rng(#bytes)) end
        end
        local ok, a, err = pcall(sinew.gltf.parse, bytes, { name = "spoiled.glb" })
        assert.is_true(ok, "round " .. round .. ": an error: " .. tostring(a))
        if a then
          imported = imported + 1
          assert.is_nil(err)
          local pose = sinew.pose(a.skeleton)
          for _, name in ipairs(a.clip_names) do
            local clip = a.clips[name]
            for _, t in ipairs { 0, clip:duration() / 3, clip:duration() } do clip:sample(t, pose) end
          end
        else
          refused = refused + 1
          assert.is_string(err)
          assert.matches("^spoiled%.glb: ", err)
        end
      end
      figures.add(("%s: %d spoiled files imported, %d refused with a message"):format(path:match("[^/]*$"), imported, refused))
      assert.equal(ROUNDS, imported + refused)
    end)
  end
end)
