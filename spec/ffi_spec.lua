-- The LuaJIT fast path (lua/sinew/ffi.lua): which path is taken, that its declarations are the C
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

  it("declares in lua/sinew/ffi.lua the structs of the C sources, member by member", function()
    local cdef = helper.read_file("lua/sinew/ffi.lua"):match("local CDEF = %[%[(.-)%]%]")
    local ffi_c = helper.read_file("src/binding/ffi.c")
    local table_c = ffi_c:match("BEGIN sn_ffi_table.-\n(.-)/%* END sn_ffi_table")
    assert.equal(struct_text(table_c, "sn_ffi_table"), struct_text(cdef, "sn_ffi_table"))
    assert.equal(struct_text(helper.read_file("src/binding/binding.h"), "sn_lua_space"),
      struct_text(cdef, "sn_lua_space"))
    assert.equal(struct_text(helper.read_file("src/core/pose.h"), "sn_blend_layer"),
      struct_text(cdef, "sn_blend_layer"))
    assert.equal(struct_text(helper.read_file("src/core/blendspace.h"), "sn_blendspace_wedges"),
      struct_text(cdef, "sn_blendspace_wedges"))
    -- the structs written on one line in the CDEF: the same members in the same order
    local quat_h = helper.read_file("src/core/quat.h")
    for _, name in ipairs { "sn_quat", "sn_vec3" } do
      local members = {}
      for m in struct_text(quat_h, name):gmatch("double (%a+);") do members[#members + 1] = m end
      assert.equal("{double " .. table.concat(members, ",") .. ";}", struct_text(cdef, name))
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
    -- the functions the fast path computes in Lua (the rest call the core: bit for bit)
    local in_lua = { mul = true, conj = true, inverse = true, normalize = true, dot = true, length = true,
                     rotate = true, from_axis_angle = true, nlerp = true, angle = true, to_axis_angle = true,
                     from_euler = true, from_to = true, log = true, exp = true, pow = true }

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
