-- Requires sinew from this tree's LuaJIT build, calls sinew.quat.slerp, prints a summary line
-- "love: N passed, M failed" and quits with its status.
local root = love.filesystem.getSourceBaseDirectory() -- the folder holding spec/
root = root:gsub("/spec$", "")
package.cpath = root .. "/build/luajit/?.so;" .. package.cpath
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path

function love.load()
  local passed, failed = 0, 0
  local ok, err = pcall(function()
    local sinew = require "sinew"
    local h = math.sqrt(0.5)
    local x, y, z, w = sinew.quat.slerp(0, 0, 0, 1, 0, 0, h, h, 0.5)
    local want = math.sin(math.pi / 8)
    assert(math.abs(z - want) < 1e-12 and x == 0 and y == 0 and math.abs(w - math.cos(math.pi / 8)) < 1e-12,
      "slerp gave " .. x .. " " .. y .. " " .. z .. " " .. w)
    print(("love: sinew %s loaded under %s (%s), slerp ok"):format(sinew._VERSION, _VERSION, jit.version))
  end)
  if ok then passed = 1 else failed = 1; print("love: " .. tostring(err)) end
  print(("love: %d passed, %d failed"):format(passed, failed))
  love.event.quit(failed == 0 and 0 or 1)
end
