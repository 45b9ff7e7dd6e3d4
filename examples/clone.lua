-- Lets the examples run from a clone of sinew as printed (`lua5.4 examples/demo.lua`), from any
-- folder: adds the clone's lua/ and the build of the interpreter running it (`make` builds
-- build/lua5.4/, `make LUA=luajit` build/luajit/, ...) after the paths already set, so that
-- LUA_PATH / LUA_CPATH and an installed rock still come first. Returns the clone's folder
-- ("" or ending in a slash), for the examples' files.
local script = arg and arg[0] or ""
local root = script:match("^(.-)examples[/\\][^/\\]*$")
if root == nil then root = (script:match("^(.*[/\\])") or "") .. "../" end
local interpreter = rawget(_G, "jit") and "luajit" or _VERSION:gsub("Lua ", "lua")
package.path = package.path .. ";" .. root .. "lua/?.lua;" .. root .. "lua/?/init.lua"
package.cpath = package.cpath .. ";" .. root .. "build/" .. interpreter .. "/?.so"
return root
