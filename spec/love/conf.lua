-- A minimal LÖVE 11 project that proves sinew loads under LÖVE's LuaJIT (run by tools/test.sh).
function love.conf(t)
  t.identity = "sinew-load-check"
  t.window = false
  t.modules.audio = false
  t.modules.sound = false
  t.modules.joystick = false
end
