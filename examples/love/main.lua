-- The Fox running in LÖVE 11: the Khronos Fox imported with sinew.gltf, driven by a sinew
-- animator (Survey when still, Walk and Run blended by speed in a synced blend tree, a jump on
-- space with events, and an additive look layer: an aim offset of neck and head through a 2-D
-- blend space, look.lua), its tail swinging as dynamic bones, drawn as a skinned, textured mesh
-- over a ground grid, with a panel of what the animator does.
--
--   make demo-love            (or, after `make LUA=luajit`: love examples/love)
--   keys: up/down speed, left/right turn (the head looks into the turn), w/a/s/d look, g the
--         mouse look (IK: spine, neck and head turn toward where the mouse points, fox_ik.lua),
--         f the feet on the ground (IK: a ramp and steps across its path, terrain.lua),
--         space jump, tab skeleton view, c adds 100 foxes (every fox's animator is one of a
--         plan compiled once: a few KB each), m the motion-capture figure (mocap.lua),
--         b the morph-target cubes, morphed on the CPU and on the GPU (morph.lua)
--   mouse: drag to orbit, wheel to zoom; drag in the panel's look square to aim the head
--
-- With --script DIR it plays a fixed 6-second sequence (idle looking down, walk, run, turn
-- looking into it, jump looking up, stop, then 100 more foxes) at 60 steps per second, saves six
-- screenshots into DIR, checks that none is blank and that they all differ, prints "demo-love:
-- N passed, M failed" and quits (what `make demo-love` does without a display, under xvfb).

-- ---- finding sinew: this clone's build, or sinew/ copied into the game --------------------------
do
  local clone = love.filesystem.getSourceBaseDirectory() .. "/.."
  local probe = io.open(clone .. "/lua/sinew/init.lua", "rb")
  if probe then
    probe:close()
    package.path = clone .. "/lua/?.lua;" .. clone .. "/lua/?/init.lua;" .. package.path
    package.cpath = clone .. "/build/luajit/?.so;" .. package.cpath
  end
end
local sinew = require "sinew"
local ffi = require "ffi"
local look = require "look" -- look.lua beside this file: the look layer, shared with examples/demo.lua
local fox_ik = require "fox_ik" -- fox_ik.lua: the look at the mouse and the feet on the ground (sinew.ik)
local terrain = require "terrain" -- terrain.lua: a ramp, a plateau and steps across the Fox's path
local mocap_figure = require "mocap" -- mocap.lua: a CMU recording beside the Fox (sinew.bvh)
local morph_cubes = require "morph" -- morph.lua: morph targets on the CPU and on the GPU (sinew.gltf)

local lg = love.graphics
local W, H = 960, 600

-- ---- 4x4 matrices (column-major lists) --------------------------------------------------------------

local function perspective(out, fovy, aspect, near, far)
  local f = 1 / math.tan(fovy / 2)
  for i = 1, 16 do out[i] = 0 end
  out[1], out[6] = f / aspect, f
  out[11], out[12] = (far + near) / (near - far), -1
  out[15] = 2 * far * near / (near - far)
  return out
end

local function look_at(out, ex, ey, ez, tx, ty, tz)
  local fx, fy, fz = tx - ex, ty - ey, tz - ez
  local l = math.sqrt(fx * fx + fy * fy + fz * fz)
  fx, fy, fz = fx / l, fy / l, fz / l
  local sx, sy, sz = fy * 0 - fz * 1, fz * 0 - fx * 0, fx * 1 - fy * 0 -- f x up(0,1,0)
  l = math.sqrt(sx * sx + sy * sy + sz * sz)
  sx, sy, sz = sx / l, sy / l, sz / l
  local ux, uy, uz = sy * fz - sz * fy, sz * fx - sx * fz, sx * fy - sy * fx
  out[1], out[2], out[3], out[4] = sx, ux, -fx, 0
  out[5], out[6], out[7], out[8] = sy, uy, -fy, 0
  out[9], out[10], out[11], out[12] = sz, uz, -fz, 0
  out[13] = -(sx * ex + sy * ey + sz * ez)
  out[14] = -(ux * ex + uy * ey + uz * ez)
  out[15] = fx * ex + fy * ey + fz * ez
  out[16] = 1
  return out
end

