-- The messages a newcomer reads first (issue 24), each in its exact shape: a mistake in a call
-- names the caller's file and line (not a file of sinew), a definition fault is the same in every
-- run, a missing resource or a near name is said, a file that is a folder, empty or cut short is
-- said so, a buffer path is resolved by its text, a blend space's coordinate count names the
-- space, and a clip that plays twice in a fade is listed once.
local sinew = require "sinew"
local helper = require "helper"

local here = debug.getinfo(1, "S").short_src -- this file as error messages name it

local skel = sinew.skeleton { names = { "hips", "spine" }, parents = { 0, 1 } }

local function line(d, x1)
  return sinew.clip { skeleton = skel, tracks = {
    { joint = "hips", path = "translation", times = { 0, d }, values = { 0, 0, 0, x1, 0, 0 } } } }
end

local clips = { Run = line(1, 1), Walk = line(2, 2), Survey = line(1.5, 0) }

local quote = helper.quote

-- the error of fn(), which must make it on line `at` of this file
local function raised_at(at, fn)
  local msg = helper.error_of(fn)
  assert.is_string(msg, "no error")
  local prefix = ("%s:%d: "):format(here, at)
  assert.is_truthy(msg:sub(1, #prefix) == prefix, ("expected the prefix '%s', got: %s"):format(prefix, msg))
  return msg:sub(#prefix + 1)
end

-- the line of the caller of `line_of` plus one: `local at = line_of() ; <the call>` on one line
-- is not needed, a call on the next line is `line_of() + 1`
local function line_of() return debug.getinfo(2, "l").currentline end

local function def_of(motion)
  return { skeleton = skel, parameters = { speed = 0 },
    layers = { { name = "base", entry = "idle", states = {
      idle = { motion = "Survey" },
      move = { motion = { blend = "1d", parameter = "speed", children = { { 0.5, "Walk" }, { 3.0, motion or "Run" } } } },
    } } } }
end

describe("messages", function()
  describe("a mistake in a call names the caller's file and line", function()
    it("for the animator's definition (sinew.animator, compile, dot)", function()
      local at = line_of() + 1
      local msg = raised_at(at, function() sinew.animator(def_of("Rnu"), { clips = clips }) end)
      assert.equal("layers[1].states.move.motion.children[2][2]: unknown clip 'Rnu' (did you mean 'Run'?)", msg)
      at = line_of() + 1
      msg = raised_at(at, function() sinew.animator.compile(def_of("Rnu"), { clips = clips }) end)
      assert.equal("layers[1].states.move.motion.children[2][2]: unknown clip 'Rnu' (did you mean 'Run'?)", msg)
      at = line_of() + 1
      msg = raised_at(at, function() sinew.animator.dot(def_of("Rnu"), { clips = clips }) end)
      assert.equal("layers[1].states.move.motion.children[2][2]: unknown clip 'Rnu' (did you mean 'Run'?)", msg)
      at = line_of() + 1
      msg = raised_at(at, function() sinew.animator(nil) end)
      assert.equal("definition: must be a table (got nil)", msg)
      at = line_of() + 1
      msg = raised_at(at, function() sinew.animator(def_of(), "clips") end)
      assert.equal("resources: must be a table (got string)", msg)
      -- a name far from every clip: no guess
      at = line_of() + 1
      msg = raised_at(at, function() sinew.animator(def_of("Swim"), { clips = clips }) end)
      assert.equal("layers[1].states.move.motion.children[2][2]: unknown clip 'Swim'", msg)
    end)

    it("for the animator's run-time calls", function()
      local anim = sinew.animator(def_of(), { clips = clips })
      local plan = sinew.animator.compile(def_of(), { clips = clips })
      local cases = {
        { function() anim:set("sped", 1) end, "unknown parameter 'sped'" },
        { function() anim:set("speed", "fast") end, "parameter 'speed' is a number: got 'fast'" },
        { function() anim:trigger("speed") end, "parameter 'speed' is not a trigger" },
        { function() anim:travel("nowhere") end, "unknown state 'nowhere' in layer 'base'" },
        { function() anim:restore(5) end, "bad snapshot: snapshot: must be a table (got number)" },
        { function() plan.new({}) end, "bad argument #1 to 'new' (sinew.AnimatorPlan expected, got table)" },
        { function() anim:update(-1) end, "bad argument #1 to 'update' (dt must be a finite number >= 0, got -1)" },
      }
      for _, case in ipairs(cases) do
        local info = debug.getinfo(case[1], "S")
        assert.equal(case[2], raised_at(info.linedefined, case[1]))
      end
    end)

    it("for the importers' options and arguments (glTF, DragonBones)", function()
      local fox = "assets/fox/glTF-Binary/Fox.glb"
      local options = "the options are json, max_bytes, meshes, name, read, skin"
      local cases = {
        { function() sinew.gltf.load(fox, { skni = 0 }) end, "unknown option 'skni' (did you mean 'skin'?)" },
        { function() sinew.gltf.load(fox, { mesh = false }) end, "unknown option 'mesh' (did you mean 'meshes'?)" },
        { function() sinew.gltf.load(fox, { colour = 1 }) end, "unknown option 'colour' (" .. options .. ")" },
        { function() sinew.gltf.load(fox, { [1] = 1, zz = 2 }) end, "unknown option 1 (" .. options .. ")" },
        { function() sinew.gltf.load(fox, 5) end, "options must be a table (got number)" },
        { function() sinew.gltf.load(fox, { skin = "0" }) end, "option 'skin' must be a number (got string)" },
        { function() sinew.gltf.parse("{}", { skni = 0 }) end, "unknown option 'skni' (did you mean 'skin'?)" },
        { function() sinew.gltf.parse("{}", "", { read = 1 }) end, "option 'read' must be a function (got number)" },
        { function() sinew.gltf.load(nil) end, "bad argument #1 to 'load' (string expected, got nil)" },
        { function() sinew.dragonbones.load("x_ske.json", { bad = 1 }) end, "unknown option 'bad'" },
        { function() sinew.dragonbones.parse("{}", 5) end, "options must be a table (got number)" },
        { function() sinew.dragonbones.rig(5) end, "bad argument #1 to 'rig' (DragonBones data expected, got number)" },
      }
      for _, case in ipairs(cases) do
        local info = debug.getinfo(case[1], "S")
        assert.equal(case[2], raised_at(info.linedefined, case[1]))
      end
    end)

    it("for sinew.love2d (on LuaJIT, whose FFI it needs)", function()
      local ok, love2d = pcall(require, "sinew.love2d")
      if not ok then
        assert.matches("ffi", love2d) -- (Lua 5.x: no FFI; nothing else may fail)
        return
      end
      local at = line_of() + 1
      local msg = raised_at(at, function() love2d.prepare(5) end)
      assert.equal("bad argument #1 to 'prepare' (DragonBones data expected, got number)", msg)
      at = line_of() + 1
      msg = raised_at(at, function() love2d.draw(5) end)
      assert.equal("bad argument #1 to 'draw' (a sinew.dragonbones rig expected, got number)", msg)
    end)
  end)

  describe("resources", function()
    it("say when no clips (masks, poses) were given, and how to give them", function()
      local at = line_of() + 1
      local msg = raised_at(at, function() sinew.animator(def_of()) end)
      assert.equal("layers[1].states.idle.motion: unknown clip 'Survey': no clips were given (give them after the"
        .. " definition: sinew.animator(def, { clips = { Survey = clip, ... } }))", msg)
      -- an empty table gives none either; a name that is no Lua name is written as a key
      local def = def_of()
      def.layers[1].states.idle.motion = "idle 2"
      msg = helper.error_of(sinew.animator, def, { clips = {} })
      assert.equal("layers[1].states.idle.motion: unknown clip 'idle 2': no clips were given (give them after the"
        .. " definition: sinew.animator(def, { clips = { ['idle 2'] = clip, ... } }))", msg)
      def = def_of()
      def.layers[2] = { name = "upper", mask = "upper", states = { look = { motion = "Survey" } } }
      msg = helper.error_of(sinew.animator, def, { clips = clips })
      assert.equal("layers[2].mask: unknown mask 'upper': no masks were given (give them after the definition:"
        .. " sinew.animator(def, { masks = { upper = mask, ... } }))", msg)
      msg = helper.error_of(sinew.animator, def, { clips = clips, masks = { uper = sinew.mask(skel, {}, 1) } })
      assert.equal("layers[2].mask: unknown mask 'upper' (did you mean 'uper'?)", msg)
    end)
  end)

  describe("a definition with several faults", function()
    -- definitions with two or more wrong keys each, and the fault that names the first of them
    -- (numbers, then strings in byte order)
    local cases = {
      { function(t) t.layers[1].states.idle.zz = 1; t.layers[1].states.idle.bogus = 2 end,
        "layers[1].states.idle: unknown field 'bogus'" },
      { function(t) t.parameters.q = "nope"; t.parameters.p = {}; t.parameters.r = "bad" end,
        "parameters.p.float: must be a finite number (got nil)" },
      { function(t) local m = t.layers[1].states.move.motion; m.zz, m.yy = 1, 2 end,
        "layers[1].states.move.motion: unknown field 'yy'" },
      { function(t) t.layers[1].states[7] = { motion = "Run" }; t.layers[1].states[true] = { motion = "Run" } end,
        "layers[1].states: state names must be strings other than 'any' (got 7)" },
      { function(t) t.layers.x = {}; t.layers[5] = {} end, "layers: 5 is not an index of a list (1 .. 3)" },
      { function(t) t.foo, t.bar = 1, 2 end, "definition: unknown field 'bar'" },
    }

    it("names the first in a fixed order, whatever order the table was built in", function()
      for _, case in ipairs(cases) do
        for round = 1, 8 do
          -- the keys inserted in another order each round, with keys added and removed before
          -- them (the table's hash part laid out differently)
          local def = def_of()
          local noise = {}
          for k = 1, round * 3 do noise[k] = "noise" .. k end
          for _, k in ipairs(noise) do def.layers[1].states[k] = true end
          for _, k in ipairs(noise) do def.layers[1].states[k] = nil end
          case[1](def)
          local msg = helper.error_of(sinew.animator, def, { clips = clips })
          assert.equal(case[2], msg)
        end
      end
    end)

    it("names the same one in every process (Lua 5.4 seeds its string hashes per state)", function()
      local out = {}
      for run = 1, 6 do
        out[run] = helper.lua_child("spec/support/messages_child.lua definitions", 20)
        assert.matches("exit status 0%s*$", out[run])
      end
      for run = 2, 6 do assert.equal(out[1], out[run]) end
      for _, case in ipairs(cases) do
        assert.is_truthy(out[1]:find(case[2], 1, true), out[1])
      end
    end)
  end)

  describe("files", function()
    local top
    local function write(path, bytes) helper.write_file(top .. "/" .. path, bytes) end

    setup(function()
      top = os.tmpname()
      os.remove(top)
      assert(os.execute("mkdir -p " .. quote(top .. "/model/sub")))
    end)
    teardown(function() os.execute("rm -rf " .. quote(top)) end)

    it("say that a path is a folder, a file is empty or cut short, naming the file", function()
      local fox = helper.read_file("assets/fox/glTF-Binary/Fox.glb")
      write("empty.glb", "")
      write("cut7.glb", fox:sub(1, 7))
      write("cut20.glb", fox:sub(1, 20))
      write("notglb.glb", "glTG" .. fox:sub(5, 40))
      local cases = {
        { top .. "/model", "model: cannot read the file: it is a directory" },
        { top .. "/model/", top .. "/model/: cannot read the file: it is a directory" },
        { top .. "/empty.glb", "empty.glb: the file is empty (0 bytes)" },
        { top .. "/cut7.glb", "cut7.glb: a .glb starts with a 12-byte header (the file has 7 bytes)" },
        { top .. "/cut20.glb",
          "cut20.glb: the GLB header's length 162852 is past the end of the file (20 bytes): cut short?" },
        { top .. "/nothing.glb", "nothing.glb: cannot read the file: No such file or directory" },
      }
      for _, case in ipairs(cases) do
        local asset, msg = sinew.gltf.load(case[1])
        assert.is_nil(asset)
        assert.equal(case[2], msg)
      end
      local asset, msg = sinew.gltf.parse("", { name = "bytes.glb" })
      assert.is_nil(asset)
      assert.equal("bytes.glb: the file is empty (0 bytes)", msg)
      asset, msg = sinew.gltf.load("game/hero.glb", { read = function() return nil end })
      assert.is_nil(asset)
      assert.equal("hero.glb: cannot read the file: options.read gave no bytes", msg)
    end)

    it("resolve a buffer's path by its text, and refuse only what leaves the folder", function()
      local dir = "spec/gltf-corpus/SimpleSkin/glTF/"
      write("model/SimpleSkin.bin", helper.read_file(dir .. "SimpleSkin.bin"))
      local text = helper.read_file(dir .. "SimpleSkin.gltf")
      assert.is_truthy(text:find('"uri": "SimpleSkin.bin"', 1, true))
      local reference = assert(sinew.gltf.load(dir .. "SimpleSkin.gltf"))
      local function with_uri(uri)
        write("model/model.gltf", (text:gsub('"uri": "SimpleSkin.bin"', function() return ('"uri": "%s"'):format(uri) end)))
        return sinew.gltf.load(top .. "/model/model.gltf")
      end
      -- within the folder ("sub" exists, "none" does not: the path is resolved by its text)
      for _, uri in ipairs({ "sub/../SimpleSkin.bin", "./SimpleSkin.bin", "none/./../sub/../SimpleSkin.bin",
        "sub//..//SimpleSkin.bin", "sub%2F..%2FSimpleSkin.bin" }) do
        local asset, msg = with_uri(uri)
        assert.is_table(asset, msg)
        assert.equal(#reference.skeleton, #asset.skeleton)
        local name, clip = next(reference.clips)
        assert.equal(clip:duration(), asset.clips[name]:duration())
      end
      local refused = {
        { "../SimpleSkin.bin", "model.gltf: buffers[0].uri: '../SimpleSkin.bin' leaves the folder of the glTF file" },
        { "sub/../../model/SimpleSkin.bin",
          "model.gltf: buffers[0].uri: 'sub/../../model/SimpleSkin.bin' leaves the folder of the glTF file" },
        { "sub/..", "model.gltf: buffers[0].uri: 'sub/..' names the folder of the glTF file, not a file" },
        { "/etc/passwd",
          "model.gltf: buffers[0].uri: '/etc/passwd' is not a relative path (only files beside the glTF file are read)" },
        { "C:/x.bin",
          "model.gltf: buffers[0].uri: 'C:/x.bin' is not a relative path (only files beside the glTF file are read)" },
      }
      for _, case in ipairs(refused) do
        local asset, msg = with_uri(case[1])
        assert.is_nil(asset)
        assert.equal(case[2], msg)
      end
    end)
  end)

  describe("a blend space's coordinates", function()
    it("name the space's dimension and mode when there are too few or too many", function()
      local space = sinew.blendspace { mode = "freeform_cartesian", points = { { 0, 0 }, { 1, 0 }, { 0, 1 } } }
      local at = line_of() + 1
      local msg = raised_at(at, function() space:weights(1) end)
      assert.equal("wrong number of coordinates: expected 2, got 1 (the space is 2-D, mode 'freeform_cartesian')", msg)
      assert.equal("wrong number of coordinates: expected 2, got 3 (the space is 2-D, mode 'freeform_cartesian')",
        helper.error_of(space.weights, space, 1, 2, 3))
      local directional = sinew.blendspace { mode = "simple_directional",
        points = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { -1, 0 }, { 0, -1 } } }
      assert.equal("wrong number of coordinates: expected 2, got 1 (the space is 2-D, mode 'simple_directional')",
        helper.error_of(directional.weights, directional, 1, {}))
      local direct = sinew.blendspace { mode = "direct", points = { 1, 2, 3 } }
      assert.equal("wrong number of coordinates: expected 3, got 1 (mode 'direct' takes an input per point)",
        helper.error_of(direct.weights, direct, 1))
      local none, why = sinew.try(space.weights, space, 1)
      assert.is_nil(none)
      assert.equal("wrong number of coordinates: expected 2, got 1 (the space is 2-D, mode 'freeform_cartesian')", why)
    end)
  end)

  describe("debug()", function()
    it("lists a clip that plays on both sides of a fade once, its weights summed", function()
      local anim = sinew.animator({ skeleton = skel, parameters = { speed = 3, jump = "trigger" },
        layers = { { entry = "jump", states = {
          jump = { motion = "Run", loop = false },
          move = { motion = { blend = "1d", parameter = "speed", children = { { 0.5, "Walk" }, { 3.0, "Run" } } } },
        }, transitions = { { from = "jump", to = "move", exit_time = 0.5, duration = 0.4 } } } } }, { clips = clips })
      anim:update(0.6) -- in the fade: jump's Run and move's Run
      local _, _, to = anim:state()
      assert.equal("move", to)
      local places, total = 0, 0
      for clip, weight in anim:active() do
        if clip == clips.Run then places, total = places + 1, total + weight end
      end
      assert.equal(2, places)
      local listed = {}
      for _, c in ipairs(anim:debug().layers[1].clips) do
        assert.is_nil(listed[c.clip], c.clip .. " listed twice")
        listed[c.clip] = c
      end
      assert.is_truthy(math.abs(listed.Run.weight - total) < 1e-12)
      assert.is_number(listed.Run.time)
    end)

    it("names a clip given under two names by the first in sorted order", function()
      local anim = sinew.animator({ skeleton = skel, layers = { { states = { go = { motion = "b" } } } } },
        { clips = { b = clips.Run, a = clips.Run, c = clips.Run } })
      assert.equal("a", anim:debug().layers[1].clips[1].clip)
    end)
  end)
  describe("the 2-D modules (sinew.dragonbones rigs and chains)", function()
    local db = sinew.dragonbones
    local mecha = assert(db.load("assets/dragonbones/mecha_1406/mecha_1406_ske.json"))
    local tail = assert(db.load("spec/support/chain2d_ske.json"))
    local slots = "the slots are 'shouder_l', 'foot_l', 'thigh_1_l', 'calf_l', 'thigh_l' and 8 more"
    local anims = "the animations are 'idle', 'walk', 'attack_01', 'death', 'hit' and 3 more"

    -- each case: a call, and its message, raised on the call's own line of this file
    local function check(cases)
      for _, case in ipairs(cases) do
        local info = debug.getinfo(case[1], "S")
        assert.equal(case[2], raised_at(info.linedefined, case[1]))
      end
    end

    it("name the function called, the bone or slot, and the names there are", function()
      local rig = db.rig(mecha)
      check {
        { function() rig:vertices("x", {}) end, "bad argument #1 to 'vertices' (no slot 'x'; " .. slots .. ")" },
        { function() rig:slot_matrix("x") end, "bad argument #1 to 'slot_matrix' (no slot 'x'; " .. slots .. ")" },
        { function() rig:slot_offsets("x") end, "bad argument #1 to 'slot_offsets' (no slot 'x'; " .. slots .. ")" },
        { function() rig:display("x") end, "bad argument #1 to 'display' (no slot 'x'; " .. slots .. ")" },
        { function() rig:set_display("x", 0) end, "bad argument #1 to 'set_display' (no slot 'x'; " .. slots .. ")" },
        { function() rig:mesh("x") end, "bad argument #1 to 'mesh' (no slot 'x'; " .. slots .. ")" },
        { function() rig:child("x") end, "bad argument #1 to 'child' (no slot 'x'; " .. slots .. ")" },
        { function() rig:slot("calf_1") end, "bad argument #1 to 'slot' (no slot 'calf_1'; did you mean 'calf_l'?)" },
        { function() rig:bone("pelvsi") end, "bad argument #1 to 'bone' (no bone 'pelvsi'; did you mean 'pelvis'?)" },
        { function() rig:mesh(0) end, "bad argument #1 to 'mesh' (slot index 0 is out of range (1 .. 13))" },
        { function() rig:bone(0 / 0) end, "bad argument #1 to 'bone' (bone index nan is out of range (1 .. 17))" },
        { function() rig:slot({}) end, "bad argument #1 to 'slot' (a slot's name or index expected, got table)" },
        { function() rig:draw_order("x") end,
          "bad argument #1 to 'draw_order' (a draw position (1 .. 13) expected, got string)" },
        { function() rig:draw_order(14) end, "bad argument #1 to 'draw_order' (draw position 14 is out of range (1 .. 13))" },
        { function() rig:set_display(1, "x") end,
          "bad argument #2 to 'set_display' (a display index (-1 .. 0) expected, got string)" },
        { function() rig:mask({ pelvsi = 1 }) end, "bad argument #1 to 'mask' (no bone 'pelvsi'; did you mean 'pelvis'?)" },
      }
    end)

    it("name the function and argument of an unknown animation", function()
      local rig, group, pose = db.rig(mecha), sinew.group(), db.rig(mecha):pose()
      check {
        { function() rig:play("wlak") end,
          "bad argument #1 to 'play' (no animation 'wlak' in armature 'mecha_1406'; did you mean 'walk'?)" },
        { function() rig:seek("swim", 0) end,
          "bad argument #1 to 'seek' (no animation 'swim' in armature 'mecha_1406'; " .. anims .. ")" },
        { function() rig:group(group, "swim") end,
          "bad argument #2 to 'group' (no animation 'swim' in armature 'mecha_1406'; " .. anims .. ")" },
        { function() rig:apply(pose, "swim", 0) end,
          "bad argument #2 to 'apply' (no animation 'swim' in armature 'mecha_1406'; " .. anims .. ")" },
        { function() rig:apply(pose, 7, 0) end, "bad argument #2 to 'apply' (an animation's name expected, got number)" },
        { function() rig:play(nil) end, "bad argument #1 to 'play' (an animation's name expected, got nil)" },
      }
    end)

    it("check the group of Rig:group", function()
      local rig = db.rig(mecha)
      local pose = sinew.pose(skel)
      check {
        { function() rig:group(nil, "walk") end, "bad argument #1 to 'group' (sinew.Group expected, got nil)" },
        { function() rig:group({}, "walk") end, "bad argument #1 to 'group' (sinew.Group expected, got table)" },
        { function() rig:group(pose, "walk") end, "bad argument #1 to 'group' (sinew.Group expected, got sinew.Pose)" },
        { function() rig:apply(pose) end,
          "bad argument #1 to 'apply' (a 2-D pose of this rig's armature expected, got sinew.Pose)" },
      }
      local group = sinew.group()
      assert.equal(1, rig:group(group, "walk")) -- a group is taken
    end)

    it("name a chain's 2-D method and its own argument for what the 3-D chain refuses", function()
      local chain = db.rig(tail):chain { root = "tail1", max_colliders = 3 }
      local circle = chain:add_collider { shape = "circle", center = { 0, 0 }, radius = 1 }
      local capsule = chain:add_collider { shape = "capsule", a = { 0, 0 }, b = { 5, 0 }, radius = 1 }
      local plane = chain:add_collider { shape = "line", point = { 0, 0 }, normal = { 0, -1 } }
      chain:set_param("damping", 0.25)
      check {
        { function() chain:set_param("nope", 1) end, "bad argument #1 to 'set_param' (unknown parameter 'nope')" },
        { function() chain:set_param("damping", 2) end,
          "bad argument #2 to 'set_param' ('damping' 2 is out of range (0 .. 1))" },
        { function() chain:set_param("damping", 0.1, 9) end,
          "bad argument #3 to 'set_param' (particle 9 is out of range (1 .. 5))" },
        { function() chain:get_param("nope") end, "bad argument #1 to 'get_param' (unknown parameter 'nope')" },
        { function() chain:get_param("damping", "ear") end, "bad argument #2 to 'get_param' (unknown joint 'ear')" },
        { function() chain:add_collider { shape = "circle", center = { 0, 0 } } end,
          "bad argument #1 to 'add_collider' (circle needs 'radius')" },
        { function() chain:move_collider(circle, 0, nil) end,
          "bad argument #3 to 'move_collider' (number expected, got nil)" },
        { function() chain:move_collider(circle, 0, 0, "big") end,
          "bad argument #4 to 'move_collider' (number expected, got string)" },
        { function() chain:move_collider(capsule, 0, 0, 5, nil) end,
          "bad argument #5 to 'move_collider' (number expected, got nil)" },
        { function() chain:move_collider(capsule, 0, 0, 5, 0, 1, 0 / 0) end,
          "bad argument #7 to 'move_collider' (not a finite number)" },
        { function() chain:move_collider(plane, 0, 0, 1, {}) end,
          "bad argument #5 to 'move_collider' (number expected, got table)" },
        { function() chain:move_collider(9, 0, 0) end, "bad argument #1 to 'move_collider' (no collider 9 (1 .. 3))" },
        { function() chain:set_param("end_length", 1) end,
          "bad argument #1 to 'set_param' ('end_length' is fixed when the chain is created)" },
        { function() chain:add_collider { shape = "circle", center = { 0, 0 }, radius = 1 } end,
          "'add_collider': no room for another collider ('max_colliders' is 3)" },
      }
      -- the refused calls changed nothing
      assert.equal(0.25, chain:get_param("damping"))
      assert.equal(0.25, chain:get_param("damping", 5))
      assert.equal("bad argument #1 to 'move_collider' (no collider 4 (1 .. 3))",
        helper.error_of(chain.move_collider, chain, 4, 0, 0))
    end)

    it("blame the caller of sinew.dragonbones.rig, whose Rig.new is internal", function()
      check {
        { function() db.rig({}) end, "bad argument #1 to 'rig' (DragonBones data expected, got table)" },
        { function() db.rig(mecha, 5) end, "bad argument #2 to 'rig' (string expected, got number)" },
      }
      -- the comment block above `function Rig.new(` opens with `--`, not LDoc's `---`
      local lines = {}
      for l in helper.read_file("lua/sinew/dragonbones/rig.lua"):gmatch("[^\n]*") do lines[#lines + 1] = l end
      local at
      for i, l in ipairs(lines) do if l:find("^function Rig%.new%(") then at = i end end
      assert.is_number(at)
      local first = at - 1
      while first > 1 and lines[first - 1]:find("^%-%-") do first = first - 1 end
      assert.is_true(first < at, "Rig.new has no comment")
      assert.is_nil(lines[first]:find("^%-%-%-"), "Rig.new has an LDoc comment (the reference would show it)")
    end)

    it("never reach the user as an internal error, whatever the arguments", function()
      -- every public method with a value of each kind in each of its first three places: a
      -- "bad argument" naming the method (or a result), never "attempt to ..." or a '?' name
      local rig = db.rig(mecha)
      local chain = db.rig(tail):chain { root = "tail1" }
      chain:add_collider { shape = "circle", center = { 0, 0 }, radius = 1 }
      local values = { nil, 5, {}, "zzz", 0 / 0, true, -1, math.huge, sinew.group() }
      local n = 9
      local function try_all(object, names)
        for _, name in ipairs(names) do
          for i = 1, n do
            for j = 1, n do
              for _, k in ipairs { 1, 2, 5 } do
                local ok, err = pcall(object[name], object, values[i], values[j], values[k])
                if not ok then
                  err = tostring(err)
                  assert.is_nil(err:find("attempt to", 1, true), name .. ": " .. err)
                  assert.is_nil(err:find("'?'", 1, true), name .. ": " .. err)
                  assert.is_truthy(err:find("'" .. name .. "'", 1, true), name .. ": " .. err)
                end
              end
            end
          end
        end
      end
      try_all(rig, { "play", "seek", "update", "bone", "slot", "vertices", "slot_matrix", "slot_offsets", "draw_order",
        "display", "set_display", "mesh", "child", "group", "mask", "apply", "chain" })
      try_all(chain, { "step", "position", "set_param", "get_param", "add_collider", "move_collider" })
    end)
  end)
end)
