--- The document layer of glTF import: the container (.glb or JSON text), the JSON decoder, the
-- buffers (the BIN chunk, base64 `data:` URIs, files beside the .gltf), buffer views and
-- accessors, and the faults that end an import with the JSON path of what is wrong.
--
-- Everything binary goes through `sinew.core._gltf` (C, bounds checked); this file checks the
-- JSON side: types, indices and counts, with the path of each value.
-- @module sinew.gltf.document
local decode = require("sinew.core")._gltf
local Fault = require "sinew.fault"
local Json = require "sinew.json"

local M = {}

local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

-- ---- faults -----------------------------------------------------------------------------------

-- the faults (sinew.fault): `fail(path, ...)` ends the import with the JSON path of the fault
-- ("animations[2].samplers[0].input"); a `%d` of its message takes any number the file holds
local fail = Fault.fail

--- A value of the file for a message: numbers as numbers, strings quoted (and cut short),
-- anything else by its JSON kind.
function M.show(v)
  local t = type(v)
  if t == "number" then return Fault.integer_text(v) end
  if t == "string" then return "'" .. (#v > 40 and v:sub(1, 40) .. "..." or v) .. "'" end
  if t == "nil" then return "nothing" end
  if t == "table" then return "an array or object" end
  return tostring(v)
end
local show = M.show

-- ---- JSON values --------------------------------------------------------------------------------

local floor = math.floor
-- an integral float as an integer where Lua has them (JSON decoders give floats on 5.3+)
local tointeger = math.tointeger or function(v) return v end

local function plural(word, n)
  if n == 1 then return word end
  return word:find("[sh]$") and word .. "es" or word .. "s"
end

--- A JSON path given to the checks below: a string, or a function that makes it from the
-- arguments given after it (made only for a fault: the importer's loops over channels and
-- accessors make no path for a good file).
local function path_of(path, ...)
  if type(path) == "function" then return path(...) end
  return path
end

--- `v` as an index into a list of `n` entries (0-based, as glTF counts); `what` names the list.
-- `path` and `...`: see path_of.
function M.index(v, n, path, what, ...)
  if type(v) ~= "number" or v ~= floor(v) then
    fail(path_of(path, ...), "%s index must be an integer (got %s)", what, show(v))
  end
  if v < 0 or v >= n then fail(path_of(path, ...), "%s %d is out of range (%d %s)", what, v, n, plural(what, n)) end
  return tointeger(v)
end

--- `v` as a non-negative integer (a count or an offset), `dflt` when nil.
function M.count(v, path, dflt)
  if v == nil and dflt ~= nil then return dflt end
  if type(v) ~= "number" or v ~= floor(v) or v < 0 then fail(path, "must be a non-negative integer (got %s)", show(v)) end
  if v > 2 ^ 53 then fail(path, "%s is too large", show(v)) end
  return tointeger(v)
end

--- `v` as a list (a JSON array): nil gives an empty one.
function M.list(v, path)
  if v == nil then return {} end
  if type(v) ~= "table" then fail(path, "must be an array (got %s)", type(v)) end
  -- a decoded JSON object has string keys (a decoded array's first is 1): one look tells them apart
  if type((next(v))) == "string" then fail(path, "must be an array (got an object)") end
  return v
end

--- `v` as a JSON object, or nil when absent and `optional`. `path` and `...`: see path_of.
function M.object(v, path, optional, ...)
  if v == nil and optional then return nil end
  if type(v) ~= "table" then fail(path_of(path, ...), "must be an object (got %s)", type(v)) end
  if rawget(v, 1) ~= nil then fail(path_of(path, ...), "must be an object (got an array)") end
  return v
end

local FLT_MAX = 3.4028234663852886e38

--- Whether `v` is a list of `n` finite numbers within float range: M.numbers' test, without a
-- path (for a loop that names its path only for a fault).
function M.good_numbers(v, n)
  if type(v) ~= "table" or #v ~= n then return false end
  for i = 1, n do
    local x = v[i]
    if type(x) ~= "number" or not (x >= -FLT_MAX and x <= FLT_MAX) then return false end -- (NaN fails)
  end
  return true
end

--- `v` as a list of `n` finite numbers within float range (glTF's numbers are floats), or the
-- default `dflt` when nil.
function M.numbers(v, n, path, dflt)
  if v == nil then return dflt end
  if M.good_numbers(v, n) then return v end
  if type(v) ~= "table" or #v ~= n then fail(path, "must be an array of %d numbers", n) end
  for i = 1, n do
    local x = v[i]
    if type(x) ~= "number" or x ~= x or x == math.huge or x == -math.huge then
      fail(path, "element %d is not a finite number (got %s)", i - 1, show(x))
    end
    if x > FLT_MAX or x < -FLT_MAX then fail(path, "element %d (%s) is past float range", i - 1, show(x)) end
  end
  return v
end

-- ---- JSON ---------------------------------------------------------------------------------------

--- Decodes the JSON text of a glTF file with `decoder` (options.json) or the default one
-- (sinew.json: lua-cjson when installed, else dkjson).
function M.json(text, decoder)
  local doc, why = Json.decode(text, decoder)
  if doc == nil then fail("", "%s", why) end
  return doc
end

--- The JSON text and BIN chunk of `bytes`: a .glb is split, other bytes are JSON text. The BIN
-- chunk is given as the string holding it, the bytes before it there and its length (`bytes`
-- itself: the chunk is not copied), or nil.
function M.container(bytes)
  if bytes == "" then fail("", "the file is empty (0 bytes)") end
  if bytes:sub(1, 4) == "glTF" then
    local ok, text, offset, length = pcall(decode.glb, bytes, true)
    if not ok then fail("", "%s", text) end
    if offset == nil then return text, nil end
    return text, bytes, offset, length -- (the BIN chunk read in place: not copied)
  end
  return bytes, nil
end

-- ---- buffers --------------------------------------------------------------------------------------

local function percent_decode(s)
  return (s:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

--- The default budget of one import (options.max_bytes): 256 MiB.
M.MAX_BYTES = 256 * 1024 * 1024

--- The default reader of files: at most `size` bytes of the file at `path` (the first `size`
-- when it is longer), only when it is a regular file (not a device, a pipe or a folder) whose
-- real path lies within the real path of the folder `root` (when given). Returns the bytes, or
-- nil and why.
function M.read_file(path, size, root)
  local bytes, why = decode.read_file(path, root, size or 2 ^ 53)
  if bytes == nil then return nil, why end
  return bytes
end

--- The bytes of a URI: a base64 `data:` URI, or a file relative to `base_dir` read with `read`
-- (at most `max` bytes: the rest is cut, and the second result is true when there was more).
-- Absolute paths, other schemes and ".." are refused, so that a file cannot make the importer
-- read outside its own folder, and the default reader refuses a link that leads outside it, a
-- device and a pipe. `spend(bytes)` is called with the bytes a data: URI decodes to before it
-- is decoded. Returns the bytes and whether they were cut, or nil and why.
function M.uri_bytes(uri, base_dir, read, path, max, spend)
  if type(uri) ~= "string" then fail(path, "must be a string (got %s)", type(uri)) end
  if uri:sub(1, 5) == "data:" then
    local comma = uri:find(",", 1, true)
    if not comma or not uri:sub(1, comma):find(";base64,", 1, true) then
      fail(path, "a data: URI must be base64")
    end
    spend(math.floor((#uri - comma) * 3 / 4))
    local ok, bytes = pcall(decode.base64, uri:sub(comma + 1))
    if not ok then fail(path, "%s", bytes) end
    return bytes, false
  end
  local file = percent_decode(uri)
  if file:find("^%a[%w+.-]*:") or file:sub(1, 1) == "/" or file:sub(1, 1) == "\\" then
    return nil, ("'%s' is not a relative path (only files beside the glTF file are read)"):format(uri)
  end
  if file:find("\0", 1, true) then return nil, ("'%s' holds a zero byte"):format(uri) end
  -- the path resolved by its text ("a/./b" is "a/b", "a/../b" is "b"): refused only when it
  -- leaves the folder ("../b", "a/../../b"); links are the default reader's (it follows them to
  -- their real paths, which must lie in the folder too)
  local parts = {}
  for part in file:gmatch("[^/\\]+") do
    if part == ".." then
      if #parts == 0 then return nil, ("'%s' leaves the folder of the glTF file"):format(uri) end
      parts[#parts] = nil
    elseif part ~= "." then
      parts[#parts + 1] = part
    end
  end
  if #parts == 0 then return nil, ("'%s' names the folder of the glTF file, not a file"):format(uri) end
  file = table.concat(parts, "/")
  local full = (base_dir and base_dir ~= "") and (base_dir:gsub("[/\\]$", "") .. "/" .. file) or file
  if read == M.read_file then -- the folder's real path holds the file's: no link leads out of it
    local bytes, cut = decode.read_file(full, base_dir or "", max)
    if bytes == nil then return nil, ("cannot read '%s': %s"):format(full, tostring(cut)) end
    return bytes, cut
  end
  local ok, bytes, err = pcall(read, full, max + 1) -- love.filesystem.read(name, size) reads no more
  if not ok then return nil, tostring(bytes) end
  if type(bytes) ~= "string" then
    return nil, ("cannot read '%s': %s"):format(full, tostring(err or "options.read gave no bytes"))
  end
  if #bytes > max then return bytes:sub(1, max), true end
  return bytes, false
end

-- ---- the document ------------------------------------------------------------------------------

local Doc = {}
Doc.__index = Doc

--- A document: the decoded JSON with its buffers resolved lazily. `bin` is the string holding the
-- .glb's BIN chunk (or nil), `bin_offset` the bytes before the chunk there and `bin_length` its
-- length (0 and #bin when not given: `bin` is the chunk), `base_dir` and `read` locate and read
-- external files, `max_bytes` is the budget of the import (Doc:spend).
function M.new(tree, bin, base_dir, read, max_bytes, bin_offset, bin_length)
  local doc = setmetatable({ json = tree, bin = bin, bin_offset = bin_offset or 0,
    bin_length = bin_length or (bin and #bin), base_dir = base_dir, reader = read or M.read_file, buffers = {},
    views = {}, accessors = {}, decoded = {}, floats = {}, max_bytes = max_bytes or M.MAX_BYTES, spent = 0 }, Doc)
  local asset = M.object(tree.asset, "asset")
  if type(asset.version) ~= "string" or not asset.version:match("^2%.") then
    fail("asset.version", "glTF version %s is not 2.x", show(asset.version))
  end
  local supported = { KHR_mesh_quantization = true, KHR_texture_transform = true, KHR_materials_unlit = true }
  for i, ext in ipairs(M.list(tree.extensionsRequired, "extensionsRequired")) do
    if not supported[ext] then fail(("extensionsRequired[%d]"):format(i - 1), "%s is not supported", show(ext)) end
  end
  return doc
end

--- Counts `bytes` of data the import is about to make (files read, accessors decoded, vertices,
-- images, clip keys: see manual/gltf.md, "Limits") against its budget, options.max_bytes; a
-- fault at `path` when they would pass it.
function Doc:spend(bytes, path)
  local spent = self.spent + bytes
  if spent > self.max_bytes then
    fail(path, "the import needs more than %d bytes of data (options.max_bytes)", self.max_bytes)
  end
  self.spent = spent
end

--- Counts `per` bytes for each value of accessor `desc` (decoded to a list: 16; to float
-- strings: 4), or for `values` values when given (the slots of interleaved vertices), against
-- the budget; an accessor of more values than the core decodes is left to the core, which
-- refuses it with its own message.
function Doc:spend_values(desc, per, path, values)
  local own = desc.count * desc.rows * desc.columns
  if own <= decode.MAX_VALUES then self:spend(per * (values or own), path) end
end

--- The bytes left in the budget.
function Doc:left()
  return self.max_bytes - self.spent
end

--- The entries of the top-level array `name` (an empty list when absent).
function Doc:array(name)
  return M.list(self.json[name], name)
end

--- The bytes of buffer `i` (0-based): a string, the bytes before the buffer in it (0 but for the
-- BIN chunk of a .glb, read in place in the file) and the buffer's length, its byteLength.
function Doc:buffer(i, path)
  local buffers = self:array("buffers")
  i = M.index(i, #buffers, path, "buffer")
  local known = self.buffers[i]
  if known then return known[1], known[2], known[3] end
  local bpath = ("buffers[%d]"):format(i)
  local b = M.object(buffers[i + 1], bpath)
  local length = M.count(b.byteLength, bpath .. ".byteLength")
  local bytes, why
  if b.uri == nil then
    if i ~= 0 or self.bin == nil then fail(bpath, "has no uri and no BIN chunk") end
    local size = self.bin_length
    if size > length then self:spend(length, bpath) end -- (as when the chunk was cut to its byteLength)
    if size < length then fail(bpath, "byteLength %d is more than its %d bytes", length, size) end
    self.buffers[i] = { self.bin, self.bin_offset, length }
    return self.bin, self.bin_offset, length
  else
    -- no more than byteLength bytes are read (a longer file is cut there, as it always was)
    local uri_path = bpath .. ".uri"
    if type(b.uri) == "string" and b.uri:sub(1, 5) ~= "data:" then self:spend(length, uri_path) end
    bytes, why = M.uri_bytes(b.uri, self.base_dir, self.reader, uri_path, length,
      function(n) self:spend(n, uri_path) end)
    if bytes == nil then fail(uri_path, "%s", why) end
    if #bytes > length then bytes = bytes:sub(1, length) end
  end
  if #bytes < length then fail(bpath, "byteLength %d is more than its %d bytes", length, #bytes) end
  self.buffers[i] = { bytes, 0, length }
  return bytes, 0, length
end

--- Buffer view `i` as a view description for the C decoder. `path` and `...`: see path_of.
function Doc:view(i, path, ...)
  local known = self.views[i] -- (only the good indices are kept: any other is checked below)
  if known then return known end
  local views = self:array("bufferViews")
  i = M.index(i, #views, path, "buffer view", ...)
  local vpath = ("bufferViews[%d]"):format(i)
  local v = M.object(views[i + 1], vpath)
  local buffer, base, size = self:buffer(v.buffer, vpath .. ".buffer")
  local offset = M.count(v.byteOffset, vpath .. ".byteOffset", 0)
  local length = M.count(v.byteLength, vpath .. ".byteLength")
  local stride = M.count(v.byteStride, vpath .. ".byteStride", 0)
  if stride ~= 0 and (stride < 4 or stride > 252 or stride % 4 ~= 0) then
    fail(vpath .. ".byteStride", "%d is not a multiple of 4 from 4 to 252", stride)
  end
  if offset + length > size then
    fail(vpath, "bytes %d .. %d are past the end of buffer %d (%d bytes)", offset, offset + length, v.buffer, size)
  end
  local view = { buffer = buffer, offset = base + offset, length = length, stride = stride }
  self.views[i] = view
  return view
end

--- What one number in a Lua table counts against the budget (a TValue).
M.NUMBER_BYTES = 16

local shapes = { SCALAR = { 1, 1 }, VEC2 = { 2, 1 }, VEC3 = { 3, 1 }, VEC4 = { 4, 1 }, MAT2 = { 2, 2 }, MAT3 = { 3, 3 },
  MAT4 = { 4, 4 } }
local components = { [5120] = "BYTE", [5121] = "UNSIGNED_BYTE", [5122] = "SHORT", [5123] = "UNSIGNED_SHORT",
  [5125] = "UNSIGNED_INT", [5126] = "FLOAT" }
M.components = components

-- M.count's test of a good count: an integer from 0 to 2^53
local function is_count(v) return type(v) == "number" and v >= 0 and v <= 2 ^ 53 and v == floor(v) end

-- the path of field `field` of accessor `i`
local function accessor_field(i, field) return ("accessors[%d]"):format(i) .. field end

--- Accessor `i`: its description for the C decoder (`kind` names its components as the
-- messages do: "FLOAT", "UNSIGNED_SHORT (normalized)"). `path` and `...`: see path_of.
function Doc:accessor(i, path, ...)
  local known = self.accessors[i] -- (only the good indices are kept: any other is checked below)
  if known then return known end
  local accessors = self:array("accessors")
  i = M.index(i, #accessors, path, "accessor", ...)
  local a = accessors[i + 1]
  -- every field checked in one test; the accessor's path is made, and the fields checked one by
  -- one with their messages, only when one may be wrong (or it has sparse values)
  local apath
  if not (type(a) == "table" and rawget(a, 1) == nil and a.sparse == nil and components[a.componentType]
      and shapes[a.type] and (a.normalized == nil or type(a.normalized) == "boolean") and is_count(a.count)
      and a.count >= 1 and (a.byteOffset == nil or is_count(a.byteOffset))) then
    apath = ("accessors[%d]"):format(i)
    a = M.object(a, apath)
    if not components[a.componentType] then
      fail(apath .. ".componentType", "unknown component type %s", show(a.componentType))
    end
    if not shapes[a.type] then fail(apath .. ".type", "unknown type %s", show(a.type)) end
    if a.normalized ~= nil and type(a.normalized) ~= "boolean" then
      fail(apath .. ".normalized", "must be a boolean (got %s)", type(a.normalized))
    end
    M.count(a.count, apath .. ".count")
    M.count(a.byteOffset, apath .. ".byteOffset", 0)
    if a.count < 1 then fail(apath .. ".count", "must be at least 1") end
  end
  local shape = shapes[a.type]
  local desc = { component = a.componentType, normalized = a.normalized == true, rows = shape[1], columns = shape[2],
    count = tointeger(a.count), offset = tointeger(a.byteOffset or 0), index = i, type = a.type,
    kind = components[a.componentType] .. (a.normalized and " (normalized)" or "") }
  if a.bufferView ~= nil then desc.view = self:view(a.bufferView, accessor_field, i, ".bufferView") end
  if a.sparse ~= nil then
    local spath = apath .. ".sparse"
    local s = M.object(a.sparse, spath)
    local idx = M.object(s.indices, spath .. ".indices")
    local val = M.object(s.values, spath .. ".values")
    desc.sparse = { count = M.count(s.count, spath .. ".count"),
      indices = self:view(idx.bufferView, spath .. ".indices.bufferView"),
      indices_offset = M.count(idx.byteOffset, spath .. ".indices.byteOffset", 0),
      indices_component = M.count(idx.componentType, spath .. ".indices.componentType"),
      values = self:view(val.bufferView, spath .. ".values.bufferView"),
      values_offset = M.count(val.byteOffset, spath .. ".values.byteOffset", 0) }
  end
  self.accessors[i] = desc
  return desc
end

--- The values of accessor `i` (a flat list of numbers), checked to be of `types` (a set of
-- glTF types) and `comps` (a set of component type names, nil for any). An accessor is decoded
-- once per import: every caller gets the same list, and none may change it.
function Doc:read(i, path, types, comps)
  return self:decode(i, path, types, comps, self.decoded, decode.accessor)
end

--- Doc:read into a float buffer (`#buf` values, `buf[i]` from 1; `sinew.clip` takes it as a
-- track's times or values) instead of a list: the clips' keys, with no Lua number per value.
-- Counted against the budget as a list is, once per accessor whichever way it is read.
function Doc:read_floats(i, path, types, comps)
  return self:decode(i, path, types, comps, self.floats, decode.floats)
end

-- Doc:read and Doc:read_floats: the checks, the budget, and the cache `cache` of `decoder`'s results
function Doc:decode(i, path, types, comps, cache, decoder)
  local desc = self:accessor(i, path)
  if types and not types[desc.type] then
    fail(path, "accessor %d is a %s, not a %s", desc.index, desc.type, M.names(types))
  end
  if comps and not comps[desc.kind] then
    fail(path, "accessor %d has %s components, not %s", desc.index, desc.kind, M.names(comps))
  end
  local done = cache[desc.index]
  if done then return done[1], desc, done[2] end
  if not (self.decoded[desc.index] or self.floats[desc.index]) then self:spend_values(desc, M.NUMBER_BYTES, path) end
  local values, bad = Fault.core(function() return ("accessors[%d]"):format(desc.index) end, decoder, desc)
  cache[desc.index] = { values, bad }
  return values, desc, bad
end

--- The names of a set, sorted, as "a or b".
function M.names(set)
  local list = {}
  for k in each, set do list[#list + 1] = k end
  table.sort(list)
  return table.concat(list, " or ")
end

return M
