-- Loaded by busted before the specs (see .busted) and required by specs for shared utilities.
-- Points package.cpath at build/<interpreter>/ (or $SINEW_CPATH) so the specs test this tree's build.
local M = {}

M.interpreter = rawget(_G, "jit") and "luajit" or (_VERSION:gsub("Lua ", "lua"))

local cpath = os.getenv("SINEW_CPATH") or ("build/" .. M.interpreter .. "/?.so")
if not package.cpath:find(cpath, 1, true) then
  package.cpath = cpath .. ";" .. package.cpath
end

-- LuaJIT keeps at most 1000 traces in 512 KB of machine code by default; one busted run of a
-- spec file (all its animators, definitions and checks in one process) needs more, and a full
-- trace cache is flushed and recorded again, which the garbage checks would count as allocations
-- of sinew. A game with that much hot code needs the same (manual/performance.md, LuaJIT).
local jit = rawget(_G, "jit")
if jit and jit.opt then jit.opt.start("maxtrace=4000", "maxmcode=4096") end

--- Whether this run checks memory (the sanitizers or valgrind): children get no address-space cap
-- (their runtimes reserve more than any cap) and 20 times the time.
M.instrumented = (os.getenv("SINEW_SANITIZE") or os.getenv("SINEW_VALGRIND") or os.getenv("LD_PRELOAD")) ~= nil

--- `s` quoted for sh.
function M.quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

--- Runs the sh command `cmd` under `seconds` (20 times that when instrumented) and, with `mb` and
-- not instrumented, that many megabytes of address space: its output (stdout and stderr) and exit
-- status (124: out of time). Every child of the specs runs through here, so that one that hangs
-- fails its spec with what it printed instead of stopping the run.
function M.shell(cmd, seconds, mb)
  local cap = (mb and not M.instrumented) and ("ulimit -v %d; "):format(mb * 1024) or ""
  local p = assert(io.popen(("%stimeout %d sh -c %s 2>&1; echo \"exit status $?\""):format(cap,
    M.instrumented and 20 * seconds or seconds, M.quote(cmd))))
  local out = p:read("*a")
  p:close()
  return out, tonumber(out:match("exit status (%d+)%s*$"))
end

--- Runs `script` (a Lua file and its arguments, as sh reads them) with this interpreter, this tree's
-- build and the modules of lua/ and spec/, through M.shell: its output and exit status.
function M.lua_child(script, seconds, mb)
  return M.shell(("LUA_CPATH=%s LUA_PATH=%s %s %s"):format(M.quote(package.cpath),
    M.quote("lua/?.lua;lua/?/init.lua;spec/?.lua;;"), M.interpreter, script), seconds, mb)
end

