-- An animator that uses every part of the run time, for spec/animator_safety_spec.lua and the
-- child processes it starts: blend nodes (synced, free, leader, direct, 2-D, nested), a
-- sub-state machine with an exit and a travel into it, speed parameters (one on a state of speed
-- 1e6), smoothed floats (one with the shortest smoothing time, 1 ms),
-- inertialisation, interruption, exit times, events, an override layer with a mask, a synced
-- layer, an additive layer and root motion. `drive(anim, frame)` plays frame `frame` of a
-- scripted sequence that passes through all of it.
local sinew = require "sinew"

local M = {}

local skel = sinew.skeleton { names = { "hips", "spine", "head" }, parents = { 0, 1, 2 } }
M.skeleton = skel

-- a clip of duration d moving joint `joint` along x to x1 and turning it about y by `turn`
local function line(d, x1, joint, turn)
  local h = (turn or 0) / 2
  return sinew.clip { skeleton = skel, tracks = {
    { joint = joint or "hips", path = "translation", times = { 0, d }, values = { 0, 0, 0, x1, 0, 0 } },
    { joint = joint or "hips", path = "rotation", times = { 0, d },
      values = { 0, 0, 0, 1, 0, math.sin(h), 0, math.cos(h) } } } }
end

M.clips = {
  a = line(1, 1), b = line(2, 20, nil, 0.3), walk = line(0.7, 7), run = line(1.16, 11.6, nil, -0.2),
  still = line(1, 0), arms = line(0.9, 3, "spine"), nod = line(0.5, 1, "head"), short = line(0.05, 0.5),
}

function M.definition()
  return { skeleton = skel, root_motion = "hips",
    parameters = { speed = { float = 0, smoothing = 0.2 }, rate = 1, x = 0.5, y = 0.5, jump = "trigger",
      go = false, done = false, n = { int = 0 }, tiny = { float = 0, smoothing = 0.001 } },
    machines = { loco = { entry = "walk",
      states = { walk = { motion = "walk", events = { { 0.5, "inner" } } }, run = { motion = "run" } },
      transitions = { { from = "walk", to = "run", when = { { "speed", ">", 1 } }, duration = 0.3 },
                      { from = "run", to = "exit", when = { { "done" } } } } } },
    layers = {
      { entry = "idle", states = {
          idle = { motion = "still", events = { { "enter", "idle_in" }, { "exit", "idle_out" } } },
          move = { motion = { blend = "1d", parameter = "speed", sync = true,
                     children = { { 0.5, "walk" }, { 2, "run", rate = 1.3 } } },
                   speed_parameter = "rate", events = { { 0.1, "step" }, { 0.6, "step" } } },
          strafe = { motion = { blend = "freeform_directional", parameters = { "x", "y" }, children = {
                       { { 0, 0 }, "still" }, { { 0, 1 }, "walk" }, { { 1, 0 }, { blend = "1d", parameter = "speed",
                         sync = "leader", children = { { 0, "run" }, { 3, "b", rate = 0.5 } } } },
                       { { -1, 0 }, { blend = "1d", parameter = "speed", children = { { 0, "a" }, { 2, "short" } } } } } },
                     speed = -1.5 },
          mix = { motion = { blend = "direct", parameters = { "x", "y" }, children = { { nil, "walk" }, { nil, "b" } } },
                  speed_parameter = "rate" },
          jump = { motion = "a", loop = false, speed = 1.5, events = { { 0.85, "land" } } },
          loco = { motion = { machine = "loco" } },
          fast = { motion = "short", speed = 1e6, speed_parameter = "rate", events = { { 0.5, "tick" } } },
        },
        transitions = {
          { from = "idle", to = "move", when = { { "speed", ">", 0.1 } }, duration = 0.3, interruption = "destination" },
          { from = "move", to = "idle", when = { { "speed", "<", 0.1 } }, duration = 0.3, curve = { 0, 0.8, 1 } },
          { from = "any", to = "jump", when = { { "jump" } }, duration = 0.2, mode = "inertialize" },
          { from = "jump", to = "idle", exit_time = 0.9, duration = 0.2 },
          { from = "idle", to = "strafe", when = { { "n", "==", 1 } }, duration = 0.25, fixed_duration = false },
          { from = "strafe", to = "mix", when = { { "n", "==", 2 } }, duration = 0.25, mode = "inertialize" },
          { from = "mix", to = "loco", when = { { "go" } }, duration = 0.1, interruption = "source_then_destination" },
          { from = "loco", to = "idle", exit_time = 3, duration = 0.2 },
          { from = "move", to = "move", when = { { "n", "==", 3 } }, duration = 0.2 },
          { from = "idle", to = "fast", when = { { "n", "==", 4 } }, duration = 0.1 },
          { from = "fast", to = "idle", when = { { "n", "==", 0 } }, duration = 0.1, fixed_duration = false },
        } },
      { name = "upper", mask = sinew.mask(skel, { spine = 1 }, 0), weight = 0.7,
        states = { wave = { motion = "arms", events = { { 0.3, "wave" } } } } },
      { name = "head", sync = "layer1", mask = sinew.mask(skel, { head = 1 }, 0), weight = 0.5,
        motions = { idle = "nod", jump = "nod", loco = "nod" } },
      { name = "add", mode = "additive", weight = 0.4, states = { nod = { motion = "nod" } } },
    } }
end

function M.new()
  return sinew.animator(M.definition(), { clips = M.clips })
end

--- Plays frame f of the scripted sequence (about 600 frames pass through every state).
function M.drive(anim, f)
  local phase = f % 600
  anim:set("speed", (phase < 120 or (phase >= 400 and phase < 460)) and 1.4 or 0)
  anim:set("n", (phase >= 150 and phase < 200) and 1 or (phase >= 200 and phase < 260) and 2
    or (phase >= 420 and phase < 425) and 3 or 0)
  anim:set("x", 0.3 + 0.4 * math.sin(f / 20)):set("y", 0.5 + 0.4 * math.cos(f / 17))
  anim:set("go", phase >= 260 and phase < 270)
  anim:set("done", phase >= 330 and phase < 340)
  anim:set("rate", (f % 3 == 0) and 1.5 or 1)
  if f % 97 == 0 then anim:trigger("jump") end
  if phase == 470 then anim:travel("loco/run") end
  anim:update(1 / 60 + (f % 5) * 1e-3)
end

return M
