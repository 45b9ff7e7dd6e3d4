-- The glTF 2.0 files of Debian's assimp-testmodels (issue 26): the valid ones with nodes load, the
-- ones that need what sinew does not import (Draco, techniques) and the broken ones
-- (IndexOutOfRange, RecursiveNodes, SchemaFailures, MissingBin, wrong types) give `nil, message`,
-- never an error or a crash: all of them in a child process (a crash fails this spec).
local helper = require "helper"

local ROOT = "/usr/share/assimp/models/glTF2"

-- the files that give nil, and what their message says
local REFUSED = {
  ["draco/2CylinderEngine.gltf"] = "'KHR_draco_mesh_compression' is not supported",
  ["BoxTextured-glTF-techniqueWebGL/BoxTextured.gltf"] = "'KHR_technique_webgl' is not supported",
  ["TestNoRootNode/NoScene.gltf"] = "scene: scene 0 is out of range (0 scenes)",
  ["TestNoRootNode/SceneWithoutNodes.gltf"] = "the file has no skin and its scene no nodes",
  ["SchemaFailures/sceneWrongType.gltf"] = "scene: scene index must be an integer (got 'hello')",
  ["IndexOutOfRange/IndexOutOfRange.gltf"] = "indices: index 255 (entry 0) is out of range (0 .. 23)",
  ["IndexOutOfRange/AllIndicesOutOfRange.gltf"] = "indices: index 65535 (entry 0) is out of range (0 .. 23)",
  ["RecursiveNodes/RecursiveNodes.gltf"] = "nodes[0]: its parents form a cycle",
  ["MissingBin/BoxTextured.gltf"] = "buffers[0].uri: cannot read",
  ["wrongTypes/badArray.gltf"] = "meshes[0].primitives: must be an array (got an object)",
  ["wrongTypes/badObject.gltf"] = "materials[0].pbrMetallicRoughness: must be an object (got an array)",
  ["wrongTypes/badUint.gltf"] = "baseColorTexture.index: texture -1 is out of range (1 texture)",
  ["wrongTypes/badExtension.gltf"] = "extensions.KHR_texture_transform: must be an object (got string)",
}

describe("the glTF files of Debian's assimp-testmodels", function()
  local present = helper.exists(ROOT .. "/BoxTextured-glTF/BoxTextured.gltf")
  ;(present and it or pending)("load, or give nil and a message for what is broken or not imported", function()
    local out, status = helper.lua_child("spec/support/gltf_each.lua " .. helper.quote(ROOT), 240)
    assert.equal(0, status, out)
    local files = tonumber(out:match("files: (%d+)"))
    assert.is_true(files and files >= 40, out)
    local seen, loaded = {}, 0
    for kind, path, rest in out:gmatch("(%u+) (%S+) ([^\n]*)") do
      seen[path] = true
      assert.are_not.equal("RAISE", kind, path .. ": " .. rest)
      if REFUSED[path] then
        assert.equal("NIL", kind, path .. " loaded")
        assert.is_truthy(rest:find(REFUSED[path], 1, true), path .. ": " .. rest)
      else
        assert.equal("OK", kind, path .. ": " .. rest)
        loaded = loaded + 1
      end
    end
    for path in pairs(REFUSED) do assert.is_true(seen[path], path .. " not found") end
    assert.is_true(loaded >= 30, "loaded " .. loaded)
  end)
  if not present then pending("install Debian's assimp-testmodels (make test-all and make demo do)") end
end)
