--- The animator's definition: checks a plain-data definition table and compiles it into the
-- structures the runtime walks (parameters, layers, states, transitions with compiled conditions,
-- motion trees with their blend spaces). Every fault raises with the path of the value in the
-- definition: `layers[1].transitions[3].to: unknown state 'nowhere'`.
--
-- The definition is read once: each table the compiler visits is copied into a private table
-- with raw reads (`next`), so no metamethod of the caller's runs, a proxy cannot answer twice
-- and a later edit of the definition cannot reach the animator. A table used in several places
-- (a blend node, a sub-state machine, a clip) is compiled once: the compiled definition is a
-- DAG as the written one is, and compiling is linear in the size of what is written. What the
-- animator would make of it (its motion instances, nesting, transition lists) is bounded by
-- `M.limits`, checked before anything is made.
-- @module sinew.animator.definition
local core = require "sinew.core"
local Fault = require "sinew.fault"
local PoseKind = require "sinew.animator.pose_kind"
local IK = require "sinew.animator.ik"

local M = {}

-- `for k, v in each, t`: a walk of t as `pairs` or `next` would make it, but not under those names,
-- which LuaJIT 2.1.0-beta3 compiles into a specialised loop (ITERN) that skipped a table's keys
-- or never ended in some runs with the JIT on (a definition whose states were seen as none)
local each = next

local floor = math.floor

--- The limits of a definition (manual/animator.md, Limits): far above what a character uses
-- (tens to a few hundred states and clips), low enough that no definition costs more than a
-- second or a few MB to compile and to update.
-- @table limits
-- @field states states of one state machine (a layer or a sub-state machine): 1024
-- @field transitions transitions of one state machine: 4096
-- @field checks transitions the states of the definition check, summed over its state machines:
-- each state's own and, in each state, the machine's transitions from "any": 65536
-- @field depth blend nodes and sub-state machines nested in one another (a state's motion is at
-- depth 1): 64
-- @field instances places a motion plays in (the plan's slots, each with a scratch pose in the plan
-- and its time, weights and cursor in every animator): a clip, a blend node or a sub-state machine
-- counts once in every place it is used (a shared node once per use), a synced layer's motions
-- twice (both sides of a fade): 4096
-- @field value the size of a parameter's value in the definition (|value|), so that what it
-- drives (blend weights, a smoothing spring, a speed) stays finite: 1e9
M.limits = { states = 1024, transitions = 4096, checks = 65536, depth = 64, instances = 4096, value = 1e9 }
local limits = M.limits

-- the faults, with their paths in the definition: sinew.fault (also what snapshot.lua and the
-- animator use)
local fail, show, finite = Fault.fail, Fault.show, Fault.finite
-- where several keys of a table are wrong, the fault names the first in Fault.before's order
-- (numbers, then strings, ...), never the first of a walk with `next`, whose order changes from
-- run to run (Lua 5.4 seeds its string hashes per state)
local first_key, sorted_keys = Fault.first, Fault.sorted_keys

local function unknown(k, _, known) return not known[k] end

local function number(v, path, dflt, lo, hi)
  if v == nil and dflt ~= nil then return dflt end
  if not finite(v) then fail(path, "must be a finite number (got %s)", show(v)) end
  if (lo and v < lo) or (hi and v > hi) then
    fail(path, "%s is out of range (%s .. %s)", show(v), lo and show(lo) or "-inf", hi and show(hi) or "inf")
  end
  return v
end

local function string_at(v, path, optional)
  if v == nil and optional then return nil end
  if type(v) ~= "string" or v == "" then fail(path, "must be a non-empty string (got %s)", show(v)) end
  return v
end

--- A private copy of the caller's table `v` at `path`, read raw (with `next`: no metamethod runs,
-- each field is read once); every key must be in `known` when it is given (a typo is an error,
-- not a silent default). nil for a nil `v` when `optional`.
local function own(v, path, known, optional)
  if v == nil and optional then return nil end
  if type(v) ~= "table" then fail(path, "must be a table (got %s)", type(v)) end
  local out = {}
  local k, x = next(v)
  while k ~= nil do
    out[k] = x
    k, x = next(v, k)
  end
  if known then
    local bad = first_key(out, unknown, known)
    if bad ~= nil then fail(path, "unknown field %s", show(bad)) end
  end
  return out
end

local function not_index(k, _, n) return type(k) ~= "number" or k ~= floor(k) or k < 1 or k > n end

--- A private copy of the list `v` at `path` (keys 1 .. n and nothing else) and its length n.
local function list(v, path, optional)
  local out = own(v, path, nil, optional)
  if out == nil then return {}, 0 end
  local n = 0
  for _ in each, out do n = n + 1 end
  local bad = first_key(out, not_index, n)
  if bad ~= nil then fail(path, "%s is not an index of a list (1 .. %d)", show(bad), n) end
  return out, n
