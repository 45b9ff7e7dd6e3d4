--- Inverse kinematics in the animator: a definition's `targets` (vector parameters in model space,
-- set with `anim:set_target`, smoothed or not) and its `ik` lists (one at the top of the
-- definition, one in any layer) of the `sinew.ik` solvers a game made, by name. `evaluate` runs
-- them after the layers (and after root motion is taken out): the layers' lists in layer order,
-- then the top list, each entry with its weight (a number or a parameter, times its layer's weight
-- and, where it names states, their share of the layer's fade), so that a parameter, a fade or a
-- state switches IK on and off smoothly. See manual/animator.md, Inverse kinematics.
--
-- The compiled entries and targets belong to the plan; an animator holds the targets' values (and
-- velocities) and what each entry did in its last evaluation (for `debug`), here only.
-- @module sinew.animator.ik
local core = require "sinew.core"
local Solvers = require "sinew.ik"
local Fault = require "sinew.fault"
-- sinew.animator.layer requires the definition, which requires this module: required by `plan`
local Layer
local Spring = require "sinew.animator.spring"

local M = {}

local fail, show, finite = Fault.fail, Fault.show, Fault.finite
local select = select

--- The most targets and the most IK entries (all lists summed) of a definition.
M.MAX_TARGETS, M.MAX_ENTRIES = 256, 256

-- ---- compiling (called by sinew.animator.definition with its readers in `R`) ------------------------

local target_fields = { true, true, true, smoothing = true }

--- The definition's `targets`: name -> { x, y, z [, smoothing = s] }. Gives { names = {...} (sorted),
-- index = name -> k, values = { x1, y1, z1, ... }, smoothing = { [k] = s } }.
function M.targets(v, R, params, limit)
  local defs = R.own(v, "targets", nil, true) or {}
  local out = { names = {}, index = {}, values = {}, smoothing = {} }
  for _, name in ipairs(Fault.sorted_keys(defs)) do
    if type(name) ~= "string" or name == "" then fail("targets", "target names must be strings (got %s)", show(name)) end
    local p = "targets." .. name
    if params[name] then fail(p, "a parameter is named '%s' too: give the target another name", name) end
    local t = R.own(defs[name], p, target_fields)
    local k = #out.names + 1
    if k > M.MAX_TARGETS then fail("targets", "more than %d targets", M.MAX_TARGETS) end
    out.names[k], out.index[name] = name, k
    for c = 1, 3 do
      out.values[3 * k - 3 + c] = R.number(t[c], ("%s[%d]"):format(p, c), nil, -limit, limit)
    end
    if t.smoothing ~= nil then
      local s = R.number(t.smoothing, p .. ".smoothing", nil, 0, 1e6)
      if s > 0 and s < 1e-3 then fail(p .. ".smoothing", "%s is below a millisecond (0 for none)", show(s)) end
      if s > 0 then out.smoothing[k] = s end
    end
  end
  return out
end

local entry_fields = { solver = true, target = true, pole = true, up = true, weight = true, states = true }
local point_fields = { joint = true }

-- joint `j` (a name or a 1-based index) of the definition's skeleton; for a 2-D armature (whose
-- compiled data knows no names) through the rig of the entry's solver
local function joint_of(j, ctx, solver, dims)
  if dims == 2 then
    local n = ctx.kind.joints(ctx.skeleton)
    if type(j) == "number" then return j % 1 == 0 and j >= 1 and j <= n and j or nil end
    if type(j) ~= "string" then return nil end
    for k, name in ipairs(solver:rig():bones()) do
      if name == j then return k end
    end
    return nil
  end
  return type(j) == "number" and j % 1 == 0 and j >= 1 and j <= #ctx.skeleton and j
    or type(j) == "string" and ctx.skeleton:find(j) or nil
end

-- a target, pole or up of an entry: a target's name -> { target = k }, { joint = j } -> { joint = j }
local function point(v, path, ctx, targets, joints_too, solver, dims)
  if type(v) == "string" then
    local k = targets.index[v]
    if not k then
      local near = Fault.nearest(v, targets.index)
      fail(path, "unknown target '%s'%s", v, near and (" (did you mean '" .. near .. "'?)")
        or next(targets.index) == nil and " (the definition's `targets` holds none)" or "")
    end
    return { target = k }
  end
  if joints_too and type(v) == "table" then
    local t = ctx.read.own(v, path, point_fields)
    local j = joint_of(t.joint, ctx, solver, dims)
    if not j then fail(path .. ".joint", "unknown %s %s", dims == 2 and "bone" or "joint", show(t.joint)) end
    return { joint = j }
  end
  fail(path, "must be a target's name%s (got %s)", joints_too and " or { joint = name }" or "", show(v))
