-- DragonBones characters in LÖVE 11, driven by sinew's animator: two of the shared samples
-- imported with sinew.dragonbones and drawn with sinew.love2d. mecha_1406 (bones, IK legs): idle,
-- walk and run blended by speed, a jump with its events, an attack, and an aim at the mouse on the
-- upper body. you_xin_body (weighted meshes, IK): her moods fading in and out, her hair two
-- dynamic chains. A panel says what the animators and rigs do and what they cost.
--
--   make demo-love2d            (or, after `make LUA=luajit`: love examples/love2d)
--   keys: tab picks the character the keys drive; mecha: arrows walk (shift runs), space jump,
--         f attack, a aim at the mouse; her: 1-6 moods, arrows slide her; d debug view (bones,
--         IK targets, bounding boxes); c adds 100 characters (animators of one plan per sample)
--
-- With --script DIR it plays a fixed 6-second sequence (idle, a walk into a run, a jump with the
-- debug view, an aim sweeping down, then 100 more characters) at 60 steps per second, saves five
-- screenshots into DIR, checks that none is blank and that they all differ, measures the frame
-- with the crowd (time and garbage), prints "demo-love2d: N passed, M failed" and quits (what
-- `make demo-love2d` does without a display, under xvfb).

-- ---- finding sinew and the samples: this clone's build and assets ------------------------------------
local clone = love.filesystem.getSourceBaseDirectory() .. "/.."
do
  local probe = io.open(clone .. "/lua/sinew/init.lua", "rb")
  if probe then
    probe:close()
    package.path = clone .. "/lua/?.lua;" .. clone .. "/lua/?/init.lua;" .. package.path
    package.cpath = clone .. "/build/luajit/?.so;" .. package.cpath
  end
end
local sinew = require "sinew"
local love2d = require "sinew.love2d"

local lg = love.graphics
local W, H = 960, 600
local GROUND = 520
local clock = love.timer.getTime

-- the samples: where, how big on screen, which animation plays which action
local KINDS = {
  { name = "mecha_1406", file = "mecha_1406/mecha_1406_ske.json", scale = 1.3, walk_speed = 110 },
  { name = "you_xin_body", file = "you_xin_body/body_ske.json", scale = 0.3, walk_speed = 0 },
  { name = "dragon_boy", file = "dragon_boy/dragon_boy_ske.json", scale = 0.9, walk_speed = 120 },
}

-- ---- characters ----------------------------------------------------------------------------------------

local characters, selected = {}, 1 -- the three the keys drive (tab picks one)
local events_seen = {}

-- ---- what the characters play: sinew's animator --------------------------------------------------------
--
-- mecha_1406: a base layer (idle, walk and run as one 1-D blend by `speed`, run being the walk
-- played faster through the state's `rate`; a jump with events of the animator's own; an attack),
-- and an aim layer on the upper body (the `aim` animation's first pose, faded in and out by the
-- layer's weight), after which the chest and the weapon turn onto the mouse (two aim solvers of
-- sinew.ik in the aim layer's `ik` list, weighted by the layer's weight, the target the mouse).
-- you_xin_body: her moods as states that fade in and back to idle, and her hair a dynamic chain.

local MOODS = { "happy", "angry", "sad", "cry", "shock", "shy" }

