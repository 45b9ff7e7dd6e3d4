--- Reading a BVH file's text (Biovision hierarchical motion: the CMU motion-capture library and
-- every mocap tool export it): the HIERARCHY into joints (name, parent, offset, channels), the
-- MOTION into frames of numbers. No sinew objects: `sinew.bvh` builds the skeleton and the clip.
-- A fault raises `sinew.fault`'s with the path `<line>` (the line it is on).
--
-- The grammar read: `HIERARCHY`, then one or more `ROOT name { ... }`, each joint's block holding
-- `OFFSET x y z`, `CHANNELS n c1 .. cn` (Xposition, Yposition, Zposition, Xrotation, Yrotation,
-- Zrotation, any order, each at most once, any letter case), child `JOINT name { ... }` blocks and
-- `End Site { OFFSET x y z }`; then `MOTION`, `Frames: n`, `Frame Time: t` and one line of numbers
-- per frame, the channels in the order the hierarchy lists them (lines after the declared frames
-- are not read). Tokens are split on white space (braces may share a line with a name).
-- @module sinew.bvh.read
local Fault = require "sinew.fault"
local decode = require("sinew.core")._bvh

local M = {}

local fail = Fault.fail
local tonumber, floor, huge = tonumber, math.floor, math.huge

--- The most joints (End Sites included), frames and numbers in the MOTION section a file may
-- have: beyond them the file is refused before anything is made.
M.MAX_JOINTS, M.MAX_FRAMES, M.MAX_VALUES = 10000, 1000000, 20000000
--- The shortest frame time read (a million frames a second): the clip keeps times as floats.
M.MIN_FRAME_TIME = 1e-6

-- the channel names, keyed by their lower case: the axis (1 .. 3) and the kind
local CHANNELS = {
  xposition = { 1, "position", "Xposition" }, yposition = { 2, "position", "Yposition" },
  zposition = { 3, "position", "Zposition" }, xrotation = { 1, "rotation", "Xrotation" },
  yrotation = { 2, "rotation", "Yrotation" }, zrotation = { 3, "rotation", "Zrotation" },
}

-- a finite number from token `t` on `line`, or a fault naming `what`
local function number(t, line, what)
  local v = t and tonumber(t)
  if not v or v ~= v or v == huge or v == -huge then
    fail(tostring(line), "%s must be a finite number (got %s)", what, t and ("'" .. t:sub(1, 40) .. "'") or "nothing")
  end
  return v
end

