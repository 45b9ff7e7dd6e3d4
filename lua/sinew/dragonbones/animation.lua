--- The animations of a DragonBones armature: timelines of bones (5.0 `frame` with `transform`,
-- 5.5 `translateFrame`/`rotateFrame`/`scaleFrame`), slots (display, colour), deform (ffd), z-order,
-- IK and the action/event timeline, turned into keys exactly as the DragonBones 5.6 parser
-- stores them: key start frames as its _parseTimeline places them, tween types and amounts,
-- curves sampled into integers, rotations unwrapped, colours rounded, deform offsets moved into
-- bone space for weighted meshes, z-order moves expanded into full orders.
-- @module sinew.dragonbones.animation
local V = require "sinew.dragonbones.values"
local A = require "sinew.dragonbones.armature"

local M = {}

local fail, show, at = V.fail, V.show, V.at
local number, integer, boolean, string_, array = V.number, V.integer, V.boolean, V.string, V.array
local normalize, round, int16, DEG_RAD, PI_D = V.normalize, V.round, V.int16, V.DEG_RAD, V.PI_D
local floor = math.floor
local absent = V.absent

-- ---- curves -------------------------------------------------------------------------------------

--- The `n` samples of the easing curve `c` (the file's list: c1x, c1y, c2x, c2y, then x, y, c1x,
-- c1y, c2x, c2y per further segment), as _samplingEasingCurve takes them: sample i (0-based) at
-- x = (i + 1) / (n + 1), found by bisection on the Bezier parameter until the interval is at most
-- 1e-4 wide, the y of the last midpoint evaluated, then Math.round(y * 10000) kept in 16 bits.
-- A segment's ends are the curve's own points only between two inner points; the first and the
-- last segment run from (0, 0) to (1, 1), as the parser reads them.
function M.sample_curve(c, n)
  local count = #c
  local out = {}
  local step = -2
  for i = 0, n - 1 do
    local t = (i + 1) / (n + 1)
    while (step + 6 < count and c[step + 7] or 1) < t do step = step + 6 end
    local inside = step >= 0 and step + 6 < count
    local x1, y1 = 0, 0
    local x4, y4 = 1, 1
    if inside then x1, y1, x4, y4 = c[step + 1], c[step + 2], c[step + 7], c[step + 8] end
    local x2, y2, x3, y3 = c[step + 3], c[step + 4], c[step + 5], c[step + 6]
    local lo, hi, y = 0, 1, 0
    while hi - lo > 0.0001 do
      local p = (hi + lo) * 0.5
      local q = 1 - p
      local qq, pp = q * q, p * p
      local ka, kb, kc, kd = q * qq, 3 * p * qq, 3 * q * pp, p * pp
      local x = ka * x1 + kb * x2 + kc * x3 + kd * x4
      y = ka * y1 + kb * y2 + kc * y3 + kd * y4
      if t - x > 0 then lo = p else hi = p end
    end
    out[i + 1] = int16(round(y * 10000))
  end
  return out
end

-- the tween of a key of `count` frames (_parseTweenFrame) into `key`
local function tween(raw, count, key, path, state)
  key.tween, key.amount = "none", 0
  if count <= 0 then return key end
  if not absent(raw.curve) then
    local c, n = V.numbers(raw, "curve", path)
    if n < 4 or (n - 4) % 6 ~= 0 then
      fail(path .. ".curve", "has %d numbers, not 4 + 6k (two control points, then a point and two per segment)", n)
    end
    V.spend(state, "samples", count + 1, path .. ".curve")
    -- keys share few curves (you_xin body: 988 curved keys, 73 curves and lengths): each is
    -- sampled once per import, by its exact numbers, and copied
    local id = { count + 1 }
    for i = 1, n do id[i + 1] = ("%.17g"):format(c[i]) end
    id = table.concat(id, " ")
    local cache = state.curves or {}
    state.curves = cache
    local samples = cache[id]
    if not samples then
      samples = M.sample_curve(c, count + 1)
      cache[id] = samples
    end
    local copy = {}
    for i = 1, count + 1 do copy[i] = samples[i] end
    key.tween, key.samples = "curve", copy
    return key
  end
  local e = number(raw, "tweenEasing", path, -2)
  if e == -2 then return key end
  if e == 0 then
    key.tween = "linear"
  elseif e < 0 then
    key.tween, key.amount = "quad_in", int16(round(-e * 100))
  elseif e <= 1 then
    key.tween, key.amount = "quad_out", int16(round(e * 100))
  else
    key.tween, key.amount = "quad_in_out", int16(round(e * 100 - 100))
  end
  return key
