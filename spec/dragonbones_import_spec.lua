-- sinew.dragonbones: DragonBones 5.0/5.5 exports into the 2-D data model (issue 23). The samples
-- load, their counts match what this spec counts in the raw JSON itself, specific numbers match
-- hand computations written here (normalizeRadian, rotation unwrapping, curve sampling, bind
-- vertices, z-order expansion, action order), every bad input gives nil and its message, and
-- mutated files never raise (in a child process, capped).
local helper = require "helper"
local sinew = require "sinew"
local dkjson = require "dkjson"

local db = sinew.dragonbones
local read = helper.read_file

local pi, fmod, floor = math.pi, math.fmod, math.floor
local DEG = pi / 180

-- the raw JSON of a file, decoded here (not by the importer)
local function raw(path)
  local doc, _, err = dkjson.decode(read(path), 1, nil)
  assert(doc, err)
  return doc
end

local function text(doc) return (assert(dkjson.encode(doc))) end

local SAMPLES = {}
for dir in ("dragon_boy effect floor_board mecha_1004d mecha_1406 mecha_1502b progress_bar replace_slot_display " ..
  "you_xin_20703016 you_xin_body"):gmatch("%S+") do
  local p = assert(io.popen("ls assets/dragonbones/" .. dir .. "/*_ske.json"))
  SAMPLES[#SAMPLES + 1] = p:read("*l")
  p:close()
end

-- normalizeRadian as the runtime writes it (JavaScript's % keeps the dividend's sign: fmod)
local function normalize(v)
  v = fmod(v + pi, 2 * pi)
  if v > 0 then return v - pi end
  return v + pi
end

local function list(t, key)
  local v = t[key]
  if type(v) == "table" then return v end
  return {}
end

-- the keys of every timeline of raw animation `a`, counted by kind
local function raw_counts(a)
  local c = { bone = 0, slot = 0, ffd = 0, zorder = 0 }
  for _, t in ipairs(list(a, "bone")) do
    c.bone = c.bone + 3 * #list(t, "frame") + #list(t, "translateFrame") + #list(t, "rotateFrame") +
      #list(t, "scaleFrame")
  end
  for _, t in ipairs(list(a, "slot")) do
    local display = t.displayFrame and #t.displayFrame or #list(t, "frame")
    local color = t.colorFrame and #t.colorFrame or #list(t, "frame")
    c.slot = c.slot + display + color
  end
  for _, t in ipairs(list(a, "ffd")) do c.ffd = c.ffd + #list(t, "frame") end
  if type(a.zOrder) == "table" then c.zorder = #list(a.zOrder, "frame") end
  return c
end

local function model_counts(anim)
  local c = { bone = 0, slot = 0, ffd = 0, zorder = anim.zorder and #anim.zorder or 0 }
  for _, t in ipairs(anim.bones) do
    c.bone = c.bone + #(t.translate or {}) + #(t.rotate or {}) + #(t.scale or {})
  end
  for _, t in ipairs(anim.slots) do c.slot = c.slot + #(t.display or {}) + #(t.color or {}) end
  for _, t in ipairs(anim.ffd) do c.ffd = c.ffd + #t.keys end
  return c
end

describe("sinew.dragonbones.load", function()
  for _, path in ipairs(SAMPLES) do
    it("loads " .. path .. " with the counts of its JSON", function()
      local data, err = db.load(path)
      assert.is_nil(err)
      local doc = raw(path)
      assert.equal(#doc.armature, #data.armatures)
      assert.equal(doc.frameRate or 24, data.frame_rate)
      assert.equal(path, data.file)
      for i, a in ipairs(doc.armature) do
        local arm = data.armatures[i]
        assert.equal(a.name, arm.name)
        assert.equal(arm, data.armatures[a.name])
        assert.equal(#list(a, "bone"), #arm.bones)
        assert.equal(#list(a, "slot"), #arm.slots)
        assert.equal(#list(a, "ik"), #arm.ik)
        assert.equal(#list(a, "skin"), #arm.skins)
        assert.equal(#list(a, "animation"), #arm.animations)
        for j, b in ipairs(list(a, "bone")) do
          assert.equal(b.name, arm.bones[j].name)
          assert.equal(j, arm.bone[b.name])
          if b.parent then assert.equal(b.parent, arm.bones[arm.bones[j].parent].name) end
        end
        for j, s in ipairs(list(a, "slot")) do assert.equal(s.parent, arm.bones[arm.slots[j].bone].name) end
        for j, an in ipairs(list(a, "animation")) do
          local anim = arm.animations[j]
          assert.equal(an.name, anim.name)
          assert.equal(anim, arm.animations[an.name])
          assert.equal(an.duration or 1, anim.duration)
          assert.equal(an.playTimes or 1, anim.play_times)
          assert.same(raw_counts(an), model_counts(anim))
          -- every key starts at the sum of the durations before it (no sample has 0-length keys
          -- inside a timeline) and the last one at most at the animation's end
          for _, t in ipairs(anim.bones) do
            for _, keys in ipairs { t.translate or {}, t.rotate or {}, t.scale or {} } do
              local at = 0
              for _, k in ipairs(keys) do
                assert.equal(at, k.frame)
                at = at + k.duration
              end
            end
          end
        end
      end
      assert.is_table(data.atlas)
      assert.matches("_tex%.json$", data.atlas.file)
      assert.matches("_tex%.png$", data.atlas.image)
      local tex = raw(data.atlas.file)
      local n = 0
      for _, t in pairs(data.atlas.textures) do
        n = n + 1
        assert.is_number(t.width)
      end
      assert.equal(#tex.SubTexture, n)
    end)
  end

  it("gives the durations and play counts of mecha_1502b, 0-frame animations included", function()
    local data = assert(db.load("assets/dragonbones/mecha_1502b/mecha_1502b_ske.json"))
    local arm = data.armatures.mecha_1502b
    assert.equal(5, arm.animations.attack_01.play_times)
    assert.equal(10, arm.animations.attack_02_1.play_times)
    assert.equal(0, arm.animations.idle.play_times)
    local jump = arm.animations.jump_1
    assert.equal(0, jump.duration)
    assert.equal(1, jump.frame_count) -- the parser's frameCount: a 0-frame animation lasts one frame
    assert.equal(24, jump.frame_rate)
    for _, t in ipairs(jump.bones) do
      for _, keys in ipairs { t.translate or {}, t.rotate or {}, t.scale or {} } do
        for _, k in ipairs(keys) do
          assert.equal(0, k.frame)
          assert.equal("none", k.tween) -- a key of 0 frames never tweens
        end
      end
    end
    assert.equal("idle", arm.default_animation) -- defaultActions: gotoAndPlay idle
  end)

  it("reads 5.0 keys (dragon_boy): transform, tweenEasing, keys back to back", function()
    local path = "assets/dragonbones/dragon_boy/dragon_boy_ske.json"
    local data = assert(db.load(path))
    local doc = raw(path)
    local checked = 0
    for i, a in ipairs(doc.armature) do
      local arm = data.armatures[i]
      for j, an in ipairs(a.animation) do
        for k, t in ipairs(an.bone) do
          local tl = arm.animations[j].bones[k]
          assert.equal(t.name, arm.bones[tl.bone].name)
          local frame, prev = 0, 0
          for q, key in ipairs(t.frame) do
            local tr = key.transform or {}
            local e = key.tweenEasing
            local n = #t.frame
            local count = q == n and math.max(an.duration or 1, 1) - frame or (key.duration or 1)
            local tween = (count <= 0 or e == nil) and "none" or e == 0 and "linear" or e < 0 and "quad_in" or
              e <= 1 and "quad_out" or "quad_in_out"
            local rot = normalize((tr.skY or 0) * DEG)
            if q > 1 then rot = prev + normalize(rot - prev) end -- no tweenRotate in this file
            prev = rot
            local skew = normalize((tr.skX or 0) * DEG) - normalize((tr.skY or 0) * DEG)
            local got_t, got_r, got_s = tl.translate[q], tl.rotate[q], tl.scale[q]
            assert.equal(frame, got_t.frame)
            assert.equal(tween, got_t.tween)
            assert.equal(tr.x or 0, got_t.x)
            assert.equal(tr.y or 0, got_t.y)
            assert.equal(rot, got_r.rotation)
            assert.equal(skew, got_r.skew)
            assert.equal(tr.scX or 1, got_s.x)
            assert.equal(tr.scY or 1, got_s.y)
            frame = frame + (key.duration or 1)
            checked = checked + 1
          end
        end
      end
    end
    assert.is_true(checked > 100)
  end)

  it("unwraps mecha_1004d's clockwise key as the parser does", function()
    local data = assert(db.load("assets/dragonbones/mecha_1004d/mecha_1004d_ske.json"))
    local anim = data.armatures.mecha_1004d.animations.attack_01
    local doc = raw("assets/dragonbones/mecha_1004d/mecha_1004d_ske.json")
    local raw_keys
    for _, a in ipairs(doc.armature) do
      if a.name == "mecha_1004d" then
        for _, an in ipairs(a.animation) do
          if an.name == "attack_01" then
            for _, t in ipairs(an.bone) do
              if t.name == "weapon_hand_r" then raw_keys = t.rotateFrame end
            end
          end
        end
      end
    end
    assert.equal(1, raw_keys[3].clockwise)
    local keys
    for _, t in ipairs(anim.bones) do
      if data.armatures.mecha_1004d.bones[t.bone].name == "weapon_hand_r" then keys = t.rotate end
    end
    -- the unwrapping, written out: key 3 turns clockwise once; 38.81 >= -179.75, so the count
    -- drops to 0 and key 4 lands at +38.81 degrees (the long way round), not at -321.19
    local prev, c = nil, 0
    for q, key in ipairs(raw_keys) do
      local r = (key.rotate or 0) * DEG
      if q > 1 then
        if c == 0 then
          r = prev + normalize(r - prev)
        else
          if (c > 0 and r >= prev) or (c < 0 and r <= prev) then c = c > 0 and c - 1 or c + 1 end
          r = prev + r - prev + 2 * pi * c
        end
      end
      prev, c = r, key.clockwise or 0
      assert.equal(r, keys[q].rotation)
    end
    assert.near(38.81 * DEG, keys[4].rotation, 1e-12)
    assert.is_true(math.abs(keys[4].rotation - keys[3].rotation) > pi) -- the long way
  end)

  it("samples effect's curves as the parser does (bisection, the last midpoint's y, x 10000)", function()
    local path = "assets/dragonbones/effect/effect_ske.json"
    local data = assert(db.load(path))
    -- a simple bisection, written here: single-segment curves (all of effect's)
    local function sample(c, n)
      local out = {}
      for i = 1, n do
        local t = i / (n + 1)
        local lo, hi, y = 0, 1, nil
        while hi - lo > 1e-4 do
          local p = (lo + hi) / 2
          local q = 1 - p
          local x = 3 * p * q * q * c[1] + 3 * p * p * q * c[3] + p * p * p
          y = 3 * p * q * q * c[2] + 3 * p * p * q * c[4] + p * p * p
          if t > x then lo = p else hi = p end
        end
        out[i] = floor(y * 10000 + 0.5)
      end
      return out
    end
    local kinds = { translateFrame = "translate", rotateFrame = "rotate", scaleFrame = "scale" }
    local checked = 0
    for _, a in ipairs(raw(path).armature) do
      local arm = data.armatures[a.name]
      for _, an in ipairs(list(a, "animation")) do
        local anim = arm.animations[an.name]
        for _, rt in ipairs(list(an, "bone")) do
          local tl
          for _, t in ipairs(anim.bones) do
            if arm.bones[t.bone].name == rt.name then tl = t end
          end
          for kind, field in pairs(kinds) do
            local keys, at = list(rt, kind), 0
            for q, rk in ipairs(keys) do
              if rk.curve then
                local count = q < #keys and (rk.duration or 1) or math.max(an.duration or 1, 1) - at
                assert.same(sample(rk.curve, count + 1), tl[field][q].samples)
                assert.equal("curve", tl[field][q].tween)
                checked = checked + 1
              end
              at = at + (rk.duration or 1)
            end
          end
        end
      end
    end
    assert.is_true(checked >= 3)
  end)

  it("samples a multi-segment curve as the 5.6.2 parser does (first and last segments from (0,0) to (1,1))", function()
    -- expected values: the parser's own frameArray for these keys (DragonBones 5.6.2 run in node)
    local doc = { version = "5.5", armature = { { name = "a", bone = { { name = "b" } },
      animation = { { name = "c", duration = 12, bone = { { name = "b", translateFrame = {
        { duration = 4, curve = { 0.2, 0, 0.3, 1, 0.5, 0.5, 0.6, 0.2, 0.8, 0.9 } },
        { duration = 4, curve = { 0.1, 0.3, 0.2, 1.8, 0.4, 0.6, 0.5, 0.1, 0.6, 0.4, 0.7, -0.5, 0.9, 1.5, 0.95, 0.9 } },
        { duration = 4, x = 1, tweenEasing = 0.3 } } } } } } } } }
    local keys = assert(db.parse(text(doc))).armatures[1].animations[1].bones[1].translate
    assert.same({ 2052, 5370, 7700, 5613, 8142 }, keys[1].samples)
    assert.same({ 7181, 10829, 2926, -2416, 10300 }, keys[2].samples)
    assert.equal("quad_out", keys[3].tween)
    assert.equal(30, keys[3].amount)
  end)

  it("gives setup rotations through normalizeRadian with JavaScript's %", function()
    local doc = { version = "5.5", armature = { { name = "a", bone = {
      { name = "a", transform = { rotate = -180 } },
      { name = "b", transform = { rotate = 180 } },
      { name = "c", transform = { skX = -190, skY = -190 } },
      { name = "d", transform = { rotate = 540, skew = -0.0001 } } } } } }
    local bones = assert(db.parse(text(doc))).armatures[1].bones
    assert.equal(pi, bones[1].rotation) -- (-PI + PI) % 2PI = 0, and 0 maps to +PI
    assert.equal(pi, bones[2].rotation)
    assert.equal(normalize(-190 * DEG), bones[3].rotation)
    assert.equal(0, bones[3].skew) -- skX - skY
    assert.equal(normalize(540 * DEG), bones[4].rotation)
    assert.equal(normalize(-0.0001 * DEG), bones[4].skew)
    -- Lua's % (the sign of the divisor) would give another number for -190 degrees
    local lua_mod = (-190 * DEG + pi) % (2 * pi)
    lua_mod = lua_mod > 0 and lua_mod - pi or lua_mod + pi
    assert.are_not.equal(lua_mod, bones[3].rotation)
  end)

  it("computes weighted bind vertices in bone space (you_xin body): bonePose x (bx, by) = slotPose x v", function()
    local path = "assets/dragonbones/you_xin_body/body_ske.json"
    local data = assert(db.load(path))
    local doc = raw(path)
    local arm = data.armatures[1]
    local meshes = 0
    for si, skin in ipairs(doc.armature[1].skin) do
      for _, rs in ipairs(skin.slot) do
        for q, d in ipairs(rs.display) do
          if d.weights then
            meshes = meshes + 1
            local model = arm.skins[si].slots[arm.slot[rs.name]][q]
            local sp, bp = d.slotPose, d.bonePose
            local pose = {}
            for k = 1, #bp, 7 do -- the first entry of a bone counts
              pose[bp[k] + 1] = pose[bp[k] + 1] or { bp[k + 1], bp[k + 2], bp[k + 3], bp[k + 4], bp[k + 5], bp[k + 6] }
            end
            local w, i = model.weights, 1
            for v = 1, #d.vertices / 2 do
              local x, y = d.vertices[2 * v - 1], d.vertices[2 * v]
              local px, py = sp[1] * x + sp[3] * y + sp[5], sp[2] * x + sp[4] * y + sp[6]
              local n = w[i]
              i = i + 1
              for _ = 1, n do
                local m = pose[w[i]]
                local bx, by = w[i + 2], w[i + 3]
                assert.near(px, m[1] * bx + m[3] * by + m[5], 1e-9 * (1 + math.abs(px)))
                assert.near(py, m[2] * bx + m[4] * by + m[6], 1e-9 * (1 + math.abs(py)))
                i = i + 4
              end
            end
            assert.equal(#model.weights, i - 1)
            assert.same(sp, model.slot_pose)
          end
        end
      end
    end
    assert.equal(7, meshes)
  end)

  it("expands z-order moves into full draw orders", function()
    local slots = {}
    for i = 0, 5 do slots[#slots + 1] = { name = "s" .. i, parent = "b" } end
    local doc = { version = "5.5", armature = { { name = "a", bone = { { name = "b" } }, slot = slots,
      animation = { { name = "z", duration = 10, zOrder = { frame = {
        { duration = 2, zOrder = { 1, 2, 3, -3 } }, { duration = 3 }, { duration = 5, zOrder = { 0, 5, 4, -4 } } } } } } } } }
    local z = assert(db.parse(text(doc))).armatures[1].animations.z.zorder
    -- slot 1 moves 2 places down (to place 3), slot 3 to the top; the others fill in order
    assert.same({ 4, 1, 3, 2, 5, 6 }, z[1].order)
    assert.is_nil(z[2].order) -- no zOrder: the setup order
    assert.same({ 5, 2, 3, 4, 6, 1 }, z[3].order)
    assert.same({ 0, 2, 5 }, { z[1].frame, z[2].frame, z[3].frame })
  end)

  it("lists each action frame's items in firing order: event, sound, action, events, actions", function()
    local doc = { version = "5.5", armature = { { name = "a", bone = { { name = "b" } }, slot = { { name = "s", parent = "b" } },
      animation = { { name = "x", duration = 12, frame = {
        { duration = 5, events = { { name = "e1", bone = "b", ints = { 1, 2 }, strings = { "k" } } }, sound = "snd" },
        { duration = 7, event = "old", actions = { { gotoAndPlay = "x", slot = "s" } } } } } } } } }
    local anim = assert(db.parse(text(doc))).armatures[1].animations.x
    local a = anim.actions
    assert.equal(2, #a)
    assert.same({ 0, 5 }, { a[1].frame, a[2].frame })
    assert.same({ 5, 7 }, { a[1].duration, a[2].duration })
    assert.same({ "sound", "event" }, { a[1].items[1].kind, a[1].items[2].kind })
    assert.same({ "snd", "e1" }, { a[1].items[1].name, a[1].items[2].name })
    assert.equal(1, a[1].items[2].bone)
    assert.same({ 1, 2 }, a[1].items[2].ints)
    assert.same({ "k" }, a[1].items[2].strings)
    assert.same({ "event", "play" }, { a[2].items[1].kind, a[2].items[2].kind })
    assert.equal("x", a[2].items[2].animation)
    assert.equal(1, a[2].items[2].slot)
  end)

  it("moves a 5.0 bone key's event after the later frame the parser merges it behind", function()
    -- the parser inserts a new action frame after the first frame that starts later: an event of
    -- a bone key at frame 3 fires at frame 6 when the animation has events at 0, 5 and 9
    local doc = { version = "5.0", armature = { { name = "a", bone = { { name = "b" } },
      animation = { { name = "x", duration = 12,
        frame = { { duration = 5, event = "a0" }, { duration = 4, event = "a5" }, { duration = 3, event = "a9" } },
        bone = { { name = "b", frame = { { duration = 3 }, { duration = 9, event = "b3" } } } } } } } } }
    local a = assert(db.parse(text(doc))).armatures[1].animations.x.actions
    local got = {}
    for _, k in ipairs(a) do got[#got + 1] = k.frame .. ":" .. k.items[1].name end
    assert.same({ "0:a0", "5:a5", "6:b3", "9:a9" }, got)
  end)

  it("stores colour keys as the parser's integers and deform keys per weight entry", function()
    local doc = { version = "5.5", armature = { { name = "a",
      bone = { { name = "b" }, { name = "c", parent = "b" } },
      slot = { { name = "s", parent = "b", color = { aM = 50.5, rO = -20 } } },
      skin = { { slot = { { name = "s", display = { { name = "m", type = "mesh", vertices = { 0, 0, 10, 0, 0, 10 },
        uvs = { 0, 0, 1, 0, 0, 1 }, triangles = { 0, 1, 2 }, weights = { 1, 0, 1, 2, 0, 0.5, 1, 0.5, 1, 1, 1 },
        slotPose = { 0, 1, -1, 0, 3, 4 }, bonePose = { 0, 1, 0, 0, 1, 0, 0, 1, 2, 0, 0, 2, 5, 5 } } } } } } },
      animation = { { name = "x", duration = 4,
        slot = { { name = "s", colorFrame = { { duration = 4, value = { aM = 33.335, gO = -12.5 } } } } },
        ffd = { { name = "m", slot = "s", frame = { { duration = 4, offset = 1, vertices = { 2, 4, 6 } } } } } } } } } }
    local arm = assert(db.parse(text(doc))).armatures[1]
    assert.same({ 50.5, 100, 100, 100, 0, -20, 0, 0 }, arm.slots[1].color) -- the file's numbers
    local key = arm.animations.x.slots[1].color[1]
    assert.same({ 33, 100, 100, 100, 0, 0, -12, 0 }, key.color) -- Math.round(33.335), Math.round(-12.5)
    -- deform: offset 1 puts 2, 4, 6 at y0, x1, y1; each delta turned by the slot pose's linear
    -- part (x, y) -> (-y, x), then by each weight's inverse bind (bone 0: identity; bone 1: /2)
    local v = arm.animations.x.ffd[1].keys[1].vertices
    assert.equal(2 * 4, #v) -- 4 weight entries
    assert.same({ -2, 0 }, { v[1], v[2] })          -- vertex 0, bone 0: (0, 2) -> (-2, 0)
    assert.same({ -6, 4, -3, 2 }, { v[3], v[4], v[5], v[6] }) -- vertex 1: (4, 6) -> (-6, 4), /2
    assert.same({ 0, 0 }, { v[7], v[8] })           -- vertex 2: nothing
    local w = arm.skins[1].slots[1][1].weights
    -- vertex 1 = (10, 0) -> slot pose (3, 14); bone 1 bind: x2 then +5 -> ((3-5)/2, (14-5)/2)
    assert.same({ 2, 1, 0.5, 3, 14, 2, 0.5, -1, 4.5 }, { w[6], w[7], w[8], w[9], w[10], w[11], w[12], w[13], w[14] })
  end)

  it("reads the atlas beside the skeleton through options.read, and skips it with atlas = false", function()
    local ske = read("assets/dragonbones/floor_board/floor_board_ske.json")
    local tex = read("assets/dragonbones/floor_board/floor_board_tex.json")
    local files = { ["d/f_ske.json"] = ske, ["d/f_tex.json"] = tex, ["d/floor_board_tex.png"] = "png" }
    local asked = {}
    local function reader(path)
      asked[#asked + 1] = path
      if files[path] then return files[path] end
      return nil, "no file " .. path
    end
    local data = assert(db.load("d/f_ske.json", { read = reader }))
    assert.equal("d/f_tex.json", data.atlas.file)
    assert.equal("d/floor_board_tex.png", data.atlas.image)
    assert.same({ "d/f_ske.json", "d/f_tex.json", "d/floor_board_tex.png" }, asked)
    local n = 0
    for _ in pairs(data.atlas.textures) do n = n + 1 end
    assert.equal(#raw("assets/dragonbones/floor_board/floor_board_tex.json").SubTexture, n)
    asked = {}
    assert.is_nil(assert(db.load("d/f_ske.json", { read = reader, atlas = false })).atlas)
    assert.same({ "d/f_ske.json" }, asked)
    files["d/f_tex.json"] = nil
    assert.is_nil(assert(db.load("d/f_ske.json", { read = reader })).atlas) -- no atlas file: none
    files["d/f_tex.json"] = tex:sub(1, 50)
    local d, err = db.load("d/f_ske.json", { read = reader })
    assert.is_nil(d)
    assert.matches("^f_tex%.json: the JSON does not parse: ", err)
    files["d/f_tex.json"], files["d/floor_board_tex.png"] = tex, nil
    assert.same({ nil, "f_tex.json: imagePath: cannot read 'd/floor_board_tex.png': no file d/floor_board_tex.png" },
      { db.load("d/f_ske.json", { read = reader }) })
    assert.same({ nil, "f_ske.json: cannot read the file: no file d/f_ske.json" },
      { db.load("d/f_ske.json", { read = function(p) return nil, "no file " .. p end }) })
  end)

  it("takes options.json as the decoder", function()
    local calls = 0
    local data = assert(db.parse('{"version":"5.5"}', { json = function(s)
      calls = calls + 1
      return dkjson.decode(s)
    end }))
    assert.equal(1, calls)
    assert.same({}, data.armatures)
  end)

  it("raises for bad arguments only", function()
    assert.has_error(function() db.load(nil) end, "bad argument #1 to 'load' (string expected, got nil)")
    assert.has_error(function() db.parse(1) end, "bad argument #1 to 'parse' (string expected, got number)")
    assert.has_error(function() db.parse("{}", "x") end, "options must be a table (got string)")
    assert.has_error(function() db.parse("{}", { skin = 1 }) end, "unknown option 'skin'")
    assert.has_error(function() db.parse("{}", { json = 1 }) end, "option 'json' must be a function (got number)")
    assert.has_error(function() db.load("x", { atlas = "no" }) end, "option 'atlas' must be a boolean (got string)")
  end)
end)

-- ---- bad input -----------------------------------------------------------------------------------

-- a small good file; each case spoils it
local function base()
  return { version = "5.5", frameRate = 24, name = "t", armature = { {
    name = "a",
    bone = { { name = "root" }, { name = "arm", parent = "root", length = 10 } },
    slot = { { name = "s", parent = "arm" } },
    ik = { { name = "k", bone = "arm", target = "root" } },
    skin = { { name = "", slot = { { name = "s", display = {
      { name = "img" },
      { name = "m", type = "mesh", vertices = { 0, 0, 10, 0, 10, 10 }, uvs = { 0, 0, 1, 0, 1, 1 }, triangles = { 0, 1, 2 },
        weights = { 1, 0, 1, 2, 0, 0.5, 1, 0.5, 1, 1, 1 }, slotPose = { 1, 0, 0, 1, 0, 0 },
        bonePose = { 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, -1, 0, 5, 0 } } } } } } },
    animation = { { name = "idle", duration = 10,
      bone = { { name = "arm", translateFrame = { { duration = 5, tweenEasing = 0, x = 1 }, { duration = 5, x = 2 } } } },
      slot = { { name = "s", displayFrame = { { duration = 10, value = 1 } } } },
      ffd = { { name = "m", slot = "s", frame = { { duration = 10, vertices = { 1, 1 } } } } } } },
  } } }
end

local A = "t_ske.json: armature[0]."
local D = A .. "skin[0].slot[0].display[1]."
local BAD = {
  { "truncated JSON", function() return '{"version":"5.5","armature":[{"name":' end,
    "^t_ske%.json: the JSON does not parse: " },
  { "a top level that is not an object", function() return "[1, 2]" end, "t_ske.json: must be an object (got an array)" },
  { "an unknown version", function(d) d.version = "4.5" end,
    "t_ske.json: version: DragonBones data version '4.5' is not supported (5.0 or 5.5)" },
  { "no version", function(d) d.version = nil end,
    "t_ske.json: version: DragonBones data version null is not supported (5.0 or 5.5)" },
  { "armature not an array", function(d) d.armature = { x = 1 } end, "t_ske.json: armature: must be an array (got an object)" },
  { "a bone name that is a number", function(d) d.armature[1].bone[2].name = 7 end,
    A .. "bone[1].name: must be a string (got a number)" },
  { "a bone length that is a string", function(d) d.armature[1].bone[2].length = "10" end,
    A .. "bone[1].length: must be a number (got a string)" },
  { "a transform that is an array", function(d) d.armature[1].bone[1].transform = { 1, 2 } end,
    A .. "bone[0].transform: must be an object (got an array)" },
  { "an infinite number (1e400)", function() return (text(base()):gsub('"length":10', '"length":1e400')) end,
    A .. "bone[1].length: inf is not a finite number within float range" },
  { "a number past float range", function(d) d.armature[1].bone[2].length = 1e39 end,
    A .. "bone[1].length: 1e+39 is not a finite number within float range" },
  { "a missing parent", function(d) d.armature[1].bone[2].parent = "hip" end, A .. "bone[1].parent: unknown bone 'hip'" },
  { "a bone its own parent", function(d) d.armature[1].bone[1].parent = "root" end,
    A .. "bone[0].parent: bone 'root' is its own ancestor" },
  { "a cycle of parents", function(d) d.armature[1].bone[1].parent = "arm" end,
    A .. "bone[0].parent: bone 'root' is its own ancestor" },
  { "two bones of one name", function(d) d.armature[1].bone[2].name = "root" end,
    A .. "bone[1].name: a second bone named 'root' (bone 0)" },
  { "a surface bone", function(d) d.armature[1].bone[2].type = "surface" end,
    A .. "bone[1].type: surfaces (DragonBones 5.6) are not supported" },
  { "10001 bones", function(d)
    local bones = {}
    for i = 1, 10001 do bones[i] = { name = "b" .. i } end
    d.armature[1].bone = bones
  end, A .. "bone: has 10001 bones, more than the limit of 10000" },
  { "an IK naming an unknown bone", function(d) d.armature[1].ik[1].bone = "leg" end, A .. "ik[0].bone: unknown bone 'leg'" },
  { "an IK naming an unknown target", function(d) d.armature[1].ik[1].target = "x" end, A .. "ik[0].target: unknown bone 'x'" },
  { "an IK whose root waits for its own child", function(d)
    d.armature[1].ik[1] = { name = "k", bone = "root", target = "arm" }
  end, A .. "ik[0]: the bones cannot be ordered: root 'root' must follow target 'arm', which follows it" },
  { "a slot naming an unknown bone", function(d) d.armature[1].slot[1].parent = "leg" end,
    A .. "slot[0].parent: unknown bone 'leg'" },
  { "two slots of one name", function(d) d.armature[1].slot[2] = { name = "s", parent = "root" } end,
    A .. "slot[1].name: a second slot named 's' (slot 0)" },
  { "a display index below -1", function(d) d.armature[1].slot[1].displayIndex = -2 end,
    A .. "slot[0].displayIndex: -2 is out of range (-1 .. 2147483647)" },
  { "a fractional display index", function(d) d.armature[1].slot[1].displayIndex = 0.5 end,
    A .. "slot[0].displayIndex: must be an integer (got 0.5)" },
  { "a skin naming an unknown slot", function(d) d.armature[1].skin[1].slot[1].name = "t" end,
    A .. "skin[0].slot[0].name: unknown slot 't'" },
  { "an unknown display type", function(d) d.armature[1].skin[1].slot[1].display[1].type = "sprite" end,
    A .. "skin[0].slot[0].display[0].type: unknown display type 'sprite'" },
  { "a triangle index out of range", function(d) d.armature[1].skin[1].slot[1].display[2].triangles[3] = 3 end,
    D .. "triangles[2]: vertex index 3 is out of range (3 vertices)" },
  { "triangles not in triples", function(d) d.armature[1].skin[1].slot[1].display[2].triangles[4] = 0 end,
    D .. "triangles: has 4 indices, not triples" },
  { "uvs of another count", function(d) d.armature[1].skin[1].slot[1].display[2].uvs[7] = 0 end,
    D .. "uvs: has 7 numbers for 3 vertices (6 expected)" },
  { "odd vertices", function(d) d.armature[1].skin[1].slot[1].display[2].vertices[7] = 0 end,
    D .. "vertices: has 7 numbers, not pairs" },
  { "a weight's bone index out of range", function(d) d.armature[1].skin[1].slot[1].display[2].weights[2] = 2 end,
    D .. "weights[1]: bone index 2 is out of range (2 bones)" },
  { "a weight's bone not in bonePose", function(d)
    local m = d.armature[1].skin[1].slot[1].display[2]
    m.bonePose = { 1, 1, 0, 0, 1, 0, 0 }
  end, D .. "weights[1]: bone 0 is not in bonePose" },
  { "too few weights", function(d) table.remove(d.armature[1].skin[1].slot[1].display[2].weights) end,
    D .. "weights: has 10 numbers, too few for 3 vertices" },
  { "too many weights", function(d) table.insert(d.armature[1].skin[1].slot[1].display[2].weights, 0) end,
    D .. "weights: has 12 numbers, 1 more than its 3 vertices need" },
  { "a singular bind matrix", function(d) d.armature[1].skin[1].slot[1].display[2].bonePose[2] = 0 end,
    D .. "bonePose[0]: the bind matrix of bone 0 is singular" },
  { "no slotPose", function(d) d.armature[1].skin[1].slot[1].display[2].slotPose = nil end,
    D .. "slotPose: a weighted mesh needs 6 numbers (a, b, c, d, tx, ty)" },
  { "a shared mesh", function(d) d.armature[1].skin[1].slot[1].display[2].share = "x" end,
    D .. "share: shared meshes are not supported" },
  { "a child armature not in the file", function(d)
    d.armature[1].skin[1].slot[1].display[1] = { name = "other", type = "armature" }
  end, A .. "skin[0].slot[0].display[0].path: unknown armature 'other'" },
  { "an armature that contains itself", function(d)
    d.armature[1].skin[1].slot[1].display[1] = { name = "a", type = "armature" }
  end, A .. "skin[0].slot[0].display[0].path: armature 'a' contains itself" },
  { "two animations of one name", function(d) d.armature[1].animation[2] = { name = "idle" } end,
    A .. "animation[1].name: a second animation named 'idle'" },
  { "a negative duration", function(d) d.armature[1].animation[1].duration = -1 end,
    A .. "animation[0].duration: -1 is out of range (0 .. 32767)" },
  { "a key duration that is a string", function(d)
    d.armature[1].animation[1].bone[1].translateFrame[1].duration = "5"
  end, A .. "animation[0].bone[0].translateFrame[0].duration: must be an integer (got a string)" },
  { "a key past the end", function(d) d.armature[1].animation[1].duration = 4 end,
    A .. "animation[0].bone[0].translateFrame[1]: starts at frame 5, after the end of the animation (4 frames)" },
  { "a timeline of an unknown bone", function(d) d.armature[1].animation[1].bone[1].name = "leg" end,
    A .. "animation[0].bone[0].name: unknown bone 'leg'" },
  { "a timeline of an unknown slot", function(d) d.armature[1].animation[1].slot[1].name = "t" end,
    A .. "animation[0].slot[0].name: unknown slot 't'" },
  { "a timeline scale", function(d) d.armature[1].animation[1].bone[1].scale = 2 end,
    A .. "animation[0].bone[0].scale: timeline scale is not supported" },
  { "a curve of 5 numbers", function(d)
    d.armature[1].animation[1].bone[1].translateFrame[1].curve = { 0, 0, 1, 1, 0 }
  end, A .. "animation[0].bone[0].translateFrame[0].curve: has 5 numbers, not 4 + 6k (two control points, then a " ..
    "point and two per segment)" },
  { "deform keys of a display that is not a mesh", function(d) d.armature[1].animation[1].ffd[1].name = "img" end,
    A .. "animation[0].ffd[0].name: display 'img' is not a mesh" },
  { "deform keys of an unknown display", function(d) d.armature[1].animation[1].ffd[1].name = "q" end,
    A .. "animation[0].ffd[0].name: slot 's' has no display 'q' in skin 'default'" },
  { "an event naming an unknown bone", function(d)
    d.armature[1].animation[1].frame = { { events = { { name = "e", bone = "leg" } } } }
  end, A .. "animation[0].frame[0].events[0].bone: unknown bone 'leg'" },
  { "a z-order move out of range", function(d)
    d.armature[1].animation[1].zOrder = { frame = { { zOrder = { 0, 1 } } } }
  end, A .. "animation[0].zOrder.frame[0].zOrder[1]: moves slot 0 to place 1, out of range (1 slots)" },
  { "z-order slots out of order", function(d)
    d.armature[1].slot[2] = { name = "s2", parent = "root" }
    d.armature[1].animation[1].zOrder = { frame = { { zOrder = { 1, -1, 0, 1 } } } }
  end, A .. "animation[0].zOrder.frame[0].zOrder[2]: slot index 0 is out of order or out of range (2 slots)" },
  { "an IK timeline of an unknown constraint", function(d)
    d.armature[1].animation[1].ik = { { name = "q", frame = { {} } } }
  end, A .. "animation[0].ik[0].name: unknown IK constraint 'q'" },
}

describe("sinew.dragonbones bad input", function()
  for _, case in ipairs(BAD) do
    it("refuses " .. case[1], function()
      local doc = base()
      local t = case[2](doc)
      local data, err = db.parse(type(t) == "string" and t or text(doc), { name = "t_ske.json" })
      assert.is_nil(data)
      if case[3]:sub(1, 1) == "^" then
        assert.matches(case[3], err)
      else
        assert.equal(case[3], err)
      end
    end)
  end

  it("loads the good file those cases spoil, and a parent named after the bone that follows", function()
    assert.is_table(db.parse(text(base())))
    local doc = base()
    doc.armature[1].bone = { { name = "arm", parent = "root" }, { name = "root" } }
    local arm = assert(db.parse(text(doc))).armatures[1]
    assert.equal(2, arm.bones[1].parent)
  end)

  it("takes a display index past the display list (the runtime shows nothing there)", function()
    local doc = base()
    doc.armature[1].slot[1].displayIndex = 5
    assert.equal(5, assert(db.parse(text(doc))).armatures[1].slots[1].display_index)
  end)
end)

describe("sinew.dragonbones limits", function()
  -- each limit lowered for the case (db.LIMITS is the importer's own table), then put back
  local function with_limit(name, value, fn)
    local old = db.LIMITS[name]
    db.LIMITS[name] = value
    local ok, err = pcall(fn)
    db.LIMITS[name] = old
    assert(ok, err)
  end
  local CASES = {
    { "keys", 2, A .. "animation[0].slot[0].displayFrame: the file holds more keys than the limit of 2" },
    { "vertices", 2, D .. "vertices: the file holds more vertices than the limit of 2" },
    { "weights", 3, D .. "weights: the file holds more weights than the limit of 3" },
    { "values", 3, A .. "animation[0].ffd[0].frame[0]: the file holds more values than the limit of 3" },
    { "slots", 0, A .. "slot: has 1 slots, more than the limit of 0" },
    { "armatures", 0, "t_ske.json: armature: has 1 armatures, more than the limit of 0" },
  }
  for _, case in ipairs(CASES) do
    it("refuses a file past the limit of " .. case[1], function()
      with_limit(case[1], case[2], function()
        assert.same({ nil, case[3] }, { db.parse(text(base()), { name = "t_ske.json" }) })
      end)
    end)
  end

  it("refuses curve samples past their limit, and action frames past theirs", function()
    local doc = base()
    doc.armature[1].animation[1].bone[1].translateFrame[1].curve = { 0, 0, 1, 1 }
    with_limit("samples", 5, function()
      assert.same({ nil, A .. "animation[0].bone[0].translateFrame[0].curve: the file holds more samples than the " ..
        "limit of 5" }, { db.parse(text(doc), { name = "t_ske.json" }) })
    end)
    doc = base()
    doc.armature[1].animation[1].frame = { { duration = 2, event = "a" }, { duration = 2, event = "b" }, { event = "c" } }
    with_limit("action_frames", 2, function()
      assert.same({ nil, A .. "animation[0].frame[2].event: the animation has more frames with actions than the limit of 2" },
        { db.parse(text(doc), { name = "t_ske.json" }) })
    end)
  end)

  it("refuses a key longer than 32767 frames and a file past the byte limit", function()
    local doc = base()
    doc.armature[1].animation[1].bone[1].translateFrame[1].duration = 32768
    assert.same({ nil, A .. "animation[0].bone[0].translateFrame[0].duration: 32768 is out of range (0 .. 32767)" },
      { db.parse(text(doc), { name = "t_ske.json" }) })
    local big = ("x"):rep(db.MAX_BYTES + 1)
    assert.same({ nil, "big_ske.json: cannot read the file: it is larger than 67108864 bytes" },
      { db.load("big_ske.json", { read = function() return big end }) })
  end)
end)

-- ---- mutations, in a child process ---------------------------------------------------------------

local POSIX = package.config:sub(1, 1) == "/"

describe("sinew.dragonbones fed mutated files (child process, capped)", function()
  if not POSIX then
    pending("needs a POSIX shell (timeout, ulimit)")
    return
  end
  it("returns data or nil and a message for every mutation, and never raises", function()
    local out = helper.lua_child(("spec/support/dragonbones_fuzz.lua %d %d"):format(20261127,
      tonumber(os.getenv("SINEW_DB_FUZZ") or "400")), 120, 1000)
    assert.matches("exit status 0%s*$", out)
    local good, bad = out:match("(%d+) loaded, (%d+) refused, 0 raised")
    assert.is_truthy(good, out)
    assert.is_true(tonumber(bad) > 0 and tonumber(good) > 0, out)
  end)
end)

-- ---- against the DragonBones 5.6.2 parser itself ------------------------------------------------

-- SINEW_DB_JS names the runtime compiled from dragonbones-runtime@5.6.200 (see
-- spec/support/dragonbones_dump.js); node runs its parser on each file and dumps what it stores.
-- Every number must match: exactly for integers, after rounding to float32 for what the runtime
-- keeps in Float32Arrays (Lua 5.1 has no float32: within half a float32 step there).
local f32
if string.pack then
  f32 = function(x) return (string.unpack("f", string.pack("f", x))) end
elseif rawget(_G, "jit") then
  local ffi = require "ffi"
  local box = ffi.new("float[1]")
  f32 = function(x)
    box[0] = x
    return tonumber(box[0])
  end
end

local function conformance(path, ref)
  local data = assert(db.load(path, { atlas = false }))
  local null = dkjson.null
  local faults, checked = {}, 0
  local function eq(a, b, what, float)
    checked = checked + 1
    local ok
    if float and f32 then
      ok = f32(a) == b
    elseif float then
      ok = math.abs(a - b) <= math.abs(b) * 2 ^ -24 + 1e-45
    else
      ok = a == b
    end
    if not ok and #faults < 20 then faults[#faults + 1] = ("%s: %s vs %s"):format(what, tostring(a), tostring(b)) end
  end
  local tcode = { none = 0, linear = 1, curve = 2, quad_in = 3, quad_out = 4, quad_in_out = 5 }
  local function tween(k, r, what)
    eq(k.frame, r.frame, what .. " frame")
    eq(tcode[k.tween], r.tween, what .. " tween")
    if r.samples then
      eq(#k.samples, #r.samples, what .. " sample count")
      for i = 1, #r.samples do eq(k.samples[i], r.samples[i], what .. " sample " .. i) end
    elseif r.amount then
      eq(k.amount, r.amount, what .. " amount")
    end
  end
  for _, arm in ipairs(data.armatures) do
    local R = ref[arm.name]
    for _, b in ipairs(arm.bones) do
      local r = R.bones[b.name]
      local mine = { b.x, b.y, b.rotation, b.skew, b.scale_x, b.scale_y, b.length }
      for i = 1, 7 do eq(mine[i], r[i], arm.name .. " bone " .. b.name .. " " .. i) end
      eq(b.parent and arm.bones[b.parent].name or null, r[8], arm.name .. " bone " .. b.name .. " parent")
      eq(b.inherit_translation, r[9], "inherit") eq(b.inherit_rotation, r[10], "inherit")
      eq(b.inherit_scale, r[11], "inherit") eq(b.inherit_reflection, r[12], "inherit")
    end
    for _, s in ipairs(arm.slots) do
      local r = R.slots[s.name]
      eq(s.display_index, r[1], "display index")
      eq(arm.bones[s.bone].name, r[2], "slot bone")
      for i = 1, 4 do eq(s.color[i] * 0.01, r[2 + i], "slot multiplier") end
      for i = 5, 8 do eq(s.color[i], r[2 + i], "slot offset") end
    end
    for _, ik in ipairs(arm.ik) do
      local r = R.ik[ik.name]
      eq(arm.bones[ik.root].name, r[1], "ik root")
      eq(ik.child and arm.bones[ik.child].name or null, r[2], "ik bone")
      eq(arm.bones[ik.target].name, r[3], "ik target")
      eq(ik.bend_positive, r[4], "ik bend")
      eq(ik.weight, r[5], "ik weight")
    end
    local types = { image = 0, armature = 1, mesh = 2, bounding_box = 3 }
    for _, skin in ipairs(arm.skins) do
      for s, shown in pairs(skin.slots) do
        for k, d in ipairs(shown) do
          if d then
            local where = skin.name .. "/" .. arm.slots[s].name .. "/" .. (k - 1)
            local r = R.displays[where]
            local mine = { types[d.type], d.name, d.path, d.x, d.y, d.rotation, d.skew, d.scale_x, d.scale_y,
              d.pivot_x or null, d.pivot_y or null }
            for i = 1, 11 do eq(mine[i], r[i], arm.name .. " display " .. where .. " " .. i) end
            if d.type == "mesh" then
              local m = R.meshes[where]
              eq(#d.vertices, #m.vertices, where .. " vertex count")
              for i = 1, #m.vertices do eq(d.vertices[i], m.vertices[i], where .. " vertex", true) end
              if m.weights ~= null then
                local w, i, j = d.weights, 1, 1
                while i <= #m.weights do
                  local n = m.weights[i]
                  eq(w[j], n, where .. " bones of a vertex")
                  i, j = i + 1, j + 1
                  for _ = 1, n do
                    eq(arm.bones[w[j]].name, m.weights[i], where .. " weight bone")
                    for q = 1, 3 do eq(w[j + q], m.weights[i + q], where .. " weight, bind x, y", true) end
                    i, j = i + 4, j + 4
                  end
                end
                eq(j - 1, #w, where .. " weight list length")
              end
            end
          end
        end
      end
    end
    for _, anim in ipairs(arm.animations) do
      local RA = R.animations[anim.name]
      local where_a = arm.name .. "." .. anim.name
      eq(anim.frame_count, RA.frameCount, where_a .. " frameCount")
      eq(anim.play_times, RA.playTimes, where_a .. " playTimes")
      local seen = 0
      for _, bt in ipairs(anim.bones) do
        local name = arm.bones[bt.bone].name
        local n = 0
        for _, tl in ipairs(RA.bones[name] or {}) do
          local what = where_a .. " bone " .. name .. " timeline " .. tl.type
          if tl.type == 10 then
            n = n + 3
            eq(#bt.translate, #tl.keys, what .. " key count")
            for i, r in ipairs(tl.keys) do
              local v = r.values
              tween(bt.translate[i], r, what)
              local mine = { bt.translate[i].x, bt.translate[i].y, bt.rotate[i].rotation, bt.rotate[i].skew, bt.scale[i].x,
                bt.scale[i].y }
              for q = 1, 6 do eq(mine[q], v[q], what .. " value " .. q, true) end
            end
          else
            n = n + 1
            local keys = tl.type == 11 and bt.translate or tl.type == 12 and bt.rotate or bt.scale
            eq(#keys, #tl.keys, what .. " key count")
            for i, r in ipairs(tl.keys) do
              tween(keys[i], r, what)
              local a, b = keys[i].x, keys[i].y
              if tl.type == 12 then a, b = keys[i].rotation, keys[i].skew end
              eq(a, r.values[1], what .. " value 1", true)
              eq(b, r.values[2], what .. " value 2", true)
            end
          end
        end
        eq((bt.translate and 1 or 0) + (bt.rotate and 1 or 0) + (bt.scale and 1 or 0), n, where_a .. " timelines of " .. name)
        seen = seen + n
      end
      local total = 0
      for _, tls in pairs(RA.bones) do for _, tl in ipairs(tls) do total = total + (tl.type == 10 and 3 or 1) end end
      eq(seen, total, where_a .. " bone timelines")
      for _, st in ipairs(anim.slots) do
        local name = arm.slots[st.slot].name
        for _, tl in ipairs(RA.slots[name] or {}) do
          local what = where_a .. " slot " .. name .. " timeline " .. tl.type
          if tl.type == 20 then
            eq(#st.display, #tl.keys, what .. " key count")
            for i, r in ipairs(tl.keys) do
              eq(st.display[i].frame, r.frame, what .. " frame")
              eq(st.display[i].value, r.value, what .. " value")
            end
          elseif tl.type == 21 then
            eq(#st.color, #tl.keys, what .. " key count")
            for i, r in ipairs(tl.keys) do
              tween(st.color[i], r, what)
              for c = 1, 8 do eq(st.color[i].color[c], r.color[c], what .. " colour " .. c) end
            end
          end
        end
      end
      local ffd = 0
      for _, tls in pairs(RA.slots) do for _, tl in ipairs(tls) do if tl.type == 22 then ffd = ffd + 1 end end end
      eq(#anim.ffd, ffd, where_a .. " deform timelines")
      for _, ft in ipairs(anim.ffd) do
        local name = arm.slots[ft.slot].name
        local r
        for _, tl in ipairs(RA.slots[name] or {}) do if tl.type == 22 then r = tl end end
        eq(#ft.keys, #r.keys, where_a .. " deform key count")
        for i, rk in ipairs(r.keys) do
          tween(ft.keys[i], rk, where_a .. " deform " .. name)
          eq(#ft.keys[i].vertices, #rk.vertices, where_a .. " deform size")
          for j = 1, #rk.vertices do eq(ft.keys[i].vertices[j], rk.vertices[j], where_a .. " deform vertex", true) end
        end
      end
      for _, it in ipairs(anim.ik) do
        local rks = RA.ik[arm.ik[it.constraint].name][1]
        eq(#it.keys, #rks, where_a .. " ik key count")
        for i, rk in ipairs(rks) do
          tween(it.keys[i], rk, where_a .. " ik")
          eq(it.keys[i].bend_positive and 1 or 0, rk.bend, where_a .. " ik bend")
          eq(it.keys[i].weight_percent, rk.weight, where_a .. " ik weight")
        end
      end
      if RA.zorder ~= null then
        eq(#anim.zorder, #RA.zorder, where_a .. " z-order key count")
        for i, r in ipairs(RA.zorder) do
          eq(anim.zorder[i].frame, r.frame, where_a .. " z-order frame")
          if r.order == null then
            eq(anim.zorder[i].order, nil, where_a .. " z-order setup")
          else
            for j = 1, #r.order do eq(anim.zorder[i].order[j] - 1, r.order[j], where_a .. " z-order") end
          end
        end
      else
        eq(anim.zorder, nil, where_a .. " no z-order")
      end
      local kinds = { [0] = "play", [10] = "event", [11] = "sound" }
      if RA.actions ~= null then
        eq(#anim.actions, #RA.actions, where_a .. " action key count")
        for i, r in ipairs(RA.actions) do
          local k = anim.actions[i]
          eq(k.frame, r.frame, where_a .. " action frame")
          eq(#k.items, #r.items, where_a .. " action count")
          for j, item in ipairs(r.items) do
            local m = k.items[j]
            eq(m.kind, kinds[item.type], where_a .. " action kind")
            eq(m.name, item.name, where_a .. " action name")
            eq(m.bone and arm.bones[m.bone].name or null, item.bone, where_a .. " action bone")
            eq(m.slot and arm.slots[m.slot].name or null, item.slot, where_a .. " action slot")
            eq(#m.ints + #m.floats + #m.strings, #item.ints + #item.floats + #item.strings, where_a .. " action data")
          end
        end
      else
        eq(anim.actions, nil, where_a .. " no actions")
      end
    end
  end
  return checked, faults
end

describe("sinew.dragonbones against the DragonBones 5.6.2 parser (node, SINEW_DB_JS)", function()
  local js = os.getenv("SINEW_DB_JS")
  local node = js and io.popen("command -v node 2>/dev/null"):read("*l")
  if not (js and node) then
    pending("set SINEW_DB_JS to the compiled 5.6.2 runtime, with node installed")
    return
  end
  local files = { "spec/support/dragonbones_edge_ske.json" }
  for _, path in ipairs(SAMPLES) do files[#files + 1] = path end
  for _, path in ipairs(files) do
    it("stores every number of " .. path .. " as the parser does", function()
      local p = assert(io.popen(("node spec/support/dragonbones_dump.js '%s'"):format(path)))
      local out = p:read("*a")
      p:close()
      local ref = assert(dkjson.decode(out, 1, dkjson.null))
      local checked, faults = conformance(path, ref)
      assert.same({}, faults)
      assert.is_true(checked > 50)
    end)
  end
end)
