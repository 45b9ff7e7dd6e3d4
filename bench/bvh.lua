-- Figures of BVH import: the time to load the CMU files of Debian's assimp-testmodels (read the
-- file, read the hierarchy and the frames, make the skeleton and the clip) beside the floor of the
-- same run (reading the file alone), and ns per joint to sample the clip of 01_01 into a pose.
-- Without the package the figures are left out, saying so.
local sinew = require "sinew"
local bench = require "common"

local read = require("helper").read_file
local dir = "/usr/share/assimp/models/BVH"

local first
for _, name in ipairs({ "01_01", "01_03", "Boxing_Toes" }) do
  local path = ("%s/%s.bvh"):format(dir, name)
  local f = io.open(path, "rb")
  if not f then
    print(("bvh: %s is not installed (apt-get install assimp-testmodels): its figures are left out"):format(path))
    break
  end
  f:close()
  local floor = bench.ns_per_call(function() assert(read(path)) end, 10) / 1e6
  local load = bench.ns_per_call(function() assert(sinew.bvh.load(path)) end, 10) / 1e6
  bench.report(("%s.bvh: reading the file, the floor"):format(name), floor, "ms")
  bench.report(("%s.bvh: sinew.bvh.load (%.1fx the floor)"):format(name, load / floor), load, "ms")
  first = first or path
end

if first then
  local mocap = assert(sinew.bvh.load(first))
  local pose, t = sinew.pose(mocap.skeleton), 0
  local dt = mocap.clip:duration() / 997
  local ns = bench.ns_per_call(function()
    t = t + dt
    mocap.clip:sample(t, pose)
  end, 100000)
  bench.report(("01_01.bvh: clip:sample, per joint (%d joints, %d frames)"):format(#mocap.skeleton, mocap.frames),
    ns / #mocap.skeleton, "ns")
end
