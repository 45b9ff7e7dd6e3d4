--- Drawing DragonBones rigs in LÖVE 11: `sinew.love2d.prepare(data)` builds what LÖVE needs
-- once per imported data (the atlas image, a quad per image display, atlas-space texture
-- coordinates per mesh display), then `sinew.love2d.draw(rig, x, y, angle, sx, sy)` draws a rig
-- of that data, slot by slot in its draw order, with each slot's blend mode and colour, and
-- `sinew.love2d.debug(rig, ...)` draws its bones, IK targets and bounding boxes over it. Drawing
-- makes no garbage once each rig's meshes exist (they are made on its first draw). Needs LÖVE
-- (its `love.graphics`) and LuaJIT's FFI; not loaded by `require "sinew"`. See manual/2d-love.md.
-- @module sinew.love2d
local ffi = require "ffi"

local M = {}

local lg -- love.graphics, looked up on the first prepare (so that requiring needs no LÖVE)

local IMAGE, MESH = 1, 2
-- blend modes: the slot's DragonBones mode -> ours; the others draw as normal
local NORMAL, ADD, MULTIPLY, SCREEN, LIGHTEN, DARKEN, SUBTRACT = 1, 2, 3, 4, 5, 6, 7
local BLEND = { normal = NORMAL, add = ADD, multiply = MULTIPLY, screen = SCREEN, lighten = LIGHTEN,
  darken = DARKEN, subtract = SUBTRACT }
local LOVE_MODE = { "alpha", "add", "multiply", "screen", "lighten", "darken", "subtract" }
-- modes whose transparent pixels must come out white, not black: the shader lifts them
local LIFT = { [MULTIPLY] = true, [DARKEN] = true }

--- The pixel shader used for slots with colour offsets and for the multiply and darken blend
-- modes (nowhere else): the texel (made straight when the atlas is premultiplied) times the
-- colour plus the offsets, clamped, premultiplied; `lift` adds 1 - alpha to the colour so that
-- transparent pixels multiply by white.
M.SHADER = [[
uniform vec4 offset;
uniform float unpremultiply;
uniform float lift;
vec4 effect(vec4 color, Image tex, vec2 uv, vec2 screen) {
    vec4 t = Texel(tex, uv);
    if (unpremultiply > 0.5 && t.a > 0.0) t.rgb /= t.a;
    vec4 c = clamp(t * color + offset, 0.0, 1.0);
    c.rgb = c.rgb * c.a + lift * (1.0 - c.a);
    return c;
}
]]

local prepared = setmetatable({}, { __mode = "k" }) -- armature table -> its prepared data
local drawers = setmetatable({}, { __mode = "k" })  -- rig -> its drawer
local shader                                         -- M.SHADER compiled, on first need
local offset4 = { 0, 0, 0, 0 }                       -- reused for shader:send

local function fail(fmt, ...) return nil, fmt:format(...) end

-- whether `v` is a LÖVE object of type `name` ("Image", "ImageData"): a userdata whose typeOf
-- says so (a userdata that has no typeOf method, or that raises, is not)
local function love_type(v, name)
  if type(v) ~= "userdata" then return false end
  local ok, yes = pcall(function() return v:typeOf(name) end)
  return ok and yes == true
end

-- the type of `v` for a message: a LÖVE object's own type name (`v:type()`), else Lua's
local function type_name(v)
  if type(v) == "userdata" then
    local ok, name = pcall(function() return v:type() end)
    if ok and type(name) == "string" then return name end
  end
  return type(v)
end

-- the bytes of file `path`: through love.filesystem when it knows the path, else io.open
local function read(path)
  local info = love.filesystem.getInfo(path, "file")
  if info then return love.filesystem.read(path) end
  local f, why = io.open(path, "rb")
  if not f then return nil, why end
  local bytes = f:read("*a")
  f:close()
  return bytes
end

-- multiplies each pixel's colour by its alpha (an rgba8 ImageData, in place)
local function premultiply(imagedata)
  local p = ffi.cast("uint8_t *", imagedata:getFFIPointer())
  local n = imagedata:getWidth() * imagedata:getHeight()
  for i = 0, 4 * n - 1, 4 do
    local a = p[i + 3]
    if a < 255 then
      p[i] = math.floor(p[i] * a / 255 + 0.5)
      p[i + 1] = math.floor(p[i + 1] * a / 255 + 0.5)
      p[i + 2] = math.floor(p[i + 2] * a / 255 + 0.5)
    end
  end
