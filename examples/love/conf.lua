function love.conf(t)
  t.identity = "sinew-fox-demo"
  t.window.title = "sinew: the Fox"
  t.window.width, t.window.height = 960, 600
  t.window.depth = 24   -- a depth buffer for the 3-D view
  t.window.msaa = 4
  t.window.vsync = 1
  t.modules.audio, t.modules.sound, t.modules.joystick, t.modules.physics = false, false, false, false
end
