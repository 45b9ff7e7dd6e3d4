-- The animator on the Khronos Fox: Survey when still, Walk and Run blended by speed in a synced
-- blend tree, a jump on a trigger (Run played once, faster) with events, and an additive layer
-- that keeps the upper body looking around. A scripted 6-second sequence drives the parameters;
-- every 0.25 s a line shows the state, the fade, the clips that play with their weights, and the
-- events of that stretch. Run from a clone:
--   make && lua5.4 examples/animator.lua
local root = dofile((arg and arg[0] or ""):gsub("[^/\\]*$", "") .. "clone.lua") -- run from a clone: see clone.lua
local sinew = require "sinew"

local fox = assert(sinew.gltf.load(root .. "assets/fox/glTF-Binary/Fox.glb", { meshes = false }))
local skel = fox.skeleton
local upper = sinew.mask(skel, {}, 0):set("b_Spine02_03", 1, true) -- chest, neck, head, arms

local definition = {
  skeleton = skel,
  parameters = { speed = { float = 0, smoothing = 0.3 }, jump = "trigger" },
  layers = {
    { name = "base", entry = "idle",
      states = {
        idle = { motion = "Survey" },
        move = { motion = { blend = "1d", parameter = "speed", sync = true,
                            children = { { 0.5, "Walk" }, { 3.0, "Run" } } },
                 events = { { 0.1, "step" }, { 0.6, "step" } } },
        jump = { motion = "Run", loop = false, speed = 1.5,
                 events = { { 0.2, "takeoff" }, { 0.85, "land" } } },
      },
      transitions = {
        { from = "idle", to = "move", when = { { "speed", ">", 0.2 } }, duration = 0.3 },
        { from = "move", to = "idle", when = { { "speed", "<", 0.2 } }, duration = 0.4 },
        { from = "any", to = "jump", when = { { "jump" } }, duration = 0.15, mode = "inertialize" },
        { from = "jump", to = "move", exit_time = 0.95, when = { { "speed", ">", 0.2 } }, duration = 0.25 },
        { from = "jump", to = "idle", exit_time = 0.95, duration = 0.25 },
      } },
    { name = "look", mode = "additive", mask = upper, weight = 0.5, states = { look = { motion = "Survey" } } },
  },
}
-- `lua5.4 examples/animator.lua --dot` prints the state machine as Graphviz DOT instead
if arg and arg[1] == "--dot" then
  io.write(sinew.animator.dot(definition, { clips = fox.clips }))
  return
end
local anim = sinew.animator(definition, { clips = fox.clips })

-- the script: (time, what to set)
local script = {
  { 0.0, "speed", 0 }, { 1.0, "speed", 1.2 }, { 2.5, "speed", 3 }, { 3.6, "jump" }, { 5.0, "speed", 0 },
}

local pose, mats = sinew.pose(skel), sinew.matrices(skel)
local dt, step, events = 1 / 60, 1, {}
anim:on("land", function() events[#events + 1] = "LAND!" end)
print(" time  speed  state (-> fade)        clips (weight)                          events")
for frame = 1, 6 * 60 do
  local t = frame * dt
  while script[step] and script[step][1] <= t do
    local s = script[step]
    if s[2] == "jump" then anim:trigger("jump") else anim:set(s[2], s[3]) end
    step = step + 1
  end
  anim:update(dt)
  anim:evaluate(pose)
  pose:to_model(mats)
  mats:skin(fox.inverse_bind, fox.root_matrix) -- what a renderer would send to its shader
  for name in anim:events() do events[#events + 1] = name end
  if frame % 15 == 0 then
    local from, _, to, progress = anim:state("base")
    local state = to and ("%s -> %s %3.0f%%"):format(from, to, 100 * progress) or from
    local playing = {} -- (debug() names the clips, and lists one playing in both sides of a fade once)
    for _, c in ipairs(anim:debug().layers[1].clips) do playing[#playing + 1] = ("%s %.2f"):format(c.clip, c.weight) end
    print(("%5.2f  %5.2f  %-21s  %-38s  %s"):format(t, (anim:get("speed")), state, table.concat(playing, ", "),
      table.concat(events, " ")))
    events = {}
  end
end
