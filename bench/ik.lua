-- Figures of sinew.ik from Lua: ns per solve of the two-bone, aim and chain (FABRIK, 4 joints, 16
-- iterations) solvers, each beside the same work written in plain Lua as a careful LuaJIT
-- programmer would (locals, no table or closure per call): read the joints' local transforms and
-- their ancestors' from a pose held as a flat Lua array (10 numbers a joint: translation,
-- rotation, scale), solve in model space, write the local rotations back. Two rigs: the skeleton
-- and solvers of bench/c/bench_ik.c, and the Fox (its left hind leg, its head, the leg and paw as
-- the chain). Before timing, each plain solver is run beside sinew's on the same inputs and must
-- write the same rotations (within 1e-5) and put the tip at the same place (within 1e-4 of the
-- rig's scale), or the bench stops with an error: the comparison is of the same work (the chain:
-- sinew's turns half its iterations into damped least-squares steps, so the check is that its tip
-- ends at least as near the target as the plain FABRIK's) (`bench/ik.lua check [n]` runs that
-- check alone, with n random targets per solver and rig).
-- On LuaJIT sinew takes its FFI path, on Lua 5.4 the C API, and the plain version runs on the
-- same interpreter. Issue 25's target: 2x the plain version or more where it takes over 200 ns.
--
-- Each call solves the pose as the call before left it, with a new target (16 in turn): every
-- call does the whole work (reads the frames, solves, writes), as bench_ik's do on a fresh copy of
-- their input. Copying the input back from Lua would cost more than some solves (pose:set_rotation
-- is a C API call, which LuaJIT does not compile), so neither side copies.
local sinew = require "sinew"
local bench = require "common"
local ik = sinew.ik

local sqrt, abs = math.sqrt, math.abs
local atan2 = math.atan2 or math.atan
local PI = math.pi

-- ---- plain Lua (two-bone and the helpers in bench/plain_ik.lua, shared with bench/ik_feet.lua) --
local plain = require "plain_ik"
local qmul, rotate, arc, parent_frame, write_rotation = plain.qmul, plain.rotate, plain.arc, plain.parent_frame,
  plain.write_rotation
local two_bone = plain.two_bone

