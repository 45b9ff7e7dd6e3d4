--- Root motion of the animator: the motion of one joint on the ground plane (translation along x
-- and z, rotation about y) taken out of the clips the base layer plays, as a delta per update
-- that the game applies to the character, and kept out of the pose. Each clip that plays gives
-- its own delta between its time at the last update and now, across loop ends; the deltas are
-- weighted as the clips are (blend weights and fades).
--
-- An instance with root motion keeps, per clip slot, its clip time at the last update (in its
-- record, sinew.animator.motion) and the joint there (`I.rm_t[s]`, `I.rm_x[s]`, `I.rm_z[s]`, `I.rm_h[s]`: each
-- update reads the joint once per clip, where it is now), and the delta (`I.rm`). The plan keeps
-- the joint at each clip's ends. The joint is read through the pose kind, alone (no pose is
-- sampled for it).
-- @module sinew.animator.root_motion
local M = {}

local sin, cos, floor, pi = math.sin, math.cos, math.floor, math.pi

local function wrap(a)
  a = a % (2 * pi)
  if a > pi then a = a - 2 * pi end
  return a
end

--- The root-motion state of a new instance I of plan P (nil without root motion).
function M.new(P, I)
  if not P.root_motion then return nil end
  I.rm_t, I.rm_x, I.rm_z, I.rm_h = {}, {}, {}, {}
  return { dx = 0, dz = 0, dyaw = 0, x = 0, z = 0, yaw = 0 }
end

-- x, z and heading of the joint in clip `clip` at time t (seconds, within the clip)
local function at(P, clip, t)
  return P.kind.root_motion.read(clip, t, P.root_motion)
end

-- the joint's x, z and heading at the start and the end of a clip, found once per plan
local function ends_of(P, clip)
  local e = P.root_ends[clip]
  if not e then
    local x0, z0, y0 = at(P, clip, 0)
    local x1, z1, y1 = at(P, clip, clip:duration())
    e = { x0, z0, y0, x1, z1, y1 }
    P.root_ends[clip] = e
  end
  return e
end

-- adds the segment from (x0, z0, heading h0) to (x1, z1, h1), `n` times in a row (1 when nil), to
-- the running delta (x, z in the frame the delta started in, yaw turned so far). In the plane
-- as complex numbers x + i z, each segment adds its motion v in the joint's frame at its start
-- turned by e^(-i yaw), and turns the delta by a = wrap(h1 - h0); n of them add
-- v e^(-i yaw) (1 + e^(-ia) + ... + e^(-i(n-1)a)) = v e^(-i (yaw + (n-1) a / 2)) sin(n a / 2) / sin(a / 2)
-- at once, so a step over many loops costs what one does
local function chain(acc, x0, z0, h0, x1, z1, h1, n)
  -- the segment's motion in the joint's own frame at its start
  local c, s = cos(-h0), sin(-h0)
  local lx, lz = (x1 - x0) * c + (z1 - z0) * s, (z1 - z0) * c - (x1 - x0) * s
  local a = wrap(h1 - h0)
  local f, phase = 1, acc.yaw
  if n then
    local half = sin(a / 2)
    if half ~= 0 then f = sin(n * a / 2) / half else f = n end
    phase = acc.yaw + (n - 1) * a / 2
  else
    n = 1
  end
  -- then turned into the delta's frame by what the delta has turned so far
  c, s = cos(phase), sin(phase)
  acc.x = acc.x + f * (lx * c + lz * s)
  acc.z = acc.z + f * (lz * c - lx * s)
  acc.yaw = acc.yaw + n * a
end

-- the joint at clip time t (local to the clip), or the one the last update found there
local function at_cached(P, I, s, t)
  if I.rm_t[s] == t then return I.rm_x[s], I.rm_z[s], I.rm_h[s] end
  return at(P, P.mclip[s], t)
end

local function remember(I, s, t, x, z, h)
  I.rm_t[s], I.rm_x[s], I.rm_z[s], I.rm_h[s] = t, x, z, h
end

--- The delta of clip slot `s` over the last update, weighted, added to the instance's totals
-- (called for every clip slot of the base layer's states, as `fn(I, s, weight, loop)`).
function M.leaf(I, s, weight, loop)
  local P, R = I.plan, I.rm
  local d = P.mdur[s]
  local rec = I.rec
  local now = rec[5 * s - 4] * d
  local before = rec[5 * s - 2]
  if not before then before = now end
  rec[5 * s - 2] = now
  if weight <= 0 or d <= 0 or now == before then return end
  local acc = R -- (its x, z and yaw: this clip's delta)
  acc.x, acc.z, acc.yaw = 0, 0, 0
  if not loop then
    local a = before < 0 and 0 or (before > d and d or before)
    local b = now < 0 and 0 or (now > d and d or now)
    local x0, z0, h0 = at_cached(P, I, s, a)
    local x1, z1, h1 = at(P, P.mclip[s], b)
    remember(I, s, b, x1, z1, h1)
    chain(acc, x0, z0, h0, x1, z1, h1)
  else
    local e = ends_of(P, P.mclip[s])
    local k0, k1 = floor(before / d), floor(now / d)
    local x0, z0, h0 = at_cached(P, I, s, before - k0 * d)
    local x1, z1, h1 = at(P, P.mclip[s], now - k1 * d)
    remember(I, s, now - k1 * d, x1, z1, h1)
    if k0 == k1 then
      chain(acc, x0, z0, h0, x1, z1, h1)
    elseif k1 > k0 then -- forwards over k1 - k0 loop ends
      chain(acc, x0, z0, h0, e[4], e[5], e[6])
      if k1 - k0 > 1 then chain(acc, e[1], e[2], e[3], e[4], e[5], e[6], k1 - k0 - 1) end
      chain(acc, e[1], e[2], e[3], x1, z1, h1)
    else -- backwards
      chain(acc, x0, z0, h0, e[1], e[2], e[3])
      if k0 - k1 > 1 then chain(acc, e[4], e[5], e[6], e[1], e[2], e[3], k0 - k1 - 1) end
      chain(acc, e[4], e[5], e[6], x1, z1, h1)
    end
  end
  R.dx, R.dz, R.dyaw = R.dx + weight * acc.x, R.dz + weight * acc.z, R.dyaw + weight * acc.yaw
end

--- Before the base layer's leaves are walked: the delta starts at 0.
function M.begin(R)
  R.dx, R.dz, R.dyaw = 0, 0, 0
end

--- Forgets the time of clip slot `s` (a state that starts again, from its offset: no delta from
-- where it was before); as `fn(I, s)`.
function M.forget(I, s)
  local rec = I.rec
  rec[5 * s - 2] = rec[5 * s - 4] * I.plan.mdur[s]
end

--- Takes the motion out of the pose.
function M.remove(P, pose)
  P.kind.root_motion.remove(pose, P.skel, P.root_motion)
end

--- The delta of the last update: dx, dy (0), dz in the frame of the joint's heading at its
-- start, and the turn about y as a quaternion.
function M.delta(R)
  local h = R.dyaw / 2
  return R.dx, 0, R.dz, 0, sin(h), 0, cos(h)
end

return M
