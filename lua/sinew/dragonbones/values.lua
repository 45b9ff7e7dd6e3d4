--- The JSON values of a DragonBones file, checked: numbers, integers, booleans, strings, arrays
-- and objects read with the defaults of the DragonBones 5.6 parser (a key that is absent or null
-- takes the default), each fault ending the import with its JSON path (`armature[0].bone[3].parent:
-- unknown bone 'hip'`, 0-based indices as in the file), and the limits of one import.
-- @module sinew.dragonbones.values
local Fault = require "sinew.fault"

local M = {}

local fail = Fault.fail
M.fail = fail
local floor, fmod, pi, huge = math.floor, math.fmod, math.pi, math.huge
local tointeger = math.tointeger or function(v) return v end

--- The most of each thing one file may hold (see manual/2d.md, "Limits").
M.LIMITS = {
  armatures = 1000,         -- armatures in a file
  bones = 10000,            -- bones of an armature
  slots = 10000,            -- slots of an armature
  displays = 100000,        -- displays of an armature (all skins)
  vertices = 1000000,       -- mesh and polygon vertices of a file
  weights = 4000000,        -- weight entries (vertex x bone) of a file
  keys = 1000000,           -- keys of a file (all timelines of all animations)
  values = 4000000,         -- numbers made for the keys of a file (deform vertices, z-orders)
  samples = 500000,         -- curve samples of a file (n + 1 for a curved key of n frames)
  action_frames = 5000,     -- frames with actions or events in an animation
  duration = 32767,         -- frames of an animation (the runtime keeps key positions in 16 bits)
  textures = 100000,        -- textures of an atlas
}

local FLT_MAX = 3.4028234663852886e38

-- the path of `key` of the object at `path` ("" is the document)
local function join(path, key)
  if path == "" then return key end
  return path .. "." .. key
end
M.join = join

-- JSON null: cjson's null is a light userdata; dkjson gives nil
local function absent(v) return v == nil or type(v) == "userdata" end
M.absent = absent