-- Aim: the joint's forward axis (fx, fy, fz, unit), drawn from the offset (ox, oy, oz), through
-- the target; the up axis (ux, uy, uz, unit, across forward) rolled as near as it goes to its
-- input direction; the turn of the forward axis capped at `limit` (easing back to the input, a
-- smoothstep, as the target goes behind). Returns true when the forward line is on the target.
local function aim(pose_, par, j, fwx, fwy, fwz, upx, upy, upz, ox, oy, oz, limit, cos_limit, tx, ty, tz)
  local pqx, pqy, pqz, pqw, ptx, pty, ptz, ps = parent_frame(pose_, par, j)
  local b = 10 * j
  local x, y, z = rotate(pqx, pqy, pqz, pqw, pose_[b + 1], pose_[b + 2], pose_[b + 3])
  local jx, jy, jz = ptx + ps * x, pty + ps * y, ptz + ps * z
  local mqx, mqy, mqz, mqw = qmul(pqx, pqy, pqz, pqw, pose_[b + 4], pose_[b + 5], pose_[b + 6], pose_[b + 7])
  local s = ps * pose_[b + 8]
  local Ox, Oy, Oz = rotate(mqx, mqy, mqz, mqw, ox, oy, oz)
  Ox, Oy, Oz = Ox * s, Oy * s, Oz * s
  local fx, fy, fz = rotate(mqx, mqy, mqz, mqw, fwx, fwy, fwz)
  local ux, uy, uz = rotate(mqx, mqy, mqz, mqw, upx, upy, upz)
  -- the point of the forward line from the offset at the target's distance: w = o + lam f
  local dx, dy, dz = tx - jx, ty - jy, tz - jz
  local d2 = dx * dx + dy * dy + dz * dz
  local dist = sqrt(d2)
  local of = Ox * fx + Oy * fy + Oz * fz
  local disc = d2 - (Ox * Ox + Oy * Oy + Oz * Oz - of * of)
  if disc < 0 then return false end
  local lam = sqrt(disc) - of
  if lam <= 1e-9 * dist then return false end
  local wx, wy, wz = Ox + lam * fx, Oy + lam * fy, Oz + lam * fz
  -- the shortest arc w -> d (|w| = |d|)
  local cs = d2 + wx * dx + wy * dy + wz * dz
  local cx, cy, cz = wy * dz - wz * dy, wz * dx - wx * dz, wx * dy - wy * dx
  local k = 1 / sqrt(cx * cx + cy * cy + cz * cz + cs * cs)
  local q1x, q1y, q1z, q1w = cx * k, cy * k, cz * k, cs * k
  local nx, ny, nz = dx / dist, dy / dist, dz / dist
  -- the roll about the target direction bringing the turned up axis onto the input's, across it
  local ax, ay, az = rotate(q1x, q1y, q1z, q1w, ux, uy, uz)
  k = ax * nx + ay * ny + az * nz
  ax, ay, az = ax - k * nx, ay - k * ny, az - k * nz
  k = ux * nx + uy * ny + uz * nz
  local bx, by, bz = ux - k * nx, uy - k * ny, uz - k * nz
  k = 1 / sqrt(bx * bx + by * by + bz * bz)
  bx, by, bz = bx * k, by * k, bz * k
  local al = sqrt(ax * ax + ay * ay + az * az)
  local sn = (ay * bz - az * by) * nx + (az * bx - ax * bz) * ny + (ax * by - ay * bx) * nz
  local sw = al + ax * bx + ay * by + az * bz
  k = 1 / sqrt(sn * sn + sw * sw)
  local rx, ry, rz, rw = qmul(nx * sn * k, ny * sn * k, nz * sn * k, sw * k, q1x, q1y, q1z, q1w)
  -- the limit: the angle the forward axis turns
  local reached = true
  local rf = rx * fx + ry * fy + rz * fz
  if limit < PI and 1 - 2 * ((rx * rx + ry * ry + rz * rz) - rf * rf) < cos_limit then
    local gx, gy, gz = rotate(rx, ry, rz, rw, fx, fy, fz)
    local ex, ey, ez = fy * gz - fz * gy, fz * gx - fx * gz, fx * gy - fy * gx
    local el = sqrt(ex * ex + ey * ey + ez * ez)
    local angle = atan2(el, fx * gx + fy * gy + fz * gz)
    if angle > limit then
      reached = false
      local t = (angle - limit) / (PI - limit)
      if t > 1 then t = 1 end
      local g = limit * (1 - t * t * (3 - 2 * t))
      -- the full turn's roll about its forward axis: r = R(g, rho) arc(f -> g)
      local hx, hy, hz, hw = arc(fx, fy, fz, gx, gy, gz)
      local ox_, oy_, oz_, ow_ = qmul(rx, ry, rz, rw, -hx, -hy, -hz, hw)
      local rho = 2 * atan2(ox_ * gx + oy_ * gy + oz_ * gz, ow_)
      if rho > PI then rho = rho - 2 * PI elseif rho < -PI then rho = rho + 2 * PI end
      -- turn f by g along the same great circle, and keep the roll faded by g / limit
      ex, ey, ez = ex / el, ey / el, ez / el
      local sg, cg = math.sin(0.5 * g), math.cos(0.5 * g)
      local cqx, cqy, cqz, cqw = ex * sg, ey * sg, ez * sg, cg
      local hx2, hy2, hz2 = rotate(cqx, cqy, cqz, cqw, fx, fy, fz)
      local h = 0.5 * rho * g / limit
      local sh, ch = math.sin(h), math.cos(h)
      rx, ry, rz, rw = qmul(hx2 * sh, hy2 * sh, hz2 * sh, ch, cqx, cqy, cqz, cqw)
    end
  end
  -- local' = parent^-1 r model
  x, y, z, k = qmul(rx, ry, rz, rw, mqx, mqy, mqz, mqw)
  write_rotation(pose_, j, qmul(-pqx, -pqy, -pqz, pqw, x, y, z, k))
  return reached
end