end

-- ---- parameters -----------------------------------------------------------------------------------

--- Parameters: name -> { kind = "float" | "int" | "bool" | "trigger", value }. A number is a float,
-- a boolean a bool, "trigger" a trigger, `{ int = n }` or `{ float = x }` the typed forms.
local function parameters(def, path)
  local out = {}
  local defs = own(def, path, nil, true) or {}
  for _, name in ipairs(sorted_keys(defs)) do
    local v = defs[name]
    if type(name) ~= "string" or name == "" then fail(path, "parameter names must be strings (got %s)", show(name)) end
    local p = path .. "." .. name
    if type(v) == "number" then
      out[name] = { kind = "float", value = number(v, p, nil, -limits.value, limits.value) }
    elseif type(v) == "boolean" then
      out[name] = { kind = "bool", value = v }
    elseif v == "trigger" then
      out[name] = { kind = "trigger", value = false }
    elseif type(v) == "table" then
      v = own(v, p, { int = true, float = true, smoothing = true })
      if v.int ~= nil then
        local n = number(v.int, p .. ".int", nil, -limits.value, limits.value)
        if n ~= floor(n) then fail(p .. ".int", "%s is not an integer", show(n)) end
        if v.float ~= nil then fail(p, "is an int or a float, not both") end
        if v.smoothing ~= nil then fail(p .. ".smoothing", "only a float parameter is smoothed") end
        out[name] = { kind = "int", value = n }
      else
        local smoothing = v.smoothing ~= nil and number(v.smoothing, p .. ".smoothing", nil, 0, 1e6) or nil
        if smoothing and smoothing > 0 and smoothing < 1e-3 then
          fail(p .. ".smoothing", "%s is below a millisecond (0 for none)", show(smoothing))
        end
        out[name] = { kind = "float", value = number(v.float, p .. ".float", nil, -limits.value, limits.value),
          smoothing = smoothing }
      end
    else
      fail(p, "must be a number, a boolean, \"trigger\", { int = n } or { float = x [, smoothing = s] } (got %s)",
        show(v))
    end
  end
  return out
end

-- ---- conditions ------------------------------------------------------------------------------------

local ops = { [">"] = 1, ["<"] = 2, [">="] = 3, ["<="] = 4, ["=="] = 5, ["~="] = 6 }

local condition_fields = { true, true, true }

-- a condition: { param, op (1..6, or 0 for a bool that must be true or a trigger), value }
local function condition(c, params, path)
  c = own(c, path)
  local bad = first_key(c, unknown, condition_fields)
  if bad ~= nil then fail(path, "has a field %s (a condition is { name [, op, value] })", show(bad)) end
  local name = c[1]
  if type(name) ~= "string" then fail(path .. "[1]", "must be a parameter name (got %s)", show(name)) end
  local p = params[name]
  if not p then fail(path .. "[1]", "unknown parameter '%s'", name) end
  if c[2] == nil then
    if p.kind ~= "bool" and p.kind ~= "trigger" then
      fail(path, "%s parameter '%s' needs an operator and a value", p.kind, name)
    end
    if c[3] ~= nil then fail(path .. "[3]", "a value needs an operator") end
    return { name = name, op = 0, kind = p.kind }
  end
  local op = ops[c[2]]
  if not op then fail(path .. "[2]", "unknown operator %s (>, <, >=, <=, == or ~=)", show(c[2])) end
  local v = c[3]
  if p.kind == "trigger" then fail(path, "trigger '%s' takes no operator: { \"%s\" }", name, name) end
  if p.kind == "bool" then
    if op < 5 then fail(path .. "[2]", "bool parameter '%s' compares with == or ~= only", name) end
    if type(v) ~= "boolean" then fail(path .. "[3]", "bool parameter '%s' compares with a boolean (got %s)", name, show(v)) end
  else
    if type(v) ~= "number" then
      fail(path .. "[3]", "%s parameter '%s' compares with a number (got %s)", p.kind, name, show(v))
    end
    number(v, path .. "[3]")
  end
  return { name = name, op = op, value = v, kind = p.kind }
end

-- ---- sizes -------------------------------------------------------------------------------------------

-- a compiled motion carries `height` (the levels of nodes and machines below it) and `count` (the
-- motion instances one use of it makes); `sized` checks them against the limits at `path`, where
-- the motion is used at `depth`
local function sized(m, path, depth)
  if depth + m.height > limits.depth then
    fail(path, "blend nodes and sub-state machines nest more than %d deep (the limit)", limits.depth)
  end
  if m.count > limits.instances then
    fail(path, "plays more than %d motion instances (the limit; a node used in several places counts in each)",
      limits.instances)
  end
  return m
