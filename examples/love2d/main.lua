-- DragonBones characters in LÖVE 11: two of the shared samples imported with sinew.dragonbones,
-- played with the rig API (sinew.dragonbones.rig) and drawn with sinew.love2d: mecha_1406 (bones,
-- IK legs; idle, walk, jump, attack, an aim that follows the mouse) and you_xin_body (weighted
-- meshes and IK; its moods), with a panel of what the rigs do and what they cost.
--
--   make demo-love2d            (or, after `make LUA=luajit`: love examples/love2d)
--   keys: tab picks the character the keys drive; 1-8 play its animations; left/right walk
--         (mecha), space jump, a aim at the mouse (mecha), d debug view (bones, IK targets,
--         bounding boxes), c adds 100 characters (every rig of a sample shares its data)
--
-- With --script DIR it plays a fixed 6-second sequence (idle, walk, jump with the debug view, aim
-- sweeping down, then 100 more characters) at 60 steps per second, saves five screenshots into
-- DIR, checks that none is blank and that they all differ, measures the frame with the crowd
-- (time and garbage), prints "demo-love2d: N passed, M failed" and quits (what `make
-- demo-love2d` does without a display, under xvfb).
--
-- What a character plays is decided in one place, control() below: the rig API now; sinew's
-- animator (idle/walk/run by speed, an aim layer, dynamic hair) replaces that function only.

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
  { name = "mecha_1406", file = "mecha_1406/mecha_1406_ske.json", scale = 1.3, walk_speed = 110,
    keys = { "idle", "walk", "jump", "attack_01", "skill_01", "hit", "death", "aim" } },
  { name = "you_xin_body", file = "you_xin_body/body_ske.json", scale = 0.3, walk_speed = 0,
    keys = { "idle", "happy", "angry", "sad", "cry", "shock", "shy" } },
}

-- ---- characters ----------------------------------------------------------------------------------------

local characters, selected = {}, 1 -- characters[1] and [2] are the two the keys drive
local events_seen = {}

local function new_character(kind, x, scale)
  local rig = assert(sinew.dragonbones.rig(kind.data))
  local ch = { kind = kind, rig = rig, x = x, y = GROUND, scale = scale or kind.scale, facing = 1,
    want = "idle", playing = nil, walk = 0, aim = 0.5, after = "idle" }
  return ch
end