-- FABRIK over the chain joints CH[1 .. N] (0-based joints), `iterations` at most, stopping once
-- the tip is within `tolerance`: the backward pass from the target, the forward pass from the
-- root, bones at their lengths, on positions; then, root first, each joint turned by the shortest
-- arc from its bone to the bone's solved direction. Scratch: flat tables made once. Returns the
-- distance left.
local X, Y, Z, FX, FY, FZ, LEN = {}, {}, {}, {}, {}, {}, {}
local S = {}
for i = 1, 32 do X[i], Y[i], Z[i], FX[i], FY[i], FZ[i], LEN[i], S[i] = 0, 0, 0, 0, 0, 0, 0, 1 end
local function fabrik(pose_, par, CH, N, iterations, tolerance, tx, ty, tz)
  local pqx, pqy, pqz, pqw, ptx, pty, ptz, ps = parent_frame(pose_, par, CH[1])
  -- model positions, rotations and scales down the chain
  local b = 10 * CH[1]
  local x, y, z = rotate(pqx, pqy, pqz, pqw, pose_[b + 1], pose_[b + 2], pose_[b + 3])
  X[1], Y[1], Z[1] = ptx + ps * x, pty + ps * y, ptz + ps * z
  local mx, my, mz, mw, s = pqx, pqy, pqz, pqw, ps
  for i = 1, N - 1 do
    b = 10 * CH[i]
    mx, my, mz, mw = qmul(mx, my, mz, mw, pose_[b + 4], pose_[b + 5], pose_[b + 6], pose_[b + 7])
    s = s * pose_[b + 8]
    S[i] = s
    local c = 10 * CH[i + 1]
    local lx, ly, lz = pose_[c + 1], pose_[c + 2], pose_[c + 3]
    x, y, z = rotate(mx, my, mz, mw, lx, ly, lz)
    X[i + 1], Y[i + 1], Z[i + 1] = X[i] + s * x, Y[i] + s * y, Z[i] + s * z
    LEN[i] = abs(s) * sqrt(lx * lx + ly * ly + lz * lz)
  end
  local dx, dy, dz = tx - X[N], ty - Y[N], tz - Z[N]
  local d = sqrt(dx * dx + dy * dy + dz * dz)
  for _ = 1, iterations do
    if d <= tolerance then break end
    FX[N], FY[N], FZ[N] = tx, ty, tz
    for i = N - 1, 1, -1 do
      local vx, vy, vz = X[i] - FX[i + 1], Y[i] - FY[i + 1], Z[i] - FZ[i + 1]
      local k = LEN[i] / sqrt(vx * vx + vy * vy + vz * vz)
      FX[i], FY[i], FZ[i] = FX[i + 1] + k * vx, FY[i + 1] + k * vy, FZ[i + 1] + k * vz
    end
    for i = 1, N - 1 do
      local vx, vy, vz = FX[i + 1] - X[i], FY[i + 1] - Y[i], FZ[i + 1] - Z[i]
      local k = LEN[i] / sqrt(vx * vx + vy * vy + vz * vz)
      X[i + 1], Y[i + 1], Z[i + 1] = X[i] + k * vx, Y[i] + k * vy, Z[i] + k * vz
    end
    dx, dy, dz = tx - X[N], ty - Y[N], tz - Z[N]
    d = sqrt(dx * dx + dy * dy + dz * dz)
  end
  -- the rotations, root first: each joint carried by its parent's new rotation, then turned
  mx, my, mz, mw = pqx, pqy, pqz, pqw
  local px, py, pz = X[1], Y[1], Z[1]
  for i = 1, N - 1 do
    b = 10 * CH[i]
    local c = 10 * CH[i + 1]
    local qx, qy, qz, qw = qmul(mx, my, mz, mw, pose_[b + 4], pose_[b + 5], pose_[b + 6], pose_[b + 7])
    local bx, by, bz = rotate(qx, qy, qz, qw, pose_[c + 1], pose_[c + 2], pose_[c + 3])
    local wx, wy, wz = X[i + 1] - px, Y[i + 1] - py, Z[i + 1] - pz
    local kb, kw = 1 / sqrt(bx * bx + by * by + bz * bz), 1 / sqrt(wx * wx + wy * wy + wz * wz)
    local ax_, ay_, az_, aw_ = arc(bx * kb, by * kb, bz * kb, wx * kw, wy * kw, wz * kw)
    qx, qy, qz, qw = qmul(ax_, ay_, az_, aw_, qx, qy, qz, qw)
    -- the local rotation: parent^-1 model, written; the model rotation from it
    local lx, ly, lz, lw = qmul(-mx, -my, -mz, mw, qx, qy, qz, qw)
    write_rotation(pose_, CH[i], lx, ly, lz, lw)
    mx, my, mz, mw = qmul(mx, my, mz, mw, pose_[b + 4], pose_[b + 5], pose_[b + 6], pose_[b + 7])
    x, y, z = rotate(mx, my, mz, mw, pose_[c + 1], pose_[c + 2], pose_[c + 3])
    s = S[i]
    px, py, pz = px + s * x, py + s * y, pz + s * z
  end
  dx, dy, dz = tx - px, ty - py, tz - pz
  return sqrt(dx * dx + dy * dy + dz * dz)
