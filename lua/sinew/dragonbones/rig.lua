--- A DragonBones rig: one instance of an imported armature, playing its animations as the
-- DragonBones runtime (5.6) does. Made by `sinew.dragonbones.rig(data, name)`.
-- @classmod sinew.dragonbones.Rig
local Compile = require "sinew.dragonbones.compile"
local Playhead = require "sinew.dragonbones.playhead"

local Rig = {}
Rig.__index = Rig

local fmod = math.fmod

local EVENT_KIND = { sound = "soundEvent", event = "frameEvent" }

-- the rig at argument 1 of method `method`, checked
local function check(self, method)
  if getmetatable(self) ~= Rig or rawget(self, "core") == nil then
    error(("bad argument #1 to '%s' (a sinew.dragonbones rig expected, got %s)"):format(method, type(self)), 3)
  end
  return self
end

-- records an event of the update running (kind, and the action item for frame and sound events)
local function push(self, kind, item)
  local n = self.events_n + 1
  local e = self.events_list[n]
  if not e then
    e = {}
    self.events_list[n] = e
  end
  local arm, anim = self.model, self.head.anim
  if item == nil then
    e[1], e[2], e[3] = kind, anim.name, nil
  elseif item.kind == "play" then
    return
  else
    e[1], e[2] = EVENT_KIND[item.kind] or item.kind, item.name
    e[3] = item.bone and arm.bones[item.bone].name or item.slot and arm.slots[item.slot].name or nil
  end
  self.events_n = n
end

-- advances the playhead by dt and, while the animation plays, samples it into the rig
local function evaluate(self, dt)
  local head = self.head
  if Playhead.advance(head, dt, self.emit) then
    self.core:update(head.anim.core, head.current, Playhead.tween_last(head))
  end
end

--- A new rig of armature `name` (default the first) of imported `data`; nil, message when there
-- is no such armature.
function Rig.new(data, name)
  if type(data) ~= "table" or type(data.armatures) ~= "table" then
    error(("bad argument #1 to 'rig' (DragonBones data expected, got %s)"):format(type(data)), 3)
  end
  local arm
  if name == nil then
    arm = data.armatures[1]
  elseif type(name) == "string" then
    arm = data.armatures[name]
  else
    error(("bad argument #2 to 'rig' (string expected, got %s)"):format(type(name)), 3)
  end
  if type(arm) ~= "table" then return nil, ("%s: no armature '%s'"):format(tostring(data.file or "data"), tostring(name)) end
  local ok, compiled = pcall(Compile.armature, arm)
  if not ok then
    return nil, ("%s: armature '%s' does not compile (was the data changed after loading?): %s"):format(
      tostring(data.file or "data"), tostring(arm.name), tostring(compiled))
  end
  local self = setmetatable({
    compiled = compiled, model = arm, core = compiled.core:rig(),
    head = {}, events_n = 0, events_list = {},
  }, Rig)
  self.emit = function(kind, item) push(self, kind, item) end
  self.events_i = 0
  self.events_next = function()
    local i = self.events_i + 1
    if i > self.events_n then return nil end
    self.events_i = i
    local e = self.events_list[i]
    return e[1], e[2], e[3]
  end
  return self
end

local function animation(self, name)
  local anim = self.compiled.animations[name]
  if anim == nil then
    error(("bad argument #1 to 'play' (no animation '%s' in armature '%s')"):format(tostring(name), self.model.name), 3)
  end
  return anim
end

