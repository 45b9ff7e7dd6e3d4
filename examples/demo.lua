-- sinew's main example (`make demo`): the Khronos Fox, imported with sinew.gltf, driven by an
-- animator through a scripted 6 seconds, its tail swinging as dynamic bones.
--
--   script   -> speed, heading, a jump, where to look   (what a game's input would set)
--   animator -> Survey / a synced Walk-Run blend tree / a jump, with events; over it an additive
--               look layer on neck and head, a 2-D blend space of nine still poses (an aim
--               offset: love/look.lua, which the LÖVE demo uses too)
--   tail     -> a dynamic-bone chain on b_Tail01..03, in the world where the fox runs and turns
--   pose     -> model-space and skinning matrices, ready for a shader
--
-- Prints a line every quarter second (time, speed, state, clip weights, the look point, the
-- tail tip seen from the body, events), the garbage made per frame (zero), and writes pictures
-- into build/demo/: the weight maps of the walk-run and the look blend spaces (the look point's
-- path drawn over the second), and a strip of the skeleton's poses over time (PNG, drawn in
-- software). Run from a clone: `make demo`, or after `make`:
--   lua5.4 examples/demo.lua [OUTDIR]
local root = dofile((arg and arg[0] or ""):gsub("[^/\\]*$", "") .. "clone.lua") -- run from a clone: see clone.lua
local sinew = require "sinew"
local pictures = dofile((arg and arg[0] or ""):gsub("[^/\\]*$", "") .. "pictures.lua")
local look = dofile((arg and arg[0] or ""):gsub("[^/\\]*$", "") .. "love/look.lua")

local outdir = arg and arg[1] or root .. "build/demo"
local fox = assert(sinew.gltf.load(root .. "assets/fox/glTF-Binary/Fox.glb", { meshes = false }))
local skel = fox.skeleton

-- The animator: parameters in, a pose out.
local walk_run = { blend = "1d", parameter = "speed", sync = true, children = { { 1.0, "Walk" }, { 3.0, "Run" } } }
local look_layer, look_clips = look.layer(skel)
local anim = sinew.animator({
  skeleton = skel,
  parameters = { speed = { float = 0, smoothing = 0.25 }, jump = "trigger",
                 look_x = look.parameter(), look_y = look.parameter() },
  layers = { {
    entry = "idle",
    states = {
      idle = { motion = "Survey" },
      move = { motion = walk_run, events = { { 0.1, "step" }, { 0.6, "step" } } },
      jump = { motion = "Run", loop = false, speed = 1.5, events = { { 0.2, "takeoff" }, { 0.85, "land" } } },
    },
    transitions = {
      { from = "idle", to = "move", when = { { "speed", ">", 0.2 } }, duration = 0.3 },
      { from = "move", to = "idle", when = { { "speed", "<", 0.2 } }, duration = 0.4 },
      { from = "any", to = "jump", when = { { "jump" } }, duration = 0.15, mode = "inertialize" },
      { from = "jump", to = "move", exit_time = 0.95, when = { { "speed", ">", 0.2 } }, duration = 0.25 },
      { from = "jump", to = "idle", exit_time = 0.95, duration = 0.25 },
    } }, look_layer },
}, { clips = fox.clips })

-- The tail: three joints after the animated pose, in the world (the fox is about 0.6 m tall: the
-- model, in centimetres, is scaled by 0.01 into metres).
local tail = sinew.chain { skeleton = skel, root = "b_Tail01_012", end_length = 0.6,
  damping = 0.15, elasticity = 0.08, stiffness = { 0.5, 0.15 }, radius = 0.02 }
local tip = #tail
local world = { 0.01, 0, 0, 0, 0, 0.01, 0, 0, 0, 0, 0.01, 0, 0, 0, 0, 1 } -- model -> world

-- The script: what the player does (the LÖVE demo plays the same). The fox looks down while
-- idle, into its turns, up for the jump, up and to the left once stopped.
local function input(t)
  local speed = (t < 1 and 0) or (t < 2.4 and 1.2) or (t < 5 and 3) or 0
  local turn = (t > 2.6 and t < 3.4) and 2.0 or ((t > 4.0 and t < 4.6) and -2.5 or 0) -- rad/s
  local look_x = t > 5.2 and -0.6 or look.follow_turn(turn)
  local look_y = (t < 1 and -0.7) or ((t > 3.5 and t < 4.0) and 0.8) or (t > 5.2 and 0.5) or 0
  return speed, turn, t >= 3.6 and t < 3.6 + 1 / 60, look_x, look_y
end

local pose, mats = sinew.pose(skel), sinew.matrices(skel)
local x, z, heading = 0, 0, 0
local clip_names = {}
for name, clip in pairs(fox.clips) do clip_names[clip] = name end
local step_weights = { Survey = 0, Walk = 0, Run = 0 }
local look_heaviest = {} -- the look layer's clip -> the name of its sample
for i, clip in ipairs(look_clips) do look_heaviest[clip] = look.names[i] end
local look_path = {} -- the smoothed look point at every frame of the scripted 6 s, for the picture

