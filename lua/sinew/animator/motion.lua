--- Motion instances of the animator: a clip or a blend node as it plays in one state, with its
-- normalised time, its children's weights (from their blend space and the parameters) and a
-- pose to sample into. Every per-joint step is a C-core call (`clip:sample`, `sinew.blend`,
-- `sinew.delta`); what is here is bookkeeping on a few numbers per node, with no garbage.
-- @module sinew.animator.motion
local core = require "sinew.core"

local M = {}

local blend, delta = core.blend, core.delta
local unpack = table.unpack or unpack

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

-- a length held within 0 .. MAX_TIME
local function held_length(l)
  if l > MAX_TIME then return MAX_TIME end
  if l >= 0 then return l end
  return 0
end

--- A new instance of motion definition `def`: `additive` clips give their difference from
-- `refs[clip]` (their first frame, or the layer's reference pose).
function M.new(def, skeleton, refs)
  local inst = { def = def, norm = 0, weight = 0, pose = core.pose(skeleton), refs = refs }
  if def.kind == "machine" then -- a sub-state machine: a layer's state machine inside a state
    inst.layer = M.Layer.new(def, skeleton, refs)
    return inst
  end
  if def.kind == "clip" then
    inst.rm_before = 0 -- the clip time root motion last saw
    inst.cursor = def.clip:cursor() -- this playback's own place in the (shared) clip
  end
  if def.kind == "blend" then
    local n, u = #def.children, #def.unique
    inst.weights = {}     -- of the blend space's points
    inst.uw = {}          -- of the unique children
    inst.rates = {}       -- their weight-averaged rates
    inst.kids, inst.poses = {}, {}
    for i = 1, n do inst.weights[i] = 0 end
    for k = 1, u do
      inst.uw[k], inst.rates[k] = 0, 1
      inst.kids[k] = M.new(def.unique[k].motion, skeleton, refs)
      inst.poses[k] = inst.kids[k].pose
    end
    inst.inputs = {}
    for i = 1, #def.params do inst.inputs[i] = 0 end
  end
  return inst
end

local weights_of -- forward

-- the weights of a blend instance's unique children from the parameter values (and, below, of
-- the nested nodes)
function weights_of(inst, values)
  local def = inst.def
  local w, inputs, uw, rates = inst.weights, inst.inputs, inst.uw, inst.rates
  local params = def.params
  local np = #params
  local space = def.space
  if np == 1 then space:weights(values[params[1]], w)
  elseif np == 2 then space:weights(values[params[1]], values[params[2]], w)
  else -- the inputs, then the table to fill, passed from one list (no garbage)
    for i = 1, np do inputs[i] = values[params[i]] end
    inputs[np + 1] = w
    space:weights(unpack(inputs, 1, np + 1))
  end
  if def.mode == "direct" then -- its weights are its inputs: the largest held at MAX_WEIGHT
    local most = 0
    for i = 1, #w do if w[i] > most then most = w[i] end end
    if most > MAX_WEIGHT then
      local f = MAX_WEIGHT / most
      for i = 1, #w do w[i] = w[i] * f end
    end
  end
  for k = 1, #uw do uw[k], rates[k] = 0, 0 end
  local children, unique_of = def.children, def.unique_of
  for i = 1, #children do
    local k = unique_of[i]
    uw[k] = uw[k] + w[i]
    rates[k] = rates[k] + w[i] * children[i].rate
  end
  local kids = inst.kids
  for k = 1, #uw do
    local r = 1
    if uw[k] > 0 then
      r = rates[k] / uw[k] -- a weighted mean of the children's rates, held in their range
      if r < MIN_CHILD_RATE then r = MIN_CHILD_RATE elseif r > MAX_CHILD_RATE then r = MAX_CHILD_RATE end
    end
    rates[k] = r
    kids[k].weight = uw[k]
    if kids[k].def.kind == "blend" then weights_of(kids[k], values) end
  end
end
M.weights_of = weights_of

-- the index of the heaviest of the weights `uw` (the first of equals)
local function heaviest(uw)
  local best, bw = 1, -1
  for k = 1, #uw do if uw[k] > bw then best, bw = k, uw[k] end end
  return best
end

--- The cycle length of an instance in seconds (its weights set): a clip's duration; a synced
-- node's weighted mean of its children's lengths over their rates; otherwise its heaviest
-- child's. A length of 0 (still poses) counts as 1 s for normalised time. At most MAX_TIME.
local function length(inst)
  local def = inst.def
  if def.kind == "clip" then return def.duration end
  if def.kind == "machine" then return length(M.Layer.playing(inst.layer).inst) end
  local uw, rates, kids = inst.uw, inst.rates, inst.kids
  if def.sync == true then
    local sum, total = 0, 0
    for k = 1, #uw do
      if uw[k] > 0 then
        sum = sum + uw[k] * length(kids[k]) / rates[k]
        total = total + uw[k]
      end
    end
    if total > 0 then return held_length(sum / total) end
    return 0
  end
  local best = heaviest(uw)
  return held_length(length(kids[best]) / rates[best])
end
M.length = length