--- A value of the file for a message: numbers as numbers, strings quoted (and cut short),
-- anything else by its JSON kind.
function M.show(v)
  local t = type(v)
  if t == "number" then
    if v ~= v then return "nan" end
    return Fault.integer_text(v)
  end
  if t == "string" then return "'" .. (#v > 40 and v:sub(1, 40) .. "..." or v) .. "'" end
  if absent(v) then return "null" end
  if t == "table" then return rawget(v, 1) ~= nil and "an array" or "an object" end
  return tostring(v)
end
local show = M.show

local function kind(v)
  if type(v) == "table" then return rawget(v, 1) ~= nil and "an array" or "an object" end
  if absent(v) then return "null" end
  return "a " .. type(v)
end
M.kind = kind

--- A finite number within float range at `path` (what the runtime keeps in 32-bit floats).
function M.finite(v, path)
  if type(v) ~= "number" then fail(path, "must be a number (got %s)", kind(v)) end
  if v ~= v or v > FLT_MAX or v < -FLT_MAX then
    fail(path, "%s is not a finite number within float range", show(v))
  end
  return v
end
local finite = M.finite

--- `t[key]` as a number, `dflt` when absent or null.
function M.number(t, key, path, dflt)
  local v = t[key]
  if absent(v) then return dflt end
  if type(v) ~= "number" or v ~= v or v > FLT_MAX or v < -FLT_MAX then finite(v, join(path, key)) end
  return v
end

--- `t[key]` as an integer from `lo` to `hi`, `dflt` when absent or null.
function M.integer(t, key, path, dflt, lo, hi)
  local v = t[key]
  if absent(v) then return dflt end
  if type(v) ~= "number" or v ~= floor(v) or v < lo or v > hi then
    if type(v) == "number" and v == floor(v) then
      fail(join(path, key), "%s is out of range (%s .. %s)", show(v), show(lo), show(hi))
    end
    fail(join(path, key), "must be an integer (got %s)", type(v) == "number" and show(v) or kind(v))
  end
  return tointeger(v)
end

-- the strings the runtime reads as false (_getBoolean); any other string is true
local false_strings = { ["0"] = true, ["NaN"] = true, [""] = true, ["false"] = true, ["null"] = true,
  ["undefined"] = true }

--- `t[key]` as a boolean, `dflt` when absent or null: true or false, a number (0 is false), or
-- a string ("false", "0", "" and a few more are false, any other true), as the runtime reads
-- them (some exporters write "true" and "false").
function M.boolean(t, key, path, dflt)
  local v = t[key]
  if absent(v) then return dflt end
  if type(v) == "boolean" then return v end
  if type(v) == "number" and v == v then return v ~= 0 end
  if type(v) == "string" then return not false_strings[v] end
  fail(join(path, key), "must be a boolean (got %s)", kind(v))
end

--- `t[key]` as a string, `dflt` when absent or null.
function M.string(t, key, path, dflt)
  local v = t[key]
  if absent(v) then return dflt end
  if type(v) ~= "string" then fail(join(path, key), "must be a string (got %s)", kind(v)) end
  return v
end

--- `v` as a JSON object (a table that is not a non-empty array).
function M.object(v, path)
  if type(v) ~= "table" or rawget(v, 1) ~= nil then fail(path, "must be an object (got %s)", kind(v)) end
  return v
end

--- `t[key]` as a JSON array (nil when absent or null), with its length; at most `max` entries
-- when given (`what` names them for the message).
function M.array(t, key, path, max, what)
  local v = t[key]
  if absent(v) then return nil, 0 end
  if type(v) ~= "table" or (rawget(v, 1) == nil and next(v) ~= nil) then
    fail(join(path, key), "must be an array (got %s)", kind(v))
  end
  local n = #v
  if max and n > max then
    fail(join(path, key), "has %d %s, more than the limit of %d", n, what, max)
  end
  return v, n
end

--- `t[key]` as an array of finite numbers (nil when absent or null), with its length.
function M.numbers(t, key, path, max, what)
  local v, n = M.array(t, key, path, max, what)
  if v == nil then return nil, 0 end
  for i = 1, n do
    local x = v[i]
    if type(x) ~= "number" or x ~= x or x > FLT_MAX or x < -FLT_MAX then
      finite(x, ("%s[%d]"):format(join(path, key), i - 1))
    end
  end
  return v, n
end

--- The path of entry `i` (1-based) of the array at `path` (0-based in the text, as in the file).
function M.at(path, i)
  return ("%s[%d]"):format(path, i - 1)
end

-- ---- the arithmetic of the DragonBones parser ---------------------------------------------

M.PI = pi
M.PI_D = pi * 2
M.DEG_RAD = pi / 180

--- Transform.normalizeRadian: `(v + PI) % 2PI` with JavaScript's `%` (fmod: the sign of the
-- dividend), then minus PI when the result is positive, else plus PI (so 0 gives PI).
function M.normalize(v)
  v = fmod(v + pi, pi * 2)
  if v > 0 then return v - pi end
  return v + pi
end

--- JavaScript's Math.round: half way rounds up (floor(x + 0.5)), also for negative numbers.
function M.round(x)
  return tointeger(floor(x + 0.5)) or floor(x + 0.5)
end

--- The value a 16-bit signed integer array of the runtime keeps of the integer `v`.
function M.int16(v)
  if v ~= v or v == huge or v == -huge then return 0 end -- JavaScript's ToInt16
  return (v + 32768) % 65536 - 32768
end

--- Counts `n` of the budget `what` (a key of LIMITS) of import `state`; a fault at `path` when
-- the file would pass it.
function M.spend(state, what, n, path)
  local used = (state[what] or 0) + n
  if used > M.LIMITS[what] then
    fail(path, "the file holds more %s than the limit of %d", what, M.LIMITS[what])
  end
  state[what] = used
end

M.huge = huge

return M
