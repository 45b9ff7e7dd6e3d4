-- glTF import with sinew.gltf: loads a .glb or .gltf (the Khronos Fox by default) and prints its
-- joints as a tree, its clips with their durations, its meshes, morph targets and what was skipped, then plays
-- a clip and prints the path of the joint that moves most. Run from a clone:
--   make && lua5.4 examples/gltf_info.lua [file.glb]
local root = dofile((arg and arg[0] or ""):gsub("[^/\\]*$", "") .. "clone.lua") -- run from a clone: see clone.lua
local sinew = require "sinew"

local path = arg and arg[1] or root .. "assets/fox/glTF-Binary/Fox.glb"
local asset, err = sinew.gltf.load(path)
if not asset then
  io.stderr:write(err, "\n")
  os.exit(1)
end
local skel = asset.skeleton

-- the joints, each under its parent (parents come first, so one pass finds every depth)
print(("%s: %d joints"):format(path:match("[^/\\]*$"), #skel))
local depth = {}
for j = 1, #skel do
  local p = skel:parent(j)
  depth[j] = p == 0 and 0 or depth[p] + 1
  print(("  %2d %s%s  (node %d)"):format(j, ("  "):rep(depth[j]), skel:name(j), asset.nodes[j].node))
end

print(("%d clips"):format(#asset.clip_names))
for _, name in ipairs(asset.clip_names) do
  local clip = asset.clips[name]
  print(("  %-12s %6.3f s"):format(name, clip:duration()))
end

for i, m in ipairs(asset.meshes) do
  local attrs = {}
  for k, f in ipairs(m.format) do attrs[k] = f[1] end
  print(("mesh %d: %s, %d vertices, %s%s, %s"):format(i, m.name or "(no name)", m.vertex_count,
    m.index_count and (m.index_count .. " indices, ") or "", m.mode, table.concat(attrs, " ")))
end
if #asset.morphs.names > 0 then
  print(("%d morph targets: %s"):format(#asset.morphs.names, table.concat(asset.morphs.names, " ")))
  for _, name in ipairs(asset.clip_names) do
    local n = #asset.morph_tracks[name]
    if n > 0 then print(("  %s drives them with %d weight tracks"):format(name, n)) end
  end
end
for _, s in ipairs(asset.skipped) do print(("skipped %s: %s"):format(s.path, s.why)) end

-- play a clip (Walk, or the first): the joint that travels farthest over one loop, in model space
local name = asset.clips.Walk and "Walk" or asset.clip_names[1]
if name then
  local clip, pose, mats = asset.clips[name], sinew.pose(skel), sinew.matrices(skel)
  local steps, track, far, far_len = 8, {}, 1, -1
  for k = 0, steps do
    clip:sample(clip:duration() * k / steps, pose)
    pose:to_model(mats)
    for j = 1, #skel do
      local m = { mats:get(j) }
      track[j] = track[j] or {}
      track[j][k] = { m[13], m[14], m[15] }
    end
  end
  for j = 1, #skel do
    local len = 0
    for k = 1, steps do
      local a, b = track[j][k - 1], track[j][k]
      len = len + math.sqrt((b[1] - a[1]) ^ 2 + (b[2] - a[2]) ^ 2 + (b[3] - a[3]) ^ 2)
    end
    if len > far_len then far, far_len = j, len end
  end
  print(("%s: joint '%s' travels farthest (%.3f per loop):"):format(name, skel:name(far), far_len))
  for k = 0, steps, 2 do
    local p = track[far][k]
    print(("  t = %5.3f s: %8.3f %8.3f %8.3f"):format(clip:duration() * k / steps, p[1], p[2], p[3]))
  end
  mats:skin(asset.inverse_bind, asset.root_matrix) -- the matrices a skinning shader takes
end