end

-- marks a table whose compilation is under way (met again: a cycle)
local BUSY = {}

-- ---- motions ---------------------------------------------------------------------------------------

local blend_modes = { ["1d"] = 1, simple_directional = 2, freeform_cartesian = 0, freeform_directional = 2,
  triangulated = 0, grid = 2, idw = 0, direct = -1 }
local space_options = { alpha = true, power = true, normalize_axes = true, grid = true, normalize = true }
local node_fields = { blend = true, parameter = true, parameters = true, children = true, sync = true, alpha = true,
  power = true, normalize_axes = true, grid = true, normalize = true, rotation = true }
local child_fields = { [1] = true, [2] = true, rate = true }

-- a clip of the definition's kind of skeleton
local function is_clip(v, ctx) return PoseKind.is(ctx.kind, v, ctx.Clip) end

local singular = { clips = "clip", masks = "mask", poses = "pose", ik = "IK solver" }

-- the resource `kind` (clips, masks, poses) named `name`; a fault at `path` when there is none,
-- saying when none of that kind was given (sinew.animator(def) without its resources) and which
-- name is near
local function resource(ctx, kind, name, path)
  local t = ctx.resources[kind]
  local r = t and t[name]
  if r ~= nil then return r end
  local one = singular[kind]
  if t == nil or next(t) == nil then
    fail(path,
      "unknown %s '%s': no %s were given (give them after the definition: sinew.animator(def, { %s = { %s = %s, ... } }))",
      one, name, kind, kind, name:match("^[%a_][%w_]*$") and name or ("['" .. name .. "']"), one)
  end
  local near = Fault.nearest(name, t)
  fail(path, "unknown %s '%s'%s", one, name, near and (" (did you mean '" .. near .. "'?)") or "")
end

local motion

-- a clip's compiled motion (one per clip)
local function clip_motion(v, ctx, path)
  local m = ctx.nodes[v]
  if m then return m end
  if v:skeleton() ~= ctx.skeleton then fail(path, "clip of another skeleton") end
  ctx.clips[v] = true
  m = { kind = "clip", clip = v, duration = v:duration(), height = 0, count = 1 }
  ctx.nodes[v] = m
  return m
end

