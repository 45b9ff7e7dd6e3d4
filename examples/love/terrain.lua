-- The uneven ground of the LÖVE demo: across the Fox's path (along z) a ramp up, a plateau and
-- three steps down, flat elsewhere. Its height and normal at any point (what the feet's ground
-- callback asks, examples/love/fox_ik.lua) and the triangles that draw it. Plain Lua with no LÖVE
-- call, no garbage per query.
local M = {}

-- the profile along z: { z, height } in metres; between two points the ground is a plane sloping
-- along z, and where two points share a z it is a riser (a step)
M.profile = { { -60, 0 }, { 0.8, 0 }, { 2.0, 0.25 }, { 2.6, 0.25 }, { 2.6, 0.17 }, { 2.9, 0.17 }, { 2.9, 0.09 },
  { 3.2, 0.09 }, { 3.2, 0 }, { 60, 0 } }
M.size = 60 -- half the width across x

local P = M.profile
local sqrt = math.sqrt

--- The height at (x, z) and the unit normal there (x, y, z): on a riser's line, the step below it.
function M.height(_, z)
  for i = 1, #P - 1 do
    local z1, h1, z2, h2 = P[i][1], P[i][2], P[i + 1][1], P[i + 1][2]
    if z2 > z1 and z >= z1 and z < z2 then
      local slope = (h2 - h1) / (z2 - z1)
      local l = sqrt(1 + slope * slope)
      return h1 + slope * (z - z1), 0, 1 / l, -slope / l
    end
  end
  return 0, 0, 1, 0
end

--- The triangles of the ground (a list of { x, y, z } vertices, three a triangle), for a mesh.
function M.triangles()
  local out, S = {}, M.size
  for i = 1, #P - 1 do
    local z1, h1, z2, h2 = P[i][1], P[i][2], P[i + 1][1], P[i + 1][2]
    local a, b, c, d = { -S, h1, z1 }, { S, h1, z1 }, { S, h2, z2 }, { -S, h2, z2 }
    for _, v in ipairs { a, b, c, a, c, d } do out[#out + 1] = v end
  end
  return out
end

return M
