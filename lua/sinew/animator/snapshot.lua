--- Snapshots of an animator's run-time state as plain tables (numbers, strings, booleans and
-- tables only), for rollback and saved games: `anim:snapshot()` and `anim:restore(t)`. A
-- snapshot holds the parameters, and per layer its weight, the playing state or the transition
-- under way (with the still it fades from), each state's times and blend weights, and a travel
-- under way. `restore` checks the whole table against the animator before it changes anything.
-- @module sinew.animator.snapshot
local Definition = require "sinew.animator.definition"

local M = {}

local finite = Definition.finite

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
  for name, st in pairs(L.states) do l.states[name] = { fresh = st.fresh == true, motion = instance(st.inst) } end
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
  for name, v in pairs(A.values) do snap.values[name] = v end
  if A.smooth[1] then
    snap.targets, snap.velocities = {}, {}
    for _, s in ipairs(A.smooth) do snap.targets[s.name], snap.velocities[s.name] = A.targets[s.name], A.vels[s.name] end
  end
  for i, L in ipairs(A.layers) do snap.layers[i] = layer_of(L) end
  return snap
end

-- ---- checking ------------------------------------------------------------------------------------------

local fail = Definition.fail

local function number(v, path)
  if not finite(v) then fail(path, "must be a finite number (got %s)", Definition.show(v)) end
  return v
end

local function tbl(v, path)
  if type(v) ~= "table" then fail(path, "must be a table (got %s)", type(v)) end
  return v
end

local function numbers(t, n, path)
  tbl(t, path)
  if #t ~= n then fail(path, "has %d numbers, expected %d", #t, n) end
  for i = 1, n do number(t[i], ("%s[%d]"):format(path, i)) end
end

-- 10 numbers per joint with a rotation that is not zero
local function check_pose(q, joints, path)
  numbers(q, 10 * joints, path)
  for j = 0, joints - 1 do
    local b = 10 * j
    if q[b + 4] ^ 2 + q[b + 5] ^ 2 + q[b + 6] ^ 2 + q[b + 7] ^ 2 < 1e-24 then
      fail(path, "rotation of joint %d is zero", j + 1)
    end
  end
end

local check_layer

