--- One layer machine of an animator instance as it runs (a layer, or a sub-state machine that a
-- state plays): its state machine (the playing state, the transition under way with the pose it
-- fades from), exit times, interruptions, travel, the events its states cross, and the pose it
-- gives. Times within one `update` are exact: a transition that an exit time starts begins at the
-- crossing, and the rest of the step goes into the cross-fade.
--
-- This module alone reads and writes a layer's table (`L`): the animator, root motion and
-- snapshots call the functions below. `L.p` is the layer's machine in the plan (its states,
-- masks and scratch), `I` the instance, `P` the plan.
-- @module sinew.animator.layer
local Motion = require "sinew.animator.motion"
local RootMotion = require "sinew.animator.root_motion"
local Events = require "sinew.animator.events"
local Definition = require "sinew.animator.definition"
local Plan = require "sinew.animator.plan"

local M = {}

local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

local floor, min, abs = math.floor, math.min, math.abs
local advance, msample, set_norm_m, weights_of, mrate, mlength, step =
  Motion.advance, Motion.sample, Motion.set_norm, Motion.weights_of, Motion.rate, Motion.length, Motion.step
local MAX_SPEED, MAX_TIME = Motion.MAX_SPEED, Motion.MAX_TIME
local BLEND = Motion.BLEND


-- ---- construction ----------------------------------------------------------------------------------

