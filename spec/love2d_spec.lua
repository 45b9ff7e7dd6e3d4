-- What sinew.love2d needs from a rig, outside LÖVE: Rig:armature (the data model it plays, for
-- the blend modes, bone lengths and IK targets) and Rig:events without garbage per call (drawing
-- code reads a rig's events every frame); sinew.love2d itself loads without LÖVE and says so
-- when used without it. The drawing is checked inside LÖVE by spec/love/main.lua.
local helper = require "helper"
local db = require "sinew.dragonbones"

local function mecha()
  return assert(db.load("assets/dragonbones/mecha_1406/mecha_1406_ske.json"))
end

describe("Rig:armature", function()
  it("is the data model's armature the rig plays", function()
    local data = assert(db.load("assets/dragonbones/mecha_1502b/mecha_1502b_ske.json"))
    assert.are.equal(data.armatures[1], db.rig(data):armature())
    assert.are.equal(data.armatures.weapon_1502b_l, db.rig(data, "weapon_1502b_l"):armature())
    assert.are.equal(17, #db.rig(data, "mecha_1502b"):armature().bones)
  end)

  it("raises on what is not a rig", function()
    local rig = db.rig(mecha())
    assert.has_error(function() rig.armature({}) end,
      "bad argument #1 to 'armature' (a sinew.dragonbones rig expected, got table)")
  end)
end)

describe("Rig:events", function()
  it("iterates the last update's events, again on a second call, without garbage", function()
    local rig = db.rig(mecha())
    rig:play("walk")
    local got = {}
    local t = 0
    while #got < 3 and t < 10 do -- walk loops: start, then loopComplete at each turn
      rig:update(0.25)
      t = t + 0.25
      for kind, name in rig:events() do got[#got + 1] = kind .. " " .. name end
    end
    assert.are.same({ "start walk", "loopComplete walk", "loopComplete walk" }, got)
    -- a second events() on the same update gives the same events again
    rig:play("jump")
    rig:update(1 / 60)
    local first, second = {}, {}
    for kind in rig:events() do first[#first + 1] = kind end
    for kind in rig:events() do second[#second + 1] = kind end
    assert.are.same({ "start" }, first)
    assert.are.same(first, second)
    local n = 0
    local function step()
      rig:update(1 / 60)
      for _ in rig:events() do n = n + 1 end
    end
    assert.are.equal(0, helper.least_garbage(step, 500))
  end)
end)

describe("sinew.love2d", function()
  local has_ffi = pcall(require, "ffi")

  it("loads without LÖVE and says it needs it", function()
    if not has_ffi then
      local ok, err = pcall(require, "sinew.love2d")
      assert.is_false(ok)
      assert.truthy(tostring(err):find("ffi", 1, true))
      return
    end
    local love2d = require "sinew.love2d"
    assert.are.equal("function", type(love2d.prepare))
    assert.has_error(function() love2d.prepare(mecha()) end, "sinew.love2d needs LÖVE's love.graphics")
    assert.has_error(function() love2d.prepare(42) end,
      "bad argument #1 to 'prepare' (DragonBones data expected, got number)")
    assert.has_error(function() love2d.prepare(mecha(), { images = 1 }) end,
      "bad argument #2 to 'prepare' (unknown option 'images')")
  end)

  it("names options.image and the type passed when it is no image (before it needs LÖVE)", function()
    if not has_ffi then return end
    local love2d = require "sinew.love2d"
    -- LÖVE objects as LÖVE makes them: userdata whose typeOf and type answer (newproxy: Lua 5.1
    -- and LuaJIT, where sinew.love2d runs)
    local function object(kind, supertypes)
      local u = newproxy(true)
      getmetatable(u).__index = {
        type = function() return kind end,
        typeOf = function(_, name) return name == kind or supertypes[name] == true end,
      }
      return u
    end
    local image = object("Image", { Texture = true, Drawable = true, Object = true })
    local imagedata = object("ImageData", { Data = true, Object = true })
    local canvas = object("Canvas", { Texture = true, Drawable = true, Object = true })
    local data = mecha()
    local cases = {
      { { image = {} }, "(options.image must be a LÖVE Image, an ImageData or a path, got table)" },
      { { image = 3 }, "(options.image must be a LÖVE Image, an ImageData or a path, got number)" },
      { { image = true }, "(options.image must be a LÖVE Image, an ImageData or a path, got boolean)" },
      { { image = canvas }, "(options.image must be a LÖVE Image, an ImageData or a path, got Canvas)" },
      { { image = newproxy(false) }, "(options.image must be a LÖVE Image, an ImageData or a path, got userdata)" },
      { { image = image, premultiplied = "yes" }, "(options.premultiplied must be a boolean, got string)" },
    }
    for _, case in ipairs(cases) do
      assert.equal("bad argument #2 to 'prepare' " .. case[2], helper.error_of(love2d.prepare, data, case[1]))
    end
    -- an Image, an ImageData or a path passes: what fails next is that there is no LÖVE here
    for _, given in ipairs { image, imagedata, "atlas.png" } do
      assert.equal("sinew.love2d needs LÖVE's love.graphics", helper.error_of(love2d.prepare, data,
        { image = given, premultiplied = true }))
    end
  end)
end)