-- The tokens of the hierarchy: a list of { text, line } from line `first` on, up to the line
-- that is `MOTION` (its index is returned), at most `cap` tokens. Braces are tokens of their own.
local function tokens(line_at, first, cap)
  local out = {}
  local i = first
  while true do
    local line = line_at(i)
    if not line then return out, nil end
    if line:match("^%s*MOTION%s*$") then return out, i end
    for t in line:gsub("[{}]", " %0 "):gmatch("%S+") do out[#out + 1] = { t, i } end
    if #out > cap then fail(tostring(i), "the hierarchy is longer than sinew reads (%d tokens)", cap) end
    i = i + 1
  end
end

-- The lines of `text` as they are asked for (a file's frames are read by C, never split here):
-- `at(i)` gives line i (nil past the end) and where it begins in `text`; `count()` the number of
-- lines of the whole text, blank ones at its end left out (at least 1), for messages. Lines end
-- with "\n", "\r\n" or "\r".
local function line_reader(text)
  local lines, starts, pos, len = {}, {}, 1, #text
  local function at(i)
    while #lines < i and pos <= len do
      local e = text:find("[\r\n]", pos)
      local n = #lines + 1
      starts[n] = pos
      if not e then
        lines[n], pos = text:sub(pos), len + 1
      else
        lines[n] = text:sub(pos, e - 1)
        pos = (text:byte(e) == 13 and text:byte(e + 1) == 10) and e + 2 or e + 1
      end
    end
    return lines[i], starts[i]
  end
  local function count()
    at(math.huge)
    local n = #lines
    while n > 1 and lines[n]:match("^%s*$") do n = n - 1 end
    return n > 0 and n or 1
  end
  return at, count
end

--- Reads the lines of a BVH file's text. Gives { joints = { { name, parent (index or 0), offset
-- = { x, y, z }, channels = { { axis, kind, name }, ... }, first (the joint's first channel's
-- index in a frame, 1-based), end_site (true for an End Site), line }, ... } (parents first),
-- frames, frame_time, channels (per frame), values (the frames x channels numbers, frame by frame,
-- read in C: `sinew.core._bvh.frames`'s buffer; nil without channels) }.
-- @tparam string text
-- @treturn table
function M.read(text)
  local line_at, count = line_reader(text)
  local first = 1
  while line_at(first) and line_at(first):match("^%s*$") do first = first + 1 end
  if not line_at(first) or not line_at(first):match("^%s*HIERARCHY%s*$") then
    fail(tostring(math.min(first, count())), "a BVH file begins with HIERARCHY")
  end
  local toks, motion = tokens(line_at, first + 1, 16 * M.MAX_JOINTS + 64)
  local joints, names, stack = {}, {}, {}
  local k, channels = 1, 0
  local function tok() return toks[k] and toks[k][1], toks[k] and toks[k][2] or (motion or count()) end
  local function expect(what)
    local t, line = tok()
    if t ~= what then fail(tostring(line), "'%s' expected, got %s", what, t and ("'" .. t:sub(1, 40) .. "'") or "the end") end
    k = k + 1
  end
  if not toks[1] then fail(tostring(motion or count()), "the hierarchy has no ROOT") end
  while toks[k] do
    local t, line = tok()
    if #stack == 0 then
      if t ~= "ROOT" then fail(tostring(line), "ROOT expected, got '%s'", t:sub(1, 40)) end
    end
    if t == "ROOT" or t == "JOINT" or t == "End" then
      if t == "ROOT" and #stack > 0 then fail(tostring(line), "ROOT inside a joint (JOINT expected)") end
      if t == "JOINT" and #stack == 0 then fail(tostring(line), "JOINT outside a ROOT") end
      local parent = stack[#stack]
      if parent and joints[parent].end_site then fail(tostring(line), "an End Site has no children") end
      k = k + 1
      local name
      if t == "End" then
        expect("Site")
        if not parent then fail(tostring(line), "End Site outside a joint") end
        name = joints[parent].name .. "_end"
      else
        name = tok()
        if not name or name == "{" or name == "}" then fail(tostring(line), "%s needs a name", t) end
        if #name > 255 or name:find("%z") then
          fail(tostring(line), "a joint's name is at most 255 bytes, none of them zero ('%s')", name:sub(1, 40))
        end
        k = k + 1
      end
      if #joints >= M.MAX_JOINTS then fail(tostring(line), "more than %d joints", M.MAX_JOINTS) end
      if names[name] then
        fail(tostring(line), "two joints are named '%s' (lines %d and %d)", name:sub(1, 80), joints[names[name]].line, line)
      end
      expect("{")
      local j = { name = name, parent = parent or 0, channels = {}, end_site = t == "End", line = line, first = channels + 1 }
      joints[#joints + 1] = j
      names[name] = #joints
      stack[#stack + 1] = #joints
      -- OFFSET first, then CHANNELS (not for an End Site)
      local ot, oline = tok()
      if ot ~= "OFFSET" then fail(tostring(oline), "OFFSET expected in '%s' (got %s)", name:sub(1, 80),
        ot and ("'" .. ot:sub(1, 40) .. "'") or "the end") end
      j.offset = {}
      for c = 1, 3 do
        j.offset[c] = number(toks[k + c] and toks[k + c][1], toks[k + c] and toks[k + c][2] or oline,
          ("OFFSET %s of '%s'"):format(("xyz"):sub(c, c), name:sub(1, 80)))
      end
      k = k + 4
      if not j.end_site then
        local ct, cline = tok()
        if ct ~= "CHANNELS" then fail(tostring(cline), "CHANNELS expected in '%s' (got %s)", name:sub(1, 80),
          ct and ("'" .. ct:sub(1, 40) .. "'") or "the end") end
        local n = toks[k + 1] and tonumber(toks[k + 1][1])
        if not n or n ~= floor(n) or n < 0 or n > 6 then
          fail(tostring(cline), "CHANNELS of '%s' must count 0 to 6 channels (got %s)", name:sub(1, 80),
            toks[k + 1] and ("'" .. toks[k + 1][1]:sub(1, 40) .. "'") or "nothing")
        end
        k = k + 2
        local seen = {}
        for c = 1, n do
          local cname, cl = tok()
          local ch = cname and CHANNELS[cname:lower()]
          if not ch then
            fail(tostring(cl), "channel %d of '%s' is %s (%s expected)", c, name:sub(1, 80),
              cname and ("'" .. cname:sub(1, 40) .. "'") or "missing",
              "Xposition, Yposition, Zposition, Xrotation, Yrotation or Zrotation")
          end
          if seen[ch] then fail(tostring(cl), "'%s' lists %s twice", name:sub(1, 80), ch[3]) end
          seen[ch] = true
          j.channels[c] = ch
          k = k + 1
        end
        channels = channels + n
      end
    elseif t == "}" then
      stack[#stack] = nil
      k = k + 1
      if #stack == 0 and toks[k] and toks[k][1] ~= "ROOT" then
        fail(tostring(toks[k][2]), "ROOT or MOTION expected after a root's block, got '%s'", toks[k][1]:sub(1, 40))
      end
    else
      fail(tostring(line), "JOINT, End Site or '}' expected in '%s', got '%s'", joints[stack[#stack]].name:sub(1, 80),
        t:sub(1, 40))
    end
  end
  if #stack > 0 then
    fail(tostring(motion or count()), "the hierarchy ends inside '%s' (a '}' is missing)", joints[stack[#stack]].name:sub(1, 80))
  end
  if not motion then fail(tostring(count()), "no MOTION section") end
  -- MOTION: Frames, Frame Time, the frames
  local i = motion + 1
  local function next_line()
    while line_at(i) and line_at(i):match("^%s*$") do i = i + 1 end
    return line_at(i), i
  end
  local fl, fi = next_line()
  local fv = fl and fl:match("^%s*Frames:%s*(%S+)%s*$")
  if not fv then fail(tostring(math.min(fi, count())), "'Frames: <count>' expected after MOTION") end
  local frames = tonumber(fv)
  if not frames or frames ~= floor(frames) or frames < 1 then
    fail(tostring(fi), "Frames must be a whole number of at least 1 (got '%s')", fv:sub(1, 40))
  end
  if frames > M.MAX_FRAMES then fail(tostring(fi), "%d frames: more than sinew reads (%d)", frames, M.MAX_FRAMES) end
  if frames * channels > M.MAX_VALUES then
    fail(tostring(fi), "%d frames of %d channels: more numbers than sinew reads (%d)", frames, channels, M.MAX_VALUES)
  end
  i = i + 1
  local tl, ti = next_line()
  local tv = tl and tl:match("^%s*Frame%s+Time:%s*(%S+)%s*$")
  if not tv then fail(tostring(math.min(ti, count())), "'Frame Time: <seconds>' expected after Frames") end
  local frame_time = tonumber(tv)
  if not frame_time or not (frame_time > 0 and frame_time < huge) then
    fail(tostring(ti), "Frame Time must be a number of seconds above 0 (got '%s')", tv:sub(1, 40))
  end
  if frame_time < M.MIN_FRAME_TIME then
    fail(tostring(ti), "Frame Time must be at least %g s (got '%s')", M.MIN_FRAME_TIME, tv:sub(1, 40))
  end
  if (frames - 1) * frame_time > 1e7 then
    fail(tostring(ti), "%d frames of %s s: longer than sinew plays (1e7 s)", frames, tv:sub(1, 40))
  end
  i = i + 1
  local values -- (no channels: blank frame lines, nothing to read)
  if channels > 0 then
    local line1, at = next_line()
    if not line1 then fail(tostring(count()), "the file declares %d frames and holds %d", frames, 0) end
    local fault, f, n, line, token
    values, fault, f, n, line, token = decode.frames(text, select(2, line_at(at)), frames, channels)
    if not values then
      local li = tostring(at + line)
      if fault == "missing" then fail(tostring(count()), "the file declares %d frames and holds %d", frames, f - 1) end
      if fault == "not a number" then
        fail(li, "number %d of frame %d must be a finite number (got '%s')", n, f, token:sub(1, 40))
      end
      fail(li, "frame %d has %s numbers, the hierarchy's channels are %d", f, fault == "too many" and "more" or
        tostring(n), channels)
    end
  end
  -- (lines after the declared frames are left: some exporters write one more frame than they
  -- declare, as Boxing_Toes.bvh of Debian's assimp-testmodels does)
  return { joints = joints, frames = frames, frame_time = frame_time, channels = channels, values = values }
end

return M
