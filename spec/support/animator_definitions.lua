-- The animator's definitions under stress, run in a child process by spec/animator_definition_spec.lua
-- (with time and memory caps, so that a runaway fails that spec instead of the run):
--   runaway <case> <n>   builds the definition of one runaway case of issue 21 and prints
--                        "refused <seconds> <KB> <message>" or "built <seconds> <KB> <update seconds>"
--   fuzz <seed> <count>  builds <count> randomly mutated definitions (proxies among them) and prints
--                        "fuzz <built> <refused> <built with a proxy inside>" or the first
--                        "bad ..." it meets
local sinew = require "sinew"
local helper = require "helper"

local skel = sinew.skeleton { names = { "hips", "spine", "head" }, parents = { 0, 1, 2 } }
local other = sinew.skeleton { names = { "x" }, parents = { 0 } }

local function line(d, x1)
  return sinew.clip { skeleton = skel, tracks = {
    { joint = "hips", path = "translation", times = { 0, d }, values = { 0, 0, 0, x1, 0, 0 } } } }
end
local clip = line(1, 1)

-- ---- runaway definitions -----------------------------------------------------------------------------

local runaway = {}

-- one blend node used twice at each of n levels: 2^n leaves as written out
function runaway.dag(n)
  local node = clip
  for _ = 1, n do node = { blend = "1d", parameter = "x", children = { { 0, node }, { 1, node } } } end
  return { layers = { { states = { s = { motion = node } } } } }
end

-- n named machines, each of two states playing the next
function runaway.machines(n)
  local machines = {}
  for i = 1, n do
    local m = i == n and clip or { machine = "m" .. (i + 1) }
    machines["m" .. i] = { entry = "a", states = { a = { motion = m }, b = { motion = m } },
      transitions = { { from = "a", to = "b", exit_time = 1 } } }
  end
  return { machines = machines, layers = { { states = { s = { motion = { machine = "m1" } } } } } }
end

-- a ring of n states, one transition each
function runaway.ring(n)
  local states, transitions = {}, {}
  for i = 1, n do
    states["s" .. i] = { motion = clip }
    transitions[i] = { from = "s" .. i, to = "s" .. (i % n + 1), exit_time = 1 }
  end
  return { layers = { { entry = "s1", states = states, transitions = transitions } } }
end

-- n states and n transitions from "any" (each state checks all of them)
function runaway.any(n)
  local states, transitions = {}, {}
  for i = 1, n do
    states["s" .. i] = { motion = clip }
    transitions[i] = { from = "any", to = "s" .. (i % n + 1), when = { { "x", ">", i } } }
  end
  return { layers = { { entry = "s1", states = states, transitions = transitions } } }
end

-- sub-state machines nested n deep
function runaway.deep(n)
  local m = clip
  for _ = 1, n do m = { entry = "a", states = { a = { motion = m } } } end
  return { layers = { { states = { s = { motion = m } } } } }
end

-- blend nodes nested n deep
function runaway.nest(n)
  local m = clip
  for _ = 1, n do m = { blend = "1d", parameter = "x", children = { { 0, m }, { 1, clip } } } end
  return { layers = { { states = { s = { motion = m } } } } }
end

local function run_case(name, n)
  local def = runaway[name](n)
  def.skeleton, def.parameters = skel, { x = 0 }
  collectgarbage("collect")
  local kb0 = collectgarbage("count")
  local t0 = os.clock()
  local ok, anim = pcall(sinew.animator, def)
  local t1 = os.clock()
  local kb = collectgarbage("count") - kb0
  if not ok then
    print(("refused %.3f %.0f %s"):format(t1 - t0, kb, tostring(anim):gsub("\n", " ")))
    return
  end
  local pose = sinew.pose(skel)
  for i = 1, 10 do anim:set("x", i % 2):update(0.25):evaluate(pose) end
  print(("built %.3f %.0f %.3f"):format(t1 - t0, kb, os.clock() - t1))
end

-- ---- random definitions --------------------------------------------------------------------------------

local clips = { a = line(1, 1), b = line(2, 20), walk = line(0.7, 7), run = line(1.16, 11.6),
  alien = sinew.clip { skeleton = other, tracks = {} } }
local masks = { upper = sinew.mask(skel, {}, 0):set("spine", 1, true) }
local resources = { clips = clips, masks = masks, poses = { rest = sinew.pose(skel) } }

