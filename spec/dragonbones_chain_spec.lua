-- Dynamic chains on 2-D rigs (issue 23: "Dynamic-bone chains work on 2-D rigs (hair, tails, capes),
-- in the rig's plane"): rig:chain(def) and chain:step(dt, pose). The rig of spec/support/chain2d_ske.json
-- has a horizontal tail of four bones under a body (all scales 1: its world matrices are rotations),
-- and a run f1 .. f4 under a mirrored, unevenly scaled bone `flip` (scale -1, 1.5), with f3 not
-- inheriting scale: there the written rotation must take the parent's matrix into account.
-- you_xin_body's hair0501 .. hair0505 is a chain of a real rig.
local helper = require "helper"
local sinew = require "sinew"
local db = sinew.dragonbones

local data = assert(db.load("spec/support/chain2d_ske.json"))
local atan2 = math.atan2 or math.atan

-- the origin of bone `name` of rig (x, y), and its point at `len` along its x axis
local function origin(rig, name, len)
  local a, b, _, _, tx, ty = rig:bone(name)
  len = len or 0
  return a * len + tx, b * len + ty
end

-- the chain's bone origins and tip as the rig has them: { {x, y}, ... }
local function rig_points(rig, chain, end_length)
  local out, names = {}, chain:bones()
  for i, name in ipairs(names) do out[i] = { origin(rig, name) } end
  if end_length > 0 then out[#names + 1] = { origin(rig, names[#names], end_length) } end
  return out
end

local function wrap(v)
  v = math.fmod(v + math.pi, 2 * math.pi)
  if v < 0 then v = v + 2 * math.pi end
  return v - math.pi
end

-- the largest difference between the directions of the rig's segments and the simulated ones
local function direction_error(rig, chain, end_length)
  local pts, worst = rig_points(rig, chain, end_length), 0
  for i = 1, #pts - 1 do
    local x1, y1 = chain:position(i)
    local x2, y2 = chain:position(i + 1)
    local a = atan2(pts[i + 1][2] - pts[i][2], pts[i + 1][1] - pts[i][1])
    local b = atan2(y2 - y1, x2 - x1)
    worst = math.max(worst, math.abs(wrap(a - b)))
  end
  return worst
end

-- runs `frames` frames of `dt` of animation `clip` (nil: the setup pose) with the chain, the
-- pose freshly animated every frame
local function run(rig, chain, pose, clip, dt, frames, t0)
  local t = t0 or 0
  local clips = rig:clips()
  for _ = 1, frames do
    t = t + dt
    if clip then clips[clip]:sample(t, pose, true) else pose:copy(rig:pose()) end
    rig:apply(pose)
    chain:step(dt, pose)
  end
  return t
end

describe("dynamic chains on 2-D rigs", function()
  it("keeps the animated pose at rest without gravity", function()
    for _, root in ipairs { "tail1", "f1" } do
      local rig = db.rig(data)
      local pose = rig:pose()
      rig:apply(pose)
      local before = {}
      for i = 1, #rig:bones() do before[i] = { rig:bone(i) } end
      local chain = rig:chain { root = root }
      local worst = 0
      for _ = 1, 120 do
        pose = rig:pose()
        rig:apply(pose)
        chain:step(1 / 60, pose)
        for i = 1, #before do
          local m = { rig:bone(i) }
          for k = 1, 6 do worst = math.max(worst, math.abs(m[k] - before[i][k])) end
        end
      end
      assert.is_true(worst < 1e-6, root .. ": " .. worst)
    end
  end)

  it("droops a horizontal chain under gravity +y and settles", function()
    local rig = db.rig(data)
    local pose = rig:pose()
    rig:apply(pose)
    local chain = rig:chain { root = "tail1", gravity = { 0, 980 }, stiffness = 0.2, elasticity = 0 }
    local x0, y0 = origin(rig, "tail4", 25)
    run(rig, chain, pose, nil, 1 / 60, 5)
    local _, y1 = origin(rig, "tail4", 25)
    assert.is_true(y1 > y0 + 1, "the tip goes down")
    run(rig, chain, pose, nil, 1 / 60, 300)
    local x2, y2 = origin(rig, "tail4", 25)
    run(rig, chain, pose, nil, 1 / 60, 30)
    local x3, y3 = origin(rig, "tail4", 25)
    assert.is_true(y2 > y0 + 20, "it hangs well below where it started: " .. (y2 - y0))
    assert.is_true(math.abs(x3 - x2) + math.abs(y3 - y2) < 1e-3, "settled")
    -- reset: the next step starts at the animated pose, at rest
    chain:reset()
    run(rig, chain, pose, nil, 1 / 60, 1)
    local x4, y4 = origin(rig, "tail4", 25)
    assert.is_true(math.abs(x4 - x0) < 1e-6 and math.abs(y4 - y0) < 1e-6, "reset: " .. (x4 - x0) .. ", " .. (y4 - y0))
    -- the body does not move: the chain's first bone stays where the animation puts it
    local bx, by = origin(rig, "tail1")
    assert.are.equal(140, bx)
    assert.are.equal(50, by)
  end)

  it("turns bones without stretching the rig, and puts them along the simulated segments", function()
    for _, case in ipairs { { "tail1", 25 }, { "f1", 30 } } do
      local rig = db.rig(data)
      local pose = rig:pose()
      local clips = rig:clips()
      local chain = rig:chain { root = case[1], gravity = { 300, 980 }, stiffness = 0.1, damping = 0.05 }
      local worst_len, worst_dir, t = 0, 0, 0
      for _ = 1, 200 do
        t = t + 1 / 60
        clips.wag:sample(t, pose, true)
        rig:apply(pose)
        local animated = rig_points(rig, chain, case[2])
        chain:step(1 / 60, pose)
        local now = rig_points(rig, chain, case[2])
        if case[1] == "tail1" then -- rotations only: lengths are the rig's own (flip's scale changes them)
          for i = 1, #now - 1 do
            local la = math.sqrt((animated[i + 1][1] - animated[i][1]) ^ 2 + (animated[i + 1][2] - animated[i][2]) ^ 2)
            local ln = math.sqrt((now[i + 1][1] - now[i][1]) ^ 2 + (now[i + 1][2] - now[i][2]) ^ 2)
            worst_len = math.max(worst_len, math.abs(ln - la) / la)
          end
        end
        worst_dir = math.max(worst_dir, direction_error(rig, chain, case[2]))
      end
      assert.is_true(worst_len < 1e-6, case[1] .. " length " .. worst_len)
      -- (the targets are the rig's segments turned as the chain turned its own, float32-rounded copies
      -- of them, so a segment whose translation is not a float32 number differs by about 1e-8)
      assert.is_true(worst_dir < 1e-6, case[1] .. " direction " .. worst_dir)
    end
  end)

  it("carries the chain with its first bone's motion, turning included, by inert", function()
    local worst = {}
    for _, inert in ipairs { 0, 1 } do
      local rig, ref = db.rig(data), db.rig(data)
      local chain = rig:chain { bones = { "f1", "f2", "f3", "f4" }, inert = inert, stiffness = 0.1, elasticity = 0 }
      local pose, rp, clip, t = rig:pose(), ref:pose(), rig:clips().wag, 0
      worst[inert] = 0
      for _ = 1, 120 do
        t = t + 1 / 60
        clip:sample(t, pose, true)
        rig:apply(pose)
        chain:step(1 / 60, pose)
        clip:sample(t, rp, true)
        ref:apply(rp)
        local x1, y1 = origin(rig, "f4", 30)
        local x2, y2 = origin(ref, "f4", 30)
        worst[inert] = math.max(worst[inert], math.sqrt((x1 - x2) ^ 2 + (y1 - y2) ^ 2))
      end
    end
    assert.is_true(worst[0] > 10, "without inert the tip lags the turning parent: " .. worst[0])
    assert.is_true(worst[1] < 1e-6, "with inert = 1 it follows it rigidly: " .. worst[1])
  end)

  it("settles to the same pose at 60 and 120 frames per second", function()
    local tips = {}
    for k, dt in ipairs { 1 / 60, 1 / 120 } do
      local rig = db.rig(data)
      local pose = rig:pose()
      local chain = rig:chain { root = "tail1", gravity = { 0, 980 }, stiffness = 0.3, elasticity = 0.02 }
      run(rig, chain, pose, nil, dt, math.floor(4 / dt + 0.5))
      tips[k] = { origin(rig, "tail4", 25) }
    end
    local d = math.sqrt((tips[1][1] - tips[2][1]) ^ 2 + (tips[1][2] - tips[2][2]) ^ 2)
    assert.is_true(d < 0.01 * 115, "tips " .. d .. " apart")
  end)

  it("keeps the chain out of a circle", function()
    local rig = db.rig(data)
    local pose = rig:pose()
    local cx, cy, r = 185, 150, 15
    local chain = rig:chain { root = "tail1", gravity = { 0, 980 }, stiffness = 0.05, elasticity = 0,
      colliders = { { shape = "circle", center = { cx, cy }, radius = r } } }
    local frig = db.rig(data)
    local fpose = frig:pose()
    local free = frig:chain { root = "tail1", gravity = { 0, 980 }, stiffness = 0.05, elasticity = 0 }
    run(frig, free, fpose, nil, 1 / 60, 180)
    local fx, fy = origin(frig, "tail4", 25)
    assert.is_true((fx - cx) ^ 2 + (fy - cy) ^ 2 < r * r, "without the circle the tip ends inside it")
    local closest = math.huge
    assert.are.equal(5, chain:count()) -- four bones and the tip
    for _ = 1, 180 do
      run(rig, chain, pose, nil, 1 / 60, 1)
      for i = 1, chain:count() do
        local x, y = chain:position(i)
        closest = math.min(closest, math.sqrt((x - cx) ^ 2 + (y - cy) ^ 2))
      end
    end
    assert.is_true(closest > r - 1e-3, "closest " .. closest)
    local tx, ty = origin(rig, "tail4", 25)
    local rd = math.sqrt((tx - cx) ^ 2 + (ty - cy) ^ 2)
    -- the rig keeps its bone lengths where a push moves a particle off its segment's length: its
    -- tip (along the simulated directions) may sit a little deeper than the particle
    assert.is_true(rd > r - 0.02, "the rig's tip " .. rd)
  end)

  it("moves colliders and parameters live", function()
    local rig = db.rig(data)
    local pose = rig:pose()
    local chain = rig:chain { root = "tail1" }
    local k = chain:add_collider { shape = "line", point = { 0, 200 }, normal = { 0, -1 } }
    local c = chain:add_collider { shape = "capsule", a = { 0, 0 }, b = { 1, 0 }, radius = 0.1 }
    assert.are.equal(1, k)
    assert.are.equal(2, c)
    chain:move_collider(k, 0, 70, 0, -1)
    chain:move_collider(c, -500, -500, -400, -500, 1)
    chain:set_param("gravity", { 0, 2000 })
    local gx, gy = chain:get_param("gravity")
    assert.are.same({ 0, 2000 }, { gx, gy })
    run(rig, chain, pose, nil, 1 / 60, 120)
    for i = 1, chain:count() do
      local _, y = chain:position(i)
      assert.is_true(y <= 70 + 1e-3, "above the line: " .. y)
    end
    local g, gravity, rest = 0, { 0, 2000 }, rig:pose()
    assert.are.equal(0, helper.least_garbage(function()
      g = g + 1
      gravity[2] = 2000 + g % 2
      chain:set_param("gravity", gravity)
      chain:move_collider(c, -500, -500, -400, -500 + g % 2, 1)
      pose:copy(rest) -- the freshly animated pose: the setup pose
      rig:apply(pose)
      chain:step(1 / 60, pose)
    end, 200))
  end)

  it("swings a real rig's hair in the animator", function()
    local body = assert(db.load("assets/dragonbones/you_xin_body/body_ske.json"))
    local rig = db.rig(body)
    local anim = sinew.animator({ skeleton = rig:skeleton(),
      layers = { { entry = "idle", states = { idle = { motion = "idle" } } } } }, { clips = rig:clips() })
    local pose = rig:pose()
    local hair = rig:chain { root = "hair0501", gravity = { 0, 980 }, stiffness = 0.3, damping = 0.1 }
    assert.are.same({ "hair0501", "hair0502", "hair0503", "hair0504", "hair0505" }, hair:bones())
    assert.are.equal(6, hair:count())
    if _VERSION ~= "Lua 5.1" then assert.are.equal(6, #hair) end
    assert.are.equal("sinew.dragonbones.Chain (5 bones and a tip)", tostring(hair))
    local worst = 0
    for _ = 1, 120 do
      anim:update(1 / 60):evaluate(pose)
      rig:apply(pose)
      hair:step(1 / 60, pose)
      worst = math.max(worst, direction_error(rig, hair, 148))
    end
    assert.is_true(worst < 1e-6, "direction " .. worst)
    local function frame()
      anim:update(1 / 60):evaluate(pose)
      rig:apply(pose)
      hair:step(1 / 60, pose)
    end
    assert.are.equal(0, helper.least_garbage(frame, 200))
  end)

  it("works with direct playback (rig:update) as with a pose, and on a stopped rig", function()
    local a, b = db.rig(data), db.rig(data)
    a:play("wag")
    local ca = a:chain { root = "tail1", gravity = { 0, 980 } }
    local cb = b:chain { root = "tail1", gravity = { 0, 980 } }
    local pose, clip, t, worst = b:pose(), b:clips().wag, 0, 0
    for _ = 1, 100 do
      a:update(1 / 60)
      ca:step(1 / 60)
      t = t + 1 / 60
      clip:sample(t, pose, true)
      b:apply(pose)
      cb:step(1 / 60, pose)
      for i = 1, #a:bones() do
        local m1, m2 = { a:bone(i) }, { b:bone(i) }
        for k = 1, 6 do worst = math.max(worst, math.abs(m1[k] - m2[k])) end
      end
    end
    assert.is_true(worst < 1e-9, "direct and pose paths differ by " .. worst)
    -- a stopped rig does not sample its animation again: what the last step added is not added twice
    local c = db.rig(data)
    c:seek("wag", 0.3)
    c:update(0)
    local ref = {}
    for i = 1, #c:bones() do ref[i] = { c:bone(i) } end
    local still = c:chain { root = "tail1" }
    local w2 = 0
    for _ = 1, 60 do
      c:update(1 / 60)
      still:step(1 / 60)
      for i = 1, #ref do
        local m = { c:bone(i) }
        for k = 1, 6 do w2 = math.max(w2, math.abs(m[k] - ref[i][k])) end
      end
    end
    assert.is_true(w2 < 1e-6, "a stopped rig at rest moved by " .. w2)
    local hang = db.rig(data)
    hang:seek("wag", 0.3)
    local ch = hang:chain { root = "tail1", gravity = { 0, 980 }, elasticity = 0, stiffness = 0.2 }
    for _ = 1, 300 do hang:update(1 / 60); ch:step(1 / 60) end
    local _, _, _, _, x1, y1 = hang:bone("tail4")
    for _ = 1, 60 do hang:update(1 / 60); ch:step(1 / 60) end
    local _, _, _, _, x2, y2 = hang:bone("tail4")
    assert.is_true(y2 > ref[6][6] + 10, "it hangs down")
    assert.is_true(math.abs(x2 - x1) + math.abs(y2 - y1) < 1e-3, "and stays: it does not turn further every frame")
    local function frame()
      a:update(1 / 60)
      ca:step(1 / 60)
    end
    assert.are.equal(0, helper.least_garbage(frame, 200))
  end)

  it("refuses bad definitions, naming the field", function()
    local rig = db.rig(data)
    local cases = {
      { nil, "a table expected" },
      { { root = "tail1", dampign = 1 }, "unknown field 'dampign'" },
      { {}, "give 'bones'" },
      { { root = "nose" }, "'root': no bone 'nose'" },
      { { root = "tail1", bones = { "tail1" } }, "either 'bones' or 'root'" },
      { { bones = { "tail1", "tail3" } }, "'bones' element 2: bone 'tail3' is not a child of 'tail1'" },
      { { bones = { "tail1", "ear" } }, "'bones' element 2: no bone 'ear'" },
      { { bones = {} }, "'bones' must be a non-empty list" },
      { { root = "root" }, "'root': bone 'root' has 2 children" },
      { { bones = { "tail4" }, end_length = 0 }, "a chain needs 2 bones" },
      { { root = "tail1", end_length = -1 }, "'end_length' must be a number in [0, 1e+09]" },
      { { root = "tail1", gravity = { 0, 1, 0 } }, "'gravity' must be a table of 2 finite numbers" },
      { { root = "tail1", force = "wind" }, "'force' must be a table of 2" },
      { { root = "tail1", damping = 2 }, "'damping'" },
      { { root = "tail1", solver = "exact" }, "unknown solver 'exact'" },
      { { root = "tail1", colliders = { { shape = "cube" } } }, "'colliders' element 1: unknown collider shape 'cube'" },
      { { root = "tail1", colliders = { { shape = "circle", centre = { 0, 0 } } } },
        "'colliders' element 1: unknown collider field 'centre'" },
      { { root = "tail1", colliders = { { shape = "circle", center = { 0, 0, 0 }, radius = 1 } } },
        "circle 'center' must be a table of 2 finite numbers" },
      { { root = "tail1", colliders = { { shape = "circle", center = { 0, 0 }, radius = -1 } } }, "'colliders' element 1:" },
      { { root = "tail1", colliders = 3 }, "'colliders' must be a list" },
    }
    for _, c in ipairs(cases) do
      local ok, err = pcall(rig.chain, rig, c[1])
      assert.is_false(ok)
      assert.is_truthy(tostring(err):find(c[2], 1, true), tostring(err) .. " lacks " .. c[2])
      assert.is_truthy(tostring(err):find("bad argument #1 to 'chain'", 1, true), tostring(err))
    end
    local ok, err = pcall(function()
      local c = rig:chain { root = "tail1", dampign = 1 } -- (not a tail call: Lua 5.1 would lose the caller)
      return c
    end)
    assert.is_false(ok)
    assert.is_truthy(err:find("dragonbones_chain_spec.lua", 1, true), "the error points at the caller: " .. err)
  end)

  it("refuses a pose of another rig, a bad dt, and IK-driven bones", function()
    local rig, other = db.rig(data), db.rig(data)
    local chain = rig:chain { root = "tail1" }
    local pose = rig:pose()
    -- a pose of another rig of the same armature is a pose of this armature: accepted
    local p2 = other:pose()
    rig:apply(p2)
    chain:step(1 / 60, p2)
    local body = db.rig(assert(db.load("assets/dragonbones/you_xin_body/body_ske.json")))
    local ok, err = pcall(chain.step, chain, 1 / 60, body:pose())
    assert.is_false(ok)
    assert.is_truthy(err:find("bad argument #2 to 'step' (a 2-D pose of the chain's armature 'tail' expected, "
      .. "got a pose of another armature)", 1, true), err)
    ok, err = pcall(chain.step, chain, -1, pose)
    assert.is_truthy(not ok and err:find("bad argument #1 to 'step'", 1, true), err)
    ok, err = pcall(chain.step, chain, 0 / 0, pose)
    assert.is_truthy(not ok and err:find("a finite number >= 0 expected, got", 1, true), err)
    ok, err = pcall(chain.step, chain, 1 / 60, {})
    assert.is_truthy(not ok and err:find("got table", 1, true), err)
    ok, err = pcall(body.chain, body, { bones = { "thigh_l", "calf_l" } })
    assert.is_truthy(not ok and err:find("bone 'thigh_l' is moved by IK constraint 'ik_foot_l'", 1, true), err)
    ok, err = pcall(chain.position, chain, 9)
    assert.is_truthy(not ok and err:find("1 .. 5", 1, true), err)
    ok, err = pcall(chain.move_collider, chain, 1, 0, 0)
    assert.is_truthy(not ok and err:find("no collider 1", 1, true), err)
    ok, err = pcall(chain.set_param, chain, "gravity", 3)
    assert.is_truthy(not ok and err:find("'gravity' must be a table of 2", 1, true), err)
    ok, err = pcall(chain.step, {}, 1, pose)
    assert.is_truthy(not ok and err:find("a sinew.dragonbones chain expected", 1, true), err)
  end)
end)
