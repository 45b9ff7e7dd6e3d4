--- The animator's definition: checks a plain-data definition table and compiles it into the
-- structures the runtime walks (parameters, layers, states, transitions with compiled conditions,
-- motion trees with their blend spaces). Every fault raises with the path of the value in the
-- definition: `layers[1].transitions[3].to: unknown state 'nowhere'`.
-- @module sinew.animator.definition
local core = require "sinew.core"

local M = {}

local floor, huge = math.floor, math.huge

-- ---- faults --------------------------------------------------------------------------------------

local Fault = {}

--- Raises a definition fault at `path`: caught by the constructor, which re-raises it at the caller.
local function fail(path, fmt, ...)
  error(setmetatable({ msg = (path ~= "" and path .. ": " or "") .. fmt:format(...) }, Fault), 0)
end
M.fail = fail

--- The message of a fault raised by `fail`, or nil for any other error.
function M.fault_message(e)
  if getmetatable(e) == Fault then return e.msg end
  return nil
end

local function show(v)
  if type(v) == "string" then return "'" .. v .. "'" end
  if type(v) == "number" then
    if v ~= v then return "nan" end -- its sign means nothing
    return ("%g"):format(v)
  end
  return type(v)
end
M.show = show

local function finite(v) return type(v) == "number" and v == v and v > -huge and v < huge end
M.finite = finite

local function number(v, path, dflt, lo, hi)
  if v == nil and dflt ~= nil then return dflt end
  if not finite(v) then fail(path, "must be a finite number (got %s)", show(v)) end
  if (lo and v < lo) or (hi and v > hi) then
    fail(path, "%s is out of range (%s .. %s)", show(v), lo and show(lo) or "-inf", hi and show(hi) or "inf")
  end
  return v
end

local function table_at(v, path, optional)
  if v == nil and optional then return nil end
  if type(v) ~= "table" then fail(path, "must be a table (got %s)", type(v)) end
  return v
end

local function string_at(v, path, optional)
  if v == nil and optional then return nil end
  if type(v) ~= "string" or v == "" then fail(path, "must be a non-empty string (got %s)", show(v)) end
  return v
end

-- the keys of `t` must all be in `known` (a typo is an error, not a silent default)
local function known_keys(t, known, path)
  for k in pairs(t) do
    if not known[k] then fail(path, "unknown field %s", show(k)) end
  end
end

-- ---- parameters -----------------------------------------------------------------------------------

--- Parameters: name -> { kind = "float" | "int" | "bool" | "trigger", value }. A number is a float,
-- a boolean a bool, "trigger" a trigger, `{ int = n }` or `{ float = x }` the typed forms.
local function parameters(def, path)
  local out = {}
  for name, v in pairs(table_at(def, path, true) or {}) do
    local p = path .. "." .. tostring(name)
    if type(name) ~= "string" or name == "" then fail(path, "parameter names must be strings (got %s)", show(name)) end
    if type(v) == "number" then
      out[name] = { kind = "float", value = number(v, p) }
    elseif type(v) == "boolean" then
      out[name] = { kind = "bool", value = v }
    elseif v == "trigger" then
      out[name] = { kind = "trigger", value = false }
    elseif type(v) == "table" then
      known_keys(v, { int = true, float = true, smoothing = true }, p)
      if v.int ~= nil then
        local n = number(v.int, p .. ".int")
        if n ~= floor(n) then fail(p .. ".int", "%s is not an integer", show(n)) end
        if v.float ~= nil then fail(p, "is an int or a float, not both") end
        if v.smoothing ~= nil then fail(p .. ".smoothing", "only a float parameter is smoothed") end
        out[name] = { kind = "int", value = n }
      else
        out[name] = { kind = "float", value = number(v.float, p .. ".float"),
          smoothing = v.smoothing ~= nil and number(v.smoothing, p .. ".smoothing", nil, 0, 1e6) or nil }
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

-- a condition: { param, op (1..6, or 0 for a bool that must be true or a trigger), value }
local function condition(c, params, path)
  table_at(c, path)
  local name = c[1]
  if type(name) ~= "string" then fail(path .. "[1]", "must be a parameter name (got %s)", show(name)) end
  local p = params[name]
  if not p then fail(path .. "[1]", "unknown parameter '%s'", name) end
  if c[2] == nil then
    if p.kind ~= "bool" and p.kind ~= "trigger" then
      fail(path, "%s parameter '%s' needs an operator and a value", p.kind, name)
    end
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
  if c[4] ~= nil then fail(path, "has more than 3 entries") end
  return { name = name, op = op, value = v, kind = p.kind }