end

-- ---- the rigs -----------------------------------------------------------------------------------
-- A rig: a skeleton, its input pose, the three solvers (joints 1-based as sinew takes them, the
-- plain parameters beside), and `targets(position)`, which sets the 16 targets of each solver
-- from the input's model positions (`position(j)`, j 0-based).
local function parents_of(skel)
  local par = {}
  for j = 1, #skel do par[j] = skel:parent(j) - 1 end
  return par
end

-- bench_ik.c's: hips(0) spine(1) chest(2) neck(3) head(4); thigh(5) under hips, shin(6), foot(7),
-- then 8 .. 23 each under the one before (the arm: 8 .. 11); every rotation the same unit one
local function bench_rig()
  local names, parents, rest = {}, {}, {}
  local l = sqrt(0.05 * 0.05 + 0.1 * 0.1 + 0.02 * 0.02 + 0.993 * 0.993)
  for j = 0, 23 do
    local p = j == 0 and -1 or j <= 4 and j - 1 or j == 5 and 0 or j - 1
    names[j + 1], parents[j + 1] = "j" .. j, p + 1
    local t = (j == 6 or j == 7) and { 0, -0.45, 0 } or { 0.1, 0.4, 0.05 }
    rest[j + 1] = { t[1], t[2], t[3], 0.05 / l, 0.1 / l, 0.02 / l, 0.993 / l, 1, 1, 1 }
  end
  local skel = sinew.skeleton { names = names, parents = parents, rest = rest }
  return {
    name = "bench_ik.c's 24 joints", skel = skel, input = sinew.pose(skel), scale = 1,
    leg = { 6, 7, 8 }, axis = { 1, 0, 0 }, soften = 0.9,
    head = 5, forward = { 0, 0, 1 }, up = { 0, 1, 0 }, offset = { 0, 0.1, 0 }, limit = 1.4,
    arm = { 9, 10, 11, 12 },
    targets = function(position, t)
      local hx, hy, hz = position(5) -- the thigh
      local ax, ay, az = position(8) -- the arm's root
      for i = 1, 16 do
        local f = (i - 1) / 15
        local d = 0.9 * (0.75 + 0.3 * f) -- 0.75 .. 1.05 of the leg's reach, softened from 0.9
        t.LX[i], t.LY[i], t.LZ[i] = hx + 0.3 * d, hy - 0.9 * d, hz + 0.3 * d
        t.AX[i], t.AY[i], t.AZ[i] = 1.0 + 0.5 * f, 2.0, 3.0                      -- bench_ik.c's
        t.CX[i], t.CY[i], t.CZ[i] = ax + 0.3 + 0.4 * f, ay - 0.2, az + 0.5      -- bench_ik.c's
      end
      t.PX, t.PY, t.PZ = hx + 0.3, hy - 0.2, hz + 2 -- in front of the knee
    end,
  }
end

