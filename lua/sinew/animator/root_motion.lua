--- Root motion of the animator: the motion of one joint on the ground plane (translation along x
-- and z, rotation about y) taken out of the clips the base layer plays, as a delta per update
-- that the game applies to the character, and kept out of the pose. Each clip that plays gives
-- its own delta between its time at the last update and now, across loop ends; the deltas are
-- weighted as the clips are (blend weights and fades).
-- @module sinew.animator.root_motion
local core = require "sinew.core"
local Motion = require "sinew.animator.motion"

local M = {}

local atan2 = math.atan2 or math.atan
local sin, cos, floor, pi = math.sin, math.cos, math.floor, math.pi

-- the heading (rotation about y) of a rotation: 2 atan2(qy, qw) of its twist about y
local function yaw_of(qy, qw) return 2 * atan2(qy, qw) end

local function wrap(a)
  a = a % (2 * pi)
  if a > pi then a = a - 2 * pi end
  return a
end

--- The root-motion state of an animator for `joint` (index).
function M.new(skeleton, joint)
  return { joint = joint, scratch = core.pose(skeleton), ends = {}, dx = 0, dz = 0, dyaw = 0,
    acc = { x = 0, z = 0, yaw = 0 } }
end

-- x, z and heading of the joint in clip `clip` at time t (seconds, within the clip)
local function at(R, clip, t)
  local p = R.scratch
  clip:sample(t, p, false)
  local x, _, z, _, qy, _, qw = p:get(R.joint)
  return x, z, yaw_of(qy, qw)
end

-- the joint's x, z and heading at the start and the end of a clip, found once
local function ends_of(R, clip)
  local e = R.ends[clip]
  if not e then
    local x0, z0, y0 = at(R, clip, 0)
    local x1, z1, y1 = at(R, clip, clip:duration())
    e = { x0, z0, y0, x1, z1, y1 }
    R.ends[clip] = e
  end
  return e
end

-- adds the segment from (x0, z0, heading h0) to (x1, z1, h1), `n` times in a row (1 when nil), to
-- the running delta (dx, dz in the frame the delta started in, dyaw turned so far). In the plane
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

-- the delta of one clip leaf over the last update, weighted, added to R's totals
-- the joint at clip time t (local to the clip), or the one the last update found there: each
-- update samples the clip once, where it is now
local function at_cached(R, inst, clip, t)
  if inst.rm_t == t then return inst.rm_x, inst.rm_z, inst.rm_h end
  return at(R, clip, t)
end

local function remember(inst, t, x, z, h)
  inst.rm_t, inst.rm_x, inst.rm_z, inst.rm_h = t, x, z, h
end

local function leaf(R, inst, weight, loop)
  local clip, d = inst.def.clip, inst.def.duration
  local now = inst.norm * d
  local before = inst.rm_before
  if before == nil then before = now end
  inst.rm_before = now
  if weight <= 0 or d <= 0 or now == before then return end
  local acc = R.acc
  acc.x, acc.z, acc.yaw = 0, 0, 0
  if not loop then
    local a = before < 0 and 0 or (before > d and d or before)
    local b = now < 0 and 0 or (now > d and d or now)
    local x0, z0, h0 = at_cached(R, inst, clip, a)
    local x1, z1, h1 = at(R, clip, b)
    remember(inst, b, x1, z1, h1)
    chain(acc, x0, z0, h0, x1, z1, h1)
  else
    local e = ends_of(R, clip)
    local k0, k1 = floor(before / d), floor(now / d)
    local x0, z0, h0 = at_cached(R, inst, clip, before - k0 * d)
    local x1, z1, h1 = at(R, clip, now - k1 * d)
    remember(inst, now - k1 * d, x1, z1, h1)
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


--- After the base layer's update: the weighted delta of every clip that plays in it.
function M.update(R, L, fade)
  R.dx, R.dz, R.dyaw = 0, 0, 0
  if L.trans then
    local a = fade
    if L.from_live then Motion.each_leaf(L.from.inst, 1 - a, L.from.def.loop, leaf, R) end
    Motion.each_leaf(L.to.inst, a, L.to.def.loop, leaf, R)
  else
    Motion.each_leaf(L.cur.inst, 1, L.cur.def.loop, leaf, R)
  end
end

local function forget(_, leaf_inst) leaf_inst.rm_before = leaf_inst.norm * leaf_inst.def.duration end

--- Forgets the times of an instance's clips (a state that starts again, from its offset: no
-- delta from where it was before).
function M.restart(inst)
  Motion.each_leaf(inst, 0, true, forget, nil)
end

--- Takes the motion out of the pose: the joint keeps its rest x and z and loses its heading.
function M.remove(R, pose, skeleton)
  local j = R.joint
  local _, ty, _, qx, qy, qz, qw = pose:get(j)
  local rx, _, rz = skeleton:rest(j)
  -- q without its twist about y: conj(twist) * q, twist = (0, qy, 0, qw) normalised
  local n = math.sqrt(qy * qy + qw * qw)
  if n > 1e-12 then
    local cy, cw = -qy / n, qw / n
    qx, qy, qz, qw = cw * qx + cy * qz, cw * qy + cy * qw, cw * qz - cy * qx, cw * qw - cy * qy
  end
  pose:set_translation(j, rx, ty, rz)
  pose:set_rotation(j, qx, qy, qz, qw)
end

--- The delta of the last update: dx, dy (0), dz in the frame of the joint's heading at its
-- start, and the turn about y as a quaternion.
function M.delta(R)
  local h = R.dyaw / 2
  return R.dx, 0, R.dz, 0, sin(h), 0, cos(h)
end

return M