--- The least garbage per call of `step` over up to eight rounds of `n` calls (helper.garbage_per_call
-- each), stopping at the first round without any: for the specs that check a path makes none
-- (LuaJIT's trace compiler makes GC objects now and then, in some rounds).
function M.least_garbage(step, n)
  local least = math.huge
  for _ = 1, 8 do
    least = math.min(least, M.garbage_per_call(step, n))
    if least == 0 then break end
  end
  return least
end

--- A deep copy of `v` (tables copied key by key, other values as they are; no cycles).
function M.deep_copy(v)
  if type(v) ~= "table" then return v end
  local t = {}
  for k, x in pairs(v) do t[k] = M.deep_copy(x) end
  return t
end

--- Every (table, key) of the tree `tree` (tables within tables, no cycles) as { table, key }, in
-- a fixed order (keys sorted, numbers first): the places a mutation spec spoils one by one.
function M.slots(tree)
  local out = {}
  local function walk(t)
    local keys = {}
    for k in pairs(t) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b)
      if type(a) == type(b) then return a < b end
      return type(a) == "number"
    end)
    for _, k in ipairs(keys) do
      out[#out + 1] = { t, k }
      if type(t[k]) == "table" then walk(t[k]) end
    end
  end
  walk(tree)
  return out
end

--- A garbage object whose finaliser runs `fn` (newproxy on Lua 5.1 and LuaJIT, whose tables have
-- no __gc).
function M.finaliser(fn)
  if newproxy then
    local u = newproxy(true)
    getmetatable(u).__gc = fn
    return u
  end
  return setmetatable({}, { __gc = fn })
end

--- The collector in small steps at every allocation (`eager` true), or back to its defaults.
function M.eager_collector(eager)
  if _VERSION == "Lua 5.4" then
    if eager then collectgarbage("incremental", 0, 1000) else collectgarbage("incremental", 200, 100) end
  else
    collectgarbage("setpause", eager and 0 or 200)
    collectgarbage("setstepmul", eager and 1000 or 200)
  end
end

--- A small deterministic generator (the same sequence on every Lua version), so that random
-- inputs are reproducible: `local rng = helper.rng(42); rng() -> [0, 1)`.
function M.rng(seed)
  local s = seed % 2147483647
  if s <= 0 then s = s + 2147483646 end
  return function(lo, hi)
    s = (s * 16807) % 2147483647 -- Park-Miller, exact in doubles
    local u = (s - 1) / 2147483646
    if lo then return lo + (hi - lo) * u end
    return u
  end
end

--- A random unit quaternion from `rng` (uniform on the sphere, Shoemake's method).
function M.random_quat(rng)
  local u1, u2, u3 = rng(), rng(), rng()
  local a, b = math.sqrt(1 - u1), math.sqrt(u1)
  return a * math.sin(2 * math.pi * u2), a * math.cos(2 * math.pi * u2),
         b * math.sin(2 * math.pi * u3), b * math.cos(2 * math.pi * u3)
end

-- Tolerant comparisons of numbers, one per meaning. Each needs its tolerance (a call without one
-- raises), so that no spec compares more loosely than it says.

local function tolerance(tol, name)
  if type(tol) ~= "number" then error(("helper.%s: no tolerance given"):format(name), 3) end
  return tol
end

--- Whether |a - b| <= tol: an absolute tolerance, whatever the size of the numbers.
function M.near_abs(a, b, tol)
  return math.abs(a - b) <= tolerance(tol, "near_abs")
end

--- Whether |a - b| <= tol * max(1, |b|), `b` the expected value: absolute while |b| <= 1, relative
-- to b beyond (for values whose size varies, such as composed transforms).
function M.near_rel(a, b, tol)
  return math.abs(a - b) <= tolerance(tol, "near_rel") * math.max(1, math.abs(b))
end

--- A random skeleton definition of n joints named "j1".."jn", parents before children; about one
-- joint in twenty after the first is another root (a forest). No rest pose.
function M.random_skeleton_def(rng, n)
  local names, parents = {}, {}
  for j = 1, n do
    names[j] = "j" .. j
    parents[j] = (j == 1 or rng() < 0.05) and 0 or math.floor(rng(1, j))
  end
  return { names = names, parents = parents }
end

--- A random sinew.skeleton of n joints named "j1".."jn" with one root (joint 1), parents before
-- children, and a random rest pose: translations in [-1, 1]^3, rotations uniform, every scale in
-- [min_scale, max_scale].
function M.random_skeleton(rng, n, min_scale, max_scale)
  local names, parents, rest = {}, {}, {}
  for j = 1, n do
    names[j], parents[j] = "j" .. j, j == 1 and 0 or math.floor(rng(1, j))
    local x, y, z, w = M.random_quat(rng)
    rest[j] = { rng(-1, 1), rng(-1, 1), rng(-1, 1), x, y, z, w,
                rng(min_scale, max_scale), rng(min_scale, max_scale), rng(min_scale, max_scale) }
  end
  return require("sinew").skeleton { names = names, parents = parents, rest = rest }
end

-- random key times: multiples of 1/64 (exact in float32), increasing, within [0, duration]; the
-- `shared` times when given
local function random_times(rng, keys, duration, shared)
  if shared then return shared end
  local times, t = {}, math.floor(rng() * 8) / 64
  for k = 1, keys do
    times[k] = t
    t = t + (1 + math.floor(rng() * 12)) / 64
  end
  while times[#times] > duration do table.remove(times) end
  if #times == 0 then times[1] = 0 end
  return times
end

--- A random clip definition for the skeleton `skel` (2 s long): about 70% of its joints' paths
-- animated, each with random key times and values and a random interpolation (joints named or
-- numbered at random); with `uniform`, every track has the same key times and the interpolation
-- alternates between linear and step.
function M.random_clip_def(rng, skel, uniform)
  local duration = 2
  local shared = uniform and random_times(rng, 1 + math.floor(rng() * 20), duration) or nil
  local interps = { "linear", "step", "cubicspline" }
  local tracks = {}
  for j = 1, #skel do
    for _, path in ipairs { "translation", "rotation", "scale" } do
      if rng() < 0.7 then
        local interp = interps[1 + math.floor(rng() * 3)]
        if uniform then interp = interps[1 + (j + #path) % 2] end
        local times = random_times(rng, 1 + math.floor(rng() * 20), duration, shared)
        local w = path == "rotation" and 4 or 3
        local values = {}
        for _ = 1, #times * w * (interp == "cubicspline" and 3 or 1) do values[#values + 1] = rng(-1, 1) end
        tracks[#tracks + 1] = { joint = rng() < 0.5 and skel:name(j) or j, path = path, interpolation = interp,
          times = times, values = values }
      end
    end
  end
  return { skeleton = skel, duration = duration, tracks = tracks }
end

--- Bytes of Lua garbage per call of fn: the least of three rounds of n calls, after n warm-up
-- calls, with the collector stopped so nothing is hidden by a collection in between. Garbage made
-- by every call shows in every round; LuaJIT's compiled traces (GC objects, made now and then
-- while the JIT records) do not, which is why the least round is taken.
function M.garbage_per_call(fn, n)
  n = n or 1000
  for _ = 1, n do fn() end
  local least = math.huge
  for _ = 1, 3 do
    collectgarbage("collect")
    collectgarbage("stop")
    -- warm again with the collector stopped: a full collection gives back the interpreter's own
    -- spare stack records (CallInfo), which the deepest call path then takes again once
    for _ = 1, math.min(n, 1000) do fn() end
    local before = collectgarbage("count")
    for _ = 1, n do fn() end
    local after = collectgarbage("count")
    collectgarbage("restart")
    least = math.min(least, (after - before) * 1024 / n)
  end
  return least
end

--- Lua source `code` as a function named `name` whose globals are `env` (on every Lua version).
function M.load_in(code, name, env)
  if rawget(_G, "setfenv") then
    local chunk = assert(loadstring(code, "=" .. name))
    setfenv(chunk, env)
    return chunk
  end
  return assert(load(code, "=" .. name, "t", env))
end

--- The bytes of a file (raises when it cannot be read).
function M.read_file(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

--- Writes `bytes` into the file at `path` (raises when it cannot).
function M.write_file(path, bytes)
  local f = assert(io.open(path, "wb"))
  f:write(bytes)
  f:close()
end

--- Whether a file at `path` can be opened for reading.
function M.exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

--- A new empty folder under the system's temporary folder (the caller removes it).
function M.tmpdir()
  local path = os.tmpname()
  os.remove(path)
  assert(os.execute(("mkdir -p '%s'"):format(path)))
  return path
end

--- The message of the error raised by fn(...), or nil when fn did not raise.
function M.error_of(fn, ...)
  local ok, err = pcall(fn, ...)
  if ok then return nil end
  return tostring(err)
end

--- A copy of animator definition `def` without its IK (`ik` lists, top and per layer, and
-- `targets`): the pose its layers give, for the specs that solve by hand what the animator solves.
function M.without_ik(def)
  local d = {}
  for k, v in pairs(def) do d[k] = v end
  d.ik, d.targets = nil, nil
  d.layers = {}
  for i, l in ipairs(def.layers) do
    local c = {}
    for k, v in pairs(l) do c[k] = v end
    c.ik = nil
    d.layers[i] = c
  end
  return d
end

--- The numbers of every joint of `pose` (`pose:get(j)`: ten of a 3-D pose, six of a 2-D one), as
-- one list.
function M.pose_numbers(pose)
  local out = {}
  for j = 1, #pose do
    local v = { pose:get(j) }
    for k = 1, #v do out[#out + 1] = v[k] end
  end
  return out
end

--- Every value of every joint of `pose` (2-D or 3-D): a list per joint of what `pose:get(j)` gives.
function M.pose_values(pose)
  local t = {}
  for j = 1, #pose do t[j] = { pose:get(j) } end
  return t
end

--- Whether poses `a` and `b` hold the same numbers bit for bit; false and the first that differs.
function M.same_pose(a, b)
  local x, y = M.pose_numbers(a), M.pose_numbers(b)
  for i = 1, #x do
    if x[i] ~= y[i] then return false, ("number %d: %.17g and %.17g"):format(i, x[i], y[i]) end
  end
  return true
end

return M
