--- The animator's plan: a compiled definition laid out for playing, made once and shared by every
-- instance (`sinew.animator.compile(def, resources)`, then `plan:new()`). It numbers what an
-- instance keeps state for, and holds everything that does not change while they play:
--
-- - parameters by index (names, kinds, defaults, which are smoothed and which are limited);
-- - "slots": each place a clip or a blend node plays (a node used in two states has two slots,
--   as it plays at two times), numbered from 1, with its definition, children, clip, duration, its
--   additive reference and the scratch pose it is sampled into;
-- - "layer machines": each top layer and each place a sub-state machine plays, numbered from 1
--   (the top layers first), with its states (each with the slot of its motion), masks and the
--   scratch poses of a fade;
-- - the scratch one update or evaluation uses (blend weights, event crossings, the spare event
--   lists of a sort), and the pose kind's functions.
--
-- An instance (sinew.animator.instance) holds only what changes, in arrays indexed by these numbers.
-- One update or evaluation at a time uses the scratch: `P.busy` says which (an instance of the plan
-- called from a finaliser meanwhile is refused).
-- @module sinew.animator.plan
local Motion = require "sinew.animator.motion"
local PoseKind = require "sinew.animator.pose_kind"

local M = {}

local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

local CLIP, BLEND, MACHINE = Motion.CLIP, Motion.BLEND, Motion.MACHINE

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

-- ---- parameters ------------------------------------------------------------------------------------------

