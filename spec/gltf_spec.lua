-- sinew.gltf against the Khronos Fox and the glTF corpus (spec/gltf-corpus), with an independent
-- reference decoder of accessors written here in plain Lua, and against small broken files the
-- spec writes itself.
local helper = require "helper"
local sinew = require "sinew"
local figures = require "spec.support.figures" -- printed after the run with SINEW_VERBOSE=1
local json = require "dkjson"

local atan2 = math.atan2 or math.atan

local FOX = "assets/fox/"
local CORPUS = "spec/gltf-corpus/"

-- every model and its containers
local models = {
  { name = "Fox", files = { FOX .. "glTF-Binary/Fox.glb", FOX .. "glTF/Fox.gltf" } },
  { name = "CesiumMan", files = { CORPUS .. "CesiumMan/glTF-Binary/CesiumMan.glb", CORPUS .. "CesiumMan/glTF/CesiumMan.gltf",
    CORPUS .. "CesiumMan/glTF-Embedded/CesiumMan.gltf" } },
  { name = "RiggedSimple", files = { CORPUS .. "RiggedSimple/glTF-Binary/RiggedSimple.glb",
    CORPUS .. "RiggedSimple/glTF/RiggedSimple.gltf", CORPUS .. "RiggedSimple/glTF-Embedded/RiggedSimple.gltf" } },
  { name = "SimpleSkin", files = { CORPUS .. "SimpleSkin/glTF-Binary/SimpleSkin.glb", CORPUS .. "SimpleSkin/glTF/SimpleSkin.gltf",
    CORPUS .. "SimpleSkin/glTF-Embedded/SimpleSkin.gltf" } },
  { name = "InterpolationTest", files = { CORPUS .. "InterpolationTest/glTF-Binary/InterpolationTest.glb",
    CORPUS .. "InterpolationTest/glTF/InterpolationTest.gltf" } },
  { name = "BoxAnimated", files = { CORPUS .. "BoxAnimated/glTF-Binary/BoxAnimated.glb",
    CORPUS .. "BoxAnimated/glTF/BoxAnimated.gltf", CORPUS .. "BoxAnimated/glTF-Embedded/BoxAnimated.gltf" } },
  { name = "AnimatedMorphCube", files = { CORPUS .. "AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb",
    CORPUS .. "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf" } },
  { name = "CesiumManQuantized", files = { CORPUS .. "CesiumManQuantized/glTF-Binary/CesiumManQuantized.glb",
    CORPUS .. "CesiumManQuantized/glTF/CesiumManQuantized.gltf" } },
  { name = "CesiumManSparse", files = { CORPUS .. "CesiumManSparse/glTF-Binary/CesiumManSparse.glb" } },
}

local read = helper.read_file

-- the reference decoder, in plain Lua
local R = require "spec.support.gltf_reference"
local u32, f32, raw, accessor = R.u32, R.f32, R.raw, R.accessor

-- ---- maths of the checks -------------------------------------------------------------------------------

local mat_mul = require("sinew.gltf.skeleton").mat_mul

local function local_matrix(n)
  if n.matrix then return n.matrix end
  local t, q, s = n.translation or { 0, 0, 0 }, n.rotation or { 0, 0, 0, 1 }, n.scale or { 1, 1, 1 }
  local l = math.sqrt(q[1] ^ 2 + q[2] ^ 2 + q[3] ^ 2 + q[4] ^ 2)
  local x, y, z, w = q[1] / l, q[2] / l, q[3] / l, q[4] / l
  return { (1 - 2 * (y * y + z * z)) * s[1], 2 * (x * y + z * w) * s[1], 2 * (x * z - y * w) * s[1], 0,
    2 * (x * y - z * w) * s[2], (1 - 2 * (x * x + z * z)) * s[2], 2 * (y * z + x * w) * s[2], 0,
    2 * (x * z + y * w) * s[3], 2 * (y * z - x * w) * s[3], (1 - 2 * (x * x + y * y)) * s[3], 0, t[1], t[2], t[3], 1 }
end

local function world(doc, i)
  local parent = {}
  for p, n in ipairs(doc.nodes) do for _, c in ipairs(n.children or {}) do parent[c] = p - 1 end end
  local m = local_matrix(doc.nodes[i + 1])
  while parent[i] do
    i = parent[i]
    m = mat_mul(local_matrix(doc.nodes[i + 1]), m)
  end
  return m
end

-- the rotation angle between two unit quaternions, 2 atan2(|a - b|, |a + b|) with b on a's side:
-- exact for nearly equal inputs (acos of their dot product is not)
local function qangle(ax, ay, az, aw, bx, by, bz, bw)
  if ax * bx + ay * by + az * bz + aw * bw < 0 then bx, by, bz, bw = -bx, -by, -bz, -bw end
  local d = math.sqrt((ax - bx) ^ 2 + (ay - by) ^ 2 + (az - bz) ^ 2 + (aw - bw) ^ 2)
  local s = math.sqrt((ax + bx) ^ 2 + (ay + by) ^ 2 + (az + bz) ^ 2 + (aw + bw) ^ 2)
  return 4 * atan2(d, s)
end

local function hermite(v0, b0, v1, a1, dt, s) -- glTF's cubic spline for one component
  local s2, s3 = s * s, s * s * s
  return (2 * s3 - 3 * s2 + 1) * v0 + dt * (s3 - 2 * s2 + s) * b0 + (-2 * s3 + 3 * s2) * v1 + dt * (s3 - s2) * a1
end

