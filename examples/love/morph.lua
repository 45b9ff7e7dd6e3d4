-- Morph targets beside the Fox (b shows or hides them): the Khronos AnimatedMorphCube imported
-- with sinew.gltf, its weights played by a sinew animator (the file's "Square" clip, and a pulse
-- held over it with anim:set_morph), drawn twice: on the left morphed on the CPU
-- (Morph:apply into a ByteData, Mesh:setVertices: no garbage per frame), on the right on the GPU
-- (each target's deltas uploaded once as vertex attributes, the weights sent as a uniform and
-- added in the vertex shader). manual/gltf.md, Morph targets, says when to take which.
local ffi = require "ffi"

local unpack = table.unpack or unpack

local M = {}

M.PATH = "morphcube/AnimatedMorphCube.glb"
--- Where the two cubes stand in the scene (x, z in metres: the CPU's, then the GPU's; in front of
-- the Fox and to its right from the first camera), their height, size, and how fast they spin.
M.LABELS = { "morph: CPU", "morph: GPU" }
M.PLACES, M.Y, M.SIZE, M.SPIN = { { 0.3, -1.2 }, { -0.1, -1.6 } }, 0.25, 0.2, 0.4

-- lit by one light, fogged as the Fox; with `morph`, the targets' deltas are added first
local function shader_code(morph)
  return ([[
uniform mat4 projection;
uniform mat4 view;
uniform mat4 model;
%s
varying vec3 normal_world;
varying float fog;
#ifdef VERTEX
attribute vec3 VertexNormal;
%s
vec4 position(mat4 transform_projection, vec4 vertex_position) {
    vec3 p = vertex_position.xyz;
    vec3 n = VertexNormal;
    %s
    normal_world = mat3(model) * n;
    vec4 eye = view * (model * vec4(p, 1.0));
    fog = clamp((-eye.z - 8.0) / 30.0, 0.0, 0.7);
    return projection * eye;
}
#endif
#ifdef PIXEL
vec4 effect(vec4 color, Image tex, vec2 uv, vec2 screen) {
    float light = 0.45 + 0.55 * max(dot(normalize(normal_world), normalize(vec3(0.3, 1.0, 0.5))), 0.0);
    return vec4(mix(color.rgb * light, vec3(0.80, 0.84, 0.88), fog), 1.0);
}
#endif
]]):format(morph and "uniform vec2 weights;" or "",
    morph and "attribute vec3 MorphPosition1;\nattribute vec3 MorphPosition2;\n"
      .. "attribute vec3 MorphNormal1;\nattribute vec3 MorphNormal2;" or "",
    morph and "p += weights.x * MorphPosition1 + weights.y * MorphPosition2;\n"
      .. "    n += weights.x * MorphNormal1 + weights.y * MorphNormal2;" or "")
end

--- The two cubes, or nil and why not.
function M.load(sinew, lg)
  local bytes = love.filesystem.read(M.PATH)
  if not bytes then return nil, M.PATH .. " is missing" end
  local cube, err = sinew.gltf.parse(bytes, "", { name = "AnimatedMorphCube.glb" })
  if not cube then return nil, err end
  local m = cube.meshes[1]
  local s = {
    cube = cube, mesh = m, pose = sinew.pose(cube.skeleton), t = 0, weights = { 0, 0 },
    anim = sinew.animator({ skeleton = cube.skeleton, layers = { { name = "base", entry = "square",
      states = { square = { motion = "Square" } } } } }, { clips = cube.clips }),
    cpu_shader = lg.newShader(shader_code(false)), gpu_shader = lg.newShader(shader_code(true)),
    models = { {}, {} }, transforms = { love.math.newTransform(), love.math.newTransform() },
  }
  -- the CPU route: a stream mesh refilled from the morph's buffer each frame
  s.data = love.data.newByteData(m.vertices)
  s.dst = s.data:getFFIPointer() -- (once: each call makes a new cdata)
  s.cpu = lg.newMesh(m.format, s.data, m.mode, "stream")
  -- the GPU route: the mesh as imported, and the deltas of both targets as four more attributes
  s.gpu = lg.newMesh(m.format, love.data.newByteData(m.vertices), m.mode, "static")
  local n = m.vertex_count
  local deltas = love.data.newByteData(4 * 12 * n)
  local out = ffi.cast("float *", deltas:getFFIPointer())
  local parts = { m.morph:deltas(1, "position"), m.morph:deltas(2, "position"), m.morph:deltas(1, "normal"),
    m.morph:deltas(2, "normal") }
  for k, part in ipairs(parts) do
    local src = ffi.cast("const float *", ffi.cast("const char *", part))
    for v = 0, n - 1 do
      for c = 0, 2 do out[12 * v + 3 * (k - 1) + c] = src[3 * v + c] end
    end
  end
  s.deltas = lg.newMesh({ { "MorphPosition1", "float", 3 }, { "MorphPosition2", "float", 3 },
    { "MorphNormal1", "float", 3 }, { "MorphNormal2", "float", 3 } }, deltas, "points", "static")
  for _, name in ipairs({ "MorphPosition1", "MorphPosition2", "MorphNormal1", "MorphNormal2" }) do
    s.gpu:attachAttribute(name, s.deltas)
  end
  if m.indices then
    local map = love.data.newByteData(m.indices)
    s.cpu:setVertexMap(map, "uint32")
    s.gpu:setVertexMap(map, "uint32")
  end
  -- the cube is 2 cm across in its file (its node scales it): M.SIZE across here
  s.scale = M.SIZE / 0.02
  return s