local function base()
  return { skeleton = skel,
    parameters = { speed = 0, dir = { float = 0, smoothing = 0.1 }, n = { int = 1 }, on = true, jump = "trigger" },
    machines = { loco = { entry = "walk",
      states = { walk = { motion = "walk" }, run = { motion = "run", events = { { 0.5, "step" } } } },
      transitions = { { from = "walk", to = "run", when = { { "speed", ">", 1 } }, duration = 0.2 },
        { from = "run", to = "exit", exit_time = 1 } } } },
    layers = {
      { name = "base", entry = "idle",
        states = {
          idle = { motion = "a", events = { { "enter", "in" }, { 0.5, "mid" }, { "exit", "out" } } },
          move = { speed_parameter = "speed", motion = { blend = "1d", parameter = "speed", sync = true,
            children = { { 0, "walk" }, { 2, { blend = "simple_directional", parameters = { "speed", "dir" },
              children = { { { 0, 1 }, "run" }, { { 1, 0 }, "b" }, { { -1, 0 }, "a", rate = 2 },
                { { 0, -1 }, "walk" } } } } } } },
          sub = { motion = { machine = "loco" } },
          inner = { loop = false, motion = { entry = "x", states = { x = { motion = "a" }, y = { motion = "b" } },
            transitions = { { from = "x", to = "y", exit_time = 0.5 }, { from = "y", to = "exit", exit_time = 1 } } } },
          pair = { motion = { blend = "direct", parameters = { "speed", "dir" }, children = { { nil, "a" }, { nil, "b" } } } },
        },
        transitions = {
          { from = "idle", to = "move", when = { { "speed", ">", 0.1 } }, duration = 0.25, curve = { 0, 0.3, 1 } },
          { from = "any", to = "sub", when = { { "jump" } }, mode = "inertialize", duration = 0.2,
            interruption = "destination" },
          { from = "sub", to = "inner", exit_time = 0.9, fixed_duration = false, offset = 0.1 },
          { from = "inner", to = "pair", when = { { "on", "==", false }, { "n", ">=", 2 } }, curve = "smoothstep" },
          { from = "pair", to = "idle", exit_time = 1, interruption = "source_then_destination" },
        } },
      { name = "add", mode = "additive", weight = 0.5, mask = "upper", reference = "rest",
        states = { s = { motion = "b" } } },
      { name = "arms", sync = "base", mask = "upper", motions = { idle = "b", sub = "a", inner = "walk" } },
    } }
end

local names = { "idle", "move", "sub", "inner", "pair", "exit", "any", "a", "b", "walk", "run", "speed", "dir", "n",
  "on", "jump", "loco", "x", "y", "s", "base", "upper", "rest", "1d", "grid", "direct", "trigger", "" }

