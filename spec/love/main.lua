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

-- ---- sinew.love2d: DragonBones rigs drawn into a canvas ----------------------------------------------------

local function dragonbones(name)
  local sinew = require "sinew"
  return assert(sinew.dragonbones.load(root .. "/assets/dragonbones/" .. name))
end

-- an image file anywhere (love.image reads only LÖVE's own folders)
local function image_data(path)
  local f = assert(io.open(path, "rb"))
  local bytes = f:read("*a")
  f:close()
  return love.image.newImageData(love.filesystem.newFileData(bytes, path))
end

-- the rig drawn at (x, y) into a new w x h canvas, read back
local function render(rig, w, h, x, y, scale)
  local love2d = require "sinew.love2d"
  local canvas = love.graphics.newCanvas(w, h)
  love.graphics.setCanvas(canvas)
  love.graphics.clear(0, 0, 0, 0)
  love2d.draw(rig, x, y, 0, scale or 1)
  love.graphics.setCanvas()
  return canvas:newImageData()
end

checks[#checks + 1] = function()
  -- pixels where the rig's images are, none elsewhere (the rectangles computed here from the
  -- data model: the texture's size about the pivot, through the slot's matrix)
  local sinew, love2d = require "sinew", require "sinew.love2d"
  local data = dragonbones("mecha_1406/mecha_1406_ske.json")
  local rig = sinew.dragonbones.rig(data) -- made before prepare: the order does not matter
  local art = assert(love2d.prepare(data))
  assert(#art.missing == 0, art.missing[1])
  rig:play("idle")
  rig:update(0.3)
  local x0, y0, x1, y1 = math.huge, math.huge, -math.huge, -math.huge
  for s = 1, #rig:slots() do
    local d = rig:display(s)
    if d and d.type == "image" then
      local t = data.atlas.textures[d.path]
      local a, b, c, dd, tx, ty = rig:slot_matrix(s)
      for _, corner in ipairs { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 } } do
        local px = (corner[1] - d.pivot_x) * t.width
        local py = (corner[2] - d.pivot_y) * t.height
        local sx, sy = a * px + c * py + tx, b * px + dd * py + ty
        x0, y0, x1, y1 = math.min(x0, sx), math.min(y0, sy), math.max(x1, sx), math.max(y1, sy)
      end
    end
  end
  local ox, oy = 128, 230
  local img = render(rig, 256, 256, ox, oy)
  local inside, outside, area = 0, 0, 0
  for py = 0, 255 do
    for px = 0, 255 do
      local _, _, _, alpha = img:getPixel(px, py)
      local ax, ay = px + 0.5 - ox, py + 0.5 - oy
      local within = ax >= x0 - 2 and ax <= x1 + 2 and ay >= y0 - 2 and ay <= y1 + 2
      if within then area = area + 1 end
      if alpha > 0 then
        if within then inside = inside + 1 else outside = outside + 1 end
      end
    end
  end
  assert(outside == 0, outside .. " pixels drawn outside the rig's rectangles")
  assert(inside > 0.3 * area, ("%d of the %d pixels about the rig drawn"):format(inside, area))
  return ("sinew.love2d: mecha_1406 drawn into a canvas, %d pixels inside its images' bounds, none outside"):format(inside)
end

checks[#checks + 1] = function()
  -- the same rig drawn from an atlas whose every region is stored turned a quarter clockwise
  -- (rotated = true in the _tex.json) and declared trimmed (frameX/Y/Width/Height: the region
  -- 3 and 5 px into a larger frame, the displays' pivots moved to keep the picture) looks the same
  local sinew, love2d = require "sinew", require "sinew.love2d"
  local plain, turned = dragonbones("mecha_1406/mecha_1406_ske.json"), dragonbones("mecha_1406/mecha_1406_ske.json")
  local source = image_data(plain.atlas.image)
  local names, total = {}, 0
  for name, t in pairs(plain.atlas.textures) do names[#names + 1] = name; total = total + t.width end
  table.sort(names)
  local max_h = 0
  for _, name in ipairs(names) do max_h = math.max(max_h, plain.atlas.textures[name].height) end
  local atlas = love.image.newImageData(max_h + 2, total + 2 * #names)
  local y = 0
  for _, name in ipairs(names) do
    local t = plain.atlas.textures[name]
    -- displayed (u, v) is stored at (h - 1 - v, u): turned a quarter clockwise
    for v = 0, t.height - 1 do
      for u = 0, t.width - 1 do
        atlas:setPixel(t.height - 1 - v, y + u, source:getPixel(t.x + u, t.y + v))
      end
    end
    local r = turned.atlas.textures[name]
    r.x, r.y, r.width, r.height, r.rotated = 0, y, t.height, t.width, true
    r.frame_x, r.frame_y, r.frame_width, r.frame_height = -3, -5, t.width + 7, t.height + 9
    y = y + t.width + 2
  end
  -- DragonBones' pivot in a trimmed region: pivot x frame size + frame offset
  for _, skin in ipairs(turned.armatures[1].skins) do
    for _, list in pairs(skin.slots) do
      for _, d in ipairs(list) do
        local t = plain.atlas.textures[d.path]
        if d.type == "image" and t then
          d.pivot_x = (d.pivot_x * t.width + 3) / (t.width + 7)
          d.pivot_y = (d.pivot_y * t.height + 5) / (t.height + 9)
        end
      end
    end
  end
  turned.atlas.width, turned.atlas.height = atlas:getDimensions()
  assert(love2d.prepare(plain))
  assert(love2d.prepare(turned, { image = atlas }))
  local a, b = sinew.dragonbones.rig(plain), sinew.dragonbones.rig(turned)
  a:play("walk"); b:play("walk")
  a:update(0.2); b:update(0.2)
  local ia, ib = render(a, 256, 256, 128, 230), render(b, 256, 256, 128, 230)
  local differ, drawn = 0, 0
  for py = 0, 255 do
    for px = 0, 255 do
      local r1, g1, b1, a1 = ia:getPixel(px, py)
      local r2, g2, b2, a2 = ib:getPixel(px, py)
      if a1 > 0 then drawn = drawn + 1 end
      if math.max(math.abs(r1 - r2), math.abs(g1 - g2), math.abs(b1 - b2), math.abs(a1 - a2)) > 0.1 then differ = differ + 1 end
    end
  end
  assert(drawn > 2000 and differ < 0.02 * drawn, ("%d of %d drawn pixels differ"):format(differ, drawn))
  return ("sinew.love2d: rotated, trimmed atlas regions draw as plain ones (%d of %d pixels differ by > 0.1)"):format(
    differ, drawn)
end

checks[#checks + 1] = function()
  -- one mesh alone (every other slot hidden): at the centre of each large triangle of the left
  -- leg, the canvas shows the atlas texel its texture coordinates point at
  local sinew, love2d = require "sinew", require "sinew.love2d"
  local data = dragonbones("you_xin_body/body_ske.json")
  local art = assert(love2d.prepare(data))
  local rig = sinew.dragonbones.rig(data)
  rig:play("idle")
  rig:update(0.5)
  local top = data.armatures[1].slot.a_leg_L
  assert(rig:display(top).type == "mesh", "a_leg_L shows no mesh")
  for s = 1, #rig:slots() do
    if s ~= top then rig:set_display(s, -1) end
  end
  local scale, ox, oy = 0.25, 128, 400
  local img = render(rig, 256, 420, ox, oy, scale)
  local d = rig:display(top)
  local t = data.atlas.textures[d.path]
  local atlas = image_data(data.atlas.image)
  local xy = {}
  local n = rig:vertices(top, xy)
  assert(n == #d.uvs / 2, "vertex count")
  local checked, matched = 0, 0
  for i = 1, #d.triangles, 3 do
    local k1, k2, k3 = d.triangles[i], d.triangles[i + 1], d.triangles[i + 2]
    local ax, ay = xy[2 * k1 - 1] * scale + ox, xy[2 * k1] * scale + oy
    local bx, by = xy[2 * k2 - 1] * scale + ox, xy[2 * k2] * scale + oy
    local cx, cy = xy[2 * k3 - 1] * scale + ox, xy[2 * k3] * scale + oy
    if math.abs((bx - ax) * (cy - ay) - (cx - ax) * (by - ay)) > 60 then -- over 30 px
      local px, py = (ax + bx + cx) / 3, (ay + by + cy) / 3
      local u = (d.uvs[2 * k1 - 1] + d.uvs[2 * k2 - 1] + d.uvs[2 * k3 - 1]) / 3
      local v = (d.uvs[2 * k1] + d.uvs[2 * k2] + d.uvs[2 * k3]) / 3
      local r1, g1, b1, a1 = img:getPixel(math.floor(px), math.floor(py))
      local r2, g2, b2, a2 = atlas:getPixel(math.floor(t.x + u * t.width), math.floor(t.y + v * t.height))
      checked = checked + 1
      if a2 > 0.9 and math.abs(r1 - r2) + math.abs(g1 - g2) + math.abs(b1 - b2) + math.abs(a1 - a2) < 0.3 then
        matched = matched + 1
      elseif a2 <= 0.9 then
        checked = checked - 1 -- a see-through texel: the canvas shows what is under it
      end
    end
  end
  assert(checked >= 5 and matched >= 0.9 * checked, ("%d of %d triangles show their texels"):format(matched, checked))
  assert(#art.missing == 0, art.missing[1])
  return ("sinew.love2d: you_xin_body's weighted mesh a_leg_L: %d of %d triangles show the atlas texel of their texture"
    .. " coordinates"):format(matched, checked)
end

checks[#checks + 1] = function()
  -- colour offsets through the shader: every slot's red offset at 255 paints the rig red
  local sinew, love2d = require "sinew", require "sinew.love2d"
  local data = dragonbones("mecha_1406/mecha_1406_ske.json")
  for _, slot in ipairs(data.armatures[1].slots) do slot.color[6] = 255 end -- before the first rig
  assert(love2d.prepare(data))
  local rig = sinew.dragonbones.rig(data)
  rig:play("idle")
  rig:update(0.1)
  local img = render(rig, 256, 256, 128, 230)
  local drawn, red = 0, 0
  for py = 0, 255 do
    for px = 0, 255 do
      local r, _, _, a = img:getPixel(px, py)
      if a > 0.5 then
        drawn = drawn + 1
        if r >= a - 0.02 then red = red + 1 end
      end
    end
  end
  assert(drawn > 1000 and red == drawn, ("%d of %d pixels red"):format(red, drawn))
  return ("sinew.love2d: colour offsets: %d pixels, all full red"):format(drawn)
end

checks[#checks + 1] = function()
  -- colour offsets from an animation's colour keys: spec/dragonbones/extra/tweens (no atlas of
  -- its own) given a grey 16 x 16 atlas; its slot 'body' alone, in keys with and without offsets
  local sinew, love2d = require "sinew", require "sinew.love2d"
  local data = assert(sinew.dragonbones.load(root .. "/spec/dragonbones/extra/tweens_ske.json"))
  local grey = love.image.newImageData(16, 16)
  grey:mapPixel(function() return 0.5, 0.5, 0.5, 1 end)
  local region = { x = 0, y = 0, width = 16, height = 16, rotated = false }
  data.atlas = { width = 16, height = 16, textures = { body = region, arm = region, hand = region, hand_open = region,
    quad = region } }
  assert(love2d.prepare(data, { image = grey }))
  local rig = sinew.dragonbones.rig(data)
  local function colour_at(t)
    rig:seek("color", t)
    rig:update(0)
    for s = 1, #rig:slots() do
      if rig:slots()[s] ~= "body" then rig:set_display(s, -1) end
    end
    local img = render(rig, 64, 64, 32, 32)
    local sum, n = { 0, 0, 0, 0 }, 0
    for py = 0, 63 do
      for px = 0, 63 do
        local r, g, b, a = img:getPixel(px, py)
        if a > 0.1 then
          sum[1], sum[2], sum[3], sum[4], n = sum[1] + r / a, sum[2] + g / a, sum[3] + b / a, sum[4] + a, n + 1
        end
      end
    end
    assert(n > 100, n .. " pixels drawn")
    return sum[1] / n, sum[2] / n, sum[3] / n, sum[4] / n
  end
  -- frames 0 .. 14: aM 40, no offsets; frame 15: gM 60, gO 255 (green 0.5 x 0.6 + 1, clamped),
  -- tweening towards rO -255, gO 0 at frame 30
  local rate = data.armatures[1].animations.color.frame_rate
  local r, g, b, a = colour_at(5 / rate)
  assert(math.abs(r - 0.5) < 0.02 and math.abs(g - 0.5) < 0.02 and math.abs(b - 0.5) < 0.02 and math.abs(a - 0.4) < 0.02,
    ("frame 5: %.3f %.3f %.3f %.3f"):format(r, g, b, a))
  r, g, b, a = colour_at(15 / rate)
  assert(math.abs(r - 0.5) < 0.02 and g > 0.98 and math.abs(b - 0.5) < 0.02 and a > 0.98,
    ("frame 15: %.3f %.3f %.3f %.3f"):format(r, g, b, a))
  r, g, b, a = colour_at(25 / rate) -- two thirds: rO -170, gM 86.7, gO 85: red 0.5 - 0.667, green 0.433 + 0.333
  assert(r < 0.02 and math.abs(g - 0.767) < 0.02 and math.abs(b - 0.5) < 0.02 and a > 0.98,
    ("frame 25: %.3f %.3f %.3f %.3f"):format(r, g, b, a))
  return "sinew.love2d: colour offsets of an animation's colour keys reach the pixels (tweens: green 0.5 -> 1)"
end

checks[#checks + 1] = function()
  -- no garbage: update, draw (images, meshes) and the debug view, once the rig's
  -- meshes exist; the least of several rounds, as spec/helper.lua takes (LuaJIT's trace
  -- compiler makes GC objects in some rounds)
  local sinew, love2d = require "sinew", require "sinew.love2d"
  local rigs = {}
  for _, name in ipairs { "mecha_1406/mecha_1406_ske.json", "you_xin_body/body_ske.json" } do
    local data = dragonbones(name)
    assert(love2d.prepare(data))
    local rig = sinew.dragonbones.rig(data)
    rig:play(data.armatures[1].animations[2].name)
    rigs[#rigs + 1] = rig
  end
  local canvas = love.graphics.newCanvas(128, 128)
  local function frame()
    love.graphics.setCanvas(canvas)
    for i = 1, #rigs do
      rigs[i]:update(1 / 60)
      love2d.draw(rigs[i], 64, 120, 0.1, 0.2)
      love2d.debug(rigs[i], 64, 120, 0.1, 0.2)
    end
    love.graphics.setCanvas()
  end
  for _ = 1, 300 do frame() end
  local least = math.huge
  for _ = 1, 8 do
    collectgarbage("collect")
    collectgarbage("stop")
    for _ = 1, 50 do frame() end
    local before = collectgarbage("count")
    for _ = 1, 100 do frame() end
    least = math.min(least, (collectgarbage("count") - before) * 1024 / 100)
    collectgarbage("restart")
    if least <= 0 then break end
  end
  assert(least <= 0, ("%.1f bytes of garbage a frame"):format(least))
  return "sinew.love2d: updating, drawing and debug-drawing mecha_1406 and you_xin_body make no garbage"
end

checks[#checks + 1] = function()
  -- every armature of every sample: prepared (no display without its texture), played a little
  -- and drawn at four moments (nested armatures skipped) with pixels to show; the debug view too
  local sinew, love2d = require "sinew", require "sinew.love2d"
  local files = { "dragon_boy/dragon_boy_ske.json", "effect/effect_ske.json", "floor_board/floor_board_ske.json",
    "mecha_1004d/mecha_1004d_ske.json", "mecha_1406/mecha_1406_ske.json", "mecha_1502b/mecha_1502b_ske.json",
    "progress_bar/progress_bar_ske.json", "replace_slot_display/main_ske.json",
    "you_xin_20703016/20703016_ske.json", "you_xin_body/body_ske.json" }
  local armatures, blank, hidden = 0, {}, 0
  for _, file in ipairs(files) do
    local data = dragonbones(file)
    local art = assert(love2d.prepare(data))
    assert(#art.missing == 0, file .. ": " .. tostring(art.missing[1]))
    for _, arm in ipairs(data.armatures) do
      local rig = assert(sinew.dragonbones.rig(data, arm.name))
      if arm.animations[1] then rig:play(arm.animations[1].name) end
      local canvas = love.graphics.newCanvas(128, 128)
      love.graphics.setCanvas(canvas)
      local shown = false -- whether a slot shows an image or a mesh, not fully transparent
      for _ = 1, 4 do -- four moments into the same canvas (effects fade in and out)
        rig:update(0.1)
        love2d.draw(rig, 64, 64, 0, 0.1)
        for s = 1, #arm.slots do
          local d = rig:display(s)
          local _, _, _, _, _, alpha = rig:slot(s)
          if d and (d.type == "image" or d.type == "mesh") and alpha > 0.05 then shown = true end
        end
      end
      love.graphics.setCanvas()
      local img, drawn = canvas:newImageData(), false
      love.graphics.setCanvas(canvas)
      love2d.debug(rig, 64, 64, 0, 0.1)
      love.graphics.setCanvas()
      for i = 0, 128 * 128 - 1, 3 do
        local r, g, b, a = img:getPixel(i % 128, math.floor(i / 128))
        if r + g + b + a > 0 then drawn = true break end -- (the add mode leaves alpha as it was)
      end
      if shown and not drawn then blank[#blank + 1] = file .. " " .. arm.name end
      armatures, hidden = armatures + 1, hidden + (shown and 0 or 1)
    end
  end
  assert(#blank == 0, "nothing drawn for " .. table.concat(blank, ", "))
  return ("sinew.love2d: the %d armatures of the ten samples prepared, drawn and debug-drawn (%d showing nothing"
    .. " then, as their animations hide them)"):format(armatures, hidden)
end

checks[#checks + 1] = function()
  -- misuse: clear errors
  local sinew, love2d = require "sinew", require "sinew.love2d"
  local ok, err = pcall(love2d.prepare, 42)
  assert(not ok and err:find("bad argument #1 to 'prepare' %(DragonBones data expected, got number%)"), err)
  local data = dragonbones("dragon_boy/dragon_boy_ske.json")
  local rig = sinew.dragonbones.rig(data)
  ok, err = pcall(love2d.draw, rig, 0, 0)
  assert(not ok and err:find("not prepared"), err)
  local none, why = love2d.prepare(data, { image = "/nowhere/atlas.png" })
  assert(none == nil and why:find("^/nowhere/atlas.png: cannot read the atlas image"), tostring(why))
  assert(love2d.prepare(data))
  ok, err = pcall(love2d.draw, rig, "x", 0)
  assert(not ok and err:find("bad argument #2 to 'draw'"), err)
  for _, bad in ipairs { {}, 7, "rig", setmetatable({}, { __index = function() error("boom") end }) } do
    ok, err = pcall(love2d.draw, bad, 0, 0)
    assert(not ok and err:find("bad argument #1 to 'draw' %(a sinew.dragonbones rig expected"), err)
    ok, err = pcall(love2d.debug, bad, 0, 0)
    assert(not ok and err:find("bad argument #1 to 'debug' %(a sinew.dragonbones rig expected"), err)
  end
  return "sinew.love2d: misuse raises clear errors; a missing atlas image gives nil, message"
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
