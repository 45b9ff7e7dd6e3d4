--- The animator: parameters in, a blended pose out. A definition (plain data: states, blend
-- trees, transitions, layers, events) is compiled once into a plan by
-- `sinew.animator.compile(def [, resources])`; `plan:new()` makes an animator of it, small
-- (what it plays now, its times, parameters and events), as many as a crowd needs.
-- `sinew.animator(def [, resources])` does both for one. Each frame `anim:set(...)`,
-- `anim:update(dt)` and `anim:evaluate(pose)` play it through the C core, with no garbage. See
-- manual/animator.md.
-- @module sinew.animator
local Definition = require "sinew.animator.definition"
local Plan = require "sinew.animator.plan"
local Fault = require "sinew.fault"
local Layer = require "sinew.animator.layer"
local Motion = require "sinew.animator.motion"
local Snapshot = require "sinew.animator.snapshot"
local Dot = require "sinew.animator.dot"
local RootMotion = require "sinew.animator.root_motion"
local Events = require "sinew.animator.events"
local Spring = require "sinew.animator.spring"
local IK = require "sinew.animator.ik"
local Morphs = require "sinew.animator.morphs"

local M = {}

local Animator = {}
Animator.__index = Animator

local AnimatorPlan = {}
AnimatorPlan.__index = AnimatorPlan

-- every animator and plan made here (weak keys): a method called on anything else raises a clear
-- error (a table with the same metatable, or one claiming it through __metatable, is not one)
local animators = setmetatable({}, { __mode = "k" })
local plans = setmetatable({}, { __mode = "k" })

-- What the animator is doing now (A.busy: "update", "evaluate", "restore", "snapshot"), and what
-- an animator of its plan is doing with the plan's scratch (P.busy): the collector may run a
-- finaliser at any allocation, and a finaliser that calls a method reading or changing what is
-- under way gets this error instead of a half-changed animator. Event handlers run after an
-- update's work, and may call anything.
local function refuse_busy(A, name)
  error(("'%s' called during the animator's own '%s' (from a finaliser): not allowed"):format(name, A.busy), 3)
end

local function refuse_plan(P, name)
  error(("'%s' called during the '%s' of another animator of the same plan (from a finaliser): not allowed")
    :format(name, P.busy), 3)
end

local function check_self(self, name, what)
  if not (what or animators)[self] then
    local t = type(self)
    error(("bad argument #1 to '%s' (%s expected, got %s)"):format(name, what and "sinew.AnimatorPlan"
      or "sinew.Animator", t == "table" and "table" or t), 3)
  end
end

local huge = math.huge
local spring = Spring.step
local MAX_DT = Motion.MAX_DT

--- A parameter that multiplies a state's speed or is an input of a direct blend node takes
-- values from -MAX_INPUT to MAX_INPUT (in the definition, `set` and `restore`).
M.MAX_INPUT = Motion.MAX_INPUT
local out_of_range = Motion.out_of_range
--- The most events one update queues (see `anim.dropped_events`).
M.MAX_EVENTS = Events.MAX_EVENTS

-- ---- plans -----------------------------------------------------------------------------------------

-- the plan of a definition; a fault raises at `level` (counted from here)
local function compile(def, resources, level)
  local compiled = Fault.run(level, "", Definition.compile, def, resources)
  local P = Plan.build(compiled)
  for i, name in ipairs(P.names) do
    local kind = P.kinds[i]
    local msg = (kind == "float" or kind == "int") and out_of_range(P.limited, name, P.defaults[i])
    if msg then error(("parameters.%s: %s"):format(name, msg), level) end
  end
  P.Pose = P.kind.Pose
  P.ik = IK.plan(compiled, P)
  P.morph = Morphs.plan(P.kind, P.skel)
  setmetatable(P, AnimatorPlan)
  plans[P] = true
  return P
end

