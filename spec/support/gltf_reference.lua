-- A reference decoder of glTF files in plain Lua, independent of sinew's C decoder (only its
-- base64 is borrowed): the specs check the importer against it (spec/gltf_spec.lua,
-- spec/gltf_morph_spec.lua).
local helper = require "helper"
local sinew = require "sinew"
local json = require "dkjson"

local M = {}

local read = helper.read_file

local function u8(s, p) return s:byte(p) end
local function u16(s, p) local a, b = s:byte(p, p + 1) return a + 256 * b end
local function u32(s, p) local a, b, c, d = s:byte(p, p + 3) return a + 256 * (b + 256 * (c + 256 * d)) end
local function f32(s, p)
  local b1, b2, b3, b4 = s:byte(p, p + 3)
  local sign = b4 >= 128 and -1 or 1
  local e = (b4 % 128) * 2 + math.floor(b3 / 128)
  local m = ((b3 % 128) * 256 + b2) * 256 + b1
  if e == 0 then return sign * m * 2 ^ -149 end
  if e == 255 then return m == 0 and sign * math.huge or 0 / 0 end
  return sign * (1 + m / 2 ^ 23) * 2 ^ (e - 127)
end
local readers = {
  [5120] = { 1, function(s, p) local v = u8(s, p) return v >= 128 and v - 256 or v end, 127 },
  [5121] = { 1, u8, 255 },
  [5122] = { 2, function(s, p) local v = u16(s, p) return v >= 32768 and v - 65536 or v end, 32767 },
  [5123] = { 2, u16, 65535 },
  [5125] = { 4, u32 },
  [5126] = { 4, f32 },
}
local widths = { SCALAR = 1, VEC2 = 2, VEC3 = 3, VEC4 = 4, MAT4 = 16 }

-- the raw document: JSON and buffers (glb or external files or data URIs)
local function raw(path)
  local bytes = read(path)
  local text, bin = bytes, nil
  if bytes:sub(1, 4) == "glTF" then
    local jlen = u32(bytes, 13)
    text = bytes:sub(21, 20 + jlen)
    local b = 21 + jlen
    if b + 8 <= #bytes then bin = bytes:sub(b + 8, b + 7 + u32(bytes, b)) end
  end
  local doc = assert(json.decode(text))
  local dir = path:match("^(.*)/")
  doc._buffers = {}
  for i, b in ipairs(doc.buffers) do
    if not b.uri then doc._buffers[i] = bin
    elseif b.uri:match("^data:") then doc._buffers[i] = sinew._gltf.base64(b.uri:match(",(.*)$"))
    else doc._buffers[i] = read(dir .. "/" .. b.uri) end
  end
  return doc
end

local function view_bytes(doc, v)
  local view = doc.bufferViews[v + 1]
  return doc._buffers[view.buffer + 1], (view.byteOffset or 0), view.byteStride
end

-- accessor i of the raw document as a flat list of numbers
local function accessor(doc, i)
  local a = doc.accessors[i + 1]
  local w, r = widths[a.type], readers[a.componentType]
  local out = {}
  local function value(s, p)
    local v = r[2](s, p)
    if a.normalized then v = math.max(v / r[3], -1) end
    return v
  end
  if a.bufferView then
    local s, off, stride = view_bytes(doc, a.bufferView)
    stride = stride or w * r[1]
    for e = 0, a.count - 1 do
      for c = 0, w - 1 do out[e * w + c + 1] = value(s, off + (a.byteOffset or 0) + e * stride + c * r[1] + 1) end
    end
  else
    for k = 1, a.count * w do out[k] = 0 end
  end
  if a.sparse then
    local ir = readers[a.sparse.indices.componentType]
    local is, ioff = view_bytes(doc, a.sparse.indices.bufferView)
    local vs, voff = view_bytes(doc, a.sparse.values.bufferView)
    ioff, voff = ioff + (a.sparse.indices.byteOffset or 0), voff + (a.sparse.values.byteOffset or 0)
    for k = 0, a.sparse.count - 1 do
      local e = ir[2](is, ioff + k * ir[1] + 1)
      for c = 0, w - 1 do out[e * w + c + 1] = value(vs, voff + (k * w + c) * r[1] + 1) end
    end
  end
  return out
end

-- standard base64 of the bytes `s`, padded with '=' (for data: URIs of files made by specs)
local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
function M.base64(s)
  local out = {}
  for i = 1, #s, 3 do
    local a, b, c = s:byte(i, i + 2)
    local n = a * 65536 + (b or 0) * 256 + (c or 0)
    local k = { math.floor(n / 262144) % 64, math.floor(n / 4096) % 64, math.floor(n / 64) % 64, n % 64 }
    for j = 1, 4 do out[#out + 1] = B64:sub(k[j] + 1, k[j] + 1) end
    if not b then out[#out], out[#out - 1] = "=", "=" elseif not c then out[#out] = "=" end
  end
  return table.concat(out)
end

M.u8, M.u16, M.u32, M.f32 = u8, u16, u32, f32
M.readers, M.widths, M.raw, M.view_bytes, M.accessor = readers, widths, raw, view_bytes, accessor

return M