end

local kinds = { two_bone = "a two-bone solver", aim = "an aim solver", chain = "a chain solver",
  spread = "a spread aim", feet = "a foot-placement solver" }

--- An `ik` list at `path`: a list of { solver = name or solver, target = ..., pole = ..., up = ...,
-- weight = w or parameter name, states = { ... } (a layer's list only: `states` the layer's) }.
function M.list(v, path, ctx, targets, states)
  local src, n = ctx.read.list(v, path, true)
  ctx.ik_entries = (ctx.ik_entries or 0) + n
  if ctx.ik_entries > M.MAX_ENTRIES then fail(path, "more than %d IK entries in all", M.MAX_ENTRIES) end
  local out = {}
  for i = 1, n do
    local p = ("%s[%d]"):format(path, i)
    local e = ctx.read.own(src[i], p, entry_fields)
    local solver, name = e.solver, nil
    if type(solver) == "string" then
      name = solver
      solver = ctx.read.resource(ctx, "ik", solver, p .. ".solver")
    end
    local kind, dims = Solvers.kind(solver)
    if not kind then fail(p .. ".solver", "must be a sinew.ik solver or its name in resources.ik (got %s)", show(solver)) end
    local want = ctx.kind.dims or 3
    if dims ~= want then
      fail(p .. ".solver", "a solver of a %s, in a definition of %s", dims == 2 and "2-D rig" or "3-D skeleton", ctx.kind.name)
    end
    local rig = dims == 2 and solver:rig() or nil
    if (rig and rig:skeleton() or not rig and solver:skeleton()) ~= ctx.skeleton then
      fail(p .. ".solver", "solver of another %s", rig and "armature" or "skeleton")
    end
    local entry = { solver = solver, kind = kind, name = name or tostring(solver), path = p, rig = rig }
    if kind == "feet" then -- (its targets come from its ground callback)
      if e.target ~= nil then
        fail(p .. ".target", "a foot-placement solver takes no target: its ground callback places the feet")
      end
    else
      if e.target == nil then fail(p .. ".target", "%s needs a target", kinds[kind]) end
      entry.target = point(e.target, p .. ".target", ctx, targets, true, solver, dims)
    end
    if e.pole ~= nil then
      if kind ~= "two_bone" then fail(p .. ".pole", "only a two-bone solver has a pole") end
      if rig then fail(p .. ".pole", "a 2-D two-bone solver has no pole: its `bend` picks the side") end
      entry.pole = point(e.pole, p .. ".pole", ctx, targets, true, solver, dims)
    elseif kind == "two_bone" and not rig then
      entry.pole = { joint = (select(2, solver:joints())) } -- the knee's own side: it bends as the clip bends it
    end
    if e.up ~= nil then
      if kind ~= "aim" and kind ~= "spread" or rig then fail(p .. ".up", "only a 3-D aim solver has an up reference") end
      entry.up = point(e.up, p .. ".up", ctx, targets, false)
    end
    if type(e.weight) == "string" then
      local prm = ctx.params[e.weight]
      if not prm then fail(p .. ".weight", "unknown parameter '%s'", e.weight) end
      if prm.kind ~= "float" and prm.kind ~= "int" then
        fail(p .. ".weight", "parameter '%s' is a %s: a weight is a number parameter", e.weight, prm.kind)
      end
      entry.weight_parameter = e.weight
    else
      entry.weight = ctx.read.number(e.weight, p .. ".weight", 1, 0, 1)
    end
    if e.states ~= nil then
      if not states then fail(p .. ".states", "only an entry of a layer's list plays with states") end
      local list, m = ctx.read.list(e.states, p .. ".states")
      if m == 0 then fail(p .. ".states", "names no state") end
      entry.states = {}
      for k = 1, m do
        local s = list[k]
        if type(s) ~= "string" or not states[s] then
          fail(("%s.states[%d]"):format(p, k), "unknown state %s", show(s))
        end
        entry.states[s] = true
      end
    end
    out[i] = entry
  end
  return out
end

-- ---- the plan -------------------------------------------------------------------------------------

