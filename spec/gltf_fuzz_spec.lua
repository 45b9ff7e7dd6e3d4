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

local Spoil = require "support.gltf_spoil"

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
      local rng = Spoil.generator(20261125 + fi)
      local text, bin = sinew._gltf.glb(read(path))
      local tree = assert(json.decode(text, 1, nil))
      local imported, refused = 0, 0
      for round = 1, ROUNDS do
        local bytes = Spoil.spoil(rng, round, tree, text, bin)
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
