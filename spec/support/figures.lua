-- Figures the specs measure on the way (a spread, a size, a count), kept for after the run so
-- that they never cut into busted's progress line: spec/support/summary.lua prints them after its
-- summary line when SINEW_VERBOSE=1 is set, and drops them otherwise.
local M = { lines = {} }

--- Keeps `text` (one line) under the name of the spec file that measured it.
-- @tparam string text
function M.add(text)
  local source = debug.getinfo(2, "S").short_src:match("([^/\\]*)$")
  M.lines[#M.lines + 1] = ("  %s: %s"):format(source, text)
end

return M