end

-- ---- timelines ----------------------------------------------------------------------------------

-- the keys of the timeline `list` (n raw keys) at `path`, placed as _parseTimeline places them:
-- key 1 at frame 0; key k at the later of (the previous key's frame + 1) and (its frame + its
-- duration); the last key's tween runs to the end of the animation (`frames`, at least 1).
-- `parse(raw, key, kpath, count, frame)` fills each key. A key that would start after the end of
-- the animation is refused (the runtime would read past its tables).
local function keys(list, n, path, frames, state, parse)
  V.spend(state, "keys", n, path)
  local out = {}
  if n == 1 then
    local kpath = at(path, 1)
    local raw = V.object(list[1], kpath)
    local key = { frame = 0, duration = integer(raw, "duration", kpath, 1, 0, V.LIMITS.duration) }
    parse(raw, key, kpath, 0, 0)
    out[1] = key
    return out
  end
  local start, count = 0, 0
  for k = 1, n do
    local kpath = at(path, k)
    local raw = V.object(list[k], kpath)
    local duration = integer(raw, "duration", kpath, 1, 0, V.LIMITS.duration)
    if k > 1 then
      local place = start + count
      if place < start + 1 then place = start + 1 end
      if place > frames then
        fail(kpath, "starts at frame %d, after the end of the animation (%d frames)", place, frames)
      end
      start = place
    end
    count = k == n and frames - start or duration
    local key = { frame = start, duration = duration }
    parse(raw, key, kpath, count, start)
    out[k] = key
  end
  return out
end

