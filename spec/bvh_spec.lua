-- BVH import (issue 26): sinew.bvh.parse and load give a skeleton and a clip whose joint positions
-- match an independent forward-kinematics computation written here (its own reading of the file,
-- rotation matrices composed in each CHANNELS line's order), at the first, middle and last
-- frames of the CMU files Debian's assimp-testmodels installs and of files written here; bad files
-- give `nil, "<file>:<line>: why"`.
local sinew = require "sinew"
local helper = require "helper"

local BVH_DIR = "/usr/share/assimp/models/BVH"
local CMU = { "01_01.bvh", "01_03.bvh", "Boxing_Toes.bvh" }

-- ---- the independent reading and forward kinematics ------------------------------------------------

-- joints { name, parent, offset, channels = { "Zrotation", ... } } (End Sites left out), frames
-- (a list of lists of numbers) and the frame time, read line by line (the files here keep one
-- statement a line)
local function read_plain(text)
  local joints, stack, frames, ft = {}, {}, {}, nil
  local current, in_motion, declared
  for line in text:gmatch("[^\r\n]+") do
    local w = {}
    for t in line:gmatch("%S+") do w[#w + 1] = t end
    if in_motion then
      if w[1] == "Frames:" then
        declared = tonumber(w[2])
      elseif w[1] == "Frame" then
        ft = tonumber(w[3])
      elseif w[1] and #frames < declared then
        local f = {}
        for i, t in ipairs(w) do f[i] = tonumber(t) end
        frames[#frames + 1] = f
      end
    elseif w[1] == "ROOT" or w[1] == "JOINT" then
      current = { name = w[2], parent = stack[#stack], channels = {} }
      joints[#joints + 1] = current
      if w[3] == "{" then stack[#stack + 1] = #joints end
    elseif w[1] == "End" then
      current = { end_site = true }
    elseif w[1] == "{" then
      stack[#stack + 1] = current.end_site and "end" or #joints
    elseif w[1] == "}" then
      stack[#stack] = nil
    elseif w[1] == "OFFSET" and not current.end_site then
      current.offset = { tonumber(w[2]), tonumber(w[3]), tonumber(w[4]) }
    elseif w[1] == "CHANNELS" then
      for i = 3, 2 + tonumber(w[2]) do current.channels[#current.channels + 1] = w[i] end
    elseif w[1] == "MOTION" then
      in_motion = true
    end
  end
  return joints, frames, ft
end

local function matmul(a, b)
  local o = {}
  for r = 0, 2 do
    for c = 1, 3 do o[3 * r + c] = a[3 * r + 1] * b[c] + a[3 * r + 2] * b[3 + c] + a[3 * r + 3] * b[6 + c] end
  end
  return o
end
local function apply(m, v)
  return { m[1] * v[1] + m[2] * v[2] + m[3] * v[3], m[4] * v[1] + m[5] * v[2] + m[6] * v[3],
    m[7] * v[1] + m[8] * v[2] + m[9] * v[3] }
end
local function axis_matrix(axis, deg)
  local a = math.rad(deg)
  local c, s = math.cos(a), math.sin(a)
  if axis == "X" then return { 1, 0, 0, 0, c, -s, 0, s, c } end
  if axis == "Y" then return { c, 0, s, 0, 1, 0, -s, 0, c } end
  return { c, -s, 0, s, c, 0, 0, 0, 1 }
end

-- the model-space position of every joint at frame f (1-based), by matrices
local function positions(joints, frame, scale)
  local world_r, world_p, k = {}, {}, 1
  for i, j in ipairs(joints) do
    local r, t = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, { j.offset[1], j.offset[2], j.offset[3] }
    for _, ch in ipairs(j.channels) do
      local v = frame[k]
      k = k + 1
      local axis, kind = ch:sub(1, 1):upper(), ch:sub(2):lower()
      if kind == "rotation" then
        r = matmul(r, axis_matrix(axis, v))
      else
        local c = axis == "X" and 1 or axis == "Y" and 2 or 3
        t[c] = t[c] + v
      end
    end
    t = { t[1] * scale, t[2] * scale, t[3] * scale }
    if j.parent then
      local p = apply(world_r[j.parent], t)
      world_p[i] = { world_p[j.parent][1] + p[1], world_p[j.parent][2] + p[2], world_p[j.parent][3] + p[3] }
      world_r[i] = matmul(world_r[j.parent], r)
    else
      world_p[i], world_r[i] = t, r
    end
  end
  return world_p
end

-- sinew's model-space joint positions of `mocap` at frame f
local function sinew_positions(mocap, f)
  local pose, mats = sinew.pose(mocap.skeleton), sinew.matrices(mocap.skeleton)
  pose:copy(mocap.rest)
  mocap.clip:sample((f - 1) * mocap.frame_time, pose, false) -- (not looping: the last frame at the end)
  pose:to_model(mats)
  local out = {}
  for j = 1, #mocap.skeleton do
    local x, y, z = select(13, mats:get(j))
    out[j] = { x, y, z }
  end
  return out
end

-- the largest distance between two lists of positions, and the figure's extent (for a tolerance)
local function worst(a, b)
  local e, size = 0, 0
  for i = 1, #a do
    for c = 1, 3 do
      e = math.max(e, math.abs(a[i][c] - b[i][c]))
      size = math.max(size, math.abs(a[i][c]))
    end
  end
  return e, size
end

-- a small file of our own: two roots, position channels on a child, every rotation order
local MINE = [[
HIERARCHY
ROOT pelvis
{
  OFFSET 1 2 3
  CHANNELS 6 Xposition Yposition Zposition Yrotation Xrotation Zrotation
  JOINT spine {
    OFFSET 0 10 0
    CHANNELS 3 Xrotation Zrotation Yrotation
    JOINT head
    {
      OFFSET 0 5 1
      CHANNELS 4 Zrotation Yrotation Xrotation Yposition
      End Site
      {
        OFFSET 0 3 0
      }
    }
  }
}
ROOT prop
{
  OFFSET 20 0 0
  CHANNELS 3 Zrotation Xrotation Yrotation
}
MOTION
Frames: 3
Frame Time: 0.5
0 0 0 10 20 30 40 50 60 5 15 -25 1.5 -3 2 4
1 2 3 -170 45 10 90 -60 30 100 -100 50 -0.5 33 -44 55
-4 1.5 9 179 -179 90 -90 0.5 120 -20 20 -20 2 170 -170 10
]]

describe("sinew.bvh", function()
  it("places every joint as forward kinematics of the file does, at every frame (a file of ours)", function()
    local mocap = assert(sinew.bvh.parse(MINE, { name = "mine.bvh" }))
    local joints, frames = read_plain(MINE)
    assert.equal(4, #mocap.skeleton)
    assert.same({ "pelvis", "spine", "head", "prop" }, { mocap.skeleton:name(1), mocap.skeleton:name(2),
      mocap.skeleton:name(3), mocap.skeleton:name(4) })
    assert.same({ 0, 1, 2, 0 }, { mocap.skeleton:parent(1), mocap.skeleton:parent(2), mocap.skeleton:parent(3),
      mocap.skeleton:parent(4) })
    assert.equal(3, mocap.frames)
    assert.equal(0.5, mocap.frame_time)
    assert.equal(16, mocap.channels)
    assert.near(1, mocap.clip:duration(), 1e-7)
    for f = 1, 3 do
      local e, size = worst(sinew_positions(mocap, f), positions(joints, frames[f], 1))
      assert.is_true(e < 1e-5 * size, ("frame %d: %g off (figure %g)"):format(f, e, size))
    end
  end)

  it("takes the options: scale, Z-up to Y-up, the root's translation, End Sites as joints", function()
    local joints, frames = read_plain(MINE)
    local scaled = assert(sinew.bvh.parse(MINE, { scale = 0.01 }))
    for f = 1, 3 do
      local e = worst(sinew_positions(scaled, f), positions(joints, frames[f], 0.01))
      assert.is_true(e < 1e-6, f)
    end
    local zup = assert(sinew.bvh.parse(MINE, { up = "z" }))
    for f = 1, 3 do
      local want = positions(joints, frames[f], 1)
      for i, p in ipairs(want) do want[i] = { p[1], p[3], -p[2] } end -- (x, y, z) -> (x, z, -y)
      local e, size = worst(sinew_positions(zup, f), want)
      assert.is_true(e < 1e-5 * size, f)
    end
    local fixed = assert(sinew.bvh.parse(MINE, { root = "fixed" }))
    local still = assert(sinew.bvh.parse(MINE, { root = "in_place" }))
    for f = 1, 3 do
      local p = sinew_positions(fixed, f)[1]
      assert.same({ 1, 2, 3 }, p)
      local q = sinew_positions(still, f)[1]
      local want = positions(joints, frames[f], 1)[1]
      assert.same({ 1, 3 }, { q[1], q[3] }) -- frame 1's place across the ground (offset 1, 2, 3 + 0, 0, 0)
      assert.near(want[2], q[2], 1e-5)
    end
    local ends = assert(sinew.bvh.parse(MINE, { end_sites = true }))
    assert.equal(5, #ends.skeleton)
    assert.equal("head_end", ends.skeleton:name(4))
    assert.equal(3, ends.skeleton:parent(4))
    -- the End Site's position: the head's frame applied to its offset
    local p = sinew_positions(ends, 2)
    local head = sinew_positions(assert(sinew.bvh.parse(MINE)), 2)[3]
    assert.is_true(math.abs(p[3][1] - head[1]) < 1e-5)
    assert.near(3, math.sqrt((p[4][1] - p[3][1]) ^ 2 + (p[4][2] - p[3][2]) ^ 2 + (p[4][3] - p[3][3]) ^ 2), 1e-5)
  end)

  it("gives each frame exactly at its time", function()
    local mocap = assert(sinew.bvh.parse(MINE))
    local _, frames = read_plain(MINE)
    local pose = sinew.pose(mocap.skeleton)
    for f = 1, 3 do
      pose:copy(mocap.rest)
      mocap.clip:sample((f - 1) * 0.5, pose, false)
      -- the prop's rotation: "Zrotation Xrotation Yrotation" is Rz Rx Ry
      local _, _, _, x, y, z, w = pose:get(4)
      local v = frames[f]
      local r = matmul(matmul(axis_matrix("Z", v[14]), axis_matrix("X", v[15])), axis_matrix("Y", v[16]))
      local m = { 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
        2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
        2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y) }
      for c = 1, 9 do assert.is_true(math.abs(m[c] - r[c]) < 1e-6, ("frame %d, entry %d"):format(f, c)) end
    end
  end)

  describe("the CMU files of assimp-testmodels", function()
    local present = helper.exists(BVH_DIR .. "/01_01.bvh")
    for _, name in ipairs(CMU) do
      local run = present and it or pending
      run(name .. ": the skeleton and the first, middle and last frames' joint positions", function()
        local path = BVH_DIR .. "/" .. name
        local mocap = assert(sinew.bvh.load(path))
        local joints, frames, ft = read_plain(helper.read_file(path))
        assert.equal(#joints, #mocap.skeleton)
        for j, joint in ipairs(joints) do
          assert.equal(joint.name, mocap.skeleton:name(j))
          local rx, ry, rz = mocap.skeleton:rest(j)
          assert.is_true(math.abs(rx - joint.offset[1]) < 1e-5 and math.abs(ry - joint.offset[2]) < 1e-5
            and math.abs(rz - joint.offset[3]) < 1e-5, joint.name)
        end
        assert.equal(#frames, mocap.frames)
        assert.equal(ft, mocap.frame_time)
        for _, f in ipairs { 1, math.floor((#frames + 1) / 2), #frames } do
          local e, size = worst(sinew_positions(mocap, f), positions(joints, frames[f], 1))
          assert.is_true(e < 2e-5 * size, ("%s frame %d: %g off (figure %g)"):format(name, f, e, size))
        end
      end)
    end
    if not present then
      pending("install Debian's assimp-testmodels (make test-all and make demo do) for the CMU files")
    end
  end)

  it("reads \\r\\n and \\r line ends and blank lines between frames as \\n, lines counted alike", function()
    local base = assert(sinew.bvh.parse(MINE))
    local spaced = MINE:gsub("\n(%-?%d[^\n]*)", "\n \t\n%1") -- a blank line before every frame
    local variants = { (MINE:gsub("\n", "\r\n")), (MINE:gsub("\n", "\r")), spaced, (spaced:gsub("\n", "\r\n")) }
    for v, text in ipairs(variants) do
      local m = assert(sinew.bvh.parse(text))
      assert.equal(3, m.frames)
      for f = 1, 3 do
        assert.same(sinew_positions(base, f), sinew_positions(m, f), ("variant %d frame %d"):format(v, f))
      end
    end
    local head = "HIERARCHY\nROOT a\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n}\nMOTION\n"
    for _, nl in ipairs({ "\n", "\r\n", "\r" }) do
      local text = (head .. "Frames: 3\nFrame Time: 0.1\n1 2 3\n\n1 2 x\n"):gsub("\n", nl)
      local m, err = sinew.bvh.parse(text)
      assert.is_nil(m)
      assert.equal("bvh:12: number 3 of frame 2 must be a finite number (got 'x')", err)
      m, err = sinew.bvh.parse(((head .. "Frames: 3\nFrame Time: 0.1\n1 2 3\n\n4 5 6\n\n\n"):gsub("\n", nl)))
      assert.is_nil(m)
      assert.equal("bvh:12: the file declares 3 frames and holds 2", err)
    end
    -- numbers as Lua's tonumber reads them: hexadecimal, exponents, signs, no digits after the point
    local m = assert(sinew.bvh.parse(head .. "Frames: 2\nFrame Time: 0.1\n0x5A 9e1 +90.\n-0 .5e2 0X1p2\n"))
    local q = sinew.pose(m.skeleton)
    m.clip:sample(0, q, false)
    local plain = assert(sinew.bvh.parse(head .. "Frames: 2\nFrame Time: 0.1\n90 90 90\n0 50 4\n"))
    local want = sinew.pose(plain.skeleton)
    plain.clip:sample(0, want, false)
    assert.same({ want:get(1) }, { q:get(1) })
    m.clip:sample(0.1, q, false)
    plain.clip:sample(0.1, want, false)
    assert.same({ want:get(1) }, { q:get(1) })
  end)

  it("names what is wrong with a bad file, and its line", function()
    local head = "HIERARCHY\nROOT a\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n}\nMOTION\n"
    local cases = {
      { "", "bvh:1: a BVH file begins with HIERARCHY" },
      { "HIERARCHY\n", "bvh:1: the hierarchy has no ROOT" },
      { "HIERARCHY\nROOT a\n{\n  OFFSET 0 0\n", "OFFSET z of 'a' must be a finite number (got nothing)" },
      { "HIERARCHY\nROOT a\n{\n  OFFSET 0 0 x\n", "bvh:4: OFFSET z of 'a' must be a finite number (got 'x')" },
      { "HIERARCHY\nROOT a\n{\n  OFFSET 0 0 0\n  CHANNELS 7 a\n}\n", "bvh:5: CHANNELS of 'a' must count 0 to 6" },
      { "HIERARCHY\nROOT a\n{\n  OFFSET 0 0 0\n  CHANNELS 1 Wrotation\n}\n", "bvh:5: channel 1 of 'a' is 'Wrotation'" },
      { "HIERARCHY\nROOT a\n{\n  OFFSET 0 0 0\n  CHANNELS 2 Xrotation xrotation\n}\n", "'a' lists Xrotation twice" },
      { "HIERARCHY\nROOT a\n{\n  OFFSET 0 0 0\n  CHANNELS 0\n  JOINT a\n  {\n",
        "bvh:6: two joints are named 'a' (lines 2 and 6)" },
      { "HIERARCHY\nROOT a\n{\n  OFFSET 0 0 0\n  CHANNELS 0\n", "bvh:5: the hierarchy ends inside 'a'" },
      { head:gsub("MOTION\n", ""), "bvh:6: no MOTION section" },
      { head, "bvh:7: 'Frames: <count>' expected after MOTION" },
      { head .. "Frames: 0\n", "bvh:8: Frames must be a whole number of at least 1 (got '0')" },
      { head .. "Frames: 1e12\n", "bvh:8: 1000000000000 frames: more than sinew reads (1000000)" },
      { head .. "Frames: 2\nFrame Time: 0\n", "bvh:9: Frame Time must be a number of seconds above 0 (got '0')" },
      { head .. "Frames: 2\nFrame Time: -1\n", "Frame Time must be a number of seconds above 0 (got '-1')" },
      { head .. "Frames: 2\nFrame Time: 0.1\n1 2 3\n", "bvh:10: the file declares 2 frames and holds 1" },
      { head .. "Frames: 2\nFrame Time: 0.1\n1 2 3\n1 2\n", "bvh:11: frame 2 has 2 numbers, the hierarchy's channels are 3" },
      { head .. "Frames: 1\nFrame Time: 0.1\n1 2 3 4\n", "bvh:10: frame 1 has more numbers, the hierarchy's channels are 3" },
      { head .. "Frames: 1\nFrame Time: 0.1\n1 nan 3\n", "bvh:10: number 2 of frame 1 must be a finite number (got 'nan')" },
      { head .. "Frames: 1\nFrame Time: 0.1\n1 1e999 3\n", "number 2 of frame 1 must be a finite number (got '1e999')" },
      { head .. "Frames: 900000\nFrame Time: 100\n", "bvh:9: 900000 frames of 100 s: longer than sinew plays (1e7 s)" },
      { "HIERARCHY\nJOINT a\n", "bvh:2: ROOT expected, got 'JOINT'" },
      { head .. "Frames: 3\nFrame Time: 1e-320\n", "bvh:9: Frame Time must be at least 1e-06 s (got '1e-320')" },
      { "HIERARCHY\nROOT a\0b\n", "bvh:2: a joint's name is at most 255 bytes, none of them zero" },
      { "HIERARCHY\nROOT a\n{\n  OFFSET 2e9 0 0\n  CHANNELS 0\n}\nMOTION\nFrames: 1\nFrame Time: 1\n\n",
        "bvh:2: the OFFSET of 'a' (scaled) is beyond 1e+09" },
      { "HIERARCHY\nROOT a\n{\n  OFFSET 0 0 0\n  CHANNELS 1 Yposition\n}\nMOTION\nFrames: 1\nFrame Time: 1\n-3e9\n",
        "bvh:2: the position of 'a' in frame 1 (scaled) is beyond 1e+09" },
      { "HIERARCHY\nROOT a\n{\n  OFFSET 0 0 0\n  CHANNELS 0\n  End Site\n  {\n    OFFSET 1 2 3\n    JOINT b\n",
        "bvh:9: an End Site has no children" },
    }
    for i, c in ipairs(cases) do
      local m, err = sinew.bvh.parse(c[1])
      assert.is_nil(m, i)
      assert.is_truthy(err:find(c[2], 1, true), ("case %d: %s"):format(i, err))
    end
    local m, err = sinew.bvh.load("no/such/file.bvh")
    assert.is_nil(m)
    assert.matches("^file%.bvh: cannot read the file: ", err)
    m, err = sinew.bvh.load(BVH_DIR .. "/01_01.bvh", { max_bytes = 1000 })
    if helper.exists(BVH_DIR .. "/01_01.bvh") then
      assert.is_nil(m)
      assert.equal("01_01.bvh: cannot read the file: it is larger than 1000 bytes (options.max_bytes)", err)
    end
  end)

  it("gives a mocap or nil and a message for any mangled file, never an error", function()
    local rng = helper.rng(2611)
    local pieces = { "{", "}", "ROOT", "JOINT", "End Site", "OFFSET", "CHANNELS 3", "Xrotation", "MOTION",
      "Frames: 3", "Frame Time: 0.5", "1e308", "-0", "nan", "\n", " ", "\0", "99999999999" }
    for round = 1, 600 do
      local text = MINE
      for _ = 1, 1 + math.floor(rng() * 4) do
        local at = 1 + math.floor(rng() * #text)
        local r = rng()
        if r < 0.3 then
          text = text:sub(1, at) -- truncated
        elseif r < 0.6 then
          text = text:sub(1, at) .. pieces[1 + math.floor(rng() * #pieces)] .. text:sub(at + 1)
        else
          text = text:sub(1, at - 1) .. text:sub(at + 1 + math.floor(rng() * 8))
        end
      end
      local ok, m, err = pcall(sinew.bvh.parse, text)
      assert.is_true(ok, ("round %d raised: %s"):format(round, tostring(m)))
      assert.is_true(m ~= nil or (type(err) == "string" and err:match("^bvh:%d+: ") ~= nil), round)
    end
  end)

  it("raises for bad arguments only", function()
    local cases = {
      { function() sinew.bvh.parse(nil) end, "bad argument #1 to 'parse' (string expected, got nil)" },
      { function() sinew.bvh.parse(MINE, 3) end, "options must be a table (got number)" },
      { function() sinew.bvh.parse(MINE, { scal = 1 }) end, "unknown option 'scal' (did you mean 'scale'?)" },
      { function() sinew.bvh.parse(MINE, { scale = 0 }) end, "option 'scale' must be a number above 0, at most 1e6 (got 0)" },
      { function() sinew.bvh.parse(MINE, { up = "x" }) end, "option 'up' must be \"y\" or \"z\" (got 'x')" },
      { function() sinew.bvh.parse(MINE, { root = "walk" }) end, "option 'root' must be \"move\", \"in_place\" or \"fixed\"" },
      { function() sinew.bvh.parse(MINE, { end_sites = 1 }) end, "option 'end_sites' must be a boolean (got number)" },
      { function() sinew.bvh.load(42) end, "bad argument #1 to 'load' (string expected, got number)" },
      { function() sinew.bvh.load("x.bvh", { max_bytes = -1 }) end, "option 'max_bytes' must be a count of bytes" },
    }
    for i, c in ipairs(cases) do
      local ok, err = pcall(c[1])
      assert.is_false(ok, i)
      assert.is_truthy(tostring(err):find(c[2], 1, true), ("case %d: %s"):format(i, tostring(err)))
    end
  end)
end)
