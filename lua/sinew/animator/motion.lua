--- Motions of the animator as they play: a clip or a blend node in one place of the plan (a
-- "slot"), with its normalised time, its children's weights (from their blend space and the
-- parameters) and its own cursor into its clip. What changes lives in the instance's record
-- list `I.rec`, five entries per slot s from 5 s - 4: the normalised time, (a blend node) what
-- its weights were last computed from (a cache, below), the root-motion time (a clip) or the
-- list of its children's rates (a blend node),
-- whether it starts fresh (its state just entered), and its cursor (a clip) or the list of its
-- children's weights (a blend node). Kept together, what one slot's update reads lies in one or
-- two cache lines, and a crowd's animators touch few;
-- what does not (the definitions, the tree, the poses one evaluation samples into) lives in the
-- plan `P` (sinew.animator.plan). Every per-joint step is a call of the pose kind (sample,
-- blend, delta); what is here is bookkeeping on a few numbers per node, with no garbage.
--
-- Sub-state machines are no motions of this module: a state that plays one is the layer's
-- business (sinew.animator.layer), and a blend node's children are clips and blend nodes only.
-- @module sinew.animator.motion
local M = {}

local unpack = table.unpack or unpack

-- slot kinds (P.mkind[s])
M.CLIP, M.BLEND, M.MACHINE = 1, 2, 3
local CLIP, BLEND = M.CLIP, M.BLEND

-- ---- limits ------------------------------------------------------------------------------------------
-- Every time of the run time stays finite by construction: what could grow without bound is
-- clamped or wrapped here (manual/animator.md, Limits).

--- Seconds: an update's dt beyond it counts as this (11.6 days).
M.MAX_DT = 1e6
--- A state's speed (its speed times its parameter) is held within -MAX_SPEED .. MAX_SPEED.
M.MAX_SPEED = 1e12
--- Seconds: cycle lengths, fade durations and the time a layer counts since its last evaluate
-- are held at most at this (about 31,700 years).
M.MAX_TIME = 1e12
--- Loops per second: a motion's normalised time runs at most this fast.
M.MAX_RATE = 1e12
--- Loops: the most that one update moves a normalised time.
M.MAX_STEP = 2 ^ 40
--- A normalised time stays within -WRAP .. WRAP loops: one that leaves it is moved back by a
-- whole number of WRAP / 2 loops (its phase, the exit times it has reached and the events it
-- crossed stay what they were).
M.WRAP = 2 ^ 24
--- The least rate of a blend node's child (as the definition allows it).
M.MIN_CHILD_RATE = 1e-6
--- The greatest rate of a blend node's child (as the definition allows it).
M.MAX_CHILD_RATE = 1e6
--- A direct node's weights are scaled down together when the largest passes this.
M.MAX_WEIGHT = 1e6

--- A parameter that multiplies a state's speed or is an input of a direct blend node takes
-- values from -MAX_INPUT to MAX_INPUT.
M.MAX_INPUT = 1e6

--- The message for value `v` of parameter `name` when `limited[name]` (what the parameter does,
-- for the message) says it is limited and `v` is out of range; else nil.
function M.out_of_range(limited, name, v)
  local what = limited[name]
  if what and (v > M.MAX_INPUT or v < -M.MAX_INPUT) then
    return ("%s is out of range (-1e6 .. 1e6): parameter '%s' %s"):format(
      v ~= v and "nan" or ("%g"):format(v), tostring(name), what)
  end
  return nil
end

local MAX_STEP, WRAP, HALF, MAX_RATE, MAX_TIME = M.MAX_STEP, M.WRAP, M.WRAP / 2, M.MAX_RATE, M.MAX_TIME
local MIN_CHILD_RATE, MAX_CHILD_RATE, MAX_WEIGHT = M.MIN_CHILD_RATE, M.MAX_CHILD_RATE, M.MAX_WEIGHT

--- The normalised time `norm` moved by `d` loops: `d` clamped to MAX_STEP (NaN counts as 0),
-- the result wrapped into -WRAP .. WRAP. Returns the new time and the loops the wrap took off
-- (the unwrapped time is their sum, exactly).
local function step(norm, d)
  if not (d >= -MAX_STEP and d <= MAX_STEP) then
    if d > 0 then d = MAX_STEP elseif d < 0 then d = -MAX_STEP else d = 0 end
  end
  local x = norm + d
  if x < WRAP and x > -WRAP then return x, 0 end
  local y
  if x > 0 then y = x % HALF + HALF else y = x % HALF - WRAP end -- exact: HALF is a power of 2
  return y, x - y
end
M.step = step

-- a rate held within 0 .. MAX_RATE (NaN counts as 0)
local function held_rate(r)
  if r > MAX_RATE then return MAX_RATE end
  if r >= 0 then return r end
  return 0
