--- glTF 2.0 import: `sinew.gltf.load(path)` and `sinew.gltf.parse(bytes)` turn a .glb or .gltf
-- file into a sinew skeleton, clips, rest pose, inverse bind matrices and meshes ready for a
-- renderer. A file that is not good glTF gives `nil, message`, the message naming the file and
-- the JSON path of the fault: `Fox.glb: animations[2].samplers[0].input: accessor 41 is out of
-- range (12 accessors)`. See manual/gltf.md.
-- @module sinew.gltf
local sinew_core = require "sinew.core"
local D = require "sinew.gltf.document"
local Fault = require "sinew.fault"
local S = require "sinew.gltf.skeleton"
local C = require "sinew.gltf.clips"
local Meshes = require "sinew.gltf.meshes"
local Morphs = require "sinew.gltf.morphs"

local M = {}

local FUNCTION_OPTIONS = { "json", "read" } -- the options that are functions

local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

local option_names = { skin = true, meshes = true, name = true, json = true, read = true, max_bytes = true }

local function not_option(k) return not option_names[k] end

-- the options, checked; a fault raises at `level` (2: the caller of the function that calls this)
local function check_options(options, level)
  level = level + 1
  if options == nil then return {} end
  if type(options) ~= "table" then error(("options must be a table (got %s)"):format(type(options)), level) end
  local bad = Fault.first(options, not_option) -- (the same one in every run when several are wrong)
  if bad ~= nil then
    local near = Fault.nearest(bad, option_names)
    error(("unknown option %s (%s)"):format(Fault.show(bad), near and ("did you mean '" .. near .. "'?")
      or "the options are " .. table.concat(Fault.sorted_keys(option_names), ", ")), level)
  end
  if options.skin ~= nil and type(options.skin) ~= "number" then
    error(("option 'skin' must be a number (got %s)"):format(type(options.skin)), level)
  end
  local mb = options.max_bytes
  if mb ~= nil and (type(mb) ~= "number" or not (mb >= 0 and mb <= 2 ^ 53) or mb ~= math.floor(mb)) then
    error(("option 'max_bytes' must be a count of bytes (0 .. 2^53) (got %s)"):format(D.show(mb)), level)
  end
  for i = 1, 2 do -- (not ipairs over a constructor: see lua/sinew/dragonbones/compile.lua on LuaJIT)
    local f = FUNCTION_OPTIONS[i]
    if options[f] ~= nil and type(options[f]) ~= "function" then
      error(("option '%s' must be a function (got %s)"):format(f, type(options[f])), level)
    end
  end
  return options
end

-- the asset of a document's bytes (raises faults)
local function build(bytes, base_dir, options)
  local json, bin, bin_offset, bin_length = D.container(bytes)
  local doc = D.new(D.json(json, options.json), bin, base_dir, options.read, options.max_bytes, bin_offset, bin_length)
  local nodes = S.nodes(doc)
  local joints = S.joints(doc, nodes, options)
  local skipped = {}
  -- the morph targets before the skeleton: a skeleton may carry their names and defaults
  local morphs, ranges = Morphs.list(doc, nodes, joints, skipped)
  local skeleton, joint_of, info = S.build(nodes, joints,
    joints.skin_index and ("skins[%d]"):format(joints.skin_index) or "nodes", morphs)
  local clips, clip_names, morph_tracks = C.clips(doc, nodes, skeleton, joint_of, skipped, joints, ranges)
  local asset = {
    skeleton = skeleton,
    rest = sinew_core.pose(skeleton),
    inverse_bind = S.inverse_bind(doc, skeleton, joints, joint_of),
    root_matrix = joints.root_matrix,
    nodes = info,
    clips = clips,
    clip_names = clip_names,
    morphs = morphs,
    morph_tracks = morph_tracks,
    meshes = options.meshes == false and {} or Meshes.meshes(doc, nodes, joints, joint_of, skipped, ranges),
    images = Meshes.images(doc, skipped),
    skipped = skipped,
  }
  return asset
end

