--- The skeleton of a glTF file: the node hierarchy, the chosen skin's joints (or, in a file
-- without skins, the nodes of the default scene), their order with parents first, the rest pose
-- from the nodes' transforms, the inverse bind matrices and the transform above the skeleton.
-- @module sinew.gltf.skeleton
local sinew_core = require "sinew.core"
local D = require "sinew.gltf.document"
local Fault = require "sinew.fault"

local fail, index, list, object, numbers = Fault.fail, D.index, D.list, D.object, D.numbers
local sqrt = math.sqrt

local M = {}

local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

-- ---- 4x4 matrices, column-major lists of 16 numbers ------------------------------------------

local IDENTITY = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }
M.IDENTITY = IDENTITY

local function mat_mul(a, b)
  local m = {}
  for c = 0, 3 do
    for r = 1, 4 do
      m[4 * c + r] = a[r] * b[4 * c + 1] + a[4 + r] * b[4 * c + 2] + a[8 + r] * b[4 * c + 3] + a[12 + r] * b[4 * c + 4]
    end
  end
  return m
end
M.mat_mul = mat_mul

-- the matrix T * R * S of a transform (t, q unit, s)
local function trs_matrix(t, q, s)
  local x, y, z, w = q[1], q[2], q[3], q[4]
  return {
    (1 - 2 * (y * y + z * z)) * s[1], 2 * (x * y + z * w) * s[1], 2 * (x * z - y * w) * s[1], 0,
    2 * (x * y - z * w) * s[2], (1 - 2 * (x * x + z * z)) * s[2], 2 * (y * z + x * w) * s[2], 0,
    2 * (x * z + y * w) * s[3], 2 * (y * z - x * w) * s[3], (1 - 2 * (x * x + y * y)) * s[3], 0,
    t[1], t[2], t[3], 1 }
end

-- translation, unit rotation and scale of an affine matrix (shear is dropped; a mirror goes to
-- the x scale)
local function decompose(m, path)
  if m[4] ~= 0 or m[8] ~= 0 or m[12] ~= 0 or m[16] ~= 1 then fail(path, "is not affine (its last row is not 0 0 0 1)") end
  local sx = sqrt(m[1] ^ 2 + m[2] ^ 2 + m[3] ^ 2)
  local sy = sqrt(m[5] ^ 2 + m[6] ^ 2 + m[7] ^ 2)
  local sz = sqrt(m[9] ^ 2 + m[10] ^ 2 + m[11] ^ 2)
  if sx == 0 or sy == 0 or sz == 0 then fail(path, "has a zero scale") end
  local det = m[1] * (m[6] * m[11] - m[7] * m[10]) - m[5] * (m[2] * m[11] - m[3] * m[10]) +
    m[9] * (m[2] * m[7] - m[3] * m[6])
  if det < 0 then sx = -sx end
  local r00, r10, r20 = m[1] / sx, m[2] / sx, m[3] / sx
  local r01, r11, r21 = m[5] / sy, m[6] / sy, m[7] / sy
  local r02, r12, r22 = m[9] / sz, m[10] / sz, m[11] / sz
  local x, y, z, w
  local tr = r00 + r11 + r22
  if tr > 0 then
    local k = 0.5 / sqrt(tr + 1)
    w, x, y, z = 0.25 / k, (r21 - r12) * k, (r02 - r20) * k, (r10 - r01) * k
  elseif r00 > r11 and r00 > r22 then
    local k = 2 * sqrt(1 + r00 - r11 - r22)
    w, x, y, z = (r21 - r12) / k, 0.25 * k, (r01 + r10) / k, (r02 + r20) / k
  elseif r11 > r22 then
    local k = 2 * sqrt(1 + r11 - r00 - r22)
    w, x, y, z = (r02 - r20) / k, (r01 + r10) / k, 0.25 * k, (r12 + r21) / k
  else
    local k = 2 * sqrt(1 + r22 - r00 - r11)
    w, x, y, z = (r10 - r01) / k, (r02 + r20) / k, (r12 + r21) / k, 0.25 * k
  end
  local l = sqrt(x * x + y * y + z * z + w * w)
  return { m[13], m[14], m[15] }, { x / l, y / l, z / l, w / l }, { sx, sy, sz }
end

-- ---- nodes ---------------------------------------------------------------------------------------

