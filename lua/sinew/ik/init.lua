--- Inverse kinematics (manual/ik.md): the C core's solvers (`two_bone`, `aim`, `chain`, their flags
-- and `has`) and, written in Lua on them, `spread` (one aim over several joints).
-- @module sinew.ik
local core = require "sinew.core"
local Spread = require "sinew.ik.spread"

local M = {}

for name, value in next, core.ik do M[name] = value end

--- One aim over several joints (see `sinew.ik.spread`).
M.spread = Spread.new

--- The kind of a 3-D solver: "two_bone", "aim", "chain", "feet", "spread", or nil for anything else.
-- @param v any value
-- @treturn ?string
-- @raise never
function M.kind(v)
  if Spread.is(v) then return "spread" end
  return core.ik.kind(v)
end

return M
