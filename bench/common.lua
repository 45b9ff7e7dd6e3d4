-- Shared helpers of the Lua benchmarks: time a function, measure its garbage.
local M = {}

M.interpreter = rawget(_G, "jit") and "luajit" or (_VERSION:gsub("Lua ", "lua"))

--- Nanoseconds per call of fn (CPU time, best of 3 rounds of `n` calls after a warm-up round).
function M.ns_per_call(fn, n)
  for _ = 1, n do fn() end
  local best = math.huge
  for _ = 1, 3 do
    local t0 = os.clock()
    for _ = 1, n do fn() end
    best = math.min(best, os.clock() - t0)
  end
  return best / n * 1e9
end

--- Milliseconds per call of `frame` (CPU time): the least of `rounds` rounds (3 unless given) of
-- `frames` calls each, after one round of warm-up. For figures of a whole crowd per frame; each
-- call gets the count of the frames played so far in this measure (1, 2, ...).
function M.ms_per_frame(frame, frames, rounds)
  local best, f = math.huge, 0
  for round = 0, rounds or 3 do
    local t0 = os.clock()
    for _ = 1, frames do
      f = f + 1
      frame(f)
    end
    if round > 0 then best = math.min(best, (os.clock() - t0) / frames * 1e3) end
  end
  return best
end

--- Milliseconds per frame of each function of the list `fns`, measured in turn `times` times in
-- rounds of `frames` frames (M.ms_per_frame), the least of each: they see the same moments of a
-- shared machine and the same state of the allocator (a figure measured alone can be far from
-- one measured beside the others: large strings come from fresh pages or reused ones).
function M.in_turn(fns, times, frames)
  local best = {}
  for _ = 1, times do
    for i, fn in ipairs(fns) do best[i] = math.min(best[i] or math.huge, M.ms_per_frame(fn, frames, 2)) end
  end
  return best
end

--- M.in_turn of two functions `a` and `b`: their two figures.
function M.alternate(a, b, times, frames)
  local ms = M.in_turn({ a, b }, times, frames)
  return ms[1], ms[2]
end

--- Bytes of garbage per call: the same measure the specs use (spec/helper.lua).
M.garbage_per_call = require("helper").garbage_per_call

--- The least bytes of garbage per call over up to eight rounds, stopping at the first without any
-- (spec/helper.lua): LuaJIT's trace compiler makes GC objects now and then, in some rounds.
M.least_garbage = require("helper").least_garbage

--- The figure a C benchmark in build/lua5.4/bench/ prints, run now in a process of its own: the
-- number before `unit` in the output of `command` (a file name there, with its arguments), or nil
-- when it is not built or prints none.
function M.c_figure(command, unit)
  local p = io.popen("build/lua5.4/bench/" .. command .. " 2>/dev/null")
  local value = p and tonumber((p:read("*a") or ""):match("([%d.]+) " .. unit:gsub("%p", "%%%0")))
  if p then p:close() end
  return value
end

--- The Fox animator of bench/animator.lua and bench/animator_crowd.lua: a base layer (idle / a
-- synced walk-run blend tree with two step events / jump) and an additive look layer at 0.6
-- under `upper` (a mask of the Fox's skeleton `skel`).
function M.fox_definition(skel, upper)
  return {
  skeleton = skel,
  parameters = { speed = 1.2, jump = "trigger" },
  layers = {
    { name = "base", entry = "idle",
      states = {
        idle = { motion = "Survey" },
        move = { motion = { blend = "1d", parameter = "speed", sync = true,
          children = { { 0.5, "Walk" }, { 2.0, "Run" } } }, events = { { 0.25, "step" }, { 0.75, "step" } } },
        jump = { motion = "Run", loop = false, speed = 1.5 },
      },
      transitions = {
        { from = "idle", to = "move", when = { { "speed", ">", 0.1 } }, duration = 0.25 },
        { from = "move", to = "idle", when = { { "speed", "<", 0.1 } }, duration = 0.25 },
        { from = "any", to = "jump", when = { { "jump" } }, duration = 0.1 },
        { from = "jump", to = "idle", exit_time = 0.9, duration = 0.2 },
      } },
    { name = "look", mode = "additive", mask = upper, weight = 0.6, states = { look = { motion = "Survey" } } },
  },
  }
end

--- Prints one figure line: "<interpreter>  <what>  <value> <unit>", the value with `digits` decimals (1 unless given).
function M.report(what, value, unit, digits)
  print(("%-7s %-58s %10." .. (digits or 1) .. "f %s"):format(M.interpreter, what, value, unit))
end

return M