-- the keys of `t` in a fixed order (the order of `next` changes from run to run on Lua 5.4)
local function keys_of(t)
  local keys = {}
  for k in next, t do keys[#keys + 1] = k end
  table.sort(keys, function(a, b)
    if type(a) ~= type(b) then return type(a) < type(b) end
    if type(a) == "boolean" then return not a and b end
    return a < b
  end)
  return keys
end

-- every table of the definition reachable from `t` (not through userdata), in a fixed order
local function tables_of(t, out, seen)
  if seen[t] then return out end
  seen[t] = true
  out[#out + 1] = t
  for _, k in ipairs(keys_of(t)) do
    local v = rawget(t, k)
    if type(v) == "table" then tables_of(v, out, seen) end
  end
  return out
end

-- the definition as text (for a failure's report)
local function dump(t, ind, seen)
  if seen[t] then return "<seen>" end
  seen[t] = true
  local out = { getmetatable(t) and "<proxy> {" or "{" }
  for _, k in ipairs(keys_of(t)) do
    local v = rawget(t, k)
    out[#out + 1] = ind .. "  " .. tostring(k) .. " = " .. (type(v) == "table" and dump(v, ind .. "  ", seen) or tostring(v))
  end
  return table.concat(out, "\n") .. "\n" .. ind .. "}"
end

-- a table whose __index answers differently at each read (and whose other metamethods lie or raise)
local function liar(rng, src, raw)
  local reads = 0
  local inner = raw or {}
  return setmetatable(inner, {
    __index = function(_, k)
      reads = reads + 1
      if reads % 2 == 1 and type(src) == "table" then return src[k] end
      return names[math.floor(rng() * #names) + 1]
    end,
    __newindex = function() error("read-only proxy") end,
    __pairs = function() error("__pairs of a proxy") end,
    __len = function() return 1e9 end,
    __eq = function() return true end,
    __tostring = function() error("__tostring of a proxy") end,
    __call = function() error("__call of a proxy") end,
  })
end

local function value(rng, all)
  local pool = {
    function() return nil end,
    function() return 0 end, function() return -1 end, function() return 0.5 end, function() return 2 end,
    function() return 1.5 end, function() return 1e308 end, function() return -1e308 end,
    function() return 0 / 0 end, function() return math.huge end, function() return 1e9 end,
    function() return names[math.floor(rng() * #names) + 1] end,
    function() return true end, function() return false end,
    function() return {} end, function() return { {} } end, function() return { "speed", ">", 1 } end,
    function() return print end, function() return io.stdout end, function() return clips.alien end,
    function() return other end, function() return coroutine.create(function() end) end,
    function() return clips.walk end, function() return masks.upper end,
    function() return all[math.floor(rng() * #all) + 1] end, -- shared (and sometimes a cycle)
    function() return liar(rng, all[math.floor(rng() * #all) + 1]) end,
  }
  return pool[math.floor(rng() * #pool) + 1]()
end

local function mutate(rng, def)
  local all = tables_of(def, {}, {})
  local t = all[math.floor(rng() * #all) + 1]
  local keys = keys_of(t)
  local r = rng()
  if r < 0.1 or #keys == 0 then
    rawset(t, ({ "zz", 7, true })[math.floor(rng() * 3) + 1], value(rng, all)) -- a field nobody knows
  elseif r < 0.25 then
    local k = keys[math.floor(rng() * #keys) + 1]
    local v = rawget(t, k)
    if type(v) == "table" then -- the same fields raw, under a lying metatable
      local raw = {}
      for kk, vv in next, v do raw[kk] = vv end
      rawset(t, k, liar(rng, v, raw))
    else
      rawset(t, k, liar(rng, v))
    end
  else
    rawset(t, keys[math.floor(rng() * #keys) + 1], value(rng, all))
  end
end

local param_names = { "speed", "dir", "n", "on", "jump" }

-- plays an animator built from a mutated definition; raises what goes wrong
local function play(rng, anim)
  local pose = sinew.pose(skel)
  for f = 1, 24 do
    for _, name in ipairs(param_names) do
      local ok, v = pcall(anim.get, anim, name)
      if ok and type(v) == "number" then anim:set(name, math.floor(rng() * 4))
      elseif ok and type(v) == "boolean" then anim:set(name, rng() < 0.5) end
    end
    if f % 7 == 0 then
      local ok, err = pcall(anim.travel, anim, names[math.floor(rng() * #names) + 1])
      local msg = tostring(err)
      if not ok and not (msg:find("unknown state", 1, true) or msg:find("a state name expected", 1, true)
        or msg:find("travel that one", 1, true)) then
        error("travel: " .. tostring(err), 0)
      end
    end
    anim:update(({ 0, 1 / 60, 0.3, 2 })[f % 4 + 1]):evaluate(pose)
    for _ in anim:events() do end
    for _ in anim:active() do end
    anim:state()
    if f % 8 == 0 then anim:restore(anim:snapshot()) end
  end
  for j = 1, #skel do
    local x, y, z = pose:get(j)
    if x ~= x or y ~= y or z ~= z then error("a NaN in the pose", 0) end
  end
end

-- a fault message is "path: why", the path made of names and indices, nothing from inside
local function well_formed(msg)
  if type(msg) ~= "string" then return false end
  msg = msg:gsub("^[^\n]-:%d+: ", "", 1) -- where the caller is
  local path = msg:match("^([%w_%.%[%]]+): .")
  if not path then return false end
  return not (msg:find("attempt to", 1, true) or msg:find("traceback", 1, true) or msg:find("sinew/", 1, true)
    or msg:find("proxy", 1, true))
end

local function fuzz(seed, count)
  -- LuaJIT's compiler off: thousands of animators, each new, keep it flushing and compiling
  -- traces (30 s of mprotect here), and LuaJIT 2.1.0-beta3 crashed in a trace now and then in
  -- such runs, mutated or not (to be looked into on its own: SINEW_FUZZ_JIT=1 keeps the
  -- compiler on); what is tested here is the definitions, which the interpreter runs the same
  if rawget(_G, "jit") and not os.getenv("SINEW_FUZZ_JIT") then jit.off() end
  local rng = helper.rng(seed)
  local built, refused, proxies = 0, 0, 0
  for i = 1, count do
    local def = base()
    for _ = 1, math.floor(rng() * 4) do mutate(rng, def) end
    if os.getenv("TRACE") then io.stderr:write(i, "\n") end
    local text = os.getenv("DUMP") and dump(def, "", {})
    local proxied = false
    for _, t in ipairs(tables_of(def, {}, {})) do proxied = proxied or getmetatable(t) ~= nil end
    local ok, anim = pcall(sinew.animator, def, resources)
    if ok then
      built = built + 1
      if proxied then proxies = proxies + 1 end
      -- edits after construction do not reach it
      for _, t in ipairs(tables_of(def, {}, {})) do
        if getmetatable(t) == nil then
          for k in next, t do t[k] = nil end
          t[1], t.to, t.states, t.parameters = {}, 0 / 0, "nowhere", { 7 }
        end
      end
      local played, err = pcall(play, rng, anim)
      if not played then
        print(("bad run %d: %s"):format(i, tostring(err)))
        if text then print(text) end
        return
      end
    else
      refused = refused + 1
      if os.getenv("SHOW") then print(anim) end
      if not well_formed(anim) then
        print(("bad fault %d: %s"):format(i, tostring(anim)))
        return
      end
    end
  end
  print(("fuzz %d %d %d"):format(built, refused, proxies))
end

local mode = arg[1]
if mode == "runaway" then run_case(arg[2], tonumber(arg[3]))
elseif mode == "fuzz" then fuzz(tonumber(arg[2]), tonumber(arg[3]))
else error("usage: runaway <case> <n> | fuzz <seed> <count>") end
