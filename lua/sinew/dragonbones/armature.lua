--- The setup of a DragonBones armature: bones (parents by name, inherit flags, setup transforms),
-- IK constraints, slots, skins and their displays (images, meshes with their weights and bind
-- vertices, child armatures, bounding boxes), read as the DragonBones 5.6 parser reads them and
-- checked (see manual/2d.md, "Loading DragonBones files").
-- @module sinew.dragonbones.armature
local V = require "sinew.dragonbones.values"

local M = {}

local PAYLOADS = { "ints", "floats", "strings" } -- an event's data lists

local fail, show, at = V.fail, V.show, V.at
local number, integer, boolean, string_, array = V.number, V.integer, V.boolean, V.string, V.array
local normalize, DEG_RAD = V.normalize, V.DEG_RAD
local floor = math.floor

--- `raw` (a transform object, or nil) into `out`'s x, y, rotation, skew, scale_x, scale_y, as
-- _parseTransform does: `rotate`/`skew` in degrees, else `skX`/`skY` (rotation = skY, skew = skX -
-- skY, the difference not normalized again).
function M.transform(raw, path, out)
  local x, y, r, s, sx, sy = 0, 0, 0, 0, 1, 1
  if raw ~= nil and not V.absent(raw) then
    V.object(raw, path)
    x, y = number(raw, "x", path, 0), number(raw, "y", path, 0)
    if raw.rotate ~= nil or raw.skew ~= nil then
      r = normalize(number(raw, "rotate", path, 0) * DEG_RAD)
      s = normalize(number(raw, "skew", path, 0) * DEG_RAD)
    elseif raw.skX ~= nil or raw.skY ~= nil then
      r = normalize(number(raw, "skY", path, 0) * DEG_RAD)
      s = normalize(number(raw, "skX", path, 0) * DEG_RAD) - r
    end
    sx, sy = number(raw, "scX", path, 1), number(raw, "scY", path, 1)
  end
  out.x, out.y, out.rotation, out.skew, out.scale_x, out.scale_y = x, y, r, s, sx, sy
  return out
end
local transform = M.transform

--- The 8 numbers of a colour transform object as the file gives them: multipliers aM, rM, gM,
-- bM in percent (default 100), offsets aO, rO, gO, bO (default 0).
function M.color(raw, path)
  V.object(raw, path)
  return { number(raw, "aM", path, 100), number(raw, "rM", path, 100), number(raw, "gM", path, 100),
    number(raw, "bM", path, 100), number(raw, "aO", path, 0), number(raw, "rO", path, 0),
    number(raw, "gO", path, 0), number(raw, "bO", path, 0) }
end

-- ---- actions ------------------------------------------------------------------------------------

local action_types = { play = "play", frame = "event", sound = "sound" }
local action_numbers = { [0] = "play", [10] = "event", [11] = "sound" }

