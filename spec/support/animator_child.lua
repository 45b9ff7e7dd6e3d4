-- Scenarios of spec/animator_safety_spec.lua that could hang or exhaust memory if the animator
-- regressed, run in a child process with time and memory caps: `lua animator_child.lua <scenario>
-- [seed] [count]`. Each prints "ok <scenario> ..." at its end, or raises (a non-zero exit) with
-- what went wrong.
local sinew = require "sinew"
local helper = require "helper"
local F = dofile "spec/support/animator_fixture.lua"

local skel = F.skeleton
local huge = math.huge

local function finite(v) return type(v) == "number" and v == v and v > -huge and v < huge end

local function check(cond, fmt, ...)
  if not cond then error(fmt:format(...), 2) end
end

-- no internal error may reach the caller: an error is one of ours, with its message
local function ours(err, what)
  err = tostring(err)
  check(not err:find("attempt to", 1, true) and not err:find("stack overflow", 1, true),
    "%s raised an internal error: %s", what, err)
  return err
end

-- every number of a table tree is finite
local function all_finite(t, path)
  for k, v in pairs(t) do
    if type(v) == "number" then check(finite(v), "%s.%s is %s", path, tostring(k), tostring(v))
    elseif type(v) == "table" then all_finite(v, path .. "." .. tostring(k)) end
  end
end

