--- BVH motion-capture import: `sinew.bvh.load(path [, options])` and `sinew.bvh.parse(text [,
-- options])` turn a BVH file (the CMU library, every mocap tool) into a sinew skeleton and a clip.
-- A file that is not good BVH gives `nil, message`, the message naming the file and the line:
-- `01_01.bvh:190: frame 3 has 95 numbers, the hierarchy's channels are 96`. See manual/bvh.md.
-- @module sinew.bvh
local core = require "sinew.core"
local Fault = require "sinew.fault"
local Read = require "sinew.bvh.read"
local decode = core._bvh

local M = {}

local fail = Fault.fail
local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

--- The most bytes `load` reads of a file (options.max_bytes changes it).
M.MAX_BYTES = 64 * 1024 * 1024
--- The largest coordinate of an offset or a position, scaled (a fault beyond it).
M.MAX_COORD = 1e9
--- The most joints a file may have (End Sites included): beyond it the file is refused.
M.MAX_JOINTS = Read.MAX_JOINTS
--- The most frames a file may declare (refused at its Frames line, before anything is made).
M.MAX_FRAMES = Read.MAX_FRAMES
--- The most numbers its MOTION section may hold (frames x channels), checked as MAX_FRAMES is.
M.MAX_VALUES = Read.MAX_VALUES
--- The shortest Frame Time read, seconds.
M.MIN_FRAME_TIME = Read.MIN_FRAME_TIME

local option_names = { name = true, scale = true, up = true, root = true, end_sites = true, max_bytes = true }
local ROOTS = { move = true, in_place = true, fixed = true }

local function not_option(k) return not option_names[k] end

-- the options, checked (a fault raises at `level`)
local function check_options(options, level)
  level = level + 1
  if options == nil then return {} end
  if type(options) ~= "table" then error(("options must be a table (got %s)"):format(type(options)), level) end
  local bad = Fault.first(options, not_option)
  if bad ~= nil then
    local near = Fault.nearest(bad, option_names)
    error(("unknown option %s (%s)"):format(Fault.show(bad), near and ("did you mean '" .. near .. "'?")
      or "the options are " .. table.concat(Fault.sorted_keys(option_names), ", ")), level)
  end
  local s = options.scale
  if s ~= nil and (type(s) ~= "number" or not (s > 0 and s <= 1e6)) then
    error(("option 'scale' must be a number above 0, at most 1e6 (got %s)"):format(Fault.show(s)), level)
  end
  if options.up ~= nil and options.up ~= "y" and options.up ~= "z" then
    error(("option 'up' must be \"y\" or \"z\" (got %s)"):format(Fault.show(options.up)), level)
  end
  if options.root ~= nil and not ROOTS[options.root] then
    error(("option 'root' must be \"move\", \"in_place\" or \"fixed\" (got %s)"):format(Fault.show(options.root)), level)
  end
  if options.end_sites ~= nil and type(options.end_sites) ~= "boolean" then
    error(("option 'end_sites' must be a boolean (got %s)"):format(type(options.end_sites)), level)
  end
  local mb = options.max_bytes
  if mb ~= nil and (type(mb) ~= "number" or not (mb >= 0 and mb <= 2 ^ 53) or mb ~= math.floor(mb)) then
    error(("option 'max_bytes' must be a count of bytes (0 .. 2^53) (got %s)"):format(Fault.show(mb)), level)
  end
  if options.name ~= nil and type(options.name) ~= "string" then
    error(("option 'name' must be a string (got %s)"):format(type(options.name)), level)
  end
  return options
end

-- the axis conversion of option up = "z": model (x, y, z) -> (x, z, -y), a turn of -90 degrees
-- about x (on a rotation q, C q C^-1: src/core/bvh.c)
local function convert_point(x, y, z) return x, z, -y end