end

-- the atlas image: options.image (an Image, an ImageData or a path), else data.atlas.image;
-- returns the Image and whether its colours are premultiplied
local function atlas_image(data, options)
  local source = options.image
  if love_type(source, "Image") then
    return source, options.premultiplied == true
  end
  local imagedata = source
  if type(source) ~= "userdata" then
    local path = source or (data.atlas and data.atlas.image)
    if type(path) ~= "string" then
      return fail("%s: no atlas image (no _tex.json was loaded; pass options.image)", tostring(data.file))
    end
    local bytes, why = read(path)
    if not bytes then return fail("%s: cannot read the atlas image: %s", path, tostring(why)) end
    local ok, decoded = pcall(love.image.newImageData, love.filesystem.newFileData(bytes, path))
    if not ok then return fail("%s: cannot decode the atlas image: %s", path, tostring(decoded)) end
    imagedata = decoded
  end
  if imagedata:getFormat() ~= "rgba8" then
    return fail("%s: the atlas image is %s, not rgba8", tostring(data.file), imagedata:getFormat())
  end
  premultiply(imagedata)
  return lg.newImage(imagedata), true
end

-- what drawing an image display needs: its quad and the matrix from the quad's pixels to the
-- display's space (pivot, trimming, rotated regions), a b c d tx ty
local function image_drawable(d, t, aw, ah, iw, ih)
  local w, h = t.width, t.height -- on the sheet
  local dw, dh = w, h             -- as displayed
  if t.rotated then dw, dh = h, w end
  local px, py
  if t.frame_width and t.frame_height and t.frame_width > 0 and t.frame_height > 0 then
    px = (d.pivot_x or 0.5) * t.frame_width + (t.frame_x or 0)
    py = (d.pivot_y or 0.5) * t.frame_height + (t.frame_y or 0)
  else
    px, py = (d.pivot_x or 0.5) * dw, (d.pivot_y or 0.5) * dh
  end
  -- the quad in the atlas's own units (its _tex.json's size), scaled to the image's
  local quad = lg.newQuad(t.x * iw / aw, t.y * ih / ah, w * iw / aw, h * ih / ah, iw, ih)
  local sx, sy = aw / iw, ah / ih -- image pixels -> atlas units
  local e = { kind = IMAGE, quad = quad }
  if t.rotated then
    -- stored turned a quarter clockwise: quad point (u, v) is display point (v, w - u)
    e.a, e.b, e.c, e.d, e.tx, e.ty = 0, -sx, sy, 0, -px, w - py
  else
    e.a, e.b, e.c, e.d, e.tx, e.ty = sx, 0, 0, sy, -px, -py
  end
  return e
end

