--- The LuaJIT fast path: the per-frame functions call the C core through the FFI.
--
-- Under LuaJIT with the JIT on, `require "sinew"` installs this path (see `sinew.path`). A call
-- through Lua's C API ends the JIT's trace; a call through the FFI costs far less and the trace
-- goes on (manual/performance.md has the figures). The public API stays the same: each fast
-- function takes the arguments the C binding takes and returns what it returns. It handles the
-- common case (the right objects, plain finite numbers) itself; any other call, and any call the
-- core refuses, goes to the C binding's own function, which raises the same error as on Lua 5.4
-- (a refused call changes nothing, so calling again is safe).
--
-- Objects keep their validation: every `self` and object argument is checked to be a userdata
-- with the class's own metatable (the test the C binding makes); what the core checks (same
-- skeleton, ranges) it still checks, because the same core function runs.
--
-- The quaternion functions but `blend` are Lua here, computed as the C core computes them, so
-- the JIT compiles them into the caller's trace (see sinew.ffi.quat). So are the weights of
-- `simple_directional` spaces (from the space's own wedges, the same bits). The others call the
-- core through the function table the native library hands over (`src/binding/ffi.c`).
--
-- The pieces, one subject each: `cdef` (the declarations), `errors` (how a refused call raises),
-- `args` (the argument tests), `quat` (the quaternion library), and one module per class family
-- (`pose` with `sinew.blend`, `clip`, `chain`, `blendspace`, `ik`). This module installs them and owns
-- the map from each fast function to the C binding's function it stands for.
--
-- Besides these, only sinew.love2d (LÖVE drawing, not part of this path) requires "ffi".
-- @module sinew.ffi
local cdef = require "sinew.ffi.cdef"
local quat = require "sinew.ffi.quat"
local pose = require "sinew.ffi.pose"
local clip = require "sinew.ffi.clip"
local chain = require "sinew.ffi.chain"
local blendspace = require "sinew.ffi.blendspace"
local ik = require "sinew.ffi.ik"

local M = {}

local ipairs = ipairs
local each = next -- `for k, v in each, t`: not named pairs or next (see sinew.animator.definition)

--- The declarations (sinew.ffi.cdef), for the spec that compares them with the C sources.
M.CDEF = cdef.CDEF

--- Installs the fast path into `core` (`require "sinew.core"`, whose entries `require "sinew"`
-- then copies): its `quat` functions and `blend`, and the methods of the classes. Returns true,
-- or false and why the C binding stays in use (nothing is changed then).
function M.install(core)
  local T, why = cdef.declare(core)
  if not T then return false, why end
  local mts = core._ffi.metatables
  local POSE, CLIP, CURSOR, CHAIN = mts["sinew.Pose"], mts["sinew.Clip"], mts["sinew.ClipCursor"], mts["sinew.Chain"]
  local SPACES = mts["sinew.BlendSpace"]

  -- the C binding's functions, kept for every call the fast path does not take (and for specs)
  local C = { quat = {}, Pose = {}, Clip = {}, ClipCursor = {}, Chain = {}, BlendSpace = {}, IKTwoBone = {}, IKAim = {},
    IKChain = {}, IKFeet = {} }
  for k, v in each, core.quat do C.quat[k] = v end
  for k, v in each, POSE.__index do C.Pose[k] = v end
  for k, v in each, CLIP.__index do C.Clip[k] = v end
  for k, v in each, CURSOR.__index do C.ClipCursor[k] = v end
  for k, v in each, CHAIN.__index do C.Chain[k] = v end
  for k, v in each, mts["sinew.IKTwoBone"].__index do C.IKTwoBone[k] = v end
  for k, v in each, mts["sinew.IKAim"].__index do C.IKAim[k] = v end
  for k, v in each, mts["sinew.IKChain"].__index do C.IKChain[k] = v end
  for k, v in each, mts["sinew.IKFeet"].__index do C.IKFeet[k] = v end
  for i, mt in ipairs(SPACES) do C.BlendSpace[i] = mt.__index.weights end
  C.blend = core.blend
  C.try = core.try
  M.c = C
  local try = C.try

  -- each fast function -> the C binding's function it stands for: `sinew.try(fn, ...)` calls that
  -- one, so that a refusal comes back as the same `nil, message, argument` as on the C path
  local c_of = {}
  core.try = function(fn, ...) return try(c_of[fn] or fn, ...) end
  local function register(fast, c) c_of[fast] = c end

  for k, v in each, quat.functions(T, C.quat, try) do
    core.quat[k] = v
    register(v, C.quat[k])
  end

  -- what each class family's module reads (and `register`, its only way to the map above)
  local ctx = { core = core, T = T, C = C, try = try, metatables = mts, register = register }
  blendspace.install(ctx)
  pose.install(ctx)
  clip.install(ctx)
  chain.install(ctx)
  ik.install(ctx)
  return true
end

return M
