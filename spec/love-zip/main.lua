-- Packed into a .love by tools/love_zip.sh with sinew's Lua files (and, for the "inside" case,
-- its native library) and run by LÖVE: checks that `require "sinew"` finds the native library
-- the way the case says (sinew.native), or, with none anywhere, fails with a message that says
-- what it tried. Prints "love-zip-<case>: N passed, M failed" and quits with its status.
function love.load(args)
  local case = args[1] or "?"
  local ok, msg = pcall(function()
    local loaded, sinew = pcall(require, "sinew")
    if case == "missing" then
      assert(not loaded, "sinew loaded with no native library anywhere")
      local err = tostring(sinew)
      for _, want in ipairs { "package.cpath", "beside the game", "inside the game: no sinew/core.so" } do
        assert(err:find(want, 1, true), "the message does not say '" .. want .. "':\n" .. err)
      end
      return "no library: the error says what was tried"
    end
    assert(loaded, tostring(sinew))
    local x, y, z, w = sinew.quat.slerp(0, 0, 0, 1, 0, 0, math.sqrt(0.5), math.sqrt(0.5), 0.5)
    assert(math.abs(z - math.sin(math.pi / 8)) < 1e-12 and x == 0 and y == 0 and w > 0, "slerp")
    local copied = love.filesystem.getInfo("sinew-native/core.so") ~= nil
    if case == "inside" then
      assert(copied, "the library inside the .love was not copied into the save directory")
    else
      assert(not copied, "loaded through the save directory, not beside the game")
    end
    return ("sinew %s loaded from %s the .love"):format(sinew._VERSION, case)
  end)
  print(("love-zip-%s: %s"):format(case, tostring(msg)))
  print(("love-zip-%s: %d passed, %d failed"):format(case, ok and 1 or 0, ok and 0 or 1))
  love.event.quit(ok and 0 or 1)
end