local function same(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then return a == b end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

local copy = helper.deep_copy

local pose = sinew.pose(skel)

-- the animator updates (with steps up to 1e308 s), evaluates, reports and takes back its own
-- snapshot without an error, and every number it gives is finite
local function works(anim, what)
  for _, dt in ipairs { 0, 1 / 60, 0.5, 1e6, 1.7976931348623157e308, 1 / 60 } do
    local ok, err = pcall(anim.update, anim, dt)
    check(ok, "%s: update(%g) raised %s", what, dt, tostring(err))
    check(anim.ev_n <= sinew.animator.MAX_EVENTS, "%s: %d events queued", what, anim.ev_n)
    ok, err = pcall(anim.evaluate, anim, pose)
    check(ok, "%s: evaluate after update(%g) raised %s", what, dt, tostring(err))
    for j = 1, #pose do
      local v = { pose:get(j) }
      for k = 1, 10 do check(finite(v[k]), "%s: pose value %d of joint %d is %s", what, k, j, tostring(v[k])) end
    end
  end
  for i = 1, #anim.layers do
    local name, norm, to, progress = anim:state(i)
    check(type(name) == "string" and finite(norm), "%s: state of layer %d: %s %s", what, i, tostring(name), tostring(norm))
    check(to == nil or finite(progress), "%s: progress of layer %d is %s", what, i, tostring(progress))
  end
  for clip, weight, time in anim:active() do
    check(clip and finite(weight) and finite(time), "%s: active() gave %s %s", what, tostring(weight), tostring(time))
  end
  for i = 1, 7 do check(finite((select(i, anim:root_motion()))), "%s: root motion value %d", what, i) end
  local ok, err = pcall(anim.debug, anim)
  check(ok, "%s: debug() raised %s", what, tostring(err))
  local snap = anim:snapshot()
  all_finite(snap, "snapshot")
  ok, err = pcall(anim.restore, anim, snap)
  check(ok, "%s: the animator refuses its own snapshot: %s", what, tostring(err))
end

local scenarios = {}

-- huge steps (the issue: update(1e19) twice on Lua 5.4, 1e16 on LuaJIT, never returned)
function scenarios.huge_dt()
  for _, dt in ipairs { 1e16, 1e19, 1e300, 1.7976931348623157e308 } do
    local anim = sinew.animator({ skeleton = skel, layers = { { states = {
      idle = { motion = F.clips.a, events = { { 0.5, "e" } } } } } } })
    for _ = 1, 3 do anim:update(dt) end
    local n = 0
    for _ in anim:events() do n = n + 1 end
    check(n == sinew.animator.MAX_EVENTS, "update(%g): %d events", dt, n)
    check(anim.dropped_events > 0, "update(%g): none dropped", dt)
    works(anim, ("update(%g)"):format(dt))
  end
  local anim = F.new()
  for f = 1, 600 do
    F.drive(anim, f)
    if f % 50 == 0 then works(anim, "the fixture at frame " .. f) end
  end
  print("ok huge_dt")
end

-- speeds and rates: a parameter that drives a speed or a direct node refuses what would overflow
function scenarios.rates()
  local anim = sinew.animator({ skeleton = skel, parameters = { r = 1 }, layers = { { states = {
    idle = { motion = F.clips.a, speed = 1e6, speed_parameter = "r", events = { { 0.5, "e" } } } } } } })
  for _, v in ipairs { 1e308, -1e308, 1e6 + 1, -1.5e6 } do
    local err = ours(select(2, pcall(anim.set, anim, "r", v)), "set")
    check(err:find("is out of range (-1e6 .. 1e6): parameter 'r' multiplies a state's speed", 1, true), "set: %s", err)
    check(anim:get("r") == 1, "a refused set changed the value")
  end
  for _, v in ipairs { 1e6, -1e6, 5e-324, 0 } do
    anim:set("r", v):update(0)
    works(anim, ("speed 1e6 x %g"):format(v))
  end
  -- the issue's poisoned state: speed 1e6, set("r", 1e308):update(0) gave a NaN time
  local ok = pcall(anim.set, anim, "r", 1e308)
  check(not ok, "set('r', 1e308) was taken")
  anim:update(0)
  works(anim, "after set('r', 1e308)")
  -- a direct node's inputs, and a definition whose default is out of range
  local direct = sinew.animator({ skeleton = skel, parameters = { x = 0, y = 0 }, layers = { { states = {
    mix = { motion = { blend = "direct", parameters = { "x", "y" },
      children = { { nil, F.clips.a }, { nil, F.clips.b } } } } } } } })
  check(not pcall(direct.set, direct, "x", 1e300), "a direct input of 1e300 was taken")
  direct:set("x", 1e6):set("y", 1e6)
  works(direct, "direct inputs of 1e6")
  local def = F.definition()
  def.parameters.rate = 1e7 -- (within the definition's 1e9, beyond a rate's 1e6)
  local err = ours(select(2, pcall(sinew.animator, def, { clips = F.clips })), "sinew.animator")
  check(err:find("parameters.rate: 1e+07 is out of range (-1e6 .. 1e6)", 1, true), "definition: %s", err)
  print("ok rates")
end

-- snapshots with times at the edge of what restore takes, and beyond it
function scenarios.restore_edges()
  local anim = F.new()
  for f = 1, 100 do F.drive(anim, f) end
  local good = anim:snapshot()
  local function try(edit, accepted)
    local s = copy(good)
    edit(s)
    local before = anim:snapshot()
    local ok, err = pcall(anim.restore, anim, s)
    if accepted then
      check(ok, "refused: %s", tostring(err))
      works(anim, "an edge snapshot")
      anim:restore(good)
    else
      err = ours(err, "restore")
      check(not ok and err:find("bad snapshot: ", 1, true), "taken, or not a bad snapshot: %s", err)
      check(same(anim:snapshot(), before), "a refused restore changed the animator")
    end
  end
  local m = function(s) return s.layers[1].states.move.motion end
  try(function(s) m(s).norm = 1e308 end, false)
  try(function(s) m(s).norm = 2 ^ 24 end, true)
  try(function(s) m(s).norm = -2 ^ 24 end, true)
  try(function(s) m(s).rates[1] = 1e308 end, false)
  try(function(s) m(s).rates[1] = 1e6 end, true)
  try(function(s) s.values.rate = 1e308 end, false)
  try(function(s) s.values.speed = 1e308; s.velocities.speed = -1e308; s.targets.speed = -1e308 end, true)
  try(function(s) s.values.tiny = 1.7976931348623157e308; s.velocities.tiny = 1.7976931348623157e308 end, true)
  try(function(s) s.layers[1].history.since = 1e308 end, false)
  try(function(s) s.layers[1].history.last[1] = 1e300 end, false)
  try(function(s) s.layers[1].history.last[1] = 3e38 end, true)
  try(function(s) s.layers[1].history.count = 1.5 end, false)
  print("ok restore_edges")
end

-- one update over many loops of a state with many events: bounded, in time order, the earliest
function scenarios.events()
  local evs = {}
  for i = 1, 400 do evs[i] = { (i - 0.5) / 400, "e" .. i } end
  local walk = sinew.clip { skeleton = skel, tracks = {
    { joint = "hips", path = "translation", times = { 0, 0.7 }, values = { 0, 0, 0, 7, 0, 0 } } } }
  local anim = sinew.animator({ skeleton = skel, layers = { { states = { idle = { motion = walk, events = evs } } } } })
  local t0 = os.clock()
  anim:update(1000)
  local took = os.clock() - t0
  local _, norm = anim:state()
  local total = 0
  for i = 1, 400 do total = total + math.floor(norm - evs[i][1]) + 1 end
  local max = sinew.animator.MAX_EVENTS
  check(anim.ev_n == max, "%d events queued", anim.ev_n)
  check(anim.ev_n + anim.dropped_events == total, "%d queued + %d dropped, %d crossed", anim.ev_n,
    anim.dropped_events, total)
  local i, last = 0, -1
  for name in anim:events() do
    i = i + 1
    check(name == "e" .. ((i - 1) % 400 + 1), "event %d is %s", i, name)
    check(anim.ev_time[i] >= last, "event %d out of time order", i)
    last = anim.ev_time[i]
  end
  -- backwards, over a state that does not loop, and the queue shared by layers in time order
  local two = sinew.animator({ skeleton = skel, layers = {
    { states = { idle = { motion = walk, speed = -1, events = evs } } },
    { name = "b", states = { s = { motion = F.clips.a, speed = 3, events = { { 0.25, "b1" }, { 0.75, "b2" } } } } },
    { name = "c", states = { s = { motion = F.clips.a, loop = false, events = { { 0.2, "c1" }, { 1, "c2" } } } } } } })
  two:update(0.3)
  local prev, seen = -1, {}
  for k = 1, two.ev_n do
    check(two.ev_time[k] >= prev, "two layers: event %d out of time order", k)
    prev = two.ev_time[k]
    seen[two.ev_name[k]] = (seen[two.ev_name[k]] or 0) + 1
  end
  check(seen.b1 == 1 and seen.b2 == 1 and seen.c1 == 1 and not seen.c2, "layers b and c crossed the wrong events")
  -- 0.3 s backwards from 0 over a 0.7 s loop: normalised 0 down to -0.4286, events at 0.57 .. 1 of the loop
  local want = 0
  for e = 1, 400 do if evs[e][1] >= 1 - 0.3 / 0.7 then want = want + 1 end end
  check(seen.e400 == 1 and (seen.e1 or 0) == 0, "backwards: e400 %s, e1 %s", tostring(seen.e400), tostring(seen.e1))
  local backwards = 0
  for name, n in pairs(seen) do if name:match("^e%d") then backwards = backwards + n end end
  check(backwards == want, "backwards: %d events, expected %d", backwards, want)
  two:update(1e6)
  check(two.ev_n == max and two.dropped_events > 0, "two layers, update(1e6): %d events", two.ev_n)
  print(("ok events %.4f s for update(1000), %d queued, %d dropped"):format(took, anim.ev_n, anim.dropped_events))
end

-- random parameters (every value `set` takes, extremes included) and steps, travels and
-- triggers: nothing raises but the clear errors of refused values, and nothing is poisoned
function scenarios.params(seed, count)
  local rng = helper.rng(seed)
  local function pick(list) return list[math.floor(rng() * #list) + 1] end
  local any = { 1.7976931348623157e308, -1.7976931348623157e308, 1e308, -1e300, 3.5e38, 1e38, 2 ^ 53, 1e12,
    1e6, 1.4, 1, 0.5, 0, -0, 5e-324, -5e-324, 1e-300, -1 }
  local limited = { 1e6, -1e6, 999999.5, 1.5, 1, 0, -0, 5e-324, -1, 1e-300, 2, 0.25 }
  local ints = { 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 2 ^ 53, -2 ^ 53, 1e300 }
  local steps = { 0, 5e-324, 1e-300, 1 / 60, 1 / 60, 1 / 60, 0.5, 3, 1e6, 1e7, 1e19, 1.7976931348623157e308 }
  local paths = { "idle", "move", "jump", "loco/run", "loco/walk", "strafe", "mix", "fast", "loco" }
  local anim, fresh = F.new(), F.new()
  for i = 1, count do
    for _ = 1, 3 do
      local r = rng()
      if r < 0.25 then anim:set("speed", pick(any))
      elseif r < 0.35 then anim:set("tiny", pick(any))
      elseif r < 0.5 then anim:set(pick { "rate", "x", "y" }, pick(limited))
      elseif r < 0.6 then anim:set("n", pick(ints))
      elseif r < 0.65 then anim:trigger("jump")
      elseif r < 0.7 then anim:set(pick { "go", "done" }, rng() < 0.5)
      elseif r < 0.75 then anim:travel(pick(paths))
      elseif r < 0.8 then anim:set_layer_weight(pick { 2, 3, 4 }, rng())
      else -- a value out of range: refused with a clear error, nothing changed
        local name = pick { "rate", "x", "y" }
        local before = anim:get(name)
        local ok, err = pcall(anim.set, anim, name, pick { 1e308, -1e308, 1e6 * 1.01, -2e6 })
        check(not ok, "an out-of-range %s was taken", name)
        ours(err, "set")
        check(anim:get(name) == before, "a refused set changed %s", name)
      end
    end
    local dt = pick(steps)
    local ok, err = pcall(anim.update, anim, dt)
    check(ok, "step %d: update(%g) raised %s", i, dt, tostring(err))
    ok, err = pcall(anim.evaluate, anim, pose)
    check(ok, "step %d: evaluate raised %s", i, tostring(err))
    for j = 1, #pose do
      local v = { pose:get(j) }
      for k = 1, 10 do check(finite(v[k]), "step %d: pose value %d of joint %d is %s", i, k, j, tostring(v[k])) end
    end
    if i % 25 == 0 then
      local snap = anim:snapshot()
      all_finite(snap, "snapshot")
      ok, err = pcall(fresh.restore, fresh, snap)
      check(ok, "step %d: the snapshot is refused: %s", i, tostring(err))
    end
  end
  works(anim, "after the random parameters")
  print("ok params " .. count)
end

-- thousands of mutated snapshots: field deletions, other types, NaN, infinities, huge and edge
-- values, proxies whose __index answers differently at each read, tables with lying metamethods.
-- A refused restore leaves the snapshot identical; an accepted one leaves a working animator.
function scenarios.restore(seed, count)
  local rng = helper.rng(seed)
  local function pick(list) return list[math.floor(rng() * #list) + 1] end
  local hostile = { 0 / 0, huge, -huge, 1e300, -1e300, 1e308, -1e308, 3.5e38, 3.4e38, -3.4e38, 1e38, 2 ^ 24,
    2 ^ 24 + 0.5, -2 ^ 24 - 1, 2 ^ 53, 1e12, 1e12 + 1, 1e6, 1e6 + 1, -1, -1e-300, 1e-300, 5e-324, 0, -0, 1, 2, 3,
    0.5, 1.5, "x", "idle", "move", "loco", "walk", "exit", "", true, false, {}, { 1, 2 }, { "idle" } }
  local anim = F.new()
  local bases = {}
  for f = 1, 600 do
    F.drive(anim, f)
    if f % 11 == 0 then bases[#bases + 1] = anim:snapshot() end
  end
  -- every (table, key) of a snapshot, raw
  local function entries(t, out)
    for k, v in next, t do
      out[#out + 1] = { t, k }
      if type(v) == "table" then entries(v, out) end
    end
    return out
  end
  local function proxy(orig)
    local reads = 0
    return setmetatable({}, {
      __index = function(_, k)
        reads = reads + 1
        if reads % 2 == 1 then return orig[k] end
        return pick(hostile)
      end,
      __len = function() return #orig end,
      __pairs = function() return next, orig, nil end })
  end
  local function liar(orig) -- its own fields, and metamethods that answer otherwise
    return setmetatable(orig, {
      __index = function() return pick(hostile) end,
      __len = function() return math.floor(rng() * 100) end,
      __newindex = function() error("written") end })
  end
  local accepted, refused = 0, 0
  for i = 1, count do
    local base = pick(bases)
    anim:restore(base)
    local before = anim:snapshot()
    local s = copy(base)
    for _ = 1, math.floor(rng() * 3) + 1 do
      local list = entries(s, {})
      local e = pick(list)
      local t, k = e[1], e[2]
      local r = rng()
      if r < 0.25 then t[k] = nil
      elseif r < 0.7 then t[k] = copy(pick(hostile))
      elseif r < 0.8 then
        if type(t[k]) == "number" then t[k] = t[k] * pick { -1, 1e-300, 1e300, 1 + 1e-15, 2 ^ 30, 0 } end
      elseif r < 0.9 then
        if type(t[k]) == "table" then t[k] = proxy(t[k]) end
      elseif type(t[k]) == "table" then t[k] = liar(t[k])
      end
    end
    if rng() < 0.02 then s = proxy(s) end
    local ok, err = pcall(anim.restore, anim, s)
    if ok then
      accepted = accepted + 1
      works(anim, ("mutated snapshot %d"):format(i))
    else
      refused = refused + 1
      err = ours(err, ("restore of mutated snapshot %d"):format(i))
      check(err:find("bad snapshot: ", 1, true), "mutated snapshot %d: %s", i, err)
      check(same(anim:snapshot(), before), "mutated snapshot %d was refused (%s) but changed the animator", i, err)
    end
  end
  check(accepted > count / 20 and refused > count / 2, "%d accepted, %d refused", accepted, refused)
  print(("ok restore %d accepted, %d refused"):format(accepted, refused))
end

local name = arg[1]
check(scenarios[name], "unknown scenario %s", tostring(name))
scenarios[name](tonumber(arg[2] or "1"), tonumber(arg[3] or "100"))
