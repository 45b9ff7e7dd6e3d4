-- The plain-Lua IK of the benchmarks (bench/ik.lua, bench/ik_feet.lua): the same work as sinew's
-- solvers written as a careful LuaJIT programmer would (locals, no table or closure per call), on
-- a pose held as a flat Lua array, joint j (0-based) at P[10 j + 1 .. 10 j + 10]: translation,
-- rotation x, y, z, w, scale. spec/ik_bench_spec.lua checks that the benchmarks' plain solvers
-- write the rotations sinew writes, so that the comparisons stay of the same work.
local M = {}

local sqrt, exp, abs, min, max, acos, sin = math.sqrt, math.exp, math.abs, math.min, math.max, math.acos, math.sin

local function qmul(ax, ay, az, aw, bx, by, bz, bw)
  return aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
         aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz
end
M.qmul = qmul
local function rotate(qx, qy, qz, qw, x, y, z) -- v + w c + u x c, c = 2 u x v (unit q)
  local cx, cy, cz = 2 * (qy * z - qz * y), 2 * (qz * x - qx * z), 2 * (qx * y - qy * x)
  return x + qw * cx + (qy * cz - qz * cy), y + qw * cy + (qz * cx - qx * cz), z + qw * cz + (qx * cy - qy * cx)
end
M.rotate = rotate
-- the shortest arc taking the unit a onto the unit b (a half turn about some axis across a when
-- they are opposite)
local function arc(ax, ay, az, bx, by, bz)
  local c = ax * bx + ay * by + az * bz
  if 1 + c < 1e-9 then
    local ex, ey, ez = 1, 0, 0
    if abs(ax) > abs(ay) or abs(ax) > abs(az) then
      if abs(ay) <= abs(az) then ex, ey = 0, 1 else ex, ez = 0, 1 end
    end
    local x, y, z = ay * ez - az * ey, az * ex - ax * ez, ax * ey - ay * ex
    local k = 1 / sqrt(x * x + y * y + z * z)
    return x * k, y * k, z * k, 0
  end
  local x, y, z, w = ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx, 1 + c
  local k = 1 / sqrt(x * x + y * y + z * z + w * w)
  return x * k, y * k, z * k, w * k
end
M.arc = arc
-- the model frame of the parent of joint j (rotation, origin, uniform scale), up the parents:
-- par[j + 1] is the 0-based parent of the 0-based joint j, -1 for a root
local function parent_frame(pose_, par, j)
  local qx, qy, qz, qw, tx, ty, tz, s = 0, 0, 0, 1, 0, 0, 0, 1
  local k = par[j + 1]
  while k >= 0 do
    local b = 10 * k
    local lx, ly, lz, lw, ls = pose_[b + 4], pose_[b + 5], pose_[b + 6], pose_[b + 7], pose_[b + 8]
    local rx, ry, rz = rotate(lx, ly, lz, lw, tx, ty, tz)
    tx, ty, tz = pose_[b + 1] + ls * rx, pose_[b + 2] + ls * ry, pose_[b + 3] + ls * rz
    s = ls * s
    qx, qy, qz, qw = qmul(lx, ly, lz, lw, qx, qy, qz, qw)
    k = par[k + 1]
  end
  return qx, qy, qz, qw, tx, ty, tz, s
end
M.parent_frame = parent_frame
-- writes the unit rotation x, y, z, w of joint j, on the side of the rotation it replaces
local function write_rotation(pose_, j, x, y, z, w)
  local b = 10 * j
  local k = 1 / sqrt(x * x + y * y + z * z + w * w)
  if x * pose_[b + 4] + y * pose_[b + 5] + z * pose_[b + 6] + w * pose_[b + 7] < 0 then k = -k end
  pose_[b + 4], pose_[b + 5], pose_[b + 6], pose_[b + 7] = x * k, y * k, z * k, w * k
