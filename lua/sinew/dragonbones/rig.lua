--- A DragonBones rig: one instance of an imported armature, playing its animations as the
-- DragonBones runtime (5.6) does. Made by `sinew.dragonbones.rig(data, name)`.
-- @classmod sinew.dragonbones.Rig
local Compile = require "sinew.dragonbones.compile"
local Playhead = require "sinew.dragonbones.playhead"
local Kind = require "sinew.dragonbones.kind"
local Fault = require "sinew.fault"
local core = require "sinew.core"

local Rig = {}
Rig.__index = Rig

local GROUP = getmetatable(core.group()) -- the metatable of `sinew.group()`'s groups

local EVENT_KIND = { sound = "soundEvent", event = "frameEvent" }

local show_children, inherit -- (below)

--- The most rigs one rig may hold through nested armatures (its children, theirs, ...): a file
-- whose armatures nest wider or deeper than this is refused by `rig` (nil, message).
Rig.MAX_NESTED = 1000

-- how many rigs armature `name` can hold through its armature displays, at most `cap` + 1 (the
-- importer refuses cycles; `seen` memoises, so the count costs one visit per armature)
local function nested_count(data, name, cap, seen)
  if seen[name] then return seen[name] end
  local arm, total = data.armatures[name], 0
  for _, skin in ipairs(arm and arm.skins or {}) do
    for _, list in pairs(skin.slots or {}) do
      for _, d in ipairs(list) do
        if d and d.type == "armature" and total <= cap then total = total + 1 + nested_count(data, d.armature, cap, seen) end
      end
    end
  end
  if total > cap then total = cap + 1 end
  seen[name] = total
  return total
end

-- the rig at argument 1 of method `method`, checked
local function check(self, method)
  if getmetatable(self) ~= Rig or rawget(self, "core") == nil then
    error(("bad argument #1 to '%s' (a sinew.dragonbones rig expected, got %s)"):format(method, type(self)), 3)
  end
  return self
end

-- the type of `v` for a message: a sinew object's class name (its metatable's __name), else its
-- type
local function type_name(v)
  local mt = getmetatable(v)
  if type(v) == "userdata" and type(mt) == "table" and type(rawget(mt, "__name")) == "string" then
    return rawget(mt, "__name")
  end
  return type(v)
end

