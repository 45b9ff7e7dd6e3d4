function love.conf(t)
  t.identity = "sinew-love2d-demo"
  t.window.title = "sinew: DragonBones rigs in LÖVE"
  t.window.width, t.window.height = 960, 600
  t.window.msaa = 4
  t.window.vsync = 1
  t.modules.audio, t.modules.sound, t.modules.joystick, t.modules.physics = false, false, false, false
end
