-- glTF morph targets (issue 26, the import and vertex half): the asset's morph list, the weight
-- tracks of `weights` channels and the morphed vertices of sinew.Morph, against the glTF
-- specification's formula computed here from the file decoded by the plain-Lua reference decoder
-- (spec/support/gltf_reference.lua); AnimatedMorphCube in every container (.glb, .gltf beside its
-- .bin, .gltf with the buffer embedded, made here; assimp-testmodels' copy when installed); small
-- files made here for sparse and quantised targets, names, shared meshes and hostile morph data.
local helper = require "helper"
local sinew = require "sinew"
local json = require "dkjson"
local R = require "spec.support.gltf_reference"
local H = require "spec.support.gltf_hostile"

local CUBE = "spec/gltf-corpus/AnimatedMorphCube/"
local ASSIMP_CUBE = "/usr/share/assimp/models/glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf"

-- ---- files ----------------------------------------------------------------------------------------

local base64 = R.base64

-- AnimatedMorphCube's .gltf with its buffer embedded as a data: URI (the corpus has no such file)
local function embedded_cube()
  local doc = assert(json.decode(helper.read_file(CUBE .. "glTF/AnimatedMorphCube.gltf")))
  doc.buffers[1].uri = "data:application/octet-stream;base64," .. base64(helper.read_file(CUBE .. "glTF/AnimatedMorphCube.bin"))
  return json.encode(doc)
end

-- every container: { name, load = function() -> asset, err end, raw = the reference's document }
local function cube_files()
  local files = {
    { name = "glTF-Binary", load = function() return sinew.gltf.load(CUBE .. "glTF-Binary/AnimatedMorphCube.glb") end,
      raw = function() return R.raw(CUBE .. "glTF-Binary/AnimatedMorphCube.glb") end },
    { name = "glTF", load = function() return sinew.gltf.load(CUBE .. "glTF/AnimatedMorphCube.gltf") end,
      raw = function() return R.raw(CUBE .. "glTF/AnimatedMorphCube.gltf") end },
    { name = "embedded", load = function() return sinew.gltf.parse(embedded_cube(), { name = "cube.gltf" }) end,
      raw = function() return R.raw(CUBE .. "glTF/AnimatedMorphCube.gltf") end },
  }
  if helper.exists(ASSIMP_CUBE) then
    files[#files + 1] = { name = "assimp-testmodels", load = function() return sinew.gltf.load(ASSIMP_CUBE) end,
      raw = function() return R.raw(ASSIMP_CUBE) end }
  end
  return files
end

-- the bytes of float32 values (NaN as a quiet NaN); exact for the values used here
local function floats(list)
  local out = {}
  for i, v in ipairs(list) do out[i] = v ~= v and "\0\0\192\127" or H.f32s(v) end
  return table.concat(out)
end
local function shorts(list) -- signed 16-bit little-endian
  local out = {}
  for i, v in ipairs(list) do
    if v < 0 then v = v + 65536 end
    out[i] = string.char(v % 256, math.floor(v / 256))
  end
  return table.concat(out)
end

-- A small .glb: mesh "Face" of two primitives (3 vertices, positions and normals; the second
-- positions only) with two targets ("smile", "blink"), on node 0; animation "talk" drives its
-- weights over two keys. `edit(doc, add)` changes the document first; add(bytes, accessor) puts
-- bytes in the buffer and returns the index of a new accessor over them.
local function face(edit)
  local segments, views, accessors, at = {}, {}, {}, 0
  local function add(bytes, acc)
    views[#views + 1] = { buffer = 0, byteOffset = at, byteLength = #bytes }
    segments[#segments + 1] = bytes .. ("\0"):rep((4 - #bytes % 4) % 4)
    at = at + #segments[#segments]
    acc.bufferView = #views - 1
    accessors[#accessors + 1] = acc
    return #accessors - 1
  end
  local function vec3(list) return add(floats(list), { componentType = 5126, type = "VEC3", count = #list / 3 }) end
  local pos = vec3 { 0, 0, 0, 1, 0, 0, 0, 1, 0 }                  -- 0
  local nrm = vec3 { 0, 0, 1, 0, 0, 1, 0, 0, 1 }                  -- 1
  local smile = vec3 { 0.5, 0, 0, 0, 0.25, 0, 0, 0, 0.125 }       -- 2
  local blink = vec3 { 0, 0, 1, 0, 0, 1, 0, 0, -1 }               -- 3
  local smile_n = vec3 { 0.125, 0, 0, 0, 0, 0, 0, 0, -0.25 }      -- 4
  local times = add(floats { 0, 1 }, { componentType = 5126, type = "SCALAR", count = 2 })      -- 5
  local out = add(floats { 0, 1, 1, 0.5 }, { componentType = 5126, type = "SCALAR", count = 4 }) -- 6
  local doc = {
    asset = { version = "2.0" },
    accessors = accessors,
    bufferViews = views,
    meshes = { { name = "Face", weights = { 0.25, 0.5 }, extras = { targetNames = { "smile", "blink" } },
      primitives = {
        { attributes = { POSITION = pos, NORMAL = nrm }, targets = { { POSITION = smile, NORMAL = smile_n },
          { POSITION = blink } } },
        { attributes = { POSITION = pos }, targets = { { POSITION = smile }, { POSITION = blink } } } } } },
    nodes = { { mesh = 0, name = "face" } },
    scenes = { { nodes = { 0 } } },
    animations = { { name = "talk", samplers = { { input = times, output = out } },
      channels = { { sampler = 0, target = { node = 0, path = "weights" } } } } },
  }
  if edit then edit(doc, add, vec3) end
  local bin = table.concat(segments)
  doc.buffers = { { byteLength = #bin } }
  return H.glb(json.encode(doc), bin)
end

local function parse(bytes) return sinew.gltf.parse(bytes, { name = "face.glb" }) end

-- ---- the formula ---------------------------------------------------------------------------------

-- vertex v (1-based) of attribute `name` of primitive `prim` of the raw document, morphed by
-- `weights` per the glTF specification: base + sum of weight x target delta (double precision)
local function morphed(doc, prim, name, v, weights)
  local base = R.accessor(doc, prim.attributes[name])
  local x, y, z = base[3 * v - 2], base[3 * v - 1], base[3 * v]
  for t, target in ipairs(prim.targets) do
    if target[name] then
      local d = R.accessor(doc, target[name])
      x, y, z = x + weights[t] * d[3 * v - 2], y + weights[t] * d[3 * v - 1], z + weights[t] * d[3 * v]
    end
  end
  return x, y, z
end

-- the weights a LINEAR weight track gives at time t (the glTF formula between keys)
local function linear_at(times, values, t)
  if t <= times[1] then return values[1] end
  for k = 1, #times - 1 do
    if t <= times[k + 1] then
      local s = (t - times[k]) / (times[k + 1] - times[k])
      return values[k] + s * (values[k + 1] - values[k])
    end
  end
  return values[#values]
end

-- the floats of a string of float32 (the reference's decoder)
local function unpack_floats(s)
  local out = {}
  for i = 1, #s / 4 do out[i] = R.f32(s, 4 * i - 3) end
  return out
end

local TOL = 1e-6 -- float sums against double sums, values of magnitude 1

describe("sinew.gltf morph targets", function()
  describe("AnimatedMorphCube, in every container", function()
    for _, file in ipairs(cube_files()) do
      it(("lists the targets of %s with their names and default weights"):format(file.name), function()
        local a = assert(file.load())
        local doc = file.raw()
        local n = #doc.meshes[1].primitives[1].targets
        assert.equal(2, n)
        assert.same({ "Cube.0", "Cube.1" }, a.morphs.names) -- (the file has no targetNames)
        assert.same({ 0, 0 }, a.morphs.mesh)
        assert.same({ 0, 1 }, a.morphs.target)
        for t = 1, n do assert.equal(doc.meshes[1].weights[t], a.morphs.defaults[t]) end
        assert.same({}, a.skipped)
        local m = a.meshes[1]
        assert.equal(1, m.morph_first)
        assert.equal(2, m.morph_count)
        assert.equal(2, #m.morph)
        assert.equal(m.vertex_count, (m.morph:vertices()))
        assert.matches("^sinew.Morph %(24 vertices, 2 targets%)$", tostring(m.morph))
      end)

      it(("splits the weights channel of %s into a track per target, keys as the file has them"):format(file.name),
        function()
          local a = assert(file.load())
          local doc = file.raw()
          local anim = doc.animations[1]
          local sampler = anim.samplers[anim.channels[1].sampler + 1]
          local times, values = R.accessor(doc, sampler.input), R.accessor(doc, sampler.output)
          local tracks = a.morph_tracks[a.clip_names[1]]
          assert.equal(2, #tracks)
          assert.equal(2 * #times, #values)
          for t, tr in ipairs(tracks) do
            assert.equal(t, tr.morph)
            assert.equal("linear", tr.interpolation)
            assert.equal(#times, #tr.times)
            assert.equal(#times, #tr.values)
            for k = 1, #times do
              assert.equal(times[k], tr.times[k])
              assert.equal(values[2 * (k - 1) + t], tr.values[k])
            end
          end
          -- the clip lasts as long as its weight tracks
          assert.near(times[#times], a.clips[a.clip_names[1]]:duration(), 1e-6)
        end)

      it(("samples the weights of %s into a pose from its clip, and morphs the vertices from the pose"):format(
        file.name), function()
        local a = assert(file.load())
        local doc = file.raw()
        local prim = doc.meshes[1].primitives[1]
        local m = a.meshes[1]
        assert.same(a.morphs.names, a.skeleton:morphs()) -- the skeleton carries the targets
        local pose = sinew.pose(a.skeleton)
        for t = 1, 2 do assert.equal(a.morphs.defaults[t], pose:morph(a.morphs.names[t])) end
        local anim = doc.animations[1]
        local sampler = anim.samplers[anim.channels[1].sampler + 1]
        local times, values = R.accessor(doc, sampler.input), R.accessor(doc, sampler.output)
        local v1, v2 = {}, {}
        for k = 1, #times do v1[k], v2[k] = values[2 * k - 1], values[2 * k] end
        local clip = a.clips[a.clip_names[1]]
        local w, got = {}, {}
        for k = 1, #times, 3 do
          for _, at in ipairs({ times[k], k < #times and 0.5 * (times[k] + times[k + 1]) or times[k] }) do
            clip:sample(at, pose, false)
            w[1], w[2] = linear_at(times, v1, at), linear_at(times, v2, at)
            assert.near(w[1], pose:morph(1), TOL)
            assert.near(w[2], pose:morph("Cube.1"), TOL)
            m.morph:apply(pose, m.morph_first)
            local buf = unpack_floats(m.morph:bytes())
            pose:morphs(got)
            for v = 1, m.vertex_count do
              local x, y, z = morphed(doc, prim, "POSITION", v, w)
              local gx, gy, gz = m:position(v, pose)
              assert.is_true(math.abs(gx - x) <= 4 * TOL and math.abs(gy - y) <= 4 * TOL and math.abs(gz - z) <= 4 * TOL,
                ("t %g vertex %d: %g %g %g, want %g %g %g"):format(at, v, gx, gy, gz, x, y, z))
              -- the pose and the list of its weights morph alike, bit for bit, and apply agrees
              assert.same({ m:position(v, got) }, { gx, gy, gz })
              assert.same({ buf[(v - 1) * m.stride + 1], buf[(v - 1) * m.stride + 2], buf[(v - 1) * m.stride + 3] },
                { gx, gy, gz })
            end
          end
        end
        -- a pose of too few morphs for the range asked
        assert.has_error(function() m.morph:apply(pose, 2) end,
          "bad argument #1 to 'apply' (the pose has 2 morph weights: 2 targets from morph 2 need 3)")
      end)

      it(("morphs the vertices of %s as the glTF formula does, at and between keys"):format(file.name), function()
        local a = assert(file.load())
        local doc = file.raw()
        local prim = doc.meshes[1].primitives[1]
        local m = a.meshes[1]
        local tracks = a.morph_tracks[a.clip_names[1]]
        local vectors = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 0.3, 0.7 }, { -0.5, 2 } }
        local tr = tracks[1]
        for k = 1, #tr.times, 17 do -- at keys and halfway to the next one, from the tracks
          local t = tr.times[k]
          local t2 = k < #tr.times and 0.5 * (t + tr.times[k + 1]) or t
          for _, at in ipairs({ t, t2 }) do
            local ts, v1, v2 = {}, {}, {}
            for i = 1, #tr.times do ts[i], v1[i], v2[i] = tr.times[i], tracks[1].values[i], tracks[2].values[i] end
            vectors[#vectors + 1] = { linear_at(ts, v1, at), linear_at(ts, v2, at) }
          end
        end
        local before = m.vertices
        for _, w in ipairs(vectors) do
          m.morph:apply(w)
          local buf = unpack_floats(m.morph:bytes())
          local stride = m.stride
          assert.equal(6, stride) -- position, normal
          for v = 1, m.vertex_count do
            local x, y, z = morphed(doc, prim, "POSITION", v, w)
            local gx, gy, gz = m:position(v, w)
            assert.is_true(math.abs(gx - x) <= TOL and math.abs(gy - y) <= TOL and math.abs(gz - z) <= TOL,
              ("vertex %d, weights %g %g: %g %g %g, want %g %g %g"):format(v, w[1], w[2], gx, gy, gz, x, y, z))
            local b = (v - 1) * stride
            assert.equal(gx, buf[b + 1]) -- the buffer and position() agree bit for bit
            assert.equal(gy, buf[b + 2])
            assert.equal(gz, buf[b + 3])
            local nx, ny, nz = morphed(doc, prim, "NORMAL", v, w)
            assert.near(nx, buf[b + 4], TOL)
            assert.near(ny, buf[b + 5], TOL)
            assert.near(nz, buf[b + 6], TOL)
            local mx, my, mz = m.morph:normal(v, w)
            assert.same({ buf[b + 4], buf[b + 5], buf[b + 6] }, { mx, my, mz })
          end
        end
        assert.equal(before, m.vertices) -- the mesh's own string does not change
        -- weights from the asset's list: the mesh's range of it
        local all = { 7, 0.25, 0.75 }
        assert.same({ m:position(5, { 0.25, 0.75 }) }, { m:position(5, all, 2) })
        -- no weights: the base
        local base = R.accessor(doc, prim.attributes.POSITION)
        local x, y, z = m:position(3)
        assert.same({ base[7], base[8], base[9] }, { x, y, z })
      end)
    end
  end)

  describe("small files", function()
    it("reads targetNames, the mesh's default weights, and each primitive's targets", function()
      local a = assert(parse(face()))
      assert.same({ "Face.smile", "Face.blink" }, a.morphs.names)
      assert.same({ 0.25, 0.5 }, a.morphs.defaults)
      assert.equal(2, #a.meshes)
      assert.equal(6, a.meshes[1].stride)
      assert.equal(3, a.meshes[2].stride)
      for _, m in ipairs(a.meshes) do
        assert.equal(1, m.morph_first)
        assert.equal(2, m.morph_count)
      end
      -- the second primitive (positions only): position 3 moved by smile 0.5 and blink 2
      assert.same({ 0, 1, 0.125 * 0.5 - 2 }, { a.meshes[2]:position(3, { 0.5, 2 }) })
      local tracks = a.morph_tracks.talk
      assert.equal(2, #tracks)
      assert.same({ 0, 1 }, { tracks[1].values[1], tracks[1].values[2] })
      assert.same({ 1, 0.5 }, { tracks[2].values[1], tracks[2].values[2] })
    end)

    it("reads sparse and quantised targets as the reference decoder does", function()
      local bytes = face(function(doc, add)
        -- smile: a sparse accessor without a buffer view (vertex 2 moved); blink: normalised shorts
        local idx = add(string.char(2, 0, 0, 0), { componentType = 5126, type = "SCALAR", count = 1 })
        local val = add(floats { 0.25, -0.5, 0.75 }, { componentType = 5126, type = "SCALAR", count = 1 })
        local sparse = #doc.accessors
        doc.accessors[sparse + 1] = { componentType = 5126, type = "VEC3", count = 3, sparse = { count = 1,
          indices = { bufferView = doc.accessors[idx + 1].bufferView, componentType = 5125 },
          values = { bufferView = doc.accessors[val + 1].bufferView } } }
        local q = add(shorts { 0, 0, 32767, 0, -16384, 0, 100, 0, -32767 }, { componentType = 5122,
          normalized = true, type = "VEC3", count = 3 })
        for _, p in ipairs(doc.meshes[1].primitives) do
          p.targets[1].POSITION, p.targets[1].NORMAL, p.targets[2].POSITION = sparse, nil, q
        end
      end)
      local a = assert(parse(bytes))
      -- the reference: the same document decoded in plain Lua
      local dir = helper.tmpdir()
      helper.write_file(dir .. "/face.glb", bytes)
      local doc = R.raw(dir .. "/face.glb")
      os.remove(dir .. "/face.glb")
      os.remove(dir)
      for _, w in ipairs({ { 1, 0 }, { 0, 1 }, { 0.5, -1.5 } }) do
        for v = 1, 3 do
          local x, y, z = morphed(doc, doc.meshes[1].primitives[1], "POSITION", v, w)
          local gx, gy, gz = a.meshes[1]:position(v, w)
          assert.near(x, gx, TOL)
          assert.near(y, gy, TOL)
          assert.near(z, gz, TOL)
        end
      end
      assert.same({ 0, 1, 0 }, { a.meshes[1]:position(3, { 0, 0 }) })
      assert.same({ 0.25, 0.5, 0.75 }, { a.meshes[1]:position(3, { 1, 0 }) })
    end)

    it("takes default weights from the first node that shows a mesh, and says so of other nodes", function()
      local a = assert(parse(face(function(doc)
        doc.nodes = { { mesh = 0, weights = { 1, 0 } }, { mesh = 0, weights = { 0, 1 } }, { mesh = 0, weights = { 1, 0 } } }
        doc.scenes[1].nodes = { 0, 1, 2 }
      end)))
      assert.same({ 1, 0 }, a.morphs.defaults)
      assert.same({ { path = "nodes[1].weights", why = "mesh 0 has one set of default morph weights: node 0's are used" } },
        a.skipped)
      assert.equal(6, #a.meshes) -- three nodes, two primitives each, on one list of targets
    end)

    it("names targets by index without targetNames, and keeps names apart", function()
      local a = assert(parse(face(function(doc)
        doc.meshes[1].extras = { targetNames = { "smile" } } -- the wrong length: indices instead
        doc.meshes[2] = { name = "Face", primitives = { doc.meshes[1].primitives[2] } }
        doc.meshes[3] = { primitives = { doc.meshes[1].primitives[2] }, extras = { targetNames = { "a", 7 } } }
        doc.nodes = { { mesh = 2 }, { mesh = 1 }, { mesh = 0 } }
        doc.scenes[1].nodes = { 0, 1, 2 }
      end)))
      assert.same({ "Face.0", "Face.1", "Face_1.0", "Face_1.1", "mesh_2.0", "mesh_2.1" }, a.morphs.names)
      assert.same({ 0.25, 0.5, 0, 0, 0, 0 }, a.morphs.defaults)
      assert.same({ 0, 0, 1, 1, 2, 2 }, a.morphs.mesh)
      assert.equal(5, a.meshes[1].morph_first) -- node 0 shows mesh 2
      assert.equal(5, a.morph_tracks.talk[1].morph) -- the channel's node 0 shows mesh 2
    end)

    it("reads CUBICSPLINE and STEP weights, 3 values per key and target for cubic", function()
      local a = assert(parse(face(function(doc, add)
        local out = add(floats { 0, 0, 1, 2, 0, 0, 0, 0, 0.5, 0.25, 0, 0 }, { componentType = 5126, type = "SCALAR",
          count = 12 })
        doc.animations[1].samplers[1] = { input = 5, output = out, interpolation = "CUBICSPLINE" }
        doc.animations[2] = { name = "step", samplers = { { input = 5, output = 6, interpolation = "STEP" } },
          channels = { { sampler = 0, target = { node = 0, path = "weights" } } } }
      end)))
      local cubic = a.morph_tracks.talk
      assert.equal("cubicspline", cubic[1].interpolation)
      assert.same({ 0, 1, 0, 0, 0.5, 0 }, { cubic[1].values[1], cubic[1].values[2], cubic[1].values[3],
        cubic[1].values[4], cubic[1].values[5], cubic[1].values[6] })
      assert.same({ 0, 2, 0, 0, 0.25, 0 }, { cubic[2].values[1], cubic[2].values[2], cubic[2].values[3],
        cubic[2].values[4], cubic[2].values[5], cubic[2].values[6] })
      assert.equal("step", a.morph_tracks.step[1].interpolation)
      assert.are_not.equal(a.clips.talk, a.clips.step) -- different weight tracks: clips not shared
    end)

    it("bounds the bytes of a clip with its weight tracks as tracks 1 wide", function()
      local a = assert(parse(face()))
      local clip_bytes = require("sinew.gltf.clips").clip_bytes
      local tracks = a.morph_tracks.talk
      assert.equal(clip_bytes({}, 1) + 64 * 2 + 4 * 2 * (4 + 2) * 8, clip_bytes(tracks, 1))
    end)

    it("skips a weights channel on a node without a mesh, or a mesh without targets, saying why", function()
      local a = assert(parse(face(function(doc)
        doc.meshes[2] = { primitives = { { attributes = { POSITION = 0 } } } }
        doc.nodes = { { mesh = 0 }, { name = "empty" }, { mesh = 1 } }
        doc.scenes[1].nodes = { 0, 1, 2 }
        local ch = doc.animations[1].channels
        ch[2] = { sampler = 0, target = { node = 1, path = "weights" } }
        ch[3] = { sampler = 0, target = { node = 2, path = "weights" } }
      end)))
      assert.same({ { path = "animations[0].channels[1]", why = "node 1 has no mesh (morph weights need one)" },
        { path = "animations[0].channels[2]", why = "mesh 1 has no morph targets" } }, a.skipped)
      assert.equal(2, #a.morph_tracks.talk)
    end)

    it("counts morph targets, their tracks and sets against the budget (options.max_bytes)", function()
      local bytes = face()
      local spent = {} -- the smallest budget that imports, with and without meshes
      for _, meshes in ipairs({ true, false }) do
        local lo, hi = 0, 1e6
        while hi - lo > 1 do
          local mid = math.floor((lo + hi) / 2)
          if sinew.gltf.parse(bytes, { max_bytes = mid, meshes = meshes }) then hi = mid else lo = mid end
        end
        spent[meshes] = hi
        local a, err = sinew.gltf.parse(bytes, { max_bytes = hi - 1, meshes = meshes })
        assert.is_nil(a)
        assert.matches("the import needs more than %d+ bytes of data %(options.max_bytes%)", err)
      end
      -- the morph sets of two primitives: their vertices twice and 12 bytes a vertex per delta kept
      -- (the first: 3 vertices of 6 floats, 3 deltas; the second: 3 of 3 floats, 2 deltas), beside
      -- the vertex strings and entries
      assert.is_true(spent[true] - spent[false] >= 2 * (72 + 36) + 12 * 3 * 5)
    end)

    it("keeps the morph list when meshes = false, and imports nothing more for a file without targets", function()
      local a = assert(sinew.gltf.parse(face(), { meshes = false }))
      assert.same({ "Face.smile", "Face.blink" }, a.morphs.names)
      assert.equal(2, #a.morph_tracks.talk)
      local fox = assert(sinew.gltf.load("assets/fox/glTF-Binary/Fox.glb"))
      assert.same({ names = {}, defaults = {}, mesh = {}, target = {} }, fox.morphs)
      assert.is_nil(fox.meshes[1].morph)
      assert.equal(0, fox.meshes[1].morph_count)
      -- position() of a mesh without targets reads its vertices
      local doc = R.raw("assets/fox/glTF-Binary/Fox.glb")
      local p = R.accessor(doc, doc.meshes[1].primitives[1].attributes.POSITION)
      assert.same({ p[4], p[5], p[6] }, { fox.meshes[1]:position(2) })
      assert.matches("vertex 0 is out of range %(1 .. 1728%)", helper.error_of(fox.meshes[1].position, fox.meshes[1], 0))
    end)
  end)

  describe("hostile morph data gives nil, message with the JSON path, never an error", function()
    local NAN = 0 / 0
    local cases = {
      { "target counts that differ between primitives", function(doc) doc.meshes[1].primitives[2].targets[2] = nil end,
        "meshes[0].primitives[1].targets: 1 morph targets, but primitive 0 has 2" },
      { "a target accessor of another count", function(doc, _, vec3)
        doc.meshes[1].primitives[1].targets[2].POSITION = vec3 { 0, 0, 0, 1, 1, 1 } end,
        "meshes[0].primitives[0].targets[1].POSITION: accessor 7 has 2 elements, not one per vertex (3)" },
      { "a NaN delta", function(doc, _, vec3)
        doc.meshes[1].primitives[1].targets[1].POSITION = vec3 { 0, 0, 0, 0, NAN, 0, 0, 0, 0 } end,
        "meshes[0].primitives[0].targets[0].POSITION: value 4 of accessor 7 is not finite" },
      { "a NaN normal delta", function(doc, _, vec3)
        doc.meshes[1].primitives[1].targets[1].NORMAL = vec3 { NAN, 0, 0, 0, 0, 0, 0, 0, 0 } end,
        "meshes[0].primitives[0].targets[0].NORMAL: value 0 of accessor 7 is not finite" },
      { "a VEC2 target", function(doc, add) doc.meshes[1].primitives[1].targets[1].POSITION = add(floats { 0, 0, 0, 0, 0, 0 },
        { componentType = 5126, type = "VEC2", count = 3 }) end,
        "meshes[0].primitives[0].targets[0].POSITION: accessor 7 is a VEC2, not a VEC3" },
      { "unsigned bytes", function(doc, add) doc.meshes[1].primitives[1].targets[1].NORMAL = add(("\0"):rep(9),
        { componentType = 5121, normalized = true, type = "VEC3", count = 3 }) end,
        "targets[0].NORMAL: accessor 7 has UNSIGNED_BYTE (normalized) components, not BYTE (normalized) or FLOAT "
          .. "or SHORT (normalized)" },
      { "targets that are not an array", function(doc) doc.meshes[1].primitives[1].targets = { POSITION = 2 } end,
        "meshes[0].primitives[0].targets: must be an array (got an object)" },
      { "a target that is not an object", function(doc) doc.meshes[1].primitives[1].targets[1] = 2 end,
        "meshes[0].primitives[0].targets[0]: must be an object (got number)" },
      { "a target accessor out of range", function(doc) doc.meshes[1].primitives[1].targets[1].POSITION = 99 end,
        "meshes[0].primitives[0].targets[0].POSITION: accessor 99 is out of range (7 accessors)" },
      { "more targets than a mesh may have", function(doc)
        for _, p in ipairs(doc.meshes[1].primitives) do
          for t = 1, 1025 do p.targets[t] = { POSITION = 2 } end
        end
        doc.meshes[1].weights, doc.meshes[1].extras = nil, nil end,
        "meshes[0].primitives[0].targets: 1025 morph targets, more than the 1024 a mesh may have" },
      { "mesh.weights of the wrong length", function(doc) doc.meshes[1].weights = { 1, 2, 3 } end,
        "meshes[0].weights: has 3 weights, but mesh 0 has 2 morph targets" },
      { "mesh.weights holding a string", function(doc) doc.meshes[1].weights = { 1, "x" } end,
        "meshes[0].weights: weight 1 is not a finite number (got 'x')" },
      { "mesh.weights past float range", function(doc) doc.meshes[1].weights = { 1, 1e39 } end,
        "meshes[0].weights: weight 1 is not a finite number (got 1e+39)" },
      { "mesh.weights that is an object", function(doc) doc.meshes[1].weights = { a = 1 } end,
        "meshes[0].weights: must be an array of numbers (got an array or object)" },
      { "node.weights of the wrong length", function(doc) doc.nodes[1].weights = { 1 } end,
        "nodes[0].weights: has 1 weights, but mesh 0 has 2 morph targets" },
      { "node.weights on a mesh without targets", function(doc)
        doc.meshes[2] = { primitives = { { attributes = { POSITION = 0 } } } }
        doc.nodes[2] = { mesh = 1, weights = { 0.5 } }
        doc.scenes[1].nodes = { 0, 1 } end,
        "nodes[1].weights: has 1 weights, but mesh 1 has 0 morph targets" },
      { "node.weights holding a boolean", function(doc) doc.nodes[1].weights = { 1, true } end,
        "nodes[0].weights: weight 1 is not a finite number (got true)" },
      { "a weights output not a multiple of the targets", function(doc, add)
        doc.animations[1].samplers[1].output = add(floats { 0, 1, 1 }, { componentType = 5126, type = "SCALAR", count = 3 }) end,
        "animations[0].samplers[0].output: accessor 7 has 3 values, not a multiple of the 2 morph targets of mesh 0" },
      { "a weights output of too few keys", function(doc, add)
        doc.animations[1].samplers[1].output = add(floats { 0, 1 }, { componentType = 5126, type = "SCALAR", count = 2 }) end,
        "animations[0].samplers[0].output: accessor 7 has 2 values for 2 key times and 2 morph targets" },
      { "a cubic weights output of 1 value per key", function(doc)
        doc.animations[1].samplers[1].interpolation = "CUBICSPLINE" end,
        "accessor 6 has 4 values for 2 key times and 2 morph targets (cubicspline: 3 per key and target)" },
      { "a NaN weight", function(doc, add)
        doc.animations[1].samplers[1].output = add(floats { 0, 1, NAN, 0 },
          { componentType = 5126, type = "SCALAR", count = 4 }) end,
        "animations[0].samplers[0].output: value 2 is not finite" },
      { "a VEC2 weights output", function(doc, add)
        doc.animations[1].samplers[1].output = add(floats { 0, 1, 1, 0 }, { componentType = 5126, type = "VEC2", count = 2 }) end,
        "animations[0].samplers[0].output: accessor 7 is a VEC2, not a SCALAR" },
      { "an unknown interpolation", function(doc) doc.animations[1].samplers[1].interpolation = "CUBIC" end,
        "animations[0].samplers[0].interpolation: unknown interpolation 'CUBIC'" },
      { "two channels on one node's weights", function(doc)
        doc.animations[1].channels[2] = { sampler = 0, target = { node = 0, path = "weights" } } end,
        "animations[0].channels[1]: node 0's weights is the target of channel 0 too" },
    }
    for _, case in ipairs(cases) do
      it(case[1], function()
        local ok, a, err = pcall(parse, face(case[2]))
        assert.is_true(ok, tostring(a))
        assert.is_nil(a)
        assert.is_truthy(err:find(case[3], 1, true), ("got: %s"):format(err))
        assert.equal("face.glb: ", err:sub(1, 10))
      end)
    end
  end)

  describe("sinew.Morph", function()
    local a = assert(sinew.gltf.load(CUBE .. "glTF-Binary/AnimatedMorphCube.glb"))
    local m = a.meshes[1].morph

    it("refuses bad arguments with clear errors, and a refused call writes nothing", function()
      m:apply({ 0.5, 0.25 })
      local before = m:bytes()
      local bad = {
        { function() m:apply() end, "table or sinew.Pose expected, got no value" },
        { function() m:apply({ 1 }) end, "weight 2 (entry 2) must be a number (got nil)" },
        { function() m:apply({ 1, "x" }) end, "weight 2 (entry 2) must be a number (got string)" },
        { function() m:apply({ 1, 0 / 0 }) end, "weight 2 is not finite" },
        { function() m:apply({ 1, 1e39 }) end, "weight 2 is not finite" },
        { function() m:apply({ 1, 1 }, 0) end, "first 0 is out of range" },
        { function() m:apply({ 1, 1 }, 2) end, "weight 2 (entry 3) must be a number (got nil)" },
        { function() m:apply({ 1, 1 }, 1.5) end, "first 1.5 is not an integer" },
        { function() m:position(0) end, "vertex 0 is out of range (1 .. 24)" },
        { function() m:position(25, { 0, 0 }) end, "vertex 25 is out of range (1 .. 24)" },
        { function() m:position(1, 5) end, "table or sinew.Pose expected, got number" },
        { function() m.apply({}, { 1, 1 }) end, "sinew.Morph expected, got table" },
        { function() m.pointer(a.skeleton) end, "sinew.Morph expected, got sinew.Skeleton" },
        { function() a.meshes[1]:position(1.5) end, "vertex 1.5 is not an integer" },
      }
      for _, b in ipairs(bad) do
        local err = helper.error_of(b[1])
        assert.is_truthy(err and err:find(b[2], 1, true), ("%s: got %s"):format(b[2], tostring(err)))
      end
      assert.equal(before, m:bytes())
    end)

    it("hands its buffer over by pointer and bytes, and applies weights without garbage", function()
      local p, size = m:pointer()
      assert.equal("userdata", type(p))
      assert.equal(24 * 6 * 4, size)
      assert.equal(size, #m:bytes())
      local w = { 0.25, 0.5 }
      assert.equal(0, helper.least_garbage(function() m:apply(w) end, 2000))
      assert.equal(0, helper.least_garbage(function() m:position(7, w) end, 2000))
      assert.equal(0, helper.least_garbage(function() a.meshes[1]:position(7, w) end, 2000))
    end)

    it("gives each target's deltas for the GPU, as the file has them", function()
      local doc = R.raw(CUBE .. "glTF-Binary/AnimatedMorphCube.glb")
      local targets = doc.meshes[1].primitives[1].targets
      for t = 1, 2 do
        for _, ch in ipairs({ { "position", "POSITION" }, { "normal", "NORMAL" } }) do
          local got, want = unpack_floats(m:deltas(t, ch[1])), R.accessor(doc, targets[t][ch[2]])
          assert.equal(#want, #got)
          for i = 1, #want do assert.equal(want[i], got[i]) end
        end
      end
      assert.equal(m:deltas(1), m:deltas(1, "position"))
      assert.matches("target 3 is out of range %(1 .. 2%)", helper.error_of(m.deltas, m, 3))
      assert.matches("invalid option 'tangent'", helper.error_of(m.deltas, m, 1, "tangent"))
      -- a target without normal deltas gives zeros
      local small = assert(sinew.gltf.parse(face(), { name = "face.glb" }))
      assert.equal(("\0"):rep(36), small.meshes[1].morph:deltas(2, "normal"))
    end)

    it("builds only from what the importer gives it", function()
      local make = sinew._morph
      local f = sinew._gltf.floats({ component = 5126, rows = 3, count = 2,
        view = { buffer = floats { 1, 2, 3, 4, 5, 6 }, length = 24 } })
      local verts = floats { 0, 0, 0, 1, 1, 1 }
      local ok = make(verts, 3, { position = 0 }, { { position = f } })
      assert.same({ 0.5, 1, 1.5 }, { ok:position(1, { 0.5 }) })
      local bad = {
        { function() make(nil, 3, {}, {}) end, "string expected, got nil" },
        { function() make(verts, 4, { position = 0 }, {}) end, "vertices of 24 bytes are not whole vertices of 4 floats" },
        { function() make(verts, 3, { position = 1 }, {}) end, "position offset 1 is out of range (-1 .. 0)" },
        { function() make(verts, 3, { position = 0 }, { 1 }) end, "target 1 must be a table (got number)" },
        { function() make(verts, 3, { position = 0 }, { { position = {} } }) end,
          "'position' must be a sinew.Floats (got table)" },
        { function() make(floats { 0, 0, 0 }, 3, { position = 0 }, { { position = f } }) end,
          "target 1: 'position' has 6 floats, not 3 per vertex (1)" },
        { function() make("", 3, { position = 0 }, {}) end, "0 vertices" },
      }
      for _, b in ipairs(bad) do
        local err = helper.error_of(b[1])
        assert.is_truthy(err and err:find(b[2], 1, true), ("%s: got %s"):format(b[2], tostring(err)))
      end
    end)
  end)
end)
