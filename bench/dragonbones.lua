-- Figures of issue 23, 2-D rigs: sinew's DragonBones rigs against the DragonBones runtime
-- (DragonBonesJS 5.6.2 under node, bench/dragonbones_js.js, run from here in the same `make bench`
-- when node and its install in build/dbref are there). The same work on both sides, per rig and
-- frame, for 100 rigs of one sample playing one animation in a loop at 1/60 s: timelines, IK,
-- world matrices, slots, and every mesh skinned (sinew: `rig:mesh(slot)` fills the vertex buffer
-- LÖVE draws from; the JS stub slot skins into a Float32Array). Cases: you_xin_body `idle` (68
-- bones, 7 weighted meshes) and mecha_1406 `walk` (17 bones, 4 IK). Also the animator path for a
-- rig (an animator playing the same animation, evaluated into a 2-D pose applied to the rig)
-- against the direct calls, and the garbage per frame. The issue's targets: at most 0.5x the
-- runtime's time on LuaJIT, at most 1x on Lua 5.4; the animator at most 1.5x the direct calls.
local sinew = require "sinew"
local bench = require "common"

local RIGS, dt = 100, 1 / 60
local db = sinew.dragonbones

local CASES = {
  { sample = "you_xin_body", file = "body_ske.json", animation = "idle" },
  { sample = "mecha_1406", file = "mecha_1406_ske.json", animation = "walk" },
}

-- the runtime's figures, or nil (and why) without node or its install
local function js_figures()
  local ok = os.execute("command -v node >/dev/null 2>&1 && test -f build/dbref/dragonBones.js")
  if ok ~= true and ok ~= 0 then return nil, "needs node and build/dbref (sh tools/dragonbones/install.sh)" end
  local p = io.popen("node bench/dragonbones_js.js 2>&1")
  local out = p:read("*a")
  p:close()
  local figures = {}
  for sample, us in out:gmatch('"sample":"([%w_]+)".-"cpu_us_per_rig_frame":([%d.]+)') do figures[sample] = tonumber(us) end
  if next(figures) == nil then return nil, "bench/dragonbones_js.js printed no figures: " .. out:sub(1, 200) end
  return figures
end

local function rigs_of(case)
  local data = assert(db.load(("assets/dragonbones/%s/%s"):format(case.sample, case.file)))
  local rigs, meshes = {}, {}
  for i = 1, RIGS do
    local rig = db.rig(data)
    rig:play(case.animation, 0)
    rig:update((i * 0.618) % 1) -- each at its own phase
    rigs[i] = rig
  end
  -- the mesh slots (the ones the animation shows meshes on)
  local model = data.armatures[1]
  for s = 1, #model.slots do
    local list = rigs[1].compiled.displays[s]
    for _, d in ipairs(list or {}) do
      if d.type == "mesh" then
        meshes[#meshes + 1] = s
        break
      end
    end
  end
  return data, rigs, meshes
end

local js, why = js_figures()
if not js then print(("%-7s dragonbones: the runtime's figures skipped (%s)"):format(bench.interpreter, why)) end

for _, case in ipairs(CASES) do
  local _, rigs, meshes = rigs_of(case)
  local function direct()
    for i = 1, RIGS do
      local rig = rigs[i]
      rig:update(dt)
      for k = 1, #meshes do rig:mesh(meshes[k]) end
    end
  end
  local ms = bench.ms_per_frame(direct, 300, 5)
  local us = ms * 1e3 / RIGS
  local label = ("dragonbones %s %s, per rig and frame"):format(case.sample, case.animation)
  bench.report(label, us, "us")
  if js and js[case.sample] then
    bench.report(("dragonbones %s: sinew / DragonBonesJS (%.1f us)"):format(case.sample, js[case.sample]),
      us / js[case.sample], "x", 2)
  end
  bench.report(("dragonbones %s: garbage per frame of %d rigs"):format(case.sample, RIGS),
    bench.least_garbage(direct, 20), "bytes", 0)
end

-- the animator path for a rig against the direct calls (mecha_1406 walk: the same work)
do
  local case = CASES[2]
  local data, rigs = rigs_of(case)
  local arigs, anims, poses = {}, {}, {}
  local plan
  for i = 1, RIGS do
    local rig = db.rig(data)
    plan = plan or sinew.animator.compile({ skeleton = rig:skeleton(),
      layers = { { entry = "walk", states = { walk = { motion = "walk" } } } } }, { clips = rig:clips() })
    arigs[i], anims[i], poses[i] = rig, plan:new(), rig:pose()
    anims[i]:update((i * 0.618) % 1)
  end
  local function direct()
    for i = 1, RIGS do rigs[i]:update(dt) end
  end
  local function animated()
    for i = 1, RIGS do
      local pose = poses[i]
      anims[i]:update(dt):evaluate(pose)
      arigs[i]:apply(pose)
    end
  end
  local a, b = bench.alternate(direct, animated, 3, 200)
  bench.report("dragonbones mecha_1406 walk by an animator, per rig and frame", b * 1e3 / RIGS, "us")
  bench.report("dragonbones: the animator path / the direct calls", b / a, "x", 2)
  bench.report("dragonbones: the animator path's garbage per frame of 100 rigs", bench.least_garbage(animated, 20),
    "bytes", 0)
end

-- a crowd posed by one sinew.group call against a call per rig (you_xin_body idle, 100 rigs, each
-- at its own time; no playhead: the times are the game's)
do
  local case = CASES[1]
  local data = assert(db.load(("assets/dragonbones/%s/%s"):format(case.sample, case.file)))
  local group, rigs, anims, slots, params, times = sinew.group(), {}, {}, {}, {}, {}
  for i = 1, RIGS do
    rigs[i] = db.rig(data)
    anims[i] = rigs[i].compiled.animations[case.animation].core
    slots[i] = rigs[i]:group(group, case.animation, true)
    times[i] = (i * 0.618) % 1
  end
  local duration = rigs[1].compiled.animations[case.animation].duration
  local function one_by_one()
    for i = 1, RIGS do
      local t = (times[i] + dt) % duration
      times[i] = t
      rigs[i].core:update(anims[i], t, true)
    end
  end
  local function grouped()
    for i = 1, RIGS do
      local t = (times[i] + dt) % duration
      times[i] = t
      params[slots[i]] = t
    end
    group:run(dt, params)
  end
  local a, b = bench.alternate(one_by_one, grouped, 3, 200)
  bench.report("dragonbones you_xin_body: 100 rigs by one group call, per rig", b * 1e3 / RIGS, "us")
  bench.report("dragonbones: one group call / a call per rig", b / a, "x", 2)
end