--- Compiles a definition into a plan (see manual/animator.md, Plans and crowds): checked and
-- laid out once, with its blend spaces, masks and the scratch poses an evaluation uses; its
-- animators (`plan:new()`) share all of it and hold only what changes.
-- @function compile
-- @tparam table def `{skeleton = ..., parameters = {...}, layers = {...}, machines = {...}, root_motion = ...}`
-- @tparam[opt] table resources `{clips = {...}, masks = {...}, poses = {...}}`: the tables that
-- names in the definition refer to
-- @treturn AnimatorPlan
-- @raise as `sinew.animator`
function M.compile(def, resources)
  return (compile(def, resources, 3))
end

local new_instance -- (below)

--- Makes an animator of the plan: at every layer's entry state, parameters at their defaults.
-- @treturn Animator
-- @raise "bad argument #1 to 'new' (sinew.AnimatorPlan expected, got table)"
function AnimatorPlan:new()
  if not plans[self] then check_self(self, "new", plans) end
  return new_instance(self)
end

--- The plan's skeleton.
-- @treturn Skeleton
-- @raise "bad argument #1 to 'skeleton' (sinew.AnimatorPlan expected, got table)"
function AnimatorPlan:skeleton()
  if not plans[self] then check_self(self, "skeleton", plans) end
  return self.skel
end

AnimatorPlan.__tostring = function(P)
  if not plans[P] then check_self(P, "__tostring", plans) end
  local names = {}
  for i = 1, P.layers do names[i] = P.machines[i].name end
  return ("sinew.AnimatorPlan (%d joints, layers %s)"):format(P.joints, table.concat(names, ", "))
end

-- ---- animators -----------------------------------------------------------------------------------

-- A new animator of plan P. Its own list holds the parameters' values (A[i] of the parameter
-- numbered i); `rec` what its motions' slots keep (sinew.animator.motion); `machines` its layer
-- machines' tables by number, the top layers' also in `layers`; then its events.
function new_instance(P)
  local A = { plan = P, rec = {}, layers = {}, machines = {}, busy = false, updates = 0,
    handlers = {}, handled = false, act_n = 0, act_i = 0 }
  Events.new(A)
  for i = 1, #P.names do A[i] = P.defaults[i] end
  if P.smooth[1] then
    A.targets, A.vels = {}, {}
    for _, i in ipairs(P.smooth) do A.targets[i], A.vels[i] = P.defaults[i], 0 end
  end
  Motion.init(P, A)
  for id, D in ipairs(P.machines) do A.machines[id] = Layer.new(P, D) end
  for i = 1, P.layers do A.layers[i] = A.machines[i] end
  A.rm = RootMotion.new(P, A)
  A.ik = P.ik and IK.new(P.ik)
  A.held = P.morph and Morphs.new() -- (the morph weights set by hand)
  setmetatable(A, Animator)
  animators[A] = true
  return A
end

--- Makes an animator from a definition (see manual/animator.md): `sinew.animator(def [,
-- resources])`, the same as `sinew.animator.compile(def, resources):new()`. `resources` holds the
-- tables that names in the definition refer to: `clips` (name -> clip), `masks` (name -> mask),
-- `poses` (name -> pose).
-- @function sinew.animator
-- @tparam table def `{skeleton = ..., parameters = {...}, layers = {...}, machines = {...}, root_motion = ...}`
-- @tparam[opt] table resources `{clips = {...}, masks = {...}, poses = {...}}`
-- @treturn Animator
-- @raise with the path of the fault in the definition, "<path>: <why>": "definition: must be a
-- table (got nil)", "skeleton: must be a sinew skeleton (got nil)", "layers: an animator needs a
-- layer", "layers[1].transitions[3].to: unknown state 'nowhere'", "resources.clips: must be a table
-- (got string)", ... (more in manual/animator.md, Errors)
local function new(def, resources)
  local anim = new_instance(compile(def, resources, 4))
  return anim
end

-- ---- parameters ------------------------------------------------------------------------------------

