--- DragonBones import: `sinew.dragonbones.load(path)` reads a DragonBones 5.0 to 5.5 export (the
-- `*_ske.json` file, and its `*_tex.json` atlas beside it) into the plain tables of the 2-D data
-- model: armatures with their bones, slots, IK constraints, skins and displays, and animations
-- whose keys hold the numbers the DragonBones 5.6 runtime's parser makes of the file. A file
-- that is not good DragonBones gives `nil, message`, the message naming the file and the JSON
-- path of the fault: `body_ske.json: armature[0].bone[3].parent: unknown bone 'hip'`. See
-- manual/2d.md, "Loading DragonBones files".
-- @module sinew.dragonbones
local Json = require "sinew.json"
local Fault = require "sinew.fault"
local V = require "sinew.dragonbones.values"
local A = require "sinew.dragonbones.armature"
local Anim = require "sinew.dragonbones.animation"
require "sinew.dragonbones.kind" -- rigs in the animator

local M = {}

local FUNCTION_OPTIONS = { "json", "read" } -- the options that are functions

local fail, show, at = V.fail, V.show, V.at
local number, string_, array = V.number, V.string, V.array
local each = next

--- The most bytes a file of the import may have (the skeleton or the atlas JSON): 64 MiB.
M.MAX_BYTES = 64 * 1024 * 1024

--- The limits of one import (see manual/2d.md, "Limits"): a table of counts by name.
M.LIMITS = V.LIMITS

local option_names = { read = true, atlas = true, json = true, name = true }

local function check_options(options)
  if options == nil then return {} end
  if type(options) ~= "table" then error(("options must be a table (got %s)"):format(type(options)), 3) end
  for k in each, options do
    if not option_names[k] then error(("unknown option '%s'"):format(tostring(k)), 3) end
  end
  for i = 1, 2 do -- (not ipairs over a constructor: see lua/sinew/dragonbones/compile.lua on LuaJIT)
    local f = FUNCTION_OPTIONS[i]
    if options[f] ~= nil and type(options[f]) ~= "function" then
      error(("option '%s' must be a function (got %s)"):format(f, type(options[f])), 3)
    end
  end
  if options.atlas ~= nil and type(options.atlas) ~= "boolean" then
    error(("option 'atlas' must be a boolean (got %s)"):format(type(options.atlas)), 3)
  end
  if options.name ~= nil and type(options.name) ~= "string" then
    error(("option 'name' must be a string (got %s)"):format(type(options.name)), 3)
  end
  return options
end

-- reads `path` with `read` (options.read) or the default reader: the bytes (at most `max`), or
-- nil and why; a longer file is refused unless `part` (then its first bytes are enough)
local function read_bytes(read, path, max, part)
  if read then
    local ok, bytes, why = pcall(read, path, max + 1)
    if not ok then return nil, tostring(bytes) end
    if type(bytes) ~= "string" then return nil, tostring(why or "no bytes") end
    if #bytes > max and not part then return nil, ("it is larger than %d bytes"):format(max) end
    return bytes
  end
  local bytes, why = require("sinew.core")._gltf.read_file(path, nil, max)
  if bytes == nil then return nil, tostring(why) end
  if why == true and not part then return nil, ("it is larger than %d bytes"):format(max) end
  return bytes
end

local VERSIONS = { ["5.0"] = true, ["5.5"] = true }

