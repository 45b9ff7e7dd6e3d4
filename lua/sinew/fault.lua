--- Faults: the errors of construction, with the path of what is wrong in the caller's data
-- (`layers[1].transitions[3].to: unknown state 'nowhere'`, `animations[2].samplers[0].input:
-- accessor 41 is out of range (40 accessors)`). The one owner of them for every compiler and
-- importer of sinew (the animator's definition, its snapshots, glTF import).
--
-- A compiler raises a fault with `fail(path, fmt, ...)` anywhere below its entry; the entry runs
-- the compile step under `run`, which re-raises the fault at its own caller (a plain error
-- message, with a prefix), or catches it with `pcall` and reads it with `message` (glTF import
-- returns `nil, message`). Any other error (a bug, memory running out) passes unchanged.
--
-- A core call whose refusal is a fault of the data goes through `core(path, fn, ...)`: the call
-- is made by `sinew.core.try`, which returns `nil, message, argument` for what the binding
-- refuses, so no message text is parsed.
-- @module sinew.fault
local core = require "sinew.core"

local M = {}

local unpack = table.unpack or unpack
local floor, huge = math.floor, math.huge

local Fault = {} -- the metatable of faults: a fault is { path = ..., msg = ... }

-- a number for a message: an integer as one (whatever its size), else %.9g
local function integer_text(v)
  if v == floor(v) and v > -2 ^ 63 and v < 2 ^ 63 then return ("%d"):format(v) end
  return ("%.9g"):format(v)
end
M.integer_text = integer_text

--- Raises a fault at `path` (a definition path or a JSON path; "" for none), the rest a message
-- in string.format's way. A `%d` takes any number (1e300 or 0.5 from a file: Lua 5.3's `%d`
-- refuses those): an integer is written as one, another number as `%.9g`.
-- @tparam string path where the fault is ("layers[1].entry")
-- @tparam string fmt
-- @param ... the values of fmt
function M.fail(path, fmt, ...)
  local args, n, i = { ... }, select("#", ...), 0
  local safe = fmt:gsub("%%([-#0 +]*%d*%.?%d*)(%a)", function(flags, conv)
    i = i + 1
    if conv == "d" and type(args[i]) == "number" and flags == "" then
      args[i] = integer_text(args[i])
      return "%s"
    end
  end)
  error(setmetatable({ path = path, msg = safe:format(unpack(args, 1, n)) }, Fault), 0)
end
local fail = M.fail

--- The message of a fault raised by `fail` ("<path>: <why>", or "<why>" for the path ""), or nil
-- for any other error.
-- @param e an error object
-- @treturn ?string
function M.message(e)
  if getmetatable(e) == Fault then return e.path ~= "" and e.path .. ": " .. e.msg or e.msg end
  return nil
end
local message = M.message