-- the Fox (assets/fox): its left hind leg (two-bone; with its paw, the 4-joint chain), its head
-- (5 ancestors), the rest pose as input; the Fox faces +z, model units of about a centimetre
local function fox_rig()
  local fox = assert(sinew.gltf.load("assets/fox/glTF-Binary/Fox.glb"))
  local skel = fox.skeleton
  local input = sinew.pose(skel)
  input:copy(fox.rest)
  local function find(name) return assert(skel:find(name), name) end
  local thigh, shin, paw, toe = find("b_LeftLeg01_015"), find("b_LeftLeg02_016"), find("b_LeftFoot01_017"),
    find("b_LeftFoot02_018")
  return {
    name = "the Fox's", skel = skel, input = input, scale = 40,
    leg = { thigh, shin, paw }, axis = { 0, 0, 1 }, soften = 0.9,
    head = find("b_Head_05"), forward = { 0, 0, 1 }, up = { 0, 1, 0 }, offset = { 0, 5, 3 }, limit = math.rad(80),
    arm = { thigh, shin, paw, toe },
    targets = function(position, t)
      local rx, ry, rz = position(thigh - 1)
      local kx, ky, kz = position(shin - 1)
      local px, py, pz = position(paw - 1)
      local tx, ty, tz = position(toe - 1)
      local hx, hy, hz = position(find("b_Head_05") - 1)
      local reach, chain = 18.944 + 17.943, 18.944 + 17.943 + 15.780
      for i = 1, 16 do
        local f = (i - 1) / 15
        -- the paw moved forward and back, from 0.75 to 1.05 of the reach away from the hip
        local dx, dy, dz = px - rx, py - ry, pz - rz + 0.4 * reach * (f - 0.5)
        local k = reach * (0.75 + 0.3 * f) / sqrt(dx * dx + dy * dy + dz * dz)
        t.LX[i], t.LY[i], t.LZ[i] = rx + k * dx, ry + k * dy, rz + k * dz
        t.AX[i], t.AY[i], t.AZ[i] = hx - 60 + 120 * f, hy + 10, hz + 150 -- in front of the head
        dx, dy, dz = tx - rx, ty - ry, tz - rz + 0.5 * chain * (f - 0.5)
        k = chain * (0.5 + 0.4 * f) / sqrt(dx * dx + dy * dy + dz * dz)
        t.CX[i], t.CY[i], t.CZ[i] = rx + k * dx, ry + k * dy, rz + k * dz
      end
      -- the pole: beyond the knee, away from the hip-paw line
      local mx, my, mz = kx - 0.5 * (rx + px), ky - 0.5 * (ry + py), kz - 0.5 * (rz + pz)
      t.PX, t.PY, t.PZ = kx + 4 * mx, ky + 4 * my, kz + 4 * mz
    end,
  }
end

-- a deterministic generator, the same on every Lua (see spec/helper.lua)
local seed = 2525
local function rnd(lo, hi)
  seed = (seed * 16807) % 2147483647
  return lo + (hi - lo) * (seed - 1) / 2147483646
end
local function random_direction()
  local x, y, z, l
  repeat
    x, y, z = rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)
    l = sqrt(x * x + y * y + z * z)
  until l > 0.1 and l <= 1
  return x / l, y / l, z / l
end

local ITERATIONS = 16
local plain_name = bench.interpreter == "luajit" and "plain LuaJIT" or ("plain Lua " .. _VERSION:match("%d.%d"))
local jit_ = bench.interpreter == "luajit"
local sink = 0
local totals = { two = 0, soft = 0, aim = 0, limited = 0, chain = 0 }

