--- The critically damped spring the animator smooths with (smoothed float parameters, smoothed
-- IK targets): a value follows its target with smoothing time `time`, exactly for any step (one
-- step of dt gives what many smaller steps summing to dt give, to rounding).
-- @module sinew.animator.spring
local M = {}

local exp = math.exp

--- One step of `dt` seconds of a value `x` with velocity `v` toward `target`: the new value and
-- velocity. A smoothing time of 0 (or less) is at the target at once; a spring whose arithmetic
-- leaves the double range (values near it, a time near 0, a step of days) is at its target.
function M.step(x, v, target, time, dt)
  if time <= 0 then return target, 0 end
  local w = 2 / time
  local y = x - target
  local j = v + w * y
  local e = exp(-w * dt)
  local nx, nv = target + (y + j * dt) * e, (v - w * j * dt) * e
  if nx - nx == 0 and nv - nv == 0 then return nx, nv end -- both finite
  return target, 0
end

return M