--- Runs the compile step `fn(...)` and returns its result (one value); a fault it raises is
-- raised again as the message `prefix .. "<path>: <why>"` at `level`, as `error` counts it in the
-- function that calls `run` (2: that function's caller); any other error passes unchanged.
-- @tparam number level
-- @tparam string prefix "" or, for instance, "bad snapshot: "
-- @tparam function fn
-- @param ... its arguments
function M.run(level, prefix, fn, ...)
  local ok, res = pcall(fn, ...)
  if ok then return res end
  local msg = message(res)
  if msg then error(prefix .. msg, level + 1) end
  error(res, 0)
end

local function refused(path, a, b, ...)
  if a == nil and type(b) == "string" then fail(type(path) == "function" and path() or path, "%s", b) end
  return a, b, ...
end

--- Calls the core function `fn(...)` and returns what it returns; what the binding refuses (an
-- argument or the data) becomes a fault at `path` with the binding's own message, read from the
-- `nil, message, argument` of `sinew.core.try` (never parsed out of an error's text).
-- @tparam string|function path the path, or a function that makes it (called only for a fault)
-- @tparam function fn a function of sinew.core (or a method of its objects)
-- @param ... its arguments
function M.core(path, fn, ...)
  return refused(path, core.try(fn, ...))
end

--- A value for a message: strings quoted, numbers as `%g` ("nan" for any NaN), anything else its
-- type's name.
-- @param v
-- @treturn string
function M.show(v)
  if type(v) == "string" then return "'" .. v .. "'" end
  if type(v) == "number" then
    if v ~= v then return "nan" end -- its sign means nothing
    return ("%g"):format(v)
  end
  return type(v)
end

-- the rank of a key's type in `before`: numbers, strings, booleans, then the rest
local rank = { number = 1, string = 2, boolean = 3 }

--- Whether key `a` comes before key `b` in the fixed order faults are looked for in: numbers
-- (ascending), strings (byte order), false, true, then any other key (all shown alike by `show`,
-- as their type's name). A table's own walk (`next`, `pairs`) has no fixed order: Lua 5.4 seeds
-- its string hashes per state, and the order follows the insertions; a fault found in it would
-- change from run to run.
-- @param a
-- @param b
-- @treturn boolean
function M.before(a, b)
  local ra, rb = rank[type(a)] or 4, rank[type(b)] or 4
  if ra ~= rb then return ra < rb end
  if ra <= 2 then return a < b end
  if ra == 3 then return a == false and b == true end
  return type(a) < type(b)
end
local before = M.before

--- The first key of `t` (in the order of `before`) for which `bad(k, v, arg)` holds, or nil: the
-- key a fault names when several keys are wrong, the same in every run.
-- @tparam table t read raw (with `next`)
-- @tparam function bad
-- @param arg passed on to `bad`
-- @return the key, or nil
function M.first(t, bad, arg)
  local found
  local k, v = next(t)
  while k ~= nil do
    if bad(k, v, arg) and (found == nil or before(k, found)) then found = k end
    k, v = next(t, k)
  end
  return found
end

--- The keys of `t` in the order of `before`, a new list.
-- @tparam table t read raw (with `next`)
-- @treturn table
function M.sorted_keys(t)
  local keys = {}
  local k = next(t)
  while k ~= nil do
    keys[#keys + 1] = k
    k = next(t, k)
  end
  table.sort(keys, before)
  return keys
end

-- the edit distance of strings a and b (insertions, deletions, substitutions and swaps of two
-- neighbours count 1 each: "Rnu" is 1 from "Run"), or more than `most` when it is
local function distance(a, b, most)
  local la, lb = #a, #b
  if la - lb > most or lb - la > most then return most + 1 end
  local prev2, prev, cur = {}, {}, {}
  for j = 0, lb do prev[j] = j end
  for i = 1, la do
    cur[0] = i
    local ai = a:byte(i)
    for j = 1, lb do
      local bj = b:byte(j)
      local d = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ai == bj and 0 or 1))
      if i > 1 and j > 1 and ai == b:byte(j - 1) and a:byte(i - 1) == bj then d = math.min(d, prev2[j - 2] + 1) end
      cur[j] = d
    end
    prev2, prev, cur = prev, cur, prev2
  end
  return prev[lb]
end

--- The string key of `t` nearest to `name` (a typo of it: at most one edit in three letters, and
-- at least one; or a key that begins with a name of 3 letters or more, or that the name begins
-- with), for a "did you mean" in a message; nil when none is that near. Ties go to the first in
-- `before`'s order.
-- @tparam string name
-- @tparam table t its keys are the names that exist (read raw)
-- @treturn ?string
function M.nearest(name, t)
  if type(name) ~= "string" or #name > 200 then return nil end
  local most = math.max(1, floor(#name / 3))
  local best, best_d
  local k = next(t)
  while k ~= nil do
    if type(k) == "string" and k ~= name and #k <= 200 then
      local d = distance(name, k, most)
      local prefix = #name >= 3 and #k >= 3 and (k:sub(1, #name) == name or name:sub(1, #k) == k)
      if prefix and d > most then d = most + math.abs(#k - #name) end
      if (d <= most or prefix) and (best == nil or d < best_d or (d == best_d and k < best)) then best, best_d = k, d end
    end
    k = next(t, k)
  end
  return best
end

--- Whether `v` is a finite number (not NaN, not an infinity).
-- @param v
-- @treturn boolean
function M.finite(v) return type(v) == "number" and v == v and v > -huge and v < huge end

return M