-- the path of child k of a node's children at `path`, of field `field` of the object at `path`,
-- and of entry k of its list `field` (made only for a fault: see sinew.gltf.document's path_of)
local function child_path(path, k) return ("%s[%d]"):format(path, k) end
local function field_path(path, field) return path .. field end
local function entry_path(path, field, k) return ("%s%s[%d]"):format(path, field, k) end

-- the transform of a node without translation, rotation or scale (shared: never changed)
local ZERO3, UNIT_Q, ONE3 = { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 }
-- the children of a node without any (shared: M.nodes gives a node a list of its own for its first)
local NO_CHILDREN = {}

-- field `field` of node `n` (at `path`) as n numbers, `dflt` when absent
local function node_numbers(n, field, count, path, dflt)
  local v = n[field]
  if v == nil then return dflt end
  if D.good_numbers(v, count) then return v end
  return numbers(v, count, path .. "." .. field) -- (raises)
end

--- The nodes: for each (0-based) node its parent (or nil), children, name and local transform
-- (t, q, s, and the matrix: see M.matrix), checked: indices in range, one parent at most, no
-- cycles. The lists of a node are shared with other nodes or the document: none may change them.
function M.nodes(doc)
  local json = doc:array("nodes")
  local nodes = {}
  for i = 0, #json - 1 do
    local path = ("nodes[%d]"):format(i)
    local n = object(json[i + 1], path)
    if n.name ~= nil and type(n.name) ~= "string" then fail(path .. ".name", "must be a string (got %s)", type(n.name)) end
    local node = { index = i, name = n.name, children = NO_CHILDREN, mesh = n.mesh, skin = n.skin, weights = n.weights,
      path = path }
    if n.matrix ~= nil then
      if n.translation ~= nil or n.rotation ~= nil or n.scale ~= nil then
        fail(path, "has both a matrix and translation, rotation or scale")
      end
      node.matrix = numbers(n.matrix, 16, path .. ".matrix")
      node.t, node.q, node.s = decompose(node.matrix, path .. ".matrix")
    else
      node.t = node_numbers(n, "translation", 3, path, ZERO3)
      local q = node_numbers(n, "rotation", 4, path, UNIT_Q)
      if q == UNIT_Q then
        node.q = UNIT_Q
      else
        local l = sqrt(q[1] ^ 2 + q[2] ^ 2 + q[3] ^ 2 + q[4] ^ 2)
        if not (l > 1e-12) then fail(path .. ".rotation", "is zero") end -- luacheck: ignore 581 (and NaN)
        node.q = { q[1] / l, q[2] / l, q[3] / l, q[4] / l }
      end
      node.s = node_numbers(n, "scale", 3, path, ONE3)
    end
    nodes[i] = node
  end
  local count = #json
  for i = 0, count - 1 do
    local children = json[i + 1].children
    if children ~= nil then
      local path = ("nodes[%d].children"):format(i)
      for k, c in ipairs(list(children, path)) do
        c = index(c, count, child_path, "node", path, k - 1)
        if c == i then fail(path, "node %d is its own child", i) end
        if nodes[c].parent ~= nil then fail(path, "node %d has two parents (nodes %d and %d)", c, nodes[c].parent, i) end
        nodes[c].parent = i
        local own = nodes[i].children
        if own == NO_CHILDREN then
          own = {}
          nodes[i].children = own
        end
        own[#own + 1] = c
      end
    end
  end
  -- every node reached from the roots, parents first, without recursion: a node that is not
  -- reached is in a cycle of parents or below one (each node has one parent at most)
  local order, reached, head = {}, {}, 1
  for i = 0, count - 1 do
    if nodes[i].parent == nil then
      order[#order + 1] = i
      reached[i] = true
    end
  end
  while head <= #order do
    local n = order[head]
    head = head + 1
    for _, c in ipairs(nodes[n].children) do
      order[#order + 1] = c
      reached[c] = true
    end
  end
  if #order < count then
    for i = 0, count - 1 do
      if not reached[i] then fail(("nodes[%d]"):format(i), "its parents form a cycle") end
    end
  end
  nodes.count = count
  nodes.order = order
  -- the indices of the file that are read only in some files, checked in all: every node's skin,
  -- the default scene and the scenes' node lists (a skinned file takes its joints from the skin,
  -- yet `"scene": 99` is no good glTF there either)
  local skins, scenes = #doc:array("skins"), doc:array("scenes")
  for i = 0, count - 1 do
    if nodes[i].skin ~= nil then index(nodes[i].skin, skins, field_path, "skin", nodes[i].path, ".skin") end
  end
  if doc.json.scene ~= nil then index(doc.json.scene, #scenes, "scene", "scene") end
  for s = 1, #scenes do
    local spath = ("scenes[%d]"):format(s - 1)
    for k, r in ipairs(list(object(scenes[s], spath).nodes, spath .. ".nodes")) do
      index(r, count, entry_path, "node", spath, ".nodes", k - 1)
    end
  end
  return nodes
end

--- The local matrix of a node (T * R * S of its transform, or the file's matrix), made when
-- first asked for.
function M.matrix(node)
  local m = node.matrix
  if not m then
    m = trs_matrix(node.t, node.q, node.s)
    node.matrix = m
  end
  return m
end

--- The world matrix of node i at rest (found once per node: a node's is its parent's times its
-- own, so that a chain is walked once, however deep).
function M.world(nodes, i)
  local worlds = nodes.worlds
  if not worlds then
    worlds = {}
    nodes.worlds = worlds
  end
  if worlds[i] then return worlds[i] end
  local path, at = {}, i -- the nodes from i up to the first whose world is known
  while at ~= nil and not worlds[at] do
    path[#path + 1] = at
    at = nodes[at].parent
  end
  local m = at ~= nil and worlds[at] or nil
  for k = #path, 1, -1 do
    local n = path[k]
    m = m and mat_mul(m, M.matrix(nodes[n])) or M.matrix(nodes[n])
    worlds[n] = m
  end
  return worlds[i]
end

-- ---- the joints ---------------------------------------------------------------------------------

-- The skin to import: options.skin, or the first skin a node with a mesh uses, or the first.
local function choose_skin(doc, nodes, options)
  local skins = doc:array("skins")
  if options.skin ~= nil then return index(options.skin, #skins, "options.skin", "skin") end
  for i = 0, nodes.count - 1 do
    if nodes[i].mesh ~= nil and nodes[i].skin ~= nil then
      return index(nodes[i].skin, #skins, field_path, "skin", nodes[i].path, ".skin")
    end
  end
  if #skins > 0 then return 0 end
  return nil
end

-- the nodes of the default scene, parents first (a file without skins)
local function scene_nodes(doc, nodes)
  local scenes = doc:array("scenes")
  local roots
  if #scenes > 0 then
    local s = doc.json.scene ~= nil and index(doc.json.scene, #scenes, "scene", "scene") or 0
    roots = list(object(scenes[s + 1], ("scenes[%d]"):format(s)).nodes, ("scenes[%d].nodes"):format(s))
  else
    roots = {}
    for i = 0, nodes.count - 1 do if nodes[i].parent == nil then roots[#roots + 1] = i end end
  end
  local out, seen, stack = {}, {}, {}
  for k, r in ipairs(roots) do
    r = index(r, nodes.count, entry_path, "node", "scenes", ".nodes", k - 1)
    if nodes[r].parent ~= nil or seen[r] then fail("scenes", "node %d is not a root of the scene", r) end
    seen[r] = true
    stack[1] = r -- depth first, children in order, without recursion
    while #stack > 0 do
      local n = stack[#stack]
      stack[#stack] = nil
      out[#out + 1] = n
      local children = nodes[n].children
      for c = #children, 1, -1 do stack[#stack + 1] = children[c] end
    end
  end
  return out
end

--- The joints: { order = list of node indices, parents first; parent = map node -> node (within
-- the joints) or nil; skin = the skin's joint list or nil; root_matrix = 16 numbers }.
function M.joints(doc, nodes, options)
  local skin_index = choose_skin(doc, nodes, options)
  local set, order, skin_joints, root_node = {}, {}, nil, nil
  if skin_index ~= nil then
    local path = ("skins[%d]"):format(skin_index)
    local skin = object(doc:array("skins")[skin_index + 1], path)
    skin_joints = list(skin.joints, path .. ".joints")
    if #skin_joints == 0 then fail(path .. ".joints", "is empty") end
    for k, j in ipairs(skin_joints) do
      j = index(j, nodes.count, entry_path, "node", path, ".joints", k - 1)
      if set[j] then fail(("%s.joints[%d]"):format(path, k - 1), "node %d appears twice", j) end
      set[j] = true
      skin_joints[k] = j
      order[#order + 1] = j
    end
    -- nodes between a joint and the joint above it are joints too (their transforms move it);
    -- above[n]: the nearest joint above a node that is not one (false: none), each found once
    local extra, above = {}, {}
    for _, j in ipairs(skin_joints) do
      local between, p = {}, nodes[j].parent
      while p ~= nil and not set[p] and above[p] == nil do
        between[#between + 1] = p
        p = nodes[p].parent
      end
      local top = p ~= nil and (set[p] and p or above[p]) or false
      for _, b in ipairs(between) do
        above[b] = top
        if top then extra[b] = true end
      end
    end
    -- the skeleton's roots must hang from one node (or none); else the nodes below the deepest
    -- common one become joints as well
    local roots = {}
    for _, j in ipairs(skin_joints) do
      local p = nodes[j].parent
      if p == nil or not (set[p] or extra[p]) then roots[#roots + 1] = j end
    end
    -- the deepest common ancestor of the roots: the ancestors of the first root, nearest first,
    -- cut at the farthest one where another root's ancestors meet them (each node walked once)
    local lca
    if #roots > 0 then
      local first, at = {}, {}
      local p = nodes[roots[1]].parent
      while p ~= nil do
        first[#first + 1] = p
        at[p] = #first
        p = nodes[p].parent
      end
      local cut, meets = 1, {}
      for r = 2, #roots do
        local walked = {}
        p = nodes[roots[r]].parent
        while p ~= nil and not at[p] and meets[p] == nil do
          walked[#walked + 1] = p
          p = nodes[p].parent
        end
        local m = false -- false: no ancestor in common
        if p ~= nil then m = at[p] or meets[p] end
        for _, w in ipairs(walked) do meets[w] = m end
        if m == false then cut = false elseif cut then cut = math.max(cut, m) end
        if not cut then break end
      end
      lca = cut and first[cut] or nil
    end
    for _, r in ipairs(roots) do
      local a = nodes[r].parent
      while a ~= nil and a ~= lca and not extra[a] do -- above an extra node, all are extra already
        extra[a] = true
        a = nodes[a].parent
      end
    end
    local extras = {}
    for e in each, extra do if not set[e] then extras[#extras + 1] = e end end
    table.sort(extras)
    for _, e in ipairs(extras) do
      set[e] = true
      order[#order + 1] = e
    end
    root_node = lca
  else
    order = scene_nodes(doc, nodes)
    if #order == 0 then fail("nodes", "the file has no skin and its scene no nodes") end
    for _, n in ipairs(order) do set[n] = true end
  end
  -- parents first, otherwise in the order given (the unplaced joints above a joint go first,
  -- the topmost first: found without recursion, each placed once)
  local placed, sorted, up = {}, {}, {}
  for _, n in ipairs(order) do
    local a = n
    while a ~= nil and set[a] and not placed[a] do
      up[#up + 1] = a
      a = nodes[a].parent
    end
    for k = #up, 1, -1 do
      placed[up[k]] = true
      sorted[#sorted + 1] = up[k]
      up[k] = nil
    end
  end
  local parent = {}
  for _, n in ipairs(sorted) do
    local p = nodes[n].parent
    if p ~= nil and set[p] then parent[n] = p end
  end
  local root_matrix = root_node ~= nil and M.world(nodes, root_node) or IDENTITY
  return { order = sorted, parent = parent, skin = skin_joints, skin_index = skin_index, root_matrix = root_matrix }
end

--- The sinew skeleton of the joints (with the morph targets of `morphs`, the asset's list, when
-- it has any), with the index map: returns skeleton, joint_of (node -> 1-based joint), nodes_info
-- (joint -> { node, name }).
function M.build(nodes, joints, path, morphs)
  local names, parents, rest, joint_of, info, used = {}, {}, {}, {}, {}, {}
  for j, n in ipairs(joints.order) do joint_of[n] = j end
  for j, n in ipairs(joints.order) do
    local node = nodes[n]
    local name = node.name
    if name == nil or name == "" or used[name] or #name > 255 or name:find("\0", 1, true) then
      name = "joint_" .. n
      while used[name] do name = name .. "_" end -- a node may be named so already
    end
    used[name] = true
    names[j] = name
    parents[j] = joints.parent[n] and joint_of[joints.parent[n]] or 0
    rest[j] = { node.t[1], node.t[2], node.t[3], node.q[1], node.q[2], node.q[3], node.q[4], node.s[1], node.s[2],
      node.s[3] }
    info[j] = { node = n, name = node.name }
  end
  local def = { names = names, parents = parents, rest = rest }
  if morphs and #morphs.names > 0 then def.morphs, def.morph_defaults = morphs.names, morphs.defaults end
  local skel = Fault.core(path, sinew_core.skeleton, def)
  return skel, joint_of, info
end

--- The inverse bind matrices as a sinew Matrices object (identities where the file has none).
function M.inverse_bind(doc, skeleton, joints, joint_of)
  local mats = sinew_core.matrices(skeleton)
  if joints.skin_index == nil then return mats end
  local path = ("skins[%d].inverseBindMatrices"):format(joints.skin_index)
  local skin = doc:array("skins")[joints.skin_index + 1]
  if skin.inverseBindMatrices == nil then return mats end
  local values, desc, bad = doc:read(skin.inverseBindMatrices, path, { MAT4 = true }, { FLOAT = true })
  if desc.count ~= #joints.skin then
    fail(path, "accessor %d has %d matrices for %d joints", desc.index, desc.count, #joints.skin)
  end
  -- finite floats on joints of the skeleton: Matrices:set takes them all (else it names the
  -- fault, through Fault.core)
  local set = bad and function(...) return Fault.core(path, mats.set, ...) end or mats.set
  for k, n in ipairs(joints.skin) do
    local b = 16 * (k - 1)
    set(mats, joint_of[n], values[b + 1], values[b + 2], values[b + 3], values[b + 4], values[b + 5],
      values[b + 6], values[b + 7], values[b + 8], values[b + 9], values[b + 10], values[b + 11], values[b + 12],
      values[b + 13], values[b + 14], values[b + 15], values[b + 16])
  end
  return mats
end

return M
