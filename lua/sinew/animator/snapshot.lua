--- Snapshots of an animator's run-time state as plain tables (numbers, strings, booleans and
-- tables only), for rollback and saved games: `anim:snapshot()` and `anim:restore(t)`. A
-- snapshot holds the parameters, and per layer its weight, the playing state or the transition
-- under way (with the still it fades from), each state's times and blend weights, and a travel
-- under way. `restore` reads the table once, raw, checks all of it against the animator, and only
-- then writes it: a refused restore changes nothing.
-- @module sinew.animator.snapshot
local Fault = require "sinew.fault"
local Motion = require "sinew.animator.motion"
local Layer = require "sinew.animator.layer"
local IK = require "sinew.animator.ik"
local Morphs = require "sinew.animator.morphs"
local Definition = require "sinew.animator.definition"

local M = {}

local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

local finite = Fault.finite
local CLIP, BLEND, MACHINE = Motion.CLIP, Motion.BLEND, Motion.MACHINE

-- ---- taking --------------------------------------------------------------------------------------------

local function pose_numbers(P, pose)
  local out, get, m = {}, P.kind.get, P.kind.numbers
  for j = 1, P.joints do
    local v = { get(pose, j) }
    for k = 1, m do out[#out + 1] = v[k] end
  end
  local MP = P.morph -- then the morph weights, when the skeleton has morph targets
  if MP then
    for k = 1, MP.count do out[#out + 1] = MP.get(pose, k) end
  end
  return out
end

local layer_of -- (a sub-state machine's state holds a layer)

-- slot s's table: `weight` its weight in its node (0 for a state's motion)
local function instance(P, I, s, weight)
  local out = { weight = weight }
  local uw, rates
  out.norm, out.root_before, uw, rates = Motion.take(P, I, s)
  if P.mkind[s] == MACHINE then out.layer = layer_of(P, I, I.machines[P.mlayer[s]]) end
  if uw then
    out.uw, out.rates, out.kids = uw, rates, {}
    local kids = P.mkids[s]
    for k = 1, #kids do out.kids[k] = instance(P, I, kids[k], uw[k]) end
  end
  return out
end

function layer_of(P, I, L)
  return Layer.take(I, L, function(st) return instance(P, I, st.slot, 0) end,
    function(pose) return pose_numbers(P, pose) end)
end

--- The run-time state of instance I (of plan P) as a plain table.
function M.take(P, I)
  local snap = { version = 1, values = {}, layers = {} }
  for i, name in ipairs(P.names) do snap.values[name] = I[i] end
  if P.smooth[1] then
    snap.targets, snap.velocities = {}, {}
    for _, i in ipairs(P.smooth) do
      local name = P.names[i]
      snap.targets[name], snap.velocities[name] = I.targets[i], I.vels[i]
    end
  end
  for i = 1, P.layers do snap.layers[i] = layer_of(P, I, I.layers[i]) end
  if I.ik then snap.ik = IK.take(P.ik, I.ik) end
  if I.held then snap.morphs = Morphs.take(P.morph, I.held) end
  return snap
end

-- ---- reading and checking -------------------------------------------------------------------------
-- A snapshot is read raw (rawget, the raw length, next: no metamethod of it is called, so no code
-- of its owner runs during a restore), each value once, into a private plan of plain tables, and
-- checked as it is read: against the animator (its parameters, states, transitions and sizes)
-- and against everything that writing the plan, or the updates after it, could refuse (ranges
-- the run time keeps, poses within the float range). Writing the plan cannot fail.

local fail, show = Fault.fail, Fault.show
local rawlen = rawget(_G, "rawlen") or function(t) return #t end -- (5.1 and LuaJIT: # is raw on tables)
local unpack = table.unpack or unpack

local FLT_MAX = 3.4028234663852886e38
local WRAP, MAX_TIME = Motion.WRAP, Motion.MAX_TIME
local MIN_CHILD_RATE, MAX_CHILD_RATE = Motion.MIN_CHILD_RATE, Motion.MAX_CHILD_RATE
local MAX_WEIGHT = 1e12 -- of a blend's points and children (a direct node's: up to 1e6 each, summed)

local NORM = "-2^24 .. 2^24"

-- the path of element i of the list at `path` (made only for a message)
local function at(path, i)
  if i then return ("%s[%d]"):format(path, i) end
  return path
end

local function tbl(v, path)
  if type(v) ~= "table" then fail(path, "must be a table (got %s)", type(v)) end
  return v
end

local function boolean(v, path)
  if type(v) ~= "boolean" then fail(path, "must be a boolean (got %s)", show(v)) end
  return v
end

-- a finite number, within lo .. hi when given (`range` says it for the message)
local function number(v, path, i, lo, hi, range)
  if not finite(v) then fail(at(path, i), "must be a finite number (got %s)", show(v)) end
  if (lo and v < lo) or (hi and v > hi) then fail(at(path, i), "%s is out of range (%s)", show(v), range) end
  return v
end

-- a list of n numbers, copied
local function numbers(t, n, path, lo, hi, range)
  tbl(t, path)
  local len = rawlen(t)
  if len ~= n then fail(path, "has %d numbers, expected %d", len, n) end
  local out = {}
  for i = 1, n do out[i] = number(rawget(t, i), path, i, lo, hi, range) end
  return out
end

-- the numbers of a pose (the kind's numbers per joint), each joint's such that the kind's `set`
-- takes them; copied
local function pose_of(P, t, path)
  local m = P.kind.numbers
  local n, morphs = m * P.joints, P.morph and P.morph.count or 0
  -- (a snapshot of a build whose poses held no morph weights has the joints' numbers alone: the
  -- weights go back to their defaults)
  if morphs > 0 and type(t) == "table" and rawlen(t) == n + morphs then n = n + morphs end
  local q = numbers(t, n, path, -FLT_MAX, FLT_MAX, "-3.4e38 .. 3.4e38, a float")
  for j = 0, P.joints - 1 do
    local why = P.kind.check(q, m * j, j + 1)
    if why then fail(path, "%s", why) end
  end
  return q
end

local function state_name(D, name, path)
  if type(name) ~= "string" or not D.states[name] then fail(path, "unknown state %s", show(name)) end
  return name
end

-- the transition numbered `index` of layer machine D leading to `to` (0: travel's instant switch)
local function transition_of(D, index, to, path)
  if index == 0 then return D.states[to].def.teleport end
  local t = type(index) == "number" and D.def.transitions[index]
  if not t then fail(path .. ".index", "unknown transition %s", show(index)) end
  if t.to ~= to then fail(path, "transition %d leads to '%s', not '%s'", index, t.to, to) end
  return t
end

local read_layer

local function read_instance(P, I, slot, s, path)
  tbl(s, path)
  local p = {}
  local kind = P.mkind[slot]
  if kind == MACHINE then
    local id = P.mlayer[slot]
    p.layer = read_layer(P, I, id, rawget(s, "layer"), path .. ".layer")
  end
  p.norm = number(rawget(s, "norm"), path .. ".norm", nil, -WRAP, WRAP, NORM)
  p.weight = number(rawget(s, "weight"), path .. ".weight", nil, 0, MAX_WEIGHT, "0 .. 1e12")
  local rb = rawget(s, "root_before")
  if rb ~= nil then
    if kind ~= CLIP then fail(path .. ".root_before", "only a clip has a root-motion time") end
    local d = P.mdur[slot]
    if d > 0 then -- a clip time of the normalised times the run time keeps
      number(rb, path .. ".root_before", nil, -2 * WRAP * d, 2 * WRAP * d, "-2^25 .. 2^25 times the clip's duration")
    else
      number(rb, path .. ".root_before")
    end
    p.root_before = rb
  end
  if kind == BLEND then
    local kids = P.mkids[slot]
    p.uw = numbers(rawget(s, "uw"), #kids, path .. ".uw", 0, MAX_WEIGHT, "0 .. 1e12")
    p.rates = numbers(rawget(s, "rates"), #kids, path .. ".rates", MIN_CHILD_RATE, MAX_CHILD_RATE, "1e-6 .. 1e6")
    local ks = tbl(rawget(s, "kids"), path .. ".kids")
    p.kids = {}
    for k = 1, #kids do p.kids[k] = read_instance(P, I, kids[k], rawget(ks, k), at(path .. ".kids", k)) end
  end
  return p
end

-- a travel waiting inside a sub-state machine: a path of state names from layer machine D down
local function read_pending(D, t, path)
  tbl(t, path)
  local names = {}
  for k = 1, rawlen(t) do
    local name = rawget(t, k)
    if type(name) ~= "string" then fail(at(path, k), "must be a state name") end
    if not D then fail(at(path, k), "state '%s' is not a sub-state machine", names[k - 1]) end
    local st = D.states[name]
    if not st then fail(at(path, k), "unknown state %s", show(name)) end
    names[k] = name
    D = st.machine
  end
  return names
end

function read_layer(P, I, id, l, path)
  local D, L = P.machines[id], I.machines[id]
  tbl(l, path)
  local p = { weight = number(rawget(l, "weight"), path .. ".weight", nil, 0, 1, "0 .. 1") }
  if D.synced then return p end -- the rest follows the other layer
  local stills, history = Layer.keeps(L)
  p.entering = boolean(rawget(l, "entering"), path .. ".entering")
  p.exited = boolean(rawget(l, "exited"), path .. ".exited")
  local states = tbl(rawget(l, "states"), path .. ".states")
  p.states = {}
  for _, name in ipairs(D.def.order) do -- (by name: the first fault is the same in every run)
    local st = D.states[name]
    local spath = path .. ".states." .. name
    local s = tbl(rawget(states, name), spath)
    p.states[name] = { fresh = boolean(rawget(s, "fresh"), spath .. ".fresh"),
      motion = read_instance(P, I, st.slot, rawget(s, "motion"), spath .. ".motion") }
  end
  local t = rawget(l, "transition")
  if t ~= nil then
    local tp = path .. ".transition"
    tbl(t, tp)
    p.from = state_name(D, rawget(t, "from"), tp .. ".from")
    p.to = state_name(D, rawget(t, "to"), tp .. ".to")
    p.trans = transition_of(D, rawget(t, "index"), p.to, tp)
    p.elapsed = number(rawget(t, "elapsed"), tp .. ".elapsed", nil, 0, MAX_TIME, "0 .. 1e12")
    p.duration = number(rawget(t, "duration"), tp .. ".duration", nil, 0, MAX_TIME, "0 .. 1e12")
    p.from_live = boolean(rawget(t, "from_live"), tp .. ".from_live")
    if not p.from_live then
      if not stills then
        fail(tp .. ".from_live", "layer '%s' never fades from a still (no transition of it interrupts, "
          .. "goes to its own state or inertialises)", D.name)
      end
      p.still = pose_of(P, rawget(t, "still"), tp .. ".still")
      p.still_time = number(rawget(t, "still_time"), tp .. ".still_time", nil, -WRAP, WRAP, NORM)
    end
    if history and p.trans.inertialize then
      p.velocity = pose_of(P, rawget(t, "velocity"), tp .. ".velocity")
      p.velocity_time = number(rawget(t, "velocity_time"), tp .. ".velocity_time", nil, 0, MAX_TIME, "0 .. 1e12")
      p.velocity_decay = number(rawget(t, "velocity_decay"), tp .. ".velocity_decay", nil, 0, nil, "0 or more")
    end
  else
    p.state = state_name(D, rawget(l, "state"), path .. ".state")
  end
  if history then
    local hp = path .. ".history"
    local h = tbl(rawget(l, "history"), hp)
    p.last = pose_of(P, rawget(h, "last"), hp .. ".last")
    p.before = pose_of(P, rawget(h, "before"), hp .. ".before")
    p.gap = number(rawget(h, "gap"), hp .. ".gap", nil, 0, MAX_TIME, "0 .. 1e12")
    p.since = number(rawget(h, "since"), hp .. ".since", nil, 0, MAX_TIME, "0 .. 1e12")
    p.since_start = number(rawget(h, "since_start"), hp .. ".since_start", nil, 0, MAX_TIME, "0 .. 1e12")
    local count = rawget(h, "count")
    if count ~= 0 and count ~= 1 and count ~= 2 then fail(hp .. ".count", "must be 0, 1 or 2 (got %s)", show(count)) end
    p.count = count
  end
  local route = rawget(l, "route")
  if route ~= nil then
    local rp = path .. ".route"
    tbl(route, rp)
    p.route, p.route_from = {}, {}
    for k = 1, rawlen(route) do
      local sp = at(rp, k)
      local st = tbl(rawget(route, k), sp)
      local to = state_name(D, rawget(st, "to"), sp .. ".to")
      p.route_from[k] = state_name(D, rawget(st, "from"), sp .. ".from")
      p.route[k] = transition_of(D, rawget(st, "index"), to, sp)
    end
  end
  local pending = rawget(l, "pending")
  if pending ~= nil then p.pending = read_pending(D, pending, path .. ".pending") end
  return p
end

-- a float or int parameter's value: finite, an integer for an int, within range for a
-- parameter that drives a speed or a direct node (`limited`: not the position of a smoothed float)
local function read_value(P, name, kind, v, path, limited)
  if kind == "float" or kind == "int" then
    number(v, path)
    if kind == "int" and v ~= math.floor(v) then fail(path, "must be an integer (got %s)", show(v)) end
    local msg = limited and Motion.out_of_range(P.limited, name, v)
    if msg then fail(path, "%s", msg) end
  elseif type(v) ~= "boolean" then
    fail(path, "must be a boolean (got %s)", show(v))
  end
  return v
end

-- the plan of snapshot `snap` for instance I of plan P
local function not_parameter(k, _, index) return index[k] == nil end

local function read(P, I, snap)
  tbl(snap, "snapshot")
  local version = rawget(snap, "version")
  if version ~= 1 then fail("version", "unknown snapshot version %s", show(version)) end
  local values = tbl(rawget(snap, "values"), "values")
  local plan = { values = {}, layers = {} }
  local smoothed = {}
  for _, i in ipairs(P.smooth) do smoothed[i] = true end
  for i, name in ipairs(P.names) do
    plan.values[i] = read_value(P, name, P.kinds[i], rawget(values, name), "values." .. name, not smoothed[i])
  end
  local bad = Fault.first(values, not_parameter, P.index) -- (the first in a fixed order, as definition faults)
  if bad ~= nil then fail("values", "unknown parameter %s", show(bad)) end
  if P.smooth[1] then
    local targets = tbl(rawget(snap, "targets"), "targets")
    local vels = tbl(rawget(snap, "velocities"), "velocities")
    plan.targets, plan.vels = {}, {}
    for _, i in ipairs(P.smooth) do
      local name = P.names[i]
      plan.targets[i] = read_value(P, name, "float", rawget(targets, name), "targets." .. name, true)
      plan.vels[i] = number(rawget(vels, name), "velocities." .. name)
    end
  end
  local layers = tbl(rawget(snap, "layers"), "layers")
  local n = rawlen(layers)
  if n ~= P.layers then fail("layers", "has %d layers, the animator %d", n, P.layers) end
  for i = 1, P.layers do plan.layers[i] = read_layer(P, I, i, rawget(layers, i), at("layers", i)) end
  if P.ik then
    plan.ik = IK.read(P.ik, rawget(snap, "ik"), "ik", { tbl = tbl, numbers = numbers }, Definition.limits.value)
  elseif rawget(snap, "ik") ~= nil then
    fail("ik", "the animator has no IK targets")
  end
  plan.morphs = Morphs.read(P.morph, rawget(snap, "morphs"), "morphs", { tbl = tbl, number = number })
  return plan
end

-- ---- writing ---------------------------------------------------------------------------------------------

local put_layer

local function put_instance(P, I, slot, p)
  Motion.put(P, I, slot, p.norm, p.root_before, p.uw, p.rates)
  if p.layer then put_layer(P, I, P.mlayer[slot], p.layer) end
  if p.kids then
    local kids = P.mkids[slot]
    for k = 1, #kids do put_instance(P, I, kids[k], p.kids[k]) end
  end
end

-- writes the numbers q into pose (P the plan: its kind's `set`)
local function put_pose(P, pose, q)
  local m, set = P.kind.numbers, P.kind.set
  for j = 0, P.joints - 1 do
    local b = m * j
    set(pose, j + 1, unpack(q, b + 1, b + m))
  end
  local MP = P.morph
  if MP then
    local b, with = m * P.joints, #q > m * P.joints
    for k = 1, MP.count do MP.set(pose, k, with and q[b + k] or MP.defaults[k]) end
  end
end

function put_layer(P, I, id, p)
  local D, L = P.machines[id], I.machines[id]
  Layer.put(I, L, p, put_pose, P)
  if D.synced then return end
  for name, st in each, D.states do put_instance(P, I, st.slot, p.states[name].motion) end
end

--- Reads and checks all of snapshot `snap` for instance I of plan P, changing nothing: the plan
-- that `put` writes. Raises "bad snapshot: <path>: <why>" for a bad one (at the caller's caller).
function M.plan(P, I, snap)
  return (Fault.run(3, "bad snapshot: ", read, P, I, snap))
end

--- Writes `plan` into instance I (allocating nothing that a finaliser could run during).
function M.put(P, I, plan)
  local values, targets, vels = I, I.targets, I.vels
  for i = 1, #P.names do values[i] = plan.values[i] end
  for _, i in ipairs(P.smooth) do targets[i], vels[i] = plan.targets[i], plan.vels[i] end
  for i = 1, P.layers do put_layer(P, I, i, plan.layers[i]) end
  if plan.ik then IK.put(P.ik, I.ik, plan.ik) end
  if I.held then Morphs.put(I.held, plan.morphs) end
  for i = 1, P.layers do
    local L = I.layers[i]
    if Layer.synced(L) then Layer.mirror(P, I, L) end
  end
end

return M
