--- The animator: parameters in, a blended pose out. A definition (plain data: states, blend
-- trees, transitions, layers, events) is compiled once by `sinew.animator(def [, resources])`;
-- each frame `anim:set(...)`, `anim:update(dt)` and `anim:evaluate(pose)` play it through the C
-- core, with no garbage. See manual/animator.md.
-- @module sinew.animator
local core = require "sinew.core"
local Definition = require "sinew.animator.definition"
local Fault = require "sinew.fault"
local Layer = require "sinew.animator.layer"
local Motion = require "sinew.animator.motion"
local Snapshot = require "sinew.animator.snapshot"
local Dot = require "sinew.animator.dot"
local RootMotion = require "sinew.animator.root_motion"

local M = {}

local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

local Animator = {}
Animator.__index = Animator

-- every animator made here (weak keys): a method called on anything else raises a clear error
-- (a table with the same metatable, or one claiming it through __metatable, is not one)
local animators = setmetatable({}, { __mode = "k" })
-- What the animator is doing now (A.busy: "update", "evaluate", "restore", "snapshot"): the
-- collector may run a finaliser at any allocation, and a finaliser that calls a method reading or
-- changing what is under way gets this error instead of a half-changed animator. Event handlers
-- run after an update's work, and may call anything.
local function refuse_busy(A, name)
  error(("'%s' called during the animator's own '%s' (from a finaliser): not allowed"):format(name, A.busy), 3)
end

local function check_self(self, name)
  if not animators[self] then
    local t = type(self)
    error(("bad argument #1 to '%s' (sinew.Animator expected, got %s)"):format(name, t == "table" and "table" or t), 3)
  end
end

local huge = math.huge
local MAX_DT = Motion.MAX_DT

--- A parameter that multiplies a state's speed or is an input of a direct blend node takes
-- values from -MAX_INPUT to MAX_INPUT (in the definition, `set` and `restore`).
M.MAX_INPUT = Motion.MAX_INPUT
local out_of_range = Motion.out_of_range
--- The most events one update queues (see `anim.dropped_events`).
M.MAX_EVENTS = Layer.MAX_EVENTS

