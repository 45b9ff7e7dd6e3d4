--- Kinds of pose the animator plays. The animator never calls a pose function by name: it reaches
-- what it needs (make a pose, sample a clip, blend, delta, add, copy, read and write a joint's
-- numbers for a snapshot) through the kind of its skeleton, found here from the skeleton's type.
-- sinew's 3-D joints are the kind registered first; another kind of skeleton (a 2-D rig) plays
-- through the same definitions, state machines and blend trees once it registers its own.
--
-- A kind is a table of:
--
-- - `name` (for messages), `dims` (3 or 2: the IK solvers an `ik` list of the kind takes, as
--   `sinew.ik.kind` tells them), and the types (metatables) of its `Skeleton`, `Pose`, `Mask`, `Clip`,
--   whose objects are `object` ("userdata", the default, or "table" for a kind written in Lua);
-- - `joints(skeleton)`: how many joints a skeleton has; `pose(skeleton)`: a new pose at rest;
--   `blend(out, poses, weights [, masks, nil, rotation])`,
--   `delta(out, pose, reference)`, `add(pose, delta, weight [, mask])`, `copy(pose, from)`: the
--   verbs of sinew.blend, sinew.delta, pose:add and pose:copy;
-- - `complement(skeleton, mask)`: a new mask of 1 - the mask's weight per joint (and, for 3-D
--   joints, per morph target);
-- - `numbers`: how many numbers `get(pose, j)` gives and `set(pose, j, ...)` takes per joint
--   (snapshots hold them), and `check(q, offset, j)`: nil, or why joint j's numbers
--   `q[offset + 1 ..]` (finite floats) are no pose that `set` takes;
-- - `clip_events(clip)` (optional): the events a clip holds, `{ { at = 0 .. 1, name = ... }, ... }`
--   in time order; a state that plays the clip alone fires them (DragonBones' frame events);
-- - `root_motion`: functions for the animator's root motion (`read(clip, t, joint)`: x, z and
--   heading of a joint in a clip at time t, that joint alone sampled; `remove(pose, skeleton,
--   joint)`), or nil when the kind has none.
-- @module sinew.animator.pose_kind
local core = require "sinew.core"

local M = {}

local kinds = {} -- Skeleton metatable -> kind

--- Registers a kind of pose (the table above), found afterwards by its skeletons' type.
-- @tparam table kind
function M.register(kind)
  kinds[kind.Skeleton] = kind
end

--- The kind of `skeleton`, or nil when it is no registered kind's skeleton.
function M.of(skeleton)
  local t = type(skeleton)
  if t ~= "userdata" and t ~= "table" then return nil end
  local kind = kinds[getmetatable(skeleton)]
  if kind and t == (kind.object or "userdata") then return kind end
  return nil
end

--- Whether `v` is an object of type `mt` (one of kind's `Pose`, `Mask`, `Clip`).
function M.is(kind, v, mt)
  return type(v) == (kind.object or "userdata") and getmetatable(v) == mt
end

-- ---- 3-D joints ------------------------------------------------------------------------------------

local atan2 = math.atan2 or math.atan

do
  local skel = core.skeleton { names = { "a" }, parents = { 0 } }
  local Pose = getmetatable(core.pose(skel))
  local pose_methods = Pose.__index

  local function complement(skeleton, mask)
    local comp = core.mask(skeleton, {}, 0)
    for j = 1, #skeleton do comp:set(j, 1 - mask:get(j)) end
    for m = 1, skeleton:morph_count() do comp:set_morph(m, 1 - mask:get_morph(m)) end
    return comp
  end

  -- translation, rotation (not zero), scale of joint j at q[b + 1 .. b + 10] (numbers within
  -- the float range)
  local function check(q, b, j)
    if q[b + 4] ^ 2 + q[b + 5] ^ 2 + q[b + 6] ^ 2 + q[b + 7] ^ 2 < 1e-24 then
      return ("rotation of joint %d is zero"):format(j)
    end
    return nil
  end

  -- the joint's x, z and heading (rotation about y: 2 atan2(qy, qw) of its twist about y) in
  -- `clip` at time t (seconds, within the clip): that joint alone sampled
  local function read(clip, t, joint)
    local x, _, z, _, qy, _, qw = clip:sample_joint(t, joint, false)
    return x, z, 2 * atan2(qy, qw)
  end

  -- the joint keeps its rest x and z and loses its heading
  local function remove(pose, skeleton, j)
    local _, ty, _, qx, qy, qz, qw = pose:get(j)
    local rx, _, rz = skeleton:rest(j)
    -- q without its twist about y: conj(twist) * q, twist = (0, qy, 0, qw) normalised
    local n = math.sqrt(qy * qy + qw * qw)
    if n > 1e-12 then
      local cy, cw = -qy / n, qw / n
      qx, qy, qz, qw = cw * qx + cy * qz, cw * qy + cy * qw, cw * qz - cy * qx, cw * qw - cy * qy
    end
    pose:set_translation(j, rx, ty, rz)
    pose:set_rotation(j, qx, qy, qz, qw)
  end

  M.register {
    name = "3-D joints", dims = 3,
    Skeleton = getmetatable(skel), Pose = Pose, Mask = getmetatable(core.mask(skel, {})),
    Clip = core.clip and getmetatable(core.clip { skeleton = skel, tracks = {} }),
    joints = function(s) return #s end, pose = core.pose, blend = core.blend, delta = core.delta,
    add = pose_methods.add, copy = pose_methods.copy,
    complement = complement,
    numbers = 10, get = pose_methods.get, set = pose_methods.set, check = check,
    morphs = function(s) return s:morph_count() end, get_morph = pose_methods.morph, set_morph = pose_methods.set_morph,
    root_motion = { read = read, remove = remove },
  }
end

return M
