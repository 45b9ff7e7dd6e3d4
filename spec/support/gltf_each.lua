-- Child process of spec/gltf_assimp_spec.lua: loads every glTF file under the folder given (a
-- .gltf or .glb, found with find) with sinew.gltf.load and prints a line per file: "OK <path>
-- <joints> <clips>", "NIL <path> <message>" or "RAISE <path> <error>"; a crash ends the process.
local sinew = require "sinew"
local root = assert(arg[1], "a folder")
local p = assert(io.popen(("find '%s' -name '*.gltf' -o -name '*.glb' | sort"):format(root)))
local n = 0
for path in p:lines() do
  n = n + 1
  local ok, asset, err = pcall(sinew.gltf.load, path)
  local rel = path:sub(#root + 2)
  if not ok then
    print(("RAISE %s %s"):format(rel, tostring(asset)))
  elseif asset == nil then
    print(("NIL %s %s"):format(rel, tostring(err)))
  else
    local clips = 0
    for _ in pairs(asset.clips) do clips = clips + 1 end
    print(("OK %s %d %d"):format(rel, #asset.skeleton, clips))
  end
end
p:close()
print(("files: %d"):format(n))
