--- sinew: animation blending for Lua.
--
-- `require "sinew"` returns this table: the C core's entries (`sinew.quat`, `sinew.blendspace`,
-- `sinew.skeleton`, the `sinew.ik` table of solvers, ...) and the Lua modules built on them.
-- @module sinew
local ok, core = pcall(require, "sinew.core")
if not ok then core = require("sinew.native").load(core) end -- a packed LÖVE game: see sinew.native

local M = {}

local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

--- The version of sinew, a string.
M._VERSION = "0.1.0"

--- Which way the per-frame functions reach the C core: `"ffi"` (LuaJIT with the JIT on: see
-- `sinew.ffi`) or `"c"` (Lua's C API, on every Lua). The environment variable `SINEW_FFI` forces
-- it: `0` the C API, `1` the FFI (an error where LuaJIT's FFI is missing).
M.path = "c"
--- Why `sinew.path` is what it is, a sentence.
M.path_reason = "Lua " .. _VERSION:gsub("Lua ", "") .. " has no FFI"
do
  local jit = rawget(_G, "jit")
  local getenv = type(os) == "table" and os.getenv
  local force = getenv and getenv("SINEW_FFI") or nil
  if force == "0" then
    M.path_reason = "SINEW_FFI=0"
  elseif force == "1" or (jit and jit.status and jit.status()) then
    local loaded, fast = pcall(require, "sinew.ffi")
    local installed, why = false, fast
    if loaded then installed, why = fast.install(core) end
    if installed then
      M.path, M.path_reason = "ffi", force == "1" and "SINEW_FFI=1" or "LuaJIT with the JIT on"
    elseif force == "1" then
      error("SINEW_FFI=1, yet the FFI path cannot be used: " .. tostring(why), 0)
    else
      M.path_reason = "the FFI path cannot be used: " .. tostring(why)
    end
  elseif jit then
    M.path_reason = "the JIT is off"
  end
end

for name, value in each, core do
  if name ~= "_ffi" then M[name] = value end -- what the FFI path reads stays in sinew.core
end

--- glTF 2.0 import (see `sinew.gltf`).
M.gltf = require "sinew.gltf"

--- DragonBones 5.0 to 5.5 import (see `sinew.dragonbones`).
M.dragonbones = require "sinew.dragonbones"

--- BVH motion-capture import (see `sinew.bvh`).
M.bvh = require "sinew.bvh"

--- Inverse kinematics: the core's solvers and `spread` (see `sinew.ik`).
M.ik = require "sinew.ik"

--- The animator: state machines, blend trees, layers and events (see `sinew.animator`).
M.animator = require "sinew.animator"

return M