-- the action frames of an animation (_mergeActionFrame): { frame = start, items = { ... } }, a
-- first one at frame 0 always; a new frame goes after the first one that starts later (the
-- parser's order, kept: it decides where each frame's actions fire)
local function merge(ctx, start, items, path)
  local frames = ctx.action_frames
  if #frames == 0 then frames[1] = { frame = 0, items = {} } end
  local found, index, later = nil, 0, false
  local last = frames[#frames]
  if ctx.sorted and last.frame <= start then -- the usual case, without the walk: at or after the last
    if last.frame == start then found = last else index = #frames end
  else
    for i = 1, #frames do
      local f = frames[i]
      if f.frame == start then
        found = f
        break
      elseif f.frame > start then
        later = true
        break
      end
      index = i
    end
  end
  if not found then
    if #frames >= V.LIMITS.action_frames then
      fail(path, "the animation has more frames with actions than the limit of %d", V.LIMITS.action_frames)
    end
    found = { frame = start, items = {} }
    if later then ctx.sorted = false end -- placed after a frame that starts later: out of order
    table.insert(frames, math.min(index + 2, #frames + 1), found)
  end
  for _, item in ipairs(items) do found.items[#found.items + 1] = item end
end

-- the actions of a key (_parseActionDataInFrame): event, sound, action, events, actions in that
-- order, each merged into the action frames even when it holds none (as the parser does)
local sources = { { "event", "event" }, { "sound", "sound" }, { "action", "play" }, { "events", "event" },
  { "actions", "play" } }
local function key_actions(ctx, raw, path, start, bone, slot)
  if raw.event == nil and raw.sound == nil and raw.action == nil and raw.events == nil and raw.actions == nil then
    return
  end
  for _, source in ipairs(sources) do
    local key = source[1]
    if raw[key] ~= nil then
      merge(ctx, start, A.actions(raw[key], path .. "." .. key, source[2], bone, slot, ctx.arm, {}), path .. "." .. key)
    end
  end
end

-- a timeline object's scale and offset must be the defaults (not carried by the model)
local function plain(raw, path)
  if number(raw, "scale", path, 1) ~= 1 then fail(path .. ".scale", "timeline scale is not supported") end
  if number(raw, "offset", path, 0) ~= 0 then fail(path .. ".offset", "timeline offset is not supported") end
end

-- a rotation key after the first: unwrapped from the previous one (_parseBoneRotateFrame)
local function unwrap(r, ctx)
  local prev, c = ctx.prev_rotation, ctx.prev_clockwise
  if c == 0 then return prev + normalize(r - prev) end
  if c > 0 and r >= prev or c < 0 and r <= prev then c = c > 0 and c - 1 or c + 1 end
  return prev + r - prev + PI_D * c
end

local function bone_timeline(ctx, raw, path)
  V.object(raw, path)
  local arm, state, frames = ctx.arm, ctx.state, ctx.frames
  local name = string_(raw, "name", path, "")
  local b = arm.bone[name]
  if not b then fail(path .. ".name", "unknown bone %s", show(name)) end
  plain(raw, path)
  local out = { bone = b }
  local default_slot = arm.slot[name] -- the parser gives a bone's 5.0 events the slot of its name
  local list, n = array(raw, "frame", path, nil)
  if n > 0 then
    if not absent(raw.translateFrame) or not absent(raw.rotateFrame) or not absent(raw.scaleFrame) then
      fail(path, "has both 5.0 frame and 5.5 translateFrame/rotateFrame/scaleFrame keys")
    end
    local t, r, s = {}, {}, {}
    keys(list, n, path .. ".frame", frames, state, function(k, key, kpath, count, start)
      local tr = A.transform(k.transform, kpath .. ".transform", {})
      local rot = tr.rotation
      if start ~= 0 then rot = unwrap(rot, ctx) end
      ctx.prev_clockwise = number(k, "tweenRotate", kpath, 0)
      ctx.prev_rotation = rot
      tween(k, count, key, kpath, state)
      local i = #t + 1
      t[i] = { frame = key.frame, duration = key.duration, tween = key.tween, amount = key.amount,
        samples = key.samples, x = tr.x, y = tr.y }
      r[i] = { frame = key.frame, duration = key.duration, tween = key.tween, amount = key.amount,
        samples = key.samples, rotation = rot, skew = tr.skew }
      s[i] = { frame = key.frame, duration = key.duration, tween = key.tween, amount = key.amount,
        samples = key.samples, x = tr.scale_x, y = tr.scale_y }
      key_actions(ctx, k, kpath, start, b, default_slot)
    end)
    out.translate, out.rotate, out.scale = t, r, s
  end
  list, n = array(raw, "translateFrame", path)
  if n > 0 then
    out.translate = keys(list, n, path .. ".translateFrame", frames, state, function(k, key, kpath, count)
      tween(k, count, key, kpath, state)
      key.x, key.y = number(k, "x", kpath, 0), number(k, "y", kpath, 0)
    end)
  end
  list, n = array(raw, "rotateFrame", path)
  if n > 0 then
    out.rotate = keys(list, n, path .. ".rotateFrame", frames, state, function(k, key, kpath, count, start)
      local rot = number(k, "rotate", kpath, 0) * DEG_RAD
      if start ~= 0 then rot = unwrap(rot, ctx) end
      ctx.prev_clockwise = number(k, "clockwise", kpath, 0)
      ctx.prev_rotation = rot
      tween(k, count, key, kpath, state)
      key.rotation, key.skew = rot, number(k, "skew", kpath, 0) * DEG_RAD
    end)
  end
  list, n = array(raw, "scaleFrame", path)
  if n > 0 then
    out.scale = keys(list, n, path .. ".scaleFrame", frames, state, function(k, key, kpath, count)
      tween(k, count, key, kpath, state)
      key.x, key.y = number(k, "x", kpath, 1), number(k, "y", kpath, 1)
    end)
  end
  return out
end

local function color_key(k, key, kpath)
  local c = k.value
  local cpath = kpath .. ".value"
  if absent(c) then c, cpath = k.color, kpath .. ".color" end
  if not absent(c) and next(V.object(c, cpath)) ~= nil then
    local raw = A.color(c, cpath)
    local v = {}
    for i = 1, 4 do v[i] = int16(round(raw[i] * 0.01 * 100)) end
    for i = 5, 8 do v[i] = int16(round(raw[i])) end
    key.color = v
  else
    key.color = { 100, 100, 100, 100, 0, 0, 0, 0 }
  end
end

local function slot_timeline(ctx, raw, path)
  V.object(raw, path)
  local arm, state, frames = ctx.arm, ctx.state, ctx.frames
  local name = string_(raw, "name", path, "")
  local s = arm.slot[name]
  if not s then fail(path .. ".name", "unknown slot %s", show(name)) end
  plain(raw, path)
  local bone = arm.slots[s].bone
  local out = { slot = s }
  local key_name = absent(raw.displayFrame) and "frame" or "displayFrame"
  local list, n = array(raw, key_name, path)
  if n > 0 then
    out.display = keys(list, n, path .. "." .. key_name, frames, state, function(k, key, kpath, _, start)
      if not absent(k.value) then
        key.value = integer(k, "value", kpath, 0, -1, 2 ^ 31 - 1)
      else
        key.value = integer(k, "displayIndex", kpath, 0, -1, 2 ^ 31 - 1)
      end
      key_actions(ctx, k, kpath, start, bone, s)
    end)
  end
  key_name = absent(raw.colorFrame) and "frame" or "colorFrame"
  list, n = array(raw, key_name, path)
  if n > 0 then
    out.color = keys(list, n, path .. "." .. key_name, frames, state, function(k, key, kpath, count)
      tween(k, count, key, kpath, state)
      color_key(k, key, kpath)
    end)
  end
  return out
end

-- the display `name` of slot `s` in skin `skin` (SkinData.getDisplay: the first of that name)
local function find_mesh(arm, skin, s, name)
  local shown = arm.skins[skin].slots[s]
  if not shown then return nil end
  for k, d in ipairs(shown) do
    if d and d.name == name then return k, d end
  end
  return nil
end

local function ffd_timeline(ctx, raw, path)
  V.object(raw, path)
  local arm, state, frames = ctx.arm, ctx.state, ctx.frames
  local skin_name = string_(raw, "skin", path, "default")
  if skin_name == "" then skin_name = "default" end
  local skin = arm.skin[skin_name]
  if not skin then fail(path .. ".skin", "unknown skin %s", show(skin_name)) end
  local slot_name = string_(raw, "slot", path, "")
  local s = arm.slot[slot_name]
  if not s then fail(path .. ".slot", "unknown slot %s", show(slot_name)) end
  local name = string_(raw, "name", path, "")
  local k, mesh = find_mesh(arm, skin, s, name)
  if not k then fail(path .. ".name", "slot %s has no display %s in skin %s", show(slot_name), show(name), show(skin_name)) end
  if mesh.type ~= "mesh" then fail(path .. ".name", "display %s is not a mesh", show(name)) end
  plain(raw, path)
  local count = floor(#mesh.vertices / 2)
  local weights = mesh.weights
  local size = weights and mesh.weight_count * 2 or count * 2
  local list, n = array(raw, "frame", path)
  local out = { slot = s, skin = skin, display = k }
  if n == 0 then return nil end
  out.keys = keys(list, n, path .. ".frame", frames, state, function(f, key, kpath, cnt)
    tween(f, cnt, key, kpath, state)
    local offset = integer(f, "offset", kpath, 0, 0, 2 ^ 31 - 1)
    local v, nv = V.numbers(f, "vertices", kpath)
    V.spend(state, "values", size, kpath)
    local dense = {}
    if not weights then
      for i = 1, size do
        local j = i - offset
        dense[i] = (v and j >= 1 and j <= nv) and v[j] or 0
      end
    else
      local sp, inv = mesh.slot_pose, mesh.bind_inverse
      local iw, o = 1, 0
      for i = 0, count - 1 do
        local jx, jy = 2 * i + 1 - offset, 2 * i + 2 - offset
        local x = (v and jx >= 1 and jx <= nv) and v[jx] or 0
        local y = (v and jy >= 1 and jy <= nv) and v[jy] or 0
        x, y = sp[1] * x + sp[3] * y, sp[2] * x + sp[4] * y
        local m = weights[iw]
        iw = iw + 1
        for _ = 1, m do
          local inverse = inv[weights[iw] - 1]
          dense[o + 1] = inverse[1] * x + inverse[3] * y
          dense[o + 2] = inverse[2] * x + inverse[4] * y
          o = o + 2
          iw = iw + 4
        end
      end
    end
    key.vertices = dense
  end)
  return out
end

-- the full draw order of a z-order key (_parseZOrderFrame): `moves` = slot index, offset, ...
-- (slot indices increasing); slots not moved fill the other places in their order
local function zorder_key(moves, nm, kpath, nslots)
  if nm % 2 ~= 0 then fail(kpath .. ".zOrder", "has %d numbers, not pairs (slot index, offset)", nm) end
  local placed, unchanged = {}, {}
  local original = 0
  for i = 1, nm, 2 do
    local s, off = moves[i], moves[i + 1]
    local ipath = at(kpath .. ".zOrder", i)
    if s ~= floor(s) or s < original or s >= nslots then
      fail(ipath, "slot index %s is out of order or out of range (%d slots)", show(s), nslots)
    end
    if off ~= floor(off) then fail(at(kpath .. ".zOrder", i + 1), "offset %s is not an integer", show(off)) end
    while original ~= s do
      unchanged[#unchanged + 1] = original
      original = original + 1
    end
    local to = original + off
    if to < 0 or to >= nslots then
      fail(at(kpath .. ".zOrder", i + 1), "moves slot %d to place %s, out of range (%d slots)", s, show(to), nslots)
    end
    if placed[to] then fail(at(kpath .. ".zOrder", i + 1), "moves two slots to place %d", to) end
    placed[to] = original
    original = original + 1
  end
  while original < nslots do
    unchanged[#unchanged + 1] = original
    original = original + 1
  end
  local order, u = {}, #unchanged
  for i = nslots - 1, 0, -1 do
    if placed[i] == nil then
      order[i + 1] = unchanged[u] + 1
      u = u - 1
    else
      order[i + 1] = placed[i] + 1
    end
  end
  return order
end

local function ik_timeline(ctx, raw, path)
  V.object(raw, path)
  local arm = ctx.arm
  local name = string_(raw, "name", path, "")
  local c = arm.ik_index[name]
  if not c then fail(path .. ".name", "unknown IK constraint %s", show(name)) end
  local list, n = array(raw, "frame", path)
  if n == 0 then return nil end
  return { constraint = c, keys = keys(list, n, path .. ".frame", ctx.frames, ctx.state, function(k, key, kpath, count)
    tween(k, count, key, kpath, ctx.state)
    key.bend_positive = boolean(k, "bendPositive", kpath, true)
    key.weight_percent = int16(round(number(k, "weight", kpath, 1) * 100))
    key.weight = key.weight_percent * 0.01
  end) }
end

--- Animation `raw` at `path` of armature `arm` into the model's animation table.
function M.animation(raw, path, arm, state)
  V.object(raw, path)
  local name = string_(raw, "name", path, "default")
  if name == "" then name = "default" end
  local anim = { name = name, duration = integer(raw, "duration", path, 1, 0, V.LIMITS.duration),
    play_times = integer(raw, "playTimes", path, 1, 0, 2 ^ 31 - 1),
    fade_in_time = number(raw, "fadeInTime", path, 0),
    frame_rate = arm.frame_rate, bones = {}, slots = {}, ffd = {}, ik = {} }
  if number(raw, "scale", path, 1) ~= 1 then fail(path .. ".scale", "animation scale is not supported") end
  if not absent(raw.surface) then fail(path .. ".surface", "surface timelines (DragonBones 5.6) are not supported") end
  if not absent(raw.animation) then fail(path .. ".animation", "animation timelines (DragonBones 5.6) are not supported") end
  -- the parser's frameCount: the runtime's length of the animation (AnimationData.duration is
  -- frame_count / frame_rate), so an animation of 0 frames lasts one
  anim.frame_count = math.max(anim.duration, 1)
  local ctx = { arm = arm, state = state, frames = anim.frame_count, action_frames = {}, sorted = true,
    prev_rotation = 0, prev_clockwise = 0 }
  -- the animation's own frames: their actions at the sum of the durations before them
  local list, n = array(raw, "frame", path)
  local start = 0
  for i = 1, n do
    local fpath = at(path .. ".frame", i)
    local f = V.object(list[i], fpath)
    key_actions(ctx, f, fpath, start, nil, nil)
    start = start + integer(f, "duration", fpath, 1, 0, V.LIMITS.duration)
  end
  V.spend(state, "keys", n, path .. ".frame")
  if not absent(raw.zOrder) then
    local zpath = path .. ".zOrder"
    local z = V.object(raw.zOrder, zpath)
    plain(z, zpath)
    local zlist, zn = array(z, "frame", zpath)
    if zn > 0 then
      anim.zorder = keys(zlist, zn, zpath .. ".frame", ctx.frames, state, function(k, key, kpath)
        local moves, nm = V.numbers(k, "zOrder", kpath)
        if moves and nm > 0 then V.spend(state, "values", #arm.slots, kpath .. ".zOrder") end
        if moves and nm > 0 then key.order = zorder_key(moves, nm, kpath, #arm.slots) end
      end)
    end
  end
  list, n = array(raw, "bone", path)
  for i = 1, n do
    anim.bones[#anim.bones + 1] = bone_timeline(ctx, list[i], at(path .. ".bone", i))
  end
  list, n = array(raw, "slot", path)
  for i = 1, n do
    anim.slots[#anim.slots + 1] = slot_timeline(ctx, list[i], at(path .. ".slot", i))
  end
  list, n = array(raw, "ffd", path)
  for i = 1, n do
    anim.ffd[#anim.ffd + 1] = ffd_timeline(ctx, list[i], at(path .. ".ffd", i))
  end
  list, n = array(raw, "ik", path)
  for i = 1, n do
    anim.ik[#anim.ik + 1] = ik_timeline(ctx, list[i], at(path .. ".ik", i))
  end
  -- the action timeline: its frames placed as the parser places them (a frame that the merge put
  -- after a later one moves to the frame after that one); each lasts until the next
  local af = ctx.action_frames
  if #af > 0 then
    local out = {}
    local frames = ctx.frames
    local pstart, pcount = 0, 0
    for k = 1, #af do
      local f = af[k]
      local place = 0
      if k > 1 then
        place = pstart + pcount
        if place < pstart + 1 then place = pstart + 1 end
        if place > frames then
          fail(path, "an action or event at frame %d, after the end of the animation (%d frames)", f.frame, frames)
        end
      end
      pcount = k < #af and af[k + 1].frame - place or 0
      out[k] = { frame = place, items = f.items }
      if k > 1 then out[k - 1].duration = place - out[k - 1].frame end
      pstart = place
    end
    out[#af].duration = frames - out[#af].frame
    anim.actions = out
  end
  return anim
end

return M
