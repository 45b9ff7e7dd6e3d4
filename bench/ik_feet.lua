-- Figures of sinew.ik.feet: nanoseconds per four-leg solve of the Fox walking on a 10-degree hill
-- (its Walk sampled beforehand: the solve alone is timed), with its ground callback (a plane) in
-- Lua, and the garbage per solve; then the ground callbacks alone (four calls of the same Lua
-- function), for what the solve adds to them. The C figure is bench/c/bench_ik_feet.c's.
--
-- Beside sinew's, the same work written in plain Lua as a careful LuaJIT programmer would (see
-- bench/plain_ik.lua, whose two-bone it uses), on a pose held as a flat Lua array: each leg's
-- thigh, shin and foot read in model space (from the pelvis's frame down), the same ground
-- callback, the pelvis's drop (the target held low, the critically damped spring, each leg's
-- reach), a two-bone solve per leg (the knee about its current hinge, the pole on its side), the
-- foot turned toward the ground's normal within the limit (smoothed), all at a weight. Before
-- timing, the two run side by side on the Walk over hills, stairs and flat grounds with random
-- steps and weights, and the bench stops with an error where a rotation differs by more than
-- 1e-5 or the pelvis by more than 1e-5 of the shortest leg (`bench/ik_feet.lua check [n]` runs
-- that check alone on n frames a ground; spec/ik_bench_spec.lua runs it). Not bit for bit:
-- sinew's pose holds floats, so each write rounds (to 6e-8 of the value) where the plain Lua keeps
-- doubles, and sinew reads its joints back from the rounded pose between the phases.
local sinew = require "sinew"
local bench = require "common"
local plain = require "plain_ik"

local sqrt, exp, huge, min = math.sqrt, math.exp, math.huge, math.min
local qmul, rotate, arc, parent_frame = plain.qmul, plain.rotate, plain.arc, plain.parent_frame
local write_weighted, two_bone_from = plain.write_weighted, plain.two_bone_from

local FOX_LEGS = { { "b_LeftUpperArm_09", "b_LeftForeArm_010", "b_LeftHand_011" },
                   { "b_RightUpperArm_06", "b_RightForeArm_07", "b_RightHand_08" },
                   { "b_LeftLeg01_015", "b_LeftLeg02_016", "b_LeftFoot01_017" },
                   { "b_RightLeg01_019", "b_RightLeg02_020", "b_RightFoot01_021" } }
local PELVIS = "b_Hip_01"

-- the core's constants (src/core/ik.h, ik_feet.c): a knee bent by more than BENT (the sine of
-- thigh and shin) bends about its current hinge; the held-low target rises at most RISE leg
-- lengths a second; the cosine of the largest normal limit (80 degrees)
local BENT, RISE, MIN_COS = 0.05, 0.25, math.cos(math.rad(80))

-- How far the roots' and feet's rotations may differ (see check), beside 1e-4 for the others (a
-- knee near full reach turns by the arc cosine of a number near 1, which magnifies the float
-- rounding of sinew's pose to about 2e-5): the root's roll about the hip-foot line comes from two
-- numbers that are small where the knee's bend and the pole are nearly opposite (at most 5% of
-- them beyond 1e-4). Legs whose roll is a half turn to 1e-6, out of reach or within 1e-5 of
-- full reach are not compared: their roll is rounding's.
local ROLL_TOLERANCE = 1e-3