-- numbers the parameters (by name, so that the order is the same in every run) and gives every
-- condition, speed parameter and blend node of the compiled definition the indices it reads
local function parameters(P, compiled)
  local names = {}
  for name in each, compiled.params do names[#names + 1] = name end
  table.sort(names)
  P.names, P.index, P.kinds, P.defaults, P.smooth, P.smooth_time, P.smoothed = names, {}, {}, {}, {}, {}, {}
  for i, name in ipairs(names) do
    local p = compiled.params[name]
    P.index[name], P.kinds[i], P.defaults[i] = i, p.kind, p.value
    if p.smoothing then
      P.smoothed[i] = true
      P.smooth[#P.smooth + 1] = i
      P.smooth_time[#P.smooth] = p.smoothing
    end
  end
  P.limited = limited_parameters(compiled)
end

-- the transitions of `list`: their conditions' parameter indices and counts
local function conditions(P, list)
  for _, t in ipairs(list) do
    for _, c in ipairs(t.conditions) do c.param = P.index[c.name] end
    t.nconds = #t.conditions
  end
end

-- ---- slots and layer machines -------------------------------------------------------------------------

local slot

-- a layer machine for `def` (a compiled layer or sub-state machine) numbered `id` (a top layer's
-- index; a sub-state machine's after all the layers); `refs` the additive references of its
-- layer (clip -> pose) or nil
local function machine(P, def, refs, id)
  id = id or #P.machines + 1
  local D = { id = id, def = def, name = def.name, states = {}, out = P.kind.pose(P.skel),
    pair = { false, false }, pair_w = { 0, 0 } }
  P.machines[id] = D
  if def.synced then
    -- a layer synced to another: its own motions, two slots per state (the two sides of a fade),
    -- played at the other layer's times
    D.synced, D.side_to, D.side_from = true, {}, {}
    for name, m in each, def.motions do
      D.side_to[name] = slot(P, m, refs)
      D.side_from[name] = slot(P, m, refs)
    end
  else
    conditions(P, def.transitions)
    for name, s in each, def.states do
      local st = { def = s, name = name, speed_i = s.speed_parameter and P.index[s.speed_parameter],
        ntrans = #s.transitions, nevents = #s.events, ntimed = 0,
        -- (the definition's fields the run time reads every frame, one table nearer)
        speed = s.speed, loop = s.loop, events = s.events, transitions = s.transitions, exit_times = s.exit_times }
      for _, e in ipairs(s.events) do
        if type(e.at) == "number" then st.ntimed = st.ntimed + 1 end
      end
      s.teleport.nconds = 0
      st.slot = slot(P, s.motion, refs)
      if s.motion.kind == "machine" then st.machine = P.machines[P.mlayer[st.slot]] end
      D.states[name] = st
    end
    for _, st in each, D.states do conditions(P, st.def.transitions) end
    -- what checking a state's transitions reads: the parameters of their conditions (the check
    -- gives the same answer while they keep their values), or false where one waits for an
    -- exit time or the state plays a sub-state machine (the answer then moves with time)
    local most = 0
    for _, st in each, D.states do
      local held, seen = {}, {}
      for _, t in ipairs(st.transitions) do
        if t.exit_time or st.machine then held = false; break end
        for _, c in ipairs(t.conditions) do
          if not seen[c.param] then seen[c.param], held[#held + 1] = true, c.param end
        end
      end
      st.held, st.nheld = held, held and #held or 0
      if st.nheld > most then most = st.nheld end
    end
    D.most_held = most
    -- what a layer of this machine must keep: a still to fade from (interruptions, a transition
    -- into the playing state, inertialisation) and the history of an inertialised switch
    for _, t in ipairs(def.transitions) do
      if t.interruption ~= "none" or t.can_self or t.inertialize then D.stills = true end
    end
    D.inertial = def.inertial
    if D.inertial then D.extra = P.kind.pose(P.skel) end -- the extrapolated source of a switch
  end
  D.additive, D.mask = def.mode == "additive", def.mask
  if def.mask then
    local comp = P.kind.complement(P.skel, def.mask)
    D.masks = { false, comp, def.mask }
    D.three, D.three_w = { false, false, false }, { 0, 0, 0 }
  end
  return id
end

-- a slot for motion `m` (a compiled clip, blend node or sub-state machine)
function slot(P, m, refs)
  local s = P.slots + 1
  P.slots = s
  P.mdef[s], P.mpose[s], P.mref[s] = m, P.kind.pose(P.skel), false
  if m.kind == "clip" then
    P.mkind[s], P.mclip[s], P.mdur[s] = CLIP, m.clip, m.duration
    P.mrate[s] = m.duration > 0 and Motion.held_rate(1 / m.duration) or 1 -- (loops per second)
    if refs then P.mref[s] = refs[m.clip] end
    P.clip_slots[#P.clip_slots + 1] = s
  elseif m.kind == "blend" then
    P.mkind[s], P.mdur[s] = BLEND, 0
    local params = {}
    for i, name in ipairs(m.params) do params[i] = P.index[name] end
    P.mparams[s] = params
    local kids, poses = {}, {}
    P.mkids[s], P.mposes[s] = kids, poses
    P.mnk[s], P.mnc[s], P.mnp[s], P.msync[s] = #m.unique, #m.children, #params, m.sync
    P.mrot[s] = m.rotation ~= "nlerp" and m.rotation or nil -- (the default: passed as none)
    P.mspace[s], P.mdirect[s], P.mident[s], P.mnested[s] = m.space, m.mode == "direct", #m.unique == #m.children, false
    local crates = {}
    for i, c in ipairs(m.children) do crates[i] = c.rate end
    P.mrates[s] = crates
    for k, u in ipairs(m.unique) do
      kids[k] = slot(P, u.motion, refs)
      poses[k] = P.mpose[kids[k]]
      if u.motion.kind == "blend" then P.mnested[s] = true end
    end
    P.blend_slots[#P.blend_slots + 1] = s
    if #m.children > P.most_points then P.most_points = #m.children end
  else
    P.mkind[s], P.mdur[s] = MACHINE, 0
    P.mlayer[s] = machine(P, m, refs)
  end
  return s
end

-- the additive references of each layer: the first frame of every clip it plays (made once per
-- clip), or its reference pose
local function references(P, ldef, frames)
  if ldef.mode ~= "additive" then return nil end
  local refs = {}
  for clip in each, P.def.clips do
    if ldef.reference then
      refs[clip] = ldef.reference
    else
      local f = frames[clip]
      if not f then
        f = P.kind.pose(P.skel)
        clip:sample(0, f, false)
        frames[clip] = f
      end
      refs[clip] = f
    end
  end
  return refs
end

--- The plan of a compiled definition (sinew.animator.definition's `compile`).
function M.build(compiled)
  local kind = PoseKind.of(compiled.skeleton)
  local P = { def = compiled, skel = compiled.skeleton, kind = kind, joints = kind.joints(compiled.skeleton),
    blend = kind.blend, delta = kind.delta, add = kind.add, copy = kind.copy,
    slots = 0, mkind = {}, mdef = {}, mkids = {}, mposes = {}, mpose = {}, mref = {}, mclip = {}, mdur = {},
    mparams = {}, mlayer = {}, mrate = {},
    mspace = {}, mdirect = {}, mident = {}, mnested = {}, mrates = {}, mnk = {}, mnc = {}, mnp = {}, msync = {}, mrot = {},
    clip_slots = {}, blend_slots = {}, most_points = 0,
    machines = {}, layer_index = compiled.layer_index, clip_names = compiled.clip_names,
    wtmp = {}, inputs = {}, kmins = {}, kmaxs = {}, busy = false,
    ev_spare = { {}, {}, {}, {}, {} }, ev_cols = { false, false, false, false, false },
    root_motion = compiled.root_motion, root_ends = {} }
  parameters(P, compiled)
  -- the top layers are machines 1 .. n, their sub-state machines after them
  local n = #compiled.layers
  P.layers = n
  for i = 1, n do P.machines[i] = false end
  local frames = {}
  for i = 1, n do
    local ldef = compiled.layers[i]
    local D = P.machines[machine(P, ldef, references(P, ldef, frames), i)]
    D.index = i
    if ldef.synced then D.src = P.machines[ldef.synced] end
  end
  for i = 1, P.most_points + 1 do P.wtmp[i], P.inputs[i] = 0, 0 end
  return P
end

--- The transitions of layer machine D that lead from state `from` to state `to` in the fewest
-- steps (for a travel), conditions ignored (breadth first; the transition written first wins a
-- tie), with the state each is taken from; nil when no path leads there.
function M.route(D, from, to)
  local states = D.states
  local prev, via, queue, head = { [from] = false }, {}, { from }, 1
  while queue[head] and prev[to] == nil do
    local name = queue[head]
    head = head + 1
    local list = states[name].def.transitions
    for i = 1, #list do
      local t = list[i]
      if prev[t.to] == nil and states[t.to] then -- ('exit' of a sub-state machine is no state)
        prev[t.to], via[t.to] = name, t
        queue[#queue + 1] = t.to
      end
    end
  end
  if prev[to] == nil then return nil end
  local back, at = {}, to
  while at ~= from do
    back[#back + 1] = at
    at = prev[at]
  end
  local path, froms = {}, {}
  for k = #back, 1, -1 do
    path[#path + 1] = via[back[k]]
    froms[#froms + 1] = prev[back[k]]
  end
  return path, froms
end

return M