-- the index of parameter `name` of plan P
local function index_of(P, name, level)
  local i = P.index[name]
  if i == nil then error(("unknown parameter %s"):format(Fault.show(name)), level + 1) end
  return i
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
  local P = self.plan
  local i = index_of(P, name, 2)
  local kind = P.kinds[i]
  if kind == "float" or kind == "int" then
    if not Fault.finite(value) then
      error(("parameter '%s' is a number: got %s"):format(name, Fault.show(value)), 2)
    end
    if kind == "int" and value ~= math.floor(value) then
      error(("parameter '%s' is an int: got %s"):format(name, Fault.show(value)), 2)
    end
    local msg = out_of_range(P.limited, name, value)
    if msg then error(msg, 2) end
  elseif type(value) ~= "boolean" then
    error(("parameter '%s' is a %s: got %s"):format(name, kind, Fault.show(value)), 2)
  end
  if P.smoothed[i] then self.targets[i] = value else self[i] = value end
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
  local i = index_of(self.plan, name, 2)
  local targets = self.targets
  return self[i], targets and targets[i]
end

-- smoothed floats follow their targets as critically damped springs (sinew.animator.spring)
local function smooth(P, A, dt)
  local list, times = P.smooth, P.smooth_time
  local values, targets, vels = A, A.targets, A.vels
  for k = 1, #list do
    local i = list[k]
    values[i], vels[i] = spring(values[i], vels[i], targets[i], times[k], dt)
  end
end

--- Sets a trigger: it stays set until a transition that uses it fires (which consumes it) or
-- `reset_trigger`. Returns the animator.
-- @tparam string name a trigger parameter
-- @treturn Animator the animator
-- @raise "unknown parameter 'x'"; "parameter 'x' is not a trigger"
function Animator:trigger(name)
  if not animators[self] then check_self(self, "trigger") end
  local P = self.plan
  local i = index_of(P, name, 2)
  if P.kinds[i] ~= "trigger" then error(("parameter '%s' is not a trigger"):format(name), 2) end
  self[i] = true
  return self
end

--- Clears a trigger. Returns the animator.
-- @tparam string name a trigger parameter
-- @treturn Animator the animator
-- @raise "unknown parameter 'x'"; "parameter 'x' is not a trigger"
function Animator:reset_trigger(name)
  if not animators[self] then check_self(self, "reset_trigger") end
  local P = self.plan
  local i = index_of(P, name, 2)
  if P.kinds[i] ~= "trigger" then error(("parameter '%s' is not a trigger"):format(name), 2) end
  self[i] = false
  return self
end

