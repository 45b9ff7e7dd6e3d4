-- Run by spec/messages_spec.lua in child processes (each a new Lua state: on Lua 5.4 a new seed
-- of its string hashes): `lua messages_child.lua definitions` prints the fault of each bad
-- definition, one a line, which must be the same in every process.
local sinew = require "sinew"

local skel = sinew.skeleton { names = { "hips", "spine" }, parents = { 0, 1 } }
local run = sinew.clip { skeleton = skel, tracks = {
  { joint = "hips", path = "translation", times = { 0, 1 }, values = { 0, 0, 0, 1, 0, 0 } } } }

local function def_of()
  return { skeleton = skel, parameters = { speed = 0 },
    layers = { { name = "base", entry = "idle", states = {
      idle = { motion = "Run" },
      move = { motion = { blend = "1d", parameter = "speed", children = { { 0.5, "Run" }, { 3.0, "Run" } } } },
    } } } }
end

local breaks = {
  function(t) t.layers[1].states.idle.zz = 1; t.layers[1].states.idle.bogus = 2 end,
  function(t) t.parameters.q = "nope"; t.parameters.p = {}; t.parameters.r = "bad" end,
  function(t) local m = t.layers[1].states.move.motion; m.zz, m.yy = 1, 2 end,
  function(t) t.layers[1].states[7] = { motion = "Run" }; t.layers[1].states[true] = { motion = "Run" } end,
  function(t) t.layers.x = {}; t.layers[5] = {} end,
  function(t) t.foo, t.bar = 1, 2 end,
}

assert(arg[1] == "definitions", "usage: messages_child.lua definitions")
for _, b in ipairs(breaks) do
  local def = def_of()
  b(def)
  local ok, msg = pcall(sinew.animator, def, { clips = { Run = run } })
  assert(not ok, "a bad definition compiled")
  print(msg)
end
