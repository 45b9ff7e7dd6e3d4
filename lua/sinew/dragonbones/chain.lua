--- Dynamic chains on 2-D rigs: hair, tails, capes and skirts of a DragonBones rig swinging after
-- its animation, under gravity and wind, bumping into circles, capsules and lines, written back
-- into the rig's 2-D pose as bone rotations. Made by `rig:chain(def)`; see manual/2d.md,
-- "Dynamic chains on 2-D rigs".
--
-- The simulation is `sinew.chain`'s (the same solvers, colliders, fixed step and interpolation),
-- run in the rig's plane: armature space, z = 0, y down (so gravity pointing down is +y). Each
-- step the animated bones' world origins (and a tip beyond the last bone) are handed to the chain
-- as a small 3-D skeleton: the first bone placed by the chain's root matrix (its world origin and
-- the direction of its x axis, in double precision), each next origin a translation from the
-- previous one in that frame. The first bone follows the animation; the others simulate. After the
-- step, each bone, parent before child, gets the rotation that turns its animated segment (its
-- origin to the next origin, or to the tip) onto the simulated one, once what its parent's new
-- rotation already did is taken out: with the parent's world matrix P and the linear change C
-- the chain has made to it, a bone that inherits scale gets the angle from P^-1 S to P^-1 C^-1 T
-- (S its animated segment, T the target), which is exact under any parent matrix (mirrored, skewed,
-- scaled unevenly); a bone that does not gets the turn of its world matrix minus its parent's turn
-- (negated under a mirrored parent, as the runtime adds the angle there). The angles are added to
-- the pose's rotations and the rig applies the pose again.
-- @classmod sinew.dragonbones.Chain
local core = require "sinew.core"
local Kind = require "sinew.dragonbones.kind"
local show = require("sinew.fault").show

local M = {}

local Chain = {} -- the methods and metatable of chains
Chain.__index = Chain

local atan2 = math.atan2 or math.atan
local sqrt, cos, sin, huge, floor = math.sqrt, math.cos, math.sin, math.huge, math.floor

-- the largest coordinate a chain takes (SN_CHAIN_MAX_COORD), in armature units
local MAX_COORD = 1e9

local PASSED = { "damping", "elasticity", "stiffness", "inert", "radius", "rate", "max_steps",
  "max_colliders", "teleport", "solver" }
local FIELDS = { bones = true, root = true, end_length = true, gravity = true, force = true,
  colliders = true }
for _, k in ipairs(PASSED) do FIELDS[k] = true end

-- ---- helpers -----------------------------------------------------------------------------

local function finite(v) return type(v) == "number" and v == v and v ~= huge and v ~= -huge end

-- the chain at argument 1 of `method`, checked
local function check(self, method)
  if getmetatable(self) ~= Chain or rawget(self, "rig") == nil then
    error(("bad argument #1 to '%s' (a sinew.dragonbones chain expected, got %s)"):format(method, type(self)), 3)
  end
  return self
end