-- the value the glTF specification gives to a channel at time t (linear rotations by slerp)
local function expected(times, values, width, interp, t)
  local n = #times
  local k = 1
  while k < n and times[k + 1] <= t do k = k + 1 end
  local per = interp == "CUBICSPLINE" and 3 or 1
  local function key(i, part) -- part: 0 in-tangent, 1 value, 2 out-tangent (cubic)
    local base = ((i - 1) * per + (per == 3 and part or 0)) * width
    local v = {}
    for c = 1, width do v[c] = values[base + c] end
    return v
  end
  if t <= times[1] or k == n or interp == "STEP" then return key(k, 1) end
  local dt = times[k + 1] - times[k]
  local s = (t - times[k]) / dt
  local out = {}
  if interp == "LINEAR" then
    local a, b = key(k, 1), key(k + 1, 1)
    if width == 4 then
      return { sinew.quat.slerp(a[1], a[2], a[3], a[4], b[1], b[2], b[3], b[4], s) }
    end
    for c = 1, width do out[c] = a[c] + s * (b[c] - a[c]) end
    return out
  end
  local v0, b0, v1, a1 = key(k, 1), key(k, 2), key(k + 1, 1), key(k + 1, 0)
  for c = 1, width do out[c] = hermite(v0[c], b0[c], v1[c], a1[c], dt, s) end
  if width == 4 then
    local l = math.sqrt(out[1] ^ 2 + out[2] ^ 2 + out[3] ^ 2 + out[4] ^ 2)
    for c = 1, 4 do out[c] = out[c] / l end
  end
  return out
end

local paths = { translation = { 1, 3 }, rotation = { 4, 4 }, scale = { 8, 3 } }

-- the values of a joint's path in a pose
local function pose_value(pose, joint, path)
  local v = { pose:get(joint) }
  local p = paths[path]
  local out = {}
  for c = 1, p[2] do out[c] = v[p[1] + c - 1] end
  return out
end