end

-- ---- motions ---------------------------------------------------------------------------------------

local blend_modes = { ["1d"] = 1, simple_directional = 2, freeform_cartesian = 0, freeform_directional = 2,
  triangulated = 0, grid = 2, idw = 0, direct = -1 }
local space_options = { alpha = true, power = true, normalize_axes = true, grid = true, normalize = true }

local Clip = core.clip and getmetatable(core.clip { skeleton = core.skeleton { names = { "a" }, parents = { 0 } },
  tracks = {} })

local function is_clip(v) return type(v) == "userdata" and getmetatable(v) == Clip end

local motion

-- a motion: a clip (object or name in resources.clips), or a blend node
function motion(v, ctx, path, depth)
  if depth > 64 then fail(path, "blend nodes nest more than 64 deep") end
  if type(v) == "string" then
    local clips = ctx.resources.clips
    local c = clips and clips[v]
    if c == nil then fail(path, "unknown clip '%s'", v) end
    if not is_clip(c) then fail(path, "clips['%s'] is not a sinew clip (got %s)", v, type(c)) end
    v = c
  end
  if is_clip(v) then
    if v:skeleton() ~= ctx.skeleton then fail(path, "clip of another skeleton") end
    ctx.clips[v] = true
    return { kind = "clip", clip = v, duration = v:duration() }
  end
  if type(v) ~= "table" then fail(path, "must be a clip, a clip name or a blend node (got %s)", type(v)) end
  if v.blend == nil then
    if v.states ~= nil or v.entry ~= nil or v.machine ~= nil then
      fail(path, "a sub-state machine is a state's motion, not a child of a blend node")
    end
    fail(path .. ".blend", "a blend node needs a mode (got nil)")
  end
  known_keys(v, { blend = true, parameter = true, parameters = true, children = true, sync = true, alpha = true,
    power = true, normalize_axes = true, grid = true, normalize = true, rotation = true }, path)
  local rotation = v.rotation or "nlerp"
  if rotation ~= "nlerp" and rotation ~= "power" and rotation ~= "karcher" and rotation ~= "markley" then
    fail(path .. ".rotation", "unknown rotation averaging %s (nlerp, power, karcher or markley)", show(rotation))
  end
  local mode = v.blend
  if type(mode) ~= "string" or blend_modes[mode] == nil then
    fail(path .. ".blend", "unknown blend mode %s", show(mode))
  end
  local children = table_at(v.children, path .. ".children")
  local n = #children
  if n == 0 then fail(path .. ".children", "a blend node needs children") end
  -- the parameters: one name for 1d (parameter or parameters), a list otherwise
  local names = v.parameters
  if names == nil and v.parameter ~= nil then names = { v.parameter } end
  if mode == "1d" and type(v.parameters) == "string" then names = { v.parameters } end
  table_at(names, path .. ".parameters")
  local dims = blend_modes[mode]
  if mode == "direct" then dims = n end
  if dims == 0 then dims = #names end
  if #names ~= dims then
    fail(path .. ".parameters", "mode '%s' takes %d parameter%s (got %d)", mode, dims, dims == 1 and "" or "s", #names)
  end
  for i, name in ipairs(names) do
    local p = ctx.params[name]
    if type(name) ~= "string" then fail(("%s.parameters[%d]"):format(path, i), "must be a parameter name") end
    if not p then fail(("%s.parameters[%d]"):format(path, i), "unknown parameter '%s'", name) end
    if p.kind ~= "float" and p.kind ~= "int" then
      fail(("%s.parameters[%d]"):format(path, i), "parameter '%s' is a %s, not a number", name, p.kind)
    end
  end
  -- the children: { point, motion, rate = r }
  local points, kids = {}, {}
  for i = 1, n do
    local cpath = ("%s.children[%d]"):format(path, i)
    local c = table_at(children[i], cpath)
    known_keys(c, { [1] = true, [2] = true, rate = true }, cpath)
    local point = c[1]
    if mode == "direct" then
      if point ~= nil then fail(cpath .. "[1]", "a child of a direct node has no point: { nil, motion }") end
    elseif type(point) == "table" then
      for k = 1, #point do number(point[k], ("%s[1][%d]"):format(cpath, k)) end
    else
      number(point, cpath .. "[1]")
    end
    points[i] = point
    kids[i] = { motion = motion(c[2], ctx, cpath .. "[2]", depth + 1), rate = number(c.rate, cpath .. ".rate", 1, 1e-6, 1e6) }
  end
  if mode == "direct" then -- one input per child: the points only number them
    for i = 1, n do points[i] = i end
  end
  local sdef = { mode = mode, points = points }
  for k in pairs(space_options) do sdef[k] = v[k] end
  local ok, space = pcall(core.blendspace, sdef)
  if not ok then fail(path, "%s", (tostring(space):gsub("^bad argument #1 to '[^']*' %((.*)%)$", "%1"))) end
  local sync = v.sync
  if sync ~= nil and sync ~= true and sync ~= false and sync ~= "leader" then
    fail(path .. ".sync", "must be true, false or \"leader\" (got %s)", show(sync))
  end
  -- children playing the same clip are merged: sampled once, weights summed
  local unique, unique_of, by_clip = {}, {}, {}
  for i, kid in ipairs(kids) do
    local key = kid.motion.kind == "clip" and kid.motion.clip or nil
    local u = key and by_clip[key]
    if not u then
      unique[#unique + 1] = { motion = kid.motion }
      u = #unique
      if key then by_clip[key] = u end
    end
    unique_of[i] = u
  end
  return { kind = "blend", mode = mode, space = space, params = names, sync = sync or false, children = kids,
    rotation = rotation,
    unique = unique, unique_of = unique_of }
end

-- ---- states and transitions -----------------------------------------------------------------------

local function events(list, path)
  local out = {}
  for i, e in ipairs(table_at(list, path, true) or {}) do
    local epath = ("%s[%d]"):format(path, i)
    table_at(e, epath)
    local at, name = e[1], e[2]
    if at ~= "enter" and at ~= "exit" then at = number(at, epath .. "[1]", nil, 0, 1) end
    string_at(name, epath .. "[2]")
    out[#out + 1] = { at = at, name = name }
  end
  -- the timed ones in time order
  table.sort(out, function(a, b)
    local ta, tb = type(a.at) == "number" and a.at or -1, type(b.at) == "number" and b.at or -1
    return ta < tb
  end)
  return out
end

local curves = { linear = true, smoothstep = true }

local function curve(c, path)
  if c == nil then return "linear" end
  if type(c) == "string" then
    if not curves[c] then fail(path, "unknown curve %s (linear, smoothstep or a list of values)", show(c)) end
    return c
  end
  table_at(c, path)
  if #c < 2 then fail(path, "a curve table needs at least 2 values") end
  local out = {}
  for i = 1, #c do out[i] = number(c[i], ("%s[%d]"):format(path, i)) end
  return out
end

local machine_body, state_motion -- (mutually recursive with the states below)

local interruptions = { none = true, source = true, destination = true, source_then_destination = true,
  destination_then_source = true }

local function transition(t, states, params, path, nested)
  table_at(t, path)
  known_keys(t, { from = true, to = true, when = true, duration = true, fixed_duration = true, exit_time = true,
    offset = true, curve = true, interruption = true, mode = true, can_self = true }, path)
  local from = t.from
  if from ~= "any" then
    string_at(from, path .. ".from")
    if not states[from] then fail(path .. ".from", "unknown state '%s'", from) end
  end
  string_at(t.to, path .. ".to")
  if not states[t.to] and not (nested and t.to == "exit") then
    fail(path .. ".to", "unknown state '%s'%s", t.to, nested and "" or " ('exit' is for sub-state machines)")
  end
  local conds = {}
  for i, c in ipairs(table_at(t.when, path .. ".when", true) or {}) do
    conds[i] = condition(c, params, ("%s.when[%d]"):format(path, i))
  end
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
    from = from, to = t.to, conditions = conds, exit_time = exit_time,
    duration = number(t.duration, path .. ".duration", 0, 0, 1e6),
    fixed = t.fixed_duration ~= false,
    offset = number(t.offset, path .. ".offset", 0, 0, 1),
    curve = t.curve == nil and mode == "inertialize" and "smoothstep" or curve(t.curve, path .. ".curve"),
    inertialize = mode == "inertialize",
    interruption = interruption,
    can_self = t.can_self == true or (from ~= "any" and from == t.to),
    path = path,
  }
end

-- the states, entry and transitions of a layer or of a sub-state machine (`nested`: transitions
-- may go to "exit")
function machine_body(def, path, ctx, nested)
  local states, order = {}, {}
  local sdefs = table_at(def.states, path .. ".states")
  for sname, s in pairs(sdefs) do
    local spath = path .. ".states." .. tostring(sname)
    if type(sname) ~= "string" or sname == "" or sname == "any" then
      fail(path .. ".states", "state names must be strings other than 'any' (got %s)", show(sname))
    end
    table_at(s, spath)
    known_keys(s, { motion = true, speed = true, speed_parameter = true, loop = true, events = true }, spath)
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
    states[sname] = { name = sname, motion = state_motion(s.motion, ctx, spath .. ".motion"),
      speed = number(s.speed, spath .. ".speed", 1, -1e6, 1e6), speed_parameter = sp, loop = s.loop ~= false,
      events = events(s.events, spath .. ".events"), transitions = {} }
    order[#order + 1] = sname
  end
  if #order == 0 then fail(path .. ".states", "a state machine needs states") end
  table.sort(order)
  local entry = def.entry
  if entry == nil then
    if #order > 1 then fail(path .. ".entry", "a layer of several states needs an entry state") end
    entry = order[1]
  end
  string_at(entry, path .. ".entry")
  if not states[entry] then fail(path .. ".entry", "unknown state '%s'", entry) end
  -- transitions in definition order (their priority): each state's list holds its own and the
  -- 'any' transitions, merged in that order
  local all = {}
  local inertial = false
  for i, t in ipairs(table_at(def.transitions, path .. ".transitions", true) or {}) do
    all[i] = transition(t, states, ctx.params, ("%s.transitions[%d]"):format(path, i), nested)
    all[i].index = i
    inertial = inertial or all[i].inertialize
  end
  -- what travel takes where no path leads: an instant switch into each state
  for _, sname in ipairs(order) do
    states[sname].teleport = { from = "any", to = sname, conditions = {}, duration = 0, fixed = true, offset = 0,
      curve = "linear", interruption = "none", can_self = true, index = 0 }
  end
  for _, sname in ipairs(order) do
    local list = states[sname].transitions
    for _, t in ipairs(all) do
      if t.from == sname or (t.from == "any" and t.to ~= "exit" and (t.to ~= sname or t.can_self)) then
        list[#list + 1] = t
        if t.exit_time then states[sname].exit_times = true end
      end
    end
  end
  return { states = states, order = order, entry = entry, transitions = all, inertial = inertial }
end

-- a sub-state machine as a state's motion: { entry, states, transitions } written in place, or
-- { machine = "name" } for one of the definition's `machines` (reusable; no cycles)
local function sub_machine(v, ctx, path)
  local mpath = path
  if v.machine ~= nil then
    known_keys(v, { machine = true }, path)
    local name = v.machine
    local m = type(name) == "string" and ctx.machines[name]
    if not m then fail(path .. ".machine", "unknown state machine %s", show(name)) end
    if ctx.compiling[name] then fail(path .. ".machine", "a cycle of sub-state machines through '%s'", name) end
    ctx.compiling[name] = true
    mpath = "machines." .. name
    v = table_at(m, mpath)
    known_keys(v, { entry = true, states = true, transitions = true }, mpath)
    local out = machine_body(v, mpath, ctx, true)
    ctx.compiling[name] = nil
    out.kind, out.name, out.mode, out.weight = "machine", ctx.layer_name, "override", 1
    return out
  end
  known_keys(v, { entry = true, states = true, transitions = true }, path)
  local out = machine_body(v, mpath, ctx, true)
  out.kind, out.name, out.mode, out.weight = "machine", ctx.layer_name, "override", 1
  return out
end

-- a state's motion: a clip, a blend node or a sub-state machine
function state_motion(v, ctx, path)
  if type(v) == "table" and (v.states ~= nil or v.entry ~= nil or v.machine ~= nil) and v.blend == nil then
    return sub_machine(v, ctx, path)
  end
  return motion(v, ctx, path, 0)
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
  local motions = table_at(def.motions, path .. ".motions", true) or {}
  for sname in pairs(motions) do
    if not src.states[sname] then fail(path .. ".motions", "layer '%s' has no state %s", name, show(sname)) end
  end
  local out = {}
  for _, sname in ipairs(src.order) do
    local mpath = path .. ".motions." .. sname
    if motions[sname] ~= nil then
      out[sname] = motion(motions[sname], ctx, mpath, 0)
    elseif src.states[sname].motion.kind == "machine" then
      fail(path .. ".motions", "state '%s' of '%s' plays a sub-state machine: give the synced layer a motion for it",
        sname, name)
    else
      out[sname] = src.states[sname].motion
    end
  end
  return { synced = done.names[name], motions = out, index = index }
end

local function layer(def, index, ctx, first, done)
  local path = ("layers[%d]"):format(index)
  table_at(def, path)
  known_keys(def, { name = true, entry = true, states = true, transitions = true, weight = true, mask = true,
    mode = true, reference = true, sync = true, motions = true }, path)
  if first and def.sync ~= nil then fail(path .. ".sync", "the first layer is not synced to another") end
  if def.motions ~= nil and def.sync == nil then fail(path .. ".motions", "only a synced layer has motions") end
  local name = def.name == nil and ("layer" .. index) or string_at(def.name, path .. ".name")
  ctx.layer_name = name
  local mode = def.mode or "override"
  if mode ~= "override" and mode ~= "additive" then
    fail(path .. ".mode", "unknown mode %s (override or additive)", show(mode))
  end
  local mask = def.mask
  if type(mask) == "string" then
    local m = ctx.resources.masks and ctx.resources.masks[mask]
    if m == nil then fail(path .. ".mask", "unknown mask '%s'", mask) end
    mask = m
  end
  if mask ~= nil then
    if type(mask) ~= "userdata" or getmetatable(mask) ~= ctx.Mask then fail(path .. ".mask", "must be a sinew mask") end
    if mask:skeleton() ~= ctx.skeleton then fail(path .. ".mask", "mask of another skeleton") end
  end
  if first and (mode ~= "override" or mask ~= nil or (def.weight ~= nil and def.weight ~= 1)) then
    fail(path, "the first layer is the base: override, weight 1, no mask")
  end
  local reference = def.reference
  if reference ~= nil then
    if mode ~= "additive" then fail(path .. ".reference", "only an additive layer has a reference pose") end
    if type(reference) == "string" then
      local p = ctx.resources.poses and ctx.resources.poses[reference]
      if p == nil then fail(path .. ".reference", "unknown pose '%s'", reference) end
      reference = p
    end
    if type(reference) ~= "userdata" or getmetatable(reference) ~= ctx.Pose then
      fail(path .. ".reference", "must be a sinew pose or a pose name")
    end
    if reference:skeleton() ~= ctx.skeleton then fail(path .. ".reference", "pose of another skeleton") end
  end
  local weight = number(def.weight, path .. ".weight", 1, 0, 1)
  if def.sync ~= nil then
    local out = synced(def, path, ctx, index, done)
    out.name, out.mode, out.weight, out.mask, out.reference = name, mode, weight, mask, reference
    return out
  end
  local m = machine_body(def, path, ctx, false)
  return { name = name, index = index, mode = mode, weight = weight,
    inertial = m.inertial, mask = mask, reference = reference, states = m.states, order = m.order, entry = m.entry,
    transitions = m.transitions }
end

--- Compiles a definition. `resources` holds `clips`, `masks` and `poses` tables for names.
function M.compile(def, resources)
  table_at(def, "definition")
  known_keys(def, { skeleton = true, parameters = true, layers = true, root_motion = true, machines = true },
    "definition")
  local skeleton = def.skeleton
  local Skeleton = getmetatable(core.skeleton { names = { "a" }, parents = { 0 } })
  if type(skeleton) ~= "userdata" or getmetatable(skeleton) ~= Skeleton then
    fail("skeleton", "must be a sinew skeleton (got %s)", type(skeleton))
  end
  local root_motion = nil
  if def.root_motion ~= nil then
    string_at(def.root_motion, "root_motion")
    root_motion = skeleton:find(def.root_motion)
    if not root_motion then fail("root_motion", "unknown joint '%s'", def.root_motion) end
  end
  resources = table_at(resources, "resources", true) or {}
  for _, k in ipairs { "clips", "masks", "poses" } do table_at(resources[k], "resources." .. k, true) end
  local ctx = { skeleton = skeleton, resources = resources, clips = {}, compiling = {},
    machines = table_at(def.machines, "machines", true) or {},
    Mask = getmetatable(core.mask(skeleton, {})), Pose = getmetatable(core.pose(skeleton)) }
  ctx.params = parameters(def.parameters, "parameters")
  local layers = table_at(def.layers, "layers")
  if #layers == 0 then fail("layers", "an animator needs a layer") end
  local out, names = {}, {}
  for i = 1, #layers do
    out[i] = layer(layers[i], i, ctx, i == 1, { names = names, list = out })
    if names[out[i].name] then fail(("layers[%d].name"):format(i), "layers %d and %d are both named '%s'",
      names[out[i].name], i, out[i].name) end
    names[out[i].name] = i
  end
  return { skeleton = skeleton, params = ctx.params, layers = out, layer_index = names, clips = ctx.clips,
    root_motion = root_motion }
end

return M