-- The 3-D chain's methods are called through `sinew.core.try`, which gives what they refuse as
-- `nil, message, argument` (the argument's position among the 3-D method's own, self 1): the
-- message is raised again naming the 2-D method and its own argument, the 3-D shapes named as the
-- 2-D ones. ARGS_1: set_param, get_param, add_collider (the same arguments less self); MOVE_ARGS:
-- move_collider per shape, the 3-D arguments of the 2-D ones (z and a normal's z: none).
local try = core.try
local ARGS_1 = { [2] = 1, [3] = 2, [4] = 3 }
local MOVE_ARGS = {
  sphere = { [2] = 1, [3] = 2, [4] = 3, [6] = 4 },                                      -- k, cx, cy, radius
  capsule = { [2] = 1, [3] = 2, [4] = 3, [6] = 4, [7] = 5, [9] = 6, [10] = 7 },          -- k, ax, ay, bx, by, r, rb
  plane = { [2] = 1, [3] = 2, [4] = 3, [6] = 4, [7] = 5 },                              -- k, px, py, nx, ny
}
local SHAPE_2D = { sphere = "circle", plane = "line" }

-- raises what the 3-D chain refused (`why`, at its argument `arg`) as method `fname`'s own
-- fault, at the caller of the method
local function refused(fname, why, args, arg)
  why = tostring(why):gsub("^(%a+)", SHAPE_2D)
  local at = arg and args[arg]
  if at then error(("bad argument #%d to '%s' (%s)"):format(at, fname, why), 3) end
  error(("'%s': %s"):format(fname, why), 3)
end

-- error for a bad definition: "bad argument #1 to 'chain' (...)" at the caller of rig:chain
local function bad(level, fmt, ...)
  error("bad argument #1 to 'chain' (" .. fmt:format(...) .. ")", level + 1)
end

-- a {x, y} field of the definition as 3 numbers in the plane, or nil when absent
-- x, y of v when it is a table of 2 finite numbers (each read once), else nil
local function xy(v)
  if type(v) ~= "table" then return nil end
  local x, y, n = v[1], v[2], #v
  if n ~= 2 or not finite(x) or not finite(y) then return nil end
  return x, y
end

-- a {x, y} field of the definition as 3 numbers in the plane, or nil when absent
local function vec2(def, name, level)
  local v = def[name]
  if v == nil then return nil end
  local x, y = xy(v)
  if x == nil then bad(level + 1, "'%s' must be a table of 2 finite numbers {x, y}", name) end
  return { x, y, 0 }
end

-- the angle that turns (ux, uy) onto (vx, vy) (0 when either is zero)
local function turn(ux, uy, vx, vy)
  local c, s = ux * vx + uy * vy, ux * vy - uy * vx
  if c == 0 and s == 0 then return 0 end
  return atan2(s, c)
end

-- the bone index of `v` (a name or an index) in the rig's armature, or nil
local function bone_of(arm, v)
  if type(v) == "number" then
    if v == floor(v) and v >= 1 and v <= #arm.bones then return v end
    return nil
  end
  return arm.bone[v]
end

-- the chain's bones from the definition: a list of bone indices, parent to child
local function chain_bones(arm, def, level)
  local list = {}
  local bones, root = def.bones, def.root
  if bones ~= nil and root ~= nil then bad(level + 1, "give either 'bones' or 'root', not both") end
  if bones ~= nil then
    local nb = type(bones) == "table" and #bones or 0
    if nb == 0 then bad(level + 1, "'bones' must be a non-empty list of bone names") end
    for i = 1, nb do
      local v = bones[i]
      local b = bone_of(arm, v)
      if b == nil then bad(level + 1, "'bones' element %d: no bone '%s'", i, tostring(v)) end
      if i > 1 and arm.bones[b].parent ~= list[i - 1] then
        bad(level + 1, "'bones' element %d: bone '%s' is not a child of '%s'", i, arm.bones[b].name,
          arm.bones[list[i - 1]].name)
      end
      list[i] = b
    end
  elseif root ~= nil then
    local b = bone_of(arm, root)
    if b == nil then bad(level + 1, "'root': no bone '%s'", tostring(root)) end
    local children = {}
    for j, bone in ipairs(arm.bones) do
      if bone.parent then
        local c = children[bone.parent]
        if not c then c = {}; children[bone.parent] = c end
        c[#c + 1] = j
      end
    end
    while b do
      list[#list + 1] = b
      local c = children[b]
      if c and #c > 1 then
        bad(level + 1, "'root': bone '%s' has %d children ('%s', '%s', ...): give the run as 'bones'",
          arm.bones[b].name, #c, arm.bones[c[1]].name, arm.bones[c[2]].name)
      end
      b = c and c[1]
    end
  else
    bad(level + 1, "give 'bones' (a parent-to-child list of bone names) or 'root'")
  end
  -- bones the chain cannot turn
  for i, b in ipairs(list) do
    local bone = arm.bones[b]
    if i > 1 and not bone.inherit_translation then
      bad(level + 1, "bone '%s' does not inherit its parent's translation: its parent cannot swing it", bone.name)
    end
    for _, k in ipairs(arm.ik or {}) do
      local moved = k.bone == b or (k.chain and k.chain > 0 and arm.bones[k.bone].parent == b)
      if moved then bad(level + 1, "bone '%s' is moved by IK constraint '%s'", bone.name, k.name) end
    end
  end
  return list
end

-- the rig's world matrix of bone b into w[o + 1 .. o + 6]
local function read_bone(rig_core, b, w, o)
  local a, bb, c, d, tx, ty = rig_core:bone(b)
  w[o + 1], w[o + 2], w[o + 3], w[o + 4], w[o + 5], w[o + 6] = a, bb, c, d, tx, ty
end

-- ---- the collider definitions, 2-D to 3-D --------------------------------------------------

local SHAPES = { circle = "sphere", sphere = "sphere", capsule = "capsule", line = "plane", plane = "plane" }
local COLLIDER_FIELDS = { shape = true, center = true, radius = true, a = true, b = true, radius_b = true,
  point = true, normal = true, inside = true }

local function point2(c, name, what)
  local x, y = xy(c[name])
  if x == nil then error(("%s '%s' must be a table of 2 finite numbers {x, y}"):format(what, name), 0) end
  return { x, y, 0 }
end

-- the 3-D definition of 2-D collider `c` (raises a message without position); its shape
local function collider3(c)
  if type(c) ~= "table" then error(("a collider must be a table (got %s)"):format(type(c)), 0) end
  for k in pairs(c) do
    if not COLLIDER_FIELDS[k] then error(("unknown collider field '%s'"):format(tostring(k)), 0) end
  end
  local name = c.shape
  local shape = SHAPES[name]
  if shape == nil then
    error(("unknown collider shape '%s' ('circle', 'capsule' or 'line')"):format(tostring(name)), 0)
  end
  local out = { shape = shape, inside = c.inside, radius = c.radius, radius_b = c.radius_b }
  if shape == "sphere" then
    out.center = point2(c, "center", "circle")
  elseif shape == "capsule" then
    out.a, out.b = point2(c, "a", "capsule"), point2(c, "b", "capsule")
  else
    out.point, out.normal = point2(c, "point", "line"), point2(c, "normal", "line")
  end
  return out, shape
end

-- ---- per frame ---------------------------------------------------------------------------

-- reads the rig's world matrices of the chain's bones (and of the first bone's parent), the
-- origins p and the root matrix (the first bone's origin and x direction)
local function read(self)
  local rig_core, list, w, p, n = self.rig.core, self.list, self.w, self.p, self.n
  for i = 1, n do
    read_bone(rig_core, list[i], w, 6 * (i - 1))
    p[2 * i - 1], p[2 * i] = w[6 * i - 1], w[6 * i]
  end
  if self.tip == 1 then
    local o, L = 6 * (n - 1), self.end_length
    p[2 * n + 1] = w[o + 1] * L + w[o + 5]
    p[2 * n + 2] = w[o + 2] * L + w[o + 6]
  end
  local parent_w = self.parent_w
  if self.parent then
    read_bone(rig_core, self.parent, parent_w, 0)
  else
    parent_w[1], parent_w[2], parent_w[3], parent_w[4], parent_w[5], parent_w[6] = 1, 0, 0, 1, 0, 0
  end
  local a, b = w[1], w[2]
  local len = sqrt(a * a + b * b)
  local c, s = 1, 0
  if len > 0 then c, s = a / len, b / len end
  local root = self.root
  root[1], root[2], root[5], root[6] = c, s, -s, c
  root[13], root[14] = p[1], p[2]
  -- every origin within the chain's range (a non-finite matrix fails here too)
  for i = 1, 2 * self.particles do
    local v = p[i]
    if not (v >= -MAX_COORD and v <= MAX_COORD) then return floor((i + 1) / 2) end
  end
  return nil
end

-- the message for a read that found particle i out of range
local function out_of_range(self, i)
  local arm = self.rig.model
  local what = i <= self.n and ("bone '%s'"):format(arm.bones[self.list[i]].name)
    or ("the tip of bone '%s'"):format(arm.bones[self.list[self.n]].name)
  return ("%s is placed out of range (-%g .. %g) or not finite"):format(what, MAX_COORD, MAX_COORD)
end

-- ---- construction ------------------------------------------------------------------------

-- a rest transform for the proxy skeleton: translation (x, y, 0), identity rotation, unit scale
local function rest(x, y) return { x, y, 0, 0, 0, 0, 1, 1, 1, 1 } end

-- A new chain of `rig`'s bones (`Rig:chain` is how users make one); `level` is the error level
-- of the caller of the function that calls it, less one.
function M.new(rig, def, level)
  level = (level or 1) + 1
  if type(def) ~= "table" then bad(level, "a table expected, got %s", type(def)) end
  for k in pairs(def) do
    if not FIELDS[k] then bad(level, "unknown field '%s' in the chain definition", tostring(k)) end
  end
  do -- each field read once (a table whose reads change cannot change it midway)
    local d = {}
    for k in pairs(FIELDS) do d[k] = def[k] end
    def = d
  end
  local arm = rig.model
  local list = chain_bones(arm, def, level)
  local n = #list
  local last = arm.bones[list[n]]
  local end_length = def.end_length
  if end_length == nil then end_length = last.length or 0 end
  if not finite(end_length) or end_length < 0 or end_length > MAX_COORD then
    bad(level, "'end_length' must be a number in [0, %g] (got %s)", MAX_COORD, tostring(end_length))
  end
  local tip = end_length > 0 and 1 or 0
  if n + tip < 2 then
    bad(level, "a chain needs 2 bones, or 1 bone and an 'end_length' above 0 (bone '%s' has 'length' 0)", last.name)
  end
  local gravity = vec2(def, "gravity", level) or { 0, 0, 0 }
  local force = vec2(def, "force", level)
  if def.colliders ~= nil and type(def.colliders) ~= "table" then
    bad(level, "'colliders' must be a list of collider tables (got %s)", type(def.colliders))
  end
  local colliders, shapes = {}, {}
  for i, c in ipairs(def.colliders or {}) do
    local ok, c3, shape = pcall(collider3, c)
    if not ok then bad(level, "'colliders' element %d: %s", i, tostring(c3)) end
    colliders[i], shapes[i] = c3, shape
  end

  -- the proxy skeleton, at the rig's current pose: joint i at bone i's origin, the tip last
  local self = setmetatable({
    rig = rig, list = list, n = n, tip = tip, particles = n + tip, end_length = end_length,
    w = {}, parent_w = {}, p = {}, t = {}, q = {}, shapes = shapes, fresh = true, vec = { 0, 0, 0 },
    root = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 },
  }, Chain)
  local parent = arm.bones[list[1]].parent
  self.parent = parent
  local names, parents, rests = {}, {}, {}
  local far = read(self)
  if far then bad(level, "%s", out_of_range(self, far)) end
  local p, c, s = self.p, self.root[1], self.root[2]
  for i = 1, self.particles do
    names[i] = i <= n and arm.bones[list[i]].name or last.name .. " tip"
    parents[i] = i - 1
    if i == 1 then
      rests[i] = rest(0, 0)
    else
      local dx, dy = p[2 * i - 1] - p[2 * i - 3], p[2 * i] - p[2 * i - 2]
      rests[i] = rest(c * dx + s * dy, -s * dx + c * dy)
    end
  end
  local made, skeleton = pcall(core.skeleton, { names = names, parents = parents, rest = rests })
  if not made then -- (a segment too long for a float; the names come from the file)
    local why = tostring(skeleton):gsub("^bad argument #%d+ to '[^']*' %((.*)%)$", "%1")
    bad(level, "the chain's bones cannot be simulated: %s", why)
  end
  self.skeleton = skeleton
  self.pose3, self.rest3 = core.pose(self.skeleton), core.pose(self.skeleton)
  local cdef = { skeleton = self.skeleton, root = 1, gravity = gravity, force = force }
  for _, k in ipairs(PASSED) do cdef[k] = def[k] end
  local ok, chain = pcall(core.chain, cdef)
  if not ok then error((tostring(chain):gsub("^bad argument #1 to '[^']*' %(", "bad argument #1 to 'chain' (")), level) end
  self.chain = chain
  for i, c3 in ipairs(colliders) do
    local added, why = pcall(chain.add_collider, chain, c3)
    if not added then
      bad(level, "'colliders' element %d: %s", i, (tostring(why):gsub("^bad argument #%d+ to '[^']*' %((.*)%)$", "%1")))
    end
  end
  -- per-bone facts for the write-back
  self.scale_inherit, self.rotation_inherit = {}, {}
  for i = 1, n do
    local bone = arm.bones[list[i]]
    self.scale_inherit[i] = bone.inherit_scale and true or false
    self.rotation_inherit[i] = bone.inherit_rotation and (i > 1 or parent ~= nil) and true or false
  end
  self.has_parent = parent ~= nil
  return self
end

-- adds to pose the rotations that turn the bones onto the simulated segments
local function write(self, pose)
  local p, t, q, w, list = self.p, self.t, self.q, self.w, self.list
  local nrot = self.tip == 1 and self.n or self.n - 1
  local pw = self.parent_w
  -- the parent's world linear part P and the chain's change C to it (identity for the first bone)
  local Pa, Pb, Pc, Pd = pw[1], pw[2], pw[3], pw[4]
  local Ca, Cb, Cc, Cd = 1, 0, 0, 1
  for i = 1, nrot do
    local i2 = 2 * i
    -- the animated segment as the rig has it (S) and as the chain had it (s), the simulated (g)
    local Sx, Sy = p[i2 + 1] - p[i2 - 1], p[i2 + 2] - p[i2]
    local sx, sy = t[i2 + 1] - t[i2 - 1], t[i2 + 2] - t[i2]
    local gx, gy = q[i2 + 1] - q[i2 - 1], q[i2 + 2] - q[i2]
    local phi = turn(sx, sy, gx, gy)
    local cp, sp = cos(phi), sin(phi)
    local Tx, Ty = cp * Sx - sp * Sy, sp * Sx + cp * Sy -- the target: S turned as the chain turned
    local det = Pa * Pd - Pb * Pc
    local delta, psi
    local o = 6 * (i - 1)
    if self.scale_inherit[i] then
      delta, psi = 0, 0
      -- W' = C P R(delta) P^-1 W: delta turns P^-1 S onto P^-1 C^-1 T
      local cdet = Ca * Cd - Cb * Cc
      if det ~= 0 and cdet ~= 0 then
        local ux, uy = (Pd * Sx - Pc * Sy) / det, (-Pb * Sx + Pa * Sy) / det
        local vx, vy = (Cd * Tx - Cc * Ty) / cdet, (-Cb * Tx + Ca * Ty) / cdet
        vx, vy = (Pd * vx - Pc * vy) / det, (-Pb * vx + Pa * vy) / det
        delta = turn(ux, uy, vx, vy)
      end
      -- a bone that does not inherit rotation has its parent's world rotation taken out of its own
      if not self.rotation_inherit[i] and i > 1 then psi = turn(Pa, Pb, Ca * Pa + Cc * Pb, Cb * Pa + Cd * Pb) end
      -- C = C P R(delta) P^-1
      if delta ~= 0 then
        local cd, sd = cos(delta), sin(delta)
        local ia, ib, ic, id = Pd / det, -Pb / det, -Pc / det, Pa / det -- P^-1 (columns a b, c d)
        -- R P^-1
        local ra, rb = cd * ia - sd * ib, sd * ia + cd * ib
        local rc, rd = cd * ic - sd * id, sd * ic + cd * id
        -- P R P^-1
        local ma, mb = Pa * ra + Pc * rb, Pb * ra + Pd * rb
        local mc, md = Pa * rc + Pc * rd, Pb * rc + Pd * rd
        Ca, Cb, Cc, Cd = Ca * ma + Cc * mb, Cb * ma + Cd * mb, Ca * mc + Cc * md, Cb * mc + Cd * md
      end
    else
      -- the world matrix turns by the parent's turn and +-delta: delta = +-(phi - the parent's turn)
      psi = 0
      if self.rotation_inherit[i] and i > 1 then psi = turn(Pa, Pb, Ca * Pa + Cc * Pb, Cb * Pa + Cd * Pb) end
      delta = phi - psi
      if self.rotation_inherit[i] and det < 0 then delta = -delta end
      psi = 0
      Ca, Cb, Cc, Cd = cp, sp, -sp, cp
    end
    delta = delta + psi
    if delta ~= 0 then
      local b = list[i]
      local x, y, r, k, sx_, sy_ = pose:get(b)
      pose:set(b, x, y, r + delta, k, sx_, sy_)
    end
    Pa, Pb, Pc, Pd = w[o + 1], w[o + 2], w[o + 3], w[o + 4]
  end
end

-- direct playback (rig:update): the rig's own pose copied into the chain's scratch pose, without
-- what the last step added when the rig has not sampled its animation since (stopped, update(0))
local function direct_pose(self)
  local rig_core, scratch, list, n = self.rig.core, self.scratch, self.list, self.n
  for b = 1, self.bone_count do scratch:set(b, rig_core:pose(b)) end
  if self.written then
    local written, same = self.written, true
    for i = 1, n do
      local _, _, r = scratch:get(list[i])
      if r ~= written[i] then same = false; break end
    end
    if same then
      local animated = self.animated
      for i = 1, n do
        local b = list[i]
        local x, y, _, k, sx, sy = scratch:get(b)
        scratch:set(b, x, y, animated[i], k, sx, sy)
      end
      rig_core:apply(scratch)
    end
  end
  return scratch
end

--- Steps the chain by `dt` seconds and writes it into `pose`, then applies `pose` to the rig.
-- Call it after the rig shows the freshly animated `pose` (`anim:evaluate(pose)`,
-- `rig:apply(pose)`): it reads the chain's bones from the rig, advances the simulation, adds to
-- each simulated bone's rotation in `pose` the angle that puts it where the simulation has it, and
-- applies `pose` to the rig again. The chain's first bone follows the animation. Without `pose`
-- (direct playback: after `rig:update(dt)`), the rig's own pose is copied into one of the chain's
-- (every bone: costlier) and used the same way. No garbage.
-- @tparam number dt seconds (finite, >= 0)
-- @param[opt] pose a 2-D pose of the chain's rig (`rig:pose()`)
-- @raise "bad argument #1 to 'step' (a finite number >= 0 expected, got -1)" when `dt` is not a
-- finite number >= 0; "bad argument #2 to 'step' (a 2-D pose of the chain's armature 'x' expected,
-- got number)" (or "got a pose of another armature") when `pose` is neither nil nor a 2-D pose of
-- the rig's armature; "bone 'x' is placed out of range (-1e+09 .. 1e+09) or not finite" (or "the
-- tip of bone 'x' ...") when the rig places a bone of the chain, or its tip, there; "'step': <why>"
-- when the 3-D simulation refuses the step, as `sinew.chain`'s `Chain:update` does; "bad argument
-- #1 to 'step' (a sinew.dragonbones chain expected, got table)" when called on what is not a chain
-- (`chain.step()` for `chain:step()`).
function Chain:step(dt, pose)
  check(self, "step")
  if not finite(dt) or dt < 0 then
    error(("bad argument #1 to 'step' (a finite number >= 0 expected, got %s)"):format(show(dt)), 2)
  end
  local rig = self.rig
  local direct = pose == nil
  if direct then
    if not self.scratch then
      self.scratch, self.bone_count, self.animated = rig:pose(), #rig.model.bones, {}
    end
    pose = direct_pose(self)
  elseif getmetatable(pose) ~= Kind.kind.Pose or pose:skeleton() ~= rig.compiled.core then
    error(("bad argument #2 to 'step' (a 2-D pose of the chain's armature '%s' expected, got %s)"):format(
      rig.model.name, getmetatable(pose) == Kind.kind.Pose and "a pose of another armature" or type(pose)), 2)
  else
    self.written = nil -- (the direct path's record of its last write)
  end
  local far = read(self)
  if far then error(out_of_range(self, far), 2) end
  local p, t, q, root, count = self.p, self.t, self.q, self.root, self.particles
  local c, s = root[1], root[2]
  local pose3, chain = self.pose3, self.chain
  -- the animated origins as the chain sees them: translations in the first bone's frame, rounded
  -- to the pose's precision, summed and placed as the core does (so that, at rest, the simulated
  -- segments are the animated ones to the last bit)
  -- (the rest pose first: identity rotations, which the chain's last update replaced)
  local mx, my = 0, 0
  local tx, ty = root[13], root[14]
  pose3:copy(self.rest3)
  for i = 1, count do
    if i > 1 then
      local dx, dy = p[2 * i - 1] - p[2 * i - 3], p[2 * i] - p[2 * i - 2]
      pose3:set_translation(i, c * dx + s * dy, -s * dx + c * dy, 0)
      local lx, ly = pose3:get_translation(i)
      mx, my = mx + lx, my + ly
    end
    t[2 * i - 1] = (c * mx + -s * my) + tx
    t[2 * i] = (s * mx + c * my) + ty
  end
  local ok, why = pcall(chain.update, chain, self.fresh and 0 or dt, pose3, root)
  if not ok then error(("'step': " .. tostring(why):gsub("^bad argument #%d+ to '[^']*' %((.*)%)$", "%1")), 2) end
  if self.fresh then
    chain:reset()
    self.fresh = false
  end
  for i = 1, count do
    local x, y = chain:position(i)
    q[2 * i - 1], q[2 * i] = x, y
  end
  if direct then
    local animated, list = self.animated, self.list
    for i = 1, self.n do
      local _, _, r = pose:get(list[i])
      animated[i] = r
    end
  end
  write(self, pose)
  if direct then
    local written, list = self.written or {}, self.list
    for i = 1, self.n do
      local _, _, r = pose:get(list[i])
      written[i] = r
    end
    self.written = written
  end
  rig.core:apply(pose)
end

--- Puts the chain at the animated pose at the next step, with no velocity.
-- @raise "bad argument #1 to 'reset' (a sinew.dragonbones chain expected, got table)" when called
-- on what is not a chain (`chain.reset()` for `chain:reset()`).
function Chain:reset()
  check(self, "reset")
  self.fresh = true
end

--- Particle `i`'s simulated position, x, y in armature space (the render position, interpolated
-- between steps). The particles, `i` in `1 .. #chain`, are the bones' origins, then the tip.
-- @tparam integer i the particle (1 .. `chain:count()`)
-- @return x, y
-- @raise "bad argument #1 to 'position' (particle must be an integer in 1 .. 5, got 0)" when `i` is
-- not an integer in that range; "bad argument #1 to 'position' (a sinew.dragonbones chain expected,
-- got table)" when called on what is not a chain (`chain.position()` for `chain:position()`).
function Chain:position(i)
  check(self, "position")
  if type(i) ~= "number" or i ~= floor(i) or i < 1 or i > self.particles then
    error(("bad argument #1 to 'position' (particle must be an integer in 1 .. %d, got %s)"):format(
      self.particles, show(i)), 2)
  end
  local x, y = self.chain:position(i)
  return x, y
end

--- The chain's bone names, parent to child.
-- @treturn {string,...} a new list (the tip is not a bone)
-- @raise "bad argument #1 to 'bones' (a sinew.dragonbones chain expected, got table)" when called
-- on what is not a chain (`chain.bones()` for `chain:bones()`).
function Chain:bones()
  check(self, "bones")
  local out, arm = {}, self.rig.model
  for i, b in ipairs(self.list) do out[i] = arm.bones[b].name end
  return out
end

local VECTOR = { gravity = true, force = true }

--- Changes parameter `name` (as `sinew.chain`'s `set_param`; `gravity` and `force` take {x, y})
-- without resetting the simulation; with `i`, for particle i only.
-- @tparam string name a parameter of `sinew.chain` (`damping`, `elasticity`, `stiffness`, `inert`,
-- `radius`, `gravity`, `force`, `rate`, `max_steps`, `teleport`)
-- @param value a number, a curve table for a per-particle parameter, or {x, y} for `gravity` and
-- `force` (armature units/s^2, y down)
-- @param[opt] i an index (1 .. `chain:count()`) or the name of a chain's bone (`"<last bone> tip"`
-- for the tip)
-- @raise "bad argument #2 to 'set_param' ('gravity' must be a table of 2 finite numbers {x, y})"
-- (or 'force') when `value` is not such a table; otherwise what `sinew.chain`'s `Chain:set_param`
-- refuses, as this method's own argument: "bad argument #1 to 'set_param' (unknown parameter
-- 'x')", "bad argument #2 to 'set_param' ('damping' 2 is out of range (0 .. 1))", "bad argument #3
-- to 'set_param' (particle 9 is out of range (1 .. 5))", "bad argument #1 to 'set_param'
-- ('end_length' is fixed when the chain is created)"; "bad argument #1 to 'set_param' (a
-- sinew.dragonbones chain expected, got table)" when called on what is not a chain
-- (`chain.set_param()` for `chain:set_param()`).
function Chain:set_param(name, value, i)
  check(self, "set_param")
  if VECTOR[name] then
    local x, y = xy(value)
    if x == nil then
      error(("bad argument #2 to 'set_param' ('%s' must be a table of 2 finite numbers {x, y})"):format(name), 2)
    end
    local v = self.vec -- (reused: no garbage)
    v[1], v[2] = x, y
    value = v
  end
  local ok, why, arg = try(self.chain.set_param, self.chain, name, value, i)
  if ok == nil and why then refused("set_param", why, ARGS_1, arg) end
