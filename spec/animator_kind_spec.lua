-- The animator plays any kind of pose it is given through sinew.animator.pose_kind (issue 22: "the
-- animator's evaluation must not assume 3D joints"). Here a kind written in Lua alone: each joint
-- one number (an angle, say), clips of linear keys, blending as weighted sums, deltas as
-- differences. The same definitions (state machines, blend trees, fades, additive and masked
-- layers, events, snapshots) play it, and the numbers are what the kind's own arithmetic gives.
local sinew = require "sinew"
local PoseKind = require "sinew.animator.pose_kind"
local helper = require "helper"

-- ---- a kind of one number per joint ----------------------------------------------------------------

local Skeleton, Pose, Mask, Clip, Cursor = {}, {}, {}, {}, {}
Skeleton.__index, Pose.__index, Mask.__index, Clip.__index, Cursor.__index = Skeleton, Pose, Mask, Clip, Cursor

local function skeleton(names) return setmetatable({ names = names }, Skeleton) end
function Skeleton:find(name)
  for j, n in ipairs(self.names) do if n == name then return j end end
  return nil
end

local function pose(s)
  local p = setmetatable({ s = s, v = {} }, Pose)
  for j = 1, #s.names do p.v[j] = 0 end
  return p
end
function Pose:skeleton() return self.s end
function Pose:get(j) return self.v[j] end
function Pose:set(j, x) self.v[j] = x end

local function mask(s, w)
  local m = setmetatable({ s = s, w = {} }, Mask)
  for j = 1, #s.names do m.w[j] = w[s.names[j]] or 0 end
  return m
end
function Mask:skeleton() return self.s end
function Mask:get(j) return self.w[j] end

-- a clip: keys[j] = { t0, v0, t1, v1 } (linear between, held outside), of duration d
local function clip(s, d, keys) return setmetatable({ s = s, d = d, keys = keys }, Clip) end
function Clip:skeleton() return self.s end
function Clip:duration() return self.d end
function Clip:local_time(t, loop)
  if loop and self.d > 0 then return t % self.d end
  return math.max(0, math.min(self.d, t))
end
function Clip:sample(t, out, loop)
  t = self:local_time(t, loop)
  for j = 1, #self.s.names do
    local k = self.keys[j]
    if k then
      local a = k[3] > k[1] and math.max(0, math.min(1, (t - k[1]) / (k[3] - k[1]))) or 0
      out.v[j] = k[2] + (k[4] - k[2]) * a
    else
      out.v[j] = 0
    end
  end
  return out
end
function Clip:cursor() return setmetatable({ clip = self, samples = 0 }, Cursor) end
function Cursor:sample(t, out, loop)
  self.samples = self.samples + 1
  return self.clip:sample(t, out, loop)
end

local kind = {
  name = "one number per joint", object = "table", Skeleton = Skeleton, Pose = Pose, Mask = Mask, Clip = Clip,
  joints = function(s) return #s.names end, pose = pose,
  blend = function(out, poses, weights, masks)
    local n = #poses
    for j = 1, #out.v do
      local sum, total = 0, 0
      for i = 1, n do
        local w = weights[i]
        local m = masks and masks[i]
        if m then w = w * m.w[j] end
        sum, total = sum + w * poses[i].v[j], total + w
      end
      if total > 0 then out.v[j] = sum / total end
    end
    return out
  end,
  delta = function(out, p, ref)
    for j = 1, #out.v do out.v[j] = p.v[j] - ref.v[j] end
    return out
  end,
  add = function(p, d, w, m)
    for j = 1, #p.v do p.v[j] = p.v[j] + w * (m and m.w[j] or 1) * d.v[j] end
    return p
  end,
  copy = function(p, from)
    for j = 1, #p.v do p.v[j] = from.v[j] end
    return p
  end,
  complement = function(s, m)
    local c = setmetatable({ s = s, w = {} }, Mask)
    for j = 1, #s.names do c.w[j] = 1 - m.w[j] end
    return c
  end,
  numbers = 1, get = Pose.get, set = Pose.set,
  check = function(q, b, j) if q[b + 1] ~= q[b + 1] then return ("joint %d is not a number"):format(j) end end,
}
PoseKind.register(kind)

-- ---- the specs -------------------------------------------------------------------------------------

local skel = skeleton { "root", "arm", "head" }
local clips = {
  rest = clip(skel, 1, { { 0, 0, 1, 0 }, { 0, 0, 1, 0 }, { 0, 0, 1, 0 } }),
  walk = clip(skel, 1, { { 0, 0, 1, 10 }, { 0, 1, 1, 3 } }),
  run = clip(skel, 2, { { 0, 0, 2, 40 }, { 0, 2, 2, 6 } }),
  wave = clip(skel, 0.5, { nil, { 0, 0, 0.5, 5 } }),
  nod = clip(skel, 1, { nil, nil, { 0, 1, 1, 2 } }),
}

local function definition()
  return { skeleton = skel, parameters = { speed = 0, go = "trigger" },
    layers = {
      { entry = "idle", states = {
          idle = { motion = "rest", events = { { "enter", "idle_in" } } },
          move = { motion = { blend = "1d", parameter = "speed", sync = true,
            children = { { 1, "walk" }, { 2, "run" } } }, events = { { 0.5, "step" } } },
        },
        transitions = {
          { from = "idle", to = "move", when = { { "speed", ">", 0.5 } }, duration = 0.5 },
          { from = "move", to = "idle", when = { { "go" } }, duration = 0.25, interruption = "destination" },
        } },
      { name = "arms", mask = mask(skel, { arm = 1 }), weight = 0.5, states = { wave = { motion = "wave" } } },
      { name = "nod", mode = "additive", weight = 0.5, states = { nod = { motion = "nod" } } },
    } }
end

describe("the animator with another kind of pose", function()
  it("plays it through the kind's own functions: states, a synced blend tree, fades, masks and additive layers", function()
    local plan = sinew.animator.compile(definition(), { clips = clips })
    local anim, p = plan:new(), pose(skel)
    anim:update(0):evaluate(p)
    -- idle: root 0, arm blended half-way to the wave layer's 0 at t=0, head + 0.5 * (1 - 1) (additive from its first frame)
    assert.same({ 0, 0, 0 }, p.v)
    anim:set("speed", 1.5)
    anim:update(0.25) -- the fade into move starts and runs a quarter second of 0.5
    anim:evaluate(p)
    -- move: walk and run half each, synced: the cycle 1.5 s, at a sixth of it
    local norm = 0.25 / 1.5
    local walk_root, run_root = 10 * norm, 40 * norm
    local move_root = 0.5 * walk_root + 0.5 * run_root
    local want_root = 0.5 * 0 + 0.5 * move_root -- half-way through the fade from idle
    assert.is_true(math.abs(p.v[1] - want_root) < 1e-12, ("root %.17g, want %.17g"):format(p.v[1], want_root))
    local head = 0.5 * ((1 + 0.25) - 1) -- the nod's delta from its first frame, at weight 0.5
    assert.is_true(math.abs(p.v[3] - head) < 1e-12, ("head %.17g, want %.17g"):format(p.v[3], head))
    assert.equal("idle", (anim:state()))
    assert.equal("move", select(3, anim:state()))
  end)

  it("gives events, snapshots and restores as for joints", function()
    local plan = sinew.animator.compile(definition(), { clips = clips })
    local a, b = plan:new(), plan:new()
    local names = {}
    a:on("step", function(name) names[#names + 1] = name end)
    a:set("speed", 1.5)
    for _ = 1, 120 do a:update(1 / 30) end
    assert.is_true(#names >= 2, "step events: " .. #names)
    a:trigger("go"):update(0.1) -- a transition under way, its source live
    local snap = a:snapshot()
    b:restore(snap)
    local pa, pb = pose(skel), pose(skel)
    for _ = 1, 30 do
      a:update(1 / 30):evaluate(pa)
      b:update(1 / 30):evaluate(pb)
      assert.same(pa.v, pb.v)
    end
    local bad = helper.deep_copy(snap)
    bad.layers[1].states.move.motion.uw = { 1 }
    local err = helper.error_of(b.restore, b, bad)
    assert.is_truthy(err and err:find("bad snapshot: layers[1].states.move.motion.uw: has 1 numbers, expected 2", 1, true), err)
  end)

  it("uses the plan's scratch and its own cursors, and makes no garbage per frame but the kind's own", function()
    local plan = sinew.animator.compile(definition(), { clips = clips })
    local a = plan:new()
    local p = pose(skel)
    a:set("speed", 1.2)
    for _ = 1, 100 do a:update(1 / 60):evaluate(p) end
    assert.equal(0, helper.least_garbage(function() a:update(1 / 60):evaluate(p) end, 2000))
  end)

  it("refuses a pose of another kind in evaluate, and root motion for a kind without it", function()
    local anim = sinew.animator.compile(definition(), { clips = clips }):new()
    local joints = sinew.skeleton { names = { "a", "b", "c" }, parents = { 0, 1, 2 } }
    local err = helper.error_of(anim.evaluate, anim, sinew.pose(joints))
    assert.is_truthy(err:find("a sinew pose of the animator's skeleton expected", 1, true), err)
    local d = definition()
    d.root_motion = "root"
    err = helper.error_of(sinew.animator.compile, d, { clips = clips })
    assert.is_truthy(err:find("root_motion: a skeleton of one number per joint has no root motion", 1, true), err)
  end)
end)
