-- sinew.ik.feet: foot placement (src/binding/ik_feet.c over src/core/ik_feet.c), on the Fox's
-- Walk over tilted planes and stairs, measured in model space by a forward kinematics in doubles
-- (spec/support/frames.lua: pose:get and sinew.quat).
local helper = require "helper"
local sinew = require "sinew"
local ik = sinew.ik
local quat = sinew.quat

local FOX = "assets/fox/glTF-Binary/Fox.glb"
local LEGS = {
  { "b_LeftUpperArm_09", "b_LeftForeArm_010", "b_LeftHand_011" },
  { "b_RightUpperArm_06", "b_RightForeArm_07", "b_RightHand_08" },
  { "b_LeftLeg01_015", "b_LeftLeg02_016", "b_LeftFoot01_017" },
  { "b_RightLeg01_019", "b_RightLeg02_020", "b_RightFoot01_021" },
}
local PELVIS = "b_Hip_01"
local FPS = 30
local unpack = table.unpack or unpack

local model = require("support.frames").model

local function dist(ax, ay, az, bx, by, bz) return math.sqrt((ax - bx) ^ 2 + (ay - by) ^ 2 + (az - bz) ^ 2) end

local snapshot = helper.pose_values

-- grounds: height along y and unit normal at (x, z). A plane rising toward +z by `deg` degrees
-- (up hill for the Fox, which faces +z; negative: down hill), and stairs rising toward +z.
local function plane(deg)
  local a = math.rad(deg)
  local t, ny, nz = math.tan(a), math.cos(a), -math.sin(a)
  return {
    fn = function(_, _, z) return z * t, 0, ny, nz end,
    -- signed distance of a point from the ground, along its normal
    above = function(_, y, z) return (y - z * t) * ny end,
    normal = { 0, ny, nz },
  }
end
local function stairs(rise, run)
  local function h(z) return math.floor(z / run) * rise end
  return {
    fn = function(_, _, z) return h(z), 0, 1, 0 end,
    above = function(_, y, z) return y - h(z) end,
    normal = { 0, 1, 0 },
  }
end

local fox, tips, lengths, shortest
local function load_fox()
  if fox then return fox end
  fox = assert(sinew.gltf.load(FOX))
  local skel, pose = fox.skeleton, sinew.pose(fox.skeleton)
  pose:copy(fox.rest)
  tips, lengths, shortest = {}, {}, math.huge
  for i, leg in ipairs(LEGS) do
    local r, m, t = skel:find(leg[1]), skel:find(leg[2]), skel:find(leg[3])
    local ax, ay, az = model(pose, r)
    local bx, by, bz = model(pose, m)
    local cx, cy, cz = model(pose, t)
    tips[i] = t
    lengths[i] = dist(ax, ay, az, bx, by, bz) + dist(bx, by, bz, cx, cy, cz)
    shortest = math.min(shortest, lengths[i])
  end
  return fox
end

local function new_feet(ground, extra)
  local def = { skeleton = fox.skeleton, pelvis = PELVIS, up = { 0, 1, 0 }, legs = LEGS, ground = ground }
  for k, v in pairs(extra or {}) do def[k] = v end
  return ik.feet(def)
end

