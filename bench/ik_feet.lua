-- Figures of sinew.ik.feet: nanoseconds per four-leg solve of the Fox walking on a 10-degree hill
-- (its Walk sampled beforehand: the solve alone is timed), with its ground callback (a plane) in
-- Lua, and the garbage per solve; then the ground callbacks alone (four calls of the same Lua
-- function), for what the solve adds to them. The C figure is bench/c/bench_ik_feet.c's.
local sinew = require "sinew"
local bench = require "common"

local fox = assert(sinew.gltf.load("assets/fox/glTF-Binary/Fox.glb"))
local a = math.rad(10)
local slope, ny, nz = math.tan(a), math.cos(a), -math.sin(a)
local function ground(_, _, z) return z * slope, 0, ny, nz end
local feet = sinew.ik.feet { skeleton = fox.skeleton, pelvis = "b_Hip_01", ground = ground,
  legs = { { "b_LeftUpperArm_09", "b_LeftForeArm_010", "b_LeftHand_011" },
           { "b_RightUpperArm_06", "b_RightForeArm_07", "b_RightHand_08" },
           { "b_LeftLeg01_015", "b_LeftLeg02_016", "b_LeftFoot01_017" },
           { "b_RightLeg01_019", "b_RightLeg02_020", "b_RightFoot01_021" } } }
local walk, pose = sinew.pose(fox.skeleton), sinew.pose(fox.skeleton)
walk:copy(fox.rest)
fox.clips.Walk:sample(0.3, walk)

local function solve()
  pose:copy(walk)
  feet:solve(pose, 1 / 60)
end
local function copy_only() pose:copy(walk) end
local function grounds()
  local _ = ground(1, 2, 3) + ground(1, 2, 4) + ground(1, 2, 5) + ground(1, 2, 6)
end

local n = 20000
local t_solve = bench.ns_per_call(solve, n) - bench.ns_per_call(copy_only, n)
local t_ground = bench.ns_per_call(grounds, n)
bench.report("ik feet, the Fox's 4 legs on a 10-degree hill (Lua ground)", t_solve, "ns")
bench.report("ik feet, its 4 ground callbacks alone", t_ground, "ns")
bench.report("ik feet, garbage per solve", bench.least_garbage(solve, 2000), "bytes")