-- Checks the plain solvers against sinew's on `rig` (with `extra` random targets each), then,
-- unless `extra` is given, times both; `only` picks the cases whose names hold it.
local function run(rig, extra, only)
  local skel, input = rig.skel, rig.input
  local pose, mats = sinew.pose(skel), sinew.matrices(skel)
  local joints = #skel
  local PAR = parents_of(skel)
  local P = {} -- the pose for plain Lua: joint j's translation at P[10 j + 1 .. 3], rotation
  -- x, y, z, w at P[10 j + 4 .. 7], scale at P[10 j + 8 .. 10]
  local function sync() -- P = sinew's pose, number for number (sinew's floats)
    for j = 0, joints - 1 do
      local v = { pose:get(j + 1) }
      for c = 1, 10 do P[10 * j + c] = v[c] end
    end
  end
  local function reset()
    pose:copy(input)
    sync()
  end
  reset()

  local leg = ik.two_bone { skeleton = skel, joints = rig.leg, mid_axis = rig.axis, soften = rig.soften }
  local head = ik.aim { skeleton = skel, joint = rig.head, forward = rig.forward, up = rig.up, offset = rig.offset,
    limit = rig.limit }
  local arm = ik.chain { skeleton = skel, joints = rig.arm, method = "fabrik", iterations = ITERATIONS, tolerance = 0 }

  -- the plain versions, their parameters as locals (0-based joints; axes unit, up across forward)
  local root, mid, tip, soften = rig.leg[1] - 1, rig.leg[2] - 1, rig.leg[3] - 1, rig.soften
  local kx, ky, kz = rig.axis[1], rig.axis[2], rig.axis[3]
  local kl = sqrt(kx * kx + ky * ky + kz * kz)
  kx, ky, kz = kx / kl, ky / kl, kz / kl
  local hj, limit, cos_limit = rig.head - 1, rig.limit, math.cos(rig.limit)
  local fx, fy, fz = rig.forward[1], rig.forward[2], rig.forward[3]
  local fl = sqrt(fx * fx + fy * fy + fz * fz)
  fx, fy, fz = fx / fl, fy / fl, fz / fl
  local ux, uy, uz = rig.up[1], rig.up[2], rig.up[3]
  local k = ux * fx + uy * fy + uz * fz
  ux, uy, uz = ux - k * fx, uy - k * fy, uz - k * fz
  k = sqrt(ux * ux + uy * uy + uz * uz)
  ux, uy, uz = ux / k, uy / k, uz / k
  local ox, oy, oz = rig.offset[1], rig.offset[2], rig.offset[3]
  local CH, N = {}, #rig.arm
  for i = 1, N do CH[i] = rig.arm[i] - 1 end
  local function plain_leg(tx, ty, tz, px, py, pz)
    return two_bone(P, PAR, root, mid, tip, kx, ky, kz, soften, tx, ty, tz, px, py, pz)
  end
  local function plain_head(tx, ty, tz)
    return aim(P, PAR, hj, fx, fy, fz, ux, uy, uz, ox, oy, oz, limit, cos_limit, tx, ty, tz)
  end
  local function plain_arm(tx, ty, tz) return fabrik(P, PAR, CH, N, ITERATIONS, 0, tx, ty, tz) end

  -- model-space position of joint j (0-based) in sinew's pose, and in P
  local function sinew_position(j)
    pose:to_model(mats)
    local m = { mats:get(j + 1) }
    return m[13], m[14], m[15]
  end
  local function plain_position(j)
    local qx, qy, qz, qw, tx, ty, tz, s = parent_frame(P, PAR, j)
    local b = 10 * j
    local x, y, z = rotate(qx, qy, qz, qw, P[b + 1], P[b + 2], P[b + 3])
    return tx + s * x, ty + s * y, tz + s * z
  end

  -- the targets: 16 a solver, taken in turn
  local T = { LX = {}, LY = {}, LZ = {}, AX = {}, AY = {}, AZ = {}, CX = {}, CY = {}, CZ = {} }
  rig.targets(sinew_position, T)
  local LX, LY, LZ, AX, AY, AZ, CX, CY, CZ = T.LX, T.LY, T.LZ, T.AX, T.AY, T.AZ, T.CX, T.CY, T.CZ
  local LPX, LPY, LPZ = T.PX, T.PY, T.PZ

  -- ---- the same work: checked first ----
  local function same(what, list, at, tx, ty, tz)
    for _, j in ipairs(list) do
      local x, y, z, w = pose:get_rotation(j + 1)
      local b = 10 * j
      local e = math.max(abs(x - P[b + 4]), abs(y - P[b + 5]), abs(z - P[b + 6]), abs(w - P[b + 7]))
      if e > 1e-5 or e ~= e then
        error(("%s, %s, target (%g, %g, %g): joint %d's rotation: sinew (%.7f, %.7f, %.7f, %.7f), plain Lua "
          .. "(%.7f, %.7f, %.7f, %.7f)"):format(rig.name, what, tx, ty, tz, j, x, y, z, w, P[b + 4], P[b + 5],
          P[b + 6], P[b + 7]))
      end
    end
    local ax, ay, az = sinew_position(at)
    local bx, by, bz = plain_position(at)
    local e = math.max(abs(ax - bx), abs(ay - by), abs(az - bz))
    if e > 1e-4 * rig.scale or e ~= e then
      error(("%s, %s, target (%g, %g, %g): the tip: sinew (%g, %g, %g), plain Lua (%g, %g, %g)")
        :format(rig.name, what, tx, ty, tz, ax, ay, az, bx, by, bz))
    end
  end
  local count = { two = 0, soft = 0, aim = 0, limited = 0, chain = 0 }
  local function two_bone_case(tx, ty, tz, px, py, pz)
    reset()
    local r1 = leg:solve(pose, tx, ty, tz, px, py, pz, 1)
    local r2 = plain_leg(tx, ty, tz, px, py, pz) == 0
    if r1 ~= r2 then error(("%s, two-bone, target (%g, %g, %g): reached: sinew %s, plain Lua %s"):format(rig.name,
      tx, ty, tz, tostring(r1), tostring(r2))) end
    count.two, count.soft = count.two + 1, count.soft + (r1 and 0 or 1)
    same("two-bone", { root, mid }, tip, tx, ty, tz)
  end
  local function aim_case(tx, ty, tz)
    local r1 = head:solve(pose, tx, ty, tz, 1)
    local r2 = plain_head(tx, ty, tz)
    if r1 ~= r2 then error(("%s, aim, target (%g, %g, %g): on the target: sinew %s, plain Lua %s"):format(rig.name,
      tx, ty, tz, tostring(r1), tostring(r2))) end
    count.aim, count.limited = count.aim + 1, count.limited + (r1 and 0 or 1)
    same("aim", { hj }, hj, tx, ty, tz)
    sync() -- go on from sinew's floats
  end
  -- (sinew's chain runs FABRIK for half its iterations and damped least-squares steps for the rest,
  -- manual/ik.md, Chains; the plain one FABRIK for all 16: the check is that sinew's tip ends at
  -- least as near the target, lengths kept, not that the two write the same rotations)
  local function chain_case(tx, ty, tz)
    reset()
    local left = arm:solve(pose, tx, ty, tz, 1)
    local plain_left = plain_arm(tx, ty, tz)
    if left > plain_left + 1e-4 * rig.scale or left ~= left then
      error(("%s, chain, target (%g, %g, %g): distance left: sinew %g, plain Lua %g"):format(rig.name, tx, ty, tz,
        left, plain_left))
    end
    count.chain = count.chain + 1
    local x, y, z = sinew_position(CH[N])
    local d = math.sqrt((x - tx) ^ 2 + (y - ty) ^ 2 + (z - tz) ^ 2)
    if abs(d - left) > 1e-4 * rig.scale then
      error(("%s, chain, target (%g, %g, %g): the tip is %g from it, the solve said %g"):format(rig.name, tx, ty, tz,
        d, left))
    end
  end
  for i = 1, 16 do
    two_bone_case(LX[i], LY[i], LZ[i], LPX, LPY, LPZ)
    reset()
    aim_case(AX[i], AY[i], AZ[i])
    chain_case(CX[i], CY[i], CZ[i])
  end
  -- random targets: two-bone 0.3 .. 1.2 of the rig's scale (in and out of the softening band and
  -- of reach), any pole; aim 0.5 .. 5 away in any direction (within and past the limit); chain
  -- 0.1 .. 1.3 of the scale
  local rx, ry, rz = sinew_position(root)
  local jx, jy, jz = sinew_position(hj)
  local cx, cy, cz = sinew_position(CH[1])
  local u = rig.scale
  for _ = 1, extra or 0 do
    local x, y, z = random_direction()
    local d = rnd(0.3, 1.2) * u
    local px, py, pz = random_direction()
    two_bone_case(rx + d * x, ry + d * y, rz + d * z, rx + u * px, ry + u * py, rz + u * pz)
    reset()
    x, y, z = random_direction()
    d = rnd(0.5, 5) * u
    aim_case(jx + d * x, jy + d * y, jz + d * z)
    x, y, z = random_direction()
    d = rnd(0.1, 1.3) * u
    chain_case(cx + d * x, cy + d * y, cz + d * z)
  end
  for key, v in pairs(count) do totals[key] = totals[key] + v end
  if extra then return end

  -- ---- timing ----
  -- each side's closure its own function (LuaJIT's traces specialise on a function's code)
  local k1, k2, k3, k4, k5, k6 = 0, 0, 0, 0, 0, 0
  local cases = {
    { "ik two-bone", jit_ and 150000 or 30000,
      function()
        k1 = k1 % 16 + 1
        local _, flags = leg:solve(pose, LX[k1], LY[k1], LZ[k1], LPX, LPY, LPZ, 1)
        sink = sink + flags
      end,
      function()
        k2 = k2 % 16 + 1
        sink = sink + plain_leg(LX[k2], LY[k2], LZ[k2], LPX, LPY, LPZ)
      end },
    { "ik aim", jit_ and 150000 or 30000,
      function()
        k3 = k3 % 16 + 1
        local _, flags = head:solve(pose, AX[k3], AY[k3], AZ[k3], 1)
        sink = sink + flags
      end,
      function()
        k4 = k4 % 16 + 1
        if plain_head(AX[k4], AY[k4], AZ[k4]) then sink = sink + 1 end
      end },
    { "ik chain FABRIK 4 joints, 16 iterations", jit_ and 30000 or 4000,
      function()
        k5 = k5 % 16 + 1
        sink = sink + arm:solve(pose, CX[k5], CY[k5], CZ[k5], 1)
      end,
      function()
        k6 = k6 % 16 + 1
        sink = sink + plain_arm(CX[k6], CY[k6], CZ[k6])
      end },
  }
  reset()
  local depth = function(j) -- ancestors of the 1-based joint j
    local d, p = 0, skel:parent(j)
    while p > 0 do d, p = d + 1, skel:parent(p) end
    return d
  end
  print(("%-7s %s (%s; ancestors above the solved joints: two-bone %d, aim %d, chain %d; checked: the same "
    .. "rotations as plain Lua on %d two-bone (%d softened), %d aim (%d limited), %d chain solves)")
    :format(bench.interpreter, rig.name, sinew.path == "ffi" and "FFI path" or "C API", depth(rig.leg[1]),
      depth(rig.head), depth(rig.arm[1]), count.two, count.soft, count.aim, count.limited, count.chain))
  for _, c in ipairs(cases) do
    local what, n, s_call, p_call = c[1], c[2], c[3], c[4]
    if not only or what:find(only, 1, true) then
      -- the check's traces end in its own calls (C API, not compiled), and LuaJIT gives up on a
      -- trace that fails too often: each case starts from no compiled code at all
      if jit_ then jit.flush() end
      -- the two in turn, three times each, the least of each: they see the same moments of a shared host
      local ts, tp = math.huge, math.huge
      for _ = 1, 3 do
        ts = math.min(ts, bench.ns_per_call(s_call, n))
        tp = math.min(tp, bench.ns_per_call(p_call, n))
      end
      local g = bench.least_garbage(s_call, math.floor(n / 4))
      local target = tp <= 200 and "plain under 200 ns" or tp >= 2 * ts and "target 2x met" or "target 2x missed"
      print(("%-7s %s: sinew %.0f ns, %s %.0f ns (%.1fx %s; %s), %g B/call"):format(bench.interpreter, what, ts,
        plain_name, tp, tp >= ts and tp / ts or ts / tp, tp >= ts and "faster" or "slower", target, g))
    end
  end
end

if arg and arg[1] == "check" then -- the check alone, on many random targets (spec/ik_bench_spec.lua)
  local n = tonumber(arg[2]) or 500
  run(bench_rig(), n)
  run(fox_rig(), n)
  if not (totals.soft > 0 and totals.soft < totals.two) then
    error("two-bone: the targets were not both within reach and in the softening band")
  end
  if not (totals.limited > 0 and totals.limited < totals.aim) then
    error("aim: the targets were not both within and past the limit")
  end
  print(("checked: the same rotations as plain Lua on %d two-bone (%d not reached), %d aim (%d limited), "
    .. "%d chain solves (%s)"):format(totals.two, totals.soft, totals.aim, totals.limited, totals.chain, sinew.path))
  return
end
local only = arg and arg[1] -- a word of the cases' names: `luajit bench/ik.lua aim` runs those
run(bench_rig(), nil, only)
run(fox_rig(), nil, only)
assert(sink == sink, "the results are numbers")
