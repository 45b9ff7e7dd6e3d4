--- JSON text into Lua tables, for the importers of sinew (glTF, DragonBones): the default decoder
-- (lua-cjson when installed, else dkjson) and one decode step that never raises.
-- @module sinew.json
local M = {}

-- the default decoder, found once: a function text -> table, or nil and why
local default_decoder

--- The default decoder of JSON text into Lua tables: lua-cjson when installed (C, fast; strict
-- JSON, at most 128 levels of nesting), else dkjson (pure Lua: a single file a LÖVE game can ship
-- beside sinew), else nil.
-- @treturn ?function text -> table, or nil and why
function M.default()
  if default_decoder ~= nil then return default_decoder or nil end
  local ok, cjson = pcall(require, "cjson.safe")
  if ok and type(cjson) == "table" and cjson.new then
    local c = cjson.new()
    c.decode_max_depth(128) -- the formats nest a few levels; hostile text nests thousands
    c.decode_invalid_numbers(false) -- strict JSON: no NaN, Infinity or hex
    default_decoder = function(text) return c.decode(text) end
    return default_decoder
  end
  local ok2, dkjson = pcall(require, "dkjson")
  if ok2 and type(dkjson) == "table" and dkjson.decode then
    default_decoder = function(text)
      local doc, _, err = dkjson.decode(text, 1, nil)
      if err then return nil, err end
      return doc
    end
    return default_decoder
  end
  default_decoder = false
  return nil
end

--- What to install when there is no decoder, a sentence.
M.NO_DECODER = "no JSON decoder: install dkjson (Debian: apt-get install lua-dkjson; LuaRocks: luarocks install " ..
  "dkjson; LÖVE: put dkjson.lua beside main.lua), or lua-cjson, or pass options.json"

--- Decodes JSON `text` into a table with `decoder` (nil: the default one). Never raises: an
-- error inside the decoder (dkjson: "stack overflow" for deep nesting) or anything but an object
-- or array gives nil and why.
-- @tparam string text
-- @tparam[opt] function decoder text -> table, or nil and why
-- @treturn ?table the document
-- @treturn ?string why not
function M.decode(text, decoder)
  decoder = decoder or M.default()
  if decoder == nil then return nil, M.NO_DECODER end
  local ok, doc, err = pcall(decoder, text)
  if not ok then
    return nil, ("the JSON does not parse: %s"):format((tostring(doc):gsub("^[^:\n]*:%d+: ", "")))
  end
  if type(doc) ~= "table" then
    return nil, ("the JSON does not parse: %s"):format(tostring(err or "not an object"))
  end
  return doc
end

return M