end
M.write_rotation = write_rotation
-- slerp(a, b, t) of unit quaternions along the shorter arc; M.tie keeps the least |a . b| seen
-- (near 0, a and b are a half turn apart and rounding picks the arc: for the benchmarks' checks)
M.tie = 1
local function slerp(ax, ay, az, aw, bx, by, bz, bw, t)
  local d = ax * bx + ay * by + az * bz + aw * bw
  if abs(d) < M.tie then M.tie = abs(d) end
  if d < 0 then bx, by, bz, bw, d = -bx, -by, -bz, -bw, -d end
  local wa, wb = 1 - t, t
  if d < 1 - 1e-12 then
    local th = acos(d)
    local s = sin(th)
    wa, wb = sin((1 - t) * th) / s, sin(t * th) / s
  end
  return wa * ax + wb * bx, wa * ay + wb * by, wa * az + wb * bz, wa * aw + wb * bw
end
M.slerp = slerp
-- writes slerp(the rotation of joint j, x y z w, weight), as write_rotation does
local function write_weighted(pose_, j, x, y, z, w, weight)
  if weight < 1 then
    local b = 10 * j
    x, y, z, w = slerp(pose_[b + 4], pose_[b + 5], pose_[b + 6], pose_[b + 7], x, y, z, w, weight)
  end
  write_rotation(pose_, j, x, y, z, w)
end
M.write_weighted = write_weighted

-- Two-bone under the root's parent frame (rotation pq, origin pt, scale ps): the tip onto the
-- (softened, for soften < 1) target, the knee bending about its hinge (ax, ay, az, unit, in the
-- mid joint's frame), the root turned onto the target and about it into the plane of the pole;
-- the rotations written at `weight`. The knee's angle from the law of cosines written for a
-- hinge at any angle to the bones: |u + v(phi)|^2 = base + 2 R cos(phi - phi0). Returns
-- dist^2 - reached^2, 0 when the tip is on the target (not softened, within reach), and how far
-- from full reach the tip is (1 - reached^2 / reach^2), and how well the roll is defined (near
-- 0: the bend and the pole are opposite, and the roll's angle is rounding's).
local function two_bone_from(pose_, pqx, pqy, pqz, pqw, ptx, pty, ptz, ps, root, mid, tip, ax, ay, az, soften,
                             tx, ty, tz, px, py, pz, weight)
  local b = 10 * root
  local rlx, rly, rlz, rlw = pose_[b + 4], pose_[b + 5], pose_[b + 6], pose_[b + 7]
  local x, y, z = rotate(pqx, pqy, pqz, pqw, pose_[b + 1], pose_[b + 2], pose_[b + 3])
  local Ax, Ay, Az = ptx + ps * x, pty + ps * y, ptz + ps * z
  local rqx, rqy, rqz, rqw = qmul(pqx, pqy, pqz, pqw, rlx, rly, rlz, rlw)
  local rs = ps * pose_[b + 8]
  b = 10 * mid
  local mlx, mly, mlz, mlw = pose_[b + 4], pose_[b + 5], pose_[b + 6], pose_[b + 7]
  x, y, z = rotate(rqx, rqy, rqz, rqw, pose_[b + 1], pose_[b + 2], pose_[b + 3])
  local Bx, By, Bz = Ax + rs * x, Ay + rs * y, Az + rs * z
  local mqx, mqy, mqz, mqw = qmul(rqx, rqy, rqz, rqw, mlx, mly, mlz, mlw)
  local ms = rs * pose_[b + 8]
  b = 10 * tip
  x, y, z = rotate(mqx, mqy, mqz, mqw, pose_[b + 1], pose_[b + 2], pose_[b + 3])
  local Cx, Cy, Cz = Bx + ms * x, By + ms * y, Bz + ms * z
  -- bones u = B - A, v = C - B; the hinge n in model space
  local ux, uy, uz, vx, vy, vz = Bx - Ax, By - Ay, Bz - Az, Cx - Bx, Cy - By, Cz - Bz
  local l1, l2 = sqrt(ux * ux + uy * uy + uz * uz), sqrt(vx * vx + vy * vy + vz * vz)
  local nx, ny, nz = rotate(mqx, mqy, mqz, mqw, ax, ay, az)
  -- v's parts along n and across it, and n x vperp: v(phi) = vpar + cos(phi) vperp + sin(phi) w
  local vn = vx * nx + vy * ny + vz * nz
  local apx, apy, apz = nx * vn, ny * vn, nz * vn
  local cpx, cpy, cpz = vx - apx, vy - apy, vz - apz
  local wx, wy, wz = ny * cpz - nz * cpy, nz * cpx - nx * cpz, nx * cpy - ny * cpx
  local al, be = ux * cpx + uy * cpy + uz * cpz, ux * wx + uy * wy + uz * wz
  local base = l1 * l1 + l2 * l2 + 2 * (ux * apx + uy * apy + uz * apz)
  local R = sqrt(al * al + be * be)
  local c0, s0 = al / R, be / R
  local reach2, fold2 = base + 2 * R, base - 2 * R
  if fold2 < 0 then fold2 = 0 end
  -- the target's direction and softened distance
  local dx, dy, dz = tx - Ax, ty - Ay, tz - Az
  local dist = sqrt(dx * dx + dy * dy + dz * dz)
  local fx, fy, fz = dx / dist, dy / dist, dz / dist
  -- beyond soften x reach (da) the target's distance is softened to da + ds (1 - exp(-(d - da) / ds)),
  -- ds = reach - da: written with max and min, which LuaJIT compiles without a branch (soften 1:
  -- ds is a tiny positive number, so the exponential is 1 within reach and 0 beyond)
  local reach = sqrt(reach2)
  local da = soften * reach
  local ds = max(reach - da, 1e-300)
  local over = max(dist - da, 0)
  local want = dist - over + ds * (1 - exp(-over / ds))
  local want2 = min(max(want * want, fold2), reach2)
  -- the knee's turn phi = phi0 - acos(c), as a cosine and sine
  local c = (want2 - base) / (2 * R)
  c = min(max(c, -1), 1)
  local s = sqrt(1 - c * c)
  local cphi, sphi = c0 * c + s0 * s, s0 * c - c0 * s
  -- the root-tip vector e after the knee, and the mid's offset m from the root-tip line
  local ex, ey, ez = ux + apx + cphi * cpx + sphi * wx, uy + apy + cphi * cpy + sphi * wy, uz + apz + cphi * cpz + sphi * wz
  local k = 1 / sqrt(ex * ex + ey * ey + ez * ez)
  ex, ey, ez = ex * k, ey * k, ez * k
  k = ux * ex + uy * ey + uz * ez
  local mx, my, mz = ux - k * ex, uy - k * ey, uz - k * ez
  local ml = sqrt(mx * mx + my * my + mz * mz)
  -- the root: the shortest arc e -> f, then the roll about f taking the mid onto the pole's side
  local q1x, q1y, q1z, q1w = arc(ex, ey, ez, fx, fy, fz)
  local a1x, a1y, a1z, a1w = qmul(q1x, q1y, q1z, q1w, rqx, rqy, rqz, rqw)
  local pxx, pxy, pxz = px - Ax, py - Ay, pz - Az
  k = pxx * fx + pxy * fy + pxz * fz
  pxx, pxy, pxz = pxx - k * fx, pxy - k * fy, pxz - k * fz
  k = 1 / sqrt(pxx * pxx + pxy * pxy + pxz * pxz)
  pxx, pxy, pxz = pxx * k, pxy * k, pxz * k
  local b1x, b1y, b1z = rotate(q1x, q1y, q1z, q1w, mx, my, mz)
  local sx = (b1y * pxz - b1z * pxy) * fx + (b1z * pxx - b1x * pxz) * fy + (b1x * pxy - b1y * pxx) * fz
  local sw = ml + b1x * pxx + b1y * pxy + b1z * pxz
  k = 1 / sqrt(sw * sw + sx * sx)
  local xx, xy, xz, xw = fx * sx * k, fy * sx * k, fz * sx * k, sw * k
  -- locals: root' = parent^-1 X q1 root_model; mid' = mid R(axis, phi)
  x, y, z, k = qmul(-pqx, -pqy, -pqz, pqw, xx, xy, xz, xw)
  local w
  x, y, z, w = qmul(x, y, z, k, a1x, a1y, a1z, a1w)
  write_weighted(pose_, root, x, y, z, w, weight)
  k = 1 / sqrt(sphi * sphi + (1 + cphi) * (1 + cphi))
  x, y, z, w = qmul(mlx, mly, mlz, mlw, ax * sphi * k, ay * sphi * k, az * sphi * k, (1 + cphi) * k)
  write_weighted(pose_, mid, x, y, z, w, weight)
  return dist * dist - want2, 1 - want2 / reach2, (sw * sw + sx * sx) / (ml * ml)
end
M.two_bone_from = two_bone_from

--- Two-bone from the pose alone (the root's parent frame walked up the parents), at weight 1.
function M.two_bone(pose_, par, root, mid, tip, ax, ay, az, soften, tx, ty, tz, px, py, pz)
  local pqx, pqy, pqz, pqw, ptx, pty, ptz, ps = parent_frame(pose_, par, root)
  return two_bone_from(pose_, pqx, pqy, pqz, pqw, ptx, pty, ptz, ps, root, mid, tip, ax, ay, az, soften,
    tx, ty, tz, px, py, pz, 1)
end

return M