end

--- Advances the animator by dt (a pulse on the second target held over the clip, every few
-- seconds), samples its weights and morphs the CPU cube's vertices (no garbage).
function M.step(s, dt)
  s.t = s.t + dt
  local pulse = math.max(0, math.sin(s.t * 1.3)) ^ 8
  s.anim:set_morph("Cube.1", pulse > 0.01 and pulse or nil)
  s.anim:update(dt):evaluate(s.pose)
  local m = s.mesh
  m.morph:apply(s.pose, m.morph_first) -- the CPU route: the morph's own buffer ...
  local pointer, size = m.morph:pointer()
  ffi.copy(s.dst, pointer, size) -- ... into the mesh's data, then uploaded
  s.cpu:setVertices(s.data)
  s.weights[1], s.weights[2] = s.pose:morph(m.morph_first), s.pose:morph(m.morph_first + 1) -- the GPU route's uniform
  local a, k = s.t * M.SPIN, s.scale
  local c, sn = math.cos(a) * k, math.sin(a) * k
  for i = 1, 2 do
    local mm, x, z = s.models[i], M.PLACES[i][1], M.PLACES[i][2]
    mm[1], mm[2], mm[3], mm[4] = c, 0, -sn, 0
    mm[5], mm[6], mm[7], mm[8] = 0, k, 0, 0
    mm[9], mm[10], mm[11], mm[12] = sn, 0, c, 0
    mm[13], mm[14], mm[15], mm[16] = x, M.Y, z, 1
    s.transforms[i]:setMatrix("column", unpack(mm, 1, 16))
  end
end

--- Draws both cubes with the scene's projection and view transforms, and their labels through
-- `project(x, y, z) -> sx, sy`.
function M.draw(s, lg, P, V, project)
  lg.setDepthMode("lequal", true)
  for i = 1, 2 do
    local sh = i == 1 and s.cpu_shader or s.gpu_shader
    lg.setShader(sh)
    sh:send("projection", P)
    sh:send("view", V)
    sh:send("model", s.transforms[i])
    if i == 2 then sh:send("weights", s.weights) end
    lg.setColor(i == 1 and 0.35 or 0.85, 0.55, i == 1 and 0.9 or 0.3)
    lg.draw(i == 1 and s.cpu or s.gpu)
  end
  lg.setShader()
  lg.setDepthMode()
  lg.setColor(0.1, 0.1, 0.1)
  for i = 1, 2 do
    local px, py = project(M.PLACES[i][1], M.Y - 0.2, M.PLACES[i][2]) -- (below: the mocap figure stands behind)
    if px then lg.print(M.LABELS[i], px - 30, py) end
  end
  local px, py = project(M.PLACES[1][1], M.Y - 0.45, M.PLACES[1][2])
  if px then lg.print(("Cube.0 %.2f  Cube.1 %.2f"):format(s.weights[1], s.weights[2]), px - 60, py) end
end

return M
