--- The meshes and images of a glTF file, ready for a renderer: each primitive of a mesh on a node
-- skinned to the imported skin (or on a node without a skin) as one interleaved float32 string
-- in the vertex format `love.graphics.newMesh` takes, its indices as native uint32, its mode and
-- its material, and for a primitive with morph targets its morph set (sinew.gltf.morphs); each
-- image's bytes (embedded, in a data: URI or a file beside the glTF file).
-- @module sinew.gltf.meshes
local decode = require("sinew.core")._gltf
local D = require "sinew.gltf.document"
local Fault = require "sinew.fault"
local Morphs = require "sinew.gltf.morphs"
local S = require "sinew.gltf.skeleton"
local core = require "sinew.core"
local vertex, morph_position, try = core._vertex, core._morph_position, core.try

local fail, index, list, object = Fault.fail, D.index, D.list, D.object

local M = {}

local modes = { [0] = "points", [4] = "triangles", [5] = "strip", [6] = "fan" }

-- the methods of a mesh entry
local Mesh = {}
Mesh.__index = Mesh

--- The position of vertex `v` (1-based) in the mesh's own space (no node matrix, no skinning),
-- morphed by `weights` when the primitive has morph targets: a pose of the asset's skeleton (its
-- morph weights, as a clip or an animator left them: the mesh's own from `morph_first` on), or a
-- list of numbers holding the weights of its targets from `weights[first]` on (default 1; with the
-- asset's list, the mesh's `morph_first`); nil or no targets: the position as imported. No garbage.
-- @treturn number x
-- @treturn number y
-- @treturn number z
-- @raise "bad argument #1 to 'position' (vertex 0 is out of range (1 .. 24))", and the faults
-- of `weights` as `Morph:position` gives them
function Mesh:position(v, weights, first)
  if getmetatable(self) ~= Mesh then
    error(("bad self to 'position' (a mesh of a glTF asset expected, got %s)"):format(type(self)), 2)
  end
  local morph = rawget(self, "morph")
  if morph ~= nil then -- (morph_position checks that it is a sinew.Morph, and a pose)
    if first == nil and type(weights) == "userdata" then first = rawget(self, "morph_first") end
    local x, y, z = try(morph_position, morph, v, weights, first)
    if x == nil then
      if z == nil or z < 2 then error(("bad self to 'position' (%s)"):format(y), 2) end
      error(("bad argument #%d to 'position' (%s)"):format(z - 1, y), 2)
    end
    return x, y, z
  end
  local n = tonumber(rawget(self, "vertex_count")) or 0
  if type(v) ~= "number" or v ~= math.floor(v) or not (v >= 1 and v <= n) then
    error(("bad argument #1 to 'position' (vertex %s is out of range (1 .. %s))"):format(D.show(v), D.show(n)), 2)
  end
  return vertex(rawget(self, "vertices"), rawget(self, "stride"), v)
end

-- the vertex attributes imported, in their order in a vertex: glTF name, LÖVE attribute name,
-- accepted types, slots in a vertex (the missing ones filled), skinned meshes only
local attributes = {
  { "POSITION", "VertexPosition", { VEC3 = true }, 3, 0 },
  { "NORMAL", "VertexNormal", { VEC3 = true }, 3, 0 },
  { "TEXCOORD_0", "VertexTexCoord", { VEC2 = true }, 2, 0 },
  { "COLOR_0", "VertexColor", { VEC3 = true, VEC4 = true }, 4, 1 },
  { "JOINTS_0", "VertexJoints", { VEC4 = true }, 4, 0, true },
  { "WEIGHTS_0", "VertexWeights", { VEC4 = true }, 4, 0, true },
}