-- The one place that decides what a rig plays. A character asks (ch.want: an animation name of
-- its sample, ch.walk: -1, 0 or 1, ch.aim: 0 up .. 1 down); control() turns that into rig calls
-- and moves it. Swapping in sinew's animator replaces this function.
local AIM_UP, AIM_DOWN = -102.8, 74.9 -- mecha_1406's weapon angle at the aim animation's start and end (degrees)
local function control(ch, dt, main)
  local rig, kind = ch.rig, ch.kind
  local want = ch.want
  if want ~= ch.playing then
    if want ~= "aim" then rig:play(want) end
    ch.playing = want
  end
  if ch.playing == "aim" then -- the aim animation as a pose: its time picks the angle
    local anim = kind.data.armatures[1].animations.aim
    local duration = anim.duration / anim.frame_rate
    rig:seek("aim", math.max(0, math.min(duration - 1e-3, ch.aim * duration)))
    rig:update(0)
  else
    rig:update(dt)
  end
  if ch.walk ~= 0 and ch.playing == "walk" then
    ch.facing = ch.walk
    ch.x = ch.x + ch.walk * kind.walk_speed * ch.scale / kind.scale * dt
    if ch.x > W + 60 then ch.x = -60 elseif ch.x < -60 then ch.x = W + 60 end
  end
  if main and ch.playing ~= "aim" then -- (each seek of the aim starts it again: no events to show)
    for what, name in rig:events() do
      events_seen[#events_seen + 1] = what == "start" and name or what
      if what == "complete" and (ch.playing == "jump" or ch.playing == "hit" or ch.playing == "attack_01") then
        ch.want = ch.after
      end
    end
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
    local kind = KINDS[(k % 3 == 2) and 2 or 1]
    local row = math.floor(k / 25) % 4
    local ch = new_character(kind, ((k * 37) % 25) / 25 * W + 20, kind.scale * (0.45 + 0.05 * row))
    ch.y = GROUND - 130 + row * 22
    if kind.walk_speed > 0 then
      ch.walk = (k % 2 == 0) and 1 or -1
      ch.want = "walk"
    else
      ch.want = kind.keys[1 + k % #kind.keys]
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

-- the mouse as an aim for the mecha: 0 (up) .. 1 (down), facing the mouse
local function aim_at(ch, mx, my)
  local cx, cy = ch.x, ch.y - 110 * ch.scale -- about the chest
  ch.facing = mx < ch.x and -1 or 1
  local angle = math.deg(math.atan2(my - cy, math.abs(mx - cx)))
  ch.aim = math.max(0, math.min(1, (angle - AIM_UP) / (AIM_DOWN - AIM_UP)))
end

function love.keypressed(key)
  local ch = characters[selected]
  local keys = ch.kind.keys
  if key == "tab" then selected = selected % #characters + 1
  elseif key == "d" then debug_view = not debug_view
  elseif key == "c" then add_crowd()
  elseif key == "space" and ch.kind.data.armatures[1].animations.jump then
    ch.after = ch.playing == "aim" and "idle" or (ch.playing or "idle")
    ch.want = "jump"
  elseif key == "a" and ch.kind.data.armatures[1].animations.aim then ch.want = ch.want == "aim" and "idle" or "aim"
  elseif tonumber(key) and keys[tonumber(key)] then ch.want = keys[tonumber(key)]
  elseif key == "escape" then love.event.quit() end
end

-- what the two characters do at time t of the script
local function scripted(t)
  local mecha, girl = characters[1], characters[2]
  mecha.walk = (t >= 1 and t < 2.2) and 1 or 0
  if t < 1 then mecha.want = "idle"
  elseif t < 2.2 then mecha.want = "walk"
  elseif t < 2.2 + 1 / 60 then mecha.after, mecha.want = "idle", "jump"
  elseif t >= 3 and t < 4 then mecha.want, mecha.aim = "aim", (t - 3) -- sweeping from up to down
  elseif t >= 4 and mecha.want == "aim" then mecha.want = "idle" end
  girl.want = (t < 1 and "idle") or (t < 2.2 and "happy") or (t < 3 and "shock") or (t < 4 and "shy") or "idle"
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
  end
  characters[1] = new_character(KINDS[1], 250)
  characters[2] = new_character(KINDS[2], 720)
  characters[2].facing = -1
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
    ch.walk = (love.keyboard.isDown("right") and 1 or 0) - (love.keyboard.isDown("left") and 1 or 0)
    if ch.kind.walk_speed > 0 then -- the arrows walk, and stop walking
      if ch.walk ~= 0 and ch.want == "idle" then
        ch.want = "walk"
      elseif ch.walk == 0 and ch.want == "walk" then
        ch.want = "idle"
      end
    end
    if ch.playing == "aim" then aim_at(ch, love.mouse.getPosition()) end
  end
  local g0 = collectgarbage("count")
  local t0 = clock()
  control(characters[1], dt, selected == 1)
  control(characters[2], dt, selected == 2)
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
  lg.print(("playing %s%s"):format(tostring(ch.playing), ch.playing == "aim" and ("  aim %.2f"):format(ch.aim) or ""), 20, 96)
  lg.print(("slot 1 colour %.2f %.2f %.2f %.2f"):format(r, g, b, a), 20, 114)
  lg.print("events: " .. table.concat(events_seen, " ", math.max(1, #events_seen - 4)), 20, 132)
  local list = {}
  for i, name in ipairs(ch.kind.keys) do list[#list + 1] = i .. " " .. name end
  lg.print(table.concat(list, "  "), 20, 156, 0, 0.9)
  lg.print("tab character, 1-8 animations, arrows walk, space jump, a aim at the mouse, d debug view, c +100 rigs",
    10, H - 22)
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
    #characters + #crowd, 1 + #crowd - math.floor(#crowd / 3), 1e3 * timing.update / math.max(1, timing.frames),
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