-- ---- plain Lua ----------------------------------------------------------------------------------
-- A plain foot-placement solver of `skel` (legs: 1-based joint triples, up: unit), its knee
-- hinges from the rest pose `rest`: flat per-leg arrays made once, and the smoothing state.
local function plain_feet(skel, rest, pelvis, legs, up, max_drop, normal_limit, smoothing)
  local F = { pelvis = pelvis - 1, n = #legs, ux = up[1], uy = up[2], uz = up[3], max_drop = max_drop,
    cos_limit = math.cos(normal_limit), sin_limit = math.sin(normal_limit), smoothing = smoothing,
    started = false, offset = 0, velocity = 0, low = 0, PAR = {}, ROOT = {}, MID = {}, TIP = {},
    PATH = {}, PATH_FROM = {}, PATH_TO = {}, AXX = {}, AXY = {}, AXZ = {} }
  for j = 1, #skel do F.PAR[j] = skel:parent(j) - 1 end
  for _, name in ipairs { "A", "C", "TQ", "MQ", "PQ", "PT", "HX", "NS", "NV", "N" } do
    for _, c in ipairs { "x", "y", "z", "w" } do F[name .. c] = {} end
  end
  for _, name in ipairs { "PS", "H", "REACH", "LIFT", "BENT", "MISS" } do F[name] = {} end
  for l, leg in ipairs(legs) do
    local r, m, t = leg[1] - 1, leg[2] - 1, leg[3] - 1
    F.ROOT[l], F.MID[l], F.TIP[l] = r, m, t
    -- the joints between the pelvis and the root, top down
    local down, k = {}, F.PAR[r + 1]
    while k ~= F.pelvis do
      table.insert(down, 1, k)
      k = F.PAR[k + 1]
    end
    F.PATH_FROM[l] = #F.PATH + 1
    for _, j in ipairs(down) do F.PATH[#F.PATH + 1] = j end
    F.PATH_TO[l] = #F.PATH
    -- the rest pose's knee hinge in the mid frame: shin x thigh (the thigh seen from the mid joint)
    local mt, tt = { rest:get(leg[2]) }, { rest:get(leg[3]) }
    local ux, uy, uz = rotate(-mt[4], -mt[5], -mt[6], mt[7], mt[1], mt[2], mt[3])
    local nx, ny, nz = tt[2] * uz - tt[3] * uy, tt[3] * ux - tt[1] * uz, tt[1] * uy - tt[2] * ux
    local nl = sqrt(nx * nx + ny * ny + nz * nz)
    if nl > 1e-6 * sqrt(ux * ux + uy * uy + uz * uz) * sqrt(tt[1] ^ 2 + tt[2] ^ 2 + tt[3] ^ 2) then
      F.AXX[l], F.AXY[l], F.AXZ[l] = nx / nl, ny / nl, nz / nl
    else
      F.AXX[l], F.AXY[l], F.AXZ[l] = 0, 0, 1
    end
  end
  return F
end

-- the critically damped spring's step toward `target` (w = 2 / time, e = exp(-w dt))
local function spring(x, v, target, w, e, dt)
  if not (w > 0 and w < huge) then return target, 0 end
  local y = x - target
  local j = v + w * y
  local nx, nv = target + (y + j * dt) * e, (v - w * j * dt) * e
  if nx - nx == 0 and nv - nv == 0 then return nx, nv end
  return target, 0
end

-- Reads leg l of P under the pelvis's model frame (fq, ft, fs) into F: its root's parent frame,
-- root, mid and tip, the knee's hinge when it bends; then asks the ground under the foot and keeps
-- the foot's lift and its normal within the limit. Returns the lift.
local function read_leg(F, P, ground, l, qx, qy, qz, qw, tx, ty, tz, s)
  local PATH = F.PATH
  local b, x, y, z
  for k = F.PATH_FROM[l], F.PATH_TO[l] do
    b = 10 * PATH[k]
    x, y, z = rotate(qx, qy, qz, qw, P[b + 1], P[b + 2], P[b + 3])
    tx, ty, tz = tx + s * x, ty + s * y, tz + s * z
    qx, qy, qz, qw = qmul(qx, qy, qz, qw, P[b + 4], P[b + 5], P[b + 6], P[b + 7])
    s = s * P[b + 8]
  end
  F.PQx[l], F.PQy[l], F.PQz[l], F.PQw[l], F.PTx[l], F.PTy[l], F.PTz[l], F.PS[l] = qx, qy, qz, qw, tx, ty, tz, s
  -- the root
  b = 10 * F.ROOT[l]
  x, y, z = rotate(qx, qy, qz, qw, P[b + 1], P[b + 2], P[b + 3])
  local ax, ay, az = tx + s * x, ty + s * y, tz + s * z
  qx, qy, qz, qw = qmul(qx, qy, qz, qw, P[b + 4], P[b + 5], P[b + 6], P[b + 7])
  s = s * P[b + 8]
  -- the mid
  b = 10 * F.MID[l]
  x, y, z = rotate(qx, qy, qz, qw, P[b + 1], P[b + 2], P[b + 3])
  local bx, by, bz = ax + s * x, ay + s * y, az + s * z
  qx, qy, qz, qw = qmul(qx, qy, qz, qw, P[b + 4], P[b + 5], P[b + 6], P[b + 7])
  s = s * P[b + 8]
  local mqx, mqy, mqz, mqw = qx, qy, qz, qw
  F.MQx[l], F.MQy[l], F.MQz[l], F.MQw[l] = qx, qy, qz, qw
  -- the tip
  b = 10 * F.TIP[l]
  x, y, z = rotate(qx, qy, qz, qw, P[b + 1], P[b + 2], P[b + 3])
  local cx, cy, cz = bx + s * x, by + s * y, bz + s * z
  F.TQx[l], F.TQy[l], F.TQz[l], F.TQw[l] = qmul(qx, qy, qz, qw, P[b + 4], P[b + 5], P[b + 6], P[b + 7])
  F.Ax[l], F.Ay[l], F.Az[l], F.Cx[l], F.Cy[l], F.Cz[l] = ax, ay, az, cx, cy, cz
  -- the knee's hinge in this pose (shin x thigh, in the mid frame) when it bends enough
  local ux, uy, uz, vx, vy, vz = bx - ax, by - ay, bz - az, cx - bx, cy - by, cz - bz
  local nx, ny, nz = vy * uz - vz * uy, vz * ux - vx * uz, vx * uy - vy * ux
  local lu, lv = sqrt(ux * ux + uy * uy + uz * uz), sqrt(vx * vx + vy * vy + vz * vz)
  local ln = sqrt(nx * nx + ny * ny + nz * nz)
  -- (the hinge computed whether the knee bends or not, a branch fewer: place_leg reads it only
  -- for a bent one)
  F.BENT[l], F.REACH[l] = ln > BENT * lu * lv, lu + lv
  ln = 1 / (ln + 1e-300)
  F.HXx[l], F.HXy[l], F.HXz[l] = rotate(-mqx, -mqy, -mqz, mqw, nx * ln, ny * ln, nz * ln)
  -- the ground under the foot: its normal (up when none or zero), the foot's lift
  local upx, upy, upz = F.ux, F.uy, F.uz
  local h = cx * upx + cy * upy + cz * upz
  local gh, gx, gy, gz = ground(cx, cy, cz)
  local gl = gx and sqrt(gx * gx + gy * gy + gz * gz) or 0
  if gl > 0 then gx, gy, gz = gx / gl, gy / gl, gz / gl else gx, gy, gz = upx, upy, upz end
  local c = gx * upx + gy * upy + gz * upz
  local lift = gh + h / (c < MIN_COS and MIN_COS or c) - h
  local cos_limit = F.cos_limit
  if c < cos_limit then -- the normal within the limit of up
    local sin_limit = F.sin_limit
    local wx, wy, wz = gx - c * upx, gy - c * upy, gz - c * upz
    local wl = sqrt(wx * wx + wy * wy + wz * wz)
    if wl > 1e-12 then
      gx, gy, gz = upx * cos_limit + sin_limit * wx / wl, upy * cos_limit + sin_limit * wy / wl,
        upz * cos_limit + sin_limit * wz / wl
    else
      gx, gy, gz = upx, upy, upz
    end
  end
  F.Nx[l], F.Ny[l], F.Nz[l], F.LIFT[l], F.MISS[l] = gx, gy, gz, lift, false
  return lift
end

-- Places leg l (read by read_leg) with the pelvis moved by (mx, my, mz) in model space: the
-- two-bone toward the foot's place, the pole on the knee's side, then the foot turned from up
-- to the smoothed normal; at `weight`.
local function place_leg(F, P, l, mx, my, mz, weight)
  local upx, upy, upz = F.ux, F.uy, F.uz
  local lift = F.LIFT[l]
  local tx, ty, tz = F.Cx[l] + lift * upx, F.Cy[l] + lift * upy, F.Cz[l] + lift * upz
  if F.BENT[l] then F.AXX[l], F.AXY[l], F.AXZ[l] = F.HXx[l], F.HXy[l], F.HXz[l] end
  local kx, ky, kz = F.AXX[l], F.AXY[l], F.AXZ[l]
  -- the pole: beside the middle of the root-target line, on the side the knee bends to
  local rx, ry, rz = F.Ax[l] + mx, F.Ay[l] + my, F.Az[l] + mz
  local ex, ey, ez = tx - rx, ty - ry, tz - rz
  local el = sqrt(ex * ex + ey * ey + ez * ez)
  local hx, hy, hz = rotate(F.MQx[l], F.MQy[l], F.MQz[l], F.MQw[l], kx, ky, kz)
  if el > 0 then ex, ey, ez = ex / el, ey / el, ez / el end
  local reach = F.REACH[l]
  local px = rx + 0.5 * (tx - rx) + reach * (hy * ez - hz * ey) -- (hinge x e: the knee's side)
  local py = ry + 0.5 * (ty - ry) + reach * (hz * ex - hx * ez)
  local pz = rz + 0.5 * (tz - rz) + reach * (hx * ey - hy * ex)
  local qx, qy, qz, qw = F.PQx[l], F.PQy[l], F.PQz[l], F.PQw[l]
  local root, mid, tip = F.ROOT[l], F.MID[l], F.TIP[l]
  local miss, room, roll = two_bone_from(P, qx, qy, qz, qw, F.PTx[l] + mx, F.PTy[l] + my, F.PTz[l] + mz, F.PS[l],
    root, mid, tip, kx, ky, kz, 1, tx, ty, tz, px, py, pz, weight)
  -- (for the check: out of reach, so near it or a roll so near a half turn that rounding decides)
  F.MISS[l] = miss ~= 0 or room < 1e-5 or roll < 1e-6
  -- the foot: its input model rotation turned from up onto the smoothed normal
  local b = 10 * root
  qx, qy, qz, qw = qmul(qx, qy, qz, qw, P[b + 4], P[b + 5], P[b + 6], P[b + 7])
  b = 10 * mid
  qx, qy, qz, qw = qmul(qx, qy, qz, qw, P[b + 4], P[b + 5], P[b + 6], P[b + 7])
  local nx, ny, nz = F.NSx[l], F.NSy[l], F.NSz[l]
  local nl = sqrt(nx * nx + ny * ny + nz * nz)
  local ax, ay, az, aw = 0, 0, 0, 1
  if nl > 1e-12 then ax, ay, az, aw = arc(upx, upy, upz, nx / nl, ny / nl, nz / nl) end
  ax, ay, az, aw = qmul(ax, ay, az, aw, F.TQx[l], F.TQy[l], F.TQz[l], F.TQw[l])
  ax, ay, az, aw = qmul(-qx, -qy, -qz, qw, ax, ay, az, aw)
  write_weighted(P, tip, ax, ay, az, aw, weight)
end

-- the highest pelvis offset along up that lets leg l reach its foot's place (huge: none helps)
local function leg_cap(F, l)
  local upx, upy, upz, lift = F.ux, F.uy, F.uz, F.LIFT[l]
  local dx, dy, dz = F.Cx[l] + lift * upx - F.Ax[l], F.Cy[l] + lift * upy - F.Ay[l], F.Cz[l] + lift * upz - F.Az[l]
  local du = dx * upx + dy * upy + dz * upz
  local room = F.REACH[l] * F.REACH[l] * (1 - 1e-6) - (dx * dx + dy * dy + dz * dz - du * du)
  return room > 0 and du + sqrt(room) or huge
end

-- One solve of F on the pose P (flat array) with the ground callback `ground`.
local function plain_solve(F, P, ground, dt, weight)
  local n, pelvis = F.n, F.pelvis
  -- the pelvis's parent frame, then its own
  local pqx, pqy, pqz, pqw, ptx, pty, ptz, ps = parent_frame(P, F.PAR, pelvis)
  local b = 10 * pelvis
  local x, y, z = rotate(pqx, pqy, pqz, pqw, P[b + 1], P[b + 2], P[b + 3])
  local fqx, fqy, fqz, fqw = qmul(pqx, pqy, pqz, pqw, P[b + 4], P[b + 5], P[b + 6], P[b + 7])
  local ftx, fty, ftz, fs = ptx + ps * x, pty + ps * y, ptz + ps * z, ps * P[b + 8]
  -- the legs and the ground: the pelvis's target, the lowest lift (0 at most, max_drop at most)
  local target, shortest = 0, huge
  for l = 1, n do
    local lift = read_leg(F, P, ground, l, fqx, fqy, fqz, fqw, ftx, fty, ftz, fs)
    if l == 1 or lift < target then target = lift end
    shortest = min(shortest, F.REACH[l])
  end
  if target > 0 then target = 0 end
  if target < -F.max_drop then target = -F.max_drop end
  -- the pelvis: the held-low target, the spring, then no higher than each leg's reach allows
  local cap = huge
  for l = 1, n do cap = min(cap, leg_cap(F, l)) end
  local sw = F.smoothing > 0 and 2 / F.smoothing or 0
  local se = exp(-sw * dt)
  local started = F.started
  local low = started and F.low + RISE * shortest * dt or target
  if low >= target or low ~= low then low = target end -- (a NaN: inf * 0)
  local offset, velocity = low, 0
  if started then offset, velocity = spring(F.offset, F.velocity, low, sw, se, dt) end
  if offset > cap then
    offset = cap
    if velocity < 0 then velocity = 0 end
  end
  if offset < -F.max_drop then
    offset = -F.max_drop
    if velocity < 0 then velocity = 0 end
  end
  -- the normals' springs
  local Nx, Ny, Nz, NSx, NSy, NSz, NVx, NVy, NVz = F.Nx, F.Ny, F.Nz, F.NSx, F.NSy, F.NSz, F.NVx, F.NVy, F.NVz
  for l = 1, n do
    if started then
      NSx[l], NVx[l] = spring(NSx[l], NVx[l], Nx[l], sw, se, dt)
      NSy[l], NVy[l] = spring(NSy[l], NVy[l], Ny[l], sw, se, dt)
      NSz[l], NVz[l] = spring(NSz[l], NVz[l], Nz[l], sw, se, dt)
    else
      NSx[l], NSy[l], NSz[l], NVx[l], NVy[l], NVz[l] = Nx[l], Ny[l], Nz[l], 0, 0, 0
    end
  end
  F.started, F.offset, F.velocity, F.low = true, offset, velocity, low
  if weight <= 0 then return end
  -- the writes: the pelvis's translation (through its parent's frame), then each leg
  local o = offset * weight
  local mx, my, mz = F.ux * o, F.uy * o, F.uz * o
  x, y, z = rotate(-pqx, -pqy, -pqz, pqw, mx, my, mz)
  P[b + 1], P[b + 2], P[b + 3] = P[b + 1] + x / ps, P[b + 2] + y / ps, P[b + 3] + z / ps
  for l = 1, n do place_leg(F, P, l, mx, my, mz, weight) end
end

-- ---- the Fox ----------------------------------------------------------------------------------
local fox = assert(sinew.gltf.load("assets/fox/glTF-Binary/Fox.glb"))
local skel = fox.skeleton
local legs = {}
for l, leg in ipairs(FOX_LEGS) do legs[l] = { skel:find(leg[1]), skel:find(leg[2]), skel:find(leg[3]) } end
local pelvis = skel:find(PELVIS)

local function hill(deg)
  local a = math.rad(deg)
  local slope, ny, nz = math.tan(a), math.cos(a), -math.sin(a)
  return function(_, _, z) return z * slope, 0, ny, nz end
end
local function stairs(_, _, z) return math.floor(z / 20) * 6, 0, 1, 0 end
local function heights(x, _, z) return 0.05 * x - 0.1 * z end

-- sinew's pose into the flat array P, number for number
local function sync(pose, P)
  for j = 1, #pose do
    local b = 10 * (j - 1)
    P[b + 1], P[b + 2], P[b + 3], P[b + 4], P[b + 5], P[b + 6], P[b + 7], P[b + 8], P[b + 9], P[b + 10] = pose:get(j)
  end
end

-- The check: sinew's solver and the plain one side by side on `frames` frames of the Walk per
-- ground and setting; returns the largest differences found (rotation components, the pelvis's
-- translation in leg lengths, the offset in leg lengths) and the number of solves.
local function check(frames)
  local seed = 2525
  local function rnd()
    seed = (seed * 16807) % 2147483647
    return (seed - 1) / 2147483646
  end
  local clip, pose, P = fox.clips.Walk, sinew.pose(skel), {}
  local worst_q, worst_t, worst_o, solves, shortest, missed, ties = 0, 0, 0, 0, huge, 0, 0
  local worst_roll, loose, rolls, rolled = 0, 0, 0, {}
  for l = 1, #legs do rolled[legs[l][1]], rolled[legs[l][3]] = true, true end
  for _, ground in ipairs { hill(10), hill(-20), stairs, heights, function() return -3, 0, 0, 0 end } do
    for _, set in ipairs { { smoothing = 0.1, normal_limit = math.pi / 4, max_drop = huge },
                           { smoothing = 0.3, normal_limit = 0.2, max_drop = 2 },
                           { smoothing = 0, normal_limit = 1.2, max_drop = huge } } do
      local feet = sinew.ik.feet { skeleton = skel, pelvis = pelvis, legs = legs, ground = ground,
        smoothing = set.smoothing, normal_limit = set.normal_limit, max_drop = set.max_drop }
      local F = plain_feet(skel, fox.rest, pelvis, legs, { 0, 1, 0 }, set.max_drop, set.normal_limit, set.smoothing)
      for l = 1, #legs do
        local r, m, t = feet:leg(l)
        assert(r == legs[l][1] and m == legs[l][2] and t == legs[l][3])
      end
      local t = rnd() * clip:duration()
      for _ = 1, frames do
        local dt = rnd() < 0.1 and 0 or rnd() * 0.1
        local w = rnd() < 0.3 and rnd() or 1
        t = (t + dt) % clip:duration()
        pose:copy(fox.rest)
        clip:sample(t, pose)
        sync(pose, P)
        feet:solve(pose, dt, w)
        plain.tie = 1
        plain_solve(F, P, ground, dt, w)
        solves = solves + 1
        -- A leg out of reach (or within 1e-5 of its full reach) lies straight toward its target:
        -- its roll about that line (the knee's side, from the mid joint's offset from the line,
        -- which is rounding there) is not compared, nor its foot; nor a leg rolled a half turn.
        -- Where a weight blends a rotation with an input near a half turn from it, the arc is
        -- rounding's choice: no leg is compared on that frame.
        local skip, tie = {}, plain.tie < 0.05
        if tie then ties = ties + 1 end
        for l = 1, #legs do
          if F.MISS[l] then missed = missed + 1 end
          if F.MISS[l] or tie then for i = 1, 3 do skip[legs[l][i]] = true end end
        end
        for j = 1, #pose do
          local v, b = { pose:get(j) }, 10 * (j - 1)
          -- (q and -q are the same rotation: where the solved rotation is a half turn from the
          -- input, the hemisphere of the input is a tie that rounding decides)
          local same, opposite = 0, 0
          for c = 4, 7 do
            same, opposite = math.max(same, math.abs(v[c] - P[b + c])), math.max(opposite, math.abs(v[c] + P[b + c]))
          end
          local e = math.min(same, opposite)
          if rolled[j] and not skip[j] then
            rolls, worst_roll = rolls + 1, math.max(worst_roll, e)
            if e > 1e-4 then loose = loose + 1 end
          elseif not skip[j] then
            worst_q = math.max(worst_q, e)
          end
          for c = 1, 3 do worst_t = math.max(worst_t, math.abs(v[c] - P[b + c])) end
        end
        for l = 1, #legs do shortest = math.min(shortest, F.REACH[l]) end
        worst_o = math.max(worst_o, math.abs(feet:offset() - F.offset))
        if not (worst_q <= 1e-4 and worst_roll <= ROLL_TOLERANCE and worst_t <= 1e-5 * shortest
                and worst_o <= 1e-5 * shortest) then
          error(("plain foot placement differs from sinew's at t = %g, dt = %g, weight %g: rotations by %g (roots and "
            .. "feet by %g), the pelvis by %g, the offset by %g (leg %g)"):format(t, dt, w, worst_q, worst_roll, worst_t,
            worst_o, shortest))
        end
      end
    end
  end
  if loose > rolls / 20 then
    error(("plain foot placement: %d of %d root and foot rotations differ from sinew's by more than 1e-4")
      :format(loose, rolls))
  end
  return worst_q, worst_t / shortest, worst_o / shortest, solves, missed, ties, worst_roll, loose, rolls
end

if arg and arg[1] == "check" then -- the check alone (spec/ik_bench_spec.lua)
  local q, t, o, n, missed, ties, roll, loose, rolls = check(tonumber(arg[2]) or 200)
  print(("checked: the same pose as plain Lua on %d foot placements (%d legs not compared: out of reach or a "
    .. "half-turn roll; %d frames of half-turn blends; largest differences: rotations %.1e, roots and feet %.1e "
    .. "(%d of %d beyond 1e-4), the pelvis %.1e and the "
    .. "offset %.1e of the shortest leg; %s)"):format(n, missed, ties, q, roll, loose, rolls, t, o, sinew.path))
  return
end

-- ---- timing ---------------------------------------------------------------------------------------
local q_err, t_err, o_err, checked, _, _, roll_err = check(40)
local ground = hill(10)
local feet = sinew.ik.feet { skeleton = skel, pelvis = PELVIS, ground = ground, legs = FOX_LEGS }
local walk, pose = sinew.pose(skel), sinew.pose(skel)
walk:copy(fox.rest)
fox.clips.Walk:sample(0.3, walk)
local F = plain_feet(skel, fox.rest, pelvis, legs, { 0, 1, 0 }, huge, math.pi / 4, 0.1)
local W, P = {}, {}
sync(walk, W)
sync(walk, P)
local N10 = 10 * #skel

local function solve()
  pose:copy(walk)
  feet:solve(pose, 1 / 60)
end
local function copy_only() pose:copy(walk) end
local function plain_call()
  for i = 1, N10 do P[i] = W[i] end
  plain_solve(F, P, ground, 1 / 60, 1)
end
local function plain_copy() for i = 1, N10 do P[i] = W[i] end end
local function grounds()
  local _ = ground(1, 2, 3) + ground(1, 2, 4) + ground(1, 2, 5) + ground(1, 2, 6)
end

local n = 20000
-- the check's traces end in its own calls (C API, not compiled) and take other branches (weights
-- below 1): each side starts from no compiled code at all
if rawget(_G, "jit") then jit.flush() end
-- the two in turn, three times each, the least of each: they see the same moments of a shared host
local ts, tp = huge, huge
for _ = 1, 3 do
  ts = min(ts, bench.ns_per_call(solve, n) - bench.ns_per_call(copy_only, n))
  tp = min(tp, bench.ns_per_call(plain_call, n) - bench.ns_per_call(plain_copy, n))
end
local t_ground = bench.ns_per_call(grounds, n)
bench.report("ik feet, the Fox's 4 legs on a 10-degree hill (Lua ground)", ts, "ns")
bench.report("ik feet, its 4 ground callbacks alone", t_ground, "ns")
bench.report("ik feet, garbage per solve", bench.least_garbage(solve, 2000), "bytes")
local plain_name = bench.interpreter == "luajit" and "plain LuaJIT" or ("plain Lua " .. _VERSION:match("%d.%d"))
local target = tp <= 200 and "plain under 200 ns" or tp >= 2 * ts and "target 2x met" or "target 2x missed"
print(("%-7s ik feet, the Fox's 4 legs (%s; checked: the same pose as plain Lua on %d solves, rotations within "
  .. "%.0e, roots and feet %.0e): sinew %.0f ns, %s %.0f ns (%.1fx %s; %s)"):format(bench.interpreter,
  sinew.path == "ffi" and "FFI path" or "C API", checked, q_err, roll_err, ts, plain_name, tp,
  tp >= ts and tp / ts or ts / tp, tp >= ts and "faster" or "slower", target))
assert(t_err == t_err and o_err == o_err)
