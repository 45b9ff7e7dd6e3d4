--- Morph targets set by the game over an animator's layers: `anim:set_morph(name, w)` holds a
-- target's weight in every pose `evaluate` writes (a blink, lip sync, a face driven by the
-- game's own logic) until `anim:set_morph(name, nil)` gives it back to the clips. The layers blend
-- morph weights as they blend joints (the core's blend, add, delta and masks carry them); this
-- module only holds the weights set by hand, applies them after the layers, and keeps them in
-- snapshots.
--
-- This module alone reads and writes its tables: the plan's part `MP` (the skeleton's morph
-- names) and each animator's part `MI` (the weights set: a dense list, no garbage per frame).
-- @module sinew.animator.morphs
local Fault = require "sinew.fault"

local M = {}

local show = Fault.show
local FLT_MAX = 3.4028234663852886e38

--- The plan's part for a skeleton of `kind` (nil when its poses hold no morph targets).
function M.plan(kind, skeleton)
  local n = kind.morphs and kind.morphs(skeleton) or 0
  if n == 0 then return nil end
  local MP = { count = n, names = skeleton:morphs(), index = {}, defaults = {}, set = kind.set_morph,
    get = kind.get_morph }
  for k, name in ipairs(MP.names) do MP.index[name], MP.defaults[k] = k, skeleton:morph_default(k) end
  return MP
end

--- An animator's part: no weight set.
function M.new()
  return { n = 0, which = {}, weight = {} }
end

-- the morph numbered by `name` (a name of the skeleton's, or a 1-based index); a fault at `level`
local function index_of(MP, name, level)
  if MP == nil then error("the animator's skeleton has no morph targets", level + 1) end
  if type(name) == "number" then
    if name == math.floor(name) and name >= 1 and name <= MP.count then return name end
    error(("morph %s is out of range (1 .. %d)"):format(show(name), MP.count), level + 1)
  end
  local k = MP.index[name]
  if not k then
    local near = type(name) == "string" and Fault.nearest(name, MP.index)
    error(("unknown morph %s%s"):format(show(name), near and (" (did you mean '" .. near .. "'?)") or ""), level + 1)
  end
  return k
end

-- where morph k is in MI's list, or nil
local function slot_of(MI, k)
  for i = 1, MI.n do
    if MI.which[i] == k then return i end
  end
  return nil
end

--- Holds morph `name`'s weight at `w` (a finite number within the float range), or with nil
-- gives it back to the layers; a fault raises at `level`.
function M.set(MP, MI, name, w, level)
  local k = index_of(MP, name, level + 1)
  if w ~= nil and (type(w) ~= "number" or w ~= w or w > FLT_MAX or w < -FLT_MAX) then
    error(("bad argument #2 to 'set_morph' (a finite number within the float range or nil expected, got %s)")
      :format(show(w)), level + 1)
  end
  local i = slot_of(MI, k)
  if w == nil then
    if i then -- the last one takes its place
      local n = MI.n
      MI.which[i], MI.weight[i] = MI.which[n], MI.weight[n]
      MI.which[n], MI.weight[n] = nil, nil
      MI.n = n - 1
    end
    return
  end
  if not i then
    i = MI.n + 1
    MI.n = i
    MI.which[i] = k
  end
  MI.weight[i] = w
end

--- The weight morph `name` is held at, or nil when the layers decide it.
function M.get(MP, MI, name, level)
  local i = slot_of(MI, index_of(MP, name, level + 1))
  return i and MI.weight[i] or nil
end

--- Writes the weights held into `pose` (after the layers). No garbage.
function M.apply(MP, MI, pose)
  local set = MP.set
  for i = 1, MI.n do set(pose, MI.which[i], MI.weight[i]) end
end

--- The weights held as a snapshot's part: name -> weight, or nil when none is.
function M.take(MP, MI)
  if MI.n == 0 then return nil end
  local out = {}
  for i = 1, MI.n do out[MP.names[MI.which[i]]] = MI.weight[i] end
  return out
end

--- Reads a snapshot's part `t` (nil: none held) into a plan for `put`, checking all of it
-- (R: the snapshot reader's `tbl` and `number`); faults name `path`.
function M.read(MP, t, path, R)
  if t == nil then return { n = 0 } end
  if MP == nil then Fault.fail(path, "the animator's skeleton has no morph targets") end
  R.tbl(t, path)
  local plan = { n = 0 }
  for k, name in ipairs(MP.names) do -- (in the skeleton's order: the same plan from any table)
    local w = rawget(t, name)
    if w ~= nil then
      plan.n = plan.n + 1
      plan[plan.n] = { k, R.number(w, path .. "." .. name, nil, -FLT_MAX, FLT_MAX, "a float") }
    end
  end
  local bad = Fault.first(t, function(key) return MP.index[key] == nil end)
  if bad ~= nil then Fault.fail(path, "unknown morph %s", show(bad)) end
  return plan
end

--- Writes a plan of `read` into MI.
function M.put(MI, plan)
  for i = 1, MI.n do MI.which[i], MI.weight[i] = nil, nil end
  MI.n = plan.n
  for i = 1, plan.n do MI.which[i], MI.weight[i] = plan[i][1], plan[i][2] end
end

return M
