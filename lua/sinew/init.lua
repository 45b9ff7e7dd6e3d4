--- sinew: animation blending for Lua.
--
-- `require "sinew"` returns this table: the C core's entries (`sinew.quat`, `sinew.blendspace`,
-- `sinew.skeleton`, ...) and the Lua modules built on them.
-- @module sinew
local ok, core = pcall(require, "sinew.core")
if not ok then core = require("sinew.native").load(core) end -- a packed LÖVE game: see sinew.native

local M = {}

--- The version of sinew, a string.
M._VERSION = "0.1.0"

for name, value in pairs(core) do
  M[name] = value
end

--- glTF 2.0 import (see `sinew.gltf`).
M.gltf = require "sinew.gltf"

--- The animator: state machines, blend trees, layers and events (see `sinew.animator`).
M.animator = require "sinew.animator"

return M