local function mul(out, a, b)
  for c = 0, 3 do
    for r = 1, 4 do
      out[4 * c + r] = a[r] * b[4 * c + 1] + a[4 + r] * b[4 * c + 2] + a[8 + r] * b[4 * c + 3] + a[12 + r] * b[4 * c + 4]
    end
  end
  return out
end

local unpack = table.unpack or unpack
local function to_transform(t, m) return t:setMatrix("column", unpack(m, 1, 16)) end

-- ---- shaders ----------------------------------------------------------------------------------------

local SKIN = [[
uniform mat4 projection;
uniform mat4 view;
uniform mat4 model;
uniform mat4 bones[32];
varying float fog;
#ifdef VERTEX
attribute vec4 VertexJoints;
attribute vec4 VertexWeights;
vec4 position(mat4 transform_projection, vec4 vertex_position) {
    mat4 skin = bones[int(VertexJoints.x)] * VertexWeights.x + bones[int(VertexJoints.y)] * VertexWeights.y
              + bones[int(VertexJoints.z)] * VertexWeights.z + bones[int(VertexJoints.w)] * VertexWeights.w;
    vec4 eye = view * (model * (skin * vertex_position));
    fog = clamp((-eye.z - 8.0) / 30.0, 0.0, 0.7);
    return projection * eye;
}
#endif
#ifdef PIXEL
vec4 effect(vec4 color, Image tex, vec2 uv, vec2 screen) {
    vec4 c = Texel(tex, uv) * color;
    return vec4(mix(c.rgb, vec3(0.80, 0.84, 0.88), fog), c.a);
}
#endif
]]

local GROUND = [[
uniform mat4 projection;
uniform mat4 view;
varying vec3 world;
#ifdef VERTEX
vec4 position(mat4 transform_projection, vec4 vertex_position) {
    world = vertex_position.xyz;
    return projection * (view * vertex_position);
}
#endif
#ifdef PIXEL
vec4 effect(vec4 color, Image tex, vec2 uv, vec2 screen) {
    vec2 g = abs(fract(world.xz - 0.5) - 0.5) / fwidth(world.xz);
    float line = 1.0 - min(min(g.x, g.y), 1.0);
    float far = clamp(length(world.xz) / 40.0, 0.0, 1.0);
    vec3 n = normalize(cross(dFdx(world), dFdy(world)));
    float light = 0.55 + 0.45 * abs(dot(n, normalize(vec3(0.3, 1.0, -0.5))));
    vec3 ground = mix(vec3(0.55, 0.60, 0.52), vec3(0.66, 0.58, 0.46), step(0.002, world.y)); // raised: earth
    vec3 base = mix(ground * light, vec3(0.80, 0.84, 0.88), far);
    return vec4(mix(base, vec3(0.35, 0.40, 0.34), line * (1.0 - far)), 1.0);
}
#endif
]]

-- ---- the Fox and its animator -------------------------------------------------------------------------

local fox, fox_mesh, skin_shader, ground_shader, ground_mesh
local projection, view, vp = {}, {}, {}
local P, V = love.math.newTransform(), love.math.newTransform()

local definition = {
  parameters = { speed = { float = 0, smoothing = 0.25 }, jump = "trigger",
                 look_x = look.parameter(), look_y = look.parameter() },
  layers = { {
    entry = "idle",
    states = {
      idle = { motion = "Survey" },
      move = { motion = { blend = "1d", parameter = "speed", sync = true, children = { { 1.0, "Walk" }, { 3.0, "Run" } } },
               events = { { 0.1, "step" }, { 0.6, "step" } } },
      jump = { motion = "Run", loop = false, speed = 1.5, events = { { 0.2, "takeoff" }, { 0.85, "land" } } },
    },
    transitions = {
      { from = "idle", to = "move", when = { { "speed", ">", 0.2 } }, duration = 0.3 },
      { from = "move", to = "idle", when = { { "speed", "<", 0.2 } }, duration = 0.4 },
      { from = "any", to = "jump", when = { { "jump" } }, duration = 0.15, mode = "inertialize" },
      { from = "jump", to = "move", exit_time = 0.95, when = { { "speed", ">", 0.2 } }, duration = 0.25 },
      { from = "jump", to = "idle", exit_time = 0.95, duration = 0.25 },
    } } }, -- layers[2], the look layer, is added once the Fox is loaded (its clips need the skeleton)
}
local look_triangles, look_index = nil, {} -- for the panel: the look space's triangles, its clip -> sample
local plan -- the definition compiled once (love.load); every fox's animator is one of it

