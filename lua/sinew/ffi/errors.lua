--- The FFI path's error translation: a call the fast path does not take goes to the C binding's
-- function through `try` (sinew.core.try), which returns `nil, message, argument` for what the
-- binding refuses; `raise_as` raises that as the C binding raises it when called directly.
--
-- luaL_argerror names the function and, for a method call, counts arguments after `self`, from
-- how its caller called it; called from the fast function it sees neither. `caller()` (evaluated
-- in the fast function, not in a tail call) is how the fast function itself was called, and
-- `raise_as(caller(), try(c_function, ...))`, returned as a tail call, raises at that caller.
-- @module sinew.ffi.errors
local M = {}

local type, error = type, error
local getinfo = type(debug) == "table" and debug.getinfo or nil

--- How the calling fast function was called (`debug.getinfo`'s name and namewhat), or nil
-- without the debug library.
function M.caller() return getinfo and getinfo(2, "n") end

--- Returns what `try` returned when it is a result; raises its `nil, message, argument` as the
-- C binding's own argument error, named after `info` (from `caller()`), at the fast function's
-- caller.
function M.raise_as(info, ...)
  local none, msg, n = ...
  if none ~= nil or type(msg) ~= "string" then return ... end -- (no function here returns nil, "text")
  if n then
    local name = info and info.name or "?"
    if info and info.namewhat == "method" then n = n - 1 end
    if n == 0 then
      msg = ("calling '%s' on bad self (%s)"):format(name, msg)
    else
      msg = ("bad argument #%d to '%s' (%s)"):format(n, name, msg)
    end
  end
  error(msg, 2) -- where the fast function was called (raise_as replaced it by a tail call)
end

return M