--- The run-time table of layer machine D (of plan P) for a new instance: at its entry state,
-- whose enter event fires at the first update. Its poses (a still to fade from, the history of
-- an inertialised switch) are made here, once, only where the machine can need them.
function M.new(P, D)
  local L = { p = D, weight = D.def.weight or 1, elapsed = 0, duration = 0 }
  if D.synced then return L end
  if D.stills then L.frozen = P.kind.pose(P.skel) end
  if D.inertial then
    -- the layer's last two poses and the time between them (the source's velocity at a switch),
    -- the velocity found there
    L.last, L.last2, L.last_h, L.since, L.since_start = P.kind.pose(P.skel), P.kind.pose(P.skel), 0, 0, 0
    L.have_last, L.vel_h, L.vel_decay, L.dead = 0, 0, 0, false
    L.vel = P.kind.pose(P.skel)
  end
  L.cur = D.states[D.def.entry]
  L.entering = true
  -- the state whose last check of its transitions found none (`quiet`), and the values of the
  -- parameters that check read (`memo`, see the plan's `held`)
  L.quiet, L.memo = false, {}
  for k = 1, D.most_held do L.memo[k] = false end
  return L
end

-- the layer of instance I that a state's sub-state machine plays
local function inner(I, st) return I.machines[st.machine.id] end

-- ---- states: clips and blend nodes through sinew.animator.motion, sub-state machines here ------------

local pose_of, playing

-- the cycle length of what state `st` plays, seconds
local function state_length(P, I, st)
  if st.machine then
    local L = inner(I, st)
    return state_length(P, I, playing(L))
  end
  return mlength(P, I, st.slot)
end

-- how fast the normalised time of what state `st` plays runs
local function state_rate(P, I, st)
  if st.machine then return state_rate(P, I, playing(inner(I, st))) end
  return mrate(P, I, st.slot)
end

local restart

-- sets the normalised time of a state's motion (a sub-state machine starts again at its entry)
local function state_set_norm(P, I, st, norm)
  if st.machine then
    restart(P, I, inner(I, st), norm)
    I.rec[5 * st.slot - 4] = norm
    return
  end
  set_norm_m(P, I, st.slot, norm)
end

-- samples what state `st` plays into `out`
local function state_sample(P, I, st, out)
  if st.machine then return pose_of(P, I, inner(I, st), out) end
  return msample(P, I, st.slot, st.loop, out)
end

-- sets the blend weights of a state's motion from the parameters
local function weights_of_state(P, I, st, values)
  if P.mkind[st.slot] == BLEND then weights_of(P, I, st.slot, values) end
end

-- ---- synced layers -----------------------------------------------------------------------------------

local function mirror_one(P, I, s, norm, values)
  if P.mkind[s] == BLEND then weights_of(P, I, s, values) end
  set_norm_m(P, I, s, norm)
end

--- Sets a synced layer's motions to the times and weights of the layer it follows.
function M.mirror(P, I, L)
  local D = L.p
  local src = I.layers[D.src.id]
  local values = I -- (the parameters' values are the instance's list)
  if src.trans then
    mirror_one(P, I, D.side_to[src.to.name], I.rec[5 * src.to.slot - 4], values)
    mirror_one(P, I, D.side_from[src.from.name], src.from_live and I.rec[5 * src.from.slot - 4] or src.frozen_norm, values)
  else
    mirror_one(P, I, D.side_to[src.cur.name], I.rec[5 * src.cur.slot - 4], values)
  end
end

-- ---- conditions ------------------------------------------------------------------------------------

local function conditions_hold(t, values)
  local conds = t.conditions
  for i = 1, t.nconds do
    local c = conds[i]
    local v, op = values[c.param], c.op
    if op == 0 then
      if v ~= true then return false end
    else
      local x = c.value
      if op == 1 then if v <= x then return false end -- (values are finite numbers here)
      elseif op == 2 then if v >= x then return false end
      elseif op == 3 then if v < x then return false end
      elseif op == 4 then if v > x then return false end
      elseif op == 5 then if v ~= x then return false end
      elseif v == x then return false
      end
    end
  end
  return true
end

-- has the normalised time `norm` of a state reached exit time `e`? (below 1: in every loop)
local function exit_reached(e, norm, loop)
  if loop and e < 1 then return norm - floor(norm) >= e end
  return norm >= e
end

-- ---- fades ----------------------------------------------------------------------------------------

local curve_at = Definition.curve_at

--- The destination's weight in the transition under way (1 when none).
local function fade(L)
  if not L.trans or L.duration <= 0 then return 1 end
  return curve_at(L.trans.curve, L.elapsed / L.duration)
end
M.fade = fade

-- ---- events (the queue is sinew.animator.events') --------------------------------------------

-- the animator's time of `at` seconds into layer L's update (a sub-state machine's own seconds
-- from the instant its state started to play in this update: L.t0 and L.ts turn them)
local function time_of(L, at)
  local t0 = L.t0
  if t0 then return t0 + at * L.ts end
  return at
end

local function push_named(I, L, state, kind, weight, at)
  local evs = state.events
  for i = 1, state.nevents do
    if evs[i].at == kind then Events.push(I, evs[i].name, L.p.name, state.name, weight, time_of(L, at)) end
  end
end


-- ---- the state machine -----------------------------------------------------------------------------

-- the speed of a state: its own times its parameter's, held within -MAX_SPEED .. MAX_SPEED
local function state_speed(state, values)
  local s = state.speed
  local p = state.speed_i
  if p then
    s = s * values[p]
    if s > MAX_SPEED then s = MAX_SPEED elseif s < -MAX_SPEED then s = -MAX_SPEED end
  end
  return s
end

-- ---- inertialisation (dead blending) --------------------------------------------------------------

-- the extrapolated source of an inertialised transition into `out`: the pose at the switch moved
-- on by its velocity there, the velocity decaying with a half-life of a quarter of the duration
-- (so the source coasts to a stop instead of being kept playing)
-- (a coast that would leave the float range, or take a weight beyond it, is not taken: the
-- source holds still; pose:add changes nothing when it refuses)
local function extrapolate(P, L, out)
  P.copy(out, L.frozen)
  if L.vel_h > 0 then
    local k = L.vel_decay
    local t = L.elapsed
    local g = k > 0 and (1 - math.exp(-k * t)) / k or t
    pcall(P.add, out, L.vel, g / L.vel_h)
  end
  return out
end

--- Writes the first layer's pose into `pose` (the caller's) and keeps it when the layer keeps a
-- history (for the source velocity of an inertialised switch).
function M.base(P, I, L, pose)
  local cur = L.cur
  if not L.trans and not cur.machine then -- (a state alone: pose_of's first case)
    msample(P, I, cur.slot, cur.loop, pose)
  else
    pose_of(P, I, L, pose)
  end
  if L.last then M.remember(P, L, pose) end
end

--- Keeps the layer's pose of this frame (for the source velocity of an inertialised switch).
function M.remember(P, L, pose)
  if not L.last then return end
  L.last, L.last2 = L.last2, L.last
  P.copy(L.last, pose)
  L.last_h, L.since = L.since, 0
  if L.have_last < 2 then L.have_last = L.have_last + 1 end
end

-- at an inertialised switch: the pose of this instant into L.frozen, its velocity into L.vel
-- (the change over L.vel_h seconds)
local function switch_inertial(P, L, pose_now, at)
  P.copy(L.frozen, pose_now)
  L.vel_h = 0
  local since = L.since_start + at -- since the last evaluate
  -- (a velocity that cannot be measured, a zero scale or a ratio beyond the float range, is
  -- none: the source holds still)
  if since > 0 and L.have_last >= 1 then
    if pcall(P.delta, L.vel, L.frozen, L.last) then L.vel_h = since end
  elseif L.have_last >= 2 and L.last_h > 0 then
    if pcall(P.delta, L.vel, L.last, L.last2) then L.vel_h = L.last_h end
  end
end

--- Writes the layer's pose now into `out` (and returns it): the playing state, or the fade.
function pose_of(P, I, L, out)
  local D = L.p
  if D.synced then
    local src = I.layers[D.src.id]
    if not src.trans then
      local s = D.side_to[src.cur.name]
      return msample(P, I, s, src.cur.loop, out)
    end
    local a = fade(src)
    local pair, pw = D.pair, D.pair_w
    local sf, st = D.side_from[src.from.name], D.side_to[src.to.name]
    pair[1] = msample(P, I, sf, src.from.loop, P.mpose[sf])
    pair[2] = msample(P, I, st, src.to.loop, P.mpose[st])
    pw[1], pw[2] = 1 - a, a
    P.blend(out, pair, pw)
    return out
  end
  if not L.trans then
    local cur = L.cur
    if cur.machine then return pose_of(P, I, inner(I, cur), out) end
    return msample(P, I, cur.slot, cur.loop, out)
  end
  local from
  if L.dead then
    from = extrapolate(P, L, D.extra)
  elseif L.from_live then
    from = state_sample(P, I, L.from, P.mpose[L.from.slot])
  else
    from = L.frozen
  end
  local to = state_sample(P, I, L.to, P.mpose[L.to.slot])
  local a = fade(L)
  local pair, pw = D.pair, D.pair_w
  pair[1], pair[2], pw[1], pw[2] = from, to, 1 - a, a
  P.blend(out, pair, pw)
  return out
end
M.pose_of = pose_of

--- Puts the pose of a layer after the first over `pose`: blended in with the layer's weight (under
-- its mask), or added (an additive layer). A layer of weight 0 is sampled only when it keeps a
-- history for inertialisation.
function M.apply(P, I, L, pose)
  local w = L.weight
  if not (w > 0 or L.last) then return end
  local D = L.p
  local lp
  local cur = L.cur
  if not L.trans and not D.synced and not cur.machine then -- (a state alone: pose_of's first case)
    lp = msample(P, I, cur.slot, cur.loop, D.out)
  else
    lp = pose_of(P, I, L, D.out)
  end
  if L.last then M.remember(P, L, lp) end
  if w <= 0 then return end
  if D.additive then
    P.add(pose, lp, w, D.mask)
  elseif D.masks then -- out = (1 - w m) out + w m layer, m the mask
    local three, tw = D.three, D.three_w
    three[1], three[2], three[3] = pose, pose, lp
    tw[1], tw[2], tw[3] = 1 - w, w, w
    P.blend(pose, three, tw, D.masks)
    three[1], three[2] = false, false -- (the plan keeps no caller's pose)
  else
    local pair, pw = D.pair, D.pair_w
    pair[1], pair[2], pw[1], pw[2] = pose, lp, 1 - w, w
    P.blend(pose, pair, pw)
    pair[1] = false
  end
end

--- The state that plays (the destination while a fade runs).
function playing(L)
  return L.trans and L.to or L.cur
end
M.playing = playing

--- Starts a sub-state machine again at its entry state, at normalised time `norm` (its state
-- entered anew); a travel waiting for it begins.
function restart(P, I, L, norm)
  L.cur, L.trans, L.from, L.to, L.from_live, L.dead = L.p.states[L.p.def.entry], nil, nil, nil, false, false
  L.entering, L.exited, L.route = true, false, nil
  state_set_norm(P, I, L.cur, norm)
  if L.pending then
    local names, i = L.pending, L.pending_i
    L.pending = nil
    M.travel(P, I, L, names, i)
  end
end

local each_of

-- calls walk(P, I, slot, weight, loop, fn, ctx) for what state `st` plays (a sub-state
-- machine's own states within it)
local function walk_state(P, I, st, scale, walk, fn, ctx)
  if st.machine then return each_of(P, I, inner(I, st), scale, walk, fn, ctx) end
  walk(P, I, st.slot, scale, st.loop, fn, ctx)
end

--- Calls `walk(P, I, slot, weight, loop, fn, ctx)` for what plays in the layer: the state, or
-- both sides of a fade with their weights (a still source has none).
function each_of(P, I, L, scale, walk, fn, ctx)
  local D = L.p
  if D.synced then
    local src = I.layers[D.src.id]
    if src.trans then
      local a = fade(src)
      if a < 1 then walk(P, I, D.side_from[src.from.name], scale * (1 - a), src.from.loop, fn, ctx) end
      walk(P, I, D.side_to[src.to.name], scale * a, src.to.loop, fn, ctx)
    else
      walk(P, I, D.side_to[src.cur.name], scale, src.cur.loop, fn, ctx)
    end
    return
  end
  if L.trans then
    local a = fade(L)
    if L.from_live and a < 1 then walk_state(P, I, L.from, scale * (1 - a), walk, fn, ctx) end
    walk_state(P, I, L.to, scale * a, walk, fn, ctx)
  else
    walk_state(P, I, L.cur, scale, walk, fn, ctx)
  end
end
M.each = each_of

--- Calls `fn(ctx, slot, weight, loop)` for the clip slots of the layer's base fade as root
-- motion follows them: the source (while live) with 1 - fade, the destination with the fade,
-- every clip of their trees, weight 0 too (sub-state machines are walked as `each` does).
function M.each_leaf(P, I, L, fn, ctx)
  local a = fade(L)
  if L.trans then
    if L.from_live then walk_state(P, I, L.from, 1 - a, Motion.each_leaf, fn, ctx) end
    walk_state(P, I, L.to, a, Motion.each_leaf, fn, ctx)
  else
    walk_state(P, I, L.cur, 1, Motion.each_leaf, fn, ctx)
  end
end

--- Travels to the state named names[i] (and, inside it, to names[i + 1] and on); raises for an
-- unknown state. Returns true when a path leads there.
function M.travel(P, I, L, names, i)
  local D = L.p
  local state = names[i]
  local target = D.states[state]
  if not target then error(("unknown state '%s' in layer '%s'"):format(tostring(state), D.name), 0) end
  local nxt = names[i + 1]
  if nxt and not target.machine then
    error(("state '%s' is not a sub-state machine"):format(state), 0)
  end
  local from = L.trans and L.to.name or L.cur.name
  local path, froms = Plan.route(L.p, from, state)
  local found = path ~= nil
  if path == nil then path, froms = { target.def.teleport }, { from } end
  if #path == 0 then L.route = nil else L.route, L.route_from, L.route_i = path, froms, 1 end
  if nxt then
    local IL = inner(I, target)
    if #path == 0 then
      found = M.travel(P, I, IL, names, i + 1) and found
    else -- once the sub-state machine starts again
      IL.pending, IL.pending_i = names, i + 1
    end
  end
  return found
end

--- Checks a travel's path of state names from layer L down (each a state, each but the last a
-- sub-state machine), changing nothing: nil, or the message of the first fault.
function M.check_travel(I, L, names)
  local at = L
  for i, name in ipairs(names) do
    local st = at.p.states[name]
    if not st then return ("unknown state '%s' in layer '%s'"):format(name, L.p.name) end
    if i < #names then
      if not st.machine then return ("state '%s' is not a sub-state machine"):format(name) end
      at = inner(I, st)
    end
  end
  return nil
end

-- the transition of `list` that fires now (conditions hold, exit time passed), or nil; the
-- state the list belongs to is `owner` (its normalised time for exit times; nil when frozen)
local function pick(I, st, owner, values, skip_to, any_exit)
  local list = st.transitions
  for i = 1, st.ntrans do
    local t = list[i]
    if t.to ~= skip_to and (t.nconds == 0 or conditions_hold(t, values)) then
      local e = t.exit_time
      if e == nil or any_exit or (owner and exit_reached(e, I.rec[5 * owner.slot - 4], owner.loop)) then return t end
    end
  end
  return nil
end

-- consumes the triggers a transition fired with
local function consume(I, t)
  local conds = t.conditions
  for i = 1, t.nconds do
    if conds[i].kind == "trigger" then I[conds[i].param] = false end
  end
end

-- ends the transition under way: the destination plays alone
local function finish(I, L, at)
  if L.from_live and L.from ~= L.to then push_named(I, L, L.from, "exit", 1, at) end
  L.cur, L.trans, L.from, L.to, L.from_live, L.dead = L.to, nil, nil, nil, false, false
end

-- starts transition t at `at` seconds into the update; `source` is the state whose list held it
local function start(P, I, L, t, source, at, travelling)
  if not travelling then consume(I, t) end
  if t.to == "exit" then -- a sub-state machine is done: its state's transitions in the layer above go on
    L.exited = true
    return
  end
  local D = L.p
  local dest = D.states[t.to]
  local duration = t.duration
  local values = I -- (the parameters' values are the instance's list)
  if t.inertialize and L.last then
    -- the source stops; its pose and velocity at this instant coast into the destination
    switch_inertial(P, L, pose_of(P, I, L, D.out), at)
    L.frozen_norm = L.trans and (L.from_live and I.rec[5 * L.from.slot - 4] or L.frozen_norm) or I.rec[5 * L.cur.slot - 4]
    if L.trans then
      if L.from_live and L.from ~= dest then push_named(I, L, L.from, "exit", 1, at) end
      if L.to ~= dest then push_named(I, L, L.to, "exit", 1, at) end
    elseif L.cur ~= dest then
      push_named(I, L, L.cur, "exit", 1, at)
    end
    L.from_live = false
  elseif L.trans then
    -- interrupted: fade from the pose of this instant (no pop), whatever it was made of
    P.copy(L.frozen, pose_of(P, I, L, D.out))
    L.frozen_norm = L.from_live and I.rec[5 * L.from.slot - 4] or L.frozen_norm
    if L.from_live and L.from ~= dest then push_named(I, L, L.from, "exit", 1, at) end
    if L.to ~= dest then push_named(I, L, L.to, "exit", 1, at) end
    L.from_live = false
  elseif L.cur == dest then
    -- to the playing state: fade from a still of its pose while it starts again
    state_sample(P, I, L.cur, L.frozen)
    L.frozen_norm = I.rec[5 * L.cur.slot - 4]
    L.from_live = false
  else
    L.from_live = true
  end
  if not t.fixed then -- in cycles of the source state
    local len, speed = state_length(P, I, source), abs(state_speed(source, values))
    duration = duration * (len > 0 and len or 1) / (speed > 0 and speed or 1)
    if duration > MAX_TIME then duration = MAX_TIME end
  end
  L.from, L.to, L.trans = source, dest, t
  L.elapsed, L.duration = 0, duration
  L.dead = t.inertialize and L.last ~= nil
  if L.dead then L.vel_decay = duration > 0 and 4 * math.log(2) / duration or 0 end
  weights_of_state(P, I, dest, values)
  state_set_norm(P, I, dest, t.offset)
  if I.rm then walk_state(P, I, dest, 0, Motion.each_leaf, RootMotion.forget, I) end
  I.rec[5 * dest.slot - 1] = true
  push_named(I, L, dest, "enter", 1, at)
  if duration <= 0 then finish(I, L, at) end
end

local update

-- advances one playing state by dt seconds from `at`; events with `side` (0 alone, 1 source, 2
-- destination of a fade)
local function play(P, I, L, state, dt, at, side)
  local s = state.slot
  local rec = I.rec
  local old = rec[5 * s - 4]
  local speed = state.speed_i and state_speed(state, I) or state.speed -- (a parameter's: held)
  local new, wrapped
  if state.machine then
    local IL, a = inner(I, state), abs(speed)
    -- its seconds run |speed| times as fast as the layer's, from `at` on
    local ts = L.ts or 1
    IL.t0 = (L.t0 or 0) + at * ts
    ts = a > 0 and ts / a or 0
    IL.ts = ts < MAX_TIME and ts or MAX_TIME
    update(P, I, IL, dt * a)
    new, wrapped = step(old, dt * state_rate(P, I, state) * speed)
    rec[5 * s - 4] = new
  else
    new, wrapped = advance(P, I, s, dt * speed)
  end
  if state.ntimed > 0 then -- the events crossed: weighed by the fade on its sides (0 alone, 1, 2)
    local e0, dur, curve = 0, 0, nil
    if side ~= 0 then e0, dur, curve = L.elapsed_start, L.duration, L.trans.curve end
    Events.crossed(P, I, state.events, state.nevents, state.loop, old, new + wrapped, at, dt, rec[5 * s - 1],
      side, e0, dur, curve, L.t0, L.ts, L.p.name, state.name)
  end
  rec[5 * s - 1] = false
end

-- the first exit-time transition of the playing state crossed within the next `dt` seconds,
-- with its time from now, or nil
local function next_exit(P, I, state, dt, values, only)
  if not (state.exit_times or only) then return nil end
  local speed = state_speed(state, values)
  if speed <= 0 then return nil end
  local r = state_rate(P, I, state) * speed
  local old = I.rec[5 * state.slot - 4]
  local fresh = I.rec[5 * state.slot - 1]
  local new = old + r * dt
  local best, best_at = nil, nil
  local list = state.transitions
  for i = 1, state.ntrans do
    local t = list[i]
    local e = t.exit_time
    if e ~= nil and (only == t or (only == nil and conditions_hold(t, values))) then
      local cross
      if state.loop and e < 1 then
        cross = floor(old - e) + 1 + e -- the next k + e above old
        if fresh and old - floor(old) == e then cross = old end
      elseif old < e or (fresh and old == e) then
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
local function interrupt(I, L)
  local how = L.trans.interruption
  if how == "none" then return nil end
  local values = I -- (the parameters' values are the instance's list)
  local src = L.from_live and L.from or nil
  local t, owner
  if how == "source" or how == "source_then_destination" then
    t = pick(I, L.from, src, values, L.to.name)
    owner = L.from
    if not t and how == "source_then_destination" then
      t, owner = pick(I, L.to, L.to, values, L.to.name), L.to
    end
  else
    t, owner = pick(I, L.to, L.to, values, L.to.name), L.to
    if not t and how == "destination_then_source" then
      t, owner = pick(I, L.from, src, values, L.to.name), L.from
    end
  end
  return t, owner
end

-- ---- travel -----------------------------------------------------------------------------------------

-- the next step of a travel, if the layer travels: starts it now when it has no exit time;
-- returns the transition whose exit time the state waits for, or nil
local function travel_step(P, I, L)
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
    start(P, I, L, t, L.cur, 0, true)
    return nil
  end
  return t
end

--- Advances the layer by dt seconds: transitions whose conditions hold now start first, then
-- time runs, and an exit time crossed within the step starts its transition at that instant.
-- While the layer travels, the route's transitions are taken instead.
function update(P, I, L, dt)
  if L.p.synced then
    M.mirror(P, I, L)
    return
  end
  local values = I -- (the parameters' values are the instance's list)
  if dt > MAX_TIME then dt = MAX_TIME end -- (a sub-state machine's seconds: dt times a speed)
  if L.last then L.since_start, L.since = L.since, min(L.since + dt, MAX_TIME) end
  if L.entering then
    L.entering = false
    I.rec[5 * L.cur.slot - 1] = true
    weights_of_state(P, I, L.cur, values)
    push_named(I, L, L.cur, "enter", 1, 0)
  end
  -- the weights of what plays, from the parameters of this update
  local waiting = nil
  if L.trans then
    if L.from_live then weights_of_state(P, I, L.from, values) end
    weights_of_state(P, I, L.to, values)
    if not L.route then
      local t, owner = interrupt(I, L)
      if t then start(P, I, L, t, owner, 0) end
    end
  else
    local cur = L.cur
    if P.mkind[cur.slot] == BLEND then weights_of(P, I, cur.slot, values) end
    if L.route then
      waiting = travel_step(P, I, L)
    else
      local t = nil
      if cur.ntrans > 0 then
        local held = cur.held
        if L.quiet == cur then -- none fired at the last check: none does while its inputs hold
          local memo = L.memo
          for k = 1, cur.nheld do
            if memo[k] ~= values[held[k]] then L.quiet = false; break end
          end
        end
        if L.quiet ~= cur then
          t = pick(I, cur, cur, values, nil)
          if not t and held then
            local memo = L.memo
            for k = 1, cur.nheld do memo[k] = values[held[k]] end
            L.quiet = cur
          end
        end
      end
      if not t and cur.machine and inner(I, cur).exited then -- its sub-state machine is done: exit times no longer wait
        t = pick(I, cur, nil, values, nil, true)
      end
      if t then start(P, I, L, t, cur, 0) end
    end
  end
  local at = 0
  if not L.trans then
    local t, t_at
    if L.route then
      if waiting then t, t_at = next_exit(P, I, L.cur, dt, values, waiting) end
    elseif L.cur.exit_times then
      t, t_at = next_exit(P, I, L.cur, dt, values)
    end
    if t then
      play(P, I, L, L.cur, t_at, 0, 0)
      at = t_at
      if waiting then L.route_i = L.route_i + 1 end
      start(P, I, L, t, L.cur, at, waiting ~= nil)
    else
      play(P, I, L, L.cur, dt, 0, 0)
      return
    end
  end
  if L.trans then
    local rest = dt - at
    L.elapsed_start = L.elapsed
    if L.from_live then play(P, I, L, L.from, rest, at, 1) end
    play(P, I, L, L.to, rest, at, 2)
    L.elapsed = L.elapsed + rest
    if L.elapsed >= L.duration then finish(I, L, at + rest - min(rest, L.elapsed - L.duration)) end
  else
    -- the transition ended at once (duration 0): the destination plays the rest
    play(P, I, L, L.cur, dt - at, at, 0)
  end
end
M.update = update

-- ---- what the animator reads and sets -----------------------------------------------------------------

--- The layer's weight.
function M.weight(L) return L.weight end

--- Sets the layer's weight (checked by the caller).
function M.set_weight(L, w) L.weight = w end

--- The state of the layer for `anim:state`: the playing state's name and normalised time, and
-- during a transition the destination's name and the progress (a synced layer: the other's).
function M.state(I, L)
  local D = L.p
  if D.synced then L = I.layers[D.src.id] end
  if L.trans then
    return L.from.name, L.from_live and I.rec[5 * L.from.slot - 4] or L.frozen_norm, L.to.name,
      L.duration > 0 and min(1, L.elapsed / L.duration) or 1
  end
  return L.cur.name, I.rec[5 * L.cur.slot - 4]
end

--- The weight (0 .. 1) of the states in `set` (name -> true) in the layer now: the playing
-- state's 1, during a fade the source's 1 - fade and the destination's fade (a synced layer: the
-- other's states).
function M.share(I, L, set)
  if L.p.synced then L = I.layers[L.p.src.id] end
  if not L.trans then return set[L.cur.name] and 1 or 0 end
  local f = fade(L)
  return (set[L.from.name] and 1 - f or 0) + (set[L.to.name] and f or 0)
end

--- Whether the layer follows another (a synced layer).
function M.synced(L) return L.p.synced == true end

--- The name of the layer.
function M.name(L) return L.p.name end

-- ---- snapshots --------------------------------------------------------------------------------------
-- What a snapshot holds of a layer (sinew.animator.snapshot reads and checks it; `put` writes a
-- checked plan only).

--- The layer's run-time state as a plain table: `motion(slot)` gives a state's motion's table;
-- `pose(p)` a pose's numbers.
function M.take(I, L, motion, pose)
  if L.p.synced then return { weight = L.weight } end -- the rest follows the other layer
  local l = { weight = L.weight, entering = L.entering, exited = L.exited == true, states = {} }
  for name, st in each, L.p.states do
    l.states[name] = { fresh = I.rec[5 * st.slot - 1] == true, motion = motion(st) }
  end
  if L.trans then
    l.transition = { index = L.trans.index, from = L.from.name, to = L.to.name, from_live = L.from_live,
      elapsed = L.elapsed, duration = L.duration }
    if not L.from_live then
      l.transition.still = pose(L.frozen)
      l.transition.still_time = L.frozen_norm
    end
    if L.dead then
      l.transition.velocity, l.transition.velocity_time = pose(L.vel), L.vel_h
      l.transition.velocity_decay = L.vel_decay
    end
  else
    l.state = L.cur.name
  end
  if L.last then
    l.history = { last = pose(L.last), before = pose(L.last2), gap = L.last_h, since = L.since,
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

--- Whether the layer keeps a still pose (to fade from) and an inertialisation history.
function M.keeps(L) return L.frozen ~= nil, L.last ~= nil end

--- Writes a checked snapshot plan `p` of the layer (sinew.animator.snapshot made and checked it;
-- `put_pose(ctx, pose, numbers)` writes a pose). Allocates nothing.
function M.put(I, L, p, put_pose, ctx)
  L.weight = p.weight
  local D = L.p
  if D.synced then return end
  L.entering, L.exited = p.entering, p.exited
  for name, st in each, D.states do I.rec[5 * st.slot - 1] = p.states[name].fresh end
  if p.trans then
    L.trans, L.from, L.to, L.from_live = p.trans, D.states[p.from], D.states[p.to], p.from_live
    L.elapsed, L.duration = p.elapsed, p.duration
    L.cur = L.from
    if not p.from_live then
      put_pose(ctx, L.frozen, p.still)
      L.frozen_norm = p.still_time
    end
    L.dead = p.trans.inertialize and L.last ~= nil
    if L.dead then
      put_pose(ctx, L.vel, p.velocity)
      L.vel_h, L.vel_decay = p.velocity_time, p.velocity_decay
    end
  else
    L.trans, L.from, L.to, L.from_live, L.dead = nil, nil, nil, false, false
    L.cur = D.states[p.state]
  end
  if L.last then
    put_pose(ctx, L.last, p.last)
    put_pose(ctx, L.last2, p.before)
    L.last_h, L.since, L.since_start, L.have_last = p.gap, p.since, p.since_start, p.count
  end
  if p.route and #p.route > 0 then
    L.route, L.route_from, L.route_i = p.route, p.route_from, 1
  else
    L.route = nil
  end
  L.pending = (p.pending and #p.pending > 0) and p.pending or nil
  L.pending_i = 1
  L.quiet = false
end

return M
