--- Inverse kinematics (manual/ik.md): the C core's solvers (`two_bone`, `aim`, `chain`, their flags
-- and `has`) and, written in Lua on them, `spread` (one aim over several joints).
-- @module sinew.ik
local core = require "sinew.core"
local Spread = require "sinew.ik.spread"

local M = {}

for name, value in next, core.ik do M[name] = value end

--- One aim over several joints (see `sinew.ik.spread`).
M.spread = Spread.new

--- The kind of a solver and its dimensions: "two_bone", "aim", "chain", "feet" or "spread" and 3
-- for 3-D skeletons' solvers; "two_bone", "aim" or "chain" and 2 for 2-D rigs'; nil for anything else.
-- @param v any value
-- @treturn ?string the kind
-- @treturn ?int 3 or 2
-- @raise never
function M.kind(v)
  if Spread.is(v) then return "spread", 3 end
  return core.ik.kind(v)
end

return M
