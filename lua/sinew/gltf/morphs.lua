--- The morph targets of a glTF file: the asset's list of them (one entry per target of each mesh
-- the import shows, mesh after mesh by index, then target after target), their names and default
-- weights, and the morph set of one primitive (its base vertices and the deltas of its targets,
-- in C: sinew.core._morph). The weights channels of animations are clips.lua's; they name
-- entries of this list.
-- @module sinew.gltf.morphs
local sinew_core = require "sinew.core"
local D = require "sinew.gltf.document"
local Fault = require "sinew.fault"

local fail, index, list, object = Fault.fail, D.index, D.list, D.object

local M = {}

local FLT_MAX = 3.4028234663852886e38
local MAX_TARGETS = sinew_core._MORPH_MAX_TARGETS -- (SN_MORPH_MAX_TARGETS)

--- Whether the import shows `node`'s mesh: a node with a mesh, without a skin or with the
-- imported one (sinew.gltf.meshes makes an entry of each of its primitives).
function M.shown(node, joints)
  return node.mesh ~= nil and (node.skin == nil or node.skin == joints.skin_index)
end

-- `v` (a mesh's or node's weights) as a list of `n` finite float numbers
local function weights(v, n, path, mi)
  if type(v) ~= "table" or (next(v) ~= nil and rawget(v, 1) == nil) then
    fail(path, "must be an array of numbers (got %s)", D.show(v))
  end
  if #v ~= n then fail(path, "has %d weights, but mesh %d has %d morph targets", #v, mi, n) end
  for i = 1, n do
    local x = v[i]
    if type(x) ~= "number" or not (x >= -FLT_MAX and x <= FLT_MAX) then
      fail(path, "weight %d is not a finite number (got %s)", i - 1, D.show(x))
    end
  end
  return v
end

--- What each target of the list counts against the budget (options.max_bytes): its name, default
-- and indices in the list's tables.
M.ENTRY_BYTES = 96

-- a mesh's targets: their count (the same in every primitive), default weights and names
local function targets_of(doc, meshes, mi)
  local mpath = ("meshes[%d]"):format(mi)
  local m = object(meshes[mi + 1], mpath)
  local count
  for pi, prim in ipairs(list(m.primitives, mpath .. ".primitives")) do
    local ppath = ("%s.primitives[%d]"):format(mpath, pi - 1)
    local n = #list(object(prim, ppath).targets, ppath .. ".targets")
    if n > MAX_TARGETS then
      fail(ppath .. ".targets", "%d morph targets, more than the %d a mesh may have", n, MAX_TARGETS)
    elseif count == nil then
      count = n
    elseif n ~= count then
      fail(ppath .. ".targets", "%d morph targets, but primitive 0 has %d (the primitives of a mesh have the same targets)",
        n, count)
    end
  end
  count = count or 0
  doc:spend(M.ENTRY_BYTES * count, mpath .. ".primitives")
  local info = { mesh = mi, count = count, defaults = {}, names = {},
    name = type(m.name) == "string" and m.name ~= "" and m.name or ("mesh_" .. mi) }
  local w = m.weights ~= nil and weights(m.weights, count, mpath .. ".weights", mi)
  for t = 1, count do info.defaults[t] = w and w[t] or 0 end
  local extras = type(m.extras) == "table" and m.extras or nil
  local names = extras and rawget(extras, "targetNames")
  local ok = type(names) == "table" and #names == count
  for t = 1, ok and count or 0 do ok = type(names[t]) == "string" and names[t] ~= "" end
  for t = 1, count do info.names[t] = ok and names[t] or tostring(t - 1) end
  return info
end

-- the weights of two nodes differ
local function differ(a, b)
  for i = 1, #a do
    if a[i] ~= b[i] then return true end
  end
  return false
end

