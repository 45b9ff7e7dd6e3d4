--- The FFI path's quaternion library: `sinew.quat` on LuaJIT's FFI path.
--
-- The functions but `blend` are Lua here, computed as the C core (src/core/quat.c) computes them,
-- so the JIT compiles them into the caller's trace: `conj`, `mul`, `dot`, `length`, `from_euler`,
-- `nlerp` and `slerp` with the core's operations (the same bits, zeros' signs included), the
-- others within 1e-12 of the core's results; inputs outside the ranges where that holds (huge
-- `t`, exponents above 64, ...) go to the core through the function table, and every call the
-- fast path does not take goes to the C binding, which raises its own error.
-- @module sinew.ffi.quat
local ffi = require "ffi"
local args = require "sinew.ffi.args"
local errors = require "sinew.ffi.errors"

local M = {}

local type, select, rawget = type, select, rawget
local sqrt, abs, sin, cos, asin, exp, log = math.sqrt, math.abs, math.sin, math.cos, math.asin, math.exp, math.log
local atan2 = math.atan2 or math.atan
local fin, fin4, num3, num4 = args.fin, args.fin4, args.num3, args.num4
local caller, raise_as = errors.caller, errors.raise_as

-- The plain ranges of src/core/quat.c: inside them the core computes without rescaling
local PLAIN_SQ_LO, PLAIN_SQ_HI = 1e-280, 1e280
local PLAIN_V_LO, PLAIN_V_HI = 1e-290, 1e300
local NEAR_UNIT = 1e-5
-- slerp takes inputs within this of unit length as unit, as the core does
local UNIT_EXACT = 1e-15
-- Largest |e| for which quat.pow is computed here (see F.pow)
local POW_E_LUA = 64
local POW_F_LO, POW_F_HI = 1e-140, 1e140
local DBL_MAX = 1.7976931348623157e308

-- Every fast function takes `...` and reads its arguments from it, so that a call it does not
-- take reaches the C binding with exactly the arguments it was given ("got no value" stays).
-- Nothing here makes garbage, interpreted or compiled: scratch memory is allocated once, read
-- and written as double arrays, and the function pointers are taken out of the table once.

