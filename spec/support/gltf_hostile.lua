-- Small glTF files that are costly to import (issue 21), made in memory: spec/gltf_limits_spec.lua
-- imports each in a child process with time and memory caps. Each function returns the bytes of a
-- .gltf (JSON text) or a .glb.
local json = require "dkjson"

local M = {}

local function u32s(v)
  return string.char(v % 256, math.floor(v / 256) % 256, math.floor(v / 65536) % 256, math.floor(v / 16777216) % 256)
end

local function f32s(v) -- small finite floats of the cases below (string.pack is 5.3+)
  if v == 0 then return "\0\0\0\0" end
  local sign = v < 0 and 1 or 0
  v = math.abs(v)
  local e = math.floor(math.log(v) / math.log(2)) -- (Lua 5.1 has no base argument)
  if v / 2 ^ e >= 2 then e = e + 1 end
  if v / 2 ^ e < 1 then e = e - 1 end
  local m = math.floor((v / 2 ^ e - 1) * 2 ^ 23 + 0.5)
  local bits = sign * 2 ^ 31 + (e + 127) * 2 ^ 23 + m
  return u32s(bits)
end
M.f32s = f32s

--- A .glb of JSON `text` and BIN chunk `bin` (padded to 4 bytes).
function M.glb(text, bin)
  text = text .. (" "):rep((4 - #text % 4) % 4)
  local body = u32s(#text) .. "JSON" .. text
  if bin then
    bin = bin .. ("\0"):rep((4 - #bin % 4) % 4)
    body = body .. u32s(#bin) .. "BIN\0" .. bin
  end
  return "glTF" .. u32s(2) .. u32s(12 + #body) .. body
end

--- `primitives` primitives of one mesh on one accessor of `vertices` VEC3 without a buffer view
-- (`apart`: each on an accessor of its own).
function M.shared_positions(primitives, vertices, apart)
  local prims, accessors = {}, {}
  for i = 1, primitives do
    prims[i] = { attributes = { POSITION = apart and i - 1 or 0 } }
    if apart or i == 1 then accessors[i] = { componentType = 5126, type = "VEC3", count = vertices } end
  end
  return json.encode {
    asset = { version = "2.0" },
    accessors = accessors,
    meshes = { { primitives = prims } },
    nodes = { { mesh = 0 } },
    scenes = { { nodes = { 0 } } },
  }
end

--- A .glb with `images` images on one buffer view of `bytes` bytes (`apart`: each on a view of
-- its own, all over the same bytes).
function M.shared_image_view(images, bytes, apart)
  local list, views = {}, {}
  for i = 1, images do
    list[i] = { bufferView = apart and i - 1 or 0, mimeType = "image/png" }
    if apart or i == 1 then views[i] = { buffer = 0, byteLength = bytes } end
  end
  return M.glb(json.encode {
    asset = { version = "2.0" },
    buffers = { { byteLength = bytes } },
    bufferViews = views,
    images = list,
    nodes = { {} },
  }, ("\137PNG"):rep(bytes / 4))
end

--- A .glb with `animations` animations, each one channel on one sampler of `keys` rotation keys
-- (the same two accessors); `apart`: each animation moves a node of its own (of a chain).
function M.shared_sampler(animations, keys, apart)
  local times, rots = {}, {}
  for k = 0, keys - 1 do
    times[#times + 1] = f32s(k / 8)
    local a = (k % 64) * 0.01
    rots[#rots + 1] = f32s(0) .. f32s(math.sin(a)) .. f32s(0) .. f32s(math.cos(a))
  end
  local bin = table.concat(times) .. table.concat(rots)
  local anims, nodes = {}, { {} }
  for i = 1, animations do
    anims[i] = { samplers = { { input = 0, output = 1 } },
      channels = { { sampler = 0, target = { node = apart and i - 1 or 0, path = "rotation" } } } }
    if apart and i > 1 then
      nodes[i] = {}
      nodes[i - 1].children = { i - 1 }
    end
  end
  return M.glb(json.encode {
    asset = { version = "2.0" },
    buffers = { { byteLength = #bin } },
    bufferViews = { { buffer = 0, byteLength = 4 * keys }, { buffer = 0, byteOffset = 4 * keys, byteLength = 16 * keys } },
    accessors = { { bufferView = 0, componentType = 5126, type = "SCALAR", count = keys, min = { 0 }, max = { (keys - 1) / 8 } },
      { bufferView = 1, componentType = 5126, type = "VEC4", count = keys } },
    animations = anims,
    nodes = nodes,
    scenes = { { nodes = { 0 } } },
  }, bin)
end

--- `nodes` nodes each showing one mesh of `primitives` primitives on one small accessor.
function M.many_nodes(nodes, primitives)
  local prims, list = {}, {}
  for i = 1, primitives do prims[i] = { attributes = { POSITION = 0 } } end
  for i = 1, nodes do list[i] = '{"mesh":0}' end
  return '{"asset":{"version":"2.0"},"accessors":[{"componentType":5126,"type":"VEC3","count":3}],"meshes":' ..
    json.encode { { primitives = prims } } .. ',"nodes":[' .. table.concat(list, ",") .. "]}"
end

--- A chain of `depth` nodes, each the child of the one before.
function M.node_chain(depth)
  local parts = {}
  for i = 1, depth - 1 do parts[i] = ('{"children":[%d]}'):format(i) end
  parts[depth] = "{}"
  return '{"asset":{"version":"2.0"},"scenes":[{"nodes":[0]}],"nodes":[' .. table.concat(parts, ",") .. "]}"
end

return M