local function mecha_plan(rig, kind)
  -- the upper body: what the aim layer plays on (the legs keep walking)
  local upper = rig:mask({ chest = 1, shouder_l = 1, shouder_r = 1, weapon = 1, weapon_1 = 1 })
  -- the aim: the chest carries the weapon's line (the weapon's setup place and angle in the
  -- chest's frame) 40 % of the way to the mouse, then the weapon turns the rest
  local w = kind.data.armatures[1].bones[kind.bone.weapon]
  local solvers = { chest = sinew.ik.aim { rig = rig, bone = "chest", forward = w.rotation, offset = { w.x, w.y } },
    gun = sinew.ik.aim { rig = rig, bone = "weapon" } }
  return sinew.animator.compile({
    skeleton = rig:skeleton(),
    parameters = { speed = 0, rate = 1, jump = "trigger", attack = "trigger" },
    targets = { mouse = { 0, 0, 0 } }, -- in the rig's armature space
    layers = {
      { name = "base", entry = "move",
        states = {
          move = { motion = { blend = "1d", parameter = "speed", children = { { 0, "idle" }, { 1, "walk" } } },
                   speed_parameter = "rate" },
          jump = { motion = "jump", loop = false, events = { { 0.1, "takeoff" }, { 0.9, "land" } } },
          attack = { motion = "attack_01", loop = false },
        },
        transitions = {
          { from = "any", to = "jump", when = { { "jump" } }, duration = 0.08 },
          { from = "jump", to = "move", exit_time = 0.95, duration = 0.12 },
          { from = "move", to = "attack", when = { { "attack" } }, duration = 0.1 },
          { from = "attack", to = "move", exit_time = 0.9, duration = 0.2, mode = "inertialize" },
        } },
      -- the aim layer: the `aim` animation's pose on the upper body, its weight fading in and out
      -- (anim:set_layer_weight); its IK then turns chest and weapon onto the mouse, by its weight
      { name = "aim", mask = upper, weight = 0, entry = "aim", states = { aim = { motion = "aim", speed = 0 } },
        ik = { { solver = "chest", target = "mouse", weight = 0.4 }, { solver = "gun", target = "mouse" } } },
    } }, { clips = rig:clips(), ik = solvers })
end