-- the skeleton, clip and facts of the file's text (raises faults)
local function build(text, options)
  local file = Read.read(text)
  local scale = options.scale or 1
  local zup = options.up == "z"
  local root_mode = options.root or "move"
  local keep_ends = options.end_sites == true
  -- the joints sinew makes: every joint, End Sites when asked
  local index, names, parents, rest = {}, {}, {}, {}
  for i, j in ipairs(file.joints) do
    if keep_ends or not j.end_site then
      local k = #names + 1
      index[i] = k
      names[k] = j.name
      parents[k] = j.parent > 0 and index[j.parent] or 0
      local x, y, z = j.offset[1] * scale, j.offset[2] * scale, j.offset[3] * scale
      if not (math.abs(x) <= M.MAX_COORD and math.abs(y) <= M.MAX_COORD and math.abs(z) <= M.MAX_COORD) then
        fail(tostring(j.line), "the OFFSET of '%s' (scaled) is beyond %g", j.name:sub(1, 80), M.MAX_COORD)
      end
      if zup then x, y, z = convert_point(x, y, z) end
      rest[k] = { x, y, z, 0, 0, 0, 1, 1, 1, 1 }
    end
  end
  -- (the reader checked what the core checks: its refusal would name the hierarchy's first line)
  local skeleton = Fault.core("1", core.skeleton, { names = names, parents = parents, rest = rest })
  -- the tracks: a rotation track per joint with rotation channels, a translation track per joint
  -- with position channels (its offset plus the channels' values)
  local frames, C, values, dt = file.frames, file.channels, file.values, file.frame_time
  local times = decode.times(frames, dt)
  local tracks = {}
  for i, j in ipairs(file.joints) do
    local has_rot, has_pos = false, false
    for _, ch in ipairs(j.channels) do
      if ch[2] == "rotation" then has_rot = true else has_pos = true end
    end
    local k = index[i]
    local root = j.parent == 0
    if has_pos and root and root_mode == "fixed" then has_pos = false end
    if has_rot then -- (the channels' turns composed in C, in their order: src/core/bvh.c)
      local cols, axes = {}, {}
      for c, ch in ipairs(j.channels) do
        if ch[2] == "rotation" then
          cols[#cols + 1], axes[#axes + 1] = j.first - 1 + c, ch[1]
        end
      end
      tracks[#tracks + 1] = { joint = k, path = "rotation", times = times,
        values = decode.rotations(values, cols, axes, zup) }
    end
    if has_pos then
      local cols = { 0, 0, 0 }
      for c, ch in ipairs(j.channels) do
        if ch[2] == "position" then cols[ch[1]] = j.first - 1 + c end
      end
      local out, bad = decode.positions(values, cols, j.offset, scale, zup, root and root_mode == "in_place", M.MAX_COORD)
      if not out then
        fail(tostring(j.line), "the position of '%s' in frame %d (scaled) is beyond %g", j.name:sub(1, 80), bad, M.MAX_COORD)
      end
      tracks[#tracks + 1] = { joint = k, path = "translation", times = times, values = out }
    end
  end
  local clip = Fault.core("1", core.clip, { skeleton = skeleton, tracks = tracks, duration = (frames - 1) * dt })
  local pose = core.pose(skeleton)
  return { skeleton = skeleton, clip = clip, rest = pose, frames = frames, frame_time = dt,
    channels = C }
end

-- parse's work after its arguments are checked: the mocap, or nil and the message
local function run(text, options, name)
  local ok, res = pcall(build, text, options)
  if ok then return res end
  local msg = Fault.message(res)
  if msg then return nil, name .. ":" .. msg end
  if type(res) == "string" and res:find("not enough memory", 1, true) then
    return nil, name .. ": not enough memory to import it"
  end
  error(res, 0)
end

--- Imports BVH from its text already in memory.
-- Options: `name` (for messages; default "bvh"), `scale` (a factor on offsets and positions:
-- 0.0254 for inches to metres, 0.01 for centimetres; default 1), `up` ("y", the default: the
-- file's axes as they are; "z": the file is Z-up, converted to sinew's Y-up by a turn of -90
-- degrees about x), `root` ("move", the default: roots move as the file moves them; "in_place":
-- their height moves, their place across the ground stays at the first frame's; "fixed": they
-- keep their OFFSET), `end_sites` (true: each End Site is a joint named `<parent>_end`, with no
-- tracks; default false: left out).
-- @tparam string text the file's text
-- @tparam[opt] table options
-- @treturn ?table the mocap: `skeleton` (joints named and ordered as in the file), `clip` (frame i at
-- (i - 1) * frame_time), `rest` (a pose at the skeleton's rest: the OFFSETs, no rotation), `frames`,
-- `frame_time` (seconds), `channels` (numbers per frame); or nil
-- @treturn ?string why not: `<name>:<line>: <why>`
-- @raise for bad arguments only: "bad argument #1 to 'parse' (string expected, got nil)", "options
-- must be a table (got string)", "unknown option 'x' (did you mean 'scale'?)", "option 'scale'
-- must be a number above 0, at most 1e6 (got 0)", "option 'up' must be \"y\" or \"z\" (got 'x')",
-- "option 'root' must be \"move\", \"in_place\" or \"fixed\" (got 'x')", "option 'end_sites' must
-- be a boolean (got number)", "option 'name' must be a string (got number)". Whatever is wrong with
-- the text gives `nil, message`.
function M.parse(text, options)
  options = check_options(options, 2)
  if type(text) ~= "string" then error(("bad argument #1 to 'parse' (string expected, got %s)"):format(type(text)), 2) end
  return run(text, options, options.name or "bvh")
end

--- Imports a BVH file.
-- @tparam string path
-- @tparam[opt] table options as for `parse`, and `max_bytes` (the largest file read; default
-- `sinew.bvh.MAX_BYTES`, 64 MiB)
-- @treturn ?table the mocap, as `parse` gives it, or nil
-- @treturn ?string why not: `<file name>:<line>: <why>`, or `<file name>: cannot read the file: <why>`
-- @raise for bad arguments only, as `parse`: "bad argument #1 to 'load' (string expected, got nil)"
-- and the faults of `options` ("option 'max_bytes' must be a count of bytes (0 .. 2^53) (got -1)").
-- A file that cannot be read or is not good BVH gives `nil, message`.
function M.load(path, options)
  if type(path) ~= "string" then error(("bad argument #1 to 'load' (string expected, got %s)"):format(type(path)), 2) end
  options = check_options(options, 2)
  local name = path:match("[^/\\]*$")
  if name == "" then name = path end
  local max = options.max_bytes or M.MAX_BYTES
  local text, why = core._gltf.read_file(path, nil, max)
  if type(text) ~= "string" then return nil, ("%s: cannot read the file: %s"):format(name, tostring(why)) end
  if why == true then
    return nil, ("%s: cannot read the file: it is larger than %s bytes (options.max_bytes)"):format(name, Fault.show(max))
  end
  local o = {}
  for k, v in each, options do o[k] = v end
  return run(text, o, options.name or name)
end

return M
