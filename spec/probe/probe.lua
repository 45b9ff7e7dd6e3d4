-- The hostile-Lua probe, run in a child process by spec/probe_spec.lua (so that a crash is a
-- failed spec, not a dead test runner). It finds every function, method and metamethod reachable
-- from `require "sinew"` at run time and calls each with hostile arguments, then plays the
-- lifetime and re-entrancy scenarios of issue 12. Any Lua error is a fine answer; a crash, a
-- sanitizer report or a hang is not.
--
--   <lua> spec/probe/probe.lua entries            lists what it found, one per line, and any
--                                                 valid call (template) that fails
--   <lua> spec/probe/probe.lua calls SEED ROUNDS   hostile calls; prints "probe: N calls, ..."
--   <lua> spec/probe/probe.lua scenarios           the lifetime scenarios; prints "scenarios: ..."
--
-- package.path and package.cpath come from the environment (LUA_PATH, LUA_CPATH), as the spec
-- sets them.
local sinew = require "sinew"

local unpack = table.unpack or unpack
local newproxy = rawget(_G, "newproxy")

-- ---- objects -----------------------------------------------------------------------------

local I = { 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 }
local function skeleton(prefix)
  prefix = prefix or "j"
  return sinew.skeleton { names = { prefix .. "0", prefix .. "1", prefix .. "2", prefix .. "3" },
    parents = { 0, 1, 2, 2 }, rest = { I, { 0, 1, 0, 0, 0, 0, 1, 1, 1, 1 }, { 0, 1, 0, 0, 0, 0, 1, 1, 1, 1 },
      { 1, 0, 0, 0, 0, 0, 1, 1, 1, 1 } }, morphs = { prefix .. "blink", prefix .. "smile" }, morph_defaults = { 0, 0.5 } }
end

-- a valid clip definition of skeleton s (tracks of every path and interpolation)
local function clip_def(s)
  return { skeleton = s, tracks = {
    { joint = 2, path = "rotation", times = { 0, 0.5, 1 }, values = { 0, 0, 0, 1, 0, 0, 0.7071, 0.7071, 0, 0, 1, 0 } },
    { joint = "j1", path = "translation", interpolation = "step", times = { 0, 1 }, values = { 0, 0, 0, 1, 1, 1 } },
    { joint = 3, path = "scale", interpolation = "cubicspline", times = { 0, 1 },
      values = { 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 2, 2, 0, 0, 0 } },
    { morph = 1, interpolation = "cubicspline", times = { 0, 1 }, values = { 0, 0, 1, 1, 1, 0 } },
    { morph = s:morphs()[2], path = "weights", times = { 0, 0.5 }, values = { 0, -1 } } } }
end

local function points_def()
  return { points = { { 0, 0, 0 }, { 0.1, 0, 0 }, { 0.2, 0, 0 } }, parents = { 0, 1, 2 }, damping = { 0.1, 0.3 },
    radius = 0.01, max_colliders = 2 }
end

local space_defs = {
  { mode = "1d", points = { 0, 1, 2 } },
  { mode = "simple_directional", points = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { -1, 0 }, { 0, -1 } } },
  { mode = "freeform_cartesian", points = { { 0, 0 }, { 1, 0 }, { 0, 1 } } },
  { mode = "freeform_directional", points = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { -1, 0 } } },
  { mode = "triangulated", points = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 } } },
  { mode = "grid", points = { { 0, 0 }, { 1, 0 }, { 0, 1 } }, grid = { 3, 3 } },
  { mode = "idw", points = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 1 } } },
  { mode = "direct", points = { 0, 1, 2 }, normalize = true },
}

-- an animator definition of every kind of part: a 1-D tree, a machine with a trigger, events, an
-- additive layer with a mask, a smoothed float, root motion, an inertialised transition, IK (a
-- smoothed target, an aim weighted by a parameter, a two-bone solve reaching for a joint; the
-- solvers O.head and O.leg, made before)
local O = {}
local function animator_def(skel, clip, mask)
  return { skeleton = skel, root_motion = "j0",
    parameters = { speed = 0, go = "trigger", on = false, soft = { float = 0, smoothing = 0.2 } },
    targets = { gaze = { 0, 1, 2, smoothing = 0.1 } },
    ik = { { solver = "head", target = "gaze", weight = "soft" }, { solver = "leg", target = { joint = "j2" } },
      { solver = "look", target = "gaze", up = "gaze" }, { solver = "arm", target = "gaze", weight = 0.5 } },
    layers = {
      { name = "base", entry = "idle",
        states = { idle = { motion = "c", events = { { 0.25, "tick" } } },
                   move = { motion = { blend = "1d", parameter = "speed", children = { { 0, "c" }, { 1, "d" } } },
                            speed = 1.5, events = { { 0.5, "step" } } } },
        transitions = { { from = "idle", to = "move", when = { { "go" } }, duration = 0.2 },
                        { from = "move", to = "idle", when = { { "speed", "<", 0.1 } }, duration = 0.3,
                          mode = "inertialize" } } },
      { name = "look", mode = "additive", mask = "upper", entry = "a",
        states = { a = { motion = { blend = "1d", parameter = "soft", children = { { -1, "c" }, { 1, "d" } } } } } },
    } }, { clips = { c = clip, d = sinew.clip(clip_def(skel)) }, masks = { upper = mask },
    ik = { head = O.head, leg = O.leg, look = O.look, arm = O.arm } }
end

local function make_objects()
  O.skel, O.other = skeleton("j"), skeleton("k")
  O.pose, O.pose2, O.other_pose = sinew.pose(O.skel), sinew.pose(O.skel), sinew.pose(O.other)
  O.mask, O.other_mask = sinew.mask(O.skel, { j1 = 0.5 }, 1), sinew.mask(O.other)
  O.mats, O.other_mats = sinew.matrices(O.skel), sinew.matrices(O.other)
  O.clip = sinew.clip(clip_def(O.skel))
  O.cursor = O.clip:cursor()
  O.group = sinew.group()
  O.group:sample(O.cursor, O.pose)
  O.group:blend(O.pose2, { O.pose, O.pose2 }, { O.mask, false })
  O.chain = sinew.chain(points_def())
  O.chain:add_collider { shape = "sphere", center = { 0, -1, 0 }, radius = 0.5 }
  O.tail = sinew.chain { skeleton = O.skel, root = 2, end_length = 0.5 }
  O.tail:add_collider { shape = "plane", point = { 0, -2, 0 }, normal = { 0, 1, 0 } }
  -- inverse kinematics: a two-bone solver of j0, j1, j2 and an aim solver of j2
  O.leg = sinew.ik.two_bone { skeleton = O.skel, joints = { "j0", "j1", 3 }, soften = 0.9 }
  O.head = sinew.ik.aim { skeleton = O.skel, joint = "j2", offset = { 0, 0.1, 0 }, limit = 1 }
  O.look = sinew.ik.spread { skeleton = O.skel, joints = { "j0", "j1", "j2" }, weights = { 0.3, 0.5, 1 },
    offset = { 0, 0.1, 0 }, limit = { 0.5, 1, 2 } }
  O.arm = sinew.ik.chain { skeleton = O.skel, joints = { "j0", "j1", "j2" }, method = "ccd", iterations = 8,
    limits = { j0 = { hinge = { 0, 0, 1 }, min = -1, max = 1 }, j1 = { cone = 1, twist = { -0.5, 0.5 } } } }
  -- foot placement: a hips joint above a leg of three (a skeleton of its own: the probe's has no
  -- chain of three below another joint), on a ground a little below the floor
  O.fskel = sinew.skeleton { names = { "hips", "thigh", "shin", "foot" }, parents = { 0, 1, 2, 3 },
    rest = { { 0, 2, 0, 0, 0, 0, 1, 1, 1, 1 }, I, { 0, -1, 0, 0.2, 0, 0, 0.98, 1, 1, 1 }, { 0, -1, 0, 0, 0, 0, 1, 1, 1, 1 } } }
  O.fpose = sinew.pose(O.fskel)
  O.feet = sinew.ik.feet { skeleton = O.fskel, pelvis = "hips", legs = { { "thigh", "shin", "foot" } },
    ground = function() return -0.2, 0, 1, 0.1 end }
  O.spaces = {}
  for i, d in ipairs(space_defs) do O.spaces[i] = sinew.blendspace(d) end
  O.pointer = O.mats:pointer()
  O.anim = sinew.animator(animator_def(O.skel, O.clip, O.mask))
  O.plan = sinew.animator.compile(animator_def(O.skel, O.clip, O.mask))
  O.anim2 = O.plan:new()
  -- float buffers of the glTF importer: two key times, two rotation keys
  O.times = sinew._gltf.floats { component = 5126, count = 2, view = { buffer = "\0\0\0\0\0\0\128\63", length = 8 } }
  O.quats = sinew._gltf.floats { component = 5126, rows = 4, count = 2,
    view = { buffer = ("\0"):rep(12) .. ("\0\0\128\63"):rep(2) .. ("\0"):rep(12), length = 32 } }
  -- issue 26: a morph set of two vertices (position and normal, one target) as the glTF importer
  -- makes it, and a mesh entry of AnimatedMorphCube (its methods are Lua)
  O.delta = sinew._gltf.floats { component = 5126, rows = 3, count = 2,
    view = { buffer = ("\0\0\128\63"):rep(6), length = 24 } }
  O.morph = sinew._morph(("\0\0\0\63"):rep(12), 6, { position = 0, normal = 3 },
    { { position = O.delta, normal = O.delta } })
  O.cube = assert(sinew.gltf.load("spec/gltf-corpus/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb"))
  O.mesh = O.cube.meshes[1]
  -- a DragonBones rig, and the C core's 2-D objects behind it
  O.db = assert(sinew.dragonbones.load("spec/dragonbones/extra/ik_ske.json"))
  O.rig = sinew.dragonbones.rig(O.db)
  O.rig:play(O.db.armatures[1].animations[1].name)
  O.rig:update(0.1)
  O.rig2d = O.rig.core
  O.rig2d_data = O.rig.compiled.core
  O.anim2d = O.rig.compiled.animations[1].core
  O.pose2d, O.mask2d = O.rig:pose(), O.rig:mask({}, 0.5)
  -- a dynamic chain of a 2-D rig (a tail of four bones), with a pose of its armature
  O.tailrig = sinew.dragonbones.rig(assert(sinew.dragonbones.load("spec/support/chain2d_ske.json")))
  O.tailpose = O.tailrig:pose()
  O.tailrig:apply(O.tailpose)
  O.chain2d = O.tailrig:chain { root = "tail1", gravity = { 0, 980 },
    colliders = { { shape = "circle", center = { 180, 140 }, radius = 20 } } }
  -- issue 25, 2-D: inverse kinematics on the tail rig's bones
  O.leg2d = sinew.ik.two_bone { rig = O.tailrig, bones = { "tail1", "tail2" }, bend = -1 }
  O.aim2d = sinew.ik.aim { rig = O.tailrig, bone = "tail3", offset = { 0, 2 }, limit = 1 }
  O.arm2d = sinew.ik.chain { rig = O.tailrig, bones = { "tail1", "tail2", "tail3", "tail4" }, method = "ccd",
    iterations = 8, limits = { tail2 = { min = -1, max = 1 } } }