-- what drawing a mesh display needs: a static mesh holding its texture coordinates in the atlas
-- (attached to each rig's mesh in place of the file's, which are relative to the region), the
-- vertex map and the vertex count
local function mesh_drawable(d, t, aw, ah)
  local n = math.floor(#d.vertices / 2)
  local uvs = {}
  local x, y, w, h = t.x, t.y, t.width, t.height
  for i = 1, n do
    local u, v = d.uvs[2 * i - 1] or 0, d.uvs[2 * i] or 0
    if t.rotated then
      uvs[i] = { (x + (1 - v) * w) / aw, (y + u * h) / ah }
    else
      uvs[i] = { (x + u * w) / aw, (y + v * h) / ah }
    end
  end
  local map = {}
  for i = 1, #d.triangles do
    local k = d.triangles[i]
    if type(k) ~= "number" or k < 1 or k > n then return nil, ("triangle index %d is %s (1 .. %d)"):format(i, tostring(k), n) end
    map[i] = k
  end
  if n == 0 or #map == 0 then return nil, "no vertices or no triangles" end
  local coords = lg.newMesh({ { "VertexTexCoord", "float", 2 } }, uvs, "triangles", "static")
  return { kind = MESH, coords = coords, map = map, count = n }
end

-- whether any slot of armature `arm` has colour offsets, in its setup or in a colour key (when
-- none has, drawing does not ask the rig for them)
local function has_offsets(arm)
  local function nonzero(c) return c and (c[5] ~= 0 or c[6] ~= 0 or c[7] ~= 0 or c[8] ~= 0) end
  for _, slot in ipairs(arm.slots) do
    if nonzero(slot.color) then return true end
  end
  for _, anim in ipairs(arm.animations) do
    for _, t in ipairs(anim.slots or {}) do
      for _, key in ipairs(t.color or {}) do
        if nonzero(key.color) then return true end
      end
    end
  end
  return false
end

--- Prepares imported DragonBones `data` for drawing in LÖVE, once (before or after its rigs are
-- made): loads the atlas image, makes a quad for each image display (trimmed and rotated
-- regions handled) and the atlas-space texture coordinates of each mesh display. Displays whose
-- texture is not in the atlas draw nothing: `prepared.missing` lists them (messages).
-- @tparam table data what `sinew.dragonbones.load` returned
-- @tparam[opt] table options `image`: the atlas as an Image (then `premultiplied`: whether its
-- colours are premultiplied by alpha, default false), an ImageData or a path (default
-- `data.atlas.image`, read through love.filesystem when it knows the path, else with io.open);
-- an image sinew loads is premultiplied, for clean edges under linear filtering
-- @return the prepared data (`image`, `premultiplied`, `missing`), or nil and a message when the
-- atlas image cannot be had
-- @raise "bad argument #1 to 'prepare' (DragonBones data expected, got nil)" when `data` is not a
-- table with an `armatures` table; "bad argument #2 to 'prepare' (table expected, got string)",
-- "bad argument #2 to 'prepare' (unknown option 'x')" for `options`, "bad argument #2 to 'prepare'
-- (options.image must be a LÖVE Image, an ImageData or a path, got table)" for an `image` of any
-- other type (a LÖVE object is named by its type: "got Canvas"), "bad argument #2 to 'prepare'
-- (options.premultiplied must be a boolean, got string)"; "sinew.love2d needs LÖVE's love.graphics"
-- outside LÖVE. An atlas image that cannot be read or decoded, or is not rgba8,
-- gives nil and a message instead.
function M.prepare(data, options)
  if type(data) ~= "table" or type(data.armatures) ~= "table" then
    error(("bad argument #1 to 'prepare' (DragonBones data expected, got %s)"):format(type(data)), 2)
  end
  if options ~= nil and type(options) ~= "table" then
    error(("bad argument #2 to 'prepare' (table expected, got %s)"):format(type(options)), 2)
  end
  options = options or {}
  for k in pairs(options) do
    if k ~= "image" and k ~= "premultiplied" then
      error(("bad argument #2 to 'prepare' (unknown option '%s')"):format(tostring(k)), 2)
    end
  end
  local given = options.image
  if given ~= nil and type(given) ~= "string" and not love_type(given, "Image") and not love_type(given, "ImageData") then
    error(("bad argument #2 to 'prepare' (options.image must be a LÖVE Image, an ImageData or a path, got %s)"):format(
      type_name(given)), 2)
  end
  if options.premultiplied ~= nil and type(options.premultiplied) ~= "boolean" then
    error(("bad argument #2 to 'prepare' (options.premultiplied must be a boolean, got %s)"):format(
      type_name(options.premultiplied)), 2)
  end
  if type(love) ~= "table" or not love.graphics then error("sinew.love2d needs LÖVE's love.graphics", 2) end
  lg = love.graphics
  local first = data.armatures[1]
  if first and prepared[first] then return prepared[first] end
  local image, premultiplied = atlas_image(data, options)
  if not image then return nil, premultiplied end
  local atlas = data.atlas or { textures = {} }
  local iw, ih = image:getDimensions()
  local aw = (atlas.width and atlas.width > 0) and atlas.width or iw
  local ah = (atlas.height and atlas.height > 0) and atlas.height or ih
  local art = { image = image, premultiplied = premultiplied, missing = {}, drawables = {}, blend = {}, offsets = {} }
  local textures = atlas.textures or {}
  for _, arm in ipairs(data.armatures) do
    local blend = {}
    for s, slot in ipairs(arm.slots) do blend[s] = BLEND[slot.blend_mode] or NORMAL end
    art.blend[arm] = blend
    art.offsets[arm] = has_offsets(arm)
    for _, skin in ipairs(arm.skins) do
      for s, list in pairs(skin.slots) do
        for k, d in ipairs(list) do
          if (d.type == "image" or d.type == "mesh") and not art.drawables[d] then
            local t = textures[d.path or d.name]
            local where = ("armature '%s' slot '%s' display %d"):format(arm.name, arm.slots[s] and arm.slots[s].name or s, k - 1)
            if not t then
              art.missing[#art.missing + 1] = ("%s: no texture '%s' in the atlas"):format(where, tostring(d.path or d.name))
            elseif d.type == "image" then
              art.drawables[d] = image_drawable(d, t, aw, ah, iw, ih)
            else
              local e, why = mesh_drawable(d, t, aw, ah)
              if e then art.drawables[d] = e else art.missing[#art.missing + 1] = where .. ": " .. why end
            end
          end
        end
      end
    end
  end
  for _, arm in ipairs(data.armatures) do prepared[arm] = art end
  return art
end

local function armature_of(rig) return rig:armature() end

-- the drawer of `rig` (made on its first draw): the prepared data, the armature's blend modes,
-- the rig's meshes by display, a transform reused for every image
local function drawer_of(rig, fname)
  local d = drawers[rig]
  if d then return d end
  local ok, arm = pcall(armature_of, rig)
  if not ok or type(arm) ~= "table" then
    error(("bad argument #1 to '%s' (a sinew.dragonbones rig expected, got %s)"):format(fname, type(rig)), 3)
  end
  local art = prepared[arm]
  if not art then
    error(("bad argument #1 to '%s' (the rig's data is not prepared: call sinew.love2d.prepare(data) first)"):format(fname), 3)
  end
  d = { art = art, blend = art.blend[arm], offsets = art.offsets[arm], arm = arm, slots = #arm.slots,
    meshes = {},
    transform = love.math.newTransform() }
  drawers[rig] = d
  return d
end

-- the rig's LÖVE mesh for mesh display `disp` (made once), its ByteData and their pointer
local function rig_mesh(d, disp, e)
  local m = d.meshes[disp]
  if m then return m end
  local mesh = lg.newMesh(e.count, "triangles", "stream") -- x y u v floats, r g b a bytes: 20 bytes
  mesh:setVertexMap(e.map)
  mesh:setTexture(d.art.image)
  mesh:attachAttribute("VertexTexCoord", e.coords)
  local bytes = love.data.newByteData(20 * e.count)
  m = { mesh = mesh, bytes = bytes, pointer = ffi.cast("uint8_t *", bytes:getFFIPointer()), size = 20 * e.count }
  d.meshes[disp] = m
  return m
end

local function check_place(fname, x, y, angle, sx, sy)
  if type(x) ~= "number" or type(y) ~= "number" then
    error(("bad argument #2 to '%s' (numbers x, y expected)"):format(fname), 3)
  end
  if angle ~= nil and type(angle) ~= "number" then error(("bad argument #4 to '%s' (number expected)"):format(fname), 3) end
  if sx ~= nil and type(sx) ~= "number" then error(("bad argument #5 to '%s' (number expected)"):format(fname), 3) end
  if sy ~= nil and type(sy) ~= "number" then error(("bad argument #6 to '%s' (number expected)"):format(fname), 3) end
  angle, sx = angle or 0, sx or 1
  return angle, sx, sy or sx
end

--- Draws `rig` with its armature's origin at (x, y), turned by `angle` radians and scaled by
-- (sx, sy) (armature space is y down, as LÖVE's screen): each slot in the rig's draw order shows
-- its display (images through their quads and the slot's matrix; meshes as LÖVE meshes, one per
-- rig and mesh display, their vertices copied from `rig:mesh` each draw), with the slot's blend
-- mode (normal, add, multiply, screen, lighten, darken, subtract; the others draw as normal) and
-- colour (multipliers; offsets through `M.SHADER`). Armature displays (nested armatures) are not
-- drawn. Restores LÖVE's colour, blend mode and shader; makes no garbage after the first draw.
-- @param rig a rig (`sinew.dragonbones.rig`) of data passed to `prepare`
-- @tparam number x where the armature's origin goes
-- @tparam number y
-- @tparam[opt=0] number angle radians, clockwise on screen
-- @tparam[opt=1] number sx horizontal scale (negative: mirrored)
-- @tparam[opt=sx] number sy vertical scale
-- @raise "bad argument #1 to 'draw' (a sinew.dragonbones rig expected, got nil)" when `rig` is not
-- a rig; "bad argument #1 to 'draw' (the rig's data is not prepared: call
-- sinew.love2d.prepare(data) first)" before `prepare` of its data; "bad argument #2 to 'draw'
-- (numbers x, y expected)" when `x` or `y` is not a number; "bad argument #4 to 'draw' (number
-- expected)" (#5, #6) when `angle`, `sx` or `sy` is neither nil nor a number.
function M.draw(rig, x, y, angle, sx, sy)
  local d = drawer_of(rig, "draw")
  angle, sx, sy = check_place("draw", x, y, angle, sx, sy)
  local art, blend, T = d.art, d.blend, d.transform
  local image, premultiplied = art.image, art.premultiplied
  local drawables, offsets = art.drawables, d.offsets
  local r0, g0, b0, a0 = lg.getColor()
  local mode0, alpha0 = lg.getBlendMode()
  local shader0 = lg.getShader()
  lg.push()
  lg.translate(x, y)
  lg.rotate(angle)
  lg.scale(sx, sy)
  local mode, shaded = 0, false -- what is set: our blend mode, whether the shader is on
  for k = 1, d.slots do
    local s = rig:draw_order(k)
    local disp = rig:display(s)
    local e = disp and drawables[disp]
    if e then
      local _, _, r, g, b, a = rig:slot(s)
      local ro, go, bo, ao = 0, 0, 0, 0
      if offsets then ro, go, bo, ao = rig:slot_offsets(s) end
      local want = blend[s]
      local shade = ro ~= 0 or go ~= 0 or bo ~= 0 or ao ~= 0 or LIFT[want] or (want == LIGHTEN and not premultiplied)
      if a > 0 or ao > 0 then
        if want ~= mode or shade ~= shaded then
          if shade then
            if not shader then shader = lg.newShader(M.SHADER) end
            lg.setShader(shader)
            shader:send("unpremultiply", premultiplied and 1 or 0)
            shader:send("lift", LIFT[want] and 1 or 0)
          else
            lg.setShader(shader0)
          end
          lg.setBlendMode(LOVE_MODE[want], (shade or premultiplied) and "premultiplied" or "alphamultiply")
          mode, shaded = want, shade
        end
        if shade then
          offset4[1], offset4[2], offset4[3], offset4[4] = ro / 255, go / 255, bo / 255, ao / 255
          shader:send("offset", offset4)
        end
        if e.kind == IMAGE then
          if premultiplied and not shade then lg.setColor(r * a, g * a, b * a, a) else lg.setColor(r, g, b, a) end
          local ma, mb, mc, md, mx, my = rig:slot_matrix(s)
          local la, lb, lc, ld = e.a, e.b, e.c, e.d
          T:setMatrix(ma * la + mc * lb, ma * lc + mc * ld, 0, ma * e.tx + mc * e.ty + mx,
            mb * la + md * lb, mb * lc + md * ld, 0, mb * e.tx + md * e.ty + my,
            0, 0, 1, 0, 0, 0, 0, 1)
          lg.draw(image, e.quad, T)
        else
          local pointer, size = rig:mesh(s)
          local m = rig_mesh(d, disp, e)
          if pointer and size == m.size then
            ffi.copy(m.pointer, pointer, size)
            m.mesh:setVertices(m.bytes)
            if premultiplied and not shade then lg.setColor(a, a, a, 1) else lg.setColor(1, 1, 1, 1) end
            lg.draw(m.mesh)
          end
        end
      end
    end
  end
  lg.pop()
  lg.setShader(shader0)
  lg.setBlendMode(mode0, alpha0)
  lg.setColor(r0, g0, b0, a0)
end

-- armature point (px, py) on screen under the placement (x, y, c = cos, s = sin, sx, sy)
local function place(px, py, x, y, c, s, sx, sy)
  px, py = px * sx, py * sy
  return x + c * px - s * py, y + s * px + c * py
end

local polygon = {} -- reused by debug

--- Draws `rig`'s bones, IK targets and bounding boxes placed as `draw` places the rig: each bone
-- a line from its origin along its x axis for its length (a dot for bones of length 0), each IK
-- constraint's target a ring and its bone a thicker line, each bounding-box display its outline.
-- Lines keep their width whatever the scale. Uses LÖVE's current line width; restores the colour.
-- Makes no garbage either.
-- @param rig a rig of data passed to `prepare`
-- @tparam number x placed as `draw` places it
-- @tparam number y
-- @tparam[opt=0] number angle
-- @tparam[opt=1] number sx
-- @tparam[opt=sx] number sy
-- @raise "bad argument #1 to 'debug' (a sinew.dragonbones rig expected, got nil)" when `rig` is not
-- a rig; "bad argument #1 to 'debug' (the rig's data is not prepared: call
-- sinew.love2d.prepare(data) first)" before `prepare` of its data; "bad argument #2 to 'debug'
-- (numbers x, y expected)" when `x` or `y` is not a number; "bad argument #4 to 'debug' (number
-- expected)" (#5, #6) when `angle`, `sx` or `sy` is neither nil nor a number.
function M.debug(rig, x, y, angle, sx, sy)
  local d = drawer_of(rig, "debug")
  angle, sx, sy = check_place("debug", x, y, angle, sx, sy)
  local arm = d.arm
  local c, s = math.cos(angle), math.sin(angle)
  local r0, g0, b0, a0 = lg.getColor()
  local width = lg.getLineWidth()
  for i = 1, #arm.bones do
    local a, b, _, _, tx, ty = rig:bone(i)
    local len = arm.bones[i].length or 0
    local x1, y1 = place(tx, ty, x, y, c, s, sx, sy)
    if len > 0 then
      local x2, y2 = place(tx + a * len, ty + b * len, x, y, c, s, sx, sy)
      lg.setColor(0.1, 0.9, 1, 0.9)
      lg.line(x1, y1, x2, y2)
    end
    lg.setColor(1, 1, 1, 0.9)
    lg.circle("fill", x1, y1, 2)
  end
  for i = 1, #arm.ik do
    local k = arm.ik[i]
    local _, _, _, _, tx, ty = rig:bone(k.target)
    local x1, y1 = place(tx, ty, x, y, c, s, sx, sy)
    lg.setColor(1, 0.3, 0.2, 1)
    lg.circle("line", x1, y1, 7)
    lg.line(x1 - 10, y1, x1 + 10, y1)
    lg.line(x1, y1 - 10, x1, y1 + 10)
    local a, b, _, _, bx, by = rig:bone(k.bone)
    local len = arm.bones[k.bone].length or 0
    local x2, y2 = place(bx, by, x, y, c, s, sx, sy)
    local x3, y3 = place(bx + a * len, by + b * len, x, y, c, s, sx, sy)
    lg.setLineWidth(width * 3)
    lg.line(x2, y2, x3, y3)
    lg.setLineWidth(width)
  end
  lg.setColor(1, 0.9, 0.2, 1)
  for slot = 1, #arm.slots do
    local disp = rig:display(slot)
    if disp and disp.type == "bounding_box" then
      local ma, mb, mc, md, mx, my = rig:slot_matrix(slot)
      local n = 0
      local v = disp.vertices
      if disp.sub_type == "polygon" and v and #v >= 6 then
        for j = 1, #v - 1, 2 do
          n = n + 2
          polygon[n - 1], polygon[n] = place(ma * v[j] + mc * v[j + 1] + mx, mb * v[j] + md * v[j + 1] + my, x, y, c, s, sx, sy)
        end
      else -- a rectangle or an ellipse of width x height about the origin (an ellipse: 24 points)
        local hw, hh = (disp.width or 0) / 2, (disp.height or 0) / 2
        local steps = disp.sub_type == "ellipse" and 24 or 4
        for j = 0, steps - 1 do
          local px, py
          if steps == 4 then
            px, py = (j == 0 or j == 3) and -hw or hw, j < 2 and -hh or hh
          else
            px, py = hw * math.cos(j * 2 * math.pi / steps), hh * math.sin(j * 2 * math.pi / steps)
          end
          n = n + 2
          polygon[n - 1], polygon[n] = place(ma * px + mc * py + mx, mb * px + md * py + my, x, y, c, s, sx, sy)
        end
      end
      if n >= 6 then
        polygon[n + 1], polygon[n + 2] = polygon[1], polygon[2]
        for j = n + 3, #polygon do polygon[j] = nil end
        lg.line(polygon)
      end
    end
  end
  lg.setColor(r0, g0, b0, a0)
end

return M
