--- The playhead of a DragonBones rig: the play time, the plays done, and the events an update
-- fires, as DragonBones' action timeline (5.6) computes them. Internal to `sinew.dragonbones`.
--
-- A playhead holds: `anim` (a compiled animation: duration, frame_rate, actions),
-- `times` (plays, 0 forever), `time` (seconds played), `playing`, and the action timeline's
-- state: `state` (-1 before the first update, 0 playing, 1 complete), `plays` (plays done),
-- `current` (the time in the current play), `key` (the action key reached, 0-based; -1 none).
-- @module sinew.dragonbones.playhead
local M = {}

local floor, fmod = math.floor, math.fmod

--- Starts `anim` from its beginning (play) or stopped at `time` (seek).
function M.start(p, anim, times, time, playing)
  p.anim, p.times, p.playing = anim, times, playing
  p.time = time
  -- the action timeline starts at the start time (AnimationState.init)
  p.state, p.plays, p.current, p.key = -1, -1, time, -1
end

-- the plays done and the time in the current play at `time` (AnimationState and the action
-- timeline's _setCurrentTime); returns whether they changed
local function set_time(p, time)
  local prev_state, prev_plays, prev_current = p.state, p.plays, p.current
  local duration, times = p.anim.duration, p.times
  if times > 0 and time >= times * duration then
    if p.state <= 0 and p.playing then p.state = 1 end
    p.plays = times
    p.current = duration + 0.000001
  else
    if p.state ~= 0 and p.playing then p.state = 0 end
    p.plays = floor(time / duration)
    p.current = fmod(time, duration)
  end
  if p.plays == prev_plays and p.current == prev_current then return false end
  if (prev_state < 0 and p.state ~= prev_state) or (p.state <= 0 and p.plays ~= prev_plays) then p.key = -1 end
  return true
end

-- the action key in force at frame f (0-based): the last starting at or before it
local function key_at(keys, f)
  local lo, hi = 1, #keys
  while lo < hi do
    local mid = floor((lo + hi + 1) / 2)
    if keys[mid].start <= f then lo = mid else hi = mid - 1 end
  end
  return lo - 1
end

-- fires the items of action key k (0-based) through emit(kind, name, owner_item)
local function fire(anim, k, emit)
  local items = anim.actions[k + 1].items
  for i = 1, #items do emit(items[i].kind, items[i]) end
end

--- Advances by `dt` (not while stopped) and fires the events the step crosses through
-- emit(kind, item): kind "start", "loopComplete", "complete" (item nil), or an action item's
-- kind ("sound", "event", "play"). Returns whether the pose must be evaluated again (the
-- animation had not completed before this update).
function M.advance(p, dt, emit)
  local anim = p.anim
  if not anim then return false end
  if p.playing then p.time = p.time + dt end
  if p.state > 0 then return false end
  local prev_state, prev_plays, prev_current = p.state, p.plays, p.current
  if not set_time(p, p.time) then return true end
  if prev_state < 0 then
    if p.state == prev_state then return true end
    prev_plays = p.plays
    emit("start")
  end
  local loop = p.plays ~= prev_plays
  local complete = loop and p.state > 0
  local keys, rate, n = anim.actions, anim.frame_rate, #anim.actions
  if n > 1 then
    local k = key_at(keys, floor(p.current * rate))
    if p.key ~= k then
      local crossed = p.key
      p.key = k
      if crossed < 0 then
        local pf = floor(prev_current * rate)
        crossed = key_at(keys, pf)
        if p.plays == prev_plays then -- the start of a play
          if prev_current <= keys[crossed + 1].start / rate then
            crossed = crossed > 0 and crossed - 1 or n - 1
          elseif crossed == k then
            crossed = -1
          end
        end
      end
      while crossed >= 0 do
        crossed = crossed < n - 1 and crossed + 1 or 0
        local position = keys[crossed + 1].start / rate
        if position <= anim.duration then fire(anim, crossed, emit) end
        if loop and crossed == 0 then
          emit("loopComplete")
          loop = false
        end
        if crossed == k then break end
      end
    end
  elseif p.key < 0 then
    p.key = 0
    if p.plays == prev_plays then
      if prev_current <= 0 then fire(anim, 0, emit) end
    else
      if loop then
        emit("loopComplete")
        loop = false
      end
      fire(anim, 0, emit)
    end
  end
  if loop then emit("loopComplete") end
  if complete then emit("complete") end
  return true
end

--- Whether the last key of each timeline tweens toward the first (every play but the last).
function M.tween_last(p)
  return p.times == 0 or p.plays < p.times - 1
end

return M