-- the model of the decoded skeleton JSON `doc` (raises faults)
local function build(doc, file)
  V.object(doc, "")
  local version = string_(doc, "version", "", "")
  local compatible = string_(doc, "compatibleVersion", "", "")
  if not VERSIONS[version] and not VERSIONS[compatible] then
    fail("version", "DragonBones data version %s is not supported (5.0 or 5.5)", show(doc.version))
  end
  local fr = number(doc, "frameRate", "", 24)
  if fr < 0 then fail("frameRate", "%s is negative", show(fr)) end
  local data = { file = file, name = string_(doc, "name", "", ""), version = version,
    frame_rate = fr == 0 and 24 or fr, armatures = {} }
  local state = {}
  local list, n = array(doc, "armature", "", V.LIMITS.armatures, "armatures")
  local raws = {}
  for i = 1, n do
    local path = at("armature", i)
    local raw = V.object(list[i], path)
    local arm = A.setup(raw, path, data, state)
    if data.armatures[arm.name] then fail(path .. ".name", "a second armature named %s", show(arm.name)) end
    data.armatures[i], data.armatures[arm.name] = arm, arm
    raws[i] = raw
  end
  for i = 1, n do
    local path, raw, arm = at("armature", i), raws[i], data.armatures[i]
    local anims, m = array(raw, "animation", path)
    for j = 1, m do
      local anim = Anim.animation(anims[j], at(path .. ".animation", j), arm, state)
      if arm.animations[anim.name] then
        fail(at(path .. ".animation", j) .. ".name", "a second animation named %s", show(anim.name))
      end
      arm.animations[j], arm.animations[anim.name] = anim, anim
    end
    arm.default_animation = arm.animations[1] and arm.animations[1].name or nil
    if raw.defaultActions ~= nil then
      for _, action in ipairs(A.actions(raw.defaultActions, path .. ".defaultActions", "play", nil, nil, arm, {})) do
        if action.kind == "play" and arm.animations[action.name] then arm.default_animation = action.name end
      end
    end
  end
  -- child armatures: each names an armature of the file, and none contains itself
  for i = 1, n do
    for _, child in ipairs(data.armatures[i].children) do
      if not data.armatures[child.name] then fail(child.path, "unknown armature %s", show(child.name)) end
    end
  end
  local state_of = {}
  local function visit(arm, path)
    if state_of[arm] == 2 then return end
    if state_of[arm] == 1 then fail(path, "armature %s contains itself", show(arm.name)) end
    state_of[arm] = 1
    for _, child in ipairs(arm.children) do visit(data.armatures[child.name], child.path) end
    state_of[arm] = 2
  end
  for i = 1, n do visit(data.armatures[i], at("armature", i)) end
  -- what the model does not hold
  for i = 1, n do
    local arm = data.armatures[i]
    arm.children, arm.slot_actions, arm.ik_index = nil, nil, nil
    for _, skin in ipairs(arm.skins) do
      for _, shown in each, skin.slots do
        for _, d in ipairs(shown) do
          if d then d.bind_inverse, d.skin = nil, nil end
        end
      end
    end
  end
  return data
end

