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
  if a == nil and type(b) == "string" then fail(path, "%s", b) end
  return a, b, ...
end

--- Calls the core function `fn(...)` and returns what it returns; what the binding refuses (an
-- argument or the data) becomes a fault at `path` with the binding's own message, read from the
-- `nil, message, argument` of `sinew.core.try` (never parsed out of an error's text).
-- @tparam string path
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

--- Whether `v` is a finite number (not NaN, not an infinity).
-- @param v
-- @treturn boolean
function M.finite(v) return type(v) == "number" and v == v and v > -huge and v < huge end

return M
