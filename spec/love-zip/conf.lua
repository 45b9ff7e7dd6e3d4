-- No window: the check needs only the filesystem and the loader.
function love.conf(t)
  t.identity = "sinew-zip-test"
  t.window = nil
  t.modules.window = false
  t.modules.graphics = false
  t.modules.audio = false
  t.modules.sound = false
end
