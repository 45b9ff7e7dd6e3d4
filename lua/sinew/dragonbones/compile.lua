--- Compiles an imported armature (the data model of `sinew.dragonbones.load`) into the C core's
-- 2-D objects once: the armature (bones, IK, slots, displays, meshes) and each animation's
-- timelines, as the number layouts of src/core/rig2d.h. Internal to `sinew.dragonbones`.
-- @module sinew.dragonbones.compile
local core = require "sinew.core"

local M = {}

local floor = math.floor

local BLEND = { normal = 0, add = 1, alpha = 2, darken = 3, difference = 4, erase = 5, hardlight = 6, invert = 7,
  layer = 8, lighten = 9, multiply = 10, overlay = 11, screen = 12, subtract = 13 }
M.BLEND_MODES = BLEND

local DISPLAY = { image = 0, mesh = 1, armature = 2, bounding_box = 3 }
local TWEEN = { none = 0, linear = 1, quad_in = 2, quad_out = 3, quad_in_out = 4, curve = 5 }

-- appends numbers to a layout; a missing number would leave a hole that `#` reads as it likes
local function push(out, ...)
  local n = #out
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    if type(v) ~= "number" then error(("layout number %d is %s, not a number"):format(n + i, tostring(v)), 2) end
    out[n + i] = v
  end
end

local function flag(v) return v and 1 or 0 end

-- the default skin's display lists, by slot index
local function default_skin(arm)
  local skin = arm.skins and (arm.skin and (arm.skin[""] or arm.skin.default) and arm.skins[arm.skin[""] or
    arm.skin.default] or arm.skins[1])
  return skin and skin.slots or {}
end

