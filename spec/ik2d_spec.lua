-- sinew.ik on 2-D rigs: two_bone, aim and chain with `rig` (src/binding/ik2d.c, the core in
-- src/core/ik2d.c and rig2d_ik.c), measured through the rig's own world matrices (rig:bone) on
-- random armatures: random setup rotations, uniform scales and mirrors (scX = -1), where a solve
-- is exact.
local helper = require "helper"
local sinew = require "sinew"
local ik = sinew.ik
local dragonbones = sinew.dragonbones

local atan2 = math.atan2 or math.atan

-- a DragonBones armature as JSON: bones { name, parent, length, x, y, rot (degrees), sx, sy }
local function armature_json(bones)
  local out = {}
  for i, b in ipairs(bones) do
    out[i] = ('{"name":"%s"%s,"length":%.17g,"transform":{"x":%.17g,"y":%.17g,"skX":%.17g,"skY":%.17g,"scX":%.17g,"scY":%.17g}}')
      :format(b[1], b[2] and (',"parent":"%s"'):format(b[2]) or "", b[3] or 0, b[4] or 0, b[5] or 0, b[6] or 0, b[6] or 0,
        b[7] or 1, b[8] or b[7] or 1)
  end
  return '{"name":"ik2d","version":"5.5","frameRate":24,"armature":[{"type":"Armature","name":"arm","frameRate":24,'
    .. '"bone":[' .. table.concat(out, ",") .. '],"slot":[],"skin":[],"animation":[{"name":"idle","duration":1,'
    .. '"bone":[]}]}]}'
end

