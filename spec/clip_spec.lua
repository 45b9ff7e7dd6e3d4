local helper = require "helper"
local sinew = require "sinew"

local near_rel = helper.near_rel

local PATH_AT = { translation = 1, rotation = 4, scale = 8 }

-- The value of track `tr` at local time t, computed independently here in double precision.
local function reference(tr, t)
  local w = tr.path == "rotation" and 4 or 3
  local cubic = tr.interpolation == "cubicspline"
  local times, n = tr.times, #tr.times
  local function val(k, part) -- part: 0 in-tangent, 1 value, 2 out-tangent (cubic)
    local v = {}
    for c = 1, w do v[c] = cubic and tr.values[(k - 1) * 3 * w + part * w + c] or tr.values[(k - 1) * w + c] end
    if w == 4 and not cubic then
      local l = math.sqrt(v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2 + v[4] ^ 2)
      for c = 1, 4 do v[c] = v[c] / l end
    end
    return v
  end
  local r
  if t <= times[1] then
    r = val(1, 1)
  elseif t >= times[n] then
    r = val(n, 1)
  else
    local k = 1
    while times[k + 1] <= t do k = k + 1 end
    local dt = times[k + 1] - times[k]
    local s = (t - times[k]) / dt
    local v0, v1 = val(k, 1), val(k + 1, 1)
    r = {}
    if tr.interpolation == "step" then
      r = v0
    elseif cubic then
      local b0, a1 = val(k, 2), val(k + 1, 0)
      local h00, h10, h01, h11 = 2 * s ^ 3 - 3 * s ^ 2 + 1, s ^ 3 - 2 * s ^ 2 + s, -2 * s ^ 3 + 3 * s ^ 2, s ^ 3 - s ^ 2
      for c = 1, w do r[c] = h00 * v0[c] + h10 * dt * b0[c] + h01 * v1[c] + h11 * dt * a1[c] end
    else
      if w == 4 and v0[1] * v1[1] + v0[2] * v1[2] + v0[3] * v1[3] + v0[4] * v1[4] < 0 then
        for c = 1, 4 do v1[c] = -v1[c] end
      end
      for c = 1, w do r[c] = v0[c] + s * (v1[c] - v0[c]) end
    end
  end
  if w == 4 then
    local l = math.sqrt(r[1] ^ 2 + r[2] ^ 2 + r[3] ^ 2 + r[4] ^ 2)
    for c = 1, 4 do r[c] = r[c] / l end
  end
  return r
end

-- checks every joint of `pose` against the reference at local time t (rest pose where no track)
local function check_pose(skel, def, pose, t, tol, what)
  local got = {}
  for j = 1, #skel do got[j] = { pose:get(j) } end
  local want = {}
  for j = 1, #skel do want[j] = { skel:rest(j) } end
  for _, tr in ipairs(def.tracks) do
    local j = type(tr.joint) == "string" and skel:find(tr.joint) or tr.joint
    local v, at = reference(tr, t), PATH_AT[tr.path]
    if tr.path == "rotation" then
      local g = got[j]
      if g[4] * v[1] + g[5] * v[2] + g[6] * v[3] + g[7] * v[4] < 0 then
        for c = 1, 4 do v[c] = -v[c] end
      end
    end
    for c = 1, #v do want[j][at + c - 1] = v[c] end
  end
  for j = 1, #skel do
    for c = 1, 10 do
      assert(near_rel(got[j][c], want[j][c], tol),
        ("%s: t %.9g joint %d component %d is %.9g, expected %.9g"):format(what, t, j, c, got[j][c], want[j][c]))
    end
  end
end

