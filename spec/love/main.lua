-- Requires sinew from this tree's LuaJIT build inside LÖVE 11 and checks what LÖVE users do with
-- it: quaternions, model-space matrices handed to love.data (the one-string route through
-- mats:bytes() and the no-garbage ffi route through mats:pointer()), the Fox imported with
-- sinew.gltf into a textured love Mesh, and an animator playing it. Prints a summary line
-- "love: N passed, M failed" and quits with its status.
local root = love.filesystem.getSourceBaseDirectory() -- the folder holding spec/
root = root:gsub("/spec$", "")
package.cpath = root .. "/build/luajit/?.so;" .. package.cpath
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path

local checks = {}

checks[#checks + 1] = function()
  local sinew = require "sinew"
  local h = math.sqrt(0.5)
  local x, y, z, w = sinew.quat.slerp(0, 0, 0, 1, 0, 0, h, h, 0.5)
  assert(x == 0 and y == 0 and math.abs(z - math.sin(math.pi / 8)) < 1e-12
    and math.abs(w - math.cos(math.pi / 8)) < 1e-12, "slerp gave " .. x .. " " .. y .. " " .. z .. " " .. w)
  return ("sinew %s loaded under %s (%s), slerp ok"):format(sinew._VERSION, _VERSION, jit.version)
end

checks[#checks + 1] = function()
  -- the LuaJIT fast path where LÖVE runs the JIT (it turns it off on arm64: the C API then)
  local sinew = require "sinew"
  local want = (jit.status() and os.getenv("SINEW_FFI") ~= "0") and "ffi" or "c"
  assert(sinew.path == want, ("path %s (%s), expected %s"):format(sinew.path, sinew.path_reason, want))
  local skel = sinew.skeleton{ names = { "a", "b" }, parents = { 0, 1 } }
  local a, b, out = sinew.pose(skel), sinew.pose(skel), sinew.pose(skel)
  b:set_rotation(2, 0, 0, math.sqrt(0.5), math.sqrt(0.5))
  for _ = 1, 2000 do sinew.blend(out, { a, b }, { 0.5, 0.5 }) end
  local _, _, z = out:get_rotation(2)
  assert(math.abs(z - math.sin(math.pi / 8)) < 1e-6, "blend gave z = " .. z)
  return ("sinew.path is %s (%s); 2000 blends through it"):format(sinew.path, sinew.path_reason)
end

checks[#checks + 1] = function()
  local sinew = require "sinew"
  local ffi = require "ffi"
  local skel = sinew.skeleton{ names = { "hips", "spine", "head" }, parents = { 0, 1, 2 } }
  local pose, mats = sinew.pose(skel), sinew.matrices(skel)
  pose:set_translation(2, 0, 1, 0)
  pose:set_translation(3, 0, 0.5, 0)
  pose:to_model(mats)
  local want = { mats:get(3) } -- head: translation (0, 1.5, 0) in column 4
  assert(math.abs(want[14] - 1.5) < 1e-6, "head matrix has y = " .. tostring(want[14]))

  local data = love.data.newByteData(mats:bytes())
  assert(data:getSize() == 64 * #mats, "ByteData of " .. data:getSize() .. " bytes")
  local bones = love.data.newByteData(64 * #mats)
  ffi.copy(bones:getFFIPointer(), mats:pointer(), 64 * #mats)
  local a = ffi.cast("const float *", data:getFFIPointer())
  local b = ffi.cast("const float *", bones:getFFIPointer())
  for i = 0, 16 * #mats - 1 do
    assert(a[i] == b[i], "float " .. i .. " differs between the two routes")
  end
  for i = 1, 16 do
    assert(a[32 + i - 1] == want[i], "float " .. i .. " of the head matrix differs from mats:get(3)")
  end
  return "matrices reach love.data through mats:bytes() and mats:pointer()"
end

checks[#checks + 1] = function()
  local sinew = require "sinew"
  local f = assert(io.open(root .. "/assets/fox/glTF-Binary/Fox.glb", "rb"))
  local bytes = f:read("*a")
  f:close()
  local fox = assert(sinew.gltf.parse(bytes, { name = "Fox.glb" }))
  local m = fox.meshes[1]
  local mesh = love.graphics.newMesh(m.format, love.data.newByteData(m.vertices), m.mode, "static")
  assert(mesh:getVertexCount() == m.vertex_count, "mesh of " .. mesh:getVertexCount() .. " vertices")
  -- the Fox has no indices; CesiumMan's index a mesh through a vertex map
  local man = assert(sinew.gltf.load(root .. "/spec/gltf-corpus/CesiumMan/glTF-Binary/CesiumMan.glb"))
  local mm = man.meshes[1]
  local man_mesh = love.graphics.newMesh(mm.format, love.data.newByteData(mm.vertices), mm.mode, "static")
  man_mesh:setVertexMap(love.data.newByteData(mm.indices), "uint32")
  local map = man_mesh:getVertexMap()
  assert(#map == mm.index_count, "vertex map of " .. #map .. " indices")
  local img = fox.images[m.material.image]
  local texture = love.graphics.newImage(love.image.newImageData(love.filesystem.newFileData(img.bytes, "fox.png")))
  mesh:setTexture(texture)
  -- the first vertex as LÖVE reads it back: position and weights as imported
  local x, y, z = mesh:getVertexAttribute(1, 1)
  assert(x == x and y == y and z == z, "position of vertex 1 is not a number")
  local wsum = 0
  for k = 1, #m.format do
    if m.format[k][1] == "VertexWeights" then
      local a, b, c, d = mesh:getVertexAttribute(1, k)
      wsum = a + b + c + d
    end
  end
  assert(math.abs(wsum - 1) < 1e-6, "weights of vertex 1 add up to " .. wsum)
  -- a frame: sample, model space, skinning matrices
  local pose, mats = sinew.pose(fox.skeleton), sinew.matrices(fox.skeleton)
  fox.clips.Run:sample(0.3, pose)
  pose:to_model(mats)
  mats:skin(fox.inverse_bind, fox.root_matrix)
  assert(#mats:bytes() == 64 * #fox.skeleton, "skinning matrices of the wrong size")
  -- love.filesystem.read as options.read: its nil, message reaches the asset's message
  local g = assert(io.open(root .. "/assets/fox/glTF/Fox.gltf", "rb"))
  local text = g:read("*a")
  g:close()
  local none, err = sinew.gltf.parse(text, "nowhere", { name = "Fox.gltf", read = love.filesystem.read })
  assert(none == nil and err:find("^Fox.gltf: buffers%[0%]%.uri: cannot read 'nowhere/Fox.bin'"), tostring(err))
  return ("Fox.glb: %d joints, %d clips, a mesh of %d vertices, a %dx%d texture; CesiumMan: %d indices"):format(
    #fox.skeleton, #fox.clip_names, m.vertex_count, texture:getWidth(), texture:getHeight(), #map)
end

checks[#checks + 1] = function()
  local sinew = require "sinew"
  local f = assert(io.open(root .. "/assets/fox/glTF-Binary/Fox.glb", "rb"))
  local fox = assert(sinew.gltf.parse(f:read("*a"), { name = "Fox.glb", meshes = false }))
  f:close()
  local anim = sinew.animator({ skeleton = fox.skeleton, parameters = { speed = 0, jump = "trigger" },
    layers = { { entry = "idle", states = {
      idle = { motion = "Survey" },
      move = { motion = { blend = "1d", parameter = "speed", sync = true, children = { { 0.5, "Walk" }, { 3, "Run" } } },
               events = { { 0.1, "step" } } },
      jump = { motion = "Run", loop = false } },
      transitions = { { from = "idle", to = "move", when = { { "speed", ">", 0.2 } }, duration = 0.3 },
        { from = "any", to = "jump", when = { { "jump" } }, duration = 0.15, mode = "inertialize" },
        { from = "jump", to = "move", exit_time = 0.95, duration = 0.2 } } } } }, { clips = fox.clips })
  local pose, mats, steps = sinew.pose(fox.skeleton), sinew.matrices(fox.skeleton), 0
  anim:on("step", function() steps = steps + 1 end)
  anim:set("speed", 1.5)
  for frame = 1, 240 do
    if frame == 120 then anim:trigger("jump") end
    anim:update(1 / 60):evaluate(pose)
    pose:to_model(mats)
  end
  assert(anim:state() == "move", "the fox is in " .. tostring(anim:state()))
  assert(steps >= 3, steps .. " steps")
  return ("animator: 240 frames of the Fox (idle, walk-run, jump, back), %d step events"):format(steps)
end

checks[#checks + 1] = function()
  -- the skinning shader of manual/love.md, compiled, sent the Fox's bones, and drawn with
  local sinew = require "sinew"
  local ffi = require "ffi"
  local g = assert(io.open(root .. "/manual/love.md", "rb"))
  local manual = g:read("*a")
  g:close()
  local code = assert(manual:match("local skin_shader = %[%[\n(.-)%]%]"), "no shader in manual/love.md")
  local f = assert(io.open(root .. "/assets/fox/glTF-Binary/Fox.glb", "rb"))
  local fox = assert(sinew.gltf.parse(f:read("*a"), { name = "Fox.glb" }))
  f:close()
  local m = fox.meshes[1]
  local mesh = love.graphics.newMesh(m.format, love.data.newByteData(m.vertices), m.mode, "static")
  local shader = love.graphics.newShader(code)
  local pose, mats = sinew.pose(fox.skeleton), sinew.matrices(fox.skeleton)
  local bones = love.data.newByteData(64 * #mats)
  fox.clips.Run:sample(0.3, pose)
  pose:to_model(mats)
  mats:skin(fox.inverse_bind, fox.root_matrix)
  ffi.copy(bones:getFFIPointer(), mats:pointer(), 64 * #mats)
  shader:send("bones", "column", bones)
  local canvas = love.graphics.newCanvas(64, 64)
  love.graphics.setCanvas(canvas)
  love.graphics.setShader(shader)
  love.graphics.draw(mesh, 32, 32, 0, 0.3, -0.3)
  love.graphics.setShader()
  love.graphics.setCanvas()
  return ("the skinning shader of manual/love.md compiles and draws the Fox with %d bones"):format(#mats)
end

function love.load()
  local passed, failed = 0, 0
  for _, check in ipairs(checks) do
    local ok, msg = pcall(check)
    if ok then passed = passed + 1 else failed = failed + 1 end
    print("love: " .. tostring(msg))
  end
  print(("love: %d passed, %d failed"):format(passed, failed))
  love.event.quit(failed == 0 and 0 or 1)
end