local function check_instance(A, s, inst, path)
  tbl(s, path)
  if inst.layer then check_layer(A, inst.layer, s.layer, path .. ".layer") end
  number(s.norm, path .. ".norm")
  number(s.weight, path .. ".weight")
  if s.root_before ~= nil then number(s.root_before, path .. ".root_before") end
  if inst.kids then
    numbers(s.weights, #inst.weights, path .. ".weights")
    numbers(s.uw, #inst.uw, path .. ".uw")
    numbers(s.rates, #inst.rates, path .. ".rates")
    tbl(s.kids, path .. ".kids")
    for k = 1, #inst.kids do check_instance(A, s.kids[k], inst.kids[k], ("%s.kids[%d]"):format(path, k)) end
  end
end

local function state_name(L, name, path)
  if type(name) ~= "string" or not L.states[name] then fail(path, "unknown state %s", Definition.show(name)) end
  return name
end

-- the transition numbered `index` of layer L leading to `to` (0: travel's instant switch)
local function transition_of(L, index, to, path)
  if index == 0 then return L.states[to].def.teleport end
  local t = type(index) == "number" and L.def.transitions[index]
  if not t then fail(path .. ".index", "unknown transition %s", Definition.show(index)) end
  if t.to ~= to then fail(path, "transition %d leads to '%s', not '%s'", index, t.to, to) end
  return t
end

function check_layer(A, L, l, path)
  tbl(l, path)
  number(l.weight, path .. ".weight")
  if l.weight < 0 or l.weight > 1 then fail(path .. ".weight", "is out of range (0 .. 1)") end
  if L.synced then return end
  if type(l.entering) ~= "boolean" then fail(path .. ".entering", "must be a boolean") end
  if type(l.exited) ~= "boolean" then fail(path .. ".exited", "must be a boolean") end
  tbl(l.states, path .. ".states")
  for name, st in pairs(L.states) do
    local spath = path .. ".states." .. name
    local s = tbl(l.states[name], spath)
    if type(s.fresh) ~= "boolean" then fail(spath .. ".fresh", "must be a boolean") end
    check_instance(A, s.motion, st.inst, spath .. ".motion")
  end
  if l.transition ~= nil then
    local tp = path .. ".transition"
    local t = tbl(l.transition, tp)
    state_name(L, t.from, tp .. ".from")
    state_name(L, t.to, tp .. ".to")
    transition_of(L, t.index, t.to, tp)
    number(t.elapsed, tp .. ".elapsed")
    number(t.duration, tp .. ".duration")
    if type(t.from_live) ~= "boolean" then fail(tp .. ".from_live", "must be a boolean") end
    if not t.from_live then
      check_pose(t.still, #A.skeleton, tp .. ".still")
      number(t.still_time, tp .. ".still_time")
    end
    if L.last and transition_of(L, t.index, t.to, tp).inertialize then
      check_pose(t.velocity, #A.skeleton, tp .. ".velocity")
      number(t.velocity_time, tp .. ".velocity_time")
      number(t.velocity_decay, tp .. ".velocity_decay")
    end
  else
    state_name(L, l.state, path .. ".state")
  end
  if L.last then
    local h = tbl(l.history, path .. ".history")
    check_pose(h.last, #A.skeleton, path .. ".history.last")
    check_pose(h.before, #A.skeleton, path .. ".history.before")
    for _, k in ipairs { "gap", "since", "since_start", "count" } do number(h[k], path .. ".history." .. k) end
  end
  if l.route ~= nil then
    tbl(l.route, path .. ".route")
    for k, step in ipairs(l.route) do
      local rp = ("%s.route[%d]"):format(path, k)
      tbl(step, rp)
      state_name(L, step.to, rp .. ".to")
      state_name(L, step.from, rp .. ".from")
      transition_of(L, step.index, step.to, rp)
    end
  end
  if l.pending ~= nil then
    tbl(l.pending, path .. ".pending")
    for k, name in ipairs(l.pending) do
      if type(name) ~= "string" then fail(("%s.pending[%d]"):format(path, k), "must be a state name") end
    end
  end
end


local function check(A, snap)
  tbl(snap, "snapshot")
  if snap.version ~= 1 then fail("version", "unknown snapshot version %s", Definition.show(snap.version)) end
  tbl(snap.values, "values")
  for name, kind in pairs(A.kinds) do
    local v = snap.values[name]
    local path = "values." .. name
    if kind == "float" or kind == "int" then
      number(v, path)
      if kind == "int" and v ~= math.floor(v) then fail(path, "must be an integer (got %s)", Definition.show(v)) end
    elseif type(v) ~= "boolean" then
      fail(path, "must be a boolean (got %s)", Definition.show(v))
    end
  end
  for name in pairs(snap.values) do
    if not A.kinds[name] then fail("values", "unknown parameter %s", Definition.show(name)) end
  end
  for _, s in ipairs(A.smooth) do
    number(tbl(snap.targets, "targets")[s.name], "targets." .. s.name)
    number(tbl(snap.velocities, "velocities")[s.name], "velocities." .. s.name)
  end
  tbl(snap.layers, "layers")
  if #snap.layers ~= #A.layers then fail("layers", "has %d layers, the animator %d", #snap.layers, #A.layers) end
  for i, L in ipairs(A.layers) do check_layer(A, L, snap.layers[i], ("layers[%d]"):format(i)) end
end

-- ---- restoring -----------------------------------------------------------------------------------------

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

local function put_instance(inst, s)
  inst.norm, inst.weight, inst.rm_before = s.norm, s.weight, s.root_before
  if inst.layer then put_layer(inst.layer, s.layer) end
  if inst.kids then
    copy_into(inst.weights, s.weights)
    copy_into(inst.uw, s.uw)
    copy_into(inst.rates, s.rates)
    for k = 1, #inst.kids do put_instance(inst.kids[k], s.kids[k]) end
  end
end

function put_layer(L, l)
  L.weight = l.weight
  if L.synced then return end
  L.entering, L.exited = l.entering, l.exited
  for name, st in pairs(L.states) do
    st.fresh = l.states[name].fresh
    put_instance(st.inst, l.states[name].motion)
  end
  if l.transition then
    local t = l.transition
    L.trans = transition_of(L, t.index, t.to, "")
    L.from, L.to, L.from_live = L.states[t.from], L.states[t.to], t.from_live
    L.elapsed, L.duration = t.elapsed, t.duration
    L.cur = L.from
    if not t.from_live then
      put_pose(L.frozen, t.still)
      L.frozen_norm = t.still_time
    end
    L.dead = L.trans.inertialize and L.last ~= nil
    if L.dead then
      put_pose(L.vel, t.velocity)
      L.vel_h, L.vel_decay = t.velocity_time, t.velocity_decay
    end
  else
    L.trans, L.from, L.to, L.from_live, L.dead = nil, nil, nil, false, false
    L.cur = L.states[l.state]
  end
  if L.last then
    local h = l.history
    put_pose(L.last, h.last)
    put_pose(L.last2, h.before)
    L.last_h, L.since, L.since_start, L.have_last = h.gap, h.since, h.since_start, h.count
  end
  if l.route and #l.route > 0 then
    L.route, L.route_from, L.route_i = {}, {}, 1
    for k, step in ipairs(l.route) do
      L.route[k] = transition_of(L, step.index, step.to, "")
      L.route_from[k] = step.from
    end
  else
    L.route = nil
  end
  L.pending = (l.pending and #l.pending > 0) and l.pending or nil
  L.pending_i = 1
end


--- Puts snapshot `snap` back into animator A. Raises with the path of the fault, changing nothing.
function M.restore(A, snap)
  local ok, err = pcall(check, A, snap)
  if not ok then
    local msg = Definition.fault_message(err)
    if msg then error("bad snapshot: " .. msg, 3) end
    error(err, 0)
  end
  for name in pairs(A.kinds) do A.values[name] = snap.values[name] end
  for _, s in ipairs(A.smooth) do
    A.targets[s.name], A.vels[s.name] = snap.targets[s.name], snap.velocities[s.name]
  end
  for i, L in ipairs(A.layers) do put_layer(L, snap.layers[i]) end
  for _, L in ipairs(A.layers) do
    if L.synced then require("sinew.animator.layer").mirror(A, L) end
  end
end

return M
