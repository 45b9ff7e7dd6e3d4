-- Figures of inverse kinematics on 2-D rigs (issue 25): ns per solve from Lua of
-- sinew.ik.two_bone, aim and chain given a rig, on the dragon boy (19 bones), each solve writing
-- a 2-D pose and updating the world matrices of the bones it turned and those below them; beside
-- them a whole world update (as `rig:apply(pose)`); and the garbage per solve. The C core's
-- figures on positions alone are bench/c/bench_ik2d.c's.
local sinew = require "sinew"
local bench = require "common"

local ik = sinew.ik
local data = assert(sinew.dragonbones.load("assets/dragonbones/dragon_boy/dragon_boy_ske.json"))
local boy = sinew.dragonbones.rig(data)
local pose = boy:pose()
boy:apply(pose)
local arm = ik.two_bone { rig = boy, bones = { "armUpperR", "armR" } }
local head = ik.aim { rig = boy, bone = "head", limit = 1 }
local tail = ik.chain { rig = boy, bones = { "tail", "tailTip" }, method = "fabrik", iterations = 16 }
local _, _, _, _, sx, sy = boy:bone("armUpperR")
local N, i = 100000, 0

local cases = {
  { "2-D rig:apply (the world update, 19 bones)", function() boy:apply(pose) end },
  { "2-D ik two_bone:solve(pose, tx, ty)", function()
    i = i + 1
    arm:solve(pose, sx + 20 + i % 7, sy + 25)
  end },
  { "2-D ik two_bone:solve(nil, tx, ty) (the rig's own pose)", function()
    i = i + 1
    arm:solve(nil, sx + 20 + i % 7, sy + 25)
  end },
  { "2-D ik aim:solve (limit 1)", function()
    i = i + 1
    head:solve(pose, sx + 200, sy - 100 + i % 13)
  end },
  { "2-D ik chain:solve (2 bones, FABRIK, 16 iterations)", function()
    i = i + 1
    tail:solve(pose, sx - 40, sy + 60 + i % 5)
  end },
}
for _, c in ipairs(cases) do bench.report(c[1], bench.ns_per_call(c[2], N), "ns") end
local function all()
  i = i + 1
  arm:solve(pose, sx + 20 + i % 7, sy + 25)
  head:solve(pose, sx + 200, sy - 100 + i % 13)
  tail:solve(pose, sx - 40, sy + 60 + i % 5)
end
bench.report("2-D ik garbage per three solves", bench.least_garbage(all, 2000), "bytes", 0)