describe("sinew.clip", function()
  local err = helper.error_of
  local skel = sinew.skeleton { names = { "hips", "spine", "head" }, parents = { 0, 1, 2 },
    rest = { { 0, 1, 0, 0, 0, 0, 1, 1, 1, 1 }, { 0, 0.5, 0, 0, 0, 0.6, 0.8, 1, 1, 1 }, { 0, 0.3, 0, 0, 0, 0, 1, 2, 2, 2 } } }
  local h = math.sqrt(0.5)

  describe("sampling", function()
    it("hits keyframes exactly and interpolates linearly between them", function()
      local clip = sinew.clip { skeleton = skel, duration = 1, tracks = {
        { joint = "hips", path = "translation", times = { 0, 0.5, 1 }, values = { 0, 0, 0, 1, 2, 3, 0.5, 0.25, 0.125 } },
        { joint = "spine", path = "rotation", times = { 0, 1 }, values = { 0, 0, 0, 1, 0, 0, h, h } } } }
      local pose = sinew.pose(skel)
      assert.equal(pose, clip:sample(0.5, pose))
      assert.same({ 1, 2, 3 }, { pose:get_translation(1) })
      clip:sample(1, pose, false)
      assert.same({ 0.5, 0.25, 0.125 }, { pose:get_translation(1) })
      clip:sample(0.25, pose)
      assert.same({ 0.5, 1, 1.5 }, { pose:get_translation(1) })
      -- nlerp halfway between the identity and 90 degrees about z is 45 degrees about z
      clip:sample(0.5, pose)
      local x, y, z, w = pose:get_rotation(2)
      assert.is_true(x == 0 and y == 0 and near_rel(z, math.sin(math.pi / 8), 1e-6) and near_rel(w, math.cos(math.pi / 8), 1e-6))
    end)

    it("holds step keys and matches the glTF cubic spline formula", function()
      local def = { skeleton = skel, duration = 2, tracks = {
        { joint = 1, path = "scale", interpolation = "step", times = { 0, 1 }, values = { 1, 1, 1, 2, 3, 4 } },
        { joint = 2, path = "translation", interpolation = "cubicspline", times = { 0.5, 1.5 },
          values = { 9, 9, 9, 0, 0, 0, 1, -1, 2, 3, 0.5, -2, 1, 1, 1, 7, 7, 7 } },
        { joint = 3, path = "rotation", interpolation = "cubicspline", times = { 0, 2 },
          values = { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0.5, 0, 0, 0, 0.5, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0 } } } }
      local clip, pose = sinew.clip(def), sinew.pose(skel)
      for _, t in ipairs { 0, 0.25, 0.5, 0.75, 0.999, 1, 1.2, 1.5, 1.7, 1.999 } do
        clip:sample(t, pose)
        check_pose(skel, def, pose, t, 1e-5, "step and cubic")
      end
      clip:sample(0.999, pose)
      assert.same({ 1, 1, 1 }, { pose:get_scale(1) })
      clip:sample(1, pose)
      assert.same({ 2, 3, 4 }, { pose:get_scale(1) })
    end)

    it("uses the identity where a cubic rotation passes through zero between valid keys", function()
      -- q and -q are the same rotation, but the Hermite curve between them with zero tangents
      -- goes through the zero quaternion half way; a pose must never get a zero rotation
      for _, shared in ipairs { true, false } do
        local tracks = { { joint = 2, path = "rotation", interpolation = "cubicspline", times = { 0, 1 },
          values = { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0 } } }
        if not shared then -- another track with other times puts the clip on the per-track path
          tracks[2] = { joint = 1, path = "translation", times = { 0, 0.3, 2 }, values = { 0, 0, 0, 1, 0, 0, 2, 0, 0 } }
        end
        local clip, pose = sinew.clip { skeleton = skel, duration = 2, tracks = tracks }, sinew.pose(skel)
        for _, t in ipairs { 0.25, 0.5, 0.75 } do
          clip:sample(t, pose)
          local x, y, z, w = pose:get_rotation(2)
          assert.is_true(math.abs(x * x + y * y + z * z + w * w - 1) < 1e-6)
          assert.is_true(sinew.quat.angle(x, y, z, w, 0, 0, 0, 1) < 1e-3)
        end
      end
    end)

    it("samples a cubic rotation track the same whatever its overall scale", function()
      -- found by fuzzing: key values near 1e38 overflowed the float squares to a zero rotation
      local values = { 0, 0, 0, 0, 0, 0.2, 0, 0.9, 0, 0.5, 0, 0, 0, 0.3, 0, 0, 0.3, 0, 0, 0.8, 0, 0, 0, 0 }
      for _, shared in ipairs { true, false } do
        local clips = {}
        for _, k in ipairs { 1, 1e17, 1e-17 } do
          local v = {}
          for i = 1, #values do v[i] = values[i] * k end
          local tracks = { { joint = 3, path = "rotation", interpolation = "cubicspline", times = { 0, 1 }, values = v } }
          if not shared then
            tracks[2] = { joint = 1, path = "translation", times = { 0, 0.3, 2 }, values = { 0, 0, 0, 1, 0, 0, 2, 0, 0 } }
          end
          clips[#clips + 1] = sinew.clip { skeleton = skel, duration = 2, tracks = tracks }
        end
        local a, b = sinew.pose(skel), sinew.pose(skel)
        for _, t in ipairs { 0, 0.2, 0.5, 0.9, 1.5 } do
          clips[1]:sample(t, a)
          for i = 2, 3 do
            clips[i]:sample(t, b)
            local ax, ay, az, aw = a:get_rotation(3)
            local bx, by, bz, bw = b:get_rotation(3)
            assert.is_true(sinew.quat.angle(ax, ay, az, aw, bx, by, bz, bw) < 1e-5)
          end
        end
      end
    end)

    it("equals an independent reference for random clips, played forward, backward and by jumps", function()
      local rng = helper.rng(61)
      for round = 1, 24 do
        local s = helper.random_skeleton(rng, 1 + math.floor(rng() * 12), 0.5, 2)
        local def = helper.random_clip_def(rng, s, round % 3 == 0)
        local clip, pose = sinew.clip(def), sinew.pose(s)
        local t = -0.1
        for step = 1, 120 do
          if step < 60 then t = t + rng() * 0.05 -- forward
          elseif step < 80 then t = t - rng() * 0.05 -- backward
          else t = rng(-0.5, 2.5) end -- jumps, some outside [0, duration]
          t = math.floor(t * 4096) / 4096 -- exact in float32, so that the reference samples the same time
          clip:sample(t, pose, false)
          check_pose(s, def, pose, math.max(0, math.min(2, t)), 1e-5, "round " .. round)
        end
      end
    end)

    it("equals the reference for tracks with their own key times, looping forward by small and large steps",
      function()
      local rng = helper.rng(63)
      for round = 1, 8 do
        local s = helper.random_skeleton(rng, 1 + math.floor(rng() * 12), 0.5, 2)
        local def = helper.random_clip_def(rng, s, false)
        local clip, pose = sinew.clip(def), sinew.pose(s)
        local t = 0
        for step = 1, 150 do
          -- mostly a frame at a time, sometimes past many keys; wraps around the end many times
          t = t + (step % 10 == 0 and rng(0, 3) or rng(0, 1 / 30))
          t = math.floor(t * 4096) / 4096
          clip:sample(t, pose)
          check_pose(s, def, pose, clip:local_time(t), 1e-5, "round " .. round .. " step " .. step)
        end
      end
    end)

    it("keeps the rest pose on joints without a track", function()
      local clip = sinew.clip { skeleton = skel, tracks = {
        { joint = "spine", path = "rotation", times = { 0, 1 }, values = { 0, 0, 0, 1, 0, 1, 0, 0 } } } }
      local pose = sinew.pose(skel)
      pose:set(1, 5, 5, 5, 1, 0, 0, 0, 3, 3, 3)
      clip:sample(0.3, pose)
      assert.same({ skel:rest(1) }, { pose:get(1) })
      assert.same({ skel:rest(3) }, { pose:get(3) })
      local rest = { skel:rest(2) }
      assert.same({ rest[1], rest[2], rest[3] }, { pose:get_translation(2) })
      assert.same({ rest[8], rest[9], rest[10] }, { pose:get_scale(2) })
      assert.equal(1, clip:duration())
    end)

    it("wraps when looping, also for negative times and times far past the end", function()
      local def = { skeleton = skel, duration = 2, tracks = {
        { joint = 1, path = "translation", times = { 0, 1, 2 }, values = { 0, 0, 0, 1, 2, 3, -1, 0, 4 } } } }
      local clip, a, b = sinew.clip(def), sinew.pose(skel), sinew.pose(skel)
      assert.is_true(near_rel(clip:local_time(-0.5), 1.5, 1e-12))
      assert.is_true(near_rel(clip:local_time(2 * 1e6 + 0.75), 0.75, 1e-9))
      assert.equal(0, clip:local_time(2))
      assert.equal(2, clip:local_time(7, false))
      assert.equal(0, clip:local_time(-3, false))
      for _, t in ipairs { -0.5, -3.25, 2.75, 2 * 1e6 + 0.75, -2 * 1e5 - 0.25, 40.5 } do
        clip:sample(t, a)
        clip:sample(clip:local_time(t), b, false)
        assert.same({ b:get(1) }, { a:get(1) })
        check_pose(skel, def, a, clip:local_time(t), 1e-5, "loop")
      end
      clip:sample(-1, a, false)
      assert.same({ 0, 0, 0 }, { a:get_translation(1) })
      clip:sample(9, a, false)
      assert.same({ -1, 0, 4 }, { a:get_translation(1) })
    end)

    it("holds a one-key track and defaults the duration to the last key", function()
      local clip = sinew.clip { skeleton = skel, tracks = {
        { joint = 3, path = "scale", times = { 0.5 }, values = { 2, 3, 4 } },
        { joint = 2, path = "translation", times = { 0, 0.75 }, values = { 0, 0, 0, 1, 1, 1 } } } }
      assert.equal(0.75, clip:duration())
      local pose = sinew.pose(skel)
      for _, t in ipairs { 0, 0.3, 0.5, 0.7 } do
        clip:sample(t, pose)
        assert.same({ 2, 3, 4 }, { pose:get_scale(3) })
      end
      local still = sinew.clip { skeleton = skel,
        tracks = { { joint = 1, path = "translation", times = { 0 }, values = { 1, 2, 3 } } } }
      assert.equal(0, still:duration())
      still:sample(5, pose)
      assert.same({ 1, 2, 3 }, { pose:get_translation(1) })
      assert.equal(skel, still:skeleton())
      assert.matches("^sinew.Clip %(1 tracks", tostring(still))
    end)

    it("makes no garbage per call", function()
      local rng = helper.rng(62)
      local s = helper.random_skeleton(rng, 8, 0.5, 2)
      local clip, pose = sinew.clip(helper.random_clip_def(rng, s, false)), sinew.pose(s)
      local t = 0
      assert.equal(0, helper.garbage_per_call(function()
        t = t + 0.01
        clip:sample(t, pose)
      end, 2000))
    end)
  end)

  describe("cursors", function()
    it("give each playback of one clip the pose the clip gives at its time, bit for bit", function()
      local rng = helper.rng(64)
      for round = 1, 6 do
        local s = helper.random_skeleton(rng, 1 + math.floor(rng() * 12), 0.5, 2)
        local def = helper.random_clip_def(rng, s, round % 2 == 0)
        local clip, ref = sinew.clip(def), sinew.clip(def)
        local cursors, times = {}, {}
        for i = 1, 3 do cursors[i], times[i] = clip:cursor(), rng(0, 2) end
        assert.equal(clip, cursors[1]:clip())
        local p, q = sinew.pose(s), sinew.pose(s)
        for step = 1, 90 do
          local i = step % 4 + 1 -- three cursors and the clip's own place, interleaved
          times[i] = math.floor(((times[i] or 0) + rng(0, 1 / 20)) * 4096) / 4096
          if i <= 3 then assert.equal(p, cursors[i]:sample(times[i], p)) else clip:sample(times[i], p) end
          ref:sample(times[i], q)
          for j = 1, #s do assert.same({ q:get(j) }, { p:get(j) }) end
        end
      end
    end)

    it("keep their clip alive, make no garbage and refuse what Clip:sample refuses", function()
      local rng = helper.rng(65)
      local s = helper.random_skeleton(rng, 6, 0.5, 2)
      local cursor = sinew.clip(helper.random_clip_def(rng, s, false)):cursor()
      collectgarbage("collect")
      local pose, t = sinew.pose(s), 0
      assert.equal(pose, cursor:sample(0.5, pose, false))
      assert.matches("^sinew.ClipCursor: ", tostring(cursor))
      assert.equal(0, helper.garbage_per_call(function()
        t = t + 0.01
        cursor:sample(t, pose)
      end, 2000))
      local other = sinew.pose(helper.random_skeleton(rng, 2, 0.5, 2))
      assert.matches("bad argument #2 .*not a finite number", err(cursor.sample, cursor, 0 / 0, pose))
      assert.matches("bad argument #3 .*pose of another skeleton", err(cursor.sample, cursor, 0, other))
      assert.matches("bad argument #1 .*sinew.ClipCursor expected, got sinew.Pose", err(cursor.sample, pose, 0, pose))
    end)
  end)

  describe("sample_joint", function()
    -- x and y are the same double, the sign of a zero included (the values are never NaN)
    local function same_bits(x, y) return x == y and (x ~= 0 or 1 / x == 1 / y) end
    -- every joint of `clip` alone at (t, loop) is what clip:sample(t, pose, loop) then
    -- pose:get(j) give, bit for bit; joints by index, or by name when `names` is set
    local function check_joints(clip, s, pose, t, loop, names, what)
      clip:sample(t, pose, loop)
      for j = 1, #s do
        local want = { pose:get(j) }
        local got = { clip:sample_joint(t, names and s:name(j) or j, loop) }
        assert.equal(10, #got)
        for c = 1, 10 do
          if not same_bits(got[c], want[c]) then
            error(("%s: t %.17g loop %s joint %d component %d: sample_joint %.17g, sample %.17g")
              :format(what, t, tostring(loop), j, c, got[c], want[c]))
          end
        end
      end
    end

    it("equals sample then get, bit for bit, on every clip of the Fox, looping or not", function()
      local a = assert(sinew.gltf.load("assets/fox/glTF-Binary/Fox.glb"))
      local pose, checked = sinew.pose(a.skeleton), 0
      for _, name in ipairs(a.clip_names) do
        local clip = a.clips[name]
        local d = clip:duration()
        for _, loop in ipairs { true, false } do
          for k = -20, math.floor(d * 60) + 20 do -- every frame at 60 Hz, before and after the clip
            check_joints(clip, a.skeleton, pose, k / 60, loop, k % 2 == 0, name)
            checked = checked + 1
          end
          for _, t in ipairs { 0, d, -d, 2 * d, 1e6 + 0.1, -1e9, d / 3 } do
            check_joints(clip, a.skeleton, pose, t, loop, false, name)
          end
        end
      end
      assert.is_true(checked > 300)
    end)

    it("equals sample then get on hand-made clips of every interpolation, forward, back and by jumps", function()
      local rng = helper.rng(66)
      for round = 1, 12 do
        local s = helper.random_skeleton(rng, 1 + math.floor(rng() * 12), 0.5, 2)
        local def = helper.random_clip_def(rng, s, round % 3 == 0)
        if round % 4 == 1 then def.duration = def.duration + 0.25 end -- held past the last key
        local clip, pose = sinew.clip(def), sinew.pose(s)
        local t, loop = rng(-0.5, 0), round % 2 == 0
        for _ = 1, 60 do
          local r = rng()
          if r < 0.5 then t = t + rng(0, 1 / 20)
          elseif r < 0.6 then t = t - rng(0, 1 / 20)
          elseif r < 0.7 then t = math.floor(rng(-0.5, 3) * 64) / 64 -- on a key, before and after
          elseif r < 0.8 then t = rng(-100, 100)
          else loop = not loop end
          check_joints(clip, s, pose, t, loop, r < 0.3, "round " .. round)
        end
      end
    end)

    it("takes a joint by index or name and loops unless told not to, as Clip:sample", function()
      local clip = sinew.clip { skeleton = skel, tracks = {
        { joint = "head", path = "translation", times = { 0, 1 }, values = { 0, 0, 0, 2, 4, 6 } },
        { joint = 2, path = "scale", interpolation = "step", times = { 0, 0.5 }, values = { 1, 1, 1, 3, 3, 3 } } } }
      assert.same({ 0.5, 1, 1.5, 0, 0, 0, 1, 2, 2, 2 }, { clip:sample_joint(0.25, "head") })
      assert.same({ clip:sample_joint(0.25, 3, true) }, { clip:sample_joint(1.25, "head") })
      assert.same({ 2, 4, 6, 0, 0, 0, 1, 2, 2, 2 }, { clip:sample_joint(1.25, 3, false) })
      local spine = { skel:rest("spine") }
      spine[8], spine[9], spine[10] = 3, 3, 3
      assert.same(spine, { clip:sample_joint(0.75, "spine") })
      assert.same({ skel:rest(1) }, { clip:sample_joint(0.75, "hips") })
    end)

    it("makes no garbage per call, by index or by name", function()
      local rng = helper.rng(67)
      local s = helper.random_skeleton(rng, 8, 0.5, 2)
      local clip, t = sinew.clip(helper.random_clip_def(rng, s, false)), 0
      assert.equal(0, helper.least_garbage(function()
        t = t + 0.01
        clip:sample_joint(t, 5)
      end, 2000))
      assert.equal(0, helper.least_garbage(function()
        t = t + 0.01
        clip:sample_joint(t, "j3", false)
      end, 2000))
    end)

    it("refuses a bad time, a bad joint and a bad self, naming the method", function()
      local clip = sinew.clip { skeleton = skel,
        tracks = { { joint = 1, path = "rotation", times = { 0 }, values = { 0, 0, 0, 1 } } } }
      local cases = {
        { "bad argument #1 to 'sample_joint' %(not a finite number%)", 0 / 0, 1 },
        { "bad argument #1 to 'sample_joint' %(not a finite number%)", math.huge, 1 },
        { "bad argument #1 to 'sample_joint' %(number expected, got nil%)", nil, 1 },
        { "bad argument #2 to 'sample_joint' %(joint 4 is out of range %(1 %.%. 3%)%)", 0, 4 },
        { "bad argument #2 to 'sample_joint' %(joint 0 is out of range %(1 %.%. 3%)%)", 0, 0 },
        { "bad argument #2 to 'sample_joint' %(joint 1.5 is not an integer%)", 0, 1.5 },
        { "bad argument #2 to 'sample_joint' %(joint nan is not an integer%)", 0, 0 / 0 },
        { "bad argument #2 to 'sample_joint' %(joint 1e%+?0?300 is out of range", 0, 1e300 },
        { "bad argument #2 to 'sample_joint' %(unknown joint 'tail'%)", 0, "tail" },
        { "bad argument #2 to 'sample_joint' %(joint index or name expected, got nil%)", 0, nil },
        { "bad argument #2 to 'sample_joint' %(joint index or name expected, got table%)", 0, {} },
      }
      for i, c in ipairs(cases) do
        local ok, msg = pcall(function()
          local x = clip:sample_joint(c[2], c[3]) -- not a tail call: the error names the method
          return x
        end)
        assert.is_false(ok, i)
        assert.matches(c[1], msg, nil, false, i)
      end
      assert.matches("bad argument #2 .*not a finite number", err(clip.sample_joint, clip, -math.huge, 1))
      assert.matches("bad argument #1 .*sinew.Clip expected, got sinew.Pose",
        err(clip.sample_joint, sinew.pose(skel), 0, 1))
      assert.matches("calling 'sample_joint' on bad self", select(2, pcall(function()
        local other = { sample_joint = clip.sample_joint }
        local x = other:sample_joint(0, 1)
        return x
      end)))
    end)
  end)

  describe("bad input", function()
    local function build(track, extra)
      local def = { skeleton = skel, tracks = { track } }
      for k, v in pairs(extra or {}) do def[k] = v end
      return sinew.clip(def)
    end
    local function rot(joint, times, values, interp)
      return { joint = joint, path = "rotation", times = times, values = values, interpolation = interp }
    end

    it("refuses unknown joints, paths and interpolations", function()
      assert.matches("bad argument #1 .*track 1: unknown joint 'tail'", err(build, rot("tail", { 0 }, { 0, 0, 0, 1 })))
      assert.matches("track 1: joint 4 is out of range %(1 %.%. 3%)", err(build, rot(4, { 0 }, { 0, 0, 0, 1 })))
      assert.matches("track 1: joint 1.5 is not an integer", err(build, rot(1.5, { 0 }, { 0, 0, 0, 1 })))
      assert.matches("track 1: 'joint' must be a name or an index", err(build, rot(nil, { 0 }, { 0, 0, 0, 1 })))
      assert.matches("track 1: unknown path 'rot'", err(build, { joint = 1, path = "rot", times = { 0 }, values = { 0, 0, 0 } }))
      assert.matches("track 1: 'path' must be a string", err(build, { joint = 1, times = { 0 }, values = { 0, 0, 0 } }))
      assert.matches("track 1: unknown interpolation 'cubic'", err(build, rot(1, { 0 }, { 0, 0, 0, 1 }, "cubic")))
    end)

    it("refuses times that are not increasing, not finite, negative or past the duration", function()
      local v2 = { 0, 0, 0, 1, 0, 0, 0, 1 }
      assert.matches("times are not increasing: time 2 %(0.5%) after time 1 %(0.5%)", err(build, rot(1, { 0.5, 0.5 }, v2)))
      assert.matches("times are not increasing: time 2 %(0.25%) after time 1 %(0.5%)", err(build, rot(1, { 0.5, 0.25 }, v2)))
      assert.matches("track 1: time 2 is not finite", err(build, rot(1, { 0, 0 / 0 }, v2)))
      assert.matches("track 1 %('hips' rotation%): time 1 %(%-1%) is negative", err(build, rot(1, { -1, 0 }, v2)))
      assert.matches("time 2 %(2%) is past the duration %(1%)", err(build, rot(1, { 0, 2 }, v2), { duration = 1 }))
      assert.matches("track 1: no keys", err(build, rot(1, {}, {})))
      assert.matches("track 1: 'times' must be a table", err(build, rot(1, nil, v2)))
      assert.matches("track 1: time 1 is not a number", err(build, rot(1, { "0" }, { 0, 0, 0, 1 })))
    end)

    it("refuses value counts that do not match the keys and interpolation, and bad values", function()
      assert.matches("track 1: 7 values, expected 8 %(2 keys x 4%)", err(build, rot(1, { 0, 1 }, { 0, 0, 0, 1, 0, 0, 0 })))
      assert.matches("track 1: 8 values, expected 24 %(2 keys x 3 x 4 for cubicspline%)",
        err(build, rot(1, { 0, 1 }, { 0, 0, 0, 1, 0, 0, 0, 1 }, "cubicspline")))
      assert.matches("track 1: 3 values, expected 6 %(2 keys x 3%)",
        err(build, { joint = 1, path = "scale", times = { 0, 1 }, values = { 1, 1, 1 } }))
      assert.matches("track 1: value 8 is not finite", err(build, rot(1, { 0, 1 }, { 0, 0, 0, 1, 0, 0, 0, 1 / 0 })))
      assert.matches("track 1: value 2 is not a number", err(build, rot(1, { 0 }, { 0, {}, 0, 1 })))
      assert.matches("rotation of key 2 is zero", err(build, rot(1, { 0, 1 }, { 0, 0, 0, 1, 0, 0, 0, 0 })))
      -- cubic: the value of a key must not be zero, its tangents may (found by fuzzing)
      assert.matches("rotation of key 1 is zero",
        err(build, rot(1, { 0 }, { 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1 }, "cubicspline")))
      assert.is_nil(err(build, rot(1, { 0 }, { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0 }, "cubicspline")))
      assert.matches("track 1 %(.hips. rotation%): value 4 is too large %(at most 1e%+?0?18 in magnitude%)",
        err(build, rot(1, { 0 }, { 0, 0, 0, 2e18 })))
      assert.matches("'duration' 2e%+?0?9 is too long",
        err(sinew.clip, { skeleton = skel, duration = 2e9, tracks = { rot(1, { 0 }, { 0, 0, 0, 1 }) } }))
      assert.matches("track 1: 'values' must be a table", err(build, rot(1, { 0 }, nil)))
    end)

    it("refuses two tracks on the same joint and path, and a bad definition", function()
      local r = rot("head", { 0 }, { 0, 0, 0, 1 })
      assert.matches("tracks 1 and 2 both animate the rotation of 'head'",
        err(sinew.clip, { skeleton = skel, tracks = { r, rot(3, { 0 }, { 0, 0, 0, 1 }) } }))
      assert.matches("'skeleton' must be a sinew.Skeleton %(got nil%)", err(sinew.clip, { tracks = {} }))
      assert.matches("'tracks' must be a table", err(sinew.clip, { skeleton = skel }))
      assert.matches("track 2: a table expected, got number", err(sinew.clip, { skeleton = skel, tracks = { r, 5 } }))
      assert.matches("'duration' must be a finite number >= 0", err(build, r, { duration = -1 }))
      assert.matches("'duration' must be a number", err(build, r, { duration = "1" }))
      assert.matches("bad argument #1 .*table expected", err(sinew.clip, "clip"))
    end)

    it("refuses a pose of another skeleton and a non-finite time", function()
      local clip = build(rot(1, { 0 }, { 0, 0, 0, 1 }))
      local other = sinew.pose(sinew.skeleton { names = { "x" }, parents = { 0 } })
      assert.matches("bad argument #3 .*pose of another skeleton", err(clip.sample, clip, 0, other))
      assert.matches("bad argument #2 .*not a finite number", err(clip.sample, clip, 0 / 0, sinew.pose(skel)))
      assert.matches("bad argument #3 .*sinew.Pose expected", err(clip.sample, clip, 0, skel))
      assert.matches("sinew.Clip expected", err(clip.sample, {}, 0, sinew.pose(skel)))
    end)
  end)

  describe("definition tables with metatables (see manual/safety.md)", function()
    it("reads each field of a track once: a track whose fields change between reads builds from the first", function()
      local s, n = sinew.skeleton { names = { "a" }, parents = { 0 } }, 0
      local track = setmetatable({ joint = 1, path = "translation" }, { __index = function(_, k)
        if k == "times" then
          n = n + 1
          if n == 1 then return { 0 } end
          local t = {}
          for i = 1, 4096 do t[i] = i end
          return t
        end
        if k == "values" then
          if n == 1 then return { 0, 0, 0 } end
          local v = {}
          for i = 1, 12288 do v[i] = 0 end
          return v
        end
      end })
      local clip = sinew.clip { skeleton = s, tracks = { track } }
      assert.equal(1, n)
      assert.equal(0, clip:duration())
    end)

    it("keeps the skeleton it read, whatever __index returns later", function()
      local reads = 0
      local def = setmetatable({ tracks = {} }, { __index = function(_, k)
        if k == "skeleton" then
          reads = reads + 1
          collectgarbage()
          return reads == 1 and sinew.skeleton { names = { "a", "b" }, parents = { 0, 1 } } or 42
        end
      end })
      local clip = sinew.clip(def)
      collectgarbage()
      assert.equal(1, reads)
      assert.equal(2, #clip:skeleton())
      clip:sample(0, sinew.pose(clip:skeleton()))
    end)

    it("refuses unknown fields of the definition and of tracks", function()
      assert.matches("unknown field 'track' in the clip definition", err(sinew.clip, { skeleton = skel, track = {} }))
      assert.matches("unknown field 'time' in track 1", err(sinew.clip, { skeleton = skel, tracks = {
        { joint = 1, path = "scale", time = { 0 }, times = { 0 }, values = { 1, 1, 1 } } } }))
    end)
  end)
end)
