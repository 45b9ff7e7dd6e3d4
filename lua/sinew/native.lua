--- Finds sinew's native library (`sinew/core.so`, `.dll` on Windows) where `require` cannot: in
-- a LÖVE game packed as a `.love` or fused into an executable, LÖVE's `require` loads Lua files
-- from inside the archive but native libraries only from real folders. `require "sinew"` calls
-- this when `require "sinew.core"` fails; it tries, in order:
--
-- 1. `package.cpath` (what `require` just tried: the message says what it looked at);
-- 2. beside the game: `sinew/core.<ext>` in `love.filesystem.getSourceBaseDirectory()` (the
--    folder holding the `.love`, or the fused executable's folder);
-- 3. inside the game: `sinew/core.<ext>` in the archive, copied into the save directory
--    (`love.filesystem.getSaveDirectory()`, as `sinew-native/core.<ext>`, rewritten when the
--    game's copy changes) and loaded from there.
--
-- When all fail it raises one error that says what each way found.
-- @module sinew.native
local M = {}

local windows = package.config:sub(1, 1) == "\\"
M.ext = windows and "dll" or "so"
M.entry = "luaopen_sinew_core"

-- loads the library at `path`: the module table, or nil and why
local function open(path)
  local loader, why = package.loadlib(path, M.entry)
  if not loader then return nil, tostring(why) end
  local ok, mod = pcall(loader, "sinew.core")
  if not ok then return nil, tostring(mod) end
  package.loaded["sinew.core"] = mod
  return mod
end

-- this Lua as the Makefile names it (`make LUA=<name>`)
local function this_lua()
  if rawget(_G, "jit") then return "luajit", "LuaJIT" end
  return (_VERSION:gsub("^Lua ", "lua")), _VERSION
end

--- What to do about what `require "sinew.core"` said, for the error of `load`: when it found a
-- library that does not load (most often one built for another Lua: `undefined symbol: lua_...`),
-- that library's path, why, and what to do about it; else how to build one. Lines after the first
-- are indented by two spaces.
-- @param require_error what `require "sinew.core"` said (any value: it is read with tostring)
-- @treturn string
-- @raise never
function M.hint(require_error)
  local make_name, lua_name = this_lua()
  local build = ("`make LUA=%s`, then LUA_CPATH=\"build/%s/?.so;;\" (see README.md, Install)"):format(
    make_name, make_name)
  local text = tostring(require_error)
  local path = text:match("error loading module '[^']*' from file '([^']+)'")
  if not path then return "build it for this Lua: " .. build end
  local symbol = text:match("undefined symbol: (luaL?_[%w_]+)")
  local why = symbol and ("it was built for another Lua (%s has no %s)"):format(lua_name, symbol)
    or "it is there but does not load"
  return ("%s is in the way: %s.\n  Remove it (`luarocks make` of older sinew left one in the clone), or put a "
    .. "build for this Lua ahead of it:\n  %s"):format(path, why, build)
end

--- The C core, found one of the ways above.
-- @param require_error what `require "sinew.core"` said (any value: it is shown with tostring)
-- @treturn table the module `sinew.core` (also put in `package.loaded`)
-- @raise "sinew: cannot load the native library sinew.core:" and a line for each way tried, when
-- none works (outside LÖVE, only `package.cpath` is tried, followed by what `hint` says)
function M.load(require_error)
  local tried = { "package.cpath: " .. tostring(require_error):gsub("\n%s*", "\n    ") }
  local love = rawget(_G, "love")
  local fs = love and love.filesystem
  if not fs then
    error("sinew: cannot load the native library sinew.core:\n  " .. table.concat(tried, "\n  ") ..
      "\n  " .. M.hint(require_error), 0)
  end
  local file = "sinew/core." .. M.ext
  -- 2. beside the .love or the fused executable
  local base = fs.getSourceBaseDirectory and fs.getSourceBaseDirectory()
  if base then
    local mod, why = open(base .. "/" .. file)
    if mod then return mod end
    tried[#tried + 1] = ("beside the game, %s/%s: %s"):format(base, file, why)
  end
  -- 3. from inside the archive, through the save directory (under another name, so that the
  --    archive's copy is still what reads as sinew/core.<ext>: a newer game replaces an older copy)
  if fs.getInfo and fs.getInfo(file) then
    local bytes = fs.read(file)
    local copy = "sinew-native/core." .. M.ext
    if fs.read(copy) ~= bytes then
      fs.createDirectory("sinew-native")
      local ok, why = fs.write(copy, bytes)
      if not ok then tried[#tried + 1] = ("copying %s into the save directory: %s"):format(file, tostring(why)) end
    end
    local target = fs.getSaveDirectory() .. "/" .. copy
    local mod, why = open(target)
    if mod then return mod end
    tried[#tried + 1] = ("inside the game, copied to %s: %s"):format(target, why)
  else
    tried[#tried + 1] = ("inside the game: no %s in it"):format(file)
  end
  error("sinew: cannot load the native library sinew.core:\n  " .. table.concat(tried, "\n  ") ..
    "\n  (put " .. file .. " beside the game, or inside it; see manual/love.md)", 0)
end

return M