describe("sinew.gltf", function()
  describe("the corpus", function()
    it("reads a .glb's BIN chunk where it lies in the file, limited to its buffer's byteLength", function()
      -- glb(bytes, true) gives the place of the chunk that glb(bytes) copies
      for _, model in ipairs(models) do
        for _, f in ipairs(model.files) do
          if f:match("%.glb$") then
            local bytes = read(f)
            local text, bin = sinew._gltf.glb(bytes)
            local text2, offset, length = sinew._gltf.glb(bytes, true)
            assert.equal(text, text2)
            assert.equal(#bin, length)
            assert.is_true(bin == bytes:sub(offset + 1, offset + length), f)
          end
        end
      end
      -- a chunk longer than its buffer (16 bytes, byteLength 12): views end at the byteLength
      local D, Fault = require "sinew.gltf.document", require "sinew.fault"
      local hostile = require "support.gltf_hostile"
      local f32s = hostile.f32s
      local doc_json = json.encode { asset = { version = "2.0" }, buffers = { { byteLength = 12 } },
        bufferViews = { { buffer = 0, byteLength = 12 }, { buffer = 0, byteOffset = 8, byteLength = 8 } },
        accessors = { { bufferView = 0, componentType = 5126, count = 3, type = "SCALAR" } } }
      local text, bin, offset, length = D.container(hostile.glb(doc_json, f32s(1) .. f32s(2) .. f32s(3) .. f32s(4)))
      assert.equal(16, length)
      local doc = D.new(D.json(text), bin, "", nil, nil, offset, length)
      local values = doc:read_floats(0, "x")
      assert.same({ 3, 1, 2, 3 }, { #values, values[1], values[2], values[3] })
      local ok, err = pcall(doc.view, doc, 1, "x")
      assert.is_false(ok)
      assert.equal("bufferViews[1]: bytes 8 .. 16 are past the end of buffer 0 (12 bytes)", Fault.message(err))
    end)

    for _, model in ipairs(models) do
      it(("imports %s from every container alike"):format(model.name), function()
        local first
        for _, f in ipairs(model.files) do
          local a, err = sinew.gltf.load(f)
          assert.is_table(a, err)
          if not first then first = a else
            assert.equal(#first.skeleton, #a.skeleton)
            for j = 1, #a.skeleton do
              assert.equal(first.skeleton:name(j), a.skeleton:name(j))
              assert.equal(first.skeleton:parent(j), a.skeleton:parent(j))
              assert.same({ first.skeleton:rest(j) }, { a.skeleton:rest(j) })
              assert.same({ first.inverse_bind:get(j) }, { a.inverse_bind:get(j) })
            end
            assert.same(first.clip_names, a.clip_names)
            assert.same(first.root_matrix, a.root_matrix)
            local p, q = sinew.pose(first.skeleton), sinew.pose(a.skeleton)
            for _, name in ipairs(a.clip_names) do
              assert.equal(first.clips[name]:duration(), a.clips[name]:duration())
              for t = 0, 1, 0.0625 do
                first.clips[name]:sample(t * first.clips[name]:duration(), p, false)
                a.clips[name]:sample(t * a.clips[name]:duration(), q, false)
                for j = 1, #a.skeleton do assert.same({ p:get(j) }, { q:get(j) }) end
              end
            end
            assert.equal(#first.meshes, #a.meshes)
            for m = 1, #a.meshes do
              assert.equal(first.meshes[m].vertices, a.meshes[m].vertices)
              assert.equal(first.meshes[m].indices, a.meshes[m].indices)
            end
          end
        end
      end)

      it(("samples every key of %s exactly and follows glTF's interpolation between keys"):format(model.name), function()
        local f = model.files[1]
        local a = assert(sinew.gltf.load(f))
        local doc = raw(f)
        local joint_of = {}
        for j, n in ipairs(a.nodes) do joint_of[n.node] = j end
        local pose = sinew.pose(a.skeleton)
        local checked, worst_rot = 0, 0
        for ai, anim in ipairs(doc.animations or {}) do
          local clip = a.clips[a.clip_names[ai]]
          local last = 0
          for _, ch in ipairs(anim.channels) do
            local j = joint_of[ch.target.node]
            local s = anim.samplers[ch.sampler + 1]
            if ch.target.path == "weights" then -- (weight tracks: spec/gltf_morph_spec.lua) count in the duration
              local times = accessor(doc, s.input)
              last = math.max(last, times[#times])
            elseif j then
              local times, values = accessor(doc, s.input), accessor(doc, s.output)
              local interp, p = s.interpolation or "LINEAR", ch.target.path
              local width = paths[p][2]
              last = math.max(last, times[#times])
              local probes = {}
              for k = 1, #times do
                probes[#probes + 1] = times[k]
                if k < #times then probes[#probes + 1] = 0.5 * (times[k] + times[k + 1]) end
              end
              for _, t in ipairs(probes) do
                clip:sample(t, pose, false)
                local got, want = pose_value(pose, j, p), expected(times, values, width, interp, t)
                if width == 4 then
                  local l = math.sqrt(want[1] ^ 2 + want[2] ^ 2 + want[3] ^ 2 + want[4] ^ 2)
                  local angle = qangle(got[1], got[2], got[3], got[4], want[1] / l, want[2] / l, want[3] / l, want[4] / l)
                  worst_rot = math.max(worst_rot, angle)
                  assert.is_true(angle <= math.rad(0.0102), ("%s %s joint %d t %g: %g degrees off"):format(
                    a.clip_names[ai], p, j, t, math.deg(angle)))
                else
                  for c = 1, width do
                    assert.is_true(math.abs(got[c] - want[c]) <= 2e-6 * math.max(1, math.abs(want[c])),
                      ("%s %s joint %d t %g: %g, want %g"):format(a.clip_names[ai], p, j, t, got[c], want[c]))
                  end
                end
                checked = checked + 1
              end
            end
          end
          assert.is_true(math.abs(clip:duration() - last) <= 1e-6 * math.max(1, last))
        end
        assert.is_true(checked > 0 or model.name == "AnimatedMorphCube")
        if model.name == "InterpolationTest" then assert.is_true(worst_rot > 0) end
      end)

      it(("places every joint of %s where the file's nodes put it"):format(model.name), function()
        local f = model.files[1]
        local a = assert(sinew.gltf.load(f))
        local doc = raw(f)
        local mats = sinew.matrices(a.skeleton)
        a.rest:to_model(mats)
        for j = 1, #a.skeleton do
          local got, want = mat_mul(a.root_matrix, { mats:get(j) }), world(doc, a.nodes[j].node)
          for k = 1, 16 do
            assert.is_true(math.abs(got[k] - want[k]) <= 1e-5 * math.max(1, math.abs(want[k])), ("joint %d"):format(j))
          end
        end
      end)
    end

    it("gives identity skinning matrices in the Fox's rest pose (it is exported in bind pose)", function()
      local a = assert(sinew.gltf.load(FOX .. "glTF-Binary/Fox.glb"))
      local mats = sinew.matrices(a.skeleton)
      a.rest:to_model(mats)
      for j = 1, #a.skeleton do
        local m = mat_mul(mat_mul(a.root_matrix, { mats:get(j) }), { a.inverse_bind:get(j) })
        for k = 1, 16 do assert.is_true(math.abs(m[k] - (k % 5 == 1 and 1 or 0)) < 1e-4, ("joint %d"):format(j)) end
      end
    end)

    it("makes skinning matrices in place with mats:skin, without garbage, refusing bad arguments", function()
      local a = assert(sinew.gltf.load(FOX .. "glTF-Binary/Fox.glb"))
      local pose, mats, walk = sinew.pose(a.skeleton), sinew.matrices(a.skeleton), a.clips.Walk
      walk:sample(0.37, pose)
      pose:to_model(mats)
      local want = {}
      for j = 1, #a.skeleton do want[j] = mat_mul(mat_mul(a.root_matrix, { mats:get(j) }), { a.inverse_bind:get(j) }) end
      assert.equal(mats, mats:skin(a.inverse_bind, a.root_matrix))
      for j = 1, #a.skeleton do
        local got = { mats:get(j) }
        for k = 1, 16 do
          assert.is_true(math.abs(got[k] - want[j][k]) <= 1e-4 * math.max(1, math.abs(want[j][k])), ("joint %d"):format(j))
        end
      end
      a.rest:to_model(mats)
      mats:skin(a.inverse_bind)
      for j = 1, #a.skeleton do
        local got = { mats:get(j) }
        for k = 1, 16 do assert.is_true(math.abs(got[k] - (k % 5 == 1 and 1 or 0)) < 1e-4, ("joint %d"):format(j)) end
      end
      local root = a.root_matrix
      assert.equal(0, helper.garbage_per_call(function()
        pose:to_model(mats)
        mats:skin(a.inverse_bind, root)
      end, 2000))
      local before = mats:bytes()
      local other = sinew.matrices(sinew.skeleton { names = { "a" }, parents = { 0 } })
      assert.has_error(function() mats:skin(other) end, "bad argument #1 to 'skin' (matrices of another skeleton)")
      local bad = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }
      bad[7] = 0 / 0
      assert.matches("root entry 7 %(nan%) is not a finite float", helper.error_of(mats.skin, mats, a.inverse_bind, bad))
      bad[7] = 1e39
      assert.matches("root entry 7 %(1e%+39%) is not a finite float", helper.error_of(mats.skin, mats, a.inverse_bind, bad))
      bad[7] = "0"
      assert.matches("root entry 7 must be a number %(got string%)", helper.error_of(mats.skin, mats, a.inverse_bind, bad))
      assert.matches("root entry 4 must be a number %(got nil%)",
        helper.error_of(mats.skin, mats, a.inverse_bind, { 1, 0, 0 }))
      assert.equal(before, mats:bytes())
    end)

    it("names the Fox's joints and clips, and keeps the node map", function()
      local a = assert(sinew.gltf.load(FOX .. "glTF-Binary/Fox.glb"))
      assert.equal(24, #a.skeleton)
      assert.same({ "Survey", "Walk", "Run" }, a.clip_names)
      assert.is_truthy(a.skeleton:find("b_Tail03_014"))
      for j = 1, #a.skeleton do
        local p = a.skeleton:parent(j)
        assert.is_true(p < j)
        assert.equal(a.skeleton:name(j), a.nodes[j].name)
      end
      assert.equal(0, #a.skipped)
    end)

    it("names joints without names after their node, and imports a skeleton under matrix nodes", function()
      local a = assert(sinew.gltf.load(CORPUS .. "CesiumMan/glTF-Binary/CesiumMan.glb"))
      assert.equal(19, #a.skeleton)
      for j = 1, #a.skeleton do
        if a.nodes[j].name == nil then assert.equal("joint_" .. a.nodes[j].node, a.skeleton:name(j)) end
      end
      local identity = true
      for k = 1, 16 do identity = identity and a.root_matrix[k] == (k % 5 == 1 and 1 or 0) end
      assert.is_false(identity) -- the non-joint nodes above the skeleton
    end)

    it("imports the same motion from quantized and sparse CesiumMan as from CesiumMan", function()
      local base = assert(sinew.gltf.load(CORPUS .. "CesiumMan/glTF-Binary/CesiumMan.glb"))
      for _, f in ipairs { CORPUS .. "CesiumManQuantized/glTF-Binary/CesiumManQuantized.glb",
        CORPUS .. "CesiumManSparse/glTF-Binary/CesiumManSparse.glb" } do
        local a = assert(sinew.gltf.load(f))
        local p, q = sinew.pose(base.skeleton), sinew.pose(a.skeleton)
        local name, other = base.clip_names[1], a.clip_names[1]
        for t = 0, base.clips[name]:duration(), 0.1 do
          base.clips[name]:sample(t, p, false)
          a.clips[other]:sample(t, q, false)
          for j = 1, #a.skeleton do -- the same joints in the same order (node numbers differ)
            local x, y = { p:get(j) }, { q:get(j) }
            assert.is_true(qangle(x[4], x[5], x[6], x[7], y[4], y[5], y[6], y[7]) < math.rad(0.1), f)
            for c = 1, 3 do assert.is_true(math.abs(x[c] - y[c]) < 1e-3 * math.max(1, math.abs(x[c])), f) end
          end
        end
      end
    end)

    it("imports morph-target weights beside the clip: AnimatedMorphCube skips nothing", function()
      local a = assert(sinew.gltf.load(CORPUS .. "AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb"))
      assert.same({}, a.skipped)
      assert.equal(1, #a.clip_names)
      assert.equal(2, #a.morph_tracks[a.clip_names[1]]) -- (their keys: spec/gltf_morph_spec.lua)
      local rigged = assert(sinew.gltf.load(CORPUS .. "RiggedSimple/glTF-Binary/RiggedSimple.glb"))
      assert.equal(2, #rigged.skeleton)
    end)

    it("imports node animation without skins from the nodes of the scene", function()
      local a = assert(sinew.gltf.load(CORPUS .. "BoxAnimated/glTF-Binary/BoxAnimated.glb"))
      assert.equal(4, #a.skeleton)
      assert.same({ "animation_0" }, a.clip_names)
      assert.equal(2, #a.meshes)
      for _, m in ipairs(a.meshes) do assert.is_false(m.skinned) end
    end)

    it("decodes meshes in LÖVE's vertex format: joints within the skeleton, weights summing to 1", function()
      for _, f in ipairs { FOX .. "glTF-Binary/Fox.glb", CORPUS .. "CesiumMan/glTF-Binary/CesiumMan.glb",
        CORPUS .. "CesiumManQuantized/glTF-Binary/CesiumManQuantized.glb" } do
        local a = assert(sinew.gltf.load(f))
        local m = a.meshes[1]
        assert.is_true(m.skinned)
        local floats, slot = 0, {}
        for _, attr in ipairs(m.format) do
          slot[attr[1]] = floats
          assert.equal("float", attr[2])
          floats = floats + attr[3]
        end
        assert.equal(4 * floats * m.vertex_count, #m.vertices)
        assert.is_truthy(slot.VertexPosition and slot.VertexJoints and slot.VertexWeights)
        for v = 0, m.vertex_count - 1, 7 do
          local base = v * floats
          local sum = 0
          for c = 0, 3 do
            local joint = f32(m.vertices, 4 * (base + slot.VertexJoints + c) + 1)
            assert.is_true(joint >= 0 and joint < #a.skeleton and joint == math.floor(joint))
            sum = sum + f32(m.vertices, 4 * (base + slot.VertexWeights + c) + 1)
          end
          assert.is_true(math.abs(sum - 1) < 1e-5, f)
        end
        if m.indices then
          assert.equal(4 * m.index_count, #m.indices)
          for k = 0, m.index_count - 1 do
            local i = u32(m.indices, 4 * k + 1)
            assert.is_true(i < m.vertex_count)
          end
        end
        assert.equal(4, #m.material.base_color)
      end
    end)

    it("bakes a texture transform into the coordinates: quantized CesiumMan's land on CesiumMan's", function()
      local function uvs(f)
        local a = assert(sinew.gltf.load(f))
        local m = a.meshes[1]
        local floats, at = 0, nil
        for _, attr in ipairs(m.format) do
          if attr[1] == "VertexTexCoord" then at = floats end
          floats = floats + attr[3]
        end
        local out = {}
        for v = 0, m.vertex_count - 1 do
          local p = 4 * (v * floats + at) + 1
          out[#out + 1] = { f32(m.vertices, p), f32(m.vertices, p + 4) }
        end
        return out, m.material
      end
      local plain = uvs(CORPUS .. "CesiumMan/glTF-Binary/CesiumMan.glb")
      local baked, mat = uvs(CORPUS .. "CesiumManQuantized/glTF-Binary/CesiumManQuantized.glb")
      assert.equal(0, mat.texcoord)
      assert.same({ 0.0140793901, 0.00844597816 }, mat.uv_transform.offset)
      assert.same({ 15.6312037, 15.6769304 }, mat.uv_transform.scale)
      assert.equal(0, mat.uv_transform.rotation)
      -- every baked coordinate within a 16-bit quantization step (1/65535 of the scale) of one of
      -- CesiumMan's (gltfpack reorders and merges vertices), found through a grid of cells
      local cell, grid = 1 / 512, {}
      for _, uv in ipairs(plain) do
        local k = math.floor(uv[1] / cell) .. ":" .. math.floor(uv[2] / cell)
        grid[k] = grid[k] or {}
        table.insert(grid[k], uv)
      end
      local tolerance = 16 / 65535
      local worst = 0
      for _, uv in ipairs(baked) do
        local best = math.huge
        local cu, cv = math.floor(uv[1] / cell), math.floor(uv[2] / cell)
        for du = -1, 1 do
          for dv = -1, 1 do
            for _, q in ipairs(grid[(cu + du) .. ":" .. (cv + dv)] or {}) do
              best = math.min(best, math.max(math.abs(q[1] - uv[1]), math.abs(q[2] - uv[2])))
            end
          end
        end
        worst = math.max(worst, best)
      end
      assert.is_true(worst < tolerance, "a baked coordinate is " .. worst .. " from CesiumMan's")
      figures.add(("baked texture coordinates: at most %.2g from CesiumMan's"):format(worst))
      -- without the transform the coordinates would be the quantized ones, in 0 .. 1
      assert.is_true(#baked > 1000)
    end)

    it("hands out images: embedded bytes, files beside the .gltf, and no bytes for a missing file", function()
      local a = assert(sinew.gltf.load(FOX .. "glTF-Binary/Fox.glb"))
      assert.equal("\137PNG", a.images[1].bytes:sub(1, 4))
      assert.equal("image/png", a.images[1].mime)
      assert.equal(1, a.meshes[1].material.image)
      local b = assert(sinew.gltf.load(FOX .. "glTF/Fox.gltf"))
      assert.equal(a.images[1].bytes, b.images[1].bytes)
      local c = assert(sinew.gltf.load(CORPUS .. "InterpolationTest/glTF/InterpolationTest.gltf"))
      assert.is_nil(c.images[1].bytes)
      assert.equal("images[0]", c.skipped[1].path)
    end)

    it("leaves out the meshes with meshes = false, and reads through options.read", function()
      local reads = {}
      local a = assert(sinew.gltf.load(FOX .. "glTF/Fox.gltf", { meshes = false, read = function(p)
        reads[#reads + 1] = p:match("[^/]*$")
        return read(p)
      end }))
      assert.equal(0, #a.meshes)
      assert.same({ "Fox.gltf", "Fox.bin", "Texture.png" }, reads)
      local bytes = read(FOX .. "glTF-Binary/Fox.glb")
      assert.equal(24, #assert(sinew.gltf.parse(bytes)).skeleton)
    end)

    it("imports the same asset through dkjson and lua-cjson, and through options.json", function()
      local cjson = require "cjson.safe"
      local used = 0
      local decoders = {
        dkjson = function(text) local d, _, e = json.decode(text, 1, nil) return d, e end,
        cjson = cjson.decode,
        counting = function(text) used = used + 1 return json.decode(text, 1, nil) end,
      }
      local bytes = read(CORPUS .. "CesiumMan/glTF-Binary/CesiumMan.glb")
      local assets = {}
      for name, decoder in pairs(decoders) do
        assets[name] = assert(sinew.gltf.parse(bytes, { json = decoder }))
      end
      assert.equal(1, used)
      for _, name in ipairs { "cjson", "counting" } do
        local a, b = assets.dkjson, assets[name]
        assert.same(a.clip_names, b.clip_names)
        assert.same(a.nodes, b.nodes)
        assert.same(a.root_matrix, b.root_matrix)
        assert.equal(a.meshes[1].vertices, b.meshes[1].vertices)
        assert.equal(a.meshes[1].indices, b.meshes[1].indices)
        local pa, pb = sinew.pose(a.skeleton), sinew.pose(b.skeleton)
        for _, t in ipairs { 0, 0.37, 1.2 } do
          a.clips[a.clip_names[1]]:sample(t, pa)
          b.clips[b.clip_names[1]]:sample(t, pb)
          for j = 1, #a.skeleton do assert.same({ pa:get(j) }, { pb:get(j) }) end
        end
      end
      local a, err = sinew.gltf.parse(bytes, { json = function() return nil, "no thanks" end, name = "CesiumMan.glb" })
      assert.is_nil(a)
      assert.equal("CesiumMan.glb: the JSON does not parse: no thanks", err)
    end)

    it("makes clips that sample without garbage", function()
      local a = assert(sinew.gltf.load(FOX .. "glTF-Binary/Fox.glb"))
      local pose, walk, t = sinew.pose(a.skeleton), a.clips.Walk, 0
      assert.equal(0, helper.garbage_per_call(function()
        t = t + 1 / 60
        walk:sample(t, pose)
      end, 2000))
    end)
  end)

  describe("bad input: nil and a message naming the file and the JSON path", function()
    -- float32 bytes, little-endian (string.pack where there is one)
    local function f32_bytes(v)
      if v ~= v then return "\0\0\192\127" end
      if string.pack then return string.pack("<f", v) end
      if v == 0 then return "\0\0\0\0" end
      local sign = v < 0 and 128 or 0
      local m, e = math.frexp(math.abs(v)) -- v = m 2^e, m in [0.5, 1)
      local bits = math.floor((m * 2 - 1) * 2 ^ 23 + 0.5)
      local ex = e - 1 + 127
      return string.char(bits % 256, math.floor(bits / 256) % 256, math.floor(bits / 65536) % 128 + (ex % 2) * 128,
        sign + math.floor(ex / 2))
    end
    local function floats(list)
      local out = {}
      for i, v in ipairs(list) do out[i] = f32_bytes(v) end
      return table.concat(out)
    end
    local base64 = R.base64
    local I4 = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }

    -- the buffer of the small file: times, translations, rotations, inverse binds, positions,
    -- joints (bytes), weights, indices (shorts)
    local function buffer(times, indices, ibm_nan)
      indices = indices or { 0, 1, 2 }
      local ibm = {}
      for k = 1, 32 do ibm[k] = I4[(k - 1) % 16 + 1] end
      if ibm_nan then ibm[22] = 0 / 0 end -- (the second joint's, column 2 row 2)
      return floats(times or { 0, 1 }) .. floats { 0, 0, 0, 0, 1, 0 } .. floats { 0, 0, 0, 1, 0, 0, 0.7071, 0.7071 } ..
        floats(ibm) .. floats { 0, 0, 0, 1, 0, 0, 0, 1, 0 } .. string.char(0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0) ..
        floats { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 } .. string.char(indices[1], 0, indices[2], 0, indices[3], 0, 0, 0)
    end

    -- a small valid document: two joints (node 0, its child node 1), a skinned triangle on node
    -- 2, one animation (node 1 translation LINEAR, node 0 rotation STEP)
    local function document(bytes)
      local function view(offset, length, stride)
        return { buffer = 0, byteOffset = offset, byteLength = length, byteStride = stride }
      end
      return {
        asset = { version = "2.0" },
        scene = 0, scenes = { { nodes = { 0, 2 } } },
        nodes = { { name = "hips", children = { 1 } }, { name = "spine", translation = { 0, 1, 0 } },
          { name = "body", mesh = 0, skin = 0 } },
        skins = { { joints = { 0, 1 }, inverseBindMatrices = 3 } },
        meshes = { { primitives = { { attributes = { POSITION = 4, JOINTS_0 = 5, WEIGHTS_0 = 6 }, indices = 7 } } } },
        animations = { { name = "move", channels = {
          { sampler = 0, target = { node = 1, path = "translation" } },
          { sampler = 1, target = { node = 0, path = "rotation" } } },
          samplers = { { input = 0, output = 1 }, { input = 0, output = 2, interpolation = "STEP" } } } },
        buffers = { { byteLength = #bytes, uri = "data:application/octet-stream;base64," .. base64(bytes) } },
        bufferViews = { view(0, 8), view(8, 24), view(32, 32), view(64, 128), view(192, 36), view(228, 12),
          view(240, 48), view(288, 6) },
        accessors = {
          { bufferView = 0, componentType = 5126, count = 2, type = "SCALAR" },
          { bufferView = 1, componentType = 5126, count = 2, type = "VEC3" },
          { bufferView = 2, componentType = 5126, count = 2, type = "VEC4" },
          { bufferView = 3, componentType = 5126, count = 2, type = "MAT4" },
          { bufferView = 4, componentType = 5126, count = 3, type = "VEC3" },
          { bufferView = 5, componentType = 5121, count = 3, type = "VEC4" },
          { bufferView = 6, componentType = 5126, count = 3, type = "VEC4" },
          { bufferView = 7, componentType = 5123, count = 3, type = "SCALAR" },
        },
      }
    end

    local function parse(doc) return sinew.gltf.parse(json.encode(doc), { name = "small.gltf" }) end

    -- a .glb of JSON text and BIN bytes
    local function u32s(v)
      return string.char(v % 256, math.floor(v / 256) % 256, math.floor(v / 65536) % 256, math.floor(v / 16777216))
    end
    local function glb(text, bin)
      text = text .. (" "):rep((4 - #text % 4) % 4)
      bin = bin .. ("\0"):rep((4 - #bin % 4) % 4)
      local body = u32s(#text) .. "JSON" .. text .. u32s(#bin) .. "BIN\0" .. bin
      return "glTF" .. u32s(2) .. u32s(12 + #body) .. body
    end

    it("imports the small file the cases below spoil", function()
      local a, err = parse(document(buffer()))
      assert.is_table(a, err)
      assert.equal(2, #a.skeleton)
      assert.same({ "move" }, a.clip_names)
      assert.equal(3, a.meshes[1].vertex_count)
      local doc = document(buffer())
      doc.buffers[1].uri = nil
      assert.is_table(sinew.gltf.parse(glb(json.encode(doc), buffer())))
    end)

    it("names an unnamed joint after its node, even where another node has that name", function()
      local doc = document(buffer())
      doc.nodes[1].name, doc.nodes[2].name = "joint_1", nil
      local a, err = parse(doc)
      assert.is_table(a, err)
      assert.equal("joint_1", a.skeleton:name(1))
      assert.equal("joint_1_", a.skeleton:name(2))
      assert.is_nil(a.nodes[2].name)
    end)

    local cases = {
      { "text that is not JSON", function() return { text = "hello" } end, "^small.gltf: the JSON does not parse" },
      { "JSON nested 100000 deep", function() return { text = ("["):rep(100000) .. ("]"):rep(100000) } end,
        "^small.gltf: the JSON does not parse: [^/]*$" },
      { "JSON cut short", function(d) return { text = json.encode(d):sub(1, 100) } end, "the JSON does not parse" },
      { "a glTF 1.0 file", function(d) d.asset.version = "1.0" end, "asset.version: glTF version '1.0' is not 2.x" },
      { "no asset", function(d) d.asset = nil end, "^small.gltf: asset: must be an object" },
      { "an extension that is required and unknown", function(d) d.extensionsRequired = { "KHR_draco_mesh_compression" } end,
        "extensionsRequired%[0%]: 'KHR_draco_mesh_compression' is not supported" },
      { "a buffer file that is missing", function(d) d.buffers[1].uri = "missing.bin" end,
        "buffers%[0%]%.uri: cannot read 'missing.bin'" },
      { "a buffer outside the folder (absolute)", function(d) d.buffers[1].uri = "/etc/passwd" end,
        "buffers%[0%]%.uri: '/etc/passwd' is not a relative path" },
      { "a buffer outside the folder (..)", function(d) d.buffers[1].uri = "../secret.bin" end,
        "buffers%[0%]%.uri: '%.%./secret.bin' leaves the folder" },
      { "a buffer URI of another scheme", function(d) d.buffers[1].uri = "http://example.invalid/a.bin" end,
        "is not a relative path" },
      { "bad base64", function(d) d.buffers[1].uri = "data:application/octet-stream;base64,AAA*AAAA" end,
        "buffers%[0%]%.uri: character 3 of the base64 text is not base64" },
      { "a data URI that is not base64", function(d) d.buffers[1].uri = "data:text/plain,hello" end,
        "a data: URI must be base64" },
      { "a buffer URI that is not a string", function(d) d.buffers[1].uri = 7 end,
        "buffers%[0%]%.uri: must be a string %(got number%)" },
      { "a buffer past the budget", function(d) d.buffers[1].uri = "../x.bin"; d.buffers[1].byteLength = 2 ^ 40 end,
        "buffers%[0%]%.uri: the import needs more than 268435456 bytes of data %(options%.max_bytes%)" },
      { "a byteLength past the buffer's bytes", function(d) d.buffers[1].byteLength = 1000 end,
        "buffers%[0%]: byteLength 1000 is more than its 296 bytes" },
      { "a buffer view past its buffer", function(d) d.bufferViews[2].byteLength = 1000 end,
        "bufferViews%[1%]: bytes 8 %.%. 1008 are past the end of buffer 0 %(296 bytes%)" },
      { "a byteStride that is not a multiple of 4", function(d) d.bufferViews[5].byteStride = 6 end,
        "bufferViews%[4%]%.byteStride: 6 is not a multiple of 4" },
      { "an accessor index out of range", function(d) d.animations[1].samplers[1].input = 41 end,
        "^small.gltf: animations%[0%]%.samplers%[0%]%.input: accessor 41 is out of range %(8 accessors%)" },
      { "an accessor past its buffer view", function(d) d.accessors[2].count = 5 end,
        "accessors%[1%]: 5 elements of 12 bytes from byte 0 are past the end of its buffer view %(24 bytes%)" },
      { "a count that overflows", function(d) d.accessors[2].count = 2 ^ 40 end,
        "accessors%[1%]: count 1099511627776 is out of range" },
      { "a sparse count that overflows", function(d)
        d.accessors[1].bufferView = nil
        d.accessors[1].sparse = { count = 2 ^ 33, indices = { bufferView = 7, componentType = 5123 },
          values = { bufferView = 0 } }
      end, "accessors%[0%]: sparse count 8589934592 is out of range" },
      { "an unknown component type", function(d) d.accessors[2].componentType = 5124 end,
        "accessors%[1%]%.componentType: unknown component type 5124" },
      { "translations as shorts", function(d) d.accessors[2].componentType = 5122 end,
        "animations%[0%]%.samplers%[0%]%.output: accessor 1 has SHORT components, not FLOAT" },
      { "rotations as VEC3", function(d) d.accessors[3].type = "VEC3" end,
        "animations%[0%]%.samplers%[1%]%.output: accessor 2 is a VEC3, not a VEC4" },
      { "key times as VEC2", function(d) d.accessors[1].type = "VEC2"; d.accessors[1].count = 1 end,
        "samplers%[0%]%.input: accessor 0 is a VEC2, not a SCALAR" },
      { "key times that do not increase", function() return { bytes = buffer { 1, 0 } } end,
        "animations%[0%]%.samplers%[0%]%.input: key times do not increase: key 1 %(0%) after key 0 %(1%)" },
      { "a key time that is not finite", function() return { bytes = buffer { 0, 0 / 0 } } end,
        "input: key time 1 is not finite" },
      { "a negative key time", function() return { bytes = buffer { -1, 0 } } end, "input: key time 0 %(%-1%) is negative" },
      { "fewer outputs than key times", function(d) d.accessors[2].count = 1 end,
        "samplers%[0%]%.output: accessor 1 has 1 values for 2 key times" },
      { "cubicspline outputs of a linear count", function(d) d.animations[1].samplers[1].interpolation = "CUBICSPLINE" end,
        "accessor 1 has 2 values for 2 key times %(cubicspline: 3 per key%)" },
      { "an unknown interpolation", function(d) d.animations[1].samplers[1].interpolation = "QUADRATIC" end,
        "samplers%[0%]%.interpolation: unknown interpolation 'QUADRATIC'" },
      { "a sampler index out of range", function(d) d.animations[1].channels[1].sampler = 5 end,
        "animations%[0%]%.channels%[0%]%.sampler: sampler 5 is out of range %(2 samplers%)" },
      { "a target node out of range", function(d) d.animations[1].channels[1].target.node = 9 end,
        "channels%[0%]%.target%.node: node 9 is out of range %(3 nodes%)" },
      { "an unknown target path", function(d) d.animations[1].channels[1].target.path = "color" end,
        "channels%[0%]%.target%.path: unknown path 'color'" },
      { "two channels on one target", function(d) d.animations[1].channels[2].target = { node = 1, path = "translation" } end,
        "animations%[0%]%.channels%[1%]: node 1's translation is the target of channel 0 too" },
      { "a skin joint that repeats a node", function(d) d.skins[1].joints = { 0, 0 } end,
        "skins%[0%]%.joints%[1%]: node 0 appears twice" },
      { "a skin joint out of range", function(d) d.skins[1].joints = { 0, 7 } end,
        "skins%[0%]%.joints%[1%]: node 7 is out of range %(3 nodes%)" },
      { "a skin without joints", function(d) d.skins[1].joints = {} end, "skins%[0%]%.joints: is empty" },
      -- indices a skinned file does not need, checked all the same (issue 26)
      { "a default scene out of range", function(d) d.scene = 99 end,
        "^small.gltf: scene: scene 99 is out of range %(1 scene%)" },
      { "a default scene that is no integer", function(d) d.scene = 0.5 end,
        "scene: scene index must be an integer %(got 0.5%)" },
      { "a scene's node out of range", function(d) d.scenes[1].nodes = { 0, 5 } end,
        "scenes%[0%]%.nodes%[1%]: node 5 is out of range %(3 nodes%)" },
      { "a second node's skin out of range", function(d) d.nodes[2].skin = 4 end,
        "nodes%[1%]%.skin: skin 4 is out of range %(1 skin%)" },
      { "nodes in a cycle", function(d) d.nodes[2].children = { 0 } end, "its parents form a cycle" },
      { "a node with two parents", function(d) d.nodes[3].children = { 1 } end, "node 1 has two parents %(nodes 0 and 2%)" },
      { "a node its own child", function(d) d.nodes[2].children = { 1 } end, "nodes%[1%]%.children: node 1 is its own child" },
      { "a child index out of range", function(d) d.nodes[1].children = { 1, 8 } end,
        "nodes%[0%]%.children%[1%]: node 8 is out of range %(3 nodes%)" },
      { "a zero rotation", function(d) d.nodes[1].rotation = { 0, 0, 0, 0 } end, "nodes%[0%]%.rotation: is zero" },
      { "a matrix that is not affine", function(d) d.nodes[1].matrix = { 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 } end,
        "nodes%[0%]%.matrix: is not affine" },
      { "a rotation of 3 numbers", function(d) d.nodes[1].rotation = { 0, 0, 1 } end,
        "nodes%[0%]%.rotation: must be an array of 4 numbers" },
      { "inverse binds for fewer joints", function(d) d.accessors[4].count = 1 end,
        "skins%[0%]%.inverseBindMatrices: accessor 3 has 1 matrices for 2 joints" },
      { "an inverse bind that is not finite", function() return { bytes = buffer(nil, nil, true) } end,
        "skins%[0%]%.inverseBindMatrices: not a finite number" },
      { "a mesh index out of range", function(d) d.nodes[3].mesh = 3 end, "nodes%[2%]%.mesh: mesh 3 is out of range %(1 mesh%)" },
      { "an index past the vertices", function() return { bytes = buffer(nil, { 0, 7, 2 }) } end,
        "meshes%[0%]%.primitives%[0%]%.indices: index 7 %(entry 1%) is out of range %(0 %.%. 2%)" },
      { "joints past the skin", function(d) d.skins[1].joints = { 0 } d.accessors[4].count = 1 end,
        "meshes%[0%]%.primitives%[0%]%.attributes: joint index 1 %(value 4%) is out of range %(0 .. 0%)" },
      { "a material index out of range", function(d) d.meshes[1].primitives[1].material = 2 end,
        "meshes%[0%]%.primitives%[0%]%.material: material 2 is out of range %(0 materials%)" },
      { "a texture transform of a scale that is not numbers", function(d)
        d.textures = { {} }
        d.materials = { { pbrMetallicRoughness = { baseColorTexture = { index = 0,
          extensions = { KHR_texture_transform = { scale = { "x", 1 } } } } } } }
        d.meshes[1].primitives[1].material = 0
      end, "^small.gltf: materials%[0%]%.pbrMetallicRoughness%.baseColorTexture%.extensions%.KHR_texture_transform%.scale: " ..
        "element 0 is not a finite number" },
      { "attributes of different counts", function(d) d.accessors[7].count = 2 end, "attribute 3 has 2 vertices, attribute 1 3" },
      { "options.skin out of range", "skin", "options%.skin: skin 3 is out of range %(1 skin%)" },
    }
    for _, case in ipairs(cases) do
      it(("refuses %s"):format(case[1]), function()
        local a, err
        if case[2] == "skin" then
          a, err = sinew.gltf.parse(json.encode(document(buffer())), { name = "small.gltf", skin = 3 })
        else
          local doc = document(buffer())
          -- a case spoils the document in place, or gives the whole text, or other buffer bytes
          local out = case[2](doc)
          if out and out.text then
            a, err = sinew.gltf.parse(out.text, { name = "small.gltf" })
          elseif out and out.bytes then
            a, err = parse(document(out.bytes))
          else
            a, err = parse(doc)
          end
        end
        assert.is_nil(a)
        assert.is_string(err)
        assert.matches(case[3], err)
      end)
    end

    it("refuses broken .glb containers", function()
      local bytes = read(FOX .. "glTF-Binary/Fox.glb")
      local glb_cases = {
        { bytes:sub(1, 10), "a %.glb starts with a 12%-byte header %(the file has 10 bytes%)" },
        { bytes:sub(1, math.floor(#bytes / 2)),
          "the GLB header's length 162852 is past the end of the file %(81426 bytes%): cut short%?" },
        { bytes:sub(1, 4) .. u32s(1) .. bytes:sub(9), "the GLB header's version 1 is not 2" },
        { bytes:sub(1, 12) .. u32s(4000000) .. bytes:sub(17), "chunk 0: length 4000000 is past the end of the container" },
        { bytes:sub(1, 16) .. "BIN\0" .. bytes:sub(21), "chunk 0 is not the JSON chunk" },
      }
      for _, c in ipairs(glb_cases) do
        local a, err = sinew.gltf.parse(c[1], { name = "Fox.glb" })
        assert.is_nil(a)
        assert.matches("^Fox.glb: " .. c[2], err)
      end
      local a, err = sinew.gltf.load("spec/no/such/file.glb")
      assert.is_nil(a)
      assert.matches("^file.glb: cannot read the file", err)
    end)

    it("raises for misuse of the API itself", function()
      assert.matches("bad argument #1 to 'parse' %(string expected, got nil%)", helper.error_of(sinew.gltf.parse, nil))
      assert.matches("unknown option 'skins'", helper.error_of(sinew.gltf.parse, "{}", { skins = 1 }))
      assert.matches("option 'read' must be a function", helper.error_of(sinew.gltf.load, "a.glb", { read = 1 }))
    end)
  end)
end)
