-- sinew.ik: the two-bone, aim and chain solvers from Lua (src/binding/ik.c, the C core in src/core/ik_*.c),
-- measured in model space by a forward kinematics in doubles (spec/support/frames.lua: pose:get and
-- sinew.quat), on the Fox and on random chains with uniform scales (where the core is exact).
local helper = require "helper"
local sinew = require "sinew"
local ik = sinew.ik
local quat = sinew.quat

local FOX = "assets/fox/glTF-Binary/Fox.glb"

local model = require("support.frames").model

local function pos(pose, j) local x, y, z = model(pose, j) return { x, y, z } end
local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
local function len(a) return math.sqrt(dot(a, a)) end
local function cross(a, b) return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] } end
local function scale(a, k) return { a[1] * k, a[2] * k, a[3] * k } end
local function add(a, b) return { a[1] + b[1], a[2] + b[2], a[3] + b[3] } end
local function angle(a, b) return math.atan2(len(cross(a, b)), dot(a, b)) end

-- every value of every joint of `pose`, for bit-for-bit comparisons
local snapshot = helper.pose_values

-- a random unit vector
local function unit(rng)
  local z, a = rng(-1, 1), rng(0, 2 * math.pi)
  local r = math.sqrt(1 - z * z)
  return { r * math.cos(a), r * math.sin(a), z }
end

-- A random chain of 5 joints: two ancestors, then root (3), mid (4) and tip (5), each with a
-- random translation (length 0.2 .. 2), rotation and uniform scale (0.5 .. 2); and a sibling of
-- the mid (6), so that the chain is not the whole skeleton.
local function random_chain(rng)
  local rest = {}
  for j = 1, 6 do
    local d, x, y, z, w = unit(rng), helper.random_quat(rng)
    local l, s = rng(0.2, 2), rng(0.5, 2)
    rest[j] = { d[1] * l, d[2] * l, d[3] * l, x, y, z, w, s, s, s }
  end
  return sinew.skeleton { names = { "a", "b", "root", "mid", "tip", "other" }, parents = { 0, 1, 2, 3, 4, 3 },
    rest = rest }
end

-- a hinge across both bones at the mid joint (so that the chain straightens fully): the normal of
-- the root and tip directions seen from the mid joint, in its frame
local function cross_hinge(pose)
  local tx, ty, tz, rx, ry, rz, rw = pose:get(4)
  local back = { quat.rotate(rx, ry, rz, -rw, -tx, -ty, -tz) } -- the root, in the mid frame
  local tip = { pose:get(5) }
  local n = cross(back, tip)
  return scale(n, 1 / len(n))
end