-- a random arm: root, a holder (random place, rotation, uniform scale, mirrored half of the time),
-- then a chain of n bones of random lengths and rotations
local function random_rig(rng, n, uneven)
  local mirror = rng() < 0.5 and -1 or 1
  local s = rng(0.5, 2)
  local bones = { { "root" }, { "holder", "root", 10, rng(-100, 100), rng(-100, 100), rng(-180, 180), mirror * s,
    s * (uneven and rng(0.7, 1.4) or 1) } }
  local parent = "holder"
  for i = 1, n do
    local name = "b" .. i
    bones[#bones + 1] = { name, parent, rng(10, 60), i == 1 and rng(-20, 20) or bones[#bones][3], 0, rng(-90, 90) }
    parent = name
  end
  local data = assert(dragonbones.parse(armature_json(bones)))
  local rig = dragonbones.rig(data)
  local pose = rig:pose()
  rig:apply(pose)
  return rig, pose
end

local function origin(rig, b) local _, _, _, _, x, y = rig:bone(b) return x, y end
local function tip(rig, b)
  local a, bb, _, _, x, y = rig:bone(b)
  local len = rig:armature().bones[rig:armature().bone[b]].length
  return x + a * len, y + bb * len
end
local function dist(ax, ay, bx, by) return math.sqrt((ax - bx) ^ 2 + (ay - by) ^ 2) end

local snapshot = helper.pose_values

describe("sinew.ik in 2-D", function()
  describe("two_bone{ rig }", function()
    it("puts the tip on random reachable targets, bends to the chosen side, keeps lengths", function()
      local rng = helper.rng(2501)
      local cases, worst, sides, lengths = 0, 0, 0, 0
      for _ = 1, 60 do
        local rig, pose = random_rig(rng, 2)
        local rx, ry = origin(rig, "b1")
        local mx, my = origin(rig, "b2")
        local tx0, ty0 = tip(rig, "b2")
        local l1, l2 = dist(rx, ry, mx, my), dist(mx, my, tx0, ty0)
        for _ = 1, 20 do
          local bend = rng() < 0.5 and 1 or -1
          local arm = ik.two_bone { rig = rig, bones = { "b1", "b2" }, bend = bend }
          local d = math.abs(l1 - l2) + (l1 + l2 - math.abs(l1 - l2)) * rng(0.01, 0.99)
          local a = rng(-math.pi, math.pi)
          local tx, ty = rx + d * math.cos(a), ry + d * math.sin(a)
          local p = rig:pose()
          p:copy(pose)
          rig:apply(p)
          local reached, flags = arm:solve(p, tx, ty)
          assert.is_true(reached, flags)
          local x, y = tip(rig, "b2")
          worst = math.max(worst, dist(x, y, tx, ty) / (l1 + l2))
          local nmx, nmy = origin(rig, "b2")
          if math.abs(dist(rx, ry, nmx, nmy) - l1) > 1e-9 * l1 or math.abs(dist(nmx, nmy, x, y) - l2) > 1e-9 * l2 then
            lengths = lengths + 1
          end
          -- bend 1: cross(target - root, mid - root) < 0 in the rig's (y-down) space
          local cross = (tx - rx) * (nmy - ry) - (ty - ry) * (nmx - rx)
          if (cross < 0) ~= (bend == 1) then sides = sides + 1 end
          cases = cases + 1
        end
      end
      assert.is_true(worst < 1e-9, worst)
      assert.equal(0, sides)
      assert.equal(0, lengths)
      assert.equal(1200, cases)
    end)

    it("leaves an unreachable target's chain straight toward it, and weight 0 bit for bit", function()
      local rng = helper.rng(2502)
      for _ = 1, 40 do
        local rig, pose = random_rig(rng, 2)
        local arm = ik.two_bone { rig = rig, bones = { "b1", "b2" } }
        local rx, ry = origin(rig, "b1")
        local mx, my = origin(rig, "b2")
        local ex, ey = tip(rig, "b2")
        local reach = dist(rx, ry, mx, my) + dist(mx, my, ex, ey)
        local a, d = rng(-math.pi, math.pi), reach * rng(1.01, 5)
        local tx, ty = rx + d * math.cos(a), ry + d * math.sin(a)
        local before = snapshot(pose)
        local reached = arm:solve(pose, tx, ty, 0)
        assert.is_false(reached)
        assert.same(before, snapshot(pose))
        local flags
        reached, flags = arm:solve(pose, tx, ty)
        assert.is_false(reached)
        assert.is_true(ik.has(flags, ik.UNREACHABLE))
        local x, y = tip(rig, "b2")
        assert.is_true(dist(x, y, rx + reach * math.cos(a), ry + reach * math.sin(a)) < 1e-9 * reach)
      end
    end)

    it("comes close under an unevenly scaled parent (approximate there), never writing a NaN", function()
      local rng = helper.rng(2509)
      local worst = 0
      for _ = 1, 100 do
        local rig, pose = random_rig(rng, 2, true)
        local arm = ik.two_bone { rig = rig, bones = { "b1", "b2" } }
        local rx, ry = origin(rig, "b1")
        local mx, my = origin(rig, "b2")
        local ex, ey = tip(rig, "b2")
        local l1, l2 = dist(rx, ry, mx, my), dist(mx, my, ex, ey)
        local lo = math.abs(l1 - l2)
        local d, a = lo + (l1 + l2 - lo) * rng(0.2, 0.8), rng(-math.pi, math.pi)
        local tx, ty = rx + d * math.cos(a), ry + d * math.sin(a)
        arm:solve(pose, tx, ty)
        local x, y = tip(rig, "b2")
        assert.is_true(x == x and y == y)
        worst = math.max(worst, dist(x, y, tx, ty) / (l1 + l2))
      end
      assert.is_true(worst < 5e-3, worst) -- 8e-4 of the reach at 8 passes
    end)

    it("writes the rig's own pose without a pose argument", function()
      local rig = random_rig(helper.rng(2503), 2)
      local arm = ik.two_bone { rig = rig, bones = { "b1", "b2" }, bend = -1 }
      local rx, ry = origin(rig, "b1")
      assert.is_true((arm:solve(nil, rx + 30, ry + 5)))
      local x, y = tip(rig, "b2")
      assert.is_true(dist(x, y, rx + 30, ry + 5) < 1e-9)
      assert.equal(-1, arm:bend())
      assert.equal(1, arm:soften())
      arm:set_soften(0.9)
      assert.equal(0.9, arm:soften())
      arm:set_bend(1)
      assert.equal(1, arm:bend())
      assert.equal(rig, arm:rig())
    end)
  end)

  describe("aim{ rig }", function()
    it("points the bone's forward axis through the offset at the target", function()
      local rng = helper.rng(2504)
      local worst = 0
      for _ = 1, 200 do
        local rig, pose = random_rig(rng, 1)
        local fwd, ox, oy = rng(-1, 1), rng(-5, 5), rng(-5, 5)
        local gun = ik.aim { rig = rig, bone = "b1", forward = fwd, offset = { ox, oy } }
        local x0, y0 = origin(rig, "b1")
        local a, d = rng(-math.pi, math.pi), rng(30, 300)
        local tx, ty = x0 + d * math.cos(a), y0 + d * math.sin(a)
        local reached = gun:solve(pose, tx, ty)
        assert.is_true(reached)
        local ma, mb, mc, md, x, y = rig:bone("b1")
        local fx, fy = ma * math.cos(fwd) + mc * math.sin(fwd), mb * math.cos(fwd) + md * math.sin(fwd)
        local sx, sy = x + ma * ox + mc * oy, y + mb * ox + md * oy
        local miss = math.abs(fx * (ty - sy) - fy * (tx - sx)) / math.sqrt(fx * fx + fy * fy)
        assert.is_true(fx * (tx - sx) + fy * (ty - sy) > 0)
        worst = math.max(worst, miss / d)
      end
      assert.is_true(worst < 1e-9, worst)
    end)

    it("caps the turn with its limit", function()
      local rig, pose = random_rig(helper.rng(2505), 1)
      local gun = ik.aim { rig = rig, bone = "b1", limit = 0.3 }
      local a0, b0 = rig:bone("b1")
      local x0, y0 = origin(rig, "b1")
      local ang = atan2(b0, a0)
      local _, flags = gun:solve(pose, x0 + 100 * math.cos(ang + 1), y0 + 100 * math.sin(ang + 1))
      assert.is_true(ik.has(flags, ik.LIMITED))
      local a1, b1 = rig:bone("b1")
      local turned = math.abs(atan2(a0 * b1 - b0 * a1, a0 * a1 + b0 * b1))
      assert.is_true(turned <= 0.3 + 1e-12 and turned > 0, turned)
      gun:set_limit(2)
      assert.equal(2, gun:limit())
    end)
  end)

  describe("chain{ rig }", function()
    for _, method in ipairs { "fabrik", "ccd" } do
      it(method .. " reaches random reachable targets with lengths kept, and holds limits", function()
        local rng = helper.rng(method == "ccd" and 2506 or 2507)
        local cases, reached, limits = 0, 0, 0
        for _ = 1, 40 do
          local rig, pose = random_rig(rng, 4)
          local names = { "b1", "b2", "b3", "b4" }
          local arm = ik.chain { rig = rig, bones = names, method = method, iterations = 200, tolerance = 1e-6 }
          local rx, ry = origin(rig, "b1")
          local total = 0
          for i = 1, 4 do
            local x, y = origin(rig, names[i])
            local ex, ey
            if i < 4 then ex, ey = origin(rig, names[i + 1]) else ex, ey = tip(rig, names[i]) end
            total = total + dist(x, y, ex, ey)
          end
          for _ = 1, 10 do
            local a, d = rng(-math.pi, math.pi), total * rng(0.3, 0.9)
            local p = rig:pose()
          p:copy(pose)
          rig:apply(p)
            local left, flags = arm:solve(p, rx + d * math.cos(a), ry + d * math.sin(a))
            local x, y = tip(rig, "b4")
            assert.is_true(math.abs(left - dist(x, y, rx + d * math.cos(a), ry + d * math.sin(a))) < 1e-9 * total)
            if ik.has(flags, ik.REACHED) then reached = reached + 1 end
            cases = cases + 1
          end
          -- limits on the local rotation of b2 and b3 (setup plus pose)
          local lim = ik.chain { rig = rig, bones = names, method = method, iterations = 64,
            limits = { b2 = { min = -0.5, max = 0.5 }, b3 = { min = 0, max = 1 } } }
          local data = rig:armature()
          for _ = 1, 5 do
            local p = rig:pose()
          p:copy(pose)
          rig:apply(p)
            lim:solve(p, rx + rng(-1, 1) * total, ry + rng(-1, 1) * total)
            for name, r in pairs { b2 = { -0.5, 0.5 }, b3 = { 0, 1 } } do
              local b = data.bone[name]
              local _, _, rot = p:get(b)
              local v = data.bones[b].rotation + rot
              -- compared on the circle: the limits are read about their middle
              local c = (r[1] + r[2]) / 2
              v = c + ((v - c + math.pi) % (2 * math.pi) - math.pi)
              if v < r[1] - 1e-9 or v > r[2] + 1e-9 then limits = limits + 1 end
            end
          end
        end
        assert.is_true(reached >= cases * 0.9, reached .. " of " .. cases)
        assert.equal(0, limits)
      end)
    end
  end)

  describe("refusals", function()
    local data = assert(dragonbones.parse(armature_json {
      { "root" }, { "a", "root", 20 }, { "b", "a", 20, 20 }, { "c", "b", 0, 20 }, { "d", "root", 20 } }))
    local rig = dragonbones.rig(data)
    local other = dragonbones.rig(data)
    local rig2 = dragonbones.rig(assert(dragonbones.parse(armature_json { { "root" }, { "a", "root", 20 } })))
    it("refuses bad definitions with clear messages", function()
      local cases = {
        { { rig = 1, bones = { "a", "b" } }, "'rig' must be a sinew.dragonbones rig (got number)" },
        { { rig = rig, bones = { "a" } }, "'bones' must be a list of 2 bones (got a list of another length)" },
        { { rig = rig, bones = { "a", "x" } }, "bones[2]: no bone 'x'" },
        { { rig = rig, bones = { "a", 9 } }, "bones[2]: bone index 9 is out of range (1 .. 5)" },
        { { rig = rig, bones = { "a", true } }, "bones[2] must be a bone's name or index (got boolean)" },
        { { rig = rig, bones = { "a", "d" } }, "'bones': bone 'd' is not a child of 'a'" },
        { { rig = rig, bones = { "b", "c" } }, "'bones': bone 'c' has length 0 (the tip is its end)" },
        { { rig = rig, bones = { "a", "b" }, bend = 0 }, "'bend' must be 1 or -1 (got 0)" },
        { { rig = rig, bones = { "a", "b" }, soften = 2 }, "'soften' 2 is out of range (0 .. 1)" },
        { { rig = rig, bones = { "a", "b" }, pole = 1 }, "unknown field 'pole' in the 2-D two-bone definition" },
      }
      for _, case in ipairs(cases) do
        local err = helper.error_of(ik.two_bone, case[1])
        assert.is_truthy(err and err:find(case[2], 1, true), tostring(err) .. " / " .. case[2])
      end
      local more = {
        { ik.aim, { rig = rig, bone = "zz" }, "'bone': no bone 'zz'" },
        { ik.aim, { rig = rig, bone = "a", limit = 0 }, "'limit' 0 is out of range" },
        { ik.aim, { rig = rig, bone = "a", offset = { 1 } }, "'offset' must be a table of 2 numbers" },
        { ik.aim, { rig = rig, bone = "a", forward = 0 / 0 }, "'forward' is not finite" },
        { ik.chain, { rig = rig, bones = { "a", "b", "b" } }, "'bones': bone 'b' is given twice" },
        { ik.chain, { rig = rig, bones = { "a", "b" }, method = "x" }, "unknown method 'x'" },
        { ik.chain, { rig = rig, bones = { "a", "b" }, iterations = 0 }, "'iterations' 0 is out of range (1 .. 1000)" },
        { ik.chain, { rig = rig, bones = { "a", "b" }, tolerance = -1 }, "'tolerance' must be a finite number >= 0" },
        { ik.chain, { rig = rig, bones = { "a", "b" }, limits = { d = { min = 0, max = 1 } } },
          "'limits': bone 'd' is not in the chain" },
        { ik.chain, { rig = rig, bones = { "a", "b" }, limits = { a = { min = 1, max = 0 } } }, "min 1 .. max 0 is no range" },
        { ik.chain, { rig = rig, bones = { "a", "b" }, limits = { a = 1 } }, "'limits' of 'a' must be a table" },
      }
      for _, case in ipairs(more) do
        local err = helper.error_of(case[1], case[2])
        assert.is_truthy(err and err:find(case[3], 1, true), tostring(err) .. " / " .. case[3])
      end
      -- the 3-D constructors are unchanged
      assert.is_truthy(helper.error_of(ik.two_bone, { skeleton = 1 }):find("'skeleton' must be a sinew.Skeleton", 1, true))
    end)

    it("refuses bad solves naming the argument, writing nothing", function()
      local arm = ik.two_bone { rig = rig, bones = { "a", "b" } }
      local aim = ik.aim { rig = rig, bone = "a" }
      local chain = ik.chain { rig = rig, bones = { "a", "b" } }
      local pose = rig:pose()
      rig:apply(pose)
      local before = snapshot(pose)
      for _, s in ipairs { arm, aim, chain } do
        local cases = {
          { { s, 1, 1, 1 }, "(a 2-D pose of the solver's armature or nil expected, got number)" },
          { { s, other:pose(), 1, 1 }, nil },
          { { s, rig2:pose(), 1, 1 }, "a 2-D pose of another armature" },
          { { s, pose, 0 / 0, 1 }, "(the target is not finite" },
          { { s, pose, 1, math.huge }, "the target is not finite" },
          { { s, pose, 1, 1e13 }, "the target is not finite or beyond" },
          { { s, pose, "x", 1 }, "number expected, got string" },
          { { s, pose, 1, 1, 2 }, "(weight 2 is out of range (0 .. 1))" },
          { { s, pose, 1, 1, 0 / 0 }, "is out of range (0 .. 1)" },
        }
        for _, case in ipairs(cases) do
          local err = helper.error_of(s.solve, (table.unpack or unpack)(case[1], 1, 5))
          if case[2] then
            assert.is_truthy(err and err:find(case[2], 1, true), tostring(err) .. " / " .. case[2])
          end
        end
        assert.same(before, snapshot(pose))
      end
      -- a pose of another rig of the same armature is a pose of the armature: solved
      assert.is_nil(helper.error_of(arm.solve, arm, other:pose(), 10, 10))
      assert.is_truthy(helper.error_of(arm.solve, aim, pose, 1, 1):find("sinew.IK2DTwoBone expected", 1, true))
    end)
  end)

  describe("manual/ik.md", function()
    it("runs the example of its 2-D section as printed", function()
      local text = helper.read_file("manual/ik.md")
      local at = assert(text:find("\n## 2-D\n", 1, true), "no section 2-D")
      local code = assert(text:match("```lua\n(.-)\n```", at))
      local printed = {}
      local env = setmetatable({ print = function(...)
        local parts = {}
        for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
        printed[#printed + 1] = table.concat(parts, "  ")
      end }, { __index = _G })
      helper.load_in(code, "manual/ik.md", env)()
      local expected = {}
      for line in code:gmatch("[^\n]+") do
        local comment = line:match("^%s*print%(.-%-%->%s*(.-)%s*$")
        if comment then expected[#expected + 1] = comment end
      end
      assert.is_true(#expected >= 4)
      for i, want in ipairs(expected) do
        assert.equal(want, printed[i]:sub(1, #want))
      end
    end)
  end)

  describe("clones", function()
    it("solve on another rig of the armature as the solver does on its own, bit for bit", function()
      local rng = helper.rng(2511)
      for _ = 1, 20 do
        local rig, pose = random_rig(rng, 4)
        local other = rig:clone()
        assert.are.equal(rig:skeleton(), other:skeleton())
        local made = {
          ik.two_bone { rig = rig, bones = { "b1", "b2" }, bend = -1, soften = 0.9 },
          ik.aim { rig = rig, bone = "b3", forward = 0.3, offset = { 2, 5 }, limit = 1 },
          ik.chain { rig = rig, bones = { "b1", "b2", "b3", "b4" }, method = "ccd", iterations = 8,
            limits = { b2 = { min = -1, max = 1 } } },
        }
        local x, y = origin(rig, "b1")
        local tx, ty = x + rng(-60, 60), y + rng(-60, 60)
        for _, solver in ipairs(made) do
          local copy = solver:clone(other)
          assert.are.equal(other, copy:rig())
          assert.are.equal(getmetatable(solver), getmetatable(copy))
          local p1, p2 = rig:pose(), rig:pose()
          p1:copy(pose)
          p2:copy(pose)
          rig:apply(p1)
          other:apply(p2)
          assert.are.same({ solver:solve(p1, tx, ty, 0.8) }, { copy:solve(p2, tx, ty, 0.8) })
          assert.is_true(helper.same_pose(p1, p2))
        end
      end
    end)

    it("refuses what is no rig of the armature", function()
      local rig = random_rig(helper.rng(7), 2)
      local stranger = random_rig(helper.rng(8), 2)
      local arm = ik.two_bone { rig = rig, bones = { "b1", "b2" } }
      assert.matches("bad argument #1 to 'clone' %(a sinew.dragonbones rig expected, got nil%)",
        helper.error_of(function() local _ = arm:clone() end))
      assert.matches("bad argument #1 to 'clone' %(a rig of another armature%)",
        helper.error_of(function() local _ = arm:clone(stranger) end))
      assert.matches("IK2DTwoBone expected, got number", helper.error_of(arm.clone, 1, rig))
    end)
  end)

  describe("the world after a solve", function()
    -- a solve redoes the bones it turned, those below them and what the rig's IK constraints make
    -- depend on them (sn_rig2d_world_changed); a full update of the same pose and slots must give
    -- the same bone and slot matrices bit for bit, on every armature of the sample exports (the
    -- mechas' IK constraints, nested armatures, meshes)
    local files = { "dragon_boy/dragon_boy_ske.json", "mecha_1406/mecha_1406_ske.json",
      "mecha_1004d/mecha_1004d_ske.json", "mecha_1502b/mecha_1502b_ske.json", "you_xin_body/body_ske.json",
      "floor_board/floor_board_ske.json", "progress_bar/progress_bar_ske.json",
      "replace_slot_display/main_ske.json", "effect/effect_ske.json", "you_xin_20703016/20703016_ske.json" }
    local function same_world(a, b, bones, slots, where)
      for _, part in ipairs({ { "bone", bones, a.bone }, { "slot", slots, a.slot_matrix } }) do
        for _, name in ipairs(part[2]) do
          local x, y = { part[3](a, name) }, { part[3](b, name) }
          for k = 1, 6 do
            if x[k] ~= y[k] then
              error(("%s: %s %s's matrix %d: %.17g, a full update %.17g"):format(where, part[1], name, k, x[k], y[k]))
            end
          end
        end
      end
    end
    it("is what a full update of the pose gives, bit for bit, on every sample armature", function()
      local rng = helper.rng(2611)
      local checked = 0
      for _, file in ipairs(files) do
        local data = assert(dragonbones.load("assets/dragonbones/" .. file))
        for _, arm in ipairs(data.armatures) do
          local rig = assert(dragonbones.rig(data, arm.name))
          local bones, slots = rig:bones(), rig:slots()
          local names = {}
          for i, an in ipairs(arm.animations) do names[i] = an.name end
          -- pairs of a bone and its parent, for two-bone solves; any bone for aims
          local pairs_list = {}
          for _, b in ipairs(arm.bones) do
            if b.parent and b.length > 0 and arm.bones[b.parent].length > 0 then
              pairs_list[#pairs_list + 1] = { arm.bones[b.parent].name, b.name }
            end
          end
          for trial = 1, 12 do
            local pose = rig:pose()
            for i = 1, #bones do
              pose:set(i, rng(-5, 5), rng(-5, 5), rng(-0.5, 0.5), 0, 1, 1)
            end
            local anim, t = names[1 + (trial % math.max(1, #names))], rng(0, 1)
            if anim then rig:apply(pose, anim, t, true) else rig:apply(pose) end
            local given = trial % 2 == 0
            local solver -- (bones an IK constraint of the armature turns are refused: another pick)
            for _ = 1, 50 do
              local ok, made
              if #pairs_list > 0 and trial % 3 ~= 0 then
                ok, made = pcall(ik.two_bone, { rig = rig, bones = pairs_list[1 + math.floor(rng() * #pairs_list)] })
              else
                ok, made = pcall(ik.aim, { rig = rig, bone = bones[1 + math.floor(rng() * #bones)], limit = 2 })
              end
              if ok then solver = made break end
            end
            if solver then
              local _, _, _, _, x, y = rig:bone(bones[1 + math.floor(rng() * #bones)])
              local tx, ty = x + rng(-80, 80), y + rng(-80, 80)
              -- the same solve on a second rig in the same state, through the other path
              local twin = rig:clone()
              local twin_pose = rig:pose():copy(pose)
              if anim then twin:apply(twin_pose, anim, t, true) else twin:apply(twin_pose) end
              local twin_solver = solver:clone(twin)
              if given then
                solver:solve(pose, tx, ty)
                twin_solver:solve(nil, tx, ty)
              else
                solver:solve(nil, tx, ty)
                twin_solver:solve(twin_pose, tx, ty)
              end
              local full = rig:clone()
              local written = given and pose or twin_pose
              if anim then full:apply(written, anim, t, true) else full:apply(written) end
              local where = ("%s %s trial %d"):format(file, arm.name, trial)
              same_world(rig, full, bones, slots, where)
              same_world(twin, full, bones, slots, where .. " (the other path)")
              checked = checked + 1
            end
          end
        end
      end
      assert.is_true(checked >= 100, checked .. " solves checked")
    end)
  end)

  describe("garbage", function()
    it("makes none per solve", function()
      local rig, pose = random_rig(helper.rng(2508), 4)
      local arm = ik.two_bone { rig = rig, bones = { "b1", "b2" } }
      local aim = ik.aim { rig = rig, bone = "b3", limit = 1 }
      local chain = ik.chain { rig = rig, bones = { "b1", "b2", "b3", "b4" }, method = "ccd", iterations = 8,
        limits = { b2 = { min = -1, max = 1 } } }
      local x, y = origin(rig, "b1")
      local t = 0
      local function step()
        t = t + 0.01
        arm:solve(pose, x + 20 * math.cos(t), y + 20 * math.sin(t), 0.5)
        aim:solve(pose, x + 50, y + 50 * math.sin(t))
        chain:solve(pose, x + 40 * math.cos(t), y + 30)
        arm:solve(nil, x + 10, y + 20)
      end
      assert.equal(0, helper.least_garbage(step, 500))
    end)
  end)
end)
