--- One layer of the animator as it runs: its state machine (the playing state, the transition
-- under way with the pose it fades from), exit times, interruptions, the events its states
-- cross, and the pose it gives. Times within one `update` are exact: a transition that an exit
-- time starts begins at the crossing, and the rest of the step goes into the cross-fade.
-- @module sinew.animator.layer
local core = require "sinew.core"
local Motion = require "sinew.animator.motion"
local RootMotion = require "sinew.animator.root_motion"

local M = {}

local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

local blend, delta = core.blend, core.delta
local floor, ceil, min = math.floor, math.ceil, math.min
local advance, sample, set_norm, weights_of, rate, length, step =
  Motion.advance, Motion.sample, Motion.set_norm, Motion.weights_of, Motion.rate, Motion.length, Motion.step
local MAX_SPEED, MAX_TIME = Motion.MAX_SPEED, Motion.MAX_TIME

--- The most events one update queues, of all layers together (a huge step over a short loop
-- would otherwise queue without end): past it an event is not queued but counted in
-- `anim.dropped_events`; within one state's step the earliest crossings are queued first.
M.MAX_EVENTS = 1024
local MAX_EVENTS = M.MAX_EVENTS

-- ---- construction ----------------------------------------------------------------------------------

--- The runtime of layer definition `def` (compiled), its additive references `refs` (or nil).
function M.new(def, skeleton, refs)
  local L = { def = def, states = {}, weight = def.weight, frozen = core.pose(skeleton), out = core.pose(skeleton),
    pair = { false, false }, pair_w = { 0, 0 }, elapsed = 0, duration = 0 }
  if def.synced then
    -- a layer synced to another: its own motions, two instances per state (the two sides of a
    -- fade), played at the other layer's times; `L.src` is set by the animator
    L.synced, L.side_to, L.side_from = true, {}, {}
    for name, m in each, def.motions do
      L.side_to[name] = Motion.new(m, skeleton, refs)
      L.side_from[name] = Motion.new(m, skeleton, refs)
    end
  end
  M.masks(L, def, skeleton)
  if def.synced then return L end
  for name, s in each, def.states do
    L.states[name] = { def = s, name = name, inst = Motion.new(s.motion, skeleton, refs) }
  end
  if def.inertial then
    -- the layer's last two poses and the time between them (the source's velocity at a switch),
    -- the velocity found there, and the extrapolated source
    L.last, L.last2, L.last_h, L.since, L.since_start = core.pose(skeleton), core.pose(skeleton), 0, 0, 0
    L.have_last, L.vel_h, L.vel_decay, L.dead = 0, 0, 0, false
    L.vel, L.extra = core.pose(skeleton), core.pose(skeleton)
  end
  L.cur = L.states[def.entry]
  L.entering = true -- the entry state's enter event fires at the first update
  return L
end

-- the masks of an override layer: its own and its complement, out = (1 - w m) out + w m layer
function M.masks(L, def, skeleton)
  if def.mask then
    -- the complement of the mask, for an override layer: out = (1 - w m) out + w m layer
    local comp = core.mask(skeleton, {}, 0)
    for j = 1, #skeleton do comp:set(j, 1 - def.mask:get(j)) end
    L.comp = comp
    L.masks = { false, comp, def.mask }
    L.three, L.three_w = { false, false, false }, { 0, 0, 0 }
  end
end

-- ---- synced layers -----------------------------------------------------------------------------------

-- the weights and times of a synced layer's motions from the layer it follows (after its update)
local function mirror_one(inst, state_inst, norm, values)
  if inst.def.kind == "blend" then weights_of(inst, values) end
  set_norm(inst, norm or state_inst.norm)
end

--- Sets a synced layer's motions to the times and weights of the layer it follows.
function M.mirror(A, L)
  local src, values = L.src, A.values
  if src.trans then
    mirror_one(L.side_to[src.to.name], src.to.inst, nil, values)
    mirror_one(L.side_from[src.from.name], src.from.inst, not src.from_live and src.frozen_norm or nil, values)
  else
    mirror_one(L.side_to[src.cur.name], src.cur.inst, nil, values)
  end
end

-- ---- conditions ------------------------------------------------------------------------------------

local function holds(c, values)
  local v, op = values[c.name], c.op
  if op == 0 then return v == true end
  local x = c.value
  if op == 1 then return v > x
  elseif op == 2 then return v < x
  elseif op == 3 then return v >= x
  elseif op == 4 then return v <= x
  elseif op == 5 then return v == x
  end
  return v ~= x