-- the atlas beside skeleton file `file` (raises faults, with the atlas's own name as prefix)
local function atlas(file, read)
  local dir, base = file:match("^(.-)([^/\\]*)$")
  local tex_base, found = base:gsub("_ske(%.[^.]*)$", "_tex%1")
  if found == 0 then return nil end
  local tex = dir .. tex_base
  local bytes = read_bytes(read, tex, M.MAX_BYTES)
  if bytes == nil then return nil end -- no atlas beside the skeleton
  local doc, why = Json.decode(bytes, nil)
  if doc == nil then return nil, tex_base .. ": " .. why end
  local ok, res = pcall(function()
    V.object(doc, "")
    local image_path = string_(doc, "imagePath", "", nil)
    if image_path == nil or image_path == "" then fail("imagePath", "the atlas names no image") end
    if image_path:find("^%a[%w+.-]*:") or image_path:find("^[/\\]") or image_path:find("%z") then
      fail("imagePath", "%s is not a relative path (only files beside the atlas are read)", show(image_path))
    end
    for part in image_path:gmatch("[^/\\]+") do
      if part == ".." then fail("imagePath", "%s leaves the folder of the atlas", show(image_path)) end
    end
    local image = dir .. image_path
    local probe, err = read_bytes(read, image, 1, true) -- it exists: a byte of it is enough
    if probe == nil then fail("imagePath", "cannot read %s: %s", show(image), err) end
    local out = { file = tex, image = image, name = string_(doc, "name", "", ""),
      width = number(doc, "width", "", nil), height = number(doc, "height", "", nil), textures = {} }
    local list, n = array(doc, "SubTexture", "", V.LIMITS.textures, "textures")
    for i = 1, n do
      local path = at("SubTexture", i)
      local t = V.object(list[i], path)
      local name = string_(t, "name", path, "")
      if out.textures[name] then fail(path .. ".name", "a second texture named %s", show(name)) end
      local tx = { x = number(t, "x", path, 0), y = number(t, "y", path, 0), width = number(t, "width", path, 0),
        height = number(t, "height", path, 0), rotated = V.boolean(t, "rotated", path, false) }
      local fw, fh = number(t, "frameWidth", path, -1), number(t, "frameHeight", path, -1)
      if fw > 0 and fh > 0 then
        tx.frame_x, tx.frame_y = number(t, "frameX", path, 0), number(t, "frameY", path, 0)
        tx.frame_width, tx.frame_height = fw, fh
      end
      out.textures[name] = tx
    end
    return out
  end)
  if ok then return res end
  local msg = Fault.message(res)
  if msg then return nil, tex_base .. ": " .. msg end
  if type(res) == "string" and res:find("not enough memory", 1, true) then
    return nil, tex_base .. ": not enough memory to import it"
  end
  error(res, 0)
end

-- the model of skeleton JSON `text`; `file` the path it came from (or nil), `name` for messages
local function import(text, file, name, options)
  local doc, why = Json.decode(text, options.json)
  if doc == nil then return nil, name .. ": " .. why end
  local ok, res = pcall(build, doc, file or name)
  if not ok then
    local msg = Fault.message(res)
    if msg then return nil, name .. ": " .. msg end
    if type(res) == "string" and res:find("not enough memory", 1, true) then
      return nil, name .. ": not enough memory to import it"
    end
    error(res, 0)
  end
  if file and options.atlas ~= false then
    local a, err = atlas(file, options.read)
    if err then return nil, err end
    res.atlas = a
  end
  return res
end

--- Imports DragonBones JSON text already in memory (the `*_ske.json` of an export); no atlas is
-- read.
-- @tparam string text the JSON text
-- @tparam[opt] table options `name` (the file name for messages, default "DragonBones"), `json`
-- (a function text -> table, or nil and why; default lua-cjson when installed, else dkjson)
-- @treturn ?table the data (see manual/2d.md), or nil
-- @treturn ?string why not: `<name>: <JSON path>: <fault>`
-- @raise for bad arguments only: "bad argument #1 to 'parse' (string expected, got nil)",
-- "options must be a table (got string)", "unknown option 'x'", "option 'json' must be a
-- function (got string)" (and 'read'), "option 'atlas' must be a boolean (got string)", "option
-- 'name' must be a string (got number)".
function M.parse(text, options)
  if type(text) ~= "string" then
    error(("bad argument #1 to 'parse' (string expected, got %s)"):format(type(text)), 2)
  end
  options = check_options(options)
  return import(text, nil, options.name or "DragonBones", options)
end

--- Imports a DragonBones export: the skeleton file at `path` (`*_ske.json`) and, unless
-- `options.atlas` is false, its atlas beside it (the same name with `_ske` changed to `_tex`),
-- whose image must exist beside the atlas. No atlas file there gives `data.atlas = nil`.
-- @tparam string path
-- @tparam[opt] table options `read` (a function (path, size) -> bytes, or nil and why, as
-- love.filesystem.read; default: the regular file at path, at most 64 MiB), `atlas` (false: no
-- atlas), `json` (as for parse), `name` (as for parse; default the file's name)
-- @treturn ?table the data, or nil
-- @treturn ?string why not: `<file name>: cannot read the file: <why>`,
-- `<file name>: <JSON path>: <fault>` (the atlas's own name for a fault in the atlas)
-- @raise for bad arguments only, as `parse`: "bad argument #1 to 'load' (string expected, got nil)".
function M.load(path, options)
  if type(path) ~= "string" then error(("bad argument #1 to 'load' (string expected, got %s)"):format(type(path)), 2) end
  options = check_options(options)
  local name = options.name or path:match("[^/\\]*$")
  local bytes, why = read_bytes(options.read, path, M.MAX_BYTES)
  if bytes == nil then return nil, ("%s: cannot read the file: %s"):format(name, why) end
  return import(bytes, path, name, options)
end

--- A rig: one instance of armature `name` (default the first) of imported `data`, which plays
-- its animations as the DragonBones runtime does (see `sinew.dragonbones.Rig`). Many rigs may
-- share one `data`; its armature is compiled for the C core once, on the first rig.
-- @tparam table data what `load` or `parse` returned
-- @tparam[opt] string name an armature's name
-- @return the rig, or nil and a message: `<file>: no armature 'x'` when the data has no such
-- armature, `<file>: armature 'x' nests more than 1000 armatures` past `Rig.MAX_NESTED`,
-- `<file>: armature 'x' does not compile (was the data changed after loading?): <why>`
-- @raise for bad arguments only: "bad argument #1 to 'rig' (DragonBones data expected, got nil)"
-- when `data` is not a table with an `armatures` table, "bad argument #2 to 'rig' (string expected,
-- got number)" when `name` is neither nil nor a string.
function M.rig(data, name)
  local rig, why = require("sinew.dragonbones.rig").new(data, name) -- (not a tail call: its errors name our caller)
  return rig, why
end

return M