describe("sinew.ik", function()
  it("exports the solvers and the flags", function()
    assert.equal("function", type(ik.two_bone))
    assert.equal("function", type(ik.aim))
    assert.equal("function", type(ik.chain))
    local bits = { REACHED = 1, DEGENERATE = 2, TARGET_AT_ROOT = 4, POLE_ON_LINE = 8, HINGE_ON_BONE = 16,
      SOFTENED = 32, UNREACHABLE = 64, LIMITED = 128 }
    for name, v in pairs(bits) do assert.equal(v, ik[name], name) end
    assert.is_true(ik.has(1 + 32, ik.SOFTENED))
    assert.is_false(ik.has(1 + 32, ik.UNREACHABLE))
  end)

  describe("two_bone()", function()
    it("reaches reachable targets on random chains, the knee on the pole's side", function()
      local rng = helper.rng(2511)
      local cases, worst, worst_side = 0, 0, 0
      for _ = 1, 300 do
        local skel = random_chain(rng)
        local pose = sinew.pose(skel)
        local leg = ik.two_bone { skeleton = skel, joints = { "root", "mid", "tip" }, mid_axis = cross_hinge(pose) }
        local root, mid, tip = pos(pose, 3), pos(pose, 4), pos(pose, 5)
        local a, b = len(sub(mid, root)), len(sub(tip, mid))
        local d = rng(math.abs(a - b) + 0.05 * (a + b), 0.95 * (a + b))
        local target = add(root, scale(unit(rng), d))
        local pole = add(root, scale(unit(rng), rng(0.5, 3) * (a + b)))
        local reached, flags = leg:solve(pose, target[1], target[2], target[3], pole[1], pole[2], pole[3])
        assert.is_true(reached, flags)
        assert.is_true(ik.has(flags, ik.REACHED))
        local err = len(sub(pos(pose, 5), target)) / (a + b)
        worst = math.max(worst, err)
        -- bone lengths unchanged
        local m2, t2 = pos(pose, 4), pos(pose, 5)
        assert.is_true(helper.near_abs(len(sub(m2, root)), a, 1e-5 * (a + b)))
        assert.is_true(helper.near_abs(len(sub(t2, m2)), b, 1e-5 * (a + b)))
        -- the mid joint in the plane of root, target and pole, on the pole's side
        local axis = scale(sub(target, root), 1 / d)
        local function off_line(p)
          local v = sub(p, root)
          return sub(v, scale(axis, dot(v, axis)))
        end
        local km, kp = off_line(m2), off_line(pole)
        if len(km) > 1e-3 * (a + b) and len(kp) > 1e-3 * (a + b) then
          cases = cases + 1
          worst_side = math.max(worst_side, angle(km, kp))
        end
      end
      assert.is_true(worst <= 1e-5, "tip error " .. worst .. " of the chain length")
      assert.is_true(cases > 250, cases)
      assert.is_true(worst_side <= 1e-4, "knee off the pole's half-plane by " .. worst_side .. " rad")
    end)

    it("lies straight toward an unreachable target and returns false", function()
      local rng = helper.rng(77)
      for _ = 1, 100 do
        local skel = random_chain(rng)
        local pose = sinew.pose(skel)
        local leg = ik.two_bone { skeleton = skel, joints = { 3, 4, 5 }, mid_axis = cross_hinge(pose) }
        local root = pos(pose, 3)
        local a, b = len(sub(pos(pose, 4), root)), len(sub(pos(pose, 5), pos(pose, 4)))
        local dir = unit(rng)
        local target = add(root, scale(dir, rng(1.2, 5) * (a + b)))
        local reached, flags = leg:solve(pose, target[1], target[2], target[3], root[1] + 1, root[2] + 2, root[3] + 3)
        assert.is_false(reached)
        assert.is_true(ik.has(flags, ik.UNREACHABLE))
        local mid, tip = sub(pos(pose, 4), root), sub(pos(pose, 5), root)
        assert.is_true(angle(tip, dir) <= 1e-5, angle(tip, dir))
        assert.is_true(angle(mid, dir) <= 1e-5, angle(mid, dir))
        assert.is_true(helper.near_abs(len(tip), a + b, 1e-5 * (a + b)))
      end
    end)

    it("leaves the pose bit for bit with weight 0, and blends with a weight in between", function()
      local rng = helper.rng(5)
      local skel = random_chain(rng)
      local pose = sinew.pose(skel)
      local leg = ik.two_bone { skeleton = skel, joints = { "root", "mid", "tip" }, mid_axis = cross_hinge(pose) }
      local before = snapshot(pose)
      local reached, flags = leg:solve(pose, 0.3, 0.2, 0.1, 5, 5, 5, 0)
      assert.is_false(reached)
      assert.equal("number", type(flags))
      assert.same(before, snapshot(pose))
      leg:solve(pose, 0.3, 0.2, 0.1, 5, 5, 5, 0.5)
      assert.are_not.same(before, snapshot(pose))
      assert.same(before[1], snapshot(pose)[1]) -- ancestors untouched
      assert.same(before[5], snapshot(pose)[5]) -- so is the tip
      assert.same(before[6], snapshot(pose)[6])
    end)

    it("solves the Fox's legs", function()
      local fox = assert(sinew.gltf.load(FOX))
      local skel = fox.skeleton
      for _, side in ipairs { { "b_LeftLeg01_015", "b_LeftLeg02_016", "b_LeftFoot01_017" },
        { "b_RightLeg01_019", "b_RightLeg02_020", "b_RightFoot01_021" },
        { "b_LeftUpperArm_09", "b_LeftForeArm_010", "b_LeftHand_011" } } do
        local pose = sinew.pose(skel)
        pose:copy(fox.rest)
        local leg = ik.two_bone { skeleton = skel, joints = side, soften = 1, twist = 0 }
        local r, m, t = skel:find(side[1]), skel:find(side[2]), skel:find(side[3])
        assert.same({ r, m, t }, { leg:joints() })
        assert.equal(skel, leg:skeleton())
        local root, mid, tip = pos(pose, r), pos(pose, m), pos(pose, t)
        local length = len(sub(mid, root)) + len(sub(tip, mid))
        -- lift the foot by a fifth of the leg and move it forward a little: a bent knee
        local target = add(tip, { 0, 0.2 * length, 0.1 * length })
        local pole = add(mid, { 0, 0, length })
        local reached = leg:solve(pose, target[1], target[2], target[3], pole[1], pole[2], pole[3])
        assert.is_true(reached)
        assert.is_true(len(sub(pos(pose, t), target)) <= 1e-5 * length)
        -- the foot's own children follow; a target beyond the leg is not reached
        local far = add(root, { 0, -3 * length, 0 })
        assert.is_false((leg:solve(pose, far[1], far[2], far[3], pole[1], pole[2], pole[3])))
        assert.is_true(angle(sub(pos(pose, t), root), sub(far, root)) <= 1e-4)
      end
    end)

    it("softens near full reach and gets and sets soften and twist", function()
      local fox = assert(sinew.gltf.load(FOX))
      local leg = ik.two_bone { skeleton = fox.skeleton, joints = { 17, 18, 19 }, soften = 0.8, twist = 0.25 }
      assert.equal(0.8, leg:soften())
      assert.equal(0.25, leg:twist())
      leg:set_soften(0.9)
      leg:set_twist(-1)
      assert.equal(0.9, leg:soften())
      assert.equal(-1, leg:twist())
      local pose = sinew.pose(fox.skeleton)
      pose:copy(fox.rest)
      local root, tip = pos(pose, 17), pos(pose, 19)
      local length = len(sub(pos(pose, 18), root)) + len(sub(tip, pos(pose, 18)))
      local target = add(root, scale(sub(tip, root), 0.99 * length / len(sub(tip, root))))
      local reached, flags = leg:solve(pose, target[1], target[2], target[3], 0, 0, 1000)
      assert.is_false(reached)
      assert.is_true(ik.has(flags, ik.SOFTENED), flags)
      assert.is_true(len(sub(pos(pose, 19), root)) < 0.99 * length)
      assert.matches("sinew.IKTwoBone %('b_LeftLeg01_015', 'b_LeftLeg02_016', 'b_LeftFoot01_017'%)", tostring(leg))
    end)
  end)

  describe("aim()", function()
    it("points forward through the offset at the target, on random chains", function()
      local rng = helper.rng(4242)
      local worst, n = 0, 0
      for _ = 1, 300 do
        local skel = random_chain(rng)
        local pose = sinew.pose(skel)
        local fwd, up = unit(rng), unit(rng)
        local offset = scale(unit(rng), rng(0, 0.3))
        local head = ik.aim { skeleton = skel, joint = "mid", forward = fwd, up = up, offset = offset }
        local p = pos(pose, 4)
        local target = add(p, scale(unit(rng), rng(2, 10)))
        local reached, flags
        if rng() < 0.5 then
          reached, flags = head:solve(pose, target[1], target[2], target[3])
        else
          local u = unit(rng)
          reached, flags = head:solve(pose, target[1], target[2], target[3], 1, u[1], u[2], u[3])
        end
        if not ik.has(flags, ik.DEGENERATE) then
          n = n + 1
          assert.is_true(reached, flags)
          local px, py, pz, qx, qy, qz, qw, s = model(pose, 4)
          local o = { px, py, pz }
          o = add(o, { quat.rotate(qx, qy, qz, qw, s * offset[1], s * offset[2], s * offset[3]) })
          local f = { quat.rotate(qx, qy, qz, qw, fwd[1], fwd[2], fwd[3]) }
          worst = math.max(worst, angle(f, sub(target, o)))
        end
      end
      assert.is_true(n > 250, n)
      assert.is_true(worst <= 1e-5, "forward off the target by " .. worst .. " rad")
    end)

    it("turns the Fox's head within its limit, and weight 0 changes nothing", function()
      local fox = assert(sinew.gltf.load(FOX))
      local head = ik.aim { skeleton = fox.skeleton, joint = "b_Head_05", forward = { 0, 0, 1 }, up = { 0, 1, 0 },
        offset = { 0, 0.1, 0 }, limit = math.rad(80) }
      assert.equal(math.rad(80), head:limit())
      assert.equal(fox.skeleton:find("b_Head_05"), head:joint())
      local pose = sinew.pose(fox.skeleton)
      pose:copy(fox.rest)
      local before = snapshot(pose)
      assert.is_false((head:solve(pose, 0, 100, 100, 0)))
      assert.same(before, snapshot(pose))
      -- behind the head: held back by the limit, never more than 80 degrees from the input
      local j = head:joint()
      local _, _, _, qx, qy, qz, qw = model(pose, j)
      local f0 = { quat.rotate(qx, qy, qz, qw, 0, 0, 1) }
      local p = pos(pose, j)
      for k = 0, 35 do
        pose:copy(fox.rest)
        local a = k * math.pi / 18
        local target = add(p, { 100 * math.sin(a), 0, 100 * math.cos(a) })
        local _, flags = head:solve(pose, target[1], target[2], target[3])
        local _, _, _, x, y, z, w = model(pose, j)
        local f = { quat.rotate(x, y, z, w, 0, 0, 1) }
        assert.is_true(angle(f, f0) <= math.rad(80) + 1e-5, k)
        assert.is_true(ik.has(flags, ik.REACHED) or ik.has(flags, ik.LIMITED) or ik.has(flags, ik.DEGENERATE), k)
      end
      head:set_limit(math.pi)
      head:set_twist(0.5)
      assert.equal(math.pi, head:limit())
      assert.equal(0.5, head:twist())
      assert.matches("sinew.IKAim %('b_Head_05'%)", tostring(head))
    end)

    it("takes any finite non-zero axes, denormal ones too, as their directions", function()
      local fox = assert(sinew.gltf.load(FOX))
      local function solved(forward, up)
        local head = ik.aim { skeleton = fox.skeleton, joint = "b_Head_05", forward = forward, up = up }
        local pose = sinew.pose(fox.skeleton)
        pose:copy(fox.rest)
        head:solve(pose, 10, 60, 90)
        return snapshot(pose)
      end
      assert.same(solved({ 1, 0, 0 }, { 0, 1, 0 }), solved({ 1e-310, 0, 0 }, { 0, 1, 0 }))
      assert.same(solved({ 0, 0, 1 }, { 0, 1, 0 }), solved({ 0, 0, 4e-320 }, { 0, 5e-324, 0 }))
    end)

    it("turns an ancestor so that its effector looks at the target", function()
      local fox = assert(sinew.gltf.load(FOX))
      local skel = fox.skeleton
      local hj = skel:find("b_Head_05")
      local neck = ik.aim { skeleton = skel, joint = "b_Neck_04", effector = "b_Head_05", forward = { 0, 1, 0 },
        up = { 0, 0, 1 }, offset = { 0, 5, 0 } }
      assert.equal(hj, neck:effector())
      assert.equal(skel:find("b_Neck_04"), neck:joint())
      assert.equal(hj, ik.aim { skeleton = skel, joint = hj }:effector())
      local pose = sinew.pose(skel)
      pose:copy(fox.rest)
      local before = snapshot(pose)
      local target = { 60, 120, 80 }
      assert.is_true((neck:solve(pose, target[1], target[2], target[3])))
      local after = snapshot(pose)
      for j = 1, #skel do
        if j ~= neck:joint() then assert.same(before[j], after[j]) end -- only the neck turned
      end
      local px, py, pz, qx, qy, qz, qw, sc = model(pose, hj)
      local eye = add({ px, py, pz }, { quat.rotate(qx, qy, qz, qw, 0, 5 * sc, 0) })
      local f = { quat.rotate(qx, qy, qz, qw, 0, 1, 0) }
      assert.is_true(angle(f, sub(target, eye)) <= 1e-5)
      assert.error_matches(function() ik.aim { skeleton = skel, joint = hj, effector = "b_Neck_04" } end,
        "effector 6 is not a descendant of joint 7")
      assert.error_matches(function() ik.aim { skeleton = skel, joint = hj, effector = "nope" } end, "unknown joint 'nope'")
    end)

    it("spreads one aim over the spine, neck and head with weights", function()
      local fox = assert(sinew.gltf.load(FOX))
      local skel = fox.skeleton
      local joints = { "b_Spine02_03", "b_Neck_04", "b_Head_05" }
      local look = ik.spread { skeleton = skel, joints = joints, weights = { 0.25, 0.5, 1 }, forward = { 0, 1, 0 },
        up = { 0, 0, 1 }, limit = { 0.5, 0.8, 1.2 } }
      assert.equal("spread", ik.kind(look))
      assert.same({ skel:find(joints[1]), skel:find(joints[2]), skel:find(joints[3]) }, { look:joints() })
      assert.equal(skel, look:skeleton())
      assert.matches("sinew.IKSpread %(3 joints%)", tostring(look))
      local pose, by_hand = sinew.pose(skel), sinew.pose(skel)
      pose:copy(fox.rest)
      by_hand:copy(fox.rest)
      local hj = skel:find("b_Head_05")
      local p = pos(pose, hj)
      local target = add(p, { 80, 30, 60 })
      local reached = look:solve(pose, target[1], target[2], target[3])
      assert.is_true(reached)
      local _, _, _, qx, qy, qz, qw = model(pose, hj)
      assert.is_true(angle({ quat.rotate(qx, qy, qz, qw, 0, 1, 0) }, sub(target, pos(pose, hj))) <= 1e-5)
      -- the same as three aims by hand, bit for bit; each joint took part of the turn
      for k, w in ipairs { 0.25, 0.5, 1 } do
        ik.aim { skeleton = skel, joint = joints[k], effector = "b_Head_05", forward = { 0, 1, 0 }, up = { 0, 0, 1 },
          limit = ({ 0.5, 0.8, 1.2 })[k] }:solve(by_hand, target[1], target[2], target[3], w)
      end
      assert.same(snapshot(by_hand), snapshot(pose))
      local rest = snapshot(sinew.pose(skel):copy(fox.rest))
      for _, name in ipairs(joints) do
        assert.are_not.same(rest[skel:find(name)], snapshot(pose)[skel:find(name)])
      end
      -- weight 0 changes nothing; an even spread by default
      local still = snapshot(by_hand)
      look:solve(by_hand, 0, 0, 500, 0)
      assert.same(still, snapshot(by_hand))
      assert.is_truthy(ik.spread { skeleton = skel, joints = joints })
      local function fails(def, pattern)
        local ok, err = pcall(ik.spread, def)
        assert.is_false(ok)
        assert.matches(pattern, err, 1, true)
      end
      fails(nil, "bad argument #1 to 'spread' (table expected, got nil)")
      fails({ skeleton = skel, joints = { "b_Head_05" } }, "'joints' must be a list of 2 .. 32 joints")
      fails({ skeleton = skel, joints = joints, weights = { 1, 1 } }, "'weights' must be a list of 3 numbers")
      fails({ skeleton = skel, joints = joints, weights = { 1, 2, 1 } }, "weight 2 must be a number in [0, 1]")
      fails({ skeleton = skel, joints = joints, limit = { 1 } }, "'limit' must be a number or a list of 3 numbers")
      fails({ skeleton = skel, joints = { "b_Head_05", "b_Neck_04" } }, "joint 1: effector 6 is not a descendant of joint 7")
      fails({ skeleton = skel, joints = joints, speed = 1 }, "unknown field 'speed'")
      fails({ skeleton = skel, joints = { "b_Spine02_03", "nope" } }, "joint 1: effector: unknown joint 'nope'")
      assert.error_matches(function() look.solve({}, pose, 1, 2, 3) end, "sinew.IKSpread expected, got table")
      assert.error_matches(function() look:solve(pose, 1, 0 / 0, 3) end, "not finite")
    end)
  end)

  describe("bad input", function()
    local skel = sinew.skeleton { names = { "hip", "thigh", "shin", "foot", "toe" }, parents = { 0, 1, 2, 3, 1 } }
    local other = sinew.skeleton { names = { "a" }, parents = { 0 } }
    local J = { "thigh", "shin", "foot" }

    it("refuses bad definitions with exact messages", function()
      local cases = {
        { ik.two_bone, nil, "table expected, got nil" },
        { ik.two_bone, { joints = J }, "'skeleton' must be a sinew.Skeleton (got nil)" },
        { ik.two_bone, { skeleton = {}, joints = J }, "'skeleton' must be a sinew.Skeleton (got table)" },
        { ik.two_bone, { skeleton = skel, joints = J, knee = 1 }, "unknown field 'knee' in the two-bone definition" },
        { ik.two_bone, { skeleton = skel }, "'joints' must be a table of 3 joints (got nil)" },
        { ik.two_bone, { skeleton = skel, joints = { "thigh", "shin" } },
          "'joints' must be a table of 3 joints (got a table of another length)" },
        { ik.two_bone, { skeleton = skel, joints = { "thigh", "knee", "foot" } }, "joints[2]: unknown joint 'knee'" },
        { ik.two_bone, { skeleton = skel, joints = { "thigh", {}, "foot" } },
          "joints[2] must be a joint index or name (got table)" },
        { ik.two_bone, { skeleton = skel, joints = { 2, 3.5, 4 } }, "'joints[2]' must be an integer (got 3.5)" },
        { ik.two_bone, { skeleton = skel, joints = { 2, 3, 9 } }, "tip joint 9 is out of range (1 .. 5)" },
        { ik.two_bone, { skeleton = skel, joints = { 2, 3, 0 / 0 } }, "'joints[3]' must be an integer (got nan)" },
        { ik.two_bone, { skeleton = skel, joints = { "thigh", "shin", "shin" } },
          "mid and tip are the same joint 'shin'" },
        { ik.two_bone, { skeleton = skel, joints = { "thigh", "shin", "toe" } },
          "joints do not form a chain: tip 'toe' is not a child of mid 'shin'" },
        { ik.two_bone, { skeleton = skel, joints = { "shin", "thigh", "foot" } },
          "joints do not form a chain: mid 'thigh' is not a child of root 'shin'" },
        { ik.two_bone, { skeleton = skel, joints = J, mid_axis = { 0, 0, 0 } }, "'mid_axis' is a zero vector" },
        { ik.two_bone, { skeleton = skel, joints = J, mid_axis = { 0, 0 / 0, 1 } }, "element 2 of 'mid_axis' is not finite" },
        { ik.two_bone, { skeleton = skel, joints = J, mid_axis = "z" },
          "'mid_axis' must be a table of 3 numbers (got string)" },
        { ik.two_bone, { skeleton = skel, joints = J, soften = 0 }, "'soften' 0 is out of range (0 .. 1)" },
        { ik.two_bone, { skeleton = skel, joints = J, soften = 0 / 0 }, "'soften' is not finite" },
        { ik.two_bone, { skeleton = skel, joints = J, soften = "1" }, "'soften' must be a number (got string)" },
        { ik.two_bone, { skeleton = skel, joints = J, twist = math.huge }, "'twist' is not finite" },
        { ik.aim, { skeleton = skel }, "'joint' is needed" },
        { ik.aim, { skeleton = skel, joint = "head" }, "joint: unknown joint 'head'" },
        { ik.aim, { skeleton = skel, joint = 6 }, "joint 6 is out of range (1 .. 5)" },
        { ik.aim, { skeleton = skel, joint = 1, forward = { 0, 1, 0 } }, "'up' is parallel to 'forward'" },
        { ik.aim, { skeleton = skel, joint = 1, forward = { 0, 0, 0 } }, "'forward' is a zero vector" },
        { ik.aim, { skeleton = skel, joint = 1, offset = { 1e13, 0, 0 } }, "'offset' is out of range (-1e+12 .. 1e+12)" },
        { ik.aim, { skeleton = skel, joint = 1, limit = 4 }, "'limit' 4 is out of range (0 .. 3.14159)" },
        { ik.aim, { skeleton = skel, joint = 1, limit = 0 }, "'limit' 0 is out of range (0 .. 3.14159)" },
        { ik.aim, { skeleton = skel, joint = 1, eyes = {} }, "unknown field 'eyes' in the aim definition" },
      }
      for _, case in ipairs(cases) do
        local ok, msg = pcall(case[1], case[2])
        assert.is_false(ok, case[3])
        msg = tostring(msg)
        assert.is_truthy(msg:find(case[3], 1, true), case[3] .. " / " .. msg)
        local name = case[1] == ik.aim and "aim" or "two_bone"
        -- through sinew.try: the message and argument 1, as values
        local none, why, arg = sinew.try(case[1], case[2])
        assert.is_nil(none)
        if case[2] ~= nil then
          assert.equal(case[3], why)
          assert.equal(1, arg)
        end
        -- called by name, the function is named
        local named = case[1] == ik.aim and function(d) local r = ik.aim(d) return r end -- not tail calls: LuaJIT
          or function(d) local r = ik.two_bone(d) return r end -- names a function from its caller
        local _, m2 = pcall(named, case[2])
        assert.is_truthy(tostring(m2):find("bad argument #1 to '" .. name .. "'", 1, true), tostring(m2))
      end
    end)

    it("refuses bad solves naming the argument, and writes nothing", function()
      local pose, wrong = sinew.pose(skel), sinew.pose(other)
      local leg = ik.two_bone { skeleton = skel, joints = J }
      local head = ik.aim { skeleton = skel, joint = "foot" }
      local nan, inf = 0 / 0, math.huge
      local cases = {
        { function() local _ = leg:solve(nil, 1, 1, 1, 0, 0, 1) end,
          "bad argument #1 to 'solve' (sinew.Pose expected, got nil)" },
        { function() local _ = leg:solve(wrong, 1, 1, 1, 0, 0, 1) end, "bad argument #1 to 'solve' (pose of another skeleton)" },
        { function() local _ = leg:solve(pose, nan, 1, 1, 0, 0, 1) end, "bad argument #2 to 'solve' (target x is not finite)" },
        { function() local _ = leg:solve(pose, 1, inf, 1, 0, 0, 1) end, "bad argument #2 to 'solve' (target y is not finite)" },
        { function() local _ = leg:solve(pose, 1, 1, 1e13, 0, 0, 1) end,
          "bad argument #2 to 'solve' (target z 1e+13 is out of range (-1e+12 .. 1e+12))" },
        { function() local _ = leg:solve(pose, 1, 1, "x", 0, 0, 1) end,
          "bad argument #4 to 'solve' (number expected, got string)" },
        { function() local _ = leg:solve(pose, 1, 1, 1, 0, nan, 1) end, "bad argument #5 to 'solve' (pole y is not finite)" },
        { function() local _ = leg:solve(pose, 1, 1, 1, 0, 0) end, "bad argument #7 to 'solve' (number expected, got no value)" },
        { function() local _ = leg:solve(pose, 1, 1, 1, 0, 0, 1, 2) end,
          "bad argument #8 to 'solve' (weight 2 is out of range (0 .. 1))" },
        { function() local _ = leg:solve(pose, 1, 1, 1, 0, 0, 1, nan) end, "bad argument #8 to 'solve' (weight is not finite)" },
        { function() local _ = leg:solve(pose, 1, 1, 1, 0, 0, 1, {}) end,
          "bad argument #8 to 'solve' (number expected, got table)" },
        { function() local _ = leg.solve(pose, pose, 1, 1, 1, 0, 0, 1) end, "sinew.IKTwoBone expected, got sinew.Pose" },
        { function() local _ = leg:set_soften(1.5) end,
          "bad argument #1 to 'set_soften' ('soften' 1.5 is out of range (0 .. 1))" },
        { function() local _ = leg:set_twist(nan) end, "bad argument #1 to 'set_twist' ('twist' is not finite)" },
        { function() local _ = head:solve(pose, 1, 1, nan) end, "bad argument #2 to 'solve' (target z is not finite)" },
        { function() local _ = head:solve(pose, 1, 1, 1, -0.5) end,
          "bad argument #5 to 'solve' (weight -0.5 is out of range (0 .. 1))" },
        { function() local _ = head:solve(pose, 1, 1, 1, 1, 0, 0, 0) end, "bad argument #6 to 'solve' (up is a zero vector)" },
        { function() local _ = head:solve(pose, 1, 1, 1, 1, 0, nan, 0) end, "bad argument #6 to 'solve' (up y is not finite)" },
        { function() local _ = head:solve(pose, 1, 1, 1, 1, 0, 1) end,
          "bad argument #8 to 'solve' (number expected, got no value)" },
        { function() local _ = head:solve(wrong, 1, 1, 1) end, "bad argument #1 to 'solve' (pose of another skeleton)" },
        { function() local _ = head:set_limit(0) end,
          "bad argument #1 to 'set_limit' ('limit' 0 is out of range (0 .. 3.14159))" },
        { function() local _ = head.solve(leg, pose, 1, 1, 1) end, "sinew.IKAim expected, got sinew.IKTwoBone" },
      }
      pose:set_rotation("thigh", 0.1, 0.2, 0.3, 0.9)
      local before = snapshot(pose)
      for _, case in ipairs(cases) do
        local ok, msg = pcall(case[1])
        assert.is_false(ok, case[2])
        assert.is_truthy(tostring(msg):find(case[2], 1, true), case[2] .. " / " .. tostring(msg))
        assert.same(before, snapshot(pose))
      end
      assert.equal(1, leg:soften())
      assert.equal(0, leg:twist())
      assert.equal(math.pi, head:limit())
      -- sinew.try gives the message and the argument's position among the function's own (self 1)
      local none, why, arg = sinew.try(leg.solve, leg, pose, 1, 1, 1, 0, 0, 1, 2)
      assert.same({ nil, "weight 2 is out of range (0 .. 1)", 9 }, { none, why, arg })
      none, why, arg = sinew.try(head.solve, head, pose, 1, 1, 1, 1, 0, 0, 0)
      assert.same({ nil, "up is a zero vector", 7 }, { none, why, arg })
      none, why, arg = sinew.try(leg.solve, leg, pose, 1, 1, 1, 0, nan, 1)
      assert.same({ nil, "pole y is not finite", 6 }, { none, why, arg })
    end)

    it("takes the fallback for zero-length bones: DEGENERATE, nothing written", function()
      local pose = sinew.pose(skel) -- no rest pose: every joint on its parent
      local leg = ik.two_bone { skeleton = skel, joints = J }
      local before = snapshot(pose)
      local reached, flags = leg:solve(pose, 1, 1, 1, 0, 0, 1)
      assert.is_false(reached)
      assert.is_true(ik.has(flags, ik.DEGENERATE), flags)
      assert.same(before, snapshot(pose))
    end)
  end)

  describe("chain()", function()
    -- A random line of joints: one ancestor, then a chain of n joints, each with a random rest
    -- translation (length 0.2 .. 1.5) and rotation, and a random uniform scale in the pose.
    local function random_line(rng, n)
      local names, parents, rest = {}, {}, {}
      for j = 1, n + 1 do
        local d, x, y, z, w = unit(rng), helper.random_quat(rng)
        local l = rng(0.2, 1.5)
        names[j], parents[j] = "j" .. j, j - 1
        rest[j] = { d[1] * l, d[2] * l, d[3] * l, x, y, z, w, 1, 1, 1 }
      end
      local skel = sinew.skeleton { names = names, parents = parents, rest = rest }
      local pose = sinew.pose(skel) -- at the rest pose
      for j = 1, n + 1 do
        local s = rng(0.5, 2)
        pose:set_rotation(j, helper.random_quat(rng))
        pose:set_scale(j, s, s, s)
      end
      return skel, pose
    end
    local function joints_of(n) local t = {} for j = 1, n do t[j] = j + 1 end return t end

    it("reaches reachable targets by FABRIK and CCD, bone lengths kept, returning the distance left", function()
      local rng = helper.rng(2525)
      for _, method in ipairs { "fabrik", "ccd" } do
        local cases, reached = 0, 0
        for _ = 1, 200 do
          local n = math.floor(rng(2, 6.999))
          local skel, pose = random_line(rng, n)
          local js = joints_of(n)
          -- the target: the tip of another random pose of the chain
          for j = 1, n - 1 do pose:set_rotation(js[j], helper.random_quat(rng)) end
          local target = pos(pose, js[n])
          for j = 1, n - 1 do pose:set_rotation(js[j], helper.random_quat(rng)) end
          local lengths, reach = {}, 0
          for j = 1, n - 1 do
            lengths[j] = len(sub(pos(pose, js[j + 1]), pos(pose, js[j])))
            reach = reach + lengths[j]
          end
          local arm = ik.chain { skeleton = skel, joints = js, method = method, iterations = 1000, tolerance = 1e-4 * reach }
          local left, flags = arm:solve(pose, target[1], target[2], target[3])
          local tip = pos(pose, js[n])
          assert.is_true(helper.near_abs(left, len(sub(tip, target)), 1e-5 * reach))
          cases = cases + 1
          if left <= 1e-4 * reach then
            reached = reached + 1
            assert.is_true(ik.has(flags, ik.REACHED))
          end
          for j = 1, n - 1 do
            assert.is_true(helper.near_abs(len(sub(pos(pose, js[j + 1]), pos(pose, js[j]))), lengths[j], 1e-5 * reach))
          end
        end
        assert.is_true(reached >= 0.98 * cases, method .. ": " .. reached .. " of " .. cases)
      end
    end)

    it("holds a hinge within its range and never ends farther than the input", function()
      local rng = helper.rng(31)
      for _ = 1, 200 do
        local skel, pose = random_line(rng, 4)
        local axis = unit(rng)
        local lo = rng(-2, 0)
        local hi = lo + rng(0.2, 2)
        local _, _, _, rx, ry, rz, rw = skel:rest(3)
        -- the input within the hinge: rest * R(axis, a)
        local a = rng(lo, hi)
        local s = math.sin(a / 2)
        pose:set_rotation(3, quat.mul(rx, ry, rz, rw, axis[1] * s, axis[2] * s, axis[3] * s, math.cos(a / 2)))
        local arm = ik.chain { skeleton = skel, joints = { 2, 3, 4, 5 }, method = rng() < 0.5 and "ccd" or "fabrik",
          limits = { j3 = { hinge = axis, min = lo, max = hi } } }
        local target = add(pos(pose, 2), scale(unit(rng), rng(0, 3)))
        local before = len(sub(pos(pose, 5), target))
        local left = arm:solve(pose, target[1], target[2], target[3])
        assert.is_true(left <= before + 1e-5 * (1 + before))
        -- the hinge's angle: rest^-1 q is a turn about the axis, within [lo, hi]
        local _, _, _, qx, qy, qz, qw = pose:get(3)
        local dx, dy, dz, dw = quat.mul(-rx, -ry, -rz, rw, qx, qy, qz, qw)
        if dw < 0 then dx, dy, dz, dw = -dx, -dy, -dz, -dw end
        local along = dx * axis[1] + dy * axis[2] + dz * axis[3]
        local off = len(sub({ dx, dy, dz }, scale(axis, along)))
        local angle_now = 2 * math.atan2(along, dw)
        assert.is_true(off <= 1e-6, off)
        assert.is_true(angle_now >= lo - 1e-6 and angle_now <= hi + 1e-6, angle_now)
      end
    end)

    it("leaves the pose bit for bit with weight 0 and solves the same input to the same bits", function()
      local rng = helper.rng(5)
      for _ = 1, 50 do
        local skel, pose = random_line(rng, 5)
        local copy = sinew.pose(skel)
        copy:copy(pose)
        local arm = ik.chain { skeleton = skel, joints = joints_of(5), method = rng() < 0.5 and "ccd" or "fabrik",
          limits = { j3 = { cone = 1, twist = { -0.3, 0.3 } } } }
        local t = add(pos(pose, 2), unit(rng))
        local before = snapshot(pose)
        local l0 = arm:solve(pose, t[1], t[2], t[3], 0)
        assert.same(before, snapshot(pose))
        assert.is_true(helper.near_abs(l0, len(sub(pos(pose, 6), t)), 1e-5))
        local w = rng() < 0.5 and 1 or rng()
        local l1, f1 = arm:solve(pose, t[1], t[2], t[3], w)
        local l2, f2 = arm:solve(copy, t[1], t[2], t[3], w)
        assert.same({ l1, f1 }, { l2, f2 })
        assert.same(snapshot(pose), snapshot(copy))
      end
    end)

    it("reads and sets its settings", function()
      local skel = random_line(helper.rng(1), 3)
      local arm = ik.chain { skeleton = skel, joints = { "j2", "j3", "j4" }, method = "ccd", iterations = 8, tolerance = 0.01 }
      assert.equal(3, #arm)
      assert.equal("ccd", arm:method())
      assert.same({ 2, 3, 4 }, { arm:joints() })
      assert.equal(8, arm:iterations())
      assert.equal(0.01, arm:tolerance())
      arm:set_iterations(40)
      arm:set_tolerance(0)
      assert.equal(40, arm:iterations())
      assert.equal(0, arm:tolerance())
      assert.equal(skel, arm:skeleton())
      assert.is_truthy(tostring(arm):find("sinew.IKChain (ccd, 'j2' .. 'j4', 3 joints)", 1, true))
      local free = ik.chain { skeleton = skel, joints = { 1, 2 } }
      assert.equal("fabrik", free:method())
      assert.equal(16, free:iterations())
      assert.equal(1e-4, free:tolerance())
    end)

    it("refuses bad definitions and solves with exact messages, writing nothing", function()
      local skel = sinew.skeleton { names = { "root", "a", "b", "c", "d" }, parents = { 0, 1, 2, 3, 2 },
        rest = { { 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 }, { 0, 1, 0, 0, 0, 0, 1, 1, 1, 1 }, { 1, 0, 0, 0, 0, 0, 1, 1, 1, 1 },
          { 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 }, { 1, 0, 0, 0, 0, 0, 1, 1, 1, 1 } } }
      local J = { "a", "b", "c" }
      local cases = {
        { { joints = J }, "'skeleton' must be a sinew.Skeleton (got nil)" },
        { { skeleton = skel, joints = J, bones = 1 }, "unknown field 'bones' in the chain definition" },
        { { skeleton = skel, joints = "a" }, "'joints' must be a table of joints (got string)" },
        { { skeleton = skel, joints = { "a" } }, "a chain of 1 joints is out of range (2 .. 32)" },
        { { skeleton = skel, joints = { "a", "x" } }, "joints[2]: unknown joint 'x'" },
        { { skeleton = skel, joints = { "a", "b", "a" } }, "joints 1 and 3 of the chain are the same joint 'a'" },
        { { skeleton = skel, joints = { "a", "b", "d" } }, "joints do not form a chain: 'd' (3) is not a child of 'b' (2)" },
        { { skeleton = skel, joints = J, method = "jacobian" }, "unknown method 'jacobian' ('fabrik' or 'ccd')" },
        { { skeleton = skel, joints = J, iterations = 0 }, "'iterations' 0 is out of range (1 .. 1000)" },
        { { skeleton = skel, joints = J, iterations = 2.5 }, "'iterations' must be an integer (got 2.5)" },
        { { skeleton = skel, joints = J, tolerance = 0 / 0 }, "'tolerance' is not finite" },
        { { skeleton = skel, joints = J, limits = 3 }, "'limits' must be a table of limits by joint (got number)" },
        { { skeleton = skel, joints = J, limits = { x = { cone = 1 } } }, "limits.x: unknown joint 'x'" },
        { { skeleton = skel, joints = J, limits = { a = 1 } }, "limits.a must be a table (got number)" },
        { { skeleton = skel, joints = J, limits = { a = { bend = 1 } } }, "unknown field 'bend' in limits.a" },
        { { skeleton = skel, joints = J, limits = { a = {} } }, "limits.a: needs 'hinge', 'cone' or 'twist'" },
        { { skeleton = skel, joints = J, limits = { a = { hinge = { 0, 0, 1 }, cone = 1 } } },
          "limits.a: a hinge takes no 'cone' or 'twist'" },
        { { skeleton = skel, joints = J, limits = { a = { cone = 1, max = 1 } } },
          "limits.a: 'min' and 'max' belong to a hinge" },
        { { skeleton = skel, joints = J, limits = { a = { twist = 1 } } },
          "limits.a.twist must be a table of 2 numbers, min and max (got number)" },
        { { skeleton = skel, joints = J, limits = { a = { hinge = { 0, 0 } } } },
          "'limits.a.hinge' must be a table of 3 numbers (got a table of another length)" },
        { { skeleton = skel, joints = J, limits = { a = { hinge = { 0, 0, 0 } } } },
          "limit of 'a': the hinge axis is a zero vector" },
        { { skeleton = skel, joints = J, limits = { a = { hinge = { 0, 0, 1 }, min = 1, max = 0 } } },
          "limit of 'a': hinge angles 1 .. 0 is empty (min > max)" },
        { { skeleton = skel, joints = J, limits = { a = { cone = 4 } } }, "limit of 'a': cone 4 is out of range (0 .. 3.14159)" },
        { { skeleton = skel, joints = J, limits = { c = { cone = 1 } } },
          "limit of 'c': the joint is the chain's tip, which the solve does not turn" },
        { { skeleton = skel, joints = J, limits = { root = { cone = 1 } } }, "limit of 'root': the joint is not on the chain" },
        { { skeleton = skel, joints = J, limits = { b = { cone = 1 } } },
          "limit of 'b': a cone or twist needs a bone, and 'c' rests on the joint" },
        { { skeleton = skel, joints = J, limits = { [true] = { cone = 1 } } },
          "'limits' keys must be joint names or indices (got boolean)" },
      }
      for _, case in ipairs(cases) do
        local ok, msg = pcall(ik.chain, case[1])
        assert.is_false(ok, case[2])
        assert.is_truthy(tostring(msg):find(case[2], 1, true), case[2] .. " / " .. tostring(msg))
        local none, why, arg = sinew.try(ik.chain, case[1])
        assert.same({ nil, case[2], 1 }, { none, why, arg })
      end
      local pose, wrong = sinew.pose(skel), sinew.pose(random_line(helper.rng(3), 2))
      local arm = ik.chain { skeleton = skel, joints = J, limits = { [2] = { hinge = { 0, 0, 1 } } } }
      local nan = 0 / 0
      local solves = {
        { function() local _ = arm:solve(nil, 1, 1, 1) end, "bad argument #1 to 'solve' (sinew.Pose expected, got nil)" },
        { function() local _ = arm:solve(wrong, 1, 1, 1) end, "bad argument #1 to 'solve' (pose of another skeleton)" },
        { function() local _ = arm:solve(pose, nan, 1, 1) end, "bad argument #2 to 'solve' (target x is not finite)" },
        { function() local _ = arm:solve(pose, 1, 1, 1e13) end,
          "bad argument #2 to 'solve' (target z 1e+13 is out of range (-1e+12 .. 1e+12))" },
        { function() local _ = arm:solve(pose, 1, "y", 1) end, "bad argument #3 to 'solve' (number expected, got string)" },
        { function() local _ = arm:solve(pose, 1, 1, 1, 2) end,
          "bad argument #5 to 'solve' (weight 2 is out of range (0 .. 1))" },
        { function() local _ = arm:set_iterations(0) end,
          "bad argument #1 to 'set_iterations' ('iterations' 0 is out of range (1 .. 1000))" },
        { function() local _ = arm:set_tolerance(-1) end, "bad argument #1 to 'set_tolerance' ('tolerance'" },
        { function() local _ = arm.solve(pose, pose, 1, 1, 1) end, "sinew.IKChain expected, got sinew.Pose" },
      }
      pose:set_rotation("a", 0.1, 0.2, 0.3, 0.9)
      local before = snapshot(pose)
      for _, case in ipairs(solves) do
        local ok, msg = pcall(case[1])
        assert.is_false(ok, case[2])
        assert.is_truthy(tostring(msg):find(case[2], 1, true), case[2] .. " / " .. tostring(msg))
        assert.same(before, snapshot(pose))
      end
      assert.same({ nil, "weight 2 is out of range (0 .. 1)", 6 }, { sinew.try(arm.solve, arm, pose, 1, 1, 1, 2) })
    end)

    it("takes the fallbacks: every bone zero-length writes nothing, a target on the root is flagged", function()
      local skel = sinew.skeleton { names = { "a", "b", "c" }, parents = { 0, 1, 2 } }
      local pose = sinew.pose(skel)
      local arm = ik.chain { skeleton = skel, joints = { 1, 2, 3 } }
      local before = snapshot(pose)
      local left, flags = arm:solve(pose, 1, 2, 2)
      assert.equal(3, left)
      assert.is_true(ik.has(flags, ik.DEGENERATE))
      assert.same(before, snapshot(pose))
      local line = random_line(helper.rng(8), 3)
      local p2 = sinew.pose(line)
      local r = pos(p2, 2)
      local _, f2 = ik.chain { skeleton = line, joints = { 2, 3, 4 } }:solve(p2, r[1], r[2], r[3])
      assert.is_true(ik.has(f2, ik.TARGET_AT_ROOT))
      for j = 1, #p2 do for _, v in ipairs { p2:get(j) } do assert.is_true(v == v) end end
    end)
  end)

  describe("garbage", function()
    it("makes none per solve, on both solvers", function()
      local fox = assert(sinew.gltf.load(FOX))
      local pose = sinew.pose(fox.skeleton)
      pose:copy(fox.rest)
      local leg = ik.two_bone { skeleton = fox.skeleton, joints = { 17, 18, 19 } }
      local head = ik.aim { skeleton = fox.skeleton, joint = "b_Head_05", limit = math.rad(80) }
      local root = pos(pose, 17)
      local i = 0
      local function solve_leg()
        i = i + 1
        leg:solve(pose, root[1], root[2] - 20 + (i % 7), root[3] + 5, root[1], root[2], root[3] + 100, 0.9)
      end
      local function solve_head()
        i = i + 1
        head:solve(pose, (i % 13) - 6, 80, 100, 1, 0, 1, 0)
      end
      local function flags() return ik.has(i, ik.REACHED) end
      assert.equal(0, helper.least_garbage(solve_leg, 1000))
      assert.equal(0, helper.least_garbage(solve_head, 1000))
      assert.equal(0, helper.least_garbage(flags, 1000))
      local arm = ik.chain { skeleton = fox.skeleton, joints = { 17, 18, 19 }, limits = { [18] = { cone = 2 } } }
      local function solve_arm()
        i = i + 1
        arm:solve(pose, root[1], root[2] - 20 + (i % 7), root[3] + 5, 0.9)
      end
      assert.equal(0, helper.least_garbage(solve_arm, 1000))
    end)
  end)

  if sinew.path == "ffi" then
    describe("on the FFI path", function()
      local C = require("sinew.ffi").c
      it("solves as the C binding does, bit for bit, and refuses alike", function()
        local rng = helper.rng(99)
        for _ = 1, 200 do
          local skel = random_chain(rng)
          local a, b = sinew.pose(skel), sinew.pose(skel)
          local leg = ik.two_bone { skeleton = skel, joints = { 3, 4, 5 }, mid_axis = unit(rng), soften = rng(0.5, 1) }
          local head = ik.aim { skeleton = skel, joint = 4, forward = { 0, 0, 1 }, limit = rng(0.5, 3) }
          local t, p, u, w = unit(rng), unit(rng), unit(rng), rng() < 0.3 and rng() or nil
          local r1, f1 = leg:solve(a, t[1], t[2], t[3], p[1], p[2], p[3], w)
          local r2, f2 = C.IKTwoBone.solve(leg, b, t[1], t[2], t[3], p[1], p[2], p[3], w)
          assert.same({ r2, f2 }, { r1, f1 })
          if rng() < 0.5 then
            r1, f1 = head:solve(a, t[1] * 3, t[2], t[3], w)
            r2, f2 = C.IKAim.solve(head, b, t[1] * 3, t[2], t[3], w)
          else
            r1, f1 = head:solve(a, t[1] * 3, t[2], t[3], w or 1, u[1], u[2], u[3])
            r2, f2 = C.IKAim.solve(head, b, t[1] * 3, t[2], t[3], w or 1, u[1], u[2], u[3])
          end
          assert.same({ r2, f2 }, { r1, f1 })
          assert.same(snapshot(b), snapshot(a))
        end
        local skel = random_chain(rng)
        local leg = ik.two_bone { skeleton = skel, joints = { 3, 4, 5 } }
        local none, why, arg = sinew.try(leg.solve, leg, sinew.pose(skel), 1, 1, 1, 0, 0, 1, 2)
        assert.same({ nil, "weight 2 is out of range (0 .. 1)", 9 }, { none, why, arg })
        assert.are_not.equal(C.IKTwoBone.solve, leg.solve) -- the fast function is installed
      end)

      it("solves chains as the C binding does, bit for bit, and refuses alike", function()
        local rng = helper.rng(98)
        for _ = 1, 100 do
          local skel = random_chain(rng)
          local a, b = sinew.pose(skel), sinew.pose(skel)
          local arm = ik.chain { skeleton = skel, joints = { 2, 3, 4, 5 }, method = rng() < 0.5 and "ccd" or "fabrik",
            limits = { mid = { hinge = unit(rng), min = -1, max = 1 } } }
          local t, w = unit(rng), rng() < 0.3 and rng() or nil
          local l1, f1 = arm:solve(a, t[1], t[2], t[3], w)
          local l2, f2 = C.IKChain.solve(arm, b, t[1], t[2], t[3], w)
          assert.same({ l2, f2 }, { l1, f1 })
          assert.same(snapshot(b), snapshot(a))
        end
        local skel = random_chain(rng)
        local arm = ik.chain { skeleton = skel, joints = { 3, 4, 5 } }
        assert.same({ nil, "weight 2 is out of range (0 .. 1)", 6 }, { sinew.try(arm.solve, arm, sinew.pose(skel), 1, 1, 1, 2) })
        local ok, msg = pcall(function() local _ = arm:solve(sinew.pose(skel), 0 / 0, 1, 1) end)
        assert.is_false(ok)
        assert.is_truthy(tostring(msg):find("bad argument #2 to 'solve' (target x is not finite)", 1, true), tostring(msg))
        assert.are_not.equal(C.IKChain.solve, arm.solve)
      end)
    end)
  end

  it("runs manual/ik.md's example as printed", function()
    local code = helper.read_file("manual/ik.md"):match("```lua\n(local sinew = require \"sinew\"\n.-)\n```")
    assert.is_truthy(code)
    local printed = {}
    local env = setmetatable({ print = function(...)
      local t = {}
      for i = 1, select("#", ...) do t[i] = tostring((select(i, ...))) end
      printed[#printed + 1] = table.concat(t, "  ")
    end }, { __index = _G })
    helper.load_in(code, "manual/ik.md", env)()
    local expected = {}
    for comment in (code .. "\n"):gmatch("print%b()%s*%-%->%s*([^\n]-)%s*\n") do expected[#expected + 1] = comment end
    assert.equal(3, #expected)
    assert.same(expected, printed)
  end)
end)