-- a clip's root-motion time (its clip time at the last update, seconds) moves with a wrap of its
-- normalised time, held within -2 WRAP .. 2 WRAP loops: root motion sets it again at each update
-- of a clip it follows (a step of more than 2^24 loops gives it the most loops it chains), and the
-- clips it does not follow keep it in range
local function unwrap_root(inst, wrapped)
  local rb = inst.rm_before
  if rb == nil or inst.def.kind ~= "clip" then return end
  local d = inst.def.duration
  rb = rb - wrapped * d
  local lim = 2 * WRAP * d
  if rb > lim then rb = lim elseif rb < -lim then rb = -lim end
  inst.rm_before = rb
end

-- sets the normalised time of an instance and of every descendant (synced children share it);
-- `wrapped` (or nil) is the loops a wrap took off, which a clip's root-motion time loses too
local function set_norm(inst, norm, wrapped)
  local def = inst.def
  if def.kind == "machine" then -- starts again at its entry
    M.Layer.restart(inst.layer, norm)
    inst.norm = norm
    return
  end
  inst.norm = norm
  if wrapped and wrapped ~= 0 then unwrap_root(inst, wrapped) end
  local kids = inst.kids
  if kids then for k = 1, #kids do set_norm(kids[k], norm, wrapped) end end
end
M.set_norm = set_norm

--- How fast the normalised time of an instance runs: its change per second (weights set), 0
-- .. MAX_RATE.
local function rate(inst)
  local def = inst.def
  if def.kind == "clip" then
    local d = def.duration
    return d > 0 and held_rate(1 / d) or 1
  end
  if def.kind == "machine" then return rate(M.Layer.playing(inst.layer).inst) end
  local uw, rates, kids = inst.uw, inst.rates, inst.kids
  local best = heaviest(uw)
  if def.sync == true then
    local len = length(inst)
    return len > 0 and held_rate(1 / len) or 1
  elseif def.sync == "leader" then
    local len = length(kids[best]) / rates[best]
    return len > 0 and held_rate(1 / len) or 1
  end
  return held_rate(rates[best] * rate(kids[best]))
end
M.rate = rate

-- the clip time of a clip instance: its normalised time in seconds, held within the clip when it
-- does not loop
local function clip_time(inst, loop)
  local norm = inst.norm
  if not loop then
    if norm > 1 then norm = 1 elseif norm < 0 then norm = 0 end
  end
  return norm * inst.def.duration
end

--- Advances an instance by `dt` seconds (its weights set; see `step`). Returns its new
-- normalised time and the loops a wrap took off.
local function advance(inst, dt)
  local def = inst.def
  if def.kind == "clip" then
    local norm, wrapped = step(inst.norm, rate(inst) * dt)
    inst.norm = norm
    if wrapped ~= 0 then unwrap_root(inst, wrapped) end
    return norm, wrapped
  end
  if def.sync then -- the node's clock drives its children's
    local norm, wrapped = step(inst.norm, rate(inst) * dt)
    set_norm(inst, norm, wrapped)
    return norm, wrapped
  end
  local rates, kids = inst.rates, inst.kids
  local best = heaviest(inst.uw)
  local norm, wrapped = 0, 0
  for k = 1, #kids do
    local n, w = advance(kids[k], dt * rates[k])
    if k == best then norm, wrapped = n, w end
  end
  inst.norm = norm
  return norm, wrapped
end
M.advance = advance

--- Samples an instance into its pose at its normalised time: looping, or clamped to [0, 1].
-- Children of weight 0 are not sampled.
local function sample(inst, loop)
  local def = inst.def
  if def.kind == "clip" then
    inst.cursor:sample(clip_time(inst, loop), inst.pose, loop)
    local refs = inst.refs
    if refs then delta(inst.pose, inst.pose, refs[def.clip]) end
    return inst.pose
  end
  if def.kind == "machine" then
    inst.pose:copy(M.Layer.pose_of(inst.layer))
    return inst.pose
  end
  local kids, uw = inst.kids, inst.uw
  for k = 1, #kids do
    if uw[k] > 0 then sample(kids[k], loop) end
  end
  blend(inst.pose, inst.poses, uw, nil, nil, def.rotation)
  return inst.pose
end
M.sample = sample

--- Calls `fn(ctx, clip, weight, clip_time)` for every clip that plays with a weight above 0,
-- `weight` scaled down the tree from `scale`.
local function each_clip(inst, scale, loop, fn, ctx)
  local def = inst.def
  if def.kind == "clip" then
    fn(ctx, def.clip, scale, def.clip:local_time(clip_time(inst, loop), loop))
    return
  end
  if def.kind == "machine" then
    M.Layer.each(inst.layer, scale, each_clip, fn, ctx)
    return
  end
  local kids, uw = inst.kids, inst.uw
  for k = 1, #kids do
    if uw[k] > 0 then each_clip(kids[k], scale * uw[k], loop, fn, ctx) end
  end
end
M.each_clip = each_clip

--- Calls `fn(ctx, leaf, weight, loop)` for every clip instance of the tree, those of weight 0
-- too, `weight` scaled down the tree from `scale`.
local function each_leaf(inst, scale, loop, fn, ctx)
  if inst.def.kind == "clip" then
    fn(ctx, inst, scale, loop)
    return
  end
  if inst.def.kind == "machine" then
    M.Layer.each(inst.layer, scale, each_leaf, fn, ctx)
    return
  end
  local kids, uw = inst.kids, inst.uw
  for k = 1, #kids do each_leaf(kids[k], scale * uw[k], loop, fn, ctx) end
end
M.each_leaf = each_leaf

return M