-- One frame: everything above, with no table made.
local function frame(t, dt)
  local speed, turn, jump, look_x, look_y = input(t)
  anim:set("speed", speed):set("look_x", look_x):set("look_y", look_y)
  if jump then anim:trigger("jump") end
  anim:update(dt):evaluate(pose)
  local moving = anim:get("speed")
  heading = heading + turn * dt
  x, z = x + math.sin(heading) * moving * dt, z + math.cos(heading) * moving * dt
  local c, s = math.cos(heading), math.sin(heading) -- yaw about +y, column-major, times the scale
  world[1], world[3], world[9], world[11], world[13], world[15] = 0.01 * c, -0.01 * s, 0.01 * s, 0.01 * c, x, z
  tail:update(dt, pose, world)
  pose:to_model(mats)
  mats:skin(fox.inverse_bind, fox.root_matrix)
end

-- the skeleton from the side (z forward to the right, y up), for the picture strip; the extent
-- of every joint over the whole 6 s frames every panel alike, so that nothing leaves its panel
local strip_times, strip, shown = { 0.5, 1.6, 2.0, 2.9, 3.75, 4.0, 4.3, 5.6 }, {}, 1
local extent = { math.huge, -math.huge, 0, 0 } -- z from, z to, y from, y to (the ground at y = 0)
local function side_view(j) -- model space: (z, y) of joint j; the matrices must be model-space
  local _, _, _, _, _, _, _, _, _, _, _, _, _, my, mz = mats:get(j)
  return mz, my
end
local function keep_extent() -- joints 1 and 2 are the roots at the model's origin
  pose:to_model(mats)
  for j = 3, #skel do
    local zz, yy = side_view(j)
    extent[1], extent[2] = math.min(extent[1], zz), math.max(extent[2], zz)
    extent[3], extent[4] = math.min(extent[3], yy), math.max(extent[4], yy)
  end
end
local function keep_pose(t)
  pose:to_model(mats) -- model space (the matrices of the frame were made skinning matrices)
  local joints = {}
  for j = 1, #skel do joints[j] = { side_view(j) } end
  local from, _, to = anim:state()
  return { joints = joints, t = t, state = to and from .. " -> " .. to or from }
end

local function hundredths(v) return math.floor(v * 100 + 0.5) / 100 end -- so that -0.001 prints +0.00

local dt = 1 / 60
local events = {}
print(" time  speed  state (-> fade)          Survey  Walk   Run   look (x, y), heaviest sample   "
  .. "tail tip from the body (side, up, back)  events")
for f = 1, 6 * 60 do
  local t = f * dt
  frame(t, dt)
  for name in anim:events() do events[#events + 1] = name end
  look_path[#look_path + 1], look_path[#look_path + 2] = anim:get("look_x"), (anim:get("look_y"))
  keep_extent()
  if strip_times[shown] and t >= strip_times[shown] - 1e-9 then
    strip[shown] = keep_pose(t)
    shown = shown + 1
  end
  if f % 15 == 0 then
    local from, _, to, progress = anim:state()
    local state = to and ("%s -> %s %3.0f%%"):format(from, to, 100 * progress) or from
    step_weights.Survey, step_weights.Walk, step_weights.Run = 0, 0, 0
    local heaviest, most = nil, 0
    for clip, weight, _, layer in anim:active() do
      if layer == "look" then
        if weight > most then heaviest, most = look_heaviest[clip], weight end
      else
        local name = clip_names[clip]
        step_weights[name] = step_weights[name] + weight
      end
    end
    -- the tail tip relative to the body (the model's origin), in the body's frame, metres
    local tx, ty, tz = tail:position(tip)
    local dx, dz = tx - x, tz - z
    local c, s = math.cos(heading), math.sin(heading)
    local look_x, look_y = anim:get("look_x"), (anim:get("look_y"))
    print(("%5.2f  %5.2f  %-23s  %5.2f  %5.2f  %5.2f   (%+.2f, %+.2f) %-10s %4.2f   (%+.3f, %+.3f, %+.3f)"
      .. "                 %s"):format(t, (anim:get("speed")), state, step_weights.Survey, step_weights.Walk,
      step_weights.Run, hundredths(look_x), hundredths(look_y), heaviest, most, c * dx - s * dz, ty, -(s * dx + c * dz),
      table.concat(events, " ")))
    events = {}
  end
end

-- measured with the collector stopped, after a run that warms the loop up, as the least of up
-- to five runs: LuaJIT's compiler allocates while it records traces (now and then a new side
-- trace), and a collection gives back the interpreter's spare call records
local function more_frames(start) for f = 1, 600 do frame(start + f * dt, dt) end end
collectgarbage("collect")
collectgarbage("stop")
more_frames(6)
local bytes = math.huge
for run = 1, 5 do
  local before = collectgarbage("count")
  more_frames(6 + 10 * run)
  bytes = math.min(bytes, (collectgarbage("count") - before) * 1024)
  if bytes == 0 then break end
end
collectgarbage("restart")
print(("\n600 more frames made %.0f bytes of garbage (%.1f per frame)"):format(bytes, bytes / 600))

-- ---- pictures ----

local written = {}
written[#written + 1] = pictures.save(outdir .. "/weightmap_walk_run.png", pictures.weightmap(
  sinew.blendspace { mode = "1d", points = { walk_run.children[1][1], walk_run.children[2][1] } }, 200,
  { title = "the move state's walk-run blend", subtitle = "mode '1d', over the parameter 'speed'",
    x = "speed (m/s, smoothed)", names = { walk_run.children[1][2], walk_run.children[2][2] } }))
written[#written + 1] = pictures.save(outdir .. "/weightmap_look.png", pictures.weightmap(look.space(), 272,
  { title = "the look layer's blend space", subtitle = ("mode '%s', nine still poses of neck and head"):format(look.mode),
    x = "look_x (-1 left, +1 right)", y = "look_y (-1 down, +1 up)", names = look.names, path = look_path,
    path_label = "the look point, every frame of the 6 s", end_label = "the look point at 6 s" }))