describe("sinew.ik.feet", function()
  setup(load_fox)

  it("is made from a definition and tells what it holds", function()
    local feet = new_feet(function() return 0 end, { max_drop = 30, normal_limit = 0.5, smoothing = 0.2 })
    local skel = fox.skeleton
    assert.equal(4, #feet)
    assert.equal(skel:find(PELVIS), feet:pelvis())
    for i, leg in ipairs(LEGS) do
      assert.same({ skel:find(leg[1]), skel:find(leg[2]), skel:find(leg[3]) }, { feet:leg(i) })
    end
    assert.same({ 0, 1, 0 }, { feet:up() })
    assert.equal(30, feet:max_drop())
    assert.equal(0.5, feet:normal_limit())
    assert.equal(0.2, feet:smoothing())
    feet:set_max_drop(math.huge)
    feet:set_normal_limit(0)
    feet:set_smoothing(0)
    assert.equal(math.huge, feet:max_drop())
    assert.equal(0, feet:normal_limit())
    assert.equal(0, feet:smoothing())
    assert.equal(skel, feet:skeleton())
    assert.equal(0, feet:offset())
    local g = function() return 1 end
    feet:set_ground(g)
    assert.equal(g, feet:ground())
    assert.truthy(tostring(feet):find("sinew.IKFeet ('b_Hip_01', 4 legs)", 1, true))
    local d = ik.feet { skeleton = skel, pelvis = PELVIS, legs = { LEGS[1] }, ground = g }
    assert.equal(math.huge, d:max_drop())
    assert.near(math.pi / 4, d:normal_limit(), 1e-15)
    assert.equal(0.1, d:smoothing())
  end)

  for _, case in ipairs {
    { "10 degrees up hill", function() return plane(10) end },
    { "20 degrees up hill", function() return plane(20) end },
    { "10 degrees down hill", function() return plane(-10) end },
    { "20 degrees down hill", function() return plane(-20) end },
    { "stairs", function() return stairs(6, 20) end },
  } do
    it("places the Fox's Walk on " .. case[1], function()
      local ground = case[2]()
      local skel, clip = fox.skeleton, fox.clips.Walk
      local feet = new_feet(ground.fn)
      local pose = sinew.pose(skel)
      local pelvis = skel:find(PELVIS)
      local on_leg = {}
      for _, leg in ipairs(LEGS) do for _, name in ipairs(leg) do on_leg[skel:find(name)] = true end end
      local last_y, worst_pelvis, worst_foot, lowest = nil, 0, 0, math.huge
      -- three seconds of Walk (over four of its cycles); one under the sanitizers and valgrind
      for f = 0, (helper.instrumented and 1 or 3) * FPS do
        pose:copy(fox.rest)
        clip:sample((f / FPS) % clip:duration(), pose)
        local before, heights = snapshot(pose), {}
        for i, t in ipairs(tips) do heights[i] = select(2, model(pose, t)) end
        feet:solve(pose, 1 / FPS)
        local after = snapshot(pose)
        for j = 1, #pose do
          -- no translation changes but the pelvis's, no scale; rotations of the legs only
          for k = 1, 3 do
            if j ~= pelvis then assert.equal(before[j][k], after[j][k]) end
          end
          for k = 8, 10 do assert.equal(before[j][k], after[j][k]) end
          if not on_leg[j] then for k = 4, 7 do assert.equal(before[j][k], after[j][k]) end end
        end
        for i, t in ipairs(tips) do
          local x, y, z = model(pose, t)
          local above = ground.above(x, y, z)
          lowest = math.min(lowest, above / lengths[i])
          -- every foot, in stance or swing, keeps its height above the flat floor over the ground
          worst_foot = math.max(worst_foot, math.abs(above - heights[i]) / lengths[i])
        end
        local _, py = model(pose, pelvis)
        if last_y then worst_pelvis = math.max(worst_pelvis, math.abs(py - last_y) / shortest) end
        last_y = py
      end
      assert.is_true(lowest >= 0, "a foot below the ground: " .. lowest)
      assert.is_true(worst_foot <= 1e-2, "a foot off its height: " .. worst_foot)
      assert.is_true(worst_pelvis <= 0.05, "the pelvis moved " .. worst_pelvis .. " leg lengths in a frame")
    end)
  end

  it("leaves every bone's frame as it is where the ground is the flat floor (no roll of the legs)", function()
    -- (the feet solver once gave the two-bone solve the knee's hinge with the wrong sign: the knee
    -- took its mirrored angle and the hip rolled a half turn back, the joints in place but the
    -- thigh and shin turned 180 degrees about themselves: a twisted mesh)
    local skel = fox.skeleton
    local feet = new_feet(function() return 0 end)
    local pose, input = sinew.pose(skel), sinew.pose(skel)
    local a, b = sinew.matrices(skel), sinew.matrices(skel)
    local worst, worst_straight, bent_legs = 0, 0, 0
    for frame = 0, 20 do
      input:copy(fox.rest)
      fox.clips.Walk:sample(frame / FPS, input)
      pose:copy(input)
      feet:solve(pose, 1 / FPS)
      input:to_model(a)
      pose:to_model(b)
      for _, leg in ipairs(LEGS) do
        local w = 0
        for k = 1, 3 do
          local m, n = { a:get(skel:find(leg[k])) }, { b:get(skel:find(leg[k])) }
          for c = 1, 12 do
            local col = 4 * math.floor((c - 1) / 4)
            local s = math.sqrt(m[col + 1] ^ 2 + m[col + 2] ^ 2 + m[col + 3] ^ 2)
            if c % 4 ~= 0 then w = math.max(w, math.abs(m[c] - n[c]) / s) end
          end
        end
        -- the knee's bend in the input: a knee bent by less than 5 degrees has no hinge of its own
        -- (the solver keeps the last), so its plane, and the leg's roll, may move a little
        local ax, ay, az = model(input, skel:find(leg[1]))
        local bx, by, bz = model(input, skel:find(leg[2]))
        local cx, cy, cz = model(input, skel:find(leg[3]))
        local u, v = { bx - ax, by - ay, bz - az }, { cx - bx, cy - by, cz - bz }
        local cos = (u[1] * v[1] + u[2] * v[2] + u[3] * v[3]) / math.sqrt((u[1] ^ 2 + u[2] ^ 2 + u[3] ^ 2)
          * (v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2))
        if cos < math.cos(math.rad(5)) then
          worst, bent_legs = math.max(worst, w), bent_legs + 1
        else
          worst_straight = math.max(worst_straight, w)
        end
      end
    end
    assert.is_true(bent_legs >= 70, bent_legs .. " bent legs")
    assert.is_true(worst < 1e-5, "a bent leg's axes turned by " .. worst)
    assert.is_true(worst_straight < 0.1, "a straight leg's axes turned by " .. worst_straight)
  end)

  it("keeps the knees on their side", function()
    local ground = plane(20)
    local skel = fox.skeleton
    local pose = sinew.pose(skel)
    local function sides()
      local out = {}
      for i, leg in ipairs(LEGS) do
        local ax, ay, az = model(pose, skel:find(leg[1]))
        local bx, by, bz = model(pose, skel:find(leg[2]))
        local cx, cy, cz = model(pose, skel:find(leg[3]))
        -- the knee's offset from the hip-foot line
        local ux, uy, uz = cx - ax, cy - ay, cz - az
        local k = ((bx - ax) * ux + (by - ay) * uy + (bz - az) * uz) / (ux * ux + uy * uy + uz * uz)
        out[i] = { bx - ax - k * ux, by - ay - k * uy, bz - az - k * uz }
      end
      return out
    end
    local checked = 0
    for f = 0, 20 do
      local feet = new_feet(ground.fn)
      pose:copy(fox.rest)
      fox.clips.Walk:sample(f / FPS, pose)
      local was = sides()
      feet:solve(pose, 0)
      for i, now in ipairs(sides()) do
        local w = was[i]
        -- a knee bent in the input (by 5% of its leg or more) stays on its side
        if math.sqrt(w[1] ^ 2 + w[2] ^ 2 + w[3] ^ 2) >= 0.05 * lengths[i] then
          checked = checked + 1
          assert.is_true(w[1] * now[1] + w[2] * now[2] + w[3] * now[3] > 0, ("leg %d knee flipped at frame %d"):format(i, f))
        end
      end
    end
    assert.is_true(checked >= 40)
  end)

  it("turns each foot to the ground's normal within the limit", function()
    local skel = fox.skeleton
    for _, limit in ipairs { math.rad(30), math.rad(8) } do
      local ground = plane(20)
      local feet = new_feet(ground.fn, { normal_limit = limit, smoothing = 0 })
      local pose = sinew.pose(skel)
      pose:copy(fox.rest)
      local q0 = {}
      for i, t in ipairs(tips) do q0[i] = { select(4, model(pose, t)) } end
      local _, flags = feet:solve(pose, 1 / FPS)
      assert.equal(limit < math.rad(20), ik.has(flags, ik.LIMITED))
      local turn = math.min(limit, math.rad(20))
      for i, t in ipairs(tips) do
        local qx, qy, qz, qw = select(4, model(pose, t))
        local a = q0[i]
        -- the turn from the input's foot: q1 q0^-1, applied to up
        local rx, ry, rz, rw = quat.mul(qx, qy, qz, qw, -a[1], -a[2], -a[3], a[4])
        local ux, uy, uz = quat.rotate(rx, ry, rz, rw, 0, 1, 0)
        assert.near(math.cos(turn), uy, 1e-5)
        assert.near(-math.sin(turn), uz, 1e-5) -- toward the normal (0, cos, -sin)
        assert.near(0, ux, 1e-5)
      end
    end
  end)

  it("drops the pelvis at once on the first solve, smooths later changes exactly for any step, and respects max_drop", function()
    local skel = fox.skeleton
    local level = -5
    local function ground() return level end
    -- the hind legs (bent: their reach never holds the pelvis here)
    local hind = { legs = { LEGS[3], LEGS[4] }, smoothing = 0.2 }
    local a, b = new_feet(ground, hind), new_feet(ground, hind)
    local pose = sinew.pose(skel)
    local function solve(feet, dt)
      pose:copy(fox.rest)
      feet:solve(pose, dt)
      return feet:offset()
    end
    assert.near(-5, solve(a, 1 / FPS), 1e-9)
    assert.near(-5, solve(b, 1 / FPS), 1e-9)
    level = -6.5
    solve(a, 0.1)
    solve(a, 0.1)
    local two = a:offset()
    local one = solve(b, 0.2)
    assert.near(one, two, 1e-9)
    assert.is_true(one < -5 and one > -6.5)
    -- the critically damped answer from rest: x(t) = target + y0 (1 + w t) e^(-w t), w = 2 / 0.2
    local w = 10
    assert.near(-6.5 + 1.5 * (1 + w * 0.2) * math.exp(-w * 0.2), one, 1e-9)
    -- a raised ground lets the pelvis rise slowly; reset starts at the target again
    level = 0
    local before = solve(a, 1 / FPS)
    assert.is_true(before < -1)
    a:reset()
    assert.near(0, solve(a, 1 / FPS), 1e-9)
    local limited = new_feet(function() return -40 end, { max_drop = 3 })
    pose:copy(fox.rest)
    local _, flags = limited:solve(pose, 1 / FPS)
    assert.near(-3, limited:offset(), 1e-9)
    assert.is_true(ik.has(flags, ik.LIMITED))
  end)

  it("leaves the pose bit for bit at weight 0 and goes part way in between", function()
    local skel = fox.skeleton
    local ground = plane(15)
    local pose = sinew.pose(skel)
    pose:copy(fox.rest)
    local before = snapshot(pose)
    new_feet(ground.fn):solve(pose, 1 / FPS, 0)
    assert.same(before, snapshot(pose))
    local full, half = sinew.pose(skel), sinew.pose(skel)
    full:copy(fox.rest)
    half:copy(fox.rest)
    new_feet(ground.fn):solve(full, 1 / FPS, 1)
    new_feet(ground.fn):solve(half, 1 / FPS, 0.5)
    local p = skel:find(PELVIS)
    local y0, y1, yh = before[p][2], select(2, full:get(p)), select(2, half:get(p))
    assert.near((y0 + y1) / 2, yh, 1e-4)
  end)

  it("gives its state and takes it back: the solves go on bit for bit", function()
    local skel = fox.skeleton
    local ground = plane(-10)
    local a = new_feet(ground.fn)
    local pose = sinew.pose(skel)
    local walk = fox.clips.Walk
    local function step(feet, frame)
      pose:copy(fox.rest)
      walk:sample((frame / FPS) % walk:duration(), pose)
      feet:solve(pose, 1 / FPS)
      return snapshot(pose)
    end
    assert.same({ 0, 0, 0, 0 }, { unpack(a:state(), 1, 4) }) -- (before any solve)
    for frame = 1, 12 do step(a, frame) end
    local st = a:state()
    assert.equal(4 + 9 * #LEGS, #st)
    assert.equal(1, st[1])
    local into = {}
    assert.equal(into, a:state(into))
    assert.same(st, into)
    local b = new_feet(ground.fn)
    b:set_state(st)
    for frame = 13, 24 do assert.same(step(a, frame), step(b, frame), frame) end
    -- refused states change nothing
    local before = b:state()
    local function refused(edit, pattern)
      local t = b:state()
      edit(t)
      local err = helper.error_of(function() b:set_state(t) end)
      assert.matches(pattern, err, 1, true)
      assert.same(before, b:state())
    end
    refused(function(t) t[1] = 2 end, "bad argument #1 to 'set_state' (state number 1 (started) must be 0 or 1)")
    refused(function(t) t[2] = 1 / 0 end, "(state number 2 is not finite)")
    refused(function(t) t[#t + 1] = 0 end, ("(a list of %d numbers expected, got %d)"):format(#st, #st + 1))
    refused(function(t) t[3] = "x" end, "(element 3 is not a number (got string))")
    refused(function(t) t[11], t[12], t[13] = 0, 0, 0 end, "(state of leg 1: its knee hinge is not a unit vector (length 0))")
    -- not from its own ground callback
    local c
    c = new_feet(function()
      c:set_state(c:state())
      return 0
    end)
    pose:copy(fox.rest)
    assert.matches("set_state called from its own ground callback", helper.error_of(c.solve, c, pose, 0.1))
  end)

  describe("refuses", function()
    local function def(over)
      local d = { skeleton = fox.skeleton, pelvis = PELVIS, legs = { LEGS[1], LEGS[3] }, ground = function() return 0 end }
      for k, v in pairs(over) do d[k] = v end
      return d
    end
    for _, case in ipairs {
      { "unknown field", { leg = 1 }, "unknown field 'leg' in the foot-placement definition" },
      { "no skeleton", { skeleton = false }, "'skeleton' must be a sinew.Skeleton (got boolean)" },
      { "no ground", { ground = 3 }, "'ground' must be a function (got number)" },
      { "no pelvis", { pelvis = false }, "pelvis must be a joint index or name (got boolean)" },
      { "unknown pelvis", { pelvis = "hips" }, "pelvis: unknown joint 'hips'" },
      { "pelvis out of range", { pelvis = 99 }, "pelvis joint 99 is out of range (1 .. 24)" },
      { "legs not a table", { legs = "x" }, "'legs' must be a table of 1 to 8 legs (got string)" },
      { "no legs", { legs = {} }, "'legs' must be a table of 1 to 8 legs (got a table of another length)" },
      { "nine legs", { legs = { 1, 2, 3, 4, 5, 6, 7, 8, 9 } }, "'legs' must be a table of 1 to 8 legs" },
      { "a leg of 2", { legs = { { "b_LeftLeg01_015", "b_LeftLeg02_016" } } }, "legs[1] must be a table of 3 joints" },
      { "unknown joint", { legs = { LEGS[1], { "a", "b", "c" } } }, "legs[2][1]: unknown joint 'a'" },
      { "not a chain", { legs = { { "b_LeftLeg01_015", "b_LeftFoot01_017", "b_LeftLeg02_016" } } },
        "legs[1]: joints do not form a chain: mid 'b_LeftFoot01_017' is not a child of root 'b_LeftLeg01_015'" },
      { "not under the pelvis", { pelvis = "b_Tail01_012" },
        "legs[1]: root 'b_LeftUpperArm_09' is not below the pelvis 'b_Tail01_012'" },
      { "shared joints", { legs = { LEGS[3], LEGS[3] } }, "legs[1] and legs[2] share the joint 'b_LeftLeg01_015'" },
      { "zero up", { up = { 0, 0, 0 } }, "'up' is a zero vector" },
      { "NaN up", { up = { 0, 0 / 0, 0 } }, "element 2 of 'up'" },
      { "zero mid_axis", { legs = { { "b_LeftLeg01_015", "b_LeftLeg02_016", "b_LeftFoot01_017", mid_axis = { 0, 0, 0 } } } },
        "'legs[1].mid_axis' is a zero vector" },
      { "negative max_drop", { max_drop = -1 }, "'max_drop' -1 is out of range (0 .. inf)" },
      { "NaN max_drop", { max_drop = 0 / 0 }, "'max_drop' is not a number" },
      { "normal_limit", { normal_limit = 2 }, "'normal_limit' 2 is out of range (0 .. 1.39626)" },
      { "smoothing", { smoothing = math.huge }, "'smoothing' is not finite" },
      { "smoothing type", { smoothing = "x" }, "'smoothing' must be a number (got string)" },
    } do
      it(case[1], function()
        local msg = helper.error_of(ik.feet, def(case[2]))
        assert.truthy(msg and msg:find(case[3], 1, true), ("%s: got %s"):format(case[1], tostring(msg)))
      end)
    end

    it("bad solve arguments and bad ground answers, writing nothing and keeping the state", function()
      local skel = fox.skeleton
      local answer
      local feet = new_feet(function(x) return answer(x) end)
      local pose = sinew.pose(skel)
      pose:copy(fox.rest)
      answer = function() return -2 end
      feet:solve(pose, 1 / FPS)
      local offset = feet:offset()
      pose:copy(fox.rest)
      local before = snapshot(pose)
      for _, case in ipairs {
        { "raises", function() error("boom") end, "ground callback for leg 1 failed: " },
        { "raises a table", function() error({}) end, "ground callback for leg 1 failed (error object is a table value)" },
        { "NaN", function() return 0 / 0 end, "ground callback for leg 1 returned a height that is not finite" },
        { "nothing", function() end, "ground callback for leg 1 returned nil for the height (number expected)" },
        { "a string", function() return "1" end, "ground callback for leg 1 returned string for the height" },
        { "huge", function() return 1e13 end, "ground height of leg 1 1e+13 is out of range (-1e+12 .. 1e+12)" },
        { "half a normal", function() return 0, 0, 1 end, "ground callback for leg 1 returned nil for normal z" },
        { "NaN normal", function() return 0, 0, 0 / 0, 1 end, "ground callback for leg 1 returned a normal that is not finite" },
        { "re-entry", function() feet:solve(pose, 0) return 0 end, "solve called from its own ground callback" },
        { "late fault", function(x) if x < 0 then return 0 / 0 end return 0 end, "for leg 2 returned a height" },
        -- (a reset from the callback is the caller's: the state is then the reset one)
        { "reset", function() feet:reset() return 0 end, "pose was not prepared for this solve", 0 },
      } do
        answer = case[2]
        local msg = helper.error_of(feet.solve, feet, pose, 1 / FPS)
        assert.truthy(msg and msg:find(case[3], 1, true), ("%s: got %s"):format(case[1], tostring(msg)))
        assert.same(before, snapshot(pose))
        assert.equal(case[4] or offset, feet:offset())
      end
      answer = function() return 0 end
      for _, case in ipairs {
        { { pose, -1 }, "dt -1 is out of range (0 .. inf)" },
        { { pose, 0 / 0 }, "dt is not finite" },
        { { pose, 0, 2 }, "weight 2 is out of range (0 .. 1)" },
        { { pose, "x" }, "number expected, got string" },
        { { "pose", 0 }, "sinew.Pose expected, got string" },
        { { sinew.pose(sinew.skeleton { names = { "a" }, parents = { 0 } }), 0 }, "pose of another skeleton" },
      } do
        local msg = helper.error_of(feet.solve, feet, unpack(case[1]))
        assert.truthy(msg and msg:find(case[2], 1, true), ("got %s"):format(tostring(msg)))
        assert.same(before, snapshot(pose))
      end
      local msg = helper.error_of(feet.solve, pose, pose, 0)
      assert.truthy(msg:find("sinew.IKFeet expected, got sinew.Pose", 1, true))
      -- a pose that places a leg out of range
      local bad = sinew.pose(skel)
      bad:copy(fox.rest)
      bad:set(skel:find("b_LeftLeg02_016"), 1e30, 0, 0, 0, 0, 0, 1, 1, 1, 1)
      local was = snapshot(bad)
      msg = helper.error_of(feet.solve, feet, bad, 0)
      assert.truthy(msg and msg:find("of the pose is placed out of range", 1, true), msg)
      assert.same(was, snapshot(bad))
    end)

    it("a ground callback that yields, with an error (in a child process)", function()
      local dir = helper.tmpdir()
      local script = dir .. "/yield.lua"
      helper.write_file(script, ([[
local sinew = require "sinew"
local fox = assert(sinew.gltf.load(%q))
local feet = sinew.ik.feet { skeleton = fox.skeleton, pelvis = "b_Hip_01",
  legs = { { "b_LeftLeg01_015", "b_LeftLeg02_016", "b_LeftFoot01_017" } },
  ground = function() coroutine.yield(1) return 0 end }
local pose = sinew.pose(fox.skeleton)
pose:copy(fox.rest)
local co = coroutine.create(function() return feet:solve(pose, 0.1) end)
print(coroutine.resume(co))
print(select(2, pose:get(3)) == select(2, fox.rest:get(3)))
]]):format(FOX))
      local out, status = helper.lua_child(script, 20, 512)
      os.remove(script)
      os.remove(dir)
      assert.equal(0, status, out)
      assert.truthy(out:find("^false\t"), out)
      assert.truthy(out:find("ground callback for leg 1 failed: ", 1, true), out)
      assert.truthy(out:find("yield", 1, true), out)
      assert.truthy(out:find("\ntrue\n", 1, true), out)
    end)
  end)

  if sinew.path == "ffi" then
    describe("on the FFI path", function()
      local C = require("sinew.ffi").c
      -- feet:solve(pose, dt, w) called as a method (so that messages name it) on the FFI path or,
      -- with the method swapped for the call, on the C binding: pcall's results
      local function method(c, feet, pose, dt, w)
        local methods = getmetatable(feet).__index
        local fast = methods.solve
        if c then methods.solve = C.IKFeet.solve end
        local res = { pcall(function()
          local placed, flags = feet:solve(pose, dt, w) -- (not a tail call: the message names 'solve')
          return placed, flags
        end) }
        methods.solve = fast
        return res
      end

      it("solves as the C binding does, bit for bit, and shares its state", function()
        local skel, clip = fox.skeleton, fox.clips.Walk
        -- the fast function is installed and calls the ground from Lua; inside a coroutine the
        -- C binding solves (its call into the callback refuses yields), with the same result
        local caller -- of pcall, which called the callback on the FFI path
        local probe = new_feet(function(_, _, z) caller = debug.getinfo(3, "S").source return z * 0.2 end)
        assert.are_not.equal(C.IKFeet.solve, probe.solve)
        local a, b = sinew.pose(skel), sinew.pose(skel)
        a:copy(fox.rest)
        b:copy(fox.rest)
        probe:solve(a, 0)
        assert.truthy(caller:find("sinew/ffi/ik.lua", 1, true), caller)
        probe:reset()
        coroutine.wrap(function() probe:solve(b, 0) end)()
        assert.falsy(caller:find("sinew/ffi/ik.lua", 1, true), caller)
        assert.same(snapshot(a), snapshot(b))
        local rng = helper.rng(25)
        local frames = helper.instrumented and 10 or 60
        for _, case in ipairs {
          { "10 degrees up hill", plane(10).fn }, { "20 degrees down hill", plane(-20).fn }, { "stairs", stairs(6, 20).fn },
          { "heights only", function(_, _, z) return z * 0.1 end },
          { "a zero normal", function() return -3, 0, 0, 0 end },
        } do
          for _, extra in ipairs { {}, { legs = { LEGS[3], LEGS[2] }, smoothing = 0.3, normal_limit = 0.2 }, { max_drop = 2 } } do
            local fast, slow = new_feet(case[2], extra), new_feet(case[2], extra)
            for f = 0, frames do
              local t, dt = (f / FPS) % clip:duration(), rng() < 0.2 and 0 or rng() * 0.1
              local w = rng() < 0.3 and rng() or nil
              a:copy(fox.rest)
              b:copy(fox.rest)
              clip:sample(t, a)
              clip:sample(t, b)
              local r1, f1 = fast:solve(a, dt, w)
              local r2, f2 = C.IKFeet.solve(slow, b, dt, w)
              assert.same({ r2, f2 }, { r1, f1 }, case[1])
              assert.same(snapshot(b), snapshot(a), case[1])
              assert.equal(slow:offset(), fast:offset(), case[1])
              -- one solver on both paths in turn: the state is the core's, whichever path solves
              if f % 7 == 3 then fast, slow = slow, fast end
            end
          end
        end
      end)

      -- (the messages the same to the position before them: where the solve was called)
      it("refuses as the C binding does, writing nothing, and guards re-entry across the paths", function()
        local skel = fox.skeleton
        local answer, solve_inside
        local function ground(x, y, z) return answer(x, y, z) end
        local fast, slow = new_feet(ground), new_feet(ground)
        local pose = sinew.pose(skel)
        local other = new_feet(plane(5).fn)
        local cases = {
          { "raises", function() error("boom") end },
          { "raises a table", function() error({}) end },
          { "raises a number", function() error(3) end },
          { "NaN", function() return 0 / 0 end },
          { "inf", function() return -math.huge end },
          { "nothing", function() end },
          { "a string", function() return "1" end },
          { "a boolean", function() return true end },
          { "huge", function() return 1e13 end },
          { "half a normal", function() return 0, 0, 1 end },
          { "a normal of strings", function() return 0, "0", 1, 0 end },
          { "NaN normal", function() return 0, 0, 0 / 0, 1 end },
          { "inf normal z", function() return 0, 0, 1, math.huge end },
          { "late fault", function(x) if x < 0 then return 0 / 0 end return 0 end },
          { "reset", function() solve_inside:reset() return 0 end },
          { "re-entry, same path", function() solve_inside:solve(pose, 0) return 0 end },
          { "re-entry through the C binding", function() C.IKFeet.solve(solve_inside, pose, 0) return 0 end },
          { "another solver inside", function() other:solve(pose, 0) return 0 end, true },
          -- (on the main thread: inside a coroutine the FFI path hands the solve to the C binding)
          { "a yield", function() coroutine.yield(1) return 0 end },
        }
        for _, case in ipairs(cases) do
          local got = {}
          for i, feet in ipairs { fast, slow } do
            pose:copy(fox.rest)
            answer = function() return -2 end
            method(i == 2, feet, pose, 1 / FPS)
            local offset = feet:offset()
            pose:copy(fox.rest)
            local before = snapshot(pose)
            answer, solve_inside = case[2], feet
            local ok, msg = unpack(method(i == 2, feet, pose, 1 / FPS))
            got[i] = { ok, tostring(msg) }
            if not case[3] then
              assert.is_false(ok, case[1])
              assert.same(before, snapshot(pose), case[1])
              assert.equal(case[1] == "reset" and 0 or offset, feet:offset(), case[1])
            end
          end
          assert.same(got[2], got[1], case[1])
          assert.truthy(case[3] or got[1][2]:find("ground", 1, true) or got[1][2]:find("solve", 1, true)
            or got[1][2]:find("pose", 1, true), got[1][2])
        end
        -- bad arguments (the ground is called first where the C binding calls it first)
        answer = function() return 0 end
        for _, args in ipairs { { pose, -1 }, { pose, 0 / 0 }, { pose, 0, 2 }, { pose, 0, -0.5 }, { pose, "x" }, { "pose", 0 },
          { sinew.pose(sinew.skeleton { names = { "a" }, parents = { 0 } }), 0 } } do
          local r1, r2 = method(false, fast, args[1], args[2], args[3]), method(true, slow, args[1], args[2], args[3])
          assert.is_false(r1[1])
          assert.equal(tostring(r2[2]), tostring(r1[2]))
        end
        -- a new callback is the one called
        local called = 0
        fast:set_ground(function() called = called + 1 return 0 end)
        pose:copy(fox.rest)
        fast:solve(pose, 0)
        assert.equal(4, called)
      end)
    end)
  end

  it("makes no garbage per solve", function()
    local ground = plane(10)
    local feet = new_feet(ground.fn)
    local pose = sinew.pose(fox.skeleton)
    local clip = fox.clips.Walk
    local t = 0
    local function step()
      t = (t + 1 / FPS) % clip:duration()
      clip:sample(t, pose)
      feet:solve(pose, 1 / FPS)
    end
    assert.equal(0, helper.least_garbage(step, 1000))
  end)
end)
