--- One aim spread over several joints (a spine, a neck, a head): `sinew.ik.spread{...}` makes an aim
-- solver per joint, each but the last aiming the last joint's forward line (its `effector`), and
-- `solve` runs them root first, each with its share of the turn still needed, the last joint with
-- its whole share: with the last weight 1 the head is on the target, and the turn is spread over the
-- joints as the weights say. See manual/ik.md, Spreading an aim.
-- @module sinew.ik.spread
local core = require "sinew.core"
local Fault = require "sinew.fault"

local M = {}

local Spread = {}
Spread.__index = Spread
Spread.__name = "sinew.IKSpread"

local spreads = setmetatable({}, { __mode = "k" }) -- every spread made here

local fields = { skeleton = true, joints = true, weights = true, forward = true, up = true, offset = true,
  limit = true, twist = true }

local huge = math.huge

local function unknown(k, _, known) return not known[k] end

local function fail(fmt, ...) error(fmt:format(...), 3) end

--- Makes a spread aim from a definition of its joints, weights and aim.
-- The fields: `skeleton`, `joints` (2 to 32 joints, names or 1-based indices, each an
-- ancestor of the next, root first; the last is the one that looks: the head), `weights` (one per
-- joint in [0, 1], the share of the remaining turn each takes; by default 1 / (n - k + 1) for joint k,
-- an even spread), and the aim's `forward`, `up`, `offset` (in the last joint's frame), `limit` (one
-- number for every joint, or a list, one per joint; radians in (0, pi]) and `twist`, as `sinew.ik.aim`.
-- @tparam table def
-- @treturn IKSpread
-- @raise "bad argument #1 to 'spread' (...)": a definition that is not a table, an unknown field,
-- fewer than 2 or more than 32 joints, a weight outside [0, 1] or a list of the wrong length, and
-- what `sinew.ik.aim` raises for a joint ("effector 7 is not a descendant of joint 5 ...")
function M.new(def)
  if type(def) ~= "table" then fail("bad argument #1 to 'spread' (table expected, got %s)", type(def)) end
  local bad = Fault.first(def, unknown, fields) -- (the first in a fixed order, whatever the table's)
  if bad ~= nil then fail("bad argument #1 to 'spread' (unknown field %s)", Fault.show(bad)) end
  local joints, weights, limit = def.joints, def.weights, def.limit
  if type(joints) ~= "table" or #joints < 2 or #joints > 32 then
    fail("bad argument #1 to 'spread' ('joints' must be a list of 2 .. 32 joints)")
  end
  local n = #joints
  if weights ~= nil and (type(weights) ~= "table" or #weights ~= n) then
    fail("bad argument #1 to 'spread' ('weights' must be a list of %d numbers, one per joint)", n)
  end
  if type(limit) == "table" and #limit ~= n then
    fail("bad argument #1 to 'spread' ('limit' must be a number or a list of %d numbers, one per joint)", n)
  end
  local S = { solvers = {}, weights = {}, n = n, skel = def.skeleton }
  for k = 1, n do
    local w = weights and weights[k] or 1 / (n - k + 1)
    if type(w) ~= "number" or not (w >= 0 and w <= 1) then
      fail("bad argument #1 to 'spread' (weight %d must be a number in [0, 1], got %s)", k, tostring(w))
    end
    local ok, solver = pcall(core.ik.aim, { skeleton = def.skeleton, joint = joints[k], effector = joints[n],
      forward = def.forward, up = def.up, offset = def.offset, twist = def.twist,
      limit = type(limit) == "table" and limit[k] or limit })
    if not ok then
      fail("bad argument #1 to 'spread' (joint %d: %s)", k, tostring(solver):gsub("^bad argument #1 to '[^']*' %((.*)%)$", "%1"))
    end
    S.solvers[k], S.weights[k] = solver, w
  end
  setmetatable(S, Spread)
  spreads[S] = true
  return S
end

local function check(self, name)
  if not spreads[self] then
    error(("bad argument #1 to '%s' (sinew.IKSpread expected, got %s)"):format(name, type(self)), 3)
  end
end

--- Turns the joints root first so that the last joint's forward line passes through the target,
-- each joint by its weight (times `weight`) of the turn still needed. Arguments and results as
-- `IKAim:solve`: the last joint's `reached` and flags.
-- @tparam Pose pose
-- @tparam number tx the target, model units
-- @tparam number ty
-- @tparam number tz
-- @tparam[opt=1] number weight in [0, 1]
-- @tparam[opt] number ux the up reference (all three or none)
-- @tparam[opt] number uy
-- @tparam[opt] number uz
-- @treturn boolean reached
-- @treturn int flags
-- @raise what `IKAim:solve` raises; a call refused at the first joint changes nothing
function Spread:solve(pose, tx, ty, tz, weight, ux, uy, uz)
  if not spreads[self] then check(self, "solve") end
  if weight == nil then
    weight = 1
  elseif type(weight) ~= "number" then
    error(("bad argument #5 to 'solve' (number expected, got %s)"):format(type(weight)), 2)
  elseif not (weight >= 0 and weight <= 1) then
    error(("bad argument #5 to 'solve' (weight %s)"):format(weight == weight and weight > -huge and weight < huge
      and ("%s is out of range (0 .. 1)"):format(weight) or "is not finite"), 2)
  end
  local solvers, weights = self.solvers, self.weights
  -- the first joint's solve reads all the pose and arguments the others read: what it refuses is
  -- refused before anything is written, and raised here as the aim's own error, at the caller
  local s1 = solvers[1]
  local ok, reached, flags = pcall(s1.solve, s1, pose, tx, ty, tz, weights[1] * weight, ux, uy, uz)
  if not ok then
    local msg = tostring(reached):gsub("^bad argument #(%d+) to '%?'", function(n)
      return ("bad argument #%d to 'solve'"):format(tonumber(n) - 1)
    end)
    error(msg, 2)
  end
  for k = 2, self.n do
    reached, flags = solvers[k]:solve(pose, tx, ty, tz, weights[k] * weight, ux, uy, uz)
  end
  return reached, flags
end

--- The joints, 1-based indices, root first.
-- @return the indices
-- @raise "bad argument #1 to 'joints' (sinew.IKSpread expected, got table)"
function Spread:joints()
  if not spreads[self] then check(self, "joints") end
  local s = self.solvers
  if self.n == 2 then return s[1]:joint(), s[2]:joint() end
  local out = {}
  for k = 1, self.n do out[k] = s[k]:joint() end
  return (table.unpack or unpack)(out)
end

--- The skeleton.
-- @treturn Skeleton
-- @raise "bad argument #1 to 'skeleton' (sinew.IKSpread expected, got table)"
function Spread:skeleton()
  if not spreads[self] then check(self, "skeleton") end
  return self.solvers[1]:skeleton()
end

Spread.__tostring = function(self)
  if not spreads[self] then check(self, "__tostring") end
  return ("sinew.IKSpread (%d joints): %s"):format(self.n, tostring(self.solvers[self.n]):match("%(.-%)") or "")
end

--- Whether `v` is a spread made here.
-- @param v any value
-- @treturn boolean
-- @raise never
function M.is(v) return spreads[v] == true end

return M