end

--- Reads parameter `name` (for particle `i`); `gravity` and `force` as x, y.
-- @tparam string name a parameter of `sinew.chain`, as for `set_param`
-- @param[opt] i an index (1 .. `chain:count()`) or the name of a chain's bone (`"<last bone> tip"`
-- for the tip) (default 1)
-- @return the value, or x, y
-- @raise what `sinew.chain`'s `Chain:get_param` refuses, as this method's own argument: "bad
-- argument #1 to 'get_param' (unknown parameter 'x')", "bad argument #2 to 'get_param' (particle 9
-- is out of range (1 .. 5))", "bad argument #2 to 'get_param' (unknown joint 'x')"; "bad argument
-- #1 to 'get_param' (a sinew.dragonbones chain expected, got table)" when called on what is not a
-- chain (`chain.get_param()` for `chain:get_param()`).
function Chain:get_param(name, i)
  check(self, "get_param")
  local a, b, arg = try(self.chain.get_param, self.chain, name, i)
  if a == nil and b then refused("get_param", b, ARGS_1, arg) end
  if VECTOR[name] then return a, b end
  return a
end

--- Adds a collider in armature space: `{ shape = "circle", center = {x, y}, radius = r }`,
-- `{ shape = "capsule", a = {x, y}, b = {x, y}, radius = r [, radius_b = r2] }` or
-- `{ shape = "line", point = {x, y}, normal = {x, y} }` (the solid behind the line); `inside =
-- true` keeps the chain inside. Returns its index.
-- @tparam table def the collider (armature space; coordinates and radii at most 1e9 in magnitude)
-- @treturn integer k, the collider's index (from 1)
-- @raise "bad argument #1 to 'add_collider' (<why>)" for a `def` that is not a table, has a field
-- other than those above, an unknown shape ("unknown collider shape 'x' ('circle', 'capsule' or
-- 'line')") or a point that is not {x, y} of finite numbers; what `sinew.chain`'s
-- `Chain:add_collider` refuses of its values, as a bad argument #1 too: "circle needs 'radius'",
-- "circle 'radius' -1 is out of range (0 .. 1e+09)", "capsule ends 'a' and 'b' coincide", "line
-- 'normal' is zero"; "'add_collider': no room for another collider ('max_colliders' is 16)" past
-- the definition's `max_colliders`; "bad argument #1 to 'add_collider' (a sinew.dragonbones chain
-- expected, got table)" when called on what is not a chain (`chain.add_collider()` for
-- `chain:add_collider()`).
function Chain:add_collider(def)
  check(self, "add_collider")
  local ok, c3, shape = pcall(collider3, def)
  if not ok then error(("bad argument #1 to 'add_collider' (%s)"):format(tostring(c3)), 2) end
  local k, why, arg = try(self.chain.add_collider, self.chain, c3)
  if k == nil then refused("add_collider", why, ARGS_1, arg) end
  self.shapes[k] = shape
  return k