-- what a message says after "no <noun> 'x'": a near name ("; did you mean 'walk'?"), else the
-- first names of `list` (entries' `name` fields) and how many more there are
local function choices(name, map, list, nouns)
  local near = Fault.nearest(name, map)
  if near then return ("; did you mean '%s'?"):format(near) end
  local n = #list
  if n == 0 then return ("; the armature has no %s"):format(nouns) end
  local shown = {}
  for i = 1, math.min(n, 5) do shown[i] = ("'%s'"):format(list[i].name) end
  local more = n > 5 and (" and %d more"):format(n - 5) or ""
  return ("; the %s are %s%s"):format(nouns, table.concat(shown, ", "), more)
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
    -- a key's action: a slot's child armature plays an animation, after this update (the
    -- armature's own plays are not taken yet: see manual/2d.md)
    if item.slot then
      local q = self.actions_n + 1
      self.actions_n = q
      self.actions[q] = item
    elseif not item.bone and self.compiled.animations[item.animation] then
      self.pending = item.animation -- this armature's own: started at the end of this update
    end
    return
  else
    e[1], e[2] = EVENT_KIND[item.kind] or item.kind, item.name
    e[3] = item.bone and arm.bones[item.bone].name or item.slot and arm.slots[item.slot].name or nil
  end
  self.events_n = n
end

-- the child rig of slot s's display k (0-based), made when first asked for
local function child_of(self, s, k)
  local list = self.nested[s]
  if list == nil then
    list = {}
    self.nested[s] = list
  end
  local child = list[k]
  if child == nil then
    local d = self.compiled.displays[s][k + 1]
    child = Rig.new(self.data, d.armature) or false
    list[k] = child
  end
  return child or nil
end

-- the child armatures the slots show after an update: one newly shown starts its default
-- animation (its events count: `keep` false drops them, as for the runtime's build); then the
-- slots' buffered actions play animations on the children
-- a child armature shown that has animation `name` plays it too when this rig starts it (the
-- runtime's inheritAnimation), unless it plays it already
inherit = function(self, name)
  local nesting, shown = self.nesting, self.shown
  for i = 1, #nesting do
    local child = shown[nesting[i]]
    if child and child.compiled.animations[name] and child.head.anim ~= child.compiled.animations[name] then
      child:play(name)
    end
  end
end

show_children = function(self, keep)
  -- a key's action reaches the child its slot showed before this update's display changes (the
  -- runtime's timelines run before its slots update)
  for q = 1, self.actions_n do
    local item = self.actions[q]
    local child = self.shown[item.slot]
    -- the child starts it at the end of its next update, so it plays from its update after
    -- (the runtime buffers the action on the child armature)
    if child and child.compiled.animations[item.animation] then child.pending = item.animation end
    -- (the child takes it at the end of its next update)
  end
  self.actions_n = 0
  local nesting = self.nesting
  for i = 1, #nesting do
    local s = nesting[i]
    local k = self.core:slot(s)
    local d = k >= 0 and self.compiled.displays[s][k + 1]
    local child = d and d.type == "armature" and child_of(self, s, k) or nil
    if child ~= self.shown[s] then
      self.shown[s] = child
      -- one shown by an update joins the clock after it (one shown as the rig is made is on it)
      self.fresh[s] = keep and child ~= nil
      if child then
        local name = child.model.default_animation
        if name then child:play(name) end
        -- what its start fired is reported now (with this rig's update), or dropped (the build)
        child.keep_events = false
        if not keep then child.events_n = 0 end
      end
    end
  end
end

-- advances the playhead by dt and, while the animation plays, samples it into the rig
local function evaluate(self, dt)
  local head = self.head
  if Playhead.advance(head, dt, self.emit) then
    self.core:update(head.anim.core, head.current, Playhead.tween_last(head))
  end
end

-- A new rig of armature `name` (default the first) of imported `data`, or nil and a message when
-- there is no such armature: what `sinew.dragonbones.rig(data, name)` (the public constructor)
-- returns. Internal: its argument errors name 'rig' and blame the caller of the function that
-- calls it (level 3), as `sinew.dragonbones.rig` needs.
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
  if nested_count(data, arm.name, Rig.MAX_NESTED, {}) > Rig.MAX_NESTED then
    return nil, ("%s: armature '%s' nests more than %d armatures"):format(tostring(data.file or "data"), tostring(arm.name),
      Rig.MAX_NESTED)
  end
  local ok, compiled = pcall(Compile.armature, arm)
  if not ok then
    return nil, ("%s: armature '%s' does not compile (was the data changed after loading?): %s"):format(
      tostring(data.file or "data"), tostring(arm.name), tostring(compiled))
  end
  local self = setmetatable({
    compiled = compiled, model = arm, core = compiled.core:rig(), data = data,
    head = {}, events_n = 0, events_list = {}, actions = {}, actions_n = 0,
    nested = {}, shown = {}, fresh = {}, -- per slot: its child rigs by display index; the one shown
  }, Rig)
  self.emit = function(kind, item) push(self, kind, item) end
  -- the slots with an armature display: their child armatures play while shown, on this rig's
  -- clock (made when first shown; the first ones now, as the runtime builds them)
  self.nesting = {}
  for s = 1, #arm.slots do
    for _, d in ipairs(compiled.displays[s] or {}) do
      if d.type == "armature" then
        self.nesting[#self.nesting + 1] = s
        break
      end
    end
  end
  self.events_i = 0
  self.events_next = function()
    local i = self.events_i + 1
    if i > self.events_n then return nil end
    self.events_i = i
    local e = self.events_list[i]
    return e[1], e[2], e[3]
  end
  show_children(self, false)
  return self
end

-- the compiled animation `name` (argument `arg` of method `fname`), checked
local function animation(self, name, fname, arg)
  local anim = type(name) == "string" and self.compiled.animations[name]
  if not anim then
    local why
    if type(name) ~= "string" then
      why = ("an animation's name expected, got %s"):format(type_name(name))
    else
      why = ("no animation '%s' in armature '%s'%s"):format(name, self.model.name,
        choices(name, self.compiled.animations, self.compiled.animations, "animations"))
    end
    error(("bad argument #%d to '%s' (%s)"):format(arg, fname, why), 3)
  end
  return anim
end

--- Plays animation `name` from its start, `times` times (0 forever; default the file's).
-- @tparam string name an animation of the rig's armature
-- @tparam[opt] integer times how many times (0: forever; default the animation's playTimes)
-- @raise "bad argument #1 to 'play' (no animation 'wlak' in armature 'y'; did you mean 'walk'?)"
-- when the armature has no animation `name` (without a near name, the first few names: "; the
-- animations are 'idle', 'walk', ... and 3 more"), "bad argument #1 to 'play' (an animation's name
-- expected, got nil)" when `name` is not a string; "bad argument #2 to 'play' (times must be an
-- integer >= 0)" for any other `times` than nil or a finite integer >= 0; "bad argument #1 to
-- 'play' (a sinew.dragonbones rig expected, got table)" when called on what is not a rig
-- (`rig.play()` for `rig:play()`).
function Rig:play(name, times)
  check(self, "play")
  local anim = animation(self, name, "play", 1)
  if times ~= nil and (type(times) ~= "number" or times < 0 or times ~= math.floor(times) or times == math.huge) then
    error("bad argument #2 to 'play' (times must be an integer >= 0)", 2)
  end
  if times == nil or times < 0 then times = anim.play_times end
  if anim.frames <= 1 then times = 1 end -- as the runtime: a one-frame animation plays once
  inherit(self, name)
  -- as the runtime: one update at once, whose events the next update reports
  Playhead.start(self.head, anim, times, 0.0, true)
  self.events_n = 0
  evaluate(self, 0)
  show_children(self, true)
  self.keep_events = true
end

--- Stops at `t` seconds into animation `name` (DragonBones' gotoAndStopByTime): the next
-- update(0) shows the pose at t. A time past the duration wraps (`t` modulo the duration); a
-- negative time shows the animation's end, its one play completed, as the runtime (5.6.2) does:
-- its wrap of a negative time (duration - fmod(t, duration)) lands at or past the end, so
-- `seek(name, -0.25)` is `seek(name, duration)`, not `seek(name, duration - 0.25)`.
-- @tparam string name an animation of the rig's armature
-- @tparam number t seconds into the animation (finite); past its duration wraps, negative is its end
-- @raise "bad argument #1 to 'seek' (no animation 'x' in armature 'y'; ...)" when the armature has
-- no animation `name` (with a near name or the first few names, as `play`), "bad argument #1 to
-- 'seek' (an animation's name expected, got nil)" when `name` is not a string; "bad argument #2 to
-- 'seek' (a finite number expected)" when `t` is not a finite number; "bad argument #1 to 'seek' (a
-- sinew.dragonbones rig expected, got table)" when called on what is not a rig (`rig.seek()` for
-- `rig:seek()`).
function Rig:seek(name, t)
  check(self, "seek")
  local anim = animation(self, name, "seek", 1)
  if type(t) ~= "number" or t ~= t or t == math.huge or t == -math.huge then
    error("bad argument #2 to 'seek' (a finite number expected)", 2)
  end
  local d = anim.duration
  if anim.frames <= 1 then
    t = 0
  elseif t < 0 then
    -- as the runtime (5.6.2): its wrap, d - fmod(t, d), lands at or past the end for every
    -- negative t, where the play (one) is over: the last pose, completed
    t = d
  elseif t == d then
    t = t - 0.000001
  elseif t > d then
    t = math.fmod(t, d)
  end
  -- as the runtime: play from t, one update at once (whose events the next update reports),
  -- then stop
  Playhead.start(self.head, anim, 1, t, true)
  inherit(self, name)
  self.events_n = 0
  evaluate(self, 0)
  show_children(self, true)
  self.head.playing = false
  self.keep_events = true
end

--- Advances by `dt` seconds: timelines, IK, world matrices, deform; the events it fires are
-- then in `events()`.
-- @tparam number dt seconds (finite, >= 0)
-- @raise "bad argument #1 to 'update' (a finite number >= 0 expected)" when `dt` is not a number,
-- is negative, NaN or infinite; "bad argument #1 to 'update' (a sinew.dragonbones rig expected, got
-- table)" when called on what is not a rig (`rig.update()` for `rig:update()`).
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
  local fading = self.fading
  if fading then
    -- an animation a key's action started fades in over its fadeInTime, its playhead paused:
    -- the one before plays on until then, and the new one starts in the update that ends the fade
    self.fade_time = self.fade_time + dt
    if self.fade_time >= fading.fade_in_time then
      self.fading = nil
      inherit(self, fading.name)
      Playhead.start(self.head, fading, fading.frames <= 1 and 1 or fading.play_times, 0.0, true)
    end
  end
  evaluate(self, dt)
  show_children(self, true)
  -- the child armatures shown advance after this one, on its clock
  local nesting, shown, fresh = self.nesting, self.shown, self.fresh
  for i = 1, #nesting do
    local s = nesting[i]
    local child = shown[s]
    if child and not fresh[s] then child:update(dt) end
    fresh[s] = false
  end
  local pending = self.pending
  if pending then
    self.pending = nil
    local anim = self.compiled.animations[pending]
    if anim.fade_in_time > 0 then
      self.fading, self.fade_time = anim, 0
    else
      self.fading = nil
      inherit(self, pending)
      Playhead.start(self.head, anim, anim.frames <= 1 and 1 or anim.play_times, 0.0, true)
    end
  end
end


--- The events of the last update, in order: `for kind, name, owner in rig:events() do`. The
-- iterator is the rig's own, made once (no garbage per call): a second `events()` on the same
-- rig restarts it.
-- @return the iterator: each call gives kind, name (the animation's, or the event's) and owner (the
-- bone or slot of a frame or sound event, or nil), then nil at the end
-- @raise "bad argument #1 to 'events' (a sinew.dragonbones rig expected, got table)" when called on
-- what is not a rig (`rig.events()` for `rig:events()`).
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
-- @treturn table the armature
-- @raise "bad argument #1 to 'armature' (a sinew.dragonbones rig expected, got table)" when called
-- on what is not a rig (`rig.armature()` for `rig:armature()`).
function Rig:armature() return check(self, "armature").model end

--- The bones' names in the file's order.
-- @treturn {string,...} a new list
-- @raise "bad argument #1 to 'bones' (a sinew.dragonbones rig expected, got table)" when called on
-- what is not a rig (`rig.bones()` for `rig:bones()`).
function Rig:bones() return names(check(self, "bones").model.bones) end
--- The slots' names in the file's order.
-- @treturn {string,...} a new list
-- @raise "bad argument #1 to 'slots' (a sinew.dragonbones rig expected, got table)" when called on
-- what is not a rig (`rig.slots()` for `rig:slots()`).
function Rig:slots() return names(check(self, "slots").model.slots) end

-- the index of the bone or slot `name` (a name of `map`, or an index 1 .. #list), argument #1 of
-- method `fname`; `noun` names what it is ("bone", "slot")
local function index_of(map, list, name, noun, fname)
  if type(name) == "number" then
    if name ~= math.floor(name) or name < 1 or name > #list then
      error(("bad argument #1 to '%s' (%s index %s is out of range (1 .. %d))"):format(fname, noun, Fault.show(name), #list), 3)
    end
    return name
  end
  local i = type(name) == "string" and map[name]
  if not i then
    if type(name) ~= "string" then
      error(("bad argument #1 to '%s' (a %s's name or index expected, got %s)"):format(fname, noun, type_name(name)), 3)
    end
    error(("bad argument #1 to '%s' (no %s '%s'%s)"):format(fname, noun, name, choices(name, map, list, noun .. "s")), 3)
  end
  return i
end

--- The world matrix of bone `name`: a, b, c, d, tx, ty (armature space, y down).
-- @param name a bone's name, or its index in `bones()` (1 .. the bone count)
-- @return a, b, c, d, tx, ty
-- @raise "bad argument #1 to 'bone' (no bone 'x'; the bones are 'root', 'pelvis', ... and 12
-- more)" when `name` is no bone's name ("; did you mean 'pelvis'?" for a near one), "bad argument
-- #1 to 'bone' (bone index 0 is out of range (1 .. 17))" for an index that is not an integer in
-- range, "bad argument #1 to 'bone' (a bone's name or index expected, got nil)" otherwise; "bad
-- argument #1 to 'bone' (a sinew.dragonbones rig expected, got table)" when called on what is not a
-- rig (`rig.bone()` for `rig:bone()`).
function Rig:bone(name)
  check(self, "bone")
  return self.core:bone(index_of(self.model.bone, self.model.bones, name, "bone", "bone"))
end

--- Slot `name`: display index (0-based, -1 none), draw position (1 = drawn first), r, g, b, a.
-- @param name a slot's name, or its index in `slots()` (1 .. the slot count)
-- @return display index, draw position, then the colour multipliers r, g, b, a (0 .. 1)
-- @raise "bad argument #1 to 'slot' (no slot 'x'; the slots are 'a', 'b', ... and 8 more)" when
-- `name` is no slot's name ("; did you mean 'b'?" for a near one), "bad argument #1 to 'slot'
-- (slot index 0 is out of range (1 .. 13))" for an index that is not an integer in range, "bad
-- argument #1 to 'slot' (a slot's name or index expected, got nil)" otherwise; "bad
-- argument #1 to 'slot' (a sinew.dragonbones rig expected, got table)" when called on what is not a
-- rig (`rig.slot()` for `rig:slot()`).
function Rig:slot(name)
  check(self, "slot")
  return self.core:slot(index_of(self.model.slot, self.model.slots, name, "slot", "slot"))
end

--- The vertices of the mesh slot `name` shows, in armature space, written into `out` as x, y
-- pairs; returns their count n. `out[1 .. 2n]` holds them; n is 0 when the slot shows no mesh.
-- @param name a slot's name, or its index in `slots()` (1 .. the slot count)
-- @tparam table out a plain table (no metatable); its entries past 2n are left as they are
-- @treturn integer n, the vertex count
-- @raise "bad argument #2 to 'vertices' (a plain table expected, got nil)" when `out` is not a
-- table or has a metatable (checked first); "bad argument #1 to 'vertices' (no slot 'x'; ...)" when
-- `name` is no slot's name nor an integer index in range, as for `slot`; "bad argument #1 to
-- 'vertices' (a sinew.dragonbones rig expected, got table)" when called on what is not a rig
-- (`rig.vertices()` for `rig:vertices()`).
function Rig:vertices(name, out)
  check(self, "vertices")
  if type(out) ~= "table" or getmetatable(out) ~= nil then
    error(("bad argument #2 to 'vertices' (a plain table expected, got %s)"):format(type_name(out)), 2)
  end
  return self.core:vertices(index_of(self.model.slot, self.model.slots, name, "slot", "vertices"), out)
end

--- The world matrix of slot `name` (or index): its display's transform in its bone's world
-- matrix, a, b, c, d, tx, ty.
-- @param name a slot's name, or its index in `slots()` (1 .. the slot count)
-- @return a, b, c, d, tx, ty
-- @raise "bad argument #1 to 'slot_matrix' (no slot 'x'; ...)" when `name` is no slot's name nor an
-- integer index in range ("slot index 0 is out of range (1 .. 13)"), as for `slot`; "bad argument
-- #1 to 'slot_matrix' (a sinew.dragonbones rig expected, got table)" when called on what is not a
-- rig (`rig.slot_matrix()` for `rig:slot_matrix()`).
function Rig:slot_matrix(name)
  check(self, "slot_matrix")
  return self.core:slot_matrix(index_of(self.model.slot, self.model.slots, name, "slot", "slot_matrix"))
end

--- Slot `name`'s colour offsets r, g, b, a, each from -255 to 255 (the multipliers come from `slot`).
-- @param name a slot's name, or its index in `slots()` (1 .. the slot count)
-- @return r, g, b, a
-- @raise "bad argument #1 to 'slot_offsets' (no slot 'x'; ...)" when `name` is no slot's name nor an
-- integer index in range ("slot index 0 is out of range (1 .. 13)"), as for `slot`; "bad argument
-- #1 to 'slot_offsets' (a sinew.dragonbones rig expected, got table)" when called on what is not a
-- rig (`rig.slot_offsets()` for `rig:slot_offsets()`).
function Rig:slot_offsets(name)
  check(self, "slot_offsets")
  return self.core:slot_offsets(index_of(self.model.slot, self.model.slots, name, "slot", "slot_offsets"))
end

--- The slot drawn `k`-th (`k` from 1 to the slot count): its index in `slots()`.
-- @tparam integer k the draw position (1: drawn first)
-- @treturn integer the slot's index
-- @raise "bad argument #1 to 'draw_order' (draw position 0 is out of range (1 .. 13))" when `k` is
-- a number but not an integer in range, "bad argument #1 to 'draw_order' (a draw position (1 .. 13)
-- expected, got string)" when it is not a number; "bad argument #1 to
-- 'draw_order' (a sinew.dragonbones rig expected, got table)" when called on what is not a rig
-- (`rig.draw_order()` for `rig:draw_order()`).
function Rig:draw_order(k)
  check(self, "draw_order")
  local n = #self.model.slots
  if type(k) ~= "number" then
    error(("bad argument #1 to 'draw_order' (a draw position (1 .. %d) expected, got %s)"):format(n, type_name(k)), 2)
  elseif k ~= math.floor(k) or k < 1 or k > n then
    error(("bad argument #1 to 'draw_order' (draw position %s is out of range (1 .. %d))"):format(Fault.show(k), n), 2)
  end
  return self.core:draw_order(k)
end

--- The display slot `name` shows: the display's table from the data (type, name, path, ...), or
-- nil when it shows none.
-- @param name a slot's name, or its index in `slots()` (1 .. the slot count)
-- @treturn ?table the display (read it, do not change it), or nil
-- @raise "bad argument #1 to 'display' (no slot 'x'; ...)" when `name` is no slot's name nor an
-- integer index in range ("slot index 0 is out of range (1 .. 13)"), as for `slot`; "bad argument
-- #1 to 'display' (a sinew.dragonbones rig expected, got table)" when called on what is not a rig
-- (`rig.display()` for `rig:display()`).
function Rig:display(name)
  check(self, "display")
  local s = index_of(self.model.slot, self.model.slots, name, "slot", "display")
  local k = self.core:slot(s)
  local list = self.compiled.displays[s]
  return k >= 0 and list and list[k + 1] or nil
end

--- Slot `name` shows display `k` (0-based as in the file, -1 none) until an animation's key
-- changes it.
-- @param name a slot's name, or its index in `slots()` (1 .. the slot count)
-- @tparam integer k the display's index in the slot's list (0-based), or -1 for none
-- @raise "bad argument #1 to 'set_display' (no slot 'x'; ...)" when `name` is no slot's name nor
-- an integer index in range ("slot index 0 is out of range (1 .. 13)"), as for `slot`; "bad
-- argument #2 to 'set_display' (display index 5 is out of range (-1 .. 2))" when `k` is a number
-- but not an integer from -1 to the slot's last display, "(a display index (-1 .. 2) expected, got
-- nil)" when it is not a number; "bad argument #1 to 'set_display' (a sinew.dragonbones rig
-- expected, got table)" when called on what is not a rig (`rig.set_display()` for
-- `rig:set_display()`).
function Rig:set_display(name, k)
  check(self, "set_display")
  local s = index_of(self.model.slot, self.model.slots, name, "slot", "set_display")
  local list = self.compiled.displays[s] or {}
  if type(k) ~= "number" then
    error(("bad argument #2 to 'set_display' (a display index (-1 .. %d) expected, got %s)"):format(#list - 1,
      type_name(k)), 2)
  elseif k ~= math.floor(k) or k < -1 or k >= #list then
    error(("bad argument #2 to 'set_display' (display index %s is out of range (-1 .. %d))"):format(Fault.show(k),
      #list - 1), 2)
  end
  self.core:set_display(s, k)
end

--- The vertex buffer of the mesh slot `name` shows, filled for drawing: a light userdata
-- pointer, its size in bytes and its vertex count (nil, 0, 0 when the slot shows no mesh). Each
-- vertex takes 20 bytes: x, y (armature space), u, v as floats, then r, g, b, a as bytes (the
-- slot's colour multipliers): the layout of `love.graphics.newMesh`'s default vertex format. The
-- pointer stays valid while the rig lives; copy it (`ffi.copy` into a ByteData) before the next
-- update.
-- @param name a slot's name, or its index in `slots()` (1 .. the slot count)
-- @return pointer (light userdata, or nil), size in bytes, vertex count
-- @raise "bad argument #1 to 'mesh' (no slot 'x'; ...)" when `name` is no slot's name nor an
-- integer index in range ("slot index 0 is out of range (1 .. 13)"), as for `slot`; "bad argument
-- #1 to 'mesh' (a sinew.dragonbones rig expected, got table)" when called on what is not a rig
-- (`rig.mesh()` for `rig:mesh()`).
function Rig:mesh(name)
  check(self, "mesh")
  return self.core:mesh(index_of(self.model.slot, self.model.slots, name, "slot", "mesh"))
end

--- The child rig that slot `name` (or index) shows (an armature display), or nil: it plays on
-- this rig's clock, and reports its own events.
-- @param name a slot's name, or its index in `slots()` (1 .. the slot count)
-- @return the child rig, or nil
-- @raise "bad argument #1 to 'child' (no slot 'x'; ...)" when `name` is no slot's name nor an
-- integer index in range ("slot index 0 is out of range (1 .. 13)"), as for `slot`; "bad argument
-- #1 to 'child' (a sinew.dragonbones rig expected, got table)" when called on what is not a rig
-- (`rig.child()` for `rig:child()`).
function Rig:child(name)
  check(self, "child")
  return self.shown[index_of(self.model.slot, self.model.slots, name, "slot", "child")] or nil
end

--- Adds this rig to `group` (`sinew.group()`): each `group:run(dt, params)` poses it at the time
-- `params[i]` (seconds within animation `name`; the returned i) as its own update at that time
-- does, with the other rigs of the group in one call. For crowds that a game times itself (no
-- playhead, no events); `loop` (default true): the last key tweens toward the first.
-- @param group a group (`sinew.group()`)
-- @tparam string name an animation of the rig's armature
-- @tparam[opt=true] boolean loop whether the last key tweens toward the first
-- @treturn integer i, the index of its time in the group's parameters
-- @raise "bad argument #1 to 'group' (sinew.Group expected, got table)" when `group` is not a
-- `sinew.group()`; "bad argument #2 to 'group' (no animation 'x' in armature 'y'; ...)" when the
-- armature has no animation `name` (as `play`), "(an animation's name expected, got nil)" when it
-- is not a string; "too many parameters in one group" past 2^24 (as `Group:rig2d`); "bad argument
-- #1 to 'group' (a sinew.dragonbones rig expected, got table)" when called on what is not a rig
-- (`rig.group()` for `rig:group()`).
function Rig:group(group, name, loop)
  check(self, "group")
  if getmetatable(group) ~= GROUP then
    error(("bad argument #1 to 'group' (sinew.Group expected, got %s)"):format(type_name(group)), 2)
  end
  local anim = animation(self, name, "group", 2)
  if loop == nil then loop = true end
  return group:rig2d(self.core, anim.core, loop)
end

-- ---- rigs in the animator -------------------------------------------------------------------

--- The rig's armature as the animator's skeleton (`skeleton = rig:skeleton()` in a definition).
-- @return the compiled armature (a `sinew.Rig2DData`), shared by every rig of the armature
-- @raise "bad argument #1 to 'skeleton' (a sinew.dragonbones rig expected, got table)" when called
-- on what is not a rig (`rig.skeleton()` for `rig:skeleton()`).
function Rig:skeleton()
  return check(self, "skeleton").compiled.core
end

--- The rig's animations as clips for the animator: `{ [name] = clip }` (the `clips` resource).
-- @treturn table a new table of the armature's animations (`sinew.Anim2D`) by name
-- @raise "bad argument #1 to 'clips' (a sinew.dragonbones rig expected, got table)" when called on
-- what is not a rig (`rig.clips()` for `rig:clips()`).
function Rig:clips()
  check(self, "clips")
  local out = {}
  for _, a in ipairs(self.compiled.animations) do out[a.name] = a.core end
  return out
end

--- A new rig of the same armature of the same data, at its setup pose, playing nothing: one per
-- character from a first one (what `sinew.dragonbones.rig(data, name)` gives).
-- @return a new rig
-- @raise "bad argument #1 to 'clone' (a sinew.dragonbones rig expected, got table)" when called on
-- what is not a rig (`rig.clone()` for `rig:clone()`).
function Rig:clone()
  check(self, "clone")
  return assert(Rig.new(self.data, self.model.name))
end

--- A new 2-D pose of the rig's armature, at rest: what `animator:evaluate(pose)` fills.
-- @return a new `sinew.Pose2D`
-- @raise "bad argument #1 to 'pose' (a sinew.dragonbones rig expected, got table)" when called on
-- what is not a rig (`rig.pose()` for `rig:pose()`).
function Rig:pose()
  return check(self, "pose").compiled.core:pose()
end

--- A mask of the rig's armature: `weights` maps bone names to weights from 0 to 1; other bones
-- get `default` (0 by default). For a layer's `mask` in an animator definition.
-- @tparam table weights bone name -> weight (0 .. 1)
-- @tparam[opt=0] number default the weight of the bones `weights` does not name (0 .. 1)
-- @return a new `sinew.Mask2D`
-- @raise "bad argument #1 to 'mask' (table expected, got nil)" when `weights` is not a table; "bad
-- argument #1 to 'mask' (no bone 'x'; the bones are ...)" for a key that is no bone's name (the
-- first such key in sorted order; "; did you mean 'y'?" for a near name), "(bone names expected as
-- keys, got number)" for a key that is not a string; "bad argument #1 to 'mask'
-- (the weight of 'x' must be a number in 0 .. 1)"; "bad argument #2 to 'mask' (the default weight
-- must be a number in 0 .. 1)" for a `default` other than nil or such a number; "bad argument #1 to
-- 'mask' (a sinew.dragonbones rig expected, got table)" when called on what is not a rig
-- (`rig.mask()` for `rig:mask()`).
function Rig:mask(weights, default)
  check(self, "mask")
  if type(weights) ~= "table" then
    error(("bad argument #1 to 'mask' (table expected, got %s)"):format(type(weights)), 2)
  end
  local list, bones = {}, self.model.bone
  for _, name in ipairs(Fault.sorted_keys(weights)) do -- (a fixed order: the same fault in every run)
    local w, b = weights[name], bones[name]
    if b == nil then
      local why = type(name) == "string" and ("no bone '%s'%s"):format(name, choices(name, bones, self.model.bones, "bones"))
        or ("bone names expected as keys, got %s"):format(type_name(name))
      error(("bad argument #1 to 'mask' (%s)"):format(why), 2)
    end
    if type(w) ~= "number" or not (w >= 0 and w <= 1) then
      error(("bad argument #1 to 'mask' (the weight of '%s' must be a number in 0 .. 1)"):format(tostring(name)), 2)
    end
    list[b] = w
  end
  if default ~= nil and (type(default) ~= "number" or not (default >= 0 and default <= 1)) then
    error("bad argument #2 to 'mask' (the default weight must be a number in 0 .. 1)", 2)
  end
  return self.compiled.core:mask(list, default)
end

--- Applies an animator's 2-D pose to the rig: the bones from `pose`, then IK and the world
-- matrices. With `name` and `t`, the slots (display, colour, draw order, deform) come from that
-- animation's slot timelines at `t` seconds (looping when `loop`); without, they stay as they are.
-- @param pose a 2-D pose of this rig's armature (`rig:pose()`)
-- @tparam[opt] string name an animation of the rig's armature, for the slots
-- @tparam[opt] number t seconds into it (finite; needed with `name`)
-- @tparam[opt] boolean loop whether the last key tweens toward the first
-- @raise "bad argument #1 to 'apply' (a 2-D pose of this rig's armature expected, got sinew.Pose)"
-- when `pose` is not a 2-D pose (its type's name, or Lua's type), "(... got a pose of another
-- armature)" for one of another armature; "bad argument #2 to 'apply' (no animation 'x' in
-- armature 'y'; ...)" when the armature has no animation `name` (as `play`), "(an animation's name
-- expected, got number)" when `name` is neither nil nor a string; "bad argument #3 to 'apply' (a
-- finite time expected)" when `name` is given and `t` is not a finite number; "bad argument #1 to
-- 'apply' (a sinew.dragonbones rig expected, got table)" when called on what is not a rig
-- (`rig.apply()` for `rig:apply()`).
function Rig:apply(pose, name, t, loop)
  check(self, "apply")
  if getmetatable(pose) ~= Kind.kind.Pose or pose:skeleton() ~= self.compiled.core then
    error(("bad argument #1 to 'apply' (a 2-D pose of this rig's armature expected, got %s)"):format(
      getmetatable(pose) == Kind.kind.Pose and "a pose of another armature" or type_name(pose)), 2)
  end
  if name == nil then
    self.core:apply(pose)
  else
    local anim = animation(self, name, "apply", 2)
    if type(t) ~= "number" or t ~= t or t == math.huge or t == -math.huge then
      error("bad argument #3 to 'apply' (a finite time expected)", 2)
    end
    self.core:apply(pose, anim.core, t, loop)
  end
end

-- ---- dynamic chains -------------------------------------------------------------------------

--- A dynamic chain of the rig's bones (hair, tails, capes): `def.bones` (a parent-to-child list of
-- bone names) or `def.root` (the run of single children from it down), `end_length` (the tip beyond
-- the last bone, in its length units; default its `length`), `gravity` and `force` as {x, y} in
-- armature space (y down: gravity is +y; default none), `colliders` (circles, capsules, lines) and
-- `sinew.chain`'s parameters. Each frame, after the rig shows the animated pose,
-- `chain:step(dt, pose)` swings the bones and writes them into the pose. See
-- `sinew.dragonbones.Chain` and manual/2d.md, "Dynamic chains on 2-D rigs".
-- @tparam table def the chain's definition (the fields above)
-- @return a new `sinew.dragonbones.Chain`
-- @raise "bad argument #1 to 'chain' (<why>)" for a bad definition: not a table; an unknown field;
-- both or neither of 'bones' and 'root'; 'bones' empty, naming no bone, or not each the child of
-- the one before; 'root' naming no bone, or a bone with several children on the way down; a bone
-- that does not inherit its parent's translation, or that an IK constraint moves; 'end_length' not
-- in [0, 1e9]; fewer than 2 bones with no tip; 'gravity' or 'force' not {x, y} of finite numbers;
-- 'colliders' not a list of valid colliders (as `Chain:add_collider`, with the element's index); a
-- bone of the current pose placed out of range (-1e9 .. 1e9) or not finite; a parameter
-- `sinew.chain` refuses ("'damping' 2 is out of range (0 .. 1)"); "bad argument #1 to 'chain' (a
-- sinew.dragonbones rig expected, got table)" when called on what is not a rig (`rig.chain()` for
-- `rig:chain()`).
function Rig:chain(def)
  check(self, "chain")
  local chain = require("sinew.dragonbones.chain").new(self, def, 2) -- (not a tail call: errors name the caller)
  return chain
end

return Rig
