--- The FFI path's argument tests: what a fast function checks of its arguments before it takes
-- a call itself. Each is cheap in a compiled trace (a type test the arithmetic needs anyway); a
-- call that fails one goes to the C binding, which raises its own error.
-- @module sinew.ffi.args
local M = {}

local type, getmetatable = type, getmetatable

--- x is a finite number (a string that converts, NaN and infinities are not: the C binding
-- takes or refuses those itself).
local function fin(x) return type(x) == "number" and x - x == 0 end
M.fin = fin

--- Four finite numbers.
function M.fin4(x, y, z, w) return fin(x) and fin(y) and fin(z) and fin(w) end

--- Three numbers (finite or not: the computation tells, see sinew.ffi.quat).
local function num3(x, y, z) return type(x) == "number" and type(y) == "number" and type(z) == "number" end
M.num3 = num3

--- Four numbers.
function M.num4(x, y, z, w) return num3(x, y, z) and type(w) == "number" end

--- x is a userdata of the class whose metatable is `mt` (the test the C binding makes).
function M.is(x, mt) return type(x) == "userdata" and getmetatable(x) == mt end

return M
