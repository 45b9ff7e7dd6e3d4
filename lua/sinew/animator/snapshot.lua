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

local M = {}

local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

local finite = Fault.finite

-- ---- taking --------------------------------------------------------------------------------------------

local function list_of(t)
  local out = {}
  for i = 1, #t do out[i] = t[i] end
  return out
end

local layer_of -- (a sub-state machine's state holds a layer)

local function instance(inst)
  local out = { norm = inst.norm, weight = inst.weight, root_before = inst.rm_before }
  if inst.layer then out.layer = layer_of(inst.layer) end
  if inst.kids then
    out.weights, out.uw, out.rates, out.kids = list_of(inst.weights), list_of(inst.uw), list_of(inst.rates), {}
    for k = 1, #inst.kids do out.kids[k] = instance(inst.kids[k]) end
  end
  return out
end

local function pose_numbers(pose)
  local out = {}
  for j = 1, #pose do
    local v = { pose:get(j) }
    for k = 1, 10 do out[#out + 1] = v[k] end
  end
  return out
end

function layer_of(L)
  if L.synced then return { weight = L.weight } end -- the rest follows the other layer
  local l = { weight = L.weight, entering = L.entering, exited = L.exited == true, states = {} }
  for name, st in each, L.states do
    l.states[name] = { fresh = st.fresh == true, motion = instance(st.inst) }
  end
  if L.trans then
    l.transition = { index = L.trans.index, from = L.from.name, to = L.to.name, from_live = L.from_live,
      elapsed = L.elapsed, duration = L.duration }
    if not L.from_live then
      l.transition.still = pose_numbers(L.frozen)
      l.transition.still_time = L.frozen_norm
    end
    if L.dead then
      l.transition.velocity, l.transition.velocity_time = pose_numbers(L.vel), L.vel_h
      l.transition.velocity_decay = L.vel_decay
    end
  else
    l.state = L.cur.name
  end
  if L.last then
    l.history = { last = pose_numbers(L.last), before = pose_numbers(L.last2), gap = L.last_h, since = L.since,
      since_start = L.since_start, count = L.have_last }
  end
  if L.route then
    l.route = {}
    for k = L.route_i, #L.route do
      l.route[#l.route + 1] = { index = L.route[k].index, to = L.route[k].to, from = L.route_from[k] }
    end
  end
  if L.pending then
    l.pending = {}
    for k = L.pending_i, #L.pending do l.pending[#l.pending + 1] = L.pending[k] end
  end
  return l
end

--- The run-time state of animator A as a plain table.
function M.take(A)
  local snap = { version = 1, values = {}, layers = {} }
  for name, v in each, A.values do snap.values[name] = v end
  if A.smooth[1] then
    snap.targets, snap.velocities = {}, {}
    for _, s in ipairs(A.smooth) do snap.targets[s.name], snap.velocities[s.name] = A.targets[s.name], A.vels[s.name] end
  end
  for i, L in ipairs(A.layers) do snap.layers[i] = layer_of(L) end
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

-- 10 numbers per joint within the float range (what pose:set takes), with a rotation that is
-- not zero; copied
local function pose_of(t, joints, path)
  local q = numbers(t, 10 * joints, path, -FLT_MAX, FLT_MAX, "-3.4e38 .. 3.4e38, a float")
  for j = 0, joints - 1 do
    local b = 10 * j
    if q[b + 4] ^ 2 + q[b + 5] ^ 2 + q[b + 6] ^ 2 + q[b + 7] ^ 2 < 1e-24 then
      fail(path, "rotation of joint %d is zero", j + 1)
    end
  end
  return q
end

local function state_name(L, name, path)
  if type(name) ~= "string" or not L.states[name] then fail(path, "unknown state %s", show(name)) end
  return name
end

-- the transition numbered `index` of layer L leading to `to` (0: travel's instant switch)
local function transition_of(L, index, to, path)
  if index == 0 then return L.states[to].def.teleport end
  local t = type(index) == "number" and L.def.transitions[index]
  if not t then fail(path .. ".index", "unknown transition %s", show(index)) end
  if t.to ~= to then fail(path, "transition %d leads to '%s', not '%s'", index, t.to, to) end
  return t
end

local read_layer

local function read_instance(A, inst, s, path)
  tbl(s, path)
  local p = {}
  if inst.layer then p.layer = read_layer(A, inst.layer, rawget(s, "layer"), path .. ".layer") end
  p.norm = number(rawget(s, "norm"), path .. ".norm", nil, -WRAP, WRAP, NORM)
  p.weight = number(rawget(s, "weight"), path .. ".weight", nil, 0, MAX_WEIGHT, "0 .. 1e12")
  local rb = rawget(s, "root_before")
  if rb ~= nil then
    if inst.def.kind ~= "clip" then fail(path .. ".root_before", "only a clip has a root-motion time") end
    local d = inst.def.duration
    if d > 0 then -- a clip time of the normalised times the run time keeps
      number(rb, path .. ".root_before", nil, -2 * WRAP * d, 2 * WRAP * d, "-2^25 .. 2^25 times the clip's duration")
    else
      number(rb, path .. ".root_before")
    end
    p.root_before = rb
  end
  if inst.kids then
    p.weights = numbers(rawget(s, "weights"), #inst.weights, path .. ".weights", 0, MAX_WEIGHT, "0 .. 1e12")
    p.uw = numbers(rawget(s, "uw"), #inst.uw, path .. ".uw", 0, MAX_WEIGHT, "0 .. 1e12")
    p.rates = numbers(rawget(s, "rates"), #inst.rates, path .. ".rates", MIN_CHILD_RATE, MAX_CHILD_RATE, "1e-6 .. 1e6")
    local kids = tbl(rawget(s, "kids"), path .. ".kids")
    p.kids = {}
    for k = 1, #inst.kids do p.kids[k] = read_instance(A, inst.kids[k], rawget(kids, k), at(path .. ".kids", k)) end
  end
  return p
end

-- a travel waiting inside a sub-state machine: a path of state names from layer L down
local function read_pending(L, t, path)
  tbl(t, path)
  local names, layer = {}, L
  for k = 1, rawlen(t) do
    local name = rawget(t, k)
    if type(name) ~= "string" then fail(at(path, k), "must be a state name") end
    if not layer then fail(at(path, k), "state '%s' is not a sub-state machine", names[k - 1]) end
    local st = layer.states[name]
    if not st then fail(at(path, k), "unknown state %s", show(name)) end
    names[k] = name
    layer = st.inst.layer
  end
  return names
end

function read_layer(A, L, l, path)
  tbl(l, path)
  local p = { weight = number(rawget(l, "weight"), path .. ".weight", nil, 0, 1, "0 .. 1") }
  if L.synced then return p end -- the rest follows the other layer
  local joints = #A.skeleton
  p.entering = boolean(rawget(l, "entering"), path .. ".entering")
  p.exited = boolean(rawget(l, "exited"), path .. ".exited")
  local states = tbl(rawget(l, "states"), path .. ".states")
  p.states = {}
  for name, st in each, L.states do
    local spath = path .. ".states." .. name
    local s = tbl(rawget(states, name), spath)
    p.states[name] = { fresh = boolean(rawget(s, "fresh"), spath .. ".fresh"),
      motion = read_instance(A, st.inst, rawget(s, "motion"), spath .. ".motion") }
  end
  local t = rawget(l, "transition")
  if t ~= nil then
    local tp = path .. ".transition"
    tbl(t, tp)
    p.from = state_name(L, rawget(t, "from"), tp .. ".from")
    p.to = state_name(L, rawget(t, "to"), tp .. ".to")
    p.trans = transition_of(L, rawget(t, "index"), p.to, tp)
    p.elapsed = number(rawget(t, "elapsed"), tp .. ".elapsed", nil, 0, MAX_TIME, "0 .. 1e12")
    p.duration = number(rawget(t, "duration"), tp .. ".duration", nil, 0, MAX_TIME, "0 .. 1e12")
    p.from_live = boolean(rawget(t, "from_live"), tp .. ".from_live")
    if not p.from_live then
      p.still = pose_of(rawget(t, "still"), joints, tp .. ".still")
      p.still_time = number(rawget(t, "still_time"), tp .. ".still_time", nil, -WRAP, WRAP, NORM)
    end
    if L.last and p.trans.inertialize then
      p.velocity = pose_of(rawget(t, "velocity"), joints, tp .. ".velocity")
      p.velocity_time = number(rawget(t, "velocity_time"), tp .. ".velocity_time", nil, 0, MAX_TIME, "0 .. 1e12")
      p.velocity_decay = number(rawget(t, "velocity_decay"), tp .. ".velocity_decay", nil, 0, nil, "0 or more")
    end
  else
    p.state = state_name(L, rawget(l, "state"), path .. ".state")
  end
  if L.last then
    local hp = path .. ".history"
    local h = tbl(rawget(l, "history"), hp)
    p.last = pose_of(rawget(h, "last"), joints, hp .. ".last")
    p.before = pose_of(rawget(h, "before"), joints, hp .. ".before")
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
      local to = state_name(L, rawget(st, "to"), sp .. ".to")
      p.route_from[k] = state_name(L, rawget(st, "from"), sp .. ".from")
      p.route[k] = transition_of(L, rawget(st, "index"), to, sp)
    end
  end
  local pending = rawget(l, "pending")
  if pending ~= nil then p.pending = read_pending(L, pending, path .. ".pending") end
  return p
end

-- a float or int parameter's value: finite, an integer for an int, within range for a
-- parameter that drives a speed or a direct node (`limited`: not the position of a smoothed float)
local function read_value(A, name, kind, v, path, limited)
  if kind == "float" or kind == "int" then
    number(v, path)
    if kind == "int" and v ~= math.floor(v) then fail(path, "must be an integer (got %s)", show(v)) end
    local msg = limited and Motion.out_of_range(A.limited, name, v)
    if msg then fail(path, "%s", msg) end
  elseif type(v) ~= "boolean" then
    fail(path, "must be a boolean (got %s)", show(v))
  end
  return v
end

-- the plan of snapshot `snap` for animator A
local function read(A, snap)
  tbl(snap, "snapshot")
  local version = rawget(snap, "version")
  if version ~= 1 then fail("version", "unknown snapshot version %s", show(version)) end
  local values = tbl(rawget(snap, "values"), "values")
  local plan = { values = {}, layers = {} }
  for name, kind in each, A.kinds do
    plan.values[name] = read_value(A, name, kind, rawget(values, name), "values." .. name, A.targets[name] == nil)
  end
  for name in each, values do
    if A.kinds[name] == nil then fail("values", "unknown parameter %s", show(name)) end
  end
  if A.smooth[1] then
    local targets = tbl(rawget(snap, "targets"), "targets")
    local vels = tbl(rawget(snap, "velocities"), "velocities")
    plan.targets, plan.vels = {}, {}
    for _, s in ipairs(A.smooth) do
      plan.targets[s.name] = read_value(A, s.name, "float", rawget(targets, s.name), "targets." .. s.name, true)
      plan.vels[s.name] = number(rawget(vels, s.name), "velocities." .. s.name)
    end
  end
  local layers = tbl(rawget(snap, "layers"), "layers")
  local n = rawlen(layers)
  if n ~= #A.layers then fail("layers", "has %d layers, the animator %d", n, #A.layers) end
  for i, L in ipairs(A.layers) do plan.layers[i] = read_layer(A, L, rawget(layers, i), at("layers", i)) end
  return plan
end

-- ---- writing ---------------------------------------------------------------------------------------------

local function copy_into(dst, src)
  for i = 1, #dst do dst[i] = src[i] end
end

local function put_pose(pose, q)
  for j = 0, #pose - 1 do
    local b = 10 * j
    pose:set(j + 1, q[b + 1], q[b + 2], q[b + 3], q[b + 4], q[b + 5], q[b + 6], q[b + 7], q[b + 8], q[b + 9], q[b + 10])
  end
end

local put_layer

local function put_instance(inst, p)
  inst.norm, inst.weight = p.norm, p.weight
  if inst.def.kind == "clip" then inst.rm_before = p.root_before end
  if inst.layer then put_layer(inst.layer, p.layer) end
  if inst.kids then
    copy_into(inst.weights, p.weights)
    copy_into(inst.uw, p.uw)
    copy_into(inst.rates, p.rates)
    for k = 1, #inst.kids do put_instance(inst.kids[k], p.kids[k]) end
  end
end

function put_layer(L, p)
  L.weight = p.weight
  if L.synced then return end
  L.entering, L.exited = p.entering, p.exited
  for name, st in each, L.states do
    st.fresh = p.states[name].fresh
    put_instance(st.inst, p.states[name].motion)
  end
  if p.trans then
    L.trans, L.from, L.to, L.from_live = p.trans, L.states[p.from], L.states[p.to], p.from_live
    L.elapsed, L.duration = p.elapsed, p.duration
    L.cur = L.from
    if not p.from_live then
      put_pose(L.frozen, p.still)
      L.frozen_norm = p.still_time
    end
    L.dead = p.trans.inertialize and L.last ~= nil
    if L.dead then
      put_pose(L.vel, p.velocity)
      L.vel_h, L.vel_decay = p.velocity_time, p.velocity_decay
    end
  else
    L.trans, L.from, L.to, L.from_live, L.dead = nil, nil, nil, false, false
    L.cur = L.states[p.state]
  end
  if L.last then
    put_pose(L.last, p.last)
    put_pose(L.last2, p.before)
    L.last_h, L.since, L.since_start, L.have_last = p.gap, p.since, p.since_start, p.count
  end
  if p.route and #p.route > 0 then
    L.route, L.route_from, L.route_i = p.route, p.route_from, 1
  else
    L.route = nil
  end
  L.pending = (p.pending and #p.pending > 0) and p.pending or nil
  L.pending_i = 1
end

--- Reads and checks all of snapshot `snap` for animator A, changing nothing: the plan that
-- `put` writes. Raises "bad snapshot: <path>: <why>" for a bad one (at the caller's caller).
function M.plan(A, snap)
  local plan = Fault.run(3, "bad snapshot: ", read, A, snap)
  return plan
end

--- Writes `plan` into A (allocating nothing that a finaliser could run during).
function M.put(A, plan)
  for name in each, A.kinds do A.values[name] = plan.values[name] end
  for _, s in ipairs(A.smooth) do
    A.targets[s.name], A.vels[s.name] = plan.targets[s.name], plan.vels[s.name]
  end
  for i, L in ipairs(A.layers) do put_layer(L, plan.layers[i]) end
  for _, L in ipairs(A.layers) do
    if L.synced then Layer.mirror(A, L) end
  end
end

return M