-- the strip: one panel per kept pose in two rows, bones as lines, joints as dots, the tail's in
-- blue; every panel frames the extent of the whole 6 s at one scale, a height axis beside each row
local P = pictures
local n, panel_w, head, margin = #strip, 176, P.LINE + 4, 8
local per_row = math.ceil(n / 2)
local cm = (panel_w - 2 * margin) / (extent[2] - extent[1]) -- pixels per model unit (cm)
local panel_h = math.ceil(head + 2 * margin + (extent[4] - extent[3]) * cm)
local heights = { extent[3] * 0.01, extent[4] * 0.01 } -- metres
local left, top = P.axis_left(heights[1], heights[2], 4) + 6, P.title_height(true) + 4
local legend = { { "bones", { 60, 60, 70 } }, { "joints", { 200, 90, 30 }, "dot" },
  { "the tail (dynamic bones)", { 40, 110, 220 }, "dot" } }
local _, legend_h = P.legend_size(legend)
local img = P.canvas(left + per_row * (panel_w + 2) + 8, top + 2 * (panel_h + 4) + 4 + legend_h + 6)
P.title(img, "the Fox's skeleton through make demo's 6 s", "seen from the side, facing right; the time and state above each")
local is_tail, parents = {}, {}
for j = 1, #skel do
  parents[j] = skel:parent(j)
  is_tail[j] = skel:name(j):find("Tail", 1, true) ~= nil
end
local z_mid = (extent[1] + extent[2]) / 2 -- the middle of the extent at the middle of a panel
for i, kept in ipairs(strip) do
  local ox, oy = left + ((i - 1) % per_row) * (panel_w + 2), top + math.floor((i - 1) / per_row) * (panel_h + 4)
  local ground = oy + head + margin + extent[4] * cm -- the pixel row of y = 0
  img.box(ox - 1, oy - 1, panel_w + 2, panel_h + 2, P.FRAME)
  img.rect(ox, oy, panel_w, panel_h, { 235, 235, 228 })
  img.rect(ox, oy, panel_w, head, { 215, 215, 206 })
  img.text(ox + 4, oy + 3, ("%.2f s  %s"):format(kept.t, kept.state), P.INK)
  img.clip(ox, oy, panel_w, panel_h)
  local function at(zz, yy) return ox + panel_w / 2 + (zz - z_mid) * cm, ground - yy * cm end
  img.line(ox + 2, ground, ox + panel_w - 3, ground, { 150, 150, 140 }) -- the ground
  for j = 3, #skel do -- (joints 1 and 2 are the roots: no line from the origin to the hips)
    local p = parents[j]
    if p > 2 then
      local ax, ay = at(kept.joints[p][1], kept.joints[p][2])
      local bx, by = at(kept.joints[j][1], kept.joints[j][2])
      img.line(ax, ay, bx, by, is_tail[j] and legend[3][2] or legend[1][2])
    end
  end
  for j = 3, #skel do
    local jx, jy = at(kept.joints[j][1], kept.joints[j][2])
    img.disc(jx, jy, 2, is_tail[j] and legend[3][2] or legend[2][2])
  end
  img.clip()
  if (i - 1) % per_row == 0 then -- the height axis of the row: the ground at 0, in metres
    P.axes(img, { left - 5, ground - heights[2] * 100 * cm, 0, (heights[2] - heights[1]) * 100 * cm + 1 }, { 0, 1 },
      heights, { y = "height (m)", most = 4, no_x = true })
  end
end
P.legend(img, left, top + 2 * (panel_h + 4) + 4, legend)
written[#written + 1] = P.save(outdir .. "/poses.png", img.png())

print(("\nwrote %s (the walk-run blend space),\n      %s (the look blend space, %s, and the look point's path)"
  .. "\n  and %s (%d poses: %s s)"):format(written[1], written[2], look.mode, written[3], n,
  table.concat(strip_times, ", ")))