--- Sets a target (a vector parameter of the definition's `targets`, in model space) that IK
-- entries aim or reach for; a smoothed one moves there over the updates. Returns the animator.
-- @tparam string name a target of the definition
-- @tparam number x
-- @tparam number y
-- @tparam number z finite, within -1e9 .. 1e9
-- @treturn Animator the animator
-- @raise "unknown target 'x'" (with a near name: "(did you mean 'gaze'?)"); "bad argument #2 to
-- 'set_target' (x must be a finite number within 1e+09, got nan)"
function Animator:set_target(name, x, y, z)
  if not animators[self] then check_self(self, "set_target") end
  IK.set(self.plan.ik, self.ik, name, x, y, z, Definition.limits.value, 2)
  return self
end

--- A target's value as the animator uses it (x, y, z), and for a smoothed target where it moves
-- to (x, y, z).
-- @tparam string name a target of the definition
-- @return x, y, z, and for a smoothed target the three it moves to
-- @raise "unknown target 'x'"
function Animator:target(name)
  if not animators[self] then check_self(self, "target") end
  return IK.get(self.plan.ik, self.ik, name, 2)
end

-- ---- morph targets --------------------------------------------------------------------------------

--- Holds morph target `name`'s weight at `w` in every pose `evaluate` writes from now on, over
-- what the layers blend (a blink, lip sync); `nil` gives it back to the layers. Kept in
-- snapshots. Returns the animator.
-- @param name a morph target of the skeleton (`skeleton:morphs()`), or its 1-based index
-- @tparam ?number w the weight (finite, within the float range), or nil
-- @treturn Animator the animator
-- @raise "unknown morph 'x'" (with a near name: "(did you mean 'Face.blink'?)"), "morph 9 is out
-- of range (1 .. 2)", "the animator's skeleton has no morph targets", "bad argument #2 to
-- 'set_morph' (a finite number within the float range or nil expected, got nan)"
function Animator:set_morph(name, w)
  if not animators[self] then check_self(self, "set_morph") end
  Morphs.set(self.plan.morph, self.held, name, w, 2)
  return self
end

--- The weight `set_morph` holds morph target `name` at, or nil when the layers decide it.
-- @param name a morph target of the skeleton, or its 1-based index
-- @treturn ?number
-- @raise as `set_morph`
function Animator:morph(name)
  if not animators[self] then check_self(self, "morph") end
  return Morphs.get(self.plan.morph, self.held, name, 2)
end

-- ---- layers ----------------------------------------------------------------------------------------

-- the index of a layer (1 .. the number of layers) by name or index; nil: the first
local function layer_index(A, which, level)
  local P = A.plan
  local i
  if type(which) == "number" then
    if which >= 1 and which <= P.layers and which % 1 == 0 then i = which end
  elseif type(which) == "string" then
    i = P.layer_index[which]
  elseif which == nil then
    i = 1
  end
  if not i then error(("unknown layer %s"):format(Fault.show(which)), level + 1) end
  return i
end

--- Sets the weight of a layer; the first layer's is always 1. Returns the animator.
-- @tparam string|number which the layer's name or index (from 1)
-- @tparam number w weight, 0 .. 1 (a fraction: 0 off, 1 fully over the layers below)
-- @treturn Animator the animator
-- @raise "unknown layer 'x'" (or "unknown layer 5") for a name or index that is no layer; "layer
-- weight must be a number from 0 to 1 (got 2)"; "the first layer's weight is always 1"
function Animator:set_layer_weight(which, w)
  if not animators[self] then check_self(self, "set_layer_weight") end
  local i = layer_index(self, which, 2)
  if not Fault.finite(w) or w < 0 or w > 1 then
    error(("layer weight must be a number from 0 to 1 (got %s)"):format(Fault.show(w)), 2)
  end
  if i == 1 then error("the first layer's weight is always 1", 2) end
  Layer.set_weight(self.layers[i], w)
  return self
end

--- The weight of a layer.
-- @tparam[opt] string|number which the layer's name or index (from 1); default the first
-- @treturn number weight, 0 .. 1
-- @raise "unknown layer 'x'" (or "unknown layer 5") for a name or index that is no layer
function Animator:layer_weight(which)
  if not animators[self] then check_self(self, "layer_weight") end
  return Layer.weight(self.layers[layer_index(self, which, 2)])
end

-- ---- time --------------------------------------------------------------------------------------------

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
  local P = self.plan
  if P.busy then refuse_plan(P, "update") end
  self.busy, P.busy = "update", "update"
  Events.clear(self)
  if P.smooth[1] then smooth(P, self, dt) end
  if self.ik then IK.update(P.ik, self.ik, dt) end
  local layers = self.layers
  for i = 1, P.layers do Layer.update(P, self, layers[i], dt) end
  local R = self.rm
  if R then
    RootMotion.begin(R)
    Layer.each_leaf(P, self, layers[1], RootMotion.leaf, self)
  end
  Events.sort(P, self)
  self.busy, P.busy = false, false
  -- a handler that updates the animator again ends the calls of this update's events
  local round = self.updates + 1
  self.updates = round
  if self.handled then Events.dispatch(self, self.handlers, round) end
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
  local P = self.plan
  if pose ~= self.checked then -- (a pose's skeleton never changes: the last pose checked is kept)
    if getmetatable(pose) ~= P.Pose or pose:skeleton() ~= P.skel then
      error("bad argument #1 to 'evaluate' (a sinew pose of the animator's skeleton expected)", 2)
    end
    self.checked = pose
  end
  if self.busy then refuse_busy(self, "evaluate") end
  if P.busy then refuse_plan(P, "evaluate") end
  self.busy, P.busy = "evaluate", "evaluate"
  local layers = self.layers
  Layer.base(P, self, layers[1], pose)
  for i = 2, P.layers do Layer.apply(P, self, layers[i], pose) end
  if self.held then Morphs.apply(P.morph, self.held, pose) end
  if self.rm then RootMotion.remove(P, pose) end
  if self.ik then
    -- (a foot-placement solver's ground callback may raise: the animator must not stay busy)
    local ok, err = pcall(IK.run, P.ik, self.ik, self, layers, pose)
    if not ok then
      self.busy, P.busy = false, false
      error((tostring(err):gsub("^[^\n]-sinew/animator/ik%.lua:%d+: ", "")), 2)
    end
  end
  self.busy, P.busy = false, false
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
  if not self.rm then return 0, 0, 0, 0, 0, 0, 1 end
  return RootMotion.delta(self.rm)
end

-- ---- what plays ----------------------------------------------------------------------------------------

--- The playing state of a layer: its name and normalised time, and while a transition runs, the
-- destination's name and the transition's progress. The layer is a name or an index (default
-- the first). The time counts loops: 2.25 is a quarter into the third loop (the count wraps after
-- 2^24 loops, see manual/animator.md, Limits); the progress goes from 0 to 1. A source that fades
-- as a still (after an interruption, or into itself) gives the time of the still.
-- @tparam[opt] string|number which the layer's name or index (from 1); default the first
-- @return state name, normalised time (1 per loop of the state's motion), and during a transition
-- the destination's name and the progress (0 .. 1)
-- @raise "unknown layer 'x'" (or "unknown layer 5") for a name or index that is no layer
function Animator:state(which)
  if not animators[self] then check_self(self, "state") end
  if self.busy then refuse_busy(self, "state") end
  return Layer.state(self, self.layers[layer_index(self, which, 2)])
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
-- first layer), `time` the clip's own time in seconds. A clip that plays in several places at
-- once (both sides of a fade) comes once for each place, with that place's weight and time
-- (`debug()` lists it once, weights summed). No garbage (after the first call, which
-- makes the lists it reuses); one loop at a time.
-- @return an iterator of clip, weight (0 .. 1), time (seconds), layer name
-- @raise never
function Animator:active()
  if not animators[self] then check_self(self, "active") end
  if self.busy then refuse_busy(self, "active") end
  if not self.act_clip then self.act_clip, self.act_weight, self.act_time, self.act_layer = {}, {}, {}, {} end
  self.act_n, self.act_i = 0, 0
  local P = self.plan
  for i = 1, P.layers do
    local L = self.layers[i]
    self.act_current = Layer.name(L)
    Layer.each(P, self, L, i == 1 and 1 or Layer.weight(L), Motion.each_clip, add_active, self)
  end
  return next_active, self, nil
end

--- Iterates over the events of the last update in time order: `for name, layer, state, weight
-- in anim:events()`; `weight` is the state's share of its layer's fade when the event fired (1
-- outside fades, and for enter and exit events).
-- @return an iterator of name, layer name, state name, weight (0 .. 1)
-- @raise never
function Animator:events()
  if not animators[self] then check_self(self, "events") end
  if self.busy then refuse_busy(self, "events") end
  return Events.each(self)
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
  local P = self.plan
  local i = layer_index(self, which, 2)
  local L = self.layers[i]
  if Layer.synced(L) then
    error(("layer '%s' follows layer '%s': travel that one"):format(Layer.name(L), P.machines[i].src.name), 2)
  end
  if type(state) ~= "string" then
    error(("bad argument #1 to 'travel' (a state name expected, got %s)"):format(type(state)), 2)
  end
  local names = {}
  for part in state:gmatch("[^/]+") do names[#names + 1] = part end
  -- every name checked first: a failed call changes nothing
  local msg = Layer.check_travel(self, L, names)
  if msg then error(msg, 2) end
  if #names == 0 then error("bad argument #1 to 'travel' (a state name expected, got '')", 2) end
  return Layer.travel(P, self, L, names, 1)
end

--- The run-time state as a plain table (numbers, strings, booleans, tables), for rollback or a
-- saved game; `restore` puts it back into this animator or another of the same plan (or of a plan
-- of the same definition). The same definition, snapshot and steps give the same poses bit for
-- bit. It survives JSON: to the digits the encoder writes (dkjson and lua-cjson write 14).
-- @treturn table
-- @raise never
function Animator:snapshot()
  if not animators[self] then check_self(self, "snapshot") end
  if self.busy then refuse_busy(self, "snapshot") end
  self.busy = "snapshot"
  local snap = Snapshot.take(self.plan, self)
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
  local P = self.plan
  local plan = Snapshot.plan(P, self, snap) -- raises for a bad snapshot, changing nothing
  if self.busy then refuse_busy(self, "restore") end
  if P.busy then refuse_plan(P, "restore") end
  self.busy, P.busy = "restore", "restore"
  Snapshot.put(P, self, plan)
  self.busy, P.busy = false, false
  return self
end

--- A plain table of what runs now, for a debug view: parameters, and per layer its name,
-- weight, state, normalised time, the transition's destination and progress, and the clips that
-- play with their weights and times (clip names from the resources given to the constructor; a
-- clip given under several names is shown by the first in sorted order). A clip that plays in
-- several places of a layer at once (Run in a jump fading into a run) is listed once, with
-- the sum of its weights and the time of its heaviest place; `active()` gives each place.
-- @treturn table
-- @raise never
function Animator:debug()
  if not animators[self] then check_self(self, "debug") end
  if self.busy then refuse_busy(self, "debug") end
  local P = self.plan
  local out = { parameters = {}, layers = {} }
  for i, name in ipairs(P.names) do out.parameters[name] = self[i] end
  for i = 1, P.layers do
    local L = self.layers[i]
    local l = { name = Layer.name(L), weight = Layer.weight(L), clips = {} }
    l.state, l.time, l.target, l.progress = Layer.state(self, L)
    out.layers[i] = l
  end
  -- a clip that plays in two places of a layer (both sides of a fade, two states or nodes) is
  -- listed once: its weights summed, the time of its heaviest place
  local seen = {}
  for clip, weight, time, layer in self:active() do
    local li = P.layer_index[layer]
    local l = out.layers[li]
    seen[li] = seen[li] or {}
    local e = seen[li][clip]
    if e then
      if weight > e.heaviest then e.time, e.heaviest = time, weight end
      e.weight = e.weight + weight
    else
      e = { clip = P.clip_names[clip] or tostring(clip), weight = weight, time = time, heaviest = weight }
      seen[li][clip] = e
      l.clips[#l.clips + 1] = e
    end
  end
  for i = 1, P.layers do
    for _, e in ipairs(out.layers[i].clips) do e.heaviest = nil end
  end
  if self.ik then out.targets, out.ik = IK.debug(P.ik, self.ik, self.layers) end
  if self.held then out.morphs = Morphs.take(P.morph, self.held) end -- (the weights held, name -> weight)
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
  self.handled = true -- (an update without handlers calls none)
  return self
end

--- The animator's skeleton.
-- @treturn Skeleton
-- @raise never
function Animator:skeleton()
  if not animators[self] then check_self(self, "skeleton") end
  return self.plan.skel
end

Animator.__tostring = function(A)
  if not animators[A] then check_self(A, "__tostring") end
  local P = A.plan
  local names = {}
  for i = 1, P.layers do names[i] = P.machines[i].name end
  return ("sinew.Animator (%d joints, layers %s)"):format(P.joints, table.concat(names, ", "))
end

--- The state machines of a definition as Graphviz DOT text (see `sinew.animator.dot`).
M.dot = Dot.dot

return setmetatable(M, { __call = function(_, def, resources)
  local anim = new(def, resources)
  return anim
end })