end

local function conditions_hold(t, values)
  local conds = t.conditions
  for i = 1, #conds do
    if not holds(conds[i], values) then return false end
  end
  return true
end

-- has the normalised time `norm` of a state reached exit time `e`? (below 1: in every loop)
local function exit_reached(e, norm, loop)
  if loop and e < 1 then return norm - floor(norm) >= e end
  return norm >= e
end

-- ---- curves ----------------------------------------------------------------------------------------

--- The destination's weight at progress `x` (0 .. 1) of a cross-fade with curve `c`.
local function curve_at(c, x)
  if x <= 0 then return 0 elseif x >= 1 then return 1 end
  if c == "linear" then return x end
  if c == "smoothstep" then return x * x * (3 - 2 * x) end
  local n = #c - 1
  local f = x * n
  local i = floor(f)
  if i >= n then return c[n + 1] end
  return c[i + 1] + (c[i + 2] - c[i + 1]) * (f - i)
end
M.curve_at = curve_at

-- ---- events ----------------------------------------------------------------------------------------

-- queues an event of layer L at time `at` (seconds into the layer's update: for a sub-state
-- machine, its own seconds from the instant its state started to play in this update, which
-- L.t0 and L.ts turn into the animator's)
local function push(A, name, L, state, weight, at)
  local n = A.ev_n + 1
  if n > MAX_EVENTS then
    A.dropped_events = A.dropped_events + 1
    return
  end
  local t0 = L.t0
  if t0 then at = t0 + at * L.ts end
  A.ev_n = n
  A.ev_name[n], A.ev_layer[n], A.ev_state[n], A.ev_weight[n], A.ev_time[n] = name, L.def.name, state.name, weight, at
end
M.push = push

local function push_named(A, L, state, kind, weight, at)
  local evs = state.def.events
  for i = 1, #evs do
    if evs[i].at == kind then push(A, evs[i].name, L, state, weight, at) end
  end
end

-- the weight of the destination at `at` seconds into this update (for events during a fade)
local function fade_weight(L, at)
  if L.duration <= 0 then return 1 end
  return curve_at(L.trans.curve, (L.elapsed_start + at) / L.duration)
end

-- the crossings k + e of an event at `e` by a normalised time going from `old` to `new` (`fresh`:
-- the starting point included), as the first and the last k (none when last < first)
local function crossings(e, old, new, fresh, loop)
  local kmin, kmax
  if new > old then
    kmin = fresh and ceil(old - e) or floor(old - e) + 1
    kmax = floor(new - e)
  else
    kmin = ceil(new - e)
    kmax = fresh and floor(old - e) or ceil(old - e) - 1
  end
  if not loop then
    if kmin < 0 then kmin = 0 end
    if kmax > 0 then kmax = 0 end
  end
  return kmin, kmax
end


-- queues the timed events of `state` crossed while its normalised time went from `old` to
-- `new` over [t0, t0 + span] of the update, in time order, as many as the queue takes (the rest
-- counted in dropped_events); `fresh` includes the starting point. The work is the number of
-- events plus the number queued: the loop over k stops when the queue is full, and every k
-- between the first and the last crosses every event that is crossed at all (an event's first k
-- is the same or one more than another's, as e lies in [0, 1]).
local function crossed(A, L, state, old, new, t0, span, fresh, side)
  if new == old then return end
  local evs, loop = state.def.events, state.def.loop
  local kmins, kmaxs = A.kmins, A.kmaxs -- of each event of the state (the animator's scratch)
  local n = #evs
  local total, first, last = 0, nil, nil
  for i = 1, n do
    local e = evs[i].at
    kmins[i] = false
    if type(e) == "number" then
      local kmin, kmax = crossings(e, old, new, fresh, loop)
      if kmax >= kmin then
        kmins[i], kmaxs[i] = kmin, kmax
        total = total + (kmax - kmin + 1)
        if first == nil or kmin < first then first = kmin end
        if last == nil or kmax > last then last = kmax end
      end
    end
  end
  if total == 0 then return end
  local room = MAX_EVENTS - A.ev_n
  if room < 0 then room = 0 end
  local take = total
  if take > room then
    A.dropped_events = A.dropped_events + (total - room)
    take = room
  end
  local queued = 0
  local forwards = new > old
  local k, i0, i1, di = first, 1, n, 1
  if not forwards then k, i0, i1, di = last, n, 1, -1 end
  while queued < take and k >= first and k <= last do
    for i = i0, i1, di do
      local kmin = kmins[i]
      if kmin and k >= kmin and k <= kmaxs[i] and queued < take then
        local at = t0 + span * (k + evs[i].at - old) / (new - old)
        local w = 1
        if side == 1 then w = 1 - fade_weight(L, at - t0) elseif side == 2 then w = fade_weight(L, at - t0) end
        push(A, evs[i].name, L, state, w, at)
        queued = queued + 1
      end
    end
    if forwards then k = k + 1 else k = k - 1 end
  end
end

-- ---- the state machine -----------------------------------------------------------------------------

-- the speed of a state: its own times its parameter's, held within -MAX_SPEED .. MAX_SPEED
local function state_speed(state, values)
  local s = state.def.speed
  local p = state.def.speed_parameter
  if p then
    s = s * values[p]
    if s > MAX_SPEED then s = MAX_SPEED elseif s < -MAX_SPEED then s = -MAX_SPEED end
  end
  return s
end

-- ---- inertialisation (dead blending) --------------------------------------------------------------

-- the extrapolated source of an inertialised transition: the pose at the switch moved on by its
-- velocity there, the velocity decaying with a half-life of a quarter of the duration (so the
-- source coasts to a stop instead of being kept playing)
-- (a coast that would leave the float range, or take a weight beyond it, is not taken: the
-- source holds still; pose:add changes nothing when it refuses)
local function extrapolate(L)
  local e = L.extra
  e:copy(L.frozen)
  if L.vel_h > 0 then
    local k = L.vel_decay
    local t = L.elapsed
    local g = k > 0 and (1 - math.exp(-k * t)) / k or t
    pcall(e.add, e, L.vel, g / L.vel_h)
  end
  return e
end

--- Keeps the layer's pose of this frame (for the source velocity of an inertialised switch).
function M.remember(L, pose)
  L.last, L.last2 = L.last2, L.last
  L.last:copy(pose)
  L.last_h, L.since = L.since, 0
  if L.have_last < 2 then L.have_last = L.have_last + 1 end
end

-- at an inertialised switch: the pose of this instant into L.frozen, its velocity into L.vel
-- (the change over L.vel_h seconds)
local function switch_inertial(L, pose_now, at)
  L.frozen:copy(pose_now)
  L.vel_h = 0
  local since = L.since_start + at -- since the last evaluate
  -- (a velocity that cannot be measured, a zero scale or a ratio beyond the float range, is
  -- none: the source holds still)
  if since > 0 and L.have_last >= 1 then
    if pcall(delta, L.vel, L.frozen, L.last) then L.vel_h = since end
  elseif L.have_last >= 2 and L.last_h > 0 then
    if pcall(delta, L.vel, L.last, L.last2) then L.vel_h = L.last_h end
  end
end

-- sets the blend weights of a state's motion from the parameters
local function weights_of_state(state, values)
  if state.inst.def.kind == "blend" then weights_of(state.inst, values) end
end

--- Writes the layer's pose now into L.out (and returns it): the playing state, or the fade.
local function pose_of(L)
  if L.synced then
    local src = L.src
    if not src.trans then return sample(L.side_to[src.cur.name], src.cur.def.loop) end
    local a = M.fade(src)
    L.pair[1] = sample(L.side_from[src.from.name], src.from.def.loop)
    L.pair[2] = sample(L.side_to[src.to.name], src.to.def.loop)
    L.pair_w[1], L.pair_w[2] = 1 - a, a
    blend(L.out, L.pair, L.pair_w)
    return L.out
  end
  local trans = L.trans
  if not trans then return sample(L.cur.inst, L.cur.def.loop) end
  local from = L.from_live and sample(L.from.inst, L.from.def.loop) or L.frozen
  if L.dead then from = extrapolate(L) end
  local to = sample(L.to.inst, L.to.def.loop)
  local a = M.fade(L)
  L.pair[1], L.pair[2], L.pair_w[1], L.pair_w[2] = from, to, 1 - a, a
  blend(L.out, L.pair, L.pair_w)
  return L.out
end
M.pose_of = pose_of

--- The state that plays (the destination while a fade runs).
function M.playing(L)
  return L.trans and L.to or L.cur
end

--- Starts a sub-state machine again at its entry state, at normalised time `norm` (its state
-- entered anew); a travel waiting for it begins.
function M.restart(L, norm)
  L.cur, L.trans, L.from, L.to, L.from_live, L.dead = L.states[L.def.entry], nil, nil, nil, false, false
  L.entering, L.exited, L.route = true, false, nil
  set_norm(L.cur.inst, norm)
  if L.pending then
    local names, i = L.pending, L.pending_i
    L.pending = nil
    M.travel(L, names, i)
  end
end

--- Calls `walk(inst, weight, loop, fn, ctx)` for what plays in the layer: the state, or both
-- sides of a fade with their weights (a still source has none).
function M.each(L, scale, walk, fn, ctx)
  if L.synced then
    local src = L.src
    if src.trans then
      local a = M.fade(src)
      if a < 1 then walk(L.side_from[src.from.name], scale * (1 - a), src.from.def.loop, fn, ctx) end
      walk(L.side_to[src.to.name], scale * a, src.to.def.loop, fn, ctx)
    else
      walk(L.side_to[src.cur.name], scale, src.cur.def.loop, fn, ctx)
    end
    return
  end
  if L.trans then
    local a = M.fade(L)
    if L.from_live and a < 1 then walk(L.from.inst, scale * (1 - a), L.from.def.loop, fn, ctx) end
    walk(L.to.inst, scale * a, L.to.def.loop, fn, ctx)
  else
    walk(L.cur.inst, scale, L.cur.def.loop, fn, ctx)
  end
end

--- Travels to the state named names[i] (and, inside it, to names[i + 1] and on); raises for an
-- unknown state. Returns true when a path leads there.
function M.travel(L, names, i)
  local state = names[i]
  local target = L.states[state]
  if not target then error(("unknown state '%s' in layer '%s'"):format(tostring(state), L.def.name), 0) end
  local inner = names[i + 1]
  if inner and not target.inst.layer then
    error(("state '%s' is not a sub-state machine"):format(state), 0)
  end
  local from = L.trans and L.to.name or L.cur.name
  local path, froms = M.route(L, from, state)
  local found = path ~= nil
  if path == nil then path, froms = { target.def.teleport }, { from } end
  if #path == 0 then L.route = nil else L.route, L.route_from, L.route_i = path, froms, 1 end
  if inner then
    if #path == 0 then
      found = M.travel(target.inst.layer, names, i + 1) and found
    else -- once the sub-state machine starts again
      target.inst.layer.pending, target.inst.layer.pending_i = names, i + 1
    end
  end
  return found
end

--- The destination's weight in the transition under way (1 when none).
function M.fade(L)
  if not L.trans or L.duration <= 0 then return 1 end
  return curve_at(L.trans.curve, L.elapsed / L.duration)
end

-- the transition of `list` that fires now (conditions hold, exit time passed), or nil; the
-- state the list belongs to is `owner` (its normalised time for exit times; nil when frozen)
local function pick(list, owner, values, skip_to, any_exit)
  for i = 1, #list do
    local t = list[i]
    if t.to ~= skip_to and conditions_hold(t, values) then
      local e = t.exit_time
      if e == nil or any_exit or (owner and exit_reached(e, owner.inst.norm, owner.def.loop)) then return t end
    end
  end
  return nil
end

-- consumes the triggers a transition fired with
local function consume(A, t)
  local conds = t.conditions
  for i = 1, #conds do
    if conds[i].kind == "trigger" then A.values[conds[i].name] = false end
  end
end

-- ends the transition under way: the destination plays alone
local function finish(A, L, at)
  if L.from_live and L.from ~= L.to then push_named(A, L, L.from, "exit", 1, at) end
  L.cur, L.trans, L.from, L.to, L.from_live, L.dead = L.to, nil, nil, nil, false, false
end

-- starts transition t at `at` seconds into the update; `source` is the state whose list held it
local function start(A, L, t, source, at, travelling)
  if not travelling then consume(A, t) end
  if t.to == "exit" then -- a sub-state machine is done: its state's transitions in the layer above go on
    L.exited = true
    return
  end
  local dest = L.states[t.to]
  local duration = t.duration
  if t.inertialize and L.last then
    -- the source stops; its pose and velocity at this instant coast into the destination
    switch_inertial(L, pose_of(L), at)
    L.frozen_norm = L.trans and (L.from_live and L.from.inst.norm or L.frozen_norm) or L.cur.inst.norm
    if L.trans then
      if L.from_live and L.from ~= dest then push_named(A, L, L.from, "exit", 1, at) end
      if L.to ~= dest then push_named(A, L, L.to, "exit", 1, at) end
    elseif L.cur ~= dest then
      push_named(A, L, L.cur, "exit", 1, at)
    end
    L.from_live = false
  elseif L.trans then
    -- interrupted: fade from the pose of this instant (no pop), whatever it was made of
    L.frozen:copy(pose_of(L))
    L.frozen_norm = L.from_live and L.from.inst.norm or L.frozen_norm
    if L.from_live and L.from ~= dest then push_named(A, L, L.from, "exit", 1, at) end
    if L.to ~= dest then push_named(A, L, L.to, "exit", 1, at) end
    L.from_live = false
  elseif L.cur == dest then
    -- to the playing state: fade from a still of its pose while it starts again
    L.frozen:copy(sample(L.cur.inst, L.cur.def.loop))
    L.frozen_norm = L.cur.inst.norm
    L.from_live = false
  else
    L.from_live = true
  end
  if not t.fixed then -- in cycles of the source state
    local len, speed = length(source.inst), math.abs(state_speed(source, A.values))
    duration = duration * (len > 0 and len or 1) / (speed > 0 and speed or 1)
    if duration > MAX_TIME then duration = MAX_TIME end
  end
  L.from, L.to, L.trans = source, dest, t
  L.elapsed, L.duration = 0, duration
  L.dead = t.inertialize and L.last ~= nil
  if L.dead then L.vel_decay = duration > 0 and 4 * math.log(2) / duration or 0 end
  weights_of_state(dest, A.values)
  set_norm(dest.inst, t.offset)
  if A.root then RootMotion.restart(dest.inst) end
  dest.fresh = true
  push_named(A, L, dest, "enter", 1, at)
  if duration <= 0 then finish(A, L, at) end
end

-- advances one playing state by dt seconds from `at`; events with `side` (0 alone, 1 source, 2
-- destination of a fade)
local function play(A, L, state, dt, at, side)
  local inst = state.inst
  local old = inst.norm
  local speed = state_speed(state, A.values)
  local new, wrapped
  if inst.def.kind == "machine" then
    local inner, abs = inst.layer, math.abs(speed)
    -- its seconds run |speed| times as fast as the layer's, from `at` on
    local ts = L.ts or 1
    inner.t0 = (L.t0 or 0) + at * ts
    ts = abs > 0 and ts / abs or 0
    inner.ts = ts < MAX_TIME and ts or MAX_TIME
    M.update(A, inner, dt * abs)
    new, wrapped = step(old, dt * rate(inst) * speed)
    inst.norm = new
  else
    new, wrapped = advance(inst, dt * speed)
  end
  crossed(A, L, state, old, new + wrapped, at, dt, state.fresh, side)
  state.fresh = false
end

-- the first exit-time transition of the playing state crossed within the next `dt` seconds,
-- with its time from now, or nil
local function next_exit(state, dt, values, only)
  if not (state.def.exit_times or only) then return nil end
  local speed = state_speed(state, values)
  if speed <= 0 then return nil end
  local inst = state.inst
  local r = rate(inst) * speed
  local old = inst.norm
  local new = old + r * dt
  local best, best_at = nil, nil
  local list = state.def.transitions
  for i = 1, #list do
    local t = list[i]
    local e = t.exit_time
    if e ~= nil and (only == t or (only == nil and conditions_hold(t, values))) then
      local cross
      if state.def.loop and e < 1 then
        cross = floor(old - e) + 1 + e -- the next k + e above old
        if state.fresh and old - floor(old) == e then cross = old end
      elseif old < e or (state.fresh and old == e) then
        cross = e
      end
      if cross and cross <= new then
        local at = 0
        if cross > old then at = (cross - old) / r end -- (r > 0 then)
        if at > dt then at = dt end
        if best_at == nil or at < best_at then best, best_at = t, at end
      end
    end
  end
  return best, best_at
end

-- the transitions that may interrupt the one under way, in the order its interruption source
-- gives, and whether one fires now
local function interrupt(A, L)
  local how = L.trans.interruption
  if how == "none" then return nil end
  local values = A.values
  local src = L.from_live and L.from or nil
  local t, owner
  if how == "source" or how == "source_then_destination" then
    t = pick(L.from.def.transitions, src, values, L.to.name)
    owner = L.from
    if not t and how == "source_then_destination" then
      t, owner = pick(L.to.def.transitions, L.to, values, L.to.name), L.to
    end
  else
    t, owner = pick(L.to.def.transitions, L.to, values, L.to.name), L.to
    if not t and how == "destination_then_source" then
      t, owner = pick(L.from.def.transitions, src, values, L.to.name), L.from
    end
  end
  return t, owner
end

-- ---- travel -----------------------------------------------------------------------------------------

--- The transitions that lead from state `from` to state `to` in the fewest steps, conditions
-- ignored (breadth first; the transition written first wins a tie), with the state each is taken
-- from; nil when no path leads there.
function M.route(L, from, to)
  local prev, via, queue, head = { [from] = false }, {}, { from }, 1
  while queue[head] and prev[to] == nil do
    local name = queue[head]
    head = head + 1
    local list = L.states[name].def.transitions
    for i = 1, #list do
      local t = list[i]
      if prev[t.to] == nil and L.states[t.to] then -- ('exit' of a sub-state machine is no state)
        prev[t.to], via[t.to] = name, t
        queue[#queue + 1] = t.to
      end
    end
  end
  if prev[to] == nil then return nil end
  local path, froms, at = {}, {}, to
  while at ~= from do
    table.insert(path, 1, via[at])
    table.insert(froms, 1, prev[at])
    at = prev[at]
  end
  return path, froms
end

-- the next step of a travel, if the layer travels: starts it now when it has no exit time;
-- returns the transition whose exit time the state waits for, or nil
local function travel_step(A, L)
  local route = L.route
  if not route or L.trans then return nil end
  local t = route[L.route_i]
  if t == nil then
    L.route = nil
    return nil
  end
  if L.route_from[L.route_i] ~= L.cur.name then -- something else moved the layer: stop
    L.route = nil
    return nil
  end
  if t.exit_time == nil then
    L.route_i = L.route_i + 1
    start(A, L, t, L.cur, 0, true)
    return nil
  end
  return t
end

--- Advances the layer by dt seconds: transitions whose conditions hold now start first, then
-- time runs, and an exit time crossed within the step starts its transition at that instant.
-- While the layer travels, the route's transitions are taken instead.
function M.update(A, L, dt)
  if L.synced then
    M.mirror(A, L)
    return
  end
  local values = A.values
  if dt > MAX_TIME then dt = MAX_TIME end -- (a sub-state machine's seconds: dt times a speed)
  if L.last then L.since_start, L.since = L.since, math.min(L.since + dt, MAX_TIME) end
  if L.entering then
    L.entering = false
    L.cur.fresh = true
    weights_of_state(L.cur, values)
    push_named(A, L, L.cur, "enter", 1, 0)
  end
  -- the weights of what plays, from the parameters of this update
  local waiting = nil
  if L.trans then
    if L.from_live then weights_of_state(L.from, values) end
    weights_of_state(L.to, values)
    if not L.route then
      local t, owner = interrupt(A, L)
      if t then start(A, L, t, owner, 0) end
    end
  else
    weights_of_state(L.cur, values)
    if L.route then
      waiting = travel_step(A, L)
    else
      local t = pick(L.cur.def.transitions, L.cur, values, nil)
      local inst = L.cur.inst
      if not t and inst.layer and inst.layer.exited then -- its sub-state machine is done: exit times no longer wait
        t = pick(L.cur.def.transitions, nil, values, nil, true)
      end
      if t then start(A, L, t, L.cur, 0) end
    end
  end
  local at = 0
  if not L.trans then
    local t, t_at
    if L.route then
      if waiting then t, t_at = next_exit(L.cur, dt, values, waiting) end
    else
      t, t_at = next_exit(L.cur, dt, values)
    end
    if t then
      play(A, L, L.cur, t_at, 0, 0)
      at = t_at
      if waiting then L.route_i = L.route_i + 1 end
      start(A, L, t, L.cur, at, waiting ~= nil)
    else
      play(A, L, L.cur, dt, 0, 0)
      return
    end
  end
  if L.trans then
    local rest = dt - at
    L.elapsed_start = L.elapsed
    if L.from_live then play(A, L, L.from, rest, at, 1) end
    play(A, L, L.to, rest, at, 2)
    L.elapsed = L.elapsed + rest
    if L.elapsed >= L.duration then finish(A, L, at + rest - min(rest, L.elapsed - L.duration)) end
  else
    -- the transition ended at once (duration 0): the destination plays the rest
    play(A, L, L.cur, dt - at, at, 0)
  end
end

Motion.Layer = M -- a sub-state machine plays a layer's state machine

return M