-- a blend node, `v` the caller's table
local function blend_node(src, ctx, path, depth)
  local v = own(src, path)
  if v.blend == nil then
    if v.states ~= nil or v.entry ~= nil or v.machine ~= nil then
      fail(path, "a sub-state machine is a state's motion, not a child of a blend node")
    end
    fail(path .. ".blend", "a blend node needs a mode (got nil)")
  end
  local bad = first_key(v, unknown, node_fields)
  if bad ~= nil then fail(path, "unknown field %s", show(bad)) end
  local rotation = v.rotation or "nlerp"
  if rotation ~= "nlerp" and rotation ~= "power" and rotation ~= "karcher" and rotation ~= "markley" then
    fail(path .. ".rotation", "unknown rotation averaging %s (nlerp, power, karcher or markley)", show(rotation))
  end
  local mode = v.blend
  if type(mode) ~= "string" or blend_modes[mode] == nil then
    fail(path .. ".blend", "unknown blend mode %s", show(mode))
  end
  local children, n = list(v.children, path .. ".children")
  if n == 0 then fail(path .. ".children", "a blend node needs children") end
  -- the parameters: one name for 1d (parameter or parameters), a list otherwise
  local names
  if v.parameters == nil and v.parameter ~= nil then
    names = { v.parameter }
  elseif mode == "1d" and type(v.parameters) == "string" then
    names = { v.parameters }
  else
    names = list(v.parameters, path .. ".parameters")
  end
  local dims = blend_modes[mode]
  if mode == "direct" then dims = n end
  if dims == 0 then dims = #names end
  if #names ~= dims then
    fail(path .. ".parameters", "mode '%s' takes %d parameter%s (got %d)", mode, dims, dims == 1 and "" or "s", #names)
  end
  for i = 1, #names do
    local name = names[i]
    if type(name) ~= "string" then fail(("%s.parameters[%d]"):format(path, i), "must be a parameter name") end
    local p = ctx.params[name]
    if not p then fail(("%s.parameters[%d]"):format(path, i), "unknown parameter '%s'", name) end
    if p.kind ~= "float" and p.kind ~= "int" then
      fail(("%s.parameters[%d]"):format(path, i), "parameter '%s' is a %s, not a number", name, p.kind)
    end
  end
  -- the children: { point, motion, rate = r }
  local points, kids = {}, {}
  for i = 1, n do
    local cpath = ("%s.children[%d]"):format(path, i)
    local c = own(children[i], cpath, child_fields)
    local point = c[1]
    if mode == "direct" then
      if point ~= nil then fail(cpath .. "[1]", "a child of a direct node has no point: { nil, motion }") end
    elseif type(point) == "table" then
      local coords, m = list(point, cpath .. "[1]")
      for k = 1, m do number(coords[k], ("%s[1][%d]"):format(cpath, k)) end
      point = coords
    else
      number(point, cpath .. "[1]")
    end
    points[i] = point
    kids[i] = { motion = motion(c[2], ctx, cpath .. "[2]", depth + 1),
      rate = number(c.rate, cpath .. ".rate", 1, 1e-6, 1e6) }
  end
  if mode == "direct" then -- one input per child: the points only number them
    for i = 1, n do points[i] = i end
  end
  local sdef = { mode = mode, points = points }
  for k in each, space_options do
    local x = v[k]
    if type(x) == "table" then x = own(x, path .. "." .. k) end
    sdef[k] = x
  end
  local space = Fault.core(path, core.blendspace, sdef)
  local sync = v.sync
  if sync ~= nil and sync ~= true and sync ~= false and sync ~= "leader" then
    fail(path .. ".sync", "must be true, false or \"leader\" (got %s)", show(sync))
  end
  -- children playing the same clip are merged: sampled once, weights summed
  local unique, unique_of, by_clip = {}, {}, {}
  local height, count = 0, 1
  for i, kid in ipairs(kids) do
    local key = kid.motion.kind == "clip" and kid.motion.clip or nil
    local u = key and by_clip[key]
    if not u then
      unique[#unique + 1] = { motion = kid.motion }
      u = #unique
      if key then by_clip[key] = u end
      count = count + kid.motion.count
    end
    unique_of[i] = u
    if kid.motion.height + 1 > height then height = kid.motion.height + 1 end
  end
  return { kind = "blend", mode = mode, space = space, params = names, sync = sync or false, children = kids,
    rotation = rotation, unique = unique, unique_of = unique_of, height = height, count = count }
end

-- a motion: a clip (object or name in resources.clips), or a blend node; one compiled motion per
-- table of the caller's, however many places use it
function motion(v, ctx, path, depth)
  if depth > limits.depth then
    fail(path, "blend nodes and sub-state machines nest more than %d deep (the limit)", limits.depth)
  end
  if type(v) == "string" then
    local c = resource(ctx, "clips", v, path)
    if not is_clip(c, ctx) then fail(path, "clips['%s'] is not a sinew clip (got %s)", v, type(c)) end
    v = c
  end
  if is_clip(v, ctx) then return clip_motion(v, ctx, path) end
  if type(v) ~= "table" then fail(path, "must be a clip, a clip name or a blend node (got %s)", type(v)) end
  local m = ctx.nodes[v]
  if m == BUSY then fail(path, "a blend node that contains itself") end
  if m == nil then
    ctx.nodes[v] = BUSY
    m = blend_node(v, ctx, path, depth)
    ctx.nodes[v] = m
  end
  return sized(m, path, depth)
end

-- ---- states and transitions -----------------------------------------------------------------------

-- the timed events in time order, then in the order given ("enter" and "exit" first; the sort is
-- not stable, hence the index)
local function by_time(a, b)
  local ta, tb = type(a.at) == "number" and a.at or -1, type(b.at) == "number" and b.at or -1
  if ta ~= tb then return ta < tb end
  return a.index < b.index
end

local function events(v, path)
  local evs, n = list(v, path, true)
  local out = {}
  for i = 1, n do
    local epath = ("%s[%d]"):format(path, i)
    local e = own(evs[i], epath, { [1] = true, [2] = true })
    local at, name = e[1], e[2]
    if at ~= "enter" and at ~= "exit" then at = number(at, epath .. "[1]", nil, 0, 1) end
    string_at(name, epath .. "[2]")
    out[i] = { at = at, name = name, index = i }
  end
  table.sort(out, by_time)
  return out
end

-- a state playing one clip also fires the events its kind says the clip holds (the frame events of
-- a DragonBones animation: kind.clip_events(clip) -> { { at = 0 .. 1, name = ... }, ... }), after
-- the state's own at the same time
local function clip_events(ctx, m, out)
  local of = ctx.kind.clip_events
  if m.kind ~= "clip" or of == nil then return out end
  local n = #out
  for i, e in ipairs(of(m.clip)) do out[n + i] = { at = e.at, name = e.name, index = n + i } end
  table.sort(out, by_time)
  return out
end

local curves = { linear = true, smoothstep = true }

--- The destination's weight at progress `x` (0 .. 1) of a cross-fade with compiled curve `c`
-- ("linear", "smoothstep", or a list of values at equal steps, linear between).
function M.curve_at(c, x)
  if x <= 0 then return 0 elseif x >= 1 then return 1 end
  if c == "linear" then return x end
  if c == "smoothstep" then return x * x * (3 - 2 * x) end
  local n = #c - 1
  local f = x * n
  local i = floor(f)
  if i >= n then return c[n + 1] end
  return c[i + 1] + (c[i + 2] - c[i + 1]) * (f - i)
end

local function curve(c, path)
  if c == nil then return "linear" end
  if type(c) == "string" then
    if not curves[c] then fail(path, "unknown curve %s (linear, smoothstep or a list of values)", show(c)) end
    return c
  end
  local values, n = list(c, path)
  if n < 2 then fail(path, "a curve table needs at least 2 values") end
  for i = 1, n do number(values[i], ("%s[%d]"):format(path, i), nil, 0, 1) end
  return values
end

local machine_body, state_motion -- (mutually recursive with the states below)

local interruptions = { none = true, source = true, destination = true, source_then_destination = true,
  destination_then_source = true }
local transition_fields = { from = true, to = true, when = true, duration = true, fixed_duration = true,
  exit_time = true, offset = true, curve = true, interruption = true, mode = true, can_self = true }

local function transition(t, states, params, path, nested)
  t = own(t, path, transition_fields)
  local from, to = t.from, t.to
  if from ~= "any" then
    string_at(from, path .. ".from")
    if not states[from] then fail(path .. ".from", "unknown state '%s'", from) end
  end
  string_at(to, path .. ".to")
  if not states[to] and not (nested and to == "exit") then
    fail(path .. ".to", "unknown state '%s'%s", to, nested and "" or " ('exit' is for sub-state machines)")
  end
  local when, nconds = list(t.when, path .. ".when", true)
  local conds = {}
  for i = 1, nconds do conds[i] = condition(when[i], params, ("%s.when[%d]"):format(path, i)) end
  local exit_time = t.exit_time ~= nil and number(t.exit_time, path .. ".exit_time", nil, 0, 1e6) or nil
  if exit_time == nil and #conds == 0 then
    fail(path, "a transition needs conditions ('when') or an exit_time")
  end
  if from == "any" and exit_time ~= nil then fail(path .. ".exit_time", "a transition from 'any' has no exit time") end
  local mode = t.mode or "crossfade"
  if mode ~= "crossfade" and mode ~= "inertialize" then
    fail(path .. ".mode", "unknown mode %s (crossfade or inertialize)", show(mode))
  end
  local interruption = t.interruption or "none"
  if not interruptions[interruption] then
    fail(path .. ".interruption", "unknown interruption source %s", show(interruption))
  end
  if t.fixed_duration ~= nil and type(t.fixed_duration) ~= "boolean" then
    fail(path .. ".fixed_duration", "must be a boolean (got %s)", show(t.fixed_duration))
  end
  if t.can_self ~= nil and type(t.can_self) ~= "boolean" then
    fail(path .. ".can_self", "must be a boolean (got %s)", show(t.can_self))
  end
  return {
    from = from, to = to, conditions = conds, exit_time = exit_time,
    duration = number(t.duration, path .. ".duration", 0, 0, 1e6),
    fixed = t.fixed_duration ~= false,
    offset = number(t.offset, path .. ".offset", 0, 0, 1),
    curve = t.curve == nil and mode == "inertialize" and "smoothstep" or curve(t.curve, path .. ".curve"),
    inertialize = mode == "inertialize",
    interruption = interruption,
    can_self = t.can_self == true or (from ~= "any" and from == to),
    path = path,
  }
end

local function bad_state_name(k) return type(k) ~= "string" or k == "" or k == "any" end

local state_fields = { motion = true, speed = true, speed_parameter = true, loop = true, events = true }

-- the states, entry and transitions of a layer or of a sub-state machine (`nested`: transitions
-- may go to "exit"), `def` the private copy of its table, the machine at `depth` (a layer at 0)
function machine_body(def, path, ctx, nested, depth)
  local states, order = {}, {}
  local sdefs = own(def.states, path .. ".states")
  local bad = first_key(sdefs, bad_state_name)
  if bad ~= nil then fail(path .. ".states", "state names must be strings other than 'any' (got %s)", show(bad)) end
  for sname in each, sdefs do order[#order + 1] = sname end
  if #order == 0 then fail(path .. ".states", "a state machine needs states") end
  if #order > limits.states then
    fail(path .. ".states", "%d states, more than the limit of %d", #order, limits.states)
  end
  table.sort(order)
  local height, count = 0, 0
  for _, sname in ipairs(order) do
    local spath = path .. ".states." .. sname
    local s = own(sdefs[sname], spath, state_fields)
    if s.motion == nil then fail(spath .. ".motion", "a state needs a motion") end
    if s.loop ~= nil and type(s.loop) ~= "boolean" then fail(spath .. ".loop", "must be a boolean (got %s)", show(s.loop)) end
    local sp = s.speed_parameter
    if sp ~= nil then
      string_at(sp, spath .. ".speed_parameter")
      local p = ctx.params[sp]
      if not p then fail(spath .. ".speed_parameter", "unknown parameter '%s'", sp) end
      if p.kind ~= "float" and p.kind ~= "int" then
        fail(spath .. ".speed_parameter", "parameter '%s' is a %s, not a number", sp, p.kind)
      end
    end
    local m = state_motion(s.motion, ctx, spath .. ".motion", depth)
    states[sname] = { name = sname, motion = m,
      speed = number(s.speed, spath .. ".speed", 1, -1e6, 1e6), speed_parameter = sp, loop = s.loop ~= false,
      events = clip_events(ctx, m, events(s.events, spath .. ".events")), transitions = {} }
    if m.height > height then height = m.height end
    count = count + m.count
    if count > limits.instances then
      fail(path .. ".states", "play more than %d motion instances (the limit; a node used in several places counts in each)",
        limits.instances)
    end
  end
  local entry = def.entry
  if entry == nil then
    if #order > 1 then fail(path .. ".entry", "a layer of several states needs an entry state") end
    entry = order[1]
  end
  string_at(entry, path .. ".entry")
  if not states[entry] then fail(path .. ".entry", "unknown state '%s'", entry) end
  -- transitions in definition order (their priority): each state's list holds its own and the
  -- 'any' transitions, merged in that order
  local tdefs, n = list(def.transitions, path .. ".transitions", true)
  if n > limits.transitions then
    fail(path .. ".transitions", "%d transitions, more than the limit of %d", n, limits.transitions)
  end
  local all, own_of, any = {}, {}, {}
  local inertial = false
  for i = 1, n do
    local t = transition(tdefs[i], states, ctx.params, ("%s.transitions[%d]"):format(path, i), nested)
    t.index = i
    all[i] = t
    inertial = inertial or t.inertialize
    if t.from == "any" then
      if t.to ~= "exit" then any[#any + 1] = t end
    else
      local l = own_of[t.from]
      if not l then l = {}; own_of[t.from] = l end
      l[#l + 1] = t
    end
  end
  -- the checks the states' lists will hold (each 'any' transition in every state but its
  -- destination, unless it may go to itself), against the limit before any list is made
  local checks = 0
  for i = 1, n do
    local t = all[i]
    if t.from ~= "any" then checks = checks + 1
    elseif t.to ~= "exit" then checks = checks + #order - (t.can_self and 0 or 1) end
  end
  ctx.checks = ctx.checks + checks
  if ctx.checks > limits.checks then
    fail(path .. ".transitions", "the states check more than %d transitions (the limit; a transition from 'any' "
      .. "counts once in every state)", limits.checks)
  end
  -- what travel takes where no path leads: an instant switch into each state
  for _, sname in ipairs(order) do
    states[sname].teleport = { from = "any", to = sname, conditions = {}, duration = 0, fixed = true, offset = 0,
      curve = "linear", interruption = "none", can_self = true, index = 0 }
  end
  -- each state's list: its own transitions and the 'any' ones merged by their index
  local empty = {}
  for _, sname in ipairs(order) do
    local state = states[sname]
    local list_out, mine = state.transitions, own_of[sname] or empty
    local i, j = 1, 1
    while i <= #mine or j <= #any do
      local a, b = mine[i], any[j]
      local t
      if b == nil or (a ~= nil and a.index < b.index) then t, i = a, i + 1 else t, j = b, j + 1 end
      if t.from ~= "any" or t.to ~= sname or t.can_self then
        list_out[#list_out + 1] = t
        if t.exit_time then state.exit_times = true end
      end
    end
  end
  return { states = states, order = order, entry = entry, transitions = all, inertial = inertial,
    height = height, count = count }
end

local machine_fields = { entry = true, states = true, transitions = true }

local function nested_too_deep(path)
  fail(path, "blend nodes and sub-state machines nest more than %d deep (the limit)", limits.depth)
end

-- a sub-state machine as a state's motion, at `depth`: { entry, states, transitions } written in
-- place, or { machine = "name" } for one of the definition's `machines` (reusable; no cycles).
-- Each is compiled once per layer (its events carry the layer's name).
local function sub_machine(v, ctx, path, depth)
  if depth > limits.depth then nested_too_deep(path) end
  local copy = own(v, path)
  local key, mpath, named, cycle = v, path, nil, "a sub-state machine that contains itself"
  if copy.machine ~= nil then
    local bad = first_key(copy, unknown, { machine = true })
    if bad ~= nil then fail(path, "unknown field %s", show(bad)) end
    local name = copy.machine
    named = type(name) == "string" and ctx.machines[name]
    if not named then fail(path .. ".machine", "unknown state machine %s", show(name)) end
    key, mpath, path = "machines." .. name, "machines." .. name, path .. ".machine"
    cycle = ("a cycle of sub-state machines through '%s'"):format(name)
  end
  local out = ctx.layer_machines[key]
  if out == BUSY then fail(path, "%s", cycle) end
  if out == nil then
    ctx.layer_machines[key] = BUSY
    local def
    if named then
      def = own(named, mpath, machine_fields)
    else
      def = copy
      local bad = first_key(def, unknown, machine_fields)
      if bad ~= nil then fail(path, "unknown field %s", show(bad)) end
    end
    out = machine_body(def, mpath, ctx, true, depth)
    out.kind, out.name, out.mode, out.weight = "machine", ctx.layer_name, "override", 1
    out.height, out.count = out.height + 1, out.count + 1
    ctx.layer_machines[key] = out
  end
  return sized(out, path, depth)
end

-- a state's motion: a clip, a blend node or a sub-state machine, in a state machine at `depth`
function state_motion(v, ctx, path, depth)
  if type(v) == "table" and rawget(v, "blend") == nil
    and (rawget(v, "states") ~= nil or rawget(v, "entry") ~= nil or rawget(v, "machine") ~= nil) then
    return sub_machine(v, ctx, path, depth + 1)
  end
  return motion(v, ctx, path, depth + 1)
end

-- a layer synced to an earlier layer (Unity's sync layers): that layer's states and timing, its
-- own motions (`motions = { state = motion }`; a state not listed plays the other's motion)
local function synced(def, path, ctx, index, done)
  if def.states ~= nil or def.transitions ~= nil or def.entry ~= nil then
    fail(path, "a synced layer has motions, not states, transitions or an entry")
  end
  local name = def.sync
  if type(name) ~= "string" or not done.names[name] then
    fail(path .. ".sync", "unknown layer %s (a synced layer follows an earlier layer)", show(name))
  end
  local src = done.list[done.names[name]]
  if src.synced then fail(path .. ".sync", "layer '%s' is synced itself", name) end
  local motions = own(def.motions, path .. ".motions", nil, true) or {}
  local bad = first_key(motions, unknown, src.states)
  if bad ~= nil then fail(path .. ".motions", "layer '%s' has no state %s", name, show(bad)) end
  local out, count = {}, 0
  for _, sname in ipairs(src.order) do
    local mpath = path .. ".motions." .. sname
    if motions[sname] ~= nil then
      out[sname] = motion(motions[sname], ctx, mpath, 1)
    elseif src.states[sname].motion.kind == "machine" then
      fail(path .. ".motions", "state '%s' of '%s' plays a sub-state machine: give the synced layer a motion for it",
        sname, name)
    else
      out[sname] = src.states[sname].motion
    end
    count = count + 2 * out[sname].count -- both sides of a fade
    if count > limits.instances then
      fail(path .. ".motions", "play more than %d motion instances (the limit; a synced layer's motions count twice)",
        limits.instances)
    end
  end
  return { synced = done.names[name], motions = out, index = index, count = count }
end

local layer_fields = { name = true, entry = true, states = true, transitions = true, weight = true, mask = true,
  mode = true, reference = true, sync = true, motions = true, ik = true }

local function layer(src, index, ctx, first, done)
  local path = ("layers[%d]"):format(index)
  local def = own(src, path, layer_fields)
  if first and def.sync ~= nil then fail(path .. ".sync", "the first layer is not synced to another") end
  if def.motions ~= nil and def.sync == nil then fail(path .. ".motions", "only a synced layer has motions") end
  local name = def.name == nil and ("layer" .. index) or string_at(def.name, path .. ".name")
  ctx.layer_name, ctx.layer_machines = name, {}
  local mode = def.mode or "override"
  if mode ~= "override" and mode ~= "additive" then
    fail(path .. ".mode", "unknown mode %s (override or additive)", show(mode))
  end
  local mask = def.mask
  if type(mask) == "string" then
    local m = resource(ctx, "masks", mask, path .. ".mask")
    mask = m
  end
  if mask ~= nil then
    if not PoseKind.is(ctx.kind, mask, ctx.Mask) then fail(path .. ".mask", "must be a sinew mask") end
    if mask:skeleton() ~= ctx.skeleton then fail(path .. ".mask", "mask of another skeleton") end
  end
  if first and (mode ~= "override" or mask ~= nil or (def.weight ~= nil and def.weight ~= 1)) then
    fail(path, "the first layer is the base: override, weight 1, no mask")
  end
  local reference = def.reference
  if reference ~= nil then
    if mode ~= "additive" then fail(path .. ".reference", "only an additive layer has a reference pose") end
    if type(reference) == "string" then
      local p = resource(ctx, "poses", reference, path .. ".reference")
      reference = p
    end
    if not PoseKind.is(ctx.kind, reference, ctx.Pose) then
      fail(path .. ".reference", "must be a sinew pose or a pose name")
    end
    if reference:skeleton() ~= ctx.skeleton then fail(path .. ".reference", "pose of another skeleton") end
  end
  local weight = number(def.weight, path .. ".weight", 1, 0, 1)
  if def.sync ~= nil then
    local out = synced(def, path, ctx, index, done)
    out.name, out.mode, out.weight, out.mask, out.reference = name, mode, weight, mask, reference
    out.ik = IK.list(def.ik, path .. ".ik", ctx, ctx.targets, done.list[out.synced].states)
    return out
  end
  local m = machine_body(def, path, ctx, false, 0)
  return { name = name, index = index, mode = mode, weight = weight,
    inertial = m.inertial, mask = mask, reference = reference, states = m.states, order = m.order, entry = m.entry,
    transitions = m.transitions, count = m.count, ik = IK.list(def.ik, path .. ".ik", ctx, ctx.targets, m.states) }
end

--- Compiles a definition. `resources` holds `clips`, `masks` and `poses` tables for names. Also
-- gives `clip_names` (clip -> its name in `resources.clips`).
function M.compile(src, resources)
  local def = own(src, "definition",
    { skeleton = true, parameters = true, layers = true, root_motion = true, machines = true, targets = true,
      ik = true })
  local skeleton = def.skeleton
  local kind = PoseKind.of(skeleton)
  if not kind then
    fail("skeleton", "must be a sinew skeleton (got %s)", type(skeleton))
  end
  local root_motion = nil
  if def.root_motion ~= nil then
    string_at(def.root_motion, "root_motion")
    if not kind.root_motion then fail("root_motion", "a skeleton of %s has no root motion", kind.name) end
    root_motion = skeleton:find(def.root_motion)
    if not root_motion then fail("root_motion", "unknown joint '%s'", def.root_motion) end
  end
  -- the resources: the three tables of names, copied like the definition
  local res = {}
  local given = own(resources, "resources", nil, true) or {}
  -- (the three written out: LuaJIT 2.1.0-beta3's JIT can miscompile `ipairs` over a table
  -- constructor in a hot loop; see lua/sinew/dragonbones/compile.lua)
  res.clips = own(given.clips, "resources.clips", nil, true)
  res.masks = own(given.masks, "resources.masks", nil, true)
  res.poses = own(given.poses, "resources.poses", nil, true)
  res.ik = own(given.ik, "resources.ik", nil, true)
  local clip_names = {}
  local named = {} -- a clip given under several names is known by the first (in Fault.before's order)
  for name, clip in each, res.clips or {} do
    if PoseKind.is(kind, clip, kind.Clip) and (named[clip] == nil or Fault.before(name, named[clip])) then
      named[clip] = name
    end
  end
  for clip, name in each, named do clip_names[clip] = type(name) == "string" and name or show(name) end
  local ctx = { skeleton = skeleton, resources = res, clips = {}, nodes = {}, checks = 0,
    machines = own(def.machines, "machines", nil, true) or {},
    kind = kind, Mask = kind.Mask, Pose = kind.Pose, Clip = kind.Clip }
  ctx.params = parameters(def.parameters, "parameters")
  ctx.read = { own = own, list = list, number = number, resource = resource }
  ctx.targets = IK.targets(def.targets, ctx.read, ctx.params, limits.value)
  local layers, n = list(def.layers, "layers")
  if n == 0 then fail("layers", "an animator needs a layer") end
  local out, names, count = {}, {}, 0
  for i = 1, n do
    out[i] = layer(layers[i], i, ctx, i == 1, { names = names, list = out })
    if names[out[i].name] then fail(("layers[%d].name"):format(i), "layers %d and %d are both named '%s'",
      names[out[i].name], i, out[i].name) end
    names[out[i].name] = i
    count = count + out[i].count
    if count > limits.instances then
      fail(("layers[%d]"):format(i), "the layers play more than %d motion instances (the limit)", limits.instances)
    end
  end
  return { skeleton = skeleton, params = ctx.params, layers = out, layer_index = names, clips = ctx.clips,
    clip_names = clip_names, root_motion = root_motion, targets = ctx.targets,
    ik = IK.list(def.ik, "ik", ctx, ctx.targets, nil) }
end

return M