-- the parameters a state's speed or a direct node takes, name -> what it does (for messages);
-- each motion and machine visited once, without recursion
local function limited_parameters(compiled)
  local out, seen, stack = {}, {}, {}
  local function visit(m)
    if not seen[m] then seen[m] = true; stack[#stack + 1] = m end
  end
  for _, l in ipairs(compiled.layers) do
    if l.synced then
      for _, m in each, l.motions do visit(m) end
    else
      visit(l)
    end
  end
  while #stack > 0 do
    local m = stack[#stack]
    stack[#stack] = nil
    if m.states then -- a layer or a sub-state machine
      for _, st in each, m.states do
        if st.speed_parameter then out[st.speed_parameter] = "multiplies a state's speed" end
        visit(st.motion)
      end
    elseif m.kind == "blend" then
      if m.mode == "direct" then
        for _, p in ipairs(m.params) do out[p] = "is an input of a direct blend node" end
      end
      for _, c in ipairs(m.children) do visit(c.motion) end
    end
  end
  return out
end


-- the first frame of every clip of the animator, for additive layers (clip -> pose)
local function first_frames(compiled)
  local refs = {}
  for clip in each, compiled.clips do
    local p = core.pose(compiled.skeleton)
    clip:sample(0, p, false)
    refs[clip] = p
  end
  return refs
end

--- Makes an animator from a definition (see manual/animator.md): `sinew.animator(def [,
-- resources])`. `resources` holds the tables that names in the definition refer to: `clips`
-- (name -> clip), `masks` (name -> mask), `poses` (name -> pose).
-- @function sinew.animator
-- @tparam table def `{skeleton = ..., parameters = {...}, layers = {...}, machines = {...}, root_motion = ...}`
-- @tparam[opt] table resources `{clips = {...}, masks = {...}, poses = {...}}`
-- @treturn Animator
-- @raise with the path of the fault in the definition, "<path>: <why>": "definition: must be a
-- table (got nil)", "skeleton: must be a sinew skeleton (got nil)", "layers: an animator needs a
-- layer", "layers[1].transitions[3].to: unknown state 'nowhere'", "resources.clips: must be a table
-- (got string)", ... (more in manual/animator.md, Errors)
local function new(def, resources)
  local compiled = Fault.run(3, "", Definition.compile, def, resources)
  local limited = limited_parameters(compiled)
  for name, p in each, compiled.params do
    local msg = (p.kind == "float" or p.kind == "int") and out_of_range(limited, name, p.value)
    if msg then error(("parameters.%s: %s"):format(name, msg), 3) end
  end
  local A = setmetatable({ def = compiled, skeleton = compiled.skeleton, values = {}, kinds = {}, layers = {},
    limited = limited,
    ev_n = 0, ev_name = {}, ev_layer = {}, ev_state = {}, ev_weight = {}, ev_time = {}, ev_i = 0,
    ev_spare = { {}, {}, {}, {}, {} },
    dropped_events = 0, handlers = {}, busy = false, updates = 0, kmins = {}, kmaxs = {},
    act_n = 0, act_clip = {}, act_weight = {}, act_time = {}, act_layer = {},
    act_i = 0, Pose = getmetatable(core.pose(compiled.skeleton)), smooth = {}, targets = {}, vels = {} },
    Animator)
  for name, p in each, compiled.params do
    A.values[name], A.kinds[name] = p.value, p.kind
    if p.smoothing then
      A.smooth[#A.smooth + 1] = { name = name, time = p.smoothing }
      A.targets[name], A.vels[name] = p.value, 0
    end
  end
  A.ev_cols = { A.ev_name, A.ev_layer, A.ev_state, A.ev_weight, A.ev_time }
  table.sort(A.smooth, function(a, b) return a.name < b.name end)
  if compiled.root_motion then A.root = RootMotion.new(compiled.skeleton, compiled.root_motion) end
  A.clip_names = compiled.clip_names -- (from the definition's copy of resources.clips)
  local frames
  for i, ldef in ipairs(compiled.layers) do
    local refs = nil
    if ldef.mode == "additive" then
      if ldef.reference then
        refs = {}
        for clip in each, compiled.clips do refs[clip] = ldef.reference end
      else
        frames = frames or first_frames(compiled)
        refs = frames
      end
    end
    A.layers[i] = Layer.new(ldef, compiled.skeleton, refs)
    if ldef.synced then A.layers[i].src = A.layers[ldef.synced] end
  end
  animators[A] = true
  return A
end

-- ---- parameters ------------------------------------------------------------------------------------

local function kind_of(A, name, level)
  local kind = A.kinds[name]
  if kind == nil then error(("unknown parameter %s"):format(Fault.show(name)), level + 1) end
  return kind
end

--- Sets a parameter: a finite number for a float, an integer for an int, a boolean for a bool or
-- a trigger (true sets it, false resets it). Returns the animator.
-- @tparam string name a parameter of the definition
-- @tparam number|boolean value in the parameter's own units (a float smoothed with `smoothing`
-- moves to it over time)
-- @treturn Animator the animator
-- @raise "unknown parameter 'x'"; "parameter 'speed' is a number: got nan" (a float or int needs a
-- finite number), "parameter 'count' is an int: got 1.5", "parameter 'on' is a bool: got 1" (and
-- for a trigger); "1e+308 is out of range (-1e6 .. 1e6): parameter 'rate' multiplies a state's
-- speed" (and "is an input of a direct blend node")
function Animator:set(name, value)
  if not animators[self] then check_self(self, "set") end
  local kind = kind_of(self, name, 2)
  if kind == "float" or kind == "int" then
    if not Fault.finite(value) then
      error(("parameter '%s' is a number: got %s"):format(name, Fault.show(value)), 2)
    end
    if kind == "int" and value ~= math.floor(value) then
      error(("parameter '%s' is an int: got %s"):format(name, Fault.show(value)), 2)
    end
    local msg = out_of_range(self.limited, name, value)
    if msg then error(msg, 2) end
  elseif type(value) ~= "boolean" then
    error(("parameter '%s' is a %s: got %s"):format(name, kind, Fault.show(value)), 2)
  end
  if self.targets[name] ~= nil then self.targets[name] = value else self.values[name] = value end
  return self
end

--- The value of a parameter as the animator uses it (for a smoothed float, where it has got to),
-- and for a smoothed float the value it moves to.
-- @tparam string name a parameter of the definition
-- @treturn number|boolean the value
-- @treturn ?number the target of a smoothed float, else nil
-- @raise "unknown parameter 'x'"
function Animator:get(name)
  if not animators[self] then check_self(self, "get") end
  kind_of(self, name, 2)
  return self.values[name], self.targets[name]
end

-- smoothed floats follow their targets as critically damped springs (exact for any step: the
-- same result for one step of dt as for many smaller ones); a spring whose arithmetic leaves the
-- double range (values near it, a smoothing time near 0, a step of days) is at its target
local function smooth(A, dt)
  local list, values, targets, vels = A.smooth, A.values, A.targets, A.vels
  for i = 1, #list do
    local s = list[i]
    local name = s.name
    if s.time <= 0 then
      values[name], vels[name] = targets[name], 0
    else
      local w = 2 / s.time
      local y, v = values[name] - targets[name], vels[name]
      local j = v + w * y
      local e = math.exp(-w * dt)
      local x, u = targets[name] + (y + j * dt) * e, (v - w * j * dt) * e
      if x - x == 0 and u - u == 0 then -- both finite
        values[name], vels[name] = x, u
      else
        values[name], vels[name] = targets[name], 0
      end
    end
  end
end

--- Sets a trigger: it stays set until a transition that uses it fires (which consumes it) or
-- `reset_trigger`. Returns the animator.
-- @tparam string name a trigger parameter
-- @treturn Animator the animator
-- @raise "unknown parameter 'x'"; "parameter 'x' is not a trigger"
function Animator:trigger(name)
  if not animators[self] then check_self(self, "trigger") end
  if kind_of(self, name, 2) ~= "trigger" then error(("parameter '%s' is not a trigger"):format(name), 2) end
  self.values[name] = true
  return self
end

--- Clears a trigger. Returns the animator.
-- @tparam string name a trigger parameter
-- @treturn Animator the animator
-- @raise "unknown parameter 'x'"; "parameter 'x' is not a trigger"
function Animator:reset_trigger(name)
  if not animators[self] then check_self(self, "reset_trigger") end
  if kind_of(self, name, 2) ~= "trigger" then error(("parameter '%s' is not a trigger"):format(name), 2) end
  self.values[name] = false
  return self
end

-- ---- layers ----------------------------------------------------------------------------------------

local function layer_of(A, which, level)
  local L
  if type(which) == "number" then L = A.layers[which]
  elseif type(which) == "string" then
    local i = A.def.layer_index[which]
    L = i and A.layers[i]
  elseif which == nil then L = A.layers[1]
  end
  if not L then error(("unknown layer %s"):format(Fault.show(which)), level + 1) end
  return L
end

--- Sets the weight of a layer; the first layer's is always 1. Returns the animator.
-- @tparam string|number which the layer's name or index (from 1)
-- @tparam number w weight, 0 .. 1 (a fraction: 0 off, 1 fully over the layers below)
-- @treturn Animator the animator
-- @raise "unknown layer 'x'" (or "unknown layer 5") for a name or index that is no layer; "layer
-- weight must be a number from 0 to 1 (got 2)"; "the first layer's weight is always 1"
function Animator:set_layer_weight(which, w)
  if not animators[self] then check_self(self, "set_layer_weight") end
  local L = layer_of(self, which, 2)
  if not Fault.finite(w) or w < 0 or w > 1 then
    error(("layer weight must be a number from 0 to 1 (got %s)"):format(Fault.show(w)), 2)
  end
  if L.def.index == 1 then error("the first layer's weight is always 1", 2) end
  L.weight = w
  return self
end

--- The weight of a layer.
-- @tparam[opt] string|number which the layer's name or index (from 1); default the first
-- @treturn number weight, 0 .. 1
-- @raise "unknown layer 'x'" (or "unknown layer 5") for a name or index that is no layer
function Animator:layer_weight(which)
  if not animators[self] then check_self(self, "layer_weight") end
  return layer_of(self, which, 2).weight
end

-- ---- time --------------------------------------------------------------------------------------------

-- events in time order: each state's step queues its events in order, so the queue is often
-- sorted already (checked first); otherwise a bottom-up merge sort of the five parallel lists
-- into the spare five and back, stable (ties keep their order), n log n for n <= MAX_EVENTS,
-- no garbage once the lists have grown
local function sort_events(A)
  local n, time = A.ev_n, A.ev_time
  local sorted = true
  for i = 2, n do
    if time[i] < time[i - 1] then sorted = false; break end
  end
  if sorted then return end
  local src, dst = A.ev_cols, A.ev_spare
  local width = 1
  while width < n do
    local st = src[5]
    for lo = 1, n, 2 * width do
      local mid, hi = math.min(lo + width, n + 1), math.min(lo + 2 * width, n + 1)
      local i, j = lo, mid
      for o = lo, hi - 1 do
        local from
        if i < mid and (j >= hi or st[i] <= st[j]) then from, i = i, i + 1 else from, j = j, j + 1 end
        for c = 1, 5 do dst[c][o] = src[c][from] end
      end
    end
    src, dst = dst, src
    width = width * 2
  end
  A.ev_cols, A.ev_spare = src, dst
  A.ev_name, A.ev_layer, A.ev_state, A.ev_weight, A.ev_time = src[1], src[2], src[3], src[4], src[5]
end

--- Advances the animator by `dt` seconds (finite, 0 or more): applies the parameters, starts
-- the transitions whose conditions hold (and those whose exit time comes within the step, at
-- that instant), advances every playing motion, and queues the events crossed, in time order
-- (at most `MAX_EVENTS`; the rest are counted in `anim.dropped_events`). Then calls the
-- handlers registered with `on`. Returns the animator.
-- @tparam number dt seconds (finite, >= 0; beyond 1e6 it counts as 1e6)
-- @treturn Animator the animator
-- @raise "bad argument #1 to 'update' (dt must be a finite number >= 0, got -1)"; and whatever a
-- handler raises
function Animator:update(dt)
  if not animators[self] then check_self(self, "update") end
  if type(dt) ~= "number" or not (dt >= 0 and dt < huge) then
    error(("bad argument #1 to 'update' (dt must be a finite number >= 0, got %s)"):format(Fault.show(dt)), 2)
  end
  if dt > MAX_DT then dt = MAX_DT end
  if self.busy then refuse_busy(self, "update") end
  self.busy = "update"
  self.ev_n, self.ev_i, self.dropped_events = 0, 0, 0
  smooth(self, dt)
  local layers = self.layers
  for i = 1, #layers do Layer.update(self, layers[i], dt) end
  if self.root then RootMotion.update(self.root, layers[1], Layer.fade(layers[1])) end
  sort_events(self)
  self.busy = false
  -- a handler that updates the animator again ends the calls of this update's events
  local round = self.updates + 1
  self.updates = round
  local handlers = self.handlers
  for i = 1, self.ev_n do
    local list = handlers[self.ev_name[i]]
    if list then
      for k = 1, #list do
        if self.updates ~= round then return self end
        list[k](self.ev_name[i], self.ev_layer[i], self.ev_state[i], self.ev_weight[i])
      end
    end
  end
  return self
end

--- Writes the blended pose of every layer into `pose` (a pose of the animator's skeleton), in
-- the C core: the base layer, then each override layer blended over it with its weight and
-- mask, each additive layer added. Returns the pose.
-- @tparam Pose pose a pose of the animator's skeleton
-- @treturn Pose pose
-- @raise "bad argument #1 to 'evaluate' (a sinew pose of the animator's skeleton expected)"
function Animator:evaluate(pose)
  if not animators[self] then check_self(self, "evaluate") end
  if getmetatable(pose) ~= self.Pose or pose:skeleton() ~= self.skeleton then
    error("bad argument #1 to 'evaluate' (a sinew pose of the animator's skeleton expected)", 2)
  end
  if self.busy then refuse_busy(self, "evaluate") end
  self.busy = "evaluate"
  local layers = self.layers
  local base = Layer.pose_of(layers[1])
  if layers[1].last then Layer.remember(layers[1], base) end
  pose:copy(base)
  for i = 2, #layers do
    local L = layers[i]
    local w = L.weight
    if w > 0 or L.last then
      local lp = Layer.pose_of(L)
      if L.last then Layer.remember(L, lp) end
      if w <= 0 then -- luacheck: ignore 542 (sampled for its history only)
      elseif L.def.mode == "additive" then
        pose:add(lp, w, L.def.mask)
      elseif L.masks then
        local three, tw = L.three, L.three_w
        three[1], three[2], three[3] = pose, pose, lp
        tw[1], tw[2], tw[3] = 1 - w, w, w
        core.blend(pose, three, tw, L.masks)
      else
        L.pair[1], L.pair[2], L.pair_w[1], L.pair_w[2] = pose, lp, 1 - w, w
        core.blend(pose, L.pair, L.pair_w)
      end
    end
  end
  if self.root then RootMotion.remove(self.root, pose, self.skeleton) end
  self.busy = false
  return pose
end

--- The motion of the `root_motion` joint over the last update, taken out of the pose: `dx, dy,
-- dz` (dy is 0: height stays in the pose) in the frame of the joint's heading at the start of
-- the update, and the turn about y as a quaternion `qx, qy, qz, qw`. A character moves by
-- `position += rotate(heading, dx, dy, dz); heading = heading * q`. Zeros without root motion.
-- @return dx, dy, dz (model units), qx, qy, qz, qw (a unit quaternion)
-- @raise never
function Animator:root_motion()
  if not animators[self] then check_self(self, "root_motion") end
  if self.busy then refuse_busy(self, "root_motion") end
  if not self.root then return 0, 0, 0, 0, 0, 0, 1 end
  return RootMotion.delta(self.root)
end

-- ---- what plays ----------------------------------------------------------------------------------------

--- The playing state of a layer (name or index; default the first): its name, its normalised
-- time (loops counted: 2.25 is a quarter into the third loop; the count wraps after 2^24 loops,
-- see manual/animator.md, Limits), and while a transition runs, the
-- destination's name and the transition's progress (0 .. 1). A source that fades as a still
-- (after an interruption, or into itself) gives the time of the still.
-- @tparam[opt] string|number which the layer's name or index (from 1); default the first
-- @return state name, normalised time (1 per loop of the state's motion), and during a transition
-- the destination's name and the progress (0 .. 1)
-- @raise "unknown layer 'x'" (or "unknown layer 5") for a name or index that is no layer
function Animator:state(which)
  if not animators[self] then check_self(self, "state") end
  if self.busy then refuse_busy(self, "state") end
  local L = layer_of(self, which, 2)
  if L.synced then L = L.src end
  if L.trans then
    return L.from.name, L.from_live and L.from.inst.norm or L.frozen_norm, L.to.name,
      L.duration > 0 and math.min(1, L.elapsed / L.duration) or 1
  end
  return L.cur.name, L.cur.inst.norm
end

local function add_active(A, clip, weight, time)
  local n = A.act_n + 1
  A.act_n = n
  A.act_clip[n], A.act_weight[n], A.act_time[n], A.act_layer[n] = clip, weight, time, A.act_current
end

local function next_active(A)
  local i = A.act_i + 1
  if i > A.act_n then return nil end
  A.act_i = i
  return A.act_clip[i], A.act_weight[i], A.act_time[i], A.act_layer[i]
end

--- Iterates over the clips that play now: `for clip, weight, time, layer in anim:active()`, the
-- weight being the product of the blend weights, the fade and the layer's weight (1 for the
-- first layer), `time` the clip's own time in seconds. No garbage; one loop at a time.
-- @return an iterator of clip, weight (0 .. 1), time (seconds), layer name
-- @raise never
function Animator:active()
  if not animators[self] then check_self(self, "active") end
  if self.busy then refuse_busy(self, "active") end
  self.act_n, self.act_i = 0, 0
  for i, L in ipairs(self.layers) do
    self.act_current = L.def.name
    Layer.each(L, i == 1 and 1 or L.weight, Motion.each_clip, add_active, self)
  end
  return next_active, self, nil
end

local function next_event(A)
  local i = A.ev_i + 1
  if i > A.ev_n then return nil end
  A.ev_i = i
  return A.ev_name[i], A.ev_layer[i], A.ev_state[i], A.ev_weight[i]
end

--- Iterates over the events of the last update in time order: `for name, layer, state, weight
-- in anim:events()`; `weight` is the state's share of its layer's fade when the event fired (1
-- outside fades, and for enter and exit events).
-- @return an iterator of name, layer name, state name, weight (0 .. 1)
-- @raise never
function Animator:events()
  if not animators[self] then check_self(self, "events") end
  if self.busy then refuse_busy(self, "events") end
  self.ev_i = 0
  return next_event, self, nil
end

--- Plays the layer (name or index; default the first) to `state` by the shortest path through
-- its transitions, conditions ignored (Godot's travel): each transition of the path in turn,
-- its exit time awaited, with its own fade; ordinary transitions wait until the layer arrives.
-- Where no path leads, switches at once. `"move/run"` travels to the sub-state machine `move`,
-- then inside it to `run`. Returns true when a path was found (or the layer is there).
-- @tparam string state a state of the layer, or a path "machine/state" into sub-state machines
-- @tparam[opt] string|number which the layer's name or index (from 1); default the first
-- @treturn boolean
-- @raise "unknown layer 'x'" (or "unknown layer 5") for a name or index that is no layer; "layer
-- 'x' follows layer 'y': travel that one" for a synced layer; "bad argument #1 to 'travel' (a
-- state name expected, got nil)"; "unknown state 'z' in layer 'base'"; "state 'move' is not a
-- sub-state machine". A failed call changes nothing.
function Animator:travel(state, which)
  if not animators[self] then check_self(self, "travel") end
  if self.busy then refuse_busy(self, "travel") end
  local L = layer_of(self, which, 2)
  if L.synced then error(("layer '%s' follows layer '%s': travel that one"):format(L.def.name, L.src.def.name), 2) end
  if type(state) ~= "string" then
    error(("bad argument #1 to 'travel' (a state name expected, got %s)"):format(type(state)), 2)
  end
  local names = {}
  for part in state:gmatch("[^/]+") do names[#names + 1] = part end
  -- every name checked first: a failed call changes nothing
  local at = L
  for i, name in ipairs(names) do
    local st = at.states[name]
    if not st then error(("unknown state '%s' in layer '%s'"):format(name, L.def.name), 2) end
    if i < #names then
      at = st.inst.layer
      if not at then error(("state '%s' is not a sub-state machine"):format(name), 2) end
    end
  end
  if #names == 0 then error("bad argument #1 to 'travel' (a state name expected, got '')", 2) end
  return Layer.travel(L, names, 1)
end

--- The run-time state as a plain table (numbers, strings, booleans, tables), for rollback or a
-- saved game; `restore` puts it back. The same definition, snapshot and steps give the same poses
-- bit for bit. It survives JSON: to the digits the encoder writes (dkjson and lua-cjson write 14).
-- @treturn table
-- @raise never
function Animator:snapshot()
  if not animators[self] then check_self(self, "snapshot") end
  if self.busy then refuse_busy(self, "snapshot") end
  self.busy = "snapshot"
  local snap = Snapshot.take(self)
  self.busy = false
  return snap
end

--- Puts back a snapshot of an animator of the same definition. The snapshot is read raw (no
-- metamethod of it is called), each value once, into a private copy that is checked whole, against
-- the animator and the ranges it keeps, before anything is written: a bad one raises `bad
-- snapshot: <path>: <why>` and changes nothing. Returns the animator.
-- @tparam table snap what `snapshot` gave (perhaps through JSON)
-- @treturn Animator the animator
-- @raise "bad snapshot: <path>: <why>" for a snapshot that is not a table, is of another
-- definition or holds a bad value
function Animator:restore(snap)
  if not animators[self] then check_self(self, "restore") end
  if self.busy then refuse_busy(self, "restore") end
  local plan = Snapshot.plan(self, snap) -- raises for a bad snapshot, changing nothing
  if self.busy then refuse_busy(self, "restore") end
  self.busy = "restore"
  Snapshot.put(self, plan)
  self.busy = false
  return self
end

--- A plain table of what runs now, for a debug view: parameters, and per layer its name,
-- weight, state, normalised time, the transition's destination and progress, and the clips that
-- play with their weights and times (clip names from the resources given to the constructor).
-- @treturn table
-- @raise never
function Animator:debug()
  if not animators[self] then check_self(self, "debug") end
  if self.busy then refuse_busy(self, "debug") end
  local out = { parameters = {}, layers = {} }
  for name, v in each, self.values do out.parameters[name] = v end
  for i, L in ipairs(self.layers) do
    local l = { name = L.def.name, weight = L.weight, clips = {} }
    l.state, l.time, l.target, l.progress = self:state(i)
    out.layers[i] = l
  end
  for clip, weight, time, layer in self:active() do
    local l = out.layers[self.def.layer_index[layer]]
    l.clips[#l.clips + 1] = { clip = self.clip_names[clip] or tostring(clip), weight = weight, time = time }
  end
  return out
end

--- Calls `fn(name, layer, state, weight)` for each event `name` at the end of every update, in
-- time order. Returns the animator.
-- @tparam string name the event
-- @tparam function fn called with the event's name, layer name, state name and weight (0 .. 1)
-- @treturn Animator the animator
-- @raise "bad argument #1 to 'on' (string expected, got nil)", "bad argument #2 to 'on' (function
-- expected, got nil)"
function Animator:on(name, fn)
  if not animators[self] then check_self(self, "on") end
  if type(name) ~= "string" then error(("bad argument #1 to 'on' (string expected, got %s)"):format(type(name)), 2) end
  if type(fn) ~= "function" then error(("bad argument #2 to 'on' (function expected, got %s)"):format(type(fn)), 2) end
  local list = self.handlers[name] or {}
  list[#list + 1] = fn
  self.handlers[name] = list
  return self
end

--- The animator's skeleton.
-- @treturn Skeleton
-- @raise never
function Animator:skeleton()
  if not animators[self] then check_self(self, "skeleton") end
  return self.skeleton
end

Animator.__tostring = function(A)
  if not animators[A] then check_self(A, "__tostring") end
  local names = {}
  for i, L in ipairs(A.layers) do names[i] = L.def.name end
  return ("sinew.Animator (%d joints, layers %s)"):format(#A.skeleton, table.concat(names, ", "))
end

--- The state machines of a definition as Graphviz DOT text (see `sinew.animator.dot`).
M.dot = Dot.dot

return setmetatable(M, { __call = function(_, def, resources) return new(def, resources) end })
