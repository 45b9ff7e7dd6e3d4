-- A minimal LÖVE 11 project that proves sinew loads under LÖVE's LuaJIT (run by tools/test.sh
-- under xvfb): a small hidden-from-view window, for the meshes and textures of the glTF check.
function love.conf(t)
  t.identity = "sinew-load-check"
  t.window.width, t.window.height = 64, 64
  t.window.title = "sinew check"
  t.modules.audio = false
  t.modules.sound = false
  t.modules.joystick = false
end