--- Imports glTF from bytes already in memory (read with `love.filesystem.read`, from a zip, ...).
-- `base_dir` locates the files a .gltf refers to (buffers, images), read with `options.read`.
-- Options: `skin` (0-based skin index: default the first skin a mesh uses, else the first),
-- `meshes = false` (no vertex data), `name` (for messages), `json` (a function text -> table or
-- nil, message; default lua-cjson when installed, else dkjson), `read` (a function
-- (path, size) -> bytes or nil, why, that need return no more than `size` bytes, as
-- love.filesystem.read does; default: a reader of regular files within the folder of the glTF
-- file, links resolved), `max_bytes` (the most bytes of data the import may read and make:
-- default 256 MiB, see manual/gltf.md, "Limits").
-- @tparam string bytes the .glb or .gltf file
-- @tparam[opt] string base_dir the folder of the file (nil or "": the current folder);
-- may be left out when `options` follows
-- @tparam[opt] table options
-- @treturn ?table the asset (see manual/gltf.md), or nil
-- @treturn ?string why not: `<name>: <JSON path>: <fault>`
-- @raise for bad arguments only: "bad argument #1 to 'parse' (string expected, got nil)", "bad
-- argument #2 ...", "options must be a table (got string)", "unknown option 'x'", "option 'skin'
-- must be a number (got string)", "option 'json' must be a function (got string)" (and 'read'),
-- "option 'max_bytes' must be a count of bytes (0 .. 2^53) (got -1)".
-- Whatever is wrong with the file (not glTF, a fault at a JSON path, a buffer it cannot read, no
-- JSON decoder, a decoder or reader that fails, a file that needs more than `max_bytes`, memory
-- running out) gives `nil, message` instead.
function M.parse(bytes, base_dir, options)
  if type(base_dir) == "table" and options == nil then base_dir, options = nil, base_dir end
  options = check_options(options, 2)
  if base_dir ~= nil and type(base_dir) ~= "string" then
    error(("bad argument #2 to 'parse' (string expected, got %s)"):format(type(base_dir)), 2)
  end
  local name = options.name or "glTF"
  if type(bytes) ~= "string" then
    error(("bad argument #1 to 'parse' (string expected, got %s)"):format(type(bytes)), 2)
  end
  local ok, res = pcall(build, bytes, base_dir, options)
  if ok then return res end
  local msg = Fault.message(res)
  if msg then return nil, tostring(name) .. ": " .. msg end
  if type(res) == "string" and res:find("not enough memory", 1, true) then
    return nil, tostring(name) .. ": not enough memory to import it (options.max_bytes bounds what an import makes)"
  end
  error(res, 0)
end

--- Imports a .glb or .gltf file; the files it refers to are read from its folder. The file itself
-- must be a regular file of no more than `max_bytes` (read with `options.read` when given).
-- @tparam string path
-- @tparam[opt] table options as for parse
-- @treturn ?table the asset, or nil
-- @treturn ?string why not: `<file name>: cannot read the file: <why>` or as for parse
-- @raise for bad arguments only, as `parse`: "bad argument #1 to 'load' (string expected, got
-- nil)" and the faults of `options`. A file that cannot be read or is not good glTF gives `nil,
-- message`.
function M.load(path, options)
  if type(path) ~= "string" then error(("bad argument #1 to 'load' (string expected, got %s)"):format(type(path)), 2) end
  options = check_options(options, 2)
  local name = path:match("[^/\\]*$")
  if name == "" then name = path end -- ("assets/": a folder, named whole)
  local max = options.max_bytes or D.MAX_BYTES
  local ok, bytes, why, cut
  if options.read then
    ok, bytes, why = pcall(options.read, path, max + 1)
    cut = ok and type(bytes) == "string" and #bytes > max
  else -- a regular file (not a device or a pipe), no more than max + 1 bytes of it
    ok, bytes, why = true, sinew_core._gltf.read_file(path, nil, max)
    cut = why == true
  end
  if not ok or type(bytes) ~= "string" then
    local reason = ok and (why or "options.read gave no bytes") or bytes
    return nil, ("%s: cannot read the file: %s"):format(name, tostring(reason))
  end
  if cut then
    return nil, ("%s: cannot read the file: it is larger than %s bytes (options.max_bytes)"):format(name, D.show(max))
  end
  local o = {}
  for k, v in each, options do o[k] = v end
  o.name = o.name or name
  return M.parse(bytes, path:match("^(.*)[/\\]") or "", o)
end

return M
