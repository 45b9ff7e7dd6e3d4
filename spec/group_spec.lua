-- sinew.group: many characters' per-frame work in one call, with the results of one call per
-- object, bit for bit.
local sinew = require "sinew"
local helper = require "helper"

local function skeleton(n)
  local names, parents = {}, {}
  for j = 1, n do names[j], parents[j] = "j" .. j, j - 1 end
  return sinew.skeleton { names = names, parents = parents }
end

local function random_clip(rng, skel, own_times)
  local tracks = {}
  for j = 1, #skel do
    local times, values, keys = {}, {}, own_times and 3 + math.floor(rng() * 8) or 11
    for k = 1, keys do
      times[k] = (k - 1) / (keys - 1)
      local x, y, z, w = helper.random_quat(rng)
      for _, v in ipairs { x, y, z, w } do values[#values + 1] = v end
    end
    tracks[j] = { joint = j, path = "rotation", times = times, values = values }
  end
  return sinew.clip { skeleton = skel, duration = 1, tracks = tracks }
end

local function values(p)
  local t = {}
  for j = 1, #p do for _, v in ipairs { p:get(j) } do t[#t + 1] = v end end
  return t
end

-- a crowd of n characters: two clips each (shared), blended, matrices, a tail chain
local function crowd(rng, skel, clips, n)
  local chars = {}
  for i = 1, n do
    local c = { a = sinew.pose(skel), b = sinew.pose(skel), out = sinew.pose(skel), mats = sinew.matrices(skel) }
    c.ca, c.cb = clips[1]:cursor(), clips[2]:cursor()
    c.tail = sinew.chain { skeleton = skel, root = "j" .. (#skel - 2) }
    c.phase = rng()
    chars[i] = c
  end
  return chars
end

describe("sinew.group", function()
  local rng = helper.rng(77)
  local skel = skeleton(6)
  local clips = { random_clip(rng, skel, false), random_clip(rng, skel, true) }

  it("runs a crowd's sampling, blending, matrices and chains with the results of one call per object", function()
    local by_call, by_group = crowd(rng, skel, clips, 5), crowd(helper.rng(78), skel, clips, 5)
    for i, c in ipairs(by_group) do c.phase = by_call[i].phase end
    local g = sinew.group()
    local slots = {}
    for i, c in ipairs(by_group) do
      slots[i] = { g:sample(c.ca, c.a), g:sample(c.cb, c.b, false), g:blend(c.out, { c.a, c.b }) }
      g:to_model(c.out, c.mats)
      g:update(c.tail, c.out)
    end
    assert.equal(5 * 4, g:params())
    assert.equal(5 * 5, #g)
    assert.matches("^sinew.Group %(25 operations, 20 parameters%)", tostring(g))
    collectgarbage("collect") -- the group keeps what it was given
    local params = {}
    for frame = 1, 40 do
      local t, w = frame / 30, 0.5 + 0.5 * math.sin(frame / 7)
      for i, c in ipairs(by_call) do
        c.ca:sample(t + c.phase, c.a)
        c.cb:sample(t * 1.3 + c.phase, c.b, false)
        sinew.blend(c.out, { c.a, c.b }, { w, 1 - w })
        c.out:to_model(c.mats)
        c.tail:update(1 / 30, c.out)
        local s = slots[i]
        params[s[1]], params[s[2]], params[s[3]], params[s[3] + 1] = t + c.phase, t * 1.3 + c.phase, w, 1 - w
      end
      g:run(1 / 30, params)
      for i, c in ipairs(by_call) do
        assert.same(values(c.out), values(by_group[i].out))
        for j = 1, #skel do assert.same({ c.mats:get(j) }, { by_group[i].mats:get(j) }) end
      end
    end
  end)

  it("steps points chains as chain:step does, and blends with masks and rotation methods", function()
    local pts = { { 0, 0, 0 }, { 0, -1, 0 }, { 0, -2, 0 } }
    local c1 = sinew.chain { points = pts, parents = { 0, 1, 2 } }
    local c2 = sinew.chain { points = pts, parents = { 0, 1, 2 } }
    local g = sinew.group()
    g:step(c2)
    for i = 1, 20 do
      c1:move_root(0.1 * i, 0, 0, 0, 0, 0, 1)
      c2:move_root(0.1 * i, 0, 0, 0, 0, 0, 1)
      c1:step(1 / 60)
      g:run(1 / 60, {})
    end
    for i = 1, 3 do assert.same({ c1:position(i) }, { c2:position(i) }) end
    local a, b, o1, o2 = sinew.pose(skel), sinew.pose(skel), sinew.pose(skel), sinew.pose(skel)
    clips[1]:sample(0.3, a)
    clips[2]:sample(0.6, b)
    local mask = sinew.mask(skel, { j2 = 1 }, 0.3)
    local g2 = sinew.group()
    local i = g2:blend(o2, { a, b }, { mask, false }, 0.2, "markley")
    local params = {}
    params[i], params[i + 1] = 0.7, 0.4
    g2:run(0, params)
    sinew.blend(o1, { a, b }, { 0.7, 0.4 }, { mask, false }, 0.2, "markley")
    assert.same(values(o1), values(o2))
  end)

  it("checks everything before anything moves, and makes no garbage", function()
    local c = crowd(rng, skel, clips, 1)[1]
    local g = sinew.group()
    local s = g:sample(c.ca, c.a)
    local w = g:blend(c.out, { c.a, c.b })
    local params = { 0.25, 0.5, 0.5 }
    assert.equal(1, s)
    assert.equal(2, w)
    g:run(1 / 60, params)
    local before = values(c.out)
    local err = helper.error_of
    assert.matches("bad argument #2 .*dt must be finite", err(g.run, g, 0 / 0, params))
    assert.matches("bad argument #3 .*operation 2 %(blend%): parameter 3 is a negative weight",
      err(g.run, g, 0, { 0.9, 0.5, -1 }))
    assert.matches("bad argument #3 .*operation 1 %(sample%): parameter 1 is not finite", err(g.run, g, 0, { 1 / 0, 1, 1 }))
    assert.matches("bad argument #3 .*reads parameter 3 of 2", err(g.run, g, 0, { 0.9, 0.5 }))
    assert.matches("bad argument #3 .*parameter 2 is not a number %(got string%)", err(g.run, g, 0, { 0.9, "x", 1 }))
    assert.same(before, values(c.out))
    local other = sinew.pose(skeleton(3))
    assert.matches("bad argument #2 .*pose of another skeleton than the clip's", err(g.sample, g, c.ca, other))
    assert.matches("bad argument #2 .*layer 2 is a pose of another skeleton", err(g.blend, g, c.out, { c.a, other }))
    assert.matches("bad argument #3 .*pose of another skeleton than the chain's", err(g.update, g, c.tail, other))
    assert.matches("bad argument #2 .*update needs a chain of a skeleton",
      err(g.update, g, sinew.chain { points = { { 0, 0, 0 }, { 0, 1, 0 } }, parents = { 0, 1 } }, c.out))
    assert.matches("bad argument #1 .*sinew.Group expected", err(g.run, c.out, 0, params))
    assert.equal(2, #g) -- the refused operations were not added
    assert.equal(0, helper.garbage_per_call(function() g:run(1 / 60, params) end, 2000))
  end)

  -- issue 21: a finaliser run while the group grows its arrays adds to the same group; both
  -- operations are kept whole, and the group runs (it overflowed its heap block before)
  it("keeps every operation a finaliser adds while the group grows", function()
    local s = skeleton(4)
    local g, out, p = sinew.group(), sinew.pose(s), sinew.pose(s)
    local accepted = 0
    helper.eager_collector(true)
    for _ = 1, 2000 do
      for _ = 1, 3 do
        helper.finaliser(function() if pcall(g.blend, g, out, { p }) then accepted = accepted + 1 end end)
      end
      g:blend(out, { p })
      accepted = accepted + 1
    end
    helper.eager_collector(false)
    collectgarbage()
    collectgarbage()
    assert.equal(accepted, #g)
    assert.equal(accepted, g:params())
    local params = {}
    for i = 1, g:params() do params[i] = 1 end
    g:run(0, params)
    assert.is_true(accepted > 2000)
  end)
end)
