--- The events of an animator's update: the queue each update fills (this module alone reads and
-- writes it: `I.ev_n` events in the lists `I.ev_name`, `I.ev_layer`, `I.ev_state`, `I.ev_weight`,
-- `I.ev_time`, the reading place `I.ev_i`, `I.dropped_events`), the crossings of a state's timed
-- events that fill it, the sort into time order, the iteration and the calls of the handlers.
-- @module sinew.animator.events
local Definition = require "sinew.animator.definition"

local M = {}

--- The most events one update queues, of all layers together (a huge step over a short loop
-- would otherwise queue without end): past it an event is not queued but counted in
-- `anim.dropped_events`; within one state's step the earliest crossings are queued first.
M.MAX_EVENTS = 1024
local MAX_EVENTS = M.MAX_EVENTS

local curve_at = Definition.curve_at

--- Gives instance I an empty queue.
function M.new(I)
  I.ev_n, I.ev_i, I.dropped_events = 0, 0, 0
  I.ev_name, I.ev_layer, I.ev_state, I.ev_weight, I.ev_time = {}, {}, {}, {}, {}
end

--- Empties the queue (an update begins).
function M.clear(I)
  I.ev_n, I.ev_i, I.dropped_events = 0, 0, 0
end

--- Queues event `name` of a layer's state with its weight, at `at` seconds into the update (or
-- counts it as dropped when the queue is full).
local function push(I, name, layer, state, weight, at)
  local n = I.ev_n + 1
  if n > MAX_EVENTS then
    I.dropped_events = I.dropped_events + 1
    return
  end
  I.ev_n = n
  I.ev_name[n], I.ev_layer[n], I.ev_state[n], I.ev_weight[n], I.ev_time[n] = name, layer, state, weight, at
end
M.push = push

