-- Spoiled .glb files for the fuzz specs of glTF import (spec/gltf_fuzz_spec.lua,
-- spec/gltf_fast_spec.lua): a file's JSON spoiled value by value (indices, counts, offsets, types
-- swapped for others) or its binary chunk byte by byte, from a deterministic generator.
local json = require "dkjson"
local glb = require("support.gltf_hostile").glb -- a .glb of JSON text and a BIN chunk
local copy = require("helper").deep_copy
local slots = require("helper").slots -- every (table, key) of a tree, in a fixed order

local M = {}

--- A deterministic generator, the same on every Lua: `rng(n)` gives 1 .. n.
function M.generator(seed)
  local state = seed
  return function(n)
    state = (state * 16807) % 2147483647
    return 1 + state % n
  end
end

-- the values a spoiled JSON value becomes
local pool = { 0, 1, -1, 2, 3, 7, 24, 255, 256, 5120, 5121, 5122, 5123, 5125, 5126, 65535, 65536, 2 ^ 31, 2 ^ 32 + 1,
  2 ^ 53, 2 ^ 60, 1e300, -1e300, 0.5, -0.25, "x", "", "SCALAR", "VEC4", "MAT4", "rotation", "translation", "weights",
  "CUBICSPLINE", "STEP", true, false, {}, { 0 }, { 0, 0, 0, 0 }, { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0 },
  "data:application/octet-stream;base64,AAAA", "../x.bin", "missing.bin" }


--- The .glb of round `round` spoiled with `rng`: of `tree` (the decoded JSON of `text`) with 1 to
-- 3 values spoiled (two rounds in three), else of `text` with bytes of the BIN chunk `bin` spoiled
-- (and the file cut short, one time in four).
function M.spoil(rng, round, tree, text, bin)
  if round % 3 ~= 0 then -- spoil 1 to 3 JSON values
    local t = copy(tree)
    local all = slots(t)
    for _ = 1, rng(3) do
      local s = all[rng(#all)]
      local v = pool[rng(#pool + 1)] -- one past the pool: remove the value
      s[1][s[2]] = copy(v)
    end
    return glb(json.encode(t), bin)
  end
  local b = bin -- spoil bytes of the binary chunk (floats, indices, joints), or cut the file short
  for _ = 1, rng(8) do
    local p = rng(#b)
    b = b:sub(1, p - 1) .. string.char(rng(256) - 1) .. b:sub(p + 1)
  end
  local bytes = glb(text, b)
  if rng(4) == 1 then bytes = bytes:sub(1, rng(#bytes)) end
  return bytes
end

return M