--- The asset's morph list: `{ names = {...}, defaults = {...}, mesh = {...}, target = {...} }`,
-- entry k the target `target[k]` (0-based) of mesh `mesh[k]` (0-based), named
-- "<mesh name or mesh_<i>>.<targetNames entry or target index from 0>" (a name taken already
-- gets "_<mesh index>" after the mesh's part), its default weight the mesh's `weights`, or the
-- first node's (in node order) `weights` that shows the mesh. Also a table mesh index -> { first
-- = 1-based index of its first entry, count = its targets }, for the meshes and the clips. A
-- node that shows the mesh with other weights is listed in `skipped` (one set per mesh).
function M.list(doc, nodes, joints, skipped)
  local meshes = doc:array("meshes")
  local infos, order = {}, {}
  for i = 0, nodes.count - 1 do
    local node = nodes[i]
    if node.mesh ~= nil then
      local mi = index(node.mesh, #meshes, node.path .. ".mesh", "mesh")
      local info = infos[mi]
      if not info then
        info = targets_of(doc, meshes, mi)
        infos[mi] = info
      end
      local shown = M.shown(node, joints)
      if shown and not info.shown then
        info.shown = true
        order[#order + 1] = mi
      end
      if node.weights ~= nil then
        local w = weights(node.weights, info.count, node.path .. ".weights", mi)
        if shown and info.count > 0 then
          if not info.node then
            info.node = i
            for t = 1, info.count do info.defaults[t] = w[t] end
          elseif differ(info.defaults, w) then
            skipped[#skipped + 1] = { path = node.path .. ".weights", why = ("mesh %d has one set of default morph "
              .. "weights: node %d's are used"):format(mi, info.node) }
          end
        end
      end
    end
  end
  table.sort(order)
  local out = { names = {}, defaults = {}, mesh = {}, target = {} }
  local ranges, used = {}, {}
  for _, mi in ipairs(order) do
    local info = infos[mi]
    if info.count > 0 then
      ranges[mi] = { first = #out.names + 1, count = info.count }
      for t = 1, info.count do
        local name = info.name .. "." .. info.names[t]
        if used[name] then name = info.name .. "_" .. mi .. "." .. info.names[t] end
        local k = 1
        while used[name] do -- (a file that names meshes "a" and "a_1" with the same targets)
          k = k + 1
          name = info.name .. "_" .. mi .. "_" .. k .. "." .. info.names[t]
        end
        used[name] = true
        local n = #out.names + 1
        out.names[n], out.defaults[n], out.mesh[n], out.target[n] = name, info.defaults[t], mi, t - 1
      end
    end
  end
  return out, ranges
end

-- the deltas a target may hold, the accessor components the glTF specification allows for each
-- (KHR_mesh_quantization adds integer positions), and their field in sinew.core._morph
local channels = {
  { "POSITION", "position", { FLOAT = true, BYTE = true, ["BYTE (normalized)"] = true, SHORT = true,
    ["SHORT (normalized)"] = true } },
  { "NORMAL", "normal", { FLOAT = true, ["BYTE (normalized)"] = true, ["SHORT (normalized)"] = true } },
  { "TANGENT", "tangent", { FLOAT = true, ["BYTE (normalized)"] = true, ["SHORT (normalized)"] = true } },
}
local VEC3 = { VEC3 = true }

--- The morph set (a sinew.Morph) of a primitive with targets, or nil when it has none: its
-- `targets` checked (VEC3 accessors of `count` elements, the components the specification
-- allows, finite values), the POSITION and NORMAL deltas of those in the vertex `layout`
-- ({ position = 0, normal = 3 }: float offsets in a vertex of `stride` floats) kept with the
-- `vertices` (the primitive's interleaved string) in C. TANGENT deltas are checked and not
-- kept: the vertices have no tangents.
function M.set(doc, prim, ppath, vertices, count, stride, layout)
  if prim.targets == nil then return nil end -- (most files: nothing made)
  local targets = list(prim.targets, ppath .. ".targets")
  if #targets == 0 then return nil end
  local sets, kept = {}, 0
  for ti, target in ipairs(targets) do
    local tpath = ("%s.targets[%d]"):format(ppath, ti - 1)
    target = object(target, tpath)
    local entry = {}
    for c = 1, 3 do
      local ch = channels[c]
      if target[ch[1]] ~= nil then
        local apath = tpath .. "." .. ch[1]
        local desc = doc:accessor(target[ch[1]], apath)
        if desc.type == "VEC3" and desc.count ~= count then
          fail(apath, "accessor %d has %d elements, not one per vertex (%d)", desc.index, desc.count, count)
        end
        local values, _, bad = doc:read_floats(desc.index, apath, VEC3, ch[3])
        if bad then fail(apath, "value %d of accessor %d is not finite", bad, desc.index) end
        if layout[ch[2]] then
          entry[ch[2]] = values
          kept = kept + 1
        end
      end
    end
    sets[ti] = entry
  end
  -- the set: its base and its own vertex buffer (each the size of `vertices`) and the deltas kept
  doc:spend(2 * #vertices + 12 * count * kept, ppath .. ".targets")
  return Fault.core(ppath .. ".targets", sinew_core._morph, vertices, stride, layout, sets)
end

return M