end
M.held_rate = held_rate

-- a length held within 0 .. MAX_TIME
local function held_length(l)
  if l > MAX_TIME then return MAX_TIME end
  if l >= 0 then return l end
  return 0
end

-- ---- an instance's arrays --------------------------------------------------------------------------------

--- Fills instance I's arrays for the clip and blend slots of plan P: times 0, weights 0, rates 1,
-- a cursor per clip slot (its own place in the shared clip).
function M.init(P, I)
  local rec = I.rec
  for s = 1, P.slots do
    local b = 5 * s - 5
    rec[b + 1], rec[b + 2], rec[b + 3], rec[b + 4], rec[b + 5] = 0, 0, false, false, false
    local kind = P.mkind[s]
    if kind == CLIP then
      rec[b + 3], rec[b + 5] = 0, P.mclip[s]:cursor()
    elseif kind == BLEND then
      local u, r, memo = {}, {}, {}
      for k = 1, P.mnk[s] do u[k], r[k] = 0, 1 end
      for i = 1, P.mnp[s] + 1 do memo[i] = false end
      rec[b + 2], rec[b + 3], rec[b + 5] = memo, r, u
    end
  end
end

-- ---- weights ---------------------------------------------------------------------------------------------

local weights_of -- (recursive)

--- Sets the weights and rates of blend slot `s`'s children (and of the nested nodes) from the
-- parameter values (`values[i]` of the parameter numbered i: the instance).
function weights_of(P, I, s, values)
  local rec = I.rec
  local params = P.mparams[s] -- parameter indices
  local np = P.mnp[s]
  -- the weights are a function of the parameters: a node (without nested nodes, whose own
  -- parameters may have changed) whose parameters are those of the last computation keeps them
  -- (`memo`: those values, then the node's rate found since, or false)
  local memo = rec[5 * s - 3]
  local same = not P.mnested[s]
  for i = 1, np do
    local v = values[params[i]]
    if memo[i] ~= v then same = false; memo[i] = v end
  end
  if same then return end
  memo[np + 1] = false
  local uw, rates = rec[5 * s], rec[5 * s - 2]
  -- a node whose children are all different motions has the space's weights as its children's:
  -- the space fills them in place
  local ident = P.mident[s]
  local w = ident and uw or P.wtmp -- (the plan's scratch: read here only)
  local space = P.mspace[s]
  if np == 1 then space:weights(values[params[1]], w)
  elseif np == 2 then space:weights(values[params[1]], values[params[2]], w)
  else -- the inputs, then the table to fill, passed from one list (no garbage)
    local inputs = P.inputs
    for i = 1, np do inputs[i] = values[params[i]] end
    inputs[np + 1] = w
    space:weights(unpack(inputs, 1, np + 1))
  end
  local nc = P.mnc[s]
  if P.mdirect[s] then -- its weights are its inputs: the largest held at MAX_WEIGHT
    local most = 0
    for i = 1, nc do if w[i] > most then most = w[i] end end
    if most > MAX_WEIGHT then
      local f = MAX_WEIGHT / most
      for i = 1, nc do w[i] = w[i] * f end
    end
  end
  local crates, nk = P.mrates[s], P.mnk[s]
  if ident then -- each child's rate is its own (1 when it does not play)
    for k = 1, nk do
      if uw[k] > 0 then rates[k] = crates[k] else rates[k] = 1 end
    end
  else -- children playing the same clip: their weights summed, their rates averaged by weight
    local unique_of = P.mdef[s].unique_of
    for k = 1, nk do uw[k], rates[k] = 0, 0 end
    for i = 1, nc do
      local k = unique_of[i]
      uw[k] = uw[k] + w[i]
      rates[k] = rates[k] + w[i] * crates[i]
    end
    for k = 1, nk do
      local u, r = uw[k], 1
      if u > 0 then
        r = rates[k] / u -- a weighted mean of the children's rates, held in their range
        if r < MIN_CHILD_RATE then r = MIN_CHILD_RATE elseif r > MAX_CHILD_RATE then r = MAX_CHILD_RATE end
      end
      rates[k] = r
    end
  end
  if P.mnested[s] then
    local kids, kinds = P.mkids[s], P.mkind
    for k = 1, nk do
      if kinds[kids[k]] == BLEND then weights_of(P, I, kids[k], values) end
    end
  end
end
M.weights_of = weights_of

-- the index k (from 1) of the heaviest of blend slot s's children (the first of equals)
local function heaviest(P, I, s)
  local uw = I.rec[5 * s]
  local best, bw = 1, -1
  for k = 1, P.mnk[s] do
    local u = uw[k]
    if u > bw then best, bw = k, u end
  end
  return best
end

--- The cycle length of clip or blend slot `s` in seconds (its weights set): a clip's duration; a
-- synced node's weighted mean of its children's lengths over their rates; otherwise its
-- heaviest child's. A length of 0 (still poses) counts as 1 s for normalised time. At most
-- MAX_TIME.
local function length(P, I, s)
  if P.mkind[s] == CLIP then return P.mdur[s] end
  local rec, kids = I.rec, P.mkids[s]
  local uw, rates = rec[5 * s], rec[5 * s - 2]
  if P.msync[s] == true then
    local sum, total = 0, 0
    for k = 1, P.mnk[s] do
      local u = uw[k]
      if u > 0 then
        local kid = kids[k]
        sum = sum + u * (P.mkind[kid] == CLIP and P.mdur[kid] or length(P, I, kid)) / rates[k]
        total = total + u
      end
    end
    if total > 0 then return held_length(sum / total) end
    return 0
  end
  local best = heaviest(P, I, s)
  return held_length(length(P, I, kids[best]) / rates[best])
end
M.length = length

--- How fast the normalised time of clip or blend slot `s` runs: its change per second (weights
-- set), 0 .. MAX_RATE.
local function rate(P, I, s)
  if P.mkind[s] == CLIP then return P.mrate[s] end
  local sync = P.msync[s]
  if sync == true then
    local memo = I.rec[5 * s - 3]
    local np = P.mnp[s]
    local r = memo[np + 1] -- (found since the weights were: they alone change it)
    if r then return r end
    local len = length(P, I, s)
    r = len > 0 and held_rate(1 / len) or 1
    if not P.mnested[s] then memo[np + 1] = r end
    return r
  end
  local best = heaviest(P, I, s)
  local kid, r = P.mkids[s][best], I.rec[5 * s - 2][best]
  if sync == "leader" then
    local len = length(P, I, kid) / r
    return len > 0 and held_rate(1 / len) or 1
  end
  return held_rate(r * rate(P, I, kid))
end
M.rate = rate

-- ---- time --------------------------------------------------------------------------------------------

-- a clip's root-motion time (its clip time at the last update, seconds) moves with a wrap of its
-- normalised time, held within -2 WRAP .. 2 WRAP loops: root motion sets it again at each update
-- of a clip it follows (a step of more than 2^24 loops gives it the most loops it chains), and the
-- clips it does not follow keep it in range
local function unwrap_root(P, I, s, wrapped)
  local rec = I.rec
  local rb = rec[5 * s - 2]
  if not rb then return end
  local d = P.mdur[s]
  rb = rb - wrapped * d
  local lim = 2 * WRAP * d
  if rb > lim then rb = lim elseif rb < -lim then rb = -lim end
  rec[5 * s - 2] = rb
end

--- Sets the normalised time of clip or blend slot `s` and of every descendant (synced children
-- share it); `wrapped` (or nil) is the loops a wrap took off, which a clip's root-motion time
-- loses too.
local function set_norm(P, I, s, norm, wrapped)
  I.rec[5 * s - 4] = norm
  if P.mkind[s] == CLIP then
    if wrapped and wrapped ~= 0 then unwrap_root(P, I, s, wrapped) end
    return
  end
  local kids, kinds, rec = P.mkids[s], P.mkind, I.rec
  for k = 1, P.mnk[s] do
    local kid = kids[k]
    if kinds[kid] == CLIP and not (wrapped and wrapped ~= 0) then
      rec[5 * kid - 4] = norm
    else
      set_norm(P, I, kid, norm, wrapped)
    end
  end
end
M.set_norm = set_norm

--- Advances clip or blend slot `s` by `dt` seconds (its weights set; see `step`). Returns its new
-- normalised time and the loops a wrap took off.
local function advance(P, I, s, dt)
  if P.mkind[s] == CLIP then
    local rec = I.rec
    local d = P.mrate[s] * dt
    local norm, wrapped = rec[5 * s - 4] + d, 0
    if not (norm < WRAP and norm > -WRAP and d >= -MAX_STEP and d <= MAX_STEP) then
      norm, wrapped = step(rec[5 * s - 4], d)
      if wrapped ~= 0 then unwrap_root(P, I, s, wrapped) end
    end
    rec[5 * s - 4] = norm
    return norm, wrapped
  end
  if P.msync[s] then -- the node's clock drives its children's
    local rec = I.rec
    local r = P.msync[s] == true and rec[5 * s - 3][P.mnp[s] + 1] or rate(P, I, s) -- (rate's cache, read here)
    local old, d = rec[5 * s - 4], r * dt
    local norm = old + d
    if norm < WRAP and norm > -WRAP and d >= -MAX_STEP and d <= MAX_STEP then
      -- (set_norm without a wrap, written out for children that are clips)
      local kids, kinds = P.mkids[s], P.mkind
      rec[5 * s - 4] = norm
      for k = 1, P.mnk[s] do
        local kid = kids[k]
        if kinds[kid] == CLIP then rec[5 * kid - 4] = norm else set_norm(P, I, kid, norm, 0) end
      end
      return norm, 0
    end
    local wrapped
    norm, wrapped = step(old, d)
    set_norm(P, I, s, norm, wrapped)
    return norm, wrapped
  end
  local rates, kids = I.rec[5 * s - 2], P.mkids[s]
  local best = heaviest(P, I, s)
  local norm, wrapped = 0, 0
  for k = 1, P.mnk[s] do
    local n, w = advance(P, I, kids[k], dt * rates[k])
    if k == best then norm, wrapped = n, w end
  end
  I.rec[5 * s - 4] = norm
  return norm, wrapped
end
M.advance = advance

-- the clip time of clip slot `s`: its normalised time in seconds, held within the clip when it
-- does not loop
local function clip_time(P, I, s, loop)
  local norm = I.rec[5 * s - 4]
  if not loop then
    if norm > 1 then norm = 1 elseif norm < 0 then norm = 0 end
  end
  return norm * P.mdur[s]
end
M.clip_time = clip_time

-- ---- poses ---------------------------------------------------------------------------------------------

--- Samples clip or blend slot `s` at its normalised time (looping, or clamped to [0, 1]) into
-- `out` (a pose of the plan's skeleton: the caller's, or the slot's own scratch pose in the
-- plan) and returns it. Children of weight 0 are not sampled.
local function sample(P, I, s, loop, out)
  if P.mkind[s] == CLIP then
    I.rec[5 * s]:sample(clip_time(P, I, s, loop), out, loop)
    local ref = P.mref[s]
    if ref then P.delta(out, out, ref) end
    return out
  end
  local kids, uw, poses = P.mkids[s], I.rec[5 * s], P.mposes[s]
  for k = 1, P.mnk[s] do
    if uw[k] > 0 then sample(P, I, kids[k], loop, poses[k]) end
  end
  P.blend(out, poses, uw, nil, nil, P.mrot[s])
  return out
end
M.sample = sample

--- Calls `fn(ctx, clip, weight, clip_time)` for every clip that plays with a weight above 0,
-- `weight` scaled down the tree from `scale`.
local function each_clip(P, I, s, scale, loop, fn, ctx)
  if P.mkind[s] == CLIP then
    local clip = P.mclip[s]
    fn(ctx, clip, scale, clip:local_time(clip_time(P, I, s, loop), loop))
    return
  end
  local kids, uw = P.mkids[s], I.rec[5 * s]
  for k = 1, P.mnk[s] do
    if uw[k] > 0 then each_clip(P, I, kids[k], scale * uw[k], loop, fn, ctx) end
  end
end
M.each_clip = each_clip

--- Calls `fn(ctx, slot, weight, loop)` for every clip slot of the tree, those of weight 0 too,
-- `weight` scaled down the tree from `scale`.
local function each_leaf(P, I, s, scale, loop, fn, ctx)
  if P.mkind[s] == CLIP then
    fn(ctx, s, scale, loop)
    return
  end
  local kids, uw = P.mkids[s], I.rec[5 * s]
  for k = 1, P.mnk[s] do each_leaf(P, I, kids[k], scale * uw[k], loop, fn, ctx) end
end
M.each_leaf = each_leaf

-- ---- snapshots --------------------------------------------------------------------------------------

local function list_of(t)
  local out = {}
  for i = 1, #t do out[i] = t[i] end
  return out
end

--- What slot `s` of instance I keeps, for a snapshot: its normalised time, its root-motion time
-- (a clip), and for a blend node copies of its children's weights and rates.
function M.take(P, I, s)
  local kind = P.mkind[s]
  local rec, b = I.rec, 5 * s - 5
  local root = kind == CLIP and rec[b + 3] or nil
  if kind == BLEND then return rec[b + 1], root, list_of(rec[b + 5]), list_of(rec[b + 3]) end
  return rec[b + 1], root
end

--- Writes what `take` gave (checked by the caller) into slot `s`. Allocates nothing.
function M.put(P, I, s, norm, root, uw, rates)
  local rec, b = I.rec, 5 * s - 5
  rec[b + 1] = norm
  local kind = P.mkind[s]
  if kind == CLIP then rec[b + 3] = root or false end
  if kind == BLEND then
    local u, r, memo = rec[b + 5], rec[b + 3], rec[b + 2]
    for k = 1, #u do u[k], r[k] = uw[k], rates[k] end
    for i = 1, #memo do memo[i] = false end -- (computed again at the next update)
  end
end

return M