--- Plays animation `name` from its start, `times` times (0 forever; default the file's).
function Rig:play(name, times)
  check(self, "play")
  local anim = animation(self, name)
  if times ~= nil and (type(times) ~= "number" or times < 0 or times ~= math.floor(times)) then
    error("bad argument #2 to 'play' (times must be an integer >= 0)", 2)
  end
  if times == nil or times < 0 then times = anim.play_times end
  if anim.frames <= 1 then times = 1 end -- as the runtime: a one-frame animation plays once
  -- as the runtime: one update at once, whose events the next update reports
  Playhead.start(self.head, anim, times, 0.0, true)
  self.events_n = 0
  evaluate(self, 0)
  self.keep_events = true
end

--- Stops at `t` seconds into animation `name` (DragonBones' gotoAndStopByTime): the next
-- update(0) shows the pose at t.
function Rig:seek(name, t)
  check(self, "seek")
  local anim = animation(self, name)
  if type(t) ~= "number" or t ~= t or t == math.huge or t == -math.huge then
    error("bad argument #2 to 'seek' (a finite number expected)", 2)
  end
  local d = anim.duration
  if anim.frames <= 1 then
    t = 0
  elseif t < 0 then
    t = d - fmod(t, d)
  elseif t == d then
    t = t - 0.000001
  elseif t > d then
    t = fmod(t, d)
  end
  -- as the runtime: play from t, one update at once (whose events the next update reports),
  -- then stop
  Playhead.start(self.head, anim, 1, t, true)
  self.events_n = 0
  evaluate(self, 0)
  self.head.playing = false
  self.keep_events = true
end

--- Advances by `dt` seconds: timelines, IK, world matrices, deform; the events it fires are
-- then in `events()`.
function Rig:update(dt)
  check(self, "update")
  if type(dt) ~= "number" or dt ~= dt or dt < 0 or dt == math.huge then
    error("bad argument #1 to 'update' (a finite number >= 0 expected)", 2)
  end
  if self.keep_events then
    self.keep_events = false
  else
    self.events_n = 0
  end
  evaluate(self, dt)
end

--- The events of the last update, in order: `for kind, name, owner in rig:events() do`. The
-- iterator is the rig's own, made once (no garbage per call): a second `events()` on the same
-- rig restarts it.
function Rig:events()
  check(self, "events")
  self.events_i = 0
  return self.events_next
end

local function names(list)
  local out = {}
  for i = 1, #list do out[i] = list[i].name end
  return out
end

--- The armature this rig plays: its table in the data model of `sinew.dragonbones.load` (name,
-- bones with their lengths, slots with their blend modes, IK constraints, skins, animations).
-- Read it, do not change it: the rig was compiled from it.
function Rig:armature() return check(self, "armature").model end

--- The bones' names in the file's order.
function Rig:bones() return names(check(self, "bones").model.bones) end
--- The slots' names in the file's order.
function Rig:slots() return names(check(self, "slots").model.slots) end

local function index_of(map, name, what)
  if type(name) == "number" then return name end -- an index: the core checks its range
  local i = map[name]
  if i == nil then error(("bad argument #1 to '%s' (no %s '%s')"):format(what, what, tostring(name)), 3) end
  return i
end

--- The world matrix of bone `name`: a, b, c, d, tx, ty (armature space, y down).
function Rig:bone(name)
  check(self, "bone")
  return self.core:bone(index_of(self.model.bone, name, "bone"))
end

--- Slot `name`: display index (0-based, -1 none), draw position (1 = drawn first), r, g, b, a.
function Rig:slot(name)
  check(self, "slot")
  return self.core:slot(index_of(self.model.slot, name, "slot"))
end

--- The vertices of the mesh slot `name` shows, in armature space, into out[1 .. 2n]; n (0 when
-- it shows no mesh).
function Rig:vertices(name, out)
  check(self, "vertices")
  if type(out) ~= "table" then error(("bad argument #2 to 'vertices' (table expected, got %s)"):format(type(out)), 2) end
  return self.core:vertices(index_of(self.model.slot, name, "slot"), out)
end

--- The world matrix of slot `name` (or index): its display's transform in its bone's world
-- matrix, a, b, c, d, tx, ty.
function Rig:slot_matrix(name)
  check(self, "slot_matrix")
  return self.core:slot_matrix(index_of(self.model.slot, name, "slot_matrix"))
end

--- Slot `name`'s colour offsets r, g, b, a (-255 .. 255; the multipliers come from `slot`).
function Rig:slot_offsets(name)
  check(self, "slot_offsets")
  return self.core:slot_offsets(index_of(self.model.slot, name, "slot_offsets"))
end

--- The slot drawn `k`-th (1 .. the slot count): its index in `slots()`.
function Rig:draw_order(k)
  check(self, "draw_order")
  return self.core:draw_order(k)
end

--- The display slot `name` shows: the display's table from the data (type, name, path, ...), or
-- nil when it shows none.
function Rig:display(name)
  check(self, "display")
  local s = index_of(self.model.slot, name, "display")
  local k = self.core:slot(s)
  local list = self.compiled.displays[s]
  return k >= 0 and list and list[k + 1] or nil
end

--- Slot `name` shows display `k` (0-based as in the file, -1 none) until an animation's key
-- changes it.
function Rig:set_display(name, k)
  check(self, "set_display")
  self.core:set_display(index_of(self.model.slot, name, "set_display"), k)
end

--- The vertex buffer of the mesh slot `name` shows, filled for drawing: a light userdata
-- pointer, its size in bytes and its vertex count (nil, 0, 0 when the slot shows no mesh). Each
-- vertex takes 20 bytes: x, y (armature space), u, v as floats, then r, g, b, a as bytes (the
-- slot's colour multipliers): the layout of `love.graphics.newMesh`'s default vertex format. The
-- pointer stays valid while the rig lives; copy it (`ffi.copy` into a ByteData) before the next
-- update.
function Rig:mesh(name)
  check(self, "mesh")
  return self.core:mesh(index_of(self.model.slot, name, "mesh"))
end

return Rig
