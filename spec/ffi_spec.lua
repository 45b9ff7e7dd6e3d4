-- The LuaJIT fast path (lua/sinew/ffi/): which path is taken, that its declarations are the C
-- sources' own, and that every fast function gives what the C binding gives (bit for bit where
-- both call the core), raises what it raises, and makes no garbage. The whole suite also runs on
-- each path (tools/test.sh: luajit and luajit-c).
local sinew = require "sinew"
local helper = require "helper"

local jit = rawget(_G, "jit")
local forced = os.getenv("SINEW_FFI")

-- the text of a C struct `name` in `src`, comments and whitespace taken out
local function struct_text(src, name)
  local body = src:match("typedef struct " .. name .. " (%b{}) " .. name .. ";")
  assert(body, "no struct " .. name)
  body = body:gsub("/%*.-%*/", ""):gsub("///[^\n]*", "")
  return (body:gsub("%s+", " "):gsub(" ?([%(%)%*,;{}]) ?", "%1"))
end

describe("sinew.path", function()
  it("is 'ffi' under LuaJIT with the JIT on unless SINEW_FFI=0, and 'c' otherwise", function()
    if forced == "0" then
      assert.equal("c", sinew.path)
      assert.equal("SINEW_FFI=0", sinew.path_reason)
    elseif jit and (forced == "1" or jit.status()) then
      assert.equal("ffi", sinew.path, sinew.path_reason)
    else
      assert.equal("c", sinew.path)
      assert.is_string(sinew.path_reason)
    end
  end)

  it("declares in lua/sinew/ffi/cdef.lua the structs of the C sources, member by member", function()
    local cdef = helper.read_file("lua/sinew/ffi/cdef.lua"):match("local CDEF = %[%[(.-)%]%]")
    local ffi_c = helper.read_file("src/binding/ffi.c")
    local table_c = ffi_c:match("BEGIN sn_ffi_table.-\n(.-)/%* END sn_ffi_table")
    assert.equal(struct_text(table_c, "sn_ffi_table"), struct_text(cdef, "sn_ffi_table"))
    assert.equal(struct_text(helper.read_file("src/binding/binding.h"), "sn_lua_space"),
      struct_text(cdef, "sn_lua_space"))
    assert.equal(struct_text(helper.read_file("src/core/pose.h"), "sn_blend_layer"),
      struct_text(cdef, "sn_blend_layer"))
    assert.equal(struct_text(helper.read_file("src/core/blendspace.h"), "sn_blendspace_wedges"),
      struct_text(cdef, "sn_blendspace_wedges"))
    assert.equal(struct_text(helper.read_file("src/core/common.h"), "sn_error"), struct_text(cdef, "sn_error"))
    -- the structs written on one line in the CDEF: the same members in the same order
    local quat_h = helper.read_file("src/core/quat.h")
    for _, name in ipairs { "sn_quat", "sn_vec3" } do
      local members = {}
      for m in struct_text(quat_h, name):gmatch("double (%a+);") do members[#members + 1] = m end
      assert.equal("{double " .. table.concat(members, ",") .. ";}", struct_text(cdef, name))
    end
  end)

  it("computes slerp in lua/sinew/ffi/quat.lua with the core's polynomials, term for term", function()
    local c, lua = helper.read_file("src/core/quat.c"), helper.read_file("lua/sinew/ffi/quat.lua")
    for _, name in ipairs { "theta2_over_near", "theta2_over", "theta_over_sin_near", "theta_over_sin",
                            "sinc_half_turn", "sinc_turn" } do
      local want = c:match("static inline double " .. name .. "%(double %a%) (%b{})")
      want = want and want:match("return (.-);")
      local got = lua:match("local function " .. name .. "%(%a%)\n.-return (.-)\n  end")
      assert.is_string(want, name)
      assert.is_string(got, name)
      assert.equal(want:gsub("%s+", ""), (got:gsub("%s+", "")), name)
    end
  end)
end)

-- Type errors name what was passed: its class (the metatable's __name) or its type, on every Lua
-- and on both of LuaJIT's paths (the FFI path hands every call it does not take to the C binding,
-- so the C binding's checker words both). Each case: a call, and the message it raises.
local function type_cases()
  local skel = sinew.skeleton { names = { "a", "b" }, parents = { 0, 1 } }
  local pose, mats = sinew.pose(skel), sinew.matrices(skel)
  local clip = sinew.clip { skeleton = skel, tracks = {}, duration = 1 }
  local cursor = clip:cursor()
  local chain = sinew.chain { skeleton = skel, root = "a" }
  return {
    { "a pose where matrices go", function() return pose:to_model(pose) end, "sinew.Matrices expected, got sinew.Pose" },
    { "a clip where matrices go", function() return pose:to_model(clip) end, "sinew.Matrices expected, got sinew.Clip" },
    { "a table where matrices go", function() return pose:to_model({}) end, "sinew.Matrices expected, got table" },
    { "a number where matrices go", function() return pose:to_model(1) end, "sinew.Matrices expected, got number" },
    { "nil where matrices go", function() return pose:to_model(nil) end, "sinew.Matrices expected, got nil" },
    { "a clip where a pose goes", function() return clip:sample(0.5, clip) end, "sinew.Pose expected, got sinew.Clip" },
    { "matrices where a pose goes", function() return cursor:sample(0.5, mats) end,
      "sinew.Pose expected, got sinew.Matrices" },
    { "a string where a pose goes", function() return chain:update(0.1, "pose") end, "sinew.Pose expected, got string" },
    { "a pose as the delta of add", function() return pose:add(mats, 1) end, "sinew.Pose expected, got sinew.Matrices" },
    { "a clip among the layers", function() return sinew.blend(pose, { pose, clip }, { 1, 1 }) end,
      "layer 2 is not a sinew.Pose (got sinew.Clip)" },
    { "a pose as self", function() return clip.sample(pose, 0.5, pose) end, "sinew.Clip expected, got sinew.Pose" },
    { "a pose as a space's self", function()
        local space = sinew.blendspace { mode = "1d", points = { 0, 1 } }
        return space.weights(pose, 0.5)
      end, "sinew.BlendSpace expected, got sinew.Pose" },
  }
end

describe("type errors", function()
  it("name the class or type of what was passed", function()
    for _, case in ipairs(type_cases()) do
      local ok, err = pcall(case[2])
      assert.is_false(ok, case[1])
      assert.is_truthy(tostring(err):find(case[3], 1, true), case[1] .. ": " .. tostring(err))
    end
  end)
end)

if sinew.path ~= "ffi" then return end

local fast = require "sinew.ffi"
local C = fast.c
local quat = sinew.quat

-- 0 bytes of garbage per call of each of `fns`, compiled (after warming) and interpreted
local function no_garbage(fns)
  for i, fn in ipairs(fns) do
    assert.equal(0, helper.garbage_per_call(fn, 5000), "compiled " .. i)
    jit.off(fn, true)
    assert.equal(0, helper.garbage_per_call(fn, 500), "interpreted " .. i)
    jit.on(fn, true)
  end
end

local function same(a, b) return a == b or (a ~= a and b ~= b) end
local function pack(...) return { n = select("#", ...), ... } end

-- a value as text that tells every double apart: the sign of a zero, NaN, all 17 digits
local function bits(x)
  if type(x) ~= "number" then return tostring(x) end
  if x ~= x then return "nan" end
  if x == 0 then return 1 / x > 0 and "+0" or "-0" end
  return ("%.17g"):format(x)
end
-- a call's outcome as text: its results, or its error without the position
local function outcome(fn, ...)
  local r = pack(pcall(fn, ...))
  if not r[1] then return "error: " .. tostring(r[2]):gsub("^[^:\n]*:%d+: ", "") end
  local t = {}
  for i = 2, r.n do
    local v = r[i]
    if type(v) == "table" then
      local e = {}
      for k = 1, #v do e[k] = bits(v[k]) end
      v = "{" .. table.concat(e, " ") .. "}"
    end
    t[#t + 1] = bits(v)
  end
  return table.concat(t, " ")
end
-- extreme numbers: zeros, subnormals, the edges of the core's plain ranges, huge, non-finite
local EXTREMES = { 0, -0.0, 5e-324, -5e-324, 1e-310, 2.2250738585072014e-308, 1e-300, 1e-160, -1e-160, 1e-155,
  1e-20, 1e-15, 1e-8, 0.1, 0.5, -0.5, 1, -1, 2, 3, math.pi, -math.pi, 1e5, 1e6, -1e6, 1e15, 1e17, -1e17, 1e155,
  -1e155, 1e160, -1e160, 1e300, -1e300, 1.7976931348623157e308, -1.7976931348623157e308, math.huge, -math.huge,
  0 / 0 }

-- every value of a pose, joint by joint
local function pose_values(p)
  local t = {}
  for j = 1, #p do
    for _, v in ipairs { p:get(j) } do t[#t + 1] = v end
  end
  return t
end

local function skeleton(n)
  local names, parents = {}, {}
  for j = 1, n do names[j], parents[j] = "j" .. j, j - 1 end
  return sinew.skeleton { names = names, parents = parents }
end

local function random_pose(skel, rng)
  local p = sinew.pose(skel)
  for j = 1, #skel do
    local x, y, z, w = helper.random_quat(rng)
    p:set(j, rng(-1, 1), rng(-1, 1), rng(-1, 1), x, y, z, w, rng(0.5, 1.5), rng(0.5, 1.5), rng(0.5, 1.5))
  end
  return p
end

-- runs fn with method `name` of the class table `methods` put back to the C binding's `c`
local function with_c(methods, name, c, fn)
  local f = methods[name]
  methods[name] = c
  local r = pack(pcall(fn))
  methods[name] = f
  return r
end

describe("sinew.ffi (the fast path)", function()
  local rng = helper.rng(2026)

  it("raises the C binding's type errors word for word", function()
    -- each case once on the fast path, once with every fast method put back to the C binding's
    local mts = require("sinew.core")._ffi.metatables
    local swaps = { { mts["sinew.Pose"].__index, C.Pose }, { mts["sinew.Clip"].__index, C.Clip },
                    { mts["sinew.ClipCursor"].__index, C.ClipCursor }, { mts["sinew.Chain"].__index, C.Chain } }
    for i, mt in ipairs(mts["sinew.BlendSpace"]) do swaps[#swaps + 1] = { mt.__index, { weights = C.BlendSpace[i] } } end
    local function on_c(fn)
      local saved, blend = {}, sinew.blend
      for _, pair in ipairs(swaps) do
        for name, c in pairs(pair[2]) do saved[#saved + 1] = { pair[1], name, pair[1][name] }; pair[1][name] = c end
      end
      sinew.blend = C.blend
      local r = pack(pcall(fn))
      for _, v in ipairs(saved) do v[1][v[2]] = v[3] end
      sinew.blend = blend
      return r
    end
    for _, case in ipairs(type_cases()) do
      local fast_r, c_r = pack(pcall(case[2])), on_c(case[2])
      assert.is_false(fast_r[1], case[1])
      assert.is_false(c_r[1], case[1])
      assert.equal(tostring(c_r[2]):gsub("^[^:]*:%d+: ", ""), (tostring(fast_r[2]):gsub("^[^:]*:%d+: ", "")), case[1])
      assert.is_truthy(tostring(fast_r[2]):find(case[3], 1, true), case[1])
    end
  end)

  describe("quat", function()
    -- the arguments of each function: a list of generators
    local function q4() return helper.random_quat(rng) end
    local function num() return rng(-2, 3) end
    local function v3() return rng(-2, 2), rng(-2, 2), rng(-2, 2) end
    local calls = {
      mul = function() return pack(q4()), pack(q4()) end,
      conj = function() return pack(q4()) end,
      inverse = function() return pack(q4()) end,
      normalize = function() return pack(2 * rng(), rng(), rng(), rng() + 0.1) end,
      dot = function() return pack(q4()), pack(q4()) end,
      length = function() return pack(rng(), 3 * rng(), rng(), rng()) end,
      rotate = function() return pack(q4()), pack(v3()) end,
      from_axis_angle = function() return pack(v3()), pack(num()) end,
      to_axis_angle = function() return pack(q4()) end,
      from_euler = function()
        return pack(num(), num(), num()), pack(({ "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX" })[1 + math.floor(rng() * 6)])
      end,
      from_to = function()
        if rng() < 0.1 then local x, y, z = v3(); return pack(x, y, z), pack(-2 * x, -2 * y, -2 * z) end
        return pack(v3()), pack(v3())
      end,
      angle = function() return pack(q4()), pack(q4()) end,
      pow = function() return pack(q4()), pack(num()) end,
      log = function() return pack(q4()) end,
      exp = function() return pack(rng(), rng(), rng(), rng()) end,
      slerp = function() return pack(q4()), pack(q4()), pack(num()) end,
      nlerp = function() return pack(q4()), pack(q4()), pack(num()) end,
    }
    -- the functions the fast path computes in Lua other than with the core's operations: within
    -- 1e-12 (the rest are the core's bits: the same operations in Lua, or the core itself)
    local in_lua = { inverse = true, normalize = true, rotate = true, from_axis_angle = true, angle = true,
                     to_axis_angle = true, from_to = true, log = true, exp = true, pow = true }

    it("gives what the C binding gives, for every function", function()
      local names = {}
      for name in pairs(calls) do names[#names + 1] = name end
      table.sort(names)
      for _, name in ipairs(names) do
        assert.is_function(C.quat[name], name)
        assert.are_not.equal(C.quat[name], quat[name], name)
        for _ = 1, 300 do
          local args = {}
          for _, part in ipairs { calls[name]() } do
            for i = 1, part.n do args[#args + 1] = part[i] end
          end
          local want, got = pack(C.quat[name](unpack(args))), pack(quat[name](unpack(args)))
          assert.equal(want.n, got.n, name)
          for i = 1, want.n do
            if in_lua[name] and type(want[i]) == "number" then
              assert.is_true(math.abs(got[i] - want[i]) <= 1e-12 * math.max(1, math.abs(want[i])), name)
            else
              assert.is_true(same(got[i], want[i]), name)
            end
          end
        end
      end
      assert.same({ C.quat.identity() }, { quat.identity() })
      local qs, ws = {}, {}
      for i = 1, 5 do
        qs[4 * i - 3], qs[4 * i - 2], qs[4 * i - 1], qs[4 * i] = helper.random_quat(rng)
        ws[i] = rng()
      end
      for _, m in ipairs { "nlerp", "karcher", "markley", "power" } do
        assert.same({ C.quat.blend(qs, ws, m) }, { quat.blend(qs, ws, m) })
      end
    end)

    -- Extreme arguments for every function: each number of the arguments drawn from EXTREMES, from
    -- 1e-320 .. 1e308 of either sign, or near 1; unit quaternions scaled to the edges of the plain
    -- ranges, with zero components, and now and then an argument that is no number or missing.
    -- Every call gives the C binding's outcome: the same error text, or results that are the same
    -- bits (signs of zeros included) for the functions that compute as the core does, and within
    -- 1e-12 of its (relative to the largest result; at least 1 for unit results and angles) for
    -- the others (in_lua), whose zeros may then be a rounding residue of either sign.
    local UNIT = { normalize = true, nlerp = true, slerp = true, from_axis_angle = true, from_euler = true,
                   from_to = true, to_axis_angle = true, angle = true }
    local function pick(t) return t[1 + math.floor(rng() * #t)] end
    local function number(p)
      local r = rng()
      if r < p then return pick(EXTREMES) end
      if r < p + 0.15 then return 10 ^ rng(-320, 308) * (rng() < 0.5 and -1 or 1) end
      if r < p + 0.2 then return rng(-1e6, 1e6) end
      return rng(-2, 3)
    end
    local function quat_of(p)
      local r = rng()
      local x, y, z, w = helper.random_quat(rng)
      if r < 0.3 then return x, y, z, w end
      if r < 0.4 then
        local s = pick { 1e-310, 1e-300, 1e-160, 1e-155, 1 + 1e-6, 1e155, 1e160, 1e300 }
        return x * s, y * s, z * s, w * s
      end
      if r < 0.5 then
        local q = { x, y, z, w }
        for i = 1, 4 do if rng() < 0.5 then q[i] = pick { 0, -0.0, 5e-324 } end end
        return q[1], q[2], q[3], q[4]
      end
      return number(p), number(p), number(p), number(p)
    end
    local function vec_of(p) local x, y, z = quat_of(p); return x, y, z end
    local ORDERS = { "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX" }
    local extreme_calls = {
      mul = function(p) return pack(quat_of(p)), pack(quat_of(p)) end,
      conj = function(p) return pack(quat_of(p)) end,
      inverse = function(p) return pack(quat_of(p)) end,
      normalize = function(p) return pack(quat_of(p)) end,
      dot = function(p) return pack(quat_of(p)), pack(quat_of(p)) end,
      length = function(p) return pack(quat_of(p)) end,
      rotate = function(p) return pack(quat_of(p)), pack(vec_of(p)) end,
      from_axis_angle = function(p) return pack(vec_of(p)), pack(number(0.6)) end,
      to_axis_angle = function(p) return pack(quat_of(p)) end,
      from_euler = function() return pack(number(0.6), number(0.6), number(0.6)), pack(pick(ORDERS)) end,
      from_to = function(p)
        if rng() < 0.15 then
          local x, y, z = vec_of(p)
          local k = -number(0.6)
          return pack(x, y, z), pack(x * k, y * k, z * k)
        end
        return pack(vec_of(p)), pack(vec_of(p))
      end,
      angle = function(p) return pack(quat_of(p)), pack(quat_of(p)) end,
      pow = function(p) return pack(quat_of(p)), pack(number(0.6)) end,
      log = function(p) return pack(quat_of(p)) end,
      exp = function(p)
        local x, y, z, w = quat_of(p)
        if rng() < 0.3 then w = rng(-800, 800) end
        return pack(x, y, z, w)
      end,
      slerp = function(p) return pack(quat_of(p)), pack(quat_of(p)), pack(number(0.6)) end,
      nlerp = function(p) return pack(quat_of(p)), pack(quat_of(p)), pack(number(0.6)) end,
    }
    local ODD = { "1", "0x10", "-0", " 2 ", "abc", "1e400", "nan", true, {} }

    -- the C binding's outcome of quat[name](args), and the fast path's, or nil when they agree
    local function disagreement(name, args)
      local function call(f) return function() return f(unpack(args, 1, args.n)) end end
      local want, got = pack(pcall(call(C.quat[name]))), pack(pcall(call(quat[name])))
      local fine = want[1] == got[1] and want.n == got.n
      if fine and not want[1] then
        fine = tostring(want[2]):gsub("^[^:]*:%d+: ", "") == tostring(got[2]):gsub("^[^:]*:%d+: ", "")
      elseif fine then
        local scale = UNIT[name] and 1 or 0
        for i = 2, want.n do scale = math.max(scale, math.abs(want[i])) end
        for i = 2, want.n do
          local a, b = want[i], got[i]
          if in_lua[name] then
            fine = fine and math.abs(a - b) <= 1e-12 * scale
          else
            fine = fine and bits(a) == bits(b)
          end
        end
      end
      if fine then return nil end
      local shown = {}
      for i = 1, args.n do shown[i] = bits(args[i]) end
      return ("%s(%s): C binding %s, fast path %s"):format(name, table.concat(shown, ", "),
        outcome(call(C.quat[name])), outcome(call(quat[name])))
    end

    it("gives the C binding's results and errors for extreme arguments, every function", function()
      local names = {}
      for name in pairs(extreme_calls) do names[#names + 1] = name end
      table.sort(names)
      for _, name in ipairs(names) do
        for i = 1, 3000 do
          local args = { n = 0 }
          for _, part in ipairs { extreme_calls[name](i <= 1500 and 0.5 or 0.15) } do
            for k = 1, part.n do args.n = args.n + 1; args[args.n] = part[k] end
          end
          if rng() < 0.05 then -- a string, a boolean, a table, nil or a missing argument
            local k = 1 + math.floor(rng() * (args.n + 1))
            if rng() < 0.2 then args[k] = nil else args[k] = pick(ODD) end
            args.n = math.max(args.n, k)
            if rng() < 0.2 then args.n = math.floor(rng() * args.n) end
          end
          local why = disagreement(name, args)
          assert(not why, why)
        end
      end
    end)

    -- slerp is Lua on this path for unit inputs (to 1e-15, or 1e-5 normalised by the core's
    -- series) and t in [-1, 2], with the core's operations: the same bits as the core, zeros'
    -- signs included, for every kind of pair the core's routes tell apart; the rest (other
    -- lengths, other t, NaN, infinities, no number) goes to the core or the C binding.
    it("computes slerp with the core's bits, over every kind of pair and t", function()
      local function f32(x) -- x rounded to float32 (off unit length by up to about 1e-7)
        if x == 0 then return x end
        local m, e = math.frexp(x)
        return math.ldexp(math.floor(m * 2 ^ 24 + 0.5) / 2 ^ 24, e)
      end
      local kinds = {
        function(x, y, z, w) return x, y, z, w end, -- identical
        function(x, y, z, w) return -x, -y, -z, -w end, -- opposite: the same rotation
        function(x, y, z, w) -- nearly identical, to 1e-16 .. 1e-4
          local e = 10 ^ rng(-16, -4)
          return quat.normalize(x + e * rng(-1, 1), y + e * rng(-1, 1), z + e * rng(-1, 1), w + e * rng(-1, 1))
        end,
        function(x, y, z, w) -- nearly opposite
          local e = 10 ^ rng(-16, -4)
          return quat.normalize(-x + e * rng(-1, 1), -y + e * rng(-1, 1), -z + e * rng(-1, 1), -w + e * rng(-1, 1))
        end,
        function() return helper.random_quat(rng) end, -- anywhere
        function() return f32(rng(-1, 1)), f32(rng(-1, 1)), 0, 1 end, -- off unit length: the core then
        function(x, y, z, w) return f32(x), f32(y), f32(z), f32(w) end, -- float32 keys: the series
        function(x, y, z, w) local k = 1 + rng(-2e-15, 2e-15); return x * k, y * k, z * k, w * k end,
        function(x, y, z, w) local k = 1 + rng(-2e-5, 2e-5); return x * k, y * k, z * k, w * k end,
        function(x) return 0, -0.0, x * 0, 1 end, -- zeros of both signs
      }
      local ts = { 0, 1, 0.5, -1, 2, -1 - 2 ^ -52, 2 + 2 ^ -51, 1e-300, -0.0, 1 - 2 ^ -53, 3, -7, 1e6 }
      local checked, fast_route = 0, 0
      for i = 1, 20000 do
        local ax, ay, az, aw = helper.random_quat(rng)
        if i % 7 == 0 then ax, ay, az, aw = f32(ax), f32(ay), f32(az), f32(aw) end
        local bx, by, bz, bw = kinds[1 + i % #kinds](ax, ay, az, aw)
        local t = i % 3 == 0 and rng(-1, 2) or i % 3 == 1 and rng(0, 1) or ts[1 + math.floor(rng() * #ts)]
        local args = pack(ax, ay, az, aw, bx, by, bz, bw, t)
        local why = disagreement("slerp", args)
        assert(not why, why)
        checked = checked + 1
        local sa = (ax * ax + ay * ay) + (az * az + aw * aw)
        local sb = (bx * bx + by * by) + (bz * bz + bw * bw)
        if t >= -1 and t <= 2 and math.abs(sa - 1) < 1e-5 and math.abs(sb - 1) < 1e-5 then
          fast_route = fast_route + 1
        end
      end
      assert.equal(20000, checked)
      assert.is_true(fast_route > 12000, "most cases take the Lua route: " .. fast_route)
      -- NaN, infinities and what is no number: the C binding's error, word for word
      local x, y, z, w = helper.random_quat(rng)
      for _, bad in ipairs { { x, y, z, w, x, y, z, w, 0 / 0 }, { 0 / 0, y, z, w, x, y, z, w, 0.5 },
                             { x, y, z, w, math.huge, y, z, w, 0.5 }, { x, y, z, w, x, y, z, w, math.huge },
                             { 0, 0, 0, 0, x, y, z, w, 0.5 }, { x, y, z, w, x, y, z, w, "0.5" },
                             { x, y, z, w, x, y, z, w } } do
        local why = disagreement("slerp", pack(unpack(bad, 1, 9)))
        assert(not why, why)
      end
      assert.has_error(function() quat.slerp(x, y, z, w, x, y, z, w, 0 / 0) end)
      no_garbage { function() quat.slerp(x, y, z, w, 0, 0, 0, 1, 0.3) end,
                   function() quat.slerp(f32(x), f32(y), f32(z), f32(w), 0, 0, 0, 1, 0.3) end }
    end)

    it("gives the C binding's results for the cases that once differed", function()
      local cases = {
        -- a + t (b - a) whose squared length overflows (|t| beyond about 1e154): the core rescales
        { "nlerp", 0, 0, 0, 1, 0, 0, 1, 0, -1e160 },
        { "nlerp", 0, 0, 0, 1, 0, 0, 1, 0, 1e155 },
        { "nlerp", 0.68563861643888524, 0, -0.0, 0, 0.73061890441487276, -0.39760596830381051, -0.37396676763774656,
          0.410188209464114, -1.7362871234938778e+220 },
        -- inputs off unit length: their squares summed in the core's order, which a large t magnifies
        { "nlerp", 1e-155, -1.979966310765563, 8.1123628183501686e-26, 1.8815960001711865e-183, 0.27501646827442228,
          -1000000, 1.0636144960891589, 1.7459648044276657, -545321.83291886165 },
        -- an exponent multiplies the rounding of the angle: large ones go to the core
        { "pow", 0.28835508289696699, 0.44307197123174769, 0.83749465189043737, -0.13835202395054355, -194071.9123874529 },
        { "pow", 0.6647583467897128, 0.19946999335736298, -0.13320621635859964, 0.70750559435727967, 1e15 },
        { "pow", -0.039794004297065082, -0.93623303533725977, 0.25040996735889298, 0.24326732006684473, -1.6e220 },
        { "pow", -0.33351582670895824, -0.26985059132773354, -0.44944750964720087, -0.78354756573397755,
          -1.9171865181590235e+174 },
        -- |q|^e / |v| overflowing (and underflowing) before the product with the axis
        { "pow", 1e-130, 1e-131, 0, 1e-139, -2.1 },
        { "pow", 6.9758427148217813e+131, 1.7859788535032224, 1.380209149215565, -0.82172914857205859, -2.0940008946638562 },
        -- a negative w whose quotient by |q| rounds to -0: the core does not turn q
        { "to_axis_angle", 1.8023297244704604, 1e-15, 3, -5e-324 },
        { "to_axis_angle", 100000, 0.1, -1.4744026302121604, -5e-324 },
        -- zeros of the core's sign
        { "from_euler", -0.0, -0.80575885046809814, -5e-324, "XYZ" },
        { "from_euler", 1, -0.0, -0.0, "YXZ" },
        { "from_euler", -1.4250401364456349e-265, -1e-160, -5e-324, "ZXY" },
      }
      for _, c in ipairs(cases) do
        local args = pack(unpack(c, 2))
        local why = disagreement(c[1], args)
        assert(not why, why)
      end
      -- every order over a grid of angles with zeros of both signs, subnormals, multiples of pi
      local angles = { 0, -0.0, 5e-324, -5e-324, 1e-300, 1, -1, math.pi, -math.pi, 2 * math.pi, 3 * math.pi, 1e17,
                       -1e300 }
      for _, order in ipairs(ORDERS) do
        for _, x in ipairs(angles) do
          for _, y in ipairs(angles) do
            for _, z in ipairs(angles) do
              local why = disagreement("from_euler", pack(x, y, z, order))
              assert(not why, why)
            end
          end
        end
      end
      -- the angle 1e17 and large exponents, on unit and non-unit quaternions
      for _, e in ipairs { 63.9, 64, 64.1, 1e3, -1e6, 1e6, 1e100, -1e300 } do
        for _ = 1, 50 do
          local x, y, z, w = helper.random_quat(rng)
          local k = pick { 1, 1e-150, 1e150, 0.5 }
          assert(not disagreement("pow", pack(x * k, y * k, z * k, w * k, e)))
        end
      end
    end)

    it("blend gives the C binding's result or error for extreme quaternions and weights", function()
      for _ = 1, 1500 do
        local n = 1 + math.floor(rng() * 5)
        local qs, ws = {}, {}
        for i = 1, n do
          local x, y, z, w = quat_of(0.3)
          qs[4 * i - 3], qs[4 * i - 2], qs[4 * i - 1], qs[4 * i] = x, y, z, w
          ws[i] = rng() < 0.4 and number(0.8) or rng()
        end
        if rng() < 0.05 then qs[1 + math.floor(rng() * #qs)] = pick(ODD) end
        local m = pick { "nlerp", "karcher", "markley", "power", "x" }
        local want, got = outcome(C.quat.blend, qs, ws, m), outcome(quat.blend, qs, ws, m)
        if want ~= got then
          local shown = {}
          for k = 1, #qs do shown[k] = bits(qs[k]) end
          for k = 1, #ws do shown[#shown + 1] = "w" .. bits(ws[k]) end
          error(("blend(%s, %s): C binding %s, fast path %s"):format(table.concat(shown, ", "), m, want, got))
        end
      end
    end)

    it("raises what the C binding raises, named as the caller called it", function()
      local bad = {
        { "slerp", { 0, 0, 0, 1, 0, 0, 0, 0, 0.5 } },
        { "slerp", { 0, 0, 0, 1, 0, 0, 1, 0, "x" } },
        { "mul", { 0, 0, 0, 1, 0, 0, 0 / 0, 1 } },
        { "normalize", { 0, 0, 0, 0 } },
        { "rotate", { 0, 0, 0, 1, 1, 2 } },
        { "from_euler", { 1, 2, 3, "XXY" } },
        { "blend", { { 0, 0, 0, 1 }, { -1 } } },
        { "pow", { 1e300, 1e300, 0, 0, 1e10 } },
      }
      for _, b in ipairs(bad) do
        local name, args = b[1], b[2]
        local want = helper.error_of(function() return C.quat[name](unpack(args)) end)
        local got = helper.error_of(function() return quat[name](unpack(args)) end)
        assert.is_string(want, name)
        -- the C function was called through C.quat, the fast one through quat: same name, field call
        assert.equal(want, got, name)
      end
    end)

    it("takes numbers in strings and huge values the way the C binding does", function()
      assert.same({ C.quat.slerp("0", 0, 0, 1, 0, 0, 1, 0, "0.5") }, { quat.slerp("0", 0, 0, 1, 0, 0, 1, 0, "0.5") })
      local big = { 1e300, 0, 0, 1e300, 1e-300, 0, 0, 1e-300 }
      assert.same({ C.quat.mul(unpack(big)) }, { quat.mul(unpack(big)) })
      assert.same({ C.quat.normalize(1e-300, 0, 0, 0) }, { quat.normalize(1e-300, 0, 0, 0) })
    end)

    it("makes no garbage, compiled or interpreted", function()
      local bx, by, bz, bw = quat.from_axis_angle(0, 1, 0, 0.7)
      local qs, ws = { 0, 0, 0, 1, bx, by, bz, bw }, { 0.3, 0.7 }
      local fns = {
        function() quat.slerp(0, 0, 0, 1, bx, by, bz, bw, 0.3) end,
        function() quat.nlerp(0, 0, 0, 1, bx, by, bz, bw, 0.3) end,
        function() quat.mul(0, 0, 0, 1, bx, by, bz, bw) end,
        function() quat.rotate(bx, by, bz, bw, 1, 2, 3) end,
        function() quat.from_euler(0.1, 0.2, 0.3, "ZYX") end,
        function() quat.to_axis_angle(bx, by, bz, bw) end,
        function() quat.blend(qs, ws, "markley") end,
      }
      no_garbage(fns)
    end)
  end)

  describe("objects", function()
    local skel = skeleton(9)
    local tracks = {}
    for j = 1, 9 do
      local times, values = {}, {}
      for k = 1, 11 do
        times[k] = (k - 1) / 10
        local x, y, z, w = helper.random_quat(rng)
        for _, v in ipairs { x, y, z, w } do values[#values + 1] = v end
      end
      tracks[j] = { joint = j, path = "rotation", times = times, values = values }
    end
    local clip = sinew.clip { skeleton = skel, duration = 1, tracks = tracks }
    local a, b = random_pose(skel, rng), random_pose(skel, rng)
    local mask = sinew.mask(skel, { j3 = 1, j4 = 0.5 }, 0.25)
    local methods = getmetatable(a).__index

    it("sample, add, to_model and blend give the C binding's poses and matrices, bit for bit", function()
      for _, t in ipairs { 0, 0.33, 0.97, 1.6, -0.2 } do
        local p, q = sinew.pose(skel), sinew.pose(skel)
        clip:sample(t, p)
        assert.is_true(with_c(getmetatable(clip).__index, "sample", C.Clip.sample, function() clip:sample(t, q) end)[1])
        assert.same(pose_values(q), pose_values(p))
        clip:sample(t, p, false)
        with_c(getmetatable(clip).__index, "sample", C.Clip.sample, function() clip:sample(t, q, false) end)
        assert.same(pose_values(q), pose_values(p))
        local c1, c2 = clip:cursor(), clip:cursor()
        c1:sample(t, p)
        with_c(getmetatable(c1).__index, "sample", C.ClipCursor.sample, function() c2:sample(t, q) end)
        assert.same(pose_values(q), pose_values(p))
        for j = 1, #skel do
          for _, loop in ipairs { true, false } do
            local joint = j % 2 == 0 and "j" .. j or j
            local want = with_c(getmetatable(clip).__index, "sample_joint", C.Clip.sample_joint,
              function() return clip:sample_joint(t, joint, loop) end)
            assert.same(want, pack(true, clip:sample_joint(t, joint, loop)))
          end
        end
      end
      for _, w in ipairs { 0.25, 1, -0.5 } do
        local p, q = sinew.pose(skel):copy(a), sinew.pose(skel):copy(a)
        p:add(b, w, mask)
        with_c(methods, "add", C.Pose.add, function() q:add(b, w, mask) end)
        assert.same(pose_values(q), pose_values(p))
      end
      local m1, m2 = sinew.matrices(skel), sinew.matrices(skel)
      a:to_model(m1)
      with_c(methods, "to_model", C.Pose.to_model, function() a:to_model(m2) end)
      for j = 1, #skel do assert.same({ m2:get(j) }, { m1:get(j) }) end
      for _, rot in ipairs { "nlerp", "karcher", "markley", "power" } do
        for _, masks in ipairs { {}, { mask }, mask } do
          local o1, o2 = sinew.pose(skel), sinew.pose(skel)
          sinew.blend(o1, { a, b, a }, { 0.2, 0.5, 0.1 }, masks, 0.3, rot)
          C.blend(o2, { a, b, a }, { 0.2, 0.5, 0.1 }, masks, 0.3, rot)
          assert.same(pose_values(o2), pose_values(o1))
        end
      end
    end)

    it("BlendSpace:weights gives the C binding's weights in every mode", function()
      local pts = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { -1, 0 }, { 0, -1 }, { 1, 1 } }
      for _, mode in ipairs { "freeform_cartesian", "freeform_directional", "triangulated", "idw" } do
        local space = sinew.blendspace { mode = mode, points = pts }
        local c = C.BlendSpace[1]
        for _ = 1, 50 do
          local x, y = rng(-1.5, 1.5), rng(-1.5, 1.5)
          assert.same(c(space, x, y), space:weights(x, y))
          local out = {}
          assert.equal(out, space:weights(x, y, out))
          assert.same(c(space, x, y), out)
        end
      end
      local line = sinew.blendspace { mode = "1d", points = { { 0 }, { 1 }, { 3 } } }
      assert.same(C.BlendSpace[1](line, 2), line:weights(2, nil))
    end)

    it("BlendSpace:weights of simple_directional (computed in Lua) gives the C binding's bits", function()
      local c = C.BlendSpace[1]
      local function directions(n, centre, radius)
        local pts = centre and { { 0, 0 } } or {}
        for i = 1, n do
          local angle, r = 2 * math.pi * (i + (n < 20 and 0.3 * rng() or 0)) / n, radius or rng(0.5, 2)
          pts[#pts + 1] = { r * math.cos(angle), r * math.sin(angle) }
        end
        return pts
      end
      local spaces = {}
      for n = 3, 12 do
        spaces[#spaces + 1] = sinew.blendspace { mode = "simple_directional", points = directions(n, n % 2 == 0) }
      end
      -- radii outside the quick range (the core's exact path), and the most directions there can be
      spaces[#spaces + 1] = sinew.blendspace { mode = "simple_directional", points = directions(5, true, 1e-120) }
      spaces[#spaces + 1] = sinew.blendspace { mode = "simple_directional", points = directions(179, false) }
      for _, space in ipairs(spaces) do
        local inputs = { { 0, 0 }, { 1e300, -1e300 }, { -1e-310, 0 }, { -1, -0.0 }, { 0, -2 } }
        for k = 1, #space do inputs[#inputs + 1] = { space:point(k) } end -- exactly on each sample
        for _ = 1, 200 do inputs[#inputs + 1] = { rng(-3, 3), rng(-3, 3) } end
        local out = {}
        for _, p in ipairs(inputs) do
          local want = c(space, p[1], p[2])
          assert.same(want, space:weights(p[1], p[2]))
          assert.equal(out, space:weights(p[1], p[2], out))
          assert.same(want, out)
        end
      end
    end)

    it("Chain:step and Chain:update move the particles as the C binding does", function()
      local function chains()
        local pts = { { 0, 0, 0 }, { 0, -1, 0 }, { 0, -2, 0 } }
        return sinew.chain { points = pts, parents = { 0, 1, 2 } }, sinew.chain { points = pts, parents = { 0, 1, 2 } }
      end
      local c1, c2 = chains()
      local cm = getmetatable(c1).__index
      for i = 1, 30 do
        c1:move_root(0.1 * i, 0, 0, 0, 0, 0, 1)
        c2:move_root(0.1 * i, 0, 0, 0, 0, 0, 1)
        c1:step(1 / 60)
        with_c(cm, "step", C.Chain.step, function() c2:step(1 / 60) end)
      end
      for i = 1, 3 do assert.same({ c2:position(i) }, { c1:position(i) }) end
      local tail = skeleton(4)
      local t1 = sinew.chain { skeleton = tail, root = "j2" }
      local t2 = sinew.chain { skeleton = tail, root = "j2" }
      local p1, p2 = random_pose(tail, rng), sinew.pose(tail)
      p2:copy(p1)
      local root = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.5, 0, 0, 1 }
      for _ = 1, 20 do
        t1:update(1 / 60, p1, root)
        with_c(cm, "update", C.Chain.update, function() t2:update(1 / 60, p2, root) end)
        t1:update(1 / 60, p1)
        with_c(cm, "update", C.Chain.update, function() t2:update(1 / 60, p2) end)
      end
      assert.same(pose_values(p2), pose_values(p1))
    end)

    it("raise what the C binding raises, method calls included", function()
      local p = sinew.pose(skel)
      local other = sinew.pose(skeleton(2))
      local cases = {
        { methods, "add", C.Pose.add, function() p:add(b, "x") end },
        { methods, "add", C.Pose.add, function() p:add(other, 1) end },
        { methods, "add", C.Pose.add, function() p.add(b) end },
        { methods, "add", C.Pose.add, function() p:add() end },
        { methods, "to_model", C.Pose.to_model, function() p:to_model() end },
        { methods, "to_model", C.Pose.to_model, function() p:to_model(sinew.matrices(skeleton(2))) end },
        { getmetatable(clip).__index, "sample", C.Clip.sample, function() clip:sample(0 / 0, p) end },
        { getmetatable(clip).__index, "sample", C.Clip.sample, function() clip:sample(0, other) end },
        { getmetatable(clip).__index, "sample", C.Clip.sample, function() clip.sample(p, 0, p) end },
        { getmetatable(clip:cursor()).__index, "sample", C.ClipCursor.sample, function() clip:cursor():sample(0, other) end },
        { getmetatable(clip).__index, "sample_joint", C.Clip.sample_joint, function() clip:sample_joint(0 / 0, 1) end },
        { getmetatable(clip).__index, "sample_joint", C.Clip.sample_joint, function() clip:sample_joint(0, 10) end },
        { getmetatable(clip).__index, "sample_joint", C.Clip.sample_joint, function() clip:sample_joint(0, "tail") end },
        { getmetatable(clip).__index, "sample_joint", C.Clip.sample_joint, function() clip:sample_joint(0, 2.5) end },
        { getmetatable(clip).__index, "sample_joint", C.Clip.sample_joint, function() clip:sample_joint(0) end },
        { getmetatable(clip).__index, "sample_joint", C.Clip.sample_joint, function() clip.sample_joint(p, 0, 1) end },
      }
      for i, c in ipairs(cases) do
        local got = pack(pcall(c[4]))
        local want = with_c(c[1], c[2], c[3], c[4])
        assert.is_false(want[1], i)
        assert.same(want, got, i)
      end
      assert.equal(helper.error_of(C.blend, p, { a, other }, { 1, 1 }), helper.error_of(sinew.blend, p, { a, other }, { 1, 1 }))
      assert.equal(helper.error_of(C.blend, p, { a }, { 1 }, nil, nil, "slerp"),
        helper.error_of(sinew.blend, p, { a }, { 1 }, nil, nil, "slerp"))
      local space = sinew.blendspace { mode = "idw", points = { { 0, 0 }, { 1, 1 } } }
      assert.equal(helper.error_of(C.BlendSpace[1], space, 1), helper.error_of(space.weights, space, 1))
      assert.equal(helper.error_of(C.BlendSpace[1], space, 1, 0 / 0), helper.error_of(space.weights, space, 1, 0 / 0))
    end)

    -- Extreme numbers where the objects' fast methods take numbers: the C binding's pose, matrices,
    -- weights or particles, bit for bit, or its error, and a refused call changes nothing.
    local ODD = { "1", "x", true }
    local function extreme()
      local r = rng()
      if r < 0.6 then return EXTREMES[1 + math.floor(rng() * #EXTREMES)] end
      if r < 0.65 then return ODD[1 + math.floor(rng() * #ODD)] end
      if r < 0.8 then return 10 ^ rng(-320, 308) * (rng() < 0.5 and -1 or 1) end
      return rng(-3, 3)
    end
    local function pose_text(p) return table.concat((function()
      local t = pose_values(p)
      for i = 1, #t do t[i] = bits(t[i]) end
      return t
    end)(), " ") end
    local function both(what, want, got) assert(want == got, ("%s: C binding %s, fast path %s"):format(what, want, got)) end

    it("add, sample and blend give the C binding's poses or errors for extreme numbers", function()
      local cursor_methods = getmetatable(clip:cursor()).__index
      local clip_methods = getmetatable(clip).__index
      for _ = 1, 400 do
        local w, m = extreme(), rng() < 0.5 and mask or nil
        local p, q = sinew.pose(skel):copy(a), sinew.pose(skel):copy(a)
        local got = outcome(function() return p:add(b, w, m) and "ok" end)
        local want = outcome(function()
          local r = with_c(methods, "add", C.Pose.add, function() return q:add(b, w, m) and "ok" end)
          if not r[1] then error(r[2], 0) end
          return r[2]
        end)
        both("add " .. bits(w), want .. " " .. pose_text(q), got .. " " .. pose_text(p))

        local t, loop = extreme(), ({ true, false, nil })[1 + math.floor(rng() * 3)]
        local kinds = { { clip_methods, C.Clip.sample, clip, clip },
                        { cursor_methods, C.ClipCursor.sample, clip:cursor(), clip:cursor() } }
        for _, c in ipairs(kinds) do
          p, q = sinew.pose(skel):copy(a), sinew.pose(skel):copy(a)
          got = outcome(function() return c[3]:sample(t, p, loop) and "ok" end)
          want = outcome(function()
            local r = with_c(c[1], "sample", c[2], function() return c[4]:sample(t, q, loop) and "ok" end)
            if not r[1] then error(r[2], 0) end
            return r[2]
          end)
          both("sample " .. bits(t), want .. " " .. pose_text(q), got .. " " .. pose_text(p))
        end
        local joint = rng() < 0.5 and extreme() or ({ 1, 9, "j4", "j10" })[1 + math.floor(rng() * 4)]
        got = outcome(function() return clip:sample_joint(t, joint, loop) end)
        want = outcome(function()
          local r = with_c(clip_methods, "sample_joint", C.Clip.sample_joint,
            function() return clip:sample_joint(t, joint, loop) end)
          if not r[1] then error(r[2], 0) end
          return unpack(r, 2, r.n)
        end)
        both("sample_joint " .. bits(t) .. " " .. bits(joint), want, got)

        local n = 1 + math.floor(rng() * 3)
        local layers, ws = {}, {}
        for i = 1, n do layers[i], ws[i] = (i % 2 == 1) and a or b, rng() < 0.5 and extreme() or rng() end
        local threshold = rng() < 0.5 and extreme() or nil
        local rot = ({ "nlerp", "karcher", "markley", "power" })[1 + math.floor(rng() * 4)]
        local o1, o2 = sinew.pose(skel):copy(b), sinew.pose(skel):copy(b)
        got = outcome(function() return sinew.blend(o1, layers, ws, mask, threshold, rot) and "ok" end)
        want = outcome(function() return C.blend(o2, layers, ws, mask, threshold, rot) and "ok" end)
        local shown = {}
        for i = 1, n do shown[i] = bits(ws[i]) end
        both(("blend {%s} %s %s"):format(table.concat(shown, ", "), bits(threshold), rot),
          want .. " " .. pose_text(o2), got .. " " .. pose_text(o1))
      end
    end)

    it("BlendSpace:weights gives the C binding's weights or errors for extreme inputs, every mode", function()
      local square = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { -1, 0 }, { 0, -1 }, { 1, 1 } }
      local wide = { { 0, 0 }, { 1e-3, 0 }, { 0, 1e150 }, { -1e150, -1e150 } }
      local defs = {
        { mode = "1d", points = { { -1e150 }, { 1e-300 }, { 1e150 } } },
        { mode = "idw", points = { { 0, 0, 0 }, { 1, 0, 1 }, { 0, 1e150, 0 } } },
        { mode = "idw", points = { { 0, 0, 0, 0 }, { 1, 0, 1, 1 }, { 0, 1, 0, -1 } } },
        { mode = "idw", points = { { 0, 0, 0, 0, 0 }, { 1, 0, 1, 1, 1 } } }, -- 5 inputs: the C binding's
        { mode = "direct", normalize = true, points = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } } },
      }
      for _, mode in ipairs { "freeform_cartesian", "freeform_directional", "triangulated", "idw", "grid" } do
        defs[#defs + 1] = { mode = mode, points = square }
        defs[#defs + 1] = { mode = mode, points = wide, normalize_axes = false }
      end
      for _, radius in ipairs { 1, 1e-120, 1e150 } do
        local pts = { { 0, 0 } }
        for i = 1, 5 do pts[i + 1] = { radius * math.cos(1.2 * i + 0.1), radius * math.sin(1.2 * i + 0.1) } end
        defs[#defs + 1] = { mode = "simple_directional", points = pts }
      end
      local classes = require("sinew.core")._ffi.metatables["sinew.BlendSpace"]
      for _, def in ipairs(defs) do
        local space = sinew.blendspace(def)
        local c
        for i, mt in ipairs(classes) do if mt == getmetatable(space) then c = C.BlendSpace[i] end end
        local d = space:dims()
        for _ = 1, 300 do
          local args = {}
          for k = 1, d do args[k] = extreme() end
          local n, r = d, rng()
          if r < 0.3 then -- an out table, one coordinate too few, or one too many
            n = d + 1; args[n] = {}
          elseif r < 0.35 then
            n = d - 1
          elseif r < 0.4 then
            n = d + 1; args[n] = extreme()
          end
          local shown = {}
          for k = 1, n do shown[k] = bits(args[k]) end
          both(("%s weights(%s)"):format(def.mode, table.concat(shown, ", ")), outcome(c, space, unpack(args, 1, n)),
            outcome(space.weights, space, unpack(args, 1, n)))
        end
      end
    end)

    it("Chain:step and Chain:update give the C binding's particles or errors for extreme numbers", function()
      local cm = getmetatable(sinew.chain { points = { { 0, 0, 0 } }, parents = { 0 } }).__index
      local function positions(c)
        local t = {}
        for i = 1, 3 do for _, v in ipairs { c:position(i) } do t[#t + 1] = bits(v) end end
        return table.concat(t, " ")
      end
      local function run(fn, c_fn, name)
        local r = with_c(cm, name, c_fn, fn)
        if not r[1] then error(r[2], 0) end
        return "ok"
      end
      local tail = skeleton(4)
      for _ = 1, 300 do
        local pts = { { 0, 0, 0 }, { 0, -1, 0 }, { 0, -2, 0 } }
        local c1 = sinew.chain { points = pts, parents = { 0, 1, 2 } }
        local c2 = sinew.chain { points = pts, parents = { 0, 1, 2 } }
        c1:move_root(0.3, 0, 0, 0, 0, 0, 1)
        c2:move_root(0.3, 0, 0, 0, 0, 0, 1)
        local dt = extreme()
        local got = outcome(function() c1:step(dt); return "ok" end)
        local want = outcome(run, function() c2:step(dt) end, C.Chain.step, "step")
        both("step " .. bits(dt), want .. " " .. positions(c2), got .. " " .. positions(c1))

        local t1, t2 = sinew.chain { skeleton = tail, root = "j2" }, sinew.chain { skeleton = tail, root = "j2" }
        local p1, p2 = random_pose(tail, rng), sinew.pose(tail)
        p2:copy(p1)
        dt = rng() < 0.5 and extreme() or 1 / 60
        local root = nil
        if rng() < 0.6 then
          root = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.5, 0, 0, 1 }
          root[1 + math.floor(rng() * 16)] = extreme()
        end
        got = outcome(function() t1:update(dt, p1, root); return "ok" end)
        want = outcome(run, function() t2:update(dt, p2, root) end, C.Chain.update, "update")
        both("update " .. bits(dt), want .. " " .. pose_text(p2) .. positions(t2),
          got .. " " .. pose_text(p1) .. positions(t1))
      end
    end)

    it("make no garbage, compiled or interpreted", function()
      local p, o, mats, out = sinew.pose(skel), sinew.pose(skel), sinew.matrices(skel), {}
      local cursor = clip:cursor()
      local space = sinew.blendspace { mode = "freeform_cartesian", points = { { 0, 0 }, { 1, 0 }, { 0, 1 } } }
      local directional = sinew.blendspace { mode = "simple_directional",
        points = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { -1, 0 }, { 0, -1 } } }
      local chain = sinew.chain { points = { { 0, 0, 0 }, { 0, -1, 0 } }, parents = { 0, 1 } }
      local poses, ws, masks = { a, b }, { 0.4, 0.6 }, { mask, false }
      local fns = {
        function() clip:sample(0.4, p) end,
        function() cursor:sample(0.7, p) end,
        function() clip:sample_joint(0.3, 4) end,
        function() clip:sample_joint(0.6, "j7", false) end,
        function() p:add(b, 0.3, mask):add(b, -0.3, mask) end,
        function() p:to_model(mats) end,
        function() sinew.blend(o, poses, ws, masks) end,
        function() space:weights(0.2, 0.3, out) end,
        function() directional:weights(0.2, -0.3, out) end,
        function() chain:step(1 / 60) end,
      }
      no_garbage(fns)
    end)
  end)
end)