-- one fox: its animator, pose, matrices, tail, place in the world and bones for the shader
local function new_fox(x, z, heading)
  local f = {
    anim = plan:new(),
    pose = sinew.pose(fox.skeleton), mats = sinew.matrices(fox.skeleton), model_mats = sinew.matrices(fox.skeleton),
    tail = sinew.chain { skeleton = fox.skeleton, root = "b_Tail01_012", end_length = 0.6,
      damping = 0.15, elasticity = 0.08, stiffness = { 0.5, 0.15 }, radius = 0.02 },
    bones = love.data.newByteData(64 * #fox.skeleton),
    x = x, y = terrain.height(x, z), z = z, heading = heading, speed = 0, turn = 0, look_x = 0, look_y = 0,
    model = { 0.01, 0, 0, 0, 0, 0.01, 0, 0, 0, 0, 0.01, 0, x, 0, z, 1 }, M = love.math.newTransform(),
  }
  f.tail:add_collider { shape = "plane", point = { 0, 0, 0 }, normal = { 0, 1, 0 } } -- the ground
  return f
end

local foxes, events_seen, timing = {}, {}, { anim = 0, tail = 0, skin = 0, frames = 0, added = nil }
local camera = { yaw = 2.3, pitch = 0.35, distance = 3.2 }
local show_skeleton, script = false, nil
local gaze = { on = true, x = 0, y = 0.6, z = 1 } -- the point the main fox looks at (world), and whether it does
local feet_on = true -- whether the main fox's feet are placed on the ground (f toggles)
local mocap, mocap_why -- the motion-capture figure (mocap.lua), or nil and why not
local show_mocap = true -- (m toggles)
local morphs, morphs_why -- the morph-target cubes (morph.lua), or nil and why not
local show_morphs = true -- (b toggles)
local clock = love.timer.getTime

local function step_fox(f, dt, main)
  local t0 = clock()
  f.anim:set("speed", f.speed):set("look_x", f.look_x):set("look_y", f.look_y)
  local moving = f.anim:get("speed")
  f.heading = f.heading + f.turn * dt
  f.x, f.z = f.x + math.sin(f.heading) * moving * dt, f.z + math.cos(f.heading) * moving * dt
  -- the body follows the ground under it (a short lag over the steps); the feet find their own
  f.y = f.y + (terrain.height(f.x, f.z) - f.y) * math.min(1, 10 * dt)
  fox_ik.current = f -- (the ground callback of the feet asks about this fox)
  f.anim:update(dt):evaluate(f.pose)
  local t1 = clock()
  local c, s, m = math.cos(f.heading), math.sin(f.heading), f.model
  m[1], m[3], m[9], m[11], m[13], m[14], m[15] = 0.01 * c, -0.01 * s, 0.01 * s, 0.01 * c, f.x, f.y, f.z
  f.tail:update(dt, f.pose, m)
  local t2 = clock()
  f.pose:to_model(f.mats)
  if main and show_skeleton then f.pose:to_model(f.model_mats) end
  f.mats:skin(fox.inverse_bind, fox.root_matrix)
  ffi.copy(f.bones:getFFIPointer(), f.mats:pointer(), 64 * #f.mats)
  to_transform(f.M, m)
  timing.anim, timing.tail, timing.skin = timing.anim + (t1 - t0), timing.tail + (t2 - t1), timing.skin + (clock() - t2)
  if main then timing.frames = timing.frames + 1 end
end

function love.load(args)
  for i = 1, #args do
    if args[i] == "--script" then script = { dir = args[i + 1] or "screenshots", t = 0, shots = {}, next = 1 } end
  end
  lg.setDefaultFilter("linear", "linear")
  fox = assert(sinew.gltf.parse(assert(love.filesystem.read("fox/Fox.glb")), "", { name = "Fox.glb" }))
  local m = fox.meshes[1]
  fox_mesh = lg.newMesh(m.format, love.data.newByteData(m.vertices), m.mode, "static")
  local image = fox.images[m.material.image]
  fox_mesh:setTexture(lg.newImage(love.filesystem.newFileData(image.bytes, "fox.png")))
  skin_shader = lg.newShader(SKIN)
  ground_shader = lg.newShader(GROUND)
  ground_mesh = lg.newMesh({ { "VertexPosition", "float", 3 } }, terrain.triangles(), "triangles", "static")
  local look_clips
  definition.layers[2], look_clips = look.layer(fox.skeleton)
  for i, clip in ipairs(look_clips) do look_index[clip] = i end
  look_triangles = look.space():triangles()
  definition.skeleton = fox.skeleton
  fox_ik.add(definition)
  plan = sinew.animator.compile(definition, { clips = fox.clips, ik = fox_ik.solvers(fox, terrain.height) })
  foxes[1] = new_fox(0, 0, 0)
  foxes[1].anim:on("takeoff", function(name) events_seen[#events_seen + 1] = name end)
  foxes[1].anim:on("land", function(name) events_seen[#events_seen + 1] = name end)
  foxes[1].anim:on("step", function(name) events_seen[#events_seen + 1] = name end)
  perspective(projection, math.rad(50), W / H, 0.05, 200)
  to_transform(P, projection)
  mocap, mocap_why = mocap_figure.load(sinew)
  if not mocap then print("demo-love: no motion-capture figure: " .. tostring(mocap_why)) end
  morphs, morphs_why = morph_cubes.load(sinew, lg)
  if not morphs then print("demo-love: no morph-target cubes: " .. tostring(morphs_why)) end
end

local function add_crowd()
  local n = #foxes
  timing.anim, timing.tail, timing.skin, timing.frames = 0, 0, 0, 0 -- figures for the new count
  local t0 = clock()
  for i = 1, 100 do
    local k = n + i - 1
    local f = new_fox((k % 10 - 4.5) * 1.6 + foxes[1].x, (math.floor(k / 10) % 10 - 4.5) * 1.6 + foxes[1].z, k * 0.7)
    f.speed, f.turn = 0.5 + (k * 0.37) % 2.5, ((k % 3) - 1) * 0.4
    f.look_x, f.look_y = look.follow_turn(f.turn), ((k * 0.61) % 1.2) - 0.6
    f.anim:update((k * 0.13) % 1) -- each its own phase
    foxes[#foxes + 1] = f
  end
  timing.added = clock() - t0 -- making the 100: animators, poses, tails, bone buffers
end

-- ---- input and the script ---------------------------------------------------------------------------

-- speed, turn, jump, and where to look: down while idle, into the turns, up for the jump, up and
-- to the left once stopped (examples/demo.lua plays the same)
local function scripted(t)
  local speed = (t < 1 and 0) or (t < 2.4 and 1.2) or (t < 5 and 3) or 0
  local turn = (t > 2.6 and t < 3.4) and 2.0 or ((t > 4.0 and t < 4.6) and -2.5 or 0)
  local look_x = t > 5.2 and -0.6 or look.follow_turn(turn)
  local look_y = (t < 1 and -0.7) or ((t > 3.5 and t < 4.0) and 0.8) or (t > 5.2 and 0.5) or 0
  return speed, turn, t >= 3.6 and t < 3.6 + 1 / 60, look_x, look_y
end

-- the panel's look square (set by panel()): a drag that starts in it aims the head
local look_box = { x = 0, y = 0, size = 0, dragging = false }
local function in_look_box(x, y)
  return x >= look_box.x and y >= look_box.y and x <= look_box.x + look_box.size and y <= look_box.y + look_box.size
end

-- where the mouse points at the height `h` (world): the ray from the camera through the mouse
-- meets the plane y = h; nil when it does not (above the horizon)
local camera_eye = { 0, 0, 0 }
local function mouse_point(h)
  local mx, my = love.mouse.getPosition()
  local t = math.tan(math.rad(50) / 2)
  local nx, ny = (2 * mx / W - 1) * t * W / H, (1 - 2 * my / H) * t
  -- the view's rows: right (1, 5, 9), up (2, 6, 10), back (3, 7, 11)
  local dx = view[1] * nx + view[2] * ny - view[3]
  local dy = view[5] * nx + view[6] * ny - view[7]
  local dz = view[9] * nx + view[10] * ny - view[11]
  local ex, ey, ez = camera_eye[1], camera_eye[2], camera_eye[3]
  if math.abs(dy) < 1e-6 then return nil end
  local k = (h - ey) / dy
  if k <= 0 then return nil end
  return ex + k * dx, h, ez + k * dz
end

function love.keypressed(key)
  local f = foxes[1]
  if key == "space" then f.anim:trigger("jump")
  elseif key == "tab" then show_skeleton = not show_skeleton
  elseif key == "c" then add_crowd()
  elseif key == "g" then gaze.on = not gaze.on
  elseif key == "f" then feet_on = not feet_on
  elseif key == "m" then show_mocap = not show_mocap
  elseif key == "b" then show_morphs = not show_morphs
  elseif key == "escape" then love.event.quit() end
end

function love.mousepressed(x, y, button)
  if button == 1 and in_look_box(x, y) then look_box.dragging = true end
end

function love.mousereleased(_, _, button)
  if button == 1 then look_box.dragging = false end
end

function love.mousemoved(_, _, dx, dy)
  if love.mouse.isDown(1) and not look_box.dragging then
    camera.yaw = camera.yaw - dx * 0.01
    camera.pitch = math.max(0.05, math.min(1.4, camera.pitch + dy * 0.01))
  end
end

function love.wheelmoved(_, y) camera.distance = math.max(1, math.min(30, camera.distance * (1 - 0.1 * y))) end

function love.update(dt)
  local main = foxes[1]
  if script then
    dt = 1 / 60
    script.t = script.t + dt
    local speed, turn, jump, look_x, look_y = scripted(script.t)
    main.speed, main.turn, main.look_x, main.look_y = speed, turn, look_x, look_y
    if jump then main.anim:trigger("jump") end
    -- looking at a point ahead and to its right while it walks (IK, the second screenshot)
    gaze.active = script.t > 1.0 and script.t < 2.3
    gaze.x, gaze.y, gaze.z = main.x - 0.8, 0.9, main.z + 0.8
    if script.t >= 4.8 and not script.crowd then -- the crowd for the last screenshot
      script.crowd = true
      add_crowd()
    end
  else
    dt = math.min(dt, 0.1)
    if love.keyboard.isDown("up") then main.speed = math.min(4, main.speed + 2 * dt) end
    if love.keyboard.isDown("down") then main.speed = math.max(0, main.speed - 3 * dt) end
    main.turn = (love.keyboard.isDown("left") and 2 or 0) - (love.keyboard.isDown("right") and 2 or 0)
    local down = love.keyboard.isDown
    if look_box.dragging then -- the mouse in the look square: -1 .. 1 on both axes, y up
      local mx, my = love.mouse.getPosition()
      local s = look_box.size
      main.look_x = math.max(-1, math.min(1, 2 * (mx - look_box.x) / s - 1))
      main.look_y = math.max(-1, math.min(1, 1 - 2 * (my - look_box.y) / s))
    else -- into the turn, and w/a/s/d
      main.look_x = math.max(-1, math.min(1, look.follow_turn(main.turn) + (down("d") and 1 or 0) - (down("a") and 1 or 0)))
      main.look_y = (down("w") and 1 or 0) - (down("s") and 1 or 0)
    end
    -- the mouse over the scene (not over the panel, not orbiting): the head looks where it points
    local mx = love.mouse.getPosition()
    local x, y, z = mouse_point(main.y + 0.6)
    gaze.active = gaze.on and mx > 320 and not love.mouse.isDown(1) and x ~= nil
    if gaze.active then gaze.x, gaze.y, gaze.z = x, y, z end
  end
  main.anim:set("gaze_on", gaze.active and 1 or 0):set("feet_on", feet_on and 1 or 0)
  if gaze.active then main.anim:set_target("gaze", fox_ik.to_model(main, gaze.x, gaze.y, gaze.z)) end
  for i = 1, #foxes do step_fox(foxes[i], dt, i == 1) end
  if mocap and show_mocap then mocap_figure.step(mocap, dt) end
  if morphs and show_morphs then morph_cubes.step(morphs, dt) end
  while #events_seen > 8 do table.remove(events_seen, 1) end
  -- the camera orbits the first fox
  local cx, cz = main.x, main.z
  local d = camera.distance
  camera_eye[1], camera_eye[2], camera_eye[3] = cx + d * math.cos(camera.pitch) * math.sin(camera.yaw),
    d * math.sin(camera.pitch) + 0.3, cz + d * math.cos(camera.pitch) * math.cos(camera.yaw)
  look_at(view, camera_eye[1], camera_eye[2], camera_eye[3], cx, 0.3, cz)
  to_transform(V, view)
  mul(vp, projection, view)
end

-- ---- drawing -------------------------------------------------------------------------------------------

local function project(x, y, z)
  local m = vp
  local cx = m[1] * x + m[5] * y + m[9] * z + m[13]
  local cy = m[2] * x + m[6] * y + m[10] * z + m[14]
  local cw = m[4] * x + m[8] * y + m[12] * z + m[16]
  if cw <= 0 then return nil end
  return (cx / cw * 0.5 + 0.5) * W, (0.5 - cy / cw * 0.5) * H
end

local clip_names = nil
local weights = { Survey = 0, Walk = 0, Run = 0 }
local look_weights = { 0, 0, 0, 0, 0, 0, 0, 0, 0 }
-- rounded before printing, so that -0.001 prints 0.00 and -0.3 degrees 0, not -0.00 and -0
local function hundredths(v) return math.floor(v * 100 + 0.5) / 100 end
local function degrees(v) return math.floor(math.deg(v) + 0.5) end

-- the look layer's 2-D blend space in a square at (x, y), the samples at `inset` from its edges:
-- the triangles of the space, the one the point is in filled, each sample a disc growing with
-- its weight, the point (filled) and where it is smoothed towards (a ring)
local function look_panel(a, x, y, size, inset)
  look_box.x, look_box.y, look_box.size = x + inset, y + inset, size - 2 * inset
  local function at(px, py) return look_box.x + (px + 1) / 2 * look_box.size, look_box.y + (1 - py) / 2 * look_box.size end
  local pts = look.points
  lg.setColor(1, 1, 1, 0.08)
  lg.rectangle("fill", x, y, size, size)
  for _, t in ipairs(look_triangles) do
    local ax, ay = at(pts[t[1]][1], pts[t[1]][2])
    local bx, by = at(pts[t[2]][1], pts[t[2]][2])
    local cx, cy = at(pts[t[3]][1], pts[t[3]][2])
    if look_weights[t[1]] > 0 and look_weights[t[2]] > 0 and look_weights[t[3]] > 0 then
      lg.setColor(0.95, 0.55, 0.2, 0.35)
      lg.polygon("fill", ax, ay, bx, by, cx, cy)
    end
    lg.setColor(1, 1, 1, 0.35)
    lg.polygon("line", ax, ay, bx, by, cx, cy)
  end
  for i = 1, #pts do
    local sx, sy = at(pts[i][1], pts[i][2])
    local w = look_weights[i]
    lg.setColor(1, 1 - 0.45 * w, 1 - 0.8 * w)
    lg.circle("fill", sx, sy, 2.5 + 9 * w)
  end
  local lx, tx = a:get("look_x")
  local ly, ty = a:get("look_y")
  local px, py = at(tx, ty)
  lg.setColor(0.3, 0.8, 1)
  lg.circle("line", px, py, 5)
  px, py = at(lx, ly)
  lg.circle("fill", px, py, 4)
  lg.setColor(1, 1, 1)
  lg.print("left", x, y + size + 1)
  lg.print("right", x + size - 28, y + size + 1)
  lg.print("up", x + size / 2 - 6, y - 15)
  lg.print("down", x + size / 2 - 13, y + size + 1)
  return lx, tx, ly, ty
end

local function panel()
  local f = foxes[1]
  local a = f.anim
  lg.setColor(0, 0, 0, 0.55)
  lg.rectangle("fill", 10, 10, 300, 424, 6)
  lg.setColor(1, 1, 1)
  local speed, target = a:get("speed")
  local from, norm, to, progress = a:state()
  lg.print(("speed %.2f -> %.2f m/s   foxes %d"):format(speed, target, #foxes), 20, 18)
  lg.print(to and ("state %s -> %s  %3.0f%%"):format(from, to, 100 * progress) or ("state %s  (%.2f)"):format(from, norm),
    20, 36)
  if not clip_names then
    clip_names = {}
    for name, clip in pairs(fox.clips) do clip_names[clip] = name end
  end
  weights.Survey, weights.Walk, weights.Run = 0, 0, 0
  for i = 1, #look_weights do look_weights[i] = 0 end
  for clip, w, _, layer in a:active() do
    if layer == "look" then
      look_weights[look_index[clip]] = look_weights[look_index[clip]] + w
    else
      weights[clip_names[clip]] = weights[clip_names[clip]] + w
    end
  end
  local y = 58
  for _, name in ipairs { "Survey", "Walk", "Run" } do
    lg.setColor(1, 1, 1)
    lg.print(name, 20, y)
    lg.setColor(0.95, 0.55, 0.2)
    lg.rectangle("fill", 80, y + 3, 200 * weights[name], 10)
    y = y + 18
  end
  -- the walk-run blend space: samples at 1 and 3 m/s, the current speed
  lg.setColor(1, 1, 1)
  lg.print("blend space (speed)", 20, y)
  local x0, x1 = 80, 280
  local function sx(v) return x0 + (v - 0.5) / 3 * (x1 - x0) end
  lg.line(x0, y + 26, x1, y + 26)
  for _, v in ipairs { 1, 3 } do lg.circle("fill", sx(v), y + 26, 4) end
  lg.setColor(0.95, 0.55, 0.2)
  lg.circle("fill", sx(math.max(0.5, math.min(3.5, speed))), y + 26, 6)
  y = y + 40
  -- the look layer: its 2-D blend space, the parameters, the samples that weigh
  lg.setColor(1, 1, 1)
  lg.print("look: 2-D blend space, additive on neck + head", 20, y)
  local lx, tx, ly, ty = look_panel(a, 24, y + 34, 124, 12)
  lg.setColor(1, 1, 1)
  lg.print(("look_x %+.2f -> %+.2f\nlook_y %+.2f -> %+.2f\nyaw %+d°  pitch %+d°"):format(hundredths(lx),
    hundredths(tx), hundredths(ly), hundredths(ty), degrees(lx * look.yaw), degrees(ly * look.pitch)), 160, y + 34)
  local row = y + 88
  for i = 1, #look_weights do
    if look_weights[i] > 0.005 and row < y + 154 then
      lg.setColor(1, 1, 1)
      lg.print(look.names[i], 160, row)
      lg.setColor(0.95, 0.55, 0.2)
      lg.rectangle("fill", 232, row + 3, 60 * look_weights[i], 10)
      row = row + 16
    end
  end
  y = y + 184
  lg.setColor(1, 1, 1)
  lg.print(("IK: look at the mouse (g) %3.0f%%, feet on the ground (f) %3.0f%%"):format(100 * a:get("gaze_on"),
    100 * a:get("feet_on")), 20, y)
  y = y + 18
  lg.print("events: " .. table.concat(events_seen, " ", math.max(1, #events_seen - 5)), 20, y)
  local n = math.max(1, timing.frames)
  lg.print(("sinew per frame, all foxes (ms):\n  animator %.3f  tail %.3f  skin %.3f"):format(1e3 * timing.anim / n,
    1e3 * timing.tail / n, 1e3 * timing.skin / n), 20, y + 18)
  if timing.added then
    lg.print(("%d animators of one plan; 100 made in %.0f ms"):format(#foxes, 1e3 * timing.added), 20, y + 50)
  end
  lg.print("arrows speed/turn, w/a/s/d look, mouse IK look (g), f feet, m mocap, b morphs, space jump, tab skeleton, " ..
    "c +100 foxes, " ..
    "drag camera/look square, wheel zoom",
    10, H - 22)
end

local function skeleton_view(f)
  local skel = fox.skeleton
  local m = f.model
  local pts = {}
  for j = 1, #skel do
    local mm = { f.model_mats:get(j) }
    local x, y, z = mm[13], mm[14], mm[15]
    pts[j] = { project(m[1] * x + m[5] * y + m[9] * z + m[13], m[2] * x + m[6] * y + m[10] * z + m[14],
      m[3] * x + m[7] * y + m[11] * z + m[15]) }
  end
  lg.setColor(0.1, 0.1, 0.1)
  for j = 3, #skel do
    local p = skel:parent(j)
    if p > 2 and pts[p][1] and pts[j][1] then lg.line(pts[p][1], pts[p][2], pts[j][1], pts[j][2]) end
  end
  lg.setColor(0.9, 0.3, 0.1)
  for j = 3, #skel do if pts[j][1] then lg.circle("fill", pts[j][1], pts[j][2], 3) end end
  lg.setColor(0.2, 0.5, 1)
  for i = 1, #f.tail do
    local px, py = project(f.tail:position(i))
    if px then lg.circle("line", px, py, 5) end
  end
end

-- the scripted run's check: every screenshot saved, none blank, each different from the others
local function check_screenshots(s)
  local passed, failed = 0, 0
  local function check(ok, what)
    if ok then passed = passed + 1 else failed = failed + 1 end
    print(("demo-love: %s %s"):format(ok and "ok" or "FAILED", what))
  end
  os.execute(('mkdir -p "%s"'):format(s.dir))
  local samples = {}
  for k, data in ipairs(s.shots) do
    local path = ("%s/fox_%d.png"):format(s.dir, k)
    local f = io.open(path, "wb")
    if f then
      f:write(data:encode("png"):getString())
      f:close()
    end
    check(f ~= nil, "saved " .. path)
    local colours, seen, px = 0, {}, {}
    local w, h = data:getDimensions()
    for i = 0, 999 do
      local r, g, b = data:getPixel((i * 7919) % w, (i * 104729) % h)
      px[#px + 1] = r + g + b
      local key = math.floor(r * 31) * 1024 + math.floor(g * 31) * 32 + math.floor(b * 31)
      if not seen[key] then seen[key], colours = true, colours + 1 end
    end
    samples[k] = px
    check(colours > 8, ("screenshot %d is not blank (%d colours sampled)"):format(k, colours))
  end
  for a = 1, #samples do
    for b = a + 1, #samples do
      local diff = 0
      for i = 1, #samples[a] do diff = diff + math.abs(samples[a][i] - samples[b][i]) end
      check(diff > 1, ("screenshots %d and %d differ"):format(a, b))
    end
  end
  print(("demo-love: %d passed, %d failed"):format(passed, failed))
  return failed == 0 and 0 or 1
end

function love.draw()
  lg.clear(0.80, 0.84, 0.88, 1, true, true)
  lg.setDepthMode("lequal", true)
  lg.setShader(ground_shader)
  ground_shader:send("projection", P)
  ground_shader:send("view", V)
  lg.setColor(1, 1, 1)
  lg.draw(ground_mesh)
  -- shadow blobs on the ground, flat and without depth, before the foxes that stand on them
  lg.setShader()
  lg.setDepthMode()
  for i = 1, #foxes do -- projected by hand
    local f = foxes[i]
    local sx, sy = project(f.x, f.y + 0.005, f.z)
    if sx then
      local ex = project(f.x + 0.25, f.y + 0.005, f.z)
      lg.setColor(0, 0, 0, 0.18)
      lg.ellipse("fill", sx, sy, math.abs((ex or sx) - sx) + 2, math.abs((ex or sx) - sx) * 0.4 + 1)
    end
  end
  lg.setDepthMode("lequal", true)
  lg.setShader(skin_shader)
  skin_shader:send("projection", P)
  skin_shader:send("view", V)
  for i = 1, #foxes do
    local f = foxes[i]
    skin_shader:send("model", f.M)
    skin_shader:send("bones", "column", f.bones)
    lg.setColor(1, 1, 1)
    lg.draw(fox_mesh)
  end
  lg.setShader()
  lg.setDepthMode()
  if show_skeleton then skeleton_view(foxes[1]) end
  if mocap and show_mocap then mocap_figure.draw(mocap, project, lg) end
  if morphs and show_morphs then morph_cubes.draw(morphs, lg, P, V, project) end
  panel()
  if script then
    local times = { 0.5, 1.6, 2.9, 3.8, 4.3, 5.6 }
    local want = times[script.next]
    if want and script.t >= want - 1e-9 then
      local k = script.next
      script.next = k + 1
      if k == 3 then show_skeleton = true end
      lg.captureScreenshot(function(data) script.shots[k] = data end)
    end
    if script.t >= 6 and #script.shots == #times then
      love.event.quit(check_screenshots(script))
    end
  end
end