-- the material of a primitive: name, base colour factor, and the image of its base colour
-- texture (1-based into asset.images) or nil
local function material(doc, m, path)
  if m == nil then return { base_color = { 1, 1, 1, 1 }, texcoord = 0 } end
  local materials = doc:array("materials")
  m = index(m, #materials, path, "material")
  local mpath = ("materials[%d]"):format(m)
  local mat = object(materials[m + 1], mpath)
  local pbr = object(mat.pbrMetallicRoughness, mpath .. ".pbrMetallicRoughness", true) or {}
  local out = { name = type(mat.name) == "string" and mat.name or nil,
    base_color = D.numbers(pbr.baseColorFactor, 4, mpath .. ".pbrMetallicRoughness.baseColorFactor", { 1, 1, 1, 1 }) }
  local tpath = mpath .. ".pbrMetallicRoughness.baseColorTexture"
  local tex = object(pbr.baseColorTexture, tpath, true)
  out.texcoord = 0
  if tex then
    local textures = doc:array("textures")
    local t = index(tex.index, #textures, tpath .. ".index", "texture")
    local texture = object(textures[t + 1], ("textures[%d]"):format(t))
    if texture.source ~= nil then
      out.image = index(texture.source, #doc:array("images"), ("textures[%d].source"):format(t), "image") + 1
    end
    out.texcoord = D.count(tex.texCoord, tpath .. ".texCoord", 0)
    local ext = object(tex.extensions, tpath .. ".extensions", true)
    local xpath = tpath .. ".extensions.KHR_texture_transform"
    local tt = ext and object(ext.KHR_texture_transform, xpath, true)
    if tt then
      local offset = D.numbers(tt.offset, 2, xpath .. ".offset", { 0, 0 })
      local scale = D.numbers(tt.scale, 2, xpath .. ".scale", { 1, 1 })
      local rotation = D.numbers(tt.rotation ~= nil and { tt.rotation } or nil, 1, xpath .. ".rotation", { 0 })[1]
      out.texcoord = D.count(tt.texCoord, xpath .. ".texCoord", out.texcoord)
      out.uv_transform = { offset = offset, rotation = rotation, scale = scale }
      -- scale, then rotate (u' = u cos + v sin, v' = v cos - u sin: the turn the Khronos sample
      -- models, Blender and Babylon.js make), then offset: 2 x 3, column-major
      local c, sn = math.cos(rotation), math.sin(rotation)
      out.uv_matrix = { c * scale[1], -sn * scale[1], sn * scale[2], c * scale[2], offset[1], offset[2] }
    end
  end
  return out
end

-- one primitive as a mesh description, or nil and why it is skipped
local function primitive(doc, prim, ppath, skinned, map)
  local attrs = object(prim.attributes, ppath .. ".attributes")
  if attrs.POSITION == nil then return nil, "no POSITION attribute" end
  local mode = prim.mode == nil and 4 or prim.mode
  if not modes[mode] then return nil, ("mode %s (lines are not drawn by love.graphics meshes)"):format(D.show(mode)) end
  local mat = material(doc, prim.material, ppath .. ".material")
  local list_in, format, key = {}, {}, { skinned and "skinned" or "rigid", tostring(prim.material) }
  for _, a in ipairs(attributes) do
    local name, love_name, types, slots, fill, skin_only = a[1], a[2], a[3], a[4], a[5], a[6]
    if name == "TEXCOORD_0" then name = "TEXCOORD_" .. mat.texcoord end -- the base colour texture's set
    if attrs[name] ~= nil and (skinned or not skin_only) then
      local apath = ppath .. ".attributes." .. name
      local desc = doc:accessor(attrs[name], apath)
      if not types[desc.type] then fail(apath, "accessor %d is a %s, not a %s", desc.index, desc.type, D.names(types)) end
      if name == "JOINTS_0" and (desc.normalized or (desc.component ~= 5121 and desc.component ~= 5123)) then
        fail(apath, "accessor %d: joints must be unsigned bytes or shorts, not normalized", desc.index)
      end
      list_in[#list_in + 1] = { accessor = desc, slots = slots, fill = fill, joints = name == "JOINTS_0" or nil,
        weights = name == "WEIGHTS_0" or nil, transform = love_name == "VertexTexCoord" and mat.uv_matrix or nil }
      format[#format + 1] = { love_name, "float", slots }
      key[#key + 1] = name .. "=" .. desc.index
    end
  end
  -- primitives on the same accessors (and material: its texture transform) share one string
  key = table.concat(key, " ")
  local done = doc.vertex_strings[key]
  if not done then
    local first, slots = list_in[1].accessor, 0
    for _, a in ipairs(list_in) do slots = slots + a.slots end
    doc:spend_values(first, 4, ppath .. ".attributes", first.count * slots)
    done = { Fault.core(ppath .. ".attributes", decode.vertices, list_in, map) }
    doc.vertex_strings[key] = done
  end
  local vertices, count = done[1], done[2]
  local stride = 0
  for _, a in ipairs(list_in) do stride = stride + a.slots end
  local out = { format = format, vertices = vertices, vertex_count = count, mode = modes[mode], stride = stride }
  -- POSITION is the first attribute (slot 0), NORMAL the second when there is one (slot 3)
  out.morph = Morphs.set(doc, prim, ppath, vertices, count, stride,
    { position = 0, normal = attrs.NORMAL ~= nil and 3 or nil })
  if prim.indices ~= nil then
    local ipath = ppath .. ".indices"
    local desc = doc:accessor(prim.indices, ipath)
    if desc.type ~= "SCALAR" then fail(ipath, "accessor %d is a %s, not a SCALAR", desc.index, desc.type) end
    local ikey = desc.index .. " " .. count
    if not doc.index_strings[ikey] then
      doc:spend_values(desc, 4, ipath)
      doc.index_strings[ikey] = Fault.core(ipath, decode.indices, desc, count)
    end
    out.indices = doc.index_strings[ikey]
    out.index_count = desc.count
  end
  mat.uv_matrix = nil
  out.material = mat
  return out
end

--- What each mesh entry of the asset (or entry of `skipped` for a primitive) counts against the
-- budget (options.max_bytes): its table; the strings of its vertices and indices count once,
-- however many entries share them.
M.ENTRY_BYTES = 512

--- The mesh primitives of the nodes that carry the imported skin, and of nodes without a skin.
-- A primitive is decoded once, however many nodes show it: their entries share its strings,
-- format and material.
function M.meshes(doc, nodes, joints, joint_of, skipped, ranges)
  local meshes = doc:array("meshes")
  doc.vertex_strings, doc.index_strings = {}, {}
  local made = {} -- "mesh primitive skinned" -> { entry } or { nil, why }
  local map
  if joints.skin then
    map = {}
    for k, n in ipairs(joints.skin) do map[k] = joint_of[n] - 1 end
  end
  local out = {}
  for i = 0, nodes.count - 1 do
    local node = nodes[i]
    if node.mesh ~= nil then
      local mi = index(node.mesh, #meshes, node.path .. ".mesh", "mesh")
      local skinned = node.skin ~= nil
      if skinned and node.skin ~= joints.skin_index then
        skipped[#skipped + 1] = { path = node.path,
          why = ("mesh %d is skinned to skin %s, not the one imported"):format(mi, D.show(node.skin)) }
      else
        local mpath = ("meshes[%d]"):format(mi)
        local m = object(meshes[mi + 1], mpath)
        for pi, prim in ipairs(list(m.primitives, mpath .. ".primitives")) do
          local ppath = ("%s.primitives[%d]"):format(mpath, pi - 1)
          local key = ("%d %d %s"):format(mi, pi, skinned and "s" or "r")
          local done = made[key]
          if not done then
            done = { primitive(doc, object(prim, ppath), ppath, skinned, map) }
            made[key] = done
          end
          local p, why = done[1], done[2]
          if p then
            doc:spend(M.ENTRY_BYTES, node.path .. ".mesh")
            local range = ranges[mi]
            p = setmetatable({ format = p.format, vertices = p.vertices, vertex_count = p.vertex_count, mode = p.mode,
              indices = p.indices, index_count = p.index_count, material = p.material, stride = p.stride,
              morph = p.morph, morph_first = range and range.first, morph_count = range and range.count or 0 }, Mesh)
            p.mesh, p.primitive, p.node = mi, pi - 1, i
            p.name = type(m.name) == "string" and m.name or nil
            p.skinned = skinned
            p.matrix = skinned and S.IDENTITY or S.world(nodes, i)
            out[#out + 1] = p
          else
            doc:spend(M.ENTRY_BYTES, node.path .. ".mesh") -- many nodes may show a skipped primitive
            skipped[#skipped + 1] = { path = ppath, why = why }
          end
        end
      end
    end
  end
  return out
end

local mimes = { png = "image/png", jpg = "image/jpeg", jpeg = "image/jpeg", ktx2 = "image/ktx2", webp = "image/webp" }

--- The images: a list (glTF image i at i + 1) of { index = i, bytes, uri, mime, name }. An image
-- whose file is missing has no bytes (and is listed in `skipped`): animation does not need it.
-- Images on the same buffer view, or the same URI, share one string.
function M.images(doc, skipped)
  local out, shared = {}, {}
  for i, img in ipairs(doc:array("images")) do
    local path = ("images[%d]"):format(i - 1)
    img = object(img, path)
    local entry = { index = i - 1, uri = type(img.uri) == "string" and img.uri or nil,
      name = type(img.name) == "string" and img.name or nil, mime = type(img.mimeType) == "string" and img.mimeType or nil }
    if img.bufferView ~= nil then
      local vpath = path .. ".bufferView"
      local v = doc:view(img.bufferView, vpath)
      if not shared[v] then -- a view is one table per index
        doc:spend(v.length, vpath)
        shared[v] = v.buffer:sub(v.offset + 1, v.offset + v.length)
      end
      entry.bytes = shared[v]
    elseif img.uri ~= nil then
      local upath = path .. ".uri"
      local key = type(img.uri) == "string" and "uri " .. img.uri
      if not (key and shared[key]) then
        local bytes, why = D.uri_bytes(img.uri, doc.base_dir, doc.reader, upath, doc:left(),
          function(n) doc:spend(n, upath) end)
        if bytes and why == true then fail(upath, "the import needs more than %d bytes of data (options.max_bytes)",
          doc.max_bytes) end
        if bytes and img.uri:sub(1, 5) ~= "data:" then doc:spend(#bytes, upath) end
        shared[key] = { bytes, why }
      end
      entry.bytes = shared[key][1]
      if entry.bytes == nil then skipped[#skipped + 1] = { path = path, why = shared[key][2] } end
    end
    if entry.mime == nil and entry.uri then
      entry.mime = mimes[(entry.uri:match("%.(%w+)$") or ""):lower()] or entry.uri:match("^data:([^;,]+)")
    end
    out[i] = entry
  end
  return out
end

return M