local function girl_plan(rig)
  local states, transitions = { idle = { motion = "idle" } }, {}
  for i, mood in ipairs(MOODS) do
    states[mood] = { motion = mood, loop = false }
    transitions[#transitions + 1] = { from = "any", to = mood, when = { { "mood", "==", i } }, duration = 0.25 }
    transitions[#transitions + 1] = { from = mood, to = "idle", exit_time = 0.95, duration = 0.3 }
  end
  return sinew.animator.compile({ skeleton = rig:skeleton(), parameters = { mood = { int = 0 } },
    layers = { { name = "base", entry = "idle", states = states, transitions = transitions } } }, { clips = rig:clips() })
end

-- dragon_boy: stand and walk by speed (run: the walk faster), a jump; his tail a dynamic chain
local function boy_plan(rig)
  return sinew.animator.compile({
    skeleton = rig:skeleton(), parameters = { speed = 0, rate = 1, jump = "trigger" },
    layers = { { name = "base", entry = "move",
      states = {
        move = { motion = { blend = "1d", parameter = "speed", children = { { 0, "stand" }, { 1, "walk" } } },
                 speed_parameter = "rate" },
        jump = { motion = "jump", loop = false, events = { { 0.2, "hop" } } },
      },
      transitions = {
        { from = "any", to = "jump", when = { { "jump" } }, duration = 0.08 },
        { from = "jump", to = "move", exit_time = 0.95, duration = 0.15 },
      } } } }, { clips = rig:clips() })
end

local PLANS = { mecha_1406 = mecha_plan, you_xin_body = girl_plan, dragon_boy = boy_plan }

local function new_character(kind, x, scale)
  local rig = assert(sinew.dragonbones.rig(kind.data))
  kind.plan = kind.plan or PLANS[kind.name](rig, kind)
  local ch = { kind = kind, rig = rig, anim = kind.plan:new(), pose = rig:pose(), x = x, y = GROUND,
    scale = scale or kind.scale, facing = 1, speed = 0, walk = 0, aim = 0, aiming = false, mx = 0, my = 0 }
  if kind.name == "you_xin_body" then
    ch.hair = rig:chain { root = "hair0501", gravity = { 0, 900 }, stiffness = 0.25, damping = 0.15 }
    ch.hair2 = rig:chain { root = "hair0601", gravity = { 0, 900 }, stiffness = 0.25, damping = 0.15 }
  elseif kind.name == "dragon_boy" then
    ch.tail = rig:chain { bones = { "tail", "tailTip" }, gravity = { 0, 600 }, stiffness = 0.2, damping = 0.1 }
  end
  return ch
end

-- One frame of a character: its animator's parameters from what it wants, the pose, the aim,
-- the hair; the animator's events into the panel for the character the keys drive.
local function control(ch, dt, main)
  local rig, anim, pose = ch.rig, ch.anim, ch.pose
  if ch.kind.walk_speed > 0 then
    local v = math.abs(ch.speed)
    anim:set("speed", math.min(v, 1)):set("rate", math.max(v, 1))
    if ch.kind.name == "mecha_1406" then
      -- the weapon points at the mouse: the aim layer's IK, weighted by ch.aim (0 .. 1, fading)
      ch.aim = math.max(0, math.min(1, ch.aim + (ch.aiming and dt or -dt) * 4))
      anim:set_layer_weight("aim", ch.aim)
      anim:set_target("mouse", (ch.mx - ch.x) / (ch.scale * ch.facing), (ch.my - ch.y) / ch.scale)
    end
    anim:update(dt):evaluate(pose)
    rig:apply(pose)
    if ch.tail then ch.tail:step(dt, pose) end
    if ch.speed ~= 0 then
      ch.facing = ch.speed > 0 and 1 or -1
      ch.x = ch.x + ch.speed * ch.kind.walk_speed * ch.scale / ch.kind.scale * dt
      if ch.x > W + 60 then ch.x = -60 elseif ch.x < -60 then ch.x = W + 60 end
    end
  else
    anim:update(dt):evaluate(pose)
    rig:apply(pose)
    ch.hair:step(dt, pose)
    ch.hair2:step(dt, pose)
  end
  if main then
    for name in anim:events() do events_seen[#events_seen + 1] = name end
  end
end

-- ---- the crowd -----------------------------------------------------------------------------------------

local timing = { update = 0, draw = 0, frames = 0, added = nil }
local function reset_timing() timing.update, timing.draw, timing.frames = 0, 0, 0 end

local crowd = {}
local function add_crowd()
  local t0 = clock()
  local n = #crowd
  for i = 1, 100 do
    local k = n + i - 1
    local kind = KINDS[1 + k % 3]
    local row = math.floor(k / 25) % 4
    local ch = new_character(kind, ((k * 37) % 25) / 25 * W + 20, kind.scale * (0.45 + 0.05 * row))
    ch.y = GROUND - 130 + row * 22
    if kind.walk_speed > 0 then
      ch.speed = ((k % 2 == 0) and 1 or -1) * (0.6 + (k % 5) * 0.3) -- walks and runs, both ways
    else
      ch.anim:set("mood", 1 + k % #MOODS)
    end
    control(ch, (k * 0.13) % 1, false) -- each its own phase
    crowd[#crowd + 1] = ch
  end
  timing.added = clock() - t0
  reset_timing()
end

-- ---- input and the script ----------------------------------------------------------------------------------

local debug_view, script = false, nil
-- garbage made by updating and drawing the rigs, per frame, with the collector stopped: real
-- garbage shows in every frame; LuaJIT's trace compiler (GC objects now and then) and the
-- first events of a new rig (its event records, made once) in some only
local garbage = { measuring = false, kb = 0, frame = 0, least = math.huge, clean = 0, frames = 0 }

function love.keypressed(key)
  local ch = characters[selected]
  if key == "tab" then selected = selected % #characters + 1
  elseif key == "d" then debug_view = not debug_view
  elseif key == "c" then add_crowd()
  elseif key == "space" and ch.kind.walk_speed > 0 then ch.anim:trigger("jump")
  elseif key == "f" and ch.kind.name == "mecha_1406" then ch.anim:trigger("attack")
  elseif key == "a" and ch.kind.name == "mecha_1406" then ch.aiming = not ch.aiming
  elseif tonumber(key) and ch.kind.name == "you_xin_body" and MOODS[tonumber(key)] then
    ch.anim:set("mood", tonumber(key))
  elseif key == "escape" then love.event.quit() end
end

-- what the two characters do at time t of the script
local function scripted(t)
  local mecha, girl, boy = characters[1], characters[2], characters[3]
  boy.speed = (t >= 0.5 and t < 2.3) and -math.min(1.2, (t - 0.3) * 1.0) or 0
  if t >= 2.6 and not script.hopped then
    script.hopped = true
    boy.anim:trigger("jump")
  end
  -- idle, then walking faster and faster into a run, a jump, then aiming at a point sweeping down
  mecha.speed = (t >= 1 and t < 2.2) and math.min(2, (t - 0.8) * 1.5) or 0
  if t >= 2.2 and not script.jumped then
    script.jumped = true
    mecha.anim:trigger("jump")
  end
  mecha.aiming = t >= 3 and t < 4
  mecha.mx, mecha.my = mecha.x + 300, mecha.y - 300 + (t - 3) * 400
  local mood = (t >= 1 and t < 2.2 and 1) or (t >= 2.2 and t < 3 and 5) or (t >= 3 and t < 4 and 6) or 0
  girl.anim:set("mood", mood)
  girl.x = 800 + (t >= 1 and t < 2 and math.sin((t - 1) * 9) * 40 or 0) -- a sway that swings her hair
  debug_view = t >= 2.2 and t < 3
end

function love.load(args)
  for i = 1, #args do
    if args[i] == "--script" then script = { dir = args[i + 1] or "screenshots", t = 0, shots = {}, next = 1 } end
  end
  lg.setDefaultFilter("linear", "linear")
  for _, kind in ipairs(KINDS) do
    local path = clone .. "/assets/dragonbones/" .. kind.file
    kind.data = assert(sinew.dragonbones.load(path))
    kind.art = assert(love2d.prepare(kind.data))
    local arm = kind.data.armatures[1]
    kind.bone = arm.bone
  end
  characters[1] = new_character(KINDS[1], 200)
  characters[2] = new_character(KINDS[2], 800)
  characters[2].facing = -1
  characters[3] = new_character(KINDS[3], 680)
end

function love.update(dt)
  if script then
    dt = 1 / 60
    script.t = script.t + dt
    scripted(script.t)
    if script.t >= 4 and not script.crowd then
      script.crowd = true
      add_crowd()
    end
    if script.t >= 4.7 and not garbage.measuring and garbage.frames == 0 then
      garbage.measuring = true
      collectgarbage("stop")
    elseif script.t >= 5.7 and garbage.measuring then
      garbage.measuring = false
      collectgarbage("restart")
    end
  else
    dt = math.min(dt, 0.1)
    local ch = characters[selected]
    local dir = (love.keyboard.isDown("right") and 1 or 0) - (love.keyboard.isDown("left") and 1 or 0)
    if ch.kind.walk_speed > 0 then -- the arrows walk; shift runs
      local top = love.keyboard.isDown("lshift", "rshift") and 2 or 1
      local target = dir * top
      ch.speed = ch.speed + math.max(-3 * dt, math.min(3 * dt, target - ch.speed))
      if math.abs(ch.speed) < 1e-3 and dir == 0 then ch.speed = 0 end
      ch.mx, ch.my = love.mouse.getPosition()
    else -- the arrows slide her: her hair swings
      ch.x = ch.x + dir * 200 * dt
    end
  end
  local g0 = collectgarbage("count")
  local t0 = clock()
  for i = 1, #characters do control(characters[i], dt, selected == i) end
  for i = 1, #crowd do control(crowd[i], dt, false) end
  timing.update = timing.update + (clock() - t0)
  if garbage.measuring then garbage.frame = collectgarbage("count") - g0 end
  while #events_seen > 8 do table.remove(events_seen, 1) end
end

-- ---- drawing -------------------------------------------------------------------------------------------------

local function panel()
  local ch = characters[selected]
  lg.setColor(0, 0, 0, 0.55)
  lg.rectangle("fill", 10, 10, 350, 196, 6)
  lg.setColor(1, 1, 1)
  local n = math.max(1, timing.frames)
  local rigs = #characters + #crowd
  lg.print(("rigs %d   fps %d"):format(rigs, love.timer.getFPS()), 20, 18)
  lg.print(("per frame, all rigs (ms): update %.2f  draw %.2f"):format(1e3 * timing.update / n, 1e3 * timing.draw / n), 20, 36)
  if timing.added then lg.print(("100 rigs made in %.0f ms"):format(1e3 * timing.added), 20, 54) end
  local arm = ch.rig:armature()
  local _, _, r, g, b, a = ch.rig:slot(1)
  lg.print(("%s (%s): %d bones, %d slots, %d IK"):format(ch.kind.name, arm.name, #arm.bones, #arm.slots, #arm.ik), 20, 78)
  local state = ch.anim:state()
  lg.print(("animator: %s%s"):format(state, ch.kind.name == "mecha_1406" and
    ("  speed %.2f  aim %.2f"):format(ch.speed, ch.aim) or ""), 20, 96)
  lg.print(("slot 1 colour %.2f %.2f %.2f %.2f"):format(r, g, b, a), 20, 114)
  lg.print("events: " .. table.concat(events_seen, " ", math.max(1, #events_seen - 4)), 20, 132)
  if ch.kind.name == "you_xin_body" then
    local list = {}
    for i, name in ipairs(MOODS) do list[#list + 1] = i .. " " .. name end
    lg.print(table.concat(list, "  ") .. "   (her hair: two dynamic chains)", 20, 156, 0, 0.9)
  else
    lg.print(ch.kind.name == "mecha_1406" and "arrows walk, shift runs, space jump, f attack, a aim at the mouse"
      or "arrows walk, shift runs, space jump (his tail: a dynamic chain)", 20, 156, 0, 0.9)
  end
  lg.print("tab character, d debug view, c +100 rigs, esc quit", 10, H - 22)
end

-- the scripted run's check: every screenshot saved, none blank, each different from the others
local function check_screenshots(s)
  local passed, failed = 0, 0
  local function check(ok, what)
    if ok then passed = passed + 1 else failed = failed + 1 end
    print(("demo-love2d: %s %s"):format(ok and "ok" or "FAILED", what))
  end
  os.execute(('mkdir -p "%s"'):format(s.dir))
  local samples = {}
  for k, data in ipairs(s.shots) do
    local path = ("%s/love2d_%d.png"):format(s.dir, k)
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
  for _, kind in ipairs(KINDS) do
    check(#kind.art.missing == 0, ("%s: every display has its texture (%s)"):format(kind.name,
      kind.art.missing[1] or "none missing"))
  end
  check(garbage.frames > 0 and garbage.least <= 0, ("no garbage per frame updating and drawing %d rigs (%d of %d frames"
    .. " made none; %.0f bytes a frame on average: traces compiled, new rigs' first events)"):format(#characters + #crowd,
    garbage.clean, garbage.frames, 1024 * garbage.kb / math.max(1, garbage.frames)))
  print(("demo-love2d: %d rigs (%d of them mecha_1406): update %.2f ms, draw %.2f ms a frame (%d frames)"):format(
    #characters + #crowd, 1 + math.ceil(#crowd / 3), 1e3 * timing.update / math.max(1, timing.frames),
    1e3 * timing.draw / math.max(1, timing.frames), timing.frames))
  print(("demo-love2d: %d passed, %d failed"):format(passed, failed))
  return failed == 0 and 0 or 1
end

local function draw_character(ch)
  love2d.draw(ch.rig, ch.x, ch.y, 0, ch.scale * ch.facing, ch.scale)
end

function love.draw()
  lg.clear(0.78, 0.83, 0.88, 1)
  lg.setColor(0.55, 0.6, 0.52)
  lg.rectangle("fill", 0, GROUND - 140, W, H - GROUND + 140)
  lg.setColor(0.45, 0.5, 0.42)
  lg.rectangle("fill", 0, GROUND, W, H - GROUND)
  lg.setColor(1, 1, 1)
  local g0 = collectgarbage("count")
  local t0 = clock()
  for i = 1, #crowd do draw_character(crowd[i]) end
  for i = 1, #characters do draw_character(characters[i]) end
  timing.draw = timing.draw + (clock() - t0)
  timing.frames = timing.frames + 1
  if garbage.measuring then
    local kb = garbage.frame + (collectgarbage("count") - g0)
    garbage.kb, garbage.least = garbage.kb + kb, math.min(garbage.least, kb)
    garbage.clean = garbage.clean + (kb <= 0 and 1 or 0)
    garbage.frames = garbage.frames + 1
  end
  if debug_view then
    for i = 1, #characters do
      local ch = characters[i]
      love2d.debug(ch.rig, ch.x, ch.y, 0, ch.scale * ch.facing, ch.scale)
    end
  end
  panel()
  if script then
    local times = { 0.5, 1.6, 2.5, 3.6, 4.6 }
    local want = times[script.next]
    if want and script.t >= want - 1e-9 then
      local k = script.next
      script.next = k + 1
      lg.captureScreenshot(function(data) script.shots[k] = data end)
    end
    if script.t >= 5.8 and #script.shots == #times then
      love.event.quit(check_screenshots(script))
    end
  end
end