--- The actions of `raw` (a string: one action of kind `kind` named so; an array of action
-- objects), as _parseActionData reads them; `bone`/`slot` are the defaults (indices or nil).
-- Appends them to `out`.
function M.actions(raw, path, kind, bone, slot, arm, out)
  if type(raw) == "string" then
    out[#out + 1] = { kind = kind, name = raw, bone = bone, slot = slot, ints = {}, floats = {}, strings = {},
      animation = kind == "play" and raw or nil }
    return out
  end
  if V.absent(raw) then return out end
  if type(raw) ~= "table" or (rawget(raw, 1) == nil and next(raw) ~= nil) then
    fail(path, "must be a string or an array of actions (got %s)", V.kind(raw))
  end
  for i = 1, #raw do
    local apath = at(path, i)
    local a = V.object(raw[i], apath)
    local item = { bone = bone, slot = slot }
    if a.gotoAndPlay ~= nil then
      item.kind, item.name = "play", string_(a, "gotoAndPlay", apath, "")
    else
      local t = a.type
      if type(t) == "string" then
        item.kind = action_types[t:lower()] or "play"
      elseif V.absent(t) then
        item.kind = kind
      else
        item.kind = action_numbers[t]
        if not item.kind then fail(apath .. ".type", "unknown action type %s", show(t)) end
      end
      item.name = string_(a, "name", apath, "")
    end
    if a.bone ~= nil then
      local name = string_(a, "bone", apath, "")
      item.bone = arm.bone[name]
      if not item.bone then fail(apath .. ".bone", "unknown bone %s", show(name)) end
    end
    if a.slot ~= nil then
      local name = string_(a, "slot", apath, "")
      item.slot = arm.slot[name]
      if not item.slot then fail(apath .. ".slot", "unknown slot %s", show(name)) end
    end
    for k = 1, 3 do -- (not ipairs over a table constructor: see compile.lua's note on LuaJIT)
      local key = PAYLOADS[k]
      local list, n = array(a, key, apath)
      local copy = {}
      for j = 1, n do
        local v = list[j]
        if key == "strings" then
          if type(v) ~= "string" then fail(at(apath .. "." .. key, j), "must be a string (got %s)", V.kind(v)) end
        elseif key == "ints" then
          if type(v) ~= "number" or v ~= floor(v) or v > 2 ^ 53 or v < -2 ^ 53 then
            fail(at(apath .. "." .. key, j), "must be an integer (got %s)", show(v))
          end
        else
          V.finite(v, at(apath .. "." .. key, j))
        end
        copy[j] = v
      end
      item[key] = copy
    end
    if item.kind == "play" then item.animation = item.name end
    out[#out + 1] = item
  end
  return out
end

-- ---- bones --------------------------------------------------------------------------------------

local function bones(raw, path, arm)
  local list, n = array(raw, "bone", path, V.LIMITS.bones, "bones")
  local parents = {}
  for i = 1, n do
    local bpath = at(path .. ".bone", i)
    local b = V.object(list[i], bpath)
    local t = b.type
    if t ~= nil and not V.absent(t) and not (t == 0 or (type(t) == "string" and t:lower() == "bone")) then
      if type(t) == "string" and t:lower() == "surface" or t == 1 then
        fail(bpath .. ".type", "surfaces (DragonBones 5.6) are not supported")
      end
      fail(bpath .. ".type", "unknown bone type %s", show(t))
    end
    local bone = transform(b.transform, bpath .. ".transform", {
      name = string_(b, "name", bpath, ""),
      length = number(b, "length", bpath, 0),
      inherit_translation = boolean(b, "inheritTranslation", bpath, true),
      inherit_rotation = boolean(b, "inheritRotation", bpath, true),
      inherit_scale = boolean(b, "inheritScale", bpath, true),
      inherit_reflection = boolean(b, "inheritReflection", bpath, true),
    })
    if arm.bone[bone.name] then
      fail(bpath .. ".name", "a second bone named %s (bone %d)", show(bone.name), arm.bone[bone.name] - 1)
    end
    arm.bones[i], arm.bone[bone.name] = bone, i
    parents[i] = string_(b, "parent", bpath, "")
  end
  for i = 1, n do
    local p = parents[i]
    if p ~= "" then
      local k = arm.bone[p]
      if not k then fail(at(path .. ".bone", i) .. ".parent", "unknown bone %s", show(p)) end
      arm.bones[i].parent = k
    end
  end
  -- a cycle of parents would make the runtime wait forever (ArmatureData.sortBones)
  local state = {} -- nil: not seen, 1: on the walk, 2: done
  for i = 1, n do
    local walk, j = {}, i
    while j and not state[j] do
      state[j] = 1
      walk[#walk + 1] = j
      j = arm.bones[j].parent
    end
    if j and state[j] == 1 then
      fail(at(path .. ".bone", j) .. ".parent", "bone %s is its own ancestor", show(arm.bones[j].name))
    end
    for _, w in ipairs(walk) do state[w] = 2 end
  end
end

-- the runtime places a bone after its parent and an IK root after the IK's target
-- (ArmatureData.sortBones) and waits forever when they wait for each other: a cycle is refused
local function check_order(arm, path)
  local after = {} -- after[b] = { { bone, ik index or nil } ... }: b must come after each
  for i, b in ipairs(arm.bones) do
    after[i] = {}
    if b.parent then after[i][1] = { b.parent } end
  end
  for j, ik in ipairs(arm.ik) do
    local list = after[ik.root]
    list[#list + 1] = { ik.target, j }
  end
  local state = {}
  for start = 1, #arm.bones do
    if not state[start] then
      -- iterative depth-first walk: stack of { bone, next edge, ik of the edge that led here }
      local stack = { { start, 1, nil } }
      state[start] = 1
      while #stack > 0 do
        local top = stack[#stack]
        local edge = after[top[1]][top[2]]
        if edge == nil then
          state[top[1]] = 2
          stack[#stack] = nil
        else
          top[2] = top[2] + 1
          local to, via = edge[1], edge[2]
          if state[to] == 1 then -- a cycle: the stack from `to` up, then this edge; an IK edge is on it
            local ik, k = via, #stack
            while not ik and stack[k][1] ~= to do
              ik = stack[k][3]
              k = k - 1
            end
            ik = ik or 1
            local c = arm.ik[ik]
            fail(at(path .. ".ik", ik), "the bones cannot be ordered: root %s must follow target %s, which follows it",
              show(arm.bones[c.root].name), show(arm.bones[c.target].name))
          elseif not state[to] then
            state[to] = 1
            stack[#stack + 1] = { to, 1, via }
          end
        end
      end
    end
  end
end

local function iks(raw, path, arm)
  local list, n = array(raw, "ik", path, V.LIMITS.bones, "IK constraints")
  local names = {}
  for i = 1, n do
    local ipath = at(path .. ".ik", i)
    local c = V.object(list[i], ipath)
    local ik = { name = string_(c, "name", ipath, "") }
    if names[ik.name] then fail(ipath .. ".name", "a second IK constraint named %s", show(ik.name)) end
    names[ik.name] = i
    local bname, tname = string_(c, "bone", ipath, ""), string_(c, "target", ipath, "")
    ik.bone = arm.bone[bname]
    if not ik.bone then fail(ipath .. ".bone", "unknown bone %s", show(bname)) end
    ik.target = arm.bone[tname]
    if not ik.target then fail(ipath .. ".target", "unknown bone %s", show(tname)) end
    ik.chain = number(c, "chain", ipath, 0)
    ik.bend_positive = boolean(c, "bendPositive", ipath, true)
    ik.weight = number(c, "weight", ipath, 1)
    ik.scale = boolean(c, "scale", ipath, false)
    local parent = arm.bones[ik.bone].parent
    if ik.chain > 0 and parent then
      ik.root, ik.child = parent, ik.bone
    else
      ik.root = ik.bone
    end
    arm.ik[i] = ik
  end
  arm.ik_index = names
end

-- ---- slots --------------------------------------------------------------------------------------

local function slots(raw, path, arm)
  local list, n = array(raw, "slot", path, V.LIMITS.slots, "slots")
  for i = 1, n do
    local spath = at(path .. ".slot", i)
    local s = V.object(list[i], spath)
    local slot = { name = string_(s, "name", spath, ""),
      display_index = integer(s, "displayIndex", spath, 0, -1, 2 ^ 31 - 1),
      blend_mode = string_(s, "blendMode", spath, "normal") }
    if arm.slot[slot.name] then
      fail(spath .. ".name", "a second slot named %s (slot %d)", show(slot.name), arm.slot[slot.name] - 1)
    end
    local bname = string_(s, "parent", spath, "")
    slot.bone = arm.bone[bname]
    if not slot.bone then fail(spath .. ".parent", "unknown bone %s", show(bname)) end
    if V.absent(s.color) then
      slot.color = { 100, 100, 100, 100, 0, 0, 0, 0 }
    else
      slot.color = M.color(s.color, spath .. ".color")
    end
    arm.slots[i], arm.slot[slot.name] = slot, i
    if s.actions ~= nil then
      arm.slot_actions[i] = M.actions(s.actions, spath .. ".actions", "play", nil, nil, arm, {})
    end
  end
end

-- ---- displays -----------------------------------------------------------------------------------

local display_types = { image = "image", mesh = "mesh", armature = "armature", boundingbox = "bounding_box" }
local display_numbers = { [0] = "image", [1] = "armature", [2] = "mesh", [3] = "bounding_box" }
local box_types = { rectangle = "rectangle", ellipse = "ellipse", polygon = "polygon" }
local box_numbers = { [0] = "rectangle", [1] = "ellipse", [2] = "polygon" }

-- the inverse of the affine matrix { a, b, c, d, tx, ty } (a non-singular one: checked before)
local function invert(m)
  local a, b, c, d, tx, ty = m[1], m[2], m[3], m[4], m[5], m[6]
  if b == 0 and c == 0 then
    a, d = 1 / a, 1 / d
    return { a, 0, 0, d, -a * tx, -d * ty }
  end
  local det = 1 / (a * d - b * c)
  local ia, ib, ic, id = d * det, -b * det, -c * det, a * det
  return { ia, ib, ic, id, -(ia * tx + ic * ty), -(ib * tx + id * ty) }
end

local function mesh(d, dpath, display, arm, state)
  local vertices, nv = V.numbers(d, "vertices", dpath)
  if not vertices then fail(dpath .. ".vertices", "a mesh needs vertices") end
  if nv % 2 ~= 0 then fail(dpath .. ".vertices", "has %d numbers, not pairs", nv) end
  local count = floor(nv / 2)
  V.spend(state, "vertices", count, dpath .. ".vertices")
  local uvs, nu = V.numbers(d, "uvs", dpath)
  if not uvs then fail(dpath .. ".uvs", "a mesh needs uvs") end
  if nu ~= nv then fail(dpath .. ".uvs", "has %d numbers for %d vertices (%d expected)", nu, count, nv) end
  local triangles, nt = array(d, "triangles", dpath)
  if not triangles then fail(dpath .. ".triangles", "a mesh needs triangles") end
  if nt % 3 ~= 0 then fail(dpath .. ".triangles", "has %d indices, not triples", nt) end
  V.spend(state, "vertices", floor(nt / 3), dpath .. ".triangles")
  local tris = {}
  for i = 1, nt do
    local v = triangles[i]
    if type(v) ~= "number" or v ~= floor(v) or v < 0 or v >= count then
      fail(at(dpath .. ".triangles", i), "vertex index %s is out of range (%d vertices)", show(v), count)
    end
    tris[i] = v + 1
  end
  local copy, uv = {}, {}
  for i = 1, nv do copy[i], uv[i] = vertices[i], uvs[i] end
  display.vertices, display.uvs, display.triangles = copy, uv, tris
  display.inherit_deform = boolean(d, "inheritDeform", dpath, true)
  if d.share ~= nil then fail(dpath .. ".share", "shared meshes are not supported") end
  if d.glueWeights ~= nil or d.glueMeshes ~= nil then fail(dpath, "glue meshes are not supported") end
  local weights, nw = V.numbers(d, "weights", dpath)
  if not weights then return end
  local slot_pose, np = V.numbers(d, "slotPose", dpath)
  if not slot_pose or np ~= 6 then fail(dpath .. ".slotPose", "a weighted mesh needs 6 numbers (a, b, c, d, tx, ty)") end
  local bone_pose, nb = V.numbers(d, "bonePose", dpath)
  if not bone_pose or nb % 7 ~= 0 then
    fail(dpath .. ".bonePose", "a weighted mesh needs 7 numbers per bone (bone index, a, b, c, d, tx, ty)")
  end
  local nbones = #arm.bones
  local inverse = {} -- by bone index (0-based, as in the file): the inverse bind matrix
  for k = 0, floor(nb / 7) - 1 do
    local b = bone_pose[k * 7 + 1]
    local ppath = at(dpath .. ".bonePose", k * 7 + 1)
    if b ~= floor(b) or b < 0 or b >= nbones then fail(ppath, "bone index %s is out of range (%d bones)", show(b), nbones) end
    if inverse[b] == nil then -- the first entry of a bone counts (the parser's indexOf)
      local m = { bone_pose[k * 7 + 2], bone_pose[k * 7 + 3], bone_pose[k * 7 + 4], bone_pose[k * 7 + 5],
        bone_pose[k * 7 + 6], bone_pose[k * 7 + 7] }
      if m[1] * m[4] - m[2] * m[3] == 0 or (m[2] == 0 and m[3] == 0 and (m[1] == 0 or m[4] == 0)) then
        fail(ppath, "the bind matrix of bone %d is singular", b)
      end
      inverse[b] = invert(m)
    end
  end
  local sa, sb, sc, sd, stx, sty = slot_pose[1], slot_pose[2], slot_pose[3], slot_pose[4], slot_pose[5], slot_pose[6]
  local out, iw, entries = {}, 1, 0
  local wpath = dpath .. ".weights"
  for i = 0, count - 1 do
    local n = weights[iw]
    if n == nil then fail(wpath, "has %d numbers, too few for %d vertices", nw, count) end
    if n ~= floor(n) or n < 0 or n > nbones then
      fail(at(wpath, iw), "vertex %d has %s bones (0 .. %d)", i, show(n), nbones)
    end
    if iw + 2 * n > nw then fail(wpath, "has %d numbers, too few for %d vertices", nw, count) end
    iw = iw + 1
    out[#out + 1] = n
    entries = entries + n
    local x, y = vertices[2 * i + 1], vertices[2 * i + 2]
    local px, py = sa * x + sc * y + stx, sb * x + sd * y + sty
    for _ = 1, n do
      local b, w = weights[iw], weights[iw + 1]
      if b ~= floor(b) or b < 0 or b >= nbones then
        fail(at(wpath, iw), "bone index %s is out of range (%d bones)", show(b), nbones)
      end
      local m = inverse[b]
      if not m then fail(at(wpath, iw), "bone %d is not in bonePose", b) end
      out[#out + 1] = b + 1
      out[#out + 1] = w
      out[#out + 1] = m[1] * px + m[3] * py + m[5]
      out[#out + 1] = m[2] * px + m[4] * py + m[6]
      iw = iw + 2
    end
  end
  if iw - 1 ~= nw then fail(wpath, "has %d numbers, %d more than its %d vertices need", nw, nw - iw + 1, count) end
  V.spend(state, "weights", entries, wpath)
  display.weights, display.weight_count = out, entries
  display.slot_pose = { sa, sb, sc, sd, stx, sty }
  display.bind_inverse = inverse -- for the deform keys (not part of the model: removed at the end)
end

local function display(d, dpath, arm, state, slot_index, position, skin_name)
  V.object(d, dpath)
  local t, kind = d.type, "image"
  if type(t) == "string" then
    kind = display_types[t:lower()]
    if not kind then fail(dpath .. ".type", "unknown display type %s", show(t)) end
  elseif not V.absent(t) then
    kind = display_numbers[t]
    if not kind then fail(dpath .. ".type", "unknown display type %s", show(t)) end
  end
  local name = string_(d, "name", dpath, "")
  local path = string_(d, "path", dpath, "")
  local out = transform(d.transform, dpath .. ".transform",
    { type = kind, name = name, path = path ~= "" and path or name })
  if kind == "image" then
    if V.absent(d.pivot) then
      out.pivot_x, out.pivot_y = 0.5, 0.5
    else
      local p = V.object(d.pivot, dpath .. ".pivot")
      out.pivot_x, out.pivot_y = number(p, "x", dpath .. ".pivot", 0), number(p, "y", dpath .. ".pivot", 0)
    end
  elseif kind == "armature" then
    out.armature = out.path
    if d.actions ~= nil then
      out.actions = M.actions(d.actions, dpath .. ".actions", "play", nil, nil, arm, {})
    elseif arm.slot_actions[slot_index] and arm.slots[slot_index].display_index == position then
      out.actions = arm.slot_actions[slot_index] -- the slot's actions go to its shown child armature
      arm.slot_actions[slot_index] = nil
    end
    arm.children[#arm.children + 1] = { name = out.armature, path = dpath .. ".path" }
  elseif kind == "mesh" then
    mesh(d, dpath, out, arm, state)
    out.skin = skin_name
  else
    local st, sub = d.subType, "rectangle"
    if type(st) == "string" then
      sub = box_types[st:lower()]
      if not sub then fail(dpath .. ".subType", "unknown bounding box type %s", show(st)) end
    elseif not V.absent(st) then
      sub = box_numbers[st]
      if not sub then fail(dpath .. ".subType", "unknown bounding box type %s", show(st)) end
    end
    out.sub_type = sub
    out.color = number(d, "color", dpath, 0)
    if sub == "polygon" then
      local v, n = V.numbers(d, "vertices", dpath)
      if v then
        if n % 2 ~= 0 then fail(dpath .. ".vertices", "has %d numbers, not pairs", n) end
        V.spend(state, "vertices", floor(n / 2), dpath .. ".vertices")
        local copy = {}
        for i = 1, n do copy[i] = v[i] end
        out.vertices = copy
      end
    else
      out.width, out.height = number(d, "width", dpath, 0), number(d, "height", dpath, 0)
    end
  end
  return out
end

local function skins(raw, path, arm, state)
  local list, n = array(raw, "skin", path, V.LIMITS.slots, "skins")
  local displays = 0
  for i = 1, n do
    local kpath = at(path .. ".skin", i)
    local k = V.object(list[i], kpath)
    local name = string_(k, "name", kpath, "default")
    if name == "" then name = "default" end
    if arm.skin[name] then fail(kpath .. ".name", "a second skin named %s", show(name)) end
    local skin = { name = name, slots = {} }
    local entries, m = array(k, "slot", kpath)
    for j = 1, m do
      local epath = at(kpath .. ".slot", j)
      local e = V.object(entries[j], epath)
      local sname = string_(e, "name", epath, "")
      local s = arm.slot[sname]
      if not s then fail(epath .. ".name", "unknown slot %s", show(sname)) end
      local shown = skin.slots[s] or {}
      skin.slots[s] = shown
      local raw_displays, nd = array(e, "display", epath)
      displays = displays + nd
      if displays > V.LIMITS.displays then
        fail(epath .. ".display", "the armature has more displays than the limit of %d", V.LIMITS.displays)
      end
      for q = 1, nd do
        local d = raw_displays[q]
        if d == nil or V.absent(d) or d == false then
          shown[#shown + 1] = false -- an empty place in the list (the runtime keeps a null there)
        else
          shown[#shown + 1] = display(d, at(epath .. ".display", q), arm, state, s, #shown, name)
        end
      end
    end
    arm.skins[i], arm.skin[name] = skin, i
    if i == 1 or name == "default" then arm.default_skin = i end
  end
end

--- The setup of armature `raw` at `path` (bones, IK, slots, skins) into a new armature table;
-- `state` counts what the file holds against the limits.
function M.setup(raw, path, data, state)
  local arm = { bones = {}, bone = {}, slots = {}, slot = {}, ik = {}, skins = {}, skin = {},
    animations = {}, slot_actions = {}, children = {} }
  arm.name = string_(raw, "name", path, "")
  local fr = number(raw, "frameRate", path, data.frame_rate)
  if fr < 0 then fail(path .. ".frameRate", "%s is negative", show(fr)) end
  arm.frame_rate = fr == 0 and 24 or fr
  local t = raw.type
  if type(t) == "string" then
    arm.type = ({ stage = "Stage", armature = "Armature", movieclip = "MovieClip" })[t:lower()] or "Armature"
  elseif V.absent(t) then
    arm.type = "Armature"
  else
    arm.type = ({ [0] = "Armature", [1] = "MovieClip", [2] = "Stage" })[t]
    if not arm.type then fail(path .. ".type", "unknown armature type %s", show(t)) end
  end
  bones(raw, path, arm)
  iks(raw, path, arm)
  check_order(arm, path)
  slots(raw, path, arm)
  skins(raw, path, arm, state)
  return arm
end

return M