end
make_objects()

-- ---- what is reachable -------------------------------------------------------------------

-- entries: { name, fn, kind } with kind "function", "method" or "metamethod"
local function find_entries()
  local entries, seen = {}, {}
  local function add(name, fn, kind)
    if not seen[fn] then
      seen[fn] = true
      entries[#entries + 1] = { name = name, fn = fn, kind = kind }
    end
  end
  local function walk(t, prefix, visited)
    local keys = {}
    for k in pairs(t) do if type(k) == "string" then keys[#keys + 1] = k end end
    table.sort(keys)
    for _, k in ipairs(keys) do
      local v = t[k]
      if v == sinew.try then
        -- try calls its first argument: the pool's `print` would fill the probe's output
        add(prefix .. k, function(fn, ...) if fn == print then fn = type end return v(fn, ...) end, "function")
      elseif type(v) == "function" then add(prefix .. k, v, "function")
      elseif type(v) == "table" and not visited[v] then
        visited[v] = true
        walk(v, prefix .. k .. ".", visited)
      end
    end
  end
  walk(sinew, "sinew.", { [sinew] = true })
  -- the animator's constructor is its module's __call
  add("sinew.animator", getmetatable(sinew.animator).__call and function(...) return sinew.animator(...) end,
    "function")
  -- every object the constructors made, and the metatables behind them
  local objects = { O.skel, O.pose, O.mask, O.mats, O.clip, O.cursor, O.group, O.chain, O.tail, O.anim, O.plan,
    O.rig, O.rig2d, O.rig2d_data, O.anim2d, O.pose2d, O.mask2d, O.chain2d, O.leg, O.head, O.arm, O.look,
    O.feet, O.times, O.morph, O.mesh }
  for _, s in ipairs(O.spaces) do objects[#objects + 1] = s end
  for _, s in ipairs { O.leg2d, O.aim2d, O.arm2d } do objects[#objects + 1] = s end
  for _, obj in ipairs(objects) do
    local mt = getmetatable(obj)
    local tname = tostring(rawget(mt, "__name") or type(obj))
    if type(obj) == "userdata" and tname == "sinew.BlendSpace" then tname = tname .. "(" .. obj.mode .. ")" end
    if obj == O.anim then tname = "sinew.Animator" end
    if obj == O.plan then tname = "sinew.AnimatorPlan" end
    if obj == O.rig then tname = "sinew.dragonbones.Rig" end
    if obj == O.chain2d then tname = "sinew.dragonbones.Chain" end
    if obj == O.mesh then tname = "sinew.gltf.Mesh" end
    local keys = {}
    for k in pairs(mt) do if type(k) == "string" then keys[#keys + 1] = k end end
    table.sort(keys)
    for _, k in ipairs(keys) do
      local v = rawget(mt, k)
      if type(v) == "function" then add(tname .. "." .. k, v, "metamethod")
      elseif type(v) == "table" and k == "__index" then
        local mkeys = {}
        for mk in pairs(v) do if type(mk) == "string" then mkeys[#mkeys + 1] = mk end end
        table.sort(mkeys)
        for _, mk in ipairs(mkeys) do
          if type(v[mk]) == "function" then add(tname .. ":" .. mk, v[mk], "method") end
        end
      end
    end
  end
  return entries
end

-- ---- hostile values ------------------------------------------------------------------------

local function raising() return setmetatable({}, { __index = function() error("boom from __index") end,
  __len = function() error("boom from __len") end, __newindex = function() error("boom from __newindex") end }) end

local function collecting(t)
  return setmetatable({}, { __index = function(_, k) collectgarbage() return t[k] end })
end

-- a table whose fields read `first` the first time and `later` every time after
local function flipping(first, later)
  local reads = {}
  return setmetatable({}, { __index = function(_, k)
    reads[k] = (reads[k] or 0) + 1
    if reads[k] == 1 then return first[k] end
    return later[k]
  end })
end

local function big_list(n, v)
  local t = {}
  for i = 1, n do t[i] = v or i end
  return t
end

-- The pool: plain Lua values of every type and awkward numbers, sinew objects (of the same and
-- of another skeleton), and tables whose metamethods raise, collect garbage or change between
-- reads. Built anew for each round, so that what a call did to one does not carry over.
local function pool()
  local p, n = {}, 0
  local function add(...)
    for i = 1, select("#", ...) do
      n = n + 1
      p[n] = (select(i, ...))
    end
  end
  add(nil, false, true, 0, 1, -1, 2, 3, 4, 0.5, -0.5, 1 / 0, -1 / 0, 0 / 0, 2 ^ 31, -2 ^ 31 - 1, 2 ^ 53, 2 ^ 63,
    -2 ^ 63, 1e308, -1e308, 5e-324, 1e-310, 1e-320, 65535, 65536, 4096, 1e9)
  add("", "x", "j0", "j1", "k1", "a", "hips", "translation", "rotation", "scale", "linear", "step", "cubicspline",
    "sweep", "coupled", "world", "parent", "render", "sphere", "capsule", "plane", "nlerp", "karcher", "XYZ",
    "damping", "gravity", "rate", "end_length", ("x"):rep(300), "j0\0x", "1")
  add({}, { 1, 2, 3 }, { 0, 0, 0, 1 }, { 1, nil, 3 }, { n = 1 }, { {} }, { 0, 0, 0 }, big_list(16, 0.5),
    big_list(40, 1), { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }, { O.pose, O.pose2 }, { 0.5, 0.5 },
    { O.pose, O.other_pose }, { O.mask, false }, { true }, { "x" }, { O.mats })
  add(raising(), collecting({ 0, 0, 0 }), flipping({ 1, 2, 3 }, big_list(5000, 0)))
  add(function() end, print, coroutine.create(function() end), io.stdout)
  add(O.skel, O.other, O.pose, O.pose2, O.other_pose, O.mask, O.other_mask, O.mats, O.other_mats, O.clip,
    O.cursor, O.group, O.chain, O.tail, O.pointer, O.rig, O.rig2d, O.rig2d_data, O.anim2d, O.db, O.pose2d, O.mask2d)
  add(O.morph, O.mesh, O.delta, { 0.5, 0.25 })
  add(O.tailrig, O.tailpose, O.chain2d, "tail1", "circle", "line", { 0, 980 }, { 180, 140 })
  add(O.leg, O.head, "j2", { "j0", "j1", "j2" }, { "j0", "j0", "j1" }, { 0, 1, 0 })
  add(O.arm, "fabrik", "ccd", { j1 = { hinge = { 0, 0, 1 }, min = -1, max = 1 } }, { j1 = { cone = 1, twist = { -1, 1 } } },
    { hinge = { 1, 0, 0 } }, { -0.5, 0.5 })
  for _, s in ipairs(O.spaces) do add(s) end
  if newproxy then add(newproxy(true)) end
  return p, n
end

-- ---- valid calls to start from -------------------------------------------------------------

local q = { 0, 0, 0.3826834, 0.9238795 }
local function qa(...) local t = { q[1], q[2], q[3], q[4] } for _, v in ipairs({ ... }) do t[#t + 1] = v end return t end

-- glTF: a small .glb and .gltf (a node animated by one translation track), accessor descriptions
local function accessor_def()
  return { component = 5126, rows = 3, count = 2, offset = 4, view = { buffer = ("\0"):rep(40), offset = 4, length = 36 } }
end
local function sparse_def()
  local d = accessor_def()
  d.sparse = { count = 1, indices = { buffer = "\1\0", length = 2 }, indices_component = 5123,
    values = { buffer = ("\0\0\128\63"):rep(3), length = 12 } }
  return d
end
-- the arguments of _gltf.animation (the fast path of glTF animation import): a document of one
-- buffer (two key times, two rotation keys) and an animation of one rotation channel on joint 1
local function animation_args(skel)
  local bytes = "\0\0\0\0\0\0\128\63" .. (("\0"):rep(12) .. "\0\0\128\63"):rep(2)
  local json = { accessors = { { componentType = 5126, type = "SCALAR", count = 2, bufferView = 0 },
    { componentType = 5126, type = "VEC4", count = 2, bufferView = 0, byteOffset = 8 } },
    bufferViews = { { buffer = 0, byteLength = 40 } }, buffers = { { byteLength = 40 } } }
  local doc = { json = json, buffers = { [0] = { bytes, 0, 40 } }, floats = {}, decoded = {}, key_times = {},
    track_keys = {}, tracks_made = 0 }
  return { doc, { { input = 0, output = 1, interpolation = "LINEAR" } },
    { { sampler = 0, target = { node = 0, path = "rotation" } } }, { [0] = 1 }, 1, 0.1, 1e6, 16, skel, {} }
end
local function u32le(v) return string.char(v % 256, math.floor(v / 256) % 256, math.floor(v / 65536) % 256, 0) end
local GLTF = '{"asset":{"version":"2.0"},"nodes":[{"name":"n"}],"buffers":[{"byteLength":32}],' ..
  '"bufferViews":[{"buffer":0,"byteLength":32}],"accessors":[{"bufferView":0,"componentType":5126,"count":2,' ..
  '"type":"SCALAR"},{"bufferView":0,"byteOffset":8,"componentType":5126,"count":2,"type":"VEC3"}],' ..
  '"animations":[{"channels":[{"sampler":0,"target":{"node":0,"path":"translation"}}],' ..
  '"samplers":[{"input":0,"output":1}]}]}'
local BIN = "\0\0\0\0\0\0\128\63" .. ("\0"):rep(12) .. ("\0\0\128\63"):rep(3)
local GLB = (function()
  local text = GLTF .. (" "):rep((4 - #GLTF % 4) % 4)
  local body = u32le(#text) .. "JSON" .. text .. u32le(#BIN) .. "BIN\0" .. BIN
  return "glTF" .. u32le(2) .. u32le(12 + #body) .. body
end)()
local CUBE = (function()
  local f = assert(io.open("spec/gltf-corpus/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", "rb"))
  local bytes = f:read("*a")
  f:close()
  return bytes
end)()
GLTF = GLTF:gsub('"byteLength":32}%]', '"byteLength":32,"uri":"data:application/octet-stream;base64,' ..
  'AAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AACAPwAAgD8="}]', 1)

-- For each entry (by name, or by name pattern), argument lists that succeed. The probe mutates
-- them position by position; entries without one still get the random hostile calls.
local function templates(name)
  local t = {
    ["sinew.quat.identity"] = { {} },
    ["sinew.quat.mul"] = { qa(0, 1, 0, 0) }, ["sinew.quat.conj"] = { qa() }, ["sinew.quat.inverse"] = { qa() },
    ["sinew.quat.normalize"] = { qa() }, ["sinew.quat.dot"] = { qa(0, 0, 0, 1) }, ["sinew.quat.length"] = { qa() },
    ["sinew.quat.rotate"] = { qa(1, 2, 3) }, ["sinew.quat.from_axis_angle"] = { { 0, 1, 0, 1.5 } },
    ["sinew.quat.to_axis_angle"] = { qa() }, ["sinew.quat.from_euler"] = { { 0.1, 0.2, 0.3, "ZYX" } },
    ["sinew.quat.from_to"] = { { 1, 0, 0, 0, 1, 0 } }, ["sinew.quat.angle"] = { qa(0, 0, 0, 1) },
    ["sinew.quat.pow"] = { qa(0.5) }, ["sinew.quat.log"] = { qa() }, ["sinew.quat.exp"] = { { 0.1, 0.2, 0.3, 0.4 } },
    ["sinew.quat.slerp"] = { qa(0, 0, 0, 1, 0.3) }, ["sinew.quat.nlerp"] = { qa(0, 0, 0, 1, 0.3) },
    ["sinew.quat.blend"] = { { { 0, 0, 0, 1, q[1], q[2], q[3], q[4] }, { 0.5, 0.5 }, "karcher" } },
    ["sinew.skeleton"] = { { { names = { "a", "b" }, parents = { 0, 1 }, rest = { I, I } } },
      { { names = { "a" }, parents = { 0 }, morphs = { "a", "b" }, morph_defaults = { 1, -2 } } } },
    ["sinew.pose"] = { { O.skel } }, ["sinew.matrices"] = { { O.skel } },
    ["sinew.mask"] = { { O.skel, { j1 = 0.5, [3] = 1 }, 0.25 }, { O.skel, { j1 = 0.5 }, 0.25, { jsmile = 1 }, 0.5 } },
    ["sinew.clip"] = { { clip_def(O.skel) } },
    ["sinew.blend"] = { { O.pose, { O.pose, O.pose2 }, { 0.3, 0.7 }, { O.mask, false }, 0.2 } },
    ["sinew.delta"] = { { O.pose, O.pose2, O.pose } },
    ["sinew.chain"] = { { points_def() }, { { skeleton = O.skel, root = "j1", solver = "sweep" } } },
    ["sinew.blendspace"] = { { space_defs[3] }, { space_defs[6] } },
    ["sinew.try"] = { { sinew.blendspace, space_defs[3] }, { sinew.blendspace, { mode = "1d", points = { 1, 1 } } },
      { O.pose.add, O.pose, O.pose2, 0.5 }, { O.clip.sample, O.clip, 0.25, O.pose } },
    ["sinew.Skeleton:find"] = { { O.skel, "j1" } }, ["sinew.Skeleton:parent"] = { { O.skel, 2 } },
    ["sinew.Skeleton:name"] = { { O.skel, "j2" } }, ["sinew.Skeleton:rest"] = { { O.skel, 3 } },
    ["sinew.Skeleton.__len"] = { { O.skel } }, ["sinew.Skeleton.__tostring"] = { { O.skel } },
    ["sinew.Pose:get"] = { { O.pose, 2 } }, ["sinew.Pose:set"] = { { O.pose, 2, 1, 2, 3, 0, 0, 0, 1, 1, 1, 1 } },
    ["sinew.Pose:get_translation"] = { { O.pose, 1 } }, ["sinew.Pose:get_rotation"] = { { O.pose, "j3" } },
    ["sinew.Pose:get_scale"] = { { O.pose, 4 } }, ["sinew.Pose:set_translation"] = { { O.pose, 1, 1, 2, 3 } },
    ["sinew.Pose:set_rotation"] = { { O.pose, 2, 0, 1, 0, 1 } }, ["sinew.Pose:set_scale"] = { { O.pose, 3, 2, 2, 2 } },
    ["sinew.Pose:copy"] = { { O.pose, O.pose2 } }, ["sinew.Pose:reset"] = { { O.pose } },
    ["sinew.Pose:add"] = { { O.pose, O.pose2, 0.5, O.mask } }, ["sinew.Pose:to_model"] = { { O.pose, O.mats } },
    ["sinew.Pose:skeleton"] = { { O.pose } }, ["sinew.Pose.__len"] = { { O.pose } },
    ["sinew.Pose.__tostring"] = { { O.pose } },
    ["sinew.Mask:get"] = { { O.mask, 2 } }, ["sinew.Mask:set"] = { { O.mask, 2, 0.5, true } },
    ["sinew.Mask:get_morph"] = { { O.mask, 2 } }, ["sinew.Mask:set_morph"] = { { O.mask, "jblink", 0.5 } },
    ["sinew.Pose:morph"] = { { O.pose, "jsmile" } }, ["sinew.Pose:set_morph"] = { { O.pose, 1, -0.5 } },
    ["sinew.Pose:morphs"] = { { O.pose, {} } }, ["sinew.Pose:set_morphs"] = { { O.pose, { 0.25, 2 } } },
    ["sinew.Skeleton:morph_count"] = { { O.skel } }, ["sinew.Skeleton:morphs"] = { { O.skel } },
    ["sinew.Skeleton:find_morph"] = { { O.skel, "jsmile" } }, ["sinew.Skeleton:morph_default"] = { { O.skel, 2 } },
    ["sinew.Mask:skeleton"] = { { O.mask } }, ["sinew.Mask.__len"] = { { O.mask } },
    ["sinew.Mask.__tostring"] = { { O.mask } },
    ["sinew.Matrices:get"] = { { O.mats, 4 } }, ["sinew.Matrices:bytes"] = { { O.mats } },
    ["sinew.Matrices:pointer"] = { { O.mats } }, ["sinew.Matrices:skeleton"] = { { O.mats } },
    ["sinew.Matrices.__len"] = { { O.mats } }, ["sinew.Matrices.__tostring"] = { { O.mats } },
    ["sinew.Clip:sample"] = { { O.clip, 0.3, O.pose, false } }, ["sinew.Clip:duration"] = { { O.clip } },
    ["sinew.Clip:local_time"] = { { O.clip, 7.5, true } }, ["sinew.Clip:skeleton"] = { { O.clip } },
    ["sinew.Clip:sample_joint"] = { { O.clip, 0.3, 2, false }, { O.clip, -1.7, "j3" } },
    ["sinew.Clip.__tostring"] = { { O.clip } }, ["sinew.Clip:cursor"] = { { O.clip } },
    ["sinew.ClipCursor:sample"] = { { O.cursor, 0.3, O.pose, false } }, ["sinew.ClipCursor:clip"] = { { O.cursor } },
    ["sinew.ClipCursor.__tostring"] = { { O.cursor } },
    ["sinew.Group:run"] = { { O.group, 1 / 60, { 0.3, 0.5, 0.5 } } }, ["sinew.Group:params"] = { { O.group } },
    ["sinew.Group:sample"] = { { sinew.group(), O.cursor, O.pose, false } },
    ["sinew.Group:blend"] = { { sinew.group(), O.pose, { O.pose, O.pose2 }, O.mask, 0.2, "karcher" } },
    ["sinew.Group:to_model"] = { { sinew.group(), O.pose, O.mats } }, ["sinew.Group:step"] = { { sinew.group(), O.chain } },
    ["sinew.Group:update"] = { { sinew.group(), O.tail, O.pose } }, ["sinew.Group.__len"] = { { O.group } },
    ["sinew.Chain:step"] = { { O.chain, 1 / 60 } }, ["sinew.Chain:update"] = { { O.tail, 1 / 60, O.pose } },
    ["sinew.Chain:position"] = { { O.chain, 2, "step" } }, ["sinew.Chain:move_root"] = { { O.chain, 1, 2, 3, 0, 0, 0, 1 } },
    ["sinew.Chain:reset"] = { { O.chain } }, ["sinew.Chain:teleport"] = { { O.chain, 0, 0, 0 } },
    ["sinew.Chain:get_param"] = { { O.chain, "damping", 2 } },
    ["sinew.Chain:set_param"] = { { O.chain, "damping", 0.2, 2 }, { O.chain, "stiffness", { 0.1, 0.5 } },
      { O.chain, "gravity", { 0, -1, 0 } } },
    ["sinew.Chain:add_collider"] = { { O.chain, { shape = "capsule", a = { 0, 0, 0 }, b = { 0, 1, 0 }, radius = 0.1 } } },
    ["sinew.Chain:move_collider"] = { { O.chain, 1, 0, -2, 0, 0.5 }, { O.chain, 1, { center = { 0, -3, 0 } } } },
    ["sinew.Chain:joint"] = { { O.tail, 1 } }, ["sinew.Chain:length"] = { { O.chain } },
    ["sinew.Chain:colliders"] = { { O.chain } }, ["sinew.Chain:skeleton"] = { { O.tail } },
    ["sinew.Chain.__len"] = { { O.chain } }, ["sinew.Chain.__tostring"] = { { O.chain } },
    ["sinew.Matrices:set"] = { { O.mats, 2, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1 } },
    ["sinew.Matrices:skin"] = { { O.mats, O.mats }, { O.mats, O.mats, { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1 } } },
    ["sinew._gltf.glb"] = { { GLB } }, ["sinew._gltf.base64"] = { { "AAECAwQ=" } },
    ["sinew._gltf.accessor"] = { { accessor_def() }, { sparse_def() } },
    ["sinew._gltf.floats"] = { { accessor_def() }, { sparse_def() } },
    ["sinew._gltf.key_times"] = { { O.times } },
    ["sinew._gltf.rotation_keys"] = { { O.times, O.quats, 0.1, 100 } },
    ["sinew.Floats.__index"] = { { O.quats, 5 } }, ["sinew.Floats.__len"] = { { O.times } },
    ["sinew.Floats.__tostring"] = { { O.times } },
    ["sinew._gltf.indices"] = { { { component = 5123, count = 3, view = { buffer = "\0\0\1\0\2\0", length = 6 } }, 3 } },
    ["sinew._gltf.vertices"] = { { { { accessor = accessor_def(), slots = 4, fill = 1 },
      { accessor = { component = 5121, rows = 4, count = 2, view = { buffer = "\0\1\0\0\1\0\0\0", length = 8 } }, joints = true },
      { accessor = { component = 5126, rows = 4, count = 2, view = { buffer = ("\0\0\128\63"):rep(8), length = 32 } },
        weights = true } },
      { 3, 2 } } },
    ["sinew.gltf.parse"] = { { GLB, { name = "probe.glb" } }, { GLTF, { meshes = false } },
      { CUBE, { name = "cube.glb" } } },
    ["sinew._gltf.split"] = { { O.quats, 2 }, { O.times, 1 } },
    ["sinew._gltf.animation"] = { animation_args(O.skel) },
    ["sinew._morph"] = { { ("\0\0\0\63"):rep(12), 6, { position = 0, normal = 3 }, { { position = O.delta }, {} } } },
    ["sinew._vertex"] = { { ("\0\0\0\63"):rep(12), 6, 2 } },
    ["sinew.Morph:apply"] = { { O.morph, { 0.5 } }, { O.morph, { 9, 0.25 }, 2 } },
    ["sinew.Morph:position"] = { { O.morph, 2, { 0.25 } }, { O.morph, 1 } },
    ["sinew.Morph:normal"] = { { O.morph, 2, { 9, 0.25 }, 2 } },
    ["sinew.Morph:pointer"] = { { O.morph } }, ["sinew.Morph:bytes"] = { { O.morph } },
    ["sinew.Morph:vertices"] = { { O.morph } }, ["sinew.Morph:deltas"] = { { O.morph, 1, "normal" } },
    ["sinew.Morph.__len"] = { { O.morph } },
    ["sinew.Morph.__tostring"] = { { O.morph } },
    ["sinew.gltf.Mesh:position"] = { { O.mesh, 3, { 0.5, 0.25 } }, { O.mesh, 24, { 9, 1, 0 }, 2 } },
    ["sinew.animator"] = { { animator_def(O.skel, O.clip, O.mask) } },
    ["sinew.animator.dot"] = { { animator_def(O.skel, O.clip, O.mask) } },
    ["sinew.animator.compile"] = { { animator_def(O.skel, O.clip, O.mask) } },
    ["sinew.AnimatorPlan:new"] = { { O.plan } }, ["sinew.AnimatorPlan:skeleton"] = { { O.plan } },
    ["sinew.AnimatorPlan.__tostring"] = { { O.plan } },
    ["sinew.Animator:set"] = { { O.anim, "speed", 0.8 }, { O.anim, "on", true } },
    ["sinew.Animator:get"] = { { O.anim, "speed" } }, ["sinew.Animator:trigger"] = { { O.anim, "go" } },
    ["sinew.Animator:reset_trigger"] = { { O.anim, "go" } },
    ["sinew.Animator:set_target"] = { { O.anim, "gaze", 1, 2, 3 } }, ["sinew.Animator:target"] = { { O.anim, "gaze" } },
    ["sinew.ik.kind"] = { { O.head }, { O.arm }, { O.look } },
    ["sinew.ik.spread"] = { { { skeleton = O.skel, joints = { "j1", 3 }, weights = { 0.5, 1 }, forward = { 1, 0, 0 },
      up = { 0, 0, 1 }, offset = { 0, 0.2, 0 }, limit = 1, twist = 0.1 } } },
    ["sinew.IKSpread:solve"] = { { O.look, O.pose, 1, 2, 3 }, { O.look, O.pose2, 1, 2, 3, 0.5, 0, 1, 0 } },
    ["sinew.IKSpread:joints"] = { { O.look } }, ["sinew.IKSpread:skeleton"] = { { O.look } },
    ["sinew.IKSpread.__tostring"] = { { O.look } }, ["sinew.IKAim:effector"] = { { O.head } },
    ["sinew.dragonbones.Rig:chain"] = { { O.tailrig, { bones = { "tail1", "tail2", "tail3" }, end_length = 10,
      stiffness = { 0.2, 0.1 }, gravity = { 0, 980 }, force = { 10, 0 }, solver = "sweep",
      colliders = { { shape = "capsule", a = { 0, 0 }, b = { 0, 10 }, radius = 1 },
        { shape = "line", point = { 0, 300 }, normal = { 0, -1 } } } } } },
    ["sinew.dragonbones.Chain:step"] = { { O.chain2d, 1 / 60, O.tailpose }, { O.chain2d, 1 / 60 } },
    ["sinew.dragonbones.Chain:position"] = { { O.chain2d, 2 } },
    ["sinew.dragonbones.Chain:bones"] = { { O.chain2d } }, ["sinew.dragonbones.Chain:reset"] = { { O.chain2d } },
    ["sinew.dragonbones.Chain:set_param"] = { { O.chain2d, "gravity", { 0, 500 } }, { O.chain2d, "damping", 0.3, 2 } },
    ["sinew.dragonbones.Chain:get_param"] = { { O.chain2d, "force" }, { O.chain2d, "radius", 3 } },
    ["sinew.dragonbones.Chain:add_collider"] = { { O.chain2d, { shape = "circle", center = { 0, 0 }, radius = 5 } } },
    ["sinew.dragonbones.Chain:move_collider"] = { { O.chain2d, 1, 170, 150, 10 } },
    ["sinew.dragonbones.Chain:__len"] = { { O.chain2d } },
    ["sinew.dragonbones.Chain:count"] = { { O.chain2d } }, ["sinew.dragonbones.Chain:__tostring"] = { { O.chain2d } },
    ["sinew.Animator:set_layer_weight"] = { { O.anim, "look", 0.5 } },
    ["sinew.Animator:layer_weight"] = { { O.anim, 2 } }, ["sinew.Animator:update"] = { { O.anim, 0.4 }, { O.anim2, 0.4 } },
    ["sinew.Animator:evaluate"] = { { O.anim, O.pose }, { O.anim2, O.pose2 } }, ["sinew.Animator:root_motion"] = { { O.anim } },
    ["sinew.Animator:state"] = { { O.anim, "base" } }, ["sinew.Animator:active"] = { { O.anim } },
    ["sinew.Animator:events"] = { { O.anim } }, ["sinew.Animator:travel"] = { { O.anim, "move", "base" } },
    ["sinew.Animator:snapshot"] = { { O.anim } },
    ["sinew.Animator:restore"] = { { O.anim, O.anim:snapshot() }, { O.anim2, O.anim:snapshot() } },
    ["sinew.Animator:debug"] = { { O.anim } }, ["sinew.Animator:on"] = { { O.anim, "step", function() end } },
    ["sinew.Animator:skeleton"] = { { O.anim } }, ["sinew.Animator:__tostring"] = { { O.anim } },
    ["sinew.ik.two_bone"] = { { { skeleton = O.skel, joints = { "j0", "j1", "j2" }, mid_axis = { 1, 0, 0 },
      soften = 0.5, twist = 0.1 } } },
    ["sinew.ik.aim"] = { { { skeleton = O.skel, joint = 2, forward = { 1, 0, 0 }, up = { 0, 0, 1 },
      offset = { 0, 0.2, 0 }, limit = 0.5, twist = 0 } }, { { skeleton = O.skel, joint = 1, effector = "j2" } } },
    ["sinew.ik.has"] = { { 33, 32 } },
    ["sinew.ik.feet"] = { { { skeleton = O.fskel, pelvis = 1, up = { 0, 1, 0 }, max_drop = 1, normal_limit = 0.3,
      smoothing = 0.05, legs = { { 2, "shin", "foot", mid_axis = { 1, 0, 0 } } }, ground = function() return 0 end } } },
    ["sinew.IKFeet:solve"] = { { O.feet, O.fpose, 0.1 }, { O.feet, O.fpose, 0.02, 0.5 } },
    ["sinew.IKFeet:pelvis"] = { { O.feet } }, ["sinew.IKFeet:leg"] = { { O.feet, 1 } }, ["sinew.IKFeet:up"] = { { O.feet } },
    ["sinew.IKFeet:offset"] = { { O.feet } }, ["sinew.IKFeet:reset"] = { { O.feet } },
    ["sinew.IKFeet:clone"] = { { O.feet } },
    ["sinew.IKFeet:max_drop"] = { { O.feet } }, ["sinew.IKFeet:set_max_drop"] = { { O.feet, 2 } },
    ["sinew.IKFeet:normal_limit"] = { { O.feet } }, ["sinew.IKFeet:set_normal_limit"] = { { O.feet, 0.5 } },
    ["sinew.IKFeet:smoothing"] = { { O.feet } }, ["sinew.IKFeet:set_smoothing"] = { { O.feet, 0.2 } },
    ["sinew.IKFeet:ground"] = { { O.feet } }, ["sinew.IKFeet:set_ground"] = { { O.feet, function() return 0.1 end } },
    ["sinew.IKFeet:skeleton"] = { { O.feet } }, ["sinew.IKFeet.__tostring"] = { { O.feet } },
    ["sinew.IKFeet.__len"] = { { O.feet } },
    ["sinew.IKTwoBone:solve"] = { { O.leg, O.pose, 0.5, 1, 0.5, 0, 1, 3, 0.7 }, { O.leg, O.pose2, 0, 3, 0, 1, 0, 0 } },
    ["sinew.IKTwoBone:soften"] = { { O.leg } }, ["sinew.IKTwoBone:set_soften"] = { { O.leg, 0.8 } },
    ["sinew.IKTwoBone:twist"] = { { O.leg } }, ["sinew.IKTwoBone:set_twist"] = { { O.leg, 0.2 } },
    ["sinew.IKTwoBone:joints"] = { { O.leg } }, ["sinew.IKTwoBone:skeleton"] = { { O.leg } },
    ["sinew.IKTwoBone.__tostring"] = { { O.leg } },
    ["sinew.IKAim:solve"] = { { O.head, O.pose, 1, 2, 3 }, { O.head, O.pose2, 1, 2, 3, 0.5, 0, 1, 0 } },
    ["sinew.IKAim:limit"] = { { O.head } }, ["sinew.IKAim:set_limit"] = { { O.head, 2 } },
    ["sinew.IKAim:twist"] = { { O.head } }, ["sinew.IKAim:set_twist"] = { { O.head, -0.3 } },
    ["sinew.IKAim:joint"] = { { O.head } }, ["sinew.IKAim:skeleton"] = { { O.head } },
    ["sinew.IKAim.__tostring"] = { { O.head } },
    ["sinew.ik.chain"] = { { { skeleton = O.skel, joints = { "j0", "j1", 3 }, method = "fabrik", iterations = 4,
      tolerance = 1e-3, limits = { [2] = { cone = 0.5 }, j0 = { twist = { -1, 1 } } } } } },
    ["sinew.IKChain:solve"] = { { O.arm, O.pose, 0.5, 1, 0.5 }, { O.arm, O.pose2, 0, 3, 0, 0.5 } },
    ["sinew.IKChain:iterations"] = { { O.arm } }, ["sinew.IKChain:set_iterations"] = { { O.arm, 12 } },
    ["sinew.IKChain:tolerance"] = { { O.arm } }, ["sinew.IKChain:set_tolerance"] = { { O.arm, 0.01 } },
    ["sinew.IKChain:method"] = { { O.arm } }, ["sinew.IKChain:joints"] = { { O.arm } },
    ["sinew.IKChain:skeleton"] = { { O.arm } }, ["sinew.IKChain.__tostring"] = { { O.arm } },
    ["sinew.IKChain.__len"] = { { O.arm } },
    ["sinew.gltf.load"] = { { "spec/gltf-corpus/BoxAnimated/glTF-Binary/BoxAnimated.glb" } },
    ["sinew._gltf.read_file"] = { { "spec/gltf-corpus/BoxAnimated/glTF-Binary/BoxAnimated.glb", "spec/gltf-corpus", 100 },
      { "spec/gltf-corpus", "spec", 10 }, { "/dev/zero", "/", 2 ^ 53 } },
  }
  -- issue 25, 2-D: the solvers of 2-D rigs, and sinew.ik's constructors given a rig
  t["sinew.IK2DTwoBone:solve"] = { { O.leg2d, O.tailpose, 150, 80 }, { O.leg2d, nil, 160, 60, 0.5 } }
  t["sinew.IK2DAim:solve"] = { { O.aim2d, O.tailpose, 100, 300, 0.7 }, { O.aim2d, nil, 0, 0 } }
  t["sinew.IK2DChain:solve"] = { { O.arm2d, O.tailpose, 170, 120 }, { O.arm2d, nil, 150, 90, 0.25 } }
  for _, k in ipairs { "IK2DTwoBone:bones", "IK2DTwoBone:bend", "IK2DTwoBone:soften", "IK2DTwoBone:rig",
    "IK2DTwoBone.__tostring", "IK2DAim:bone", "IK2DAim:limit", "IK2DAim:rig", "IK2DAim.__tostring", "IK2DChain:bones",
    "IK2DChain:method", "IK2DChain:iterations", "IK2DChain:tolerance", "IK2DChain:rig", "IK2DChain.__tostring",
    "IK2DChain.__len" } do
    local solver = k:find("TwoBone") and O.leg2d or k:find("Aim") and O.aim2d or O.arm2d
    t["sinew." .. k] = { { solver } }
  end
  t["sinew.IK2DTwoBone:set_bend"] = { { O.leg2d, 1 } }
  t["sinew.IK2DTwoBone:set_soften"] = { { O.leg2d, 0.9 } }
  t["sinew.IK2DAim:set_limit"] = { { O.aim2d, 2 } }
  t["sinew.IK2DChain:set_iterations"] = { { O.arm2d, 12 } }
  t["sinew.IK2DChain:set_tolerance"] = { { O.arm2d, 0.01 } }
  local ik2 = { two_bone = { rig = O.tailrig, bones = { "tail2", "tail3" }, soften = 0.9 },
    aim = { rig = O.tailrig, bone = 2, forward = 0.5 },
    chain = { rig = O.tailrig, bones = { "tail1", "tail2" }, method = "fabrik", limits = { tail1 = { min = 0, max = 1 } } } }
  for kind, def in pairs(ik2) do
    local list = t["sinew.ik." .. kind]
    if list then list[#list + 1] = { def } end
  end
  if t[name] then return t[name] end
  local mode = name:match("^sinew%.BlendSpace%((.-)%)")
  if mode then
    local s
    for _, sp in ipairs(O.spaces) do if sp.mode == mode then s = sp end end
    local args = { s }
    for _ = 1, s:dims() do args[#args + 1] = 0.25 end
    local method = name:match("[:.]([%w_]+)$")
    if method == "weights" then args[#args + 1] = {} return { args } end
    if method == "point" then return { { s, 1 } } end
    return { { s } }
  end
  return nil
end

-- ---- calling -------------------------------------------------------------------------------

local calls, errors, nonfinite, nonfinite_example = 0, 0, 0, nil
local function finite(x) return type(x) == "number" and x == x and x ~= math.huge and x ~= -math.huge end

-- calls fn with args[1 .. n]; `numeric`: a function of plain numbers (sinew.quat), whose results
-- for finite arguments must be finite too
-- an error of sinew's own Lua code ("attempt to index a nil value", "bad argument #1 to
-- 'ipairs'" from inside a module) that reached the caller instead of a message naming the fault;
-- an error raised by the probe's own hostile values (their metamethods) is theirs
local internal, internal_example = 0, nil
local function is_internal(msg)
  if type(msg) ~= "string" or msg:find("boom from", 1, true) then return false end
  return msg:find("attempt to ", 1, true) ~= nil or msg:find("^[^:]*sinew/[%w_/]+%.lua:%d+: bad argument") ~= nil
end
local function failed(name, msg)
  errors = errors + 1
  if is_internal(msg) then
    internal = internal + 1
    if not internal_example then internal_example = name .. ": " .. tostring(msg) end
    if os.getenv("PROBE_SHOW_INTERNAL") then io.stderr:write("INTERNAL ", name, ": ", tostring(msg), "\n") end
  end
end

local function call(fn, args, n, numeric, name)
  calls = calls + 1
  if not numeric then
    local ok, msg = pcall(fn, unpack(args, 1, n))
    if not ok then failed(name, msg) end
    return
  end
  local res = { pcall(fn, unpack(args, 1, n)) }
  if not res[1] then
    failed(name, res[2])
    return
  end
  for i = 1, n do if not finite(args[i]) then return end end
  for i = 2, #res do
    if type(res[i]) == "number" and not finite(res[i]) then
      nonfinite = nonfinite + 1
      if not nonfinite_example then
        local shown = {}
        for k = 1, n do shown[k] = ("%.17g"):format(args[k]) end
        nonfinite_example = table.concat(shown, ", ")
      end
      return
    end
  end
end

local function copy(t, n)
  local c = {}
  for i = 1, n do c[i] = t[i] end
  return c
end

-- definition tables: the same definition with one field replaced, or wrapped in a table whose
-- fields come through metamethods (that raise, collect garbage, or change between reads)
local function def_variants(def, values, nvalues, rng)
  local out, keys = {}, {}
  for k in pairs(def) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    for _ = 1, 6 do
      local d = {}
      for kk, vv in pairs(def) do d[kk] = vv end
      d[k] = values[rng(nvalues)]
      out[#out + 1] = d
    end
    local later = {}
    for kk, vv in pairs(def) do later[kk] = vv end
    later[k] = values[rng(nvalues)]
    out[#out + 1] = flipping(def, later)
  end
  out[#out + 1] = collecting(def)
  out[#out + 1] = setmetatable({}, { __index = def })
  return out
end

local function run_calls(seed, rounds)
  local state = seed
  local function rng(n) -- Park-Miller, the same on every Lua
    state = (state * 16807) % 2147483647
    return 1 + state % n
  end
  local entries = find_entries()
  local per = {}
  for _ = 1, rounds do
    local values, nvalues = pool()
    for _, e in ipairs(entries) do
      local before = calls
      local numeric = e.name:match("^sinew%.quat%.") and e.name ~= "sinew.quat.blend"
      -- random arguments, 0 to 12 of them
      for _ = 1, 40 do
        local n = rng(13) - 1
        local args = {}
        for i = 1, n do args[i] = values[rng(nvalues)] end
        call(e.fn, args, n, numeric, e.name)
      end
      -- valid calls with one argument (self included) replaced by each value of the pool, and
      -- with two replaced at random; definition tables spoiled field by field
      for _, tpl in ipairs(templates(e.name) or {}) do
        local n = #tpl
        call(e.fn, tpl, n, numeric, e.name)
        for i = 1, n + 1 do
          for v = 1, nvalues do
            local args = copy(tpl, n)
            args[i] = values[v]
            call(e.fn, args, math.max(n, i), numeric, e.name)
          end
        end
        for _ = 1, 60 do
          local args = copy(tpl, n)
          args[rng(n + 1)] = values[rng(nvalues)]
          args[rng(n + 1)] = values[rng(nvalues)]
          call(e.fn, args, n + 1, numeric, e.name)
        end
        for i = 1, n do
          if type(tpl[i]) == "table" and getmetatable(tpl[i]) == nil then
            for _, d in ipairs(def_variants(tpl[i], values, nvalues, rng)) do
              local args = copy(tpl, n)
              args[i] = d
              call(e.fn, args, n, false, e.name)
            end
          end
        end
      end
      per[e.name] = (per[e.name] or 0) + calls - before
      make_objects() -- fresh objects: calls may have moved, reset or filled them
    end
  end
  local least, least_name = math.huge, nil
  local with_template = 0
  for _, e in ipairs(entries) do
    if per[e.name] < least then least, least_name = per[e.name], e.name end
    if templates(e.name) then with_template = with_template + 1 end
  end
  print(("probe: %d calls, %d errors, %d entries (%d with a valid call to mutate), fewest calls %d (%s)"):format(
    calls, errors, #entries, with_template, least, least_name))
  if internal > 0 then
    print(("probe: %d calls raised an internal error of sinew's Lua code, e.g. %s"):format(internal,
      internal_example))
    os.exit(1)
  end
  if nonfinite > 0 then
    print(("probe: %d quaternion calls with finite arguments gave inf or NaN, e.g. (%s)"):format(nonfinite,
      nonfinite_example))
    os.exit(1)
  end
end

-- ---- lifetime and re-entrancy scenarios ------------------------------------------------------

local scenarios = {}

-- issue 12, defect 1: a track whose fields change between reads (4096 keys the second time)
scenarios[#scenarios + 1] = { "clip track fields that change between reads", function()
  local s, n = sinew.skeleton { names = { "a" }, parents = { 0 } }, 0
  local ok, c = pcall(sinew.clip, { skeleton = s, tracks = { setmetatable({ joint = 1, path = "translation" }, {
    __index = function(_, k)
      if k == "times" then
        n = n + 1
        if n == 1 then return { 0 } end
        return big_list(4096)
      end
      if k == "values" then
        if n == 1 then return { 0, 0, 0 } end
        return big_list(12288, 0)
      end
    end }) } })
  -- read once: the first answers make a valid one-key clip
  return ok and c:duration() == 0 or tostring(c)
end }

-- issue 12, defect 2: the skeleton of a chain collected during construction
scenarios[#scenarios + 1] = { "chain skeleton collected by __index", function()
  local ok, c = pcall(sinew.chain, setmetatable({ root = 1 }, { __index = function(_, k)
    if k == "skeleton" then return sinew.skeleton { names = { "a", "b", "c" }, parents = { 0, 1, 2 } } end
    collectgarbage()
  end }))
  if not ok then return tostring(c) end
  collectgarbage()
  c:update(1 / 60, sinew.pose(c:skeleton()))
  return #c == 3
end }

scenarios[#scenarios + 1] = { "chain skeleton that is 42 on the second read", function()
  local reads = 0
  local ok, c = pcall(sinew.chain, setmetatable({ root = 1 }, { __index = function(_, k)
    if k == "skeleton" then
      reads = reads + 1
      if reads == 1 then return sinew.skeleton { names = { "a", "b" }, parents = { 0, 1 } } end
      return 42
    end
    collectgarbage()
  end }))
  return ok and reads == 1 and #c == 2 or ("read " .. reads .. " times: " .. tostring(c))
end }

-- issue 25: the skeleton of an IK solver collected during construction, and read once
for _, kind in ipairs { "two_bone", "aim", "chain" } do
  scenarios[#scenarios + 1] = { "ik." .. kind .. " skeleton collected by __index", function()
    local reads = 0
    local ok, solver = pcall(sinew.ik[kind], setmetatable({}, { __index = function(_, k)
      collectgarbage()
      if k == "skeleton" then
        reads = reads + 1
        if reads > 1 then return 42 end
        return sinew.skeleton { names = { "a", "b", "c" }, parents = { 0, 1, 2 },
          rest = { I, { 0, 1, 0, 0, 0, 0, 1, 1, 1, 1 }, { 0, 1, 0, 0, 0, 0, 1, 1, 1, 1 } } }
      end
      if k == "joints" then return { "a", "b", "c" } end
      if k == "joint" then return "b" end
    end }))
    if not ok then return tostring(solver) end
    collectgarbage()
    collectgarbage()
    local pose = sinew.pose(solver:skeleton())
    local reached
    if kind == "two_bone" then
      reached = solver:solve(pose, 0.5, 1, 0.5, 0, 1, 3)
    else
      reached = solver:solve(pose, 0.5, 1, 0.5)
    end
    local want = kind == "chain" and "number" or "boolean" -- a chain returns the distance left
    return reads == 1 and type(reached) == want or ("read " .. reads .. " times")
  end }
end

-- issue 25: a solve whose pose argument's finaliser runs during the call changes nothing else
scenarios[#scenarios + 1] = { "ik solves with collecting and raising arguments", function()
  local pose = sinew.pose(O.skel)
  local hostile = setmetatable({}, { __index = function() collectgarbage() return 1 end })
  for _ = 1, 20 do
    pcall(O.leg.solve, O.leg, pose, hostile, 1, 1, 0, 0, 1)
    pcall(O.head.solve, O.head, pose, 1, 1, 1, hostile)
    pcall(O.leg.solve, O.leg, pose, 1, 1, 1, 0, 0, 1, 0.5)
    pcall(O.head.solve, O.head, pose, 1, 1, 1, 1, hostile, 0, 0)
  end
  for j = 1, #pose do
    for _, v in ipairs { pose:get(j) } do if v ~= v then return "a NaN in joint " .. j end end
  end
  return true
end }

-- issue 25: a ground callback that calls its own solver (every method), collects garbage, drops
-- the solver's references and answers badly now and then: each solve gives a result or a clear
-- error, never an internal one, and the pose holds no NaN
scenarios[#scenarios + 1] = { "ground callbacks that re-enter the foot placement solver", function()
  local pose = sinew.pose(O.fskel)
  local feet, bad, k
  k = 0
  local answers = { function() return 0 end, function() return 0 / 0 end, function() error("boom") end,
    function() return "x" end, function() return 0, 1, 0 / 0, 0 end, function() return 1e300 end,
    function() return -0.1, 0, 0, 0 end, function() return 0.3, 0, -1, 0 end }
  local function ground(x, y, z)
    k = k + 1
    collectgarbage()
    local pokes = {
      function() feet:solve(pose, 0.1) end, function() feet:reset() end, function() feet:set_smoothing(k % 3) end,
      function() feet:set_ground(ground) end, function() feet:set_normal_limit((k % 4) / 4) end,
      function() feet:set_max_drop(k % 2) end, function() pose:copy(sinew.pose(O.fskel)) end,
      function() feet = nil collectgarbage() end,
    }
    local ok, err = pcall(pokes[k % #pokes + 1])
    if not ok and is_internal(err) then bad = bad or tostring(err) end
    if feet == nil then feet = O.feet end
    return answers[k % #answers + 1](x, y, z)
  end
  for _ = 1, 300 do
    feet = sinew.ik.feet { skeleton = O.fskel, pelvis = "hips", legs = { { "thigh", "shin", "foot" } }, ground = ground }
    for _ = 1, 3 do
      local ok, err = pcall(feet.solve, feet, pose, 0.05)
      if not ok and is_internal(err) then bad = bad or tostring(err) end
    end
  end
  for j = 1, #pose do
    for _, v in ipairs { pose:get(j) } do if v ~= v then return "a NaN in joint " .. j end end
  end
  return bad or true
end }

-- issue 12, defect 3: metamethods called with the wrong self
scenarios[#scenarios + 1] = { "metamethods with a wrong self", function()
  local bad = { io.stdout, {}, 1, "x", O.spaces[1], O.chain, O.clip, O.cursor, O.group, O.pointer }
  for _, obj in ipairs({ O.skel, O.pose, O.mask, O.mats, O.clip, O.cursor, O.group, O.chain, O.spaces[1], O.leg,
    O.head }) do
    for _, k in ipairs({ "__len", "__tostring" }) do
      local f = getmetatable(obj)[k]
      if f then
        pcall(f)
        for _, b in ipairs(bad) do pcall(f, b) end
      end
    end
  end
  return true
end }

-- every object a constructor reads, from a definition whose __index makes a fresh one each time
-- and collects garbage in between
scenarios[#scenarios + 1] = { "objects made fresh by __index and collected", function()
  local function fresh(def)
    return setmetatable({}, { __index = function(_, k)
      collectgarbage()
      if k == "skeleton" then return skeleton("j") end
      return def[k]
    end })
  end
  local built = 0
  for _ = 1, 20 do
    local okc, c = pcall(sinew.clip, fresh(clip_def(skeleton("j"))))
    local okch, ch = pcall(sinew.chain, fresh({ skeleton = true, root = "j1" }))
    collectgarbage()
    if okc then c:sample(0.3, sinew.pose(c:skeleton())); built = built + 1 end
    if okch then ch:update(1 / 60, sinew.pose(ch:skeleton())); built = built + 1 end
  end
  return built == 40 or ("built " .. built .. " of 40")
end }

-- a garbage object whose finaliser runs fn (newproxy on Lua 5.1 and LuaJIT, where tables have no
-- __gc)
local function finaliser(fn)
  if newproxy then
    local p = newproxy(true)
    getmetatable(p).__gc = fn
    return p
  end
  return setmetatable({}, { __gc = fn })
end

-- finalisers that change a definition while the constructor allocates
scenarios[#scenarios + 1] = { "finalisers that change definitions during construction", function()
  local names = { "a", "b", "c" }
  local times, values = { 0, 1 }, { 0, 0, 0, 1, 1, 1 }
  local points = { { 0, 0 }, { 1, 0 }, { 0, 1 } }
  collectgarbage("setpause", 0)
  for round = 1, 300 do
    for _ = 1, 20 do
      finaliser(function()
        names[2] = ("x"):rep(round % 7 + 1) .. round
        names[4] = "zz"
        for i = 1, 200 do times[i] = i end
        values[7] = 1
        points[2] = { 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5 }
        points[4] = { 9 }
      end)
    end
    local ok, s = pcall(sinew.skeleton, { names = names, parents = { 0, 1, 1 } })
    if ok then
      pcall(sinew.clip, { skeleton = s, tracks = { { joint = 1, path = "translation", times = times, values = values } } })
    end
    pcall(sinew.blendspace, { mode = "freeform_cartesian", points = points })
    names, times, values = { "a", "b", "c" }, { 0, 1 }, { 0, 0, 0, 1, 1, 1 }
    points = { { 0, 0 }, { 1, 0 }, { 0, 1 } }
  end
  collectgarbage("setpause", 200)
  return true
end }

-- finalisers that call sinew while sinew calls allocate (re-entrancy)
scenarios[#scenarios + 1] = { "finalisers that call sinew during sinew calls", function()
  local out, layers, weights = sinew.pose(O.skel), { O.pose, O.pose2 }, { 0.5, 0.5 }
  collectgarbage("setpause", 0)
  for round = 1, 300 do
    for _ = 1, 10 do
      finaliser(function()
        local big = {}
        for i = 1, 64 do big[i] = O.pose end
        local w = {}
        for i = 1, 64 do w[i] = 1 end
        pcall(sinew.blend, out, big, w)
        pcall(sinew.quat.blend, big_list(400, 0.5), big_list(100, 1))
        pcall(O.spaces[3].weights, O.spaces[3], 0.1, 0.2, {})
        pcall(O.chain.set_param, O.chain, "damping", big_list(10, 0.2))
      end)
    end
    sinew.blend(out, layers, weights)
    sinew.quat.blend({ 0, 0, 0, 1, 0, 0, 1, 0 }, { round, 1 })
    O.spaces[3]:weights(0.3, 0.3, {})
    O.chain:set_param("damping", { 0.1, 0.2, 0.3 })
  end
  collectgarbage("setpause", 200)
  return true
end }

-- finalisers that call a DragonBones rig (the same one, its core object, its chain) while it is
-- updated, posed and read: its vertices are read into a table that grows (a collection), and the
-- shared scratch of vertices is grown by the finaliser's own call meanwhile
scenarios[#scenarios + 1] = { "finalisers that call a rig during its calls", function()
  local data = assert(sinew.dragonbones.load("assets/dragonbones/you_xin_body/body_ske.json"))
  local rig, other = sinew.dragonbones.rig(data), sinew.dragonbones.rig(data)
  rig:play("idle")
  other:play("shy")
  local pose = rig:pose()
  collectgarbage("setpause", 0)
  for round = 1, 200 do
    for _ = 1, 5 do
      finaliser(function()
        pcall(rig.update, rig, 0.01)
        pcall(rig.set_display, rig, "a_body", round % 2 == 0 and -1 or 0)
        pcall(other.vertices, other, "a_body", {})
        pcall(rig.core.vertices, rig.core, 5, big_list(round % 50))
        pcall(rig.apply, rig, pose)
        pcall(rig.play, rig, round % 3 == 0 and "shy" or "idle")
      end)
    end
    rig:update(1 / 60)
    rig:vertices("a_body", {})
    rig:mesh("a_body")
    rig:apply(pose)
    for _ in rig:events() do end
  end
  collectgarbage("setpause", 200)
  return true
end }

-- a group keeps what it read, whatever finalisers do to the tables while it reads them, and a
-- cursor keeps its clip
scenarios[#scenarios + 1] = { "groups and cursors keep their objects through collections", function()
  local group, params = sinew.group(), {}
  -- one collection step at a time: a finaliser's step runs the next finalisers, whose steps would
  -- nest as deep as there are finalisers pending (Lua 5.3 then stops with "C stack overflow")
  local stepping = false
  collectgarbage("setpause", 0)
  for round = 1, 100 do
    local s = skeleton("j")
    local poses, masks = {}, {}
    for i = 1, 12 do poses[i], masks[i] = sinew.pose(s), sinew.mask(s, nil, 0.5) end
    for _ = 1, 10 do
      finaliser(function()
        for i = 1, 12 do poses[i], masks[i] = nil, nil end
        if not stepping then
          stepping = true
          collectgarbage("step")
          stepping = false
        end
      end)
    end
    local cursor = sinew.clip(clip_def(s)):cursor()
    local out = sinew.pose(s)
    pcall(group.blend, group, out, poses, masks)
    local ok, slot = pcall(group.sample, group, cursor, out)
    if ok then params[slot] = round / 100 end
  end
  for _ = 1, 3 do collectgarbage() end
  collectgarbage("setpause", 200)
  for i = 1, group:params() do params[i] = params[i] or 0.5 end
  group:run(1 / 60, params)
  return #group > 0
end }

-- collect in small steps during every allocation (the setting of the issue 21 reproduction)
local function eager_collector()
  if _VERSION == "Lua 5.4" then collectgarbage("incremental", 0, 1000)
  else collectgarbage("setpause", 0); collectgarbage("setstepmul", 1000) end
end
local function normal_collector()
  if _VERSION == "Lua 5.4" then collectgarbage("incremental", 200, 100)
  else collectgarbage("setpause", 200); collectgarbage("setstepmul", 200) end
end

-- a group stays whole when finalisers run by its own growth add operations to it (issue 21: the
-- arrays were copied as they were before the allocation, losing or overwriting what a finaliser
-- added): every operation accepted, from the loop or from a finaliser, is in the group, and it runs
scenarios[#scenarios + 1] = { "finalisers that add to the group being grown", function()
  local s = skeleton("j")
  local out, p, p2 = sinew.pose(s), sinew.pose(s), sinew.pose(s)
  local cursor, mats = sinew.clip(clip_def(s)):cursor(), sinew.matrices(s)
  local tail = sinew.chain { skeleton = s, root = 2 }
  local g, accepted = sinew.group(), 0
  local adds = {
    function() return g:blend(out, { p }) end,
    function() return g:blend(out, { p, p2, out }, { false, sinew.mask(s, nil, 0.5) }) end,
    function() return g:sample(cursor, p) end,
    function() return g:to_model(out, mats) end,
    function() return g:step(tail) end,
    function() return g:update(tail, out) end,
  }
  eager_collector()
  for round = 1, 3000 do
    for k = 1, 3 do
      finaliser(function()
        if pcall(adds[(round + k) % #adds + 1]) then accepted = accepted + 1 end
      end)
    end
    adds[round % #adds + 1]()
    accepted = accepted + 1
  end
  normal_collector()
  for _ = 1, 3 do collectgarbage() end -- the finalisers still pending run and add
  local params = {}
  for i = 1, g:params() do params[i] = 0.5 end
  g:run(1 / 60, params)
  if #g ~= accepted then return ("%d operations, %d accepted"):format(#g, accepted) end
  return true
end }

-- the scratch buffers of the calls that grow them (the FFI path's quaternion, layer and weight
-- buffers; the C binding's scratch blocks) stay as large as their counts say when a finaliser
-- run by the growth calls the same function with more: each round the outer call grows, and the
-- finalisers, armed only during it, ask for more still (issue 21: the FFI path set its count
-- before allocating, so the finaliser's larger count outlived its buffers)
scenarios[#scenarios + 1] = { "finalisers that grow the buffers being grown", function()
  local function quats(n)
    local t = {}
    for i = 1, n do t[4 * i - 3], t[4 * i - 2], t[4 * i - 1], t[4 * i] = 0, 0, 0.6, 0.8 end
    return t
  end
  local s = skeleton("j")
  local out = sinew.pose(s)
  local function layers(n) local t, w = {}, {} for i = 1, n do t[i], w[i] = out, 1 end return t, w end
  -- on the FFI path, each buffer must hold at least what its count says (read through the debug
  -- library: an overflow there lands in LuaJIT's own heap, where no sanitizer sees it)
  local ffi = sinew.path == "ffi" and require "ffi"
  local function upvalues(f)
    local t, i = {}, 1
    while true do
      local name, v = debug.getupvalue(f, i)
      if not name then return t end
      t[name] = v
      i = i + 1
    end
  end
  local sp_a, sp_b
  local function short_buffer()
    if not ffi then return nil end
    local qb = upvalues(sinew.quat.blend)
    if qb.buf_n and ffi.sizeof(qb.qs_buf) < qb.buf_n * ffi.sizeof("double") * 4 then
      return ("quat.blend: buf_n %d, qs_buf of %d bytes"):format(qb.buf_n, ffi.sizeof(qb.qs_buf))
    end
    local pb = upvalues(sinew.blend)
    if pb.layers_n and ffi.sizeof(pb.lposes) < pb.layers_n * ffi.sizeof("void *") then
      return ("blend: layers_n %d, lposes of %d bytes"):format(pb.layers_n, ffi.sizeof(pb.lposes))
    end
    local sw = upvalues(sp_a.weights)
    if sw.wcap and ffi.sizeof(sw.wbuf) < sw.wcap * ffi.sizeof("double") then
      return ("weights: wcap %d, wbuf of %d bytes"):format(sw.wcap, ffi.sizeof(sw.wbuf))
    end
    return nil
  end
  local armed = false
  eager_collector()
  for round = 1, 200 do
    local n = 16 * round
    local qa_, wa_ = quats(n), big_list(n, 1)
    local qb_, wb_ = quats(n + 8), big_list(n + 8, 1)
    local la, lwa = layers(n)
    local lb, lwb = layers(n + 8)
    local pa, pb, m = {}, {}, 4 * round + 16 -- blend spaces have at most 1024 points
    for i = 1, m + 8 do pb[i] = { i } end
    for i = 1, m do pa[i] = { i } end
    sp_a, sp_b = sinew.blendspace { mode = "idw", points = pa }, sinew.blendspace { mode = "idw", points = pb }
    local wa_out, wb_out = {}, {}
    for _ = 1, 200 do
      finaliser(function()
        if armed then
          pcall(sinew.quat.blend, qb_, wb_)
          pcall(sinew.blend, out, lb, lwb)
          pcall(sp_b.weights, sp_b, 2.5, wb_out)
        end
      end)
    end
    armed = true
    local x, y, z, w = sinew.quat.blend(qa_, wa_)
    sinew.blend(out, la, lwa)
    sp_a:weights(1.5, wa_out)
    armed = false
    local sum = 0
    for i = 1, m do sum = sum + wa_out[i] end
    if math.abs(sum - 1) > 1e-9 or wa_out[m + 1] ~= nil or wa_out[1] <= wa_out[3] then
      normal_collector()
      return ("round %d: weights of %d points sum to %g, entry %d is %s, w1 %g w3 %g"):format(round, m, sum, m + 1,
        tostring(wa_out[m + 1]), wa_out[1], wa_out[3])
    end
    if math.abs(z - 0.6) > 1e-9 or math.abs(w - 0.8) > 1e-9 or x ~= 0 or y ~= 0 then
      normal_collector()
      return ("round %d: blend of equal quaternions gave %g %g %g %g"):format(round, x, y, z, w)
    end
    local short = short_buffer()
    if short then
      normal_collector()
      return ("round %d: %s"):format(round, short)
    end
  end
  normal_collector()
  return true
end }

-- A scenario: every method of type `name` (the entries named "sinew.<name>" and then ':' or '.';
-- with `loose`, every entry whose name starts with "sinew.<name>" and has one of those), called
-- again on the same object by finalisers while it runs, `rounds` times (with the arguments of its
-- valid template): a clean result or error, and the object still answers.
local function reentry_scenario(name, rounds, loose)
  local mt_name = "sinew." .. name
  local function mine(entry)
    if loose then return entry:sub(1, #mt_name) == mt_name and entry:find("[:.]") ~= nil end
    local head = entry:sub(1, #mt_name + 1)
    return head == mt_name .. ":" or head == mt_name .. "."
  end
  return { "finalisers that re-enter each method of " .. name, function()
    local tried = 0
    for _, e in ipairs(find_entries()) do
      if mine(e.name) then
        for _, tpl in ipairs(templates(e.name) or {}) do
          local n = #tpl
          eager_collector()
          for _ = 1, rounds do
            for _ = 1, 3 do finaliser(function() pcall(e.fn, unpack(tpl, 1, n)) end) end
            pcall(e.fn, unpack(tpl, 1, n))
          end
          normal_collector()
          collectgarbage()
          local self = tpl[1]
          if type(self) == "userdata" and not pcall(tostring, self) then
            return e.name .. ": the object no longer answers tostring"
          end
          tried = tried + 1
        end
        make_objects()
      end
    end
    return tried > 0 or ("no template for " .. mt_name)
  end }
end

for _, name in ipairs({ "Group", "Pose", "Mask", "Matrices", "Clip", "ClipCursor", "Chain", "Skeleton",
  "BlendSpace", "Animator", "AnimatorPlan", "IKTwoBone", "IKAim", "IKChain", "IKSpread", "IKFeet" }) do
  scenarios[#scenarios + 1] = reentry_scenario(name, 200, true)
end

-- issue 25, 2-D: the same for the 2-D solvers' methods
for _, name in ipairs({ "IK2DTwoBone", "IK2DAim", "IK2DChain" }) do
  scenarios[#scenarios + 1] = reentry_scenario(name, 100)
end

-- issue 25, 2-D: a solver keeps its rig (collected by no one else) alive; definitions read through
-- __index that collects, hostile solve arguments, wrong selves: clean errors, no NaN in the pose
scenarios[#scenarios + 1] = { "2-D ik solvers: rigs kept, hostile definitions and arguments", function()
  local file = "spec/support/chain2d_ske.json"
  for _, kind in ipairs { "two_bone", "aim", "chain" } do
    local reads = 0
    local def = setmetatable({ rig = sinew.dragonbones.rig(assert(sinew.dragonbones.load(file))) }, { __index = function(_, k)
      collectgarbage()
      reads = reads + 1
      if k == "bones" then return kind == "chain" and { "tail1", "tail2", "tail3" } or { "tail1", "tail2" } end
      if k == "bone" then return "tail2" end
    end })
    local ok, solver = pcall(sinew.ik[kind], def)
    if not ok then return kind .. ": " .. tostring(solver) end
    def = nil -- luacheck: ignore (the rig's last reference is the solver's)
    collectgarbage()
    collectgarbage()
    local rig = solver:rig()
    local pose = rig:pose()
    rig:apply(pose)
    local r = solver:solve(pose, 150, 90)
    if r == nil then return kind .. ": no result" end
    local hostile = setmetatable({}, { __index = function() collectgarbage() return 1 end })
    for _ = 1, 10 do
      pcall(solver.solve, solver, pose, hostile, 1)
      pcall(solver.solve, solver, hostile, 1, 1)
      pcall(solver.solve, solver, pose, 1 / 0, 0 / 0)
      pcall(solver.solve, O.leg, pose, 1, 1)
      pcall(solver.solve, solver, O.pose2d, 1, 1)
      pcall(getmetatable(solver).__tostring, O.leg)
    end
    for b = 1, #pose do
      for _, v in ipairs { pose:get(b) } do if v ~= v then return kind .. ": a NaN in bone " .. b end end
    end
  end
  return true
end }

-- an animator's event handlers (and finalisers) that call its own methods while it updates:
-- every call gives a result or a clear error, never an internal one, and it still plays
scenarios[#scenarios + 1] = { "handlers and finalisers that call the animator during its update", function()
  local anim = sinew.animator(animator_def(O.skel, O.clip, O.mask))
  local pose, snap = sinew.pose(O.skel), anim:snapshot()
  local bad
  local function poke(k)
    local methods = {
      function() anim:update(0.37) end, function() anim:evaluate(pose) end, function() anim:set("speed", k % 3) end,
      function() anim:trigger("go") end, function() anim:restore(snap) end, function() snap = anim:snapshot() end,
      function() anim:travel(k % 2 == 0 and "move" or "idle") end, function() for _ in anim:events() do end end,
      function() for _ in anim:active() do end end, function() anim:set_layer_weight("look", (k % 5) / 4) end,
    }
    local ok, err = pcall(methods[k % #methods + 1])
    if not ok and is_internal(err) then bad = bad or tostring(err) end
  end
  local depth, k = 0, 0
  local function handler()
    k = k + 1
    if depth < 3 then
      depth = depth + 1
      poke(k)
      depth = depth - 1
    end
  end
  anim:on("tick", handler):on("step", handler)
  eager_collector()
  for round = 1, 400 do
    for _ = 1, 3 do finaliser(function() k = k + 1; poke(k) end) end
    anim:set("speed", round % 4 == 0 and 0 or 1.2)
    if round % 7 == 0 then anim:trigger("go") end
    local ok, err = pcall(function() anim:update(0.05 + (round % 9) * 0.1):evaluate(pose) end)
    if not ok and is_internal(err) then bad = bad or tostring(err) end
  end
  normal_collector()
  collectgarbage()
  anim:update(0.1):evaluate(pose)
  return bad == nil or bad
end }

-- animators of one plan share its scratch: handlers and finalisers that call the plan's other
-- animators (update, evaluate, restore, snapshot, new) while one updates or evaluates get a result
-- or a clear error, never an internal one, and every animator still plays as one alone does
scenarios[#scenarios + 1] = { "handlers and finalisers that call other animators of the same plan", function()
  local plan = sinew.animator.compile(animator_def(O.skel, O.clip, O.mask))
  local list, poses = {}, {}
  for i = 1, 4 do list[i], poses[i] = plan:new(), sinew.pose(O.skel) end
  local snap = list[1]:snapshot()
  local bad, quiet
  local function poke(k)
    if quiet then return end -- the check below compares animators that no handler touches
    local a = list[k % #list + 1]
    local methods = {
      function() a:update(0.29) end, function() a:evaluate(poses[k % #list + 1]) end,
      function() a:restore(snap) end, function() snap = a:snapshot() end, function() a:set("speed", k % 3) end,
      function() plan:new():update(0.1):evaluate(sinew.pose(O.skel)) end, function() a:trigger("go") end,
    }
    local ok, err = pcall(methods[k % #methods + 1])
    if not ok and is_internal(err) then bad = bad or tostring(err) end
  end
  local k = 0
  for _, a in ipairs(list) do a:on("tick", function() k = k + 1; poke(k) end) end
  eager_collector()
  for round = 1, 300 do
    for _ = 1, 3 do finaliser(function() k = k + 1; poke(k) end) end
    for i, a in ipairs(list) do
      a:set("speed", (round + i) % 4 == 0 and 0 or 1.2)
      local ok, err = pcall(function() a:update(0.05 + ((round + i) % 9) * 0.1):evaluate(poses[i]) end)
      if not ok and is_internal(err) then bad = bad or tostring(err) end
    end
  end
  normal_collector()
  collectgarbage()
  -- from here the handlers do nothing: a tick in the updates below would poke an animator (perhaps
  -- the one being compared) that the animator alone does not see
  quiet = true
  -- each still plays as an animator of its own: its snapshot restored into an animator of its
  -- plan and into one of a plan of its own gives the same poses, bit for bit, and the animator's
  -- own pose (a restore puts poses kept for inertialisation back through pose:set, which
  -- normalises their rotations: to float rounding)
  local alone, pa = sinew.animator(animator_def(O.skel, O.clip, O.mask)), sinew.pose(O.skel)
  local mate, pm = plan:new(), sinew.pose(O.skel)
  for i, a in ipairs(list) do
    local s = a:snapshot()
    alone:restore(s)
    mate:restore(s)
    a:update(0.2):evaluate(poses[i])
    alone:update(0.2):evaluate(pa)
    mate:update(0.2):evaluate(pm)
    for j = 1, #pa do
      local x, y, z = { pa:get(j) }, { pm:get(j) }, { poses[i]:get(j) }
      for c = 1, 10 do
        if x[c] ~= y[c] then return ("animator %d: restored into its plan and alone, joint %d differs"):format(i, j) end
        if math.abs(x[c] - z[c]) > 1e-5 then return ("animator %d differs from one alone at joint %d"):format(i, j) end
      end
    end
  end
  return bad == nil or bad
end }

-- objects outlive the references to their skeleton
scenarios[#scenarios + 1] = { "objects outlive their skeleton's other references", function()
  local p, m, mats, c, ch
  do
    local s = skeleton("j")
    p, m, mats = sinew.pose(s), sinew.mask(s, nil, 1), sinew.matrices(s)
    c, ch = sinew.clip(clip_def(s)), sinew.chain { skeleton = s, root = 2 }
  end
  for _ = 1, 3 do collectgarbage() end
  c:sample(0.5, p)
  ch:update(1 / 30, p)
  p:add(p, 0.5, m)
  p:to_model(mats)
  return #p == 4 and #m == 4 and #mats == 4 and p:skeleton() == c:skeleton()
end }

-- sinew.try: a refusal comes back as values only from the call try made itself; what the callee's
-- metamethods, a finaliser or another coroutine call meanwhile raises (and catches) as always
scenarios[#scenarios + 1] = { "try: refusals of the calls try did not make raise as always", function()
  local seen = {}
  local function note(ok, e) seen[#seen + 1] = not ok and type(e) == "string" and e:find("bad argument #1", 1, true) ~= nil end
  local def = setmetatable({}, { __index = function(_, k)
    note(pcall(sinew.blendspace, { mode = "1d", points = { 2, 2 } }))
    note(coroutine.resume(coroutine.create(function() return sinew.blendspace({}) end)))
    if k == "points" then return { 1, 1 } end
    if k == "mode" then return "1d" end
  end })
  collectgarbage("setpause", 0)
  for _ = 1, 20 do finaliser(function() note(pcall(sinew.pose, 1)) end) end
  local none, msg, arg = sinew.try(sinew.blendspace, def)
  collectgarbage()
  collectgarbage("setpause", 200)
  if none ~= nil or msg ~= "duplicate points 1 and 2" or arg ~= 1 then
    return ("try gave %s, %s, %s"):format(tostring(none), tostring(msg), tostring(arg))
  end
  for i, ok in ipairs(seen) do if not ok then return "call " .. i .. " did not raise its message" end end
  -- errors that are not refusals pass as they came
  local ok, e = pcall(sinew.try, function() error({ "mine" }) end)
  if ok or type(e) ~= "table" or e[1] ~= "mine" then return "an error object of Lua code changed: " .. tostring(e) end
  return #seen >= 3 or ("only " .. #seen .. " calls were made")
end }

local function run_scenarios()
  local passed, refused = 0, 0
  for _, sc in ipairs(scenarios) do
    io.stderr:write("scenario: " .. sc[1] .. "\n")
    local ok, res = xpcall(sc[2], debug.traceback)
    if ok and res == true then
      passed = passed + 1
    else
      refused = refused + 1
      print("scenario failed: " .. sc[1] .. ": " .. tostring(res))
    end
  end
  print(("scenarios: %d passed, %d failed"):format(passed, refused))
end

local mode = arg[1]
if mode == "entries" then
  -- each entry, and whether its valid calls succeed (a template that fails mutates nothing useful)
  for _, e in ipairs(find_entries()) do
    print(e.kind .. " " .. e.name)
    for k, tpl in ipairs(templates(e.name) or {}) do
      local ok, err = pcall(e.fn, unpack(tpl, 1, #tpl))
      if not ok then print(("template %d of %s fails: %s"):format(k, e.name, tostring(err))) end
      make_objects()
    end
  end
elseif mode == "calls" then
  run_calls(tonumber(arg[2]) or 1, tonumber(arg[3]) or 1)
elseif mode == "scenarios" then
  run_scenarios()
else
  io.stderr:write("usage: probe.lua entries | calls SEED ROUNDS | scenarios\n")
  os.exit(2)
end