--- The IK part of plan P of `compiled` (a compiled definition), or nil when it has neither targets
-- nor entries: the entries in the order they run, each with its layer's index (nil at the top)
-- and its weight parameter's index.
function M.plan(compiled, P)
  Layer = Layer or require "sinew.animator.layer"
  local targets, list = compiled.targets, {}
  for i, l in ipairs(compiled.layers) do
    for _, e in ipairs(l.ik or {}) do
      e.layer = i
      list[#list + 1] = e
    end
  end
  for _, e in ipairs(compiled.ik or {}) do list[#list + 1] = e end
  if #list == 0 and #targets.names == 0 then return nil end
  local K = { names = targets.names, index = targets.index, values = targets.values, entries = list,
    smooth = {}, smooth_time = {}, smoothed = {}, model = false, dims = P.kind.dims or 3 }
  for k = 1, #targets.names do
    if targets.smoothing[k] then
      K.smooth[#K.smooth + 1], K.smooth_time[#K.smooth_time + 1] = k, targets.smoothing[k]
      K.smoothed[k] = true
    end
  end
  for _, e in ipairs(list) do
    if e.weight_parameter then e.wi = P.index[e.weight_parameter] end
    if (e.target and e.target.joint) or (e.pole and e.pole.joint) then K.model = true end
    if e.kind == "feet" then K.feet = true end
  end
  if K.model and K.dims == 3 then K.mats = core.matrices(P.skel) end -- (a scratch: P.busy guards it)
  if K.dims == 2 and #list > 0 then
    -- 2-D solvers read and write the bones of a rig: the plan's own (a scratch, as the matrices
    -- above), so that evaluating never changes the rigs a game draws; each entry solves with a
    -- clone of its solver on it. The bones that entries point at are read from it after it shows
    -- the pose the layers give.
    K.rig, K.solvers2d, K.bones, K.bx, K.by = list[1].rig:clone(), {}, {}, {}, {}
    for i, e in ipairs(list) do
      K.solvers2d[i] = e.solver:clone(K.rig)
      if e.target.joint and not K.bx[e.target.joint] then
        K.bones[#K.bones + 1], K.bx[e.target.joint], K.by[e.target.joint] = e.target.joint, 0, 0
      end
    end
  end
  return K
end

-- ---- an animator's part -------------------------------------------------------------------------

--- A new animator's IK state of plan part K: targets at their defaults, at rest; its own
-- foot-placement solvers (clones of the plan's: they hold state), the seconds since its last
-- evaluation (their dt).
function M.new(K)
  local S = { values = {}, goals = {}, vels = {}, weights = {}, flags = {}, results = {}, solvers = {}, dt = 0 }
  for i, x in ipairs(K.values) do S.values[i], S.goals[i], S.vels[i] = x, x, 0 end
  for i, e in ipairs(K.entries) do
    S.weights[i], S.flags[i], S.results[i] = 0, 0, false
    S.solvers[i] = e.kind == "feet" and e.solver:clone() or e.solver
  end
  return S
end

--- Moves smoothed targets toward what was set, over `dt` seconds.
function M.update(K, S, dt)
  if K.feet then S.dt = S.dt + dt end
  local list, times = K.smooth, K.smooth_time
  local values, goals, vels, step = S.values, S.goals, S.vels, Spring.step
  for n = 1, #list do
    local b, time = 3 * list[n] - 3, times[n]
    for c = b + 1, b + 3 do values[c], vels[c] = step(values[c], vels[c], goals[c], time, dt) end
  end
end

-- the index of target `name` of K (a fault at the caller's `level`)
local function target_index(K, name, level)
  local k = K and K.index[name]
  if not k then
    local near = K and type(name) == "string" and Fault.nearest(name, K.index)
    error(("unknown target %s%s"):format(show(name), near and (" (did you mean '" .. near .. "'?)") or ""), level + 1)
  end
  return k
end

--- Sets target `name` to x, y, z (a smoothed target moves there over time; z may be left out
-- for 2-D bones: 0); raises at `level`.
function M.set(K, S, name, x, y, z, limit, level)
  local k = target_index(K, name, level + 1)
  if z == nil and K.dims == 2 then z = 0 end
  for c = 1, 3 do
    local v = select(c, x, y, z)
    if not finite(v) or v < -limit or v > limit then
      error(("bad argument #%d to 'set_target' (%s must be a finite number within %s, got %s)")
        :format(c + 1, ("xyz"):sub(c, c), show(limit), show(v)), level + 1)
    end
  end
  local b = 3 * k - 3
  local goals = S.goals
  goals[b + 1], goals[b + 2], goals[b + 3] = x, y, z
  if not K.smoothed[k] then
    local values = S.values
    values[b + 1], values[b + 2], values[b + 3] = x, y, z
  end
end

--- Target `name`'s value x, y, z and, for a smoothed one, where it moves to.
function M.get(K, S, name, level)
  local k = target_index(K, name, level + 1)
  local b, v, g = 3 * k - 3, S.values, S.goals
  if K.smoothed[k] then return v[b + 1], v[b + 2], v[b + 3], g[b + 1], g[b + 2], g[b + 3] end
  return v[b + 1], v[b + 2], v[b + 3]
end

-- the model-space point of `pt` (a target of S, a joint in K's matrices or a bone's point)
local function where(K, S, pt)
  local k = pt.target
  if k then
    local v, b = S.values, 3 * k - 3
    return v[b + 1], v[b + 2], v[b + 3]
  end
  if K.dims == 2 then return K.bx[pt.joint], K.by[pt.joint], 0 end
  local x, y, z = select(13, K.mats:get(pt.joint))
  return x, y, z
end

-- the armature-space points of the bones that K's entries point at, from `pose` as the layers
-- left it (K's rig shows it)
local function read_bones(K, pose)
  local rig, bones, bx, by = K.rig, K.bones, K.bx, K.by
  rig:apply(pose)
  for i = 1, #bones do
    local b = bones[i]
    local _, _, _, _, x, y = rig:bone(b)
    bx[b], by[b] = x, y
  end
end

--- Runs the entries of K on `pose` for animator A (its parameters; `layers` its layers): each
-- with its weight; an entry of weight 0 leaves the pose as it is. No garbage.
function M.run(K, S, A, layers, pose)
  local shown = false -- (2-D: whether K's rig shows `pose`, where the solves read the bones)
  if K.model then -- (joint targets and poles: the pose as the layers left it)
    if K.dims == 3 then
      pose:to_model(K.mats)
    else
      read_bones(K, pose)
      shown = true
    end
  end
  local entries, weights, flags, results, solvers = K.entries, S.weights, S.flags, S.results, S.solvers
  local dt = S.dt
  S.dt = 0
  for i = 1, #entries do
    local e = entries[i]
    local w = e.weight
    if e.wi then
      w = A[e.wi]
      if w < 0 then w = 0 elseif w > 1 then w = 1 end
    end
    local li = e.layer
    if li and li > 1 and w > 0 then w = w * Layer.weight(layers[li]) end
    if e.states and w > 0 then w = w * Layer.share(A, layers[li], e.states) end
    weights[i] = w
    if w > 0 and e.kind == "feet" then
      results[i], flags[i] = solvers[i]:solve(pose, dt, w)
    elseif w > 0 and e.rig then -- 2-D: the solve reads K's rig, which must show the pose
      if not shown then
        K.rig:apply(pose)
        shown = true
      end
      local tx, ty = where(K, S, e.target)
      results[i], flags[i] = K.solvers2d[i]:solve(pose, tx, ty, w) -- (and keeps the rig showing it)
    elseif w > 0 then
      local tx, ty, tz = where(K, S, e.target)
      local kind, r, f = e.kind
      if kind == "two_bone" then
        local px, py, pz = where(K, S, e.pole)
        r, f = e.solver:solve(pose, tx, ty, tz, px, py, pz, w)
      elseif kind == "aim" or kind == "spread" then
        if e.up then
          local ux, uy, uz = where(K, S, e.up)
          r, f = e.solver:solve(pose, tx, ty, tz, w, ux, uy, uz)
        else
          r, f = e.solver:solve(pose, tx, ty, tz, w)
        end
      else
        r, f = e.solver:solve(pose, tx, ty, tz, w)
      end
      results[i], flags[i] = r, f
    else
      results[i], flags[i] = false, 0
    end
  end
end

-- ---- debug and snapshots --------------------------------------------------------------------------

--- What `debug()` shows: the targets (name -> { x, y, z }) and each entry's solver name, kind,
-- layer name (nil at the top), weight in the last evaluation, result and flags.
function M.debug(K, S, layers)
  local targets, list = {}, {}
  for k, name in ipairs(K.names) do
    local b = 3 * k - 3
    targets[name] = { S.values[b + 1], S.values[b + 2], S.values[b + 3] }
  end
  for i, e in ipairs(K.entries) do
    list[i] = { solver = e.name, kind = e.kind, layer = e.layer and Layer.name(layers[e.layer]) or nil,
      weight = S.weights[i], flags = S.flags[i] }
    if e.kind == "chain" then list[i].left = S.results[i] or nil else list[i].reached = S.results[i] end
  end
  return targets, list
end

local function triple(v, b) return { v[b + 1], v[b + 2], v[b + 3] } end

--- The snapshot's part: { values = { name = { x, y, z } }, goals = ..., velocities = ..., and with
-- foot placement feet = { [entry path] = the solver's state (IKFeet:state) } and dt, the seconds
-- of updates since the last evaluation (the next feet solve's dt) }.
function M.take(K, S)
  local t = { values = {}, goals = {}, velocities = {} }
  for k, name in ipairs(K.names) do
    local b = 3 * k - 3
    t.values[name], t.goals[name], t.velocities[name] = triple(S.values, b), triple(S.goals, b), triple(S.vels, b)
  end
  if K.feet then
    t.feet, t.dt = {}, S.dt
    for i, e in ipairs(K.entries) do
      if e.kind == "feet" then t.feet[e.path] = S.solvers[i]:state() end
    end
  end
  return t
end

local parts = { "values", "goals", "velocities" }
local function not_target(k, _, index) return index[k] == nil end
local function not_feet(k, _, paths) return paths[k] == nil end

-- the foot-placement states of a snapshot's part `f` at `path` (R: snapshot.lua's readers), each
-- checked on a fresh clone of its solver: entry index -> the numbers
local function read_feet(K, f, path, R)
  local out, paths = {}, {}
  R.tbl(f, path)
  for i, e in ipairs(K.entries) do
    if e.kind == "feet" then
      local p = ("%s[%q]"):format(path, e.path)
      local v = R.numbers(rawget(f, e.path), 4 + 9 * #e.solver, p, -math.huge, math.huge, "finite")
      local probe = e.solver:clone()
      local ok, err = pcall(probe.set_state, probe, v)
      if not ok then fail(p, "%s", tostring(err):match("%((.*)%)$") or tostring(err)) end
      out[i], paths[e.path] = v, true
    end
  end
  local bad = Fault.first(f, not_feet, paths)
  if bad ~= nil then fail(path, "no foot-placement entry %s", show(bad)) end
  return out
end

--- Reads and checks a snapshot's part `t` at `path` (raw reads, with snapshot.lua's readers `R`:
-- `tbl(v, path)`, `numbers(t, n, path, lo, hi, range)`), giving what `put` writes.
function M.read(K, t, path, R, limit)
  local out = { values = {}, goals = {}, vels = {} }
  local into = { values = out.values, goals = out.goals, velocities = out.vels }
  R.tbl(t, path)
  for pi = 1, 3 do
    local part = parts[pi]
    local p = path .. "." .. part
    local tp = R.tbl(rawget(t, part), p)
    local dest = into[part]
    local hi = part == "velocities" and 1e300 or limit
    for k, name in ipairs(K.names) do
      local v = R.numbers(rawget(tp, name), 3, p .. "." .. name, -hi, hi, ("-%s .. %s"):format(show(hi), show(hi)))
      dest[3 * k - 2], dest[3 * k - 1], dest[3 * k] = v[1], v[2], v[3]
    end
    local bad = Fault.first(tp, not_target, K.index)
    if bad ~= nil then fail(p, "unknown target %s", show(bad)) end
  end
  local f = rawget(t, "feet")
  if f ~= nil then
    if not K.feet then fail(path .. ".feet", "the animator has no foot-placement entry") end
    out.feet = read_feet(K, f, path .. ".feet", R)
    local dt = rawget(t, "dt")
    if type(dt) ~= "number" or not (dt >= 0 and dt <= 1e300) then
      fail(path .. ".dt", "must be a finite number of seconds >= 0 (got %s)", show(dt))
    end
    out.dt = dt
  end
  return out
end

--- Writes a part that `read` gave; foot-placement solvers take their states from it, or (a
-- snapshot without them) start again from their targets.
function M.put(K, S, plan)
  local values, goals, vels = S.values, S.goals, S.vels
  for i = 1, #values do values[i], goals[i], vels[i] = plan.values[i], plan.goals[i], plan.vels[i] end
  for i, e in ipairs(K.entries) do
    if e.kind == "feet" then
      if plan.feet then S.solvers[i]:set_state(plan.feet[i]) else S.solvers[i]:reset() end
    end
  end
  S.dt = plan.dt or 0
end

return M