--- The armature layout, and what the rest of the compile needs: per slot its displays.
local function armature_layout(arm)
  local w = { 1, #arm.bones, #arm.ik, #arm.slots, 0, 0 }
  for _, b in ipairs(arm.bones) do
    local flags = flag(b.inherit_translation) + 2 * flag(b.inherit_rotation) + 4 * flag(b.inherit_scale) +
      8 * flag(b.inherit_reflection)
    push(w, (b.parent or 0) - 1, flags, b.length or 0, b.x, b.y, b.rotation, b.skew, b.scale_x, b.scale_y)
  end
  for _, k in ipairs(arm.ik) do
    push(w, k.bone - 1, k.target - 1, (k.chain or 0) > 0 and 1 or 0, flag(k.bend_positive), k.weight or 1)
  end
  local lists = default_skin(arm)
  local displays, meshes, first = {}, {}, 0
  for s, slot in ipairs(arm.slots) do
    local list = lists[s] or {}
    local c = slot.color
    push(w, slot.bone - 1, slot.display_index, first, #list, BLEND[slot.blend_mode] or 0,
      c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8])
    for k = 1, #list do displays[#displays + 1] = list[k] end
    first = first + #list
  end
  w[5] = #displays
  for _, d in ipairs(displays) do
    local mesh = -1
    if d.type == "mesh" then
      meshes[#meshes + 1] = d
      mesh = #meshes - 1
    end
    push(w, DISPLAY[d.type] or 0, mesh, d.x or 0, d.y or 0, d.rotation or 0, d.skew or 0, d.scale_x or 1,
      d.scale_y or 1)
  end
  w[6] = #meshes
  for _, m in ipairs(meshes) do
    local v = floor(#m.vertices / 2)
    push(w, v, m.weights and 1 or 0)
    for i = 1, 2 * v do w[#w + 1] = m.uvs[i] or 0 end
    if m.weights then
      local ws, n = m.weights, #w
      local i = 1
      while i <= #ws do
        local count = ws[i]
        n = n + 1
        w[n] = count
        for j = 0, count - 1 do
          local at = i + 1 + 4 * j
          w[n + 1], w[n + 2], w[n + 3], w[n + 4] = ws[at] - 1, ws[at + 1], ws[at + 2], ws[at + 3]
          n = n + 4
        end
        i = i + 1 + 4 * count
      end
    else
      for i = 1, 2 * v do w[#w + 1] = m.vertices[i] end
    end
  end
  return w, lists
end

local BONE_TIMELINES = { "translate", "rotate", "scale" }

local VALUES = {
  [1] = function(key) return key.x or 0, key.y or 0 end,
  [2] = function(key) return key.rotation or 0, key.skew or 0 end,
  [3] = function(key) return key.x or 1, key.y or 1 end,
}

-- a timeline's keys, each at the frame the importer placed it (the parser's placement: a 0-frame
-- key pushes the next one a frame on) with the tween it gave it (none for a key of 0 frames)
local function push_timeline(w, kind, target, extra, keys, count, values)
  local n = #keys
  push(w, kind, target, extra, n, count)
  for j = 1, n do
    local key = keys[j]
    local tween, amount = TWEEN[key.tween or "none"] or 0, key.amount or 0
    if tween == 5 then amount = #key.samples end -- (the core takes the count of samples there)
    push(w, key.frame, tween, amount)
    if tween == 5 then for i = 1, #key.samples do push(w, key.samples[i]) end end
    values(w, key)
  end
end

local function animation_layout(arm, anim, lists)
  local frames = math.max(anim.duration or 0, 1)
  local w = { 1, frames, anim.frame_rate or arm.frame_rate, 0 }
  local count = 0
  for _, t in ipairs(anim.bones or {}) do
    -- (a numeric loop over a list made once: LuaJIT 2.1.0-beta3's JIT miscompiled `for _, name in
    -- ipairs { "translate", "rotate", "scale" }` here, dropping timelines in some runs)
    for kind = 1, 3 do
      local keys = t[BONE_TIMELINES[kind]]
      if keys and #keys > 0 then
        local get = VALUES[kind]
        push_timeline(w, kind, t.bone - 1, 0, keys, 2, function(out, key) push(out, get(key)) end)
        count = count + 1
      end
    end
  end
  for _, t in ipairs(anim.slots or {}) do
    if t.display and #t.display > 0 then
      push_timeline(w, 4, t.slot - 1, 0, t.display, 1, function(out, key)
        push(out, key.value or 0)
      end)
      count = count + 1
    end
    if t.color and #t.color > 0 then
      push_timeline(w, 5, t.slot - 1, 0, t.color, 8, function(out, key)
        local c = key.color
        push(out, c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8])
      end)
      count = count + 1
    end
  end
  for _, t in ipairs(anim.ffd or {}) do
    local list = lists[t.slot] or {}
    local mesh = list[t.display]
    if mesh and mesh.type == "mesh" and #t.keys > 0 then
      local size = #t.keys[1].vertices
      push_timeline(w, 6, t.slot - 1, t.display - 1, t.keys, size, function(out, key)
        local v, n = key.vertices, #out
        for i = 1, size do out[n + i] = v[i] or 0 end
      end)
      count = count + 1
    end
  end
  if anim.zorder and #anim.zorder > 0 then
    local slots = #arm.slots
    push_timeline(w, 7, 0, 0, anim.zorder, slots, function(out, key)
      local n = #out
      for i = 1, slots do out[n + i] = key.order and key.order[i] - 1 or -1 end
    end)
    count = count + 1
  end
  for _, t in ipairs(anim.ik or {}) do
    if #t.keys > 0 then
      push_timeline(w, 8, t.constraint - 1, 0, t.keys, 2, function(out, key)
        push(out, key.weight or 1, key.bend_positive == false and 0 or 1)
      end)
      count = count + 1
    end
  end
  w[4] = count
  return w
end

-- the action keys of an animation as the runtime's action timeline holds them: a key at frame
-- 0, then one per frame with actions, in order
local function action_keys(anim, frames)
  local keys = { { start = 0, items = {} } }
  local start = 0
  for _, key in ipairs(anim.actions or {}) do
    start = key.frame or start
    if key.items and #key.items > 0 and start <= frames then
      local last = keys[#keys]
      if last.start ~= start then
        last = { start = start, items = {} }
        keys[#keys + 1] = last
      end
      for _, item in ipairs(key.items) do last.items[#last.items + 1] = item end -- (a copy: the data stays)
    end
  end
  return keys
end

local compiled = setmetatable({}, { __mode = "k" })
local events_of = setmetatable({}, { __mode = "k" }) -- Anim2D -> its frame and sound events

--- The frame and sound events of a compiled animation (its Anim2D), for the animator:
-- `{ { at = frame / frames, name = ... }, ... }` in time order.
function M.events(anim_core)
  return events_of[anim_core] or {}
end

--- The compiled armature of model `arm` (made once per model): `{ core = Rig2DData, animations
-- = { name = { core = Anim2D, model, duration, frames, frame_rate, play_times, actions } } }`.
function M.armature(arm)
  local c = compiled[arm]
  if c then return c end
  local layout, lists = armature_layout(arm)
  local data = core._rig2d_data(layout)
  c = { core = data, model = arm, displays = lists, animations = {} }
  for i, anim in ipairs(arm.animations) do
    local an = data:animation(animation_layout(arm, anim, lists))
    local duration, frames, rate = an:duration()
    local keys = action_keys(anim, frames)
    local entry = { core = an, model = anim, name = anim.name, duration = duration, frames = frames, frame_rate = rate,
      play_times = anim.play_times or 1, fade_in_time = anim.fade_in_time or 0, actions = keys }
    c.animations[i] = entry
    c.animations[anim.name] = entry
    -- a key on the last frame fires at the seam, not at the start as 1 = 0 would in the animator
    local evs = {}
    for _, key in ipairs(keys) do
      local at = key.start < frames and key.start / frames or 1 - 2 ^ -30
      for _, item in ipairs(key.items) do
        if item.kind == "event" or item.kind == "sound" then evs[#evs + 1] = { at = at, name = item.name } end
      end
    end
    events_of[an] = evs
  end
  compiled[arm] = c
  return c
end

return M