end

--- Moves collider `k` without allocating: a circle `(k, cx, cy [, radius])`, a capsule
-- `(k, ax, ay, bx, by [, radius [, radius_b]])`, a line `(k, px, py [, nx, ny])`.
-- @tparam integer k the collider (1 .. the number added)
-- @tparam number a cx, ax or px
-- @tparam number b cy, ay or py
-- @tparam[opt] number c a circle's radius, a capsule's bx (needed), or a line's nx
-- @tparam[opt] number d a capsule's by (needed), or a line's ny
-- @tparam[opt] number e a capsule's radius
-- @tparam[opt] number f a capsule's radius_b
-- @raise "bad argument #1 to 'move_collider' (no collider 9 (1 .. 2))" when `k` is no collider's
-- index ("(the chain has none)" before the first); what `sinew.chain`'s `Chain:move_collider`
-- refuses of the numbers, as this method's own argument: "bad argument #5 to 'move_collider'
-- (number expected, got nil)" for a capsule's by missing, "bad argument #2 to 'move_collider' (not
-- a finite number)", "circle 'radius' -1 is out of range (0 .. 1e+09)" and "line 'normal' is zero"
-- (which the 3-D chain lays on the shape's first coordinate, argument #2); "bad argument #1 to
-- 'move_collider' (a sinew.dragonbones chain expected, got table)" when called on what is not a
-- chain (`chain.move_collider()` for `chain:move_collider()`).
function Chain:move_collider(k, a, b, c, d, e, f)
  check(self, "move_collider")
  local shape = self.shapes[k]
  if shape == nil then
    local n = #self.shapes
    error(("bad argument #1 to 'move_collider' (no collider %s %s)"):format(show(k),
      n > 0 and ("(1 .. %d)"):format(n) or "(the chain has none)"), 2)
  end
  local chain = self.chain
  local none, why, arg
  if shape == "sphere" then
    none, why, arg = try(chain.move_collider, chain, k, a, b, 0, c)
  elseif shape == "capsule" then
    none, why, arg = try(chain.move_collider, chain, k, a, b, 0, c, d, 0, e, f)
  elseif c == nil and d == nil then
    none, why, arg = try(chain.move_collider, chain, k, a, b, 0)
  else
    none, why, arg = try(chain.move_collider, chain, k, a, b, 0, c, d, 0)
  end
  if none == nil and why then refused("move_collider", why, MOVE_ARGS[shape], arg) end
end

--- The number of particles: the bones, and the tip when there is one.
-- @treturn integer the particle count
-- @raise "bad argument #1 to 'count' (a sinew.dragonbones chain expected, got table)" when called
-- on what is not a chain (`chain.count()` for `chain:count()`).
function Chain:count() return check(self, "count").particles end

--- `#chain`, as `chain:count()` (Lua 5.2 and later: Lua 5.1 and LuaJIT read a table's own length).
-- @treturn integer the particle count
-- @raise "bad argument #1 to '__len' (a sinew.dragonbones chain expected, got table)" when called
-- on what is not a chain (`Chain.__len({})`).
function Chain:__len() return check(self, "__len").particles end

--- `tostring(chain)`: "sinew.dragonbones.Chain (4 bones and a tip)".
-- @treturn string
-- @raise "bad argument #1 to '__tostring' (a sinew.dragonbones chain expected, got table)" when
-- called on what is not a chain (`Chain.__tostring({})`).
function Chain:__tostring()
  check(self, "__tostring")
  return ("sinew.dragonbones.Chain (%d bones%s)"):format(self.n, self.tip == 1 and " and a tip" or "")
end

M.Chain = Chain

return M