--- The fast functions, by name: T is the native function table (sinew.ffi.cdef), C the C
-- binding's `quat` functions, `try` sinew.core.try (the C binding's).
function M.functions(T, C, try)
  local F = {}
  local qa, qb, qo = ffi.new("sn_quat[1]"), ffi.new("sn_quat[1]"), ffi.new("sn_quat[1]")
  local da, db, dout = ffi.cast("double *", qa), ffi.cast("double *", qb), ffi.cast("double *", qo)
  local slerp, blend, nlerp, pow = T.quat_slerp, T.quat_blend, T.quat_nlerp, T.quat_pow
  local qs_buf, ws_buf, buf_n = ffi.new("sn_quat[8]"), ffi.new("double[8]"), 8
  local qs_d = ffi.cast("double *", qs_buf)

  -- 1 / |q| for |q|^2 = ss: near 1 the core's near_unit_scale, else the reciprocal of the square
  -- root (from_axis_angle's axis, within 1e-12 of the core's); nil outside the plain range (the
  -- C binding then), for NaN too
  local function near_scale(ss)
    local e = ss - 1.0
    if abs(e) < NEAR_UNIT then return 1.0 + e * (-0.5 + 0.375 * e) end
    if ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then return 1.0 / sqrt(ss) end
    return nil
  end

  -- 1 / |q| as src/core/quat.c's unit4_near takes it: near 1 its near_unit_scale, else
  -- unit4_quick's reciprocal of the sum of squares in unit4_quick's order (one rounding apart
  -- from sumsq4's, and nlerp for a large t magnifies that); nil outside the plain range (the core
  -- then), for NaN too
  local function unit_scale(x, y, z, w)
    local e = ((x * x + y * y) + (z * z + w * w)) - 1.0
    if abs(e) < NEAR_UNIT then return 1.0 + e * (-0.5 + 0.375 * e) end
    local ss = x * x + y * y + z * z + w * w
    if ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then return 1.0 / sqrt(ss) end
    return nil
  end

  -- a and b as src/core/quat.c's aligned_pair gives them (unit, b on a's side), the same bits, or
  -- nil where the core rescales (the caller then goes to the core)
  local function aligned(ax, ay, az, aw, bx, by, bz, bw)
    local ka = unit_scale(ax, ay, az, aw)
    local kb = unit_scale(bx, by, bz, bw)
    if not (ka and kb) then return nil end
    ax, ay, az, aw = ax * ka, ay * ka, az * ka, aw * ka
    bx, by, bz, bw = bx * kb, by * kb, bz * kb, bw * kb
    if ax * bx + ay * by + az * bz + aw * bw < 0.0 then bx, by, bz, bw = -bx, -by, -bz, -bw end
    return ax, ay, az, aw, bx, by, bz, bw
  end

  -- How these stay cheap: a type test costs nothing in a compiled trace (the arithmetic needs it
  -- anyway), so each argument is tested only for being a number; whether it is finite is decided
  -- by a range test the computation makes anyway (NaN fails every comparison, an infinity the
  -- range), or by one test of the result where any non-finite input reaches it. Where the core
  -- divides by a length the fast path multiplies by one reciprocal, and a length within
  -- NEAR_UNIT of 1 (unit inputs, float32 ones too) costs no square root or division at all
  -- (`near_scale`): the results stay within 1e-12 of the core's, or are its bits where the same
  -- operations are made (spec/ffi_spec.lua, extreme arguments included). What the Lua cannot
  -- compute so (a range the core rescales, an exponent that magnifies a rounding) goes to the
  -- core through the FFI where the table has the function, else to the C binding.

  function F.identity(...)
    if select("#", ...) == 0 then return 0, 0, 0, 1 end
    return raise_as(caller(), try(C.identity, ...))
  end

  function F.conj(...)
    local x, y, z, w = ...
    if fin4(x, y, z, w) then return -x, -y, -z, w end
    return raise_as(caller(), try(C.conj, ...))
  end

  -- a non-finite factor makes the sum of the product's components non-finite (each component of
  -- a meets each of b in one of them), as does an overflow: the core's one test
  function F.mul(...)
    local ax, ay, az, aw, bx, by, bz, bw = ...
    if num4(ax, ay, az, aw) and num4(bx, by, bz, bw) then
      local x = aw * bx + ax * bw + ay * bz - az * by
      local y = aw * by - ax * bz + ay * bw + az * bx
      local z = aw * bz + ax * by - ay * bx + az * bw
      local w = aw * bw - ax * bx - ay * by - az * bz
      if abs(x + y + z + w) <= DBL_MAX then return x, y, z, w end
    end
    return raise_as(caller(), try(C.mul, ...))
  end

  function F.dot(...)
    local ax, ay, az, aw, bx, by, bz, bw = ...
    if num4(ax, ay, az, aw) and num4(bx, by, bz, bw) then
      local d = ax * bx + ay * by + az * bz + aw * bw
      if abs(d) <= DBL_MAX then return d end
    end
    return raise_as(caller(), try(C.dot, ...))
  end

  function F.length(...)
    local x, y, z, w = ...
    if num4(x, y, z, w) then
      local ss = x * x + y * y + z * z + w * w
      if ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then return sqrt(ss) end
    end
    return raise_as(caller(), try(C.length, ...))
  end

  -- near 1 without a square root or division; elsewhere the core's exactly rounded divisions
  function F.normalize(...)
    local x, y, z, w = ...
    if num4(x, y, z, w) then
      local ss = x * x + y * y + z * z + w * w -- as the core's unit4
      local e = ss - 1.0
      if abs(e) < NEAR_UNIT then
        local k = 1.0 + e * (-0.5 + 0.375 * e)
        return x * k, y * k, z * k, w * k
      end
      if ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then
        local r = sqrt(ss)
        return x / r, y / r, z / r, w / r
      end
    end
    return raise_as(caller(), try(C.normalize, ...))
  end

  -- conj(q) / |q|^2
  function F.inverse(...)
    local x, y, z, w = ...
    if num4(x, y, z, w) then
      local ss = (x * x + y * y) + (z * z + w * w)
      local e, k = ss - 1.0, nil
      if abs(e) < NEAR_UNIT then
        k = 1.0 + e * (-1.0 + e * (1.0 - e))
      elseif ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then
        k = 1.0 / ss
      end
      if k then return -x * k, -y * k, -z * k, w * k end
    end
    return raise_as(caller(), try(C.inverse, ...))
  end

  -- v' = v + w t + u x t with t = 2 (u x v), for q / |q| = (u, w): the core's rotate_plain. Near
  -- unit length 1 / |q|^2 scales the change instead (a series, no division): the products with
  -- q then start at once, beside the series.
  function F.rotate(...)
    local qx, qy, qz, qw, x, y, z = ...
    if num4(qx, qy, qz, qw) and num3(x, y, z) then
      local m = abs(x)
      if abs(y) > m then m = abs(y) end
      if abs(z) > m then m = abs(z) end
      -- the sum: a NaN or an infinity in any of x, y, z (the largest alone misses a NaN)
      if abs(x + y + z) <= DBL_MAX and ((m > PLAIN_V_LO and m < PLAIN_V_HI) or m == 0) then
        local ss = (qx * qx + qy * qy) + (qz * qz + qw * qw)
        local e, k = ss - 1.0, 2.0
        if abs(e) < NEAR_UNIT then
          k = 2.0 + e * (-2.0 + e * (2.0 - 2.0 * e)) -- 2 / (1 + e), to e^4
        elseif ss > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then
          local r = 1.0 / sqrt(ss)
          qx, qy, qz, qw = qx * r, qy * r, qz * r, qw * r
        else
          k = nil
        end
        if k then
          local tx, ty, tz = qy * z - qz * y, qz * x - qx * z, qx * y - qy * x
          return x + k * (qw * tx + (qy * tz - qz * ty)), y + k * (qw * ty + (qz * tx - qx * tz)),
                 z + k * (qw * tz + (qx * ty - qy * tx))
        end
      end
    end
    return raise_as(caller(), try(C.rotate, ...))
  end

  function F.from_axis_angle(...)
    local x, y, z, a = ...
    if num3(x, y, z) and type(a) == "number" and abs(a) <= DBL_MAX then
      local k = near_scale(x * x + y * y + z * z)
      if k then
        k = k * sin(0.5 * a)
        return x * k, y * k, z * k, cos(0.5 * a)
      end
    end
    return raise_as(caller(), try(C.from_axis_angle, ...))
  end

  -- the axis and the angle do not depend on |q|: no normalisation first
  function F.to_axis_angle(...)
    local x, y, z, w = ...
    if num4(x, y, z, w) then
      local vv = x * x + y * y + z * z
      local ss = vv + w * w
      if vv > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then -- else real, tiny, huge or not finite: the core
        local s = sqrt(vv)
        local k = 1.0 / s
        -- the core turns q to w >= 0 when w / |q| < 0: a w too small for that quotient (above
        -- -1e-150 it can be, for |q| up to 1e140) is taken as the core takes it
        if w < 0.0 and (w < -1e-150 or w / sqrt(ss) < 0.0) then k, w = -k, -w end
        return x * k, y * k, z * k, 2.0 * atan2(s, w)
      end
    end
    return raise_as(caller(), try(C.to_axis_angle, ...))
  end

  -- e * r for e the rotation about one axis with sin s and cos c (half the angle): the core's
  -- mul_plain without its products with e's zero components. Those change no non-zero value, so
  -- the non-zero components of a product (and of a product of such products) are the core's bits;
  -- they only decide the sign of a zero one (-0 + 0 * y is +0 for y >= 0).
  local function about_x(s, c, x, y, z, w) return c * x + s * w, c * y - s * z, c * z + s * y, c * w - s * x end
  local function about_y(s, c, x, y, z, w) return c * x + s * z, c * y + s * w, c * z - s * x, c * w - s * y end
  local function about_z(s, c, x, y, z, w) return c * x - s * y, c * y + s * x, c * z + s * w, c * w - s * z end
  -- the same products term by term, the zero ones included: the core's zeros too
  local function exact_x(s, c, x, y, z, w)
    return ((c * x + s * w) + 0.0 * z) - 0.0 * y, ((c * y - s * z) + 0.0 * w) + 0.0 * x,
           ((c * z + s * y) - 0.0 * x) + 0.0 * w, ((c * w - s * x) - 0.0 * y) - 0.0 * z
  end
  local function exact_y(s, c, x, y, z, w)
    return ((c * x + 0.0 * w) + s * z) - 0.0 * y, ((c * y - 0.0 * z) + s * w) + 0.0 * x,
           ((c * z + 0.0 * y) - s * x) + 0.0 * w, ((c * w - 0.0 * x) - s * y) - 0.0 * z
  end
  local function exact_z(s, c, x, y, z, w)
    return ((c * x + 0.0 * w) + 0.0 * z) - s * y, ((c * y - 0.0 * z) + 0.0 * w) + s * x,
           ((c * z + 0.0 * y) - 0.0 * x) + s * w, ((c * w - 0.0 * x) - 0.0 * y) - s * z
  end
  -- One function per order, applying the axes as src/core/quat.c's sn_quat_from_euler does: the
  -- first rotation times the identity (its sine, a -0 made +0 by the product's zero terms, zeros,
  -- its cosine, never 0), each later one multiplied from the left. A result without a zero
  -- component is the core's; one with a zero (a product underflowing to 0 tells too) is computed
  -- again term by term. Per axis: the first product, e * r both ways, which of x, y, z is its angle.
  local function half(a) return sin(0.5 * a), cos(0.5 * a) end
  local AXES = {
    X = { alone = function(s, c) return s + 0.0, 0.0, 0.0, c end, about = about_x, exact = exact_x,
          angle = function(x) return x end },
    Y = { alone = function(s, c) return 0.0, s + 0.0, 0.0, c end, about = about_y, exact = exact_y,
          angle = function(_, y) return y end },
    Z = { alone = function(s, c) return 0.0, 0.0, s + 0.0, c end, about = about_z, exact = exact_z,
          angle = function(_, _, z) return z end },
  }
  local function euler(order)
    local a, b, c = AXES[order:sub(1, 1)], AXES[order:sub(2, 2)], AXES[order:sub(3, 3)]
    local alone, first, middle, last = a.alone, a.angle, b.angle, c.angle
    local second, third, second_exact, third_exact = b.about, c.about, b.exact, c.exact
    return function(x, y, z)
      local s1, c1 = half(first(x, y, z))
      local s2, c2 = half(middle(x, y, z))
      local s3, c3 = half(last(x, y, z))
      local qx, qy, qz, qw = third(s3, c3, second(s2, c2, alone(s1, c1)))
      if qx * qy * qz * qw ~= 0.0 then return qx, qy, qz, qw end
      return third_exact(s3, c3, second_exact(s2, c2, alone(s1, c1)))
    end
  end
  local EULER = {}
  for _, order in ipairs { "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX" } do EULER[order] = euler(order) end
  function F.from_euler(...)
    local x, y, z, order = ...
    local f = EULER[order == nil and "XYZ" or order]
    if f and num3(x, y, z) and abs(x) <= DBL_MAX and abs(y) <= DBL_MAX and abs(z) <= DBL_MAX then
      return f(x, y, z)
    end
    return raise_as(caller(), try(C.from_euler, ...))
  end

  -- the core's half-vector construction: the unit inputs as it divides them, the half vector
  -- left unnormalised (the last normalisation takes its length out)
  function F.from_to(...)
    local ux, uy, uz, vx, vy, vz = ...
    if num3(ux, uy, uz) and num3(vx, vy, vz) then
      local su = ux * ux + uy * uy + uz * uz
      local sv = vx * vx + vy * vy + vz * vz
      if su > PLAIN_SQ_LO and su < PLAIN_SQ_HI and sv > PLAIN_SQ_LO and sv < PLAIN_SQ_HI then
        local ru, rv = sqrt(su), sqrt(sv)
        local ax, ay, az = ux / ru, uy / ru, uz / ru
        local hx, hy, hz = ax + vx / rv, ay + vy / rv, az + vz / rv
        -- |h| clearly above the core's 1e-12 (else opposite vectors, or nearly: the C binding's half turn)
        if hx * hx + hy * hy + hz * hz > 1.000001e-24 then
          local x, y, z, w = ay * hz - az * hy, az * hx - ax * hz, ax * hy - ay * hx, ax * hx + ay * hy + az * hz
          local k = 1.0 / sqrt(x * x + y * y + z * z + w * w)
          return x * k, y * k, z * k, w * k
        end
      end
    end
    return raise_as(caller(), try(C.from_to, ...))
  end

  -- 2 acos(|a.b|) for unit a, b, computed as the core does it without cancellation: once aligned
  -- |a - b| = 2 sin(theta / 4) for the rotation angle theta, at most sqrt(2)
  function F.angle(...)
    local ax, ay, az, aw, bx, by, bz, bw = ...
    if num4(ax, ay, az, aw) and num4(bx, by, bz, bw) then
      ax, ay, az, aw, bx, by, bz, bw = aligned(ax, ay, az, aw, bx, by, bz, bw)
      if ax then
        local dx, dy, dz, dw = ax - bx, ay - by, az - bz, aw - bw
        return 4.0 * asin(0.5 * sqrt((dx * dx + dy * dy) + (dz * dz + dw * dw)))
      end
    end
    return raise_as(caller(), try(C.angle, ...))
  end

  -- the core's unit4_quick of the core's a + t (b - a): the same bits. Where its squared length
  -- leaves the plain range (|t| beyond about 1e154) the core rescales: the core then, as for
  -- inputs it rescales and |t| above its own 1e300.
  function F.nlerp(...)
    local ax, ay, az, aw, bx, by, bz, bw, t = ...
    if num4(ax, ay, az, aw) and num4(bx, by, bz, bw) and type(t) == "number" then
      local ux, uy, uz, uw, vx, vy, vz, vw = aligned(ax, ay, az, aw, bx, by, bz, bw)
      if ux and abs(t) <= 1e300 then
        local x = ux + t * (vx - ux)
        local y = uy + t * (vy - uy)
        local z = uz + t * (vz - uz)
        local w = uw + t * (vw - uw)
        local ss = x * x + y * y + z * z + w * w
        if ss < PLAIN_SQ_HI then -- and above PLAIN_SQ_LO: at least 1/2 (see the core)
          local k = 1.0 / sqrt(ss)
          return x * k, y * k, z * k, w * k
        end
      end
      da[0], da[1], da[2], da[3] = ax, ay, az, aw
      db[0], db[1], db[2], db[3] = bx, by, bz, bw
      if nlerp(qa, qb, t, qo, nil) == 0 then return dout[0], dout[1], dout[2], dout[3] end
    end
    return raise_as(caller(), try(C.nlerp, ...))
  end

  -- slerp: src/core/quat.c's sn_quat_slerp, the same operations in the same order (the same bits:
  -- neither side contracts a * b + c into one rounding, see spec/ffi_spec.lua). Its polynomials
  -- (minimax fits in Estrin's scheme; spec/ffi_spec.lua checks that the coefficients are the
  -- core's): theta^2 / d and theta / sin(theta) in d = |a - b|^2, shorter ones for d <= 1;
  -- sin(x)/x in x^2, a shorter one for t in [0, 1].
  local function theta2_over_near(d)
    local d2 = d * d
    local d4 = d2 * d2
    local d8 = d4 * d4
    return (((1.0 + 0.08333333333331944 * d) + d2 * (0.011111111111879025 + 0.001785714269072651 * d))
        + d4 * ((0.00031746050438874934 + 6.012381462338917e-05 * d) + d2 * (1.189817193085e-05 + 2.413094315422936e-06 * d)))
      + d8 * (((5.36741699093693e-07 + 7.066639421566068e-08 * d)
        + d2 * (5.5618739954415234e-08 - 1.1789220941993564e-08 * d)) + d4 * 5.695009026354704e-09)
  end
  local function theta2_over(d)
    local d2 = d * d
    local d4 = d2 * d2
    local d8 = d4 * d4
    local d16 = d8 * d8
    return ((((0.9999999999999997 + 0.083333333333423 * d) + d2 * (0.011111111106387865 + 0.0017857143841757423 * d))
        + d4 * ((0.0003174592370924152 + 6.013225552068025e-05 * d)
          + d2 * (1.1861240604351977e-05 + 2.524903575734224e-06 * d)))
      + d8 * (((2.9439094998713747e-07 + 4.5536121199477346e-07 * d)
          + d2 * (-3.9822307243770677e-07 + 3.8963849554012054e-07 * d))
        + d4 * ((-2.611822291731462e-07 + 1.3238185658222192e-07 * d)
          + d2 * (-4.7751671477298745e-08 + 1.1817203517063126e-08 * d))))
      + d16 * (-1.7907052763836046e-09 + 1.2933250905714518e-10 * d)
  end
  local function theta_over_sin_near(d)
    local d2 = d * d
    local d4 = d2 * d2
    return ((1.0 + 0.16666668905994095 * d) + d2 * (0.0333325996882746 + 0.007149848275523745 * d))
      + d4 * ((0.0015579484970506883 + 0.00042337254491061645 * d)
        + d2 * (1.3804733185883087e-05 + 5.531335725847105e-05 * d))
  end
  local function theta_over_sin(d)
    local d2 = d * d
    local d4 = d2 * d2
    local d8 = d4 * d4
    return (((1.0000000018860764 + 0.16666644246251572 * d) + d2 * (0.033337712284602986 + 0.007109738279028244 * d))
        + d4 * ((0.0017146142976041522 + 7.862621701061835e-05 * d)
          + d2 * (0.0004665195158120683 - 0.00030657764658005376 * d)))
      + d8 * ((0.00017531085350285308 - 5.005791017926725e-05 * d) + d2 * 7.245678915851049e-06)
  end
  local function sinc_half_turn(w)
    local w2 = w * w
    local w4 = w2 * w2
    return ((1.0 - 0.16666666666666408 * w) + w2 * (0.008333333333298566 - 0.0001984126982759869 * w))
      + w4 * ((2.7557316823424657e-06 - 2.50518897024255e-08 * w)
        + w2 * (1.6048274499426567e-10 - 7.374417884486096e-13 * w))
  end
  local function sinc_turn(w)
    local w2 = w * w
    local w4 = w2 * w2
    local w8 = w4 * w4
    return (((1.0 - 0.16666666666666663 * w) + w2 * (0.00833333333333319 - 0.00019841269841247016 * w))
        + w4 * ((2.7557319222132343e-06 - 2.5052108297603348e-08 * w)
          + w2 * (1.605904124045843e-10 - 7.647114401599521e-13 * w)))
      + w8 * ((2.8108541700257953e-15 - 8.174696790696833e-18 * w) + w2 * 1.7578373044223255e-20)
  end

  -- slerp_unit of the core: unit a, b on one side, t in [-1, 2]; d = |a - b|^2 gives theta^2
  -- without cancellation, the two ends' factors are independent, and one Newton step on the sum
  -- makes the result unit (no square root, division or libm call)
  local function slerp_unit(ax, ay, az, aw, bx, by, bz, bw, t)
    local dx, dy, dz, dw = ax - bx, ay - by, az - bz, aw - bw
    local d = (dx * dx + dy * dy) + (dz * dz + dw * dw)
    local t1 = 1.0 - t
    if d > 2.0 then d = 2.0 end -- rounding
    local q, g, s0, s1
    if d <= 1.0 then
      q, g = theta2_over_near(d), theta_over_sin_near(d)
    else
      q, g = theta2_over(d), theta_over_sin(d)
    end
    if t >= 0.0 and t <= 1.0 then
      s0, s1 = sinc_half_turn(((t1 * t1) * d) * q), sinc_half_turn(((t * t) * d) * q)
    else
      s0, s1 = sinc_turn(((t1 * t1) * d) * q), sinc_turn(((t * t) * d) * q)
    end
    local k0, k1 = (g * t1) * s0, (g * t) * s1
    local px, py, pz, pw = k0 * ax + k1 * bx, k0 * ay + k1 * by, k0 * az + k1 * bz, k0 * aw + k1 * bw
    local s = 1.5 - 0.5 * ((px * px + py * py) + (pz * pz + pw * pw)) -- one Newton step
    return px * s, py * s, pz * s, pw * s
  end

  -- The core's two inline routes: inputs within UNIT_EXACT of unit length taken as they are,
  -- within NEAR_UNIT normalised by its series, t in [-1, 2] (NaN fails the test). Anything else
  -- (other lengths, other t, NaN, infinities) is the core's, through the FFI, as before.
  function F.slerp(...)
    local ax, ay, az, aw, bx, by, bz, bw, t = ...
    if num4(ax, ay, az, aw) and num4(bx, by, bz, bw) and type(t) == "number" then
      if t >= -1.0 and t <= 2.0 then
        local sa = (ax * ax + ay * ay) + (az * az + aw * aw)
        local sb = (bx * bx + by * by) + (bz * bz + bw * bw)
        local ea, eb = sa - 1.0, sb - 1.0
        if abs(ea) < UNIT_EXACT and abs(eb) < UNIT_EXACT then
          if (ax * bx + ay * by) + (az * bz + aw * bw) < 0.0 then bx, by, bz, bw = -bx, -by, -bz, -bw end
          return slerp_unit(ax, ay, az, aw, bx, by, bz, bw, t)
        end
        if abs(ea) < NEAR_UNIT and abs(eb) < NEAR_UNIT then
          local ka, kb = 1.0 + ea * (-0.5 + 0.375 * ea), 1.0 + eb * (-0.5 + 0.375 * eb)
          if (ax * bx + ay * by) + (az * bz + aw * bw) < 0.0 then kb = -kb end
          return slerp_unit(ax * ka, ay * ka, az * ka, aw * ka, bx * kb, by * kb, bz * kb, bw * kb, t)
        end
      end
      da[0], da[1], da[2], da[3] = ax, ay, az, aw
      db[0], db[1], db[2], db[3] = bx, by, bz, bw
      if slerp(qa, qb, t, qo, nil) == 0 then return dout[0], dout[1], dout[2], dout[3] end
    end
    return raise_as(caller(), try(C.slerp, ...))
  end

  -- q = |q| (cos t, n sin t): the axis n, the angle t and ln |q| of src/core/quat.c's polar, taken
  -- from q itself (they do not depend on its length), or nil where the core takes another path
  -- (a real q, a huge or tiny or non-finite one)
  local function polar(x, y, z, w)
    local vv = x * x + y * y + z * z
    local ss = vv + w * w
    if vv > PLAIN_SQ_LO and ss < PLAIN_SQ_HI then
      local s = sqrt(vv)
      return 1.0 / s, atan2(s, w), 0.5 * log(ss)
    end
    return nil
  end

  function F.log(...)
    local x, y, z, w = ...
    if num4(x, y, z, w) then
      local k, t, lnl = polar(x, y, z, w)
      if k then
        k = k * t
        return x * k, y * k, z * k, lnl
      end
    end
    return raise_as(caller(), try(C.log, ...))
  end

  -- sin(t)/t as the core's sinc, for t >= 0
  local function sinc(t)
    local t2 = t * t
    if t2 < 1e-8 then return 1.0 - t2 / 6.0 + t2 * t2 / 120.0 end
    return sin(t) / t
  end

  function F.exp(...)
    local x, y, z, w = ...
    if num4(x, y, z, w) then
      local ss = x * x + y * y + z * z
      if ss < PLAIN_SQ_HI and abs(w) <= 709.0 then
        local t = sqrt(ss)
        local e = exp(w)
        local k = e * sinc(t)
        return x * k, y * k, z * k, e * cos(t)
      end
    end
    return raise_as(caller(), try(C.exp, ...))
  end

  -- q^e = |q|^e (cos et, n sin et). The angle t and ln |q| differ from the core's by an ulp or
  -- two, and e multiplies that: for |e| up to POW_E_LUA the results stay within 1e-13 of the
  -- core's (6e-14 measured at 64), larger exponents go to the core (the same bits), as do the
  -- quaternions polar leaves to it and |q|^e outside [1e-140, 1e140], where the factor
  -- sin(et) |q|^e / |v| (|v| in [1e-140, 1e140]) could overflow or underflow here.
  function F.pow(...)
    local x, y, z, w, e = ...
    if num4(x, y, z, w) and type(e) == "number" then
      if abs(e) <= POW_E_LUA then
        local k, t, lnl = polar(x, y, z, w)
        if k then
          local f = exp(e * lnl)
          if f >= POW_F_LO and f <= POW_F_HI then -- else 1/|v| |q|^e may underflow or overflow
            local p = e * t
            k = k * sin(p) * f
            return x * k, y * k, z * k, cos(p) * f
          end
        end
      end
      da[0], da[1], da[2], da[3] = x, y, z, w
      if pow(qa, e, qo, nil) == 0 then return dout[0], dout[1], dout[2], dout[3] end
    end
    return raise_as(caller(), try(C.pow, ...))
  end

  local METHODS = { nlerp = 0, karcher = 1, markley = 2, power = 3 }
  if C.blend then
    function F.blend(...)
      local qs, ws, method = ...
      local m = method == nil and 0 or METHODS[method]
      if m and type(qs) == "table" and type(ws) == "table" then
        local n = #ws
        if n > 0 and #qs == 4 * n then
          if n > buf_n then
            -- made, then installed: a finaliser run by ffi.new may call this function and grow
            -- the buffers further, and then its larger ones are kept (setting buf_n before the
            -- allocation let it name more than the buffers held: a heap overflow, issue 21)
            local qnew, wnew = ffi.new("sn_quat[?]", n), ffi.new("double[?]", n)
            local dnew = ffi.cast("double *", qnew)
            if n > buf_n then qs_buf, ws_buf, qs_d, buf_n = qnew, wnew, dnew, n end
          end
          -- nothing below allocates until the core has read the buffers
          local ok = true
          for i = 1, 4 * n do
            local x = rawget(qs, i)
            if not fin(x) then ok = false; break end
            qs_d[i - 1] = x
          end
          for i = 1, n do
            local w = rawget(ws, i)
            if not fin(w) then ok = false; break end
            ws_buf[i - 1] = w
          end
          if ok and blend(qs_buf, ws_buf, n, m, qo, nil) == 0 then
            return dout[0], dout[1], dout[2], dout[3]
          end
        end
      end
      return raise_as(caller(), try(C.blend, ...))
    end
  end
  return F
end

return M
