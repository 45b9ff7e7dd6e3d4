-- Mutated DragonBones files for sinew.dragonbones.parse (run by spec/dragonbones_import_spec.lua in
-- a child process with time and memory caps): small sample files spoiled value by value (types
-- swapped, numbers out of range, entries removed or copied) and as text (cut short, a byte
-- changed). Every file must give data or nil and a message; none may raise. Prints
-- "<n> loaded, <m> refused, <k> raised" and the first few raised errors.
-- Usage: lua spec/support/dragonbones_fuzz.lua <seed> <rounds>
local db = require "sinew.dragonbones"
local dkjson = require "dkjson"
local helper = require "helper"
local read, copy, slots = helper.read_file, helper.deep_copy, helper.slots

local seed, rounds = tonumber(arg[1]) or 1, tonumber(arg[2]) or 400

local state = seed % 2147483646 + 1
local function rand(n) -- 1 .. n, the same on every Lua
  state = (state * 16807) % 2147483647
  return 1 + state % n
end

local FILES = { "assets/dragonbones/progress_bar/progress_bar_ske.json",
  "assets/dragonbones/replace_slot_display/main_ske.json", "assets/dragonbones/you_xin_20703016/20703016_ske.json",
  "assets/dragonbones/floor_board/floor_board_ske.json",
  -- what the samples lack: IK and its timeline, z-order, 5.0 and 5.5 keys in one animation, events
  -- on bone and slot keys, multi-segment curves, clockwise turns, 0-frame keys, deform keys
  "spec/support/dragonbones_edge_ske.json" }

local pool = { 0, 1, -1, 2, 3, 0.5, -0.25, 24, 255, 32767, 32768, 65536, 2 ^ 31, 2 ^ 53, 1e39, -1e39, 1e300,
  "x", "", "root", "mesh", "armature", "boundingBox", "polygon", "5.0", "5.5", "true", "false", true, false,
  {}, { 0 }, { 0, 0, 0 }, { 1, 2, 3, 4 }, { x = 1 }, { name = "root" } }

local texts, trees = {}, {}
for i, f in ipairs(FILES) do texts[i] = read(f) end
for i, t in ipairs(texts) do trees[i] = assert(dkjson.decode(t)) end

local loaded, refused, raised, shown = 0, 0, 0, 0
for round = 1, rounds do
  local which = rand(#texts)
  local text
  if round % 5 == 0 then -- as text
    local s = texts[which]
    local at = rand(#s)
    if rand(2) == 1 then
      text = s:sub(1, at)
    else
      text = s:sub(1, at - 1) .. string.char(rand(95) + 31) .. s:sub(at + 1)
    end
  else
    local tree = copy(trees[which])
    for _ = 1, rand(3) do
      local all = slots(tree)
      local slot = all[rand(#all)]
      local t, k = slot[1], slot[2]
      local what = rand(10)
      if what <= 6 then
        t[k] = copy(pool[rand(#pool)])
      elseif what == 7 then
        t[k] = nil
      elseif what == 8 and type(t[k]) == "table" and #t[k] > 0 then
        t[k][#t[k] + 1] = copy(t[k][rand(#t[k])]) -- an entry twice
      elseif type(t[k]) == "number" then
        t[k] = t[k] * (rand(2) == 1 and -1 or 1000) + rand(3) - 2
      end
    end
    text = dkjson.encode(tree)
  end
  local ok, data, err = pcall(db.parse, text, { name = "f" })
  if not ok then
    raised = raised + 1
    if shown < 5 then
      shown = shown + 1
      print("raised: " .. tostring(data))
    end
  elseif type(data) == "table" and err == nil then
    loaded = loaded + 1
  elseif data == nil and type(err) == "string" and err:sub(1, 3) == "f: " then
    refused = refused + 1
  else
    raised = raised + 1
    if shown < 5 then
      shown = shown + 1
      print("bad result: " .. tostring(data) .. ", " .. tostring(err))
    end
  end
end
print(("%d loaded, %d refused, %d raised"):format(loaded, refused, raised))