--- Queues the timed events `evs[1 .. n]` (`at` in 0 .. 1; "enter" and "exit" ones are not timed)
-- of a state crossed while its normalised time went from `old` to `new` over [t0, t0 + span] of
-- its layer's update, in time order, as many as the queue takes (the rest counted in
-- dropped_events); `fresh` includes the starting point, `loop` crosses them in every loop. `side`
-- weighs them: 0 by 1, 1 (the source of a fade) by 1 - and 2 (its destination) by the fade's
-- weight at the crossing, from the fade's elapsed time `e0` at t0, its duration and curve. A
-- sub-state machine's seconds become the animator's as `lt0 + at * lts` (lt0 nil: the same).
-- The work is the number of events plus the number queued: the loop over k stops when the queue
-- is full, and every k between the first and the last crosses every event that is crossed at
-- all (an event's first k is the same or one more than another's, as e lies in [0, 1]).
function M.crossed(P, I, evs, n, loop, old, new, t0, span, fresh, side, e0, duration, curve, lt0, lts, layer, state)
  if new == old then return end
  local d = new - old
  if d > 0 and d < 0.5 and not fresh then
    -- most steps cross nothing: forwards by less than half a loop, an event at e is crossed when
    -- old < k + e <= new for an integer k, so only when e or e + 1 lies in (f, f + d], f = old %
    -- 1; when every event lies clearly outside (by 1e-6 of a loop, far above the rounding of
    -- times up to WRAP), none is (the exact count below decides the others)
    local f = old % 1
    local lo, hi = f - 1e-6, f + d + 1e-6
    local near = false
    for i = 1, n do
      local e = evs[i].at
      if e ~= "enter" and e ~= "exit" and ((e > lo and e <= hi) or e + 1 <= hi) then near = true; break end
    end
    if not near then return end
  end
  local kmins, kmaxs = P.kmins, P.kmaxs -- of each event of the state (the plan's scratch)
  local total, first, last = 0, nil, nil
  local forwards = new > old
  for i = 1, n do
    local e = evs[i].at
    kmins[i] = false
    if e ~= "enter" and e ~= "exit" then
      -- the crossings k + e of the event by the time going from old to new (`fresh`: the
      -- starting point included), k from kmin to kmax (none when kmax < kmin)
      -- (floor(y) is y - y % 1 and ceil(y) is y + (-y) % 1, exact for the finite times here)
      local kmin, kmax
      local a, b = old - e, new - e
      if forwards then
        kmin = fresh and a + (-a) % 1 or a - a % 1 + 1
        kmax = b - b % 1
      else
        kmin = b + (-b) % 1
        kmax = fresh and a - a % 1 or a + (-a) % 1 - 1
      end
      if not loop then
        if kmin < 0 then kmin = 0 end
        if kmax > 0 then kmax = 0 end
      end
      if kmax >= kmin then
        kmins[i], kmaxs[i] = kmin, kmax
        total = total + (kmax - kmin + 1)
        if first == nil or kmin < first then first = kmin end
        if last == nil or kmax > last then last = kmax end
      end
    end
  end
  if total == 0 then return end
  local room = MAX_EVENTS - I.ev_n
  if room < 0 then room = 0 end
  local take = total
  if take > room then
    I.dropped_events = I.dropped_events + (total - room)
    take = room
  end
  local queued = 0
  local k, i0, i1, di = first, 1, n, 1
  if not forwards then k, i0, i1, di = last, n, 1, -1 end
  while queued < take and k >= first and k <= last do
    for i = i0, i1, di do
      local kmin = kmins[i]
      if kmin and k >= kmin and k <= kmaxs[i] and queued < take then
        local at = t0 + span * (k + evs[i].at - old) / (new - old)
        local w = 1
        if side ~= 0 and duration > 0 then
          w = curve_at(curve, (e0 + at - t0) / duration)
          if side == 1 then w = 1 - w end
        elseif side == 1 then
          w = 0
        end
        push(I, evs[i].name, layer, state, w, lt0 and lt0 + at * lts or at)
        queued = queued + 1
      end
    end
    if forwards then k = k + 1 else k = k - 1 end
  end
end

--- Sorts the queue into time order: each state's step queues its events in order, so the queue
-- is often sorted already (checked first); otherwise a bottom-up merge sort of the five parallel
-- lists into the plan's spare five and back, stable (ties keep their order), n log n for n <=
-- MAX_EVENTS, no garbage once the lists have grown (the lists that end up holding the events
-- become the animator's, the others the plan's spare ones).
function M.sort(P, I)
  local n, time = I.ev_n, I.ev_time
  if n < 2 then return end
  local sorted = true
  for i = 2, n do
    if time[i] < time[i - 1] then sorted = false; break end
  end
  if sorted then return end
  local cols, spare = P.ev_cols, P.ev_spare
  cols[1], cols[2], cols[3], cols[4], cols[5] = I.ev_name, I.ev_layer, I.ev_state, I.ev_weight, I.ev_time
  local src, dst = cols, spare
  local width = 1
  while width < n do
    local st = src[5]
    for lo = 1, n, 2 * width do
      local mid, hi = math.min(lo + width, n + 1), math.min(lo + 2 * width, n + 1)
      local i, j = lo, mid
      for o = lo, hi - 1 do
        local from
        if i < mid and (j >= hi or st[i] <= st[j]) then from, i = i, i + 1 else from, j = j, j + 1 end
        for c = 1, 5 do dst[c][o] = src[c][from] end
      end
    end
    src, dst = dst, src
    width = width * 2
  end
  I.ev_name, I.ev_layer, I.ev_state, I.ev_weight, I.ev_time = src[1], src[2], src[3], src[4], src[5]
  for c = 1, 5 do spare[c], cols[c] = dst[c], false end
end

--- Calls the handlers `handlers[name]` of the queued events in order; a handler that makes the
-- count `I.updates` move from `round` (it updated the animator again) ends the calls.
function M.dispatch(I, handlers, round)
  for i = 1, I.ev_n do -- (none: no work)
    local list = handlers[I.ev_name[i]]
    if list then
      for k = 1, #list do
        if I.updates ~= round then return end
        list[k](I.ev_name[i], I.ev_layer[i], I.ev_state[i], I.ev_weight[i])
      end
    end
  end
end

local function next_event(I)
  local i = I.ev_i + 1
  if i > I.ev_n then return nil end
  I.ev_i = i
  return I.ev_name[i], I.ev_layer[i], I.ev_state[i], I.ev_weight[i]
end

--- An iterator over the queue from its start (for `anim:events()`).
function M.each(I)
  I.ev_i = 0
  return next_event, I, nil
end


return M
